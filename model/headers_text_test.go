package model

import (
	"fmt"
	"os"
	"testing"

	"membudget/model/safetensors"
)

// corpusConfig reads corpus/models/<name>.json.
func corpusConfig(name string) string {
	data, err := os.ReadFile("../corpus/models/" + name + ".json")
	if err != nil {
		panic(err)
	}
	return string(data)
}

// llama31_8BHeader is meta-llama/Llama-3.1-8B-Instruct's checkpoint: the
// 291 names of Llama 3 8B's published model.safetensors.index.json (a
// stored copy embedded whole in a zml example, index file id 42794433997:
// embed_tokens, lm_head, the final norm and 32 layers of 9, no rotary
// inv_freq) with shapes from the corpus config, bf16.
func llama31_8BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("meta-llama__Llama-3.1-8B-Instruct"), llamaLayout(32, 4096, 14336, 128256)
}

// mistral7BHeader is mistralai/Mistral-7B-Instruct-v0.3's checkpoint in
// the Hugging Face format: Llama's 291 names (a stored validator pins 291
// BF16 tensors and the index's total_size for it, index file id
// 62664830953) over a vocabulary of 32,768, shapes from the corpus config.
func mistral7BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("mistralai__Mistral-7B-Instruct-v0.3"), llamaLayout(32, 4096, 14336, 32768)
}

// llamaLayout is the bf16 tensors of a Llama checkpoint with 8 KV heads of
// 128 and the head untied: layers of 9 tensors (hidden h, MLP inter) and 3
// outside them, over a vocabulary of v.
func llamaLayout(layers, h, inter, v uint64) []safetensors.Tensor {
	return denseShape{
		layers: layers, h: h, q: h, kv: 8 * 128, inter: inter, v: v,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
}

// llama31_70BHeader is meta-llama/Llama-3.1-70B-Instruct's checkpoint:
// Llama's names over 80 layers of 8192 wide, MLP 28,672 (a stored training
// record loads its 723 keys, index file id 66815719643).
func llama31_70BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("meta-llama__Llama-3.1-70B-Instruct"), llamaLayout(80, 8192, 28672, 128256)
}

// qwen2Layout is the bf16 tensors of a Qwen2 checkpoint in transformers'
// names (q, k and v with biases, the head untied, KV heads of 128): layers
// of 12 tensors (hidden h, kv KV heads, MLP inter) and 3 outside them, over
// 152,064 tokens.
func qwen2Layout(layers, h, inter, kv uint64) []safetensors.Tensor {
	return denseShape{
		layers: layers, h: h, q: h, kv: kv * 128, inter: inter, v: 152064, qkvBias: true,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
}

// qwen25_7BHeader is Qwen/Qwen2.5-7B-Instruct's checkpoint: 28 layers of
// 3584 wide, 4 KV heads, MLP 18,944.
func qwen25_7BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("Qwen__Qwen2.5-7B-Instruct"), qwen2Layout(28, 3584, 18944, 4)
}

// qwen25_72BHeader is Qwen/Qwen2.5-72B's checkpoint: 80 layers of 8192
// wide, 8 KV heads, MLP 29,568.
func qwen25_72BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("Qwen__Qwen2.5-72B"), qwen2Layout(80, 8192, 29568, 8)
}

// qwen3MoELayout is the bf16 tensors of a Qwen3-MoE checkpoint in
// transformers' names (the experts one by one, q_norm and k_norm, the head
// untied, 4 KV heads of 128, 128 experts): layers of 9 tensors and 128
// experts of 3 (hidden h, q heads x 128 wide, experts of ei), and 3
// outside them, over 151,936 tokens.
func qwen3MoELayout(layers, h, heads, ei uint64) []safetensors.Tensor {
	const V, KV, HD, E = 151936, 512, 128, 128
	q := heads * HD
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, h), bf16("model.norm.weight", h), bf16("lm_head.weight", V, h)}
	for l := range layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", h), bf16(p+"post_attention_layernorm.weight", h),
			bf16(p+"self_attn.q_proj.weight", q, h), bf16(p+"self_attn.k_proj.weight", KV, h),
			bf16(p+"self_attn.v_proj.weight", KV, h), bf16(p+"self_attn.o_proj.weight", h, q),
			bf16(p+"self_attn.q_norm.weight", HD), bf16(p+"self_attn.k_norm.weight", HD),
			bf16(p+"mlp.gate.weight", E, h))
		for e := range E {
			x := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(x+"gate_proj.weight", ei, h), bf16(x+"up_proj.weight", ei, h), bf16(x+"down_proj.weight", h, ei))
		}
	}
	return ts
}

// qwen3_30BA3BHeader is Qwen/Qwen3-30B-A3B's checkpoint: 48 layers of 2048
// wide, 32 heads, experts of 768.
func qwen3_30BA3BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("Qwen__Qwen3-30B-A3B"), qwen3MoELayout(48, 2048, 32, 768)
}

// qwen3_235BA22BHeader is Qwen/Qwen3-235B-A22B's checkpoint: 94 layers of
// 4096 wide, 64 heads, experts of 1536.
func qwen3_235BA22BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("Qwen__Qwen3-235B-A22B"), qwen3MoELayout(94, 4096, 64, 1536)
}

// gptOss20BHeader is openai/gpt-oss-20b's checkpoint: the 459 names of
// its published model.safetensors.index.json (a stored copy beside the
// model's config, index file id 31112482743: 24 layers of 19, the
// embedding, the final norm and the untied head), with the shapes stored
// header inventories give (index file id 54591583073: attention in bf16
// with biases, sinks [64], the router [32, 2880] and [32], the MXFP4
// experts' U8 blocks [32, 5760, 90, 16] and scales [32, 5760, 90], down
// [32, 2880, 90, 16] and [32, 2880, 90]) and the bf16 expert biases [32,
// 5760] and [32, 2880] the config implies.
func gptOss20BHeader() (string, []safetensors.Tensor) {
	const H, V, Q, KV, E, I = 2880, 201088, 4096, 512, 32, 2880
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 24 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", Q, H), bf16(p+"self_attn.q_proj.bias", Q),
			bf16(p+"self_attn.k_proj.weight", KV, H), bf16(p+"self_attn.k_proj.bias", KV),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.v_proj.bias", KV),
			bf16(p+"self_attn.o_proj.weight", H, Q), bf16(p+"self_attn.o_proj.bias", H),
			bf16(p+"self_attn.sinks", 64),
			bf16(p+"mlp.router.weight", E, H), bf16(p+"mlp.router.bias", E),
			typed("U8", p+"mlp.experts.gate_up_proj_blocks", E, 2*I, H/32, 16), typed("U8", p+"mlp.experts.gate_up_proj_scales", E, 2*I, H/32),
			bf16(p+"mlp.experts.gate_up_proj_bias", E, 2*I),
			typed("U8", p+"mlp.experts.down_proj_blocks", E, H, I/32, 16), typed("U8", p+"mlp.experts.down_proj_scales", E, H, I/32),
			bf16(p+"mlp.experts.down_proj_bias", E, H))
	}
	return corpusConfig("openai__gpt-oss-20b"), ts
}

// phi3Layout is the bf16 tensors of a Phi-3 checkpoint in transformers'
// names (qkv_proj and gate_up_proj stored fused, the head untied): layers
// of 6 tensors (hidden h, fused qkv rows, MLP inter) and 3 outside them,
// over a vocabulary of v.
func phi3Layout(layers, h, qkv, inter, v uint64) []safetensors.Tensor {
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", v, h), bf16("model.norm.weight", h), bf16("lm_head.weight", v, h)}
	for l := range layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", h), bf16(p+"post_attention_layernorm.weight", h),
			bf16(p+"self_attn.qkv_proj.weight", qkv, h), bf16(p+"self_attn.o_proj.weight", h, h),
			bf16(p+"mlp.gate_up_proj.weight", 2*inter, h), bf16(p+"mlp.down_proj.weight", h, inter))
	}
	return ts
}

// phi4Header is microsoft/phi-4's checkpoint: 40 layers of 5120 wide, 40
// heads and 10 KV heads of 128, MLP 17,920, 100,352 tokens.
func phi4Header() (string, []safetensors.Tensor) {
	return corpusConfig("microsoft__phi-4"), phi3Layout(40, 5120, 5120+2*1280, 17920, 100352)
}

// phi3MiniHeader is microsoft/Phi-3-mini-4k-instruct's checkpoint: 32
// layers of 3072 wide, 32 heads and 32 KV heads of 96, MLP 8192, 32,064
// tokens.
func phi3MiniHeader() (string, []safetensors.Tensor) {
	return corpusConfig("microsoft__Phi-3-mini-4k-instruct"), phi3Layout(32, 3072, 3*3072, 8192, 32064)
}

// qwen3Layout is the bf16 tensors of a dense Qwen3 checkpoint in
// transformers' names (q_norm and k_norm, the head untied): layers of 11
// tensors and 3 outside them, hidden h, q heads x 128 wide, 8 KV heads of
// 128, MLP inter, 151,936 tokens.
func qwen3Layout(layers, h, heads, inter uint64) []safetensors.Tensor {
	return denseShape{
		layers: layers, h: h, q: heads * 128, kv: 8 * 128, inter: inter, v: 151936, qNorm: 128, kNorm: 128,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
}

// qwen3_8BHeader is Qwen/Qwen3-8B's checkpoint: 36 layers of 4096 wide,
// 32 heads, MLP 12,288.
func qwen3_8BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("Qwen__Qwen3-8B"), qwen3Layout(36, 4096, 32, 12288)
}

// qwen3_32BHeader is Qwen/Qwen3-32B's checkpoint: 64 layers of 5120 wide,
// 64 heads, MLP 25,600.
func qwen3_32BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("Qwen__Qwen3-32B"), qwen3Layout(64, 5120, 64, 25600)
}

// mixtral8x7BHeader is mistralai/Mixtral-8x7B-v0.1's checkpoint in
// transformers' Mixtral names (block_sparse_moe's router and its 8 experts'
// w1, w2, w3), shapes from the corpus config, bf16: 32 layers of 31
// tensors and 3 outside them.
func mixtral8x7BHeader() (string, []safetensors.Tensor) {
	const H, I, V, KV, E = 4096, 14336, 32000, 1024, 8
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 32 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"block_sparse_moe.gate.weight", E, H))
		for e := range E {
			q := fmt.Sprintf("%sblock_sparse_moe.experts.%d.", p, e)
			ts = append(ts, bf16(q+"w1.weight", I, H), bf16(q+"w2.weight", H, I), bf16(q+"w3.weight", I, H))
		}
	}
	return corpusConfig("mistralai__Mixtral-8x7B-v0.1"), ts
}

// deepSeekV2LiteHeader is deepseek-ai/DeepSeek-V2-Lite's checkpoint in
// its remote code's DeepSeek-V2 names (MLA without a query LoRA: q_proj,
// kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj; layer 0 dense,
// layers 1-26 a router over 64 experts and a shared expert of 2 x 1408;
// the head untied), shapes from the corpus config, bf16.
func deepSeekV2LiteHeader() (string, []safetensors.Tensor) {
	const H, V, NH, KVR, NOPE, ROPE, VD, I, EI, E = 2048, 102400, 16, 512, 128, 64, 128, 10944, 1408, 64
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	mlp := func(p string, inter uint64) []safetensors.Tensor {
		return []safetensors.Tensor{bf16(p+"gate_proj.weight", inter, H), bf16(p+"up_proj.weight", inter, H), bf16(p+"down_proj.weight", H, inter)}
	}
	for l := range 27 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", NH*(NOPE+ROPE), H),
			bf16(p+"self_attn.kv_a_proj_with_mqa.weight", KVR+ROPE, H), bf16(p+"self_attn.kv_a_layernorm.weight", KVR),
			bf16(p+"self_attn.kv_b_proj.weight", NH*(NOPE+VD), KVR), bf16(p+"self_attn.o_proj.weight", H, NH*VD))
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
	return corpusConfig("deepseek-ai__DeepSeek-V2-Lite"), ts
}

// gemma3_4BHeader is google/gemma-3-4b-it's checkpoint in the names its
// published files use (transformers 4.50's Gemma3ForConditionalGeneration:
// language_model.model., vision_tower.vision_model.,
// multi_modal_projector.; the head tied, so no lm_head), with shapes from
// the corpus config and Gemma3Config's defaults: the text model 2560 wide,
// 34 layers of 8 heads and 4 KV heads of 256, MLP 10,240, 262,208 tokens;
// SigLIP-so400m whole (27 layers of 1152, MLP 4304, 896 px in 14 px
// patches: 4096 positions, and its post_layernorm); the projector 1152 ->
// 2560 with its soft-embedding norm. bf16.
func gemma3_4BHeader() (string, []safetensors.Tensor) {
	const (
		H, I, V, Q, KV, HD = 2560, 10240, 262208, 2048, 1024, 256
		VW, VI, VL, VP     = 1152, 4304, 27, 4096
	)
	t := "language_model.model."
	ts := []safetensors.Tensor{bf16(t+"embed_tokens.weight", V, H), bf16(t+"norm.weight", H)}
	for l := range 34 {
		p := fmt.Sprintf("%slayers.%d.", t, l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"pre_feedforward_layernorm.weight", H), bf16(p+"post_feedforward_layernorm.weight", H),
			bf16(p+"mlp.gate_proj.weight", I, H), bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I),
			bf16(p+"self_attn.q_proj.weight", Q, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, Q),
			bf16(p+"self_attn.q_norm.weight", HD), bf16(p+"self_attn.k_norm.weight", HD))
	}
	v := "vision_tower.vision_model."
	ts = append(ts, bf16(v+"embeddings.patch_embedding.weight", VW, 3, 14, 14), bf16(v+"embeddings.patch_embedding.bias", VW),
		bf16(v+"embeddings.position_embedding.weight", VP, VW))
	for l := range VL {
		p := fmt.Sprintf("%sencoder.layers.%d.", v, l)
		for _, n := range []string{"q_proj", "k_proj", "v_proj", "out_proj"} {
			ts = append(ts, bf16(p+"self_attn."+n+".weight", VW, VW), bf16(p+"self_attn."+n+".bias", VW))
		}
		ts = append(ts, bf16(p+"layer_norm1.weight", VW), bf16(p+"layer_norm1.bias", VW),
			bf16(p+"layer_norm2.weight", VW), bf16(p+"layer_norm2.bias", VW),
			bf16(p+"mlp.fc1.weight", VI, VW), bf16(p+"mlp.fc1.bias", VI), bf16(p+"mlp.fc2.weight", VW, VI), bf16(p+"mlp.fc2.bias", VW))
	}
	ts = append(ts, bf16(v+"post_layernorm.weight", VW), bf16(v+"post_layernorm.bias", VW),
		bf16("multi_modal_projector.mm_input_projection_weight", VW, H), bf16("multi_modal_projector.mm_soft_emb_norm.weight", VW))
	return corpusConfig("google__gemma-3-4b-it"), ts
}

// TestLlama31_8BHeader: the published listing's 291 tensors sum to its
// index's total_size, 16,060,522,496 B (8,030,261,248 parameters: the
// embedding and the untied head 2 x 128,256 x 4096; a layer's q and o 2 x
// 4096^2, k and v 2 x 1024 x 4096, the MLP 3 x 14,336 x 4096, two norms:
// 218,112,000, x 32; the final norm 4096). Read by llama's rules they are
// what the config gives at one rank, beside the llama3 rotary table of
// 131,072 positions x 128 x 2 B; under tensor parallelism and on pipeline
// stages the checkpoint and the config agree rank by rank.
func TestLlama31_8BHeader(t *testing.T) {
	_, ts := llama31_8BHeader()
	checkHeaderNames(t, ts, 291)
	if got := headerTotal(ts); got != 16_060_522_496 {
		t.Errorf("header total %d B, the index's total_size is 16,060,522,496", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Llama-3.1-8B-Instruct", fixture: llama31_8BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 16_060_522_496 + 131072*128*2, ""}},
	}})
	checkHeaderRanks(t, llama31_8BHeader)
}

// TestQwen25_7BHeader: the checkpoint's 339 tensors sum to its index's
// total_size, 15,231,233,024 B (a stored article quotes it with the link
// to Qwen/Qwen2.5-7B-Instruct's model.safetensors.index.json, index file
// id 71629836929): 7,615,616,512 parameters, the embedding and the untied
// head 2 x 152,064 x 3584; a layer's q and o 2 x 3584^2 with q's bias
// 3584, k and v 2 x (512 x 3584 + 512), the MLP 3 x 18,944 x 3584, two
// norms: 233,057,792, x 28; the final norm. Read by qwen2's rules they are
// what the config gives at one rank, beside the rotary table of 32,768
// positions x 128 x 2 B; the checkpoint and the config agree rank by
// rank.
func TestQwen25_7BHeader(t *testing.T) {
	_, ts := qwen25_7BHeader()
	checkHeaderNames(t, ts, 339)
	if got := headerTotal(ts); got != 15_231_233_024 {
		t.Errorf("header total %d B, the index's total_size is 15,231,233,024", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen2.5-7B-Instruct", fixture: qwen25_7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 15_231_233_024 + 32768*128*2, ""}},
	}})
	checkHeaderRanks(t, qwen25_7BHeader)
}

// TestQwen3_30BA3BHeader: the checkpoint's 18,867 tensors sum to its
// index's total_size, 61,064,245,248 B (a stored note quotes the index of
// Qwen3-30B-A3B, 16 shards, index file id 55662526280; other stored
// material gives the same figure for the -Instruct-2507 revision):
// 30,532,122,624 parameters, the embedding and the untied head 2 x 151,936
// x 2048; a layer's q and o 2 x 4096 x 2048, k and v 2 x 512 x 2048, q and
// k norms 256, the router 128 x 2048, 128 experts of 3 x 768 x 2048, two
// norms: 623,120,640, x 48; the final norm. Read by qwen3_moe's rules they
// are what the config gives at one rank, beside the rotary table of 40,960
// positions x 128 x 2 B; the checkpoint and the config agree rank by rank,
// and with the experts split over 8 ranks.
func TestQwen3_30BA3BHeader(t *testing.T) {
	_, ts := qwen3_30BA3BHeader()
	checkHeaderNames(t, ts, 18867)
	if got := headerTotal(ts); got != 61_064_245_248 {
		t.Errorf("header total %d B, the index's total_size is 61,064,245,248", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen3-30B-A3B", fixture: qwen3_30BA3BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 61_064_245_248 + 40960*128*2, ""}},
	}})
	checkHeaderRanks(t, qwen3_30BA3BHeader)
	a, _ := attach(t, qwen3_30BA3BHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// TestGptOss20BHeader: the listing's 459 tensors sum to its index's
// total_size, 13,761,264,768 B: a layer's bf16 attention (q 4096 x 2880 +
// 4096, k and v 512 x 2880 + 512 each, o 2880 x 4096 + 2880), sinks 64,
// two norms 5760, router 32 x 2880 + 32 and expert biases 32 x 5760 + 32 x
// 2880: 26,924,576 values, 53,849,152 B; its MXFP4 experts 32 x 5760 x 90
// x 17 + 32 x 2880 x 90 x 17 B = 423,014,400 B; 476,863,552 B, x 24; the
// embedding and the head 2 x 201,088 x 2880 x 2 B and the final norm. Read
// by gpt_oss's rules they are what the config gives at one rank, beside the
// YaRN table of 4096 x 32 positions x 64 in float32; under the MXFP4
// kernels vLLM picks (Triton, its Hopper layout, Marlin: quant_test.go's
// stand-ins for engine/vllm/mxfp4.go's) the checkpoint and the config agree
// at TP1, TP2 and TP4, where each rank's 720 intermediate rows are rounded
// up to the kernel's multiple.
func TestGptOss20BHeader(t *testing.T) {
	_, ts := gptOss20BHeader()
	checkHeaderNames(t, ts, 459)
	if got := headerTotal(ts); got != 13_761_264_768 {
		t.Errorf("header total %d B, the index's total_size is 13,761,264,768", got)
	}
	checkByHand(t, []byHandCase{{
		name: "gpt-oss-20b", fixture: gptOss20BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 13_761_264_768 + 4096*32*64*4, ""}},
	}})
	a, notes := attach(t, gptOss20BHeader)
	if len(notes.Unknown) > 0 {
		t.Errorf("tensors no rule names: %v", notes.Unknown)
	}
	for _, k := range []MXFP4Kernel{mxfp4Triton, mxfp4Hopper, mxfp4Marlin} {
		for _, tp := range []uint64{1, 2, 4} {
			sh := Whole(a, tp, 2, a.Quant)
			sh.MXFP4 = k
			if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
				t.Errorf("%+v TP%d: checkpoint %d B, config %d B", k, tp, c, w)
			}
		}
	}
}

// TestLlama31_70BHeader: the 723 tensors sum to the index's total_size,
// 141,107,412,992 B (stored copies of meta-llama/Llama-3.1-70B's index,
// e.g. index file id 65976726305, and a training record pinning the
// checkpoint's bytes and 723 keys, id 66815719643): the embedding and the
// untied head 2 x 128,256 x 8192; a layer's q and o 2 x 8192^2, k and v 2 x
// 1024 x 8192, the MLP 3 x 28,672 x 8192, two norms: 855,654,400, x 80; the
// final norm: 70,553,706,496 parameters. Read by llama's rules they are
// what the config gives at one rank, beside the llama3 rotary table of
// 131,072 positions x 128 x 2 B; the checkpoint and the config agree rank
// by rank.
func TestLlama31_70BHeader(t *testing.T) {
	_, ts := llama31_70BHeader()
	checkHeaderNames(t, ts, 723)
	if got := headerTotal(ts); got != 141_107_412_992 {
		t.Errorf("header total %d B, the index's total_size is 141,107,412,992", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Llama-3.1-70B-Instruct", fixture: llama31_70BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 141_107_412_992 + 131072*128*2, ""}},
	}})
	checkHeaderRanks(t, llama31_70BHeader)
}

// TestMistral7BHeader: the 291 tensors sum to the index's total_size,
// 14,496,047,104 B (the validator above; a stored index parser says its
// format was "verified against Mistral 7B v0.3" with that total, index
// file id 54862644868): 7,248,023,552 parameters, Llama 3 8B's layers
// (218,112,000 x 32) and final norm with an embedding and head of 2 x
// 32,768 x 4096. Read by mistral's rules they are what the config gives at
// one rank, beside the rotary table of 32,768 positions x 128 x 2 B; the
// checkpoint and the config agree rank by rank.
func TestMistral7BHeader(t *testing.T) {
	_, ts := mistral7BHeader()
	checkHeaderNames(t, ts, 291)
	if got := headerTotal(ts); got != 14_496_047_104 {
		t.Errorf("header total %d B, the index's total_size is 14,496,047,104", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Mistral-7B-Instruct-v0.3", fixture: mistral7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 14_496_047_104 + 32768*128*2, ""}},
	}})
	checkHeaderRanks(t, mistral7BHeader)
}

// TestPhi4Header: the 243 tensors sum to the checkpoint's total,
// 29,319,014,400 B (a stored model survey's safetensors_total_bytes for
// microsoft/phi-4, index file id 69570358100): 14,659,507,200
// parameters, the embedding and the untied head 2 x 100,352 x 5120; a
// layer's qkv_proj (5120 + 2 x 1280) x 5120, o_proj 5120^2, gate_up_proj 2
// x 17,920 x 5120, down_proj 5120 x 17,920, two norms: 340,797,440, x 40;
// the final norm. Read by phi3's rules they are what the config gives at
// one rank, beside the rotary table of 16,384 positions x 128 x 2 B; the
// checkpoint and the config agree rank by rank.
func TestPhi4Header(t *testing.T) {
	_, ts := phi4Header()
	checkHeaderNames(t, ts, 243)
	if got := headerTotal(ts); got != 29_319_014_400 {
		t.Errorf("header total %d B, the published total is 29,319,014,400", got)
	}
	checkByHand(t, []byHandCase{{
		name: "phi-4", fixture: phi4Header,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 29_319_014_400 + 16384*128*2, ""}},
	}})
	checkHeaderRanks(t, phi4Header)
}

// TestQwen3Headers: Qwen3-8B's 399 tensors (a stored loader plan's
// "real Qwen/Qwen3-8B inventory covers 399 tensors and reconciles
// expected_total_size_bytes=16381470720 with the safetensors index
// total", index file id 63427097665) and Qwen3-32B's 707 sum to their
// indexes' total_size, 16,381,470,720 and 65,524,246,528 B (the second as
// several stored notes copy the index, e.g. index file id 36887862677).
// By hand: the embedding and the untied head 2 x 151,936 x h; a layer's q
// and o 2 x heads x 128 x h, k and v 2 x 1024 x h, q and k norms 256, the
// MLP 3 x inter x h, two norms: 8B 192,946,432 x 36, 32B 487,598,336 x 64;
// the final norm: 8,190,735,360 and 32,762,123,264 parameters. Read by
// qwen3's rules they are what the config gives at one rank, beside the
// rotary table of 40,960 positions x 128 x 2 B; the checkpoint and the
// config agree rank by rank.
func TestQwen3Headers(t *testing.T) {
	for _, tt := range []struct {
		name    string
		fixture func() (string, []safetensors.Tensor)
		tensors int
		total   uint64
	}{
		{"Qwen3-8B", qwen3_8BHeader, 399, 16_381_470_720},
		{"Qwen3-32B", qwen3_32BHeader, 707, 65_524_246_528},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, ts := tt.fixture()
			checkHeaderNames(t, ts, tt.tensors)
			if got := headerTotal(ts); got != tt.total {
				t.Errorf("header total %d B, the index's total_size is %d", got, tt.total)
			}
			checkByHand(t, []byHandCase{{
				name: tt.name, fixture: tt.fixture,
				ranks: []byHandRank{{"TP1", tpRanks(1, 0), tt.total + 40960*128*2, ""}},
			}})
			checkHeaderRanks(t, tt.fixture)
		})
	}
}

// TestMixtral8x7BHeader: the 995 tensors sum to the index's total_size,
// 93,405,585,408 B (a stored expert-selection script writes the original
// index's total back beside its weight_map, index file id 9876739501; a
// stored survey derives the same bytes from the parameter count): the
// embedding and the untied head 2 x 32,000 x 4096; a layer's attention
// 41,943,040, the router 8 x 4096, 8 experts of 3 x 14,336 x 4096, two
// norms: 1,451,270,144, x 32; the final norm: 46,702,792,704 parameters.
// Read by mixtral's rules they are what the config gives at one rank,
// beside the rotary table of 32,768 positions x 128 x 2 B; the checkpoint
// and the config agree rank by rank, and with the experts split over 8
// ranks.
func TestMixtral8x7BHeader(t *testing.T) {
	_, ts := mixtral8x7BHeader()
	checkHeaderNames(t, ts, 995)
	if got := headerTotal(ts); got != 93_405_585_408 {
		t.Errorf("header total %d B, the index's total_size is 93,405,585,408", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Mixtral-8x7B-v0.1", fixture: mixtral8x7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 93_405_585_408 + 32768*128*2, ""}},
	}})
	checkHeaderRanks(t, mixtral8x7BHeader)
	a, _ := attach(t, mixtral8x7BHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// TestQwen25_72BHeader: the 963 tensors sum to the index's total_size,
// 145,412,407,296 B (a stored model catalog: "Its official Safetensors
// index declares metadata.total_size = 145412407296", said of
// Qwen2.5-72B-Instruct, whose architecture the corpus's base config
// shares; index file id 69592811516): the embedding and the untied head 2
// x 152,064 x 8192; a layer's q and o 2 x 8192^2 with q's bias 8192, k and
// v 2 x (1024 x 8192 + 1024), the MLP 3 x 29,568 x 8192, two norms:
// 877,684,736, x 80; the final norm: 72,706,203,648 parameters. Read by
// qwen2's rules they are what the config gives at one rank, beside the
// rotary table of 131,072 positions x 128 x 2 B; the checkpoint and the
// config agree rank by rank.
func TestQwen25_72BHeader(t *testing.T) {
	_, ts := qwen25_72BHeader()
	checkHeaderNames(t, ts, 963)
	if got := headerTotal(ts); got != 145_412_407_296 {
		t.Errorf("header total %d B, the index's total_size is 145,412,407,296", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen2.5-72B", fixture: qwen25_72BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 145_412_407_296 + 131072*128*2, ""}},
	}})
	checkHeaderRanks(t, qwen25_72BHeader)
}

// TestPhi3MiniHeader: the 195 tensors (a stored header check of the two
// shards: 128 and 67 tensors, "index 195 names", total size 7642159104
// bytes "which is what the index says"; index file id 59792086451) sum to
// 7,642,159,104 B: the embedding and the untied head 2 x 32,064 x 3072; a
// layer's qkv_proj 9216 x 3072, o_proj 3072^2, gate_up_proj 16,384 x
// 3072, down_proj 3072 x 8192, two norms: 113,252,352, x 32; the final
// norm: 3,821,079,552 parameters. Read by phi3's rules they are what the
// config gives at one rank, beside the rotary table of 4096 positions x
// 96 x 2 B; the checkpoint and the config agree rank by rank.
func TestPhi3MiniHeader(t *testing.T) {
	_, ts := phi3MiniHeader()
	checkHeaderNames(t, ts, 195)
	if got := headerTotal(ts); got != 7_642_159_104 {
		t.Errorf("header total %d B, the index's total_size is 7,642,159,104", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Phi-3-mini-4k-instruct", fixture: phi3MiniHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 7_642_159_104 + 4096*96*2, ""}},
	}})
	checkHeaderRanks(t, phi3MiniHeader)
}

// TestDeepSeekV2LiteHeader: the 5,291 tensors sum to the index's
// total_size, 31,412,968,448 B (a stored analysis that counts the model
// from its config and closes on "The index file reports total_size:
// 31412968448", index file id 69506398894): 15,706,484,224 parameters,
// the embedding and the untied head 2 x 102,400 x 2048; a layer's
// attention 3072 x 2048 + 576 x 2048 + 4096 x 512 + 2048^2 = 13,762,560, x
// 27; layer 0's MLP 3 x 10,944 x 2048; a MoE layer's router 64 x 2048, 64
// experts of 3 x 1408 x 2048 and the shared 3 x 2816 x 2048:
// 571,080,704, x 26; the norms 27 x (2 x 2048 + 512) + 2048. Read by
// deepseek_v2's rules they are what the config gives at one rank, beside
// the YaRN table of 4096 x 40 positions x 64 x 2 B; the checkpoint and the
// config agree rank by rank and with the experts split over 8 ranks.
func TestDeepSeekV2LiteHeader(t *testing.T) {
	_, ts := deepSeekV2LiteHeader()
	checkHeaderNames(t, ts, 5291)
	if got := headerTotal(ts); got != 31_412_968_448 {
		t.Errorf("header total %d B, the index's total_size is 31,412,968,448", got)
	}
	checkByHand(t, []byHandCase{{
		name: "DeepSeek-V2-Lite", fixture: deepSeekV2LiteHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 31_412_968_448 + 4096*40*64*2, ""}},
	}})
	checkHeaderRanks(t, deepSeekV2LiteHeader)
	a, _ := attach(t, deepSeekV2LiteHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// TestQwen3_235BA22BHeader: the 36,945 tensors, the names a stored study
// matched one by one against the official index (index file id
// 69519760087: 36,945 names, 235,093,634,560 parameters, 470,187,269,120
// B in bf16 as the index's metadata says), sum to that
// total_size: the embedding and the untied head 2 x 151,936 x 4096; a
// layer's q and o 2 x 8192 x 4096, k and v 2 x 512 x 4096, q and k norms
// 256, the router 128 x 4096, 128 experts of 3 x 1536 x 4096, two norms:
// 2,487,755,008, x 94; the final norm. Read by qwen3_moe's rules they are
// what the config gives at one rank, beside the rotary table of 40,960
// positions x 128 x 2 B; the checkpoint and the config agree rank by rank
// and with the experts split over 8 ranks.
func TestQwen3_235BA22BHeader(t *testing.T) {
	_, ts := qwen3_235BA22BHeader()
	checkHeaderNames(t, ts, 36945)
	if got := headerTotal(ts); got != 470_187_269_120 {
		t.Errorf("header total %d B, the index's total_size is 470,187,269,120", got)
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen3-235B-A22B", fixture: qwen3_235BA22BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 470_187_269_120 + 40960*128*2, ""}},
	}})
	checkHeaderRanks(t, qwen3_235BA22BHeader)
	a, _ := attach(t, qwen3_235BA22BHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// TestGemma3_4BHeader: gemma-3-4b-it's 883 tensors (34 layers of 13, 2
// outside them; SigLIP's 3 embeddings, 27 layers of 16 and its 2-tensor
// post_layernorm; the projector's 2) sum to 8,600,158,944 B, the
// total_size of the published index as a stored MedGemma-4B test copies it
// (index file id 67482288239; MedGemma 4B is Gemma 3 4B's architecture):
// 4,300,079,472 parameters, the text model's 3,880,263,168 (embedding
// 262,208 x 2560; a layer's q and o 2 x 2048 x 2560, k and v 2 x 1024 x
// 2560, q and k norms 512, the MLP 3 x 10,240 x 2560, four norms:
// 94,382,592, x 34; the final norm), SigLIP's 416,866,032 and the
// projector's 2,950,272. Read by gemma3's rules they are what the config
// gives at one rank: every tensor held (vLLM builds SigLIP's
// post_layernorm because the tower keeps all its layers, siglip.py:708-711
// at jsboige/vllm ffd91ee), beside the two rotary tables of 256 values a
// position, the local one over 131,072 positions and the global one over
// 131,072 x its linear factor 8; the checkpoint and the config agree rank
// by rank.
func TestGemma3_4BHeader(t *testing.T) {
	_, ts := gemma3_4BHeader()
	checkHeaderNames(t, ts, 883)
	if got := headerTotal(ts); got != 8_600_158_944 {
		t.Errorf("header total %d B, the index's total_size is 8,600,158,944", got)
	}
	checkByHand(t, []byHandCase{{
		name: "gemma-3-4b-it", fixture: gemma3_4BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 8_600_158_944 + 131072*256*2 + 8*131072*256*2, ""}},
	}})
	checkHeaderRanks(t, gemma3_4BHeader)
}

// checkHeaderRanks checks that a fixture read by its family's rules names
// every tensor and agrees with the config's weights at TP1, TP2, TP4 and
// on each stage of PP2.
func checkHeaderRanks(t *testing.T, fixture func() (string, []safetensors.Tensor)) {
	t.Helper()
	a, notes := attach(t, fixture)
	if len(notes.Unknown) > 0 {
		t.Errorf("tensors no rule names: %v", notes.Unknown)
	}
	for _, sh := range []Sharding{Whole(a, 1, 2, a.Quant), Whole(a, 2, 2, a.Quant), Whole(a, 4, 2, a.Quant)} {
		if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
			t.Errorf("TP%d: checkpoint %d B, config %d B", sh.TP, c, w)
		}
	}
	for i := range 2 {
		sh := ppStage(i, 2)(a)
		if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
			t.Errorf("PP2 stage %d: checkpoint %d B, config %d B", i, c, w)
		}
	}
}
