// Package model reads model architectures from Hugging Face config.json
// files and lists the weights one rank holds under a [Sharding]: every
// tensor of every layer it holds, in the served dtype and quantization, by
// name. It is engine-neutral: how an engine splits layers among pipeline
// stages, which quantization it applies and what it allocates beyond the
// checkpoint (its KV cache, its profile run's peaks, its kernels' extra
// copies) live in the engine's package (membudget/engine/vllm).
//
// Each model family is one file, family_<name>.go: its config reader, its
// module tree and weights where they depart from the shared builder, its
// checkpoint naming rules, its transformers config class (the defaults
// that fill what a config.json omits, defaults.go), and the init function
// that registers its model_types (registry.go). A model_type with no family
// is read as a generic decoder (generic.go) when its checkpoint's headers
// can be read. Each quantization method's reader is one
// file, quant_<method>.go, beside the shared types and dispatch of
// quant.go. The rest is shared: the config.json readers (config.go), the
// module tree and weights (tree.go, weights.go, layout.go, vision.go), and
// the checkpoint matching and its common rules (checkpoint.go,
// checkpoint_rules.go).
package model
