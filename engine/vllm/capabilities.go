package vllm

import (
	"errors"
	"flag"
	"fmt"
	"slices"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/explain"
	"membudget/model/hub"
	"membudget/model/logs"
)

var (
	_ engine.Planner  = Engine{}
	_ engine.Budgeter = Engine{}
)

// planSearch is `membudget plan`'s vLLM flags.
type planSearch struct {
	version   string
	allowLong bool
	pinKV     bool
	lora      LoRA
	// compilation is the -O and CUDA-graph settings kept on every
	// deployment; listed takes the keys of --compilation-config that
	// change no memory.
	compilation Compilation
	listed      []string
	offload     KVOffload
	mm          MM
	spec        string
	kvTransfer  string
	coldCompile bool
}

// NewPlan registers --vllm-version, --allow-long-max-model-len,
// --pin-kv-cache and --compile-cache.
func (Engine) NewPlan(fs *flag.FlagSet) engine.PlanSearch {
	p := &planSearch{}
	fs.StringVar(&p.version, "vllm-version", "main", "the vLLM whose rules size each serve")
	fs.BoolVar(&p.allowLong, "allow-long-max-model-len", false, "accept a --length above the model's maximum, as vLLM's VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 does (the commands then set it)")
	fs.BoolVar(&p.pinKV, "pin-kv-cache", false, "print each command with --kv-cache-memory-bytes: the KV cache membudget sizes less the --margin share of the budget (default: size it by the util, so vLLM's profiling stays in charge)")
	fs.Var(&compileCacheFlag{&p.coldCompile}, "compile-cache", "warm sizes each deployment for a start whose torch.compile cache an earlier start filled; cold for a first start with an empty one, whose profile vLLM charges Inductor's benchmark copy of the embedding table as activation where it exceeds the forward's peak (default warm)")
	registerLoRA(fs, &p.lora)
	registerCompilation(fs, &p.compilation, &p.listed)
	registerOffload(fs, &p.offload)
	registerKVTransfer(fs, &p.kvTransfer)
	registerMM(fs, &p.mm)
	registerSpec(fs, &p.spec, func(...string) bool { return true })
	return p
}

// planRowJSON is one deployment of `membudget plan --json`.
type planRowJSON struct {
	Class                string  `json:"class"`
	Device               string  `json:"device"`
	GPUs                 uint64  `json:"gpus"`
	TensorParallelSize   uint64  `json:"tensor_parallel_size"`
	PipelineParallelSize uint64  `json:"pipeline_parallel_size"`
	DataParallelSize     uint64  `json:"data_parallel_size"`
	Quantization         string  `json:"quantization"`
	KVCacheDtype         string  `json:"kv_cache_dtype"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	PerEngine            uint64  `json:"sequences_per_engine"`
	MostSeqs             uint64  `json:"most_seqs_at_length"`
	MostSeqsCapped       bool    `json:"most_seqs_capped"`
	LongestLen           uint64  `json:"longest_len_at_concurrency"`
	LongestLenCapped     bool    `json:"longest_len_capped"`
	HeadroomBytes        uint64  `json:"headroom_bytes"`
	engine.RankJSON
	// KVCacheMemoryBytes is the KV cache per GPU the util sizes;
	// PinnedKVCacheBytes what --pin-kv-cache gives vLLM, and PinnedKVCache
	// whether the command pins it.
	KVCacheMemoryBytes uint64               `json:"kv_cache_memory_bytes"`
	PinnedKVCacheBytes uint64               `json:"pinned_kv_cache_memory_bytes"`
	PinnedKVCache      bool                 `json:"pinned_kv_cache"`
	Command            string               `json:"command"`
	Footprint          engine.FootprintJSON `json:"footprint"`
}

// Search runs [Deployments] over the space.
func (p *planSearch) Search(m *hub.Loaded, need engine.Need, sp engine.PlanSpace, progress func(done, total int)) (engine.PlanResult, error) {
	profile, err := ProfileFor(p.version)
	if err != nil {
		return engine.PlanResult{}, err
	}
	// A cold start membudget does not size is refused by name here: each
	// deployment's Resolve would refuse it, and the search would only
	// report that none holds the need.
	cold := Resolved{Profile: profile}
	cold.Compilation, cold.ColdCompileCache = p.compilation, p.coldCompile
	if err := cold.refuseColdUnmodelled(); err != nil {
		return engine.PlanResult{}, err
	}
	rows, err := Deployments(m.Arch, m.Name, Need{Length: need.Length, Concurrency: need.Concurrency},
		Space{Plan: sp, Profile: profile, Revision: m.Revision(), AllowLongMaxModelLen: p.allowLong, PinKVCache: p.pinKV, LoRA: p.lora, Compilation: p.compilation, Offload: p.offload, MM: p.mm, SpeculativeConfig: p.spec, KVTransferConfig: p.kvTransfer, ColdCompileCache: p.coldCompile}, progress)
	if se := (*engine.SettingError)(nil); errors.As(err, &se) && se.Flag == "max-model-len" {
		return engine.PlanResult{}, fmt.Errorf("--length %d: %s", need.Length, se.Reason)
	}
	if err != nil {
		return engine.PlanResult{}, err
	}
	out := engine.PlanResult{Describes: profile.Describes, BudgetColumn: "UTIL",
		Searched: fmt.Sprintf("%d classes x tensor, pipeline and data ranks %s x the checkpoint's weights (and online fp8 for an unquantized one) x KV auto and fp8 x util %v or the class's ceiling",
			len(sp.Classes), sp.Bounds(), profile.DefaultUtil)}
	if p.lora.Enable {
		out.Notes = append(out.Notes, "each deployment keeps the LoRA given (--enable-lora and its flags): its slots are charged on every GPU")
	}
	out.Ignored = slices.Clone(p.listed)
	if p.compilation.Given() {
		out.Notes = append(out.Notes, "each deployment keeps the compilation given (-O, --compilation-config and the capture-size flags): its CUDA graphs are charged as vLLM captures them")
	}
	if p.offload.SizeGiB != nil {
		out.Notes = append(out.Notes, "each deployment keeps the KV offload given (--kv-offloading-size): its pinned host memory is split among each engine's GPUs, and counted beside the util budget on unified devices")
	}
	if p.kvTransfer != "" {
		out.Notes = append(out.Notes, "each deployment keeps the --kv-transfer-config given: its NIXL connector registers the KV cache vLLM allocates, and with kv_buffer_device cpu keeps a host copy of it (counted beside the util budget on unified devices)")
	}
	if p.mm.given() {
		out.Notes = append(out.Notes, "each deployment keeps the multimodal flags given (--limit-mm-per-prompt and its kin)")
	}
	if p.spec != "" {
		out.Notes = append(out.Notes, "each deployment keeps the --speculative-config given: what its runner sizes for the draft (the draft's weights and KV layers, the profile run's drafter and rejection sampler on the V1 runner, the draft's CUDA graphs) is charged")
	}
	if p.pinKV {
		out.Notes = append(out.Notes, fmt.Sprintf("each command pins the KV cache with --kv-cache-memory-bytes: the cache the util sizes less %v %% of the budget, in whole blocks, as a safety margin; vLLM then no longer sizes it by profiling, so memory membudget misses beyond that margin runs the device out of memory", sp.MarginPercent))
	} else {
		out.Notes = append(out.Notes, "each command sizes the KV cache by --gpu-memory-utilization, so vLLM's profiling stays in charge (--pin-kv-cache prints --kv-cache-memory-bytes instead)")
		if note := compileCacheNote(profile, p.compilation, p.coldCompile); note != "" {
			out.Notes = append(out.Notes, note)
		}
	}
	for _, d := range rows {
		r := d.Serve
		w := r.Quant.Method
		if w == "" {
			w = r.Dtype
		}
		row := d.row(0)
		row.Weights, row.KV, row.Budget = w, r.KVCacheDtype, fmt.Sprint(r.GPUMemoryUtilization)
		row.JSON = &planRowJSON{Class: d.Class.Name, Device: d.Class.Device.Name, GPUs: d.GPUs, TensorParallelSize: r.TensorParallelSize,
			PipelineParallelSize: r.PipelineParallelSize, DataParallelSize: r.DataParallelSize, Quantization: r.Quant.Method,
			KVCacheDtype: r.KVCacheDtype, GPUMemoryUtilization: r.GPUMemoryUtilization, PerEngine: d.PerEngine,
			MostSeqs: d.MostSeqs.Value, MostSeqsCapped: d.MostSeqs.Capped, LongestLen: d.LongestLen.Value, LongestLenCapped: d.LongestLen.Capped,
			HeadroomBytes: d.Headroom(), KVCacheMemoryBytes: d.KVCacheBytes, PinnedKVCacheBytes: d.PinnedKVBytes, PinnedKVCache: p.pinKV,
			Command: d.Command, Footprint: engine.FootprintOf(d.At, d.Beside)}
		out.Deployments = append(out.Deployments, row)
	}
	// Ranked again to set each row's figures: the order is Deployments'.
	out.Deployments = sp.Rank(out.Deployments)
	return out, nil
}

// SetRank gives the row the ranking's figures.
func (j *planRowJSON) SetRank(r engine.RankJSON) { j.RankJSON = r }

// budgetQuery is `membudget budget`'s vLLM flags.
type budgetQuery struct {
	version string
	util    float64
}

// NewBudget registers --vllm-version and --gpu-memory-utilization.
func (Engine) NewBudget(fs *flag.FlagSet) engine.BudgetQuery {
	q := &budgetQuery{}
	fs.StringVar(&q.version, "vllm-version", "main", "the vLLM whose default util and rounding apply: main or a release such as 0.19.0")
	fs.Var(&utilFlag{&q.util}, "gpu-memory-utilization", "vLLM's --gpu-memory-utilization, in (0, 1] (default: the vLLM version's, 0.92 on main)")
	return q
}

// budgetJSON is `membudget budget --json`.
type budgetJSON struct {
	Class                string  `json:"class"`
	Device               string  `json:"device"`
	MemoryBytes          uint64  `json:"memory_bytes"`
	VLLMVersion          string  `json:"vllm_version"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	UtilCeiling          float64 `json:"util_ceiling"`
	AboveCeiling         bool    `json:"above_ceiling"`
	UtilBudgetBytes      uint64  `json:"util_budget_bytes"`
	DriverFixedBytes     uint64  `json:"driver_fixed_bytes"`
	DriverPerMilleBytes  uint64  `json:"driver_per_mille_bytes"`
	DriverBytes          uint64  `json:"driver_bytes"`
	OutsideBudgetBytes   uint64  `json:"outside_budget_bytes"`
	DriverHeadroomBytes  uint64  `json:"driver_headroom_bytes"`
	Unified              bool    `json:"unified"`
	// StartupFreeBytes is the free memory vLLM's startup check reads at
	// TP 1 (the device less the class's fixed share; the host's
	// MemAvailable on unified memory); RefusedAtStartup says the util
	// budget exceeds it (0 and false for the V0 engine, which has no check).
	StartupFreeBytes uint64 `json:"startup_free_bytes"`
	RefusedAtStartup bool   `json:"refused_at_startup"`
	// HostBoundBytes is, on unified memory, the most the host may hold at
	// vLLM's snapshot for the util to pass (the device less the request;
	// see Capacity.HostBound); UtilReached the class's util_reached. Both
	// absent elsewhere.
	HostBoundBytes uint64  `json:"host_bound_bytes,omitempty"`
	UtilReached    float64 `json:"util_reached,omitempty"`
}

// Budget is vLLM's requested memory on c at the util, and the driver's
// share in what it leaves.
func (q *budgetQuery) Budget(c budget.Class) (engine.BudgetResult, error) {
	profile, err := ProfileFor(q.version)
	if err != nil {
		return engine.BudgetResult{}, err
	}
	util := q.util
	if util == 0 {
		util = profile.DefaultUtil
	}
	b, err := c.UtilBudget(util, profile.Rounding)
	if err != nil {
		return engine.BudgetResult{}, fmt.Errorf("--gpu-memory-utilization: %w", err)
	}
	driver := c.Memory.Bytes(b, 0)
	outside := budget.SatSub(c.Device.MemoryBytes, b)
	out := budgetJSON{
		Class: c.Name, Device: c.Device.Name, MemoryBytes: c.Device.MemoryBytes, VLLMVersion: profile.Name,
		GPUMemoryUtilization: util, UtilCeiling: c.Memory.UtilCeiling, AboveCeiling: b > c.CeilingBytes(),
		UtilBudgetBytes: b, DriverFixedBytes: c.Memory.DriverFixedBytes, DriverPerMilleBytes: driver - c.Memory.DriverFixedBytes,
		DriverBytes: driver, OutsideBudgetBytes: outside,
		DriverHeadroomBytes: budget.SatSub(outside, driver), Unified: c.Memory.Unified,
	}
	if profile.Era != V0 {
		// vLLM's request_memory check (see startupCheck) at TP 1.
		out.StartupFreeBytes = budget.SatSub(c.Device.MemoryBytes, c.Memory.DriverFixedBytes)
		out.RefusedAtStartup = b > out.StartupFreeBytes
		if c.Memory.Unified {
			out.HostBoundBytes, out.UtilReached = budget.SatSub(c.Device.MemoryBytes, b), c.Memory.UtilReached
		}
	}
	res := engine.BudgetResult{JSON: out, Fits: !out.AboveCeiling && driver <= outside && !out.RefusedAtStartup}
	res.Text = append(res.Text, fmt.Sprintf("class %s (%s), %s, gpu_memory_utilization %v (%s)", c.Name, c.Device.Name, engine.GiB(c.Device.MemoryBytes), util, profile.Describes))
	row := func(label string, v uint64) {
		res.Text = append(res.Text, fmt.Sprintf("  %-38s %12s  %d B", label, engine.GiB(v), v))
	}
	row("util budget (memory x util)", b)
	row("outside the budget", outside)
	row("driver fixed", out.DriverFixedBytes)
	row(fmt.Sprintf("driver per-mille (%d/1000 of budget)", c.Memory.DriverBudgetPerMille), out.DriverPerMilleBytes)
	row("driver share", driver)
	row("driver headroom (before slack, host)", out.DriverHeadroomBytes)
	if c.Memory.Unified {
		res.Text = append(res.Text, "  unified memory: host caches come out of the same pool, outside the util budget")
	}
	if profile.Era != V0 {
		row("free at vLLM's startup check (TP 1)", out.StartupFreeBytes)
		if c.Memory.Unified {
			res.Text = append(res.Text, "  (on unified memory vLLM reads the host's MemAvailable: the pool less what the host holds)")
		}
	}
	if out.RefusedAtStartup {
		// On unified memory: the host the util needs, and util_reached
		// where the util is within it (the wording of the capacity's).
		lighter := Capacity{Unified: c.Memory.Unified, Util: util, Requested: b, HostBound: out.HostBoundBytes}
		lighter.withinReached(c.Memory, c.Device.MemoryBytes)
		res.Text = append(res.Text, fmt.Sprintf("  vLLM refuses at startup: the util budget %s exceeds the %s free (\"Free memory on device ... is less than desired GPU memory utilization\"): --gpu-memory-utilization %.2f or less passes it%s",
			engine.GiB(b), engine.GiB(out.StartupFreeBytes), grantedUtil(c.Device.MemoryBytes, out.StartupFreeBytes), lighter.lighterHost()))
	} else if out.AboveCeiling {
		res.Text = append(res.Text, fmt.Sprintf("  does not fit: util %v is above the class's util_ceiling %v; the driver's share is not known to fit beside the budget", util, c.Memory.UtilCeiling))
	} else if driver > outside {
		res.Text = append(res.Text, fmt.Sprintf("  does not fit: the driver's share is %s over what the budget leaves of device memory", engine.GiB(driver-outside)))
	}
	return res, nil
}

var _ engine.LogReader = Engine{}

// Explain sizes a vLLM log's serve under the version it logged (or
// --vllm-version), each logged setting unless its flag was given.
func (Engine) Explain(src *explain.Source, m explain.Model, c explain.ClassChoice, s engine.Serve) (*explain.Explanation, error) {
	f := s.(*flagServe)
	version, err := chooseProfile(src.Log, f.version, f.given["vllm-version"])
	if err != nil {
		return nil, err
	}
	serve, err := buildServe(src.Log, f.s, f.given)
	if err != nil {
		return nil, err
	}
	if !f.given["enable-lora"] {
		serve.dropUnsizedLoRA(m.Arch, version.Profile)
	}
	serve.dropUnsizedCompilation(version.Profile, f.given)
	if !f.given["enable-eplb"] {
		serve.dropUnsizedEPLB(m.Arch, version.Profile)
	}
	if !f.given["kv-offloading-size"] {
		serve.dropUnsizedOffload(version.Profile)
	}
	if !f.given["all2all-backend"] {
		serve.dropUnsizedA2A(m.Arch, c.Class, version.Profile)
	}
	serve.dropUnsizedMM(m.Arch, version.Profile)
	serve.dropUnsizedSpec(m.Arch, c.Class, version.Profile)
	return explainLog(explainInput{Source: src, Model: m, Class: c, Version: version, Serve: serve})
}

// Ranks is --tensor-parallel-size when given, else the log's
// tensor_parallel_size, else 1.
func (Engine) Ranks(l *logs.Log, s engine.Serve) uint64 {
	f := s.(*flagServe)
	if f.given["tensor-parallel-size"] || f.given["tp"] {
		return f.s.TensorParallelSize
	}
	return engine.LoggedCount(l, "tensor_parallel_size", 1)
}

var _ engine.Releaser = Engine{}

// DefaultRelease returns the rules a serve gets without --vllm-version:
// main's.
func (Engine) DefaultRelease() string {
	p, err := ProfileFor("main")
	if err != nil {
		return "main"
	}
	return p.Describes
}
