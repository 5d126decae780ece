package model

func init() {
	register("opt", flat(readOPT), ckptFamily(optRename, [][]moduleRule{optLayer}, optTop))
}

// readOPT reads facebook/opt (vllm/model_executor/models/opt.py):
// multi-head attention with biases, an ungated ReLU MLP (ffn_dim), learned
// positions, LayerNorms, and embeddings of word_embed_proj_dim projected in
// and out; everything outside the layers is built on every pipeline stage.
func readOPT(o jsonObject, a *Arch) {
	a.Dtype = readDtype(o)
	a.Hidden = o.uint("hidden_size")
	a.NumLayers = o.uint("num_hidden_layers")
	a.Heads = o.uint("num_attention_heads")
	a.KVHeads = a.Heads
	a.Intermediate = o.uint("ffn_dim")
	a.Vocab = o.uint("vocab_size")
	a.MaxPosition = o.uint("max_position_embeddings")
	a.MaxLenKeys = readMaxLenKeys(o)
	a.derivedHeadDim(o) // opt.py:87 ignores any head_dim
	// transformers' PretrainedConfig ties embeddings unless told otherwise.
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	bias := o.boolOr("enable_bias", true)
	a.AttnBias, a.OutBias, a.MLPBias = bias, bias, bias
	a.NormsPerLayer = 2
	a.tree = llamaTree()
	t := &a.tree
	t.attnOut, t.mlpNames, t.ungated = "out_proj", [2]string{"fc1", "fc2"}, true
	t.embed, t.norm, t.norms = "model.decoder.embed_tokens", "model.decoder.final_layer_norm", []string{"self_attn_layer_norm", "final_layer_norm"}
	t.layerNorm = true
	// opt.py:205-253 and OPTForCausalLM build everything outside the
	// layers on every stage.
	t.onEveryStage()
	t.positions = a.MaxPosition + 2 // OPTLearnedPositionalEmbedding's offset of 2 (opt.py:59-68)
	if d := o.uintOr("word_embed_proj_dim", a.Hidden); d != a.Hidden {
		t.embedDim = d
	}
	if !o.boolOr("do_layer_norm_before", true) || o.boolOr("_remove_final_layer_norm", false) {
		t.norm = "" // opt.py:247-253
	}
	// opt.py's mapper puts decoder. under model.; the layers are named
	// model.layers.N here, as every family's.
	t.rename = [][2]string{{"model.decoder.layers.", "model.layers."}, {"decoder.layers.", "model.layers."}, {"decoder.", "model.decoder."}}
	a.Rotary = nil // learned absolute positions
	a.uniformLayers(o, 0)
}

var (
	// optLayer: facebook/opt-125m (transformers models/opt/modeling_opt.py
	// OPTDecoderLayer; opt.py): biased q/k/v and out_proj, an ungated
	// fc1/fc2 MLP, LayerNorms.
	optLayer = []moduleRule{
		gqaAttention[0], gqaAttention[1], gqaAttention[2],
		{module: "self_attn.out_proj", split: row},
		{module: "fc1", split: column},
		{module: "fc2", split: row},
		{module: "self_attn_layer_norm"},
		{module: "final_layer_norm"},
	}
	// optTop: opt.py builds the embeddings, projections, final norm and
	// head on every stage; the positions (max_position + 2 rows) and the
	// projections are replicated (opt.py:205-253).
	optTop = []moduleRule{
		{module: "model.decoder.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.decoder.embed_positions", place: allStages},
		{module: "model.decoder.project_in", place: allStages},
		{module: "model.decoder.project_out", place: allStages},
		{module: "model.decoder.final_layer_norm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
	// optRename: opt.py's mapper puts decoder. under model.; the layers
	// are model.layers.N here, as every family's.
	optRename = [][2]string{{"model.decoder.layers.", "model.layers."}, {"decoder.layers.", "model.layers."}, {"decoder.", "model.decoder."}}
)

// optClass is transformers OPTConfig, read at huggingface/transformers@014674d38b. The class keeps hidden_size as d_model (attribute_map); tie_word_embeddings is PretrainedConfig's, true.
var optClass = configClass{
	Name:   "OPTConfig",
	Source: "src/transformers/models/opt/configuration_opt.py@014674d38b",
	Defaults: []classDefault{
		{"vocab_size", "50272"}, {"max_position_embeddings", "2048"}, {"num_hidden_layers", "12"},
		{"num_attention_heads", "12"}, {"ffn_dim", "3072"}, {"hidden_size", "768"},
		{"do_layer_norm_before", "true"},
	},
	Aliases: []classAlias{{From: "d_model", To: "hidden_size"}},
}

func init() { declareClass("opt", optClass) }
