package model

import (
	"slices"
	"strings"

	"membudget/budget"
)

func init() {
	register("jamba", flat(readJamba), ckptFamily(nil, [][]moduleRule{jambaLayer}, everyStageTop[:1], jambaNormHead))
	registerArchitectures("jamba", "JambaForCausalLM")
	declareClass("jamba", jambaClass)
}

// readJamba reads AI21's Jamba (vllm/model_executor/models/jamba.py at
// d18bb7b): layer i is attention when i % attn_layer_period is
// attn_layer_offset, else a Mamba1 mixer (JambaConfig.layers_block_type,
// jamba.py:296-299, 323-334); its MLP a MoE of num_experts experts of
// intermediate_size when i % expert_layer_period is expert_layer_offset and
// num_experts is above 1, else Llama's gated MLP (:147-161, 243-257). The
// attention is of hidden_size / heads a head, without rotary or biases
// (:197-241); the embedding, final_layernorm and the untied head are built
// on every stage (:316-343, 428-432).
func readJamba(o jsonObject, a *Arch) {
	if o.has("head_dim") {
		delete(o.m, "head_dim") // JambaAttentionDecoderLayer: hidden_size // heads (jamba.py:212)
	}
	readCommon(o, a)
	a.Rotary, a.RotaryDim = nil, 0
	a.layerTypes = nil
	if a.TiedEmbeddings {
		o.fail("tie_word_embeddings", "true: vLLM's JambaForCausalLM builds its own lm_head and never ties it (jamba.py:428-432)")
	}
	if raw := strings.TrimSpace(string(o.m["sliding_window"])); o.has("sliding_window") && raw != "null" {
		o.fail("sliding_window", "%s: vLLM's Jamba attention would take it from the cache config, which membudget does not model for Jamba", raw)
	}
	attnPeriod, attnOffset := o.uintOr("attn_layer_period", 8), o.uintOr("attn_layer_offset", 4)
	expertPeriod, expertOffset := o.uintOr("expert_layer_period", 2), o.uintOr("expert_layer_offset", 1)
	for _, p := range []struct {
		what           string
		period, offset uint64
	}{{"attn_layer", attnPeriod, attnOffset}, {"expert_layer", expertPeriod, expertOffset}} {
		if p.offset >= p.period {
			o.fail(p.what+"_offset", "%d is not below %s_period %d (JambaConfig raises)", p.offset, p.what, p.period)
			return
		}
	}
	if a.NumLayers > 1<<16 {
		o.fail("num_hidden_layers", "%d is not a plausible layer count", a.NumLayers)
		return
	}
	experts := o.uintOr("num_experts", 16)
	a.Layers = make([]Layer, a.NumLayers)
	mamba := false
	for i := range a.Layers {
		l := &a.Layers[i]
		l.Kind = FullAttention
		if uint64(i)%attnPeriod != attnOffset {
			l.Kind, mamba = Mamba, true
		}
		l.MoE = experts > 1 && uint64(i)%expertPeriod == expertOffset
	}
	if slices.ContainsFunc(a.Layers, func(l Layer) bool { return l.MoE }) {
		a.Experts, a.ExpertsPerToken, a.MoEIntermediate = experts, o.uint("num_experts_per_tok"), a.Intermediate
	}
	if mamba {
		a.Mamba = readMamba1(o, "mamba_", a.Hidden)
	}
	t := &a.tree
	t.mamba, t.mlp, t.router = "mamba", "feed_forward", "router"
	t.norms, t.norm = []string{"input_layernorm", "pre_ff_layernorm"}, "model.final_layernorm"
	t.onEveryStage()
	t.mambaConvBias, t.mambaProjBias = o.boolOr("mamba_conv_bias", true), o.boolOr("mamba_proj_bias", false)
	t.mamba1Norms = true
}

// readMamba1 reads a Mamba1 mixer's shape from the keys with prefix p
// (Jamba's mamba_*, Mamba's bare ones): expand x hidden_size channels
// (Mamba's intermediate_size where the config gives it: hidden 0), state
// p+d_state, conv p+d_conv, and the time-step rank p+dt_rank, "auto" for
// ceil(hidden_size / 16) (transformers JambaConfig, MambaConfig).
func readMamba1(o jsonObject, p string, hidden uint64) *MambaShape {
	state, conv := p+"d_state", p+"d_conv"
	if p == "" {
		state, conv = "state_size", "conv_kernel"
	}
	m := &MambaShape{Version: 1, StateSize: o.uint(state), ConvKernel: o.uint(conv)}
	if hidden > 0 || !o.has("intermediate_size") {
		// MambaConfig sets intermediate_size to expand x hidden_size, a
		// config's own key overriding it (PretrainedConfig sets the
		// remaining keys after).
		m.Intermediate = o.uint(p+"expand") * o.uint("hidden_size")
	} else {
		m.Intermediate = o.uint("intermediate_size")
	}
	rank := p + "dt_rank"
	if p == "" {
		rank = "time_step_rank"
	}
	if raw := strings.TrimSpace(string(o.m[rank])); !o.has(rank) || raw == `"auto"` {
		m.TimeStepRank = budget.CeilDiv(o.uint("hidden_size"), 16)
	} else {
		m.TimeStepRank = o.uint(rank)
	}
	for _, f := range []struct {
		key string
		v   uint64
	}{{state, m.StateSize}, {conv, m.ConvKernel}, {rank, m.TimeStepRank}} {
		if f.v == 0 || f.v > 1<<14 {
			o.fail(f.key, "%d: want a size in [1, %d]", f.v, 1<<14)
		}
	}
	if m.Intermediate == 0 || m.Intermediate > 1<<20 {
		o.fail(p+"expand", "%d Mamba channels: want [1, %d]", m.Intermediate, 1<<20)
	}
	return m
}

// mamba1 adds a Mamba1 mixer at p (vllm/model_executor/layers/mamba/
// mamba_mixer.py:91-189, built without the quantization config): in_proj
// of x and z and conv1d column-parallel, x_proj of dt, B and C
// row-parallel without bias, dt_proj column-parallel with its bias, A
// (channels x state) in float32 and D divided by channel, out_proj
// row-parallel; the dt, B and C RMSNorms where the family builds them
// (use_rms_norm with weights).
func (w *weights) mamba1(p string) {
	a, m := w.a, w.a.Mamba
	w.unquantized(p+".in_proj", a.Hidden, 2*m.Intermediate, column, w.t.mambaProjBias)
	ch := budget.CeilDiv(m.Intermediate, w.tp)
	w.add(p+".conv1d.weight", bytesOf(budget.SatMul(ch, m.ConvKernel), w.dt))
	if w.t.mambaConvBias {
		w.add(p+".conv1d.bias", bytesOf(ch, w.dt))
	}
	w.unquantized(p+".x_proj", m.Intermediate, m.TimeStepRank+2*m.StateSize, row, false)
	w.unquantized(p+".dt_proj", m.TimeStepRank, m.Intermediate, column, true)
	w.add(p+".A", bytesOf(budget.SatMul(ch, m.StateSize), 4))
	w.add(p+".D", bytesOf(ch, w.dt))
	w.unquantized(p+".out_proj", m.Intermediate, a.Hidden, row, w.t.mambaProjBias)
	if w.t.mamba1Norms {
		w.add(p+".dt_layernorm.weight", bytesOf(m.TimeStepRank, w.dt))
		w.add(p+".b_layernorm.weight", bytesOf(m.StateSize, w.dt))
		w.add(p+".c_layernorm.weight", bytesOf(m.StateSize, w.dt))
	}
}

var (
	// jambaLayer: Jamba as ai21labs' checkpoints name it (transformers
	// models/jamba/modeling_jamba.py: mamba, self_attn, feed_forward with
	// a router and experts.N, input_layernorm, pre_ff_layernorm). The
	// Mamba1 mixer: in_proj, conv1d and dt_proj column-parallel, x_proj
	// and out_proj row-parallel, A from A_log in float32 and D divided,
	// the dt, B and C norms whole.
	jambaLayer = slices.Concat(gqaAttention, []moduleRule{
		{module: "mamba.in_proj", split: column},
		{module: "mamba.conv1d", split: column},
		{module: "mamba.x_proj", split: row},
		{module: "mamba.dt_proj", split: column},
		{module: "mamba.A_log", vllm: "mamba.A", split: column, fp32: true},
		{module: "mamba.D", split: column},
		{module: "mamba.out_proj", split: row},
		{module: "mamba.dt_layernorm"},
		{module: "mamba.b_layernorm"},
		{module: "mamba.c_layernorm"},
		{module: "input_layernorm"},
		{module: "pre_ff_layernorm"},
	}, gatedMLPAt("feed_forward"), expertsRouted("feed_forward", "router", "gate_proj", "up_proj", "down_proj", moduleRule{}))
	// jambaNormHead: final_layernorm and the head on every stage.
	jambaNormHead = []moduleRule{
		{module: "model.final_layernorm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
)

// jambaClass is transformers JambaConfig, read at
// huggingface/transformers@008f5c8c29. num_key_value_heads None is
// num_attention_heads (readCommon); mamba_dt_rank "auto" is
// ceil(hidden_size / 16) (readMamba1); the layer periods and offsets are
// read with their defaults by readJamba.
var jambaClass = configClass{
	Name:   "JambaConfig",
	Source: "src/transformers/models/jamba/configuration_jamba.py@008f5c8c29",
	Defaults: []classDefault{
		{"vocab_size", "65536"}, {"tie_word_embeddings", "false"}, {"hidden_size", "4096"}, {"intermediate_size", "14336"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "8"},
		{"max_position_embeddings", "262144"}, {"num_experts_per_tok", "2"}, {"num_experts", "16"},
		{"mamba_d_state", "16"}, {"mamba_d_conv", "4"}, {"mamba_expand", "2"}, {"mamba_conv_bias", "true"},
		{"mamba_proj_bias", "false"},
	},
}
