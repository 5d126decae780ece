package vllm

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"membudget"
	"membudget/budget"
	"membudget/engine"
)

// TestPlanSeventyB: Llama-3.1-70B for 16 sequences of 32768 tokens on
// H100s and H200s: the plan's every row holds the need, its bounds are
// verified, it is ranked by GPUs, and its command, given back with its
// --kv-cache-memory-bytes, sizes the same KV cache.
func TestPlanSeventyB(t *testing.T) {
	e := searchOn(t, "meta-llama__Llama-3.1-70B-Instruct", "h100-sxm-80g")
	h200, err := membudget.Kernels().Load("h200")
	if err != nil {
		t.Fatal(err)
	}
	need := Need{Length: 32768, Concurrency: 16}
	rows, err := Deployments(e.Arch, "meta-llama/Llama-3.1-70B-Instruct", need, Space{Plan: engine.PlanSpace{Classes: []budget.Class{e.Class, h200}, MarginPercent: engine.DefaultMarginPercent}, Profile: e.Profile}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no deployment serves 16 x 32768 tokens of a 70B on up to 8 H100s or H200s")
	}
	prev := uint64(0)
	for _, d := range rows {
		if d.GPUs < prev {
			t.Errorf("rows not ranked by GPUs: %d after %d", d.GPUs, prev)
		}
		prev = d.GPUs
		if !d.At.Fits() || d.At.Seqs != d.PerEngine || d.At.Tokens != need.Length {
			t.Errorf("%s: the need does not fit: %+v", d.Command, d.At)
		}
		if d.PerEngine*d.Serve.DataParallelSize < need.Concurrency {
			t.Errorf("%s: %d engines of %d sequences hold fewer than %d", d.Command, d.Serve.DataParallelSize, d.PerEngine, need.Concurrency)
		}
		if !d.MostSeqs.Fits || d.MostSeqs.Value < d.PerEngine || !d.LongestLen.Fits || d.LongestLen.Value < need.Length {
			t.Errorf("%s: bounds %d seqs, %d tokens below the need", d.Command, d.MostSeqs.Value, d.LongestLen.Value)
		}
		// The command's KV cache, given as bytes, holds the same blocks.
		s := d.Serve.Serve
		s.KVCacheMemoryBytes = d.KVCacheBytes
		ref, err := NewReference(e.Arch, s, d.Class, e.Profile)
		if err != nil {
			t.Fatalf("%s: %v", d.Command, err)
		}
		want, err := NewReference(e.Arch, d.Serve.Serve, d.Class, e.Profile)
		if err != nil {
			t.Fatal(err)
		}
		if got, w := ref.Capacity().Blocks, want.Capacity().Blocks; got != w {
			t.Errorf("%s: --kv-cache-memory-bytes %d gives %d blocks, the sized cache %d", d.Command, d.KVCacheBytes, got, w)
		}
	}
	if rows[0].GPUs > 4 {
		t.Errorf("the smallest deployment takes %d GPUs; two H200s hold a 70B at 32k", rows[0].GPUs)
	}
}

// TestPlanLengthBeyondTheModel: Qwen3-0.6B's max_position_embeddings is
// 40960, so 65536 tokens are refused as vLLM refuses them, with the
// setting error; allowed, every row's serve carries the allowance and the
// revision planned.
func TestPlanLengthBeyondTheModel(t *testing.T) {
	e := searchOn(t, "Qwen__Qwen3-0.6B", "l4")
	need := Need{Length: 65536, Concurrency: 1}
	_, err := Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, Space{Plan: engine.PlanSpace{Classes: []budget.Class{e.Class}}, Profile: e.Profile}, nil)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "max-model-len" || !strings.Contains(se.Reason, "40960") {
		t.Fatalf("got %v, want the max-model-len setting error naming 40960", err)
	}
	rows, err := Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, Space{Plan: engine.PlanSpace{Classes: []budget.Class{e.Class}}, Profile: e.Profile, AllowLongMaxModelLen: true, Revision: "v2"}, nil)
	if err != nil || len(rows) == 0 {
		t.Fatalf("allowed: %d rows, %v", len(rows), err)
	}
	for _, d := range rows {
		if !d.Serve.AllowLongMaxModelLen || d.Serve.Revision != "v2" ||
			!strings.HasPrefix(d.Command, "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm serve Qwen/Qwen3-0.6B --revision v2 ") {
			t.Errorf("%s: the row does not carry the allowance and the revision", d.Command)
		}
	}
}

// TestPlanRanksAndPins: the 70B plan on H100s and H200s. The first
// row is the one a serving engineer deploys: the checkpoint's precision,
// no pipeline, within the margin; by default no command pins the KV cache
// (vLLM's profiling sizes it from the util); pinned, each command's cache
// is the sized one less 5 % of the budget in whole blocks, and still holds
// the need, and vLLM starts it.
func TestPlanRanksAndPins(t *testing.T) {
	e := searchOn(t, "meta-llama__Llama-3.1-70B-Instruct", "h100-sxm-80g")
	h200, err := membudget.Kernels().Load("h200")
	if err != nil {
		t.Fatal(err)
	}
	need := Need{Length: 32768, Concurrency: 16}
	sp := engine.PlanSpace{Classes: []budget.Class{e.Class, h200}, MarginPercent: engine.DefaultMarginPercent}
	rows, err := Deployments(e.Arch, "meta-llama/Llama-3.1-70B-Instruct", need, Space{Plan: sp, Profile: e.Profile}, nil)
	if err != nil || len(rows) == 0 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	first := rows[0]
	// Two H200s at TP 2: 70.6e9 parameters in bf16 are 65.7 GiB a GPU of
	// a 128.6 GiB budget; a pipeline or online fp8 would rank after it.
	if first.GPUs != 2 || first.Serve.TensorParallelSize != 2 || first.Serve.PipelineParallelSize != 1 || first.Online || first.Class.Name != "h200" {
		t.Errorf("first row %s: want 2 H200s at TP 2 in the checkpoint's bf16", first.Command)
	}
	if margin := first.At.Budget / 20; first.At.BudgetHeadroom() < margin {
		t.Errorf("first row %s leaves %d B of its budget, under the 5 %% margin %d B", first.Command, first.At.BudgetHeadroom(), margin)
	}
	for _, d := range rows {
		if strings.Contains(d.Command, "--kv-cache-memory-bytes") {
			t.Fatalf("%s: a default command pins the KV cache", d.Command)
		}
		if d.Online != (d.Serve.Quantization == "fp8") {
			t.Errorf("%s: online %v", d.Command, d.Online)
		}
	}

	pinned, err := Deployments(e.Arch, "meta-llama/Llama-3.1-70B-Instruct", need, Space{Plan: sp, Profile: e.Profile, PinKVCache: true}, nil)
	if err != nil || len(pinned) != len(rows) {
		t.Fatalf("pinned: %d rows (want %d), %v", len(pinned), len(rows), err)
	}
	for _, d := range pinned {
		if !strings.Contains(d.Command, fmt.Sprintf("--kv-cache-memory-bytes %d ", d.PinnedKVBytes)) {
			t.Fatalf("%s: does not pin %d B", d.Command, d.PinnedKVBytes)
		}
		// One block in every layer of a rank: 16 tokens x 80 layers x K and
		// V x 8/TP heads x 128 x the KV dtype's bytes.
		kvBytes := uint64(2)
		if d.Serve.KVCacheDtype == "fp8" {
			kvBytes = 1
		}
		block := 16 * 80 * 2 * (8 / d.Serve.TensorParallelSize) * 128 * kvBytes
		if d.Serve.PipelineParallelSize > 1 {
			block /= d.Serve.PipelineParallelSize // the layers split evenly: 80 / 2, 80 / 4
		}
		marginBlocks := (d.At.Budget/20 + block - 1) / block // 5 % of the budget, rounded up to blocks
		needBlocks := (d.At.Terms[budget.TermKVCache] + block - 1) / block
		want := max(d.KVCacheBytes/block-marginBlocks, needBlocks) * block
		if d.PinnedKVBytes != want {
			t.Errorf("%s: pinned %d B, want %d B (%d blocks of %d B less %d)", d.Command, d.PinnedKVBytes, want, d.KVCacheBytes/block, block, marginBlocks)
		}
		s := d.Serve.Serve
		s.KVCacheMemoryBytes = d.PinnedKVBytes
		s.DataParallelSize = 1
		r, plan, err := NewCompiler(e.Arch).Compile(s, d.Class, e.Profile)
		if err != nil {
			t.Fatalf("%s: %v", d.Command, err)
		}
		if f := plan.Evaluate(d.PerEngine, need.Length); !f.Fits() {
			t.Errorf("%s: pinned, the need does not fit: %s", d.Command, f.Failed)
		}
		if why := startRefusal(NewCompiler(e.Arch), s, d.Class, e.Profile); why != "" {
			t.Errorf("%s: pinned, vLLM refuses: %s (max_model_len %d)", d.Command, why, r.MaxModelLen)
		}
	}
}
