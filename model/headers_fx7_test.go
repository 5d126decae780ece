package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// Full-size header fixtures, batch 7 (issue 23, item 6): the older
// families vLLM still serves, each checked against its published listing.

func init() {
	for name, s := range map[string]shape{
		// gpt2: GPT2Config's names, 768 / 12 = 64 a head, multi-head;
		// n_positions 1024 (n_ctx is no length key); no torch_dtype:
		// float32; tied.
		"openai-community__gpt2": {ModelType: "gpt2", Layers: 12, Hidden: 768, Heads: 12, KVHeads: 12, HeadDim: 64,
			Vocab: 50257, MaxPos: 1024, Tied: true, Dtype: "float32"},
		// MPT-7B-Instruct: MptConfig's names, 4096 / 32 = 128 a head,
		// multi-head; max_seq_len 2048; ALiBi, no rotary; tied.
		"mosaicml__mpt-7b-instruct": {ModelType: "mpt", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128,
			Vocab: 50432, MaxPos: 2048, Tied: true, Dtype: "float16"},
		// BLOOM (176B): n_embed read as hidden_size (BloomConfig pops
		// it), n_layer, num_attention_heads; 14,336 / 112 = 128 a head,
		// multi-head; no length key: vLLM's 2048; ALiBi, no rotary; no
		// torch_dtype: float32; tied.
		"bigscience__bloom": {ModelType: "bloom", Layers: 70, Hidden: 14336, Heads: 112, KVHeads: 112, HeadDim: 128,
			Vocab: 250880, MaxPos: 2048, Tied: true, Dtype: "float32"},
		// RedPajama-INCITE-Base-7B: GPT-NeoX, 4096 / 32 = 128 a head,
		// multi-head; rotary_pct 1.0: the whole head rotary; untied.
		"togethercomputer__RedPajama-INCITE-Base-7B-v0.1": {ModelType: "gpt_neox", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32,
			HeadDim: 128, Vocab: 50432, MaxPos: 2048, RotaryDim: 128, Dtype: "float16"},
		// Falcon-40B: the new decoder architecture, 8192 / 128 = 64 a
		// head, num_kv_heads 8; no length key: FalconConfig's 2048;
		// rotary over the whole head; no tie_word_embeddings: tied.
		"tiiuae__falcon-40b": {ModelType: "falcon", Layers: 60, Hidden: 8192, Heads: 128, KVHeads: 8, HeadDim: 64,
			Vocab: 65024, MaxPos: 2048, Tied: true, RotaryDim: 64, Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// gpt2Layout is the float32 tensors of an openai-community GPT-2
// checkpoint in the names its model.safetensors uses (saved from
// GPT2Model: no transformer. prefix, no lm_head, the head being wte):
// wte, wpe, ln_f, and layers of 13: ln_1, ln_2, the Conv1D weights
// stored [in, out] (c_attn [h, 3h], attn.c_proj [h, h], mlp.c_fc [h, 4h],
// mlp.c_proj [4h, h]) with their biases, and the attn.bias causal-mask
// buffer [1, 1, positions, positions] (transformers
// models/gpt2/modeling_gpt2.py GPT2Attention registers it; vLLM's gpt2.py
// skips it).
func gpt2Layout(layers, h, positions, vocab uint64) []safetensors.Tensor {
	f32 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F32", name, shape...) }
	ts := []safetensors.Tensor{f32("wte.weight", vocab, h), f32("wpe.weight", positions, h)}
	for l := range layers {
		p := fmt.Sprintf("h.%d.", l)
		ts = append(ts,
			f32(p+"ln_1.weight", h), f32(p+"ln_1.bias", h),
			f32(p+"attn.bias", 1, 1, positions, positions),
			f32(p+"attn.c_attn.weight", h, 3*h), f32(p+"attn.c_attn.bias", 3*h),
			f32(p+"attn.c_proj.weight", h, h), f32(p+"attn.c_proj.bias", h),
			f32(p+"ln_2.weight", h), f32(p+"ln_2.bias", h),
			f32(p+"mlp.c_fc.weight", h, 4*h), f32(p+"mlp.c_fc.bias", 4*h),
			f32(p+"mlp.c_proj.weight", 4*h, h), f32(p+"mlp.c_proj.bias", h))
	}
	return append(ts, f32("ln_f.weight", h), f32("ln_f.bias", h))
}

// gpt2Header is openai-community/gpt2's model.safetensors (revision
// 607a30d): 12 layers of 768, 1024 positions, 50,257 tokens. Its names
// are the ones a stored GPT-2 loader lists from that file (index file id
// 33023126: wte.weight, wpe.weight, h.0.attn.bias [1, 1, 1024, 1024],
// h.0.attn.c_attn.weight [768, 2304], ..., ln_f.weight).
func gpt2Header() (string, []safetensors.Tensor) {
	return corpusConfig("openai-community__gpt2"), gpt2Layout(12, 768, 1024, 50257)
}

// TestGPT2Header: openai-community/gpt2's model.safetensors is 548,105,171
// B (its Hub size and sha256 248dfc39..., pinned by several stored
// records, e.g. index file ids 61172407306, 70317735574), and a stored
// safetensors reader that read the file records its header: 14,283 B of
// JSON, 160 tensors, every one F32, the data segment ending at
// 548,090,880 with 8 + 14,283 + 548,090,880 the file size (index file id
// 69229826019). By hand: 124,439,808 parameters (the count stored model
// prints give, e.g. index file id 58641530465: wte 50,257 x 768 =
// 38,597,376, wpe 1024 x 768 = 786,432, a layer's ln_1 and ln_2 4 x 768,
// c_attn 768 x 2304 + 2304, attn.c_proj 768^2 + 768, c_fc 768 x 3072 +
// 3072, mlp.c_proj 3072 x 768 + 768: 7,087,872, x 12 = 85,054,464; ln_f
// 2 x 768) and 12 attn.bias buffers of 1024^2, 4 B each: 4 x
// (124,439,808 + 12,582,912) = 548,090,880. vLLM skips the buffers
// (gpt2.py:256-258 at ffd91ee) and serves the float32 checkpoint in 2 B
// a parameter, its embedding padded to 50,304 rows (a multiple of 64):
// 2 x (124,439,808 + 47 x 768), no rotary table; the checkpoint and the
// config agree rank by rank.
func TestGPT2Header(t *testing.T) {
	_, ts := gpt2Header()
	checkHeaderNames(t, ts, 12*13+4)
	params := uint64(50257*768 + 1024*768 + 12*7_087_872 + 2*768)
	if params != 124_439_808 {
		t.Fatalf("by hand %d parameters, GPT-2's published count is 124,439,808", params)
	}
	if got, want := headerTotal(ts), 4*(params+12*1024*1024); got != want || want != 548_090_880 {
		t.Errorf("header total %d B, by hand %d, the file's data segment is 548,090,880", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "gpt2", fixture: gpt2Header,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2 * (params + 47*768), ""},
			// TP2, 2 B each: half the padded vocabulary, 25,152 x 768;
			// wpe, the LayerNorms and the row-parallel biases whole; a
			// layer's c_attn 6 heads of q, k and v, 1152 x 768 + 1152,
			// attn.c_proj 768 x 384 + 768, c_fc 1536 x 768 + 1536,
			// mlp.c_proj 768 x 1536 + 768, ln_1 and ln_2 4 x 768:
			// 3,546,240, x 12; ln_f 2 x 768.
			{"TP2", tpRanks(2, 0), 2 * (25152*768 + 1024*768 + 12*3_546_240 + 2*768), ""},
		},
	}})
	checkHeaderRanks(t, gpt2Header)
}

// mpt7BHeader is MPT-7B's checkpoint (mosaicml/mpt-7b-instruct's config):
// the 194 names of a stored pytorch_model.bin.index.json for it (github
// mikeybellissimo/LoRA-MPT pytorch_model.bin.index.json@500f7808, beside
// the model's own modeling_mpt.py): transformer.wte (the head too),
// transformer.norm_f, and 32 blocks of 6, attn.Wqkv [3 x 4096, 4096],
// attn.out_proj, ffn.up_proj [16,384, 4096], ffn.down_proj, norm_1 and
// norm_2, no biases (no_bias) and no position table (ALiBi), float16 as
// the config says.
func mpt7BHeader() (string, []safetensors.Tensor) {
	const H, V, I = 4096, 50432, 4 * 4096
	f16 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F16", name, shape...) }
	ts := []safetensors.Tensor{f16("transformer.wte.weight", V, H), f16("transformer.norm_f.weight", H)}
	for l := range 32 {
		p := fmt.Sprintf("transformer.blocks.%d.", l)
		ts = append(ts,
			f16(p+"attn.Wqkv.weight", 3*H, H), f16(p+"attn.out_proj.weight", H, H),
			f16(p+"ffn.up_proj.weight", I, H), f16(p+"ffn.down_proj.weight", H, I),
			f16(p+"norm_1.weight", H), f16(p+"norm_2.weight", H))
	}
	return corpusConfig("mosaicml__mpt-7b-instruct"), ts
}

// TestMPT7BHeader: the 194 tensors sum to the index's total_size,
// 13,298,573,312 B, 2 B each of 6,649,286,656 parameters. By hand: wte
// 50,432 x 4096 = 206,569,472; a block's Wqkv 12,288 x 4096, out_proj
// 4096^2, up_proj and down_proj 2 x 16,384 x 4096, norm_1 and norm_2 2 x
// 4096: 201,334,784, x 32 = 6,442,713,088; norm_f 4096. vLLM's mpt.py
// holds the same (50,432 rows are a multiple of 64: no padding; ALiBi
// keeps no table among the weights); the checkpoint and the config agree
// rank by rank.
func TestMPT7BHeader(t *testing.T) {
	_, ts := mpt7BHeader()
	checkHeaderNames(t, ts, 32*6+2)
	params := uint64(206_569_472 + 32*201_334_784 + 4096)
	if got, want := headerTotal(ts), 2*params; got != want || want != 13_298_573_312 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 13,298,573,312", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "mpt-7b", fixture: mpt7BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2 * params, ""},
			// TP2, 2 B each: half of wte, 25,216 x 4096; a block's Wqkv
			// 16 heads of q, k and v, 6144 x 4096, out_proj 4096 x 2048,
			// up_proj and down_proj 2 x 8192 x 4096, norm_1 and norm_2
			// whole: 100,671,488, x 32; norm_f.
			{"TP2", tpRanks(2, 0), 2 * (25216*4096 + 32*100_671_488 + 4096), ""},
		},
	}})
	checkHeaderRanks(t, mpt7BHeader)
}

// bloomHeader is bigscience/bloom's checkpoint: the 845 names of its
// published model.safetensors.index.json (commit 4bf48c6 "Add safetensors
// index (#142)" of the model's Hub history, as github amansingh61/bloom
// mirrors it): word_embeddings and word_embeddings_layernorm, ln_f, and
// 70 layers of 12 under h. (no transformer. prefix, no lm_head, no
// buffers): input_layernorm, self_attention.query_key_value [3 x 14,336,
// 14,336] and dense, post_attention_layernorm, mlp.dense_h_to_4h [57,344,
// 14,336] and dense_4h_to_h, each with its bias; bf16.
func bloomHeader() (string, []safetensors.Tensor) {
	const H, V = 14336, 250880
	ts := []safetensors.Tensor{bf16("word_embeddings.weight", V, H),
		bf16("word_embeddings_layernorm.weight", H), bf16("word_embeddings_layernorm.bias", H)}
	for l := range 70 {
		p := fmt.Sprintf("h.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"input_layernorm.bias", H),
			bf16(p+"self_attention.query_key_value.weight", 3*H, H), bf16(p+"self_attention.query_key_value.bias", 3*H),
			bf16(p+"self_attention.dense.weight", H, H), bf16(p+"self_attention.dense.bias", H),
			bf16(p+"post_attention_layernorm.weight", H), bf16(p+"post_attention_layernorm.bias", H),
			bf16(p+"mlp.dense_h_to_4h.weight", 4*H, H), bf16(p+"mlp.dense_h_to_4h.bias", 4*H),
			bf16(p+"mlp.dense_4h_to_h.weight", H, 4*H), bf16(p+"mlp.dense_4h_to_h.bias", H))
	}
	return corpusConfig("bigscience__bloom"), append(ts, bf16("ln_f.weight", H), bf16("ln_f.bias", H))
}

// TestBloomHeader: the 845 tensors sum to the index's total_size,
// 352,494,542,848 B, 2 B each of BLOOM's 176,247,271,424 parameters. By
// hand: the embedding 250,880 x 14,336 = 3,596,615,680 and its LayerNorm
// 2 x 14,336; a layer's two LayerNorms 4 x 14,336, query_key_value
// 43,008 x 14,336 + 43,008, dense 14,336^2 + 14,336, dense_h_to_4h 57,344
// x 14,336 + 57,344, dense_4h_to_h 14,336 x 57,344 + 14,336:
// 2,466,437,120, x 70 = 172,650,598,400; ln_f 2 x 14,336. vLLM's bloom.py
// holds the same (250,880 rows are a multiple of 64: no padding; ALiBi
// keeps no table among the weights); the checkpoint and the config agree
// rank by rank.
func TestBloomHeader(t *testing.T) {
	_, ts := bloomHeader()
	checkHeaderNames(t, ts, 70*12+5)
	params := uint64(3_596_615_680 + 2*14336 + 70*2_466_437_120 + 2*14336)
	if got, want := headerTotal(ts), 2*params; got != want || want != 352_494_542_848 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 352,494,542,848", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "bloom", fixture: bloomHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2 * params, ""},
			// TP2, 2 B each: half the embedding, 125,440 x 14,336, its
			// LayerNorm and ln_f whole; a layer's query_key_value 56
			// heads of q, k and v, 21,504 x 14,336 + 21,504, dense
			// 14,336 x 7168 and its whole bias, dense_h_to_4h 28,672 x
			// 14,336 + 28,672, dense_4h_to_h 14,336 x 28,672 and its
			// whole bias, the two LayerNorms 4 x 14,336: 1,233,261,568,
			// x 70.
			{"TP2", tpRanks(2, 0), 2 * (125440*14336 + 2*14336 + 70*1_233_261_568 + 2*14336), ""},
		},
	}})
	checkHeaderRanks(t, bloomHeader)
}

// redPajama7BHeader is togethercomputer/RedPajama-INCITE-Base-7B-v0.1's
// checkpoint: the 484 names of its published pytorch_model.bin.index.json
// (the model's Hub commit 8e6f27e, "init", the one after the empty
// "initial commit", as github drcege/RedPajama-INCITE-7B-Base mirrors the
// repository): embed_in,
// final_layer_norm, embed_out, and 32 layers of 15 under gpt_neox.layers.:
// the 12 parameters (input_layernorm and post_attention_layernorm,
// attention.query_key_value [3 x 4096, 4096] and dense, mlp.dense_h_to_4h
// [16,384, 4096] and dense_4h_to_h, each with its bias) in float16, and
// the three buffers transformers 4.28's GPTNeoXAttention saved (vLLM's
// gpt_neox.py skips them): attention.bias, the BOOL causal mask [1, 1,
// 2048, 2048], attention.masked_bias, a float16 scalar, and
// attention.rotary_emb.inv_freq, 64 float16 (rotary_pct 1.0: half of a
// 128 head). The buffers' dtypes are the ones the index's total_size
// leaves room for: see TestRedPajama7BHeader.
func redPajama7BHeader() (string, []safetensors.Tensor) {
	const H, V, I, P = 4096, 50432, 16384, 2048
	f16 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F16", name, shape...) }
	ts := []safetensors.Tensor{f16("gpt_neox.embed_in.weight", V, H)}
	for l := range 32 {
		p := fmt.Sprintf("gpt_neox.layers.%d.", l)
		ts = append(ts,
			f16(p+"input_layernorm.weight", H), f16(p+"input_layernorm.bias", H),
			f16(p+"post_attention_layernorm.weight", H), f16(p+"post_attention_layernorm.bias", H),
			typed("BOOL", p+"attention.bias", 1, 1, P, P), f16(p+"attention.masked_bias"), f16(p+"attention.rotary_emb.inv_freq", 64),
			f16(p+"attention.query_key_value.weight", 3*H, H), f16(p+"attention.query_key_value.bias", 3*H),
			f16(p+"attention.dense.weight", H, H), f16(p+"attention.dense.bias", H),
			f16(p+"mlp.dense_h_to_4h.weight", I, H), f16(p+"mlp.dense_h_to_4h.bias", I),
			f16(p+"mlp.dense_4h_to_h.weight", H, I), f16(p+"mlp.dense_4h_to_h.bias", H))
	}
	ts = append(ts, f16("gpt_neox.final_layer_norm.weight", H), f16("gpt_neox.final_layer_norm.bias", H), f16("embed_out.weight", V, H))
	return corpusConfig("togethercomputer__RedPajama-INCITE-Base-7B-v0.1"), ts
}

// TestRedPajama7BHeader: the index's total_size is 13,731,385,408, which
// transformers wrote counting a bool as 1/8 B (modeling_utils.py
// dtype_byte_size, e.g. the stored copy at index file id 3303666; the
// config says transformers 4.28.1). By hand: 6,857,302,016 parameters
// (the count Together's own client gives the 7B models, index file id
// 4120541175, and Pythia-6.9B's, the same shape): embed_in and embed_out
// 2 x 50,432 x 4096 = 413,138,944; a layer's two LayerNorms 4 x 4096,
// query_key_value 12,288 x 4096 + 12,288, dense 4096^2 + 4096,
// dense_h_to_4h 16,384 x 4096 + 16,384, dense_4h_to_h 4096 x 16,384 +
// 4096: 201,379,840, x 32; final_layer_norm 2 x 4096; 2 B each, and a
// layer's buffers 2048^2 / 8 (the mask, as transformers counts it) + 2
// (masked_bias) + 64 x 2 (inv_freq) = 524,418, x 32: the total_size to
// the byte, and no other dtypes fit it (a float32 masked_bias or inv_freq
// would add 2 or 128 B a layer). The header itself holds the mask at 1 B
// an element: 7/8 of 2048^2 more a layer. vLLM skips the buffers
// (gpt_neox.py:264-267 at ffd91ee skips attention.bias and masked_bias,
// AutoWeightsLoader rotary_emb.inv_freq: models/utils.py:190-214) and
// holds the parameters beside the
// rotary table of 2048 positions x 128 x 2 B (50,432 rows are a multiple
// of 64: no padding); the checkpoint and the config agree rank by rank.
func TestRedPajama7BHeader(t *testing.T) {
	_, ts := redPajama7BHeader()
	checkHeaderNames(t, ts, 32*15+4)
	params := uint64(413_138_944 + 32*201_379_840 + 2*4096)
	if params != 6_857_302_016 {
		t.Fatalf("by hand %d parameters, the published count is 6,857,302,016", params)
	}
	indexTotal := 2*params + 32*(2048*2048/8+2+64*2)
	if indexTotal != 13_731_385_408 {
		t.Fatalf("by hand %d B as transformers counts it, the index's total_size is 13,731,385,408", indexTotal)
	}
	if got, want := headerTotal(ts), indexTotal+32*(2048*2048*7/8); got != want {
		t.Errorf("header total %d B, want the index's total_size with every mask at 1 B an element, %d", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "RedPajama-INCITE-Base-7B", fixture: redPajama7BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 2048*128*2, ""},
			// TP2, 2 B each: half of embed_in and embed_out, 2 x 25,216
			// x 4096; a layer's query_key_value 16 heads of q, k and v,
			// 6144 x 4096 + 6144, dense 4096 x 2048 and its whole bias,
			// dense_h_to_4h 8192 x 4096 + 8192, dense_4h_to_h 4096 x 8192
			// and its whole bias, the LayerNorms 4 x 4096: 100,702,208,
			// x 32; final_layer_norm; the same rotary table.
			{"TP2", tpRanks(2, 0), 2*(2*25216*4096+32*100_702_208+2*4096) + 2048*128*2, ""},
		},
	}})
	checkHeaderRanks(t, redPajama7BHeader)
}

// falcon40BHeader is tiiuae/falcon-40b's checkpoint: the 484 names of its
// pytorch_model.bin.index.json as github Decentralised-AI/falcon-40b
// mirrors the model's Hub history (56dde4b, "Upload RWForCausalLM", 9
// shards; the safetensors the
// repository now holds carry the same names and total_size, as a stored
// note reads the model.safetensors.index.json, index file id
// 51932210696): transformer.word_embeddings, transformer.ln_f (weight
// and bias), lm_head, and 60 layers of 8 under transformer.h.: ln_attn
// and ln_mlp (weight and bias), self_attention.query_key_value [(128 + 2
// x 8) x 64, 8192], self_attention.dense, mlp.dense_h_to_4h [32,768,
// 8192] and dense_4h_to_h, no biases; bf16.
func falcon40BHeader() (string, []safetensors.Tensor) {
	const H, V, QKV, I = 8192, 65024, (128 + 2*8) * 64, 4 * 8192
	ts := []safetensors.Tensor{bf16("transformer.word_embeddings.weight", V, H)}
	for l := range 60 {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			bf16(p+"ln_attn.weight", H), bf16(p+"ln_attn.bias", H), bf16(p+"ln_mlp.weight", H), bf16(p+"ln_mlp.bias", H),
			bf16(p+"self_attention.query_key_value.weight", QKV, H), bf16(p+"self_attention.dense.weight", H, H),
			bf16(p+"mlp.dense_h_to_4h.weight", I, H), bf16(p+"mlp.dense_4h_to_h.weight", H, I))
	}
	ts = append(ts, bf16("transformer.ln_f.weight", H), bf16("transformer.ln_f.bias", H), bf16("lm_head.weight", V, H))
	return corpusConfig("tiiuae__falcon-40b"), ts
}

// TestFalcon40BHeader: the 484 tensors sum to the index's total_size,
// 83,671,941,120 B, 2 B each of 41,835,970,560 parameters. By hand: the
// embedding and lm_head 2 x 65,024 x 8192 = 1,065,353,216; a layer's
// query_key_value 9216 x 8192 = 75,497,472, dense 8192^2, the MLP 2 x
// 32,768 x 8192, ln_attn and ln_mlp 4 x 8192: 679,510,016, x 60 =
// 40,770,600,960; ln_f 2 x 8192. The config leaves the head tied, so vLLM
// makes lm_head the embedding and skips the checkpoint's copy (falcon.py
// FalconForCausalLM, tie_word_embeddings), and holds every LayerNorm in
// the model dtype (torch.nn.LayerNorm, falcon.py:30): at one rank the
// embedding and the layers' linears 2 x (532,676,608 + 60 x 679,477,248),
// the 60 x 32,768 + 16,384 norm values 2 B each, and the rotary table of
// 2048 positions x 64 x 2 B (65,024 rows are a multiple of 64: no
// padding); the checkpoint and the config agree rank by rank.
func TestFalcon40BHeader(t *testing.T) {
	_, ts := falcon40BHeader()
	checkHeaderNames(t, ts, 60*8+4)
	params := uint64(2*532_676_608 + 60*679_510_016 + 2*8192)
	if got, want := headerTotal(ts), 2*params; got != want || want != 83_671_941_120 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 83,671,941,120", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "falcon-40b", fixture: falcon40BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*(532_676_608+60*679_477_248) + 2*(60*32_768+16_384) + 2048*64*2, ""},
			// TP2: half the embedding, 32,512 x 8192; a layer's
			// query_key_value 64 heads and 4 + 4 KV heads, 72 x 64 x 8192,
			// dense 8192 x 4096, the MLP 2 x 16,384 x 8192: 339,738,624,
			// 2 B each; the LayerNorms whole, 2 B each too, and the same
			// rotary table.
			{"TP2", tpRanks(2, 0), 2*(32512*8192+60*339_738_624) + 2*(60*32_768+16_384) + 2048*64*2, ""},
		},
	}})
	checkHeaderRanks(t, falcon40BHeader)
}

// phi2Header is microsoft/phi-2's checkpoint in transformers' Phi names,
// as a stored book chapter copies its model.safetensors.index.json (index
// file id 9232979876: lm_head.weight and lm_head.bias,
// model.embed_tokens, model.final_layernorm, and each layer's 14,
// input_layernorm, self_attn.q_proj, k_proj, v_proj and dense,
// mlp.fc1 and fc2, every one with its bias; the copy elides the middle
// layers, whose names repeat layer 0's and layer 9's): 32 layers of 2560,
// MLP 10,240, 51,200 tokens, float16.
func phi2Header() (string, []safetensors.Tensor) {
	const H, I, V = 2560, 10240, 51200
	f16 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F16", name, shape...) }
	ts := []safetensors.Tensor{f16("lm_head.weight", V, H), f16("lm_head.bias", V), f16("model.embed_tokens.weight", V, H),
		f16("model.final_layernorm.weight", H), f16("model.final_layernorm.bias", H)}
	for l := range 32 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, f16(p+"input_layernorm.weight", H), f16(p+"input_layernorm.bias", H))
		for _, n := range []string{"q_proj", "k_proj", "v_proj", "dense"} {
			ts = append(ts, f16(p+"self_attn."+n+".weight", H, H), f16(p+"self_attn."+n+".bias", H))
		}
		ts = append(ts, f16(p+"mlp.fc1.weight", I, H), f16(p+"mlp.fc1.bias", I), f16(p+"mlp.fc2.weight", H, I), f16(p+"mlp.fc2.bias", H))
	}
	return corpusConfig("microsoft__phi-2"), ts
}

// TestPhi2Header: the 453 tensors sum to the index's total_size,
// 5,559,367,680 B, 2 B each of 2,779,683,840 parameters. By hand: the
// embedding and lm_head 2 x 51,200 x 2560 = 262,144,000 and lm_head's
// bias 51,200; a layer's LayerNorm 2 x 2560, q, k, v and dense 4 x (2560^2
// + 2560), fc1 10,240 x 2560 + 10,240, fc2 2560 x 10,240 + 2560:
// 78,671,360, x 32 = 2,517,483,520; final_layernorm 2 x 2560. vLLM's
// phi.py holds the same, the head untied with its bias, beside the rotary
// table of 2048 positions x 32 (partial_rotary_factor 0.4 of a head of
// 80) x 2 B (51,200 rows are a multiple of 64: no padding); the
// checkpoint and the config agree rank by rank.
func TestPhi2Header(t *testing.T) {
	_, ts := phi2Header()
	checkHeaderNames(t, ts, 32*14+5)
	params := uint64(262_144_000 + 51_200 + 32*78_671_360 + 2*2560)
	if got, want := headerTotal(ts), 2*params; got != want || want != 5_559_367_680 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 5,559,367,680", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "phi-2", fixture: phi2Header,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 2048*32*2, ""},
			// TP2, 2 B each: half of the embedding and of lm_head with
			// its bias, 2 x 25,600 x 2560 + 25,600; a layer's q, k and v
			// 16 heads of 80, 3840 x 2560 + 3840, dense 2560 x 1280 and
			// its whole bias, fc1 5120 x 2560 + 5120, fc2 2560 x 5120 and
			// its whole bias, the LayerNorm 2 x 2560: 39,340,800, x 32;
			// final_layernorm; the same rotary table.
			{"TP2", tpRanks(2, 0), 2*(2*25600*2560+25600+32*39_340_800+2*2560) + 2048*32*2, ""},
		},
	}})
	checkHeaderRanks(t, phi2Header)
}
