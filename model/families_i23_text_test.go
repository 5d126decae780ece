package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// The text-generation families of issue 23, item 2: the shapes of their
// shipped configs, their weights by hand from a real config, their
// checkpoints by hand, and what their config classes fill.

func init() {
	for name, s := range map[string]shape{
		// falcon-7b-instruct: 4544 / 71 = 64 a head; multi_query without
		// new_decoder_architecture is one KV head; no max_position_
		// embeddings, FalconConfig's 2048; tied (no tie_word_embeddings:
		// PretrainedConfig's true).
		"pcuenq__falcon-7b-instruct-transformers": {ModelType: "falcon", Layers: 32, Hidden: 4544, Heads: 71, KVHeads: 1, HeadDim: 64,
			Vocab: 65024, MaxPos: 2048, Tied: true, RotaryDim: 64, Dtype: "bfloat16"},
		// A bloom-560m fine-tune: n_layer and n_head read as the layers
		// and heads, 1024 / 16 = 64 a head, multi-head; no length key:
		// vLLM's 2048; ALiBi, no rotary; tied (BloomConfig's default).
		"vutruc__nlu-chat": {ModelType: "bloom", Layers: 24, Hidden: 1024, Heads: 16, KVHeads: 16, HeadDim: 64,
			Vocab: 250880, MaxPos: 2048, Tied: true, Dtype: "float32"},
		// gpt2-large: GPT2Config's names, 1280 / 20 = 64 a head,
		// multi-head; n_positions 1024 (n_ctx is no length key); no
		// torch_dtype: float32; tied.
		"openai-community__gpt2-large": {ModelType: "gpt2", Layers: 36, Hidden: 1280, Heads: 20, KVHeads: 20, HeadDim: 64,
			Vocab: 50257, MaxPos: 1024, Tied: true, Dtype: "float32"},
		// MiniCPM-2B: 2304 / 36 = 64 a head, 36 KV heads; no
		// tie_word_embeddings: tied.
		"mlx-community__MiniCPM-2B-dpo-bf16": {ModelType: "minicpm", Layers: 40, Hidden: 2304, Heads: 36, KVHeads: 36, HeadDim: 64,
			Vocab: 122753, MaxPos: 4096, Tied: true, RotaryDim: 64, Dtype: "bfloat16"},
		// IQuest-Coder-V1-40B: model_type iquestcoder, read as llama by
		// its architecture; head_dim 128 given (40 x 128 = 5120); untied.
		"IQuestLab__IQuest-Coder-V1-40B-Base": {ModelType: "llama", Layers: 80, Hidden: 5120, Heads: 40, KVHeads: 8, HeadDim: 128,
			Vocab: 76800, MaxPos: 131072, RotaryDim: 128, Dtype: "bfloat16"},
		// GLM-4-9B-chat: num_layers 40, 4096 / 32 = 128 a head,
		// multi_query_group_num 2 KV heads; padded_vocab_size; seq_length
		// as max_position_embeddings (ChatGLMConfig); half a head
		// rotary; untied.
		"THUDM__glm-4-9b-chat": {ModelType: "chatglm", Layers: 40, Hidden: 4096, Heads: 32, KVHeads: 2, HeadDim: 128,
			Vocab: 151552, MaxPos: 131072, RotaryDim: 64, Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// TestTextFamilyWeightsByHand: the weights of each shipped config, whole
// on one rank in its dtype, counted by hand from its config.json as vLLM's
// model file builds it.
func TestTextFamilyWeightsByHand(t *testing.T) {
	tests := []struct {
		name string
		want uint64
	}{
		// falcon-7b-instruct (falcon.py). A layer: query_key_value 4544 x
		// (71 + 1 + 1) x 64 = 21,229,568; dense 4544 x 4544 = 20,647,936;
		// dense_h_to_4h and dense_4h_to_h 4544 x 18,176 = 82,591,744 each:
		// 207,060,992 in bf16, x 32 = 6,625,951,744. One input_layernorm
		// (parallel_attn, no new_decoder_architecture) of weight and bias
		// 9088 (torch.nn.LayerNorm in the model dtype, falcon.py:30).
		// word_embeddings 65,024 (a multiple of 64) x 4544 = 295,469,056,
		// the head tied; ln_f 9088. 6,921,420,800 and 33 x 9088 = 299,904
		// parameters: 6,921,720,704, all bf16. Rotary
		// 2048 (FalconConfig's max_position_embeddings) x 64 x 2 B.
		{"pcuenq__falcon-7b-instruct-transformers", 6921720704*2 + 2048*64*2},
		// bloom-560m (bloom.py). A layer: query_key_value 1024 x 3072 =
		// 3,145,728 and bias 3072; dense 1,048,576 and 1024;
		// dense_h_to_4h 1024 x 4096 = 4,194,304 and 4096; dense_4h_to_h
		// 4,194,304 and 1024; two LayerNorms of weight and bias 4096:
		// 12,596,224, x 24 = 302,309,376. word_embeddings 250,880 (a
		// multiple of 64) x 1024 = 256,901,120, the head tied; its
		// LayerNorm and ln_f 2048 each. 559,214,592 parameters, served in
		// bf16 here; ALiBi, no rotary table.
		{"vutruc__nlu-chat", 559214592 * 2},
		// gpt2-large (gpt2.py). A layer: ln_1 and ln_2 of weight and bias
		// 5120; c_attn 1280 x 3840 = 4,915,200 and 3840; attn.c_proj
		// 1,638,400 and 1280; c_fc 1280 x 5120 (n_inner null: 4 x 1280) =
		// 6,553,600 and 5120; mlp.c_proj 6,553,600 and 1280: 19,677,440, x
		// 36 = 708,387,840. wte 50,257 rows padded to 50,304 x 1280 =
		// 64,389,120, the head tied; wpe 1024 x 1280 = 1,310,720; ln_f
		// 2560. 774,090,240 elements (the checkpoint's 774,030,080 and
		// the 47 padding rows' 60,160), served in bf16 here; no rotary.
		{"openai-community__gpt2-large", 774090240 * 2},
		// MiniCPM-2B (minicpm.py). A layer: q/k/v 2304 x (36 + 36 + 36) x
		// 64 = 15,925,248; o_proj 2304 x 2304 = 5,308,416; gate_up 2304 x
		// 11,520 = 26,542,080; down 5760 x 2304 = 13,271,040; two norms
		// 4608: 61,051,392, x 40 = 2,442,055,680. embed_tokens 122,753
		// rows padded to 122,816 x 2304 = 282,968,064, the head tied;
		// norm 2304. 2,725,026,048 elements (the checkpoint's
		// 2,724,880,896, MiniCPM-2B's 2.7B, and 63 padding rows) x 2 B;
		// rotary 4096 x 64 x 2 B.
		{"mlx-community__MiniCPM-2B-dpo-bf16", 2725026048*2 + 4096*64*2},
		// IQuest-Coder-V1-40B (llama.py). A layer: q and o_proj 5120 x
		// 5120 = 26,214,400 each; k and v 5120 x 1024 = 5,242,880 each;
		// gate_up 5120 x 55,296 = 283,115,520; down 27,648 x 5120 =
		// 141,557,760; two norms 10,240: 487,598,080, x 80 =
		// 39,007,846,400. Embedding and untied head 76,800 (a multiple of
		// 64) x 5120 = 393,216,000 each; norm 5120. 39,794,283,520
		// parameters x 2 B; rotary 131,072 x 128 x 2 B.
		{"IQuestLab__IQuest-Coder-V1-40B-Base", 39794283520*2 + 131072*128*2},
		// GLM-4-9B-chat (chatglm.py). A layer: query_key_value 4096 x (32
		// + 2 + 2) x 128 = 18,874,368 and its bias 4608 (add_qkv_bias);
		// dense 4096 x 4096 = 16,777,216; dense_h_to_4h 4096 x 2 x 13,696
		// = 112,197,632; dense_4h_to_h 13,696 x 4096 = 56,098,816; two
		// RMSNorms 8192: 203,960,832, x 40 = 8,158,433,280. The
		// embedding and the untied output_layer 151,552 (a multiple of
		// 64) x 4096 = 620,756,992 each; final_layernorm 4096.
		// 9,399,951,360 parameters x 2 B; rotary 131,072 (seq_length) x
		// 64 (half a head) x 2 B.
		{"THUDM__glm-4-9b-chat", 9399951360*2 + 131072*64*2},
	}
	for _, tt := range tests {
		a := shippedArch(t, tt.name)
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// falconFixture: a new_decoder_architecture Falcon (falcon-40b's layout):
// hidden 64, 4 heads of 16, num_kv_heads 2, 2 layers, vocabulary 128, 64
// positions, biased, untied, ln_attn and ln_mlp; named as transformers'
// modeling_falcon.py names them.
func falconFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"falcon","hidden_size":64,"num_attention_heads":4,"num_kv_heads":2,"new_decoder_architecture":true,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"bias":true,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("transformer.word_embeddings.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			bf16(p+"ln_attn.weight", 64), bf16(p+"ln_attn.bias", 64), bf16(p+"ln_mlp.weight", 64), bf16(p+"ln_mlp.bias", 64),
			bf16(p+"self_attention.query_key_value.weight", 128, 64), bf16(p+"self_attention.query_key_value.bias", 128),
			bf16(p+"self_attention.dense.weight", 64, 64), bf16(p+"self_attention.dense.bias", 64),
			bf16(p+"mlp.dense_h_to_4h.weight", 256, 64), bf16(p+"mlp.dense_h_to_4h.bias", 256),
			bf16(p+"mlp.dense_4h_to_h.weight", 64, 256), bf16(p+"mlp.dense_4h_to_h.bias", 64))
	}
	return config, append(ts, bf16("transformer.ln_f.weight", 64), bf16("transformer.ln_f.bias", 64), bf16("lm_head.weight", 128, 64))
}

// falcon7bFixture: falcon-7b's layout: hidden 64, 4 heads of 16,
// multi_query (one KV head), parallel_attn with one input_layernorm, no
// biases, tied (the checkpoint has no lm_head).
func falcon7bFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"falcon","hidden_size":64,"num_attention_heads":4,"multi_query":true,"parallel_attn":true,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("transformer.word_embeddings.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"input_layernorm.bias", 64),
			bf16(p+"self_attention.query_key_value.weight", 96, 64), bf16(p+"self_attention.dense.weight", 64, 64),
			bf16(p+"mlp.dense_h_to_4h.weight", 256, 64), bf16(p+"mlp.dense_4h_to_h.weight", 64, 256))
	}
	return config, append(ts, bf16("transformer.ln_f.weight", 64), bf16("transformer.ln_f.bias", 64))
}

// bloomFixture: hidden 64, 4 heads of 16, 2 layers, vocabulary 128, named
// as bigscience's checkpoints name them (no transformer. prefix), with
// the lm_head.weight some saves hold (vLLM skips it).
func bloomFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"bloom","hidden_size":64,"n_head":4,"n_layer":2,"vocab_size":128,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("word_embeddings.weight", 128, 64), bf16("word_embeddings_layernorm.weight", 64),
		bf16("word_embeddings_layernorm.bias", 64)}
	for l := range 2 {
		p := fmt.Sprintf("h.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"input_layernorm.bias", 64),
			bf16(p+"self_attention.query_key_value.weight", 192, 64), bf16(p+"self_attention.query_key_value.bias", 192),
			bf16(p+"self_attention.dense.weight", 64, 64), bf16(p+"self_attention.dense.bias", 64),
			bf16(p+"post_attention_layernorm.weight", 64), bf16(p+"post_attention_layernorm.bias", 64),
			bf16(p+"mlp.dense_h_to_4h.weight", 256, 64), bf16(p+"mlp.dense_h_to_4h.bias", 256),
			bf16(p+"mlp.dense_4h_to_h.weight", 64, 256), bf16(p+"mlp.dense_4h_to_h.bias", 64))
	}
	return config, append(ts, bf16("ln_f.weight", 64), bf16("ln_f.bias", 64), bf16("lm_head.weight", 128, 64))
}

// gpt2Fixture: n_embd 64, 4 heads of 16, 2 layers, n_positions 32,
// vocabulary 128, n_inner null (256), tied; named as openai-community's
// checkpoints name them (no transformer. prefix), Conv1D weights [in, out],
// with the causal-mask buffers.
func gpt2Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"gpt2","n_embd":64,"n_head":4,"n_layer":2,"n_positions":32,"vocab_size":128,"n_inner":null,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("wte.weight", 128, 64), bf16("wpe.weight", 32, 64)}
	for l := range 2 {
		p := fmt.Sprintf("h.%d.", l)
		ts = append(ts,
			bf16(p+"ln_1.weight", 64), bf16(p+"ln_1.bias", 64),
			typed("F32", p+"attn.bias", 1, 1, 32, 32), typed("F32", p+"attn.masked_bias"),
			bf16(p+"attn.c_attn.weight", 64, 192), bf16(p+"attn.c_attn.bias", 192),
			bf16(p+"attn.c_proj.weight", 64, 64), bf16(p+"attn.c_proj.bias", 64),
			bf16(p+"ln_2.weight", 64), bf16(p+"ln_2.bias", 64),
			bf16(p+"mlp.c_fc.weight", 64, 256), bf16(p+"mlp.c_fc.bias", 256),
			bf16(p+"mlp.c_proj.weight", 256, 64), bf16(p+"mlp.c_proj.bias", 64))
	}
	return config, append(ts, bf16("ln_f.weight", 64), bf16("ln_f.bias", 64))
}

// miniCPMFixture: hidden 64, 4 heads of 16, 2 KV heads, intermediate
// 128, 2 layers, vocabulary 128, 64 positions, tied (no lm_head), named as
// openbmb's MiniCPM checkpoints name them (Llama's names).
func miniCPMFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"minicpm","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"scale_emb":12,"dim_model_base":256,"scale_depth":1.4,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64),
			bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.k_proj.weight", 32, 64),
			bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.o_proj.weight", 64, 64),
			bf16(p+"mlp.gate_proj.weight", 128, 64), bf16(p+"mlp.up_proj.weight", 128, 64), bf16(p+"mlp.down_proj.weight", 64, 128))
	}
	return config, append(ts, bf16("model.norm.weight", 64))
}

// chatGLMFixture: hidden 64, 4 heads of 16, multi_query with 2 groups,
// ffn 128, 2 layers, padded vocabulary 128, seq_length 64, add_qkv_bias,
// untied; named as THUDM's checkpoints name them, with the rotary
// inv_freq buffer (skipped).
func chatGLMFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"chatglm","hidden_size":64,"num_attention_heads":4,"kv_channels":16,"multi_query_attention":true,` +
		`"multi_query_group_num":2,"ffn_hidden_size":128,"num_layers":2,"padded_vocab_size":128,"seq_length":64,"add_qkv_bias":true,` +
		`"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("transformer.embedding.word_embeddings.weight", 128, 64), bf16("transformer.rotary_pos_emb.inv_freq", 4)}
	for l := range 2 {
		p := fmt.Sprintf("transformer.encoder.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64),
			bf16(p+"self_attention.query_key_value.weight", 128, 64), bf16(p+"self_attention.query_key_value.bias", 128),
			bf16(p+"self_attention.dense.weight", 64, 64),
			bf16(p+"mlp.dense_h_to_4h.weight", 256, 64), bf16(p+"mlp.dense_4h_to_h.weight", 64, 128))
	}
	return config, append(ts, bf16("transformer.encoder.final_layernorm.weight", 64), bf16("transformer.output_layer.weight", 128, 64))
}

// TestTextFamilyCheckpointsByHand: each family's checkpoint, named as its
// published checkpoints name their tensors, read by its rules at TP1, TP2
// and on each stage of PP2 in bf16, against sums by hand; the
// config-derived weights agree.
func TestTextFamilyCheckpointsByHand(t *testing.T) {
	checkByHand(t, []byHandCase{
		{
			// falcon.py, new_decoder_architecture. TP1, a layer:
			// query_key_value (4 + 2 + 2) x 16 = 128 rows x 64 x 2 =
			// 16,384 and bias 256; dense 8192 and 128; dense_h_to_4h 256 x
			// 64 x 2 = 32,768 and 512; dense_4h_to_h 32,768 and 128;
			// ln_attn and ln_mlp, weight and bias in bf16 (torch.nn.LayerNorm,
			// falcon.py:30), 4 x 64 x 2 = 512: 91,648. word_embeddings and
			// lm_head 128 x 64 x 2 = 16,384 each, ln_f 2 x 64 x 2 = 256,
			// rotary 64 x 16 x 2 = 2048.
			// TP2, a layer: query_key_value 2 + 1 + 1 heads = 64 rows 8192
			// and bias 128; dense 64 x 32 x 2 = 4096, its bias whole 128;
			// dense_h_to_4h 128 rows 16,384 and 256; dense_4h_to_h 16,384,
			// bias whole 128; norms 512: 46,208. Embedding and head 64
			// rows 8192 each.
			// PP2: word_embeddings, ln_f and lm_head on both stages.
			name: "falcon", fixture: falconFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*91648 + 2*16384 + 256 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*46208 + 2*8192 + 256 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 91648 + 2*16384 + 256 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 91648 + 2*16384 + 256 + 2048, ""},
			},
		},
		{
			// falcon.py, multi_query. TP1, a layer: query_key_value (4 + 1
			// + 1) x 16 = 96 rows x 64 x 2 = 12,288; dense 8192;
			// dense_h_to_4h and dense_4h_to_h 32,768 each; input_layernorm
			// 2 x 64 x 2 = 256: 86,272. The tied word_embeddings 16,384,
			// ln_f 256, rotary 2048.
			// TP2, a layer: 2 q heads and the one KV head replicated: 64
			// rows 8192; dense 4096; the MLP 16,384 each; norm 256: 45,312.
			// The embedding 64 rows 8192.
			name: "falcon multi_query", fixture: falcon7bFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*86272 + 16384 + 256 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*45312 + 8192 + 256 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 86272 + 16384 + 256 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 86272 + 16384 + 256 + 2048, ""},
			},
		},
		{
			// bloom.py. TP1, a layer: input_layernorm 2 x 64 x 2 = 256;
			// query_key_value 192 x 64 x 2 = 24,576 and bias 384; dense
			// 8192 and 128; post_attention_layernorm 256; dense_h_to_4h 256
			// x 64 x 2 = 32,768 and 512; dense_4h_to_h 32,768 and 128:
			// 99,968. word_embeddings (the head) 128 x 64 x 2 = 16,384, its
			// LayerNorm and ln_f 256 each; lm_head.weight skipped.
			// TP2, a layer: query_key_value 2 + 2 + 2 heads = 96 rows
			// 12,288 and bias 192; dense 4096, bias whole 128;
			// dense_h_to_4h 16,384 and 256; dense_4h_to_h 16,384 and 128;
			// LayerNorms 512: 50,368. The embedding 64 rows 8192.
			// PP2: the embedding, both LayerNorms on both stages.
			name: "bloom", fixture: bloomFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*99968 + 16384 + 512, ""},
				{"TP2", tpRanks(2, 0), 2*50368 + 8192 + 512, ""},
				{"PP2 stage 0", ppStage(0, 2), 99968 + 16384 + 512, ""},
				{"PP2 stage 1", ppStage(1, 2), 99968 + 16384 + 512, ""},
			},
		},
		{
			// gpt2.py. TP1, a layer: ln_1 2 x 64 x 2 = 256; c_attn 64 x
			// 192 x 2 = 24,576 and bias 384; attn.c_proj 8192 and 128;
			// ln_2 256; c_fc 64 x 256 x 2 = 32,768 and 512; mlp.c_proj
			// 32,768 and 128: 99,968; the mask buffers skipped. wte (the
			// head) 128 x 64 x 2 = 16,384, wpe 32 x 64 x 2 = 4096, ln_f 256.
			// TP2, a layer: c_attn a third of each of q, k and v: 64 of
			// 192 outputs, 12,288 and bias 192; attn.c_proj half its
			// inputs 4096, bias whole 128; c_fc 16,384 and 256; mlp.c_proj
			// 16,384, bias whole 128; LayerNorms 512: 50,368. wte 64 rows
			// 8192; wpe replicated 4096.
			// PP2: wte, wpe, ln_f on both stages.
			name: "gpt2", fixture: gpt2Fixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*99968 + 16384 + 4096 + 256, ""},
				{"TP2", tpRanks(2, 0), 2*50368 + 8192 + 4096 + 256, ""},
				{"PP2 stage 0", ppStage(0, 2), 99968 + 16384 + 4096 + 256, ""},
				{"PP2 stage 1", ppStage(1, 2), 99968 + 16384 + 4096 + 256, ""},
			},
		},
		{
			// minicpm.py. TP1, a layer: q 64 x 64 x 2 = 8192, k and v 32 x
			// 64 x 2 = 4096 each, o_proj 8192; gate, up and down 128 x 64 x
			// 2 = 16,384 each; two norms 256: 73,984. embed_tokens (the
			// head) 16,384, norm 128, rotary 64 x 16 x 2 = 2048.
			// TP2, a layer: q/k/v 2 + 1 + 1 heads of 16 = 64 rows 8192,
			// o_proj 64 x 32 x 2 = 4096, gate_up 128 rows 16,384, down
			// 8192, norms 256: 37,120; the embedding 64 rows 8192.
			// PP2: the embedding and norm on both stages (the tied head is
			// the embedding there).
			name: "minicpm", fixture: miniCPMFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*73984 + 16384 + 128 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*37120 + 8192 + 128 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 73984 + 16384 + 128 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 73984 + 16384 + 128 + 2048, ""},
			},
		},
		{
			// chatglm.py. TP1, a layer: two RMSNorms 256;
			// query_key_value (4 + 2 + 2) x 16 = 128 rows x 64 x 2 = 16,384
			// and bias 256; dense 8192; dense_h_to_4h 256 x 64 x 2 =
			// 32,768; dense_4h_to_h 64 x 128 x 2 = 16,384: 74,240. The
			// embedding and output_layer 128 x 64 x 2 = 16,384 each,
			// final_layernorm 128, rotary 64 positions x 8 (half a head) x
			// 2 = 1024; inv_freq skipped.
			// TP2, a layer: query_key_value 2 + 1 + 1 heads = 64 rows 8192
			// and bias 128; dense 64 x 32 x 2 = 4096; dense_h_to_4h 128
			// rows 16,384; dense_4h_to_h 64 x 64 x 2 = 8192; norms 256:
			// 37,248. Embedding and output_layer 64 rows 8192 each.
			// PP2: everything outside the layers on both stages.
			name: "chatglm", fixture: chatGLMFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*74240 + 2*16384 + 128 + 1024, ""},
				{"TP2", tpRanks(2, 0), 2*37248 + 2*8192 + 128 + 1024, ""},
				{"PP2 stage 0", ppStage(0, 2), 74240 + 2*16384 + 128 + 1024, ""},
				{"PP2 stage 1", ppStage(1, 2), 74240 + 2*16384 + 128 + 1024, ""},
			},
		},
	})
}

// TestTextFamilyDefaults: a config that leaves out what the family's
// transformers configuration class fills reads as the class fills it;
// the keys that decide the layout read as vLLM's model file reads them;
// a key vLLM cannot honour is an error naming it.
func TestTextFamilyDefaults(t *testing.T) {
	type got struct {
		Layers, Hidden, Heads, KVHeads, HeadDim, Inter, Vocab, MaxPos uint64
		Tied                                                          bool
		Norms                                                         string
		Rotary                                                        uint64
	}
	tests := []struct {
		name, doc string
		want      got
	}{
		// FalconConfig: falcon-7b's shape, 4544 / 71 = 64 a head, one KV
		// head (multi_query), the MLP 4 x 4544, one input_layernorm
		// (parallel_attn), rotary over the whole head.
		{"falcon empty", `{"model_type": "falcon"}`, got{32, 4544, 71, 1, 64, 18176, 65024, 2048, true, "input_layernorm", 64}},
		// new_decoder_architecture: num_kv_heads (None: the heads), and
		// num_ln_in_parallel_attn None is 2: ln_attn and ln_mlp.
		{"falcon new arch", `{"model_type": "falcon", "new_decoder_architecture": true, "num_kv_heads": 8, "hidden_size": 8192, "num_attention_heads": 128}`,
			got{32, 8192, 128, 8, 64, 32768, 65024, 2048, true, "ln_attn ln_mlp", 64}},
		{"falcon new arch no kv", `{"model_type": "falcon", "new_decoder_architecture": true, "num_ln_in_parallel_attn": 1}`,
			got{32, 4544, 71, 71, 64, 18176, 65024, 2048, true, "input_layernorm", 64}},
		// multi_query false without new_decoder_architecture: every head
		// a KV head, whatever num_kv_heads says; falcon-rw's sequential
		// layer with two norms; ALiBi: no rotary.
		{"falcon rw", `{"model_type": "falcon", "multi_query": false, "num_kv_heads": 1, "parallel_attn": false, "alibi": true}`,
			got{32, 4544, 71, 71, 64, 18176, 65024, 2048, true, "input_layernorm post_attention_layernorm", 0}},
		// n_embed is hidden_size (FalconConfig's __init__ pops it); a
		// head_dim key is ignored (falcon.py:110).
		{"falcon n_embed", `{"model_type": "falcon", "n_embed": 64, "num_attention_heads": 4, "head_dim": 128, "tie_word_embeddings": false}`,
			got{32, 64, 4, 1, 16, 256, 65024, 2048, false, "input_layernorm", 16}},
		// BloomConfig: a tiny model, n_layer 2 and n_head 8 of 64 / 8 =
		// 8, multi-head, the MLP 4 x 64, two LayerNorms; no length key:
		// 2048; ALiBi.
		{"bloom empty", `{"model_type": "bloom"}`, got{2, 64, 8, 8, 8, 256, 250880, 2048, true, "input_layernorm post_attention_layernorm", 0}},
		// num_hidden_layers and num_attention_heads read as n_layer and
		// n_head (attribute_map); a length key present is the length;
		// n_inner ignored (bloom.py:158-171).
		{"bloom standard names", `{"model_type": "bloom", "num_hidden_layers": 4, "num_attention_heads": 4, "seq_length": 4096, "n_inner": 64}`,
			got{4, 64, 4, 4, 16, 256, 250880, 4096, true, "input_layernorm post_attention_layernorm", 0}},
		// GPT2Config: GPT-2 small, 768 / 12 = 64 a head, n_inner None: 4
		// x 768; ln_1 and ln_2.
		{"gpt2 empty", `{"model_type": "gpt2"}`, got{12, 768, 12, 12, 64, 3072, 50257, 1024, true, "ln_1 ln_2", 0}},
		// The standard names read as GPT2Config's (attribute_map); n_inner
		// given.
		{"gpt2 standard names", `{"model_type": "gpt2", "hidden_size": 128, "num_attention_heads": 4, "num_hidden_layers": 2,
 "max_position_embeddings": 256, "n_inner": 64, "tie_word_embeddings": false}`, got{2, 128, 4, 4, 32, 64, 50257, 256, false, "ln_1 ln_2", 0}},
		// vLLM's ChatGLMConfig: ChatGLM2-6B's shape but 28 layers of
		// multi-head attention (multi_query_attention false), 4096 / 32 =
		// 128 a head, half of it rotary, seq_length 2048 as
		// max_position_embeddings; tied (PretrainedConfig).
		{"chatglm empty", `{"model_type": "chatglm"}`, got{28, 4096, 32, 32, 128, 13696, 65024, 2048, true, "input_layernorm post_attention_layernorm", 64}},
		// num_hidden_layers wins over num_layers (the attribute_map sets it
		// last); multi_query_group_num under multi_query_attention.
		{"chatglm groups", `{"model_type": "chatglm", "num_layers": 28, "num_hidden_layers": 2, "multi_query_attention": true, "multi_query_group_num": 2}`,
			got{2, 4096, 32, 2, 128, 13696, 65024, 2048, true, "input_layernorm post_attention_layernorm", 64}},
	}
	for _, tt := range tests {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		g := got{uint64(len(a.Layers)), a.Hidden, a.Heads, a.KVHeads, a.HeadDim, a.Intermediate, a.Vocab, a.MaxPosition, a.TiedEmbeddings,
			strings.Join(a.tree.norms, " "), a.RotaryDim}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	errs := []struct{ name, doc, want string }{
		{"falcon ffn", `{"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 4, "ffn_hidden_size": 128}`,
			"x.json: ffn_hidden_size: 128: vLLM's FalconMLP builds 4 x hidden_size = 256"},
		{"falcon rw names", `{"model_type": "falcon", "n_layer": 2}`, "x.json: n_layer: RWConfig's name"},
		// A RefinedWeb config is read with vLLM's RWConfig: a width of
		// 8192 is the new decoder architecture, and RWConfig's
		// parallel_attn default, false, cannot run it.
		{"falcon RefinedWeb 8192 sequential", `{"model_type": "RefinedWeb", "architectures": ["RWForCausalLM"], "hidden_size": 8192, "n_head": 128,
 "n_layer": 2, "vocab_size": 65024}`, "x.json: parallel_attn: false under new_decoder_architecture"},
		{"falcon sequential new arch", `{"model_type": "falcon", "new_decoder_architecture": true, "parallel_attn": false}`,
			"x.json: parallel_attn: false under new_decoder_architecture"},
		{"falcon heads", `{"model_type": "falcon", "hidden_size": 64, "num_attention_heads": 5}`,
			"x.json: num_attention_heads: 5 does not divide hidden_size 64"},
		{"bloom untied", `{"model_type": "bloom", "tie_word_embeddings": false}`,
			"x.json: tie_word_embeddings: false: vLLM's BloomForCausalLM never loads lm_head.weight"},
		{"gpt2 layer-scaled attention", `{"model_type": "gpt2", "scale_attn_by_inverse_layer_idx": true}`,
			"x.json: scale_attn_by_inverse_layer_idx: true: vLLM's GPT2Model asserts it false"},
		{"chatglm layernorm", `{"model_type": "chatglm", "rmsnorm": false}`, "x.json: rmsnorm: false: vLLM's float32 LayerNorm"},
		{"chatglm kv_channels", `{"model_type": "chatglm", "kv_channels": 64}`, "x.json: kv_channels: 64 differs from hidden_size / num_attention_heads = 128"},
		{"chatglm vision", `{"model_type": "chatglm", "vision_config": {}}`, "x.json: vision_config: present: vLLM's ChatGLMForCausalLM refuses"},
		// MiniCPM's class is remote: nothing fills a key the file omits.
		{"minicpm no class", `{"model_type": "minicpm"}`, "x.json: hidden_size: missing"},
		{"minicpm moe", `{"model_type": "minicpm", "num_experts": 8}`, "x.json: num_experts: 8: MiniCPM's MoE"},
		{"minicpm act", `{"model_type": "minicpm", "hidden_act": "gelu"}`, "x.json: hidden_act: \"gelu\": vLLM's MiniCPMMLP raises"},
	}
	for _, tt := range errs {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to hold %q", tt.name, err, tt.want)
		}
	}
}

// TestIQuestCoderReadAsLlama: a config of the remote model_type
// iquestcoder naming IQuestCoderForCausalLM is read by Llama's family,
// as vLLM serves it (registry.py: llama.py's LlamaForCausalLM), and says
// so; no class fills what it omits.
func TestIQuestCoderReadAsLlama(t *testing.T) {
	a := shippedArch(t, "IQuestLab__IQuest-Coder-V1-40B-Base")
	if a.ModelType != "llama" || !strings.Contains(a.ReadAs, `model_type "iquestcoder"`) || !strings.Contains(a.ReadAs, "IQuestCoderForCausalLM") || len(a.Defaulted) != 0 {
		t.Errorf("model_type %s, ReadAs %q, defaulted %v: want llama, read as the family of IQuestCoderForCausalLM, nothing defaulted", a.ModelType, a.ReadAs, a.Defaulted)
	}
	_, err := ParseConfig("x.json", []byte(`{"model_type": "iquestcoder", "architectures": ["IQuestCoderForCausalLM"], "hidden_size": 64}`))
	if err == nil || !strings.Contains(err.Error(), "num_hidden_layers: missing") {
		t.Errorf("an iquestcoder config without its layers: %v, want num_hidden_layers missing", err)
	}
}
