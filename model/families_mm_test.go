package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// The shapes of the multimodal wrappers' configs corpus/models ships,
// entered by hand from the files (see TestShippedConfigsParse).
func init() {
	for name, s := range map[string]shape{
		// text_config gives vocab 32064 and max_pos 4096; LlamaConfig's
		// defaults give 4096 hidden, 32 layers and 32 heads (KV heads
		// default to the heads), head_dim 4096 / 32; untied.
		"llava-hf__llava-1.5-7b-hf": {ModelType: "llava", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, Vocab: 32064,
			MaxPos: 4096, RotaryDim: 128, Vision: "clip", Dtype: "float16"},
		// text_config gives 8 KV heads, 14336, max_pos 32768 and
		// sliding_window null (no sliding layer); MistralConfig's defaults
		// give 4096 hidden, 32 layers and 32 heads.
		"llava-hf__llava-v1.6-mistral-7b-hf": {ModelType: "llava_next", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 32064,
			MaxPos: 32768, RotaryDim: 128, Vision: "clip", Dtype: "float16"},
		// The language model at the top (transformers 4.41's
		// Qwen2VLConfig); rope_scaling type mrope; use_sliding_window
		// false.
		"Qwen__Qwen2-VL-7B-Instruct": {ModelType: "qwen2_vl", Layers: 28, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, Vocab: 152064,
			MaxPos: 32768, RotaryDim: 128, Rope: "mrope", Vision: "qwen2_vl", Dtype: "bfloat16"},
		// llm_config is Qwen2.5-0.5B's shape (14 heads, 2 KV heads of 64,
		// dynamic rope x2), tie_word_embeddings left to Qwen2Config
		// (false); the InternViT-300M tower.
		"OpenGVLab__InternVL3-1B-Pretrained": {ModelType: "internvl_chat", Layers: 24, Hidden: 896, Heads: 14, KVHeads: 2, HeadDim: 64, Vocab: 151674,
			MaxPos: 32768, RotaryDim: 64, Rope: "dynamic", Vision: "intern_vit", Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// CLIP ViT-L/14 at 336 pixels (LLaVA-1.5's tower), counted by hand from
// clip.py at d18bb7b. The embeddings: class_embedding 1024, patch_embedding
// 1024 x 3 x 14 x 14 = 602,112 (no bias), position_embedding (336/14)^2 + 1
// = 577 rows x 1024 = 590,848: 1,193,984. pre_layrnorm and post_layernorm
// 2 x 1024 each. A layer: q, k, v and out_proj 4 x (1024 x 1024 + 1024) =
// 4,198,400; fc1 1024 x 4096 + 4096 = 4,198,400; fc2 4096 x 1024 + 1024 =
// 4,195,328; two LayerNorms 4096: 12,596,224.
const (
	clipL336Embeddings = 1024 + 1024*3*14*14 + 577*1024
	clipL336Layer      = 4*(1024*1024+1024) + (1024*4096 + 4096) + (4096*1024 + 1024) + 2*2*1024
)

// LLaVA-1.5-7B's language model (Llama 2 7B's shape, vocab 32064): a
// layer's q, k, v, o 4 x 4096^2 = 67,108,864, gate, up and down 3 x 4096 x
// 11,008 = 135,266,304, two norms 8192: 202,383,360; 32 of them
// 6,476,267,520; the embedding and the untied head 32,064 (a multiple of
// 64) x 4096 = 131,334,144 each; the norm 4096: 6,738,939,904. The
// projector: linear_1 1024 x 4096 + 4096, linear_2 4096 x 4096 + 4096 =
// 20,979,712.
const (
	llava15Text      = 32*(4*4096*4096+3*4096*11008+2*4096) + 2*32064*4096 + 4096
	llava15Projector = 1024*4096 + 4096 + 4096*4096 + 4096
)

// LLaVA-1.6-Mistral-7B's language model (Mistral 7B's shape, vocab
// 32064): a layer's q and o 2 x 4096^2 = 33,554,432, k and v 2 x 1024 x
// 4096 = 8,388,608, gate, up and down 3 x 4096 x 14,336 = 176,160,768, two
// norms 8192: 218,112,000; 32 of them 6,979,584,000; embedding and head
// 131,334,144 each; the norm 4096: 7,242,256,384. With the whole tower
// (303,507,456), the projector and image_newline (4096): 7,566,747,648.
// Qwen2-VL-7B-Instruct, counted from qwen2_vl.py at d18bb7b. The text
// model is Qwen2-7B's: a layer's q 3584 x 3584 + 3584, k and v 512 x 3584
// + 512 each, o 3584 x 3584, gate, up and down 3 x 3584 x 18,944, two
// norms 7168: 233,057,792; 28 of them; embedding and head 152,064 x 3584
// each; the norm 3584: 7,615,616,512. The tower (embed_dim 1280, MLP 4 x
// 1280 = 5120): patch_embed 1280 x 3 x 2 x 14 x 14 = 1,505,280; a block's
// two LayerNorms 4 x 1280, qkv 3840 x 1280 + 3840, proj 1280 x 1280 +
// 1280, fc1 5120 x 1280 + 5120, fc2 1280 x 5120 + 1280: 19,677,440; the
// merger's ln_q 2 x 1280, mlp.0 5120 x 5120 + 5120, mlp.2 3584 x 5120 +
// 3584: 44,575,744. 8,291,375,616 in all, the count the model card gives.
const (
	qwen2VL7BText   = 28*(3584*3584+3584+2*(512*3584+512)+3584*3584+3*3584*18944+2*3584) + 2*152064*3584 + 3584
	qwen2VL7BBlock  = 4*1280 + 3840*1280 + 3840 + 1280*1280 + 1280 + 5120*1280 + 5120 + 1280*5120 + 1280
	qwen2VL7BMerger = 2*1280 + 5120*5120 + 5120 + 3584*5120 + 3584
	qwen2VL7BVision = 1280*3*2*14*14 + 32*qwen2VL7BBlock + qwen2VL7BMerger
)

// InternVL3-1B, counted from internvl.py and intern_vit.py at d18bb7b.
// The text model (Qwen2.5-0.5B's shape, untied): a layer's q 896 x 896 +
// 896, k and v 128 x 896 + 128 each, o 896 x 896, gate, up and down 3 x
// 896 x 4864, two norms 1792: 14,912,384; 24 of them; embedding and head
// 151,674 rows (vLLM pads them to 151,680, a multiple of 64) x 896; the
// norm 896. The tower (InternViT-300M): class_embedding 1024,
// patch_embedding 1024 x 3 x 14 x 14 + 1024, position_embedding (448/14)^2
// + 1 = 1025 rows x 1024; a layer's qkv 3072 x 1024 + 3072, proj 1024 x
// 1024 + 1024, fc1 4096 x 1024 + 4096, fc2 1024 x 4096 + 1024, two
// LayerNorms 4 x 1024, ls1 and ls2 2 x 1024: 12,598,272. mlp1 (a 0.5
// downsample puts 4 patches side by side: 4096 wide): LayerNorm 2 x 4096,
// 896 x 4096 + 896, 896 x 896 + 896.
const (
	internVL3Layer  = 896*896 + 896 + 2*(128*896+128) + 896*896 + 3*896*4864 + 2*896
	internViTLayer  = 3072*1024 + 3072 + 1024*1024 + 1024 + 4096*1024 + 4096 + 1024*4096 + 1024 + 4*1024 + 2*1024
	internViTEmbeds = 1024 + 1024*3*14*14 + 1024 + 1025*1024
	internVL3MLP1   = 2*4096 + 896*4096 + 896 + 896*896 + 896
)

const llava16MistralText = 32*(2*4096*4096+2*1024*4096+3*4096*14336+2*4096) + 2*32064*4096 + 4096

// TestLlava15ParameterCount: the published checkpoint's parameters are the
// text model, the whole tower (24 layers and post_layernorm) and the
// projector: 7,063,427,072, which a LLaMA-Factory LoRA run on
// llava-hf/llava-1.5-7b-hf logs as 7,067,621,376 "all params" less its
// 4,194,304 trainable adapter parameters (see corpus/models/SOURCES.md).
// The fixture holds them all.
func TestLlava15ParameterCount(t *testing.T) {
	if got, want := uint64(llava15Text+clipL336Embeddings+2*1024+24*clipL336Layer+2*1024+llava15Projector), uint64(7067621376-4194304); got != want {
		t.Fatalf("by hand %d parameters, the log %d", got, want)
	}
	_, ts := llava15Header()
	n := fixtureParams(ts)
	if n != 7063427072 {
		t.Errorf("the fixture holds %d parameters, want 7,063,427,072", n)
	}
}

// TestMultimodalWeightsByHand: one real checkpoint of each multimodal
// family, whole on one rank in its dtype, counted from its config.json by
// hand as vLLM's module builds it.
func TestMultimodalWeightsByHand(t *testing.T) {
	tests := []struct {
		name string
		want uint64
	}{
		// llava-1.5-7b-hf (llava.py): the tower to vision_feature_layer -2
		// is 23 of its 24 layers, without post_layernorm
		// (require_post_norm=False); the int64 position_ids buffer 577 x 8
		// B; the Llama rotary table 4096 x 128 in float16.
		{"llava-hf__llava-1.5-7b-hf", (llava15Text+clipL336Embeddings+2*1024+23*clipL336Layer+llava15Projector)*2 + 577*8 + 4096*128*2},
		// llava-v1.6-mistral-7b-hf (llava_next.py): the same tower and
		// projector, image_newline 4096, the rotary table 32,768 x 128.
		{"llava-hf__llava-v1.6-mistral-7b-hf", (llava16MistralText+clipL336Embeddings+2*1024+23*clipL336Layer+llava15Projector+4096)*2 + 577*8 + 32768*128*2},
		// Qwen2-VL-7B-Instruct (qwen2_vl.py): every tower block built; the
		// mrope table 4 x 32,768 x 128 and the tower's 8192 x (1280/16)/2,
		// in bfloat16.
		{"Qwen__Qwen2-VL-7B-Instruct", (qwen2VL7BText+qwen2VL7BVision)*2 + 4*32768*128*2 + 8192*40*2},
		// InternVL3-1B-Pretrained (internvl.py): select_layer -1 builds
		// all 24 tower layers; the padded vocabulary; the dynamic-NTK rope
		// keeps max_position rows, 32,768 x 64.
		{"OpenGVLab__InternVL3-1B-Pretrained", (24*internVL3Layer+2*151680*896+896+internViTEmbeds+24*internViTLayer+internVL3MLP1)*2 + 32768*64*2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := shippedArch(t, tc.name)
			if got := sum(Weights(a, Whole(a, 1, 2, a.Quant))); got != tc.want {
				t.Errorf("weights %d B, want %d (by hand)", got, tc.want)
			}
		})
	}
}

// llava15Header is llava-hf/llava-1.5-7b-hf's safetensors header: the
// names, float16 dtype and shapes of its 686 tensors as transformers
// 4.41's LlavaForConditionalGeneration saves them (the language model
// under language_model., the CLIP tower whole under
// vision_tower.vision_model., the projector), with its config.json.
func llava15Header() (string, []safetensors.Tensor) {
	return llavaHeader("llava-hf__llava-1.5-7b-hf", 4096, 11008, false)
}

// parseWanting parses doc as x.json. Where wantErr is "" it fails the
// test on any error; otherwise it fails unless the parse fails with an
// error holding wantErr, and returns false: the case is done.
func parseWanting(t *testing.T, doc, wantErr string) (*Arch, bool) {
	t.Helper()
	a, err := ParseConfig("x.json", []byte(doc))
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("error %v, want one holding %q", err, wantErr)
		}
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return a, true
}

// llamaLayers is the layers of a Llama-style text model under prefix
// (LlamaDecoderLayer's names, Qwen2's and Gemma's alike): for each of
// layers, two norms of hidden, q_proj and o_proj of hidden x hidden, k_proj
// and v_proj of kvRows, each of q, k and v with a bias where qkvBias, and
// gate_proj, up_proj and down_proj of inter, in dtype.
func llamaLayers(dtype, prefix string, layers int, hidden, kvRows, inter uint64, qkvBias bool) []safetensors.Tensor {
	var ts []safetensors.Tensor
	for l := range layers {
		p := fmt.Sprintf("%s%d.", prefix, l)
		ts = append(ts, typed(dtype, p+"input_layernorm.weight", hidden), typed(dtype, p+"post_attention_layernorm.weight", hidden),
			typed(dtype, p+"self_attn.q_proj.weight", hidden, hidden), typed(dtype, p+"self_attn.k_proj.weight", kvRows, hidden),
			typed(dtype, p+"self_attn.v_proj.weight", kvRows, hidden), typed(dtype, p+"self_attn.o_proj.weight", hidden, hidden),
			typed(dtype, p+"mlp.gate_proj.weight", inter, hidden), typed(dtype, p+"mlp.up_proj.weight", inter, hidden),
			typed(dtype, p+"mlp.down_proj.weight", hidden, inter))
		if qkvBias {
			ts = append(ts, typed(dtype, p+"self_attn.q_proj.bias", hidden), typed(dtype, p+"self_attn.k_proj.bias", kvRows),
				typed(dtype, p+"self_attn.v_proj.bias", kvRows))
		}
	}
	return ts
}

// clipEncoderLayers is the layers of a CLIP or SigLIP vision tower under
// v (transformers' CLIPEncoderLayer and SiglipEncoderLayer name them
// alike): for each of layers, q, k, v and out_proj of width x width and
// fc1 and fc2 of width and mlp, each with its bias, and two LayerNorms of
// weight and bias, in dtype.
func clipEncoderLayers(dtype, v string, layers int, width, mlp uint64) []safetensors.Tensor {
	var ts []safetensors.Tensor
	for l := range layers {
		p := fmt.Sprintf("%sencoder.layers.%d.", v, l)
		for _, m := range []string{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.out_proj"} {
			ts = append(ts, typed(dtype, p+m+".weight", width, width), typed(dtype, p+m+".bias", width))
		}
		ts = append(ts, typed(dtype, p+"mlp.fc1.weight", mlp, width), typed(dtype, p+"mlp.fc1.bias", mlp),
			typed(dtype, p+"mlp.fc2.weight", width, mlp), typed(dtype, p+"mlp.fc2.bias", width),
			typed(dtype, p+"layer_norm1.weight", width), typed(dtype, p+"layer_norm1.bias", width),
			typed(dtype, p+"layer_norm2.weight", width), typed(dtype, p+"layer_norm2.bias", width))
	}
	return ts
}

// llavaHeader is the header of a LLaVA checkpoint in float16 with a
// 32-layer, 4096-wide, vocab-32,064 Llama-style text model of kvRows K and
// V rows and an MLP of inter, and CLIP ViT-L/14-336 whole; newline adds
// LLaVA-NeXT's image_newline.
func llavaHeader(name string, kvRows, inter uint64, newline bool) (string, []safetensors.Tensor) {
	data := mustCorpusModel(name)
	f16 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F16", name, shape...) }
	ts := []safetensors.Tensor{f16("language_model.model.embed_tokens.weight", 32064, 4096), f16("language_model.model.norm.weight", 4096),
		f16("language_model.lm_head.weight", 32064, 4096)}
	ts = append(ts, llamaLayers("F16", "language_model.model.layers.", 32, 4096, kvRows, inter, false)...)
	v := "vision_tower.vision_model."
	ts = append(ts, f16(v+"embeddings.class_embedding", 1024), f16(v+"embeddings.patch_embedding.weight", 1024, 3, 14, 14),
		f16(v+"embeddings.position_embedding.weight", 577, 1024), f16(v+"pre_layrnorm.weight", 1024), f16(v+"pre_layrnorm.bias", 1024),
		f16(v+"post_layernorm.weight", 1024), f16(v+"post_layernorm.bias", 1024))
	ts = append(ts, clipEncoderLayers("F16", v, 24, 1024, 4096)...)
	ts = append(ts, f16("multi_modal_projector.linear_1.weight", 4096, 1024), f16("multi_modal_projector.linear_1.bias", 4096),
		f16("multi_modal_projector.linear_2.weight", 4096, 4096), f16("multi_modal_projector.linear_2.bias", 4096))
	if newline {
		ts = append(ts, f16("image_newline", 4096))
	}
	return string(data), ts
}

// llava16MistralHeader is llava-hf/llava-v1.6-mistral-7b-hf's header,
// rebuilt from its config as transformers' LlavaNextForConditionalGeneration
// names it (no published listing was found; see corpus/models/SOURCES.md):
// 687 tensors, Mistral 7B's 8 KV heads (1024 rows) and 14,336-wide MLP.
func llava16MistralHeader() (string, []safetensors.Tensor) {
	return llavaHeader("llava-hf__llava-v1.6-mistral-7b-hf", 1024, 14336, true)
}

// TestLlava15Header: the checkpoint read by llava's rules is what the
// config gives, whole and split: vLLM drops the tower's layer 23 and its
// post_layernorm. At TP2 a rank holds half of every column- and
// row-parallel weight (and a column-parallel bias), the row-parallel biases
// and everything else whole; the text model's vocabulary rows are
// 32,064 / 2 = 16,032 a rank.
func TestLlava15Header(t *testing.T) {
	_, ts := llava15Header()
	if len(ts) != 686 {
		t.Fatalf("%d tensors, want 3 + 32 x 9 + 7 + 24 x 16 + 4 = 686", len(ts))
	}
	// TP2, by hand. The text model: a layer's attention and MLP halve
	// (202,375,168 / 2), its norms stay (8192); embedding and head 16,032 x
	// 4096 each; the norm 4096. The tower: the embeddings and
	// pre_layrnorm whole; a layer's qkv 3 x (1024 x 1024 + 1024) and fc1
	// (1024 x 4096 + 4096) halve, out_proj and fc2 halve their weights
	// and keep their biases (1024 each), the LayerNorms whole. The
	// projector: linear_1's weight and bias halve, linear_2's weight
	// halves and its bias stays.
	text2 := uint64(32*((4*4096*4096+3*4096*11008)/2+2*4096) + 2*16032*4096 + 4096)
	layer2 := uint64((3*(1024*1024+1024)+1024*4096+4096)/2 + (1024*1024+4096*1024)/2 + 2*1024 + 4*1024)
	proj2 := uint64((1024*4096+4096)/2 + 4096*4096/2 + 4096)
	tp2 := (text2+clipL336Embeddings+2*1024+23*layer2+proj2)*2 + 577*8 + 4096*128*2
	checkByHand(t, []byHandCase{{
		name: "llava-1.5-7b-hf", fixture: llava15Header,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), (llava15Text+clipL336Embeddings+2*1024+23*clipL336Layer+llava15Projector)*2 + 577*8 + 4096*128*2, ""},
			{"TP2", tpRanks(2, 0), tp2, ""},
		},
	}})
	_, notes := attach(t, llava15Header)
	want := []SkippedTensors{{Reason: skipClipPostNorm, Count: 2}, {Reason: skipTowerLayer, Count: 16}}
	if diff := cmp.Diff(want, notes.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// TestLlava16MistralHeader: LLaVA-NeXT's checkpoint read by llava_next's
// rules is what the config gives, whole and at TP2 (Mistral's 8 KV heads
// split 4 a rank; image_newline whole), with the same tower layer and
// post_layernorm dropped.
func TestLlava16MistralHeader(t *testing.T) {
	_, ts := llava16MistralHeader()
	if len(ts) != 687 {
		t.Fatalf("%d tensors, want 686 + image_newline", len(ts))
	}
	n := fixtureParams(ts)
	if want := uint64(llava16MistralText + clipL336Embeddings + 2*1024 + 24*clipL336Layer + 2*1024 + llava15Projector + 4096); n != want || n != 7566747648 {
		t.Errorf("the fixture holds %d parameters, by hand %d", n, want)
	}
	text2 := uint64(32*((2*4096*4096+2*1024*4096+3*4096*14336)/2+2*4096) + 2*16032*4096 + 4096)
	layer2 := uint64((3*(1024*1024+1024)+1024*4096+4096)/2 + (1024*1024+4096*1024)/2 + 2*1024 + 4*1024)
	proj2 := uint64((1024*4096+4096)/2 + 4096*4096/2 + 4096)
	checkByHand(t, []byHandCase{{
		name: "llava-v1.6-mistral-7b-hf", fixture: llava16MistralHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), (llava16MistralText+clipL336Embeddings+2*1024+23*clipL336Layer+llava15Projector+4096)*2 + 577*8 + 32768*128*2, ""},
			{"TP2", tpRanks(2, 0), (text2+clipL336Embeddings+2*1024+23*layer2+proj2+4096)*2 + 577*8 + 32768*128*2, ""},
		},
	}})
}

// TestLlavaNextFeatureLayerList: LLaVA-NeXT concatenates the features of a
// list of layers, so its projector's linear_1 takes hidden x their count
// (llava_next.py:256-262); LLaVA's keeps the tower's width (llava.py:567-
// 569). Both build the tower to the deepest.
func TestLlavaNextFeatureLayerList(t *testing.T) {
	for _, tc := range []struct {
		modelType     string
		built, projIn uint64
	}{
		{"llava", 23, 128},
		{"llava_next", 23, 4 * 128},
	} {
		doc := strings.Replace(llavaDoc(`"vision_feature_layer": [-24, -20, -12, -2]`), `"llava"`, `"`+tc.modelType+`"`, 1)
		a, err := ParseConfig("x.json", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		got := [3]any{a.Vision.Layers, a.Vision.ProjectorIn, a.Vision.ImageNewline}
		if want := [3]any{tc.built, tc.projIn, tc.modelType == "llava_next"}; got != want {
			t.Errorf("%s: layers, projector input, newline %v, want %v", tc.modelType, got, want)
		}
	}
}

// TestLlavaCheckpointNamesAfter452: a checkpoint saved by transformers
// 4.52 or later (model.language_model., model.vision_tower.,
// model.multi_modal_projector., lm_head.), holding the position_ids buffer
// an older CLIP saved, reads as the published one.
func TestLlavaCheckpointNamesAfter452(t *testing.T) {
	config, old := llava15Header()
	var renamed []safetensors.Tensor
	for _, x := range old {
		n := x.Name
		switch {
		case strings.HasPrefix(n, "language_model.model."):
			n = "model.language_model." + strings.TrimPrefix(n, "language_model.model.")
		case strings.HasPrefix(n, "language_model.lm_head."):
			n = strings.TrimPrefix(n, "language_model.")
		default:
			n = "model." + n
		}
		x.Name = n
		renamed = append(renamed, x)
	}
	renamed = append(renamed, typed("I64", "model.vision_tower.vision_model.embeddings.position_ids", 1, 577))
	a, _ := attachTensors(t, config, old)
	b, notes := attachTensors(t, config, renamed)
	if len(notes.Unknown) > 0 {
		t.Errorf("tensors no rule names: %v", notes.Unknown)
	}
	for _, tp := range []uint64{1, 2, 4} {
		if x, y := sum(CheckpointWeights(a, Whole(a, tp, 2, a.Quant))), sum(CheckpointWeights(b, Whole(b, tp, 2, b.Quant))); x != y {
			t.Errorf("TP%d: published names %d B, 4.52 names %d B", tp, x, y)
		}
	}
	want := []SkippedTensors{{Reason: skipClipPostNorm, Count: 2}, {Reason: skipTowerLayer, Count: 16}, {Reason: skipClipPositionIDs, Count: 1}}
	if diff := cmp.Diff(want, notes.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// TestLlavaFeatureLayers: vLLM builds the CLIP layers up to the deepest
// vision_feature_layer (-k is layer layers + 1 - k); an index that selects
// no layer is an error naming the key.
func TestLlavaFeatureLayers(t *testing.T) {
	tests := []struct {
		feature string
		layers  uint64
		err     string
	}{
		{"-2", 23, ""},                   // 24 + 1 - 2
		{"-1", 24, ""},                   // every layer
		{"-24", 1, ""},                   // the first layer's output
		{"12", 12, ""},                   // a positive index is the count
		{"[-2, -5, -8, -11, 6]", 23, ""}, // the deepest of a list
		{"-25", 0, "vision_feature_layer: -25 selects no layer of the 24 vision layers"},
		{"0", 0, "vision_feature_layer: 0 selects no layer"},
		{"25", 0, "vision_feature_layer: 25 selects no layer"},
		{`"last"`, 0, "vision_feature_layer: must be an integer or a non-empty list of integers"},
		{"[]", 0, "vision_feature_layer: must be an integer or a non-empty list"},
	}
	for _, tc := range tests {
		t.Run(tc.feature, func(t *testing.T) {
			doc := llavaDoc(`"vision_feature_layer": ` + tc.feature)
			a, ok := parseWanting(t, doc, tc.err)
			if !ok {
				return
			}
			if a.Vision.Layers != tc.layers {
				t.Errorf("%d tower layers built, want %d", a.Vision.Layers, tc.layers)
			}
		})
	}
}

// llavaDoc is a small LLaVA config with extra root keys.
func llavaDoc(extra string) string {
	return `{"model_type": "llava", "torch_dtype": "bfloat16", ` + extra + `,
 "text_config": {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 1000},
 "vision_config": {"model_type": "clip_vision_model", "hidden_size": 128, "intermediate_size": 256, "num_hidden_layers": 24, "num_attention_heads": 4,
  "image_size": 224, "patch_size": 14}}`
}

// TestLlavaRefuses: a tower or text model the llava family does not build
// is an error naming its key, never a guess.
func TestLlavaRefuses(t *testing.T) {
	tests := []struct{ name, doc, err string }{
		{"idefics3 tower", strings.Replace(llavaDoc(`"x": 1`), `"clip_vision_model"`, `"idefics3_vision"`, 1),
			`vision_config.model_type: "idefics3_vision": only a CLIP (clip_vision_model), SigLIP (siglip_vision_model) or Pixtral (pixtral) tower`},
		{"gemma text", strings.Replace(llavaDoc(`"x": 1`), `"model_type": "llama"`, `"model_type": "gemma"`, 1),
			`text_config.model_type: "gemma" is not a text model membudget sizes under llava`},
		{"no tower", `{"model_type": "llava", "text_config": {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4}}`,
			"vision_config: missing (required for model_type llava)"},
		{"no text", `{"model_type": "llava", "vision_config": {}}`, "text_config: missing (required for model_type llava)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig("x.json", []byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one holding %q", err, tc.err)
			}
		})
	}
}

// qwen2VL7BHeader is Qwen/Qwen2-VL-7B-Instruct's safetensors header
// rebuilt from its config in the names its checkpoint uses (the language
// model under model., the tower under visual., q, k and v separate in the
// text model and fused in the tower): 730 bfloat16 tensors, 8,291,375,616
// parameters, the count its model card gives (no published listing was
// found; see corpus/models/SOURCES.md).
func qwen2VL7BHeader() (string, []safetensors.Tensor) {
	data := mustCorpusModel("Qwen__Qwen2-VL-7B-Instruct")
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 152064, 3584), bf16("model.norm.weight", 3584), bf16("lm_head.weight", 152064, 3584)}
	ts = append(ts, llamaLayers("BF16", "model.layers.", 28, 3584, 512, 18944, true)...)
	ts = append(ts, bf16("visual.patch_embed.proj.weight", 1280, 3, 2, 14, 14))
	for l := range 32 {
		p := fmt.Sprintf("visual.blocks.%d.", l)
		ts = append(ts, bf16(p+"norm1.weight", 1280), bf16(p+"norm1.bias", 1280), bf16(p+"norm2.weight", 1280), bf16(p+"norm2.bias", 1280),
			bf16(p+"attn.qkv.weight", 3840, 1280), bf16(p+"attn.qkv.bias", 3840), bf16(p+"attn.proj.weight", 1280, 1280), bf16(p+"attn.proj.bias", 1280),
			bf16(p+"mlp.fc1.weight", 5120, 1280), bf16(p+"mlp.fc1.bias", 5120), bf16(p+"mlp.fc2.weight", 1280, 5120), bf16(p+"mlp.fc2.bias", 1280))
	}
	ts = append(ts, bf16("visual.merger.ln_q.weight", 1280), bf16("visual.merger.ln_q.bias", 1280),
		bf16("visual.merger.mlp.0.weight", 5120, 5120), bf16("visual.merger.mlp.0.bias", 5120),
		bf16("visual.merger.mlp.2.weight", 3584, 5120), bf16("visual.merger.mlp.2.bias", 3584))
	return string(data), ts
}

// TestQwen2VL7BHeader: Qwen2-VL's checkpoint read by qwen2_vl's rules is
// what the config gives, whole and at TP2 (28 heads and 4 KV heads split
// 14 and 2 a rank; the tower's 16 heads 8), in the published names and in
// transformers 4.52's (model.language_model., model.visual.).
func TestQwen2VL7BHeader(t *testing.T) {
	_, ts := qwen2VL7BHeader()
	if len(ts) != 730 {
		t.Fatalf("%d tensors, want 3 + 28 x 12 + 1 + 32 x 12 + 6 = 730", len(ts))
	}
	n := fixtureParams(ts)
	if want := uint64(qwen2VL7BText + qwen2VL7BVision); n != want || n != 8291375616 {
		t.Errorf("the fixture holds %d parameters, by hand %d", n, want)
	}
	// TP2: the text model's q, k, v (and biases), o and MLP halve, its
	// norms stay, the vocabulary is 76,032 rows a rank; the tower's patch
	// embedding and LayerNorms stay, qkv and fc1 (weights and biases)
	// halve, proj and fc2 halve their weights and keep their biases; the
	// merger's mlp.0 halves, mlp.2 halves its weight and keeps its bias.
	text2 := uint64(28*((3584*3584+3584+2*(512*3584+512)+3584*3584+3*3584*18944)/2+2*3584) + 2*76032*3584 + 3584)
	block2 := uint64(4*1280 + (3840*1280+3840)/2 + 1280*1280/2 + 1280 + (5120*1280+5120)/2 + 1280*5120/2 + 1280)
	merger2 := uint64(2*1280 + (5120*5120+5120)/2 + 3584*5120/2 + 3584)
	tables := uint64(4*32768*128*2 + 8192*40*2)
	checkByHand(t, []byHandCase{{
		name: "Qwen2-VL-7B-Instruct", fixture: qwen2VL7BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), (qwen2VL7BText+qwen2VL7BVision)*2 + tables, ""},
			{"TP2", tpRanks(2, 0), (text2+1280*3*2*14*14+32*block2+merger2)*2 + tables, ""},
		},
	}})
	config, published := qwen2VL7BHeader()
	var renamed []safetensors.Tensor
	for _, x := range published {
		switch {
		case strings.HasPrefix(x.Name, "model."):
			x.Name = "model.language_model." + strings.TrimPrefix(x.Name, "model.")
		case strings.HasPrefix(x.Name, "visual."):
			x.Name = "model." + x.Name
		}
		renamed = append(renamed, x)
	}
	a, _ := attachTensors(t, config, published)
	b, notes := attachTensors(t, config, renamed)
	if len(notes.Unknown) > 0 {
		t.Errorf("4.52 names no rule names: %v", notes.Unknown)
	}
	for _, tp := range []uint64{1, 2, 4} {
		if x, y := sum(CheckpointWeights(a, Whole(a, tp, 2, a.Quant))), sum(CheckpointWeights(b, Whole(b, tp, 2, b.Quant))); x != y {
			t.Errorf("TP%d: published names %d B, 4.52 names %d B", tp, x, y)
		}
	}
}

// TestQwen2VLTextConfig: a Qwen2-VL config as later transformers save it,
// the language model under text_config, reads as the flat one; a
// vision_config without mlp_ratio takes Qwen2VLVisionConfig's 4, and a
// bad one is an error naming it.
func TestQwen2VLTextConfig(t *testing.T) {
	body := `"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000`
	vision := `"vision_config": {"depth": 2, "embed_dim": 64, "num_heads": 4, "hidden_size": 256%s}`
	flat, err := ParseConfig("x.json", []byte(`{"model_type": "qwen2_vl", "torch_dtype": "bfloat16", `+body+`, `+fmt.Sprintf(vision, `, "mlp_ratio": 4`)+`}`))
	if err != nil {
		t.Fatal(err)
	}
	nested, err := ParseConfig("x.json", []byte(`{"model_type": "qwen2_vl", "torch_dtype": "bfloat16", "text_config": {`+body+`}, `+fmt.Sprintf(vision, "")+`}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(shapeOf(flat), shapeOf(nested)); diff != "" {
		t.Errorf("(-flat +nested):\n%s", diff)
	}
	// 64 x 4 = 256.
	if flat.Vision.Intermediate != 256 || nested.Vision.Intermediate != 256 {
		t.Errorf("tower MLP %d and %d, want 256", flat.Vision.Intermediate, nested.Vision.Intermediate)
	}
	// 1.5 x 64 = 96; 2.7 x 64 = 172.8, truncated to 172 (qwen2_vl.py:409).
	for ratio, want := range map[string]uint64{"1.5": 96, "2.7": 172} {
		a, err := ParseConfig("x.json", []byte(`{"model_type": "qwen2_vl", `+body+`, `+fmt.Sprintf(vision, `, "mlp_ratio": `+ratio)+`}`))
		if err != nil || a.Vision.Intermediate != want {
			t.Errorf("mlp_ratio %s: %v, want a tower MLP of %d", ratio, err, want)
		}
	}
	_, err = ParseConfig("x.json", []byte(`{"model_type": "qwen2_vl", `+body+`, `+fmt.Sprintf(vision, `, "mlp_ratio": -1`)+`}`))
	if err == nil || !strings.Contains(err.Error(), "vision_config.mlp_ratio: must be a number in (0, 64]") {
		t.Errorf("mlp_ratio -1: %v", err)
	}
}

// internVL3Header is OpenGVLab/InternVL3-1B-Pretrained's safetensors
// header rebuilt from its config and the module tree transformers prints
// for it (see corpus/models/SOURCES.md): the language model under
// language_model., InternViT under vision_model. (its nn.Parameters
// class_embedding, position_embedding [1, 1025, 1024], ls1 and ls2
// beside the modules), mlp1's LayerNorm and Linears at 0, 1 and 3; 637
// bfloat16 tensors.
func internVL3Header() (string, []safetensors.Tensor) {
	data := mustCorpusModel("OpenGVLab__InternVL3-1B-Pretrained")
	ts := []safetensors.Tensor{bf16("language_model.model.embed_tokens.weight", 151674, 896), bf16("language_model.model.norm.weight", 896),
		bf16("language_model.lm_head.weight", 151674, 896)}
	ts = append(ts, llamaLayers("BF16", "language_model.model.layers.", 24, 896, 128, 4864, true)...)
	v := "vision_model."
	ts = append(ts, bf16(v+"embeddings.class_embedding", 1, 1, 1024), bf16(v+"embeddings.patch_embedding.weight", 1024, 3, 14, 14),
		bf16(v+"embeddings.patch_embedding.bias", 1024), bf16(v+"embeddings.position_embedding", 1, 1025, 1024))
	for l := range 24 {
		p := fmt.Sprintf("%sencoder.layers.%d.", v, l)
		ts = append(ts, bf16(p+"attn.qkv.weight", 3072, 1024), bf16(p+"attn.qkv.bias", 3072), bf16(p+"attn.proj.weight", 1024, 1024),
			bf16(p+"attn.proj.bias", 1024), bf16(p+"mlp.fc1.weight", 4096, 1024), bf16(p+"mlp.fc1.bias", 4096),
			bf16(p+"mlp.fc2.weight", 1024, 4096), bf16(p+"mlp.fc2.bias", 1024), bf16(p+"norm1.weight", 1024), bf16(p+"norm1.bias", 1024),
			bf16(p+"norm2.weight", 1024), bf16(p+"norm2.bias", 1024), bf16(p+"ls1", 1024), bf16(p+"ls2", 1024))
	}
	ts = append(ts, bf16("mlp1.0.weight", 4096), bf16("mlp1.0.bias", 4096), bf16("mlp1.1.weight", 896, 4096), bf16("mlp1.1.bias", 896),
		bf16("mlp1.3.weight", 896, 896), bf16("mlp1.3.bias", 896))
	return string(data), ts
}

// TestInternVL3Header: InternVL's checkpoint read by internvl_chat's rules
// is what the config gives, whole and at TP2: the text model's 14 heads
// and 2 KV heads split 7 and 1 a rank, its vocabulary 151,680 / 2 =
// 75,840 rows; the tower's qkv and fc1 halve with their biases, proj and
// fc2 halve their weights and keep their biases, the embeddings, norms
// and layer scales stay; mlp1 stays whole.
func TestInternVL3Header(t *testing.T) {
	_, ts := internVL3Header()
	if len(ts) != 637 {
		t.Fatalf("%d tensors, want 3 + 24 x 12 + 4 + 24 x 14 + 6 = 637", len(ts))
	}
	text2 := uint64(24*((896*896+896+2*(128*896+128)+896*896+3*896*4864)/2+2*896) + 2*75840*896 + 896)
	layer2 := uint64((3072*1024+3072+4096*1024+4096)/2 + (1024*1024+1024*4096)/2 + 2*1024 + 4*1024 + 2*1024)
	checkByHand(t, []byHandCase{{
		name: "InternVL3-1B-Pretrained", fixture: internVL3Header,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), (24*internVL3Layer+2*151680*896+896+internViTEmbeds+24*internViTLayer+internVL3MLP1)*2 + 32768*64*2, ""},
			{"TP2", tpRanks(2, 0), (text2+internViTEmbeds+24*layer2+internVL3MLP1)*2 + 32768*64*2, ""},
		},
	}})
}

// TestInternVLReads: select_layer builds the tower to it (-k: layers + 1 -
// k; k >= 0: k + 1, internvl.py:628-634); InternViT-6B's towers, an
// InternLM2 language model and keys the remote classes would give are
// errors naming them.
func TestInternVLReads(t *testing.T) {
	data := corpusModel(t, "OpenGVLab__InternVL3-1B-Pretrained")
	base := string(data)
	tests := []struct {
		name, from, to string
		layers         uint64
		err            string
	}{
		{"select_layer -1", "", "", 24, ""},
		{"select_layer -4", `"select_layer": -1`, `"select_layer": -4`, 21, ""},
		{"select_layer 5", `"select_layer": -1`, `"select_layer": 5`, 6, ""},
		{"select_layer -25", `"select_layer": -1`, `"select_layer": -25`, 0, "select_layer: -25 selects no layer of the 24 vision layers"},
		{"select_layer 24", `"select_layer": -1`, `"select_layer": 24`, 0, "select_layer: 24 selects no layer"},
		{"no select_layer", `"select_layer": -1,`, ``, 0, "select_layer: missing (required)"},
		{"InternViT-6B", `"qk_normalization": false`, `"qk_normalization": true`, 0, "vision_config.qk_normalization: true: InternViT-6B"},
		{"rms_norm", `"norm_type": "layer_norm"`, `"norm_type": "rms_norm"`, 0, `vision_config.norm_type: "rms_norm"`},
		{"InternLM2", `"model_type": "qwen2"`, `"model_type": "internlm2"`, 0, `llm_config.model_type: "internlm2" is not a text model membudget sizes under internvl_chat`},
		{"no downsample_ratio", `"downsample_ratio": 0.5,`, ``, 0, "downsample_ratio: missing (required)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(base, tc.from, tc.to, 1)
			a, ok := parseWanting(t, doc, tc.err)
			if !ok {
				return
			}
			if a.Vision.Layers != tc.layers {
				t.Errorf("%d tower layers, want %d", a.Vision.Layers, tc.layers)
			}
		})
	}
}

// TestInternViTAttentionWholeWhenHeadsDoNotDivide: vLLM runs InternViT's
// attention unsplit when its heads do not divide the ranks
// (intern_vit.py:169-177) and splits its MLP as usual: with 8 heads at
// TP16 a layer holds qkv and proj whole (3072 x 1024 + 3072 and 1024 x
// 1024 + 1024) and a sixteenth of fc1 (4096 x 1024 / 16 and 4096 / 16).
func TestInternViTAttentionWholeWhenHeadsDoNotDivide(t *testing.T) {
	data := corpusModel(t, "OpenGVLab__InternVL3-1B-Pretrained")
	doc := strings.Replace(string(data), `"num_attention_heads": 16`, `"num_attention_heads": 8`, 1)
	a, err := ParseConfig("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, it := range Weights(a, Whole(a, 16, 2, a.Quant)) {
		if k, ok := strings.CutPrefix(it.Name, "vision_model.encoder.layers.0."); ok {
			got[k] = it.Bytes
		}
	}
	want := map[string]uint64{
		"attn.qkv.weight": 3072 * 1024 * 2, "attn.qkv.bias": 3072 * 2, "attn.proj.weight": 1024 * 1024 * 2, "attn.proj.bias": 1024 * 2,
		"mlp.fc1.weight": 4096 * 1024 / 16 * 2, "mlp.fc1.bias": 4096 / 16 * 2,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %d B, want %d", k, got[k], w)
		}
	}
}

// TestLlavaSiglipTower: a LLaVA wrapper with SigLIP-so400m (1152 wide,
// 4304 MLP, 27 layers, 384 px in 14 px patches: 27^2 = 729 positions),
// every layer built (vision_feature_layer -1), counted from siglip.py at
// d18bb7b: patch_embedding 1152 x 3 x 14 x 14 + 1152, position_embedding
// 729 x 1152 and the int64 position_ids 729 x 8 B; a layer's q, k, v and
// out_proj 4 x (1152 x 1152 + 1152), fc1 1152 x 4304 + 4304, fc2 4304 x
// 1152 + 1152, two LayerNorms 4 x 1152: 15,239,504; no post_layernorm, no
// head. Under fp8 its MLP stays in bf16 (4304 is no multiple of 64) while
// its attention is fp8.
func TestLlavaSiglipTower(t *testing.T) {
	doc := `{"model_type": "llava", "torch_dtype": "bfloat16", "vision_feature_layer": -1,
 "text_config": {"model_type": "qwen2", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1024},
 "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "intermediate_size": 4304, "num_hidden_layers": 27, "num_attention_heads": 16,
  "image_size": 384, "patch_size": 14}%s}`
	a, err := ParseConfig("x.json", []byte(fmt.Sprintf(doc, "")))
	if err != nil {
		t.Fatal(err)
	}
	if a.Vision.Kind != "llava_siglip" || a.Vision.Layers != 27 {
		t.Fatalf("tower %s of %d layers, want llava_siglip of 27", a.Vision.Kind, a.Vision.Layers)
	}
	items := Weights(a, Whole(a, 1, 2, a.Quant))
	tower := uint64(1152*3*14*14+1152+729*1152+27*15239504)*2 + 729*8
	if got := sumItems(items, "vision_tower."); got != tower {
		t.Errorf("tower %d B, want %d", got, tower)
	}
	// The projector: 1152 x 256 + 256 and 256 x 256 + 256, biased
	// (LlavaConfig's default).
	if got, want := sumItems(items, "multi_modal_projector."), uint64(1152*256+256+256*256+256)*2; got != want {
		t.Errorf("projector %d B, want %d", got, want)
	}
	q, err := ParseConfig("x.json", []byte(fmt.Sprintf(doc, `, "quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic"}`)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, it := range Weights(q, Whole(q, 1, 2, q.Quant)) {
		if k, ok := strings.CutPrefix(it.Name, "vision_tower.vision_model.encoder.layers.0."); ok {
			got[k] = it.Bytes
		}
	}
	if got["mlp.fc1.weight"] != 1152*4304*2 || got["self_attn.qkv_proj.weight"] != 3*1152*1152 {
		t.Errorf("under fp8: fc1 %d B (want bf16, %d), qkv_proj %d B (want fp8, %d)", got["mlp.fc1.weight"], 1152*4304*2,
			got["self_attn.qkv_proj.weight"], 3*1152*1152)
	}
}

// TestLlavaPixtralTower: mistral-community/pixtral-12b's shape, LLaVA
// around Pixtral's tower (1024 wide, 4096 MLP, 16 heads, 24 layers, 1024
// px in 16 px patches) with vision_feature_layer -1, counted from
// pixtral.py at d18bb7b: patch_conv 1024 x 3 x 16 x 16 (no bias),
// ln_pre 1024; a layer's q, k, v and o 4 x 1024 x 1024, gate, up and
// down 3 x 1024 x 4096, two RMSNorms 2 x 1024: 16,779,264; the 2D rope's
// float32 table (1024/16)^2 x 64 x 4 B; no patch merger. The projector,
// LLaVA's: 1024 x 512 + 512 and 512 x 512 + 512.
func TestLlavaPixtralTower(t *testing.T) {
	doc := `{"model_type": "llava", "torch_dtype": "bfloat16", "vision_feature_layer": -1,
 "text_config": {"model_type": "mistral", "hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 2, "num_attention_heads": 4,
  "num_key_value_heads": 2, "vocab_size": 1024, "sliding_window": null},
 "vision_config": {"model_type": "pixtral", "hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 24, "num_attention_heads": 16,
  "image_size": 1024, "patch_size": 16, "head_dim": 64}}`
	a, err := ParseConfig("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	items := Weights(a, Whole(a, 1, 2, a.Quant))
	layer := uint64(4*1024*1024 + 3*1024*4096 + 2*1024)
	if got, want := sumItems(items, "vision_tower."), (1024*3*16*16+1024+24*layer)*2; got != want {
		t.Errorf("tower %d B, want %d", got, want)
	}
	if got, want := sumItems(items, "rotary_emb.vision_tower."), uint64(64*64*64*4); got != want {
		t.Errorf("2D rope table %d B, want %d", got, want)
	}
	if got, want := sumItems(items, "multi_modal_projector."), uint64(1024*512+512+512*512+512)*2; got != want {
		t.Errorf("projector %d B, want %d (LLaVA's two layers, no patch merger)", got, want)
	}
}

// fixtureParams is the number of parameters a fixture's tensors hold: the
// product of each shape, summed.
func fixtureParams(ts []safetensors.Tensor) uint64 {
	var n uint64
	for _, x := range ts {
		e := uint64(1)
		for _, d := range x.Shape {
			e *= d
		}
		n += e
	}
	return n
}
