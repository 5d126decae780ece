package model

import (
	"slices"
	"strings"
)

// seqClsSuffix is the suffix vLLM's ModelConfig maps to the pooling runner
// and the classify conversion (vllm/config/model.py _SUFFIX_TO_DEFAULTS at
// d18bb7b: ("ForSequenceClassification", ("pooling", "classify"))).
const seqClsSuffix = "ForSequenceClassification"

// registrySeqCls are the sequence-classification classes vLLM's registry
// lists itself (vllm/model_executor/models/registry.py
// _SEQUENCE_CLASSIFICATION_MODELS at d18bb7b, text-only part): each is its
// own class, reached without the suffix table's conversion, so a
// decoder's <X>ForSequenceClassification that is one of them is not
// converted from <X>ForCausalLM. Those membudget sizes are registered with
// registerPoolingDecoder; the rest are refused (seqClsRefusals) or are
// encoders.
var registrySeqCls = []string{
	"BertForSequenceClassification",
	"GPT2ForSequenceClassification",
	"GteNewForSequenceClassification",
	"JambaForSequenceClassification",
	"LlamaBidirectionalForSequenceClassification",
	"ModernBertForSequenceClassification",
	"RobertaForSequenceClassification",
	"XLMRobertaForSequenceClassification",
}

func init() {
	// gpt2.py:315-345 at d18bb7b: GPT2Model (no LM head) and
	// score = nn.Linear(n_embd, num_labels, bias=False, dtype=head_dtype),
	// a whole copy on every rank; no default_pooling_type decorator, so
	// LAST and ALL (interfaces_base.py:250-260 get_default_*_pooling_type).
	// Labels are the config's (set in readSeqCls).
	registerPoolingDecoder("gpt2", "GPT2ForSequenceClassification", PoolerHead{Kind: PoolerSeqClsScore, SeqPooling: "LAST", TokPooling: "ALL"})
}

// seqClsRefusals are registry sequence-classification classes of a family
// membudget reads whose head it does not size, with why.
var seqClsRefusals = map[string]string{
	// jamba.py:505-528 at d18bb7b: a subclass of JambaForCausalLM, so its
	// LM head is built beside the score head (optionally biased by the
	// config's score_bias), which the pooling head's sizing (the LM head
	// dropped) does not model.
	"JambaForSequenceClassification": "jamba.py JambaForSequenceClassification subclasses JambaForCausalLM: it keeps the LM head beside its score head, which is not modelled",
}

// convertedSeqCls returns the pooling head of an architecture vLLM reaches
// through its suffix table: <X>ForSequenceClassification, not in its
// registry, whose <X>ForCausalLM model_type modelType's family reads.
// vLLM's registry then resolves it to <X>ForCausalLM
// (registry.py _normalize_arch: the suffix replaced by the first of the
// table's that names a registered class, ForCausalLM first) and wraps that
// with as_seq_cls_model (model_loader/utils.py:226), whose layers are the
// causal LM's without its ParallelLMHead and LogitsProcessor
// (adapters.py:129-153 _create_pooling_model_cls) and whose score is
// ReplicatedLinear(hidden, num_labels, bias=False, head_dtype)
// (adapters.py:307-370); its pooling types are VllmModelForPooling's
// defaults, LAST and ALL.
func convertedSeqCls(arch, modelType string) (PoolerHead, bool) {
	base, ok := strings.CutSuffix(arch, seqClsSuffix)
	if !ok || base == "" || slices.Contains(registrySeqCls, arch) {
		return PoolerHead{}, false
	}
	if !slices.Contains(architectures[base+"ForCausalLM"], modelType) {
		return PoolerHead{}, false
	}
	return PoolerHead{Kind: PoolerSeqClsScore, SeqPooling: "LAST", TokPooling: "ALL", Convert: "classify"}, true
}

// readSeqCls completes a sequence-classification head from the config:
// num_labels as vLLM reads it (adapters.py _resolve_num_labels: the text
// config's, which for these text-only configs is the config itself), and
// refuses the online conversion from LM-head tokens (classifier_from_token
// or method: adapters.py seq_cls_model_loader builds the score from the LM
// head's rows, and SequenceClassificationConfig rewrites num_labels),
// which is not modelled.
func readSeqCls(o jsonObject, h *PoolerHead) {
	for _, k := range []string{"classifier_from_token", "method"} {
		if o.has(k) {
			o.fail(k, "a score head converted online from the LM head's token rows (vllm/model_executor/models/adapters.py seq_cls_model_loader) is not modelled")
			return
		}
	}
	h.Labels = numLabels(o)
}
