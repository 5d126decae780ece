package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withArchitecture is a corpus config with its architectures replaced:
// the stand-in for a reward checkpoint whose own config.json was not
// found (corpus/models/SOURCES.md says which), built on the same layers.
func withArchitecture(t *testing.T, name, arch string) []byte {
	t.Helper()
	data := string(corpusModel(t, name))
	i := strings.Index(data, `"architectures": [`)
	j := strings.Index(data[i:], "]")
	if i < 0 || j < 0 {
		t.Fatalf("%s: no architectures list", name)
	}
	return []byte(data[:i] + `"architectures": ["` + arch + `"` + data[i+j:])
}

// TestRewardModelWeights: a reward model's weights are its family's
// causal LM's without the LM head, plus the head vLLM builds in float32,
// summed by hand (rotary tables left out: they are the family's).
func TestRewardModelWeights(t *testing.T) {
	// Qwen2.5-Math-PRM-7B (the corpus's real config): Qwen2.5-7B's layers.
	// Embedding 152064 x 3584 = 544,997,376; a layer: q 3584x3584 +
	// 3584, k and v 3584x512 + 512 each, o 3584x3584, gate, up and down
	// 3 x 18944 x 3584, two norms 2 x 3584: 233,057,792; 28 layers
	// 6,525,618,176; the final norm 3584. 7,070,619,136 parameters in
	// bf16 = 14,141,238,272 B (Qwen2.5-7B-Instruct's total_size
	// 15,231,233,024 less its lm_head's 152064 x 3584 x 2 =
	// 1,089,994,752). The score head, float32: 3584x3584 + 3584 and
	// 2x3584 + 2 (num_labels 2, qwen2_rm.py:108): 12,855,810 x 4 =
	// 51,423,240. At TP2 the first linear's rows, its bias and the
	// second's input halve, the last bias (2) stays whole: (1792x3584 +
	// 1792 + 2x1792 + 2) x 4 = 25,711,624.
	prm := corpusModel(t, "Qwen__Qwen2.5-Math-PRM-7B")
	// Qwen2.5-Math-RM-72B, on the corpus's Qwen2.5-72B config: its
	// total_size 145,412,407,296 less the lm_head's 152064 x 8192 x 2 =
	// 2,491,416,576 is 142,920,990,720; the head (num_labels 1,
	// qwen2_rm.py:96): (8192x8192 + 8192 + 8192 + 1) x 4 = 268,500,996;
	// at TP4: (2048x8192 + 2048 + 2048 + 1) x 4 = 67,125,252.
	rm := withArchitecture(t, "Qwen__Qwen2.5-72B", "Qwen2ForRewardModel")
	// internlm2-7b-reward, on InternLM2.5-7B's config (InternLM2-7B's
	// layers): embedding 92544 x 4096 = 379,060,224; a layer: wqkv (32 +
	// 2 x 8) x 128 x 4096 = 25,165,824, wo 16,777,216, w1, w3, w2 3 x
	// 14336 x 4096 = 176,160,768, two norms 8192: 218,112,000; 32 layers
	// 6,979,584,000; the final norm 4096: 7,358,648,320 x 2 =
	// 14,717,296,640 B, no output (StageMissingLayer, internlm2.py:
	// 402-406). v_head 1 x 4096 x 4 = 16,384; at TP2 2048 x 4 = 8,192.
	ilm := withArchitecture(t, "internlm__internlm2_5-7b-chat", "InternLM2ForRewardModel")
	for _, c := range []struct {
		name        string
		config      []byte
		tp          uint64
		body, head  uint64
		headTensors []string
	}{
		{"PRM-7B TP1", prm, 1, 14_141_238_272, 51_423_240, []string{"score.0.bias", "score.0.weight", "score.2.bias", "score.2.weight"}},
		{"PRM-7B TP2", prm, 2, 0, 25_711_624, nil},
		{"RM-72B TP1", rm, 1, 142_920_990_720, 268_500_996, nil},
		{"RM-72B TP4", rm, 4, 0, 67_125_252, nil},
		{"InternLM2 reward TP1", ilm, 1, 14_717_296_640, 16_384, []string{"v_head.weight"}},
		{"InternLM2 reward TP2", ilm, 2, 0, 8_192, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseConfig("config.json", c.config)
			if err != nil {
				t.Fatal(err)
			}
			if a.Pooler == nil {
				t.Fatal("no pooling head read")
			}
			items := Weights(a, Whole(a, c.tp, 2, Quant{}))
			var head, body uint64
			var names []string
			for _, it := range items {
				switch {
				case strings.HasPrefix(it.Name, "score.") || strings.HasPrefix(it.Name, "v_head."):
					head += it.Bytes
					names = append(names, it.Name)
				case strings.HasPrefix(it.Name, "rotary_emb."):
				case strings.HasPrefix(it.Name, "lm_head") || strings.HasPrefix(it.Name, "output"):
					t.Errorf("%s: an LM head is counted", it.Name)
				default:
					body += it.Bytes
				}
			}
			if head != c.head {
				t.Errorf("head %d B, want %d", head, c.head)
			}
			if c.body != 0 && body != c.body {
				t.Errorf("body %d B, want %d", body, c.body)
			}
			if c.headTensors != nil {
				slices.Sort(names)
				if diff := cmp.Diff(c.headTensors, names); diff != "" {
					t.Errorf("head tensors (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestRewardModelAgainstCausalLM: the same config read as its family's
// causal LM differs by the LM head alone, and the head the pooling
// architecture builds (a property of any reward config: checked here on
// every stage of a two-stage pipeline, which both vLLM modules give the
// head, internlm2 its embedding too).
func TestRewardModelAgainstCausalLM(t *testing.T) {
	for _, c := range []struct{ corpus, causal, reward string }{
		{"Qwen__Qwen2.5-7B-Instruct", "Qwen2ForCausalLM", "Qwen2ForProcessRewardModel"},
		{"internlm__internlm2_5-7b-chat", "InternLM2ForCausalLM", "InternLM2ForRewardModel"},
	} {
		causal, err := ParseConfig("config.json", withArchitecture(t, c.corpus, c.causal))
		if err != nil {
			t.Fatal(err)
		}
		reward, err := ParseConfig("config.json", withArchitecture(t, c.corpus, c.reward))
		if err != nil {
			t.Fatal(err)
		}
		if causal.Pooler != nil {
			t.Errorf("%s: %s read with a pooling head", c.corpus, c.causal)
		}
		for _, st := range Stages([]int{len(causal.Layers) / 2, len(causal.Layers) - len(causal.Layers)/2}) {
			st.TP, st.DtypeBytes = 1, 2
			cw, rw := Weights(causal, st), Weights(reward, st)
			lm := sumItems(cw, "lm_head", "output")
			head := sumItems(rw, "score.", "v_head.")
			if head == 0 {
				t.Errorf("%s stage %d: no pooling head", c.reward, st.FirstLayer)
			}
			if got, want := sumItems(rw), sumItems(cw)-lm+head; got != want {
				t.Errorf("%s stage %d: %d B, want the causal LM's %d less its head %d plus the pooling head %d = %d", c.reward, st.FirstLayer, got, sumItems(cw), lm, head, want)
			}
		}
	}
}

// TestRewardModelRefusals: a reward architecture on another family's
// model_type, a quantized one and a head_dtype vLLM does not read are
// refused naming the key; head_dtype "model" puts the head in the model
// dtype: the PRM-7B head at TP1 in bf16 is 51,423,240 / 2 = 25,711,620.
func TestRewardModelRefusals(t *testing.T) {
	prm := string(corpusModel(t, "Qwen__Qwen2.5-Math-PRM-7B"))
	edit := func(old, new string) []byte { return []byte(strings.Replace(prm, old, new, 1)) }
	for _, c := range []struct {
		name, key string
		config    []byte
	}{
		{"another family", "architectures", withArchitecture(t, "internlm__internlm2_5-7b-chat", "Qwen2ForRewardModel")},
		{"quantized", "quantization_config", edit(`"model_type": "qwen2",`, `"model_type": "qwen2", "quantization_config": {"quant_method": "fp8"},`)},
		{"head dtype", "head_dtype", edit(`"model_type": "qwen2",`, `"model_type": "qwen2", "head_dtype": "int8",`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("config.json", c.config)
			if err == nil || !strings.Contains(err.Error(), c.key) {
				t.Errorf("got %v, want an error naming %s", err, c.key)
			}
		})
	}
	a, err := ParseConfig("config.json", edit(`"model_type": "qwen2",`, `"model_type": "qwen2", "head_dtype": "model",`))
	if err != nil {
		t.Fatal(err)
	}
	if got := sumItems(Weights(a, Whole(a, 1, 2, Quant{})), "score."); got != 25_711_620 {
		t.Errorf("head_dtype model: head %d B, want 25,711,620", got)
	}
}

// TestPoolerHeadBytesPerToken: the head's live bytes a token, by hand.
// PRM-7B (hidden 3584, bf16, float32 head): the cast holds 3584 x 2 +
// 3584 x 4 = 21,504; then the copy 14,336 beside the first linear's and
// ReLU's 3584 x 4 each (28,672): 43,008 at TP1; at TP2 14,336 + 2 x
// 1792 x 4 = 28,672. InternLM2's v_head: the cast, 4096 x 6 = 24,576.
func TestPoolerHeadBytesPerToken(t *testing.T) {
	prm, err := ParseConfig("config.json", corpusModel(t, "Qwen__Qwen2.5-Math-PRM-7B"))
	if err != nil {
		t.Fatal(err)
	}
	ilm, err := ParseConfig("config.json", withArchitecture(t, "internlm__internlm2_5-7b-chat", "InternLM2ForRewardModel"))
	if err != nil {
		t.Fatal(err)
	}
	causal, err := ParseConfig("config.json", corpusModel(t, "Qwen__Qwen2.5-7B-Instruct"))
	if err != nil {
		t.Fatal(err)
	}
	got := []uint64{PoolerHeadBytesPerToken(prm, 1, 2), PoolerHeadBytesPerToken(prm, 2, 2), PoolerHeadBytesPerToken(ilm, 1, 2), PoolerHeadBytesPerToken(causal, 1, 2)}
	if diff := cmp.Diff([]uint64{43_008, 28_672, 24_576, 0}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPoolingRefusals: a config naming a pooling architecture whose head
// is not read is refused naming architectures, even on a family's
// model_type (jina-reranker-m0's qwen2_vl, jina-reranker-v3's qwen3),
// where it would otherwise be sized as a generating model; and every
// such architecture is one of the registry's pooling sections only.
func TestPoolingRefusals(t *testing.T) {
	for _, c := range []struct{ corpus, arch string }{
		{"Qwen__Qwen2-VL-7B-Instruct", "JinaVLForRanking"},
		{"Qwen__Qwen3-0.6B", "JinaForRanking"},
		{"BAAI__bge-reranker-v2-m3", "ColBERTJinaRobertaModel"},
	} {
		_, err := ParseConfig("config.json", withArchitecture(t, c.corpus, c.arch))
		if err == nil || !strings.Contains(err.Error(), "architectures") || !strings.Contains(err.Error(), "does not size") {
			t.Errorf("%s on %s: got %v, want a refusal naming architectures", c.arch, c.corpus, err)
		}
	}
	sections := map[string][]string{}
	for _, e := range readRegistry(t) {
		sections[e.Arch] = append(sections[e.Arch], e.Section)
	}
	for arch := range poolingRefusals {
		if len(sections[arch]) == 0 || slices.ContainsFunc(sections[arch], func(s string) bool { return !isPooling(s) }) {
			t.Errorf("%s: sections %v, want pooling sections only", arch, sections[arch])
		}
	}
}
