package sglang_test

import (
	"hash/fnv"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"membudget"
	"membudget/engine/enginetest"
	"membudget/engine/sglang"
)

// TestContractOnShippedModels runs the engine contract over every shipped
// model, each on one of the classes and with one of the flag sets in turn
// (every model, every class and every flag set are reached).
func TestContractOnShippedModels(t *testing.T) {
	t.Parallel()
	classes := []string{"h100-sxm-80g", "l4", "mi300x", "b200", "a100-80g", "gb10"}
	flags := [][]string{
		nil,
		{"--tp-size", "2"},
		{"--context-length", "4096", "--kv-cache-dtype", "fp8_e4m3"},
		{"--pp-size", "2", "--max-running-requests", "64"},
		{"--sglang-version", "v0.4.9.post2", "--mem-fraction-static", "0.8"},
		{"--sglang-version", "v0.5.7"},
		{"--disable-cuda-graph", "--page-size", "16", "--chunked-prefill-size", "-1"},
	}
	models := enginetest.Shipped(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range models {
			if !yield(n) {
				return
			}
		}
	})
	sized := 0
	for _, name := range names {
		// Each model's class and flags come from its name, not its place
		// in the list: a model added to the corpus leaves every other
		// model's case as it was.
		h := fnv.New32a()
		h.Write([]byte(name))
		k := int(h.Sum32() % uint32(len(classes)*len(flags)))
		c, err := membudget.Kernels().Load(classes[k%len(classes)])
		if err != nil {
			t.Fatal(err)
		}
		// --trust-remote-code on every case, as a user serving a checkpoint
		// whose config transformers ships no class for must pass it: such
		// a model is then sized, not refused for the missing flag, and for
		// the others the flag changes nothing (it only lifts
		// resolveRemoteCode's refusal, remotecode.go).
		args := append(slices.Clone(flags[k/len(classes)]), "--trust-remote-code")
		if enginetest.Check(t, sglang.Engine{}, enginetest.Case{Model: models[name], Class: c, Args: args}) != nil {
			sized++
		}
	}
	// Enough cases must size, or the suite checks refusals alone. A floor,
	// not a share: the corpus grows with families SGLang refuses (the
	// encoders, Mamba, the pooling models vLLM serves), which must not fail
	// this test; 60 is below the 71 of 137 sized when the floor was set.
	const minSized = 60
	if sized < minSized {
		t.Errorf("%d of %d cases sized, under %d: the suite checks too few serves", sized, len(names), minSized)
	}
	t.Logf("%d of %d cases sized and checked", sized, len(names))
}

// TestContractOnGeneratedModels runs the engine contract over generated
// configs of every family (SGLang refusing those whose pools it does not
// model), on every class, under drawn releases, ranks, contexts, KV dtypes
// and fractions.
func TestContractOnGeneratedModels(t *testing.T) {
	t.Parallel()
	var sized, drawn atomic.Int64
	rapid.Check(t, func(t *rapid.T) {
		drawn.Add(1)
		m, c := enginetest.Generated(t)
		args := enginetest.ParallelArgs(t, "tp-size", "pp-size")
		version := rapid.SampledFrom(profileNames()).Draw(t, "version")
		if p, err := sglang.ProfileFor(version); err == nil && p.BreakablePrefill && rapid.IntRange(0, 3).Draw(t, "prefill_graphs") > 0 {
			// From v0.5.15 a serve that captures its prefill graphs is
			// refused (Profile.BreakablePrefill): most draws turn them
			// off, so that those releases' serves are sized too.
			args = append(args, "--disable-piecewise-cuda-graph")
		}
		args = append(args, "--sglang-version", version,
			"--context-length", strconv.FormatUint(rapid.Uint64Range(1, max(m.Arch.MaxPosition, 1)).Draw(t, "context_length"), 10),
			"--kv-cache-dtype", rapid.SampledFrom([]string{"auto", "fp8_e4m3"}).Draw(t, "kv"))
		if rapid.Bool().Draw(t, "fraction") {
			args = append(args, "--mem-fraction-static", rapid.SampledFrom([]string{"0.5", "0.8", "0.9"}).Draw(t, "msf"))
		}
		if enginetest.Check(t, sglang.Engine{}, enginetest.Case{Model: m, Class: c, Args: args}) != nil {
			sized.Add(1)
		}
	})
	// The refusals are checked too (SGLang refuses the families whose
	// pools it does not model, the ranks that do not divide, TensorRT-LLM
	// attention on SM12x): 299 of 2000 draws sized (15 %) when v0.5.15 to
	// v0.5.17 joined the releases drawn, the rest refused at --model (59 %),
	// --tp-size (16 %), --trust-remote-code (7 %), --pp-size and
	// --disable-piecewise-cuda-graph (2 % each). A twenty-fifth must size,
	// or the generators reach too few servers: at 15 % a run of 100 draws
	// falls under 4 with probability 1e-4, where the tenth this floor was
	// failed 6 runs in 100.
	t.Logf("%d of %d draws sized and checked", sized.Load(), drawn.Load())
	if sized.Load()*25 < drawn.Load() {
		t.Errorf("%d of %d draws sized: the generators reach too few serves", sized.Load(), drawn.Load())
	}
}

// profileNames is every profile's --sglang-version, so the contract runs
// over each release modelled.
func profileNames() []string {
	var names []string
	for _, p := range sglang.Profiles() {
		names = append(names, p.Name)
	}
	return names
}
