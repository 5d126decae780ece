package model

import (
	"fmt"

	"membudget/budget"
)

// split says how tensor parallelism divides a linear layer's weight.
type split int

const (
	replicated split = iota // every rank holds all of it
	column                  // output features divided (ColumnParallelLinear)
	row                     // input features divided (RowParallelLinear)
)

// vocabPadding is vLLM's DEFAULT_VOCAB_PADDING_SIZE: embedding and LM-head
// rows are padded to a multiple of 64 before they are divided among ranks
// (vllm/model_executor/layers/vocab_parallel_embedding.py).
const vocabPadding = 64

// Sharding is how one rank holds a model: the tensor-parallel degree, the
// pipeline stage's layers, its share of the experts, and the dtype and
// quantization the weights are served in. The engine decides each from its
// own rules (how it splits layers among stages, which quantization it
// applies, which kernels the device runs).
type Sharding struct {
	// TP is the tensor-parallel degree: sharded linear layers are divided
	// among TP ranks.
	TP uint64
	// FirstLayer and EndLayer are the decoder layers the rank's pipeline
	// stage holds: FirstLayer up to, not including, EndLayer.
	FirstLayer, EndLayer int
	// First and Last say the stage holds the embedding (first) or the final
	// norm and LM head (last); a single stage is both.
	First, Last bool
	// ExpertRanks divides the routed experts whole among that many ranks
	// (expert parallelism); 0 or 1 keeps every expert on every rank with
	// its intermediate divided by TP.
	ExpertRanks uint64
	// RedundantExperts is the physical experts beyond the routed ones
	// that the engine places among the ExpertRanks with them (vLLM's EPLB
	// num_redundant_experts): each rank holds (Experts + RedundantExperts)
	// / ExpertRanks experts, the redundant ones copies of routed ones.
	// Zero without expert parallelism.
	RedundantExperts uint64
	// DtypeBytes is the served dtype's size.
	DtypeBytes uint64
	// Quant is the weight quantization served.
	Quant Quant
	// MXFP4 is how the engine's MXFP4 MoE kernel lays out gpt-oss's
	// experts; the zero value is the checkpoint's layout (no rounding,
	// biases in the model dtype).
	MXFP4 MXFP4Kernel
	// NVFP4 is how the engine's NVFP4 kernels lay out the checkpoint's
	// NVFP4 weights and block scales after loading; the zero value is the
	// checkpoint's layout (Marlin's, to the byte where the sizes are
	// aligned).
	NVFP4 NVFP4Kernel
	// RouterGEMM says the device runs vLLM's specialized router GEMMs
	// (CUDA compute capability 9.0 or the 10.x family), so that a router
	// asked to compute in float32 keeps its weight in the model dtype;
	// elsewhere it is stored in float32
	// (vllm/model_executor/layers/fused_moe/router/gate_linear.py:59-68).
	// The engine sets it by device and release (vLLM's from 0.17.0).
	RouterGEMM bool
	// NoHead says the LM head is not built: vLLM's pooling adapter
	// (as_embedding_model, vllm/model_executor/models/adapters.py
	// _create_pooling_model_cls) replaces ParallelLMHead and the logits
	// processor with StageMissingLayer, and a pooler reads the hidden
	// states instead.
	NoHead bool
	// RotaryRows, when above 0, is the served max_model_len: the rows of a
	// rotary table vLLM sizes by it (RotaryTable.Served); 0 keeps the
	// table's Positions, the max_model_len vLLM derives by default.
	RotaryRows uint64
	// BatchedTokens is the served max_num_batched_tokens, for a buffer
	// vLLM allocates by it as it builds the model
	// ([Arch.SizedByBatchedTokens]); 0 leaves such a buffer out.
	BatchedTokens uint64
	// TowersOff are the towers the engine does not build (vLLM: every
	// modality a tower serves limited to 0 items): ImageInput the vision
	// tower and its projector, AudioInput the audio tower (Gemma 3n's,
	// Phi-4-multimodal's), each with its embedder.
	TowersOff Modalities
	// TowerWhole keeps every layer of the vision tower and its projector
	// whole on each rank, those the TP ranks would divide among them
	// included: vLLM's --mm-encoder-tp-mode data, whose towers build them
	// replicated (disable_tp, qwen2_5_vl.py:319-387 and 580-604 at
	// d18bb7b) and encode a share of the items on each rank instead.
	// The engine sets it for the towers that support it; a family whose
	// tower keeps a layer divided in data mode says so (Llama 4's
	// projector).
	TowerWhole bool
}

// Stages returns the pipeline stages that hold parts[i] consecutive decoder
// layers each, in order: the engine decides the parts (how it splits the
// layers), the stages only lay them end to end. Only the layer fields are
// set.
func Stages(parts []int) []Sharding {
	stages := make([]Sharding, len(parts))
	first := 0
	for i, k := range parts {
		stages[i] = Sharding{FirstLayer: first, EndLayer: first + k, First: i == 0, Last: i == len(parts)-1}
		first += k
	}
	return stages
}

// MXFP4Kernel is how an MXFP4 MoE kernel rounds the experts' sizes and
// keeps their biases (vllm/model_executor/layers/fused_moe/oracle/mxfp4.py
// mxfp4_round_up_hidden_size_and_intermediate_size and the conversions
// after it).
type MXFP4Kernel struct {
	// IntermediateMultiple and HiddenMultiple round each rank's expert
	// intermediate size and the hidden size up (0 or 1: none).
	IntermediateMultiple, HiddenMultiple uint64
	// BiasFloat32 says the expert biases are converted to float32.
	BiasFloat32 bool
	// HopperLayout says the weights and scales are swizzled into OpenAI's
	// triton_kernels Hopper layouts, which pad each expert's matrices (see
	// [MXFP4Kernel.MatrixBytes]).
	HopperLayout bool
	// KeepsScales says the checkpoint's e8m0 scales stay allocated beside
	// the kernel's swizzled copy of them.
	KeepsScales bool
}

// Intermediate returns a rank's expert intermediate size i as kernel k
// lays it out: rounded up to k.IntermediateMultiple (0 or 1: i).
func (k MXFP4Kernel) Intermediate(i uint64) uint64 {
	return budget.RoundUp(i, k.IntermediateMultiple)
}

// Hidden returns the hidden size h as kernel k lays it out: rounded up to
// k.HiddenMultiple (0 or 1: h).
func (k MXFP4Kernel) Hidden(h uint64) uint64 {
	return budget.RoundUp(h, k.HiddenMultiple)
}

// NVFP4Kernel is how an engine's NVFP4 kernels lay out the checkpoint's
// NVFP4 weights (two 4-bit floats a byte) and fp8 block scales (one per
// 16 inputs) once loaded. vLLM replaces the loaded tensors with the
// kernel's copies in process_weights_after_loading, so the padded sizes
// are what "Model loading took" counts. Only W4A4 layers (a static input
// scale) take these layouts: W4A16 ones always run on Marlin.
type NVFP4Kernel struct {
	// LinearSwizzle says a linear layer's block scales [n, k/16] are
	// padded to [round_up(n, 128), round_up(k/16, 4)] and interleaved
	// (vLLM's swizzle_blockscale, quantization/utils/nvfp4_utils.py:13-53
	// at d18bb7b).
	LinearSwizzle bool
	// LinearWeightPad says a linear layer's packed weight [n, k/2] is
	// padded to [round_up(n, 32), round_up(k, 32)/2] for the CUTLASS
	// kernels (vLLM's pad_nvfp4_weight_for_cutlass, nvfp4_utils.py:64-98).
	LinearWeightPad bool
	// ExpertSwizzle says each expert's block scales are padded and
	// interleaved as LinearSwizzle's: w13 [round_up(shards*i, 128),
	// round_up(h/16, 4)], w2 [round_up(h, 128), round_up(i/16, 4)].
	ExpertSwizzle bool
	// ExpertHiddenMultiple rounds the hidden size of the experts' weights
	// and scales up, ExpertGatedMultiple each rank's intermediate size of
	// gated experts (w13 holding gate and up) and ExpertUngatedMultiple
	// that of ungated ones (0 or 1: none), as FlashInfer TRTLLM's
	// alignment pads them.
	ExpertHiddenMultiple, ExpertGatedMultiple, ExpertUngatedMultiple uint64
}

// expertSizes returns the hidden size h and a rank's expert intermediate
// size i as k rounds them: i to ExpertGatedMultiple for gated experts,
// ExpertUngatedMultiple for ungated ones (0 or 1: unrounded).
func (k NVFP4Kernel) expertSizes(h, i uint64, gated bool) (uint64, uint64) {
	multiple := k.ExpertUngatedMultiple
	if gated {
		multiple = k.ExpertGatedMultiple
	}
	return budget.RoundUp(h, k.ExpertHiddenMultiple), budget.RoundUp(i, multiple)
}

// swizzled returns the bytes of fp8 block scales of rows x cols once
// swizzle_blockscale has padded them to whole 128 x 4 tiles.
func swizzled(rows, cols uint64) uint64 {
	return budget.SatMul(budget.RoundUp(rows, 128), budget.RoundUp(cols, 4))
}

// Whole returns the sharding of a model held whole on one rank of tp: every
// layer, the embedding and the head, every expert.
func Whole(a *Arch, tp, dtypeBytes uint64, q Quant) Sharding {
	return Sharding{TP: tp, FirstLayer: 0, EndLayer: len(a.Layers), First: true, Last: true, DtypeBytes: dtypeBytes, Quant: q}
}

type weights struct {
	a     *Arch
	t     *tree
	sh    Sharding
	q     Quant
	tp    uint64
	dt    uint64
	items []budget.Item
}

func (w *weights) add(name string, bytes uint64) {
	w.items = append(w.items, budget.Item{Name: name, Term: budget.TermWeights, Bytes: bytes})
}

// bytesOf is n elements of b bytes each.
func bytesOf(n, b uint64) uint64 { return budget.SatMul(n, b) }

// newWeights is the layout of a's tensors on one rank of sh, nothing
// added yet: sh's quantization compiled for a, at least one rank.
func newWeights(a *Arch, sh Sharding) *weights {
	return &weights{a: a, t: &a.tree, sh: sh, q: sh.Quant.compiled(a), tp: max(sh.TP, 1), dt: sh.DtypeBytes}
}

// Weights lists every weight tensor and buffer one rank holds under sh.
func Weights(a *Arch, sh Sharding) []budget.Item {
	w := newWeights(a, sh)
	if a.Encoder != nil {
		return encoderWeights(w)
	}
	if a.Audio != nil {
		return whisperWeights(w)
	}
	if a.gemma3n != nil {
		return gemma3nWeights(w)
	}
	if a.DeepSeekV4 != nil {
		return deepseekV4Weights(w)
	}
	t := w.t
	if t.attn == "" {
		// An Arch built by hand, not by ParseConfig: Llama's tree.
		lt := llamaTree()
		t = &lt
		w.t = t
	}
	embedOn := sh.First || t.embedEveryStage
	// A pooling architecture's head replaces the LM head (poolerHeadWeights).
	normOn, headOn := sh.Last || t.normEveryStage, (sh.Last || t.headEveryStage) && !sh.NoHead && a.Pooler == nil
	vocabRank := w.vocabRows(a.Vocab)
	embedDim := a.Hidden
	if t.embedDim > 0 {
		embedDim = t.embedDim
	}
	if embedOn {
		w.add(t.embed+".weight", bytesOf(budget.SatMul(vocabRank, embedDim), w.dt))
		if t.embedNorm != "" {
			w.norm(t.embedNorm, embedDim)
		}
		if t.positions > 0 {
			// Replicated: OPT's max_position + 2 rows (opt.py:59-68),
			// GPT-2's wpe of n_positions (gpt2.py:203).
			name := "model.decoder.embed_positions"
			if t.positionsName != "" {
				name = t.positionsName
			}
			w.add(name+".weight", bytesOf(budget.SatMul(t.positions, a.Hidden), w.dt))
		}
		if t.embedDim > 0 {
			w.linear("model.decoder.project_in", embedDim, a.Hidden, replicated, false, linearMod)
		}
	}
	for i := max(sh.FirstLayer, 0); i < min(sh.EndLayer, len(a.Layers)); i++ {
		w.layer(i)
	}
	if normOn {
		if t.norm != "" {
			w.norm(t.norm, a.Hidden)
		}
		if t.embedDim > 0 {
			w.linear("model.decoder.project_out", a.Hidden, embedDim, replicated, false, linearMod)
		}
	}
	if headOn {
		// A tied head shares the embedding's tensor, unless the embedding is
		// on another stage: then the last stage holds its own copy.
		if !a.TiedEmbeddings || !embedOn {
			w.matrix("lm_head", embedDim, vocabRank, embedDim, 1, w.q.schemeFor("lm_head", headMod))
		}
		if t.lmHeadBias {
			w.add("lm_head.bias", bytesOf(vocabRank, w.dt))
		}
	}
	if a.Pooler != nil {
		w.poolerHeadWeights()
	}
	w.rotaryTables()
	if a.Vision != nil && sh.First {
		w.vision(a.Vision)
	}
	return w.items
}

// rotaryTables adds the model's rotary embeddings: vLLM's RotaryEmbedding
// keeps one cos/sin table of positions x rotary_dim, shared by every layer
// of the same rope (get_rope caches instances); transformers' own rotary
// module (tree.hfRotary) only its float32 inv_freq.
func (w *weights) rotaryTables() {
	for _, r := range w.a.Rotary {
		if w.t.hfRotary {
			w.add("rotary_emb.inv_freq", bytesOf(r.Dim/2, 4))
			continue
		}
		w.add("rotary_emb."+r.Name+".cos_sin_cache", bytesOf(budget.SatMul(r.Positions, r.Dim), w.elem(r.Dtype)))
	}
}

// elem is the size of one element of dtype, the served dtype for "".
func (w *weights) elem(dtype string) uint64 {
	switch dtype {
	case "float32":
		return 4
	case "complex64":
		return 8
	}
	return w.dt
}

// layer adds decoder layer i.
func (w *weights) layer(i int) { w.layerAs(i, fmt.Sprintf("model.layers.%d.", i)) }

// layerAs adds a decoder layer of layer i's shape whose modules are named
// under prefix p, quantized as the checkpoint quantizes those names.
func (w *weights) layerAs(i int, p string) {
	a, t := w.a, w.t
	l := a.Layers[i]
	inter := a.Intermediate
	if l.Intermediate > 0 {
		inter = l.Intermediate
	}
	if t.mixerOnly {
		// Nemotron-H: one block per layer (nemotron_h.py:526-529).
		switch {
		case l.Kind == Mamba && a.Mamba != nil && a.Mamba.Version == 1:
			w.mamba1(p + "mixer")
		case l.Kind == Mamba:
			w.mamba2(p + "mixer")
		case l.Kind != NoMixer:
			w.attention(p+t.attn, l)
		case l.MoE:
			w.moe(p + t.mlp)
		default:
			w.denseMLP(p+t.mlp, a.Intermediate)
		}
	} else {
		switch l.Kind {
		case LinearAttention:
			w.gdn(p + "linear_attn")
		case Mamba:
			if a.Mamba != nil && a.Mamba.Version == 1 {
				w.mamba1(p + t.mambaAt())
			} else {
				w.mamba2(p + t.mambaAt())
			}
		case NoMixer:
		default:
			w.attention(p+t.attn, l)
			if l.MambaBeside {
				w.mambaBeside(p)
			}
		}
		switch {
		case l.NoMLP:
		case l.MoE && t.moeBesideMLP:
			w.denseMLP(p+"mlp", inter)
			w.moe(p + t.mlp)
		case l.MoE:
			w.moe(p + t.mlp)
		default:
			w.denseMLP(p+t.mlp, inter)
		}
	}
	for j, n := range t.norms {
		if t.sublayerNorms && (j == 0 && l.Kind == NoMixer || j == 1 && l.NoMLP) {
			continue
		}
		w.norm(p+n, a.Hidden)
	}
	if t.gemma4 && l.MoE {
		// gemma4.py:624-647: the MoE block's three norms.
		for _, n := range []string{"post_feedforward_layernorm_1", "post_feedforward_layernorm_2", "pre_feedforward_layernorm_2"} {
			w.norm(p+n, a.Hidden)
		}
	}
	if t.xielu && !l.NoMLP {
		for _, n := range []string{"alpha_p", "alpha_n", "beta", "eps"} {
			w.add(p+t.mlp+".act_fn."+n, 2)
		}
	}
	if t.gemma4 {
		// gemma4.py:686-687: a one-element layer scalar buffer on every
		// layer, MoE or not.
		w.add(p+"layer_scalar", w.dt)
	}
}

// linear adds a linear layer's tensors on one rank: in x out before
// sharding, with its bias, in the scheme the quantization gives the module
// (unquantized for kind quantizable false).
func (w *weights) linear(module string, in, out uint64, s split, bias bool, kind modKind) {
	k, n := in, out
	switch s {
	case column:
		n = budget.CeilDiv(out, w.tp)
	case row:
		k = budget.CeilDiv(in, w.tp)
	}
	w.linearRank(module, k, n, in, s, bias, w.q.schemeFor(module, kind))
}

// linearRank adds a linear layer of k x n on this rank (fullK before the
// row split), in scheme sch; its bias is whole on every rank of a
// row-parallel layer (linear.py:1596).
func (w *weights) linearRank(module string, k, n, fullK uint64, s split, bias bool, sch Scheme) {
	if s != row {
		fullK = k
	}
	w.matrix(module, k, n, fullK, 1, sch)
	if bias {
		// n is the rank's outputs: a column split's share, or a row
		// split's whole output, as its bias is.
		w.add(module+".bias", bytesOf(n, w.dt))
	}
}

// unquantized adds a linear layer vLLM builds without the quantization
// config (routers, convolutions, vision towers of some families).
func (w *weights) unquantized(module string, in, out uint64, s split, bias bool) {
	k, n := in, out
	switch s {
	case column:
		n = budget.CeilDiv(out, w.tp)
	case row:
		k = budget.CeilDiv(in, w.tp)
	}
	w.linearRank(module, k, n, in, s, bias, Scheme{})
}

func (w *weights) norm(name string, size uint64) {
	w.add(name+".weight", bytesOf(size, w.dt))
	if w.t.layerNorm {
		w.add(name+".bias", bytesOf(size, w.dt))
	}
}

// KVHeadsPerRank is the KV heads one of tp ranks holds: divided among
// ranks, replicated when there are fewer heads than ranks (vLLM's
// ModelConfig.get_num_kv_heads, QKVParallelLinear); 1 for MLA, whose latent
// every rank keeps whole.
func KVHeadsPerRank(a *Arch, tp uint64) uint64 {
	if a.MLA {
		return 1
	}
	return max(1, a.KVHeads/tp)
}

// attention adds a layer's attention at p: QKVParallelLinear (q heads
// divided, KV heads divided or replicated), the output projection, and the
// family's norms and sinks; or MLA.
func (w *weights) attention(p string, l Layer) {
	a, t := w.a, w.t
	if a.MLA || t.latentWeights {
		w.mla(p, l)
		return
	}
	hd, kv := a.HeadDim, a.KVHeads
	if l.HeadDim > 0 {
		hd = l.HeadDim
	}
	if l.KVHeads > 0 {
		kv = l.KVHeads
	}
	qHeads := a.Heads
	if a.AttnOutputGate {
		qHeads *= 2 // qwen3_next.py:157-165: the gate doubles q's rows
	}
	kvRank := max(1, kv/w.tp)
	n := budget.SatMul(budget.CeilDiv(qHeads, w.tp)+2*kvRank, hd)
	w.linearRank(p+".qkv_proj", a.Hidden, n, a.Hidden, column, a.AttnBias, w.q.schemeFor(p+".qkv_proj", linearMod))
	w.linear(p+"."+t.attnOut, a.Heads*hd, a.Hidden, row, a.OutBias, linearMod)
	if t.sinks {
		w.add(p+".sinks", bytesOf(budget.CeilDiv(a.Heads, w.tp), w.dt))
	}
	switch {
	case a.QKNorm && t.qkNorm == qkNormFull:
		w.norm(p+".q_norm", a.Heads*hd)
		w.norm(p+".k_norm", kv*hd)
	case a.QKNorm && t.qkNorm == qkNormSharded:
		w.norm(p+".q_norm", budget.CeilDiv(a.Heads, w.tp)*hd)
		w.norm(p+".k_norm", kvRank*hd)
	case a.QKNorm:
		w.norm(p+".q_norm", hd)
		w.norm(p+".k_norm", hd)
	}
	if t.llama4QKNorm && !l.NoRoPE {
		// llama4.py:213-221: RMSNorm(has_weight=False, dtype=float32)
		// keeps a float32 ones tensor of head_dim (layernorm.py:61-63).
		w.add(p+".qk_norm.weight", bytesOf(hd, 4))
	}
	if t.gemma4 {
		// gemma4.py:436: v_norm is RMSNorm(has_weight=False), whose ones
		// tensor of the layer's head_dim is built in the default dtype (the
		// model's) on the device (layernorm.py:61-63; the loader builds the
		// model under set_default_torch_dtype and the target device,
		// model_loader/base_loader.py:53-55).
		w.add(p+".v_norm.weight", bytesOf(hd, w.dt))
	}
}

// denseMLP adds an MLP at p of intermediate size inter: gate and up fused
// column-parallel and down row-parallel, or an ungated up and down.
func (w *weights) denseMLP(p string, inter uint64) {
	a, t := w.a, w.t
	up := 2 * inter
	if t.ungated {
		up = inter
	}
	w.linear(p+"."+t.mlpNames[0], a.Hidden, up, column, a.MLPBias && !t.downBiasOnly, linearMod)
	w.linear(p+"."+t.mlpNames[1], inter, a.Hidden, row, a.MLPBias, linearMod)
}

// expertShare is the routed experts one rank holds and each one's
// intermediate width there. Under tensor parallelism each expert's
// intermediate is divided among the ranks; under expert parallelism each
// rank holds its share of the experts whole (vLLM's determine_expert_map
// gives the first ranks one more when they do not divide evenly: the
// largest share is counted).
func (w *weights) expertShare() (experts, inter uint64) {
	a, sh := w.a, w.sh
	if sh.ExpertRanks > 1 {
		return budget.CeilDiv(budget.SatAdd(a.Experts, sh.RedundantExperts), sh.ExpertRanks), a.MoEIntermediate
	}
	return a.Experts, budget.CeilDiv(a.MoEIntermediate, w.tp)
}

// vocabRows is the rows one rank holds of a vocabulary-parallel table of
// vocab entries (an embedding, an LM head): padded to vocabPadding,
// divided among the ranks.
func (w *weights) vocabRows(vocab uint64) uint64 {
	return budget.CeilDiv(budget.RoundUp(vocab, vocabPadding), w.tp)
}

// moe adds a MoE block at p: the router, its routing bias, the fused
// experts and the shared experts.
func (w *weights) moe(p string) {
	a, t := w.a, w.t
	router := p + "." + t.router
	switch {
	case t.routerQuantized:
		w.linear(router, a.Hidden, a.Experts, replicated, false, linearMod)
	default:
		// vLLM builds the router with quant_config=None (GateLinear,
		// ReplicatedLinear), in float32 where the family asks for it.
		el := w.dt
		if t.routerDtype == routerFP32 || t.routerDtype == routerFP32Fallback && !w.sh.RouterGEMM {
			el = 4
		}
		w.add(router+".weight", bytesOf(budget.SatMul(a.Hidden, a.Experts), el))
	}
	if t.routerBias {
		w.add(router+".bias", bytesOf(a.Experts, w.dt))
	}
	if a.ScoreCorrectionBias {
		w.add(p+".gate.e_score_correction_bias", bytesOf(a.Experts, 4)) // fp32
	}
	if t.gemma4 {
		// gemma4.py:279-331: the router's weightless norm (a ones tensor
		// of hidden_size in the model dtype, as v_norm's), its one-element
		// root_size buffer (torch.tensor of a float: the default dtype),
		// its scale, and each expert's scale.
		w.add(p+".router.norm.weight", bytesOf(a.Hidden, w.dt))
		w.add(p+".router.root_size", w.dt)
		w.add(p+".router.scale", bytesOf(a.Hidden, w.dt))
		w.add(p+".per_expert_scale", bytesOf(a.Experts, w.dt))
	}
	if a.MoELatent > 0 {
		// nemotron_h.py:185-204 (d18bb7b): fc1_latent_proj (hidden to
		// latent) and fc2_latent_proj (latent to hidden) are
		// ReplicatedLinear with the model's quant_config and mlp_bias.
		w.linear(p+".fc1_latent_proj", a.Hidden, a.MoELatent, replicated, a.MLPBias, linearMod)
		w.linear(p+".fc2_latent_proj", a.MoELatent, a.Hidden, replicated, a.MLPBias, linearMod)
	}
	// FusedMoE stacks the experts: w13 (gate and up) and w2 (down), at the
	// latent width where the model has one (nemotron_h.py:206-210:
	// hidden_size=self.moe_hidden_size).
	experts, inter := w.expertShare()
	w.experts(p+".experts", experts, a.MoEHidden(), inter, w.q.schemeFor(p+".experts", expertsMod))
	if a.SharedIntermediate > 0 {
		w.denseMLP(p+"."+t.shared, a.SharedIntermediate)
	}
	if t.sharedGate {
		w.unquantized(p+".shared_expert_gate", a.Hidden, 1, replicated, false)
	}
}

// NVFP4ExpertRows returns the rows of w13 one rank holds of each expert
// under sh (gate and up together, or up alone for ungated experts: shards
// x the rank's intermediate) in the first MoE layer whose experts are
// W4A4 NVFP4, and whether they are gated; ok is false when no layer's
// are. An engine checks it against its kernel's tiles (vLLM's CUTLASS MoE
// kernels do not pad gated rows: [NVFP4Kernel]).
func NVFP4ExpertRows(a *Arch, sh Sharding) (rows uint64, gated, ok bool) {
	if a.Experts == 0 || a.tree.mlp == "" || a.DeepSeekV4 != nil {
		return 0, false, false
	}
	w := newWeights(a, sh) // after the cheap refusals: it compiles sh's quantization
	for i, l := range a.Layers {
		if !l.MoE {
			continue
		}
		s := w.q.schemeFor(fmt.Sprintf("model.layers.%d.%s.experts", i, w.t.mlp), expertsMod)
		if !s.w4a4NVFP4() {
			continue
		}
		_, inter := w.expertShare()
		return budget.SatMul(w.gateShards(), inter), !w.t.ungated, true
	}
	return 0, false, false
}
