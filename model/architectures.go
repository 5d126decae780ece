package model

import (
	"slices"
	"sort"
)

// architectures are the model_types whose family sizes each config.json
// "architectures" string: the vLLM classes (vllm/model_executor/models/
// registry.py) whose weights and KV cache the family builds as vLLM does.
// vLLM picks its implementation by this string, membudget its family by
// model_type; an architecture is sized when a config naming it has one of
// these model_types, and a trust_remote_code config of a model_type no
// family reads is read by the family of the architecture it names (see
// remoteArchitecture). New families register theirs from their own file
// (registerArchitectures); the families before them are listed in
// init below.
var architectures = map[string][]string{}

// registerArchitectures says that model_type modelType's family sizes
// each of archs. An architecture registered twice for the same model_type
// is a programming error.
func registerArchitectures(modelType string, archs ...string) {
	for _, arch := range archs {
		if slices.Contains(architectures[arch], modelType) {
			panic("model: architecture " + arch + " registered twice for model_type " + modelType)
		}
		architectures[arch] = append(architectures[arch], modelType)
		sort.Strings(architectures[arch])
	}
}

func init() {
	// The families read before issue 23, each with the classes vLLM's
	// registry maps to the module its family follows (registry.py at
	// d18bb7b) and that its published checkpoints name.
	for _, r := range []struct {
		modelType string
		archs     []string
	}{
		// LLaMAForCausalLM: the decapoda-research checkpoints' spelling,
		// registry.py's "# For decapoda-research/llama-*".
		{"llama", []string{"LlamaForCausalLM", "LLaMAForCausalLM"}},
		{"llama4", []string{"Llama4ForConditionalGeneration"}},
		{"llama4_text", []string{"Llama4ForCausalLM"}},
		{"mistral", []string{"MistralForCausalLM"}},
		{"ministral3", []string{"Ministral3ForCausalLM"}},
		{"mistral3", []string{"Mistral3ForConditionalGeneration"}},
		{"mixtral", []string{"MixtralForCausalLM"}},
		{"qwen2", []string{"Qwen2ForCausalLM"}},
		{"qwen2_moe", []string{"Qwen2MoeForCausalLM"}},
		{"qwen2_5_vl", []string{"Qwen2_5_VLForConditionalGeneration"}},
		{"qwen3", []string{"Qwen3ForCausalLM"}},
		{"qwen3_moe", []string{"Qwen3MoeForCausalLM"}},
		{"qwen3_next", []string{"Qwen3NextForCausalLM"}},
		{"qwen3_vl", []string{"Qwen3VLForConditionalGeneration"}},
		{"qwen3_vl_text", []string{"Qwen3VLForConditionalGeneration"}},
		{"qwen3_5", []string{"Qwen3_5ForConditionalGeneration"}},
		{"qwen3_5_moe", []string{"Qwen3_5MoeForConditionalGeneration"}},
		{"qwen3_5_text", []string{"Qwen3_5ForCausalLM"}},
		{"qwen3_5_moe_text", []string{"Qwen3_5MoeForCausalLM"}},
		{"gemma", []string{"GemmaForCausalLM"}},
		{"gemma2", []string{"Gemma2ForCausalLM"}},
		{"gemma3", []string{"Gemma3ForConditionalGeneration"}},
		{"gemma3_text", []string{"Gemma3ForCausalLM"}},
		{"gemma4", []string{"Gemma4ForConditionalGeneration"}},
		{"gemma4_text", []string{"Gemma4ForCausalLM"}},
		{"deepseek_v2", []string{"DeepseekV2ForCausalLM"}},
		{"deepseek_v3", []string{"DeepseekV3ForCausalLM"}},
		{"deepseek_v32", []string{"DeepseekV32ForCausalLM"}},
		{"kimi_k2", []string{"DeepseekV3ForCausalLM"}},
		{"kimi_k25", []string{"KimiK25ForConditionalGeneration"}},
		{"glm_moe_dsa", []string{"GlmMoeDsaForCausalLM"}},
		{"glm4_moe", []string{"Glm4MoeForCausalLM"}},
		{"exaone4", []string{"Exaone4ForCausalLM"}},
		{"gpt_oss", []string{"GptOssForCausalLM"}},
		{"granite", []string{"GraniteForCausalLM"}},
		{"minimax_m2", []string{"MiniMaxM2ForCausalLM"}},
		{"nemotron_h", []string{"NemotronHForCausalLM"}},
		{"olmo3", []string{"Olmo3ForCausalLM"}},
		{"opt", []string{"OPTForCausalLM"}},
		{"phi", []string{"PhiForCausalLM"}},
		{"phi3", []string{"Phi3ForCausalLM"}},
	} {
		registerArchitectures(r.modelType, r.archs...)
	}
}

// Architectures returns every config.json "architectures" string the model
// sizes, sorted, each with the model_types (sorted) whose family sizes it:
// a config naming the architecture is read when its model_type is one of
// them.
func Architectures() map[string][]string {
	out := make(map[string][]string, len(architectures))
	for k, v := range architectures {
		out[k] = slices.Clone(v)
	}
	return out
}

// ArchitectureRefusal returns why the model sizes no model of vLLM's
// module (vllm/model_executor/models/<module>.py) of that kind, where it is
// a kind the model does not model at all; "" for a module the model could
// read and has no family for yet.
func ArchitectureRefusal(module string) string {
	return refusedModules[module]
}

// refusedModules are the vLLM modules whose layers keep a per-sequence
// state of a kind no family reads (Nemotron-H's, Granite 4.0-H's and
// Falcon-H1's and Mamba2's Mamba2, Jamba's, Mamba's and Falcon Mamba's
// Mamba1 and the Qwen gated delta net are read): each imports
// vllm/model_executor/layers/mamba/ for the layer named
// (vllm/model_executor/models/<module>.py at d18bb7b).
var refusedModules = map[string]string{
	"zamba2":             stateRefusal + "MambaMixer2 layers and a shared attention block",
	"lfm2":               stateRefusal + "ShortConv layers beside attention",
	"lfm2_moe":           stateRefusal + "ShortConv layers beside attention",
	"lfm2_vl":            stateRefusal + "LFM2's ShortConv layers in its language model",
	"olmo_hybrid":        stateRefusal + "gated-delta-net layers (olmo_gdn_linear_attn) beside attention",
	"bailing_moe_linear": stateRefusal + "linear-attention layers (bailing_linear_attn) beside attention",
	"bailing_moe_v3":     stateRefusal + "linear-attention layers (mamba.abstract) beside attention",
	"interns2_mobius":    stateRefusal + "gated-delta-net layers of a family not read",
}

// stateRefusal opens the reason of refusedModules.
const stateRefusal = "a per-sequence state membudget does not model: "
