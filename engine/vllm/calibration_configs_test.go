package vllm

import (
	"testing"

	"membudget/model"
)

// standInConfigs are the config.json files of models that the observed
// table logs but corpus/models does not ship, for the observed-table test
// only: each is the model's published config (the source beside it),
// trimmed to the keys membudget reads. The logged weights check each one:
// a wrong dimension would miss "Model loading took" by far more than the
// weights gate.
var standInConfigs = map[string]struct{ source, json string }{
	"google__gemma-2-27b-it": {
		source: "huggingface.co/google/gemma-2-27b-it config.json (Gemma2ForCausalLM; the 27b dimensions of transformers' PaliGemma 2 conversion script and of public Gemma 2 fixtures)",
		json: `{"architectures": ["Gemma2ForCausalLM"], "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0,
 "head_dim": 128, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 4608, "intermediate_size": 36864,
 "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 32, "num_hidden_layers": 46,
 "num_key_value_heads": 16, "query_pre_attn_scalar": 144, "rms_norm_eps": 1e-06, "rope_theta": 10000.0,
 "sliding_window": 4096, "torch_dtype": "bfloat16", "vocab_size": 256000}`,
	},
	"google__gemma-2-2b-it": {
		source: "huggingface.co/google/gemma-2-2b-it config.json (Gemma2ForCausalLM; the 2b dimensions of transformers' PaliGemma 2 conversion script and of public Gemma 2 fixtures)",
		json: `{"architectures": ["Gemma2ForCausalLM"], "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0,
 "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 2304, "intermediate_size": 9216,
 "max_position_embeddings": 8192, "model_type": "gemma2", "num_attention_heads": 8, "num_hidden_layers": 26,
 "num_key_value_heads": 4, "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "rope_theta": 10000.0,
 "sliding_window": 4096, "torch_dtype": "bfloat16", "vocab_size": 256000}`,
	},
}

// observedArchs is the shipped configs and the stand-ins, by file name.
func observedArchs(t testing.TB) map[string]*model.Arch {
	t.Helper()
	archs := shipped(t)
	for name, c := range standInConfigs {
		if _, dup := archs[name]; dup {
			t.Fatalf("stand-in %s is now shipped: drop it from standInConfigs", name)
		}
		a, err := model.ParseConfig(name+".json", []byte(c.json))
		if err != nil {
			t.Fatalf("stand-in %s: %v", name, err)
		}
		archs[name] = a
	}
	return archs
}
