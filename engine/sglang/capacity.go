package sglang

import "fmt"

// Capacity is what SGLang's startup reports of its memory pool, and the
// figures it derives them from. With pipeline parallelism the pool's
// figures are the first stage's (rank TP0's log lines); every stage holds
// the same token count from v0.5.6.post2 on.
type Capacity struct {
	// GPUMemMiB is the device memory the defaults read (see [GPUMemMiB]).
	GPUMemMiB float64
	// MemFractionStatic is the fraction applied, after SGLang's
	// adjustments.
	MemFractionStatic float64
	// F0Bytes is the free memory after distributed init (as modelled:
	// memory_bytes less the class's driver_fixed_bytes and the
	// distributed-init estimate); LoadedBytes what loading took on the
	// heaviest rank (F0 - F1).
	F0Bytes, LoadedBytes uint64
	// Rest is rest_memory in GiB, F1 - F0 x (1 - msf), as SGLang computes
	// it in float64; RestBytes its floor in bytes.
	Rest      float64
	RestBytes int64
	// CellBytes is the KV bytes per token of the first stage's layers.
	CellBytes uint64
	// ProfiledTokens is what the rest holds, before --max-total-tokens,
	// the page alignment and the stages' minimum.
	ProfiledTokens int64
	// MaxTotalNumTokens is max_total_num_tokens as SGLang logs it: the
	// pool's tokens ("#tokens"); under the sliding-window split the
	// full-layer pool's. SWATokens is the sliding-layer pool's (0 without
	// the split).
	MaxTotalNumTokens, SWATokens int64
	// HybridSWA says the pool is split.
	HybridSWA bool
	// MLA says the pool holds one latent per layer ("KV size").
	MLA bool
	// KBytes and VBytes are the "K size" and "V size" SGLang logs: every
	// layer's tensor of max_total_num_tokens + page_size rows (MLA: the
	// latent tensors in KBytes, VBytes 0). Under the split SWAKBytes and
	// SWAVBytes are the sliding-layer pool's.
	KBytes, VBytes, SWAKBytes, SWAVBytes uint64
	// DraftKBytes and DraftVBytes are the speculative draft's pool, as its
	// worker logs it (MLA: the latent in DraftKBytes); Draft says there is
	// one and DraftMLA that it holds latents.
	DraftKBytes, DraftVBytes uint64
	Draft, DraftMLA          bool
	// MambaSize is a hybrid's max_mamba_cache_size, MambaConvBytes and
	// MambaSSMBytes its pool's convolution and temporal state tensors as
	// MambaPool logs them (size + 1 slots); 0 for any other model.
	MambaSize                     int64
	MambaConvBytes, MambaSSMBytes uint64
	// MambaPerReq is a hybrid's mamba_cache_per_req (0 for any other
	// model), and KVRestBytes the rest left for the KV pool after its
	// Mamba pool and the multimodal reservation (RestBytes otherwise).
	MambaPerReq uint64
	KVRestBytes int64
	// MMReserveBytes is the multimodal runtime reservation taken off the
	// rest before the pool (v0.5.18 on; see [mmReserveBytes]), 0 without.
	MMReserveBytes uint64
	// PageSize is the pool's page in tokens.
	PageSize uint64
	// MaxNumReqs is the req_to_token pool's rows.
	MaxNumReqs uint64
	// MaxRunningRequests is the scheduler's max_running_requests.
	MaxRunningRequests uint64
	// MaxReqLen is min(context_len - 1, max_total_num_tokens - 1), and
	// MaxReqInputLen 5 less.
	MaxReqLen, MaxReqInputLen int64
	ContextLen                uint64
	ChunkedPrefillSize        int64
	MaxPrefillTokens          uint64
	// Starts says SGLang starts; Failure is its error when not.
	Starts  bool
	Failure string
	// Caveat is, where SGLang starts, what may still stop it serving that
	// membudget does not size, as a clause beginning "but" ("" for none;
	// see [Reference.logitsRendezvousCaveat]).
	Caveat string
}

// Capacity is the server's pool as the profile's SGLang sizes and logs it.
func (ref *Reference) Capacity() Capacity {
	r := ref.Serve
	st := &ref.stages[0]
	c := Capacity{
		GPUMemMiB: r.GPUMemMiB, MemFractionStatic: r.MemFractionStatic,
		F0Bytes: r.F0Bytes, LoadedBytes: ref.loadedMax, Rest: ref.rest, RestBytes: ref.restBytes,
		CellBytes: st.cell, ProfiledTokens: st.profiled, MaxTotalNumTokens: st.tokens,
		HybridSWA: r.HybridSWA, MLA: ref.Arch.MLA, PageSize: st.pageTokens,
		MaxNumReqs: st.maxNumReqs, MaxRunningRequests: ref.maxRunning,
		ContextLen: r.ContextLength, ChunkedPrefillSize: r.ChunkedPrefillSize, MaxPrefillTokens: r.MaxPrefillTokens,
		Failure: ref.failure, Starts: ref.failure == "",
	}
	if c.Starts {
		c.Caveat = ref.logitsRendezvousCaveat()
	}
	if r.HybridSWA {
		c.SWATokens = st.swaTokens
	}
	c.KVRestBytes, c.MMReserveBytes = ref.kvRestBytes, ref.mmReserve
	if r.Mamba != nil {
		c.MambaPerReq = r.Mamba.PerReq()
	}
	if r.Mamba != nil && ref.mambaSize > 0 {
		c.MambaSize = ref.mambaSize
		c.MambaConvBytes, c.MambaSSMBytes = r.Mamba.tensorBytes(ref.mambaSize)
	}
	if r.Draft != nil {
		c.Draft, c.DraftMLA = true, r.Draft.MLA
		c.DraftKBytes, c.DraftVBytes = ref.draftKV()
	}
	c.MaxReqLen = min(int64(r.ContextLength)-1, c.MaxTotalNumTokens-1)
	c.MaxReqInputLen = c.MaxReqLen - 5
	for _, t := range ref.kvTensors(0) {
		switch {
		case t.sliding && t.value:
			c.SWAVBytes += t.Bytes
		case t.sliding:
			c.SWAKBytes += t.Bytes
		case t.value:
			c.VBytes += t.Bytes
		default:
			c.KBytes += t.Bytes
		}
	}
	return c
}

// LogLines is what SGLang logs of the pool, in its words and formats
// (mem_cache/memory_pool.py:476-484 and model_runner.py:1600-1602 at
// v0.5.6.post2; memory_pool.py:226-228 at v0.4.9.post2; "GB" is GiB,
// memory_pool.py:62), and the scheduler's line (managers/scheduler.py:
// 421-428) without its available_gpu_mem, which membudget does not model;
// nothing when SGLang does not start.
func (c Capacity) LogLines() []string {
	if !c.Starts {
		return nil
	}
	var lines []string
	gb := func(b uint64) float64 { return float64(b) / gib }
	if c.MambaSize > 0 {
		// HybridReqToTokenPool's MambaPool, allocated before the KV pool
		// (mem_cache/memory_pool.py:513-519 at v0.5.14).
		lines = append(lines, fmt.Sprintf("Mamba Cache is allocated. max_mamba_cache_size: %d, conv_state size: %.2fGB, ssm_state size: %.2fGB ", c.MambaSize, gb(c.MambaConvBytes), gb(c.MambaSSMBytes)))
	}
	switch {
	case c.MLA:
		lines = append(lines, fmt.Sprintf("KV Cache is allocated. #tokens: %d, KV size: %.2f GB", c.MaxTotalNumTokens, gb(c.KBytes)))
	case c.HybridSWA:
		lines = append(lines,
			fmt.Sprintf("Use Sliding window memory pool. full_layer_tokens=%d, swa_layer_tokens=%d", c.MaxTotalNumTokens, c.SWATokens),
			fmt.Sprintf("KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB", c.SWATokens, gb(c.SWAKBytes), gb(c.SWAVBytes)),
			fmt.Sprintf("KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB", c.MaxTotalNumTokens, gb(c.KBytes), gb(c.VBytes)))
	default:
		lines = append(lines, fmt.Sprintf("KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB", c.MaxTotalNumTokens, gb(c.KBytes), gb(c.VBytes)))
	}
	// The draft's worker allocates its pool of the same token count after
	// the target's, and its pool logs the same line (speculative/
	// eagle_worker.py:137-151).
	switch {
	case c.Draft && c.DraftMLA:
		lines = append(lines, fmt.Sprintf("KV Cache is allocated. #tokens: %d, KV size: %.2f GB", c.MaxTotalNumTokens, gb(c.DraftKBytes)))
	case c.Draft:
		lines = append(lines, fmt.Sprintf("KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB", c.MaxTotalNumTokens, gb(c.DraftKBytes), gb(c.DraftVBytes)))
	}
	return append(lines, fmt.Sprintf("max_total_num_tokens=%d, chunked_prefill_size=%d, max_prefill_tokens=%d, max_running_requests=%d, context_len=%d",
		c.MaxTotalNumTokens, c.ChunkedPrefillSize, c.MaxPrefillTokens, c.MaxRunningRequests, c.ContextLen))
}
