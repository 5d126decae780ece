package vllm

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget"
	"membudget/budget"
	"membudget/model/hub"
)

// TestEncoderPassByHand: the encoder pass of each serve, by hand from the
// rules of encoderpass.go.
func TestEncoderPassByHand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model, spec string
		s                 Serve
		want              EncoderPass
	}{
		{
			// Row 115's serve: Qwen2.5-VL-7B at 0.23.0, one video of 114688
			// tokens (TestEncoderCacheByHand), 4 patches a token (merge 2):
			// 458752 patches. Pixels: 3 channels x 2 frames x 14 x 14 = 1176
			// values a patch in bf16 (no device normalization before
			// 0.28.0): 2352 B, 1078984704. Block (H 1280, I 3420, TP 1):
			// attention 3H + 8H = 14080; MLP max(2H + 4I, 3H + 3I) =
			// max(2560 + 13680, 3840 + 10260) = 16240, the larger; x 2 B =
			// 32480 B a patch, 14900264960. Rotary cos and sin: head_dim
			// 1280 / 16 = 80 values x 2 B = 160 B a patch, 73400320. Peak:
			// 16052649984 (14.95 GiB).
			name: "qwen2.5-vl-7b, one video (row 115)", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "0.23.0",
			s:    Serve{MaxModelLen: 128000, MaxNumBatchedTokens: 2048, MM: MM{ProcessorKwargs: qwen25VLPixels}},
			want: EncoderPass{Sized: true, Patches: 458752, PixelBytes: 1078984704, BlockBytes: 14900264960, PeakBytes: 16052649984},
		},
		{
			// At TP 2 on main, transformers' max_pixels, 8192 tokens: one
			// video of 7680 tokens, 30720 patches. Pixels and their
			// device-normalized copy, 1176 x 4 B = 4704 B a patch,
			// 144506880. Block: attention 3H + 8 x 640 = 8960; MLP max(2H
			// + 4 x 1710, 3H + 3 x 1710) = max(9400, 8970) = 9400; x 2 B =
			// 18800 B a patch, 577536000. Rotary 30720 x 160 = 4915200.
			// Peak 726958080.
			name: "qwen2.5-vl-7b, TP 2, 8192 tokens", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "main",
			s:    Serve{TensorParallelSize: 2, MaxModelLen: 8192, MM: MM{ProcessorKwargs: `{"max_pixels": 1003520}`}},
			want: EncoderPass{Sized: true, Patches: 30720, PixelBytes: 144506880, BlockBytes: 577536000, PeakBytes: 726958080},
		},
		{
			// 0.19.0, before the in-place fused add-norm: the MLP holds the
			// sum and the normed input beside the stream, 2H more: max(16240
			// + 2560, 14100 + 2560) = 18800 against attention's 14080; x 2
			// B = 37600 B a patch x 30720 = 1155072000. Pixels 30720 x 2352
			// = 72253440; rotary 4915200. Peak 1232240640.
			name: "qwen2.5-vl-7b on 0.19.0, 8192 tokens", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "0.19.0",
			s:    Serve{MaxModelLen: 8192, MaxNumBatchedTokens: 8192, MM: MM{ProcessorKwargs: `{"max_pixels": 1003520}`}},
			want: EncoderPass{Sized: true, Patches: 30720, PixelBytes: 72253440, BlockBytes: 1155072000, PeakBytes: 1232240640},
		},
		{
			// Gemma 3 27B at main: 32 images (TestEncoderCacheByHand) of
			// (896 / 14)^2 = 4096 patches: 131072. Pixels: 3 x 14 x 14 =
			// 588 values in bf16, 1176 B a patch, 154140672. Block (H
			// 1152, I 4304, TP 1): attention 4H + 4H = 9216; MLP max(4H +
			// 2I, 5H + I) = max(4608 + 8608, 5760 + 4304) = 13216; x 2 B =
			// 26432 B a patch, 3464495104. No rotary table. Peak
			// 3618635776 (3.37 GiB).
			name: "gemma-3-27b", model: "google__gemma-3-27b-it", spec: "main",
			want: EncoderPass{Sized: true, Patches: 131072, PixelBytes: 154140672, BlockBytes: 3464495104, PeakBytes: 3618635776},
		},
		{
			// PaliGemma 3B at 448 pixels, main: one image a prompt of
			// (448 / 14)^2 = 1024 tokens, 8192 / 1024 = 8 items, 8192
			// patches. The same SigLIP (H 1152, I 4304): 26432 B a patch,
			// 216530944; pixels 588 x 2 B = 1176 B a patch, 9633792. Peak
			// 226164736.
			name: "paligemma-3b-448", model: "google__paligemma-3b-pt-448", spec: "main",
			want: EncoderPass{Sized: true, Patches: 8192, PixelBytes: 9633792, BlockBytes: 216530944, PeakBytes: 226164736},
		},
		{
			// --mm-encoder-tp-mode data at TP 1 is the default: the same.
			name: "gemma-3-27b, data mode at TP 1", model: "google__gemma-3-27b-it", spec: "main",
			s:    Serve{MM: MM{EncoderTPMode: "data"}},
			want: EncoderPass{Sized: true, Patches: 131072, PixelBytes: 154140672, BlockBytes: 3464495104, PeakBytes: 3618635776},
		},
		{
			name: "gemma-3-27b, --skip-mm-profiling", model: "google__gemma-3-27b-it", spec: "main",
			s: Serve{MM: MM{SkipProfiling: true}},
		},
		{
			// 0.25.0's V2 runner: whether it profiles the encoder is not
			// known, and neither the cache nor the pass is charged.
			name: "gemma-3-27b on 0.25.0's V2 runner", model: "google__gemma-3-27b-it", spec: "0.25.0",
		},
		{
			// Qwen2-VL-7B ships no processor file and the serve gives no
			// max_pixels.
			name: "qwen2-vl-7b, max_pixels not given", model: "Qwen__Qwen2-VL-7B-Instruct", spec: "main",
			want: EncoderPass{Why: "its dummy items are not sized: see the encoder cache"},
		},
		{
			// Row 115's serve without --mm-processor-kwargs: the shipped
			// preprocessor_config.json's max_pixels 12845056 (min_pixels
			// 3136) is the processor's, 12845056 / 28^2 = 16384 tokens an
			// image, one video of 7 x 16384 = 114688: the pass of the case
			// above, 458752 patches, peak 16052649984.
			name: "qwen2.5-vl-7b, one video from its preprocessor_config.json", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "0.23.0",
			s:    Serve{MaxModelLen: 128000, MaxNumBatchedTokens: 2048},
			want: EncoderPass{Sized: true, Patches: 458752, PixelBytes: 1078984704, BlockBytes: 14900264960, PeakBytes: 16052649984},
		},
		{
			// Rows 188 and 202's serve (0.24.0, 131072 tokens, one
			// sequence, 8192 batched): nvidia/Qwen3.6-35B-A3B-NVFP4's
			// preprocessor_config.json has size.longest_edge 16777216:
			// 16777216 / 32^2 = 16384 = 128 x 128 merged patches, one
			// image of 16384 tokens (its video_preprocessor_config.json's
			// 25165824 / 2 = 12582912 gives a 96 x 128 two-frame video of
			// 12288, fewer); budget 16384, one item, 65536 patches. Pixels
			// 3 x 2 x 16 x 16 = 1536 values x 2 B = 3072 B a patch,
			// 201326592. Block (H 1152, I 4304, no deepstack, out 2048 / 4
			// = 512): attention 11H = 12672 against MLP max(2H + 2I, 3H +
			// I) = 10912 and the final cat 2 x 512 = 1024; with the
			// position embeddings (H) 13824 x 2 B = 27648 B a patch,
			// 1811939328. Rotary 1152 / 16 = 72 x 2 B = 144 B a patch,
			// 9437184. Peak 2022703104 (1.88 GiB).
			name: "qwen3.6-35b-a3b-nvfp4 from its processor files (rows 188, 202)", model: "nvidia__Qwen3.6-35B-A3B-NVFP4", spec: "0.24.0",
			s:    Serve{MaxModelLen: 131072, MaxNumSeqs: 1, MaxNumBatchedTokens: 8192, KVCacheDtype: "fp8"},
			want: EncoderPass{Sized: true, Patches: 65536, PixelBytes: 201326592, BlockBytes: 1811939328, PeakBytes: 2022703104},
		},
		{
			// Qwen2-VL-7B at main, transformers' max_pixels, 8192 tokens:
			// the same video of 7680 tokens, 30720 patches. Block (H 1280,
			// I 4 x 1280 = 5120, TP 1): attention 3H + 8H = 14080; MLP
			// max(2H + 3I, 3H + I) = max(17920, 8960) = 17920, the larger;
			// x 2 B = 35840 B a patch, 1101004800. Pixels 30720 x 4704 =
			// 144506880; rotary 30720 x 160 = 4915200. Peak 1250426880.
			name: "qwen2-vl-7b, 8192 tokens", model: "Qwen__Qwen2-VL-7B-Instruct", spec: "main",
			s:    Serve{MaxModelLen: 8192, MM: MM{ProcessorKwargs: `{"max_pixels": 1003520}`}},
			want: EncoderPass{Sized: true, Patches: 30720, PixelBytes: 144506880, BlockBytes: 1101004800, PeakBytes: 1250426880},
		},
		{
			// At TP 2 the gathered qkv: attention 3H + 8 x 640 + 3H =
			// 12800; MLP max(2H + 3 x 2560, 3H + 2560) = 10240; x 2 B =
			// 25600 B a patch, 786432000. Peak 144506880 + 786432000 +
			// 4915200 = 935854080.
			name: "qwen2-vl-7b, TP 2", model: "Qwen__Qwen2-VL-7B-Instruct", spec: "main",
			s:    Serve{TensorParallelSize: 2, MaxModelLen: 8192, MM: MM{ProcessorKwargs: `{"max_pixels": 1003520}`}},
			want: EncoderPass{Sized: true, Patches: 30720, PixelBytes: 144506880, BlockBytes: 786432000, PeakBytes: 935854080},
		},
		{
			// Qwen3-VL-32B at main, images only, max_pixels 1003520: 1003520
			// / 32^2 = 980 = 28 x 35 merged patches an image; 8192 / 980 =
			// 8 items, 8 x 980 x 4 = 31360 patches. Pixels 3 x 2 x 16 x 16
			// = 1536 values x 2 B = 3072 B a patch, 96337920 (no device
			// normalization). Block (H 1152, I 4304, TP 1): attention 11H =
			// 12672, MLP max(2H + 2I, 3H + I) = 10912: 12672, with the 3
			// deepstack features of 5120 / 4 = 1280 each beside it: 16512;
			// the final cat 2 x 4 x 1280 = 10240; with the position
			// embeddings (H) 17664 x 2 B = 35328 B a patch, 1107886080.
			// Rotary 72 x 2 B = 144 B a patch, 4515840. Peak 1208739840.
			name: "qwen3-vl-32b, images", model: "Qwen__Qwen3-VL-32B-Instruct", spec: "main",
			s:    Serve{MaxModelLen: 8192, MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: `{"max_pixels": 1003520}`}},
			want: EncoderPass{Sized: true, Patches: 31360, PixelBytes: 96337920, BlockBytes: 1107886080, PeakBytes: 1208739840},
		},
		{
			// Pixtral's tower (Mistral 3) is not modelled: it says so.
			name: "mistral-small-3.1: its tower is not sized", model: "mistralai__Mistral-Small-3.1-24B-Instruct-2503", spec: "main",
			want: EncoderPass{Why: "the pixtral tower's blocks, attention backend and projector are not modelled"},
		},
	}
	for _, c := range cases {
		sz, err := sizeShippedAt(t, c.model, "h100-sxm-80g", c.spec, c.s)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, sz.Serve.EncoderPass); diff != "" {
			t.Errorf("%s: encoder pass (-want +got):\n%s", c.name, diff)
		}
		_, charged := sz.encoderPassBytes(0)
		if charged != c.want.Sized {
			t.Errorf("%s: encoder pass item %v, want %v", c.name, charged, c.want.Sized)
		}
	}
}

// TestEncoderPassLargerWins: the torch peak is the larger of the encoder
// pass (with the residual) and the decoder's run with the cache: the
// activation and sampler items sum to the larger, whichever it is.
func TestEncoderPassLargerWins(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, model, spec string
		s                 Serve
		passWins          bool
	}{
		// 14.95 GiB of pass against some 3 GiB of decoder.
		{"qwen2.5-vl-7b, one video", "Qwen__Qwen2.5-VL-7B-Instruct", "0.23.0", Serve{MaxModelLen: 128000, MaxNumBatchedTokens: 2048, MM: MM{ProcessorKwargs: qwen25VLPixels}}, true},
		// 0.19.0's Triton sampler over 256 rows of Gemma 3's 262208
		// logits (2.4 GiB) and the forward pass (1.36 GiB) outweigh the
		// 3.37 GiB pass.
		{"gemma-3-27b at 0.19.0", "google__gemma-3-27b-it", "0.19.0", Serve{}, false},
		// The V2 runner's sampler holds the logits alone: the pass wins.
		{"gemma-3-27b at main", "google__gemma-3-27b-it", "main", Serve{}, true},
	} {
		sz, err := sizeShippedAt(t, c.model, "h100-sxm-80g", c.spec, c.s)
		if err != nil {
			t.Fatal(err)
		}
		var decoder, pass uint64
		for _, it := range sz.Ledger(0, 1, 1024) {
			switch {
			case it.Name == "encoder_pass":
				pass = it.Bytes
			case it.Term == budget.TermActivation || it.Term == budget.TermSampler:
				decoder += it.Bytes
			}
		}
		peak := sz.Serve.EncoderPass.PeakBytes + sz.Serve.Profile.peaks.residualBytes
		if got, want := decoder+pass, max(decoder, peak); got != want {
			t.Errorf("%s: torch peak %d B, want max(decoder %d, pass %d) = %d", c.name, got, decoder, peak, want)
		}
		if (pass > 0) != c.passWins {
			t.Errorf("%s: encoder pass adds %d B over the decoder's %d B; want the pass to win: %v", c.name, pass, decoder, c.passWins)
		}
	}
}

// TestEncoderPassRow115: corpus/observed/vllm.csv row 115 (vLLM 0.23.0,
// Qwen2.5-VL-7B, one 114688-token video, util 0.22, 128000 tokens, 2048
// batched) fails with "Available KV cache memory: -14.28 GiB". Its device is
// not named, but its line "--gpu-memory-utilization=0.2200 is equivalent to
// --gpu-memory-utilization=0.2133 without CUDA graph memory profiling" puts
// the 0.53 GiB graph estimate at 0.0067 of it: 79.1 GiB (78.5-79.7 within
// the 0.2133's rounding), an 80 GB part, sized as the H100's 79.18 GiB. The
// profile's activation and non-torch memory are then 0.22 x 79.18 + 14.28
// - 15.67 (weights) - 0.53 (graphs) = 15.50 GiB (15.35-15.61 over the
// device's spread). The log gives no --mm-processor-kwargs: the
// checkpoint's preprocessor_config.json (max_pixels 12845056) sizes the
// video. The model gives 15.25 GiB (the pass 14.95, the residual
// 0.05, non-torch 0.25): 0.25 GiB (1.6%) under, held within 0.3. Without
// the encoder pass it gave 3.2 GiB, 12.3 under.
func TestEncoderPassRow115(t *testing.T) {
	t.Parallel()
	sz, err := sizeShippedAt(t, "Qwen__Qwen2.5-VL-7B-Instruct", "h100-sxm-80g", "0.23.0",
		Serve{MaxModelLen: 128000, MaxNumBatchedTokens: 2048, GPUMemoryUtilization: 0.22})
	if err != nil {
		t.Fatal(err)
	}
	ref, err := NewReference(sz.Model.Arch, sz.Serve.Serve, sz.Class, sz.Serve.Profile)
	if err != nil {
		t.Fatal(err)
	}
	p := ref.Predict()
	const gib = 1 << 30
	implied := float64(p.RequestedBytes)/gib + 14.28 - 15.67 - 0.53
	got := float64(budget.SatAdd(p.ActivationPeakBytes, p.NonTorchBytes)) / gib
	t.Logf("activation + non-torch %.3f GiB, the log implies %.3f GiB", got, implied)
	if math.Abs(got-implied) > 0.3 {
		t.Errorf("activation + non-torch %.2f GiB, the log implies %.2f GiB", got, implied)
	}
}

// TestEncoderPassUnderRow131: row 131 (vLLM 0.19.0, Gemma 3 12B, H100,
// 8192 batched tokens) logs a torch peak increase of 3.94 GiB for the whole
// profile. Gemma 3 12B's SigLIP tower is the 27B's (1152 wide, 4304 MLP,
// 27 layers, 896-pixel images of 14-pixel patches) and so are its 32 dummy
// images at 8192 tokens, so the pass sized on the 27B, 3.42 GiB with the
// 0.05 GiB residual, must stay under what the row logs.
func TestEncoderPassUnderRow131(t *testing.T) {
	t.Parallel()
	sz, err := sizeShippedAt(t, "google__gemma-3-27b-it", "h100-sxm-80g", "0.19.0", Serve{MaxModelLen: 8192})
	if err != nil {
		t.Fatal(err)
	}
	const gib = 1 << 30
	pass := float64(sz.Serve.EncoderPass.PeakBytes+sz.Serve.Profile.peaks.residualBytes) / gib
	if !sz.Serve.EncoderPass.Sized || pass > 3.94+0.005 {
		t.Errorf("encoder pass %.2f GiB (sized %v): above the 3.94 GiB row 131 logs for the whole peak", pass, sz.Serve.EncoderPass.Sized)
	}
}

// TestEncoderPassStages: the V1 runner runs the pass on every pipeline
// stage, the V2 runner on the first alone, as the cache
// (TestEncoderCacheStages).
func TestEncoderPassStages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec string
		want [2]bool
	}{
		{"0.19.0", [2]bool{true, true}},
		{"main", [2]bool{true, false}},
	} {
		sz, err := sizeShippedAt(t, "google__gemma-3-4b-it", "h100-sxm-80g", c.spec, Serve{PipelineParallelSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		var got [2]bool
		for i := range 2 {
			for _, it := range sz.Ledger(i, 1, 1024) {
				got[i] = got[i] || it.Name == "encoder_pass"
			}
			if _, ok := sz.encoderPassBytes(i); ok != got[i] {
				t.Errorf("%s stage %d: encoderPassBytes says %v, the ledger %v", c.spec, i, ok, got[i])
			}
		}
		if got != c.want {
			t.Errorf("%s: encoder pass by stage %v, want %v", c.spec, got, c.want)
		}
	}
}

// TestEncoderPassLines: the report names the pass under the activation
// peak, after the encoder cache, and the three lines sum to the term.
func TestEncoderPassLines(t *testing.T) {
	t.Parallel()
	sz, err := sizeShippedAt(t, "google__gemma-3-27b-it", "h100-sxm-80g", "main", Serve{})
	if err != nil {
		t.Fatal(err)
	}
	fp := sz.plan.Evaluate(1, 1024)
	lines := section{sz: sz}.Lines(fp)
	var labels []string
	var sum uint64
	for _, l := range lines {
		switch l.Label {
		case termLabels[budget.TermActivation], "encoder cache", "encoder pass":
			labels = append(labels, l.Label)
			sum += l.Bytes
		}
	}
	if diff := cmp.Diff([]string{"activation peak", "encoder cache", "encoder pass"}, labels); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if sum != fp.Terms[budget.TermActivation] {
		t.Errorf("activation lines sum to %d B, the term is %d B", sum, fp.Terms[budget.TermActivation])
	}
	// The peak is TestEncoderPassByHand's gemma-3-27b case: 131072
	// patches x (1176 B of pixels + 26432 B of SigLIP block) = 3618635776.
	j := sz.mmJSON()
	if !j.PassSized || j.PassPeakBytes != 3618635776 || j.PassBytes == 0 {
		t.Errorf("JSON: sized %v, peak %d B, adds %d B; want true, 3618635776, above 0", j.PassSized, j.PassPeakBytes, j.PassBytes)
	}
}

// TestLargerMMLimitNeverShrinksFootprint: raising a modality's limit, with
// the same modalities above 0, never shrinks the ledger nor grows the KV
// cache: the dummy batch holds no fewer items, and the pass, the cache and
// the larger of the pass and the decoder's run grow with it.
func TestLargerMMLimitNeverShrinksFootprint(t *testing.T) {
	t.Parallel()
	r := hub.Resolver{Offline: true, CacheDir: t.TempDir(), Shipped: membudget.ModelConfig, ShippedIDs: membudget.ModelNames(),
		ShippedQuantConfig: membudget.ModelQuantConfig}
	names := []string{"google/gemma-3-4b-it", "google/gemma-3-27b-it", "Qwen/Qwen2.5-VL-7B-Instruct", "Qwen/Qwen2-VL-7B-Instruct", "Qwen/Qwen3-VL-32B-Instruct"}
	models := map[string]*hub.Loaded{}
	for _, n := range names {
		m, err := r.Load(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		models[n] = m
	}
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	rapid.Check(t, func(rt *rapid.T) {
		name := rapid.SampledFrom(names).Draw(rt, "model")
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2}).Draw(rt, "tp"),
			MaxModelLen:         rapid.Uint64Range(1024, 32768).Draw(rt, "max_model_len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 64).Draw(rt, "max_num_seqs"),
			MaxNumBatchedTokens: rapid.Uint64Range(2048, 65536).Draw(rt, "max_num_batched_tokens"),
		}
		if name != "google/gemma-3-4b-it" && name != "google/gemma-3-27b-it" {
			s.MM.ProcessorKwargs = rapid.SampledFrom([]string{qwen25VLPixels, `{"max_pixels": 1003520}`}).Draw(rt, "kwargs")
		}
		images := rapid.Uint64Range(1, 16).Draw(rt, "images")
		videos := rapid.Uint64Range(0, 2).Draw(rt, "videos")
		more := s
		s.MM.LimitPerPrompt = fmt.Sprintf(`{"image": %d, "video": %d}`, images, videos)
		moreVideos := videos
		if videos > 0 {
			moreVideos += rapid.Uint64Range(0, 2).Draw(rt, "more videos")
		}
		more.MM.LimitPerPrompt = fmt.Sprintf(`{"image": %d, "video": %d}`, images+rapid.Uint64Range(0, 16).Draw(rt, "more images"), moreVideos)
		p := mustProfile(rapid.SampledFrom([]string{"main", "0.29.0", "0.23.0", "0.19.0", "0.14.0"}).Draw(rt, "version"))
		less, err1 := Size(models[name], c, s, p)
		larger, err2 := Size(models[name], c, more, p)
		if err1 != nil || err2 != nil {
			rt.Fatalf("sizing: %v / %v", err1, err2)
		}
		seqs, tokens := rapid.Uint64Range(1, 8).Draw(rt, "seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(rt, "tokens")
		sum := func(sz *Sizing) (n uint64) {
			for _, it := range sz.Ledger(0, seqs, tokens) {
				n += it.Bytes
			}
			return n
		}
		if a, b := sum(larger), sum(less); a < b {
			rt.Fatalf("ledger %d B with %s, %d B with %s", a, more.MM.LimitPerPrompt, b, s.MM.LimitPerPrompt)
		}
		if a, b := larger.Capacity().Blocks, less.Capacity().Blocks; a > b {
			rt.Fatalf("%d KV blocks with %s, %d with %s", a, more.MM.LimitPerPrompt, b, s.MM.LimitPerPrompt)
		}
	})
}

// TestEncoderPassNote: explain's activation line says what of the predicted
// peak is the encoder pass, and says nothing where it is not sized.
func TestEncoderPassNote(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		model, spec string
		s           Serve
		want        string
	}{
		// 14.95 GiB of pass (TestEncoderPassByHand), 12.07 over the
		// decoder's run with the cache (the ledger's item).
		{"Qwen__Qwen2.5-VL-7B-Instruct", "0.23.0", Serve{MaxModelLen: 128000, MaxNumBatchedTokens: 2048, MM: MM{ProcessorKwargs: qwen25VLPixels}},
			"the profile's encoder pass (458752 patches, 14.95 GiB at its peak) is the larger and adds 12.07 GiB over the decoder's run with the encoder cache"},
		{"google__gemma-3-27b-it", "0.19.0", Serve{},
			"the profile's encoder pass (131072 patches, 3.37 GiB at its peak) stays under the decoder's run with the encoder cache"},
		{"google__gemma-3-27b-it", "main", Serve{MM: MM{SkipProfiling: true}}, ""},
	} {
		sz, err := sizeShippedAt(t, c.model, "h100-sxm-80g", c.spec, c.s)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := NewReference(sz.Model.Arch, sz.Serve.Serve, sz.Class, sz.Serve.Profile)
		if err != nil {
			t.Fatal(err)
		}
		preds := vllmPredictions(ref.Predict(), ref.Serve)
		noteEncoderPass(preds, ref)
		if got := preds["activation_peak"].Note; got != c.want {
			t.Errorf("%s %s: note %q, want %q", c.model, c.spec, got, c.want)
		}
	}
}
