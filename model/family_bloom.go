package model

import "encoding/json"

func init() {
	declareClass("bloom", bloomClass)
	register("bloom", flat(readBloom), ckptFamily(bloomRename, [][]moduleRule{bloomLayer}, bloomTop))
	registerArchitectures("bloom", "BloomForCausalLM")
}

// bloomClass is transformers BloomConfig
// (src/transformers/models/bloom/configuration_bloom.py; the stored copy
// at 04efa883 gives the same defaults): a tiny model's shape under the
// config's own names n_layer and n_head, which its attribute_map reads
// num_hidden_layers and num_attention_heads as; __init__ pops n_embed as
// hidden_size.
var bloomClass = configClass{
	Name:   "BloomConfig",
	Source: "src/transformers/models/bloom/configuration_bloom.py",
	Defaults: []classDefault{
		{"vocab_size", "250880"}, {"hidden_size", "64"}, {"n_layer", "2"}, {"n_head", "8"},
	},
	Aliases: []classAlias{{From: "num_hidden_layers", To: "n_layer"}, {From: "num_attention_heads", To: "n_head"}, {From: "n_embed", To: "hidden_size"}},
}

// readBloom reads BLOOM (vllm/model_executor/models/bloom.py at d18bb7b):
// n_layer and n_head (BloomConfig's names for num_hidden_layers and
// num_attention_heads); multi-head ALiBi attention of hidden_size / heads
// (:94-135, no rotary table), query_key_value and dense biased; an ungated
// biased MLP of 4 x hidden_size whatever n_inner says (:158-171); two
// LayerNorms a layer, one after the embedding (word_embeddings_layernorm)
// and ln_f, all nn.LayerNorm in the model dtype. word_embeddings, its
// norm, ln_f and the head are built on every pipeline stage (BloomModel
// and BloomForCausalLM have no PPMissingLayer, :237-333). vLLM never loads
// lm_head.weight (:362-365): only a tied head holds trained weights, and an
// untied config is refused. The config has no length key: the length, and
// MaxPosition, are vLLM's default of 2048 unless the config gives one.
func readBloom(o jsonObject, a *Arch) {
	names := [][2]string{{"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"}}
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
	delete(o.m, "num_key_value_heads")
	delete(o.m, "head_dim")
	delete(o.m, "intermediate_size")
	_, hasLen := o.m["max_position_embeddings"]
	if !hasLen {
		o.m["max_position_embeddings"] = json.RawMessage("2048")
	}
	readCommon(o, a)
	if !hasLen {
		delete(o.m, "max_position_embeddings")
		a.lenWithoutMaxPosition()
	}
	a.derivedHeadDim(o)
	a.KVHeads = a.Heads
	a.Intermediate = 4 * a.Hidden
	a.Rotary, a.RotaryDim = nil, 0
	if a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true); !a.TiedEmbeddings {
		o.fail("tie_word_embeddings", "false: vLLM's BloomForCausalLM never loads lm_head.weight (bloom.py:362-365), so an untied head would hold no trained weights")
	}
	a.AttnBias, a.OutBias, a.MLPBias = true, true, true
	t := &a.tree
	t.attn, t.attnOut, t.mlpNames, t.ungated = "self_attention", "dense", [2]string{"dense_h_to_4h", "dense_4h_to_h"}, true
	t.embed, t.embedNorm, t.norm, t.layerNorm = "transformer.word_embeddings", "transformer.word_embeddings_layernorm", "transformer.ln_f", true
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}

var (
	// bloomRename: bigscience's checkpoints name their tensors without
	// the transformer. prefix (saved from BloomModel), which vLLM adds
	// (bloom.py:368-374); later saves keep it.
	bloomRename = [][2]string{
		{"transformer.h.", "model.layers."},
		{"h.", "model.layers."},
		{"transformer.word_embeddings_layernorm", "model.embed_layernorm"},
		{"word_embeddings_layernorm", "model.embed_layernorm"},
		{"transformer.word_embeddings", "model.embed_tokens"},
		{"word_embeddings", "model.embed_tokens"},
		{"transformer.ln_f", "model.norm"},
		{"ln_f", "model.norm"},
	}
	// bloomLayer: transformers models/bloom/modeling_bloom.py BloomBlock:
	// query_key_value fused (each head's q, k and v; vLLM regroups them,
	// bloom.py:298-310), dense, dense_h_to_4h, dense_4h_to_h, two
	// LayerNorms.
	bloomLayer = []moduleRule{
		{module: "self_attention.query_key_value", split: column, heads: qkvRows},
		{module: "self_attention.dense", split: row},
		{module: "mlp.dense_h_to_4h", split: column},
		{module: "mlp.dense_4h_to_h", split: row},
		{module: "input_layernorm"},
		{module: "post_attention_layernorm"},
	}
	// bloomTop: word_embeddings (the head), its LayerNorm and ln_f on
	// every stage.
	bloomTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.embed_layernorm", place: allStages},
		{module: "model.norm", place: allStages},
	}
)
