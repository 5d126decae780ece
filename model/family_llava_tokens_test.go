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

// TestLlavaNextImageTokens: LLaVA-NeXT's largest image, by hand. CLIP at
// 336 px in 14 px patches, "default": a base of 576; the class's
// pinpoints' largest is 672 x 672, 2 x 2 tiles of 24 patches: 48 x 48 +
// 48 newlines + 576 = 2928. One pinpoint 336 x 1008: 24 x 72 + 24 + 576 =
// 2328. SigLIP at 384 px in 14 px patches, "default" (728), pinpoint 768
// x 768: 54 x 54 + 54 + 728 = 3698. A pinpoint not of whole tiles (500 x
// 672) and an empty list are not counted: 0.
func TestLlavaNextImageTokens(t *testing.T) {
	clip := &VisionTower{Kind: "clip", ImageSize: 336, PatchSize: 14}
	siglip := &VisionTower{Kind: "llava_siglip", ImageSize: 384, PatchSize: 14}
	for _, c := range []struct {
		name string
		v    *VisionTower
		pins [][]uint64
		want uint64
	}{
		{"class pinpoints", clip, [][]uint64{{336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}}, 2928},
		{"one wide pinpoint", clip, [][]uint64{{336, 1008}}, 2328},
		{"siglip", siglip, [][]uint64{{768, 768}}, 3698},
		{"not whole tiles", clip, [][]uint64{{672, 672}, {500, 672}}, 0},
		{"no pinpoints", clip, nil, 0},
	} {
		if got := llavaNextImageTokens(c.v, llavaImageTokens(c.v, "default"), c.pins); got != c.want {
			t.Errorf("%s: %d tokens, want %d", c.name, got, c.want)
		}
	}
}
