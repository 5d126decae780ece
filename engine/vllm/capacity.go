package vllm

import (
	"fmt"
	"math"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// Capacity is what vLLM's startup reports about the KV cache of a serve:
// the available memory, the blocks it holds, the tokens, the maximum
// concurrency at max_model_len, and whether one request of max_model_len
// fits (vllm/v1/core/kv_cache_utils.py: get_num_blocks,
// _report_kv_cache_config, get_max_concurrency_for_kv_cache_config,
// _check_enough_kv_cache_memory). With pipeline parallelism every figure is
// the binding stage's: vLLM gives every stage the smallest block count.
type Capacity struct {
	// AvailableBytes is the available KV cache memory of the stage with the
	// fewest blocks (vLLM: available_kv_cache_memory).
	AvailableBytes uint64
	// BlockBytes is one block in every tensor of that stage.
	BlockBytes uint64
	// Blocks is the blocks every stage allocates (vLLM: num_gpu_blocks).
	Blocks uint64
	// Tokens is the tokens the blocks hold when every KV cache group keeps
	// every token: blocks / groups x block size.
	Tokens uint64
	// LoggedTokens is "GPU KV cache size" as the profile's vLLM logs it:
	// int(max_concurrency x max_model_len) on main, Tokens before.
	LoggedTokens uint64
	// PagesPerSeq is the blocks one request of max_model_len needs.
	PagesPerSeq uint64
	// Concurrency is "Maximum concurrency for max_model_len tokens per
	// request": Blocks / PagesPerSeq.
	Concurrency float64
	// NeededBytes is the KV memory one request of max_model_len needs on
	// the stage of AvailableBytes.
	NeededBytes uint64
	// StartMargin is how much the available KV memory of the stage with
	// the least of it to spare can shrink before vLLM refuses the serve:
	// its available memory less what one request of max_model_len needs
	// (_check_enough_kv_cache_memory, every stage), and, for a model vLLM
	// checks Mamba cache blocks for, less max_num_seqs blocks
	// (vllm/config/compilation.py:1491-1513; a stage's blocks are its
	// available memory over its block). The least over the stages, which
	// under pipeline parallelism need not be the binding stage's.
	StartMargin uint64
	// Starts says vLLM starts: one request of max_model_len fits every
	// stage's available memory.
	Starts bool
	// EstimatedMaxModelLen is the longest length whose one request fits
	// (vLLM's estimate in the error when it does not start: the first stage
	// that does not start raises it; 0 when not even one token fits).
	EstimatedMaxModelLen uint64
	// LongestStarting is a max_model_len vLLM starts: the least of the
	// failing stages' estimates (with pipeline parallelism vLLM's estimate
	// is the first failing stage's, and a later stage may hold less: a
	// stage of local-attention layers, say), checked by a [Sizing] on the
	// serve at that length (see longestStarting); 0 when none starts.
	LongestStarting uint64
	// StateBlocks is vLLM's "available Mamba cache blocks" for a model with
	// state layers captured in full CUDA graphs: the blocks of the pool,
	// one of which every decode sequence needs (0 when vLLM does not check
	// it; see [Resolved.StateBlockCheck]).
	StateBlocks uint64
	// SeqsOverStateBlocks says vLLM refuses to start because max_num_seqs
	// exceeds StateBlocks (vllm/config/compilation.py:1491-1513;
	// [StateBlocksMessage] is its error). Starts still says whether one
	// request of max_model_len fits: vLLM checks that first.
	SeqsOverStateBlocks bool
	// StatePadding is the bytes each state page is padded by to the
	// attention page (vLLM: "Padding mamba page size by x%").
	StatePadding uint64
	// Requested is the memory vLLM requests at startup, total x util
	// rounded as the profile rounds it; FreeAtStartup the free memory its
	// startup snapshot reads: the device less what is held before it (the
	// class's driver_fixed_bytes and tensor parallelism's setup). On a
	// unified-memory device that is the host's MemAvailable. Both are 0 for
	// the V0 engine, which has no such check.
	Requested, FreeAtStartup uint64
	// DeviceBytes is the device total the check reads (0 for V0).
	DeviceBytes uint64
	// OverFree says vLLM refuses at startup, before any profile, because
	// Requested exceeds FreeAtStartup (see [startupCheck]).
	OverFree bool
	// Unified says the device is a unified-memory one, where the refusal
	// reads the host's available memory.
	Unified bool
	// Util is the --gpu-memory-utilization the check requests (0 for V0).
	Util float64
	// HostBound is, on a unified device, the most the host may hold at
	// vLLM's snapshot for the request to pass: DeviceBytes - Requested. The
	// class's driver_fixed_bytes is one host's holding (a stock image's);
	// a lighter host passes a util that one refuses. 0 off unified memory.
	HostBound uint64
	// StartsOnLighterHost says the startup check alone refuses, on a
	// unified device: a host holding at most HostBound at the snapshot
	// passes it, and every later check passes too (one request of
	// max_model_len fits, and the state blocks hold max_num_seqs).
	StartsOnLighterHost bool
	// UtilReached and ReachedHeld are the class's util_reached and the
	// most the host held there ([budget.DriverTerms.ReachedHeldBytes]),
	// set where the startup check refuses a util at most util_reached: a
	// device of the class started at it, on a lighter host.
	UtilReached float64
	ReachedHeld uint64
}

// Refusal is why the profile's vLLM refuses to start a serve of this
// capacity, "" when it starts: one request of maxModelLen tokens must fit
// every stage's KV cache (_check_enough_kv_cache_memory), and for a model
// with state layers in full CUDA graphs maxNumSeqs must not exceed the
// Mamba cache blocks. vLLM checks the length first.
func (c Capacity) Refusal(maxModelLen, maxNumSeqs uint64) string {
	switch {
	case c.OverFree:
		return c.freeRefusal()
	case !c.Starts && c.AvailableBytes == 0:
		// _check_enough_kv_cache_memory: "No available memory for the cache
		// blocks" when the rest of the ledger takes the whole budget.
		return "no memory is left for the KV cache: the rest of the ledger takes the whole budget (vLLM: \"No available memory for the cache blocks\")"
	case !c.Starts:
		why := fmt.Sprintf("one request of %d tokens needs %.2f GiB of KV cache, more than the %.2f GiB available",
			maxModelLen, float64(c.NeededBytes)/(1<<30), float64(c.AvailableBytes)/(1<<30))
		if c.EstimatedMaxModelLen == 0 {
			return why + ", where not one block of one request fits"
		}
		if c.LongestStarting == 0 {
			return fmt.Sprintf("%s; its estimated maximum model length is %d, but no shorter length starts either (a later pipeline stage, or the batch the length sizes, holds less)", why, c.EstimatedMaxModelLen)
		}
		if c.LongestStarting < c.EstimatedMaxModelLen {
			return fmt.Sprintf("%s; its estimated maximum model length is %d, but at that length a later pipeline stage, or the batch the length sizes, holds less: --max-model-len %d or less starts", why, c.EstimatedMaxModelLen, c.LongestStarting)
		}
		return fmt.Sprintf("%s; its estimated maximum model length is %d: --max-model-len %d or less starts", why, c.EstimatedMaxModelLen, c.LongestStarting)
	case c.SeqsOverStateBlocks:
		return StateBlocksMessage(maxNumSeqs, c.StateBlocks)
	}
	return ""
}

// Capacity is the serve's KV capacity as the profile's vLLM reports it for
// its max_model_len.
func (ref *Reference) Capacity() Capacity {
	return ref.check().capacity(ref.Plan())
}

// kvCheck is what vLLM's startup check and its capacity figures read of a
// serve beyond its plan: the resolved serve, its KV cache groups and each
// stage's sharding (the layers it holds).
type kvCheck struct {
	r         Resolved
	groups    kvLayout
	shardings []model.Sharding
}

// check is the reference's kvCheck.
func (ref *Reference) check() kvCheck {
	k := kvCheck{r: ref.Serve, groups: ref.groups}
	for _, st := range ref.stages {
		k.shardings = append(k.shardings, st.sharding)
	}
	return k
}

// capacity is the capacity of the serve whose plan is p.
func (k kvCheck) capacity(p *budget.Plan) Capacity {
	r := &k.r
	prof := r.Profile
	maxLen := r.MaxModelLen
	c := Capacity{Starts: true, EstimatedMaxModelLen: maxLen}
	have, stateCheck := false, r.StateBlockCheck()
	for i := range p.Stages {
		pool := p.Stages[i].Pool
		avail := p.PoolBudget(i)
		block := pool.BlockBytes()
		if block == 0 {
			continue
		}
		blocks := avail / block
		need := k.neededBytes(i, pool, maxLen)
		margin := budget.SatSub(avail, need)
		if stateCheck {
			margin = min(margin, budget.SatSub(avail, budget.SatMul(r.MaxNumSeqs, block)))
		}
		if !have || blocks < c.Blocks {
			c.Blocks, c.AvailableBytes, c.BlockBytes, c.NeededBytes = blocks, avail, block, need
		}
		if !have || margin < c.StartMargin {
			c.StartMargin = margin
		}
		have = true
		// vllm/v1/core/kv_cache_utils.py _check_enough_kv_cache_memory, on
		// every worker: no memory at all, or less than one request of
		// max_model_len needs, stops the engine.
		if (avail == 0 || need > avail) && c.Starts {
			// Workers are checked in rank order; the first that fails
			// raises (get_kv_cache_configs, vllm/v1/core/kv_cache_utils.py:
			// 2190-2198).
			c.Starts = false
			c.EstimatedMaxModelLen = k.estimateMaxModelLen(i, pool, avail, maxLen)
			c.LongestStarting = c.EstimatedMaxModelLen
		} else if avail == 0 || need > avail {
			c.LongestStarting = min(c.LongestStarting, k.estimateMaxModelLen(i, pool, avail, maxLen))
		}
	}
	startupCheck(&c, r, p)
	if stateCheck {
		c.StateBlocks = c.Blocks
		c.SeqsOverStateBlocks = r.MaxNumSeqs > c.Blocks
		// A lighter host passes the startup check, not this one.
		c.StartsOnLighterHost = c.StartsOnLighterHost && !c.SeqsOverStateBlocks
	}
	if r.StatePagePadded > 0 {
		c.StatePadding = r.StatePagePadded - r.StatePageBytes
	}
	if len(p.Stages) == 0 || len(p.Stages[0].Pool.Groups) == 0 {
		return c
	}
	groups, blockSize := groupCount(p.Stages[0].Pool)
	c.PagesPerSeq = budget.SatAdd(p.Stages[0].Pool.PagesPerSeq(maxLen), k.startupCrossPages())
	if c.PagesPerSeq > 0 {
		c.Concurrency = float64(c.Blocks) / float64(c.PagesPerSeq)
	}
	if groups > 0 {
		c.Tokens = budget.SatMul(c.Blocks/groups, blockSize)
	}
	c.LoggedTokens = c.Tokens
	switch {
	case prof.Era == V0:
		// vllm/executor/executor_base.py initialize_cache: "# GPU blocks"
		// holds blocks x block_size tokens, and the concurrency divides
		// them by max_model_len.
		c.Tokens = budget.SatMul(c.Blocks, blockSize)
		c.LoggedTokens = c.Tokens
		if maxLen > 0 {
			c.Concurrency = float64(c.Tokens) / float64(maxLen)
		}
	case prof.LoggedTokensFromConcurrency:
		c.LoggedTokens = uint64(math.Floor(c.Concurrency * float64(maxLen)))
	}
	return c
}

// neededBytes is the KV memory one request of length l needs on stage i,
// by the formula of the profile's startup check: every group's blocks
// times the group size (0.19 and later), the first group's alone (0.14 to
// 0.18), or each layer's own (V1 up to 0.13, and V0's blocks x block size
// over every layer).
func (k *kvCheck) neededBytes(i int, pool budget.PagedPool, l uint64) uint64 {
	if k.groups.packed {
		// DeepSeek-V4 (kvdsv4.go): every group's pages at the check's block.
		return budget.SatMul(pool.PagesPerSeq(l), k.groups.checkBlock)
	}
	switch k.r.Profile.Check {
	case CheckGroups:
		return budget.SatAdd(pool.Bytes(1, l), budget.SatMul(k.startupCrossPages(), pool.BlockBytes()))
	case CheckFirstGroup:
		// The pool's groups are in vLLM's order: the first is its first
		// group's kind.
		first := pool.Groups[0]
		first.Count = 1
		return budget.SatMul(first.Pages(l), pool.BlockBytes())
	}
	return layersNeed(k.groups, &k.r, k.shardings[i], l)
}

// estimateMaxModelLen is vLLM's estimate of the longest length whose one
// request fits avail bytes on stage i (_estimate_max_model_len_from_groups:
// a bisection in [1, maxLen] over the check's formula); 0 when not even one
// token fits.
func (k *kvCheck) estimateMaxModelLen(i int, pool budget.PagedPool, avail, maxLen uint64) uint64 {
	if maxLen == 0 {
		return 0
	}
	l, ok, _ := budget.LargestFitting(1, maxLen, func(t uint64) (bool, error) {
		return k.neededBytes(i, pool, t) <= avail, nil
	})
	if !ok {
		return 0
	}
	return l
}

// groupCount is the number of KV cache groups of a pool and the smallest
// block size among them (vLLM before 0.21: "num_blocks //
// len(kv_cache_groups) x min block_size"; a state group's block is
// mamba_block_size).
func groupCount(pool budget.PagedPool) (groups, blockSize uint64) {
	for _, g := range pool.Groups {
		groups = budget.SatAdd(groups, g.Count)
		if blockSize == 0 || g.PageTokens < blockSize {
			blockSize = g.PageTokens
		}
	}
	return groups, blockSize
}

// startupCheck is vLLM's first check of memory, at worker start before it
// loads anything: the memory it requests, ceil(total x util) on main, must
// not exceed the free memory of its startup snapshot, or it raises "Free
// memory on device ... on startup is less than desired GPU memory
// utilization" (request_memory, vllm/v1/worker/utils.py:444-463 at commit
// d18bb7b, called from init_device, vllm/v1/worker/gpu_worker.py:391-396,
// after NCCL is set up). The snapshot's free memory is the driver's
// (cudaMemGetInfo) on a discrete device, and on an integrated one the
// host's available memory, psutil's virtual_memory().available, which is
// /proc/meminfo's MemAvailable: free pages and the reclaimable page cache,
// less the kernel's low watermarks that min_free_kbytes sets
// (vllm/utils/mem_utils.py:147-155, MemorySnapshot.measure). Either way it
// is the device less what is held before the snapshot: the class's
// driver_fixed_bytes (on a unified class, what the operating system and
// services hold, caches dropped) and tensor parallelism's setup, which
// the plan's driver terms carry. The V0 engine has no such check.
func startupCheck(c *Capacity, r *Resolved, p *budget.Plan) {
	if r.Profile.Era == V0 {
		return
	}
	req, err := budget.UtilBudget(p.Device, r.GPUMemoryUtilization, r.Profile.Rounding)
	if err != nil {
		return // Resolve refuses such a util first
	}
	c.Requested, c.FreeAtStartup, c.DeviceBytes, c.Unified = req, budget.SatSub(p.Device, p.Driver.DriverFixedBytes), p.Device, p.Driver.Unified
	c.Util = r.GPUMemoryUtilization
	if c.Unified {
		c.HostBound = budget.SatSub(p.Device, req)
	}
	if c.Requested > c.FreeAtStartup {
		// On unified memory what is held is the host's, which differs
		// from one install to the next: the rest of the verdict is kept
		// for a host light enough (the state-block check is the one the
		// capacity still has to make; the caller does it after this).
		c.StartsOnLighterHost = c.Unified && c.Starts && c.HostBound > 0
		c.withinReached(p.Driver, p.Device)
		c.OverFree, c.Starts, c.LongestStarting = true, false, 0
	}
}

// withinReached sets UtilReached and ReachedHeld where c's util, which
// the startup check refuses on a unified device, is at most the class's
// util_reached (d's): a device of the class started there on a lighter
// host. startupCheck and the budget query's refusal both take it, so that
// their lighterHost words rest on the one rule.
func (c *Capacity) withinReached(d budget.DriverTerms, deviceBytes uint64) {
	if c.Unified && d.WithinReached(c.Util) {
		c.UtilReached, c.ReachedHeld = d.UtilReached, d.ReachedHeldBytes(deviceBytes)
	}
}

// freeRefusal says why vLLM refuses a util its startup snapshot cannot
// grant, in its own words, with the largest util (to the hundredth) that
// it grants.
func (c Capacity) freeRefusal() string {
	gib := func(b uint64) float64 { return float64(b) / (1 << 30) }
	held := budget.SatSub(c.DeviceBytes, c.FreeAtStartup)
	where := "held before vLLM's snapshot (the driver's context, and NCCL's setup under tensor parallelism)"
	if c.Unified {
		where = "held by the host in the same unified pool before vLLM starts (the operating system, its services and the kernel's min_free_kbytes reserve: vLLM reads the host's MemAvailable there, where the page cache counts as free)"
	}
	msg := fmt.Sprintf("the util asks for %.2f GiB but the device has %.2f of %.2f GiB free when vLLM starts, %.2f GiB being %s (vLLM: \"Free memory on device (%.2f/%.2f GiB) on startup is less than desired GPU memory utilization\")",
		gib(c.Requested), gib(c.FreeAtStartup), gib(c.DeviceBytes), gib(held), where, gib(c.FreeAtStartup), gib(c.DeviceBytes))
	if u := grantedUtil(c.DeviceBytes, c.FreeAtStartup); u > 0 {
		msg += fmt.Sprintf(": --gpu-memory-utilization %.2f or less passes it", u)
	}
	return msg + c.lighterHost()
}

// lighterHost is what freeRefusal adds on a unified device: the host the
// util needs, and whether a device of the class is known to have started
// at it on such a host (util_reached). The class's host stays the one the
// verdict is for: vLLM refuses there.
func (c Capacity) lighterHost() string {
	if !c.Unified || c.HostBound == 0 {
		return ""
	}
	need := fmt.Sprintf("vLLM starts util %v where the host holds at most %s at its snapshot (MemAvailable at least the %s requested)", c.Util, engine.GiB(c.HostBound), engine.GiB(c.Requested))
	if c.UtilReached > 0 {
		return fmt.Sprintf("; above the evidence of this class's host, within what a lighter host reached (util_reached %v, on a host that held at most %s; the class's provenance names the log): %s, and `membudget explain --calibrate` on a startup log of such a host makes a class of it",
			c.UtilReached, engine.GiB(c.ReachedHeld), need)
	}
	return fmt.Sprintf("; %s, and no log the class cites shows a host that light", need)
}

// grantedUtil is the largest util, to the hundredth, whose request (either
// rounding) is within free of total: floor(100 x free / total) / 100,
// lowered while ceil(total x u) exceeds free.
func grantedUtil(total, free uint64) float64 {
	if total == 0 {
		return 0
	}
	for h := min(100, free*100/total); h > 0; h-- {
		u := float64(h) / 100
		if b, err := budget.UtilBudget(total, u, budget.Ceil); err == nil && b <= free {
			return u
		}
	}
	return 0
}
