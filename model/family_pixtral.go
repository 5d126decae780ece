package model

// PixtralForConditionalGeneration (vllm/model_executor/models/pixtral.py
// at d18bb7b) is Pixtral in Mistral's own format: vLLM builds its config
// from params.json (MistralConfigParser, vllm/transformers_utils/config.py:
// 343-360, --config-format mistral), which _remap_mistral_vision_args
// turns into model_type pixtral with the vision_encoder arguments beside
// the text model (transformers_utils/configs/mistral.py:98-113), and
// loads consolidated.safetensors in Mistral's names. membudget reads
// config.json and Hugging Face names only: such a checkpoint is refused by
// name, pointing at the Hugging Face conversion, which is sized
// (mistral-community/pixtral-12b: LlavaForConditionalGeneration with a
// pixtral vision_config, family_llava.go).
const pixtralRefusal = "Mistral-format Pixtral (params.json, read by vLLM's MistralConfigParser with --config-format mistral, vllm/transformers_utils/configs/mistral.py:98-113): membudget reads config.json only; size the Hugging Face conversion (LlavaForConditionalGeneration with a pixtral vision_config, such as mistral-community/pixtral-12b), which is sized"

func init() {
	refusedModules["pixtral"] = pixtralRefusal
	refusedModelTypes["pixtral"] = pixtralRefusal
}

// refusedModelTypes are the model_types a config.json may name whose
// model membudget refuses by name, with why.
var refusedModelTypes = map[string]string{}
