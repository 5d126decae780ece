package model

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTowersOffLeavesTheTowerOut: a vision tower the engine does not build
// (Sharding.TowersOff has ImageInput) is left out with its projector, from
// config.json and from the checkpoint alike. LLaVA-1.5-7B in float16 at
// TP1, by hand: the CLIP tower's class embedding 1024, patch embedding
// 1024 x 3 x 14 x 14 = 602,112 and 577 positions x 1024 = 590,848;
// pre_layrnorm 2 x 1024; 23 layers (vision_feature_layer -2 of 24) of
// qkv 1024 x 3072 + 3072, out_proj 1024 x 1024 + 1024, fc1 1024 x 4096
// + 4096, fc2 4096 x 1024 + 1024 and two LayerNorms 4 x 1024: 12,596,224
// each, 289,713,152; the projector 1024 x 4096 + 4096 + 4096 x 4096 +
// 4096 = 20,979,712. 311,888,896 parameters x 2 B = 623,777,792 B, and
// the int64 position_ids buffer 577 x 8 = 4616 B: 623,782,408 B. The
// language model's bytes do not change.
func TestTowersOffLeavesTheTowerOut(t *testing.T) {
	const tower = 623_782_408
	a, _ := attach(t, llava15Header)
	on := Whole(a, 1, 2, a.Quant)
	off := on
	off.TowersOff = ImageInput
	audioOff := on
	audioOff.TowersOff = AudioInput
	type got struct{ Config, Checkpoint uint64 }
	less := func(sh Sharding) got {
		return got{sum(Weights(a, on)) - sum(Weights(a, sh)), sum(CheckpointWeights(a, on)) - sum(CheckpointWeights(a, sh))}
	}
	if diff := cmp.Diff(got{tower, tower}, less(off)); diff != "" {
		t.Errorf("weights less without the vision tower (-want +got):\n%s", diff)
	}
	// LLaVA has no audio tower: nothing leaves.
	if diff := cmp.Diff(got{0, 0}, less(audioOff)); diff != "" {
		t.Errorf("weights less without an audio tower (-want +got):\n%s", diff)
	}
	// Off the first stage there was no tower to leave out.
	st := Stages([]int{16, 16})[1]
	st.TP, st.DtypeBytes, st.Quant = 1, 2, a.Quant
	stOff := st
	stOff.TowersOff = ImageInput
	if g, w := sum(CheckpointWeights(a, stOff)), sum(CheckpointWeights(a, st)); g != w {
		t.Errorf("second stage: %d B without the tower, want %d as with it", g, w)
	}
}
