package model

func init() {
	register("mamba", flat(readMambaSSM), ckptFamily(nemotronRename, [][]moduleRule{mambaSSMLayer}, mambaSSMTop))
	registerArchitectures("mamba", "MambaForCausalLM")
	declareClass("mamba", mambaClass)
}

// readMambaSSM reads Mamba (vllm/model_executor/models/mamba.py at
// d18bb7b), attention-free: every layer a Mamba1 mixer of
// intermediate_size channels (MambaMixer without its dt, B and C norms,
// in_proj and out_proj biased by use_bias, :48-81) and one norm; the
// embeddings, norm_f and the head, tied by tie_word_embeddings, on every
// stage (:116-134, 191-197). It has no attention, so no heads, head size
// or rotary table; vLLM derives its length from whatever length key the
// config has, 2048 without one.
func readMambaSSM(o jsonObject, a *Arch) {
	a.Dtype = readDtype(o)
	a.Hidden = o.uint("hidden_size")
	a.NumLayers = o.uint("num_hidden_layers")
	a.Vocab = o.uint("vocab_size")
	a.MaxLenKeys = readMaxLenKeys(o)
	a.MaxPosition = a.MaxLenKeys["max_position_embeddings"]
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", true)
	a.NormsPerLayer = 1
	if a.NumLayers > 1<<16 {
		o.fail("num_hidden_layers", "%d is not a plausible layer count", a.NumLayers)
		return
	}
	a.Layers = make([]Layer, a.NumLayers)
	for i := range a.Layers {
		a.Layers[i].Kind = Mamba
	}
	a.Mamba = readMamba1(o, "", 0)
	a.tree = llamaTree()
	t := &a.tree
	t.mixerOnly, t.norms, t.norm = true, []string{"norm"}, "model.norm_f"
	t.rename = [][2]string{{"backbone.", "model."}}
	t.onEveryStage()
	t.mambaConvBias, t.mambaProjBias = o.boolOr("use_conv_bias", true), o.boolOr("use_bias", true)
}

var (
	// mambaSSMLayer: Mamba as state-spaces' -hf checkpoints name it
	// (transformers models/mamba/modeling_mamba.py: backbone.layers.N.
	// mixer and norm): in_proj, conv1d and dt_proj column-parallel, x_proj
	// and out_proj row-parallel, A from A_log in float32 and D divided
	// (mamba.py:176, hf_to_vllm_mapper).
	mambaSSMLayer = []moduleRule{
		{module: "mixer.in_proj", split: column},
		{module: "mixer.conv1d", split: column},
		{module: "mixer.x_proj", split: row},
		{module: "mixer.dt_proj", split: column},
		{module: "mixer.A_log", vllm: "mixer.A", split: column, fp32: true},
		{module: "mixer.D", split: column},
		{module: "mixer.out_proj", split: row},
		{module: "norm"},
	}
	// mambaSSMTop: the embeddings (backbone.embeddings), norm_f and the
	// head on every stage.
	mambaSSMTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.norm_f", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
)

// mambaClass is transformers MambaConfig, read at
// huggingface/transformers@00328d4e5b; tie_word_embeddings is
// PretrainedConfig's true. time_step_rank "auto" is ceil(hidden_size /
// 16) and intermediate_size expand x hidden_size (readMamba1).
var mambaClass = configClass{
	Name:   "MambaConfig",
	Source: "src/transformers/models/mamba/configuration_mamba.py@00328d4e5b",
	Defaults: []classDefault{
		{"vocab_size", "50280"}, {"hidden_size", "768"}, {"state_size", "16"}, {"num_hidden_layers", "32"},
		{"expand", "2"}, {"conv_kernel", "4"}, {"use_bias", "true"}, {"use_conv_bias", "true"},
		{"tie_word_embeddings", "true"},
	},
}
