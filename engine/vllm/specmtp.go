package vllm

import (
	"fmt"
	"strings"

	"membudget/budget"
	"membudget/model"
)

// This file sizes --speculative-config's mtp for DeepSeek-V3: the model's
// own multi-token-prediction layers, which the checkpoint holds beyond
// num_hidden_layers and vLLM loads only as the draft (model/ skips them
// when it sizes the target: "loaded only for speculative decoding"). Every
// rule is vLLM main's at commit d18bb7b: DeepSeekMultiTokenPredictor
// (vllm/model_executor/models/deepseek_mtp.py:131-160) builds one
// DeepSeekMultiTokenPredictorLayer per num_nextn_predict_layers, numbered
// from num_hidden_layers, each a DeepseekV2DecoderLayer (its MLA attention
// and MoE, quantized as the target, speculative.py:758-770) with enorm,
// hnorm, eh_proj and a shared_head (:65-100); the proposer replaces the
// draft's embedding and every shared_head.head with the target's
// (llm_base_proposer.py:1480-1490, 1561-1590, "Detected MTP model").

// mtpTargets are the architectures whose MTP layers membudget sizes
// beside Qwen3.5's (model.QwenMTP).
var mtpTargets = []string{"DeepseekV3ForCausalLM"}

// qwenMTPSince is the first release whose Qwen3.5 MTP layout membudget
// sizes: the layout is read at main d18bb7b, and the observed rows show it
// from 0.20.1 (corpus/observed/vllm.csv row 201, 0.20.1rc1.dev23: its
// blocks exactly; rows 193, 208-211 to 0.24.0); earlier releases are not
// read, and refused.
var qwenMTPSince = Version{0, 20, 1}

// resolveMTP checks an mtp --speculative-config against the model and
// the serve, refusing by name what vLLM refuses and what membudget does
// not size, and returns the MTP layers loaded.
func (r *Resolved) resolveMTP(sc specConfig, a *model.Arch) (uint64, error) {
	p := r.Profile
	refuse := func(what string) error {
		return settingErr("speculative-config", "", "%s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", what, p.Describes)
	}
	deepseek, qwen := firstArch(a) == mtpTargets[0] && a.Indexer == nil, model.QwenMTP(a)
	switch {
	case !deepseek && !qwen || a.MTPLayers == 0:
		return 0, refuse(fmt.Sprintf("the MTP layers of %s (%s, num_nextn_predict_layers %d) as the draft (membudget sizes DeepSeek-V3's and Qwen3.5's)", a.Source, firstArch(a), a.MTPLayers))
	case qwen && p.Release.Less(qwenMTPSince):
		return 0, refuse(fmt.Sprintf("Qwen3.5's MTP layers as the draft (membudget sizes them from vLLM %s, the first release whose layout it has checked)", qwenMTPSince))
	case qwen && !qwenMTPShaped(a):
		return 0, refuse(fmt.Sprintf("the MTP layers of %s without a full-attention layer of the target to take their shape from", a.Source))
	case sc.model != "":
		return 0, refuse("an MTP draft from another checkpoint (\"model\")")
	case sc.tokens == 0:
		return 0, refuse("mtp without num_speculative_tokens (vLLM takes the draft config's n_predict, which membudget does not read)")
	case r.PipelineParallelSize > 1:
		return 0, refuse("the MTP draft under pipeline parallelism")
	case r.EPLB.Enable:
		return 0, refuse("the MTP layer's experts under EPLB (EplbState registers the drafter's MoE, gpu_model_runner.py maybe_register_speculator)")
	case p.V2Runner(a):
		return 0, refuse("the MTP draft on the V2 model runner")
	}
	return a.MTPLayers, nil
}

// mtpTensors yields the bytes of each MTP layer's tensors on a GPU of the
// last stage: the decoder layer as the target's last layer is sharded and
// quantized (the same DeepseekV2DecoderLayer: MLA and MoE, its layer
// index past first_k_dense_replace), with the tensors vLLM derives after
// loading (W_UK_T and W_UV); enorm, hnorm and shared_head.norm, hidden in
// the model dtype; eh_proj, an nn.Linear of 2 x hidden inputs, replicated
// and unquantized (deepseek_mtp.py:74-76). The rotary table is the
// target's (get_rope caches it), and the embedding and heads are shared.
func mtpTensors(a *model.Arch, r *Resolved, st model.Sharding, yield func(uint64)) {
	if model.QwenMTP(a) {
		items, _ := model.QwenMTPWeights(a, st)
		for _, it := range items {
			yield(it.Bytes)
		}
		return
	}
	last := len(a.Layers) - 1
	one := st
	one.FirstLayer, one.EndLayer, one.First, one.Last = last, last+1, false, false
	prefix := fmt.Sprintf("model.layers.%d.", last)
	var layer []uint64
	for _, it := range weightItems(a, one) {
		if strings.HasPrefix(it.Name, prefix) {
			layer = append(layer, it.Bytes)
		}
	}
	for range r.Spec.MTPLayers {
		for _, b := range layer {
			yield(b)
		}
		yield(budget.SatMul(budget.SatMul(2*a.Hidden, a.Hidden), r.DtypeBytes))
		for range 3 {
			yield(budget.SatMul(a.Hidden, r.DtypeBytes))
		}
	}
}

// mtpSpecs is the KV cache spec of each MTP layer: its attention is the
// target's (MLA of the same latent), so it takes the last layer's spec,
// numbered after the target's layers (DeepSeekMultiTokenPredictor's
// layers from num_hidden_layers; get_kv_cache_spec walks them with the
// target's, gpu_model_runner.py:7883-7920).
func mtpSpecs(r *Resolved, specs []layerSpec, first int) []layerSpec {
	// The last attention layer's spec: DeepSeek-V3's last layer, or on
	// Qwen3.5 the last full-attention layer, whose shape the MTP layer
	// takes (model.QwenMTPWeights); never a state layer's.
	var last *layerSpec
	for i := range specs {
		if specs[i].kind != indexerSpec && specs[i].kind != mambaSpec && !specs[i].draft && specs[i].layer < first && (last == nil || specs[i].layer >= last.layer) {
			last = &specs[i]
		}
	}
	if last == nil {
		return nil
	}
	out := make([]layerSpec, 0, r.Spec.MTPLayers)
	for j := range int(r.Spec.MTPLayers) {
		s := *last
		s.layer, s.draft = first+j, true
		out = append(out, s)
	}
	return out
}

// qwenMTPShaped says a Qwen3.5 model has a full-attention layer, whose
// shape its MTP layers take (model.QwenMTPWeights).
func qwenMTPShaped(a *model.Arch) bool {
	_, ok := model.QwenMTPWeights(a, model.Whole(a, 1, 2, model.Quant{}))
	return ok
}
