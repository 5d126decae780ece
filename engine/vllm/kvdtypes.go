package vllm

// sizedKVDtypes is the --kv-cache-dtype values membudget lays out.
const sizedKVDtypes = "auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16 or float16"

// unsizedKVDtypes is the --kv-cache-dtype values vLLM accepts beyond
// sizedKVDtypes (CacheDType, vllm/config/cache.py at commit 002f10e, later
// than 0.29.0) with why membudget does not size them: their pages hold
// packed values and scales whose layout, set by each attention backend,
// membudget has not read. Sizing them as another dtype would misstate the
// KV cache, so they are refused by name.
var unsizedKVDtypes = map[string]string{
	"nvfp4":               "NVFP4 values packed two to a byte with a scale per 16 values",
	"nvfp4_4over6":        "the NVFP4 layout with max/6 or max/4 scales per 16 values (vllm/config/cache.py)",
	"int4_per_token_head": "4-bit values with a scale per token and head (kv_cache_uses_per_token_head_scales)",
	"int8_per_token_head": "8-bit values with a scale per token and head (kv_cache_uses_per_token_head_scales)",
	"fp8_per_token_head":  "fp8 values with a scale per token and head (kv_cache_uses_per_token_head_scales)",
	"turboquant_k8v4":     "TurboQuant's 8-bit keys and 4-bit values",
	"turboquant_4bit_nc":  "TurboQuant's 4-bit keys and values",
	"turboquant_k3v4_nc":  "TurboQuant's 3-bit keys and 4-bit values",
	"turboquant_3bit_nc":  "TurboQuant's 3-bit keys and values",
	"fp8_ds_mla":          "DeepSeek V3.2's sparse-MLA fp8 page, which vLLM itself picks for --kv-cache-dtype fp8 (pass fp8)",
	"nvfp4_ds_mla":        "DeepSeek's sparse-MLA NVFP4 page",
	"fp8_inc":             "Intel Gaudi's fp8, and membudget has no Gaudi path",
}

// kvDtypeRefusal is why --kv-cache-dtype d is refused: a dtype vLLM
// accepts but membudget does not lay out is named with its layout.
func kvDtypeRefusal(d string) string {
	if why, ok := unsizedKVDtypes[d]; ok {
		return "vLLM's " + d + " KV cache is not sized by membudget: " + why + ", a page layout it has not read; want " + sizedKVDtypes
	}
	return "want " + sizedKVDtypes
}
