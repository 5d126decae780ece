package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// OLMo 2 (Olmo2ForCausalLM) through vLLM's Transformers backend: the
// shipped config's shape, its weights by hand against the published
// checkpoint's size, a checkpoint by hand on every kind of rank, and its KV
// layout.

func init() {
	// OLMo-2-1124-13B: 5120 / 40 = 128 a head, 40 KV heads (multi-head);
	// no sliding_window and no layer_types: every layer full; untied; no
	// rotary table (transformers' Olmo2RotaryEmbedding keeps inv_freq only).
	shippedShapes["allenai__OLMo-2-1124-13B"] = shape{ModelType: "olmo2", Layers: 40, Hidden: 5120, Heads: 40, KVHeads: 40, HeadDim: 128,
		Vocab: 100352, MaxPos: 4096, RotaryDim: 128, Dtype: "float32"}
}

// TestOlmo2WeightsByHand: OLMo-2-1124-13B whole on one rank in bf16,
// counted by hand from its config.json, and its checkpoint's size.
func TestOlmo2WeightsByHand(t *testing.T) {
	a := shippedArch(t, "allenai__OLMo-2-1124-13B")
	// A layer: q, k, v and o_proj 5120 x 5120 = 26,214,400 each
	// (104,857,600); gate, up and down 5120 x 13,824 = 70,778,880 each
	// (212,336,640); q_norm and k_norm 5120 each (40 heads and 40 KV
	// heads of 128), post_attention_layernorm and
	// post_feedforward_layernorm 5120 each: 20,480. 317,214,720, x 40 =
	// 12,688,588,800. embed_tokens and the untied lm_head 100,352 (a
	// multiple of 64) x 5120 = 513,802,240 each; norm 5120.
	// 13,716,198,400 parameters: the checkpoint's model.safetensors.
	// index.json says total_size 54,864,793,600, which is exactly that many
	// float32 (x 4). The rotary inv_freq: 128 / 2 = 64 float32, 256 B.
	const params = 13716198400
	if params*4 != 54864793600 {
		t.Fatalf("by-hand count %d x 4 B is not the checkpoint's total_size 54,864,793,600", params)
	}
	if got, want := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))), uint64(params*2+64*4); got != want {
		t.Errorf("OLMo-2-1124-13B: %d B, want %d (by hand)", got, want)
	}
	// KV: one full Attention a layer (base.py:526-612), 40 KV heads of
	// 128: 2 x 40 x 40 x 128 x 2 B = 819,200 B a token in bf16.
	if got := kinds(a.Layers); got != "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF" {
		t.Errorf("layer kinds %s, want 40 full", got)
	}
	if got := 2 * uint64(len(a.Layers)) * a.KVHeads * a.HeadDim * 2; got != 819200 {
		t.Errorf("KV a token %d B, want 819,200", got)
	}
}

// olmo2Fixture: hidden 64, 4 heads of 16, 2 KV heads, intermediate 128, 2
// layers, vocabulary 128, untied; named as transformers' modeling_olmo2.py
// names them (q_norm over 4 x 16 = 64, k_norm over 2 x 16 = 32).
func olmo2Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"olmo2","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.k_proj.weight", 32, 64),
			bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.o_proj.weight", 64, 64),
			bf16(p+"self_attn.q_norm.weight", 64), bf16(p+"self_attn.k_norm.weight", 32),
			bf16(p+"post_attention_layernorm.weight", 64), bf16(p+"post_feedforward_layernorm.weight", 64),
			bf16(p+"mlp.gate_proj.weight", 128, 64), bf16(p+"mlp.up_proj.weight", 128, 64), bf16(p+"mlp.down_proj.weight", 64, 128))
	}
	return config, append(ts, bf16("model.norm.weight", 64), bf16("lm_head.weight", 128, 64))
}

func TestOlmo2CheckpointByHand(t *testing.T) {
	checkByHand(t, []byHandCase{{
		// TP1, a layer: q and o_proj 64 x 64 = 4096 each, k and v 32 x 64
		// = 2048 each (12,288); q_norm 64 and k_norm 32; gate, up and
		// down 128 x 64 = 8192 each (24,576); the two post-norms 128:
		// 37,088 x 2 B = 74,176. embed_tokens and lm_head 128 x 64 x 2 =
		// 16,384 each, norm 128, inv_freq 16 / 2 = 8 float32 = 32.
		// TP2, a layer: QKVParallelLinear 2 q heads and 1 KV head of 16:
		// q 2048, k and v 1024 each; o_proj 64 x 32 = 2048 (6144);
		// q_norm and k_norm whole, 96 (TPAwareRMSNorm gathers); gate and
		// up 64 rows each 4096, down 64 x 64 = 4096 (12,288); norms 128:
		// 18,656 x 2 B = 37,312. Embedding and head 64 rows = 8192 each.
		// PP2: the embedding on stage 0, norm and head on stage 1
		// (base_model_pp_plan), inv_freq on both (rotary_emb is no
		// pipeline module).
		name: "olmo2", fixture: olmo2Fixture,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*74176 + 2*16384 + 128 + 32, ""},
			{"TP2", tpRanks(2, 0), 2*37312 + 2*8192 + 128 + 32, ""},
			{"PP2 stage 0", ppStage(0, 2), 74176 + 16384 + 32, ""},
			{"PP2 stage 1", ppStage(1, 2), 74176 + 128 + 16384 + 32, ""},
		},
	}})
}

// TestOlmo2Config: what Olmo2Config fills, and a sliding_window, which
// vLLM's Attention gives every layer (cache_config.sliding_window).
func TestOlmo2Config(t *testing.T) {
	a, err := ParseConfig("x.json", []byte(`{"model_type":"olmo2"}`))
	if err != nil {
		t.Fatal(err)
	}
	// Olmo2Config@008e574391: 50304 vocabulary, 4096 hidden, 11008
	// intermediate, 32 layers of 32 heads, KV heads None = heads, 2048
	// positions, untied.
	if a.Vocab != 50304 || a.Hidden != 4096 || a.Intermediate != 11008 || a.NumLayers != 32 || a.Heads != 32 || a.KVHeads != 32 ||
		a.HeadDim != 128 || a.MaxPosition != 2048 || a.TiedEmbeddings {
		t.Errorf("defaults: vocab %d hidden %d inter %d layers %d heads %d/%d head_dim %d max %d tied %v",
			a.Vocab, a.Hidden, a.Intermediate, a.NumLayers, a.Heads, a.KVHeads, a.HeadDim, a.MaxPosition, a.TiedEmbeddings)
	}
	w, err := ParseConfig("x.json", []byte(`{"model_type":"olmo2","num_hidden_layers":3,"sliding_window":1024}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := kinds(w.Layers); got != "SSS" || w.SlidingWindow != 1024 {
		t.Errorf("sliding_window 1024: kinds %s window %d, want SSS 1024", got, w.SlidingWindow)
	}
}
