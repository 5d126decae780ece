package model

import (
	"strconv"

	"membudget/budget"
)

func init() {
	// No checkpoint rules: ModernBERT checkpoints name their tensors with
	// and without the model. prefix (modernbert.py ModernBertModel's
	// hf_to_vllm_mapper); the weights are derived from config.json.
	registerConfigOnly("modernbert", flat(readModernBert))
	registerEncoderArchitectures("modernbert", modernBertArchs)
	declareClass("modernbert", modernBertClass)
}

// modernBertArchs are the architectures of vLLM's registry that
// modernbert.py serves (vllm/model_executor/models/registry.py:244, 299-302,
// 330-333 at d18bb7b). ModernBertForMaskedLM, which answerdotai's base
// checkpoints name, is not among them; ColBERTModernBertModel (colbert.py)
// is not read.
var modernBertArchs = []encoderArch{
	{"ModernBertModel", HeadNone},
	{"ModernBertForSequenceClassification", HeadModernBertClassifier},
	{"ModernBertForTokenClassification", HeadModernBertTokenClassifier},
	// colbert.py ColBERTModernBertModel: ModernBertModel and its
	// projection.
	{"ColBERTModernBertModel", HeadColBERT},
}

// modernBertSingleRank is why vLLM's ModernBERT fails under tensor
// parallelism at d18bb7b: ModernBertMLP.Wi is a plain nn.Linear whose
// whole 2 x intermediate output feeds a RowParallelLinear Wo that takes its
// input as already divided (modernbert.py:152-165), and the attention
// splits the QKVParallelLinear output by all the heads (modernbert.py:78-80,
// 140).
const modernBertSingleRank = "vLLM's ModernBERT is built for one rank: its MLP's Wi is a plain nn.Linear whose whole output feeds the row-parallel Wo as if divided, and its attention splits the divided QKV by all the heads (modernbert.py ModernBertMLP, ModernBertAttention at d18bb7b), so it fails at the first forward"

// The rope bases transformers ModernBertConfig gives the global and local
// layers when the config omits them (default_theta in
// configuration_modernbert.py@001f85b38f).
const (
	modernBertGlobalTheta = 160000.0
	modernBertLocalTheta  = 10000.0
)

// readModernBert reads ModernBERT (vllm/model_executor/models/
// modernbert.py): token embeddings and a LayerNorm, pre-norm layers of one
// fused QKV and Wo, a GeGLU MLP of Wi (2 x intermediate) and Wo, a final
// LayerNorm, rotary positions (a global and a local base), and no bias
// unless the config asks for them.
func readModernBert(o jsonObject, a *Arch) {
	readCommon(o, a)
	// modernbert.py:78-80: every head is a KV head, head_dim is
	// hidden_size / num_attention_heads.
	a.KVHeads = a.Heads
	a.derivedHeadDim(o)
	a.RopeScaling, a.RopeScalings = nil, nil
	a.RotaryDim = a.HeadDim
	a.AttnBias = o.boolOr("attention_bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.TiedEmbeddings = false // no decoder head is built: nothing is tied
	if o.has("quantization_config") {
		o.fail("quantization_config", "a quantized encoder-only model is not modelled")
	}
	if s, ok := o.object("rope_scaling"); ok && len(s.keys()) > 0 {
		// vLLM's transformers-4 path builds a default rope of
		// global_rope_theta or local_rope_theta (modernbert.py:100-112);
		// under transformers 5 ModernBertConfig merges rope_scaling into
		// both layer types' rope_parameters, which vLLM then applies.
		o.fail("rope_scaling", "whether vLLM applies it to ModernBERT depends on the transformers release it runs with; not sized")
	}
	if p := o.str("classifier_pooling"); p != "" && p != "cls" && p != "mean" {
		// configuration_modernbert.py raises for any other.
		o.fail("classifier_pooling", "%q: transformers' ModernBertConfig accepts cls or mean only", p)
	}
	e := &EncoderShape{
		Layout:         LayoutModernBert,
		NormBias:       o.boolOr("norm_bias", false),
		ClassifierBias: o.boolOr("classifier_bias", false),
		GatedMLP:       true,
		SingleRank:     modernBertSingleRank,
	}
	e.Head = encoderHeadOf(o, a, modernBertArchs)
	if e.Head == HeadModernBertClassifier || e.Head == HeadModernBertTokenClassifier {
		e.Labels = numLabels(o)
	}
	if e.Head == HeadColBERT {
		e.ColBERTDim = colbertDim(o, a)
	}
	a.Encoder = e
	a.Rotary = modernBertRotary(o, a)
	a.Layers = make([]Layer, a.NumLayers)
	for i := range a.Layers {
		a.Layers[i].Kind = EncoderOnly
	}
}

// modernBertRotary is ModernBERT's cos/sin tables: one of
// max_position_embeddings x head_dim per distinct rope of the layers
// (get_rope caches an instance per rope_parameters; modernbert.py:91-119),
// which is one where every layer is global or both bases agree, two else.
// A transformers-5 config names its layers' types and ropes (layer_types,
// rope_parameters); a transformers-4 one makes every
// global_attn_every_n_layers-th layer from the first global.
func modernBertRotary(o jsonObject, a *Arch) []RotaryTable {
	global, local := modernBertGlobalTheta, modernBertLocalTheta
	if v, ok := o.number("global_rope_theta"); ok {
		global = v
	}
	if _, given := o.m["local_rope_theta"]; given && !o.has("local_rope_theta") {
		// Null: vLLM's transformers-4 path takes global_rope_theta
		// (modernbert.py:105-109), transformers 5 leaves the local rope
		// without a base.
		o.fail("local_rope_theta", "null: the local layers' rope then depends on the transformers release vLLM runs with; give a number")
	}
	if v, ok := o.number("local_rope_theta"); ok {
		local = v
	}
	var usesGlobal, usesLocal bool
	if types := o.strings("layer_types"); len(types) > 0 {
		if uint64(len(types)) != a.NumLayers {
			o.fail("layer_types", "%d entries for %d layers", len(types), a.NumLayers)
		}
		for _, t := range types {
			switch t {
			case "full_attention":
				usesGlobal = true
			case "sliding_attention":
				usesLocal = true
			default:
				o.fail("layer_types", "%q: ModernBERT's layers are full_attention or sliding_attention", t)
			}
		}
		if p, ok := o.object("rope_parameters"); ok {
			global = modernBertTheta(p, "full_attention", global)
			local = modernBertTheta(p, "sliding_attention", local)
		}
	} else {
		n := o.uintOr("global_attn_every_n_layers", 3)
		if n == 0 {
			// transformers takes i % n of every layer.
			o.fail("global_attn_every_n_layers", "0: want at least 1")
		}
		// Layer 0 is global; a layer i with i % n != 0 is local.
		usesGlobal = a.NumLayers > 0
		usesLocal = a.NumLayers > 1 && n > 1
	}
	table := func(name string) RotaryTable {
		return RotaryTable{Name: name, Positions: a.MaxPosition, Dim: a.HeadDim}
	}
	switch {
	case usesGlobal && usesLocal && global != local:
		return []RotaryTable{table("rotary_emb_global"), table("rotary_emb_local")}
	case usesGlobal || usesLocal:
		return []RotaryTable{table("rotary_emb")}
	}
	return nil
}

// modernBertTheta is the rope_theta of rope_parameters[kind], def where it
// gives none; a rope other than the default one is refused, its table may
// differ.
func modernBertTheta(p jsonObject, kind string, def float64) float64 {
	r, ok := p.object(kind)
	if !ok {
		return def
	}
	if t := r.str("rope_type"); t != "" && t != "default" {
		p.fail("rope_parameters", "%s rope_type %q: ModernBERT is sized with the default rope only", kind, t)
	}
	if v, ok := r.number("rope_theta"); ok {
		return v
	}
	return def
}

// modernBertWeights lists a ModernBERT's weights on one rank as
// modernbert.py builds them at d18bb7b: the VocabParallelEmbedding
// tok_embeddings (rows padded to 64) and its LayerNorm; per layer the
// attn_norm LayerNorm (nn.Identity for layer 0, modernbert.py:178-183),
// the QKVParallelLinear Wqkv, the RowParallelLinear Wo, the mlp_norm, the
// MLP's nn.Linear Wi of hidden x 2 x intermediate (whole on every rank)
// and RowParallelLinear Wo, biases per attention_bias and mlp_bias; the
// final_norm; a cos/sin table per rope; then the head. LayerNorms keep a
// bias per norm_bias.
func modernBertWeights(w *weights) []budget.Item {
	a, e := w.a, w.a.Encoder
	norm := func(name string, dt uint64) {
		w.add(name+".weight", bytesOf(a.Hidden, dt))
		if e.NormBias {
			w.add(name+".bias", bytesOf(a.Hidden, dt))
		}
	}
	linear := func(name string, in, out uint64, bias bool, dt uint64) {
		w.add(name+".weight", bytesOf(budget.SatMul(in, out), dt))
		if bias {
			w.add(name+".bias", bytesOf(out, dt))
		}
	}
	if w.sh.First {
		rows := w.vocabRows(a.Vocab)
		w.add("embeddings.tok_embeddings.weight", bytesOf(budget.SatMul(rows, a.Hidden), w.dt))
		norm("embeddings.norm", w.dt)
	}
	headsRank := budget.CeilDiv(a.Heads, w.tp)
	for i := max(w.sh.FirstLayer, 0); i < min(w.sh.EndLayer, len(a.Layers)); i++ {
		p := "encoder_layer.layers." + strconv.Itoa(i) + "."
		if i > 0 {
			norm(p+"attn_norm", w.dt)
		}
		linear(p+"attn.Wqkv", a.Hidden, budget.SatMul(3*headsRank, a.HeadDim), a.AttnBias, w.dt)
		// RowParallelLinear: its input divided, its bias whole (linear.py).
		w.add(p+"attn.Wo.weight", bytesOf(budget.SatMul(budget.CeilDiv(a.Hidden, w.tp), a.Hidden), w.dt))
		if a.AttnBias {
			w.add(p+"attn.Wo.bias", bytesOf(a.Hidden, w.dt))
		}
		norm(p+"mlp_norm", w.dt)
		linear(p+"mlp.Wi", a.Hidden, budget.SatMul(2, a.Intermediate), a.MLPBias, w.dt)
		w.add(p+"mlp.Wo.weight", bytesOf(budget.SatMul(budget.CeilDiv(a.Intermediate, w.tp), a.Hidden), w.dt))
		if a.MLPBias {
			w.add(p+"mlp.Wo.bias", bytesOf(a.Hidden, w.dt))
		}
	}
	for _, r := range a.Rotary {
		// RotaryEmbedding's cos_sin_cache buffer, in the model dtype
		// (rotary_embedding/base.py: cache.to(dtype)).
		w.add(r.Name+".cos_sin_cache", bytesOf(budget.SatMul(r.Positions, r.Dim), w.dt))
	}
	if !w.sh.Last {
		return w.items
	}
	norm("final_norm", w.dt)
	const headDtype = 4 // float32: vllm/config/model.py _get_head_dtype under the pooling runner
	switch e.Head {
	case HeadModernBertClassifier:
		// modernbert.py ModernBertPooler (dense, norm) and the classifier
		// (nn.Linear: biased), every one in the head dtype.
		linear("pooling.dense", a.Hidden, a.Hidden, e.ClassifierBias, headDtype)
		norm("pooling.norm", headDtype)
		linear("classifier", a.Hidden, e.Labels, true, headDtype)
	case HeadModernBertTokenClassifier:
		// modernbert.py ModernBertPredictionHead in the model dtype, the
		// classifier in the head dtype.
		linear("head.dense", a.Hidden, a.Hidden, e.ClassifierBias, w.dt)
		norm("head.norm", w.dt)
		linear("classifier", a.Hidden, e.Labels, true, headDtype)
	case HeadColBERT:
		w.colbertLinear()
	}
	return w.items
}

// modernBertClass is transformers ModernBertConfig, read at
// huggingface/transformers@001f85b38f (configuration_modernbert.py). Its
// defaults are ModernBERT-base's.
var modernBertClass = configClass{
	Name:   "ModernBertConfig",
	Source: "src/transformers/models/modernbert/configuration_modernbert.py@001f85b38f",
	Defaults: []classDefault{
		{"vocab_size", "50368"}, {"hidden_size", "768"}, {"intermediate_size", "1152"},
		{"num_hidden_layers", "22"}, {"num_attention_heads", "12"}, {"max_position_embeddings", "8192"},
		{"norm_bias", "false"}, {"attention_bias", "false"}, {"mlp_bias", "false"},
		{"classifier_bias", "false"}, {"classifier_pooling", `"cls"`}, {"pad_token_id", "50283"},
	},
}
