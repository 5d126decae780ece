package model

func init() {
	// No checkpoint rules: roberta.py maps roberta.* or bare names to its
	// model (RobertaEmbeddingModel.load_weights); the weights are derived
	// from config.json.
	registerConfigOnly("roberta", flat(readRoberta))
	registerConfigOnly("xlm-roberta", flat(readRoberta))
	registerEncoderArchitectures("roberta", robertaArchs)
	registerEncoderArchitectures("xlm-roberta", xlmRobertaArchs)
	declareClass("roberta", robertaClass)
	declareClass("xlm-roberta", xlmRobertaClass)
}

// robertaArchs and xlmRobertaArchs are the architectures vLLM's
// roberta.py serves with the head membudget sizes (registry.py at
// d18bb7b): RobertaForMaskedLM is RobertaEmbeddingModel, which skips the
// lm_head. BgeM3EmbeddingModel is what BGE-M3 is served as when its
// architectures (or --hf-overrides) name it; XLMRobertaForTokenClassification
// is RobertaForTokenClassification.
var (
	robertaArchs = []encoderArch{
		{"RobertaModel", HeadNone},
		{"RobertaForMaskedLM", HeadNone},
		{"RobertaForSequenceClassification", HeadRobertaClassifier},
		{"RobertaForTokenClassification", HeadTokenClassifier},
	}
	xlmRobertaArchs = []encoderArch{
		{"XLMRobertaModel", HeadNone},
		{"XLMRobertaForSequenceClassification", HeadRobertaClassifier},
		{"BgeM3EmbeddingModel", HeadBgeM3},
		{"XLMRobertaForTokenClassification", HeadTokenClassifier},
	}
)

// readRoberta reads RoBERTa and XLM-RoBERTa: BERT's encoder
// (vllm/model_executor/models/roberta.py builds BertModel with
// RobertaEmbedding), whose positions start after pad_token_id.
func readRoberta(o jsonObject, a *Arch) {
	archs := robertaArchs
	if a.ModelType == "xlm-roberta" {
		archs = xlmRobertaArchs
	}
	readEncoder(o, a, archs, true)
}

// robertaClass is transformers RobertaConfig, which keeps BertConfig's
// defaults but the special tokens (pad_token_id 1): read at
// huggingface/transformers@0b03d5ce05, where it derives from BertConfig.
// Its vocab_size, 50265 upstream, is not listed: the version read here
// does not say it, and a config without it stays an error naming it.
var robertaClass = configClass{
	Name:   "RobertaConfig",
	Source: "src/transformers/models/roberta/configuration_roberta.py@0b03d5ce05",
	Defaults: []classDefault{
		{"hidden_size", "768"}, {"num_hidden_layers", "12"},
		{"num_attention_heads", "12"}, {"intermediate_size", "3072"}, {"max_position_embeddings", "512"},
		{"type_vocab_size", "2"}, {"pad_token_id", "1"}, {"position_embedding_type", `"absolute"`},
	},
}

// xlmRobertaClass is transformers XLMRobertaConfig, read at
// huggingface/transformers@0e6f6f7468 (whose signature no longer names
// position_embedding_type: absent, it is absolute).
var xlmRobertaClass = configClass{
	Name:   "XLMRobertaConfig",
	Source: "src/transformers/models/xlm_roberta/configuration_xlm_roberta.py@0e6f6f7468",
	Defaults: []classDefault{
		{"vocab_size", "30522"}, {"hidden_size", "768"}, {"num_hidden_layers", "12"},
		{"num_attention_heads", "12"}, {"intermediate_size", "3072"}, {"max_position_embeddings", "512"},
		{"type_vocab_size", "2"}, {"pad_token_id", "1"},
	},
}
