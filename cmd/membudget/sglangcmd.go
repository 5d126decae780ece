package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine/sglang"
	"membudget/model"
)

// sglangReportJSON is `membudget report --engine sglang --json`.
type sglangReportJSON struct {
	Model  modelJSON       `json:"model"`
	Engine string          `json:"engine"`
	Class  classJSON       `json:"class"`
	Serve  sglangServeJSON `json:"serve"`
	// Footprint is the footprint's terms; Items names what each holds.
	Footprint footprintJSON `json:"footprint"`
	Items     []itemJSON    `json:"items"`
	KVPool    poolJSON      `json:"kv_pool"`
	Fits      bool          `json:"fits"`
	Advice    *adviceJSON   `json:"advice,omitempty"`
}

// sglangServeJSON is the resolved SGLang server, under SGLang's names.
type sglangServeJSON struct {
	SGLangVersion string  `json:"sglang_version"`
	SGLang        string  `json:"sglang"`
	MemFraction   float64 `json:"mem_fraction_static"`
	ContextLength uint64  `json:"context_length"`
	// DerivedContextLength is the one SGLang derives from config.json.
	DerivedContextLength uint64 `json:"derived_context_length"`
	AllowLongContext     bool   `json:"allow_overwrite_longer_context_len"`
	// MaxRunningRequests and MaxTotalTokens are as given, 0 when not: the
	// pool decides them (kv_pool).
	MaxRunningRequests uint64            `json:"max_running_requests"`
	MaxTotalTokens     uint64            `json:"max_total_tokens"`
	ChunkedPrefillSize int64             `json:"chunked_prefill_size"`
	MaxPrefillTokens   uint64            `json:"max_prefill_tokens"`
	PageSize           uint64            `json:"page_size"`
	KVCacheDtype       string            `json:"kv_cache_dtype"`
	TPSize             uint64            `json:"tp_size"`
	PPSize             uint64            `json:"pp_size"`
	DPSize             uint64            `json:"dp_size"`
	Dtype              string            `json:"dtype"`
	Quantization       string            `json:"quantization"`
	AttentionBackend   string            `json:"attention_backend"`
	DisableCudaGraph   bool              `json:"disable_cuda_graph"`
	CudaGraphMaxBS     uint64            `json:"cuda_graph_max_bs"`
	DistInitBytes      uint64            `json:"dist_init_bytes"`
	Defaults           map[string]string `json:"defaults"`
	Ignored            []string          `json:"ignored,omitempty"`
	Command            string            `json:"command"`
}

// poolJSON is SGLang's KV pool as its startup sizes and logs it.
type poolJSON struct {
	GPUMemMiB         float64  `json:"gpu_mem_mib"`
	MemFraction       float64  `json:"mem_fraction_static"`
	F0Bytes           uint64   `json:"f0_bytes"`
	LoadedBytes       uint64   `json:"loaded_bytes"`
	StaticBudgetBytes uint64   `json:"static_budget_bytes"`
	RestBytes         int64    `json:"rest_bytes"`
	CellBytes         uint64   `json:"cell_bytes"`
	ProfiledTokens    int64    `json:"profiled_tokens"`
	MaxTotalNumTokens int64    `json:"max_total_num_tokens"`
	HybridSWA         bool     `json:"hybrid_swa"`
	SWATokens         int64    `json:"swa_tokens"`
	KBytes            uint64   `json:"k_bytes"`
	VBytes            uint64   `json:"v_bytes"`
	SWAKBytes         uint64   `json:"swa_k_bytes"`
	SWAVBytes         uint64   `json:"swa_v_bytes"`
	PageSize          uint64   `json:"page_size"`
	MaxNumReqs        uint64   `json:"max_num_reqs"`
	MaxRunning        uint64   `json:"max_running_requests"`
	MaxReqLen         int64    `json:"max_req_len"`
	MaxReqInputLen    int64    `json:"max_req_input_len"`
	ContextLen        uint64   `json:"context_len"`
	Starts            bool     `json:"starts"`
	Failure           string   `json:"failure,omitempty"`
	LogLines          []string `json:"log_lines"`
}

// itemJSON is one line of an SGLang footprint: the reference's allocations
// of one kind, summed (every layer's K and V, every weight tensor).
type itemJSON struct {
	Name   string `json:"name"`
	Term   string `json:"term"`
	Bytes  uint64 `json:"bytes"`
	Beside bool   `json:"beside"`
}

// sglangQueryJSON is `membudget max-seqs --engine sglang --json` and
// `membudget max-len --engine sglang --json`.
type sglangQueryJSON struct {
	Query       string          `json:"query"`
	Engine      string          `json:"engine"`
	Model       string          `json:"model"`
	Class       string          `json:"class"`
	Serve       sglangServeJSON `json:"serve"`
	Given       uint64          `json:"given"`
	Cap         uint64          `json:"cap"`
	Answer      uint64          `json:"answer"`
	Fits        bool            `json:"fits"`
	Capped      bool            `json:"capped"`
	Evals       int             `json:"evals"`
	Starts      bool            `json:"starts"`
	Failure     string          `json:"failure,omitempty"`
	At          footprintJSON   `json:"at"`
	Next        *footprintJSON  `json:"next,omitempty"`
	TippingTerm string          `json:"tipping_term,omitempty"`
}

func (f *serveFlags) sglangServeOf(name string, r sglang.Resolved) sglangServeJSON {
	return sglangServeJSON{
		SGLangVersion: r.Profile.Name, SGLang: r.Profile.Describes,
		MemFraction: r.MemFractionStatic, ContextLength: r.ContextLength, DerivedContextLength: r.DerivedContextLen,
		AllowLongContext:   r.ContextLength > r.DerivedContextLen,
		MaxRunningRequests: f.sg.s.MaxRunningRequests, MaxTotalTokens: f.sg.s.MaxTotalTokens,
		ChunkedPrefillSize: r.ChunkedPrefillSize, MaxPrefillTokens: r.MaxPrefillTokens, PageSize: r.PageSize,
		KVCacheDtype: r.KVCacheDtype, TPSize: r.TPSize, PPSize: r.PPSize, DPSize: r.DPSize,
		Dtype: r.Dtype, Quantization: r.Quant.Method, AttentionBackend: r.AttentionBackend,
		DisableCudaGraph: r.DisableCudaGraph, CudaGraphMaxBS: r.CudaGraphMaxBS, DistInitBytes: r.DistInitBytes,
		Defaults: r.Sources, Ignored: append(slices.Clone(f.sg.ignoredEnv), f.ignored...), Command: sglangCommand(name, f.sg.revision, r, f.sg.s),
	}
}

func poolOf(c sglang.Capacity, budgetBytes uint64) poolJSON {
	lines := c.LogLines()
	if lines == nil {
		lines = []string{}
	}
	return poolJSON{GPUMemMiB: c.GPUMemMiB, MemFraction: c.MemFractionStatic, F0Bytes: c.F0Bytes, LoadedBytes: c.LoadedBytes,
		StaticBudgetBytes: budgetBytes, RestBytes: c.RestBytes, CellBytes: c.CellBytes, ProfiledTokens: c.ProfiledTokens,
		MaxTotalNumTokens: c.MaxTotalNumTokens, HybridSWA: c.HybridSWA, SWATokens: c.SWATokens,
		KBytes: c.KBytes, VBytes: c.VBytes, SWAKBytes: c.SWAKBytes, SWAVBytes: c.SWAVBytes, PageSize: c.PageSize,
		MaxNumReqs: c.MaxNumReqs, MaxRunning: c.MaxRunningRequests, MaxReqLen: c.MaxReqLen, MaxReqInputLen: c.MaxReqInputLen,
		ContextLen: c.ContextLen, Starts: c.Starts, Failure: c.Failure, LogLines: lines}
}

// itemGroup names the line of the footprint a reference item is summed
// into.
func itemGroup(it budget.Item) string {
	switch {
	case strings.HasPrefix(it.Name, "rotary_emb."):
		return "weights.rotary_emb.cos_sin_cache"
	case strings.HasSuffix(it.Name, ".w_kc") || strings.HasSuffix(it.Name, ".w_vc"):
		return "weights.mla_w_kc_w_vc"
	case it.Name == "weights.allocator_slack":
		return it.Name
	case it.Term == budget.TermWeights:
		return "weights.tensors"
	case strings.HasPrefix(it.Name, "kv_cache.layers."):
		return "kv_cache.layers"
	}
	return it.Name
}

// sglangItems sums a ledger's items by line, in the ledger's order.
func sglangItems(l sglang.Ledger, beside budget.TermSet) []itemJSON {
	var out []itemJSON
	at := map[string]int{}
	for _, it := range l.Items {
		name := itemGroup(it)
		i, ok := at[name]
		if !ok {
			i = len(out)
			at[name] = i
			out = append(out, itemJSON{Name: name, Term: it.Term.String(), Beside: beside.Has(it.Term)})
		}
		out[i].Bytes = budget.SatAdd(out[i].Bytes, it.Bytes)
	}
	return out
}

// writeSGLangFootprint prints an SGLang footprint line by line, in GiB and
// bytes: what the static budget (msf x F0) holds and their sum, then what
// SGLang allocates after the pool, in what (1 - msf) x F0 leaves.
func writeSGLangFootprint(w io.Writer, l sglang.Ledger, beside budget.TermSet) {
	f := l.Footprint
	row := func(label string, v uint64) { fmt.Fprintf(w, "  %-36s %12s  %15d B\n", label, gibString(v), v) }
	items := sglangItems(l, beside)
	for _, it := range items {
		if !it.Beside {
			row(it.Name, it.Bytes)
		}
	}
	row("= ledger (the static pool)", f.Ledger)
	for _, it := range items {
		if it.Beside {
			row(it.Name+" (beside)", it.Bytes)
		}
	}
	writeOutside(w, row, f, sglangWords)
}

// sglangWords names SGLang's static budget and what it allocates after
// the pool.
var sglangWords = budgetWords{
	budgetRow:       "static budget (msf x F0)",
	budgetOver:      "  static pool: the ledger is %s over msf x F0\n",
	budgetHeadroom:  "  static pool: %s of headroom (msf x F0 - ledger)\n",
	outsideOver:     "  outside it: what SGLang allocates after the pool is %s over (1 - msf) x F0: out of memory at graph capture or at run time\n",
	outsideHeadroom: "  outside it: %s of headroom ((1 - msf) x F0 - what SGLang allocates after the pool)\n",
	ceilingAbove:    "  ceiling: msf x F0 is %s above the class's util_ceiling (%s of device memory)\n",
}

// sglangStage is stage i's sharding under r, as NewReference completes it.
func sglangStage(r sglang.Resolved, i int) model.Sharding {
	st := r.Stages[i]
	st.TP, st.DtypeBytes, st.Quant = r.TPSize, r.DtypeBytes, r.Quant
	return st
}

// sglangWeightsOf says where SGLang's weights per rank come from on the
// stage that binds: loaded is SGLang's load there (engine/sglang's, from
// config.json: the tensors, the rotary tables, the allocator's segments). A
// checkpoint's tensors are not charged; its figure is the same load with
// the checkpoint's tensors in place of config.json's.
func (rm *resolvedModel) sglangWeightsOf(ref *sglang.Reference, binding int, loaded uint64) weightsJSON {
	st := sglangStage(ref.Serve, binding)
	w := weightsJSON{From: "config", Description: "derived from config.json", PipelineStage: binding, DerivedBytes: loaded}
	if rm.checkpoint == nil {
		w.Description += " (" + rm.noCheckpoint + ")"
		return w
	}
	if used, why := model.UsesCheckpoint(rm.arch, st); !used {
		w.Description += " (checkpoint " + rm.checkpoint.String() + " not counted: " + why + ")"
		return w
	}
	w.Description += " (SGLang's load is sized from config.json; checkpoint " + rm.checkpoint.String() + " shown beside it)"
	ck := budget.SatAdd(budget.SatSub(loaded, itemBytes(model.Weights(rm.arch, st))), itemBytes(model.RankWeights(rm.arch, st)))
	w.CheckpointBytes = &ck
	w.DifferencePercent = percentOver(ck, w.DerivedBytes)
	for _, s := range rm.notes.Skipped {
		w.Skipped = append(w.Skipped, skippedJSON{Reason: s.Reason, Count: s.Count})
	}
	w.Unknown = rm.notes.Unknown
	if math.Abs(w.DifferencePercent) > differenceWarnPercent {
		w.Warnings = append(w.Warnings, fmt.Sprintf("the checkpoint's weights, %s per GPU, differ by %+.2f %% from those derived from config.json, %s, which size SGLang's load: model_type %s's rules miss something",
			bytesString(ck), w.DifferencePercent, bytesString(w.DerivedBytes), rm.arch.ModelType))
	}
	return w
}

func runSGLangReport(stdout, stderr io.Writer, f *serveFlags, seqs, length uint64) int {
	sz, err := f.loadSGLang(stderr, "report")
	if err != nil {
		return fail(stderr, "report", exitBadArgs, err)
	}
	r := sz.ref.Serve
	t := length
	if t == 0 {
		t = r.ContextLength
	}
	if seqs == 0 || seqs > sz.plan.MaxSeqs {
		return fail(stderr, "report", exitBadArgs, fmt.Errorf("--seqs %d: want 1 to max_running_requests %d", seqs, sz.plan.MaxSeqs))
	}
	if t > r.ContextLength {
		return fail(stderr, "report", exitBadArgs, fmt.Errorf("--length %d: above --context-length %d", t, r.ContextLength))
	}
	fp := sz.plan.Evaluate(seqs, t)
	ledger := sz.ref.EvaluateStage(fp.Stage, seqs, t)
	capacity := sz.ref.Capacity()
	weights := sz.model.sglangWeightsOf(sz.ref, fp.Stage, ledger.Footprint.Terms[budget.TermWeights])
	writeWarnings(stderr, "report", weights.Warnings)
	fits := fp.Fits() && capacity.Starts
	out := sglangReportJSON{
		Model: modelJSON{Name: sz.modelName, Source: sz.model.source(), ModelType: sz.arch.ModelType, Summary: sz.arch.String(),
			Weights: weights},
		Engine:    engineSGLang,
		Class:     classOf(sz.class),
		Serve:     f.sglangServeOf(sz.modelName, r),
		Footprint: toJSON(fp, sz.plan.Beside),
		Items:     sglangItems(ledger, sz.plan.Beside),
		KVPool:    poolOf(capacity, sz.ref.Budget()),
		Fits:      fits,
	}
	if !fits {
		adv := sglangAdvise(sz, f.sg.s, seqs, t, length == 0)
		out.Advice = &adv
	}
	status := exitOK
	if !fits {
		status = exitNoFit
	}
	if f.json {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, "report", exitBadArgs, err)
		}
		return status
	}
	fmt.Fprintf(stdout, "model   %s — %s\n        %s\n", sz.modelName, sz.arch, sz.model.hub.Source.Description)
	writeSGLangWeights(stdout, weights)
	fmt.Fprintf(stdout, "class   %s — %s (%s %s), %s, util ceiling %.2f", sz.class.Name, sz.class.Device.Name, sz.class.Device.Silicon.Vendor, sz.class.Device.Silicon, gibString(sz.class.Device.MemoryBytes), sz.class.Memory.UtilCeiling)
	if sz.class.Memory.Unified {
		fmt.Fprint(stdout, ", unified memory")
	}
	fmt.Fprintf(stdout, "\nsglang  %s\n", r.Profile.Describes)
	fmt.Fprintf(stdout, "serve   %s\n", out.Serve.Command)
	for _, k := range sortedKeys(r.Sources) {
		fmt.Fprintf(stdout, "        default --%s: %s\n", k, r.Sources[k])
	}
	if f.sg.allowLongFrom != "" {
		fmt.Fprintf(stdout, "        %s=%s, from %s\n", sglangAllowLongEnv, f.sg.allowLong, f.sg.allowLongFrom)
	}
	for _, ig := range f.sg.ignoredEnv {
		fmt.Fprintf(stdout, "        ignored %s: membudget does not read it\n", ig)
	}
	for _, ig := range f.ignored {
		fmt.Fprintf(stdout, "        ignored %s: it does not change memory\n", ig)
	}
	writeSGLangPool(stdout, capacity, sz)
	fmt.Fprintf(stdout, "\nfootprint of %d sequence(s) x %d tokens", seqs, t)
	if len(sz.plan.Stages) > 1 {
		fmt.Fprintf(stdout, " on pipeline stage %d of %d (the one that binds)", fp.Stage+1, len(sz.plan.Stages))
	}
	fmt.Fprintln(stdout)
	writeSGLangFootprint(stdout, ledger, sz.plan.Beside)
	if fits {
		fmt.Fprintf(stdout, "\nverdict: fits — %d sequence(s) of %d tokens at mem_fraction_static %v on %s\n", seqs, t, r.MemFractionStatic, sz.class.Name)
		return status
	}
	if !capacity.Starts {
		fmt.Fprintf(stdout, "\nverdict: SGLang does not start — %s\n", capacity.Failure)
		writeSGLangAdvice(stdout, out.Advice, r.TPSize*r.PPSize*r.DPSize, seqs, t)
		return status
	}
	why := ""
	switch {
	case fp.BudgetShortfall() > 0:
		held := capacity.MaxTotalNumTokens
		if capacity.HybridSWA {
			held = capacity.SWATokens
		}
		why = fmt.Sprintf("%s over msf x F0: the pool holds %d tokens of running sequences, %d sequence(s) of %d tokens need %d", gibString(fp.BudgetShortfall()),
			held, seqs, t, budget.SatMul(seqs, budget.RoundUp(t, capacity.PageSize)))
	case fp.Failed == budget.OverUtilCeiling:
		why = "msf x F0 is above the class's util_ceiling"
	default:
		why = gibString(fp.DriverShortfall()) + " over (1 - msf) x F0 beside the pool"
	}
	fmt.Fprintf(stdout, "\nverdict: does not fit — %s\n", why)
	writeSGLangAdvice(stdout, out.Advice, r.TPSize*r.PPSize*r.DPSize, seqs, t)
	return status
}

// writeSGLangWeights prints where the weights per GPU come from.
func writeSGLangWeights(w io.Writer, wj weightsJSON) {
	if wj.CheckpointBytes == nil {
		fmt.Fprintf(w, "weights %s: %s per GPU\n", wj.Description, bytesString(wj.DerivedBytes))
		return
	}
	fmt.Fprintf(w, "weights %s: %s per GPU; with the checkpoint's tensors: %s (%+.2f %%)\n",
		wj.Description, bytesString(wj.DerivedBytes), bytesString(*wj.CheckpointBytes), wj.DifferencePercent)
}

// writeSGLangPool prints how SGLang turns memory into its KV pool, what it
// logs of it, and whether it starts.
func writeSGLangPool(w io.Writer, c sglang.Capacity, sz *sglangSizing) {
	r, cl := sz.ref.Serve, sz.class
	fmt.Fprintf(w, "\nF0, free after distributed init: %s device - %s CUDA context (driver_fixed_bytes) - %s distributed init (estimate at %d rank(s)) = %s\n",
		gibString(cl.Device.MemoryBytes), gibString(cl.Memory.DriverFixedBytes), gibString(r.DistInitBytes), r.TPSize*r.PPSize, gibString(c.F0Bytes))
	if c.LoadedBytes > c.F0Bytes {
		fmt.Fprintf(w, "  loading takes %s (weights, rotary tables, allocator segments), more than F0: SGLang runs out of memory loading the model\n", gibString(c.LoadedBytes))
		fmt.Fprintf(w, "  SGLang does not start: %s\n", c.Failure)
		return
	}
	fmt.Fprintf(w, "static budget: mem_fraction_static %v x F0 = %s, for the weights and the KV pool\n", c.MemFractionStatic, gibString(sz.ref.Budget()))
	fmt.Fprintf(w, "  loading takes %s (F0 - F1: weights, rotary tables, allocator segments); the rest, %.2f GiB, holds %d tokens of %d B (the KV cell of %d layer(s))\n",
		gibString(c.LoadedBytes), c.Rest, max(c.ProfiledTokens, 0), c.CellBytes, r.Stages[0].EndLayer-r.Stages[0].FirstLayer)
	if c.MaxTotalNumTokens <= 0 {
		fmt.Fprintf(w, "  SGLang does not start: %s\n", c.Failure)
		return
	}
	fmt.Fprintf(w, "\nKV pool: max_total_num_tokens %d", c.MaxTotalNumTokens)
	if c.HybridSWA {
		fmt.Fprintf(w, " (full layers), %d (sliding layers)", c.SWATokens)
	}
	fmt.Fprintf(w, ", pages of %d token(s)\n", c.PageSize)
	fmt.Fprintf(w, "  max_num_reqs %d (req_to_token rows), max_running_requests %d, max_req_len %d, max_req_input_len %d\n",
		c.MaxNumReqs, c.MaxRunningRequests, c.MaxReqLen, c.MaxReqInputLen)
	if !c.Starts {
		fmt.Fprintf(w, "  SGLang does not start: %s\n", c.Failure)
		return
	}
	fmt.Fprintln(w, "  SGLang logs:")
	for _, l := range c.LogLines() {
		fmt.Fprintf(w, "    %s\n", l)
	}
	fmt.Fprintf(w, "  SGLang starts: (1 - msf) x F0 must hold what it allocates after the pool (activations, CUDA graphs, req_to_token), which nothing checks\n")
}

// writeSGLangAdvice prints the checked suggestions, or the space searched.
func writeSGLangAdvice(w io.Writer, adv *adviceJSON, current, seqs, t uint64) {
	for _, sg := range adv.Suggestions {
		gpus := ""
		if sg.GPUs != current {
			gpus = fmt.Sprintf(", %d GPUs", sg.GPUs)
		}
		fmt.Fprintf(w, "  to fit: %s (%s%s)\n", sg.Flags, sg.Why, gpus)
	}
	if len(adv.Suggestions) > 0 {
		fmt.Fprintf(w, "  each checked at %d sequence(s) of %d tokens by the same evaluator, SGLang starting\n", seqs, t)
		return
	}
	fmt.Fprintf(w, "  nothing fits in the space searched: %s\n", strings.Join(adv.Searched, "; "))
}

// sglangAdvise searches single changes of the server's flags that make
// seqs sequences of t tokens fit, each checked by a fresh reference of the
// changed server: the fraction (the nearest that fits), a shorter context
// (when t is the context length), an fp8 KV cache, more tensor ranks.
func sglangAdvise(sz *sglangSizing, given sglang.Serve, seqs, t uint64, atContext bool) adviceJSON {
	r := sz.ref.Serve
	adv := adviceJSON{Suggestions: []suggestionJSON{}}
	check := func(s sglang.Serve, tokens uint64) (budget.Footprint, uint64, bool) {
		ref, err := sglang.NewReference(sz.arch, s, sz.class, r.Profile)
		if err != nil || tokens > ref.Serve.ContextLength {
			return budget.Footprint{}, 0, false
		}
		fp := ref.Plan().Evaluate(seqs, tokens)
		rr := ref.Serve
		return fp, rr.TPSize * rr.PPSize * rr.DPSize, fp.Fits() && ref.Capacity().Starts && seqs <= max(ref.MaxRunningRequests(), 1)
	}
	add := func(flags, why string, fp budget.Footprint, gpus uint64) {
		adv.Suggestions = append(adv.Suggestions, suggestionJSON{Flags: flags, Why: why, GPUs: gpus, LedgerBytes: fp.Ledger, BudgetBytes: fp.Budget})
	}
	base := given
	base.AllowLongContext = r.AllowLongContext

	// The fraction, in SGLang's steps of 0.01: the nearest that fits.
	adv.Searched = append(adv.Searched, "--mem-fraction-static 0.01 to 0.99 by 0.01")
	best, bestFP, bestGPUs := 0.0, budget.Footprint{}, uint64(0)
	for i := 1; i <= 99; i++ {
		m := float64(i) / 100
		s := base
		s.MemFractionStatic = m
		if fp, gpus, ok := check(s, t); ok && (best == 0 || math.Abs(m-r.MemFractionStatic) < math.Abs(best-r.MemFractionStatic)) {
			best, bestFP, bestGPUs = m, fp, gpus
		}
	}
	if best > 0 {
		add("--mem-fraction-static "+strconv.FormatFloat(best, 'f', -1, 64), "the nearest fraction that fits", bestFP, bestGPUs)
	}

	// A shorter context, at this fraction.
	if atContext {
		adv.Searched = append(adv.Searched, fmt.Sprintf("--context-length below %d at this fraction", r.ContextLength))
		if ans, err := budget.MaxLength(sz.plan, seqs, r.ContextLength); err == nil && ans.Fits {
			s := base
			s.MemFractionStatic = r.MemFractionStatic
			s.ContextLength = ans.Value
			if fp, gpus, ok := check(s, ans.Value); ok {
				add(fmt.Sprintf("--context-length %d", ans.Value), fmt.Sprintf("%d sequence(s) of %d tokens fit the pool", seqs, ans.Value), fp, gpus)
			}
		}
	}

	// An fp8 KV cache halves a 16-bit cell.
	if r.KVDtypeBytes > 1 {
		adv.Searched = append(adv.Searched, "--kv-cache-dtype fp8_e4m3")
		s := base
		s.KVCacheDtype = "fp8_e4m3"
		if fp, gpus, ok := check(s, t); ok {
			add("--kv-cache-dtype fp8_e4m3", "half the KV cell", fp, gpus)
		}
	}

	// More tensor ranks divide the weights and the KV heads.
	var tps []string
	for tp := r.TPSize * 2; tp <= 8; tp *= 2 {
		tps = append(tps, strconv.FormatUint(tp, 10))
		s := base
		s.TPSize = tp
		if fp, gpus, ok := check(s, t); ok {
			add(fmt.Sprintf("--tp-size %d", tp), fmt.Sprintf("the weights over %d ranks", tp), fp, gpus)
			break
		}
	}
	if len(tps) > 0 {
		adv.Searched = append(adv.Searched, "--tp-size "+strings.Join(tps, ", "))
	}
	return adv
}

func runSGLangQuery(stdout, stderr io.Writer, f *serveFlags, name string, given uint64) int {
	sz, err := f.loadSGLang(stderr, name)
	if err != nil {
		return fail(stderr, name, exitBadArgs, err)
	}
	r := sz.ref.Serve
	capacity := sz.ref.Capacity()
	if name == "max-seqs" && given > r.ContextLength {
		return fail(stderr, name, exitBadArgs, fmt.Errorf("--length %d: above --context-length %d", given, r.ContextLength))
	}
	if !capacity.Starts {
		return sglangNoStart(stdout, stderr, f, sz, name, given)
	}
	var ans budget.Answer
	var capv uint64
	if name == "max-seqs" {
		if given == 0 {
			given = r.ContextLength
		}
		capv = sz.plan.MaxSeqs
		ans, err = budget.MaxSequences(sz.plan, given, capv)
	} else {
		if given == 0 || given > sz.plan.MaxSeqs {
			return fail(stderr, name, exitBadArgs, fmt.Errorf("--seqs %d: want 1 to max_running_requests %d", given, sz.plan.MaxSeqs))
		}
		capv = r.ContextLength
		ans, err = budget.MaxLength(sz.plan, given, capv)
	}
	if err != nil {
		flagName := "--length"
		if name == "max-len" {
			flagName = "--seqs"
		}
		return fail(stderr, name, exitBadArgs, fmt.Errorf("%s: %w", flagName, err))
	}
	// SGLang that does not start serves nothing, whatever the ledger says.
	fits := ans.Fits && capacity.Starts
	out := sglangQueryJSON{Query: name, Engine: engineSGLang, Model: sz.modelName, Class: sz.class.Name, Serve: f.sglangServeOf(sz.modelName, r),
		Given: given, Cap: capv, Answer: ans.Value, Fits: fits, Capped: ans.Capped && fits, Evals: ans.Evals,
		Starts: capacity.Starts, Failure: capacity.Failure, At: toJSON(ans.At, sz.plan.Beside)}
	if !fits {
		out.Answer = 0
	}
	if fits && !ans.Capped {
		next := toJSON(ans.Next, sz.plan.Beside)
		out.Next = &next
		out.TippingTerm = tippingTerm(ans.At, ans.Next)
	}
	status := exitOK
	if !fits {
		status = exitNoFit
	}
	if f.json {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, name, exitBadArgs, err)
		}
		return status
	}
	unit, what := "sequences", fmt.Sprintf("at %d tokens each", given)
	if name == "max-len" {
		unit, what = "tokens", fmt.Sprintf("at %d sequence(s)", given)
	}
	fmt.Fprintf(stdout, "%s on %s, sized as %s\n%s\n", sz.modelName, sz.class.Name, r.Profile.Describes, out.Serve.Command)
	fmt.Fprintf(stdout, "KV pool: max_total_num_tokens %d, max_running_requests %d, context length %d\n", capacity.MaxTotalNumTokens, capacity.MaxRunningRequests, r.ContextLength)
	at := func(s, t uint64) sglang.Ledger { return sz.ref.EvaluateStage(ans.At.Stage, s, t) }
	witness := func(x uint64) (uint64, uint64) {
		if name == "max-seqs" {
			return x, given
		}
		return given, x
	}
	switch {
	case !ans.Fits:
		fmt.Fprintf(stdout, "nothing fits %s: even 1 %s leaves %s\n", what, unit[:len(unit)-1], sglangShortfall(ans.At))
		writeSGLangFootprint(stdout, at(witness(1)), sz.plan.Beside)
		return status
	case ans.Capped:
		capName := "max_running_requests"
		if name == "max-len" {
			capName = "--context-length"
		}
		fmt.Fprintf(stdout, "%s: %d %s — capped: the cap (%s %d) itself fits\n", name, ans.Value, unit, capName, capv)
	default:
		fmt.Fprintf(stdout, "%s: %d %s %s (checked: %d fits, %d does not; %d evaluations)\n", name, ans.Value, unit, what, ans.Value, ans.Value+1, ans.Evals)
	}
	fmt.Fprintf(stdout, "\nat %d (fits):\n", ans.Value)
	writeSGLangFootprint(stdout, at(witness(ans.Value)), sz.plan.Beside)
	if out.Next != nil {
		fmt.Fprintf(stdout, "\nat %d (does not fit: %s; the term that tips it over: %s):\n", ans.Value+1, ans.Next.Failed, out.TippingTerm)
		s, t := witness(ans.Value + 1)
		writeSGLangFootprint(stdout, sz.ref.EvaluateStage(ans.Next.Stage, s, t), sz.plan.Beside)
	}
	return status
}

// sglangShortfall says by how much an SGLang footprint misses, on the
// condition that failed.
func sglangShortfall(f budget.Footprint) string {
	if sh := f.BudgetShortfall(); sh > 0 {
		return gibString(sh) + " over msf x F0"
	}
	return gibString(f.DriverShortfall()) + " over (1 - msf) x F0 beside the pool"
}

// sglangNoStart answers a query on a server SGLang does not start: nothing
// fits, whatever the ledger says (exit 1).
func sglangNoStart(stdout, stderr io.Writer, f *serveFlags, sz *sglangSizing, name string, given uint64) int {
	r, c := sz.ref.Serve, sz.ref.Capacity()
	if name == "max-seqs" && given == 0 {
		given = r.ContextLength
	}
	capv, s, t := sz.plan.MaxSeqs, uint64(1), given
	if name == "max-len" {
		capv, s, t = r.ContextLength, given, 1
	}
	at := sz.plan.Evaluate(s, t)
	out := sglangQueryJSON{Query: name, Engine: engineSGLang, Model: sz.modelName, Class: sz.class.Name, Serve: f.sglangServeOf(sz.modelName, r),
		Given: given, Cap: capv, Failure: c.Failure, At: toJSON(at, sz.plan.Beside)}
	if f.json {
		if err := writeJSON(stdout, out); err != nil {
			return fail(stderr, name, exitBadArgs, err)
		}
		return exitNoFit
	}
	fmt.Fprintf(stdout, "%s on %s, sized as %s\n%s\n", sz.modelName, sz.class.Name, r.Profile.Describes, out.Serve.Command)
	fmt.Fprintf(stdout, "nothing fits: SGLang does not start: %s\n", c.Failure)
	writeSGLangFootprint(stdout, sz.ref.EvaluateStage(at.Stage, s, t), sz.plan.Beside)
	return exitNoFit
}
