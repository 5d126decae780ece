package model

import (
	"bytes"
	"encoding/json"
)

func init() {
	// inceptionai's Jais 2 checkpoints: Llama's attention names, an
	// ungated up_proj and down_proj, LayerNorms with biases.
	register("jais2", flat(readJais2), ckptFamily(nil, [][]moduleRule{gqaAttention, upDownMLP, twoNorms}))
	registerArchitectures("jais2", "Jais2ForCausalLM")
}

// readJais2 reads Jais 2 (vllm/model_executor/models/jais2.py at
// d18bb7b): q/k/v and o_proj biased by attention_bias or bias (:219-233),
// head_dim or hidden_size / heads (:132-135), an ungated MLP of up_proj
// and down_proj biased by mlp_bias (:73-98, 242), LayerNorms with biases
// (:245-250, 324), Llama's stages (:303-324, 394-408). A layer slides over
// interleaved_sliding_window: every layer over an integer, layer i over
// entry i % len of a list (a null entry: full attention), none without the
// key (:167-179). vLLM raises on any other value (a null), and one window
// per model is what membudget sizes: both are refused.
func readJais2(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false) || o.boolOr("bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	t := &a.tree
	t.ungated, t.mlpNames, t.layerNorm = true, [2]string{"up_proj", "down_proj"}, true
	a.layerTypes = nil
	a.uniformLayers(o, 0)
	raw, present := o.m["interleaved_sliding_window"]
	if !present {
		return
	}
	raw = bytes.TrimSpace(raw)
	var windows []*uint64
	switch {
	case len(raw) > 0 && raw[0] == '[':
		if err := json.Unmarshal(raw, &windows); err != nil || len(windows) == 0 {
			o.fail("interleaved_sliding_window", "must be an integer or a non-empty list of integers and nulls, got %s", short(raw))
			return
		}
	default:
		if !o.has("interleaved_sliding_window") {
			o.fail("interleaved_sliding_window", "null: vLLM's Jais2Attention raises on it (jais2.py:174-177); leave the key out for full attention")
			return
		}
		w := o.uintValue("interleaved_sliding_window")
		windows = []*uint64{&w}
	}
	for i := range a.Layers {
		w := windows[i%len(windows)]
		if w == nil {
			continue
		}
		if a.SlidingWindow != 0 && a.SlidingWindow != *w {
			o.fail("interleaved_sliding_window", "windows %d and %d: membudget sizes one window a model", a.SlidingWindow, *w)
			return
		}
		a.Layers[i].Kind = SlidingAttention
		a.SlidingWindow = *w
	}
}
