package vllm

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/torchalloc"
	"membudget/internal/shell"
	"membudget/model"
)

// This file sizes --enable-eplb with --eplb-config: expert-parallel load
// balancing's redundant experts, which every rank holds beside its share
// of the routed ones, and the state EplbState keeps on every GPU. Every
// rule is vLLM main's at commit d18bb7b (2026-08-14).
//
// With EPLB a MoE layer holds num_experts + num_redundant_experts
// physical experts (determine_expert_counts, vllm/model_executor/layers/
// fused_moe/layer.py:73-79), which must divide evenly among the expert-
// parallel ranks (:255-262, "EPLB currently only supports even
// distribution of experts across ranks"); physical expert j copies routed
// expert j mod num_experts (vllm/distributed/eplb/eplb_state.py:305-322).
// While the model loads, inside the profiler of "Model loading took"
// (vllm/v1/worker/gpu_model_runner.py:5412-5490), EplbState.add_model
// (eplb_state.py:360-500) allocates on the GPU, for the stage's MoE
// layers L, logical experts E and physical experts P = E + N:
//   - physical_to_logical_map, L x P int64 (a tensor of Python ints);
//   - logical_to_physical_map, L x E x (MAX_EXPERT_REDUNDANCY + 1) int64,
//     MAX_EXPERT_REDUNDANCY = 1023 (torch.full with the int -1, :384-393);
//   - logical_replica_count, L x E int64;
//   - expert_load_pass, L x P int32, and expert_load_window, window_size
//     x L x P int32 (:433-446);
//   - one int32 scalar a micro-batch (:459-464, one without DBO);
//   - expert_buffer, a copy of the first MoE layer's expert weights
//     (torch.empty_like, :473), the rebalance's receive buffer.
// The profile run then rearranges once (eplb_state.py:561-562): a
// communicator that reserves its buffers there (every one but NIXL,
// eplb_communicator.py:84-88, 342-344; the default is NIXL where it is
// installed, else torch_gloo, vllm/config/parallel.py:973-990) allocates
// one more copy of that layer's experts for a dummy all_gather
// (vllm/distributed/eplb/rebalance_execute.py:574-588), after the forward
// pass: membudget takes the larger of it and the forward's peak, and
// assumes the reservation unless the config names nixl.

// EPLB is a serve's --enable-eplb and --eplb-config.
type EPLB struct {
	Enable bool   // --enable-eplb
	Config string // --eplb-config, a JSON object of EPLBConfig, as given
}

// eplbSince is the first release whose EPLB state membudget sizes: main
// d18bb7b's EplbState, which 0.28.0 (cut from main after 2026-08-14)
// carries; the flags came with PRs #18343 and #20562 in 0.10.0, whose
// state membudget has not read.
var eplbSince = v0_28_0

// maxExpertRedundancy is MAX_EXPERT_REDUNDANCY (vllm/distributed/eplb/
// eplb_state.py:384, asserted :385-388): at most this many redundant
// experts, and logical_to_physical_map's slots a logical expert less one.
const maxExpertRedundancy = 1023

// eplbWindow is EPLBConfig.window_size's default (vllm/config/parallel.py:
// 62).
const eplbWindow = 1000

// maxEPLBWindow bounds window_size far above any serve, so that the
// window's bytes stay far from 2^64.
const maxEPLBWindow = 1 << 24

// eplbArchs are the architectures whose MoE layers take redundant experts
// (they read eplb_config.num_redundant_experts into FusedMoE and
// implement MixtureOfExperts: vllm/model_executor/models/qwen3_moe.py:163,
// 454-623; deepseek_v2.py:326, 1420, 1753-1790; mixtral.py; glm4_moe.py
// 496-524) and that membudget sizes.
var eplbArchs = []string{"DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM", "Glm4MoeForCausalLM", "MixtralForCausalLM", "Qwen3MoeForCausalLM"}

// eplbConfig is what membudget reads of --eplb-config; the other keys of
// EPLBConfig change no memory (vllm/config/parallel.py:59-100).
type eplbConfig struct {
	WindowSize          *int64  `json:"window_size"`
	StepInterval        *int64  `json:"step_interval"`
	NumRedundantExperts *int64  `json:"num_redundant_experts"`
	LogBalancedness     *bool   `json:"log_balancedness"`
	LogInterval         *int64  `json:"log_balancedness_interval"`
	UseAsync            *bool   `json:"use_async"`
	Policy              *string `json:"policy"`
	Communicator        *string `json:"communicator"`
}

// eplbCommunicators are EPLBCommunicatorBackend's values (vllm/config/
// parallel.py:92-100).
var eplbCommunicators = []string{"torch_nccl", "torch_gloo", "nixl", "pynccl"}

// parseEPLBConfig reads --eplb-config as vLLM's pydantic dataclass does:
// the keys of EPLBConfig, no other, each of its type and bounds.
func parseEPLBConfig(v string) (eplbConfig, error) {
	var c eplbConfig
	if strings.TrimSpace(v) == "" {
		return c, nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(v)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("want a JSON object of EPLBConfig's keys (window_size, step_interval, num_redundant_experts, log_balancedness, log_balancedness_interval, use_async, policy, communicator): %v", err)
	}
	// vLLM parses the flag with pydantic's TypeAdapter.validate_json
	// (vllm/engine/arg_utils.py:337-342 at main d18bb7b), which refuses
	// anything after the object but JSON's whitespace.
	if extraAfterJSON(dec) {
		return c, fmt.Errorf("want one JSON object")
	}
	switch {
	case c.WindowSize != nil && (*c.WindowSize <= 0 || *c.WindowSize > maxEPLBWindow):
		return c, fmt.Errorf("window_size %d: vLLM takes more than 0 (vllm/config/parallel.py:62)", *c.WindowSize)
	case c.StepInterval != nil && *c.StepInterval <= 0:
		return c, fmt.Errorf("step_interval %d: vLLM takes more than 0 (vllm/config/parallel.py:64)", *c.StepInterval)
	case c.NumRedundantExperts != nil && *c.NumRedundantExperts < 0:
		return c, fmt.Errorf("num_redundant_experts %d: vLLM takes 0 or more (vllm/config/parallel.py:72)", *c.NumRedundantExperts)
	case c.NumRedundantExperts != nil && *c.NumRedundantExperts > maxExpertRedundancy:
		return c, fmt.Errorf("num_redundant_experts %d: vLLM asserts at most %d (MAX_EXPERT_REDUNDANCY, vllm/distributed/eplb/eplb_state.py:384-388)", *c.NumRedundantExperts, maxExpertRedundancy)
	case c.Communicator != nil && !slices.Contains(eplbCommunicators, *c.Communicator):
		return c, fmt.Errorf("communicator %q: vLLM takes %s (vllm/config/parallel.py:92-100)", *c.Communicator, strings.Join(eplbCommunicators, ", "))
	case c.Policy != nil && *c.Policy != "default":
		return c, fmt.Errorf("policy %q: membudget knows vLLM's default policy alone (vllm/distributed/eplb/policy)", *c.Policy)
	}
	async := c.UseAsync == nil || *c.UseAsync
	if async && c.Communicator != nil && (*c.Communicator == "torch_nccl" || *c.Communicator == "pynccl") {
		return c, fmt.Errorf("vLLM refuses it: %s communicator is incompatible with async EPLB due to NCCL multi-stream conflicts (vllm/config/parallel.py:102-111)", *c.Communicator)
	}
	return c, nil
}

// eplbFlags are the flags registerEPLB registers: a request that names
// one registers both.
var eplbFlags = []string{"enable-eplb", "eplb-config"}

// registerEPLB registers the EPLB flags into e.
func registerEPLB(fs *flag.FlagSet, e *EPLB) {
	fs.BoolVar(&e.Enable, "enable-eplb", false, "vLLM's --enable-eplb: expert-parallel load balancing, its state and redundant experts on every GPU (sized for DeepSeek V2/V3, GLM-4 MoE, Mixtral and Qwen3 MoE, vLLM 0.28.0 on)")
	fs.StringVar(&e.Config, "eplb-config", "", "vLLM's --eplb-config, JSON: num_redundant_experts (experts beyond the routed ones, divided among the expert-parallel ranks), window_size (default 1000), communicator, ...")
}

// resolveEPLB checks the EPLB settings as vLLM does and places the
// redundant experts on every stage's ranks.
func (r *Resolved) resolveEPLB(a *model.Arch) error {
	e := r.EPLB
	if !e.Enable && e.Config == "" {
		return nil // the common serve: nothing to read
	}
	c, err := parseEPLBConfig(e.Config)
	if err != nil {
		return settingErr("eplb-config", e.Config, "%v", err)
	}
	var n uint64
	if c.NumRedundantExperts != nil {
		n = uint64(*c.NumRedundantExperts)
	}
	if !e.Enable {
		if n != 0 {
			return settingErr("eplb-config", e.Config, "vLLM refuses it: num_redundant_experts is set to %d but EPLB is not enabled. Either enable EPLB or unset num_redundant_experts (vllm/config/parallel.py:516-522)", n)
		}
		return nil
	}
	p := r.Profile
	if p.Release.Less(eplbSince) {
		return settingErr("enable-eplb", "", "%s: not modelled for %s (membudget sizes EPLB's state and redundant experts from vLLM %s, whose EplbState it has read); membudget refuses it rather than size a serve vLLM would contradict",
			whatEplb, p.Describes, eplbSince)
	}
	if !r.EnableExpertParallel {
		return settingErr("enable-eplb", "", "vLLM refuses it: enable_expert_parallel must be True to use EPLB (vllm/config/parallel.py:499-500): add --enable-expert-parallel")
	}
	if r.TensorParallelSize*r.DataParallelSize <= 1 {
		return settingErr("enable-eplb", "", "vLLM refuses it: EPLB requires tensor, prefill-context, or data parallelism, but got TP=%d, DP=%d (vllm/config/parallel.py:503-514)", r.TensorParallelSize, r.DataParallelSize)
	}
	arch := firstArch(a)
	if !slices.Contains(eplbArchs, arch) || a.Experts == 0 {
		return settingErr("enable-eplb", "", "%s: not modelled for %s on %s (%s; membudget sizes them for %s); membudget refuses it rather than size a serve vLLM would contradict", whatEplb, p.Describes, a.Source, archName(arch), strings.Join(eplbArchs, ", "))
	}
	if phys := budget.SatAdd(a.Experts, n); phys%r.ExpertRanks != 0 {
		flag := "eplb-config"
		if n == 0 {
			flag = "enable-eplb"
		}
		return settingErr(flag, e.Config, "vLLM refuses it: EPLB currently only supports even distribution of experts across ranks. Got %d experts and %d EP ranks (%d routed + %d redundant over TP x DP = %d; vllm/model_executor/layers/fused_moe/layer.py:255-262)",
			phys, r.ExpertRanks, a.Experts, n, r.ExpertRanks)
	}
	r.RedundantExperts, r.EPLBWindow = n, eplbWindow
	if c.WindowSize != nil {
		r.EPLBWindow = uint64(*c.WindowSize)
	}
	// Every communicator but NIXL reserves its buffers in the profile run;
	// the default is NIXL only where it is installed.
	r.EPLBReserves = c.Communicator == nil || *c.Communicator != "nixl"
	for i := range r.Stages {
		r.Stages[i].RedundantExperts = n
	}
	return nil
}

// moeLayers is the MoE layers of a stage: those whose EplbState counts.
func moeLayers(a *model.Arch, st model.Sharding) uint64 {
	var n uint64
	for _, l := range a.Layers[st.FirstLayer:st.EndLayer] {
		if l.MoE {
			n++
		}
	}
	return n
}

// eplbExperts is what the redundant experts add to a stage's GPU, and one
// MoE layer's physical experts on it (the expert_buffer): the weights of
// the stage as placed, less those without redundant experts; and, from the
// weights with one more physical expert on each rank, one expert of every
// MoE layer, of which a layer holds (E + N) / EP. weigh is the stage's
// weights at a sharding (the compiler's memo, or [weighWeights]).
func eplbExperts(a *model.Arch, r *Resolved, st model.Sharding, weigh weigher) (redundant, layerBuffer uint64) {
	if !r.EPLB.Enable || r.ExpertRanks <= 1 {
		return 0, 0
	}
	layers := moeLayers(a, st)
	if layers == 0 {
		return 0, 0
	}
	st = r.rankSharding(st)
	placed := weigh(st)
	plain := st
	plain.RedundantExperts = 0
	more := st
	more.RedundantExperts = budget.SatAdd(st.RedundantExperts, st.ExpertRanks)
	oneEach := budget.SatSub(weigh(more), placed)
	local := budget.SatAdd(a.Experts, r.RedundantExperts) / r.ExpertRanks
	return budget.SatSub(placed, weigh(plain)), budget.SatMul(oneEach/layers, local)
}

// weigher is a stage's weights in bytes at a sharding: the sum of
// weightItems, which a Compiler keeps per sharding.
type weigher func(model.Sharding) uint64

// weighWeights is a's weigher that walks weightItems each call.
func weighWeights(a *model.Arch) weigher {
	return func(sh model.Sharding) uint64 {
		var n uint64
		for _, it := range weightItems(a, sh) {
			n = budget.SatAdd(n, it.Bytes)
		}
		return n
	}
}

// eplbStateTensors yields EplbState's tensors on a stage's GPU but the
// expert buffer, as sizes in bytes and how many tensors of that size.
func eplbStateTensors(a *model.Arch, r *Resolved, st model.Sharding, yield func(bytes, count uint64)) {
	layers := moeLayers(a, st)
	if !r.EPLB.Enable || layers == 0 {
		return
	}
	e := a.Experts
	phys := budget.SatAdd(e, r.RedundantExperts)
	yield(budget.SatMul(budget.SatMul(layers, phys), 8), 1)                                    // physical_to_logical_map
	yield(budget.SatMul(budget.SatMul(budget.SatMul(layers, e), maxExpertRedundancy+1), 8), 1) // logical_to_physical_map
	yield(budget.SatMul(budget.SatMul(layers, e), 8), 1)                                       // logical_replica_count
	yield(budget.SatMul(budget.SatMul(layers, phys), 4), 1)                                    // expert_load_pass
	yield(budget.SatMul(budget.SatMul(budget.SatMul(r.EPLBWindow, layers), phys), 4), 1)       // expert_load_window
	yield(4, 1)                                                                                // num_unpadded_tokens, one micro-batch
}

// eplbStateBytes is EplbState's maps and load counters on a stage's GPU.
func eplbStateBytes(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	var n uint64
	eplbStateTensors(a, r, st, func(b, c uint64) { n = budget.SatAdd(n, budget.SatMul(b, c)) })
	return n
}

// addEPLBPools adds the stage's EPLB tensors to its caching-allocator
// pools: the state, and the expert buffer as one block (it is one tensor
// a parameter of the layer's experts).
func addEPLBPools(p torchalloc.Pools, a *model.Arch, r *Resolved, st model.Sharding, weigh weigher) torchalloc.Pools {
	if !r.EPLB.Enable {
		return p
	}
	eplbStateTensors(a, r, st, func(b, c uint64) { p = p.Add(b, c) })
	if _, buf := eplbExperts(a, r, st, weigh); buf > 0 {
		p = p.Add(buf, 1)
	}
	return p
}

// appendEPLBItems appends the EPLB terms of one stage: the state and the
// expert buffer, allocated while the model loads; and the profile run's
// reservation, which raises the activation peak to one layer's experts
// where they are the larger.
func appendEPLBItems(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding, weigh weigher) []budget.Item {
	if !r.EPLB.Enable || moeLayers(a, st) == 0 {
		return items
	}
	_, buf := eplbExperts(a, r, st, weigh)
	items = append(items,
		budget.Item{Name: "eplb_state", Term: budget.TermWeights, Bytes: eplbStateBytes(a, r, st)},
		budget.Item{Name: "eplb_expert_buffer", Term: budget.TermWeights, Bytes: buf})
	if r.EPLBReserves {
		var act uint64
		for _, it := range items {
			if it.Term == budget.TermActivation {
				act = budget.SatAdd(act, it.Bytes)
			}
		}
		items = append(items, budget.Item{Name: "eplb_profile_buffer", Term: budget.TermActivation, Bytes: budget.SatSub(buf, act)})
	}
	return items
}

// eplbLines is what EPLB adds to a GPU of stage i: the redundant experts,
// and the state with the expert buffer.
func (sz *Sizing) eplbLines(i int) (redundant, buffers uint64) {
	r := sz.Serve
	if !r.EPLB.Enable || i >= len(r.Stages) {
		return 0, 0
	}
	st := stageOf(r, i)
	red, buf := eplbExperts(sz.Model.Arch, r, st, weighWeights(sz.Model.Arch))
	return red, budget.SatAdd(buf, eplbStateBytes(sz.Model.Arch, r, st))
}

// splitEPLB names EPLB's terms in a footprint's lines: the weights line
// without them, then "redundant experts" and "EPLB buffers" (the sum is
// the weights term).
func (sz *Sizing) splitEPLB(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	red, buf := sz.eplbLines(fp.Stage)
	if red == 0 && buf == 0 || len(lines) == 0 || lines[0].Label != termLabels[budget.TermWeights] {
		return lines
	}
	lines[0].Bytes = budget.SatSub(budget.SatSub(lines[0].Bytes, red), buf)
	out := make([]engine.FootprintLine, 0, len(lines)+2)
	out = append(out, lines[0], engine.FootprintLine{Label: "redundant experts", Bytes: red}, engine.FootprintLine{Label: "EPLB buffers", Bytes: buf})
	return append(out, lines[1:]...)
}

// writeEPLBFlags writes the EPLB flags of a resolved serve to a launch
// line, as given.
func writeEPLBFlags(b *strings.Builder, e EPLB) {
	if e.Enable {
		b.WriteString(" --enable-eplb")
	}
	if strings.TrimSpace(e.Config) != "" {
		b.WriteString(" --eplb-config ")
		b.WriteString(shell.Quote(e.Config))
	}
}

// eplbJSON is the serve's EPLB: the report's "serve"."eplb".
type eplbJSON struct {
	NumRedundantExperts uint64 `json:"num_redundant_experts"`
	WindowSize          uint64 `json:"window_size"`
	Config              string `json:"eplb_config,omitempty"`
	// On a GPU of the first stage: the redundant experts' weights, and
	// the state with the expert buffer.
	RedundantExpertBytes uint64 `json:"redundant_expert_bytes"`
	BufferBytes          uint64 `json:"buffer_bytes"`
}

// eplbJSON is the sizing's EPLB for the report, nil without it.
func (sz *Sizing) eplbJSON() *eplbJSON {
	r := sz.Serve
	if !r.EPLB.Enable {
		return nil
	}
	red, buf := sz.eplbLines(0)
	return &eplbJSON{NumRedundantExperts: r.RedundantExperts, WindowSize: r.EPLBWindow, Config: r.EPLB.Config, RedundantExpertBytes: red, BufferBytes: buf}
}

// eplbSettings is the line a report prints of the serve's EPLB.
func (sz *Sizing) eplbSettings() []string {
	r := sz.Serve
	if !r.EPLB.Enable {
		return nil
	}
	phys := budget.SatAdd(sz.Model.Arch.Experts, r.RedundantExperts)
	line := fmt.Sprintf("EPLB: %d physical experts a MoE layer (%d routed + %d redundant), %d on each of %d expert-parallel ranks; load window of %d steps",
		phys, sz.Model.Arch.Experts, r.RedundantExperts, phys/max(r.ExpertRanks, 1), r.ExpertRanks, r.EPLBWindow)
	if r.EPLBReserves {
		line += "; the profile run reserves one more layer's experts for the communicator (not NIXL)"
	}
	return []string{line}
}

// loggedEPLBConfig is a logged eplb_config as --eplb-config's JSON: the
// keys that size a serve, num_redundant_experts and window_size, read
// from a JSON or Python dict ({'num_redundant_experts': 32}) or from
// EPLBConfig's repr (EPLBConfig(window_size=1000, ...)).
func loggedEPLBConfig(v string) (string, bool) {
	keys := []string{"window_size", "num_redundant_experts"}
	var parts []string
	found := false
	for _, k := range keys {
		i := strings.Index(v, k)
		if i < 0 {
			continue
		}
		rest := strings.TrimLeft(v[i+len(k):], "'\" ")
		if rest == "" || rest[0] != '=' && rest[0] != ':' {
			return "", false
		}
		rest = strings.TrimLeft(rest[1:], " ")
		end := 0
		for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
			end++
		}
		if end == 0 {
			return "", false
		}
		parts = append(parts, fmt.Sprintf("%q: %s", k, rest[:end]))
		found = true
	}
	if !found {
		// No key that sizes: the defaults.
		return "", strings.Contains(v, "EPLBConfig") || strings.HasPrefix(strings.TrimSpace(v), "{")
	}
	return "{" + strings.Join(parts, ", ") + "}", true
}

// dropUnsizedEPLB keeps a log's EPLB where membudget sizes it for a under
// p; elsewhere it leaves EPLB out of the serve with a warning, as explain
// did before EPLB was sized: the log is explained, short of its state and
// redundant experts.
func (ls *loggedServe) dropUnsizedEPLB(a *model.Arch, p Profile) {
	if !ls.Serve.EPLB.Enable || a != nil && slices.Contains(eplbArchs, firstArch(a)) && a.Experts > 0 && !p.Release.Less(eplbSince) {
		return
	}
	ls.Serve.EPLB = EPLB{}
	delete(ls.From, "enable-eplb")
	delete(ls.From, "eplb-config")
	ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's serve uses expert-parallel load balancing, which membudget sizes for %s from vLLM %s only: its predictions leave its state and redundant experts out", strings.Join(eplbArchs, ", "), eplbSince))
}

// all2allEnvUntil is the first release without VLLM_ALL2ALL_BACKEND, the
// environment variable --all2all-backend replaced (added by PR #18077 of
// 2025-05-14, removed by PR #33535 of 2026-02-03, placed as flagTable
// places a removal).
var all2allEnvUntil = v0_17_0

// all2allEnv refuses VLLM_ALL2ALL_BACKEND naming a backend with buffers of
// its own in the releases that read it; naive and allgather_reducescatter,
// its defaults over time, hold none beyond the collectives.
func all2allEnv(name, value, assignment string, p Profile) error {
	v := strings.TrimSpace(value)
	if name != "VLLM_ALL2ALL_BACKEND" || !p.Release.Less(all2allEnvUntil) || v == "" || v == "naive" || v == "allgather_reducescatter" {
		return nil
	}
	return fmt.Errorf("%s in the launch line: %s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", assignment, whatA2a, p.Describes)
}
