package sglang

import (
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
