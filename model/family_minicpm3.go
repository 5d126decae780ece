package model

func init() {
	declareClass("minicpm3", miniCPM3Class)
	// openbmb/MiniCPM3-4B names its tensors as transformers'
	// modeling_minicpm3.py builds them: DeepSeek V2's latent projections,
	// unfused (minicpm3.py:225-230 packs only gate_up_proj).
	register("minicpm3", flat(readMiniCPM3), ckptFamily(nil, [][]moduleRule{miniCPM3Attention, gatedMLP, twoNorms}, everyStageTop))
	registerArchitectures("minicpm3", "MiniCPM3ForCausalLM")
}

// miniCPM3Class is transformers MiniCPM3Config, read at
// huggingface/transformers@008e574391 (its defaults are openbmb/
// MiniCPM3-4B's). v_head_dim None is hidden_size / num_attention_heads
// (__post_init__), which the reader derives; q_lora_rank None is no query
// latent, which vLLM cannot build (the reader refuses it).
var miniCPM3Class = configClass{
	Name:   "MiniCPM3Config",
	Source: "src/transformers/models/minicpm3/configuration_minicpm3.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "73448"}, {"hidden_size", "2560"}, {"intermediate_size", "6400"}, {"num_hidden_layers", "62"},
		{"num_attention_heads", "40"}, {"num_key_value_heads", "40"}, {"max_position_embeddings", "32768"},
		{"tie_word_embeddings", "true"}, {"kv_lora_rank", "256"}, {"q_lora_rank", "768"},
		{"qk_nope_head_dim", "64"}, {"qk_rope_head_dim", "32"},
	},
}

// miniCPM3Attention: MiniCPM3Attention's projections (minicpm3.py:85-119):
// q_a_proj and kv_a_proj_with_mqa whole on every rank, their RMSNorms,
// q_b_proj and kv_b_proj column-parallel, o_proj row-parallel. Unlike
// DeepSeek's, the two down-projections are never fused.
var miniCPM3Attention = []moduleRule{
	{module: "self_attn.q_a_proj"},
	{module: "self_attn.q_a_layernorm"},
	{module: "self_attn.q_b_proj", split: column},
	{module: "self_attn.kv_a_proj_with_mqa"},
	{module: "self_attn.kv_a_layernorm"},
	{module: "self_attn.kv_b_proj", split: column},
	{module: "self_attn.o_proj", split: row},
}

// readMiniCPM3 reads MiniCPM3 (vllm/model_executor/models/minicpm3.py at
// d18bb7b). Its weights are DeepSeek V2's latent attention with a query
// latent, but its cache is not MLA's: MiniCPM3Attention decompresses the
// latent and hands Attention num_heads / tp heads of qk_nope_head_dim +
// qk_rope_head_dim as both query and KV heads, V zero-padded to that width
// (:126-134, 173-175), and vLLM's MLA model types do not include minicpm3
// (transformers_utils/model_arch_config_convertor.py:311-335): a full
// per-head K and V of every head, whatever num_key_value_heads or head_dim
// say. Rotary over qk_rope_head_dim only (:121-125). The rest is
// MiniCPM's (minicpm.py): the gated MLP of silu or fatrelu, two RMSNorms,
// the embedding, final norm and head on every pipeline stage, the head
// tied unless tie_word_embeddings says false, MiniCPMMoE refused.
func readMiniCPM3(o jsonObject, a *Arch) {
	if n := o.uintOr("num_experts", 0); n > 0 {
		o.fail("num_experts", "%d: MiniCPM's MoE (MiniCPMMoE, minicpm.py:82-151) keeps its own expert tensors, which membudget does not size yet", n)
	}
	if act := o.str("hidden_act"); act != "" && act != "silu" && act != "fatrelu" {
		o.fail("hidden_act", "%q: vLLM's MiniCPMMLP raises for any activation but silu and fatrelu (minicpm.py:218-226)", act)
	}
	if !o.has("q_lora_rank") || o.uintValue("q_lora_rank") == 0 {
		o.fail("q_lora_rank", "null or 0: vLLM's MiniCPM3Attention always builds q_a_proj of q_lora_rank outputs (minicpm3.py:85-88)")
	}
	// MiniCPM3Config sets head_dim to qk_rope_head_dim, older saves of the
	// remote class wrote 96; vLLM reads neither for the layers.
	delete(o.m, "head_dim")
	readCommon(o, a)
	a.QLoraRank = o.uintOr("q_lora_rank", 0)
	a.KVLoraRank = o.uint("kv_lora_rank")
	a.QKNopeHeadDim = o.uint("qk_nope_head_dim")
	a.QKRopeHeadDim = o.uint("qk_rope_head_dim")
	a.VHeadDim = o.uintOr("v_head_dim", 0)
	if a.VHeadDim == 0 && a.Heads > 0 {
		// MiniCPM3Config.__post_init__: None is hidden_size / heads.
		a.VHeadDim = a.Hidden / a.Heads
	}
	if a.VHeadDim > a.QKNopeHeadDim+a.QKRopeHeadDim {
		o.fail("v_head_dim", "%d is wider than the %d-wide head vLLM pads V to (minicpm3.py:173-175)", a.VHeadDim, a.QKNopeHeadDim+a.QKRopeHeadDim)
	}
	a.HeadDim = a.QKNopeHeadDim + a.QKRopeHeadDim
	a.KVHeads = a.Heads
	a.RotaryDim = a.QKRopeHeadDim
	a.Rotary[0].Dim = a.RotaryDim
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	t := &a.tree
	t.latentWeights = true
	t.packed = map[string][]string{"gate_up_proj": {"gate_proj", "up_proj"}}
	t.onEveryStage()
	a.layerTypes = nil // MiniCPM3Attention takes no window
	a.uniformLayers(o, 0)
}
