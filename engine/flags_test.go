package engine

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNearestByEditDistance(t *testing.T) {
	names := []string{"enable-lora", "max-loras", "host", "port"}
	cases := []struct{ name, want string }{
		// One deletion away.
		{"enable-lorra", "enable-lora"},
		// "max-lora" to "max-loras": one insertion; to "enable-lora"
		// the prefixes differ in 4 of 4 letters and 3 more.
		{"max-lora", "max-loras"},
		// "post" is one substitution from "host" and one from "port":
		// the first in sorted order wins.
		{"post", "host"},
	}
	for _, tc := range cases {
		if got := Nearest(tc.name, names); got != tc.want {
			t.Errorf("Nearest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	if got := Nearest("x", nil); got != "" {
		t.Errorf("Nearest of no names = %q, want \"\"", got)
	}
}

func TestPythonModule(t *testing.T) {
	cases := []struct {
		args   []string
		module string
		n      int
	}{
		{[]string{"python", "-m", "vllm.entrypoints.openai.api_server", "--model", "M"}, "vllm.entrypoints.openai.api_server", 3},
		{[]string{"/usr/bin/python3.12", "-u", "-B", "-m", "sglang.launch_server"}, "sglang.launch_server", 5},
		// -c takes a program, not a module; -W a value.
		{[]string{"python", "-c", "print(1)"}, "", 0},
		{[]string{"python", "-W", "ignore", "-m", "x"}, "", 0},
		{[]string{"python", "-m"}, "", 0},
		{[]string{"vllm", "serve"}, "", 0},
		{nil, "", 0},
	}
	for _, tc := range cases {
		module, n := PythonModule(tc.args)
		if module != tc.module || n != tc.n {
			t.Errorf("PythonModule(%q) = %q, %d; want %q, %d", tc.args, module, n, tc.module, tc.n)
		}
	}
}

func TestFlagValueAndLastValue(t *testing.T) {
	args := []string{"--vllm-version", "0.19.0", "--x=1", "--sw", "--vllm-version=0.20.0", "--", "--vllm-version", "0.8.5"}
	cases := []struct {
		i          int
		takesValue bool
		want       string
		ok         bool
	}{
		{0, true, "0.19.0", true},
		{2, true, "1", true},
		{3, false, "", true},
		{7, true, "", false},
	}
	for _, tc := range cases {
		got, ok := FlagValue(args, tc.i, tc.takesValue)
		if got != tc.want || ok != tc.ok {
			t.Errorf("FlagValue(args, %d, %v) = %q, %v; want %q, %v", tc.i, tc.takesValue, got, ok, tc.want, tc.ok)
		}
	}
	// The last before "--" wins, as the flag package reads it.
	if got := LastValue(args, "vllm-version"); got != "0.20.0" {
		t.Errorf("LastValue = %q, want 0.20.0", got)
	}
	if got := FlagName("--max_model_len=8"); got != "max-model-len" {
		t.Errorf("FlagName = %q, want max-model-len", got)
	}
}

func TestPrintDefaultsHidesTheServersOtherFlags(t *testing.T) {
	fs := flag.NewFlagSet("membudget report", flag.ContinueOnError)
	var out bytes.Buffer
	fs.SetOutput(&out)
	fs.String("class", "", "device class")
	var listed []string
	fs.Var(&IgnoredFlag{List: &listed, Name: "host"}, "host", "vLLM's --host")
	fs.Var(&IgnoredFlag{List: &listed, Name: "trust-remote-code", Switch: true}, "trust-remote-code", "")
	PrintDefaults(fs)
	want := "  -class string\n    \tdevice class\n" +
		"  ... and 2 flags of the server that do not change memory (listed as ignored) or that membudget refuses by name\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("PrintDefaults (-want +got):\n%s", diff)
	}
	if err := fs.Parse([]string{"--trust-remote-code", "--host", "0.0.0.0", "--host=::"}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"--trust-remote-code", "--host 0.0.0.0", "--host ::"}, listed); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
}

// judgingServe is a fake serve whose Judge refuses --refused by name and
// every flag it does not know as not a flag of its release, which it reads
// from --release.
type judgingServe struct {
	fakeServe
	judged []string
}

func (s *judgingServe) Judge(args []string, i int) error {
	name := FlagName(args[i])
	s.judged = append(s.judged, name)
	switch name {
	case "budget-share", "longest", "shared", "known":
		return nil
	case "refused":
		return errors.New("--refused: what it adds: not modelled")
	}
	return NotAFlag(strings.SplitN(args[i], "=", 2)[0], name, "Alpha "+LastValue(args, "release"), []string{"budget-share", "known", "longest"})
}

type judgingEngine struct{ fakeEngine }

func (e judgingEngine) NewServe() Serve { return &judgingServe{fakeServe: fakeServe{e: e.fakeEngine}} }

// TestCheckAsksTheJudge: a serve that is a Judge judges every flag given
// for its engine but the command's own and other engines' (which Check
// refuses as theirs); negative numbers and the interpreter's words of the
// engine's own launch line are not flags.
func TestCheckAsksTheJudge(t *testing.T) {
	alpha := judgingEngine{fakeEngine{name: "alpha", title: "Alpha", word: "python",
		flags: []Concept{{Flag: "model", Idea: IdeaModel}, {Flag: "budget-share", Idea: IdeaBudget}, {Flag: "longest", Idea: IdeaLongest}}}}
	beta := fakeEngine{name: "beta", title: "Beta", word: "beta-launch", flags: []Concept{{Flag: "fraction", Idea: IdeaBudget}}}
	set, err := NewSet(alpha, beta)
	if err != nil {
		t.Fatal(err)
	}
	own := func(n string) bool { return n == "release" || n == "seqs" }
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"known", []string{"--known", "--longest", "-1"}, ""},
		{"refused by name", []string{"--known", "--refused=1"}, "--refused: what it adds: not modelled"},
		{"not a flag of the release", []string{"--release", "0.1", "--knwon"}, "--knwon is not a flag of Alpha 0.1: its nearest is --known"},
		{"another engine's", []string{"--fraction", "1"}, "--fraction is Beta's flag: give --engine beta, or Alpha's nearest, --budget-share (--engine alpha is the default)"},
		{"help is the flag package's", []string{"-h"}, ""},
		{"the interpreter's words", []string{"python", "-u", "-m", "mod", "--known"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if err := set.Check(set.Default(), tc.args, own); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("Check(%q):\n got %q\nwant %q", tc.args, got, tc.want)
			}
		})
	}
	judge := set.serves[0].(*judgingServe)
	judge.judged = nil
	if err := set.Check(set.Default(), []string{"--seqs", "1", "--known", "--max-model-len=-5"}, own); err == nil {
		t.Fatal("want --max-model-len refused as not a flag")
	}
	if diff := cmp.Diff([]string{"known", "max-model-len"}, judge.judged); diff != "" {
		t.Errorf("judged (-want +got), the command's own --seqs left out:\n%s", diff)
	}
}

func TestAsksHelp(t *testing.T) {
	cases := []struct {
		args []string
		want bool
	}{
		{[]string{"-h"}, true},
		{[]string{"--model", "m", "--help"}, true},
		{[]string{"-help"}, true},
		{[]string{"--h"}, true},
		{[]string{"--model", "m", "--", "-h"}, false}, // after "--", an argument
		{[]string{"--hf-token", "x"}, false},
		{nil, false},
	}
	for _, c := range cases {
		if got := AsksHelp(c.args); got != c.want {
			t.Errorf("AsksHelp(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}

// TestNamedFlags: every word that begins with a dash names a flag, in
// any of the flag package's spellings, "-" (stdin) does not, and a value
// never does.
func TestNamedFlags(t *testing.T) {
	t.Parallel()
	got := NamedFlags([]string{"--model", "m", "-tp=2", "--no-enable-prefix-caching", "-", "--json", "x.log"})
	want := map[string]bool{"model": true, "tp": true, "no-enable-prefix-caching": true, "json": true}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("NamedFlags (-want +got):\n%s", d)
	}
}

// TestValuesEnd: a flag of several values at args[0] takes every argument
// up to the next that begins with a dash, a number as number reads it
// included; none follow where the next argument is a flag or there is
// none.
func TestValuesEnd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--a", "1", "2", "--b", "3"}, 3},   // "--b" ends them
		{[]string{"--a", "1", "-1", "-0.5", "x"}, 5}, // negative numbers are values, to the end
		{[]string{"--a", "1", "-inf"}, 2},            // "-inf" begins with no digit: a flag
		{[]string{"--a", "--b"}, 1},                  // nargs "*" with none
		{[]string{"--a"}, 1},
	} {
		if got := ValuesEnd(tc.args, 0, IsNumber); got != tc.want {
			t.Errorf("ValuesEnd(%q) = %d, want %d", tc.args, got, tc.want)
		}
	}
}
