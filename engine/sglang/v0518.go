package sglang

import (
	"membudget/budget"
	"membudget/model"
)

// mlaPrefillKept is the refusal of a serve of v0.5.18 or later of an MLA
// model, whose breakable prefill CUDA graphs the release keeps (see
// [Profile.BreakableMLAKept]): their capture is not sized, as a text
// model's is not (see [breakablePrefillRefusal]). A DeepSeek-V3 served on
// trtllm_mla has them turned off after the default fraction
// (_disable_prefill_cuda_graph_for_deepseek_trtllm_mla, server_args.py:
// 4732-4758, run at :3690 after the reserve at :3677), which membudget
// does not resolve at this release: it is refused too.
func mlaPrefillKept(r *Resolved) error {
	n := len(r.PiecewiseSizes)
	return settingErr("disable-piecewise-cuda-graph", false,
		"%s keeps an MLA model's breakable prefill CUDA graphs: its _disable_breakable_cudagraph_if_incompatible (server_args.py:4666-4717) has no MLA case, "+
			"where v0.5.15 to v0.5.17 turned them off for every MLA model without sparse attention; here %d sizes up to %d tokens, captured after the KV pool "+
			"into the graph pool the decode graphs share, which membudget does not size (the default fraction keeps 1.5 GiB for an MLA model's prefill graphs, "+
			"server_args.py:5099-5108; a DeepSeek-V3 on trtllm_mla has them turned off after that reserve, :4732-4758, not modelled here); "+
			"pass --disable-piecewise-cuda-graph to size the serve without them",
		r.Profile.Describes, n, r.PiecewiseSizes[n-1])
}

// vlmCacheMiB is SGLANG_VLM_CACHE_SIZE_MB's default (v0.5.18 environ.py:
// 1146), what mm_runtime_reservation_gb takes off a multimodal model's KV
// budget (mem_cache/kv_cache_configurator.py:130-147) when the feature
// transport is the host's; membudget reads no environment.
const vlmCacheMiB = 100

// mmReserveBytes is what the release takes off the rest before sizing
// the KV pool for model a (see [Profile.MMRuntimeReserve]): vlmCacheMiB
// for a multimodal model, 0 otherwise. is_multimodal (v0.5.18
// configs/model_config.py:445-459) is enable_multimodal (on but for the
// first architectures of mm_disabled_models, :346-372; --enable-multimodal
// refused), not language_model_only (the checkpoint's own key, read at
// :331 before the flag is written into the config at :552, so
// --language-model-only does not clear it; a multimodal checkpoint that
// sets the key is refused, see [Resolved.checkLMOnlyCheckpoint]), and an
// architecture of multimodal_model_archs (:1822-1893) or a text
// sub-config: sglMultimodal's list is v0.5.10's, and every architecture v0.5.18's list adds
// (mmArchsAdded0518) is one the profile refuses; every shipped model with
// a text sub-config is on the list or off by mm_disabled_models
// (TestMMReserve0518Multimodal).
func mmReserveBytes(a *model.Arch, p Profile) uint64 {
	if !p.MMRuntimeReserve || !sglMultimodal(a) {
		return 0
	}
	return vlmCacheMiB * mib
}

// mmArchsAdded0518 are the architectures of v0.5.18's
// multimodal_model_archs (configs/model_config.py:1822-1893, with
// MIMO_V2_MULTIMODAL_ARCHS, :50) that v0.5.10's (multimodalArchs) has not.
var mmArchsAdded0518 = []string{"MiMoV2ForCausalLM", "Cohere2VisionForConditionalGeneration", "Gemma4ForConditionalGeneration",
	"Gemma4UnifiedForConditionalGeneration", "GlmImageForConditionalGeneration", "InternS2MobiusForConditionalGeneration",
	"InternS2PreviewForConditionalGeneration", "LocateAnythingForConditionalGeneration", "MiMoV2ASRForCausalLM",
	"MiniMaxM3SparseForConditionalGeneration", "MossVLForConditionalGeneration", "MuseGlimmerForConditionalGeneration",
	"NemotronH_Nano_Omni_Reasoning_V3", "Qwen3ASRForConditionalGeneration", "Step3p7ForConditionalGeneration",
	"UnlimitedOCRForCausalLM", "VoxtralForConditionalGeneration"}

// mmVMMArchs0518 are the architectures whose model class opts into the
// CUDA VMM feature transport at v0.5.18 (supports_cuda_vmm_feature_transport,
// a class attribute read through getattr on the resolved class,
// model_loader/utils.py:240-242, so inherited: models/qwen3_vl.py:1213 and
// the EntryClass subclasses of its class, qwen3_vl_moe.py:173, qwen3_5.py:
// 1775, 1936, interns1pro.py:191, interns2preview.py:5 and
// interns2_mobius.py:794; kimi_k25.py:639; kimi_k3.py:3137).
// Qwen3-Omni's EntryClass wraps its thinker (qwen3_omni_moe.py:542, a
// PreTrainedModel) and does not opt in.
var mmVMMArchs0518 = []string{"Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration", "Qwen3_5ForConditionalGeneration",
	"Qwen3_5MoeForConditionalGeneration", "InternS1ProForConditionalGeneration", "InternS2PreviewForConditionalGeneration",
	"InternS2MobiusForConditionalGeneration", "KimiK25ForConditionalGeneration", "KimiK3ForConditionalGeneration"}

// checkMMFeatureTransport refuses, by name, a server of a multimodal model
// over several nodes of GB200 or GB300 under a release with the runtime
// reservation (see [Profile.MMRuntimeReserve]): without
// --mm-feature-transport (given, it is [Resolved.resolveMMTransport]'s:
// cpu sized, the others refused), v0.5.18 resolves the transport to
// cuda_vmm there for a model class that opts in when an IMEX channel is
// mounted (_handle_multimodal_feature_transport, server_args.py:7861-8021), which
// adds SGLANG_MM_FEATURE_CACHE_MB (1024 MiB, environ.py:1168) to the
// reservation (kv_cache_configurator.py:139-140) and whose pool on the
// base GPU is not read; membudget cannot see the channel.
func (r *Resolved) checkMMFeatureTransport(a *model.Arch, c budget.Class) error {
	if r.MMFeatureTransport != "" || !r.Profile.MMRuntimeReserve || r.Nodes.NNodes <= 1 || !sglMultimodal(a) || !archIn(a, mmVMMArchs0518) ||
		c.Device.Silicon.Vendor != budget.NVIDIA || !mnnvlFabric(c.Device.Name) {
		return nil
	}
	return settingErr("nnodes", r.Nodes.NNodes, "%s picks the CUDA VMM multimodal feature transport by default for this model over several nodes of %s "+
		"when an IMEX channel is mounted (server_args.py:7861-8021), which takes SGLANG_MM_FEATURE_CACHE_MB (1024 MiB, environ.py:1168) more off the KV budget "+
		"(kv_cache_configurator.py:130-147) and keeps a pool on the base GPU that membudget does not size; whether the channel is mounted is not known here; --mm-feature-transport cpu, the host transport, is sized",
		r.Profile.Describes, c.Device.Name)
}

// lmOnlyKeyFrom is the first release whose ModelConfig reads a
// checkpoint's own language_model_only (configs/model_config.py:331 at
// v0.5.18, sgl-project/sglang PR #22867); earlier releases ignore the key.
const lmOnlyKeyFrom = "v0.5.18"

// checkLMOnlyCheckpoint refuses, by name, a multimodal checkpoint whose
// config.json declares language_model_only under a release that reads the
// key: is_multimodal is then false (configs/model_config.py:452-459 at
// v0.5.18), so SGLang serves it as a text model (no multimodal KV
// reservation, kv_cache_configurator.py:136-137; no vision headroom in the
// default fraction, server_args.py:4990-4996; the breakable runner's
// multimodal case not met, so its prefill CUDA graphs captured,
// :4666-4717), and Qwen3-VL's and Qwen3.5's classes build no vision tower
// (models/qwen3_vl.py:1243-1246). membudget's multimodal rules would size
// a different serve, the prefill graphs missed.
func (r *Resolved) checkLMOnlyCheckpoint(a *model.Arch) error {
	if !a.LanguageModelOnly || !sglMultimodal(a) || older(r.Profile, lmOnlyKeyFrom) {
		return nil
	}
	return settingErr("model", a.Source, "its config.json declares language_model_only: true, which %s reads (configs/model_config.py:331, 452-459): this multimodal checkpoint (%v) is then served as a text model, "+
		"without the multimodal KV reservation or the default fraction's vision headroom, with its breakable prefill CUDA graphs captured (server_args.py:4666-4717) "+
		"and, for Qwen3-VL's and Qwen3.5's classes, no vision tower (models/qwen3_vl.py:1243-1246); membudget sizes it as multimodal and does not model that serve",
		r.Profile.Describes, a.Architectures)
}
