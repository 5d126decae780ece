package vllm

import (
	"math/bits"

	"membudget/budget"
	"membudget/model"
)

// peakModel is a profile's rules for the terms vLLM measures rather than
// allocates by formula: the profile run's torch peak (the forward pass and
// the dummy sampler), the non-torch growth and the CUDA-graph pool. Each
// field is a mechanism of vLLM's code at the release that set it, or a
// constant calibrated on corpus/observed/vllm.csv; peaks_test.go pins each
// calibrated constant with the arithmetic from its rows.
type peakModel struct {
	// sampler is how the profile run's dummy sampler filters top-k and
	// top-p: it decides the bytes held per logit at its peak.
	sampler samplerRule
	// moeWorkspace says the fused-MoE kernels take their intermediate
	// caches from vLLM's persistent workspace manager, so they outlive the
	// forward pass and sit under the sampler's peak.
	moeWorkspace bool
	// residualBytes is what the torch peak holds beyond the modelled
	// forward pass or sampler (cuBLAS workspaces, the dummy run's metadata).
	residualBytes uint64
	// nonTorchBytes is the non-torch growth of a stage that runs the
	// sampler, on one GPU; nonTorchNotLastBytes of a pipeline stage that
	// does not; tpBytes is added under tensor parallelism over fully
	// connected GPUs (NVLink; PCIe takes tpNonTorchPCIe, collectives.go).
	nonTorchBytes, nonTorchNotLastBytes, tpBytes uint64
	// graphFixedBytes and graphBytesPerLayerGraph are the CUDA-graph
	// memory: the first capture's fixed part, and what each further
	// captured graph holds per decoder layer.
	graphFixedBytes, graphBytesPerLayerGraph uint64
}

// samplerRule is how a release's sampler applies top-k and top-p.
type samplerRule int

const (
	// sortSampler: torch.sort of the float32 logits with int64 indices,
	// then a scatter back (vllm/v1/sample/ops/topk_topp_sampler.py
	// apply_top_k_top_p up to 0.16; V0's sampler likewise).
	sortSampler samplerRule = iota
	// tritonSampler: the Triton top-k/top-p kernel masks the logits in
	// place with a per-SM row buffer (vllm/v1/sample/ops/topk_topp_triton.py,
	// PR #33538, merged 2026-02-17: 0.17.0).
	tritonSampler
	// v2Sampler: the V2 model runner's dummy sampler, whose dummy requests
	// ask for no temperature, penalty, top-k or top-p, so the logits are
	// sampled as they are, without a float32 copy ("the sampler may skip
	// top_k, top_p, and logprobs", vllm/v1/worker/gpu/model_runner.py
	// _dummy_sampler_run; gpu/sample/sampler.py
	// _requires_logits_processing). No observed row runs the V2 runner.
	v2Sampler
)

// The calibrated constants. Each names the rows of corpus/observed/vllm.csv
// it was calibrated on; peaks_test.go pins it with their arithmetic, and
// TestObserved reports the error on every other row (held out).
const (
	// sortScratchBytesPerLogit is what torch.sort holds per logit beyond
	// the logits and their float32 copy: the sorted values (float32, 4 B)
	// and indices (int64, 8 B), and 20 B of the sort's own, as a segmented
	// radix sort's double buffers of both and its int64 iota would take.
	// Rows 64 and 65 (vLLM 0.11, H100, 1024 sequences) give 31.99 and
	// 31.91 B once the rest of the peak is taken out.
	sortScratchBytesPerLogit = 32
	// profileResidualV1 is the V1 profile's torch peak beyond the modelled
	// forward pass or sampler (cuBLAS workspaces, the dummy batch's
	// metadata): rows 145 (0.19) and 184 (0.17) leave 53.3 and 49.8 MiB.
	profileResidualV1 = 52 << 20
	// profileResidualV0 is the V0 profile's: rows 25 (0.7.2) and 40 (0.6.6),
	// whose peak is the forward pass, leave +0.004 GiB each, within the
	// log's rounding.
	profileResidualV0 = 0
	// nonTorchV1 is V1's non-torch growth on one GPU up to 0.17: row 64
	// (0.11) logs 0.13 GiB.
	nonTorchV1 = 133 << 20
	// nonTorchV1From018 is the growth from 0.18.0 on a stage that samples:
	// row 185 (0.18) logs 0.25 GiB.
	nonTorchV1From018 = 256 << 20
	// nonTorchV1NotLast is the growth of a pipeline stage that does not run
	// the sampler, from 0.18.0: row 146 (0.19, PP 2) logs 0.07 GiB on its
	// first stage.
	nonTorchV1NotLast = 72 << 20
	// tpNonTorchV1 is the further growth under tensor parallelism up to
	// 0.18: row 67 (0.11, TP 2) logs 0.54 GiB, 0.41 over TP 1.
	tpNonTorchV1 = 420 << 20
	// tpNonTorchV1From019 is the further growth under tensor parallelism
	// from 0.19.0: rows 148 (Llama-3.1-8B, TP 2) and 126 (Llama-3.3-70B
	// fp8, TP 4), the smallest and the largest of the 0.19 figures at TP 2
	// or more (2.07 and 2.21 GiB), are 1.89 GiB over TP 1 on average. 0.11
	// logged 0.54 GiB at TP 2 (row 67) and no log of 0.12-0.18 at TP 2 or
	// more is in the table, so the release that changed it is not known:
	// the first with evidence is used. Both are H100 SXM (NVLink) logs; PCIe
	// parts grow far less (row 58, L40S at TP 8 on 0.10.2: 0.21 GiB in all),
	// which tpNonTorchPCIe charges them instead (collectives.go).
	tpNonTorchV1From019 = 1935 << 20
	// nonTorchV0 is the V0 engine's non-torch growth: rows 25, 32, 40 and
	// 47 (0.6.6-0.8.5 at TP 1) log 0.01, 0.08, 0.10 and 0.09 GiB; 0.085 is
	// their median.
	nonTorchV0 = 87 << 20
	// graphFixed and graphBytesPerLayerGraph are fitted to the CUDA-graph
	// estimates of rows 145 and 147 (0.19, Llama-3.1-8B, 32 and 8 layers a
	// stage, 0.84 and 0.49 GiB): 100 graphs a layer cost 156587 B more, and
	// what is left at 8 layers is 324.3 MiB beside the largest batch's
	// activations (512 tokens).
	graphFixed              = 324 << 20
	graphBytesPerLayerGraph = 153 << 10
)

// peaksFor is the rules of release v's engine: each field changes at the
// release whose pull request changed the mechanism.
func peaksFor(v Version, era Era) peakModel {
	if era == V0 {
		// V0 sorts like V1 up to 0.16; its TP growth is taken as V1's of
		// 0.11 (no V0 row at TP 2 or more has a shipped config and class
		// but row 35, a V0 MLA outlier).
		return peakModel{sampler: sortSampler, residualBytes: profileResidualV0,
			nonTorchBytes: nonTorchV0, nonTorchNotLastBytes: nonTorchV0, tpBytes: tpNonTorchV1,
			graphFixedBytes: graphFixed, graphBytesPerLayerGraph: graphBytesPerLayerGraph}
	}
	m := peakModel{sampler: sortSampler, residualBytes: profileResidualV1,
		nonTorchBytes: nonTorchV1, nonTorchNotLastBytes: nonTorchV1, tpBytes: tpNonTorchV1,
		graphFixedBytes: graphFixed, graphBytesPerLayerGraph: graphBytesPerLayerGraph}
	if v.AtLeast(v0_14_0) {
		// PR #27532 (merged 2025-12-12) moved the fused-MoE caches into the
		// workspace manager (vllm/v1/worker/workspace.py); 0.14.0 is the
		// first release surely after it.
		m.moeWorkspace = true
	}
	if v.AtLeast(v0_17_0) {
		m.sampler = tritonSampler
	}
	if v.AtLeast(v0_18_0) {
		m.nonTorchBytes, m.nonTorchNotLastBytes = nonTorchV1From018, nonTorchV1NotLast
	}
	if v.AtLeast(v0_19_0) {
		m.tpBytes = tpNonTorchV1From019
	}
	return m
}

// maxCaptureSize is vLLM's largest CUDA-graph batch by default:
// min(2 x max_num_seqs, 512) (vllm/config/vllm.py _set_cudagraph_sizes).
const maxCaptureSize = 512

// blackwellCaptureSize is the default largest capture size on data-centre
// Blackwell from PR #49390 (vllm/config/vllm.py:1936-1943 at d18bb7b).
const blackwellCaptureSize = 1024

// largestCapture is the largest CUDA-graph batch vLLM captures by default:
// min(2 x max_num_seqs x (1 + k), the device's ceiling), k the speculative
// tokens (vllm/config/vllm.py _set_cudagraph_sizes, :1932-1943).
func largestCapture(r *Resolved) uint64 {
	ceiling := r.CaptureCeiling
	if ceiling == 0 {
		ceiling = maxCaptureSize
	}
	return min(budget.SatMul(2*r.MaxNumSeqs, specQueryLen(r)), ceiling)
}

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

// forwardBytesPerToken is the profile's forward pass per token at its peak,
// inside a decoder layer's MLP: the widest sub-layer's live activations
// ([model.ActivationBytesPerToken]: the residual, the normed input and the
// gate, up and activated MLP), the down projection's output, allocated
// while the activation is still live, and the layer's input, which the
// model's layer loop still references while the layer runs
// (hidden_states, residual = layer(positions, hidden_states, residual) in
// vllm/model_executor/models/llama.py and its kin): (4 x hidden + 3 x
// intermediate) x dtype for a dense model. V0 rows 25 and 40 (Qwen2.5,
// 32768 and 8192 tokens, both forward-bound) leave +0.004 GiB each. A
// reward model's pooling head runs in the forward pass after the layers,
// whose activations are freed by then: the wider of the two
// ([model.PoolerHeadBytesPerToken]; no pooling serve's log is observed).
func forwardBytesPerToken(a *model.Arch, tp, dtypeBytes uint64) uint64 {
	per := budget.SatAdd(model.ActivationBytesPerToken(a, tp, dtypeBytes), budget.SatMul(2*a.Hidden, dtypeBytes))
	return max(per, model.PoolerHeadBytesPerToken(a, tp, dtypeBytes))
}

// samplerBytesPerLogit is what the dummy sampler holds per logit at its
// peak under rule s: the logits in the model dtype, their float32 copy
// (none when the model dtype is float32: Tensor.to returns the tensor), and
// the filter's own: torch.sort's values, indices and scratch, or the
// Triton kernel's probabilities and the exponential draws (4 B each;
// vllm/v1/sample/ops/topk_topp_sampler.py random_sample). The V2 runner's
// dummy sampler holds the logits alone.
func samplerBytesPerLogit(s samplerRule, dtypeBytes uint64) uint64 {
	if s == v2Sampler {
		return dtypeBytes
	}
	b := dtypeBytes
	if dtypeBytes != 4 {
		b += 4
	}
	if s == tritonSampler {
		return b + 4 + 4
	}
	return b + sortScratchBytesPerLogit
}

// tritonBufferRows is the rows of the float32 buffer the Triton top-k/top-p
// kernel caches for the profile's dummy sampler: vLLM allocates
// min(next_power_of_2(min(num_sm, batch)), num_sm) rows of the vocabulary
// and keeps them in _TRITON_BUFFER_CACHE (vllm/v1/sample/ops/
// topk_topp_triton.py:906-915 at main d18bb7b; the rule unchanged since the
// kernel came in, PR #33538, merged 2026-02-17: 0.17.0), which is
// min(next_pow2(batch), num_sm): below num_sm the two agree, above it both
// are num_sm. batch is the dummy sampler's rows, min(max_num_seqs,
// max_num_batched_tokens) (gpu_model_runner.py _dummy_run's num_reqs,
// :6017, whose last tokens _dummy_sampler_run samples, :6352). num_sm is
// the device's multi_processor_count, read directly at first and through
// num_compute_units since PR #35042 (vllm/platforms/cuda.py:682-683; the
// CU count on ROCm): smCount here, the class's sm_count. The buffer is
// float32 whatever the model's dtype: the kernel asserts float32 logits
// (:881); PR #48641, merged 2026-07-17, made the buffer float32 beside
// bf16 logits and was reverted four days later (#49033). A class without
// sm_count is charged next_pow2(batch), the rule's bound whatever the
// device: the buffer never has more rows.
func tritonBufferRows(batch, smCount uint64) uint64 {
	rows := nextPow2(batch)
	if smCount > 0 {
		rows = min(rows, smCount)
	}
	return rows
}

// nextPow2 is the least power of two at least n (1 for n <= 1), as Triton's
// next_power_of_2; saturating at 1<<63.
func nextPow2(n uint64) uint64 {
	if n <= 1 {
		return 1
	}
	if n > 1<<63 {
		return 1 << 63
	}
	return 1 << bits.Len64(n-1)
}

// samplerLogitsBytes is the logits the dummy sampler holds on one rank:
// reqs rows of the padded vocabulary at the rule's bytes per logit. Under
// batch-sharded sampling (the V2 runner from 0.29.0, PR #50465) the ranks
// exchange vocabulary slices all-to-all so that each holds the full
// vocabulary of ceil(reqs / TP) rows: the logits per rank fall by the TP
// size, as the release notes say. Like the gathered logits before it, the
// collective's input slice is not counted beside its output.
func samplerLogitsBytes(p Profile, rule samplerRule, reqs, vocab, tp, dtypeBytes uint64) uint64 {
	if rule == v2Sampler && p.ShardedSampling && tp > 1 {
		reqs = budget.CeilDiv(reqs, tp)
	}
	return budget.SatMul(budget.SatMul(reqs, vocab), samplerBytesPerLogit(rule, dtypeBytes))
}

// moeWorkspaceBytes is the fused-MoE caches of the profile's batch of
// tokens as vLLM's workspace manager keeps them: TritonExperts'
// workspace1 (M x top_k x max(N/2, K)) and workspace2 (M x top_k x max(N,
// K)), N the per-rank gate and up width, K the hidden size
// (vllm/model_executor/layers/fused_moe/fused_moe.py workspace_shapes).
// MarlinExperts keeps the same two (M x top_k x max(I, K), which the
// output of M x K shares, and M x top_k x max(2I, K), I the per-rank
// intermediate; marlin_moe.py:704-734 at d18bb7b, the modular kernel's
// _allocate_buffers, modular_kernel.py:1137-1174) at the sizes of its
// padded experts, see [moeWorkspaceSizes].
func moeWorkspaceBytes(a *model.Arch, st model.Sharding, tp, tokens, dtypeBytes uint64) uint64 {
	i, k := moeWorkspaceSizes(a, st, tp)
	per := max(i, k) + max(2*i, k)
	return budget.SatMul(budget.SatMul(tokens, a.ExpertsPerToken), budget.SatMul(per, dtypeBytes))
}

// moeWorkspaceSizes returns the per-rank expert intermediate size and the
// hidden size the fused-MoE workspace is shaped by on stage st. Marlin
// runs gpt-oss's MXFP4 experts at the sizes its layout pads them to
// (MXFP4Marlin: the intermediate to 128, the hidden size to 256):
// MarlinExperts.moe_problem_size reads N from the padded weights
// (marlin_moe_intermediate_size, marlin_moe.py:666-692) and K from the
// activations, which the MoE runner pads to the padded hidden size before
// the experts (F.pad in _maybe_pad_hidden_states,
// fused_moe/runner/moe_runner.py:502-530), as the Marlin GEMM takes its
// size_k from the weights. The other kernels' workspaces keep the
// checkpoint's sizes here: their own shapes are not read.
func moeWorkspaceSizes(a *model.Arch, st model.Sharding, tp uint64) (intermediate, hidden uint64) {
	intermediate, hidden = budget.CeilDiv(a.MoEIntermediate, tp), a.Hidden
	if st.MXFP4 == MXFP4Marlin {
		intermediate, hidden = st.MXFP4.Intermediate(intermediate), st.MXFP4.Hidden(hidden)
	}
	return intermediate, hidden
}

// stageHasMoE says a stage holds a mixture-of-experts layer.
func stageHasMoE(a *model.Arch, st model.Sharding) bool {
	for i := st.FirstLayer; i < st.EndLayer && i < len(a.Layers); i++ {
		if a.Layers[i].MoE {
			return true
		}
	}
	return false
}

// peakItems lists the modelled allocations of one pipeline stage that do
// not grow with the sequences: the profile run's torch peak as two items
// whose sum is the peak (the forward pass with the residual, and what the
// sampler adds above it on the last stage), the graph pool and the
// non-torch growth.
func peakItems(a *model.Arch, r *Resolved, st model.Sharding) []budget.Item {
	return peakItemsAt(a, r, st, forwardBytesPerToken(a, r.TensorParallelSize, r.DtypeBytes), weighWeights(a))
}

// peakItemsAt is peakItems with the forward pass's bytes a token
// (forwardBytesPerToken) given: the same on every stage of a serve, which
// a compile works out once) and the stage's weights weighed by weigh (a
// compile's memo).
func peakItemsAt(a *model.Arch, r *Resolved, st model.Sharding, perToken uint64, weigh weigher) []budget.Item {
	if a.Encoder != nil && r.Runner == runnerPooling {
		return encoderPeakItems(a, r, st)
	}
	m := r.Profile.peaks
	tp, d := r.TensorParallelSize, r.DtypeBytes
	tokens := r.MaxNumBatchedTokens
	forward := budget.SatMul(tokens, perToken)
	// One allocation for the items of most serves: the peak, the sampler,
	// the graph pool, the non-torch growth, the V2 runner's request
	// state, a multimodal model's encoder cache items and its encoder
	// pass.
	items := make([]budget.Item, 1, 8)
	items[0] = budget.Item{
		Name: "activation_peak", Term: budget.TermActivation,
		Bytes: budget.SatAdd(forward, m.residualBytes),
	}
	if st.Last && r.Runner != runnerPooling {
		// The pooling runner has no sampler: its dummy pooler run reads
		// the hidden states (gpu_worker.py compile_or_warm_up_model).
		// The profile keeps the forward pass's hidden states (and the MoE
		// workspace) while the sampler runs on min(max_num_seqs,
		// max_num_batched_tokens) rows of the whole padded vocabulary,
		// gathered on every rank (vllm/v1/worker/gpu_model_runner.py
		// profile_run, _dummy_sampler_run).
		rule := m.sampler
		if r.onV2Runner(a) {
			rule = v2Sampler
		}
		reqs := min(r.MaxNumSeqs, tokens)
		vocab := budget.RoundUp(a.Vocab, vocabPadding)
		held := budget.SatMul(budget.SatMul(tokens, a.Hidden), d)
		if m.moeWorkspace && stageHasMoE(a, st) {
			held = budget.SatAdd(held, moeWorkspaceBytes(a, st, tp, tokens, d))
		}
		sampler := budget.SatAdd(held, samplerLogitsBytes(r.Profile, rule, reqs, vocab, tp, d))
		if rule == tritonSampler {
			sampler = budget.SatAdd(sampler, budget.SatMul(tritonBufferRows(reqs, r.SMCount), budget.SatMul(vocab, 4)))
		}
		sampler = budget.SatAdd(sampler, specSamplerBytes(r, reqs, vocab))
		items = append(items, budget.Item{Name: "sampler_logits", Term: budget.TermSampler,
			Bytes: budget.SatSub(sampler, forward)})
	}
	if a.EncoderDecoder() {
		items = append(items, encDecPeakItems(a, r, st, forward)...)
	}
	if !r.Graphs.None() {
		items = append(items, budget.Item{Name: "cuda_graph_pool", Term: budget.TermGraphPool, Bytes: graphBytes(r, st, perToken)})
		items = appendDraftGraphItems(items, a, r, st)
	}
	nonTorch := m.nonTorchNotLastBytes
	if st.Last {
		nonTorch = m.nonTorchBytes
	}
	nonTorch = budget.SatAdd(nonTorch, r.tpNonTorch())
	items = append(items, budget.Item{Name: "non_torch_growth", Term: budget.TermNonTorch, Bytes: nonTorch})
	items = appendUnifiedHostItems(appendV2StateItems(appendDeepSeekV4Items(items, a, r, st), a, r, st), a, r)
	items = appendA2AItems(appendDraftItems(appendEncoderItems(appendEPLBItems(appendLoRAItems(items, a, r, st), a, r, st, weigh), r, st), a, r, st), r)
	// Last: the encoder pass is weighed against every other item of the
	// profile's torch peak.
	items = appendSpecV1Items(appendSpecV2Items(items, a, r, st, perToken), a, r, st, perToken)
	return appendColdCompile(appendEncoderPass(items, r, st), a, r, st)
}

// graphBytes is the CUDA-graph memory of one stage's GPU as vLLM's
// profile_cudagraph_memory estimates it (vllm/v1/worker/gpu_model_runner.py):
// per mode, the first capture plus (graphs - 1) times the second. Under
// FULL_AND_PIECEWISE two modes are captured, PIECEWISE for every capture
// size and FULL for the decode sizes up to max_num_seqs ("Profiling CUDA
// graph memory: PIECEWISE=51 (largest=512), FULL=51 (largest=512)",
// corpus/observed/vllm.csv row 112); the serve's [Graphs] says which (see
// compilation.go). The first capture holds the largest batch's
// activations, perToken bytes a token (the forward pass's,
// forwardBytesPerToken, or an encoder's). No graph captured costs nothing
// (profile_cudagraph_memory returns 0).
func graphBytes(r *Resolved, st model.Sharding, perToken uint64) uint64 {
	m := r.Profile.peaks
	mixed, decode, largest := r.Graphs.captured()
	if mixed+decode == 0 {
		return 0
	}
	cases := loraGraphCases(r)
	var graphs uint64
	for _, n := range []uint64{mixed, decode} {
		if n > 0 {
			graphs += cases*n - 1
		}
	}
	layers := uint64(st.EndLayer - st.FirstLayer)
	first := budget.SatAdd(m.graphFixedBytes, budget.SatMul(largest, perToken))
	return budget.SatAdd(first, budget.SatMul(budget.SatMul(graphs, layers), m.graphBytesPerLayerGraph))
}
