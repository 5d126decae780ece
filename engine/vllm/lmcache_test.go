package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLMCacheRefusals pins the exact words of what stays refused of
// LMCache: the server backend of --kv-offloading-backend, and the
// in-process and server connectors of --kv-transfer-config, each saying
// what it would add and why membudget cannot read it (lmcache.go).
func TestLMCacheRefusals(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	four := 4.0
	tail := ": not modelled for " + current.Describes
	cases := []struct {
		name string
		s    Serve
		want string
	}{
		{"offload to an LMCache server", Serve{Offload: KVOffload{SizeGiB: &four, Backend: "lmcache"}},
			"--kv-offloading-backend: lmcache, " + whatTransfer + tail + " (vLLM hands the blocks to LMCacheMPConnector and a separate LMCache server process, and does not pass the size on (vllm/config/vllm.py:972-978); the worker side is lmcache's own adapter of whatever lmcache >= 0.3.9 is installed (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_mp_connector.py:26-31)); membudget refuses it rather than size a serve vLLM would contradict"},
		{"LMCache in process", Serve{KVTransferConfig: `{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both","kv_connector_extra_config":{"use_native":true}}`},
			`--kv-transfer-config: connector "LMCacheConnectorV1", LMCache's host cache of max_local_cpu_size GB a worker (5.0 by default, LMCACHE_MAX_LOCAL_CPU_SIZE, or LMCACHE_CONFIG_FILE's YAML) and its GPU connector's staging buffer, both allocated by the lmcache package (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_integration/vllm_v1_adapter.py:500-545) as vLLM builds the connector, after its memory profile and KV budget (vllm/v1/worker/gpu_worker.py:663), so the buffer comes out of the headroom --gpu-memory-utilization leaves; vLLM requires only lmcache >= 0.3.9 (requirements/kv_connectors.txt:1): what the installed release allocates for that size is not on the line` + tail + "; membudget refuses it rather than size a serve vLLM would contradict"},
		{"LMCache server connector", Serve{KVTransferConfig: `{"kv_connector":"LMCacheMPConnector","kv_role":"kv_both"}`},
			`--kv-transfer-config: connector "LMCacheMPConnector", a separate LMCache server's cache, in its own process, and the worker adapter's buffers, which are lmcache's LMCacheMPWorkerAdapter (vllm/distributed/kv_transfer/kv_connector/v1/lmcache_mp_connector.py:26-31) of whatever lmcache >= 0.3.9 is installed (requirements/kv_connectors.txt:1)` + tail + "; membudget refuses it rather than size a serve vLLM would contradict"},
	}
	for _, tc := range cases {
		_, err := Resolve(tc.s, a, bigClass, current)
		got := "<nil>"
		if err != nil {
			got = err.Error()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
