package model

import "slices"

func init() {
	register("deepseek_v2", flat(readDeepSeek), ckptFamily(nil, [][]moduleRule{mlaAttention, gatedMLP, deepseekMoE, twoNorms}))
	register("deepseek_v3", flat(readDeepSeek), ckptFamily(nil, [][]moduleRule{mlaAttention, gatedMLP, deepseekMoE, twoNorms}))
	// deepseek-ai/DeepSeek-V3.2-Exp and zai-org/GLM-5: DeepSeek-V3's
	// layers and the indexer, named as deepseek_v2.py:1531-1600 loads it;
	// moonshotai/Kimi-K2-Instruct: DeepSeek-V3's (names as pytorch/
	// torchtitan torchtitan/models/deepseek_v3/state_dict_adapter.py maps
	// them); Kimi-K2.5 nests it beside MoonViT.
	register("deepseek_v32", flat(readDeepSeek), ckptFamily(nil, [][]moduleRule{mlaAttention, dsaIndexer, gatedMLP, deepseekMoE, twoNorms}))
	register("glm_moe_dsa", flat(readDeepSeek), ckptFamily(nil, [][]moduleRule{mlaAttention, dsaIndexer, gatedMLP, deepseekMoE, twoNorms}))
	register("kimi_k2", flat(readDeepSeek), ckptFamily(kimiRename, [][]moduleRule{mlaAttention, gatedMLP, deepseekMoE, twoNorms}))
	// Kimi-K2.5's MoonViT tower and projector: family_kimi_k25_vision.go.
	registerMultimodal("kimi_k25", wrapper("kimi_k2", readMoonViT),
		ckptFamily(kimiRename, [][]moduleRule{mlaAttention, gatedMLP, deepseekMoE, twoNorms}, moonViT))
}

// readDeepSeek reads DeepSeek V2/V3/V3.2, Kimi-K2 and GLM-MoE-DSA
// (vllm/model_executor/models/deepseek_v2.py): multi-head latent attention,
// MoE from first_k_dense_replace on every moe_layer_freq-th layer with
// shared experts, V3.2's lightning indexer (index_topk), MTP layers past
// num_hidden_layers.
func readDeepSeek(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.MLA = true
	a.KVLoraRank = o.uint("kv_lora_rank")
	a.QLoraRank = o.uintOr("q_lora_rank", 0)
	a.QKNopeHeadDim = o.uint("qk_nope_head_dim")
	a.QKRopeHeadDim = o.uint("qk_rope_head_dim")
	a.VHeadDim = o.uint("v_head_dim")
	a.HeadDim = a.QKNopeHeadDim + a.QKRopeHeadDim
	a.RotaryDim = a.QKRopeHeadDim
	a.Rotary[0].Dim = a.RotaryDim
	a.KVHeads = a.Heads // MLA: every head reads the one latent
	a.Experts = o.uintOr("n_routed_experts", 0)
	a.SharedExperts = o.uintOr("n_shared_experts", 0)
	a.MoEIntermediate = o.uintOr("moe_intermediate_size", 0)
	a.SharedIntermediate = a.SharedExperts * a.MoEIntermediate
	a.ExpertsPerToken = o.uintOr("num_experts_per_tok", 0)
	a.ScoreCorrectionBias = o.str("topk_method") == "noaux_tc"
	a.MTPLayers = o.uintOr("num_nextn_predict_layers", 0)
	a.tree.fusedQKVA = a.QLoraRank > 0
	a.tree.packed = map[string][]string{"gate_up_proj": {"gate_proj", "up_proj"}, "fused_qkv_a_proj": {"q_a_proj", "kv_a_proj_with_mqa"}}
	// moe_router_dtype float32 (and every glm_moe_dsa) sets only the
	// router's output dtype: GateLinear gets no params_dtype, so its
	// weight is in the model dtype (deepseek_v2.py:123-133, 308-314;
	// layers/fused_moe/router/gate_linear.py:49-75). The string is read so
	// that a value of the wrong type is an error naming the key.
	o.str("moe_router_dtype")
	if a.ModelType == "kimi_k2" || a.ModelType == "kimi_k25" {
		a.tree.rename = [][2]string{{"language_model.model.", "model."}, {"language_model.lm_head", "lm_head"}}
	}
	firstDense := o.uintOr("first_k_dense_replace", 0)
	freq := o.uintOr("moe_layer_freq", 1)
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		// vLLM deepseek_v2.py DeepseekV2DecoderLayer: MoE when
		// n_routed_experts is set, layer >= first_k_dense_replace and
		// layer % moe_layer_freq == 0.
		a.Layers[i].MoE = a.Experts > 0 && uint64(i) >= firstDense && freq > 0 && uint64(i)%freq == 0
	}
	if a.Experts > 0 && (a.MoEIntermediate == 0 || a.ExpertsPerToken == 0) {
		o.fail("moe_intermediate_size", "n_routed_experts is set but moe_intermediate_size or num_experts_per_tok is missing")
	}
	if o.has("index_topk") {
		a.Indexer = &IndexerShape{HeadDim: o.uint("index_head_dim"), NumHeads: o.uint("index_n_heads"), TopK: o.uint("index_topk")}
		if a.Indexer.HeadDim == 0 || a.Indexer.HeadDim > 1<<14 || a.Indexer.NumHeads == 0 || a.Indexer.NumHeads > 1<<14 {
			o.fail("index_head_dim", "indexer of %d heads of %d: want sizes in [1, %d]", a.Indexer.NumHeads, a.Indexer.HeadDim, 1<<14)
		}
		if a.QLoraRank == 0 {
			o.fail("q_lora_rank", "the indexer projects from the query latent: q_lora_rank must be set with index_topk")
		}
		a.indexCache(o)
		// deepseek_v2.py:1115-1120: the indexer's rope is a second table
		// of the same shape, built with the first layer that has an
		// indexer.
		if slices.ContainsFunc(a.Layers, func(l Layer) bool { return !l.SharesTopK }) {
			idx := a.Rotary[0]
			idx.Name = "rotary_emb_indexer"
			a.Rotary = append(a.Rotary, idx)
		}
	}
}

// indexCache reads which layers reuse an earlier layer's top-k instead of
// building an indexer (deepseek_v2.py:1084-1110, IndexCache): with
// index_topk_pattern, layer i skips when its character is "S"; otherwise
// when max(i - index_skip_topk_offset + 1, 0) is not a multiple of
// index_topk_freq (defaults 2 and 1: every layer has one).
func (a *Arch) indexCache(o jsonObject) {
	if o.has("index_topk_pattern") {
		pattern := o.str("index_topk_pattern")
		for i := range a.Layers {
			a.Layers[i].SharesTopK = i < len(pattern) && pattern[i] == 'S'
		}
		return
	}
	freq := o.uintOr("index_topk_freq", 1)
	offset := o.uintOr("index_skip_topk_offset", 2)
	if freq == 0 {
		o.fail("index_topk_freq", "must be above 0 (vLLM takes the layer index modulo it)")
		return
	}
	if offset > 1<<16 {
		o.fail("index_skip_topk_offset", "%d is beyond any real model's layers", offset)
		return
	}
	for i := range a.Layers {
		n := max(int64(i)-int64(offset)+1, 0)
		a.Layers[i].SharesTopK = uint64(n)%freq != 0
	}
}

// mla adds DeepSeek's multi-head latent attention (deepseek_v2.py:948-1188):
// the query and KV down-projections whole on every rank (fused into one
// with a query latent), their norms, the up-projections column-parallel,
// and V3.2's indexer where layer l builds one.
func (w *weights) mla(p string, l Layer) {
	a := w.a
	qHead := a.QKNopeHeadDim + a.QKRopeHeadDim
	switch {
	case a.QLoraRank > 0 && w.t.fusedQKVA:
		w.linear(p+".fused_qkv_a_proj", a.Hidden, a.QLoraRank+a.KVLoraRank+a.QKRopeHeadDim, replicated, false, linearMod)
	case a.QLoraRank > 0:
		w.linear(p+".q_a_proj", a.Hidden, a.QLoraRank, replicated, false, linearMod)
	default:
		w.linear(p+".q_proj", a.Hidden, a.Heads*qHead, column, false, linearMod)
	}
	if a.QLoraRank > 0 {
		w.norm(p+".q_a_layernorm", a.QLoraRank)
		w.linear(p+".q_b_proj", a.QLoraRank, a.Heads*qHead, column, false, linearMod)
	}
	if a.QLoraRank == 0 || !w.t.fusedQKVA {
		w.linear(p+".kv_a_proj_with_mqa", a.Hidden, a.KVLoraRank+a.QKRopeHeadDim, replicated, false, linearMod)
	}
	w.norm(p+".kv_a_layernorm", a.KVLoraRank)
	w.linear(p+".kv_b_proj", a.KVLoraRank, a.Heads*(a.QKNopeHeadDim+a.VHeadDim), column, false, linearMod)
	w.linear(p+".o_proj", a.Heads*a.VHeadDim, a.Hidden, row, false, linearMod)
	if ix := a.Indexer; ix != nil && !l.SharesTopK {
		// deepseek_v2.py:657-674: wq_b quantized and whole; wk and the
		// head weights fused, unquantized and whole; k_norm a float32
		// LayerNorm.
		w.linear(p+".indexer.wq_b", a.QLoraRank, ix.NumHeads*ix.HeadDim, replicated, false, linearMod)
		w.unquantized(p+".indexer.wk_weights_proj", a.Hidden, ix.HeadDim+ix.NumHeads, replicated, false)
		w.add(p+".indexer.k_norm.weight", bytesOf(ix.HeadDim, 4))
		w.add(p+".indexer.k_norm.bias", bytesOf(ix.HeadDim, 4))
	}
}

var (
	// mlaAttention: DeepSeek's multi-head latent attention
	// (deepseek_v2.py DeepseekV2MLAAttention): the down-projections and
	// their norms whole, the up-projections column-parallel.
	// With a query latent, vLLM fuses q_a_proj and kv_a_proj_with_mqa into
	// one replicated fused_qkv_a_proj (deepseek_v2.py:901-916).
	mlaAttention = []moduleRule{
		{module: "self_attn.q_a_proj", vllm: "self_attn.fused_qkv_a_proj"},
		{module: "self_attn.q_a_layernorm"},
		{module: "self_attn.q_b_proj", split: column},
		{module: "self_attn.q_proj", split: column},
		{module: "self_attn.kv_a_proj_with_mqa", fuseWith: "self_attn.q_a_proj", fusedVLLM: "self_attn.fused_qkv_a_proj"},
		{module: "self_attn.kv_a_layernorm"},
		{module: "self_attn.kv_b_proj", split: column},
		{module: "self_attn.o_proj", split: row},
	}
	// deepseekMoE: DeepSeek's routed experts, its fp32 routing bias
	// (noaux_tc) and its shared experts, a dense MLP sharded as one.
	deepseekMoE = slices.Concat([]moduleRule{
		{module: "mlp.gate.e_score_correction_bias", fp32: true},
	}, routedExperts, gatedMLPAt("mlp.shared_experts"))
	// dsaIndexer: DeepSeek V3.2's and GLM-5's lightning indexer
	// (deepseek_v2.py:640-690): wq_b replicated as stored; wk and
	// weights_proj fused into the unquantized wk_weights_proj (an fp8 wk
	// upcast when it loads); k_norm a float32 LayerNorm.
	dsaIndexer = []moduleRule{
		{module: "self_attn.indexer.wq_b"},
		{module: "self_attn.indexer.wk", vllm: "self_attn.indexer.wk_weights_proj", dequant: true},
		{module: "self_attn.indexer.weights_proj", vllm: "self_attn.indexer.wk_weights_proj", dequant: true, follower: true},
		{module: "self_attn.indexer.k_norm", fp32: true},
	}
	// kimiRename: moonshotai/Kimi-K2.5 nests the DeepSeek-V3 language
	// model under language_model. (kimi_k25.py:318-327 maps its legacy
	// language_model.layers. too).
	kimiRename = [][2]string{
		{"language_model.model.", "model."},
		{"language_model.layers.", "model.layers."},
		{"language_model.lm_head.", "lm_head."},
	}
	// moonViT: Kimi-K2.5's vision tower and projector
	// (kimi_k25_vit.py:382-450, 887-945; names as pytorch/torchtitan
	// torchtitan/models/kimi_k2_7/state_dict_adapter.py maps them): wqkv
	// and fc0 column-parallel, wo and fc1 row-parallel, the projector
	// replicated.
	moonViT = onVisionTower(under("vision_tower.", []moduleRule{
		{module: "patch_embed.proj"},
		{module: "patch_embed.pos_emb"},
		{module: "encoder.blocks.*.norm0"},
		{module: "encoder.blocks.*.norm1"},
		{module: "encoder.blocks.*.wqkv", split: column},
		{module: "encoder.blocks.*.wo", split: row},
		{module: "encoder.blocks.*.mlp.fc0", split: column},
		{module: "encoder.blocks.*.mlp.fc1", split: row},
		{module: "encoder.final_layernorm"},
	}), []moduleRule{
		{module: "mm_projector.pre_norm"},
		{module: "mm_projector.proj.0", vllm: "mm_projector.linear_1"},
		{module: "mm_projector.proj.2", vllm: "mm_projector.linear_2"},
	})
)

// deepseekV3Class is transformers DeepseekV3Config, read at huggingface/transformers@001f85b38f. attribute_map: num_local_experts is n_routed_experts. A q_lora_rank written null stays None (no query compression).
var deepseekV3Class = configClass{
	Name:   "DeepseekV3Config",
	Source: "src/transformers/models/deepseek_v3/configuration_deepseek_v3.py@001f85b38f",
	Defaults: []classDefault{
		{"vocab_size", "129280"}, {"hidden_size", "7168"}, {"intermediate_size", "18432"},
		{"moe_intermediate_size", "2048"}, {"num_hidden_layers", "61"}, {"num_attention_heads", "128"},
		{"num_key_value_heads", "128"}, {"n_shared_experts", "1"}, {"n_routed_experts", "256"},
		{"kv_lora_rank", "512"}, {"q_lora_rank", "1536"}, {"qk_rope_head_dim", "64"},
		{"v_head_dim", "128"}, {"qk_nope_head_dim", "128"}, {"num_experts_per_tok", "8"},
		{"first_k_dense_replace", "3"}, {"max_position_embeddings", "4096"}, {"tie_word_embeddings", "false"},
		{"attention_bias", "false"},
	},
	Aliases: []classAlias{{From: "num_local_experts", To: "n_routed_experts"}},
}

func init() { declareClass("deepseek_v3", deepseekV3Class) }

// deepseekV2Class is transformers DeepseekV2Config, read at huggingface/transformers@008e574391. attribute_map: num_experts is n_routed_experts; num_experts_per_tok defaults to None.
var deepseekV2Class = configClass{
	Name:   "DeepseekV2Config",
	Source: "src/transformers/models/deepseek_v2/configuration_deepseek_v2.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "32000"}, {"hidden_size", "4096"}, {"intermediate_size", "11008"},
		{"num_hidden_layers", "32"}, {"num_attention_heads", "32"}, {"max_position_embeddings", "2048"},
		{"tie_word_embeddings", "false"}, {"attention_bias", "false"}, {"first_k_dense_replace", "0"},
		{"kv_lora_rank", "512"}, {"q_lora_rank", "1536"}, {"n_routed_experts", "64"},
		{"n_shared_experts", "2"}, {"qk_nope_head_dim", "128"}, {"qk_rope_head_dim", "64"},
		{"v_head_dim", "128"}, {"moe_intermediate_size", "1407"},
	},
	Aliases: []classAlias{{From: "num_experts", To: "n_routed_experts"}},
}

func init() { declareClass("deepseek_v2", deepseekV2Class) }

// glmMoeDsaClass is transformers GlmMoeDsaConfig, read at huggingface/transformers@008e574391. attribute_map: num_local_experts is n_routed_experts, and __post_init__ reads num_experts as it. Its head_dim (64, the rope slice) is not filled: the reader derives MLA's.
var glmMoeDsaClass = configClass{
	Name:   "GlmMoeDsaConfig",
	Source: "src/transformers/models/glm_moe_dsa/configuration_glm_moe_dsa.py@008e574391",
	Defaults: []classDefault{
		{"vocab_size", "154880"}, {"hidden_size", "6144"}, {"intermediate_size", "12288"},
		{"moe_intermediate_size", "2048"}, {"num_hidden_layers", "78"}, {"num_attention_heads", "64"},
		{"num_key_value_heads", "64"}, {"n_shared_experts", "1"}, {"n_routed_experts", "256"},
		{"kv_lora_rank", "512"}, {"q_lora_rank", "2048"}, {"qk_rope_head_dim", "64"},
		{"v_head_dim", "256"}, {"qk_nope_head_dim", "192"}, {"num_experts_per_tok", "8"},
		{"max_position_embeddings", "202752"}, {"tie_word_embeddings", "false"}, {"attention_bias", "false"},
		{"index_topk", "2048"}, {"index_head_dim", "128"}, {"index_n_heads", "32"},
		{"first_k_dense_replace", "3"},
	},
	Aliases: []classAlias{{From: "num_local_experts", To: "n_routed_experts"}, {From: "num_experts", To: "n_routed_experts"}},
}

func init() { declareClass("glm_moe_dsa", glmMoeDsaClass) }

// vLLM reads deepseek_v32 and kimi_k2 configs with transformers'
// DeepseekV3Config and Kimi-K2.5's text_config with it too
// (vllm/transformers_utils/config.py _CONFIG_REGISTRY, configs/kimi_k25.py,
// vLLM main of 2026-08-14): DeepseekV3Config's defaults fill them. V3.2's
// indexer keys have no default there: a config without index_topk has no
// indexer.
var (
	deepseekV32Class = configClass{Name: "DeepseekV3Config", Source: deepseekV3Class.Source, Defaults: deepseekV3Class.Defaults,
		Aliases: deepseekV3Class.Aliases}
	kimiK2Class = configClass{Name: "DeepseekV3Config", Source: deepseekV3Class.Source, Defaults: deepseekV3Class.Defaults,
		Aliases: deepseekV3Class.Aliases}
	kimiK25Class = configClass{Name: "KimiK25Config", Source: "vllm/transformers_utils/configs/kimi_k25.py@ffd91ee17a",
		Nested: map[string]string{"text_config": "kimi_k2"}}
)

func init() {
	declareClass("deepseek_v32", deepseekV32Class)
	declareClass("kimi_k2", kimiK2Class)
	declareClass("kimi_k25", kimiK25Class)
}
