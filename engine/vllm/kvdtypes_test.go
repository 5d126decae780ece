package vllm

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// TestUnsizedKVDtypesRefusedByName: every dtype vLLM's CacheDType lists
// beyond the six membudget lays out (vllm/config/cache.py at 002f10e: 18
// values) is refused naming its layout, under old and new profiles; a dtype vLLM
// does not know keeps the plain list.
func TestUnsizedKVDtypesRefusedByName(t *testing.T) {
	// vLLM's CacheDType, as listed at 002f10e, less the six sized ones.
	vllmLists := []string{"fp8_inc", "fp8_ds_mla", "nvfp4_ds_mla", "turboquant_k8v4", "turboquant_4bit_nc",
		"turboquant_k3v4_nc", "turboquant_3bit_nc", "int4_per_token_head", "int8_per_token_head",
		"fp8_per_token_head", "nvfp4", "nvfp4_4over6"}
	if len(vllmLists) != 18-6 || len(unsizedKVDtypes) != len(vllmLists) {
		t.Fatalf("%d unsized dtypes listed, %d in the table; want 12 (18 in CacheDType less 6 sized)", len(vllmLists), len(unsizedKVDtypes))
	}
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, spec := range []string{"main", "0.29.0", "0.19.0"} {
		for _, d := range vllmLists {
			_, err := Resolve(Serve{KVCacheDtype: d}, llama, testClass(false), mustProfile(spec))
			var se *engine.SettingError
			if !errors.As(err, &se) {
				t.Fatalf("%s --kv-cache-dtype %s: %v, want a setting error", spec, d, err)
			}
			want := engine.SettingError{Flag: "kv-cache-dtype", Value: `"` + d + `"`,
				Reason: "vLLM's " + d + " KV cache is not sized by membudget: " + unsizedKVDtypes[d] + ", a page layout it has not read; want auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16 or float16"}
			if diff := cmp.Diff(want, *se); diff != "" {
				t.Errorf("%s --kv-cache-dtype %s (-want +got):\n%s", spec, d, diff)
			}
		}
	}
	if got, want := kvDtypeRefusal("int4"), "want auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16 or float16"; got != want {
		t.Errorf("an unknown dtype: %q, want %q", got, want)
	}
}
