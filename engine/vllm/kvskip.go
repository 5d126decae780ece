package vllm

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/model"
)

// --kv-cache-dtype-skip-layers keeps some layers' KV cache in the model's
// dtype while the rest take --kv-cache-dtype (PR #33695, 2026-03-27, in
// 0.19.0). As vLLM main at d18bb7b reads it:
//   - the entries are strings, argparse's nargs "+" (CacheConfig.
//     kv_cache_dtype_skip_layers: list[str], vllm/config/cache.py:114-116;
//     vllm/engine/arg_utils.py:359-360, 1232);
//   - an attention layer keeps "auto" (the model's dtype) when
//     str(its index) is an entry, or when it has a sliding window and
//     "sliding_window" is one (vllm/model_executor/layers/attention/
//     attention.py:293-315); an entry that matches no layer is ignored
//     without a word, and nothing checks the list;
//   - MLA layers read it only from PR #47309 (2026-07-16,
//     mla_attention.py:439-450); before it they ignore it;
//   - from PR #42890 (2026-07-03) the platform raises the block size so
//     that the quantized page covers a skipped one and pads the sliding
//     layers' pages to it (vllm/platforms/interface.py:645-759,
//     attention.py:614-651); see [Resolved.resolveSkipLayers].
//
// PRs #42890 and #47309 are dated 0.25.0, as slidingOwnBlock (state.go)
// and the flag table date changes of July 2026.

// skipSince is the first release with the flag (PR #33695, 2026-03-27,
// the flag table's date).
var skipSince = Version{0, 19, 0}

// skipAlignSince is the first release whose platform aligns the block
// size to the skipped layers' page (PR #42890, 2026-07-03).
var skipAlignSince = slidingOwnBlock

// skipKeyword is the one entry that is not a layer index: every layer with
// a sliding window (attention.py:299-303).
const skipKeyword = "sliding_window"

// skipKernelBlocks is, per attention backend vLLM may give a sliding layer
// on CUDA and ROCm, the kernel block sizes _largest_kernel_block_within
// chooses among (attention.py:98-125): a MultipleOf(16) stands for its base
// alone (FlashAttention flash_attn.py:107-122, Triton triton_attn.py:
// 295-296); FlashInfer lists 16, 32, 64, and up to 1024 on SM100 where
// TRT-LLM's GQA kernels run (flashinfer.py:402-422); AITER FA 16, 32
// (rocm_aiter_fa.py:739-740). membudget does not pick among them, so a
// choice they disagree on is refused. FlashAttention's FA4 fp8 kernel on
// Hopper for a head size of 512 takes 64 alone (flash_attn.py:88-122):
// such a model is refused (skipFA4HeadSize).
var skipKernelBlocks = [][]uint64{{16}, {16, 32, 64}, {16, 32, 64, 128, 256, 512, 1024}, {16, 32}}

// skipFA4HeadSize is the head size for which FlashAttention on Hopper with
// an fp8 KV cache runs FA4's kernel of 64-token pages (flash_attn.py:
// 88-105), which moves the platform's alignment unit off 16.
const skipFA4HeadSize = 512

// skipSmallestKernel is the smallest kernel block of every backend above:
// the platform's alignment unit (interface.py:727-732).
const skipSmallestKernel = 16

// skipRefusal is a refusal of --kv-cache-dtype-skip-layers as given.
func (r *Resolved) skipRefusal(format string, args ...any) error {
	return settingErr("kv-cache-dtype-skip-layers", strconv.Quote(r.Serve.KVCacheDtypeSkipLayers), format, args...)
}

// resolveSkipLayers reads --kv-cache-dtype-skip-layers: the layers that
// keep the model's dtype (KVSkipLayers) and, from skipAlignSince, the
// block size vLLM raises and the page it pads sliding layers to. What
// membudget has not read in full is refused by name.
func (r *Resolved) resolveSkipLayers(a *model.Arch) error {
	entries := strings.Fields(r.Serve.KVCacheDtypeSkipLayers)
	if len(entries) == 0 {
		return nil
	}
	if r.Profile.Release.Less(skipSince) {
		// The command line says so first (flags.go); a library caller
		// hears it here.
		return r.skipRefusal("not a flag of %s: vLLM 0.19.0 added it (#33695)", r.Profile.Describes)
	}
	if a.MLA || a.DeepSeekV4 != nil {
		return r.skipRefusal("an MLA model's skipped layers are not modelled: vLLM's MLA layers ignore the flag before PR #47309 (2026-07-16) and from it keep the latent in the model's dtype on a page the MLA backend lays out (mla_attention.py:439-450), which membudget has not read with the platform's block alignment; it would add the skipped layers' latent at twice the bytes")
	}
	for i, l := range a.Layers {
		switch {
		case l.Kind == model.FullAttention || l.Kind == model.SlidingAttention || l.Kind == model.NoMixer:
		default:
			return r.skipRefusal("layer %d is %s: the flag is modelled on models of full and sliding-window attention only (a state or chunked layer's page is aligned to the skipped ones by rules membudget has not read: interface.py:645-759)", i, l.Kind)
		}
		if l.MambaBeside || l.CrossAttention {
			return r.skipRefusal("layer %d has a Mamba mixer or cross-attention beside its attention: not modelled with skipped layers", i)
		}
	}
	if r.Spec.Draft != nil || r.Spec.MTPLayers > 0 {
		return r.skipRefusal("a draft's layers are matched by their own index (extract_layer_index on their prefix, attention.py:305), which membudget has not read: not modelled with speculative decoding")
	}
	if _, fromCheckpoint := r.Sources.Get("kv-cache-dtype"); fromCheckpoint && r.KVCacheDtype != "auto" {
		return r.skipRefusal("the checkpoint sets the KV cache dtype (%s), and when vLLM's platform alignment sees it is not read: give --kv-cache-dtype %s", r.KVCacheDtypeString, r.KVCacheDtype)
	}
	if r.KVCacheDtype == "auto" || r.KVCacheDtype == r.Dtype {
		// Every layer's KV cache already is the model's dtype: vLLM runs
		// the flag as a no-op, and the serve it was meant to change is
		// not the one sized.
		return r.skipRefusal("with --kv-cache-dtype %s every layer's KV cache is the model's dtype (%s) already, so the flag changes nothing in vLLM (a skipped layer takes \"auto\", attention.py:308-309); pass --kv-cache-dtype fp8 for the other layers", r.KVCacheDtype, r.Dtype)
	}
	skip := make([]bool, len(a.Layers))
	for _, e := range entries {
		matched := false
		if e == skipKeyword {
			for i, l := range a.Layers {
				if l.Kind == model.SlidingAttention && !l.SharesKV {
					skip[i], matched = true, true
				}
			}
			if !matched {
				return r.skipRefusal("%s matches no layer: %s has no sliding-window layer, and vLLM ignores the entry without a word", e, a.Source)
			}
			continue
		}
		n, err := strconv.Atoi(e)
		if err != nil || n < 0 || strconv.Itoa(n) != e {
			return r.skipRefusal("%q matches no layer: vLLM compares each entry with str(layer index) or %q (attention.py:299-306), space-separated, and ignores any other without a word", e, skipKeyword)
		}
		if n >= len(a.Layers) {
			return r.skipRefusal("layer %d is out of range: %s has %d layers (0 to %d), and vLLM ignores the entry without a word", n, a.Source, len(a.Layers), len(a.Layers)-1)
		}
		if l := a.Layers[n]; l.Kind == model.NoMixer || l.SharesKV {
			return r.skipRefusal("layer %d keeps no KV cache of its own (an MLP-only layer or one that reads another layer's cache): not modelled", n)
		}
		skip[n] = true
	}
	r.KVSkipLayers = nil
	for i, s := range skip {
		if s {
			r.KVSkipLayers = append(r.KVSkipLayers, i)
		}
	}
	return r.alignSkipBlock(a)
}

// alignSkipBlock is vLLM's _align_heterogeneous_kv_block_size
// (vllm/platforms/interface.py:652-759, from skipAlignSince): with the
// per-token page of the quantized primary P and of a skipped layer S
// (model-level KV heads per rank and head size, interface.py:688-703), S
// above P raises the block to the smallest multiple of max(16, block)
// whose primary page covers S x 16 (:727-752), and every sliding layer's
// page is padded to that shared page, block x P (:754-756, attention.py:
// 614-651). A full-attention layer takes the raised block in its own dtype,
// unpadded.
func (r *Resolved) alignSkipBlock(a *model.Arch) error {
	r.SkipPagePadded, r.skipSWBlock = 0, [2]uint64{}
	if r.Profile.Release.Less(skipAlignSince) {
		return nil
	}
	if a.HeadDim == skipFA4HeadSize {
		return r.skipRefusal("a head size of %d: on Hopper with an fp8 KV cache FlashAttention runs FA4's kernel of 64-token pages (flash_attn.py:88-122), which sets the platform's alignment (interface.py:727-732) by the device and backend; not modelled", a.HeadDim)
	}
	perToken := 2 * model.KVHeadsPerRank(a, r.TensorParallelSize) * a.HeadDim
	primary, padded := budget.SatMul(perToken, r.KVDtypeBytes), budget.SatMul(perToken, r.DtypeBytes)
	if padded <= primary || primary == 0 {
		// Equal per-token pages: unify scales the blocks (interface.py:719-723).
		return nil
	}
	align := max(uint64(skipSmallestKernel), r.BlockSize)
	required := budget.SatMul(padded, skipSmallestKernel)
	step := budget.SatMul(align, primary)
	block := budget.SatMul(align, budget.CeilDiv(required, step))
	if r.BlockSize < block && r.Serve.BlockSize == 0 {
		r.Sources.Set("block-size", fmt.Sprintf("%d: vLLM raises the block so the %s page covers a skipped layer's %s page of %d tokens (--kv-cache-dtype-skip-layers; vllm/platforms/interface.py:736-752)",
			block, r.KVCacheDtype, r.Dtype, skipSmallestKernel))
	}
	if r.BlockSize < block {
		// A given --block-size is raised too (interface.py:744-751); the
		// report's summary says so (skipSummary).
		r.BlockSize = block
	}
	shared := budget.SatMul(r.BlockSize, primary)
	r.SkipPagePadded = shared
	for i, l := range a.Layers {
		if l.Kind != model.SlidingAttention {
			continue
		}
		tok := r.skipTokenBytes(a, i)
		skipped := slices.Contains(r.KVSkipLayers, i)
		var chosen uint64
		for bi, cands := range skipKernelBlocks {
			b := largestKernelBlockWithin(cands, tok, shared)
			if bi > 0 && b != chosen {
				return r.skipRefusal("sliding layer %d's kernel block under the shared page of %d bytes is %d on FlashAttention and Triton but %d on another backend (_largest_kernel_block_within, attention.py:98-125), and membudget does not pick the backend: not modelled", i, shared, chosen, b)
			}
			chosen = b
		}
		if budget.SatMul(chosen, tok) > shared {
			return r.skipRefusal("sliding layer %d's page of %d bytes exceeds the shared page of %d bytes, which vLLM asserts against (page_size_padded >= unpadded, vllm/v1/kv_cache_interface.py:231-233)", i, budget.SatMul(chosen, tok), shared)
		}
		idx := 0
		if skipped {
			idx = 1
		}
		if r.skipSWBlock[idx] != 0 && r.skipSWBlock[idx] != chosen {
			return r.skipRefusal("sliding layers of different shapes take different kernel blocks under the shared page: not modelled")
		}
		r.skipSWBlock[idx] = chosen
	}
	if r.skipSWBlock == ([2]uint64{}) {
		return nil
	}
	for i, l := range a.Layers {
		if l.Kind != model.FullAttention || l.SharesKV {
			continue
		}
		page := budget.SatMul(r.BlockSize, r.skipTokenBytes(a, i))
		if page < shared {
			// A layer of its own head shape (Gemma 4's global layers): the
			// platform aligns to the model-level page, and which backend
			// and kernel block such a layer gets is not read.
			return r.skipRefusal("full-attention layer %d has a head shape of its own (a page of %d bytes a block beside the shared page of %d the platform aligns to from the model's head size, interface.py:688-703): its attention backend and kernel block with sliding layers padded are not read; not modelled", i, page, shared)
		}
		if page != shared {
			// A full layer's page above the shared one (a skipped
			// layer's, twice it):
			// unify_kv_cache_spec_page_size then scales a padded sliding
			// spec's block while its page stays padded to the shared page
			// (vllm/v1/core/kv_cache_utils.py:1079-1081), and the padded
			// page falls below the unpadded one or the unified page
			// misses the largest: AssertionError at kv_cache_interface.py:
			// 232 or kv_cache_utils.py:1097 (vLLM's own planner run on
			// gpt-oss-20b's specs, sliding_window and layer 1 skipped,
			// raises the first).
			return r.skipRefusal("full-attention layer %d beside sliding-window layers: vLLM stops at startup: its page (%d bytes a block) is above the shared page (%d) the sliding layers are padded to, and unify_kv_cache_spec_page_size scales a padded sliding block past its page (vllm/v1/core/kv_cache_utils.py:1079-1098; an AssertionError at vllm/v1/kv_cache_interface.py:232 or kv_cache_utils.py:1097); skip %s alone",
				i, page, shared, skipKeyword)
		}
	}
	return nil
}

// skipTokenBytes is one token of layer i's KV cache on a rank: its
// heads and head size, in the model's dtype when skipped.
func (r *Resolved) skipTokenBytes(a *model.Arch, i int) uint64 {
	heads, dim := layerKVShape(a, i, r.TensorParallelSize)
	bytes := r.KVDtypeBytes
	if slices.Contains(r.KVSkipLayers, i) {
		bytes = r.DtypeBytes
	}
	return budget.SatMul(2*heads*dim, bytes)
}

// largestKernelBlockWithin is _largest_kernel_block_within (attention.py:
// 98-125): the largest of the backend's kernel blocks whose page of
// perToken bytes a token fits in budget, else the smallest.
func largestKernelBlockWithin(cands []uint64, perToken, budgetBytes uint64) uint64 {
	best, smallest := uint64(0), slices.Min(cands)
	for _, b := range cands {
		if budget.SatMul(b, perToken) <= budgetBytes {
			best = max(best, b)
		}
	}
	if best == 0 {
		return smallest
	}
	return best
}

// skipKey is the skipped layers and padding as a layout key.
func (r *Resolved) skipKey() string {
	if len(r.KVSkipLayers) == 0 {
		return ""
	}
	return fmt.Sprint(r.KVSkipLayers, r.DtypeBytes, r.SkipPagePadded, r.skipSWBlock)
}

// skipSummary says which layers keep which KV dtype, for the report:
// "layers 0,31 bfloat16 (2 bytes), 30 layers fp8 (1 byte)".
func (r *Resolved) skipSummary(a *model.Arch) string {
	if len(r.KVSkipLayers) == 0 {
		return ""
	}
	var kv int
	for i, l := range a.Layers {
		if (l.Kind == model.FullAttention || l.Kind == model.SlidingAttention) && !l.SharesKV && !slices.Contains(r.KVSkipLayers, i) {
			kv++
		}
	}
	ids := make([]string, len(r.KVSkipLayers))
	for i, l := range r.KVSkipLayers {
		ids[i] = strconv.Itoa(l)
	}
	s := fmt.Sprintf("layers %s keep %s (%d bytes), %d layers %s (%d byte", strings.Join(ids, ","), r.Dtype, r.DtypeBytes, kv, r.KVCacheDtype, r.KVDtypeBytes)
	if r.KVDtypeBytes != 1 {
		s += "s"
	}
	s += ")"
	if r.SkipPagePadded > 0 {
		s += fmt.Sprintf("; block size %d (vLLM aligns it so the %s page covers a skipped one)", r.BlockSize, r.KVCacheDtype)
	}
	if r.skipSWBlock != ([2]uint64{}) {
		s += fmt.Sprintf("; sliding pages padded to %d bytes", r.SkipPagePadded)
	}
	return s
}
