package vllm

import (
	"errors"
	"strings"
	"testing"

	"membudget/engine"
	"membudget/model/hub"
)

// TestColdCacheEnv: VLLM_DISABLE_COMPILE_CACHE, read as vllm/envs.py reads
// it (bool(int(value)), since v0.6.5: PR #11108 of 2024-12-16), sizes
// every start cold where nonzero; a value int() refuses is refused naming
// the variable, and so is a nonzero value beside --compile-cache warm
// given, the message naming both.
func TestColdCacheEnv(t *testing.T) {
	tests := []struct {
		name, spec string
		value      string // "" leaves it unset
		compile    string // --compile-cache as given, "" when not given
		want       bool
		refused    bool
	}{
		{"unset", "main", "", "", false, false},
		{"=1", "main", "1", "", true, false},
		// int(" 1 ") is 1, int("+2") 2: nonzero, the cache off.
		{"= 1 padded", "main", " 1 ", "", true, false},
		{"=+2", "0.19.0", "+2", "", true, false},
		{"=0", "main", "0", "", false, false},
		// 0 keeps the cache, which --compile-cache cold may still call empty.
		{"=0 cold", "main", "0", "cold", false, false},
		{"=1 cold", "main", "1", "cold", true, false},
		{"=1 warm", "main", "1", "warm", false, true},
		{"=0 warm", "main", "0", "warm", false, false},
		// bool(int("true")) raises: vLLM stops at startup.
		{"=true", "main", "true", "", false, true},
		{"=empty", "main", " ", "", false, true},
		// v0.6.5 is the first release whose envs.py reads it (git tag
		// --contains 88a412ed3); 0.6.4 ignores it, whatever its value.
		{"0.6.5 =1", "0.6.5", "1", "", true, false},
		{"0.6.4 =1", "0.6.4", "1", "", false, false},
		{"0.6.4 =true", "0.6.4", "true", "", false, false},
		{"0.6.4 =1 warm", "0.6.4", "1", "warm", false, false},
	}
	for _, tt := range tests {
		f := &flagServe{given: map[string]bool{}}
		if tt.value != "" {
			f.SetEnv(compileCacheEnv, tt.value, "the launch line")
		}
		if tt.compile != "" {
			f.given["compile-cache"] = true
			f.s.ColdCompileCache = tt.compile == "cold"
		}
		p := mustProfile(tt.spec)
		got, err := f.coldCacheEnv(p)
		if tt.refused {
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != compileCacheEnv || !se.Env {
				t.Errorf("%s: %v, want refused naming %s", tt.name, err, compileCacheEnv)
			} else if tt.compile == "warm" && !strings.Contains(err.Error(), "--compile-cache warm") {
				t.Errorf("%s: %q does not name --compile-cache warm", tt.name, err)
			}
			if cerr := f.checkEnv(p); cerr == nil {
				t.Errorf("%s: checkEnv lets it through", tt.name)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %v, %v; want %v", tt.name, got, err, tt.want)
		}
	}
}

// TestColdCacheEnvSizesCold: the variable set to 1 sizes the serve as
// --compile-cache cold does, on Llama-3.1-8B on testClass: the same KV blocks, none of the warm report's first-start
// line, and the command printed sets it again; set to 0 it sizes the warm
// start.
func TestColdCacheEnvSizesCold(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	m := &hub.Loaded{Name: a.Source, Arch: a}
	c := testClass(false)
	size := func(value string, cold bool) *Sizing {
		t.Helper()
		f := &flagServe{given: map[string]bool{}}
		f.version = "main"
		f.s = Serve{MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 2048, ColdCompileCache: cold}
		if value != "" {
			f.SetEnv(compileCacheEnv, value, "the environment")
		}
		sz, err := f.Size(m, c)
		if err != nil {
			t.Fatalf("%q: %v", value, err)
		}
		return sz.(*Sizing)
	}
	flagged, env, warm := size("", true), size("1", false), size("0", false)
	if !env.Serve.ColdCompileCache {
		t.Fatal("=1: the serve is not sized cold")
	}
	if env.capacity.Blocks != flagged.capacity.Blocks {
		t.Errorf("=1: %d blocks; --compile-cache cold sizes %d", env.capacity.Blocks, flagged.capacity.Blocks)
	}
	// The command printed sets the variable again, so that it launches the
	// serve sized; =0 and --compile-cache cold alone print none.
	for _, tc := range []struct {
		sz   *Sizing
		want bool
	}{{env, true}, {warm, false}, {flagged, false}} {
		if got := strings.HasPrefix(Command(a.Source, tc.sz.Serve), compileCacheEnv+"=1 vllm serve "); got != tc.want {
			t.Errorf("%q: the command sets %s: %v, want %v", Command(a.Source, tc.sz.Serve), compileCacheEnv, got, tc.want)
		}
	}
	if _, ok := env.coldCapacity(); ok {
		t.Error("=1: the report still speaks of a first start")
	}
	// Cold takes 769,654,784 B more activation at 2048 batched tokens and
	// 16 sequences (the
	// embedding table's copy and the lookup's output over the forward's
	// peak, TestColdCompileCapacity), so that much less KV cache: a block
	// of Llama-3.1-8B is 16 tokens x 32 layers x 8 KV heads x 128 x 2 (K
	// and V) x 2 B (bf16) = 2 MiB, and 769,654,784 B is 367 of them,
	// exactly (a multiple of the block, so the floor moves by as much).
	if warm.Serve.ColdCompileCache || warm.capacity.Blocks != flagged.capacity.Blocks+367 {
		t.Errorf("=0: cold %v, %d blocks; want warm, %d", warm.Serve.ColdCompileCache, warm.capacity.Blocks, flagged.capacity.Blocks+367)
	}
}
