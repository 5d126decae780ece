package sglang

import (
	"fmt"
	"math"

	"membudget/budget"
	"membudget/engine/torchalloc"
	"membudget/model"
)

// Reference is the plain footprint model of one SGLang server: for every
// pipeline stage it lists every allocation of s sequences of t tokens and
// adds them up. It is the oracle the compiled Plan is proven against.
//
// SGLang's accounting (python/sglang/srt/model_executor/model_runner.py at
// the profile's commit): F0 is the free memory after distributed init, the
// least over every rank; loading the model takes W; the KV pool gets
// rest = msf x F0 - W, in whole tokens of the stage's cell. The budget is
// therefore msf x F0, charged with the weights and the pool; everything
// SGLang allocates after the pool (the req_to_token table, the pool's
// padding rows, CUDA graphs, activations) and what distributed init holds
// stand beside it, in what (1 - msf) x F0 leaves.
type Reference struct {
	Arch  *model.Arch
	Serve Resolved
	Class budget.Class

	budget    uint64 // msf x F0 as SGLang computes it: the heaviest stage's load plus restBytes
	loadedMax uint64 // F0 - F1: the heaviest stage's load (F1 is the least over every rank)
	rest      float64
	restBytes int64 // floor(rest x 2^30)
	// kvRestBytes is what the KV pool is sized from: restBytes, less a
	// hybrid's Mamba pool (see mamba.go), floored after the subtraction;
	// kvRest the same in GiB before the floor, and minMSF 1 - F1 / F0,
	// which v0.5.14's refusal of a kvRest not above 0 names (see
	// [noKVRestFrom]).
	kvRestBytes    int64
	kvRest, minMSF float64
	// mambaSize is a hybrid's max_mamba_cache_size: the Mamba pool's
	// charged slots (0 for any other model).
	mambaSize int64
	// mmReserve is the multimodal runtime reservation taken off the rest
	// before the pool is sized (see [mmReserveBytes]), within the budget.
	mmReserve  uint64
	maxRunning uint64
	failure    string
	stages     []refStage
}

// refStage is what the reference keeps per pipeline stage.
type refStage struct {
	sharding model.Sharding
	weights  []budget.Item
	loaded   uint64 // the weights' bytes, allocator slack included
	// cell is the KV bytes per token the pool is sized by: targetCell,
	// the stage's layers', and from v0.5.14 with a draft that scaled for
	// the draft's pool (see [specDraft.scaledCell]); held what a held
	// token takes of the budget: cell, less the part of the draft's share
	// a draft pool of a smaller dtype leaves free (see [specDraft.heldCell]).
	cell, targetCell, held uint64
	// profiled is the tokens the rest holds (profile_max_num_token),
	// before the cap, the page alignment and the stages' minimum.
	profiled   int64
	maxNumReqs uint64 // the req_to_token pool's rows
	// tokens is max_total_num_tokens: the pool's tokens (the full-layer
	// pool's under the sliding-window split); swaTokens the sliding-layer
	// pool's.
	tokens, swaTokens int64
	// capacity is the tokens running sequences may hold together: tokens,
	// or swaTokens under the split (every token of a running sequence is
	// in both pools, and the scheduler admits by the smaller:
	// managers/schedule_policy.py:381-401).
	capacity   uint64
	pageTokens uint64 // the pool's page: --page-size, 1 for the split pools
	// headroom is the pool's tokens beyond what the rest holds, which
	// speculative decoding's headroom adds (see [specDraft.headroom]).
	headroom    int64
	unallocated uint64
	kvNames     []string // the per-layer KV items' names
	beside      []budget.Item
	slack       uint64
}

// Ledger is the itemised footprint of s sequences of t tokens on one stage.
type Ledger struct {
	Items     []budget.Item
	Footprint budget.Footprint
}

// besideTerms is what SGLang allocates beside the static pool: activations,
// CUDA graphs, and under TermNonTorch distributed init's buffers, the
// req_to_token table and the KV tensors' padding rows.
var besideTerms = budget.TermSet(0).With(budget.TermActivation).With(budget.TermGraphPool).With(budget.TermNonTorch)

// NewReference resolves s for a on class c under profile p and lists what
// every stage holds.
func NewReference(a *model.Arch, s Serve, c budget.Class, p Profile) (*Reference, error) {
	r, err := Resolve(s, a, c, p)
	if err != nil {
		return nil, err
	}
	ref := &Reference{Arch: a, Serve: r, Class: c}
	for _, st := range r.Stages {
		st.TP, st.DtypeBytes, st.Quant = r.TPSize, r.DtypeBytes, r.Quant
		// From v0.5.14 the draft is loaded before the pool is sized, and
		// the target's cell scaled for the draft's pool (see
		// [specDraft.InFraction]).
		w := withAllocatorSlack(append(weightItems(a, r, st), r.Draft.loadItems()...))
		var loaded uint64
		for _, it := range w {
			loaded = budget.SatAdd(loaded, it.Bytes)
		}
		ref.loadedMax = max(ref.loadedMax, loaded)
		cell := stageCell(a, r, st)
		scaled := r.Draft.scaledCell(cell, st.EndLayer-st.FirstLayer)
		ref.stages = append(ref.stages, refStage{sharding: st, weights: w, loaded: loaded, targetCell: cell,
			cell: scaled, held: r.Draft.heldCell(cell, scaled), kvNames: ref.kvItemNames(st)})
	}
	ref.sizePool()
	for i := range ref.stages {
		ref.stages[i].beside = ref.besideItems(i)
		ref.stages[i].slack = ref.slackOf(i)
	}
	return ref, nil
}

// sizePool computes the KV pool as SGLang's profile_max_num_token and
// init_memory_pool do (v0.5.6.post2 model_runner.py:1363-1444, 1620-1748;
// v0.4.9.post2 :930-963, 999-1083), and what the scheduler derives from it
// (managers/tp_worker.py:290-313; v0.4.9.post2 :119-139).
func (ref *Reference) sizePool() {
	r := ref.Serve
	// F0 and F1 are free memory in bytes; with more than one rank each is
	// the minimum over the world group, taken through a float32 tensor
	// (utils/common.py:565-572), then divided into GiB.
	f0 := float64(r.F0Bytes)
	f1 := float64(budget.SatSub(r.F0Bytes, ref.loadedMax))
	if r.TPSize*r.PPSize > 1 {
		f0, f1 = float64(float32(f0)), float64(float32(f1))
	}
	ref.rest = f1/gib - f0/gib*(1-r.MemFractionStatic)
	// int(rest * 2^30 // cell): a float floor division, which for an
	// integer cell is the floor of the floor.
	ref.restBytes = int64(math.Floor(ref.rest * gib))
	ref.kvRestBytes, ref.kvRest, ref.minMSF = ref.restBytes, ref.rest, 1-f1/f0
	if ref.mmReserve = mmReserveBytes(ref.Arch, r.Profile); ref.mmReserve > 0 {
		// rest_memory = available - slack - mm_reservation_gb, in GiB,
		// before the Mamba split, the check of a rest not above 0 and
		// int(rest_memory x 2^30) (kv_cache_configurator.py:1785-1811 at
		// v0.5.18).
		ref.kvRest = ref.rest - float64(ref.mmReserve)/gib
		ref.kvRestBytes = int64(math.Floor(ref.kvRest * gib))
	}
	if m := r.Mamba; m != nil {
		// handle_max_mamba_cache takes the Mamba pool's slots out of the
		// rest before the KV pool is sized; the budget stays msf x F0. A
		// given --max-mamba-cache-size can take any amount: the floor is
		// kept within int64.
		ref.mambaSize, ref.kvRest = mambaSplit(m, ref.kvRest, r.MaxRunningRequests)
		ref.kvRestBytes = int64(max(math.Floor(ref.kvRest*gib), math.MinInt64))
	}
	switch {
	case ref.loadedMax > r.F0Bytes:
		// The weights do not fit the free memory at all (SGLang runs out
		// of memory loading them); F1 clamped at 0 would move the budget,
		// which stays msf x F0.
		ref.budget = uint64(math.Floor(f0 * r.MemFractionStatic))
	case ref.restBytes >= 0:
		ref.budget = budget.SatAdd(ref.loadedMax, uint64(ref.restBytes))
	default:
		ref.budget = budget.SatSub(ref.loadedMax, uint64(-ref.restBytes))
	}
	page := int64(r.PageSize)
	minTokens := int64(math.MaxInt64)
	for i := range ref.stages {
		st := &ref.stages[i]
		st.profiled = floorDiv(ref.kvRestBytes, int64(st.cell))
		st.maxNumReqs = r.MaxRunningRequests
		if st.maxNumReqs == 0 {
			// min(max(int(T / context_len * 512), 2048), 4096): sizes the
			// req_to_token pool, not concurrency by memory.
			st.maxNumReqs = reqPoolEstimate(st.profiled, r.ContextLength)
		}
		t := st.profiled
		if r.MaxTotalTokens > 0 {
			t = min(t, int64(r.MaxTotalTokens))
		}
		st.tokens = floorDiv(t, page) * page
		if h := r.Draft.headroom(st.maxNumReqs); h > 0 {
			// The headroom is added before --max-total-tokens and the page
			// alignment (model_runner.py:1693-1728 at v0.5.6.post2).
			t := st.profiled + h
			if r.MaxTotalTokens > 0 {
				t = min(t, int64(r.MaxTotalTokens))
			}
			grown := floorDiv(t, page) * page
			st.headroom, st.tokens = grown-max(st.tokens, 0), grown
		}
		minTokens = min(minTokens, st.tokens)
	}
	for i := range ref.stages {
		st := &ref.stages[i]
		if r.Profile.PPMin {
			st.tokens = minTokens
		}
		st.pageTokens = r.PageSize
		if r.HybridSWA {
			ref.splitSWA(st)
		}
		// The headroom's tokens are the draft's and the verify's, beside
		// the budget; the sequences' are what the rest holds.
		st.capacity = uint64(max(st.tokens-st.headroom, 0))
		if r.HybridSWA {
			st.capacity = uint64(max(st.swaTokens, 0))
		}
		st.unallocated = budget.SatSub(ref.budget, budget.SatAdd(budget.SatAdd(st.loaded, budget.SatMul(st.capacity, st.held)), budget.ItemBytes(ref.budgetHeld())))
	}
	ref.maxRunning = math.MaxUint64
	for i := range ref.stages {
		st := &ref.stages[i]
		var running uint64
		if r.MaxRunningRequests > 0 {
			running = r.MaxRunningRequests
		} else if st.tokens > 0 {
			running = uint64(st.tokens / 2)
		}
		if r.Profile.ReqPoolFromCapacity {
			// _resolve_max_num_reqs (v0.5.10 model_runner_kv_cache_mixin.py:
			// 840-857): the estimate from the final tokens, at most T // 2
			// when --max-running-requests is not given (running, above);
			// the req_to_token pool's rows and, by the min below,
			// max_running_requests (_init_pools, :387-389;
			// _apply_memory_pool_config).
			st.maxNumReqs = min(running, reqPoolEstimate(st.tokens, r.ContextLength))
			if r.MaxRunningRequests > 0 && r.Profile.ReqPoolGivenUncapped {
				// v0.5.14 (model_runner_kv_cache_mixin.py:987-991): a
				// --max-running-requests given is kept up to T // 2, the
				// estimate no longer its cap.
				st.maxNumReqs = min(r.MaxRunningRequests, uint64(max(st.tokens/2, 0)))
			}
		}
		if m := r.Mamba; m != nil {
			// _resolve_max_num_reqs caps the requests at the Mamba slots
			// over the ratio (model_runner_kv_cache_mixin.py:996-1001 at
			// v0.5.14).
			st.maxNumReqs = min(st.maxNumReqs, uint64(max(ref.mambaSize, 0))/m.Ratio)
		}
		ref.maxRunning = min(ref.maxRunning, running, st.maxNumReqs)
	}
	ref.failure = ref.startFailure()
}

// reqPoolEstimate is SGLang's estimate of the req_to_token pool's rows
// from t tokens of the pool: max(min(int(t / context_len x 512), 4096),
// 2048) (model_runner_kv_cache_mixin.py:843-845 at v0.5.10; init_memory_pool
// at v0.5.9 and before, from the profiled tokens).
func reqPoolEstimate(t int64, contextLen uint64) uint64 {
	n := int64(float64(t) / float64(contextLen) * 512)
	return uint64(min(max(n, 2048), 4096))
}

// splitSWA divides the profiled tokens between the full-layer and the
// sliding-layer pools (v0.5.6.post2 model_runner.py:1583-1598): every
// layer's share of T tokens, pooled, buys full tokens for the full layers
// and 0.8 x as many (--swa-full-tokens-ratio, server_args.py:300) for the
// sliding ones; neither is page-aligned.
func (ref *Reference) splitSWA(st *refStage) {
	const ratio = 0.8
	var nFull, nSWA int64
	for _, l := range ref.Arch.Layers {
		if l.Sliding() {
			nSWA++
		} else {
			nFull++
		}
	}
	total := st.tokens * int64(len(ref.Arch.Layers))
	full := int64(float64(total) / (ratio*float64(nSWA) + float64(nFull)))
	st.tokens, st.swaTokens = full, int64(float64(full)*ratio)
	st.pageTokens = 1
}

// startFailure is SGLang's error when the pool is too small to serve, or
// "" when it starts.
func (ref *Reference) startFailure() string {
	r := ref.Serve
	if ref.loadedMax > r.F0Bytes {
		return fmt.Sprintf("the weights (%d bytes on the heaviest rank) do not fit the %d bytes free after distributed init: loading runs out of memory", ref.loadedMax, r.F0Bytes)
	}
	if m := r.Mamba; m != nil {
		// handle_max_mamba_cache is given, and names, the rest less the
		// multimodal reservation (kv_cache_configurator.py:1789-1791,
		// 2116-2125 at v0.5.18).
		if f := mambaFailure(m, ref.mambaSize, ref.rest-float64(ref.mmReserve)/gib); f != "" {
			return f
		}
	}
	if ref.kvRest <= 0 && !older(r.Profile, noKVRestFrom) {
		// _profile_available_bytes (model_runner_kv_cache_mixin.py:
		// 102-117 at v0.5.14), after the Mamba pool's share.
		return fmt.Sprintf("Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=%v. Raise --mem-fraction-static above %.3f (minimum viable = 1 - available/pre = %.4f). If using speculative decoding, draft weights are now counted.",
			r.MemFractionStatic, math.Ceil(ref.minMSF*1000)/1000, ref.minMSF)
	}
	t := ref.stages[0].tokens
	for _, st := range ref.stages {
		t = min(t, st.tokens)
	}
	switch {
	case t <= 0:
		// model_runner.py:1744-1748 (v0.4.9.post2 :1080-1083).
		return fmt.Sprintf("Not enough memory. Please try to increase --mem-fraction-static. Current value: %v", r.MemFractionStatic)
	case r.Mamba != nil && ref.maxRunning == 0:
		// model_runner_kv_cache_mixin.py:1003-1011 at v0.5.14.
		return fmt.Sprintf("Hybrid (mamba/linear-attention) state cache is too small to serve any requests. max_mamba_cache_size=%d, mamba_ratio=%d, resulting max_num_reqs=0.", ref.mambaSize, r.Mamba.Ratio)
	case ref.maxRunning == 0:
		return "max_running_request is zero" // tp_worker.py:301
	case min(int64(r.ContextLength)-1, t-1)-5 <= 0:
		return "Memory pool size is too small" // tp_worker.py:311-313
	}
	return ""
}

// noKVRestFrom is the first release whose _profile_available_bytes
// refuses a rest not above 0, the weights (the draft's too, PR #28855,
// which added the check) and a hybrid's Mamba pool taken, before the pool
// is sized
// (model_runner_kv_cache_mixin.py:102-117 at v0.5.14; none at
// v0.5.13.post1, where the pool of no token fails instead).
const noKVRestFrom = "v0.5.14"

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// layerCell is one layer's KV bytes per token on one rank: K and V of the
// rank's KV heads (max(1, heads / tp), configs/model_config.py:504-511), or
// MLA's one latent of kv_lora_rank + qk_rope_head_dim on every rank
// (model_runner.py:1380-1419; v0.4.9.post2 :943-958).
func layerCell(a *model.Arch, r Resolved) uint64 {
	if a.MLA {
		return (a.KVLoraRank + a.QKRopeHeadDim) * r.KVDtypeBytes
	}
	return 2 * model.KVHeadsPerRank(a, r.TPSize) * a.HeadDim * r.KVDtypeBytes
}

// stageCell is the cell of a stage: every layer it holds
// (num_effective_layers = end_layer - start_layer, model_runner.py:458-460).
func stageCell(a *model.Arch, r Resolved, st model.Sharding) uint64 {
	// A hybrid's cell is its full-attention layers' only
	// (pool_configurator.py:115-127 at v0.5.14).
	return budget.SatMul(fullAttentionLayers(a, st.FirstLayer, st.EndLayer), layerCell(a, r))
}

// weightItems is the stage's tensors of its load as SGLang measures it
// (F0 - F1): the checkpoint's tensors as the model shards them (the
// attached checkpoint's when there is one), the rotary tables SGLang
// keeps in float32 and MLA's absorbed copies; [withAllocatorSlack] adds
// the caching allocator's segments around the load.
func weightItems(a *model.Arch, r Resolved, st model.Sharding) []budget.Item {
	items := append(model.RankWeights(withoutRotary(a), st), mxfp4Items(a, r, st)...)
	for i, tab := range rotaryTables(a) {
		// One cos/sin table per distinct rope, shared by every layer
		// (layers/rotary_embedding.py _ROPE_DICT); v0.5.6.post2 grows it
		// to the context length after loading, before F1 is measured.
		rows := tab.Rows
		if r.Profile.RopeReserve {
			rows = ropeReserveRows(rows, r.ContextLength)
		}
		items = append(items, budget.Item{Name: fmt.Sprintf("rotary_emb.%d.cos_sin_cache", i), Term: budget.TermWeights,
			Bytes: budget.SatMul(budget.SatMul(rows, tab.Dim), tab.ElemBytes)})
	}
	if a.MLA {
		// DeepseekV2AttentionMLA keeps kv_b_proj and, after loading, w_kc
		// and w_vc split from it, dequantized to bfloat16 for 128x128
		// block-fp8 checkpoints on CUDA (models/deepseek_v2.py:3362-3527
		// post_load_weights); counted in the model dtype.
		heads := a.Heads / r.TPSize
		for i := st.FirstLayer; i < st.EndLayer; i++ {
			p := fmt.Sprintf("model.layers.%d.self_attn.", i)
			items = append(items,
				budget.Item{Name: p + "w_kc", Term: budget.TermWeights, Bytes: budget.SatMul(heads*a.QKNopeHeadDim*a.KVLoraRank, r.DtypeBytes)},
				budget.Item{Name: p + "w_vc", Term: budget.TermWeights, Bytes: budget.SatMul(heads*a.KVLoraRank*a.VHeadDim, r.DtypeBytes)})
		}
	}
	return items
}

// withAllocatorSlack is load, a stage's tensors as loaded, and the caching
// allocator's segments around them (weights.allocator_slack), which free
// memory sees.
func withAllocatorSlack(load []budget.Item) []budget.Item {
	var pools torchalloc.Pools
	for _, it := range load {
		pools = pools.Add(it.Bytes, 1)
	}
	return append(load, budget.Item{Name: "weights.allocator_slack", Term: budget.TermWeights, Bytes: pools.Slack()})
}

// besideItems lists stage i's allocations beside the static pool.
func (ref *Reference) besideItems(i int) []budget.Item {
	a, r, st := ref.Arch, ref.Serve, &ref.stages[i]
	items := []budget.Item{{
		// The largest forward batch's activations: SGLang profiles none,
		// and its default msf reserves 1.5 MiB per chunked-prefill token
		// for them (server_args.py:851-855).
		Name: "activations", Term: budget.TermActivation,
		Bytes: budget.SatMul(model.ActivationBytesPerToken(a, r.TPSize, r.DtypeBytes), r.ActivationTokens),
	}}
	if bs := ref.largestGraph(i); bs > 0 {
		items = append(items, budget.Item{Name: "cuda_graphs", Term: budget.TermGraphPool, Bytes: budget.SatMul(bs, graphBytesPerBatch)})
	}
	items = append(items, ref.piecewiseItem()...)
	items = append(items,
		budget.Item{Name: "dist_init_buffers", Term: budget.TermNonTorch, Bytes: r.DistInitBytes},
		// (max_num_reqs, context_len + 4) int32 (model_runner.py:1750-1804,
		// mem_cache/memory_pool.py:73-96; v0.4.9.post2 :1085-1105), a row
		// more from v0.5.11 (see [Profile.ReqPadRow]). Speculative decoding
		// lengthens every row by the draft tokens (model_runner.py:1752-1755).
		budget.Item{Name: "req_to_token", Term: budget.TermNonTorch, Bytes: budget.SatMul(budget.SatMul(reqToTokenRows(st.maxNumReqs, r.Profile), r.ContextLength+4+r.Draft.reqExtra()), 4)},
	)
	items = append(items, ref.arFusionItem()...)
	items = append(items, ref.after0515Items(i)...)
	if st.tokens > 0 {
		// Every KV tensor has page_size rows beyond the pool's tokens, a
		// dummy slot for padded tokens (memory_pool.py:616-633, 1364-1372),
		// which the profile does not count.
		items = append(items, budget.Item{Name: "kv_cache.padding_rows", Term: budget.TermNonTorch, Bytes: budget.SatMul(st.pageTokens, st.targetCell)})
	}
	items = append(items, ref.mambaBeside(i)...)
	return append(items, ref.specItems(i)...)
}

// largestGraph is the largest decode batch captured in a CUDA graph on
// stage i, 0 when graphs are disabled.
func (ref *Reference) largestGraph(i int) uint64 {
	r := ref.Serve
	if r.DisableCudaGraph {
		return 0
	}
	bs := captureSizes(r.Profile, r.GPUMemMiB, r.CudaGraphMaxBS, ref.stages[i].maxNumReqs)
	if len(bs) == 0 {
		return 0
	}
	return bs[len(bs)-1]
}

// kvTensor is one KV tensor SGLang allocates: a layer's K or V (MHA) or
// latent (MLA), in the sliding-layer pool or not.
type kvTensor struct {
	budget.Item
	sliding bool
	value   bool // a V tensor
}

// kvTensors is the KV tensors stage i allocates: one K and one V per layer
// (MHA), one latent per layer (MLA), each of the pool's tokens plus the
// padding rows; none when SGLang does not get as far as the pool.
func (ref *Reference) kvTensors(i int) []kvTensor {
	a, r, st := ref.Arch, ref.Serve, &ref.stages[i]
	if st.tokens <= 0 {
		return nil
	}
	var out []kvTensor
	for l := st.sharding.FirstLayer; l < st.sharding.EndLayer; l++ {
		if a.Layers[l].Kind == model.LinearAttention {
			continue // HybridLinearKVPool keeps the full-attention layers' KV only
		}
		sliding := r.HybridSWA && a.Layers[l].Sliding()
		rows := uint64(max(st.tokens, 0))
		if sliding {
			rows = uint64(max(st.swaTokens, 0))
		}
		rows += st.pageTokens
		if a.MLA {
			out = append(out, kvTensor{Item: budget.Item{Name: fmt.Sprintf("kv_buffer.%d", l), Term: budget.TermKVCache, Bytes: budget.SatMul(rows, layerCell(a, r))}})
			continue
		}
		half := budget.SatMul(rows, layerCell(a, r)/2)
		out = append(out,
			kvTensor{Item: budget.Item{Name: fmt.Sprintf("k_buffer.%d", l), Term: budget.TermKVCache, Bytes: half}, sliding: sliding},
			kvTensor{Item: budget.Item{Name: fmt.Sprintf("v_buffer.%d", l), Term: budget.TermKVCache, Bytes: half}, sliding: sliding, value: true})
	}
	return out
}

// slackOf is the caching allocator's segment slack over what stage i
// allocates after the pool is sized: the KV tensors and the req_to_token
// table. The weights' slack is in their load.
func (ref *Reference) slackOf(i int) uint64 {
	tensors := ref.kvTensors(i)
	if len(tensors) == 0 {
		return 0
	}
	var pools torchalloc.Pools
	for _, it := range tensors {
		pools = pools.Add(it.Bytes, 1)
	}
	for _, it := range ref.stages[i].beside {
		if it.Name == "req_to_token" {
			pools = pools.Add(it.Bytes, 1)
		}
	}
	pools = ref.addMambaPools(pools, i)
	return ref.addSpecPools(pools, i).Slack()
}

// Stages is the number of pipeline stages.
func (ref *Reference) Stages() int { return len(ref.stages) }

// Budget is msf x F0 as SGLang computes it: what the weights and the KV
// pool may take on each GPU.
func (ref *Reference) Budget() uint64 { return ref.budget }

// MaxRunningRequests is the scheduler's max_running_requests: the fewest
// over the stages.
func (ref *Reference) MaxRunningRequests() uint64 { return ref.maxRunning }

// kvItems lists stage i's KV pool as s sequences of t tokens fill it, layer
// by layer: every layer holds every token of a running sequence, in whole
// pages.
func (ref *Reference) kvItems(i int, s, t uint64) []budget.Item {
	st := &ref.stages[i]
	held := budget.SatMul(s, budget.RoundUp(t, st.pageTokens))
	per := layerCell(ref.Arch, ref.Serve)
	if !ref.Arch.MLA {
		per /= 2 // K and V each
	}
	items := make([]budget.Item, len(st.kvNames))
	for j, name := range st.kvNames {
		items[j] = budget.Item{Name: name, Term: budget.TermKVCache, Bytes: budget.SatMul(held, per)}
	}
	if st.held > st.targetCell {
		// From v0.5.14 the draft's share of the scaled cell (see
		// [specDraft.InFraction]), at most what the draft's layers hold
		// (see [specDraft.heldCell]).
		items = append(items, budget.Item{Name: "spec_draft.kv_cache", Term: budget.TermKVCache, Bytes: budget.SatMul(held, st.held-st.targetCell)})
	}
	return items
}

// kvItemNames names stage i's per-layer KV items once.
func (ref *Reference) kvItemNames(st model.Sharding) []string {
	var names []string
	for l := st.FirstLayer; l < st.EndLayer; l++ {
		if ref.Arch.Layers[l].Kind == model.LinearAttention {
			continue
		}
		if ref.Arch.MLA {
			names = append(names, fmt.Sprintf("kv_cache.layers.%d.kv", l))
			continue
		}
		names = append(names, fmt.Sprintf("kv_cache.layers.%d.k", l), fmt.Sprintf("kv_cache.layers.%d.v", l))
	}
	return names
}

// budgetHeld is what the budget holds beside the weights and the KV
// pool's tokens, as the ledger lists it: a hybrid's Mamba pool (see
// [Reference.mambaBytes]) and, from v0.5.18, a multimodal model's runtime
// reservation (see [mmReserveBytes]); [Reference.Plan] charges the same as
// fixed terms, and the unallocated share is the budget less them.
func (ref *Reference) budgetHeld() []budget.Item {
	var items []budget.Item
	if ref.Serve.Mamba != nil {
		items = append(items, budget.Item{Name: "mamba_pool", Term: budget.TermKVCache, Bytes: ref.mambaBytes()})
	}
	if ref.mmReserve > 0 {
		items = append(items, budget.Item{Name: "multimodal_reservation", Term: budget.TermKVCache, Bytes: ref.mmReserve})
	}
	return items
}

// EvaluateStage lists stage i's allocations of s sequences of t tokens and
// returns them with the footprint: the ledger (weights, the sequences' KV
// and the static share the pool leaves unallocated), what stands beside the
// budget, the caching allocator's slack, the class's driver share, and
// whether it fits.
func (ref *Reference) EvaluateStage(i int, s, t uint64) Ledger {
	st := &ref.stages[i]
	items := make([]budget.Item, 0, len(st.weights)+len(st.kvNames)+1+len(st.beside))
	items = append(items, st.weights...)
	items = append(items, ref.kvItems(i, s, t)...)
	items = append(items, ref.budgetHeld()...)
	items = append(items, budget.Item{Name: "kv_cache.unallocated", Term: budget.TermKVCache, Bytes: st.unallocated})
	items = append(items, st.beside...)

	f := budget.Footprint{Seqs: s, Tokens: t, Budget: ref.budget, Device: ref.Class.Device.MemoryBytes,
		Ceiling: ref.Class.CeilingBytes(), Stage: i}
	for _, it := range items {
		f.Terms[it.Term] = budget.SatAdd(f.Terms[it.Term], it.Bytes)
		if besideTerms.Has(it.Term) {
			f.Beside = budget.SatAdd(f.Beside, it.Bytes)
		} else {
			f.Ledger = budget.SatAdd(f.Ledger, it.Bytes)
		}
	}
	f.Slack = st.slack
	f.DriverFixed = ref.Class.Memory.DriverFixedBytes
	f.DriverPerMille = ref.Class.Memory.PerMilleBytes(ref.budget)
	f.Failed = budget.Classify(f)
	return Ledger{Items: items, Footprint: f}
}

// Evaluate is the ledger of s sequences of t tokens on the stage that
// binds (see [budget.Tighter]).
func (ref *Reference) Evaluate(s, t uint64) Ledger {
	var worst Ledger
	for i := range ref.stages {
		l := ref.EvaluateStage(i, s, t)
		if i == 0 || budget.Tighter(l.Footprint, worst.Footprint) {
			worst = l
		}
	}
	return worst
}

// reqToTokenRows is the req_to_token table's rows for maxNumReqs requests:
// one more under [Profile.ReqPadRow], slot 0 kept as padding.
func reqToTokenRows(maxNumReqs uint64, p Profile) uint64 {
	if p.ReqPadRow {
		return budget.SatAdd(maxNumReqs, 1)
	}
	return maxNumReqs
}
