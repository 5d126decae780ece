package model

import (
	"slices"
	"strings"
)

// The module trees, as the transformers modeling files name them in a
// checkpoint and as vLLM shards them (vllm/model_executor/models/<family>.py
// and layers/linear.py at d18bb7b): column-parallel layers divide their
// output rows, row-parallel ones their input features (their bias is
// whole), replicated ones are whole on every rank. The rules several
// families share are here; each family's own are in its family_<name>.go,
// beside its config reader.
//
// The families added from vLLM main d18bb7b each name where their tensor
// names come from: a published checkpoint's model.safetensors.index.json, a
// converter that writes the checkpoint (transformers' convert_*.py,
// pytorch/torchtitan's state-dict adapters), or, where neither was found,
// transformers' modeling file for the family, whose module tree is the
// checkpoint's names, with the names vLLM's load_weights expects.

var (
	decoderTop = decoderTopOn(firstStage, lastStage, lastStage)
	// gqaAttention: QKVParallelLinear over q_proj, k_proj, v_proj, and a
	// row-parallel o_proj.
	gqaAttention = attentionAt("self_attn")
	qkNorms      = []moduleRule{
		{module: "self_attn.q_norm"},
		{module: "self_attn.k_norm"},
	}
	// gatedMLP: MergedColumnParallelLinear over gate_proj and up_proj, and
	// a row-parallel down_proj.
	gatedMLP = gatedMLPAt("mlp")
	twoNorms = []moduleRule{
		{module: "input_layernorm"},
		{module: "post_attention_layernorm"},
	}
	// routedExperts: Qwen3-MoE's and DeepSeek's experts.
	routedExperts = expertsAt("mlp", "gate_proj", "up_proj", "down_proj")
	// postNorms: OLMo 3's and EXAONE 4's norms after the attention and
	// after the MLP (olmo3.py:251-258, exaone4.py:255-260).
	postNorms = []moduleRule{
		{module: "post_attention_layernorm"},
		{module: "post_feedforward_layernorm"},
	}
	// everyStageTop: the embedding, final norm and head on every stage
	// (olmo3.py:285-300, 372; gpt_oss.py GptOssModel and
	// GptOssForCausalLM).
	everyStageTop = decoderTopOn(allStages, allStages, allStages)
	// mtpModules: the checkpoints of Qwen3-Next, Qwen3.5 and Nemotron-H
	// keep their MTP layers under mtp.
	mtpModules = [2]string{"mtp.", skipMTPModule}
)

// expertsAt is a MoE block at p whose checkpoint names each expert's
// projections gate, up and down: the router (gate) whole on every rank,
// and FusedMoE, which stacks every expert's gate and up into w13 and down
// into w2 (vllm/model_executor/layers/fused_moe/layer.py); tensor
// parallelism divides each expert's intermediate, expert parallelism the
// experts. The router is held as the checkpoint stores it: quantized only
// where the family quantizes it (Qwen3-MoE) and the checkpoint did.
func expertsAt(p, gate, up, down string) []moduleRule {
	return expertsRouted(p, "gate", gate, up, down, moduleRule{})
}

// gatedMLPAt is a gated MLP at prefix p: gate_proj and up_proj fused into
// one column-parallel gate_up_proj, down_proj row-parallel.
func gatedMLPAt(p string) []moduleRule {
	return []moduleRule{
		{module: p + ".gate_proj", vllm: p + ".gate_up_proj", split: column},
		{module: p + ".up_proj", vllm: p + ".gate_up_proj", split: column, follower: true},
		{module: p + ".down_proj", split: row},
	}
}

// attentionAt is QKVParallelLinear over p's q_proj, k_proj and v_proj, and
// p's row-parallel o_proj.
func attentionAt(p string) []moduleRule {
	return []moduleRule{
		{module: p + ".q_proj", vllm: p + ".qkv_proj", split: column},
		{module: p + ".k_proj", vllm: p + ".qkv_proj", split: column, heads: kvRows, follower: true},
		{module: p + ".v_proj", vllm: p + ".qkv_proj", split: column, heads: kvRows, follower: true},
		{module: p + ".o_proj", split: row},
	}
}

// decoderTopOn is the embedding, final norm and head on the given stages.
func decoderTopOn(embed, norm, head stage) []moduleRule {
	return []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: embed, tiedHead: true},
		{module: "model.norm", place: norm},
		{module: "lm_head", split: column, vocab: true, place: head},
	}
}

// under puts prefix p before the module and the vLLM name of every rule.
func under(p string, rules ...[]moduleRule) []moduleRule {
	var out []moduleRule
	for _, r := range slices.Concat(rules...) {
		r.module = p + r.module
		if r.vllm != "" {
			r.vllm = p + r.vllm
		}
		if r.fuseWith != "" {
			r.fuseWith, r.fusedVLLM = p+r.fuseWith, p+r.fusedVLLM
		}
		if r.twiceWithout != "" {
			r.twiceWithout = p + r.twiceWithout
		}
		out = append(out, r)
	}
	return out
}

// onFirstStage places top rules on the first stage, with the vision
// towers and projectors.
func onFirstStage(rules ...[]moduleRule) []moduleRule {
	return atStage(firstStage, rules)
}

// onVisionTower places the rules of a vision tower and its projector on
// the first stage, unless the engine builds no vision tower
// (Sharding.TowersOff).
func onVisionTower(rules ...[]moduleRule) []moduleRule {
	return atStage(visionTower, rules)
}

// atStage is rules placed on stage st.
func atStage(st stage, rules [][]moduleRule) []moduleRule {
	out := slices.Concat(rules...)
	for i := range out {
		out[i].place = st
	}
	return out
}

// inVLLM rewrites a prefix of the vLLM names of rules, as the family's
// hf_to_vllm_mapper does (gpt-oss's self_attn. is vLLM's attn.).
func inVLLM(from, to string, rules ...[]moduleRule) []moduleRule {
	out := slices.Concat(rules...)
	for i := range out {
		if rest, ok := strings.CutPrefix(out[i].vllmName(), from); ok {
			out[i].vllm = to + rest
		}
	}
	return out
}

// stackedAt is a tensor of every expert at module m loaded into vllm, its
// layout l.
func stackedAt(m, vllm string, l stackedLayout) moduleRule {
	return moduleRule{module: m, vllm: vllm, expert: stackedExperts, stacked: &l}
}

// The stacked expert layouts: gate and up [E, 2I, H] and down [E, H, I]
// as vLLM's FusedMoE keeps them (Gemma 4's and Qwen3.5-MoE's checkpoints);
// transposed, [E, H, 2I] and [E, I, H] (Llama 4's and bf16 gpt-oss's,
// which vLLM transposes when it loads: llama4.py:436-445, gpt_oss.py
// _load_weights_other).
var (
	gateUpOutIn = stackedLayout{inter: 1, hidden: 2, shards: 2}
	downOutIn   = stackedLayout{inter: 2, hidden: 1, shards: 1}
	gateUpInOut = stackedLayout{inter: 2, hidden: 1, shards: 2}
	downInOut   = stackedLayout{inter: 1, hidden: 2, shards: 1}
)

// expertsRouted is a MoE block at p whose router is router (its rule
// routerRule, module and name set here) and whose checkpoint names each
// expert's gate, up and down projections.
func expertsRouted(p, router, gate, up, down string, routerRule moduleRule) []moduleRule {
	routerRule.module = p + "." + router
	return append([]moduleRule{routerRule}, perExpert(p+".experts", gate, up, down)...)
}

// perExpert is FusedMoE at e loading each expert's gate and up into w13 and
// down into w2; up "" for an ungated expert (Nemotron-H's relu2: up_proj
// alone is w13).
func perExpert(e, gate, up, down string) []moduleRule {
	rules := []moduleRule{
		{module: e + ".*." + gate, vllm: e, paramPrefix: "w13_", split: column, expert: oneExpert},
		{module: e + ".*." + down, vllm: e, paramPrefix: "w2_", split: row, expert: oneExpert},
	}
	if up != "" {
		rules = append(rules, moduleRule{module: e + ".*." + up, vllm: e, paramPrefix: "w13_", split: column, expert: oneExpert, follower: true})
	}
	return rules
}

// towerLayers marks rules as a vision tower's layers, whose index is the
// first "*".
func towerLayers(rules []moduleRule) []moduleRule {
	for i := range rules {
		rules[i].towerLayer = true
	}
	return rules
}
