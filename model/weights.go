package model

import (
	"fmt"

	"membudget/budget"
)

// Item is one allocation of the ledger: a tensor or a modelled peak, by name.
type Item struct {
	Name  string
	Term  budget.Term
	Bytes uint64
}

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
// applies).
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
	// DtypeBytes is the served dtype's size.
	DtypeBytes uint64
	// Quant is the weight quantization served.
	Quant Quant
}

// Whole returns the sharding of a model held whole on one rank of tp: every
// layer, the embedding and the head, every expert.
func Whole(a *Arch, tp, dtypeBytes uint64, q Quant) Sharding {
	return Sharding{TP: tp, FirstLayer: 0, EndLayer: len(a.Layers), First: true, Last: true, DtypeBytes: dtypeBytes, Quant: q}
}

type weights struct {
	a     *Arch
	sh    Sharding
	tp    uint64
	dt    uint64
	items []Item
}

func (w *weights) add(name string, bytes uint64) {
	w.items = append(w.items, Item{Name: name, Term: budget.TermWeights, Bytes: bytes})
}

// linear adds a linear layer's tensors on one rank: in x out before
// sharding, with its bias, quantized unless quantizable is false or the
// checkpoint leaves the module out.
func (w *weights) linear(module string, in, out uint64, s split, bias, quantizable bool) {
	switch s {
	case column:
		out = budget.CeilDiv(out, w.tp)
	case row:
		in = budget.CeilDiv(in, w.tp)
	}
	q := w.sh.Quant
	if !quantizable || q.skips(module) {
		q = Quant{}
	}
	w.matrix(module, in, out, 1, q)
	if bias {
		w.add(module+".bias", budget.SatMul(out, w.dt))
	}
}

// matrix adds count stacked in x out weights (count > 1 for fused experts)
// in the layout of quantization q.
func (w *weights) matrix(module string, in, out, count uint64, q Quant) {
	n := func(x uint64) uint64 { return budget.SatMul(x, count) }
	elems := budget.SatMul(in, out)
	switch q.Method {
	case "":
		w.add(module+".weight", n(budget.SatMul(elems, w.dt)))
	case "fp8":
		w.add(module+".weight", n(elems))
		if q.BlockN > 0 {
			// weight_scale_inv: one fp32 per BlockN x BlockK block.
			w.add(module+".weight_scale_inv", n(budget.SatMul(budget.SatMul(budget.CeilDiv(out, q.BlockN), budget.CeilDiv(in, q.BlockK)), 4)))
		} else {
			w.add(module+".weight_scale", n(4)) // one fp32 per tensor
		}
	case "awq", "gptq":
		groups := budget.CeilDiv(in, q.GroupSize)
		// int4: eight values per int32: qweight in*out/2 bytes, qzeros
		// groups*out/2 bytes; scales fp16 per group and output.
		w.add(module+".qweight", n(budget.CeilDiv(elems, 2)))
		w.add(module+".qzeros", n(budget.SatMul(groups, budget.CeilDiv(out, 8)*4)))
		w.add(module+".scales", n(budget.SatMul(budget.SatMul(groups, out), 2)))
		if q.Method == "gptq" {
			w.add(module+".g_idx", n(budget.SatMul(in, 4))) // int32 per input row
		}
	}
}

func (w *weights) norm(name string, size uint64) {
	w.add(name+".weight", budget.SatMul(size, w.dt))
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

// Weights lists every weight tensor and buffer one rank holds under sh.
func Weights(a *Arch, sh Sharding) []Item {
	w := &weights{a: a, sh: sh, tp: max(sh.TP, 1), dt: sh.DtypeBytes}
	vocabRank := budget.CeilDiv(budget.RoundUp(a.Vocab, vocabPadding), w.tp)
	if sh.First {
		w.add("model.embed_tokens.weight", budget.SatMul(budget.SatMul(vocabRank, a.Hidden), w.dt))
	}
	for i := max(sh.FirstLayer, 0); i < min(sh.EndLayer, len(a.Layers)); i++ {
		l := a.Layers[i]
		p := fmt.Sprintf("model.layers.%d.", i)
		w.attention(p + "self_attn")
		if l.MoE {
			w.moe(p + "mlp")
		} else {
			w.denseMLP(p+"mlp", a.Intermediate)
		}
		names := []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"}
		for _, n := range names[:min(a.NormsPerLayer, uint64(len(names)))] {
			w.norm(p+n, a.Hidden)
		}
	}
	if sh.Last {
		w.norm("model.norm", a.Hidden)
		// A tied head shares the embedding's tensor, unless the embedding is
		// on another stage: then the last stage holds its own copy.
		if !a.TiedEmbeddings || !sh.First {
			w.add("lm_head.weight", budget.SatMul(budget.SatMul(vocabRank, a.Hidden), w.dt))
		}
	}
	for i, positions := range a.RotaryPositions {
		// vLLM's RotaryEmbedding keeps one cos/sin table of positions x
		// rotary_dim in the model dtype, shared by every layer (get_rope
		// caches instances).
		w.add(fmt.Sprintf("rotary_emb.%d.cos_sin_cache", i), budget.SatMul(budget.SatMul(positions, a.RotaryDim), w.dt))
	}
	if a.Vision != nil && sh.First {
		w.vision(a.Vision)
	}
	return w.items
}

func (w *weights) attention(p string) {
	a := w.a
	if a.MLA {
		w.mla(p)
		return
	}
	hd := a.HeadDim
	qOut := a.Heads * hd
	// QKVParallelLinear: q heads divided, KV heads divided or replicated.
	kvOut := KVHeadsPerRank(a, w.tp) * hd * w.tp
	w.linear(p+".qkv_proj", a.Hidden, qOut+2*kvOut, column, a.AttnBias, true)
	w.linear(p+".o_proj", qOut, a.Hidden, row, false, true)
	if a.QKNorm {
		w.norm(p+".q_norm", hd)
		w.norm(p+".k_norm", hd)
	}
}

func (w *weights) mla(p string) {
	a := w.a
	qHead := a.QKNopeHeadDim + a.QKRopeHeadDim
	if a.QLoraRank > 0 {
		w.linear(p+".q_a_proj", a.Hidden, a.QLoraRank, replicated, false, true)
		w.norm(p+".q_a_layernorm", a.QLoraRank)
		w.linear(p+".q_b_proj", a.QLoraRank, a.Heads*qHead, column, false, true)
	} else {
		w.linear(p+".q_proj", a.Hidden, a.Heads*qHead, column, false, true)
	}
	w.linear(p+".kv_a_proj_with_mqa", a.Hidden, a.KVLoraRank+a.QKRopeHeadDim, replicated, false, true)
	w.norm(p+".kv_a_layernorm", a.KVLoraRank)
	w.linear(p+".kv_b_proj", a.KVLoraRank, a.Heads*(a.QKNopeHeadDim+a.VHeadDim), column, false, true)
	w.linear(p+".o_proj", a.Heads*a.VHeadDim, a.Hidden, row, false, true)
}

func (w *weights) denseMLP(p string, inter uint64) {
	w.linear(p+".gate_up_proj", w.a.Hidden, 2*inter, column, w.a.MLPBias, true)
	w.linear(p+".down_proj", inter, w.a.Hidden, row, w.a.MLPBias, true)
}

func (w *weights) moe(p string) {
	a := w.a
	// The router is never quantized (vLLM builds it with quant_config=None).
	w.linear(p+".gate", a.Hidden, a.Experts, replicated, false, false)
	if a.ScoreCorrectionBias {
		w.add(p+".gate.e_score_correction_bias", budget.SatMul(a.Experts, 4)) // fp32
	}
	// FusedMoE stacks the experts: w13 (gate and up) and w2 (down). Under
	// tensor parallelism each expert's intermediate is divided among the
	// ranks; under expert parallelism each rank holds its share of the
	// experts whole (vLLM's determine_expert_map gives the first ranks one
	// more when they do not divide evenly: the largest share is counted).
	inter := budget.CeilDiv(a.MoEIntermediate, w.tp)
	experts := a.Experts
	if w.sh.ExpertRanks > 1 {
		inter = a.MoEIntermediate
		experts = budget.CeilDiv(a.Experts, w.sh.ExpertRanks)
	}
	q := w.sh.Quant
	if q.skips(p + ".experts") {
		q = Quant{}
	}
	w.matrix(p+".experts.w13", a.Hidden, 2*inter, experts, q)
	w.matrix(p+".experts.w2", inter, a.Hidden, experts, q)
	if a.SharedExperts > 0 {
		w.denseMLP(p+".shared_experts", a.SharedExperts*a.MoEIntermediate)
	}
}

// vision adds a SigLIP vision tower and Gemma 3's projector; vLLM divides
// its attention and MLP among ranks like the language model's and leaves
// them unquantized (quantizable false).
func (w *weights) vision(v *VisionTower) {
	p := "vision_tower.vision_model."
	h := v.Hidden
	patches := (v.ImageSize / v.PatchSize) * (v.ImageSize / v.PatchSize)
	w.add(p+"embeddings.patch_embedding.weight", budget.SatMul(h*3*v.PatchSize*v.PatchSize, w.dt))
	w.add(p+"embeddings.patch_embedding.bias", budget.SatMul(h, w.dt))
	w.add(p+"embeddings.position_embedding.weight", budget.SatMul(budget.SatMul(patches, h), w.dt))
	for i := range v.Layers {
		lp := fmt.Sprintf("%sencoder.layers.%d.", p, i)
		w.linear(lp+"self_attn.qkv_proj", h, 3*h, column, true, false)
		w.linear(lp+"self_attn.out_proj", h, h, row, true, false)
		w.linear(lp+"mlp.fc1", h, v.Intermediate, column, true, false)
		w.linear(lp+"mlp.fc2", v.Intermediate, h, row, true, false)
		for _, n := range []string{"layer_norm1", "layer_norm2"} {
			w.add(lp+n+".weight", budget.SatMul(h, w.dt))
			w.add(lp+n+".bias", budget.SatMul(h, w.dt))
		}
	}
	w.add(p+"post_layernorm.weight", budget.SatMul(h, w.dt))
	w.add(p+"post_layernorm.bias", budget.SatMul(h, w.dt))
	w.add("multi_modal_projector.mm_input_projection_weight", budget.SatMul(h*w.a.Hidden, w.dt))
	w.add("multi_modal_projector.mm_soft_emb_norm.weight", budget.SatMul(h, w.dt))
}
