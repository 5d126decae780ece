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
