package model

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// glm45Header is zai-org/GLM-4.5's checkpoint in transformers' Glm4Moe
// names, with shapes from the corpus config, bf16 but the routing biases
// (float32, as GLM-4.7-Flash's published listing holds them): 92 layers of
// 5120 wide (96 heads and 8 KV heads of 128, q, k and v biased, q and k
// norms), layers 0-2 a dense MLP of 12,288, layers 3-91 a router over 160
// experts of 1536 with its bias and one shared expert; the untied head;
// and the MTP layer 92, a MoE layer with eh_proj, enorm, hnorm and
// shared_head's norm and head, and its own embedding (as GLM-4.7-Flash's
// MTP layer holds them).
func glm45Header() (string, []safetensors.Tensor) {
	const H, V, Q, KV, I, EI, E = 5120, 151552, 96 * 128, 8 * 128, 12288, 1536, 160
	ts := []safetensors.Tensor{bf16("lm_head.weight", V, H), bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H)}
	mlp := func(p string, inter uint64) []safetensors.Tensor {
		return []safetensors.Tensor{bf16(p+"gate_proj.weight", inter, H), bf16(p+"up_proj.weight", inter, H), bf16(p+"down_proj.weight", H, inter)}
	}
	for l := range 93 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", Q, H), bf16(p+"self_attn.q_proj.bias", Q),
			bf16(p+"self_attn.k_proj.weight", KV, H), bf16(p+"self_attn.k_proj.bias", KV),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.v_proj.bias", KV),
			bf16(p+"self_attn.o_proj.weight", H, Q),
			bf16(p+"self_attn.q_norm.weight", 128), bf16(p+"self_attn.k_norm.weight", 128))
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
	m := "model.layers.92."
	ts = append(ts, bf16(m+"eh_proj.weight", H, 2*H), bf16(m+"embed_tokens.weight", V, H), bf16(m+"enorm.weight", H),
		bf16(m+"hnorm.weight", H), bf16(m+"shared_head.head.weight", V, H), bf16(m+"shared_head.norm.weight", H))
	return corpusConfig("zai-org__GLM-4.5"), ts
}

// TestGLM45Header: the checkpoint's 44,691 tensors hold 358,337,791,296
// parameters, the count the Hub gives zai-org/GLM-4.5 (a stored model
// table, index file id 70911651117; GLM-4.6, whose MTP layer drops its
// copies of the embedding and the head, 2 x 151,552 x 5120 fewer, counts
// 356,785,898,816: ids 68496176085, 69468411049); no stored index or
// total_size was found. By hand: a layer's attention q 12,288 x 5120 +
// 12,288, k and v 2 x (1024 x 5120 + 1024), o 5120 x 12,288, q and k norms
// 256: 136,329,472, and two norms 10,240; a dense MLP 3 x 12,288 x 5120 =
// 188,743,680 (layers 0-2); a MoE layer's 160 experts of 3 x 1536 x 5120,
// the shared expert of the same, the router 160 x 5120 and its bias 160:
// 3,799,285,920 (layers 3-91 and the MTP layer); the MTP layer's eh_proj
// 5120 x 10,240, three norms, embedding and head; the embedding and the
// head 2 x 151,552 x 5120 and the final norm. In bytes twice the
// parameters and 2 B more for each of the 90 routing biases' 160 float32
// values. Read by glm4_moe's rules, vLLM skips the MTP layer (496 tensors
// as a MoE layer, 6 of its own: 5,539,962,272 parameters, its bias in
// float32: 11,079,924,864 B), builds each of the 89 routers in float32
// (glm4_moe.py's gate params_dtype: 160 x 5120 x 2 B more a layer) and the
// rotary table of 131,072 positions x 64 (partial_rotary_factor 0.5 of
// 128) x 2 B; the checkpoint and the config agree rank by rank and with
// the experts split over 8 ranks.
func TestGLM45Header(t *testing.T) {
	_, ts := glm45Header()
	checkHeaderNames(t, ts, 44691)
	var params uint64
	for _, x := range ts {
		n := uint64(1)
		for _, d := range x.Shape {
			n *= d
		}
		params += n
	}
	const attn, dense, moe, vh = 136_329_472 + 10_240, 188_743_680, 3_799_285_920, 2 * 151552 * 5120
	const mtp = attn + moe + 5120*10240 + 3*5120 + vh
	if want := uint64(3*(attn+dense) + 89*(attn+moe) + mtp + vh + 5120); params != want || want != 358_337_791_296 {
		t.Errorf("%d parameters, by hand %d, the Hub counts 358,337,791,296", params, want)
	}
	if got, want := headerTotal(ts), uint64(2*358_337_791_296+90*160*2); got != want {
		t.Errorf("header total %d B, want %d", got, want)
	}
	if 2*mtp+160*2 != 11_079_924_864 {
		t.Errorf("the MTP layer %d B, want 11,079,924,864", uint64(2*mtp+160*2))
	}
	checkByHand(t, []byHandCase{{
		name: "GLM-4.5", fixture: glm45Header,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*358_337_791_296 + 90*160*2 - 11_079_924_864 + 89*160*5120*2 + 131072*64*2, ""}},
	}})
	a, notes := attach(t, glm45Header)
	if diff := cmp.Diff([]SkippedTensors{{Reason: skipMTP, Count: 502}}, notes.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	checkHeaderRanks(t, glm45Header)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// llama4ScoutHeader is meta-llama/Llama-4-Scout-17B-16E-Instruct's
// checkpoint in the names llama4Fixture gives at reduced size
// (language_model., vision_model., multi_modal_projector.), with shapes
// from the corpus config, bf16: 48 layers of 5120 wide (40 heads and 8 KV
// heads of 128, the qk norms weightless), each a router over 16 experts
// stacked as gate_up_proj [16, 5120, 16,384] and down_proj [16, 8192,
// 5120] and a shared expert of 8192; the untied head. The tower: patches
// of 14 of a 336-pixel image (576 and the class token), 34 layers of 1408
// wide (16 heads, biased attention and MLP of 5632, LayerNorms with
// biases), the pixel-shuffle adapter 5632 -> 4096 -> 4096 and the
// projector 4096 -> 5120, no biases.
func llama4ScoutHeader() (string, []safetensors.Tensor) {
	const H, V, KV, EI, E, VW, VI = 5120, 202048, 1024, 8192, 16, 1408, 5632
	lm := "language_model.model."
	ts := []safetensors.Tensor{bf16(lm+"embed_tokens.weight", V, H), bf16(lm+"norm.weight", H), bf16("language_model.lm_head.weight", V, H)}
	for l := range 48 {
		p := fmt.Sprintf("%slayers.%d.", lm, l)
		f := p + "feed_forward."
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(f+"router.weight", E, H), bf16(f+"experts.gate_up_proj", E, H, 2*EI), bf16(f+"experts.down_proj", E, EI, H),
			bf16(f+"shared_expert.gate_proj.weight", EI, H), bf16(f+"shared_expert.up_proj.weight", EI, H),
			bf16(f+"shared_expert.down_proj.weight", H, EI))
	}
	v := "vision_model."
	ts = append(ts, bf16(v+"patch_embedding.linear.weight", VW, 3*14*14), bf16(v+"class_embedding", VW),
		bf16(v+"positional_embedding_vlm", 577, VW),
		bf16(v+"layernorm_pre.weight", VW), bf16(v+"layernorm_pre.bias", VW),
		bf16(v+"layernorm_post.weight", VW), bf16(v+"layernorm_post.bias", VW))
	for l := range 34 {
		p := fmt.Sprintf("%smodel.layers.%d.", v, l)
		for _, m := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
			ts = append(ts, bf16(p+"self_attn."+m+".weight", VW, VW), bf16(p+"self_attn."+m+".bias", VW))
		}
		ts = append(ts, bf16(p+"mlp.fc1.weight", VI, VW), bf16(p+"mlp.fc1.bias", VI), bf16(p+"mlp.fc2.weight", VW, VI), bf16(p+"mlp.fc2.bias", VW),
			bf16(p+"input_layernorm.weight", VW), bf16(p+"input_layernorm.bias", VW),
			bf16(p+"post_attention_layernorm.weight", VW), bf16(p+"post_attention_layernorm.bias", VW))
	}
	ts = append(ts, bf16(v+"vision_adapter.mlp.fc1.weight", 4096, VI), bf16(v+"vision_adapter.mlp.fc2.weight", 4096, 4096),
		bf16("multi_modal_projector.linear_1.weight", H, 4096))
	return corpusConfig("meta-llama__Llama-4-Scout-17B-16E-Instruct"), ts
}

// TestLlama4ScoutHeader: the checkpoint's 1,133 tensors (the text model's
// 579, the tower's 554) hold 108,641,793,536 parameters, 217,283,587,072
// B, the count the Hub gives meta-llama/Llama-4-Scout-17B-16E-Instruct
// (stored model tables, index file ids 71142266638, 71422969007,
// 70911651117); no stored index was found. By hand: a layer's q and o 2 x
// 5120^2, k and v 2 x 1024 x 5120, two norms, the router 16 x 5120, the
// experts 16 x 5120 x 16,384 and 16 x 8192 x 5120, the shared expert 3 x
// 8192 x 5120: 2,202,101,760, x 48; the embedding and the head 2 x
// 202,048 x 5120 and the final norm: 107,769,861,120. The tower's patch
// embedding 1408 x 588, class token 1408, positions 577 x 1408, pre and
// post LayerNorms 4 x 1408: 1,647,360; a layer's q, k, v and o 4 x (1408^2
// + 1408), fc1 5632 x 1408 + 5632, fc2 1408 x 5632 + 1408, two LayerNorms 4
// x 1408: 23,807,872, x 34; the adapter 4096 x 5632 and 4096^2 and the
// projector 5120 x 4096: 871,932,416 in all. Read by llama4's rules they
// are what the config gives at one rank, beside what no checkpoint holds:
// the llama3 rotary table of 10,485,760 positions x 128 x 2 B, the tower's
// 2-D table of 577 positions x 44 complex64 values, and the weightless qk
// norm's ones in float32 on each of the 36 rope layers (128 x 4 B,
// llama4.py:213-221); the checkpoint and the config agree rank by rank and
// with the experts split over 8 ranks.
func TestLlama4ScoutHeader(t *testing.T) {
	_, ts := llama4ScoutHeader()
	checkHeaderNames(t, ts, 1133)
	const text = 48*2_202_101_760 + 2*202048*5120 + 5120
	const tower = 1_647_360 + 34*23_807_872 + 4096*5632 + 4096*4096 + 5120*4096
	if got, want := headerTotal(ts), uint64(2*(text+tower)); got != want || want != 2*108_641_793_536 {
		t.Errorf("header total %d B, by hand %d, the Hub counts 108,641,793,536 parameters", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "Llama-4-Scout-17B-16E-Instruct", fixture: llama4ScoutHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 217_283_587_072 + 10485760*128*2 + 577*44*8 + 36*128*4, ""}},
	}})
	checkHeaderRanks(t, llama4ScoutHeader)
	a, _ := attach(t, llama4ScoutHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// deepSeekV3Header is deepseek-ai/DeepSeek-V3's checkpoint in its remote
// code's names, with shapes from the corpus config: 61 layers of 7168
// wide, MLA with a query LoRA of 1536 and 128 heads (q_a_proj,
// q_a_layernorm, q_b_proj 128 x 192 rows, kv_a_proj_with_mqa 576 rows,
// kv_a_layernorm, kv_b_proj 128 x 256 rows, o_proj), layers 0-2 a dense
// MLP of 18,432, layers 3-60 a router over 256 experts of 2048 with its
// float32 bias and one shared expert; every linear of a layer in fp8 with
// float32 128 x 128 block scales, the rest bf16; the untied head; and the
// MTP layer 61 (a MoE layer with its own embedding, enorm, hnorm, eh_proj
// in bf16 and shared_head's norm and head).
func deepSeekV3Header() (string, []safetensors.Tensor) {
	const H, V, NH, QL, KVL, I, EI, E = 7168, 129280, 128, 1536, 512, 18432, 2048, 256
	mlp := func(p string, inter uint64) []safetensors.Tensor {
		return slices.Concat(fp8Block(p+"gate_proj", inter, H), fp8Block(p+"up_proj", inter, H), fp8Block(p+"down_proj", H, inter))
	}
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 62 {
		p := fmt.Sprintf("model.layers.%d.", l)
		a := p + "self_attn."
		ts = append(ts, bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(a+"q_a_layernorm.weight", QL), bf16(a+"kv_a_layernorm.weight", KVL))
		ts = append(ts, slices.Concat(fp8Block(a+"q_a_proj", QL, H), fp8Block(a+"q_b_proj", NH*192, QL),
			fp8Block(a+"kv_a_proj_with_mqa", KVL+64, H), fp8Block(a+"kv_b_proj", NH*256, KVL), fp8Block(a+"o_proj", H, NH*128))...)
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
	m := "model.layers.61."
	ts = append(ts, bf16(m+"embed_tokens.weight", V, H), bf16(m+"enorm.weight", H), bf16(m+"hnorm.weight", H),
		bf16(m+"eh_proj.weight", H, 2*H), bf16(m+"shared_head.norm.weight", H), bf16(m+"shared_head.head.weight", V, H))
	return corpusConfig("deepseek-ai__DeepSeek-V3"), ts
}

// TestDeepSeekV3Header: the checkpoint's 91,991 tensors hold, by dtype,
// the parameters the Hub's safetensors metadata gives
// deepseek-ai/DeepSeek-V3 (BF16 3,918,786,560, F8_E4M3 680,571,043,840,
// F32 41,555,600: 684,531,386,000; stored API answers, index file ids
// 67469160833, 58758039937), which makes its tensors 688,574,839,360 B: the
// index's total_size (the 688,586,727,753 B stored elsewhere, id
// 59118868630, is the 163 files' size, their headers included). By hand,
// an fp8 linear [o, i] is o x i B and ceil(o/128) x ceil(i/128) float32
// scales: a layer's q_a_proj 11,012,736, q_b_proj 37,757,952,
// kv_a_proj_with_mqa 4,129,888, kv_b_proj 16,781,312, o_proj 117,469,184,
// its four bf16 norms 2 x (2 x 7168 + 1536 + 512): 187,183,840; a dense
// MLP 396,458,496 (layers 0-2); an expert 44,050,944, so a MoE layer's
// 256 and the shared one, the bf16 router 256 x 7168 and its float32 bias:
// 11,324,763,648 (layers 3-60 and the MTP layer); the embedding and the
// head 2 x 129,280 x 7168 x 2 B and the final norm; the MTP layer's own
// embedding, head, eh_proj 7168 x 14,336 and three norms in bf16:
// 15,424,227,552 with its MoE layer. Read by deepseek_v3's rules, vLLM
// skips the MTP layer's 1,564 tensors and holds the YaRN table of 4096 x
// 40 positions x 64 x 2 B; the checkpoint and the config agree rank by
// rank and with the experts split over 8 ranks.
func TestDeepSeekV3Header(t *testing.T) {
	_, ts := deepSeekV3Header()
	checkHeaderNames(t, ts, 91991)
	byDtype := map[string]uint64{}
	for _, x := range ts {
		n := uint64(1)
		for _, d := range x.Shape {
			n *= d
		}
		byDtype[x.Dtype] += n
	}
	if diff := cmp.Diff(map[string]uint64{"BF16": 3_918_786_560, "F8_E4M3": 680_571_043_840, "F32": 41_555_600}, byDtype); diff != "" {
		t.Errorf("parameters by dtype (-Hub +fixture):\n%s", diff)
	}
	const attn, dense, moe, mtp = 187_183_840, 396_458_496, 11_324_763_648, 15_424_227_552
	if got, want := headerTotal(ts), uint64(3*(attn+dense)+58*(attn+moe)+2*129280*7168*2+2*7168+mtp); got != want || want != 688_574_839_360 {
		t.Errorf("header total %d B, by hand %d, the Hub's dtypes give 688,574,839,360", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "DeepSeek-V3", fixture: deepSeekV3Header,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 688_574_839_360 - mtp + 4096*40*64*2, ""}},
	}})
	a, notes := attach(t, deepSeekV3Header)
	if diff := cmp.Diff([]SkippedTensors{{Reason: skipMTP, Count: 1564}}, notes.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	checkHeaderRanks(t, deepSeekV3Header)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// miniMaxM2Header is the checkpoint of MiniMaxAI/MiniMax-M2.5 in its
// remote code's names, over the corpus's MiniMax-M2.7 config (the same
// architecture; see TestMiniMaxM2Header): 62 layers of 3072 wide (48 heads
// and 8 KV heads of 128, q_norm over 6144 and k_norm over 1024), each a
// bf16 router over 256 experts of 1536 (w1, w3, w2) with its float32
// routing bias; q, k, v, o and the experts in fp8 with float32 128 x 128
// block scales, the rest bf16 (modules_to_not_convert: gate,
// e_score_correction_bias, lm_head); the untied head; no MTP modules.
func miniMaxM2Header() (string, []safetensors.Tensor) {
	const H, V, Q, KV, EI, E = 3072, 200064, 48 * 128, 8 * 128, 1536, 256
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 62 {
		p := fmt.Sprintf("model.layers.%d.", l)
		a := p + "self_attn."
		ts = append(ts, bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(a+"q_norm.weight", Q), bf16(a+"k_norm.weight", KV),
			bf16(p+"block_sparse_moe.gate.weight", E, H), typed("F32", p+"block_sparse_moe.e_score_correction_bias", E))
		ts = append(ts, slices.Concat(fp8Block(a+"q_proj", Q, H), fp8Block(a+"k_proj", KV, H), fp8Block(a+"v_proj", KV, H), fp8Block(a+"o_proj", H, Q))...)
		for e := range E {
			x := fmt.Sprintf("%sblock_sparse_moe.experts.%d.", p, e)
			ts = append(ts, slices.Concat(fp8Block(x+"w1", EI, H), fp8Block(x+"w3", EI, H), fp8Block(x+"w2", H, EI))...)
		}
	}
	return corpusConfig("MiniMaxAI__MiniMax-M2.7"), ts
}

// TestMiniMaxM2Header: the checkpoint's 96,103 tensors hold
// 228,703,644,928 parameters, the count the Hub gives MiniMaxAI/MiniMax-M2.5
// (a stored model survey, index file id 69468411049); the same survey
// counts M2, M2.1 and M2.7 13,880,064 fewer, exactly this layout's float32
// block scales (62 layers x (the attention's 2 x 1152 + 2 x 192 and the
// experts' 256 x 3 x 288)): their published headers were not found, so the
// fixture is M2.5's layout over M2.7's config, whose shapes it shares.
// No stored index or total_size was found. By hand, an fp8 linear [o, i]
// is o x i B and ceil(o/128) x ceil(i/128) float32 scales: a layer's q and
// o 18,878,976 each, k and v 3,146,496 each; an expert's w1, w3 and w2
// 4,719,744 each, x 256; its bf16 norms 2 x 3072, q_norm 6144, k_norm
// 1024 and router 256 x 3072, its float32 bias 256: 3,670,414,848 B a
// layer, x 62; the embedding and the head 2 x 200,064 x 3072 x 2 B and the
// final norm: 230,024,113,152 B. Read by minimax_m2's rules they are what
// the config gives at one rank, beside each router built in float32
// (minimax_m2.py's gate params_dtype: 256 x 3072 x 2 B more a layer) and
// the rotary table of 204,800 positions x rotary_dim 64 x 2 B; the
// checkpoint and the config agree rank by rank and with the experts split
// over 8 ranks.
func TestMiniMaxM2Header(t *testing.T) {
	_, ts := miniMaxM2Header()
	checkHeaderNames(t, ts, 96103)
	var params, scales uint64
	for _, x := range ts {
		n := uint64(1)
		for _, d := range x.Shape {
			n *= d
		}
		params += n
		if strings.HasSuffix(x.Name, "weight_scale_inv") {
			scales += n
		}
	}
	if params != 228_703_644_928 || params-scales != 228_689_764_864 {
		t.Errorf("%d parameters, %d without the block scales; the Hub counts M2.5 228,703,644,928 and M2.7 228,689,764,864", params, params-scales)
	}
	const attn, expert = 2*18_878_976 + 2*3_146_496, 3 * 4_719_744
	const layer = attn + 256*expert + 2*(2*3072+6144+1024+256*3072) + 256*4
	if got, want := headerTotal(ts), uint64(62*layer+2*200064*3072*2+3072*2); got != want || want != 230_024_113_152 {
		t.Errorf("header total %d B, by hand %d", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "MiniMax-M2", fixture: miniMaxM2Header,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 230_024_113_152 + 62*256*3072*2 + 204800*64*2, ""}},
	}})
	checkHeaderRanks(t, miniMaxM2Header)
	a, _ := attach(t, miniMaxM2Header)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// qwen3NextHeader is Qwen/Qwen3-Next-80B-A3B-Thinking's checkpoint in
// transformers' Qwen3Next names, with shapes from the corpus config, all
// bf16: 48 layers of 2048 wide, every 4th full attention (16 heads of 256
// with the output gate, so q_proj 2 x 4096 rows, 2 KV heads, q and k
// norms), the others a gated delta net stored fused (in_proj_qkvz 2 x
// 2048 + 2 x 4096 rows, in_proj_ba 2 x 32, conv1d [8192, 1, 4], dt_bias,
// A_log, norm 128, out_proj); every layer a router over 512 experts of 512
// one by one, a shared expert of 512 and its gate; the untied head; and
// the MTP module (fc, its two input norms, one full-attention MoE layer,
// norm).
func qwen3NextHeader() (string, []safetensors.Tensor) {
	const H, V, EI, E = 2048, 151936, 512, 512
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	mlp := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{bf16(p+"gate_proj.weight", EI, H), bf16(p+"up_proj.weight", EI, H), bf16(p+"down_proj.weight", H, EI)}
	}
	full := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{
			bf16(p+"self_attn.q_proj.weight", 2*16*256, H), bf16(p+"self_attn.k_proj.weight", 512, H),
			bf16(p+"self_attn.v_proj.weight", 512, H), bf16(p+"self_attn.o_proj.weight", H, 16*256),
			bf16(p+"self_attn.q_norm.weight", 256), bf16(p+"self_attn.k_norm.weight", 256)}
	}
	moe := func(p string) []safetensors.Tensor {
		ts := []safetensors.Tensor{bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"mlp.gate.weight", E, H), bf16(p+"mlp.shared_expert_gate.weight", 1, H)}
		for e := range E {
			ts = append(ts, mlp(fmt.Sprintf("%smlp.experts.%d.", p, e))...)
		}
		return append(ts, mlp(p+"mlp.shared_expert.")...)
	}
	for l := range 48 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, moe(p)...)
		if l%4 == 3 {
			ts = append(ts, full(p)...)
			continue
		}
		a := p + "linear_attn."
		ts = append(ts,
			bf16(a+"in_proj_qkvz.weight", 2*2048+2*4096, H), bf16(a+"in_proj_ba.weight", 2*32, H),
			bf16(a+"conv1d.weight", 2*2048+4096, 1, 4), bf16(a+"dt_bias", 32), bf16(a+"A_log", 32),
			bf16(a+"norm.weight", 128), bf16(a+"out_proj.weight", H, 4096))
	}
	ts = append(ts, bf16("mtp.fc.weight", H, 2*H), bf16("mtp.pre_fc_norm_embedding.weight", H),
		bf16("mtp.pre_fc_norm_hidden.weight", H), bf16("mtp.norm.weight", H))
	ts = append(ts, moe("mtp.layers.0.")...)
	ts = append(ts, full("mtp.layers.0.")...)
	return corpusConfig("Qwen__Qwen3-Next-80B-A3B-Thinking"), ts
}

// TestQwen3NextHeader: the checkpoint's 75,944 tensors hold
// 81,324,862,720 bf16 parameters, the count the Hub gives
// Qwen/Qwen3-Next-80B-A3B-Thinking and -Instruct (stored model tables,
// index file ids 69468411049, 70911651117); Qwen3-Coder-Next, the same
// model without the MTP module, counts 79,674,391,296 in 74,391 tensors, a
// stored budget check pinning both and its bf16 bytes as twice the count
// (id 59179990010). No stored index was found. By hand: a delta-net
// layer's in_proj_qkvz 12,288 x 2048, in_proj_ba 64 x 2048, conv1d 8192 x
// 4, dt_bias, A_log and norm 192, out_proj 2048 x 4096: 33,718,464 (36
// layers); a full-attention layer's q 8192 x 2048, k and v 2 x 512 x
// 2048, o 2048 x 4096, q and k norms 512: 27,263,488 (12 layers); each
// layer's router 512 x 2048, 512 experts of 3 x 512 x 2048, the shared
// expert the same and its gate 2048: 1,614,809,088, and two norms; the
// embedding and the head 2 x 151,936 x 2048 and the final norm; the MTP
// module's fc 2048 x 4096, three norms and one full-attention MoE layer:
// 1,650,471,424 (1,553 tensors). Read by qwen3_next's rules vLLM skips the
// MTP module, holds A_log in float32 (32 x 2 B more on each delta-net
// layer) and the rotary table of 262,144 positions x 64 (a quarter of
// 256) x 2 B; the checkpoint and the config agree rank by rank and with
// the experts split over 8 ranks.
func TestQwen3NextHeader(t *testing.T) {
	_, ts := qwen3NextHeader()
	checkHeaderNames(t, ts, 75944)
	const lin, full, moe = 33_718_464, 27_263_488, 1_614_809_088 + 4096
	const mtp = 2048*4096 + 3*2048 + full + moe
	if got, want := headerTotal(ts), uint64(2*(36*(lin+moe)+12*(full+moe)+2*151936*2048+2048+mtp)); got != want || want != 2*81_324_862_720 || mtp != 1_650_471_424 {
		t.Errorf("header total %d B, by hand %d, the Hub counts 81,324,862,720 parameters", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen3-Next-80B-A3B-Thinking", fixture: qwen3NextHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*81_324_862_720 - 2*mtp + 36*32*2 + 262144*64*2, ""}},
	}})
	a, notes := attach(t, qwen3NextHeader)
	if diff := cmp.Diff([]SkippedTensors{{Reason: skipMTPModule, Count: 1553}}, notes.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	checkHeaderRanks(t, qwen3NextHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// nemotronNanoHeader is nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16's
// checkpoint in the names model/checkpoint_test.go's nemotronFixture gives
// at reduced size (backbone.layers.N.mixer.*), with shapes from the corpus
// config, bf16 but A_log, D and the routing bias (float32): 52 layers of
// 2688 wide by the pattern's letters, each with its norm: 23 Mamba-2 mixers
// (64 heads of 64, 8 groups of state 128: in_proj 2 x 4096 + 2 x 1024 +
// 64 rows, conv1d over 6144 channels with its bias, A_log, D, dt_bias, the
// gated norm over 4096, out_proj), 6 attention mixers (32 heads and 2 KV
// heads of 128, no rotary) and 23 MoE mixers (a router over 128 relu2
// experts of 1856, up and down, with its bias, and a shared expert of
// 3712); the final norm_f and the untied head.
func nemotronNanoHeader() (string, []safetensors.Tensor) {
	const H, V, I, EI, SI = 2688, 131072, 4096, 1856, 3712
	const pattern = "MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME"
	ts := []safetensors.Tensor{bf16("backbone.embeddings.weight", V, H), bf16("backbone.norm_f.weight", H), bf16("lm_head.weight", V, H)}
	for l, kind := range pattern {
		p := fmt.Sprintf("backbone.layers.%d.", l)
		m := p + "mixer."
		ts = append(ts, bf16(p+"norm.weight", H))
		switch kind {
		case 'M':
			ts = append(ts, bf16(m+"in_proj.weight", 2*I+2*8*128+64, H),
				bf16(m+"conv1d.weight", I+2*8*128, 1, 4), bf16(m+"conv1d.bias", I+2*8*128),
				typed("F32", m+"A_log", 64), typed("F32", m+"D", 64), bf16(m+"dt_bias", 64),
				bf16(m+"norm.weight", I), bf16(m+"out_proj.weight", H, I))
		case '*':
			ts = append(ts, bf16(m+"q_proj.weight", 4096, H), bf16(m+"k_proj.weight", 256, H),
				bf16(m+"v_proj.weight", 256, H), bf16(m+"o_proj.weight", H, 4096))
		case 'E':
			ts = append(ts, bf16(m+"gate.weight", 128, H), typed("F32", m+"gate.e_score_correction_bias", 128),
				bf16(m+"shared_experts.up_proj.weight", SI, H), bf16(m+"shared_experts.down_proj.weight", H, SI))
			for e := range 128 {
				x := fmt.Sprintf("%sexperts.%d.", m, e)
				ts = append(ts, bf16(x+"up_proj.weight", EI, H), bf16(x+"down_proj.weight", H, EI))
			}
		}
	}
	return corpusConfig("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"), ts
}

// TestNemotronNanoHeader: the checkpoint's 6,243 tensors hold
// 31,577,940,288 parameters, the count llama.cpp reports for
// Nemotron-3-Nano-30B-A3B's conversion (model_n_params, stored benchmark
// notes and llama-server answers, index file ids 58091926432, 36988296767);
// no stored index or Hub count was found. By hand: a Mamba-2 mixer's
// in_proj 10,304 x 2688, conv1d 6144 x 4 and its bias 6144, A_log, D and
// dt_bias 3 x 64, norm 4096, out_proj 2688 x 4096: 38,742,208 (23 layers);
// an attention mixer's q and o 2 x 4096 x 2688, k and v 2 x 256 x 2688:
// 23,396,352 (6 layers); a MoE mixer's router 128 x 2688 and its bias
// 128, 128 experts of 2 x 1856 x 2688, the shared expert 2 x 3712 x 2688:
// 1,297,465,472 (23 layers); a norm a layer; the embedding and the head 2
// x 131,072 x 2688 and norm_f. In bytes twice that, and 2 B more for each
// float32 value (A_log and D on each Mamba layer, the routing bias on each
// MoE layer: 23 x (64 + 64 + 128)). Read by nemotron_h's rules they are what the config gives at
// one rank, where vLLM builds each router in float32 (128 x 2688 x 2 B
// more on a MoE layer) and D in the model's dtype (64 x 2 B fewer on a
// Mamba layer); no rotary table (Nemotron-H's attention has none); the
// checkpoint and the config agree rank by rank and with the experts split
// over 8 ranks.
func TestNemotronNanoHeader(t *testing.T) {
	_, ts := nemotronNanoHeader()
	checkHeaderNames(t, ts, 6243)
	const mamba, attn, moe, H = 38_742_208, 23_396_352, 1_297_465_472, 2688
	const params = 23*(mamba+H) + 6*(attn+H) + 23*(moe+H) + 2*131072*H + H
	if got, want := headerTotal(ts), uint64(2*params+2*23*(64+64+128)); got != want || params != 31_577_940_288 {
		t.Errorf("header total %d B, by hand %d (%d parameters, llama.cpp counts 31,577,940,288)", got, want, uint64(params))
	}
	checkByHand(t, []byHandCase{{
		name: "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", fixture: nemotronNanoHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 2*23*(64+64+128) + 23*128*H*2 - 23*64*2, ""}},
	}})
	checkHeaderRanks(t, nemotronNanoHeader)
	a, _ := attach(t, nemotronNanoHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}
