package sglang

import (
	"flag"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
