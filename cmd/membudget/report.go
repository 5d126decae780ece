package main

import (
	"fmt"
	"io"
	"math"
	"sort"

	"membudget/budget"
	"membudget/model/vllm"
)

// reportJSON is `membudget report --json`.
type reportJSON struct {
	Model       modelJSON        `json:"model"`
	Class       classJSON        `json:"class"`
	Serve       serveJSON        `json:"serve"`
	Footprint   footprintJSON    `json:"footprint"`
	KVCapacity  capacityJSON     `json:"kv_capacity"`
	Fits        bool             `json:"fits"`
	Suggestions *suggestionsJSON `json:"suggestions,omitempty"`
}

type modelJSON struct {
	Name      string `json:"name"`
	Source    string `json:"source"`
	ModelType string `json:"model_type"`
	Summary   string `json:"summary"`
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
}

func capacityOf(c vllm.Capacity) capacityJSON {
	return capacityJSON{AvailableBytes: c.AvailableBytes, BlockBytes: c.BlockBytes, Blocks: c.Blocks, Tokens: c.Tokens,
		LoggedTokens: c.LoggedTokens, PagesPerSeq: c.PagesPerSeq, MaxConcurrency: c.Concurrency, NeededBytes: c.NeededBytes,
		Starts: c.Starts, EstimatedMaxModelLen: c.EstimatedMaxModelLen}
}

// suggestionsJSON says what would make a serve that does not fit fit; a
// zero field has no suggestion.
type suggestionsJSON struct {
	MaxModelLen          uint64  `json:"max_model_len,omitempty"`
	MaxNumSeqs           uint64  `json:"max_num_seqs,omitempty"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization,omitempty"`
}

func runReport(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("report", stderr)
	var f serveFlags
	f.register(fs)
	seqs := fs.Uint64("seqs", 1, "sequences to size for (vLLM's startup check: 1)")
	length := fs.Uint64("length", 0, "tokens per sequence (default: max_model_len, vLLM's startup check)")
	if status, ok := f.parseServe(fs, args); !ok {
		return status
	}
	sz, err := f.load()
	if err != nil {
		return fail(stderr, "report", exitBadArgs, err)
	}
	r := sz.ref.Serve
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
	capacity := sz.ref.Capacity()
	out := reportJSON{
		Model:      modelJSON{Name: sz.modelName, Source: sz.arch.Source, ModelType: sz.arch.ModelType, Summary: sz.arch.String()},
		Class:      classOf(sz.class),
		Serve:      f.serveOf(sz.modelName, r),
		Footprint:  toJSON(fp, sz.plan.Beside),
		KVCapacity: capacityOf(capacity),
		Fits:       fp.Fits(),
	}
	if !fp.Fits() {
		sug, err := suggest(sz, *seqs, t)
		if err != nil {
			return fail(stderr, "report", exitBadArgs, err)
		}
		out.Suggestions = &sug
	}
	status := exitOK
	if !fp.Fits() {
		status = exitNoFit
	}
	if f.json {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "report", exitBadArgs, err)
		}
		return status
	}
	fmt.Fprintf(stdout, "model   %s — %s\n        %s\n", sz.modelName, sz.arch, sz.arch.Source)
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
	writeCapacity(stdout, capacity, r)
	if fp.Fits() {
		fmt.Fprintf(stdout, "\nverdict: fits — %d sequence(s) of %d tokens at --gpu-memory-utilization %v on %s\n", *seqs, t, r.GPUMemoryUtilization, sz.class.Name)
		return status
	}
	fmt.Fprintf(stdout, "\nverdict: does not fit — %s\n", shortfallString(fp))
	s := out.Suggestions
	if s.MaxModelLen > 0 {
		fmt.Fprintf(stdout, "  to fit: --max-model-len %d (the longest that fits at %d sequence(s))\n", s.MaxModelLen, *seqs)
	}
	if s.MaxNumSeqs > 0 && s.MaxModelLen == 0 || s.MaxNumSeqs > 1 {
		fmt.Fprintf(stdout, "  to fit: at most %d sequences of %d tokens\n", s.MaxNumSeqs, t)
	}
	if s.GPUMemoryUtilization > 0 {
		fmt.Fprintf(stdout, "  to fit: --gpu-memory-utilization %.2f (class ceiling %.2f)\n", s.GPUMemoryUtilization, sz.class.Memory.UtilCeiling)
	}
	if *s == (suggestionsJSON{}) {
		one := sz.plan.Evaluate(1, 1)
		fmt.Fprintf(stdout, "  nothing fits on %s at any util up to its ceiling %.2f, even one sequence of one token: the fixed part (weights %s, activation and sampler %s) leaves %s\n",
			sz.class.Name, sz.class.Memory.UtilCeiling, gibString(one.Terms[budget.TermWeights]), gibString(one.Terms[budget.TermActivation]+one.Terms[budget.TermSampler]), shortfallString(one))
	}
	return status
}

// writeCapacity prints the KV cache as vLLM's startup logs report it, and
// whether vLLM starts.
func writeCapacity(w io.Writer, c vllm.Capacity, r vllm.Resolved) {
	fmt.Fprintf(w, "\nKV cache: %s available: %d blocks of %d B, %d tokens (blocks / groups x block size)\n",
		gibString(c.AvailableBytes), c.Blocks, c.BlockBytes, c.Tokens)
	fmt.Fprintf(w, "  vLLM logs: GPU KV cache size: %d tokens; maximum concurrency for %d tokens per request: %.2fx\n",
		c.LoggedTokens, r.MaxModelLen, c.Concurrency)
	if c.Starts {
		fmt.Fprintf(w, "  vLLM starts: one request of %d tokens needs %s of KV cache\n", r.MaxModelLen, gibString(c.NeededBytes))
		return
	}
	fmt.Fprintf(w, "  vLLM refuses to start: one request of %d tokens needs %s of KV cache, more than the %s available; its estimated maximum model length is %d\n",
		r.MaxModelLen, gibString(c.NeededBytes), gibString(c.AvailableBytes), c.EstimatedMaxModelLen)
}

// suggest finds what would make (seqs, t) fit: a shorter max_model_len at
// these sequences, fewer sequences at this length, or a higher util within
// the class's ceiling.
func suggest(sz *sizing, seqs, t uint64) (suggestionsJSON, error) {
	var s suggestionsJSON
	if ans, err := budget.MaxLength(sz.plan, seqs, t); err != nil {
		return s, err
	} else if ans.Fits {
		s.MaxModelLen = ans.Value
	}
	if ans, err := budget.MaxSequences(sz.plan, t, seqs); err != nil {
		return s, err
	} else if ans.Fits {
		s.MaxNumSeqs = ans.Value
	}
	if s.MaxModelLen == 0 && s.MaxNumSeqs == 0 && seqs > 1 {
		// Neither alone is enough: how long one sequence may be.
		if ans, err := budget.MaxLength(sz.plan, 1, t); err != nil {
			return s, err
		} else if ans.Fits {
			s.MaxModelLen, s.MaxNumSeqs = ans.Value, 1
		}
	}
	// The ledger does not depend on the util; the budget does. No util
	// whose budget is below the ledger can fit, so the search starts at the
	// first hundredth that covers it (and above the current util), then
	// steps up to the ceiling while the driver's side refuses.
	r := sz.ref.Serve
	ledger := sz.plan.Evaluate(seqs, t).Ledger
	start := max(math.Ceil(r.GPUMemoryUtilization*100)/100+0.01, math.Ceil(float64(ledger)/float64(sz.class.Device.MemoryBytes)*100)/100)
	for u := start; u <= sz.class.Memory.UtilCeiling+1e-9; u += 0.01 {
		serve := r.Serve
		serve.GPUMemoryUtilization = math.Round(u*100) / 100
		ref, err := vllm.NewReference(sz.arch, serve, sz.class, r.Profile)
		if err != nil {
			break
		}
		if ref.Plan().Evaluate(seqs, t).Fits() {
			s.GPUMemoryUtilization = serve.GPUMemoryUtilization
			break
		}
	}
	return s, nil
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
