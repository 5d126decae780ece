package model

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

// deepSeekMoE16BHeader is deepseek-ai/deepseek-moe-16b-chat's checkpoint
// (the base model's architecture and count) in its remote code's names
// (modeling_deepseek.py: Llama's q/k/v/o_proj and two norms; layer 0 a
// dense mlp.gate_proj/up_proj/down_proj, layers 1-27 the router mlp.gate,
// 64 experts one by one under mlp.experts.N and mlp.shared_experts of
// 2 x 1408; the head untied), shapes from the corpus config: 28 layers of
// 2048 wide, 16 heads and 16 KV heads of 128, MLP 10,944, 102,400
// tokens, bf16.
func deepSeekMoE16BHeader() (string, []safetensors.Tensor) {
	const H, V, I, EI, E = 2048, 102400, 10944, 1408, 64
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	mlp := func(p string, inter uint64) []safetensors.Tensor {
		return []safetensors.Tensor{bf16(p+"gate_proj.weight", inter, H), bf16(p+"up_proj.weight", inter, H), bf16(p+"down_proj.weight", H, inter)}
	}
	for l := range 28 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", H, H),
			bf16(p+"self_attn.v_proj.weight", H, H), bf16(p+"self_attn.o_proj.weight", H, H))
		if l == 0 {
			ts = append(ts, mlp(p+"mlp.", I)...)
			continue
		}
		ts = append(ts, bf16(p+"mlp.gate.weight", E, H))
		for e := range E {
			ts = append(ts, mlp(fmt.Sprintf("%smlp.experts.%d.", p, e), EI)...)
		}
		ts = append(ts, mlp(p+"mlp.shared_experts.", 2*EI)...)
	}
	return corpusConfig("deepseek-ai__deepseek-moe-16b-chat"), ts
}

// TestDeepSeekMoE16BHeader: the checkpoint's 5,466 tensors (layer 0's 9,
// 27 MoE layers of 202: four attention projections, two norms, the
// router, 64 experts of 3 and the shared expert's 3; the embedding, the
// final norm and the head) hold 16,375,728,128 parameters, the Hub's count
// for deepseek-ai/deepseek-moe-16b-base and -chat alike (a stored model
// survey, index file id 69468411049; the same figure as num_params in
// stored benchmark records of the base model, ids 67345452968,
// 67161653560), 2 B each in bf16. By hand: the embedding and the head 2 x
// 102,400 x 2048 = 419,430,400 (the records' num_params_embedding); a
// layer's q, k, v and o 4 x 2048^2 = 16,777,216 and two norms 4096; layer
// 0's MLP 3 x 10,944 x 2048 = 67,239,936; a MoE layer's router 64 x 2048
// = 131,072, its experts 64 x 3 x 1408 x 2048 = 553,648,128 and the
// shared expert 3 x 2816 x 2048 = 17,301,504: 587,862,016 with the
// attention and norms, x 27 = 15,872,274,432; the final norm 2048.
// vLLM serves model_type deepseek with deepseek_v2.py (DeepseekAttention,
// :1215-1232 at d18bb7b): at one rank every tensor, beside the rotary
// table of 4096 positions x 128 x 2 B (102,400 rows are a multiple of 64:
// no padding). At TP2 each rank holds half of every projection, expert
// and shared expert, and of the embedding and head, the router and the
// norms whole: the attention 4 x 2048 x 1024 = 8,388,608 a layer; layer
// 0's MLP 3 x 5472 x 2048 = 33,619,968; a MoE layer's experts 64 x 3 x
// 704 x 2048 = 276,824,064, its shared expert 3 x 1408 x 2048 =
// 8,650,752 and the router 131,072; the embedding and head 2 x 51,200 x
// 2048 = 209,715,200: 42,012,672 + 27 x 293,998,592 + 209,715,200 + 2048
// = 8,189,691,904 parameters.
func TestDeepSeekMoE16BHeader(t *testing.T) {
	_, ts := deepSeekMoE16BHeader()
	checkHeaderNames(t, ts, 9+27*202+3)
	const params = 419_430_400 + (16_777_216 + 4096 + 67_239_936) + 27*587_862_016 + 2048
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 16_375_728_128 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub's count is 16,375,728,128", got, want, params)
	}
	const tp2 = 42_012_672 + 27*293_998_592 + 209_715_200 + 2048
	if tp2 != 8_189_691_904 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 8,189,691,904", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "deepseek-moe-16b", fixture: deepSeekMoE16BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 4096*128*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 4096*128*2, ""},
		},
	}})
	checkHeaderRanks(t, deepSeekMoE16BHeader)
}

// olmoe1B7BHeader is allenai/OLMoE-1B-7B-0924's checkpoint in
// transformers' Olmoe names (modeling_olmoe.py: q_norm and k_norm over
// the whole width, the router mlp.gate, 64 experts one by one; the head
// untied), shapes from the corpus config: 16 layers of 2048 wide, 16 heads
// and 16 KV heads of 128, experts of 1024, 50,304 tokens, bf16.
func olmoe1B7BHeader() (string, []safetensors.Tensor) {
	const H, V, E, EI = 2048, 50304, 64, 1024
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 16 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", H, H),
			bf16(p+"self_attn.v_proj.weight", H, H), bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"self_attn.q_norm.weight", H), bf16(p+"self_attn.k_norm.weight", H),
			bf16(p+"mlp.gate.weight", E, H))
		for e := range E {
			x := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(x+"gate_proj.weight", EI, H), bf16(x+"up_proj.weight", EI, H), bf16(x+"down_proj.weight", H, EI))
		}
	}
	return corpusConfig("allenai__OLMoE-1B-7B-0924"), ts
}

// TestOLMoE1B7BHeader: the checkpoint's 3,219 tensors hold 6,919,161,856
// parameters, all BF16, as a stored check of the published checkpoint
// (revision 6d84c485) reports from its three safetensors headers
// ("tensorCount": 3219, "parameterCount": 6919161856, "dtype": "BF16";
// index file id 65753564317; the same count in a stored run of the
// Instruct model, id 71333551460, and as llama.cpp's model_n_params of
// its conversion, id 66201517270). By hand: the embedding and the head 2
// x 50,304 x 2048 = 206,045,184; a layer's q, k, v and o 4 x 2048^2 =
// 16,777,216, q_norm and k_norm 2 x 2048, two norms 2 x 2048, the router
// 64 x 2048 = 131,072 and 64 experts of 3 x 1024 x 2048 = 402,653,184:
// 419,569,664, x 16 = 6,713,114,624; the final norm 2048. The count: 16
// layers of 201 and 3. Read by olmoe's rules they are what the config
// gives at one rank, beside the rotary table of 4096 positions x 128 x 2
// B (50,304 rows are a multiple of 64). At TP2 each rank holds half of q,
// k, v and o (4 x 2048 x 1024 = 8,388,608), of every expert (64 x 3 x 512
// x 2048 = 201,326,592) and of the embedding and head (2 x 25,152 x 2048
// = 103,022,592), and q_norm, k_norm, the norms and the router whole
// (olmoe.py:87-93, 164-165): 209,854,464 a layer, 3,460,696,064 in all.
func TestOLMoE1B7BHeader(t *testing.T) {
	_, ts := olmoe1B7BHeader()
	checkHeaderNames(t, ts, 3219)
	const params = 206_045_184 + 16*419_569_664 + 2048
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 6_919_161_856 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the published count is 6,919,161,856", got, want, params)
	}
	const tp2 = 103_022_592 + 16*(8_388_608+4*2048+131_072+201_326_592) + 2048
	if tp2 != 3_460_696_064 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 3,460,696,064", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "OLMoE-1B-7B-0924", fixture: olmoe1B7BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 4096*128*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 4096*128*2, ""},
		},
	}})
	checkHeaderRanks(t, olmoe1B7BHeader)
}

// graniteMoE3BHeader is ibm-granite/granite-3.0-3b-a800m-instruct's
// checkpoint in transformers' GraniteMoe names (modeling_granitemoe.py:
// Llama's attention and two norms, the router at
// block_sparse_moe.router.layer, every expert's gate and up stacked in
// block_sparse_moe.input_linear [experts, 2 x intermediate, hidden] and
// down in output_linear [experts, hidden, intermediate]; the head tied, so
// no lm_head), shapes from the corpus config: 32 layers of 1536 wide, 24
// heads and 8 KV heads of 64, 40 experts of 512, 49,155 tokens, bf16.
func graniteMoE3BHeader() (string, []safetensors.Tensor) {
	const H, V, Q, KV, E, EI = 1536, 49155, 1536, 512, 40, 512
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H)}
	for l := range 32 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", Q, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, Q),
			bf16(p+"block_sparse_moe.router.layer.weight", E, H),
			bf16(p+"block_sparse_moe.input_linear.weight", E, 2*EI, H), bf16(p+"block_sparse_moe.output_linear.weight", E, H, EI))
	}
	return corpusConfig("ibm-granite__granite-3.0-3b-a800m-instruct"), ts
}

// TestGraniteMoE3BHeader: the checkpoint's 290 tensors (32 layers of 9,
// the embedding and the final norm) hold 3,298,793,472 parameters, the
// count stored records give for Granite 3.1 3B-A800M, the same shape (a
// llama.cpp gate of granite-3.1-3b-a800m-instruct reading "granitemoe, 40
// experts (8 used), 3,298,793,472 params", index file id 71471098890;
// transformers' count of "IBM Granite 3.1 3B Instruct", id 11827392230;
// granite-guardian-3.2-3b-a800m's, ids 68597802404, 68688959620), 2 B
// each in bf16. By hand: the embedding 49,155 x 1536 = 75,502,080; a
// layer's q and o 2 x 1536^2, k and v 2 x 512 x 1536 (6,291,456), the
// router 40 x 1536 = 61,440, input_linear 40 x 1024 x 1536 = 62,914,560,
// output_linear 40 x 1536 x 512 = 31,457,280, two norms 3072:
// 100,727,808, x 32 = 3,223,289,856; the final norm 1536. Read by
// granitemoe's rules, at one rank vLLM holds beside them the embedding
// padded to 49,216 rows (a multiple of 64: 61 x 1536 x 2 B) and the rotary
// table of 4096 positions x 64 x 2 B. At TP2 a rank holds 12 heads and 4
// KV heads (q and o 2 x 768 x 1536, k and v 2 x 256 x 1536: 3,145,728),
// half of every expert (47,185,920), the router and norms whole: 50,396,160
// a layer; and half the padded embedding, 24,608 x 1536 = 37,797,888:
// 1,650,476,544 parameters with the final norm.
func TestGraniteMoE3BHeader(t *testing.T) {
	_, ts := graniteMoE3BHeader()
	checkHeaderNames(t, ts, 32*9+2)
	const params = 75_502_080 + 32*100_727_808 + 1536
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 3_298_793_472 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the published count is 3,298,793,472", got, want, params)
	}
	const tp2 = 32*50_396_160 + 37_797_888 + 1536
	if tp2 != 1_650_476_544 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 1,650,476,544", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "granite-3.0-3b-a800m-instruct", fixture: graniteMoE3BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 61*1536*2 + 4096*64*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 4096*64*2, ""},
		},
	}})
	checkHeaderRanks(t, graniteMoE3BHeader)
}

// apertus8BHeader is swiss-ai/Apertus-8B-Instruct-2509's checkpoint in
// transformers' Apertus names (modeling_apertus.py: attention_layernorm
// and feedforward_layernorm, q/k/v/o_proj with per-head q_norm and
// k_norm, the ungated mlp.up_proj and down_proj, XIELU's mlp.act_fn.
// alpha_p and alpha_n of one element and its beta and eps scalars; the
// head untied), shapes from the corpus config: 32 layers of 4096 wide, 32
// heads and 8 KV heads of 128, MLP 21,504, 131,072 tokens, all bf16.
func apertus8BHeader() (string, []safetensors.Tensor) {
	const H, V, KV, I, HD = 4096, 131072, 1024, 21504, 128
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 32 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"attention_layernorm.weight", H), bf16(p+"feedforward_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"self_attn.q_norm.weight", HD), bf16(p+"self_attn.k_norm.weight", HD),
			bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I),
			bf16(p+"mlp.act_fn.alpha_p", 1), bf16(p+"mlp.act_fn.alpha_n", 1), bf16(p+"mlp.act_fn.beta"), bf16(p+"mlp.act_fn.eps"))
	}
	return corpusConfig("swiss-ai__Apertus-8B-Instruct-2509"), ts
}

// TestApertus8BHeader: the checkpoint's 451 tensors (32 layers of 14, the
// embedding, the final norm and the head) hold 8,053,338,240 parameters,
// the "8,053,338,240 BF16 parameters" a stored integration record gives
// for swiss-ai/Apertus-8B-Instruct-2509 at revision b946d404 (index file
// id 66746681347). transformers' num_parameters() of the loaded model is
// 8,053,338,176 (a stored analysis run, id 38713173064): 64 fewer, XIELU's
// beta and eps, which the module keeps as buffers but the checkpoint
// stores (llama.cpp's converter reads all four act_fn tensors). By hand:
// the embedding and the head 2 x 131,072 x 4096 = 1,073,741,824; a
// layer's q and o 2 x 4096^2, k and v 2 x 1024 x 4096 (41,943,040), q_norm
// and k_norm 2 x 128, up and down 2 x 21,504 x 4096 = 176,160,768, two
// norms 8192 and XIELU's 4: 218,112,260, x 32 = 6,979,592,320; the final
// norm 4096. Read by apertus's rules they are what the config gives at
// one rank, beside the rotary table of 65,536 positions x 128 x 2 B
// (131,072 rows are a multiple of 64). At TP2 a rank holds 16 heads and 4
// KV heads (q and o 2 x 2048 x 4096, k and v 2 x 512 x 4096: 20,971,520),
// half the MLP (88,080,384), the per-head norms, the layer norms and XIELU
// whole (8452): 109,060,356 a layer; half the embedding and head
// (536,870,912) and the final norm: 4,026,806,400 parameters.
func TestApertus8BHeader(t *testing.T) {
	_, ts := apertus8BHeader()
	checkHeaderNames(t, ts, 32*14+3)
	const params = 1_073_741_824 + 32*218_112_260 + 4096
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 8_053_338_240 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the published count is 8,053,338,240", got, want, params)
	}
	const tp2 = 32*109_060_356 + 536_870_912 + 4096
	if tp2 != 4_026_806_400 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 4,026,806,400", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "Apertus-8B-Instruct-2509", fixture: apertus8BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 65536*128*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 65536*128*2, ""},
		},
	}})
	checkHeaderRanks(t, apertus8BHeader)
}

// nemotronSuper49BHeader is nvidia/Llama-3_3-Nemotron-Super-49B-v1's
// checkpoint in Llama's names, a block's attention or FFN absent where its
// block config says no_op (the checkpoint's modeling_decilm.py builds
// neither the sub-block nor its norm; vLLM's nemotron_nas.py:123-190 at
// d18bb7b does the same), shapes from the corpus config: 8192 wide, 64
// heads of 128 and num_attention_heads / n_heads_in_group KV heads, an FFN
// of int(2 x ffn_mult x 8192 / 3) rounded up to a multiple of 256
// (nemotron_nas.py:60-70), 128,256 tokens, the head untied, bf16.
func nemotronSuper49BHeader() (string, []safetensors.Tensor) {
	const H, V, Q, HD = 8192, 128256, 8192, 128
	config := corpusConfig("nvidia__Llama-3_3-Nemotron-Super-49B-v1")
	var c struct {
		Blocks []struct {
			Attention struct {
				NoOp         bool   `json:"no_op"`
				HeadsInGroup uint64 `json:"n_heads_in_group"`
			} `json:"attention"`
			FFN struct {
				NoOp bool    `json:"no_op"`
				Mult float64 `json:"ffn_mult"`
			} `json:"ffn"`
		} `json:"block_configs"`
	}
	if err := json.Unmarshal([]byte(config), &c); err != nil {
		panic(err)
	}
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l, b := range c.Blocks {
		p := fmt.Sprintf("model.layers.%d.", l)
		if !b.Attention.NoOp {
			kv := 64 / b.Attention.HeadsInGroup * HD
			ts = append(ts, bf16(p+"input_layernorm.weight", H),
				bf16(p+"self_attn.q_proj.weight", Q, H), bf16(p+"self_attn.k_proj.weight", kv, H),
				bf16(p+"self_attn.v_proj.weight", kv, H), bf16(p+"self_attn.o_proj.weight", H, Q))
		}
		if !b.FFN.NoOp {
			i := uint64(2 * b.FFN.Mult * H / 3)
			i = (i + 255) / 256 * 256
			ts = append(ts, bf16(p+"post_attention_layernorm.weight", H),
				bf16(p+"mlp.gate_proj.weight", i, H), bf16(p+"mlp.up_proj.weight", i, H), bf16(p+"mlp.down_proj.weight", H, i))
		}
	}
	return config, ts
}

// TestNemotronSuper49BHeader: the checkpoint's 568 tensors hold
// 49,867,145,216 parameters, the size a stored research log confirms for
// nvidia/Llama-3_3-Nemotron-Super-49B-v1 ("Confirmed size 49,867,145,216
// bf16 params", index file id 63224824488), 2 B each. The 80 block
// configs: 49 blocks attend with n_heads_in_group 8 (8 KV heads) and 31
// are attention no_op; every FFN is there, of 28,672 (49 blocks), 14,336
// (6), 7168 (10), 5632 (8), 2816 (6) or 17,920 (1). By hand: an attending
// block's q and o 2 x 8192^2, k and v 2 x 1024 x 8192 and
// input_layernorm: 151,003,136, x 49 = 7,399,153,664; an FFN of I is 3 x
// I x 8192 and post_attention_layernorm: 704,651,264 x 49 +
// 352,329,728 x 6 + 176,168,960 x 10 + 138,420,224 x 8 + 69,214,208 x 6 +
// 440,410,112 = 40,366,637,056; the embedding and head 2 x 128,256 x 8192
// = 2,101,346,304 and the final norm 8192. The count: 49 x 5 + 80 x 4 +
// 3. Read by nemotron-nas's rules they are what the config gives at one
// rank, beside the rotary table of 131,072 positions x 128 x 2 B (128,256
// rows are a multiple of 64); the checkpoint and the config agree rank by
// rank.
func TestNemotronSuper49BHeader(t *testing.T) {
	_, ts := nemotronSuper49BHeader()
	checkHeaderNames(t, ts, 49*5+80*4+3)
	const ffn = 704_651_264*49 + 352_329_728*6 + 176_168_960*10 + 138_420_224*8 + 69_214_208*6 + 440_410_112
	const params = 49*151_003_136 + ffn + 2_101_346_304 + 8192
	if got, want := headerTotal(ts), uint64(2*params); got != want || ffn != 40_366_637_056 || params != 49_867_145_216 {
		t.Errorf("header total %d B, by hand %d (%d parameters, FFNs %d), the published count is 49,867,145,216", got, want, params, ffn)
	}
	checkByHand(t, []byHandCase{{
		name: "Llama-3_3-Nemotron-Super-49B-v1", fixture: nemotronSuper49BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 131072*128*2, ""}},
	}})
	checkHeaderRanks(t, nemotronSuper49BHeader)
}

// dbrxInstructHeader is databricks/dbrx-instruct's checkpoint in the names
// transformers' DBRX loads it by (modeling_dbrx.py: transformer.wte,
// transformer.blocks.N.norm_attn_norm.{norm_1, attn.Wqkv, attn.out_proj,
// norm_2}, ffn.router.layer and the three stacked expert tensors
// ffn.experts.mlp.w1, v1 and w2 of experts x ffn_hidden_size rows, named
// without .weight; transformer.norm_f and the untied lm_head; the
// LayerNorms without biases), shapes from the corpus config: 40 blocks of
// 6144 wide, 48 heads of 128 and 8 KV heads fused in Wqkv, 16 experts of
// 10,752, 100,352 tokens, bf16.
func dbrxInstructHeader() (string, []safetensors.Tensor) {
	const H, V, QKV, E, I = 6144, 100352, 6144 + 2*1024, 16, 10752
	ts := []safetensors.Tensor{bf16("transformer.wte.weight", V, H), bf16("transformer.norm_f.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 40 {
		p := fmt.Sprintf("transformer.blocks.%d.", l)
		ts = append(ts,
			bf16(p+"norm_attn_norm.norm_1.weight", H), bf16(p+"norm_attn_norm.norm_2.weight", H),
			bf16(p+"norm_attn_norm.attn.Wqkv.weight", QKV, H), bf16(p+"norm_attn_norm.attn.out_proj.weight", H, H),
			bf16(p+"ffn.router.layer.weight", E, H),
			bf16(p+"ffn.experts.mlp.w1", E*I, H), bf16(p+"ffn.experts.mlp.v1", E*I, H), bf16(p+"ffn.experts.mlp.w2", E*I, H))
	}
	return corpusConfig("databricks__dbrx-instruct"), ts
}

// TestDbrxInstructHeader: the checkpoint's 323 tensors (40 blocks of 8,
// wte, norm_f and lm_head) sum by hand to 263,193,047,040 B,
// 131,596,523,520 parameters; no stored index or exact count was found
// (the model card, stored catalogs and NVIDIA's page say 132B). By hand:
// wte and lm_head 2 x 100,352 x 6144 = 1,233,125,376; a block's Wqkv
// (6144 + 2 x 1024) x 6144 = 50,331,648, out_proj 6144^2 = 37,748,736,
// the router 16 x 6144 = 98,304, w1, v1 and w2 3 x 16 x 10,752 x 6144 =
// 3,170,893,824 and two norms 12,288: 3,259,084,800, x 40 =
// 130,363,392,000; norm_f 6144. Read by dbrx's rules they are what the
// config gives at one rank, beside the rotary table of 32,768 positions x
// 128 x 2 B (100,352 rows are a multiple of 64). At TP2 a rank holds 24
// heads and 4 KV heads of Wqkv (4096 rows, 25,165,824), half of out_proj
// (18,874,368) and of every expert's rows (1,585,446,912), the router and
// norms whole: 1,629,597,696 a block; wte and lm_head halved
// (616,562,688) and norm_f: 65,800,476,672 parameters.
func TestDbrxInstructHeader(t *testing.T) {
	_, ts := dbrxInstructHeader()
	checkHeaderNames(t, ts, 40*8+3)
	const params = 1_233_125_376 + 40*3_259_084_800 + 6144
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 131_596_523_520 {
		t.Errorf("header total %d B, by hand %d (%d parameters)", got, want, params)
	}
	const tp2 = 40*1_629_597_696 + 616_562_688 + 6144
	if tp2 != 65_800_476_672 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 65,800,476,672", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "dbrx-instruct", fixture: dbrxInstructHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 32768*128*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 32768*128*2, ""},
		},
	}})
	checkHeaderRanks(t, dbrxInstructHeader)
}

// afm45BHeader is arcee-ai/AFM-4.5B's checkpoint in transformers' Arcee
// names (modeling_arcee.py: Llama's attention and two norms, the ungated
// ReLU² mlp.up_proj and down_proj; the head untied), shapes from the
// corpus config (a fine-tune's, the same shape): 36 layers of 2560 wide,
// 20 heads and 4 KV heads of 128, MLP 18,432, 128,005 tokens, bf16.
func afm45BHeader() (string, []safetensors.Tensor) {
	const H, V, KV, I = 2560, 128005, 512, 18432
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 36 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I))
	}
	return corpusConfig("Delta-Vector__Austral-AFM-SFT"), ts
}

// TestAFM45BHeader: the checkpoint's 291 tensors (36 layers of 8, the
// embedding, the final norm and the head) hold 4,619,189,760 parameters,
// the count a stored note gives for arcee-ai/AFM-4.5B beside its Hub
// downloads and likes (index file id 61412880119; a stored viewer test
// derives the same causal-LM count from the config, id 67646032649). By
// hand: the embedding and the head 2 x 128,005 x 2560 = 655,385,600; a
// layer's q and o 2 x 2560^2, k and v 2 x 512 x 2560 (15,728,640), up and
// down 2 x 18,432 x 2560 = 94,371,840 and two norms 5120: 110,105,600, x
// 36 = 3,963,801,600; the final norm 2560. Read by arcee's rules, at one
// rank vLLM holds beside them the embedding and the head padded to
// 128,064 rows (a multiple of 64: 2 x 59 x 2560 x 2 B) and YaRN's table
// of 4096 original positions x its factor 20 x 128 x 2 B.
func TestAFM45BHeader(t *testing.T) {
	_, ts := afm45BHeader()
	checkHeaderNames(t, ts, 36*8+3)
	const params = 655_385_600 + 36*110_105_600 + 2560
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 4_619_189_760 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the published count is 4,619,189,760", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "AFM-4.5B", fixture: afm45BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 2*59*2560*2 + 4096*20*128*2, ""}},
	}})
	checkHeaderRanks(t, afm45BHeader)
}

// teleChat2115BHeader is Tele-AI/TeleChat2-115B's checkpoint: the 963
// names of its published model.safetensors.index.json (Tele-AI/TeleChat2
// model/115B at f2864e8: transformer.word_embeddings, 96 layers of 10 -
// input_layernorm, post_attention_layernorm, self_attention.query,
// key_value, dense and its bias, mlp.gate_proj, up_proj, down_proj and its
// bias - transformer.ln_f and the untied lm_head), float32, with shapes
// from the config stored beside it: 8192 wide, 64 heads and 8 KV heads of
// 128 (key_value holds each KV head's k and v rows), an FFN of 40,960,
// 131,072 tokens. The config is served with architectures
// TeleChat2ForCausalLM, the rewrite Tele-AI's vLLM recipe makes (see
// teleChat2115B); as stored it names TelechatForCausalLM, which vLLM does
// not serve.
func teleChat2115BHeader() (string, []safetensors.Tensor) {
	const H, V, KV, I = 8192, 131072, 2 * 8 * 128, 40960
	data, err := os.ReadFile("testdata/unsupported/Tele-AI__TeleChat2-115B.json")
	if err != nil {
		panic(err)
	}
	config := strings.Replace(string(data), `"TelechatForCausalLM"`, `"TeleChat2ForCausalLM"`, 1)
	ts := []safetensors.Tensor{typed("F32", "transformer.word_embeddings.weight", V, H)}
	for l := range 96 {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			typed("F32", p+"input_layernorm.weight", H), typed("F32", p+"post_attention_layernorm.weight", H),
			typed("F32", p+"self_attention.dense.weight", H, H), typed("F32", p+"self_attention.dense.bias", H),
			typed("F32", p+"self_attention.query.weight", H, H), typed("F32", p+"self_attention.key_value.weight", KV, H),
			typed("F32", p+"mlp.gate_proj.weight", I, H), typed("F32", p+"mlp.down_proj.weight", H, I),
			typed("F32", p+"mlp.down_proj.bias", H), typed("F32", p+"mlp.up_proj.weight", I, H))
	}
	return config, append(ts, typed("F32", "transformer.ln_f.weight", H), typed("F32", "lm_head.weight", V, H))
}

// TestTeleChat2115BHeader: the checkpoint's 963 tensors sum to the
// index's total_size, 453,131,665,408 B, 4 B each of 113,282,916,352
// parameters (the index as stored above; json.dumps of the 963 names
// with their shards, layer 0 in the first of 50 and layers 2k-1 and 2k in
// shard k+1, is its 77,813 characters). By hand: word_embeddings and
// lm_head 2 x 131,072 x 8192 = 2,147,483,648; a layer's query and dense 2
// x 8192^2, key_value 2048 x 8192 = 16,777,216, dense's bias 8192, gate
// and up 2 x 40,960 x 8192, down 335,544,320 and its bias 8192, two norms
// 16,384: 1,157,660,672, x 96 = 111,135,424,512; ln_f 8192. vLLM serves a
// float32 checkpoint whose dtype is "auto" in bfloat16 where the device
// supports it (vllm/config/model.py _resolve_auto_dtype): read by
// telechat's rules, at one rank 2 B a parameter beside the rotary table of
// llama.py's 8192 positions x 128 x 2 B. At TP2 a rank holds 32 heads and
// 4 KV heads (query 4096 x 8192, key_value 1024 x 8192), half of dense,
// gate, up and down, their biases and the norms whole: 578,846,720 a
// layer; half of word_embeddings and lm_head (1,073,741,824) and ln_f:
// 56,643,035,136 parameters.
func TestTeleChat2115BHeader(t *testing.T) {
	_, ts := teleChat2115BHeader()
	checkHeaderNames(t, ts, 96*10+3)
	const params = 2_147_483_648 + 96*1_157_660_672 + 8192
	if got, want := headerTotal(ts), uint64(4*params); got != want || want != 453_131_665_408 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 453,131,665,408", got, want)
	}
	const tp2 = 96*578_846_720 + 1_073_741_824 + 8192
	if tp2 != 56_643_035_136 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 56,643,035,136", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "TeleChat2-115B", fixture: teleChat2115BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 8192*128*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 8192*128*2, ""},
		},
	}})
	checkHeaderRanks(t, teleChat2115BHeader)
}

// flexOlmo7x7BHeader is allenai/FlexOlmo-7x7B-1T's checkpoint in the names
// its published files use (per expert, model.layers.N.mlp.experts.E.
// gate_proj, up_proj and down_proj; OLMoE's whole-width q_norm and k_norm
// and router mlp.gate; OLMo 2's post_attention_layernorm and
// post_feedforward_layernorm in place of input_layernorm; the head
// untied), float32, shapes from the corpus config: 32 layers of 4096 wide,
// 32 heads and 32 KV heads of 128, 7 experts of 11,008, 100,352 tokens.
func flexOlmo7x7BHeader() (string, []safetensors.Tensor) {
	const H, V, E, EI = 4096, 100352, 7, 11008
	ts := []safetensors.Tensor{typed("F32", "model.embed_tokens.weight", V, H), typed("F32", "model.norm.weight", H),
		typed("F32", "lm_head.weight", V, H)}
	for l := range 32 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			typed("F32", p+"post_attention_layernorm.weight", H), typed("F32", p+"post_feedforward_layernorm.weight", H),
			typed("F32", p+"self_attn.q_proj.weight", H, H), typed("F32", p+"self_attn.k_proj.weight", H, H),
			typed("F32", p+"self_attn.v_proj.weight", H, H), typed("F32", p+"self_attn.o_proj.weight", H, H),
			typed("F32", p+"self_attn.q_norm.weight", H), typed("F32", p+"self_attn.k_norm.weight", H),
			typed("F32", p+"mlp.gate.weight", E, H))
		for e := range E {
			x := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, typed("F32", x+"gate_proj.weight", EI, H), typed("F32", x+"up_proj.weight", EI, H),
				typed("F32", x+"down_proj.weight", H, EI))
		}
	}
	return corpusConfig("allenai__FlexOlmo-7x7B-1T"), ts
}

// TestFlexOlmo7x7BHeader: the checkpoint's 963 tensors (32 layers of 30,
// the embedding, the final norm and the head) hold 33,270,665,216
// parameters in 133,082,660,864 B, the total_parameters and total_size of
// its published index with F32 parameters by the Hub's API (a stored
// config sweep, index file id 56808988898; the same sweep gives
// Flex-reddit-2x7B-1T's total_size, 46,509,604,864 B, which this layout
// with 2 experts gives too: 4 x 11,627,401,216). By hand: the embedding
// and the head 2 x 100,352 x 4096 = 822,083,584; a layer's q, k, v and o 4
// x 4096^2 = 67,108,864, q_norm and k_norm 2 x 4096, the router 7 x 4096 =
// 28,672, 7 experts of 3 x 11,008 x 4096 = 946,864,128 and two norms 2 x
// 4096: 1,014,018,048, x 32 = 32,448,577,536; the final norm 4096. vLLM
// serves a float32 checkpoint whose dtype is "auto" in bfloat16 where the
// device supports it (vllm/config/model.py _resolve_auto_dtype): read by
// flex_olmo's rules, at one rank 2 B a parameter beside the rotary table
// of 4096 positions x 128 x 2 B (100,352 rows are a multiple of 64). At
// TP2 a rank holds half of q, k, v and o (33,554,432), of every expert
// (473,432,064) and of the embedding and head (411,041,792), and q_norm,
// k_norm, the router and the norms whole (flex_olmo.py:34-46, 49-80):
// 507,031,552 a layer, 16,636,055,552 in all.
func TestFlexOlmo7x7BHeader(t *testing.T) {
	_, ts := flexOlmo7x7BHeader()
	checkHeaderNames(t, ts, 32*30+3)
	const params = 822_083_584 + 32*1_014_018_048 + 4096
	if got, want := headerTotal(ts), uint64(4*params); got != want || params != 33_270_665_216 || want != 133_082_660_864 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the index's total_size is 133,082,660,864", got, want, params)
	}
	if reddit := 4 * uint64(822_083_584+32*(67_108_864+2*4096+2*4096+2*3*11008*4096+2*4096)+4096); reddit != 46_509_604_864 {
		t.Errorf("2 experts by hand %d B, Flex-reddit-2x7B-1T's total_size is 46,509,604,864", reddit)
	}
	const tp2 = 32*507_031_552 + 411_041_792 + 4096
	if tp2 != 16_636_055_552 {
		t.Errorf("TP2 by hand %d parameters, the sum above is 16,636,055,552", tp2)
	}
	checkByHand(t, []byHandCase{{
		name: "FlexOlmo-7x7B-1T", fixture: flexOlmo7x7BHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*params + 4096*128*2, ""},
			{"TP2", tpRanks(2, 0), 2*tp2 + 4096*128*2, ""},
		},
	}})
	checkHeaderRanks(t, flexOlmo7x7BHeader)
}
