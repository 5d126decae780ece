package model

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// w4a16 is a compressed-tensors pack-quantized int4 linear [out, in] of
// group 32 (Kimi-K2.5's quantization_config): weight_packed int32 [out,
// in/8], eight values a word; weight_scale bf16 [out, in/32], one a group;
// weight_shape int32 [2], the unpacked [out, in].
func w4a16(module string, out, in uint64) []safetensors.Tensor {
	return []safetensors.Tensor{
		typed("I32", module+".weight_packed", out, in/8),
		typed("BF16", module+".weight_scale", out, in/32),
		typed("I32", module+".weight_shape", 2),
	}
}

// kimiK25Header is moonshotai/Kimi-K2.5's checkpoint: the DeepSeek-V3
// language model under language_model. (61 layers of 7168 wide, MLA with a
// query LoRA of 1536 and 64 heads: q_a_proj, q_a_layernorm, q_b_proj 64 x
// 192 rows, kv_a_proj_with_mqa 576 rows, kv_a_layernorm, kv_b_proj 64 x
// 256 rows, o_proj 7168 x 8192; layer 0 a dense MLP of 18,432; layers
// 1-60 a bf16 router over 384 experts of 2048 with its float32
// e_score_correction_bias, one bf16 shared expert and the 384 experts
// int4 pack-quantized, w4a16; the untied head), MoonViT under
// vision_tower. (a biased 14 x 14 patch Conv2d, the 64 x 64 x 1152
// pos_emb table, 27 blocks of norm0, norm1, wqkv, wo, mlp.fc0 and mlp.fc1,
// each biased, final_layernorm) and mm_projector. (pre_norm, proj.0 4608 x
// 4608 and proj.2 7168 x 4608, biased), everything but the experts bf16.
// The names: the language model's as a stored test reads them from
// Kimi-K2.7-Code's published model.safetensors.index.json (the same
// architecture; the experts' weight_packed, weight_scale and weight_shape,
// e_score_correction_bias float32, index file id 71572816585), the
// tower's and the projector's as pytorch/torchtitan's kimi_k2_7
// state_dict_adapter.py maps them and vLLM's kimi_k25.py hf_to_vllm_mapper
// renames proj.0 and proj.2 (:318-326 at d18bb7b). time_weight and the
// rotary freqs_cis are buffers the checkpoint does not hold.
func kimiK25Header() (string, []safetensors.Tensor) {
	const H, V, NH, QL, KVL, I, EI, E = 7168, 163840, 64, 1536, 512, 18432, 2048, 384
	const VH, VI = 1152, 4304
	lm := "language_model."
	ts := []safetensors.Tensor{
		bf16(lm+"model.embed_tokens.weight", V, H), bf16(lm+"model.norm.weight", H), bf16(lm+"lm_head.weight", V, H),
	}
	for l := range 61 {
		p := fmt.Sprintf("%smodel.layers.%d.", lm, l)
		a := p + "self_attn."
		ts = append(ts, bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(a+"q_a_proj.weight", QL, H), bf16(a+"q_a_layernorm.weight", QL), bf16(a+"q_b_proj.weight", NH*192, QL),
			bf16(a+"kv_a_proj_with_mqa.weight", KVL+64, H), bf16(a+"kv_a_layernorm.weight", KVL),
			bf16(a+"kv_b_proj.weight", NH*256, KVL), bf16(a+"o_proj.weight", H, NH*128))
		if l == 0 {
			ts = append(ts, bf16(p+"mlp.gate_proj.weight", I, H), bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I))
			continue
		}
		ts = append(ts, bf16(p+"mlp.gate.weight", E, H), typed("F32", p+"mlp.gate.e_score_correction_bias", E),
			bf16(p+"mlp.shared_experts.gate_proj.weight", EI, H), bf16(p+"mlp.shared_experts.up_proj.weight", EI, H),
			bf16(p+"mlp.shared_experts.down_proj.weight", H, EI))
		for e := range E {
			x := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, w4a16(x+"gate_proj", EI, H)...)
			ts = append(ts, w4a16(x+"up_proj", EI, H)...)
			ts = append(ts, w4a16(x+"down_proj", H, EI)...)
		}
	}
	v := "vision_tower."
	ts = append(ts, bf16(v+"patch_embed.proj.weight", VH, 3, 14, 14), bf16(v+"patch_embed.proj.bias", VH),
		bf16(v+"patch_embed.pos_emb.weight", 64, 64, VH))
	for b := range 27 {
		p := fmt.Sprintf("%sencoder.blocks.%d.", v, b)
		ts = append(ts, bf16(p+"norm0.weight", VH), bf16(p+"norm0.bias", VH), bf16(p+"norm1.weight", VH), bf16(p+"norm1.bias", VH),
			bf16(p+"wqkv.weight", 3*VH, VH), bf16(p+"wqkv.bias", 3*VH), bf16(p+"wo.weight", VH, VH), bf16(p+"wo.bias", VH),
			bf16(p+"mlp.fc0.weight", VI, VH), bf16(p+"mlp.fc0.bias", VI), bf16(p+"mlp.fc1.weight", VH, VI), bf16(p+"mlp.fc1.bias", VH))
	}
	ts = append(ts, bf16(v+"encoder.final_layernorm.weight", VH), bf16(v+"encoder.final_layernorm.bias", VH),
		bf16("mm_projector.pre_norm.weight", VH), bf16("mm_projector.pre_norm.bias", VH),
		bf16("mm_projector.proj.0.weight", 4*VH, 4*VH), bf16("mm_projector.proj.0.bias", 4*VH),
		bf16("mm_projector.proj.2.weight", H, 4*VH), bf16("mm_projector.proj.2.bias", H))
	return corpusConfig("moonshotai__Kimi-K2.5"), ts
}

// TestKimiK25Header: the checkpoint's 208,550 tensors and their
// 595,148,192,736 B are those a stored audit of the published headers
// gives Kimi-K2.5, Kimi-K2.6 and Kimi-K2.7-Code alike (64 shards, every
// header re-read from the Hub at pinned revisions; index file id
// 68577105039), with 1,026,879,376,368 "logical" parameters: the audit's
// rule counts an int4 word as 8 values and leaves the scales and shapes
// out, and the Hub's safetensors metadata gives moonshotai/Kimi-K2.6 the
// same 1,026,879,376,368 (its files 595,177,988,208 B with their headers;
// a stored model record, index file id 65990043291).
//
// By hand, the tensors: the embedding, the norm and the head 3; a layer's
// two norms and seven attention tensors 9 x 61; layer 0's MLP 3; a MoE
// layer's router, bias and shared expert 5 and its 384 experts x 3
// projections x 3 tensors, x 60; the tower's patch Conv2d (weight, bias)
// and pos_emb 3, 27 blocks of 12, final_layernorm 2; the projector 6:
// 3 + 549 + 3 + 60 x 3461 + 3 + 324 + 2 + 6 = 208,550.
//
// The parameters: an expert's gate and up [2048, 7168] and down [7168,
// 2048] are 3 x 14,680,064 = 44,040,192 int4 values, as 5,505,024 int32
// words and 1,376,256 bf16 scales (one a group of 32) and 3 x 2 int32
// shape values; 60 x 384 experts: 1,014,686,023,680 values, 126,835,752,960
// words, 31,708,938,240 scales, 138,240 shape values. The rest in bf16: a
// layer's attention q_a 1536 x 7168, q_a_layernorm 1536, q_b 12,288 x
// 1536, kv_a 576 x 7168, kv_a_layernorm 512, kv_b 16,384 x 512, o 7168 x
// 8192 and two norms 2 x 7168: 101,138,432, x 61 = 6,169,444,352; the
// embedding and the head 2 x 163,840 x 7168 =
// 2,348,810,240 and the norm 7168; layer 0's MLP 3 x 18,432 x 7168 =
// 396,361,728; a MoE layer's router 384 x 7168 and shared expert 3 x 2048
// x 7168: 46,792,704, x 60 = 2,807,562,240 (beside 384 float32 bias
// values a layer, 23,040); the tower 416,866,032 and the projector
// 54,277,888 (moonViTParams, families_mm3_test.go): 12,193,329,648 bf16
// parameters beside the experts. Logical: 12,193,329,648 +
// 1,014,686,023,680 int4 values + 23,040 float32 = 1,026,879,376,368.
// Bytes: 2 x (12,193,329,648 + 31,708,938,240) + 4 x (126,835,752,960 +
// 138,240) + 4 x 23,040 =
// 595,148,192,736.
//
// vLLM holds at one rank beside them (kimi_k25.py, deepseek_v2.py at
// d18bb7b): each MoE layer's w13_weight_shape and w2_weight_shape, [384,
// 2] each in bf16 (compressed_tensors_moe_wna16.py:389-398), 3,072 B in
// place of the checkpoint's 384 x 3 x 8 = 9,216 B: 60 x 6,144 = 368,640 B
// fewer; MoonViT's time_weight, 4 x 1152 x 2 B = 9,216, and its freqs_cis,
// 512 x 512 x 36 x 8 B = 75,497,472 (moonViTFreqs); the YaRN cos/sin table
// of 4096 x 64 positions x 64 x 2 B = 33,554,432. The checkpoint and the
// config agree rank by rank and with the experts over 8 ranks: they did not
// until this fixture, when the checkpoint's int32 expert weight_shape was
// counted as stored (model/checkpoint.go now counts it in the model dtype,
// as vLLM allocates it).
func TestKimiK25Header(t *testing.T) {
	_, ts := kimiK25Header()
	checkHeaderNames(t, ts, 208550)
	byDtype := map[string]uint64{}
	for _, x := range ts {
		n := uint64(1)
		for _, d := range x.Shape {
			n *= d
		}
		byDtype[x.Dtype] += n
	}
	const (
		attn    = 1536*7168 + 1536 + 12288*1536 + 576*7168 + 512 + 16384*512 + 7168*8192 + 2*7168
		text    = 61*attn + 2*163840*7168 + 7168 + 3*18432*7168 + 60*(384*7168+3*2048*7168)
		bf16s   = text + moonViTParams
		values  = 60 * 384 * 3 * 2048 * 7168
		words   = values / 8
		scales  = values / 32
		shapes  = 60 * 384 * 3 * 2
		biases  = 60 * 384
		payload = 2*(bf16s+scales) + 4*(words+shapes) + 4*biases
	)
	if diff := cmp.Diff(map[string]uint64{"BF16": bf16s + scales, "I32": words + shapes, "F32": biases}, byDtype); diff != "" {
		t.Errorf("elements by dtype (-by hand +fixture):\n%s", diff)
	}
	if logical := uint64(bf16s + values + biases); logical != 1_026_879_376_368 {
		t.Errorf("logical parameters %d by hand, the audit and the Hub give 1,026,879,376,368", logical)
	}
	if got := headerTotal(ts); got != payload || payload != 595_148_192_736 {
		t.Errorf("header total %d B, by hand %d, the audit's payload is 595,148,192,736", got, uint64(payload))
	}
	checkByHand(t, []byHandCase{{
		name: "Kimi-K2.5", fixture: kimiK25Header,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), payload - 60*(384*3*8-3072) + 4*1152*2 + moonViTFreqs + 4096*64*64*2, ""}},
	}})
	checkHeaderRanks(t, kimiK25Header)
	a, _ := attach(t, kimiK25Header)
	got := map[string]uint64{}
	for _, it := range CheckpointWeights(a, Whole(a, 1, 2, a.Quant)) {
		got[it.Name] += it.Bytes
	}
	for _, k := range []string{"model.layers.1.mlp.experts.w13_weight_shape", "model.layers.1.mlp.experts.w2_weight_shape"} {
		if got[k] != 384*2*2 { // [384, 2] in bf16, not the stored int32
			t.Errorf("%s: %d B from the checkpoint, vLLM allocates 384 x 2 x 2 = 1,536", k, got[k])
		}
	}
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}
