package engine

import (
	"cmp"
	"errors"
	"testing"

	"membudget/model"
)

func TestResolveDegree(t *testing.T) {
	tp, pp, dp := uint64(0), uint64(4), uint64(0)
	var defaulted []string
	def := func(flag, why string) { defaulted = append(defaulted, flag+": "+why) }
	err := cmp.Or(ResolveDegree("tp", &tp, 8, def, "the default 1"), ResolveDegree("pp", &pp, 8, def, "the default 1"), ResolveDegree("dp", &dp, 8, def, "the default 1"))
	if err != nil || tp != 1 || pp != 4 || dp != 1 {
		t.Fatalf("got tp %d pp %d dp %d, %v; want 1 4 1", tp, pp, dp, err)
	}
	if len(defaulted) != 2 || defaulted[0] != "tp: the default 1" || defaulted[1] != "dp: the default 1" {
		t.Errorf("defaults recorded %q; want tp and dp only", defaulted)
	}
	big := uint64(9)
	err = ResolveDegree("tp", &big, 8, def, "")
	var se *SettingError
	if !errors.As(err, &se) || se.Flag != "tp" || err.Error() != "--tp 9: at most 8" {
		t.Errorf("above the bound: %v; want --tp 9: at most 8", err)
	}
}

func TestCheckShards(t *testing.T) {
	// 32 heads, 8 KV heads, intermediate 14336, 8 experts of 1792.
	a := &model.Arch{Source: "m", Heads: 32, KVHeads: 8, Intermediate: 14336, MoEIntermediate: 1792}
	cites := ShardCites{Heads: " (h)", KVHeads: " (kv)", MLP: " (mlp)"}
	cases := []struct {
		tp           uint64
		expertsWhole bool
		err          string
	}{
		{tp: 8},  // divides everything
		{tp: 16}, // a multiple of the 8 KV heads: each replicated twice; 14336/16 and 1792/16 whole
		{tp: 3, err: "--tp 3: neither divides nor is a multiple of the 8 KV heads of m (kv)"},
		// 14336 = 2^11 x 7: 2^12 ranks (a multiple of the KV heads) do not
		// divide it, experts whole or not.
		{tp: 4096, err: "--tp 4096: does not divide intermediate_size 14336 of m (mlp)"},
		{tp: 4096, expertsWhole: true, err: "--tp 4096: does not divide intermediate_size 14336 of m (mlp)"},
	}
	for _, c := range cases {
		err := CheckShards(a, c.tp, "tp", c.expertsWhole, cites)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.err {
			t.Errorf("CheckShards(tp %d) = %q; want %q", c.tp, got, c.err)
		}
	}
	// 64 ranks divide the intermediate 1024 but not the experts' 96:
	// refused, unless expert parallelism holds each expert whole.
	moe := &model.Arch{Source: "moe", Heads: 64, KVHeads: 64, Intermediate: 1024, MoEIntermediate: 96}
	if err := CheckShards(moe, 64, "tp", false, ShardCites{}); err == nil || err.Error() != "--tp 64: does not divide moe_intermediate_size 96 of moe" {
		t.Errorf("experts split: %v; want the moe_intermediate_size refusal", err)
	}
	if err := CheckShards(moe, 64, "tp", true, ShardCites{}); err != nil {
		t.Errorf("experts whole: %v; want no refusal", err)
	}
	// MLA has no KV heads to divide.
	mla := &model.Arch{Source: "mla", Heads: 128, KVHeads: 128, MLA: true, Intermediate: 18432, MoEIntermediate: 2048}
	if err := CheckShards(mla, 16, "tp", false, ShardCites{}); err != nil {
		t.Errorf("MLA: %v", err)
	}
	if err := CheckHeads(a, 3, "tp", cites); err == nil || err.Error() != "--tp 3: does not divide the 32 attention heads of m (h)" {
		t.Errorf("CheckHeads(3) = %v", err)
	}
}
