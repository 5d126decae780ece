package model

func init() {
	f := ckptFamily(gpt2Rename, [][]moduleRule{gpt2Layer}, gpt2Top)
	// gpt2.py:257-259: the causal-mask buffers old checkpoints saved in
	// every layer are skipped by substring.
	f.skipWithin = [][2]string{
		{".attn.bias", "GPT-2's attn.bias causal-mask buffers, which vLLM skips"},
		{".attn.masked_bias", "GPT-2's attn.masked_bias buffers, which vLLM skips"},
	}
	declareClass("gpt2", gpt2Class)
	register("gpt2", flat(readGPT2), f)
	registerArchitectures("gpt2", "GPT2LMHeadModel")
}

// gpt2Class is transformers GPT2Config
// (src/transformers/models/gpt2/configuration_gpt2.py@01ae98ae24): GPT-2
// small's shape under the config's own names, which its attribute_map
// reads hidden_size, max_position_embeddings, num_attention_heads and
// num_hidden_layers as; n_inner None is 4 x n_embd.
var gpt2Class = configClass{
	Name:   "GPT2Config",
	Source: "src/transformers/models/gpt2/configuration_gpt2.py@01ae98ae24",
	Defaults: []classDefault{
		{"vocab_size", "50257"}, {"n_positions", "1024"}, {"n_embd", "768"}, {"n_layer", "12"}, {"n_head", "12"},
	},
	Aliases: []classAlias{{From: "hidden_size", To: "n_embd"}, {From: "max_position_embeddings", To: "n_positions"},
		{From: "num_attention_heads", To: "n_head"}, {From: "num_hidden_layers", To: "n_layer"}},
}

// readGPT2 reads GPT-2 (vllm/model_executor/models/gpt2.py at d18bb7b):
// n_embd, n_head, n_layer and n_positions (GPT2Config's names); multi-head
// attention of hidden_size / heads, c_attn a biased QKVParallelLinear and
// c_proj biased (:70-92); a biased ungated MLP of n_inner, 4 x n_embd when
// null (:113-136, 156); ln_1 and ln_2 (nn.LayerNorm, the model dtype), a
// learned position table wpe of n_positions rows (:203), no rotary; wte,
// wpe, ln_f and the head built on every pipeline stage (GPT2Model and
// GPT2LMHeadModel have no PPMissingLayer, :184-285), the head tied by
// tie_word_embeddings (PretrainedConfig's true). vLLM asserts no cross
// attention and neither scale_attn_by_inverse_layer_idx nor
// reorder_and_upcast_attn (:193-195): such configs are refused. The
// checkpoint's Conv1D weights are [in, out], which vLLM transposes when it
// loads (:242-253): the same bytes.
func readGPT2(o jsonObject, a *Arch) {
	names := [][2]string{{"n_embd", "hidden_size"}, {"n_head", "num_attention_heads"}, {"n_layer", "num_hidden_layers"}, {"n_positions", "max_position_embeddings"}}
	for _, k := range names {
		if !o.has(k[0]) && o.has(k[1]) {
			o.m[k[0]] = o.m[k[1]]
		}
	}
	for _, k := range names {
		if o.has(k[0]) {
			o.m[k[1]] = o.m[k[0]]
		}
	}
	for _, k := range []string{"add_cross_attention", "scale_attn_by_inverse_layer_idx", "reorder_and_upcast_attn"} {
		if o.boolOr(k, false) {
			o.fail(k, "true: vLLM's GPT2Model asserts it false (gpt2.py:193-195)")
		}
	}
	delete(o.m, "num_key_value_heads")
	delete(o.m, "head_dim")
	hidden := o.uintOr("hidden_size", 768)
	if o.has("n_inner") {
		o.m["intermediate_size"] = o.m["n_inner"]
	} else {
		setDefault(o, "intermediate_size", 4*hidden)
	}
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.KVHeads = a.Heads
	a.Rotary, a.RotaryDim = nil, 0
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	a.AttnBias, a.OutBias, a.MLPBias = true, true, true
	t := &a.tree
	t.attn, t.attnOut, t.mlpNames, t.ungated = "attn", "c_proj", [2]string{"c_fc", "c_proj"}, true
	t.embed, t.norm, t.norms, t.layerNorm = "transformer.wte", "transformer.ln_f", []string{"ln_1", "ln_2"}, true
	t.positions, t.positionsName = a.MaxPosition, "transformer.wpe"
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}

var (
	// gpt2Rename: openai-community's checkpoints name their tensors
	// without the transformer. prefix (saved from GPT2Model), which vLLM
	// adds (gpt2.py:371-381); fine-tunes saved from GPT2LMHeadModel keep
	// it.
	gpt2Rename = [][2]string{
		{"transformer.h.", "model.layers."},
		{"h.", "model.layers."},
		{"transformer.wte", "model.embed_tokens"},
		{"wte", "model.embed_tokens"},
		{"transformer.wpe", "model.embed_positions"},
		{"wpe", "model.embed_positions"},
		{"transformer.ln_f", "model.norm"},
		{"ln_f", "model.norm"},
	}
	// gpt2Layer: transformers models/gpt2/modeling_gpt2.py GPT2Block:
	// Conv1D c_attn ([in, 3 x hidden]: each of q, k and v whole), c_proj,
	// mlp.c_fc and mlp.c_proj, ln_1 and ln_2.
	gpt2Layer = []moduleRule{
		{module: "attn.c_attn", split: column, heads: qkvRows},
		{module: "attn.c_proj", split: row},
		{module: "mlp.c_fc", split: column},
		{module: "mlp.c_proj", split: row},
		{module: "ln_1"},
		{module: "ln_2"},
	}
	// gpt2Top: wte (the head when tied), wpe, ln_f and lm_head on every
	// stage.
	gpt2Top = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.embed_positions", place: allStages},
		{module: "model.norm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
)
