package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/explain"
)

// logSource reads text as a log.
func logSource(t *testing.T, text string) *explain.Source {
	t.Helper()
	src, err := explain.Read(strings.NewReader(text), "test.log", false)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestBuildServe: logged settings fill the serve unless a flag was given;
// the memory lines restate the util; a value vLLM would refuse is an error
// naming the line and the flag.
func TestBuildServe(t *testing.T) {
	log := "INFO non-default args: {'model': 'm', 'max_model_len': 8192, 'tensor_parallel_size': 2, 'enforce_eager': True, 'speculative_config': {'method': 'mtp'}}\n" +
		"INFO Initializing a V1 LLM engine (v0.19.0) with config: model='m', dtype=torch.bfloat16, max_seq_len=8192, quantization=None, kv_cache_dtype=fp8\n" +
		"INFO Free memory on device (78.66/79.18 GiB) on startup. Desired GPU memory utilization is (0.85, 67.30 GiB).\n"
	l := logSource(t, log).Log
	flags := Serve{MaxModelLen: 4096}
	got, err := buildServe(l, flags, map[string]bool{"max-model-len": true})
	if err != nil {
		t.Fatal(err)
	}
	want := Serve{MaxModelLen: 4096, TensorParallelSize: 2, EnforceEager: true, Dtype: "bfloat16", KVCacheDtype: "fp8", GPUMemoryUtilization: 0.85}
	if diff := cmp.Diff(want, got.Serve); diff != "" {
		t.Errorf("serve (-want +got):\n%s", diff)
	}
	if got.From["max-model-len"].Source != explain.FromFlag || got.From["tensor-parallel-size"].Line != 1 || got.From["dtype"].Line != 2 || got.From["gpu-memory-utilization"].Line != 3 {
		t.Errorf("sources %+v", got.From)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "speculative decoding") {
		t.Errorf("warnings %q, want the speculative config's", got.Warnings)
	}
	_, err = buildServe(logSource(t, "INFO non-default args: {'model': 'm', 'max_num_seqs': 0}\n").Log, Serve{}, nil)
	if err == nil || !strings.Contains(err.Error(), "max_num_seqs=0 (line 1") || !strings.Contains(err.Error(), "pass --max-num-seqs") {
		t.Errorf("a zero max_num_seqs: %v", err)
	}
}

// TestChooseProfile maps logged versions to profiles.
func TestChooseProfile(t *testing.T) {
	cases := []struct {
		name, log, want, source string
	}{
		{"four parts", "INFO Initializing a V1 LLM engine (v0.10.1.1) with config: model='m'\n", "0.10.1", explain.FromLogged},
		{"V0 shown", "INFO vLLM API server version 0.8.5\nINFO # GPU blocks: 10, # CPU blocks: 20\n", "0.8.5:v0", explain.FromLogged},
		{"engine unknown", "INFO vLLM API server version 0.9.2\n", "0.9.2", explain.FromLogged},
		{"older than any", "INFO Initializing an LLM engine (v0.4.2) with config: model='m'\n", "0.7.3:v0", explain.FromLogged},
		{"none", "INFO Available KV cache memory: 1.00 GiB\n", CurrentName, "assumed"},
		{"source build", "INFO vLLM API server version 0.1.dev8168+g475c1a0\nINFO Available KV cache memory: 1.00 GiB\n", CurrentName, "assumed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := chooseProfile(logSource(t, tc.log).Log, "", false)
			if err != nil {
				t.Fatal(err)
			}
			if got.Profile.Name != tc.want || got.Source != tc.source {
				t.Errorf("%s (%s), note %q; want %s (%s)", got.Profile.Name, got.Source, got.Note, tc.want, tc.source)
			}
		})
	}
	got, err := chooseProfile(logSource(t, "INFO vLLM API server version 0.8.5\n").Log, "0.19.0", true)
	if err != nil || got.Profile.Name != "0.19.0" || got.Source != explain.FromFlag {
		t.Errorf("--vllm-version 0.19.0: %+v, %v", got, err)
	}
}
