package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// qwen3VL32BHeader is Qwen/Qwen3-VL-32B-Instruct's checkpoint in the
// names Qwen3-VL's published files use (model.language_model.,
// model.visual., lm_head), with shapes from the corpus config, bf16:
// Qwen3-32B's text model (64 layers of 11, the embedding, the final norm
// and the untied head), the tower's patch embedding with its bias and
// position table, 27 blocks of 12 (LayerNorms with biases, biased qkv,
// proj, linear_fc1 and linear_fc2), the merger and 3 deepstack mergers of 6.
func qwen3VL32BHeader() (string, []safetensors.Tensor) {
	const W, I, M, O = 1152, 4304, 4 * 1152, 5120 // the tower's width, MLP, merged width, output
	lm := "model.language_model."
	ts := []safetensors.Tensor{bf16("lm_head.weight", 151936, O), bf16(lm+"embed_tokens.weight", 151936, O), bf16(lm+"norm.weight", O)}
	for l := range 64 {
		p := fmt.Sprintf("%slayers.%d.", lm, l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", O), bf16(p+"post_attention_layernorm.weight", O),
			bf16(p+"self_attn.q_proj.weight", 8192, O), bf16(p+"self_attn.k_proj.weight", 1024, O),
			bf16(p+"self_attn.v_proj.weight", 1024, O), bf16(p+"self_attn.o_proj.weight", O, 8192),
			bf16(p+"self_attn.q_norm.weight", 128), bf16(p+"self_attn.k_norm.weight", 128),
			bf16(p+"mlp.gate_proj.weight", 25600, O), bf16(p+"mlp.up_proj.weight", 25600, O), bf16(p+"mlp.down_proj.weight", O, 25600))
	}
	v := "model.visual."
	ts = append(ts, bf16(v+"patch_embed.proj.weight", W, 3, 2, 16, 16), bf16(v+"patch_embed.proj.bias", W),
		bf16(v+"pos_embed.weight", 2304, W))
	for b := range 27 {
		p := fmt.Sprintf("%sblocks.%d.", v, b)
		ts = append(ts,
			bf16(p+"norm1.weight", W), bf16(p+"norm1.bias", W), bf16(p+"norm2.weight", W), bf16(p+"norm2.bias", W),
			bf16(p+"attn.qkv.weight", 3*W, W), bf16(p+"attn.qkv.bias", 3*W), bf16(p+"attn.proj.weight", W, W), bf16(p+"attn.proj.bias", W),
			bf16(p+"mlp.linear_fc1.weight", I, W), bf16(p+"mlp.linear_fc1.bias", I),
			bf16(p+"mlp.linear_fc2.weight", W, I), bf16(p+"mlp.linear_fc2.bias", W))
	}
	merger := func(p string, norm uint64) []safetensors.Tensor {
		return []safetensors.Tensor{bf16(p+"norm.weight", norm), bf16(p+"norm.bias", norm),
			bf16(p+"linear_fc1.weight", M, M), bf16(p+"linear_fc1.bias", M),
			bf16(p+"linear_fc2.weight", O, M), bf16(p+"linear_fc2.bias", O)}
	}
	ts = append(ts, merger(v+"merger.", W)...)
	for d := range 3 {
		ts = append(ts, merger(fmt.Sprintf("%sdeepstack_merger_list.%d.", v, d), M)...)
	}
	return corpusConfig("Qwen__Qwen3-VL-32B-Instruct"), ts
}

// TestQwen3VL32BHeader: the checkpoint's 1,058 tensors (706 under
// model.language_model., 351 under model.visual. and lm_head) sum to
// 66,714,780,128 B, the count and the index's total_size a stored port of
// MiniMax-H3 pins for its text encoder, a Qwen3-VL-32B checkpoint
// (`MiniMaxH3TeConfig::qwen3_vl_32b`: 5120 hidden, 64 layers, 64 query and
// 8 KV heads of 128, FFN 25,600; "metadata.total_size from the index
// (66714780128 at snapshot 939557dc)"; index file id 57372990599), and the
// same 33,357,390,064 elements and bytes a stored record loading it as
// Qwen3VLForConditionalGeneration asserts (ids 60785799552, 68583294414).
// By hand: the text model is Qwen3-32B's 32,762,123,264 parameters
// (TestQwen3Headers); the tower's patch embedding 1152 x 3 x 2 x 16 x 16 +
// 1152, positions 2304 x 1152: 4,424,832; a block's two LayerNorms 4 x
// 1152, qkv 3456 x 1152 + 3456, proj 1152^2 + 1152, fc1 4304 x 1152 + 4304,
// fc2 1152 x 4304 + 1152: 15,239,504, x 27 = 411,466,608; the merger's
// norm 2 x 1152, fc1 4608^2 + 4608, fc2 5120 x 4608 + 5120: 44,838,656; a
// deepstack merger the same with its norm over 4608: 44,845,568, x 3. Read
// by qwen3_vl's rules they are what the config gives at one rank, beside
// the buffers no checkpoint holds (the mrope table 4 x 262,144 x 128 x 2 B
// and the tower's 8192 positions x 36 x 2 B, as TestQwen3VL30BA3BHeader
// counts them); the checkpoint and the config agree rank by rank.
func TestQwen3VL32BHeader(t *testing.T) {
	_, ts := qwen3VL32BHeader()
	checkHeaderNames(t, ts, 1058)
	const tower = 4_424_832 + 27*15_239_504 + 44_838_656 + 3*44_845_568
	if got, want := headerTotal(ts), uint64(2*(32_762_123_264+tower)); got != want || want != 66_714_780_128 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 66,714,780,128", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen3-VL-32B-Instruct", fixture: qwen3VL32BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 66_714_780_128 + 4*262144*128*2 + 8192*36*2, ""}},
	}})
	checkHeaderRanks(t, qwen3VL32BHeader)
}

// mistralSmall31Header is mistralai/Mistral-Small-3.1-24B-Instruct-2503's
// checkpoint in the names transformers 4.50's Mistral3ForConditionalGeneration
// writes (language_model.model., language_model.lm_head, vision_tower.,
// multi_modal_projector.), with shapes from the corpus config, bf16: the
// Mistral text model (40 layers of 9, 32 heads and 8 KV heads of 128, MLP
// 32,768, 131,072 tokens, the head untied), Pixtral's patch_conv (no
// bias) and ln_pre, 24 layers of 9 (attention_norm, ffn_norm, q, k, v, o
// and a gated MLP, no biases) and the projector's norm, patch merger and
// two linears (multimodal_projector_bias false).
func mistralSmall31Header() (string, []safetensors.Tensor) {
	const H, V, VW, VI = 5120, 131072, 1024, 4096
	t := "language_model.model."
	ts := []safetensors.Tensor{bf16(t+"embed_tokens.weight", V, H), bf16(t+"norm.weight", H), bf16("language_model.lm_head.weight", V, H)}
	for l := range 40 {
		p := fmt.Sprintf("%slayers.%d.", t, l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", 4096, H), bf16(p+"self_attn.k_proj.weight", 1024, H),
			bf16(p+"self_attn.v_proj.weight", 1024, H), bf16(p+"self_attn.o_proj.weight", H, 4096),
			bf16(p+"mlp.gate_proj.weight", 32768, H), bf16(p+"mlp.up_proj.weight", 32768, H), bf16(p+"mlp.down_proj.weight", H, 32768))
	}
	ts = append(ts, bf16("vision_tower.patch_conv.weight", VW, 3, 14, 14), bf16("vision_tower.ln_pre.weight", VW))
	for l := range 24 {
		p := fmt.Sprintf("vision_tower.transformer.layers.%d.", l)
		ts = append(ts, bf16(p+"attention_norm.weight", VW), bf16(p+"ffn_norm.weight", VW),
			bf16(p+"attention.q_proj.weight", VW, VW), bf16(p+"attention.k_proj.weight", VW, VW),
			bf16(p+"attention.v_proj.weight", VW, VW), bf16(p+"attention.o_proj.weight", VW, VW),
			bf16(p+"feed_forward.gate_proj.weight", VI, VW), bf16(p+"feed_forward.up_proj.weight", VI, VW),
			bf16(p+"feed_forward.down_proj.weight", VW, VI))
	}
	ts = append(ts, bf16("multi_modal_projector.norm.weight", VW),
		bf16("multi_modal_projector.patch_merger.merging_layer.weight", VW, 4*VW),
		bf16("multi_modal_projector.linear_1.weight", H, VW), bf16("multi_modal_projector.linear_2.weight", H, H))
	return corpusConfig("mistralai__Mistral-Small-3.1-24B-Instruct-2503"), ts
}

// TestMistralSmall31Header: the checkpoint's 585 tensors (the text
// model's 363, Pixtral's 218, the projector's 4) sum to 48,022,722,560 B,
// twice the 24,011,361,280 parameters keras-hub's Mistral 3 presets give
// Mistral-Small-3.1-24B (index file id 61107991196) and stored evaluation
// configs give as the published total of Mistral-Small-3.2-24B-Instruct-2506,
// the same architecture (ids 67545458665, 70911651117); no stored index
// was found. By hand: the embedding and the head 2 x 131,072 x 5120 =
// 1,342,177,280; a layer's q and o 2 x 4096 x 5120, k and v 2 x 1024 x
// 5120, the MLP 3 x 32,768 x 5120, two norms: 555,755,520, x 40; the final
// norm 5120: 23,572,403,200. Pixtral's patch_conv 1024 x 3 x 14 x 14 and
// ln_pre 1024; a layer's attention 4 x 1024^2, MLP 3 x 4096 x 1024, two
// norms: 16,779,264, x 24: 403,305,472. The projector's norm 1024, patch
// merger 1024 x 4096, linear_1 5120 x 1024 and linear_2 5120^2:
// 35,652,608. Read by mistral3's rules they are what the config gives at
// one rank, beside the rotary tables no checkpoint holds: the text
// model's 131,072 positions x 128 x 2 B and Pixtral's 2-D table of (1540 /
// 14)^2 patches x 64 x 4 B (pixtral.py's complex64 freqs_cis); the
// checkpoint and the config agree rank by rank.
func TestMistralSmall31Header(t *testing.T) {
	_, ts := mistralSmall31Header()
	checkHeaderNames(t, ts, 585)
	const text, tower, projector = 23_572_403_200, 602_112 + 1024 + 24*16_779_264, 35_652_608
	if got, want := headerTotal(ts), uint64(2*(text+tower+projector)); got != want || want != 2*24_011_361_280 {
		t.Errorf("header total %d B, by hand %d, the published parameters are 24,011,361,280 x 2 B", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "Mistral-Small-3.1-24B-Instruct-2503", fixture: mistralSmall31Header,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 48_022_722_560 + 131072*128*2 + 110*110*64*4, ""}},
	}})
	checkHeaderRanks(t, mistralSmall31Header)
}

// qwen35_27BHeader is Qwen/Qwen3.5-27B's checkpoint in the names its
// published files use (model.language_model., model.visual., lm_head,
// mtp.), with shapes from the corpus config, all bf16: 64 layers of 5120
// wide, every 4th full attention (24 heads of 256 with the output gate, so
// q_proj 2 x 6144 rows, 4 KV heads, q and k norms), the others a gated
// delta net (16 key heads and 48 value heads of 128: in_proj_qkv 10,240
// rows, in_proj_z 6144, in_proj_b and in_proj_a 48, conv1d [10,240, 1, 4],
// dt_bias, A_log, norm 128, out_proj); a dense MLP of 17,408 on every
// layer; the untied head; Qwen3-VL's tower without deepstack mergers; and
// the MTP module (fc, its two input norms, one full-attention layer, norm).
func qwen35_27BHeader() (string, []safetensors.Tensor) {
	const H, V, I, W, VI, M = 5120, 248320, 17408, 1152, 4304, 4 * 1152
	lm := "model.language_model."
	ts := []safetensors.Tensor{bf16(lm+"embed_tokens.weight", V, H), bf16(lm+"norm.weight", H), bf16("lm_head.weight", V, H)}
	full := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{
			bf16(p+"self_attn.q_proj.weight", 2*24*256, H), bf16(p+"self_attn.k_proj.weight", 1024, H),
			bf16(p+"self_attn.v_proj.weight", 1024, H), bf16(p+"self_attn.o_proj.weight", H, 24*256),
			bf16(p+"self_attn.q_norm.weight", 256), bf16(p+"self_attn.k_norm.weight", 256)}
	}
	dense := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"mlp.gate_proj.weight", I, H), bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I)}
	}
	for l := range 64 {
		p := fmt.Sprintf("%slayers.%d.", lm, l)
		ts = append(ts, dense(p)...)
		if l%4 == 3 {
			ts = append(ts, full(p)...)
			continue
		}
		a := p + "linear_attn."
		ts = append(ts,
			bf16(a+"in_proj_qkv.weight", 2*2048+6144, H), bf16(a+"in_proj_z.weight", 6144, H),
			bf16(a+"in_proj_b.weight", 48, H), bf16(a+"in_proj_a.weight", 48, H),
			bf16(a+"conv1d.weight", 2*2048+6144, 1, 4), bf16(a+"dt_bias", 48), bf16(a+"A_log", 48),
			bf16(a+"norm.weight", 128), bf16(a+"out_proj.weight", H, 6144))
	}
	v := "model.visual."
	ts = append(ts, bf16(v+"patch_embed.proj.weight", W, 3, 2, 16, 16), bf16(v+"patch_embed.proj.bias", W),
		bf16(v+"pos_embed.weight", 2304, W))
	for b := range 27 {
		p := fmt.Sprintf("%sblocks.%d.", v, b)
		ts = append(ts,
			bf16(p+"norm1.weight", W), bf16(p+"norm1.bias", W), bf16(p+"norm2.weight", W), bf16(p+"norm2.bias", W),
			bf16(p+"attn.qkv.weight", 3*W, W), bf16(p+"attn.qkv.bias", 3*W), bf16(p+"attn.proj.weight", W, W), bf16(p+"attn.proj.bias", W),
			bf16(p+"mlp.linear_fc1.weight", VI, W), bf16(p+"mlp.linear_fc1.bias", VI),
			bf16(p+"mlp.linear_fc2.weight", W, VI), bf16(p+"mlp.linear_fc2.bias", W))
	}
	ts = append(ts, bf16(v+"merger.norm.weight", W), bf16(v+"merger.norm.bias", W),
		bf16(v+"merger.linear_fc1.weight", M, M), bf16(v+"merger.linear_fc1.bias", M),
		bf16(v+"merger.linear_fc2.weight", H, M), bf16(v+"merger.linear_fc2.bias", H))
	ts = append(ts, bf16("mtp.fc.weight", H, 2*H), bf16("mtp.pre_fc_norm_embedding.weight", H),
		bf16("mtp.pre_fc_norm_hidden.weight", H), bf16("mtp.norm.weight", H))
	ts = append(ts, dense("mtp.layers.0.")...)
	ts = append(ts, full("mtp.layers.0.")...)
	return corpusConfig("Qwen__Qwen3.5-27B"), ts
}

// TestQwen35_27BHeader: the checkpoint's 1,199 tensors sum to
// 55,562,855,904 B, 27,781,427,952 bf16 parameters: the count the Hub
// gives Qwen/Qwen3.5-27B (stored model lists and API answers, index file
// ids 55778153074, 65949693075), and the tensor count and index total_size
// a stored inventory of a checkpoint of the same count and layout reports
// ("n_tensors=1199", "index_metadata_total_size=55562855904", id
// 68366820786); a stored loader pins the 424,699,392 MTP parameters it
// excludes, leaving 27,356,728,560 (id 69680267530, keras-hub's qwen3_5_27b
// preset the same, id 52490800823). By hand: a delta-net layer's
// in_proj_qkv 10,240 x 5120, in_proj_z 6144 x 5120, in_proj_b and
// in_proj_a 2 x 48 x 5120, conv1d 10,240 x 4, dt_bias and A_log 96, norm
// 128, out_proj 5120 x 6144: 115,876,064 (48 layers); a full-attention
// layer's q 12,288 x 5120, k and v 2 x 1024 x 5120, o 5120 x 6144, q and k
// norms 512: 104,858,112 (16 layers); each layer's MLP 3 x 17,408 x 5120
// and two norms: 267,397,120; the embedding and the head 2 x 248,320 x
// 5120 and the final norm: 26,895,998,464. The tower is
// TestQwen3VL32BHeader's without the deepstack mergers: 460,730,096. The
// MTP module's fc 5120 x 10,240, three norms and one full-attention layer
// with its MLP: 424,699,392. Read by qwen3_5's rules vLLM skips the MTP
// module's 15 tensors, holds A_log in float32 (48 x 2 B more on each
// delta-net layer) and the buffers no checkpoint holds (the mrope table 4
// x 262,144 x 64 x 2 B, a quarter of each head rotary, and the tower's
// 8192 x 36 x 2 B); the checkpoint and the config agree rank by rank.
func TestQwen35_27BHeader(t *testing.T) {
	_, ts := qwen35_27BHeader()
	checkHeaderNames(t, ts, 1199)
	const text = 48*(115_876_064+267_397_120) + 16*(104_858_112+267_397_120) + 2*248320*5120 + 5120
	const tower, mtp = 460_730_096, 424_699_392
	if got, want := headerTotal(ts), uint64(2*(text+tower+mtp)); got != want || want != 55_562_855_904 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 55,562,855,904", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen3.5-27B", fixture: qwen35_27BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 55_562_855_904 - 2*mtp + 48*48*2 + 4*262144*64*2 + 8192*36*2, ""}},
	}})
	checkHeaderRanks(t, qwen35_27BHeader)
}

// qwen35_35BA3BHeader is Qwen/Qwen3.5-35B-A3B's checkpoint in the names its
// published files use (model.language_model., model.visual., lm_head,
// mtp.), with shapes from the corpus config, all bf16: 40 layers of 2048
// wide, every 4th full attention (16 heads of 256 with the output gate, 2
// KV heads, q and k norms), the others a gated delta net (16 key heads and
// 32 value heads of 128) split as qwen35_27BHeader's; every layer a router
// over 256 experts of 512 one by one, a shared expert of 512 and its gate;
// the untied head; Qwen3-VL's tower without deepstack mergers, merged into
// 2048; and the MTP module (fc, its two input norms, one full-attention
// MoE layer, norm).
func qwen35_35BA3BHeader() (string, []safetensors.Tensor) {
	const H, V, EI, E, W, VI, M = 2048, 248320, 512, 256, 1152, 4304, 4 * 1152
	lm := "model.language_model."
	ts := []safetensors.Tensor{bf16(lm+"embed_tokens.weight", V, H), bf16(lm+"norm.weight", H), bf16("lm_head.weight", V, H)}
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
	for l := range 40 {
		p := fmt.Sprintf("%slayers.%d.", lm, l)
		ts = append(ts, moe(p)...)
		if l%4 == 3 {
			ts = append(ts, full(p)...)
			continue
		}
		a := p + "linear_attn."
		ts = append(ts,
			bf16(a+"in_proj_qkv.weight", 2*2048+4096, H), bf16(a+"in_proj_z.weight", 4096, H),
			bf16(a+"in_proj_b.weight", 32, H), bf16(a+"in_proj_a.weight", 32, H),
			bf16(a+"conv1d.weight", 2*2048+4096, 1, 4), bf16(a+"dt_bias", 32), bf16(a+"A_log", 32),
			bf16(a+"norm.weight", 128), bf16(a+"out_proj.weight", H, 4096))
	}
	v := "model.visual."
	ts = append(ts, bf16(v+"patch_embed.proj.weight", W, 3, 2, 16, 16), bf16(v+"patch_embed.proj.bias", W),
		bf16(v+"pos_embed.weight", 2304, W))
	for b := range 27 {
		p := fmt.Sprintf("%sblocks.%d.", v, b)
		ts = append(ts,
			bf16(p+"norm1.weight", W), bf16(p+"norm1.bias", W), bf16(p+"norm2.weight", W), bf16(p+"norm2.bias", W),
			bf16(p+"attn.qkv.weight", 3*W, W), bf16(p+"attn.qkv.bias", 3*W), bf16(p+"attn.proj.weight", W, W), bf16(p+"attn.proj.bias", W),
			bf16(p+"mlp.linear_fc1.weight", VI, W), bf16(p+"mlp.linear_fc1.bias", VI),
			bf16(p+"mlp.linear_fc2.weight", W, VI), bf16(p+"mlp.linear_fc2.bias", W))
	}
	ts = append(ts, bf16(v+"merger.norm.weight", W), bf16(v+"merger.norm.bias", W),
		bf16(v+"merger.linear_fc1.weight", M, M), bf16(v+"merger.linear_fc1.bias", M),
		bf16(v+"merger.linear_fc2.weight", H, M), bf16(v+"merger.linear_fc2.bias", H))
	ts = append(ts, bf16("mtp.fc.weight", H, 2*H), bf16("mtp.pre_fc_norm_embedding.weight", H),
		bf16("mtp.pre_fc_norm_hidden.weight", H), bf16("mtp.norm.weight", H))
	ts = append(ts, moe("mtp.layers.0.")...)
	ts = append(ts, full("mtp.layers.0.")...)
	return corpusConfig("Qwen__Qwen3.5-35B-A3B"), ts
}

// TestQwen35_35BA3BHeader: the checkpoint's 32,451 tensors hold
// 35,951,822,704 bf16 parameters, the count the Hub gives
// Qwen/Qwen3.5-35B-A3B and Qwen3.6-35B-A3B (stored model lists, index file
// ids 55778153074, 52555998385, 71142266638); keras-hub's preset counts
// 35,107,181,936 without the MTP module (id 55404578010), and a stored
// re-save loaded as Qwen3_5MoeForConditionalGeneration holds those
// parameters in 31,666 tensors (id 56218463526), the ones vLLM reads here.
// No stored index was found. By hand: a delta-net layer's in_proj_qkv
// 8192 x 2048, in_proj_z 4096 x 2048, in_proj_b and in_proj_a 2 x 32 x
// 2048, conv1d 8192 x 4, dt_bias, A_log and norm 192, out_proj 2048 x
// 4096: 33,718,464 (30 layers); a full-attention layer's q 8192 x 2048, k
// and v 2 x 512 x 2048, o 2048 x 4096, q and k norms 512: 27,263,488 (10
// layers); each layer's router 256 x 2048, 256 experts of 3 x 512 x 2048,
// the shared expert the same and its gate 2048: 808,978,432, and two
// norms; the embedding and the head 2 x 248,320 x 2048 and the final norm:
// 34,660,610,688. The tower is qwen35_27BHeader's with the merger's
// linear_fc2 2048 x 4608 + 2048: 446,571,248. The MTP module's fc 2048 x
// 4096, three norms and one full-attention MoE layer: 844,640,768 (785
// tensors). Read by qwen3_5_moe's rules vLLM skips the MTP module, holds
// A_log in float32 (32 x 2 B more on each delta-net layer) and the
// buffers TestQwen35_27BHeader counts; the checkpoint and the config agree
// rank by rank and with the experts split over 8 ranks.
func TestQwen35_35BA3BHeader(t *testing.T) {
	_, ts := qwen35_35BA3BHeader()
	checkHeaderNames(t, ts, 32451)
	const lin, full, moe = 33_718_464, 27_263_488, 808_978_432 + 4096
	const text = 30*(lin+moe) + 10*(full+moe) + 2*248320*2048 + 2048
	const tower, mtp = 446_571_248, 2048*4096 + 3*2048 + full + moe
	if got, want := headerTotal(ts), uint64(2*(text+tower+mtp)); got != want || want != 2*35_951_822_704 || text+tower != 35_107_181_936 {
		t.Errorf("header total %d B, by hand %d, the Hub counts 35,951,822,704 parameters", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen3.5-35B-A3B", fixture: qwen35_35BA3BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*35_951_822_704 - 2*mtp + 30*32*2 + 4*262144*64*2 + 8192*36*2, ""}},
	}})
	a, notes := attach(t, qwen35_35BA3BHeader)
	if notes.Counted != 31666 {
		t.Errorf("%d tensors read, the re-save holds 31,666", notes.Counted)
	}
	checkHeaderRanks(t, qwen35_35BA3BHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}
