package vllm

import "membudget/budget"

// This file sizes --speculative-config's eagle: an EAGLE-1 Llama draft
// (e.g. yuhuili/EAGLE-LLaMA3-Instruct-8B), read and placed as
// specdraft.go reads an EAGLE-3 draft (its config.json and checkpoint
// headers, its attention layers joining the KV cache groups, the
// proposer's buffers), with the tensors vLLM builds for it. Every rule is
// vLLM main's at commit d18bb7b (2026-08-14): the draft's config.json
// names LlamaForCausalLM, which EAGLEConfig renames EagleLlamaForCausalLM
// (vllm/transformers_utils/configs/eagle.py:43-56), the class of
// vllm/model_executor/models/llama_eagle.py.

// eagleArchs are the EAGLE-1 draft architectures membudget sizes: a Llama
// draft as its config.json names it, or as EAGLEConfig renames it.
var eagleArchs = []string{"LlamaForCausalLM", "EagleLlamaForCausalLM"}

// eagleRefused are the config.json keys of an EAGLE-1 draft that change
// its tensors or their dtype and that membudget does not read:
// quantization (get_draft_quant_config, llama_eagle.py:49-51, 76-77),
// LlamaMLP's mlp_bias and LlamaAttention's qkv_bias
// (vllm/model_executor/models/llama.py:270-272, 303), and the configs of
// the speculators format.
var eagleRefused = []string{"quantization_config", "speculators_config", "eagle_config", "mlp_bias", "qkv_bias", "target_hidden_size"}

// draftName is the draft's name in a report for a method: "EAGLE-3" for
// eagle3, "EAGLE" for eagle.
func draftName(method string) string {
	if method == "eagle" {
		return "EAGLE"
	}
	return "EAGLE-3"
}

// eagleTensors yields the bytes of each tensor of an EAGLE-1 draft on one
// GPU of the last stage at tensor-parallel size tp and dtype bytes el, as
// EagleLlamaForCausalLM builds them (llama_eagle.py): per decoder layer,
// the base LlamaDecoderLayer's qkv_proj (hidden inputs), o_proj,
// gate_up_proj and down_proj divided among the ranks (the biases where
// attention_bias or bias is set, llama.py:265-269), and its
// post_attention_layernorm; the input_layernorm on every layer but the
// first, whose norm vLLM deletes (llama_eagle.py:41-44; a parameter of
// hidden elements freed before any weight is loaded); fc, a
// ReplicatedLinear of 2 x hidden inputs and no bias (:95-103); the
// embedding divided among the ranks where the draft keeps its own (padded
// to 64 rows, VocabParallelEmbedding); its own rotary table where it has
// one (the base layer's LlamaAttention asks get_rope, [llamaDraftRotary]).
// LlamaModel here has no final norm
// (:112-124) and EagleLlamaForCausalLM no lm_head (:131-153): the
// proposer gives it the target's (llm_base_proposer.py:1529-1560). The
// draft is served in the target's dtype (speculative.py:909).
func eagleTensors(d *Draft, tp, el uint64, yield func(uint64)) {
	kv := max(1, d.KVHeads/tp)
	heads := d.Heads / tp
	qkvOut := (heads + 2*kv) * d.HeadDim
	mul := budget.SatMul
	for j := range d.Layers {
		yield(mul(mul(d.Hidden, qkvOut), el))
		if d.AttentionBias {
			yield(mul(qkvOut, el))
		}
		yield(mul(mul(heads*d.HeadDim, d.Hidden), el))
		if d.OBias {
			yield(mul(d.Hidden, el))
		}
		yield(mul(mul(2*(d.Intermediate/tp), d.Hidden), el))
		yield(mul(mul(d.Intermediate/tp, d.Hidden), el))
		yield(mul(d.Hidden, el))
		if j > 0 {
			yield(mul(d.Hidden, el))
		}
	}
	yield(mul(mul(d.FCInput, d.Hidden), el))
	if d.OwnEmbed {
		yield(mul(mul(budget.CeilDiv(budget.RoundUp(d.Vocab, vocabPadding), tp), d.Hidden), el))
	}
	if d.RotaryRows > 0 {
		yield(mul(mul(d.RotaryRows, d.RotaryDim), el)) // its own cos/sin table (llamaDraftRotary), whole on each rank
	}
}
