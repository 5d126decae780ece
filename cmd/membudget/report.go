package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/vllm"
)

// reportJSON is `membudget report --json`.
type reportJSON struct {
	Model      modelJSON     `json:"model"`
	Engine     string        `json:"engine"`
	Class      classJSON     `json:"class"`
	Serve      serveJSON     `json:"serve"`
	Footprint  footprintJSON `json:"footprint"`
	KVCapacity capacityJSON  `json:"kv_capacity"`
	Fits       bool          `json:"fits"`
	Advice     *adviceJSON   `json:"advice,omitempty"`
}

type modelJSON struct {
	Name      string      `json:"name"`
	Source    sourceJSON  `json:"source"`
	ModelType string      `json:"model_type"`
	Summary   string      `json:"summary"`
	Weights   weightsJSON `json:"weights"`
}

type serveJSON struct {
	VLLMVersion          string            `json:"vllm_version"`
	VLLM                 string            `json:"vllm"`
	GPUMemoryUtilization float64           `json:"gpu_memory_utilization"`
	KVCacheMemoryBytes   uint64            `json:"kv_cache_memory_bytes"`
	MaxModelLen          uint64            `json:"max_model_len"`
	MaxNumSeqs           uint64            `json:"max_num_seqs"`
	MaxNumBatchedTokens  uint64            `json:"max_num_batched_tokens"`
	BlockSize            uint64            `json:"block_size"`
	KVCacheDtype         string            `json:"kv_cache_dtype"`
	TensorParallelSize   uint64            `json:"tensor_parallel_size"`
	PipelineParallelSize uint64            `json:"pipeline_parallel_size"`
	DataParallelSize     uint64            `json:"data_parallel_size"`
	EnableExpertParallel bool              `json:"enable_expert_parallel"`
	Dtype                string            `json:"dtype"`
	Quantization         string            `json:"quantization"`
	EnforceEager         bool              `json:"enforce_eager"`
	AsyncScheduling      bool              `json:"async_scheduling"`
	CPUOffloadGiB        float64           `json:"cpu_offload_gib"`
	SwapSpaceGiB         float64           `json:"swap_space_gib"`
	Defaults             map[string]string `json:"defaults"`
	Ignored              []string          `json:"ignored,omitempty"`
	Command              string            `json:"command"`
}

type capacityJSON struct {
	AvailableBytes       uint64  `json:"available_bytes"`
	BlockBytes           uint64  `json:"block_bytes"`
	Blocks               uint64  `json:"blocks"`
	Tokens               uint64  `json:"tokens"`
	LoggedTokens         uint64  `json:"logged_tokens"`
	PagesPerSeq          uint64  `json:"pages_per_seq"`
	MaxConcurrency       float64 `json:"max_concurrency"`
	NeededBytes          uint64  `json:"needed_bytes"`
	Starts               bool    `json:"starts"`
	EstimatedMaxModelLen uint64  `json:"estimated_max_model_len"`
	// StateBlocks and SeqsOverStateBlocks: a hybrid model's Mamba cache
	// blocks, and whether vLLM refuses max_num_seqs above them.
	StateBlocks         uint64 `json:"state_blocks,omitempty"`
	SeqsOverStateBlocks bool   `json:"seqs_over_state_blocks,omitempty"`
	// Groups is vLLM's KV cache groups, as its spec classes name them.
	Groups string `json:"groups,omitempty"`
}

func capacityOf(c vllm.Capacity) capacityJSON {
	return capacityJSON{AvailableBytes: c.AvailableBytes, BlockBytes: c.BlockBytes, Blocks: c.Blocks, Tokens: c.Tokens,
		LoggedTokens: c.LoggedTokens, PagesPerSeq: c.PagesPerSeq, MaxConcurrency: c.Concurrency, NeededBytes: c.NeededBytes,
		Starts: c.Starts, EstimatedMaxModelLen: c.EstimatedMaxModelLen, StateBlocks: c.StateBlocks, SeqsOverStateBlocks: c.SeqsOverStateBlocks}
}

// adviceJSON is what would make a serve that does not fit fit, each
// suggestion checked by the evaluator, and the space the search covered.
type adviceJSON struct {
	Suggestions []suggestionJSON `json:"suggestions"`
	Searched    []string         `json:"searched"`
}

// suggestionJSON is one checked change of the serve's flags.
type suggestionJSON struct {
	Flags string `json:"flags"`
	Why   string `json:"why"`
	GPUs  uint64 `json:"gpus"`
	// LedgerBytes and BudgetBytes are the footprint the suggestion was
	// checked at, on the stage that binds.
	LedgerBytes uint64 `json:"ledger_bytes"`
	BudgetBytes uint64 `json:"budget_bytes"`
}

func runReport(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("report", stderr)
	var f serveFlags
	if err := f.registerFor(fs, args); err != nil {
		return fail(stderr, "report", exitBadArgs, err)
	}
	var seqs, length *uint64
	if f.engine == engineSGLang {
		seqs = fs.Uint64("seqs", 1, "sequences to size for")
		length = fs.Uint64("length", 0, "tokens per sequence (default: --context-length)")
	} else {
		seqs = fs.Uint64("seqs", 1, "sequences to size for (vLLM's startup check: 1)")
		length = fs.Uint64("length", 0, "tokens per sequence (default: max_model_len, vLLM's startup check)")
	}
	if status, ok := f.parseServe(fs, args); !ok {
		return status
	}
	if f.engine == engineSGLang {
		return runSGLangReport(stdout, stderr, &f, *seqs, *length)
	}
	sz, err := f.load()
	if err != nil {
		return fail(stderr, "report", exitBadArgs, err)
	}
	r := sz.serve
	t := *length
	if t == 0 {
		t = r.MaxModelLen
	}
	if *seqs == 0 || *seqs > r.MaxNumSeqs {
		return fail(stderr, "report", exitBadArgs, fmt.Errorf("--seqs %d: want 1 to --max-num-seqs %d", *seqs, r.MaxNumSeqs))
	}
	if t > r.MaxModelLen {
		return fail(stderr, "report", exitBadArgs, fmt.Errorf("--length %d: above --max-model-len %d", t, r.MaxModelLen))
	}
	fp := sz.plan.Evaluate(*seqs, t)
	ref, err := sz.reference()
	if err != nil {
		return fail(stderr, "report", exitBadArgs, err)
	}
	capacity := ref.Capacity()
	weights := sz.model.weightsOf(r, fp.Stage)
	writeWarnings(stderr, "report", append(slices.Clone(sz.model.warnings), weights.Warnings...))
	out := reportJSON{
		Model: modelJSON{Name: sz.modelName, Source: sz.model.source(), ModelType: sz.arch.ModelType, Summary: sz.arch.String(),
			Weights: weights},
		Engine:     engineVLLM,
		Class:      classOf(sz.class),
		Serve:      f.serveOf(sz.modelName, r),
		Footprint:  toJSON(fp, sz.plan.Beside),
		KVCapacity: capacityOf(capacity),
		Fits:       fp.Fits(),
	}
	out.KVCapacity.Groups = ref.Groups()
	// vLLM refuses to start whatever the footprint when one request of
	// max_model_len does not fit the KV cache, or max_num_seqs exceeds the
	// Mamba cache blocks: then nothing fits.
	refusal := capacity.Refusal(r.MaxModelLen, r.MaxNumSeqs)
	out.Fits = fp.Fits() && refusal == ""
	if !out.Fits {
		adv, err := vllm.Search{Arch: sz.arch, Class: sz.class, Profile: r.Profile}.Advise(r.Serve, engine.Target{Seqs: *seqs, Tokens: t})
		if err != nil {
			return fail(stderr, "report", exitBadArgs, err)
		}
		aj := adviceJSON{Suggestions: startFixes(sz, capacity, *seqs, t), Searched: adv.Searched}
		for _, sg := range adv.Suggestions {
			if refusal != "" && fp.Fits() {
				break // the footprint fits: only the refusal stops vLLM
			}
			if !startsWith(sz, sg.Serve) {
				continue // it fits the footprint, and vLLM still refuses it
			}
			aj.Suggestions = append(aj.Suggestions, suggestionJSON{Flags: sg.Flags, Why: sg.Why, GPUs: sg.GPUs, LedgerBytes: sg.At.Ledger, BudgetBytes: sg.At.Budget})
		}
		out.Advice = &aj
	}
	status := exitOK
	if !out.Fits {
		status = exitNoFit
	}
	if f.json {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "report", exitBadArgs, err)
		}
		return status
	}
	fmt.Fprintf(stdout, "model   %s — %s\n        %s\n", sz.modelName, sz.arch, sz.model.hub.Source.Description)
	writeWeights(stdout, weights, len(sz.plan.Stages) > 1)
	fmt.Fprintf(stdout, "class   %s — %s (%s %s), %s, util ceiling %.2f", sz.class.Name, sz.class.Device.Name, sz.class.Device.Silicon.Vendor, sz.class.Device.Silicon, gibString(sz.class.Device.MemoryBytes), sz.class.Memory.UtilCeiling)
	if sz.class.Memory.Unified {
		fmt.Fprint(stdout, ", unified memory")
	}
	fmt.Fprintf(stdout, "\nvllm    %s\n", r.Profile.Describes)
	if r.Profile.Note != "" {
		fmt.Fprintf(stdout, "        %s\n", r.Profile.Note)
	}
	fmt.Fprintf(stdout, "serve   %s\n", settingsLine(sz.modelName, r))
	for _, k := range sortedKeys(r.Sources) {
		fmt.Fprintf(stdout, "        default --%s: %s\n", k, r.Sources[k])
	}
	for _, ig := range f.ignored {
		fmt.Fprintf(stdout, "        ignored %s: it does not change memory\n", ig)
	}
	fmt.Fprintf(stdout, "\nfootprint of %d sequence(s) x %d tokens", *seqs, t)
	if len(sz.plan.Stages) > 1 {
		fmt.Fprintf(stdout, " on pipeline stage %d of %d (the one that binds)", fp.Stage+1, len(sz.plan.Stages))
	}
	fmt.Fprintln(stdout)
	writeFootprint(stdout, fp, sz.plan.Beside)
	writeCapacity(stdout, capacity, r, ref.Groups())
	if refusal != "" {
		fmt.Fprintf(stdout, "\nverdict: vLLM does not start — %s\n", refusal)
		writeAdvice(stdout, out.Advice, sz, *seqs, t)
		return status
	}
	if fp.Fits() {
		fmt.Fprintf(stdout, "\nverdict: fits — %d sequence(s) of %d tokens at --gpu-memory-utilization %v on %s\n", *seqs, t, r.GPUMemoryUtilization, sz.class.Name)
		return status
	}
	fmt.Fprintf(stdout, "\nverdict: does not fit — %s\n", shortfallString(fp))
	writeAdvice(stdout, out.Advice, sz, *seqs, t)
	return status
}

// startFixes are the changes that let vLLM start a serve it refuses, each
// checked on the serve recompiled with it (it starts, and the target
// fits): --max-model-len at vLLM's own estimate when the target's length
// is within it, and --max-num-seqs at the Mamba cache blocks (fewer
// sequences shrink the profile run, so the blocks do not fall).
func startFixes(sz *sizing, c vllm.Capacity, seqs, t uint64) []suggestionJSON {
	r := sz.serve
	fixes := []suggestionJSON{}
	try := func(s vllm.Serve, flags string, why func(vllm.Capacity) string) {
		ref, err := vllm.NewReference(sz.arch, s, sz.class, r.Profile)
		if err != nil {
			return // a serve vLLM refuses: no suggestion
		}
		nc := ref.Capacity()
		f := ref.Plan().Evaluate(seqs, t)
		if nc.Refusal(ref.Serve.MaxModelLen, ref.Serve.MaxNumSeqs) != "" || !f.Fits() {
			return
		}
		fixes = append(fixes, suggestionJSON{Flags: flags, Why: why(nc), GPUs: r.TensorParallelSize * r.PipelineParallelSize * max(r.DataParallelSize, 1),
			LedgerBytes: f.Ledger, BudgetBytes: f.Budget})
	}
	if !c.Starts && c.EstimatedMaxModelLen >= t && c.EstimatedMaxModelLen > 0 {
		s := r.Serve
		s.MaxModelLen, s.AutoMaxModelLen = c.EstimatedMaxModelLen, false
		try(s, fmt.Sprintf("--max-model-len %d", c.EstimatedMaxModelLen), func(vllm.Capacity) string {
			return "vLLM's estimated maximum model length: the longest one request of which fits the KV cache"
		})
	}
	if c.SeqsOverStateBlocks && c.StateBlocks >= seqs && c.StateBlocks > 0 {
		s := r.Serve
		s.MaxNumSeqs = c.StateBlocks
		try(s, fmt.Sprintf("--max-num-seqs %d", c.StateBlocks), func(nc vllm.Capacity) string {
			return fmt.Sprintf("the Mamba cache blocks: every running sequence holds one; vLLM then has %d", nc.StateBlocks)
		})
	}
	return fixes
}

// startsWith reports whether vLLM starts the serve s of sz's model and
// class.
func startsWith(sz *sizing, s vllm.Serve) bool {
	ref, err := vllm.NewReference(sz.arch, s, sz.class, sz.serve.Profile)
	if err != nil {
		return false
	}
	return ref.Capacity().Refusal(ref.Serve.MaxModelLen, ref.Serve.MaxNumSeqs) == ""
}

// writeCapacity prints the KV cache as vLLM's startup logs report it, and
// whether vLLM starts.
func writeCapacity(w io.Writer, c vllm.Capacity, r vllm.Resolved, groups string) {
	fmt.Fprintf(w, "\nKV cache: %s available: %d blocks of %d B, %d tokens (blocks / groups x block size)\n",
		gibString(c.AvailableBytes), c.Blocks, c.BlockBytes, c.Tokens)
	if groups != "" {
		fmt.Fprintf(w, "  groups: %s", groups)
		if r.StatePageBytes > 0 {
			fmt.Fprintf(w, "; state %d B a page", r.StatePageBytes)
			if c.StatePadding > 0 {
				fmt.Fprintf(w, ", padded by %d B to the attention page", c.StatePadding)
			}
			if r.MambaCacheMode != "" {
				fmt.Fprintf(w, ", %d page(s) a sequence (mamba_cache_mode %s)", r.StatePages, r.MambaCacheMode)
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "  vLLM logs: GPU KV cache size: %d tokens; maximum concurrency for %d tokens per request: %.2fx\n",
		c.LoggedTokens, r.MaxModelLen, c.Concurrency)
	if c.SeqsOverStateBlocks {
		fmt.Fprintf(w, "  vLLM refuses to start: %s\n", vllm.StateBlocksMessage(r.MaxNumSeqs, c.StateBlocks))
	} else if c.StateBlocks > 0 {
		fmt.Fprintf(w, "  Mamba cache blocks: %d, enough for --max-num-seqs %d (every running sequence holds one)\n", c.StateBlocks, r.MaxNumSeqs)
	}
	switch {
	case c.Starts && !c.SeqsOverStateBlocks:
		fmt.Fprintf(w, "  vLLM starts: one request of %d tokens needs %s of KV cache\n", r.MaxModelLen, gibString(c.NeededBytes))
		return
	case c.Starts:
		fmt.Fprintf(w, "  one request of %d tokens needs %s of KV cache: it fits\n", r.MaxModelLen, gibString(c.NeededBytes))
		return
	}
	fmt.Fprintf(w, "  vLLM refuses to start: %s\n", c.Refusal(r.MaxModelLen, r.MaxNumSeqs))
}

// writeAdvice prints the checked suggestions, and when there are none, the
// space searched and what the fixed part of the serve leaves.
func writeAdvice(w io.Writer, adv *adviceJSON, sz *sizing, seqs, t uint64) {
	for _, sg := range adv.Suggestions {
		gpus := ""
		if sg.GPUs != sz.serve.TensorParallelSize*sz.serve.PipelineParallelSize*max(sz.serve.DataParallelSize, 1) {
			gpus = fmt.Sprintf(", %d GPUs", sg.GPUs)
		}
		fmt.Fprintf(w, "  to fit: %s (%s%s)\n", sg.Flags, sg.Why, gpus)
	}
	if len(adv.Suggestions) > 0 {
		fmt.Fprintf(w, "  each checked at %d sequence(s) of %d tokens by the same evaluator, vLLM starting\n", seqs, t)
		return
	}
	fmt.Fprintf(w, "  nothing fits in the space searched: %s\n", strings.Join(adv.Searched, "; "))
	if one := sz.plan.Evaluate(1, 1); !one.Fits() {
		fmt.Fprintf(w, "  one sequence of one token: the fixed part (weights %s, activation and sampler %s) leaves %s\n",
			gibString(one.Terms[budget.TermWeights]), gibString(one.Terms[budget.TermActivation]+one.Terms[budget.TermSampler]), shortfallString(one))
	}
}

// shortfallString says by how much a footprint misses, on the condition
// that failed.
func shortfallString(f budget.Footprint) string {
	if sh := f.BudgetShortfall(); sh > 0 {
		return gibString(sh) + " over the util budget"
	}
	return gibString(f.DriverShortfall()) + " over device memory beside the budget"
}

func (f *serveFlags) serveOf(name string, r vllm.Resolved) serveJSON {
	return serveJSON{
		VLLMVersion: r.Profile.Name, VLLM: r.Profile.Describes,
		GPUMemoryUtilization: r.GPUMemoryUtilization, KVCacheMemoryBytes: r.KVCacheMemoryBytes,
		MaxModelLen: r.MaxModelLen, MaxNumSeqs: r.MaxNumSeqs, MaxNumBatchedTokens: r.MaxNumBatchedTokens,
		BlockSize: r.BlockSize, KVCacheDtype: r.KVCacheDtype, TensorParallelSize: r.TensorParallelSize,
		PipelineParallelSize: r.PipelineParallelSize, DataParallelSize: r.DataParallelSize, EnableExpertParallel: r.EnableExpertParallel,
		Dtype: r.Dtype, Quantization: r.Quant.Method, EnforceEager: r.EnforceEager, AsyncScheduling: r.Async,
		CPUOffloadGiB: r.CPUOffloadGiB, SwapSpaceGiB: r.SwapGiB, Defaults: r.Sources, Ignored: f.ignored,
		Command: vllm.Command(name, r),
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// writeWeights prints where the weights per GPU come from and, for a
// checkpoint, the figure derived from config.json beside it.
func writeWeights(w io.Writer, wj weightsJSON, staged bool) {
	if wj.CheckpointBytes == nil {
		fmt.Fprintf(w, "weights %s\n", wj.Description)
		return
	}
	on := ""
	if staged {
		on = fmt.Sprintf(" on pipeline stage %d", wj.PipelineStage+1)
	}
	fmt.Fprintf(w, "weights %s: %s per GPU%s; derived from config.json: %s (%+.2f %%)\n",
		wj.Description, bytesString(*wj.CheckpointBytes), on, bytesString(wj.DerivedBytes), wj.DifferencePercent)
	for _, s := range wj.Skipped {
		fmt.Fprintf(w, "        not loaded by vLLM: %d tensor(s), %s\n", s.Count, s.Reason)
	}
}

// bytesString renders bytes as GiB and exactly.
func bytesString(b uint64) string {
	return fmt.Sprintf("%s (%d B)", gibString(b), b)
}
