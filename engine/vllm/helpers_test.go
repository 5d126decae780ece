package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// shipped parses every config of corpus/models, by file name.
func shipped(t testing.TB) map[string]*model.Arch {
	t.Helper()
	archs := map[string]*model.Arch{}
	for _, name := range membudget.ModelNames() {
		a := parseShippedConfig(t, name)
		// The shipped processor files beside it, as the CLI reads them.
		combined, cpath, _ := membudget.ModelProcessor(name, model.ProcessorFile)
		single, spath, _ := membudget.ModelProcessor(name, model.PreprocessorFile)
		video, vpath, _ := membudget.ModelProcessor(name, model.VideoPreprocessorFile)
		image, ipath, video, vpath, err := model.PickProcessors(cpath, combined, spath, single, vpath, video)
		if err != nil {
			t.Fatal(err)
		}
		if err := model.AttachProcessors(a, ipath, image, vpath, video); err != nil {
			t.Fatal(err)
		}
		archs[name] = a
	}
	if len(archs) == 0 {
		t.Fatal("no shipped models")
	}
	return archs
}

// parseShippedConfig parses shipped model name's config.json afresh, with
// the shipped hf_quant_config.json beside it, as the CLI reads them.
func parseShippedConfig(t testing.TB, name string) *model.Arch {
	t.Helper()
	data, path, ok := membudget.ModelConfig(name)
	if !ok {
		t.Fatalf("shipped model %s has no config", name)
	}
	var opts []model.Option
	if q, qpath, ok := membudget.ModelQuantConfig(name); ok {
		opts = append(opts, model.WithHFQuantConfig(qpath, q))
	}
	a, err := model.ParseConfig(path, data, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// kernelClass loads the shipped GPU class name (kernels/<name>).
func kernelClass(t testing.TB, name string) budget.Class {
	t.Helper()
	c, err := membudget.Kernels().Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// judgeLine is the first error Judge gives a flag of args, "" for none.
func judgeLine(args []string) string {
	s := &flagServe{}
	for i, a := range args {
		if !strings.HasPrefix(a, "-") || engine.FlagName(a) == "vllm-version" {
			continue
		}
		if err := s.Judge(args, i); err != nil {
			return err.Error()
		}
	}
	return ""
}

// hopper is Hopper silicon, compute capability 9.0.
var hopper = budget.Silicon{Vendor: budget.NVIDIA, Major: 9}

// testClass is a discrete 80 GiB Hopper class with round numbers, and the
// H100 SXM's 132 SMs (kernels/h100-sxm-80g).
func testClass(unified bool) budget.Class {
	return budget.Class{
		Name:   "test-80g",
		Device: budget.Device{Name: "Test 80GB", Silicon: hopper, MemoryBytes: 80 << 30, Interconnect: budget.NVLink, SMCount: 132},
		Memory: budget.DriverTerms{DriverFixedBytes: 512 << 20, DriverBudgetPerMille: 2, Unified: unified, UtilCeiling: 0.95},
	}
}

// bigClass is a 1 TiB Hopper class whose every budget fits, with the H100
// SXM's 132 SMs.
var bigClass = budget.Class{Name: "big", Device: budget.Device{Name: "Big", Silicon: hopper, MemoryBytes: 1 << 40, Interconnect: budget.NVLink, SMCount: 132},
	Memory: budget.DriverTerms{UtilCeiling: 1}}

// trusting is s with --trust-remote-code where a's config needs it
// (resolveRemoteCode): the tests that size such a model as its launch
// lines serve it.
func trusting(a *model.Arch, s Serve) Serve {
	s.TrustRemoteCode = s.TrustRemoteCode || a.Remote != nil
	return s
}

// ref builds a reference under the current profile or fails the test; a
// model whose config needs --trust-remote-code is given it.
func ref(t testing.TB, a *model.Arch, s Serve, c budget.Class) *Reference {
	t.Helper()
	r, err := NewReference(a, trusting(a, s), c, current)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// current is the default profile: vLLM main at d18bb7b.
var current = mustProfile("main")

func mustProfile(spec string) Profile {
	p, err := ProfileFor(spec)
	if err != nil {
		panic(err)
	}
	return p
}

// wantRefusal fails the test unless err is the *engine.SettingError of
// flag whose message holds says ("" for any).
func wantRefusal(t testing.TB, err error, flag, says string) {
	t.Helper()
	var se *engine.SettingError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a *engine.SettingError naming --%s", err, flag)
	}
	if se.Flag != flag || !strings.Contains(err.Error(), says) {
		t.Errorf("got --%s: %v; want --%s saying %q", se.Flag, err, flag, says)
	}
}

// compilerIsReference fails unless the [Compiler] and the [Reference]
// agree on s for a on c under p: the same refusal, or the same plan field
// for field.
func compilerIsReference(t *rapid.T, a *model.Arch, s Serve, c budget.Class, p Profile) {
	compiledIsReference(t, "compiler", NewCompiler(a), a, s, c, p)
}

// sharedCompilerIsReference is [compilerIsReference] for a compiler cp
// the caller keeps across draws: its memos (stage weights, KV layouts) see
// serves that differ only in what their keys must tell apart, which a
// fresh compiler never does.
func sharedCompilerIsReference(t *rapid.T, cp *Compiler, a *model.Arch, s Serve, c budget.Class, p Profile) {
	compiledIsReference(t, "shared compiler", cp, a, s, c, p)
}

// compiledIsReference fails unless cp (named who in the failure) and the
// [Reference] agree on s for a on c under p.
func compiledIsReference(t *rapid.T, who string, cp *Compiler, a *model.Arch, s Serve, c budget.Class, p Profile) {
	ref, refErr := NewReference(a, s, c, p)
	_, plan, err := cp.Compile(s, c, p)
	if refErr != nil || err != nil {
		if refErr == nil || err == nil || refErr.Error() != err.Error() {
			t.Fatalf("reference error %v, %s error %v", refErr, who, err)
		}
		return
	}
	if diff := cmp.Diff(ref.Plan(), plan); diff != "" {
		t.Fatalf("%s != Reference (-reference +compiler):\n%s", who, diff)
	}
}

// footprintsWith compiles s (plain's serve with one feature, named what,
// turned on) for a on c, fails unless the compiled plan is the
// reference's, and returns the feature's footprint f at a point (seqs,
// tokens) drawn within s's limits and plain's p on f's stage, failing if
// any term of any pipeline stage is below plain's there. Stage by stage:
// the feature may move which stage binds (on a unified device a host
// buffer takes the driver's headroom of every stage alike, and the stage
// with the least of it can differ from the one with the least budget),
// and two stages' terms differ (the embedding on the first, the final norm
// and the head on the last), so the binding footprints of plain and with
// need not be of one stage.
func footprintsWith(t *rapid.T, what string, a *model.Arch, s Serve, c budget.Class, plain *budget.Plan) (p, f budget.Footprint, seqs, tokens uint64) {
	with, err := Compile(a, s, c, current)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := NewReference(a, s, c, current)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ref.Plan(), with); diff != "" {
		t.Fatalf("Compiler != Reference (-reference +compiler):\n%s", diff)
	}
	seqs, tokens = rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
	for i := range with.Stages {
		ps, fs := plain.EvaluateStage(i, seqs, tokens), with.EvaluateStage(i, seqs, tokens)
		for term := range budget.NumTerms {
			if fs.Terms[term] < ps.Terms[term] {
				t.Fatalf("stage %d: %s shrinks with %s: %d -> %d", i, budget.Term(term), what, ps.Terms[term], fs.Terms[term])
			}
		}
	}
	f = with.Evaluate(seqs, tokens)
	p = plain.EvaluateStage(f.Stage, seqs, tokens)
	return p, f, seqs, tokens
}
