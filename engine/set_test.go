package engine

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model/hub"
)

// fakeEngine is an engine of a test: its flags, concepts and
// launch word are the table's, so that the set's messages are checked for
// engines no package of membudget defines.
type fakeEngine struct {
	name, title, word string
	flags             []Concept
}

func (e fakeEngine) Name() string  { return e.name }
func (e fakeEngine) Title() string { return e.title }
func (e fakeEngine) NewServe() Serve {
	return &fakeServe{e: e}
}
func (e fakeEngine) LaunchLine(args []string) bool { return len(args) > 0 && args[0] == e.word }
func (e fakeEngine) LineUsage() string             { return e.word + " [flags]" }

type fakeServe struct {
	e        fakeEngine
	values   map[string]*string
	ignored  []string
	env      map[string]string
	parsedOK bool
}

func (s *fakeServe) Register(fs *flag.FlagSet, model *string) {
	s.values = map[string]*string{}
	for _, c := range s.e.flags {
		if c.Flag == "model" || strings.Contains(c.Flag, "=") {
			continue
		}
		s.values[c.Flag] = fs.String(c.Flag, "", "")
	}
}
func (s *fakeServe) Concepts() []Concept { return s.e.flags }
func (s *fakeServe) ReadLine(args []string) (Line, error) {
	return Line{Name: "the " + s.e.word + " line", Args: args[1:]}, nil
}
func (s *fakeServe) Env() []string { return []string{"FAKE_ENV"} }
func (s *fakeServe) SetEnv(name, value, from string) {
	if s.env == nil {
		s.env = map[string]string{}
	}
	s.env[name] = value + " from " + from
}
func (s *fakeServe) Ignore(env, flags []string) { s.ignored = append(env, flags...) }
func (s *fakeServe) Parsed(map[string]bool) ([]string, error) {
	s.parsedOK = true
	return nil, nil
}
func (s *fakeServe) Size(*hub.Loaded, budget.Class) (Sizing, error) {
	return nil, errors.New("a fake engine sizes nothing")
}

// threeEngines are a default engine and two others, one flag of an idea
// each, the third without an idea the first has.
func threeEngines(t *testing.T) *Set {
	t.Helper()
	alpha := fakeEngine{name: "alpha", title: "Alpha", word: "alpha-serve",
		flags: []Concept{{Flag: "model", Idea: IdeaModel}, {Flag: "budget-share", Idea: IdeaBudget, Gloss: "a share of the total"},
			{Flag: "longest", Idea: IdeaLongest}, {Flag: "shared", Idea: IdeaDtype}}}
	beta := fakeEngine{name: "beta", title: "Beta", word: "beta-launch",
		flags: []Concept{{Flag: "fraction", Idea: IdeaBudget, Gloss: "a share of what is free"}, {Flag: "context", Idea: IdeaLongest},
			{Flag: "shared", Idea: IdeaDtype}, {Flag: "beta-only"}}}
	gamma := fakeEngine{name: "gamma", title: "Gamma", word: "gamma-run",
		flags: []Concept{{Flag: "util", Idea: IdeaBudget}, {Flag: "GAMMA_LONG=1", Idea: IdeaLongest}}}
	set, err := NewSet(alpha, beta, gamma)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestSetDerivesWhoseFlagItIs: for any pair of engines, a flag of one given
// for the other names its owner and the other's flag of the same idea
// (with its gloss), in the default engine's words or another's; another
// engine's launch
// line names that engine; the command's own flags and flags no engine
// takes pass.
func TestSetDerivesWhoseFlagItIs(t *testing.T) {
	set := threeEngines(t)
	alpha, beta, gamma := set.Engines()[0], set.Engines()[1], set.Engines()[2]
	none := func(string) bool { return false }
	own := func(n string) bool { return n == "seqs" }
	cases := []struct {
		name string
		e    Engine
		args []string
		want string
	}{
		{"beta's flag under the default", alpha, []string{"--fraction", "0.9"},
			"--fraction is Beta's flag: give --engine beta, or Alpha's nearest, --budget-share, a share of the total (--engine alpha is the default)"},
		{"alpha's flag under beta, = form", beta, []string{"--budget-share=0.9"},
			"--budget-share is Alpha's flag, and --engine beta takes Beta's: its nearest is --fraction, a share of what is free"},
		{"an environment variable is the nearest", gamma, []string{"--context", "8"},
			"--context is Beta's flag, and --engine gamma takes Gamma's: its nearest is GAMMA_LONG=1 in the environment"},
		{"no nearest", alpha, []string{"--beta-only"}, "--beta-only is Beta's flag: give --engine beta (--engine alpha is the default)"},
		{"underscores read as dashes", alpha, []string{"--beta_only"}, "--beta_only is Beta's flag: give --engine beta (--engine alpha is the default)"},
		{"another's launch line", alpha, []string{"beta-launch", "--fraction", "1"},
			"a launch line of Beta (`beta-launch [flags]`) needs --engine beta (--engine alpha is the default)"},
		{"another's launch line under a non-default engine", gamma, []string{"X=1", "alpha-serve"},
			"a launch line of Alpha (`alpha-serve [flags]`) with --engine gamma: give Gamma's (`gamma-run [flags]`), or --engine alpha"},
		{"a shared flag", beta, []string{"--shared", "x"}, ""},
		{"the command's own", beta, []string{"--seqs", "1"}, ""},
		{"no engine's", alpha, []string{"--nobody"}, ""},
		{"stops at --", alpha, []string{"--", "--fraction"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := set.Check(tc.e, tc.args, own)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Check(%s, %q):\n got %q\nwant %q", tc.e.Name(), tc.args, got, tc.want)
			}
		})
	}
	var fe *FlagError
	if err := set.Check(gamma, []string{"--fraction"}, none); !errors.As(err, &fe) || fe.Owner.Name() != "beta" || fe.For.Name() != "gamma" || fe.Nearest != "--util" || fe.ForDefault {
		t.Errorf("the refusal as a *FlagError: %#v", fe)
	}
}

// TestEngineOf reads --engine as the flag package will (the last wins),
// stops at a launch line and at --, and names the engines for an unknown
// one.
func TestEngineOf(t *testing.T) {
	set := threeEngines(t)
	cases := []struct {
		args []string
		want string
	}{
		{nil, "alpha"},
		{[]string{"--engine", "beta"}, "beta"},
		{[]string{"--engine=gamma", "-engine", "beta"}, "beta"},
		{[]string{"--engine", "beta", "beta-launch", "--engine", "gamma"}, "beta"},
		{[]string{"--", "--engine", "beta"}, "alpha"},
		{[]string{"--engine", "delta"}, `--engine "delta": unknown engine; the engines are alpha, beta, gamma`},
		{[]string{"--engine"}, "--engine needs a value: one of alpha, beta, gamma"},
	}
	for _, tc := range cases {
		e, err := set.EngineOf(tc.args)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = e.Name()
		}
		if got != tc.want {
			t.Errorf("EngineOf(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	if _, err := NewSet(fakeEngine{name: "a"}, fakeEngine{name: "a"}); err == nil {
		t.Error("two engines of one name make a set")
	}
}

// TestReadLaunch reads a line through the engine: the assignments it reads
// go to it, the others are ignored, --revision is taken out, a stray
// argument or a --revision without a value is an error naming the line.
func TestReadLaunch(t *testing.T) {
	set := threeEngines(t)
	beta := set.Engines()[1]
	s := beta.NewServe().(*fakeServe)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var model string
	s.Register(fs, &model)
	env, rest := SplitEnv([]string{"FAKE_ENV=1", "OTHER=2", "beta-launch", "--fraction", "0.5", "--revision=v1"})
	l, err := ReadLaunch(s, fs, env, rest)
	if err != nil {
		t.Fatal(err)
	}
	want := Launch{Name: "the beta-launch line", Revision: "v1", Env: map[string]bool{"FAKE_ENV": true}, IgnoredEnv: []string{"OTHER=2"}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if *s.values["fraction"] != "0.5" || s.env["FAKE_ENV"] != "1 from the launch line" {
		t.Errorf("the line's flag %q and variable %q", *s.values["fraction"], s.env["FAKE_ENV"])
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"beta-launch", "stray"}, `unexpected argument "stray" in the beta-launch line`},
		{[]string{"beta-launch", "--revision"}, "--revision in the beta-launch line needs a value: a branch, tag or commit"},
		{[]string{"beta-launch", "--revision", "a", "--revision=b"}, "the beta-launch line gives --revision twice: a and b"},
	} {
		s := beta.NewServe()
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		s.Register(fs, &model)
		if _, err := ReadLaunch(s, fs, nil, tc.args); err == nil || err.Error() != tc.want {
			t.Errorf("ReadLaunch(%q): %v, want %q", tc.args, err, tc.want)
		}
	}
	var pe *ParseError
	if _, err := ReadLaunch(beta.NewServe(), flag.NewFlagSet("t", flag.ContinueOnError), nil, []string{"beta-launch", "--nobody"}); !errors.As(err, &pe) {
		t.Errorf("an unknown flag is a *ParseError: %v", err)
	}
}

// TestLineHelpers: the shell's assignments, Python's names, the flags that
// do not change memory.
func TestLineHelpers(t *testing.T) {
	for s, want := range map[string]bool{"A=1": true, "_x9=": true, "9A=1": false, "-A=1": false, "A": false, "A-B=1": false} {
		if IsEnvAssignment(s) != want {
			t.Errorf("IsEnvAssignment(%q) = %v", s, !want)
		}
	}
	for s, want := range map[string]bool{"python": true, "/usr/bin/python3": true, "python3.12": true, "python2": false, "pythonista": false} {
		if IsPython(s) != want {
			t.Errorf("IsPython(%q) = %v", s, !want)
		}
	}
	kept, dropped := SplitIgnored([]string{"--port", "8000", "--tp", "2", "--host=0.0.0.0", "--quiet", "model"}, map[string]bool{"port": true, "host": true, "quiet": false},
		func(s string) string { return s })
	if diff := cmp.Diff([]string{"--tp", "2", "model"}, kept); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"--port 8000", "--host=0.0.0.0", "--quiet"}, dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
}

// TestSettingError and the switch flag: the error's forms, a flag's and
// an environment variable's, told by Env, not by the name's shape; and a
// switch that takes no value.
func TestSettingErrorAndSwitch(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  *SettingError
		want string
		env  bool
	}{
		{"a flag", Refuse("max-model-len", 8, "above %d", 4), "--max-model-len 8: above 4", false},
		{"a flag without a value", &SettingError{Flag: "x", Reason: "no"}, "--x: no", false},
		{"a flag with an underscore", Refuse("enable_sp", "1", "no"), "--enable_sp 1: no", false},
		// An environment variable is named as a launch line sets it.
		{"an environment variable", RefuseEnv("VLLM_USE_V2_MODEL_RUNNER", "1", "no %s", "V2"), "VLLM_USE_V2_MODEL_RUNNER=1: no V2", true},
		// The form follows Env, not the name: a flag spelled as a
		// variable is still a flag, and a variable of another spelling
		// still a variable.
		{"a flag in capitals", Refuse("VLLM_X", "1", "no"), "--VLLM_X 1: no", false},
		{"a variable in lower case", RefuseEnv("http_proxy", "", "no"), "http_proxy=: no", true},
	} {
		if got := tt.err.Error(); got != tt.want || tt.err.Env != tt.env {
			t.Errorf("%s: %q (Env %v), want %q (Env %v)", tt.name, got, tt.err.Env, tt.want, tt.env)
		}
	}
	var s Switch
	f := &SwitchFlag{V: &s, To: Off}
	if err := f.Set("true"); err != nil || s != Off {
		t.Errorf("set: %v, %v", err, s)
	}
	if err := f.Set("false"); err == nil {
		t.Error("a switch took false")
	}
}

// TestFormats pins the figures' renderings.
func TestFormats(t *testing.T) {
	if got := GiB(3 << 29); got != "1.50 GiB" {
		t.Errorf("GiB: %q", got)
	}
	if got := GiBAndBytes(1 << 30); got != "1.00 GiB (1073741824 B)" {
		t.Errorf("GiBAndBytes: %q", got)
	}
	// (1050 - 1000) / 1000 = +5 %; to four decimals.
	if got := PercentOver(1050, 1000); got != 5 {
		t.Errorf("PercentOver: %v", got)
	}
	if got := PercentOver(1, 3); got != -66.6667 {
		t.Errorf("PercentOver(1, 3): %v", got)
	}
	if PercentOver(5, 0) != 0 {
		t.Error("PercentOver of nothing")
	}
}
