package model

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The shapes of the configs corpus/models ships for the families of issue
// 23, entered by hand from the files (see TestShippedConfigsParse).
func init() {
	for name, s := range map[string]shape{
		// head_dim 128 given (16 x 128 = 2048, twice hidden_size); tied.
		"baidu__ERNIE-4.5-0.3B-PT": {ModelType: "ernie4_5", Layers: 18, Hidden: 1024, Heads: 16, KVHeads: 2, HeadDim: 128, Vocab: 103424,
			MaxPos: 131072, Tied: true, RotaryDim: 128, Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// shippedArch parses corpus/models/<name>.json.
func shippedArch(t *testing.T, name string) *Arch {
	t.Helper()
	data, err := os.ReadFile("../corpus/models/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseConfig(name+".json", data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestNewFamilyWeightsByHand: the weights of one real checkpoint of each
// family of issue 23, whole on one rank in bf16, counted from its
// config.json by hand as vLLM's model file builds it.
func TestNewFamilyWeightsByHand(t *testing.T) {
	tests := []struct {
		name string
		want uint64
	}{
		// ERNIE-4.5-0.3B (ernie45.py: Llama's layers, no o_proj bias).
		// A layer: qkv 1024 x (16 + 2 + 2) x 128 = 2,621,440; o_proj
		// 2048 x 1024 = 2,097,152; gate_up 1024 x 2 x 3072 = 6,291,456;
		// down 3072 x 1024 = 3,145,728; two norms 2048: 14,157,824, x 18 =
		// 254,840,832. Embedding 103,424 (a multiple of 64) x 1024 =
		// 105,906,176, the head tied; final norm 1024. 360,748,032
		// parameters x 2 B, and the rotary table 131,072 x 128 x 2 B.
		{"baidu__ERNIE-4.5-0.3B-PT", 360748032*2 + 131072*128*2},
	}
	for _, tt := range tests {
		a := shippedArch(t, tt.name)
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// TestNewFamilyDefaults: a config that leaves out what the family's
// transformers configuration class fills reads as the class fills it; a
// key vLLM cannot honour is an error naming it.
func TestNewFamilyDefaults(t *testing.T) {
	type got struct {
		Layers, Hidden, Heads, KVHeads, HeadDim, Inter, Vocab, MaxPos uint64
		Tied                                                          bool
	}
	tests := []struct {
		name, doc string
		want      got
	}{
		// Ernie4_5Config (configuration_ernie4_5.py): every shape key of
		// the 0.3B model, head_dim 128 (not 1024 / 16 = 64), tied.
		{"ernie4_5 empty", `{"model_type": "ernie4_5"}`, got{18, 1024, 16, 2, 128, 3072, 103424, 131072, true}},
		// head_dim null is hidden_size / heads (__post_init__).
		{"ernie4_5 head_dim null", `{"model_type": "ernie4_5", "head_dim": null, "tie_word_embeddings": false}`,
			got{18, 1024, 16, 2, 64, 3072, 103424, 131072, false}},
	}
	for _, tt := range tests {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		g := got{uint64(len(a.Layers)), a.Hidden, a.Heads, a.KVHeads, a.HeadDim, a.Intermediate, a.Vocab, a.MaxPosition, a.TiedEmbeddings}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	errs := []struct{ name, doc, want string }{
		{"ernie4_5 use_bias", `{"model_type": "ernie4_5", "use_bias": true}`, "x.json: use_bias: true: vLLM's Ernie4_5ForCausalLM"},
	}
	for _, tt := range errs {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to hold %q", tt.name, err, tt.want)
		}
	}
}
