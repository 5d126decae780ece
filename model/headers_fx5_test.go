package model

import (
	"testing"

	"membudget/model/safetensors"
)

// gemmaFourNorms are the four norms of a Gemma 2 or Gemma 3 decoder layer, as
// transformers' modeling_gemma3.py names them.
var gemmaFourNorms = []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"}

// gemma3_1BHeader is google/gemma-3-1b-it's checkpoint, one
// model.safetensors, in transformers 4.50's Gemma3ForCausalLM names
// (modeling_gemma3.py: model., four norms a layer, q_norm and k_norm over
// one head of 256, the head tied, so no lm_head), with shapes from the
// corpus config: 26 layers of 1152 wide, 4 heads and 1 KV head of 256, MLP
// 6912, 262,144 tokens, bf16.
func gemma3_1BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("google__gemma-3-1b-it"), denseShape{
		layers: 26, h: 1152, q: 4 * 256, kv: 256, inter: 6912, v: 262144, tied: true,
		norms: gemmaFourNorms, qNorm: 256, kNorm: 256,
	}.tensors()
}

// TestGemma3_1BHeader: the checkpoint's 340 tensors (26 layers of 13, the
// embedding and the final norm) hold 999,885,952 parameters, the Hub's
// safetensors total for google/gemma-3-1b-it as stored API answers and
// model tables copy it (index file ids 59172823075, 71142266638; Keras'
// gemma3_instruct_1b preset counts the same, id 3173084990), and
// 1,999,771,904 B in 2-byte weights, as a stored conversion record of the
// checkpoint at revision dcc83ea8 gives its size (id 52787755097). By
// hand: the embedding 262,144 x 1152 = 301,989,888; a layer's q and o 2 x
// 1024 x 1152, k and v 2 x 256 x 1152, q and k norms 2 x 256, the MLP 3 x
// 6912 x 1152, four norms 4 x 1152: 26,842,112, x 26 = 697,894,912; the
// final norm 1152. At one rank vLLM holds beside them Gemma 3's two rotary
// tables of 256 values a position over 32,768 positions (the local one and
// the unscaled global one, family_gemma3.go); 262,144 rows are a multiple
// of 64, so the embedding is not padded. One KV head: TP2 and TP4
// replicate it, and the checkpoint and the config agree rank by rank.
func TestGemma3_1BHeader(t *testing.T) {
	_, ts := gemma3_1BHeader()
	checkHeaderNames(t, ts, 340)
	if got, want := headerTotal(ts), uint64(2*(301_989_888+26*26_842_112+1152)); got != want || want != 2*999_885_952 {
		t.Errorf("header total %d B, by hand %d, the published count is 2 x 999,885,952 = 1,999,771,904", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "gemma-3-1b-it", fixture: gemma3_1BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 1_999_771_904 + 2*32768*256*2, ""}},
	}})
	checkHeaderRanks(t, gemma3_1BHeader)
}

// gemma7BHeader is google/gemma-7b's checkpoint in transformers'
// Gemma names (modeling_gemma.py: model., two norms a layer, the head
// tied, so no lm_head), with shapes from the corpus config: 28 layers of
// 3072 wide, 16 heads and 16 KV heads of 256, MLP 24,576, 256,000 tokens,
// bf16 as its torch_dtype.
func gemma7BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("google__gemma-7b"), denseShape{
		layers: 28, h: 3072, q: 16 * 256, kv: 16 * 256, inter: 24576, v: 256000, tied: true,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
}

// TestGemma7BHeader: the checkpoint's 254 tensors (28 layers of 9, the
// embedding and the final norm) hold 8,537,680,896 parameters, the count
// Keras' gemma_7b_en preset gives (index file ids 401604204, 123073332)
// and stored model-size tables give for google/gemma-7b-it, the same
// architecture (ids 2567470270, 3212507736): 17,075,361,792 B in bf16. By
// hand: the embedding 256,000 x 3072 = 786,432,000; a layer's q, k, v and
// o 4 x 4096 x 3072, the MLP 3 x 24,576 x 3072, two norms 2 x 3072:
// 276,830,208, x 28 = 7,751,245,824; the final norm 3072. At one rank vLLM
// holds beside them the rotary table of 8192 positions x 256 x 2 B;
// 256,000 rows are a multiple of 64, so the embedding is not padded. The
// checkpoint and the config agree rank by rank.
func TestGemma7BHeader(t *testing.T) {
	_, ts := gemma7BHeader()
	checkHeaderNames(t, ts, 254)
	if got, want := headerTotal(ts), uint64(2*(786_432_000+28*276_830_208+3072)); got != want || want != 2*8_537_680_896 {
		t.Errorf("header total %d B, by hand %d, the published count is 2 x 8,537,680,896", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "gemma-7b", fixture: gemma7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 17_075_361_792 + 8192*256*2, ""}},
	}})
	checkHeaderRanks(t, gemma7BHeader)
}
