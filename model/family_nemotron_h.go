package model

import (
	"slices"
	"strings"

	"membudget/budget"
)

func init() {
	register("nemotron_h", flat(readNemotronH), ckptFamily(nemotronRename, [][]moduleRule{nemotronLayer}, nemotronTop).skipping(mtpModules))
}

// nemotronBlocks are hybrid_override_pattern's characters
// (vllm/model_executor/models/nemotron_h.py:526-529).
var nemotronBlocks = map[rune]Layer{
	'M': {Kind: Mamba},
	'*': {Kind: FullAttention, NoRoPE: true},
	'-': {Kind: NoMixer},
	'E': {Kind: NoMixer, MoE: true},
}

// readNemotronH reads Nemotron-H (nemotron_h.py): one block per layer as
// hybrid_override_pattern says (M Mamba2, * attention without rotary, -
// ungated relu2 MLP, E MoE), the SSM state in mamba_ssm_cache_dtype.
func readNemotronH(o jsonObject, a *Arch) {
	if !o.has("head_dim") && o.has("attention_head_dim") {
		o.m["head_dim"] = o.m["attention_head_dim"]
	}
	if o.has("intermediate_size") && strings.HasPrefix(strings.TrimSpace(string(o.m["intermediate_size"])), "[") {
		o.fail("intermediate_size", "a list of per-layer sizes is not supported; one integer")
		return
	}
	readCommon(o, a)
	a.Rotary = nil // nemotron_h.py: attention without rotary embeddings
	t := &a.tree
	t.attn, t.mlp, t.mlpNames, t.ungated, t.mixerOnly = "mixer", "mixer", [2]string{"up_proj", "down_proj"}, true, true
	t.norm, t.norms = "model.norm_f", []string{"norm"}
	// nemotron_h.py:561, 595 and 814: the embedding, norm_f and head on
	// every stage.
	t.onEveryStage()
	t.routerDtype = routerFP32Fallback
	t.mambaConvBias, t.mambaProjBias = o.boolOr("use_conv_bias", true), o.boolOr("use_bias", false)
	t.rename = [][2]string{{"backbone.", "model."}}
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.NormsPerLayer = 1
	pattern := o.str("hybrid_override_pattern")
	if uint64(len(pattern)) != a.NumLayers {
		o.fail("hybrid_override_pattern", "has %d blocks for %d layers", len(pattern), a.NumLayers)
		return
	}
	if a.NumLayers > 1<<16 {
		o.fail("num_hidden_layers", "%d is not a plausible layer count", a.NumLayers)
		return
	}
	a.Layers = make([]Layer, 0, a.NumLayers)
	for i, c := range pattern {
		l, ok := nemotronBlocks[c]
		if !ok {
			o.fail("hybrid_override_pattern", "block %d: %q is not M, *, - or E", i, c)
			return
		}
		a.Layers = append(a.Layers, l)
	}
	if strings.Contains(pattern, "M") {
		heads, dim := o.uint("mamba_num_heads"), o.uint("mamba_head_dim")
		a.Mamba = &MambaShape{Version: 2, NumHeads: heads, HeadDim: dim, StateSize: o.uint("ssm_state_size"),
			NGroups: o.uint("n_groups"), ConvKernel: o.uint("conv_kernel"), Intermediate: heads * dim, ChunkSize: o.uintOr("chunk_size", 0)}
		for _, f := range []struct {
			key string
			v   uint64
		}{{"mamba_num_heads", heads}, {"mamba_head_dim", dim}, {"ssm_state_size", a.Mamba.StateSize}, {"n_groups", a.Mamba.NGroups}, {"conv_kernel", a.Mamba.ConvKernel}} {
			if f.v == 0 || f.v > 1<<14 {
				o.fail(f.key, "%d: want a size in [1, %d]", f.v, 1<<14)
			}
		}
		if a.Mamba.NGroups > 0 && heads%a.Mamba.NGroups != 0 {
			o.fail("n_groups", "%d does not divide mamba_num_heads %d", a.Mamba.NGroups, heads)
		}
	}
	if d := o.str("mamba_ssm_cache_dtype"); d != "" {
		if _, ok := dtypeBytes[d]; !ok {
			o.fail("mamba_ssm_cache_dtype", "unsupported dtype %q; want bfloat16, float16 or float32", d)
		}
		a.StateDtype = d
	}
	if strings.Contains(pattern, "E") {
		// nemotron_h.py:142-145 (d18bb7b): a moe_latent_size makes the
		// routed experts work at it, between fc1_latent_proj and
		// fc2_latent_proj; null or absent keeps them at hidden_size.
		if o.has("moe_latent_size") {
			a.MoELatent = o.uintValue("moe_latent_size")
			if a.MoELatent == 0 {
				o.fail("moe_latent_size", "0: want the routed experts' width, or null for hidden_size")
			}
		}
		a.Experts = o.uint("n_routed_experts")
		a.ExpertsPerToken = o.uint("num_experts_per_tok")
		a.MoEIntermediate = o.uint("moe_intermediate_size")
		a.SharedExperts = o.uintOr("n_shared_experts", 0)
		a.SharedIntermediate = a.SharedExperts * o.uintOr("moe_shared_expert_intermediate_size", 0)
		a.ScoreCorrectionBias = true // nemotron_h.py:157-160
	}
	a.MTPLayers = o.uintOr("num_nextn_predict_layers", o.uintOr("mtp_num_hidden_layers", 0))
}

// mamba2 adds a Mamba2 mixer (vllm/model_executor/layers/mamba/
// mamba_mixer2.py:300-480): in_proj of [x, z, B, C, dt], the unquantized
// convolution over [x, B, C], A in float32, D and dt_bias, the gated norm,
// out_proj; groups not divisible among the ranks are padded to them.
func (w *weights) mamba2(p string) {
	a, m := w.a, w.a.Mamba
	if m == nil {
		return
	}
	groups := m.NGroups
	if groups%w.tp != 0 {
		groups = budget.RoundUp(groups, w.tp)
	}
	gs := budget.SatMul(groups, m.StateSize)
	w.linear(p+".in_proj", a.Hidden, 2*m.Intermediate+2*gs+m.NumHeads, column, w.t.mambaProjBias, linearMod)
	conv := budget.CeilDiv(m.Intermediate+2*gs, w.tp)
	w.add(p+".conv1d.weight", bytesOf(budget.SatMul(conv, m.ConvKernel), w.dt))
	if w.t.mambaConvBias {
		w.add(p+".conv1d.bias", bytesOf(conv, w.dt))
	}
	heads := budget.CeilDiv(m.NumHeads, w.tp)
	w.add(p+".A", bytesOf(heads, 4))
	w.add(p+".D", bytesOf(heads, w.dt))
	w.add(p+".dt_bias", bytesOf(heads, w.dt))
	if !w.t.mambaNoNorm {
		w.add(p+".norm.weight", bytesOf(budget.CeilDiv(m.Intermediate, w.tp), w.dt))
	}
	w.linear(p+".out_proj", m.Intermediate, a.Hidden, row, w.t.mambaProjBias, linearMod)
}

var (
	// nemotronLayer: nvidia/NVIDIA-Nemotron-Nano-9B-v2 and
	// Nemotron-3-Nano (transformers models/nemotron_h/
	// modeling_nemotron_h.py; nemotron_h.py): one mixer per layer, Mamba2
	// (in_proj and conv1d column-parallel with n_groups repeated up to the
	// ranks, A from A_log in float32, D, dt_bias and the gated norm
	// divided, out_proj row-parallel), attention, a relu2 MLP or a MoE of
	// relu2 experts (up_proj alone) whose router is float32 unless the
	// device has the router GEMMs; one norm per layer.
	nemotronLayer = slices.Concat([]moduleRule{
		{module: "mixer.in_proj", split: column, heads: mambaRows},
		{module: "mixer.conv1d", split: column, heads: mambaRows},
		{module: "mixer.A_log", vllm: "mixer.A", split: column, fp32: true},
		{module: "mixer.D", split: column},
		{module: "mixer.dt_bias", split: column},
		{module: "mixer.norm", split: column},
		{module: "mixer.out_proj", split: row},
		{module: "mixer.up_proj", split: column},
		{module: "mixer.down_proj", split: row},
		{module: "mixer.gate.e_score_correction_bias", fp32: true},
		{module: "mixer.shared_experts.up_proj", split: column},
		{module: "mixer.shared_experts.down_proj", split: row},
		// nemotron_h.py:185-204: the latent projections are
		// ReplicatedLinear, whole on every rank.
		{module: "mixer.fc1_latent_proj"},
		{module: "mixer.fc2_latent_proj"},
		{module: "norm"},
	}, attentionAt("mixer"), expertsRouted("mixer", "gate", "up_proj", "", "down_proj", moduleRule{fp32NoRouterGEMM: true}))
	// nemotronRename: nemotron_h.py's hf_to_vllm_mapper (backbone. is
	// model., embeddings is embed_tokens).
	nemotronRename = [][2]string{{"backbone.embeddings.", "model.embed_tokens."}, {"backbone.", "model."}}
	// nemotronTop: nemotron_h.py builds the embedding, norm_f and head on
	// every stage.
	nemotronTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.norm_f", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
)

// nemotronHClass is transformers NemotronHConfig, read at huggingface/transformers@13923c63d5. attribute_map: num_local_experts is n_routed_experts; __post_init__ reads the mamba_* spellings; attention_head_dim is head_dim as vLLM's NemotronHConfig reads it (vllm/transformers_utils/configs/nemotron_h.py). The layer count and pattern have no default the reader takes.
var nemotronHClass = configClass{
	Name:   "NemotronHConfig",
	Source: "src/transformers/models/nemotron_h/configuration_nemotron_h.py@13923c63d5",
	Defaults: []classDefault{
		{"vocab_size", "131072"}, {"hidden_size", "4096"}, {"tie_word_embeddings", "false"},
		{"num_attention_heads", "32"}, {"num_key_value_heads", "8"}, {"head_dim", "128"},
		{"max_position_embeddings", "4096"}, {"attention_bias", "false"}, {"intermediate_size", "21504"},
		{"mlp_bias", "false"}, {"ssm_state_size", "128"}, {"mamba_num_heads", "128"},
		{"mamba_head_dim", "64"}, {"n_groups", "8"}, {"conv_kernel", "4"},
		{"use_conv_bias", "true"}, {"chunk_size", "128"}, {"mamba_ssm_cache_dtype", "\"float32\""},
		{"n_routed_experts", "8"}, {"n_shared_experts", "1"}, {"moe_intermediate_size", "7688"},
		{"moe_shared_expert_intermediate_size", "7688"}, {"num_experts_per_tok", "2"}, {"num_nextn_predict_layers", "0"},
		{"use_bias", "false"},
	},
	Aliases: []classAlias{{From: "num_local_experts", To: "n_routed_experts"}, {From: "mamba_n_groups", To: "n_groups"}, {From: "mamba_d_conv", To: "conv_kernel"}, {From: "mamba_conv_bias", To: "use_conv_bias"}, {From: "mamba_chunk_size", To: "chunk_size"}, {From: "attention_head_dim", To: "head_dim"}},
}

func init() { declareClass("nemotron_h", nemotronHClass) }
