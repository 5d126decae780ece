package sglang

import (
	"slices"
	"strings"
	"testing"
)

// TestUnreadModelNamesItsRelease: a native architecture membudget has not
// read is refused with the release it came in. Qwen3.5's
// Qwen3_5ForConditionalGeneration and GLM-5's GlmMoeDsaForCausalLM are
// v0.5.9's (new059): "new in this release" under v0.5.9 and its post
// release, "new in v0.5.9" under v0.5.10 and every later one, where the
// refusal said "new in this release" too.
func TestUnreadModelNamesItsRelease(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		model, release, want string
	}{
		{"Qwen__Qwen3.5-27B", "v0.5.9", "implements Qwen3_5ForConditionalGeneration natively, new in this release,"},
		{"Qwen__Qwen3.5-27B", "v0.5.9.post1", "implements Qwen3_5ForConditionalGeneration natively, new in this release,"},
		{"Qwen__Qwen3.5-27B", "v0.5.10", "implements Qwen3_5ForConditionalGeneration natively, new in v0.5.9,"},
		// v0.5.14's Qwen3.5 is read (mamba.go): v0.5.13.post1 the latest
		// that refuses it.
		{"Qwen__Qwen3.5-27B", "v0.5.13.post1", "implements Qwen3_5ForConditionalGeneration natively, new in v0.5.9,"},
		{"Qwen__Qwen3.5-35B-A3B", "v0.5.13.post1", "implements Qwen3_5MoeForConditionalGeneration natively, new in v0.5.9,"},
		{"zai-org__GLM-5", "v0.5.13.post1", "implements GlmMoeDsaForCausalLM natively, new in v0.5.9,"},
	} {
		_, err := Resolve(Serve{TPSize: 2}, archs[tt.model], h100, mustProfile(tt.release))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s under %s: %v; want it to say %q", tt.model, tt.release, err, tt.want)
		}
	}
}

// TestNativeSinceEveryList: nativeSince finds the release each list of
// new architectures belongs to from the profiles' chain alone: every
// architecture of newX is "new in this release" under X and its post
// release, and "new in X" under v0.5.14 (but for X = v0.5.14 itself). The
// lists and their releases are written here, as profiles_05x.go's
// comments name them, not derived from the profiles.
func TestNativeSinceEveryList(t *testing.T) {
	for _, tt := range []struct {
		release, post string // post: its post release, "" for none
		archs         []string
	}{
		{"v0.5.9", "v0.5.9.post1", new059},
		{"v0.5.10", "v0.5.10.post1", new0510},
		{"v0.5.11", "", new0511},
		{"v0.5.12", "v0.5.12.post1", new0512},
		{"v0.5.13", "v0.5.13.post1", new0513},
		{"v0.5.14", "", new0514},
	} {
		if len(tt.archs) == 0 {
			t.Errorf("%s: no architectures", tt.release)
		}
		for _, arch := range tt.archs {
			for _, at := range []string{tt.release, tt.post} {
				if at == "" {
					continue
				}
				if got := nativeSince(mustProfile(at), arch); got != "new in this release" {
					t.Errorf("nativeSince(%s, %s) = %q, want new in this release", at, arch, got)
				}
			}
			want := "new in " + tt.release
			if tt.release == "v0.5.14" {
				want = "new in this release"
			}
			if got := nativeSince(mustProfile("v0.5.14"), arch); got != want {
				t.Errorf("nativeSince(v0.5.14, %s) = %q, want %q", arch, got, want)
			}
		}
	}
	if got := nativeSince(mustProfile("v0.5.14"), "LlamaForCausalLM"); got != "new in this release" {
		t.Errorf("nativeSince(v0.5.14, LlamaForCausalLM), which no list names, = %q", got)
	}
}

// checkNewNative checks a release's list of new native architectures,
// added, against its count by hand from the grep (want) and against the
// release before's list, prev: each is new there (a name already native
// there would be refused as unread where membudget sized it before), and
// the release's list, native, names each once.
func checkNewNative(t *testing.T, release string, prev, added, native []string, want int) {
	t.Helper()
	if len(added) != want {
		t.Errorf("%s adds %d native architectures, want %d by the grep", release, len(added), want)
	}
	for _, arch := range added {
		if slices.Contains(prev, arch) {
			t.Errorf("%s: %s is native in the release before already", release, arch)
		}
	}
	for i := 1; i < len(native); i++ {
		if native[i] == native[i-1] {
			t.Errorf("%s: %s is listed twice", release, native[i])
		}
	}
	if !slices.IsSorted(native) {
		t.Errorf("%s: its native list is not sorted, which the check for twice-listed names takes", release)
	}
}
