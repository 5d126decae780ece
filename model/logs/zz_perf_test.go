package logs

import (
	"strings"
	"testing"
	"time"
)

func TestZZPerf(t *testing.T) {
	cases := map[string]string{
		"v0kv":    strings.Repeat("kv_cache_size=1GiB ", 50000),
		"limits":  strings.Repeat("max_total_num_tokens=1, ", 40000),
		"engine":  strings.Repeat("Initializing an LLM engine with config: a=1 ", 20000),
		"dict":    strings.Repeat("non-default args: {'a': 1, ", 30000),
		"server":  strings.Repeat("server_args=ServerArgs(a=1, ", 30000),
		"loadend": strings.Repeat("Load weight end. avail mem=1 GB ", 30000),
		"snap":    "memory snapshot: " + strings.Repeat("x", 1<<19),
		"kvalloc": strings.Repeat("KV Cache is allocated. ", 40000),
		"brackets": strings.Repeat("Initializing an LLM engine with config: a=(", 20000),
		"blocks":  strings.Repeat("# GPU blocks: 1, ", 50000),
		"parens":  strings.Repeat("(a pid=1) ", 90000) + "GPU KV cache size: 1 tokens",
	}
	for name, line := range cases {
		start := time.Now()
		l, err := Parse(strings.NewReader(line))
		t.Logf("%-8s %7d bytes %v figures=%d settings=%d err=%v", name, len(line), time.Since(start), len(l.Figures), len(l.Settings), err)
	}
}
