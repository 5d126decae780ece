package model

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shape is what a config must give, entered by hand from
// corpus/models/ARCHITECTURES.md and the published configs, not from the
// parser's output.
type shape struct {
	ModelType                            string
	Layers, Hidden, Heads, KVHeads, HDim uint64
	Vocab, MaxPos                        uint64
	Tied                                 bool
	SlidingLayers, Window                uint64
	MoELayers, Experts, TopK, MoEInter   uint64
	MLA                                  bool
	KVLatent                             uint64 // kv_lora_rank + qk_rope_head_dim
	Quant                                string
	Dtype                                string
}

var shippedShapes = map[string]shape{
	"Qwen__Qwen2.5-0.5B-Instruct":         {"qwen2", 24, 896, 14, 2, 64, 151936, 32768, true, 0, 0, 0, 0, 0, 0, false, 0, "", "float32"},
	"Qwen__Qwen2.5-1.5B-Instruct":         {"qwen2", 28, 1536, 12, 2, 128, 151936, 32768, true, 0, 0, 0, 0, 0, 0, false, 0, "", "float16"},
	"Qwen__Qwen2.5-7B-Instruct":           {"qwen2", 28, 3584, 28, 4, 128, 152064, 32768, false, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"Qwen__Qwen3-0.6B":                    {"qwen3", 28, 1024, 16, 8, 128, 151936, 40960, true, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"Qwen__Qwen3-8B":                      {"qwen3", 36, 4096, 32, 8, 128, 151936, 40960, false, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"Qwen__Qwen3-32B":                     {"qwen3", 64, 5120, 64, 8, 128, 151936, 40960, false, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"Qwen__Qwen3-32B-FP8":                 {"qwen3", 64, 5120, 64, 8, 128, 151936, 40960, false, 0, 0, 0, 0, 0, 0, false, 0, "fp8", "bfloat16"},
	"Qwen__Qwen3-30B-A3B":                 {"qwen3_moe", 48, 2048, 32, 4, 128, 151936, 40960, false, 0, 0, 48, 128, 8, 768, false, 0, "", "bfloat16"},
	"Qwen__Qwen3-30B-A3B-FP8":             {"qwen3_moe", 48, 2048, 32, 4, 128, 151936, 40960, false, 0, 0, 48, 128, 8, 768, false, 0, "fp8", "bfloat16"},
	"Qwen__Qwen3-235B-A22B":               {"qwen3_moe", 94, 4096, 64, 4, 128, 151936, 40960, false, 0, 0, 94, 128, 8, 1536, false, 0, "", "bfloat16"},
	"deepseek-ai__DeepSeek-V3":            {"deepseek_v3", 61, 7168, 128, 128, 192, 129280, 163840, false, 0, 0, 58, 256, 8, 2048, true, 576, "fp8", "bfloat16"},
	"deepseek-ai__DeepSeek-R1":            {"deepseek_v3", 61, 7168, 128, 128, 192, 129280, 163840, false, 0, 0, 58, 256, 8, 2048, true, 576, "fp8", "bfloat16"},
	"google__gemma-2-9b-it":               {"gemma2", 42, 3584, 16, 8, 256, 256000, 8192, true, 21, 4096, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"google__gemma-3-27b-it":              {"gemma3", 62, 5376, 32, 16, 128, 262208, 131072, true, 52, 1024, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"meta-llama__Llama-2-7b-hf":           {"llama", 32, 4096, 32, 32, 128, 32000, 4096, false, 0, 0, 0, 0, 0, 0, false, 0, "", "float32"},
	"meta-llama__Llama-3.1-8B-Instruct":   {"llama", 32, 4096, 32, 8, 128, 128256, 131072, false, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"meta-llama__Llama-3.1-70B-Instruct":  {"llama", 80, 8192, 64, 8, 128, 128256, 131072, false, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"meta-llama__Llama-3.2-1B-Instruct":   {"llama", 16, 2048, 32, 8, 64, 128256, 131072, true, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"meta-llama__Llama-3.2-3B-Instruct":   {"llama", 28, 3072, 24, 8, 128, 128256, 131072, true, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"microsoft__phi-4":                    {"phi3", 40, 5120, 40, 10, 128, 100352, 16384, false, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"mistralai__Mistral-7B-Instruct-v0.3": {"mistral", 32, 4096, 32, 8, 128, 32768, 32768, false, 0, 0, 0, 0, 0, 0, false, 0, "", "bfloat16"},
	"mistralai__Mixtral-8x7B-v0.1":        {"mixtral", 32, 4096, 32, 8, 128, 32000, 32768, false, 0, 0, 32, 8, 2, 14336, false, 0, "", "bfloat16"},
}

func shapeOf(a *Arch) shape {
	var moe uint64
	for _, l := range a.Layers {
		if l.MoE {
			moe++
		}
	}
	s := shape{a.ModelType, a.NumLayers, a.Hidden, a.Heads, a.KVHeads, a.HeadDim, a.Vocab, a.MaxPosition, a.TiedEmbeddings,
		a.SlidingLayers(), a.SlidingWindow, moe, a.Experts, a.ExpertsPerToken, a.MoEIntermediate, a.MLA, 0, a.Quant.Method, a.Dtype}
	if a.MLA {
		s.KVLatent = a.KVLoraRank + a.QKRopeHeadDim
	}
	return s
}

func loadShipped(t testing.TB) map[string]*Arch {
	t.Helper()
	files, err := filepath.Glob("../corpus/models/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs under corpus/models: %v", err)
	}
	archs := map[string]*Arch{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a, err := ParseConfig(f, data)
		if err != nil {
			t.Fatalf("%v", err)
		}
		archs[strings.TrimSuffix(filepath.Base(f), ".json")] = a
	}
	return archs
}

func TestShippedConfigsParse(t *testing.T) {
	archs := loadShipped(t)
	for name, want := range shippedShapes {
		a, ok := archs[name]
		if !ok {
			t.Errorf("%s is not shipped", name)
			continue
		}
		if diff := cmp.Diff(want, shapeOf(a)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for name := range archs {
		if _, ok := shippedShapes[name]; !ok {
			t.Errorf("%s is shipped but has no expected shape here", name)
		}
	}
	families := map[string]bool{}
	for _, a := range archs {
		families[a.ModelType] = true
	}
	for _, f := range []string{"llama", "mistral", "qwen2", "qwen3", "phi3", "mixtral", "qwen3_moe", "deepseek_v3", "gemma2", "gemma3"} {
		if !families[f] {
			t.Errorf("family %s has no shipped config", f)
		}
	}
}

func TestGemma3Layers(t *testing.T) {
	a := loadShipped(t)["google__gemma-3-27b-it"]
	for i, l := range a.Layers {
		// pattern 6: layers 5, 11, ..., 59 are global (10 of 62).
		if want := (i+1)%6 != 0; l.Sliding() != want {
			t.Errorf("layer %d sliding = %v, want %v", i, l.Sliding(), want)
		}
	}
	if diff := cmp.Diff([]uint64{131072, 131072 * 8}, a.RotaryPositions); diff != "" {
		t.Errorf("rotary tables: local unscaled and global x8 linear (-want +got):\n%s", diff)
	}
	if a.Vision == nil || a.Vision.Layers != 27 || a.Vision.Hidden != 1152 {
		t.Errorf("vision tower = %+v, want SigLIP 27 x 1152", a.Vision)
	}
}

func TestDeepSeekDenseLayers(t *testing.T) {
	a := loadShipped(t)["deepseek-ai__DeepSeek-V3"]
	for i, l := range a.Layers {
		if want := i >= 3; l.MoE != want { // first_k_dense_replace = 3
			t.Errorf("layer %d MoE = %v, want %v", i, l.MoE, want)
		}
	}
	if a.Quant.BlockN != 128 || a.Quant.BlockK != 128 || a.SharedExperts != 1 {
		t.Errorf("quant %+v shared %d, want fp8 128x128 blocks and 1 shared expert", a.Quant, a.SharedExperts)
	}
}

const llamaLike = `{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
 "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 1000, "max_position_embeddings": 256,
 "torch_dtype": "bfloat16"}`

func TestConfigErrors(t *testing.T) {
	unsupported, err := os.ReadFile("testdata/unsupported/openai__gpt-oss-20b.json")
	if err != nil {
		t.Fatal(err)
	}
	with := func(old, new string) string {
		if !strings.Contains(llamaLike, old) {
			t.Fatalf("%q not in llamaLike", old)
		}
		return strings.Replace(llamaLike, old, new, 1)
	}
	tests := []struct {
		name string
		doc  string
		want string
	}{
		{"real unsupported family", string(unsupported),
			`x.json: model_type: "gpt_oss": unknown model_type; known: deepseek_v2, deepseek_v3, gemma2, gemma3, gemma3_text, llama, mistral, mixtral, phi3, qwen2, qwen3, qwen3_moe`},
		{"no model_type", `{"hidden_size": 4}`, "x.json: model_type: missing (required)"},
		{"not json", `{"model_type": `, "x.json: not a JSON object: unexpected end of JSON input"},
		{"array", `[1]`, "x.json: not a JSON object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
		{"missing hidden", with(`"hidden_size": 64, `, ""), "x.json: hidden_size: missing (required)"},
		{"missing vocab", with(`"vocab_size": 1000, `, ""), "x.json: vocab_size: missing (required)"},
		{"string layers", with(`"num_hidden_layers": 2`, `"num_hidden_layers": "2"`), `x.json: num_hidden_layers: must be a non-negative integer, got "2"`},
		{"negative heads", with(`"num_attention_heads": 4`, `"num_attention_heads": -4`), `x.json: num_attention_heads: must be a non-negative integer, got -4`},
		{"fractional", with(`"intermediate_size": 128`, `"intermediate_size": 128.5`), `x.json: intermediate_size: must be a non-negative integer, got 128.5`},
		{"heads do not divide hidden", with(`"num_attention_heads": 4`, `"num_attention_heads": 5`),
			"x.json: num_attention_heads: 5 does not divide hidden_size 64 and there is no head_dim"},
		{"kv heads do not divide heads", with(`"num_key_value_heads": 2`, `"num_key_value_heads": 3`),
			"x.json: num_key_value_heads: 3 does not divide num_attention_heads 4"},
		{"zero layers", with(`"num_hidden_layers": 2`, `"num_hidden_layers": 0`), "x.json: num_hidden_layers: must be above 0"},
		{"absurd hidden", with(`"hidden_size": 64`, `"hidden_size": 18446744073709551615, "head_dim": 16`),
			"x.json: hidden_size: 18446744073709551615 is beyond any real model (at most 1048576)"},
		{"bad dtype", with(`"bfloat16"`, `"int8"`), `x.json: torch_dtype: unsupported dtype "int8"; want bfloat16, float16 or float32`},
		{"bad quant", with(`"torch_dtype"`, `"quantization_config": {"quant_method": "bitsandbytes"}, "torch_dtype"`),
			`x.json: quantization_config.quant_method: "bitsandbytes" is not supported; supported: fp8, awq, gptq`},
		{"awq without group", with(`"torch_dtype"`, `"quantization_config": {"quant_method": "awq", "bits": 4}, "torch_dtype"`),
			`x.json: quantization_config.group_size: want a positive group size, got 0`},
		{"layer_types length", with(`"torch_dtype"`, `"layer_types": ["full_attention"], "torch_dtype"`),
			"x.json: layer_types: has 1 entries for 2 layers"},
		{"sliding without window", with(`"torch_dtype"`, `"layer_types": ["full_attention", "sliding_attention"], "torch_dtype"`),
			"x.json: sliding_window: missing (required)"},
		{"gemma3 without text_config", `{"model_type": "gemma3"}`, "x.json: text_config: missing (required for model_type gemma3)"},
		{"head_dim 0", with(`"torch_dtype"`, `"head_dim": 0, "torch_dtype"`),
			"x.json: head_dim: must be above 0 (leave it out to derive it from hidden_size / num_attention_heads)"},
		{"duplicate key", with(`"num_hidden_layers": 2`, `"num_hidden_layers": 32, "num_hidden_layers": 1`),
			"x.json: num_hidden_layers: appears twice; which value is meant is not known"},
		{"duplicate nested key", `{"model_type": "gemma3", "text_config": {"hidden_size": 8, "hidden_size": 16}}`,
			"x.json: text_config.hidden_size: appears twice; which value is meant is not known"},
		{"Infinity where a size belongs", with(`"vocab_size": 1000`, `"vocab_size": Infinity`),
			`x.json: vocab_size: must be a non-negative integer, got "Infinity"`},
		{"gemma3 bad nested", `{"model_type": "gemma3", "text_config": {"hidden_size": "big"}}`,
			"x.json: text_config.hidden_size: must be a non-negative integer, got \"big\"\n" +
				"x.json: text_config.num_hidden_layers: missing (required)\n" +
				"x.json: text_config.num_attention_heads: missing (required)\n" +
				"x.json: text_config.intermediate_size: missing (required)\n" +
				"x.json: text_config.sliding_window: missing (required)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if err == nil {
				t.Fatalf("ParseConfig = %v, want error", a)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Errorf("%T does not unwrap to *ConfigError", err)
			}
		})
	}
}

func TestUnknownModelTypeIsTyped(t *testing.T) {
	_, err := ParseConfig("x.json", []byte(`{"model_type": "falcon"}`))
	var ce *ConfigError
	if !errors.Is(err, ErrUnknownModelType) || !errors.As(err, &ce) || ce.Key != "model_type" {
		t.Errorf("error %v: want a ConfigError on model_type naming %v", err, ErrUnknownModelType)
	}
}

// TestPythonJSONConstants: Python's json writes NaN, Infinity and
// -Infinity; a config holding them where no size is read parses, and the
// words inside strings or keys are left alone.
func TestPythonJSONConstants(t *testing.T) {
	doc := strings.Replace(llamaLike, `"torch_dtype"`, `"time_step_limit": [0.0, Infinity], "time_step_floor": -Infinity, "x": NaN, "note": "NaN Infinity", "InfinityKey": 1, "torch_dtype"`, 1)
	if _, err := ParseConfig("x.json", []byte(doc)); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ in, want string }{
		{`[0.0, Infinity]`, `[0.0, "Infinity"]`},
		{`{"a": -Infinity}`, `{"a": "-Infinity"}`},
		{`{"a":NaN}`, `{"a":"NaN"}`},
		{`{"NaN": "Infinity \" NaN"}`, `{"NaN": "Infinity \" NaN"}`},
		{`[InfinityX, NaNs]`, `[InfinityX, NaNs]`}, // not the constants: left for the decoder to refuse
	}
	for _, tt := range tests {
		if got := string(fromPythonJSON([]byte(tt.in))); got != tt.want {
			t.Errorf("fromPythonJSON(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
