package vllm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// nomicConfig is nomic-ai/nomic-embed-text-v1.5's numbers (768 wide, 12
// layers of 12 heads, SwiGLU of 3072, no biases, 30528 tokens, 8192
// positions in n_positions, the whole head rotated), float32.
const nomicConfig = `{"model_type":"nomic_bert","architectures":["NomicBertModel"],"activation_function":"swiglu",` +
	`"n_embd":768,"n_layer":12,"n_head":12,"n_inner":3072,"n_positions":8192,"max_trained_positions":2048,` +
	`"vocab_size":30528,"type_vocab_size":2,"qkv_proj_bias":false,"mlp_fc1_bias":false,"mlp_fc2_bias":false,` +
	`"rotary_emb_base":1000,"rotary_emb_fraction":1.0,"torch_dtype":"float32"}`

// gteConfig is Alibaba-NLP/gte-base-en-v1.5's numbers under the
// architecture vLLM's docs override NewModel with: 768 wide, 12 layers of
// 12 heads, GeGLU of 3072, 30528 tokens, no token types, 8192 positions,
// an NTK rope, float32.
const gteConfig = `{"model_type":"new","architectures":["GteNewModel"],"hidden_act":"gelu","hidden_size":768,` +
	`"num_hidden_layers":12,"num_attention_heads":12,"intermediate_size":3072,"max_position_embeddings":8192,` +
	`"vocab_size":30528,"type_vocab_size":0,"rope_theta":500000,"rope_scaling":{"type":"ntk","factor":2.0},"torch_dtype":"float32"}`

// TestBertWithRopeResolve: the pooling runner's defaults for the
// bert_with_rope.py models on the 80 GiB class: max_model_len from
// max_position_embeddings (Nomic's n_positions), the batch raised to it,
// float16; Nomic's cos/sin cache sized by the served max_model_len
// (Sharding.RotaryRows), GTE's by its config whatever is served.
func TestBertWithRopeResolve(t *testing.T) {
	type got struct {
		Runner, Dtype         string
		MaxLen, Batched, Rows uint64
		WeightBytes           uint64
	}
	tests := []struct {
		name, config string
		s            Serve
		want         got
	}{
		// Weights at float16 as model's TestBertWithRopeWeightsByHand
		// counts them: 136,779,264 elements built and a cos/sin cache of
		// 8192 x 64 = 524,288, x 2 B = 274,607,104.
		{"nomic", nomicConfig, Serve{}, got{"pooling", "float16", 8192, 8192, 8192, 274_607_104}},
		// At 512 the cache is 512 x 64: (136,779,264 + 32,768) x 2.
		{"nomic at 512", nomicConfig, Serve{MaxModelLen: 512}, got{"pooling", "float16", 512, 8192, 512, 273_624_064}},
		// Past n_positions with --allow-long-max-model-len: the cache
		// grows with it (16384 x 64 = 1,048,576): (136,779,264 +
		// 1,048,576) x 2 = 275,655,680; the batch holds one sequence.
		{"nomic long", nomicConfig, Serve{MaxModelLen: 16384, AllowLongMaxModelLen: true},
			got{"pooling", "float16", 16384, 16384, 16384, 275_655_680}},
		// GTE: 136,776,192 parameters and 8192 x 64 = 524,288 cache
		// elements, x 2 = 274,600,960, at any max_model_len.
		{"gte", gteConfig, Serve{}, got{"pooling", "float16", 8192, 8192, 0, 274_600_960}},
		{"gte at 512", gteConfig, Serve{MaxModelLen: 512}, got{"pooling", "float16", 512, 8192, 0, 274_600_960}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := parse(t, tt.config)
			r, err := Resolve(trusting(a, tt.s), a, testClass(false), current)
			if err != nil {
				t.Fatal(err)
			}
			st := stageOf(&r, 0)
			g := got{r.Runner, r.Dtype, r.MaxModelLen, r.MaxNumBatchedTokens, st.RotaryRows, budget.ItemBytes(weightItems(a, st))}
			if diff := cmp.Diff(tt.want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestBertWithRopeRefusals: a length past what vLLM derives without
// --allow-long-max-model-len, GTE's past its cos/sin cache even with it,
// and a tensor-parallel degree that does not divide the heads
// (bert_with_rope.py:107 asserts it).
func TestBertWithRopeRefusals(t *testing.T) {
	for _, c := range []struct {
		name, config string
		s            Serve
		flag         string
	}{
		{"nomic past n_positions", nomicConfig, Serve{MaxModelLen: 8193}, "max-model-len"},
		{"gte past max_position_embeddings", gteConfig, Serve{MaxModelLen: 8193, AllowLongMaxModelLen: true}, "max-model-len"},
		{"gte tp 5", gteConfig, Serve{TensorParallelSize: 5}, "tensor-parallel-size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := parse(t, c.config)
			_, err := Resolve(trusting(a, c.s), a, testClass(false), current)
			wantRefusal(t, err, c.flag, "")
		})
	}
}

// TestBertWithRopePeakByHand: gte-base-en-v1.5 on one GPU of the 80 GiB
// class, float16. A token's activations: 4 x 768 + max(4 x 12 x 64 =
// 3072, the divided gate_up_proj's 2 x 3072 and act_and_mul's 3072 =
// 9216) = 12,288 elements, 24,576 B; 8192 batched tokens x 24,576 =
// 201,326,592, plus the V1 residual 52 MiB = 54,525,952: 255,852,544.
// Graphs: the first of 51 PIECEWISE sizes holds 324 MiB = 339,738,624
// plus 512 x 24,576 = 12,582,912; then 50 x 12 layers x 153 KiB = 600 x
// 156,672 = 94,003,200: 446,324,736. Under TP 2 a token holds 4 x 768 +
// max(4 x 6 x 64 = 1536, 2 x 1536 + 1536 = 4608) = 7680 elements, 15,360
// B: 8192 x 15,360 = 125,829,120 + 54,525,952 = 180,355,072.
func TestBertWithRopePeakByHand(t *testing.T) {
	a := parse(t, gteConfig)
	r, err := Resolve(Serve{TrustRemoteCode: true}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
		got[it.Name] = it.Bytes
	}
	want := map[string]uint64{
		"activation_peak":  255_852_544,
		"cuda_graph_pool":  446_324_736,
		"non_torch_growth": nonTorchV1From018,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("peak items (-want +got):\n%s", diff)
	}
	if got := encoderBytesPerToken(a, 2, 2); got != 15_360 {
		t.Errorf("TP 2: %d B a token, want 15,360", got)
	}
}
