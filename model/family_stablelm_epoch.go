package model

func init() {
	// Stability's remote-code StableLM checkpoints (stablelm-3b-4e1t before
	// its transformers port, stable-code-3b, stablelm-zephyr-3b) name their
	// tensors as StableLM's; vLLM serves StableLMEpochForCausalLM with
	// stablelm.py's StablelmForCausalLM (registry.py:211).
	register("stablelm_epoch", flat(readStableLMEpoch), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, everyStageTop))
	registerArchitectures("stablelm_epoch", "StableLMEpochForCausalLM")
}

// readStableLMEpoch reads a stablelm_epoch config as vLLM's stablelm.py (at
// d18bb7b) builds it: StableLM's layers (see [readStableLM]), but its
// config class is the checkpoint's own StableLMEpochConfig
// (trust_remote_code), so no class fills a key the file omits. Its rope_pct
// is none of the names vLLM's patch_rope_parameters takes for the partial
// rotary factor (partial_rotary_factor, rotary_pct, rotary_emb_fraction:
// vllm/transformers_utils/config.py:535-545), so get_rope rotates the
// whole head (layers/rotary_embedding/__init__.py:68-72): the cos/sin table
// is max_position_embeddings x head_dim whatever rope_pct says. A file
// transformers saved leaves tie_word_embeddings out only when it is both
// PretrainedConfig's and the class's true (to_diff_dict keeps a value that
// differs from either): the head is tied unless it says false.
// num_key_value_heads is required: vLLM reads the attribute
// (stablelm.py:109) and a saved remote config always holds it.
func readStableLMEpoch(o jsonObject, a *Arch) {
	o.uint("num_key_value_heads")
	if !o.has("partial_rotary_factor") {
		for _, k := range []string{"rotary_pct", "rotary_emb_fraction"} {
			if o.has(k) {
				o.m["partial_rotary_factor"] = o.m[k]
				break
			}
		}
	}
	readCommon(o, a)
	a.derivedHeadDim(o) // stablelm.py:119, whatever head_dim says
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	a.AttnBias = o.boolOr("use_qkv_bias", false)
	for _, k := range []string{"qk_layernorm", "use_parallel_residual"} {
		if o.boolOr(k, false) {
			o.fail(k, "true: vLLM's StablelmForCausalLM builds neither per-head q/k norms nor a parallel-residual layer (stablelm.py:94-215)")
		}
	}
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	t := &a.tree
	t.layerNorm = true
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}
