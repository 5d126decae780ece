package sglang

import (
	"fmt"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/model"
)

// Piecewise CUDA graphs capture the prefill forward per token count, the
// model split at its attention and MoE layers (model_executor/
// piecewise_cuda_graph_runner.py). From v0.5.10 they are on unless a case
// of _handle_piecewise_cuda_graph turns them off (sgl-project/sglang PR
// #16331; server_args.py:1078-1139 at v0.5.10), which runs before the
// default --mem-fraction-static is derived (__post_init__, :778-784); the
// default reserves them (:1304-1311), and ModelRunner captures them after
// the KV pool and the decode graphs (model_runner.py:623, 673), so their
// memory comes out of what (1 - msf) x F0 leaves. The source does not size
// the capture itself; membudget charges SGLang's own estimate of it, the
// reserve the default fraction makes, as it charges the decode graphs at
// graphBytesPerBatch (SGLang's 2 MiB per batch). No log of a piecewise
// capture ("Capture piecewise CUDA graph end ... mem usage", model_runner.py:
// 2568-2575) is in corpus/observed to check it against.

// piecewiseMiBPerSize is what v0.5.10's default fraction reserves per
// captured token count of a model without MLA: "Only calculate the memory
// overhead for Non-Torch Memory use since the Torch Memory can be reused
// with Cuda Graph Capture" (server_args.py:1305-1308). sgl-project/sglang
// PR #15927 ("Piecewise Cuda Graph Memory Usage", 2025-12-27) measured the
// capture as the graphs' private pool, which reuses the prefill's torch
// memory, and their non-torch metadata, which this term estimates.
const piecewiseMiBPerSize = 8

// piecewiseMLAMiB is what it reserves for an MLA model, whatever the
// sizes: "For MLA backend the memory overhead is much higher than expected
// with fa3" (server_args.py:1309-1311).
const piecewiseMLAMiB = 1.5 * 1024

// piecewiseMLAMaxTokens is the largest piecewise size of an MLA model when
// --piecewise-cuda-graph-max-tokens is not given (server_args.py:
// 1254-1267, PR #15927's performance note).
const piecewiseMLAMaxTokens = 2048

// piecewiseLlama2MaxTokens caps the largest size of a model whose path
// names Llama 2 (server_args.py:1269-1274, a TODO of the release).
const piecewiseLlama2MaxTokens = 4096

// piecewiseOffArchs are the architectures SGLang captures no piecewise
// graphs for (configs/model_config.py:1352-1358 at v0.5.10), with DeepSeek's
// sparse-attention models (is_deepseek_nsa, :212-215).
var piecewiseOffArchs = []string{"DeepseekV32ForCausalLM", "Qwen3NextForCausalLM", "GlmMoeDsaForCausalLM", "BailingMoeV2_5ForCausalLM", "LLaDAModelLM"}

// multimodalArchs is v0.5.10's multimodal_model_archs (configs/
// model_config.py:1296-1350): a model of one is multimodal, and captures
// no piecewise graphs, unless its first architecture is one SGLang serves
// text-only without --enable-multimodal (mmDisabledArchs).
var multimodalArchs = []string{
	"CLIPModel", "DeepseekVL2ForCausalLM", "Ernie4_5_VLMoeForConditionalGeneration", "Gemma3ForConditionalGeneration",
	"Gemma3nForConditionalGeneration", "Glm4vForConditionalGeneration", "Glm4vMoeForConditionalGeneration",
	"GlmOcrForConditionalGeneration", "GlmAsrForConditionalGeneration", "Grok1VForCausalLM", "Grok1AForCausalLM",
	"LlavaLlamaForCausalLM", "Llama4ForConditionalGeneration", "LlavaMistralForCausalLM", "LlavaQwenForCausalLM",
	"LlavaForConditionalGeneration", "LlavaVidForCausalLM", "Lfm2VlForConditionalGeneration",
	"LightOnOCRForConditionalGeneration", "MiniCPMO", "MiniCPMV", "Mistral3ForConditionalGeneration",
	"MultiModalityCausalLM", "MllamaForConditionalGeneration", "NemotronH_Nano_VL_V2",
	"PixtralForConditionalGeneration", "Qwen2AudioForConditionalGeneration", "Qwen2VLForConditionalGeneration",
	"Qwen2_5_VLForConditionalGeneration", "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration",
	"Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration", "Qwen3OmniMoeForConditionalGeneration",
	"KimiVLForConditionalGeneration", "InternVLChatModel", "InternS1ForConditionalGeneration",
	"InternS1ProForConditionalGeneration", "Phi4MMForCausalLM", "WhisperForConditionalGeneration",
	"Step3VLForConditionalGeneration", "POINTSV15ChatModel", "DotsVLMForCausalLM", "DotsOCRForCausalLM",
	"Sarashina2VisionForCausalLM", "NVILAForConditionalGeneration", "NVILALiteForConditionalGeneration",
	"DeepseekOCRForCausalLM", "JetVLMForConditionalGeneration", "PaddleOCRVLForConditionalGeneration",
	"MiDashengLMModel", "StepVLForConditionalGeneration", "KimiK25ForConditionalGeneration",
}

// mmDisabledArchs are the first architectures whose multimodal part SGLang
// leaves off unless --enable-multimodal (configs/model_config.py:154-170).
var mmDisabledArchs = []string{"Gemma3ForConditionalGeneration", "Llama4ForConditionalGeneration", "Step3VLForConditionalGeneration"}

// sglMultimodal is model_config.is_multimodal at v0.5.10 without
// --enable-multimodal.
func sglMultimodal(a *model.Arch) bool {
	if len(a.Architectures) == 0 || slices.Contains(mmDisabledArchs, a.Architectures[0]) {
		return false
	}
	return archIn(a, multimodalArchs)
}

// piecewiseSizes is _generate_piecewise_cuda_graph_tokens at v0.5.10
// (server_args.py:1397-1415): 4 to 32 by 4, 48 to 256 by 16, 288 to 512 by
// 32, 576 to 1024 by 64, 1280 to 4096 by 256, then by 512, each at most
// maxTokens.
func piecewiseSizes(maxTokens int64) []uint64 {
	var out []uint64
	for _, r := range []struct{ from, to, step int64 }{{4, 33, 4}, {48, 257, 16}, {288, 513, 32}, {576, 1025, 64}, {1280, 4097, 256}, {4608, maxTokens + 1, 512}} {
		for v := r.from; v < r.to && v <= maxTokens; v += r.step {
			out = append(out, uint64(v))
		}
	}
	return out
}

// piecewiseOffWhy says which case of _handle_piecewise_cuda_graph (v0.5.10
// server_args.py:1078-1139) turns the graphs off for the serve, "" for
// none, numbered as the release's comments number them: from v0.5.11,
// which drops case 2 (see [Profile.PiecewiseWithSpec]), the later cases
// are one lower (server_args.py:1194-1262 at v0.5.11, the same through
// v0.5.13). The cases of flags membudget refuses (DP attention, torch.compile,
// a MoE all-to-all backend, LoRA, GGUF, a diffusion LM, CPU offload and the
// hierarchical cache, deterministic inference, disaggregation, symmetric
// memory, EPLB and the expert recorder, context parallelism) cannot arise.
func (r *Resolved) piecewiseOffWhy(a *model.Arch, c budget.Class) string {
	// later is the number of a case after v0.5.10's case 2.
	later := func(n int) int {
		if r.Profile.PiecewiseWithSpec {
			return n - 1
		}
		return n
	}
	switch {
	case r.DisablePiecewiseCudaGraph:
		return "--disable-piecewise-cuda-graph"
	case r.DisableCudaGraph && r.Profile.GraphPhases && r.Sources["disable-cuda-graph"] == "":
		// v0.5.14 turns both phases off for --disable-cuda-graph given
		// (server_args.py:2942-2944), before the cases and the default
		// fraction (see [Profile.GraphPhases]); the torch_native backend's
		// does so after the fraction (see resolvePiecewise).
		return "--disable-cuda-graph (both phases from v0.5.14)"
	case archIn(a, piecewiseOffArchs) || a.Indexer != nil:
		return "an architecture SGLang captures none for (case 1)"
	case r.Spec.On() && !r.Profile.PiecewiseWithSpec:
		// v0.5.11 drops the case (PR #22128).
		return "speculative decoding (case 2)"
	case r.PPSize > 1:
		return fmt.Sprintf("pipeline parallelism (case %d)", later(5))
	case c.Device.Silicon.Vendor != budget.NVIDIA:
		return fmt.Sprintf("a device other than CUDA's (case %d)", later(6))
	case sglMultimodal(a):
		return fmt.Sprintf("a multimodal model (case %d)", later(9))
	}
	return ""
}

// resolvePiecewise decides the profile's piecewise CUDA graphs for the
// serve: whether the default fraction reserves them (Piecewise), their
// sizes, and whether SGLang still captures them after a later handler
// (PiecewiseCaptured; see [trtllmMoEDisablesPiecewise]).
func (r *Resolved) resolvePiecewise(a *model.Arch, c budget.Class, def func(string, string)) error {
	if r.Profile.BreakablePrefill {
		if why := r.breakableOffWhy(a, c); why != "" {
			r.PiecewiseOff = why
			def("disable-piecewise-cuda-graph", "true: "+why+" turns the prefill CUDA graphs off (server_args.py:3214-3216, 3255-3384 at v0.5.15)")
			return nil
		}
	}
	if !r.Profile.PiecewiseByDefault {
		if r.DisablePiecewiseCudaGraph {
			return settingErr("disable-piecewise-cuda-graph", true, "%s has no such flag: piecewise CUDA graphs are off unless --enable-piecewise-cuda-graph there", r.Profile.Describes)
		}
		return nil
	}
	if !r.Profile.BreakablePrefill {
		// From v0.5.15 breakableOffWhy, above, holds the cases.
		if why := r.piecewiseOffWhy(a, c); why != "" {
			r.PiecewiseOff = why
			def("disable-piecewise-cuda-graph", "true: "+why+" turns piecewise CUDA graphs off (server_args.py:1078-1139)")
			return nil
		}
	}
	if r.Draft != nil {
		// Only from v0.5.11 (PR #22128): before, case 2 turned them off.
		return specRefuse("disable-piecewise-cuda-graph", false, "the target's piecewise CUDA graphs under speculative decoding, which %s keeps on (sgl-project/sglang PR #22128), are not modelled (their capture beside EAGLE's hidden-state outputs was not read): pass --disable-piecewise-cuda-graph", r.Profile.Describes)
	}
	r.Piecewise = true
	// piecewise_cuda_graph_max_tokens (server_args.py:1254-1274): the
	// chunked prefill size, 2048 for MLA, then at most --max-total-tokens
	// and 4096 for a Llama 2 path. membudget reads the path SGLang would
	// be given in the model's source, the file or directory --model names.
	maxTokens := r.ChunkedPrefillSize
	if a.MLA {
		maxTokens = piecewiseMLAMaxTokens
	}
	if r.MaxTotalTokens > 0 {
		maxTokens = min(maxTokens, int64(r.MaxTotalTokens))
	}
	if strings.Contains(strings.ToLower(a.Source), "llama-2") {
		maxTokens = min(maxTokens, piecewiseLlama2MaxTokens)
	}
	if _, derived := r.Sources["context-length"]; r.Profile.PiecewiseCapByContext && !derived {
		// v0.5.13 clamps them to a --context-length given (PR #22516).
		maxTokens = min(maxTokens, int64(r.ContextLength))
	}
	r.PiecewiseSizes = piecewiseSizes(maxTokens)
	r.PiecewiseCaptured = len(r.PiecewiseSizes) > 0 && !trtllmMoEDisablesPiecewise(a, r, c)
	if r.Profile.GraphPhases && r.DisableCudaGraph {
		// The torch_native backend turns both phases off at v0.5.14, in
		// _handle_attention_backend_compatibility (server_args.py:
		// 4494-4499), after the default fraction (:2524, :2540): the
		// reserve keeps the sizes, and none is captured (v0.5.15 the same,
		// :4402-4408 after :2709).
		r.PiecewiseCaptured = false
	}
	if r.Profile.BreakablePrefill && r.PiecewiseCaptured {
		return prefillCaptureRefusal{r.refuseBreakablePrefill(a)}
	}
	return nil
}

// refuseBreakablePrefill is the refusal of a serve that captures its
// prefill CUDA graphs through v0.5.15's breakable runner, the case's own
// where the release keeps them for a multimodal, MLA or DSA model.
func (r *Resolved) refuseBreakablePrefill(a *model.Arch) error {
	switch {
	case r.Profile.MultimodalPrefillKept && sglMultimodal(a):
		return mmPrefillKept(r, a)
	case a.MLA && r.Profile.BreakableMLAKept:
		return mlaPrefillKept(r)
	case a.MLA && r.Profile.BreakableDSAKept && sglDSA(a):
		return dsaPrefillKept(r)
	}
	return breakablePrefillRefusal(r)
}

// prefillCaptureRefusal marks a serve refused because it would capture
// breakable prefill CUDA graphs, which membudget does not size (see
// [Resolved.refuseBreakablePrefill]): plan tells it from the other
// refusals by it and sizes that server with the prefill graphs off (see
// [prefillOffNote]). Its text and its [engine.SettingError] are the
// wrapped refusal's.
type prefillCaptureRefusal struct{ err error }

// Error returns the wrapped refusal's text.
func (e prefillCaptureRefusal) Error() string { return e.err.Error() }

// Unwrap returns the wrapped refusal, so that errors.As still finds its
// setting error.
func (e prefillCaptureRefusal) Unwrap() error { return e.err }

// breakableOffWhy says why v0.5.15's prefill CUDA graphs are off for the
// serve, "" where SGLang captures them (see [Profile.BreakablePrefill]):
// the flags that turn them off before the default fraction, a device
// other than CUDA's (torch.compile's piecewise backend, the default there,
// turned off by its own case, server_args.py:3271-3339), or one of
// _disable_breakable_cudagraph_if_incompatible's cases
// (server_args.py:3341-3384) a sized serve can meet: MLA attention,
// DeepSeek-V4 and a multimodal model. Its other four (attention context
// parallelism, LoRA, a MoE all-to-all backend, DP attention) are of flags
// membudget refuses. torch.compile, pipeline parallelism and the other
// piecewise cases no longer turn them off. From v0.5.16 a multimodal model
// on the release's allowlists keeps them (see
// [Profile.MultimodalPrefillKept]), refused by [mmPrefillKept]; from
// v0.5.17 a DeepSeek sparse attention model (see
// [Profile.BreakableDSAKept]), refused by [dsaPrefillKept]; from v0.5.18,
// whose function has no MLA case, every MLA model (see
// [Profile.BreakableMLAKept]), refused by [mlaPrefillKept].
func (r *Resolved) breakableOffWhy(a *model.Arch, c budget.Class) string {
	switch {
	case r.DisablePiecewiseCudaGraph:
		return "--disable-piecewise-cuda-graph (the prefill backend disabled, server_args.py:6274-6281 at v0.5.15)"
	case r.DisableCudaGraph && r.Sources["disable-cuda-graph"] == "":
		return "--disable-cuda-graph (both phases)"
	case c.Device.Silicon.Vendor != budget.NVIDIA:
		return "a device other than CUDA's (torch.compile's piecewise backend there, and its case for such a device)"
	case r.Profile.MultimodalPrefillKept && sglMultimodal(a) && archIn(a, mmPiecewiseKept0516):
		// v0.5.16 moves these to torch.compile's piecewise backend before
		// the breakable cases (server_args.py:3659-3671), whose own cases
		// turn them off (:3688-3761): of those a sized serve can meet,
		// pipeline parallelism (:3702).
		if r.PPSize > 1 {
			return "pipeline parallelism (the case of torch.compile's piecewise backend, to which v0.5.16 moves this multimodal model)"
		}
		return ""
	case a.MLA && !r.Profile.BreakableMLAKept && !(r.Profile.BreakableDSAKept && sglDSA(a)):
		// v0.5.18 takes the case out (see [Profile.BreakableMLAKept]).
		return "MLA attention (the breakable runner's case)"
	case slices.Contains(a.Architectures, "DeepseekV4ForCausalLM"):
		return "DeepSeek-V4 (the breakable runner's case)"
	case r.Profile.MultimodalPrefillKept && sglMultimodal(a) && archIn(a, mmBreakableKept0516):
		return "" // v0.5.16's breakable case spares them (server_args.py:3800-3805)
	case sglMultimodal(a):
		return "a multimodal model (the breakable runner's case)"
	}
	return ""
}

// dsaArchs0517 are the architectures v0.5.17's is_deepseek_dsa names
// (configs/model_config.py:106-120), DeepSeek sparse attention where the
// config also gives index_topk.
var dsaArchs0517 = []string{"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "DeepseekV3ForCausalLMNextN", "MistralLarge3ForCausalLM",
	"PixtralForConditionalGeneration", "GlmMoeDsaForCausalLM", "GlmMoeDsaForCausalLMNextN", "LongcatFlashForCausalLM", "LongcatFlashForCausalLMNextN"}

// sglDSA reports whether v0.5.17's is_deepseek_dsa holds for a: its first
// architecture is one of dsaArchs0517 and its config gives index_topk (the
// lightning indexer membudget reads as a.Indexer).
func sglDSA(a *model.Arch) bool {
	return a.Indexer != nil && len(a.Architectures) > 0 && slices.Contains(dsaArchs0517, a.Architectures[0])
}

// mmPiecewiseKept0516 are the multimodal architectures whose prefill
// CUDA graphs v0.5.16 keeps through torch.compile's piecewise backend
// (multimodal_piecewise_cuda_graph_supported_model_archs, configs/
// model_config.py:1776-1781; Kimi-K2.5 added by PR #30889).
var mmPiecewiseKept0516 = []string{"Cohere2VisionForConditionalGeneration", "KimiK25ForConditionalGeneration",
	"MiniMaxM3SparseForCausalLM", "MiniMaxM3SparseForConditionalGeneration"}

// mmBreakableKept0516 are the multimodal architectures whose prefill CUDA
// graphs v0.5.16 keeps through the breakable runner
// (multimodal_breakable_cuda_graph_supported_model_archs,
// configs/model_config.py:1785-1788, PR #30620).
var mmBreakableKept0516 = []string{"Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"}

// archIn reports whether one of a's architectures is in list.
func archIn(a *model.Arch, list []string) bool {
	return slices.ContainsFunc(a.Architectures, func(s string) bool { return slices.Contains(list, s) })
}

// mmPrefillKept is the refusal of a serve of v0.5.16 or later of a
// multimodal model whose prefill CUDA graphs the release keeps (see
// [Profile.MultimodalPrefillKept]): their capture is not sized. v0.5.17
// gives it too, so its line numbers say they are v0.5.16's.
func mmPrefillKept(r *Resolved, a *model.Arch) error {
	backend := "the breakable runner (server_args.py:3763-3814 at v0.5.16, its multimodal case sparing it at :3800-3805)"
	if archIn(a, mmPiecewiseKept0516) {
		backend = "torch.compile's piecewise backend (server_args.py:3659-3671 at v0.5.16)"
	}
	n := len(r.PiecewiseSizes)
	return settingErr("disable-piecewise-cuda-graph", false,
		"%s keeps this multimodal model's prefill CUDA graphs, through %s, as one of its allowlisted architectures (configs/model_config.py:1776-1788 at v0.5.16; "+
			"v0.5.15 turned every multimodal model's off): here %d sizes up to %d tokens, captured after the KV pool, which membudget does not size; "+
			"pass --disable-piecewise-cuda-graph to size the serve without them",
		r.Profile.Describes, backend, n, r.PiecewiseSizes[n-1])
}

// dsaPrefillKept is the refusal of a v0.5.17 serve of a DeepSeek sparse
// attention model, whose breakable prefill CUDA graphs the release keeps
// (see [Profile.BreakableDSAKept]): their capture, with the sparse path
// and its indexer forced (server_args.py:4465-4472), is not sized.
func dsaPrefillKept(r *Resolved) error {
	n := len(r.PiecewiseSizes)
	return settingErr("disable-piecewise-cuda-graph", false,
		"%s keeps a DeepSeek sparse attention model's breakable prefill CUDA graphs (sgl-project/sglang PR #31987; server_args.py:4465-4472 spares it "+
			"from the MLA case, which v0.5.16 turned off for every MLA model): here %d sizes up to %d tokens, captured after the KV pool on the sparse path "+
			"with its indexer, which membudget does not size (the default fraction keeps 1.5 GiB for an MLA model's prefill graphs, server_args.py:4910-4912); "+
			"pass --disable-piecewise-cuda-graph to size the serve without them",
		r.Profile.Describes, n, r.PiecewiseSizes[n-1])
}

// breakablePrefillMeasuredBytes is the largest public measure of a
// breakable prefill capture: 6.17 GB for an unnamed non-DP model at TP 1
// with 8k-token prefills (sgl-project/sglang PR #32678, after its fix;
// 7.04 GB before), against the 8 MiB a size v0.5.15's reserve keeps;
// public logs of SGLang main after v0.5.17 show 1.12 to 1.71 GiB for 50
// to 58 sizes at TP 1 (docs/sglang.md, "The breakable prefill capture").
const breakablePrefillMeasuredBytes = 6.17e9

// breakablePrefillRefusal is the refusal of a serve of v0.5.15 or later that captures
// its prefill CUDA graphs through the breakable runner: what they would
// take is not read, so the serve is refused naming the flag that turns
// them off.
func breakablePrefillRefusal(r *Resolved) error {
	n := len(r.PiecewiseSizes)
	return settingErr("disable-piecewise-cuda-graph", false,
		"%s captures the prefill forward in breakable CUDA graphs by default on CUDA (sgl-project/sglang PR #29458; model_executor/cuda_graph_config.py:95-101 at v0.5.15), "+
			"here %d sizes up to %d tokens, after the KV pool into the graph pool the decode graphs share (runner_utils/pool.py:14-16, 35-41), "+
			"which membudget does not size: the default fraction keeps 8 MiB a size for them, %d MiB (server_args.py:3661-3670 at v0.5.15), where public measures "+
			"of such a capture run from 1.12 GiB to %.2f GB at TP 1 (logs of SGLang main after v0.5.17; PR #32678, 8k-token prefills); pass --disable-piecewise-cuda-graph "+
			"(its deprecated alias of --cuda-graph-backend-prefill disabled, server_args.py:6274-6281 at v0.5.15) to size the serve without them",
		r.Profile.Describes, n, r.PiecewiseSizes[n-1], n*piecewiseMiBPerSize, breakablePrefillMeasuredBytes/1e9)
}

// piecewiseReserveMiB is what v0.5.10's default fraction reserves for the
// piecewise graphs: 8 MiB per size, 1.5 GiB for MLA (server_args.py:
// 1304-1311), 0 when they are off.
func piecewiseReserveMiB(r *Resolved, a *model.Arch) float64 {
	switch {
	case !r.Piecewise:
		return 0
	case a.MLA:
		return piecewiseMLAMiB
	}
	return float64(len(r.PiecewiseSizes) * piecewiseMiBPerSize)
}

// trtllmMoEDisablesPiecewise says _handle_moe_kernel_config turns the
// graphs off after the fraction was derived (v0.5.10 server_args.py:
// 2722-2736): the MoE runner is flashinfer_trtllm, which
// _handle_model_specific_adjustments picks on SM10x (is_sm100_supported)
// for DeepSeek-V3's family with fp8 (DeepseekV3ForCausalLM without a
// quantization taking fp8, :1630-1650) and for Qwen3-MoE with fp8 or
// unquantized weights (:1952-1971); its ModelOpt and GLM-4.5 ModelOpt FP4
// cases are of checkpoints refused from v0.5.9 (see unreadQuantWhy), its
// Llama 4 case of a model membudget refuses, and gpt-oss's
// flashinfer_mxfp4 keeps them. The reserve stays in the fraction.
func trtllmMoEDisablesPiecewise(a *model.Arch, r *Resolved, c budget.Class) bool {
	si := c.Device.Silicon
	if r.Profile.PiecewiseWithTRTLLMMoE {
		return false // v0.5.13 drops the case (PR #23351)
	}
	if si.Vendor != budget.NVIDIA || si.Major != 10 || len(a.Architectures) == 0 {
		return false
	}
	method := r.Quant.Method
	switch arch := a.Architectures[0]; arch {
	case "DeepseekV3ForCausalLM", "KimiK25ForConditionalGeneration", "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration":
		return method == "fp8" || method == "" && arch == "DeepseekV3ForCausalLM"
	case "Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration":
		return method == "fp8" || method == ""
	}
	return false
}

// piecewiseItem is the piecewise graphs' ledger item, beside the pool:
// SGLang's reserve for them (see [piecewiseReserveMiB]) where it captures
// them.
func (ref *Reference) piecewiseItem() []budget.Item {
	r := &ref.Serve
	if !r.PiecewiseCaptured {
		return nil
	}
	return []budget.Item{{Name: "piecewise_cuda_graphs", Term: budget.TermGraphPool, Bytes: uint64(piecewiseReserveMiB(r, ref.Arch) * mib)}}
}

// piecewiseCaptured is the sizes SGLang captures for r, nil when none.
func piecewiseCaptured(r Resolved) []uint64 {
	if !r.PiecewiseCaptured {
		return nil
	}
	return r.PiecewiseSizes
}
