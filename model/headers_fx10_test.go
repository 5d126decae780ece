package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// glm4_9BChatHeader is THUDM/glm-4-9b-chat's checkpoint in the ChatGLM
// form its remote modeling_chatglm.py saves (ChatGLMModel): the names a
// stored dump of a ChatGLM state_dict lists (index file id 35532017862:
// transformer.embedding.word_embeddings, transformer.rotary_pos_emb.inv_freq,
// transformer.encoder.layers.N.input_layernorm, self_attention.query_key_value
// with its bias, self_attention.dense, post_attention_layernorm,
// mlp.dense_h_to_4h, mlp.dense_4h_to_h, transformer.encoder.final_layernorm,
// transformer.output_layer), shapes from the corpus config: 40 layers of
// 4096 wide, 32 heads and 2 KV groups of 128 (query_key_value 4096 + 2 x
// 2 x 128 rows), a gated MLP of 13,696 (dense_h_to_4h twice that),
// 151,552 tokens, the output layer untied, bf16. inv_freq is the rotary
// buffer over half a head: arange(0, 64, 2), 32 values, built in the
// config's torch_dtype (modeling_chatglm.py's RotaryEmbedding(rotary_dim
// // 2, ..., dtype=config.torch_dtype), stored copies index file ids
// 27290292293, 18510807236).
func glm4_9BChatHeader() (string, []safetensors.Tensor) {
	const H, V, I, QKV = 4096, 151552, 13696, 4096 + 2*2*128
	ts := []safetensors.Tensor{
		bf16("transformer.embedding.word_embeddings.weight", V, H),
		bf16("transformer.rotary_pos_emb.inv_freq", 32),
		bf16("transformer.encoder.final_layernorm.weight", H),
		bf16("transformer.output_layer.weight", V, H),
	}
	for l := range 40 {
		p := fmt.Sprintf("transformer.encoder.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H),
			bf16(p+"self_attention.query_key_value.weight", QKV, H), bf16(p+"self_attention.query_key_value.bias", QKV),
			bf16(p+"self_attention.dense.weight", H, H),
			bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"mlp.dense_h_to_4h.weight", 2*I, H), bf16(p+"mlp.dense_4h_to_h.weight", H, I))
	}
	return corpusConfig("THUDM__glm-4-9b-chat"), ts
}

// TestGLM4_9BChatHeader: the checkpoint's 284 tensors (40 layers of 7,
// the embedding, the rotary buffer, the final norm and the output layer)
// hold 9,399,951,392 values: the 9,399,951,360 trainable parameters and
// the 32 more a stored run of THUDM/glm-4-9b-chat counts once the model
// is loaded ("has 9399951392 parameters, 9399951360 (100.00%) are
// trainable", index file id 29151670186; the same run gives chatglm3-6b
// 32 more than its trainable ones too, the inv_freq of a head of 128).
// By hand: the embedding and the untied output layer 2 x 151,552 x 4096 =
// 1,241,513,984; a layer's query_key_value 4608 x 4096 and its bias 4608,
// dense 4096^2, dense_h_to_4h 27,392 x 4096, dense_4h_to_h 4096 x 13,696,
// two norms 8192: 203,960,832, x 40 = 8,158,433,280; the final norm 4096;
// the buffer 32. 2 B each: 18,799,902,784 B. vLLM's chatglm.py loads every
// tensor but the buffer (AutoWeightsLoader skips rotary_pos_emb.inv_freq,
// utils.py:191 at d18bb7b) and holds beside them the rotary table of
// 131,072 positions (seq_length) x 64 (half of each head, chatglm.py:98-113)
// x 2 B. At TP2 each rank holds half the heads, one KV group:
// query_key_value 2304 x 4096 and its bias 2304, dense 4096 x 2048,
// dense_h_to_4h 13,696 x 4096, dense_4h_to_h 4096 x 6848, the norms
// whole: 101,984,512 a layer; the embedding and the output layer 2 x
// 75,776 x 4096 = 620,756,992 (151,552 / 2 rows, a multiple of 64: no
// padding): 620,756,992 + 40 x 101,984,512 + 4096 = 4,700,141,568
// parameters.
func TestGLM4_9BChatHeader(t *testing.T) {
	_, ts := glm4_9BChatHeader()
	checkHeaderNames(t, ts, 40*7+4)
	const params = 1_241_513_984 + 40*203_960_832 + 4096
	if got, want := headerTotal(ts), uint64(2*(params+32)); got != want || params+32 != 9_399_951_392 {
		t.Errorf("header total %d B, by hand %d (%d values), the loaded model's count is 9,399,951,392", got, want, params+32)
	}
	const tp2 = 620_756_992 + 40*101_984_512 + 4096
	if tp2 != 4_700_141_568 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 4,700,141,568", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "glm-4-9b-chat", fixture: glm4_9BChatHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 131072*64*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 131072*64*2, ""},
		},
	}})
	checkHeaderRanks(t, glm4_9BChatHeader)
}
