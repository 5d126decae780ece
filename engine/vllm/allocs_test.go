package vllm_test

import (
	"testing"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// TestCompileKeepsTheResolvedServeOnTheStack: a warm Compile of a dense
// decoder allocates what its plan keeps (the stages, the pools, the
// sources), never the resolved serve itself (some 1.6 KiB): a resolve step
// that hands the serve to a function value or an interface moves it to the
// heap, as the multimodal item table did (+1 allocation, +1.6 KiB a serve
// for every model). 13 is the count at the fix for this serve (14 with the
// serve on the heap, as measured before it).
func TestCompileKeepsTheResolvedServeOnTheStack(t *testing.T) {
	m := enginetest.Shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	p, err := vllm.ProfileFor("main")
	if err != nil {
		t.Fatal(err)
	}
	cp := vllm.NewCompiler(m.Arch)
	s := vllm.Serve{MaxModelLen: 8192}
	if _, _, err := cp.Compile(s, c, p); err != nil {
		t.Fatal(err)
	}
	got := testing.AllocsPerRun(50, func() {
		if _, _, err := cp.Compile(s, c, p); err != nil {
			t.Fatal(err)
		}
	})
	if got > 13 {
		t.Errorf("a warm Compile allocates %v times; want at most 13 (did the resolved serve escape? go build -gcflags=-m ./engine/vllm | grep 'moved to heap: r')", got)
	}
}
