package vllm

import (
	"fmt"

	"membudget/engine"
	"membudget/model"
	"membudget/model/logs"
)

// This file reads the speculative-decoding lines vLLM logs at startup for
// explain: the drafter's load ("Loading drafter model...",
// vllm/v1/worker/gpu_model_runner.py load_model at d18bb7b; quoted from
// the public log of vllm-project/vllm-ascend#2667: "(EngineCore_0
// pid=862715) INFO 09-01 03:23:06 [model_runner_v1.py:2298] Loading
// drafter model...", the Ascend runner printing vLLM's line), whose
// weights vLLM counts in "Model loading took" (the drafter loads inside
// the same DeviceMemoryProfiler, gpu_model_runner.py:5416-5503), and an
// EAGLE draft's "Detected EAGLE model ... embed_tokens / lm_head" lines
// (llm_base_proposer.py:1430-1570), which say whether vLLM shares the
// target's tensor: membudget's reading of the draft's checkpoint predicts
// that, as it predicts the figures.

// loggedSpecMethods are the methods of a logged speculative_config that
// explain sizes (the draft read as --speculative-config reads it; one that
// cannot be read here is left out with a warning, dropUnsizedSpec).
var loggedSpecMethods = []string{"ngram", "suffix", "eagle", "eagle3", "draft_model", "medusa"}

// drafterNotes compares the log's drafter lines with the serve sized: a
// drafter loaded that the serve does not size (its weights are in the
// logged weights, not in the prediction), and for an EAGLE draft whether
// vLLM shared the target's embedding and LM head as membudget read the
// draft's checkpoint.
func drafterNotes(l *logs.Log, a *model.Arch, r Resolved) []string {
	var out []string
	d := r.Spec.Draft
	if st, ok := l.Setting("drafter"); ok && d == nil && r.Spec.MTPLayers == 0 && r.Spec.Medusa == nil {
		out = append(out, fmt.Sprintf("line %d: vLLM loads a drafter (\"Loading drafter model...\"), whose weights are in its \"Model loading took\"; the serve sized here has no draft, so the predicted weights leave them out", st.Line))
	}
	if d == nil || d.Method == "draft_model" {
		return out
	}
	for _, t := range []struct {
		key, tensor string
		own         bool
	}{{"draft_embed_tokens", "embed_tokens", d.OwnEmbed}, {"draft_lm_head", "lm_head", d.OwnHead}} {
		st, ok := l.Setting(t.key)
		if !ok {
			continue
		}
		loggedOwn := st.Value == "distinct"
		predicted, logged := draftKeeps(t.own), draftKeeps(loggedOwn)
		if loggedOwn == t.own {
			out = append(out, fmt.Sprintf("line %d: vLLM's draft %s %s (the log: %s), as membudget read the draft's checkpoint", st.Line, logged, t.tensor, st.Value))
			continue
		}
		out = append(out, fmt.Sprintf("line %d: vLLM's draft %s %s (the log: %s), but membudget, from the draft's checkpoint, predicts it %s: the predicted draft weights (%s) differ from vLLM's by that tensor", st.Line, logged, t.tensor, st.Value, predicted, engine.GiB(draftWeightBytes(a, &r, stageOf(&r, len(r.Stages)-1)))))
	}
	return out
}

// draftKeeps says whether a draft keeps its own copy of a tensor or
// shares the target's, for drafterNotes.
func draftKeeps(own bool) string {
	if own {
		return "keeps its own"
	}
	return "shares the target's"
}
