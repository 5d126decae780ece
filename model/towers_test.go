package model

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model/safetensors"
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

// TestTowerWholeByHand: Sharding.TowerWhole (vLLM's --mm-encoder-tp-mode
// data) keeps every layer of the vision tower and its projector whole on
// each rank, from config.json and from the checkpoint alike; the language
// model's share does not move.
//
// Qwen2.5-VL-7B-Instruct at TP2, bf16 (qwen2_5_vl.py:308-612 at d18bb7b,
// tower width 1280, MLP 3420, merger 4 x 1280 = 5120 into 3584). Weights
// mode, one rank: a block's norms 2 x 1280 = 2560; qkv 3840 / 2 = 1920
// rows x 1280 + its 1920 bias = 2,459,520; proj 1280 x 640 + the whole
// 1280 bias = 820,480; gate_up 6840 / 2 = 3420 rows x 1280 + 3420 =
// 4,381,020; down 1280 x 1710 + 1280 = 2,190,080: 9,853,660 a block. The
// merger: ln_q 1280, mlp.0 2560 rows x 5120 + 2560 = 13,109,760, mlp.2
// 3584 x 2560 + 3584 = 9,178,624: 22,289,664. With the patch embedding
// 1280 x 3 x 2 x 14 x 14 = 1,505,280 (whole either way): 1,505,280 + 32 x
// 9,853,660 + 22,289,664 = 339,112,064 parameters. Data mode, one rank:
// the whole tower, 676,550,144 (TestQwen25VL7BHeader: 1,505,280 + 32 x
// 19,702,200 + 44,574,464). The rank holds 337,438,080 parameters more:
// 674,876,160 B.
//
// GLM-4.5V at TP4 (glm4_1v.py:216-512; the TP4 tower is glm45VTower4):
// what the four ranks divide comes back whole. A block's qkv 4608 - 1152
// rows of 1536 = 5,308,416, proj 1536 x (1536 - 384) = 1,769,472, gate_up
// 8192 - 2048 rows of 1536 = 9,437,184, down 1536 x (4096 - 1024) =
// 4,718,592: 21,233,664, x 24 = 509,607,936. The merger's proj 4096 -
// 1024 rows of 4096 = 12,582,912, gate_up 21,888 - 5472 rows of 4096 =
// 67,239,936, down 4096 x (10,944 - 2736) = 33,619,968: 113,442,816. In
// all 623,050,752 parameters more: 1,246,101,504 B.
//
// Llama-4-Scout at TP2 (mllama4.py:123-552; tower width 1408, MLP 5632,
// 34 layers, the pixel-shuffle adapter 5632 -> 4096 -> 4096, no adapter
// bias): the patch embedding's 588 x 1408 columns, 588 x 704 =
// 413,952 back; a layer's qkv 2112 rows of 1408 and their bias,
// 2,975,808, o_proj 1408 x 704 = 991,232, fc1 2816 rows of 1408 and their
// bias, 3,967,744, fc2 1408 x 2816 = 3,964,928: 11,899,712, x 34 =
// 404,590,208; the adapter's fc1 2048 rows of 5632, 11,534,336, and fc2
// 4096 x 2048, 8,388,608. The projector multi_modal_projector.linear_1
// stays divided (no disable_tp, mllama4.py:172-179). 424,927,104
// parameters more: 849,854,208 B.
func TestTowerWholeByHand(t *testing.T) {
	cases := []struct {
		name    string
		fixture func() (string, []safetensors.Tensor)
		tp      uint64
		more    uint64
	}{
		{"Qwen2.5-VL-7B-Instruct TP2", qwen25VL7BHeader, 2, (676_550_144 - (1_505_280 + 32*9_853_660 + 22_289_664)) * 2},
		{"GLM-4.5V TP4", glm45VHeader, 4, (24*21_233_664 + 113_442_816) * 2},
		{"Llama-4-Scout TP2", llama4ScoutHeader, 2, (413_952 + 34*11_899_712 + 11_534_336 + 8_388_608) * 2},
	}
	for _, c := range cases {
		a, _ := attach(t, c.fixture)
		split := Whole(a, c.tp, 2, a.Quant)
		whole := split
		whole.TowerWhole = true
		type got struct{ Config, Checkpoint uint64 }
		more := got{sum(Weights(a, whole)) - sum(Weights(a, split)), sum(CheckpointWeights(a, whole)) - sum(CheckpointWeights(a, split))}
		if diff := cmp.Diff(got{c.more, c.more}, more); diff != "" {
			t.Errorf("%s: bytes a rank holds more with the tower whole (-want +got):\n%s", c.name, diff)
		}
		// At one rank there is nothing to replicate.
		one := Whole(a, 1, 2, a.Quant)
		oneWhole := one
		oneWhole.TowerWhole = true
		if g, w := sum(CheckpointWeights(a, oneWhole)), sum(CheckpointWeights(a, one)); g != w {
			t.Errorf("%s TP1: %d B with the tower whole, want %d", c.name, g, w)
		}
	}
	// The TP2 tower by hand, beside the sum above: the rank's qkv rows.
	a, _ := attach(t, qwen25VL7BHeader)
	sh := Whole(a, 2, 2, a.Quant)
	sh.TowerWhole = true
	if got, want := byName(CheckpointWeights(a, sh))["visual.blocks.0.attn.qkv.weight"], uint64(3840*1280*2); got != want {
		t.Errorf("data mode at TP2: qkv %d B, want the whole %d", got, want)
	}
}

// TestTowerWholeNeverShrinks: whatever the model, TP and stage, keeping
// the tower whole never leaves a rank fewer weight bytes, and a model
// without a tower, or a stage without it, the same.
func TestTowerWholeNeverShrinks(t *testing.T) {
	fixtures := map[string]func() (string, []safetensors.Tensor){
		"Qwen2-VL-7B": qwen2VL7BHeader, "Qwen2.5-VL-7B": qwen25VL7BHeader, "Qwen3-VL-32B": qwen3VL32BHeader,
		"Qwen3-VL-30B-A3B": qwen3VL30BA3BHeader, "GLM-4.5V": glm45VHeader, "InternVL3": internVL3Header,
		"LLaVA-1.5": llava15Header, "Qwen3-Next": qwen3NextHeader, "Llama-4-Scout": llama4ScoutHeader, "Kimi-K2.5": kimiK25Header,
	}
	var names []string
	archs := map[string]*Arch{}
	for n, f := range fixtures {
		names = append(names, n)
		archs[n], _ = attach(t, f)
	}
	slices.Sort(names)
	rapid.Check(t, func(rt *rapid.T) {
		name := rapid.SampledFrom(names).Draw(rt, "model")
		a := archs[name]
		tp := rapid.SampledFrom([]uint64{1, 2, 4, 8}).Draw(rt, "tp")
		pp := rapid.IntRange(1, 2).Draw(rt, "pp")
		stage := rapid.IntRange(0, pp-1).Draw(rt, "stage")
		sh := Stages(pipelineParts(len(a.Layers), pp))[stage]
		sh.TP, sh.DtypeBytes, sh.Quant = tp, 2, a.Quant
		whole := sh
		whole.TowerWhole = true
		for _, f := range []func(*Arch, Sharding) []budget.Item{Weights, CheckpointWeights} {
			s, w := sum(f(a, sh)), sum(f(a, whole))
			if w < s {
				rt.Fatalf("%s TP%d stage %d/%d: %d B with the tower whole, %d B without", name, tp, stage, pp, w, s)
			}
			if (a.Vision == nil || !sh.First || tp == 1) && w != s {
				rt.Fatalf("%s TP%d stage %d/%d: %d B with the tower whole, want %d: no tower to replicate", name, tp, stage, pp, w, s)
			}
		}
		// The towers vLLM builds whole in data mode and the engine sizes so
		// (engine/vllm's encoderDPTowers): what the tower adds agrees from
		// the checkpoint and the config (their language models may differ
		// at a TP that does not divide them, InternVL3-1B's 14 heads at 4),
		// at the TP sizes checkHeaderRanks checks (at 8 weights mode's
		// split of Qwen2.5-VL's 3420-wide MLP, which vLLM's divide asserts
		// on, rounds apart).
		if tp > 4 || !slices.Contains([]string{"qwen2_vl", "qwen2_5_vl", "qwen3_vl", "glm4v", "intern_vit", "llama4", "moonvit"}, towerKind(a)) {
			return
		}
		c := sum(CheckpointWeights(a, whole)) - sum(CheckpointWeights(a, sh))
		if w := sum(Weights(a, whole)) - sum(Weights(a, sh)); c != w {
			rt.Fatalf("%s TP%d stage %d/%d: the tower whole adds %d B from the checkpoint, %d B from the config", name, tp, stage, pp, c, w)
		}
	})
}

// pipelineParts splits n layers among pp stages, the first ones one more.
func pipelineParts(n, pp int) []int {
	parts := make([]int, pp)
	for i := range parts {
		parts[i] = n / pp
		if i < n%pp {
			parts[i]++
		}
	}
	return parts
}

// towerKind is a's vision tower's kind, "" without one.
func towerKind(a *Arch) string {
	if a.Vision == nil {
		return ""
	}
	return a.Vision.Kind
}
