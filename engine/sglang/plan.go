package sglang

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

var (
	_ engine.Planner  = Engine{}
	_ engine.Budgeter = Engine{}
)

// planSearch is `membudget plan --engine sglang`'s flags.
type planSearch struct {
	version   string
	allowLong bool
	noJIT     bool
}

// NewPlan registers --sglang-version, --allow-long-context and
// --disable-jit-deepgemm.
func (Engine) NewPlan(fs *flag.FlagSet) engine.PlanSearch {
	p := &planSearch{}
	fs.StringVar(&p.version, "sglang-version", DefaultName, "the SGLang whose rules size each server: "+VersionHelp)
	fs.BoolVar(&p.allowLong, "allow-long-context", false, "accept a --length above the model's derived context length, as SGLang's "+AllowLongEnv+"=1 does (the launch lines then set it)")
	fs.BoolVar(&p.noJIT, "disable-jit-deepgemm", false, "size every server with DeepGEMM off, as SGLang's "+JITDeepGEMMEnv+"=0 does (the launch lines then set it): without it a block-fp8 checkpoint on Blackwell, whose scales DeepGEMM re-quantizes, is not planned there")
	return p
}

// planRowJSON is one deployment of `membudget plan --engine sglang --json`.
type planRowJSON struct {
	Class             string  `json:"class"`
	Device            string  `json:"device"`
	GPUs              uint64  `json:"gpus"`
	TPSize            uint64  `json:"tp_size"`
	PPSize            uint64  `json:"pp_size"`
	DPSize            uint64  `json:"dp_size"`
	Quantization      string  `json:"quantization"`
	KVCacheDtype      string  `json:"kv_cache_dtype"`
	MemFractionStatic float64 `json:"mem_fraction_static"`
	PerReplica        uint64  `json:"sequences_per_replica"`
	MostSeqs          uint64  `json:"most_seqs_at_length"`
	MostSeqsCapped    bool    `json:"most_seqs_capped"`
	LongestLen        uint64  `json:"longest_len_at_concurrency"`
	LongestLenCapped  bool    `json:"longest_len_capped"`
	HeadroomBytes     uint64  `json:"headroom_bytes"`
	MaxTotalNumTokens int64   `json:"max_total_num_tokens"`
	engine.RankJSON
	Command   string               `json:"command"`
	Footprint engine.FootprintJSON `json:"footprint"`
}

// SetRank gives the row the ranking's figures.
func (j *planRowJSON) SetRank(r engine.RankJSON) { j.RankJSON = r }

// Search tries, on each class, the space's layouts (see
// [engine.PlanSpace.Layouts]), the KV cache at the model's dtype and in
// fp8_e4m3, at SGLang's default fraction: every server that starts and
// holds need.Concurrency sequences of need.Length tokens across its
// replicas (each replica's --max-running-requests raised to its share when
// SGLang's own is lower), ranked by [engine.PlanSpace.Rank].
func (ps *planSearch) Search(m *hub.Loaded, need engine.Need, sp engine.PlanSpace, progress func(done, total int)) (engine.PlanResult, error) {
	p, err := ProfileFor(ps.version)
	if err != nil {
		return engine.PlanResult{}, err
	}
	if need.Length == 0 || need.Concurrency == 0 {
		return engine.PlanResult{}, fmt.Errorf("a plan needs a length and a concurrency of at least 1, got %d and %d", need.Length, need.Concurrency)
	}
	allow, jit := engine.Default, engine.Default
	if ps.allowLong {
		allow = engine.On
	}
	if ps.noJIT {
		jit = engine.Off
	}
	classes := sp.Classes
	// A length beyond the model is refused by SGLang on every device: an
	// error, not a search that finds nothing. The first class that takes
	// the default server says which.
	for _, c := range classes {
		_, err := size(m, c, Serve{ContextLength: need.Length, AllowLongContext: allow, JITDeepGEMM: jit, MMFeatureTransport: planTransport(p, m.Arch)}, p)
		if se := (*engine.SettingError)(nil); errors.As(err, &se) && se.Flag == "context-length" {
			return engine.PlanResult{}, fmt.Errorf("--length %d: %s; for the plan, --allow-long-context", need.Length, se.Reason)
		}
		if err == nil {
			break
		}
	}
	layouts := sp.Layouts(len(m.Arch.Layers), need.Concurrency)
	var found []engine.Deployment
	var notes []string
	var refusals refusalTally
	for ci, c := range classes {
		for _, l := range layouts {
			for _, kv := range []string{"auto", "fp8_e4m3"} {
				t := deploy(m, c, p, need, l, kv, allow, jit)
				refusals.add(t.refused)
				if t.ok {
					found = append(found, t.d)
					if t.prefillOff && notes == nil {
						notes = []string{prefillOffNote(p)}
					}
				}
			}
		}
		if progress != nil {
			progress(ci+1, len(classes))
		}
	}
	dropped := ue8m0Dropped(m, classes, p, jit)
	if why := refusals.one(); len(found) == 0 && len(dropped) == 0 && why != nil {
		dropped = []string{"every server searched was refused: " + why.Error()}
	}
	return engine.PlanResult{Describes: p.Describes, BudgetColumn: "MSF", Deployments: sp.Rank(found), Notes: notes, Dropped: dropped,
		Searched: fmt.Sprintf("%d classes x tensor, pipeline and data ranks %s x the checkpoint's weights x KV auto and fp8_e4m3 x SGLang's default --mem-fraction-static",
			len(classes), sp.Bounds())}, nil
}

// prefillOffNote is the plan's line for servers it sized with the prefill
// CUDA graphs off: p's default serve would capture them through the
// breakable runner, which membudget refuses rather than sizes (see
// [prefillCaptureRefusal] and [breakablePrefillMeasuredBytes]).
func prefillOffNote(p Profile) string {
	return fmt.Sprintf("--disable-piecewise-cuda-graph in the launch lines: %s captures the prefill forward in breakable CUDA graphs by default (sgl-project/sglang PR #29458), "+
		"after the KV pool, which membudget does not size (public measures run from 1.12 GiB to %.2f GB at TP 1); the plan sizes its servers with them off",
		p.Describes, breakablePrefillMeasuredBytes/1e9)
}

// refusalTally follows the refusals of a plan's servers, to say why when
// SGLang refused every one for the same flag: the search drops a refused
// server without a word.
type refusalTally struct {
	first error
	mixed bool
	ok    bool // a server that SGLang starts (fits or not)
}

// add counts one server, err its refusal (nil where SGLang starts it).
func (t *refusalTally) add(err error) {
	switch {
	case err == nil:
		t.ok = true
	case t.first == nil:
		t.first = err
	case refusalFlag(err) != refusalFlag(t.first):
		t.mixed = true
	}
}

// one returns the first refusal when every server counted was refused for
// the same flag, nil otherwise.
func (t *refusalTally) one() error {
	if t.ok || t.mixed {
		return nil
	}
	return t.first
}

// refusalFlag names what refused a server: the flag of its setting error,
// else its text.
func refusalFlag(err error) string {
	if se := (*engine.SettingError)(nil); errors.As(err, &se) {
		return "--" + se.Flag
	}
	return err.Error()
}

// ue8m0Dropped says, as the plan's dropped line, on which classes every server of
// m's block-fp8 weights was refused because SGLang re-quantizes their
// scales for DeepGEMM (see [Resolved.checkUE8M0]), and what lifts it: the
// search drops a refused server without a word, which would leave a
// Blackwell class missing from the plan unexplained. None when jit is
// [engine.Off] and p reads the variable.
func ue8m0Dropped(m *hub.Loaded, classes []budget.Class, p Profile, jit engine.Switch) []string {
	var names []string
	for _, c := range classes {
		if ue8m0Requant(m.Arch.Quant, p, c.Device.Silicon) {
			names = append(names, c.Name)
		}
	}
	switch {
	case len(names) == 0:
		return nil
	case p.Name == profile049post2.Name:
		return []string{fmt.Sprintf("not planned on %s: whether %s re-quantizes block-fp8 weights to DeepGEMM's UE8M0 scales there depends on the deep_gemm its sgl-kernel ships, which membudget has not read", strings.Join(names, ", "), p.Describes)}
	case jit == engine.Off:
		return nil
	}
	return []string{fmt.Sprintf("not planned on %s: %s re-quantizes this block-fp8 checkpoint's scales for DeepGEMM there (UE8M0, some 32 times as large), which membudget does not size; --disable-jit-deepgemm plans them with %s=0 in the launch lines, which keeps the scales as loaded", strings.Join(names, ", "), p.Describes, JITDeepGEMMEnv)}
}

// tried is one server a plan sized: its deployment where ok, whether its
// prefill CUDA graphs were turned off to size it, and its refusal, nil
// where SGLang starts it.
type tried struct {
	d          engine.Deployment
	ok         bool
	prefillOff bool
	refused    error
}

// deploy sizes one replica of layout l on c and keeps it when SGLang starts
// it and it holds its share of the need. Where SGLang's default would
// capture breakable prefill CUDA graphs, which membudget refuses unsized
// ([prefillCaptureRefusal]), it sizes the replica with them off.
func deploy(m *hub.Loaded, c budget.Class, p Profile, need engine.Need, l engine.Layout, kv string, allow, jit engine.Switch) tried {
	perReplica := (need.Concurrency + l.DP - 1) / l.DP
	s := Serve{TPSize: l.TP, PPSize: l.PP, DPSize: 1, ContextLength: need.Length, KVCacheDtype: kv, AllowLongContext: allow, JITDeepGEMM: jit,
		MMFeatureTransport: planTransport(p, m.Arch)}
	sz, err := size(m, c, s, p)
	if errors.As(err, new(prefillCaptureRefusal)) {
		s.DisablePiecewiseCudaGraph = true
		sz, err = size(m, c, s, p)
	}
	if err != nil {
		return tried{refused: err} // a layout or dtype SGLang refuses for this model or device
	}
	d, ok := hold(m, c, p, sz, s, need, l, perReplica)
	return tried{d: d, ok: ok, prefillOff: s.DisablePiecewiseCudaGraph}
}

// hold keeps sz, a replica of layout l sized with s, when SGLang starts it
// and it holds perReplica sequences of the need's length.
func hold(m *hub.Loaded, c budget.Class, p Profile, sz *Sizing, s Serve, need engine.Need, l engine.Layout, perReplica uint64) (engine.Deployment, bool) {
	var err error
	if perReplica > sz.plan.MaxSeqs {
		// Raise the scheduler's cap to the share: --max-running-requests
		// also sizes the req_to_token table, so size again.
		s.MaxRunningRequests = perReplica
		if sz, err = size(m, c, s, p); err != nil || perReplica > sz.plan.MaxSeqs {
			return engine.Deployment{}, false
		}
	}
	if ok, _ := sz.Starts(); !ok {
		return engine.Deployment{}, false
	}
	at := sz.plan.Evaluate(perReplica, need.Length)
	if !at.Fits() {
		return engine.Deployment{}, false
	}
	most, err := budget.MaxSequences(sz.plan, need.Length, 0)
	if err != nil {
		return engine.Deployment{}, false
	}
	longest, err := budget.MaxLength(sz.plan, perReplica, 0)
	if err != nil {
		return engine.Deployment{}, false
	}
	r := sz.Ref.Serve
	r.DPSize = l.DP
	command := Command(m.Name, m.Revision(), r)
	weights := r.Quant.Method
	if weights == "" {
		weights = r.Dtype
	}
	headroom := min(at.BudgetHeadroom(), at.DriverHeadroom())
	caveat := ""
	if c := sz.capacity.Caveat; c != "" {
		// Worded as explain's note (see [Capacity.Caveat]).
		caveat = "SGLang starts, " + c
	}
	return engine.Deployment{Class: c, GPUs: l.GPUs(), TP: l.TP, PP: l.PP, DP: l.DP, Weights: weights, KV: r.KVCacheDtype,
		Budget: strconv.FormatFloat(r.MemFractionStatic, 'f', -1, 64), PerEngine: perReplica, MostSeqs: most, LongestLen: longest,
		Headroom: headroom, BudgetBytes: at.Budget, KVHeadroom: at.BudgetHeadroom(), KVQuantized: s.KVCacheDtype != "auto", Caveat: caveat, Command: command,
		JSON: &planRowJSON{Class: c.Name, Device: c.Device.Name, GPUs: l.GPUs(), TPSize: l.TP, PPSize: l.PP, DPSize: l.DP,
			Quantization: r.Quant.Method, KVCacheDtype: r.KVCacheDtype, MemFractionStatic: r.MemFractionStatic, PerReplica: perReplica,
			MostSeqs: most.Value, MostSeqsCapped: most.Capped, LongestLen: longest.Value, LongestLenCapped: longest.Capped,
			HeadroomBytes: headroom, MaxTotalNumTokens: sz.capacity.MaxTotalNumTokens, Command: command,
			Footprint: engine.FootprintOf(at, sz.plan.Beside)}}, true
}

// budgetQuery is `membudget budget --engine sglang`'s flags.
type budgetQuery struct {
	version  string
	fraction float64
	tp, pp   uint64
}

// NewBudget registers --sglang-version, --mem-fraction-static, --tp-size
// and --pp-size.
func (Engine) NewBudget(fs *flag.FlagSet) engine.BudgetQuery {
	q := &budgetQuery{}
	fs.StringVar(&q.version, "sglang-version", DefaultName, "the SGLang whose default fraction applies: "+VersionHelp)
	fs.Var(fractionFlag(&q.fraction), "mem-fraction-static", "SGLang's --mem-fraction-static, in (0, 1) (default: SGLang's for the device at these ranks)")
	for _, name := range []string{"tp-size", "tensor-parallel-size", "tp"} {
		fs.Var(&countFlag{v: &q.tp, name: "tp-size"}, name, "SGLang's --tp-size: the ranks distributed init sets up (default 1)")
	}
	fs.Var(&countFlag{v: &q.pp, name: "pp-size"}, "pp-size", "SGLang's --pp-size (default 1)")
	return q
}

// budgetJSON is `membudget budget --engine sglang --json`.
type budgetJSON struct {
	Class              string  `json:"class"`
	Device             string  `json:"device"`
	MemoryBytes        uint64  `json:"memory_bytes"`
	SGLangVersion      string  `json:"sglang_version"`
	MemFractionStatic  float64 `json:"mem_fraction_static"`
	Defaulted          bool    `json:"defaulted"`
	ReservedMiB        float64 `json:"reserved_mib,omitempty"`
	TPSize             uint64  `json:"tp_size"`
	PPSize             uint64  `json:"pp_size"`
	GPUMemMiB          float64 `json:"gpu_mem_mib"`
	DriverFixedBytes   uint64  `json:"driver_fixed_bytes"`
	DistInitBytes      uint64  `json:"dist_init_bytes"`
	F0Bytes            uint64  `json:"f0_bytes"`
	StaticBudgetBytes  uint64  `json:"static_budget_bytes"`
	OutsideBudgetBytes uint64  `json:"outside_budget_bytes"`
	UtilCeiling        float64 `json:"util_ceiling"`
	AboveCeiling       bool    `json:"above_ceiling"`
	Unified            bool    `json:"unified"`
}

// Budget is SGLang's static budget on c: --mem-fraction-static (given, or
// SGLang's default for the device at these ranks, before any model's
// adjustment) of F0, the memory free after distributed init.
func (q *budgetQuery) Budget(c budget.Class) (engine.BudgetResult, error) {
	p, err := ProfileFor(q.version)
	if err != nil {
		return engine.BudgetResult{}, err
	}
	tp, pp := max(q.tp, 1), max(q.pp, 1)
	mib := GPUMemMiB(c)
	msf, reserved := q.fraction, 0.0
	if msf == 0 {
		chunked := defaultChunkedPrefill(p, mib)
		// From v0.5.10 the default reserves the piecewise CUDA graphs of a
		// text model without MLA on CUDA at one stage (see piecewise.go):
		// the model the query has not named is taken to be one.
		var piecewise float64
		if p.PiecewiseByDefault && pp == 1 && c.Device.Silicon.Vendor == budget.NVIDIA {
			piecewise = float64(len(piecewiseSizes(chunked)) * piecewiseMiBPerSize)
		}
		msf, reserved = DefaultMemFractionStatic(p, MSFInputs{GPUMemMiB: mib, TPSize: tp, PPSize: pp,
			ChunkedPrefillSize: chunked, MaxPrefillTokens: defaultPrefil, CudaGraphMaxBS: defaultCudaGraphMaxBS(p, mib, tp), PiecewiseMiB: piecewise})
	}
	dist := distInitFor(p, c, tp, pp, 1)
	f0 := budget.SatSub(budget.SatSub(c.Device.MemoryBytes, c.Memory.DriverFixedBytes), dist)
	static := uint64(math.Floor(float64(f0) * msf))
	out := budgetJSON{Class: c.Name, Device: c.Device.Name, MemoryBytes: c.Device.MemoryBytes, SGLangVersion: p.Name,
		MemFractionStatic: msf, Defaulted: q.fraction == 0, ReservedMiB: reserved, TPSize: tp, PPSize: pp, GPUMemMiB: mib,
		DriverFixedBytes: c.Memory.DriverFixedBytes, DistInitBytes: dist, F0Bytes: f0, StaticBudgetBytes: static,
		OutsideBudgetBytes: f0 - static, UtilCeiling: c.Memory.UtilCeiling, AboveCeiling: static > c.CeilingBytes(), Unified: c.Memory.Unified}
	res := engine.BudgetResult{JSON: out, Fits: !out.AboveCeiling}
	how := "given"
	if out.Defaulted {
		how = fmt.Sprintf("SGLang's default: %.0f MiB reserved of %.0f MiB, before any model's adjustment", reserved, mib)
		if p.PiecewiseByDefault {
			how += "; piecewise CUDA graphs reserved as for a text model without MLA (an MLA model reserves 1.5 GiB for them, a multimodal one none)"
		}
	}
	res.Text = append(res.Text, fmt.Sprintf("class %s (%s), %s, mem_fraction_static %v (%s; %s)", c.Name, c.Device.Name, engine.GiB(c.Device.MemoryBytes), msf, how, p.Describes))
	row := func(label string, v uint64) {
		res.Text = append(res.Text, fmt.Sprintf("  %-38s %12s  %d B", label, engine.GiB(v), v))
	}
	row("driver fixed (CUDA context)", c.Memory.DriverFixedBytes)
	row(fmt.Sprintf("distributed init (estimate, %d rank(s))", tp*pp), dist)
	row("F0, free after distributed init", f0)
	row("static budget (msf x F0)", static)
	row("outside it ((1 - msf) x F0)", f0-static)
	if c.Memory.Unified {
		res.Text = append(res.Text, "  unified memory: host caches come out of the same pool, outside the static budget")
	}
	if out.AboveCeiling {
		res.Text = append(res.Text, fmt.Sprintf("  does not fit: msf x F0 is above the class's util_ceiling %v of device memory", c.Memory.UtilCeiling))
	}
	return res, nil
}
