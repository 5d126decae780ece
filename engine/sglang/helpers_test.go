package sglang

import (
	"math"

	"membudget"
	"membudget/budget"
	"membudget/model"
)

// tb is what the helpers need of a *testing.T or a *rapid.T.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// shipped parses every config of corpus/models, by file name.
func shipped(t tb) map[string]*model.Arch {
	t.Helper()
	archs := map[string]*model.Arch{}
	for _, name := range membudget.ModelNames() {
		data, path, ok := membudget.ModelConfig(name)
		if !ok {
			t.Fatalf("shipped model %s has no config", name)
		}
		a, err := model.ParseConfig(path, data)
		if err != nil {
			t.Fatal(err)
		}
		archs[name] = a
	}
	if len(archs) == 0 {
		t.Fatal("no shipped models")
	}
	return archs
}

// class loads a shipped class or fails the test.
func class(t tb, name string) budget.Class {
	t.Helper()
	c, err := membudget.Kernels().Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// current is the default profile, v0.5.6.post2; r049 the observed row's.
var (
	current = mustProfile(DefaultName)
	r049    = mustProfile("v0.4.9.post2")
)

func mustProfile(spec string) Profile {
	p, err := ProfileFor(spec)
	if err != nil {
		panic(err)
	}
	return p
}

// ref builds a reference or fails the test.
func ref(t tb, a *model.Arch, s Serve, c budget.Class, p Profile) *Reference {
	t.Helper()
	r, err := NewReference(a, s, c, p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// serverDefaults is what a release's ServerArgs defaults make of a serve on
// a class: the fields the release tests pin.
type serverDefaults struct {
	msf           float64
	chunked       int64
	graphBS, page uint64
	backend       string
}

// checkServerDefaults fails unless r holds want, naming the case and the
// reasoning that gives want.
func checkServerDefaults(t tb, name, reasoning string, r *Resolved, want serverDefaults) {
	t.Helper()
	got := serverDefaults{r.MemFractionStatic, r.ChunkedPrefillSize, r.CudaGraphMaxBS, r.PageSize, r.AttentionBackend}
	if math.Abs(got.msf-want.msf) > 1e-12 || got.chunked != want.chunked || got.graphBS != want.graphBS || got.page != want.page || got.backend != want.backend {
		t.Errorf("%s: msf %v chunked %d graph bs %d page %d backend %q; want %v %d %d %d %q (%s)", name,
			got.msf, got.chunked, got.graphBS, got.page, got.backend,
			want.msf, want.chunked, want.graphBS, want.page, want.backend, reasoning)
	}
}
