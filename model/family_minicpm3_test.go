package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// miniCPM3Config is openbmb/MiniCPM3-4B as MiniCPM3Config gives it: every
// key its class defaults (the class's defaults are that checkpoint's), the
// architecture and dtype the published file names.
const miniCPM3Config = `{"model_type": "minicpm3", "architectures": ["MiniCPM3ForCausalLM"], "torch_dtype": "bfloat16"}`

// TestMiniCPM3Shape: MiniCPM3-4B read through its config class: 62
// layers of 40 heads, the KV a full head of 64 + 32 for each of the 40
// (vLLM decompresses the latent: no MLA), rotary over the 32 rope dims,
// v_head_dim 2560 / 40 = 64, tied.
func TestMiniCPM3Shape(t *testing.T) {
	a, err := ParseConfig("x.json", []byte(miniCPM3Config))
	if err != nil {
		t.Fatal(err)
	}
	type shape struct {
		Layers, Hidden, Heads, KVHeads, HeadDim, Rotary, Vocab, MaxPos uint64
		QLora, KVLora, Nope, Rope, V                                   uint64
		MLA, Tied                                                      bool
		Dtype                                                          string
	}
	want := shape{62, 2560, 40, 40, 96, 32, 73448, 32768, 768, 256, 64, 32, 64, false, true, "bfloat16"}
	got := shape{uint64(len(a.Layers)), a.Hidden, a.Heads, a.KVHeads, a.HeadDim, a.RotaryDim, a.Vocab, a.MaxPosition,
		a.QLoraRank, a.KVLoraRank, a.QKNopeHeadDim, a.QKRopeHeadDim, a.VHeadDim, a.MLA, a.TiedEmbeddings, a.Dtype}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("MiniCPM3-4B (-want +got):\n%s", diff)
	}
}

// TestMiniCPM3WeightsByHand: MiniCPM3-4B whole on one rank in bf16, as
// minicpm3.py and minicpm.py build it. A layer: q_a_proj 2560 x 768 =
// 1,966,080 and q_a_layernorm 768; q_b_proj 768 x 40 x (64 + 32) =
// 2,949,120; kv_a_proj_with_mqa 2560 x (256 + 32) = 737,280 and
// kv_a_layernorm 256; kv_b_proj 256 x 40 x (64 + 64) = 1,310,720; o_proj
// 40 x 64 x 2560 = 6,553,600; gate_up 2560 x 2 x 6400 = 32,768,000 and
// down 16,384,000; two norms 5120: 62,674,944, x 62 = 3,885,846,528.
// embed_tokens 73,448 rows padded to 73,472 x 2560 = 188,088,320, the
// head tied; norm 2560. 4,073,937,408 elements (the checkpoint's
// 4,073,875,968, MiniCPM3-4B's 4B, and 24 padding rows) x 2 B; rotary
// 32,768 x 32 x 2 B.
func TestMiniCPM3WeightsByHand(t *testing.T) {
	a, err := ParseConfig("x.json", []byte(miniCPM3Config))
	if err != nil {
		t.Fatal(err)
	}
	const want = 4073937408*2 + 32768*32*2
	if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != want {
		t.Errorf("MiniCPM3-4B: %d B, want %d (by hand)", got, want)
	}
}

// miniCPM3Fixture: hidden 64, 4 heads, qk_nope_head_dim 16 and
// qk_rope_head_dim 8, v_head_dim left out (64 / 4 = 16), q_lora_rank 32,
// kv_lora_rank 16, intermediate 128, 2 layers, vocabulary 128, 64
// positions, tied (no lm_head); named as transformers'
// modeling_minicpm3.py names them.
func miniCPM3Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"minicpm3","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":4,"qk_nope_head_dim":16,` +
		`"qk_rope_head_dim":8,"q_lora_rank":32,"kv_lora_rank":16,"intermediate_size":128,"num_hidden_layers":2,"vocab_size":128,` +
		`"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64),
			bf16(p+"self_attn.q_a_proj.weight", 32, 64), bf16(p+"self_attn.q_a_layernorm.weight", 32),
			bf16(p+"self_attn.q_b_proj.weight", 96, 32),
			bf16(p+"self_attn.kv_a_proj_with_mqa.weight", 24, 64), bf16(p+"self_attn.kv_a_layernorm.weight", 16),
			bf16(p+"self_attn.kv_b_proj.weight", 128, 16), bf16(p+"self_attn.o_proj.weight", 64, 64),
			bf16(p+"mlp.gate_proj.weight", 128, 64), bf16(p+"mlp.up_proj.weight", 128, 64), bf16(p+"mlp.down_proj.weight", 64, 128))
	}
	return config, append(ts, bf16("model.norm.weight", 64))
}

// TestMiniCPM3CheckpointByHand: the fixture read by MiniCPM3's rules at
// TP1, TP2 and on each stage of PP2 in bf16.
func TestMiniCPM3CheckpointByHand(t *testing.T) {
	checkByHand(t, []byHandCase{{
		// minicpm3.py. TP1, a layer: q_a_proj 32 x 64 = 2048 and its
		// norm 32; q_b_proj 4 x 24 rows x 32 = 3072; kv_a_proj_with_mqa
		// (16 + 8) x 64 = 1536 and its norm 16; kv_b_proj 4 x (16 + 16)
		// rows x 16 = 2048; o_proj 64 x 64 = 4096; gate, up and down 128 x
		// 64 = 8192 each; two norms 128: 37,552 elements, 75,104 B.
		// embed_tokens (the head) 128 x 64 x 2 = 16,384, norm 128, rotary
		// 64 positions x 8 x 2 = 1024.
		// TP2, a layer: the down-projections and their norms whole (2048
		// + 32 + 1536 + 16); q_b_proj 48 rows 1536; kv_b_proj 64 rows
		// 1024; o_proj 64 x 32 = 2048; gate_up 128 rows 8192; down 64 x
		// 64 = 4096; norms 128: 20,656 elements, 41,312 B. The embedding
		// 64 rows 8192.
		// PP2: the embedding and norm on both stages (minicpm.py builds
		// them on every stage; the tied head is the embedding there).
		name: "minicpm3", fixture: miniCPM3Fixture,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*75104 + 16384 + 128 + 1024, ""},
			{"TP2", tpRanks(2, 0), 2*41312 + 8192 + 128 + 1024, ""},
			{"PP2 stage 0", ppStage(0, 2), 75104 + 16384 + 128 + 1024, ""},
			{"PP2 stage 1", ppStage(1, 2), 75104 + 16384 + 128 + 1024, ""},
		},
	}})
}

// TestMiniCPM3Refusals: what vLLM's MiniCPM3 cannot build is an error
// naming the key.
func TestMiniCPM3Refusals(t *testing.T) {
	errs := []struct{ name, doc, want string }{
		{"no query latent", `{"model_type": "minicpm3", "q_lora_rank": null}`, "x.json: q_lora_rank: null or 0: vLLM's MiniCPM3Attention always builds q_a_proj"},
		{"zero query latent", `{"model_type": "minicpm3", "q_lora_rank": 0}`, "x.json: q_lora_rank: null or 0"},
		{"moe", `{"model_type": "minicpm3", "num_experts": 8}`, "x.json: num_experts: 8: MiniCPM's MoE"},
		{"act", `{"model_type": "minicpm3", "hidden_act": "gelu"}`, "x.json: hidden_act: \"gelu\": vLLM's MiniCPMMLP raises"},
		// 64 + 32 = 96 is the head V is padded to.
		{"wide v", `{"model_type": "minicpm3", "v_head_dim": 128}`, "x.json: v_head_dim: 128 is wider than the 96-wide head"},
	}
	for _, tt := range errs {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to hold %q", tt.name, err, tt.want)
		}
	}
}
