package model

import (
	"fmt"
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
// safetensors total for google/gemma-3-1b-it as a stored test's mock of
// the Hub API and a stored model table copy it (index file ids
// 59172823075, 71142266638; Keras' gemma3_instruct_1b preset counts the
// same, id 3173084990), and 1,999,771,904 B in 2-byte weights, the size a
// stored test fixture records for an F16 conversion of the checkpoint at
// source revision dcc83ea8 (id 52787755097: a conversion's size, not the
// published file's, which is bf16 of the same width). By
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

// glm5Header is zai-org/GLM-5's checkpoint in the names vLLM's
// deepseek_v2.py loads for it (GlmMoeDsaForCausalLM: DeepSeek-V3's MLA with
// q_a/q_b, the lightning indexer self_attn.indexer.wq_b, wk, weights_proj
// and k_norm's weight and bias, the experts one by one, shared_experts),
// shapes from the corpus config, bf16 but the routing biases in float32
// (as GLM-4.7-Flash's published listing holds them): 78 layers of 6144
// wide (64 heads, q_lora 2048, kv_lora 512, qk 192 + 64, v 256; an indexer
// of 32 heads of 128), layers 0-2 a dense MLP of 12,288, layers 3-77 a
// router over 256 experts of 2048 with its bias and one shared expert; the
// untied head; and the MTP layer 78, a MoE layer with its indexer,
// eh_proj, enorm, hnorm and shared_head's norm, without copies of the
// embedding or the head.
func glm5Header() (string, []safetensors.Tensor) {
	const H, V, NH, QL, KVL, I, EI, E, IH, ID = 6144, 154880, 64, 2048, 512, 12288, 2048, 256, 32, 128
	mlp := func(p string, inter uint64) []safetensors.Tensor {
		return []safetensors.Tensor{bf16(p+"gate_proj.weight", inter, H), bf16(p+"up_proj.weight", inter, H), bf16(p+"down_proj.weight", H, inter)}
	}
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 79 {
		p := fmt.Sprintf("model.layers.%d.", l)
		a := p + "self_attn."
		ts = append(ts, bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(a+"q_a_proj.weight", QL, H), bf16(a+"q_a_layernorm.weight", QL), bf16(a+"q_b_proj.weight", NH*(192+64), QL),
			bf16(a+"kv_a_proj_with_mqa.weight", KVL+64, H), bf16(a+"kv_a_layernorm.weight", KVL),
			bf16(a+"kv_b_proj.weight", NH*(192+256), KVL), bf16(a+"o_proj.weight", H, NH*256),
			bf16(a+"indexer.wq_b.weight", IH*ID, QL), bf16(a+"indexer.wk.weight", ID, H),
			bf16(a+"indexer.weights_proj.weight", IH, H), bf16(a+"indexer.k_norm.weight", ID), bf16(a+"indexer.k_norm.bias", ID))
		if l < 3 {
			ts = append(ts, mlp(p+"mlp.", I)...)
			continue
		}
		ts = append(ts, bf16(p+"mlp.gate.weight", E, H), typed("F32", p+"mlp.gate.e_score_correction_bias", E))
		for e := range E {
			ts = append(ts, mlp(fmt.Sprintf("%smlp.experts.%d.", p, e), EI)...)
		}
		ts = append(ts, mlp(p+"mlp.shared_experts.", EI)...)
	}
	m := "model.layers.78."
	ts = append(ts, bf16(m+"eh_proj.weight", H, 2*H), bf16(m+"enorm.weight", H), bf16(m+"hnorm.weight", H), bf16(m+"shared_head.norm.weight", H))
	return corpusConfig("zai-org__GLM-5"), ts
}

// TestGLM5Header: the checkpoint's 59,870 tensors (3 outside the layers;
// layers 0-2 of 17: 9 of attention, 5 of the indexer, the MLP's 3; layers
// 3-77 of 787: the router, its bias, 256 experts of 3 and the shared
// expert's 3 in place of the MLP; the MTP layer 78 of 791, a MoE layer and
// its 4 own tensors) hold 753,864,139,008 parameters, the Hub's count for
// zai-org/GLM-5 and GLM-5.1 in a stored model survey (index file id
// 69468411049; GLM-5-FP8 753,910,024,032 beside it; GLM-5.2, whose layers
// share indexers, 753,329,940,480, 57 indexers fewer); no stored index or
// total_size was found, so the tensor count is this layout's. By
// hand: a layer's attention q_a_proj 2048 x 6144 = 12,582,912 and its norm
// 2048, q_b_proj 16,384 x 2048 = 33,554,432, kv_a_proj_with_mqa 576 x 6144
// = 3,538,944 and its norm 512, kv_b_proj 28,672 x 512 = 14,680,064,
// o_proj 6144 x 16,384 = 100,663,296: 165,022,208, two norms 12,288; the
// indexer's wq_b 4096 x 2048 = 8,388,608, wk 128 x 6144 = 786,432,
// weights_proj 32 x 6144 = 196,608, k_norm 256: 9,371,904; a dense MLP 3 x
// 12,288 x 6144 = 226,492,416; a MoE layer's router 256 x 6144 and its
// bias 256, 257 experts of 3 x 2048 x 6144 = 37,748,736: 9,702,998,272;
// the MTP layer's eh_proj 6144 x 12,288 and three norms. 78 layers and the
// MTP layer, the embedding and the untied head 2 x 154,880 x 6144 and the
// final norm make the count; in bytes 2 B each but the 76 routing biases'
// 4, 1,507,728,316,928 B (the Hub's dtype breakdown for GLM-5.2, the same
// layers with shared indexers, counts F32 19,456 = 76 x 256, index file
// id 58123340717; GLM-5's own breakdown was not found). Read by glm_moe_dsa's rules, a rank holds that
// less the MTP layer (2 x 9,952,920,576 + 2 x 256 B, loaded only for
// speculative decoding), each of the 78 indexers as vLLM builds it (wk
// and weights_proj fused into one bf16 (128 + 32) x 6144, k_norm in
// float32: 512 B more than stored, deepseek_v2.py:640-690), and the two
// rotary tables (the attention's and the indexer's, deepseek_v2.py:
// 1115-1120) of 202,752 positions x 64 x 2 B; 154,880 rows are a multiple
// of 64, so the embedding is not padded. The checkpoint and the config
// agree rank by rank and with the experts split over 8 ranks.
func TestGLM5Header(t *testing.T) {
	_, ts := glm5Header()
	checkHeaderNames(t, ts, 3+3*17+75*787+791)
	var params uint64
	for _, x := range ts {
		n := uint64(1)
		for _, d := range x.Shape {
			n *= d
		}
		params += n
	}
	const attn, norms, indexer, dense, moe = 165_022_208, 12_288, 9_371_904, 226_492_416, 9_702_998_272
	const mtp = attn + norms + indexer + moe + 6144*12288 + 3*6144
	if want := uint64(2*154880*6144 + 6144 + 78*(attn+norms+indexer) + 3*dense + 75*moe + mtp); params != want || want != 753_864_139_008 {
		t.Errorf("%d parameters, by hand %d, the Hub counts zai-org/GLM-5 753,864,139,008", params, want)
	}
	const total = 2*753_864_139_008 + 2*256*76
	if got := headerTotal(ts); got != total {
		t.Errorf("header total %d B, by hand %d", got, uint64(total))
	}
	const mtpBytes, indexerMore, rotary = 2*mtp + 2*256, 2 * 128 * 2, 202752 * 64 * 2
	checkByHand(t, []byHandCase{{
		name: "GLM-5", fixture: glm5Header,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), total - mtpBytes + 78*indexerMore + 2*rotary, ""}},
	}})
	checkHeaderRanks(t, glm5Header)
	a, _ := attach(t, glm5Header)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// gemma4Shape is what a Gemma 4 checkpoint's tensors depend on: the text
// model's layers of h wide (heads q heads, kv KV heads of 256 on the
// sliding layers, gkv of 512 on the global ones, every sixth layer from
// the sixth, which store no v_proj: attention_k_eq_v), its MLP of inter
// and, with experts > 0, the MoE block beside it (experts of ei).
type gemma4Shape struct {
	layers, h, heads, kv, gkv, inter, experts, ei uint64
}

// tensors is the checkpoint's bf16 tensors in the published names
// (transformers' Gemma4ForConditionalGeneration: model.language_model.,
// model.vision_tower., model.embed_vision.; the head tied, so no lm_head):
// the text model as above, seven norms with the MoE block (four without)
// and the layer scalar on every layer; the vision tower of
// gemma-4-26B-A4B's and gemma-4-31B-it's vision_config, 27 layers of 1152
// wide (16 heads of 72, MLP 4304) whose projections are
// Gemma4ClippableLinear's bias-free `.linear` (no clipping buffers:
// use_clipped_linears false), a patch embedder from 3 x 16 x 16 pixels, a
// position table of 2 x 10,240 and standardize's std_bias and std_scale;
// and embed_vision's projection to the text width.
func (g gemma4Shape) tensors() []safetensors.Tensor {
	const V, SD, GD, VW, VI, VHD = 262144, 256, 512, 1152, 4304, 72
	h := g.h
	t := "model.language_model."
	ts := []safetensors.Tensor{bf16(t+"embed_tokens.weight", V, h), bf16(t+"norm.weight", h)}
	for l := range g.layers {
		p := fmt.Sprintf("%slayers.%d.", t, l)
		hd, kv, global := uint64(SD), g.kv, l%6 == 5
		if global {
			hd, kv = GD, g.gkv
		}
		ts = append(ts, bf16(p+"input_layernorm.weight", h), bf16(p+"post_attention_layernorm.weight", h),
			bf16(p+"pre_feedforward_layernorm.weight", h), bf16(p+"post_feedforward_layernorm.weight", h),
			bf16(p+"layer_scalar", 1),
			bf16(p+"self_attn.q_proj.weight", g.heads*hd, h), bf16(p+"self_attn.k_proj.weight", kv*hd, h),
			bf16(p+"self_attn.o_proj.weight", h, g.heads*hd),
			bf16(p+"self_attn.q_norm.weight", hd), bf16(p+"self_attn.k_norm.weight", hd),
			bf16(p+"mlp.gate_proj.weight", g.inter, h), bf16(p+"mlp.up_proj.weight", g.inter, h), bf16(p+"mlp.down_proj.weight", h, g.inter))
		if !global {
			ts = append(ts, bf16(p+"self_attn.v_proj.weight", kv*hd, h))
		}
		if g.experts > 0 {
			ts = append(ts, bf16(p+"router.proj.weight", g.experts, h), bf16(p+"router.scale", h), bf16(p+"router.per_expert_scale", g.experts),
				bf16(p+"experts.gate_up_proj", g.experts, 2*g.ei, h), bf16(p+"experts.down_proj", g.experts, h, g.ei),
				bf16(p+"post_feedforward_layernorm_1.weight", h), bf16(p+"pre_feedforward_layernorm_2.weight", h),
				bf16(p+"post_feedforward_layernorm_2.weight", h))
		}
	}
	v := "model.vision_tower."
	ts = append(ts, bf16(v+"patch_embedder.input_proj.weight", VW, 3*16*16), bf16(v+"patch_embedder.position_embedding_table", 2, 10240, VW),
		bf16(v+"std_bias", VW), bf16(v+"std_scale", VW))
	for l := range 27 {
		p := fmt.Sprintf("%sencoder.layers.%d.", v, l)
		ts = append(ts, bf16(p+"input_layernorm.weight", VW), bf16(p+"post_attention_layernorm.weight", VW),
			bf16(p+"pre_feedforward_layernorm.weight", VW), bf16(p+"post_feedforward_layernorm.weight", VW),
			bf16(p+"self_attn.q_norm.weight", VHD), bf16(p+"self_attn.k_norm.weight", VHD))
		for _, n := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
			ts = append(ts, bf16(p+"self_attn."+n+".linear.weight", VW, VW))
		}
		ts = append(ts, bf16(p+"mlp.gate_proj.linear.weight", VI, VW), bf16(p+"mlp.up_proj.linear.weight", VI, VW),
			bf16(p+"mlp.down_proj.linear.weight", VW, VI))
	}
	return append(ts, bf16("model.embed_vision.embedding_projection.weight", h, VW))
}

// gemma4_31BHeader is google/gemma-4-31B-it's checkpoint: 60 layers of
// 5376 wide, 32 heads, 16 KV heads on the sliding layers and 4 on the
// global ones, MLP 21,504, no MoE block.
func gemma4_31BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("google__gemma-4-31B-it"), gemma4Shape{layers: 60, h: 5376, heads: 32, kv: 16, gkv: 4, inter: 21504}.tensors()
}

// gemma4_26BA4BHeader is google/gemma-4-26B-A4B's checkpoint (the -it
// model's index is the same file, by its published hash): 30 layers of
// 2816 wide, 16 heads, 8 KV heads on the sliding layers and 2 on the
// global ones, MLP 2112 and beside it a router over 128 experts of 704.
func gemma4_26BA4BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("google__gemma-4-26B-A4B"), gemma4Shape{layers: 30, h: 2816, heads: 16, kv: 8, gkv: 2, inter: 2112, experts: 128, ei: 704}.tensors()
}

// TestGemma4Headers: gemma-4-31B-it's 1,188 tensors and
// gemma-4-26B-A4B's 1,013 hold 31,273,088,876 and 25,805,936,206
// parameters, the Hub's safetensors counts, all BF16, as stored API
// answers copy them for google/gemma-4-31B-it and -26B-A4B-it (index file
// ids 61762937035, 71402678005, 71269743439, 69417141348; the base and -it
// repositories publish the same index, by its hash in dinoml/model-configs-rs
// corpus/report-repositories.json); no listing of names was found. By
// hand, the text model: the tied embedding 262,144 x h and the final norm;
// a sliding layer's q 32 x 256 x 5376 (31B) or 16 x 256 x 2816 (26B), k
// and v 16 x 256 x 5376 or 8 x 256 x 2816, o as q, q and k norms 2 x 256;
// a global layer's q 32 x 512 x 5376 or 16 x 512 x 2816, k 4 x 512 x 5376
// or 2 x 512 x 2816 and no v, o as q, norms 2 x 512; every layer's MLP 3
// x 21,504 x 5376 or 3 x 2112 x 2816, four norms and the one-element layer
// scalar; in the 26B every layer's router 128 x 2816, its scale 2816 and
// per-expert scale 128, experts 128 x 1408 x 2816 and 128 x 2816 x 704,
// three more norms: 30,697,345,340 and 25,233,141,790 parameters. The
// vision tower: input_proj 1152 x 768, the position table 2 x 10,240 x
// 1152, std_bias and std_scale 2 x 1152, 27 layers of q, k, v and o 4 x
// 1152^2, the MLP 3 x 4304 x 1152, four norms 4 x 1152 and q and k norms
// 2 x 72 (20,187,792 each), and the embedder's projection 1152 x h:
// 575,743,536 and 572,794,416. At one rank vLLM holds all of it and
// beside it: on each global layer a v_proj of k's shape, k loading into
// both (qkv_proj, gemma4.py:1682-1691): 10 x 11,010,048 and 5 x
// 2,883,584 elements of 2 B; v_norm's head_dim weight on every layer (gemma4.py:
// 436): 50 x 256 + 10 x 512 and 25 x 256 + 5 x 512 elements; in the 26B
// the router's norm, 2816, and root_size, 1, on every layer
// (gemma4.py:279-287); the two rotary tables over 262,144 positions, 256
// and 512 wide; and the tower's 2D rope inv_freq, 72 / 4 float32. The
// checkpoint and the config agree rank by rank (the tower replicated,
// whole on every rank).
func TestGemma4Headers(t *testing.T) {
	const rotary, invFreq = 262144*256*2 + 262144*512*2, 18 * 4
	for _, tt := range []struct {
		name          string
		fixture       func() (string, []safetensors.Tensor)
		tensors       int
		text, vision  uint64
		params, extra uint64
	}{
		// 2 + 60 layers of 14 (the 10 global without v_proj) + 4 + 27 x
		// 13 + 1.
		{"gemma-4-31B-it", gemma4_31BHeader, 2 + 60*14 - 10 + 4 + 27*13 + 1, 30_697_345_340, 575_743_536, 31_273_088_876,
			2*10*11_010_048 + 2*(50*256+10*512)},
		// 2 + 30 layers of 22 (the MoE block's 8 more; the 5 global
		// without v_proj) + 4 + 27 x 13 + 1.
		{"gemma-4-26B-A4B", gemma4_26BA4BHeader, 2 + 30*22 - 5 + 4 + 27*13 + 1, 25_233_141_790, 572_794_416, 25_805_936_206,
			2*5*2_883_584 + 2*(25*256+5*512) + 30*(2816+1)*2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ts := tt.fixture()
			checkHeaderNames(t, ts, tt.tensors)
			var params uint64
			for _, x := range ts {
				n := uint64(1)
				for _, d := range x.Shape {
					n *= d
				}
				params += n
			}
			if params != tt.text+tt.vision || tt.text+tt.vision != tt.params {
				t.Errorf("%d parameters, by hand %d + %d, the Hub counts %d", params, tt.text, tt.vision, tt.params)
			}
			if got := headerTotal(ts); got != 2*tt.params {
				t.Errorf("header total %d B, want 2 x %d", got, tt.params)
			}
			checkByHand(t, []byHandCase{{
				name: tt.name, fixture: tt.fixture,
				ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*tt.params + tt.extra + rotary + invFreq, ""}},
			}})
			checkHeaderRanks(t, tt.fixture)
		})
	}
}
