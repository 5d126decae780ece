package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
	"membudget/model"
)

// glmPixels is GLM's processor's size.longest_edge: GLM-OCR's published
// preprocessor_config.json and transformers' smart_resize default, 9633792
// = 14 x 14 x 2 x 2 x 2 x 6144.
const glmPixels = `{"max_pixels": 9633792}`

// TestEncoderCacheTowersByHand: the encoder profile of GLM-4.5V's,
// Kimi-K2.5's, LLaVA's, PaliGemma's, Mistral 3's, Qwen3-VL's and Qwen3.5's
// serves at main, by hand from vLLM's rules (budget =
// max(max_num_batched_tokens, T); items = max(1, min(budget / T,
// max_num_seqs x max(1, min(limit, max_model_len / T)))); cache = items x
// T x the text width x 2 B in bfloat16).
//
// GLM-4.5V's largest image under max_pixels 9633792: smart_resize fits
// the 9999999-pixel square of two frames to sqrt(9633792 / 2) = 2194.74
// pixels a side, floored to 28: 78 x 28 = 2184; 78 x 78 = 6084 merged
// patches. Its width is 4096, its length 65536.
//
// Kimi-K2.5's largest vision chunk: the 3000-pixel image is 214 patches a
// side; sqrt(16384 / 214^2) = 0.5981 scales it to 1794 pixels (under 512
// x 14 = 7168), padded to 1820 = 65 x 28: 4225 tokens; a chunk's frame
// under 4096 patches, sqrt(4096 / 214^2) = 0.2991: 897, padded to 924 =
// 33 x 28: 1089 tokens; the image is larger. Its width is 7168, its
// length 262144.
func TestEncoderCacheTowersByHand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model string
		s           Serve
		want        EncoderProfile
	}{
		{
			// 8192 / 6084 = 1 item; 6084 x 4096 x 2 = 49840128.
			name: "glm-4.5v, images only", model: "zai-org__GLM-4.5V",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: glmPixels}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 6084, Budget: 8192, Items: 1, CacheBytes: 49840128, Basis: glm4vBasis},
		},
		{
			// 32768 / 6084 = 5 items, under 256 x min(4, 65536 / 6084 =
			// 10) = 1024; 5 x 6084 x 4096 x 2 = 249200640.
			name: "glm-4.5v, four images a prompt, 32768 batched tokens", model: "zai-org__GLM-4.5V",
			s:    Serve{MaxNumBatchedTokens: 32768, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"image": 4, "video": 0}`, ProcessorKwargs: glmPixels}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 6084, Budget: 32768, Items: 5, CacheBytes: 249200640, Basis: glm4vBasis},
		},
		{
			// One sequence: the decoder takes 1 x min(999, 65536 / 6084 =
			// 10) = 10 items, the encoder 32768 / 6084 = 5: 5 items.
			name: "glm-4.5v, one sequence", model: "zai-org__GLM-4.5V",
			s:    Serve{MaxNumBatchedTokens: 32768, MaxNumSeqs: 1, MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: glmPixels}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 6084, Budget: 32768, Items: 5, CacheBytes: 249200640, Basis: glm4vBasis},
		},
		{
			name: "glm-4.5v, video on", model: "zai-org__GLM-4.5V",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{ProcessorKwargs: glmPixels}},
			want: EncoderProfile{Runs: true, Why: glm4vUnsized},
		},
		{
			// No processor file ships with it.
			name: "glm-4.5v, max_pixels not given", model: "zai-org__GLM-4.5V",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"video": 0}`}},
			want: EncoderProfile{Runs: true, Why: glm4vNoProcessor},
		},
		{
			// 8192 / 4225 = 1 item; 4225 x 7168 x 2 = 60569600.
			name: "kimi-k2.5", model: "moonshotai__Kimi-K2.5",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "vision_chunk", TokensPerItem: 4225, Budget: 8192, Items: 1, CacheBytes: 60569600, Basis: moonViTBasis},
		},
		{
			// 32768 / 4225 = 7 items, under 256 x min(2, 262144 / 4225 =
			// 62) = 512; 7 x 4225 x 7168 x 2 = 423987200.
			name: "kimi-k2.5, two chunks a prompt, 32768 batched tokens", model: "moonshotai__Kimi-K2.5",
			s:    Serve{MaxNumBatchedTokens: 32768, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"vision_chunk": 2}`}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "vision_chunk", TokensPerItem: 4225, Budget: 32768, Items: 7, CacheBytes: 423987200, Basis: moonViTBasis},
		},
		{
			name: "kimi-k2.5, text only", model: "moonshotai__Kimi-K2.5",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"vision_chunk": 0}`}},
			want: EncoderProfile{TextOnly: true, Why: "every modality's limit is 0: vLLM serves the model as text only"},
		},
	}
	cases = append(cases, []struct {
		name, model string
		s           Serve
		want        EncoderProfile
	}{
		{
			// LLaVA-1.5-7B: CLIP's (336 / 14)^2 = 576 patches and its class
			// token, less the first under "default": 576 an image;
			// 8192 / 576 = 14 items, under 256 x min(999, 4096 / 576 = 7);
			// 14 x 576 x 4096 x 2 = 66060288.
			name: "llava-1.5-7b", model: "llava-hf__llava-1.5-7b-hf",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 576, Budget: 8192, Items: 14, CacheBytes: 66060288},
		},
		{
			// One sequence of one image: 1 x 576 x 4096 x 2 = 4718592.
			name: "llava-1.5-7b, one sequence, one image", model: "llava-hf__llava-1.5-7b-hf",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 1, MM: MM{LimitPerPrompt: `{"image": 1}`}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 576, Budget: 8192, Items: 1, CacheBytes: 4718592},
		},
		{
			// PaliGemma-3B-448: SigLIP's (448 / 14)^2 = 1024 an image;
			// 8192 / 1024 = 8 items; width 2048: 8 x 1024 x 2048 x 2 =
			// 33554432.
			name: "paligemma-3b-448", model: "google__paligemma-3b-pt-448",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 1024, Budget: 8192, Items: 8, CacheBytes: 33554432},
		},
		{
			// Four sequences: PaliGemma takes one image a prompt whatever
			// the limit says (999 by default), so 4 x 1 = 4 items, not
			// min(8, 4 x 8192 / 1024); 4 x 1024 x 2048 x 2 = 16777216.
			name: "paligemma-3b-448, four sequences", model: "google__paligemma-3b-pt-448",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 4},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 1024, Budget: 8192, Items: 4, CacheBytes: 16777216},
		},
		{
			// LLaVA-v1.6-Mistral-7B: its pinpoint 672 x 672 is 2 x 2 tiles
			// of 24 patches, 48 x 48 = 2304, 48 newlines and the base
			// image's 576: 2928 (1008 x 336: 72 x 24 + 72 + 576 = 2376;
			// 336 x 1008: 2328; 336 x 672: 1152 + 24 + 576 = 1752);
			// 8192 / 2928 = 2 items; 2 x 2928 x 4096 x 2 = 47972352.
			name: "llava-v1.6-mistral-7b", model: "llava-hf__llava-v1.6-mistral-7b-hf",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 2928, Budget: 8192, Items: 2, CacheBytes: 47972352},
		},
		{
			// Mistral-Small-3.1-24B: a 1540-pixel square in 14 x 2 = 28
			// pixel cells, 1539 / 28 + 1 = 55 a side: 3025 embeddings;
			// 8192 / 3025 = 2 items; width 5120: 2 x 3025 x 5120 x 2 =
			// 61952000.
			name: "mistral-small-3.1", model: "mistralai__Mistral-Small-3.1-24B-Instruct-2503",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 3025, Budget: 8192, Items: 2, CacheBytes: 61952000},
		},
		{
			// Qwen3-VL-32B, images only, max_pixels 16777216 = 128^2 x 32^2
			// (16 px patches merged 2 x 2): 16384 tokens a square image, the
			// budget (above 8192), one item. Each token carries its three
			// deepstack features beside it, 4 x 5120 wide: 16384 x 20480 x
			// 2 = 671088640.
			name: "qwen3-vl-32b, images only", model: "Qwen__Qwen3-VL-32B-Instruct",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: `{"max_pixels": 16777216}`}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 16384, Budget: 16384, Items: 1, CacheBytes: 671088640},
		},
		{
			// Qwen3.5-27B: the same image, no deepstack: 16384 x 5120 x 2 =
			// 167772160.
			name: "qwen3.5-27b, images only", model: "Qwen__Qwen3.5-27B",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: `{"max_pixels": 16777216}`}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 16384, Budget: 16384, Items: 1, CacheBytes: 167772160},
		},
		{
			// Video taken and no video_preprocessor_config.json shipped
			// with it: the video is not sized, and so neither is the item.
			name: "qwen3-vl-32b, video on", model: "Qwen__Qwen3-VL-32B-Instruct",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{ProcessorKwargs: `{"max_pixels": 16777216}`}},
			want: EncoderProfile{Runs: true, Why: qwen3NoVideoProcessor},
		},
		{
			name: "llava-onevision", model: "llava-hf__llava-onevision-qwen2-7b-ov-hf",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256},
			want: EncoderProfile{Runs: true, Why: llavaOneVisionWhy},
		},
		{
			// LLaVA-NeXT-Video takes video alone: its limit 0 is text only.
			name: "llava-next-video, text only", model: "llava-hf__LLaVA-NeXT-Video-7B-hf",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"video": 0}`}},
			want: EncoderProfile{TextOnly: true, Why: "every modality's limit is 0: vLLM serves the model as text only"},
		},
		{
			name: "smolvlm2", model: "HuggingFaceTB__SmolVLM2-500M-Video-Instruct",
			s:    Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256},
			want: EncoderProfile{Runs: true, Why: idefics3Why},
		},
	}...)
	for _, c := range cases {
		sz, err := sizeShippedAt(t, c.model, "h200", "main", c.s)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		want := c.want
		// EveryStage is the runner's (V1 or V2), not this file's.
		want.EveryStage = sz.Serve.Encoder.EveryStage
		if diff := cmp.Diff(want, sz.Serve.Encoder); diff != "" {
			t.Errorf("%s: encoder profile (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestGLM4VImageSide: smart_resize's side on and off a 28-pixel step,
// by hand: 2 x 1120^2 = 2508800 pixels are exactly 40 steps a side (the
// float division must not fall to 39.999); one pixel fewer is 39 steps;
// 12845056 (Qwen2.5-VL's figure): sqrt(6422528) = 2534.26, 90 steps;
// 1000 pixels floor to 0 steps, kept at one.
func TestGLM4VImageSide(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pixels, want uint64 }{
		{2508800, 1120}, {2508799, 1092}, {9633792, 2184}, {12845056, 2520}, {1000, 28},
	} {
		if got := glm4vImageSide(c.pixels, 28); got != c.want {
			t.Errorf("max_pixels %d: side %d, want %d", c.pixels, got, c.want)
		}
	}
}

// TestNavitTokens: Kimi-K2.5's processor on square images, by hand: a
// 3000-pixel image 4225 tokens and a chunk's frame 1089 (see above); a
// 280-pixel image is 20 patches a side, under every limit: 10 x 10 = 100;
// a 7200-pixel one at 16384 patches: 514 patches a side, scaled by
// sqrt(16384 / 514^2) = 128 / 514 (under 7168 / 7200): 7200 x 128 / 514
// = 1792.996, truncated to 1792 = 64 x 28, no padding: 4096.
func TestNavitTokens(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ side, limit, want uint64 }{
		{3000, 16384, 4225}, {3000, 4096, 1089}, {280, 16384, 100}, {7200, 16384, 4096},
	} {
		if got := navitTokens(c.side, c.limit); got != c.want {
			t.Errorf("side %d under %d patches: %d tokens, want %d", c.side, c.limit, got, c.want)
		}
	}
}

// TestGLM4VAndMoonViTRefusals: what membudget does not size is refused
// by flag and key, or left unsized with why.
func TestGLM4VAndMoonViTRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, model, flag, in string
		s                     Serve
	}{
		{"glm max_pixels too small", "zai-org__GLM-4.5V", "mm-processor-kwargs", "below the processor's 12544",
			Serve{MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: `{"max_pixels": 1000}`}}},
		{"glm min_pixels", "zai-org__GLM-4.5V", "mm-processor-kwargs", "not modelled for the glm4v tower (membudget reads max_pixels)",
			Serve{MM: MM{ProcessorKwargs: `{"min_pixels": 1000}`}}},
		{"kimi takes no processor kwargs", "moonshotai__Kimi-K2.5", "mm-processor-kwargs", "not modelled for the moonvit tower (membudget reads no key)",
			Serve{MM: MM{ProcessorKwargs: `{"max_pixels": 1000}`}}},
	} {
		_, err := sizeShippedAt(t, c.model, "h200", "main", c.s)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != c.flag || !strings.Contains(err.Error(), c.in) {
			t.Errorf("%s: got %v, want a --%s error saying %q", c.name, err, c.flag, c.in)
		}
	}
	// A MoonViT of another patch is not the published processor's.
	items, err := moonViTItems(&model.VisionTower{PatchSize: 16, SpatialMerge: 2}, 0, nil, nil)
	if err != nil || len(items) != 0 {
		t.Errorf("a 16-pixel MoonViT: %v, %v; want no item", items, err)
	}
}
