package modelgen

import (
	"strconv"

	"pgregory.net/rapid"
)

// Encoders draws the encoder-only model_types vLLM serves with its pooling
// runner: bert, roberta and xlm-roberta, each under one of the
// architectures whose head the model sizes (an embedding model, a
// sequence classifier of 1 to 8 labels, BGE-M3's heads), with learned
// absolute positions (RoBERTa's after pad_token_id), one or two token
// types, and every head a KV head.
func Encoders() *rapid.Generator[map[string]any] { return encoders.generator() }

var encoders = family{types: []string{"bert", "roberta", "xlm-roberta"}, draw: drawEncoder}

// encoderArchitectures are the architectures drawn per model_type.
var encoderArchitectures = map[string][]string{
	"bert":        {"BertModel", "BertForSequenceClassification", "BertForTokenClassification"},
	"roberta":     {"RobertaModel", "RobertaForMaskedLM", "RobertaForSequenceClassification", "RobertaForTokenClassification"},
	"xlm-roberta": {"XLMRobertaModel", "XLMRobertaForSequenceClassification", "BgeM3EmbeddingModel", "XLMRobertaForTokenClassification"},
}

func drawEncoder(t *rapid.T, modelType string) map[string]any {
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
