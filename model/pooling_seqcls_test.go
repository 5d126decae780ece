package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withLabels is name's corpus config with architectures replaced by arch
// and extra keys (a JSON fragment ending in a comma) put before its
// model_type.
func withLabels(t *testing.T, name, arch, modelType, extra string) []byte {
	t.Helper()
	data := string(withArchitecture(t, name, arch))
	key := `"model_type": "` + modelType + `"`
	if !strings.Contains(data, key) {
		t.Fatalf("%s: no %s", name, key)
	}
	return []byte(strings.Replace(data, key, extra+key, 1))
}

// TestSeqClsWeightsByHand: a sequence classifier's weights are its causal
// LM's without the LM head, plus a float32 score head hidden x num_labels
// (the pooling runner's head dtype), replicated:
//   - Qwen2.5-7B-Instruct as Qwen2ForSequenceClassification (the config's
//     architectures replaced; vLLM converts it from Qwen2ForCausalLM), no
//     num_labels: transformers' default 2. LM head 152,064 x 3584 x 2 B =
//     1,089,994,752 (untied) dropped; score 3584 x 2 x 4 = 28,672.
//   - the same with id2label of 5 entries and num_labels 3: id2label wins,
//     3584 x 5 x 4 = 71,680.
//   - GPT-2 as GPT2ForSequenceClassification (a registry class), num_labels
//     3: its head is tied (nothing dropped); score 768 x 3 x 4 = 9,216.
func TestSeqClsWeightsByHand(t *testing.T) {
	qwen := "Qwen__Qwen2.5-7B-Instruct"
	for _, c := range []struct {
		name, causal string
		config       []byte
		labels       uint64
		dropped      uint64
		score        uint64
		convert      string
	}{
		{"qwen2 default labels", "Qwen2ForCausalLM", withArchitecture(t, qwen, "Qwen2ForSequenceClassification"), 2, 1_089_994_752, 28_672, "classify"},
		{"qwen2 id2label", "Qwen2ForCausalLM", withLabels(t, qwen, "Qwen2ForSequenceClassification", "qwen2", `"num_labels": 3, "id2label": {"0":"a","1":"b","2":"c","3":"d","4":"e"}, `), 5, 1_089_994_752, 71_680, "classify"},
		{"gpt2 registry class", "GPT2LMHeadModel", withLabels(t, "openai-community__gpt2", "GPT2ForSequenceClassification", "gpt2", `"num_labels": 3, `), 3, 0, 9_216, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseConfig("config.json", c.config)
			if err != nil {
				t.Fatal(err)
			}
			var causalCfg []byte
			if c.causal == "GPT2LMHeadModel" {
				causalCfg = withArchitecture(t, "openai-community__gpt2", c.causal)
			} else {
				causalCfg = withArchitecture(t, qwen, c.causal)
			}
			causal, err := ParseConfig("config.json", causalCfg)
			if err != nil {
				t.Fatal(err)
			}
			if a.Pooler == nil {
				t.Fatal("no pooling head")
			}
			type got struct {
				Kind          PoolerKind
				Labels        uint64
				Seq, Tok      string
				Convert       string
				Score, Change uint64
			}
			st := Whole(a, 1, 2, Quant{})
			w, cw := Weights(a, st), Weights(causal, st)
			want := got{PoolerSeqClsScore, c.labels, "LAST", "ALL", c.convert, c.score, sumItems(cw) - c.dropped + c.score}
			g := got{a.Pooler.Kind, a.Pooler.Labels, a.Pooler.SeqPooling, a.Pooler.TokPooling, a.Pooler.Convert, sumItems(w, "score."), sumItems(w)}
			if diff := cmp.Diff(want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if lm := sumItems(w, "lm_head"); lm != 0 {
				t.Errorf("lm_head %d B: the pooling runner builds none", lm)
			}
		})
	}
}

// TestSeqClsRefusals: what is not sized is refused naming the key:
// JambaForSequenceClassification (keeps its LM head beside the score), a
// ForSequenceClassification whose <X>ForCausalLM the config's family does
// not read (vLLM would pool it, so it is not sized as a generating
// model), and a score head converted online from LM-head tokens.
func TestSeqClsRefusals(t *testing.T) {
	for _, c := range []struct {
		name, key string
		config    []byte
	}{
		{"jamba", "architectures", withArchitecture(t, "ai21labs__Jamba-v0.1", "JambaForSequenceClassification")},
		{"another family", "architectures", withArchitecture(t, "openai-community__gpt2", "Qwen2ForSequenceClassification")},
		{"unknown base", "architectures", withArchitecture(t, "Qwen__Qwen2.5-7B-Instruct", "FooForSequenceClassification")},
		{"from tokens", "classifier_from_token", withLabels(t, "Qwen__Qwen2.5-7B-Instruct", "Qwen2ForSequenceClassification", "qwen2", `"classifier_from_token": ["no", "yes"], `)},
		{"quantized", "quantization_config", withLabels(t, "Qwen__Qwen2.5-7B-Instruct", "Qwen2ForSequenceClassification", "qwen2", `"quantization_config": {"quant_method": "fp8"}, `)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("config.json", c.config)
			if err == nil || !strings.Contains(err.Error(), c.key) {
				t.Errorf("got %v, want an error naming %s", err, c.key)
			}
		})
	}
}
