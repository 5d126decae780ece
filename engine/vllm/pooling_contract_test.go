package vllm_test

import (
	"slices"
	"testing"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
	"membudget/model"
	"membudget/model/hub"
)

// TestContractOnPoolingServes runs the engine contract over encoder-only
// models under vLLM's pooling runner: the shipped BAAI/bge-base-en-v1.5,
// BGE-M3's numbers (XLM-RoBERTa, 8194 positions), nomic-embed-text-v1.5's
// and gte-base-en-v1.5's, on several classes
// and flag sets, each of which must size (plan equals ledger, monotone,
// the launch line read back sizes the same serve).
func TestContractOnPoolingServes(t *testing.T) {
	t.Parallel()
	bgeM3 := []byte(`{"model_type":"xlm-roberta","architectures":["XLMRobertaModel"],"hidden_size":1024,"num_hidden_layers":24,` +
		`"num_attention_heads":16,"intermediate_size":4096,"vocab_size":250002,"max_position_embeddings":8194,"type_vocab_size":1,` +
		`"pad_token_id":1,"torch_dtype":"float32"}`)
	a, err := model.ParseConfig("bge-m3/config.json", bgeM3)
	if err != nil {
		t.Fatal(err)
	}
	models := []*hub.Loaded{
		enginetest.Shipped(t)["BAAI__bge-base-en-v1.5"],
		{Name: "BAAI/bge-m3", Model: &hub.Model{Spec: "BAAI/bge-m3", Config: bgeM3, Path: "bge-m3/config.json",
			Source: hub.Source{Kind: hub.SourcePath, Description: "test"}}, Arch: a, NoCheckpoint: "test"},
	}
	// The bert_with_rope.py models: Nomic BERT, whose cos/sin cache
	// follows the served max_model_len, and mGTE with an NTK rope.
	for _, c := range []struct{ name, config string }{
		{"nomic-ai/nomic-embed-text-v1.5", `{"model_type":"nomic_bert","architectures":["NomicBertModel"],"activation_function":"swiglu",` +
			`"n_embd":768,"n_layer":12,"n_head":12,"n_inner":3072,"n_positions":8192,"vocab_size":30528,"type_vocab_size":2,` +
			`"qkv_proj_bias":false,"mlp_fc1_bias":false,"mlp_fc2_bias":false,"rotary_emb_base":1000,"rotary_emb_fraction":1.0,"torch_dtype":"float32"}`},
		{"Alibaba-NLP/gte-base-en-v1.5", `{"model_type":"new","architectures":["GteNewModel"],"hidden_act":"gelu","hidden_size":768,` +
			`"num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":8192,"vocab_size":30528,` +
			`"type_vocab_size":0,"rope_theta":500000,"rope_scaling":{"type":"ntk","factor":2.0},"torch_dtype":"float32"}`},
	} {
		arch, err := model.ParseConfig(c.name+"/config.json", []byte(c.config))
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, &hub.Loaded{Name: c.name, Model: &hub.Model{Spec: c.name, Config: []byte(c.config), Path: c.name + "/config.json",
			Source: hub.Source{Kind: hub.SourcePath, Description: "test"}}, Arch: arch, NoCheckpoint: "test"})
	}
	flags := [][]string{
		nil,
		{"--runner", "pooling"},
		{"--tensor-parallel-size", "2"},
		{"--max-model-len", "256", "--max-num-seqs", "32"},
		{"--enforce-eager", "--gpu-memory-utilization", "0.5"},
		{"--max-num-batched-tokens", "16384", "--async-scheduling"},
	}
	for _, m := range models {
		for i, args := range flags {
			class := []string{"l4", "h100-sxm-80g", "a100-40g"}[i%3]
			c, err := membudget.Kernels().Load(class)
			if err != nil {
				t.Fatal(err)
			}
			if m.Arch.Remote != nil {
				// The launch lines of such a model carry it (its config
				// is the checkpoint's code).
				args = append(slices.Clip(args), "--trust-remote-code")
			}
			if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: m, Class: c, Args: args}) == nil {
				t.Errorf("%s on %s %v: refused; want it sized", m.Name, class, args)
			}
		}
	}
}

// TestContractOnConvertedDecoders runs the engine contract over causal
// LMs served as embedding models (--runner pooling, --convert embed):
// Qwen3-8B (its own LM head, not built) and Qwen3-0.6B (tied), under LAST
// and MEAN pooling and a whole-sequence batch; each must size.
func TestContractOnConvertedDecoders(t *testing.T) {
	t.Parallel()
	shipped := enginetest.Shipped(t)
	flags := [][]string{
		{"--runner", "pooling", "--pooler-config", `{"seq_pooling_type": "LAST"}`},
		{"--convert", "embed", "--pooler-config", `{"pooling_type": "MEAN"}`, "--max-model-len", "8192"},
		{"--runner", "pooling", "--max-model-len", "4096", "--max-num-batched-tokens", "4096", "--tensor-parallel-size", "2"},
		{"--runner", "pooling", "--pooler-config", `{"seq_pooling_type": "LAST"}`, "--enforce-eager", "--async-scheduling"},
	}
	for _, name := range []string{"Qwen__Qwen3-8B", "Qwen__Qwen3-0.6B"} {
		for i, args := range flags {
			class := []string{"h100-sxm-80g", "l4"}[i%2]
			c, err := membudget.Kernels().Load(class)
			if err != nil {
				t.Fatal(err)
			}
			if enginetest.Check(t, vllm.Engine{}, enginetest.Case{Model: shipped[name], Class: c, Args: args}) == nil {
				t.Errorf("%s on %s %v: refused; want it sized", name, class, args)
			}
		}
	}
}
