package vllm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget"
	"membudget/model"
	"membudget/model/hub"
)

// shippedWithProcessors parses shipped model name's config.json afresh
// and attaches the processor files given ("" for none), named i.json and
// v.json.
func shippedWithProcessors(t testing.TB, name, image, video string) *hub.Loaded {
	t.Helper()
	a := parseShippedConfig(t, name)
	var ib, vb []byte
	if image != "" {
		ib = []byte(image)
	}
	if video != "" {
		vb = []byte(video)
	}
	if err := model.AttachProcessors(a, "i.json", ib, "v.json", vb); err != nil {
		t.Fatal(err)
	}
	return &hub.Loaded{Name: name, Arch: a}
}

// TestProcessorFileRefusals: a processor file's count that vLLM's profile
// could not use, or that membudget does not size, is an error naming the
// file and its key, or the reason the item is not sized; the same count
// from --mm-processor-kwargs names the flag.
func TestProcessorFileRefusals(t *testing.T) {
	t.Parallel()
	const (
		qwen25 = "Qwen__Qwen2.5-VL-7B-Instruct"
		qwen36 = "nvidia__Qwen3.6-35B-A3B-NVFP4"
		image  = `{"size": {"longest_edge": 16777216, "shortest_edge": 65536}}`
		video  = `{"size": {"longest_edge": 25165824, "shortest_edge": 4096}, "temporal_patch_size": 2}`
	)
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	serve := Serve{MaxModelLen: 32768, MaxNumBatchedTokens: 8192}
	for _, tc := range []struct {
		name, model, image, video, kwargs string
		err, why                          string
	}{
		// 100 pixels: below one merged patch of 28 x 28.
		{name: "max_pixels below a merged patch", model: qwen25, image: `{"max_pixels": 100}`,
			err: "i.json: max_pixels 100: is below one merged patch (28 x 28 pixels)"},
		// 12845056 / 28^2 = 16384 tokens, 12845056 pixels, below the
		// file's min_pixels: smart_resize would scale it up.
		{name: "min_pixels above the image", model: qwen25, image: `{"min_pixels": 99999999, "max_pixels": 12845056}`,
			err: "i.json: min_pixels 99999999: is above the largest image's 12845056 pixels under max_pixels 12845056"},
		// A key in a form the processor does not read: named with its
		// file, when the tower reads it.
		{name: "size a number", model: qwen25, image: `{"size": 224}`,
			err: "i.json: size: want an object"},
		{name: "the video's longest_edge a string", model: qwen36, image: image, video: `{"size": {"longest_edge": "25165824", "shortest_edge": 4096}}`,
			err: `v.json: size.longest_edge: want a positive integer, got "25165824"`},
		// The flag's count names the flag, not the file.
		{name: "the flag's max_pixels", model: qwen25, image: `{"max_pixels": 12845056}`, kwargs: `{"max_pixels": 100}`,
			err: "--mm-processor-kwargs max_pixels: 100 is below one merged patch"},
		{name: "a size without longest_edge", model: qwen36, image: `{"size": {"shortest_edge": 65536}}`, video: video,
			err: "i.json: size: transformers' Qwen2-VL image processor refuses a size without both"},
		// 512 / 2 = 256 pixels a frame: below one merged patch of 32 x 32.
		{name: "a video below a merged patch", model: qwen36, image: image, video: `{"size": {"longest_edge": 512, "shortest_edge": 256}}`,
			err: "v.json: size.longest_edge 256: over temporal_patch_size 2 is below one merged patch"},
		// A Qwen2.5-VL-style file as the video processor's (transformers'
		// fallback to preprocessor_config.json): not sized, by name.
		{name: "the video's max_pixels", model: qwen36, image: image, video: `{"max_pixels": 25165824}`,
			why: "the largest video's tokens come from the video processor's size, and v.json states min_pixels or max_pixels instead, which transformers' Qwen3-VL video processor does not take as its size: --limit-mm-per-prompt '{\"video\": 0}' sizes the image alone"},
		{name: "a video of temporal patch 3", model: qwen36, image: image, video: `{"size": {"longest_edge": 25165824, "shortest_edge": 4096}, "temporal_patch_size": 3}`,
			why: "the largest video is not sized for a temporal_patch_size of 2 (vision_config) and 3 (v.json): the published towers have 2"},
		{name: "no video file", model: qwen36, image: image,
			why: qwen3NoVideoProcessor},
		{name: "no image file", model: qwen36, video: video,
			why: qwenNoProcessor},
	} {
		s := serve
		s.MM.ProcessorKwargs = tc.kwargs
		sz, err := Size(shippedWithProcessors(t, tc.model, tc.image, tc.video), c, s, mustProfile("0.24.0"))
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case sz.Serve.Encoder.Sized || sz.Serve.Encoder.Why != tc.why:
			t.Errorf("%s: encoder profile sized %v, why %q; want not sized, %q", tc.name, sz.Serve.Encoder.Sized, sz.Serve.Encoder.Why, tc.why)
		}
	}
}

// TestProcessorKwargsOverTheFile: whatever the checkpoint's image
// processor says, --mm-processor-kwargs' max_pixels sizes the image:
// max_pixels / 32^2 merged patches, as qwenImageTokens finds them, the
// file's size.longest_edge never read.
func TestProcessorKwargsOverTheFile(t *testing.T) {
	t.Parallel()
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		file := rapid.Uint64Range(1024, 1<<26).Draw(rt, "file longest_edge")
		flag := rapid.Uint64Range(1024, 1<<26).Draw(rt, "--mm-processor-kwargs max_pixels")
		image := fmt.Sprintf(`{"size": {"longest_edge": %d, "shortest_edge": 1024}}`, file)
		s := Serve{MaxModelLen: 32768, MaxNumBatchedTokens: 8192,
			MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: fmt.Sprintf(`{"max_pixels": %d}`, flag)}}
		sz, err := Size(shippedWithProcessors(t, "nvidia__Qwen3.6-35B-A3B-NVFP4", image, ""), c, s, mustProfile("0.24.0"))
		if err != nil {
			rt.Fatal(err)
		}
		e := sz.Serve.Encoder
		if want := qwenImageTokens(flag / 1024); !e.Sized || e.TokensPerItem != want || e.Basis != "" {
			rt.Fatalf("file %d, flag %d: sized %v, %d tokens, basis %q; want %d tokens, no basis", file, flag, e.Sized, e.TokensPerItem, e.Basis, want)
		}
	})
}

// TestGLM4VFromItsProcessorFile: GLM-4.5V's image from its image
// processor's size.longest_edge where --mm-processor-kwargs gives no
// max_pixels, as vLLM's _get_image_max_pixels reads it
// (glm4_1v.py:1104-1126): with GLM's published 9633792 (GLM-OCR's file),
// the image of TestEncoderCacheTowersByHand's glm-4.5v case, 78 x 78 =
// 6084 tokens, one item of 8192 batched tokens, 6084 x 4096 x 2 =
// 49840128 B, the basis naming the file; the flag over the file; a file
// without longest_edge, or with the top-level counts, not sized.
func TestGLM4VFromItsProcessorFile(t *testing.T) {
	t.Parallel()
	c, err := membudget.Kernels().Load("h200")
	if err != nil {
		t.Fatal(err)
	}
	const glm = `{"size": {"shortest_edge": 12544, "longest_edge": 9633792}, "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2}`
	for _, tc := range []struct {
		name, image, kwargs string
		want                EncoderProfile
	}{
		{name: "from the file", image: glm,
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 6084, Budget: 8192, Items: 1, CacheBytes: 49840128, EveryStage: true,
				Basis: "the largest image's tokens rest on the image processor's size.longest_edge 9633792 (i.json), as vLLM reads it without --mm-processor-kwargs' max_pixels; the processor keeps that image"}},
		// The flag's 9633792 over a file's 1003520: the same item, with
		// the flag's basis.
		{name: "the flag over the file", image: `{"size": {"shortest_edge": 12544, "longest_edge": 1003520}}`, kwargs: `{"max_pixels": 9633792}`,
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 6084, Budget: 8192, Items: 1, CacheBytes: 49840128, EveryStage: true, Basis: glm4vBasis}},
		{name: "no longest_edge", image: `{"size": {"shortest_edge": 12544}}`,
			want: EncoderProfile{Runs: true, EveryStage: true, Why: "i.json has no size.longest_edge, the max_pixels vLLM's GLM-4.xV profile reads: --mm-processor-kwargs '{\"max_pixels\": N}' sizes the image"}},
		{name: "the top-level counts", image: `{"size": {"shortest_edge": 12544, "longest_edge": 9633792}, "max_pixels": 1003520}`,
			want: EncoderProfile{Runs: true, EveryStage: true, Why: "i.json states min_pixels or max_pixels beside size, which vLLM's GLM-4.xV profile and transformers' processor may read apart: not sized (--mm-processor-kwargs '{\"max_pixels\": N}' sizes the image)"}},
	} {
		s := Serve{MaxNumBatchedTokens: 8192, MaxNumSeqs: 256, MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: tc.kwargs}}
		sz, err := Size(shippedWithProcessors(t, "zai-org__GLM-4.5V", tc.image, ""), c, s, mustProfile("0.24.0"))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, sz.Serve.Encoder); diff != "" {
			t.Errorf("%s: encoder profile (-want +got):\n%s", tc.name, diff)
		}
	}
}
