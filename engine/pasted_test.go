package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPastedSettings(t *testing.T) {
	var p Pasted
	p.SetEnv("A_ENV", "0", "the environment")
	// The launch line is read after the environment and wins.
	p.SetEnv("A_ENV", "1", "the launch line")
	p.SetEnv("B_ENV", "yes", "the environment")
	p.Ignore([]string{"CUDA_VISIBLE_DEVICES=0"}, []string{"--port 8000"})
	got := p.Settings(map[string]string{"z-flag": "z's default", "a-flag": "a's default"})
	want := []string{
		"default --a-flag: a's default", // sources by flag, whatever the map's order
		"default --z-flag: z's default",
		"A_ENV=1, from the launch line", // one line a variable, its last value
		"B_ENV=yes, from the environment",
		"ignored CUDA_VISIBLE_DEVICES=0: membudget does not read it",
		"ignored --port 8000: it does not change memory",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Settings (-want +got):\n%s", diff)
	}
	if e, ok := p.Lookup("A_ENV"); !ok || e.Value != "1" || e.From != "the launch line" {
		t.Errorf("Lookup(A_ENV) = %+v, %v; want 1 from the launch line", e, ok)
	}
	if _, ok := p.Lookup("C_ENV"); ok {
		t.Error("Lookup(C_ENV) found a variable never set")
	}
	all := p.AllIgnored()
	if diff := cmp.Diff([]string{"CUDA_VISIBLE_DEVICES=0", "--port 8000"}, all); diff != "" {
		t.Errorf("AllIgnored (-want +got):\n%s", diff)
	}
	all[0] = "changed"
	if p.IgnoredEnv[0] != "CUDA_VISIBLE_DEVICES=0" {
		t.Error("AllIgnored shares its backing array with the Pasted")
	}
}

func TestAliasesGiven(t *testing.T) {
	a := Aliases{"tensor-parallel-size": {"tp"}}
	cases := []struct {
		given map[string]bool
		flag  string
		want  bool
	}{
		{map[string]bool{"tensor-parallel-size": true}, "tensor-parallel-size", true},
		{map[string]bool{"tp": true}, "tensor-parallel-size", true}, // by its alias
		{map[string]bool{"pp": true}, "tensor-parallel-size", false},
		{map[string]bool{"dtype": true}, "dtype", true}, // a flag without aliases
		{nil, "dtype", false},
	}
	for _, c := range cases {
		if got := a.Given(c.given, c.flag); got != c.want {
			t.Errorf("Given(%v, %q) = %v; want %v", c.given, c.flag, got, c.want)
		}
	}
}

func TestPastedForReport(t *testing.T) {
	p := Pasted{Ignored: []string{"--port 8000"}, Listed: []string{"--seed 1"}}
	r := p.ForReport()
	// The command's own listed flags first, then the pasted line's.
	if diff := cmp.Diff([]string{"--seed 1", "--port 8000"}, r.Ignored); diff != "" {
		t.Errorf("ForReport().Ignored (-want +got):\n%s", diff)
	}
	if r.Listed != nil || len(p.Ignored) != 1 {
		t.Errorf("ForReport changed its receiver or kept Listed: %+v, %+v", p, r)
	}
}
