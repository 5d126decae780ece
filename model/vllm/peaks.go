package vllm

import (
	"membudget/budget"
	"membudget/model"
)

// peakModel is a profile's calibrated constants for the terms vLLM measures
// rather than allocates by formula: the profile run's activation peak and
// sampler, the CUDA-graph pool and the non-torch growth.
type peakModel struct {
	// samplerBytesPerLogit is what the profile run's dummy sampler holds per
	// logit of min(max_num_seqs, max_num_batched_tokens) requests x vocab.
	samplerBytesPerLogit uint64
	// graphBytesPerLayerGraph is the CUDA-graph pool's cost per captured
	// graph per layer beyond the largest graph's activations.
	graphBytesPerLayerGraph uint64
	// nonTorchBytes is the profile run's non-torch growth on one GPU
	// (cuBLAS and attention-backend workspaces).
	nonTorchBytes uint64
	// ncclBytes is the further non-torch growth under tensor parallelism
	// (NCCL and custom all-reduce buffers).
	ncclBytes uint64
}

// peaksCurrent is calibrated against corpus/observed/vllm.csv: the rows vLLM
// v0.11 logged on H100 (61-68), where the settings are vLLM's defaults
// (8192 batched tokens, 1024 sequences).
var peaksCurrent = peakModel{
	// The model-dtype logits, their fp32 copy, softmax probabilities, the
	// sorted values (fp32) and indices (int64) of top-k/top-p, and the
	// logprobs. Rows 64, 65 and 67 give 32.5, 37.2 and 33.8 bytes once the
	// forward activations are taken out; 34 is their mean, rounded down.
	samplerBytesPerLogit: 34,
	// Row 65 (Qwen3-0.6B, 28 layers, 51 capture sizes, 0.10 GiB) gives 67
	// KiB; 64 KiB is used.
	graphBytesPerLayerGraph: 64 << 10,
	// Rows 61-65 log 0.13 GiB at TP1.
	nonTorchBytes: 128 << 20,
	// Row 67 logs 0.54 GiB at TP2, 0.41 GiB over TP1.
	ncclBytes: 420 << 20,
}

// peaksFor is the calibration of release v's engine.
func peaksFor(v Version, era Era) peakModel {
	return peaksCurrent
}

// maxCaptureSize is vLLM's largest CUDA-graph batch by default:
// min(2 x max_num_seqs, 512) (vllm/config/vllm.py _set_cudagraph_sizes).
const maxCaptureSize = 512

// vocabPadding is vLLM's DEFAULT_VOCAB_PADDING_SIZE: the logits span the
// padded vocabulary (vllm/model_executor/layers/vocab_parallel_embedding.py).
const vocabPadding = 64

// captureSizes is vLLM v1's default list of CUDA-graph batch sizes up to
// the largest: 1, 2, 4, then every 8 below 256, then every 16 (vLLM
// _set_cudagraph_sizes).
func captureSizes(largest uint64) uint64 {
	var n uint64
	for _, s := range []uint64{1, 2, 4} {
		if s <= largest {
			n++
		}
	}
	for s := uint64(8); s <= largest && s < 256; s += 8 {
		n++
	}
	for s := uint64(256); s <= largest; s += 16 {
		n++
	}
	return n
}

// peakItems lists the modelled allocations of one pipeline stage that do
// not grow with the sequences: the profile run's activation peak, the
// sampler (on the last stage, which computes the logits), the graph pool
// and the non-torch growth.
func peakItems(a *model.Arch, r Resolved, st model.Sharding) []Item {
	m := r.Profile.peaks
	perToken := model.ActivationBytesPerToken(a, r.TensorParallelSize, r.DtypeBytes)
	items := []Item{{
		Name: "activation_peak", Term: budget.TermActivation,
		Bytes: budget.SatMul(r.MaxNumBatchedTokens, perToken),
	}}
	if st.Last {
		// The sampler's logits span the whole vocabulary on every rank
		// (vLLM gathers them before sampling).
		reqs := min(r.MaxNumSeqs, r.MaxNumBatchedTokens)
		vocab := budget.RoundUp(a.Vocab, vocabPadding)
		items = append(items, Item{Name: "sampler_logits", Term: budget.TermSampler,
			Bytes: budget.SatMul(budget.SatMul(reqs, vocab), m.samplerBytesPerLogit)})
	}
	if !r.EnforceEager {
		largest := min(2*r.MaxNumSeqs, maxCaptureSize)
		layers := uint64(st.EndLayer - st.FirstLayer)
		pool := budget.SatAdd(budget.SatMul(largest, perToken),
			budget.SatMul(budget.SatMul(captureSizes(largest), layers), m.graphBytesPerLayerGraph))
		items = append(items, Item{Name: "cuda_graph_pool", Term: budget.TermGraphPool, Bytes: pool})
	}
	nonTorch := m.nonTorchBytes
	if r.TensorParallelSize > 1 {
		nonTorch += m.ncclBytes
	}
	items = append(items, Item{Name: "non_torch_growth", Term: budget.TermNonTorch, Bytes: nonTorch})
	return items
}
