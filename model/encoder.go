package model

import (
	"fmt"
	"slices"
	"strconv"

	"membudget/budget"
)

// EncoderShape is what an encoder-only model (BERT, RoBERTa, XLM-RoBERTa)
// holds beyond its layers: its learned embeddings and the pooling head vLLM
// builds for its architecture. vLLM serves such a model with its pooling
// runner only; its layers are [EncoderOnly] and keep no KV cache.
type EncoderShape struct {
	// TokenTypes is type_vocab_size: the rows of the token-type table.
	TokenTypes uint64
	// PositionOffset is where the positions start in the learned position
	// table: RoBERTa's pad_token_id + 1 (vllm/model_executor/models/
	// roberta.py RobertaEmbedding.forward: position_ids + padding_idx + 1),
	// 0 for BERT.
	PositionOffset uint64
	// Head is the pooling head vLLM builds for the config's architecture.
	Head EncoderHead
	// Labels is num_labels: the outputs of a classification head.
	Labels uint64
	// Layout is the module vLLM builds the encoder with: BERT's (bert.py)
	// or ModernBERT's (modernbert.py).
	Layout EncoderLayout
	// NormBias is whether the LayerNorms keep a bias (ModernBERT's
	// norm_bias; BERT's always do).
	NormBias bool
	// ClassifierBias is ModernBERT's classifier_bias: the bias of its
	// pooling and prediction heads' dense layer.
	ClassifierBias bool
	// GatedMLP says the MLP's input projection gives 2 x intermediate, a
	// half of which gates the activation of the other (ModernBERT's GeGLU,
	// modernbert.py ModernBertMLP), where BERT's gives intermediate.
	GatedMLP bool
	// ColBERTDim is a ColBERT model's projection width (HeadColBERT): the
	// config's colbert_dim, dim or projection_dim (family_colbert.go).
	ColBERTDim uint64
	// GateUpBias says a bert_with_rope.py gated MLP's gate_up_proj keeps a
	// bias (Nomic's, per qkv_proj_bias; GteNewModel drops it).
	GateUpBias bool
	// SingleRank, when not "", says why vLLM's module fails under tensor
	// parallelism, which the engine refuses with it.
	SingleRank string
}

// EncoderLayout is the vLLM module an encoder-only model is built with.
type EncoderLayout int

// The encoder layouts membudget sizes.
const (
	// LayoutBert: vllm/model_executor/models/bert.py (BERT, RoBERTa,
	// XLM-RoBERTa): learned absolute positions, biased linears, post-norm.
	LayoutBert EncoderLayout = iota
	// LayoutModernBert: vllm/model_executor/models/modernbert.py: rotary
	// positions, GeGLU, pre-norm, a final norm, no position table.
	LayoutModernBert
	// LayoutBertWithRope: vllm/model_executor/models/bert_with_rope.py
	// (GTE v1.5 and mGTE, Nomic BERT, Arctic-Embed 2.0): BERT's post-norm
	// layers over rotary positions, a GeGLU or SwiGLU MLP whose gate_up_proj
	// is divided among the ranks, no position table.
	LayoutBertWithRope
)

// RotaryPositions reports whether the encoder's positions are rotary, so
// that its length is bounded by what vLLM derives from the config rather
// than by a learned table it would index past.
func (e *EncoderShape) RotaryPositions() bool {
	return e.Layout == LayoutModernBert || e.Layout == LayoutBertWithRope
}

// EncoderHead is the pooling head of an encoder-only architecture, as
// vLLM's module builds it.
type EncoderHead int

// The heads vLLM builds (vllm/model_executor/models/bert.py and
// roberta.py at main d18bb7b).
const (
	// HeadNone: BertEmbeddingModel and RobertaEmbeddingModel (BertModel,
	// RobertaModel, RobertaForMaskedLM, XLMRobertaModel) pool with no
	// parameters and skip the checkpoint's pooler and lm_head.
	HeadNone EncoderHead = iota
	// HeadBertClassifier: BertForSequenceClassification's BertPooler
	// (a hidden x hidden dense) and its hidden x num_labels classifier.
	HeadBertClassifier
	// HeadRobertaClassifier: RobertaClassificationHead's dense (hidden x
	// hidden) and out_proj (hidden x num_labels).
	HeadRobertaClassifier
	// HeadBgeM3: BgeM3EmbeddingModel's sparse_linear (hidden x 1) and
	// colbert_linear (hidden x hidden).
	HeadBgeM3
	// HeadTokenClassifier: the token classifiers' hidden x num_labels
	// classifier over every token (BertForTokenClassification,
	// RobertaForTokenClassification, which XLMRobertaForTokenClassification
	// is), without a pooler.
	HeadTokenClassifier
	// HeadModernBertClassifier: ModernBertForSequenceClassification's
	// ModernBertPooler (dense hidden x hidden and a LayerNorm) and its
	// hidden x num_labels classifier, all in the head dtype.
	HeadModernBertClassifier
	// HeadModernBertTokenClassifier: ModernBertForTokenClassification's
	// ModernBertPredictionHead (dense and LayerNorm, in the model dtype)
	// and its hidden x num_labels classifier (head dtype) over every token.
	HeadModernBertTokenClassifier
	// HeadColBERT: colbert.py ColBERTMixin's colbert_linear (hidden x
	// colbert_dim, no bias, an nn.Linear whole on every rank in the head
	// dtype) over every token's hidden state, the late-interaction
	// output (HF_ColBERT over BERT, ColBERTModernBertModel over
	// ModernBERT).
	HeadColBERT
)

// TokenWise reports whether the head classifies every token, so that the
// pooling runner holds every token's logits (the token classifiers).
func (h EncoderHead) TokenWise() bool {
	return h == HeadTokenClassifier || h == HeadModernBertTokenClassifier || h == HeadColBERT
}

// PositionLimit returns the longest sequence the position table of an
// encoder-only model holds: max_position_embeddings less RoBERTa's offset.
// 0 for a decoder.
func (a *Arch) PositionLimit() uint64 {
	if a.Encoder == nil {
		return 0
	}
	return budget.SatSub(a.MaxPosition, a.Encoder.PositionOffset)
}

// encoderArchitectures are the architectures an encoder-only family
// sizes: vLLM serves them with its pooling runner only.
var encoderArchitectures = map[string]bool{}

// registerEncoderArchitectures registers archs as model_type modelType's
// (registerArchitectures), each an encoder-only architecture.
func registerEncoderArchitectures(modelType string, archs []encoderArch) {
	for _, e := range archs {
		registerArchitectures(modelType, e.name)
		encoderArchitectures[e.name] = true
	}
}

// EncoderOnlyArchitecture reports whether arch is one the model sizes as
// an encoder-only pooling model (BertModel, XLMRobertaModel, ...), which
// vLLM's registry lists among its pooling runner's models.
func EncoderOnlyArchitecture(arch string) bool { return encoderArchitectures[arch] }

// encoderArch is one architecture an encoder family sizes, with the head
// vLLM builds for it.
type encoderArch struct {
	name string
	head EncoderHead
}

// readEncoder reads an encoder-only config (BERT's layout, which vLLM's
// bert.py builds for BERT and, with RobertaEmbedding, for RoBERTa): one
// multi-head attention of hidden_size / num_attention_heads per head,
// learned absolute positions, and the head of the first architecture that
// archs lists. offset is true for RoBERTa's positions (pad_token_id + 1).
func readEncoder(o jsonObject, a *Arch, archs []encoderArch, offset bool) {
	readCommon(o, a)
	// bert.py BertSelfAttention: every head is a KV head and head_dim is
	// hidden_size / num_attention_heads, whatever the config says else.
	a.KVHeads = a.Heads
	a.derivedHeadDim(o)
	a.Rotary, a.RotaryDim, a.RopeScaling, a.RopeScalings = nil, 0, nil, nil
	a.AttnBias, a.OutBias, a.MLPBias = true, true, true
	a.TiedEmbeddings = false // no lm_head is built: nothing is tied
	if t := o.str("position_embedding_type"); t != "" && t != "absolute" {
		// bert.py BertEmbedding raises for any other; roberta.py builds
		// JinaRobertaModel (rotary) instead, which is not read here.
		o.fail("position_embedding_type", "%q: membudget sizes the absolute position embeddings of vLLM's BertModel only", t)
	}
	if o.has("quantization_config") {
		o.fail("quantization_config", "a quantized encoder-only model is not modelled")
	}
	e := &EncoderShape{TokenTypes: o.uint("type_vocab_size")}
	if offset {
		e.PositionOffset = o.uint("pad_token_id") + 1
		if e.PositionOffset >= a.MaxPosition && a.MaxPosition > 0 {
			o.fail("pad_token_id", "%d leaves no position of the %d of max_position_embeddings", e.PositionOffset-1, a.MaxPosition)
		}
	}
	e.Head = encoderHeadOf(o, a, archs)
	if e.Head == HeadBertClassifier || e.Head == HeadRobertaClassifier || e.Head == HeadTokenClassifier {
		e.Labels = numLabels(o)
	}
	if e.Head == HeadColBERT {
		e.ColBERTDim = colbertDim(o, a)
	}
	if e.TokenTypes > 1<<16 {
		o.fail("type_vocab_size", "%d is beyond any real model (at most %d)", e.TokenTypes, 1<<16)
	}
	a.Encoder = e
	a.Layers = make([]Layer, a.NumLayers)
	for i := range a.Layers {
		a.Layers[i].Kind = EncoderOnly
	}
}

// encoderHeadOf is the head of the config's first architecture; a config
// naming none of archs is refused, naming those it may.
func encoderHeadOf(o jsonObject, a *Arch, archs []encoderArch) EncoderHead {
	names := make([]string, len(archs))
	for i, e := range archs {
		names[i] = e.name
	}
	if len(a.Architectures) == 0 {
		o.fail("architectures", "missing: vLLM picks an encoder-only model's head by it (want one of %v)", names)
		return HeadNone
	}
	i := slices.Index(names, a.Architectures[0])
	if i < 0 {
		o.fail("architectures", "%q is not one membudget sizes for model_type %s (want one of %v)", a.Architectures[0], a.ModelType, names)
		return HeadNone
	}
	return archs[i].head
}

// numLabels is PretrainedConfig's num_labels: the entries of id2label when
// the config has it, else num_labels, else 2 (transformers
// configuration_utils.py PretrainedConfig.__init__).
func numLabels(o jsonObject) uint64 {
	if l, ok := o.object("id2label"); ok {
		if n := uint64(len(l.keys())); n > 0 {
			return n
		}
	}
	n := o.uintOr("num_labels", 2)
	if n == 0 || n > 1<<20 {
		o.fail("num_labels", "%d: want 1 to %d", n, 1<<20)
	}
	return n
}

// encoderWeights lists an encoder-only model's weights on one rank, as
// vLLM's bert.py builds them: the three embedding tables as
// VocabParallelEmbedding (rows padded to 64, divided among the ranks),
// the embeddings' LayerNorm and the int64 position_ids buffer of
// max_position_embeddings; per layer the biased QKVParallelLinear,
// attention.output.dense (RowParallelLinear) and its LayerNorm,
// intermediate.dense (ColumnParallelLinear), output.dense
// (RowParallelLinear) and its LayerNorm; then the head, whose nn.Linear
// layers are whole on every rank in the head dtype (float32 under the
// pooling runner: vllm/config/model.py _get_head_dtype).
func encoderWeights(w *weights) []budget.Item {
	a, e := w.a, w.a.Encoder
	switch e.Layout {
	case LayoutModernBert:
		return modernBertWeights(w)
	case LayoutBertWithRope:
		return bertWithRopeWeights(w)
	}
	table := func(rows uint64) uint64 {
		return bytesOf(budget.SatMul(w.vocabRows(rows), a.Hidden), w.dt)
	}
	if w.sh.First {
		w.add("embeddings.word_embeddings.weight", table(a.Vocab))
		w.add("embeddings.position_embeddings.weight", table(a.MaxPosition))
		w.add("embeddings.token_type_embeddings.weight", table(e.TokenTypes))
		w.layerNorm("embeddings.LayerNorm", a.Hidden)
		// register_buffer("position_ids", torch.arange(max_position)):
		// int64, on the device with the module.
		w.add("embeddings.position_ids", bytesOf(a.MaxPosition, 8))
	}
	headsRank := budget.CeilDiv(a.Heads, w.tp)
	for i := max(w.sh.FirstLayer, 0); i < min(w.sh.EndLayer, len(a.Layers)); i++ {
		p := "encoder.layer." + strconv.Itoa(i) + "."
		qkv := budget.SatMul(3*headsRank, a.HeadDim)
		w.add(p+"attention.self.qkv_proj.weight", bytesOf(budget.SatMul(a.Hidden, qkv), w.dt))
		w.add(p+"attention.self.qkv_proj.bias", bytesOf(qkv, w.dt))
		// RowParallelLinear: its input divided, its bias whole (linear.py).
		w.add(p+"attention.output.dense.weight", bytesOf(budget.SatMul(budget.CeilDiv(a.Hidden, w.tp), a.Hidden), w.dt))
		w.add(p+"attention.output.dense.bias", bytesOf(a.Hidden, w.dt))
		w.layerNorm(p+"attention.output.LayerNorm", a.Hidden)
		inter := budget.CeilDiv(a.Intermediate, w.tp)
		w.add(p+"intermediate.dense.weight", bytesOf(budget.SatMul(a.Hidden, inter), w.dt))
		w.add(p+"intermediate.dense.bias", bytesOf(inter, w.dt))
		w.add(p+"output.dense.weight", bytesOf(budget.SatMul(inter, a.Hidden), w.dt))
		w.add(p+"output.dense.bias", bytesOf(a.Hidden, w.dt))
		w.layerNorm(p+"output.LayerNorm", a.Hidden)
	}
	if !w.sh.Last {
		return w.items
	}
	const headDtype = 4 // float32
	linear := func(name string, in, out uint64) {
		w.add(name+".weight", bytesOf(budget.SatMul(in, out), headDtype))
		w.add(name+".bias", bytesOf(out, headDtype))
	}
	switch e.Head {
	case HeadBertClassifier:
		// bert.py BertPooler.dense and BertForSequenceClassification.classifier.
		linear("bert.pooler.dense", a.Hidden, a.Hidden)
		linear("classifier", a.Hidden, e.Labels)
	case HeadRobertaClassifier:
		// roberta.py RobertaClassificationHead.
		linear("classifier.dense", a.Hidden, a.Hidden)
		linear("classifier.out_proj", a.Hidden, e.Labels)
	case HeadBgeM3:
		// roberta.py BgeM3EmbeddingModel._build_pooler.
		linear("sparse_linear", a.Hidden, 1)
		linear("colbert_linear", a.Hidden, a.Hidden)
	case HeadTokenClassifier:
		// bert.py BertForTokenClassification.classifier, roberta.py
		// RobertaForTokenClassification.classifier.
		linear("classifier", a.Hidden, e.Labels)
	case HeadColBERT:
		w.colbertLinear()
	}
	return w.items
}

// String names an encoder head for messages.
func (h EncoderHead) String() string {
	switch h {
	case HeadBertClassifier:
		return "BertPooler and classifier"
	case HeadRobertaClassifier:
		return "RobertaClassificationHead"
	case HeadBgeM3:
		return "BGE-M3 sparse and ColBERT heads"
	case HeadTokenClassifier:
		return "a classifier of every token"
	case HeadModernBertClassifier:
		return "ModernBertPooler and classifier"
	case HeadModernBertTokenClassifier:
		return "ModernBertPredictionHead and a classifier of every token"
	case HeadColBERT:
		return "ColBERT projection of every token (late interaction)"
	case HeadNone:
		return "no parameters"
	}
	return fmt.Sprintf("EncoderHead(%d)", int(h))
}
