package vllm

import (
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
	"membudget/model"
)

func TestDeriveMaxLen(t *testing.T) {
	type want struct {
		Limit, Default uint64
		Key            string
	}
	mpe := func(n uint64) map[string]uint64 { return map[string]uint64{"max_position_embeddings": n} }
	tests := []struct {
		name  string
		typ   string // model_type
		keys  map[string]uint64
		rope  *model.RopeScaling
		want  want
		error string
	}{
		{"max_position_embeddings", "llama", mpe(131072), nil, want{131072, 131072, "max_position_embeddings"}, ""},
		// The smallest key wins: ChatGLM-style seq_length below the rest.
		{"smallest key", "llama", map[string]uint64{"max_position_embeddings": 8192, "seq_length": 4096}, nil, want{4096, 4096, "seq_length"}, ""},
		// Command-R: model_max_length replaces the smaller key.
		{"model_max_length replaces", "cohere", map[string]uint64{"max_position_embeddings": 8192, "model_max_length": 131072}, nil, want{131072, 131072, "model_max_length"}, ""},
		// Linear and dynamic scaling multiply: 4096 x 4.
		{"linear", "llama", mpe(4096), &model.RopeScaling{Type: "linear", Factor: 4}, want{16384, 16384, "max_position_embeddings"}, ""},
		{"dynamic", "llama", mpe(4096), &model.RopeScaling{Type: "dynamic", Factor: 2.5}, want{10240, 10240, "max_position_embeddings"}, ""},
		// YaRN scales its original length: gpt-oss's 4096 x 32 = 131,072;
		// Qwen's 32,768 x 4 over a max_position_embeddings of 32,768.
		{"yarn gpt-oss", "gpt_oss", mpe(131072), &model.RopeScaling{Type: "yarn", Factor: 32, OriginalMaxPosition: 4096}, want{131072, 131072, "max_position_embeddings"}, ""},
		{"yarn qwen", "qwen3", mpe(32768), &model.RopeScaling{Type: "yarn", Factor: 4, OriginalMaxPosition: 32768}, want{131072, 131072, "max_position_embeddings"}, ""},
		// DeepSeek-V3's config names its rope "yarn" (type, as transformers
		// reads it): 4096 x 40 = 163,840, its max_position_embeddings; vLLM
		// renames it deepseek_yarn only in the model's attention, after the
		// length is derived (vllm/model_executor/models/deepseek_v2.py:524-529
		// at d18bb7b).
		{"yarn deepseek-v3", "deepseek_v3", mpe(163840), &model.RopeScaling{Type: "yarn", Factor: 40, OriginalMaxPosition: 4096}, want{163840, 163840, "max_position_embeddings"}, ""},
		// A config that names deepseek_yarn itself (DeepSeek-V4's
		// rope_parameters) takes the generic rule at every release sized:
		// only "yarn" starts from original_max_position_embeddings
		// (vllm/config/model.py:2406-2423 at d18bb7b, unchanged since #1264,
		// 2023), so 163,840 x 40 = 6,553,600, not 4096 x 40.
		{"deepseek_yarn multiplies the key", "deepseek_v4", mpe(163840), &model.RopeScaling{Type: "deepseek_yarn", Factor: 40, OriginalMaxPosition: 4096}, want{6553600, 6553600, "max_position_embeddings"}, ""},
		// Without a factor, it is 1: DeepSeek-V4's 1,048,576.
		{"deepseek_yarn without a factor", "deepseek_v4", mpe(1048576), &model.RopeScaling{Type: "deepseek_yarn"}, want{1048576, 1048576, "max_position_embeddings"}, ""},
		// llama3 and longrope do not multiply; LongRoPE defaults to its
		// original length (Phi-3-mini-128k: 4096 of 131,072).
		{"llama3", "llama", mpe(131072), &model.RopeScaling{Type: "llama3", Factor: 8, OriginalMaxPosition: 8192}, want{131072, 131072, "max_position_embeddings"}, ""},
		{"longrope", "phi3", mpe(131072), &model.RopeScaling{Type: "longrope", OriginalMaxPosition: 4096}, want{131072, 4096, "max_position_embeddings"}, ""},
		// Gemma 3's length is already scaled.
		{"gemma3 skips rope", "gemma3", mpe(131072), &model.RopeScaling{Type: "linear", Factor: 8}, want{131072, 131072, "max_position_embeddings"}, ""},
		// A null factor is 1.0, as vLLM falls back.
		{"no factor", "llama", mpe(8192), &model.RopeScaling{Type: "linear"}, want{8192, 8192, "max_position_embeddings"}, ""},
		{"no key: 2048", "llama", map[string]uint64{}, nil, want{2048, 2048, "(none: vLLM assumes 2048)"}, ""},
		{"NaN factor", "llama", mpe(8192), &model.RopeScaling{Type: "linear", Factor: math.NaN()}, want{}, "not a scaling factor"},
		{"yarn without its original", "qwen3", mpe(32768), &model.RopeScaling{Type: "yarn", Factor: 4}, want{}, "no original_max_position_embeddings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &model.Arch{ModelType: tt.typ, MaxLenKeys: tt.keys, RopeScaling: tt.rope}
			d, err := deriveMaxLen(a)
			if tt.error != "" {
				if err == nil || !strings.Contains(err.Error(), tt.error) {
					t.Fatalf("err %v, want one saying %q", err, tt.error)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, want{d.limit, d.def, d.key}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestMaxModelLenAgainstDerivedLimit: Resolve takes the derived default and
// refuses a longer length with the limit and its key, unless
// --allow-long-max-model-len, or the length is within model_max_length.
func TestMaxModelLenAgainstDerivedLimit(t *testing.T) {
	scaled := func(keys map[string]uint64, rope *model.RopeScaling) *model.Arch {
		return archFrom(t, "scaled", 4096, 32, 32, 8, 128, 4096, func(a *model.Arch) {
			a.ModelType, a.MaxLenKeys, a.RopeScaling = "llama", keys, rope
		})
	}
	linear := scaled(map[string]uint64{"max_position_embeddings": 4096}, &model.RopeScaling{Type: "linear", Factor: 4})
	r, err := Resolve(Serve{}, linear, testClass(false), current)
	if err != nil || r.MaxModelLen != 16384 || r.MaxLenKey != "max_position_embeddings" ||
		r.Sources.Map()["max-model-len"] != "the model's maximum as vLLM derives it: max_position_embeddings=4096 in the model's config.json, rope_scaling linear: 4096 x factor 4" {
		t.Errorf("default %d (%s), %v; source %q", r.MaxModelLen, r.MaxLenKey, err, r.Sources.Map()["max-model-len"])
	}
	_, err = Resolve(Serve{MaxModelLen: 16385}, linear, testClass(false), current)
	want := &engine.SettingError{Flag: "max-model-len", Value: "16385", Reason: "above the derived max_model_len 16384 (max_position_embeddings=4096 in the model's config.json, rope_scaling linear: 4096 x factor 4); set --allow-long-max-model-len, vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, to accept it"}
	if diff := cmp.Diff(error(want), err); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := Resolve(Serve{MaxModelLen: 16385, AllowLongMaxModelLen: true}, linear, testClass(false), current); err != nil {
		t.Errorf("--allow-long-max-model-len: %v", err)
	}
	// A factor below 1 leaves model_max_length above the limit: vLLM lets
	// a length up to it through (vllm/config/model.py:2450-2453).
	shrunk := scaled(map[string]uint64{"max_position_embeddings": 8192, "model_max_length": 8192}, &model.RopeScaling{Type: "linear", Factor: 0.5})
	if _, err := Resolve(Serve{MaxModelLen: 6000}, shrunk, testClass(false), current); err != nil {
		t.Errorf("6000 within model_max_length 8192: %v", err)
	}
	if _, err := Resolve(Serve{MaxModelLen: 9000}, shrunk, testClass(false), current); err == nil {
		t.Error("9000 above model_max_length 8192 accepted")
	}
	longrope := scaled(map[string]uint64{"max_position_embeddings": 131072}, &model.RopeScaling{Type: "longrope", OriginalMaxPosition: 4096})
	if r, err := Resolve(Serve{}, longrope, testClass(false), current); err != nil || r.MaxModelLen != 4096 || r.MaxLenLimit != 131072 {
		t.Errorf("longrope: default %d of %d, %v; want 4096 of 131,072", r.MaxModelLen, r.MaxLenLimit, err)
	}
}

// TestMaxLenWithoutKeyExplained: a config with none of the length keys is
// explained as vLLM's warning puts it, not as a key of the file.
func TestMaxLenWithoutKeyExplained(t *testing.T) {
	d := maxLenDerivation{limit: defaultMaxLen, key: noLengthKey, keyed: defaultMaxLen}
	want := "the model's config.json has none of the length keys, and vLLM assumes 2048 (vllm/config/model.py:2382-2388 at d18bb7b)"
	if got := d.explain(); got != want {
		t.Errorf("explain() = %q, want %q", got, want)
	}
}
