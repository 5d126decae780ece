// Package modelgen holds rapid generators of valid Hugging Face
// config.json objects, [Config] of any family the model reads and
// [ConfigOf] of one model_type, for the property tests of
// membudget/properties and the engines' contract suite: every
// model_type of [model.ModelTypes] is drawn, with shapes from the real
// ranges (GQA ratios, head_dim, MLA and its indexer, MoE, sliding windows
// of every kind, chunked attention, gated delta nets, Mamba2, partial
// rotary, vision towers) and every quantization scheme the family takes.
//
// Head counts come from a divisor-rich set (1, 2, 3, 4, 6, 8, 12, ... 64)
// and KV heads among their divisors, so that a caller drawing a
// tensor-parallel degree meets degrees that do not divide the heads too,
// and must expect the engine to refuse those.
//
// Every config a generator draws parses with [model.ParseConfig] once
// written by [JSON]; the package's own test holds it to that.
package modelgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"pgregory.net/rapid"

	"membudget/model"
)

// family is the generator of one file: the model_types it draws and how
// it draws one of them.
type family struct {
	types []string
	draw  func(t *rapid.T, modelType string) map[string]any
}

// generator draws one of the family's model_types.
func (f family) generator() *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		mt := rapid.SampledFrom(f.types).Draw(t, "model_type")
		return withArchitecture(omitDefaults(t, f.draw(t, mt), mt), mt)
	})
}

// of draws modelType only.
func (f family) of(modelType string) *rapid.Generator[map[string]any] {
	return rapid.Custom(func(t *rapid.T) map[string]any {
		return withArchitecture(omitDefaults(t, f.draw(t, modelType), modelType), modelType)
	})
}

// omitDefaults leaves out, now and then, each key whose drawn value is what
// the model_type's transformers config class gives a config that omits it
// ([model.ClassDefaults]), as the published configs do (google/gemma-3-4b-it
// gives neither its heads nor its vocabulary), so that the properties also
// read configs that lean on the class; the vocabulary is drawn as the
// class's now and then, to be left out in turn. The head counts stay: the
// package's own test reads them. A text_config is treated as its class's.
func omitDefaults(t *rapid.T, c map[string]any, modelType string) map[string]any {
	if text, ok := c["text_config"].(map[string]any); ok {
		sub := model.ClassSubConfig(modelType, "text_config")
		if named, ok := text["model_type"].(string); ok && named != modelType {
			sub = named
		}
		omitDefaults(t, text, sub)
	}
	defs := model.ClassDefaults(modelType)
	if len(defs) == 0 {
		return c
	}
	if v, ok := defs["vocab_size"]; ok && c["vocab_size"] != nil && rapid.Bool().Draw(t, "class_vocab") {
		var n uint64
		if json.Unmarshal([]byte(v), &n) == nil {
			c["vocab_size"] = n
		}
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		def, ok := defs[k]
		if !ok || k == "num_attention_heads" || k == "num_key_value_heads" || !sameJSON(c[k], def) {
			continue
		}
		if rapid.Bool().Draw(t, "omit_"+k) {
			delete(c, k)
		}
	}
	return c
}

// sameJSON reports whether v, written as JSON, is the JSON value def.
func sameJSON(v any, def string) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(b, &x) != nil || json.Unmarshal([]byte(def), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// architectures are the transformers classes the published checkpoints of
// each model_type name in config.json's "architectures" (those of
// corpus/models, and transformers' causal-LM class of the text-only
// types): an engine picks its implementation by it.
var architectures = map[string]string{
	"chatglm": "ChatGLMModel", "cohere": "CohereForCausalLM", "cohere2": "Cohere2ForCausalLM", "dbrx": "DbrxForCausalLM", "arcee": "ArceeForCausalLM", "apertus": "ApertusForCausalLM", "bloom": "BloomForCausalLM", "deepseek": "DeepseekForCausalLM", "deepseek_v2": "DeepseekV2ForCausalLM", "deepseek_v3": "DeepseekV3ForCausalLM", "deepseek_v32": "DeepseekV32ForCausalLM", "deepseek_v4": "DeepseekV4ForCausalLM",
	"ernie4_5": "Ernie4_5ForCausalLM", "ernie4_5_moe": "Ernie4_5_MoeForCausalLM", "exaone": "ExaoneForCausalLM", "falcon": "FalconForCausalLM", "flex_olmo": "FlexOlmoForCausalLM", "exaone4": "Exaone4ForCausalLM", "gemma": "GemmaForCausalLM", "gemma2": "Gemma2ForCausalLM",
	"gemma3": "Gemma3ForConditionalGeneration", "gemma3_text": "Gemma3ForCausalLM",
	"gemma3n": "Gemma3nForConditionalGeneration", "gemma3n_text": "Gemma3nForCausalLM",
	"gemma4": "Gemma4ForConditionalGeneration", "gemma4_text": "Gemma4ForCausalLM", "gpt_neox": "GPTNeoXForCausalLM",
	"glm": "GlmForCausalLM", "glm4": "Glm4ForCausalLM", "glm4_moe": "Glm4MoeForCausalLM", "glm4_moe_lite": "Glm4MoeLiteForCausalLM", "glm_moe_dsa": "GlmMoeDsaForCausalLM", "gpt_oss": "GptOssForCausalLM", "gpt2": "GPT2LMHeadModel", "gptj": "GPTJForCausalLM",
	"granite": "GraniteForCausalLM", "hunyuan_v1_dense": "HunYuanDenseV1ForCausalLM", "hunyuan_v1_moe": "HunYuanMoEV1ForCausalLM", "hyperclovax": "HyperCLOVAXForCausalLM", "internlm2": "InternLM2ForCausalLM", "internlm3": "InternLM3ForCausalLM", "internvl_chat": "InternVLChatModel", "jais2": "Jais2ForCausalLM", "granitemoe": "GraniteMoeForCausalLM", "granitemoeshared": "GraniteMoeSharedForCausalLM", "kimi_k2": "DeepseekV3ForCausalLM", "kimi_k25": "KimiK25ForConditionalGeneration",
	"llama": "LlamaForCausalLM", "llama4": "Llama4ForConditionalGeneration", "llama4_text": "Llama4ForCausalLM",
	"llava": "LlavaForConditionalGeneration", "llava_next": "LlavaNextForConditionalGeneration", "llava_onevision": "LlavaOnevisionForConditionalGeneration", "llava_next_video": "LlavaNextVideoForConditionalGeneration", "paligemma": "PaliGemmaForConditionalGeneration", "idefics3": "Idefics3ForConditionalGeneration", "smolvlm": "SmolVLMForConditionalGeneration", "phi4mm": "Phi4MMForCausalLM",
	"glm4v": "Glm4vForConditionalGeneration", "glm4v_text": "Glm4vForConditionalGeneration", "glm4v_moe": "Glm4vMoeForConditionalGeneration", "glm4v_moe_text": "Glm4vMoeForConditionalGeneration",
	"mimo": "MiMoForCausalLM", "minicpm": "MiniCPMForCausalLM", "minicpm3": "MiniCPM3ForCausalLM", "minimax_m2": "MiniMaxM2ForCausalLM", "ministral3": "Ministral3ForCausalLM", "mistral": "MistralForCausalLM",
	"mistral3": "Mistral3ForConditionalGeneration", "mixtral": "MixtralForCausalLM", "mpt": "MPTForCausalLM", "nemotron": "NemotronForCausalLM", "nemotron_h": "NemotronHForCausalLM", "nemotron-nas": "DeciLMForCausalLM",
	"olmo2": "Olmo2ForCausalLM", "olmo3": "Olmo3ForCausalLM", "olmoe": "OlmoeForCausalLM", "opt": "OPTForCausalLM", "orion": "OrionForCausalLM", "phi": "PhiForCausalLM", "phi3": "Phi3ForCausalLM", "phimoe": "PhiMoEForCausalLM",
	"qwen2": "Qwen2ForCausalLM", "qwen2_5_vl": "Qwen2_5_VLForConditionalGeneration", "qwen2_vl": "Qwen2VLForConditionalGeneration", "qwen2_moe": "Qwen2MoeForCausalLM",
	"qwen3": "Qwen3ForCausalLM", "qwen3_5": "Qwen3_5ForConditionalGeneration", "qwen3_5_moe": "Qwen3_5MoeForConditionalGeneration",
	"qwen3_5_text": "Qwen3_5ForCausalLM", "qwen3_5_moe_text": "Qwen3_5MoeForCausalLM", "qwen3_moe": "Qwen3MoeForCausalLM", "seed_oss": "SeedOssForCausalLM", "solar": "SolarForCausalLM", "stablelm": "StableLmForCausalLM", "stablelm_epoch": "StableLMEpochForCausalLM", "starcoder2": "Starcoder2ForCausalLM", "step1": "Step1ForCausalLM", "telechat": "TeleChat2ForCausalLM", "teleflm": "TeleFLMForCausalLM",
	"qwen3_next": "Qwen3NextForCausalLM", "qwen3_vl": "Qwen3VLForConditionalGeneration", "qwen3_vl_text": "Qwen3VLForConditionalGeneration",
	"qwen3_vl_moe": "Qwen3VLMoeForConditionalGeneration", "qwen3_vl_moe_text": "Qwen3VLMoeForConditionalGeneration",
	// The encoders' embedding models; drawEncoder names one of its heads.
	"bert": "BertModel", "roberta": "RobertaModel", "xlm-roberta": "XLMRobertaModel", "modernbert": "ModernBertModel",
	"nomic_bert": "NomicBertModel", "new": "GteNewModel", "gte": "GteModel", "whisper": "WhisperForConditionalGeneration",
	// The Mamba hybrids and state-space families of issue 23.
	"granitemoehybrid": "GraniteMoeHybridForCausalLM", "falcon_h1": "FalconH1ForCausalLM", "jamba": "JambaForCausalLM", "mamba": "MambaForCausalLM", "mamba2": "Mamba2ForCausalLM", "falcon_mamba": "FalconMambaForCausalLM",
}

// withArchitecture names c's architecture, as every published config does.
func withArchitecture(c map[string]any, modelType string) map[string]any {
	if _, ok := c["architectures"]; !ok {
		if a, ok := architectures[modelType]; ok {
			c["architectures"] = []string{a}
		}
	}
	return c
}

// families are every family's generator, simplest first (rapid.OneOf
// shrinks towards the first).
var families = []family{
	llama, mistral, qwen2, qwen3, gemma, granite, phi, phi3, opt, olmo3, olmo2, starcoder2, exaone4, ernie45, gptNeoX, exaone, cohere, glm, seedOss, arcee, internLM2, stableLM, orion, solar, nemotron, hunyuanDense, mpt, mimo, gptJ, flexOlmo, jais2, internLM3, hyperCLOVAX, teleFLM, step1, teleChat2, nemotronNAS, apertus,
	falcon, bloom, gpt2, miniCPM, chatGLM,
	miniCPM3, stableLMEpoch,
	gemma2, gemma3Text, gemma4Text, mixtral, qwen3MoE, qwen2MoE, deepseek, glm4MoE, glm4MoELite, olmoe, graniteMoE, ernie45MoE, phiMoE, deepseekV1, graniteMoEShared, minimaxM2, dbrx, hunyuanMoE,
	gptOss, llama4Text, qwen3Next, qwen35Text, nemotronH, wrappers, qwen3VLMoE, llava, qwen2VL, internVL, encoders, llavaOnevision, paliGemma, idefics3, llavaNextVideo, glm4v, phi4mm,
	graniteMoEHybrid, falconH1, jamba, mamba, mamba2, whisper, gemma3n, deepseekV4,
}

// Config draws a valid config.json of any model_type the package draws:
// each family's generator joined with rapid.OneOf.
func Config() *rapid.Generator[map[string]any] {
	gens := make([]*rapid.Generator[map[string]any], len(families))
	for i, f := range families {
		gens[i] = f.generator()
	}
	return rapid.OneOf(gens...)
}

// ConfigOf draws a valid config.json of model_type modelType only, for a
// test that targets one family. It panics for a model_type that
// [ModelTypes] does not list.
func ConfigOf(modelType string) *rapid.Generator[map[string]any] {
	for _, f := range families {
		if slices.Contains(f.types, modelType) {
			return f.of(modelType)
		}
	}
	panic(fmt.Sprintf("modelgen: no generator draws model_type %q", modelType))
}

// ModelTypes lists the model_type values the generators draw at the top
// of a config.json, sorted.
func ModelTypes() []string {
	var out []string
	for _, f := range families {
		out = append(out, f.types...)
	}
	slices.Sort(out)
	return out
}

// JSON writes a drawn config as Python's json module writes it: the string
// "Infinity", which the generators put where a config holds the float
// (Nemotron-H's time_step_limit), becomes the bare constant Infinity.
func JSON(c map[string]any) ([]byte, error) {
	data, err := json.Marshal(c)
	if err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(data, []byte(`"Infinity"`), []byte("Infinity")), nil
}
