package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// asF32 is ts stored in float32, as a checkpoint saved from float32
// master weights stores them.
func asF32(ts []safetensors.Tensor) []safetensors.Tensor {
	for i := range ts {
		ts[i].Dtype = "F32"
	}
	return ts
}

// olmo2_13BHeader is allenai/OLMo-2-1124-13B's checkpoint: the 443 names
// of its published model.safetensors.index.json (a stored copy in github
// mauer4/Attention-From-Scratch weights/allenai/OLMo-2-1124-13B@381a295f:
// the embedding, the untied head, the final norm and 40 layers of 11,
// post_attention_layernorm and post_feedforward_layernorm but no
// input_layernorm, q_norm over every head and k_norm over every KV head)
// with shapes from the corpus config: 40 layers of 5120 wide, 40 heads and
// 40 KV heads of 128, MLP 13,824, 100,352 tokens, float32 as the config's
// torch_dtype says.
func olmo2_13BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("allenai__OLMo-2-1124-13B"), asF32(denseShape{
		layers: 40, h: 5120, q: 40 * 128, kv: 40 * 128, inter: 13824, v: 100352,
		norms: []string{"post_attention_layernorm", "post_feedforward_layernorm"}, qNorm: 40 * 128, kNorm: 40 * 128,
	}.tensors())
}

// TestOLMo2_13BHeader: the checkpoint's 443 tensors sum to the index's
// total_size, 54,864,793,600 B (the stored copy named above), 4 B each of
// 13,716,198,400 parameters. By hand: the embedding and the head 2 x
// 100,352 x 5120 = 1,027,604,480; a layer's q, k, v and o 4 x 5120^2
// (MHA: 40 KV heads), the MLP 3 x 13,824 x 5120, q_norm and k_norm 2 x
// 5120, two norms 2 x 5120: 317,214,720, x 40 = 12,688,588,800; the final
// norm 5120. vLLM serves a float32 checkpoint whose dtype is "auto" in
// bfloat16 where the device supports it, else float16
// (vllm/config/model.py _resolve_auto_dtype): 2 B a parameter either way, and beside them, through the Transformers backend,
// Olmo2RotaryEmbedding's inv_freq, 64 float32 (family_olmo2.go); 100,352
// rows are a multiple of 64, so the embedding is not padded. The
// checkpoint and the config agree rank by rank.
func TestOLMo2_13BHeader(t *testing.T) {
	_, ts := olmo2_13BHeader()
	checkHeaderNames(t, ts, 443)
	if got, want := headerTotal(ts), uint64(4*(1_027_604_480+40*317_214_720+5120)); got != want || want != 54_864_793_600 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 54,864,793,600", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "OLMo-2-1124-13B", fixture: olmo2_13BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*13_716_198_400 + 64*4, ""}},
	}})
	checkHeaderRanks(t, olmo2_13BHeader)
}

// qwen15MoEHeader is Qwen/Qwen1.5-MoE-A2.7B's checkpoint in transformers'
// Qwen2MoE names (modeling_qwen2_moe.py: q, k and v biased, the router
// mlp.gate, 60 experts one by one, one shared_expert and its one-wide
// shared_expert_gate; the head untied), with shapes from the corpus
// config: 24 layers of 2048 wide, 16 heads and 16 KV heads of 128, experts
// of 1408, a shared expert of 5632, 151,936 tokens, bf16.
func qwen15MoEHeader() (string, []safetensors.Tensor) {
	const L, H, V, E, EI, SI = 24, 2048, 151936, 60, 1408, 5632
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range L {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.q_proj.bias", H),
			bf16(p+"self_attn.k_proj.weight", H, H), bf16(p+"self_attn.k_proj.bias", H),
			bf16(p+"self_attn.v_proj.weight", H, H), bf16(p+"self_attn.v_proj.bias", H),
			bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"mlp.gate.weight", E, H),
			bf16(p+"mlp.shared_expert.gate_proj.weight", SI, H), bf16(p+"mlp.shared_expert.up_proj.weight", SI, H),
			bf16(p+"mlp.shared_expert.down_proj.weight", H, SI), bf16(p+"mlp.shared_expert_gate.weight", 1, H))
		for e := range E {
			x := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(x+"gate_proj.weight", EI, H), bf16(x+"up_proj.weight", EI, H), bf16(x+"down_proj.weight", H, EI))
		}
	}
	return corpusConfig("Qwen__Qwen1.5-MoE-A2.7B"), ts
}

// TestQwen15MoEHeader: the checkpoint's 4,659 tensors (24 layers of 194,
// the embedding, the final norm and the head) sum to 28,631,568,384 B, the
// total_size of Qwen1.5-MoE-A2.7B's model.safetensors.index.json as a
// stored test asserts it beside its 72 q/k/v biases and a stored note
// gives it with its 4,659 names (index file ids 68290378793,
// 68566876972), 2 B each of the
// 14,315,784,192 parameters a stored catalog and Keras' preset list give
// (ids 69468411049, 583820047). By hand: the embedding and the head 2 x
// 151,936 x 2048 = 622,329,856; a layer's q, k, v and o 4 x 2048^2, their
// three biases 3 x 2048, two norms 2 x 2048, the router 60 x 2048, the
// experts 60 x 3 x 1408 x 2048, the shared expert 3 x 5632 x 2048 and its
// gate 2048: 570,560,512, x 24 = 13,693,452,288; the final norm 2048. At
// one rank vLLM holds beside them the rotary table of 8192 positions x 128
// x 2 B (151,936 rows are a multiple of 64: no padding); the checkpoint
// and the config agree rank by rank.
func TestQwen15MoEHeader(t *testing.T) {
	_, ts := qwen15MoEHeader()
	checkHeaderNames(t, ts, 4659)
	if got, want := headerTotal(ts), uint64(2*(622_329_856+24*570_560_512+2048)); got != want || want != 28_631_568_384 {
		t.Errorf("header total %d B, by hand %d, the index's total_size is 28,631,568,384", got, want)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen1.5-MoE-A2.7B", fixture: qwen15MoEHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 28_631_568_384 + 8192*128*2, ""}},
	}})
	checkHeaderRanks(t, qwen15MoEHeader)
}
