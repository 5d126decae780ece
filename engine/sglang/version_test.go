package sglang

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine"
)

// TestUnreadReleasesRefusedByName: every release after v0.5.6.post2, the
// newest read, up to v0.5.23 (2026-10) and beyond, is refused naming itself
// and v0.5.6.post2; a release between or before the two read ones keeps
// the plain list. None is sized with another's rules.
func TestUnreadReleasesRefusedByName(t *testing.T) {
	unread := func(name string) string {
		return "SGLang " + name + "'s memory rules are not read at its tag, and the changes since v0.5.6.post2 (the disaggregation reserve #29615, the Mamba pool per pipeline stage #33666, the MTP/EAGLE draft pools #28620, --max-total-tokens clamped) change its pool; the newest release membudget models is v0.5.6.post2 (--sglang-version v0.5.6.post2)"
	}
	plain := "want v0.5.6.post2 (the default) or v0.4.9.post2: the releases whose memory rules membudget has read"
	tests := map[string]string{
		"v0.5.6.post3": unread("v0.5.6.post3"), // a later post release of the read one
		"0.5.10rc0":    unread("v0.5.10"),      // a candidate counts as its release
		"V0.6.0":       unread("v0.6.0"),
		"1.0.0":        unread("v1.0.0"),
		"v0.5.6":       plain, // before .post2
		"v0.5.6.post1": plain,
		"0.5.0":        plain, // between the two read releases
		"v0.4.6":       plain,
		"main":         plain,
		"v0.5":         plain, // not a release SGLang tags
	}
	for minor := 7; minor <= 23; minor++ {
		name := fmt.Sprintf("v0.5.%d", minor)
		tests[name] = unread(name)
	}
	for spec, reason := range tests {
		_, err := ProfileFor(spec)
		var se *engine.SettingError
		if !errors.As(err, &se) {
			t.Fatalf("ProfileFor(%q) = %v, want a setting error", spec, err)
		}
		want := engine.SettingError{Flag: "sglang-version", Value: spec, Reason: reason}
		if diff := cmp.Diff(want, *se); diff != "" {
			t.Errorf("ProfileFor(%q) (-want +got):\n%s", spec, diff)
		}
	}
}

// TestReleaseOrder: post releases follow their release, and the parts
// compare as numbers (v0.5.10 after v0.5.9).
func TestReleaseOrder(t *testing.T) {
	order := []string{"v0.4.9.post2", "v0.5.6", "v0.5.6.post2", "v0.5.7", "v0.5.9", "v0.5.10", "v0.5.23", "v0.6.0"}
	for i := 1; i < len(order); i++ {
		a, okA := parseRelease(order[i-1])
		b, okB := parseRelease(order[i])
		if !okA || !okB || !a.less(b) || b.less(a) {
			t.Errorf("%s before %s: parsed %v %v, less %v, reverse %v", order[i-1], order[i], okA, okB, a.less(b), b.less(a))
		}
		if a.String() != order[i-1] {
			t.Errorf("%s prints as %s", order[i-1], a)
		}
	}
}

// TestPropertyUnreadReleaseNeverSized: a release SGLang could tag is sized
// only when it is one of the two read, and one after v0.5.6.post2 is
// refused naming itself and v0.5.6.post2.
func TestPropertyUnreadReleaseNeverSized(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := release{0, rapid.IntRange(3, 7).Draw(t, "minor"), rapid.IntRange(0, 30).Draw(t, "patch"), rapid.IntRange(0, 3).Draw(t, "post")}
		p, err := ProfileFor(r.String())
		switch {
		case err == nil:
			if p.Name != r.String() || (p.Name != "v0.5.6.post2" && p.Name != "v0.4.9.post2") {
				t.Fatalf("%s sized as %s", r, p.Name)
			}
		case newestRead.less(r):
			if !strings.Contains(err.Error(), "SGLang "+r.String()+"'s memory rules are not read") || !strings.Contains(err.Error(), "(--sglang-version v0.5.6.post2)") {
				t.Fatalf("%s: %v", r, err)
			}
		}
	})
}
