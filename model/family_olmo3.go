package model

func init() {
	// OLMo 3's q_norm spans every head and k_norm every KV head, whole on
	// every rank (olmo3.py:113-117): qkNorms, whatever their width.
	register("olmo3", flat(readOlmo3), ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, postNorms}, everyStageTop))
}

// readOlmo3 reads OLMo 3 (vllm/model_executor/models/olmo3.py): head_dim
// from hidden_size / heads, whole-width q and k norms, a norm after the
// attention and one after the MLP, sliding layers by layer_types; the
// embedding, final norm and head on every pipeline stage.
func readOlmo3(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.derivedHeadDim(o) // olmo3.py:95-96 ignores any head_dim
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.AttnBias = o.boolOr("attention_bias", false)
	a.QKNorm = true
	a.tree.qkNorm = qkNormFull
	a.tree.norms = []string{"post_attention_layernorm", "post_feedforward_layernorm"}
	a.tree.onEveryStage() // olmo3.py:285-300, 372-379
	// Olmo3Config.__post_init__: without layer_types, each 4th layer full.
	a.periodicLayers(o, 4)
	a.uniformLayers(o, 0)
}

// olmo3Class is transformers Olmo3Config, read at huggingface/transformers@008e574391.
var olmo3Class = configClass{
	Name:   "Olmo3Config",
	Source: "src/transformers/models/olmo3/configuration_olmo3.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "50304"}, {"hidden_size", "4096"}, {"intermediate_size", "11008"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"max_position_embeddings", "2048"},
		{"tie_word_embeddings", "false"}, {"attention_bias", "false"}, {"sliding_window", "4096"},
	},
}

func init() { declareClass("olmo3", olmo3Class) }
