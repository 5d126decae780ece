package vllm

import (
	"fmt"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file sizes the CUDA graphs of an EAGLE-3 or EAGLE draft on the V2
// model runner's speculator, for the releases whose speculator graphs
// membudget read ([specV2GraphsRead]: vLLM main d18bb7b, 0.28 and 0.27).
// Every rule is main's at d18bb7b; 0.27's capture is main's but for its
// decode set, which records one draft step a graph ([specV2FusedDecode]).
//
// The speculator has two graph managers of its own, made after the
// target's from the target's resolved cudagraph_mode (model_runner.py:
// 569-599, AutoRegressiveSpeculator.init_cudagraph_manager,
// spec_decode/autoregressive/speculator.py:124-145), and captures them
// after the target's graphs inside capture_model's window, the one "Graph
// capturing finished ... took" measures (model_runner.py:840-891;
// speculator.py:147-198):
//
//   - the prefill set: a CudaGraphManager in the target's mode with
//     decode_query_len k+1, the target's own, so its candidates are the
//     target's (cudagraph_utils.py:173-301): a mixed graph at every
//     capture size (PIECEWISE under FULL_AND_PIECEWISE or PIECEWISE,
//     :266-282), and under a FULL decode mode a FULL graph at each size
//     rounded up to k+1 that stays within (k+1) x max_num_seqs and the
//     largest size (:237-264). Its FULL graphs record the whole draft
//     prefill (forward, compute_logits and the greedy sample); its
//     PIECEWISE graphs the drafter's compiled pieces only (:154-158);
//   - the decode set, for k > 1 only (:178-179): FULL_DECODE_ONLY with
//     decode_query_len 1 where the target's decode mode is FULL, none
//     where it is PIECEWISE ("PIECEWISE cudagraphs are not supported for
//     draft decodes", :133-137): a FULL graph at each capture size up to
//     max_num_seqs. Each records the k-1 remaining draft steps in one
//     graph where every attention backend of the serve updates its
//     metadata in place (_generate_fused_drafts, :555-595: FlashAttention
//     without DCP, Triton; backends/flash_attn.py:508, triton_attn.py:104),
//     else one step ( _generate_draft, :597-649). membudget does not
//     choose the backend and charges the fused graph, k-1 passes of the
//     drafter's layers, the larger. On 0.27.0 each decode graph records
//     one step, replayed k-1 times ([specV2FusedDecode]).
//
// Both managers take the platform's global graph pool, the target's
// (cudagraph_utils.py:131), and capture PIECEWISE before FULL, largest
// first (:321-332). In membudget's graph term ([graphBytes]) the drafter's
// graphs are charged as the V1 drafter's are ([draftGraphBytes]): its
// decoder layers at the target's per-layer-graph constant in every graph
// after the first (a fused decode graph counting k-1 times), and its
// first capture at the largest batch: the drafter's forward pass at the
// largest size, or a FULL graph's hidden states and logits at its most
// requests where those are more. An EAGLE-3 serve's target graphs also
// keep its three auxiliary hidden states as outputs of its FULL graphs,
// buffers of the largest FULL graph's tokens made in the capture window
// (ModelCudaGraphManager.capture, cudagraph_utils.py:566-574); they are
// the drafter's, charged here. No public log measures the V2 drafter's
// share, so the constant is the target's calibration and the first
// capture is charged whole, the upper reading, as on the V1 runner.
//
// Where they fall: up to 0.28 the V2 runner's profile_cudagraph_memory
// returns 0 (model_runner.py:835-837), so the drafter's graphs, like the
// target's, are captured beside the KV budget ([Profile.GraphsFor]): they
// do not shrink the KV cache, and must fit in what the util leaves.

// specV2GraphSets is the V2 speculator's CUDA graphs: the prefill set's
// mixed and FULL decode graphs with the tokens of the largest of each, and
// the decode set's FULL graphs with the largest's tokens (its requests:
// one token each).
type specV2GraphSets struct {
	prefillMixed, prefillFull, decode          uint64
	prefillMixedTop, prefillFullTop, decodeTop uint64
	// decodeSteps is the draft steps one decode graph records: k-1 where
	// they are fused into one graph, 1 where one step's graph is replayed
	// k-1 times ([specV2FusedDecode]); 0 without a decode set.
	decodeSteps uint64
}

// specV2Graphs is the V2 speculator's graphs of serve r: none without
// graphs or without a V2 draft.
func specV2Graphs(r *Resolved) specV2GraphSets {
	var s specV2GraphSets
	if !onV2Speculator(r) || r.Graphs.None() {
		return s
	}
	// The prefill manager's candidates are the target's: the same mode,
	// sizes and decode query (see the file's comment).
	s.prefillMixed, s.prefillFull, _ = r.Graphs.captured()
	if s.prefillMixed > 0 {
		s.prefillMixedTop = r.Graphs.Sizes[s.prefillMixed-1]
	}
	if s.prefillFull > 0 {
		_, s.prefillFullTop = r.Graphs.decodeGraphs()
	}
	if r.Spec.Tokens > 1 && r.Graphs.FullDecode() {
		// FULL_DECODE_ONLY at query 1: the sizes up to max_num_seqs.
		dec := Graphs{Mode: graphsFullDecodeOnly, Sizes: r.Graphs.Sizes, MaxNumSeqs: r.MaxNumSeqs}
		s.decode, s.decodeTop = dec.decodeGraphs()
		s.decodeSteps = 1
		if specV2FusedDecode(r.Profile) {
			s.decodeSteps = r.Spec.Tokens - 1
		}
	}
	return s
}

// draftLayerGraphs is the drafter's layer passes over the sets' graphs:
// one a prefill graph, decodeSteps a decode graph.
func (s specV2GraphSets) draftLayerGraphs() uint64 {
	return budget.SatAdd(s.prefillMixed+s.prefillFull, budget.SatMul(s.decode, s.decodeSteps))
}

// specV2LogitsBytes is what an EAGLE drafter's compute_logits holds for
// reqs rows beyond its input: the sampled rows (reqs x hidden), the draft
// head's logits over its vocabulary padded to 64, and for EAGLE-3 the
// arange and target index of the draft vocabulary (int64 each) and
// logits_new over the target's vocabulary (llama_eagle3.py:335-357);
// EAGLE-1's head is the target's (llama.py:529-534), its vocabulary padded
// to 64.
func specV2LogitsBytes(a *model.Arch, d *Draft, reqs, el uint64) uint64 {
	mul, add := budget.SatMul, budget.SatAdd
	rows := mul(mul(reqs, d.Hidden), el)
	if d.Method == "eagle" {
		return add(rows, mul(mul(reqs, budget.RoundUp(a.Vocab, vocabPadding)), el))
	}
	n := add(rows, mul(mul(reqs, budget.RoundUp(d.DraftVocab, vocabPadding)), el))
	n = add(n, mul(2*8, d.DraftVocab))
	return add(n, mul(mul(reqs, d.Vocab), el))
}

// specV2GraphBytes is what the V2 speculator's CUDA graphs add to the
// graph term of stage st's GPU (the last stage's): the drafter's layers
// at the target's per-layer-graph constant in every graph after the first
// (specV2GraphSets.draftLayerGraphs), its first capture at the largest
// batch, and EAGLE-3's auxiliary output buffers of the target's FULL
// graphs. 0 without graphs or a V2 draft.
func specV2GraphBytes(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	if !st.Last {
		return 0
	}
	s := specV2Graphs(r)
	passes := s.draftLayerGraphs()
	if passes == 0 {
		return 0
	}
	d := r.Spec.Draft
	el := r.DtypeBytes
	mul, add := budget.SatMul, budget.SatAdd
	layers := mul(mul(passes-1, d.Layers), r.Profile.peaks.graphBytesPerLayerGraph)
	perToken := draftForwardBytesPerToken(d, r.TensorParallelSize, el)
	first := mul(max(s.prefillMixedTop, s.prefillFullTop, s.decodeTop), perToken)
	// A FULL graph holds the drafter's output for its tokens and the
	// logits of its requests: the prefill set's at k+1 tokens a request,
	// the decode set's at one.
	q := specQueryLen(r)
	for _, g := range []struct{ tokens, reqs uint64 }{{s.prefillFullTop, s.prefillFullTop / q}, {s.decodeTop, s.decodeTop}} {
		if g.tokens > 0 {
			first = max(first, add(mul(mul(g.tokens, d.Hidden), el), specV2LogitsBytes(a, d, g.reqs, el)))
		}
	}
	var aux uint64
	if d.Method == "eagle3" && s.prefillFull > 0 {
		// The target's FULL graphs are its decode graphs, the prefill
		// set's sizes: the largest is prefillFullTop tokens.
		aux = mul(mul(mul(eagle3AuxStates, s.prefillFullTop), a.Hidden), el)
	}
	return add(add(first, layers), aux)
}

// specV2GraphsRead says p's V2 speculator captures the graph sets this
// file sizes: vLLM main d18bb7b, 0.28 and 0.27. Their EAGLE capture is the
// same at every main commit from PR #49364's second landing (8112b6c99,
// 2026-07-27) to d18bb7b but for PR #46849 (merged 2026-08-11 as
// a311916a2), which fused the decode set's k-1 draft steps into one graph
// ([specV2FusedDecode]); the commits between touch dispatch, the DSpark
// verifier's varlen decode graphs and MTP hooks that are no-ops for EAGLE.
// 0.27.0's branch carries PR #50000 (2026-07-30), and the v0.28.0
// release notes list as new PR #38390 (E/P/D disaggregation on the V2
// runner, merged 2026-08-04), so 0.27 was cut inside that span. At
// aeeb36b1f (#50000's merge) the speculator makes the same two managers
// (autoregressive/speculator.py:61-82), captures the prefill set then, for k > 1, the
// decode set of _generate_draft, one step (:84-127), and replays that
// graph once a step for steps 1..k-1 (_multi_step_decode, :374-424); both
// managers take the global graph pool (cudagraph_utils.py:135), capture
// PIECEWISE before FULL, largest first (:289, :311-314), from the
// candidates main builds without the DSpark verifier (:177-290).
//
// The releases before 0.27 whose eager speculator membudget sizes
// ([specV2Read]) also replay a one-step decode graph (PR #41162, merged
// 2026-05-05, before 0.22's cut), but their capture lacks changes
// membudget has not sized (see [specV2GraphsUnread]): those graphs are
// refused.
func specV2GraphsRead(p Profile) bool {
	return p.Era == V1 && p.Release.AtLeast(v0_27_0) && p.Release.Less(v0_29_0)
}

// specV2FusedDecode says p's speculator records the decode set's k-1 draft
// steps in one graph (PR #46849): main d18bb7b and 0.28, whose branch was
// cut after 2026-08-14; and 0.27.1, charged so as the upper reading. 0.27.0
// predates the merge (0.27.0rc1 out 2026-08-07, 0.27.0 out by 08-11, the
// day of the merge): one step a graph. 0.27.1 was out by 2026-08-13 from
// its release branch (its tag, 6e448d0ea, is not on main), and whether it
// cherry-picked #46849 was not read; every other main commit up to
// d18bb7b leaves the EAGLE capture as it was ([specV2GraphsRead]), so the
// fused graph, k-1 passes where 0.27.0 has one, bounds it either way.
func specV2FusedDecode(p Profile) bool {
	return p.Main || p.Release.AtLeast(v0_27_1)
}

// specV2GraphsUnread is what of release v's speculator capture membudget
// has not sized, for the releases from 0.22 to 0.26 whose eager speculator
// it sizes, each from the dates of its cut and the pull requests' merges:
//   - PR #49364 (attention metadata always built at capture, merged
//     2026-07-27; its first landing of 07-21 was reverted on 07-23): in no
//     release before 0.27. 0.26.0's branch was cut 07-17..20; 0.26.1's,
//     after PR #49208 of 07-20, may hold the first landing;
//   - PR #48261 (the speculator's prefill graphs captured without stale
//     attention metadata, 07-13): after 0.25.0 (tagged 07-11; 0.25.1 adds
//     two unrelated fixes), so in 0.26 alone;
//   - PRs #44078 (the speculator's graphs in the global pool, not their
//     own, 06-01) and #44253 (prefill warmed up and captured with their
//     own attention states, 06-03): after 0.22.0 (out 2026-05-29); 0.23's
//     cut (06-07) holds both. 0.22.1's cut was not read.
func specV2GraphsUnread(v Version) string {
	switch {
	case v.AtLeast(v0_26_0):
		return "its branch predates PR #49364 (attention metadata built at capture, merged 2026-07-27), and whether 0.26.1, cut after 2026-07-20, holds its first landing (07-21, reverted 07-23) was not read"
	case v.AtLeast(v0_23_0):
		return "its branch predates PR #48261 (the speculator's prefill graphs captured without stale attention metadata, 2026-07-13) and PR #49364 (attention metadata built at capture, 2026-07-27)"
	}
	return "its branch predates PRs #48261 and #49364 (attention metadata at capture, 2026-07-13 and 07-27), and 0.22.0's also PR #44078 (the speculator's graphs in the shared graph pool, not their own, 2026-06-01) and PR #44253 (prefill graphs captured with their own attention states, 06-03); 0.22.1's cut was not read"
}

// specV2GraphsRefusal is the refusal of the V2 speculator's CUDA graphs
// where membudget does not place them, nil where it sizes them: before
// 0.27 ([specV2GraphsRead]), under cudagraph_mode FULL, and with LoRA.
// Releases whose eager speculator was not read were refused before
// (specV2Refusal).
func specV2GraphsRefusal(r *Resolved) error {
	name, p := draftName(r.Spec.Method), r.Profile.Describes
	switch {
	case !specV2GraphsRead(r.Profile):
		return settingErr("speculative-config", r.Spec.Method, "the %s drafter's CUDA graphs on the V2 model runner: not modelled for %s, whose speculator captures a decode graph of one draft step, replayed k-1 times, as 0.27.0's does (before PR #46849 fused the steps), but whose capture membudget has not read: %s; its graphs would add to what stands beside the KV budget what 0.27.0's rule sizes, unchecked for this release; pass --enforce-eager to size the serve without graphs; membudget refuses it rather than size a serve vLLM would contradict", name, p, specV2GraphsUnread(r.Profile.Release))
	case r.Graphs.FullAsBoth:
		// The prefill manager takes the target's resolved mode: FULL
		// where the attention backend captures mixed batches in FULL
		// graphs (AttentionCGSupport.ALWAYS), whose FULL mixed graphs
		// record the drafter's logits at min(size, max_num_seqs)
		// requests; FULL_AND_PIECEWISE otherwise
		// (vllm/config/compilation.py:1386-1411).
		return settingErr("compilation-config", "cudagraph_mode", "the %s drafter's CUDA graphs on the V2 model runner under cudagraph_mode FULL (its prefill set takes the target's mode, FULL mixed graphs recording the draft's logits where the attention backend captures mixed batches in FULL graphs and FULL_AND_PIECEWISE otherwise; which backend serves is not modelled): not modelled for %s; use FULL_AND_PIECEWISE (the default) or PIECEWISE, or pass --enforce-eager; membudget refuses it rather than size a serve vLLM would contradict", name, p)
	case r.LoRA.Enable:
		// The target captures a graph set a LoRA case
		// (model_runner.py:303-306, cudagraph_utils.py:222-224), the
		// speculator's managers the no-adapter case alone
		// (cudagraph_utils.py:125); how the two share the pool with
		// adapters was not read.
		return settingErr("enable-lora", "", "the %s drafter's CUDA graphs on the V2 model runner with LoRA (the target captures a graph set a LoRA case, the speculator's managers one without adapters; how they share the graph pool was not read): not modelled for %s; pass --enforce-eager; membudget refuses it rather than size a serve vLLM would contradict", name, p)
	}
	return nil
}

// specV2GraphsSetting is the report's words for the V2 speculator's
// graphs: each set's graphs and what they add, beside the KV budget.
func (sz *Sizing) specV2GraphsSetting() string {
	r := sz.Serve
	s := specV2Graphs(r)
	var sets []string
	if s.prefillMixed > 0 {
		sets = append(sets, fmt.Sprintf("%d %s prefill graphs up to %d tokens", s.prefillMixed, graphsPiecewise, s.prefillMixedTop))
	}
	if s.prefillFull > 0 {
		sets = append(sets, fmt.Sprintf("%d FULL prefill graphs up to %d tokens", s.prefillFull, s.prefillFullTop))
	}
	switch {
	case s.decode > 0 && specV2FusedDecode(r.Profile):
		sets = append(sets, fmt.Sprintf("%d FULL decode graphs up to %d requests (%d draft steps each at most)", s.decode, s.decodeTop, s.decodeSteps))
	case s.decode > 0:
		sets = append(sets, fmt.Sprintf("%d FULL decode graphs up to %d requests (one draft step each, replayed %d times)", s.decode, s.decodeTop, r.Spec.Tokens-1))
	}
	return fmt.Sprintf("CUDA graphs at multiples of %d; the V2 speculator's %s add %s (captured after the target's, beside the KV budget as the V2 runner's graphs are up to 0.28)",
		specQueryLen(r), strings.Join(sets, ", "), engine.GiB(sz.draftGraphItem()))
}
