package modelgen

import (
	"strconv"

	"pgregory.net/rapid"
)

// encoders draws the encoder-only model_types vLLM serves with its pooling
// runner: bert, roberta, xlm-roberta and modernbert, each under one of the
// architectures whose head the model sizes (an embedding model, a
// sequence classifier of 1 to 8 labels, BGE-M3's heads), with learned
// absolute positions (RoBERTa's after pad_token_id), one or two token
// types, and every head a KV head; ModernBERT with rotary positions, its
// global layers every n-th, biases or none, in transformers 4's keys or
// 5's layer_types and rope_parameters; the bert_with_rope.py models (Nomic
// BERT under its GPT-2 names, mGTE, Arctic-Embed 2.0) with rotary
// positions over the whole head or a part, gated or not, biased or not.
var encoders = family{types: []string{"bert", "roberta", "xlm-roberta", "modernbert", "nomic_bert", "new", "gte"}, draw: drawEncoder}

// encoderArchitectures are the architectures drawn per model_type.
var encoderArchitectures = map[string][]string{
	"bert":        {"BertModel", "BertForSequenceClassification", "BertForTokenClassification"},
	"roberta":     {"RobertaModel", "RobertaForMaskedLM", "RobertaForSequenceClassification", "RobertaForTokenClassification"},
	"xlm-roberta": {"XLMRobertaModel", "XLMRobertaForSequenceClassification", "BgeM3EmbeddingModel", "XLMRobertaForTokenClassification"},
	"modernbert":  {"ModernBertModel", "ModernBertForSequenceClassification", "ModernBertForTokenClassification"},
	"nomic_bert":  {"NomicBertModel"},
	"new":         {"GteNewModel", "GteNewForSequenceClassification"},
	"gte":         {"GteModel"},
}

func drawEncoder(t *rapid.T, modelType string) map[string]any {
	switch modelType {
	case "modernbert":
		return drawModernBert(t)
	case "nomic_bert", "new", "gte":
		return drawBertWithRope(t, modelType)
	}
	heads := rapid.SampledFrom(headCounts).Draw(t, "heads")
	headDim := rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "head_dim")
	arch := rapid.SampledFrom(encoderArchitectures[modelType]).Draw(t, "architecture")
	c := map[string]any{
		"model_type":              modelType,
		"architectures":           []string{arch},
		"hidden_size":             heads * headDim,
		"num_hidden_layers":       rapid.Uint64Range(1, 24).Draw(t, "layers"),
		"num_attention_heads":     heads,
		"intermediate_size":       128 * rapid.Uint64Range(1, 64).Draw(t, "inter_x128"),
		"vocab_size":              rapid.Uint64Range(256, 262144).Draw(t, "vocab"),
		"max_position_embeddings": rapid.SampledFrom([]uint64{130, 512, 514, 2050, 8194}).Draw(t, "max_position"),
		"type_vocab_size":         rapid.Uint64Range(1, 2).Draw(t, "token_types"),
		"torch_dtype":             rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "dtype"),
		"position_embedding_type": "absolute",
	}
	if modelType == "bert" {
		c["pad_token_id"] = uint64(0)
	} else {
		c["pad_token_id"] = uint64(1)
	}
	switch arch {
	case "BertForSequenceClassification", "RobertaForSequenceClassification", "XLMRobertaForSequenceClassification",
		"BertForTokenClassification", "RobertaForTokenClassification", "XLMRobertaForTokenClassification":
		labels := rapid.Uint64Range(1, 8).Draw(t, "labels")
		if rapid.Bool().Draw(t, "id2label") {
			m := map[string]any{}
			for i := range labels {
				m[strconv.FormatUint(i, 10)] = "LABEL_" + strconv.FormatUint(i, 10)
			}
			c["id2label"] = m
		} else {
			c["num_labels"] = labels
		}
	}
	return c
}

// drawModernBert draws a ModernBERT config: heads and widths as the
// encoders', rotary positions of 64 to 8192, the global layers every
// 1 to 4 layers (or named by layer_types), bases that differ or agree.
func drawModernBert(t *rapid.T) map[string]any {
	heads := rapid.SampledFrom(headCounts).Draw(t, "heads")
	headDim := rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "head_dim")
	arch := rapid.SampledFrom(encoderArchitectures["modernbert"]).Draw(t, "architecture")
	layers := rapid.Uint64Range(1, 28).Draw(t, "layers")
	c := map[string]any{
		"model_type":              "modernbert",
		"architectures":           []string{arch},
		"hidden_size":             heads * headDim,
		"num_hidden_layers":       layers,
		"num_attention_heads":     heads,
		"intermediate_size":       64 * rapid.Uint64Range(1, 64).Draw(t, "inter_x64"),
		"vocab_size":              rapid.Uint64Range(256, 262144).Draw(t, "vocab"),
		"max_position_embeddings": rapid.SampledFrom([]uint64{64, 512, 8192}).Draw(t, "max_position"),
		"torch_dtype":             rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "dtype"),
		"norm_bias":               rapid.Bool().Draw(t, "norm_bias"),
		"attention_bias":          rapid.Bool().Draw(t, "attention_bias"),
		"mlp_bias":                rapid.Bool().Draw(t, "mlp_bias"),
		"classifier_bias":         rapid.Bool().Draw(t, "classifier_bias"),
		"classifier_pooling":      rapid.SampledFrom([]string{"cls", "mean"}).Draw(t, "classifier_pooling"),
	}
	global := 160000.0
	local := rapid.SampledFrom([]float64{10000, 160000}).Draw(t, "local_rope_theta")
	if rapid.Bool().Draw(t, "transformers5") {
		types := make([]string, layers)
		for i := range types {
			types[i] = rapid.SampledFrom([]string{"full_attention", "sliding_attention"}).Draw(t, "layer_type")
		}
		c["layer_types"] = types
		c["rope_parameters"] = map[string]any{
			"full_attention":    map[string]any{"rope_type": "default", "rope_theta": global},
			"sliding_attention": map[string]any{"rope_type": "default", "rope_theta": local},
		}
	} else {
		c["global_attn_every_n_layers"] = rapid.Uint64Range(1, 4).Draw(t, "global_every")
		c["global_rope_theta"] = global
		c["local_rope_theta"] = local
	}
	if arch != "ModernBertModel" {
		labels := rapid.Uint64Range(1, 8).Draw(t, "labels")
		c["num_labels"] = labels
	}
	return c
}

// drawBertWithRope draws a bert_with_rope.py config: Nomic BERT in its
// GPT-2 names (swiglu or gelu, one bias switch for every linear layer, a
// rotated fraction of the head), or mGTE / Arctic-Embed 2.0 (GeGLU from
// hidden_act gelu, biased, the default or an NTK rope, the whole head or
// rotary_emb_dim of it), 0 to 2 token types.
func drawBertWithRope(t *rapid.T, modelType string) map[string]any {
	heads := rapid.SampledFrom(headCounts).Draw(t, "heads")
	headDim := rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "head_dim")
	arch := rapid.SampledFrom(encoderArchitectures[modelType]).Draw(t, "architecture")
	layers := rapid.Uint64Range(1, 24).Draw(t, "layers")
	inter := 128 * rapid.Uint64Range(1, 64).Draw(t, "inter_x128")
	positions := rapid.SampledFrom([]uint64{512, 2048, 8192}).Draw(t, "max_position")
	c := map[string]any{
		"model_type":      modelType,
		"architectures":   []string{arch},
		"vocab_size":      rapid.Uint64Range(256, 262144).Draw(t, "vocab"),
		"type_vocab_size": rapid.Uint64Range(0, 2).Draw(t, "token_types"),
		"torch_dtype":     rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "dtype"),
	}
	if modelType == "nomic_bert" {
		bias := rapid.Bool().Draw(t, "bias")
		c["n_embd"], c["n_layer"], c["n_head"], c["n_inner"], c["n_positions"] = heads*headDim, layers, heads, inter, positions
		c["activation_function"] = rapid.SampledFrom([]string{"swiglu", "gelu"}).Draw(t, "activation")
		c["qkv_proj_bias"], c["mlp_fc1_bias"], c["mlp_fc2_bias"] = bias, bias, bias
		c["rotary_emb_fraction"] = rapid.SampledFrom([]float64{0.25, 0.5, 1.0}).Draw(t, "rotary_fraction")
		c["rotary_emb_base"] = 1000
		return c
	}
	c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"], c["intermediate_size"] = heads*headDim, layers, heads, inter
	c["max_position_embeddings"] = positions
	c["hidden_act"] = "gelu"
	c["rope_theta"] = rapid.SampledFrom([]float64{10000, 160000, 500000}).Draw(t, "rope_theta")
	if rapid.Bool().Draw(t, "ntk") {
		c["rope_scaling"] = map[string]any{"type": "ntk", "factor": rapid.SampledFrom([]float64{2, 8}).Draw(t, "ntk_factor")}
	}
	if rapid.Bool().Draw(t, "partial_rotary") {
		c["rotary_emb_dim"] = headDim / 2
	}
	if arch == "GteNewForSequenceClassification" {
		c["num_labels"] = rapid.Uint64Range(1, 8).Draw(t, "labels")
	}
	return c
}
