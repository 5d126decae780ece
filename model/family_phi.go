package model

func init() {
	register("phi", flat(readPhi), ckptFamily(nil, [][]moduleRule{phiLayer}, phiTop))
}

// readPhi reads microsoft/phi-2 (vllm/model_executor/models/phi.py):
// biased attention and MLP (fc1/fc2, ungated), one LayerNorm per layer, a
// head with a bias, partial rotary (partial_rotary_factor, default 0.5);
// everything outside the layers on every pipeline stage.
func readPhi(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias, a.OutBias, a.MLPBias = true, true, true
	a.NormsPerLayer = 1
	t := &a.tree
	t.attnOut, t.mlpNames, t.ungated = "dense", [2]string{"fc1", "fc2"}, true
	t.norm, t.norms, t.layerNorm, t.lmHeadBias = "model.final_layernorm", []string{"input_layernorm"}, true, true
	// phi.py:216-226, 288-294: the embedding, final LayerNorm and head
	// are built on every stage.
	t.onEveryStage()
	a.uniformLayers(o, 0)
}

var (
	// phiLayer: microsoft/phi-2 (transformers models/phi/modeling_phi.py
	// PhiAttention, PhiMLP; vllm/model_executor/models/phi.py): biased
	// q/k/v, dense, fc1 and fc2, one LayerNorm.
	phiLayer = []moduleRule{
		gqaAttention[0], gqaAttention[1], gqaAttention[2],
		{module: "self_attn.dense", split: row},
		{module: "mlp.fc1", split: column},
		{module: "mlp.fc2", split: row},
		{module: "input_layernorm"},
	}
	// phiTop: phi.py builds the embedding, final norm and head (with its
	// bias) on every stage.
	phiTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.final_layernorm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
)

// phiClass is transformers PhiConfig, read at huggingface/transformers@008e574391. partial_rotary_factor 0.5 is __post_init__'s default for configs that predate the key.
var phiClass = configClass{
	Name:   "PhiConfig",
	Source: "src/transformers/models/phi/configuration_phi.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "51200"}, {"hidden_size", "2048"}, {"intermediate_size", "8192"},
		{"num_hidden_layers", "24"}, {"num_attention_heads", "32"}, {"max_position_embeddings", "2048"},
		{"tie_word_embeddings", "false"}, {"partial_rotary_factor", "0.5"},
	},
}

func init() { declareClass("phi", phiClass) }
