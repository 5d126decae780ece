package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// TestDefaultSeqsLoweredToBatchedTokens pins what each release does with a
// line that gives --max-num-batched-tokens below the default
// --max-num-seqs: from 0.10.1 vLLM lowers the defaulted sequences to the
// tokens (vllm/engine/arg_utils.py:2842-2844 at main, PR #21270); before
// it, and on the V0 engine, the scheduler's check refuses the line.
func TestDefaultSeqsLoweredToBatchedTokens(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	// testClass(false) is 80 GiB, not an A100: the V1 default is 1024
	// sequences (get_batch_defaults), above the 128 tokens given.
	c := testClass(false)
	type got struct {
		Seqs, Batched uint64
		Lowered       bool
	}
	tests := []struct {
		version string
		serve   Serve
		want    got
		err     *engine.SettingError
	}{
		{"main", Serve{MaxNumBatchedTokens: 128}, got{128, 128, true}, nil},
		{"0.29.0", Serve{MaxNumBatchedTokens: 128}, got{128, 128, true}, nil},
		{"0.10.1", Serve{MaxNumBatchedTokens: 128}, got{128, 128, true}, nil},
		// At or above the default the sequences stay 1024.
		{"main", Serve{MaxNumBatchedTokens: 1024}, got{1024, 1024, false}, nil},
		// Given sequences are never lowered: the check refuses.
		{"main", Serve{MaxNumBatchedTokens: 128, MaxNumSeqs: 256}, got{}, &engine.SettingError{Flag: "max-num-batched-tokens", Value: "128", Reason: "below --max-num-seqs 256"}},
		// 0.10.0 sets the default 1024 and the check refuses it.
		{"0.10.0", Serve{MaxNumBatchedTokens: 128}, got{}, &engine.SettingError{Flag: "max-num-batched-tokens", Value: "128", Reason: "below --max-num-seqs 1024, the default of vLLM 0.10.0, which refuses it; pass --max-num-seqs of at most 128 (vLLM lowers a defaulted --max-num-seqs to the batched tokens from 0.10.1 on the V1 engine, PR #21270)"}},
		// V0's default is 256 (vllm/engine/arg_utils.py at v0.6.0).
		{"0.8.5:v0", Serve{MaxNumBatchedTokens: 128, MaxModelLen: 128}, got{}, &engine.SettingError{Flag: "max-num-batched-tokens", Value: "128", Reason: "below --max-num-seqs 256, the default of vLLM 0.8.5 (V0 engine), which refuses it; pass --max-num-seqs of at most 128 (vLLM lowers a defaulted --max-num-seqs to the batched tokens from 0.10.1 on the V1 engine, PR #21270)"}},
	}
	for _, tt := range tests {
		t.Run(tt.version, func(t *testing.T) {
			r, err := Resolve(tt.serve, llama, c, mustProfile(tt.version))
			if tt.err != nil {
				var se *engine.SettingError
				if !errors.As(err, &se) {
					t.Fatalf("got %v, want %v", err, tt.err)
				}
				if diff := cmp.Diff(*tt.err, *se); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			why, _ := r.Sources.Get("max-num-seqs")
			g := got{r.MaxNumSeqs, r.MaxNumBatchedTokens, strings.Contains(why, "lowered to --max-num-batched-tokens")}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s\nsource: %s", diff, why)
			}
		})
	}
}
