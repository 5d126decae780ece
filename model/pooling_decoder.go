package model

import (
	"fmt"
	"strings"

	"membudget/budget"
)

// PoolerHead is the head a decoder-based pooling architecture of vLLM's
// registry builds in place of the LM head (the reward models): its layers,
// embedding and KV cache are its family's, its ParallelLMHead is not
// built, and a small head reads the hidden states of every token. vLLM
// serves such a model with its pooling runner only.
type PoolerHead struct {
	// Kind is the head vLLM's module builds.
	Kind PoolerKind
	// Labels is the head's outputs a token: vLLM sets num_labels itself
	// for the Qwen2 reward classes, whatever the config says.
	Labels uint64
	// SeqPooling and TokPooling are the class's default pooling types
	// (interfaces_base.py default_pooling_type: LAST and ALL unless the
	// class's decorator says otherwise), which decide, with
	// --pooler-config, whether vLLM keeps chunked prefill.
	SeqPooling, TokPooling string
	// HeadDtype is the config's head_dtype ("" when it has none: float32
	// under the pooling runner, vllm/config/model.py _get_head_dtype;
	// "model" for the model's dtype).
	HeadDtype string
	// Convert is "classify" for an architecture vLLM reaches through its
	// suffix table rather than a registry class (convertedSeqCls): its
	// convert type, and what --runner generate does with it, follow.
	Convert string
}

// PoolerKind is the head of a decoder-based pooling architecture.
type PoolerKind int

// The heads vLLM builds at main d18bb7b.
const (
	// PoolerQwen2Score: qwen2_rm.py Qwen2RewardBaseModel.score (:50-66),
	// ColumnParallelLinear(hidden, hidden), ReLU, RowParallelLinear(hidden,
	// num_labels), both biased and in the head dtype.
	PoolerQwen2Score PoolerKind = iota
	// PoolerInternLM2VHead: internlm2.py InternLM2ForRewardModel.v_head
	// (:416-424), RowParallelLinear(hidden, 1) without bias, in the head
	// dtype.
	PoolerInternLM2VHead
	// PoolerSeqClsScore: a sequence classifier's score, hidden x
	// num_labels without bias in the head dtype, whole on every rank
	// (adapters.py as_seq_cls_model's ReplicatedLinear; gpt2.py
	// GPT2ForSequenceClassification's nn.Linear).
	PoolerSeqClsScore
)

// String names the head for messages.
func (k PoolerKind) String() string {
	switch k {
	case PoolerQwen2Score:
		return "score head (hidden x hidden, ReLU, hidden x num_labels)"
	case PoolerInternLM2VHead:
		return "v_head (hidden x 1)"
	case PoolerSeqClsScore:
		return "score head (hidden x num_labels)"
	}
	return fmt.Sprintf("PoolerKind(%d)", int(k))
}

// poolingDecoder is a decoder-based pooling architecture: the model_type
// whose family builds its layers, and its head.
type poolingDecoder struct {
	modelType string
	head      PoolerHead
}

// poolingDecoders are the decoder-based pooling architectures the model
// sizes, by architecture.
var poolingDecoders = map[string]poolingDecoder{}

// registerPoolingDecoder registers arch as a pooling architecture whose
// layers model_type modelType's family reads, with head.
func registerPoolingDecoder(modelType, arch string, head PoolerHead) {
	registerArchitectures(modelType, arch)
	poolingDecoders[arch] = poolingDecoder{modelType, head}
}

func init() {
	// vllm/model_executor/models/registry.py at d18bb7b lists the three in
	// _EMBEDDING_MODELS' reward part. num_labels: qwen2_rm.py:96 sets 1
	// for Qwen2ForRewardModel and :108 sets 2 for
	// Qwen2ForProcessRewardModel; internlm2.py:416-424's v_head has one
	// output. Pooling types: qwen2_rm.py:93 and :105, internlm2.py:391
	// (default_pooling_type(tok_pooling_type=...), seq_pooling_type left
	// at LAST, interfaces_base.py:235-238).
	registerPoolingDecoder("qwen2", "Qwen2ForRewardModel", PoolerHead{Kind: PoolerQwen2Score, Labels: 1, SeqPooling: "LAST", TokPooling: "ALL"})
	registerPoolingDecoder("qwen2", "Qwen2ForProcessRewardModel", PoolerHead{Kind: PoolerQwen2Score, Labels: 2, SeqPooling: "LAST", TokPooling: "STEP"})
	registerPoolingDecoder("internlm2", "InternLM2ForRewardModel", PoolerHead{Kind: PoolerInternLM2VHead, Labels: 1, SeqPooling: "LAST", TokPooling: "ALL"})
}

// PoolingDecoderArchitecture reports whether arch is a decoder-based
// pooling architecture the model sizes (a reward model), which vLLM's
// registry lists among its pooling runner's models.
func PoolingDecoderArchitecture(arch string) bool {
	_, ok := poolingDecoders[arch]
	return ok
}

// readPoolingDecoder sets a.Pooler when the config's first architecture
// is a decoder-based pooling one; such an architecture with another
// family's model_type is refused, as is a quantized one (vLLM quantizes
// the head with the model, which is not modelled).
func readPoolingDecoder(o jsonObject, a *Arch) {
	if len(a.Architectures) == 0 {
		return
	}
	if why := PoolingRefusal(a.Architectures[0]); why != "" {
		o.fail("architectures", "%q is a pooling model of vLLM's registry that membudget does not size: %s", a.Architectures[0], why)
		return
	}
	p, ok := poolingDecoders[a.Architectures[0]]
	if !ok && a.Encoder == nil && a.Vision == nil {
		p.head, ok = convertedSeqCls(a.Architectures[0], a.ModelType)
		p.modelType = a.ModelType
		if !ok && strings.HasSuffix(a.Architectures[0], seqClsSuffix) {
			// vLLM pools it by default (config/model.py
			// _SUFFIX_TO_DEFAULTS): sized as a generating model it
			// would be charged an LM head and a sampler it has not.
			o.fail("architectures", "%q is a sequence classifier vLLM serves with its pooling runner (the suffix table of vllm/config/model.py), and membudget sizes its conversion only from a <X>ForCausalLM the family of model_type %s reads", a.Architectures[0], a.ModelType)
			return
		}
	}
	if !ok {
		return
	}
	if p.modelType != a.ModelType {
		o.fail("architectures", "%q builds model_type %s's layers (vLLM's module), not those of model_type %s", a.Architectures[0], p.modelType, a.ModelType)
		return
	}
	if a.Encoder != nil || a.Vision != nil {
		o.fail("architectures", "%q is a text decoder's pooling head, which this config's model does not have", a.Architectures[0])
		return
	}
	if o.has("quantization_config") {
		o.fail("quantization_config", "a quantized %s is not modelled: vLLM quantizes its pooling head with the model", a.Architectures[0])
		return
	}
	h := p.head
	if h.Kind == PoolerSeqClsScore {
		readSeqCls(o, &h)
	}
	switch d := o.str("head_dtype"); d {
	case "", "model", "float32", "float16", "bfloat16":
		h.HeadDtype = d
	default:
		o.fail("head_dtype", "%q: want model, float32, float16 or bfloat16 (vllm/config/model.py _get_head_dtype)", d)
		return
	}
	a.Pooler = &h
}

// poolerHeadWeights adds the pooling head of a decoder-based pooling
// model. Both vLLM modules build it on every pipeline stage (their
// __init__ builds it unconditionally), split among the tensor-parallel
// ranks as their linear layers are: a ColumnParallelLinear's rows and bias
// divided, a RowParallelLinear's input divided and its bias whole
// (vllm/model_executor/layers/linear.py).
func (w *weights) poolerHeadWeights() {
	a, h := w.a, w.a.Pooler
	el := h.dtypeBytes(w.dt)
	rank := budget.CeilDiv(a.Hidden, w.tp)
	switch h.Kind {
	case PoolerQwen2Score:
		w.add("score.0.weight", bytesOf(budget.SatMul(rank, a.Hidden), el))
		w.add("score.0.bias", bytesOf(rank, el))
		w.add("score.2.weight", bytesOf(budget.SatMul(h.Labels, rank), el))
		w.add("score.2.bias", bytesOf(h.Labels, el))
	case PoolerInternLM2VHead:
		w.add("v_head.weight", bytesOf(rank, el))
	case PoolerSeqClsScore:
		// Replicated: every rank holds the whole matrix.
		w.add("score.weight", bytesOf(budget.SatMul(h.Labels, a.Hidden), el))
	}
}

// dtypeBytes is the pooling head's element size under a model dtype of
// modelBytes: float32 unless the config's head_dtype says otherwise
// (vllm/config/model.py _get_head_dtype, the pooling runner's default).
func (h *PoolerHead) dtypeBytes(modelBytes uint64) uint64 {
	switch h.HeadDtype {
	case "model":
		return modelBytes
	case "float16", "bfloat16":
		return 2
	}
	return 4
}

// PoolerHeadBytesPerToken returns what the pooling head of a
// decoder-based pooling model holds per token at its widest on one of tp
// ranks: the final hidden state and its copy in the head dtype while
// hidden_states.to(head_dtype) runs, then the copy beside the score head's
// first linear output and its ReLU (qwen2_rm.py:84-85; internlm2.py:
// 441-442 has the copy and a single output). 0 for any other model.
func PoolerHeadBytesPerToken(a *Arch, tp, dtypeBytes uint64) uint64 {
	h := a.Pooler
	if h == nil {
		return 0
	}
	el := h.dtypeBytes(dtypeBytes)
	copyBytes := budget.SatMul(a.Hidden, el)
	per := budget.SatAdd(budget.SatMul(a.Hidden, dtypeBytes), copyBytes)
	if h.Kind == PoolerQwen2Score {
		inner := budget.SatMul(budget.CeilDiv(a.Hidden, max(tp, 1)), el)
		per = max(per, budget.SatAdd(copyBytes, budget.SatMul(2, inner)))
	}
	return per
}

// poolingRefusals are the pooling architectures of vLLM's registry (the
// late-interaction, multimodal embedding and multimodal classification
// models) whose heads membudget does not read, each with why, by
// architecture (vllm/model_executor/models/<module>.py at d18bb7b). A
// config naming one is refused even where its model_type is a family's
// (JinaVLForRanking's qwen2_vl, ColQwen3's qwen3_vl): sized by that
// family it would be a generating model, which vLLM does not serve it as.
var poolingRefusals = map[string]string{
	"ColQwen3":                                 "colqwen3.py ColQwen3Model: Qwen3-VL with a late-interaction projection of every token, not read",
	"OpsColQwen3Model":                         "colqwen3.py ColQwen3Model: Qwen3-VL with a late-interaction projection of every token, not read",
	"Qwen3VLNemotronEmbedModel":                "colqwen3.py ColQwen3Model: Qwen3-VL with a late-interaction projection of every token, not read",
	"ColQwen3_5":                               "colqwen3_5.py ColQwen3_5Model: Qwen3.5 with a late-interaction projection of every token, not read",
	"ColPaliForRetrieval":                      "colpali.py ColPaliModel: PaliGemma with a late-interaction projection of every token, not read",
	"ColModernVBertForRetrieval":               "colmodernvbert.py ColModernVBertForRetrieval: ModernBERT with a vision connector and a late-interaction projection, not read",
	"JinaVLForRanking":                         "jina_vl.py JinaVLForSequenceClassification: Qwen2-VL with a JinaVLScorer head, not read",
	"LlamaNemotronVLForSequenceClassification": "nemotron_vl.py LlamaNemotronVLForSequenceClassification: an InternVL-style model with a score head, not read",
	"LlamaNemotronVLModel":                     "nemotron_vl.py LlamaNemotronVLForEmbedding: an InternVL-style embedding model, not read",
	"JinaForRanking":                           "jina.py JinaForRanking: a Qwen3 decoder with a late-interaction ranking head, not read",
	"ColBERTJinaRobertaModel":                  "colbert.py ColBERTJinaRobertaModel: JinaRobertaModel (rotary XLM-RoBERTa, bert_with_rope.py), which membudget does not size, and a ColBERT projection",
	"ColBERTLfm2Model":                         "colbert.py ColBERTLfm2Model: LFM2's ShortConv layers (a per-sequence state membudget does not model) and a ColBERT projection",
}

// PoolingRefusal returns why the model sizes no config naming arch, a
// pooling architecture of vLLM's registry whose head is not read; "" for
// any other.
func PoolingRefusal(arch string) string {
	if why := seqClsRefusals[arch]; why != "" {
		return why
	}
	return poolingRefusals[arch]
}
