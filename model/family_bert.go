package model

func init() {
	// No checkpoint rules: BERT checkpoints name their tensors three ways
	// (bert.*, bare, and the legacy gamma/beta LayerNorms that bert.py's
	// hf_to_vllm_mapper renames); the weights are derived from config.json.
	registerConfigOnly("bert", flat(readBert))
	registerEncoderArchitectures("bert", bertArchs)
	declareClass("bert", bertClass)
}

// bertArchs are the architectures of vLLM's registry that bert.py serves
// with the head membudget sizes (vllm/model_executor/models/registry.py at
// d18bb7b: BertModel is BertEmbeddingModel). BertForMaskedLM and
// BertSpladeSparseEmbeddingModel build heads that are not read (logits
// over the vocabulary for every token).
var bertArchs = []encoderArch{
	{"BertModel", HeadNone},
	{"BertForSequenceClassification", HeadBertClassifier},
	{"BertForTokenClassification", HeadTokenClassifier},
	// colbert.py ColBERTModel (registry.py: HF_ColBERT), BertModel and
	// its projection.
	{"HF_ColBERT", HeadColBERT},
}

// readBert reads BERT (vllm/model_executor/models/bert.py): an encoder of
// biased linear layers and LayerNorms over learned absolute positions.
func readBert(o jsonObject, a *Arch) {
	readEncoder(o, a, bertArchs, false)
}

// bertClass is transformers BertConfig, read at
// huggingface/transformers@008f5c8c29.
var bertClass = configClass{
	Name:   "BertConfig",
	Source: "src/transformers/models/bert/configuration_bert.py@008f5c8c29",
	Defaults: []classDefault{
		{"vocab_size", "30522"}, {"hidden_size", "768"}, {"num_hidden_layers", "12"},
		{"num_attention_heads", "12"}, {"intermediate_size", "3072"}, {"max_position_embeddings", "512"},
		{"type_vocab_size", "2"}, {"pad_token_id", "0"}, {"position_embedding_type", `"absolute"`},
	},
}
