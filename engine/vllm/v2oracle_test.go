package vllm

import (
	"errors"
	"flag"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine"
	"membudget/model"
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
		t.Run(tt.name, func(t *testing.T) { wantRunner(t, tt.serve, a, tt.spec, tt.v2, tt.refused) })
	}
}

// wantRunner fails unless s for a at the release spec (on testClass(false))
// is refused naming the flag refused, or, where refused is "", is sized on
// the V2 runner exactly when v2.
func wantRunner(t *testing.T, s Serve, a *model.Arch, spec string, v2 bool, refused string) {
	t.Helper()
	r, err := Resolve(s, a, testClass(false), mustProfile(spec))
	if refused != "" {
		wantRefusal(t, err, refused, "")
		// VLLM_USE_V2_MODEL_RUNNER is refused as the variable, a
		// feature V2 lacks as its flag.
		if se := (*engine.SettingError)(nil); errors.As(err, &se) && se.Env != (refused == v2RunnerEnv) {
			t.Errorf("%v: Env %v, want %v", err, se.Env, refused == v2RunnerEnv)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := r.onV2Runner(a); got != v2 {
		t.Errorf("V2 runner %v, want %v", got, v2)
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

// TestRunnerEnv: VLLM_USE_V2_MODEL_RUNNER decides the runner before the
// oracle (vllm/config/vllm.py use_v2_model_runner, since PR #39337; the
// variable alone before it, PR #25266), release edge by release edge, and
// where V2 is forced with a feature it lacks vLLM refuses
// (_validate_v2_model_runner) where the oracle would have fallen back.
func TestRunnerEnv(t *testing.T) {
	archs := shipped(t)
	const (
		qwen3  = "Qwen__Qwen3-8B"                    // dense, on the list from 0.22.0
		llama  = "meta-llama__Llama-3.1-8B-Instruct" // dense, listed from 0.23.0
		moe    = "Qwen__Qwen3-30B-A3B"               // MoE, unlisted: V1 until 0.29.0
		hybrid = "Qwen__Qwen3.5-27B"                 // state layers (gated delta net)
		bert   = "BAAI__bge-base-en-v1.5"            // the pooling runner
	)
	on, off := engine.On, engine.Off
	tests := []struct {
		name, spec, model string
		env               engine.Switch
		serve             Serve
		v2                bool   // the runner when sized
		refused           string // the flag or variable named when refused
	}{
		// Before PR #25266 (0.11) vLLM does not read it: the V1 runner.
		{"0.10.2 =1 not read", "0.10.2", qwen3, on, Serve{}, false, ""},
		{"v0 =1 not read", "0.8.5:v0", qwen3, on, Serve{}, false, ""},
		// 0.11 to 0.21: =0 is the default; =1 runs a V2 runner not read.
		{"0.21.0 =0", "0.21.0", qwen3, off, Serve{}, false, ""},
		{"0.21.0 =1", "0.21.0", qwen3, on, Serve{}, false, v2RunnerEnv},
		{"0.11.0 =1", "0.11.0", llama, on, Serve{}, false, v2RunnerEnv},
		// 0.22.0: the oracle puts dense Qwen3 on V2 (#39337); =0 keeps it
		// on V1, =1 puts Llama (listed from 0.23.0) on V2.
		{"0.22.0 default", "0.22.0", qwen3, engine.Default, Serve{}, true, ""},
		{"0.22.0 =0", "0.22.0", qwen3, off, Serve{}, false, ""},
		{"0.22.0 llama default", "0.22.0", llama, engine.Default, Serve{}, false, ""},
		{"0.22.0 llama =1", "0.22.0", llama, on, Serve{}, true, ""},
		// A MoE the oracle keeps on V1 through 0.28.
		{"0.26.0 moe =1", "0.26.0", moe, on, Serve{}, true, ""},
		{"main moe =1", "main", moe, on, Serve{}, true, ""},
		{"main qwen3 =0", "main", qwen3, off, Serve{}, false, ""},
		// 0.29.0 runs every model on V2 (#53183): =1 changes nothing, =0
		// asks for a V1 runner whose source is not read.
		{"0.29.0 =1", "0.29.0", moe, on, Serve{}, true, ""},
		{"0.29.0 =0", "0.29.0", qwen3, off, Serve{}, false, v2RunnerEnv},
		// State layers on V2: not sized before 0.29.0; =0 is the oracle's
		// V1 anyway.
		{"0.26.0 hybrid =1", "0.26.0", hybrid, on, Serve{}, false, v2RunnerEnv},
		{"0.26.0 hybrid =0", "0.26.0", hybrid, off, Serve{}, false, ""},
		// The pooling runner on V2: not sized before 0.29.0 (pooling is
		// sized on main alone).
		{"main pooling =1", "main", bert, on, Serve{MaxModelLen: 512}, false, v2RunnerEnv},
		{"main pooling =0", "main", bert, off, Serve{MaxModelLen: 512}, false, ""},
		// Features V2 lacks: the oracle falls back to V1, =1 is refused
		// naming the feature's flag.
		{"ngram default", "0.25.0", qwen3, engine.Default, Serve{SpeculativeConfig: `{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}`}, false, ""},
		{"ngram =1", "0.25.0", qwen3, on, Serve{SpeculativeConfig: `{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}`}, false, "speculative-config"},
		{"raw logits default", "0.25.0", qwen3, engine.Default, Serve{LogprobsMode: "raw_logits"}, false, ""},
		{"raw logits =1", "0.25.0", qwen3, on, Serve{LogprobsMode: "raw_logits"}, false, "logprobs-mode"},
		{"raw logits =1 0.26.0", "0.26.0", qwen3, on, Serve{LogprobsMode: "raw_logits"}, false, "logprobs-mode"}, // #47680 inside the cut
		{"raw logits =1 0.26.1", "0.26.1", qwen3, on, Serve{LogprobsMode: "raw_logits"}, true, ""},
		{"raw logits =0 0.26.0", "0.26.0", qwen3, off, Serve{LogprobsMode: "raw_logits"}, false, ""},
		{"launcher pp =1 0.24", "0.24.0", qwen3, on, Serve{ExecutorBackend: "external_launcher", PipelineParallelSize: 2}, false, "distributed-executor-backend"},
		{"launcher pp =1 0.23", "0.23.0", qwen3, on, Serve{ExecutorBackend: "external_launcher", PipelineParallelSize: 2}, true, ""}, // before #45868
		{"reasoning =1 0.22", "0.22.0", llama, on, Serve{Reasoning: "--reasoning-parser llama3_json"}, false, "reasoning-parser"},
		{"reasoning =0 0.22", "0.22.0", qwen3, off, Serve{Reasoning: "--reasoning-parser qwen3"}, false, ""},
		// Stock torch.compile (mode 1) is unsupported since #39337.
		{"stock compile default", "0.25.0", qwen3, engine.Default, Serve{Compilation: Compilation{Mode: stockTorchCompile}}, false, ""},
		{"stock compile =1", "0.25.0", qwen3, on, Serve{Compilation: Compilation{Mode: stockTorchCompile}}, false, "compilation-config"},
		{"stock compile 0.21", "0.21.0", qwen3, engine.Default, Serve{Compilation: Compilation{Mode: stockTorchCompile}}, false, ""},
	}
	for _, tt := range tests {
		a := archs[tt.model]
		s := tt.serve
		s.ModelRunnerV2 = tt.env
		if s.MaxModelLen == 0 {
			s.MaxModelLen = 4096
		}
		t.Run(tt.name, func(t *testing.T) { wantRunner(t, s, a, tt.spec, tt.v2, tt.refused) })
	}
}

// TestRunnerEnvReachesTheServe: the variable, read from a pasted line or
// the environment, reaches the serve where the release reads it, and the
// command membudget prints sets it again.
func TestRunnerEnvReachesTheServe(t *testing.T) {
	for _, tc := range []struct {
		spec, value string
		want        engine.Switch
		prefix      string
	}{
		{"0.26.0", "0", engine.Off, "VLLM_USE_V2_MODEL_RUNNER=0 vllm serve "},
		{"main", " 1", engine.On, "VLLM_USE_V2_MODEL_RUNNER=1 vllm serve "},
		{"0.10.2", "1", engine.Default, "vllm serve "}, // not read before PR #25266
	} {
		s := &flagServe{}
		s.SetEnv(v2RunnerEnv, tc.value, "the environment")
		got, err := s.runnerEnv(mustProfile(tc.spec))
		if err != nil || got != tc.want {
			t.Errorf("%s, %q: %v, %v; want %v", tc.spec, tc.value, got, err, tc.want)
		}
		a := shipped(t)["Qwen__Qwen3-8B"]
		r, err := Resolve(Serve{MaxModelLen: 4096, ModelRunnerV2: got}, a, testClass(false), mustProfile(tc.spec))
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if cmd := Command("Qwen/Qwen3-8B", &r); !strings.HasPrefix(cmd, tc.prefix) {
			t.Errorf("%s: the command %q does not begin %q", tc.spec, cmd, tc.prefix)
		}
	}
}
