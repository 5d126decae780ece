package sglang

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"membudget/engine"
)

// MSFRule is how a version derives --mem-fraction-static's default.
type MSFRule int

// The default --mem-fraction-static rules SGLang has had.
const (
	// MSFTiers reserves a fixed amount per device tier plus half a GiB per
	// rank (v0.4.9.post2, python/sglang/srt/server_args.py:279-331).
	MSFTiers MSFRule = iota
	// MSFReserve reserves 512 MiB, 1.5 MiB per chunked-prefill token, 2
	// MiB per CUDA-graph batch and 128 MiB per rank, at least 10 GiB above
	// 60 GiB (sgl-project/sglang PRs #10372 and #10975; v0.5.6.post2,
	// python/sglang/srt/server_args.py:848-890).
	MSFReserve
)

// PPSplit is how a version splits decoder layers among pipeline stages
// (python/sglang/srt/distributed/utils.py get_pp_indices).
type PPSplit int

// The layer splits SGLang has had.
const (
	// PPLastTakesRest: L // pp layers each, the last stage the remainder
	// too (v0.4.9.post2, utils.py:85-91).
	PPLastTakesRest PPSplit = iota
	// PPLastOneExtra: L // pp layers each, the last L % pp stages one more
	// (v0.5.6.post2, utils.py:85-97).
	PPLastOneExtra
)

// Profile is the rules one SGLang release sizes memory by. Every rule that
// differs between the releases membudget has read is a field.
type Profile struct {
	// Name is the release as --sglang-version names it: v0.5.6.post2.
	Name string
	// Commit is the release's version-bump commit on sgl-project/sglang's
	// main branch, whose files the rules cite.
	Commit string
	// Describes names the SGLang the profile models, in one phrase.
	Describes string

	// MSF is the rule of --mem-fraction-static's default.
	MSF MSFRule
	// VLMFlat says the default msf of a multimodal model is multiplied by
	// 0.90 (v0.4.9.post2, server_args.py:328-331); false scales it by the
	// vision config's num_hidden_layers x hidden_size^2 (v0.5.6.post2,
	// server_args.py:892-896, 4402-4438; see vlmFactor).
	VLMFlat bool
	// GraphTiers says the default --cuda-graph-max-bs follows the device
	// tier and TP (v0.5.6.post2, server_args.py:752-835); before, only
	// devices under 35 GiB set it and the capture list decides the largest
	// batch (v0.4.9.post2, server_args.py:347-353, cuda_graph_runner.py:
	// 138-180).
	GraphTiers bool
	// AllowLongContextByDefault is SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN's
	// default: True in v0.4.9.post2 (configs/model_config.py:158-160),
	// False in v0.5.6.post2 (environ.py:294).
	AllowLongContextByDefault bool
	// CheckpointFP8KV says --kv-cache-dtype auto takes fp8_e4m3 when the
	// checkpoint's quant_config has kv_cache_quant_algo FP8 (ModelOpt; PR
	// #10336; v0.5.6.post2 model_runner.py:1627-1639); v0.4.9.post2 always
	// takes the model dtype (model_runner.py:1005-1006).
	CheckpointFP8KV bool
	// BF16KVFlag says --kv-cache-dtype takes bf16 and bfloat16
	// (v0.5.6.post2, server_args.py:2318-2323; v0.4.9.post2 takes auto,
	// fp8_e5m2 and fp8_e4m3 only, server_args.py:686-691).
	BF16KVFlag bool
	// RopeReserve says the rotary tables grow to the context length plus a
	// margin after loading (PR #10788; v0.5.6.post2 model_runner.py:868-874,
	// utils/common.py:3716-3753).
	RopeReserve bool
	// HybridSWA says models reporting a sliding window (Gemma 2 and 3,
	// gpt-oss) get a full-layer and a sliding-layer KV pool
	// (model_runner.py:436-444, 1522-1602 at v0.5.6.post2). No release
	// read does so for a model membudget sizes: v0.5.6.post2 sets
	// disable_hybrid_swa_memory for gpt-oss (server_args.py:1176) and
	// Gemma 2, 3 and 3n (server_args.py:1207-1219) before that check;
	// v0.5.7 splits only what model_config.is_hybrid_swa names, MiMo-V2
	// and Llama 4 (sgl-project/sglang PR #15877; configs/model_config.py:
	// 304-319, 1147-1167); v0.4.9.post2 keeps every layer in one pool.
	// v0.5.8 brings gpt-oss's split back (PR #17261), which membudget
	// refuses (see GptOssSplit).
	HybridSWA bool
	// PPMin says every pipeline stage allocates the smallest stage's token
	// count (v0.5.6.post2, model_runner.py:1730-1738); v0.4.9.post2 keeps
	// each stage's own.
	PPMin bool
	// PPSplit is how the layers are split among stages.
	PPSplit PPSplit
	// TRTLLMOnBlackwell says the default attention backend on Blackwell is
	// TensorRT-LLM's (trtllm_mha, page size 64), and on every Blackwell,
	// SM12x included, where SGLang then refuses it (v0.5.6.post2,
	// server_args.py:1382-1383, 1465-1479; fixed after the release by
	// sgl-project/sglang PR #14842).
	TRTLLMOnBlackwell bool
	// TRTLLMSM100Only says the default attention backend is trtllm_mha on
	// SM10x only; SM12x falls back to flashinfer (PR #14842; v0.5.7,
	// server_args.py:1534-1542).
	TRTLLMSM100Only bool
	// TRTLLMMLABF16 says the TensorRT-LLM MLA backend also takes
	// --kv-cache-dtype bf16 (PR #15986; v0.5.7, server_args.py:1619).
	TRTLLMMLABF16 bool
	// GptOssSplit says gpt-oss gets the sliding-window split pool (paged
	// from this release) unless its attention is trtllm_mha (PRs #17261,
	// #17429; v0.5.8 configs/model_config.py:1220-1229, server_args.py:
	// 1278-1287); membudget does not model that pool and refuses it.
	GptOssSplit bool
	// AiterMSF says the aiter attention backend (AMD's default) multiplies
	// --mem-fraction-static by 0.85 above 8192 tokens of context, given or
	// not (v0.5.6.post2, server_args.py:1499-1501).
	AiterMSF bool
	// MLANoPP says MLA models refuse pipeline parallelism
	// (v0.4.9.post2, model_runner.py:943-945).
	MLANoPP bool
	// PPAbbreviation says argparse takes --pp for --pp-size: the only
	// flag it prefixes in v0.4.9.post2; v0.5.6.post2 adds
	// --pp-max-micro-batch-size, and argparse finds --pp ambiguous.
	PPAbbreviation bool
	// Native is the architectures the release implements natively (see
	// native.go); another falls back to its Transformers backend.
	Native []string
	// BlackwellSM11 says is_blackwell_supported() counts SM11x (Jetson
	// Thor) with SM10x and SM12x (PR #18787; v0.5.9 utils/common.py:
	// 246-252), so the TensorRT-LLM MLA backend is taken there
	// (server_args.py:1874-1881 at v0.5.9).
	BlackwellSM11 bool
	// UnreadModels are architectures the release implements natively whose
	// model files membudget has not read (those new in it): a model of one
	// is refused by name, not sized as another release's file would lay it
	// out, nor as a Transformers fallback the release does not take.
	UnreadModels []string
	// ChangedModels are the architectures whose model file the release
	// changed in a way that alters what a rank holds and membudget has not
	// read (v0.5.10: Gemma 3's rotary tables and GLM-4.5 MoE's float32
	// gate copies; v0.5.13: GLM-4.7-Flash's; see models0510.go): a serve
	// of one is refused by name.
	ChangedModels []string
	// UnreadQuant are the checkpoint quantization methods ([model.Quant]'s
	// Method) whose weight processing the release changed in ways
	// membudget has not read: refused by name (see [unreadQuantWhy]).
	UnreadQuant []string
	// FP8IgnoreUnstripped says fp8's ignored_layers keep their "model."
	// prefix, stripped before only for Mistral 3 (PR #18926; v0.5.9
	// layers/quantization/fp8.py:170-178), and match SGLang's layer
	// prefixes as substrings (quantization/utils.py:46-91): which layers
	// such a checkpoint leaves unquantized is not read, and one whose list
	// names a "model." layer is refused.
	FP8IgnoreUnstripped bool
	// PiecewiseByDefault says piecewise CUDA graphs (prefill graphs
	// captured per token count) are on unless --disable-piecewise-cuda-graph
	// or one of the cases of _handle_piecewise_cuda_graph turns them off
	// (PR #16331; v0.5.10 server_args.py:1078-1139): the default
	// --mem-fraction-static reserves 8 MiB per captured size, 1.5 GiB for
	// an MLA model, before its 10 GiB floor (:1304-1311), and the graphs
	// are captured after the KV pool (model_runner.py:673). Before, they
	// were off unless --enable-piecewise-cuda-graph, which membudget
	// refuses (see piecewise.go).
	PiecewiseByDefault bool
	// ReqPoolFromCapacity says the req_to_token pool's rows and
	// max_running_requests come from the pool's tokens after the
	// --max-total-tokens cap, the page alignment and the stages' minimum:
	// max(min(int(T / context_len x 512), 4096), 2048), less than T // 2
	// when --max-running-requests is not given, and at most that estimate
	// when it is (PR #20142; v0.5.10 model_runner_kv_cache_mixin.py:
	// 808-857). Before, the rows are --max-running-requests as given, or
	// the estimate from the profiled tokens before the cap
	// (model_runner_kv_cache_mixin.py init_memory_pool at v0.5.9), and
	// max_running_requests the smaller of them and T // 2
	// (model_runner.py:593-600 at v0.5.9).
	ReqPoolFromCapacity bool
	// CaptureMaxBS says the decode capture list gains cuda_graph_max_bs
	// itself when the list's steps miss it (PR #21005; v0.5.10
	// server_args.py:1372-1373): --cuda-graph-max-bs 100 captures 100,
	// not 96.
	CaptureMaxBS bool
	// SpecReserve4GiB says the default fraction reserves 4 GiB, not 2, for
	// an EAGLE, EAGLE3 or NEXTN draft (v0.5.10 server_args.py:1316-1322);
	// the speculative serves of v0.5.10 and v0.5.10.post1 take it (see
	// spec.go).
	SpecReserve4GiB bool
	// GptOssSplitAlways says gpt-oss gets the sliding-window split pool
	// with trtllm_mha too (PR #19079 removed the gate; v0.5.10
	// server_args.py _handle_model_specific_adjustments): membudget
	// refuses that pool, so every gpt-oss serve is refused.
	GptOssSplitAlways bool
	// FP8IgnoreMoE says fp8's ignored_layers are kept both with and without
	// "model." and may leave a fused MoE layer unquantized (PR #18742;
	// v0.5.10 layers/quantization/fp8.py:195-201, 230-236): a checkpoint
	// whose list reaches a MoE layer's experts is refused (see
	// fp8IgnoreSkipsMoE); for linear layers the two forms match what the
	// stripped one alone did, and [Profile.FP8IgnoreUnstripped]'s refusal
	// stands as v0.5.9's.
	FP8IgnoreMoE bool
	// PiecewiseWithSpec says speculative decoding no longer turns the
	// piecewise CUDA graphs off (PR #22128; v0.5.11 server_args.py:
	// 1194-1262 has no such case, v0.5.10's :1078-1139 its case 2): an
	// EAGLE serve's default fraction would take both their reserve and
	// the draft's 4 GiB. A serve with a draft and the piecewise graphs on
	// is refused (see [Resolved.resolvePiecewise]), so this holds for the
	// piecewise decision alone.
	PiecewiseWithSpec bool
	// ReqPadRow says the req_to_token table has one row more than
	// max_num_reqs, slot 0 kept as padding for CUDA-graph batches (PR
	// #24243; v0.5.11 mem_cache/memory_pool.py:144-152: (size + 1,
	// max_context_len) int32, free slots 1 to size): context_len + 4 int32
	// more beside the pool.
	ReqPadRow bool
	// SpecV2 says EAGLE, EAGLE3 and STANDALONE run the overlap scheduler's
	// spec v2 worker by default (PR #21062; v0.5.11 environ.py:459,
	// SGLANG_ENABLE_SPEC_V2 = EnvBool(True)), which holds the draft inputs
	// in the scheduler's future map (managers/overlap_utils.py:45-119):
	// both it, at top-k 1, and the v1 worker a --speculative-eagle-topk
	// above 1 given selects are sized through v0.5.12.post1, and from
	// v0.5.13, which removed the v1 worker, the v2 worker at top-k 1 alone
	// (see spec.go).
	SpecV2 bool
	// CustomARv2 says the JIT custom all-reduce v2 is the default on CUDA
	// (PR #24363; v0.5.12 environ.py:458, distributed/device_communicators/
	// custom_all_reduce.py:341-356), which builds no buffer unless NVLink
	// joins every GPU pair (custom_all_reduce_v2.py:31-75), where v0.5.11's
	// CustomAllreduce built its buffers at TP 2 over PCIe with peer access
	// too (custom_all_reduce.py:83-96 with custom_all_reduce_utils.py:
	// 412-480): see [distInitFor].
	CustomARv2 bool
	// PiecewiseCapByContext says the piecewise CUDA graphs' largest size is
	// at most a --context-length given, before the size list and the
	// default fraction's 8 MiB per size (PR #22516, for issue #21112;
	// v0.5.13 server_args.py:1579-1585): --context-length 2048 on an H100
	// captures 42 sizes, not 58, and reserves 128 MiB less.
	PiecewiseCapByContext bool
	// ReqPoolGivenUncapped says a --max-running-requests given sizes the
	// req_to_token rows and max_running_requests as min(given // dp, T //
	// 2), no longer capped by the estimate from the pool's tokens (v0.5.14
	// model_runner_kv_cache_mixin.py:981-1018; v0.5.13.post1 :876-900
	// takes min(given // dp, estimate)): --max-running-requests 3000 for
	// Llama 3.1 8B on an H100 keeps 3000 rows, not 2048.
	ReqPoolGivenUncapped bool
	// GraphPhases says CUDA graphs are configured per phase, decode and
	// prefill (--cuda-graph-config, v0.5.14 server_args.py:1918-1979), and
	// --disable-cuda-graph turns both phases off (_parse_cuda_graph_config,
	// :2942-2944) before the default --mem-fraction-static is derived
	// (_handle_cuda_graph_config at :2508, _handle_gpu_memory_settings at
	// :2524): no piecewise prefill graphs, and no 8 MiB a size for them in
	// the reserve (:3300-3306). Before, --disable-cuda-graph left the
	// piecewise graphs of v0.5.10 to v0.5.13 on (their cases, v0.5.13
	// server_args.py:1342-1411, do not read it).
	GraphPhases bool
	// DraftInFraction says a speculative draft's weights are loaded before
	// the target's KV pool is sized and counted in --mem-fraction-static,
	// whose default no longer reserves 4 GiB (EAGLE) or 6 GiB (STANDALONE)
	// for them (PR #28855; v0.5.14 managers/scheduler.py:859-872,
	// server_args.py:3276-3321): [DefaultMemFractionStatic] adds no draft
	// reserve. The draft's weights, its embedding until shared and its
	// pool's tokens then count in the budget (see spec.go,
	// specDraft.InFraction).
	DraftInFraction bool
	// ARFusionMultiNodeSM100 says FlashInfer's all-reduce fusion turns on
	// by itself across nodes too on SM10x (v0.5.14 server_args.py:4294-4328,
	// (self.nnodes == 1 or is_sm100_supported())), where every earlier rule
	// asks one node.
	ARFusionMultiNodeSM100 bool
	// PiecewiseWithTRTLLMMoE says the flashinfer_trtllm MoE runner no
	// longer turns the piecewise CUDA graphs off after the fraction (PR
	// #23351, "Support piecewise CUDA graph with NSA", in v0.5.13: it drops
	// _handle_moe_kernel_config's case, v0.5.12.post1 server_args.py:
	// 3172-3186, and DeepSeek's sparse-attention models from the graphs'
	// blacklist, which membudget refuses anyway): see
	// [trtllmMoEDisablesPiecewise].
	PiecewiseWithTRTLLMMoE bool
	// BreakablePrefill says the prefill CUDA graphs' default backend on
	// CUDA is the breakable one (PR #29458; v0.5.15
	// model_executor/cuda_graph_config.py:95-101, default_prefill_backend),
	// turned off only by its seven cases (_disable_breakable_cudagraph_if_
	// incompatible, server_args.py:3341-3384: MLA attention, DeepSeek-V4,
	// attention context parallelism, LoRA, a MoE all-to-all backend, DP
	// attention, a multimodal model), by --disable-piecewise-cuda-graph
	// (the prefill backend disabled, :6275-6281) or --disable-cuda-graph
	// (:3214-3216), all before the default fraction (:2693 before :2709);
	// elsewhere (ROCm) torch.compile's piecewise backend stays the default
	// and its non-CUDA case turns it off (:3271-3339). Its capture, after
	// the KV pool into the graph pool shared with the decode graphs
	// (runner_utils/pool.py:14-16, 35-41, PR #28973), is not sized: a serve
	// that captures them is refused by name (see [breakablePrefillRefusal]).
	BreakablePrefill bool
	// ReserveDecodeGraphsOn says the default fraction's 2 MiB per decode
	// graph batch is reserved only while the decode graphs are on (PR
	// #29615; v0.5.15 server_args.py:3639-3643): --disable-cuda-graph given
	// turns them off before the reserve (:3214-3216) and drops the term,
	// which v0.5.14 keeps (server_args.py:3285 there).
	ReserveDecodeGraphsOn bool
	// LogitsAllGather says the logits processor gathers the vocabulary
	// under TP through a multimem all-gather (PR #29223; v0.5.15
	// layers/logits_processor.py:365-371), whose first eager call after the
	// KV pool allocates a symmetric-memory buffer of max(--max-running-requests
	// given x max(draft tokens, top-k, 1), 128) rows of the padded
	// vocabulary in bf16 (distributed/device_communicators/
	// triton_symm_mem_ag.py:308-334, 421-440, 481-541): see
	// [logitsAllGatherBytes].
	LogitsAllGather bool
	// EagerTokensFromPool says the eager runner's input buffers, built
	// after the KV pool, are sized to max(the pool's tokens, the chunked
	// prefill size) rather than the chunked prefill size alone (PR #28894;
	// v0.5.15 model_executor/runner/eager_runner.py:111-112): input_ids,
	// positions and out_cache_loc int64 and mrope_positions 3 x int64, 48
	// bytes a token (cuda_graph_buffer_registry.py:507-590, 893-937): see
	// [eagerInputBytes].
	EagerTokensFromPool bool
	// MultimodalPrefillKept says a multimodal model on one of the release's
	// prefill allowlists keeps its prefill CUDA graphs (PR #30620, PR
	// #30889; v0.5.16 configs/model_config.py:1776-1788): Cohere2Vision,
	// Kimi-K2.5 and MiniMax-M3 are moved to torch.compile's piecewise
	// backend (server_args.py:3659-3670), off there only under its own
	// cases (:3688-3760; pipeline parallelism the one a sized serve can
	// meet), and Qwen3.5 keeps the breakable one (:3800-3805), where
	// v0.5.15's breakable case turned every multimodal model's off. Their
	// capture is not sized: see [mmPrefillKept].
	MultimodalPrefillKept bool
	// CustomARv2Symm says the JIT custom all-reduce v2 takes its workspace
	// as one PyTorch symmetric-memory allocation sized by per-arch tables
	// (PR #31049; v0.5.16 distributed/device_communicators/
	// custom_all_reduce_v2.py:118-136, 161-205, configs/
	// custom_all_reduce_v2.py): 2 x TP push buffers and a 16 MiB pull
	// buffer, each capped at 16 MiB (environ.py:750), where v0.5.15's push
	// buffers were 2 MiB at TP 2 on Hopper: see [customARv2SymmBytes].
	CustomARv2Symm bool
	// GDNTrackIndicesBuf says the linear-attention backend's
	// init_cuda_graph_state also allocates an int64 mamba_track_indices_buf
	// of the largest decode graph's batch size (v0.5.15
	// layers/attention/hybrid_linear_attn_backend.py:360-362; v0.5.16
	// :374-376), beside v0.5.14's per-size tables: see [gdnGraphMetadata].
	GDNTrackIndicesBuf bool
	// BreakableDSAKept says the breakable prefill runner's MLA case spares
	// DeepSeek sparse attention (PR #31987; v0.5.17 server_args.py:
	// 4465-4472, "MLA attention (non-DSA)", with is_deepseek_dsa of
	// configs/model_config.py:106-120, an index_topk in the config), so such
	// a model keeps its breakable prefill CUDA graphs, where v0.5.16 turned
	// every MLA model's off: refused by name (see [dsaPrefillKept]). Such a
	// model is refused first for its indexer ([Resolved.checkModel]); the
	// rule stands behind that refusal.
	BreakableDSAKept bool
	// TRTLLMMHAPage128 says a --page-size 128 given with the TensorRT-LLM
	// MHA backend is kept (PR #30971; v0.5.17 arg_groups/overrides.py:
	// 2081-2094), on trtllm-gen's dynamic tokens-per-page kernels, which
	// need GQA and equal QK and V head dims, checked when the backend
	// starts, where v0.5.16 set 64: refused by name, that check not read.
	TRTLLMMHAPage128 bool
	// CustomARv2Multinode says a GB200 or GB300 (is_mnnvl_fabric_device,
	// v0.5.17 utils/common.py:847-855) keeps the custom all-reduce v2 on a
	// server over several nodes up to TP 8 (PR #32541;
	// _handle_custom_all_reduce_v2_multinode, server_args.py:7675-7708, run
	// at :7721; custom_all_reduce_v2.py's multi-node group), its workspace
	// across the NVLink fabric, where v0.5.16 turned v2 off for every
	// multi-node server: refused by name (see
	// [Resolved.checkCustomARv2Multinode]).
	CustomARv2Multinode bool
	// BreakableMLAKept says the breakable prefill runner's MLA case is
	// gone (v0.5.18 _disable_breakable_cudagraph_if_incompatible,
	// server_args.py:4666-4717: DeepSeek-V4, attention and decode context
	// parallelism, two-batch overlap, an all-to-all outside four, a
	// multimodal model off the allowlist), so every MLA model keeps its
	// breakable prefill CUDA graphs and the default fraction their 1.5 GiB
	// (reserve_for_graph_mb, :5099-5108), where v0.5.15 to v0.5.17 turned
	// them off: refused by name (see [mlaPrefillKept]).
	BreakableMLAKept bool
	// MMRuntimeReserve says a multimodal model's KV budget is less
	// SGLANG_VLM_CACHE_SIZE_MB, 100 MiB (environ.py:1146), before the pool
	// is sized (v0.5.18 mem_cache/kv_cache_configurator.py:1785-1789 with
	// mm_runtime_reservation_gb, :130-147), for the multimodal embedding
	// cache allocated after the pool; + SGLANG_MM_FEATURE_CACHE_MB under a
	// CUDA feature transport, which --mm-feature-transport (refused) or,
	// on several GB200/GB300 nodes, the default selects (see
	// [Resolved.checkMMFeatureTransport]). is_multimodal is
	// configs/model_config.py:445-459 (see [mmReserveBytes]).
	MMRuntimeReserve bool
	// MMIPCByDefault says the unset --mm-feature-transport resolves to
	// cuda_ipc on one node of NVIDIA GPUs outside disaggregation (v0.5.17
	// _handle_multimodal_feature_transport, server_args.py:7604-7616),
	// whose pool of SGLANG_MM_FEATURE_CACHE_MB the tokenizer manager
	// allocates on the base GPU for a multimodal model: refused by name
	// (see [Resolved.resolveMMTransport]). v0.5.16 and v0.5.18 resolve it
	// to cpu there (server_args.py:6602-6603 at v0.5.16, :7911-7912 at v0.5.18).
	MMIPCByDefault bool
	// EnvBoolWords says an environment boolean also reads yes, y, no and
	// n, and warns and keeps its default for anything else (v0.5.6.post2's
	// EnvBool, environ.py:98-105, 23-38); v0.4.9.post2's get_bool_env_var
	// is true for true and 1 only (utils.py:172-185).
	EnvBoolWords bool
}

// DefaultName is the name of the default profile.
const DefaultName = "v0.5.6.post2"

var profiles = []Profile{profile0518, profile0517, profile0516, profile0515post1, profile0515, profile0514, profile0513post1, profile0513, profile0512post1, profile0512, profile0511, profile0510post1, profile0510, profile059post1, profile059, profile058post1, profile058, profile057, profile056post3, profile056post2, profile049post2}

// profile056post2 is the default profile; the later ones start from it.
var profile056post2 = Profile{
	Name:      "v0.5.6.post2",
	Commit:    "5c8bd8b51b53b9b39eb1edec582ee43b21002106",
	Describes: "SGLang v0.5.6.post2 (commit 5c8bd8b, 2025-12-11)",
	MSF:       MSFReserve, GraphTiers: true,
	AllowLongContextByDefault: false, BF16KVFlag: true, RopeReserve: true, CheckpointFP8KV: true,
	PPMin: true, PPSplit: PPLastOneExtra, TRTLLMOnBlackwell: true, AiterMSF: true, EnvBoolWords: true, Native: native056,
}

// profile049post2 is v0.4.9.post2, the observed row's release.
var profile049post2 = Profile{
	Name:      "v0.4.9.post2",
	Commit:    "eb118d88c47d95f0006506ea7abeb0bd51a780b5",
	Describes: "SGLang v0.4.9.post2 (commit eb118d8, 2025-07-11)",
	MSF:       MSFTiers, VLMFlat: true,
	AllowLongContextByDefault: true, PPSplit: PPLastTakesRest, MLANoPP: true, PPAbbreviation: true, Native: native049,
}

// ProfileFor returns the profile of SGLang release spec: "v0.5.6.post2"
// (also "" or "default"), "v0.5.18" (also "latest"), "v0.5.17", "v0.5.16",
// "v0.5.15.post1", "v0.5.15", "v0.5.14", "v0.5.13.post1", "v0.5.13",
// "v0.5.12.post1", "v0.5.12", "v0.5.11", "v0.5.10.post1", "v0.5.10",
// "v0.5.9.post1", "v0.5.9", "v0.5.8.post1", "v0.5.8", "v0.5.7",
// "v0.5.6.post3" or "v0.4.9.post2", with or without the leading v. Any
// other release is a *[engine.SettingError]: the rules of releases
// membudget has not read are not guessed, one newer than the newest
// modelled (v0.5.18.post1, v0.5.19 to v0.5.23, 2026-10, and on), a post
// release of v0.5.14, of v0.5.15 after .post1, of v0.5.16, of v0.5.17, or
// the fork's v0.5.13.post2, is refused
// naming what of its rules is not modelled and the newest release modelled
// (see [unreadReleases]), and a release candidate of a release read
// (v0.5.10rc0) is refused as no release's rules (see [releaseCandidate]).
func ProfileFor(spec string) (Profile, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	switch s {
	case "", "default":
		s = DefaultName
	case "latest":
		s = profiles[0].Name
	}
	if !strings.HasPrefix(s, "v") {
		s = "v" + s
	}
	for _, p := range profiles {
		if p.Name == s {
			return p, nil
		}
	}
	if r, ok := parseRelease(s); ok && (newestRead.less(r) || unknownPost(r) != "") {
		return Profile{}, &engine.SettingError{Flag: "sglang-version", Value: spec, Reason: unreadRelease(r)}
	} else if ok && strings.Contains(s, "rc") {
		return Profile{}, &engine.SettingError{Flag: "sglang-version", Value: spec, Reason: releaseCandidate}
	}
	return Profile{}, &engine.SettingError{Flag: "sglang-version", Value: spec,
		Reason: "want " + releaseList(" (the default)") + ", the releases whose memory rules membudget has read; " + refusedByName}
}

// refusedByName says which later releases --sglang-version names and
// refuses (see [unreadReleases]).
const refusedByName = "v0.5.13.post2, a post release of v0.5.14, v0.5.15.post2, v0.5.16.post1, v0.5.17.post1, v0.5.18.post1, and v0.5.19 to v0.5.23 are refused by name, each saying what of its rules is not read"

// releaseCandidate is why a release candidate of a release membudget
// models is refused rather than sized as its release: v0.5.10rc0 (tag
// 9b0c470, 2026-03-27) is 317 commits before v0.5.10 (git rev-list --count
// v0.5.10rc0..v0.5.10), and server_args.py, model_executor/, layers/ and
// models/ change between them (git diff --stat), so its rules are not
// v0.5.10's.
const releaseCandidate = "release candidates are not modelled: v0.5.10rc0 (tag 9b0c470, 2026-03-27) is 317 commits before v0.5.10, and server_args.py, model_executor/, layers/ and models/ change between them, so its memory rules are not its release's; pass the release (--sglang-version v0.5.10)"

// VersionHelp is --sglang-version's help: the releases it takes and those
// it refuses by name.
var VersionHelp = releaseList("") + " (" + refusedByName + ")"

// releaseList returns the releases profiles models, newest first, as
// "v0.5.8.post1, ... or v0.4.9.post2", with note after the default's name.
func releaseList(note string) string {
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.Name
		if p.Name == DefaultName {
			names[i] += note
		}
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// release is an SGLang release number: v0.5.6.post2 is {0, 5, 6, 2}; a
// release candidate counts as its release.
type release struct{ major, minor, patch, post int }

// newestRead is the newest release whose rules membudget has read:
// profiles' first.
var newestRead = func() release {
	r, _ := parseRelease(profiles[0].Name)
	return r
}()

// releasePattern reads a release as SGLang tags it: v0.5.23, v0.5.6.post2,
// v0.5.10rc0, 0.5.9 (the v added by the caller).
var releasePattern = regexp.MustCompile(`^v([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})(?:\.post([0-9]{1,3}))?(?:rc[0-9]{1,3})?$`)

// parseRelease reads s, with its leading v, as an SGLang release.
func parseRelease(s string) (release, bool) {
	m := releasePattern.FindStringSubmatch(s)
	if m == nil {
		return release{}, false
	}
	var r release
	r.major, _ = strconv.Atoi(m[1])
	r.minor, _ = strconv.Atoi(m[2])
	r.patch, _ = strconv.Atoi(m[3])
	if m[4] != "" {
		r.post, _ = strconv.Atoi(m[4])
	}
	return r, true
}

// less reports whether r is an earlier release than o.
func (r release) less(o release) bool {
	if r.major != o.major {
		return r.major < o.major
	}
	if r.minor != o.minor {
		return r.minor < o.minor
	}
	if r.patch != o.patch {
		return r.patch < o.patch
	}
	return r.post < o.post
}

// String returns the release as SGLang tags it: v0.5.23, v0.5.6.post2.
func (r release) String() string {
	s := fmt.Sprintf("v%d.%d.%d", r.major, r.minor, r.patch)
	if r.post > 0 {
		s += fmt.Sprintf(".post%d", r.post)
	}
	return s
}

// Profiles lists every profile, newest first.
func Profiles() []Profile { return append([]Profile(nil), profiles...) }
