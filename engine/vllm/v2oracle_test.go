package vllm

import (
	"errors"
	"flag"
	"io"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine"
)

// TestV2FeatureFlags: three flags listed as ignored decide the runner in
// some releases (v2oracle.go resolveV2Features). A serve the oracle puts on
// V2 goes to V1 where the release's check has it, and a release whose cut
// falls inside the check's change is refused naming the flag.
func TestV2FeatureFlags(t *testing.T) {
	archs := shipped(t)
	qwen3, moe := archs["Qwen__Qwen3-8B"], archs["Qwen__Qwen3-30B-A3B"]
	tests := []struct {
		name, spec string
		serve      Serve
		moe        bool   // the Qwen3 MoE, on V1 whatever the flags
		v2         bool   // the runner when sized
		refused    string // the flag named when refused
	}{
		// --reasoning-parser: unsupported from #39337 until #43808
		// (05-28), inside 0.22's cut (05-22..06-02).
		{"reasoning 0.22", "0.22.0", Serve{Reasoning: "--reasoning-parser qwen3"}, false, false, "reasoning-parser"},
		{"reasoning-config 0.22.1", "0.22.1", Serve{Reasoning: `--reasoning-config {"reasoning_parser":"qwen3"}`}, false, false, "reasoning-config"},
		{"reasoning 0.23", "0.23.0", Serve{Reasoning: "--reasoning-parser qwen3"}, false, true, ""},
		{"reasoning on V1 anyway", "0.22.0", Serve{Reasoning: "--reasoning-parser qwen3"}, true, false, ""},
		// --logprobs-mode raw_logits: unsupported until #47680 (07-18),
		// inside 0.26.0's cut (07-17..20).
		{"raw logits 0.22", "0.22.0", Serve{LogprobsMode: "raw_logits"}, false, false, ""},
		{"processed logits 0.25", "0.25.0", Serve{LogprobsMode: "processed_logits"}, false, false, ""},
		{"raw logits 0.26.0", "0.26.0", Serve{LogprobsMode: "raw_logits"}, false, false, "logprobs-mode"},
		{"raw logits 0.26.1", "0.26.1", Serve{LogprobsMode: "raw_logits"}, false, true, ""},
		{"raw logprobs 0.25", "0.25.0", Serve{LogprobsMode: "raw_logprobs"}, false, true, ""},
		// external_launcher with PP: unsupported from #45868 (06-16), so
		// from 0.24.0.
		{"launcher pp 0.23", "0.23.0", Serve{ExecutorBackend: "external_launcher", PipelineParallelSize: 2}, false, true, ""},
		{"launcher pp 0.24", "0.24.0", Serve{ExecutorBackend: "external_launcher", PipelineParallelSize: 2}, false, false, ""},
		{"launcher pp main", "main", Serve{ExecutorBackend: "external_launcher", PipelineParallelSize: 2}, false, false, ""},
		{"launcher no pp", "main", Serve{ExecutorBackend: "external_launcher"}, false, true, ""},
		{"mp pp main", "main", Serve{ExecutorBackend: "mp", PipelineParallelSize: 2}, false, true, ""},
	}
	for _, tt := range tests {
		a := qwen3
		if tt.moe {
			a = moe
		}
		c := testClass(false)
		r, err := Resolve(tt.serve, a, c, mustProfile(tt.spec))
		if tt.refused != "" {
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != tt.refused {
				t.Errorf("%s: %v, want refused naming --%s", tt.name, err, tt.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if got := r.onV2Runner(a); got != tt.v2 {
			t.Errorf("%s: V2 runner %v, want %v", tt.name, got, tt.v2)
		}
	}
}

// TestV2FeatureFlagsReachTheServe: the flags, listed as ignored, keep
// their values for the oracle.
func TestV2FeatureFlagsReachTheServe(t *testing.T) {
	s := &flagServe{}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var model string
	s.Register(fs, &model)
	if err := fs.Parse([]string{"--reasoning-parser", "qwen3", "--logprobs-mode", "raw_logits", "--distributed-executor-backend", "external_launcher"}); err != nil {
		t.Fatal(err)
	}
	want := [3]string{"--reasoning-parser qwen3", "raw_logits", "external_launcher"}
	if diff := cmp.Diff(want, [3]string{s.s.Reasoning, s.s.LogprobsMode, s.s.ExecutorBackend}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestV2RunnerOnlyWidens: vLLM's migration to the V2 runner only ever
// added models between 0.22.0 and 0.29.0 (v2oracle.go: the dense names
// left the list in #44443 only as every dense model joined), so a shipped
// generative model on V2 at one release is on V2 at every later one.
func TestV2RunnerOnlyWidens(t *testing.T) {
	archs := shipped(t)
	names := slices.Sorted(maps.Keys(archs))
	releases := []string{"0.22.0", "0.22.1", "0.23.0", "0.24.0", "0.25.0", "0.26.0", "0.26.1", "0.27.0", "0.27.1", "0.28.0", "main", "0.29.0"}
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom(names).Draw(t, "model")
		i := rapid.IntRange(0, len(releases)-2).Draw(t, "earlier")
		j := rapid.IntRange(i+1, len(releases)-1).Draw(t, "later")
		a := archs[name]
		if a.Pooler != nil || a.Encoder != nil {
			t.Skip("a pooling model")
		}
		if mustProfile(releases[i]).V2Runner(a) && !mustProfile(releases[j]).V2Runner(a) {
			t.Fatalf("%s: on V2 at %s, on V1 at %s", name, releases[i], releases[j])
		}
	})
}

// TestV2FeatureFlagsDecideBeforeTheDraft: a feature flag that keeps the
// target on the V1 runner keeps its EAGLE-3 draft on the V1 proposer too
// (vLLM builds the drafter in the runner the oracle picked). Qwen3-8B is on
// V2 at 0.25.0 (dense) but --logprobs-mode raw_logits is unsupported there
// until #47680, so the draft is V1's; at 0.26.1 it is V2's. And at 0.22.0
// the logits mode alone keeps the target on V1, so a reasoning parser
// beside it leaves no doubt about the runner to refuse.
func TestV2FeatureFlagsDecideBeforeTheDraft(t *testing.T) {
	archs := shipped(t)
	qwen := archs["Qwen__Qwen3-8B"]
	dir := WriteEagle3Draft(t)
	for _, tc := range []struct {
		spec string
		v2   bool
	}{{"0.25.0", false}, {"0.26.1", true}} {
		s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir), LogprobsMode: "raw_logits"}
		r, err := Resolve(s, qwen, bigClass, mustProfile(tc.spec))
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if r.onV2Runner(qwen) != tc.v2 || onV2Speculator(&r) != tc.v2 {
			t.Errorf("%s: target on V2 %v, draft on V2 %v; want both %v", tc.spec, r.onV2Runner(qwen), onV2Speculator(&r), tc.v2)
		}
	}
	both := Serve{Reasoning: "--reasoning-parser qwen3", LogprobsMode: "raw_logits"}
	r, err := Resolve(both, qwen, testClass(false), mustProfile("0.22.0"))
	if err != nil || r.onV2Runner(qwen) {
		t.Errorf("0.22.0 with a reasoning parser and raw_logits: err %v, V2 %v; want it sized on the V1 runner", err, err == nil && r.onV2Runner(qwen))
	}
}
