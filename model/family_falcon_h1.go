package model

import (
	"slices"
	"strings"

	"membudget/budget"
)

func init() {
	register("falcon_h1", flat(readFalconH1), ckptFamily(nil, [][]moduleRule{falconH1Layer}, falconH1Top))
	registerArchitectures("falcon_h1", "FalconH1ForCausalLM")
	declareClass("falcon_h1", falconH1Class)
}

// readFalconH1 reads TII's Falcon-H1 (vllm/model_executor/models/
// falcon_h1.py at d18bb7b): every layer runs attention and a Mamba2 mixer
// side by side on the same input (FalconH1ParallelHybrid, :315-411), then
// a gated MLP (feed_forward, :58-97); attention without biases of head_dim
// (or hidden_size / heads) a head, attn_rotary_emb of it rotary
// (:237-256); the mixer of mamba_d_ssm channels (mamba_expand x
// hidden_size when null, :113-117), its gated norm weighted only under
// mamba_rms_norm; the embedding on the first stage, final_layernorm and
// the head on the last (:427-458, 594-611). The multipliers scale
// activations and take no memory; they are read so that a value of the
// wrong type is an error naming its key.
func readFalconH1(o jsonObject, a *Arch) {
	readCommon(o, a)
	for _, k := range []string{"embedding_multiplier", "lm_head_multiplier", "key_multiplier", "attention_in_multiplier",
		"attention_out_multiplier", "ssm_in_multiplier", "ssm_out_multiplier"} {
		o.number(k)
	}
	if act := o.str("hidden_act"); act != "" && act != "silu" {
		o.fail("hidden_act", "%q: vLLM's FalconH1MLP raises for any activation but silu (falcon_h1.py:84-88)", act)
	}
	for _, k := range []string{"attention_bias", "projectors_bias", "mlp_bias"} {
		if o.boolOr(k, false) {
			o.fail(k, "true: vLLM's FalconH1 builds its attention and MLP without biases (falcon_h1.py:63-79, 258-273) and would not load them")
		}
	}
	rotary := o.uintOr("attn_rotary_emb", a.HeadDim)
	if rotary == 0 || rotary > a.HeadDim {
		o.fail("attn_rotary_emb", "%d: want a rotary size in [1, head_dim %d]", rotary, a.HeadDim)
	}
	a.RotaryDim = rotary
	if len(a.Rotary) > 0 {
		a.Rotary[0].Dim = rotary
	}
	// FalconH1Config's layer_types is its every-layer "hybrid"
	// (attribute_map): not a pattern.
	a.layerTypes = nil
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		a.Layers[i].MambaBeside = true
	}
	a.Mamba = readFalconH1Mamba(o, a.Hidden)
	t := &a.tree
	t.mlp, t.norms, t.norm = "feed_forward", []string{"input_layernorm", "pre_ff_layernorm"}, "model.final_layernorm"
	t.mambaConvBias, t.mambaProjBias = o.boolOr("mamba_conv_bias", true), o.boolOr("mamba_proj_bias", false)
	t.mambaNoNorm = !o.boolOr("mamba_rms_norm", false)
}

// readFalconH1Mamba reads Falcon-H1's Mamba2 shape: mamba_d_ssm channels
// (mamba_expand x hidden_size when null) in mamba_n_heads heads of
// mamba_d_head ("auto": the channels / heads), which FalconH1Config
// requires to multiply to the channels.
func readFalconH1Mamba(o jsonObject, hidden uint64) *MambaShape {
	inter := o.uintOr("mamba_expand", 2) * hidden
	if raw := strings.TrimSpace(string(o.m["mamba_d_ssm"])); o.has("mamba_d_ssm") && raw != "null" {
		inter = o.uint("mamba_d_ssm")
	}
	heads := o.uint("mamba_n_heads")
	m := &MambaShape{Version: 2, NumHeads: heads, StateSize: o.uint("mamba_d_state"), NGroups: o.uint("mamba_n_groups"),
		ConvKernel: o.uint("mamba_d_conv"), Intermediate: inter, ChunkSize: o.uintOr("mamba_chunk_size", 0)}
	for _, f := range []struct {
		key string
		v   uint64
	}{{"mamba_n_heads", heads}, {"mamba_d_state", m.StateSize}, {"mamba_n_groups", m.NGroups}, {"mamba_d_conv", m.ConvKernel}} {
		if f.v == 0 || f.v > 1<<14 {
			o.fail(f.key, "%d: want a size in [1, %d]", f.v, 1<<14)
			return m
		}
	}
	if inter == 0 || inter > 1<<20 || inter%heads != 0 {
		o.fail("mamba_n_heads", "%d does not divide the Mamba channels %d (FalconH1Config raises)", heads, inter)
		return m
	}
	m.HeadDim = inter / heads
	if raw := strings.TrimSpace(string(o.m["mamba_d_head"])); o.has("mamba_d_head") && raw != `"auto"` && raw != "null" {
		if d := o.uint("mamba_d_head"); d != m.HeadDim {
			o.fail("mamba_d_head", "%d x mamba_n_heads %d is not the Mamba channels %d (FalconH1Config raises)", d, heads, inter)
		}
	}
	if heads%m.NGroups != 0 {
		o.fail("mamba_n_groups", "%d does not divide mamba_n_heads %d", m.NGroups, heads)
	}
	return m
}

// mambaBeside adds a Falcon-H1 layer's Mamba branch at p: FalconH1SSMDecoderLayer's
// MambaMixer2 (mamba.mamba, hf_to_vllm_mapper's "mamba" -> "mamba.mamba",
// falcon_h1.py:509-521) and its mup_vector, a non-persistent buffer of
// one multiplier per in_proj output on the rank in the default dtype
// (torch.ones, :162-196), n_groups counted after MambaMixer2 repeats them
// up to the ranks.
func (w *weights) mambaBeside(p string) {
	m := w.a.Mamba
	if m == nil {
		return
	}
	w.mamba2(p + "mamba.mamba")
	groups := m.NGroups
	if groups%w.tp != 0 {
		groups = budget.RoundUp(groups, w.tp)
	}
	n := budget.SatAdd(budget.SatAdd(2*m.Intermediate, budget.SatMul(2*groups, m.StateSize)), m.NumHeads)
	w.add(p+"mamba.mup_vector", bytesOf(n/w.tp, w.dt))
}

var (
	// falconH1Layer: Falcon-H1 as its checkpoints name it (transformers
	// models/falcon_h1/modeling_falcon_h1.py FalconH1DecoderLayer:
	// self_attn, mamba, feed_forward, input_layernorm, pre_ff_layernorm),
	// the mixer under vLLM's mamba.mamba: in_proj and conv1d
	// column-parallel with n_groups repeated up to the ranks, A from
	// A_log in float32, D, dt_bias and the gated norm divided, out_proj
	// row-parallel.
	falconH1Layer = slices.Concat(gqaAttention, []moduleRule{
		{module: "mamba.in_proj", vllm: "mamba.mamba.in_proj", split: column, heads: mambaRows},
		{module: "mamba.conv1d", vllm: "mamba.mamba.conv1d", split: column, heads: mambaRows},
		{module: "mamba.A_log", vllm: "mamba.mamba.A", split: column, fp32: true},
		{module: "mamba.D", vllm: "mamba.mamba.D", split: column},
		{module: "mamba.dt_bias", vllm: "mamba.mamba.dt_bias", split: column},
		{module: "mamba.norm", vllm: "mamba.mamba.norm", split: column},
		{module: "mamba.out_proj", vllm: "mamba.mamba.out_proj", split: row},
		{module: "input_layernorm"},
		{module: "pre_ff_layernorm"},
	}, gatedMLPAt("feed_forward"))
	// falconH1Top: the embedding on the first stage, final_layernorm and
	// the head on the last.
	falconH1Top = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: firstStage, tiedHead: true},
		{module: "model.final_layernorm", place: lastStage},
		{module: "lm_head", split: column, vocab: true, place: lastStage},
	}
)

// falconH1Class is transformers FalconH1Config, read at
// huggingface/transformers@020a37d226. num_key_value_heads None is
// num_attention_heads (readCommon); mamba_d_head "auto" is the channels /
// mamba_n_heads (readFalconH1Mamba). vLLM's model reads a missing
// max_position_embeddings as 8192, the class's default too
// (falcon_h1.py:221).
var falconH1Class = configClass{
	Name:   "FalconH1Config",
	Source: "src/transformers/models/falcon_h1/configuration_falcon_h1.py@020a37d226",
	Defaults: []classDefault{
		{"vocab_size", "128000"}, {"tie_word_embeddings", "false"}, {"hidden_size", "4096"}, {"intermediate_size", "14336"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"num_key_value_heads", "8"},
		{"max_position_embeddings", "8192"}, {"mamba_d_ssm", "1024"}, {"mamba_n_heads", "128"}, {"mamba_n_groups", "1"},
		{"mamba_d_state", "256"}, {"mamba_d_conv", "4"}, {"mamba_expand", "2"}, {"mamba_chunk_size", "256"},
		{"mamba_conv_bias", "true"}, {"mamba_proj_bias", "false"}, {"mamba_rms_norm", "false"},
	},
}
