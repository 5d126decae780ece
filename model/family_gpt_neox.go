package model

func init() {
	f := ckptFamily(gptNeoXRename, [][]moduleRule{gptNeoXLayer}, gptNeoXTop)
	// gpt_neox.py:264-267: the causal-mask buffers old checkpoints saved
	// in every layer are skipped by substring.
	f.skipWithin = [][2]string{
		{".attention.bias", "GPT-NeoX's attention.bias causal-mask buffers, which vLLM skips"},
		{".attention.masked_bias", "GPT-NeoX's attention.masked_bias buffers, which vLLM skips"},
	}
	declareClass("gpt_neox", gptNeoXDefaults)
	register("gpt_neox", flat(readGPTNeoX), f)
	registerArchitectures("gpt_neox", "GPTNeoXForCausalLM")
}

// gptNeoXDefaults are GPTNeoXConfig's (transformers
// models/gpt_neox/configuration_gpt_neox.py at 008e574): GPT-NeoX-20B's
// shape.
var gptNeoXDefaults = configClass{
	Name:   "GPTNeoXConfig",
	Source: "src/transformers/models/gpt_neox/configuration_gpt_neox.py@008e574",
	Defaults: []classDefault{
		{"vocab_size", "50432"}, {"hidden_size", "6144"}, {"num_hidden_layers", "44"}, {"num_attention_heads", "64"},
		{"intermediate_size", "24576"}, {"max_position_embeddings", "2048"},
	},
}

// readGPTNeoX reads GPT-NeoX (Pythia, GPT-NeoX-20B, Dolly;
// vllm/model_executor/models/gpt_neox.py at d18bb7b): multi-head attention
// whatever num_key_value_heads says (QKVParallelLinear without KV heads,
// :75-82) of hidden_size / heads (:68), query_key_value and dense biased
// by attention_bias (default True, :69), an ungated MLP whose
// ColumnParallelLinear and RowParallelLinear keep their default biases
// (:127-138), two LayerNorms with biases per layer (:158-163), rotary over
// partial_rotary_factor of a head (rotary_pct, default 0.25:
// GPTNeoXConfig.convert_rope_params_to_dict). The embedding, final norm
// and head (embed_out) are built on every pipeline stage (:208-222,
// 281-288); the head is tied only when tie_word_embeddings says so
// (default False).
func readGPTNeoX(o jsonObject, a *Arch) {
	if !o.has("partial_rotary_factor") {
		pct := []byte("0.25")
		if o.has("rotary_pct") {
			pct = o.m["rotary_pct"]
		}
		o.m["partial_rotary_factor"] = pct
	}
	readCommon(o, a)
	a.KVHeads = a.Heads
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.AttnBias = o.boolOr("attention_bias", true)
	a.OutBias = a.AttnBias
	a.MLPBias = true
	t := &a.tree
	t.attn, t.attnOut, t.mlpNames, t.ungated = "attention", "dense", [2]string{"dense_h_to_4h", "dense_4h_to_h"}, true
	t.embed, t.norm, t.layerNorm = "gpt_neox.embed_in", "gpt_neox.final_layer_norm", true
	t.onEveryStage()
	a.uniformLayers(o, 0)
}

var (
	// gptNeoXRename: the checkpoint's gpt_neox.* and embed_out
	// (transformers models/gpt_neox/modeling_gpt_neox.py), in the rules'
	// form.
	gptNeoXRename = [][2]string{
		{"gpt_neox.layers.", "model.layers."},
		{"gpt_neox.embed_in", "model.embed_tokens"},
		{"gpt_neox.final_layer_norm", "model.final_layer_norm"},
		{"embed_out", "lm_head"},
	}
	// gptNeoXLayer: query_key_value fused in the checkpoint (q, k and v
	// interleaved per head; vLLM repacks it, gpt_neox.py:250-262), dense,
	// dense_h_to_4h and dense_4h_to_h, and two LayerNorms.
	gptNeoXLayer = []moduleRule{
		{module: "attention.query_key_value", split: column, heads: qkvRows},
		{module: "attention.dense", split: row},
		{module: "mlp.dense_h_to_4h", split: column},
		{module: "mlp.dense_4h_to_h", split: row},
		{module: "input_layernorm"},
		{module: "post_attention_layernorm"},
	}
	// gptNeoXTop: embed_in, final_layer_norm and embed_out on every stage.
	gptNeoXTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.final_layer_norm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
)
