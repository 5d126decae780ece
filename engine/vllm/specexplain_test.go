package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// drafterLog is the drafter's startup lines of an EAGLE-3 serve as vLLM
// main d18bb7b prints them (gpu_model_runner.py load_model;
// llm_base_proposer.py _maybe_share_embeddings, _maybe_share_lm_head).
const drafterLog = "(EngineCore_DP0 pid=1) INFO 09-10 17:25:50 [gpu_model_runner.py:5430] Loading drafter model...\n" +
	"(EngineCore_DP0 pid=1) INFO 09-10 17:25:51 [llm_base_proposer.py:1444] Detected EAGLE model without its own embed_tokens in the checkpoint. Sharing target model embedding weights with the draft model.\n" +
	"(EngineCore_DP0 pid=1) INFO 09-10 17:25:51 [llm_base_proposer.py:1535] Detected EAGLE model with distinct lm_head weights. Keeping separate lm_head weights from the target model.\n"

// TestBuildServeReadsDraft: a logged eagle3 config whose draft directory
// is here is sized as --speculative-config would be; one named by a Hub
// id, which explain does not read, is left out with a warning.
func TestBuildServeReadsDraft(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	dir := WriteEagle3Draft(t)
	line := func(model string) string {
		return "INFO non-default args: {'model': 'm', 'max_model_len': 8192, 'enforce_eager': True, 'speculative_config': {'method': 'eagle3', 'model': '" + model + "', 'num_speculative_tokens': 3}}\n"
	}
	for _, tc := range []struct {
		name, log, want string
		warned          bool
	}{
		{"a draft here", line(dir), `{"method": "eagle3", "model": "` + dir + `", "num_speculative_tokens": 3}`, false},
		{"a Hub draft", line("yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"), "", true},
	} {
		ls, err := buildServe(logSource(t, tc.log).Log, Serve{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ls.dropUnsizedSpec(llama, bigClass, v1Llama)
		if ls.Serve.SpeculativeConfig != tc.want || (len(ls.Warnings) > 0) != tc.warned {
			t.Errorf("%s: config %q, warnings %q; want %q, warned %v", tc.name, ls.Serve.SpeculativeConfig, ls.Warnings, tc.want, tc.warned)
		}
	}
}

// TestDrafterNotes: the drafter's lines read back against the serve: the
// SpecForge EAGLE-3 draft has no embed_tokens (the target's shared) and an
// lm_head of its own shape (kept): both lines agree. A log that shares
// the LM head disagrees, naming the line; a drafter loaded beside a serve
// sized without one is a note that the weights leave it out.
func TestDrafterNotes(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	r, err := Resolve(Serve{MaxModelLen: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(WriteEagle3Draft(t))}, a, bigClass, v1Llama)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`line 2: vLLM's draft shares the target's embed_tokens (the log: not in the checkpoint), as membudget read the draft's checkpoint`,
		`line 3: vLLM's draft keeps its own lm_head (the log: distinct), as membudget read the draft's checkpoint`,
	}
	if diff := cmp.Diff(want, drafterNotes(logSource(t, drafterLog).Log, a, r)); diff != "" {
		t.Errorf("agreeing (-want +got):\n%s", diff)
	}
	shared := strings.Replace(drafterLog, "with distinct lm_head weights", "without its own lm_head in the checkpoint", 1)
	got := drafterNotes(logSource(t, shared).Log, a, r)
	// The draft's weights on the GPU: 849635008 + 524288 = 850159296 B
	// (TestDraftWeightsByHand, its rotary table with them), 0.79 GiB.
	if len(got) != 2 || !strings.HasPrefix(got[1], "line 3: vLLM's draft shares the target's lm_head (the log: not in the checkpoint), but membudget") || !strings.Contains(got[1], "0.79 GiB") {
		t.Errorf("disagreeing: %q", got)
	}
	plain, err := Resolve(Serve{MaxModelLen: 8192, EnforceEager: true}, a, bigClass, v1Llama)
	if err != nil {
		t.Fatal(err)
	}
	got = drafterNotes(logSource(t, drafterLog).Log, a, plain)
	if len(got) != 1 || !strings.HasPrefix(got[0], "line 1: vLLM loads a drafter") {
		t.Errorf("no draft sized: %q", got)
	}
}
