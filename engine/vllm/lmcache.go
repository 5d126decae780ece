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

// lmcacheWhat is what LMCacheConnectorV1 would add, for its refusal.
const lmcacheWhat = "LMCache's host cache of max_local_cpu_size GB a worker (5.0 by default, LMCACHE_MAX_LOCAL_CPU_SIZE, or LMCACHE_CONFIG_FILE's YAML) and its GPU connector's staging buffer, both allocated by the lmcache package (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_integration/vllm_v1_adapter.py:500-545), which vLLM requires only as lmcache >= 0.3.9 (requirements/kv_connectors.txt:1): what the installed release allocates for that size is not on the line"

// lmcacheMPWhat is what LMCacheMPConnector would add, for its refusal.
const lmcacheMPWhat = "a separate LMCache server's cache, in its own process, and the worker adapter's buffers, which are lmcache's LMCacheMPWorkerAdapter (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_mp_connector.py:26-31) of whatever lmcache >= 0.3.9 is installed (requirements/kv_connectors.txt:1)"

// lmcacheOffloadWhy is why --kv-offloading-backend lmcache is refused.
const lmcacheOffloadWhy = "vLLM hands the blocks to LMCacheMPConnector and a separate LMCache server process, and does not pass the size on (vllm/config/vllm.py:972-978); the worker side is lmcache's own adapter of whatever lmcache >= 0.3.9 is installed (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_mp_connector.py:26-31)"
