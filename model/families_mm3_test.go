package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// The shapes of the multimodal configs of issue 23's third batch, entered
// by hand from the files (see TestShippedConfigsParse).
func init() {
	for name, s := range map[string]shape{
		// text_config is GLM-4.5-Air's shape: 46 layers of 96 heads and 8
		// KV heads of head_dim 128, max_pos 65536, vocabulary 151,552,
		// untied; MoE from first_k_dense_replace 1 on (45 layers) of 128
		// experts, top 8, moe_intermediate 1408, one shared expert of the
		// same width; half of each head rotary (64), rope_type default
		// with an mrope_section; no MTP layer (no
		// num_nextn_predict_layers); the root's dtype bfloat16. The KV
		// layout is vLLM's FullAttentionSpec on every layer
		// (Glm4MoeAttention, glm4_moe.py:222-320): 2 x 8 x 128 values a
		// token a layer.
		"zai-org__GLM-4.5V": {ModelType: "glm4v_moe", Layers: 46, Hidden: 4096, Heads: 96, KVHeads: 8, HeadDim: 128,
			Vocab: 151552, MaxPos: 65536, MoELayers: 45, Experts: 128, TopK: 8, MoEInter: 1408, SharedInter: 1408,
			RotaryDim: 64, Rope: "default", Vision: "glm4v", Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// glm45VHeader is zai-org/GLM-4.5V's safetensors header as its published
// listing gives it (18,106 tensors in 46 shards, bfloat16 but the float32
// routing biases; see corpus/models/SOURCES.md), with the config.
func glm45VHeader() (string, []safetensors.Tensor) {
	data := mustCorpusModel("zai-org__GLM-4.5V")
	lm := "model.language_model."
	ts := []safetensors.Tensor{bf16("lm_head.weight", 151552, 4096), bf16(lm+"embed_tokens.weight", 151552, 4096), bf16(lm+"norm.weight", 4096)}
	for l := range 46 {
		p := fmt.Sprintf("%slayers.%d.", lm, l)
		ts = append(ts, bf16(p+"input_layernorm.weight", 4096), bf16(p+"post_attention_layernorm.weight", 4096),
			bf16(p+"self_attn.k_proj.bias", 1024), bf16(p+"self_attn.k_proj.weight", 1024, 4096), bf16(p+"self_attn.o_proj.weight", 4096, 12288),
			bf16(p+"self_attn.q_proj.bias", 12288), bf16(p+"self_attn.q_proj.weight", 12288, 4096),
			bf16(p+"self_attn.v_proj.bias", 1024), bf16(p+"self_attn.v_proj.weight", 1024, 4096))
		if l == 0 {
			ts = append(ts, bf16(p+"mlp.down_proj.weight", 4096, 10944), bf16(p+"mlp.gate_proj.weight", 10944, 4096), bf16(p+"mlp.up_proj.weight", 10944, 4096))
			continue
		}
		for e := range 128 {
			q := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(q+"down_proj.weight", 4096, 1408), bf16(q+"gate_proj.weight", 1408, 4096), bf16(q+"up_proj.weight", 1408, 4096))
		}
		ts = append(ts, typed("F32", p+"mlp.gate.e_score_correction_bias", 128), bf16(p+"mlp.gate.weight", 128, 4096),
			bf16(p+"mlp.shared_experts.down_proj.weight", 4096, 1408), bf16(p+"mlp.shared_experts.gate_proj.weight", 1408, 4096),
			bf16(p+"mlp.shared_experts.up_proj.weight", 1408, 4096))
	}
	v := "model.visual."
	for b := range 24 {
		p := fmt.Sprintf("%sblocks.%d.", v, b)
		ts = append(ts, bf16(p+"attn.proj.weight", 1536, 1536), bf16(p+"attn.qkv.weight", 4608, 1536),
			bf16(p+"mlp.down_proj.weight", 1536, 4096), bf16(p+"mlp.gate_proj.weight", 4096, 1536), bf16(p+"mlp.up_proj.weight", 4096, 1536),
			bf16(p+"norm1.weight", 1536), bf16(p+"norm2.weight", 1536))
	}
	ts = append(ts, bf16(v+"downsample.bias", 4096), bf16(v+"downsample.weight", 4096, 1536, 2, 2),
		bf16(v+"embeddings.position_embedding.weight", 576, 1536),
		bf16(v+"merger.down_proj.weight", 4096, 10944), bf16(v+"merger.gate_proj.weight", 10944, 4096),
		bf16(v+"merger.post_projection_norm.bias", 4096), bf16(v+"merger.post_projection_norm.weight", 4096),
		bf16(v+"merger.proj.weight", 4096, 4096), bf16(v+"merger.up_proj.weight", 10944, 4096),
		bf16(v+"patch_embed.proj.bias", 1536), bf16(v+"patch_embed.proj.weight", 1536, 3, 2, 14, 14),
		bf16(v+"post_conv_layernorm.weight", 1536), bf16(v+"post_layernorm.weight", 1536))
	return string(data), ts
}

// GLM-4.5V at TP4, counted by hand from glm4_1v.py and glm4_moe.py at
// d18bb7b, in parameters of one rank. A layer's attention: q 12,288 /
// 4 = 3072 rows of 4096 and its bias, k and v 2 of the 8 KV heads (256
// rows) each with their biases, o 4096 x 3072, two norms. The dense layer
// 0's MLP: 3 x 4096 x 10,944 / 4. A MoE layer: 128 experts of 3 x 4096 x
// 1408 / 4 = 352, the shared expert likewise; the router (128 x 4096) and
// its bias (128) whole, in float32, counted apart. Embedding and head
// 151,552 / 4 = 37,888 rows each; the norm. The tower: patch_embed 1536 x
// 3 x 2 x 14 x 14 + 1536 and the position table 576 x 1536 whole; a block:
// two norms, qkv 4608 / 4 rows, proj 1536 x 384, gate_up 8192 / 4 rows,
// down 1536 x 1024; post_conv_layernorm and post_layernorm; downsample
// 4096 x 1536 x 2 x 2 + 4096 whole; the merger's proj 1024 rows of 4096,
// post_projection_norm 2 x 4096, gate_up 21,888 / 4 = 5472 rows, down
// 4096 x 2736.
const (
	glm45VAttn4     = 3072*4096 + 3072 + 2*(256*4096+256) + 4096*3072 + 2*4096
	glm45VDense4    = 3 * 4096 * 2736
	glm45VMoE4      = 128*3*4096*352 + 3*4096*352
	glm45VText4     = 46*glm45VAttn4 + glm45VDense4 + 45*glm45VMoE4 + 2*37888*4096 + 4096
	glm45VBlock4    = 2*1536 + 1152*1536 + 1536*384 + 2048*1536 + 1536*1024
	glm45VTower4    = 1536*3*2*14*14 + 1536 + 576*1536 + 24*glm45VBlock4 + 2*1536 + 4096*1536*4 + 4096 + 1024*4096 + 2*4096 + 5472*4096 + 4096*2736
	glm45VRouters   = 45 * (128*4096 + 128) // float32
	glm45VParams    = 107710933120          // the listing's total
	glm45VRotary    = 4*65536*64*2 + 8192*64*2
	glm45VPositions = 576 * 8
)

// TestGLM45VHeader: GLM-4.5V's published listing, 18,106 tensors of
// 107,710,933,120 parameters, read by glm4v_moe's rules, is what the
// config gives, nothing skipped: whole, 2 bytes a parameter, plus 2 more
// for each router weight vLLM holds in float32 (45 x 128 x 4096;
// glm4_moe.py:140-150) and for each float32 routing bias the listing
// counts as a parameter (45 x 128), plus the buffers: the text model's
// MRotaryEmbedding table (4 x 65,536 positions x 64, mrope enlarges
// max_position four times), the tower's 8192 x 64 table, and its 576
// int64 position_ids. At TP4 the sum by hand above; at TP4 EP4 and on a
// pipeline stage the checkpoint and the config agree rank by rank.
func TestGLM45VHeader(t *testing.T) {
	_, ts := glm45VHeader()
	// 3 top + 46 x 9 attention and norms + 3 dense + 45 x (128 x 3 + 5)
	// + 24 x 7 blocks + 13 other tower tensors.
	if want := 3 + 46*9 + 3 + 45*(128*3+5) + 24*7 + 13; want != 18106 || len(ts) != want {
		t.Fatalf("%d tensors, the listing counts 18,106", len(ts))
	}
	n := fixtureParams(ts)
	if n != glm45VParams {
		t.Errorf("the fixture holds %d parameters, the listing %d", n, uint64(glm45VParams))
	}
	checkByHand(t, []byHandCase{{
		name: "GLM-4.5V", fixture: glm45VHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), glm45VParams*2 + 45*128*4096*2 + 45*128*2 + glm45VRotary + glm45VPositions, ""},
			{"TP4", tpRanks(4, 0), (glm45VText4+glm45VTower4)*2 + glm45VRouters*4 + glm45VRotary + glm45VPositions, ""},
		},
	}})
	a, notes := attach(t, glm45VHeader)
	if len(notes.Skipped) != 0 {
		t.Errorf("skipped %v, want nothing", notes.Skipped)
	}
	for _, sh := range []Sharding{{TP: 4, ExpertRanks: 4, EndLayer: 46, First: true, Last: true, DtypeBytes: 2},
		{TP: 2, FirstLayer: 23, EndLayer: 46, Last: true, DtypeBytes: 2}} {
		if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
			t.Errorf("TP%d EP%d layers [%d, %d): checkpoint %d B, config %d B", sh.TP, sh.ExpertRanks, sh.FirstLayer, sh.EndLayer, c, w)
		}
	}
}

// glm41VConfig is a GLM-4.1V config built for the tests, not a published
// file (none was found; see corpus/models/SOURCES.md): the classes'
// defaults are GLM-4.1V-9B's shape, so it writes only the model types,
// attention_bias as GLM's checkpoints carry q/k/v biases, and
// GLM-4.1V-9B-Thinking's 64K context with an mrope_section.
const glm41VConfig = `{"architectures": ["Glm4vForConditionalGeneration"], "model_type": "glm4v", "torch_dtype": "bfloat16",
 "text_config": {"model_type": "glm4v_text", "attention_bias": true, "max_position_embeddings": 65536,
  "rope_parameters": {"rope_type": "default", "rope_theta": 10000, "mrope_section": [8, 12, 12], "partial_rotary_factor": 0.5}},
 "vision_config": {"model_type": "glm4v"}}`

// GLM-4.1V-9B from the classes' defaults, counted by hand from glm4.py
// and glm4_1v.py at d18bb7b, whole. A layer: q 4096 x 4096 + 4096, k and
// v (2 KV heads of 128) 256 x 4096 + 256 each, o 4096 x 4096, gate_up 2 x
// 13,696 x 4096, down 4096 x 13,696, four norms; 40 layers; embedding and
// untied head 151,552 x 4096; the norm. The tower as GLM-4.5V's but its
// merger 13,696 wide: patch_embed, the 576-row table, 24 blocks of two
// norms, qkv 4608 x 1536, proj 1536 x 1536, gate_up 8192 x 1536, down 1536
// x 4096; two RMSNorms, downsample; proj 4096 x 4096, post_projection_norm
// 2 x 4096, gate_up 2 x 13,696 x 4096, down 4096 x 13,696.
const (
	glm41VLayer = 4096*4096 + 4096 + 2*(256*4096+256) + 4096*4096 + 3*13696*4096 + 4*4096
	glm41VText  = 40*glm41VLayer + 2*151552*4096 + 4096
	glm41VBlock = 2*1536 + 4608*1536 + 1536*1536 + 8192*1536 + 1536*4096
	glm41VTower = 1536*3*2*14*14 + 1536 + 576*1536 + 24*glm41VBlock + 2*1536 + 4096*1536*4 + 4096 +
		4096*4096 + 2*4096 + 3*13696*4096
)

// TestGLM41VWeights: GLM-4.1V's weights from the defaults, whole, are the
// sum by hand plus the text model's mrope table (4 x 65,536 x 64), the
// tower's (8192 x 64) and its 576 int64 position_ids; without
// attention_bias in text_config the q/k/v biases go (vLLM reads
// getattr(config, "attention_bias", False), glm4.py:166, and
// Glm4vTextConfig declares none): 40 x (4096 + 2 x 256) parameters fewer.
func TestGLM41VWeights(t *testing.T) {
	buffers := uint64(4*65536*64*2 + 8192*64*2 + 576*8)
	for _, tc := range []struct {
		name, from, to string
		want           uint64
	}{
		{"biased", "", "", (glm41VText+glm41VTower)*2 + buffers},
		{"no attention_bias", `"attention_bias": true, `, ``, (glm41VText-40*(4096+512)+glm41VTower)*2 + buffers},
	} {
		a, err := ParseConfig("x.json", []byte(strings.Replace(glm41VConfig, tc.from, tc.to, 1)))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := sum(Weights(a, Whole(a, 1, 2, a.Quant))); got != tc.want {
			t.Errorf("%s: %d B, want %d (by hand)", tc.name, got, tc.want)
		}
	}
}

// TestGlm4vReads: the classes fill what a config omits (GLM-4.1V's shape:
// 40 layers of 32 heads and 2 KV heads of 128, four norms a layer, the
// 24-block tower of 1536 with out_hidden_size 4096); an out_hidden_size
// that is not the text width, a config without vision_config, and a text
// model of another family are refused by name.
func TestGlm4vReads(t *testing.T) {
	tests := []struct {
		name, from, to string
		err            string
	}{
		{"defaults", "", "", ""},
		{"out_hidden_size", `"vision_config": {"model_type": "glm4v"}`, `"vision_config": {"model_type": "glm4v", "out_hidden_size": 3584}`,
			"vision_config.out_hidden_size: 3584 is not the text model's hidden_size 4096"},
		{"no vision_config", `,
 "vision_config": {"model_type": "glm4v"}`, ``, "vision_config: missing (required for model_type glm4v)"},
		{"a llama text model", `"model_type": "glm4v_text"`, `"model_type": "llama"`, `text_config.model_type: "llama": vLLM builds glm4v's language model`},
		// The flat form: the text model's keys at the root, which
		// Glm4vConfig builds its text config from.
		{"flat", `"text_config": {"model_type": "glm4v_text", "attention_bias": true, "max_position_embeddings": 65536,
  "rope_parameters": {"rope_type": "default", "rope_theta": 10000, "mrope_section": [8, 12, 12], "partial_rotary_factor": 0.5}},`,
			`"attention_bias": true, "max_position_embeddings": 65536,
  "rope_parameters": {"rope_type": "default", "rope_theta": 10000, "mrope_section": [8, 12, 12], "partial_rotary_factor": 0.5},`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(glm41VConfig, tc.from) {
				t.Fatalf("%q is not in the test config", tc.from)
			}
			a, ok := parseWanting(t, strings.Replace(glm41VConfig, tc.from, tc.to, 1), tc.err)
			if !ok {
				return
			}
			want := shape{ModelType: "glm4v", Layers: 40, Hidden: 4096, Heads: 32, KVHeads: 2, HeadDim: 128, Vocab: 151552, MaxPos: 65536,
				RotaryDim: 64, Rope: "default", Vision: "glm4v", Dtype: "bfloat16"}
			if diff := cmp.Diff(want, shapeOf(a)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if a.NormsPerLayer != 4 || !a.AttnBias {
				t.Errorf("norms a layer %d, q/k/v bias %v; want 4 and true", a.NormsPerLayer, a.AttnBias)
			}
			if got, want := sum(Weights(a, Whole(a, 1, 2, a.Quant))), uint64((glm41VText+glm41VTower)*2+4*65536*64*2+8192*64*2+576*8); got != want {
				t.Errorf("weights %d B, want %d (TestGLM41VWeights' sum)", got, want)
			}
		})
	}
}

// TestPixtralRefusedByName: a config of model_type pixtral, the form
// vLLM gives a Mistral-format Pixtral's params.json, is refused naming
// model_type and the Hugging Face conversion that is sized, not as an
// unknown model_type (which a checkpoint could turn into a generic
// decoder); the architectures table gives the same reason.
func TestPixtralRefusedByName(t *testing.T) {
	_, err := ParseConfig("x.json", []byte(`{"model_type": "pixtral", "architectures": ["PixtralForConditionalGeneration"],
 "text_config": {"hidden_size": 5120}, "vision_config": {"hidden_size": 1024}}`))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "model_type" || errors.Is(err, ErrUnknownModelType) || !strings.Contains(ce.Detail, "Mistral-format Pixtral (params.json") {
		t.Errorf("error %v; want a model_type refusal naming the Mistral format", err)
	}
	if got := ArchitectureRefusal("pixtral"); got != pixtralRefusal {
		t.Errorf("the table's reason %q, want the parser's", got)
	}
}

// Kimi-K2.5's MoonViT and projector, counted by hand from kimi_k25_vit.py
// and kimi_k25.py at d18bb7b with KimiK25VisionConfig's shape (1152 wide,
// 16 heads of 72, 27 blocks of MLP 4304, 14 px patches, a 64 x 64
// position table, 4 time rows, a 2 x 2 merge): patch_embed 1152 x 3 x 14
// x 14 + 1152; pos_emb 4096 x 1152; a block: two LayerNorms 4 x 1152,
// wqkv 3456 x 1152 + 3456, wo 1152 x 1152 + 1152, fc0 4304 x 1152 + 4304,
// fc1 1152 x 4304 + 1152 (SigLIP-so400m's layer, so400mLayer);
// final_layernorm 2 x 1152; the projector: pre_norm 2 x 1152, linear_1
// 4608 x 4608 + 4608, linear_2 4608 x 7168 + 7168 (mm_hidden_size, 1152
// as written, is the text width). Buffers: time_weight 4 x 1152 in the
// model dtype (compressed-tensors leaves the tower unquantized and cast),
// freqs_cis 512 x 512 x 36 complex64.
const (
	moonViTParams  = 1152*3*14*14 + 1152 + 4096*1152 + 27*so400mLayer + 2*1152 + 2*1152 + 4608*4608 + 4608 + 4608*7168 + 7168
	moonViTFreqs   = 512 * 512 * 36 * 8
	moonViTBlockTP = (3456*1152+3456)/4 + 1152*1152/4 + 1152 + (4304*1152+4304)/4 + 1152*4304/4 + 1152 + 4*1152
)

// TestMoonViTByHand: Kimi-K2.5's tower and projector from its published
// config, whole and at TP4 (wqkv and fc0 split with their biases, wo and
// fc1 their weights; the rest whole), are the sums by hand; under fp8 the
// tower takes the quantization config and keeps time_weight in float32;
// a config without vision_config builds the class's tower, the same.
func TestMoonViTByHand(t *testing.T) {
	tower := func(a *Arch, tp uint64) uint64 {
		var n uint64
		for _, it := range Weights(a, Whole(a, tp, 2, a.Quant)) {
			if strings.HasPrefix(it.Name, "vision_tower.") || strings.HasPrefix(it.Name, "mm_projector.") || it.Name == "rotary_emb.vision_tower.freqs_cis" {
				n += it.Bytes
			}
		}
		return n
	}
	a := shippedArch(t, "moonshotai__Kimi-K2.5")
	if got, want := tower(a, 1), uint64(moonViTParams*2+4*1152*2+moonViTFreqs); got != want {
		t.Errorf("TP1: %d B, want %d (by hand)", got, want)
	}
	rest := uint64(moonViTParams - 27*so400mLayer)
	if got, want := tower(a, 4), (rest+27*moonViTBlockTP)*2+4*1152*2+moonViTFreqs; got != want {
		t.Errorf("TP4: %d B, want %d (by hand)", got, want)
	}
	doc := corpusModel(t, "moonshotai__Kimi-K2.5")
	var m map[string]any
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "vision_config")
	bare, _ := json.Marshal(m)
	b, err := ParseConfig("x.json", bare)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*a.Vision, *b.Vision); diff != "" {
		t.Errorf("without vision_config (-published +class):\n%s", diff)
	}
	text := m["text_config"].(map[string]any)
	text["quantization_config"] = map[string]any{"quant_method": "fp8", "activation_scheme": "dynamic"}
	fp8doc, _ := json.Marshal(m)
	q, err := ParseConfig("x.json", fp8doc)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, it := range Weights(q, Whole(q, 1, 2, q.Quant)) {
		got[it.Name] = it.Bytes
	}
	for k, want := range map[string]uint64{
		"vision_tower.patch_embed.pos_emb.time_weight": 4 * 1152 * 4, // float32: the tower is not cast
		"vision_tower.encoder.blocks.0.wqkv.weight":    3456 * 1152,  // fp8, one byte
		"mm_projector.linear_1.weight":                 4608 * 4608,
	} {
		if got[k] != want {
			t.Errorf("fp8: %s %d B, want %d", k, got[k], want)
		}
	}
}

// TestMoonViTReads: what vLLM would build otherwise, or fail on, is
// refused naming the key.
func TestMoonViTReads(t *testing.T) {
	doc := corpusModel(t, "moonshotai__Kimi-K2.5")
	for _, tc := range []struct{ from, to, err string }{
		{`"vt_hidden_size": 1152`, `"vt_hidden_size": 1280`, "vision_config.vt_hidden_size: 1280 is not the hidden_size 1152 vLLM builds"},
		{`"mm_projector_type": "patchmerger"`, `"mm_projector_type": "patchmergerv2"`, `vision_config.mm_projector_type: "patchmergerv2": membudget sizes MoonViT`},
		{`"pos_emb_type": "divided_fixed"`, `"pos_emb_type": "learned"`, `vision_config.pos_emb_type: "learned"`},
		{`"merge_kernel_size": [`, `"merge_kernel_size": [2, `, "vision_config.merge_kernel_size: want two sides"},
	} {
		s := string(doc)
		if !strings.Contains(s, tc.from) {
			t.Fatalf("%q is not in the published config", tc.from)
		}
		_, err := ParseConfig("x.json", []byte(strings.Replace(s, tc.from, tc.to, 1)))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: error %v, want one holding %q", tc.to, err, tc.err)
		}
	}
}
