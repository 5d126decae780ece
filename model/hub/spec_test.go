package hub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckRepoID(t *testing.T) {
	valid := []string{
		"gpt2",
		"meta-llama/Llama-3.1-8B-Instruct",
		"Qwen/Qwen3-30B-A3B-FP8",
		"a_b/c.d",
		"org/" + strings.Repeat("n", 96),
	}
	for _, id := range valid {
		if err := CheckRepoID(id); err != nil {
			t.Errorf("CheckRepoID(%q) = %v, want valid", id, err)
		}
	}
	invalid := map[string]string{
		"":                               "1 to 96 characters",
		"/x":                             "1 to 96 characters",
		"x/":                             "1 to 96 characters",
		"a/b/c":                          "one slash at most",
		"-a/b":                           "cannot begin or end with '-' or '.'",
		"a/b-":                           "cannot begin or end",
		"a/.b":                           "cannot begin or end",
		"a--b/c":                         `cannot contain "--" or ".."`,
		"a/b..c":                         `cannot contain "--" or ".."`,
		"a/b.git":                        `cannot end in ".git"`,
		"org/" + strings.Repeat("n", 97): "1 to 96 characters",
		"a b/c":                          "letters, digits",
		"a/b@c":                          "letters, digits",
		"ü/x":                            "letters, digits",
	}
	for id, want := range invalid {
		if err := CheckRepoID(id); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckRepoID(%q) = %v, want an error containing %q", id, err, want)
		}
	}
}

func TestCheckRevision(t *testing.T) {
	for _, rev := range []string{"main", "v1.0", "refs/pr/1", commitA, "release-2024_01"} {
		if err := CheckRevision(rev); err != nil {
			t.Errorf("CheckRevision(%q) = %v, want valid", rev, err)
		}
	}
	// Each of these could name a file outside refs/, or is not a git ref.
	for _, rev := range []string{"", "../x", "a/../b", "..", "/main", "main/", "a//b", "a b", "a~1", "a^", "x:y",
		".hidden", "a/.b", "a.lock", "a.", "@", "a@{1}", `a\b`, "a\x00b", strings.Repeat("r", 256)} {
		if err := CheckRevision(rev); err == nil {
			t.Errorf("CheckRevision(%q) accepted it", rev)
		}
	}
}

func TestSuggest(t *testing.T) {
	tests := []struct {
		spec string
		want []string
	}{
		{"", nil},
		{"mistralai/Mixtral-8x7B-v0.1", nil},
		// 3.1-8B is 1 edit away (the missing 'l'), 3.2-1B 3 (the 'l',
		// 1->2, 8->1), within a quarter of the 31 characters: 7.
		{"meta-lama/Llama-3.1-8B-Instruct", []string{"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.2-1B-Instruct"}},
		{"Qwen/Qwen3-8B@main", []string{"Qwen/Qwen3-8B", "Qwen/Qwen3-32B"}},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.want, suggest(tc.spec, shippedIDs)); diff != "" {
			t.Errorf("suggest(%q) (-want +got):\n%s", tc.spec, diff)
		}
	}
}

func TestFileURL(t *testing.T) {
	r := Resolver{Endpoint: "https://huggingface.co"}
	tests := []struct{ repo, rev, file, want string }{
		{"meta-llama/Llama-3.1-8B-Instruct", "main", "config.json",
			"https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct/resolve/main/config.json"},
		// hf_hub_url quotes the revision with safe="": its slashes too.
		{"org/m", "refs/pr/1", "model-00001-of-00002.safetensors",
			"https://huggingface.co/org/m/resolve/refs%2Fpr%2F1/model-00001-of-00002.safetensors"},
		{"org/m", "main", "sub dir/a b.safetensors", "https://huggingface.co/org/m/resolve/main/sub%20dir/a%20b.safetensors"},
	}
	for _, tc := range tests {
		if got := r.fileURL(tc.repo, tc.rev, tc.file); got != tc.want {
			t.Errorf("fileURL(%q, %q, %q) = %q, want %q", tc.repo, tc.rev, tc.file, got, tc.want)
		}
	}
}

func TestCheckRepoFile(t *testing.T) {
	for _, ok := range []string{"model-00001-of-00004.safetensors", "sub/model.safetensors"} {
		if err := checkRepoFile(ok); err != nil {
			t.Errorf("checkRepoFile(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "../../etc/passwd", "a/../b.safetensors", "/etc/x.safetensors", `..\x.safetensors`,
		"C:x.safetensors", "./a.safetensors", "a//b.safetensors", "a\nb.safetensors", "x.bin"} {
		if err := checkRepoFile(bad); err == nil {
			t.Errorf("checkRepoFile(%q) accepted it", bad)
		}
	}
}

// TestIsPath: what Resolve reads as a path is one, so that a revision is
// never joined to it.
func TestIsPath(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Mkdir("acme", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join("acme", "local"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		spec string
		want bool
	}{
		{dir, true},
		{"./model", true},
		{"~/models/x", true},
		{"x.JSON", true},
		{"acme/local", true}, // a directory there shadows the id
		{"acme/remote", false},
		{"meta-llama/Llama-3.1-8B-Instruct@v1", false},
	} {
		if got := IsPath(tc.spec); got != tc.want {
			t.Errorf("IsPath(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
}
