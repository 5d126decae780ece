package vllm

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
)

// This file sizes --kv-offloading-size with --kv-offloading-backend native:
// the KV blocks vLLM's OffloadingConnector keeps in pinned host memory.
// Every rule is vLLM main's at commit d18bb7b (2026-08-14).
//
// The flag becomes a KV connector (vllm/config/vllm.py:947-980,
// _post_init_kv_transfer_config): backend native sets OffloadingConnector
// with kv_connector_extra_config cpu_bytes_to_use = size x 2^30, the
// bytes of the whole engine, summed over its TP x PP workers
// (vllm/config/cache.py:189-198). CPUOffloadingSpec (vllm/v1/kv_offload/
// cpu/spec.py:79-109) divides them into chunks of every worker's KV bytes
// of a block, each rounded up to the page size, and keeps
// floor(cpu_bytes_to_use / chunk) of them: at most the size given. Since
// PR #50094 (2026-07-29) the chunks are one MAP_SHARED file in /dev/shm
// of exactly num_blocks x chunk bytes (vllm/v1/kv_offload/cpu/
// shared_offload_region.py:85-133), each worker populating its own slot
// of every row (:140-160) and registering the mapping with
// cudaHostRegister (vllm/v1/kv_offload/cpu/gpu_worker.py:193-220), which
// rounds nothing. Before it, each worker pinned one tensor per KV tensor
// through PyTorch's caching host allocator, which rounds every pinned
// allocation up to the next power of two: the "1.92x" of vllm issue
// #53042 (measured on 0.26.0; its correction of 2026-08-20 gives the
// sawtooth next_pow2(cpu_bytes_to_use / (world_size x KV tensors))), which
// membudget does not size.
//
// The worker side of the spec takes the KV cache tensors (spec.py:177-190,
// get_worker), so the region is built after the KV cache is allocated:
// vLLM's startup check and KV budget never see it, and on a unified
// device it is host memory beside the util budget, which the device must
// hold (the footprint's host term).

// KVOffload is a serve's --kv-offloading-size and --kv-offloading-backend.
// SizeGiB nil is a serve without KV offloading: vLLM activates it only
// when the size is set (vllm/config/cache.py:195-198).
type KVOffload struct {
	SizeGiB *float64 // --kv-offloading-size, GiB over the engine's workers
	Backend string   // --kv-offloading-backend: native (default) or lmcache
}

// offloadSince is the first release whose native offload membudget sizes:
// 0.28.0, whose branch was cut from main after 2026-08-14, surely after
// PR #50094 (2026-07-29) moved the CPU blocks into the shared /dev/shm
// region; the flag itself came with PR #27621 in 0.11.0.
var offloadSince = v0_28_0

// offloadFlags are the flags registerOffload registers: a request that
// names one registers both, so that their defaults hold together.
var offloadFlags = []string{"kv-offloading-size", "kv-offloading-backend"}

// registerOffload registers the KV offloading flags into o.
func registerOffload(fs *flag.FlagSet, o *KVOffload) {
	fs.Var(&optGiBFlag{&o.SizeGiB}, "kv-offloading-size", "vLLM's --kv-offloading-size: GiB of KV blocks in pinned host memory, the engine's whole (split among its TP x PP workers); on unified devices out of the GPU's pool")
	fs.StringVar(&o.Backend, "kv-offloading-backend", "native", "vLLM's --kv-offloading-backend: native (sized) or lmcache (refused: its server's memory is its own)")
}

// resolveOffload checks the KV offload settings as vLLM does and sizes the
// host memory each GPU's worker pins for them.
func (r *Resolved) resolveOffload(def func(string, string)) error {
	o := &r.Offload
	switch o.Backend {
	case "":
		o.Backend = "native"
	case "native", "lmcache":
	default:
		// argparse's choices, KVOffloadingBackend (vllm/config/cache.py:
		// 195, Literal["native", "lmcache"]).
		return settingErr("kv-offloading-backend", o.Backend, "vLLM takes native or lmcache")
	}
	if o.SizeGiB == nil {
		return nil
	}
	v := *o.SizeGiB
	if math.IsNaN(v) || v < 0 || v > maxGiBSetting {
		return settingErr("kv-offloading-size", v, "want a size in GiB, more than 0")
	}
	if r.Profile.Release.Less(offloadSince) {
		// No value in the refusal: "--flag: what: not modelled for ...", as
		// the table's refusals read.
		return settingErr("kv-offloading-size", "", "%s: not modelled for %s (its native offload pins one host tensor per KV tensor through PyTorch's caching host allocator, rounded up to the next power of two: up to 2x the size given, vllm issue #53042; membudget sizes it from vLLM %s, whose shared /dev/shm region, PR #50094, holds at most the size given); membudget refuses it rather than size a serve vLLM would contradict",
			whatOffload, r.Profile.Describes, offloadSince)
	}
	if o.Backend == "lmcache" {
		// The LMCache server process holds the blocks (lmcache.go).
		return settingErr("kv-offloading-backend", "", "lmcache, %s: not modelled for %s (%s); membudget refuses it rather than size a serve vLLM would contradict", whatTransfer, r.Profile.Describes, lmcacheOffloadWhy)
	}
	bytes := uint64(v * (1 << 30))
	if bytes == 0 {
		// `if not cpu_bytes_to_use: raise` (vllm/v1/kv_offload/cpu/spec.py:
		// 80-84), in the engine's first worker.
		return settingErr("kv-offloading-size", v, "vLLM stops at startup: cpu_bytes_to_use must be specified in kv_connector_extra_config (a size of 0 is none)")
	}
	world := budget.SatMul(r.TensorParallelSize, r.PipelineParallelSize)
	r.OffloadHostBytes = budget.CeilDiv(bytes, max(world, 1))
	return nil
}

// writeOffloadFlags writes the KV offload flags of a resolved serve to a
// launch line, as given.
func writeOffloadFlags(b *strings.Builder, o KVOffload) {
	if o.SizeGiB == nil {
		return
	}
	b.WriteString(" --kv-offloading-size ")
	b.WriteString(strconv.FormatFloat(*o.SizeGiB, 'f', -1, 64))
	if o.Backend != "" && o.Backend != "native" {
		b.WriteString(" --kv-offloading-backend ")
		b.WriteString(o.Backend)
	}
}

// offloadJSON is the serve's KV offload: the report's "serve"."kv_offload".
type offloadJSON struct {
	SizeGiB float64 `json:"kv_offloading_size_gib"`
	Backend string  `json:"kv_offloading_backend"`
	// HostBytes is the pinned host memory of one GPU's worker at most;
	// EngineBytes the /dev/shm region of one engine (one DP rank).
	HostBytes   uint64 `json:"host_bytes"`
	EngineBytes uint64 `json:"engine_bytes"`
}

// offloadJSON is the sizing's KV offload for the report, nil without one.
func (sz *Sizing) offloadJSON() *offloadJSON {
	o := sz.Serve.Offload
	if o.SizeGiB == nil {
		return nil
	}
	return &offloadJSON{SizeGiB: *o.SizeGiB, Backend: o.Backend, HostBytes: sz.Serve.OffloadHostBytes, EngineBytes: uint64(*o.SizeGiB * (1 << 30))}
}

// offloadSettings is the line a report prints of the serve's KV offload.
func (sz *Sizing) offloadSettings() []string {
	o := sz.Serve.Offload
	if o.SizeGiB == nil {
		return nil
	}
	where := "host memory, not the GPU's"
	if sz.Class.Memory.Unified {
		where = "on this unified device, the GPU's memory: counted beside the util budget"
	}
	engineBytes := uint64(*o.SizeGiB * (1 << 30))
	return []string{fmt.Sprintf("KV offload: offload buffer of at most %s pinned host memory per GPU (%s); one /dev/shm region of at most %s per engine, which vLLM refuses at startup when /dev/shm has less free (a container's --shm-size)",
		engine.GiB(sz.Serve.OffloadHostBytes), where, engine.GiB(engineBytes))}
}

// offloadSize is --kv-offloading-size as a setting's value, "" when unset.
func offloadSize(o KVOffload) string {
	if o.SizeGiB == nil {
		return ""
	}
	return strconv.FormatFloat(*o.SizeGiB, 'f', -1, 64)
}

// offloadConnector says a logged kv_transfer_config is the one
// --kv-offloading-size native sets (vllm/config/vllm.py:963-971), which
// the serve's KVOffload sizes: not a connector of its own.
func offloadConnector(o KVOffload, logged string) bool {
	return o.SizeGiB != nil && o.Backend == "native" && strings.Contains(logged, "OffloadingConnector")
}

// offloadRefusal says a setting error refuses the serve's KV offload
// whatever its layout.
func offloadRefusal(se *engine.SettingError) bool {
	return strings.HasPrefix(se.Flag, "kv-offloading-")
}

// dropUnsizedOffload keeps a log's KV offload where membudget sizes it
// under p; elsewhere it leaves it out of the serve with a warning: the
// log is explained, short of the pinned host memory.
func (ls *loggedServe) dropUnsizedOffload(p Profile) {
	o := ls.Serve.Offload
	if o.SizeGiB == nil || !p.Release.Less(offloadSince) && (o.Backend == "" || o.Backend == "native") {
		return
	}
	ls.Serve.Offload = KVOffload{}
	delete(ls.From, "kv-offloading-size")
	delete(ls.From, "kv-offloading-backend")
	ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's serve offloads KV blocks to host memory, which membudget sizes for the native backend from vLLM %s only: its predictions leave that host memory out", offloadSince))
}

// simpleOffloadEnv refuses VLLM_USE_SIMPLE_KV_OFFLOAD on (vllm/envs.py:
// 2092-2094, bool(int(value)), PR #37160 of 2026-03-31) in a line with
// --kv-offloading-size native: it picks SimpleCPUOffloadConnector instead
// of the OffloadingConnector offload.go sizes (vllm/config/vllm.py:
// 963-967). assignment is the line's NAME=value.
func simpleOffloadEnv(name, value, assignment string, o KVOffload, p Profile) error {
	if name != "VLLM_USE_SIMPLE_KV_OFFLOAD" || o.SizeGiB == nil || o.Backend != "" && o.Backend != "native" {
		return nil
	}
	if on, ok := pyIntBool(value); !ok || !on {
		return nil // 0 is the default; a non-integer stops vLLM, not a sizing
	}
	return fmt.Errorf("%s in the launch line: %s: not modelled for %s (vLLM's SimpleCPUOffloadConnector, whose pinned buffers membudget has not read; it sizes --kv-offloading-size for the OffloadingConnector); membudget refuses it rather than size a serve vLLM would contradict", assignment, whatOffload, p.Describes)
}

// transferConnectors are what a --kv-transfer-config connector holds, by
// its kv_connector (the names vllm/distributed/kv_transfer/kv_connector/
// factory.py registers at main d18bb7b), for its refusal.
var transferConnectors = map[string]string{
	"NixlConnector":             "NIXL's registration of the KV cache for transfers (no copy with kv_buffer_device cuda; with cpu a host copy of every layer's KV cache, vllm/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py:747-790) and UCX's own buffers",
	"LMCacheConnectorV1":        lmcacheWhat, // lmcache.go
	"LMCacheMPConnector":        lmcacheMPWhat,
	"SimpleCPUOffloadConnector": "the simple CPU offload's pinned host blocks",
	"MooncakeConnector":         "Mooncake's transfer engine buffers and its registration of the KV cache",
	"MooncakeStoreConnector":    "Mooncake store's host cache and transfer buffers",
	"MultiConnector":            "every connector it chains",
}

func init() {
	for _, n := range []string{"NixlPullConnector", "NixlPushConnector"} {
		transferConnectors[n] = transferConnectors["NixlConnector"]
	}
}

// transferConnector is a --kv-transfer-config's kv_connector and what it
// would add, "" when the value names none. The OffloadingConnector's
// refusal says how to give it as --kv-offloading-size, which sizes it.
func transferConnector(v string) (connector, what string) {
	var c struct {
		Connector string         `json:"kv_connector"`
		Extra     map[string]any `json:"kv_connector_extra_config"`
	}
	if json.Unmarshal([]byte(v), &c) != nil || c.Connector == "" {
		return "", ""
	}
	if c.Connector == "OffloadingConnector" {
		size := "GiB"
		if b, ok := c.Extra["cpu_bytes_to_use"].(float64); ok && b > 0 {
			size = strconv.FormatFloat(b/(1<<30), 'f', -1, 64)
		}
		return c.Connector, "the OffloadingConnector's pinned host region of cpu_bytes_to_use, which membudget sizes given as --kv-offloading-size " + size + " instead (the same connector, vllm/config/vllm.py:963-971)"
	}
	if w, ok := transferConnectors[c.Connector]; ok {
		return c.Connector, w
	}
	return c.Connector, whatTransfer
}
