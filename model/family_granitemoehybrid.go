package model

import (
	"slices"
	"strings"
)

func init() {
	// Granite 4.0-H builds the embedding, the final norm and the head on
	// every pipeline stage: GraniteMoeHybridModel and its causal LM have
	// no PPMissingLayer (granitemoehybrid.py:343-368, 659-666 at d18bb7b).
	register("granitemoehybrid", flat(readGraniteMoEHybrid),
		ckptFamily(nil, [][]moduleRule{graniteHybridMamba, gqaAttention, graniteMoE, graniteSharedMLP, twoNorms}, graniteMoETop))
	registerArchitectures("granitemoehybrid", "GraniteMoeHybridForCausalLM")
	declareClass("granitemoehybrid", graniteMoEHybridClass)
}

// graniteHybridKinds are the layer_types vLLM's GraniteMoeHybridModel
// builds (ALL_DECODER_LAYER_TYPES, granitemoehybrid.py:318-325): the
// names before transformers 5.13 and after.
var graniteHybridKinds = map[string]LayerKind{
	"attention":        FullAttention,
	"mamba":            Mamba,
	"full_attention":   FullAttention,
	"linear_attention": Mamba,
}

// readGraniteMoEHybrid reads IBM Granite 4.0-H (vllm/model_executor/models/
// granitemoehybrid.py at d18bb7b): each layer a Mamba2 mixer (MambaMixer2
// of mamba_expand x hidden_size channels, :70-86) or attention of
// hidden_size / heads a head (:237-291), rotary only when
// position_embedding_type is "rope" (:273-281); then on every layer the
// MoE block of num_local_experts experts of intermediate_size when there
// are experts (:88-97) and the gated shared MLP of shared_intermediate_size
// when it is above 0 (:99-105), and two norms. The multipliers scale
// activations and take no memory; they are read so that a value of the
// wrong type is an error naming its key.
func readGraniteMoEHybrid(o jsonObject, a *Arch) {
	if o.has("head_dim") {
		// The attention takes hidden_size / heads whatever the config
		// says (granitemoehybrid.py:238).
		delete(o.m, "head_dim")
	}
	readCommon(o, a)
	for _, k := range []string{"embedding_multiplier", "residual_multiplier", "attention_multiplier", "logits_scaling"} {
		o.number(k)
	}
	if pe := o.str("position_embedding_type"); pe != "rope" {
		if pe != "" && pe != "nope" {
			o.fail("position_embedding_type", "%q: vLLM applies rotary embeddings for \"rope\" and none otherwise; want rope, nope or null", pe)
		}
		a.Rotary, a.RotaryDim = nil, 0
	}
	a.layerTypes = nil
	if !o.has("layer_types") {
		o.fail("layer_types", "missing: vLLM's GraniteMoeHybridModel builds each layer by config.layer_types (granitemoehybrid.py:349-359)")
		return
	}
	types := o.strings("layer_types")
	if uint64(len(types)) != a.NumLayers {
		o.fail("layer_types", "has %d entries for %d layers", len(types), a.NumLayers)
		return
	}
	experts, shared := o.uintOr("num_local_experts", 0), o.uintOr("shared_intermediate_size", 0)
	if experts == 0 && shared == 0 {
		o.fail("shared_intermediate_size", "0 with no experts: vLLM's layers would have no MLP, which membudget does not model")
		return
	}
	a.Layers = make([]Layer, 0, len(types))
	for i, s := range types {
		k, ok := graniteHybridKinds[s]
		if !ok {
			o.fail("layer_types", "layer %d: %q is not mamba, attention, linear_attention or full_attention", i, s)
			return
		}
		a.Layers = append(a.Layers, Layer{Kind: k, MoE: experts > 0, NoRoPE: k == FullAttention && a.Rotary == nil})
	}
	if slices.ContainsFunc(a.Layers, func(l Layer) bool { return l.Kind == Mamba }) {
		a.Mamba = readGraniteMamba(o, a.Hidden)
	}
	t := &a.tree
	t.mamba = "mamba"
	t.mambaConvBias, t.mambaProjBias = o.boolOr("mamba_conv_bias", true), o.boolOr("mamba_proj_bias", false)
	t.onEveryStage()
	a.AttnBias, a.OutBias = o.boolOr("attention_bias", false), o.boolOr("attention_bias", false)
	if experts > 0 {
		a.Experts = experts
		a.ExpertsPerToken = o.uint("num_experts_per_tok")
		a.MoEIntermediate = o.uint("intermediate_size")
		a.SharedIntermediate = shared
		t.mlp = "block_sparse_moe"
		return
	}
	// No experts: the shared MLP alone (granitemoehybrid.py:125-137).
	a.Intermediate = shared
	t.mlp, t.mlpNames = "shared_mlp", [2]string{"input_linear", "output_linear"}
}

// readGraniteMamba reads Granite 4.0-H's Mamba2 shape: mamba_expand x
// hidden_size channels in mamba_n_heads heads of mamba_d_head ("auto":
// the channels / heads, which GraniteMoeHybridConfig requires to divide).
func readGraniteMamba(o jsonObject, hidden uint64) *MambaShape {
	heads := o.uint("mamba_n_heads")
	inter := o.uint("mamba_expand") * hidden
	m := &MambaShape{Version: 2, NumHeads: heads, StateSize: o.uint("mamba_d_state"), NGroups: o.uint("mamba_n_groups"),
		ConvKernel: o.uint("mamba_d_conv"), Intermediate: inter, ChunkSize: o.uintOr("mamba_chunk_size", 0)}
	for _, f := range []struct {
		key string
		v   uint64
	}{{"mamba_n_heads", heads}, {"mamba_d_state", m.StateSize}, {"mamba_n_groups", m.NGroups}, {"mamba_d_conv", m.ConvKernel}, {"mamba_expand", o.uint("mamba_expand")}} {
		if f.v == 0 || f.v > 1<<14 {
			o.fail(f.key, "%d: want a size in [1, %d]", f.v, 1<<14)
			return m
		}
	}
	if inter%heads != 0 {
		o.fail("mamba_n_heads", "%d does not divide mamba_expand x hidden_size %d (GraniteMoeHybridConfig raises)", heads, inter)
		return m
	}
	m.HeadDim = inter / heads
	if raw := strings.TrimSpace(string(o.m["mamba_d_head"])); o.has("mamba_d_head") && raw != `"auto"` && raw != "null" {
		if d := o.uint("mamba_d_head"); d != m.HeadDim {
			o.fail("mamba_d_head", "%d x mamba_n_heads %d is not mamba_expand x hidden_size %d (GraniteMoeHybridConfig raises)", d, heads, inter)
		}
	}
	if heads%m.NGroups != 0 {
		o.fail("mamba_n_groups", "%d does not divide mamba_n_heads %d", m.NGroups, heads)
	}
	return m
}

// graniteHybridMamba: Granite 4.0-H's Mamba2 mixer as its checkpoints name
// it (layers.N.mamba.*, transformers models/granitemoehybrid/
// modeling_granitemoehybrid.py GraniteMoeHybridMambaLayer): in_proj and
// conv1d column-parallel with n_groups repeated up to the ranks, A from
// A_log in float32 (granitemoehybrid.py:500-502 renames it), D, dt_bias and
// the gated norm divided, out_proj row-parallel.
var graniteHybridMamba = []moduleRule{
	{module: "mamba.in_proj", split: column, heads: mambaRows},
	{module: "mamba.conv1d", split: column, heads: mambaRows},
	{module: "mamba.A_log", vllm: "mamba.A", split: column, fp32: true},
	{module: "mamba.D", split: column},
	{module: "mamba.dt_bias", split: column},
	{module: "mamba.norm", split: column},
	{module: "mamba.out_proj", split: row},
}

// graniteMoEHybridClass is transformers GraniteMoeHybridConfig, read at
// huggingface/transformers@008f5c8c29. attribute_map: layers_block_type
// is layer_types. num_key_value_heads None is num_attention_heads
// (readCommon); mamba_d_head "auto" is mamba_expand x hidden_size /
// mamba_n_heads (readGraniteMamba). layer_types has no default vLLM takes:
// its model indexes config.layer_types.
var graniteMoEHybridClass = configClass{
	Name:   "GraniteMoeHybridConfig",
	Source: "src/transformers/models/granitemoehybrid/configuration_granitemoehybrid.py@008f5c8c29",
	Defaults: []classDefault{
		{"vocab_size", "32000"}, {"hidden_size", "4096"}, {"intermediate_size", "11008"}, {"num_hidden_layers", "32"},
		{"num_attention_heads", "32"}, {"max_position_embeddings", "2048"}, {"tie_word_embeddings", "false"},
		{"attention_bias", "false"}, {"num_local_experts", "8"}, {"num_experts_per_tok", "2"},
		{"shared_intermediate_size", "1024"}, {"mamba_n_heads", "128"}, {"mamba_n_groups", "1"}, {"mamba_d_state", "256"},
		{"mamba_d_conv", "4"}, {"mamba_expand", "2"}, {"mamba_chunk_size", "256"}, {"mamba_conv_bias", "true"},
		{"mamba_proj_bias", "false"},
	},
	Aliases: []classAlias{{From: "layers_block_type", To: "layer_types"}},
}
