package sglang

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/engine/torchalloc"
	"membudget/internal/shell"
	"membudget/model"
	"membudget/model/hub"
)

// This file sizes SGLang's speculative decoding with a draft model:
// --speculative-algorithm EAGLE3 (a Llama EAGLE-3 draft read from its
// directory) and NEXTN (DeepSeek-V3's own multi-token-prediction layer;
// SGLang runs it as EAGLE, server_args.py:1729-1730 at v0.5.6.post2). The
// rules were read at the tags v0.5.6.post2, v0.5.6.post3, v0.5.7, v0.5.8,
// v0.5.8.post1, v0.5.9, v0.5.10, v0.5.10.post1, v0.5.11, v0.5.12,
// v0.5.12.post1, v0.5.13, v0.5.13.post1, v0.5.14, v0.5.15, v0.5.15.post1,
// v0.5.16, v0.5.17 and v0.5.18 (see [specReleases];
// from v0.5.11 both the spec v2 worker at top-k 1 and the v1 worker a
// top-k above 1 selects, from v0.5.13 the v2 worker at top-k 1 alone);
// every other release refuses the flag by name.
//
// SGLang's order of allocation decides where each term falls. The target's
// worker measures F0, loads the target, sizes its pool from msf x F0 less
// its weights, and allocates it; only then does the draft's worker
// (speculative/eagle_worker.py:137-151) load the draft, allocate the
// draft's own KV pool of the target's token count, and share the target's
// req_to_token table and token allocator. So the draft's weights and its
// KV pool come out of what (1 - msf) x F0 leaves, beside the budget, as
// the default fraction's extra 2 GiB "for eagle draft models and cuda
// graphs" expects (server_args.py:874-880). Each ModelRunner allocates
// its pool in its own initialize (model_runner.py:502; :555 at
// v0.5.8.post1; :493 and :590 at v0.5.9; :507 and :623 at v0.5.10), and
// the scheduler builds the target's worker before the draft's
// (managers/scheduler.py:535-536 at v0.5.8.post1, :563-565 at v0.5.9,
// :631-633 at v0.5.10). Through v0.5.13.post1 no tag has the scheduler's
// init_memory_pools: the order in which both models are built before the
// target's pool is sized (EagleDraftWorker.alloc_memory_pool; sglang
// issue #36452, PR #32468) comes with v0.5.14 (PRs #23862 and #28855; see
// [specDraft.InFraction]), where the draft's weights, and its embedding
// and head copies until they are shared, are in the budget: the
// shrinking pool issue #36452 reports. From v0.5.11 EAGLE runs
// the overlap scheduler's spec v2 worker by default (PR #21062), whose
// draft worker is built in the same order (speculative/eagle_worker_v2.py:
// 91-186 at v0.5.11) and whose scheduler keeps a future map more (see
// [specDraft.futureMap]).

// Spec is SGLang's speculative decoding as its --speculative-* flags set
// it; the zero Spec is speculative decoding off.
type Spec struct {
	// Algorithm is --speculative-algorithm: EAGLE, EAGLE3 or NEXTN (the
	// modelled ones), "" for none.
	Algorithm string
	// DraftModelPath is --speculative-draft-model-path: the EAGLE-3
	// draft's local directory.
	DraftModelPath string
	// NumSteps, EagleTopK and NumDraftTokens are --speculative-num-steps,
	// --speculative-eagle-topk and --speculative-num-draft-tokens; 0 takes
	// SGLang's choice (auto_choose_speculative_params).
	NumSteps, EagleTopK, NumDraftTokens uint64
	// DraftKVCacheDtype is --speculative-draft-kv-cache-dtype (from
	// v0.5.18, see [specDraftKVDtypeFrom]); "" when not given, the
	// draft's dtype then following --kv-cache-dtype.
	DraftKVCacheDtype string
}

// On reports whether speculative decoding is on.
func (s Spec) On() bool { return s.Algorithm != "" }

// specReleases are the releases whose speculative rules were read. From
// v0.5.8.post1 to v0.5.9 and v0.5.10 the rules membudget applies change
// only where [specKVFromTargetFrom] and [Profile.SpecReserve4GiB] say:
// the v1 worker stays the default (SGLANG_ENABLE_SPEC_V2 = EnvBool(False),
// environ.py:414 at v0.5.9, :442 at v0.5.10 and v0.5.10.post1), and so
// do _handle_speculative_decoding (server_args.py:2330-2480 at v0.5.9,
// :2959-3110 at v0.5.10; its MTP list gains GlmMoeDsaForCausalLM and
// BailingMoeV2_5ForCausalLM), auto_choose_speculative_params (:5741 at
// v0.5.9, :6711 at v0.5.10, the same choices), EAGLEWorker's order and
// sharing (speculative/eagle_worker.py:137-185; v0.5.10 hands the draft
// the target's MemoryPoolConfig, :155, PR #20183, where v0.5.9 copied the
// target's max_total_num_tokens and max_num_reqs through server_args,
// model_runner_kv_cache_mixin.py:402-413: the same token count and rows
// either way), the draft's pool (MLATokenToKVPool and MHATokenToKVPool of
// num_effective_layers, mixin :557-568 and :665-680 at v0.5.9) and
// req_to_token's extra draft tokens (:421-426 at v0.5.9, :393-396 at
// v0.5.10), models/llama_eagle3.py (v0.5.10 reads rope_parameters first,
// the same table for the configs taken) and models/deepseek_nextn.py
// (NPU and weight-name changes alone). v0.5.9.post1 is a fork's tag, not
// modelled here.
//
// v0.5.11 runs EAGLE on the spec v2 worker by default
// (SGLANG_ENABLE_SPEC_V2 = EnvBool(True), environ.py:459; PR #21062) unless
// the overlap scheduler is off, which a --speculative-eagle-topk above 1
// given forces (server_args.py:3460-3473). The v2 worker's EagleDraftWorker
// builds the draft's TpModelWorker with the target's MemoryPoolConfig and
// shares the embedding and head as the v1 worker does
// (speculative/eagle_worker_v2.py:91-230); EAGLEWorkerV2 adds two scalars
// (:682-685) and the scheduler's FutureMap holds the draft inputs
// (managers/overlap_utils.py:45-114, see [specDraft.futureMap]); the rest
// of it is its forward steps. SGLang's own top-k comes after the test, so
// Llama's 4 lands on the v2 worker, which v0.5.10 refused above top-k 1:
// refused. Against v0.5.10.post1 the v1 path keeps its order (managers/scheduler.py:692-694;
// model_runner.py:625 and :733), the draft's MemoryPoolConfig
// (speculative/eagle_worker.py:172; the configurator of
// model_executor/pool_configurator.py sizes the target alone, a DFLASH
// draft apart), set_embed (:186), models/llama_eagle3.py (unchanged), the
// 4 GiB reserve (server_args.py:1468-1475), auto_choose_speculative_params
// (:7471, MiMoV2ForCausalLM added) and the FP8 write-back (model_runner.py:
// 2210-2227); the req_to_token table's padding row is the plain serve's
// ([Profile.ReqPadRow]); the piecewise graphs stay on under speculative
// decoding ([Profile.PiecewiseWithSpec]), captured by the target alone
// (model_runner.py:2811-2813 skips the draft), which is not read: such a
// serve is refused (see [Resolved.resolvePiecewise]).
//
// v0.5.12 and v0.5.12.post1 keep v0.5.11's rules for those serves: the
// same selection of the worker (server_args.py:3748-3761; environ.py:470),
// the v2 worker's construction (eagle_worker_v2.py at v0.5.12 adds the
// adaptive controller, off by default) and future map (verified_id renamed
// bonus_tokens, managers/overlap_utils.py:86-114),
// order (managers/scheduler.py:717-719; model_runner.py:655, :749, :825),
// MemoryPoolConfig and sharing (speculative/eagle_worker.py:174-188; the
// mixin's changes are DeepSeek-V4's pools and --prefill-only-disable-kv-
// cache), reserve (server_args.py:1576-1582), FP8 write-back
// (model_runner.py:2340-2357) and req_to_token width (mixin :245-247); the
// v1 worker's changes are of its forward steps, not its buffers. The
// EAGLE-3 draft may have several layers, auxiliary norms and a count of
// auxiliary inputs (PRs #24663, #24664; models/llama_eagle3.py:44-70,
// 148-188): a one-layer draft without those keys builds v0.5.11's tensors,
// and the others are refused (see [eagle3Refused], [eagle3AuxInputs]).
// --speculative-algorithm is upper-cased there (see [specAlgoUpperFrom]).
// v0.5.12.post1 changes model_runner.py by a kernel_warmup hook of the
// model's (model_runner.py:2484-2489), which DeepSeek-V4 alone defines
// (models/deepseek_v4.py).
//
// v0.5.13 removes the v1 worker (PR #25464; speculative/eagle_worker.py is
// gone): EAGLE, EAGLE3 and NEXTN always run the spec v2 worker
// (arg_groups/speculative_hook.py:272-386, where _handle_speculative_decoding
// moved), overlapped unless --disable-overlap-schedule (:288-304). Read and
// kept for the serves membudget takes: the order (the target's
// ModelRunner.initialize still sizes and allocates its pool,
// model_runner.py:632-784, before the scheduler builds the draft's worker,
// managers/scheduler.py:816-818), the draft's TpModelWorker with the
// target's MemoryPoolConfig and the embedding and head shared
// (speculative/eagle_worker_v2.py:113-222, 253-295), init_memory_pool
// (model_runner_kv_cache_mixin.py:968-978), the pools, the FP8 write-back
// (model_runner.py:2244-2262), the 4 GiB reserve (server_args.py:1626-1633),
// the 48 requests, auto_choose_speculative_params (:8152) and the
// adjustment of the draft tokens at top-k 1 (speculative_hook.py:363-371),
// req_to_token's width at top-k 1 (4 + the draft tokens, mem_cache/
// common.py:194-210) and the one-layer Llama EAGLE-3 and DeepSeek NextN
// drafts (models/llama_eagle3.py moves the draft window, a flag refused;
// models/deepseek_nextn.py changes context parallelism alone). What changes
// (see [specV2OnlyFrom]): the future map, the draft worker's chain
// buffers, and a top-k above 1, which now runs the v2 worker's tree
// (PR #27458), not read: refused. v0.5.13.post1 changes the v2 draft's
// index sharing of DeepSeek's sparse attention alone (#28192): v0.5.13's
// rules.
//
// v0.5.14 loads the draft before the target's pool is sized (PRs #23862
// and #28855; see [specDraft.InFraction]); its model files, FutureMap and
// req_to_token width keep v0.5.13's for these serves
// (managers/overlap_utils.py:104-203 adds buffers for other algorithms
// and for --speculative-use-rejection-sampling, a flag refused).
//
// v0.5.15 keeps v0.5.14's rules for these serves: the scheduler's order
// (managers/scheduler.py:864-870: the target, the draft's worker, then
// init_memory_pools), the draft's layers read from its config
// (model_runner.py:436-465) and the scaled cell (pool_configurator.py:
// 139-155), the draft's TpModelWorker on the target's MemoryPoolConfig
// (model_runner_kv_cache_mixin.py:1264-1267), the chain's constants and
// the embedding and head shared (speculative/eagle_worker_v2.py:278-367;
// maybe_share_target_lm_head points a head already shared at the
// target's), the FutureMap of one slot per req_to_token row with the same
// tensors (managers/overlap_utils.py:147-229; its verified_id buffer is
// gone, bonus_tokens always in output_tokens_buf, and DeepSeek sparse
// attention's top-k seed buffer comes only with an indexer, refused), the
// req_to_token width (mem_cache/common.py:252-265), the 48 requests, the
// top-k 1 adjustment and auto_choose_speculative_params (arg_groups/
// speculative_hook.py:329-334, 439-447, 573; the hook reads the resolved
// view, the same values), the reserve (no draft term; #29615's decode-node
// term is of --disaggregation-mode, refused) and the model files
// (models/llama_eagle3.py unchanged; models/deepseek_nextn.py fuses
// enorm and hnorm into one kernel, the same weights). New after the pool
// (see [logitsAllGatherRows], [draftLogitsAllGatherBytes] and
// [Reference.after0515Items]): the logits all-gather buffer's rows grow
// by the draft tokens, the draft's LogitsProcessor keeps a buffer of its
// own, and the eager runner's input buffers are sized for the verify's
// draft tokens, the draft's ModelRunner building an eager runner of its
// own over the same pool tokens. The shared graph logits buffer
// (model_executor/graph_shared_output.py:28-40) is none under
// --disable-cuda-graph. v0.5.15.post1 changes the v2 draft for DeepSeek
// sparse attention's shared indexer top-k alone (#31106: eagle_worker_v2.py,
// overlap_utils.py, deepseek_nextn.py; refused with the indexer): v0.5.15's
// rules.
//
// v0.5.16 keeps v0.5.15.post1's for these serves but one (see
// [specReqPageReserveFrom]): the scheduler's order (managers/scheduler.py:
// 845-851; post_capture_resize_kv_pool under an opt-in environment
// variable, not sized), the draft's layers (model_runner_components/
// spec_aux_hidden_state.py:49-78, #31157) and the scaled cell
// (pool_configurator.py:136-151), the draft on the target's
// MemoryPoolConfig (mem_cache/kv_cache_configurator.py:219-257), the
// draft worker's construction, chain constants and sharing
// (speculative/eagle_worker_v2.py:120-346; the verify and draft steps
// moved into speculative/eagle_worker_common.py are per-batch), the two
// scalars (:1067-1070), the FutureMap (managers/overlap_utils.py:237-350;
// the confidence relay is DSPARK's), the speculative hook
// (arg_groups/speculative_hook.py: handle_speculative_decoding unchanged,
// _handle_eagle_family adding a CPU overlap switch and a rejection-sampling
// check, :492-636, and auto_choose_speculative_params, :762), the model
// files (flag lookups), the logits all-gather's rows (layers/
// logits_processor.py:376-382, triton_symm_mem_ag.py:421-441) and both
// eager runners (model_runner_components/cuda_graph_setup.py:73-94,
// runner/eager_runner.py:65-100, spec_utils.py:90-113).
//
// v0.5.17 (tag 2948168) keeps v0.5.16's for these serves but two (see
// [specKVFromTargetUntil] and [eagle3NormBeforeFCFrom]): the scheduler's
// order (managers/scheduler.py:974-981: the target's worker, the draft's,
// then init_memory_pools, :951-963), the draft now built on a copy of the
// resolved server arguments whose context length is the target's
// (speculative/draft_worker_common.py:74-124, scheduler.py:901-927; v0.5.16
// overrode the shared arguments, eagle_worker_v2.py:1044-1048 there), the
// draft's layers (spec_aux_hidden_state.py unchanged) and the scaled cell
// (model_executor/pool_configurator.py:147-163), the budget measured after
// both loads (mem_cache/kv_cache_configurator.py:1614-1657), the draft
// worker's construction and sharing (speculative/eagle_worker_v2.py:
// 126-311), the chain's constants (moved to speculative/base_spec_worker.py:
// 78-110, the same tensors), the two scalars (eagle_worker_v2.py:1048-1051),
// the FutureMap (managers/overlap_utils.py unchanged, built from
// req_to_token at scheduler.py:1428-1433), the req_to_token width
// (mem_cache/allocation_sizing.py unchanged), the speculative hook
// (arg_groups/speculative_hook.py: the 48 requests at :539-544, the
// EAGLE family's rules unchanged, auto_choose_speculative_params at :795;
// DFLASH's backends alone change), the reserve (no draft term off a decode
// node, server_args.py:4755-4780), the logits all-gather's rows
// (layers/logits_processor.py:380-386, triton_symm_mem_ag.py:421-442
// unchanged), both eager runners (runner/eager_runner.py:70-117,
// model_executor/model_runner_components/cuda_graph_setup.py:104-133) and
// NEXTN's model file (models/deepseek_nextn.py: flag lookups and context
// parallelism). The target-verify mask the flashattention backend keeps
// (layers/attention/verify_mask.py) is allocated with the graphs alone
// (init_cuda_graph_state, flashattention_backend.py:2225-2234), refused.
//
// v0.5.18 (tag 71de97b) keeps v0.5.17's for these serves but one (see
// [specDraftKVDtypeFrom]): the scheduler's order (managers/scheduler.py:
// 993-1002: the target's worker, the draft's, then init_memory_pools,
// :966-979), the draft's TpModelWorker now built on the shared server
// arguments with the target's context length passed in (speculative/
// eagle_worker_v2.py:171-180, managers/tp_worker.py:313-329; v0.5.17's
// copy of the arguments gone, draft_worker_common.py: the same value), the
// draft's layers (model_runner_components/spec_aux_hidden_state.py: DFLASH's
// cell alone added) and the scaled cell for a draft beside a model without
// DeepSeek sparse attention (model_executor/pool_configurator.py:174-213;
// the DSA branch and DFLASH's own cell are of drafts refused), the budget
// (mem_cache/kv_cache_configurator.py:1764-1811, the multimodal
// reservation the profile's), the chain's constants (speculative/
// base_spec_worker.py:112-144, the same tensors), the embedding and head
// shared (eagle_worker_v2.py:284-319), EAGLEWorkerV2's two scalars
// (:1053-1056), the FutureMap (managers/overlap_utils.py:246-267: ngram's
// relay buffers alone added; built at scheduler.py:1463), the req_to_token
// width and page reserve (mem_cache/allocation_sizing.py:50-66, the same
// terms read from the runtime context), the speculative hook (the 48
// requests at arg_groups/speculative_hook.py:559-563; only DSpark's checks
// change), the reserve (server_args.py:4948-4975, no draft term off a
// decode node), the logits all-gather's rows (layers/logits_processor.py:
// 324-330; triton_symm_mem_ag.py unchanged) and the draft's own, both eager
// runners (runner/eager_runner.py:77-147, built with graphs off too,
// model_runner_components/cuda_graph_setup.py:89-110), the MHA and MLA
// pools (mem_cache/memory_pool.py: a log line), llama_eagle3.py
// (unchanged) and NEXTN's model file (deepseek_nextn.py: DSA's top-k
// sharing and the shared-experts fusion decided by the loader, the same
// weights). --disable-cuda-graph still turns both graph phases off before
// the reserve (server_args.py:4507-4509), and nothing in
// _disable_breakable_cudagraph_if_incompatible turns the prefill graphs
// off for a draft: drafts stay sized under --disable-cuda-graph alone. The
// HiCache draft plan (base_spec_worker.py:234-271) comes with the
// hierarchical cache, refused; the DeepGEMM masked-layout budget
// (cuda_graph_setup.py:112-161) picks a MoE layout from free memory after
// the pool, a target's rule too.
var specReleases = []string{"v0.5.6.post2", "v0.5.6.post3", "v0.5.7", "v0.5.8", "v0.5.8.post1", "v0.5.9", "v0.5.10", "v0.5.10.post1", "v0.5.11", "v0.5.12", "v0.5.12.post1", "v0.5.13", "v0.5.13.post1", "v0.5.14", "v0.5.15", "v0.5.15.post1", "v0.5.16", "v0.5.17", "v0.5.18"}

// specReqPageReserveFrom is the first release whose req_to_token rows,
// with speculative decoding on pages above 1, hold the decode's
// page-aligned reserve at any top-k: max(4 + draft tokens, 2 x
// max(steps x top-k, draft tokens) + page - 1) beyond the context
// (mem_cache/allocation_sizing.py:9-63 at v0.5.16, PR #31681), where
// v0.5.15.post1 took it above top-k 1 alone (mem_cache/common.py:252-265
// at v0.5.15), 4 + draft tokens at top-k 1.
const specReqPageReserveFrom = "v0.5.16"

// specV2OnlyFrom is the first release without the v1 EAGLE worker (PR
// #25464): every EAGLE serve runs the spec v2 worker, whatever its top-k,
// and membudget sizes it at top-k 1 alone; its FutureMap keeps one slot
// per req_to_token row, output tokens and new_seq_lens allocated with it
// and the draft input's tensors at the first stash
// (managers/overlap_utils.py:102-171 at v0.5.13, in place of v0.5.12's
// circular buffer); and the draft worker keeps the top-k 1 chain's
// constants (speculative/eagle_worker_v2.py:224-251; see
// [specDraft.chainItems]).
const specV2OnlyFrom = "v0.5.13"

// specKVFromTargetFrom is the first release whose configure_kv_cache_dtype
// writes the target checkpoint's FP8 KV choice back into
// server_args.kv_cache_dtype under auto (model_runner.py:1669-1687 at
// v0.5.9, :1902-1919 at v0.5.10), so that the draft's ModelRunner, built
// after, reads fp8_e4m3 too; before, the draft's own quant_config decided.
const specKVFromTargetFrom = "v0.5.9"

// specKVFromTargetUntil is the first release whose configure_kv_cache_dtype
// writes the target's FP8 choice back no more: each ModelRunner keeps the
// dtype it resolved as its own kv_cache_dtype_str (model_runner.py:
// 1198-1224 at v0.5.17, where v0.5.16's _record_kv_cache_dtype declared it
// into the server arguments, :1063-1099 there), so that under auto the
// EAGLE-3 draft's runner, whose model has no quant_config, takes the
// model's dtype again (mem_cache/kv_cache_dtype.py:22-44), beside the
// target's FP8 pool.
const specKVFromTargetUntil = "v0.5.17"

// eagle3NormBeforeFCFrom is the first release whose EAGLE-3 draft builds
// input_norm, an RMSNorm over the 3 x hidden concatenated inputs of fc,
// when its config's norm_before_fc (or eagle_config's, a key refused) is
// true (models/llama_eagle3.py:161-174 at v0.5.17); earlier releases
// ignore the key.
const eagle3NormBeforeFCFrom = "v0.5.17"

// specDraftKVDtypeFrom is the first release with
// --speculative-draft-kv-cache-dtype (server_args.py:2187-2200 at v0.5.18;
// auto, fp8_e5m2, fp8_e4m3, bf16 or bfloat16, unset by default): the
// draft's ModelRunner resolves its KV dtype from it in place of
// --kv-cache-dtype, "auto" then reading the draft model's own
// quant_config (mem_cache/kv_cache_dtype.py:22-47, called from
// model_runner.py:1314-1339 with is_draft_worker), and the draft's pool is
// allocated in that dtype, while the target's pool is still sized with the
// target's cell scaled by the draft's layers (pool_configurator.py:
// 174-213), as though the draft's layer held the target's bytes. So where
// the flag alone parts the draft's cell from the target's, a smaller
// draft cell (fp8 beside a 16-bit target) sizes the pool of the serve
// without the flag, the draft's pool smaller by the difference, which
// stays free ("the saving shows up as free device memory", the flag's
// help, server_args.py:2190-2196; see [Reference.kvItems]); a larger one
// (16-bit beside an FP8 target) would take more than the fraction counts:
// refused, naming the flag.
const specDraftKVDtypeFrom = "v0.5.18"

// specDraftKVDtypes are --speculative-draft-kv-cache-dtype's choices
// (server_args.py:2197 at v0.5.18).
var specDraftKVDtypes = []string{"auto", "fp8_e5m2", "fp8_e4m3", "bf16", "bfloat16"}

// specAlgoUpperFrom is the first release that upper-cases
// --speculative-algorithm and takes any registered name rather than
// argparse's choices (server_args.py:3561-3562, 5786-5793 at v0.5.12).
const specAlgoUpperFrom = "v0.5.12"

// specHeadroomUntil is the first release without the target pool's
// headroom for draft and verify tokens: sgl-project/sglang PR #15748
// ("Retry removing wrong logic about max total token in spec decoding")
// removed it (v0.5.6.post2 model_runner.py:1693-1713 has it; v0.5.7
// model_runner_kv_cache_mixin.py:306-312 has it not).
const specHeadroomUntil = "v0.5.7"

// specOtherDefaultUntil is the first release whose
// auto_choose_speculative_params gives (3, 1, 4) rather than (5, 4, 8) to
// an architecture it does not name (v0.5.8 server_args.py:5457-5459;
// v0.5.6.post2 :4678-4680).
const specOtherDefaultUntil = "v0.5.8"

// maxSpecCount bounds --speculative-num-steps, --speculative-eagle-topk
// and --speculative-num-draft-tokens far above any serve's.
const maxSpecCount = 1 << 10

// specDefaultMaxRunning is what SGLang sets --max-running-requests to
// with EAGLE, EAGLE3 or NEXTN when it is not given (server_args.py:
// 1738-1744 at v0.5.6.post2; :2134-2138 at v0.5.8.post1).
const specDefaultMaxRunning = 48

// specReserveMiB is what the default --mem-fraction-static reserves
// beyond its other terms with EAGLE, EAGLE3 or NEXTN, after its 10 GiB
// floor (server_args.py:874-880 at v0.5.6.post2, :1019-1025 at
// v0.5.8.post1).
const specReserveMiB = 2 * 1024

// mtpArchs are the architectures SGLang gives the target's own path as
// the draft's (server_args.py:1766-1774 at v0.5.6.post2; v0.5.9 adds
// GlmMoeDsaForCausalLM and BailingMoeV2_5ForCausalLM, :2398-2409, both
// refused by name as architectures of v0.5.9 not read); membudget sizes
// DeepSeek-V3's alone.
var mtpArchs = []string{"DeepseekV32ForCausalLM", "DeepseekV3ForCausalLM", "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM",
	"GlmMoeDsaForCausalLM", "BailingMoeForCausalLM", "BailingMoeV2ForCausalLM", "BailingMoeV2_5ForCausalLM",
	"MistralLarge3ForCausalLM", "PixtralForConditionalGeneration"}

// eagle3Targets are the target architectures whose SGLang class captures
// the auxiliary hidden states an EAGLE-3 draft reads
// (set_eagle3_layers_to_capture: models/llama.py, qwen2.py, qwen3.py,
// qwen3_moe.py at v0.5.6.post2) and whose layers membudget sizes.
var eagle3Targets = []string{"LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM", "Qwen3MoeForCausalLM"}

// specDraft is the draft as a serve resolves it.
type specDraft struct {
	// Kind is "mtp" or "eagle3".
	Kind string
	// Steps, TopK and DraftTokens are SGLang's after its adjustments.
	Steps, TopK, DraftTokens uint64
	// Headroom says the release grows the target's pool by the draft and
	// verify tokens of every request (see [specHeadroomUntil]).
	Headroom bool
	// ReqPage is the page size whose decode reserve widens req_to_token's
	// rows (see [specReqPageReserveFrom]); 0 where the release or the
	// serve's pages of 1 leave them at the draft tokens.
	ReqPage uint64
	// Layers is the draft pool's layers; LayerCell one layer's KV bytes
	// per token on a rank; MLA says the pool holds a latent per layer.
	Layers, LayerCell uint64
	MLA               bool
	// Weights are the draft's tensors that stay on every rank; Transient
	// those it allocates and frees once it shares the target's
	// embedding (and head), after its KV pool is allocated.
	Weights, Transient []budget.Item
	// V2 says EAGLE runs the overlap scheduler's spec v2 worker, whose
	// future map holds the draft's input of every future slot (see
	// [specDraft.futureMap]); FutureRow is one slot's bytes of it.
	V2        bool
	FutureRow []uint64
	// V2Only says the release has no v1 worker (see [specV2OnlyFrom]): the
	// future map's slots are req_to_token's rows, and the draft worker
	// keeps the top-k 1 chain's constants.
	V2Only bool
	// InFraction says the draft is loaded before the target's pool is
	// sized (PRs #23862, "Fix --mem-fraction-static not accounting for
	// EAGLE draft model KV cache", and #28855, "account draft weights in
	// --mem-fraction-static"; [Profile.DraftInFraction]): v0.5.14's scheduler
	// builds the target's worker (weights only), then the draft's
	// (EagleDraftWorker: the chain's constants, then the draft's
	// TpModelWorker loading its weights), and only then init_memory_pools
	// sizes the target's pool from free memory and allocates the draft's
	// of the same tokens (managers/scheduler.py:826-872; speculative/
	// eagle_worker_v2.py:129-247), the embedding and head shared after it
	// (init_lm_head, :318-344). So the draft's weights, its embedding
	// until shared and the constants count in msf x F0, and the target's
	// cell is scaled by (1 + draft layers / target layers)
	// (pool_configurator.py:129-145, with model_runner.py:431-455 reading
	// the draft's layers from its config), assuming the draft's layer
	// cell is the target's, which membudget checks.
	InFraction bool
	// asIfUnflagged is LayerCell as --kv-cache-dtype alone would give it,
	// without --speculative-draft-kv-cache-dtype (see
	// [specDraftKVDtypeFrom]): the refusal names that flag when it alone
	// parts the draft's cell from the target's.
	asIfUnflagged uint64
	// HeadVocab is the vocabulary of the head whose logits the draft's
	// own LogitsProcessor gathers under TP: an EAGLE-3 draft's
	// draft_vocab_size where it keeps its own head, else the target's
	// (the head shared). From v0.5.15 that processor keeps its own
	// all-gather buffer (see [draftLogitsAllGatherBytes]).
	HeadVocab uint64
}

// futureMap is the spec v2 future map's tensors on a rank, for slots
// slots (see [Reference.futureMap]): one slot of each of the draft
// input's tensors (FutureRow); nil without the v2 worker.
func (d *specDraft) futureMap(slots uint64) []uint64 {
	if d == nil || !d.V2 {
		return nil
	}
	var out []uint64
	for _, row := range d.FutureRow {
		out = append(out, budget.SatMul(slots, row))
	}
	return out
}

// chainItems are the constants v0.5.13's EagleDraftWorker keeps for the
// top-k 1 chain (_rebuild_topk1_chain_buffers, speculative/
// eagle_worker_v2.py:224-251 at v0.5.13, :268-300 at v0.5.14): parents
// and score indices, int64 each, of max(cuda_graph_max_bs,
// max_running_requests, 1) rows by steps (the parents none for one
// step). v0.5.14 reads the decode phase's max_bs; membudget takes the
// resolved --cuda-graph-max-bs, which --disable-cuda-graph leaves set,
// at least as many rows. Nil before v0.5.13 or above top-k 1.
func (d *specDraft) chainItems(graphMaxBS, maxRunning uint64) []budget.Item {
	if d == nil || !d.V2Only || d.TopK != 1 {
		return nil
	}
	rows := max(graphMaxBS, maxRunning, 1)
	parents := d.Steps
	if parents < 2 {
		parents = 0
	}
	return []budget.Item{
		{Name: "spec_draft.topk1_parents", Bytes: budget.SatMul(budget.SatMul(rows, parents), 8)},
		{Name: "spec_draft.topk1_score_indices", Bytes: budget.SatMul(budget.SatMul(rows, d.Steps), 8)},
	}
}

// scaledCell is v0.5.14's target cell for a serve with an EAGLE draft:
// int(cell x (1 + draft layers / target layers)) in Python's floats
// (pool_configurator.py:142-145, PR #23862), the bytes a token of both pools is
// profiled at; cell itself without the draft in the fraction.
func (d *specDraft) scaledCell(cell uint64, targetLayers int) uint64 {
	if d == nil || !d.InFraction || targetLayers <= 0 {
		return cell
	}
	f := float64(cell) * (1 + float64(d.Layers)/float64(targetLayers))
	if f >= math.MaxUint64 {
		return math.MaxUint64
	}
	return uint64(f)
}

// heldCell is what a held token takes of the budget of a stage whose
// target cell is cell and whose pool is sized by scaled (see
// [specDraft.scaledCell]): the target's cell and the draft's share of the
// scaled cell, that share at most what the draft's layers hold. A draft
// pool of a smaller dtype (v0.5.18's --speculative-draft-kv-cache-dtype,
// see [specDraftKVDtypeFrom]) leaves the rest of its share free in the
// budget for every token of the pool, so the pool still holds
// max_total_num_tokens and not one more; int() keeps the share at or below
// the draft's layers otherwise.
func (d *specDraft) heldCell(cell, scaled uint64) uint64 {
	if d == nil || scaled <= cell {
		return scaled
	}
	return budget.SatAdd(cell, min(scaled-cell, budget.SatMul(d.LayerCell, d.Layers)))
}

// specFutureRow is one future-map slot's bytes per tensor for top-k k and
// the draft's hidden states of width hidden in el-byte elements: topk_p
// (float32: softmax of the float32 logits, layers/logits_processor.py:992
// at v0.5.11), topk_index (int64, torch.topk), verified_id (bonus_tokens
// from v0.5.12; int32 after a verify, eagle_worker_v2.py:867, the sampler's
// int64 argmax after a greedy prefill, layers/sampler.py:113: 8 bytes
// charged), new_seq_lens (int64, managers/schedule_batch.py:1591) and the
// draft's hidden states (spec_need_hidden_states without multi-layer
// EAGLE, speculative/spec_utils.py:55-60).
func specFutureRow(k, hidden, el uint64) []uint64 {
	return []uint64{budget.SatMul(k, 4), budget.SatMul(k, 8), 8, 8, budget.SatMul(hidden, el)}
}

// resolveSpec applies SGLang's speculative rules to the serve: the
// defaults of --speculative-num-steps, --speculative-eagle-topk,
// --speculative-num-draft-tokens and --max-running-requests, SGLang's own
// refusals, and the draft. What membudget cannot settle is refused by
// name.
func (r *Resolved) resolveSpec(a *model.Arch, def func(string, string)) error {
	sp, p := r.Spec, r.Profile
	if !sp.On() {
		for _, f := range []struct {
			flag string
			set  bool
		}{{"speculative-draft-model-path", sp.DraftModelPath != ""}, {"speculative-num-steps", sp.NumSteps != 0},
			{"speculative-eagle-topk", sp.EagleTopK != 0}, {"speculative-num-draft-tokens", sp.NumDraftTokens != 0},
			{"speculative-draft-kv-cache-dtype", sp.DraftKVCacheDtype != ""}} {
			if f.set {
				// --speculative-num-draft-tokens alone still lengthens every
				// req_to_token row (model_runner.py:1752-1755).
				return settingErr(f.flag, "", "given without --speculative-algorithm, which membudget does not size: give the algorithm (EAGLE, EAGLE3 or NEXTN) or drop it")
			}
		}
		return nil
	}
	if !older(p, specAlgoUpperFrom) {
		// server_args.py:3561-3562 at v0.5.12: upper-cased, no argparse
		// choices (:5786-5793).
		r.Spec.Algorithm = strings.ToUpper(sp.Algorithm)
		sp = r.Spec
	}
	switch sp.Algorithm {
	case "EAGLE", "EAGLE3", "NEXTN":
	case "DFLASH", "FROZEN_KV_MTP":
		if sp.Algorithm == "DFLASH" && !older(p, "v0.5.11") || !older(p, specAlgoUpperFrom) {
			return specRefuse("speculative-algorithm", sp.Algorithm, "its draft (DFLASH's block drafter, whose KV cell the target's pool configurator folds into its own, model_executor/pool_configurator.py:95-110 at v0.5.11; FROZEN_KV_MTP's Gemma 4 assistant) is not modelled")
		}
		return settingErr("speculative-algorithm", fmt.Sprintf("%q", sp.Algorithm), "SGLang's choices are EAGLE, EAGLE3, NEXTN, STANDALONE and NGRAM (server_args.py:3016-3020)")
	case "STANDALONE":
		return specRefuse("speculative-algorithm", sp.Algorithm, "a standalone draft model (its own full weights, KV pool and graphs, and the default fraction's 6 GiB for them, server_args.py:875-877) is not modelled")
	case "NGRAM":
		return specRefuse("speculative-algorithm", sp.Algorithm, "n-gram speculation (its token cache of --speculative-ngram-capacity and the verify tokens in the request pools) is not modelled")
	default:
		if !older(p, specAlgoUpperFrom) {
			// Any name registered through SpeculativeAlgorithm.register
			// (speculative/spec_registry.py at v0.5.12).
			return specRefuse("speculative-algorithm", sp.Algorithm, "a speculative algorithm other than EAGLE, EAGLE3 and NEXTN (%s takes any name registered through SpeculativeAlgorithm.register) is not modelled", p.Describes)
		}
		return settingErr("speculative-algorithm", fmt.Sprintf("%q", sp.Algorithm), "SGLang's choices are EAGLE, EAGLE3, NEXTN, STANDALONE and NGRAM (server_args.py:3016-3020; DFLASH too from v0.5.11, :5367)")
	}
	switch {
	case !slices.Contains(specReleases, p.Name):
		v2 := ""
		if p.SpecV2 {
			v2 = ", whose EAGLE runs the overlap scheduler's spec v2 worker (sgl-project/sglang PR #21062; the v1 worker removed from v0.5.13, PR #25464), whose speculative/eagle_worker_v2.py, future map (managers/overlap_utils.py) and draft pool sizing (model_executor/pool_configurator.py) were read up to v0.5.18 alone"
		}
		return specRefuse("speculative-algorithm", sp.Algorithm, "speculative decoding is modelled for SGLang %s, whose rules were read; not for %s%s", strings.Join(specReleases, ", "), p.Describes, v2)
	case sp.DraftKVCacheDtype != "" && older(p, specDraftKVDtypeFrom):
		return settingErr("speculative-draft-kv-cache-dtype", sp.DraftKVCacheDtype, "not a flag of %s: it comes with v0.5.18 (server_args.py:2187 there)", p.Describes)
	case sp.DraftKVCacheDtype != "" && !slices.Contains(specDraftKVDtypes, sp.DraftKVCacheDtype):
		return settingErr("speculative-draft-kv-cache-dtype", fmt.Sprintf("%q", sp.DraftKVCacheDtype), "SGLang's choices are %s (server_args.py:2197 at v0.5.18)", strings.Join(specDraftKVDtypes, ", "))
	case r.PPSize > 1:
		return settingErr("pp-size", r.PPSize, "SGLang asserts pipeline parallelism is not compatible with speculative decoding (server_args.py:4087-4091 at v0.5.6.post2)")
	case r.HybridSWA:
		return specRefuse("speculative-algorithm", sp.Algorithm, "the draft beside %s's sliding-window pools (SGLang turns the split off for gpt-oss with speculative decoding, v0.5.8.post1 server_args.py:1288-1292) is not modelled", a.Source)
	case r.Quantization != "":
		return specRefuse("quantization", r.Quantization, "--quantization with speculative decoding quantizes the draft too (its ModelConfig reads the server's), which is not modelled")
	case !r.DisableCudaGraph:
		return specRefuse("speculative-algorithm", sp.Algorithm, "the CUDA graphs of speculative decoding (the target's verify graphs of --speculative-num-draft-tokens per request, and the draft's own decode and extend graphs, speculative/eagle_worker.py init_cuda_graphs) are not modelled: pass --disable-cuda-graph to size the serve without graphs")
	}
	if why, ok := r.Sources["attention-backend"]; ok && r.AttentionBackend != "" {
		// From v0.5.7 the default backend depends on the speculative
		// settings (is_no_spec_infer_or_topk_one, v0.5.8.post1
		// server_args.py:1664-1672).
		return specRefuse("attention-backend", r.AttentionBackend, "%s with speculative decoding is not modelled (SGLang's choice depends on --speculative-eagle-topk from v0.5.7): pass --attention-backend", why)
	}
	// v0.5.11 and v0.5.12 run the v1 worker only where the overlap
	// scheduler is off, which a top-k above 1 given forces
	// (server_args.py:3460-3473 at v0.5.11, :3748-3761 at v0.5.12); else
	// the spec v2 worker. A top-k SGLang chooses itself comes after that
	// test, and --disable-overlap-schedule is a flag membudget ignores: a
	// serve it would put on the v1 worker is sized on the v2 one, which
	// holds the future map more.
	//
	// From v0.5.13 every EAGLE serve runs the v2 worker (see
	// [specV2OnlyFrom]); from v0.5.14 the draft counts in the fraction.
	v2Only := !older(p, specV2OnlyFrom)
	d := &specDraft{Headroom: older(p, specHeadroomUntil), V2: p.SpecV2 && (sp.EagleTopK <= 1 || v2Only), V2Only: v2Only, InFraction: p.DraftInFraction}
	if r.PageSize > 1 && !older(p, specReqPageReserveFrom) {
		d.ReqPage = uint64(r.PageSize)
	}
	if err := r.resolveSpecCounts(a, d, def); err != nil {
		return err
	}
	if d.V2Only && d.TopK > 1 {
		return specRefuse("speculative-eagle-topk", d.TopK, "%s runs every EAGLE serve on the spec v2 worker (the v1 worker removed from v0.5.13, sgl-project/sglang PR #25464), whose draft tree above top-k 1 (PR #27458: wider req_to_token rows on pages above 1, mem_cache/common.py:194-210 at v0.5.13; the tree's draft and verify buffers) is not modelled: give --speculative-num-steps, --speculative-eagle-topk 1 and --speculative-num-draft-tokens (SGLang's choice for %s is top-k %d)", p.Describes, firstArchOf(a), autoTopK(p, a))
	}
	if d.V2 && d.TopK > 1 {
		// SGLang's own choice, after the test: v0.5.10 refused the pair
		// ("Spec v2 currently only supports topk = 1", server_args.py:
		// 3007-3013 at v0.5.10); v0.5.11 checks it no more.
		return specRefuse("speculative-eagle-topk", d.TopK, "SGLang's choice for %s, made after %s put EAGLE on the overlap scheduler's spec v2 worker (sgl-project/sglang PR #21062; server_args.py:3460-3473 at v0.5.11), whose speculative/eagle_worker_v2.py v0.5.10 refused for top-k above 1 (server_args.py:3007-3013 at v0.5.10) and membudget sizes at top-k 1 alone: give --speculative-eagle-topk (1 for the v2 worker; above 1 selects the v1 worker)", firstArchOf(a), p.Describes)
	}
	if r.MaxRunningRequests == 0 {
		r.MaxRunningRequests = specDefaultMaxRunning
		def("max-running-requests", "48: SGLang's default with speculative decoding (server_args.py:1738-1744)")
	}
	mtp := sp.Algorithm == "NEXTN" || sp.Algorithm == "EAGLE" && slices.Contains(mtpArchs, firstArchOf(a))
	var err error
	switch {
	case mtp:
		err = r.resolveMTPDraft(a, d)
	case sp.Algorithm == "EAGLE":
		err = specRefuse("speculative-algorithm", sp.Algorithm, "an EAGLE-1 draft (LlamaForCausalLMEagle, models/llama_eagle.py) is not modelled; EAGLE on DeepSeek-V3 (its MTP layer, as NEXTN) and EAGLE3 are")
	default:
		err = r.resolveEagle3Draft(a, d)
	}
	if err != nil {
		return err
	}
	// Built before the draft's model, after the target's pool through
	// v0.5.13.post1 and before it from v0.5.14.
	d.Weights = append(d.Weights, d.chainItems(r.CudaGraphMaxBS, r.MaxRunningRequests)...)
	if tc := layerCell(a, *r); d.InFraction && d.LayerCell != tc {
		if d.asIfUnflagged != tc && (sp.DraftKVCacheDtype == "" || d.LayerCell < tc) {
			hint := ""
			if sp.DraftKVCacheDtype == "" && !older(p, specDraftKVDtypeFrom) && d.LayerCell == budget.SatMul(2, tc) {
				// A 16-bit draft beside a one-byte target cell: the
				// flag gives the draft's pool the target's cell.
				fp8 := r.KVCacheDtype
				if fp8 != "fp8_e5m2" {
					fp8 = "fp8_e4m3"
				}
				hint = fmt.Sprintf("; --speculative-draft-kv-cache-dtype %s puts the draft's pool in one byte, the target's cell (see docs/sglang.md, \"Speculative decoding\", v0.5.18)", fp8)
			}
			return specRefuse("speculative-algorithm", sp.Algorithm, "%s sizes the target's pool with its cell scaled by (1 + draft layers / target layers), assuming the draft's layer holds the target's KV bytes a token (model_executor/pool_configurator.py:129-145 at v0.5.14, :174-213 at v0.5.18); this draft's layer holds %d B a token, the target's %d, which is not modelled%s", p.Describes, d.LayerCell, tc, hint)
		}
		// --speculative-draft-kv-cache-dtype alone parts the draft's cell
		// from the target's: a smaller draft pool leaves the difference
		// free, the pool the one without the flag (see
		// [specDraftKVDtypeFrom]); a larger one, the flag given, is
		// refused naming it, whatever else parts the cells.
		if d.LayerCell > tc {
			return specRefuse("speculative-draft-kv-cache-dtype", sp.DraftKVCacheDtype, "the draft's pool in this dtype holds %d B a token a layer, the target's %d; %s still sizes the target's pool with the target's cell scaled by (1 + draft layers / target layers), assuming the draft's layer shares the target's head_dim, num_kv_heads and dtype (model_executor/pool_configurator.py:174-213 at v0.5.18), so the draft's pool of %d layer(s) takes %d B a token more than the fraction counts, which SGLang does not check; this is not modelled",
				d.LayerCell, tc, p.Describes, d.Layers, budget.SatMul(d.LayerCell-tc, d.Layers))
		}
	}
	r.Draft = d
	return nil
}

// autoTopK is the top-k of SGLang's own choice for a (see
// [autoSpecParams]).
func autoTopK(p Profile, a *model.Arch) uint64 {
	_, k, _ := autoSpecParams(p, a)
	return k
}

// specRefuse is the setting error of a speculative serve membudget does
// not model, saying so.
func specRefuse(flag string, value any, format string, args ...any) error {
	return settingErr(flag, value, format+"; membudget refuses it rather than size a serve SGLang would contradict", args...)
}

// resolveSpecCounts sets the draft's steps, top-k and draft tokens as
// _handle_speculative_decoding does (server_args.py:1789-1826 at
// v0.5.6.post2, :2193-2230 at v0.5.8.post1).
func (r *Resolved) resolveSpecCounts(a *model.Arch, d *specDraft, def func(string, string)) error {
	sp := r.Spec
	for _, f := range []struct {
		flag string
		v    uint64
	}{{"speculative-num-steps", sp.NumSteps}, {"speculative-eagle-topk", sp.EagleTopK}, {"speculative-num-draft-tokens", sp.NumDraftTokens}} {
		if f.v > maxSpecCount {
			return settingErr(f.flag, f.v, "beyond any serve (at most %d)", maxSpecCount)
		}
	}
	d.Steps, d.TopK, d.DraftTokens = sp.NumSteps, sp.EagleTopK, sp.NumDraftTokens
	switch {
	case d.Steps == 0 && (d.TopK != 0 || d.DraftTokens != 0):
		flag := "speculative-eagle-topk"
		if d.TopK == 0 {
			flag = "speculative-num-draft-tokens"
		}
		return settingErr(flag, "", "given without --speculative-num-steps: SGLang asserts the three are chosen together (server_args.py:1789-1793)")
	case d.Steps == 0:
		d.Steps, d.TopK, d.DraftTokens = autoSpecParams(r.Profile, a)
		def("speculative-num-steps", fmt.Sprintf("%d, with --speculative-eagle-topk %d and --speculative-num-draft-tokens %d: SGLang's auto_choose_speculative_params for %s", d.Steps, d.TopK, d.DraftTokens, firstArchOf(a)))
	case d.TopK == 0:
		return settingErr("speculative-eagle-topk", "", "missing beside --speculative-num-steps: SGLang compares it with 1 while it is None and fails (server_args.py:1805, 1811)")
	}
	if r.AttentionBackend == "trtllm_mha" && d.TopK > 1 {
		return settingErr("speculative-eagle-topk", d.TopK, "SGLang refuses it with the trtllm_mha attention backend, which takes top-k 1 (server_args.py:1800-1808)")
	}
	if d.TopK == 1 && d.DraftTokens != d.Steps+1 {
		// server_args.py:1810-1817: SGLang adjusts it, with a warning.
		d.DraftTokens = d.Steps + 1
		def("speculative-num-draft-tokens", fmt.Sprintf("%d: --speculative-num-steps + 1 with top-k 1 (server_args.py:1810-1817)", d.DraftTokens))
	}
	if d.DraftTokens == 0 {
		return settingErr("speculative-num-draft-tokens", "", "missing with --speculative-eagle-topk %d: SGLang multiplies it into the pools while it is None and fails (model_runner.py:1700-1710)", d.TopK)
	}
	// From v0.5.13 triton too (arg_groups/speculative_hook.py:373-386), and
	// the v2 worker above top-k 1 is refused after.
	if d.TopK > 1 && r.PageSize > 1 && r.AttentionBackend != "flashinfer" && r.AttentionBackend != "fa3" && !d.V2Only {
		return settingErr("speculative-eagle-topk", d.TopK, "SGLang refuses top-k above 1 with --page-size %d unless --attention-backend is flashinfer or fa3 (server_args.py:1819-1826)", r.PageSize)
	}
	return nil
}

// autoSpecParams is auto_choose_speculative_params: (steps, top-k, draft
// tokens) by the target's first architecture (server_args.py:4649-4680 at
// v0.5.6.post2; the catch-all is (3, 1, 4) from v0.5.8, :5425-5459).
func autoSpecParams(p Profile, a *model.Arch) (steps, topk, tokens uint64) {
	arch := firstArchOf(a)
	switch {
	case arch == "LlamaForCausalLM" || arch == "Grok1ForCausalLM" || arch == "Grok1VForCausalLM":
		return 5, 4, 8
	case slices.Contains(mtpArchs, arch) || arch == "DeepseekV2ForCausalLM" || arch == "GptOssForCausalLM" || arch == "MiMoV2FlashForCausalLM":
		return 3, 1, 4
	case older(p, specOtherDefaultUntil):
		return 5, 4, 8
	}
	return 3, 1, 4
}

// firstArchOf is architectures[0], which SGLang's choices read.
func firstArchOf(a *model.Arch) string {
	if len(a.Architectures) == 0 {
		return ""
	}
	return a.Architectures[0]
}

// resolveMTPDraft sizes DeepSeek-V3's multi-token-prediction layer as
// SGLang's draft: DeepseekV3ForCausalLMNextN (models/deepseek_nextn.py
// :63-120 at v0.5.6.post2) builds one DeepseekV2DecoderLayer (MLA and MoE,
// quantized as the target), enorm, hnorm and shared_head.norm (hidden
// each), eh_proj (an nn.Linear of 2 x hidden inputs, replicated,
// unquantized), and an embedding and LM head that eagle_worker.py:179-180
// replaces with the target's (set_embed_and_head deletes its own,
// models/deepseek_v2.py). Its pool holds num_nextn_predict_layers layers
// (model_runner.py:1370-1375).
func (r *Resolved) resolveMTPDraft(a *model.Arch, d *specDraft) error {
	refuse := func(format string, args ...any) error {
		return specRefuse("speculative-algorithm", r.Spec.Algorithm, format, args...)
	}
	switch {
	case firstArchOf(a) != "DeepseekV3ForCausalLM" || !a.MLA || a.Indexer != nil:
		return refuse("the MTP draft of %s (%s) is not modelled; membudget sizes DeepSeek-V3's (DeepseekV3ForCausalLM)", a.Source, firstArchOf(a))
	case a.MTPLayers != 1:
		return refuse("%s has num_nextn_predict_layers %d; SGLang's NextN draft builds one layer (models/deepseek_nextn.py), and membudget sizes that case", a.Source, a.MTPLayers)
	case r.Spec.DraftModelPath != "":
		return refuse("an MTP draft from its own checkpoint (--speculative-draft-model-path; SGLang loads it in place of the target's MTP layer) is not modelled: leave the flag out to use the target's")
	case r.Quant.Method == "modelopt":
		return refuse("DeepseekV3ForCausalLMNextN drops or recasts a ModelOpt checkpoint's quantization for its layer (models/deepseek_nextn.py:71-84), which is not modelled")
	}
	d.Kind, d.MLA, d.Layers, d.HeadVocab = "mtp", true, a.MTPLayers, a.Vocab
	if d.V2 {
		d.FutureRow = specFutureRow(d.TopK, a.Hidden, r.DtypeBytes)
	}
	d.LayerCell = layerCell(a, *r)
	d.asIfUnflagged = d.LayerCell
	if f := r.Spec.DraftKVCacheDtype; f != "" {
		// The NextN layer keeps the target's quant_config, so "auto"
		// resolves as the target's own auto would (kv_cache_dtype.py:
		// 37-47 at v0.5.18): the model's dtype, unless the checkpoint
		// asks for an FP8 KV cache, whose reading for the draft is not
		// modelled here.
		if f == "auto" && a.Quant.KVCacheDtype != "" {
			return specRefuse("speculative-draft-kv-cache-dtype", f, "the NextN draft's own auto KV dtype beside a checkpoint that asks for %s (its quant_config's kv_cache_quant_algo, mem_cache/kv_cache_dtype.py:37-45 at v0.5.18) is not modelled", a.Quant.KVCacheDtype)
		}
		dr := *r
		dr.KVDtypeBytes = draftKVEl(f, r.DtypeBytes)
		d.LayerCell = layerCell(a, dr)
	}
	st := stageOf(*r, 0)
	last := len(a.Layers) - 1
	one := st
	one.FirstLayer, one.EndLayer, one.First, one.Last = last, last+1, false, false
	prefix := fmt.Sprintf("model.layers.%d.", last)
	for _, it := range weightItems(a, *r, one) {
		if strings.HasPrefix(it.Name, prefix) {
			it.Name = "spec_draft.decoder." + strings.TrimPrefix(it.Name, prefix)
			d.Weights = append(d.Weights, it)
		}
	}
	h, el := a.Hidden, r.DtypeBytes
	d.Weights = append(d.Weights,
		budget.Item{Name: "spec_draft.eh_proj", Bytes: budget.SatMul(budget.SatMul(2*h, h), el)},
		budget.Item{Name: "spec_draft.enorm", Bytes: budget.SatMul(h, el)},
		budget.Item{Name: "spec_draft.hnorm", Bytes: budget.SatMul(h, el)},
		budget.Item{Name: "spec_draft.shared_head.norm", Bytes: budget.SatMul(h, el)})
	rows := budget.SatMul(vocabRowsPerRank(a.Vocab, r.TPSize), h)
	d.Transient = []budget.Item{
		{Name: "spec_draft.embed_tokens.until_shared", Bytes: budget.SatMul(rows, el)},
		{Name: "spec_draft.lm_head.until_shared", Bytes: budget.SatMul(rows, el)},
	}
	return nil
}

// vocabRowsPerRank is one rank's rows of a vocabulary-parallel table:
// padded to DEFAULT_VOCAB_PADDING_SIZE, 64, then divided among the ranks
// (layers/vocab_parallel_embedding.py:37 at v0.5.6.post2).
func vocabRowsPerRank(vocab, tp uint64) uint64 {
	return budget.CeilDiv(budget.RoundUp(vocab, 64), tp)
}

// eagle3Config is what an EAGLE-3 draft's config.json says beyond the
// Llama shape model/ reads from it.
type eagle3Config struct {
	arch             *model.Arch
	draftVocab       uint64 // 0: absent, the target's head is shared
	tied             bool
	targetHiddenSize uint64
	dtype            string
	// normBeforeFC is the config's norm_before_fc (see
	// [eagle3NormBeforeFCFrom]).
	normBeforeFC bool
}

// maxDraftConfigBytes bounds the draft's config.json.
const maxDraftConfigBytes = 1 << 20

// eagle3Archs are the draft architectures SGLang builds as
// LlamaForCausalLMEagle3 (models/llama_eagle3.py EntryClass).
var eagle3Archs = []string{"LlamaForCausalLMEagle3"}

// eagle3Refused are the draft config keys that change its tensors in ways
// membudget does not size; false and null change nothing.
// fc_norm and use_aux_norm give v0.5.12's draft an RMSNorm per auxiliary
// input (models/llama_eagle3.py:166-178 at v0.5.12; earlier releases
// ignore them, and are refused them alike).
var eagle3Refused = []string{"quantization_config", "attention_bias", "bias", "mlp_bias", "eagle_config", "rope_scaling", "fc_norm", "use_aux_norm"}

// eagle3AuxInputs is the auxiliary hidden states an EAGLE-3 draft's fc
// takes, hidden each: 3 through v0.5.11 (llama_eagle3.py:135-139 at
// v0.5.6.post2), and from v0.5.12 num_aux_hidden_states when the config
// gives it (llama_eagle3.py:154-163 at v0.5.12), which membudget sizes at 3
// alone.
const eagle3AuxInputs = 3

// draftConfigs keeps each draft directory's reading: a plan resolves a
// serve many times.
var draftConfigs sync.Map // string -> draftConfigOrErr

type draftConfigOrErr struct {
	c   eagle3Config
	err error
}

// readEagle3Config reads dir/config.json once per directory.
func readEagle3Config(dir string) (eagle3Config, error) {
	if v, ok := draftConfigs.Load(dir); ok {
		e := v.(draftConfigOrErr)
		return e.c, e.err
	}
	c, err := readEagle3ConfigFile(dir)
	draftConfigs.Store(dir, draftConfigOrErr{c, err})
	return c, err
}

func readEagle3ConfigFile(dir string) (eagle3Config, error) {
	file := filepath.Join(dir, "config.json")
	data, err := hub.ReadRegularFile(file, maxDraftConfigBytes)
	if err != nil {
		return eagle3Config{}, err
	}
	return parseEagle3Config(file, data)
}

// parseEagle3Config reads an EAGLE-3 draft's config.json (data, from
// file): its Llama shape through model/ (the architecture read as
// LlamaForCausalLM, whose decoder layer the draft's midlayer is), and the
// keys SGLang's draft reads beyond it.
func parseEagle3Config(file string, data []byte) (eagle3Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		return eagle3Config{}, fmt.Errorf("%s: want a JSON object: %v", file, err)
	}
	var archs []string
	if v, ok := raw["architectures"]; ok {
		if err := json.Unmarshal(v, &archs); err != nil {
			return eagle3Config{}, fmt.Errorf("%s: key \"architectures\" is %s; want a list of strings", file, v)
		}
	}
	if len(archs) == 0 || !slices.Contains(eagle3Archs, archs[0]) {
		return eagle3Config{}, fmt.Errorf("%s: architectures %q: membudget sizes SGLang's EAGLE-3 Llama draft (%s) only", file, archs, strings.Join(eagle3Archs, ", "))
	}
	for _, k := range eagle3Refused {
		if v, ok := raw[k]; ok && string(v) != "false" && string(v) != "null" {
			return eagle3Config{}, fmt.Errorf("%s: key %q: not modelled for SGLang's EAGLE-3 draft; membudget refuses it rather than size a serve SGLang would contradict", file, k)
		}
	}
	c := eagle3Config{}
	count := func(key string, to *uint64) error {
		v, ok := raw[key]
		if !ok || string(v) == "null" {
			return nil
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(v)), 10, 32)
		if err != nil || n == 0 {
			return fmt.Errorf("%s: key %q is %s; want a positive integer", file, key, v)
		}
		*to = n
		return nil
	}
	var aux uint64
	if err := errors.Join(count("draft_vocab_size", &c.draftVocab), count("target_hidden_size", &c.targetHiddenSize), count("num_aux_hidden_states", &aux)); err != nil {
		return c, err
	}
	if aux != 0 && aux != eagle3AuxInputs {
		return c, fmt.Errorf("%s: key \"num_aux_hidden_states\" is %d: v0.5.12's fc takes that many hidden inputs (models/llama_eagle3.py:154-163); membudget sizes %d, the fixed count of earlier releases", file, aux, eagle3AuxInputs)
	}
	if v, ok := raw["tie_word_embeddings"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &c.tied); err != nil {
			return c, fmt.Errorf("%s: key \"tie_word_embeddings\" is %s; want a boolean", file, v)
		}
	}
	if v, ok := raw["norm_before_fc"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &c.normBeforeFC); err != nil {
			return c, fmt.Errorf("%s: key \"norm_before_fc\" is %s; want a boolean", file, v)
		}
	}
	if v, ok := raw["torch_dtype"]; ok && string(v) != "null" {
		if err := json.Unmarshal(v, &c.dtype); err != nil {
			return c, fmt.Errorf("%s: key \"torch_dtype\" is %s; want a string", file, v)
		}
	}
	// The midlayer is a LlamaDecoderLayer: model/ reads its shape as a
	// Llama's, with transformers' LlamaConfig defaults.
	raw["architectures"] = json.RawMessage(`["LlamaForCausalLM"]`)
	raw["model_type"] = json.RawMessage(`"llama"`)
	as, err := json.Marshal(raw)
	if err != nil {
		return c, fmt.Errorf("%s: %w", file, err)
	}
	a, err := model.ParseConfig(file, as)
	if err != nil {
		return c, err
	}
	if a.NumLayers != 1 {
		// llama_eagle3.py:198-199; v0.5.12 builds several (PR #24663,
		// llama_eagle3.py:179-185), whose later layers take hidden inputs
		// only.
		return c, fmt.Errorf("%s: num_hidden_layers %d: membudget sizes SGLang's one-layer EAGLE-3 draft (models/llama_eagle3.py:198-199 refuses others through v0.5.11; v0.5.12's several layers, PR #24663, are not modelled)", file, a.NumLayers)
	}
	c.arch = a
	if c.dtype == "" {
		c.dtype = a.Dtype
	}
	return c, nil
}

// resolveEagle3Draft sizes an EAGLE-3 draft as SGLang's
// LlamaForCausalLMEagle3 builds it (models/llama_eagle3.py at
// v0.5.6.post2): fc, a replicated nn.Linear of 3 x hidden inputs
// (:135-139); one midlayer, a LlamaDecoderLayer whose qkv_proj takes 2 x
// hidden inputs (:54-62) with input_layernorm, post_attention_layernorm
// and hidden_norm (:73); the final norm; an lm_head of draft_vocab_size
// rows, unless the config ties it to the embedding or has no
// draft_vocab_size, when the target's head is used (:206-216,
// eagle_worker.py:156-165). Its embedding is replaced by the target's
// (llama.py:720-731 set_embed).
func (r *Resolved) resolveEagle3Draft(a *model.Arch, d *specDraft) error {
	path := r.Spec.DraftModelPath
	switch {
	case path == "":
		return settingErr("speculative-draft-model-path", "", "missing: SGLang's EAGLE3 loads its draft from it")
	case !slices.Contains(eagle3Targets, firstArchOf(a)):
		return specRefuse("speculative-algorithm", r.Spec.Algorithm, "an EAGLE-3 draft for %s is not modelled; membudget sizes it for %s", firstArchOf(a), strings.Join(eagle3Targets, ", "))
	}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return settingErr("speculative-draft-model-path", path, "not a local directory: membudget reads the draft's config.json from a local directory only (a Hub id is not fetched for the draft)")
	}
	c, err := readEagle3Config(path)
	if err != nil {
		return settingErr("speculative-draft-model-path", path, "%v", err)
	}
	da := c.arch
	switch {
	case da.Hidden != a.Hidden:
		return specRefuse("speculative-draft-model-path", path, "the draft's hidden_size %d differs from the target's %d: SGLang then keeps the draft's own embedding (llama.py:722-726), which is not modelled", da.Hidden, a.Hidden)
	case c.targetHiddenSize != 0 && c.targetHiddenSize != a.Hidden:
		return specRefuse("speculative-draft-model-path", path, "target_hidden_size %d differs from the target's hidden_size %d, which is not modelled", c.targetHiddenSize, a.Hidden)
	}
	el := r.DtypeBytes
	if _, auto := r.Sources["dtype"]; auto {
		// --dtype auto: the draft's ModelConfig takes its own torch_dtype
		// (configs/model_config.py _get_and_verify_dtype).
		switch c.dtype {
		case "bfloat16", "float16":
			el = 2
		default:
			return specRefuse("speculative-draft-model-path", path, "the draft's torch_dtype %q: with --dtype auto SGLang serves the draft in its own dtype, which membudget sizes for bfloat16 and float16; give --dtype", c.dtype)
		}
	}
	kvEl := el
	switch r.KVCacheDtype {
	case "fp8_e4m3", "fp8_e5m2":
		kvEl = 1
	case "auto":
		// The draft's own quant_config decides (model_runner.py:1627-1639),
		// and the draft has none (quantization_config is refused): its
		// dtype, whatever a ModelOpt target's kv_cache_quant_algo says,
		// until the target's FP8 choice is written back for the draft to
		// read (see [specKVFromTargetFrom]), and again from v0.5.17 (see
		// [specKVFromTargetUntil]), where the draft's layer then differs
		// from the target's and the scaled cell refuses the serve.
		if r.KVDtypeBytes == 1 && !older(r.Profile, specKVFromTargetFrom) && older(r.Profile, specKVFromTargetUntil) {
			kvEl = 1
		}
	default:
		kvEl = r.KVDtypeBytes
	}
	tp := r.TPSize
	if da.Heads%tp != 0 {
		return settingErr("tp-size", tp, "does not divide the draft's %d attention heads (layers/linear.py:826)", da.Heads)
	}
	heads := da.Heads / tp
	kv := model.KVHeadsPerRank(da, tp)
	h, hd, inter := da.Hidden, da.HeadDim, budget.CeilDiv(da.Intermediate, tp)
	d.Kind, d.Layers, d.HeadVocab = "eagle3", 1, a.Vocab
	if d.V2 {
		// The draft's own hidden states, of its width and dtype
		// (eagle_worker_v2.py:547-551 at v0.5.11: the draft's
		// logits_output.hidden_states).
		d.FutureRow = specFutureRow(d.TopK, da.Hidden, el)
	}
	d.LayerCell = budget.SatMul(2*kv*hd, kvEl)
	d.asIfUnflagged = d.LayerCell
	if f := r.Spec.DraftKVCacheDtype; f != "" {
		// "auto" reads the draft model's quant_config, which it has none
		// of (quantization_config is refused): the draft's dtype.
		d.LayerCell = budget.SatMul(2*kv*hd, draftKVEl(f, el))
	}
	w := func(name string, n uint64) budget.Item {
		return budget.Item{Name: "spec_draft." + name, Bytes: budget.SatMul(n, el)}
	}
	d.Weights = append(d.Weights,
		w("fc", budget.SatMul(eagle3AuxInputs*h, h)),
		w("midlayer.self_attn.qkv_proj", budget.SatMul((heads+2*kv)*hd, 2*h)),
		w("midlayer.self_attn.o_proj", budget.SatMul(heads*hd, h)),
		w("midlayer.mlp.gate_up_proj", budget.SatMul(2*inter, h)),
		w("midlayer.mlp.down_proj", budget.SatMul(inter, h)),
		w("midlayer.input_layernorm", h), w("midlayer.post_attention_layernorm", h), w("midlayer.hidden_norm", h),
		w("norm", h))
	if c.normBeforeFC && !older(r.Profile, eagle3NormBeforeFCFrom) {
		// input_norm's weight, of fc's 3 x hidden inputs
		// (llama_eagle3.py:161-174 at v0.5.17).
		d.Weights = append(d.Weights, w("input_norm", eagle3AuxInputs*h))
	}
	switch {
	case c.tied || c.draftVocab == 0:
		// The head is the embedding (tied) or the target's; without
		// draft_vocab_size SGLang builds a head of vocab_size rows and
		// replaces it (llama_eagle3.py:209-212).
		if !c.tied {
			d.Transient = append(d.Transient, w("lm_head.until_shared", budget.SatMul(vocabRowsPerRank(da.Vocab, tp), h)))
		}
	default:
		d.HeadVocab = c.draftVocab
		d.Weights = append(d.Weights, w("lm_head", budget.SatMul(vocabRowsPerRank(c.draftVocab, tp), h)),
			// d2t becomes hot_token_id, int64 on the device
			// (llama_eagle3.py:240-244, eagle_worker.py:168-171).
			budget.Item{Name: "spec_draft.hot_token_id", Bytes: budget.SatMul(c.draftVocab, 8)})
	}
	for i, t := range da.Rotary {
		// get_rope shares a table whose key equals the target's;
		// membudget does not read rope_theta to tell, and charges it.
		rows := t.Positions
		if r.Profile.RopeReserve {
			rows = ropeReserveRows(rows, r.ContextLength)
		}
		d.Weights = append(d.Weights, budget.Item{Name: fmt.Sprintf("spec_draft.rotary_emb.%d.cos_sin_cache", i), Bytes: budget.SatMul(budget.SatMul(rows, t.Dim), 4)})
	}
	d.Transient = append(d.Transient, w("embed_tokens.until_shared", budget.SatMul(vocabRowsPerRank(da.Vocab, tp), h)))
	return nil
}

// draftKVEl is the draft pool's element size under
// --speculative-draft-kv-cache-dtype flag (see [specDraftKVDtypeFrom]):
// one byte for an FP8 choice (stored as uint8, mem_cache/memory_pool.py),
// two for bf16 and bfloat16, and auto, the element "auto" resolves to
// from the draft model's own quant_config (mem_cache/kv_cache_dtype.py:
// 33-47 at v0.5.18).
func draftKVEl(flag string, auto uint64) uint64 {
	switch flag {
	case "fp8_e4m3", "fp8_e5m2":
		return 1
	case "bf16", "bfloat16":
		return 2
	}
	return auto
}

// specHeadroom is the tokens v0.5.6.post2 adds to the target's pool for
// the draft and verify tokens of every request: max_num_reqs x (steps x
// top-k + draft tokens) + 100 (model_runner.py:1697-1713); 0 where the
// release has it not.
func (d *specDraft) headroom(maxNumReqs uint64) int64 {
	if d == nil || !d.Headroom {
		return 0
	}
	return int64(budget.SatAdd(budget.SatMul(maxNumReqs, budget.SatAdd(budget.SatMul(d.Steps, d.TopK), d.DraftTokens)), 100))
}

// reqExtra is what speculative decoding adds to every req_to_token row
// beyond the plain serve's 4: --speculative-num-draft-tokens
// (model_runner.py:1752-1755), and from v0.5.16 on pages above 1 at least
// the decode's double reserve 2 x max(steps x top-k, draft tokens) and a
// page less one, less the 4 (see [specReqPageReserveFrom]).
func (d *specDraft) reqExtra() uint64 {
	if d == nil {
		return 0
	}
	if d.ReqPage == 0 {
		return d.DraftTokens
	}
	alloc := max(budget.SatMul(d.Steps, d.TopK), d.DraftTokens)
	return max(d.DraftTokens, budget.SatSub(budget.SatAdd(budget.SatMul(2, alloc), d.ReqPage-1), 4))
}

// specItems is stage i's draft terms beside the budget: the draft's
// weights, what it holds until it shares the target's embedding, its KV
// pool of the target's token count plus the page of padding rows
// (memory_pool.py:616-633), in v0.5.6.x the target pool's headroom, and
// on the spec v2 worker its future map. From v0.5.14 the weights and the
// pool's tokens are in the budget (see [specDraft.InFraction]): beside
// it stay the padding rows and what the pool holds beyond the scaled
// cell, when int() rounded it below the two cells' sum.
func (ref *Reference) specItems(i int) []budget.Item {
	d, st := ref.Serve.Draft, &ref.stages[i]
	if d == nil || st.tokens <= 0 {
		return nil
	}
	var items []budget.Item
	if d.InFraction {
		draft := budget.SatMul(d.LayerCell, d.Layers)
		items = append(items,
			budget.Item{Name: "spec_draft.kv_cache.padding_rows", Term: budget.TermNonTorch, Bytes: budget.SatMul(st.pageTokens, draft)},
			budget.Item{Name: "spec_draft.kv_cache.beyond_scaled_cell", Term: budget.TermNonTorch,
				Bytes: budget.SatMul(uint64(st.tokens), budget.SatSub(budget.SatAdd(st.targetCell, draft), st.cell))})
	} else {
		for _, it := range slices.Concat(d.Weights, d.Transient) {
			it.Term = budget.TermNonTorch
			items = append(items, it)
		}
		items = append(items, budget.Item{Name: "spec_draft.kv_cache", Term: budget.TermNonTorch,
			Bytes: budget.SatMul(d.layerKV(st), d.Layers)})
	}
	if st.headroom > 0 {
		items = append(items, budget.Item{Name: "kv_cache.spec_headroom", Term: budget.TermNonTorch, Bytes: budget.SatMul(uint64(st.headroom), st.cell)})
	}
	var fm uint64
	for _, b := range ref.futureMap() {
		fm = budget.SatAdd(fm, b)
	}
	if fm > 0 {
		items = append(items, budget.Item{Name: "spec_future_map", Term: budget.TermNonTorch, Bytes: fm})
	}
	return items
}

// futureMap is the spec v2 worker's future map for this serve (see
// [specDraft.futureMap]). Through v0.5.12.post1 FutureMap keeps
// maxRunning x (3 + chunks) + 2 x maxRunning slots (managers/
// overlap_utils.py:52-68 at v0.5.11), for the scheduler's
// max_running_requests and chunks = ceil(context / chunked prefill) (none
// when --chunked-prefill-size is not above 0, managers/scheduler.py:
// 1065-1066 at v0.5.11), the draft input's tensors allocated at the first
// stored draft input, after the pool (_lazy_init_buf, :73-114). From
// v0.5.13 one slot per req_to_token row (req_to_token.shape[0],
// overlap_utils.py:116 at v0.5.13; see [specV2OnlyFrom]).
func (ref *Reference) futureMap() []uint64 {
	r := ref.Serve
	if r.Draft != nil && r.Draft.V2Only {
		// The speculative serve has one stage (pipeline parallelism is
		// refused).
		return r.Draft.futureMap(reqToTokenRows(ref.stages[0].maxNumReqs, r.Profile))
	}
	var chunks uint64
	if r.ChunkedPrefillSize > 0 {
		chunks = budget.CeilDiv(r.ContextLength, uint64(r.ChunkedPrefillSize))
	}
	return r.Draft.futureMap(budget.SatMul(ref.maxRunning, budget.SatAdd(5, chunks)))
}

// addSpecPools adds the draft's tensors the caching allocator holds after
// the pool is sized to its pools: from v0.5.14 the weights are in the
// load's (see [specDraft.loadItems]).
func (ref *Reference) addSpecPools(p torchalloc.Pools, i int) torchalloc.Pools {
	d, st := ref.Serve.Draft, &ref.stages[i]
	if d == nil || st.tokens <= 0 {
		return p
	}
	if !d.InFraction {
		for _, it := range d.Weights {
			p = p.Add(it.Bytes, 1)
		}
	}
	for _, b := range ref.futureMap() {
		p = p.Add(b, 1)
	}
	per := d.layerKV(st)
	if !d.MLA {
		per /= 2 // a K and a V tensor per layer
		p = p.Add(per, d.Layers)
	}
	return p.Add(per, d.Layers)
}

// loadItems are, from v0.5.14, the draft's tensors SGLang holds when it
// measures free memory for the pool (see [specDraft.InFraction]): its
// weights and what it keeps until it shares the target's embedding and
// head, as weights, to which [withAllocatorSlack] adds the allocator's
// slack with the target's; none before, or without a draft.
func (d *specDraft) loadItems() []budget.Item {
	if d == nil || !d.InFraction {
		return nil
	}
	items := slices.Concat(d.Weights, d.Transient)
	for i := range items {
		items[i].Term = budget.TermWeights
	}
	return items
}

// draftKV is the K and V bytes of the draft's pool as SGLang
// logs them (MLA: the latent in k, v 0); 0 without a draft.
func (ref *Reference) draftKV() (k, v uint64) {
	d, st := ref.Serve.Draft, &ref.stages[0]
	if d == nil || st.tokens <= 0 {
		return 0, 0
	}
	all := budget.SatMul(d.layerKV(st), d.Layers)
	if d.MLA {
		return all, 0
	}
	return all / 2, all / 2
}

// layerKV is one draft layer's KV bytes at stage st: the target pool's
// tokens and its page of padding rows, a LayerCell each.
func (d *specDraft) layerKV(st *refStage) uint64 {
	return budget.SatMul(budget.SatAdd(uint64(st.tokens), st.pageTokens), d.LayerCell)
}

// specLine is the launch line's speculative flags, as SGLang reads them
// back.
func (r Resolved) specLine() string {
	if r.Draft == nil {
		return ""
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, " --speculative-algorithm %s", r.Spec.Algorithm)
	if r.Spec.DraftModelPath != "" {
		fmt.Fprintf(&b, " --speculative-draft-model-path %s", shell.Quote(r.Spec.DraftModelPath))
	}
	fmt.Fprintf(&b, " --speculative-num-steps %d --speculative-eagle-topk %d --speculative-num-draft-tokens %d", r.Draft.Steps, r.Draft.TopK, r.Draft.DraftTokens)
	if r.Spec.DraftKVCacheDtype != "" {
		fmt.Fprintf(&b, " --speculative-draft-kv-cache-dtype %s", r.Spec.DraftKVCacheDtype)
	}
	return b.String()
}

// registerSpec registers the speculative flags membudget sizes, under
// SGLang's names (server_args.py:3015-3061 at v0.5.6.post2).
func (f *flagServe) registerSpec(fs *flag.FlagSet) {
	fs.StringVar(&f.s.Spec.Algorithm, "speculative-algorithm", "", "SGLang's --speculative-algorithm: EAGLE3 (with --speculative-draft-model-path) or NEXTN (DeepSeek-V3's MTP layer; EAGLE on DeepSeek-V3 is the same); sized with --disable-cuda-graph")
	for _, name := range []string{"speculative-draft-model-path", "speculative-draft-model"} {
		fs.StringVar(&f.s.Spec.DraftModelPath, name, "", "SGLang's --speculative-draft-model-path (--speculative-draft-model): the EAGLE-3 draft's local directory")
	}
	fs.Var(&countFlag{v: &f.s.Spec.NumSteps, name: "speculative-num-steps"}, "speculative-num-steps", "SGLang's --speculative-num-steps (default: SGLang's choice for the architecture)")
	fs.Var(&countFlag{v: &f.s.Spec.EagleTopK, name: "speculative-eagle-topk"}, "speculative-eagle-topk", "SGLang's --speculative-eagle-topk (default: SGLang's choice for the architecture)")
	fs.StringVar(&f.s.Spec.DraftKVCacheDtype, "speculative-draft-kv-cache-dtype", "", "SGLang's --speculative-draft-kv-cache-dtype (v0.5.18 on): the draft's KV pool dtype (default: --kv-cache-dtype's)")
	fs.Var(&countFlag{v: &f.s.Spec.NumDraftTokens, name: "speculative-num-draft-tokens"}, "speculative-num-draft-tokens", "SGLang's --speculative-num-draft-tokens (default: SGLang's choice; --speculative-num-steps + 1 at top-k 1)")
}
