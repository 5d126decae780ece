package sglang

import "slices"

// The SGLang releases after v0.5.6.post2 whose tags membudget has read, from
// a git mirror of sgl-project/sglang that holds every tag from v0.5.6 to
// v0.5.13.post2 (GitHub charlesHsuGG/sglang). Each profile states the rules
// of its tag; a rule is set from the release that changed it, and the
// comment beside it names the file and line at that tag and the pull
// request of the commit that changed it.

// profile056post3 is v0.5.6.post3 (tag 112ddbc, 2026-06-18, the fallback
// for CUDA 12 drivers on PyPI): against v0.5.6.post2 it changes the OpenAI
// entrypoints, gpt-oss's function-call and reasoning parsers, the
// tokenizer manager and one dependency (json_repair); server_args.py,
// model_executor/, mem_cache/, configs/model_config.py, utils/, models/
// and layers/ are as v0.5.6.post2 has them (git diff v0.5.6.post2
// v0.5.6.post3 --stat), so its rules are v0.5.6.post2's.
var profile056post3 = func() Profile {
	p := profile056post2
	p.Name = "v0.5.6.post3"
	p.Commit = "112ddbce3102729bb12aaa0f304f48de37f46852"
	p.Describes = "SGLang v0.5.6.post3 (tag 112ddbc, 2026-06-18; v0.5.6.post2's memory rules)"
	return p
}()

// profile057 is v0.5.7 (tag 232982a, 2026-01-01). Against v0.5.6.post2:
//   - The default attention backend of a non-MLA model is trtllm_mha on
//     SM10x only (is_sm100_supported); SM12x (RTX 50, RTX PRO 6000, GB10)
//     falls back to flashinfer, page size 1 (PR #14842, server_args.py:
//     1534-1542; utils/common.py:232-236). Setting trtllm_mha on a device
//     that is not SM10x is still refused (server_args.py:1624-1632).
//   - TensorRT-LLM MLA also takes --kv-cache-dtype bf16 (PR #15986,
//     server_args.py:1619).
//   - The sliding-window split is read from model_config.is_hybrid_swa,
//     which is set for MiMo-V2 and Llama 4 alone (PR #15877;
//     configs/model_config.py:304-319, 1147-1167): Gemma 2 and 3 and
//     gpt-oss keep every layer in one pool, as under v0.5.6.post2, which
//     disables the split for them (see [Profile.HybridSWA]).
//   - --mem-fraction-static's default: the piecewise CUDA graph reserve is
//     piecewise_cuda_graph_max_tokens // 8 MiB, not // 4, and
//     piecewise_cuda_graph_max_tokens defaults to the chunked prefill size
//     (server_args.py:898-902, 943-945); piecewise graphs are off unless
//     --enable-piecewise-cuda-graph (server_args.py:548), a flag membudget
//     does not take, so the default is v0.5.6.post2's: 512 + 1.5 x
//     max(chunked prefill, 2048) + 2 x cuda_graph_max_bs + TP x PP / 8 x
//     1024 MiB, at least 10 GiB above 60 GiB (server_args.py:909-955).
//   - Unchanged, read at the tag: the GPU tiers of chunked_prefill_size and
//     cuda_graph_max_bs (server_args.py:803-895; only the Ascend NPU rows
//     go), the capture sizes (server_args.py:959-987,
//     cuda_graph_runner.py), the KV cell (profile_max_num_token and
//     get_cell_size_per_token moved to model_executor/
//     model_runner_kv_cache_mixin.py:2502-2596 of the joined file; a
//     non-MLA cell is heads x (head_dim + v_head_dim) x layers x bytes, and
//     v_head_dim is head_dim unless the config names it,
//     configs/model_config.py:367-371), init_memory_pool's
//     --max-total-tokens clamp, page alignment and the stages' minimum
//     (mixin init_memory_pool), the pool's tensors of size + page_size rows
//     (mem_cache/memory_pool.py:707-750), the "KV Cache is allocated" line
//     (memory_pool.py:562-568), max_running_requests
//     (model_runner.py:523-532), get_context_length, the long-context
//     switch (environ.py:333), EnvBool, the rotary reserve (environ.py:
//     357-359), the kv-cache-dtype choices and the checkpoint's fp8 KV
//     (model_runner.py configure_kv_cache_dtype), the aiter x 0.85
//     (server_args.py:1659-1660), the VLM factor and the PP split
//     (distributed/utils.py, unchanged).
var profile057 = func() Profile {
	p := profile056post2
	p.Name = "v0.5.7"
	p.Commit = "232982a0dee4f0f9545189a7d9b6b9bb802e4910"
	p.Describes = "SGLang v0.5.7 (tag 232982a, 2026-01-01)"
	p.TRTLLMSM100Only = true
	p.TRTLLMMLABF16 = true
	p.Native = native057
	return p
}()

// native057 is v0.5.6.post2's native architectures and those v0.5.7 adds in
// python/sglang/srt/models/ (the same grep at tag v0.5.7): GLM-ASR (PR
// #15772), MiDashengLM (PR #15219) and MiMo-V2-Flash (PR #15207); none
// goes.
var native057 = nativeAdding(native056,
	"GlmAsrForConditionalGeneration", "MiDashengLMModel", "MiMoV2FlashForCausalLM")

// profile058 is v0.5.8 (tag 0189f41, 2026-01-23). Against v0.5.7:
//   - gpt-oss gets the sliding-window split pool again, now paged
//     (is_hybrid_swa_model, PR #17261; configs/model_config.py:314-332,
//     1220-1229; mem_cache/swa_memory_pool.py), unless its attention is
//     trtllm_mha, its default on SM100, or speculative decoding is on (PR
//     #17429; server_args.py:1278-1293); membudget refuses that pool (see
//     [Profile.GptOssSplit]). Gemma 2 and 3 keep one pool
//     (server_args.py disable_hybrid_swa_memory, unchanged).
//   - The piecewise CUDA graph reserve is 8 MiB per captured size, and its
//     largest size 2048 tokens for MLA (server_args.py); piecewise graphs
//     are still off unless --enable-piecewise-cuda-graph, which membudget
//     does not take, so the default fraction is v0.5.7's.
//   - Hopper's default attention is fa3 for every non-MLA model, not only
//     the fa3-default architectures: page size 1, as flashinfer's.
//   - profile_max_num_token no longer counts model_config's full-attention
//     layers alone (MiMo-V2 and Llama 4, which membudget refuses); the
//     KV cell, init_memory_pool's clamp, alignment and stage minimum, the
//     MHA pool's tensors, the capture sizes (cuda_graph_runner.py
//     get_batch_sizes_to_capture: num_tokens_per_bs is 1 without
//     speculative decoding), the GPU tiers, the environment switches and
//     the rotary reserve are v0.5.7's (read at the tag).
var profile058 = func() Profile {
	p := profile057
	p.Name = "v0.5.8"
	p.Commit = "0189f41c30ede088a040a711a384f3024b8d7af5"
	p.Describes = "SGLang v0.5.8 (tag 0189f41, 2026-01-23)"
	p.GptOssSplit = true
	p.Native = native058
	return p
}()

// profile058post1 is v0.5.8.post1 (tag c1f2241, 2026-02-05): against
// v0.5.8 it changes DeepGEMM's compile utilities and one environment
// variable for them, no file that sizes memory, so its rules are v0.5.8's.
var profile058post1 = func() Profile {
	p := profile058
	p.Name = "v0.5.8.post1"
	p.Commit = "c1f2241a32b69be69828288b61331887c5647a4b"
	p.Describes = "SGLang v0.5.8.post1 (tag c1f2241, 2026-02-05; v0.5.8's memory rules)"
	return p
}()

// native058 is v0.5.7's native architectures and those v0.5.8 adds (the
// same grep at tag v0.5.8): AFMoE, GLM-4 MoE Lite and IQuest Coder (and its
// loop variant); NemotronH's MTP draft class is a draft, as the other
// NextN and MTP classes left out; none goes.
var native058 = nativeAdding(native057,
	"AfmoeForCausalLM", "Glm4MoeLiteForCausalLM", "IQuestCoderForCausalLM", "IQuestLoopCoderForCausalLM")

// profile059 is v0.5.9 (tag bbe9c7e, 2026-02-23). Against v0.5.8.post1
// (git diff v0.5.8.post1 v0.5.9 of server_args.py, model_executor/,
// mem_cache/, configs/model_config.py, layers/, distributed/, utils/ and
// models/, and of FlashInfer v0.5.3 to 0.6.3, which its pyproject.toml:31
// pins):
//   - is_blackwell_supported() counts SM11x (Jetson Thor) too (PR #18787;
//     utils/common.py:246-252), so --attention-backend trtllm_mla is taken
//     there (server_args.py:1874-1881); see [Profile.BlackwellSM11].
//   - FlashInfer's all-reduce fusion is on by itself for DeepSeek-V3,
//     gpt-oss, GLM-4.5 MoE, GLM-4.7-Flash, Qwen3-MoE and Kimi-K2.5 on SM90
//     or SM100, not the H20, at one node (server_args.py:1672-1697); its
//     workspace is v0.5.6.post2's, read in FlashInfer 0.6.3 (see
//     arFusion059).
//   - Native architectures: 23 new (see native059), whose model files are
//     not read: each is refused by name (see [Profile.UnreadModels]).
//   - Quantized weights: ModelOpt's NVFP4 linears are padded to 32 rows
//     and columns (PR #17300), the compressed-tensors MoE schemes are
//     rewritten (PR #17503), and fp8's ignored_layers keep their "model."
//     prefix (PR #18926): each is refused by name for the checkpoints it
//     touches (see [Profile.UnreadQuant], [Profile.FP8IgnoreUnstripped]).
//     MXFP4's Blackwell loading keeps a permutation cache on the device
//     (PR #18858): sized on SM10x, refused elsewhere (see mxfp4pad.go).
//   - Read and unchanged for every serve membudget takes: the default
//     fraction and its GPU tiers (server_args.py:911-1078 differ in
//     --language-only, which now skips the vision factor, PR #18011, and
//     --enable-symm-mem, which now preallocates 4 GiB, PR #17089: both
//     refused flags), the capture sizes (:1079-1107), the KV cell of a
//     model without a sliding-window split or DeepSeek's sparse indexer
//     (model_runner_kv_cache_mixin.py:47-115; calculate_mla_kv_cache_dim,
//     :212-249, returns kv_lora_rank + qk_rope_head_dim for every MLA model
//     without the indexer), init_memory_pool's clamp, alignment and stage
//     minimum (the draft's size now set after them, the same token count;
//     see spec.go), the MHA and MLA pools' tensors (mem_cache/
//     memory_pool.py), ReqToTokenPool, the rotary tables (layers/
//     rotary_embedding.py: the new Fourier and YaRN-mrope tables are of
//     configs membudget does not size, or of YaRN's size), the PP split,
//     the environment defaults (environ.py), and the weights of every
//     family engine/sglang sizes (docs/sglang.md lists each file's
//     change). The KV-cache warmup and FlashInfer autotune move to a
//     second stream (PR #18987), after the pool, where SGLang checks
//     nothing; unified devices are found by is_integrated, not by SM (PR
//     #17246), which reads the same host memory on every class membudget
//     holds.
var profile059 = func() Profile {
	p := profile058post1
	p.Name = "v0.5.9"
	p.Commit = "bbe9c7eeb520b0a67e92d133dfc137a3688dc7f2"
	p.Describes = "SGLang v0.5.9 (tag bbe9c7e, 2026-02-23)"
	p.BlackwellSM11 = true
	p.Native = native059
	p.UnreadModels = new059
	p.UnreadQuant = []string{"compressed-tensors", "modelopt"}
	p.FP8IgnoreUnstripped = true
	return p
}()

// profile059post1 is v0.5.9.post1 (tag 92b4f9a): against v0.5.9 it
// changes the OpenAI entrypoints, gpt-oss's function-call detector and the
// harmony and reasoning parsers (git diff --stat v0.5.9 v0.5.9.post1), no
// file that sizes memory, and its add_cli_args is v0.5.9's line for line,
// so its rules are v0.5.9's.
var profile059post1 = func() Profile {
	p := profile059
	p.Name = "v0.5.9.post1"
	p.Commit = "92b4f9a33a71289037a302cc40e64b401e8eb4d0"
	p.Describes = "SGLang v0.5.9.post1 (tag 92b4f9a, committed 2026-06-16; v0.5.9's memory rules)"
	return p
}()

// new059 are the architectures v0.5.9 implements natively and v0.5.8.post1
// did not (the same grep at tag v0.5.9; the drafts
// ExaoneMoEForCausalLMMTP, GlmOcrForConditionalGenerationNextN,
// Qwen3_5ForCausalLMMTP and Step3p5MTP left out, as the other MTP and
// NextN classes).
var new059 = []string{
	"BailingMoELinearForCausalLM", "BailingMoeV2_5ForCausalLM", "Ernie4_5_VLMoeForConditionalGeneration",
	"Exaone4ForCausalLM", "ExaoneMoEForCausalLM", "GPTJForCausalLM", "GlmMoeDsaForCausalLM",
	"GlmOcrForConditionalGeneration", "GraniteMoeHybridForCausalLM", "InternS1ProForConditionalGeneration",
	"KimiK25ForConditionalGeneration", "Lfm2ForCausalLM", "Lfm2MoeForCausalLM", "LightOnOCRForConditionalGeneration",
	"Qwen3ForRewardModel", "Qwen3_5ForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForCausalLM",
	"Qwen3_5MoeForConditionalGeneration", "SDARForCausalLM", "SDARMoeForCausalLM", "Step3p5ForCausalLM",
	"StepVLForConditionalGeneration",
}

// nativeAdding returns a release's native architectures: the previous
// release's, base, and those it adds, sorted; base is left as it is.
func nativeAdding(base []string, added ...string) []string {
	return slices.Sorted(slices.Values(slices.Concat(base, added)))
}

// native059 is v0.5.8's native architectures and new059.
var native059 = nativeAdding(native058, new059...)

// unreadQuantWhy says, for each method of [Profile.UnreadQuant], what
// the release that names it (v0.5.9, v0.5.13 for gptq) changed in its
// weights and is not read.
var unreadQuantWhy = map[string]string{
	"gptq":               "GPTQ's weights are rewritten as a package from v0.5.13 (PR #26402; layers/quantization/gptq/, hardware_backend/gpu/quantization/gptq_kernels.py:131 on): its Marlin repacking and its MoE scheme (gptq/schemes/gptq_moe.py, scales in the model dtype, its group counts without the act-order case) are not compared with v0.5.12's gptq.py to the end",
	"compressed-tensors": "compressed-tensors' MoE methods are rewritten as per-scheme classes (PR #17503; layers/quantization/compressed_tensors/compressed_tensors.py:159-189, schemes/*_moe.py) and its linears' scheme lookup with them, which is not read",
	"modelopt":           "ModelOpt's NVFP4 linears are padded to 32 rows and columns, 128 rows under --fp4-gemm-backend flashinfer_trtllm (PR #17300; layers/quantization/modelopt_quant.py:160-215, 1192-1249), and its FP8 and NVFP4 MoE weight processing is reworked (ModelOptFp8MoEMethod, :593-917; ModelOptNvFp4FusedMoEMethod, :1325 on), which is not read",
}

// profile0510 is v0.5.10 (tag 1519acf, 2026-04-05). Against v0.5.9.post1
// (git diff v0.5.9.post1 v0.5.10 of server_args.py, model_executor/,
// mem_cache/, configs/model_config.py, layers/, distributed/, utils/,
// environ.py and models/; it pins FlashInfer 0.6.7.post2, python/
// pyproject.toml:30, and transformers 5.3.0, :74):
//   - Piecewise CUDA graphs are on by default (PR #16331): the default
//     fraction reserves them and they are captured after the pool, unless
//     a case of _handle_piecewise_cuda_graph turns them off (see
//     [Profile.PiecewiseByDefault] and piecewise.go).
//   - The req_to_token pool and max_running_requests are sized from the
//     capped, page-aligned pool (PR #20142; see
//     [Profile.ReqPoolFromCapacity]).
//   - The decode capture list ends at cuda_graph_max_bs itself (PR
//     #21005; see [Profile.CaptureMaxBS]).
//   - An EAGLE draft's reserve is 4 GiB (see [Profile.SpecReserve4GiB]).
//   - fp8's ignored_layers may leave a fused MoE layer unquantized (PR
//     #18742; see [Profile.FP8IgnoreMoE]).
//   - gpt-oss keeps its sliding-window split under trtllm_mha too (PR
//     #19079; see [Profile.GptOssSplitAlways]).
//   - FlashInfer's all-reduce fusion workspace is made through FlashInfer's
//     unified create_allreduce_fusion_workspace (layers/
//     flashinfer_comm_fusion.py:129-166), not read: a serve the release
//     turns it on for is refused (see arfusion.go), and --enable-
//     flashinfer-allreduce-fusion too.
//   - Native architectures: 9 new (see new0510), refused by name; Gemma 3's
//     attention builds its rotary tables with get_rope (models/
//     gemma3_causal.py:204) and GLM-4.5 MoE's router keeps a float32 copy
//     of its gate after the first forward (models/glm4_moe.py:366-373):
//     each refused by name (see [Profile.ChangedModels]).
//   - Read and unchanged for every serve membudget takes: the GPU tiers and
//     the rest of the default fraction (server_args.py:1141-1330), the KV
//     cell and profile_max_num_token (model_runner_kv_cache_mixin.py:
//     74-169), the --max-total-tokens cap, page alignment and stages'
//     minimum (:808-838), the MHA and MLA pools and ReqToTokenPool's
//     (size, context_len + 4) int32 table (mem_cache/memory_pool.py;
//     mixin :387-475), the order of measurement (F0 after distributed
//     init, model_runner.py:999-1024; the load's F1 in
//     profile_max_num_token), the rotary reserve (utils/common.py
//     reserve_rope_cache_for_long_sequences, byte for byte), get_rope's
//     tables (layers/rotary_embedding/factory.py: the same classes, a
//     missing key now defaulted rather than a KeyError), get_context_length
//     (utils/hf_transformers_utils.py), the default attention backends
//     (_get_default_attn_backend, server_args.py:2217-2276) and the PP
//     split. Under transformers 5.3.0 config.rope_scaling is the config's
//     rope_parameters, {"rope_type": "default", ...} where the checkpoint
//     has none, which get_context_length and get_rope read as no scaling.
var profile0510 = func() Profile {
	p := profile059post1
	p.Name = "v0.5.10"
	p.Commit = "1519acf37c23f2189adb93f57ca9cd2db1bebf18"
	p.Describes = "SGLang v0.5.10 (tag 1519acf, 2026-04-05)"
	p.PiecewiseByDefault = true
	p.ReqPoolFromCapacity = true
	p.CaptureMaxBS = true
	p.SpecReserve4GiB = true
	p.GptOssSplitAlways = true
	p.Native = native0510
	p.UnreadModels = slices.Concat(p.UnreadModels, new0510)
	p.ChangedModels = changedModels0510
	p.FP8IgnoreMoE = true
	return p
}()

// profile0510post1 is v0.5.10.post1 (tag 7c35342, 2026-04-08): against
// v0.5.10 it pins FlashInfer 0.6.7.post3 rather than 0.6.7.post2 (python/
// pyproject.toml:30-31, the version check of entrypoints/engine.py:1131)
// and changes the version tooling (python/tools/get_version_tag.py); no
// file of server_args.py, model_executor/, mem_cache/, layers/, models/ or
// configs/ changes (git diff --stat v0.5.10 v0.5.10.post1), and its
// add_cli_args is v0.5.10's line for line. FlashInfer's all-reduce fusion
// workspace, the one FlashInfer allocation the two could differ in, is
// refused under both, so its rules are v0.5.10's.
var profile0510post1 = func() Profile {
	p := profile0510
	p.Name = "v0.5.10.post1"
	p.Commit = "7c35342c10e201899e22fe2972d40e60da19ff3e"
	p.Describes = "SGLang v0.5.10.post1 (tag 7c35342, 2026-04-08; v0.5.10's memory rules)"
	return p
}()

// new0510 are the architectures v0.5.10 implements natively and
// v0.5.9.post1 did not (the same grep at tag v0.5.10): LFM2-VL, Sarvam's
// MLA and MoE models, Whisper, and the Transformers backend's MoE,
// multimodal and embedding classes.
var new0510 = []string{
	"Lfm2VlForConditionalGeneration", "SarvamMLAForCausalLM", "SarvamMoEForCausalLM",
	"TransformersEmbeddingModel", "TransformersMoEEmbeddingModel", "TransformersMoEForCausalLM",
	"TransformersMultiModalForCausalLM", "TransformersMultiModalMoEForCausalLM", "WhisperForConditionalGeneration",
}

// native0510 is v0.5.9's native architectures and new0510.
var native0510 = nativeAdding(native059, new0510...)

// profile0511 is v0.5.11 (tag 612785f, 2026-05-05). Against v0.5.10.post1
// (git diff v0.5.10.post1 v0.5.11 of server_args.py, model_executor/,
// mem_cache/, configs/model_config.py, layers/, distributed/,
// speculative/, environ.py and the sized families' models/; it pins
// FlashInfer 0.6.8.post1, python/pyproject.toml:30, torch 2.11.0, :67, PR
// #21247, and transformers 5.6.0):
//   - Speculative decoding no longer turns the piecewise CUDA graphs off
//     (PR #22128; see [Profile.PiecewiseWithSpec]); --debug-cuda-graph
//     does (server_args.py:1259-1261), a flag membudget refuses.
//   - The req_to_token table gains a padding row (PR #24243; see
//     [Profile.ReqPadRow]).
//   - EAGLE runs the overlap scheduler's spec v2 worker by default (PR
//     #21062; see [Profile.SpecV2]): sized at top-k 1 with its future
//     map, and the v1 worker a --speculative-eagle-topk above 1 given
//     selects as before (spec.go).
//   - The pool is sized in model_executor/pool_configurator.py (PRs
//     #22384, #22389): DefaultPoolConfigurator (:74-181) divides the
//     available bytes by v0.5.10's cell, page-aligns, applies
//     --max-total-tokens and the stages' minimum (mixin :669-697) and
//     aligns again, the same token count as v0.5.10's
//     (floor_page(min(floor_page(x), cap)) is floor_page(min(x, cap)));
//     HybridSWAPoolConfigurator (:184-284) solves the sliding-window split
//     directly, a split membudget refuses (gpt-oss, see
//     [Profile.GptOssSplit]).
//   - FlashInfer's all-reduce fusion workspace is made before graph
//     capture, behind a cuMemCreate probe that may turn the fusion off on
//     every rank (PRs #21249, #24172; layers/flashinfer_comm_fusion.py:
//     191-335): still refused where the release turns it on (arfusion.go).
//   - Native architectures: 9 new (see new0511), refused by name; AWQ's
//     package (PR #21126) keeps v0.5.10's weight shapes and Marlin
//     repacking (awq/schemes/*.py against v0.5.10's awq.py).
//   - Read and unchanged for every serve membudget takes:
//     _handle_gpu_memory_settings (server_args.py:1294-1496, v0.5.10's line
//     for line), the capture lists, _profile_available_bytes, the KV cell,
//     _resolve_max_num_reqs, the MHA and MLA pools' tensors, the rotary
//     reserve, get_context_length (moved to utils/hf_transformers/
//     common.py:365-384, PR #21569), the default attention backends but
//     for attention-sink models (triton where flashinfer was the default,
//     PR #23139; gpt-oss sets its own first) and the PP split.
var profile0511 = func() Profile {
	p := profile0510post1
	p.Name = "v0.5.11"
	p.Commit = "612785ffdcaf35552f1ed433a981d596ca9fe900"
	p.Describes = "SGLang v0.5.11 (tag 612785f, 2026-05-05)"
	p.PiecewiseWithSpec = true
	p.ReqPadRow = true
	p.SpecV2 = true
	p.Native = native0511
	p.UnreadModels = slices.Concat(p.UnreadModels, new0511)
	return p
}()

// new0511 are the architectures v0.5.11 implements natively and
// v0.5.10.post1 did not (the same grep at tag v0.5.11; the drafts
// DFlashDraftModel, HYV3ForCausalLMNextN and MistralForCausalLMEagle left
// out, as the other draft classes).
var new0511 = []string{
	"Gemma4ForCausalLM", "Gemma4ForConditionalGeneration", "HYV3ForCausalLM", "MiMoV2ForCausalLM",
	"MossVLForCausalLM", "MossVLForConditionalGeneration", "NemotronH_Nano_Omni_Reasoning_V3",
	"Qwen3ASRForConditionalGeneration", "VoxtralForConditionalGeneration",
}

// native0511 is v0.5.10's native architectures and new0511.
var native0511 = nativeAdding(native0510, new0511...)

// profile0512 is v0.5.12 (tag 127b9e3, 2026-05-16). Against v0.5.11 (the
// same paths; it pins FlashInfer 0.6.11.post1, python/pyproject.toml:30):
//   - The JIT custom all-reduce v2 is the default and holds no buffer off
//     NVLink (PR #24363; see [Profile.CustomARv2]).
//   - FlashInfer 0.6.11.post1 allocates the all-reduce fusion workspace in
//     torch symmetric memory (flashinfer/comm/trtllm_ar.py
//     _alloc_symm_buffer_bytes), whose rounding is torch 2.11's allocator's,
//     not read: a serve the release turns the fusion on for stays refused
//     (arfusion.go), the list gaining InternS2-Preview (#24875), and
//     --enable-deterministic-inference turns it off (#24629), a flag
//     membudget refuses.
//   - EAGLE-3 drafts of several layers, auxiliary inputs and norms (PRs
//     #24663, #24664; models/llama_eagle3.py), the draft MoE runner and a
//     FROZEN_KV_MTP algorithm: refused by name; a one-layer EAGLE-3 draft
//     on the v1 worker keeps v0.5.11's rules (see spec.go).
//   - DeepSeek-V4 (#23882) and 3 more architectures are native (see
//     new0512), refused by name; the tokenspeed_mla attention backend is
//     explicit only, a value --attention-backend refuses; MambaPool's
//     extra row is of models membudget refuses.
//   - Read and unchanged: _handle_gpu_memory_settings (server_args.py:
//     1401-1603, v0.5.11's text), the capture lists, the pool configurator,
//     the KV cell and pools, req_to_token's padding row, the rotary reserve
//     and the default attention backends.
var profile0512 = func() Profile {
	p := profile0511
	p.Name = "v0.5.12"
	p.Commit = "127b9e3283f7c2a43234b852ff5c9f1796d53624"
	p.Describes = "SGLang v0.5.12 (tag 127b9e3, 2026-05-16)"
	p.CustomARv2 = true
	p.Native = native0512
	p.UnreadModels = slices.Concat(p.UnreadModels, new0512)
	return p
}()

// profile0512post1 is v0.5.12.post1 (tag 5a15cde, 2026-05-22): against
// v0.5.12 it changes DeepSeek-V4's pools and kernels (#25396, #25889), the
// sliding-window allocator's zeroing of evicted tokens (mem_cache/
// swa_memory_pool.py:549-553, a split membudget refuses) and the DP
// attention buffers (refused), and nvidia-cutlass-dsl 4.5.0 to 4.5.1 (git
// diff v0.5.12 v0.5.12.post1 -- python/); its add_cli_args is v0.5.12's,
// so its rules are v0.5.12's.
var profile0512post1 = func() Profile {
	p := profile0512
	p.Name = "v0.5.12.post1"
	p.Commit = "5a15cde858ea09b77116212a39356f2fc51b8584"
	p.Describes = "SGLang v0.5.12.post1 (tag 5a15cde, 2026-05-22; v0.5.12's memory rules)"
	return p
}()

// new0512 are the architectures v0.5.12 implements natively and v0.5.11
// did not (the same grep at tag v0.5.12; the drafts
// DeepseekV4ForCausalLMNextN, Eagle3DeepseekV2ForCausalLM and
// Gemma4AssistantForCausalLM left out).
var new0512 = []string{
	"DeepseekV4ForCausalLM", "InternS2PreviewForConditionalGeneration", "LagunaForCausalLM", "MiniCPMV4_6ForConditionalGeneration",
}

// native0512 is v0.5.11's native architectures and new0512.
var native0512 = nativeAdding(native0511, new0512...)

// profile0513 is v0.5.13 (tag 28b095c, 2026-06-10). Against v0.5.12.post1
// (the same paths; it pins FlashInfer 0.6.12, python/pyproject.toml:31,
// and transformers 5.8.1):
//   - The piecewise graphs' largest size is capped by a --context-length
//     given (PR #22516; see [Profile.PiecewiseCapByContext]).
//   - The flashinfer_trtllm MoE runner keeps the piecewise graphs (PR
//     #23351; see [Profile.PiecewiseWithTRTLLMMoE]; found when v0.5.14 was
//     read, git log --grep '(#23351)' at the tag).
//   - Speculative decoding's v1 workers are gone (PR #25464): EAGLE runs
//     eagle_worker_v2 alone, sized at top-k 1 (its future map of one slot
//     per req_to_token row and the chain's constants; see spec.go,
//     specV2OnlyFrom); req_to_token rows widen for top-k above 1 on pages
//     above 1 (PR #27458; mem_cache/common.py:194-210), refused.
//   - The all-reduce fusion turns on for the H20 too (PR #26470) and
//     Mistral Large 3 (server_args.py:2622-2654), under FlashInfer 0.6.12,
//     whose workspace is 0.6.11.post1's: still refused where it turns on
//     (arfusion.go's union of the rules read takes the H20 in).
//   - GPTQ's weights are rewritten as a package (PR #26402), refused by
//     name (see [unreadQuantWhy]); GLM-4.7-Flash's own MLA model file keeps
//     fp32 router copies (PR #26088), refused by name (see changed0513).
//   - Native architectures: 5 new (see new0513), refused by name. The "KV
//     Cache is allocated" line gains the pool's dtype before #tokens (PR
//     #26205; mem_cache/memory_pool.py:819), which model/logs reads.
//   - Read and unchanged for every serve membudget takes: the rest of
//     _handle_gpu_memory_settings (server_args.py:1444-1654), the capture
//     lists, the pool configurator, the KV cell and pools, the padding row,
//     _resolve_max_num_reqs, the rotary reserve and the default attention
//     backends; the CUDA-graph input buffers are now shared between
//     runners (cuda_graph_buffer_registry.py, PRs #26742, #27192, #27407),
//     small int buffers within the 2 MiB a batch membudget charges.
var profile0513 = func() Profile {
	p := profile0512post1
	p.Name = "v0.5.13"
	p.Commit = "28b095c01005d4a3a2a5b637b7d028b07fba31b2"
	p.Describes = "SGLang v0.5.13 (tag 28b095c, 2026-06-10)"
	p.PiecewiseCapByContext = true
	p.PiecewiseWithTRTLLMMoE = true
	p.Native = native0513
	p.UnreadModels = slices.Concat(p.UnreadModels, new0513)
	p.ChangedModels = changedModels0513
	p.UnreadQuant = []string{"compressed-tensors", "gptq", "modelopt"}
	return p
}()

// profile0513post1 is v0.5.13.post1 (tag 85fd900, 2026-06-15): against
// v0.5.13 it changes the EAGLE v2 draft's index sharing of DeepSeek's
// sparse attention (#28192) and the gateway's Cargo files, no memory file
// of a serve membudget takes, and its add_cli_args is v0.5.13's, so its
// rules are v0.5.13's.
var profile0513post1 = func() Profile {
	p := profile0513
	p.Name = "v0.5.13.post1"
	p.Commit = "85fd90072d1a9f2432842b03588f63b745e524e4"
	p.Describes = "SGLang v0.5.13.post1 (tag 85fd900, 2026-06-15; v0.5.13's memory rules)"
	return p
}()

// new0513 are the architectures v0.5.13 implements natively and
// v0.5.12.post1 did not (the same grep at tag v0.5.13; the drafts
// Gemma4UnifiedAssistantForCausalLM, Glm4MoeLiteForCausalLMNextN and
// Qwen3MoeForCausalLMMTP left out).
var new0513 = []string{
	"Cohere2MoeForCausalLM", "Cohere2VisionForConditionalGeneration", "Gemma4UnifiedForConditionalGeneration",
	"NemotronHPuzzleForCausalLM", "Step3p7ForConditionalGeneration",
}

// native0513 is v0.5.12's native architectures and new0513.
var native0513 = nativeAdding(native0512, new0513...)

// profile0514 is v0.5.14 (tag 49e384c, 2026-06-26, read in the forks
// bytedance-iaas/sglang and guqiong96/Lsglang, which hold v0.5.13.post1's
// 85fd900 too). Against v0.5.13.post1 (git diff 85fd900 v0.5.14 of
// server_args.py, model_executor/, mem_cache/, managers/scheduler.py and
// tp_worker.py, configs/model_config.py and the sized families' models/;
// layers/ by the allocations its diff adds, not line by line: only
// per-batch metadata, TensorRT-LLM MHA's page table, for a model sized;
// FlashInfer 0.6.12, PyTorch
// 2.11.0 and transformers 5.8.1 pinned as at v0.5.13):
//   - A --max-running-requests given is no longer capped by the pool's
//     estimate (see [Profile.ReqPoolGivenUncapped]).
//   - CUDA graphs are configured per phase, and --disable-cuda-graph
//     turns the prefill graphs off too, before the default fraction (see
//     [Profile.GraphPhases]). The flags membudget models are deprecated
//     aliases of the per-phase ones, added by hand in add_cli_args
//     (server_args.py:6358-6432): --cuda-graph-max-bs stores into
//     cuda_graph_max_bs_decode, --disable-piecewise-cuda-graph stores the
//     prefill backend "disabled", --disable-cuda-graph sets the field
//     _parse_cuda_graph_config reads (:2942-2944); the per-phase flags are
//     refused by name (see whatGraphPhases). The decode capture list
//     (runner/base_cuda_graph_runner.py:58-100) is cuda_graph_runner.py's
//     (v0.5.13.post1 :389-423) on cuda_graph_config.decode; the prefill
//     sizes (runner/prefill_cuda_graph_runner.py:132-138) are
//     _generate_prefill_cuda_graph_batch_sizes' (server_args.py:3384), the
//     piecewise list with its caps (:3239-3273, #22516's context cap
//     kept), and the piecewise cases moved to
//     _disable_tc_piecewise_cudagraph_if_incompatible (:2997-3057), the
//     same nineteen for a text model; the reserve is v0.5.13's terms on
//     the per-phase config (:3276-3306) less the draft's 4 or 6 GiB (see
//     [Profile.DraftInFraction]).
//   - The start-up order: ModelRunner.initialize stops after the weights
//     and the KV dtype (model_runner.py:643-796); the scheduler then loads
//     a draft, sizes the pools, starts the attention backends and captures
//     the graphs, prefill before decode (managers/scheduler.py:859-872,
//     model_runner.py:887-933). Nothing is allocated on the device between
//     the target's weights and the pool without a draft, so the pool's
//     budget is v0.5.13's (_profile_available_bytes,
//     model_runner_kv_cache_mixin.py:85-120, now an error naming
//     --mem-fraction-static where the weights leave nothing). After the
//     pool, an eager runner keeps one set of input buffers for the largest
//     prefill chunk and batch (runner/eager_runner.py:56-127, cuda_graph_
//     buffer_registry.py:892-934): int buffers within the 2 MiB a batch
//     membudget charges the graphs.
//   - The pool: DefaultPoolConfigurator is v0.5.13's for a model without a
//     draft (pool_configurator.py:126-145 scales the cell for an EAGLE
//     draft, whose weights count in the fraction: see spec.go,
//     specDraft.InFraction); the MHA and MLA pools' tensors and ReqToTokenPool
//     are unchanged (mem_cache/memory_pool.py), and so are the custom
//     all-reduce v2's buffers (distributed/device_communicators/
//     custom_all_reduce_v2.py adds only the registration of graph inputs
//     in VMM memory, mapping the peers'); the new
//     SWAChunkCapPoolConfigurator (:339-437) sizes only the sliding-window
//     pool membudget refuses.
//   - FlashInfer's all-reduce fusion turns on by itself for
//     Qwen3-VL-MoE, NemotronH and NemotronH-Puzzle too, and across nodes
//     on SM10x (server_args.py:4294-4328; see
//     [Profile.ARFusionMultiNodeSM100]), its workspace made through
//     FlashInfer's create_allreduce_fusion_workspace
//     (layers/flashinfer_comm_fusion.py): refused where it turns on, as at
//     v0.5.10 to v0.5.13 (see arFusionUnread).
//   - Native architectures: MiMo-V2-ASR and Zaya (see new0514), refused
//     by name. The sized families' model files change imports and their
//     rank lookups (get_parallel()), Gemma 3's rotary parameters (Gemma 3
//     refused since v0.5.10) and Qwen2/3-MoE's fused gate, none what a
//     rank holds; configs/model_config.py computes head_dim where a
//     config gives null (:703-707) and adds MiMo-V2-ASR and MiniMax-M3
//     Sparse to the multimodal list (:1645-1711), neither sized.
var profile0514 = func() Profile {
	p := profile0513post1
	p.Name = "v0.5.14"
	p.Commit = "49e384ce9d304648e9959666ecb8ce8cd98d0deb"
	p.Describes = "SGLang v0.5.14 (tag 49e384c, 2026-06-26)"
	p.ReqPoolGivenUncapped = true
	p.GraphPhases = true
	p.DraftInFraction = true
	p.ARFusionMultiNodeSM100 = true
	p.Native = native0514
	p.UnreadModels = slices.Concat(p.UnreadModels, new0514)
	return p
}()

// new0514 are the architectures v0.5.14 implements natively and
// v0.5.13.post1 did not (the same grep at tag v0.5.14, classes and
// EntryClass lists alike; no class goes).
var new0514 = []string{"MiMoV2ASRForCausalLM", "ZayaForCausalLM"}

// native0514 is v0.5.13's native architectures and new0514.
var native0514 = nativeAdding(native0513, new0514...)

// profile0515 is v0.5.15 (tag f63458b, 2026-07-10, read in the forks
// bytedance-iaas/sglang and guqiong96/Lsglang against v0.5.14's 49e384c:
// server_args.py and the override registry that now resolves its
// per-model settings, model_executor/ (the graph runners among them),
// mem_cache/, managers/scheduler.py, configs/model_config.py,
// distributed/, the sized families' models/, and layers/ by the
// allocations its diff adds; transformers 5.12.1 pinned, FlashInfer
// 0.6.12 and PyTorch 2.11.0 as at v0.5.14; docs/sglang.md lists each
// comparison):
//   - The prefill CUDA graphs are the breakable runner's by default on
//     CUDA, with seven cases that turn them off where torch.compile's
//     piecewise ones had nineteen (see [Profile.BreakablePrefill]): a
//     serve that captures them is refused by name, naming
//     --disable-piecewise-cuda-graph, and an MLA model loses them and
//     their 1.5 GiB in the reserve (DeepSeek-V2-Lite at TP 1 on an H100:
//     13440 MiB, 0.834, where v0.5.14 gives 14976 MiB, 0.815). All graph
//     backends capture into one process-wide pool (PR #28973,
//     runner_utils/pool.py:14-16, 35-41): with the prefill graphs off the
//     decode graphs alone fill it, as their own pool did at v0.5.14.
//   - The default fraction's decode graph term only while decode graphs
//     are on (see [Profile.ReserveDecodeGraphsOn]); #29615's prefill-node
//     and decode-node terms and DeepEP's 2 GiB (server_args.py:3626-3684)
//     are of serves membudget refuses (--disaggregation-mode,
//     --moe-a2a-backend).
//   - After the pool: the logits' multimem all-gather buffer under TP
//     (see [Profile.LogitsAllGather]) and the eager runner's input
//     buffers over the pool's tokens (see [Profile.EagerTokensFromPool]);
//     one shared (rows, vocabulary) fp32 logits buffer for the graph
//     runners (model_executor/graph_shared_output.py, model_runner.py:929,
//     PR #29779), rows the decode graphs' largest batch
//     (model_runner.py:835-839), the shape the decode runner made its own
//     of at v0.5.14 (runner/base_runner.py:97 there): within the 2 MiB a
//     batch membudget charges the graphs.
//   - The override registry (arg_groups/overrides.py, PRs #30067 to
//     #30297) declares what _handle_model_specific_adjustments and its
//     neighbours wrote in place at v0.5.14: each pass runs at its old
//     slot on the values the old code saw (run_post_process_pass,
//     ResolvedView) and the declarations land on the fields at the end of
//     __post_init__ (materialize_declarations, server_args.py:2814), after
//     the reserve (:2709) as before; the attention backend, page size,
//     FlashInfer all-reduce fusion (the same sixteen architectures),
//     sampling, DP and MoE runner passes give v0.5.14's values for the
//     architectures membudget sizes. New after the attention backend: a
//     DeepSeek-V3 serve on trtllm_mla turns its prefill graphs off
//     (server_args.py:3399-3424), which the MLA case has done before it.
//   - The pool (DefaultPoolConfigurator, the MHA and MLA pools,
//     ReqToTokenPool) and the start-up order are v0.5.14's for --page-size
//     1 and --dcp-size 1; the new pools come under flags membudget refuses
//     (--enable-unified-memory, --enable-page-major-kv-layout, --dcp-size,
//     --enable-linear-replayssm) or for models it does not size.
//   - Native architectures: HRM-Text, Locate-Anything and Unlimited-OCR
//     (see new0515), refused by name; the sized families' model files
//     change their flag lookups, DeepSeek's router and fused-A kernels and
//     Qwen2's head_dim for a config with original_num_attention_heads
//     (SGLang's CPU padding, #20072), none what a rank holds.
var profile0515 = func() Profile {
	p := profile0514
	p.Name = "v0.5.15"
	p.Commit = "f63458b5beaceabbd9d749b9fc956370e1b649e6"
	p.Describes = "SGLang v0.5.15 (tag f63458b, 2026-07-10)"
	p.BreakablePrefill = true
	p.ReserveDecodeGraphsOn = true
	p.LogitsAllGather = true
	p.EagerTokensFromPool = true
	p.GDNTrackIndicesBuf = true
	p.Native = native0515
	p.UnreadModels = slices.Concat(p.UnreadModels, new0515)
	return p
}()

// profile0515post1 is v0.5.15.post1 (tag 0b3bb0c, 2026-07-14): against
// v0.5.15 it changes 22 files under python/ (git diff f63458b 0b3bb0c):
// DeepSeek sparse attention's indexer top-k shared with its draft (#31106,
// a buffer made only with a draft), disaggregation and speculative files,
// and one line of server_args.py (:4807, prefill context parallelism's
// aliases); its flags are v0.5.15's, so its rules are too.
var profile0515post1 = func() Profile {
	p := profile0515
	p.Name = "v0.5.15.post1"
	p.Commit = "0b3bb0cbe31873994c9f989fddfe2f87ca839fdd"
	p.Describes = "SGLang v0.5.15.post1 (tag 0b3bb0c, 2026-07-14; v0.5.15's memory rules)"
	return p
}()

// new0515 are the architectures v0.5.15 implements natively and v0.5.14
// did not (the same grep at tag v0.5.15, classes and EntryClass lists
// alike; the draft DFlashLagunaForCausalLM left out, no class goes;
// v0.5.15.post1 adds none).
var new0515 = []string{"HrmTextForCausalLM", "LocateAnythingForConditionalGeneration", "UnlimitedOCRForCausalLM"}

// native0515 is v0.5.14's native architectures and new0515.
var native0515 = nativeAdding(native0514, new0515...)

// profile0516 is v0.5.16 (tag fdebc93, 2026-07-24, read in the forks
// bytedance-iaas/sglang and guqiong96/Lsglang against v0.5.15.post1's
// 0b3bb0c: server_args.py function by function, the override registry,
// mem_cache/ (the new KVCacheConfigurator), model_executor/ (the model
// runner split into model_runner_components/, the graph runners, the eager
// runner), managers/scheduler.py's start-up order, distributed/,
// configs/model_config.py, layers/ by the allocations its diff adds and the
// sized families' models/; FlashInfer 0.6.14; docs/sglang.md lists each
// comparison):
//   - The pool: KVCacheConfigurator (mem_cache/kv_cache_configurator.py,
//     #31162, #31163) is v0.5.15's ModelRunnerKVCacheMixin moved into its
//     own class: _profile_available_bytes (:1527-1570), the token
//     constraints (:1593-1620), the running requests (:1622-1659) and the
//     order calculate_pool_sizes, constraints, max_num_reqs, finalize
//     (:1661-1701) give v0.5.15's max_total_num_tokens and request rows;
//     DefaultPoolConfigurator's cell (model_executor/pool_configurator.py
//     :171-285) is v0.5.15's for bf16 and fp8 KV (its new terms are of
//     mxfp8, fp4 and DSA layer split, refused), the MHA and MLA pools
//     allocate the same (size + page) rows a layer (mem_cache/
//     memory_pool.py:1982-2033, 3854-3872) and ReqToTokenPool the same
//     (rows + 1) x context int32 table (:244-271; its new generation
//     counter is on the host).
//   - The reserve: v0.5.15's terms, split into reserve_for_graph_mb and
//     reserve_for_deepep_a2a_mb (server_args.py:4054-4086, 4164-4200).
//     Under SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (#30157, off by default,
//     environ.py:337) only 512 MiB and the parallel term, the pool sized
//     after the graphs: membudget reads no environment and sizes the
//     default.
//   - The prefill graphs: the breakable default and its cases are
//     v0.5.15's, with decode context parallelism (refused) added; a
//     multimodal model on the release's allowlists keeps them (see
//     [Profile.MultimodalPrefillKept]), refused by name. #31204 skips an
//     automatically chosen prefill backend when under 4 GiB is free after
//     the pool (model_runner_components/cuda_graph_setup.py:48-60,
//     237-251): a serve that would capture them stays refused, SGLang
//     capturing them or not by what is free then.
//   - Distributed init: the custom all-reduce v2's symmetric-memory
//     workspace (see [Profile.CustomARv2Symm]), charged in
//     [distInitFor] beyond the 24 MiB the NVLink estimate holds.
//   - After the pool: the same components (model_runner.py:728-771), the
//     same eager runner (runner/eager_runner.py:65-137, renames), the
//     shared logits output, the decode runner's capture list and inputs
//     for one token a batch (runner/base_cuda_graph_runner.py:58-100,
//     decode_cuda_graph_runner.py:262) and the logits all-gather
//     (layers/logits_processor.py:376-381); the scheduler's FutureMap
//     keeps two int64 rows a request slot (managers/overlap_utils.py:
//     232-270), kilobytes within the allocator's slack.
//   - The override registry adds MiniMax-M3's and Inkling's providers
//     (arg_groups/overrides.py:465-548, 827-876) and LongCat-Flash to the
//     DeepSeek family, of models membudget does not size; the FlashInfer
//     all-reduce fusion list and pass are v0.5.15's.
//   - Native architectures: GLM-Image, Inkling, Mellum and MiniMax-M3
//     Sparse (see new0516), refused by name.
var profile0516 = func() Profile {
	p := profile0515post1
	p.Name = "v0.5.16"
	p.Commit = "fdebc938f7f4d16fe6b9f55dcd9a767cf0899ea1"
	p.Describes = "SGLang v0.5.16 (tag fdebc93, 2026-07-24)"
	p.MultimodalPrefillKept = true
	p.CustomARv2Symm = true
	p.Native = native0516
	p.UnreadModels = slices.Concat(p.UnreadModels, new0516)
	return p
}()

// new0516 are the architectures v0.5.16 implements natively and
// v0.5.15.post1 did not (EntryClass lists of models/ at both tags; the
// drafts DeepseekV4ForCausalLMDSpark, GlmMoeDsaForCausalLMNextN,
// InklingForConditionalGenerationMTP and Qwen3DSparkModel left out; no
// class goes).
var new0516 = []string{"GlmImageForConditionalGeneration", "InklingForConditionalGeneration", "MellumForCausalLM",
	"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"}

// native0516 is v0.5.15's native architectures and new0516.
var native0516 = nativeAdding(native0515, new0516...)

// profile0517 is v0.5.17 (tag 2948168, 2026-08-07, read in the fork
// bytedance-iaas/sglang against v0.5.16's fdebc93: server_args.py function
// by function, the override registry, mem_cache/ (KVCacheConfigurator,
// memory_pool.py), model_executor/ (pool_configurator.py, model_runner.py's
// start-up, the graph runners and cuda_graph_setup.py, the eager runner),
// distributed/ (the custom all-reduce v2), layers/logits_processor.py,
// managers/scheduler.py's device allocations, environ.py's defaults,
// configs/model_config.py, and the sized families' models/ by the
// allocations their diff adds; FlashInfer 0.6.15.post1; docs/sglang.md
// lists each comparison):
//   - The pool: KVCacheConfigurator reads its settings through the new
//     runtime context's config bags (runtime_context.py), the same values;
//     _profile_available_bytes, the token constraints, resolve_max_num_reqs
//     and the order (mem_cache/kv_cache_configurator.py:1614-1814) are
//     v0.5.16's for a dense or MLA model; DefaultPoolConfigurator's cell
//     (model_executor/pool_configurator.py:183-326) is v0.5.16's (MLA's
//     kv_lora_rank + qk_rope_head_dim by calculate_mla_kv_cache_dim,
//     kv_cache_configurator.py:1985-1999, for a model without sparse
//     attention); the MHA and MLA pools and ReqToTokenPool allocate as
//     v0.5.16's (memory_pool.py), a draft's pool paged over --dcp-size only
//     under decode context parallelism (refused).
//   - The reserve: v0.5.16's terms, but the prefill graphs' largest size is
//     no longer capped by a --context-length given (PR #30206, server_args.py
//     :4607-4808, the cap of v0.5.13's #22516 taken out; cuda_graph_setup.py
//     :265-304 keeps instead the sizes up to the request rows x the context
//     length at capture), so PiecewiseCapByContext is off; + 1 GiB for
//     breakable prefill graphs with DeepEP (:4914-4920, refused); a
//     multimodal model's extra fraction skipped on a decode node (refused).
//   - The prefill graphs: the breakable cases drop LoRA and DP attention
//     (refused flags), add two-batch overlap, an all-to-all backend
//     outside none, deepep, megamoe and flashinfer (refused) and NemotronH
//     (a hybrid, refused), and spare DeepSeek sparse attention (see
//     [Profile.BreakableDSAKept]); the allowlists are v0.5.16's.
//   - Distributed init: the custom all-reduce v2's tables and workspace on
//     one node are v0.5.16's (configs/custom_all_reduce_v2.py adds world
//     size 16 on SM100, beyond a node); over several nodes of GB200 or
//     GB300 it stays on (see [Profile.CustomARv2Multinode]).
//   - After the pool: the same components and order (model_runner.py:
//     587-629; DWDP's manager only with --dwdp-size above 1, kernels
//     precompiled after loading only for Kimi-K3), the same eager runner
//     (runner/eager_runner.py, get_eager_max_batch_size the old rule), the
//     decode runner's capture list (base_cuda_graph_runner.py:61-82 with
//     utils/common.py:3632-3654, the old alignment) and inputs, the logits
//     all-gather buffer unchanged (layers/logits_processor.py).
//   - The override registry adds Kimi-K3's providers and MiMo-V2's SM100
//     MoE runner, of models membudget does not size, GPT-OSS's MXFP4 MoE
//     on SM120 moved from Marlin to FlashInfer's (MXFP4 refused at this
//     release), and keeps a TensorRT-LLM MHA page of 128 (see
//     [Profile.TRTLLMMHAPage128]); the FlashInfer all-reduce fusion list
//     and pass are v0.5.16's.
//   - Native architectures: see new0517, refused by name.
var profile0517 = func() Profile {
	p := profile0516
	p.Name = "v0.5.17"
	p.Commit = "29481685462732237d80d86076d6563e1f658102"
	p.Describes = "SGLang v0.5.17 (tag 2948168, 2026-08-07)"
	p.PiecewiseCapByContext = false
	p.BreakableDSAKept = true
	p.TRTLLMMHAPage128 = true
	p.CustomARv2Multinode = true
	p.MMIPCByDefault = true
	p.Native = native0517
	p.UnreadModels = slices.Concat(p.UnreadModels, new0517)
	return p
}()

// new0517 are the architectures v0.5.17 implements natively and v0.5.16
// did not (EntryClass lists of models/ at both tags; the draft
// DSparkDraftModel left out; no class goes): EmbeddingGemma, Kimi-K3,
// LFM2's bidirectional encoder and Qwen3's embedding model. The EntryClass
// lists also gain Qwen3.5's text-only Qwen3_5ForCausalLM and
// Qwen3_5MoeForCausalLM (models/qwen3_5.py), names native0516 holds
// already.
var new0517 = []string{"EmbeddingGemmaModel", "KimiK3ForConditionalGeneration", "Lfm2BidirectionalModel", "Qwen3Model"}

// native0517 is v0.5.16's native architectures and new0517.
var native0517 = nativeAdding(native0516, new0517...)

// profile0518 is v0.5.18 (tag 71de97b, 2026-08-21, read in the fork
// bytedance-iaas/sglang against v0.5.17's 2948168: server_args.py function
// by function, the override registry, mem_cache/ (KVCacheConfigurator,
// memory_pool.py), model_executor/ (pool_configurator.py, model_runner.py's
// start-up, cuda_graph_setup.py, the graph and eager runners), the custom
// all-reduce v2, layers/logits_processor.py, environ.py's defaults and
// configs/model_config.py; FlashInfer 0.6.17, PyTorch 2.13.0;
// docs/sglang.md lists each comparison):
//   - The pool: KVCacheConfigurator takes a multimodal model's runtime
//     reservation off the rest before sizing it (see
//     [Profile.MMRuntimeReserve]); the rest is v0.5.17's
//     (_profile_available_bytes, the slack, the token constraints and the
//     request rows), and so are the cell (pool_configurator.py; the KV
//     heads over tp // dcp, v0.5.17's at --dcp-size 1), the MHA and MLA
//     pools and ReqToTokenPool.
//   - The reserve: v0.5.17's terms (reserve_for_graph_mb, server_args.py:
//     5078-5118, reserve_for_deepep_a2a_mb); the post-capture reserve's
//     512 MiB raised to 1536 (:4952) only under
//     SGLANG_ENABLE_POST_CAPTURE_KV_SIZING (off, environ.py:513), which
//     membudget does not read.
//   - The prefill graphs: the breakable runner's MLA and NemotronH cases
//     taken out (see [Profile.BreakableMLAKept]); #31204's 4 GiB gate on
//     an automatically chosen prefill backend taken out
//     (model_runner_components/cuda_graph_setup.py), of graphs membudget
//     refuses wherever captured.
//   - Distributed init, after the pool and the logits all-gather:
//     v0.5.17's (the custom all-reduce v2's workspace, the eager runner's
//     buffers, the decode runner's inputs, the all-gather buffer).
//   - The override registry adds DeepseekV4ForCausalLM to the FlashInfer
//     all-reduce fusion list (arg_groups/overrides.py:1959-1979, the pass
//     :1982-2004 v0.5.17's), a model membudget refuses (arFusionList0518).
//   - A multimodal model served over several GB200 or GB300 nodes may
//     default to the CUDA VMM feature transport, refused by name (see
//     [Resolved.checkMMFeatureTransport]).
//   - A multimodal checkpoint whose config declares language_model_only
//     is a text model to it (PR #22867), refused by name (see
//     [Resolved.checkLMOnlyCheckpoint]).
//   - Native architectures: see new0518, refused by name.
var profile0518 = func() Profile {
	p := profile0517
	p.Name = "v0.5.18"
	p.Commit = "71de97b264b04dcd514cf904003028aefe9775c8"
	p.Describes = "SGLang v0.5.18 (tag 71de97b, 2026-08-21)"
	p.BreakableMLAKept = true
	p.MMRuntimeReserve = true
	p.MMIPCByDefault = false // cuda_ipc opt-in again (server_args.py:7861-7867, 7911-7912)
	p.Native = native0518
	p.UnreadModels = slices.Concat(p.UnreadModels, new0518)
	return p
}()

// new0518 are the architectures v0.5.18 implements natively and v0.5.17
// did not (EntryClass lists of models/ at both tags; the draft
// MuseGlimmerAssistantModel left out; no class goes): InternS2-Mobius and
// MuseGlimmer's text and multimodal classes.
var new0518 = []string{"InternS2MobiusForConditionalGeneration", "MuseGlimmerForCausalLM", "MuseGlimmerForConditionalGeneration"}

// native0518 is v0.5.17's native architectures and new0518.
var native0518 = nativeAdding(native0517, new0518...)
