package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// StarCoder 2 (Starcoder2ForCausalLM) through vLLM's Transformers backend.
// No published config.json was found in the stored material, so no file
// is shipped: the shapes below are the ones TensorRT-LLM's StarCoder2 test
// gives "based on HuggingFace configs" (tests/unittest/_torch/modeling/
// test_modeling_starcoder2.py, index file id 3755394976: 7B 4608 hidden,
// 18,432 intermediate, 36 heads, 4 KV heads; 15B 6144, 24,576, 48 and 4;
// vocabulary 49,152, sliding_window 4096, 16,384 positions; its layers
// reduced "from 30/32/40"), checked against the published parameter
// counts.

// starcoder2Config is a config of the shape above.
func starcoder2Config(hidden, inter, layers, heads, kv int, tied bool) string {
	return fmt.Sprintf(`{"model_type":"starcoder2","architectures":["Starcoder2ForCausalLM"],"hidden_size":%d,"intermediate_size":%d,`+
		`"num_hidden_layers":%d,"num_attention_heads":%d,"num_key_value_heads":%d,"vocab_size":49152,"max_position_embeddings":16384,`+
		`"sliding_window":4096,"use_bias":true,"norm_epsilon":1e-05,"tie_word_embeddings":%v,"torch_dtype":"bfloat16"}`, hidden, inter, layers, heads, kv, tied)
}

// TestStarcoder2WeightsByHand: StarCoder2-7B and -15B whole on one rank in
// bf16, counted by hand, against the published 7.17B and 15.96B.
func TestStarcoder2WeightsByHand(t *testing.T) {
	tests := []struct {
		name, config string
		params       uint64
	}{
		// 7B, a layer (head_dim 4608 / 36 = 128, 4 KV heads = 512 wide):
		// q and o_proj 4608 x 4608 = 21,233,664 each; k and v 4608 x 512
		// = 2,359,296 each; their biases 4608 + 512 + 512 + 4608 =
		// 10,240; c_fc 18,432 x 4608 = 84,934,656 and bias 18,432;
		// c_proj 84,934,656 and bias 4608; two LayerNorms of weight and
		// bias 18,432: 217,106,944, x 32 = 6,947,422,208. The embedding
		// 49,152 (a multiple of 64) x 4608 = 226,492,416, the head tied;
		// the final LayerNorm 9216. 7,173,923,840: the published 7.17B
		// (untied, it would be 7.40B).
		{"starcoder2-7b", starcoder2Config(4608, 18432, 32, 36, 4, true), 7173923840},
		// 15B, a layer (128 a head, 4 KV heads = 512): q and o_proj 6144
		// x 6144 = 37,748,736 each; k and v 6144 x 512 = 3,145,728 each;
		// biases 13,312; c_fc and c_proj 24,576 x 6144 = 150,994,944
		// each, biases 24,576 and 6144; LayerNorms 24,576: 383,847,424, x
		// 40 = 15,353,896,960. Embedding and head 49,152 x 6144 =
		// 301,989,888 each; final LayerNorm 12,288. 15,957,889,024: the
		// published 15.96B, which only an untied head gives (tied:
		// 15.66B).
		{"starcoder2-15b", starcoder2Config(6144, 24576, 40, 48, 4, false), 15957889024},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(tt.config))
		if err != nil {
			t.Fatal(err)
		}
		// The rotary inv_freq: 128 / 2 = 64 float32, 256 B.
		if got, want := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))), tt.params*2+256; got != want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, want)
		}
		// KV: every layer slides by the model-level sliding_window
		// (attention.py:259-267), 4 KV heads of 128.
		for i, l := range a.Layers {
			if l.Kind != SlidingAttention {
				t.Errorf("%s: layer %d is %v, want sliding", tt.name, i, l.Kind)
				break
			}
		}
		if a.SlidingWindow != 4096 || a.KVHeads != 4 || a.HeadDim != 128 {
			t.Errorf("%s: window %d, KV heads %d x %d; want 4096, 4 x 128", tt.name, a.SlidingWindow, a.KVHeads, a.HeadDim)
		}
	}
}

// starcoder2Fixture: hidden 64, 4 heads of 16, 2 KV heads, intermediate
// 128, 2 layers, vocabulary 128, biased, tied (no lm_head in the
// checkpoint); named as transformers' modeling_starcoder2.py names them.
func starcoder2Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"starcoder2","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"sliding_window":32,"use_bias":true,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"input_layernorm.bias", 64),
			bf16(p+"post_attention_layernorm.weight", 64), bf16(p+"post_attention_layernorm.bias", 64),
			bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.q_proj.bias", 64),
			bf16(p+"self_attn.k_proj.weight", 32, 64), bf16(p+"self_attn.k_proj.bias", 32),
			bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.v_proj.bias", 32),
			bf16(p+"self_attn.o_proj.weight", 64, 64), bf16(p+"self_attn.o_proj.bias", 64),
			bf16(p+"mlp.c_fc.weight", 128, 64), bf16(p+"mlp.c_fc.bias", 128),
			bf16(p+"mlp.c_proj.weight", 64, 128), bf16(p+"mlp.c_proj.bias", 64))
	}
	return config, append(ts, bf16("model.norm.weight", 64), bf16("model.norm.bias", 64))
}

func TestStarcoder2CheckpointByHand(t *testing.T) {
	checkByHand(t, []byHandCase{{
		// TP1, a layer: q and o_proj 4096 each with biases 64, k and v
		// 2048 each with biases 32 (12,480); c_fc 128 x 64 = 8192 and
		// bias 128, c_proj 8192 and bias 64 (16,576); two LayerNorms of
		// weight and bias 256: 29,312 x 2 B = 58,624. The tied embedding
		// 128 x 64 x 2 = 16,384, the final LayerNorm 256, inv_freq 8
		// float32 = 32.
		// TP2, a layer: QKVParallelLinear 2 q heads and 1 KV head of 16:
		// q 2048 and bias 32, k and v 1024 and 16 each; o_proj 64 x 32 =
		// 2048, its bias whole 64 (6272); c_fc 64 rows 4096 and bias 64,
		// c_proj 64 x 64 = 4096 and bias whole 64 (8320); LayerNorms 256:
		// 14,848 x 2 B = 29,696. The embedding 64 rows 8192.
		// PP2: the embedding on stage 0 and, tied, as the head on stage
		// 1 (base.py:400-408), the final LayerNorm on stage 1.
		name: "starcoder2", fixture: starcoder2Fixture,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*58624 + 16384 + 256 + 32, ""},
			{"TP2", tpRanks(2, 0), 2*29696 + 8192 + 256 + 32, ""},
			{"PP2 stage 0", ppStage(0, 2), 58624 + 16384 + 32, ""},
			{"PP2 stage 1", ppStage(1, 2), 58624 + 256 + 16384 + 32, ""},
		},
	}})
}
