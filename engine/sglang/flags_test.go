package sglang

import (
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJudge: the flags membudget knows of SGLang's server pass (those it
// refuses by name are refused before, by engine.Set.Check); any other is
// not a flag of the release the command names, with its nearest.
func TestJudge(t *testing.T) {
	cases := []struct {
		args []string
		// at is the flag judged.
		at   int
		want string
	}{
		{[]string{"--mem-fraction-static", "0.8"}, 0, ""},
		{[]string{"--host", "0.0.0.0"}, 0, ""},
		{[]string{"--revision", "main"}, 0, ""},
		{[]string{"--enable-lora"}, 0, ""},
		// "hots" is two substitutions from "host"; "page-sise" one from
		// "page-size".
		{[]string{"--hots"}, 0, "--hots is not a flag of SGLang v0.5.6.post2 as membudget has read it (python/sglang/srt/server_args.py): its nearest is --host"},
		{[]string{"--sglang-version", "v0.4.9.post2", "--page-sise=16"}, 2, "--page-sise is not a flag of SGLang v0.4.9.post2 as membudget has read it (python/sglang/srt/server_args.py): its nearest is --page-size"},
	}
	for _, tc := range cases {
		got := ""
		if err := (&flagServe{}).Judge(tc.args, tc.at); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Judge(%q):\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
}

// TestIgnoredFlagsParse: a flag that does not change memory parses
// wherever it is given, and is listed as given.
func TestIgnoredFlagsParse(t *testing.T) {
	s := Engine{}.NewServe().(*flagServe)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var model string
	s.Register(fs, &model)
	if err := fs.Parse([]string{"--host", "0.0.0.0", "--trust-remote-code", "--log-level=info", "--tp-size", "2"}); err != nil {
		t.Fatal(err)
	}
	// --trust-remote-code is modelled (remotecode.go): set, not listed.
	if diff := cmp.Diff([]string{"--host 0.0.0.0", "--log-level info"}, s.Listed); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	if !s.s.TrustRemoteCode {
		t.Error("--trust-remote-code given, not set")
	}
}
