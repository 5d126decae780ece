package vllm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget"
	"membudget/engine"
	"membudget/model/hub"
)

// sizeShippedAt sizes a shipped model on a shipped class under the
// profile spec (a release, or "main").
func sizeShippedAt(t *testing.T, name, class, spec string, s Serve) (*Sizing, error) {
	t.Helper()
	// As the CLI loads it: with its shipped hf_quant_config.json and
	// processor files.
	r := hub.Resolver{Offline: true, CacheDir: t.TempDir(), Shipped: membudget.ModelConfig, ShippedIDs: membudget.ModelNames(),
		ShippedQuantConfig: membudget.ModelQuantConfig, ShippedProcessor: membudget.ModelProcessor}
	m, err := r.Load(context.Background(), strings.Replace(name, "__", "/", 1))
	if err != nil {
		t.Fatal(err)
	}
	c := kernelClass(t, class)
	return Size(m, c, s, mustProfile(spec))
}

// qwen25VLPixels is Qwen2.5-VL-7B-Instruct's max_pixels
// (preprocessor_config.json on the Hub: 12845056 = 16384 x 28 x 28).
const qwen25VLPixels = `{"max_pixels": 12845056}`

// TestEncoderCacheByHand: the encoder profile of each serve, by hand from
// vLLM's rules (encoder_budget.py _get_max_items, compute_mm_encoder_budget:
// budget = max(max_num_batched_tokens, T); items = max(1, min(budget / T,
// max_num_seqs x max(1, min(limit, max_model_len / T)))); cache = items x
// T x width x 2 B in bfloat16).
func TestEncoderCacheByHand(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model, spec string
		s                 Serve
		want              EncoderProfile
		host              uint64
	}{
		{
			// Gemma 3 27B on an H100 at main: 8192 batched tokens, 256
			// tokens an image: 32 images; 32 x 256 x 5376 x 2 = 88080384.
			name: "gemma-3-27b", model: "google__gemma-3-27b-it", spec: "main",
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 256, Budget: 8192, Items: 32, CacheBytes: 88080384},
			host: 4 << 30,
		},
		{
			// Two images a prompt at 4096 tokens, 8 sequences: the decoder
			// takes 8 x min(2, 4096 / 256) = 16 < 8192 / 256 = 32 items;
			// 16 x 256 x 5376 x 2 = 44040192.
			name: "gemma-3-27b, two images a prompt, 8 sequences", model: "google__gemma-3-27b-it", spec: "main",
			s:    Serve{MaxModelLen: 4096, MaxNumSeqs: 8, MM: MM{LimitPerPrompt: `{"image": 2}`}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 256, Budget: 8192, Items: 16, CacheBytes: 44040192},
			host: 4 << 30,
		},
		{
			// Gemma 3 4B: width 2560; 32 x 256 x 2560 x 2 = 41943040.
			name: "gemma-3-4b", model: "google__gemma-3-4b-it", spec: "main",
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 256, Budget: 8192, Items: 32, CacheBytes: 41943040},
			host: 4 << 30,
		},
		{
			// Qwen2.5-VL-7B at 0.23.0 (V1 runner) at its 128000 tokens:
			// 12845056 / 28^2 = 16384 = 128 x 128 merged patches an image;
			// a video of 128000 / 16384 = 7 groups of 2 frames, 14, the
			// most: 7 x 16384 = 114688 tokens, the budget, one item. The
			// public 0.23.0 log of this serve says "Encoder cache will be
			// initialized with a budget of 114688 tokens, and profiled
			// with 1 video items of the maximum feature size". Width 3584:
			// 114688 x 3584 x 2 = 822083584, on every stage (V1).
			name: "qwen2.5-vl-7b, one video", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "0.23.0",
			s:    Serve{MM: MM{ProcessorKwargs: qwen25VLPixels}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "video", TokensPerItem: 114688, Budget: 114688, Items: 1, CacheBytes: 822083584, EveryStage: true},
			host: 4 << 30,
		},
		{
			// Without video the image's 16384 tokens are the item and the
			// budget (above 8192 batched tokens): one image, 16384 x 3584
			// x 2 = 117440512.
			name: "qwen2.5-vl-7b, images only", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "main",
			s:    Serve{MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: qwen25VLPixels}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 16384, Budget: 16384, Items: 1, CacheBytes: 117440512},
			host: 4 << 30,
		},
		{
			// transformers' default max_pixels, 1280 x 28^2: 1280 = 32 x 40
			// tokens an image, a video of 8192 / 1280 = 6 groups, 12
			// frames: 7680 tokens; the budget is the 8192 batched tokens,
			// one item (8192 / 7680); 7680 x 3584 x 2 = 55050240.
			name: "qwen2.5-vl-7b, 8192 tokens, transformers' max_pixels", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "main",
			s:    Serve{MaxModelLen: 8192, MM: MM{ProcessorKwargs: `{"max_pixels": 1003520}`}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "video", TokensPerItem: 7680, Budget: 8192, Items: 1, CacheBytes: 55050240},
			host: 4 << 30,
		},
		{
			// Without --mm-processor-kwargs the shipped
			// preprocessor_config.json's max_pixels, 12845056, is the
			// processor's: the same video as with it, at the model's 128000
			// tokens, 114688 tokens, one item, 822083584 B; on the V2
			// runner of main, the first stage alone.
			name: "qwen2.5-vl-7b, max_pixels from its preprocessor_config.json", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "main",
			want: EncoderProfile{Runs: true, Sized: true, Modality: "video", TokensPerItem: 114688, Budget: 114688, Items: 1, CacheBytes: 822083584,
				Basis: "the largest video's tokens rest on the image processor's max_pixels 12845056 (corpus/models/processor/Qwen__Qwen2.5-VL-7B-Instruct/preprocessor_config.json), as vLLM reads it without --mm-processor-kwargs' max_pixels"},
			host: 4 << 30,
		},
		{
			// nvidia/Qwen3.6-35B-A3B-NVFP4 at 0.24.0 with rows 188 and
			// 202's settings, from its processor files: the image
			// processor's size.longest_edge 16777216 / 32^2 = 16384 = 128
			// x 128 tokens; the video processor's 25165824 / 2 = 12582912,
			// / 32^2 = 12288 = 96 x 128 (the closest factor pair), two
			// frames of 3072 x 4096 = 25165824 pixels, within its
			// longest_edge: one temporal group of 192 x 256 patches, 12288
			// tokens. The image is the larger: budget max(8192, 16384) =
			// 16384, one item, 16384 x 2048 x 2 = 67108864 (no deepstack).
			name: "qwen3.6-35b-a3b-nvfp4, from its processor files", model: "nvidia__Qwen3.6-35B-A3B-NVFP4", spec: "0.24.0",
			s: Serve{MaxModelLen: 131072, MaxNumSeqs: 1, MaxNumBatchedTokens: 8192, KVCacheDtype: "fp8"},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 16384, Budget: 16384, Items: 1, CacheBytes: 67108864, EveryStage: true,
				Basis: "the largest image's tokens rest on the image processor's size.longest_edge 16777216 (corpus/models/processor/nvidia__Qwen3.6-35B-A3B-NVFP4/preprocessor_config.json), as vLLM reads it without --mm-processor-kwargs' max_pixels"},
			host: 4 << 30,
		},
		{
			// Video alone: the 12288-token video above is the item; budget
			// max(8192, 12288) = 12288, one item, 12288 x 2048 x 2 =
			// 50331648.
			name: "qwen3.6-35b-a3b-nvfp4, video alone", model: "nvidia__Qwen3.6-35B-A3B-NVFP4", spec: "0.24.0",
			s: Serve{MaxModelLen: 131072, MaxNumSeqs: 1, MaxNumBatchedTokens: 8192, KVCacheDtype: "fp8", MM: MM{LimitPerPrompt: `{"image": 0}`}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "video", TokensPerItem: 12288, Budget: 12288, Items: 1, CacheBytes: 50331648, EveryStage: true,
				Basis: "the largest video's tokens rest on the video processor's size.longest_edge 25165824 (corpus/models/processor/nvidia__Qwen3.6-35B-A3B-NVFP4/video_preprocessor_config.json), as vLLM reads it"},
			host: 4 << 30,
		},
		{
			// --mm-processor-kwargs over the files: max_pixels 1003520 /
			// 32^2 = 980 = 28 x 35 tokens an image. The video keeps the
			// video processor's 3072 x 4096 target, but its two frames'
			// 25165824 pixels are above max_pixels 1003520, so smart_resize
			// scales by beta = sqrt(25165824 / 1003520) = 5.0078:
			// floor(3072 / 5.0078 / 32) = 19, floor(4096 / 5.0078 / 32) =
			// 25, 608 x 800, 38 x 50 / 4 = 475 tokens. The image, 980, is
			// the item: budget 8192, min(8192 / 980, 1 x min(999, 131072 /
			// 980)) = 8 items, 8 x 980 x 2048 x 2 = 32112640; the serve
			// gives max_pixels, so no basis.
			name: "qwen3.6-35b-a3b-nvfp4, --mm-processor-kwargs over the files", model: "nvidia__Qwen3.6-35B-A3B-NVFP4", spec: "0.24.0",
			s:    Serve{MaxModelLen: 131072, MaxNumSeqs: 1, MaxNumBatchedTokens: 8192, KVCacheDtype: "fp8", MM: MM{ProcessorKwargs: `{"max_pixels": 1003520}`}},
			want: EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 980, Budget: 8192, Items: 8, CacheBytes: 32112640, EveryStage: true},
			host: 4 << 30,
		},
		{
			// Before 0.16.0 Qwen3-VL's video is not the two-frame one.
			name: "qwen3.6-35b-a3b-nvfp4 on 0.15.1, video taken", model: "nvidia__Qwen3.6-35B-A3B-NVFP4", spec: "0.15.1",
			s:    Serve{MaxModelLen: 131072, MaxNumSeqs: 1, MaxNumBatchedTokens: 8192, KVCacheDtype: "fp8"},
			want: EncoderProfile{Runs: true, EveryStage: true, Why: qwen3VideoBefore},
			host: 4 << 30,
		},
		{
			// Qwen2-VL-7B ships no processor file: neither it nor the serve
			// gives max_pixels.
			name: "qwen2-vl-7b, max_pixels not given", model: "Qwen__Qwen2-VL-7B-Instruct", spec: "main",
			want: EncoderProfile{Runs: true, Why: qwenNoProcessor},
			host: 4 << 30,
		},
		{
			name: "qwen2.5-vl-7b, text only", model: "Qwen__Qwen2.5-VL-7B-Instruct", spec: "main",
			s:    Serve{MM: MM{LimitPerPrompt: `{"image": 0, "video": 0}`}},
			want: EncoderProfile{TextOnly: true, Why: "every modality's limit is 0: vLLM serves the model as text only"},
		},
		{
			// --mm-processor-cache-gb 0 turns the processor cache off
			// (registry.py:283-286).
			name: "gemma-3-27b, no profiling, no processor cache", model: "google__gemma-3-27b-it", spec: "main",
			s:    Serve{MM: MM{SkipProfiling: true, ProcessorCacheSet: true}},
			want: EncoderProfile{Why: "--skip-mm-profiling: the profile run leaves the encoder and its cache out (the encoder's memory at serving time is not charged, as vLLM does not)"},
		},
		{
			name: "gemma-3-27b on 0.25.0's V2 runner", model: "google__gemma-3-27b-it", spec: "0.25.0",
			want: EncoderProfile{Why: "vLLM 0.25.0 runs the model on its V2 runner, whose encoder profiling came with PR #47985 (2026-07-21): whether this release has it is not known, so its cache is not charged"},
			host: 4 << 30,
		},
	}
	for _, c := range cases {
		sz, err := sizeShippedAt(t, c.model, "h100-sxm-80g", c.spec, c.s)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, sz.Serve.Encoder); diff != "" {
			t.Errorf("%s: encoder profile (-want +got):\n%s", c.name, diff)
		}
		if got := sz.Serve.MMHostBytes; got != c.host {
			t.Errorf("%s: processor cache %d B, want %d", c.name, got, c.host)
		}
		// The cache is charged in the first stage's activation peak.
		var charged uint64
		for _, it := range sz.Ledger(0, 1, 1024) {
			if it.Name == "encoder_cache" {
				charged = it.Bytes
			}
		}
		if charged != c.want.CacheBytes {
			t.Errorf("%s: the ledger charges %d B of encoder cache, want %d", c.name, charged, c.want.CacheBytes)
		}
	}
}

// TestEncoderItemsMatchGemma3Log: a public log of vLLM 0.11 (ROCm,
// gemma-3-27b-it, --max-model-len 4096, --limit-mm-per-prompt
// '{"image": 2}', 8192 batched tokens, 256 sequences) says "Encoder cache
// will be initialized with a budget of 8192 tokens, and profiled with 31
// image items": before PR #30475 an image counted its 262 placeholder
// tokens (256 and the begin, end and newline tokens), and 8192 / 262 = 31
// < 256 x min(2, 4096 / 262) = 512. The rule of the items is the same
// from then to main; only the count of an item changed.
func TestEncoderItemsMatchGemma3Log(t *testing.T) {
	t.Parallel()
	sz, err := sizeShippedAt(t, "google__gemma-3-27b-it", "h100-sxm-80g", "main", Serve{})
	if err != nil {
		t.Fatal(err)
	}
	r := sz.Serve
	r.MaxNumBatchedTokens, r.MaxNumSeqs, r.MaxModelLen = 8192, 256, 4096
	var e EncoderProfile
	r.sizeEncoderCache(sz.Model.Arch, []mmItem{{"image", 262}}, func(string) uint64 { return 2 }, &e)
	if e.Budget != 8192 || e.Items != 31 {
		t.Errorf("budget %d, items %d; the log says 8192 and 31", e.Budget, e.Items)
	}
}

// TestQwenImageTokens: the largest image's merged patches, by hand from
// get_image_size_with_most_features (a factor pair within the ratio 200).
func TestQwenImageTokens(t *testing.T) {
	t.Parallel()
	cases := []struct{ most, want uint64 }{
		{16384, 16384}, // 128 x 128
		{1280, 1280},   // 32 x 40
		{211, 210},     // 211 is prime and 211 > 200: 210 = 14 x 15
		{200, 200},     // 10 x 20
		{1, 1},
	}
	for _, c := range cases {
		if got := qwenImageTokens(c.most); got != c.want {
			t.Errorf("qwenImageTokens(%d) = %d, want %d", c.most, got, c.want)
		}
	}
}

// TestQwenFactorPair: closest_factor_pair (qwen2_vl.py:998-1003), which
// qwenImageTokens and Qwen3-VL's video both use: the largest divisor at
// most isqrt(n), and n over it. By hand: 16384 = 128 x 128; 1280's
// isqrt is 35 and its largest divisor at most 35 is 32 (1280 / 32 = 40);
// 211 is prime (1 x 211); 210's isqrt is 14, a divisor (14 x 15); 1 is
// 1 x 1; 0 has no pair, and the function answers 1 x 0 without a panic.
func TestQwenFactorPair(t *testing.T) {
	t.Parallel()
	cases := []struct{ n, h, w uint64 }{
		{16384, 128, 128}, {1280, 32, 40}, {211, 1, 211}, {210, 14, 15}, {1, 1, 1}, {0, 1, 0},
	}
	for _, c := range cases {
		if h, w := qwenFactorPair(c.n); h != c.h || w != c.w {
			t.Errorf("qwenFactorPair(%d) = %d x %d, want %d x %d", c.n, h, w, c.h, c.w)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Uint64Range(1, 1<<40).Draw(t, "n")
		h, w := qwenFactorPair(n)
		if h*w != n || h > w {
			t.Fatalf("qwenFactorPair(%d) = %d x %d: not a pair of n, smaller first", n, h, w)
		}
		// No divisor between h and w's side of the square root.
		for d := h + 1; d*d <= n && d <= h+1000; d++ {
			if n%d == 0 {
				t.Fatalf("qwenFactorPair(%d) = %d x %d, but %d divides n and is closer", n, h, w, d)
			}
		}
	})
}

// TestMMFlagsRefused: what vLLM refuses and what membudget does not size
// is refused naming the flag (or the key).
func TestMMFlagsRefused(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, model, spec string
		s                 Serve
		flag, reason      string
	}{
		{"the key=value form of old releases", "google__gemma-3-27b-it", "main", Serve{MM: MM{LimitPerPrompt: "image=5,video=1"}},
			"limit-mm-per-prompt", "refuses it: not a JSON object"},
		{"a dummy-data option", "google__gemma-3-27b-it", "main", Serve{MM: MM{LimitPerPrompt: `{"image": {"count": 1, "width": 512}}`}},
			"limit-mm-per-prompt", "not modelled (the option shrinks the dummy image items"},
		{"a negative count", "google__gemma-3-27b-it", "main", Serve{MM: MM{LimitPerPrompt: `{"image": -1}`}},
			"limit-mm-per-prompt", "want a count, 0 or more"},
		{"a processor key Gemma 3's rule does not read", "google__gemma-3-27b-it", "main", Serve{MM: MM{ProcessorKwargs: `{"do_pan_and_scan": true}`}},
			"mm-processor-kwargs", "not modelled for the siglip tower"},
		{"max_pixels below a merged patch", "Qwen__Qwen2.5-VL-7B-Instruct", "main", Serve{MM: MM{ProcessorKwargs: `{"max_pixels": 100}`}},
			"mm-processor-kwargs", "below one merged patch"},
		{"an unknown TP mode", "Qwen__Qwen2.5-VL-7B-Instruct", "main", Serve{MM: MM{EncoderTPMode: "rows"}},
			"mm-encoder-tp-mode", "vLLM takes weights or data"},
		{"a release before the rules", "google__gemma-3-27b-it", "0.10.2", Serve{MM: MM{SkipProfiling: true}},
			"skip-mm-profiling", "not modelled for vLLM 0.10.2"},
		{"data mode before the rules", "google__gemma-3-27b-it", "0.10.2", Serve{MM: MM{EncoderTPMode: "data"}},
			"mm-encoder-tp-mode", "not modelled for vLLM 0.10.2"},
	}
	for _, c := range cases {
		_, err := sizeShippedAt(t, c.model, "h100-sxm-80g", c.spec, c.s)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != c.flag || !strings.Contains(se.Reason, c.reason) {
			t.Errorf("%s: %v; want a refusal of --%s saying %q", c.name, err, c.flag, c.reason)
		}
	}
}

// TestWeightsModeIsNeutral: --mm-encoder-tp-mode weights, vLLM's default,
// is accepted in a release whose other multimodal flags are refused.
func TestWeightsModeIsNeutral(t *testing.T) {
	t.Parallel()
	if _, err := sizeShippedAt(t, "google__gemma-3-27b-it", "h100-sxm-80g", "0.10.2", Serve{MM: MM{EncoderTPMode: "weights"}}); err != nil {
		t.Errorf("weights mode on 0.10.2: %v", err)
	}
}

// TestMMLimitsParse: the counts read from --limit-mm-per-prompt, in its
// legacy and configurable forms (multimodal.py:104-119).
func TestMMLimitsParse(t *testing.T) {
	t.Parallel()
	got, err := mmLimits(`{"image": 16, "video": {"count": 1}, "audio": {}}`, current)
	if err != nil {
		t.Fatal(err)
	}
	// An object without "count" takes the default 999 (BaseDummyOptions).
	want := map[string]uint64{"image": 16, "video": 1, "audio": 999}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
}

// TestDataModeAtTP1IsTheDefault: --mm-encoder-tp-mode data at TP 1 holds
// the same weights as weights mode: the same footprint.
func TestDataModeAtTP1IsTheDefault(t *testing.T) {
	t.Parallel()
	a, err := sizeShippedAt(t, "google__gemma-3-27b-it", "h100-sxm-80g", "main", Serve{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sizeShippedAt(t, "google__gemma-3-27b-it", "h100-sxm-80g", "main", Serve{MM: MM{EncoderTPMode: "data"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Capacity().Blocks != b.Capacity().Blocks {
		t.Errorf("blocks %d with weights mode, %d with data mode at TP 1", a.Capacity().Blocks, b.Capacity().Blocks)
	}
}

// TestProcessorCacheOnUnifiedDevices: the processor cache is host memory,
// which a unified device's GPU shares: it is counted there, and not on a
// discrete GPU.
func TestProcessorCacheOnUnifiedDevices(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		class string
		want  uint64
	}{{"gb10", 2 << 30}, {"h100-sxm-80g", 0}} {
		sz, err := sizeShippedAt(t, "google__gemma-3-4b-it", c.class, "main", Serve{MM: MM{ProcessorCacheGB: 2, ProcessorCacheSet: true}})
		if err != nil {
			t.Fatal(err)
		}
		if got := sz.plan.Host; got != c.want {
			t.Errorf("%s: host memory charged %d B, want %d", c.class, got, c.want)
		}
	}
}

// TestImageLimitNeverShrinksFootprint: a serve that takes items (a limit
// above 0) holds at least what the same serve as text only holds
// ({"image": 0, "video": 0}): its ledger at any point is no smaller and
// its KV cache no larger, whatever the limits, lengths and batch.
func TestImageLimitNeverShrinksFootprint(t *testing.T) {
	t.Parallel()
	r := hub.Resolver{Offline: true, CacheDir: t.TempDir(), Shipped: membudget.ModelConfig, ShippedIDs: membudget.ModelNames(),
		ShippedQuantConfig: membudget.ModelQuantConfig}
	names := []string{"google/gemma-3-4b-it", "google/gemma-3-27b-it", "Qwen/Qwen2.5-VL-7B-Instruct"}
	models := map[string]*hub.Loaded{}
	for _, n := range names {
		m, err := r.Load(context.Background(), n)
		if err != nil {
			t.Fatal(err)
		}
		models[n] = m
	}
	c := kernelClass(t, "h100-sxm-80g")
	rapid.Check(t, func(rt *rapid.T) {
		name := rapid.SampledFrom(names).Draw(rt, "model")
		s := Serve{
			MaxModelLen:         rapid.Uint64Range(1024, 32768).Draw(rt, "max_model_len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 512).Draw(rt, "max_num_seqs"),
			MaxNumBatchedTokens: rapid.Uint64Range(32768, 65536).Draw(rt, "max_num_batched_tokens"),
		}
		if rapid.Bool().Draw(rt, "max_pixels") {
			s.MM.ProcessorKwargs = qwen25VLPixels
			if name != "Qwen/Qwen2.5-VL-7B-Instruct" {
				s.MM.ProcessorKwargs = ""
			}
		}
		text := s
		text.MM.LimitPerPrompt = `{"image": 0, "video": 0}`
		s.MM.LimitPerPrompt = fmt.Sprintf(`{"image": %d, "video": %d}`, rapid.Uint64Range(1, 16).Draw(rt, "images"), rapid.Uint64Range(0, 2).Draw(rt, "videos"))
		p := mustProfile(rapid.SampledFrom([]string{"main", "0.29.0", "0.23.0", "0.19.0", "0.14.0"}).Draw(rt, "version"))
		withItems, err1 := Size(models[name], c, s, p)
		textOnly, err2 := Size(models[name], c, text, p)
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
		if a, b := sum(withItems), sum(textOnly); a < b {
			rt.Fatalf("ledger %d B with %s, %d B as text only", a, s.MM.LimitPerPrompt, b)
		}
		if a, b := withItems.Capacity().Blocks, textOnly.Capacity().Blocks; a > b {
			rt.Fatalf("%d KV blocks with %s, %d as text only", a, s.MM.LimitPerPrompt, b)
		}
	})
}

// TestBuildServeReadsMM: the multimodal settings of a log's non-default
// args fill the serve, its Python dicts read as JSON.
func TestBuildServeReadsMM(t *testing.T) {
	t.Parallel()
	log := "INFO non-default args: {'model': 'm', 'limit_mm_per_prompt': {'image': 2, 'video': 0}, 'mm_processor_kwargs': {'max_pixels': 1003520}, 'skip_mm_profiling': True, 'mm_processor_cache_gb': 0.5}\n"
	got, err := buildServe(logSource(t, log).Log, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := MM{LimitPerPrompt: `{"image": 2, "video": 0}`, ProcessorKwargs: `{"max_pixels": 1003520}`, SkipProfiling: true, ProcessorCacheGB: 0.5, ProcessorCacheSet: true}
	if diff := cmp.Diff(want, got.Serve.MM); diff != "" {
		t.Errorf("MM (-want +got):\n%s", diff)
	}
	if got.From["limit-mm-per-prompt"].Line != 1 {
		t.Errorf("limit-mm-per-prompt from %+v, want line 1", got.From["limit-mm-per-prompt"])
	}
}

// TestPyDictJSON: a log's Python dicts as JSON, and what is not one.
func TestPyDictJSONReadsLoggedLimits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"{'image': 2}", `{"image": 2}`, true},
		{"{'do_pan_and_scan': True}", `{"do_pan_and_scan": true}`, true},
		{"{'image': ImageDummyOptions(count=2)}", "", false},
		{"{'size': \"it's\"}", "", false},
		{"None", "", false},
	}
	for _, c := range cases {
		got, ok := pyDictJSON(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("pyDictJSON(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// TestMMCompilerEqualsReference: with the encoder cache charged, the
// compiled plan is the reference's, field for field, on discrete and
// unified classes (the processor cache counted on the unified one), in
// either --mm-encoder-tp-mode (data mode's whole tower, its pass at a
// rank's share and its gathered cache; Gemma 3 falling back to weights).
// One compiler a model serves every draw as well as a fresh one, so its
// memo of stage weights must tell a whole tower from a divided one.
func TestMMCompilerEqualsReference(t *testing.T) {
	t.Parallel()
	models := shipped(t)
	names := []string{"google__gemma-3-4b-it", "google__gemma-3-27b-it", "Qwen__Qwen2.5-VL-7B-Instruct", "Qwen__Qwen2-VL-7B-Instruct"}
	profiles := []Profile{current, mustProfile("0.29.0"), mustProfile("0.19.0"), mustProfile("0.14.0")}
	shared := map[string]*Compiler{}
	for _, n := range names {
		shared[n] = NewCompiler(models[n])
	}
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom(names).Draw(t, "model")
		a := models[name]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		c := testClass(rapid.Bool().Draw(t, "unified"))
		s := Serve{
			TensorParallelSize:   rapid.SampledFrom([]uint64{1, 2}).Draw(t, "tp"),
			PipelineParallelSize: rapid.SampledFrom([]uint64{1, 2}).Draw(t, "pp"),
			MaxModelLen:          rapid.Uint64Range(1024, 32768).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			MM: MM{LimitPerPrompt: fmt.Sprintf(`{"image": %d}`, rapid.Uint64Range(0, 8).Draw(t, "images")),
				ProcessorKwargs:  rapid.SampledFrom([]string{"", `{"max_pixels": 1003520}`}).Draw(t, "kwargs"),
				ProcessorCacheGB: float64(rapid.Uint64Range(0, 8).Draw(t, "cache_gb")), ProcessorCacheSet: rapid.Bool().Draw(t, "cache_set"),
				SkipProfiling: rapid.IntRange(0, 3).Draw(t, "skip") == 0,
				EncoderTPMode: rapid.SampledFrom([]string{"", "weights", "data"}).Draw(t, "mm_encoder_tp_mode")},
		}
		compilerIsReference(t, a, s, c, p)
		sharedCompilerIsReference(t, shared[name], a, s, c, p)
	})
}

// TestEncoderCacheStages: under pipeline parallelism V1's profile_run runs
// the encoder on every rank (gpu_model_runner.py:6542-6545, no first-rank
// test), so every stage holds the cache; the V2 runner's runs it on the
// first rank alone (gpu/model_runner.py:783).
func TestEncoderCacheStages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		spec string
		want [2]uint64
	}{
		// 0.19.0 runs Gemma 3 on V1: 32 x 256 x 2560 x 2 = 41943040 a GPU.
		{"0.19.0", [2]uint64{41943040, 41943040}},
		{"main", [2]uint64{41943040, 0}},
	} {
		sz, err := sizeShippedAt(t, "google__gemma-3-4b-it", "h100-sxm-80g", c.spec, Serve{PipelineParallelSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		var got [2]uint64
		for i := range 2 {
			for _, it := range sz.Ledger(i, 1, 1024) {
				if it.Name == "encoder_cache" {
					got[i] = it.Bytes
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: encoder cache by stage %v, want %v", c.spec, got, c.want)
		}
	}
}

// TestDropUnsizedMM: a log's multimodal settings are left out where
// membudget does not read them, with a warning for a multimodal model.
func TestDropUnsizedMM(t *testing.T) {
	t.Parallel()
	models := shipped(t)
	log := "INFO non-default args: {'model': 'm', 'limit_mm_per_prompt': {'image': 2}}\n"
	cases := []struct {
		name, model, release string
		keep, warn           bool
	}{
		{"read", "google__gemma-3-27b-it", "main", true, false},
		{"an older release", "google__gemma-3-27b-it", "0.11.0", false, true},
		{"a text model", "Qwen__Qwen3-8B", "main", false, false},
	}
	for _, tc := range cases {
		ls, err := buildServe(logSource(t, log).Log, Serve{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ls.dropUnsizedMM(models[tc.model], mustProfile(tc.release))
		_, from := ls.From["limit-mm-per-prompt"]
		if (ls.Serve.MM.LimitPerPrompt != "") != tc.keep || from != tc.keep || (len(ls.Warnings) > 0) != tc.warn {
			t.Errorf("%s: limit %q (from %v), warnings %q; want kept %v, warned %v", tc.name, ls.Serve.MM.LimitPerPrompt, from, ls.Warnings, tc.keep, tc.warn)
		}
	}
}
