package model

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

func init() {
	// Llama-3.3-Nemotron-Super-49B-v1: model_type nemotron-nas (remote
	// code DeciLMConfig), 80 blocks, 31 of them with a no-op attention
	// (no KV cache), the others 8 KV heads of 8192 / 64 = 128 (vLLM's own
	// reading: tests/config/base_model_arch_groundtruth.json at d18bb7b);
	// llama3 rope over 131,072 positions; untied.
	shippedShapes["nvidia__Llama-3_3-Nemotron-Super-49B-v1"] = shape{ModelType: "nemotron-nas", Layers: 80, Hidden: 8192, Heads: 64,
		KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxPos: 131072, MLPOnly: 31, RotaryDim: 128, Rope: "llama3", Dtype: "bfloat16"}
}

// TestNemotronNASWeightsByHand: Llama-3.3-Nemotron-Super-49B-v1's
// config.json (corpus/models) under nemotron_nas.py, counted by hand.
// hidden 8192, 64 heads of 128, vocabulary 128,256 (a multiple of 64),
// untied. 49 of the 80 blocks attend, every one with n_heads_in_group 8
// (8 KV heads): q 8192 x 8192 = 67,108,864, k and v 2 x 1024 x 8192 =
// 16,777,216, o 67,108,864 and input_layernorm 8192: 151,003,136, x 49 =
// 7,399,153,664. Every block has an FFN, of int(2 x ffn_mult x 8192 / 3)
// rounded up to 256: 5.25 -> 28,672 (49 blocks), 2.625 -> 14,336 (6),
// 1.3125 -> 7168 (10), 1.0 -> 5461 -> 5632 (8), 0.5 -> 2730 -> 2816 (6),
// 3.28125 -> 17,920 (1); gate, up and down 3 x 8192 x I: 34,527,510,528
// + 2,113,929,216 + 1,761,607,680 + 1,107,296,256 + 415,236,096 +
// 440,401,920 = 40,365,981,696, and 80 post_attention_layernorms 655,360.
// embed_tokens and lm_head 2 x 128,256 x 8192 = 2,101,346,304; norm 8192.
// 49,867,145,216 parameters: the 49B of the model's name (the checkpoint's
// index total_size was not found to compare). The rotary table: llama3
// rope over max_position_embeddings 131,072 rows x 128.
func TestNemotronNASWeightsByHand(t *testing.T) {
	a := shippedArch(t, "nvidia__Llama-3_3-Nemotron-Super-49B-v1")
	widths := map[uint64]int{}
	var noMixer int
	for _, l := range a.Layers {
		widths[l.Intermediate]++
		if l.Kind == NoMixer {
			noMixer++
		}
	}
	if diff := cmp.Diff(map[uint64]int{28672: 49, 14336: 6, 7168: 10, 5632: 8, 2816: 6, 17920: 1}, widths); diff != "" {
		t.Errorf("FFN widths by layer count (-want +got):\n%s", diff)
	}
	if noMixer != 31 || a.Intermediate != 28672 {
		t.Errorf("%d no-op attention layers, intermediate %d; want 31 and the widest block's 28672", noMixer, a.Intermediate)
	}
	const params = 49867145216
	if got, want := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))), uint64(params*2+131072*128*2); got != want {
		t.Errorf("weights %d B, want %d", got, want)
	}
}

// TestDeciLMIntermediate: nemotron_nas.py:60-70 by hand for hidden 8192
// (2 x m x 8192 / 3, truncated, rounded up to 256), ffn_mult rounded to 6
// places first (block_config.py): 5.2501834 is 5.250183, whose 28,672.9994
// truncates to 28,672 (unrounded, 28,673.0016 would take 28,928).
func TestDeciLMIntermediate(t *testing.T) {
	for _, tc := range []struct {
		mult string
		want uint64
	}{
		{"5.25", 28672},      // 28,672 exactly
		{"1.0", 5632},        // 5461.33 -> 5461 -> 5632
		{"0.5", 2816},        // 2730.67 -> 2730 -> 2816
		{"3.28125", 17920},   // 17,920 exactly
		{"1.3125", 7168},     // 7168 exactly
		{"5.2505", 28928},    // 28,674.73 -> 28,674 -> 28,928
		{"5.2501834", 28672}, // round(., 6) = 5.250183: 28,672.9994 -> 28,672
	} {
		var errs []error
		o := jsonObject{file: "x.json", m: map[string]json.RawMessage{"ffn_mult": json.RawMessage(tc.mult)}, errs: &errs}
		if got := decilmIntermediate(o, 8192); got != tc.want || len(errs) > 0 {
			t.Errorf("ffn_mult %s: %d (%v), want %d", tc.mult, got, errs, tc.want)
		}
	}
}

// nemotronNASConfig is a DeciLM config of hidden 32, 2 heads of 16,
// vocabulary 64, untied, max_position_embeddings 64, whose blocks are
// given.
func nemotronNASConfig(blocks ...string) string {
	return `{"model_type":"nemotron-nas","architectures":["DeciLMForCausalLM"],"hidden_size":32,"num_attention_heads":2,` +
		`"num_key_value_heads":null,"intermediate_size":null,"num_hidden_layers":` + fmt.Sprint(len(blocks)) +
		`,"vocab_size":64,"max_position_embeddings":64,"tie_word_embeddings":false,"torch_dtype":"bfloat16","block_configs":[` +
		strings.Join(blocks, ",") + `]}`
}

// decilmBlock is one block config: attention with a heads group (0: a
// no-op) and an FFN of ffn_mult (0: a no-op).
func decilmBlock(group int, mult float64) string {
	attn := `{"no_op":true,"replace_with_linear":false,"n_heads_in_group":null}`
	if group > 0 {
		attn = fmt.Sprintf(`{"no_op":false,"replace_with_linear":false,"n_heads_in_group":%d,"window_length":null}`, group)
	}
	ffn := `{"no_op":true,"replace_with_linear":false,"ffn_mult":null}`
	if mult > 0 {
		ffn = fmt.Sprintf(`{"no_op":false,"replace_with_linear":false,"ffn_mult":%v}`, mult)
	}
	return `{"attention":` + attn + `,"ffn":` + ffn + `}`
}

// nemotronNASFixture: four blocks of every kind: attention (group 2: one
// KV head) and an FFN of ffn_mult 12 (int(2 x 12 x 32 / 3) = 256); a no-op
// attention and ffn_mult 13 (277 -> 512); attention and a no-op FFN; both
// no-ops. Named as Llama-3.3-Nemotron-Super-49B-v1's checkpoint names
// them (Llama's names; a no-op sub-block and its norm absent).
func nemotronNASFixture() (string, []safetensors.Tensor) {
	config := nemotronNASConfig(decilmBlock(2, 12), decilmBlock(0, 13), decilmBlock(2, 0), decilmBlock(0, 0))
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32)}
	attn := func(l int) []safetensors.Tensor {
		p := fmt.Sprintf("model.layers.%d.", l)
		return []safetensors.Tensor{bf16(p+"input_layernorm.weight", 32), bf16(p+"self_attn.q_proj.weight", 32, 32),
			bf16(p+"self_attn.k_proj.weight", 16, 32), bf16(p+"self_attn.v_proj.weight", 16, 32), bf16(p+"self_attn.o_proj.weight", 32, 32)}
	}
	mlp := func(l int, inter uint64) []safetensors.Tensor {
		p := fmt.Sprintf("model.layers.%d.", l)
		return []safetensors.Tensor{bf16(p+"post_attention_layernorm.weight", 32), bf16(p+"mlp.gate_proj.weight", inter, 32),
			bf16(p+"mlp.up_proj.weight", inter, 32), bf16(p+"mlp.down_proj.weight", 32, inter)}
	}
	ts = append(ts, attn(0)...)
	ts = append(ts, mlp(0, 256)...)
	ts = append(ts, mlp(1, 512)...)
	ts = append(ts, attn(2)...)
	return config, append(ts, bf16("model.norm.weight", 32), bf16("lm_head.weight", 64, 32))
}

// TestNemotronNASCheckpointByHand: the fixture read by Llama's rules,
// against sums by hand; the config-derived weights agree.
func TestNemotronNASCheckpointByHand(t *testing.T) {
	checkByHand(t, []byHandCase{{
		// TP1: an attending block's input_layernorm 64, q 32 x 32 x 2 =
		// 2048, k and v 16 x 32 x 2 = 1024 each, o 2048: 6208. An FFN of
		// 256: post_attention_layernorm 64, gate and up 256 x 32 x 2 =
		// 16,384 each, down 16,384: 49,216; of 512: 64 + 3 x 32,768 =
		// 98,368. Layers: 6208 + 49,216, 98,368, 6208, 0. embed_tokens
		// and lm_head 64 x 32 x 2 = 4096 each, norm 64, rotary 64 x 16 x
		// 2 = 2048.
		// TP2: the one KV head replicated: q one head 1024, k and v whole
		// 1024 each, o 32 x 16 x 2 = 1024, norm 64: 4160. FFN of 256: 128
		// rows of gate and up 8192 each, down 8192, norm 64: 24,640; of
		// 512: 16,384 x 3 + 64 = 49,216. The embedding and head 32 rows
		// 2048 each.
		// PP2: layers 0-1 with the embedding on stage 0; 2-3 with norm
		// and head on stage 1; the rotary table on both.
		name: "nemotron-nas", fixture: nemotronNASFixture,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 6208 + 49216 + 98368 + 6208 + 2*4096 + 64 + 2048, ""},
			{"TP2", tpRanks(2, 0), 4160 + 24640 + 49216 + 4160 + 2*2048 + 64 + 2048, ""},
			{"PP2 stage 0", ppStage(0, 2), 6208 + 49216 + 98368 + 4096 + 2048, ""},
			{"PP2 stage 1", ppStage(1, 2), 6208 + 64 + 4096 + 2048, ""},
		},
	}})
}

// TestNemotronNASLayerTypes: LlamaAttention slides the layers layer_types
// names sliding_attention (llama.py:183-202), whatever a block's
// window_length says; a no-op block attends nowhere whatever layer_types
// says of it.
func TestNemotronNASLayerTypes(t *testing.T) {
	config := strings.Replace(nemotronNASConfig(decilmBlock(2, 12), decilmBlock(2, 12), decilmBlock(0, 12)),
		`"block_configs"`, `"layer_types":["sliding_attention","full_attention","sliding_attention"],"sliding_window":16,"block_configs"`, 1)
	a, err := ParseConfig("x.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	var got []LayerKind
	for _, l := range a.Layers {
		got = append(got, l.Kind)
	}
	if diff := cmp.Diff([]LayerKind{SlidingAttention, FullAttention, NoMixer}, got); diff != "" || a.SlidingWindow != 16 {
		t.Errorf("layer kinds (-want +got):\n%s; window %d, want 16", diff, a.SlidingWindow)
	}
}

// TestNemotronNASRefused: what vLLM's DeciLM cannot build, or membudget
// does not size, is refused naming the key.
func TestNemotronNASRefused(t *testing.T) {
	for _, tc := range []struct {
		name, config, key, detail string
	}{
		{"no block_configs", strings.Replace(nemotronNASConfig(decilmBlock(2, 12)), `,"block_configs":[`+decilmBlock(2, 12)+`]`, "", 1),
			"block_configs", "missing"},
		{"fewer block_configs than layers", strings.Replace(nemotronNASConfig(decilmBlock(2, 12), decilmBlock(2, 12)), `"num_hidden_layers":2`, `"num_hidden_layers":3`, 1),
			"block_configs", "has 2 entries for 3 layers"},
		{"attention replaced with a linear", nemotronNASConfig(decilmBlock(2, 12), `{"attention":{"replace_with_linear":true},"ffn":{"ffn_mult":12}}`),
			"block_configs[1].attention.replace_with_linear", "builds no linear replacement"},
		{"ffn replaced with a linear", nemotronNASConfig(`{"attention":{"n_heads_in_group":2},"ffn":{"replace_with_linear":true}}`),
			"block_configs[0].ffn.replace_with_linear", "builds no linear replacement"},
		{"KV heads that differ", nemotronNASConfig(decilmBlock(2, 12), decilmBlock(1, 12)),
			"block_configs[1].attention.n_heads_in_group", "gives 2 KV heads, another attending layer 1"},
		{"a group that does not divide the heads", strings.Replace(nemotronNASConfig(decilmBlock(2, 12)), `"num_attention_heads":2`, `"num_attention_heads":3`, 1),
			"block_configs[0].attention.n_heads_in_group", "does not divide num_attention_heads 3"},
		{"an FFN without ffn_mult", nemotronNASConfig(`{"attention":{"n_heads_in_group":2},"ffn":{}}`),
			"block_configs[0].ffn.ffn_mult", "missing"},
		{"an attention without its group", nemotronNASConfig(`{"attention":{},"ffn":{"ffn_mult":12}}`),
			"block_configs[0].attention.n_heads_in_group", "missing"},
		{"a block without ffn", nemotronNASConfig(`{"attention":{"n_heads_in_group":2}}`),
			"block_configs[0].ffn", "missing"},
		{"no block attends", nemotronNASConfig(decilmBlock(0, 12)),
			"block_configs", "no block attends"},
		{"a block that is no object", nemotronNASConfig(`[1]`),
			"block_configs[0]", "must be an object"},
	} {
		_, err := ParseConfig("x.json", []byte(tc.config))
		if err == nil || !strings.Contains(err.Error(), tc.key+": ") || !strings.Contains(err.Error(), tc.detail) {
			t.Errorf("%s: %v, want a refusal of %s saying %q", tc.name, err, tc.key, tc.detail)
		}
	}
}
