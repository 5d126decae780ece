package vllm_test

import (
	"testing"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// TestContractWithTransferBuffers runs the contract over serves whose
// --kv-transfer-config keeps a host copy of the KV cache (kvhost.go) and
// whose --all2all-backend is DeepEP low-latency (deepep_ll.go), on a
// discrete and a unified class: each must size, and its printed line,
// which carries the flags as given, must read back to the same plan.
func TestContractWithTransferBuffers(t *testing.T) {
	t.Parallel()
	models := enginetest.Shipped(t)
	nixlCPU := `{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_buffer_device":"cpu"}`
	cases := []struct {
		model, class string
		args         []string
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", []string{"--kv-transfer-config", nixlCPU}},
		{"meta-llama__Llama-3.1-8B-Instruct", "gb10", []string{"--kv-transfer-config", nixlCPU, "--gpu-memory-utilization", "0.4"}},
		{"meta-llama__Llama-3.1-8B-Instruct", "h100-sxm-80g", []string{"--kv-transfer-config", nixlCPU, "--tensor-parallel-size", "2", "--num-gpu-blocks-override", "1000"}},
		{"Qwen__Qwen3-30B-A3B", "gb10", []string{"--kv-transfer-config", nixlCPU, "--gpu-memory-utilization", "0.5", "--pipeline-parallel-size", "2"}},
		{"Qwen__Qwen3-30B-A3B", "h100-sxm-80g", []string{"--data-parallel-size", "2", "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency"}},
		{"Qwen__Qwen3-30B-A3B", "h100-sxm-80g", []string{"--tensor-parallel-size", "2", "--data-parallel-size", "4", "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency", "--max-num-batched-tokens", "512"}},
		{"Qwen__Qwen3-30B-A3B", "h100-sxm-80g", []string{"--data-parallel-size", "2", "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency", "--enable-eplb", "--eplb-config", `{"num_redundant_experts": 16}`}},
		{"deepseek-ai__DeepSeek-V3", "h200", []string{"--data-parallel-size", "8", "--enable-expert-parallel", "--all2all-backend", "deepep_low_latency", "--max-model-len", "8192"}},
	}
	for _, tc := range cases {
		c, err := membudget.Kernels().Load(tc.class)
		if err != nil {
			t.Fatal(err)
		}
		if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: models[tc.model], Class: c, Args: tc.args}) == nil {
			t.Errorf("%s on %s %v: not sized", tc.model, tc.class, tc.args)
		}
	}
}
