package sglang

import (
	"fmt"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file reads --mm-feature-transport, how a multimodal model's
// processed features (pixel values, audio features) travel from the
// tokenizer manager to the scheduler (_handle_multimodal_feature_transport:
// server_args.py:6569-6641 at v0.5.16, :7564-7674 at v0.5.17, :7861-8028 at
// v0.5.18). cpu, the host transport, allocates nothing on the GPU, which is
// what membudget sizes. cuda_ipc (and v0.5.18's cuda_vmm) keeps a fixed
// pool of SGLANG_MM_FEATURE_CACHE_MB on the base GPU, allocated by the
// tokenizer manager's own process when it builds the model's multimodal
// processor (multimodal/processors/base_processor.py:279-302 at v0.5.16,
// :341-364 at v0.5.17, :400-424 at v0.5.18; managers/tokenizer_manager.py:
// 468-483 at v0.5.17, only for a multimodal model; v0.5.18's cuda_vmm
// through CudaVmmFeatureTransport, tokenizer_manager.py:458-460); v0.5.18 also takes it
// off the KV budget (mm_runtime_reservation_gb,
// mem_cache/kv_cache_configurator.py:130-147). Where that process's pool
// and its CUDA context land against the scheduler's measurement is not
// read, so both are refused by name rather than sized.

// mmTransportFrom is the first release with --mm-feature-transport
// (server_args.py:2317-2321 at v0.5.16).
const mmTransportFrom = "v0.5.16"

// mmVMMFrom is the first release whose --mm-feature-transport takes
// cuda_vmm (Literal["cpu", "cuda_ipc", "cuda_vmm"], server_args.py:
// 2858-2868 at v0.5.18; ["cpu", "cuda_ipc"] at v0.5.16 :2317-2321 and
// v0.5.17 :2742-2750).
const mmVMMFrom = "v0.5.18"

// mmFeatureCacheMiB is SGLANG_MM_FEATURE_CACHE_MB's default, the GPU
// transports' pool (environ.py:813 at v0.5.16, :969 at v0.5.17, :1168 at
// v0.5.18: EnvInt(1 * 1024)).
const mmFeatureCacheMiB = 1024

// MMIPCEnv is SGLang's older switch of the CUDA IPC feature transport,
// read from v0.5.6.post2 (SGL_USE_CUDA_IPC, multimodal/processors/
// base_processor.py:33 and the pool at :228-229 there, an EnvBool from
// v0.5.7, environ.py; :44, 261-277 at v0.5.15), and from v0.5.16 where
// --mm-feature-transport is unset: true resolves it to cuda_ipc, false to
// cpu, before any default (server_args.py:6594-6603 at v0.5.16,
// :7589-7596 at v0.5.17, :7886-7893 at v0.5.18).
const MMIPCEnv = "SGLANG_USE_CUDA_IPC_TRANSPORT"

// mmIPCEnvFrom is the first release that reads [MMIPCEnv]
// (base_processor.py:33 at v0.5.6.post2; v0.4.9.post2 has no such
// variable).
const mmIPCEnvFrom = "v0.5.6.post2"

// mmIPCEnv reads [MMIPCEnv] as release p does, in any case: from v0.5.7
// an EnvBool (true, 1, yes, y and their false counterparts; anything else
// warns and keeps its default, False), at v0.5.6.post2
// get_bool_env_var (true or 1; anything else warns and reads false,
// utils/common.py:264-276); [engine.Default] before [mmIPCEnvFrom],
// which does not read it. warn says where a value reads as false without
// being one of the false words.
func (f *flagServe) mmIPCEnv(p Profile) (s engine.Switch, warn string) {
	if older(p, mmIPCEnvFrom) {
		return engine.Default, ""
	}
	s, e, known := f.envSwitch(MMIPCEnv, !older(p, "v0.5.7"))
	if known {
		return s, ""
	}
	return engine.Off, fmt.Sprintf("%s=%q (%s): %s reads it as false", MMIPCEnv, e.Value, e.From, p.Describes)
}

// mmTransportChoices returns release p's argparse choices of
// --mm-feature-transport (see [mmVMMFrom]).
func mmTransportChoices(p Profile) []string {
	if older(p, mmVMMFrom) {
		return []string{"cpu", "cuda_ipc"}
	}
	return []string{"cpu", "cuda_ipc", "cuda_vmm"}
}

// mmTransportField is where release p's ServerArgs declares
// mm_feature_transport, for the messages.
func mmTransportField(p Profile) string {
	switch {
	case older(p, "v0.5.17"):
		return "server_args.py:2317-2321"
	case older(p, mmVMMFrom):
		return "server_args.py:2742-2750"
	}
	return "server_args.py:2858-2868"
}

// resolveMMTransport checks --mm-feature-transport against release p and
// the model: a release without the flag or a value outside its choices is
// an error naming it; cpu is the host transport, which membudget sizes;
// cuda_ipc and cuda_vmm are refused naming the pool they keep on the base
// GPU. Unset, v0.5.17 resolves it to cuda_ipc for a multimodal model on
// one node of NVIDIA GPUs (see [Profile.MMIPCByDefault]), refused naming
// the flag, whose cpu sizes it; v0.5.18's multi-node default is
// [Resolved.checkMMFeatureTransport]'s. Unset with [MMIPCEnv] set, that
// variable decides first ([Resolved.resolveMMIPCEnv]).
func (r *Resolved) resolveMMTransport(a *model.Arch, c budget.Class) error {
	t, p := r.MMFeatureTransport, r.Profile
	if t == "" && r.MMIPCEnv != engine.Default && !older(p, mmIPCEnvFrom) {
		return r.resolveMMIPCEnv(a)
	}
	if t == "" {
		if p.MMIPCByDefault && sglMultimodal(a) && c.Device.Silicon.Vendor == budget.NVIDIA && r.Nodes.NNodes <= 1 {
			return settingErr("mm-feature-transport", "",
				"unset, %s resolves it to cuda_ipc on one node of NVIDIA GPUs (server_args.py:7604-7616), which for this multimodal model (%s) keeps a pool of SGLANG_MM_FEATURE_CACHE_MB "+
					"(%d MiB, environ.py:969) on the base GPU, allocated by the tokenizer manager's own process (multimodal/processors/base_processor.py:341-364, managers/tokenizer_manager.py:468-483), "+
					"which membudget does not size; --mm-feature-transport cpu, the host transport, is sized", p.Describes, firstArchOf(a), mmFeatureCacheMiB)
		}
		return nil
	}
	if older(p, mmTransportFrom) {
		return settingErr("mm-feature-transport", t, "%s has no --mm-feature-transport: it came in v0.5.16 (server_args.py:2317-2321 there)", p.Describes)
	}
	choices := mmTransportChoices(p)
	if !slices.Contains(choices, t) {
		came := ""
		if t == "cuda_vmm" {
			came = "; cuda_vmm came in v0.5.18"
		}
		return settingErr("mm-feature-transport", t, "%s takes one of %s (%s)%s", p.Describes, strings.Join(choices, ", "), mmTransportField(p), came)
	}
	if t == "cpu" {
		return nil
	}
	kv := ""
	if p.MMRuntimeReserve {
		kv = ", and for a multimodal model takes it off the KV budget too (mem_cache/kv_cache_configurator.py:130-147)"
	}
	return settingErr("mm-feature-transport", t, "not modelled for %s: %s keeps a fixed pool of SGLANG_MM_FEATURE_CACHE_MB (%d MiB by default) on the base GPU, "+
		"allocated by the tokenizer manager's own process for a multimodal model (multimodal/processors/base_processor.py, %s)%s; membudget sizes the host transport, cpu",
		p.Describes, t, mmFeatureCacheMiB, mmTransportHandler(p), kv)
}

// resolveMMIPCEnv is [Resolved.resolveMMTransport] of an unset
// --mm-feature-transport where [MMIPCEnv] is set (see there). From
// v0.5.16 it decides the transport before any default: false is cpu,
// which is sized and which the launch line then gives; true is cuda_ipc,
// refused as the flag's cuda_ipc is, whatever the model (SGLang also
// raises for it off CUDA or over several nodes). Before v0.5.16 true
// builds the pool for a multimodal model only (base_processor.py), and is
// refused there.
func (r *Resolved) resolveMMIPCEnv(a *model.Arch) error {
	p := r.Profile
	if !older(p, mmTransportFrom) && r.MMIPCEnv == engine.Off {
		r.MMFeatureTransport = "cpu"
		return nil
	}
	if r.MMIPCEnv == engine.Off || older(p, mmTransportFrom) && !sglMultimodal(a) {
		return nil
	}
	fix := "unset it, which membudget sizes"
	if !older(p, mmTransportFrom) {
		fix = "--mm-feature-transport cpu, the host transport, overrides it and is sized"
	}
	return settingErr("mm-feature-transport", "", "unset, with %s true in the environment, %s puts a multimodal model's features through CUDA IPC (%s), "+
		"a fixed pool of SGLANG_MM_FEATURE_CACHE_MB (%d MiB by default) on the base GPU allocated by the tokenizer manager's own process (multimodal/processors/base_processor.py), "+
		"which membudget does not size; %s", MMIPCEnv, p.Describes, mmIPCEnvWhere(p), mmFeatureCacheMiB, fix)
}

// mmIPCEnvWhere is where release p reads [MMIPCEnv].
func mmIPCEnvWhere(p Profile) string {
	if older(p, mmTransportFrom) {
		return "multimodal/processors/base_processor.py, SGL_USE_CUDA_IPC"
	}
	return mmTransportHandler(p) + ", which resolves the unset flag to cuda_ipc"
}

// mmTransportHandler is where release p resolves the transport.
func mmTransportHandler(p Profile) string {
	switch {
	case older(p, "v0.5.17"):
		return "server_args.py:6569-6641"
	case older(p, mmVMMFrom):
		return "server_args.py:7564-7674"
	}
	return "server_args.py:7861-8028"
}

// planTransport is the --mm-feature-transport a plan's servers of model a
// give under release p: cpu, the host transport membudget sizes, where p
// would pick cuda_ipc unset (v0.5.17 for a multimodal model, see
// [Profile.MMIPCByDefault]; the plan's classes are one node each, and on
// ROCm the flag's cpu is SGLang's own pick), so that the launch lines
// carry it; "" elsewhere, SGLang's default being cpu.
func planTransport(p Profile, a *model.Arch) string {
	if p.MMIPCByDefault && sglMultimodal(a) {
		return "cpu"
	}
	return ""
}
