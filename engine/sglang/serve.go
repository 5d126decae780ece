package sglang

import "membudget/engine"

// Serve is an SGLang server's settings under SGLang's flag names
// (python/sglang/srt/server_args.py). A zero field takes the default of
// the profile's SGLang (see [Resolve]): a library caller's zero always means
// "SGLang's default", never "zero".
type Serve struct {
	// MemFractionStatic is --mem-fraction-static: the share of the memory
	// free after distributed init that weights and the KV pool may take, in
	// (0, 1).
	MemFractionStatic float64
	// ContextLength is --context-length: the longest request in tokens.
	ContextLength uint64
	// AllowLongContext is SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN: [engine.On]
	// accepts a --context-length above the one derived from the model's
	// config; [engine.Default] takes the profile's default (see
	// [Profile].AllowLongContextByDefault).
	AllowLongContext engine.Switch
	// JITDeepGEMM is SGLANG_ENABLE_JIT_DEEPGEMM: [engine.Off] keeps
	// block-fp8 scales as loaded on Blackwell; otherwise such a serve is
	// refused (see [Resolved.checkUE8M0]).
	JITDeepGEMM engine.Switch
	// MMIPCEnv is SGLANG_USE_CUDA_IPC_TRANSPORT, SGLang's older switch of
	// the CUDA IPC multimodal feature transport ([engine.Default] where
	// unset): see [Resolved.resolveMMTransport].
	MMIPCEnv engine.Switch
	// MaxRunningRequests is --max-running-requests; it also sizes the
	// req_to_token pool when given.
	MaxRunningRequests uint64
	// MaxTotalTokens is --max-total-tokens: a cap on the KV pool's tokens.
	MaxTotalTokens uint64
	// ChunkedPrefillSize is --chunked-prefill-size in tokens; -1 (any
	// negative value) disables chunked prefill, 0 takes the default.
	ChunkedPrefillSize int64
	// MaxPrefillTokens is --max-prefill-tokens (default 16384).
	MaxPrefillTokens uint64
	// CudaGraphMaxBS is --cuda-graph-max-bs: the largest decode batch
	// captured in a CUDA graph.
	CudaGraphMaxBS uint64
	// DisableCudaGraph is --disable-cuda-graph.
	DisableCudaGraph bool
	// DisablePiecewiseCudaGraph is --disable-piecewise-cuda-graph (v0.5.10
	// on): no piecewise CUDA graphs, and no reserve for them in the
	// default fraction. --disable-cuda-graph leaves them on
	// (_handle_piecewise_cuda_graph reads only this flag).
	DisablePiecewiseCudaGraph bool
	// TrustRemoteCode is --trust-remote-code: the checkpoint's own code may
	// read its config (see [Resolved.resolveRemoteCode]).
	TrustRemoteCode bool
	// PageSize is --page-size: tokens per KV page.
	PageSize uint64
	// KVCacheDtype is --kv-cache-dtype: auto, fp8_e4m3, fp8_e5m2, and from
	// v0.5.6.post2 bf16 or bfloat16.
	KVCacheDtype string
	// AttentionBackend is --attention-backend; "" lets SGLang choose. Only
	// the backends whose memory rules are modelled are accepted (see
	// [Resolve]).
	AttentionBackend string
	// TPSize, PPSize and DPSize are --tp-size, --pp-size and --dp-size.
	TPSize, PPSize, DPSize uint64
	// EnableDPAttention is --enable-dp-attention; it is refused: its
	// attention weights are sharded over tp/dp ranks, which the weights
	// model does not express.
	EnableDPAttention bool
	// Nodes is --nnodes and --enable-flashinfer-allreduce-fusion (see
	// [Nodes]).
	Nodes Nodes
	// Dtype is --dtype: auto, half, float16, bfloat16, float, float32.
	Dtype string
	// Quantization is --quantization: fp8, awq, gptq or their marlin names.
	Quantization string
	// DisableRadixCache and DisableOverlapSchedule are --disable-radix-cache
	// and --disable-overlap-schedule: memory-neutral but for a Mamba
	// hybrid, whose pool's share of the requests they set (see
	// [Resolved.resolveMamba]).
	DisableRadixCache, DisableOverlapSchedule bool
	// MambaFullMemoryRatio, MaxMambaCacheSize, MambaSSMDtype and
	// MambaRadixCacheStrategy are --mamba-full-memory-ratio (0: 0.9),
	// --max-mamba-cache-size (0: from the ratio), --mamba-ssm-dtype ("":
	// the config's) and --mamba-radix-cache-strategy ("": auto), read at
	// v0.5.14 to v0.5.18 (see [gdnReleases]).
	MambaFullMemoryRatio    float64
	MaxMambaCacheSize       uint64
	MambaSSMDtype           string
	MambaRadixCacheStrategy string
	// EnforceDisableARFusion is --enforce-disable-flashinfer-allreduce-fusion,
	// read at v0.5.14 to v0.5.18 (see [fusionOffReleases]).
	EnforceDisableARFusion bool
	// MMFeatureTransport is --mm-feature-transport (v0.5.16 to v0.5.18): ""
	// for SGLang's default, or cpu, the host transport membudget sizes;
	// cuda_ipc and cuda_vmm, whose GPU pool is not sized, are refused (see
	// [Resolved.resolveMMTransport]).
	MMFeatureTransport string
	// Spec is speculative decoding: --speculative-algorithm and its draft
	// (see [Spec]).
	Spec Spec
}

// settingErr returns the *engine.SettingError of flag at value.
var settingErr = engine.Refuse
