package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

func init() {
	// Apertus-8B-Instruct-2509 (rebuilt: corpus/models/SOURCES.md): 32
	// layers of 32 heads and 8 KV heads of 4096 / 32 = 128, an ungated
	// FFN of 21,504, llama3 rope over 65,536 positions, untied.
	shippedShapes["swiss-ai__Apertus-8B-Instruct-2509"] = shape{ModelType: "apertus", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8,
		HeadDim: 128, Vocab: 131072, MaxPos: 65536, RotaryDim: 128, Rope: "llama3", Dtype: "bfloat16"}
}

// TestApertusWeightsByHand: Apertus-8B-Instruct-2509 under apertus.py,
// counted by hand. A layer: q 4096 x 4096 = 16,777,216, k and v 2 x 1024
// x 4096 = 8,388,608, o 16,777,216; q_norm and k_norm 2 x 128 = 256;
// up_proj and down_proj 2 x 21,504 x 4096 = 176,160,768; the two norms
// 8192; XIELU's alpha_p, alpha_n, beta and eps 4: 218,112,260, x 32 =
// 6,979,592,320. embed_tokens and lm_head 2 x 131,072 x 4096 =
// 1,073,741,824; norm 4096. 8,053,338,240 parameters (the model's 8B),
// every one in bf16; served in float32 the 128 XIELU elements stay 2 B
// each. The rotary table: 65,536 rows x 128.
func TestApertusWeightsByHand(t *testing.T) {
	a := shippedArch(t, "swiss-ai__Apertus-8B-Instruct-2509")
	const params, xielu, rotary = 8053338240, 32 * 4, 65536 * 128
	if got, want := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))), uint64(params*2+rotary*2); got != want {
		t.Errorf("bf16: %d B, want %d", got, want)
	}
	if got, want := sumItems(Weights(a, Whole(a, 1, 4, a.Quant))), uint64((params-xielu)*4+xielu*2+rotary*4); got != want {
		t.Errorf("float32: %d B, want %d", got, want)
	}
	if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant)), "model.layers.0.mlp.act_fn."); got != 8 {
		t.Errorf("layer 0's XIELU: %d B, want 4 x 2", got)
	}
}

// TestApertusClassDefaults: a config of nothing but its type is
// ApertusConfig's defaults: 32 layers of 32 heads, multi-head
// (num_key_value_heads None), 4096 wide, an FFN of 14,336, 131,072
// tokens, 65,536 positions, untied, xielu.
func TestApertusClassDefaults(t *testing.T) {
	a, err := ParseConfig("apertus.json", []byte(`{"model_type": "apertus", "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := shape{ModelType: "apertus", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, Vocab: 131072, MaxPos: 65536,
		RotaryDim: 128, Dtype: "bfloat16"}
	if diff := cmp.Diff(want, shapeOf(a)); diff != "" {
		t.Errorf("shape (-want +got):\n%s", diff)
	}
	if a.Intermediate != 14336 {
		t.Errorf("intermediate %d, want 14336", a.Intermediate)
	}
}

// TestApertusRefused: what vLLM's ApertusForCausalLM does not build as a
// decoder is refused naming the key.
func TestApertusRefused(t *testing.T) {
	for _, tc := range []struct{ name, config, key, detail string }{
		{"silu", `{"model_type":"apertus","hidden_act":"silu"}`, "hidden_act", "raises for anything but xielu"},
		{"bidirectional", `{"model_type":"apertus","is_causal":false}`, "is_causal", "encoder-only attention"},
		{"null activation", `{"model_type":"apertus","hidden_act":null}`, "hidden_act", "missing"},
	} {
		_, err := ParseConfig("x.json", []byte(tc.config))
		if err == nil || !strings.Contains(err.Error(), tc.key+": ") || !strings.Contains(err.Error(), tc.detail) {
			t.Errorf("%s: %v, want a refusal of %s saying %q", tc.name, err, tc.key, tc.detail)
		}
	}
}

// apertusFixture: hidden 32, 2 heads of 16 and one KV head, an FFN of 64,
// 2 layers, vocabulary 64, 64 positions, untied; named as the checkpoints
// of swiss-ai name them (transformers modeling_apertus.py: self_attn's
// q/k/v/o_proj, q_norm and k_norm, mlp.up_proj and down_proj, XIELU's
// mlp.act_fn.alpha_p and alpha_n of one element and its beta and eps
// scalars, attention_layernorm and feedforward_layernorm).
func apertusFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"apertus","architectures":["ApertusForCausalLM"],"hidden_size":32,"num_attention_heads":2,"num_key_value_heads":1,` +
		`"intermediate_size":64,"num_hidden_layers":2,"vocab_size":64,"max_position_embeddings":64,"tie_word_embeddings":false,` +
		`"hidden_act":"xielu","qk_norm":true,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"attention_layernorm.weight", 32), bf16(p+"feedforward_layernorm.weight", 32),
			bf16(p+"self_attn.q_proj.weight", 32, 32), bf16(p+"self_attn.k_proj.weight", 16, 32),
			bf16(p+"self_attn.v_proj.weight", 16, 32), bf16(p+"self_attn.o_proj.weight", 32, 32),
			bf16(p+"self_attn.q_norm.weight", 16), bf16(p+"self_attn.k_norm.weight", 16),
			bf16(p+"mlp.up_proj.weight", 64, 32), bf16(p+"mlp.down_proj.weight", 32, 64),
			bf16(p+"mlp.act_fn.alpha_p", 1), bf16(p+"mlp.act_fn.alpha_n", 1), bf16(p+"mlp.act_fn.beta"), bf16(p+"mlp.act_fn.eps"))
	}
	return config, append(ts, bf16("model.norm.weight", 32), bf16("lm_head.weight", 64, 32))
}

// TestApertusCheckpointByHand: the fixture read by Apertus's rules,
// against sums by hand; the config-derived weights agree.
func TestApertusCheckpointByHand(t *testing.T) {
	checkByHand(t, []byHandCase{{
		// TP1, a layer: two norms 2 x 32 x 2 = 128; q 32 x 32 x 2 = 2048,
		// k and v 16 x 32 x 2 = 1024 each, o 2048; q_norm and k_norm 2 x
		// 16 x 2 = 64; up 64 x 32 x 2 = 4096, down 4096; XIELU 4 x 2 = 8:
		// 14,536. embed_tokens and lm_head 64 x 32 x 2 = 4096 each, norm
		// 64, rotary 64 x 16 x 2 = 2048.
		// TP2, a layer: norms 128; q one head 1024, the KV head replicated
		// (k and v whole, 1024 each), o 32 x 16 x 2 = 1024; the per-head
		// norms whole 64; up 32 rows 2048, down 32 x 32 x 2 = 2048; XIELU
		// whole 8: 8392. The embedding and head 32 rows 2048 each.
		// float32 at TP1: everything twice but XIELU's 8 B a layer.
		// PP2: a layer a stage, the embedding on stage 0, norm and head on
		// stage 1, the rotary table on both.
		name: "apertus", fixture: apertusFixture,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*14536 + 2*4096 + 64 + 2048, ""},
			{"TP2", tpRanks(2, 0), 2*8392 + 2*2048 + 64 + 2048, ""},
			{"TP1 float32", withSharding(1, func(sh *Sharding) { sh.DtypeBytes = 4 }), 2*(2*(14536-8)+8) + 2*(2*4096+64+2048), ""},
			{"PP2 stage 0", ppStage(0, 2), 14536 + 4096 + 2048, ""},
			{"PP2 stage 1", ppStage(1, 2), 14536 + 64 + 4096 + 2048, ""},
		},
	}})
}
