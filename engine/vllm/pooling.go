package vllm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// The runners of --runner (vllm/config/model.py RunnerOption at d18bb7b):
// auto picks pooling for an architecture of the pooling registry and
// generate otherwise (ModelConfig._get_default_runner_type).
const (
	runnerGenerate = "generate"
	runnerPooling  = "pooling"
)

// resolveRunner applies --runner and --convert, and the defaults and
// refusals vLLM's pooling runner has at main d18bb7b for an encoder-only
// model (an [model.EncoderShape], whose layers keep no KV cache:
// resolveEncoderOnly) and for a causal LM it converts to an embedding model
// (resolveConvertedDecoder). It runs once the lengths are resolved: the
// pooling runner's batch may follow from max_model_len.
func (r *Resolved) resolveRunner(a *model.Arch, def func(string, string)) error {
	if a.EncoderDecoder() {
		return r.resolveEncoderDecoder(a, def)
	}
	encoder := a.Encoder != nil
	// A reward model is a pooling model of vLLM's registry as an encoder
	// is: the pooling runner by default, generation refused.
	poolingArch := encoder || a.Pooler != nil
	if r.Runner != "" && r.Runner != "auto" && r.Profile.Release.Less(Version{0, 10, 0}) {
		// --runner came with PR #21470 (2025-07-27; flagtable.go).
		return settingErr("runner", r.Runner, "not a flag of %s (vLLM added --runner in 0.10.0)", r.Profile.Describes)
	}
	switch r.Runner {
	case "", "auto":
		// Left as given for generation: the resolved serve is resolved
		// again (NewReference), under releases without --runner too.
		// _get_default_runner_type is asked under --convert auto or none.
		byDefault := r.Convert == "" || r.Convert == "auto" || r.Convert == "none"
		switch {
		case poolingArch:
			r.Runner = runnerPooling
			def("runner", poolingArchWhy(a))
		case a.SentenceTransformers != nil && byDefault:
			// vllm/config/model.py:1115-1117 (_get_default_runner_type):
			// "Some Sentence Transformers models use *ForCausalLM
			// archs", asked before the registry.
			r.Runner = runnerPooling
			def("runner", "auto: "+a.SentenceTransformers.File+" lists a sentence-transformers Pooling module, so vLLM picks the pooling runner (vllm/config/model.py _get_default_runner_type)")
		case embeddingBaseModel(a) && byDefault:
			r.Runner = runnerPooling
			def("runner", embeddingBaseWhy(a))
		case r.Convert == "embed":
			// _get_runner_type: a --convert other than auto or none
			// selects the pooling runner.
			r.Runner = runnerPooling
			def("runner", "auto: --convert embed selects the pooling runner (vllm/config/model.py _get_runner_type)")
		}
	case runnerGenerate:
		if convertedSeqCls(a) {
			return seqClsGenerateErr(r, a)
		}
		if err := embeddingBaseGenerateErr(r, a); err != nil {
			return err
		}
		if a.Pooler != nil {
			return poolingDecoderGenerateErr(r, a)
		}
		if encoder {
			// vllm/config/model.py:655-661.
			return settingErr("runner", r.Runner, "vLLM refuses it: %s is an encoder-only pooling model (\"This model does not support `--runner generate`\"); use --runner pooling or auto", configArch(a))
		}
	case runnerPooling:
	case "draft":
		return settingErr("runner", r.Runner, "the draft runner serves a speculative-decoding draft, which membudget does not size on its own")
	default:
		return settingErr("runner", r.Runner, "want auto, generate, pooling or draft (vLLM's RunnerOption)")
	}
	if err := r.resolveSeqClsConvert(a, def); err != nil {
		return err
	}
	switch r.Convert {
	case "", "auto", "none":
	case "classify":
		if !convertedSeqCls(a) || r.Runner != runnerPooling {
			return settingErr("convert", r.Convert, "a converted classify model (vllm/model_executor/models/adapters.py as_seq_cls_model) is sized only for a <X>ForSequenceClassification configuration vLLM converts itself, under the pooling runner")
		}
	case "embed":
		// A pooling model is left as it is (as_embedding_model returns
		// its class unchanged): nothing to convert.
		if r.Runner != runnerPooling {
			return settingErr("convert", r.Convert, "--convert embed adapts a model for the pooling runner, not --runner %s", r.Runner)
		}
	default:
		return settingErr("convert", r.Convert, "a converted %s model (vllm/model_executor/models/adapters.py: a score head of its own) is not sized; --convert embed is", r.Convert)
	}
	if r.Runner != runnerPooling {
		return nil
	}
	if r.Profile.Name != CurrentName {
		return settingErr("runner", r.Runner, "the pooling runner's rules are read at %s only: size it with --vllm-version main (%s has its own, not read)", mainDescribes, r.Profile.Describes)
	}
	if encoder {
		return r.resolveEncoderOnly(a, def)
	}
	if a.Pooler != nil {
		return r.resolvePoolingDecoder(a)
	}
	if r.Convert == "none" {
		// config/model.py:667-675.
		return settingErr("convert", r.Convert, "vLLM refuses it: %s is not a pooling model, and --runner pooling needs --convert embed (or auto) to adapt it", configArch(a))
	}
	return r.resolveConvertedDecoder(a, def)
}

// The sequence pooling types of vLLM's PoolerConfig (vllm/config/pooler.py
// at d18bb7b) under which a causal model keeps chunked prefill and prefix
// caching, and those under which it does not (config/model.py
// is_chunked_prefill_supported: "Pooling models with causal attn and
// MEAN/CLS pooling do not support chunked prefill").
var (
	chunkingPoolingTypes = []string{"LAST", "ALL"}
	wholePoolingTypes    = []string{"MEAN", "CLS"}
)

// resolveConvertedDecoder is a causal LM served by the pooling runner
// through as_embedding_model (--convert embed; vllm/model_executor/models/
// adapters.py): its layers and KV cache as for generation, no LM head
// (Sharding.NoHead), no sampler, PIECEWISE CUDA graphs only, async
// scheduling off by default. Its pooling type decides whether vLLM runs
// chunked prefill: --pooler-config gives it, else the checkpoint's
// sentence-transformers config (1_Pooling/config.json, see
// [model.SentenceTransformers]); without either it is refused unless
// --max-num-batched-tokens holds a whole sequence, under which the
// footprint is the same either way.
func (r *Resolved) resolveConvertedDecoder(a *model.Arch, def func(string, string)) error {
	if r.Convert == "" || r.Convert == "auto" {
		r.Convert = "embed"
		def("convert", "auto: "+configArch(a)+" is not a pooling model, so the pooling runner converts it to an embedding model (vllm/config/model.py _get_default_convert_type)")
	}
	pooling, err := poolingType(r.PoolerConfig)
	if err != nil {
		return settingErr("pooler-config", r.PoolerConfig, "%v", err)
	}
	if st, _ := stPooling(a); pooling == "" && st != "" {
		pooling = st
		def("pooler-config", "seq_pooling_type "+st+" from "+a.SentenceTransformers.PoolingConfig+" (vllm/config/model.py:718-725: the sentence-transformers config fills what --pooler-config leaves unset)")
	}
	_, batchDefaulted := r.Sources.Get("max-num-batched-tokens")
	switch {
	case slices.Contains(wholePoolingTypes, pooling):
		if err := r.wholeSequenceBatch(a, "a causal model with "+pooling+" pooling"); err != nil {
			return err
		}
	case r.ChunkedOff:
		// --no-enable-chunked-prefill: whatever the pooling type, a batch
		// holds whole sequences, raised as resolveV1Batch raised it.
	case slices.Contains(chunkingPoolingTypes, pooling):
	case pooling == "" && !batchDefaulted && r.MaxNumBatchedTokens >= r.MaxModelLen:
		// Chunked prefill or not, a batch of this size holds what it holds.
	case pooling == "":
		return settingErr("pooler-config", "", "the pooling type of a converted %s is its checkpoint's sentence-transformers config (modules.json, 1_Pooling/config.json), and %s; it decides whether vLLM runs chunked prefill, and with it the batch: give --pooler-config '{\"seq_pooling_type\": \"LAST\"}' (or MEAN, CLS) as the checkpoint has it, or --max-num-batched-tokens of at least max_model_len %d", configArch(a), stPoolingMissing(a), r.MaxModelLen)
	default:
		return settingErr("pooler-config", r.PoolerConfig, "seq_pooling_type %q is not one membudget sizes (want %v or %v)", pooling, chunkingPoolingTypes, wholePoolingTypes)
	}
	r.decoderPoolingDefaults(a)
	return nil
}

// stPooling is the sequence and token pooling types a's
// sentence-transformers config gives ("" for none), which vLLM sets where
// --pooler-config leaves them unset (vllm/config/model.py:718-725).
func stPooling(a *model.Arch) (seq, tok string) {
	if st := a.SentenceTransformers; st != nil {
		return st.SeqPoolingType, st.TokPoolingType
	}
	return "", ""
}

// stPoolingMissing says why a's sentence-transformers config gives no
// sequence pooling type.
func stPoolingMissing(a *model.Arch) string {
	if st := a.SentenceTransformers; st != nil {
		return st.PoolingConfig + " turns on none of CLS, LAST or MEAN"
	}
	return "membudget found none beside config.json (a shipped config.json has none)"
}

// poolingType reads the sequence pooling type of --pooler-config (its
// seq_pooling_type, or pooling_type, which PoolerConfig.__post_init__
// copies to it); "" when it gives none.
//
// It is not poolerTypes (pooling_reward.go), though both read the flag,
// because the two answer differently and joining them would change what
// a converted decoder is sized as: poolingType takes any pooling_type as
// the sequence type, ALL included (chunkingPoolingTypes lists it), takes
// pooling_type beside tok_pooling_type, and leaves an unknown type to
// resolveConvertedDecoder's refusal; poolerTypes resolves pooling_type as
// PoolerConfig.__post_init__ does (vllm/config/pooler.py:131-160 at
// d18bb7b: ALL and STEP to tok_pooling_type, either beside pooling_type
// refused, an unknown one refused). Under poolerTypes
// '{"pooling_type": "ALL"}' would leave a converted decoder's sequence
// type unset, and so refused unless the batch holds a whole sequence,
// where it is sized with chunked prefill today: whether vLLM's default
// sequence pooling for as_embedding_model keeps chunked prefill there was
// not read, so the two stay apart until it is.
func poolingType(config string) (string, error) {
	if strings.TrimSpace(config) == "" {
		return "", nil
	}
	var c struct {
		Seq     *string `json:"seq_pooling_type"`
		Pooling *string `json:"pooling_type"`
	}
	if err := json.Unmarshal([]byte(config), &c); err != nil {
		return "", fmt.Errorf("want a JSON object, as vLLM reads it: %v", err)
	}
	switch {
	case c.Seq != nil && c.Pooling != nil:
		// vllm/config/pooler.py:135-143.
		return "", errors.New("vLLM refuses it: \"Cannot set both `pooling_type` and `seq_pooling_type`\"")
	case c.Seq != nil:
		return strings.ToUpper(*c.Seq), nil
	case c.Pooling != nil:
		return strings.ToUpper(*c.Pooling), nil
	}
	return "", nil
}

// decoderPoolingDefaults applies what the pooling runner does to a causal
// decoder whatever its head: async scheduling off by default and no LM
// head on any stage (Sharding.NoHead).
func (r *Resolved) decoderPoolingDefaults(a *model.Arch) {
	r.asyncOffByDefault(a)
	for i := range r.Stages {
		r.Stages[i].NoHead = true
	}
}

// asyncOffByDefault applies the pooling runner's async default: off unless
// --async-scheduling is given (vllm/config/vllm.py:1184-1195).
func (r *Resolved) asyncOffByDefault(a *model.Arch) {
	if r.AsyncScheduling == engine.Default {
		r.Async = false
		r.Sources = r.Sources.without("async-scheduling")
	}
	// As resolveLengths counts the batches in flight.
	pp := r.PipelineParallelSize
	r.MaxConcurrentBatches = pp
	if r.Async {
		switch {
		case r.onV2Runner(a):
			r.MaxConcurrentBatches = pp + 1
		case pp <= 1:
			r.MaxConcurrentBatches = 2
		}
	}
	r.InFlightTokens = r.MaxNumBatchedTokens
	if r.Profile.InFlightWindow {
		r.InFlightTokens = r.MaxConcurrentBatches * r.MaxNumBatchedTokens
	}
}

// wholeSequenceBatch applies a serve without chunked prefill: a default
// max_num_batched_tokens is raised to max_model_len (engine/arg_utils.py
// _set_default_max_num_seqs_and_batched_tokens_args) and a given one below
// it is vLLM's error (config/scheduler.py verify_max_model_len). why names
// the model, for messages.
func (r *Resolved) wholeSequenceBatch(a *model.Arch, why string) error {
	r.ChunkedOff = true
	if _, defaulted := r.Sources.Get("max-num-batched-tokens"); defaulted {
		r.MaxNumBatchedTokens = max(r.MaxNumBatchedTokens, r.MaxModelLen)
		r.Sources.Set("max-num-batched-tokens", "max(max_model_len, vLLM's default for the device): "+why+" runs without chunked prefill, so a batch holds whole sequences (engine/arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args)")
	} else if r.MaxNumBatchedTokens < r.MaxModelLen {
		return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "vLLM refuses it: smaller than max_model_len %d without chunked prefill, which %s runs without (config/scheduler.py verify_max_model_len)", r.MaxModelLen, why)
	}
	if r.MaxNumBatchedTokens > maxBatchedTokens {
		return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "beyond any serve (at most %d)", maxBatchedTokens)
	}
	return nil
}

// configArch names the config's architecture, for messages: its first
// architecture, else its model_type.
func configArch(a *model.Arch) string {
	if len(a.Architectures) > 0 {
		return a.Architectures[0]
	}
	return "model_type " + a.ModelType
}

// resolveEncoderOnly is the pooling runner's serve of an encoder-only
// model at main d18bb7b: no chunked prefill and no prefix caching
// (vllm/config/model.py is_chunked_prefill_supported and
// is_prefix_caching_supported: "Pooling models with bidirectional attn do
// not support" them), so a default max_num_batched_tokens is raised to
// max_model_len (engine/arg_utils.py
// _set_default_max_num_seqs_and_batched_tokens_args) and one below it is
// refused (config/scheduler.py verify_max_model_len); no async scheduling
// by default (config/vllm.py:1184-1195); max_model_len no longer than the
// learned position table.
func (r *Resolved) resolveEncoderOnly(a *model.Arch, def func(string, string)) error {
	if r.PipelineParallelSize > 1 {
		// BertModel and its kin are not SupportsPP: ModelConfig refuses
		// pipeline parallelism for them (config/model.py verify_with_parallel_config).
		return settingErr("pipeline-parallel-size", r.PipelineParallelSize, "vLLM refuses it: %s does not support pipeline parallelism", configArch(a))
	}
	if why := a.Encoder.SingleRank; why != "" && r.TensorParallelSize > 1 {
		return settingErr("tensor-parallel-size", r.TensorParallelSize, "%s: serve %s on one GPU (data parallelism for more)", why, configArch(a))
	}
	if r.Quantization != "" {
		return settingErr("quantization", r.Quantization, "quantizing an encoder-only model as vLLM loads it is not modelled")
	}
	if r.KVCacheMemoryBytes > 0 {
		return settingErr("kv-cache-memory-bytes", r.KVCacheMemoryBytes, "an encoder-only model keeps no KV cache: vLLM's EncoderOnlyAttention has no KV cache spec, so nothing is sized by it")
	}
	if r.EnablePrefixCaching == engine.On {
		return settingErr("enable-prefix-caching", "", "%s is an encoder-only pooling model, for which vLLM turns prefix caching off and warns, when it is forced on, that it \"may cause the engine to crash or produce incorrect outputs\" (engine/arg_utils.py _set_default_chunked_prefill_and_prefix_caching_args)", configArch(a))
	}
	if r.ChunkedPrefill == engine.On {
		return settingErr("enable-chunked-prefill", "", "%s is an encoder-only pooling model, for which vLLM turns chunked prefill off and warns, when it is forced on, that it \"may cause the engine to crash or produce incorrect outputs\" (engine/arg_utils.py _set_default_chunked_prefill_and_prefix_caching_args)", configArch(a))
	}
	limit := a.PositionLimit()
	_, lenDefaulted := r.Sources.Get("max-model-len")
	switch {
	case lenDefaulted && r.MaxModelLen > limit:
		r.MaxModelLen = limit
		def("max-model-len", positionLimitWhy(a))
	case lenDefaulted:
		why, _ := r.Sources.Get("max-model-len")
		def("max-model-len", why+"; vLLM also caps it by tokenizer_config.json's model_max_length and sentence_bert_config.json's max_seq_length, which membudget does not read: pass --max-model-len where they are shorter")
	case r.MaxModelLen > limit && servedRotary(a):
		// Nomic BERT's cos/sin cache holds max_model_len rows
		// (vllm/model_executor/models/config.py:728-731): past the derived
		// length, which resolveLengths refuses without
		// --allow-long-max-model-len, nothing indexes beyond it.
	case r.MaxModelLen > limit:
		if a.Encoder.RotaryPositions() {
			// config/model.py _get_and_verify_max_len: longer than the
			// derived length is refused (unless VLLM_ALLOW_LONG_MAX_MODEL_LEN).
			return settingErr("max-model-len", r.MaxModelLen, "above the %d tokens vLLM derives from the config (%s); past them positions index beyond the rotary cos/sin caches of that many rows, even where VLLM_ALLOW_LONG_MAX_MODEL_LEN lets vLLM start", limit, positionLimitWhy(a))
		}
		return settingErr("max-model-len", r.MaxModelLen, "above the %d tokens the learned position table holds (%s): longer positions index past it", limit, positionLimitWhy(a))
	}
	if err := r.wholeSequenceBatch(a, "an encoder-only pooling model"); err != nil {
		return err
	}
	r.asyncOffByDefault(a)
	if servedRotary(a) {
		for i := range r.Stages {
			r.Stages[i].RotaryRows = r.MaxModelLen
		}
	}
	return nil
}

// servedRotary says a rotary table of the model holds the served
// max_model_len's rows ([model.RotaryTable].Served: Nomic BERT's).
func servedRotary(a *model.Arch) bool {
	for _, t := range a.Rotary {
		if t.Served {
			return true
		}
	}
	return false
}

// positionLimitWhy says where an encoder's longest length comes from.
func positionLimitWhy(a *model.Arch) string {
	why := "the learned position table: max_position_embeddings " + strconv.FormatUint(a.MaxPosition, 10)
	if a.Encoder.RotaryPositions() {
		// Rotary positions: no table to index past, but vLLM derives
		// max_model_len from max_position_embeddings (config/model.py
		// _get_and_verify_max_len), the rows of the cos/sin caches.
		why = "max_position_embeddings " + strconv.FormatUint(a.MaxPosition, 10) + ", which vLLM derives max_model_len from (rotary positions)"
	}
	if off := a.Encoder.PositionOffset; off > 0 {
		why += fmt.Sprintf(" less the %d positions before RoBERTa's first (pad_token_id + 1, roberta.py RobertaEmbedding)", off)
	}
	return why + "; vLLM also caps it by tokenizer_config.json's model_max_length and sentence_bert_config.json's max_seq_length, which membudget does not read: pass --max-model-len where they are shorter"
}

// without returns the sources without flag's.
func (s Sources) without(flag string) Sources {
	out := s[:0:0]
	for _, src := range s {
		if src.Flag != flag {
			out = append(out, src)
		}
	}
	return out
}

// encoderBytesPerToken is an encoder layer's live activations per token at
// its widest, in the manner of [forwardBytesPerToken]: the layer's input
// and the attention output it adds back (bert.py BertOutput's residual),
// the wider of the attention's q, k, v and output and the MLP's
// intermediate.dense output and its activation (2 x intermediate: BERT's
// MLP has no gate), and the output dense's result and the residual sum
// beside them: (4 x hidden + max(4 x heads x head_dim, 2 x
// intermediate) / tp) x dtype.
func encoderBytesPerToken(a *model.Arch, tp, dtypeBytes uint64) uint64 {
	tp = max(tp, 1)
	attn := 4 * budget.CeilDiv(a.Heads, tp) * a.HeadDim
	mlp := 2 * budget.CeilDiv(a.Intermediate, tp)
	switch e := a.Encoder; {
	case e != nil && e.GatedMLP && e.Layout == model.LayoutBertWithRope:
		// bert_with_rope.py BertWithRopeGatedMLP: the divided
		// gate_up_proj's 2 x intermediate / tp output and act_and_mul's
		// intermediate / tp result beside it.
		inter := budget.CeilDiv(a.Intermediate, tp)
		mlp = budget.SatAdd(budget.SatMul(2, inter), inter)
	case e != nil && e.GatedMLP:
		// ModernBERT's GeGLU: Wi's whole 2 x intermediate output (a plain
		// nn.Linear) and act(input) * gate beside it, one fused result
		// under torch.compile (modernbert.py ModernBertMLP).
		mlp = budget.SatAdd(budget.SatMul(2, a.Intermediate), budget.CeilDiv(a.Intermediate, tp))
	}
	return budget.SatMul(4*a.Hidden+max(attn, mlp), dtypeBytes)
}

// encoderPeakItems are an encoder-only pooling serve's terms beside its
// weights. vLLM neither profiles such a serve nor sizes a KV cache for it
// (vllm/v1/engine/core.py _initialize_kv_caches: "Attention free models
// don't need memory for kv cache"): what it holds is what its largest
// batch takes, max_num_batched_tokens of whole sequences through the
// forward pass, plus the CUDA graphs it captures (PIECEWISE only: "Pooling
// models do not support full cudagraphs", config/vllm.py:1477-1488) and
// the non-torch growth. No sampler runs: the pooler's dummy run holds a
// row per sequence. The per-token, graph and non-torch figures are the
// decoders' calibration (peaks.go); no pooling serve's log is among the
// observed rows.
func encoderPeakItems(a *model.Arch, r *Resolved, st model.Sharding) []budget.Item {
	m := r.Profile.peaks
	tp, d := r.TensorParallelSize, r.DtypeBytes
	per := encoderBytesPerToken(a, tp, d)
	if e := a.Encoder; e.Head.TokenWise() {
		// After the encoder a token classifier holds every token's hidden
		// state, its float32 copy (hidden_states.to(head_dtype)) and its
		// float32 logits (bert.py BertForTokenClassification.forward); a
		// ColBERT model its float32 projection and that normalized
		// (tokenOutputs).
		per = max(per, budget.SatAdd(budget.SatMul(a.Hidden, d+4), budget.SatMul(tokenOutputs(e), 4)))
	}
	items := []budget.Item{{Name: "activation_peak", Term: budget.TermActivation,
		Bytes: budget.SatAdd(budget.SatMul(r.MaxNumBatchedTokens, per), m.residualBytes)}}
	if !r.Graphs.None() {
		// resolveGraphs captures PIECEWISE alone under the pooling runner.
		items = append(items, budget.Item{Name: "cuda_graph_pool", Term: budget.TermGraphPool, Bytes: graphBytes(r, st, per)})
	}
	nonTorch := m.nonTorchBytes
	if tp > 1 {
		nonTorch = budget.SatAdd(nonTorch, m.tpBytes)
	}
	items = append(items, budget.Item{Name: "non_torch_growth", Term: budget.TermNonTorch, Bytes: nonTorch})
	return appendUnifiedHostItems(items, a, r)
}

// encoderOnly says the serve is an encoder-only model under the pooling
// runner: no KV cache, whole sequences a batch.
func (sz *Sizing) encoderOnly() bool {
	return sz.Model.Arch.Encoder != nil && sz.Serve.Runner == runnerPooling
}

var _ engine.BatchBounder = (*Sizing)(nil)

// SeqsAt returns, for an encoder-only pooling serve, the sequences of
// length tokens one forward batch holds: min(max_num_seqs,
// max_num_batched_tokens / length), whole sequences only since vLLM runs
// such a model without chunked prefill. ok is false for a serve whose
// sequences are bounded by its KV cache.
func (sz *Sizing) SeqsAt(length uint64) (engine.Bound, bool) {
	if !sz.encoderOnly() {
		return engine.Bound{}, false
	}
	r := sz.Serve
	n := r.MaxNumSeqs
	if length > 0 {
		n = min(n, r.MaxNumBatchedTokens/length)
	}
	if n == r.MaxNumSeqs {
		return sz.Seqs(), true
	}
	return engine.Bound{Value: n, Flag: "--max-num-batched-tokens", Name: fmt.Sprintf("max_num_batched_tokens %d / %d tokens", r.MaxNumBatchedTokens, length)}, true
}

// LenAt returns, for an encoder-only pooling serve, the longest sequence
// seqs of which one forward batch holds: min(max_model_len,
// max_num_batched_tokens / seqs). ok is false for a serve whose lengths
// are bounded by its KV cache.
func (sz *Sizing) LenAt(seqs uint64) (engine.Bound, bool) {
	if !sz.encoderOnly() {
		return engine.Bound{}, false
	}
	r := sz.Serve
	n := r.MaxModelLen
	if seqs > 0 {
		n = min(n, r.MaxNumBatchedTokens/seqs)
	}
	if n == r.MaxModelLen {
		return sz.Len(), true
	}
	return engine.Bound{Value: n, Flag: "--max-num-batched-tokens", Name: fmt.Sprintf("max_num_batched_tokens %d / %d sequences", r.MaxNumBatchedTokens, seqs)}, true
}

// poolingJSON is what a report says of an encoder-only pooling serve in
// place of a KV capacity: the report's "pooling".
type poolingJSON struct {
	Runner string `json:"runner"`
	// KVCache is false: vLLM sizes none.
	KVCache bool `json:"kv_cache"`
	// BatchTokens is max_num_batched_tokens: the whole sequences one
	// forward pass holds; LongestLength what the position table holds.
	BatchTokens   uint64 `json:"batch_tokens"`
	LongestLength uint64 `json:"position_limit"`
	Head          string `json:"head"`
}

// poolingFields are the report's fields of an encoder-only pooling serve.
func (sz *Sizing) poolingFields() []engine.Field {
	a := sz.Model.Arch
	return []engine.Field{{Key: "pooling", Value: poolingJSON{Runner: runnerPooling, BatchTokens: sz.Serve.MaxNumBatchedTokens,
		LongestLength: a.PositionLimit(), Head: a.Encoder.Head.String()}}}
}

// writePooling writes what a report says of an encoder-only pooling serve
// after its footprint, in place of the KV cache's figures.
func (sz *Sizing) writePooling(w io.Writer) {
	r, a := sz.Serve, sz.Model.Arch
	fmt.Fprintf(w, "\nKV cache: none: %s is an encoder-only model under vLLM's pooling runner (EncoderOnlyAttention has no KV cache spec); vLLM neither profiles it nor sizes a KV cache\n", configArch(a))
	fmt.Fprintf(w, "  a forward batch holds whole sequences of up to %d tokens in all (max_num_batched_tokens; no chunked prefill), at most %d of them (max_num_seqs); %s holds %d tokens\n",
		r.MaxNumBatchedTokens, r.MaxNumSeqs, positionsNoun(a), a.PositionLimit())
	fmt.Fprintf(w, "  pooling head: %s\n", a.Encoder.Head)
}

// poolingQueryLines are what a query prints of an encoder-only pooling
// serve: what bounds its answers.
func (sz *Sizing) poolingQueryLines() []string {
	r := sz.Serve
	return []string{fmt.Sprintf("an encoder-only pooling model keeps no KV cache: its memory does not grow with sequences or length; what bounds them is the batch (%d tokens of whole sequences, at most %d sequences) and %s (%d tokens)",
		r.MaxNumBatchedTokens, r.MaxNumSeqs, positionsNoun(sz.Model.Arch), sz.Model.Arch.PositionLimit())}
}

// positionsNoun names what bounds an encoder's length: BERT's learned
// position table, or ModernBERT's max_position_embeddings, which vLLM
// derives max_model_len from for its rotary positions.
func positionsNoun(a *model.Arch) string {
	if a.Encoder.RotaryPositions() {
		return "max_position_embeddings (rotary positions)"
	}
	return "the position table"
}

// runnerJSON is the serve's runner as the report's serve gives it: only
// the pooling runner is named, generation being every other serve's.
func (sz *Sizing) runnerJSON() string {
	if sz.Serve.Runner == runnerPooling {
		return runnerPooling
	}
	return ""
}
