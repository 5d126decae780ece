package sglang

import (
	"math"
	"testing"
)

// TestVLMFactorReadsTheVisionConfig: v0.5.6.post2 scales a multimodal
// model's default mem_fraction_static by 0.95 x clamp(1 - 0.1 x (ratio -
// 1), 0.8, 1.05), ratio = layers x hidden^2 / (24 x 1024^2), with layers and
// hidden the vision config's num_hidden_layers and hidden_size (getattr
// defaults 24 and 1024), not the tower built.
func TestVLMFactorReadsTheVisionConfig(t *testing.T) {
	archs := shipped(t)
	p := mustProfile("0.5.6.post2")
	cases := []struct {
		model string
		want  float64
	}{
		// No num_hidden_layers (its 32 blocks are depth): 24; hidden_size
		// is the language model's 3584: ratio 3584^2 / 1024^2 = 12.25,
		// 1 - 1.125 clamped to 0.8: 0.95 x 0.8.
		{"Qwen__Qwen2-VL-7B-Instruct", 0.76},
		// 24 and the tower's 1280: ratio 1.5625, 1 - 0.05625 = 0.94375.
		{"Qwen__Qwen2.5-VL-7B-Instruct", 0.95 * 0.94375},
		// 24 and 1152: ratio 1.265625, 1 - 0.0265625 = 0.9734375.
		{"Qwen__Qwen3-VL-32B-Instruct", 0.95 * 0.9734375},
		// CLIP ViT-L/14: 24 x 1024^2, ratio 1.
		{"llava-hf__llava-1.5-7b-hf", 0.95},
		// Pixtral's 24 x 1024.
		{"mistralai__Mistral-Small-3.1-24B-Instruct-2503", 0.95},
		// Gemma 3 is left alone (multimodal off by default).
		{"google__gemma-3-27b-it", 1},
	}
	for _, c := range cases {
		a := archs[c.model]
		if a == nil {
			t.Fatalf("%s is not shipped", c.model)
		}
		if got := vlmFactor(a, p); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: factor %.6f, want %.6f", c.model, got, c.want)
		}
	}
}
