package model

import "slices"

func init() {
	declareClass("cohere", cohereDefaults)
	cohere2 := cohereDefaults
	cohere2.Name = "Cohere2Config"
	cohere2.Source = "src/transformers/models/cohere2/configuration_cohere2.py@008e574"
	cohere2.Defaults = append(slices.Clone(cohereDefaults.Defaults), classDefault{"sliding_window", "4096"})
	declareClass("cohere2", cohere2)
	register("cohere", flat(readCohere), ckptFamily(nil, [][]moduleRule{gqaAttention, cohereQKNorms, gatedMLP, cohereNorm}, cohereTop))
	register("cohere2", flat(readCohere), ckptFamily(nil, [][]moduleRule{gqaAttention, cohereQKNorms, gatedMLP, cohereNorm}, cohereTop))
	registerArchitectures("cohere", "CohereForCausalLM")
	registerArchitectures("cohere2", "Cohere2ForCausalLM")
}

// cohereDefaults are CohereConfig's and Cohere2Config's (transformers
// models/cohere/configuration_cohere.py and models/cohere2/
// configuration_cohere2.py at 008e574): Command R+'s shape; Cohere2's
// sliding_window 4096.
var cohereDefaults = configClass{
	Name:   "CohereConfig",
	Source: "src/transformers/models/cohere/configuration_cohere.py@008e574",
	Defaults: []classDefault{
		{"vocab_size", "256000"}, {"hidden_size", "8192"}, {"intermediate_size", "22528"}, {"num_hidden_layers", "40"},
		{"num_attention_heads", "64"}, {"max_position_embeddings", "8192"},
	},
}

// readCohere reads Command R and R+ (cohere) and Command R7B and A
// (cohere2), both vllm/model_executor/models/commandr.py at d18bb7b:
// unbiased q/k/v, o_proj and gated MLP whatever attention_bias says
// (:102-112, 159-172), head_dim hidden_size / heads (:140), one weight-only
// LayerNorm per layer (attention and MLP in parallel, :254) and a final
// one, q and k norms of [heads, head_dim] and [KV heads, head_dim] on each
// rank with use_qk_norm (:201-208); the embedding, every layer's and the
// final norm built on every pipeline stage (CohereModel has no
// PPMissingLayer, :292-304), the head the embedding itself: vLLM asserts
// tie_word_embeddings (:371-373). cohere keeps every layer full attention
// (v1, :183); cohere2 slides on the layers layer_types names, or every
// layer but each sliding_window_pattern-th (Cohere2Config.__post_init__,
// default 4), over sliding_window (default 4096).
func readCohere(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.derivedHeadDim(o)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.Rotary[0].Dim = a.RotaryDim
	if a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true); !a.TiedEmbeddings {
		o.fail("tie_word_embeddings", "false: vLLM's CohereForCausalLM requires the head tied to the embedding (commandr.py:371-373)")
	}
	a.QKNorm = o.boolOr("use_qk_norm", false)
	a.NormsPerLayer = 1
	t := &a.tree
	t.qkNorm, t.norms = qkNormSharded, []string{"input_layernorm"}
	t.embedEveryStage, t.normEveryStage = true, true
	if a.ModelType == "cohere" {
		a.layerTypes = nil // v1 never slides, whatever the config lists
		a.uniformLayers(o, 0)
		return
	}
	if a.layerTypes == nil && a.NumLayers <= 1<<16 {
		pattern := o.uintOr("sliding_window_pattern", 4)
		if pattern == 0 {
			o.fail("sliding_window_pattern", "must be above 0 (Cohere2Config takes the layer index modulo it)")
			return
		}
		a.layerTypes = make([]string, a.NumLayers)
		for i := range a.layerTypes {
			a.layerTypes[i] = "sliding_attention"
			if (uint64(i)+1)%pattern == 0 {
				a.layerTypes[i] = "full_attention"
			}
		}
	}
	a.uniformLayers(o, 0)
}

var (
	// cohereQKNorms: use_qk_norm's [heads, head_dim] q_norm and [KV
	// heads, head_dim] k_norm, each rank loading its heads' rows
	// (row_parallel_weight_loader, commandr.py:76-81).
	cohereQKNorms = []moduleRule{
		{module: "self_attn.q_norm", split: column},
		{module: "self_attn.k_norm", split: column, heads: kvRows},
	}
	cohereNorm = []moduleRule{{module: "input_layernorm"}}
	// cohereTop: the embedding (the head too) and the final norm on every
	// stage.
	cohereTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.norm", place: allStages},
	}
)
