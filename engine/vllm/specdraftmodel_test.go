package vllm

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// draftModelConfig is the shipped Llama-3.2-1B-Instruct config, the draft
// model of the draft_model tests.
const draftModelConfig = "../../corpus/models/meta-llama__Llama-3.2-1B-Instruct.json"

// WriteDraftModel writes the shipped Llama-3.2-1B-Instruct config into a
// temporary directory as a draft model without a checkpoint (its weights
// derived from config.json), for the contract tests.
func WriteDraftModel(t testing.TB) string {
	return writeDraftDir(t, draftModelConfig, nil)
}

// draftModelSpec is a draft_model --speculative-config of k = 3 on the
// draft in dir.
func draftModelSpec(dir string) string {
	return `{"method": "draft_model", "model": "` + dir + `", "num_speculative_tokens": 3}`
}

// TestDraftModelByHand: Llama-3.2-1B-Instruct as the draft of
// Llama-3.1-8B-Instruct, in bf16 (the target's dtype), each term by hand.
//
// Weights at TP 1, per layer (16): qkv_proj 2048 inputs x (32 + 2 x 8) x
// 64 = 3072 outputs x 2 = 12582912; o_proj 2048 x 2048 x 2 = 8388608;
// gate_up 2 x 8192 x 2048 x 2 = 67108864; down 8192 x 2048 x 2 =
// 33554432; two norms 2 x 2048 x 2 = 8192: 121643008, x 16 = 1946288128.
// The embedding 128256 rows (2004 x 64, no padding) x 2048 x 2 =
// 525336576, the LM head tied to it (tie_word_embeddings: no tensor of its
// own); the final norm 4096; the draft's own rotary table (head 64, unlike
// the target's 128: get_rope caches it apart), 131072 positions x 64 x 2
// = 16777216. Total 2488406016 B (2.32 GiB; Llama-3.2-1B is 1.24 B
// parameters).
//
// At TP 2, per layer: qkv 2048 x (16 + 2 x 4) x 64 x 2 = 6291456; o 1024
// x 2048 x 2 = 4194304; gate_up 2 x 4096 x 2048 x 2 = 33554432; down 4096
// x 2048 x 2 = 16777216; norms 8192: 60825600, x 16 = 973209600; the
// embedding 64128 x 2048 x 2 = 262668288; norm 4096; rotary 16777216
// (whole on each rank): 1252659200 B.
//
// The proposer's buffers at T = 8192 batched tokens and B = 256
// sequences: the two token masks of the extra slot 2 x 8192 bools =
// 16384; input_ids 8192 x 4 = 32768; positions 8192 x 8 = 65536;
// hidden_states and inputs_embeds 8192 x 2048 (the draft's hidden) x 2 =
// 33554432 each; arange max(257, 8192) x 4 = 32768; the slot mapping
// 65536; backup_next_token_ids 256 x 4 = 1024: 67322880 B, at any TP.
func TestDraftModelByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteDraftModel(t)
	for _, tc := range []struct {
		tp, weights uint64
	}{{1, 2488406016}, {2, 1252659200}} {
		s := Serve{TensorParallelSize: tc.tp, MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: draftModelSpec(dir)}
		r, got := draftItems(t, a, s)
		want := map[string]uint64{"draft_weights": tc.weights, "draft_buffers": 67322880}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("TP %d (-want +got):\n%s", tc.tp, diff)
		}
		// Async scheduling stays on (vllm.py:1196-1207 excepts
		// draft_model), as 0.21.0 runs it by default.
		if !r.Async {
			t.Errorf("TP %d: async scheduling off, want it kept", tc.tp)
		}
	}
	// With a checkpoint beside config.json its headers are read, as a
	// target's are (hub.Resolver.Load): Llama-3.2-1B's published tensors,
	// in bf16, give the same 2488406016 B at TP 1.
	ck := []draftTensor{{"model.embed_tokens.weight", "BF16", []uint64{128256, 2048}}, {"model.norm.weight", "BF16", []uint64{2048}}}
	for i := range 16 {
		p := "model.layers." + itoa(uint64(i)) + "."
		ck = append(ck,
			draftTensor{p + "self_attn.q_proj.weight", "BF16", []uint64{2048, 2048}}, draftTensor{p + "self_attn.k_proj.weight", "BF16", []uint64{512, 2048}},
			draftTensor{p + "self_attn.v_proj.weight", "BF16", []uint64{512, 2048}}, draftTensor{p + "self_attn.o_proj.weight", "BF16", []uint64{2048, 2048}},
			draftTensor{p + "mlp.gate_proj.weight", "BF16", []uint64{8192, 2048}}, draftTensor{p + "mlp.up_proj.weight", "BF16", []uint64{8192, 2048}},
			draftTensor{p + "mlp.down_proj.weight", "BF16", []uint64{2048, 8192}},
			draftTensor{p + "input_layernorm.weight", "BF16", []uint64{2048}}, draftTensor{p + "post_attention_layernorm.weight", "BF16", []uint64{2048}})
	}
	withCk := writeDraftDir(t, draftModelConfig, ck)
	r, err := Resolve(Serve{MaxModelLen: 8192, EnforceEager: true, SpeculativeConfig: draftModelSpec(withCk)}, a, bigClass, v1Llama)
	if err != nil {
		t.Fatal(err)
	}
	if r.Spec.Draft.Model.Checkpoint == nil {
		t.Error("the draft's checkpoint was not attached")
	}
	if got := draftWeightBytes(a, &r, stageOf(&r, 0)); got != 2488406016 {
		t.Errorf("from the checkpoint: %d B, want 2488406016", got)
	}
}

// TestDraftModelSharedRotary: Qwen3-0.6B as the draft of Qwen3-32B, the
// most common pairing, in bf16 at TP 1. Both configs give head_dim 128,
// 40960 max_position_embeddings, rope_theta 1000000 and no rope_scaling,
// so get_rope's cache key (rotary_embedding/__init__.py:33-84 at d18bb7b)
// is equal and the draft takes the target's table: no table of its own.
//
// The draft's weights, per layer (28): qkv_proj 1024 inputs x (16 + 2 x
// 8) x 128 = 4096 outputs x 2 = 8388608; o_proj 2048 x 1024 x 2 =
// 4194304; gate_up 2 x 3072 x 1024 x 2 = 12582912; down 3072 x 1024 x 2
// = 6291456; two norms 2 x 1024 x 2 = 4096; q_norm and k_norm 2 x 128 x
// 2 = 512: 31461888, x 28 = 880932864. The embedding 151936 rows (2374 x
// 64, no padding) x 1024 x 2 = 311164928, the LM head tied to it; the
// final norm 2048. Total 1192099840 B.
//
// With rope_theta 10000 instead the key differs and the draft builds its
// own table of the target's shape: 40960 x 128 x 2 = 10485760 B more,
// 1202585600 B.
//
// The proposer's buffers at T = 8192 and B = 256 (TestDraftModelByHand's
// terms at the draft's hidden 1024): masks 16384; input_ids 32768;
// positions 65536; hidden_states and inputs_embeds 8192 x 1024 x 2 =
// 16777216 each; arange 32768; slot mapping 65536; backup 1024: 33768448.
func TestDraftModelSharedRotary(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-32B"]
	cfg, err := os.ReadFile("../../corpus/models/Qwen__Qwen3-0.6B.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(cfg, &m); err != nil {
		t.Fatal(err)
	}
	m["rope_theta"] = 10000
	other, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, config string
		weights      uint64
	}{
		{"the target's rope", "../../corpus/models/Qwen__Qwen3-0.6B.json", 1192099840},
		{"another rope_theta", string(other), 1202585600},
	} {
		s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: draftModelSpec(writeDraftDir(t, tc.config, nil))}
		_, got := draftItems(t, a, s)
		want := map[string]uint64{"draft_weights": tc.weights, "draft_buffers": 33768448}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// The shared table is taken out of a copy: the cached load of the
	// draft keeps its one table, for a target whose key differs.
	da := shipped(t)["Qwen__Qwen3-0.6B"]
	if got := draftModelOwnRotary(da, a); len(got.Rotary) != 0 || got == da || len(da.Rotary) != 1 {
		t.Errorf("draftModelOwnRotary: %d table(s) left, the draft's own %d (want 0 of a copy, and 1)", len(got.Rotary), len(da.Rotary))
	}
}

// TestDraftModelKV: the draft's 16 layers keep pages of 16 x 2 x 8 x 64 x
// 2 = 32768 B beside the target's 32 of 16 x 2 x 8 x 128 x 2 = 65536 B:
// all full attention of one block size but two page sizes, one
// UniformTypeKVCacheSpecs group whose block costs 32 x 65536 + 16 x 32768
// = 2621440 B (kv_cache_utils.py get_kv_cache_groups).
func TestDraftModelKV(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: draftModelSpec(WriteDraftModel(t))}
	if diff := cmp.Diff(kvShape{1, 48, true, 2621440, 1}, kvShapeOf(t, a, s)); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
}

// TestDraftModelRefusals: what vLLM refuses, and what membudget does not
// size, is refused naming the flag.
func TestDraftModelRefusals(t *testing.T) {
	models := shipped(t)
	dir := WriteDraftModel(t)
	qwen := writeDraftDir(t, "../../corpus/models/Qwen__Qwen3-0.6B.json", nil)
	moe := writeDraftDir(t, "../../corpus/models/Qwen__Qwen3-30B-A3B.json", nil)
	named := t.TempDir() + "/my-eagle-draft"
	writeDraftAt(t, named, draftModelConfig)
	for _, tc := range []struct {
		name, model string
		s           Serve
		flag, says  string
	}{
		{"another vocabulary", "meta-llama__Llama-3.1-8B-Instruct", Serve{EnforceEager: true, SpeculativeConfig: draftModelSpec(qwen)}, "speculative-config", "same vocabulary size"},
		{"a draft TP of 1 under TP 2", "meta-llama__Llama-3.1-8B-Instruct",
			Serve{TensorParallelSize: 2, EnforceEager: true, SpeculativeConfig: `{"method": "draft_model", "model": "` + dir + `", "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1}`}, "speculative-config", "must be the same. Got 1 and 2"},
		{"a name vLLM reads as EAGLE", "meta-llama__Llama-3.1-8B-Instruct", Serve{EnforceEager: true, SpeculativeConfig: draftModelSpec(named)}, "speculative-config", `contains "eagle-"`},
		{"experts", "Qwen__Qwen3-8B", Serve{EnforceEager: true, SpeculativeConfig: draftModelSpec(moe)}, "speculative-config", "architecture Qwen3MoeForCausalLM"},
		{"no tokens", "meta-llama__Llama-3.1-8B-Instruct", Serve{EnforceEager: true, SpeculativeConfig: `{"method": "draft_model", "model": "` + dir + `"}`}, "speculative-config", "n_predict"},
		{"graphs", "meta-llama__Llama-3.1-8B-Instruct", Serve{SpeculativeConfig: draftModelSpec(dir)}, "speculative-config", "pass --enforce-eager"},
		{"a Hub id", "meta-llama__Llama-3.1-8B-Instruct", Serve{EnforceEager: true, SpeculativeConfig: `{"model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 3}`}, "speculative-config", "from the Hugging Face Hub, not read"},
		// max_num_batched_tokens must exceed the draft's one extra slot.
		{"one batched token", "meta-llama__Llama-3.1-8B-Instruct", Serve{MaxNumBatchedTokens: 1, MaxNumSeqs: 1, ChunkedPrefill: engine.On, EnforceEager: true, SpeculativeConfig: draftModelSpec(dir)}, "max-num-batched-tokens", "not have enough slots"},
		{"pipeline parallel", "meta-llama__Llama-3.1-8B-Instruct", Serve{PipelineParallelSize: 2, EnforceEager: true, SpeculativeConfig: draftModelSpec(dir)}, "pipeline-parallel-size", "pipeline parallelism"},
	} {
		tc.s.MaxModelLen = 8192
		_, err := Resolve(tc.s, models[tc.model], bigClass, v1Llama)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != tc.flag || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v, want --%s saying %q", tc.name, err, tc.flag, tc.says)
		}
	}
	// Without "method", a draft's path makes the method draft_model
	// (speculative.py:741-750), sized as such: TestDraftModelByHand's
	// weights and buffers at TP 1.
	_, got := draftItems(t, models["meta-llama__Llama-3.1-8B-Instruct"], Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true,
		SpeculativeConfig: `{"model": "` + dir + `", "num_speculative_tokens": 3}`})
	if diff := cmp.Diff(map[string]uint64{"draft_weights": 2488406016, "draft_buffers": 67322880}, got); diff != "" {
		t.Errorf("a draft without method (-want +got):\n%s", diff)
	}
}
