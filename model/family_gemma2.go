package model

func init() {
	register("gemma2", flat(readGemma2), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms, gemmaNorms}))
}

// readGemma2 reads Gemma 2: four norms per layer, the head tied, the even
// layers sliding unless layer_types says otherwise.
func readGemma2(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.gemmaNorms()
	a.TiedEmbeddings = true // Gemma ties embeddings (transformers Gemma2Config default)
	window := o.uint("sliding_window")
	a.uniformLayers(o, 0)
	if a.layerTypes == nil {
		for i := range a.Layers {
			if i%2 == 0 { // transformers Gemma2: even layers slide
				a.Layers[i].Kind = SlidingAttention
			}
		}
		a.SlidingWindow = window
	}
}

// gemmaNorms gives a layer Gemma's four RMSNorms: before and after the
// attention and the MLP.
func (a *Arch) gemmaNorms() {
	a.NormsPerLayer = 4
	a.tree.norms = []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"}
}

// gemmaNorms: Gemma 2 and 3 norm before and after each block.
var gemmaNorms = []moduleRule{
	{module: "pre_feedforward_layernorm"},
	{module: "post_feedforward_layernorm"},
}

// gemma2Class is transformers Gemma2Config, read at huggingface/transformers@008e574391.
var gemma2Class = configClass{
	Name:   "Gemma2Config",
	Source: "src/transformers/models/gemma2/configuration_gemma2.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "256000"}, {"hidden_size", "2304"}, {"intermediate_size", "9216"},
		{"num_hidden_layers", "26"}, {"num_attention_heads", "8"}, {"num_key_value_heads", "4"},
		{"head_dim", "256"}, {"max_position_embeddings", "8192"}, {"tie_word_embeddings", "true"},
		{"attention_bias", "false"}, {"sliding_window", "4096"},
	},
}

func init() { declareClass("gemma2", gemma2Class) }
