package model

import "strings"

// qkNormKind is the width of an attention's q_norm and k_norm.
type qkNormKind int

const (
	qkNormPerHead qkNormKind = iota // one head wide, shared by the heads (Qwen3, Gemma)
	// qkNormFull is the whole projection wide and whole on every rank
	// (OLMo 3: q_norm over heads x head_dim, k_norm over KV heads x
	// head_dim; olmo3.py:113-117).
	qkNormFull
	// qkNormSharded is the projection wide and divided among the ranks
	// (MiniMax-M2's per-layer norm, minimax_m2.py:215-233).
	qkNormSharded
)

// routerDtype is the dtype a MoE router's weight is kept in.
type routerDtype int

const (
	routerModelDtype routerDtype = iota
	routerFP32                   // an nn.Linear in float32 (GLM-4.5, MiniMax-M2)
	// routerFP32Fallback is float32 unless the device has vLLM's
	// specialized router GEMMs (Nemotron-H's force_fp32_compute,
	// layers/fused_moe/router/gate_linear.py:59-68).
	routerFP32Fallback
)

// tree is how a family lays out and names its modules, as vLLM builds them
// (vllm/model_executor/models/<family>.py): what only the weights need.
type tree struct {
	attn    string // the attention module under a layer: self_attn, mixer
	attnOut string // its output projection: o_proj, out_proj, dense
	mlp     string // the MLP or MoE module under a layer: mlp, feed_forward, block_sparse_moe, mixer
	// mlpNames are the dense MLP's projections: gate_up_proj and down_proj,
	// or the two of an ungated MLP (fc1/fc2, up_proj/down_proj).
	mlpNames [2]string
	ungated  bool // the MLP has no gate: one up projection (OPT, Phi, Nemotron-H's relu2)
	// downBiasOnly: of the dense MLP's projections only down_proj keeps
	// the bias Arch.MLPBias gives (TeleChat2 builds gate_up_proj biased,
	// then drops its bias: telechat2.py:57-70).
	downBiasOnly bool
	embed        string
	norm         string   // the final norm; "" when the model has none
	norms        []string // each layer's norms
	// layerNorm: norms are nn.LayerNorm with a bias (OPT, Phi), not RMSNorm.
	layerNorm bool
	qkNorm    qkNormKind

	// embedNorm is a LayerNorm right after the embedding, on the stages
	// that hold it (BLOOM's word_embeddings_layernorm: bloom.py:253-255);
	// "" when the model has none.
	embedNorm string

	// positionsName names the learned position table (positions rows) when
	// it is not OPT's model.decoder.embed_positions (GPT-2's wpe).
	positionsName string

	// hfRotary: the rotary embedding is transformers' own module, which
	// vLLM's Transformers backend keeps (transformers/base.py): an inv_freq
	// buffer of rotary_dim / 2 float32 a table, cos and sin computed each
	// forward, no cos/sin cache.
	hfRotary bool

	// sinks: gpt-oss's per-head attention sinks (gpt_oss.py:111-113).
	sinks bool
	// router names the MoE router under the MLP module; routerBias gives it
	// a bias (gpt-oss), routerDtype its dtype; routerQuantized says the
	// model builds it with the quantization config (Qwen3-MoE).
	router          string
	routerBias      bool
	routerDtype     routerDtype
	routerQuantized bool
	// expertBias: the fused experts have biases (gpt-oss).
	expertBias bool
	// shared names the shared-expert MLP; sharedGate gives it Qwen's
	// sigmoid gate, a [1, hidden] linear never quantized.
	shared     string
	sharedGate bool
	// embedEveryStage, normEveryStage and headEveryStage: the embedding,
	// the final norm and the head are built on every pipeline stage, where
	// the model does not replace them with PPMissingLayer off the first or
	// last stage (gpt-oss, OPT, Phi, OLMo 3, Nemotron-H and Gemma 4 all
	// three; Qwen3-Next the embedding and head; Qwen3.5 the embedding).
	embedEveryStage, normEveryStage, headEveryStage bool
	// lmHeadBias: Phi's head has a bias.
	lmHeadBias bool
	// positions is OPT's learned position table rows (max_position + 2);
	// embedDim its word_embed_proj_dim where it differs from hidden_size
	// (project_in and project_out).
	positions, embedDim uint64
	// mixerOnly: each layer is one block (Nemotron-H's M, *, - or E).
	mixerOnly bool
	// moeBesideMLP: MoE layers keep the dense MLP too (Gemma 4).
	moeBesideMLP bool
	// baWholeUnderPackedInt: the delta net's in_proj_ba is replicated, not
	// divided, under AWQ and GPTQ, so that each rank's Marlin kernel keeps
	// 64 outputs (Qwen3.5's split b and a on CUDA: layers/mamba/gdn/
	// qwen_gdn_linear_attn.py:519-559, maybe_disable_tp).
	baWholeUnderPackedInt bool
	// mambaConvBias, mambaProjBias: Mamba2's use_conv_bias and use_bias.
	mambaConvBias, mambaProjBias bool
	// mamba names the Mamba mixer under a layer: "" for mixer (Nemotron-H,
	// Falcon-H1, Jamba), mamba (Granite 4.0-H).
	mamba string
	// mambaNoNorm: the Mamba2 mixer's gated norm has no weight
	// (MambaMixer2's use_rms_norm false: Falcon-H1's mamba_rms_norm).
	mambaNoNorm bool
	// mamba1Norms: the Mamba1 mixer's dt, B and C RMSNorms with weights
	// (Jamba's use_rms_norm).
	mamba1Norms bool
	// mamba1OnesNorms: those norms have no weights and keep a ones tensor
	// each instead, built on the device, never loaded (Falcon Mamba).
	mamba1OnesNorms bool
	// fusedQKVA: DeepSeek's q_a_proj and kv_a_proj_with_mqa fused into one
	// replicated fused_qkv_a_proj (deepseek_v2.py:901-916).
	fusedQKVA bool
	// latentWeights: DeepSeek's latent projections without MLA's cache
	// (MiniCPM3 decompresses them into a per-head KV: minicpm3.py:126-134).
	latentWeights bool
	// gemma4: Gemma 4's layer scalar and weightless v_norm on every layer,
	// and its MoE block (the router's weightless norm, root_size and scale,
	// the per-expert scale, three more norms) on the MoE layers.
	gemma4 bool
	// llama4QKNorm: Llama 4's weightless float32 qk norm on its rope
	// layers.
	llama4QKNorm bool
	// sublayerNorms: norms[0] belongs to the attention and norms[1] to the
	// MLP, and a layer without one has no norm of it (DeciLM's no-op
	// blocks: nemotron_nas.py:148-190).
	sublayerNorms bool
	// xielu: the MLP's activation is vLLM's XIELU, whose alpha_p and
	// alpha_n (one element each) and beta and eps buffers every layer
	// keeps in bfloat16 (Apertus: layers/activation.py:681-702).
	xielu bool
	// rename maps the checkpoint's module prefixes to these names, as the
	// model's hf_to_vllm_mapper does, for the quantization's module lists.
	rename [][2]string
	// packed is vLLM's packed_modules_mapping: a fused module and the
	// checkpoint modules it holds.
	packed map[string][]string
}

// llamaPacked is the packed_modules_mapping of the Llama-style families.
var llamaPacked = map[string][]string{
	"qkv_proj":     {"q_proj", "k_proj", "v_proj"},
	"gate_up_proj": {"gate_proj", "up_proj"},
}

// llamaTree is the module tree of Llama and the families that follow it.
func llamaTree() tree {
	return tree{
		attn: "self_attn", attnOut: "o_proj", mlp: "mlp", mlpNames: [2]string{"gate_up_proj", "down_proj"},
		embed: "model.embed_tokens", norm: "model.norm", norms: []string{"input_layernorm", "post_attention_layernorm"},
		router: "gate", shared: "shared_experts", packed: llamaPacked,
	}
}

// mambaAt is the Mamba mixer's module under a layer.
func (t tree) mambaAt() string {
	if t.mamba == "" {
		return "mixer"
	}
	return t.mamba
}

// onEveryStage builds the embedding, the final norm and the head on every
// pipeline stage.
func (t *tree) onEveryStage() {
	t.embedEveryStage, t.normEveryStage, t.headEveryStage = true, true, true
}

// mapName rewrites a checkpoint module name to the tree's names.
func (t tree) mapName(name string) string {
	if strings.HasPrefix(name, "re:") {
		return name
	}
	for _, r := range t.rename {
		if rest, ok := strings.CutPrefix(name, r[0]); ok {
			return r[1] + rest
		}
	}
	return name
}

func (t tree) mapNames(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = t.mapName(n)
	}
	return out
}
