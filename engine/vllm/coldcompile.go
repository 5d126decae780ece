package vllm

import (
	"fmt"
	"io"
	"slices"

	"membudget/budget"
	"membudget/engine"
)

// This file reports what a first start with an empty torch.compile cache
// does to a compiled serve's KV cache. membudget sizes the warm start (the
// cache filled by an earlier start); vLLM sizes the KV cache from the start
// it runs, and a cold one measures more.
//
// The mechanism, read in vLLM main d18bb7b (2026-08-14):
//   - the KV budget comes from memory_profiling around the profile run
//     (vllm/v1/worker/gpu_worker.py:501-505), whose activation charge is the
//     allocator's allocated_bytes.all.peak since the window opened, reset at
//     its start (vllm/utils/mem_utils.py:291-326: the transient peak over
//     what stays allocated, from PR #49208; torch_peak_increase before it);
//   - the compiled model compiles on its first call, which is the profile
//     run's dummy forward (vllm/compilation/decorators.py:643-684: Dynamo,
//     Inductor and the first run "together", or the AOT compile then the
//     run), on the V1 runner (gpu_model_runner.py:6542) and the V2 runner
//     (gpu/model_runner.py:782-806) alike; nothing runs the model before;
//   - so whatever a cold Inductor compile allocates on the device while
//     autotuning its Triton kernels (candidate configs run on real
//     buffers, mutated arguments cloned, a cache-flush buffer) raises the
//     peak the window reads and is charged as activation; a warm start
//     loads the tuned kernels and allocates none of it.
//
// The same layout held in 0.18's code (gpu_worker.py:384-388 at 39474513f
// of 2026-03-20, the peak read the same way), so every V1 release that
// compiles is exposed. vLLM has the bug open: issues #54122 (2026-08-27,
// "Cold AOT compilation is charged as peak activation memory, shrinking KV
// cache until restart") and #54383 (2026-08-30, a first boot of a new
// batch shape granted ~5% fewer blocks); the fixes, PRs #54209 and #54479,
// were open when read, so no release membudget sizes has one.
//
// Which allocation it is was not pinned in PyTorch's source: Inductor's
// autotuner clones a mutated argument only within the peak already
// reached (CachingAutotuner.copy_args_to_cpu_if_needed budgets
// max_memory_allocated - memory_allocated, and copies to the host beyond
// it), and its benchmarker's cache-flush buffer is one L2 (72-96 MB on
// the GPUs logged); vLLM sets Inductor's combo_kernels and
// benchmark_combo_kernel from PR #26682 (2025-10-14;
// vllm/config/compilation.py:977-987), whose benchmarking runs generated
// kernels at compile time, a candidate not measured. How much a cold
// compile allocates depends on the kernels Inductor tunes (the model, the
// batched tokens, the GPU): it is not computed here.
// coldCompileBytes is what the logged cold starts took.

// coldCompileBytes is the profile's extra peak on the cold starts logged,
// about 1 GiB (corpus/observed/vllm.csv):
//   - row 212 (0.27.1, RTX 4090, Qwen3-8B): peak activation 1.18 GiB cold,
//     0.19 GiB on the warm starts after it (row 324): 0.99 GiB;
//   - row 307 (0.24.0, RTX 5090, Qwen3-8B): 89,040 tokens cold, 95,936
//     warm: 6,896 tokens x 147,456 B (36 layers x 8 KV heads x 128 x 2
//     (K and V) x 2 B) = 0.95 GiB;
//   - rows 322-323 (0.28.0, L40, gpt-oss-20b, compile logged): about 0.8
//     GiB of activation beyond the profile's tensors.
//
// Public reports range wider (PR #54479's thread: 0.47 GiB on 2x RTX 4090
// at another batch shape; 1Cat-vLLM PR #518: 1.85 GiB more torch peak on a
// Quadro RTX 8000; #54122: more on RTX PRO 6000 with AOT compilation), and
// the 36 H100 rows of 0.19 match with none: 1 GiB is a figure the report
// names, not a bound.
const coldCompileBytes uint64 = 1 << 30

// compiles reports whether the serve's first forward runs torch.compile,
// so that a first start with an empty compile cache compiles inside the
// profile: the V1 engine (V0 compiles nothing by default, and membudget
// refuses its compilation settings), without --enforce-eager (which sets
// the compilation mode to NONE, vllm/config/vllm.py:1283-1289) and at a
// compilation mode other than NONE: -O0 sets NONE, any other level
// VLLM_COMPILE (vllm/config/vllm.py:1378-1382), and --compilation-config's
// mode overrides it. Before the -O levels the V1 engine compiled at
// PIECEWISE unless --enforce-eager set NO_COMPILATION
// (vllm/config/vllm.py:300-307 at 2a69ab489 of 2025-10-01), the same rule
// for the default settings, the only ones membudget sizes there.
func (r *Resolved) compiles() bool {
	if r.Profile.Era != V1 || r.EnforceEager {
		return false
	}
	c := r.Compilation
	if c.Mode != "" {
		return c.Mode != "0"
	}
	return c.Level != "0"
}

// coldCapacity is the serve's KV capacity on a first start with an empty
// compile cache: every stage's activation peak raised by coldCompileBytes
// (every worker compiles its own stage). ok is false where the report has
// nothing to say: a serve that does not compile, one whose KV cache is
// pinned by --kv-cache-memory-bytes (vLLM then sizes no cache from the
// profile: gpu_worker.py:474-495), or one sized cold already
// (--compile-cache cold).
func (sz *Sizing) coldCapacity() (c Capacity, ok bool) {
	r := sz.Serve
	if !r.compiles() || r.KVCacheMemoryBytes > 0 || r.ColdCompileCache || sz.plan == nil || len(sz.plan.Stages) == 0 {
		return Capacity{}, false
	}
	cold := *sz.plan
	cold.Stages = slices.Clone(sz.plan.Stages)
	for i := range cold.Stages {
		a := &cold.Stages[i].Fixed[budget.TermActivation]
		*a = budget.SatAdd(*a, coldCompileBytes)
	}
	return sz.check.capacity(&cold), true
}

// writeColdCompile writes, under a serve vLLM starts, what a first start
// with an empty compile cache leaves: the tokens vLLM would log then, and
// whether it still starts.
func (sz *Sizing) writeColdCompile(w io.Writer) {
	cold, ok := sz.coldStarts()
	if !ok {
		return
	}
	fmt.Fprintf(w, "  a first start with an empty torch.compile cache (a fresh pod without a kept VLLM_CACHE_ROOT) profiles the compile too: vLLM charges its scratch as activation, about %s more on the cold starts logged (vLLM issues #54122, #54383, open), which leaves %d tokens instead of %d (--compile-cache cold sizes that start)",
		engine.GiB(coldCompileBytes), cold.LoggedTokens, sz.capacity.LoggedTokens)
	if r := cold.Refusal(sz.Serve.MaxModelLen, sz.Serve.MaxNumSeqs); r != "" {
		fmt.Fprintf(w, "; vLLM refuses that start: %s", r)
	}
	fmt.Fprintln(w)
}

// coldCompileJSON is the report's "first_start_cold_compile": the KV
// cache of a first start with an empty torch.compile cache.
type coldCompileJSON struct {
	// ExtraActivationBytes is what the cold compile is taken to add to
	// each GPU's profiled activation (coldCompileBytes).
	ExtraActivationBytes uint64 `json:"extra_activation_bytes"`
	Blocks               uint64 `json:"blocks"`
	LoggedTokens         uint64 `json:"logged_tokens"`
	// Starts says vLLM still starts the serve on such a start.
	Starts bool `json:"starts"`
}

// coldStarts reports whether the report speaks of a first start: the warm
// start starts (a serve it refuses is refused cold too) and the serve
// compiles in its profile.
func (sz *Sizing) coldStarts() (Capacity, bool) {
	if sz.encoderOnly() || !sz.capacity.Starts || sz.capacity.SeqsOverStateBlocks {
		return Capacity{}, false
	}
	return sz.coldCapacity()
}

// coldCompileField is the report's first_start_cold_compile, where its
// text has the line.
func (sz *Sizing) coldCompileField() []engine.Field {
	cold, ok := sz.coldStarts()
	if !ok {
		return nil
	}
	return []engine.Field{{Key: "first_start_cold_compile", Value: coldCompileJSON{ExtraActivationBytes: coldCompileBytes,
		Blocks: cold.Blocks, LoggedTokens: cold.LoggedTokens, Starts: cold.Refusal(sz.Serve.MaxModelLen, sz.Serve.MaxNumSeqs) == ""}}}
}

// coldCompileLabel is the ledger's line of the cold compile under
// --compile-cache cold, within the label column (words.Width).
const coldCompileLabel = "cold-start torch.compile"

// chargesColdCompile reports whether the serve's ledger charges the cold
// compile: --compile-cache cold on a serve that compiles in its profile,
// whose KV cache the profile sizes.
func (r *Resolved) chargesColdCompile() bool {
	return r.ColdCompileCache && r.compiles() && r.KVCacheMemoryBytes == 0
}

// appendColdCompile appends, under --compile-cache cold, the cold
// compile's scratch to the profile's activation peak: it is taken on top
// of the forward's (Inductor tunes each kernel on its first call, while
// the forward's tensors are live).
func appendColdCompile(items []budget.Item, r *Resolved) []budget.Item {
	if !r.chargesColdCompile() {
		return items
	}
	return append(items, budget.Item{Name: "cold_compile", Term: budget.TermActivation, Bytes: coldCompileBytes})
}

// splitColdCompile names the cold compile's line of the activation peak.
// An encoder-only pooling serve has no such item: vLLM sizes no KV cache
// from a profile for it (encoderPeakItems), so the option changes nothing.
func (sz *Sizing) splitColdCompile(lines []engine.FootprintLine) []engine.FootprintLine {
	if !sz.Serve.chargesColdCompile() || sz.encoderOnly() {
		return lines
	}
	return splitOut(lines, budget.TermActivation, coldCompileLabel, coldCompileBytes)
}

// compileCacheJSON is the serve's compile_cache: "cold" under
// --compile-cache cold, "" (absent) otherwise.
func (r *Resolved) compileCacheJSON() string {
	if r.ColdCompileCache {
		return "cold"
	}
	return ""
}

// compileCacheNote is plan's note on the torch.compile cache, "" where the
// deployments compile nothing in their profile (the V0 engine, -O0 or
// mode NONE: the same rule as [Resolved.compiles], so that the note says
// what each deployment's report says). plan prints it only where vLLM
// sizes the KV cache by profiling (not under --pin-kv-cache).
func compileCacheNote(p Profile, c Compilation, cold bool) string {
	r := Resolved{Profile: p}
	r.Compilation = c
	switch {
	case !r.compiles():
		return ""
	case cold:
		return fmt.Sprintf("each command is sized for a first start with an empty torch.compile cache (--compile-cache cold): vLLM profiles the compile too and charges its scratch as activation, %s more a GPU, as on the cold starts logged (vLLM issues #54122, #54383, open)", engine.GiB(coldCompileBytes))
	}
	return fmt.Sprintf("each command is sized for a start whose torch.compile cache is filled: a first start with an empty one (a fresh pod without a kept VLLM_CACHE_ROOT) profiles the compile too, and vLLM charges its scratch as activation, about %s a GPU on the cold starts logged (vLLM issues #54122, #54383, open), so it holds that much less KV cache; --compile-cache cold sizes that start", engine.GiB(coldCompileBytes))
}
