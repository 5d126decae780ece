package model

func init() {
	register("gpt_oss", flat(readGptOss), ckptFamily(nil, [][]moduleRule{gptOssLayer}, inVLLM("model.embed_tokens", "model.embedding", everyStageTop)))
}

// readGptOss reads openai/gpt-oss (vllm/model_executor/models/gpt_oss.py):
// every layer MoE with a biased router and biased experts, biased attention
// with per-head sinks, sliding-window attention on the even layers (vLLM
// reads the layer index, not layer_types: gpt_oss.py:157), a YaRN rope
// table in float32, and the embedding, norm and head on every stage.
func readGptOss(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias, a.OutBias = true, true
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uintOr("num_experts_per_tok", o.uintOr("experts_per_token", 0))
	if a.ExpertsPerToken == 0 {
		o.fail("num_experts_per_tok", "missing (required)")
	}
	a.MoEIntermediate = a.Intermediate
	t := &a.tree
	t.attn, t.embed, t.sinks = "attn", "model.embedding", true
	t.router, t.routerBias, t.expertBias = "router", true, true
	t.onEveryStage()
	window := o.uint("sliding_window")
	a.layerTypes = nil
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = true
		if i%2 == 0 {
			a.Layers[i].Kind = SlidingAttention
		}
	}
	a.SlidingWindow = window
	a.Rotary[0].Dtype = "float32" // gpt_oss.py:91-107 builds its rope in float32
}

// gptOssLayer: openai/gpt-oss-20b (names as pytorch/torchtitan
// torchtitan/models/gpt_oss/state_dict_adapter.py lists them, MXFP4
// and bf16): biased q/k/v/o with per-head sinks, a biased router, the
// experts stacked, as MXFP4 blocks [E, 2I, H/32, 16] and scales [E,
// 2I, H/32] (down [E, H, I/32, 16] and [E, H, I/32]) or as bf16
// gate_up_proj [E, H, 2I] and down_proj [E, I, H], with their biases
// [E, 2I] and [E, H] (gpt_oss.py:380-560, 990-1080).
var gptOssLayer = inVLLM("self_attn.", "attn.", gqaAttention, []moduleRule{
	{module: "self_attn.sinks", split: column},
	{module: "mlp.router"},
	stackedAt("mlp.experts.gate_up_proj_blocks", "mlp.experts.w13_weight", stackedLayout{inter: 1, hidden: 2, hiddenUnit: 32, shards: 2}),
	stackedAt("mlp.experts.gate_up_proj_scales", "mlp.experts.w13_weight_scale", stackedLayout{inter: 1, hidden: 2, hiddenUnit: 32, shards: 2}),
	stackedAt("mlp.experts.down_proj_blocks", "mlp.experts.w2_weight", stackedLayout{inter: 2, interUnit: 32, hidden: 1, shards: 1}),
	stackedAt("mlp.experts.down_proj_scales", "mlp.experts.w2_weight_scale", stackedLayout{inter: 2, interUnit: 32, hidden: 1, shards: 1}),
	stackedAt("mlp.experts.gate_up_proj_bias", "mlp.experts.w13_bias", stackedLayout{inter: 1, hidden: -1, shards: 2, bias: true}),
	stackedAt("mlp.experts.down_proj_bias", "mlp.experts.w2_bias", stackedLayout{inter: -1, hidden: 1, bias: true}),
	stackedAt("mlp.experts.gate_up_proj", "mlp.experts.w13_weight", gateUpInOut),
	stackedAt("mlp.experts.down_proj", "mlp.experts.w2_weight", downInOut),
}, twoNorms)

// gptOssClass is transformers GptOssConfig, read at huggingface/transformers@02b8f42b42. attribute_map: num_experts is num_local_experts. The class's yarn rope_parameters default is not filled: the published configs give theirs.
var gptOssClass = configClass{
	Name:   "GptOssConfig",
	Source: "src/transformers/models/gpt_oss/configuration_gpt_oss.py@02b8f42b42",
	Defaults: []classDefault{
		{"num_hidden_layers", "36"}, {"num_local_experts", "128"}, {"vocab_size", "201088"},
		{"hidden_size", "2880"}, {"intermediate_size", "2880"}, {"head_dim", "64"},
		{"num_attention_heads", "64"}, {"num_key_value_heads", "8"}, {"sliding_window", "128"},
		{"tie_word_embeddings", "false"}, {"max_position_embeddings", "131072"}, {"num_experts_per_tok", "4"},
	},
	Aliases: []classAlias{{From: "num_experts", To: "num_local_experts"}},
}

func init() { declareClass("gpt_oss", gptOssClass) }
