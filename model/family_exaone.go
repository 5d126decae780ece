package model

func init() {
	register("exaone", flat(readExaone), ckptFamily(exaoneRename, [][]moduleRule{exaoneLayer}))
	registerArchitectures("exaone", "ExaoneForCausalLM")
}

// readExaone reads EXAONE 3 and 3.5 (vllm/model_executor/models/exaone.py
// at d18bb7b), whose config is the checkpoint's own ExaoneConfig
// (trust_remote_code: configuration_exaone.py, whose attribute_map reads
// num_hidden_layers as num_layers): Llama's layers under GPT-2's names,
// q/k/v and out_proj biased by attention_bias or bias and the MLP by
// mlp_bias, which the class does not define (exaone.py:239-261), head_dim
// or hidden_size / heads (:133-136), every layer full attention; the
// embedding on the first stage (and the last when tied), ln_f and the head
// on the last (:304-327, 405-420).
func readExaone(o jsonObject, a *Arch) {
	if !o.has("num_hidden_layers") && o.has("num_layers") {
		o.m["num_hidden_layers"] = o.m["num_layers"]
	}
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	t := &a.tree
	t.attn, t.attnOut, t.mlpNames = "attn.attention", "out_proj", [2]string{"gate_up_proj", "c_proj"}
	t.embed, t.norm, t.norms = "transformer.wte", "transformer.ln_f", []string{"ln_1", "ln_2"}
	t.packed = map[string][]string{"qkv_proj": {"q_proj", "k_proj", "v_proj"}, "gate_up_proj": {"c_fc_0", "c_fc_1"}}
	a.uniformLayers(o, 0)
}

var (
	// exaoneRename: the checkpoint's transformer.* (the model's
	// modeling_exaone.py: wte, h, ln_f), in the rules' form.
	exaoneRename = [][2]string{
		{"transformer.h.", "model.layers."},
		{"transformer.wte", "model.embed_tokens"},
		{"transformer.ln_f", "model.norm"},
	}
	// exaoneLayer: attn.attention's q/k/v into qkv_proj and out_proj, the
	// gated MLP's c_fc_0 (gate) and c_fc_1 (up) into gate_up_proj and
	// c_proj, ln_1 and ln_2 (exaone.py:371-384).
	exaoneLayer = []moduleRule{
		{module: "attn.attention.q_proj", vllm: "attn.attention.qkv_proj", split: column},
		{module: "attn.attention.k_proj", vllm: "attn.attention.qkv_proj", split: column, heads: kvRows, follower: true},
		{module: "attn.attention.v_proj", vllm: "attn.attention.qkv_proj", split: column, heads: kvRows, follower: true},
		{module: "attn.attention.out_proj", split: row},
		{module: "mlp.c_fc_0", vllm: "mlp.gate_up_proj", split: column},
		{module: "mlp.c_fc_1", vllm: "mlp.gate_up_proj", split: column, follower: true},
		{module: "mlp.c_proj", split: row},
		{module: "ln_1"},
		{module: "ln_2"},
	}
)
