package vllm

import (
	"membudget/budget"
	"membudget/engine"
)

// Serve is a vLLM serve's settings under vLLM's flag names. A zero field
// takes the default of the profile's vLLM (see [Resolve]); settings vLLM
// refuses at zero are refused at the flag (see cmd/membudget), so a library
// caller's zero always means "vLLM's default".
type Serve struct {
	GPUMemoryUtilization float64 // --gpu-memory-utilization, in (0, 1]
	// KVCacheMemoryBytes is --kv-cache-memory-bytes: the KV cache is exactly
	// that many bytes per GPU and the util does not size it.
	KVCacheMemoryBytes uint64
	MaxModelLen        uint64 // --max-model-len
	// AutoMaxModelLen is --max-model-len auto: the largest length whose one
	// request fits the KV cache (vLLM's _auto_fit_max_model_len).
	AutoMaxModelLen bool
	// AllowLongMaxModelLen is VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: a length above
	// the model's derived limit is accepted.
	AllowLongMaxModelLen bool
	MaxNumSeqs           uint64 // --max-num-seqs
	MaxNumBatchedTokens  uint64 // --max-num-batched-tokens
	BlockSize            uint64 // --block-size
	KVCacheDtype         string // --kv-cache-dtype
	// KVCacheDtypeSkipLayers is --kv-cache-dtype-skip-layers as given, its
	// entries separated by spaces: layer indices or "sliding_window",
	// whose KV cache keeps the model's dtype (kvskip.go).
	KVCacheDtypeSkipLayers string
	TensorParallelSize     uint64 // --tensor-parallel-size, -tp
	PipelineParallelSize   uint64 // --pipeline-parallel-size, -pp
	DataParallelSize       uint64 // --data-parallel-size, -dp
	EnableExpertParallel   bool   // --enable-expert-parallel
	Dtype                  string // --dtype
	Quantization           string // --quantization
	EnforceEager           bool   // --enforce-eager
	// ColdCompileCache is membudget's --compile-cache cold: size a first
	// start with an empty torch.compile cache, whose profile charges the
	// compile's scratch as activation (coldcompile.go); false sizes a
	// start whose cache an earlier start filled.
	ColdCompileCache bool
	// CompileCacheOff is VLLM_DISABLE_COMPILE_CACHE set nonzero where the
	// release reads it (coldCacheEnv): every start compiles cold, so it
	// comes with ColdCompileCache, and the command printed sets it again.
	CompileCacheOff bool
	// DisableCustomAllReduce is --disable-custom-all-reduce: tensor
	// parallelism reduces through NCCL alone, without the custom
	// all-reduce's IPC buffers.
	DisableCustomAllReduce bool
	// TrustRemoteCode is --trust-remote-code: the checkpoint's own code
	// may read its config (see [Resolved.resolveRemoteCode]).
	TrustRemoteCode bool
	// Interconnect is membudget's --interconnect: how the serve's GPUs
	// reach each other when it differs from the class's (a pair of RTX
	// 3090s joined by an NVLink bridge, GeForce cards on a driver patched
	// for peer access); "" takes the class's.
	Interconnect budget.Interconnect
	// AsyncScheduling is --async-scheduling ([engine.On]) or --no-async-scheduling
	// ([engine.Off]); [engine.Default] leaves it to the profile.
	AsyncScheduling engine.Switch
	// CPUOffloadGiB is --cpu-offload-gb: GiB of each GPU's weights kept in
	// host memory.
	CPUOffloadGiB float64
	// SwapSpaceGiB is --swap-space: GiB of CPU KV blocks per GPU, in the
	// versions that have the flag; nil takes the version's default (4 GiB
	// on the V0 engine, which allocates them; none on V1).
	SwapSpaceGiB *float64
	// EnablePrefixCaching is --enable-prefix-caching (engine.On) or
	// --no-enable-prefix-caching ([engine.Off]). It sets the Mamba cache mode of a
	// model with state layers: two state blocks per sequence with it, one
	// without.
	EnablePrefixCaching engine.Switch
	// MambaCacheDtype is --mamba-cache-dtype (auto, float32, float16,
	// bfloat16): the conv state's dtype, and the SSM state's when
	// MambaSSMCacheDtype is auto.
	MambaCacheDtype string
	// MambaSSMCacheDtype is --mamba-ssm-cache-dtype: the SSM (recurrent)
	// state's dtype.
	MambaSSMCacheDtype string
	// Runner is --runner (auto, generate, pooling, draft; "" for auto) and
	// Convert --convert (auto, none, ...; "" for auto): which of vLLM's
	// model runners serves the model (vllm/config/model.py).
	Runner, Convert string
	// PoolerConfig is --pooler-config, a JSON object: its
	// seq_pooling_type (or pooling_type) decides whether the pooling
	// runner keeps chunked prefill for a converted decoder.
	PoolerConfig string
	// ChunkedPrefill is --enable-chunked-prefill (On) or
	// --no-enable-chunked-prefill (Off); Default leaves it to vLLM, which
	// chunks a generating model's prefill (see chunked.go for what each
	// release does with Off, and pooling.go for the pooling runner's
	// default).
	ChunkedPrefill engine.Switch
	// LongPrefillTokenThreshold is --long-prefill-token-threshold (0, vLLM's
	// default, leaves long prefills uncapped) and MaxNumPartialPrefills
	// --max-num-partial-prefills (0: not given, vLLM's 1; the flag is gone
	// from 0.28.0). Neither changes memory; vLLM refuses some of their
	// values (chunked.go checkPrefillLimits).
	LongPrefillTokenThreshold, MaxNumPartialPrefills uint64
	// Revision is --revision: the branch, tag or commit of the model's Hub
	// repository that vLLM loads ("" for vLLM's default, main). It names
	// the checkpoint; it does not change memory.
	Revision string
	// LoRA is --enable-lora and the flags that size its adapter slots
	// (see lora.go); its zero value is a serve without LoRA.
	LoRA LoRA
	// Compilation is -O, --compilation-config and the capture-size flags
	// (see compilation.go); its zero value is vLLM's default.
	Compilation Compilation
	// NumGPUBlocksOverride is --num-gpu-blocks-override: the KV cache holds
	// exactly that many blocks, whatever the budget leaves (0: not given).
	NumGPUBlocksOverride uint64
	// Offload is --kv-offloading-size and --kv-offloading-backend (see
	// offload.go); its zero value is a serve without KV offloading.
	Offload KVOffload
	// EPLB is --enable-eplb and --eplb-config (see eplb.go); its zero
	// value is a serve without expert-parallel load balancing.
	EPLB EPLB
	// All2AllBackend is --all2all-backend as given (see all2all.go); ""
	// is vLLM's default.
	All2AllBackend string
	// KVTransferConfig is --kv-transfer-config, the JSON object as given
	// (see kvtransfer.go); "" is a serve without a KV connector.
	KVTransferConfig string
	// MM is the multimodal flags (see multimodal.go); its zero value is
	// vLLM's defaults.
	MM MM
	// SpeculativeConfig is --speculative-config (-sc), the JSON object as
	// given (see specdecode.go); "" is a serve without speculative
	// decoding.
	SpeculativeConfig string
	// Reasoning is --reasoning-parser or --reasoning-config as given ("" for
	// neither), LogprobsMode --logprobs-mode and ExecutorBackend
	// --distributed-executor-backend: memory-neutral flags, listed as
	// ignored, that some releases' V2 model-runner oracle reads (see
	// [Resolved.resolveV2Features]).
	Reasoning, LogprobsMode, ExecutorBackend string
	// ModelRunnerV2 is VLLM_USE_V2_MODEL_RUNNER: [engine.On] for a nonzero
	// integer, [engine.Off] for 0; [engine.Default] (unset) leaves the
	// runner to the release's oracle (see [Resolved.resolveRunnerEnv]).
	ModelRunnerV2 engine.Switch
}

// settingErr returns the *engine.SettingError of flag at value.
var settingErr = engine.Refuse

// envErr returns the *engine.SettingError of environment variable name at
// value: named as a launch line sets it, NAME=value.
var envErr = engine.RefuseEnv
