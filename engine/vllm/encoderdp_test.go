package vllm

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
	"membudget/model"
)

// TestEncoderDataModeWeights: --mm-encoder-tp-mode data keeps the vision
// tower whole on every GPU of the first stage. The figures are
// model.TestTowerWholeByHand's, counted there by hand: Qwen2.5-VL-7B at
// TP2 holds 337,438,080 tower parameters more a rank, 674,876,160 B in
// bf16; GLM-4.5V at TP4 623,050,752 more, 1,246,101,504 B; Llama-4-Scout
// at TP2 424,927,104 more, 849,854,208 B, its projector still divided.
// InternVL3-1B at TP2, by hand (InternViT-300M: width 1024, MLP 4096, 24
// layers, qkv biased; mlp1 replicated either way): a layer's qkv gets
// 1536 rows of 1024 and their bias back, 1,574,400, proj 1024 x 512 =
// 524,288, fc1 2048 rows and their bias, 2,099,200, fc2 1024 x 2048 =
// 2,097,152: 6,295,040, x 24 = 151,080,960 parameters, 302,161,920 B.
// Gemma 3, whose
// class does not support data mode, falls back to weights as vLLM does:
// nothing moves. A second stage holds no tower: nothing moves there
// either.
func TestEncoderDataModeWeights(t *testing.T) {
	t.Parallel()
	cases := []struct {
		model string
		s     Serve
		more  uint64
	}{
		{"Qwen__Qwen2.5-VL-7B-Instruct", Serve{TensorParallelSize: 2}, 674_876_160},
		{"zai-org__GLM-4.5V", Serve{TensorParallelSize: 4}, 1_246_101_504},
		{"meta-llama__Llama-4-Scout-17B-16E-Instruct", Serve{TensorParallelSize: 2}, 849_854_208},
		{"OpenGVLab__InternVL3-1B-Pretrained", Serve{TensorParallelSize: 2, TrustRemoteCode: true}, 302_161_920},
		{"google__gemma-3-27b-it", Serve{TensorParallelSize: 2}, 0},
		{"Qwen__Qwen2.5-VL-7B-Instruct", Serve{TensorParallelSize: 1}, 0},
		// No tower built (every modality at 0): nothing to replicate.
		{"Qwen__Qwen2.5-VL-7B-Instruct", Serve{TensorParallelSize: 2, MM: MM{LimitPerPrompt: `{"image": 0, "video": 0}`}}, 0},
	}
	for _, c := range cases {
		weights, err := sizeShippedAt(t, c.model, "h100-sxm-80g", "main", c.s)
		if err != nil {
			t.Fatalf("%s TP%d: %v", c.model, c.s.TensorParallelSize, err)
		}
		data := c.s
		data.MM.EncoderTPMode = "data"
		sz, err := sizeShippedAt(t, c.model, "h100-sxm-80g", "main", data)
		if err != nil {
			t.Fatalf("%s TP%d, data mode: %v", c.model, c.s.TensorParallelSize, err)
		}
		if got := sz.stageWeights()[0].derived - weights.stageWeights()[0].derived; got != c.more {
			t.Errorf("%s TP%d: data mode holds %d B more a GPU, want %d", c.model, c.s.TensorParallelSize, got, c.more)
		}
		j := sz.mmJSON()
		wantMode := "data"
		if c.model == "google__gemma-3-27b-it" {
			wantMode = "weights" // the fallback
		}
		if j.EncoderTPMode != wantMode || j.TowerReplicated != (c.more > 0) {
			t.Errorf("%s TP%d: JSON mode %q, replicated %v; want %q, %v", c.model, c.s.TensorParallelSize, j.EncoderTPMode, j.TowerReplicated, wantMode, c.more > 0)
		}
	}
	// Qwen2.5-VL-7B at PP2 x TP2: the second stage holds no tower.
	pp := Serve{TensorParallelSize: 2, PipelineParallelSize: 2}
	a, err := sizeShippedAt(t, "Qwen__Qwen2.5-VL-7B-Instruct", "h100-sxm-80g", "main", pp)
	if err != nil {
		t.Fatal(err)
	}
	pp.MM.EncoderTPMode = "data"
	b, err := sizeShippedAt(t, "Qwen__Qwen2.5-VL-7B-Instruct", "h100-sxm-80g", "main", pp)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.stageWeights()[0].derived-a.stageWeights()[0].derived, uint64(674_876_160); got != want {
		t.Errorf("PP2 x TP2 first stage: %d B more, want %d", got, want)
	}
	if g, w := b.stageWeights()[1].derived, a.stageWeights()[1].derived; g != w {
		t.Errorf("PP2 x TP2 second stage: %d B in data mode, want %d as in weights mode", g, w)
	}
}

// TestEncoderDataModePass: in data mode each GPU encodes its share of the
// profile's K dummy items, ceil(K / TP) on rank 0, through the whole
// tower, beside the whole batch's pixels and its share's copy; the cache
// keeps views of the all-gather's buffer of TP x ceil(K / TP) items.
func TestEncoderDataModePass(t *testing.T) {
	t.Parallel()
	qwen25 := func(tp uint64, mode string) Serve {
		return Serve{TensorParallelSize: tp, MaxModelLen: 16384, MaxNumSeqs: 8, MaxNumBatchedTokens: 8192,
			MM: MM{LimitPerPrompt: `{"image": 4, "video": 0}`, ProcessorKwargs: `{"max_pixels": 1003520}`, EncoderTPMode: mode}}
	}
	cases := []struct {
		name, model string
		s           Serve
		pass        EncoderPass
		cache, held uint64
	}{
		{
			// Qwen2.5-VL-7B at main, max_pixels 1003520: 1003520 / 28^2 =
			// 1280 tokens an image, 4 x 1280 = 5120 patches; K = min(8192 /
			// 1280 = 6, 8 x min(4, 16384 / 1280 = 12)) = 6 items. TP4 data
			// mode: rank 0 encodes ceil(6 / 4) = 2, 10240 patches. Pixels:
			// 3 x 2 x 14 x 14 = 1176 values a patch, with the device norm's
			// copy 1176 x 4 B = 4704, for all 6 items 30720 x 4704 =
			// 144,506,880, and the share's copy 10240 x 1176 x 2 =
			// 24,084,480: 168,591,360. Block at TP 1 (H 1280, I 3420):
			// attention 11H = 14080, MLP max(2H + 4I, 3H + 3I) = 16240,
			// x 2 B = 32480 a patch: 332,595,200. Rotary 80 x 2 B a patch:
			// 1,638,400. The tower's peak 502,824,960. An item's outputs
			// 1280 x 3584 x 2 = 9,175,040 B; 6 does not divide by 4, so a
			// rank of 1 item holds it and its copy padded to 2: 3 items,
			// 27,525,120, beside the all-gather's 4 x 2 = 8 items,
			// 73,400,320: 100,925,440, with the pixels 269,516,800, under
			// the tower's. The cache holds the 8 items' rows, 73,400,320.
			name: "qwen2.5-vl-7b, TP4 data", model: "Qwen__Qwen2.5-VL-7B-Instruct", s: qwen25(4, "data"),
			pass:  EncoderPass{Sized: true, Items: 2, Patches: 10240, PixelBytes: 168_591_360, BlockBytes: 332_595_200, PeakBytes: 502_824_960, GatherBytes: 100_925_440},
			cache: 73_400_320, held: 8,
		},
		{
			// The same in weights mode: all 6 items, 30720 patches, at TP4
			// widths: attention 3H + 8 x 320 = 6400, MLP max(2H + 4 x 855,
			// 3H + 3 x 855) = 6405, x 2 B = 12810 a patch: 393,523,200;
			// rotary 30720 x 160 = 4,915,200; pixels 144,506,880: peak
			// 542,945,280. The cache 6 x 9,175,040 = 55,050,240.
			name: "qwen2.5-vl-7b, TP4 weights", model: "Qwen__Qwen2.5-VL-7B-Instruct", s: qwen25(4, "weights"),
			pass:  EncoderPass{Sized: true, Patches: 30720, PixelBytes: 144_506_880, BlockBytes: 393_523_200, PeakBytes: 542_945_280},
			cache: 55_050_240,
		},
		{
			// Data mode at TP 1: the weights of weights mode, but the items
			// still go through the data-parallel path, which copies their
			// pixels out: 30720 x 1176 x 2 = 72,253,440 more, 216,760,320;
			// blocks at TP 1 30720 x 32480 = 997,785,600, rotary
			// 4,915,200: 1,219,461,120. The all-gather returns its input:
			// the 6 items' outputs, 55,050,240.
			name: "qwen2.5-vl-7b, TP1 data", model: "Qwen__Qwen2.5-VL-7B-Instruct", s: qwen25(1, "data"),
			pass:  EncoderPass{Sized: true, Items: 6, Patches: 30720, PixelBytes: 216_760_320, BlockBytes: 997_785_600, PeakBytes: 1_219_461_120, GatherBytes: 55_050_240},
			cache: 55_050_240,
		},
		{
			// Qwen3-VL-32B at main, images, max_pixels 1003520
			// (TestEncoderPassSized's case): 980 tokens an image, 8 items
			// of 3920 patches. TP2 data mode: 4 items a rank, 15680
			// patches. Pixels 1536 values x 2 B = 3072 a patch (no device
			// norm), 31360 x 3072 = 96,337,920 and the share's copy 15680
			// x 3072 = 48,168,960: 144,506,880. The block at TP 1, 35328 B
			// a patch: 553,943,040; rotary 144 B a patch: 2,257,920; the
			// tower's peak 700,707,840. An item's outputs with the 3
			// deepstack features: 980 x 4 x 5120 x 2 = 40,140,800 B; 8
			// divides by 2: the rank's 4, 160,563,200, and the
			// all-gather's 8, 321,126,400: 481,689,600, with the pixels
			// 626,196,480, under the tower's. The cache holds the 8 items,
			// as in weights mode.
			name: "qwen3-vl-32b, TP2 data", model: "Qwen__Qwen3-VL-32B-Instruct",
			s:     Serve{TensorParallelSize: 2, MaxModelLen: 8192, MM: MM{LimitPerPrompt: `{"video": 0}`, ProcessorKwargs: `{"max_pixels": 1003520}`, EncoderTPMode: "data"}},
			pass:  EncoderPass{Sized: true, Items: 4, Patches: 15680, PixelBytes: 144_506_880, BlockBytes: 553_943_040, PeakBytes: 700_707_840, GatherBytes: 481_689_600},
			cache: 321_126_400,
		},
	}
	for _, c := range cases {
		sz, err := sizeShippedAt(t, c.model, "h100-sxm-80g", "main", c.s)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.pass, sz.Serve.EncoderPass); diff != "" {
			t.Errorf("%s: encoder pass (-want +got):\n%s", c.name, diff)
		}
		if e := sz.Serve.Encoder; e.CacheBytes != c.cache || e.HeldItems != c.held {
			t.Errorf("%s: encoder cache %d B of %d held items, want %d B of %d", c.name, e.CacheBytes, e.HeldItems, c.cache, c.held)
		}
	}
}

// TestEncoderDataModeRules: which serves vLLM takes in data mode, as
// membudget answers them. GLM-4.xV's data mode builds the tower at TP 1
// widths (glm4_1v.py:284-289), so its heads need not divide the ranks:
// GLM-4.5V's 12 at TP8 is sized, where weights mode is refused.
// Phi-4-multimodal does not support data mode: vLLM falls back to
// weights before the tower is built, and its SigLIP tower's assert on 16
// heads at TP3 still fires.
func TestEncoderDataModeRules(t *testing.T) {
	t.Parallel()
	data := MM{EncoderTPMode: "data"}
	if _, err := sizeShippedAt(t, "zai-org__GLM-4.5V", "h100-sxm-80g", "main", Serve{TensorParallelSize: 8, MM: data}); err != nil {
		t.Errorf("GLM-4.5V TP8 data mode: %v", err)
	}
	// Phi-4-multimodal at TP3 (TestPhi4MMTowerHeads' config, whose text
	// model divides by 3): refused by its tower's heads in data mode too.
	a := phi4MMTextDividesBy3(t)
	_, err := Resolve(Serve{TensorParallelSize: 3, TrustRemoteCode: true, MM: data}, a, bigClass, current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" || !strings.Contains(err.Error(), "16 attention heads") {
		t.Errorf("Phi-4-multimodal TP3 data mode: %v; want the tower's 16 heads refused as in weights mode", err)
	}
}

// TestEncoderDataModeFallback: a model whose class does not support data
// mode is served as in weights mode, to the block, and the report says
// vLLM falls back.
func TestEncoderDataModeFallback(t *testing.T) {
	t.Parallel()
	s := Serve{TensorParallelSize: 2}
	a, err := sizeShippedAt(t, "google__gemma-3-27b-it", "h100-sxm-80g", "main", s)
	if err != nil {
		t.Fatal(err)
	}
	s.MM.EncoderTPMode = "data"
	b, err := sizeShippedAt(t, "google__gemma-3-27b-it", "h100-sxm-80g", "main", s)
	if err != nil {
		t.Fatal(err)
	}
	if a.Capacity().Blocks != b.Capacity().Blocks || a.Serve.EncoderPass != b.Serve.EncoderPass || a.Serve.Encoder != b.Serve.Encoder {
		t.Errorf("Gemma 3 TP2: data mode moves the sizing (blocks %d, %d)", a.Capacity().Blocks, b.Capacity().Blocks)
	}
	if l := b.encoderTPLine(); !strings.Contains(l, "Gemma3ForConditionalGeneration does not support it, and vLLM falls back to weights") {
		t.Errorf("Gemma 3 TP2 data mode's line: %q", l)
	}
}

// TestQwenTowerDivides: in weights mode vLLM divides a Qwen-VL tower's
// heads and MLP among the TP ranks and asserts they divide
// (dist_utils.divide; MergedColumnParallelLinear, linear.py:683).
// Qwen2.5-VL-7B's tower (16 heads, a 3420-wide MLP) under a 16-head text
// model with 2 KV heads and an 11008-wide MLP (Qwen2.5-VL-3B's shape) at
// TP 8: the text model divides, the tower's MLP does not (3420 / 8 =
// 427.5): refused, naming --tensor-parallel-size and the width. Data mode
// builds the tower whole: served. At TP 4 (3420 / 4 = 855) weights mode
// is served. With images and video at 0 the tower is not built (from
// 0.15.0): nothing to divide.
func TestQwenTowerDivides(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../../corpus/models/Qwen__Qwen2.5-VL-7B-Instruct.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["hidden_size"], doc["num_attention_heads"], doc["num_key_value_heads"], doc["intermediate_size"], doc["num_hidden_layers"] = 2048, 16, 2, 11008, 36
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	a, err := model.ParseConfig("qwen25vl3b.json", data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(Serve{TensorParallelSize: 8}, a, bigClass, current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" || !strings.Contains(se.Reason, "does not divide the 3420-wide MLP") {
		t.Errorf("TP 8, weights mode: %v; want a refusal of --tensor-parallel-size naming the tower's 3420-wide MLP", err)
	}
	for _, s := range []Serve{
		{TensorParallelSize: 8, MM: MM{EncoderTPMode: "data"}},
		{TensorParallelSize: 4},
		{TensorParallelSize: 8, MM: MM{LimitPerPrompt: `{"image": 0, "video": 0}`}},
	} {
		if _, err := Resolve(s, a, bigClass, current); err != nil {
			t.Errorf("TP %d %+v: %v", s.TensorParallelSize, s.MM, err)
		}
	}
}
