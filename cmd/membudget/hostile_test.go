package main

import (
	"bytes"
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
