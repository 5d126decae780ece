package model

import "encoding/json"

func init() {
	declareClass("dbrx", dbrxClass)
	declareClass("dbrx_attn_config", dbrxAttnClass)
	declareClass("dbrx_ffn_config", dbrxFFNClass)
	register("dbrx", flat(readDbrx), ckptFamily(dbrxRename, [][]moduleRule{dbrxLayer}, dbrxTop))
	registerArchitectures("dbrx", "DbrxForCausalLM")
}

// dbrxClass is DbrxConfig (transformers models/dbrx/configuration_dbrx.py
// at 032b32a): its own names d_model, n_heads, n_layers and max_seq_len,
// which its attribute_map reads hidden_size, num_attention_heads,
// num_hidden_layers and max_position_embeddings as; an attn_config or
// ffn_config left out is DbrxAttentionConfig() or DbrxFFNConfig(), whose
// defaults then fill it (the {} defaults below, filled by the sub-classes).
var dbrxClass = configClass{
	Name:   "DbrxConfig",
	Source: "src/transformers/models/dbrx/configuration_dbrx.py@032b32a",
	Defaults: []classDefault{
		{"d_model", "2048"}, {"n_heads", "16"}, {"n_layers", "24"}, {"max_seq_len", "2048"}, {"vocab_size", "32000"},
		{"attn_config", "{}"}, {"ffn_config", "{}"},
	},
	Aliases: []classAlias{{From: "hidden_size", To: "d_model"}, {From: "num_attention_heads", To: "n_heads"},
		{From: "num_hidden_layers", To: "n_layers"}, {From: "max_position_embeddings", To: "max_seq_len"}},
	Nested: map[string]string{"attn_config": "dbrx_attn_config", "ffn_config": "dbrx_ffn_config"},
}

// dbrxAttnClass and dbrxFFNClass are DbrxAttentionConfig and DbrxFFNConfig
// (the same file): one KV head, and 4 experts top-1 of 3584.
var (
	dbrxAttnClass = configClass{
		Name:     "DbrxAttentionConfig",
		Source:   "src/transformers/models/dbrx/configuration_dbrx.py@032b32a",
		Defaults: []classDefault{{"kv_n_heads", "1"}},
	}
	dbrxFFNClass = configClass{
		Name:     "DbrxFFNConfig",
		Source:   "src/transformers/models/dbrx/configuration_dbrx.py@032b32a",
		Defaults: []classDefault{{"ffn_hidden_size", "3584"}, {"moe_num_experts", "4"}, {"moe_top_k", "1"}},
	}
)

// readDbrx reads DBRX (vllm/model_executor/models/dbrx.py at d18bb7b):
// Wqkv of d_model / n_heads a head (:199-219; a head_dim key is not read)
// with attn_config.kv_n_heads KV heads (vLLM's KV cache reads the same,
// transformers_utils/model_arch_config_convertor.py:555-561), out_proj,
// neither biased; a MoE block on every layer (:308-333): the router
// ReplicatedLinear(d_model, moe_num_experts) unquantized in the model dtype
// (:51-71), and FusedMoE of ffn_config's moe_num_experts experts top
// moe_top_k of ffn_hidden_size (:144-179). norm_1, norm_2 and norm_f are
// nn.LayerNorm whose biases DbrxModel removes (:288-289, 354-358): a
// weight of d_model each, in the model dtype. Rotary over a whole head and
// max_seq_len positions (:204-232). wte, norm_f and lm_head are built on
// every pipeline stage (DbrxModel and DbrxForCausalLM have no
// PPMissingLayer, :336-450); the head is never tied (:434-435 raises).
// Its expert loader knows no expert map, so expert parallelism over more
// than one rank fails to load (Arch.NoExpertParallel).
func readDbrx(o jsonObject, a *Arch) {
	// DbrxConfig's attribute_map: the standard names read its own.
	names := [][2]string{{"d_model", "hidden_size"}, {"n_heads", "num_attention_heads"}, {"n_layers", "num_hidden_layers"},
		{"max_seq_len", "max_position_embeddings"}}
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
	delete(o.m, "head_dim")
	delete(o.m, "num_key_value_heads")
	// DbrxConfig.__init__ makes a None attn_config or ffn_config its
	// class's defaults, as it does one left out.
	for _, k := range [][2]string{{"attn_config", "dbrx_attn_config"}, {"ffn_config", "dbrx_ffn_config"}} {
		if _, present := o.m[k[0]]; present && !o.has(k[0]) {
			o.m[k[0]] = json.RawMessage("{}")
			if sub, ok := o.object(k[0]); ok {
				o.m[k[0]] = appendMembers(sub.raw, fillClass(k[1], sub, a))
			}
		}
	}
	attn, ok := o.object("attn_config")
	if !ok {
		o.fail("attn_config", "missing (required: DbrxAttentionConfig's kv_n_heads)")
		return
	}
	ffn, ok := o.object("ffn_config")
	if !ok {
		o.fail("ffn_config", "missing (required: DbrxFFNConfig's experts)")
		return
	}
	if o.has("quantization_config") {
		// dbrx.py:92-141: the experts' custom loader lays the stacked w1,
		// v1 and w2 and their scales out its own way, which membudget
		// does not size for a quantized checkpoint.
		o.fail("quantization_config", "present: a quantized DBRX checkpoint's stacked experts (dbrx.py:92-141) are not sized")
	}
	if o.boolOr("tie_word_embeddings", false) {
		o.fail("tie_word_embeddings", "true: vLLM's DbrxForCausalLM raises for a tied head (dbrx.py:434-435)")
	}
	setDefault(o, "num_key_value_heads", attn.uint("kv_n_heads"))
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.RotaryDim = a.HeadDim
	a.Rotary[0].Dim = a.HeadDim
	a.TiedEmbeddings = false
	a.Experts = ffn.uint("moe_num_experts")
	a.ExpertsPerToken = ffn.uint("moe_top_k")
	a.MoEIntermediate = ffn.uint("ffn_hidden_size")
	if a.Experts == 0 {
		ffn.fail("moe_num_experts", "must be above 0 (every DBRX layer is a MoE block)")
	}
	if a.ExpertsPerToken == 0 || a.ExpertsPerToken > a.Experts {
		ffn.fail("moe_top_k", "%d: want 1 to moe_num_experts (%d)", a.ExpertsPerToken, a.Experts)
	}
	if a.MoEIntermediate == 0 {
		ffn.fail("ffn_hidden_size", "must be above 0")
	}
	a.NoExpertParallel = "vLLM's DbrxExperts.weight_loader copies every expert's rows of the stacked w1, v1 and w2 into a rank's share of the experts and slices them by the tensor-parallel rank, whatever the expert map (dbrx.py:92-141): loading fails with the experts divided among ranks"
	t := &a.tree
	t.attn, t.attnOut, t.mlp, t.router = "norm_attn_norm.attn", "out_proj", "ffn", "router.layer"
	t.embed, t.norm, t.norms = "transformer.wte", "transformer.norm_f", []string{"norm_attn_norm.norm_1", "norm_attn_norm.norm_2"}
	t.packed = map[string][]string{}
	t.onEveryStage()
	a.layerTypes = nil // DbrxAttention takes no window
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}

var (
	dbrxRename = [][2]string{
		{"transformer.blocks.", "model.layers."},
		{"transformer.wte", "model.embed_tokens"},
		{"transformer.norm_f", "model.norm"},
	}
	// dbrxLayer: databricks' checkpoints (transformers models/dbrx/
	// modeling_dbrx.py): Wqkv fused, q heads then k then v; out_proj; the
	// router; the experts as three flat tensors of moe_num_experts x
	// ffn_hidden_size rows of d_model, named without .weight (ffn.experts.
	// mlp.w1, v1 and w2), each expert's rows divided among the ranks
	// (dbrx.py:92-141 loads w1 and v1 into w13 and w2, transposed, into
	// w2); the two norms.
	dbrxLayer = []moduleRule{
		{module: "norm_attn_norm.attn.Wqkv", split: column, heads: qkvRows},
		{module: "norm_attn_norm.attn.out_proj", split: row},
		{module: "norm_attn_norm.norm_1"},
		{module: "norm_attn_norm.norm_2"},
		{module: "ffn.router.layer"},
		{module: "ffn.experts.mlp.w1", vllm: "ffn.experts.w13_weight", split: column, expert: stackedExperts},
		{module: "ffn.experts.mlp.v1", vllm: "ffn.experts.w13_weight", split: column, expert: stackedExperts, follower: true},
		{module: "ffn.experts.mlp.w2", vllm: "ffn.experts.w2_weight", split: column, expert: stackedExperts},
	}
	// dbrxTop: wte, norm_f and lm_head on every stage.
	dbrxTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages},
		{module: "model.norm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
)
