package modelgen

import (
	"bytes"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"membudget/model"
)

// notDrawn are the model_types of model.ModelTypes that no generator
// draws, each with why it cannot be: none today.
var notDrawn = map[string]string{}

// TestEveryModelTypeIsDrawn: ModelTypes lists every model_type the model
// reads but those notDrawn excuses, and nothing the model does not read.
func TestEveryModelTypeIsDrawn(t *testing.T) {
	drawn := ModelTypes()
	for _, mt := range model.ModelTypes() {
		if why, ok := notDrawn[mt]; ok {
			if why == "" {
				t.Errorf("%s is excused without a reason", mt)
			}
			if slices.Contains(drawn, mt) {
				t.Errorf("%s is drawn yet excused: %s", mt, why)
			}
			continue
		}
		if !slices.Contains(drawn, mt) {
			t.Errorf("model_type %s, which the model reads, is drawn by no generator", mt)
		}
	}
	for _, mt := range drawn {
		if !slices.Contains(model.ModelTypes(), mt) {
			t.Errorf("model_type %s is drawn but the model does not read it", mt)
		}
	}
	if len(slices.Compact(slices.Clone(drawn))) != len(drawn) {
		t.Errorf("a model_type is drawn by two families: %v", drawn)
	}
}

// parses writes c with JSON and parses it, failing t unless the model
// reads it as model_type want.
func parses(t *rapid.T, c map[string]any, want string) *model.Arch {
	data, err := JSON(c)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	a, err := model.ParseConfig("gen.json", data)
	if err != nil {
		t.Fatalf("a generated config does not parse: %v\n%s", err, data)
	}
	if want != "" && a.ModelType != want {
		t.Fatalf("drawn as %s, parsed as %s:\n%s", want, a.ModelType, data)
	}
	return a
}

// TestConfigOfParses: each model_type's generator draws configs that
// model.ParseConfig accepts as that model_type (a wrapper's Arch keeps the
// wrapper's model_type; its text model is under text_config).
func TestConfigOfParses(t *testing.T) {
	for _, mt := range ModelTypes() {
		t.Run(mt, func(t *testing.T) {
			g := ConfigOf(mt)
			rapid.Check(t, func(t *rapid.T) {
				parses(t, g.Draw(t, "config"), mt)
			})
		})
	}
}

// TestConfigParses: the joined generator draws configs that parse, of
// model_types ModelTypes lists.
func TestConfigParses(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Config().Draw(t, "config")
		if mt, _ := c["model_type"].(string); !slices.Contains(ModelTypes(), mt) {
			t.Fatalf("drew model_type %q, which ModelTypes does not list", mt)
		}
		parses(t, c, "")
	})
}

// TestHeadsAreDivisorRich: the generators reach head counts that 3 and 4
// divide and that they do not, so that a non-dividing tensor parallelism
// is drawn too.
func TestHeadsAreDivisorRich(t *testing.T) {
	seen := map[string]bool{}
	for i := range 2000 {
		c := ConfigOf("llama").Example(i)
		heads := c["num_attention_heads"].(uint64)
		kv := c["num_key_value_heads"].(uint64)
		if heads%kv != 0 {
			t.Fatalf("%d KV heads of %d heads", kv, heads)
		}
		seen["3 divides"] = seen["3 divides"] || heads%3 == 0
		seen["3 does not"] = seen["3 does not"] || heads%3 != 0
		seen["4 divides"] = seen["4 divides"] || heads%4 == 0
		seen["4 does not, 2 does"] = seen["4 does not, 2 does"] || heads%4 != 0 && heads%2 == 0
		seen["grouped"] = seen["grouped"] || kv < heads && kv > 1
		for _, tp := range []uint64{3, 4, 6, 8} {
			// TP divides the heads, yet neither divides nor is a
			// multiple of the KV heads: QKVParallelLinear refuses it.
			seen["kv refusal"] = seen["kv refusal"] || heads%tp == 0 && kv%tp != 0 && tp%kv != 0
		}
	}
	for _, k := range []string{"3 divides", "3 does not", "4 divides", "4 does not, 2 does", "grouped", "kv refusal"} {
		if !seen[k] {
			t.Errorf("no head count where %s", k)
		}
	}
}

func TestConfigOfPanicsForUnknown(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ConfigOf of an unknown model_type did not panic")
		}
	}()
	ConfigOf("no_such_model")
}

func TestJSONWritesPythonInfinity(t *testing.T) {
	data, err := JSON(map[string]any{"time_step_limit": []any{0.0, "Infinity"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte(`{"time_step_limit":[0,Infinity]}`); !bytes.Equal(data, want) {
		t.Errorf("JSON = %s, want %s", data, want)
	}
}

// TestEveryModelTypeNamesItsArchitecture: an engine picks its
// implementation by config.json's architectures, so every drawn
// model_type writes one.
func TestEveryModelTypeNamesItsArchitecture(t *testing.T) {
	for _, mt := range ModelTypes() {
		if architectures[mt] == "" {
			t.Errorf("model_type %s has no architecture", mt)
		}
	}
}
