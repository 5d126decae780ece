package vllm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/internal/untrusted"
	"membudget/model"
	"membudget/model/hub"
)

// This file sizes --speculative-config's draft_model: a whole smaller
// model as the draft (e.g. Llama-3.2-1B for Llama-3.1-8B), read from its
// directory as a target is (its config.json and checkpoint headers), with
// its own embedding and LM head. Every rule is vLLM main's at commit
// d18bb7b (2026-08-14): DraftModelProposer (vllm/v1/spec_decode/
// draft_model.py) loads the draft with get_model at the draft's parallel
// config, shares nothing with the target (:107-115), and needs the
// target's tensor parallel size (:62-77) and vocabulary (:56-58,
// speculative.py:1399-1414); its attention layers join the target's in
// get_kv_cache_spec (gpu_model_runner.py:7883-7920); the proposer
// allocates the base proposer's buffers and, since the draft takes no
// hidden states, the two token masks of its extra slot
// (llm_base_proposer.py:106-116, 222-237). vLLM's V2 model runner does not
// run it (vllm/config/vllm.py:2397-2408 lists the methods it runs), so
// the serve runs on the V1 runner, and async scheduling stays on
// (vllm.py:1196-1207 excepts draft_model).

// draftModelWhat is what a draft_model serve adds, for its refusals.
const draftModelWhat = "a whole draft model (its weights from its config.json and checkpoint at the target's tensor parallel size, its attention layers added to the KV cache groups, one more scheduler slot and k lookahead KV slots a request)"

// draftModelSlots is the new slots a draft model's request takes beyond
// its query slot (max_num_new_slots_for_drafting, vllm/config/
// speculative.py:1417-1455: "Draft model ... 1").
const draftModelSlots = 1

// draftModelArchs are the draft architectures membudget sizes: dense
// decoders of full attention whose weights model/ reads.
var draftModelArchs = []string{"LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM"}

// draftModelInferred are the substrings of a draft's path from which
// vLLM infers another method than the draft_model asked
// (speculative.py:936-947: "eagle-", "eagle3", "dflash", "dspark").
var draftModelInferred = []string{"eagle-", "eagle3", "dflash", "dspark"}

// draftModelCache keeps each draft directory's load: a plan's search
// resolves the serve many times.
var draftModelCache sync.Map // string -> draftModelOrErr

type draftModelOrErr struct {
	a   *model.Arch
	err error
}

// loadDraftModel loads the draft model in dir as a --model directory is
// loaded (hub.Resolver.Load: config.json, and the checkpoint's headers
// where there is a safetensors checkpoint), offline, once per directory.
func loadDraftModel(dir string) (*model.Arch, error) {
	if v, ok := draftModelCache.Load(dir); ok {
		r := v.(draftModelOrErr)
		return r.a, r.err
	}
	var a *model.Arch
	l, err := hub.Resolver{Offline: true}.Load(context.Background(), dir)
	if err == nil {
		a = l.Arch
	}
	draftModelCache.Store(dir, draftModelOrErr{a, err})
	return a, err
}

// resolveDraftModel reads the draft of a draft_model --speculative-config
// and refuses, naming the flag, what vLLM refuses and what membudget does
// not size.
func (r *Resolved) resolveDraftModel(sc specConfig, a *model.Arch) (*Draft, error) {
	p := r.Profile
	refuse := func(flag string, value any, what string) error {
		return settingErr(flag, value, "%s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", what, p.Describes)
	}
	if sc.model == "" {
		// SpeculativeConfig.__post_init__ (speculative.py:758-797).
		return nil, settingErr("speculative-config", "draft_model", "vLLM refuses it: num_speculative_tokens was provided but without speculative model")
	}
	if what := specDraftRefusal(r.SpeculativeConfig, p); what != "" {
		return nil, refuse("speculative-config", "draft_model", what)
	}
	lower := strings.ToLower(sc.model)
	for _, s := range draftModelInferred {
		if strings.Contains(lower, s) {
			return nil, refuse("speculative-config", "draft_model", fmt.Sprintf("a draft whose path contains %q, from which vLLM infers another method than draft_model (vllm/config/speculative.py:936-947)", s))
		}
	}
	tp := max(r.TensorParallelSize, 1) // 0 before the serve's defaults (explain's dropUnsizedSpec): vLLM's 1
	if sc.draftTP != 0 && sc.draftTP != tp {
		// _verify_and_get_draft_tp takes 1 or the target's TP
		// (speculative.py:1258-1290), and DraftModelProposer then
		// refuses any TP but the target's (draft_model.py:62-77).
		return nil, settingErr("speculative-config", sc.draftTP, "vLLM refuses it: Currently, 'draft_tensor_parallel_size' and 'tensor_parallel_size' must be the same. Got %d and %d", sc.draftTP, tp)
	}
	if !slices.Contains(eagle3Targets, firstArch(a)) {
		return nil, refuse("speculative-config", "draft_model", fmt.Sprintf("a draft model for %s (%s; membudget sizes drafts for %s, whose layers it places beside a draft's)", a.Source, firstArch(a), strings.Join(eagle3Targets, ", ")))
	}
	if r.PipelineParallelSize > 1 {
		return nil, refuse("pipeline-parallel-size", r.PipelineParallelSize, "a draft model under pipeline parallelism (the drafter on the last stage)")
	}
	if !r.EnforceEager && !p.DraftModelGraphs {
		// From PR #30143 (2026-01-20) the drafter dispatches through its
		// own dispatcher, whose keys only PR #47460 (2026-07-15)
		// initialized for draft_model (specgraphs.go): which of the two
		// a release before 0.27.0 carries was not read.
		return nil, refuse("speculative-config", "draft_model", fmt.Sprintf("the draft model's CUDA graphs before vLLM %s (until PR #47460, 2026-07-15, its dispatcher had no keys and ran it eager; which releases carry which was not read; pass --enforce-eager to size the serve without graphs)", draftModelGraphsSince))
	}
	da, err := loadDraftModelOf(sc, a)
	if err != nil {
		return nil, settingErr("speculative-config", "draft_model", "the draft %s", untrusted.Text(err.Error()))
	}
	switch {
	case !slices.Contains(draftModelArchs, firstArch(da)) || da.Generic:
		return nil, refuse("speculative-config", "draft_model", fmt.Sprintf("a draft model of architecture %s (membudget sizes %s drafts)", untrusted.Text(firstArch(da)), strings.Join(draftModelArchs, ", ")))
	case da.Quant.Method != "":
		return nil, refuse("speculative-config", "draft_model", "a quantized draft model ("+untrusted.Text(da.Quant.Method)+")")
	case da.MLA || da.Experts > 0 || da.Vision != nil || slices.ContainsFunc(da.Layers, func(l model.Layer) bool {
		return l.Kind != model.FullAttention || l.SharesKV || l.KVHeads > 0 || l.HeadDim > 0
	}):
		return nil, refuse("speculative-config", "draft_model", "a draft model with layers other than uniform full attention (sliding windows, experts, a vision tower, MLA)")
	case da.Vocab != a.Vocab:
		// verify_equal_vocab_size_if_draft_model (speculative.py:
		// 1399-1414).
		return nil, settingErr("speculative-config", "draft_model", "vLLM refuses it: Target and draft model should have the same vocabulary size. Target model vocab_size=%d. Draft model vocab_size=%d", a.Vocab, da.Vocab)
	case da.Heads%tp != 0 || (da.KVHeads >= tp && da.KVHeads%tp != 0) || (da.KVHeads < tp && tp%da.KVHeads != 0):
		return nil, settingErr("tensor-parallel-size", tp, "vLLM cannot shard the draft model (%d heads, %d KV heads) over %d ranks", da.Heads, da.KVHeads, tp)
	}
	return &Draft{Method: "draft_model", Path: sc.model, Hidden: da.Hidden, Heads: da.Heads, KVHeads: da.KVHeads, HeadDim: da.HeadDim,
		Intermediate: da.Intermediate, Layers: uint64(len(da.Layers)), Vocab: da.Vocab, DraftVocab: da.Vocab, OwnEmbed: true, OwnHead: !da.TiedEmbeddings, Model: draftModelOwnRotary(da, a)}, nil
}

// draftModelOwnRotary returns the draft model da without the rotary
// tables vLLM hands it from the target a's: the draft's attention asks
// get_rope for a table of its head size, its config's max_position_embeddings
// and rope parameters, in the model dtype (the target's, speculative.py:
// 909), and get_rope's cache returns the table it built for the target
// where that whole key is equal (vllm/model_executor/layers/
// rotary_embedding/__init__.py:33-84 at d18bb7b: head size, rotary dim,
// max position, is_neox_style, the rope parameters' items,
// dual_chunk_attention_config, dtype; is_neox_style is true for every
// draft architecture and target sized here). A table of the target's
// shape whose key membudget cannot tell equal (another rope_theta, rope
// parameters written otherwise, a theta left to the config class's
// default) is the draft's own and stays charged: an over-count of it at
// most. da is the cached load, so a copy is returned where a table goes.
func draftModelOwnRotary(da, a *model.Arch) *model.Arch {
	// A llama config without rope_theta takes LlamaConfig's, as
	// llamaDraftRotary reads EAGLE's drafts.
	if da.HeadDim != a.HeadDim || !llamaRopeKey(da).SameTable(llamaRopeKey(a)) {
		return da
	}
	own := slices.DeleteFunc(slices.Clone(da.Rotary), func(dr model.RotaryTable) bool {
		return !dr.Served && slices.ContainsFunc(a.Rotary, func(tr model.RotaryTable) bool {
			return !tr.Served && tr.Positions == dr.Positions && tr.Dim == dr.Dim && tr.Dtype == dr.Dtype
		})
	})
	if len(own) == len(da.Rotary) {
		return da
	}
	cp := *da
	cp.Rotary = own
	return &cp
}

// draftModelTensors yields the bytes of each of the draft model's tensors
// on a GPU of the last stage: the draft as a whole model on one stage at
// the target's tensor parallel size and dtype (ModelConfig's dtype is the
// target's, speculative.py:909), by model/'s rules for a target, its
// rotary table its own.
func draftModelTensors(d *Draft, tp, el uint64, yield func(uint64)) {
	st := model.Sharding{TP: tp, FirstLayer: 0, EndLayer: len(d.Model.Layers), First: true, Last: true, DtypeBytes: el}
	for _, it := range model.RankWeights(d.Model, st) {
		yield(it.Bytes)
	}
}

// draftModelSpecs is the KV cache spec of each of the draft model's
// attention layers, numbered after the target's: full attention of its
// KV heads on a rank and head size, in the serve's block size and KV
// dtype. A page unlike the target's makes the layers one
// UniformTypeKVCacheSpecs group (kvLayoutOf).
func draftModelSpecs(r *Resolved, first int) []layerSpec {
	d := r.Spec.Draft
	heads := model.KVHeadsPerRank(d.Model, r.TensorParallelSize)
	out := make([]layerSpec, 0, len(d.Model.Layers))
	for j := range d.Model.Layers {
		out = append(out, layerSpec{layer: first + j, draft: true, kind: fullSpec, block: r.BlockSize, heads: heads, headDim: d.HeadDim,
			page: budget.SatMul(budget.SatMul(r.BlockSize, 2*heads*d.HeadDim), r.KVDtypeBytes)})
	}
	return out
}

// draftModelMasks is the proposer's two token masks of max_num_batched_tokens
// bools, allocated for a draft that takes no hidden states and so needs an
// extra input slot a request (llm_base_proposer.py:106-116, 222-237).
func draftModelMasks(r *Resolved) uint64 {
	return budget.SatMul(2, r.MaxNumBatchedTokens)
}
