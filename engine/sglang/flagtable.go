package sglang

// What each refused flag would add, as its refusal names it. The memory
// terms are SGLang's own allocations at v0.5.6.post2 (and v0.4.9.post2
// where it has the flag; for a flag new in v0.5.7, v0.5.8 or v0.5.9, at
// that release); membudget sizes none of them.
const (
	whatA2a           = "the expert-parallel all-to-all backend's buffers (DeepEP's NVLink and RDMA buffers, sized by --deepep-config)"
	whatAttn          = "a prefill or decode attention backend other than --attention-backend (its workspace and page size)"
	whatAttnCP        = "attention context parallelism (the tensor-parallel ranks split into context-parallel groups for attention, their sequence shards and graph batch sizes; v0.5.9 server_args.py:2083-2092, model_executor/cuda_graph_runner.py:208-209)"
	whatComm          = "distributed init's communication buffers other than membudget's estimate (custom all-reduce, NVLS, symmetric memory, MSCCL++, FlashInfer's all-reduce fusion workspace), which SGLang takes before it measures the fraction's base"
	whatCompile       = "torch.compile's graphs for the batches up to --torch-compile-max-bs"
	whatConfig        = "a model config other than the checkpoint's config.json (membudget sizes config.json as given)"
	whatDLLM          = "a diffusion language model's decoding"
	whatDPAttn        = "the LM head sharded over data-parallel attention ranks"
	whatDS            = "double sparsity's heavy-channel label cache beside the KV cache"
	whatDeterministic = "deterministic inference's attention backend and batch-invariant kernels"
	whatDevice        = "a device other than the GPU of the class sized"
	whatDynChunk      = "prefill chunks sized at run time for pipeline parallelism (dynamic chunking, v0.5.7 scheduler.py:758-769) rather than at --chunked-prefill-size"
	whatEPD           = "an encoder-only or language-only server of encoder disaggregation (the weights and buffers of one half of a multimodal model)"
	whatHiSparse      = "hierarchical sparse attention (its KV moved between host and device, and its selection buffers; v0.5.8 mem_cache/sparsity/)"
	whatRouted        = "the routed experts' record of every KV token, on the device (v0.5.7 model_runner.py:603-612: max_total_num_tokens + page_size rows per layer, layers/moe/routed_experts_capturer.py)"
	whatDump          = "tensor dump mode (forward hooks that copy tensors out; v0.5.6.post2 also turns CUDA graphs off for it, server_args.py:2113-2118)"
	whatDisagg        = "a prefill or decode node of disaggregated serving (its KV transfer and request pools; from sgl-project/sglang PR #29615 its own --mem-fraction-static reserve)"
	whatDisaggOffload = "the decode node's KV cache offloaded to host memory (on unified devices out of the same pool)"
	whatEP            = "expert parallelism (the experts divided among ranks, and its all-to-all buffers)"
	whatEncoder       = "the vision encoder's data-parallel copy on every rank"
	whatEplb          = "redundant experts on every rank (expert-parallel load balancing)"
	whatGraphs        = "CUDA graphs of a capture list other than the default's (the graph term follows the batches captured)"
	whatHiCache       = "the hierarchical cache (a host KV pool of --hicache-ratio or --hicache-size beside the device's, pinned, and on unified devices out of the same pool)"
	whatHidden        = "the hidden states returned with every token"
	whatHostCopy      = "a host copy of the weights (on unified devices out of the same pool)"
	whatHybridRatio   = "the hybrid KV cache ratio"
	whatImpl          = "a modelling backend other than the one the release picks for the architecture"
	whatKT            = "experts on the CPU (KTransformers): the GPU holds only --kt-num-gpu-experts of them"
	whatKVScales      = "KV scales from a file"
	whatKernels       = "MoE kernels other than the default (their weight layout and workspaces)"
	whatLMHead        = "the LM head computed in fp32 (its logits at 4 bytes)"
	whatLoadFormat    = "a load format other than the checkpoint's safetensors (GGUF, bitsandbytes, layered loading: their weights)"
	whatLora          = "LoRA adapters (each adapter slot's A and B buffers per layer and module, up to --max-loras-per-batch, at --max-lora-rank)"
	whatMMDevice      = "multimodal features kept on the GPU"
	whatMamba         = "the Mamba state pool (its size, dtype and share of the memory)"
	whatMemSaver      = "the memory saver's allocator (torch_memory_saver's pool for the weights and the KV cache, whose segments the caching allocator's slack does not describe)"
	whatMoEDP         = "MoE data parallelism (the experts sharded over tp-size / moe-dp-size ranks rather than tp-size, so that each rank holds a larger share of them; v0.5.9 server_args.py:2094-2107)"
	whatMicro         = "pipeline micro-batches other than the default (their request pools)"
	whatMultimodal    = "a multimodal Gemma 3 (its vision tower and default fraction)"
	whatNSACP         = "context parallelism of the sparse-attention prefill"
	whatOffload       = "weights offloaded to host memory (pinned, and on unified devices out of the same pool)"
	whatPDMux         = "prefill-decode multiplexing (its second stream's graphs and SM groups)"
	whatPiecewise     = "piecewise CUDA graphs for prefill (their graphs and capture tokens)"
	whatPlugin        = "forward hooks' own allocations, which membudget cannot read"
	whatQuantize      = "online quantization of the weights"
	whatRecorder      = "the expert-distribution recorder's buffers"
	whatRunner        = "an embedding model (no decode, other heads and activations)"
	whatSWA           = "a sliding-window pool ratio other than SGLang's 0.8"
	whatSWAOne        = "the sliding-window models' single pool"
	whatSpec          = "speculative decoding (its draft model's weights and KV pool, and the draft tokens in the request pools)"
	whatTBO           = "two-batch or single-batch overlap's second micro-batch and its buffers"
	whatYaml          = "a --config file's flags, which membudget does not read"
	// The refusals of flags new in v0.5.10, at that release.
	whatLinearAttn      = "a linear-attention backend (the linear-attention layers' state and kernels, of models whose state pool membudget does not size)"
	whatMMCache         = "a global cache of multimodal embeddings (mem_cache/storage/mooncake_store/embedding_cache_controller.py)"
	whatModelExpress    = "weights loaded from a ModelExpress seed instance (its transfer engine's registered buffers, model_runner.py:1173-1190)"
	whatCuDNNViT        = "FlashInfer's cuDNN vision attention, whose 128 MiB workspace Qwen3-VL's vision tower allocates as it loads (models/qwen3_vl.py:349-358, layers/attention/vision.py:86; other vision towers do not take it, vision.py:718)"
	whatPiecewiseForced = "piecewise CUDA graphs forced on where SGLang would turn them off (_handle_piecewise_cuda_graph's cases skipped, server_args.py:1078-1082), for models and serves whose capture membudget has not read"
	// The refusals of flags new in v0.5.11, at that release (server_args.py
	// at tag v0.5.11 and the files that read each field).
	whatDebugGraph   = "CUDA graphs in debug mode (graph breaks around every operation through the breakable graph runner, and piecewise graphs off, server_args.py:1259-1261)"
	whatBreakable    = "piecewise CUDA graphs captured by the breakable graph runner rather than torch.compile's split (a second capture path, not read)"
	whatMIS          = "multi-item scoring (query and items joined into one sequence; it turns CUDA graphs, the radix cache and chunked prefill off, layers/attention/flashinfer_backend.py, layers/logits_processor.py)"
	whatSharedFusion = "shared experts fused into the routed experts where SGLang would keep them apart (one more expert's weights in the fused MoE layer)"
	whatNoLoraGraph  = "a second set of decode CUDA graphs without LoRA hooks (model_executor/cuda_graph_runner.py), captured beside the LoRA ones"
	whatKVCanary     = "a canary on the KV pool (v0.5.13's --kv-canary: its workspace and checks beside the pool, not read)"
	whatRadixBackend = "a radix cache backend other than the default (v0.5.13's --radix-cache-backend, its tree and buffers not read)"
	whatNoKV         = "a prefill-only server without a KV cache (v0.5.12's --prefill-only-disable-kv-cache: no pool, other request tables)"
	whatPrefetch     = "checkpoint files read ahead into the host page cache by every rank (model_loader/loader.py), which on unified devices is the GPU's memory"
	// The refusal of v0.5.14's per-phase CUDA graph flags (server_args.py:
	// 1918-1979 at v0.5.14), whose resolution (_parse_cuda_graph_config,
	// :2920-2980: JSON over the per-phase flags over the old ones, and an
	// explicit prefill backend skipping the cases that turn it off)
	// membudget does not model; the old flags it models store into them.
	whatGraphPhases = "v0.5.14's per-phase CUDA graph settings (--cuda-graph-config and the --cuda-graph-*-decode/-prefill, --cuda-graph-backend-*, --cuda-graph-tc-compiler and --disable-decode/prefill-cuda-graph flags: which graphs each phase captures, and an explicit prefill backend that skips the cases turning it off, server_args.py:2920-2995); membudget models the old flags that store into them: --cuda-graph-max-bs, --disable-cuda-graph and --disable-piecewise-cuda-graph"
	// The refusals of flags new in v0.5.15 (server_args.py at tag v0.5.15
	// and the files that read each field; testdata/server_args-v0.5.15.txt).
	whatBF16GEMM      = "a BF16 GEMM backend other than cuBLAS (SGLang's JIT CuTe DSL kernel on SM10x, v0.5.15 --bf16-gemm-backend cutedsl, its workspace not read)"
	whatDCP           = "decode context parallelism (the token allocator over --dcp-size times the pool's tokens and the gathers of the KV it splits, v0.5.15 model_runner_kv_cache_mixin.py:1132, layers/dcp/)"
	whatDecoupledSpec = "decoupled speculative decoding (a verifier or drafter engine of v0.5.15's --decoupled-spec-role, its channels and draft state, not read)"
	whatReplaySSM     = "ReplaySSM's ring buffers beside the linear-attention state (--linear-replayssm-cache-len steps of it, v0.5.15's Mamba pool)"
	whatPageMajor     = "the page-major KV layout (the Mamba state and the full and sliding-window KV laid out in one page-granular envelope, v0.5.15 model_runner_kv_cache_mixin.py:637)"
	whatSessionCache  = "per-session KV held as evictable radix entries (v0.5.15's session radix cache, with --radix-eviction-policy priority; not read)"
	whatUnifiedPool   = "one byte buffer split at run time among a hybrid model's pools (v0.5.15 --enable-unified-memory, model_runner_kv_cache_mixin.py:511; an error for other models)"
	// The refusals of flags new in v0.5.16 (server_args.py at tag v0.5.16
	// and the files that read each field; testdata/server_args-v0.5.16.txt).
	whatDSALayerSplit  = "DeepSeek sparse attention's KV and indexer layers split across context-parallel ranks (v0.5.16 --enable-dsa-cache-layer-split: the cell over a rank's share of the layers and a remote scratch layer, layers/cp/utils.py:83-98, mem_cache/dsa_cache_layer_split.py)"
	whatScatteredSconv = "Inkling's short convolution sharded across tensor-parallel ranks (v0.5.16 --enable-scattered-sconv: a reduce-scatter and all-gather in place of the all-reduce, read by the symmetric-memory communicator too, distributed/device_communicators/torch_symm_mem.py:104; not read)"
	// The refusals of flags new in v0.5.17 (server_args.py at tag v0.5.17
	// and the files that read each field; testdata/server_args-v0.5.17.txt).
	whatDWDP        = "distributed weight data parallelism (v0.5.17 --dwdp-size: MoE prefill prefetching the other ranks' expert weights, layers/moe/dwdp.py, set up after loading, model_runner.py:606; not read)"
	whatCPDecodeTP  = "attention weights sliced across context-parallel ranks at decode (v0.5.17 --enable-cp-decode-attn-tp, layers/cp/cp_decode_attn_tp.py; an error for architectures outside its list, server_args.py:5062-5074)"
	whatWeightCache = "weights held in GPU memory by a weight cache daemon and loaded over IPC (v0.5.17 --weight-cache-mode, model_runner_components/load_model_utils.py:224-256, weight_cache/; not read)"
	// The refusals of flags new in v0.5.18 (server_args.py at tag v0.5.18
	// and the files that read each field; testdata/server_args-v0.5.18.txt).
	whatTPLMHeadA2A      = "the LM head's logits exchanged by an all-to-all across tensor-parallel ranks (v0.5.18 --enable-tp-lm-head-all-to-all, layers/logits_processor.py; it asserts DP attention, refused, and is on by default only on a DP-attention decode node, arg_groups/overrides.py:2407-2427)"
	whatBalancedness     = "the expert-distribution recorder's balancedness report (v0.5.18 --expert-balancedness-report-mode, eplb/expert_distribution.py; its default off records nothing)"
	whatImageProcessor   = "images preprocessed by a backend other than the default's (v0.5.18 --image-processor-backend, multimodal/processors/base_processor.py; where the preprocessing runs and what it keeps on the GPU not read)"
	whatRetractionBackup = "a disaggregated decode node's backup of retracted requests' KV (v0.5.18 --disaggregation-decode-retraction-backup, disaggregation/decode.py, mem_cache/kv_cache_builder.py; disaggregation refused)"
	whatLMOnly           = "a multimodal checkpoint served without its encoders (v0.5.18 --language-model-only: an error for every architecture but MuseGlimmerForConditionalGeneration, server_args.py:7657-7686, a model membudget refuses; is_multimodal and its 100 MiB KV reservation stay, configs/model_config.py:331, 452-459, 552)"
	whatOverlapLoad      = "weights staged while the CUDA graphs are captured (v0.5.18 --startup-weight-load-mode overlap, model_executor/startup_weight_load.py; not read)"
)

// flagTable is every flag of SGLang's server (python -m
// sglang.launch_server) in the releases membudget models, one row per
// option string, with what membudget does with it (see [sflag]). The rows
// were read from ServerArgs.add_cli_args in python/sglang/srt/server_args.py
// at the tags v0.4.9.post2 (commit eb118d8), v0.5.6.post2 (5c8bd8b),
// v0.5.6.post3 (112ddbc), v0.5.7 (232982a), v0.5.8 (0189f41),
// v0.5.8.post1 (c1f2241), v0.5.9 (bbe9c7e) and v0.5.9.post1 (92b4f9a);
// at is each row's line there, oldest first,
// which TestFlagTableIsTheReleases checks against the option strings
// extracted from those files (testdata/server_args-*.txt), so that a flag
// missing from the table, or one a release has not, fails. A flag new in
// v0.5.7, v0.5.8 or v0.5.9 is ignored where its use at the tag touches no
// allocation (a scheduler limit, a log or HTTP option, a check), refused
// otherwise; the --enable-prefix-mm-cache and --encoder-* options act on
// the encoder server alone (v0.5.7 disaggregation/encode_server.py:204),
// which --encoder-only starts and membudget refuses. v0.5.9 adds
// --attention-context-parallel-size and --moe-data-parallel-size (each
// refused above its default 1), --mamba-backend (refused but at its
// default triton, as every Mamba flag) and --extra-metric-labels (a
// metrics label), and drops --disaggregation-decode-enable-fake-auto.
// v0.5.11 (612785f) drops double sparsity's six flags and
// --multi-item-scoring-delimiter and adds 27: those that allocate, turn a
// graph runner on or off, or load otherwise are refused (see the what*
// of v0.5.11 below), the scheduler's, HTTP's, tokenizer's, LoRA loading's
// and disaggregation's (under --disaggregation-mode, refused) ignored;
// --lora-strict-loading and --record-nolora-graph are argparse's
// BooleanOptionalAction, each with its --no- form.
// v0.5.12 (127b9e3; v0.5.12.post1's are the same) adds 13 calls, and
// makes --hierarchical-sparse-attention-extra-config (a flag of v0.5.8 and
// v0.5.9) a second string of --hisparse-config and
// --speculative-dflash-draft-window-size one of
// --speculative-draft-window-size (see [aliasSpan]).
// v0.5.13 (28b095c; v0.5.13.post1's are the same) drops --enable-nan-
// detection and --record-nolora-graph (both forms), adds 20 calls, the
// --dsa-* flags among them, whose dests the --nsa-* ones (now deprecated
// aliases of one value) store into, and makes
// --speculative-dflash-draft-window-size its own call again.
// v0.5.14 (49e384c) declares the flags on the ServerArgs dataclass,
// added by add_cli_args_from_dataclass (arg_groups/arg_utils.py:157), with
// 27 add_argument calls left in add_cli_args (server_args.py:6257): a row's
// line there is the field's or the call's (testdata/server_args-v0.5.14.txt
// says how each is read). It drops --custom-sigquit-handler,
// --debug-tensor-dump-inject, --enable-piecewise-cuda-graph and
// --hybrid-kvcache-ratio and adds 18, refused by what they add (the
// per-phase CUDA graph flags by whatGraphPhases); the graph flags
// membudget models and the other old graph flags store into the per-phase
// fields (redest), and --tp-size, --pp-size, --dp-size, --ep-size,
// --attn-cp-size and --moe-dp-size become the first option strings, their
// long forms the aliases (aliasSpan).
// --nsa-prefill-cp-mode is ignored at any value: it is read only under
// --enable-nsa-prefill-context-parallel, which is refused
// (layers/attention/nsa/utils.py:27-44 at v0.5.8, :34-51 at v0.5.9, where
// its default turned from in-seq-split to round-robin-split, PR #18613).
// A flag's since and until follow from its
// lines: the first release that has it, and the first after it that has
// it not.
var flagTable = []sflag{
	{name: "abort-on-priority-when-disabled", arity: noValue, kind: ignored, at: lines{0, 2420, 2420, 2757, 2910, 2910, 3208, 3208, 3999, 3999, 4570, 4929, 4929, 4889, 4889, 728, 703, 703, 762, 848, 857}},
	{name: "admin-api-key", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 3301, 3301, 3620, 3620, 4440, 4440, 5025, 5426, 5426, 5399, 5399, 1143, 1012, 1012, 1120, 1309, 1364}},
	{name: "allow-auto-truncate", arity: noValue, kind: ignored, at: lines{1508, 3729, 3729, 4111, 4366, 4366, 4697, 4697, 5575, 5575, 6241, 6682, 6682, 6756, 6756, 1210, 1079, 1079, 1197, 1401, 1456}},
	{name: "allowed-media-domains", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2797}},
	{name: "api-key", arity: oneValue, kind: ignored, at: lines{1024, 2739, 2739, 3093, 3295, 3295, 3614, 3614, 4434, 4434, 5019, 5420, 5420, 5393, 5393, 1139, 1008, 1008, 1116, 1304, 1359}},
	{name: "asr-max-buffer-seconds", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5501, 5501, 1195, 1064, 1064, 1182, 1383, 1438}},
	{name: "asr-max-concurrent-sessions", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5510, 5510, 1199, 1068, 1068, 1186, 1388, 1443}},
	{name: "attention-backend", arity: oneValue, kind: modelled, at: lines{1132, 2937, 2937, 3286, 3510, 3510, 3829, 3829, 4658, 4658, 5263, 5683, 5683, 5674, 5674, 1341, 1277, 1277, 1398, 1643, 1698}},
	{name: "attention-context-parallel-size", arity: oneValue, kind: refused, what: whatAttnCP, neutral: []string{"1"}, alias: &aliasSpan{from: "v0.5.14", of: "attn-cp-size"}, at: lines{0, 0, 0, 0, 0, 0, 3308, 3308, 4099, 4099, 4670, 5052, 5052, 5012, 5012, 888, 862, 862, 934, 1050, 1064}},
	{name: "attn-cp-size", of: "attention-context-parallel-size", arity: oneValue, kind: refused, what: whatAttnCP, neutral: []string{"1"}, alias: &aliasSpan{from: "v0.5.14", of: ""}, at: lines{0, 0, 0, 0, 0, 0, 3308, 3308, 4099, 4099, 4670, 5052, 5052, 5012, 5012, 888, 862, 862, 934, 1050, 1064}},
	{name: "base-gpu-id", arity: oneValue, kind: ignored, at: lines{918, 2555, 2555, 2904, 3089, 3089, 3401, 3401, 4211, 4211, 4789, 5171, 5171, 5131, 5131, 800, 945, 945, 1022, 1186, 1216}},
	{name: "batch-notify-size", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4709, 5091, 5091, 5051, 5051, 957, 1091, 1091, 1209, 1415, 1470}},
	{name: "bf16-gemm-backend", arity: oneValue, kind: refused, what: whatBF16GEMM, neutral: []string{"auto"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1353, 1353, 1475, 1729, 1785}},
	{name: "bucket-e2e-request-latency", arity: manyValues, kind: ignored, at: lines{991, 2656, 2656, 3010, 3212, 3212, 3531, 3531, 4351, 4351, 4937, 5319, 5319, 5285, 5285, 1069, 1195, 1195, 1316, 1544, 1599}},
	{name: "bucket-inter-token-latency", arity: manyValues, kind: ignored, at: lines{984, 2649, 2649, 3003, 3205, 3205, 3524, 3524, 4344, 4344, 4930, 5312, 5312, 5278, 5278, 1065, 1191, 1191, 1312, 1539, 1594}},
	{name: "bucket-time-to-first-token", arity: manyValues, kind: ignored, at: lines{977, 2642, 2642, 2996, 3198, 3198, 3517, 3517, 4337, 4337, 4923, 5305, 5305, 5271, 5271, 1061, 1187, 1187, 1308, 1534, 1589}},
	{name: "c128-page-size", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 896}},
	{name: "chat-template", arity: oneValue, kind: ignored, at: lines{742, 2757, 2757, 3111, 3322, 3322, 3641, 3641, 4461, 4461, 5046, 5447, 5447, 5420, 5420, 1155, 1024, 1024, 1132, 1324, 1379}},
	{name: "checkpoint-engine-wait-weights-before-ready", arity: noValue, kind: ignored, at: lines{0, 2279, 2279, 2598, 2743, 2743, 3041, 3041, 3785, 3785, 4348, 4707, 4707, 4667, 4667, 2394, 2444, 2444, 2690, 3173, 3322}},
	{name: "chunked-prefill-size", arity: oneValue, kind: modelled, at: lines{806, 2395, 2395, 2720, 2865, 2865, 3163, 3163, 3941, 3941, 4512, 4871, 4871, 4831, 4831, 680, 655, 655, 714, 792, 801}},
	{name: "collect-tokens-histogram", arity: noValue, kind: ignored, at: lines{998, 2663, 2663, 3017, 3219, 3219, 3538, 3538, 4358, 4358, 4944, 5326, 5326, 5292, 5292, 6316, 6201, 6201, 7158, 8273, 8731}},
	{name: "completion-template", arity: oneValue, kind: ignored, at: lines{748, 2763, 2763, 3117, 3335, 3335, 3654, 3654, 4474, 4474, 5059, 5460, 5460, 5433, 5433, 1163, 1032, 1032, 1140, 1334, 1389}},
	{name: "config", arity: oneValue, kind: refused, what: whatYaml, at: lines{0, 3971, 3971, 4407, 4670, 4670, 4995, 4995, 5897, 5897, 6592, 7048, 7048, 7186, 7186, 6297, 6182, 6182, 7139, 8254, 8699}},
	{name: "constrained-json-disable-any-whitespace", arity: noValue, kind: ignored, at: lines{0, 2532, 2532, 2875, 3052, 3052, 3364, 3364, 4174, 4174, 4752, 5134, 5134, 5094, 5094, 981, 1269, 1269, 1390, 1634, 1689}},
	{name: "constrained-json-whitespace-pattern", arity: oneValue, kind: ignored, at: lines{894, 2526, 2526, 2869, 3046, 3046, 3358, 3358, 4168, 4168, 4746, 5128, 5128, 5088, 5088, 977, 1265, 1265, 1386, 1629, 1684}},
	{name: "context-length", arity: oneValue, kind: modelled, at: lines{724, 2198, 2198, 2517, 2662, 2662, 2960, 2960, 3703, 3703, 4266, 4611, 4611, 4571, 4571, 477, 470, 470, 516, 572, 581}},
	{name: "cp-strategy", arity: oneValue, kind: refused, what: whatNSACP, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 906, 888, 888, 960, 1108, 1122}},
	{name: "cpu-offload-gb", arity: oneValue, kind: refused, what: whatOffload, neutral: []string{"0"}, at: lines{831, 3464, 3464, 3846, 4101, 4101, 4432, 4432, 5295, 5295, 5938, 6379, 6379, 6428, 6428, 1906, 2209, 2209, 2427, 2875, 2993}},
	{name: "crash-dump-folder", arity: oneValue, kind: ignored, at: lines{961, 2604, 2604, 2958, 3160, 3160, 3472, 3472, 4287, 4287, 4865, 5247, 5247, 5213, 5213, 1025, 1151, 1151, 1269, 1484, 1539}},
	{name: "cuda-graph-backend-decode", arity: oneValue, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1925, 1410, 1410, 1532, 1807, 1863}},
	{name: "cuda-graph-backend-prefill", arity: oneValue, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1932, 1417, 1417, 1539, 1815, 1871}},
	{name: "cuda-graph-bs", arity: manyValues, kind: refused, what: whatGraphs, redest: &destSpan{from: "v0.5.14", dest: "cuda_graph_bs_decode"}, at: lines{1375, 3515, 3515, 3897, 4152, 4152, 4483, 4483, 5346, 5346, 5992, 6433, 6433, 6512, 6512, 6366, 6251, 6251, 7208, 8323, 8781}},
	{name: "cuda-graph-bs-decode", arity: manyValues, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1947, 1432, 1432, 1554, 1833, 1889}},
	{name: "cuda-graph-bs-prefill", arity: manyValues, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1951, 1436, 1436, 1558, 1838, 1894}},
	{name: "cuda-graph-config", arity: oneValue, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1918, 1403, 1403, 1525, 1799, 1855}},
	{name: "cuda-graph-max-bs", arity: oneValue, kind: modelled, redest: &destSpan{from: "v0.5.14", dest: "cuda_graph_max_bs_decode"}, at: lines{1369, 3509, 3509, 3891, 4146, 4146, 4477, 4477, 5340, 5340, 5986, 6427, 6427, 6506, 6506, 6358, 6243, 6243, 7200, 8315, 8773}},
	{name: "cuda-graph-max-bs-decode", arity: oneValue, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1939, 1424, 1424, 1546, 1823, 1879}},
	{name: "cuda-graph-max-bs-prefill", arity: oneValue, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1943, 1428, 1428, 1550, 1828, 1884}},
	{name: "cuda-graph-tc-compiler", arity: oneValue, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1955, 1440, 1440, 1562, 1843, 1899}},
	{name: "custom-sigquit-handler", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 2921, 3106, 3106, 3418, 3418, 4233, 4233, 4811, 5193, 5193, 5159, 5159, 0, 0, 0, 0, 0, 0}},
	{name: "custom-weight-loader", arity: manyValues, kind: ignored, at: lines{1671, 3920, 3920, 4344, 4607, 4607, 4932, 4932, 5821, 5821, 6502, 6953, 6953, 7091, 7091, 2318, 2368, 2368, 2614, 3087, 3236}},
	{name: "data-parallel-size", arity: oneValue, kind: modelled, alias: &aliasSpan{from: "v0.5.14", of: "dp-size"}, at: lines{1064, 2813, 2813, 3167, 3385, 3385, 3704, 3704, 4524, 4524, 5116, 5530, 5530, 5521, 5521, 868, 842, 842, 914, 1028, 1042}},
	{name: "dcp-comm-backend", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1076, 1090}},
	{name: "dcp-replicate-q-proj", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1089, 1103}},
	{name: "dcp-size", arity: oneValue, kind: refused, what: whatDCP, neutral: []string{"1"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 823, 823, 895, 1004, 1018}},
	{name: "debug-cuda-graph", arity: noValue, kind: refused, what: whatDebugGraph, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6023, 6464, 6464, 6543, 6543, 1979, 1464, 1464, 1586, 1872, 1928}},
	{name: "debug-tensor-dump-inject", arity: oneValue, kind: ignored, at: lines{1600, 3847, 3847, 4239, 4502, 4502, 4833, 4833, 5734, 5734, 6410, 6861, 6861, 6971, 6971, 0, 0, 0, 0, 0, 0}},
	{name: "debug-tensor-dump-input-file", arity: oneValue, kind: ignored, at: lines{1594, 3841, 3841, 4233, 4496, 4496, 4827, 4827, 5728, 5728, 6404, 6855, 6855, 6965, 6965, 2215, 2573, 2573, 2819, 3321, 3471}},
	{name: "debug-tensor-dump-layers", arity: manyValues, kind: ignored, at: lines{0, 3835, 3835, 4227, 4490, 4490, 4821, 4821, 5722, 5722, 6398, 6849, 6849, 6959, 6959, 2210, 2568, 2568, 2814, 3315, 3465}},
	{name: "debug-tensor-dump-output-folder", arity: oneValue, kind: refused, what: whatDump, at: lines{1588, 3829, 3829, 4221, 4484, 4484, 4815, 4815, 5716, 5716, 6388, 6839, 6839, 6949, 6949, 2205, 2563, 2563, 2809, 3309, 3459}},
	{name: "debug-tensor-dump-prefill-only", arity: noValue, kind: ignored, at: lines{1606, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "decode-attention-backend", arity: oneValue, kind: refused, what: whatAttn, at: lines{0, 2951, 2951, 3300, 3524, 3524, 3843, 3843, 4672, 4672, 5277, 5697, 5697, 5688, 5688, 1348, 1285, 1285, 1406, 1652, 1707}},
	{name: "decode-context-parallel-size", of: "dcp-size", arity: oneValue, kind: refused, what: whatDCP, neutral: []string{"1"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 823, 823, 895, 1004, 1018}},
	{name: "decode-log-interval", arity: oneValue, kind: ignored, at: lines{1010, 2695, 2695, 3049, 3251, 3251, 3570, 3570, 4390, 4390, 4975, 5357, 5357, 5323, 5323, 1093, 1219, 1219, 1340, 1572, 1627}},
	{name: "decoupled-spec-bind-endpoint", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1697, 1697, 1860, 2194, 2264}},
	{name: "decoupled-spec-connect-endpoints", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1702, 1702, 1865, 2200, 2270}},
	{name: "decoupled-spec-rank", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1710, 1710, 1873, 2209, 2279}},
	{name: "decoupled-spec-role", arity: oneValue, kind: refused, what: whatDecoupledSpec, neutral: []string{"null"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1715, 1715, 1878, 2215, 2285}},
	{name: "decrypted-config-file", arity: oneValue, kind: refused, what: whatConfig, at: lines{0, 3998, 3998, 4453, 4716, 4716, 5041, 5041, 5931, 5931, 6626, 7082, 7082, 7220, 7220, 2386, 2436, 2436, 2682, 3167, 3316}},
	{name: "decrypted-draft-config-file", arity: oneValue, kind: ignored, at: lines{0, 4004, 4004, 4459, 4722, 4722, 5047, 5047, 5937, 5937, 6632, 7088, 7088, 7226, 7226, 2390, 2440, 2440, 2686, 3170, 3319}},
	{name: "deepep-config", arity: oneValue, kind: refused, what: whatA2a, at: lines{1313, 3253, 3253, 3622, 3860, 3860, 4182, 4182, 5015, 5015, 5680, 6108, 6108, 6151, 6151, 1671, 1845, 1845, 2013, 2366, 2438}},
	{name: "deepep-dispatcher-output-dtype", arity: oneValue, kind: refused, what: whatA2a, neutral: []string{"auto"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6080, 6080, 1632, 1806, 1806, 1974, 2320, 2390}},
	{name: "deepep-mode", arity: oneValue, kind: refused, what: whatA2a, neutral: []string{"auto"}, at: lines{1248, 3182, 3182, 3551, 3789, 3789, 4111, 4111, 4944, 4944, 5609, 6037, 6037, 6073, 6073, 1628, 1802, 1802, 1966, 2310, 2380}},
	{name: "default-chat-template-kwargs", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1152, 1348, 1403}},
	{name: "default-priority-value", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 3993, 3993, 4564, 4923, 4923, 4883, 4883, 725, 700, 700, 759, 843, 852}},
	{name: "delete-ckpt-after-loading", arity: noValue, kind: ignored, at: lines{1498, 3709, 3709, 4091, 4346, 4346, 4677, 4677, 5555, 5555, 6221, 6662, 6662, 6736, 6736, 2381, 2431, 2431, 2677, 3163, 3312}},
	{name: "detokenizer-worker-num", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4566, 4566, 4526, 4526, 443, 436, 436, 482, 514, 523}},
	{name: "device", arity: oneValue, kind: refused, what: whatDevice, neutral: []string{"cuda"}, at: lines{730, 2483, 2483, 2820, 2997, 2997, 3295, 3295, 4086, 4086, 4657, 5039, 5039, 4999, 4999, 796, 941, 941, 1018, 1181, 1211}},
	{name: "disable-attn-tp-gather", arity: noValue, kind: refused, what: whatDPAttn, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6851, 6851, 934, 922, 922, 999, 1160, 1190}},
	{name: "disable-chunked-prefix-cache", arity: noValue, kind: ignored, at: lines{1559, 3749, 3749, 4131, 4386, 4386, 4717, 4717, 5595, 5595, 6267, 6713, 6713, 6787, 6787, 772, 772, 772, 844, 944, 958}},
	{name: "disable-cuda-graph", arity: noValue, kind: modelled, at: lines{1381, 3521, 3521, 3903, 4158, 4158, 4489, 4489, 5352, 5352, 5998, 6439, 6439, 6518, 6518, 6375, 6260, 6260, 7217, 8332, 8790}},
	{name: "disable-cuda-graph-padding", arity: noValue, kind: refused, what: whatGraphs, at: lines{1386, 3526, 3526, 3908, 4163, 4163, 4494, 4494, 5357, 5357, 6003, 6444, 6444, 6523, 6523, 1968, 1453, 1453, 1575, 1859, 1915}},
	{name: "disable-custom-all-reduce", arity: noValue, kind: refused, what: whatComm, at: lines{1411, 3576, 3576, 3958, 4213, 4213, 4544, 4544, 5407, 5407, 6066, 6507, 6507, 6586, 6586, 2032, 1517, 1517, 1639, 1938, 1994}},
	{name: "disable-decode-cuda-graph", arity: noValue, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1963, 1448, 1448, 1570, 1853, 1909}},
	{name: "disable-fast-image-processor", arity: noValue, kind: ignored, at: lines{1564, 3754, 3754, 4136, 4391, 4391, 4722, 4722, 5600, 5600, 6272, 6718, 6718, 6792, 6792, 2432, 2101, 2101, 2313, 2739, 2853}},
	{name: "disable-flashinfer-autotune", arity: noValue, kind: ignored, at: lines{0, 0, 0, 3356, 3594, 3594, 3916, 3916, 4751, 4751, 5356, 5777, 5777, 5812, 5812, 1434, 1391, 1391, 1513, 1772, 1828}},
	{name: "disable-flashinfer-cutlass-moe-fp4-allgather", arity: noValue, kind: refused, what: whatKernels, at: lines{0, 3556, 3556, 3938, 4193, 4193, 4524, 4524, 5387, 5387, 6046, 6487, 6487, 6566, 6566, 1701, 1878, 1878, 2077, 2439, 2511}},
	{name: "disable-hicache-numa-detect", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 3967, 3967, 4298, 4298, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "disable-hybrid-swa-memory", arity: noValue, kind: refused, what: whatSWAOne, at: lines{0, 2469, 2469, 2806, 2952, 2952, 3250, 3250, 4041, 4041, 4612, 4971, 4971, 4931, 4931, 754, 735, 735, 807, 900, 914}},
	{name: "disable-outlines-disk-cache", arity: noValue, kind: ignored, at: lines{1406, 3571, 3571, 3953, 4208, 4208, 4539, 4539, 5402, 5402, 6061, 6502, 6502, 6581, 6581, 2138, 2609, 2609, 2855, 3374, 3524}},
	{name: "disable-overlap-cg-plan", arity: noValue, kind: ignored, at: lines{1426, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "disable-overlap-schedule", arity: noValue, kind: modelled, at: lines{1421, 3591, 3591, 3973, 4228, 4228, 4559, 4559, 5427, 5427, 6086, 6527, 6527, 6606, 6606, 776, 776, 776, 848, 949, 963}},
	{name: "disable-piecewise-cuda-graph", arity: noValue, kind: modelled, redest: &destSpan{from: "v0.5.14", dest: "cuda_graph_backend_prefill"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5473, 5473, 6139, 6580, 6580, 6659, 6659, 6389, 6274, 6274, 7231, 8346, 8804}},
	{name: "disable-prefill-cuda-graph", arity: noValue, kind: refused, what: whatGraphPhases, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1959, 1444, 1444, 1566, 1848, 1904}},
	{name: "disable-priority-preemption", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 3987, 3987, 4558, 4917, 4917, 4877, 4877, 722, 697, 697, 756, 840, 849}},
	{name: "disable-radix-cache", arity: noValue, kind: modelled, at: lines{1364, 3504, 3504, 3886, 4141, 4141, 4472, 4472, 5335, 5335, 5981, 6422, 6422, 6471, 6471, 771, 755, 755, 827, 923, 937}},
	{name: "disable-shared-experts-fusion", arity: noValue, kind: ignored, at: lines{1554, 3744, 3744, 4126, 4381, 4381, 4712, 4712, 5590, 5590, 6256, 6697, 6697, 6771, 6771, 1705, 1882, 1882, 2081, 2444, 2516}},
	{name: "disable-tokenizer-batch-decode", arity: noValue, kind: ignored, at: lines{0, 3566, 3566, 3948, 4203, 4203, 4534, 4534, 5397, 5397, 6056, 6497, 6497, 6576, 6576, 2197, 2555, 2555, 2801, 3300, 3450}},
	{name: "disaggregation-bootstrap-port", arity: oneValue, kind: ignored, at: lines{1627, 3869, 3869, 4261, 4524, 4524, 4855, 4855, 5756, 5756, 6432, 6883, 6883, 6993, 6993, 2234, 2284, 2284, 2530, 2996, 3114}},
	{name: "disaggregation-decode-dp", arity: oneValue, kind: ignored, at: lines{1639, 3881, 3881, 4273, 4536, 4536, 4867, 4867, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "disaggregation-decode-enable-fake-auto", arity: noValue, kind: ignored, at: lines{0, 0, 0, 4298, 4561, 4561, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "disaggregation-decode-enable-offload-kvcache", arity: noValue, kind: refused, what: whatDisaggOffload, at: lines{0, 3901, 3901, 4293, 4556, 4556, 4887, 4887, 5770, 5770, 6451, 6902, 6902, 7015, 7015, 2246, 2296, 2296, 2542, 3011, 3129}},
	{name: "disaggregation-decode-enable-radix-cache", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6446, 6897, 6897, 7010, 7010, 2242, 2292, 2292, 2538, 3006, 3124}},
	{name: "disaggregation-decode-extra-slots", arity: oneValue, kind: refused, what: whatDisagg, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2254, 2304, 2304, 2550, 3021, 3152}},
	{name: "disaggregation-decode-polling-interval", arity: oneValue, kind: ignored, at: lines{0, 3912, 3912, 4310, 4573, 4573, 4898, 4898, 5781, 5781, 6462, 6913, 6913, 7026, 7026, 2258, 2308, 2308, 2554, 3026, 3157}},
	{name: "disaggregation-decode-retraction-backup", arity: oneValue, kind: refused, what: whatRetractionBackup, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3134}},
	{name: "disaggregation-decode-tp", arity: oneValue, kind: ignored, at: lines{1633, 3875, 3875, 4267, 4530, 4530, 4861, 4861, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "disaggregation-ib-device", arity: oneValue, kind: ignored, at: lines{1651, 3893, 3893, 4285, 4548, 4548, 4879, 4879, 5762, 5762, 6438, 6889, 6889, 6999, 6999, 2238, 2288, 2288, 2534, 3001, 3119}},
	{name: "disaggregation-mode", arity: oneValue, kind: refused, what: whatDisagg, neutral: []string{"null"}, at: lines{1613, 3855, 3855, 4247, 4510, 4510, 4841, 4841, 5742, 5742, 6418, 6869, 6869, 6979, 6979, 2223, 2273, 2273, 2519, 2983, 3101}},
	{name: "disaggregation-prefill-pp", arity: oneValue, kind: ignored, at: lines{1645, 3887, 3887, 4279, 4542, 4542, 4873, 4873, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "disaggregation-transfer-backend", arity: oneValue, kind: ignored, at: lines{1620, 3862, 3862, 4254, 4517, 4517, 4848, 4848, 5749, 5749, 6425, 6876, 6876, 6986, 6986, 2227, 2277, 2277, 2523, 2988, 3106}},
	{name: "dist-init-addr", arity: oneValue, kind: ignored, at: lines{1083, 2845, 2845, 3194, 3412, 3412, 3731, 3731, 4551, 4551, 5143, 5557, 5557, 5548, 5548, 840, 807, 807, 879, 986, 1000}},
	{name: "dist-timeout", arity: oneValue, kind: ignored, at: lines{906, 2543, 2543, 2892, 3069, 3069, 3381, 3381, 4191, 4191, 4769, 5151, 5151, 5111, 5111, 836, 803, 803, 875, 981, 995}},
	{name: "dllm-algorithm", arity: oneValue, kind: refused, what: whatDLLM, at: lines{0, 3413, 3413, 3795, 4050, 4050, 4381, 4381, 5244, 5244, 5924, 6365, 6365, 6414, 6414, 1894, 2261, 2261, 2500, 2961, 3079}},
	{name: "dllm-algorithm-config", arity: oneValue, kind: refused, what: whatDLLM, at: lines{0, 3419, 3419, 3801, 4056, 4056, 4387, 4387, 5250, 5250, 5930, 6371, 6371, 6420, 6420, 1898, 2265, 2265, 2504, 2966, 3084}},
	{name: "dllm-fdfo", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2508, 2971, 3089}},
	{name: "download-dir", arity: oneValue, kind: ignored, at: lines{912, 2549, 2549, 2898, 3075, 3075, 3387, 3387, 4197, 4197, 4775, 5157, 5157, 5117, 5117, 2372, 2422, 2422, 2668, 3151, 3300}},
	{name: "dp-size", of: "data-parallel-size", arity: oneValue, kind: modelled, alias: &aliasSpan{from: "v0.5.14", of: ""}, at: lines{1064, 2813, 2813, 3167, 3385, 3385, 3704, 3704, 4524, 4524, 5116, 5530, 5530, 5521, 5521, 868, 842, 842, 914, 1028, 1042}},
	{name: "ds-channel-config-path", arity: oneValue, kind: refused, what: whatDS, at: lines{1332, 3432, 3432, 3814, 4069, 4069, 4400, 4400, 5263, 5263, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "ds-heavy-channel-num", arity: oneValue, kind: refused, what: whatDS, at: lines{1338, 3438, 3438, 3820, 4075, 4075, 4406, 4406, 5269, 5269, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "ds-heavy-channel-type", arity: oneValue, kind: refused, what: whatDS, at: lines{1350, 3450, 3450, 3832, 4087, 4087, 4418, 4418, 5281, 5281, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "ds-heavy-token-num", arity: oneValue, kind: refused, what: whatDS, at: lines{1344, 3444, 3444, 3826, 4081, 4081, 4412, 4412, 5275, 5275, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "ds-sparse-decode-threshold", arity: oneValue, kind: refused, what: whatDS, at: lines{1356, 3456, 3456, 3838, 4093, 4093, 4424, 4424, 5287, 5287, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "dsa-decode-backend", arity: oneValue, kind: ignored, changed: &arityChange{"v0.5.13", oneValue, "dsa_decode_backend"}, redest: &destSpan{from: "v0.5.14", dest: ""}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5754, 5754, 1420, 1369, 1369, 1491, 1747, 1803}},
	{name: "dsa-paged-mqa-logits-backend", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1377, 1377, 1499, 1756, 1812}},
	{name: "dsa-prefill-backend", arity: oneValue, kind: ignored, changed: &arityChange{"v0.5.13", oneValue, "dsa_prefill_backend"}, redest: &destSpan{from: "v0.5.14", dest: ""}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5736, 5736, 1413, 1361, 1361, 1483, 1738, 1794}},
	{name: "dsa-prefill-cp-mode", arity: oneValue, kind: ignored, changed: &arityChange{"v0.5.13", oneValue, "dsa_prefill_cp_mode"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6876, 6876, 6454, 6339, 6339, 7296, 8418, 8876}},
	{name: "dsa-topk-backend", arity: oneValue, kind: ignored, changed: &arityChange{"v0.5.13", oneValue, "dsa_topk_backend"}, redest: &destSpan{from: "v0.5.14", dest: ""}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5772, 5772, 1427, 1384, 1384, 1506, 1764, 1820}},
	{name: "dtype", arity: oneValue, kind: modelled, at: lines{671, 2287, 2287, 2606, 2751, 2751, 3049, 3049, 3826, 3826, 4397, 4756, 4756, 4716, 4716, 559, 521, 521, 567, 631, 640}},
	{name: "dwdp-size", arity: oneValue, kind: refused, what: whatDWDP, neutral: []string{"1"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1067, 1081}},
	{name: "dynamic-batch-tokenizer-batch-size", arity: oneValue, kind: ignored, at: lines{0, 3815, 3815, 4207, 4470, 4470, 4801, 4801, 5702, 5702, 6374, 6825, 6825, 6935, 6935, 2185, 2543, 2543, 2789, 3285, 3435}},
	{name: "dynamic-batch-tokenizer-batch-timeout", arity: oneValue, kind: ignored, at: lines{0, 3821, 3821, 4213, 4476, 4476, 4807, 4807, 5708, 5708, 6380, 6831, 6831, 6941, 6941, 2189, 2547, 2547, 2793, 3290, 3440}},
	{name: "elastic-ep-backend", arity: oneValue, kind: refused, what: whatEP, at: lines{0, 3265, 3265, 3634, 3872, 3872, 4194, 4194, 5027, 5027, 5692, 6120, 6120, 6163, 6163, 1679, 1856, 1856, 2024, 2379, 2451}},
	{name: "elastic-ep-initial-size", arity: oneValue, kind: refused, what: whatEP, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2060, 2420, 2492}},
	{name: "elastic-ep-join-mode", arity: oneValue, kind: refused, what: whatEP, dest: "ep_join_mode", at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2042, 2400, 2472}},
	{name: "elastic-ep-join-rank-offset", arity: oneValue, kind: refused, what: whatEP, neutral: []string{"0"}, dest: "ep_join_rank_offset", at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2050, 2409, 2481}},
	{name: "elastic-ep-rejoin", arity: noValue, kind: refused, what: whatEP, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5713, 6153, 6153, 6196, 6196, 1697, 1874, 1874, 2073, 2436, 2508}},
	{name: "elastic-ep-scale-timeout", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2069, 2431, 2503}},
	{name: "enable-adaptive-dispatch-to-encoder", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5813, 5813, 6494, 6945, 6945, 7083, 7083, 2297, 2347, 2347, 2593, 3067, 3206}},
	{name: "enable-aiter-allreduce-fusion", arity: noValue, kind: refused, what: whatComm, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4939, 4939, 5604, 6032, 6032, 6068, 6068, 2073, 1559, 1559, 1688, 1995, 2051}},
	{name: "enable-attn-tp-input-scattered", arity: noValue, kind: ignored, at: lines{0, 3793, 3793, 4180, 4435, 4435, 4766, 4766, 5644, 5644, 6316, 6767, 6767, 6846, 6846, 930, 918, 918, 995, 1155, 1185}},
	{name: "enable-breakable-cuda-graph", arity: noValue, kind: refused, what: whatBreakable, redest: &destSpan{from: "v0.5.14", dest: "cuda_graph_backend_prefill"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6008, 6449, 6449, 6528, 6528, 6381, 6266, 6266, 7223, 8338, 8796}},
	{name: "enable-broadcast-mm-inputs-process", arity: noValue, kind: ignored, at: lines{0, 3990, 3990, 4426, 4689, 4689, 5014, 5014, 5904, 5904, 6599, 7055, 7055, 7193, 7193, 2402, 2071, 2071, 2283, 2691, 2762}},
	{name: "enable-cache-report", arity: noValue, kind: ignored, at: lines{1036, 2775, 2775, 3129, 3347, 3347, 3666, 3666, 4486, 4486, 5071, 5472, 5472, 5445, 5445, 1170, 1039, 1039, 1147, 1342, 1397}},
	{name: "enable-cp-decode-attn-tp", arity: noValue, kind: refused, what: whatCPDecodeTP, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1128, 1142}},
	{name: "enable-cudagraph-gc", arity: noValue, kind: ignored, at: lines{0, 3536, 3536, 3918, 4173, 4173, 4504, 4504, 5367, 5367, 6018, 6459, 6459, 6538, 6538, 1975, 1460, 1460, 1582, 1867, 1923}},
	{name: "enable-custom-logit-processor", arity: noValue, kind: ignored, at: lines{1513, 3734, 3734, 4116, 4371, 4371, 4702, 4702, 5580, 5580, 6246, 6687, 6687, 6761, 6761, 2122, 2593, 2593, 2839, 3343, 3493}},
	{name: "enable-deepep-moe", arity: noValue, kind: refused, what: whatA2a, at: lines{1243, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "enable-deepep-waterfill", arity: noValue, kind: refused, what: whatA2a, next: "enable-waterfill", at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6141, 6141, 6184, 6184, 1693, 1870, 1870, 0, 0, 0}},
	{name: "enable-deepseek-v4-fp4-indexer", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6817, 6817, 2028, 1513, 1513, 1635, 1933, 1989}},
	{name: "enable-deterministic-inference", arity: noValue, kind: refused, what: whatDeterministic, at: lines{0, 3781, 3781, 4168, 4423, 4423, 4754, 4754, 5632, 5632, 6304, 6755, 6755, 6834, 6834, 2150, 2508, 2508, 2754, 3247, 3397}},
	{name: "enable-double-sparsity", arity: noValue, kind: refused, what: whatDS, at: lines{1327, 3427, 3427, 3809, 4064, 4064, 4395, 4395, 5258, 5258, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "enable-dp-attention", arity: noValue, kind: modelled, at: lines{1436, 3601, 3601, 3983, 4238, 4238, 4569, 4569, 5437, 5437, 6096, 6537, 6537, 6616, 6616, 918, 900, 900, 977, 1134, 1148}},
	{name: "enable-dp-attention-local-control-broadcast", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6101, 6542, 6542, 6621, 6621, 922, 907, 907, 984, 1142, 1156}},
	{name: "enable-dp-lm-head", arity: noValue, kind: refused, what: whatDPAttn, at: lines{1441, 3606, 3606, 3988, 4243, 4243, 4574, 4574, 5442, 5442, 6108, 6549, 6549, 6628, 6628, 926, 911, 911, 988, 1147, 1161}},
	{name: "enable-draft-weights-cpu-backup", arity: noValue, kind: refused, what: whatHostCopy, at: lines{0, 3724, 3724, 4106, 4361, 4361, 4692, 4692, 5570, 5570, 6236, 6677, 6677, 6751, 6751, 2118, 2589, 2589, 2835, 3338, 3488}},
	{name: "enable-dsa-cache-layer-split", arity: noValue, kind: refused, what: whatDSALayerSplit, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 968, 1117, 1131}},
	{name: "enable-dsa-prefill-context-parallel", arity: noValue, kind: refused, what: whatNSACP, changed: &arityChange{"v0.5.13", noValue, "enable_dsa_prefill_context_parallel"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6863, 6863, 6433, 6318, 6318, 7275, 8390, 8848}},
	{name: "enable-dynamic-batch-tokenizer", arity: noValue, kind: ignored, at: lines{0, 3810, 3810, 4202, 4465, 4465, 4796, 4796, 5697, 5697, 6369, 6820, 6820, 6930, 6930, 2181, 2539, 2539, 2785, 3280, 3430}},
	{name: "enable-dynamic-chunking", arity: noValue, kind: refused, what: whatDynChunk, at: lines{0, 0, 0, 2732, 2877, 2877, 3175, 3175, 3953, 3953, 4524, 4883, 4883, 4843, 4843, 684, 659, 659, 718, 797, 806}},
	{name: "enable-elastic-expert-backup", arity: noValue, kind: refused, what: whatEP, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5034, 5034, 5699, 6127, 6127, 6170, 6170, 1686, 1863, 1863, 2031, 2387, 2459}},
	{name: "enable-ep-moe", arity: noValue, kind: refused, what: whatEP, at: lines{1228, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "enable-eplb", arity: noValue, kind: refused, what: whatEplb, at: lines{1273, 3207, 3207, 3576, 3814, 3814, 4136, 4136, 4969, 4969, 5634, 6062, 6062, 6105, 6105, 1645, 1819, 1819, 1987, 2338, 2408}},
	{name: "enable-expert-distribution-metrics", arity: noValue, kind: refused, what: whatRecorder, at: lines{1308, 3248, 3248, 3617, 3855, 3855, 4177, 4177, 5010, 5010, 5675, 6103, 6103, 6146, 6146, 1667, 1841, 1841, 2009, 2363, 8706}},
	{name: "enable-flashinfer-allreduce-fusion", arity: noValue, kind: modelled, at: lines{1238, 3177, 3177, 3546, 3784, 3784, 4106, 4106, 4929, 4929, 5594, 6022, 6022, 6058, 6058, 6491, 6376, 6376, 7333, 8455, 8913}},
	{name: "enable-flashinfer-autotune", arity: noValue, kind: ignored, at: lines{0, 3007, 3007, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "enable-flashinfer-moe", arity: noValue, kind: refused, what: whatKernels, at: lines{1233, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "enable-flexkv", arity: noValue, kind: refused, what: whatRadixBackend, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2451, 2904, 3022}},
	{name: "enable-forward-pass-metrics", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5375, 5375, 5341, 5341, 1104, 1230, 1230, 1351, 1585, 1640}},
	{name: "enable-fp32-lm-head", arity: noValue, kind: refused, what: whatLMHead, at: lines{0, 2324, 2324, 2643, 2788, 2788, 3086, 3086, 3863, 3863, 4434, 4793, 4793, 4753, 4753, 603, 571, 571, 630, 698, 707}},
	{name: "enable-fused-moe-sum-all-reduce", arity: noValue, kind: refused, what: whatKernels, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5684, 5684, 6356, 6807, 6807, 6917, 6917, 2024, 1509, 1509, 1631, 1930, 1986}},
	{name: "enable-fused-qk-norm-rope", arity: noValue, kind: ignored, at: lines{0, 3803, 3803, 4190, 4453, 4453, 4784, 4784, 5674, 5674, 6346, 6797, 6797, 6907, 6907, 2016, 1501, 1501, 1623, 1920, 1976}},
	{name: "enable-gdn-replayssm-spec", arity: noValue, kind: refused, what: whatReplaySSM, redest: &destSpan{from: "v0.5.17", dest: "enable_linear_replayssm_spec"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2195, 8404, 8862}},
	{name: "enable-hierarchical-cache", arity: noValue, kind: refused, what: whatHiCache, at: lines{1518, 3303, 3303, 3685, 3923, 3923, 4254, 4254, 5118, 5118, 5789, 6229, 6229, 6272, 6272, 1775, 1991, 1991, 2203, 2597, 2668}},
	{name: "enable-hisparse", arity: noValue, kind: refused, what: whatHiSparse, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5187, 5187, 5867, 6307, 6307, 6350, 6350, 1842, 2059, 2059, 2271, 2676, 2747}},
	{name: "enable-http2", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4387, 4746, 4746, 4706, 4706, 537, 986, 986, 1094, 1276, 1325}},
	{name: "enable-int8-mamba-checkpoint", arity: noValue, kind: refused, what: whatMamba, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1742, 1941, 1941, 2143, 2521, 2593}},
	{name: "enable-layerwise-nvtx-marker", arity: noValue, kind: ignored, at: lines{0, 3541, 3541, 3923, 4178, 4178, 4509, 4509, 5372, 5372, 6031, 6472, 6472, 6551, 6551, 1987, 1472, 1472, 1594, 1881, 1937}},
	{name: "enable-linear-replayssm", arity: noValue, kind: refused, what: whatReplaySSM, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1972, 1972, 2174, 2565, 2637}},
	{name: "enable-linear-replayssm-spec", arity: noValue, kind: refused, what: whatReplaySSM, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2588, 2659}},
	{name: "enable-lmcache", arity: noValue, kind: refused, what: whatHiCache, at: lines{0, 3371, 3371, 3753, 4008, 4008, 4339, 4339, 5202, 5202, 5882, 6323, 6323, 6366, 6366, 1854, 2221, 2221, 2439, 2892, 3010}},
	{name: "enable-lora", arity: noValue, kind: refused, what: whatLora, at: lines{0, 2872, 2872, 3221, 3439, 3439, 3758, 3758, 4578, 4578, 5170, 5584, 5584, 5575, 5575, 1258, 2113, 2113, 2331, 2761, 2879}},
	{name: "enable-lora-overlap-loading", arity: noValue, kind: refused, what: whatLora, at: lines{0, 0, 0, 0, 3445, 3445, 3764, 3764, 4584, 4584, 5176, 5590, 5590, 5581, 5581, 1262, 2117, 2117, 2335, 2766, 2884}},
	{name: "enable-mamba-cache-stochastic-rounding", arity: noValue, kind: refused, what: whatMamba, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1907, 1907, 2106, 2480, 2552}},
	{name: "enable-memory-saver", arity: noValue, kind: refused, what: whatMemSaver, at: lines{1503, 3714, 3714, 4096, 4351, 4351, 4682, 4682, 5560, 5560, 6226, 6667, 6667, 6741, 6741, 2110, 2581, 2581, 2827, 3328, 3478}},
	{name: "enable-metrics", arity: noValue, kind: ignored, at: lines{972, 2615, 2615, 2969, 3171, 3171, 3483, 3483, 4298, 4298, 4876, 5258, 5258, 5224, 5224, 1030, 1156, 1156, 1274, 1492, 1547}},
	{name: "enable-metrics-for-all-schedulers", arity: noValue, kind: ignored, at: lines{0, 2620, 2620, 2974, 3176, 3176, 3488, 3488, 4308, 4308, 4894, 5276, 5276, 5242, 5242, 1038, 1164, 1164, 1285, 1506, 1561}},
	{name: "enable-mfu-metrics", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4303, 4303, 4889, 5271, 5271, 5237, 5237, 1035, 1161, 1161, 1282, 1503, 1558}},
	{name: "enable-mis", arity: noValue, kind: refused, what: whatMIS, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5970, 6411, 6411, 6460, 6460, 2142, 2613, 2613, 2859, 3379, 3529}},
	{name: "enable-mixed-chunk", arity: noValue, kind: ignored, at: lines{1431, 3596, 3596, 3978, 4233, 4233, 4564, 4564, 5432, 5432, 6091, 6532, 6532, 6611, 6611, 788, 791, 791, 863, 967, 981}},
	{name: "enable-mm-global-cache", arity: noValue, kind: refused, what: whatMMCache, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5950, 5950, 6645, 7101, 7101, 7239, 7239, 2428, 2097, 2097, 2309, 2734, 2833}},
	{name: "enable-mscclpp", arity: noValue, kind: refused, what: whatComm, at: lines{1416, 3581, 3581, 3963, 4218, 4218, 4549, 4549, 5412, 5412, 6071, 6512, 6512, 6591, 6591, 2036, 1521, 1521, 1646, 1946, 2002}},
	{name: "enable-multi-layer-eagle", arity: noValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 3510, 3748, 3748, 4070, 4070, 4893, 4893, 5550, 5978, 5978, 6022, 6022, 1540, 1679, 1679, 1842, 2173, 2243}},
	{name: "enable-multimodal", arity: noValue, kind: refused, what: whatMultimodal, at: lines{759, 2209, 2209, 2528, 2673, 2673, 2971, 2971, 3715, 3715, 4278, 4628, 4628, 4588, 4588, 486, 479, 479, 525, 584, 593}},
	{name: "enable-nan-detection", arity: noValue, kind: ignored, at: lines{1468, 3673, 3673, 4055, 4310, 4310, 4641, 4641, 5519, 5519, 6185, 6626, 6626, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "enable-nccl-nvls", arity: noValue, kind: refused, what: whatComm, at: lines{1396, 3546, 3546, 3928, 4183, 4183, 4514, 4514, 5377, 5377, 6036, 6477, 6477, 6556, 6556, 1991, 1476, 1476, 1598, 1886, 1942}},
	{name: "enable-nsa-prefill-context-parallel", arity: noValue, kind: refused, what: whatNSACP, changed: &arityChange{"v0.5.13", noValue, "enable_dsa_prefill_context_parallel"}, at: lines{0, 3798, 3798, 4185, 4440, 4440, 4771, 4771, 5649, 5649, 6321, 6772, 6772, 6869, 6869, 6440, 6325, 6325, 7282, 8397, 8855}},
	{name: "enable-p2p-check", arity: noValue, kind: ignored, at: lines{1473, 3678, 3678, 4060, 4315, 4315, 4646, 4646, 5524, 5524, 6190, 6631, 6631, 6705, 6705, 945, 933, 933, 1010, 1172, 1202}},
	{name: "enable-page-major-kv-layout", arity: noValue, kind: refused, what: whatPageMajor, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 756, 756, 828, 926, 940}},
	{name: "enable-pdmux", arity: noValue, kind: refused, what: whatPDMux, at: lines{0, 3952, 3952, 4388, 4651, 4651, 4976, 4976, 5878, 5878, 6573, 7029, 7029, 7167, 7167, 2305, 2355, 2355, 2601, 3076, 3215}},
	{name: "enable-piecewise-cuda-graph", arity: noValue, kind: refused, what: whatPiecewise, at: lines{0, 3637, 3637, 4019, 4274, 4274, 4605, 4605, 5478, 5478, 6144, 6585, 6585, 6664, 6664, 0, 0, 0, 0, 0, 0}},
	{name: "enable-precise-embedding-interpolation", arity: noValue, kind: ignored, at: lines{0, 0, 0, 4195, 4458, 4458, 4789, 4789, 5679, 5679, 6351, 6802, 6802, 6912, 6912, 2020, 1505, 1505, 1627, 1925, 1981}},
	{name: "enable-prefill-context-parallel", arity: noValue, kind: refused, what: whatAttnCP, redest: &destSpan{from: "v0.5.14", dest: "enable_prefill_context_parallel"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5662, 5662, 6334, 6785, 6785, 6895, 6895, 6447, 6332, 6332, 7289, 8411, 8869}},
	{name: "enable-prefill-cp", arity: noValue, kind: refused, what: whatNSACP, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 902, 884, 884, 956, 1103, 1117}},
	{name: "enable-prefill-delayer", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 2964, 2964, 3262, 3262, 4053, 4053, 4624, 4983, 4983, 4943, 4943, 1218, 2452, 2452, 2698, 3182, 3331}},
	{name: "enable-prefix-mm-cache", arity: noValue, kind: ignored, at: lines{0, 0, 0, 4465, 4728, 4728, 5053, 5053, 5943, 5943, 6638, 7094, 7094, 7232, 7232, 2406, 2075, 2075, 2287, 2694, 2765}},
	{name: "enable-priority-scheduling", arity: noValue, kind: ignored, at: lines{0, 2414, 2414, 2751, 2904, 2904, 3202, 3202, 3981, 3981, 4552, 4911, 4911, 4871, 4871, 718, 693, 693, 752, 835, 844}},
	{name: "enable-profile-cuda-graph", arity: noValue, kind: ignored, at: lines{1391, 3531, 3531, 3913, 4168, 4168, 4499, 4499, 5362, 5362, 6013, 6454, 6454, 6533, 6533, 1972, 1457, 1457, 1579, 1864, 1920}},
	{name: "enable-quant-communications", arity: noValue, kind: refused, what: whatComm, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6660, 7116, 7116, 7254, 7254, 2048, 1533, 1533, 1662, 1966, 2022}},
	{name: "enable-request-time-stats-logging", arity: noValue, kind: ignored, at: lines{1016, 2701, 2701, 3055, 3257, 3257, 3576, 3576, 4396, 4396, 4981, 5363, 5363, 5329, 5329, 1097, 1223, 1223, 1344, 1577, 1632}},
	{name: "enable-return-hidden-states", arity: noValue, kind: refused, what: whatHidden, at: lines{1569, 3764, 3764, 4146, 4401, 4401, 4732, 4732, 5610, 5610, 6282, 6728, 6728, 6802, 6802, 2126, 2597, 2597, 2843, 3348, 3498}},
	{name: "enable-return-indexer-topk", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6738, 6738, 6812, 6812, 2134, 2605, 2605, 2851, 3369, 3519}},
	{name: "enable-return-routed-experts", arity: noValue, kind: refused, what: whatRouted, at: lines{0, 0, 0, 4151, 4406, 4406, 4737, 4737, 5615, 5615, 6287, 6733, 6733, 6807, 6807, 2130, 2601, 2601, 2847, 3364, 3514}},
	{name: "enable-scattered-sconv", arity: noValue, kind: refused, what: whatScatteredSconv, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1654, 1956, 2012}},
	{name: "enable-session-radix-cache", arity: noValue, kind: refused, what: whatSessionCache, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1107, 1107, 1225, 1433, 1488}},
	{name: "enable-single-batch-overlap", arity: noValue, kind: refused, what: whatTBO, at: lines{0, 3616, 3616, 3998, 4253, 4253, 4584, 4584, 5452, 5452, 6118, 6559, 6559, 6638, 6638, 2079, 2197, 2197, 2415, 2861, 2979}},
	{name: "enable-ssl-refresh", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 3817, 3817, 4380, 4739, 4739, 4699, 4699, 551, 1000, 1000, 1108, 1295, 1350}},
	{name: "enable-streaming-session", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4156, 4156, 4734, 5116, 5116, 5076, 5076, 969, 1103, 1103, 1221, 1428, 1483}},
	{name: "enable-strict-thinking", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5494, 5494, 5467, 5467, 1179, 1048, 1048, 1166, 1364, 1419}},
	{name: "enable-symm-mem", arity: noValue, kind: refused, what: whatComm, at: lines{0, 3551, 3551, 3933, 4188, 4188, 4519, 4519, 5382, 5382, 6041, 6482, 6482, 6561, 6561, 1995, 1480, 1480, 1602, 1891, 1947}},
	{name: "enable-tf32-matmul", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 620, 620, 679, 753, 762}},
	{name: "enable-tokenizer-batch-encode", arity: noValue, kind: ignored, at: lines{1401, 3561, 3561, 3943, 4198, 4198, 4529, 4529, 5392, 5392, 6051, 6492, 6492, 6571, 6571, 2193, 2551, 2551, 2797, 3295, 3445}},
	{name: "enable-torch-compile", arity: noValue, kind: refused, what: whatCompile, at: lines{1451, 3627, 3627, 4009, 4264, 4264, 4595, 4595, 5463, 5463, 6129, 6570, 6570, 6649, 6649, 2091, 1564, 1564, 1696, 2004, 2060}},
	{name: "enable-torch-compile-debug-mode", arity: noValue, kind: ignored, at: lines{0, 3632, 3632, 4014, 4269, 4269, 4600, 4600, 5468, 5468, 6134, 6575, 6575, 6654, 6654, 2095, 1568, 1568, 1700, 2009, 2065}},
	{name: "enable-torch-symm-mem", arity: noValue, kind: refused, what: whatComm, at: lines{0, 3586, 3586, 3968, 4223, 4223, 4554, 4554, 5417, 5417, 6076, 6517, 6517, 6596, 6596, 2040, 1525, 1525, 1650, 1951, 2007}},
	{name: "enable-tp-lm-head-all-to-all", arity: noValue, kind: refused, what: whatTPLMHeadA2A, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1169}},
	{name: "enable-trace", arity: noValue, kind: ignored, at: lines{0, 2713, 2713, 3067, 3269, 3269, 3588, 3588, 4408, 4408, 4993, 5394, 5394, 5360, 5360, 1110, 1236, 1236, 1357, 1596, 1651}},
	{name: "enable-triton-kernel-moe", arity: noValue, kind: refused, what: whatKernels, at: lines{1574, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "enable-two-batch-overlap", arity: noValue, kind: refused, what: whatTBO, at: lines{1446, 3611, 3611, 3993, 4248, 4248, 4579, 4579, 5447, 5447, 6113, 6554, 6554, 6633, 6633, 2078, 2196, 2196, 2414, 2858, 2976}},
	{name: "enable-unified-memory", arity: noValue, kind: refused, what: whatUnifiedPool, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 764, 764, 836, 935, 949}},
	{name: "enable-waterfill", arity: noValue, kind: refused, what: whatA2a, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2038, 2395, 2467}},
	{name: "enable-weights-cpu-backup", arity: noValue, kind: refused, what: whatHostCopy, at: lines{0, 3719, 3719, 4101, 4356, 4356, 4687, 4687, 5565, 5565, 6231, 6672, 6672, 6746, 6746, 2114, 2585, 2585, 2831, 3333, 3483}},
	{name: "encoder-bootstrap-port", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7065, 7065, 2289, 2339, 2339, 2585, 3057, 3196}},
	{name: "encoder-only", arity: noValue, kind: refused, what: whatEPD, at: lines{0, 0, 0, 4318, 4581, 4581, 4906, 4906, 5789, 5789, 6470, 6921, 6921, 7041, 7041, 2270, 2320, 2320, 2566, 3040, 3171}},
	{name: "encoder-register-urls", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7073, 7073, 2293, 2343, 2343, 2589, 3062, 3201}},
	{name: "encoder-transfer-backend", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 4328, 4591, 4591, 4916, 4916, 5799, 5799, 6480, 6931, 6931, 7051, 7051, 2278, 2328, 2328, 2574, 3046, 3185}},
	{name: "encoder-urls", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 4335, 4598, 4598, 4923, 4923, 5806, 5806, 6487, 6938, 6938, 7058, 7058, 2285, 2335, 2335, 2581, 3054, 3193}},
	{name: "enforce-disable-flashinfer-allreduce-fusion", arity: noValue, kind: modelled, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4934, 4934, 5599, 6027, 6027, 6063, 6063, 2053, 1538, 1538, 1667, 1974, 2030}},
	{name: "enforce-piecewise-cuda-graph", arity: noValue, kind: refused, what: whatPiecewiseForced, redest: &destSpan{from: "v0.5.14", dest: "cuda_graph_backend_prefill"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5483, 5483, 6149, 6590, 6590, 6669, 6669, 6397, 6282, 6282, 7239, 8354, 8812}},
	{name: "enforce-shared-experts-fusion", arity: noValue, kind: refused, what: whatSharedFusion, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6261, 6707, 6707, 6781, 6781, 1709, 1889, 1889, 2088, 2452, 2524}},
	{name: "engine-info-bootstrap-port", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5863, 5863, 6558, 7014, 7014, 7152, 7152, 2364, 2414, 2414, 2660, 3141, 3290}},
	{name: "ep", of: "expert-parallel-size", arity: oneValue, kind: refused, what: whatEP, neutral: []string{"1"}, alias: &aliasSpan{from: "v0.5.14", of: "ep-size"}, at: lines{0, 3148, 3148, 3517, 3755, 3755, 4077, 4077, 4900, 4900, 5557, 5985, 5985, 6029, 6029, 1594, 1765, 1765, 1928, 2268, 2338}},
	{name: "ep-dispatch-algorithm", arity: oneValue, kind: ignored, at: lines{1261, 3195, 3195, 3564, 3802, 3802, 4124, 4124, 4957, 4957, 5622, 6050, 6050, 6093, 6093, 1640, 1814, 1814, 1982, 2330, 2400}},
	{name: "ep-num-redundant-experts", arity: oneValue, kind: refused, what: whatEplb, neutral: []string{"0"}, at: lines{1255, 3189, 3189, 3558, 3796, 3796, 4118, 4118, 4951, 4951, 5616, 6044, 6044, 6087, 6087, 1636, 1810, 1810, 1978, 2325, 2395}},
	{name: "ep-size", of: "expert-parallel-size", arity: oneValue, kind: refused, what: whatEP, neutral: []string{"1"}, alias: &aliasSpan{from: "v0.5.14", of: ""}, at: lines{1221, 3148, 3148, 3517, 3755, 3755, 4077, 4077, 4900, 4900, 5557, 5985, 5985, 6029, 6029, 1594, 1765, 1765, 1928, 2268, 2338}},
	{name: "eplb-algorithm", arity: oneValue, kind: ignored, at: lines{1278, 3212, 3212, 3581, 3819, 3819, 4141, 4141, 4974, 4974, 5639, 6067, 6067, 6110, 6110, 1646, 1820, 1820, 1988, 2339, 2409}},
	{name: "eplb-min-rebalancing-utilization-threshold", arity: oneValue, kind: ignored, at: lines{0, 3230, 3230, 3599, 3837, 3837, 4159, 4159, 4992, 4992, 5657, 6085, 6085, 6128, 6128, 1655, 1829, 1829, 1997, 2348, 2418}},
	{name: "eplb-rebalance-layers-per-chunk", arity: oneValue, kind: ignored, at: lines{1290, 3224, 3224, 3593, 3831, 3831, 4153, 4153, 4986, 4986, 5651, 6079, 6079, 6122, 6122, 1651, 1825, 1825, 1993, 2345, 2415}},
	{name: "eplb-rebalance-num-iterations", arity: oneValue, kind: ignored, at: lines{1284, 3218, 3218, 3587, 3825, 3825, 4147, 4147, 4980, 4980, 5645, 6073, 6073, 6116, 6116, 1647, 1821, 1821, 1989, 2340, 2410}},
	{name: "expert-balancedness-report-mode", arity: oneValue, kind: refused, what: whatBalancedness, neutral: []string{"off"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2433}},
	{name: "expert-distribution-recorder-buffer-size", arity: oneValue, kind: refused, what: whatRecorder, at: lines{1302, 3242, 3242, 3611, 3849, 3849, 4171, 4171, 5004, 5004, 5669, 6097, 6097, 6140, 6140, 1663, 1837, 1837, 2005, 2358, 2428}},
	{name: "expert-distribution-recorder-mode", arity: oneValue, kind: refused, what: whatRecorder, at: lines{1296, 3236, 3236, 3605, 3843, 3843, 4165, 4165, 4998, 4998, 5663, 6091, 6091, 6134, 6134, 1659, 1833, 1833, 2001, 2353, 2423}},
	{name: "expert-parallel-size", arity: oneValue, kind: refused, what: whatEP, neutral: []string{"1"}, alias: &aliasSpan{from: "v0.5.14", of: "ep-size"}, at: lines{1221, 3148, 3148, 3517, 3755, 3755, 4077, 4077, 4900, 4900, 5557, 5985, 5985, 6029, 6029, 1594, 1765, 1765, 1928, 2268, 2338}},
	{name: "experts-shared-outer-loras", arity: noValue, kind: refused, what: whatLora, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4647, 4647, 5239, 5653, 5653, 5644, 5644, 1315, 2170, 2170, 2388, 2828, 2946}},
	{name: "export-metrics-to-file", arity: noValue, kind: ignored, at: lines{0, 2726, 2726, 3080, 3282, 3282, 3601, 3601, 4421, 4421, 5006, 5407, 5407, 5380, 5380, 1120, 1246, 1246, 1367, 1608, 1663}},
	{name: "export-metrics-to-file-dir", arity: oneValue, kind: ignored, at: lines{0, 2731, 2731, 3085, 3287, 3287, 3606, 3606, 4426, 4426, 5011, 5412, 5412, 5385, 5385, 1124, 1250, 1250, 1371, 1613, 1668}},
	{name: "extra-metric-labels", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 3510, 3510, 4330, 4330, 4916, 5298, 5298, 5264, 5264, 1054, 1180, 1180, 1301, 1526, 1581}},
	{name: "fastapi-root-path", arity: oneValue, kind: ignored, at: lines{0, 2250, 2250, 2569, 2714, 2714, 3012, 3012, 3756, 3756, 4319, 4678, 4678, 4638, 4638, 530, 979, 979, 1056, 1230, 1279}},
	{name: "file-storage-path", arity: oneValue, kind: ignored, at: lines{1030, 2769, 2769, 3123, 3341, 3341, 3660, 3660, 4480, 4480, 5065, 5466, 5466, 5439, 5439, 1167, 1036, 1036, 1144, 1339, 1394}},
	{name: "flashinfer-allreduce-fusion-backend", arity: oneValue, kind: refused, what: whatComm, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2057, 1542, 1542, 1671, 1977, 2033}},
	{name: "flashinfer-autotune-skip-ops", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1775, 1831}},
	{name: "flashinfer-mla-disable-ragged", arity: noValue, kind: ignored, at: lines{1549, 3739, 3739, 4121, 4376, 4376, 4707, 4707, 5585, 5585, 6251, 6692, 6692, 6766, 6766, 2012, 1497, 1497, 1619, 1915, 1971}},
	{name: "flashinfer-mxfp4-moe-precision", arity: oneValue, kind: refused, what: whatKernels, neutral: []string{"default"}, at: lines{0, 3170, 3170, 3539, 3777, 3777, 4099, 4099, 4922, 4922, 5587, 6015, 6015, 6051, 6051, 1624, 1798, 1798, 1962, 2305, 2375}},
	{name: "flexkv-config-file", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2460, 2914, 3032}},
	{name: "forward-hooks", arity: oneValue, kind: refused, what: whatPlugin, at: lines{0, 4018, 4018, 4473, 4736, 4736, 5061, 5061, 5958, 5958, 6653, 7109, 7109, 7247, 7247, 2444, 2621, 2621, 2867, 3421, 3571}},
	{name: "forward-pass-metrics-ipc-name", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5388, 5388, 5354, 5354, 1109, 1235, 1235, 1356, 1593, 1648}},
	{name: "forward-pass-metrics-worker-id", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5382, 5382, 5348, 5348, 1108, 1234, 1234, 1355, 1590, 1645}},
	{name: "fp4-gemm-backend", arity: oneValue, kind: ignored, dest: "fp4_gemm_runner_backend", at: lines{0, 0, 0, 0, 3580, 3580, 3902, 3902, 4738, 4738, 5343, 5763, 5763, 5797, 5797, 1405, 1345, 1345, 1467, 1720, 1775}},
	{name: "fp8-gemm-backend", arity: oneValue, kind: ignored, dest: "fp8_gemm_runner_backend", at: lines{0, 2991, 2991, 3340, 3564, 3564, 3885, 3885, 4722, 4722, 5327, 5747, 5747, 5781, 5781, 1397, 1337, 1337, 1458, 1710, 1765}},
	{name: "fuseep-mode", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1970, 2315, 2385}},
	{name: "gc-threshold", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5689, 5689, 6361, 6812, 6812, 6922, 6922, 824, 969, 969, 1046, 1219, 1268}},
	{name: "gc-warning-threshold-secs", arity: oneValue, kind: ignored, at: lines{0, 2689, 2689, 3043, 3245, 3245, 3564, 3564, 4384, 4384, 4969, 5351, 5351, 5317, 5317, 1089, 1215, 1215, 1336, 1567, 1622}},
	{name: "generation-tokens-buckets", arity: manyValues, kind: ignored, at: lines{0, 2682, 2682, 3036, 3238, 3238, 3557, 3557, 4377, 4377, 4962, 5344, 5344, 5310, 5310, 1081, 1207, 1207, 1328, 1558, 1613}},
	{name: "gpu-id-step", arity: oneValue, kind: ignored, at: lines{924, 2561, 2561, 2910, 3095, 3095, 3407, 3407, 4217, 4217, 4795, 5177, 5177, 5137, 5137, 804, 949, 949, 1026, 1191, 1221}},
	{name: "grammar-backend", arity: oneValue, kind: ignored, at: lines{1156, 2965, 2965, 3314, 3538, 3538, 3857, 3857, 4686, 4686, 5291, 5711, 5711, 5702, 5702, 1369, 1309, 1309, 1430, 1679, 1734}},
	{name: "grpc-http-sidecar-port", arity: oneValue, kind: ignored, alias: &aliasSpan{from: "v0.5.16", of: "smg-http-sidecar-port"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4881, 5263, 5263, 5229, 5229, 1031, 1157, 1157, 1275, 1495, 1550}},
	{name: "grpc-mode", arity: noValue, kind: ignored, at: lines{0, 2256, 2256, 2575, 2720, 2720, 3018, 3018, 3762, 3762, 4325, 4684, 4684, 4644, 4644, 531, 980, 980, 1062, 1239, 1288}},
	{name: "grpc-port", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1066, 1244, 1293}},
	{name: "hf-chat-template-name", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 3328, 3328, 3647, 3647, 4467, 4467, 5052, 5453, 5453, 5426, 5426, 1159, 1028, 1028, 1136, 1329, 1384}},
	{name: "hicache-io-backend", arity: oneValue, kind: refused, what: whatHiCache, at: lines{1542, 3327, 3327, 3709, 3947, 3947, 4278, 4278, 5142, 5142, 5813, 6253, 6253, 6296, 6296, 1791, 2007, 2007, 2219, 2618, 2689}},
	{name: "hicache-mem-layout", arity: oneValue, kind: refused, what: whatHiCache, at: lines{0, 3334, 3334, 3716, 3954, 3954, 4285, 4285, 5149, 5149, 5820, 6260, 6260, 6303, 6303, 1798, 2014, 2014, 2226, 2626, 2697}},
	{name: "hicache-ratio", arity: oneValue, kind: refused, what: whatHiCache, at: lines{1523, 3308, 3308, 3690, 3928, 3928, 4259, 4259, 5123, 5123, 5794, 6234, 6234, 6277, 6277, 1776, 1992, 1992, 2204, 2600, 2671}},
	{name: "hicache-size", arity: oneValue, kind: refused, what: whatHiCache, at: lines{1529, 3314, 3314, 3696, 3934, 3934, 4265, 4265, 5129, 5129, 5800, 6240, 6240, 6283, 6283, 1780, 1996, 1996, 2208, 2605, 2676}},
	{name: "hicache-storage-backend", arity: oneValue, kind: refused, what: whatHiCache, at: lines{0, 3347, 3347, 3729, 3972, 3972, 4303, 4303, 5162, 5162, 5833, 6273, 6273, 6316, 6316, 1811, 2027, 2027, 2239, 2640, 2711}},
	{name: "hicache-storage-backend-extra-config", arity: oneValue, kind: refused, what: whatHiCache, at: lines{0, 3364, 3364, 3746, 3989, 3989, 4320, 4320, 5179, 5179, 5859, 6299, 6299, 6342, 6342, 1834, 2051, 2051, 2263, 2667, 2738}},
	{name: "hicache-storage-prefetch-policy", arity: oneValue, kind: refused, what: whatHiCache, at: lines{0, 3357, 3357, 3739, 3982, 3982, 4313, 4313, 5172, 5172, 5852, 6292, 6292, 6335, 6335, 1827, 2044, 2044, 2256, 2659, 2730}},
	{name: "hicache-write-policy", arity: oneValue, kind: refused, what: whatHiCache, at: lines{1535, 3320, 3320, 3702, 3940, 3940, 4271, 4271, 5135, 5135, 5806, 6246, 6246, 6289, 6289, 1784, 2000, 2000, 2212, 2610, 2681}},
	{name: "hierarchical-sparse-attention-extra-config", arity: oneValue, kind: refused, what: whatHiSparse, changed: &arityChange{"v0.5.12", oneValue, "hisparse_config"}, alias: &aliasSpan{from: "v0.5.12", of: "hisparse-config"}, redest: &destSpan{from: "v0.5.14", dest: ""}, at: lines{0, 0, 0, 0, 3997, 3997, 4328, 4328, 0, 0, 0, 6312, 6312, 6355, 6355, 1843, 2060, 2060, 2272, 2679, 2750}},
	{name: "hisparse-config", arity: oneValue, kind: refused, what: whatHiSparse, changed: &arityChange{"v0.5.12", oneValue, "hisparse_config"}, redest: &destSpan{from: "v0.5.14", dest: ""}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5193, 5193, 5873, 6312, 6312, 6355, 6355, 1843, 2060, 2060, 2272, 2679, 2750}},
	{name: "host", arity: oneValue, kind: ignored, at: lines{589, 2238, 2238, 2557, 2702, 2702, 3000, 3000, 3744, 3744, 4307, 4666, 4666, 4626, 4626, 528, 977, 977, 1054, 1228, 1277}},
	{name: "http2-max-concurrent-streams", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1330}},
	{name: "hybrid-kvcache-ratio", arity: optValue, kind: refused, what: whatHybridRatio, changed: &arityChange{"v0.5.8", noValue, ""}, at: lines{843, 2450, 2450, 2787, 2940, 2940, 3238, 3238, 4029, 4029, 4600, 4959, 4959, 4919, 4919, 0, 0, 0, 0, 0, 0}},
	{name: "image-processor-backend", arity: oneValue, kind: refused, what: whatImageProcessor, neutral: []string{"auto"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2838}},
	{name: "impl", arity: oneValue, kind: refused, what: whatImpl, neutral: []string{"auto"}, next: "model-impl", at: lines{773, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "incremental-streaming-output", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4138, 4138, 4716, 5098, 5098, 5058, 5058, 965, 1099, 1099, 1217, 1425, 1480}},
	{name: "init-expert-location", arity: oneValue, kind: ignored, at: lines{1267, 3201, 3201, 3570, 3808, 3808, 4130, 4130, 4963, 4963, 5628, 6056, 6056, 6099, 6099, 1644, 1818, 1818, 1986, 2335, 2405}},
	{name: "int8-mamba-ckpt-size", arity: oneValue, kind: refused, what: whatMamba, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1746, 1945, 1945, 2147, 2526, 2598}},
	{name: "is-embedding", arity: noValue, kind: refused, what: whatRunner, at: lines{754, 2204, 2204, 2523, 2668, 2668, 2966, 2966, 3710, 3710, 4273, 4618, 4618, 4578, 4578, 485, 478, 478, 524, 581, 590}},
	{name: "json-model-override-args", arity: oneValue, kind: refused, what: whatConfig, at: lines{1097, 2859, 2859, 3208, 3426, 3426, 3745, 3745, 4565, 4565, 5157, 5571, 5571, 5562, 5562, 520, 513, 513, 559, 622, 631}},
	{name: "keep-mm-feature-on-device", arity: noValue, kind: refused, what: whatMMDevice, at: lines{0, 3759, 3759, 4141, 4396, 4396, 4727, 4727, 5605, 5605, 6277, 6723, 6723, 6797, 6797, 2436, 2105, 2105, 2322, 2751, 2869}},
	{name: "kt-cpuinfer", arity: oneValue, kind: refused, what: whatKT, at: lines{0, 3389, 3389, 3771, 4026, 4026, 4357, 4357, 5220, 5220, 5900, 6341, 6341, 6390, 6390, 1874, 2241, 2241, 2480, 2937, 3055}},
	{name: "kt-max-deferred-experts-per-token", arity: oneValue, kind: refused, what: whatKT, at: lines{0, 3405, 3405, 3787, 4042, 4042, 4373, 4373, 5236, 5236, 5916, 6357, 6357, 6406, 6406, 1886, 2253, 2253, 2492, 2952, 3070}},
	{name: "kt-method", arity: oneValue, kind: refused, what: whatKT, at: lines{0, 3383, 3383, 3765, 4020, 4020, 4351, 4351, 5214, 5214, 5894, 6335, 6335, 6384, 6384, 1870, 2237, 2237, 2476, 2932, 3050}},
	{name: "kt-num-gpu-experts", arity: oneValue, kind: refused, what: whatKT, at: lines{0, 3400, 3400, 3782, 4037, 4037, 4368, 4368, 5231, 5231, 5911, 6352, 6352, 6401, 6401, 1882, 2249, 2249, 2488, 2947, 3065}},
	{name: "kt-threadpool-count", arity: oneValue, kind: refused, what: whatKT, at: lines{0, 3394, 3394, 3776, 4031, 4031, 4362, 4362, 5225, 5225, 5905, 6346, 6346, 6395, 6395, 1878, 2245, 2245, 2484, 2942, 3060}},
	{name: "kt-weight-path", arity: oneValue, kind: refused, what: whatKT, at: lines{0, 3378, 3378, 3760, 4015, 4015, 4346, 4346, 5209, 5209, 5889, 6330, 6330, 6379, 6379, 1866, 2233, 2233, 2472, 2927, 3045}},
	{name: "kv-cache-dtype", arity: oneValue, kind: modelled, at: lines{685, 2317, 2317, 2636, 2781, 2781, 3079, 3079, 3856, 3856, 4427, 4786, 4786, 4746, 4746, 591, 558, 558, 604, 671, 680}},
	{name: "kv-canary", arity: oneValue, kind: refused, what: whatKVCanary, neutral: []string{"none"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6476, 6476, 2165, 2523, 2523, 2769, 3264, 3414}},
	{name: "kv-canary-real-data", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6488, 6488, 6283, 6168, 6168, 7125, 8240, 8685}},
	{name: "kv-canary-sweep-interval", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6500, 6500, 2173, 2531, 2531, 2777, 3273, 3423}},
	{name: "kv-events-config", arity: oneValue, kind: ignored, at: lines{1004, 2707, 2707, 3061, 3263, 3263, 3582, 3582, 4402, 4402, 4987, 5369, 5369, 5335, 5335, 1100, 1226, 1226, 1347, 1580, 1635}},
	{name: "language-model-only", arity: noValue, kind: refused, what: whatLMOnly, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3177}},
	{name: "language-only", arity: noValue, kind: refused, what: whatEPD, at: lines{0, 0, 0, 4323, 4586, 4586, 4911, 4911, 5794, 5794, 6475, 6926, 6926, 7046, 7046, 2274, 2324, 2324, 2570, 3043, 3174}},
	{name: "limit-mm-data-per-request", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 4444, 4707, 4707, 5032, 5032, 5922, 5922, 6617, 7073, 7073, 7211, 7211, 2421, 2090, 2090, 2302, 2726, 2825}},
	{name: "linear-attn-backend", arity: oneValue, kind: refused, what: whatLinearAttn, neutral: []string{"triton"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5091, 5091, 5762, 6202, 6202, 6245, 6245, 1750, 1949, 1949, 2151, 2531, 2603}},
	{name: "linear-attn-decode-backend", arity: oneValue, kind: refused, what: whatLinearAttn, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5100, 5100, 5771, 6211, 6211, 6254, 6254, 1757, 1956, 1956, 2158, 2539, 2611}},
	{name: "linear-attn-prefill-backend", arity: oneValue, kind: refused, what: whatLinearAttn, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5108, 5108, 5779, 6219, 6219, 6262, 6262, 1764, 1963, 1963, 2165, 2547, 2619}},
	{name: "linear-attn-verify-backend", arity: oneValue, kind: refused, what: whatLinearAttn, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2555, 2627}},
	{name: "linear-replayssm-cache-len", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1983, 1983, 2185, 2577, 2648}},
	{name: "lmcache-config-file", arity: oneValue, kind: refused, what: whatHiCache, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6371, 6371, 1858, 2225, 2225, 2443, 2897, 3015}},
	{name: "load-balance-method", arity: oneValue, kind: ignored, at: lines{1071, 2820, 2820, 3174, 3392, 3392, 3711, 3711, 4531, 4531, 5123, 5537, 5537, 5528, 5528, 875, 849, 849, 921, 1036, 1050}},
	{name: "load-format", arity: oneValue, kind: refused, what: whatLoadFormat, neutral: []string{"auto"}, at: lines{626, 2158, 2158, 2483, 2628, 2628, 2926, 2926, 3669, 3669, 4232, 4577, 4577, 4537, 4537, 447, 440, 440, 486, 522, 531}},
	{name: "load-snapshot-publish-interval", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5148, 5148, 1042, 1168, 1168, 1289, 1511, 1566}},
	{name: "load-watch-interval", arity: oneValue, kind: ignored, at: lines{0, 2831, 2831, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "log-level", arity: oneValue, kind: ignored, at: lines{937, 2580, 2580, 2927, 3112, 3112, 3424, 3424, 4239, 4239, 4817, 5199, 5199, 5165, 5165, 989, 1115, 1115, 1233, 1442, 1497}},
	{name: "log-level-http", arity: oneValue, kind: ignored, at: lines{943, 2586, 2586, 2933, 3118, 3118, 3430, 3430, 4245, 4245, 4823, 5205, 5205, 5171, 5171, 990, 1116, 1116, 1234, 1443, 1498}},
	{name: "log-requests", arity: noValue, kind: ignored, at: lines{949, 2592, 2592, 2939, 3124, 3124, 3436, 3436, 4251, 4251, 4829, 5211, 5211, 5177, 5177, 994, 1120, 1120, 1238, 1448, 1503}},
	{name: "log-requests-format", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 2951, 3136, 3136, 3448, 3448, 4263, 4263, 4841, 5223, 5223, 5189, 5189, 1005, 1131, 1131, 1249, 1461, 1516}},
	{name: "log-requests-level", arity: oneValue, kind: ignored, at: lines{954, 2597, 2597, 2944, 3129, 3129, 3441, 3441, 4256, 4256, 4834, 5216, 5216, 5182, 5182, 998, 1124, 1124, 1242, 1453, 1508}},
	{name: "log-requests-target", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 0, 3143, 3143, 3455, 3455, 4270, 4270, 4848, 5230, 5230, 5196, 5196, 1012, 1138, 1138, 1256, 1469, 1524}},
	{name: "lora-backend", arity: oneValue, kind: ignored, at: lines{1124, 2921, 2921, 3270, 3494, 3494, 3813, 3813, 4633, 4633, 5225, 5639, 5639, 5630, 5630, 1301, 2156, 2156, 2374, 2812, 2930}},
	{name: "lora-drain-wait-threshold", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5675, 5675, 5666, 5666, 1333, 2188, 2188, 2406, 2849, 2967}},
	{name: "lora-eviction-policy", arity: oneValue, kind: ignored, at: lines{0, 2914, 2914, 3263, 3487, 3487, 3806, 3806, 4626, 4626, 5218, 5632, 5632, 5623, 5623, 1294, 2149, 2149, 2367, 2804, 2922}},
	{name: "lora-paths", arity: manyValues, kind: refused, what: whatLora, at: lines{1110, 2894, 2894, 3243, 3467, 3467, 3786, 3786, 4606, 4606, 5198, 5612, 5612, 5603, 5603, 1278, 2133, 2133, 2351, 2785, 2903}},
	{name: "lora-strict-loading", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5254, 5668, 5668, 5659, 5659, 1326, 2181, 2181, 2399, 2841, 2959}},
	{name: "lora-target-modules", arity: manyValues, kind: refused, what: whatLora, at: lines{0, 2884, 2884, 3233, 3457, 3457, 3776, 3776, 4596, 4596, 5188, 5602, 5602, 5593, 5593, 1270, 2125, 2125, 2343, 2776, 2894}},
	{name: "lora-use-virtual-experts", arity: noValue, kind: refused, what: whatLora, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5248, 5662, 5662, 5653, 5653, 1322, 2177, 2177, 2395, 2836, 2954}},
	{name: "mamba-backend", arity: oneValue, kind: refused, what: whatMamba, neutral: []string{"triton"}, at: lines{0, 0, 0, 0, 0, 0, 4244, 4244, 5083, 5083, 5754, 6194, 6194, 6237, 6237, 1435, 1392, 1392, 1514, 1787, 1843}},
	{name: "mamba-cache-philox-rounds", arity: oneValue, kind: refused, what: whatMamba, neutral: []string{"0"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1911, 1911, 2110, 2485, 2557}},
	{name: "mamba-full-memory-ratio", arity: oneValue, kind: modelled, at: lines{0, 3295, 3295, 3664, 3902, 3902, 4225, 4225, 5064, 5064, 5735, 6175, 6175, 6218, 6218, 1727, 1915, 1915, 2114, 2490, 2562}},
	{name: "mamba-max-states-per-path", arity: oneValue, kind: refused, what: whatMamba, neutral: []string{"-1"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2472, 2544}},
	{name: "mamba-radix-cache-strategy", arity: oneValue, kind: modelled, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1731, 1919, 1919, 2121, 2498, 2570}},
	{name: "mamba-scheduler-strategy", arity: oneValue, kind: refused, what: whatMamba, redest: &destSpan{from: "v0.5.14", dest: "mamba_radix_cache_strategy"}, at: lines{0, 0, 0, 3670, 3908, 3908, 4231, 4231, 5070, 5070, 5741, 6181, 6181, 6224, 6224, 6349, 6234, 6234, 7191, 8306, 8764}},
	{name: "mamba-ssm-dtype", arity: oneValue, kind: modelled, at: lines{0, 3288, 3288, 3657, 3895, 3895, 4217, 4217, 5056, 5056, 5727, 6167, 6167, 6210, 6210, 1720, 1900, 1900, 2099, 2464, 2536}},
	{name: "mamba-track-interval", arity: oneValue, kind: refused, what: whatMamba, at: lines{0, 0, 0, 3677, 3915, 3915, 4238, 4238, 5077, 5077, 5748, 6188, 6188, 6231, 6231, 1738, 1937, 1937, 2139, 2518, 2590}},
	{name: "max-ep-size", arity: oneValue, kind: refused, what: whatEP, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2065, 2426, 2498}},
	{name: "max-loaded-loras", arity: oneValue, kind: refused, what: whatLora, at: lines{0, 2908, 2908, 3257, 3481, 3481, 3800, 3800, 4620, 4620, 5212, 5626, 5626, 5617, 5617, 1286, 2141, 2141, 2359, 2794, 2912}},
	{name: "max-lora-chunk-size", arity: oneValue, kind: refused, what: whatLora, at: lines{0, 2928, 2928, 3277, 3501, 3501, 3820, 3820, 4640, 4640, 5232, 5646, 5646, 5637, 5637, 1308, 2163, 2163, 2381, 2820, 2938}},
	{name: "max-lora-rank", arity: oneValue, kind: refused, what: whatLora, at: lines{0, 2878, 2878, 3227, 3451, 3451, 3770, 3770, 4590, 4590, 5182, 5596, 5596, 5587, 5587, 1266, 2121, 2121, 2339, 2771, 2889}},
	{name: "max-loras-per-batch", arity: oneValue, kind: refused, what: whatLora, at: lines{1118, 2902, 2902, 3251, 3475, 3475, 3794, 3794, 4614, 4614, 5206, 5620, 5620, 5611, 5611, 1290, 2145, 2145, 2363, 2799, 2917}},
	{name: "max-mamba-cache-size", arity: oneValue, kind: modelled, at: lines{0, 3282, 3282, 3651, 3889, 3889, 4211, 4211, 5050, 5050, 5721, 6161, 6161, 6204, 6204, 1717, 1897, 1897, 2096, 2461, 2533}},
	{name: "max-micro-batch-size", arity: oneValue, kind: refused, what: whatMicro, next: "pp-max-micro-batch-size", at: lines{871, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "max-prefill-tokens", arity: oneValue, kind: modelled, at: lines{812, 2401, 2401, 2738, 2883, 2883, 3181, 3181, 3959, 3959, 4530, 4889, 4889, 4849, 4849, 688, 663, 663, 722, 802, 811}},
	{name: "max-queued-requests", arity: oneValue, kind: ignored, at: lines{0, 2382, 2382, 2707, 2852, 2852, 3150, 3150, 3927, 3927, 4498, 4857, 4857, 4817, 4817, 663, 638, 638, 697, 773, 782}},
	{name: "max-running-requests", arity: oneValue, kind: modelled, at: lines{793, 2376, 2376, 2701, 2846, 2846, 3144, 3144, 3921, 3921, 4492, 4851, 4851, 4811, 4811, 660, 635, 635, 694, 770, 779}},
	{name: "max-total-tokens", arity: oneValue, kind: modelled, at: lines{799, 2388, 2388, 2713, 2858, 2858, 3156, 3156, 3933, 3933, 4504, 4863, 4863, 4823, 4823, 667, 642, 642, 701, 778, 787}},
	{name: "media-url-max-file-size-mb", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2804}},
	{name: "mem-fraction-static", arity: oneValue, kind: modelled, at: lines{787, 2370, 2370, 2695, 2840, 2840, 3138, 3138, 3915, 3915, 4486, 4845, 4845, 4805, 4805, 656, 631, 631, 690, 765, 774}},
	{name: "min-free-slots-delay", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2492, 2492, 2738, 3230, 3379}},
	{name: "mlx-enable-sampling", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1227}},
	{name: "mm-attention-backend", arity: oneValue, kind: ignored, refuses: &valueRefusal{"v0.5.10", []string{"flashinfer_cudnn"}, whatCuDNNViT}, at: lines{1212, 2972, 2972, 3321, 3545, 3545, 3864, 3864, 4693, 4693, 5298, 5718, 5718, 5719, 5719, 1380, 1320, 1320, 1441, 1692, 1747}},
	{name: "mm-enable-dp-encoder", arity: noValue, kind: refused, what: whatEncoder, at: lines{0, 4010, 4010, 4438, 4701, 4701, 5026, 5026, 5916, 5916, 6611, 7067, 7067, 7205, 7205, 2410, 2079, 2079, 2291, 2699, 2770}},
	{name: "mm-feature-transport", arity: oneValue, kind: modelled, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2317, 2742, 2858}},
	{name: "mm-global-cache-backend", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2844}},
	{name: "mm-io-worker-num", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2719, 2790}},
	{name: "mm-max-concurrent-calls", arity: oneValue, kind: ignored, at: lines{0, 3978, 3978, 4414, 4677, 4677, 5002, 5002, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "mm-per-request-timeout", arity: oneValue, kind: ignored, at: lines{0, 3984, 3984, 4420, 4683, 4683, 5008, 5008, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "mm-preprocess-cache-size-mb", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2810}},
	{name: "mm-process-config", arity: oneValue, kind: ignored, at: lines{0, 2572, 2572, 4432, 4695, 4695, 5020, 5020, 5910, 5910, 6605, 7061, 7061, 7199, 7199, 2414, 2083, 2083, 2295, 2704, 2775}},
	{name: "mm-processor-worker-num", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2712, 2783}},
	{name: "model", of: "model-path", arity: oneValue, kind: modelled, at: lines{576, 2125, 2125, 2450, 2595, 2595, 2893, 2893, 3636, 3636, 4190, 4529, 4529, 4489, 4489, 417, 410, 410, 456, 483, 492}},
	{name: "model-checksum", arity: optValue, kind: ignored, at: lines{0, 0, 0, 0, 3081, 3081, 3393, 3393, 4203, 4203, 4781, 5163, 5163, 5123, 5123, 2373, 2423, 2423, 2669, 3154, 3303}},
	{name: "model-config-parser", arity: oneValue, kind: refused, what: whatConfig, neutral: []string{"auto"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4655, 4655, 4615, 4615, 509, 502, 502, 548, 610, 619}},
	{name: "model-impl", arity: oneValue, kind: refused, what: whatImpl, neutral: []string{"auto"}, at: lines{0, 2223, 2223, 2542, 2687, 2687, 2985, 2985, 3729, 3729, 4292, 4642, 4642, 4602, 4602, 494, 487, 487, 533, 594, 603}},
	{name: "model-loader-extra-config", arity: oneValue, kind: ignored, at: lines{659, 2180, 2180, 2505, 2650, 2650, 2948, 2948, 3691, 3691, 4254, 4599, 4599, 4559, 4559, 469, 462, 462, 508, 558, 567}},
	{name: "model-path", arity: oneValue, kind: modelled, at: lines{576, 2125, 2125, 2450, 2595, 2595, 2893, 2893, 3636, 3636, 4190, 4529, 4529, 4489, 4489, 417, 410, 410, 456, 483, 492}},
	{name: "modelexpress-config", arity: oneValue, kind: refused, what: whatModelExpress, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5870, 5870, 6565, 7021, 7021, 7159, 7159, 2368, 2418, 2418, 2664, 3146, 3295}},
	{name: "modelopt-checkpoint-restore-path", arity: oneValue, kind: refused, what: whatQuantize, at: lines{0, 2337, 2337, 2656, 2801, 2801, 3099, 3099, 3876, 3876, 4447, 4806, 4806, 4766, 4766, 615, 583, 583, 642, 711, 720}},
	{name: "modelopt-checkpoint-save-path", arity: oneValue, kind: ignored, at: lines{0, 2345, 2345, 2664, 2809, 2809, 3107, 3107, 3884, 3884, 4455, 4814, 4814, 4774, 4774, 623, 591, 591, 650, 720, 729}},
	{name: "modelopt-export-path", arity: oneValue, kind: ignored, at: lines{0, 2352, 2352, 2671, 2816, 2816, 3114, 3114, 3891, 3891, 4462, 4821, 4821, 4781, 4781, 630, 598, 598, 657, 728, 737}},
	{name: "modelopt-quant", arity: oneValue, kind: refused, what: whatQuantize, at: lines{0, 2329, 2329, 2648, 2793, 2793, 3091, 3091, 3868, 3868, 4439, 4798, 4798, 4758, 4758, 606, 574, 574, 633, 701, 710}},
	{name: "moe-a2a-backend", arity: oneValue, kind: refused, what: whatA2a, neutral: []string{"none"}, at: lines{0, 3156, 3156, 3525, 3763, 3763, 4085, 4085, 4908, 4908, 5565, 5993, 5993, 6037, 6037, 1601, 1773, 1773, 1936, 2277, 2347}},
	{name: "moe-data-parallel-size", arity: oneValue, kind: refused, what: whatMoEDP, neutral: []string{"1"}, alias: &aliasSpan{from: "v0.5.14", of: "moe-dp-size"}, at: lines{0, 0, 0, 0, 0, 0, 3315, 3315, 4106, 4106, 4677, 5059, 5059, 5019, 5019, 895, 870, 870, 942, 1059, 1073}},
	{name: "moe-dense-tp-size", arity: oneValue, kind: refused, what: whatEP, at: lines{1319, 3259, 3259, 3628, 3866, 3866, 4188, 4188, 5021, 5021, 5686, 6114, 6114, 6157, 6157, 1675, 1849, 1849, 2017, 2371, 2443}},
	{name: "moe-dp-size", of: "moe-data-parallel-size", arity: oneValue, kind: refused, what: whatMoEDP, neutral: []string{"1"}, alias: &aliasSpan{from: "v0.5.14", of: ""}, at: lines{0, 0, 0, 0, 0, 0, 3315, 3315, 4106, 4106, 4677, 5059, 5059, 5019, 5019, 895, 870, 870, 942, 1059, 1073}},
	{name: "moe-runner-backend", arity: oneValue, kind: refused, what: whatKernels, neutral: []string{"auto"}, at: lines{0, 3163, 3163, 3532, 3770, 3770, 4092, 4092, 4915, 4915, 5572, 6000, 6000, 6044, 6044, 1617, 1790, 1790, 1954, 2296, 2366}},
	{name: "mooncake-ib-device", arity: oneValue, kind: ignored, at: lines{0, 3272, 3272, 3641, 3879, 3879, 4201, 4201, 5040, 5040, 5705, 6133, 6133, 6176, 6176, 1689, 1866, 1866, 2034, 2390, 2462}},
	{name: "msprobe-dump-config", arity: oneValue, kind: refused, what: whatDump, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6668, 7124, 7124, 7262, 7262, 2451, 2628, 2628, 2874, 3429, 3579}},
	{name: "multi-item-scoring-delimiter", arity: oneValue, kind: ignored, at: lines{0, 3496, 3496, 3878, 4133, 4133, 4464, 4464, 5327, 5327, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "nccl-init-addr", of: "dist-init-addr", arity: oneValue, kind: ignored, at: lines{1083, 2845, 2845, 3194, 3412, 3412, 3731, 3731, 4551, 4551, 5143, 5557, 5557, 5548, 5548, 840, 807, 807, 879, 986, 1000}},
	{name: "nccl-port", arity: oneValue, kind: ignored, at: lines{601, 2273, 2273, 2592, 2737, 2737, 3035, 3035, 3779, 3779, 4342, 4701, 4701, 4661, 4661, 832, 799, 799, 871, 976, 990}},
	{name: "nnodes", arity: oneValue, kind: modelled, at: lines{1089, 2851, 2851, 3200, 3418, 3418, 3737, 3737, 4557, 4557, 5149, 5563, 5563, 5554, 5554, 847, 814, 814, 886, 994, 1008}},
	{name: "no-dcp-replicate-q-proj", of: "dcp-replicate-q-proj", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1089, 1103}},
	{name: "no-dllm-fdfo", of: "dllm-fdfo", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2508, 2971, 3089}},
	{name: "no-enable-tp-lm-head-all-to-all", of: "enable-tp-lm-head-all-to-all", arity: noValue, kind: refused, what: whatTPLMHeadA2A, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1169}},
	{name: "no-experts-shared-outer-loras", of: "experts-shared-outer-loras", arity: noValue, kind: refused, what: whatLora, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4647, 4647, 5239, 5653, 5653, 5644, 5644, 1315, 2170, 2170, 2388, 2828, 2946}},
	{name: "no-lora-strict-loading", of: "lora-strict-loading", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5254, 5668, 5668, 5659, 5659, 1326, 2181, 2181, 2399, 2841, 2959}},
	{name: "no-record-nolora-graph", of: "record-nolora-graph", arity: noValue, kind: refused, what: whatNoLoraGraph, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5579, 6007, 6007, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "node-rank", arity: oneValue, kind: ignored, at: lines{1092, 2854, 2854, 3203, 3421, 3421, 3740, 3740, 4560, 4560, 5152, 5566, 5566, 5557, 5557, 848, 815, 815, 887, 995, 1009}},
	{name: "nsa-decode-backend", arity: oneValue, kind: ignored, changed: &arityChange{"v0.5.13", oneValue, "dsa_decode_backend"}, at: lines{0, 2985, 2985, 3334, 3558, 3558, 3878, 3878, 4715, 4715, 5320, 5740, 5740, 5762, 5762, 6331, 6216, 6216, 7173, 8288, 8746}},
	{name: "nsa-prefill-backend", arity: oneValue, kind: ignored, changed: &arityChange{"v0.5.13", oneValue, "dsa_prefill_backend"}, at: lines{0, 2979, 2979, 3328, 3552, 3552, 3871, 3871, 4708, 4708, 5313, 5733, 5733, 5744, 5744, 6321, 6206, 6206, 7163, 8278, 8736}},
	{name: "nsa-prefill-cp-mode", arity: oneValue, kind: ignored, changed: &arityChange{"v0.5.13", oneValue, "dsa_prefill_cp_mode"}, at: lines{0, 0, 0, 0, 4445, 4445, 4776, 4776, 5654, 5654, 6326, 6777, 6777, 6884, 6884, 6468, 6353, 6353, 7310, 8432, 8890}},
	{name: "num-continuous-decode-steps", arity: oneValue, kind: ignored, at: lines{1490, 3701, 3701, 4083, 4338, 4338, 4669, 4669, 5547, 5547, 6213, 6654, 6654, 6728, 6728, 780, 783, 783, 855, 957, 971}},
	{name: "num-reserved-decode-tokens", arity: oneValue, kind: refused, what: whatDisagg, neutral: []string{"512"}, at: lines{1659, 3906, 3906, 4304, 4567, 4567, 4892, 4892, 5775, 5775, 6456, 6907, 6907, 7020, 7020, 2250, 2300, 2300, 2546, 3016, 3147}},
	{name: "numa-node", arity: manyValues, kind: ignored, at: lines{0, 3775, 3775, 4162, 4417, 4417, 4748, 4748, 5626, 5626, 6298, 6749, 6749, 6828, 6828, 820, 965, 965, 1042, 1214, 1263}},
	{name: "offload-group-size", arity: oneValue, kind: refused, what: whatOffload, neutral: []string{"-1"}, at: lines{0, 3470, 3470, 3852, 4107, 4107, 4438, 4438, 5301, 5301, 5944, 6385, 6385, 6434, 6434, 1907, 2210, 2210, 2428, 2878, 2996}},
	{name: "offload-mode", arity: oneValue, kind: refused, what: whatOffload, neutral: []string{"cpu"}, at: lines{0, 3488, 3488, 3870, 4125, 4125, 4456, 4456, 5319, 5319, 5962, 6403, 6403, 6452, 6452, 1913, 2216, 2216, 2434, 2887, 3005}},
	{name: "offload-num-in-group", arity: oneValue, kind: refused, what: whatOffload, neutral: []string{"1"}, at: lines{0, 3476, 3476, 3858, 4113, 4113, 4444, 4444, 5307, 5307, 5950, 6391, 6391, 6440, 6440, 1908, 2211, 2211, 2429, 2881, 2999}},
	{name: "offload-prefetch-step", arity: oneValue, kind: refused, what: whatOffload, neutral: []string{"1"}, at: lines{0, 3482, 3482, 3864, 4119, 4119, 4450, 4450, 5313, 5313, 5956, 6397, 6397, 6446, 6446, 1912, 2215, 2215, 2433, 2884, 3002}},
	{name: "optimistic-prefill-attempts", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2558, 3031, 3162}},
	{name: "optimistic-prefill-retries", arity: oneValue, kind: ignored, next: "optimistic-prefill-attempts", at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7033, 7033, 2262, 2312, 2312, 0, 0, 0}},
	{name: "otlp-traces-endpoint", arity: oneValue, kind: ignored, at: lines{0, 2718, 2718, 3072, 3274, 3274, 3593, 3593, 4413, 4413, 4998, 5399, 5399, 5372, 5372, 1115, 1241, 1241, 1362, 1602, 1657}},
	{name: "page-size", arity: oneValue, kind: modelled, at: lines{837, 2444, 2444, 2781, 2934, 2934, 3232, 3232, 4023, 4023, 4594, 4953, 4953, 4913, 4913, 744, 719, 719, 791, 882, 891}},
	{name: "pdlb-url", arity: oneValue, kind: ignored, at: lines{1665, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "pdmux-config-path", arity: oneValue, kind: refused, what: whatPDMux, at: lines{0, 3957, 3957, 4393, 4656, 4656, 4981, 4981, 5883, 5883, 6578, 7034, 7034, 7172, 7172, 2309, 2359, 2359, 2605, 3079, 3218}},
	{name: "piecewise-cuda-graph-compiler", arity: oneValue, kind: refused, what: whatPiecewise, redest: &destSpan{from: "v0.5.14", dest: "cuda_graph_tc_compiler"}, at: lines{0, 3648, 3648, 4030, 4285, 4285, 4616, 4616, 5494, 5494, 6160, 6601, 6601, 6680, 6680, 6416, 6301, 6301, 7258, 8373, 8831}},
	{name: "piecewise-cuda-graph-max-tokens", arity: oneValue, kind: refused, what: whatPiecewise, redest: &destSpan{from: "v0.5.14", dest: "cuda_graph_max_bs_prefill"}, at: lines{0, 3661, 3661, 4043, 4298, 4298, 4629, 4629, 5507, 5507, 6173, 6614, 6614, 6693, 6693, 6425, 6310, 6310, 7267, 8382, 8840}},
	{name: "piecewise-cuda-graph-tokens", arity: oneValue, kind: refused, what: whatPiecewise, changed: &arityChange{"v0.5.8", manyValues, ""}, redest: &destSpan{from: "v0.5.14", dest: "cuda_graph_bs_prefill"}, at: lines{0, 3642, 3642, 4024, 4279, 4279, 4610, 4610, 5488, 5488, 6154, 6595, 6595, 6674, 6674, 6407, 6292, 6292, 7249, 8364, 8822}},
	{name: "pipeline-parallel-size", arity: oneValue, kind: modelled, alias: &aliasSpan{from: "v0.5.14", of: "pp-size"}, at: lines{864, 2496, 2496, 2833, 3010, 3010, 3322, 3322, 4113, 4113, 4684, 5066, 5066, 5026, 5026, 856, 830, 830, 902, 1012, 1026}},
	{name: "port", arity: oneValue, kind: ignored, at: lines{595, 2244, 2244, 2563, 2708, 2708, 3006, 3006, 3750, 3750, 4313, 4672, 4672, 4632, 4632, 529, 978, 978, 1055, 1229, 1278}},
	{name: "pp-async-batch-depth", arity: oneValue, kind: refused, what: whatMicro, neutral: []string{"0"}, at: lines{0, 0, 0, 2846, 3023, 3023, 3335, 3335, 4126, 4126, 4697, 5079, 5079, 5039, 5039, 867, 841, 841, 913, 1025, 1039}},
	{name: "pp-max-micro-batch-size", arity: oneValue, kind: refused, what: whatMicro, at: lines{0, 2503, 2503, 2840, 3017, 3017, 3329, 3329, 4120, 4120, 4691, 5073, 5073, 5033, 5033, 863, 837, 837, 909, 1020, 1034}},
	{name: "pp-size", of: "pipeline-parallel-size", arity: oneValue, kind: modelled, alias: &aliasSpan{from: "v0.5.14", of: ""}, at: lines{864, 2496, 2496, 2833, 3010, 3010, 3322, 3322, 4113, 4113, 4684, 5066, 5066, 5026, 5026, 856, 830, 830, 902, 1012, 1026}},
	{name: "pre-warm-nccl", arity: noValue, kind: refused, what: whatComm, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5422, 5422, 6081, 6522, 6522, 6601, 6601, 2044, 1529, 1529, 1658, 1961, 2017}},
	{name: "preferred-sampling-params", arity: oneValue, kind: ignored, at: lines{1103, 2865, 2865, 3214, 3432, 3432, 3751, 3751, 4571, 4571, 5163, 5577, 5577, 5568, 5568, 1203, 1072, 1072, 1190, 1393, 1448}},
	{name: "prefill-attention-backend", arity: oneValue, kind: refused, what: whatAttn, at: lines{0, 2944, 2944, 3293, 3517, 3517, 3836, 3836, 4665, 4665, 5270, 5690, 5690, 5681, 5681, 1355, 1293, 1293, 1414, 1661, 1716}},
	{name: "prefill-cp-mode", arity: oneValue, kind: ignored, redest: &destSpan{from: "v0.5.14", dest: "prefill_cp_mode"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 5667, 5667, 6339, 6790, 6790, 6900, 6900, 6478, 6363, 6363, 7320, 8442, 8900}},
	{name: "prefill-delayer-forward-passes-buckets", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 0, 2981, 2981, 3279, 3279, 4070, 4070, 4641, 5000, 5000, 4960, 4960, 1227, 2461, 2461, 2707, 3195, 3344}},
	{name: "prefill-delayer-max-delay-ms", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5026, 5026, 4986, 4986, 1245, 2479, 2479, 2725, 3216, 3365}},
	{name: "prefill-delayer-max-delay-passes", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 2969, 2969, 3267, 3267, 4058, 4058, 4629, 4988, 4988, 4948, 4948, 1221, 2455, 2455, 2701, 3187, 3336}},
	{name: "prefill-delayer-queue-min-ratio", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5014, 5014, 4974, 4974, 1235, 2469, 2469, 2715, 3205, 3354}},
	{name: "prefill-delayer-token-usage-low-watermark", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 2975, 2975, 3273, 3273, 4064, 4064, 4635, 4994, 4994, 4954, 4954, 1224, 2458, 2458, 2704, 3190, 3339}},
	{name: "prefill-delayer-wait-seconds-buckets", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 0, 2988, 2988, 3286, 3286, 4077, 4077, 4648, 5007, 5007, 4967, 4967, 1231, 2465, 2465, 2711, 3200, 3349}},
	{name: "prefill-max-requests", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 2726, 2871, 2871, 3169, 3169, 3947, 3947, 4518, 4877, 4877, 4837, 4837, 699, 674, 674, 733, 814, 823}},
	{name: "prefill-only-disable-kv-cache", arity: noValue, kind: refused, what: whatNoKV, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4623, 4623, 4583, 4583, 767, 751, 751, 823, 918, 932}},
	{name: "prefill-round-robin-balance", arity: noValue, kind: ignored, at: lines{0, 2837, 2837, 3186, 3405, 3405, 3724, 3724, 4544, 4544, 5136, 5550, 5550, 5541, 5541, 6311, 6196, 6196, 7153, 8268, 8726}},
	{name: "priority-scheduling-preemption-threshold", arity: oneValue, kind: ignored, at: lines{0, 2432, 2432, 2769, 2922, 2922, 3220, 3220, 4011, 4011, 4582, 4941, 4941, 4901, 4901, 736, 711, 711, 770, 858, 867}},
	{name: "prompt-tokens-buckets", arity: manyValues, kind: ignored, at: lines{0, 2675, 2675, 3029, 3231, 3231, 3550, 3550, 4370, 4370, 4955, 5337, 5337, 5303, 5303, 1073, 1199, 1199, 1320, 1549, 1604}},
	{name: "quantization", arity: oneValue, kind: modelled, at: lines{692, 2301, 2301, 2620, 2765, 2765, 3063, 3063, 3840, 3840, 4411, 4770, 4770, 4730, 4730, 575, 538, 538, 584, 649, 658}},
	{name: "quantization-param-path", arity: oneValue, kind: refused, what: whatKVScales, at: lines{715, 2308, 2308, 2627, 2772, 2772, 3070, 3070, 3847, 3847, 4418, 4777, 4777, 4737, 4737, 579, 546, 546, 592, 658, 667}},
	{name: "quantize-and-serve", arity: noValue, kind: refused, what: whatQuantize, at: lines{0, 2360, 2360, 2679, 2824, 2824, 3122, 3122, 3899, 3899, 4470, 4829, 4829, 4789, 4789, 639, 607, 607, 666, 738, 747}},
	{name: "radix-cache-backend", arity: oneValue, kind: refused, what: whatRadixBackend, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5709, 5709, 1376, 1316, 1316, 1437, 1687, 1742}},
	{name: "radix-eviction-policy", arity: oneValue, kind: ignored, at: lines{0, 2474, 2474, 2811, 2957, 2957, 3255, 3255, 4046, 4046, 4617, 4976, 4976, 4936, 4936, 755, 739, 739, 811, 905, 919}},
	{name: "random-seed", arity: oneValue, kind: ignored, at: lines{888, 2520, 2520, 2863, 3040, 3040, 3352, 3352, 4162, 4162, 4740, 5122, 5122, 5082, 5082, 808, 953, 953, 1030, 1196, 1226}},
	{name: "reasoning-parser", arity: oneValue, kind: ignored, at: lines{1041, 2780, 2780, 3134, 3352, 3352, 3671, 3671, 4491, 4491, 5076, 5478, 5478, 5451, 5451, 6264, 6149, 6149, 7106, 8221, 8666}},
	{name: "record-nolora-graph", arity: noValue, kind: refused, what: whatNoLoraGraph, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5579, 6007, 6007, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "remote-instance-weight-loader-backend", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 4374, 4637, 4637, 4962, 4962, 5851, 5851, 6546, 7002, 7002, 7140, 7140, 2356, 2406, 2406, 2652, 3131, 3280}},
	{name: "remote-instance-weight-loader-seed-instance-ip", arity: oneValue, kind: ignored, at: lines{0, 3932, 3932, 4356, 4619, 4619, 4944, 4944, 5833, 5833, 6528, 6984, 6984, 7122, 7122, 2341, 2391, 2391, 2637, 3113, 3262}},
	{name: "remote-instance-weight-loader-seed-instance-service-port", arity: oneValue, kind: ignored, at: lines{0, 3938, 3938, 4362, 4625, 4625, 4950, 4950, 5839, 5839, 6534, 6990, 6990, 7128, 7128, 2345, 2395, 2395, 2641, 3118, 3267}},
	{name: "remote-instance-weight-loader-send-weights-group-ports", arity: oneValue, kind: ignored, at: lines{0, 3944, 3944, 4368, 4631, 4631, 4956, 4956, 5845, 5845, 6540, 6996, 6996, 7134, 7134, 2349, 2399, 2399, 2645, 3123, 3272}},
	{name: "remote-instance-weight-loader-start-seed-via-transfer-engine", arity: noValue, kind: ignored, at: lines{0, 0, 0, 4381, 4644, 4644, 4969, 4969, 5858, 5858, 6553, 7009, 7009, 7147, 7147, 2360, 2410, 2410, 2656, 3136, 3285}},
	{name: "retraction-policy", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 774, 863, 872}},
	{name: "return-hidden-states-mode", arity: oneValue, kind: refused, what: whatHidden, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3354, 3504}},
	{name: "revision", arity: oneValue, kind: modelled, at: lines{765, 2215, 2215, 2534, 2679, 2679, 2977, 2977, 3721, 3721, 4284, 4634, 4634, 4594, 4594, 490, 483, 483, 529, 589, 598}},
	{name: "rl-on-policy-target", arity: oneValue, kind: refused, what: whatDeterministic, at: lines{0, 3786, 3786, 4173, 4428, 4428, 4759, 4759, 5637, 5637, 6309, 6760, 6760, 6839, 6839, 2154, 2512, 2512, 2758, 3252, 3402}},
	{name: "rl-quant-profile", arity: oneValue, kind: refused, what: whatQuantize, at: lines{0, 2187, 2187, 2687, 2832, 2832, 3130, 3130, 3907, 3907, 4478, 4837, 4837, 4797, 4797, 648, 616, 616, 675, 748, 757}},
	{name: "sampling-backend", arity: oneValue, kind: ignored, at: lines{1149, 2958, 2958, 3307, 3531, 3531, 3850, 3850, 4679, 4679, 5284, 5704, 5704, 5695, 5695, 1362, 1301, 1301, 1422, 1670, 1725}},
	{name: "sampling-defaults", arity: oneValue, kind: ignored, at: lines{0, 2801, 2801, 3155, 3373, 3373, 3692, 3692, 4512, 4512, 5104, 5518, 5518, 5491, 5491, 1188, 1057, 1057, 1175, 1375, 1430}},
	{name: "schedule-conservativeness", arity: oneValue, kind: ignored, at: lines{825, 2438, 2438, 2775, 2928, 2928, 3226, 3226, 4017, 4017, 4588, 4947, 4947, 4907, 4907, 740, 715, 715, 787, 877, 886}},
	{name: "schedule-low-priority-values-first", arity: noValue, kind: ignored, at: lines{0, 2426, 2426, 2763, 2916, 2916, 3214, 3214, 4005, 4005, 4576, 4935, 4935, 4895, 4895, 732, 707, 707, 766, 853, 862}},
	{name: "schedule-policy", arity: oneValue, kind: ignored, at: lines{818, 2407, 2407, 2744, 2889, 2889, 3187, 3187, 3966, 3966, 4537, 4896, 4896, 4856, 4856, 703, 678, 678, 737, 819, 828}},
	{name: "scheduler-recv-interval", arity: oneValue, kind: ignored, at: lines{0, 3769, 3769, 4156, 4411, 4411, 4742, 4742, 5620, 5620, 6292, 6743, 6743, 6822, 6822, 784, 787, 787, 859, 962, 976}},
	{name: "served-model-name", arity: oneValue, kind: ignored, at: lines{736, 2745, 2745, 3099, 3310, 3310, 3629, 3629, 4449, 4449, 5034, 5435, 5435, 5408, 5408, 1147, 1016, 1016, 1124, 1314, 1369}},
	{name: "show-time-cost", arity: noValue, kind: ignored, at: lines{967, 2610, 2610, 2964, 3166, 3166, 3478, 3478, 4293, 4293, 4871, 5253, 5253, 5219, 5219, 1029, 1155, 1155, 1273, 1489, 1544}},
	{name: "sidecar", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1073, 1252, 1301}},
	{name: "sidecar-args", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1080, 1260, 1309}},
	{name: "skip-server-warmup", arity: noValue, kind: ignored, at: lines{621, 2261, 2261, 2580, 2725, 2725, 3023, 3023, 3767, 3767, 4330, 4689, 4689, 4649, 4649, 532, 981, 981, 1089, 1270, 1319}},
	{name: "skip-tokenizer-init", arity: noValue, kind: ignored, at: lines{616, 2153, 2153, 2478, 2623, 2623, 2921, 2921, 3664, 3664, 4227, 4572, 4572, 4532, 4532, 444, 437, 437, 483, 517, 526}},
	{name: "sleep-on-idle", arity: noValue, kind: ignored, at: lines{930, 2567, 2567, 2916, 3101, 3101, 3413, 3413, 4223, 4223, 4801, 5183, 5183, 5143, 5143, 817, 962, 962, 1039, 1207, 1256}},
	{name: "sm-group-num", arity: oneValue, kind: refused, what: whatPDMux, at: lines{0, 3963, 3963, 4399, 4662, 4662, 4987, 4987, 5889, 5889, 6584, 7040, 7040, 7178, 7178, 2313, 2363, 2363, 2609, 3082, 3221}},
	{name: "smg-grpc-mode", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1057, 1233, 1282}},
	{name: "smg-http-sidecar-port", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1275, 1495, 1550}},
	{name: "soft-watchdog-timeout", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 2886, 3063, 3063, 3375, 3375, 4185, 4185, 4763, 5145, 5145, 5105, 5105, 813, 958, 958, 1035, 1202, 1251}},
	{name: "spec-trace-dir", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1720, 1720, 1883, 2221, 2291}},
	{name: "speculative-accept-threshold-acc", arity: oneValue, kind: ignored, at: lines{1200, 3068, 3068, 3417, 3655, 3655, 3977, 3977, 4812, 4812, 5432, 5847, 5847, 5882, 5882, 1488, 1625, 1625, 1788, 2110, 2160}},
	{name: "speculative-accept-threshold-single", arity: oneValue, kind: ignored, at: lines{1194, 3062, 3062, 3411, 3649, 3649, 3971, 3971, 4806, 4806, 5426, 5841, 5841, 5876, 5876, 1484, 1621, 1621, 1784, 2105, 2155}},
	{name: "speculative-adaptive", arity: noValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5529, 5957, 5957, 6001, 6001, 1544, 1686, 1686, 1849, 2181, 2251}},
	{name: "speculative-adaptive-config", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5535, 5963, 5963, 6007, 6007, 1548, 1690, 1690, 1853, 2186, 2256}},
	{name: "speculative-algorithm", arity: oneValue, kind: modelled, at: lines{1165, 3015, 3015, 3364, 3602, 3602, 3924, 3924, 4759, 4759, 5364, 5785, 5785, 5820, 5820, 1446, 1583, 1583, 1715, 2024, 2074}},
	{name: "speculative-attention-mode", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3080, 3080, 3429, 3667, 3667, 3989, 3989, 4824, 4824, 5444, 5859, 5859, 5894, 5894, 1500, 1637, 1637, 1800, 2123, 2173}},
	{name: "speculative-dflash-block-size", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5411, 5835, 5835, 5870, 5870, 1480, 1617, 1617, 1749, 2065, 2115}},
	{name: "speculative-dflash-draft-window-size", arity: oneValue, kind: refused, what: whatSpec, changed: &arityChange{"v0.5.12", oneValue, "speculative_draft_window_size"}, alias: &aliasSpan{from: "v0.5.12", until: "v0.5.13", of: "speculative-draft-window-size"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5417, 5872, 5872, 5921, 5921, 6341, 6226, 6226, 7183, 8298, 8756}},
	{name: "speculative-draft-attention-backend", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 3436, 3674, 3674, 3996, 3996, 4831, 4831, 5451, 5866, 5866, 5901, 5901, 1507, 1644, 1644, 1807, 2132, 2182}},
	{name: "speculative-draft-kv-cache-dtype", arity: oneValue, kind: modelled, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2187}},
	{name: "speculative-draft-load-format", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3035, 3035, 3384, 3622, 3622, 3944, 3944, 4779, 4779, 5384, 5808, 5808, 5843, 5843, 1461, 1598, 1598, 1730, 2042, 2092}},
	{name: "speculative-draft-model", of: "speculative-draft-model-path", arity: oneValue, kind: modelled, at: lines{0, 3021, 3021, 3370, 3608, 3608, 3930, 3930, 4765, 4765, 5370, 5794, 5794, 5829, 5829, 1450, 1587, 1587, 1719, 2029, 2079}},
	{name: "speculative-draft-model-path", arity: oneValue, kind: modelled, at: lines{1171, 3021, 3021, 3370, 3608, 3608, 3930, 3930, 4765, 4765, 5370, 5794, 5794, 5829, 5829, 1450, 1587, 1587, 1719, 2029, 2079}},
	{name: "speculative-draft-model-quantization", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 3456, 3694, 3694, 4016, 4016, 4851, 4851, 5471, 5899, 5899, 5943, 5943, 1529, 1668, 1668, 1831, 2160, 2224}},
	{name: "speculative-draft-model-revision", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3027, 3027, 3376, 3614, 3614, 3936, 3936, 4771, 4771, 5376, 5800, 5800, 5835, 5835, 1457, 1594, 1594, 1726, 2037, 2087}},
	{name: "speculative-draft-window-size", arity: oneValue, kind: refused, what: whatSpec, changed: &arityChange{"v0.5.12", oneValue, "speculative_draft_window_size"}, redest: &destSpan{from: "v0.5.14", dest: ""}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5872, 5872, 5907, 5907, 1511, 1648, 1648, 1811, 2137, 2201}},
	{name: "speculative-dspark-align-verify-tokens-to-graph-tier", arity: noValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1773, 2093, 2143}},
	{name: "speculative-dspark-block-size", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1753, 2070, 2120}},
	{name: "speculative-dspark-confidence-sts-path", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1765, 2084, 2134}},
	{name: "speculative-dspark-sps-table-path", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1757, 2075, 2125}},
	{name: "speculative-eagle-topk", arity: oneValue, kind: modelled, at: lines{1182, 3050, 3050, 3399, 3637, 3637, 3959, 3959, 4794, 4794, 5399, 5823, 5823, 5858, 5858, 1472, 1609, 1609, 1741, 2055, 2105}},
	{name: "speculative-moe-a2a-backend", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3094, 3094, 3449, 3687, 3687, 4009, 4009, 4844, 4844, 5464, 5892, 5892, 5936, 5936, 1522, 1660, 1660, 1823, 2151, 2215}},
	{name: "speculative-moe-runner-backend", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3087, 3087, 3442, 3680, 3680, 4002, 4002, 4837, 4837, 5457, 5885, 5885, 5929, 5929, 1515, 1652, 1652, 1815, 2142, 2206}},
	{name: "speculative-ngram-branch-length", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3134, 3134, 3496, 3734, 3734, 4056, 4056, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "speculative-ngram-capacity", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3140, 3140, 3502, 3740, 3740, 4062, 4062, 4885, 4885, 5505, 5933, 5933, 5977, 5977, 1572, 1743, 1743, 1906, 2246, 2316}},
	{name: "speculative-ngram-external-corpus-max-tokens", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5523, 5951, 5951, 5995, 5995, 1586, 1757, 1757, 1920, 2259, 2329}},
	{name: "speculative-ngram-external-corpus-path", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5511, 5939, 5939, 5983, 5983, 1578, 1749, 1749, 1912, 2249, 2319}},
	{name: "speculative-ngram-external-sam-budget", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5517, 5945, 5945, 5989, 5989, 1582, 1753, 1753, 1916, 2254, 2324}},
	{name: "speculative-ngram-match-type", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3127, 3127, 3489, 3727, 3727, 4049, 4049, 4872, 4872, 5492, 5920, 5920, 5964, 5964, 1564, 1735, 1735, 1898, 2240, 2310}},
	{name: "speculative-ngram-max-bfs-breadth", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3121, 3121, 3483, 3721, 3721, 4043, 4043, 4866, 4866, 5486, 5914, 5914, 5958, 5958, 1560, 1731, 1731, 1894, 2235, 2305}},
	{name: "speculative-ngram-max-match-window-size", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3109, 3109, 3471, 3709, 3709, 4031, 4031, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "speculative-ngram-max-trie-depth", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4879, 4879, 5499, 5927, 5927, 5971, 5971, 1568, 1739, 1739, 1902, 2243, 2313}},
	{name: "speculative-ngram-min-bfs-breadth", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3115, 3115, 3477, 3715, 3715, 4037, 4037, 4860, 4860, 5480, 5908, 5908, 5952, 5952, 1556, 1727, 1727, 1890, 2230, 2300}},
	{name: "speculative-ngram-min-match-window-size", arity: oneValue, kind: refused, what: whatSpec, at: lines{0, 3103, 3103, 3465, 3703, 3703, 4025, 4025, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
	{name: "speculative-num-draft-tokens", arity: oneValue, kind: modelled, at: lines{1188, 3056, 3056, 3405, 3643, 3643, 3965, 3965, 4800, 4800, 5405, 5829, 5829, 5864, 5864, 1476, 1613, 1613, 1745, 2060, 2110}},
	{name: "speculative-num-steps", arity: oneValue, kind: modelled, at: lines{1176, 3044, 3044, 3393, 3631, 3631, 3953, 3953, 4788, 4788, 5393, 5817, 5817, 5852, 5852, 1468, 1605, 1605, 1737, 2050, 2100}},
	{name: "speculative-skip-dp-mlp-sync", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5541, 5969, 5969, 6013, 6013, 1536, 1675, 1675, 1838, 2168, 2238}},
	{name: "speculative-token-map", arity: oneValue, kind: refused, what: whatSpec, at: lines{1206, 3074, 3074, 3423, 3661, 3661, 3983, 3983, 4818, 4818, 5438, 5853, 5853, 5888, 5888, 1496, 1633, 1633, 1796, 2120, 2170}},
	{name: "speculative-use-rejection-sampling", arity: noValue, kind: refused, what: whatSpec, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1492, 1629, 1629, 1792, 2115, 2165}},
	{name: "ssl-ca-certs", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 3805, 3805, 4368, 4727, 4727, 4687, 4687, 547, 996, 996, 1104, 1291, 1346}},
	{name: "ssl-certfile", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 3799, 3799, 4362, 4721, 4721, 4681, 4681, 546, 995, 995, 1103, 1288, 1343}},
	{name: "ssl-keyfile", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 3793, 3793, 4356, 4715, 4715, 4675, 4675, 545, 994, 994, 1102, 1285, 1340}},
	{name: "ssl-keyfile-password", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 3811, 3811, 4374, 4733, 4733, 4693, 4693, 548, 997, 997, 1105, 1292, 1347}},
	{name: "startup-weight-load-mode", arity: oneValue, kind: refused, what: whatOverlapLoad, neutral: []string{"serial"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3226}},
	{name: "stream-interval", arity: oneValue, kind: ignored, at: lines{877, 2509, 2509, 2852, 3029, 3029, 3341, 3341, 4132, 4132, 4703, 5085, 5085, 5045, 5045, 953, 1087, 1087, 1205, 1410, 1465}},
	{name: "stream-output", arity: noValue, kind: ignored, changed: &arityChange{"v0.5.10", noValue, "incremental_streaming_output"}, at: lines{883, 2515, 2515, 2858, 3035, 3035, 3347, 3347, 4149, 4149, 4727, 5109, 5109, 5069, 5069, 6304, 6189, 6189, 7146, 8261, 8719}},
	{name: "stream-response-default-include-usage", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4143, 4143, 4721, 5103, 5103, 5063, 5063, 961, 1095, 1095, 1213, 1420, 1475}},
	{name: "strip-thinking-cache", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5083, 5487, 5487, 5460, 5460, 1175, 1044, 1044, 1162, 1359, 1414}},
	{name: "swa-full-tokens-ratio", arity: oneValue, kind: refused, what: whatSWA, neutral: []string{"0.8"}, at: lines{0, 2462, 2462, 2799, 2945, 2945, 3243, 3243, 4034, 4034, 4605, 4964, 4964, 4924, 4924, 745, 723, 723, 795, 887, 901}},
	{name: "tbo-token-distribution-threshold", arity: oneValue, kind: ignored, at: lines{0, 3621, 3621, 4003, 4258, 4258, 4589, 4589, 5457, 5457, 6123, 6564, 6564, 6643, 6643, 2083, 2201, 2201, 2419, 2866, 2984}},
	{name: "tensor-parallel-size", arity: oneValue, kind: modelled, alias: &aliasSpan{from: "v0.5.14", of: "tp-size"}, at: lines{857, 2489, 2489, 2826, 3003, 3003, 3301, 3301, 4092, 4092, 4663, 5045, 5045, 5005, 5005, 849, 816, 816, 888, 996, 1010}},
	{name: "tokenizer-backend", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4212, 4551, 4551, 4511, 4511, 433, 426, 426, 472, 501, 510}},
	{name: "tokenizer-metrics-allowed-custom-labels", arity: manyValues, kind: ignored, at: lines{0, 2633, 2633, 2987, 3189, 3189, 3501, 3501, 4321, 4321, 4907, 5289, 5289, 5255, 5255, 1050, 1176, 1176, 1297, 1521, 1576}},
	{name: "tokenizer-metrics-custom-labels-header", arity: oneValue, kind: ignored, at: lines{0, 2627, 2627, 2981, 3183, 3183, 3495, 3495, 4315, 4315, 4901, 5283, 5283, 5249, 5249, 1046, 1172, 1172, 1293, 1516, 1571}},
	{name: "tokenizer-mode", arity: oneValue, kind: ignored, at: lines{607, 2138, 2138, 2463, 2608, 2608, 2906, 2906, 3649, 3649, 4203, 4542, 4542, 4502, 4502, 425, 418, 418, 464, 492, 501}},
	{name: "tokenizer-path", arity: oneValue, kind: ignored, at: lines{583, 2132, 2132, 2457, 2602, 2602, 2900, 2900, 3643, 3643, 4197, 4536, 4536, 4496, 4496, 424, 417, 417, 463, 491, 500}},
	{name: "tokenizer-worker-num", arity: oneValue, kind: ignored, at: lines{0, 2147, 2147, 2472, 2617, 2617, 2915, 2915, 3658, 3658, 4221, 4560, 4560, 4520, 4520, 442, 435, 435, 481, 511, 520}},
	{name: "tool-call-parser", arity: oneValue, kind: ignored, at: lines{1048, 2788, 2788, 3142, 3360, 3360, 3679, 3679, 4499, 4499, 5091, 5503, 5503, 5476, 5476, 6274, 6159, 6159, 7116, 8231, 8676}},
	{name: "tool-server", arity: oneValue, kind: ignored, at: lines{0, 2795, 2795, 3149, 3367, 3367, 3686, 3686, 4506, 4506, 5098, 5512, 5512, 5485, 5485, 1184, 1053, 1053, 1171, 1370, 1425}},
	{name: "torch-compile-max-bs", arity: oneValue, kind: refused, what: whatCompile, at: lines{1456, 3655, 3655, 4037, 4292, 4292, 4623, 4623, 5501, 5501, 6167, 6608, 6608, 6687, 6687, 2098, 1571, 1571, 1703, 2012, 2068}},
	{name: "torchao-config", arity: oneValue, kind: refused, what: whatQuantize, at: lines{1462, 3667, 3667, 4049, 4304, 4304, 4635, 4635, 5513, 5513, 6179, 6620, 6620, 6699, 6699, 2102, 1575, 1575, 1707, 2015, 0}},
	{name: "tp-size", of: "tensor-parallel-size", arity: oneValue, kind: modelled, alias: &aliasSpan{from: "v0.5.14", of: ""}, at: lines{857, 2489, 2489, 2826, 3003, 3003, 3301, 3301, 4092, 4092, 4663, 5045, 5045, 5005, 5005, 849, 816, 816, 888, 996, 1010}},
	{name: "trace-modules", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5365, 5365, 1111, 1237, 1237, 1358, 1597, 1652}},
	{name: "triton-attention-num-kv-splits", arity: oneValue, kind: ignored, at: lines{1484, 3689, 3689, 4071, 4326, 4326, 4657, 4657, 5535, 5535, 6201, 6642, 6642, 6716, 6716, 2004, 1489, 1489, 1611, 1905, 1961}},
	{name: "triton-attention-reduce-in-fp32", arity: noValue, kind: ignored, at: lines{1478, 3683, 3683, 4065, 4320, 4320, 4651, 4651, 5529, 5529, 6195, 6636, 6636, 6710, 6710, 1999, 1484, 1484, 1606, 1899, 1955}},
	{name: "triton-attention-split-tile-size", arity: oneValue, kind: ignored, at: lines{0, 3695, 3695, 4077, 4332, 4332, 4663, 4663, 5541, 5541, 6207, 6648, 6648, 6722, 6722, 2008, 1493, 1493, 1615, 1910, 1966}},
	{name: "trust-mm-content-hashes", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2818}},
	{name: "trust-remote-code", arity: noValue, kind: modelled, at: lines{666, 2193, 2193, 2512, 2657, 2657, 2955, 2955, 3698, 3698, 4261, 4606, 4606, 4566, 4566, 473, 466, 466, 512, 567, 576}},
	{name: "use-ray", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 4228, 4228, 4806, 5188, 5188, 5154, 5154, 818, 963, 963, 1040, 1210, 1259}},
	{name: "uvicorn-access-log-exclude-prefixes", arity: manyValues, kind: ignored, at: lines{0, 0, 0, 0, 3151, 3151, 3463, 3463, 4278, 4278, 4856, 5238, 5238, 5204, 5204, 1016, 1142, 1142, 1260, 1474, 1529}},
	{name: "warmups", arity: oneValue, kind: ignored, at: lines{1579, 2266, 2266, 2585, 2730, 2730, 3028, 3028, 3772, 3772, 4335, 4694, 4694, 4654, 4654, 533, 982, 982, 1090, 1271, 1320}},
	{name: "watchdog-timeout", arity: oneValue, kind: ignored, at: lines{900, 2537, 2537, 2880, 3057, 3057, 3369, 3369, 4179, 4179, 4757, 5139, 5139, 5099, 5099, 809, 954, 954, 1031, 1197, 1246}},
	{name: "weight-cache-mode", arity: oneValue, kind: refused, what: whatWeightCache, neutral: []string{"off"}, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3388, 3538}},
	{name: "weight-cache-socket", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3402, 3552}},
	{name: "weight-cache-timeout", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3410, 3560}},
	{name: "weight-loader-disable-mmap", arity: noValue, kind: ignored, at: lines{1678, 3927, 3927, 4351, 4614, 4614, 4939, 4939, 5828, 5828, 6509, 6960, 6960, 7098, 7098, 2325, 2375, 2375, 2621, 3095, 3244}},
	{name: "weight-loader-drop-cache-after-load", arity: noValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6979, 6979, 7117, 7117, 2337, 2387, 2387, 2633, 3108, 3257}},
	{name: "weight-loader-prefetch-checkpoints", arity: noValue, kind: refused, what: whatPrefetch, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6514, 6965, 6965, 7103, 7103, 2329, 2379, 2379, 2625, 3098, 3247}},
	{name: "weight-loader-prefetch-num-threads", arity: oneValue, kind: ignored, at: lines{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 6522, 6973, 6973, 7111, 7111, 2333, 2383, 2383, 2629, 3103, 3252}},
	{name: "weight-version", arity: oneValue, kind: ignored, at: lines{0, 2751, 2751, 3105, 3316, 3316, 3635, 3635, 4455, 4455, 5040, 5441, 5441, 5414, 5414, 1151, 1020, 1020, 1128, 1319, 1374}},
}
