package properties

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
)

// genLayerMix rewrites a parsed architecture's layers into a drawn mix of
// the kinds issue #12 adds: per-sequence state (Mamba2, Mamba1 or gated
// delta net, one kind per model as in every vLLM model), chunked and
// sliding attention, MLP-only layers, layers sharing another's KV cache,
// and full layers with twice the head size; and, for MLA without state,
// sometimes DeepSeek V3.2's indexer. Every dimension the state splits among ranks is
// a multiple of 8, so that the tensor parallelism drawn divides it.
func genLayerMix(t *rapid.T, a *model.Arch) {
	state := rapid.SampledFrom([]model.LayerKind{model.Mamba, model.LinearAttention, model.FullAttention}).Draw(t, "state_kind")
	mix := []model.LayerKind{model.FullAttention, model.NoMixer}
	if !a.MLA {
		// vLLM has no sliding or chunked MLA outside DeepSeek V4.
		mix = append(mix, rapid.SampledFrom([]model.LayerKind{model.SlidingAttention, model.ChunkedAttention}).Draw(t, "local_kind"))
	}
	if state != model.FullAttention {
		mix = append(mix, state, state)
		// vLLM cannot unify an indexer's page with a state page: no model
		// has both.
		a.Indexer = nil
	}
	for i := range a.Layers {
		l := model.Layer{Kind: rapid.SampledFrom(mix).Draw(t, "kind"), MoE: a.Layers[i].MoE}
		if l.Kind == model.FullAttention && !a.MLA {
			l.SharesKV = rapid.Float64Range(0, 1).Draw(t, "share") < 0.1
			if rapid.Float64Range(0, 1).Draw(t, "wide") < 0.2 {
				l.HeadDim = 2 * a.HeadDim
			}
		}
		a.Layers[i] = l
	}
	a.SlidingWindow = rapid.Uint64Range(1, 8192).Draw(t, "mix_window")
	a.AttentionChunkSize = rapid.Uint64Range(1, 8192).Draw(t, "chunk")
	x8 := func(label string, hi uint64) uint64 { return 8 * rapid.Uint64Range(1, hi).Draw(t, label) }
	switch state {
	case model.Mamba:
		m := &model.MambaShape{Version: rapid.SampledFrom([]int{1, 2}).Draw(t, "mamba_version"), StateSize: x8("state_x8", 32),
			ConvKernel: rapid.Uint64Range(2, 4).Draw(t, "conv"), NumHeads: x8("mamba_heads_x8", 16),
			HeadDim: x8("mamba_head_dim_x8", 16), NGroups: rapid.SampledFrom([]uint64{1, 2, 8}).Draw(t, "n_groups")}
		m.Intermediate = m.NumHeads * m.HeadDim
		a.Mamba = m
	case model.LinearAttention:
		a.DeltaNet = &model.DeltaNetShape{NumKeyHeads: x8("key_heads_x8", 4), NumValueHeads: x8("value_heads_x8", 8),
			KeyHeadDim: x8("key_dim_x8", 32), ValueHeadDim: x8("value_dim_x8", 32), ConvKernel: rapid.Uint64Range(2, 4).Draw(t, "conv")}
	}
	if rapid.Bool().Draw(t, "state_float32") {
		a.StateDtype = "float32"
	}
	if a.MLA && state == model.FullAttention && rapid.Bool().Draw(t, "indexer") {
		a.Indexer = &model.IndexerShape{HeadDim: rapid.SampledFrom([]uint64{64, 128}).Draw(t, "index_head_dim"), NumHeads: 64, TopK: 2048}
	}
}

// genStateCase draws a serve of an architecture with a layer mix, with the
// flags that set the state: prefix caching and the state dtypes.
func genStateCase() *rapid.Generator[serveCase] {
	return rapid.Custom(func(t *rapid.T) serveCase {
		data, a := genArch(t, "config")
		if a.Encoder != nil {
			t.Skip("an encoder-only model keeps no per-sequence state")
		}
		if a.EncoderDecoder() {
			t.Skip("an encoder-decoder model's layers are its decoder's, each with a cross-attention: no state layer mixes in")
		}
		if a.DeepSeekV4 != nil {
			t.Skip("DeepSeek-V4's layers are its compressed attention: no state layer mixes in")
		}
		if a.Heads == 0 {
			// An attention-free Mamba: the mix adds attention layers,
			// which it has no heads for.
			t.SkipNow()
		}
		genLayerMix(t, a)
		var tps []uint64
		for _, tp := range []uint64{1, 2, 4, 8} {
			if a.Heads%tp == 0 && (a.MLA || a.KVHeads%tp == 0 || tp%a.KVHeads == 0) && a.Intermediate%tp == 0 && a.MoEIntermediate%tp == 0 && towerDivides(a, tp) &&
				(a.TPWithinExperts == "" || tp <= a.Experts) {
				tps = append(tps, tp)
			}
		}
		seqs := rapid.Uint64Range(1, 1024).Draw(t, "max_num_seqs")
		s := vllm.Serve{
			GPUMemoryUtilization: rapid.Float64Range(0.05, 1).Draw(t, "util"),
			MaxModelLen:          rapid.Uint64Range(1, min(lengthOf(a), 1<<17)).Draw(t, "max_model_len"),
			MaxNumSeqs:           seqs,
			MaxNumBatchedTokens:  rapid.Uint64Range(seqs, 16384).Draw(t, "max_num_batched_tokens"),
			BlockSize:            64 * rapid.SampledFrom([]uint64{0, 1, 2, 4}).Draw(t, "block_size_x64"),
			KVCacheDtype:         rapid.SampledFrom([]string{"auto", "fp8"}).Draw(t, "kv_cache_dtype"),
			TensorParallelSize:   rapid.SampledFrom(tps).Draw(t, "tp"),
			PipelineParallelSize: rapid.Uint64Range(1, maxStages(a, 3)).Draw(t, "pp"),
			EnforceEager:         rapid.Bool().Draw(t, "enforce_eager"),
			EnablePrefixCaching:  rapid.SampledFrom([]engine.Switch{engine.Default, engine.On, engine.Off}).Draw(t, "prefix_caching"),
			MambaCacheDtype:      rapid.SampledFrom([]string{"", "auto", "float32", "bfloat16"}).Draw(t, "mamba_cache_dtype"),
			MambaSSMCacheDtype:   rapid.SampledFrom([]string{"", "auto", "float32", "float16"}).Draw(t, "mamba_ssm_cache_dtype"),
			TrustRemoteCode:      a.Remote != nil,
		}
		s.PipelineParallelSize = cachedStages(a, s.PipelineParallelSize)
		si := rapid.SampledFrom([]budget.Silicon{{Vendor: budget.NVIDIA, Major: 9}, {Vendor: budget.NVIDIA, Major: 10}}).Draw(t, "silicon")
		if rapid.Bool().Draw(t, "kv_cache_memory") {
			s.KVCacheMemoryBytes = rapid.Uint64Range(1<<20, 1<<34).Draw(t, "kv_cache_memory_bytes")
		}
		if s.PipelineParallelSize > 1 {
			// A stage without attention keeps its state layers unraised
			// (vLLM from 0.19.0): their page may not unify with a local
			// attention layer's own, which vLLM refuses as membudget does
			// (TestNoAttentionStage); such a mix is drawn at one stage.
			probe := budget.Class{Name: "probe", Device: budget.Device{Name: "probe", Silicon: si, MemoryBytes: 1 << 50, Interconnect: budget.NVLink}, Memory: budget.DriverTerms{UtilCeiling: 1}}
			if _, err := vllm.NewReference(a, s, probe, current); err != nil && strings.Contains(err.Error(), "cannot unify them") {
				s.PipelineParallelSize = 1
			}
		}
		c := sizedClass(t, a, s, si, current, 1)
		s.KVCacheMemoryBytes = min(s.KVCacheMemoryBytes, c.Device.MemoryBytes)
		ref, err := vllm.NewReference(a, s, c, current)
		if err != nil {
			t.Fatalf("a valid serve is refused: %v", err)
		}
		return serveCase{data, a, s, c, current, ref}
	})
}

// propStatePlanEqualsReference: the compiled plan's footprint equals the
// reference's item-by-item sum for state groups, chunked, sliding and
// UniformType groups, on every pipeline stage.
func propStatePlanEqualsReference(t *rapid.T) {
	c := genStateCase().Draw(t, "serve")
	plan := c.Ref.Plan()
	for range 4 {
		s, tok := genPoint(t, c)
		if diff := cmp.Diff(c.Ref.Evaluate(s, tok).Footprint, plan.Evaluate(s, tok)); diff != "" {
			t.Fatalf("Plan != Reference at (%d, %d) (-reference +plan):\n%s", s, tok, diff)
		}
	}
}

func TestStatePlanEqualsReference(t *testing.T) { rapid.Check(t, propStatePlanEqualsReference) }

// propAttentionPageHoldsState: in a hybrid, the attention block is the
// smallest multiple of the alignment K (16, or --block-size, at least 128
// for MLA) whose page holds a sequence's state, and the state page is
// padded to exactly that page.
func propAttentionPageHoldsState(t *rapid.T) {
	c := genStateCase().Draw(t, "serve")
	r := c.Ref.Serve
	if r.StatePagePadded == 0 {
		return // no state, no attention, or a page the state fills exactly
	}
	k := max(c.Serve.BlockSize, 16)
	if c.Arch.MLA {
		k = max(k, 128)
	}
	a1 := r.StatePagePadded / r.BlockSize
	if r.StatePagePadded%r.BlockSize != 0 || r.BlockSize%k != 0 || r.StatePagePadded < r.StatePageBytes || (r.BlockSize-k)*a1 >= r.StatePageBytes {
		t.Fatalf("a %d B state in a %d B page of %d tokens (alignment %d): not the smallest aligned block that holds it", r.StatePageBytes, r.StatePagePadded, r.BlockSize, k)
	}
}

func TestAttentionPageHoldsState(t *testing.T) { rapid.Check(t, propAttentionPageHoldsState) }

// propSeqsWithinStateBlocks: vLLM refuses to start with max_num_seqs above
// the blocks exactly where it checks them (state layers, full CUDA graphs),
// and the most sequences that fit never exceeds the blocks: each holds at
// least a block, so the budget runs out first.
func propSeqsWithinStateBlocks(t *rapid.T) {
	c := genStateCase().Draw(t, "serve")
	plan := c.Ref.Plan()
	capacity := c.Ref.Capacity()
	r := c.Ref.Serve
	wantBlocks := uint64(0)
	if r.StateBlockCheck() {
		wantBlocks = capacity.Blocks
	}
	if want := r.StateBlockCheck() && r.MaxNumSeqs > capacity.Blocks; capacity.SeqsOverStateBlocks != want || capacity.StateBlocks != wantBlocks {
		t.Fatalf("max_num_seqs %d, %d blocks, checked %v: refused %v (state blocks %d)", r.MaxNumSeqs, capacity.Blocks, r.StateBlockCheck(), capacity.SeqsOverStateBlocks, capacity.StateBlocks)
	}
	length := rapid.Uint64Range(1, plan.MaxLen).Draw(t, "length")
	if pool := plan.Stages[0].Pool; len(plan.Stages) > 1 || pool.BlockBytes() == 0 {
		return // the blocks are the smallest stage's; a pool without layers holds none
	}
	if ans, err := budget.MaxSequences(plan, length, 0); err == nil && ans.Fits && ans.Value > capacity.Blocks {
		t.Fatalf("%d sequences of %d tokens fit in %d blocks", ans.Value, length, capacity.Blocks)
	}
}

func TestSeqsWithinStateBlocks(t *testing.T) { rapid.Check(t, propSeqsWithinStateBlocks) }
