package modelgen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model"
)

// TestSomeConfigsLeanOnTheirClass: the generators leave keys out for the
// config classes to give (omitDefaults), and each key a parse reports as
// given by a class was indeed left out of the drawn config.
func TestSomeConfigsLeanOnTheirClass(t *testing.T) {
	leaning := 0
	rapid.Check(t, func(t *rapid.T) {
		c := Config().Draw(t, "config")
		a := parses(t, c, "")
		for _, d := range a.Defaulted {
			if d.From != "" {
				continue
			}
			obj := c
			key := d.Key
			if rest, ok := strings.CutPrefix(key, "text_config."); ok {
				obj, _ = c["text_config"].(map[string]any)
				key = rest
			}
			if _, given := obj[key]; given && !strings.Contains(key, ".") {
				t.Fatalf("%s is reported from %s's defaults, yet the config gives it", d.Key, d.Class)
			}
		}
		if len(a.Defaulted) > 0 {
			leaning++
		}
	})
	if leaning == 0 {
		t.Error("no drawn config left a key to its class")
	}
}

// TestDefaultsReadAsWritten: a drawn config that leaves keys to its class
// reads as the same model as the config with each of those keys written
// out at the value the class gave (every layer, head, expert, tower and
// weight alike).
func TestDefaultsReadAsWritten(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := Config().Draw(t, "config")
		a := parses(t, c, "")
		if len(a.Defaulted) == 0 {
			return
		}
		data, err := JSON(c)
		if err != nil {
			t.Fatal(err)
		}
		var written map[string]any
		if err := json.Unmarshal(bytes.ReplaceAll(data, []byte("Infinity"), []byte(`"Infinity"`)), &written); err != nil {
			t.Fatal(err)
		}
		for _, d := range a.Defaulted {
			obj, key := written, d.Key
			if sub, rest, ok := strings.Cut(key, "."); ok {
				obj, _ = written[sub].(map[string]any)
				if _, present := written[sub]; !present {
					// A sub-config the file leaves out is its class's
					// (Gemma3nConfig builds it): written out, it holds
					// the keys the class gave.
					obj = map[string]any{}
					written[sub] = obj
				}
				key = rest
			}
			var v any
			if err := json.Unmarshal([]byte(d.Value), &v); err != nil || obj == nil {
				t.Fatalf("%s = %s: %v", d.Key, d.Value, err)
			}
			obj[key] = v
		}
		b := parses(t, written, a.ModelType)
		type view struct {
			Summary              string
			Layers               []model.Layer
			Heads, KV, Dim, Voc  uint64
			Pos, Rot, Window     uint64
			Experts, MoE, Shared uint64
			Tied                 bool
			Vision               *model.VisionTower
			Rotary               []model.RotaryTable
			Weights              []budget.Item
		}
		viewOf := func(x *model.Arch) view {
			return view{x.String(), x.Layers, x.Heads, x.KVHeads, x.HeadDim, x.Vocab, x.MaxPosition, x.RotaryDim, x.SlidingWindow,
				x.Experts, x.MoEIntermediate, x.SharedIntermediate, x.TiedEmbeddings, x.Vision, x.Rotary,
				model.Weights(x, model.Whole(x, 1, 2, x.Quant))}
		}
		if diff := cmp.Diff(viewOf(a), viewOf(b)); diff != "" {
			t.Fatalf("left to the class and written out read differently (-left +written):\n%s", diff)
		}
	})
}
