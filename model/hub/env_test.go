package hub

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// envView is what FromEnv decides, for comparison.
type envView struct {
	CacheDir, Endpoint string
	Token, TokenSource string
	Offline            bool
}

func TestFromEnv(t *testing.T) {
	home := t.TempDir()
	// A token file in the default place, $HF_HOME/token with HF_HOME
	// defaulting to ~/.cache/huggingface, and one elsewhere.
	defaultTokenFile := filepath.Join(home, ".cache", "huggingface", "token")
	writeDir(t, filepath.Dir(defaultTokenFile), map[string]fakeFile{"token": smallFile([]byte("hf_fromDefaultFile\n"))})
	otherHome := t.TempDir()
	customTokenFile := filepath.Join(otherHome, "my-token")
	writeDir(t, otherHome, map[string]fakeFile{"my-token": smallFile([]byte("  hf_fromTokenPath\r\n"))})
	emptyHome := t.TempDir() // no token file anywhere under it

	tests := []struct {
		name    string
		env     map[string]string
		want    envView
		wantErr string
	}{
		{
			name: "defaults under HOME, the token from ~/.cache/huggingface/token",
			env:  map[string]string{"HOME": home},
			want: envView{CacheDir: filepath.Join(home, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint,
				Token: "hf_fromDefaultFile", TokenSource: defaultTokenFile},
		},
		{
			name: "XDG_CACHE_HOME moves HF_HOME",
			env:  map[string]string{"HOME": emptyHome, "XDG_CACHE_HOME": "/xdg"},
			want: envView{CacheDir: "/xdg/huggingface/hub", Endpoint: DefaultEndpoint},
		},
		{
			name: "HF_HOME beats XDG_CACHE_HOME",
			env:  map[string]string{"HOME": emptyHome, "XDG_CACHE_HOME": "/xdg", "HF_HOME": "/hf"},
			want: envView{CacheDir: "/hf/hub", Endpoint: DefaultEndpoint},
		},
		{
			name: "HF_HUB_CACHE beats HF_HOME; the token file stays under HF_HOME",
			env:  map[string]string{"HOME": home, "HF_HOME": filepath.Join(home, ".cache/huggingface"), "HF_HUB_CACHE": "/scratch/hub"},
			want: envView{CacheDir: "/scratch/hub", Endpoint: DefaultEndpoint, Token: "hf_fromDefaultFile", TokenSource: defaultTokenFile},
		},
		{
			name: "the legacy HUGGINGFACE_HUB_CACHE when HF_HUB_CACHE is unset",
			env:  map[string]string{"HOME": emptyHome, "HUGGINGFACE_HUB_CACHE": "/legacy"},
			want: envView{CacheDir: "/legacy", Endpoint: DefaultEndpoint},
		},
		{
			name: "HF_HUB_CACHE beats the legacy name",
			env:  map[string]string{"HOME": emptyHome, "HUGGINGFACE_HUB_CACHE": "/legacy", "HF_HUB_CACHE": "/new"},
			want: envView{CacheDir: "/new", Endpoint: DefaultEndpoint},
		},
		{
			name: "~ and $VAR expanded as Python's expanduser and expandvars do",
			env:  map[string]string{"HOME": emptyHome, "HF_HOME": "~/hf", "HF_HUB_CACHE": "$SCRATCH/${USER}/hub", "SCRATCH": "/s", "USER": "ada"},
			want: envView{CacheDir: "/s/ada/hub", Endpoint: DefaultEndpoint},
		},
		{
			name: "an unset variable is left as written",
			env:  map[string]string{"HOME": emptyHome, "HF_HUB_CACHE": "$NOPE/hub"},
			want: envView{CacheDir: "$NOPE/hub", Endpoint: DefaultEndpoint},
		},
		{
			name: "HF_TOKEN beats every file",
			env:  map[string]string{"HOME": home, "HF_TOKEN": "hf_fromEnv", "HF_TOKEN_PATH": customTokenFile},
			want: envView{CacheDir: filepath.Join(home, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint, Token: "hf_fromEnv", TokenSource: "HF_TOKEN"},
		},
		{
			name: "the legacy HUGGING_FACE_HUB_TOKEN",
			env:  map[string]string{"HOME": home, "HUGGING_FACE_HUB_TOKEN": "hf_legacy"},
			want: envView{CacheDir: filepath.Join(home, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint, Token: "hf_legacy", TokenSource: "HUGGING_FACE_HUB_TOKEN"},
		},
		{
			name: "HF_TOKEN_PATH beats $HF_HOME/token; spaces and line breaks removed",
			env:  map[string]string{"HOME": home, "HF_TOKEN_PATH": customTokenFile},
			want: envView{CacheDir: filepath.Join(home, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint, Token: "hf_fromTokenPath", TokenSource: customTokenFile},
		},
		{
			name: "HF_TOKEN_PATH naming no file: no token",
			env:  map[string]string{"HOME": home, "HF_TOKEN_PATH": filepath.Join(emptyHome, "none")},
			want: envView{CacheDir: filepath.Join(home, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint},
		},
		{
			name: "HF_ENDPOINT, trailing slash removed",
			env:  map[string]string{"HOME": emptyHome, "HF_ENDPOINT": "https://hf-mirror.com/"},
			want: envView{CacheDir: filepath.Join(emptyHome, ".cache/huggingface/hub"), Endpoint: "https://hf-mirror.com"},
		},
		{
			name: "HF_HUB_OFFLINE=1",
			env:  map[string]string{"HOME": emptyHome, "HF_HUB_OFFLINE": "1"},
			want: envView{CacheDir: filepath.Join(emptyHome, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint, Offline: true},
		},
		{
			name: "HF_HUB_OFFLINE=yes, any case",
			env:  map[string]string{"HOME": emptyHome, "HF_HUB_OFFLINE": "Yes"},
			want: envView{CacheDir: filepath.Join(emptyHome, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint, Offline: true},
		},
		{
			name: "TRANSFORMERS_OFFLINE when HF_HUB_OFFLINE is unset",
			env:  map[string]string{"HOME": emptyHome, "TRANSFORMERS_OFFLINE": "1"},
			want: envView{CacheDir: filepath.Join(emptyHome, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint, Offline: true},
		},
		{
			// huggingface_hub reads HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE:
			// a set HF_HUB_OFFLINE decides alone.
			name: "HF_HUB_OFFLINE=0 decides over TRANSFORMERS_OFFLINE=1",
			env:  map[string]string{"HOME": emptyHome, "HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "1"},
			want: envView{CacheDir: filepath.Join(emptyHome, ".cache/huggingface/hub"), Endpoint: DefaultEndpoint},
		},
		{
			name:    "an offline value that means neither",
			env:     map[string]string{"HOME": emptyHome, "HF_HUB_OFFLINE": "2"},
			wantErr: `HF_HUB_OFFLINE="2": want 1, ON, YES or TRUE (offline), or 0, OFF, NO or FALSE`,
		},
		{
			name:    "an endpoint that is not http",
			env:     map[string]string{"HOME": emptyHome, "HF_ENDPOINT": "ftp://mirror"},
			wantErr: `HF_ENDPOINT="ftp://mirror": want an http or https URL`,
		},
		{
			name:    "an endpoint with a password",
			env:     map[string]string{"HOME": emptyHome, "HF_ENDPOINT": "https://me:secret@mirror"},
			wantErr: `HF_ENDPOINT: want a URL without user info`,
		},
		{
			name:    "no home and no cache variable",
			env:     map[string]string{},
			wantErr: `cannot locate the Hugging Face cache: HOME is not set (set HF_HUB_CACHE or HF_HOME)`,
		},
		{
			name:    "a token a header cannot carry",
			env:     map[string]string{"HOME": emptyHome, "HF_TOKEN": "hf_abc def"},
			wantErr: `the token from HF_TOKEN has a character that an HTTP header cannot carry (byte 6)`,
		},
		{
			name:    "a token path that is a directory",
			env:     map[string]string{"HOME": emptyHome, "HF_TOKEN_PATH": emptyHome},
			wantErr: `token file: ` + emptyHome + ` is a directory, not a file: refused`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := FromEnv(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "hf_abc") || strings.Contains(err.Error(), "secret") {
					t.Errorf("the error shows a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := envView{r.CacheDir, r.Endpoint, string(r.Token), r.TokenSource, r.Offline}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("FromEnv (-want +got):\n%s", diff)
			}
			if r.Timeout != DefaultTimeout || r.Retries != DefaultRetries || r.Parallel != DefaultParallel {
				t.Errorf("timeout %v, retries %d, parallel %d; want the defaults", r.Timeout, r.Retries, r.Parallel)
			}
		})
	}
}

// A token file larger than any token is refused, not read.
func TestFromEnvRefusesHugeTokenFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "token")
	if err := os.WriteFile(p, make([]byte, maxTokenFileBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := FromEnv(func(k string) string { return map[string]string{"HOME": dir, "HF_TOKEN_PATH": p}[k] })
	if err == nil || !strings.Contains(err.Error(), "is 4097 bytes, more than the 4096 this reads") {
		t.Fatalf("err = %v", err)
	}
}

func TestExpandVars(t *testing.T) {
	env := map[string]string{"A": "/a", "B_1": "b"}
	tests := []struct{ in, want string }{
		{"$A/x", "/a/x"},
		{"${A}x", "/ax"},
		{"$B_1-$A", "b-/a"},
		{"$NOPE/x", "$NOPE/x"},
		{"${NOPE}", "${NOPE}"},
		{"a$", "a$"},
		{"${A", "${A"},
		{"$$", "$$"},
		{"${}", "${}"},
		{"no dollar", "no dollar"},
	}
	for _, tc := range tests {
		if got := expandVars(tc.in, func(k string) string { return env[k] }); got != tc.want {
			t.Errorf("expandVars(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for in, want := range map[string]string{"~": "/home/u", "~/x": "/home/u/x", "~bob/x": "~bob/x", "/abs": "/abs"} {
		if got := expandUser(in, "/home/u"); got != want {
			t.Errorf("expandUser(%q) = %q, want %q", in, got, want)
		}
	}
}
