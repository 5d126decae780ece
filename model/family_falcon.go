package model

import "encoding/json"

func init() {
	declareClass("falcon", falconClass)
	register("falcon", flat(readFalcon), ckptFamily(falconRename, [][]moduleRule{falconLayer}, falconTop))
	// registry.py at d18bb7b maps both to falcon.py's FalconForCausalLM;
	// RWForCausalLM is the name the first tiiuae checkpoints gave.
	registerArchitectures("falcon", "FalconForCausalLM", "RWForCausalLM")
	// vllm/transformers_utils/config.py:110-111 (jsboige/vllm ffd91ee, vLLM
	// main of 2026-08-14): RWConfig reads the first tiiuae checkpoints'
	// model_types, RefinedWeb (falcon-40b) and RefinedWebModel (falcon-7b).
	declareVLLMClass("RefinedWeb", "falcon", rwClass)
	declareVLLMClass("RefinedWebModel", "falcon", rwClass)
}

// rwRotaryPositions is the rows falcon.py:167 gives the rotary table when
// the config has no max_position_embeddings, as RWConfig never does.
const rwRotaryPositions = 8192

// rwClass is vLLM's RWConfig (vllm/transformers_utils/configs/falcon.py at
// jsboige/vllm ffd91ee, adapted from tiiuae/falcon-7b's configuration_RW.py):
// its attribute_map reads n_layer, n_head and n_head_kv as the standard
// names, its __init__ pops n_embed as hidden_size, and its defaults are
// not FalconConfig's: n_head_kv None is 1, parallel_attn false. It gives no
// max_position_embeddings (falcon.py's rotary then spans 8192 positions,
// and vLLM's max_model_len defaults to 2048: see [readFalcon]).
var rwClass = configClass{
	Name:   "RWConfig",
	Source: "vllm/transformers_utils/configs/falcon.py@ffd91ee",
	Defaults: []classDefault{
		{"vocab_size", "250880"}, {"hidden_size", "64"}, {"num_hidden_layers", "2"}, {"num_attention_heads", "8"},
		{"multi_query", "true"}, {"num_kv_heads", "1"}, {"alibi", "false"}, {"bias", "false"},
		{"parallel_attn", "false"}, {"new_decoder_architecture", "false"},
	},
	Aliases: []classAlias{
		{From: "n_layer", To: "num_hidden_layers"}, {From: "n_head", To: "num_attention_heads"},
		{From: "n_head_kv", To: "num_kv_heads"}, {From: "n_embed", To: "hidden_size"},
	},
}

// falconClass is transformers FalconConfig
// (src/transformers/models/falcon/configuration_falcon.py, the __init__
// signature since num_kv_heads, max_position_embeddings and
// ffn_hidden_size were added; the stored copy at 055855363e predates
// them): falcon-7b's shape, one KV head (multi_query), parallel attention,
// no biases, rotary positions over 2048. num_kv_heads defaults to None,
// which the class makes num_attention_heads. The class has no
// attribute_map; its __init__ pops n_embed as hidden_size.
var falconClass = configClass{
	Name:   "FalconConfig",
	Source: "src/transformers/models/falcon/configuration_falcon.py",
	Defaults: []classDefault{
		{"vocab_size", "65024"}, {"hidden_size", "4544"}, {"num_hidden_layers", "32"}, {"num_attention_heads", "71"},
		{"alibi", "false"}, {"new_decoder_architecture", "false"}, {"multi_query", "true"}, {"parallel_attn", "true"},
		{"bias", "false"}, {"max_position_embeddings", "2048"},
	},
	Aliases: []classAlias{{From: "n_embed", To: "hidden_size"}},
}

// readFalcon reads Falcon (vllm/model_executor/models/falcon.py at
// d18bb7b). The attention is one QKVParallelLinear query_key_value of
// hidden_size / heads a head (:107-141; any head_dim key is ignored), its
// KV heads num_kv_heads under new_decoder_architecture, one under
// multi_query, else as many as heads (:116-121; vLLM's KV cache reads the
// same, transformers_utils/model_arch_config_convertor.py:529-545), and a
// dense output projection; query_key_value, dense and the ungated MLP of 4
// x hidden_size (:235-255, whatever ffn_hidden_size says) are biased by
// bias. The layer norms (:284-304): input_layernorm and
// post_attention_layernorm without parallel_attn; with it ln_attn and
// ln_mlp when num_ln_in_parallel_attn is 2 (None is 2 under
// new_decoder_architecture), else input_layernorm alone; a
// new_decoder_architecture layer without parallel_attn fails in vLLM's
// forward and is refused. Every norm is
// torch.nn.LayerNorm (falcon.py:30), built under vLLM's default dtype
// (model_loader/base_loader.py:53 set_default_torch_dtype), so in the
// model dtype: not vLLM's float32 LayerNorm. Rotary over a whole head
// unless alibi (:160-207: no table then). word_embeddings, ln_f and the
// head are built on every pipeline stage (FalconModel and
// FalconForCausalLM have no PPMissingLayer, :365-513); the head is tied
// unless tie_word_embeddings says false (:497-509).
func readFalcon(o jsonObject, a *Arch) {
	// RWConfig's names (vllm/transformers_utils/configs/falcon.py, the
	// class vLLM reads model_type RefinedWeb and RefinedWebModel with, and
	// membudget with it: rwClass) in a model_type falcon config, which
	// FalconConfig does not read: refused rather than guessed.
	rw := vllmClassTypes[o.str("model_type")] == "falcon"
	noLen := false
	for _, k := range []string{"n_layer", "n_head", "n_head_kv"} {
		if o.has(k) && !rw {
			o.fail(k, "RWConfig's name (vLLM's class for model_type RefinedWeb and RefinedWebModel, which reads it), which transformers FalconConfig, the class of model_type falcon, does not read as a shape; give num_hidden_layers, num_attention_heads or num_kv_heads")
		}
	}
	if rw {
		// RWConfig.__init__: "Hack for falcon-40b", a width of 8192 is the
		// new decoder architecture whatever the file says.
		if o.uintOr("hidden_size", 0) == 8192 {
			o.m["new_decoder_architecture"] = []byte("true")
		}
		// RWConfig has no max_position_embeddings: falcon.py:167 builds
		// the rotary table over getattr(config, "max_position_embeddings",
		// 8192), and vLLM's max_model_len, with no length key in the
		// config, is its default_max_len 2048 (vllm/config/model.py
		// _get_and_verify_max_len), as for BLOOM.
		if !o.has("max_position_embeddings") {
			noLen = true
			o.m["max_position_embeddings"] = json.RawMessage("2048")
		}
	}
	newArch := o.boolOr("new_decoder_architecture", false)
	parallel := o.boolOr("parallel_attn", true)
	alibi := o.boolOr("alibi", false)
	delete(o.m, "head_dim")
	delete(o.m, "num_key_value_heads")
	readCommon(o, a)
	if noLen {
		delete(o.m, "max_position_embeddings")
		a.lenWithoutMaxPosition()
	}
	a.derivedHeadDim(o)
	switch {
	case newArch:
		a.KVHeads = o.uintOr("num_kv_heads", a.Heads)
	case o.boolOr("multi_query", true):
		a.KVHeads = 1
	default:
		a.KVHeads = a.Heads
	}
	if ffn := o.uintOr("ffn_hidden_size", 4*a.Hidden); ffn != 4*a.Hidden {
		o.fail("ffn_hidden_size", "%d: vLLM's FalconMLP builds 4 x hidden_size = %d (falcon.py:235-255), which a checkpoint of %d would not load into", ffn, 4*a.Hidden, ffn)
	}
	a.Intermediate = 4 * a.Hidden
	if alibi {
		a.Rotary, a.RotaryDim = nil, 0
	} else {
		a.RotaryDim = rotaryDim(o, a, a.HeadDim)
		a.Rotary[0].Dim = a.RotaryDim
		if noLen {
			a.Rotary[0].Positions = rwRotaryPositions
		}
	}
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	bias := o.boolOr("bias", false)
	a.AttnBias, a.OutBias, a.MLPBias = bias, bias, bias
	numLn := o.uintOr("num_ln_in_parallel_attn", 0)
	if !o.has("num_ln_in_parallel_attn") && newArch {
		numLn = 2
	}
	t := &a.tree
	t.attn, t.attnOut, t.mlpNames, t.ungated = "self_attention", "dense", [2]string{"dense_h_to_4h", "dense_4h_to_h"}, true
	t.embed, t.norm, t.layerNorm = "transformer.word_embeddings", "transformer.ln_f", true
	switch {
	case !parallel && newArch:
		// falcon.py:317-346: the layer then runs ln_attn, which it did not
		// build, or (num_ln_in_parallel_attn 1) never sets the MLP's input.
		o.fail("parallel_attn", "false under new_decoder_architecture: vLLM's FalconDecoderLayer cannot run that layer (falcon.py:290-346)")
	case !parallel:
		t.norms = []string{"input_layernorm", "post_attention_layernorm"}
	case numLn == 2:
		t.norms = []string{"ln_attn", "ln_mlp"}
	default:
		t.norms = []string{"input_layernorm"}
	}
	a.NormsPerLayer = uint64(len(t.norms))
	t.onEveryStage()
	a.layerTypes = nil
	a.uniformLayers(o, 0)
}

var (
	falconRename = [][2]string{
		{"transformer.h.", "model.layers."},
		{"transformer.word_embeddings", "model.embed_tokens"},
		{"transformer.ln_f", "model.norm"},
	}
	// falconLayer: tiiuae's checkpoints (transformers models/falcon/
	// modeling_falcon.py FalconDecoderLayer): query_key_value fused, each
	// KV group's q heads then its k and v (vLLM regroups them,
	// falcon.py:442-472), dense, dense_h_to_4h and dense_4h_to_h; the
	// norms, in the model dtype.
	falconLayer = []moduleRule{
		{module: "self_attention.query_key_value", split: column, heads: qkvRows},
		{module: "self_attention.dense", split: row},
		{module: "mlp.dense_h_to_4h", split: column},
		{module: "mlp.dense_4h_to_h", split: row},
		{module: "input_layernorm"},
		{module: "post_attention_layernorm"},
		{module: "ln_attn"},
		{module: "ln_mlp"},
	}
	// falconTop: word_embeddings (the head when tied), ln_f and
	// lm_head on every stage.
	falconTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.norm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
)
