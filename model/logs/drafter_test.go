package logs

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDrafterStatements: the drafter's load line and an EAGLE draft's
// sharing lines (vllm/v1/worker/gpu_model_runner.py load_model,
// vllm/v1/spec_decode/llm_base_proposer.py at d18bb7b; the first as the
// public log of vllm-project/vllm-ascend#2667 prints it) are settings of
// their own, the last statement of each kept.
func TestDrafterStatements(t *testing.T) {
	l, err := Parse(strings.NewReader("(EngineCore_0 pid=862715) INFO 09-01 03:23:06 [model_runner_v1.py:2298] Loading drafter model...\n" +
		"INFO [llm_base_proposer.py:1444] Detected EAGLE model with embed_tokens identical to the target model. Sharing target model embedding weights with the draft model.\n" +
		"INFO [llm_base_proposer.py:1535] Detected EAGLE model without its own lm_head in the checkpoint. Sharing target model lm_head weights with the draft model.\n" +
		"INFO [llm_base_proposer.py:1466] Detected EAGLE model with distinct embed_tokens weights. Keeping separate embedding weights from the target model.\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Setting{}
	for _, k := range []string{"drafter", "draft_embed_tokens", "draft_lm_head"} {
		got[k], _ = l.Setting(k)
	}
	st := func(k, v string, line int) Setting {
		return Setting{Key: k, LoggedKey: k, Value: v, Literal: LiteralString, Source: SourceStatement, Line: line}
	}
	want := map[string]Setting{
		"drafter":            st("drafter", "loaded", 1),
		"draft_embed_tokens": st("draft_embed_tokens", "distinct", 4),
		"draft_lm_head":      st("draft_lm_head", "not in the checkpoint", 3),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
}
