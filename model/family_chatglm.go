package model

func init() {
	f := ckptFamily(chatGLMRename, [][]moduleRule{chatGLMLayer}, everyStageTop)
	// vllm/model_executor/models/utils.py:191: AutoWeightsLoader skips the
	// rotary inv_freq buffer ChatGLM's checkpoints save.
	f.skipWithin = [][2]string{{"rotary_pos_emb.inv_freq", "ChatGLM's rotary_pos_emb.inv_freq buffer, which vLLM skips"}}
	declareClass("chatglm", chatGLMClass)
	register("chatglm", flat(readChatGLM), f)
	// registry.py at d18bb7b maps both to chatglm.py's ChatGLMForCausalLM.
	registerArchitectures("chatglm", "ChatGLMModel", "ChatGLMForConditionalGeneration")
}

// chatGLMClass is vLLM's own ChatGLMConfig
// (vllm/transformers_utils/configs/chatglm.py at d18bb7b), which vLLM reads
// model_type chatglm with in place of the checkpoint's remote class
// (vllm/transformers_utils/config.py:78, _CONFIG_REGISTRY): ChatGLM2-6B's
// shape; num_hidden_layers is num_layers and n_head_kv
// multi_query_group_num (attribute_map).
var chatGLMClass = configClass{
	Name:   "ChatGLMConfig",
	Source: "vllm/transformers_utils/configs/chatglm.py@d18bb7b",
	Defaults: []classDefault{
		{"num_layers", "28"}, {"padded_vocab_size", "65024"}, {"hidden_size", "4096"}, {"ffn_hidden_size", "13696"},
		{"kv_channels", "128"}, {"num_attention_heads", "32"}, {"seq_length", "2048"}, {"rmsnorm", "true"},
		{"post_layer_norm", "true"}, {"add_bias_linear", "false"}, {"add_qkv_bias", "false"},
		{"multi_query_attention", "false"}, {"multi_query_group_num", "1"},
	},
	Aliases: []classAlias{{From: "num_hidden_layers", To: "num_layers"}, {From: "n_head_kv", To: "multi_query_group_num"}},
}

// readChatGLM reads ChatGLM 2/3 and GLM-4 (vllm/model_executor/models/
// chatglm.py at d18bb7b): num_layers layers (num_hidden_layers where the
// file gives it, which the attribute_map sets last); an embedding and an
// output_layer of padded_vocab_size rows (:330-349), tied by
// tie_word_embeddings (PretrainedConfig's true, :409-411); attention of
// hidden_size / heads a head (:75, kv_channels must agree: the
// checkpoint's query_key_value is shaped by it), multi_query_group_num KV
// heads under multi_query_attention, else every head (:60-64),
// query_key_value biased by add_bias_linear or add_qkv_bias, dense by
// add_bias_linear (:80-95); rotary over half a head for seq_length
// positions whatever rope_scaling says (:98-113); a gated MLP of
// ffn_hidden_size biased by add_bias_linear (:156-172); RMSNorms
// (rmsnorm; vLLM's float32 LayerNorm otherwise, which is refused), the
// final one with post_layer_norm. Everything is built on every pipeline
// stage (no PPMissingLayer, :316-415). ChatGLMConfig sets
// max_position_embeddings to seq_length unless the file gives it. A
// config with a vision_config is refused, as vLLM refuses it (:438-447).
func readChatGLM(o jsonObject, a *Arch) {
	if o.has("num_hidden_layers") {
		o.m["num_layers"] = o.m["num_hidden_layers"]
	}
	for _, k := range [][2]string{{"num_layers", "num_hidden_layers"}, {"padded_vocab_size", "vocab_size"}, {"ffn_hidden_size", "intermediate_size"}} {
		if o.has(k[0]) {
			o.m[k[1]] = o.m[k[0]]
		}
	}
	if !o.has("max_position_embeddings") && o.has("seq_length") {
		o.m["max_position_embeddings"] = o.m["seq_length"]
	}
	if o.has("vision_config") {
		o.fail("vision_config", "present: vLLM's ChatGLMForCausalLM refuses a vision config (chatglm.py:438-447; GLM4VForCausalLM serves it)")
	}
	if !o.boolOr("rmsnorm", true) {
		o.fail("rmsnorm", "false: vLLM's float32 LayerNorm in place of RMSNorm (chatglm.py:205) is not sized")
	}
	delete(o.m, "head_dim")
	delete(o.m, "num_key_value_heads")
	readCommon(o, a)
	a.derivedHeadDim(o)
	if kc := o.uintOr("kv_channels", a.HeadDim); kc != a.HeadDim {
		o.fail("kv_channels", "%d differs from hidden_size / num_attention_heads = %d, which vLLM's GLMAttention builds (chatglm.py:75)", kc, a.HeadDim)
	}
	if o.boolOr("multi_query_attention", false) {
		a.KVHeads = o.uint("multi_query_group_num")
	} else {
		a.KVHeads = a.Heads
	}
	// chatglm.py:98-113: partial_rotary_factor 0.5 over seq_length rows,
	// the config's rope_scaling unused.
	a.RotaryDim = a.HeadDim / 2
	a.Rotary = []RotaryTable{{Name: "rotary_emb", Positions: o.uintOr("seq_length", 8192), Dim: a.RotaryDim}}
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	linearBias := o.boolOr("add_bias_linear", false)
	a.AttnBias = linearBias || o.boolOr("add_qkv_bias", false)
	a.OutBias, a.MLPBias = linearBias, linearBias
	t := &a.tree
	t.attn, t.attnOut, t.mlpNames = "self_attention", "dense", [2]string{"dense_h_to_4h", "dense_4h_to_h"}
	t.embed, t.norm = "transformer.embedding", "transformer.encoder.final_layernorm"
	if !o.boolOr("post_layer_norm", true) {
		t.norm = ""
	}
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}

var (
	chatGLMRename = [][2]string{
		{"transformer.encoder.layers.", "model.layers."},
		{"transformer.embedding.word_embeddings", "model.embed_tokens"},
		{"transformer.encoder.final_layernorm", "model.norm"},
		{"transformer.output_layer", "lm_head"},
	}
	// chatGLMLayer: THUDM's checkpoints (modeling_chatglm.py GLMBlock):
	// query_key_value fused (every q head, then the KV groups' k, then
	// their v), dense, dense_h_to_4h (gate and up fused), dense_4h_to_h,
	// two RMSNorms.
	chatGLMLayer = []moduleRule{
		{module: "self_attention.query_key_value", split: column, heads: qkvRows},
		{module: "self_attention.dense", split: row},
		{module: "mlp.dense_h_to_4h", split: column},
		{module: "mlp.dense_4h_to_h", split: row},
		{module: "input_layernorm"},
		{module: "post_attention_layernorm"},
	}
)
