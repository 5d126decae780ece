package vllm

import (
	"errors"
	"os"
	"strings"
	"testing"

	"membudget/engine"
	"membudget/model"
)

// nemotronSuper is Llama-3.3-Nemotron-Super-49B-v1's config.json, as
// shipped in corpus/models.
func nemotronSuper(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile("../../corpus/models/nvidia__Llama-3_3-Nemotron-Super-49B-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestNemotronNASKVLayout: Llama-3.3-Nemotron-Super-49B-v1 under
// nemotron_nas.py: 49 of the 80 blocks attend, LlamaAttention without a
// window, FullAttentionSpec; the 31 no-op blocks register no attention and
// keep no KV cache (vLLM counts the attending blocks alone,
// vllm/config/model.py:1566-1568). 8 KV heads of 8192 / 64 = 128, bf16: 16
// x 8 x 256 x 2 B = 65,536 B a page; at TP8 one head a rank, 8192 B.
func TestNemotronNASKVLayout(t *testing.T) {
	checkFullLayout(t, string(nemotronSuper(t)), 49, map[uint64]uint64{1: 65536, 8: 8192})
}

// TestCachelessStageRefused: Nemotron-Super's attending blocks are 0-5,
// 8-10, 12-41, 52 and 71-79 (its block_configs). At -pp 8, get_pp_indices
// gives 10 layers a stage: stage 7 holds 60-69, none of which attends,
// and vLLM asserts at startup; at -pp 4 (20 a stage: 40-59 holds 40, 41
// and 52) and -pp 2 every stage attends.
func TestCachelessStageRefused(t *testing.T) {
	a, err := model.ParseConfig("nemotron.json", nemotronSuper(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pp      uint64
		refused string
	}{
		{2, ""}, {4, ""}, {8, "stage 7 of 8 holds layers 60-69"},
	} {
		_, err := NewReference(a, trusting(a, Serve{PipelineParallelSize: tc.pp, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}), testClass(false), current)
		var se *engine.SettingError
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("-pp %d: %v, want it served", tc.pp, err)
		case tc.refused != "" && (!errors.As(err, &se) || se.Flag != "pipeline-parallel-size" || !strings.Contains(err.Error(), tc.refused)):
			t.Errorf("-pp %d: %v, want a refusal of --pipeline-parallel-size saying %q", tc.pp, err, tc.refused)
		}
	}
}
