package sglang

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine/torchalloc"
	"membudget/model"
)

// SGLang's Mamba state pool for a gated-delta-net hybrid (Qwen3-Next), as
// v0.5.14 (tag 49e384c) sizes it. Every citation in this file is at that
// tag, under python/sglang/srt/.
//
// Step by step: the rest (F1 - F0 x (1 - msf), in GiB) is split before the
// KV pool is sized (model_executor/model_runner_kv_cache_mixin.py:85-120):
// handle_max_mamba_cache (:122-224) gives the Mamba pool
// max_mamba_cache_size = int(rest x r / (1 + r) x 2^30 // per_req) slots,
// r = --mamba-full-memory-ratio (0.9, server_args.py:1727-1730), and
// returns the rest less max_mamba_cache_size x per_req; the KV pool's
// tokens are what that holds of the full-attention layers' cell
// (pool_configurator.py:115-127: only full_attention_layer_ids count).
// The scheduler's max_num_reqs is then capped at max_mamba_cache_size //
// ratio (:981-1018), the ratio 3 plus the extra buffer's ping-pong slots
// (_calculate_mamba_ratio, :274-293). MambaPool allocates size + 1 slots
// (mem_cache/memory_pool.py:351-386), the one beyond the charged size a
// padding slot; HybridReqToTokenPool adds an int32 request-to-slot map
// and, with the extra buffer, an int64 ping-pong table per request row
// (memory_pool.py:737-751), and MambaSlotAllocator an int64 free list of
// size slots (mem_cache/allocator/mamba.py:86-90).
//
// v0.5.15, v0.5.15.post1 and v0.5.16 keep every one of these rules (see
// [gdnReleases]); the one difference is a buffer of the linear-attention
// backend's graph state ([Profile.GDNTrackIndicesBuf]). v0.5.17 charges
// the padding slot to the rest (see [gdnPaddingCharged]); v0.5.18 keeps
// v0.5.17's rules and splits a rest less the multimodal reservation (see
// [gdnReleases]).

// mambaRatio is MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO, the Mamba
// slots a running request may need with the radix cache on
// (model_runner_kv_cache_mixin.py:54-55).
const mambaRatio = 3

// mambaFullMemoryRatio is --mamba-full-memory-ratio's default, the Mamba
// pool's share of the rest against the KV pool's (server_args.py:1727-1730).
const mambaFullMemoryRatio = 0.9

// mambaPool is a hybrid serve's Mamba state pool (see the file comment).
type mambaPool struct {
	// Layers is the linear-attention layers, whose state every slot keeps.
	Layers uint64
	// ConvElems is one layer's convolution state per slot on one rank:
	// conv_dim / tp x (conv_kernel - 1), conv_dim = value heads x value
	// head dim + 2 x key groups x key head dim (configs/mamba_utils.py:
	// 163-199, called by configs/qwen3_next.py:287-306), in ConvBytes
	// elements (bfloat16: SGLANG_MAMBA_CONV_DTYPE, environ.py:678).
	ConvElems, ConvBytes uint64
	// SSMElems is one layer's temporal state per slot on one rank: value
	// heads / tp x value head dim x key head dim, in SSMBytes elements
	// (float32 unless the config's mamba_ssm_dtype says otherwise:
	// mamba_utils.py:46-106).
	SSMElems, SSMBytes uint64
	// Ratio is _calculate_mamba_ratio: 1 with the radix cache off, else 3
	// plus the extra buffer's slots (2 with the overlap schedule, 1
	// without).
	Ratio uint64
	// ExtraBuffer is the extra_buffer strategy the radix cache chooses by
	// default (see [resolveMamba]); PingPong is its track buffers per
	// request row (memory_pool.py:673: 2 with the overlap schedule).
	ExtraBuffer bool
	PingPong    uint64
	// FromRequests says --disable-radix-cache with --max-running-requests
	// sizes the pool: max_mamba_cache_size = max_running_requests
	// (:152-158), not the ratio's share.
	FromRequests bool
	// GivenSize is --max-mamba-cache-size, which sizes the pool before
	// either (:132-136); 0 when not given.
	GivenSize uint64
	// FullRatio is --mamba-full-memory-ratio: the pool's share of the rest
	// is FullRatio / (1 + FullRatio).
	FullRatio float64
	// PaddingCharged says the padding slot is charged to the rest with
	// the others, and the ratio's share holds it (see [gdnPaddingCharged]).
	PaddingCharged bool
}

// PerReq is mamba_cache_per_req: every linear-attention layer's
// convolution and temporal state of one slot (mamba_utils.py:121-133).
func (m *mambaPool) PerReq() uint64 {
	per := budget.SatAdd(budget.SatMul(m.ConvElems, m.ConvBytes), budget.SatMul(m.SSMElems, m.SSMBytes))
	return budget.SatMul(per, m.Layers)
}

// gdnArchs are the gated-delta-net hybrids whose Mamba pool is modelled:
// Qwen3-Next's model file (models/qwen3_next.py) and config
// (configs/qwen3_next.py) read at v0.5.14, and Qwen3.5's dense one
// (models/qwen3_5.py:1582-1733: Qwen3-VL's model with Qwen3_5ForCausalLM
// as its language model, the mtp weights skipped, :1658; its text config
// a Qwen3NextConfig, configs/qwen3_5.py:15-35, whose layers_block_type
// takes every full_attention_interval-th layer as full attention,
// configs/qwen3_next.py:258-268, and which model_runner.py:2249-2261
// returns as the hybrid GDN config), and Qwen3.5-MoE's (:1734-1792, the
// same with Qwen3_5MoeForCausalLM, :1372, whose sparse layers are
// Qwen2MoeSparseMoeBlock as Qwen3-Next's; its shared-expert fusion only
// under aiter, which AMD's refusal leaves out).
var gdnArchs = []string{"Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"}

// gdnReleases are the releases whose Mamba pool is read: v0.5.14 (the
// file comment), and v0.5.15 (f63458b), v0.5.15.post1 (0b3bb0c) and v0.5.16
// (fdebc93) compared with it (docs/sglang.md, "the Mamba pool from v0.5.15
// on"). v0.5.15 leaves handle_max_mamba_cache, _calculate_mamba_ratio,
// _resolve_max_num_reqs and _profile_available_bytes' hybrid step as they
// were (model_runner_kv_cache_mixin.py:104-140, 141-243, 293-312,
// 1225-1262), the hybrid cell (pool_configurator.py:115-127, whose new
// finalize_with_max_running_requests is the identity there, :112-115),
// MambaPool's default tensors and HybridReqToTokenPool's tables
// (mem_cache/memory_pool.py:354-448, 816-930), the slot's shapes and
// dtypes (configs/mamba_utils.py: ReplaySSM fields only), the radix
// cache's strategy (moved to arg_groups/overrides.py:
// _mamba_radix_cache_resolution, :1007-1044, the same choice) and the
// flags' defaults (server_args.py:1900-1940); v0.5.15.post1 changes none of
// these files but one line of server_args.py (:4807, not these rules);
// v0.5.16 moves the split into KVCacheConfigurator
// (mem_cache/kv_cache_configurator.py:1527-1570, 1572-1591, 1622-1659,
// 1703-1815), the same values without DP attention. Each new path is
// behind a flag membudget refuses (--enable-unified-memory,
// --enable-page-major-kv-layout, --enable-linear-replayssm,
// --enable-gdn-replayssm-spec, --enable-int8-mamba-checkpoint) or an
// environment variable it does not read (the post-capture sizing,
// SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, off by default). v0.5.17
// (2948168) against v0.5.16, at PP 1 without speculative decoding: the
// split's one change is the padding slot (see [gdnPaddingCharged]);
// _profile_available_bytes (kv_cache_configurator.py:1614-1657) and
// resolve_max_num_reqs (:1719-1772) are v0.5.16's but for a warning;
// _calculate_mamba_ratio (:1659-1688) is v0.5.16's while
// SGLANG_OPT_MAMBA_SKIP_DECODE_LOCK keeps its default, off
// (environ.py:982; on, the extra buffer's ratio drops by 1, no_buffer's
// stays 3: not read, a launch under it is sized at the default); the
// per-stage share of #33666 (:1821-1840) is the whole slot at PP 1; the
// hybrid cell (model_executor/pool_configurator.py, a change for PP
// stages without a full-attention layer only), MambaPool's default
// tensors of size + 1 slots (memory_pool.py:540-568) and the tables
// (:1170, 1242-1252; allocator/mamba.py unchanged), the slot
// (configs/mamba_utils.py: ReplaySSM's ring size and PD transfer fields
// only), the radix cache's strategy (arg_groups/overrides.py:1453-1503,
// the same choice) and the graph buffers (hybrid_linear_attn_backend.py:
// 408-480, the same tensors) are v0.5.16's; ReplaySSM's rings are charged
// only under --enable-linear-replayssm-spec (refused). v0.5.18 (71de97b)
// against v0.5.17, at PP 1 without speculative decoding:
// _handle_max_mamba_cache (kv_cache_configurator.py:1970-2136) is
// v0.5.17's but for settings read through runtime_context accessors; the
// one change around it is the rest it splits, less mm_runtime_reservation_gb
// (:1785-1791, :130-147) for a multimodal model, Qwen3.5's two
// (configs/model_config.py:1864-1865; see [mmReserveBytes]), before the
// split, so the share is of the smaller rest; _calculate_mamba_ratio
// (:1813-1842) and resolve_max_num_reqs (:1873-1925) are v0.5.17's, the
// ratio's environment default the same (environ.py:1183); the hybrid cell
// (model_executor/pool_configurator.py:148-158, get_num_kv_heads over
// --dcp-size, 1), MambaPool's default tensors (memory_pool.py:546-576),
// HybridReqToTokenPool's tables (:1187, 1258-1270), the slot
// (configs/mamba_utils.py, configs/qwen3_next.py, allocator/mamba.py
// unchanged), the radix cache's strategy and the SM10x overrides
// (arg_groups/overrides.py:1541-1591, 1312-1343, the same functions), the
// flags' defaults (server_args.py:2533-2626) and the graph buffers
// (hybrid_linear_attn_backend.py:415-470) are v0.5.17's. Later releases
// are not read: a profile derived from v0.5.18 stays refused.
var gdnReleases = []string{"v0.5.14", "v0.5.15", "v0.5.15.post1", "v0.5.16", "v0.5.17", "v0.5.18"}

// gdnPaddingCharged are the releases of [gdnReleases] that charge
// MambaPool's padding slot to the rest: v0.5.17's _handle_max_mamba_cache
// solves the ratio's share for (budget - per_slot) // per_slot slots
// (mem_cache/kv_cache_configurator.py:1950-1956) and takes (size + 1) x
// per_req out of the rest whichever way the size was set (:1977-1982),
// where v0.5.14 to v0.5.16 take floor(budget / per_req) slots and size x
// per_req, the padding slot beside the budget. v0.5.18 keeps it
// (kv_cache_configurator.py:2100-2108, 2128-2136).
var gdnPaddingCharged = []string{"v0.5.17", "v0.5.18"}

// gdnRelease says p's Mamba pool is read (see [gdnReleases]).
func gdnRelease(p Profile) bool {
	return slices.Contains(gdnReleases, p.Name)
}

// gdnRead says arch is a hybrid whose model file was read for p's
// release, though the profile lists it as not read (v0.5.14 to v0.5.18
// keep Qwen3.5 in new059's list; see [gdnModelled]). v0.5.15 to v0.5.18
// change Qwen3.5's and Qwen3-Next's model files in kernels and flag
// lookups, not in their weights or layers (models/qwen3_5.py: a fused
// QK-norm-RoPE-gate kernel, the shared-expert fusion's switch through
// declare_load_time_override; v0.5.16: the gated norm's dtype the default
// one, the MLP's all-reduce flags through get_forward().scoped; v0.5.17:
// kernel import paths, an aiter-only fused all-reduce quant path (AMD,
// refused), and the linear-attention and attention projections quantized
// under modelopt_fp4 too (ModelOpt refused at these releases); v0.5.18:
// the key and value heads over --dcp-size (refused, 1), an aiter-only
// fused split kernel, no vision tower under language_model_only (the
// flag refused), and the ROCm-only shared-expert fusion switch through
// shared_experts_fusion_disable_reason, models/qwen3_5.py:2332-2364).
func gdnRead(arch string, p Profile) bool {
	return gdnRelease(p) && slices.Contains(gdnArchs, arch)
}

// gdnModelled says the Mamba pool of a is modelled under p: a Qwen3-Next
// hybrid of full-attention and gated-delta-net layers under one of
// [gdnReleases].
func gdnModelled(a *model.Arch, p Profile) bool {
	if !gdnRelease(p) || a.DeltaNet == nil || a.Mamba != nil {
		return false
	}
	if !archIn(a, gdnArchs) {
		return false
	}
	for _, l := range a.Layers {
		if l.MambaBeside || l.Kind != model.FullAttention && l.Kind != model.LinearAttention {
			return false
		}
	}
	return everyNthFull(a.Layers)
}

// everyNthFull says the full-attention layers are every n-th, n the first
// one's index + 1: SGLang takes its layer kinds from full_attention_interval
// alone (configs/qwen3_next.py:258-268, which Qwen3.5's text config
// inherits), not from a layer_types list, so a model whose list says
// otherwise is not sized as SGLang would lay it out.
func everyNthFull(layers []model.Layer) bool {
	n := slices.IndexFunc(layers, func(l model.Layer) bool { return l.Kind == model.FullAttention }) + 1
	if n == 0 {
		return false
	}
	for i, l := range layers {
		if (l.Kind == model.FullAttention) != ((i+1)%n == 0) {
			return false
		}
	}
	return true
}

// fullAttentionLayers counts the layers of [first, end) that keep a KV
// cache: every one but the linear-attention layers of a hybrid.
func fullAttentionLayers(a *model.Arch, first, end int) uint64 {
	var n uint64
	for l := first; l < end; l++ {
		if a.Layers[l].Kind != model.LinearAttention {
			n++
		}
	}
	return n
}

// resolveMamba sets [Resolved.Mamba] for a hybrid the pool is modelled
// for, and refuses by name what of SGLang's Mamba handling is not read.
func (r *Resolved) resolveMamba(a *model.Arch, c budget.Class) error {
	if err := r.checkMambaFlags(); err != nil {
		return err
	}
	if !gdnModelled(a, r.Profile) {
		// Without a Mamba pool the flags allocate nothing
		// (handle_max_mamba_cache runs only for a hybrid,
		// model_runner_kv_cache_mixin.py:99-100).
		return nil
	}
	si := c.Device.Silicon
	switch {
	case si.Vendor != budget.NVIDIA:
		// The extra buffer the radix cache takes by default asserts CUDA
		// (server_args.py:4364-4369); other platforms' paths are not read.
		return settingErr("model", a.Source, "a Mamba hybrid (%v) on %s is not modelled: %s's Mamba pool is read for NVIDIA GPUs only (its default extra buffer asserts CUDA, server_args.py:4364-4369 at v0.5.14; v0.5.16 also allows ROCm, whose path is not read)", a.Architectures, c.Device.Name, r.Profile.Describes)
	case si.Major == 10:
		// is_sm100_supported: the default attention backend may become
		// trtllm_mha with 64-token pages (server_args.py:4187-4210).
		return settingErr("model", a.Source, "a Mamba hybrid (%v) on %s (SM10x) is not modelled: %s picks its attention backend and page size there (trtllm_mha, page 64: server_args.py:4187-4210 at v0.5.14, arg_groups/overrides.py:_qwen3_5_hybrid_overrides from v0.5.15), which is not", a.Architectures, c.Device.Name, r.Profile.Describes)
	case r.PPSize > 1:
		// Each stage's Mamba pool is sized from the whole model's layers
		// to v0.5.16; v0.5.17 charges the largest stage's share (#33666,
		// kv_cache_configurator.py:1821-1840): neither is modelled.
		return settingErr("pp-size", fmt.Sprint(r.PPSize), "pipeline parallelism with a Mamba hybrid (%v) is not modelled: %s's Mamba pool per stage (mamba_layer_ids of the stage, max_mamba_cache_size from the whole rest or, from v0.5.17, the largest stage's share) is not read", a.Architectures, r.Profile.Describes)
	case r.Spec.Algorithm != "":
		// handle_max_mamba_cache reserves intermediate SSM and conv states
		// per draft token (:137-151, 186-199; memory_pool.py:388-495).
		return settingErr("speculative-algorithm", r.Spec.Algorithm, "speculative decoding with a Mamba hybrid (%v) is not modelled: the Mamba pool's intermediate states per draft token (model_runner_kv_cache_mixin.py:137-199, mem_cache/memory_pool.py:388-495 at v0.5.14) are not", a.Architectures)
	}
	// DP attention, whose split of the Mamba pool over the DP ranks
	// (model_runner_kv_cache_mixin.py:132-158) is not read either, never
	// gets here: resolveParallel refuses it for every model.
	d := a.DeltaNet
	tp := r.TPSize
	groups := d.NumKeyHeads
	if groups%tp != 0 {
		// extra_groups_for_head_shards adds tp - groups (mamba_utils.py:
		// 29-38, 177-180).
		groups = tp
	}
	convDim := d.NumValueHeads*d.ValueHeadDim + 2*groups*d.KeyHeadDim
	if convDim%tp != 0 || d.NumValueHeads%tp != 0 {
		// divide() asserts divisibility (distributed/utils.py).
		return settingErr("tp-size", fmt.Sprint(tp), "the gated delta net's %d value heads and %d conv channels do not divide over %d ranks: SGLang's Mamba state shape asserts they do (configs/mamba_utils.py:186-195 at v0.5.14)", d.NumValueHeads, convDim, tp)
	}
	m := &mambaPool{
		Layers:    uint64(len(a.Layers)) - fullAttentionLayers(a, 0, len(a.Layers)),
		ConvElems: convDim / tp * (d.ConvKernel - 1), ConvBytes: 2,
		SSMElems: d.NumValueHeads / tp * d.ValueHeadDim * d.KeyHeadDim, SSMBytes: 4,
	}
	if m.Layers == 0 {
		// full_attention_interval 1: a slot of 0 B, which the ratio's
		// split asserts against (model_runner_kv_cache_mixin.py:169) and
		// a given size would leave a pool of no state; neither is read.
		return settingErr("model", a.Source, "a Mamba hybrid (%v) with no linear-attention layer (every layer full attention) is not modelled: its Mamba slot would hold 0 B, which SGLang v0.5.14 asserts against (model_runner_kv_cache_mixin.py:169)", a.Architectures)
	}
	m.FullRatio, m.GivenSize = mambaFullMemoryRatio, r.MaxMambaCacheSize
	m.PaddingCharged = slices.Contains(gdnPaddingCharged, r.Profile.Name)
	if r.MambaFullMemoryRatio > 0 {
		m.FullRatio = r.MambaFullMemoryRatio
	}
	switch a.StateDtype {
	case "", "float32":
	case "bfloat16", "float16":
		m.SSMBytes = 2
	default:
		if r.MambaSSMDtype == "" {
			return settingErr("model", a.Source, "mamba_ssm_dtype %q is none of float32, bfloat16, float16 (configs/mamba_utils.py:66-101 at v0.5.14 warns and takes float32); not modelled", a.StateDtype)
		}
	}
	if r.MambaSSMDtype != "" {
		// --mamba-ssm-dtype sets SGLANG_MAMBA_SSM_DTYPE
		// (server_args.py:5890-5891), which wins over the config
		// (mamba_utils.py:95-104).
		m.SSMBytes = 4
		if r.MambaSSMDtype != "float32" {
			m.SSMBytes = 2
		}
	}
	// The radix cache is on by default, and the overlap schedule: its
	// "auto" strategy takes extra_buffer for Qwen3-Next with the triton
	// linear-attention backend (server_args.py:4338-4398, 4183-4212,
	// 1750-1756), whose ping-pong buffers add 2 slots to the ratio with the
	// overlap schedule and 1 without (model_runner_kv_cache_mixin.py:
	// 274-293, 56-58).
	strategy := r.MambaRadixCacheStrategy
	if strategy == "" || strategy == "auto" {
		// "auto" wants the extra buffer with the overlap schedule or pages
		// above 1 token (server_args.py:4385-4393).
		strategy = "no_buffer"
		if !r.DisableOverlapSchedule || r.PageSize > 1 {
			strategy = "extra_buffer"
		}
	}
	switch {
	case r.DisableRadixCache:
		// _handle_mamba_radix_cache returns at once (:4381-4382), and no
		// strategy applies (enable_mamba_extra_buffer, :6585-6589).
		m.Ratio = 1
		m.FromRequests = r.MaxRunningRequests > 0
	case strategy == "no_buffer":
		// _validate_mamba_no_buffer (:4355-4362) asserts page 1 and the
		// overlap schedule off.
		if r.PageSize > 1 {
			return settingErr("mamba-radix-cache-strategy", "no_buffer", "SGLang asserts the no_buffer strategy runs at --page-size 1 (server_args.py:4356 at v0.5.14), not %d", r.PageSize)
		}
		if !r.DisableOverlapSchedule {
			return settingErr("mamba-radix-cache-strategy", "no_buffer", "SGLang asserts the no_buffer strategy runs with --disable-overlap-schedule (server_args.py:4357-4359 at v0.5.14)")
		}
		m.Ratio = mambaRatio
	case strategy == "extra_buffer_lazy":
		if r.DisableOverlapSchedule {
			return settingErr("mamba-radix-cache-strategy", "extra_buffer_lazy", "SGLang asserts the lazy extra buffer runs with the overlap schedule, not --disable-overlap-schedule (model_runner_kv_cache_mixin.py:288-290 at v0.5.14)")
		}
		m.ExtraBuffer, m.Ratio, m.PingPong = true, mambaRatio+1, 2
	case r.DisableOverlapSchedule:
		m.ExtraBuffer, m.Ratio, m.PingPong = true, mambaRatio+1, 1
	default:
		m.ExtraBuffer, m.Ratio, m.PingPong = true, mambaRatio+2, 2
	}
	if m.ExtraBuffer && r.PageSize > 1 && mambaTrackInterval%r.PageSize != 0 {
		return settingErr("page-size", fmt.Sprint(r.PageSize), "SGLang asserts --mamba-track-interval (%d) is a multiple of the page size with the Mamba extra buffer (server_args.py:4376-4377 at v0.5.14)", mambaTrackInterval)
	}
	r.Mamba = m
	return nil
}

// mambaTrackInterval is --mamba-track-interval's default
// (server_args.py:1738-1741).
const mambaTrackInterval = 256

// mambaSplit is handle_max_mamba_cache on rest GiB: the pool's slots, and
// the rest left for the KV pool, as SGLang computes them in float64
// (model_runner_kv_cache_mixin.py:122-224). With m.PaddingCharged
// (v0.5.17) the share is solved for the slots and the padding slot, and
// the rest loses size + 1 slots (kv_cache_configurator.py:1950-1956,
// 1977-1982).
func mambaSplit(m *mambaPool, rest float64, maxRunning uint64) (size int64, left float64) {
	per := float64(m.PerReq())
	switch {
	case m.GivenSize > 0:
		size = int64(min(m.GivenSize, math.MaxInt64))
	case m.FromRequests:
		size = int64(maxRunning)
	default:
		b := rest * m.FullRatio / (1 + m.FullRatio) * gib
		if m.PaddingCharged {
			b -= per
		}
		size = int64(math.Floor(b / per))
	}
	charged := float64(size)
	if m.PaddingCharged {
		charged++
	}
	return size, rest - charged*per/gib
}

// mambaFailure is SGLang's error when the Mamba pool gets no slot
// (:203-217), "" otherwise.
func mambaFailure(m *mambaPool, size int64, rest float64) string {
	if size > 0 {
		return ""
	}
	return fmt.Sprintf("Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed max_mamba_cache_size=%d (total_rest_memory=%.2f GB, mamba_cache_per_req=%.2f MB).", size, rest, float64(m.PerReq())/(1<<20))
}

// tensorBytes is the pool's two tensors, the convolution and the temporal
// state: every linear-attention layer's state of size + 1 slots
// (memory_pool.py:351-386).
func (m *mambaPool) tensorBytes(size int64) (conv, ssm uint64) {
	slots := uint64(max(size, 0)) + 1
	conv = budget.SatMul(budget.SatMul(m.Layers, slots), budget.SatMul(m.ConvElems, m.ConvBytes))
	ssm = budget.SatMul(budget.SatMul(m.Layers, slots), budget.SatMul(m.SSMElems, m.SSMBytes))
	return conv, ssm
}

// tables is what the Mamba pool's bookkeeping allocates on the device
// beside the budget for reqRows request rows and size slots, a tensor
// each: the int32 request-to-slot map (memory_pool.py:737-740), the slot
// allocator's int64 free list (mem_cache/allocator/mamba.py:86-90) and
// the extra buffer's int64 ping-pong table (memory_pool.py:741-748).
func (m *mambaPool) tables(reqRows uint64, size int64) []uint64 {
	t := []uint64{budget.SatMul(reqRows, 4), budget.SatMul(uint64(max(size, 0)), 8)}
	if m.ExtraBuffer {
		t = append(t, budget.SatMul(budget.SatMul(reqRows, m.PingPong), 8))
	}
	return t
}

// mambaBytes is the Mamba pool's charge on the budget: max_mamba_cache_size
// x mamba_cache_per_req, which handle_max_mamba_cache takes from the rest
// (:219-224), the padding slot too where m.PaddingCharged (v0.5.17,
// kv_cache_configurator.py:1977-1982); 0 for any other model.
func (ref *Reference) mambaBytes() uint64 {
	m := ref.Serve.Mamba
	if m == nil || ref.mambaSize <= 0 {
		return 0
	}
	slots := uint64(ref.mambaSize)
	if m.PaddingCharged {
		slots = budget.SatAdd(slots, 1)
	}
	return budget.SatMul(slots, m.PerReq())
}

// mambaBeside is what a hybrid's Mamba pool allocates on stage i beyond
// its charge: the padding slot (one slot of every layer's state) unless
// it is charged (v0.5.17), and the bookkeeping tables; none when SGLang
// does not get as far as the pools.
func (ref *Reference) mambaBeside(i int) []budget.Item {
	m, st := ref.Serve.Mamba, &ref.stages[i]
	if m == nil || ref.mambaSize <= 0 || st.tokens <= 0 {
		return nil
	}
	var items []budget.Item
	if !m.PaddingCharged {
		items = append(items, budget.Item{Name: "mamba_pool.padding_slot", Term: budget.TermNonTorch, Bytes: m.PerReq()})
	}
	tables := budget.Item{Name: "mamba_pool.tables", Term: budget.TermNonTorch}
	for _, b := range m.tables(reqToTokenRows(st.maxNumReqs, ref.Serve.Profile), ref.mambaSize) {
		tables.Bytes = budget.SatAdd(tables.Bytes, b)
	}
	items = append(items, tables)
	if bs := ref.largestGraph(i); bs > 0 {
		items = append(items, budget.Item{Name: "gdn_graph_metadata", Term: budget.TermGraphPool, Bytes: gdnGraphMetadata(bs, ref.Serve.Profile.GDNTrackIndicesBuf)})
	}
	return items
}

// addMambaPools adds stage i's Mamba tensors to the caching allocator's
// pools: the convolution and the temporal state (one tensor each over
// every layer, memory_pool.py:351-386) and the tables' three.
func (ref *Reference) addMambaPools(p torchalloc.Pools, i int) torchalloc.Pools {
	m, st := ref.Serve.Mamba, &ref.stages[i]
	if m == nil || ref.mambaSize <= 0 || st.tokens <= 0 {
		return p
	}
	conv, ssm := m.tensorBytes(ref.mambaSize)
	p = p.Add(conv, 1).Add(ssm, 1)
	for _, b := range m.tables(reqToTokenRows(st.maxNumReqs, ref.Serve.Profile), ref.mambaSize) {
		p = p.Add(b, 1)
	}
	return p
}

// mambaStrategies are --mamba-radix-cache-strategy's choices
// (MAMBA_RADIX_CACHE_STRATEGY_CHOICES, server_args.py:307-312), and
// mambaDtypes --mamba-ssm-dtype's (:1720-1726).
var (
	mambaStrategies = []string{"auto", "no_buffer", "extra_buffer", "extra_buffer_lazy"}
	mambaDtypes     = []string{"float32", "bfloat16", "float16"}
)

// registerMamba registers the Mamba pool's flags read at v0.5.14 to
// v0.5.18 (the same choices and defaults: server_args.py:1717-1741 at
// v0.5.14, :1897-1940 at v0.5.15, :2096-2142 at v0.5.16, :2461-2518 at
// v0.5.17, :2533-2590 at v0.5.18).
func (f *flagServe) registerMamba(fs *flag.FlagSet) {
	// A number above 0, as argparse's type=float reads it: SGLang checks
	// no range, and 0 or less gives the pool no slot.
	fs.Var(&floatFlag{v: &f.s.MambaFullMemoryRatio, why: "the Mamba pool takes ratio / (1 + ratio) of the rest"}, "mamba-full-memory-ratio", "SGLang's --mamba-full-memory-ratio (v0.5.14 to v0.5.18): a Mamba hybrid's pool takes ratio / (1 + ratio) of the rest (default 0.9)")
	fs.Var(&countFlag{v: &f.s.MaxMambaCacheSize, name: "max-mamba-cache-size"}, "max-mamba-cache-size", "SGLang's --max-mamba-cache-size (v0.5.14 to v0.5.18): a Mamba hybrid's pool slots, in place of the ratio's share")
	fs.Var(&choiceFlag{v: &f.s.MambaSSMDtype, choices: mambaDtypes}, "mamba-ssm-dtype", "SGLang's --mamba-ssm-dtype (v0.5.14 to v0.5.18): the temporal state's dtype (default: the config's mamba_ssm_dtype, else float32)")
	fs.Var(&choiceFlag{v: &f.s.MambaRadixCacheStrategy, choices: mambaStrategies}, "mamba-radix-cache-strategy", "SGLang's --mamba-radix-cache-strategy (v0.5.14 to v0.5.18): the Mamba slots a request may need beside its own (default auto)")
}

// checkMambaFlags refuses the Mamba flags outside [gdnReleases], by name,
// whatever the model.
func (r *Resolved) checkMambaFlags() error {
	// A library caller's or a log's values, which the flags' own Set
	// checks on the command line.
	if r.MambaSSMDtype != "" && !slices.Contains(mambaDtypes, r.MambaSSMDtype) {
		return settingErr("mamba-ssm-dtype", r.MambaSSMDtype, "want one of %s", strings.Join(mambaDtypes, ", "))
	}
	if r.MambaRadixCacheStrategy != "" && !slices.Contains(mambaStrategies, r.MambaRadixCacheStrategy) {
		return settingErr("mamba-radix-cache-strategy", r.MambaRadixCacheStrategy, "want one of %s", strings.Join(mambaStrategies, ", "))
	}
	if v := r.MambaFullMemoryRatio; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		// 0 is not given; SGLang fails on the rest (a pool of no slot, a
		// negative share, a NaN), where membudget would take 0.9.
		return settingErr("mamba-full-memory-ratio", strconv.FormatFloat(v, 'g', -1, 64), "want a number above 0: the Mamba pool takes ratio / (1 + ratio) of the rest")
	}
	if gdnRelease(r.Profile) {
		return nil
	}
	for _, g := range []struct {
		flag, value string
		given       bool
	}{
		{"mamba-full-memory-ratio", fmt.Sprint(r.MambaFullMemoryRatio), r.MambaFullMemoryRatio > 0},
		{"max-mamba-cache-size", fmt.Sprint(r.MaxMambaCacheSize), r.MaxMambaCacheSize > 0},
		{"mamba-ssm-dtype", r.MambaSSMDtype, r.MambaSSMDtype != ""},
		{"mamba-radix-cache-strategy", r.MambaRadixCacheStrategy, r.MambaRadixCacheStrategy != ""},
	} {
		if g.given {
			return settingErr(g.flag, g.value, "the Mamba state pool is read for SGLang %s only, not for %s", gdnReleaseList(), r.Profile.Describes)
		}
	}
	return nil
}

// mambaLine is, for the serve's launch line, the flags it gave of those
// the Mamba pool brought in: the fusion switch (see [fusionOffRead]), the
// radix-cache and overlap-schedule switches that set a hybrid's ratio,
// and the pool's own.
func (r *Resolved) mambaLine() string {
	var b strings.Builder
	if r.EnforceDisableARFusion {
		b.WriteString(" --enforce-disable-flashinfer-allreduce-fusion")
	}
	if r.DisableRadixCache {
		b.WriteString(" --disable-radix-cache")
	}
	if r.DisableOverlapSchedule {
		b.WriteString(" --disable-overlap-schedule")
	}
	if r.MambaFullMemoryRatio > 0 {
		b.WriteString(" --mamba-full-memory-ratio " + strconv.FormatFloat(r.MambaFullMemoryRatio, 'f', -1, 64))
	}
	if r.MaxMambaCacheSize > 0 {
		fmt.Fprintf(&b, " --max-mamba-cache-size %d", r.MaxMambaCacheSize)
	}
	if r.MambaSSMDtype != "" {
		b.WriteString(" --mamba-ssm-dtype " + r.MambaSSMDtype)
	}
	if r.MambaRadixCacheStrategy != "" {
		b.WriteString(" --mamba-radix-cache-strategy " + r.MambaRadixCacheStrategy)
	}
	return b.String()
}

// choiceFlag is an SGLang flag of argparse choices.
type choiceFlag struct {
	v       *string
	choices []string
}

func (f *choiceFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f *choiceFlag) Set(s string) error {
	if !slices.Contains(f.choices, s) {
		return fmt.Errorf("want one of %s, got %q", strings.Join(f.choices, ", "), s)
	}
	*f.v = s
	return nil
}

// source says what sized the pool's slots, for the explanation.
func (m *mambaPool) source() string {
	switch {
	case m.GivenSize > 0:
		return "--max-mamba-cache-size"
	case m.FromRequests:
		return "--max-running-requests under --disable-radix-cache"
	}
	return fmt.Sprintf("the rest's %v / (1 + %v) share, --mamba-full-memory-ratio %v", m.FullRatio, m.FullRatio, m.FullRatio)
}

// gdnGraphMetadata is what the linear-attention backend's
// init_cuda_graph_state allocates for decode graphs up to maxBS requests
// (layers/attention/hybrid_linear_attn_backend.py:345-383 at v0.5.14): for
// every batch size i + 1 below maxBS, int32 state indices of i + 1, a
// query_start_loc of i + 2 and three draft-token tables of i + 1 (one
// draft token without speculative decoding), and two int32 ranges of
// maxBS + 1; each a tensor of its own, which the caching allocator rounds
// to 512 bytes. With trackBuf ([Profile.GDNTrackIndicesBuf], from v0.5.15)
// an int64 mamba_track_indices_buf of maxBS besides
// (hybrid_linear_attn_backend.py:360-362 at v0.5.15); the other v0.5.15
// lists (ReplaySSM's write cursors) only under --enable-linear-replayssm.
func gdnGraphMetadata(maxBS uint64, trackBuf bool) uint64 {
	var b uint64
	for i := uint64(0); i < maxBS; i++ {
		b = budget.SatAdd(b, budget.SatAdd(budget.SatMul(budget.RoundUp(4*(i+1), 512), 4), budget.RoundUp(4*(i+2), 512)))
	}
	b = budget.SatAdd(b, budget.SatMul(budget.RoundUp(4*(maxBS+1), 512), 2))
	if trackBuf {
		b = budget.SatAdd(b, budget.RoundUp(budget.SatMul(maxBS, 8), 512))
	}
	return b
}

// gdnElsewhere names the releases whose Mamba pool is read, for the
// refusal of a hybrid they size under any other.
func gdnElsewhere(a *model.Arch) string {
	if a.DeltaNet == nil || !archIn(a, gdnArchs) {
		return ""
	}
	return " under this release (membudget models it for " + a.Architectures[0] + " under --sglang-version " + gdnReleaseList() + " only)"
}

// gdnReleaseList names [gdnReleases] for a refusal, "a, b and c", so that
// the text follows the list.
func gdnReleaseList() string {
	n := len(gdnReleases)
	if n < 2 {
		return strings.Join(gdnReleases, "")
	}
	return strings.Join(gdnReleases[:n-1], ", ") + " and " + gdnReleases[n-1]
}
