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
// is the embedding (no lm_head).
type denseShape struct {
	layers, h, q, kv, inter, v uint64
	norms                      []string
	qNorm, kNorm               uint64
	tied                       bool
}

// tensors is the shape's bf16 tensors: the embedding, the final norm, the
// head unless tied, and each layer's norms, q, k, v, o, q and k norms and
// gated MLP.
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
