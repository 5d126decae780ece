package model

import (
	"fmt"
	"os"
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
	var n uint64
	for _, x := range ts {
		e := uint64(1)
		for _, d := range x.Shape {
			e *= d
		}
		n += e
	}
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

// llavaHeader is the header of a LLaVA checkpoint in float16 with a
// 32-layer, 4096-wide, vocab-32,064 Llama-style text model of kvRows K and
// V rows and an MLP of inter, and CLIP ViT-L/14-336 whole; newline adds
// LLaVA-NeXT's image_newline.
func llavaHeader(name string, kvRows, inter uint64, newline bool) (string, []safetensors.Tensor) {
	data, err := os.ReadFile("../corpus/models/" + name + ".json")
	if err != nil {
		panic(err)
	}
	f16 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F16", name, shape...) }
	ts := []safetensors.Tensor{f16("language_model.model.embed_tokens.weight", 32064, 4096), f16("language_model.model.norm.weight", 4096),
		f16("language_model.lm_head.weight", 32064, 4096)}
	for l := range 32 {
		p := fmt.Sprintf("language_model.model.layers.%d.", l)
		ts = append(ts, f16(p+"input_layernorm.weight", 4096), f16(p+"post_attention_layernorm.weight", 4096),
			f16(p+"self_attn.q_proj.weight", 4096, 4096), f16(p+"self_attn.k_proj.weight", kvRows, 4096),
			f16(p+"self_attn.v_proj.weight", kvRows, 4096), f16(p+"self_attn.o_proj.weight", 4096, 4096),
			f16(p+"mlp.gate_proj.weight", inter, 4096), f16(p+"mlp.up_proj.weight", inter, 4096), f16(p+"mlp.down_proj.weight", 4096, inter))
	}
	v := "vision_tower.vision_model."
	ts = append(ts, f16(v+"embeddings.class_embedding", 1024), f16(v+"embeddings.patch_embedding.weight", 1024, 3, 14, 14),
		f16(v+"embeddings.position_embedding.weight", 577, 1024), f16(v+"pre_layrnorm.weight", 1024), f16(v+"pre_layrnorm.bias", 1024),
		f16(v+"post_layernorm.weight", 1024), f16(v+"post_layernorm.bias", 1024))
	for l := range 24 {
		p := fmt.Sprintf("%sencoder.layers.%d.", v, l)
		for _, m := range []string{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.out_proj"} {
			ts = append(ts, f16(p+m+".weight", 1024, 1024), f16(p+m+".bias", 1024))
		}
		ts = append(ts, f16(p+"mlp.fc1.weight", 4096, 1024), f16(p+"mlp.fc1.bias", 4096), f16(p+"mlp.fc2.weight", 1024, 4096), f16(p+"mlp.fc2.bias", 1024),
			f16(p+"layer_norm1.weight", 1024), f16(p+"layer_norm1.bias", 1024), f16(p+"layer_norm2.weight", 1024), f16(p+"layer_norm2.bias", 1024))
	}
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
	var n uint64
	for _, x := range ts {
		e := uint64(1)
		for _, d := range x.Shape {
			e *= d
		}
		n += e
	}
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
			a, err := ParseConfig("x.json", []byte(doc))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one holding %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
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
		{"siglip tower", strings.Replace(llavaDoc(`"x": 1`), `"clip_vision_model"`, `"siglip_vision_model"`, 1),
			`vision_config.model_type: "siglip_vision_model": only a CLIP tower`},
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
