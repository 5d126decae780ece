package model

import (
	"slices"

	"membudget/budget"
)

func init() {
	// Qwen3-Next builds the embedding and head on every stage and the
	// final norm on the last (qwen3_next.py:603-625, 794).
	register("qwen3_next", flat(readQwen3Next),
		ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedDeltaNet, gatedMLP, qwenNextMoE, twoNorms}, decoderTopOn(allStages, lastStage, allStages)).skipping(mtpModules))
}

// readQwen3Next reads Qwen3-Next (vllm/model_executor/models/qwen3_next.py):
// gated-delta-net layers with full attention every full_attention_interval
// (or layer_types), attention with an output gate and partial rotary, MoE
// with a gated shared expert on the layers num_experts,
// decoder_sparse_step and mlp_only_layers select (qwen3_next.py:405-412);
// the embedding and head on every stage, the final norm on the last.
func readQwen3Next(o jsonObject, a *Arch) {
	if !o.has("partial_rotary_factor") {
		o.m["partial_rotary_factor"] = []byte("0.25") // transformers Qwen3NextConfig's default
	}
	readCommon(o, a)
	a.qwenHybrid(o)
	if o.has("num_experts") && o.uintOr("num_experts", 0) > 0 {
		a.qwenMoE(o.uint("num_experts"), o.uint("num_experts_per_tok"), o.uint("moe_intermediate_size"),
			o.uintOr("shared_expert_intermediate_size", 0))
		a.sparseLayers(o)
	}
	// qwen3_next.py:603-606 and 794-798 build the embedding and the head on
	// every stage; :622-625 the final norm on the last only.
	a.tree.embedEveryStage, a.tree.headEveryStage = true, true
	a.tree.packed = map[string][]string{"qkv_proj": {"q_proj", "k_proj", "v_proj"}, "gate_up_proj": {"gate_proj", "up_proj"}}
}

// qwenHybrid reads what Qwen3-Next and Qwen3.5 share: the layer pattern,
// the delta net, the gated attention and the MTP layers.
func (a *Arch) qwenHybrid(o jsonObject) {
	a.QKNorm = true
	a.AttnOutputGate = o.boolOr("attn_output_gate", true)
	a.AttnBias = o.boolOr("qkv_bias", false)
	a.DeltaNet = readDeltaNet(o)
	if a.layerTypes == nil {
		interval := o.uintOr("full_attention_interval", 4)
		if interval == 0 {
			o.fail("full_attention_interval", "must be above 0")
			interval = 1
		}
		a.layerTypes = make([]string, a.NumLayers)
		for i := range a.layerTypes {
			a.layerTypes[i] = "linear_attention"
			if (uint64(i)+1)%interval == 0 {
				a.layerTypes[i] = "full_attention"
			}
		}
	}
	a.uniformLayers(o, 0)
	a.MTPLayers = o.uintOr("mtp_num_hidden_layers", o.uintOr("num_nextn_predict_layers", 0))
}

// qwenMoE gives the model Qwen3-Next's MoE block (qwen3_next.py:100-190):
// experts of inter each, a gated shared expert of shared (none for 0);
// the caller says which layers have it.
func (a *Arch) qwenMoE(experts, topK, inter, shared uint64) {
	a.Experts, a.ExpertsPerToken, a.MoEIntermediate, a.SharedIntermediate = experts, topK, inter, shared
	if shared > 0 {
		a.SharedExperts = 1
	}
	a.tree.shared, a.tree.sharedGate = "shared_expert", true
	// Qwen3.5-MoE builds the same block (qwen3_5.py:164-169).
	a.TPWithinExperts = "qwen3_next.py:117-121"
}

// readDeltaNet reads the gated delta net's shape (linear_* keys).
func readDeltaNet(o jsonObject) *DeltaNetShape {
	d := &DeltaNetShape{
		NumKeyHeads:   o.uint("linear_num_key_heads"),
		NumValueHeads: o.uint("linear_num_value_heads"),
		KeyHeadDim:    o.uint("linear_key_head_dim"),
		ValueHeadDim:  o.uint("linear_value_head_dim"),
		ConvKernel:    o.uint("linear_conv_kernel_dim"),
	}
	for _, f := range []struct {
		key string
		v   uint64
	}{{"linear_num_key_heads", d.NumKeyHeads}, {"linear_num_value_heads", d.NumValueHeads}, {"linear_key_head_dim", d.KeyHeadDim},
		{"linear_value_head_dim", d.ValueHeadDim}, {"linear_conv_kernel_dim", d.ConvKernel}} {
		if f.v > 1<<14 {
			o.fail(f.key, "%d is beyond any real model (at most %d)", f.v, 1<<14)
		}
	}
	if d.NumKeyHeads > 0 && d.NumValueHeads%d.NumKeyHeads != 0 {
		o.fail("linear_num_value_heads", "%d is not a multiple of linear_num_key_heads %d", d.NumValueHeads, d.NumKeyHeads)
	}
	return d
}

// gdn adds a gated-delta-net layer (vllm/model_executor/layers/mamba/gdn/
// qwen_gdn_linear_attn.py:359-489): the fused q/k/v/z and b/a projections
// (b/a whole on every rank where the tree says so), the unquantized causal
// convolution, dt_bias, A_log in float32, the gated norm, the output
// projection.
func (w *weights) gdn(p string) {
	a, d := w.a, w.a.DeltaNet
	if d == nil {
		return
	}
	keyDim, valueDim := d.NumKeyHeads*d.KeyHeadDim, d.NumValueHeads*d.ValueHeadDim
	w.linear(p+".in_proj_qkvz", a.Hidden, 2*keyDim+2*valueDim, column, false, linearMod)
	ba := column
	if w.t.baWholeUnderPackedInt && w.sh.Quant.marlinPackedInt() {
		ba = replicated
	}
	w.linear(p+".in_proj_ba", a.Hidden, 2*d.NumValueHeads, ba, false, linearMod)
	w.add(p+".conv1d.weight", bytesOf(budget.SatMul(budget.CeilDiv(2*keyDim+valueDim, w.tp), d.ConvKernel), w.dt))
	heads := budget.CeilDiv(d.NumValueHeads, w.tp)
	w.add(p+".dt_bias", bytesOf(heads, w.dt))
	w.add(p+".A_log", bytesOf(heads, 4))
	w.add(p+".norm.weight", bytesOf(d.ValueHeadDim, w.dt))
	w.linear(p+".out_proj", valueDim, a.Hidden, row, false, linearMod)
}

var (
	// gatedDeltaNet: Qwen3-Next's linear attention (transformers models/
	// qwen3_next/modeling_qwen3_next.py Qwen3NextGatedDeltaNet;
	// layers/mamba/gdn/qwen_gdn_linear_attn.py:359-489): in_proj_qkvz and
	// in_proj_ba column-parallel, the causal conv1d, dt_bias and A_log
	// (float32) divided by head, the gated norm whole, out_proj
	// row-parallel.
	gatedDeltaNet = []moduleRule{
		{module: "linear_attn.in_proj_qkvz", split: column},
		{module: "linear_attn.in_proj_ba", split: column},
		{module: "linear_attn.conv1d", split: column},
		{module: "linear_attn.dt_bias", split: column},
		{module: "linear_attn.A_log", split: column, fp32: true},
		{module: "linear_attn.norm"},
		{module: "linear_attn.out_proj", split: row},
	}
	// qwenNextMoE: the router and shared-expert gate unquantized and whole,
	// the experts (one tensor per expert, as
	// bryce-hoehn/Qwen3.5-18B-REAP-A3B-Coding model.safetensors.index.json
	// names Qwen3.5-MoE's, or stacked [E, 2I, H] and [E, H, I] as
	// transformers 5 saves them: FusedMoE's fused mapping,
	// layers/fused_moe/routed_experts.py:877-960), the shared expert
	// (qwen3_next.py:100-190).
	qwenNextMoE = slices.Concat(routedExperts, gatedMLPAt("mlp.shared_expert"), []moduleRule{
		{module: "mlp.shared_expert_gate"},
		stackedAt("mlp.experts.gate_up_proj", "mlp.experts.w13_weight", gateUpOutIn),
		stackedAt("mlp.experts.down_proj", "mlp.experts.w2_weight", downOutIn),
	})
)

// qwen3NextClass is transformers Qwen3NextConfig, read at huggingface/transformers@008e574391;
// vLLM reads the configs with its own copy (vllm/transformers_utils/configs/qwen3_next.py at
// vLLM main ffd91ee17a, _CONFIG_REGISTRY), whose defaults are the same. partial_rotary_factor 0.25 and full_attention_interval 4 are __post_init__'s defaults.
var qwen3NextClass = configClass{
	Name:   "Qwen3NextConfig",
	Source: "src/transformers/models/qwen3_next/configuration_qwen3_next.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "151936"}, {"hidden_size", "2048"}, {"intermediate_size", "5632"},
		{"num_hidden_layers", "48"}, {"num_attention_heads", "16"}, {"num_key_value_heads", "2"},
		{"max_position_embeddings", "32768"}, {"tie_word_embeddings", "false"}, {"attention_bias", "false"},
		{"head_dim", "256"}, {"linear_conv_kernel_dim", "4"}, {"linear_key_head_dim", "128"},
		{"linear_value_head_dim", "128"}, {"linear_num_key_heads", "16"}, {"linear_num_value_heads", "32"},
		{"decoder_sparse_step", "1"}, {"moe_intermediate_size", "512"}, {"shared_expert_intermediate_size", "512"},
		{"num_experts_per_tok", "10"}, {"num_experts", "512"}, {"partial_rotary_factor", "0.25"},
		{"full_attention_interval", "4"},
	},
}

func init() { declareClass("qwen3_next", qwen3NextClass) }
