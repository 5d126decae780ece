package vllm

import (
	"fmt"
	"slices"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// The releases at which vLLM's rules for per-sequence state changed, with
// the change that did (placed by merge date against the release cuts).
var (
	// Mamba hybrids run on the V1 engine by default (PR #23650,
	// 2025-08-27); before, vLLM fell back to V0 for them.
	stateOnV1 = Version{0, 10, 2}
	// mamba_cache_mode "align" (PR #30877, 2026-01-24): prefix caching on a
	// hybrid keeps two state blocks per sequence.
	stateAlignMode = Version{0, 15, 0}
	// The hybrid block alignment takes the user's --block-size as its
	// alignment, MLA hybrids align to 128 (PR #37467, 2026-03-30), and
	// vLLM refuses a max_num_seqs above the blocks (PR #38270, 2026-03-30);
	// both after the 0.18.0 cut of 03-16, before 0.19.0's of about 04-03.
	stateBlockRefusal = Version{0, 19, 0}
	// The hybrid raise runs on each worker once its layers are built
	// (update_block_size_for_backend, vllm/platforms/interface.py:608-649,
	// 762-938, PR #37467 with the above): a pipeline stage without an
	// attention layer finds no attention backend and skips it (:623-625).
	stageHybridRaise = stateBlockRefusal
	// Prefix caching on by default for generative hybrids (PR #50991,
	// merged 2026-08-04). PR #40996 (07-10) made is_prefix_caching_supported
	// true for hybrids, but kept the default off for them in
	// _set_default_chunked_prefill_and_prefix_caching_args (vllm/engine/
	// arg_utils.py: "and not model_config.is_hybrid", "keep it opt-in for
	// now"); #50991 dropped that clause. 0.27.1 does not hold it: its
	// kv_cache_utils.py logs "GPU KV cache size" at line 2235 and the
	// concurrency at 2236 (corpus/observed/vllm.csv row 214), the layout of
	// main from aeeb36b1f (07-30) to 0cf49a5d1 (08-03), before #50462 and
	// #50991 of 08-04 (#50462 merged the two lines into one); and the row's
	// 59.21x is 829 blocks over 14 a request, mode none's 11 + 3 x 1, not
	// align's 17. 0.28.0 holds #51726 (08-11).
	statePrefixCachingDefault = Version{0, 28, 0}
	// Sliding-window layers take the backend's smallest kernel block rather
	// than --block-size (PR #42890, 2026-07-03).
	slidingOwnBlock = Version{0, 25, 0}
)

// swKernelBlock is the smallest kernel block of every CUDA and ROCm
// attention backend vLLM picks for sliding-window layers: FlashAttention,
// Triton and ROCm's take MultipleOf(16), FlashInfer [16, 32, 64], AITER FA
// [16, 32] (vllm/v1/attention/backends/flash_attn.py:107-122,
// triton_attn.py:295-296, flashinfer.py:402-422, rocm_aiter_fa.py:739-740).
// A sliding layer's spec takes it (_largest_kernel_block_within with no
// page budget, vllm/model_executor/layers/attention/attention.py:98-125 and
// :601-678) and page unification scales it up.
const swKernelBlock = 16

// stateLayers counts a's layers that keep per-sequence state (Mamba and
// gated-delta-net layers, and the Mamba mixers beside Falcon-H1's
// attention, which vLLM registers as layers of their own:
// falcon_h1.py:345-357) and those that keep attention KV.
func stateLayers(a *model.Arch) (state, attention uint64) {
	for _, l := range a.Layers {
		switch l.Kind {
		case model.Mamba, model.LinearAttention:
			state++
		case model.FullAttention, model.SlidingAttention, model.ChunkedAttention:
			attention++
		}
		if l.MambaBeside {
			state++
		}
	}
	return state, attention
}

// mambaPrefixCachingArchitectures are the architectures whose vLLM class
// implements SupportsMambaPrefixCaching (vllm/model_executor/models/
// interfaces.py:1011-1018 at f9c74b4b9^): falcon_h1.py:496,
// granitemoehybrid.py:576, jamba.py:379 and :505, mamba.py:173 (also
// FalconMambaForCausalLM, registry.py:103), mamba2.py:170, nemotron_h.py:700
// (also NemotronHPuzzleForCausalLM, registry.py:183) and zamba2.py:807.
// Bamba's had it too, but membudget refuses Bamba (model/family_bamba.go).
var mambaPrefixCachingArchitectures = []string{
	"FalconH1ForCausalLM", "GraniteMoeHybridForCausalLM", "JambaForCausalLM",
	"JambaForSequenceClassification", "MambaForCausalLM", "FalconMambaForCausalLM",
	"Mamba2ForCausalLM", "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM",
	"Zamba2ForCausalLM",
}

// mambaPrefixCachingClass returns the first of a's architectures whose vLLM
// class supports Mamba prefix caching in mode "all", and whether there is
// one.
func mambaPrefixCachingClass(a *model.Arch) (string, bool) {
	for _, s := range a.Architectures {
		if slices.Contains(mambaPrefixCachingArchitectures, s) {
			return s, true
		}
	}
	return "", false
}

// mambaDtypes is vLLM's MambaDType: the values --mamba-cache-dtype and
// --mamba-ssm-cache-dtype take (vllm/config/cache.py:38).
var mambaDtypes = []string{"auto", "float32", "float16", "bfloat16"}

// nemotronHArchitectures are the architectures whose vLLM hook makes the
// SSM state float32 unless the config or the flag says otherwise
// (vllm/model_executor/models/config.py:640-676, NemotronHForCausalLMConfig:
// DEFAULT_MAMBA_SSM_CACHE_DTYPE).
var nemotronHArchitectures = []string{"NemotronHForCausalLM", "NemotronHPuzzleForCausalLM", "NemotronH_Nano_VL_V2"}

// mambaDtype returns the --mamba-cache-dtype or --mamba-ssm-cache-dtype
// given, auto when not given. It takes and returns values, not a pointer
// into the resolved serve, so that the serve stays off the heap.
func mambaDtype(flag, v string) (string, error) {
	if v == "" {
		v = "auto"
	}
	if !slices.Contains(mambaDtypes, v) {
		return "", settingErr(flag, fmt.Sprintf("%q", v), "want auto, float32, float16 or bfloat16")
	}
	return v, nil
}

// resolveState sizes the per-sequence state of a's Mamba and gated-delta-net
// layers as vLLM does: the state dtypes, the Mamba cache mode that prefix
// caching decides, the state page, and for a hybrid the attention block
// raised until a page covers the state and the state page padded to it
// (vllm/platforms/interface.py:762-938, _align_hybrid_block_size); and it
// refuses pipeline parallelism for a model whose vLLM class has none
// (Mamba2's, the one state model membudget reads without SupportsPP).
func (r *Resolved) resolveState(a *model.Arch, def func(string, string)) error {
	if a.NoPipeline && r.PipelineParallelSize > 1 {
		return settingErr("pipeline-parallel-size", r.PipelineParallelSize, "vLLM raises \"Pipeline parallelism is not supported for this model\" for %s (%v does not implement SupportsPP; vllm/config/model.py:1387-1394)", a.Source, a.Architectures)
	}
	var err error
	if r.MambaCacheDtype, err = mambaDtype("mamba-cache-dtype", r.MambaCacheDtype); err != nil {
		return err
	}
	if r.MambaSSMCacheDtype, err = mambaDtype("mamba-ssm-cache-dtype", r.MambaSSMCacheDtype); err != nil {
		return err
	}
	state, attention := r.layerCounts(a)
	if state == 0 {
		r.PrefixCaching = r.EnablePrefixCaching != engine.Off
		return nil
	}
	p := r.Profile
	if p.Era == V0 || p.Release.Less(stateOnV1) {
		return settingErr("vllm-version", p.Name, "%s runs %s's Mamba layers on the V0 engine (V1 took them by default from 0.10.2, vLLM PR #23650), whose separate Mamba cache membudget does not model", p.Describes, a.Source)
	}
	hybrid := attention > 0
	switch r.EnablePrefixCaching {
	case engine.On:
		if p.Release.Less(stateAlignMode) {
			return settingErr("enable-prefix-caching", "", "%s has only the experimental Mamba prefix caching that membudget does not model (mamba_cache_mode align came in 0.15.0, vLLM PR #30877)", p.Describes)
		}
		if p.Release.Less(statePrefixCachingDefault) {
			if arch, ok := mambaPrefixCachingClass(a); ok {
				// vllm/model_executor/models/config.py:596-600 at
				// f9c74b4b9^ (the parent of PR #50991): prefix caching
				// turns mode "none" into "all" for these classes.
				return settingErr("enable-prefix-caching", "", "%s sets mamba_cache_mode \"all\" for %s (its vLLM class implements SupportsMambaPrefixCaching; vllm/model_executor/models/config.py:596-600, until PR #50991 made align the default for 0.28.0): every state layer then keeps cdiv(max_model_len, block_size) state pages a sequence, not align's 2, which membudget does not size", p.Describes, arch)
			}
		}
		r.PrefixCaching = true
	case engine.Off:
		r.PrefixCaching = false
	default:
		// enable_prefix_caching defaults to is_prefix_caching_supported
		// (vllm/engine/arg_utils.py:2685-2686): on for generative hybrids
		// at main, off for attention-free models (vllm/config/model.py:
		// 2080-2096); off for hybrids before statePrefixCachingDefault.
		r.PrefixCaching = hybrid && p.Release.AtLeast(statePrefixCachingDefault)
		if r.PrefixCaching {
			def("enable-prefix-caching", "on by default for hybrid models (vllm/config/model.py:2082-2084, since vLLM PR #50991)")
		} else {
			def("enable-prefix-caching", "off by default for this model under "+p.Describes)
		}
	}
	// MambaModelConfig.verify_and_update_config (vllm/model_executor/
	// models/config.py:589-637): prefix caching turns mode "none" into
	// "align", whose state blocks stand for block_size tokens; without it
	// a state block stands for the whole max_model_len.
	r.MambaCacheMode, r.StatePages = "none", 1
	if r.PrefixCaching {
		r.MambaCacheMode, r.StatePages = "align", 2
	}
	// Under speculative decoding every state layer's spec keeps
	// num_speculative_tokens blocks more a sequence in either mode
	// (MambaBase.get_kv_cache_spec sets num_speculative_blocks,
	// vllm/model_executor/layers/mamba/abstract.py:63-80;
	// MambaSpec.max_memory_usage_bytes, vllm/v1/kv_cache_interface.py:
	// 768-777, main d18bb7b).
	r.StatePages = budget.SatAdd(r.StatePages, r.Spec.Tokens)

	if err := r.resolveStateDtypes(a, def); err != nil {
		return err
	}
	page, err := statePageBytes(a, r)
	if err != nil {
		return err
	}
	r.StatePageBytes = page
	// Config verification sets mamba_block_size to the block size before
	// any backend sees it: the given one or CacheConfig's DEFAULT_BLOCK_SIZE
	// 16 (vllm/config/cache.py:257-270; vllm/model_executor/models/
	// config.py:626-629).
	r.UnraisedMambaBlock = r.Serve.BlockSize
	if r.UnraisedMambaBlock == 0 {
		r.UnraisedMambaBlock = 16
	}
	if hybrid {
		r.alignHybridBlock(a, def)
	}
	r.MambaBlockSize = r.MaxModelLen
	if r.MambaCacheMode == "align" {
		r.MambaBlockSize = r.BlockSize
	}
	return nil
}

// resolveStateDtypes resolves the conv and SSM state dtypes
// (vllm/model_executor/layers/mamba/mamba_utils.py:96-108): the conv state
// in --mamba-cache-dtype (auto: the model's dtype), the SSM state in
// --mamba-ssm-cache-dtype, or when that is auto in what the model's vLLM
// hook sets (Qwen3.5's mamba_ssm_dtype, Nemotron-H's mamba_ssm_cache_dtype
// or float32), else the conv state's.
func (r *Resolved) resolveStateDtypes(a *model.Arch, def func(string, string)) error {
	r.StateConvBytes = r.DtypeBytes
	if r.MambaCacheDtype != "auto" {
		r.StateConvBytes, _ = model.DtypeBytes(r.MambaCacheDtype)
	}
	r.StateSSMBytes = r.StateConvBytes
	if r.MambaSSMCacheDtype != "auto" {
		r.StateSSMBytes, _ = model.DtypeBytes(r.MambaSSMCacheDtype)
		return nil
	}
	hook := a.StateDtype
	why := "the config's SSM state dtype, as vLLM's hook for " + a.ModelType + " reads it (vllm/model_executor/models/config.py)"
	if hook == "" && slices.ContainsFunc(a.Architectures, func(s string) bool { return slices.Contains(nemotronHArchitectures, s) }) {
		hook = "float32"
		why = "vLLM's default for Nemotron-H (vllm/model_executor/models/config.py:640-676)"
	}
	if hook == "" || hook == "auto" {
		return nil
	}
	n, ok := model.DtypeBytes(hook)
	if !ok {
		return settingErr("mamba-ssm-cache-dtype", "auto", "the config of %s asks for an SSM state dtype %q vLLM does not take", a.Source, hook)
	}
	r.MambaSSMCacheDtype, r.StateSSMBytes = hook, n
	def("mamba-ssm-cache-dtype", why)
	return nil
}

// statePageBytes is one state layer's state for one sequence on one rank:
// MambaSpec's page_size_bytes, the sum of its conv and SSM states
// (vllm/model_executor/layers/mamba/mamba_utils.py:140-268): Mamba2 a conv
// state of (conv_kernel - 1) x (intermediate + 2 x n_groups' x state) / tp
// and an SSM state of heads / tp x head_dim x state, n_groups' raised to tp
// when tp does not divide it; Mamba1 (conv_kernel - 1) x intermediate / tp
// and intermediate / tp x state; a gated delta net (conv_kernel - 1) x
// (2 x key heads x key dim + value heads x value dim) / tp and value heads /
// tp x value dim x key dim. vLLM's divide() asserts every split is exact.
func statePageBytes(a *model.Arch, r *Resolved) (uint64, error) {
	tp := r.TensorParallelSize
	var mamba, delta bool
	for _, l := range a.Layers {
		mamba = mamba || l.Kind == model.Mamba || l.MambaBeside
		delta = delta || l.Kind == model.LinearAttention
	}
	split := func(what string, n uint64) (uint64, error) {
		if n%tp != 0 {
			return 0, settingErr("tensor-parallel-size", tp, "does not divide the %s (%d) of %s: vLLM's state shapes divide it exactly", what, n, a.Source)
		}
		return n / tp, nil
	}
	var conv, ssm uint64
	switch {
	case mamba && delta:
		return 0, settingErr("tensor-parallel-size", tp, "%s has both Mamba and gated-delta-net layers, which no vLLM model has", a.Source)
	case mamba && a.Mamba == nil, delta && a.DeltaNet == nil:
		return 0, settingErr("tensor-parallel-size", tp, "%s has state layers but no state shape", a.Source)
	case mamba && a.Mamba.Version == 1:
		m := a.Mamba
		dim, err := split("Mamba intermediate size", m.Intermediate)
		if err != nil {
			return 0, err
		}
		conv = budget.SatMul(m.ConvKernel-1, dim)
		ssm = budget.SatMul(dim, m.StateSize)
	case mamba:
		m := a.Mamba
		groups := m.NGroups
		if groups%tp != 0 {
			groups = tp // extra_groups_for_head_shards: tp - n_groups more
		}
		dim, err := split("Mamba conv dimension", budget.SatAdd(m.Intermediate, budget.SatMul(2*groups, m.StateSize)))
		if err != nil {
			return 0, err
		}
		heads, err := split("Mamba heads", m.NumHeads)
		if err != nil {
			return 0, err
		}
		conv = budget.SatMul(m.ConvKernel-1, dim)
		ssm = budget.SatMul(budget.SatMul(heads, m.HeadDim), m.StateSize)
	default:
		d := a.DeltaNet
		dim, err := split("gated-delta-net conv dimension", budget.SatAdd(budget.SatMul(2*d.NumKeyHeads, d.KeyHeadDim), budget.SatMul(d.NumValueHeads, d.ValueHeadDim)))
		if err != nil {
			return 0, err
		}
		heads, err := split("gated-delta-net value heads", d.NumValueHeads)
		if err != nil {
			return 0, err
		}
		// Under speculative decoding the conv state keeps
		// num_speculative_tokens columns more (gated_delta_net_state_shape:
		// conv_kernel_size - 1 + num_spec, vllm/model_executor/layers/
		// mamba/mamba_utils.py:247-268; Qwen3.5 passes the draft's k,
		// qwen3_5.py:390-405 and gdn/qwen_gdn_linear_attn.py:343-357, main
		// d18bb7b).
		conv = budget.SatMul(budget.SatAdd(d.ConvKernel-1, r.Spec.Tokens), dim)
		ssm = budget.SatMul(budget.SatMul(heads, d.ValueHeadDim), d.KeyHeadDim)
	}
	return budget.SatAdd(budget.SatMul(conv, r.StateConvBytes), budget.SatMul(ssm, r.StateSSMBytes)), nil
}

// attentionTokenBytes is the bytes one token of one attention layer keeps
// on a rank, from the model-level head geometry: what vLLM's hybrid
// alignment measures the state against (vllm/platforms/interface.py:
// 797-849, a FullAttentionSpec or MLAAttentionSpec of block_size 1).
func attentionTokenBytes(a *model.Arch, r *Resolved) uint64 {
	if a.MLA {
		return budget.SatMul(a.KVLoraRank+a.QKRopeHeadDim, r.KVDtypeBytes)
	}
	return budget.SatMul(2*model.KVHeadsPerRank(a, r.TensorParallelSize)*a.HeadDim, r.KVDtypeBytes)
}

// alignHybridBlock raises the attention block size of a hybrid until one
// attention page holds a state page, and pads the state page to the
// attention page (vllm/platforms/interface.py:762-938): the alignment K is
// the larger of the backend's smallest kernel block (16) and the block
// size, at least 128 for MLA; the block becomes K x cdiv(M, K x a1) when
// that is larger, whatever --block-size said. Before 0.19.0 the alignment
// was 16 (64 for MLA) and ignored --block-size (PR #37467).
func (r *Resolved) alignHybridBlock(a *model.Arch, def func(string, string)) {
	a1 := attentionTokenBytes(a, r)
	if a1 == 0 || r.StatePageBytes == 0 {
		return
	}
	k := uint64(swKernelBlock)
	switch {
	case r.Profile.Release.Less(stateBlockRefusal) && a.MLA:
		k = 64
	case r.Profile.Release.Less(stateBlockRefusal):
	case a.MLA:
		k = max(r.BlockSize, 128)
	default:
		k = max(k, r.BlockSize)
	}
	if block := budget.SatMul(k, budget.CeilDiv(r.StatePageBytes, budget.SatMul(k, a1))); r.BlockSize < block {
		r.Sources.Set("block-size", fmt.Sprintf("%d: raised from %d so that one attention page (%d B a token) holds a %d B state page (vLLM: \"Setting attention block size to %d tokens\", vllm/platforms/interface.py:907-913)",
			block, r.BlockSize, a1, r.StatePageBytes, block))
		r.BlockSize = block
	}
	if page := budget.SatMul(r.BlockSize, a1); page != r.StatePageBytes {
		r.StatePagePadded = page
	}
}

// statePoolPage is the state layers' page in the block pool: the state,
// padded to the attention page in a hybrid.
func (r *Resolved) statePoolPage() uint64 {
	if r.StatePagePadded > 0 {
		return r.StatePagePadded
	}
	return r.StatePageBytes
}

// StateBlockCheck says the serve's vLLM refuses to start when max_num_seqs
// exceeds the KV blocks: the model has state layers and vLLM captures full
// CUDA graphs, whose decode batches need one state block per sequence
// (vllm/config/compilation.py:1491-1513, from 0.19.0, PR #38270). The
// default compilation mode captures full and piecewise graphs;
// --enforce-eager, PIECEWISE and NONE capture no full decode graph
// (cudagraph_mode.decode_mode() == FULL, vllm/config/compilation.py:1484).
func (r Resolved) StateBlockCheck() bool {
	return r.MambaCacheMode != "" && r.Graphs.FullDecode() && !r.Graphs.None() && r.Profile.Release.AtLeast(stateBlockRefusal)
}

// StateBlocksMessage is vLLM's error when max_num_seqs exceeds the blocks
// of a serve with state layers (vllm/config/compilation.py:1505-1512).
func StateBlocksMessage(maxNumSeqs, blocks uint64) string {
	return fmt.Sprintf("max_num_seqs (%d) exceeds available Mamba cache blocks (%d). Each decode sequence requires one Mamba cache block, so CUDA graph capture cannot proceed. Please lower max_num_seqs to at most %d or increase gpu_memory_utilization.",
		maxNumSeqs, blocks, blocks)
}

// onV2Runner is [Profile.V2Runner] for the resolved serve: its profile (which
// speculative decoding may have moved to the V1 runner) with a's state
// layers as Resolve counted them once, since every stage's items ask. The
// pooling runner stays on V1 up to main d18bb7b: the oracle asks
// runner_type == "generate" first (_is_default_v2_model_runner_model,
// vllm/config/vllm.py:671-692, so since #39337); PR #48290, which puts
// pooling models on V2, merged after it, and 0.29.0 is sized as the V2
// runner for every model.
func (r *Resolved) onV2Runner(a *model.Arch) bool {
	if r.Runner == runnerPooling && !r.Profile.V2EveryModel {
		return false
	}
	if r.stateLayersPlus1 == 0 {
		// A Resolved not made by Resolve: nothing counted, nothing kept.
		return r.Profile.V2Runner(a)
	}
	return r.Profile.v2RunnerBy(func() bool { return r.v2Model })
}
