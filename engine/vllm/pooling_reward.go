package vllm

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"membudget/engine"
	"membudget/model"
)

// The token pooling types of vLLM's PoolerConfig (vllm/config/pooler.py
// TokenPoolingType at d18bb7b), beside the sequence ones
// (chunkingPoolingTypes and wholePoolingTypes).
var (
	tokPoolingTypes = []string{"ALL", "STEP"}
	seqPoolingTypes = []string{"CLS", "LAST", "MEAN"}
)

// poolingDecoderGenerateErr is vLLM's refusal of --runner generate for a
// decoder-based pooling model: its registry class is a pooling model and
// not a generating one (vllm/config/model.py:653-661).
func poolingDecoderGenerateErr(r *Resolved, a *model.Arch) error {
	return settingErr("runner", r.Runner, "vLLM refuses it: %s is a pooling model (its %s replaces the LM head), and \"Embedding models do not support `--runner generate`\"; use --runner pooling or auto", configArch(a), a.Pooler.Kind)
}

// resolvePoolingDecoder is the pooling runner's serve of a decoder-based
// pooling model at main d18bb7b (the reward models: qwen2_rm.py,
// internlm2.py InternLM2ForRewardModel): its layers and KV cache as its
// family's causal LM (a decoder's attention, vllm/config/model.py
// attn_type), no LM head and no sampler, PIECEWISE CUDA graphs only,
// async scheduling off by default. Its pooling types, the class's
// defaults unless --pooler-config gives them, decide whether vLLM keeps
// chunked prefill and prefix caching: not under MEAN or CLS sequence
// pooling nor STEP token pooling (config/model.py
// is_chunked_prefill_supported, :2010-2022), so a process reward model
// (STEP) batches whole sequences.
func (r *Resolved) resolvePoolingDecoder(a *model.Arch) error {
	h := a.Pooler
	if r.Quantization != "" {
		return settingErr("quantization", r.Quantization, "a quantized %s is not modelled: vLLM quantizes its %s with the model (qwen2_rm.py:50-66 passes quant_config to it)", configArch(a), h.Kind)
	}
	seq, tok, err := r.poolerTypesOf(a)
	if err != nil {
		return settingErr("pooler-config", r.PoolerConfig, "%v", err)
	}
	seq, tok = cmp.Or(seq, h.SeqPooling), cmp.Or(tok, h.TokPooling)
	if slices.Contains(wholePoolingTypes, seq) || tok == "STEP" {
		why := fmt.Sprintf("%s with %s/%s pooling", configArch(a), seq, tok)
		if r.ChunkedPrefill == engine.On {
			return settingErr("enable-chunked-prefill", "", "%s runs without chunked prefill in vLLM, which warns, when it is forced on, that it \"may cause the engine to crash or produce incorrect outputs\" (engine/arg_utils.py:2674-2683)", why)
		}
		if err := r.wholeSequenceBatch(a, why); err != nil {
			return err
		}
	}
	r.decoderPoolingDefaults(a)
	return nil
}

// poolerTypesOf is poolerTypes of r's --pooler-config with the types
// a's sentence-transformers config gives filling those the flag leaves
// unset (vllm/config/model.py:718-725).
func (r *Resolved) poolerTypesOf(a *model.Arch) (seq, tok string, err error) {
	seq, tok, err = poolerTypes(r.PoolerConfig)
	stSeq, stTok := stPooling(a)
	return cmp.Or(seq, stSeq), cmp.Or(tok, stTok), err
}

// poolerTypes reads --pooler-config's sequence and token pooling types as
// PoolerConfig.__post_init__ resolves them (vllm/config/pooler.py:
// 131-160): pooling_type fills whichever of the two its value is; "" for
// one not given. A converted decoder reads the flag by poolingType
// instead, which differs on pooling_type ALL and STEP (see there why they
// are not joined).
func poolerTypes(config string) (seq, tok string, err error) {
	if strings.TrimSpace(config) == "" {
		return "", "", nil
	}
	var c struct {
		Seq     *string `json:"seq_pooling_type"`
		Tok     *string `json:"tok_pooling_type"`
		Pooling *string `json:"pooling_type"`
	}
	if err := json.Unmarshal([]byte(config), &c); err != nil {
		return "", "", fmt.Errorf("want a JSON object, as vLLM reads it: %v", err)
	}
	up := func(p *string) string {
		if p == nil {
			return ""
		}
		return strings.ToUpper(*p)
	}
	seq, tok = up(c.Seq), up(c.Tok)
	if p := up(c.Pooling); p != "" {
		switch {
		case seq != "":
			return "", "", errors.New("vLLM refuses it: \"Cannot set both `pooling_type` and `seq_pooling_type`\"")
		case tok != "":
			return "", "", errors.New("vLLM refuses it: \"Cannot set both `pooling_type` and `tok_pooling_type`\"")
		case slices.Contains(tokPoolingTypes, p):
			tok = p
		default:
			seq = p
		}
	}
	if seq != "" && !slices.Contains(seqPoolingTypes, seq) {
		return "", "", fmt.Errorf("sequence pooling type %q is not one of vLLM's (CLS, LAST, MEAN)", seq)
	}
	if tok != "" && !slices.Contains(tokPoolingTypes, tok) {
		return "", "", fmt.Errorf("token pooling type %q is not one of vLLM's (ALL, STEP)", tok)
	}
	return seq, tok, nil
}

// poolingEncoderWhy is why a multimodal model's encoder cache is not
// sized under the pooling runner without chunked prefill.
const poolingEncoderWhy = "not sized under the pooling runner without chunked prefill (MEAN or CLS pooling, or no --pooler-config to say which): vLLM's profile then caps the dummy items by max_num_batched_tokens / the tokens of an item (vllm/multimodal/encoder_budget.py:174-178), which membudget does not model"

// poolingChunks says a converted model under the pooling runner keeps
// chunked prefill: --pooler-config (or the checkpoint's
// sentence-transformers config) gives a sequence pooling type of LAST
// (or a token type of ALL) and neither MEAN, CLS nor STEP (config/
// model.py is_chunked_prefill_supported). Its profile run is then the
// generating runner's but for the sampler: the multimodal encoder and its
// cache as for generation (gpu_model_runner.py profile_run runs them for
// any model that takes multimodal inputs, :6543-6599), the pooler's dummy
// run in place of the sampler's.
func (r *Resolved) poolingChunks(a *model.Arch) bool {
	if r.ChunkedOff {
		// --no-enable-chunked-prefill, which vLLM keeps for a pooling
		// model (engine/arg_utils.py:2657-2683 warns only of one turned on).
		return false
	}
	seq, tok, err := r.poolerTypesOf(a)
	if err != nil || tok == "STEP" || slices.Contains(wholePoolingTypes, seq) {
		return false
	}
	return seq == "LAST" || tok == "ALL"
}

// tokenOutputs is the float32 outputs a token-wise encoder head holds per
// token: a token classifier's logits, or a ColBERT model's projection and
// its normalized copy (pooler/tokwise/heads.py TokenEmbeddingPoolerHead:
// the projector's output, then PoolerNormalize's), counted for every token
// of the batch at once.
func tokenOutputs(e *model.EncoderShape) uint64 {
	if e.Head == model.HeadColBERT {
		return 2 * e.ColBERTDim
	}
	return e.Labels
}
