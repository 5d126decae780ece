package modelgen

import "pgregory.net/rapid"

// headCounts are the attention heads drawn: rich in divisors, so that the
// KV heads among them give every GQA ratio and a tensor-parallel degree of
// 2, 3, 4, 6 or 8 divides some and not others.
var headCounts = []uint64{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64}

// headDims are the head sizes drawn, 80 (Phi-2, Qwen2.5-VL's tower) among
// the powers of two.
var headDims = []uint64{32, 64, 80, 128, 256}

// maxPositions are the context lengths drawn, from a test model's 256 to
// 128k.
var maxPositions = []uint64{256, 2048, 4096, 32768, 131072}

// shape is what decoder drew, for the family's own keys.
type shape struct {
	heads, kvHeads, headDim, layers, maxPos uint64
}

// decoder draws the keys every decoder family shares: heads, KV heads
// among their divisors, hidden_size as heads x head_dim (or, when
// explicit, a head_dim of its own beside a hidden_size of 128 x k), layers,
// intermediate_size, vocabulary, context, dtype and tied embeddings.
// explicit false leaves head_dim out, for the families that derive it
// whatever the config says (OPT, OLMo 3).
func decoder(t *rapid.T, modelType string, explicit bool) (map[string]any, shape) {
	heads := rapid.SampledFrom(headCounts).Draw(t, "heads")
	s := shape{
		heads:   heads,
		kvHeads: heads / rapid.SampledFrom(divisors(heads)).Draw(t, "kv_ratio"),
		headDim: rapid.SampledFrom(headDims).Draw(t, "head_dim"),
		layers:  rapid.Uint64Range(1, 48).Draw(t, "layers"),
		maxPos:  rapid.SampledFrom(maxPositions).Draw(t, "max_position"),
	}
	c := map[string]any{
		"model_type":              modelType,
		"hidden_size":             s.heads * s.headDim,
		"num_hidden_layers":       s.layers,
		"num_attention_heads":     s.heads,
		"num_key_value_heads":     s.kvHeads,
		"intermediate_size":       128 * rapid.Uint64Range(1, 160).Draw(t, "inter_x128"),
		"vocab_size":              rapid.Uint64Range(256, 262144).Draw(t, "vocab"),
		"max_position_embeddings": s.maxPos,
		"torch_dtype":             rapid.SampledFrom([]string{"bfloat16", "float16", "float32"}).Draw(t, "dtype"),
		"tie_word_embeddings":     rapid.Bool().Draw(t, "tied"),
	}
	if explicit && rapid.Bool().Draw(t, "explicit_head_dim") {
		c["head_dim"] = s.headDim
		c["hidden_size"] = 128 * rapid.Uint64Range(1, 64).Draw(t, "hidden_x128")
	}
	return c, s
}

// divisors lists n's divisors, ascending.
func divisors(n uint64) []uint64 {
	var d []uint64
	for i := uint64(1); i <= n; i++ {
		if n%i == 0 {
			d = append(d, i)
		}
	}
	return d
}

// window draws a sliding window.
func window(t *rapid.T) uint64 { return rapid.Uint64Range(1, 8192).Draw(t, "window") }

// chunk draws a chunked-attention chunk size.
func chunk(t *rapid.T) uint64 { return rapid.Uint64Range(1, 8192).Draw(t, "chunk") }

// layerTypes draws layer_types: one of kinds per layer.
func layerTypes(t *rapid.T, layers uint64, kinds ...string) []string {
	out := make([]string, layers)
	for i := range out {
		out[i] = rapid.SampledFrom(kinds).Draw(t, "layer_type")
	}
	return out
}

// x8 draws a multiple of 8 up to 8 x hi: the state shapes that tensor
// parallelism divides.
func x8(t *rapid.T, label string, hi uint64) uint64 {
	return 8 * rapid.Uint64Range(1, hi).Draw(t, label)
}

// moe is a drawn mixture of experts: experts, the experts per token among
// them, and an expert's intermediate size (128 x k).
type moe struct {
	experts, topK, inter uint64
}

func drawMoE(t *rapid.T) moe {
	experts := rapid.Uint64Range(2, 64).Draw(t, "experts")
	return moe{
		experts: experts,
		topK:    rapid.Uint64Range(1, experts).Draw(t, "topk"),
		inter:   128 * rapid.Uint64Range(1, 16).Draw(t, "moe_inter_x128"),
	}
}

// denseLayers draws which of the layers keep a dense MLP
// (mlp_only_layers).
func denseLayers(t *rapid.T, layers uint64) []uint64 {
	var dense []uint64 // none is null, as transformers writes an empty default
	for i := range layers {
		if rapid.Bool().Draw(t, "mlp_only") {
			dense = append(dense, i)
		}
	}
	return dense
}

// partialRotary draws a partial_rotary_factor.
func partialRotary(t *rapid.T, factors ...float64) float64 {
	return rapid.SampledFrom(factors).Draw(t, "partial_rotary_factor")
}
