// Package model reads model architectures from Hugging Face config.json
// files and lists the weights one rank holds under a [Sharding]: every
// tensor of every layer it holds, in the served dtype and quantization, by
// name. It is engine-neutral: how an engine splits layers among pipeline
// stages, which quantization it applies and what it allocates beyond the
// checkpoint (its KV cache, its profile run's peaks, its kernels' extra
// copies) live in the engine's package (membudget/engine/vllm).
package model
