package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// TestRopeKeyShipped: the part of get_rope's cache key the shipped configs
// give, read as their text (rotary_embedding/__init__.py:33-84 at
// d18bb7b).
func TestRopeKeyShipped(t *testing.T) {
	archs := loadShipped(t)
	for _, tt := range []struct {
		name string
		want RopeKey
	}{
		// rope_theta 500000.0 beside a llama3 rope_scaling, kept as its
		// compact text.
		{"meta-llama__Llama-3.1-8B-Instruct", RopeKey{MaxPosition: 131072, Theta: 500000,
			Params: `rope_scaling={"factor":8.0,"low_freq_factor":1.0,"high_freq_factor":4.0,"original_max_position_embeddings":8192,"rope_type":"llama3"}`}},
		// rope_scaling null: no parameters.
		{"Qwen__Qwen3-4B", RopeKey{MaxPosition: 40960, Theta: 1000000}},
	} {
		if diff := cmp.Diff(tt.want, archs[tt.name].RopeKey); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestDraftRotary: a draft config's table, read as LlamaConfig gives it:
// max_position_embeddings rows (2048 where left out), four times for
// M-RoPE (mrope.py:274-280), YaRN's original x factor
// (yarn_scaling_rope.py:75-85); a rotary dim of head_dim x
// partial_rotary_factor.
func TestDraftRotary(t *testing.T) {
	for _, tt := range []struct {
		name, config string
		want         RotaryTable
		key          RopeKey
	}{
		// LlamaConfig's defaults: 2048 rows, rope_theta 10000.
		{"LlamaConfig's defaults", `{"hidden_size": 4096}`, RotaryTable{Name: "rotary_emb", Positions: 2048, Dim: 128}, RopeKey{Theta: 10000}},
		{"M-RoPE", `{"max_position_embeddings": 128000, "rope_theta": 1000000, "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}}`,
			RotaryTable{Name: "rotary_emb", Positions: 4 * 128000, Dim: 128},
			RopeKey{MaxPosition: 128000, Theta: 1000000, Params: `rope_scaling={"type":"mrope","mrope_section":[16,24,24]}`}},
		// YaRN of factor 4 over 32768 original positions: 131072 rows; a
		// half-turned head: 64.
		{"YaRN, partial", `{"max_position_embeddings": 131072, "partial_rotary_factor": 0.5, "rope_parameters": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768, "rope_theta": 10000}}`,
			RotaryTable{Name: "rotary_emb", Positions: 131072, Dim: 64},
			RopeKey{MaxPosition: 131072, Theta: 10000, PartialRotary: 0.5, Params: `rope_parameters={"rope_type":"yarn","factor":4.0,"original_max_position_embeddings":32768,"rope_theta":10000}`}},
	} {
		got, key, err := DraftRotary("config.json", []byte(tt.config), 128)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s table (-want +got):\n%s", tt.name, diff)
		}
		if diff := cmp.Diff(tt.key, key); diff != "" {
			t.Errorf("%s key (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, tt := range []struct{ name, config, key string }{
		{"a factor past 1", `{"partial_rotary_factor": 1.5}`, "partial_rotary_factor"},
		{"an unknown rope", `{"rope_scaling": {"rope_type": "xpos"}}`, "rope_scaling.rope_type"},
		{"no rows", `{"max_position_embeddings": 0}`, "max_position_embeddings"},
		// Named by the key that holds them.
		{"nested by layer type", `{"rope_parameters": {"full_attention": {"rope_type": "default"}, "sliding_attention": {"rope_type": "default"}}}`, "rope_parameters"},
		{"rope_scaling nested by layer type", `{"rope_scaling": {"full_attention": {"rope_type": "default"}, "sliding_attention": {"rope_type": "default"}}}`, "rope_scaling"},
		{"not an object", `[1]`, ""},
		// Not LlamaConfig's 10000: an error naming the key, at the top
		// level and inside the rope parameters.
		{"rope_theta not a number", `{"rope_theta": "1e6"}`, "rope_theta"},
		{"rope_parameters' rope_theta not a number", `{"rope_parameters": {"rope_type": "default", "rope_theta": "1e6"}}`, "rope_parameters.rope_theta"},
	} {
		_, _, err := DraftRotary("config.json", []byte(tt.config), 128)
		if err == nil || !strings.Contains(err.Error(), tt.key) {
			t.Errorf("%s: got %v, want an error naming %q", tt.name, err, tt.key)
		}
	}
}

// TestRopeKeySameTable: a key is one table with itself only where its
// rope_theta is given and it has no dual-chunk config; any other field
// that differs makes two.
func TestRopeKeySameTable(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := RopeKey{
			MaxPosition:   rapid.Uint64Range(0, 1<<20).Draw(t, "max"),
			Theta:         float64(rapid.IntRange(0, 3).Draw(t, "theta")) * 10000,
			Params:        rapid.SampledFrom([]string{"", `rope_scaling={"rope_type":"default"}`}).Draw(t, "params"),
			PartialRotary: rapid.SampledFrom([]float64{0, 0.5}).Draw(t, "partial"),
			DualChunk:     rapid.Bool().Draw(t, "dual"),
		}
		if got, want := k.SameTable(k), k.Theta != 0 && !k.DualChunk; got != want {
			t.Fatalf("%+v with itself: %v, want %v", k, got, want)
		}
		o := k
		switch rapid.IntRange(0, 3).Draw(t, "field") {
		case 0:
			o.MaxPosition++
		case 1:
			o.Theta++
		case 2:
			o.Params += " "
		case 3:
			o.PartialRotary += 0.25
		}
		if k.SameTable(o) || o.SameTable(k) {
			t.Fatalf("%+v and %+v taken as one table", k, o)
		}
	})
}
