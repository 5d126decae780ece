package model

import (
	"bytes"
	"encoding/json"
	"slices"
)

func init() {
	// tencent's Hunyuan MoE checkpoints (Hunyuan-A13B's modeling_hunyuan.py):
	// the dense family's attention and norms, the router at mlp.gate.wg,
	// the shared expert at mlp.shared_mlp and one tensor per expert and
	// projection under mlp.experts.N; a config of no experts is the dense
	// model's tree, mlp.gate_proj and so on.
	f := ckptFamily(nil, [][]moduleRule{gqaAttention, hunyuanQKNorms, gatedMLP, hunyuanMoE, twoNorms})
	declareClass("hunyuan_v1_moe", hunyuanMoEClass)
	register("hunyuan_v1_moe", flat(readHunyuanMoE), f)
	registerArchitectures("hunyuan_v1_moe", "HunYuanMoEV1ForCausalLM")
}

// hunyuanMoEClass is HunYuanMoEV1Config (transformers models/
// hunyuan_v1_moe/configuration_hunyuan_v1_moe.py at 008cd60): one expert
// (no MoE at all) unless the config says more, top-1, no shared expert;
// head_dim None (the attention derives it), no moe_intermediate_size or
// num_shared_expert attribute, which vLLM reads from the file.
var hunyuanMoEClass = configClass{
	Name:   "HunYuanMoEV1Config",
	Source: "src/transformers/models/hunyuan_v1_moe/configuration_hunyuan_v1_moe.py@008cd60",
	Defaults: []classDefault{
		{"vocab_size", "290943"}, {"hidden_size", "4096"}, {"intermediate_size", "11008"}, {"num_hidden_layers", "32"},
		{"num_attention_heads", "32"}, {"max_position_embeddings", "2048"}, {"tie_word_embeddings", "false"},
		{"num_experts", "1"}, {"use_mixed_mlp_moe", "false"}, {"moe_topk", "1"},
	},
}

// readHunyuanMoE reads Hunyuan MoE (HunYuanMoEV1ForCausalLM,
// vllm/model_executor/models/hunyuan_v1.py at d18bb7b): the dense model's
// attention (readHunyuanAttention); with num_experts above 1 (_is_moe,
// :88-98) every layer's MLP is HunYuanSparseMoeBlock (:528-535): the router
// ReplicatedLinear(hidden, num_experts) unquantized in the model dtype
// (:410-416), FusedMoE of num_experts experts top moe_topk of
// moe_intermediate_size (intermediate_size when it is null, :392-399), and
// with use_mixed_mlp_moe a shared HunYuanMLP of intermediate_size x
// num_shared_expert, unbiased (:417-436); moe_topk, moe_intermediate_size
// and num_shared_expert may be lists by layer (membudget sizes one value
// for every layer and refuses lists that differ). num_experts 1 or
// less is the dense model's MLP, biased by mlp_bias (:536-544). A
// num_experts list fails vLLM's comparison with the TP size (:378) and is
// refused, as is use_mla, whose weights vLLM does not build.
func readHunyuanMoE(o jsonObject, a *Arch) {
	readHunyuanAttention(o, a)
	a.layerTypes = nil
	a.uniformLayers(o, 0)
	if isJSONList(o, "num_experts") {
		o.fail("num_experts", "a list: vLLM's HunYuanSparseMoeBlock compares it with the TP size as one number (hunyuan_v1.py:376-382)")
		return
	}
	if o.boolOr("use_mla", false) {
		o.fail("use_mla", "true: vLLM's HunYuanMoEV1ForCausalLM builds no latent attention (hunyuan_v1.py:147-223)")
	}
	experts := o.uintOr("num_experts", 1)
	if experts <= 1 {
		a.MLPBias = o.boolOr("mlp_bias", false)
		return
	}
	layers := a.NumLayers
	a.Experts = experts
	a.TPWithinExperts = "hunyuan_v1.py:378-382"
	a.ExpertsPerToken = hunyuanPerLayer(o, "moe_topk", layers)
	if !o.has("moe_intermediate_size") {
		if _, present := o.m["moe_intermediate_size"]; !present {
			o.fail("moe_intermediate_size", "missing (required: vLLM's HunYuanSparseMoeBlock reads it, null for intermediate_size; hunyuan_v1.py:392-399)")
		}
		a.MoEIntermediate = a.Intermediate
	} else {
		a.MoEIntermediate = hunyuanPerLayer(o, "moe_intermediate_size", layers)
	}
	if hunyuanMixed(o) {
		if !o.has("num_shared_expert") {
			o.fail("num_shared_expert", "missing (required with use_mixed_mlp_moe: hunyuan_v1.py:417-434)")
		}
		shared := hunyuanPerLayer(o, "num_shared_expert", layers)
		a.SharedExperts = shared
		a.SharedIntermediate = a.Intermediate * shared
	}
	if (a.SharedIntermediate > 0 || a.MoEIntermediate == 0) && a.Intermediate == 0 {
		o.fail("intermediate_size", "missing (required: the shared expert's width, or the experts' when moe_intermediate_size is null)")
	}
	if a.ExpertsPerToken == 0 || a.ExpertsPerToken > a.Experts {
		o.fail("moe_topk", "%d: want 1 to num_experts (%d)", a.ExpertsPerToken, a.Experts)
	}
	a.MLPBias = false // the shared expert is unbiased whatever mlp_bias says (hunyuan_v1.py:427-434)
	a.tree.shared = "shared_mlp"
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}

// hunyuanMixed reads use_mixed_mlp_moe, a bool or a number vLLM compares
// with 0 (hunyuan_v1.py:417).
func hunyuanMixed(o jsonObject) bool {
	if !o.has("use_mixed_mlp_moe") {
		return false
	}
	var b bool
	if json.Unmarshal(o.m["use_mixed_mlp_moe"], &b) == nil {
		return b
	}
	var n float64
	if err := json.Unmarshal(o.m["use_mixed_mlp_moe"], &n); err != nil {
		o.fail("use_mixed_mlp_moe", "must be true, false or a number, got %s", short(o.m["use_mixed_mlp_moe"]))
	}
	return n > 0
}

// isJSONList reports whether o's key holds a JSON list.
func isJSONList(o jsonObject, key string) bool {
	return o.has(key) && bytes.HasPrefix(bytes.TrimSpace(o.m[key]), []byte("["))
}

// hunyuanPerLayer reads key as one number for every layer, or a list
// indexed by layer (vLLM reads entry layer_id and asserts the list is that
// long): the list's first layers entries must be one value.
func hunyuanPerLayer(o jsonObject, key string, layers uint64) uint64 {
	if !isJSONList(o, key) {
		return o.uint(key)
	}
	vs := o.uints(key)
	if uint64(len(vs)) < layers {
		o.fail(key, "has %d entries for %d layers (vLLM asserts one a layer, hunyuan_v1.py:384-425)", len(vs), layers)
		return 0
	}
	vs = vs[:layers]
	if len(vs) == 0 {
		return 0
	}
	if slices.ContainsFunc(vs, func(v uint64) bool { return v != vs[0] }) {
		o.fail(key, "differs by layer: membudget sizes one value for every layer")
		return 0
	}
	return vs[0]
}

// hunyuanMoE: the router nn.Linear wg under mlp.gate (loaded into vLLM's
// mlp.gate, hunyuan_v1.py:883-884), one tensor per expert, and the shared
// expert.
var hunyuanMoE = slices.Concat(expertsRouted("mlp", "gate.wg", "gate_proj", "up_proj", "down_proj", moduleRule{vllm: "mlp.gate"}),
	gatedMLPAt("mlp.shared_mlp"))
