package model

import (
	"fmt"

	"membudget/budget"
)

// QwenMTPWeights returns the tensors one rank of sh holds of a Qwen3.5
// checkpoint's MTP layers when vLLM loads them as the draft of --speculative-
// config mtp (Qwen3_5MultiTokenPredictor, vllm/model_executor/models/
// qwen3_5_mtp.py:66-140 at main d18bb7b): each of the mtp_num_hidden_layers
// layers is a full-attention decoder layer of the target's shape
// (Qwen3_5DecoderLayer with layer_type "full_attention": the gated
// attention and, by model_type, the dense MLP or the MoE block,
// qwen3_5.py:151-177), named mtp.layers.j and quantized as the checkpoint
// quantizes that name; fc, a ColumnParallelLinear of 2 x hidden inputs and
// hidden outputs sharded over tensor parallelism, quantized as the
// checkpoint says except under ModelOpt NVFP4 (vLLM's "modelopt_fp4"),
// whose checkpoints store it in bf16 (qwen3_5_mtp.py:86-104); and the
// norm, pre_fc_norm_hidden and pre_fc_norm_embedding of hidden. The draft's
// embedding and LM head are the target's, which vLLM's proposer shares for
// every MTP draft (vllm/v1/spec_decode/llm_base_proposer.py:1482-1516,
// 1560-1570), so they are not listed. ok is false for a model that is no
// Qwen3.5, has no MTP layer or no full-attention layer whose shape the MTP
// layers take.
func QwenMTPWeights(a *Arch, sh Sharding) (items []budget.Item, ok bool) {
	if a.MTPLayers == 0 || !QwenMTP(a) {
		return nil, false
	}
	full := -1
	for i, l := range a.Layers {
		if l.Kind == FullAttention {
			full = i
		}
	}
	if full < 0 {
		return nil, false
	}
	w := newWeights(a, sh)
	for j := range a.MTPLayers {
		w.layerAs(full, fmt.Sprintf("mtp.layers.%d.", j))
	}
	if w.q.Method == "modelopt" && (w.q.Algo == "NVFP4" || w.q.Algo == "W4A16_NVFP4") {
		w.unquantized("mtp.fc", 2*a.Hidden, a.Hidden, column, false)
	} else {
		w.linear("mtp.fc", 2*a.Hidden, a.Hidden, column, false, linearMod)
	}
	for _, n := range []string{"mtp.norm", "mtp.pre_fc_norm_hidden", "mtp.pre_fc_norm_embedding"} {
		w.norm(n, a.Hidden)
	}
	return w.items, true
}

// QwenMTP says a is a Qwen3.5 model (dense or MoE, with or without its
// vision tower), whose MTP layers vLLM builds as [QwenMTPWeights] sizes
// them.
func QwenMTP(a *Arch) bool {
	switch a.ModelType {
	case "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text":
		return true
	}
	return false
}
