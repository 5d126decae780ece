package model

import "slices"

func init() {
	declareClass("telechat", telechat2Class)
	register("telechat", flat(readTeleChat2), ckptFamily(teleChat2Rename, [][]moduleRule{teleChat2Attention, gatedMLP, twoNorms}))
	registerArchitectures("telechat", "TeleChat2ForCausalLM")
}

// telechat2Class is the remote-code config of TeleChat2's checkpoints,
// model_type "telechat": Telechat2Config (TeleChat2-3B's
// configuration_telechat2.py) and TelechatConfig (Tele-AI/TeleChat2
// model/115B/configuration_telechat.py at f2864e8) give the same
// defaults: 160256 tokens, 4096 wide, 30 layers of 32 heads, an FFN of
// 12288, num_key_value_heads None (multi-head). tie_word_embeddings is
// PretrainedConfig's default, true. Their own names n_layer, n_head and
// ffn_hidden_size are what vLLM's TeleChat2Model reads
// num_hidden_layers, num_attention_heads and intermediate_size as
// (telechat2.py:49-54).
var telechat2Class = configClass{
	Name:   "Telechat2Config",
	Source: "Tele-AI/TeleChat2 model/115B/configuration_telechat.py@f2864e8",
	Defaults: []classDefault{
		{"vocab_size", "160256"}, {"hidden_size", "4096"}, {"n_layer", "30"}, {"n_head", "32"}, {"ffn_hidden_size", "12288"},
		{"tie_word_embeddings", "true"},
	},
	Aliases: []classAlias{{From: "num_hidden_layers", To: "n_layer"}, {From: "num_attention_heads", To: "n_head"},
		{From: "intermediate_size", To: "ffn_hidden_size"}},
}

// readTeleChat2 reads TeleChat2 (TeleChat2ForCausalLM, vllm/
// model_executor/models/telechat2.py at d18bb7b): Llama's layers
// (llama.py) built with bias and mlp_bias set, whose qkv_proj and
// gate_up_proj biases TeleChat2Model then drops (:57-70): o_proj and
// down_proj alone keep a bias of hidden_size. The checkpoint's key_value
// holds every KV head's k and v rows interleaved, split by
// hidden_size / n_head (:72-93), so a head_dim that differs from it
// cannot load. max_position_embeddings, which no TeleChat config writes,
// is llama.py's default 8192 for the rotary table (:264), not a length
// key vLLM derives the maximum length from (seq_length is). Only
// TeleChat2ForCausalLM is served: registry.py at d18bb7b lists no
// TelechatForCausalLM, the name the 115B checkpoint's config gives, and
// TeleChatForCausalLM was removed in 0.25.0 (:789).
func readTeleChat2(o jsonObject, a *Arch) {
	names := [][2]string{{"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"}, {"ffn_hidden_size", "intermediate_size"}}
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
	if archs := o.strings("architectures"); o.has("architectures") && !slices.Contains(archs, "TeleChat2ForCausalLM") {
		o.fail("architectures", "%q: vLLM serves a TeleChat config as TeleChat2ForCausalLM only (registry.py:214 at d18bb7b has no TelechatForCausalLM; TeleChatForCausalLM was removed in 0.25.0, :789)", archs)
	}
	_, hadMax := o.m["max_position_embeddings"]
	setDefault(o, "max_position_embeddings", 8192)
	readCommon(o, a)
	if !hadMax {
		delete(a.MaxLenKeys, "max_position_embeddings")
	}
	if a.Heads > 0 && o.has("head_dim") && a.HeadDim*a.Heads != a.Hidden {
		o.fail("head_dim", "%d: TeleChat2's loader splits key_value by hidden_size / n_head = %d (telechat2.py:78-91)", a.HeadDim, a.Hidden/a.Heads)
	}
	a.AttnBias, a.OutBias, a.MLPBias = false, true, true
	a.tree.downBiasOnly = true
	a.layerTypes = nil // LlamaAttention of TeleChat2 takes no window
	a.uniformLayers(o, 0)
}

var (
	// teleChat2Rename: TeleChat2ForCausalLM's hf_to_vllm_mapper prefixes
	// (telechat2.py:103-113).
	teleChat2Rename = [][2]string{
		{"transformer.h.", "model.layers."},
		{"transformer.word_embeddings", "model.embed_tokens"},
		{"transformer.ln_f", "model.norm"},
	}
	// teleChat2Attention: query, and key_value (every KV head's k and v
	// rows) stacked into qkv_proj; dense is o_proj (telechat2.py:36-44,
	// 72-113).
	teleChat2Attention = []moduleRule{
		{module: "self_attention.query", vllm: "self_attn.qkv_proj", split: column},
		{module: "self_attention.key_value", vllm: "self_attn.qkv_proj", split: column, heads: kvRows, follower: true},
		{module: "self_attention.dense", vllm: "self_attn.o_proj", split: row},
	}
)
