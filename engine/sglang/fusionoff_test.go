package sglang

import (
	"errors"
	"testing"

	"membudget/engine"
)

// TestFusionOff: --enforce-disable-flashinfer-allreduce-fusion lets v0.5.14
// size a serve it would otherwise turn the unmodelled fusion on for, with
// no workspace; under v0.5.13.post1, whose switch is not read, the refusal
// stands.
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
	qwen := models["Qwen__Qwen3-30B-A3B"]
	for _, s := range []Serve{{TPSize: 2}, {TPSize: 2, EnforceDisableARFusion: true}} {
		if _, err := NewReference(qwen, s, h100, mustProfile("v0.5.13.post1")); !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" {
			t.Errorf("Qwen3-30B-A3B TP 2 under v0.5.13.post1 (enforce-disable %v): %v; want the fusion refused", s.EnforceDisableARFusion, err)
		}
	}
	if _, err := NewReference(qwen, Serve{TPSize: 2, EnforceDisableARFusion: true}, h100, p); err != nil {
		t.Errorf("Qwen3-30B-A3B TP 2 under v0.5.14 with the fusion off: %v", err)
	}
}
