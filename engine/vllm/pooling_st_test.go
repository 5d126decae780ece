package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model"
)

// TestSentenceTransformersRunnerAuto: vLLM's --runner auto asks the
// checkpoint's sentence-transformers config before the registry
// (vllm/config/model.py:1115-1117), so a Qwen3ForCausalLM checkpoint with
// a Pooling module (Qwen3-Embedding) is served by the pooling runner,
// converted to an embedding model (:1182-1185), its LM head not built;
// its pooling type fills what --pooler-config leaves unset (:718-725):
// LAST keeps the device's batch (2048 on 24 GiB), MEAN raises it to
// max_model_len 4096. Without a Pooling module the same config
// generates; --runner generate or --convert none keep vLLM's answers.
func TestSentenceTransformersRunnerAuto(t *testing.T) {
	small := testClass(false)
	small.Device.MemoryBytes = 24 << 30
	with := func(seq string) *model.Arch {
		a := parse(t, qwen3Untied)
		if seq != "-" {
			a.SentenceTransformers = &model.SentenceTransformers{File: "modules.json", PoolingConfig: "1_Pooling/config.json", SeqPoolingType: seq, Normalize: true}
		}
		return a
	}
	type got struct {
		Runner, Convert string
		Batched         uint64
		NoHead          bool
	}
	tests := []struct {
		name string
		a    *model.Arch
		s    Serve
		want got
	}{
		{"LAST from 1_Pooling", with("LAST"), Serve{}, got{"pooling", "embed", 2048, true}},
		{"MEAN from 1_Pooling: whole sequences", with("MEAN"), Serve{}, got{"pooling", "embed", 4096, true}},
		{"--pooler-config over 1_Pooling", with("MEAN"), Serve{PoolerConfig: `{"seq_pooling_type":"LAST"}`}, got{"pooling", "embed", 2048, true}},
		{"no Pooling module: generation", with("-"), Serve{}, got{"", "", 2048, false}},
		{"--runner generate", with("LAST"), Serve{Runner: "generate"}, got{"generate", "", 2048, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Resolve(tt.s, tt.a, small, current)
			if err != nil {
				t.Fatal(err)
			}
			g := got{r.Runner, r.Convert, r.MaxNumBatchedTokens, r.Stages[0].NoHead}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// --convert none keeps auto's pooling runner, which vLLM then
	// refuses for a model that is not a pooling one (:667-675).
	_, err := Resolve(Serve{Convert: "none"}, with("LAST"), small, current)
	wantRefusal(t, err, "convert", "not a pooling model")
	// A Pooling module that turns no type on leaves the converted
	// decoder's pooling unknown, refused as without one.
	_, err = Resolve(Serve{}, with(""), small, current)
	wantRefusal(t, err, "pooler-config", "turns on none of CLS, LAST or MEAN")
}
