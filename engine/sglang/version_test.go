package sglang

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine"
)

// TestUnreadReleasesRefusedByName: every release after v0.5.18, the
// newest read, up to v0.5.23 (2026-10) and beyond, and a post release of
// v0.5.13 after .post1, of v0.5.14, of v0.5.15 after .post1, of v0.5.16,
// of v0.5.17 or of v0.5.18, is refused naming itself, what of its rules is
// not read and v0.5.18; a
// release
// between or before the read ones gets the plain list, and a release
// candidate of a read release its own refusal. None is sized with
// another's rules.
func TestUnreadReleasesRefusedByName(t *testing.T) {
	const newest = "; the newest release membudget models is v0.5.18 (--sglang-version v0.5.18)"
	// v0.5.13.post2's whole text, by hand: the mirror's tag is its owner's
	// fork commit, kept refused and saying so; the two forks whose tags run
	// on to v0.5.18 (git tag in each) hold none after .post1.
	post := "SGLang v0.5.13.post2's memory rules are not modelled: v0.5.13.post2 is not an upstream release membudget knows: " +
		"the mirror charlesHsuGG/sglang's tag v0.5.13.post2 (403cc43, 2026-06-16) is its owner's commit \"update rl important sampling method\" " +
		"on a fork branch merging release/v0.5.13, and the forks bytedance-iaas/sglang and guqiong96/Lsglang, whose tags run from v0.5.13.post1 " +
		"to v0.5.18, tag no post release of v0.5.13 after .post1" + newest
	_, err := ProfileFor("v0.5.13.post2")
	var se *engine.SettingError
	if !errors.As(err, &se) {
		t.Fatalf("ProfileFor(v0.5.13.post2) = %v, want a setting error", err)
	}
	if diff := cmp.Diff(engine.SettingError{Flag: "sglang-version", Value: "v0.5.13.post2", Reason: post}, *se); diff != "" {
		t.Errorf("ProfileFor(v0.5.13.post2) (-want +got):\n%s", diff)
	}
	// Each release's marks: its tag and date where a fork has them (the
	// annotated tag's commit, abbreviated, and its tagger date in UTC: git
	// cat-file -p v0.5.N in bytedance-iaas/sglang and guqiong96/Lsglang),
	// the pull requests of the memory changes its tag holds (git log --grep
	// at the tag), or the mirrors' lack.
	tests := []struct {
		spec, release string
		marks         []string
	}{
		{"0.5.13.post3", "v0.5.13.post3", []string{"403cc43", "fork branch", "no post release of v0.5.13 after .post1"}},
		// v0.5.14 is modelled; no fork tags a post release of it (the
		// forks' next tag is v0.5.15, f63458b).
		{"v0.5.14.post1", "v0.5.14.post1", []string{"no post release of v0.5.14", "49e384c", "f63458b"}},
		// v0.5.15 and .post1 are modelled; no fork tags a later post
		// release of it (the forks' next tag is v0.5.16, fdebc93).
		{"v0.5.15.post2", "v0.5.15.post2", []string{"no post release of v0.5.15 after .post1", "0b3bb0c", "fdebc93"}},
		// v0.5.16 is modelled; no fork tags a post release of it (the
		// forks' next tag is v0.5.17, 2948168).
		{"v0.5.16.post1", "v0.5.16.post1", []string{"no post release of v0.5.16", "fdebc93", "2948168"}},
		// v0.5.17 is modelled; no fork tags a post release of it (the
		// forks' next tag is v0.5.18, 71de97b).
		{"v0.5.17.post1", "v0.5.17.post1", []string{"no post release of v0.5.17", "2948168", "71de97b"}},
		// v0.5.18 is modelled (profile0518); the forks, copied on
		// 2026-08-22, tag nothing after it.
		{"v0.5.18.post1", "v0.5.18.post1", []string{"no post release of v0.5.18", "71de97b", "2026-08-22"}},
		// v0.5.19: no mirror holds it; it names the change after it.
		{"v0.5.19", "v0.5.19", []string{"2026-09-07", "#38596", "no mirror found"}},
		{"v0.5.20", "v0.5.20", []string{"94602c9", "2026-09-18", "#38596"}},
		{"v0.5.21", "v0.5.21", []string{"e00930c", "date unknown"}},
		{"v0.5.22", "v0.5.22", []string{"nor its date"}},
		{"V0.5.23", "v0.5.23", []string{"2026-10", "v0.5.22's unread changes"}},
		{"v0.5.24", "v0.5.24", []string{"no SGLang release after v0.5.23"}},
		{"0.6.0", "v0.6.0", []string{"no SGLang release after v0.5.23"}},
		{"1.0.0", "v1.0.0", []string{"no SGLang release after v0.5.23"}},
	}
	for _, tt := range tests {
		_, err := ProfileFor(tt.spec)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "sglang-version" || se.Value != tt.spec {
			t.Errorf("ProfileFor(%q) = %v; want a --sglang-version error", tt.spec, err)
			continue
		}
		prefix := "SGLang " + tt.release + "'s memory rules are not modelled: "
		if !strings.HasPrefix(se.Reason, prefix) || !strings.HasSuffix(se.Reason, newest) {
			t.Errorf("ProfileFor(%q): %q; want it to open %q and close %q", tt.spec, se.Reason, prefix, newest)
		}
		for _, m := range tt.marks {
			if !strings.Contains(se.Reason, m) {
				t.Errorf("ProfileFor(%q): %q does not name %q", tt.spec, se.Reason, m)
			}
		}
	}
	// Every release from v0.5.19 to v0.5.23 has its own reason, naming
	// itself: none borrows another's, nor the one for releases after.
	seen := map[string]string{}
	for patch := 19; patch <= 24; patch++ {
		name := fmt.Sprintf("v0.5.%d", patch)
		_, err := ProfileFor(name)
		var se *engine.SettingError
		if !errors.As(err, &se) {
			t.Fatalf("ProfileFor(%q) = %v; want a --sglang-version error", name, err)
		}
		why := strings.TrimPrefix(se.Reason, "SGLang "+name+"'s memory rules are not modelled: ")
		if other, ok := seen[why]; ok {
			t.Errorf("%s and %s are refused for the same reason %q", other, name, why)
		}
		seen[why] = name
		if patch <= 23 && !strings.Contains(why, name) {
			t.Errorf("%s's reason %q does not name it", name, why)
		}
	}
	plain := "want v0.5.18, v0.5.17, v0.5.16, v0.5.15.post1, v0.5.15, v0.5.14, v0.5.13.post1, v0.5.13, v0.5.12.post1, v0.5.12, v0.5.11, v0.5.10.post1, v0.5.10, v0.5.9.post1, v0.5.9, v0.5.8.post1, v0.5.8, v0.5.7, v0.5.6.post3, v0.5.6.post2 (the default) or v0.4.9.post2, the releases whose memory rules membudget has read; v0.5.13.post2, a post release of v0.5.14, v0.5.15.post2, v0.5.16.post1, v0.5.17.post1, v0.5.18.post1, and v0.5.19 to v0.5.23 are refused by name, each saying what of its rules is not read"
	for _, spec := range []string{"v0.5.6", "v0.5.6.post1", "v0.5.6.post4", "v0.5.7.post1", "v0.5.8.post2", "0.5.0", "v0.4.6", "main", "v0.5"} {
		_, err := ProfileFor(spec)
		var se *engine.SettingError
		if !errors.As(err, &se) {
			t.Fatalf("ProfileFor(%q) = %v, want a setting error", spec, err)
		}
		want := engine.SettingError{Flag: "sglang-version", Value: spec, Reason: plain}
		if diff := cmp.Diff(want, *se); diff != "" {
			t.Errorf("ProfileFor(%q) (-want +got):\n%s", spec, diff)
		}
	}
	// v0.5.10rc0 is 317 commits before v0.5.10, server_args.py and the
	// model runner changed after it: refused by name, not sized as
	// v0.5.10; so is any candidate of a release read.
	for _, spec := range []string{"v0.5.10rc0", "0.5.9rc1", "v0.5.15rc0"} {
		_, err := ProfileFor(spec)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Reason != releaseCandidate || !strings.Contains(se.Reason, "317 commits before v0.5.10") {
			t.Errorf("ProfileFor(%q) = %v; want the release candidate's refusal", spec, err)
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
// only when it is one of the twenty-one read, and one after v0.5.18 is
// refused naming itself and v0.5.18.
func TestPropertyUnreadReleaseNeverSized(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := release{0, rapid.IntRange(3, 7).Draw(t, "minor"), rapid.IntRange(0, 30).Draw(t, "patch"), rapid.IntRange(0, 3).Draw(t, "post")}
		p, err := ProfileFor(r.String())
		switch {
		case err == nil:
			if p.Name != r.String() || !slices.Contains([]string{"v0.5.18", "v0.5.17", "v0.5.16", "v0.5.15.post1", "v0.5.15", "v0.5.14", "v0.5.13.post1", "v0.5.13", "v0.5.12.post1", "v0.5.12", "v0.5.11", "v0.5.10.post1", "v0.5.10", "v0.5.9.post1", "v0.5.9", "v0.5.8.post1", "v0.5.8", "v0.5.7", "v0.5.6.post3", "v0.5.6.post2", "v0.4.9.post2"}, p.Name) {
				t.Fatalf("%s sized as %s", r, p.Name)
			}
		case newestRead.less(r):
			if !strings.Contains(err.Error(), "SGLang "+r.String()+"'s memory rules are not modelled") || !strings.Contains(err.Error(), "(--sglang-version v0.5.18)") {
				t.Fatalf("%s: %v", r, err)
			}
		}
	})
}

// TestNewestReadIsTheNewestProfile: newestRead, above which a release is
// refused as unread, is the release of profiles' first (newest) entry,
// v0.5.18 = {0, 5, 18, 0}, spelled back as its name.
func TestNewestReadIsTheNewestProfile(t *testing.T) {
	if diff := cmp.Diff(release{0, 5, 18, 0}, newestRead, cmp.AllowUnexported(release{})); diff != "" {
		t.Errorf("newestRead (-want +got):\n%s", diff)
	}
	if got := newestRead.String(); got != profiles[0].Name {
		t.Errorf("newestRead = %s, want %s", got, profiles[0].Name)
	}
}

// TestVersionHelpListsTheProfiles: --sglang-version's help names every
// modelled release, newest first, the last after "or", then the refused
// range.
func TestVersionHelpListsTheProfiles(t *testing.T) {
	want := "v0.5.18, v0.5.17, v0.5.16, v0.5.15.post1, v0.5.15, v0.5.14, v0.5.13.post1, v0.5.13, v0.5.12.post1, v0.5.12, v0.5.11, v0.5.10.post1, v0.5.10, v0.5.9.post1, v0.5.9, v0.5.8.post1, v0.5.8, v0.5.7, v0.5.6.post3, v0.5.6.post2 or v0.4.9.post2 (v0.5.13.post2, a post release of v0.5.14, v0.5.15.post2, v0.5.16.post1, v0.5.17.post1, v0.5.18.post1, and v0.5.19 to v0.5.23 are refused by name, each saying what of its rules is not read)"
	if VersionHelp != want {
		t.Errorf("VersionHelp = %q, want %q", VersionHelp, want)
	}
}
