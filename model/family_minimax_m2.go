package model

func init() {
	register("minimax_m2", flat(readMiniMaxM2), ckptFamily(nil, [][]moduleRule{gqaAttention, shardedQKNorms, minimaxMoE, twoNorms}))
}

// readMiniMaxM2 reads MiniMax-M2 (vllm/model_executor/models/minimax_m2.py):
// every layer MoE under block_sparse_moe with a float32 router and routing
// bias, q and k norms over the whole projection divided among the ranks,
// rotary over rotary_dim, num_mtp_modules MTP layers.
func readMiniMaxM2(o jsonObject, a *Arch) {
	readCommon(o, a)
	if o.has("rotary_dim") {
		a.RotaryDim = o.uint("rotary_dim")
		if a.RotaryDim == 0 || a.RotaryDim > a.HeadDim {
			o.fail("rotary_dim", "%d: want a width in [1, head_dim %d]", a.RotaryDim, a.HeadDim)
		}
		a.Rotary[0].Dim = a.RotaryDim
	}
	a.AttnBias = o.boolOr("qkv_bias", false)
	a.QKNorm = o.boolOr("use_qk_norm", false)
	a.tree.qkNorm = qkNormSharded
	a.Experts = o.uint("num_local_experts")
	a.TPWithinExperts = "minimax_m2.py:80-84"
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = a.Intermediate
	a.ScoreCorrectionBias = o.boolOr("use_routing_bias", false)
	if s := o.uintOr("shared_intermediate_size", 0); s > 0 {
		o.fail("shared_intermediate_size", "%d: MiniMax-M2 shared experts are not supported", s)
	}
	a.tree.mlp, a.tree.routerDtype = "block_sparse_moe", routerFP32
	a.MTPLayers = o.uintOr("num_mtp_modules", 0)
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}

var (
	// shardedQKNorms: MiniMax-M2's q_norm and k_norm over the whole
	// projection, divided among the ranks, k_norm by KV head
	// (minimax_m2.py:215-233, MiniMaxText01RMSNormTP).
	shardedQKNorms = []moduleRule{
		{module: "self_attn.q_norm", split: column},
		{module: "self_attn.k_norm", split: column, heads: kvRows},
	}
	// minimaxMoE: MiniMaxAI/MiniMax-M2 (transformers models/minimax_m2/
	// modeling_minimax_m2.py MiniMaxM2SparseMoeBlock; minimax_m2.py:80-125):
	// a float32 router, the float32 routing bias beside it, experts w1,
	// w3, w2.
	minimaxMoE = append(expertsRouted("block_sparse_moe", "gate", "w1", "w3", "w2", moduleRule{fp32: true}),
		moduleRule{module: "block_sparse_moe.e_score_correction_bias", fp32: true})
)

// minimaxM2Class is transformers MiniMaxM2Config, read at huggingface/transformers@008e574391. attribute_map: num_experts is num_local_experts. It has no rotary_dim, which the reader requires.
var minimaxM2Class = configClass{
	Name:   "MiniMaxM2Config",
	Source: "src/transformers/models/minimax_m2/configuration_minimax_m2.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "200064"}, {"hidden_size", "3072"}, {"intermediate_size", "1536"},
		{"num_hidden_layers", "62"}, {"num_attention_heads", "48"}, {"num_key_value_heads", "8"},
		{"head_dim", "128"}, {"max_position_embeddings", "196608"}, {"tie_word_embeddings", "false"},
		{"num_experts_per_tok", "8"}, {"num_local_experts", "256"},
	},
	Aliases: []classAlias{{From: "num_experts", To: "num_local_experts"}},
}

func init() { declareClass("minimax_m2", minimaxM2Class) }
