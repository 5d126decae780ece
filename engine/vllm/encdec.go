package vllm

import (
	"fmt"
	"io"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file is the encoder-decoder serve (Whisper) as vLLM main d18bb7b
// runs it: the decoder's self-attention and cross-attention KV caches, the
// encoder budget and the encoder's pass in the profile run. The multimodal
// encoder cache of vision models (multimodal.go) shares the budget rules
// (vllm/v1/core/encoder_cache_manager.py compute_mm_encoder_budget,
// vllm/multimodal/encoder_budget.py _get_max_items); Whisper's are kept
// here.

// resolveEncoderDecoder applies vLLM's rules for an encoder-decoder model
// ([model.Arch.EncoderDecoder]): the generate runner only; no pipeline
// parallelism (WhisperForConditionalGeneration is not SupportsPP); chunked
// prefill and prefix caching off whatever the flags say, and chunked
// multimodal input off (vllm/config/scheduler.py:227-236), so a batch holds
// whole prompts (a default max_num_batched_tokens raised to max_model_len)
// and one encoder input, max_source_positions tokens, must fit
// max_num_batched_tokens (compute_mm_encoder_budget raises); async
// scheduling as for any generation serve. max_model_len is at most the
// decoder's learned position table (max_target_positions): past it the
// positions index beyond whisper.py's embed_positions.
func (r *Resolved) resolveEncoderDecoder(a *model.Arch, def func(string, string)) error {
	if r.Profile.Name != CurrentName {
		return settingErr("model", a.Source, "the encoder-decoder rules (cross-attention KV, encoder budget) are read at %s only: size %s with --vllm-version main", mainDescribes, configArch(a))
	}
	switch r.Runner {
	case "", "auto", runnerGenerate:
	default:
		return settingErr("runner", r.Runner, "%s is a transcription model: vLLM serves it with the generate runner only", configArch(a))
	}
	switch r.Convert {
	case "", "auto", "none":
	default:
		return settingErr("convert", r.Convert, "%s is an encoder-decoder model, which vLLM's pooling adapters do not convert", configArch(a))
	}
	if r.PipelineParallelSize > 1 {
		return settingErr("pipeline-parallel-size", r.PipelineParallelSize, "vLLM refuses it: %s does not support pipeline parallelism (not SupportsPP)", configArch(a))
	}
	if tp := r.TensorParallelSize; tp > 1 && a.Audio.Heads%tp != 0 {
		// whisper.py WhisperAttention asserts it for the encoder's
		// attention as for the decoder's (checked with the model's heads).
		return settingErr("tensor-parallel-size", tp, "vLLM asserts it: it does not divide the encoder's %d attention heads (whisper.py WhisperAttention)", a.Audio.Heads)
	}
	if r.Quantization != "" {
		return settingErr("quantization", r.Quantization, "quantizing an encoder-decoder model as vLLM loads it is not modelled")
	}
	if r.LoRA.Enable {
		// WhisperForConditionalGeneration is SupportsLoRA, with packed
		// qkv_proj and the cross-attention's kv_proj (whisper.py:825-828):
		// adapter slots on the encoder's and the cross-attention's modules
		// are not modelled.
		return settingErr("enable-lora", "", "LoRA on an encoder-decoder model (its encoder's and cross-attention's modules) is not modelled")
	}
	if r.MaxModelLen > a.MaxPosition {
		return settingErr("max-model-len", r.MaxModelLen, "above max_target_positions %d, the rows of the decoder's learned position table (whisper.py WhisperDecoder.embed_positions): longer positions index past it", a.MaxPosition)
	}
	if err := r.wholeSequenceBatch(a, "an encoder-decoder model"); err != nil {
		return err
	}
	if enc := a.Audio.SourcePositions; r.MaxNumBatchedTokens < enc {
		if _, defaulted := r.Sources.Get("max-num-batched-tokens"); defaulted {
			r.MaxNumBatchedTokens = enc
			r.Sources.Set("max-num-batched-tokens", fmt.Sprintf("max_source_positions %d: one encoder input must fit a batch", enc))
		} else {
			return settingErr("max-num-batched-tokens", r.MaxNumBatchedTokens, "vLLM refuses it: one encoder input is max_source_positions %d tokens, more than max_num_batched_tokens, and chunked multimodal input is off for an encoder-decoder model (\"Chunked MM input disabled but max_tokens_per_mm_item ... is larger than max_num_batched_tokens\", vllm/v1/core/encoder_cache_manager.py compute_mm_encoder_budget)", enc)
		}
	}
	r.EncoderTokens = a.Audio.SourcePositions
	return nil
}

// requestCrossPages is the blocks the scheduler gives a running request
// in a cross-attention group: one static allocation for its encoder tokens,
// cdiv(max_source_positions, block_size) (vllm/v1/core/
// kv_cache_coordinator.py:195-207, CrossAttentionManager with
// num_encoder_tokens; scheduler.py:1014-1023). The footprint of sequences,
// and with it max-seqs and max-len, counts these.
func requestCrossPages(r *Resolved, block uint64) uint64 {
	return budget.CeilDiv(r.EncoderTokens, max(block, 1))
}

// startupCrossPages is what vLLM's startup check and logged concurrency
// count a request beyond what it is given once running: crossPages
// rather than requestCrossPages in each cross-attention group.
func (k *kvCheck) startupCrossPages() uint64 {
	var n uint64
	for _, g := range k.groups.groups {
		if g.spec.kind == crossSpec {
			n = budget.SatAdd(n, budget.SatSub(crossPages(&k.r, g.spec.block), requestCrossPages(&k.r, g.spec.block)))
		}
	}
	return n
}

// crossPages is the blocks a request keeps in a cross-attention layer as
// vLLM's startup check and concurrency count them:
// CrossAttentionSpec.max_memory_usage_bytes takes
// cdiv(max_num_encoder_input_tokens, block_size) pages whatever the
// request's length (vllm/v1/kv_cache_interface.py:809-818), and
// max_num_encoder_input_tokens is max_num_batched_tokens
// (vllm/config/scheduler.py:238).
func crossPages(r *Resolved, block uint64) uint64 {
	return budget.CeilDiv(r.MaxNumBatchedTokens, max(block, 1))
}

// encoderItems is how many encoder inputs vLLM's profile run pushes
// through the encoder at once: the encoder budget's inputs, no more than
// the requests of one batch, at least one (vllm/multimodal/
// encoder_budget.py _get_max_items: min(budget / tokens per input,
// min(max_num_seqs, max_num_batched_tokens / tokens per input)) without
// chunked prefill).
func encoderItems(a *model.Arch, r *Resolved) uint64 {
	enc := max(a.Audio.SourcePositions, 1)
	return max(1, min(r.MaxNumBatchedTokens/enc, r.MaxNumSeqs))
}

// audioEncoderBytesPerToken is the audio encoder's live activations per
// output token at its widest, as encoderBytesPerToken counts an encoder
// layer's (the input and its residual, the attention's q, k, v and output
// or fc1's output and its activation, fc2's result and the sum), or the
// convolution stem's where that is more: two input frames of num_mel_bins,
// conv1's two frames of d_model and their GELU (whisper.py WhisperEncoder
// .forward: conv2 has stride 2).
func audioEncoderBytesPerToken(a *model.Arch, tp, dtypeBytes uint64) uint64 {
	tp = max(tp, 1)
	au := a.Audio
	headDim := a.Hidden / max(au.Heads, 1)
	layer := 4*a.Hidden + max(4*budget.CeilDiv(au.Heads, tp)*headDim, 2*budget.CeilDiv(au.FFN, tp))
	stem := 2*au.MelBins + 4*a.Hidden
	return budget.SatMul(max(layer, stem), dtypeBytes)
}

// encDecPeakItems are what an encoder-decoder serve's profile run adds to
// the decoder's: the encoder's pass over encoderItems inputs of
// max_source_positions tokens, when wider than the decoder's forward pass
// (they run one after the other), and its outputs, which the runner keeps
// in its encoder cache through the decoder's dummy run and sampler (main
// runs Whisper on the V2 model runner: vllm/v1/worker/gpu/model_runner.py
// profile_run:782-820 and mm/encoder_runner.py profile_encoder_cache,
// "tmp_i" outputs reset after; the V1 runner's profile_run does the same).
// The per-token figures are modelled, not measured: no encoder-decoder
// startup log is among the observed rows.
func encDecPeakItems(a *model.Arch, r *Resolved, st model.Sharding, forward uint64) []budget.Item {
	if !st.First {
		return nil
	}
	tokens := budget.SatMul(encoderItems(a, r), a.Audio.SourcePositions)
	pass := budget.SatMul(tokens, audioEncoderBytesPerToken(a, r.TensorParallelSize, r.DtypeBytes))
	outputs := budget.SatMul(budget.SatMul(tokens, a.Hidden), r.DtypeBytes)
	return []budget.Item{
		{Name: "encoder_pass", Term: budget.TermActivation, Bytes: budget.SatSub(pass, forward)},
		{Name: "encoder_outputs", Term: budget.TermActivation, Bytes: outputs},
	}
}

// writeEncoderDecoder writes what a report says of an encoder-decoder
// serve beside its KV capacity: the cross-attention's pages and the
// encoder budget.
func (sz *Sizing) writeEncoderDecoder(w io.Writer) {
	r, a := sz.Serve, sz.Model.Arch
	fmt.Fprintf(w, "  encoder-decoder: every decoder layer also keeps a cross-attention cache of the encoder's %d tokens a request (CrossAttentionSpec): a running request holds %d pages of it, which the sequences' footprint counts; vLLM's startup check and logged concurrency count %d (max_num_encoder_input_tokens %d = max_num_batched_tokens); %d inputs of %d tokens pass the encoder in its profile run\n",
		a.Audio.SourcePositions, requestCrossPages(r, r.BlockSize), crossPages(r, r.BlockSize), r.MaxNumBatchedTokens, encoderItems(a, r), a.Audio.SourcePositions)
}

// encDecFields are the report's fields of an encoder-decoder serve.
func (sz *Sizing) encDecFields() []engine.Field {
	r, a := sz.Serve, sz.Model.Arch
	return []engine.Field{{Key: "encoder_decoder", Value: encDecJSON{EncoderTokens: a.Audio.SourcePositions, RunningCrossPages: requestCrossPages(r, r.BlockSize),
		CrossPagesPerRequest: crossPages(r, r.BlockSize), EncoderInputTokens: r.MaxNumBatchedTokens, ProfileInputs: encoderItems(a, r)}}}
}

// encDecJSON is the report's "encoder_decoder".
type encDecJSON struct {
	// EncoderTokens is max_source_positions: the encoder tokens a request
	// cross-attends to.
	EncoderTokens uint64 `json:"encoder_tokens"`
	// RunningCrossPages is the pages a running request holds in each
	// cross-attention group.
	RunningCrossPages uint64 `json:"running_cross_pages"`
	// CrossPagesPerRequest is the pages vLLM counts a request in each
	// cross-attention layer at startup; EncoderInputTokens the
	// max_num_encoder_input_tokens they follow from.
	CrossPagesPerRequest uint64 `json:"cross_pages_per_request"`
	EncoderInputTokens   uint64 `json:"max_num_encoder_input_tokens"`
	// ProfileInputs is the encoder inputs of the profile run.
	ProfileInputs uint64 `json:"profile_inputs"`
}
