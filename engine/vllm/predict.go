package vllm

import "membudget/budget"

// Predicted is every figure a vLLM startup log states about memory, as the
// profile's vLLM would log it for one serve on the first pipeline stage's
// GPU (the worker whose lines a log shows first): what `membudget explain`
// sets beside a real log.
type Predicted struct {
	// RequestedBytes is total x --gpu-memory-utilization as the profile
	// rounds it ("Requested memory", "total_gpu_memory x
	// gpu_memory_utilization"); with --kv-cache-memory-bytes, the rest of
	// the ledger plus those bytes.
	RequestedBytes uint64
	// WeightsBytes is "Model loading took" ("Loading model weights took" on
	// V0): the stage's parameters and buffers.
	WeightsBytes uint64
	// ActivationPeakBytes is the profile run's torch peak beyond the weights
	// ("torch peak memory increase", V0's "PyTorch activation peak memory").
	ActivationPeakBytes uint64
	// NonTorchBytes is the profile run's non-torch growth ("non-torch
	// forward increase memory", V0's "non_torch_memory").
	NonTorchBytes uint64
	// GraphBytes is the CUDA-graph pool: vLLM's estimate where the profile
	// logs one ("Estimated CUDA graph memory", 0.18.0 and later), else what
	// capture takes ("Graph capturing finished ... took").
	GraphBytes uint64
	// GraphsCharged says the graph estimate comes off the KV budget.
	GraphsCharged bool
	// AvailableKVBytes is "Available KV cache memory" of the first stage's
	// GPU: its budget less the rest of its ledger. Capacity's
	// AvailableBytes is the binding stage's, which differs under pipeline
	// parallelism.
	AvailableKVBytes uint64
	// Capacity is the KV figures: available memory, blocks, logged tokens,
	// maximum concurrency, and whether one request of max_model_len fits.
	Capacity Capacity
}

// Predict returns what the profile's vLLM would log for ref's serve.
func (ref *Reference) Predict() Predicted {
	l := ref.EvaluateStage(0, 0, 0)
	if _, ok := ref.overrideKV(0); ok {
		// vLLM profiles against the util budget and logs what it leaves;
		// the override sets the blocks after (kv_cache_utils.py:2162-2182).
		p := ref.predict(l)
		p.RequestedBytes = ref.requested
		p.AvailableKVBytes = budget.SatSub(ref.requested, ref.fixedLedger(0))
		return p
	}
	return ref.predict(l)
}

// predict is Predict's figures from stage 0's ledger l.
func (ref *Reference) predict(l Ledger) Predicted {
	t := l.Footprint.Terms
	return Predicted{
		RequestedBytes:      ref.Budget(0),
		WeightsBytes:        t[budget.TermWeights],
		ActivationPeakBytes: budget.SatAdd(t[budget.TermActivation], t[budget.TermSampler]),
		NonTorchBytes:       t[budget.TermNonTorch],
		GraphBytes:          t[budget.TermGraphPool],
		GraphsCharged:       !ref.beside().Has(budget.TermGraphPool),
		AvailableKVBytes:    ref.AvailableKV(0),
		Capacity:            ref.Capacity(),
	}
}
