package model

import "testing"

// TestLlavaImageTokens: LLaVA's embeddings an image, by hand from vLLM's
// encoder infos and select strategies: CLIP at 336 px in 14 px patches has
// 24^2 = 576 patches and a class token, 577; "default" drops the first,
// 576; "full" keeps them, 577. SigLIP at 384 px in 14 px patches, 27^2 =
// 729 without a class token, "default" 728. Pixtral's tower and the
// "class" strategy are not a fixed count here: 0.
func TestLlavaImageTokens(t *testing.T) {
	for _, c := range []struct {
		kind, strategy string
		image, patch   uint64
		want           uint64
	}{
		{"clip", "default", 336, 14, 576},
		{"clip", "full", 336, 14, 577},
		{"clip", "class", 336, 14, 0},
		{"llava_siglip", "default", 384, 14, 728},
		{"llava_siglip", "full", 384, 14, 729},
		{"llava_pixtral", "default", 1024, 16, 0},
	} {
		v := &VisionTower{Kind: c.kind, ImageSize: c.image, PatchSize: c.patch}
		if got := llavaImageTokens(v, c.strategy); got != c.want {
			t.Errorf("%s %s: %d tokens, want %d", c.kind, c.strategy, got, c.want)
		}
	}
}
