package modelgen

import (
	"strconv"

	"pgregory.net/rapid"
)

// Encoders draws the encoder-only model_types vLLM serves with its pooling
// runner: bert, roberta, xlm-roberta and modernbert, each under one of the
// architectures whose head the model sizes (an embedding model, a
// sequence classifier of 1 to 8 labels, BGE-M3's heads), with learned
// absolute positions (RoBERTa's after pad_token_id), one or two token
// types, and every head a KV head; ModernBERT with rotary positions, its
// global layers every n-th, biases or none, in transformers 4's keys or
// 5's layer_types and rope_parameters.
func Encoders() *rapid.Generator[map[string]any] { return encoders.generator() }

var encoders = family{types: []string{"bert", "roberta", "xlm-roberta", "modernbert"}, draw: drawEncoder}

// encoderArchitectures are the architectures drawn per model_type.
var encoderArchitectures = map[string][]string{
	"bert":        {"BertModel", "BertForSequenceClassification", "BertForTokenClassification"},
	"roberta":     {"RobertaModel", "RobertaForMaskedLM", "RobertaForSequenceClassification", "RobertaForTokenClassification"},
	"xlm-roberta": {"XLMRobertaModel", "XLMRobertaForSequenceClassification", "BgeM3EmbeddingModel", "XLMRobertaForTokenClassification"},
	"modernbert":  {"ModernBertModel", "ModernBertForSequenceClassification", "ModernBertForTokenClassification"},
}

func drawEncoder(t *rapid.T, modelType string) map[string]any {
	if modelType == "modernbert" {
		return drawModernBert(t)
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
