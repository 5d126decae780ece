package model

import "strings"

func init() {
	register("mamba2", flat(readMamba2SSM), ckptFamily(nemotronRename, [][]moduleRule{mamba2SSMLayer}, mambaSSMTop))
	registerArchitectures("mamba2", "Mamba2ForCausalLM")
	declareClass("mamba2", mamba2Class)
}

// readMamba2SSM reads Mamba2 (vllm/model_executor/models/mamba2.py at
// d18bb7b), attention-free: every layer a Mamba2 mixer (MambaMixer2 of
// num_heads heads of head_dim in n_groups groups, its gated norm weighted,
// :47-77) and one norm; the embeddings, norm_f and the head, tied by
// tie_word_embeddings, on every stage (:112-132, 234-240).
// Mamba2ForCausalLM does not implement SupportsPP, so vLLM refuses
// pipeline parallelism for it (NoPipeline). Its state is sized for
// expand x hidden_size channels (:186-214) and its weights for
// intermediate_size when the config gives one (:61-63): a config where
// they differ is refused.
func readMamba2SSM(o jsonObject, a *Arch) {
	a.Dtype = readDtype(o)
	a.Hidden = o.uint("hidden_size")
	a.NumLayers = o.uint("num_hidden_layers")
	a.Vocab = o.uint("vocab_size")
	a.MaxLenKeys = readMaxLenKeys(o)
	a.MaxPosition = a.MaxLenKeys["max_position_embeddings"]
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", false)
	a.NormsPerLayer = 1
	a.NoPipeline = true
	if a.NumLayers > 1<<16 {
		o.fail("num_hidden_layers", "%d is not a plausible layer count", a.NumLayers)
		return
	}
	a.Layers = make([]Layer, a.NumLayers)
	for i := range a.Layers {
		a.Layers[i].Kind = Mamba
	}
	inter := o.uint("expand") * a.Hidden
	if raw := strings.TrimSpace(string(o.m["intermediate_size"])); o.has("intermediate_size") && raw != "null" {
		if n := o.uint("intermediate_size"); n != inter {
			o.fail("intermediate_size", "%d is not expand x hidden_size %d: vLLM would build the weights for one and the state for the other (mamba2.py:61-63, 203)", n, inter)
		}
	}
	m := &MambaShape{Version: 2, NumHeads: o.uint("num_heads"), HeadDim: o.uint("head_dim"), StateSize: o.uint("state_size"),
		NGroups: o.uint("n_groups"), ConvKernel: o.uint("conv_kernel"), Intermediate: inter, ChunkSize: o.uintOr("chunk_size", 0)}
	for _, f := range []struct {
		key string
		v   uint64
	}{{"num_heads", m.NumHeads}, {"head_dim", m.HeadDim}, {"state_size", m.StateSize}, {"n_groups", m.NGroups}, {"conv_kernel", m.ConvKernel}} {
		if f.v == 0 || f.v > 1<<14 {
			o.fail(f.key, "%d: want a size in [1, %d]", f.v, 1<<14)
			return
		}
	}
	if m.NumHeads*m.HeadDim != inter {
		o.fail("num_heads", "%d heads of head_dim %d are not expand x hidden_size %d (MambaMixer2 asserts it)", m.NumHeads, m.HeadDim, inter)
	}
	if m.NumHeads%m.NGroups != 0 {
		o.fail("n_groups", "%d does not divide num_heads %d", m.NGroups, m.NumHeads)
	}
	a.Mamba = m
	a.tree = llamaTree()
	t := &a.tree
	t.mixerOnly, t.norms, t.norm = true, []string{"norm"}, "model.norm_f"
	t.rename = [][2]string{{"backbone.", "model."}}
	t.onEveryStage()
	t.mambaConvBias, t.mambaProjBias = o.boolOr("use_conv_bias", true), o.boolOr("use_bias", false)
}

// mamba2SSMLayer: Mamba2 as its checkpoints name it (transformers
// models/mamba2/modeling_mamba2.py: backbone.layers.N.mixer and norm):
// in_proj and conv1d column-parallel with n_groups repeated up to the
// ranks, A from A_log in float32, D, dt_bias and the gated norm divided,
// out_proj row-parallel.
var mamba2SSMLayer = []moduleRule{
	{module: "mixer.in_proj", split: column, heads: mambaRows},
	{module: "mixer.conv1d", split: column, heads: mambaRows},
	{module: "mixer.A_log", vllm: "mixer.A", split: column, fp32: true},
	{module: "mixer.D", split: column},
	{module: "mixer.dt_bias", split: column},
	{module: "mixer.norm", split: column},
	{module: "mixer.out_proj", split: row},
	{module: "norm"},
}

// mamba2Class is transformers Mamba2Config's signature as a stored copy
// of configuration_mamba2.py gives it (code index file id 1074707594);
// SGLang's own Mamba2Config for mistralai/Mamba-Codestral-7B-v0.1 has the
// same defaults (sglang/srt/configs/mamba2.py, index file id 52523424760).
var mamba2Class = configClass{
	Name:   "Mamba2Config",
	Source: "src/transformers/models/mamba2/configuration_mamba2.py (stored copy, index 1074707594)",
	Defaults: []classDefault{
		{"num_heads", "128"}, {"head_dim", "64"}, {"vocab_size", "32768"}, {"hidden_size", "4096"}, {"state_size", "128"},
		{"num_hidden_layers", "64"}, {"expand", "2"}, {"conv_kernel", "4"}, {"n_groups", "8"}, {"use_bias", "false"},
		{"use_conv_bias", "true"}, {"chunk_size", "256"}, {"tie_word_embeddings", "false"},
	},
}
