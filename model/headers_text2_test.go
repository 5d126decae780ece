package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// denseShape is a dense decoder checkpoint in Llama's names: layers of
// hidden h with q heads x hd wide, kv KV rows, an MLP of inter, over v
// tokens; norms names each layer's norms, qkNorm the width of its q_norm
// and k_norm (0: none; hd: per head; q: every head), tied whether the head
// is the embedding (no lm_head), qkvBias whether q, k and v carry biases.
type denseShape struct {
	layers, h, q, kv, inter, v uint64
	norms                      []string
	qNorm, kNorm               uint64
	tied, qkvBias              bool
}

// tensors is the shape's bf16 tensors: the embedding, the final norm, the
// head unless tied, and each layer's norms, q, k, v, o, their biases, q
// and k norms and gated MLP.
func (d denseShape) tensors() []safetensors.Tensor {
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", d.v, d.h), bf16("model.norm.weight", d.h)}
	if !d.tied {
		ts = append(ts, bf16("lm_head.weight", d.v, d.h))
	}
	for l := range d.layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		for _, n := range d.norms {
			ts = append(ts, bf16(p+n+".weight", d.h))
		}
		ts = append(ts,
			bf16(p+"self_attn.q_proj.weight", d.q, d.h), bf16(p+"self_attn.k_proj.weight", d.kv, d.h),
			bf16(p+"self_attn.v_proj.weight", d.kv, d.h), bf16(p+"self_attn.o_proj.weight", d.h, d.q))
		if d.qkvBias {
			ts = append(ts, bf16(p+"self_attn.q_proj.bias", d.q), bf16(p+"self_attn.k_proj.bias", d.kv),
				bf16(p+"self_attn.v_proj.bias", d.kv))
		}
		if d.qNorm > 0 {
			ts = append(ts, bf16(p+"self_attn.q_norm.weight", d.qNorm), bf16(p+"self_attn.k_norm.weight", d.kNorm))
		}
		ts = append(ts, bf16(p+"mlp.gate_proj.weight", d.inter, d.h), bf16(p+"mlp.up_proj.weight", d.inter, d.h),
			bf16(p+"mlp.down_proj.weight", d.h, d.inter))
	}
	return ts
}

// gemma2_9BHeader is google/gemma-2-9b-it's checkpoint in transformers'
// Gemma2 names (four norms a layer, the head tied, so no lm_head), with
// shapes from the corpus config: 42 layers of 3584 wide, 16 heads and 8 KV
// heads of 256, MLP 14,336, 256,000 tokens, bf16.
func gemma2_9BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("google__gemma-2-9b-it"), denseShape{
		layers: 42, h: 3584, q: 16 * 256, kv: 8 * 256, inter: 14336, v: 256000, tied: true,
		norms: []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"},
	}.tensors()
}

// TestGemma2_9BHeader: the checkpoint's 464 tensors (42 layers of 11 and
// the embedding and final norm) sum to its index's total_size,
// 18,483,411,968 B, as two stored reproduction records give it for
// google/gemma-2-9b-it's model.safetensors.index.json ("464 tensor
// entries", 4 shards, total_size=18483411968; index file ids 68304063591,
// 65844477187) and a stored run record gives the parameters,
// 9,241,705,984, with the same bytes "from safetensors-index" (id
// 63536480205). By hand: the embedding 256,000 x 3584 = 917,504,000; a
// layer's q and o 2 x 4096 x 3584, k and v 2 x 2048 x 3584, the MLP 3 x
// 14,336 x 3584, four norms 4 x 3584: 198,195,200, x 42 = 8,324,198,400;
// the final norm 3584. Read by gemma2's rules they are what the config
// gives at one rank, beside the rotary table of 8192 positions x 256 x 2
// B; the checkpoint and the config agree rank by rank.
func TestGemma2_9BHeader(t *testing.T) {
	_, ts := gemma2_9BHeader()
	checkHeaderNames(t, ts, 464)
	if got, want := headerTotal(ts), uint64(2*(917_504_000+42*198_195_200+3584)); got != want || want != 18_483_411_968 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 18,483,411,968", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "gemma-2-9b-it", fixture: gemma2_9BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 18_483_411_968 + 8192*256*2, ""}},
	}})
	checkHeaderRanks(t, gemma2_9BHeader)
}

// olmo3_32BHeader is allenai/Olmo-3.1-32B-Instruct's checkpoint in
// transformers' Olmo3 names (no input_layernorm: a norm after the
// attention and one after the MLP; q_norm over every head, k_norm over
// every KV head; the head untied), with shapes from the corpus config: 64
// layers of 5120 wide, 40 heads and 8 KV heads of 128, MLP 27,648, 100,278
// tokens, bf16.
func olmo3_32BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("allenai__Olmo-3.1-32B-Instruct"), denseShape{
		layers: 64, h: 5120, q: 40 * 128, kv: 8 * 128, inter: 27648, v: 100278,
		norms: []string{"post_attention_layernorm", "post_feedforward_layernorm"}, qNorm: 40 * 128, kNorm: 8 * 128,
	}.tensors()
}

// exaone4_32BHeader is LGAI-EXAONE/EXAONE-4.0-32B's checkpoint in
// transformers' Exaone4 names (OLMo 3's norms after the attention and the
// MLP, but q_norm and k_norm per head of 128; the head untied), with
// shapes from the corpus config: 64 layers of 5120 wide, 40 heads and 8
// KV heads of 128, MLP 27,392, 102,400 tokens, bf16.
func exaone4_32BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("LGAI-EXAONE__EXAONE-4.0-32B"), denseShape{
		layers: 64, h: 5120, q: 40 * 128, kv: 8 * 128, inter: 27392, v: 102400,
		norms: []string{"post_attention_layernorm", "post_feedforward_layernorm"}, qNorm: 128, kNorm: 128,
	}.tensors()
}

// granite32_8BHeader is ibm-granite/granite-3.2-8b-instruct's checkpoint
// in transformers' Granite names (Llama's, the head tied, so no lm_head),
// with shapes from the corpus config: 40 layers of 4096 wide, 32 heads and
// 8 KV heads of 128, MLP 12,800, 49,155 tokens, bf16.
func granite32_8BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("ibm-granite__granite-3.2-8b-instruct"), denseShape{
		layers: 40, h: 4096, q: 32 * 128, kv: 8 * 128, inter: 12800, v: 49155, tied: true,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
}

// TestOlmo3_32BHeader: the checkpoint's 707 tensors (64 layers of 11, the
// embedding, the final norm and the untied head) sum to 64,467,044,352 B,
// twice the parameters a stored scaling script gives OLMo 3 32B,
// 32,233,522,176 ("olmo3_32b_bits = 32233522176 * 16", index file ids
// 53559420034, 53524487476; OLMo 3.1 32B keeps OLMo 3 32B's architecture).
// No stored index or total_size was found. By hand: the embedding and the
// head 2 x 100,278 x 5120 = 1,026,846,720; a layer's q and o 2 x 5120^2,
// k and v 2 x 1024 x 5120, the MLP 3 x 27,648 x 5120, q_norm 5120 and
// k_norm 1024, two norms 2 x 5120: 487,604,224, x 64 = 31,206,670,336; the
// final norm 5120. Read by olmo3's rules, at one rank vLLM holds beside
// them the embedding and head padded to a multiple of 64 rows (100,288:
// 2 x 10 x 5120 x 2 B; vocab_parallel_embedding.py's DEFAULT_VOCAB_PADDING_SIZE)
// and the YaRN table of 8192 x 8 positions x 128 x 2 B; the checkpoint and
// the config agree rank by rank.
func TestOlmo3_32BHeader(t *testing.T) {
	_, ts := olmo3_32BHeader()
	checkHeaderNames(t, ts, 707)
	if got, want := headerTotal(ts), uint64(2*(1_026_846_720+64*487_604_224+5120)); got != want || want != 2*32_233_522_176 {
		t.Errorf("header total %d B, by hand %d, the published parameters are 32,233,522,176 x 2 B", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "Olmo-3.1-32B-Instruct", fixture: olmo3_32BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 64_467_044_352 + 2*10*5120*2 + 8192*8*128*2, ""}},
	}})
	checkHeaderRanks(t, olmo3_32BHeader)
}

// TestExaone4_32BHeader: the checkpoint's 707 tensors (64 layers of 11,
// the embedding, the final norm and the untied head) sum by hand to
// 64,006,432,768 B, 32,003,216,384 parameters; no stored index,
// total_size or exact count was found (the model card says 32B). The
// embedding and the head 2 x 102,400 x 5120 = 1,048,576,000; a layer's q
// and o 2 x 5120^2, k and v 2 x 1024 x 5120, the MLP 3 x 27,392 x 5120,
// q_norm and k_norm 2 x 128, two norms 2 x 5120: 483,666,176, x 64 =
// 30,954,635,264; the final norm 5120. Read by exaone4's rules they are
// what the config gives at one rank, beside the llama3 rotary table of
// 131,072 positions x 128 x 2 B (102,400 rows need no padding); the
// checkpoint and the config agree rank by rank.
func TestExaone4_32BHeader(t *testing.T) {
	_, ts := exaone4_32BHeader()
	checkHeaderNames(t, ts, 707)
	if got, want := headerTotal(ts), uint64(2*(1_048_576_000+64*483_666_176+5120)); got != want || want != 64_006_432_768 {
		t.Errorf("header total %d B, by hand %d", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "EXAONE-4.0-32B", fixture: exaone4_32BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 64_006_432_768 + 131072*128*2, ""}},
	}})
	checkHeaderRanks(t, exaone4_32BHeader)
}

// TestGranite32_8BHeader: the checkpoint's 362 tensors (40 layers of 9,
// the embedding and the final norm; the head tied) sum by hand to
// 16,341,696,512 B, 8,170,848,256 parameters; no stored index or exact
// count was found (the model card and stored catalogs say 8B). The
// embedding 49,155 x 4096 = 201,338,880; a layer's q and o 2 x 4096^2, k
// and v 2 x 1024 x 4096, the MLP 3 x 12,800 x 4096, two norms 2 x 4096:
// 199,237,632, x 40 = 7,969,505,280; the final norm 4096. Read by
// granite's rules, at one rank vLLM holds beside them the embedding padded
// to 49,216 rows (a multiple of 64: 61 x 4096 x 2 B) and the rotary table
// of 131,072 positions x 128 x 2 B; the checkpoint and the config agree
// rank by rank.
func TestGranite32_8BHeader(t *testing.T) {
	_, ts := granite32_8BHeader()
	checkHeaderNames(t, ts, 362)
	if got, want := headerTotal(ts), uint64(2*(201_338_880+40*199_237_632+4096)); got != want || want != 16_341_696_512 {
		t.Errorf("header total %d B, by hand %d", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "granite-3.2-8b-instruct", fixture: granite32_8BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 16_341_696_512 + 61*4096*2 + 131072*128*2, ""}},
	}})
	checkHeaderRanks(t, granite32_8BHeader)
}
