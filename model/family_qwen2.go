package model

func init() {
	register("qwen2", flat(readQwen2), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
}

// readQwen2 reads Qwen2: Llama's layers with q/k/v biases, and with
// use_sliding_window the window on the layers from max_window_layers on.
func readQwen2(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = true // Qwen2 always has q/k/v biases (transformers Qwen2Attention)
	var window uint64
	if o.boolOr("use_sliding_window", false) {
		window = o.uint("sliding_window")
	}
	a.uniformLayers(o, 0)
	if window > 0 && a.layerTypes == nil {
		// transformers Qwen2: layers from max_window_layers on use the window.
		from := o.uintOr("max_window_layers", a.NumLayers)
		for i := range a.Layers {
			if uint64(i) >= from {
				a.Layers[i].Kind = SlidingAttention
			}
		}
		a.SlidingWindow = window
	}
}

// qwen2Class is transformers Qwen2Config, read at huggingface/transformers@008e574391. num_key_value_heads defaults to 32, not to the heads.
var qwen2Class = configClass{
	Name:   "Qwen2Config",
	Source: "src/transformers/models/qwen2/configuration_qwen2.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "151936"}, {"hidden_size", "4096"}, {"intermediate_size", "22016"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "32"},
		{"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"}, {"use_sliding_window", "false"},
		{"sliding_window", "4096"}, {"max_window_layers", "28"},
	},
}

func init() { declareClass("qwen2", qwen2Class) }
