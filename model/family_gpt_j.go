package model

func init() {
	f := ckptFamily(gptJRename, [][]moduleRule{attentionAt("attn")[:3], {{module: "attn.out_proj", split: row}},
		{{module: "mlp.fc_in", split: column}, {module: "mlp.fc_out", split: row}, {module: "ln_1"}}}, gptJTop)
	// gpt_j.py:294: the causal-mask buffers old checkpoints saved in every
	// layer are skipped by substring.
	f.skipWithin = [][2]string{
		{".attn.bias", "GPT-J's attn.bias causal-mask buffers, which vLLM skips"},
		{".attn.masked_bias", "GPT-J's attn.masked_bias buffers, which vLLM skips"},
	}
	declareClass("gptj", gptJDefaults)
	register("gptj", flat(readGPTJ), f)
	registerArchitectures("gptj", "GPTJForCausalLM")
}

// gptJDefaults are GPTJConfig's (transformers models/gptj/
// configuration_gptj.py): GPT-J-6B's shape, under the config's own names.
var gptJDefaults = configClass{
	Name:   "GPTJConfig",
	Source: "src/transformers/models/gptj/configuration_gptj.py",
	Defaults: []classDefault{
		{"vocab_size", "50400"}, {"n_positions", "2048"}, {"n_embd", "4096"}, {"n_layer", "28"}, {"n_head", "16"}, {"rotary_dim", "64"},
	},
	// GPTJConfig's attribute_map: a config may give the standard names.
	Aliases: []classAlias{{From: "hidden_size", To: "n_embd"}, {From: "num_attention_heads", To: "n_head"},
		{From: "num_hidden_layers", To: "n_layer"}, {From: "max_position_embeddings", To: "n_positions"}},
}

// readGPTJ reads GPT-J (vllm/model_executor/models/gpt_j.py at d18bb7b):
// n_embd, n_head, n_layer and n_positions (GPTJConfig's names for
// hidden_size, num_attention_heads, num_hidden_layers and
// max_position_embeddings); unbiased q/k/v and out_proj of hidden_size /
// heads, multi-head (:67-83); rotary_dim of each head rotary (:93-100);
// a biased ungated MLP of n_inner (4 x n_embd when null, :135-146, 165);
// one LayerNorm per layer (attention and MLP in parallel, :166) and ln_f;
// the embedding, ln_f and a biased head built on every pipeline stage
// (:200-209, 259-265), never tied (vLLM asserts it, :255).
func readGPTJ(o jsonObject, a *Arch) {
	// GPTJConfig's attribute_map makes each standard name the n_* one: a
	// config giving either sets it, the class's default fills it, and
	// both names then read it.
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
	hidden := o.uintOr("hidden_size", 4096)
	if o.has("n_inner") {
		o.m["intermediate_size"] = o.m["n_inner"]
	} else {
		setDefault(o, "intermediate_size", 4*hidden)
	}
	delete(o.m, "num_key_value_heads") // QKVParallelLinear over heads alone (:71-76)
	readCommon(o, a)
	a.derivedHeadDim(o)
	if rd := o.uintOr("rotary_dim", 64); rd > 0 && rd <= a.HeadDim && rd%2 == 0 {
		a.RotaryDim = rd
	} else {
		o.fail("rotary_dim", "%d: vLLM asserts an even rotary_dim (gpt_j.py:93), at most a head of %d", rd, a.HeadDim)
	}
	a.Rotary[0].Dim = a.RotaryDim
	if a.TiedEmbeddings = o.boolOr("tie_word_embeddings", false); a.TiedEmbeddings {
		o.fail("tie_word_embeddings", "true: vLLM's GPTJForCausalLM asserts an untied head (gpt_j.py:255)")
	}
	a.MLPBias = true
	a.NormsPerLayer = 1
	t := &a.tree
	t.attn, t.attnOut, t.mlpNames, t.ungated = "attn", "out_proj", [2]string{"fc_in", "fc_out"}, true
	t.embed, t.norm, t.norms, t.layerNorm, t.lmHeadBias = "transformer.wte", "transformer.ln_f", []string{"ln_1"}, true, true
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}

var (
	gptJRename = [][2]string{
		{"transformer.h.", "model.layers."},
		{"transformer.wte", "model.embed_tokens"},
		{"transformer.ln_f", "model.norm"},
	}
	gptJTop = decoderTopOn(allStages, allStages, allStages)
)
