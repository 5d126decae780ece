package sglang

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
)

// section is a report's SGLang section of a sizing.
type section struct{ sz *Sizing }

// serveJSON is the resolved server under SGLang's names: the report's
// "serve".
type serveJSON struct {
	SGLangVersion string  `json:"sglang_version"`
	SGLang        string  `json:"sglang"`
	MemFraction   float64 `json:"mem_fraction_static"`
	ContextLength uint64  `json:"context_length"`
	// DerivedContextLength is the one SGLang derives from config.json.
	DerivedContextLength uint64 `json:"derived_context_length"`
	AllowLongContext     bool   `json:"allow_overwrite_longer_context_len"`
	// MaxRunningRequests and MaxTotalTokens are as given, 0 when not: the
	// pool decides them (kv_pool).
	MaxRunningRequests uint64 `json:"max_running_requests"`
	MaxTotalTokens     uint64 `json:"max_total_tokens"`
	ChunkedPrefillSize int64  `json:"chunked_prefill_size"`
	MaxPrefillTokens   uint64 `json:"max_prefill_tokens"`
	PageSize           uint64 `json:"page_size"`
	KVCacheDtype       string `json:"kv_cache_dtype"`
	TPSize             uint64 `json:"tp_size"`
	PPSize             uint64 `json:"pp_size"`
	DPSize             uint64 `json:"dp_size"`
	Dtype              string `json:"dtype"`
	Quantization       string `json:"quantization"`
	AttentionBackend   string `json:"attention_backend"`
	DisableCudaGraph   bool   `json:"disable_cuda_graph"`
	CudaGraphMaxBS     uint64 `json:"cuda_graph_max_bs"`
	// PiecewiseTokens are the token counts of the piecewise CUDA graphs
	// the release captures (v0.5.10 on; none before, or when off).
	PiecewiseTokens []uint64          `json:"piecewise_cuda_graph_tokens,omitempty"`
	DistInitBytes   uint64            `json:"dist_init_bytes"`
	Defaults        map[string]string `json:"defaults"`
	Ignored         []string          `json:"ignored,omitempty"`
	Command         string            `json:"command"`
}

// poolJSON is SGLang's KV pool as its startup sizes and logs it: the
// report's "kv_pool".
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
	// Caveat is what may still stop a serve that starts (see
	// [Capacity.Caveat]), absent for none.
	Caveat string `json:"caveat,omitempty"`
	// A Mamba hybrid's pool (absent for any other model): its slots
	// (max_mamba_cache_size), a slot's bytes, and the rest left for the
	// KV pool after it.
	MambaSlots     int64  `json:"mamba_slots,omitempty"`
	MambaSlotBytes uint64 `json:"mamba_slot_bytes,omitempty"`
	KVRestBytes    int64  `json:"kv_rest_bytes,omitempty"`
}

// itemJSON is one line of an SGLang footprint: the reference's allocations
// of one kind, summed (every layer's K and V, every weight tensor).
type itemJSON struct {
	Name   string `json:"name"`
	Term   string `json:"term"`
	Bytes  uint64 `json:"bytes"`
	Beside bool   `json:"beside"`
}

func (s section) Rules() (string, string) { return s.sz.Ref.Serve.Profile.Describes, "" }

func (s section) Serve() any {
	r := s.sz.Ref.Serve
	return serveJSON{
		SGLangVersion: r.Profile.Name, SGLang: r.Profile.Describes,
		MemFraction: r.MemFractionStatic, ContextLength: r.ContextLength, DerivedContextLength: r.DerivedContextLen,
		AllowLongContext:   r.ContextLength > r.DerivedContextLen,
		MaxRunningRequests: r.MaxRunningRequests, MaxTotalTokens: r.MaxTotalTokens,
		ChunkedPrefillSize: r.ChunkedPrefillSize, MaxPrefillTokens: r.MaxPrefillTokens, PageSize: r.PageSize,
		KVCacheDtype: r.KVCacheDtype, TPSize: r.TPSize, PPSize: r.PPSize, DPSize: r.DPSize,
		Dtype: r.Dtype, Quantization: r.Quant.Method, AttentionBackend: r.AttentionBackend,
		DisableCudaGraph: r.DisableCudaGraph, CudaGraphMaxBS: r.CudaGraphMaxBS, DistInitBytes: r.DistInitBytes,
		PiecewiseTokens: piecewiseCaptured(r),
		Defaults:        r.Sources, Ignored: s.sz.pasted.AllIgnored(), Command: s.sz.Command(),
	}
}

func (s section) Settings() []string { return s.sz.pasted.Settings(s.sz.Ref.Serve.Sources) }

func (s section) GPUs() uint64 { return s.sz.gpus() }

// loadedOn is SGLang's load on stage i: the ledger's weights there.
func (s section) loadedOn(i int) uint64 {
	return s.sz.Ref.EvaluateStage(i, 0, 0).Footprint.Terms[budget.TermWeights]
}

func (s section) Weights(i int) engine.Weights { return s.sz.weightsOf(i, s.loadedOn(i)) }

// Warnings are the checkpoint's differences from config.json's weights
// (without a checkpoint there is nothing to compare), and what may stop
// a serve that starts (see [Capacity.Caveat]), which the commands that
// print no report (query, frontier) would otherwise not say.
func (s section) Warnings(i int) []string {
	var w []string
	if s.sz.Model.Checkpoint != nil {
		w = s.Weights(i).Warnings
	}
	if c := s.sz.capacity.Caveat; c != "" {
		w = append(slices.Clip(w), "SGLang starts, "+c)
	}
	return w
}

func (s section) Fields(fp budget.Footprint) []engine.Field {
	c := s.sz.capacity
	lines := c.LogLines()
	if lines == nil {
		lines = []string{}
	}
	pool := poolJSON{GPUMemMiB: c.GPUMemMiB, MemFraction: c.MemFractionStatic, F0Bytes: c.F0Bytes, LoadedBytes: c.LoadedBytes,
		StaticBudgetBytes: s.sz.Ref.Budget(), RestBytes: c.RestBytes, CellBytes: c.CellBytes, ProfiledTokens: c.ProfiledTokens,
		MaxTotalNumTokens: c.MaxTotalNumTokens, HybridSWA: c.HybridSWA, SWATokens: c.SWATokens,
		KBytes: c.KBytes, VBytes: c.VBytes, SWAKBytes: c.SWAKBytes, SWAVBytes: c.SWAVBytes, PageSize: c.PageSize,
		MaxNumReqs: c.MaxNumReqs, MaxRunning: c.MaxRunningRequests, MaxReqLen: c.MaxReqLen, MaxReqInputLen: c.MaxReqInputLen,
		ContextLen: c.ContextLen, Starts: c.Starts, Failure: c.Failure, Caveat: c.Caveat, LogLines: lines}
	if c.MambaPerReq > 0 {
		pool.MambaSlots, pool.MambaSlotBytes, pool.KVRestBytes = c.MambaSize, c.MambaPerReq, c.KVRestBytes
	}
	return []engine.Field{{Key: "items", Value: s.items(fp)}, {Key: "kv_pool", Value: pool}}
}

// itemGroup names the line of the footprint a reference item is summed
// into.
func itemGroup(it budget.Item) string {
	switch {
	case strings.HasPrefix(it.Name, "spec_draft.decoder."):
		// The MTP draft's decoder layer, beside the budget: one line,
		// apart from the target's weights (its w_kc and w_vc too).
		return "spec_draft.decoder"
	case strings.HasPrefix(it.Name, "rotary_emb."):
		return "weights.rotary_emb.cos_sin_cache"
	case strings.HasSuffix(it.Name, ".w_kc") || strings.HasSuffix(it.Name, ".w_vc"):
		return "weights.mla_w_kc_w_vc"
	case it.Name == "weights.allocator_slack":
		return it.Name
	case it.Term == budget.TermWeights && strings.HasPrefix(it.Name, "spec_draft."):
		// From v0.5.14 the draft's tensors are in the load (see
		// [specDraft.InFraction]): one line, apart from the target's.
		return "spec_draft.weights"
	case it.Term == budget.TermWeights:
		return "weights.tensors"
	case strings.HasPrefix(it.Name, "kv_cache.layers."):
		return "kv_cache.layers"
	}
	return it.Name
}

// items sums the reference's ledger at fp by line, in the ledger's order.
func (s section) items(fp budget.Footprint) []itemJSON {
	beside := s.sz.plan.Beside
	var out []itemJSON
	at := map[string]int{}
	for _, it := range s.sz.Ref.EvaluateStage(fp.Stage, fp.Seqs, fp.Tokens).Items {
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

// WriteBefore writes how SGLang turns memory into its KV pool, what it
// logs of it, and whether it starts.
func (s section) WriteBefore(w io.Writer, _ budget.Footprint) {
	c, r, cl := s.sz.capacity, s.sz.Ref.Serve, s.sz.Class
	fmt.Fprintf(w, "\nF0, free after distributed init: %s device - %s CUDA context (driver_fixed_bytes) - %s distributed init (estimate at %d rank(s)) = %s\n",
		engine.GiB(cl.Device.MemoryBytes), engine.GiB(cl.Memory.DriverFixedBytes), engine.GiB(r.DistInitBytes), r.TPSize*r.PPSize, engine.GiB(c.F0Bytes))
	if c.LoadedBytes > c.F0Bytes {
		fmt.Fprintf(w, "  loading takes %s (weights, rotary tables, allocator segments), more than F0: SGLang runs out of memory loading the model\n", engine.GiB(c.LoadedBytes))
		fmt.Fprintf(w, "  SGLang does not start: %s\n", c.Failure)
		return
	}
	fmt.Fprintf(w, "static budget: mem_fraction_static %v x F0 = %s, for the weights and the KV pool\n", c.MemFractionStatic, engine.GiB(s.sz.Ref.Budget()))
	cell := fmt.Sprintf("the KV cell of %d layer(s)", r.Stages[0].EndLayer-r.Stages[0].FirstLayer)
	if r.Mamba != nil {
		cell = fmt.Sprintf("the KV cell of %d full-attention layer(s)", fullAttentionLayers(s.sz.Ref.Arch, r.Stages[0].FirstLayer, r.Stages[0].EndLayer))
	}
	if d := r.Draft; d != nil && d.InFraction {
		// From v0.5.14 (see [specDraft.InFraction]).
		cell = fmt.Sprintf("%s, with the draft's weights loaded; x (1 + %d / %d) for the draft's pool", cell, d.Layers, r.Stages[0].EndLayer-r.Stages[0].FirstLayer)
	}
	rest := fmt.Sprintf("the rest, %.2f GiB,", c.Rest)
	if c.MMReserveBytes > 0 {
		// From v0.5.18, taken before a hybrid's Mamba pool (see
		// [Profile.MMRuntimeReserve]).
		rest = fmt.Sprintf("the rest, %.2f GiB, less %d MiB for the multimodal embedding cache (SGLANG_VLM_CACHE_SIZE_MB),", c.Rest, c.MMReserveBytes/mib)
	}
	if c.MambaPerReq > 0 {
		// handle_max_mamba_cache (mamba.go).
		// From v0.5.17 the padding slot is charged with them
		// ([gdnPaddingCharged]); the charge is the ledger's (mambaBytes).
		slots := fmt.Sprintf("%d slots", c.MambaSize)
		if r.Mamba.PaddingCharged && c.MambaSize > 0 {
			slots += " and the padding slot"
		}
		rest = fmt.Sprintf("%s gives the Mamba pool %s of %d B (%s, %s); what is left, %s,",
			rest, slots, c.MambaPerReq, engine.GiB(s.sz.Ref.mambaBytes()), r.Mamba.source(), engine.GiB(uint64(max(c.KVRestBytes, 0))))
	}
	fmt.Fprintf(w, "  loading takes %s (F0 - F1: weights, rotary tables, allocator segments); %s holds %d tokens of %d B (%s)\n",
		engine.GiB(c.LoadedBytes), rest, max(c.ProfiledTokens, 0), c.CellBytes, cell)
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
	if c.Caveat != "" {
		fmt.Fprintf(w, "  %s\n", c.Caveat)
	}
}

func (s section) WriteAfter(io.Writer, budget.Footprint) {}

func (s section) QueryLines() []string {
	c := s.sz.capacity
	return []string{fmt.Sprintf("KV pool: max_total_num_tokens %d, max_running_requests %d, context length %d", c.MaxTotalNumTokens, c.MaxRunningRequests, s.sz.Ref.Serve.ContextLength)}
}

// Lines returns the footprint item by item: what the static budget (msf x
// F0) holds, then what SGLang allocates after the pool, in what
// (1 - msf) x F0 leaves.
func (s section) Lines(fp budget.Footprint) []engine.FootprintLine {
	items := s.items(fp)
	out := make([]engine.FootprintLine, 0, len(items))
	for _, beside := range []bool{false, true} {
		for _, it := range items {
			if it.Beside == beside {
				out = append(out, engine.FootprintLine{Label: it.Name, Bytes: it.Bytes, Beside: beside})
			}
		}
	}
	return out
}

// words name SGLang's static budget and what it allocates after the pool.
var words = engine.Words{
	Width:           36,
	Ledger:          "= ledger (the static pool)",
	Budget:          "static budget (msf x F0)",
	BudgetOver:      "  static pool: the ledger is %s over msf x F0\n",
	BudgetHeadroom:  "  static pool: %s of headroom (msf x F0 - ledger)\n",
	OutsideOver:     "  outside it: what SGLang allocates after the pool is %s over (1 - msf) x F0: out of memory at graph capture or at run time\n",
	OutsideHeadroom: "  outside it: %s of headroom ((1 - msf) x F0 - what SGLang allocates after the pool)\n",
	CeilingAbove:    "  ceiling: msf x F0 is %s above the class's util_ceiling (%s of device memory): above the evidence, within the arithmetic (the driver line above)\n",
}

func (s section) Words() engine.Words { return words }

// Shortfall says which condition fp fails: the static pool (with what it
// holds), the class's ceiling, or what stands beside the pool.
func (s section) Shortfall(fp budget.Footprint) string {
	c := s.sz.capacity
	switch {
	case fp.BudgetShortfall() > 0:
		held := c.MaxTotalNumTokens
		if c.HybridSWA {
			held = c.SWATokens
		}
		return fmt.Sprintf("%s over msf x F0: the pool holds %d tokens of running sequences, %d sequence(s) of %d tokens need %d", engine.GiB(fp.BudgetShortfall()),
			held, fp.Seqs, fp.Tokens, budget.SatMul(fp.Seqs, budget.RoundUp(fp.Tokens, c.PageSize)))
	case fp.Failed == budget.OverUtilCeiling:
		return fmt.Sprintf("msf x F0, %s, is %s above the class's util_ceiling %.2f (%s of device memory %s, the largest budget %s is known to run at); "+
			"it is above the evidence, not the arithmetic: what stands beside the pool still leaves %s of the device, so SGLang may start it, but no public log shows %s running there",
			engine.GiB(fp.Budget), engine.GiB(budget.SatSub(fp.Budget, fp.Ceiling)), s.sz.Class.Memory.UtilCeiling, engine.GiB(fp.Ceiling), engine.GiB(fp.Device), s.sz.Class.Name,
			engine.GiB(fp.DriverHeadroom()), s.sz.Class.Name)
	}
	return engine.GiB(fp.DriverShortfall()) + " over (1 - msf) x F0 beside the pool"
}

func (s section) Setting() string {
	return fmt.Sprintf("mem_fraction_static %v", s.sz.Ref.Serve.MemFractionStatic)
}
