package model

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

func init() {
	// starcoder2-15b: 6144 / 48 = 128 a head, 4 KV heads, untied; every
	// layer slides over the model-level sliding_window of 4096 (no
	// layer_types, family_starcoder2.go), the whole head rotary; float32.
	shippedShapes["bigcode__starcoder2-15b"] = shape{ModelType: "starcoder2", Layers: 40, Hidden: 6144, Heads: 48, KVHeads: 4,
		HeadDim: 128, Vocab: 49152, MaxPos: 16384, Sliding: 40, Window: 4096, RotaryDim: 128, Dtype: "float32"}
	// stablelm-2-1_6b-chat: 2048 / 32 = 64 a head, 32 KV heads, untied; a
	// quarter of each head rotary (partial_rotary_factor 0.25); float32.
	shippedShapes["stabilityai__stablelm-2-1_6b-chat"] = shape{ModelType: "stablelm", Layers: 24, Hidden: 2048, Heads: 32, KVHeads: 32,
		HeadDim: 64, Vocab: 100352, MaxPos: 4096, RotaryDim: 16, Dtype: "float32"}
	// falcon-7b's first config (RefinedWebModel, read with vLLM's
	// RWConfig): 4544 / 71 = 64 a head, one KV head (multi_query), tied (no
	// tie key); no length key, so vLLM's 2048; the whole head rotary.
	shippedShapes["tiiuae__falcon-7b"] = shape{ModelType: "falcon", Layers: 32, Hidden: 4544, Heads: 71, KVHeads: 1,
		HeadDim: 64, Vocab: 65024, MaxPos: 2048, Tied: true, RotaryDim: 64, Dtype: "bfloat16"}
}

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
// config's torch_dtype (ChatGLMModel builds RotaryEmbedding(rotary_dim //
// 2, ..., dtype=config.torch_dtype), a stored walk-through of ChatGLM3's
// modeling_chatglm.py, index file id 18510807236, and RotaryEmbedding casts
// inv_freq to that dtype, a stored copy of GLM-4V-9B's, id 27290292293).
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
// hold 9,399,951,392 values, the Hub's safetensors metadata for
// THUDM/glm-4-9b-chat at revision bd8234fe as a stored model record gives
// it ("9,399,951,392 parameters (safetensors metadata)", "BF16
// (safetensors weight dtype)", 18,799,941,256 B of safetensors files;
// index file id 65737683807). The record names one dtype and no breakdown
// (DeepSeek-V3's record gives F8_E4M3 alone, id 66120673325), so the
// buffer's BF16 is the remote code's, not the record's; the bytes cannot
// tell either: 2 B x the values leaves 38,472 B for the ten shards'
// headers, a float32 buffer 38,408. The 9,399,951,360
// trainable parameters and the 32 more a stored run of the model counts
// once it is loaded ("has 9399951392 parameters, 9399951360 (100.00%) are
// trainable", id 29151670186; the same run gives chatglm3-6b 32 more than
// its trainable ones too), the inv_freq of a head of 128.
// By hand: the embedding and the untied output layer 2 x 151,552 x 4096 =
// 1,241,513,984; a layer's query_key_value 4608 x 4096 and its bias 4608,
// dense 4096^2, dense_h_to_4h 27,392 x 4096, dense_4h_to_h 4096 x 13,696,
// two norms 8192: 203,960,832, x 40 = 8,158,433,280; the final norm 4096;
// the buffer 32. 2 B each: 18,799,902,784 B. vLLM's chatglm.py loads every
// tensor but the buffer (AutoWeightsLoader skips rotary_pos_emb.inv_freq,
// utils.py:191 at d18bb7b) and holds beside them the rotary table of
// 131,072 positions (seq_length) x 64 (half of each head, chatglm.py:98-113
// at d18bb7b) x 2 B. At TP2 each rank holds half the heads, one KV group:
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
		t.Errorf("header total %d B, by hand %d (%d values), the Hub's metadata counts 9,399,951,392", got, want, params+32)
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

// starcoder2_15BHeader is bigcode/starcoder2-15b's checkpoint in
// transformers' Starcoder2 names (modeling_starcoder2.py: q, k, v and
// o_proj each with its bias, the ungated mlp.c_fc and mlp.c_proj with
// theirs, input_layernorm and post_attention_layernorm LayerNorms with
// weight and bias, model.norm the same, the head untied; the rotary
// inv_freq is not persistent), shapes from the corpus config: 40 layers
// of 6144 wide, 48 heads and 4 KV heads of 128, MLP 24,576, 49,152
// tokens, float32 as its torch_dtype says and the published metadata
// reports.
func starcoder2_15BHeader() (string, []safetensors.Tensor) {
	const H, KV, I, V = 6144, 4 * 128, 24576, 49152
	ts := []safetensors.Tensor{
		bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("model.norm.bias", H),
		bf16("lm_head.weight", V, H),
	}
	for l := range 40 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"input_layernorm.bias", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.q_proj.bias", H),
			bf16(p+"self_attn.k_proj.weight", KV, H), bf16(p+"self_attn.k_proj.bias", KV),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.v_proj.bias", KV),
			bf16(p+"self_attn.o_proj.weight", H, H), bf16(p+"self_attn.o_proj.bias", H),
			bf16(p+"post_attention_layernorm.weight", H), bf16(p+"post_attention_layernorm.bias", H),
			bf16(p+"mlp.c_fc.weight", I, H), bf16(p+"mlp.c_fc.bias", I),
			bf16(p+"mlp.c_proj.weight", H, I), bf16(p+"mlp.c_proj.bias", H))
	}
	return corpusConfig("bigcode__starcoder2-15b"), asF32(ts)
}

// TestStarcoder2_15BHeader: the checkpoint's 644 tensors (40 layers of
// 16, the embedding, the final norm's weight and bias and the head) hold
// 15,957,889,024 parameters, F32, the Hub's safetensors metadata for
// bigcode/starcoder2-15b at revision 46d44742 as a stored model record
// gives it ("15,957,889,024 parameters (safetensors metadata)", "F32",
// 63,831,628,056 B of safetensors files: the 63,831,556,096 B of data and
// 71,960 B of the 14 shards' headers; index file id 66184154424; the 14
// model-000NN-of-00014.safetensors in the repository's file listing at
// 56438bed, a stored page of the docs corpus). By hand:
// the embedding and the untied head 2 x 49,152 x 6144 = 603,979,776; a
// layer's q and o 2 x 6144^2 and their biases 2 x 6144, k and v 2 x (512 x
// 6144 + 512), c_fc 24,576 x 6144 and its bias 24,576, c_proj 6144 x
// 24,576 and its bias 6144, two LayerNorms 4 x 6144: 383,847,424, x 40 =
// 15,353,896,960; the final LayerNorm 2 x 6144. vLLM serves it through
// the Transformers backend (family_starcoder2.go) in bfloat16, a float32
// checkpoint's "auto" dtype (vllm/config/model.py _resolve_auto_dtype): 2 B
// a parameter, and beside them Starcoder2RotaryEmbedding's inv_freq, 64
// float32 (49,152 rows are a multiple of 64: no padding). At TP2 each
// rank holds 24 heads and 2 KV heads: q 3072 x 6144 and its bias 3072, k
// and v 2 x (256 x 6144 + 256), o 6144 x 3072 and its bias whole, c_fc
// 12,288 x 6144 and its bias 12,288, c_proj 6144 x 12,288 and its bias
// whole, the LayerNorms whole: 191,942,144 a layer; the embedding and
// head 2 x 24,576 x 6144 = 301,989,888: 301,989,888 + 40 x 191,942,144 +
// 2 x 6144 = 7,979,687,936 parameters.
func TestStarcoder2_15BHeader(t *testing.T) {
	_, ts := starcoder2_15BHeader()
	checkHeaderNames(t, ts, 40*16+4)
	const params = 603_979_776 + 40*383_847_424 + 2*6144
	if got, want := headerTotal(ts), uint64(4*params); got != want || params != 15_957_889_024 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub's metadata counts 15,957,889,024", got, want, params)
	}
	const tp2 = 301_989_888 + 40*191_942_144 + 2*6144
	if tp2 != 7_979_687_936 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 7,979,687,936", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "starcoder2-15b", fixture: starcoder2_15BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 64*4, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 64*4, ""},
		},
	}})
	checkHeaderRanks(t, starcoder2_15BHeader)
}

// stableCode3BHeader is stabilityai/stable-code-3b's checkpoint in the
// names its remote modeling_stablelm_epoch.py gives the modules, which
// transformers' StableLm port keeps (q, k, v and o_proj without biases,
// the gated mlp.gate_proj, up_proj and down_proj, input_layernorm and
// post_attention_layernorm LayerNorms with weight and bias, model.norm
// the same, the head untied), shapes from the corpus config: 32 layers of
// 2560 wide, 32 heads and 32 KV heads of 80, MLP 6912, 50,304 tokens,
// bf16.
func stableCode3BHeader() (string, []safetensors.Tensor) {
	const H, I, V = 2560, 6912, 50304
	ts := []safetensors.Tensor{
		bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("model.norm.bias", H),
		bf16("lm_head.weight", V, H),
	}
	for l := range 32 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"input_layernorm.bias", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", H, H),
			bf16(p+"self_attn.v_proj.weight", H, H), bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"post_attention_layernorm.weight", H), bf16(p+"post_attention_layernorm.bias", H),
			bf16(p+"mlp.gate_proj.weight", I, H), bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I))
	}
	return corpusConfig("stabilityai__stable-code-3b"), ts
}

// TestStableCode3BHeader: the checkpoint's 356 tensors (32 layers of 11,
// the embedding, the final norm's weight and bias and the head) hold
// 2,795,443,200 parameters, the Hub's safetensors metadata for
// stabilityai/stablelm-zephyr-3b at revision fe1fd5e3 as a stored model
// record gives it ("2,795,443,200 parameters (safetensors metadata)",
// BF16, 5,590,927,496 B of safetensors files: 2 B x the parameters and
// 41,096 B of headers; index file id 65869676649): the same StableLM-3B
// layout (zephyr's config.json@5c3c083b, a stored page of the docs corpus,
// has stable-code-3b's widths, vocabulary and untied head; only the length
// and rope_theta differ), and the 2,795,443,200 stablelm-3b-4e1t's card
// gives (id 47270880946). stable-code-3b's own card gives 2,796,431,360
// (id 28636923179), StableLM-Alpha-3B-v2's figure (id 35943412221), which
// its config's widths do not make (988,160 more than the sum below); no
// Hub count of stable-code-3b is stored. By hand: the
// embedding and the untied head 2 x 50,304 x 2560 = 257,556,480; a
// layer's q, k, v and o 4 x 2560^2, the MLP 3 x 6912 x 2560, two
// LayerNorms 4 x 2560: 79,308,800, x 32 = 2,537,881,600; the final
// LayerNorm 2 x 2560. vLLM's stablelm.py loads every tensor and holds
// beside them the rotary table of 16,384 positions x 80 (the whole head:
// rope_pct is not a name vLLM reads, family_stablelm_epoch.go) x 2 B
// (50,304 rows are a multiple of 64: no padding). At TP2 each rank holds
// 16 heads: q, k, v and o 4 x 1280 x 2560, the MLP 3 x 3456 x 2560, the
// LayerNorms whole: 39,659,520 a layer; the embedding and head 2 x 25,152
// x 2560 = 128,778,240: 128,778,240 + 32 x 39,659,520 + 2 x 2560 =
// 1,397,888,000 parameters.
func TestStableCode3BHeader(t *testing.T) {
	_, ts := stableCode3BHeader()
	checkHeaderNames(t, ts, 32*11+4)
	const params = 257_556_480 + 32*79_308_800 + 2*2560
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 2_795_443_200 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub's metadata counts 2,795,443,200", got, want, params)
	}
	const tp2 = 128_778_240 + 32*39_659_520 + 2*2560
	if tp2 != 1_397_888_000 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 1,397,888,000", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "stable-code-3b", fixture: stableCode3BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 16384*80*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 16384*80*2, ""},
		},
	}})
	checkHeaderRanks(t, stableCode3BHeader)
}

// stableLM2_1_6BChatHeader is stabilityai/stablelm-2-1_6b-chat's
// checkpoint in transformers' StableLm names (modeling_stablelm.py: q, k
// and v biased by use_qkv_bias, o_proj not, the gated mlp.gate_proj,
// up_proj and down_proj, input_layernorm and post_attention_layernorm
// LayerNorms with weight and bias, model.norm the same, the head untied),
// shapes from the corpus config: 24 layers of 2048 wide, 32 heads and 32
// KV heads of 64, MLP 5632, 100,352 tokens, float32 as its torch_dtype
// says and the published metadata reports.
func stableLM2_1_6BChatHeader() (string, []safetensors.Tensor) {
	const H, I, V = 2048, 5632, 100352
	ts := []safetensors.Tensor{
		bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("model.norm.bias", H),
		bf16("lm_head.weight", V, H),
	}
	for l := range 24 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"input_layernorm.bias", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.q_proj.bias", H),
			bf16(p+"self_attn.k_proj.weight", H, H), bf16(p+"self_attn.k_proj.bias", H),
			bf16(p+"self_attn.v_proj.weight", H, H), bf16(p+"self_attn.v_proj.bias", H),
			bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"post_attention_layernorm.weight", H), bf16(p+"post_attention_layernorm.bias", H),
			bf16(p+"mlp.gate_proj.weight", I, H), bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I))
	}
	return corpusConfig("stabilityai__stablelm-2-1_6b-chat"), asF32(ts)
}

// TestStableLM2_1_6BChatHeader: the checkpoint's 340 tensors (24 layers
// of 14, the embedding, the final norm's weight and bias and the head)
// hold 1,644,515,328 parameters, F32, the Hub's safetensors metadata for
// stabilityai/stablelm-2-1_6b-chat at revision f3fe6705 as a stored model
// record gives it (6,578,099,872 B of safetensors files: 4 B x the
// parameters and 38,560 B of headers; index file id 65755328185; the
// record of the base stablelm-2-1_6b gives the same count in BF16, id
// 65849527990). By hand: the embedding and the untied head 2 x 100,352 x
// 2048 = 411,041,792; a layer's q, k, v and o 4 x 2048^2, the q, k and v
// biases 3 x 2048, the MLP 3 x 5632 x 2048, two LayerNorms 4 x 2048:
// 51,394,560, x 24 = 1,233,469,440; the final LayerNorm 2 x 2048. vLLM's
// stablelm.py serves a float32 checkpoint in bfloat16 ("auto",
// vllm/config/model.py _resolve_auto_dtype): 2 B a parameter, and beside
// them the rotary table of 4096 positions x 16 (a quarter of a head of
// 64) x 2 B (100,352 rows are a multiple of 64: no padding). At TP2 each
// rank holds 16 heads: q, k, v and o 4 x 1024 x 2048, their three biases
// 3 x 1024, the MLP 3 x 2816 x 2048, the LayerNorms whole: 25,701,376 a
// layer; the embedding and head 2 x 50,176 x 2048 = 205,520,896:
// 205,520,896 + 24 x 25,701,376 + 2 x 2048 = 822,358,016 parameters.
func TestStableLM2_1_6BChatHeader(t *testing.T) {
	_, ts := stableLM2_1_6BChatHeader()
	checkHeaderNames(t, ts, 24*14+4)
	const params = 411_041_792 + 24*51_394_560 + 2*2048
	if got, want := headerTotal(ts), uint64(4*params); got != want || params != 1_644_515_328 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub's metadata counts 1,644,515,328", got, want, params)
	}
	const tp2 = 205_520_896 + 24*25_701_376 + 2*2048
	if tp2 != 822_358_016 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 822,358,016", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "stablelm-2-1_6b-chat", fixture: stableLM2_1_6BChatHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 4096*16*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 4096*16*2, ""},
		},
	}})
	checkHeaderRanks(t, stableLM2_1_6BChatHeader)
}

// falcon7BRWHeader is tiiuae/falcon-7b's checkpoint over its first
// config, the RefinedWebModel one (RWForCausalLM), in the names its
// remote modelling_RW.py gives the modules and falcon-40b's published
// index holds (transformer.word_embeddings, transformer.h.N.
// self_attention.query_key_value, self_attention.dense, mlp.dense_h_to_4h,
// mlp.dense_4h_to_h without biases, transformer.ln_f, lm_head), with
// falcon-7b's one input_layernorm a layer (parallel attention and MLP
// over one norm, weight and bias), shapes from the corpus config: 32
// layers of 4544 wide, 71 heads of 64 and one KV head (query_key_value
// 4544 + 2 x 64 rows, the [4672, 4544] a stored Falcon-7B analysis
// unpacks, index file id 56749378863), MLP 4 x 4544, 65,024 tokens, bf16.
func falcon7BRWHeader() (string, []safetensors.Tensor) {
	const H, V, QKV, I = 4544, 65024, 4544 + 2*64, 4 * 4544
	ts := []safetensors.Tensor{bf16("transformer.word_embeddings.weight", V, H)}
	for l := range 32 {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"input_layernorm.bias", H),
			bf16(p+"self_attention.query_key_value.weight", QKV, H), bf16(p+"self_attention.dense.weight", H, H),
			bf16(p+"mlp.dense_h_to_4h.weight", I, H), bf16(p+"mlp.dense_4h_to_h.weight", H, I))
	}
	ts = append(ts, bf16("transformer.ln_f.weight", H), bf16("transformer.ln_f.bias", H), bf16("lm_head.weight", V, H))
	return corpusConfig("tiiuae__falcon-7b"), ts
}

// TestFalcon7BRWHeader: the checkpoint's 196 tensors (32 layers of 6, the
// embedding, ln_f's weight and bias and lm_head) hold 7,217,189,760
// parameters, BF16, the Hub's safetensors metadata for tiiuae/falcon-7b
// at revision ec89142b as a stored model record gives it (14,434,402,976
// B of safetensors files: 2 B x the parameters and 23,456 B of headers;
// index file id 66004594245; the weights the RW config was published
// with, which the later FalconForCausalLM config kept). By hand: the
// embedding 65,024 x 4544 = 295,469,056 and lm_head the same; a layer's
// query_key_value 4672 x 4544 = 21,229,568, dense 4544^2 = 20,647,936, the
// MLP 2 x 18,176 x 4544 = 165,183,488, input_layernorm 2 x 4544:
// 207,070,080, x 32 = 6,626,242,560; ln_f 2 x 4544. vLLM reads the
// RefinedWebModel config with its own RWConfig (family_falcon.go): tied
// (no tie key), so falcon.py makes lm_head the embedding and skips the
// checkpoint's copy, and holds every LayerNorm in the model dtype
// (torch.nn.LayerNorm, falcon.py:30, built under vLLM's default dtype): at
// one rank the embedding and the layers' linears 2 x (295,469,056 + 32 x
// 207,060,992), the 33 x 9088 norm values 2 B each, and the rotary table
// of 8192 positions (RWConfig has no max_position_embeddings: falcon.py:167's
// default) x 64 x 2 B (65,024 rows are a multiple of 64: no padding). 71
// heads divide no TP but 1 and 71.
func TestFalcon7BRWHeader(t *testing.T) {
	_, ts := falcon7BRWHeader()
	checkHeaderNames(t, ts, 32*6+4)
	const params = 2*295_469_056 + 32*207_070_080 + 2*4544
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 7_217_189_760 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub's metadata counts 7,217,189,760", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "falcon-7b (RW)", fixture: falcon7BRWHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*(295_469_056+32*207_060_992) + 2*(33*9088) + 8192*64*2, ""},
		},
	}})
	checkHeaderStages(t, falcon7BRWHeader)
}

// checkHeaderStages is checkHeaderRanks for a model whose heads no tensor
// rank count but 1 divides (falcon-7b's 71): the engine refuses those
// ranks (engine/parallel.go), so only TP1 and the stages of PP2 are
// compared.
func checkHeaderStages(t *testing.T, fixture func() (string, []safetensors.Tensor)) {
	t.Helper()
	a, notes := attach(t, fixture)
	if len(notes.Unknown) > 0 {
		t.Errorf("tensors no rule names: %v", notes.Unknown)
	}
	sh := Whole(a, 1, 2, a.Quant)
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP1: checkpoint %d B, config %d B", c, w)
	}
	for i := range 2 {
		sh := ppStage(i, 2)(a)
		if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
			t.Errorf("PP2 stage %d: checkpoint %d B, config %d B", i, c, w)
		}
	}
}

// TestRWConfig: model_type RefinedWeb and RefinedWebModel are read with
// vLLM's RWConfig (family_falcon.go). falcon-40b's first config (n_head
// 128, n_head_kv 8, n_layer 60, width 8192, parallel_attn, no
// new_decoder_architecture key): RWConfig's hack makes a width of 8192 the
// new decoder architecture, so 8 KV heads and ln_attn and ln_mlp; with no
// length key vLLM's 2048, the rotary table over falcon.py's 8192. A
// RefinedWebModel config without multi_query, n_head_kv or parallel_attn
// takes RWConfig's defaults: multi_query true (one KV head), sequential
// attention (input_layernorm and post_attention_layernorm).
func TestRWConfig(t *testing.T) {
	type got struct {
		ModelType               string
		Layers, Heads, KVHeads  uint64
		Norms, MaxPos, RotaryAt uint64
	}
	tests := []struct {
		name, doc string
		want      got
	}{
		{"falcon-40b RefinedWeb", `{"model_type": "RefinedWeb", "architectures": ["RWForCausalLM"], "hidden_size": 8192, "n_head": 128,
 "n_head_kv": 8, "n_layer": 60, "parallel_attn": true, "vocab_size": 65024}`,
			got{ModelType: "falcon", Layers: 60, Heads: 128, KVHeads: 8, Norms: 2, MaxPos: 2048, RotaryAt: 8192}},
		{"RefinedWebModel defaults", `{"model_type": "RefinedWebModel", "architectures": ["RWForCausalLM"], "hidden_size": 64, "n_head": 4,
 "n_layer": 2, "vocab_size": 128}`,
			got{ModelType: "falcon", Layers: 2, Heads: 4, KVHeads: 1, Norms: 2, MaxPos: 2048, RotaryAt: 8192}},
		// A length key other than max_position_embeddings is the length
		// (the least of them, as for BLOOM); the rotary table keeps
		// falcon.py:167's 8192 rows whatever the length.
		{"RefinedWebModel with seq_length", `{"model_type": "RefinedWebModel", "architectures": ["RWForCausalLM"], "hidden_size": 64, "n_head": 4,
 "n_layer": 2, "vocab_size": 128, "seq_length": 1024}`,
			got{ModelType: "falcon", Layers: 2, Heads: 4, KVHeads: 1, Norms: 2, MaxPos: 1024, RotaryAt: 8192}},
	}
	for _, tt := range tests {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		g := got{a.ModelType, uint64(len(a.Layers)), a.Heads, a.KVHeads, a.NormsPerLayer, a.MaxPosition, a.Rotary[0].Positions}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
		if a.ReadAs != "" {
			t.Errorf("%s: read as a remote-code config (%s); RWConfig is vLLM's own class", tt.name, a.ReadAs)
		}
	}
}
