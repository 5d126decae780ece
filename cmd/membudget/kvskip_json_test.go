package main

import (
	"strings"
	"testing"
)

// TestKVSkipLayersJSON: a report under --kv-cache-dtype-skip-layers
// decodes strictly into the schema, with serve.kv_cache_dtype_skip_layers
// and kv_capacity.kv_dtype_by_layer, both absent without the flag. No
// other report of the command tests gives the flag, so without this the
// two fields could leave the schema unseen.
func TestKVSkipLayersJSON(t *testing.T) {
	args := []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g",
		"--gpu-memory-utilization", "0.9", "--kv-cache-dtype", "fp8", "--json"}
	plain := reportOK(t, args...)
	if plain.Serve.KVCacheDtypeSkipLayers != "" || plain.KVCapacity == nil || plain.KVCapacity.KVDtypeByLayer != "" {
		t.Errorf("without the flag: skip layers %q, capacity %+v; want both absent", plain.Serve.KVCacheDtypeSkipLayers, plain.KVCapacity)
	}
	got := reportOK(t, append(args, "--kv-cache-dtype-skip-layers", "0 31")...)
	// The entries as given, separated by a space.
	if got.Serve.KVCacheDtypeSkipLayers != "0 31" {
		t.Errorf("serve.kv_cache_dtype_skip_layers %q, want %q", got.Serve.KVCacheDtypeSkipLayers, "0 31")
	}
	// Llama 3.1 8B has 32 full-attention layers: 0 and 31 keep the
	// model's bfloat16 (2 bytes), the other 30 take fp8 (1 byte).
	const want = "layers 0,31 keep bfloat16 (2 bytes), 30 layers fp8 (1 byte)"
	if got.KVCapacity == nil || !strings.HasPrefix(got.KVCapacity.KVDtypeByLayer, want) {
		t.Errorf("kv_capacity %+v: kv_dtype_by_layer does not start %q", got.KVCapacity, want)
	}
}
