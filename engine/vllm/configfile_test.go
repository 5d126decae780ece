package vllm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeConfig(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadConfigFile: the flags vLLM makes of each kind of value
// (vllm/utils/argparse_utils.py load_config_file at main), and the YAML
// membudget does not read refused naming the file and line.
func TestLoadConfigFile(t *testing.T) {
	good := writeConfig(t, "serve.yaml", strings.Join([]string{
		"# a comment",
		"port: 12323",
		"tensor-parallel-size: 4",
		"max_model_len: 32k # vLLM's human form",
		"enforce-eager: true",
		// --enable-prefix-caching has a --no- form; --disable-log-stats
		// (store_true) has none, so false is nothing.
		"enable-prefix-caching: false",
		"disable-log-stats: false",
		"served-model-name: [a, 'b c']",
		`speculative-config: {"method": "eagle3", "num_speculative_tokens": 3}`,
		"chat-template: 'it''s'",
		`tool-call-parser: "hermes"`,
		"",
	}, "\n"))
	got, err := loadConfigFile(good)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"--port", "12323", "--tensor-parallel-size", "4", "--max_model_len", "32k", "--enforce-eager",
		"--no-enable-prefix-caching", "--served-model-name", "a", "b c",
		"--speculative-config", `{"method": "eagle3", "num_speculative_tokens": 3}`,
		"--chat-template", "it's", "--tool-call-parser", "hermes"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loadConfigFile (-want +got):\n%s", diff)
	}
	bad := []struct{ name, text, want string }{
		{"nested.yaml", "compilation-config:\n  level: 3\n", "line 1: compilation-config has no value (a nested block, or null)"},
		{"indent.yaml", "port: 1\n  x: 2\n", "line 2: an indented (nested) entry"},
		{"twice.yaml", "port: 1\nport: 2\n", "line 2: key port given twice"},
		{"anchor.yaml", "port: &p 1\n", `line 1: port: "&p 1" is not a plain value`},
		{"null.yaml", "port: ~\n", "line 1: port is null"},
		{"mapping.yaml", "hf-overrides: {a: 1}\n", "line 1: hf-overrides: a mapping that is not JSON"},
		{"doc.yaml", "---\nport: 1\n", "line 1: not key: value"},
	}
	for _, tc := range bad {
		path := writeConfig(t, tc.name, tc.text)
		_, err := loadConfigFile(path)
		want := "--config " + path + " " + tc.want + "; membudget reads flat key: value lines only (give the flags on the line)"
		if err == nil || err.Error() != want {
			t.Errorf("%s: got %v\nwant %s", tc.name, err, want)
		}
	}
	if _, err := loadConfigFile("serve.json"); err == nil || err.Error() != "--config serve.json: vLLM reads only a .yaml or .yml file" {
		t.Errorf("a .json file: %v", err)
	}
}

// TestSpliceConfig: the file's flags where vLLM puts them, so that the
// line's own flags override them; a file that cannot be read is left for
// Judge to refuse.
func TestSpliceConfig(t *testing.T) {
	path := writeConfig(t, "c.yml", "tensor-parallel-size: 4\nport: 1\n")
	cases := []struct{ in, want []string }{
		{[]string{"--class", "x", "vllm", "serve", "M", "--config", path, "-tp", "2"},
			[]string{"--class", "x", "vllm", "serve", "M", "--tensor-parallel-size", "4", "--port", "1", "-tp", "2"}},
		{[]string{"python3", "-m", apiServerModule, "--model", "M", "--config=" + path},
			[]string{"python3", "-m", apiServerModule, "--tensor-parallel-size", "4", "--port", "1", "--model", "M"}},
		{[]string{"--model", "M", "--config", path}, []string{"--tensor-parallel-size", "4", "--port", "1", "--model", "M"}},
		{[]string{"--config", "missing.yaml"}, []string{"--config", "missing.yaml"}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, spliceConfig(tc.in)); diff != "" {
			t.Errorf("spliceConfig(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	s := &flagServe{}
	err := s.Judge([]string{"--config", "missing.yaml"}, 0)
	if err == nil || !strings.HasPrefix(err.Error(), "--config: open missing.yaml:") {
		t.Errorf("Judge of an unreadable --config: %v", err)
	}
}
