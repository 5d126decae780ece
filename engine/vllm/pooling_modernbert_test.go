package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// modernBertConfig is ModernBERT-base's numbers served as ModernBertModel
// (768 hidden, 22 layers of 12 heads, 1152 intermediate of a GeGLU MLP,
// 50368 tokens, 8192 positions, float32).
const modernBertConfig = `{"model_type":"modernbert","architectures":["ModernBertModel"],"hidden_size":768,"intermediate_size":1152,` +
	`"num_hidden_layers":22,"num_attention_heads":12,"vocab_size":50368,"max_position_embeddings":8192,` +
	`"global_attn_every_n_layers":3,"global_rope_theta":160000.0,"local_rope_theta":10000.0,"torch_dtype":"float32"}`

// TestModernBertResolve: the pooling runner's defaults for ModernBERT on
// the 80 GiB class: max_model_len max_position_embeddings 8192 (rotary: no
// offset), the batch raised to it, float16 for a float32 checkpoint.
func TestModernBertResolve(t *testing.T) {
	a := parse(t, modernBertConfig)
	r, err := Resolve(Serve{}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Runner, Dtype   string
		MaxLen, Batched uint64
	}
	want := got{Runner: "pooling", Dtype: "float16", MaxLen: 8192, Batched: 8192}
	if diff := cmp.Diff(want, got{r.Runner, r.Dtype, r.MaxModelLen, r.MaxNumBatchedTokens}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestModernBertRefusals: vLLM's ModernBERT fails under tensor
// parallelism, and a length past max_position_embeddings indexes past its
// rotary caches.
func TestModernBertRefusals(t *testing.T) {
	a := parse(t, modernBertConfig)
	for _, c := range []struct {
		name string
		s    Serve
		flag string
	}{
		{"tensor parallel", Serve{TensorParallelSize: 2}, "tensor-parallel-size"},
		{"past max_position_embeddings", Serve{MaxModelLen: 8193, AllowLongMaxModelLen: true}, "max-model-len"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(c.s, a, testClass(false), current)
			wantRefusal(t, err, c.flag, "")
		})
	}
}

// TestModernBertPeakByHand: ModernBERT-base on one GPU of the 80 GiB
// class, float16. A token's activations: 4 x 768 + max(4 x 12 x 64 =
// 3072, the GeGLU's Wi output 2 x 1152 and its gated product 1152 = 3456)
// = 6528 elements, 13,056 B; 8192 batched tokens x 13,056 = 106,954,752,
// plus the V1 residual 52 MiB = 54,525,952: 161,480,704. Graphs: 51
// PIECEWISE sizes up to min(2 x 1024, 512) = 512, 50 after the first; the
// first holds 324 MiB = 339,738,624 plus 512 x 13,056 = 6,684,672; then
// 50 x 22 layers x 153 KiB = 1100 x 156,672 = 172,339,200: 518,762,496.
func TestModernBertPeakByHand(t *testing.T) {
	a := parse(t, modernBertConfig)
	r, err := Resolve(Serve{}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	st := stageOf(&r, 0)
	got := map[string]uint64{}
	for _, it := range peakItems(a, &r, st) {
		got[it.Name] = it.Bytes
	}
	want := map[string]uint64{
		"activation_peak":  161_480_704,
		"cuda_graph_pool":  518_762_496,
		"non_torch_growth": nonTorchV1From018,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("peak items (-want +got):\n%s", diff)
	}
}
