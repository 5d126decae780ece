package vllm

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model"
)

// angelSlimDraft is AngelSlim's Qwen3-4B EAGLE-3 draft config, whose rope
// is its target's: max_position_embeddings 40960, rope_theta 1000000,
// rope_scaling null, head_dim 128, as Qwen3-4B's config.json gives them.
const angelSlimDraft = "../../corpus/models/drafts/Tencent__AngelSlim__qwen3-4b-eagle3.json"

// TestLlamaDraftRotary: a llama-typed draft's own rotary table, by hand,
// where get_rope's key (head size, rotary dim, max position, the rope
// parameters' items, dtype: rotary_embedding/__init__.py:33-84) differs
// from its target's, and nothing where it is equal. Every table is bf16
// (the targets' dtype), rows x rotary dim x 2 B.
func TestLlamaDraftRotary(t *testing.T) {
	models := shipped(t)
	read := func(t *testing.T, file string) string {
		t.Helper()
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	angel := read(t, angelSlimDraft)
	// edit replaces old, which must occur once in the AngelSlim config.
	edit := func(t *testing.T, old, new string) string {
		t.Helper()
		if strings.Count(angel, old) != 1 {
			t.Fatalf("%q is not once in %s", old, angelSlimDraft)
		}
		return strings.Replace(angel, old, new, 1)
	}
	for _, tc := range []struct {
		name, target, config string
		headDim              uint64
		bytes                uint64
	}{
		// SpecForge's Llama-3.1 draft: max_position_embeddings 2048
		// against Llama-3.1-8B-Instruct's 131072 (and no rope_theta, so
		// LlamaConfig's 10000 against 500000): its own table, 2048 x 128
		// x 2 = 524,288 B.
		{"SpecForge Llama-3.1", "meta-llama__Llama-3.1-8B-Instruct", read(t, eagle3Config), 128, 524288},
		// AngelSlim's draft on Qwen3-4B: every part of the key equal, the
		// target's table is shared: nothing.
		{"AngelSlim on Qwen3-4B", "Qwen__Qwen3-4B", angel, 128, 0},
		// Its max_position_embeddings lowered to 32768: 32768 x 128 x 2 =
		// 8,388,608 B.
		{"another max position", "Qwen__Qwen3-4B", edit(t, `"max_position_embeddings": 40960`, `"max_position_embeddings": 32768`), 128, 8388608},
		// rope_theta left out: LlamaConfig's default (10000) is not
		// Qwen3-4B's 1000000: 40960 x 128 x 2 = 10,485,760 B.
		{"no rope_theta", "Qwen__Qwen3-4B", edit(t, `"rope_theta": 1000000,`, ``), 128, 10485760},
		// rope_scaling {"rope_type": "default"}: transformers appends
		// rope_theta after it, where the target's dict has rope_theta
		// then rope_type, so the items differ in order: 10,485,760 B.
		{"a rope_type the target leaves out", "Qwen__Qwen3-4B", edit(t, `"rope_scaling": null`, `"rope_scaling": {"rope_type": "default"}`), 128, 10485760},
		// partial_rotary_factor 0.5: rotary dim 64, not 128: 40960 x 64 x
		// 2 = 5,242,880 B.
		{"half the head turned", "Qwen__Qwen3-4B", edit(t, `"rope_theta": 1000000,`, `"rope_theta": 1000000, "partial_rotary_factor": 0.5,`), 128, 5242880},
		// The Qwen2.5-VL draft's legacy "type" key stays in its rope
		// parameters: M-RoPE's 4 x 128000 rows x 128 x 2 = 131,072,000 B.
		{"SpecForge Qwen2.5-VL", "Qwen__Qwen2.5-VL-7B-Instruct", read(t, qwen25VLDraftConfig), 128, 131072000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := models[tc.target]
			if a == nil {
				t.Fatalf("no shipped %s", tc.target)
			}
			rows, dim, err := llamaDraftRotary("config.json", []byte(tc.config), tc.headDim, a)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.bytes, rows*dim*2); diff != "" {
				t.Errorf("table bytes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestLlamaDraftRotaryDefaultTheta: a llama target and a draft that both
// leave rope_theta out take LlamaConfig's 10000 alike (appended where a
// given one would be), so a draft of the target's length shares its
// table; one that gives 10000 itself too; one of another theta builds its
// own, 128 rows x 16 x 2 = 4,096 B.
func TestLlamaDraftRotaryDefaultTheta(t *testing.T) {
	const target = `{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 256, "max_position_embeddings": 128, "torch_dtype": "bfloat16"}`
	a, err := model.ParseConfig("target.json", []byte(target))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, draft string
		bytes       uint64
	}{
		{"neither gives it", `{"max_position_embeddings": 128}`, 0},
		{"the draft gives 10000", `{"max_position_embeddings": 128, "rope_theta": 10000.0}`, 0},
		{"the draft gives 500000", `{"max_position_embeddings": 128, "rope_theta": 500000.0}`, 4096},
	} {
		rows, dim, err := llamaDraftRotary("config.json", []byte(tc.draft), 16, a)
		if err != nil {
			t.Fatal(err)
		}
		if got := rows * dim * 2; got != tc.bytes {
			t.Errorf("%s: %d B, want %d", tc.name, got, tc.bytes)
		}
	}
}

// TestAngelSlimDraftSharesRope: read as vLLM builds it, AngelSlim's draft
// on Qwen3-4B keeps no table of its own (row 362 of the observed log).
func TestAngelSlimDraftSharesRope(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-4B"]
	dir := writeDraftDir(t, angelSlimDraft, observedDrafts["AngelSlim/Qwen3-4B_eagle3"].tensors)
	d, err := readDraft(dir, "eagle3", a)
	if err != nil {
		t.Fatal(err)
	}
	if d.RotaryRows != 0 || d.RotaryDim != 0 {
		t.Errorf("RotaryRows, RotaryDim = %d, %d; want 0, 0 (the target's table)", d.RotaryRows, d.RotaryDim)
	}
}
