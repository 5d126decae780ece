package vllm

// This file says why membudget refuses LMCache, in process
// (--kv-transfer-config with LMCacheConnectorV1) and as a server
// (--kv-offloading-backend lmcache). Every vLLM rule is main's at commit
// d18bb7b (2026-08-14).
//
// vLLM requires lmcache >= 0.3.9 (requirements/kv_connectors.txt:1): no
// release of it, so the code that allocates LMCache's memory in a vLLM
// worker is whichever lmcache is installed, and nothing on the launch
// line says which. In process, LMCacheConnectorV1 builds lmcache's
// LMCacheConnectorV1Impl, or with kv_connector_extra_config use_native
// vLLM's copy of the adapter (vllm/distributed/kv_transfer/kv_connector/
// v1/lmcache_connector.py:93-113); either one builds lmcache's
// LMCacheEngine, whose local CPU backend holds max_local_cpu_size GB of
// host memory a worker (5.0 by default, LMCACHE_MAX_LOCAL_CPU_SIZE in
// lmcache/v1/config.py's _CONFIG_DEFINITIONS, or a YAML file named by
// LMCACHE_CONFIG_FILE), and lmcache's GPU connector
// (VLLMPagedMemGPUConnectorV2 or a layerwise one), which keeps a GPU
// staging buffer when need_gpu_interim_buffer says so (lmcache_integration/
// vllm_v1_adapter.py:500-545, every class imported from lmcache.v1,
// :11-29). The size of that buffer, the allocator under the CPU backend
// (pinned, NUMA-bound or huge pages) and the defaults all move between
// lmcache releases: membudget could read the size from the line, but not
// what a given lmcache allocates for it, and refuses it by name.
//
// As a server, --kv-offloading-backend lmcache sets LMCacheMPConnector and
// does not pass the size on (vllm/config/vllm.py:972-978): the blocks live
// in the standalone LMCache server's process. vLLM's own connector files
// allocate no tensor, but the worker side is lmcache's
// LMCacheMPWorkerAdapter (lmcache_mp_connector.py:26-31, vLLM's copy only
// when lmcache lacks it, :40-50), unpinned as above.
//
// What was read toward sizing it for a named lmcache release (issue #22;
// the design: a membudget flag naming the release, LMCacheConnectorV1
// refused without it), and why no release is sized yet.
//
// vLLM's side, main d18bb7b, holds for any lmcache: the engine core
// profiles first (determine_available_memory, vllm/v1/engine/core.py:294)
// and then calls initialize_from_config (:327), which builds the worker's
// connector (vllm/v1/worker/gpu_worker.py:663) before it allocates the KV
// cache (:666). Whatever LMCache allocates on the GPU as it is built is
// outside the profile and the KV budget: it comes out of the headroom
// --gpu-memory-utilization leaves, and vLLM's startup check never sees it;
// on a unified device its host pool is the same memory. The worker reads
// LMCACHE_CONFIG_FILE's YAML then the LMCACHE_* variables over it, or the
// variables alone (lmcache_integration/utils.py:31-63), then the
// kv_connector_extra_config keys prefixed "lmcache." (vllm_v1_adapter.py:
// 582-600). The adapter hands lmcache kv_shape = (layers + MTP/EAGLE
// layers, 2 or 1 for MLA, chunk_size, KV heads a rank, head size) in the
// KV cache dtype (:460-476) and builds VLLMPagedMemGPUConnectorV2 (or a
// layerwise one) with use_gpu = not enable_pd (:401-402, 500-541).
//
// lmcache's side, read at stored commits of LMCache/LMCache main that no
// tag names: VLLMPagedMemGPUConnectorV2 allocates its staging buffer in
// its constructor when use_gpu, [2 or 1, layers, chunk_size, KV heads x
// head size] of the KV dtype (lmcache/v1/gpu_connector/gpu_connectors.py
// at 01435e5): Llama-3.1-8B at the default chunk 256 in bf16 would hold
// 2 x 32 x 256 x 1024 x 2 B = 32 MiB a GPU at TP 1, 16 MiB at TP 2; the
// V3 connector of the same commit allocates its buffers on the first
// transfer instead, after startup. LocalCPUBackend.initialize_allocator
// takes int(max_local_cpu_size x 1024^3) bytes (5.0 -> 5 GiB, "GB" being
// GiB) and pins it whole at startup through MixedMemoryAllocator, NUMA-
// bound, on huge pages or paged for io_uring by other keys, and clamped to
// the host's free memory for MLA's save_only_first_rank (lmcache/v1/
// storage_backend/local_cpu_backend.py at 000620e; defaults in lmcache/v1/
// config.py's _CONFIG_DEFINITIONS there: chunk_size 256, local_cpu True,
// max_local_cpu_size 5.0, enable_lazy_memory_allocator False). Older
// sources pinned it with torch.empty(pin_memory=True); lmcache 0.3.4's
// notes list the move to a C++ CUDA allocation (LMCache PR #1233), 0.3.7's
// a storage manager that holds CPU and GPU backends at once (#1578).
//
// The snapshot of LMCache/LMCache to hand has tags only to v0.1.2-alpha
// (2024-10-24, before lmcache.v1), and the stored v1 sources carry no
// release, so neither 0.3.9 nor the newest release can be read: no
// release's sizes are known and the connector stays refused. Sizing it
// needs lmcache's source at the tags (0.3.9 and what the user names).

// lmcacheWhat is what LMCacheConnectorV1 would add, for its refusal.
const lmcacheWhat = "LMCache's host cache of max_local_cpu_size GB a worker (5.0 by default, LMCACHE_MAX_LOCAL_CPU_SIZE, or LMCACHE_CONFIG_FILE's YAML) and its GPU connector's staging buffer, both allocated by the lmcache package (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_integration/vllm_v1_adapter.py:500-545) as vLLM builds the connector, after its memory profile and KV budget (vllm/v1/worker/gpu_worker.py:663), so the buffer comes out of the headroom --gpu-memory-utilization leaves; vLLM requires only lmcache >= 0.3.9 (requirements/kv_connectors.txt:1): what the installed release allocates for that size is not on the line"

// lmcacheMPWhat is what LMCacheMPConnector would add, for its refusal.
const lmcacheMPWhat = "a separate LMCache server's cache, in its own process, and the worker adapter's buffers, which are lmcache's LMCacheMPWorkerAdapter (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_mp_connector.py:26-31) of whatever lmcache >= 0.3.9 is installed (requirements/kv_connectors.txt:1)"

// lmcacheOffloadWhy is why --kv-offloading-backend lmcache is refused.
const lmcacheOffloadWhy = "vLLM hands the blocks to LMCacheMPConnector and a separate LMCache server process, and does not pass the size on (vllm/config/vllm.py:972-978); the worker side is lmcache's own adapter of whatever lmcache >= 0.3.9 is installed (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_mp_connector.py:26-31)"
