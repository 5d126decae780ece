package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// eagleCheckpoint is the tensors EagleLlamaForCausalLM loads of an EAGLE-1
// Llama-3 draft (llama_eagle.py: its one decoder layer, the layer-0
// input_layernorm removed, fc of 2 x 4096 inputs without a bias; no
// embed_tokens, so the target's is shared, and no lm_head).
var eagleCheckpoint = []draftTensor{
	{"fc.weight", "F16", []uint64{4096, 8192}},
	{"layers.0.mlp.down_proj.weight", "F16", []uint64{4096, 14336}},
	{"layers.0.mlp.gate_proj.weight", "F16", []uint64{14336, 4096}},
	{"layers.0.mlp.up_proj.weight", "F16", []uint64{14336, 4096}},
	{"layers.0.post_attention_layernorm.weight", "F16", []uint64{4096}},
	{"layers.0.self_attn.k_proj.weight", "F16", []uint64{1024, 4096}},
	{"layers.0.self_attn.o_proj.weight", "F16", []uint64{4096, 4096}},
	{"layers.0.self_attn.q_proj.weight", "F16", []uint64{4096, 4096}},
	{"layers.0.self_attn.v_proj.weight", "F16", []uint64{1024, 4096}},
}

// eagleConfig is the shipped EAGLE-1 draft config (corpus/models/drafts).
const eagleConfig = "../../corpus/models/drafts/SafeAILab__EAGLE__EAGLE-LLaMA3-Instruct-8B.json"

// WriteEagleDraft writes the shipped EAGLE-1 draft with a header-only
// checkpoint into a temporary directory, for the contract tests.
func WriteEagleDraft(t testing.TB) string {
	return writeDraftDir(t, eagleConfig, eagleCheckpoint)
}

// eagleSpec is an eagle --speculative-config of k = 3 on the draft in dir.
func eagleSpec(dir string) string {
	return `{"method": "eagle", "model": "` + dir + `", "num_speculative_tokens": 3}`
}

// TestReadEagleDraft: the shipped EAGLE-1 config as vLLM builds it: head_dim
// 4096 / 32 = 128 (LlamaConfig's default), fc of 2 x 4096 inputs, "bias":
// false (no attention biases), the target's embedding and LM head, and its
// own rotary table: max_position_embeddings 2048 against the target's
// 131072 (llamaDraftRope).
func TestReadEagleDraft(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagleDraft(t)
	got, err := readDraft(dir, "eagle", a)
	if err != nil {
		t.Fatal(err)
	}
	want := Draft{Method: "eagle", Path: dir, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128, Intermediate: 14336, Layers: 1,
		Vocab: 128256, DraftVocab: 128256, FCInput: 8192, RotaryRows: 2048, RotaryDim: 128}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("draft (-want +got):\n%s", diff)
	}
}

// TestEagleWeightsByHand: the EAGLE-1 draft's tensors on a GPU, in bf16
// (Llama-3.1-8B-Instruct's dtype, which the draft takes), each by hand.
//
// TP 1: qkv_proj 4096 inputs x (32 + 2 x 8) x 128 = 6144 outputs x 2 =
// 50331648; o_proj 4096 x 4096 x 2 = 33554432; gate_up 2 x 14336 x 4096 x
// 2 = 234881024; down 14336 x 4096 x 2 = 117440512; post_attention norm
// 4096 x 2 = 8192 (layer 0 has no input norm); fc 8192 x 4096 x 2 =
// 67108864; no final norm, embedding or head: 503324672 B (480.0 MiB);
// its own rotary table 524288 (llamaDraftRope, whole on each rank).
//
// TP 2: qkv 4096 x (16 + 2 x 4) x 128 x 2 = 25165824; o 2048 x 4096 x 2 =
// 16777216; gate_up 2 x 7168 x 4096 x 2 = 117440512; down 7168 x 4096 x 2
// = 58720256; norm 8192; fc (replicated) 67108864: 285220864 B.
func TestEagleWeightsByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagleDraft(t)
	for _, tc := range []struct {
		tp, want uint64
	}{{1, 503324672 + llamaDraftRope}, {2, 285220864 + llamaDraftRope}} {
		s := Serve{TensorParallelSize: tc.tp, MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagleSpec(dir)}
		_, got := draftItems(t, a, s)
		// The proposer's buffers are EAGLE-3's (llm_base_proposer.py:
		// 142-262, pass_hidden_states_to_model: no extra slots): 8192 x 4
		// + 8192 x 8 + 2 x 8192 x 4096 x 2 + max(257, 8192) x 4 + 8192 x 8
		// + 256 x 4 = 32768 + 65536 + 134217728 + 32768 + 65536 + 1024 =
		// 134415360 B.
		want := map[string]uint64{"draft_weights": tc.want, "draft_buffers": 134415360}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("TP %d (-want +got):\n%s", tc.tp, diff)
		}
	}
	// "bias": true gives qkv_proj and o_proj biases (llama.py:265-269):
	// 6144 x 2 + 4096 x 2 = 20480 B more at TP 1; a second layer adds a
	// layer of 50331648 + 33554432 + 234881024 + 117440512 + 2 x 8192
	// (both its norms) = 436224000 B; both configs leave out
	// max_position_embeddings, so LlamaConfig's 2048 rows make the table
	// (llamaDraftRope).
	for _, tc := range []struct {
		name, config string
		want         uint64
	}{
		{"bias", `{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 1, "vocab_size": 128256, "bias": true}`, 503324672 + llamaDraftRope + 20480},
		{"two layers", `{"architectures": ["EagleLlamaForCausalLM"], "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 2, "vocab_size": 128256}`, 503324672 + llamaDraftRope + 436224000},
	} {
		if n := draftBytesTP1(t, a, "eagle", tc.config, eagleCheckpoint); n != tc.want {
			t.Errorf("%s: %d B, want %d", tc.name, n, tc.want)
		}
	}
}

// TestEagleDraftKV: the EAGLE-1 draft's one attention layer has the
// target's spec (8 KV heads of 128), so it joins the target's group as
// EAGLE-3's does: 33 layers of a 65536 B page (16 x 2 x 8 x 128 x 2).
func TestEagleDraftKV(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagleSpec(WriteEagleDraft(t))}
	got := kvShapeOf(t, a, s)
	if diff := cmp.Diff(kvShape{1, 33, false, 65536, 33}, got); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
}

// TestEagleDraftRefusals: what vLLM would not load, or membudget cannot
// tell from the headers, is refused naming the flag.
func TestEagleDraftRefusals(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	withHead := append([]draftTensor{{"lm_head.weight", "F16", []uint64{128256, 4096}}}, eagleCheckpoint...)
	sameEmbed := append([]draftTensor{{"embed_tokens.weight", "F16", []uint64{128256, 4096}}}, eagleCheckpoint...)
	for _, tc := range []struct {
		name, spec, says string
	}{
		{"an lm_head", eagleSpec(writeDraftDir(t, eagleConfig, withHead)), "has no lm_head"},
		{"the target's embedding", eagleSpec(writeDraftDir(t, eagleConfig, sameEmbed)), "values equal the target's"},
		{"an EAGLE-3 draft", eagleSpec(WriteEagle3Draft(t)), "EAGLE Llama draft"},
		{"mlp_bias", eagleSpec(writeDraftDir(t, `{"architectures": ["LlamaForCausalLM"], "mlp_bias": true}`, eagleCheckpoint)), `"mlp_bias"`},
		{"a Hub id", `{"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}`, "from the Hugging Face Hub, not read"},
		{"no tokens", `{"method": "eagle", "model": "` + WriteEagleDraft(t) + `"}`, "num_speculative_tokens must be provided"},
		// EAGLE-1's model sets no target_layer_count (llama_eagle.py), so
		// its one layer, layers.32 after Llama-3.1-8B's 32, reads
		// layer_types[32]: a one-entry list fails vLLM's assert
		// (llama.py:187-198), where EAGLE-3's would read entry 0.
		{"layer_types read at the target's index", eagleSpec(writeDraftDir(t, strings.Replace(string(mustRead(t, eagleConfig)), `"vocab_size"`, `"layer_types": ["full_attention"], "vocab_size"`, 1), eagleCheckpoint)), "vLLM asserts unless it has 33"},
	} {
		_, err := Resolve(Serve{MaxModelLen: 8192, EnforceEager: true, SpeculativeConfig: tc.spec}, a, bigClass, v1Llama)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "speculative-config" || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v, want --speculative-config saying %q", tc.name, err, tc.says)
		}
	}
}

// TestEagleDraftLayerTypes: an EAGLE-1 draft's layer reads layer_types at
// its own index, 32 after Llama-3.1-8B's 32 layers (llama_eagle.py sets no
// target_layer_count): 33 entries of full attention, the last the draft's,
// size it as without the key; 32 sliding then one full, the same (entry 32
// is what vLLM reads).
func TestEagleDraftLayerTypes(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	base := string(mustRead(t, eagleConfig))
	plain, err := readDraft(WriteEagleDraft(t), "eagle", a)
	if err != nil {
		t.Fatal(err)
	}
	full := `"full_attention"` + strings.Repeat(`, "full_attention"`, 32)
	slid := strings.Repeat(`"sliding_attention", `, 32) + `"full_attention"`
	for _, types := range []string{full, slid} {
		dir := writeDraftDir(t, strings.Replace(base, `"vocab_size"`, `"sliding_window": 4096, "layer_types": [`+types+`], "vocab_size"`, 1), eagleCheckpoint)
		d, err := readDraft(dir, "eagle", a)
		if err != nil {
			t.Errorf("33 entries: %v, want it read", err)
			continue
		}
		plain.Path = d.Path
		if diff := cmp.Diff(plain, d); diff != "" {
			t.Errorf("33 entries: draft (-without +with):\n%s", diff)
		}
	}
}

// TestEagle3AttentionBias: an EAGLE-3 draft with attention_bias has a
// qkv_proj bias (Eagle3's rebuilt qkv_proj, llama_eagle3.py:53-64) and an
// o_proj bias (the base LlamaDecoderLayer's bias_o_proj, llama.py:
// 265-269): (32 + 2 x 8) x 128 x 2 = 12288 and 4096 x 2 = 8192 B beyond
// the shipped draft's 849635008 + 524288 B at TP 1 (TestDraftWeightsByHand:
// the config leaves out max_position_embeddings, so LlamaConfig's 2048
// rows make the same rotary table, llamaDraftRope); "bias" alone gives
// the o_proj bias only.
func TestEagle3AttentionBias(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	base := `{"architectures": ["LlamaForCausalLMEagle3"], "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 1, "vocab_size": 128256, "draft_vocab_size": 31960`
	for _, tc := range []struct {
		name, extra string
		want        uint64
	}{
		{"attention_bias", `, "attention_bias": true}`, 849635008 + llamaDraftRope + 12288 + 8192},
		{"bias", `, "bias": true}`, 849635008 + llamaDraftRope + 8192},
	} {
		if n := draftBytesTP1(t, a, "eagle3", base+tc.extra, eagle3Checkpoint); n != tc.want {
			t.Errorf("%s: %d B, want %d", tc.name, n, tc.want)
		}
	}
}
