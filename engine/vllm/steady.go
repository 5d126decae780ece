package vllm

// The steady state beside the worst case. vLLM guarantees a concurrency by
// charging each sequence its worst case: in a sliding-window layer the
// window, the tokens of the batches in flight and a block more
// (SlidingWindowSpec.max_memory_usage_bytes); in a chunked-local layer the
// chunk and the tokens in flight. Once a sequence's prefill is done its
// manager frees every block the window or the chunk has passed
// (vllm/v1/core/single_type_kv_cache_manager.py, remove_skipped_blocks with
// SlidingWindowManager.get_num_skipped_tokens = num_computed_tokens -
// sliding_window + 1, ChunkedLocalAttentionManager's = the start of the
// current chunk; vLLM main at commit d18bb7b, 2026-08-14), so a decoding
// sequence holds far less than it is charged, and the pool holds more such
// sequences than vLLM guarantees.

import (
	"fmt"
	"io"

	"membudget/budget"
	"membudget/engine"
)

var _ engine.SteadyStater = (*Sizing)(nil)

// steadyPages is the blocks a decoding sequence of t tokens holds in a layer
// of spec s, with no batch in flight: every token's for full attention and
// MLA; for a sliding window the blocks that cover its last window - 1
// tokens and the next, at most cdiv(window - 1, block) + 1 (one more when
// the window does not start on a block), never more than its tokens'; for
// a chunk the current chunk's, at most cdiv(min(t, chunk), block); a state
// layer's state blocks.
func (s layerSpec) steadyPages(t uint64) uint64 {
	switch s.kind {
	case slidingSpec, dsv4SWASpec:
		if s.window == 0 {
			return budget.CeilDiv(t, s.block)
		}
		return min(budget.CeilDiv(t, s.block), budget.CeilDiv(s.window-1, s.block)+1)
	case chunkedSpec:
		return budget.CeilDiv(min(t, s.window), s.block)
	case mambaSpec:
		return s.statePages
	}
	return budget.CeilDiv(t, s.block)
}

// SteadyState returns the sequences of t tokens the serve's KV pool holds
// once their prefills are done (see [engine.Steady]), beside what vLLM
// guarantees; ok is false for a model without a sliding-window or
// chunked-local layer (the two are the same), and for a serve vLLM does not
// start.
func (sz *Sizing) SteadyState(t uint64) (engine.Steady, bool) {
	c := sz.capacity
	if !c.Starts || c.Blocks == 0 || len(sz.plan.Stages) == 0 {
		return engine.Steady{}, false
	}
	windowed := false
	var pages uint64
	for _, g := range sz.check.groups.groups {
		if g.spec.kind == slidingSpec || g.spec.kind == chunkedSpec || g.spec.kind == dsv4SWASpec {
			windowed = true
		}
		pages = budget.SatAdd(pages, g.spec.steadyPages(t))
	}
	if !windowed || pages == 0 {
		return engine.Steady{}, false
	}
	worst := sz.plan.Stages[0].Pool.PagesPerSeq(t)
	seqs := c.Blocks / pages
	st := engine.Steady{Tokens: t, Blocks: c.Blocks, PagesPerSeq: pages, GuaranteedPagesPerSeq: worst, Seqs: seqs}
	if seqs > sz.Serve.MaxNumSeqs {
		st.Seqs, st.Capped = sz.Serve.MaxNumSeqs, true
	}
	st.Charged = fmt.Sprintf("each holds %d block(s) (its last window in each sliding layer, its current chunk in each chunked layer, no batch in flight) where the guarantee charges %d (the window or chunk with %d tokens in flight)",
		pages, worst, sz.Serve.InFlightTokens)
	return st, true
}

// preallocated is what vLLM holds on the device once started: the whole
// KV pool (every stage allocates the same blocks), in place of the blocks
// of the sequences fp sizes. ok is false when vLLM does not start.
func (sz *Sizing) preallocated(fp budget.Footprint) (pool, total uint64, ok bool) {
	c := sz.capacity
	if !c.Starts || fp.Stage >= len(sz.plan.Stages) {
		return 0, 0, false
	}
	pool = budget.SatMul(c.Blocks, sz.plan.Stages[fp.Stage].Pool.BlockBytes())
	return pool, budget.SatAdd(budget.SatSub(fp.Total(), fp.Terms[budget.TermKVCache]), pool), true
}

// preallocatedJSON is the report's "preallocated": the whole KV pool vLLM
// allocates at startup, and the device's total with it.
type preallocatedJSON struct {
	Blocks       uint64 `json:"blocks"`
	KVPoolBytes  uint64 `json:"kv_pool_bytes"`
	TotalBytes   uint64 `json:"total_bytes"`
	SizedKVBytes uint64 `json:"sized_kv_bytes"`
}

// preallocatedField is the report's "preallocated" field at fp, or none
// when vLLM does not start.
func (sz *Sizing) preallocatedField(fp budget.Footprint) []engine.Field {
	pool, total, ok := sz.preallocated(fp)
	if !ok {
		return nil
	}
	return []engine.Field{{Key: "preallocated", Value: preallocatedJSON{Blocks: sz.capacity.Blocks, KVPoolBytes: pool, TotalBytes: total,
		SizedKVBytes: fp.Terms[budget.TermKVCache]}}}
}

// writePreallocated says what vLLM holds on the device once started, beside
// the footprint of the sized sequences.
func (sz *Sizing) writePreallocated(w io.Writer, fp budget.Footprint) {
	pool, total, ok := sz.preallocated(fp)
	if !ok {
		return
	}
	fmt.Fprintf(w, "  preallocated: vLLM allocates the whole KV pool at startup, %d blocks, %s (the footprint charges the sized sequences' %s);\n",
		sz.capacity.Blocks, engine.GiB(pool), engine.GiB(fp.Terms[budget.TermKVCache]))
	fmt.Fprintf(w, "    once started, the device holds %s with it (the total above is these sequences' alone)\n", engine.GiB(total))
}
