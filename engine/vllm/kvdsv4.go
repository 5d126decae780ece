package vllm

import (
	"fmt"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/model"
)

// DeepSeek-V4's KV cache as vLLM main d18bb7b lays it out: every layer
// keeps a sliding window of its 512-wide latent; a layer compressed 4x or
// 128x keeps a compressed latent a block of 256 tokens and its compressor's
// float32 state over a short window; a 4x layer's indexer keeps its keys
// and its own compressor state too. The sliding parts are
// SlidingWindowMLASpecs and the compressed ones MLAAttentionSpecs
// (vllm/v1/kv_cache_interface.py:413-493, 666-745), grouped by
// group_and_unify_kv_cache_specs and _get_kv_cache_groups_uniform_groups
// (vllm/v1/core/kv_cache_utils.py:1545-1707) and packed into one block
// slab (_get_kv_cache_config_packed, :1249-1324, #51041, #54703).

// DeepSeek-V4's spec classes, after kvspec.go's.
const (
	// dsv4MLASpec: the MLAAttentionSpec of a compressed latent.
	dsv4MLASpec specKind = crossSpec + 1 + iota
	// dsv4IndexerSpec: the MLAAttentionSpec of a 4x layer's indexer keys.
	dsv4IndexerSpec
	// dsv4SWASpec: a SlidingWindowMLASpec (kv_cache_interface.py:666-745),
	// an SWA cache or a compressor's state.
	dsv4SWASpec
)

// The sizes vLLM fixes for DeepSeek-V4's caches.
const (
	// dsv4Block is the block size vLLM picks: the first attention layer
	// registered is layer 0's SWA cache, whose backend prefers 256
	// (vllm/v1/attention/backends/mla/sparse_swa.py:121-123;
	// vllm/platforms/interface.py:609-637).
	dsv4Block = 256
	// dsv4SWABlock is the SWA cache's own block (sparse_swa.py:79-84).
	dsv4SWABlock = 64
	// dsv4TokenBytes is a token of the fp8_ds_mla latent: 448 NoPE bytes,
	// 128 RoPE bytes and an 8-byte scale (kv_cache_interface.py:434-438,
	// 685-689).
	dsv4TokenBytes = 584
	// dsv4Align is the page alignment of the fp8_ds_mla layout, FlashMLA's
	// packing (attention.py:659-673, 697-709; sparse_swa.py:89-104;
	// compressor.py:191-203; _apply_alignment_padding,
	// kv_cache_interface.py:378-384).
	dsv4Align = 576
)

// dsv4Page is a page of n bytes padded to the fp8_ds_mla alignment.
func dsv4Page(n uint64) uint64 { return budget.RoundUp(n, dsv4Align) }

// dsv4Specs lists a DeepSeek-V4 model's KV cache specs in the order vLLM
// registers its layers (static_forward_context): on a 4x layer the
// indexer's key cache and its compressor's state, then the SWA cache, the
// compressed latent and the compressor's state (attention.py:279-351,
// 776-808); a 128x layer the SWA cache, the latent and the state; an
// uncompressed layer its SWA cache alone (get_kv_cache_spec returns None
// for its attention, attention.py:654-658).
func dsv4Specs(a *model.Arch, r *Resolved) []layerSpec {
	v := a.DeepSeekV4
	var specs []layerSpec
	// MLAAttentionSpec pages: block_size / compress_ratio tokens of 584
	// bytes (the latent) or of the indexer's index_head_dim fp8 bytes and
	// a float32 scale a 128 (attention.py:786-790), padded.
	latent := func(i int, ratio uint64) layerSpec {
		return layerSpec{layer: i, kind: dsv4MLASpec, block: r.BlockSize, heads: 1, headDim: dsv4HeadDim, compress: ratio,
			page: dsv4Page(budget.SatMul(r.BlockSize/ratio, dsv4TokenBytes))}
	}
	// CompressorStateCache: float32 kv and score states of coff x hd each,
	// in blocks of 4 (ratio 4) or 8 (ratio 128), over a window of coff x
	// ratio tokens (compressor.py:173-203).
	state := func(i int, ratio, hd uint64) layerSpec {
		coff, block := uint64(1), uint64(8)
		if ratio == 4 {
			coff, block = 2, 4
		}
		dim := 2 * coff * hd
		return layerSpec{layer: i, kind: dsv4SWASpec, block: block, heads: 1, headDim: dim, window: coff * ratio,
			page: dsv4Page(budget.SatMul(budget.SatMul(block, dim), 4))}
	}
	swa := func(i int) layerSpec {
		return layerSpec{layer: i, kind: dsv4SWASpec, block: dsv4SWABlock, heads: 1, headDim: dsv4TokenBytes, window: a.SlidingWindow,
			page: dsv4Page(dsv4SWABlock * dsv4TokenBytes)}
	}
	for i, l := range a.Layers {
		switch l.CompressRatio {
		case 4:
			ix := latent(i, 4)
			ix.kind, ix.headDim = dsv4IndexerSpec, v.IndexHeadDim+v.IndexHeadDim/128*4
			ix.page = dsv4Page(budget.SatMul(r.BlockSize/4, ix.headDim))
			specs = append(specs, ix, state(i, 4, v.IndexHeadDim), swa(i), latent(i, 4), state(i, 4, a.HeadDim))
		case 128:
			specs = append(specs, swa(i), latent(i, 128), state(i, 128, a.HeadDim))
		default:
			specs = append(specs, swa(i))
		}
	}
	return specs
}

// dsv4HeadDim is the latent's width, the specs' head_size.
const dsv4HeadDim = 512

// dsv4Layout forms DeepSeek-V4's groups: every compressed latent and
// indexer cache in one UniformTypeKVCacheSpecs group, the sliding specs in
// one per block size and window (the SWA caches, the 4x states, the 128x
// states), split so that each holds about as many layer tuples as the
// latent group (_approximate_gcd), and one packed block as large as the
// largest group's pages together.
func dsv4Layout(specs []layerSpec) kvLayout {
	var mla []layerSpec
	var swaKeys [][2]uint64
	swa := map[[2]uint64][]layerSpec{}
	for _, s := range specs {
		if s.kind == dsv4SWASpec {
			k := [2]uint64{s.block, s.window}
			if _, ok := swa[k]; !ok {
				swaKeys = append(swaKeys, k)
			}
			swa[k] = append(swa[k], s)
			continue
		}
		mla = append(mla, s)
	}
	tuples := []uint64{layerTuples(mla)}
	for _, k := range swaKeys {
		tuples = append(tuples, layerTuples(swa[k]))
	}
	n := approximateGCD(tuples, tuples[0])
	l := kvLayout{packed: true, groups: []kvGroup{{spec: mla[0], layers: mla}}}
	for _, k := range swaKeys {
		// Each page size's layers, zipped into tuples and dealt into
		// cdiv(layers a size, n) groups by stride (:1674-1705).
		var sizes []uint64
		bySize := map[uint64][]layerSpec{}
		for _, s := range swa[k] {
			if _, ok := bySize[s.page]; !ok {
				sizes = append(sizes, s.page)
			}
			bySize[s.page] = append(bySize[s.page], s)
		}
		per := uint64(len(bySize[sizes[0]]))
		parts := budget.CeilDiv(per, n)
		for i := range parts {
			g := kvGroup{spec: swa[k][0]}
			for t := i; t < per; t += parts {
				for _, size := range sizes {
					g.layers = append(g.layers, bySize[size][t])
				}
			}
			l.groups = append(l.groups, g)
		}
	}
	// The startup check's block: the largest group's layer tuples times a
	// tuple of the latent group's page sizes, one of each
	// (_max_memory_usage_bytes_from_groups, :1901-1925).
	var most uint64
	for _, g := range l.groups {
		most = max(most, layerTuples(g.layers))
		var sum uint64
		for _, s := range g.layers {
			sum = budget.SatAdd(sum, s.page)
		}
		l.stride = max(l.stride, sum)
	}
	var tuple uint64
	var seen []uint64
	for _, s := range mla {
		if !slices.Contains(seen, s.page) {
			seen = append(seen, s.page)
			tuple = budget.SatAdd(tuple, s.page)
		}
	}
	l.checkBlock = budget.SatMul(most, tuple)
	return l
}

// layerTuples is UniformTypeKVCacheSpecs.get_num_layer_tuples: the layers
// of the most common page size (kv_cache_interface.py:942-945).
func layerTuples(specs []layerSpec) uint64 {
	count := map[uint64]uint64{}
	var most uint64
	for _, s := range specs {
		count[s.page]++
		most = max(most, count[s.page])
	}
	return most
}

// approximateGCD is vLLM's _approximate_gcd (kv_cache_utils.py:1588-1620):
// the d in [lower, max(values)] whose rounding up of every value to a
// multiple of d pads least, the larger on a tie; lower itself when it
// exceeds every value.
func approximateGCD(values []uint64, lower uint64) uint64 {
	lower = max(lower, 1)
	var top uint64
	for _, v := range values {
		top = max(top, v)
	}
	if lower > top {
		return lower
	}
	best, bestPad := lower, uint64(0)
	for d := lower; d <= top; d++ {
		var pad uint64
		for _, v := range values {
			pad += (d - v%d) % d
		}
		if d == lower || pad <= bestPad {
			best, bestPad = d, pad
		}
	}
	return best
}

// packedPool is the block pool of a packed layout: one slab whose block
// is the stride, every group drawing its blocks from it
// (get_max_concurrency_for_kv_cache_config sums the groups' pages,
// kv_cache_utils.py:917-939).
func (l kvLayout) packedPool(r *Resolved) budget.PagedPool {
	p := budget.PagedPool{PageBytes: l.stride, Tensors: 1}
	l.addGroupPages(&p, r)
	return p
}

// packedItems lists a packed layout's KV cache for s sequences of t
// tokens: each group's blocks, every block a stride of the slab.
func (l kvLayout) packedItems(r *Resolved, s, t uint64) []budget.Item {
	items := make([]budget.Item, 0, len(l.groups))
	for i, g := range l.groups {
		blocks := g.spec.pages(r).Pages(t)
		items = append(items, budget.Item{
			Name:  fmt.Sprintf("kv_cache.packed.group%d[%s x%d]", i, g.spec.kind.name(), len(g.layers)),
			Term:  budget.TermKVCache,
			Bytes: budget.SatMul(budget.SatMul(s, blocks), l.stride),
		})
	}
	return items
}

// resolveDeepSeekV4 applies what vLLM main fixes for DeepSeek-V4 and
// refuses what membudget has not modelled of it, by name: the block size
// of 256, FlashMLA's fp8_ds_mla cache (its only cache on Hopper and
// Blackwell: an fp8 KV cache dtype), one pipeline stage.
func (r *Resolved) resolveDeepSeekV4(a *model.Arch, c budget.Class) error {
	si := c.Device.Silicon
	switch {
	case !r.Profile.Main:
		return settingErr("vllm-version", r.Profile.Name, "membudget has read DeepSeek-V4's KV cache planner at vLLM main d18bb7b only (vllm/models/deepseek_v4, #51041, #54703); pass --vllm-version main")
	case si.Vendor != budget.NVIDIA || si.Major != 9 && si.Major != 10:
		return settingErr("model", "deepseek_v4", "membudget models DeepSeek-V4's FlashMLA path, which vLLM takes on CUDA compute capability 9.x and 10.x (nvidia/model.py:770-801); %s is %s %d.%d, where vLLM runs another attention class whose cache is not modelled", c.Device.Name, si.Vendor, si.Major, si.Minor)
	case a.Heads%r.TensorParallelSize != 0:
		return settingErr("tensor-parallel-size", r.TensorParallelSize, "vLLM asserts that it divides DeepSeek-V4's %d attention heads (attention.py:198-200)", a.Heads)
	case a.Heads/r.TensorParallelSize > 128:
		return settingErr("tensor-parallel-size", r.TensorParallelSize, "DeepSeek-V4's FlashMLA decode kernel takes at most 128 heads a rank, and %d / %d is %d (flashmla.py:78-85)", a.Heads, r.TensorParallelSize, a.Heads/r.TensorParallelSize)
	case a.DeepSeekV4.OGroups%r.TensorParallelSize != 0:
		return settingErr("tensor-parallel-size", r.TensorParallelSize, "DeepSeek-V4's output projection runs o_groups / tp groups a rank (attention.py:206-207, 255-256): %d does not divide its %d groups", r.TensorParallelSize, a.DeepSeekV4.OGroups)
	case a.Experts%r.TensorParallelSize != 0:
		return settingErr("tensor-parallel-size", r.TensorParallelSize, "vLLM asserts that it divides DeepSeek-V4's %d experts (nvidia/model.py:609-612)", a.Experts)
	case r.ExpertRanks <= 1 && a.DeepSeekV4.ExpertFP4 && (a.MoEIntermediate/r.TensorParallelSize)%256 != 0:
		// The MXFP4 kernels round a rank's intermediate up to 64 to 256
		// (fused_moe/oracle/mxfp4.py:640-694); membudget counts the
		// experts as stored, exact where nothing rounds.
		return settingErr("tensor-parallel-size", r.TensorParallelSize, "DeepSeek-V4's MXFP4 experts at %d / %d = %d intermediate a rank would be rounded up by vLLM's MXFP4 kernels, which membudget has not modelled for it (want a multiple of 256 a rank, or --enable-expert-parallel)", a.MoEIntermediate, r.TensorParallelSize, a.MoEIntermediate/r.TensorParallelSize)
	case !strings.HasPrefix(r.KVCacheDtype, "fp8"):
		// attention.py:103-108: the fp8_ds_mla layout asserts an fp8 cache.
		return settingErr("kv-cache-dtype", r.KVCacheDtype, "vLLM's DeepSeek-V4 FlashMLA layout takes an fp8 KV cache only (\"DeepseekV4 fp8_ds_mla layout only supports fp8 kv-cache\", vllm/models/deepseek_v4/attention.py:103-108): pass --kv-cache-dtype fp8")
	case r.EnableExpertParallel && r.TensorParallelSize > 1 && r.DataParallelSize > 1:
		// _use_sequence_parallel (nvidia/model.py:803-811): the shared
		// experts replicated and the hidden states sharded per rank.
		return settingErr("data-parallel-size", r.DataParallelSize, "DeepSeek-V4 with expert parallelism over tensor-parallel ranks and more than one data-parallel engine runs its MoE sequence-parallel (shared experts whole on every rank, vllm/models/deepseek_v4/nvidia/model.py:803-811), which membudget has not modelled")
	case r.Runner == runnerPooling:
		return settingErr("runner", "pooling", "DeepSeek-V4 under vLLM's pooling adapter is not modelled")
	case r.Spec.Method != "":
		// A drafter's KV joins DeepSeek-V4's packed groups
		// (_annotate_eagle_groups_deepseek_v4, kv_cache_utils.py:1710-1731),
		// and a proposer without one moves it to the V1 runner, whose
		// piecewise graphs vLLM does not run for it (vllm/config/vllm.py:
		// 69-71).
		return settingErr("speculative-config", r.Spec.Method, "speculative decoding of DeepSeek-V4 (its draft's cache in the packed groups, or the V1 runner a proposer moves it to) is not modelled")
	case r.PipelineParallelSize > 1:
		return settingErr("pipeline-parallel-size", r.PipelineParallelSize, "DeepSeek-V4's packed KV layout projected onto pipeline stages (_project_kv_cache_groups_to_worker and the per-stage block stride) is not modelled")
	}
	if r.Serve.BlockSize == 0 {
		r.BlockSize = dsv4Block
		r.Sources.Set("block-size", "256: DeepSeek-V4's SWA cache backend, asked first, prefers 256 (vllm/v1/attention/backends/mla/sparse_swa.py:121-123; vllm/platforms/interface.py:609-637)")
	} else if r.Serve.BlockSize != dsv4Block {
		return settingErr("block-size", r.Serve.BlockSize, "membudget models DeepSeek-V4 at the block size vLLM picks for it, 256, whose C4 and C128 latents store 64 and 2 tokens a block (kv_cache_interface.py:428-438); other sizes are not modelled")
	} else {
		r.BlockSize = dsv4Block
	}
	return nil
}
