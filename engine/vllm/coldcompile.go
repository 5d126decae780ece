package vllm

import (
	"fmt"
	"io"
	"slices"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/torchalloc"
	"membudget/model"
)

// This file reports what a first start with an empty torch.compile cache
// does to a compiled serve's KV cache. membudget sizes the warm start (the
// cache filled by an earlier start); vLLM sizes the KV cache from the start
// it runs, and a cold one can measure more.
//
// The window, read in vLLM main d18bb7b (2026-08-14):
//   - the KV budget comes from memory_profiling around the profile run
//     (vllm/v1/worker/gpu_worker.py:501-505), whose activation charge is the
//     allocator's allocated_bytes.all.peak since the window opened, less
//     what is still allocated after it (vllm/utils/mem_utils.py:291-326,
//     transient_peak_headroom; torch_peak_increase before PR #49208);
//   - the compiled model compiles on its first call, the profile run's dummy
//     forward (vllm/compilation/decorators.py:643-684), on the V1 runner
//     (gpu_model_runner.py:6542) and the V2 runner (gpu/model_runner.py:
//     782-806) alike; on torch 2.10 and later the compile is AOT by default
//     (vllm/envs.py use_aot_compile), which compiles whole before the
//     forward runs (decorators.py:652-678), so what the compile allocates
//     is freed before the forward allocates its own: the window reads the
//     larger of the two peaks, not their sum (vLLM PR #54209 reads it so:
//     "compilation's temporaries are freed before that forward").
//
// What the compile allocates, read in PyTorch Inductor: vLLM turns on
// Inductor's combo kernels and benchmark_combo_kernel (vllm/config/
// compilation.py:977-987, PR #26682), and Inductor then times each group
// of independent kernels at compile time, alone and combined
// (Scheduler.speedup_by_combo_kernel, groups by topological level,
// _default_group_nodes_for_combo_kernels), on arguments its generated
// get_args() allocates: a rand_strided copy of every buffer the kernel
// takes at the size hints (codegen_kernel_benchmark in torch/_inductor/
// codegen/triton.py and triton_combo_kernel.py), graph inputs included
// (GraphLowering.try_get_buffer, torch/_inductor/graph.py, returns them). The
// compile works on fake tensors (vllm/compilation/backends.py:1208-1224),
// so what it allocates on the device is what its benchmarks allocate:
// these copies, the benchmarker's cache-flush buffer, library workspaces.
// Of a decoder's kernels the largest argument by far is the first stage's
// embedding lookup's: the
// whole vocabulary-parallel table a rank holds, padded vocabulary / TP x
// hidden in the model's dtype (the weights are graph inputs under Dynamo),
// beside its output, the batched tokens x hidden. That this lookup is the
// one benchmarked is read from the logs, not traced: the cold peaks logged
// are that table within the log's 0.01 GiB rounding, and they do not move
// with the forward pass:
//   - row 212 (0.27.1, RTX 4090, Qwen3-8B, 2048 batched tokens): 1.18 GiB
//     cold; the table 151,936 x 4096 x 2 B = 1,244,659,712 B and the
//     output 2048 x 4096 x 2 B = 16,777,216 B: 1.175 GiB; warm 0.19 (row
//     324, the next start on the worker);
//   - row 206 (0.28.0, RTX 5090, Qwen3-14B-AWQ, 2048): 1.46 GiB cold; the
//     table 151,936 x 5120 x 2 B = 1,555,824,640 B and the output
//     20,971,520 B: 1.468 GiB; the same notes log 1.46 cold and 0.33 warm
//     for Qwen3-32B-AWQ (the same vocabulary and hidden size) on that box;
//   - row 307 (0.24.0, RTX 5090, Qwen3-8B): 6,896 tokens fewer than warm,
//     0.947 GiB, where 1.175 over the 0.25 charged warm is 0.92.
// Where the forward's own peak is the larger the cold start logs none
// more: row 241 (Qwen3-32B at TP 2, 8192 tokens: the table's half, 0.72
// GiB, and 0.08 of output under the forward's 0.95) and row 331 (GB10,
// Qwen3.6-35B-A3B: 248,320 x 2048 x 2 B = 0.95 GiB under the 1.06 of the
// forward, 0.20, and the V1 sampler's run above it, 0.86), both within
// 0.2 GiB of their warm sizing.
//
// Not explained by it, and not the compile as far as these rows show: rows
// 242 and 243 (Qwen3-32B at the TP 1 width, 8192 tokens, RTX PRO 6000, sized
// 1.42-1.44 GiB short) and row 240 (TP 4, 0.39 short), whose scratch (1.53
// GiB at the TP 1 width, 0.35 at TP 4) stays under their forward's peak
// (1.54, 0.94), so that the cold start charges them nothing more
// (pcieRows027); rows 322-323 (gpt-oss-20b on an L40) log 1.24 GiB where
// 201,088 x 2880 x 2 B and the output come to 1.09. Ruled out as the
// scratch, each off the rows by more than 0.2 GiB: a flat 1 GiB (1.2 over at
// TP 2, 0.61 over at TP 4, 0.44 short at TP 1); the table added to the
// forward's peak rather than beside it (0.23 over on row 212, 0.32 on row
// 206, 0.72 on row 241); Triton's 256 MB do_bench flush buffer or an
// L2-sized one on top (72-96 MB: row 212's and 206's peaks leave no room for
// it); Inductor's pad_mm (Qwen3's matmul dimensions are multiples of 64 and
// need no padding); the autotuner's clones of mutated arguments
// (CachingAutotuner.copy_args_to_cpu_if_needed keeps them within the peak
// already reached). Public reports measure other models: issue #54122 (tens
// of GiB at TP 4, a MoE image), PR #54479's thread (0.47 GiB for
// Qwen3-32B-AWQ at TP 2 on two RTX 4090s, 3584 batched tokens, where the
// table's half and the output, 0.76, less that forward's peak, 0.44 by
// peaks.go's rule, give 0.32), 1Cat-vLLM PR #518 (+1.85 GiB of torch peak on
// a Quadro RTX 8000).
//
// What a cold start adds to consumed memory is not charged; the report
// states it as an estimate, no bound (coldKeptSegment: the first-start line's "can also
// keep" clause and first_start_cold_compile's kept_segment_bytes and
// tokens_if_kept; under --compile-cache cold a line of its own,
// writeColdKept, and cold_start_kept_segment), since it fits half the rows (rows 206-207 log 0.55%
// fewer tokens than it leaves: TestColdKeptRows206). On some rows
// it is one more of Qwen3's 5120-wide tables (1,555,824,640 B, 1.449 GiB)
// beside the scratch: rows 206-207 log 11.22 GiB consumed where the warm
// charge is 9.71 (+1.51), the same notes' Qwen3-32B-AWQ 20.04 cold against
// 18.62 on its warm restart (+1.42), and rows 242-243 (the TP 1 width) are
// 1.42-1.44 short; rows 212 and 324 log the same 15.54 cold and warm, and
// rows 241 (TP 2) and 322-323 take none. What was read, at d18bb7b:
//   - since PR #49208 (58b2012aa, 0.26.1 on) consumed is the drop in free
//     device memory from the worker's snapshot to after the profile's
//     closing empty_cache, and activation the allocator's peak less what is
//     still allocated then (vllm/utils/mem_utils.py:303-326): a segment
//     empty_cache cannot return, because a block in it is still live, is
//     charged whole in consumed and, where the transient peak lay in it,
//     again as activation. Before it (row 307's 0.24.0) non-torch memory
//     was device memory less torch's reserved (mem_utils.py:156-163 at
//     58b2012aa^), which charges such a segment nowhere but would charge
//     device memory outside torch (the driver's, kernel code loaded in the
//     window: vLLM PR #49892): row 307, a cold start on an RTX 5090, takes
//     0.03 GiB beyond its scratch, not the 1.16 of its table, so on that
//     release (torch 2.11) a cold start leaves no table-sized memory
//     outside torch;
//   - the table copy's segment (742 x kRoundLarge, 2 MiB, c10/cuda/
//     CUDACachingAllocator.cpp: 1.449 GiB) kept so, less the segment the
//     pinning block has of its own on a warm start (20-32 MiB), gives
//     1.42-1.43: the notes' pair and rows 242-243 within 0.03, row 206
//     within 0.09. But no live block was found that would pin it there and
//     not on rows 212, 241 and 322-323, which, pinned, would take 1.14,
//     0.71 and 1.06 more (segments of 594, 371 and 553 x 2 MiB less 20
//     MiB): that is the allocator's best fit over the segments the
//     benchmarks and the forward leave, which membudget does not trace. A
//     candidate, not established: PyTorch's cuBLAS workspace, taken from
//     the caching allocator on a handle and stream's first call, 32 MiB at
//     compute capability 9-12 and 8.125 MiB below (aten/src/ATen/cuda/
//     CublasHandlePool.cpp parseChosenWorkspaceSize, a stored version of
//     PyTorch main that keeps it only under TORCH_CUBLAS_WORKSPACE_CACHE;
//     the torch 2.13 of these rows was not read);
//   - the rows with it all hold the 5120-wide table on a compute capability
//     12.0 card (RTX 5090, RTX PRO 6000) at TP 1, those without a narrower
//     table (1.16 and 1.08 GiB on 8.9 cards) or its TP 2 half (0.72 on
//     12.0): card and size are not told apart, and no threshold between
//     1.16 and 1.45 GiB was found, in the allocator (kMinLargeAlloc 10
//     MiB, kLargeBuffer 20 MiB, max_split_size unlimited but in
//     load_model, vllm/v1/worker/gpu_worker.py:281-302, 436-443) or in
//     vLLM's compile path;
//   - ruled out, a second copy the cold path keeps alive: the AOT compile
//     hands the backend Dynamo's example inputs, references to the
//     parameters and the dummy batch (torch/_dynamo/aot_compile.py
//     aot_compile_fullgraph); vLLM's cold callable holds them and saves a
//     copy of its state with every tensor on the meta device
//     (vllm/compilation/caching.py:260-294, decorators.py:663-670); the
//     one device clone, of the symbolic-shape inputs, is made under
//     cudagraph_copy_inputs, off by default (backends.py:1291-1335,
//     config/compilation.py:652).
//
// The same layout held in 0.18's code (gpu_worker.py:384-388 at 39474513f
// of 2026-03-20, the peak read the same way), so every V1 release that
// compiles is exposed; what its compile allocates is sized from 0.11.1
// alone (coldScratchSince). vLLM has the bug open: issues #54122 (2026-08-27)
// and #54383 (2026-08-30); the fixes, PRs #54209 and #54479, were open
// when read, so no release membudget sizes has one.

// coldScratchSince is the first release whose cold compile benchmarks its
// kernels on random copies of their arguments (coldCompileScratch): vLLM
// turns on Inductor's combo_kernels and benchmark_combo_kernel only on
// torch 2.9 or later (is_torch_equal_or_newer("2.9.0.dev"), vllm/config/
// compilation.py:976-986 at d18bb7b), a rule PR #26682 (ca683a2a7, merged
// 2025-10-14) brought to a main still on torch 2.8.0 (requirements/
// cuda.txt at ca683a2a7). Torch 2.9.0 reached main on 2025-10-21 (PR
// #24994, becb7de40) for v0.11.1 (PR #26416, "Remove Python 3.9 support
// ahead of PyTorch 2.9 in v0.11.1"), so 0.11.0 and earlier, on torch 2.8
// or older, run no such benchmark: what their cold compile allocates is
// not modelled.
var coldScratchSince = Version{0, 11, 1}

// coldModelled reports whether the serve's release runs the kernel
// benchmarks coldCompileScratch sizes (coldScratchSince).
func (r *Resolved) coldModelled() bool {
	return r.Profile.Release.AtLeast(coldScratchSince)
}

// coldUnmodelledWhy says why a first start's compile is not sized on a
// release before coldScratchSince.
func coldUnmodelledWhy(p Profile) string {
	return fmt.Sprintf("what a first start's torch.compile allocates is not modelled for %s: it runs torch 2.8 or older, where vLLM turns on none of Inductor's combo-kernel benchmarks (vllm/config/compilation.py, torch 2.9 on, from vLLM %s), whose copy of the embedding table membudget charges", p.Describes, coldScratchSince)
}

// refuseColdUnmodelled refuses a cold start (--compile-cache cold, or
// VLLM_DISABLE_COMPILE_CACHE set nonzero) of a compiled serve whose KV
// cache the profile sizes on a release before coldScratchSince: its
// compile's scratch is not known, so membudget does not size it.
func (r *Resolved) refuseColdUnmodelled() error {
	if !r.ColdCompileCache || !r.compiles() || r.KVCacheMemoryBytes > 0 || r.coldModelled() {
		return nil
	}
	why := coldUnmodelledWhy(r.Profile) + "; membudget refuses it rather than size a start vLLM would contradict (--compile-cache warm sizes a start whose cache an earlier start filled)"
	if r.CompileCacheOff {
		return envErr(compileCacheEnv, "1", "%s", why)
	}
	return settingErr("compile-cache", "cold", "%s", why)
}

// coldCompileScratch is what a cold compile's kernel benchmarks allocate
// at once on a GPU of stage st: on the first stage, the random copy of
// the embedding table the rank holds (vLLM's padded vocabulary, a
// multiple of 64, over the TP ranks, x hidden x the model's dtype) and of
// the lookup's output (the batched tokens x hidden); nothing on later
// stages, whose kernels' largest arguments are a layer's activations,
// under the forward's own peak, nor on a multimodal serve's first stage,
// whose compiled forward takes the embeddings looked up outside it
// (embedsOutsideCompile).
func coldCompileScratch(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	table := coldTableCopy(a, r, st)
	if table == 0 {
		return 0
	}
	output := budget.SatMul(budget.SatMul(r.MaxNumBatchedTokens, a.Hidden), r.DtypeBytes)
	return budget.SatAdd(table, output)
}

// coldTableCopy is the bytes of the embedding table's random copy a cold
// compile's benchmarks allocate on a GPU of stage st (coldCompileScratch):
// the rank's share of vLLM's padded vocabulary (a multiple of 64, over the
// TP ranks) x hidden x the model's dtype on the first stage, 0 on later
// stages and where the lookup runs outside the compiled forward
// (embedsOutsideCompile).
func coldTableCopy(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	if !st.First || a == nil || r.embedsOutsideCompile(a) {
		return 0
	}
	tp := max(st.TP, 1)
	return budget.SatMul(budget.SatMul(budget.RoundUp(a.Vocab, vocabPadding)/tp, a.Hidden), r.DtypeBytes)
}

// coldKeptSegment is the allocator segment of the table copy
// (coldTableCopy) on a GPU of stage st, which a first start can keep
// reserved from vLLM 0.26.1 ([Profile.ConsumedSinceSnapshot], PR
// #49208): vLLM then charges the drop in free device memory up to the
// profile's closing empty_cache, so a segment that a live block pins
// there is counted whole in its "consumed" memory. The segment is the
// copy's bytes rounded up to kRoundLarge, 2 MiB: a copy of at least
// kMinLargeAlloc, 10 MiB, gets a segment of its own
// (c10/cuda/CUDACachingAllocator.cpp, torchalloc.Pools). A smaller copy
// has none: it is a block of a 2 or 20 MiB pool segment the allocator
// shares with other blocks, which a warm start holds as well, so no
// segment of the copy's is kept, and this is 0 (a test model's table, or
// a small one split over many TP ranks: at TP 1 the smallest table in
// corpus/models, BAAI/bge-base-en-v1.5's 30,522 x 768 x 2 B, is 44.7
// MiB). The figure is not charged: rows 206-207, 242-243 and the notes' Qwen3-32B-AWQ pair
// log it (within 0.03-0.09 GiB), rows 212, 241 and 322-323 do not, and
// which block pins it is not traced (see this file's comment). 0 before
// 0.26.1, where the segment is charged nowhere, and where no table is
// copied.
func coldKeptSegment(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	if !r.Profile.ConsumedSinceSnapshot {
		return 0
	}
	table := coldTableCopy(a, r, st)
	if table < torchalloc.MinLarge {
		return 0
	}
	return torchalloc.Pools{}.Add(table, 1).Reserved()
}

// embedsOutsideCompile reports whether the first stage's compiled forward
// takes the input embeddings rather than token ids, so that the
// embedding table is no argument of a compiled kernel: a multimodal serve
// vLLM does not serve as text only (supports_multimodal_inputs), whose
// runners look the embeddings up outside the compiled model and pass
// inputs_embeds, the profile's dummy run included (V1 gpu_model_runner.py:
// 6189-6190 and 3629, not for an encoder-decoder model; V2 gpu/
// model_runner.py:1521-1555, at d18bb7b).
func (r *Resolved) embedsOutsideCompile(a *model.Arch) bool {
	return a.Vision != nil && !r.Encoder.TextOnly && !a.EncoderDecoder()
}

// coldCompileExtra is what a cold compile adds to a stage's profiled
// torch peak, whose warm part is warmPeak (the forward pass, the sampler
// and every other transient item): the compile's scratch beyond it, as
// vLLM's window reads the larger of the two.
func coldCompileExtra(a *model.Arch, r *Resolved, st model.Sharding, warmPeak uint64) uint64 {
	return budget.SatSub(coldCompileScratch(a, r, st), warmPeak)
}

// peakOf is the profiled torch peak the items charge: their activation
// and sampler terms, which sum to it.
func peakOf(items []budget.Item) uint64 {
	var p uint64
	for _, it := range items {
		if it.Term == budget.TermActivation || it.Term == budget.TermSampler {
			p = budget.SatAdd(p, it.Bytes)
		}
	}
	return p
}

// stagePeak is a stage's warm profiled torch peak in a plan.
func stagePeak(st *budget.Stage) uint64 {
	return budget.SatAdd(st.Fixed[budget.TermActivation], st.Fixed[budget.TermSampler])
}

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
// compile cache: every stage's activation peak raised by what its
// compile's scratch takes beyond it (coldCompileExtra; every worker
// compiles its own stage). ok is false where the report has nothing to
// say: a serve that does not compile, one whose KV cache is pinned by
// --kv-cache-memory-bytes (vLLM then sizes no cache from the profile:
// gpu_worker.py:474-495), or one sized cold already (--compile-cache
// cold).
func (sz *Sizing) coldCapacity() (c Capacity, ok bool) {
	return sz.coldCapacityKept(false)
}

// coldCapacityKept is coldCapacity, with, where kept, each stage's table
// copy's segment (coldKeptSegment) also charged as vLLM counts it, in the
// consumed memory (the non-torch term) of a start that keeps it. Of a
// serve sized cold (--compile-cache cold) it is, where kept, that start
// with the segment kept: its plan charges the compile already (the
// cold_compile item, appendColdCompile), so only the segment is added;
// not kept, it has nothing to say (ok false), the report being that
// start's.
func (sz *Sizing) coldCapacityKept(kept bool) (c Capacity, ok bool) {
	r := sz.Serve
	if !r.compiles() || !r.coldModelled() || r.KVCacheMemoryBytes > 0 || r.ColdCompileCache && !kept || sz.plan == nil || len(sz.plan.Stages) == 0 || len(sz.plan.Stages) != len(r.Stages) {
		return Capacity{}, false
	}
	cold := *sz.plan
	cold.Stages = slices.Clone(sz.plan.Stages)
	for i := range cold.Stages {
		st := &cold.Stages[i]
		if !r.ColdCompileCache {
			st.Fixed[budget.TermActivation] = budget.SatAdd(st.Fixed[budget.TermActivation], sz.coldStageExtra(i))
		}
		if kept {
			st.Fixed[budget.TermNonTorch] = budget.SatAdd(st.Fixed[budget.TermNonTorch], coldKeptSegment(sz.Model.Arch, r, stageOf(r, i)))
		}
	}
	return sz.check.capacity(&cold), true
}

// coldStageExtra is what stage i of the serve's warm plan takes more on a
// first start with an empty compile cache: coldCompileExtra over the
// stage's warm peak.
func (sz *Sizing) coldStageExtra(i int) uint64 {
	return coldCompileExtra(sz.Model.Arch, sz.Serve, stageOf(sz.Serve, i), stagePeak(&sz.plan.Stages[i]))
}

// coldExtra is the most a stage of the serve's profile takes more on a
// first start with an empty compile cache (coldStageExtra); 0 where
// nothing is planned. Its callers speak of a warm sizing (coldStarts), so
// the plan's peaks hold no cold_compile item.
func (sz *Sizing) coldExtra() uint64 {
	if sz.plan == nil || len(sz.plan.Stages) != len(sz.Serve.Stages) {
		return 0
	}
	var most uint64
	for i := range sz.plan.Stages {
		most = max(most, sz.coldStageExtra(i))
	}
	return most
}

// coldItem is the cold_compile item of stage i's profile under
// --compile-cache cold, 0 otherwise.
func (sz *Sizing) coldItem(i int) uint64 {
	r := sz.Serve
	if !r.chargesColdCompile() || i >= len(r.Stages) {
		return 0
	}
	for _, it := range peakItems(sz.Model.Arch, r, stageOf(r, i)) {
		if it.Name == "cold_compile" {
			return it.Bytes
		}
	}
	return 0
}

// writeColdCompile writes, under a serve vLLM starts, what a first start
// with an empty compile cache leaves: the tokens vLLM would log then, and
// whether it still starts. Under --compile-cache cold, whose report is
// that start's, it writes what the table copy's kept segment would leave
// (writeColdKept).
func (sz *Sizing) writeColdCompile(w io.Writer) {
	if sz.Serve.chargesColdCompile() {
		sz.writeColdKept(w)
		return
	}
	cold, ok := sz.coldStarts()
	if !ok {
		if r := sz.Serve; r.compiles() && !r.coldModelled() && r.KVCacheMemoryBytes == 0 && !sz.encoderOnly() {
			fmt.Fprintf(w, "  a first start with an empty torch.compile cache (a fresh pod without a kept VLLM_CACHE_ROOT) profiles the compile too: %s\n", coldUnmodelledWhy(r.Profile))
		}
		return
	}
	extra := sz.coldExtra()
	if extra == 0 && sz.coldScratch() == 0 {
		fmt.Fprintf(w, "  a first start with an empty torch.compile cache (a fresh pod without a kept VLLM_CACHE_ROOT) profiles the compile too, but the embedding lookup, whose table is the largest argument Inductor's kernel benchmarks copy, runs outside the compiled forward of a multimodal serve (vLLM passes it inputs_embeds), so vLLM leaves it the same %d tokens (vLLM issues #54122, #54383, open)\n",
			sz.capacity.LoggedTokens)
		return
	}
	if extra == 0 {
		fmt.Fprintf(w, "  a first start with an empty torch.compile cache (a fresh pod without a kept VLLM_CACHE_ROOT) profiles the compile too, but Inductor's benchmark copy of the embedding table (%s a GPU with the lookup's output) stays under the forward pass's peak, so vLLM leaves it the same %d tokens (vLLM issues #54122, #54383, open)%s\n",
			engine.GiB(sz.coldScratch()), sz.capacity.LoggedTokens, sz.coldKeptClause(cold.LoggedTokens))
		return
	}
	leaves := fmt.Sprintf("which leaves %d tokens instead of %d", cold.LoggedTokens, sz.capacity.LoggedTokens)
	if cold.LoggedTokens == sz.capacity.LoggedTokens {
		// The first stage takes it, and another binds the tokens (or
		// it is under a block).
		leaves = fmt.Sprintf("which leaves the same %d tokens", cold.LoggedTokens)
	}
	fmt.Fprintf(w, "  a first start with an empty torch.compile cache (a fresh pod without a kept VLLM_CACHE_ROOT) profiles the compile too: Inductor benchmarks its kernels on random copies of their arguments, the embedding table's (%s a GPU with the lookup's output) among them, and vLLM charges what that takes beyond the forward pass's peak as activation, %s more on the first stage (vLLM issues #54122, #54383, open), %s (--compile-cache cold sizes that start)",
		engine.GiB(sz.coldScratch()), engine.GiB(extra), leaves)
	if r := cold.Refusal(sz.Serve.MaxModelLen, sz.Serve.MaxNumSeqs); r != "" {
		fmt.Fprintf(w, "; vLLM refuses that start: %s", r)
	}
	fmt.Fprintln(w, sz.coldKeptClause(cold.LoggedTokens))
}

// coldKeptClause is the first-start line's estimate of the table copy's
// segment a first start can keep (coldKeptSegment) and the tokens it
// would leave, from "; " on; "" where none is counted (before 0.26.1, no
// table copied, or a copy under 10 MiB: coldKeptSegment). first is the
// tokens of the first start without it, which the clause calls "the
// same" where the segment leaves as many (another stage binds them, or
// the segment is under a block).
func (sz *Sizing) coldKeptClause(first uint64) string {
	seg, kept, ok := sz.keptStart()
	if !ok {
		return ""
	}
	leaves := fmt.Sprintf("which would leave %d tokens", kept.LoggedTokens)
	if kept.LoggedTokens == first {
		leaves = fmt.Sprintf("which would leave the same %d tokens", first)
	}
	clause := fmt.Sprintf("; from vLLM %s a first start can also keep that copy's allocator segment reserved (%s, %s), %s",
		v0_26_1, engine.GiB(seg), keptEvidence, leaves)
	if r := kept.Refusal(sz.Serve.MaxModelLen, sz.Serve.MaxNumSeqs); r != "" {
		clause += "; vLLM refuses that start: " + r
	}
	return clause
}

// writeColdKept writes, under a serve sized cold (--compile-cache cold)
// that vLLM starts, the table copy's segment that start can also keep
// from vLLM 0.26.1 (coldKeptSegment), the tokens vLLM would log with it
// kept and whether it would still start: the warm report's "can also
// keep" clause as a line of its own, an estimate, not charged. Nothing
// where no segment is counted (coldKeptCold).
func (sz *Sizing) writeColdKept(w io.Writer) {
	seg, kept, ok := sz.coldKeptCold()
	if !ok {
		return
	}
	leaves := fmt.Sprintf("which would leave %d tokens instead of %d", kept.LoggedTokens, sz.capacity.LoggedTokens)
	if kept.LoggedTokens == sz.capacity.LoggedTokens {
		// Another stage binds the tokens, or the segment is under a
		// block.
		leaves = fmt.Sprintf("which would leave the same %d tokens", kept.LoggedTokens)
	}
	starts := "vLLM still starts it"
	if r := kept.Refusal(sz.Serve.MaxModelLen, sz.Serve.MaxNumSeqs); r != "" {
		starts = "vLLM refuses that start: " + r
	}
	fmt.Fprintf(w, "  from vLLM %s this cold start can also keep the allocator segment of Inductor's benchmark copy of the embedding table reserved (%s, %s), an estimate not charged above, %s; %s\n",
		v0_26_1, engine.GiB(seg), keptEvidence, leaves, starts)
}

// coldKeptCold is, for a serve sized cold (--compile-cache cold) that
// vLLM starts, the largest table-copy segment a stage's start can keep
// (coldKept) and the KV capacity with each stage's kept
// (coldCapacityKept); ok is false where the report has nothing to say: a
// serve not sized cold, one vLLM does not start (the segment would only
// take more), an encoder-only pooling serve (no KV cache profiled) and
// where no segment is counted (before 0.26.1, no table copied, a copy
// under 10 MiB).
func (sz *Sizing) coldKeptCold() (seg uint64, kept Capacity, ok bool) {
	if !sz.Serve.chargesColdCompile() || !sz.startsProfiled() {
		return 0, Capacity{}, false
	}
	return sz.keptStart()
}

// keptStart is the largest table-copy segment a stage's first start can
// keep (coldKept) and the KV capacity of a first start with each stage's
// kept (coldCapacityKept); ok is false where no segment is counted
// (before 0.26.1, no table copied, a copy under 10 MiB) or where that
// capacity has nothing to say. The warm report's clause, its JSON and
// the cold report's line (coldKeptCold) all read it.
func (sz *Sizing) keptStart() (seg uint64, kept Capacity, ok bool) {
	if seg = sz.coldKept(); seg == 0 {
		return 0, Capacity{}, false
	}
	kept, ok = sz.coldCapacityKept(true)
	return seg, kept, ok
}

// coldKeptJSON is the report's "cold_start_kept_segment" under
// --compile-cache cold (coldKeptCold), whose report has no
// first_start_cold_compile: the fields of that object's that speak of
// the kept segment.
type coldKeptJSON struct {
	// KeptSegmentBytes is the table copy's allocator segment the start
	// can also keep (coldKeptSegment): an estimate, not charged.
	KeptSegmentBytes uint64 `json:"kept_segment_bytes"`
	// TokensIfKept and StartsIfKept are the logged tokens and whether
	// vLLM starts where that segment is kept.
	TokensIfKept uint64 `json:"tokens_if_kept"`
	StartsIfKept bool   `json:"starts_if_kept"`
}

// coldKeptField is the report's cold_start_kept_segment, where its text
// has the line (writeColdKept).
func (sz *Sizing) coldKeptField() []engine.Field {
	seg, kept, ok := sz.coldKeptCold()
	if !ok {
		return nil
	}
	r := sz.Serve
	return []engine.Field{{Key: "cold_start_kept_segment", Value: coldKeptJSON{KeptSegmentBytes: seg, TokensIfKept: kept.LoggedTokens,
		StartsIfKept: kept.Refusal(r.MaxModelLen, r.MaxNumSeqs) == ""}}}
}

// keptEvidence is what the kept segment's clauses say of where vLLM
// counts it: every start that logs it ran at TP 1 (rows 206-207 on an RTX
// 5090, 242-243 on RTX PRO 6000 cards, the notes' Qwen3-32B-AWQ pair on
// the RTX 5090), and none at TP 2 (row 241, RTX PRO 6000) nor on an RTX
// 4090 (row 212 against row 324) or an L40 (rows 322-323) logs it
// (coldKeptSegment).
const keptEvidence = "counted in vLLM's consumed memory where a live block pins it, as public logs of TP 1 starts on RTX 5090 and RTX PRO 6000 cards show; a TP 2 start and RTX 4090 / L40 starts do not"

// coldKept is the largest table-copy segment a stage's first start can
// keep (coldKeptSegment): the first stage's; 0 before 0.26.1.
func (sz *Sizing) coldKept() uint64 { return sz.stagesMost(coldKeptSegment) }

// coldScratch is the most a stage's compile benchmarks allocate at once
// (coldCompileScratch): the first stage's.
func (sz *Sizing) coldScratch() uint64 { return sz.stagesMost(coldCompileScratch) }

// stagesMost is the most f gives a GPU of any of the serve's stages.
func (sz *Sizing) stagesMost(f func(*model.Arch, *Resolved, model.Sharding) uint64) uint64 {
	var most uint64
	for i := range sz.Serve.Stages {
		most = max(most, f(sz.Model.Arch, sz.Serve, stageOf(sz.Serve, i)))
	}
	return most
}

// coldCompileJSON is the report's "first_start_cold_compile": the KV
// cache of a first start with an empty torch.compile cache.
type coldCompileJSON struct {
	// ExtraActivationBytes is the most the cold compile adds to a GPU's
	// profiled activation (coldCompileExtra): its scratch beyond the
	// forward's peak, 0 where the peak covers it.
	ExtraActivationBytes uint64 `json:"extra_activation_bytes"`
	Blocks               uint64 `json:"blocks"`
	LoggedTokens         uint64 `json:"logged_tokens"`
	// Starts says vLLM still starts the serve on such a start.
	Starts bool `json:"starts"`
	// KeptSegmentBytes is the table copy's allocator segment a first
	// start can also keep, counted in vLLM's consumed memory from 0.26.1
	// (coldKeptSegment): an estimate, not charged; 0 before 0.26.1, where no
	// table is copied, or where the copy is under kMinLargeAlloc, 10 MiB
	// (no segment of its own).
	KeptSegmentBytes uint64 `json:"kept_segment_bytes"`
	// TokensIfKept and StartsIfKept are the logged tokens and whether
	// vLLM starts where that segment is kept: LoggedTokens and Starts
	// where KeptSegmentBytes is 0.
	TokensIfKept uint64 `json:"tokens_if_kept"`
	StartsIfKept bool   `json:"starts_if_kept"`
}

// coldStarts reports whether the report speaks of a first start: the warm
// start starts (a serve it refuses is refused cold too) and the serve
// compiles in its profile.
func (sz *Sizing) coldStarts() (Capacity, bool) {
	if !sz.startsProfiled() {
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
	r := sz.Serve
	j := coldCompileJSON{ExtraActivationBytes: sz.coldExtra(), Blocks: cold.Blocks, LoggedTokens: cold.LoggedTokens,
		Starts: cold.Refusal(r.MaxModelLen, r.MaxNumSeqs) == ""}
	j.TokensIfKept, j.StartsIfKept = j.LoggedTokens, j.Starts
	// coldStarts' capacity was had, so keptStart's is too (it lifts only
	// the guard against a serve sized cold): ok wherever a segment counts.
	if seg, kept, ok := sz.keptStart(); ok {
		j.KeptSegmentBytes, j.TokensIfKept, j.StartsIfKept = seg, kept.LoggedTokens, kept.Refusal(r.MaxModelLen, r.MaxNumSeqs) == ""
	}
	return []engine.Field{{Key: "first_start_cold_compile", Value: j}}
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

// appendColdCompile appends, under --compile-cache cold, what the cold
// compile's scratch on stage st takes beyond the profile's peak the items
// charge (coldCompileExtra): the compile is freed before the forward
// runs, so vLLM's window reads the larger of the two. It comes last, after
// every item of the peak.
func appendColdCompile(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding) []budget.Item {
	if !r.chargesColdCompile() {
		return items
	}
	return append(items, budget.Item{Name: "cold_compile", Term: budget.TermActivation, Bytes: coldCompileExtra(a, r, st, peakOf(items))})
}

// splitColdCompile names the cold compile's line of the activation peak.
// An encoder-only pooling serve has no such item: vLLM sizes no KV cache
// from a profile for it (encoderPeakItems), so the option changes nothing.
func (sz *Sizing) splitColdCompile(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	if !sz.Serve.chargesColdCompile() || sz.encoderOnly() {
		return lines
	}
	return splitOut(lines, budget.TermActivation, coldCompileLabel, sz.coldItem(fp.Stage))
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
	case !r.coldModelled():
		return "each command is sized for a start whose torch.compile cache is filled: " + coldUnmodelledWhy(p)
	case cold:
		return "each command is sized for a first start with an empty torch.compile cache (--compile-cache cold): vLLM profiles the compile too, and Inductor's benchmark copy of the embedding table (vocabulary x hidden a first-stage GPU) raises its activation peak where it is the larger (vLLM issues #54122, #54383, open)" + keptNote(p, "such a start")
	}
	return "each command is sized for a start whose torch.compile cache is filled: a first start with an empty one (a fresh pod without a kept VLLM_CACHE_ROOT) profiles the compile too, and Inductor's benchmark copy of the embedding table (vocabulary x hidden a first-stage GPU) raises vLLM's activation peak where it is the larger (vLLM issues #54122, #54383, open), so it holds that much less KV cache; --compile-cache cold sizes that start" + keptNote(p, "a first start")
}

// keptNote is plan's clause on the table copy's segment a first start
// (who) can also keep from 0.26.1 (coldKeptSegment), from "; " on; ""
// before 0.26.1. The commands are not sized for it: an estimate, which a
// deployment's warm report sizes on its first-start line.
func keptNote(p Profile, who string) string {
	if !p.ConsumedSinceSnapshot {
		return ""
	}
	return fmt.Sprintf("; from vLLM %s %s can also keep that copy's allocator segment reserved (the copy rounded up to 2 MiB, %s), which no command here is sized for", v0_26_1, who, keptEvidence)
}
