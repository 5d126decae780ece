package vllm

import (
	"fmt"
	"slices"

	"membudget/budget"
	"membudget/model"
)

// specKind is the class of KV cache spec vLLM gives a layer
// (vllm/v1/kv_cache_interface.py).
type specKind int

// The spec classes of the layers membudget reads.
const (
	fullSpec    specKind = iota // FullAttentionSpec (:259-375)
	mlaSpec                     // MLAAttentionSpec (:413-493): one latent per token
	indexerSpec                 // MLAAttentionSpec of DeepSeek V3.2's indexer key cache
	slidingSpec                 // SlidingWindowSpec (:583-663)
	chunkedSpec                 // ChunkedLocalAttentionSpec (:543-580)
	mambaSpec                   // MambaSpec (:748-798): Mamba and gated-delta-net state
	crossSpec                   // CrossAttentionSpec (:809-818): the encoder's tokens (encdec.go)
)

// name is the spec class as vLLM's groups are written, without "Spec".
func (k specKind) name() string {
	switch k {
	case mlaSpec, indexerSpec, dsv4MLASpec, dsv4IndexerSpec:
		return "MLAAttention"
	case dsv4SWASpec:
		return "SlidingWindowMLA"
	case slidingSpec:
		return "SlidingWindow"
	case chunkedSpec:
		return "ChunkedLocalAttention"
	case mambaSpec:
		return "Mamba"
	case crossSpec:
		return "CrossAttention"
	}
	return "FullAttention"
}

// base is the class UniformTypeKVCacheSpecs compares layers by: full
// attention and MLA (the indexer's cache included) are all
// FullAttentionSpec (vllm/v1/core/single_type_kv_cache_manager.py:
// 1898-1955).
func (k specKind) base() specKind {
	if k == mlaSpec || k == indexerSpec {
		return fullSpec
	}
	return k
}

// layerSpec is one layer's KV cache spec: what a block of it holds and
// costs, and how many blocks a sequence keeps.
type layerSpec struct {
	layer int // the decoder layer; -1 for a padding slot of a group
	kind  specKind
	// block is the tokens one block holds: the block size, or for a state
	// layer mamba_block_size.
	block uint64
	// page is one block's bytes on one rank, padded where vLLM pads it.
	page uint64
	// heads and headDim are the attention's KV heads on a rank and head
	// size (the latent for MLA): two specs differ when they do.
	heads, headDim uint64
	// window is a sliding layer's window or a chunked layer's chunk.
	window uint64
	// statePages is the blocks a sequence keeps in a state layer: 1 in
	// mamba_cache_mode none, 2 in align.
	statePages uint64
	// compress is a DeepSeek-V4 latent's compress_ratio: its page holds
	// block / compress tokens.
	compress uint64
	// modelDtype says the layer keeps the model's dtype under
	// --kv-cache-dtype-skip-layers where the rest take another: vLLM's
	// specs then differ by dtype even at one page (kvskip.go).
	modelDtype bool
	// draft says the layer is a draft's (specdraft.go, specmtp.go),
	// numbered after the target's and held by the last stage; vLLM groups
	// it by its spec alone.
	draft bool
}

// same reports whether two layers have the same spec: vLLM groups layers
// by spec equality (the layer index aside).
func (s layerSpec) same(o layerSpec) bool {
	s.layer, o.layer = 0, 0
	s.draft, o.draft = false, false
	return s == o
}

// pages is the blocks one sequence of t tokens keeps in a layer of this
// spec, as a budget.PageGroup of one: every token's for full attention and
// MLA, cdiv(min(W - 1 + in flight, t), block) + 1 for a sliding window,
// cdiv(min(chunk + in flight, t), block) for a chunk ("no +1"), the mode's
// state blocks for a state layer (max_memory_usage_bytes, vllm/v1/
// kv_cache_interface.py:291-296, 547-571, 618-654, 768-777).
func (s layerSpec) pages(r *Resolved) budget.PageGroup {
	switch s.kind {
	case slidingSpec, dsv4SWASpec:
		return budget.PageGroup{Count: 1, PageTokens: s.block, CapTokens: slidingTokens(s.window, r), ExtraPages: 1}
	case chunkedSpec:
		return budget.PageGroup{Count: 1, PageTokens: s.block, CapTokens: budget.SatAdd(s.window, r.InFlightTokens)}
	case mambaSpec:
		return budget.PageGroup{Count: 1, PageTokens: s.block, CapTokens: 0, ExtraPages: s.statePages}
	case crossSpec:
		return budget.PageGroup{Count: 1, PageTokens: s.block, CapTokens: 0, ExtraPages: requestCrossPages(r, s.block)}
	}
	return budget.PageGroup{Count: 1, PageTokens: s.block, CapTokens: budget.NoCap}
}

// slidingTokens is what a sliding-window layer keeps of a sequence at most:
// SlidingWindowSpec.max_memory_usage_bytes takes min(sliding_window - 1 +
// the tokens in flight, max_model_len) tokens and one block more, "because
// the sliding window may not start from the beginning of the block"
// (vllm/v1/kv_cache_interface.py:618-654 at main). The tokens in flight are
// max_concurrent_batches x max_num_batched_tokens from 0.25.0 (two batches
// under async scheduling, vllm/config/vllm.py:547-568), one batch before
// (see [Resolved].InFlightTokens). The V0 engine kept the window alone.
func slidingTokens(window uint64, r *Resolved) uint64 {
	if r.Profile.Era == V0 {
		return window
	}
	return window - 1 + r.InFlightTokens
}

// fp8DSMLABytes is a token of DeepSeek V3.2's latent in the fp8_ds_mla
// format FlashMLA-Sparse takes an fp8 KV cache in: 512 fp8 values, four
// fp32 scales and 64 bf16 rope values (vllm/v1/kv_cache_interface.py:
// 432-451; vllm/v1/attention/backends/mla/flashmla_sparse.py:63-85).
const fp8DSMLABytes = 512 + 4*4 + 64*2

// indexerTokenBytes is a token of DeepSeek V3.2's indexer key cache:
// index_head_dim fp8 values and one fp32 scale per 128 of them, whatever
// the KV cache dtype (DeepseekV32IndexerCache, vllm/model_executor/models/
// deepseek_v2.py:604-625, 681-690).
func indexerTokenBytes(ix *model.IndexerShape) uint64 {
	return ix.HeadDim + ix.HeadDim/128*4
}

// layerSpecs lists the KV cache spec of every layer that keeps one, in the
// order vLLM registers them (get_kv_cache_spec, vllm/v1/worker/
// gpu_model_runner.py:7883-7920): MLP-only layers and layers that read
// another layer's KV cache keep none; a DeepSeek V3.2 layer's indexer cache
// comes before its latent, on the layers that build an indexer
// (deepseek_v2.py:1110: none where IndexCache reuses an earlier top-k); a
// Falcon-H1 layer's Mamba mixer comes after its attention, as the layer
// builds them (falcon_h1.py:337-357).
func layerSpecs(a *model.Arch, r *Resolved) []layerSpec {
	if a.DeepSeekV4 != nil {
		return dsv4Specs(a, r)
	}
	tp := r.TensorParallelSize
	specs := make([]layerSpec, 0, len(a.Layers))
	for i, l := range a.Layers {
		if l.SharesKV {
			continue
		}
		heads, dim := layerKVShape(a, i, tp)
		kvBytes := r.KVDtypeBytes
		skipped := slices.Contains(r.KVSkipLayers, i)
		if skipped {
			// --kv-cache-dtype-skip-layers: the model's dtype (kvskip.go).
			kvBytes = r.DtypeBytes
		}
		attn := layerSpec{layer: i, kind: fullSpec, block: r.BlockSize, heads: heads, headDim: dim, modelDtype: skipped,
			page: budget.SatMul(budget.SatMul(r.BlockSize, 2*heads*dim), kvBytes)}
		switch l.Kind {
		case model.NoMixer, model.EncoderOnly:
			// EncoderOnlyAttention.get_kv_cache_spec returns None
			// (vllm/model_executor/layers/attention/encoder_only_attention.py).
			continue
		case model.Mamba, model.LinearAttention:
			st := layerSpec{layer: i, kind: mambaSpec, block: r.MambaBlockSize, page: r.statePoolPage(), statePages: r.StatePages}
			if r.noAttentionStage(a, i) {
				// Unraised and unpadded: its own spec, padded to the
				// largest page when the whole model's are unified.
				st.block, st.page = r.UnraisedMambaBlock, r.StatePageBytes
			}
			specs = append(specs, st)
			continue
		case model.SlidingAttention:
			attn.kind, attn.window = slidingSpec, a.SlidingWindow
			if r.Profile.Release.AtLeast(slidingOwnBlock) {
				attn.block = swKernelBlock
				attn.page = budget.SatMul(budget.SatMul(swKernelBlock, 2*heads*dim), kvBytes)
			}
			if r.SkipPagePadded > 0 {
				// The largest kernel block within the shared page, the
				// page padded to it (kvskip.go alignSkipBlock).
				attn.block, attn.page = r.skipSWBlock[0], r.SkipPagePadded
				if attn.modelDtype {
					attn.block = r.skipSWBlock[1]
				}
			}
		case model.ChunkedAttention:
			attn.kind, attn.window = chunkedSpec, a.AttentionChunkSize
		}
		if a.MLA && l.Kind == model.FullAttention {
			if a.Indexer != nil && !l.SharesTopK {
				specs = append(specs, layerSpec{layer: i, kind: indexerSpec, block: r.BlockSize, heads: 1,
					headDim: indexerTokenBytes(a.Indexer), page: budget.SatMul(r.BlockSize, indexerTokenBytes(a.Indexer))})
			}
			latent := a.KVLoraRank + a.QKRopeHeadDim
			attn = layerSpec{layer: i, kind: mlaSpec, block: r.BlockSize, heads: 1, headDim: latent,
				page: budget.SatMul(budget.SatMul(r.BlockSize, latent), r.KVDtypeBytes)}
			if r.FP8DSMLA {
				attn.page = budget.SatMul(r.BlockSize, fp8DSMLABytes)
			}
		}
		specs = append(specs, attn)
		if l.CrossAttention {
			// The layer's encoder_attn comes after its self_attn
			// (whisper.py WhisperDecoderLayer): a CrossAttentionSpec of
			// the same heads and page (encdec.go crossPages).
			cross := attn
			cross.kind = crossSpec
			specs = append(specs, cross)
		}
		if l.MambaBeside {
			specs = append(specs, layerSpec{layer: i, kind: mambaSpec, block: r.MambaBlockSize, page: r.statePoolPage(), statePages: r.StatePages})
		}
	}
	return append(specs, draftSpecs(r, specs, len(a.Layers))...)
}

// noAttentionStage says layer i is on a pipeline stage without an
// attention layer whose state layers keep an unraised spec: such a stage
// finds no attention backend and skips the hybrid block-size raise
// (vllm/platforms/interface.py:608-649, from 0.19.0), so in align mode its
// state layers keep mamba_block_size at the block size before the raise
// and their page unpadded. vLLM merges every stage's specs into the whole
// model's, where theirs is a spec of its own (Nemotron-3-Nano at -pp 8:
// stages 2 and 8 hold Mamba and MoE layers only, and their 6 Mamba layers
// form a group whose 3 layers a stage make the block 3 pages).
func (r *Resolved) noAttentionStage(a *model.Arch, i int) bool {
	if r.PipelineParallelSize <= 1 || r.MambaCacheMode != "align" || r.Profile.Era != V1 || r.Profile.Release.Less(stageHybridRaise) {
		return false
	}
	for _, st := range r.Stages {
		if i < st.FirstLayer || i >= st.EndLayer {
			continue
		}
		for _, l := range a.Layers[st.FirstLayer:st.EndLayer] {
			switch l.Kind {
			case model.Mamba, model.LinearAttention, model.NoMixer:
			default:
				return false
			}
		}
		return true
	}
	return false
}

// unraisedStages names the stages whose state layers keep an unraised
// spec (see [Resolved.noAttentionStage]) by their layers ("6-12,46-52"),
// "" when none: the layout depends on them.
func (r *Resolved) unraisedStages(a *model.Arch) string {
	var b []byte
	for _, st := range r.Stages {
		if st.EndLayer > st.FirstLayer && r.noAttentionStage(a, st.FirstLayer) {
			if len(b) > 0 {
				b = append(b, ',')
			}
			b = fmt.Appendf(b, "%d-%d", st.FirstLayer, st.EndLayer)
		}
	}
	return string(b)
}

// kvLayout is vLLM's KV cache groups for a model (get_kv_cache_groups,
// vllm/v1/core/kv_cache_utils.py:1741-1823), formed on the whole model:
// one group when every layer has the same spec, one UniformTypeKVCacheSpecs
// group when every layer keeps the same tokens in blocks of one size,
// otherwise groups of one spec and one page size, padded to one size.
type kvLayout struct {
	groups []kvGroup
	// uniformType says the layers form one UniformTypeKVCacheSpecs group:
	// each layer has a tensor of its own page size, and a block costs their
	// sum (get_kv_cache_config_from_groups, :1353-1370).
	uniformType bool
	// packed says the groups are DeepSeek-V4's UniformTypeKVCacheSpecs
	// groups in one packed slab of stride bytes a block; checkBlock is
	// what the startup check charges a block instead (kvdsv4.go).
	packed             bool
	stride, checkBlock uint64
}

// kvGroup is one KV cache group: a spec and its layers, one per tensor
// slot, padding slots being layer -1.
type kvGroup struct {
	spec   layerSpec
	layers []layerSpec
}

// kvLayoutOf groups the layer specs as vLLM's get_kv_cache_groups does,
// ratio being the release's [Profile.KVGroupRatio]; a page size that cannot
// be unified is an error, as vLLM raises NotImplementedError.
func kvLayoutOf(specs []layerSpec, ratio float64) (kvLayout, error) {
	if len(specs) == 0 {
		return kvLayout{}, nil // attention-free: no groups
	}
	uniform, sameType := true, true
	for _, s := range specs[1:] {
		uniform = uniform && s.same(specs[0])
		// UniformTypeKVCacheSpecs.is_uniform_type (:911-936): one block
		// size, one base class, the same window, chunk or state blocks.
		sameType = sameType && s.block == specs[0].block && s.kind.base() == specs[0].kind.base() &&
			s.window == specs[0].window && s.statePages == specs[0].statePages
	}
	if uniform || sameType {
		return kvLayout{groups: []kvGroup{{spec: specs[0], layers: specs}}, uniformType: !uniform}, nil
	}
	if slices.ContainsFunc(specs, func(s layerSpec) bool { return s.kind == dsv4SWASpec }) &&
		slices.ContainsFunc(specs, func(s layerSpec) bool { return s.page != specs[0].page }) {
		// group_and_unify_kv_cache_specs (kv_cache_utils.py:1545-1585):
		// SlidingWindowMLASpecs of more than one page size.
		return dsv4Layout(specs), nil
	}
	specs, err := unifyPageSize(specs)
	if err != nil {
		return kvLayout{}, err
	}
	return kvLayout{groups: uniformPageGroups(specs, ratio)}, nil
}

// unifyPageSize gives every layer the largest page
// (unify_kv_cache_spec_page_size, vllm/v1/core/kv_cache_utils.py:
// 1036-1098): a state layer's page is padded; an attention layer whose page
// divides the largest holds that many times more tokens a block; any other
// cannot be unified.
func unifyPageSize(specs []layerSpec) ([]layerSpec, error) {
	var most uint64
	for _, s := range specs {
		most = max(most, s.page)
	}
	out := make([]layerSpec, len(specs))
	for i, s := range specs {
		switch {
		case s.page == most:
		case s.kind == mambaSpec:
			s.page = most
		case s.page > 0 && most%s.page == 0:
			s.block = budget.SatMul(s.block, most/s.page)
			s.page = most
		default:
			return nil, fmt.Errorf("layer %d: its KV page of %d bytes does not divide the largest page, %d bytes, and vLLM cannot unify them (unify_kv_cache_spec_page_size raises NotImplementedError)", s.layer, s.page, most)
		}
		out[i] = s
	}
	return out, nil
}

// uniformPageGroups splits layers of one page size into groups of one
// spec and one size (_get_kv_cache_groups_uniform_page_size, vllm/v1/core/
// kv_cache_utils.py:1106-1246): the specs in the order of their first
// layer; the group size is the fewest layers of a spec, or the most when
// that is below ratio x the fewest (1.5 at d18bb7b, :1214; per release,
// [Profile.KVGroupRatio]); each spec's layers are dealt into groups by
// stride (layers[i::n]) so that pipeline stages share them evenly, and the
// groups padded to the group size.
func uniformPageGroups(specs []layerSpec, ratio float64) []kvGroup {
	var buckets [][]layerSpec
	for _, s := range specs {
		placed := false
		for i, b := range buckets {
			if b[0].same(s) {
				buckets[i] = append(b, s)
				placed = true
				break
			}
		}
		if !placed {
			buckets = append(buckets, []layerSpec{s})
		}
	}
	lo, hi := len(specs), 0
	for _, b := range buckets {
		lo, hi = min(lo, len(b)), max(hi, len(b))
	}
	size := lo
	// vLLM compares max_num_layers < min_num_layers * ratio in floats; a
	// layer count and the ratios 1, 1.25 and 1.5 are exact in float64.
	if float64(hi) < float64(lo)*ratio {
		size = hi
	}
	var groups []kvGroup
	for _, b := range buckets {
		n := (len(b) + size - 1) / size
		for i := range n {
			g := kvGroup{spec: b[0]}
			for j := i; j < len(b); j += n {
				g.layers = append(g.layers, b[j])
			}
			for len(g.layers) < size {
				pad := b[0]
				pad.layer = -1
				g.layers = append(g.layers, pad)
			}
			groups = append(groups, g)
		}
	}
	return groups
}

// onStage reports whether a group slot holds a layer of stage st; a
// draft's layers are the last stage's.
func onStage(s layerSpec, st model.Sharding) bool {
	return s.draft && st.Last || !s.draft && s.layer >= st.FirstLayer && s.layer < st.EndLayer
}

// pool is the block pool a pipeline stage allocates, in closed form: its
// tensors and page (get_kv_cache_config_from_groups, vllm/v1/core/
// kv_cache_utils.py:1327-1409) and the pages a sequence keeps in each
// group. With groups of one page, a tensor per slot of the largest group's
// share of the stage's layers (vLLM projects the whole model's groups onto
// each stage, empty ones kept, :2040-2079); with one UniformType group, a
// tensor per layer, a block costing their pages' sum.
func (l kvLayout) pool(r *Resolved, st model.Sharding) budget.PagedPool {
	if l.packed {
		return l.packedPool(r)
	}
	var p budget.PagedPool
	if len(l.groups) == 0 {
		return p
	}
	l.addGroupPages(&p, r)
	if l.uniformType {
		var sum, n uint64
		equal := true
		for _, s := range l.groups[0].layers {
			if onStage(s, st) {
				sum, n = budget.SatAdd(sum, s.page), n+1
				equal = equal && s.page == l.groups[0].spec.page
			}
		}
		p.PageBytes, p.Tensors = l.groups[0].spec.page, n
		if !equal {
			p.PageBytes, p.Tensors = sum, min(n, 1)
		}
		return p
	}
	p.PageBytes, p.Tensors = l.groups[0].spec.page, l.stageTensors(st)
	return p
}

// tensorPages is the page of each KV tensor stage st allocates, one per
// slot: the layers' own pages in a UniformType group, the one page
// otherwise.
func (l kvLayout) tensorPages(st model.Sharding) []uint64 {
	if len(l.groups) == 0 {
		return nil
	}
	if l.packed {
		return []uint64{l.stride}
	}
	if l.uniformType {
		var pages []uint64
		for _, s := range l.groups[0].layers {
			if onStage(s, st) {
				pages = append(pages, s.page)
			}
		}
		return pages
	}
	pages := make([]uint64, l.stageTensors(st))
	for i := range pages {
		pages[i] = l.groups[0].spec.page
	}
	return pages
}

// addGroupPages adds the layout's groups' pages to p, groups of the same
// pages counted together, in their order.
func (l kvLayout) addGroupPages(p *budget.PagedPool, r *Resolved) {
	for _, g := range l.groups {
		pg := g.spec.pages(r)
		if n := len(p.Groups); n > 0 && p.Groups[n-1].PageTokens == pg.PageTokens && p.Groups[n-1].CapTokens == pg.CapTokens && p.Groups[n-1].ExtraPages == pg.ExtraPages {
			p.Groups[n-1].Count++
		} else {
			p.Groups = append(p.Groups, pg)
		}
	}
}

// layerKVShape returns layer i's KV heads on a rank of tp and its head
// size: the layer's own where its config gives them, else the model's.
func layerKVShape(a *model.Arch, i int, tp uint64) (heads, dim uint64) {
	l := a.Layers[i]
	heads, dim = model.KVHeadsPerRank(a, tp), a.HeadDim
	if l.KVHeads > 0 {
		heads = max(1, l.KVHeads/tp)
	}
	if l.HeadDim > 0 {
		dim = l.HeadDim
	}
	return heads, dim
}
