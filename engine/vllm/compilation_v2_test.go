package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model"
)

// TestV2DecodeGraphsRoundEachSize: under speculative decoding the V2 model
// runner keeps the capture sizes for its mixed graphs and captures a FULL
// decode graph at each size rounded up to a multiple of q = k+1, once per
// value, up to q x max_num_seqs and the largest size
// (vllm/v1/worker/gpu/cudagraph_utils.py:173-283 at d18bb7b); the V1 runner
// rounds the sizes themselves (specSizes) and decodes on their prefix.
func TestV2DecodeGraphsRoundEachSize(t *testing.T) {
	sizes := []uint64{1, 2, 4, 8, 16, 24, 32}
	type want struct{ Mixed, Decode, Largest uint64 }
	tests := []struct {
		name string
		g    Graphs
		want want
	}{
		// q 3: 1,2 -> 3; 4 -> 6; 8 -> 9; 16 -> 18; 24 -> 24; 32 -> 33,
		// above min(3 x 8, 32) = 24: five decode graphs (3, 6, 9, 18, 24,
		// the ladder PR #53407's description draws), seven PIECEWISE at
		// the sizes unrounded, the largest 32.
		{"q 3, FULL_AND_PIECEWISE", Graphs{Mode: graphsFullAndPiecewise, Sizes: sizes, MaxNumSeqs: 8, DecodeQuery: 3, DecodeRounded: true}, want{7, 5, 32}},
		// The same decode graphs alone: the largest is the 24-token one.
		{"q 3, FULL_DECODE_ONLY", Graphs{Mode: graphsFullDecodeOnly, Sizes: sizes, MaxNumSeqs: 8, DecodeQuery: 3, DecodeRounded: true}, want{0, 5, 24}},
		// max_num_seqs 4 bounds them at 3 x 4 = 12: 3, 6, 9.
		{"q 3, 4 sequences", Graphs{Mode: graphsFullDecodeOnly, Sizes: sizes, MaxNumSeqs: 4, DecodeQuery: 3, DecodeRounded: true}, want{0, 3, 9}},
		// The largest size bounds them: sizes up to 5 at q 3 give 3 (from 1
		// and 2) alone, 4 -> 6 being above 5.
		{"q 3, sizes to 5", Graphs{Mode: graphsFullDecodeOnly, Sizes: []uint64{1, 2, 4, 5}, MaxNumSeqs: 100, DecodeQuery: 3, DecodeRounded: true}, want{0, 1, 3}},
		// q 2: 1,2 -> 2; 4; 8; 16; 24; 32, all within min(2 x 64, 32):
		// six decode graphs.
		{"q 2, 64 sequences", Graphs{Mode: graphsFullAndPiecewise, Sizes: sizes, MaxNumSeqs: 64, DecodeQuery: 2, DecodeRounded: true}, want{7, 6, 32}},
		// FULL charged as FULL_AND_PIECEWISE rounds alike; FULL alone has
		// no decode routine.
		{"q 3, FULL as both", Graphs{Mode: graphsFull, FullAsBoth: true, Sizes: sizes, MaxNumSeqs: 8, DecodeQuery: 3, DecodeRounded: true}, want{7, 5, 32}},
		{"q 3, FULL", Graphs{Mode: graphsFull, Sizes: sizes, MaxNumSeqs: 8, DecodeQuery: 3, DecodeRounded: true}, want{7, 0, 32}},
		// Without speculative decoding, the sizes up to max_num_seqs: 1,
		// 2, 4, 8 of 8.
		{"no spec", Graphs{Mode: graphsFullDecodeOnly, Sizes: sizes, MaxNumSeqs: 8, DecodeRounded: true}, want{0, 4, 8}},
		// The V1 runner over the sizes specSizes rounded for q 3 (3, 6, 9,
		// 18, 24): the prefix up to 24, all five, mixed graphs at them too.
		{"V1, q 3", Graphs{Mode: graphsFullAndPiecewise, Sizes: []uint64{3, 6, 9, 18, 24}, MaxNumSeqs: 8, DecodeQuery: 3}, want{5, 5, 24}},
		{"no sizes", Graphs{Mode: graphsFullDecodeOnly, MaxNumSeqs: 8, DecodeQuery: 3, DecodeRounded: true}, want{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mixed, decode := tt.g.counts()
			if diff := cmp.Diff(tt.want, want{mixed, decode, tt.g.Largest()}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// specSizes gives the V1 list above from the same sizes.
	v1, err := specSizes(sizes, 3)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint64{3, 6, 9, 18, 24}, v1); diff != "" {
		t.Errorf("specSizes(sizes, 3) (-want +got):\n%s", diff)
	}
}

// TestResolveGraphsOnV2UnderSpec: a serve the V2 runner runs (dense Qwen3
// on main) under speculative decoding with 2 tokens keeps the default
// sizes up to 2 x 8 x 3 = 48 (1, 2, 4, 8, ..., 48) and charges its decode
// graphs each rounded to a multiple of 3, at most 3 x 8 = 24 tokens: 1,2 ->
// 3; 4 -> 6; 8 -> 9; 16 -> 18; 24 -> 24 (5 graphs), where a count at one
// token a request would take the 4 sizes up to 8. On the V1 runner the
// sizes themselves are rounded (3, 6, 9, 18, 24, 33, 42, 48).
func TestResolveGraphsOnV2UnderSpec(t *testing.T) {
	a := &model.Arch{ModelType: "qwen3", Architectures: []string{"Qwen3ForCausalLM"}}
	for _, tc := range []struct {
		name      string
		v1        bool
		sizes     []uint64
		rounded   bool
		mixed     uint64
		decode    uint64
		decodeTop uint64
	}{
		{"V2", false, []uint64{1, 2, 4, 8, 16, 24, 32, 40, 48}, true, 9, 5, 24},
		{"V1", true, []uint64{3, 6, 9, 18, 24, 33, 42, 48}, false, 8, 5, 24},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Resolved{Profile: mustProfile("main")}
			r.Profile.v1Runner = tc.v1
			r.MaxNumSeqs, r.MaxNumBatchedTokens = 8, 8192
			r.Spec = Speculative{Method: "ngram", Tokens: 2}
			if err := r.resolveGraphs(a); err != nil {
				t.Fatal(err)
			}
			g := r.Graphs
			if diff := cmp.Diff(tc.sizes, g.Sizes); diff != "" {
				t.Errorf("sizes (-want +got):\n%s", diff)
			}
			mixed, decode := g.counts()
			_, top := g.decodeGraphs()
			type got struct {
				Mode          string
				Query         uint64
				Rounded       bool
				Mixed, Decode uint64
				DecodeLargest uint64
			}
			want := got{graphsFullAndPiecewise, 3, tc.rounded, tc.mixed, tc.decode, tc.decodeTop}
			if diff := cmp.Diff(want, got{g.Mode, g.DecodeQuery, g.DecodeRounded, mixed, decode, top}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
