package model

import (
	"fmt"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

func init() {
	// stable-code-3b (remote StableLMEpochConfig): 2560 / 32 = 80 a head,
	// 32 KV heads, untied; rope_pct 0.25, which vLLM does not read: the
	// whole head of 80 is rotary.
	shippedShapes["stabilityai__stable-code-3b"] = shape{ModelType: "stablelm_epoch", Layers: 32, Hidden: 2560, Heads: 32, KVHeads: 32,
		HeadDim: 80, Vocab: 50304, MaxPos: 16384, RotaryDim: 80, Dtype: "bfloat16"}
}

// TestStableLMEpochWeightsByHand: stable-code-3b whole on one rank in
// bf16 (stablelm.py). A layer: qkv_proj 2560 x (32 + 32 + 32) x 80 =
// 19,660,800, no bias (no use_qkv_bias); o_proj 2560 x 2560 = 6,553,600;
// gate_up 2560 x 2 x 6912 = 35,389,440; down 17,694,720; two LayerNorms of
// weight and bias 10,240: 79,308,800, x 32 = 2,537,881,600. The embedding
// and the untied head 50,304 (a multiple of 64) x 2560 = 128,778,240 each;
// the final LayerNorm 5120. 2,795,443,200 parameters (stable-code-3b's
// 2.8B) x 2 B; rotary 16,384 x 80 (the whole head) x 2 B.
func TestStableLMEpochWeightsByHand(t *testing.T) {
	a := shippedArch(t, "stabilityai__stable-code-3b")
	const want = 2795443200*2 + 16384*80*2
	if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != want {
		t.Errorf("stable-code-3b: %d B, want %d (by hand)", got, want)
	}
}

// stableLMEpochFixture: hidden 64, 4 heads of 16, 2 KV heads, intermediate
// 128, 2 layers, vocabulary 128, 64 positions, use_qkv_bias (StableLM 2's
// remote configs), rope_pct 0.25, untied; named as Stability's
// modeling_stablelm_epoch.py checkpoints name them.
func stableLMEpochFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"stablelm_epoch","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"rope_pct":0.25,"use_qkv_bias":true,` +
		`"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"input_layernorm.bias", 64),
			bf16(p+"post_attention_layernorm.weight", 64), bf16(p+"post_attention_layernorm.bias", 64),
			bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.q_proj.bias", 64),
			bf16(p+"self_attn.k_proj.weight", 32, 64), bf16(p+"self_attn.k_proj.bias", 32),
			bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.v_proj.bias", 32),
			bf16(p+"self_attn.o_proj.weight", 64, 64),
			bf16(p+"mlp.gate_proj.weight", 128, 64), bf16(p+"mlp.up_proj.weight", 128, 64), bf16(p+"mlp.down_proj.weight", 64, 128))
	}
	return config, append(ts, bf16("model.norm.weight", 64), bf16("model.norm.bias", 64), bf16("lm_head.weight", 128, 64))
}

// TestStableLMEpochCheckpointByHand: the fixture read by the family's
// rules at TP1, TP2 and on each stage of PP2 in bf16.
func TestStableLMEpochCheckpointByHand(t *testing.T) {
	checkByHand(t, []byHandCase{{
		// stablelm.py. TP1, a layer: qkv_proj (4 + 2 + 2) x 16 = 128
		// rows x 64 = 8192 and bias 128; o_proj 4096; gate, up and down
		// 8192 each; two LayerNorms of weight and bias 256: 37,248
		// elements, 74,496 B. The embedding and lm_head 128 x 64 x 2 =
		// 16,384 each, the final LayerNorm 256, rotary 64 positions x 16
		// (the whole head: rope_pct is not read) x 2 = 2048.
		// TP2, a layer: qkv_proj 2 + 1 + 1 heads = 64 rows 4096 and bias
		// 64; o_proj 64 x 32 = 2048; gate_up 128 rows 8192; down 64 x 64 =
		// 4096; LayerNorms 256: 18,752 elements, 37,504 B. Embedding and
		// head 64 rows 8192 each.
		// PP2: the embedding, final norm and head on both stages
		// (stablelm.py builds them on every stage).
		name: "stablelm_epoch", fixture: stableLMEpochFixture,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*74496 + 2*16384 + 256 + 2048, ""},
			{"TP2", tpRanks(2, 0), 2*37504 + 2*8192 + 256 + 2048, ""},
			{"PP2 stage 0", ppStage(0, 2), 74496 + 2*16384 + 256 + 2048, ""},
			{"PP2 stage 1", ppStage(1, 2), 74496 + 2*16384 + 256 + 2048, ""},
		},
	}})
}

// TestStableLMEpochRotaryAndKeys: rope_pct is not vLLM's rotary fraction
// (the whole head turns) where partial_rotary_factor or rotary_pct is
// (the fraction of it); tie_word_embeddings left out is tied; a key the
// remote class would have to give is an error naming it.
func TestStableLMEpochRotaryAndKeys(t *testing.T) {
	const keys = `"model_type": "stablelm_epoch", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 4,
 "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 128, "max_position_embeddings": 64`
	tests := []struct {
		name, extra string
		rotary      uint64
		tied        bool
	}{
		// 64 / 4 = 16 a head, all of it rotary.
		{"rope_pct", `, "rope_pct": 0.25, "tie_word_embeddings": false`, 16, false},
		// patch_rope_parameters takes partial_rotary_factor, then
		// rotary_pct: a quarter of 16.
		{"partial_rotary_factor", `, "partial_rotary_factor": 0.25, "rope_pct": 1.0`, 4, true},
		{"rotary_pct", `, "rotary_pct": 0.5, "rope_pct": 0.25`, 8, true},
	}
	for _, tt := range tests {
		a, err := ParseConfig("x.json", []byte("{"+keys+tt.extra+"}"))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if a.RotaryDim != tt.rotary || a.Rotary[0].Dim != tt.rotary || a.TiedEmbeddings != tt.tied {
			t.Errorf("%s: rotary %d (table %d), tied %v; want %d, %v", tt.name, a.RotaryDim, a.Rotary[0].Dim, a.TiedEmbeddings, tt.rotary, tt.tied)
		}
	}
	errs := []struct{ name, doc, want string }{
		{"no KV heads", `{"model_type": "stablelm_epoch", "hidden_size": 64, "num_attention_heads": 4}`, "x.json: num_key_value_heads: missing"},
		{"no class", `{"model_type": "stablelm_epoch", "num_key_value_heads": 4}`, "x.json: hidden_size: missing"},
		{"qk_layernorm", "{" + keys + `, "qk_layernorm": true}`, "x.json: qk_layernorm: true: vLLM's StablelmForCausalLM"},
		{"parallel residual", "{" + keys + `, "use_parallel_residual": true}`, "x.json: use_parallel_residual: true"},
	}
	for _, tt := range errs {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to hold %q", tt.name, err, tt.want)
		}
	}
}
