package model

import (
	"fmt"

	"membudget/budget"
)

func init() {
	glm4vText := [][]moduleRule{gqaAttention, fusedMLP, gatedMLP, twoNorms, glm4Norms}
	glm4vMoeText := [][]moduleRule{gqaAttention, qkNorms, gatedMLP, glmMoE, twoNorms}
	registerMultimodal("glm4v", readGlm4v("glm4v_text"), ckptFamily(qwenVLRename, glm4vText, glm4vTower))
	register("glm4v_text", flat(readGlm4vText), ckptFamily(qwenVLRename, glm4vText).skipping(qwenTextOnly))
	registerMultimodal("glm4v_moe", readGlm4v("glm4v_moe_text"), ckptFamily(qwenVLRename, glm4vMoeText, glm4vTower))
	register("glm4v_moe_text", flat(readGlm4MoE), ckptFamily(qwenVLRename, glm4vMoeText).skipping(qwenTextOnly))
	registerVisionTower("glm4v", (*weights).glm4vVision)
	registerArchitectures("glm4v", "Glm4vForConditionalGeneration")
	registerArchitectures("glm4v_text", "Glm4vForConditionalGeneration")
	registerArchitectures("glm4v_moe", "Glm4vMoeForConditionalGeneration")
	registerArchitectures("glm4v_moe_text", "Glm4vMoeForConditionalGeneration")
	declareClass("glm4v", glm4vClass)
	declareClass("glm4v_text", glm4vTextClass)
	declareClass("glm4v_vision", glm4vVisionClass)
	declareClass("glm4v_moe", glm4vMoeClass)
	declareClass("glm4v_moe_text", glm4vMoeTextClass)
	declareClass("glm4v_moe_vision", glm4vMoeVisionClass)
}

// GLM-4.1V (glm4v) and GLM-4.5V (glm4v_moe) are one vLLM model,
// Glm4vForConditionalGeneration and its subclass
// Glm4vMoeForConditionalGeneration (vllm/model_executor/models/glm4_1v.py
// at d18bb7b): the same vision tower (Glm4vVisionTransformer, :625-712)
// beside text_config's language model, Glm4ForCausalLM for glm4v and
// Glm4MoeForCausalLM for glm4v_moe (:1814-1827). The checkpoints nest the
// language model under model.language_model. and the tower under
// model.visual. (hf_to_vllm_mapper, :1772-1778), as the Qwen VL ones do.

// readGlm4v reads a GLM-4.1V or GLM-4.5V config: text_config as
// textType's whatever model_type it names, since vLLM builds
// Glm4ForCausalLM for glm4v and Glm4MoeForCausalLM for glm4v_moe
// (glm4_1v.py:1814-1819); membudget sizes only a text_config of that type.
//
// A config without text_config is read flat: Glm4vConfig and
// Glm4vMoeConfig build their text config from the root's own keys then
// (text_config None: sub_configs["text_config"](**kwargs),
// configuration_glm4v.py, configuration_glm4v_moe.py), the form the
// early versions of transformers' conversion script wrote
// (models/glm4v/convert_glm4v_mgt_weights_to_hf.py: the text keys in
// hf_config itself; later versions nest them under text_config).
func readGlm4v(textType string) family {
	read := wrapper(textType, readGlm4vVision)
	return func(o jsonObject, a *Arch) jsonObject {
		if !o.has("text_config") {
			fillClass(textType, o, a)
			families[textType](o, a)
			if len(*o.errs) == 0 {
				readGlm4vVision(o, a)
			}
			return o
		}
		if text, ok := o.object("text_config"); ok {
			if named := text.str("model_type"); named != "" && named != textType {
				text.fail("model_type", "%q: vLLM builds %s's language model from text_config as %s's whatever it names (glm4_1v.py:1814-1819); membudget sizes only a %s one", named, a.ModelType, textType, textType)
				return text
			}
		}
		return read(o, a)
	}
}

// readGlm4vText reads GLM-4.1V's text_config as vLLM's Glm4ForCausalLM
// builds it (glm4.py at d18bb7b): GLM-4-0414's layer of four norms and a
// fused gate_up_proj, half of each head rotary unless rope_parameters
// gives partial_rotary_factor (:86-92), every layer full attention. Its
// q/k/v bias is getattr(config, "attention_bias", False) (:166), and
// Glm4vTextConfig declares no attention_bias: a text_config that does not
// write it builds unbiased q/k/v, which readGlm's GlmConfig default (True)
// would not.
func readGlm4vText(o jsonObject, a *Arch) {
	if rs, ok := o.object("rope_parameters"); !(ok && rs.has("partial_rotary_factor")) && !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.5")
	}
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.layerTypes = nil // Glm4Attention slides on no layer
	a.tree.norms = []string{"input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm", "post_mlp_layernorm"}
	a.NormsPerLayer = 4
	a.uniformLayers(o, 0)
}

// glm4vRopePositions is the vision rotary table's rows: get_rope's
// max_position=8192 (glm4_1v.py:671-676).
const glm4vRopePositions = 8192

// readGlm4vVision reads vision_config as Glm4vVisionTransformer builds it
// (glm4_1v.py:636-712): depth blocks of hidden_size and num_heads whose
// MLP is out_hidden_size wide (mlp_hidden_dim, :683), a merger whose
// gated MLP is intermediate_size wide (:688-694), a learned table of
// (image_size / patch_size)^2 positions (:514-529).
func readGlm4vVision(o jsonObject, a *Arch) {
	v, ok := o.object("vision_config")
	if !ok {
		o.fail("vision_config", "missing (required for model_type %s)", a.ModelType)
		return
	}
	hidden := v.uint("hidden_size")
	a.Vision = &VisionTower{
		Kind:          "glm4v",
		Hidden:        hidden,
		Intermediate:  v.uint("intermediate_size"),
		Layers:        v.uint("depth"),
		Heads:         v.uint("num_heads"),
		PatchSize:     v.uint("patch_size"),
		ImageSize:     v.uint("image_size"),
		Channels:      v.uint("in_channels"),
		TemporalPatch: v.uint("temporal_patch_size"),
		SpatialMerge:  v.uint("spatial_merge_size"),
		OutHidden:     v.uint("out_hidden_size"),
		ConfigHidden:  hidden,
	}
	if len(*o.errs) > 0 {
		return
	}
	if a.Vision.OutHidden != a.Hidden {
		// The merger's output is the image tokens' embedding (:1862-1870
		// merges it into the text model's inputs).
		v.fail("out_hidden_size", "%d is not the text model's hidden_size %d: the merged image tokens would not fit its embedding", a.Vision.OutHidden, a.Hidden)
	}
}

// glm4vVision adds GLM-4.1V's and GLM-4.5V's tower (glm4_1v.py:435-712),
// every linear layer without bias: a biased Conv3d patch embedding, the
// learned position table and its int64 position_ids buffer (:524-529),
// blocks of two RMSNorms, QKVParallelLinear qkv and row-parallel proj
// (:298-317), a gate_up_proj column- and down_proj row-parallel MLP of
// out_hidden_size (:216-241), all quantized with the model;
// post_conv_layernorm, a biased Conv2d downsample from hidden_size to
// out_hidden_size over spatial_merge_size^2 patches (:699-707; Conv2dLayer's
// bias defaults to True, layers/conv.py:30), post_layernorm; the merger
// (:464-500): proj column-parallel, post_projection_norm a LayerNorm, its
// gated MLP of intermediate_size; and the rotary table, 8192 rows of half
// a head (partial_rotary_factor 0.5, :671-676).
func (w *weights) glm4vVision(v *VisionTower) {
	h, out := v.Hidden, v.OutHidden
	w.add("visual.patch_embed.proj.weight", bytesOf(budget.SatMul(h*v.Channels*v.TemporalPatch, v.PatchSize*v.PatchSize), w.dt))
	w.add("visual.patch_embed.proj.bias", bytesOf(h, w.dt))
	side := v.ImageSize / v.PatchSize
	w.add("visual.embeddings.position_embedding.weight", bytesOf(budget.SatMul(side*side, h), w.dt))
	w.add("visual.embeddings.position_ids", bytesOf(side*side, 8))
	for i := range v.Layers {
		p := fmt.Sprintf("visual.blocks.%d.", i)
		w.add(p+"norm1.weight", bytesOf(h, w.dt))
		w.add(p+"norm2.weight", bytesOf(h, w.dt))
		w.towerLinear(p+"attn.qkv", h, 3*h, column, false, true)
		w.towerLinear(p+"attn.proj", h, h, row, false, true)
		w.towerLinear(p+"mlp.gate_up_proj", h, 2*out, column, false, true)
		w.towerLinear(p+"mlp.down_proj", out, h, row, false, true)
	}
	w.add("visual.post_conv_layernorm.weight", bytesOf(h, w.dt))
	w.add("visual.downsample.weight", bytesOf(budget.SatMul(out*h, v.SpatialMerge*v.SpatialMerge), w.dt))
	w.add("visual.downsample.bias", bytesOf(out, w.dt))
	w.add("visual.post_layernorm.weight", bytesOf(h, w.dt))
	w.towerLinear("visual.merger.proj", out, out, column, false, true)
	w.layerNorm("visual.merger.post_projection_norm", out)
	w.towerLinear("visual.merger.gate_up_proj", out, 2*v.Intermediate, column, false, true)
	w.towerLinear("visual.merger.down_proj", v.Intermediate, out, row, false, true)
	w.qwenVisionRope(v)
}

// glm4vTower: the tower in the checkpoint's names (transformers
// models/glm4v/modeling_glm4v.py; GLM-4.5V's header listing in
// corpus/models/SOURCES.md): qkv stored fused, gate_proj and up_proj into
// gate_up_proj (glm4_1v.py:626-634 stacks them), the merger's likewise.
var glm4vTower = onVisionTower([]moduleRule{
	{module: "visual.patch_embed.proj"},
	{module: "visual.embeddings.position_embedding"},
	{module: "visual.post_conv_layernorm"},
	{module: "visual.downsample"},
	{module: "visual.post_layernorm"},
	{module: "visual.merger.proj", split: column},
	{module: "visual.merger.post_projection_norm"},
}, gatedMLPAt("visual.merger"), under("visual.blocks.*.", []moduleRule{
	{module: "norm1"},
	{module: "norm2"},
	{module: "attn.qkv", split: column},
	{module: "attn.proj", split: row},
}, gatedMLPAt("mlp")))

// The classes of GLM-4.1V's and GLM-4.5V's configs. Glm4vConfig,
// Glm4vTextConfig and Glm4vVisionConfig read at
// huggingface/transformers@05cd1ec14d
// (src/transformers/models/glm4v/configuration_glm4v.py): GLM-4.1V-9B's
// shape; Glm4vTextConfig has no attention_bias, head_dim or
// partial_rotary_factor (see readGlm4vText). Glm4vMoeConfig,
// Glm4vMoeTextConfig and Glm4vMoeVisionConfig read at
// huggingface/transformers@008e574391
// (src/transformers/models/glm4v_moe/configuration_glm4v_moe.py, the
// @strict form): GLM-4.5V's text shape with vocab_size 151424, attention
// bias on, partial_rotary_factor 0.5 (__post_init__), and the same vision
// defaults as GLM-4.1V's. The vision_config of an older checkpoint names
// model_type glm4v (or glm4v_moe), the wrapper's own: the vision class
// reads it.
var (
	glm4vSource    = "src/transformers/models/glm4v/configuration_glm4v.py@05cd1ec14d"
	glm4vMoeSource = "src/transformers/models/glm4v_moe/configuration_glm4v_moe.py@008e574391"
	glm4vVisionDef = []classDefault{
		{"depth", "24"}, {"hidden_size", "1536"}, {"num_heads", "12"}, {"in_channels", "3"},
		{"image_size", "336"}, {"patch_size", "14"}, {"spatial_merge_size", "2"},
		{"temporal_patch_size", "2"}, {"out_hidden_size", "4096"}, {"intermediate_size", "13696"},
	}
	glm4vClass = configClass{
		Name:   "Glm4vConfig",
		Source: glm4vSource,
		Nested: map[string]string{"text_config": "glm4v_text", "vision_config": "glm4v_vision"},
	}
	glm4vTextClass = configClass{
		Name:   "Glm4vTextConfig",
		Source: glm4vSource,
		Defaults: []classDefault{
			{"vocab_size", "151552"}, {"hidden_size", "4096"}, {"intermediate_size", "13696"},
			{"num_hidden_layers", "40"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "2"},
			{"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"},
		},
	}
	glm4vVisionClass = configClass{Name: "Glm4vVisionConfig", Source: glm4vSource, Defaults: glm4vVisionDef}
	glm4vMoeClass    = configClass{
		Name:     "Glm4vMoeConfig",
		Source:   glm4vMoeSource,
		Defaults: []classDefault{{"tie_word_embeddings", "false"}},
		Nested:   map[string]string{"text_config": "glm4v_moe_text", "vision_config": "glm4v_moe_vision"},
	}
	glm4vMoeTextClass = configClass{
		Name:   "Glm4vMoeTextConfig",
		Source: glm4vMoeSource,
		Defaults: []classDefault{
			{"vocab_size", "151424"}, {"hidden_size", "4096"}, {"intermediate_size", "10944"},
			{"num_hidden_layers", "46"}, {"num_attention_heads", "96"}, {"num_key_value_heads", "8"},
			{"max_position_embeddings", "65536"}, {"tie_word_embeddings", "false"}, {"attention_bias", "true"},
			{"moe_intermediate_size", "1408"}, {"num_experts_per_tok", "8"}, {"n_shared_experts", "1"},
			{"n_routed_experts", "128"}, {"first_k_dense_replace", "1"}, {"partial_rotary_factor", "0.5"},
		},
	}
	glm4vMoeVisionClass = configClass{Name: "Glm4vMoeVisionConfig", Source: glm4vMoeSource, Defaults: glm4vVisionDef}
)
