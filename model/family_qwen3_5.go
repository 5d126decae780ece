package model

func init() {
	// Qwen3.5 builds the embedding on every stage and the norm and head on
	// the last (qwen3_5.py:244-266, 336-345).
	registerMultimodal("qwen3_5", wrapper("qwen3_5_text", readQwen3VLVision),
		ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, qwen35DeltaNet, gatedMLP, twoNorms}, qwen3Vision, qwen35Top).skipping(mtpModules))
	register("qwen3_5_text", flat(readQwen35Text),
		ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, qwen35DeltaNet, gatedMLP, twoNorms}, qwen35Top).skipping(mtpModules, qwenTextOnly))
	registerMultimodal("qwen3_5_moe", wrapper("qwen3_5_moe_text", readQwen3VLVision),
		ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, qwen35DeltaNet, qwenNextMoE, twoNorms}, qwen3Vision, qwen35Top).skipping(mtpModules))
	register("qwen3_5_moe_text", flat(readQwen35MoEText),
		ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, qwen35DeltaNet, qwenNextMoE, twoNorms}, qwen35Top).skipping(mtpModules, qwenTextOnly))
}

// readQwen35Text reads Qwen3.5's dense language model (vllm/model_executor/
// models/qwen3_5.py): Qwen3-Next's layers with a dense MLP on every layer,
// whatever MoE keys the config holds, as vLLM decides by model_type
// (qwen3_5.py:162-177); the recurrent state in mamba_ssm_dtype; the
// embedding on every pipeline stage (qwen3_5.py:244-247), the norm and
// head on the last. Its checkpoint splits in_proj_qkvz and in_proj_ba in
// two.
func readQwen35Text(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.qwenHybrid(o)
	if d := o.str("mamba_ssm_dtype"); d != "" {
		if _, ok := dtypeBytes[d]; !ok {
			o.fail("mamba_ssm_dtype", "unsupported dtype %q; want bfloat16, float16 or float32", d)
		}
		a.StateDtype = d
	}
	a.tree.embedEveryStage = true
	a.tree.rename = [][2]string{{"model.language_model.", "model."}, {"model.visual.", "visual."}}
	a.tree.packed = map[string][]string{
		"qkv_proj": {"q_proj", "k_proj", "v_proj"}, "gate_up_proj": {"gate_proj", "up_proj"},
		"in_proj_qkvz": {"in_proj_qkv", "in_proj_z"}, "in_proj_ba": {"in_proj_b", "in_proj_a"},
	}
	a.tree.baWholeUnderPackedInt = true
}

// readQwen35MoEText reads Qwen3.5-MoE's language model (qwen3_5.py:162-168):
// Qwen3.5's layers with Qwen3-Next's MoE block on every layer, whatever
// decoder_sparse_step or mlp_only_layers say; the MoE sizes default as
// vLLM's Qwen3_5MoeTextConfig has them
// (vllm/transformers_utils/configs/qwen3_5_moe.py:46-50).
func readQwen35MoEText(o jsonObject, a *Arch) {
	readQwen35Text(o, a)
	a.qwenMoE(o.uintOr("num_experts", 256), o.uintOr("num_experts_per_tok", 8), o.uintOr("moe_intermediate_size", 512),
		o.uintOr("shared_expert_intermediate_size", 512))
	for i := range a.Layers {
		a.Layers[i].MoE = a.Experts > 0
	}
}

var (
	// qwen35DeltaNet: Qwen3.5's checkpoint splits in_proj_qkvz into
	// in_proj_qkv and in_proj_z and in_proj_ba into in_proj_b and
	// in_proj_a (qwen3_5.py:217-225; Qwen3.5-2B's names in
	// lawrence3699/Jev-Style-2B-Decision-v3 model.safetensors.index.json).
	qwen35DeltaNet = append([]moduleRule{
		{module: "linear_attn.in_proj_qkv", vllm: "linear_attn.in_proj_qkvz", split: column},
		{module: "linear_attn.in_proj_z", vllm: "linear_attn.in_proj_qkvz", split: column, follower: true},
		{module: "linear_attn.in_proj_b", vllm: "linear_attn.in_proj_ba", split: column, wholeUnderPackedInt: true},
		{module: "linear_attn.in_proj_a", vllm: "linear_attn.in_proj_ba", split: column, follower: true, wholeUnderPackedInt: true},
	}, gatedDeltaNet[2:]...)
	// qwen35Top: Qwen3.5's embedding on every stage, norm and head on the
	// last.
	qwen35Top = decoderTopOn(allStages, lastStage, lastStage)
)

// qwen35TextClass is transformers Qwen3_5TextConfig, read at huggingface/transformers@008e574391. partial_rotary_factor 0.25 and full_attention_interval 4 are __post_init__'s defaults.
var qwen35TextClass = configClass{
	Name:   "Qwen3_5TextConfig",
	Source: "src/transformers/models/qwen3_5/configuration_qwen3_5.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "248320"}, {"hidden_size", "4096"}, {"intermediate_size", "12288"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "16"}, {"num_key_value_heads", "4"},
		{"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"}, {"attention_bias", "false"},
		{"head_dim", "256"}, {"linear_conv_kernel_dim", "4"}, {"linear_key_head_dim", "128"},
		{"linear_value_head_dim", "128"}, {"linear_num_key_heads", "16"}, {"linear_num_value_heads", "32"},
		{"partial_rotary_factor", "0.25"}, {"full_attention_interval", "4"},
	},
}

func init() { declareClass("qwen3_5_text", qwen35TextClass) }

// qwen35VisionClass is transformers Qwen3_5VisionConfig, read at huggingface/transformers@008e574391.
var qwen35VisionClass = configClass{
	Name:   "Qwen3_5VisionConfig",
	Source: "src/transformers/models/qwen3_5/configuration_qwen3_5.py@008e574391",
	Defaults: []classDefault{
		{"depth", "27"}, {"hidden_size", "1152"}, {"intermediate_size", "4304"},
		{"num_heads", "16"}, {"in_channels", "3"}, {"patch_size", "16"},
		{"spatial_merge_size", "2"}, {"temporal_patch_size", "2"}, {"out_hidden_size", "3584"},
		{"num_position_embeddings", "2304"},
	},
}

func init() { declareClass("qwen3_5_vision", qwen35VisionClass) }

// qwen35Class is transformers Qwen3_5Config, read at huggingface/transformers@008e574391.
var qwen35Class = configClass{
	Name:   "Qwen3_5Config",
	Source: "src/transformers/models/qwen3_5/configuration_qwen3_5.py@008e574391",
	Nested: map[string]string{"text_config": "qwen3_5_text", "vision_config": "qwen3_5_vision"},
}

func init() { declareClass("qwen3_5", qwen35Class) }

// qwen35MoeTextClass is transformers Qwen3_5MoeTextConfig, read at huggingface/transformers@008e574391. partial_rotary_factor 0.25 and full_attention_interval 4 are __post_init__'s defaults.
var qwen35MoeTextClass = configClass{
	Name:   "Qwen3_5MoeTextConfig",
	Source: "src/transformers/models/qwen3_5_moe/configuration_qwen3_5_moe.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "248320"}, {"hidden_size", "2048"}, {"num_hidden_layers", "40"},
		{"num_attention_heads", "16"}, {"num_key_value_heads", "2"}, {"max_position_embeddings", "32768"},
		{"tie_word_embeddings", "false"}, {"attention_bias", "false"}, {"head_dim", "256"},
		{"moe_intermediate_size", "512"}, {"shared_expert_intermediate_size", "512"}, {"num_experts_per_tok", "8"},
		{"num_experts", "256"}, {"linear_conv_kernel_dim", "4"}, {"linear_key_head_dim", "128"},
		{"linear_value_head_dim", "128"}, {"linear_num_key_heads", "16"}, {"linear_num_value_heads", "32"},
		{"partial_rotary_factor", "0.25"}, {"full_attention_interval", "4"},
	},
}

func init() { declareClass("qwen3_5_moe_text", qwen35MoeTextClass) }

// qwen35MoeVisionClass is transformers Qwen3_5MoeVisionConfig, read at huggingface/transformers@008e574391.
var qwen35MoeVisionClass = configClass{
	Name:   "Qwen3_5MoeVisionConfig",
	Source: "src/transformers/models/qwen3_5_moe/configuration_qwen3_5_moe.py@008e574391",
	Defaults: []classDefault{
		{"depth", "27"}, {"hidden_size", "1152"}, {"intermediate_size", "4304"},
		{"num_heads", "16"}, {"in_channels", "3"}, {"patch_size", "16"},
		{"spatial_merge_size", "2"}, {"temporal_patch_size", "2"}, {"out_hidden_size", "3584"},
		{"num_position_embeddings", "2304"},
	},
}

func init() { declareClass("qwen3_5_moe_vision", qwen35MoeVisionClass) }

// qwen35MoeClass is transformers Qwen3_5MoeConfig, read at huggingface/transformers@008e574391.
var qwen35MoeClass = configClass{
	Name:   "Qwen3_5MoeConfig",
	Source: "src/transformers/models/qwen3_5_moe/configuration_qwen3_5_moe.py@008e574391",
	Nested: map[string]string{"text_config": "qwen3_5_moe_text", "vision_config": "qwen3_5_moe_vision"},
}

func init() { declareClass("qwen3_5_moe", qwen35MoeClass) }
