package vllm

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// Hand counts of two towers vLLM leaves out at limit 0 (rank 0, TP1).
const (
	// qwen25VL7BTower is Qwen2.5-VL-7B's vision tower in bfloat16: the
	// Conv3d patch embedding 1280 x 3 x 2 x 14 x 14 = 1,505,280; 32 blocks
	// of two norms 2 x 1280, qkv 1280 x 3840 + 3840, proj 1280 x 1280 +
	// 1280, gate_up 1280 x 6840 + 6840 and down 3420 x 1280 + 1280:
	// 19,702,200 each, 630,470,400; the merger's ln_q 1280, mlp.0 5120 x
	// 5120 + 5120 and mlp.2 5120 x 3584 + 3584: 44,574,464; the rotary
	// table 8192 x 80 / 2 = 327,680. 676,877,824 x 2 B.
	qwen25VL7BTower = 676_877_824 * 2
	// llava15Tower is LLaVA-1.5-7B's CLIP tower and projector in float16
	// (model's TestTowersOffLeavesTheTowerOut): 311,888,896 x 2 B and the
	// int64 position_ids 577 x 8 B.
	llava15Tower = 311_888_896*2 + 577*8
	// gemma4_31BTower is Gemma 4 31B's vision tower and embedder in
	// bfloat16 (model's TestGemma4Headers): input_proj 1152 x 768, the
	// position table 2 x 10,240 x 1152, std_bias and std_scale 2 x 1152,
	// 27 layers of 4 x 1152^2 + 3 x 4304 x 1152 + 4 x 1152 + 2 x 72 =
	// 21,248,784, the embedder 5376 x 1152: 575,743,536 x 2 B; and the 2D
	// rope's inv_freq, 18 float32.
	gemma4_31BTower = 575_743_536*2 + 18*4
	// someTower is a tower not counted here by hand: any bytes above 0.
	someTower = ^uint64(0)
)

// TestTowersLeftOutAtLimitZero: a tower whose every modality
// --limit-mm-per-prompt limits to 0 is not built, from 0.15.0 in every
// model file (_mark_tower_model) and before it in the files that tested
// the limit themselves; a modality the flag does not name counts 999, so
// a tower of image and video stays while video does. Its weights leave
// the ledger and the profile runs no encoder.
func TestTowersLeftOutAtLimitZero(t *testing.T) {
	t.Parallel()
	models := shipped(t)
	tests := []struct {
		name, model, spec, limits string
		maxLen                    uint64
		less                      uint64
		textOnly                  bool
	}{
		{"qwen2.5-vl, image and video 0", "Qwen__Qwen2.5-VL-7B-Instruct", "main", `{"image": 0, "video": 0}`, 8192, qwen25VL7BTower, true},
		{"qwen2.5-vl, image 0: video keeps the tower", "Qwen__Qwen2.5-VL-7B-Instruct", "main", `{"image": 0}`, 8192, 0, false},
		// qwen2_5_vl.py tested the limits itself from PR #22299.
		{"qwen2.5-vl on 0.14.0", "Qwen__Qwen2.5-VL-7B-Instruct", "0.14.0", `{"image": 0, "video": 0}`, 8192, qwen25VL7BTower, true},
		{"llava-1.5, image 0", "llava-hf__llava-1.5-7b-hf", "main", `{"image": 0}`, 4096, llava15Tower, true},
		{"llava-1.5 on 0.14.0 (llava.py:554)", "llava-hf__llava-1.5-7b-hf", "0.14.0", `{"image": 0}`, 4096, llava15Tower, true},
		{"llava-1.5 on 0.19.0", "llava-hf__llava-1.5-7b-hf", "0.19.0", `{"image": 0}`, 4096, llava15Tower, true},
		// llava_next.py built its tower whatever the limits before PR #32650.
		{"llava-next on 0.14.0 keeps its tower", "llava-hf__llava-v1.6-mistral-7b-hf", "0.14.0", `{"image": 0}`, 4096, 0, true},
		// Phi-4-multimodal's image encoder is marked for image and video.
		{"phi-4-multimodal, image 0 keeps the image encoder", "microsoft__Phi-4-multimodal-instruct", "main", `{"image": 0}`, 4096, 0, false},
		// InternVL's tower is marked for image and video: with both 0 no
		// encoder runs, though its processor's modalities are not read.
		{"internvl3, image and video 0", "OpenGVLab__InternVL3-1B-Pretrained", "main", `{"image": 0, "video": 0}`, 4096, someTower, true},
		// Gemma 4's tower is marked for image and video (gemma4_mm.py:1065-1078).
		{"gemma-4-31b, image and video 0", "google__gemma-4-31B-it", "main", `{"image": 0, "video": 0}`, 4096, gemma4_31BTower, true},
		{"gemma-4-31b, image 0: video keeps the tower", "google__gemma-4-31B-it", "main", `{"image": 0}`, 4096, 0, false},
	}
	c := testClass(false)
	for _, tt := range tests {
		a := models[tt.model]
		if a == nil {
			t.Fatalf("%s: no shipped model %s", tt.name, tt.model)
		}
		cp := NewCompiler(a)
		weights := func(limits string) (uint64, Resolved) {
			t.Helper()
			r, plan, err := cp.Compile(trusting(a, Serve{MaxModelLen: tt.maxLen, MM: MM{LimitPerPrompt: limits}}), c, mustProfile(tt.spec))
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			return plan.Stages[0].Fixed[budget.TermWeights], r
		}
		all, _ := weights("")
		some, r := weights(tt.limits)
		if got := all - some; tt.less == someTower && got == 0 || tt.less != someTower && got != tt.less {
			t.Errorf("%s: weights %d B less, want %d", tt.name, got, tt.less)
		}
		if line := r.towersLine(a); (line != "") != (tt.less != 0) {
			t.Errorf("%s: report line %q, want one where a tower leaves", tt.name, line)
		}
		if got := !r.Encoder.Runs; got != tt.textOnly {
			t.Errorf("%s: encoder profile %+v, want text only %v", tt.name, r.Encoder, tt.textOnly)
		}
	}
}

// TestTowersOffRefusedWhereNotKnown: Kimi-K2.5 built its tower whatever the
// limits until PR #33346 (2026-01-30), after 0.15.0's branch: whether
// 0.15 skips it is not known, and the serve is refused naming the flag;
// 0.16.0 skips it (the vision_chunk tower, its weights gone).
func TestTowersOffRefusedWhereNotKnown(t *testing.T) {
	t.Parallel()
	a := shipped(t)["moonshotai__Kimi-K2.5"]
	s := Serve{MaxModelLen: 8192, MM: MM{LimitPerPrompt: `{"vision_chunk": 0}`}}
	c := testClass(false)
	_, err := Resolve(s, a, c, mustProfile("0.15.0"))
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "limit-mm-per-prompt" {
		t.Errorf("0.15.0: %v, want a refusal naming --limit-mm-per-prompt", err)
	}
	r, err := Resolve(s, a, c, mustProfile("0.16.0"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(model.ImageInput, r.Stages[0].TowersOff); diff != "" {
		t.Errorf("0.16.0 towers off (-want +got):\n%s", diff)
	}
}
