package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// The shapes of the multimodal configs of issue 23's second batch, entered
// by hand from the files (see TestShippedConfigsParse).
func init() {
	for name, s := range map[string]shape{
		// text_config is Qwen2-7B-Instruct's (28 layers of 28 heads and 4
		// KV heads of 3584 / 28 = 128, max_pos 32768, no sliding layer:
		// use_sliding_window false), its vocabulary resized to 152,128 by
		// the conversion; untied; the root's float16 is served. The KV
		// layout is vLLM's FullAttentionSpec on every layer: 2 x 4 x 128
		// values a token a layer.
		"llava-hf__llava-onevision-qwen2-7b-ov-hf": {ModelType: "llava_onevision", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128,
			Vocab: 152128, MaxPos: 32768, RotaryDim: 128, Vision: "llava_onevision", Dtype: "float16"},
		// text_config is Gemma 2B's (18 layers of 8 heads and one KV head,
		// head_dim GemmaConfig's 256, max_pos its 8192, tied), vocabulary
		// 257,216; the root's bfloat16 is served. Every layer full
		// attention: 2 x 1 x 256 values a token a layer.
		"google__paligemma-3b-pt-448": {ModelType: "paligemma", Layers: 18, Hidden: 2048, Heads: 8, KVHeads: 1, HeadDim: 256,
			Vocab: 257216, MaxPos: 8192, Tied: true, RotaryDim: 256, Vision: "paligemma", Dtype: "bfloat16"},
		// text_config is SmolLM2-360M's shape (32 layers of 15 heads and 5
		// KV heads of 64, max_pos 8192), vocabulary 49,280, untied (the
		// root's false, LlamaConfig's default); the root's float32 is the
		// dtype vLLM reads. Every layer full attention: 2 x 5 x 64 values
		// a token a layer.
		"HuggingFaceTB__SmolVLM2-500M-Video-Instruct": {ModelType: "smolvlm", Layers: 32, Hidden: 960, Heads: 15, KVHeads: 5, HeadDim: 64,
			Vocab: 49280, MaxPos: 8192, RotaryDim: 64, Vision: "idefics3", Dtype: "float32"},
		// text_config is Vicuna-7B-v1.5's (Llama 2 7B's shape, vocab
		// 32,064, untied) with linear rope x2.5; the root's "dtype"
		// bfloat16 is served. Every layer full attention: 2 x 32 x 128
		// values a token a layer.
		"llava-hf__LLaVA-NeXT-Video-7B-hf": {ModelType: "llava_next_video", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128,
			Vocab: 32064, MaxPos: 4096, RotaryDim: 128, Rope: "linear", Vision: "llava_next_video", Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// LLaVA-OneVision-7B, counted by hand from llava_onevision.py, siglip.py
// and qwen2.py at d18bb7b. The text model is Qwen2-7B's with 152,128
// vocabulary rows (a multiple of 64): a layer's q 3584 x 3584 + 3584, k
// and v 512 x 3584 + 512 each, o 3584 x 3584, gate, up and down 3 x 3584
// x 18,944, two norms 7168: 233,057,792; the embedding and the untied head
// 152,128 x 3584 each; the norm 3584. The SigLIP-so400m tower (1152 wide,
// 4304 MLP, 384 px in 14 px patches: 27^2 = 729 positions):
// patch_embedding 1152 x 3 x 14 x 14 + 1152, position_embedding 729 x
// 1152; a layer's q, k, v and out_proj 4 x (1152 x 1152 + 1152), fc1 1152
// x 4304 + 4304, fc2 4304 x 1152 + 1152, two LayerNorms 4 x 1152:
// 15,239,504. The projector: linear_1 1152 x 3584 + 3584, linear_2 3584 x
// 3584 + 3584; image_newline 3584.
const (
	ov7BLayer     = 3584*3584 + 3584 + 2*(512*3584+512) + 3584*3584 + 3*3584*18944 + 2*3584
	ov7BText      = 28*ov7BLayer + 2*152128*3584 + 3584
	ov7BEmbeds    = 1152*3*14*14 + 1152 + 729*1152
	so400mLayer   = 4*(1152*1152+1152) + 1152*4304 + 4304 + 4304*1152 + 1152 + 4*1152
	ov7BProjector = 1152*3584 + 3584 + 3584*3584 + 3584
)

// TestSo400mLayerByHand pins the SigLIP layer's sum the constants above
// spell out: 5,313,024 + 4,962,512 + 4,959,360 + 4608.
func TestSo400mLayerByHand(t *testing.T) {
	if so400mLayer != 15239504 {
		t.Errorf("a SigLIP-so400m layer holds %d parameters, want 15,239,504", so400mLayer)
	}
	if ov7BLayer != 233057792 {
		t.Errorf("a Qwen2-7B layer holds %d parameters, want 233,057,792", ov7BLayer)
	}
}

// llavaOnevision7BHeader is llava-hf/llava-onevision-qwen2-7b-ov-hf's
// safetensors header rebuilt from its config in the names transformers
// 4.45's LlavaOnevisionForConditionalGeneration saves (the language model
// under language_model., the SigLIP tower whole with its post_layernorm
// under vision_tower.vision_model., no pooling head: vision_use_head
// false), float16 as the conversion script casts every tensor: 765
// tensors. No published listing was found (see corpus/models/SOURCES.md).
func llavaOnevision7BHeader() (string, []safetensors.Tensor) {
	data := mustCorpusModel("llava-hf__llava-onevision-qwen2-7b-ov-hf")
	f16 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F16", name, shape...) }
	ts := []safetensors.Tensor{f16("language_model.model.embed_tokens.weight", 152128, 3584), f16("language_model.model.norm.weight", 3584),
		f16("language_model.lm_head.weight", 152128, 3584)}
	ts = append(ts, llamaLayers("F16", "language_model.model.layers.", 28, 3584, 512, 18944, true)...)
	v := "vision_tower.vision_model."
	ts = append(ts, f16(v+"embeddings.patch_embedding.weight", 1152, 3, 14, 14), f16(v+"embeddings.patch_embedding.bias", 1152),
		f16(v+"embeddings.position_embedding.weight", 729, 1152))
	ts = append(ts, clipEncoderLayers("F16", v, 26, 1152, 4304)...)
	ts = append(ts, f16(v+"post_layernorm.weight", 1152), f16(v+"post_layernorm.bias", 1152),
		f16("multi_modal_projector.linear_1.weight", 3584, 1152), f16("multi_modal_projector.linear_1.bias", 3584),
		f16("multi_modal_projector.linear_2.weight", 3584, 3584), f16("multi_modal_projector.linear_2.bias", 3584),
		f16("image_newline", 3584))
	return string(data), ts
}

// TestLlavaOnevision7BHeader: LLaVA-OneVision's checkpoint read by
// llava_onevision's rules is what the config gives, whole and at TP2, with
// the tower's post_layernorm dropped (require_post_norm=False). At TP2 the
// text model's attention and MLP halve (their biases column-parallel), its
// norms stay, the vocabulary is 76,064 rows a rank; the tower's qkv and
// fc1 halve with their biases, out_proj and fc2 halve their weights and
// keep their biases, the embeddings and LayerNorms stay; the projector and
// image_newline stay whole (nn.Linear, an nn.Parameter). Both add the
// SigLIP position_ids buffer (729 int64) and Qwen2's rotary table, 32,768
// x 128 in float16.
func TestLlavaOnevision7BHeader(t *testing.T) {
	_, ts := llavaOnevision7BHeader()
	if len(ts) != 765 {
		t.Fatalf("%d tensors, want 3 + 28 x 12 + 3 + 26 x 16 + 2 + 4 + 1 = 765", len(ts))
	}
	buffers := uint64(729*8 + 32768*128*2)
	text2 := uint64(28*((ov7BLayer-2*3584)/2+2*3584) + 2*76064*3584 + 3584)
	layer2 := uint64((3*(1152*1152+1152)+1152*4304+4304)/2 + (1152*1152+4304*1152)/2 + 2*1152 + 4*1152)
	checkByHand(t, []byHandCase{{
		name: "llava-onevision-qwen2-7b-ov-hf", fixture: llavaOnevision7BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), (ov7BText+ov7BEmbeds+26*so400mLayer+ov7BProjector+3584)*2 + buffers, ""},
			{"TP2", tpRanks(2, 0), (text2+ov7BEmbeds+26*layer2+ov7BProjector+3584)*2 + buffers, ""},
		},
	}})
	_, notes := attach(t, llavaOnevision7BHeader)
	want := []SkippedTensors{{Reason: skipClipPostNorm, Count: 2}}
	if diff := cmp.Diff(want, notes.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// TestLlavaOnevisionProjectorWholeAndUnquantized: under fp8 and at TP4
// the projector keeps linear_1 (1152 x 3584 + 3584) and linear_2 (3584 x
// 3584 + 3584) whole in float16, where LLaVA-NeXT's column- and
// row-parallel projector takes the quantization config; the text model's
// q_proj is fp8 (one byte) and a quarter of 3584 x 3584.
func TestLlavaOnevisionProjectorWholeAndUnquantized(t *testing.T) {
	a := shippedArch(t, "llava-hf__llava-onevision-qwen2-7b-ov-hf")
	doc := corpusModel(t, "llava-hf__llava-onevision-qwen2-7b-ov-hf")
	q, err := ParseConfig("x.json", []byte(strings.Replace(string(doc), `"projector_hidden_act"`,
		`"quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic"}, "projector_hidden_act"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		a    *Arch
	}{{"float16", a}, {"fp8", q}} {
		got := map[string]uint64{}
		for _, it := range Weights(tc.a, Whole(tc.a, 4, 2, tc.a.Quant)) {
			got[it.Name] = it.Bytes
		}
		want := map[string]uint64{
			"multi_modal_projector.linear_1.weight": 1152 * 3584 * 2, "multi_modal_projector.linear_1.bias": 3584 * 2,
			"multi_modal_projector.linear_2.weight": 3584 * 3584 * 2, "multi_modal_projector.linear_2.bias": 3584 * 2,
			"image_newline": 3584 * 2,
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %s %d B, want %d", tc.name, k, got[k], w)
			}
		}
		qp := uint64(3584 * 3584 / 4 * 2)
		if tc.name == "fp8" {
			qp = 3584 * 3584 / 4
		}
		if k := "model.layers.0.self_attn.qkv_proj.weight"; got[k] < qp {
			t.Errorf("%s: %s %d B, want at least q's %d", tc.name, k, got[k], qp)
		}
	}
}

// TestLlavaOnevisionReads: the class's defaults fill what a config omits
// (a text_config without model_type is Qwen2's, with q, k and v biases;
// vision_feature_layer -1 builds every tower layer); a list of feature
// layers builds the tower to the deepest and keeps linear_1 at the tower's
// width (llava_onevision.py:610-620 takes the last built layer); a CLIP
// tower is refused by name.
func TestLlavaOnevisionReads(t *testing.T) {
	data := corpusModel(t, "llava-hf__llava-onevision-qwen2-7b-ov-hf")
	base := string(data)
	tests := []struct {
		name, from, to string
		layers, projIn uint64
		err            string
	}{
		{"published", "", "", 26, 1152, ""},
		{"no vision_feature_layer", `"vision_feature_layer": -1,`, ``, 26, 1152, ""},
		{"no text model_type", `"model_type": "qwen2",`, ``, 26, 1152, ""},
		{"layer -2", `"vision_feature_layer": -1`, `"vision_feature_layer": -2`, 25, 1152, ""},
		{"a list", `"vision_feature_layer": -1`, `"vision_feature_layer": [-1, -5]`, 26, 1152, ""},
		{"CLIP", `"model_type": "siglip_vision_model"`, `"model_type": "clip_vision_model"`, 0, 0,
			`vision_config.model_type: "clip_vision_model": only a SigLIP (siglip_vision_model) tower`},
		{"gemma text", `"model_type": "qwen2"`, `"model_type": "gemma"`, 0, 0, `text_config.model_type: "gemma" is not a text model membudget sizes under llava_onevision`},
	}
	published := shippedArch(t, "llava-hf__llava-onevision-qwen2-7b-ov-hf")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, ok := parseWanting(t, strings.Replace(base, tc.from, tc.to, 1), tc.err)
			if !ok {
				return
			}
			if got, want := [2]uint64{a.Vision.Layers, a.Vision.ProjectorIn}, [2]uint64{tc.layers, tc.projIn}; got != want {
				t.Errorf("tower layers and projector input %v, want %v", got, want)
			}
			if diff := cmp.Diff(shapeOf(published), shapeOf(a)); diff != "" && tc.layers == 26 {
				t.Errorf("(-published +read):\n%s", diff)
			}
		})
	}
}

// PaliGemma-3B-pt-448, counted by hand from paligemma.py, siglip.py and
// gemma.py at d18bb7b. The text model is Gemma 2B's: a layer's q 2048 x
// 2048 (8 heads of 256), k and v 256 x 2048 each, o 2048 x 2048, gate, up
// and down 3 x 2048 x 16,384, two norms 4096: 110,104,576; 18 of them; the
// tied embedding 257,216 (a multiple of 64) x 2048; the norm 2048:
// 2,508,662,784. The whole SigLIP-so400m tower at 448 px (32^2 = 1024
// positions): patch_embedding 1152 x 3 x 14 x 14 + 1152, position_embedding
// 1024 x 1152, 27 layers, post_layernorm 2 x 1152: 413,327,088. The
// projector: 1152 x 2048 + 2048.
const (
	pgLayer     = 2*2048*2048 + 2*256*2048 + 3*2048*16384 + 2*2048
	pgText      = 18*pgLayer + 257216*2048 + 2048
	pgTower448  = 1152*3*14*14 + 1152 + 1024*1152 + 27*so400mLayer + 2*1152
	pgProjector = 1152*2048 + 2048
)

// paliGemma448Header is google/paligemma-3b-pt-448's safetensors header
// rebuilt from its config in the names transformers 4.44's
// PaliGemmaForConditionalGeneration saves (the language model under
// language_model.model., no lm_head: Gemma ties it; the SigLIP tower with
// its post_layernorm; multi_modal_projector.linear), bfloat16: 2 + 18 x 9
// + 3 + 27 x 16 + 2 + 2 = 603 tensors. No published listing was found
// (see corpus/models/SOURCES.md).
func paliGemma448Header() (string, []safetensors.Tensor) {
	data := mustCorpusModel("google__paligemma-3b-pt-448")
	ts := []safetensors.Tensor{bf16("language_model.model.embed_tokens.weight", 257216, 2048), bf16("language_model.model.norm.weight", 2048)}
	ts = append(ts, llamaLayers("BF16", "language_model.model.layers.", 18, 2048, 256, 16384, false)...)
	v := "vision_tower.vision_model."
	ts = append(ts, bf16(v+"embeddings.patch_embedding.weight", 1152, 3, 14, 14), bf16(v+"embeddings.patch_embedding.bias", 1152),
		bf16(v+"embeddings.position_embedding.weight", 1024, 1152))
	ts = append(ts, clipEncoderLayers("BF16", v, 27, 1152, 4304)...)
	ts = append(ts, bf16(v+"post_layernorm.weight", 1152), bf16(v+"post_layernorm.bias", 1152),
		bf16("multi_modal_projector.linear.weight", 2048, 1152), bf16("multi_modal_projector.linear.bias", 2048))
	return string(data), ts
}

// TestPaliGemma448Header: PaliGemma's checkpoint read by paligemma's rules
// is what the config gives, whole and at TP2, nothing skipped. At TP2 the
// text model's q, o and MLP halve; its one KV head is replicated on both
// ranks (k and v whole); norms stay; the vocabulary is 128,608 rows a
// rank. The tower halves as LLaVA-OneVision's does, its post_layernorm
// stays; the projector stays whole. Both add the SigLIP position_ids
// buffer (1024 int64) and Gemma's rotary table, 8192 x 256 in bfloat16.
func TestPaliGemma448Header(t *testing.T) {
	_, ts := paliGemma448Header()
	if len(ts) != 603 {
		t.Fatalf("%d tensors, want 603", len(ts))
	}
	n := fixtureParams(ts)
	if want := uint64(pgText + pgTower448 + pgProjector); n != want || n != 2924351216 {
		t.Errorf("the fixture holds %d parameters, by hand %d", n, want)
	}
	buffers := uint64(1024*8 + 8192*256*2)
	text2 := uint64(18*((2*2048*2048+3*2048*16384)/2+2*256*2048+2*2048) + 128608*2048 + 2048)
	layer2 := uint64((3*(1152*1152+1152)+1152*4304+4304)/2 + (1152*1152+4304*1152)/2 + 2*1152 + 4*1152)
	tower2 := uint64(1152*3*14*14 + 1152 + 1024*1152 + 27*layer2 + 2*1152)
	checkByHand(t, []byHandCase{{
		name: "paligemma-3b-pt-448", fixture: paliGemma448Header,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), (pgText+pgTower448+pgProjector)*2 + buffers, ""},
			{"TP2", tpRanks(2, 0), (text2+tower2+pgProjector)*2 + buffers, ""},
		},
	}})
	_, notes := attach(t, paliGemma448Header)
	if len(notes.Skipped) > 0 {
		t.Errorf("skipped %+v, want nothing", notes.Skipped)
	}
}

// TestPaliGemmaReads: PaliGemmaConfig's projection_dim (2048) fills a
// config that omits it; Gemma 2 text is read as Gemma 2; a projection_dim
// other than the text width, another tower or another text model is an
// error naming its key.
func TestPaliGemmaReads(t *testing.T) {
	data := corpusModel(t, "google__paligemma-3b-pt-448")
	base := string(data)
	gemma2 := `"model_type": "gemma2", "head_dim": 256, "sliding_window": 4096, "query_pre_attn_scalar": 256,`
	tests := []struct {
		name, from, to string
		text           string
		err            string
	}{
		{"published", "", "", "gemma", ""},
		{"no projection_dim", `"projection_dim": 2048,
  "text_config"`, `"text_config"`, "gemma", ""},
		{"gemma2 text", `"model_type": "gemma",`, gemma2, "gemma2", ""},
		{"projection_dim 1024", `"projection_dim": 2048,
  "text_config"`, `"projection_dim": 1024,
  "text_config"`, "", "projection_dim: 1024 is not the text model's hidden_size 2048"},
		{"llama text", `"model_type": "gemma",`, `"model_type": "llama",`, "", `text_config.model_type: "llama" is not a text model membudget sizes under paligemma`},
		{"clip tower", `"model_type": "siglip_vision_model"`, `"model_type": "clip_vision_model"`, "", `vision_config.model_type: "clip_vision_model": PaliGemma builds a SigLIP tower`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(base, tc.from, tc.to, 1)
			if doc == base && tc.from != "" {
				t.Fatalf("%q is not in the config", tc.from)
			}
			a, ok := parseWanting(t, doc, tc.err)
			if !ok {
				return
			}
			if a.Vision.OutHidden != 2048 || a.Vision.Layers != 27 || a.Vision.TokensPerImage != 1024 {
				t.Errorf("projector out %d, tower layers %d, tokens %d; want 2048, 27, 32^2 = 1024", a.Vision.OutHidden, a.Vision.Layers, a.Vision.TokensPerImage)
			}
			sliding := 0
			for _, l := range a.Layers {
				if l.Sliding() {
					sliding++
				}
			}
			// Gemma 2 slides every other layer (layer 0 first): 9 of 18.
			if want := map[string]int{"gemma": 0, "gemma2": 9}[tc.text]; sliding != want {
				t.Errorf("%d sliding layers, want %d (%s)", sliding, want, tc.text)
			}
		})
	}
}

// SmolVLM2-500M-Video-Instruct, counted by hand from idefics3.py,
// idefics2_vision_model.py and llama.py at d18bb7b. The text model: a
// layer's q 960 x 960, k and v 320 x 960 each, o 960 x 960, gate, up and
// down 3 x 960 x 2560, two norms 1920: 9,832,320; 32 of them; the
// embedding and the untied head 49,280 (a multiple of 64) x 960 each; the
// norm 960: 409,252,800. The tower (768 wide, SmolVLMVisionConfig's 3072
// MLP and 12 layers, 512 px in 16 px patches: 32^2 = 1024 positions):
// patch_embedding 768 x 3 x 16 x 16 + 768, position_embedding 1024 x 768;
// a layer's q, k, v and out_proj 4 x (768 x 768 + 768), fc1 768 x 3072 +
// 3072, fc2 3072 x 768 + 768, two LayerNorms 4 x 768: 7,087,872;
// post_layernorm 2 x 768: 86,433,024. The connector: 768 x 4^2 = 12,288
// wide in, 960 out, no bias. 507,482,304 parameters in all.
const (
	smolLayer     = 2*960*960 + 2*320*960 + 3*960*2560 + 2*960
	smolText      = 32*smolLayer + 2*49280*960 + 960
	smolVitLayer  = 4*(768*768+768) + 768*3072 + 3072 + 3072*768 + 768 + 4*768
	smolTower     = 768*3*16*16 + 768 + 1024*768 + 12*smolVitLayer + 2*768
	smolConnector = 768 * 16 * 960
)

// smolVLM2Header is HuggingFaceTB/SmolVLM2-500M-Video-Instruct's
// safetensors header rebuilt from its config in the names transformers'
// SmolVLMForConditionalGeneration saves (model.text_model.,
// model.vision_model. with q, k and v apart, model.connector.,
// lm_head.), bfloat16: 3 + 32 x 9 + 3 + 12 x 16 + 2 + 1 = 489 tensors. No
// published listing was found (see corpus/models/SOURCES.md).
func smolVLM2Header() (string, []safetensors.Tensor) {
	data := mustCorpusModel("HuggingFaceTB__SmolVLM2-500M-Video-Instruct")
	ts := []safetensors.Tensor{bf16("model.text_model.embed_tokens.weight", 49280, 960), bf16("model.text_model.norm.weight", 960),
		bf16("lm_head.weight", 49280, 960)}
	ts = append(ts, llamaLayers("BF16", "model.text_model.layers.", 32, 960, 320, 2560, false)...)
	v := "model.vision_model."
	ts = append(ts, bf16(v+"embeddings.patch_embedding.weight", 768, 3, 16, 16), bf16(v+"embeddings.patch_embedding.bias", 768),
		bf16(v+"embeddings.position_embedding.weight", 1024, 768))
	ts = append(ts, clipEncoderLayers("BF16", v, 12, 768, 3072)...)
	ts = append(ts, bf16(v+"post_layernorm.weight", 768), bf16(v+"post_layernorm.bias", 768),
		bf16("model.connector.modality_projection.proj.weight", 960, 12288))
	return string(data), ts
}

// TestSmolVLM2Header: SmolVLM's checkpoint read by smolvlm's rules is what
// the config gives, whole, nothing skipped, with Llama's rotary table
// 8192 x 64 served in two bytes. vLLM runs this model at TP1 only: its
// 15 heads and the tower's 12 share no divisor above 1 but 3, which its 5
// KV heads do not divide (QKVParallelLinear).
func TestSmolVLM2Header(t *testing.T) {
	_, ts := smolVLM2Header()
	if len(ts) != 489 {
		t.Fatalf("%d tensors, want 489", len(ts))
	}
	n := fixtureParams(ts)
	if want := uint64(smolText + smolTower + smolConnector); n != want || n != 507482304 {
		t.Errorf("the fixture holds %d parameters, by hand %d", n, want)
	}
	checkByHand(t, []byHandCase{{
		name: "SmolVLM2-500M-Video-Instruct", fixture: smolVLM2Header,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), (smolText+smolTower+smolConnector)*2 + 8192*64*2, ""},
		},
	}})
	_, notes := attach(t, smolVLM2Header)
	if len(notes.Skipped) > 0 {
		t.Errorf("skipped %+v, want nothing", notes.Skipped)
	}
}

// TestIdefics3SplitsAndQuantizes: at TP4 (a config of 16 heads and 4 KV
// heads) the tower's qkv_proj and fc1 are a quarter a rank with their
// biases, out_proj and fc2 a quarter with their biases whole, and the
// connector's proj whole; under fp8 the tower's layers and the connector
// take one byte a weight (ReplicatedLinear and the tower's parallel layers
// are built with the quantization config).
func TestIdefics3SplitsAndQuantizes(t *testing.T) {
	doc := `{"model_type": "idefics3", "torch_dtype": "bfloat16", "scale_factor": 2%s,
 "text_config": {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 16, "num_key_value_heads": 4, "vocab_size": 1024},
 "vision_config": {"hidden_size": 128, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4, "image_size": 64, "patch_size": 16}}`
	for _, tc := range []struct {
		name, quant string
		el          uint64
	}{
		{"bf16", "", 2},
		{"fp8", `, "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic"}`, 1},
	} {
		a, err := ParseConfig("x.json", []byte(fmt.Sprintf(doc, tc.quant)))
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]uint64{}
		for _, it := range Weights(a, Whole(a, 4, 2, a.Quant)) {
			got[it.Name] = it.Bytes
		}
		l := "model.vision_model.encoder.layers.0."
		want := map[string]uint64{
			l + "self_attn.qkv_proj.weight": 3 * 128 * 128 / 4 * tc.el, l + "self_attn.qkv_proj.bias": 3 * 128 / 4 * 2,
			l + "self_attn.out_proj.weight": 128 * 128 / 4 * tc.el, l + "self_attn.out_proj.bias": 128 * 2,
			l + "mlp.fc1.weight": 128 * 512 / 4 * tc.el, l + "mlp.fc2.bias": 128 * 2,
			// 128 x 2^2 = 512 in, the text's 256 out.
			"model.connector.modality_projection.proj.weight": 512 * 256 * tc.el,
			"model.vision_model.post_layernorm.weight":        128 * 2,
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %s %d B, want %d", tc.name, k, got[k], w)
			}
		}
	}
}

// TestIdefics3Reads: the classes' defaults fill a vision_config that
// gives only its width, heads, patch and image (SmolVLMVisionConfig's 12
// layers and 3072 MLP) and a root without scale_factor (2); a text model
// vLLM would build as LlamaModel though it is not one, and a scale_factor
// that does not divide the patches a side, are errors naming the key.
func TestIdefics3Reads(t *testing.T) {
	data := corpusModel(t, "HuggingFaceTB__SmolVLM2-500M-Video-Instruct")
	base := string(data)
	tests := []struct {
		name, from, to string
		merge          uint64
		err            string
	}{
		{"published", "", "", 4, ""},
		{"no scale_factor", `"scale_factor": 4,`, ``, 2, ""},
		{"idefics3", `"model_type": "smolvlm",`, `"model_type": "idefics3",`, 4, ""},
		{"scale_factor 3", `"scale_factor": 4,`, `"scale_factor": 3,`, 0, "scale_factor: 3 does not divide the tower's 32 patches a side"},
		{"mistral text", `"model_type": "llama",`, `"model_type": "mistral",`, 0, `text_config.model_type: "mistral": vLLM builds smolvlm's language model as LlamaModel`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(base, tc.from, tc.to, 1)
			if doc == base && tc.from != "" {
				t.Fatalf("%q is not in the config", tc.from)
			}
			a, ok := parseWanting(t, doc, tc.err)
			if !ok {
				return
			}
			v := a.Vision
			if got, want := [4]uint64{v.Layers, v.Intermediate, v.SpatialMerge, v.OutHidden}, [4]uint64{12, 3072, tc.merge, 960}; got != want {
				t.Errorf("tower layers, MLP, scale factor, output %v, want %v", got, want)
			}
		})
	}
}

// llavaNextVideo7BHeader is llava-hf/LLaVA-NeXT-Video-7B-hf's safetensors
// header rebuilt from its config in transformers' LLaVA names: LLaVA-1.5's
// layout (a 32-layer, 4096-wide Llama of 32 KV heads and an 11,008 MLP,
// vocabulary 32,064; CLIP ViT-L/14-336 whole) with the image_newline its
// use_image_newline_parameter saves, 687 tensors. No published listing was
// found (see corpus/models/SOURCES.md).
func llavaNextVideo7BHeader() (string, []safetensors.Tensor) {
	return llavaHeader("llava-hf__LLaVA-NeXT-Video-7B-hf", 4096, 11008, true)
}

// TestLlavaNextVideo7BHeader: LLaVA-NeXT-Video's checkpoint read by
// llava_next_video's rules is what the config gives, whole and at TP2:
// LLaVA-1.5's text model and tower to vision_feature_layer -2 (23 of 24
// layers, no post_layernorm), the projector whole on every rank (nn.Linear)
// where LLaVA's splits, image_newline skipped (vLLM does not build it);
// CLIP's position_ids buffer 577 x 8 B and the linear rope's table 4096 x
// 2.5 = 10,240 rows x 128 in two bytes.
func TestLlavaNextVideo7BHeader(t *testing.T) {
	buffers := uint64(577*8 + 10240*128*2)
	text2 := uint64(32*((4*4096*4096+3*4096*11008)/2+2*4096) + 2*16032*4096 + 4096)
	layer2 := uint64((3*(1024*1024+1024)+1024*4096+4096)/2 + (1024*1024+4096*1024)/2 + 2*1024 + 4*1024)
	checkByHand(t, []byHandCase{{
		name: "LLaVA-NeXT-Video-7B-hf", fixture: llavaNextVideo7BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), (llava15Text+clipL336Embeddings+2*1024+23*clipL336Layer+llava15Projector)*2 + buffers, ""},
			{"TP2", tpRanks(2, 0), (text2+clipL336Embeddings+2*1024+23*layer2+llava15Projector)*2 + buffers, ""},
		},
	}})
	_, notes := attach(t, llavaNextVideo7BHeader)
	want := []SkippedTensors{{Reason: skipClipPostNorm, Count: 2}, {Reason: skipTowerLayer, Count: 16}, {Reason: skipVideoNewline, Count: 1}}
	if diff := cmp.Diff(want, notes.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// TestLlavaNextVideoReads: LlavaNextVideoConfig's -2 fills a config
// without vision_feature_layer; a list builds the tower to its deepest
// and keeps linear_1 at the tower's width; a SigLIP tower is refused by
// name.
func TestLlavaNextVideoReads(t *testing.T) {
	data := corpusModel(t, "llava-hf__LLaVA-NeXT-Video-7B-hf")
	base := string(data)
	tests := []struct {
		name, from, to string
		layers, projIn uint64
		err            string
	}{
		{"published", "", "", 23, 1024, ""},
		{"no vision_feature_layer", `,
  "vision_feature_layer": -2`, ``, 23, 1024, ""},
		{"a list", `"vision_feature_layer": -2`, `"vision_feature_layer": [-1, -5]`, 24, 1024, ""},
		{"SigLIP", `"model_type": "clip_vision_model"`, `"model_type": "siglip_vision_model"`, 0, 0,
			`vision_config.model_type: "siglip_vision_model": only a CLIP (clip_vision_model) tower`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(base, tc.from, tc.to, 1)
			if doc == base && tc.from != "" {
				t.Fatalf("%q is not in the config", tc.from)
			}
			a, ok := parseWanting(t, doc, tc.err)
			if !ok {
				return
			}
			if got, want := [2]uint64{a.Vision.Layers, a.Vision.ProjectorIn}, [2]uint64{tc.layers, tc.projIn}; got != want {
				t.Errorf("tower layers and projector input %v, want %v", got, want)
			}
		})
	}
}
