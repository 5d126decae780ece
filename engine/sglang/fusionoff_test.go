package sglang

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"membudget/engine"
)

// TestFusionOff: --enforce-disable-flashinfer-allreduce-fusion lets v0.5.14
// (and v0.5.15 to v0.5.18) size a serve it would otherwise turn the
// unmodelled fusion on for, with no workspace; under v0.5.13.post1, whose
// switch is not read, the refusal stands.
//
// Qwen3-Next-80B-A3B at TP 4 on an H100 under v0.5.14: F0 82,696,994,816 B
// and the load 40,011,563,008 B (pinned elsewhere; F1 42,685,431,808 B,
// both exact in float32), msf 0.823: rest 42685431808 / 2^30 -
// 82696994816 / 2^30 x 0.177 = 26.1217949 GiB; the Mamba pool
// floor(26.1217949 x 0.9 / 1.9 x 2^30 / 19,316,736) = 687 slots; the KV
// rest floor((26.1217949 - 687 x 19316736 / 2^30) x 2^30) = 14,777,466,093
// B, / 12,288 = 1,202,593 tokens; max_num_reqs 687 // 5 = 137.
func TestFusionOff(t *testing.T) {
	models := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	next := models["Qwen__Qwen3-Next-80B-A3B-Thinking"]
	p := mustProfile("v0.5.14")
	var se *engine.SettingError
	if _, err := NewReference(next, Serve{TPSize: 4}, h100, p); !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" {
		t.Fatalf("without the flag: %v; want the fusion refused", err)
	}
	r := ref(t, next, Serve{TPSize: 4, EnforceDisableARFusion: true}, h100, p)
	got := mambaFiguresOf(r)
	if c := r.Capacity(); c.F0Bytes != 82696994816 || c.LoadedBytes != 40011563008 || got.MambaSize != 687 || got.Tokens != 1202593 || got.MaxNumReqs != 137 || !c.Starts {
		t.Errorf("with the flag: F0 %d, load %d, %d slots, %d tokens, max_num_reqs %d, starts %v; want 82696994816, 40011563008, 687, 1202593, 137, true", c.F0Bytes, c.LoadedBytes, got.MambaSize, got.Tokens, got.MaxNumReqs, c.Starts)
	}
	for _, it := range r.stages[0].beside {
		if it.Name == "flashinfer_allreduce_fusion_workspace" {
			t.Errorf("the fusion's workspace charged though it is off: %d B", it.Bytes)
		}
	}
	// v0.5.15 to v0.5.18 read the same switch (fusionOffReleases), the
	// prefill graphs off by flag. v0.5.15's distributed init is v0.5.14's:
	// the same 687 slots, 1,202,593 tokens, 137 requests. v0.5.16's custom
	// all-reduce v2 at TP 4 on SM90: 2 x 4 push buffers of 896 KiB and the
	// 16 MiB pull buffer, 24,117,248 B, rounded a step up to 24 MiB, and the
	// 4 MiB table: 28 MiB, 4 above the estimate. F0 82,696,994,816 -
	// 4,194,304 = 82,692,800,512 B, F1 42,681,237,504 B: rest 39.75 -
	// 77.013671875 x 0.177 (13.63141992) = 26.11858008 GiB; floor(26.11858008
	// x 0.9 / 1.9 x 2^30 / 19316736) = floor(687.71) = 687 slots; the KV
	// rest floor((26.11858008 - 687 x 19316736 / 2^30) x 2^30) =
	// 14,774,014,181 B, / 12,288 = 1,202,312 tokens; 687 // 5 = 137.
	// v0.5.17: v0.5.16's F0 and rest (its distributed init and custom
	// all-reduce v2 the same), and its Mamba pool charges the padding slot
	// (gdnPaddingCharged): floor((26.11858008 x 0.9 / 1.9 x 2^30 -
	// 19316736) / 19316736) = floor(686.71) = 686 slots, the rest losing
	// 686 + 1 = 687 of them as v0.5.16's did, so the same 1,202,312
	// tokens; 686 // 5 = 137.
	// v0.5.18: v0.5.17's again. Its one change to this pool, the
	// multimodal reservation off the rest before the split
	// (Profile.MMRuntimeReserve), does not reach Qwen3-Next, which is not
	// multimodal (no text sub-config, not on multimodal_model_archs); its
	// distributed init and custom all-reduce v2 are v0.5.17's (the same
	// 28 MiB at TP 4 on SM90): F0 82,692,800,512 B, 686 slots, 1,202,312
	// tokens, 137 requests.
	for _, tc := range []struct {
		release string
		f0      uint64
		slots   int64
		tokens  int64
	}{{"v0.5.15", 82696994816, 687, 1202593}, {"v0.5.15.post1", 82696994816, 687, 1202593}, {"v0.5.16", 82692800512, 687, 1202312}, {"v0.5.17", 82692800512, 686, 1202312}, {"v0.5.18", 82692800512, 686, 1202312}} {
		s := Serve{TPSize: 4, DisablePiecewiseCudaGraph: true}
		if _, err := NewReference(next, s, h100, mustProfile(tc.release)); !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" {
			t.Errorf("%s without the flag: %v; want the fusion refused", tc.release, err)
		}
		s.EnforceDisableARFusion = true
		r := ref(t, next, s, h100, mustProfile(tc.release))
		got := mambaFiguresOf(r)
		if c := r.Capacity(); c.F0Bytes != tc.f0 || got.MambaSize != tc.slots || got.Tokens != tc.tokens || got.MaxNumReqs != 137 || !c.Starts {
			t.Errorf("%s with the flag: F0 %d, %d slots, %d tokens, max_num_reqs %d, starts %v; want %d, %d, %d, 137, true", tc.release, c.F0Bytes, got.MambaSize, got.Tokens, got.MaxNumReqs, c.Starts, tc.f0, tc.slots, tc.tokens)
		}
		for _, it := range r.stages[0].beside {
			if it.Name == "flashinfer_allreduce_fusion_workspace" {
				t.Errorf("%s: the fusion's workspace charged though it is off: %d B", tc.release, it.Bytes)
			}
		}
	}
	qwen := models["Qwen__Qwen3-30B-A3B"]
	for _, s := range []Serve{{TPSize: 2}, {TPSize: 2, EnforceDisableARFusion: true}} {
		if _, err := NewReference(qwen, s, h100, mustProfile("v0.5.13.post1")); !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" {
			t.Errorf("Qwen3-30B-A3B TP 2 under v0.5.13.post1 (enforce-disable %v): %v; want the fusion refused", s.EnforceDisableARFusion, err)
		}
	}
	if _, err := NewReference(qwen, Serve{TPSize: 2, EnforceDisableARFusion: true}, h100, p); err != nil {
		t.Errorf("Qwen3-30B-A3B TP 2 under v0.5.14 with the fusion off: %v", err)
	}
	// v0.5.17 and v0.5.18 read the switch as v0.5.16 does: without it the
	// refusal names it as the way out (Qwen3MoeForCausalLM is on both
	// lists, overrides.py:1863-1882 at v0.5.17, :1959-1979 at v0.5.18);
	// with it Qwen3-30B-A3B at TP 2 is sized, with no workspace.
	for _, release := range []string{"v0.5.17", "v0.5.18"} {
		_, err := NewReference(qwen, Serve{TPSize: 2, DisablePiecewiseCudaGraph: true}, h100, mustProfile(release))
		if !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" || !strings.Contains(se.Reason, "--enforce-disable-flashinfer-allreduce-fusion turns it off") {
			t.Errorf("Qwen3-30B-A3B TP 2 under %s: %v; want the fusion refused, the flag offered", release, err)
		}
		r := ref(t, qwen, Serve{TPSize: 2, EnforceDisableARFusion: true, DisablePiecewiseCudaGraph: true}, h100, mustProfile(release))
		for _, it := range r.stages[0].beside {
			if it.Name == "flashinfer_allreduce_fusion_workspace" {
				t.Errorf("Qwen3-30B-A3B under %s: the fusion's workspace charged though it is off: %d B", release, it.Bytes)
			}
		}
	}
}

// TestReadReleasesInHelp: the help text of the flags whose rules hold at
// the releases read names the lists' span, so that a release added to
// [gdnReleases] or [fusionOffReleases] (each a run of consecutive
// releases) cannot leave --help naming the old one: the Mamba pool's
// flags and the two switches that set its slots, "v0.5.14 to v0.5.18";
// the fusion switch, "v0.5.14 to v0.5.18" too.
func TestReadReleasesInHelp(t *testing.T) {
	fs := flag.NewFlagSet("sglang", flag.ContinueOnError)
	var model string
	(&flagServe{}).register(fs, &model)
	span := func(l []string) string { return l[0] + " to " + l[len(l)-1] }
	for _, tc := range []struct {
		flags []string
		span  string
	}{
		{[]string{"mamba-full-memory-ratio", "max-mamba-cache-size", "mamba-ssm-dtype", "mamba-radix-cache-strategy", "disable-radix-cache", "disable-overlap-schedule"}, span(gdnReleases)},
		{[]string{"enforce-disable-flashinfer-allreduce-fusion"}, span(fusionOffReleases)},
	} {
		for _, name := range tc.flags {
			f := fs.Lookup(name)
			if f == nil {
				t.Errorf("--%s is not registered", name)
				continue
			}
			if !strings.Contains(f.Usage, tc.span) {
				t.Errorf("--%s's help does not name %q: %s", name, tc.span, f.Usage)
			}
		}
	}
	if span(gdnReleases) != "v0.5.14 to v0.5.18" || span(fusionOffReleases) != "v0.5.14 to v0.5.18" {
		t.Errorf("the spans: %q, %q; want v0.5.14 to v0.5.18 for both", span(gdnReleases), span(fusionOffReleases))
	}
}
