package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFloatFlagsReadAsPythonReads: the engines' float flags are read as
// Python's float() reads them (issue 19, defect 9): 0x1p-1, which Go's
// parser read as 0.5 and sized, is refused as vLLM's and SGLang's
// argparse refuse it; 0_.5 too; " 0.5" and 0_0.5 are 0.5, as Python takes
// them.
func TestFloatFlagsReadAsPythonReads(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"budget", "--class", "l4", "--gpu-memory-utilization", "0x1p-1"}, exitBadArgs, `invalid value "0x1p-1" for flag -gpu-memory-utilization`},
		{[]string{"budget", "--class", "l4", "--engine", "sglang", "--mem-fraction-static", "0x1p-1"}, exitBadArgs, `invalid value "0x1p-1" for flag -mem-fraction-static`},
		{[]string{"budget", "--class", "l4", "--gpu-memory-utilization", "0_.5"}, exitBadArgs, `invalid value "0_.5" for flag -gpu-memory-utilization`},
		{[]string{"budget", "--class", "l4", "--gpu-memory-utilization", " 0.5"}, exitOK, `gpu_memory_utilization 0.5 `},
		{[]string{"budget", "--class", "l4", "--gpu-memory-utilization", "0_0.5"}, exitOK, `gpu_memory_utilization 0.5 `},
	} {
		var out, errOut bytes.Buffer
		code := run(&out, &errOut, c.args)
		if code != c.code || !strings.Contains(out.String()+errOut.String(), c.want) {
			t.Errorf("%q: exit %d, output %q %q; want exit %d and %q", c.args, code, out.String(), errOut.String(), c.code, c.want)
		}
	}
}

// TestSmallHostileCases: issue 19's defect 10. A negative number in a
// pasted launch line is a value, as argparse reads it (before: "-0" was
// read as a flag and quoted as "--0"); a bad max_position_embeddings is
// reported once (before: twice, by the two readers of the key).
func TestSmallHostileCases(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run(&out, &errOut, []string{"report", "--class", "l4", "vllm", "serve", "Qwen/Qwen3-0.6B", "--max-model-len", "-0"})
	if want := `invalid value "-0" for flag -max-model-len: 0: vLLM refuses it`; code != exitBadArgs || !strings.Contains(errOut.String(), want) {
		t.Errorf("--max-model-len -0 in a launch line: exit %d, stderr %q, want %q", code, errOut.String(), want)
	}
	dir := t.TempDir()
	cfg := `{"architectures":["LlamaForCausalLM"],"model_type":"llama","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,` +
		`"intermediate_size":128,"num_hidden_layers":2,"vocab_size":256,"max_position_embeddings":-5,"torch_dtype":"bfloat16"}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	code = run(&out, &errOut, []string{"report", "--model", dir, "--class", "l4"})
	if n := strings.Count(errOut.String(), "max_position_embeddings: must be a non-negative integer, got -5"); code != exitBadArgs || n != 1 {
		t.Errorf("a bad max_position_embeddings: exit %d, reported %d times:\n%s", code, n, errOut.String())
	}
}
