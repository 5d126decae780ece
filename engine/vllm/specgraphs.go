package vllm

import (
	"fmt"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file sizes the CUDA graphs of an EAGLE or EAGLE-3 drafter on the V1
// model runner, and of a draft model where its release captures them
// ([draftModelGraphsSince]). Every rule is vLLM main's at commit d18bb7b
// (2026-08-14), and held from 0.14.0, the first release whose EAGLE drafts
// membudget sizes ([specSince], which resolveSpec enforces first):
//
//   - the drafter's graphs are captured inside the target's capture loop:
//     the runner's _dummy_run calls the proposer's dummy_run with
//     use_cudagraphs true when the target is being captured in PIECEWISE
//     mode, false when in FULL mode ("Eagle currently only supports
//     PIECEWISE cudagraphs", vllm/v1/worker/gpu_model_runner.py:
//     6263-6305), and the proposer runs one forward pass when capturing
//     (is_graph_capturing, vllm/v1/spec_decode/llm_base_proposer.py:
//     1634-1686), dispatched by its own cudagraph dispatcher, whose keys
//     are the serve's capture sizes in PIECEWISE mode wherever the
//     target's mixed mode is PIECEWISE or FULL (:419-434) and which pads
//     a batch to them (:1803-1812): one drafter graph a mixed capture
//     size, none for the FULL decode graphs;
//   - vLLM's graph estimate (profile_cudagraph_memory, gpu_model_runner.py:
//     6764-6930; PR #30515, first printed in 0.18.0, charged from 0.20.0)
//     captures the first two capture descriptors of each mode, largest
//     first (PIECEWISE before FULL, cudagraph_dispatcher.py:326-350), each
//     through _warmup_and_capture and so through _dummy_run: the PIECEWISE
//     samples hold the drafter's graph beside the target's, and come out
//     of the same formula, first capture + (graphs - 1) x the second.
//
// In membudget's graph term ([graphBytes]: a first capture of the largest
// batch's activations over a fixed part, and each further graph a
// calibrated constant a decoder layer) the drafter's decoder layers are
// added to every PIECEWISE graph after the first, at the target's
// per-layer constant (its compiled graph splits at each attention as the
// target's does), and its forward pass at the largest size to the first
// capture. No public log measures a drafter's share, so the constant is
// the target's calibration; the first-capture activations are charged
// whole, the upper reading of that part, since the graph pool may hand
// the drafter blocks the target's capture freed.

// The drafter's graphs are sized from [specSince] (0.14.0), whose
// releases resolveSpec alone admits: the proposer's dummy_run has captured
// one PIECEWISE graph a capture size inside the target's loop since before
// PR #30119 (2025-12-09, which kept it for PIECEWISE captures only),
// through the drafter's own dispatcher of PR #30143 (2026-01-20, the same
// sizes) and PR #32818 (2026-01-21, the eager dispatch under FULL), to
// d18bb7b: no release from 0.14.0 differs.

// draftModelGraphsSince is the first release whose draft_model drafter
// captures graphs by the same rule ([Profile.DraftModelGraphs]): PR
// #47460 (merged 2026-07-15) added draft_model to the drafters whose
// dispatcher keys the runner initializes (gpu_model_runner.py:7324-7338);
// before it, from PR #30143, the dispatcher had no keys and sent every
// batch eager (cudagraph_dispatcher.py dispatch: "not
// self.keys_initialized"). 0.27.0 was out by 2026-08-11 (vllm-metal PR
// #596 bumps to it), four weeks after the merge.
var draftModelGraphsSince = Version{0, 27, 0}

// draftGraphed says the serve's draft is one whose graphs this file sizes:
// an EAGLE or EAGLE-3 draft, the model's own MTP layers (an EAGLE proposer
// too: use_eagle() takes mtp, gpu_model_runner.py:681-682, and
// DeepSeekMTP is compiled as the EAGLE heads are since PR #25109,
// deepseek_mtp.py:230), or a draft model where the release captures its
// graphs.
func draftGraphed(r *Resolved) bool {
	if r.Spec.MTPLayers > 0 {
		return true
	}
	d := r.Spec.Draft
	return d != nil && (d.Method == "eagle3" || d.Method == "eagle" || d.Method == "draft_model" && r.Profile.DraftModelGraphs)
}

// drafterName names the serve's drafter in refusals.
func drafterName(r *Resolved) string {
	switch {
	case r.Spec.MTPLayers > 0:
		return "MTP"
	case r.Spec.Draft.Method == "draft_model":
		return "draft-model"
	}
	return draftName(r.Spec.Draft.Method)
}

// resolveDraftGraphs refuses, naming the flag, the drafts with CUDA
// graphs whose capture membudget does not place: where the mixed batches
// may be captured in FULL graphs, and with LoRA. It runs once the graphs
// are resolved.
func (r *Resolved) resolveDraftGraphs() error {
	if !draftGraphed(r) || r.Graphs.None() {
		return nil
	}
	p := r.Profile
	name := drafterName(r)
	switch {
	case onV2Speculator(r):
		return specV2GraphsRefusal(r)
	case r.Graphs.FullAsBoth:
		// Under FULL, an attention backend that captures mixed batches in
		// FULL graphs (AttentionCGSupport.ALWAYS) has the target's loop
		// run the drafter eager (gpu_model_runner.py:6280-6289), while
		// the drafter's dispatcher still keys PIECEWISE graphs
		// (llm_base_proposer.py:426-431) that neither the loop nor the
		// estimate captures; the other backends fall back to
		// FULL_AND_PIECEWISE. membudget does not choose the backend.
		return settingErr("compilation-config", "cudagraph_mode", "the %s drafter's CUDA graphs under cudagraph_mode FULL (where the attention backend captures mixed batches in FULL graphs, vLLM's capture loop and its graph estimate run the drafter eager while its dispatcher keys PIECEWISE graphs; which backend serves is not modelled): not modelled for %s; use FULL_AND_PIECEWISE (the default) or PIECEWISE, or pass --enforce-eager; membudget refuses it rather than size a serve vLLM would contradict", name, p.Describes)
	case r.LoRA.Enable:
		// The estimate samples (largest, adapters) before (largest, none)
		// (cudagraph_dispatcher.py:343-347), and the drafter is not
		// captured with adapters (gpu_model_runner.py:6295-6299): its
		// first capture lands in the per-graph sample.
		return settingErr("enable-lora", "", "the %s drafter's CUDA graphs with LoRA (vLLM's graph estimate samples the largest size with adapters first, where the drafter runs eager, so the drafter's first capture lands in the per-graph sample it multiplies): not modelled for %s; pass --enforce-eager; membudget refuses it rather than size a serve vLLM would contradict", name, p.Describes)
	}
	return nil
}

// draftForwardBytesPerToken is an EAGLE drafter's forward pass per token
// at its peak, by the rule [forwardBytesPerToken] applies to a target's
// decoder layer, for the draft's one shape: the residual and the normed input, the
// wider of the attention's (the query and its output, keys and values on
// a rank) and the MLP's (gate, up and activated, intermediate / TP each),
// the down projection's output and the layer's input. EAGLE-3's first
// layer reads the concatenation of the normed embeddings and the hidden
// states, 2 x hidden where a target's reads hidden (llama_eagle3.py:
// 99-103), and its model keeps the embeddings through every layer, which
// each takes as embeds (:227-247): one hidden more each. EAGLE-1's fc
// folds the embeddings in before the layers (llama_eagle.py:114-115).
func draftForwardBytesPerToken(d *Draft, tp, el uint64) uint64 {
	tp = max(tp, 1)
	kv := max(1, d.KVHeads/tp)
	attn := 2*(d.Heads/tp)*d.HeadDim + 2*kv*d.HeadDim
	held := 4 * d.Hidden
	if d.Method == "eagle3" {
		attn += d.Hidden
		held += d.Hidden
	}
	mlp := 3 * budget.CeilDiv(d.Intermediate, tp)
	return budget.SatMul(held+max(attn, mlp), el)
}

// draftGraphBytes is what the drafter's CUDA graphs add to the graph term
// of stage st's GPU (the last stage's, where the drafter runs): its
// layers in each PIECEWISE graph after the first, at the per-layer-graph
// constant of the target's, and its forward pass at the largest mixed
// size in the first capture. 0 without an EAGLE draft, without graphs, or
// without PIECEWISE graphs (FULL_DECODE_ONLY: the drafter's dispatcher
// keys none, llm_base_proposer.py:426-432). On the V2 runner's speculator
// the graphs are its own ([specV2GraphBytes]).
func draftGraphBytes(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	if onV2Speculator(r) {
		return specV2GraphBytes(a, r, st)
	}
	if !draftGraphed(r) || !st.Last {
		return 0
	}
	mixed, _, largest := r.Graphs.captured()
	if mixed == 0 {
		return 0
	}
	var layers, perToken uint64
	switch d := r.Spec.Draft; {
	case r.Spec.MTPLayers > 0:
		// Each MTP layer is a decoder layer of the target's (specmtp.go),
		// its eh_proj folding the embeddings in before it
		// (deepseek_mtp.py:104-135): the target's rule.
		layers, perToken = r.Spec.MTPLayers, forwardBytesPerToken(a, r.TensorParallelSize, r.DtypeBytes)
	case d.Model != nil:
		// A draft model is a whole decoder at the target's TP
		// (specdraftmodel.go): the target's rule, on its architecture.
		layers, perToken = d.Layers, forwardBytesPerToken(d.Model, r.TensorParallelSize, r.DtypeBytes)
	default:
		layers, perToken = d.Layers, draftForwardBytesPerToken(d, r.TensorParallelSize, r.DtypeBytes)
	}
	graphs := budget.SatMul(budget.SatMul(mixed-1, layers), r.Profile.peaks.graphBytesPerLayerGraph)
	first := budget.SatMul(largest, perToken)
	return budget.SatAdd(first, graphs)
}

// appendDraftGraphItems appends the drafter's share of the CUDA-graph
// term to a stage's items, where it has one.
func appendDraftGraphItems(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding) []budget.Item {
	if n := draftGraphBytes(a, r, st); n > 0 {
		items = append(items, budget.Item{Name: "draft_cuda_graphs", Term: budget.TermGraphPool, Bytes: n})
	}
	return items
}

// draftGraphsLabel is the drafter's graphs in the report's footprint.
const draftGraphsLabel = "draft CUDA graphs"

// splitDraftGraphs names the drafter's graphs in a footprint's lines: the
// CUDA-graph line without them, then theirs, charged to the budget or
// beside it as the graph line is (the sum is the graph term).
func (sz *Sizing) splitDraftGraphs(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	r := sz.Serve
	if fp.Stage >= len(r.Stages) {
		return lines
	}
	return splitOut(lines, budget.TermGraphPool, draftGraphsLabel, draftGraphBytes(sz.Model.Arch, r, stageOf(r, fp.Stage)))
}

// draftGraphItem is the drafter's graphs on a GPU of the last stage.
func (sz *Sizing) draftGraphItem() uint64 {
	r := sz.Serve
	if len(r.Stages) == 0 {
		return 0
	}
	return draftGraphBytes(sz.Model.Arch, r, stageOf(r, len(r.Stages)-1))
}

// draftGraphsSetting is how the report's speculative-decoding line names
// the runner's graphs with a draft: eager, or the drafter's PIECEWISE
// graphs beside the target's and where vLLM counts them.
func (sz *Sizing) draftGraphsSetting() string {
	r := sz.Serve
	if r.Graphs.None() {
		return "eager"
	}
	if onV2Speculator(r) {
		return sz.specV2GraphsSetting()
	}
	if !draftGraphed(r) {
		return fmt.Sprintf("CUDA graphs at multiples of %d", specQueryLen(r))
	}
	mixed, _ := r.Graphs.counts()
	if mixed == 0 {
		return fmt.Sprintf("CUDA graphs at multiples of %d; the drafter eager (no PIECEWISE graph to capture it in)", specQueryLen(r))
	}
	where := "charged to the KV budget with vLLM's graph estimate"
	if sz.plan.Beside.Has(budget.TermGraphPool) {
		where = "captured after the KV cache is sized, beside the budget"
	}
	return fmt.Sprintf("CUDA graphs at multiples of %d; the drafter's PIECEWISE graphs at the %d mixed sizes add %s (%s)",
		specQueryLen(r), mixed, engine.GiB(sz.draftGraphItem()), where)
}
