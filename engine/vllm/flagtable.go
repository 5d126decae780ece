// Code transcribed from vLLM's sources by hand classification; see the
// comment on flagTable for the sources and the rule of its releases.

package vllm

// What each refused flag would add, as a refusal names it.
const (
	whatA2a          = "the expert-parallel all-to-all backend's buffers (DeepEP's NVLink buffer of VLLM_DEEPEP_BUFFER_SIZE_MB, 1024 MiB a rank, and as much RDMA buffer across nodes; low-latency's RDMA buffer for its dispatch tokens; pplx, MoRI, NIXL EP and FlashInfer's workspaces: vllm/distributed/device_communicators/all2all.py)"
	whatAttn         = "an attention backend other than the release's default for the device (its KV block size and workspace)"
	whatAttndtype    = "an attention dtype other than the model's"
	whatBlocks       = "a KV cache of a fixed block count instead of the one the budget leaves"
	whatConfig       = "a model config other than the checkpoint's config.json (membudget sizes config.json as given)"
	whatCp           = "context parallelism (the KV cache and the attention workspaces divided among ranks)"
	whatDbo          = "dual-batch overlap's second micro-batch (the profile run split in two interleaved halves at or above --dbo-prefill-token-threshold, a fused-MoE workspace and cuBLAS workspaces a micro-batch, decode CUDA graphs captured as two micro-batches; one DeepEP buffer serves both: see engine/vllm/dbo.go)"
	whatDevice       = "a device other than the GPU of the class sized"
	whatDiffusion    = "a diffusion model's pipeline"
	whatElastic      = "elastic expert parallelism's spare experts and buffers"
	whatEmbeds       = "multimodal embeddings passed as inputs"
	whatEncoder      = "the vision encoder's data-parallel copy on every rank"
	whatEncodercache = "the encoder cache manager's budget"
	whatEplb         = "redundant experts on every rank (expert-parallel load balancing)"
	whatGraphs       = "CUDA graphs other than the release's default capture (the graph term follows the mode and the sizes captured)"
	whatHybrid       = "a KV cache without the hybrid manager (every layer pages the whole length)"
	whatImpl         = "the Transformers modelling backend's activations"
	whatKernels      = "MoE or linear kernels other than the default (their weight layout and workspaces)"
	whatKvscales     = "KV-cache scales read from a file"
	whatLookahead    = "lookahead slots reserved in the KV cache"
	whatLora         = "LoRA adapter slots (each of --max-loras slots' A and B buffers per layer and module on every GPU, --max-cpu-loras adapters in host memory, and the profile run with dummy adapters)"
	whatMm           = "multimodal inputs (the encoder cache and the profile run's encoder pass at the largest item)"
	whatMmenc        = "the multimodal encoder's sharding across ranks"
	whatMmhost       = "the multimodal processor cache in host memory (on unified devices out of the same pool)"
	whatMmipc        = "GPU memory for multimodal tensors passed between processes"
	whatMmproc       = "multimodal processor settings that change an item's tokens"
	whatOffload      = "KV or weight offloading (pinned host memory for the offloaded blocks or weights, on unified devices out of the same pool)"
	whatPerf         = "a performance mode's defaults (the sequences, batched tokens and graph sizes it sets)"
	whatPlugin       = "a plugin's or a platform's own allocations, which membudget cannot read"
	whatPrompts      = "the input-embeddings buffer of --max-num-batched-tokens x hidden size"
	whatQuantcfg     = "online quantization of the weights"
	whatReplay       = "the ReplaySSM replay buffers"
	whatRope         = "a RoPE scaling other than config.json's (the model's derived length changes)"
	whatRouted       = "a buffer of the routed experts of every token"
	whatRunner       = "a pooling or converted model (no KV cache, other heads and activations)"
	whatSampler      = "the sampler's buffers in the profile run"
	whatSched        = "the tokens scheduled per step beside --max-num-batched-tokens"
	whatSpec         = "speculative decoding (the draft's weights, its KV cache group, the bonus tokens in the scheduler's budget and the graph sizes it adds)"
	whatState        = "a hybrid model's state pages other than the default's"
	whatTransfer     = "a KV or encoder-cache connector's device and host buffers (NIXL, LMCache, P2P)"
	whatWindow       = "a full KV cache on the sliding-window layers"
	whatWorker       = "a custom worker's allocations"
	whatYaml         = "a --config file's flags, which membudget reads only in a line it respells"
)

// flagTable is every flag of `vllm serve` in the releases membudget has
// read, with what membudget does with it (see [vflag]).
//
// Sources: main's vllm/engine/arg_utils.py (EngineArgs.add_cli_args) and
// vllm/entrypoints/openai/cli_args.py (FrontendArgs, make_arg_parser) at
// commit 64ca614 (2026-08-13, the last change to arg_utils.py before main
// of 2026-08-14); the same files at the tags v0.6.0 to v0.7.2. A flag's
// since and until are exact up to 0.7.2, read from the tags. After 0.7.2
// they come from the change that added or removed it (cited: the PR and
// its merge date), placed among the releases by the changes
// engine/vllm/version.go dates to a release: a flag added on a date is
// taken to be in the earliest release that may hold a change of that
// date, and one removed on a date to be gone from the first release that
// surely holds that change, so that where the release is in doubt a flag
// is accepted rather than refused. A flag with neither is in every
// release profiled.
var flagTable = []vflag{
	{name: "additional-config", arity: oneValue, json: true, kind: refused, what: whatPlugin, since: Version{0, 7, 3}, added: "#12432 (2025-02-11)"},
	{name: "aggregate-engine-logging", arity: noValue, kind: ignored, since: Version{0, 11, 0}, added: "#24354 (2025-10-13)"},
	{name: "all2all-backend", arity: oneValue, kind: modelled, since: Version{0, 11, 0}, added: "#26732 (2025-10-13)"}, // all2all.go, deepep_ll.go: sized from 0.28.0 (deepep_high_throughput and deepep_low_latency within a node), refused by name before it and for the backends whose packages size their buffers
	{name: "allow-credentials", arity: noValue, neg: true, kind: ignored},
	{name: "allow-deprecated-quantization", arity: noValue, neg: true, kind: ignored, since: Version{0, 14, 0}, added: "#31688 (2026-01-08)"},
	{name: "allowed-headers", arity: oneValue, json: true, kind: ignored},
	{name: "allowed-local-media-path", arity: oneValue, kind: ignored, since: Version{0, 6, 4}, added: "in vLLM 0.6.4"},
	{name: "allowed-media-domains", arity: manyValues, kind: ignored, since: Version{0, 11, 0}, added: "#25783 (2025-09-27)"},
	{name: "allowed-methods", arity: oneValue, json: true, kind: ignored},
	{name: "allowed-origins", arity: oneValue, json: true, kind: ignored},
	{name: "api-key", arity: manyValues, kind: ignored},
	{name: "api-server-count", aliases: []string{"asc"}, arity: oneValue, kind: ignored, since: Version{0, 8, 0}, added: "#17546 (2025-05-30)"},
	{name: "async-scheduling", arity: noValue, neg: true, kind: modelled, since: Version{0, 10, 0}, added: "#19970 (2025-07-14)"},
	{name: "attention-backend", arity: oneValue, kind: refused, what: whatAttn, since: Version{0, 11, 0}, added: "#26315 (2025-12-05)"},
	{name: "attention-config", aliases: []string{"ac"}, arity: oneValue, json: true, kind: refused, what: whatAttn, since: Version{0, 11, 0}, added: "#26315 (2025-12-05)"},
	{name: "block-size", arity: oneValue, kind: modelled},
	{name: "calculate-kv-scales", arity: noValue, kind: ignored, since: Version{0, 7, 0}, added: "in vLLM 0.7.0", until: Version{0, 28, 0}, removed: "#49389 (2026-08-03)"},
	{name: "chat-template", arity: oneValue, kind: ignored},
	{name: "chat-template-content-format", arity: oneValue, kind: ignored, since: Version{0, 6, 5}, added: "in vLLM 0.6.5"},
	{name: "code-revision", arity: oneValue, kind: ignored},
	{name: "cohere-format", arity: oneValue, kind: ignored, since: Version{0, 25, 0}, added: "#47189 (2026-07-31)"},
	{name: "cohere-is-reasoning-model", arity: noValue, neg: true, kind: ignored, since: Version{0, 25, 0}, added: "#47189 (2026-07-31)"},
	{name: "collect-detailed-traces", arity: manyValues, kind: ignored},
	{name: "compilation-config", aliases: []string{"cc"}, arity: oneValue, json: true, kind: modelled, from: compilationSince, what: whatGraphs, neutralKeys: []string{"cache_dir", "compile_cache_save_format", "cudagraph_num_of_warmups", "debug_dump_path"}, since: Version{0, 6, 5}, added: "in vLLM 0.6.5"}, // neutralKeys: vllm/config/compilation.py:461-467, 643 at main
	{name: "config", arity: oneValue, kind: refused, what: whatYaml},
	{name: "config-format", arity: oneValue, kind: ignored, since: Version{0, 6, 1}, added: "in vLLM 0.6.1"},
	{name: "convert", arity: oneValue, kind: modelled, since: Version{0, 10, 0}, added: "#21470 (2025-07-27)"},
	{name: "cp-kv-cache-interleave-size", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#28718 (2025-11-19)"},
	{name: "cpu-distributed-timeout-seconds", arity: oneValue, kind: ignored, since: Version{0, 22, 0}, added: "#42968 (2026-05-21)"},
	{name: "cpu-offload-gb", arity: oneValue, kind: modelled},
	{name: "cpu-offload-params", arity: manyValues, kind: refused, what: whatOffload, since: Version{0, 15, 0}, added: "#34535 (2026-02-13)"},
	{name: "cudagraph-capture-sizes", arity: manyValues, kind: modelled, from: compilationSince, what: whatGraphs, since: Version{0, 11, 0}, added: "#26016 (2025-10-24)"},
	{name: "cudagraph-metrics", arity: noValue, neg: true, kind: ignored, since: Version{0, 11, 0}, added: "#29825 (2025-12-03)"},
	{name: "data-parallel-address", aliases: []string{"dpa"}, arity: oneValue, kind: ignored, since: Version{0, 8, 0}, added: "#15977 (2025-05-13)"},
	{name: "data-parallel-backend", aliases: []string{"dpb"}, arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#18779 (2025-06-02)"},
	{name: "data-parallel-external-lb", aliases: []string{"dpe"}, arity: noValue, neg: true, kind: ignored, since: Version{0, 11, 0}, added: "#23691 (2025-11-16)"},
	{name: "data-parallel-hybrid-lb", aliases: []string{"dph"}, arity: noValue, neg: true, kind: ignored, since: Version{0, 10, 0}, added: "#21238 (2025-07-23)"},
	{name: "data-parallel-multi-port-external-lb", aliases: []string{"dpm"}, arity: noValue, kind: ignored, since: Version{0, 22, 0}, added: "#40841 (2026-05-21)"},
	{name: "data-parallel-rank", aliases: []string{"dpn"}, arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#19790 (2025-07-02)"},
	{name: "data-parallel-rpc-port", aliases: []string{"dpp"}, arity: oneValue, kind: ignored, since: Version{0, 8, 0}, added: "#15977 (2025-05-13)"},
	{name: "data-parallel-size", aliases: []string{"dp"}, arity: oneValue, kind: modelled, since: Version{0, 8, 0}, added: "#13923 (2025-03-27)"},
	{name: "data-parallel-size-local", aliases: []string{"dpl"}, arity: oneValue, kind: ignored, since: Version{0, 8, 0}, added: "#15977 (2025-05-13)"},
	{name: "data-parallel-start-rank", aliases: []string{"dpr"}, arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#20978 (2025-07-15)"},
	{name: "data-parallel-supervisor-port", arity: oneValue, kind: ignored, since: Version{0, 22, 0}, added: "#40841 (2026-05-21)"},
	{name: "dbo-decode-token-threshold", arity: oneValue, kind: ignored, since: Version{0, 10, 2}, added: "#23693 (2025-09-16)"},
	{name: "dbo-prefill-token-threshold", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#24845 (2025-09-23)"},
	{name: "dcp-comm-backend", arity: oneValue, kind: ignored, since: Version{0, 17, 0}, added: "#34883 (2026-03-04)"},
	{name: "dcp-kv-cache-interleave-size", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#26696 (2025-11-09)"},
	{name: "decode-context-parallel-size", aliases: []string{"dcp"}, arity: oneValue, kind: refused, what: whatCp, neutral: []string{"1"}, since: Version{0, 10, 0}, added: "#23734 (2025-09-06)"},
	{name: "default-chat-template-kwargs", arity: oneValue, json: true, kind: ignored, since: Version{0, 14, 0}, added: "#31343 (2025-12-30)"},
	{name: "default-mm-loras", arity: oneValue, json: true, kind: refused, what: whatLora, since: Version{0, 10, 0}, added: "#19126 (2025-07-10)"},
	{name: "device", arity: oneValue, kind: refused, what: whatDevice, neutral: []string{"auto", "cuda"}, until: Version{0, 10, 2}, removed: "#21349 (2025-07-22)"},
	{name: "device-ids", arity: oneValue, kind: ignored, since: Version{0, 23, 0}, added: "#45026 (2026-06-20)"},
	{name: "diffusion-config", aliases: []string{"dc"}, arity: oneValue, json: true, kind: refused, what: whatDiffusion, since: Version{0, 23, 0}, added: "#45163 (2026-06-11)"},
	{name: "disable-access-log-for-endpoints", arity: oneValue, kind: ignored, since: Version{0, 15, 0}, added: "#30011 (2026-01-26)"},
	{name: "disable-async-output-proc", arity: noValue, kind: ignored, until: Version{0, 14, 0}, removed: "#25334 (2025-09-21)"},
	{name: "disable-cascade-attn", arity: noValue, neg: true, kind: ignored, since: Version{0, 8, 0}, added: "#15243 (2025-03-20)"},
	{name: "disable-chunked-mm-input", arity: noValue, neg: true, kind: ignored, since: Version{0, 8, 0}, added: "#15837 (2025-04-07)"},
	{name: "disable-custom-all-reduce", arity: noValue, neg: true, kind: modelled},
	{name: "disable-fastapi-docs", arity: noValue, neg: true, kind: ignored, since: Version{0, 6, 2}, added: "in vLLM 0.6.2"},
	{name: "disable-frontend-multiprocessing", arity: noValue, kind: ignored, until: Version{0, 20, 0}, removed: "#37612 (2026-03-20)"},
	{name: "disable-hybrid-kv-cache-manager", arity: noValue, neg: true, kind: refused, what: whatHybrid, since: Version{0, 10, 0}, added: "#17996 (2025-06-05)"},
	{name: "disable-log-requests", arity: noValue, kind: ignored, until: Version{0, 18, 0}, removed: "#35723 (2026-03-02)"},
	{name: "disable-log-stats", arity: noValue, kind: ignored},
	{name: "disable-logprobs-during-spec-decoding", arity: noValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "disable-mm-preprocessor-cache", arity: noValue, kind: ignored, since: Version{0, 6, 6}, added: "in vLLM 0.6.6", until: Version{0, 14, 0}, removed: "#30397 (2025-12-10)"},
	{name: "disable-nccl-for-dp-synchronization", arity: noValue, neg: true, kind: ignored, since: Version{0, 11, 0}, added: "#25768 (2025-10-07)"},
	{name: "disable-sliding-window", arity: noValue, neg: true, kind: refused, what: whatWindow},
	{name: "disable-uvicorn-access-log", arity: noValue, neg: true, kind: ignored, since: Version{0, 8, 0}, added: "#14754 (2025-03-19)"},
	{name: "distributed-executor-backend", arity: oneValue, kind: ignored},
	{name: "distributed-timeout-seconds", arity: oneValue, kind: ignored, since: Version{0, 17, 0}, added: "#36047 (2026-03-05)"},
	{name: "download-dir", arity: oneValue, kind: ignored},
	{name: "dp-supervisor-probe-failure-threshold", arity: oneValue, kind: ignored, since: Version{0, 22, 0}, added: "#40841 (2026-05-21)"},
	{name: "dp-supervisor-probe-interval-s", arity: oneValue, kind: ignored, since: Version{0, 22, 0}, added: "#40841 (2026-05-21)"},
	{name: "dp-supervisor-probe-timeout-s", arity: oneValue, kind: ignored, since: Version{0, 22, 0}, added: "#40841 (2026-05-21)"},
	{name: "dtype", arity: oneValue, kind: modelled},
	{name: "ec-manager-config", arity: oneValue, json: true, kind: refused, what: whatEncodercache, since: Version{0, 25, 0}, added: "#51251 (2026-08-13)"},
	{name: "ec-transfer-config", arity: oneValue, json: true, kind: refused, what: whatTransfer, since: Version{0, 11, 0}, added: "#25233 (2025-11-11)"},
	{name: "enable-auto-tool-choice", arity: noValue, neg: true, kind: ignored},
	{name: "enable-bf16x3-router-gemm", arity: noValue, neg: true, kind: ignored, since: Version{0, 25, 0}, added: "#47973 (2026-07-16)"},
	{name: "enable-chunked-prefill", arity: noValue, neg: true, kind: modelled}, // chunked.go: both forms sized per release
	{name: "enable-cumem-allocator", arity: noValue, neg: true, kind: ignored, since: Version{0, 22, 0}, added: "#33648 (2026-05-20)"},
	{name: "enable-dbo", arity: noValue, neg: true, kind: refused, what: whatDbo, since: Version{0, 10, 2}, added: "#23693 (2025-09-16)"},
	{name: "enable-elastic-ep", arity: noValue, neg: true, kind: refused, what: whatElastic, since: Version{0, 17, 0}, added: "#34861 (2026-02-28)"},
	{name: "enable-ep-weight-filter", arity: noValue, neg: true, kind: ignored, since: Version{0, 19, 0}, added: "#37351 (2026-03-18)"},
	{name: "enable-eplb", arity: noValue, neg: true, kind: modelled, since: Version{0, 10, 0}, added: "#18343 (2025-06-26)"}, // eplb.go: sized from 0.28.0, refused by name before it
	{name: "enable-expert-parallel", aliases: []string{"ep"}, arity: noValue, neg: true, kind: modelled, since: Version{0, 7, 3}, added: "#14305 (2025-03-06)"},
	{name: "enable-fault-tolerance", arity: noValue, neg: true, kind: ignored, since: Version{0, 25, 0}, added: "#44428 (2026-07-25)"},
	{name: "enable-flash-late-interaction", arity: noValue, neg: true, kind: ignored, since: Version{0, 19, 0}, added: "#38620 (2026-04-03)"},
	{name: "enable-flashinfer-autotune", arity: noValue, neg: true, kind: ignored, since: Version{0, 15, 0}, added: "#34006 (2026-02-07)"},
	{name: "enable-force-include-usage", arity: noValue, neg: true, kind: ignored, since: Version{0, 10, 0}, added: "#19695 (2025-06-25)"},
	{name: "enable-layerwise-nvtx-tracing", arity: noValue, neg: true, kind: ignored, since: Version{0, 11, 0}, added: "#29990 (2025-12-05)"},
	{name: "enable-log-deltas", arity: noValue, neg: true, kind: ignored, since: Version{0, 14, 0}, added: "#32020 (2026-01-09)"},
	{name: "enable-log-outputs", arity: noValue, neg: true, kind: ignored, since: Version{0, 10, 0}, added: "#20707 (2025-08-06)"},
	{name: "enable-log-requests", arity: noValue, neg: true, kind: ignored, since: Version{0, 10, 0}, added: "#21739 (2025-08-01)"},
	{name: "enable-logging-iteration-details", arity: noValue, neg: true, kind: ignored, since: Version{0, 14, 0}, added: "#31193 (2026-01-09)"},
	{name: "enable-lora", arity: noValue, neg: true, kind: modelled}, // lora.go: sized from 0.17.0, refused by name before it
	{name: "enable-lora-bias", arity: noValue, kind: refused, what: whatLora, since: Version{0, 6, 4}, added: "in vLLM 0.6.4", until: Version{0, 14, 0}, removed: "#25807 (2025-10-10)"},
	{name: "enable-mamba-cache-stochastic-rounding", arity: noValue, neg: true, kind: ignored, since: Version{0, 19, 0}, added: "#35753 (2026-03-30)"},
	{name: "enable-mfu-metrics", arity: noValue, neg: true, kind: ignored, since: Version{0, 11, 0}, added: "#30738 (2025-12-18)"},
	{name: "enable-mixed-moe-lora-format", arity: noValue, neg: true, kind: refused, what: whatLora, since: Version{0, 22, 0}, added: "#42242 (2026-05-18)"},
	{name: "enable-mm-embeds", arity: noValue, neg: true, kind: refused, what: whatEmbeds, since: Version{0, 11, 0}, added: "#27204 (2025-10-22)"},
	{name: "enable-moe-shared-loras", arity: noValue, neg: true, kind: refused, what: whatLora, since: Version{0, 25, 0}, added: "#48884 (2026-07-17)"},
	{name: "enable-multimodal-encoder-data-parallel", arity: noValue, kind: refused, what: whatEncoder, since: Version{0, 10, 0}, added: "#18368 (2025-06-02)", until: Version{0, 14, 0}, removed: "#30397 (2025-12-10)"},
	{name: "enable-offline-docs", arity: noValue, neg: true, kind: ignored, since: Version{0, 14, 0}, added: "#30184 (2025-12-29)"},
	{name: "enable-per-request-metrics", arity: noValue, neg: true, kind: ignored, since: Version{0, 25, 0}, added: "#46768 (2026-07-06)"},
	{name: "enable-prefix-caching", arity: noValue, neg: true, kind: modelled},
	{name: "enable-prompt-adapter", arity: noValue, kind: refused, what: whatLora, until: Version{0, 10, 2}, removed: "#23284 (2025-08-20)"},
	{name: "enable-prompt-embeds", arity: noValue, neg: true, kind: refused, what: whatPrompts, since: Version{0, 8, 0}, added: "#17607 (2025-05-04)"},
	{name: "enable-prompt-tokens-details", arity: noValue, neg: true, kind: ignored, since: Version{0, 6, 4}, added: "in vLLM 0.6.4"},
	{name: "enable-reasoning", arity: noValue, kind: ignored, since: Version{0, 7, 1}, added: "in vLLM 0.7.1", until: Version{0, 10, 2}, removed: "#20979 (2025-07-15)"},
	{name: "enable-request-id-headers", arity: noValue, neg: true, kind: ignored, since: Version{0, 6, 6}, added: "in vLLM 0.6.6"},
	{name: "enable-return-routed-experts", arity: noValue, neg: true, kind: refused, what: whatRouted, since: Version{0, 14, 0}, added: "#28284 (2026-01-12)"},
	{name: "enable-server-load-tracking", arity: noValue, neg: true, kind: ignored, since: Version{0, 8, 0}, added: "#13950 (2025-03-14)"},
	{name: "enable-sleep-mode", arity: noValue, neg: true, kind: ignored, since: Version{0, 7, 0}, added: "in vLLM 0.7.0"},
	{name: "enable-ssl-refresh", arity: noValue, neg: true, kind: ignored, since: Version{0, 7, 3}, added: "#13495 (2025-02-22)"},
	{name: "enable-tokenizer-info-endpoint", arity: noValue, neg: true, kind: ignored, since: Version{0, 10, 0}, added: "#20575 (2025-07-16)"},
	{name: "enable-tower-connector-lora", arity: noValue, neg: true, kind: refused, what: whatLora, since: Version{0, 14, 0}, added: "#26674 (2025-12-26)"},
	{name: "enforce-eager", arity: noValue, neg: true, kind: modelled},
	{name: "engine-use-ray", arity: noValue, kind: ignored, until: Version{0, 6, 2}, removed: "gone from the tag v0.6.2"},
	{name: "eplb-config", arity: oneValue, json: true, kind: modelled, since: Version{0, 10, 0}, added: "#20562 (2025-08-20)"}, // eplb.go: sized from 0.28.0, refused by name before it
	{name: "eplb-log-balancedness", arity: noValue, kind: ignored, since: Version{0, 10, 0}, added: "#18343 (2025-06-26)", until: Version{0, 14, 0}, removed: "#29324 (2025-11-25)"},
	{name: "eplb-step-interval", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#18343 (2025-06-26)", until: Version{0, 14, 0}, removed: "#29324 (2025-11-25)"},
	{name: "eplb-window-size", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#18343 (2025-06-26)", until: Version{0, 14, 0}, removed: "#29324 (2025-11-25)"},
	{name: "exclude-tools-when-tool-choice-none", arity: noValue, neg: true, kind: ignored, since: Version{0, 10, 0}, added: "#20544 (2025-07-24)"},
	{name: "expand-tools-even-if-tool-choice-none", arity: noValue, kind: ignored, since: Version{0, 10, 0}, added: "#17177 (2025-07-01)", until: Version{0, 10, 2}, removed: "#20544 (2025-07-24)"},
	{name: "expert-placement-strategy", arity: oneValue, kind: ignored, since: Version{0, 10, 2}, added: "#23745 (2025-09-16)"},
	{name: "fail-on-environ-validation", arity: noValue, neg: true, kind: ignored, since: Version{0, 15, 0}, added: "#33581 (2026-02-10)"},
	{name: "fault-tolerance-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 25, 0}, added: "#44428 (2026-07-25)"},
	{name: "fingerprint-mode", arity: oneValue, kind: ignored, since: Version{0, 20, 0}, added: "#40537 (2026-04-27)"},
	{name: "fingerprint-value", arity: oneValue, kind: ignored, since: Version{0, 20, 0}, added: "#40537 (2026-04-27)"},
	{name: "fully-sharded-loras", arity: noValue, neg: true, kind: modelled}, // lora.go: sized from 0.17.0, refused by name before it
	{name: "gdn-prefill-backend", arity: oneValue, kind: ignored, since: Version{0, 18, 0}, added: "#36647 (2026-03-16)"},
	{name: "generation-config", arity: oneValue, kind: ignored, since: Version{0, 6, 6}, added: "in vLLM 0.6.6"},
	{name: "gpu-memory-utilization", arity: oneValue, kind: modelled},
	{name: "grpc", arity: noValue, kind: ignored, since: Version{0, 18, 0}, added: "#36169 (2026-03-10)"},
	{name: "guided-decoding-backend", arity: oneValue, kind: ignored, until: Version{0, 14, 0}, removed: "#29326 (2025-11-25)"},
	{name: "guided-decoding-disable-additional-properties", arity: noValue, kind: ignored, since: Version{0, 8, 0}, added: "#17008 (2025-04-29)", until: Version{0, 14, 0}, removed: "#29326 (2025-11-25)"},
	{name: "guided-decoding-disable-any-whitespace", arity: noValue, kind: ignored, since: Version{0, 8, 0}, added: "#17008 (2025-04-29)", until: Version{0, 14, 0}, removed: "#29326 (2025-11-25)"},
	{name: "guided-decoding-disable-fallback", arity: noValue, kind: ignored, since: Version{0, 8, 0}, added: "#17008 (2025-04-29)", until: Version{0, 14, 0}, removed: "#29326 (2025-11-25)"},
	{name: "h11-max-header-count", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#23267 (2025-08-20)"},
	{name: "h11-max-incomplete-event-size", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#23267 (2025-08-20)"},
	{name: "headless", arity: noValue, kind: ignored, since: Version{0, 8, 0}, added: "#15977 (2025-05-13)"},
	{name: "hf-config-path", arity: oneValue, kind: refused, what: whatConfig, since: Version{0, 7, 3}, added: "#13167 (2025-02-27)"},
	{name: "hf-overrides", arity: oneValue, json: true, kind: refused, what: whatConfig, since: Version{0, 6, 4}, added: "in vLLM 0.6.4"},
	{name: "hf-token", arity: optValue, neg: true, kind: ignored, since: Version{0, 8, 0}, added: "#16093 (2025-04-06)"},
	{name: "host", arity: oneValue, kind: ignored},
	{name: "ignore-patterns", arity: manyValues, kind: ignored},
	{name: "interleave-mm-strings", arity: noValue, neg: true, kind: ignored, since: Version{0, 10, 0}, added: "#14047 (2025-07-07)"},
	{name: "io-processor-plugin", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#22820 (2025-08-31)"},
	{name: "ir-op-priority", arity: oneValue, json: true, kind: ignored, since: Version{0, 19, 0}, added: "#33825 (2026-03-31)"},
	{name: "jit-monitor-mode", arity: oneValue, kind: ignored, since: Version{0, 23, 0}, added: "#46167 (2026-06-23)"},
	{name: "jit-monitor-verbose", arity: noValue, neg: true, kind: ignored, since: Version{0, 23, 0}, added: "#45631 (2026-06-16)"},
	{name: "kda-prefill-backend", arity: oneValue, kind: ignored, since: Version{0, 25, 0}, added: "#50000 (2026-07-30)"},
	{name: "kernel-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 15, 0}, added: "#34006 (2026-02-07)"},
	{name: "kv-cache-dtype", arity: oneValue, kind: modelled},
	{name: "kv-cache-dtype-skip-layers", arity: manyValues, kind: modelled, since: Version{0, 19, 0}, added: "#33695 (2026-03-27)"}, // kvskip.go; parts refused by name there
	{name: "kv-cache-memory-bytes", arity: oneValue, kind: modelled, since: Version{0, 10, 2}, added: "#21489 (2025-09-11)"},
	{name: "kv-cache-metrics", arity: noValue, neg: true, kind: ignored, since: Version{0, 11, 0}, added: "#27793 (2025-12-01)"},
	{name: "kv-cache-metrics-sample", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#27793 (2025-12-01)"},
	{name: "kv-events-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 8, 0}, added: "#16750 (2025-04-30)"},
	{name: "kv-offloading-backend", arity: oneValue, kind: modelled, since: Version{0, 11, 0}, added: "#27621 (2025-11-01)"}, // offload.go: native sized from 0.28.0, refused by name before it; lmcache refused
	{name: "kv-offloading-size", arity: oneValue, kind: modelled, since: Version{0, 11, 0}, added: "#27621 (2025-11-01)"},    // offload.go: native sized from 0.28.0, refused by name before it
	{name: "kv-sharing-fast-prefill", arity: noValue, neg: true, kind: refused, what: whatHybrid, since: Version{0, 10, 0}, added: "#21590 (2025-07-30)"},
	{name: "kv-transfer-config", arity: oneValue, json: true, kind: modelled, since: Version{0, 6, 5}, added: "in vLLM 0.6.5"},       // kvtransfer.go, kvhost.go: NIXL from 0.28.0, kv_buffer_device cuda or cpu (its host copy of the KV cache); LMCache (lmcache.go), other connectors and older releases refused by name
	{name: "language-model-only", arity: noValue, neg: true, kind: modelled, since: Version{0, 16, 0}, added: "#34120 (2026-02-09)"}, // towers.go: every modality's limit 0, so the towers _mark_tower_model marks are not built and the profile runs no encoder
	{name: "limit-mm-per-prompt", arity: oneValue, json: true, kind: modelled},
	{name: "linear-backend", arity: oneValue, kind: refused, what: whatKernels, neutral: []string{"auto"}, since: Version{0, 22, 0}, added: "#39538 (2026-05-15)"},
	{name: "load-format", arity: oneValue, kind: ignored},
	{name: "log-config-file", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#18403 (2025-06-02)"},
	{name: "log-error-stack", arity: noValue, neg: true, kind: ignored, since: Version{0, 10, 0}, added: "#22960 (2025-08-27)"},
	{name: "logits-processor-pattern", arity: oneValue, kind: ignored, since: Version{0, 6, 5}, added: "in vLLM 0.6.5", until: Version{0, 17, 0}, removed: "#34400 (2026-02-12)"},
	{name: "logits-processors", arity: manyValues, kind: refused, what: whatPlugin, since: Version{0, 10, 0}, added: "#19912 (2025-08-16)"},
	{name: "logprobs-mode", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#21398 (2025-07-23)"},
	{name: "long-lora-scaling-factors", arity: oneValue, kind: refused, what: whatLora, until: Version{0, 10, 2}, removed: "#21169 (2025-07-19)"},
	{name: "long-prefill-token-threshold", arity: oneValue, kind: modelled, since: Version{0, 7, 3}, added: "#10235 (2025-02-14)"},
	{name: "lora-dtype", arity: oneValue, kind: modelled}, // lora.go: sized from 0.17.0, refused by name before it
	{name: "lora-extra-vocab-size", arity: oneValue, kind: refused, what: whatLora, until: Version{0, 14, 0}, removed: "#28545 (2025-11-21)"},
	{name: "lora-modules", arity: manyValues, kind: modelled}, // lora.go: sized from 0.17.0, refused by name before it
	{name: "lora-target-modules", arity: manyValues, kind: refused, what: whatLora, since: Version{0, 19, 0}, added: "#34984 (2026-03-17)"},
	{name: "mamba-backend", arity: oneValue, kind: ignored, since: Version{0, 19, 0}, added: "#36162 (2026-04-14)"},
	{name: "mamba-block-size", arity: oneValue, kind: refused, what: whatState, since: Version{0, 11, 0}, added: "#27289 (2025-10-28)"},
	{name: "mamba-cache-dtype", arity: oneValue, kind: modelled, since: Version{0, 10, 0}, added: "#22928 (2025-08-15)"},
	{name: "mamba-cache-mode", arity: oneValue, kind: refused, what: whatState, since: Version{0, 15, 0}, added: "#30877 (2026-01-23)"},
	{name: "mamba-cache-philox-rounds", arity: oneValue, kind: ignored, since: Version{0, 19, 0}, added: "#35753 (2026-03-30)"},
	{name: "mamba-ssm-cache-dtype", arity: oneValue, kind: modelled, since: Version{0, 10, 0}, added: "#22928 (2025-08-15)"},
	{name: "mamba-ssu-algorithm", arity: oneValue, kind: ignored, since: Version{0, 25, 0}, added: "#50157 (2026-08-04)"},
	{name: "master-addr", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#23691 (2025-11-16)"},
	{name: "master-port", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#23691 (2025-11-16)"},
	{name: "max-context-len-to-capture", arity: oneValue, kind: refused, what: whatGraphs, until: Version{0, 6, 4}, removed: "gone from the tag v0.6.4"},
	{name: "max-cpu-loras", arity: oneValue, kind: modelled}, // lora.go: sized from 0.17.0, refused by name before it
	{name: "max-cudagraph-capture-size", arity: oneValue, kind: modelled, from: compilationSince, what: whatGraphs, since: Version{0, 11, 0}, added: "#26016 (2025-10-24)"},
	{name: "max-log-len", arity: oneValue, kind: ignored},
	{name: "max-logprobs", arity: oneValue, kind: ignored},
	{name: "max-long-partial-prefills", arity: oneValue, kind: ignored, since: Version{0, 7, 3}, added: "#10235 (2025-02-14)", until: Version{0, 28, 0}, removed: "#49244 (2026-07-21)"},
	{name: "max-lora-rank", arity: oneValue, kind: modelled}, // lora.go: sized from 0.17.0, refused by name before it
	{name: "max-loras", arity: oneValue, kind: modelled},     // lora.go: sized from 0.17.0, refused by name before it
	{name: "max-model-len", arity: oneValue, kind: modelled},
	{name: "max-num-batched-tokens", arity: oneValue, kind: modelled},
	{name: "max-num-partial-prefills", arity: oneValue, kind: modelled, since: Version{0, 7, 3}, added: "#10235 (2025-02-14)", until: Version{0, 28, 0}, removed: "#49244 (2026-07-21)"},
	{name: "max-num-scheduled-tokens", arity: oneValue, kind: refused, what: whatSched, since: Version{0, 25, 0}, added: "#47608 (2026-07-08)"},
	{name: "max-num-seqs", arity: oneValue, kind: modelled},
	{name: "max-parallel-loading-workers", arity: oneValue, kind: ignored},
	{name: "max-prompt-adapter-token", arity: oneValue, kind: refused, what: whatLora, until: Version{0, 10, 2}, removed: "#20588 (2025-07-23)"},
	{name: "max-prompt-adapters", arity: oneValue, kind: refused, what: whatLora, until: Version{0, 10, 2}, removed: "#20588 (2025-07-23)"},
	{name: "max-seq-len-to-capture", arity: oneValue, kind: refused, what: whatGraphs, until: Version{0, 14, 0}, removed: "#25543 (2025-09-24)"},
	{name: "media-io-kwargs", arity: oneValue, json: true, kind: ignored, since: Version{0, 10, 0}, added: "#20105 (2025-07-01)"},
	{name: "middleware", arity: manyValues, kind: ignored},
	{name: "mm-device-do-normalize", arity: noValue, neg: true, kind: ignored, since: Version{0, 25, 0}, added: "#50411 (2026-08-06)"},
	{name: "mm-encoder-attn-backend", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#27061 (2025-10-21)"},
	{name: "mm-encoder-attn-dtype", arity: oneValue, kind: refused, what: whatMm, since: Version{0, 20, 0}, added: "#38065 (2026-04-27)"},
	{name: "mm-encoder-fp8-scale-path", arity: oneValue, kind: refused, what: whatMm, since: Version{0, 20, 0}, added: "#38065 (2026-04-27)"},
	{name: "mm-encoder-fp8-scale-save-margin", arity: oneValue, kind: ignored, since: Version{0, 20, 0}, added: "#38065 (2026-04-27)"},
	{name: "mm-encoder-fp8-scale-save-path", arity: oneValue, kind: ignored, since: Version{0, 20, 0}, added: "#38065 (2026-04-27)"},
	{name: "mm-encoder-only", arity: noValue, neg: true, kind: refused, what: whatMmenc, since: Version{0, 15, 0}, added: "#32605 (2026-01-20)"},
	{name: "mm-encoder-tp-mode", arity: oneValue, kind: modelled, since: Version{0, 10, 0}, added: "#23190 (2025-08-20)"},
	{name: "mm-hasher-algorithm", arity: oneValue, kind: ignored, since: Version{0, 25, 0}, added: "#49686 (2026-07-31)"},
	{name: "mm-ipc-gpu-memory-gb", arity: oneValue, kind: refused, what: whatMmipc, since: Version{0, 23, 0}, added: "#44465 (2026-06-26)"},
	{name: "mm-placeholder-str-override", arity: oneValue, json: true, kind: ignored, since: Version{0, 10, 0}, added: "#20105 (2025-07-01)", until: Version{0, 10, 2}, removed: "#20355 (2025-07-03)"},
	{name: "mm-processor-cache-gb", arity: oneValue, kind: modelled, since: Version{0, 10, 0}, added: "#22441 (2025-08-07)"},
	{name: "mm-processor-cache-type", arity: oneValue, kind: ignored, since: Version{0, 10, 2}, added: "#20452 (2025-09-12)"},
	{name: "mm-processor-device", arity: oneValue, kind: refused, what: whatMm, neutral: []string{"auto", "cpu"}, since: Version{0, 25, 0}, added: "#50390 (2026-08-05)"},
	{name: "mm-processor-kwargs", arity: oneValue, json: true, kind: modelled, since: Version{0, 6, 2}, added: "in vLLM 0.6.2"},
	{name: "mm-shm-cache-max-object-size-mb", arity: oneValue, kind: refused, what: whatMmhost, since: Version{0, 10, 2}, added: "#20452 (2025-09-12)"},
	{name: "mm-tensor-ipc", arity: oneValue, kind: ignored, since: Version{0, 19, 0}, added: "#32104 (2026-03-21)"},
	{name: "model", arity: oneValue, kind: modelled},
	{name: "model-class-overrides", arity: oneValue, json: true, kind: refused, what: whatConfig, since: Version{0, 25, 0}, added: "#47148 (2026-07-07)"},
	{name: "model-impl", arity: oneValue, kind: refused, what: whatImpl, neutral: []string{"auto", "vllm"}, since: Version{0, 7, 2}, added: "in vLLM 0.7.2"},
	{name: "model-loader-extra-config", arity: oneValue, json: true, kind: ignored},
	{name: "moe-backend", arity: oneValue, kind: refused, what: whatKernels, neutral: []string{"auto"}, since: Version{0, 17, 0}, added: "#33807 (2026-02-25)"},
	{name: "multi-step-stream-outputs", arity: noValue, kind: ignored, since: Version{0, 6, 2}, added: "in vLLM 0.6.2", until: Version{0, 10, 2}, removed: "#22138 (2025-08-12)"},
	{name: "ngram-prompt-lookup-max", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "ngram-prompt-lookup-min", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "nnodes", aliases: []string{"n"}, arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#23691 (2025-11-16)"},
	{name: "node-rank", aliases: []string{"r"}, arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#23691 (2025-11-16)"},
	{name: "num-gpu-blocks-override", arity: oneValue, kind: modelled, from: overrideSince, what: whatBlocks},
	{name: "num-lookahead-slots", arity: oneValue, kind: refused, what: whatLookahead, until: Version{0, 14, 0}, removed: "#29000 (2025-11-20)"},
	{name: "num-redundant-experts", arity: oneValue, kind: refused, what: whatEplb, since: Version{0, 10, 0}, added: "#18343 (2025-06-26)", until: Version{0, 14, 0}, removed: "#29324 (2025-11-25)"},
	{name: "num-scheduler-steps", arity: oneValue, kind: ignored, until: Version{0, 10, 2}, removed: "#22138 (2025-08-12)"},
	{name: "num-speculative-tokens", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "numa-bind", arity: noValue, neg: true, kind: ignored, since: Version{0, 19, 0}, added: "#38635 (2026-04-08)"},
	{name: "numa-bind-cpus", arity: manyValues, kind: ignored, since: Version{0, 19, 0}, added: "#38635 (2026-04-08)"},
	{name: "numa-bind-nodes", arity: manyValues, kind: ignored, since: Version{0, 19, 0}, added: "#38635 (2026-04-08)"},
	{name: "offload-backend", arity: oneValue, kind: refused, what: whatOffload, since: Version{0, 17, 0}, added: "#29941 (2026-02-25)"},
	{name: "offload-group-size", arity: oneValue, kind: refused, what: whatOffload, since: Version{0, 17, 0}, added: "#29941 (2026-02-25)"},
	{name: "offload-num-in-group", arity: oneValue, kind: refused, what: whatOffload, since: Version{0, 17, 0}, added: "#29941 (2026-02-25)"},
	{name: "offload-params", arity: manyValues, kind: refused, what: whatOffload, since: Version{0, 17, 0}, added: "#29941 (2026-02-25)"},
	{name: "offload-prefetch-step", arity: oneValue, kind: refused, what: whatOffload, since: Version{0, 17, 0}, added: "#29941 (2026-02-25)"},
	{name: "optimization-level", arity: oneValue, kind: modelled, from: compilationSince, what: whatGraphs, neutral: []string{"2", "O2"}, since: Version{0, 11, 0}, added: "#26847 (2025-11-27)"},
	{name: "otlp-traces-endpoint", arity: oneValue, kind: ignored},
	{name: "override-attention-dtype", arity: oneValue, kind: refused, what: whatAttndtype, since: Version{0, 10, 0}, added: "#17331 (2025-06-11)"},
	{name: "override-generation-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 7, 1}, added: "in vLLM 0.7.1"},
	{name: "override-neuron-config", arity: oneValue, json: true, kind: ignored, until: Version{0, 10, 2}, removed: "#21159 (2025-09-06)"},
	{name: "override-pooler-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 6, 4}, added: "in vLLM 0.6.4", until: Version{0, 14, 0}, removed: "#29402 (2025-11-25)"},
	{name: "performance-mode", arity: oneValue, kind: refused, what: whatPerf, neutral: []string{"balanced"}, since: Version{0, 17, 0}, added: "#34936 (2026-02-25)"},
	{name: "pipeline-parallel-size", aliases: []string{"pp"}, arity: oneValue, kind: modelled},
	{name: "pooler-config", arity: oneValue, json: true, kind: modelled, since: Version{0, 10, 2}, added: "#25181 (2025-09-19)"},
	{name: "port", arity: oneValue, kind: ignored},
	{name: "preemption-mode", arity: oneValue, kind: ignored, until: Version{0, 14, 0}, removed: "#25334 (2025-09-21)"},
	{name: "prefill-context-parallel-size", aliases: []string{"pcp"}, arity: oneValue, kind: refused, what: whatCp, neutral: []string{"1"}, since: Version{0, 11, 0}, added: "#28718 (2025-11-19)"},
	{name: "prefill-schedule-interval", arity: oneValue, kind: ignored, since: Version{0, 23, 0}, added: "#44558 (2026-06-16)"},
	{name: "prefix-caching-hash-algo", arity: oneValue, kind: ignored, since: Version{0, 8, 0}, added: "#15297 (2025-03-26)"},
	{name: "prefix-match-unit", arity: oneValue, kind: refused, what: whatState, since: Version{0, 25, 0}, added: "#46384 (2026-07-12)"},
	{name: "profiler-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 11, 0}, added: "#29912 (2025-12-09)"},
	{name: "prompt-adapters", arity: manyValues, kind: refused, what: whatLora, until: Version{0, 10, 2}, removed: "#20588 (2025-07-23)"},
	{name: "pt-load-map-location", arity: oneValue, json: true, kind: ignored, since: Version{0, 8, 0}, added: "#16869 (2025-05-01)"},
	{name: "qlora-adapter-name-or-path", arity: oneValue, kind: refused, what: whatLora, until: Version{0, 10, 2}, removed: "#20979 (2025-07-15)"},
	{name: "quantization", aliases: []string{"q"}, arity: oneValue, kind: modelled},
	{name: "quantization-config", arity: oneValue, json: true, kind: refused, what: whatQuantcfg, since: Version{0, 21, 0}, added: "#41566 (2026-05-13)"},
	{name: "quantization-param-path", arity: oneValue, kind: refused, what: whatKvscales, until: Version{0, 7, 0}, removed: "gone from the tag v0.7.0"},
	{name: "ray-workers-use-nsight", arity: noValue, neg: true, kind: ignored},
	{name: "reasoning-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 19, 0}, added: "#20859 (2026-03-24)"},
	{name: "reasoning-parser", arity: oneValue, kind: ignored, since: Version{0, 7, 1}, added: "in vLLM 0.7.1"},
	{name: "reasoning-parser-plugin", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#28075 (2025-11-06)"},
	{name: "renderer-num-workers", arity: oneValue, kind: ignored, since: Version{0, 19, 0}, added: "#34789 (2026-03-26)"},
	{name: "replayssm-buffer-len", arity: oneValue, kind: refused, what: whatReplay, since: Version{0, 25, 0}, added: "#48018 (2026-07-24)"},
	{name: "response-role", arity: oneValue, kind: ignored},
	{name: "return-sampling-mask", arity: noValue, neg: true, kind: refused, what: whatSampler, since: Version{0, 25, 0}, added: "#49577 (2026-08-13)"},
	{name: "return-tokens-as-token-ids", arity: noValue, neg: true, kind: ignored},
	{name: "revision", arity: oneValue, kind: modelled},
	{name: "root-path", arity: oneValue, kind: ignored},
	{name: "rope-scaling", arity: oneValue, json: true, kind: refused, what: whatRope, until: Version{0, 14, 0}, removed: "#28006 (2025-11-04)"},
	{name: "rope-theta", arity: oneValue, kind: refused, what: whatRope, until: Version{0, 14, 0}, removed: "#28006 (2025-11-04)"},
	{name: "runner", arity: oneValue, kind: modelled, since: Version{0, 10, 0}, added: "#21470 (2025-07-27)"},
	{name: "safetensors-load-strategy", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#24469 (2025-09-10)"},
	{name: "safetensors-prefetch-block-size", arity: oneValue, kind: ignored, since: Version{0, 21, 0}, added: "#41499 (2026-05-10)"},
	{name: "safetensors-prefetch-num-threads", arity: oneValue, kind: ignored, since: Version{0, 21, 0}, added: "#41499 (2026-05-10)"},
	{name: "scheduler-cls", arity: oneValue, kind: ignored, since: Version{0, 7, 3}, added: "#13161 (2025-02-19)"},
	{name: "scheduler-delay-factor", arity: oneValue, kind: ignored, until: Version{0, 14, 0}, removed: "#25334 (2025-09-21)"},
	{name: "scheduler-reserve-full-isl", arity: noValue, neg: true, kind: ignored, since: Version{0, 19, 0}, added: "#37307 (2026-03-24)"},
	{name: "scheduling-policy", arity: oneValue, kind: ignored, since: Version{0, 6, 3}, added: "in vLLM 0.6.3"},
	{name: "seed", arity: oneValue, kind: ignored},
	{name: "served-model-name", arity: manyValues, kind: ignored},
	{name: "show-hidden-metrics-for-version", arity: oneValue, kind: ignored, since: Version{0, 7, 3}, added: "#13295 (2025-02-22)"},
	{name: "shutdown-timeout", arity: oneValue, kind: ignored, since: Version{0, 17, 0}, added: "#34730 (2026-03-05)"},
	{name: "skip-mm-profiling", arity: noValue, neg: true, kind: modelled, since: Version{0, 10, 0}, added: "#22950 (2025-08-15)"},
	{name: "skip-tokenizer-init", arity: noValue, neg: true, kind: ignored},
	{name: "spec-decoding-acceptance-method", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "spec-method", arity: oneValue, kind: refused, what: whatSpec, since: Version{0, 22, 0}, added: "#42476 (2026-05-18)"},
	{name: "spec-model", arity: oneValue, kind: refused, what: whatSpec, since: Version{0, 22, 0}, added: "#42476 (2026-05-18)"},
	{name: "spec-tokens", arity: oneValue, kind: refused, what: whatSpec, since: Version{0, 22, 0}, added: "#42476 (2026-05-18)"},
	{name: "specialize-active-lora", arity: noValue, neg: true, kind: refused, what: whatLora, since: Version{0, 15, 0}, added: "#32005 (2026-02-02)"},
	{name: "speculative-config", aliases: []string{"sc"}, arity: oneValue, json: true, kind: modelled, since: Version{0, 8, 0}, added: "#14434 (2025-03-22)"}, // specdecode.go: ngram and suffix sized from 0.14.0, eagle3, eagle and draft_model with a local draft on the V1 runner (specdraft.go, specdraft_eagle.go, specdraftmodel.go), medusa (specmedusa.go); other methods refused by name
	{name: "speculative-disable-by-batch-size", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "speculative-disable-mqa-scorer", arity: noValue, kind: refused, what: whatSpec, since: Version{0, 6, 3}, added: "in vLLM 0.6.3", until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "speculative-draft-tensor-parallel-size", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "speculative-max-model-len", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "speculative-model", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "speculative-model-quantization", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "ssl-ca-certs", arity: oneValue, kind: ignored},
	{name: "ssl-cert-reqs", arity: oneValue, kind: ignored},
	{name: "ssl-certfile", arity: oneValue, kind: ignored},
	{name: "ssl-ciphers", arity: oneValue, kind: ignored, since: Version{0, 15, 0}, added: "#30937 (2026-01-22)"},
	{name: "ssl-keyfile", arity: oneValue, kind: ignored},
	{name: "stream-interval", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#27869 (2025-11-13)"},
	{name: "structured-outputs-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 10, 2}, added: "#22772 (2025-09-18)"},
	{name: "swap-space", arity: oneValue, kind: modelled, until: Version{0, 18, 0}, removed: "#36216 (2026-03-07)"},
	{name: "task", arity: oneValue, kind: refused, what: whatRunner, neutral: []string{"auto", "generate"}, since: Version{0, 6, 4}, added: "in vLLM 0.6.4", until: Version{0, 14, 0}, removed: "#30397 (2025-12-10)"},
	{name: "tensor-parallel-size", aliases: []string{"tp"}, arity: oneValue, kind: modelled},
	{name: "tokenizer", arity: oneValue, kind: ignored},
	{name: "tokenizer-mode", arity: oneValue, kind: ignored},
	{name: "tokenizer-pool-extra-config", arity: oneValue, kind: ignored, until: Version{0, 10, 2}, removed: "#20968 (2025-07-15)"},
	{name: "tokenizer-pool-size", arity: oneValue, kind: ignored, until: Version{0, 10, 2}, removed: "#20968 (2025-07-15)"},
	{name: "tokenizer-pool-type", arity: oneValue, kind: ignored, until: Version{0, 10, 2}, removed: "#20968 (2025-07-15)"},
	{name: "tokenizer-revision", arity: oneValue, kind: ignored},
	{name: "tokens-only", arity: noValue, neg: true, kind: ignored, since: Version{0, 11, 0}, added: "#24261 (2025-11-14)"},
	{name: "tool-call-parser", arity: oneValue, kind: ignored},
	{name: "tool-parser-plugin", arity: oneValue, kind: ignored, since: Version{0, 6, 3}, added: "in vLLM 0.6.3"},
	{name: "tool-server", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#22393 (2025-08-06)"},
	{name: "trust-remote-code", arity: noValue, neg: true, kind: modelled},
	{name: "trust-request-chat-template", arity: noValue, neg: true, kind: ignored, since: Version{0, 11, 0}, added: "#25794 (2025-09-27)"},
	{name: "typical-acceptance-sampler-posterior-alpha", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "typical-acceptance-sampler-posterior-threshold", arity: oneValue, kind: refused, what: whatSpec, until: Version{0, 10, 0}, removed: "#15466 (2025-03-31)"},
	{name: "ubatch-size", arity: oneValue, kind: refused, what: whatDbo, neutral: []string{"0", "1"}, since: Version{0, 11, 0}, added: "#30120 (2025-12-16)"}, // neutral: 0 and 1 do not micro-batch (use_ubatching is ubatch_size > 1, vllm/config/parallel.py:554-555)
	{name: "uds", arity: oneValue, kind: ignored, since: Version{0, 10, 0}, added: "#18097 (2025-08-08)"},
	{name: "use-fp64-gumbel", arity: noValue, neg: true, kind: refused, what: whatSampler, since: Version{0, 22, 0}, added: "#41775 (2026-05-15)"},
	{name: "use-replayssm", arity: noValue, neg: true, kind: refused, what: whatReplay, since: Version{0, 25, 0}, added: "#48018 (2026-07-24)"},
	{name: "use-tqdm-on-load", arity: noValue, neg: true, kind: ignored, since: Version{0, 7, 3}, added: "#14407 (2025-03-08)"},
	{name: "use-v2-block-manager", arity: noValue, kind: ignored, until: Version{0, 10, 2}, removed: "#21349 (2025-07-22)"},
	{name: "uvicorn-log-level", arity: oneValue, kind: ignored},
	{name: "video-pruning-method", arity: oneValue, kind: ignored, since: Version{0, 25, 0}, added: "#47750 (2026-07-28)"},
	{name: "video-pruning-rate", arity: oneValue, kind: ignored, since: Version{0, 11, 0}, added: "#22980 (2025-09-26)"},
	{name: "watermark", arity: oneValue, kind: ignored, since: Version{0, 23, 0}, added: "#44594 (2026-06-11)"},
	{name: "weight-transfer-config", arity: oneValue, json: true, kind: ignored, since: Version{0, 15, 0}, added: "#31943 (2026-02-05)"},
	{name: "worker-cls", arity: oneValue, kind: refused, what: whatWorker, neutral: []string{"auto"}, since: Version{0, 6, 5}, added: "in vLLM 0.6.5"},
	{name: "worker-extension-cls", arity: oneValue, kind: ignored, since: Version{0, 7, 3}, added: "#14185 (2025-03-07)"},
	{name: "worker-use-ray", arity: noValue, kind: ignored, until: Version{0, 7, 0}, removed: "gone from the tag v0.7.0"},
}
