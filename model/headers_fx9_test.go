package model

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

// The shape of the config corpus/models ships for Mamba-Codestral, entered
// by hand from the file (see TestShippedConfigsParse).
func init() {
	// Mamba-Codestral-7B-v0.1: 64 Mamba2 layers of 4096 (128 heads of 64 in
	// 8 groups, state 128), no attention, no length key (MaxPos 0), untied,
	// bfloat16.
	shippedShapes["mistralai__Mamba-Codestral-7B-v0.1"] = shape{ModelType: "mamba2", Layers: 64, Hidden: 4096, Vocab: 32768,
		Mamba: 64, Dtype: "bfloat16"}
	// granite-4.0-micro: 40 attention layers of 2560 (40 heads, 8 KV heads
	// of 64, rope over 131,072 positions), the shared MLP only, tied,
	// bfloat16.
	shippedShapes["ibm-granite__granite-4.0-micro"] = shape{ModelType: "granitemoehybrid", Layers: 40, Hidden: 2560, Heads: 40, KVHeads: 8,
		HeadDim: 64, Vocab: 100352, MaxPos: 131072, Tied: true, RotaryDim: 64, Dtype: "bfloat16"}
	// Jamba-v0.1: 32 layers of 4096, attention (32 heads, 8 KV heads of
	// 128, no rotary) on layers 4, 12, 20 and 28, Mamba elsewhere, 16
	// experts top-2 of 14,336 on the odd layers, 262,144 positions,
	// untied, bfloat16.
	shippedShapes["ai21labs__Jamba-v0.1"] = shape{ModelType: "jamba", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8,
		HeadDim: 128, Vocab: 65536, MaxPos: 262144, Mamba: 28, MoELayers: 16, Experts: 16, TopK: 2, MoEInter: 14336, Dtype: "bfloat16"}
	// roberta-base: 12 encoder layers of 768 (12 heads of 64), 50,265
	// tokens, 514 positions, no torch_dtype (float32).
	shippedShapes["FacebookAI__roberta-base"] = shape{ModelType: "roberta", Layers: 12, Hidden: 768, Heads: 12, KVHeads: 12,
		HeadDim: 64, Vocab: 50265, MaxPos: 514, Dtype: "float32"}
}

// whisperLargeV3Header is openai/whisper-large-v3's model.safetensors in
// transformers' Whisper names (modeling_whisper.py@5c48f71a68:
// WhisperEncoder's conv1, conv2, embed_positions, layers and layer_norm;
// WhisperDecoder's embed_tokens, embed_positions, layers and layer_norm;
// every attention's q_proj, v_proj and out_proj biased and its k_proj not;
// proj_out tied to embed_tokens, so not stored), with shapes from the
// corpus config: 1280 wide, 32 encoder and 32 decoder layers, FFN 5120, 128
// mel bins, 1500 source and 448 target positions, 51,866 tokens, float16.
func whisperLargeV3Header() (string, []safetensors.Tensor) {
	const D, F, M, S, T, V, L = 1280, 5120, 128, 1500, 448, 51866, 32
	f16 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F16", name, shape...) }
	ln := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{f16(p+".weight", D), f16(p+".bias", D)}
	}
	attn := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{
			f16(p+"k_proj.weight", D, D),
			f16(p+"v_proj.weight", D, D), f16(p+"v_proj.bias", D),
			f16(p+"q_proj.weight", D, D), f16(p+"q_proj.bias", D),
			f16(p+"out_proj.weight", D, D), f16(p+"out_proj.bias", D),
		}
	}
	mlp := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{f16(p+"fc1.weight", F, D), f16(p+"fc1.bias", F), f16(p+"fc2.weight", D, F), f16(p+"fc2.bias", D)}
	}
	e := "model.encoder."
	ts := []safetensors.Tensor{
		f16(e+"conv1.weight", D, M, 3), f16(e+"conv1.bias", D),
		f16(e+"conv2.weight", D, D, 3), f16(e+"conv2.bias", D),
		f16(e+"embed_positions.weight", S, D),
	}
	for l := range L {
		p := fmt.Sprintf("%slayers.%d.", e, l)
		ts = append(ts, attn(p+"self_attn.")...)
		ts = append(ts, ln(p+"self_attn_layer_norm")...)
		ts = append(ts, mlp(p)...)
		ts = append(ts, ln(p+"final_layer_norm")...)
	}
	ts = append(ts, ln(e+"layer_norm")...)
	d := "model.decoder."
	ts = append(ts, f16(d+"embed_tokens.weight", V, D), f16(d+"embed_positions.weight", T, D))
	for l := range L {
		p := fmt.Sprintf("%slayers.%d.", d, l)
		ts = append(ts, attn(p+"self_attn.")...)
		ts = append(ts, ln(p+"self_attn_layer_norm")...)
		ts = append(ts, attn(p+"encoder_attn.")...)
		ts = append(ts, ln(p+"encoder_attn_layer_norm")...)
		ts = append(ts, mlp(p)...)
		ts = append(ts, ln(p+"final_layer_norm")...)
	}
	ts = append(ts, ln(d+"layer_norm")...)
	return corpusConfig("openai__whisper-large-v3"), ts
}

// whisperLoaded maps a Whisper checkpoint tensor to the parameter vLLM
// loads it into (whisper.py WhisperForConditionalGeneration's
// hf_to_vllm_mapper and stacked_params_mapping at d18bb7b): a
// self-attention's q, k and v into qkv_proj, a cross-attention's k and v
// into kv_proj, fc1 and fc2 under mlp.
func whisperLoaded(x safetensors.Tensor) (string, uint64, bool) {
	name := x.Name
	for _, n := range []string{".fc1.", ".fc2."} {
		name = strings.Replace(name, n, ".mlp"+n, 1)
	}
	for _, qkv := range []string{".self_attn.q_proj.", ".self_attn.k_proj.", ".self_attn.v_proj."} {
		name = strings.Replace(name, qkv, ".self_attn.qkv_proj.", 1)
	}
	for _, kv := range []string{".encoder_attn.k_proj.", ".encoder_attn.v_proj."} {
		name = strings.Replace(name, kv, ".encoder_attn.kv_proj.", 1)
	}
	return name, headerBytes(x), true
}

// TestWhisperLargeV3Header: the checkpoint's 1,259 tensors (the encoder's
// 2 convolutions of 2, its position table, 32 layers of 15 and final norm
// of 2; the decoder's 2 tables, 32 layers of 24 and final norm of 2: 487 +
// 772) hold 1,543,490,560 float16 parameters, the Hub's safetensors total
// for openai/whisper-large-v3 (a stored table of Hub API answers, index
// file id 71142266638; the same count in a stored decision record's Hub
// check of openai/whisper-large-v3 at revision 06f233fe, id 69559635743,
// and a stored VRAM checker's safetensors.total table, id 69457224706):
// 3,086,981,120 B. By hand: an encoder layer's
// q, k, v and out 4 x 1280^2 with 3 biases of 1280, fc1 and fc2 2 x 5120 x
// 1280 + 5120 + 1280, two norms 4 x 1280: 19,676,160, x 32 = 629,637,120;
// conv1 1280 x 128 x 3 + 1280 = 492,800, conv2 1280^2 x 3 + 1280 =
// 4,916,480, 1500 x 1280 positions, the final norm 2560: 636,968,960. A
// decoder layer adds the cross-attention 4 x 1280^2 + 3 x 1280 and a third
// norm: 26,236,160, x 32 = 839,557,120; the 51,866 x 1280 embedding, 448 x
// 1280 positions, the final norm: 906,521,600. As vLLM loads it the
// checkpoint is the family's weights from config parameter by parameter,
// beside the zero bias vLLM makes for every k_proj it stacks (1280 x 2 B
// in each of the 64 self-attentions' qkv_proj and the 32
// cross-attentions' kv_proj; whisper.py _create_fake_bias_for_k_proj).
func TestWhisperLargeV3Header(t *testing.T) {
	_, ts := whisperLargeV3Header()
	checkHeaderNames(t, ts, 1259)
	enc := uint64(32*19_676_160 + 492_800 + 4_916_480 + 1500*1280 + 2560)
	dec := uint64(32*26_236_160 + 51866*1280 + 448*1280 + 2560)
	if got, want := headerTotal(ts), 2*(enc+dec); got != want || enc+dec != 1_543_490_560 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub's count is 1,543,490,560 float16 parameters", got, want, enc+dec)
	}
	buffers := map[string]uint64{}
	for l := range 32 {
		buffers[fmt.Sprintf("model.encoder.layers.%d.self_attn.qkv_proj.bias", l)] = 1280 * 2
		buffers[fmt.Sprintf("model.decoder.layers.%d.self_attn.qkv_proj.bias", l)] = 1280 * 2
		buffers[fmt.Sprintf("model.decoder.layers.%d.encoder_attn.kv_proj.bias", l)] = 1280 * 2
	}
	checkLoadedHeader(t, whisperLargeV3Header, whisperLoaded, buffers)
	a := checkConfigOnlyHeader(t, whisperLargeV3Header)
	if got, want := sum(Weights(a, Whole(a, 1, 2, a.Quant))), uint64(3_086_981_120+96*1280*2); got != want {
		t.Errorf("TP1: weights from config %d B, by hand %d", got, want)
	}
}

// mamba28BHeader is state-spaces/mamba-2.8b-hf's checkpoint in
// transformers' Mamba names (modeling_mamba.py: backbone.embeddings,
// backbone.layers.N.norm and mixer.{in_proj, conv1d, x_proj, dt_proj,
// A_log, D, out_proj}, backbone.norm_f; the head tied, so not stored), with
// shapes from the corpus config: 64 layers of 2560, 5120 channels, state
// 16, conv 4 with its bias, time_step_rank 160, no in_proj or out_proj
// bias, 50,280 tokens, float32 as its torch_dtype says.
func mamba28BHeader() (string, []safetensors.Tensor) {
	const H, I, N, K, R, V = 2560, 5120, 16, 4, 160, 50280
	ts := []safetensors.Tensor{bf16("backbone.embeddings.weight", V, H), bf16("backbone.norm_f.weight", H)}
	for l := range 64 {
		p := fmt.Sprintf("backbone.layers.%d.", l)
		ts = append(ts, bf16(p+"norm.weight", H),
			bf16(p+"mixer.A_log", I, N), bf16(p+"mixer.D", I),
			bf16(p+"mixer.conv1d.weight", I, 1, K), bf16(p+"mixer.conv1d.bias", I),
			bf16(p+"mixer.in_proj.weight", 2*I, H), bf16(p+"mixer.x_proj.weight", R+2*N, I),
			bf16(p+"mixer.dt_proj.weight", I, R), bf16(p+"mixer.dt_proj.bias", I),
			bf16(p+"mixer.out_proj.weight", H, I))
	}
	return corpusConfig("state-spaces__mamba-2.8b-hf"), asF32(ts)
}

// TestMamba28BHeader: the checkpoint's 642 tensors (64 layers of 10, the
// embeddings and norm_f) hold 2,768,345,600 float32 parameters: the count
// a stored script gives for mamba-2_8b-hf beside the other -hf sizes
// (index file id 49071488734) and a stored run prints loading
// state-spaces/mamba-2.8b ("Number of parameters: 2768345600", id
// 26211555743), 11,073,382,400 B, which the Hub's file listing of the
// model's three shards (4.97, 4.95 and 1.15 GB, docs corpus
// huggingface.co/state-spaces/mamba-2.8b-hf/tree/2f0a5455c2) agrees with.
// By hand: a layer's in_proj 10,240 x 2560 = 26,214,400, conv1d 5120 x 4
// and its bias 5120, x_proj 192 x 5120 = 983,040, dt_proj 5120 x 160 =
// 819,200 and its bias 5120, A_log 5120 x 16 = 81,920, D 5120, out_proj
// 2560 x 5120 = 13,107,200, the norm 2560: 41,244,160, x 64 =
// 2,639,626,240; the embeddings 50,280 x 2560 = 128,716,800 and norm_f
// 2560. vLLM serves the float32 checkpoint in bfloat16 (dtype auto) but
// keeps A in float32 (mamba.py), and pads the embedding to 50,304 rows (a
// multiple of 64): at one rank 2,763,164,160 bf16 and 5,242,880 float32
// elements (TestMambaWeightsByHand); the checkpoint and the config agree
// rank by rank.
func TestMamba28BHeader(t *testing.T) {
	_, ts := mamba28BHeader()
	checkHeaderNames(t, ts, 642)
	params := uint64(64*41_244_160 + 128_716_800 + 2560)
	if got := headerTotal(ts); got != 4*params || params != 2_768_345_600 {
		t.Errorf("header total %d B, by hand %d float32 parameters, the published count is 2,768,345,600", got, params)
	}
	checkByHand(t, []byHandCase{{
		name: "mamba-2.8b-hf", fixture: mamba28BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2_763_164_160*2 + 5_242_880*4, ""}},
	}})
	checkHeaderRanks(t, mamba28BHeader)
}

// mambaCodestralHeader is mistralai/Mamba-Codestral-7B-v0.1's checkpoint in
// transformers' Mamba2 names (modeling_mamba2.py: backbone.embeddings,
// backbone.layers.N.norm and mixer.{in_proj, conv1d, A_log, D, dt_bias,
// norm, out_proj}, backbone.norm_f, lm_head), the names a stored importer
// pinned to the checkpoint classifies (index file id 60928701896), with
// shapes from the corpus config: 64 layers of 4096, 128 heads of 64 in 8
// groups, state 128, conv 4 with its bias, no in_proj or out_proj bias,
// 32,768 tokens, the head untied, bf16.
func mambaCodestralHeader() (string, []safetensors.Tensor) {
	const H, I, NH, G, N, K, V = 4096, 8192, 128, 8, 128, 4, 32768
	conv := uint64(I + 2*G*N)
	ts := []safetensors.Tensor{bf16("backbone.embeddings.weight", V, H), bf16("backbone.norm_f.weight", H), bf16("lm_head.weight", V, H)}
	for l := range 64 {
		p := fmt.Sprintf("backbone.layers.%d.", l)
		ts = append(ts, bf16(p+"norm.weight", H),
			bf16(p+"mixer.in_proj.weight", 2*I+2*G*N+NH, H),
			bf16(p+"mixer.conv1d.weight", conv, 1, K), bf16(p+"mixer.conv1d.bias", conv),
			bf16(p+"mixer.A_log", NH), bf16(p+"mixer.D", NH), bf16(p+"mixer.dt_bias", NH),
			bf16(p+"mixer.norm.weight", I), bf16(p+"mixer.out_proj.weight", H, I))
	}
	return corpusConfig("mistralai__Mamba-Codestral-7B-v0.1"), ts
}

// TestMambaCodestralHeader: the checkpoint's 579 bf16 tensors (64 layers of
// 9, the embeddings, norm_f and the head) sum to 14,570,807,296 B, the
// payload_bytes a stored importer pins for the artifact it builds from the
// model's pinned checkpoint (index file id 68827535932: its catalog's
// payload_bytes 14570807296ull beside file_bytes 14,574,491,136, and
// MAMBA_TENSOR_COUNT 579 tensors each copied as it is, a "source-faithful"
// direct recipe that takes BF16 only; its classifier, id 60928701896,
// wants every tensor BF16 with data bytes of 2 an element): 7,285,403,648
// parameters.
// By hand: a layer's in_proj 4096 x (2 x 8192 + 2 x 8 x 128 + 128) =
// 76,021,760, conv1d (8192 + 2048) x 4 = 40,960 and its bias 10,240,
// A_log, D and dt_bias 3 x 128, the gated norm 8192, out_proj 4096 x 8192
// = 33,554,432, the layer's norm 4096: 109,640,064, x 64 =
// 7,016,964,096; the embeddings and the untied head 2 x 32,768 x 4096 =
// 268,435,456 and norm_f 4096. vLLM keeps A in float32 (mamba2.py); 32,768
// rows are a multiple of 64, so nothing is padded: at one rank the
// checkpoint less A's 64 x 128 bf16 elements plus them in float32. The
// checkpoint and the config agree rank by rank (Mamba2ForCausalLM has no
// pipeline stages: vLLM refuses PP for it, so the PP2 check sizes stages
// vLLM would not build, and they still agree).
func TestMambaCodestralHeader(t *testing.T) {
	_, ts := mambaCodestralHeader()
	checkHeaderNames(t, ts, 579)
	params := uint64(64*109_640_064 + 268_435_456 + 4096)
	if got := headerTotal(ts); got != 2*params || 2*params != 14_570_807_296 {
		t.Errorf("header total %d B, by hand %d bf16 parameters, the pinned payload is 14,570,807,296 B", got, params)
	}
	checkByHand(t, []byHandCase{{
		name: "Mamba-Codestral-7B-v0.1", fixture: mambaCodestralHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 14_570_807_296 + 64*128*(4-2), ""}},
	}})
	checkHeaderRanks(t, mambaCodestralHeader)
}

// bgeBaseHeader is BAAI/bge-base-en-v1.5's model.safetensors: a BertModel
// saved by transformers 4.30 in its bare names (modeling_bert.py:
// embeddings.*, encoder.layer.N.attention.self.{query, key, value},
// attention.output.{dense, LayerNorm}, intermediate.dense,
// output.{dense, LayerNorm}, pooler.dense) with the persistent
// position_ids buffer transformers registered then (int64 [1, 512]; a
// stored log of today's transformers loading this very checkpoint,
// "BertModel LOAD REPORT from: BAAI/bge-base-en-v1.5", loads 199/199
// weights and names "embeddings.position_ids | UNEXPECTED": 200 tensors,
// index file id 60419829686), shapes from the corpus config: 12 layers of 768,
// FFN 3072, 30,522 tokens, 512 positions, 2 token types, float32.
func bgeBaseHeader() (string, []safetensors.Tensor) {
	const H, F, V, P, T = 768, 3072, 30522, 512, 2
	f32 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F32", name, shape...) }
	linear := func(p string, out, in uint64) []safetensors.Tensor {
		return []safetensors.Tensor{f32(p+".weight", out, in), f32(p+".bias", out)}
	}
	ln := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{f32(p+".weight", H), f32(p+".bias", H)}
	}
	ts := []safetensors.Tensor{
		f32("embeddings.word_embeddings.weight", V, H), f32("embeddings.position_embeddings.weight", P, H),
		f32("embeddings.token_type_embeddings.weight", T, H), typed("I64", "embeddings.position_ids", 1, P),
	}
	ts = append(ts, ln("embeddings.LayerNorm")...)
	for l := range 12 {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, n := range []string{"query", "key", "value"} {
			ts = append(ts, linear(p+"attention.self."+n, H, H)...)
		}
		ts = append(ts, linear(p+"attention.output.dense", H, H)...)
		ts = append(ts, ln(p+"attention.output.LayerNorm")...)
		ts = append(ts, linear(p+"intermediate.dense", F, H)...)
		ts = append(ts, linear(p+"output.dense", H, F)...)
		ts = append(ts, ln(p+"output.LayerNorm")...)
	}
	ts = append(ts, linear("pooler.dense", H, H)...)
	return corpusConfig("BAAI__bge-base-en-v1.5"), ts
}

// bertLoaded maps a BERT checkpoint tensor to the parameter vLLM's bert.py
// (jsboige/vllm ffd91ee, BertModel) loads it into: query, key and value
// stacked into qkv_proj (hf_to_vllm_mapper), the pooler skipped
// (AutoWeightsLoader skip_prefixes "pooler."), position_ids into the
// persistent buffer of the same name (AutoWeightsLoader loads registered
// buffers, utils.py _add_loadable_non_param_tensors). Floating tensors
// take 2 B an element, the width the sizing serves them in; the int64
// position_ids keep 8.
func bertLoaded(x safetensors.Tensor) (string, uint64, bool) {
	if strings.HasPrefix(x.Name, "pooler.") {
		return "", 0, false
	}
	n := uint64(1)
	for _, d := range x.Shape {
		n *= d
	}
	if x.Dtype == "I64" {
		return x.Name, 8 * n, true
	}
	name := x.Name
	for _, qkv := range []string{".self.query.", ".self.key.", ".self.value."} {
		name = strings.Replace(name, qkv, ".self.qkv_proj.", 1)
	}
	return name, 2 * n, true
}

// TestBgeBaseHeader: the checkpoint's 200 tensors (3 tables, position_ids
// and the LayerNorm's 2; 12 layers of 16; the pooler's 2) hold 109,482,752
// elements, the Hub's safetensors total for BAAI/bge-base-en-v1.5 (a
// stored table of Hub API answers, index file id 71142266638): 437,933,056
// B. By hand: the tables (30,522 + 512 + 2) x 768 = 23,835,648 and their
// LayerNorm 1536; a layer's q, k, v and output 4 x (768^2 + 768) =
// 2,362,368, the FFN 2 x 3072 x 768 + 3072 + 768 = 4,722,432, two
// LayerNorms 3072: 7,087,872, x 12 = 85,054,464; the pooler 768^2 + 768 =
// 590,592: 109,482,240 float32 parameters (the model card's 109M) and the
// 512 int64 position_ids. As vLLM loads it the checkpoint less the pooler
// is the family's weights from config parameter by parameter, beside the
// rows VocabParallelEmbedding pads the tables to (a multiple of 64: 6 of
// the vocabulary's, 62 of the token types'; 68 x 768 x 2 B) — at one rank
// 108,891,648 x 2 + 68 x 768 x 2 + 512 x 8 B.
func TestBgeBaseHeader(t *testing.T) {
	_, ts := bgeBaseHeader()
	checkHeaderNames(t, ts, 200)
	params := uint64(23_835_648 + 1536 + 12*7_087_872 + 590_592)
	if got := headerTotal(ts); got != 4*params+512*8 || params+512 != 109_482_752 {
		t.Errorf("header total %d B, by hand %d float32 parameters and 512 int64, the Hub's count is 109,482,752", got, params)
	}
	checkLoadedHeader(t, bgeBaseHeader, bertLoaded, map[string]uint64{
		"embeddings.word_embeddings.weight":       6 * 768 * 2,
		"embeddings.token_type_embeddings.weight": 62 * 768 * 2,
	})
	a := checkConfigOnlyHeader(t, bgeBaseHeader)
	if got, want := sum(Weights(a, Whole(a, 1, 2, a.Quant))), uint64((params-590_592)*2+68*768*2+512*8); got != want {
		t.Errorf("TP1: weights from config %d B, by hand %d", got, want)
	}
}

// bgeRerankerHeader is BAAI/bge-reranker-v2-m3's model.safetensors: an
// XLMRobertaForSequenceClassification saved in transformers' names
// (modeling_xlm_roberta.py: roberta.embeddings.*, roberta.encoder.layer.N.*
// as BERT's, no pooler (add_pooling_layer=False), the
// classifier.{dense, out_proj} head; position_ids not persistent, so not
// stored), shapes from the corpus config: 24 layers of 1024, FFN 4096,
// 250,002 tokens, 8194 positions, 1 token type, 1 label, float32.
func bgeRerankerHeader() (string, []safetensors.Tensor) {
	const H, F, V, P, T, L = 1024, 4096, 250002, 8194, 1, 1
	f32 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F32", name, shape...) }
	linear := func(p string, out, in uint64) []safetensors.Tensor {
		return []safetensors.Tensor{f32(p+".weight", out, in), f32(p+".bias", out)}
	}
	ln := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{f32(p+".weight", H), f32(p+".bias", H)}
	}
	r := "roberta."
	ts := []safetensors.Tensor{
		f32(r+"embeddings.word_embeddings.weight", V, H), f32(r+"embeddings.position_embeddings.weight", P, H),
		f32(r+"embeddings.token_type_embeddings.weight", T, H),
	}
	ts = append(ts, ln(r+"embeddings.LayerNorm")...)
	for l := range 24 {
		p := fmt.Sprintf("%sencoder.layer.%d.", r, l)
		for _, n := range []string{"query", "key", "value"} {
			ts = append(ts, linear(p+"attention.self."+n, H, H)...)
		}
		ts = append(ts, linear(p+"attention.output.dense", H, H)...)
		ts = append(ts, ln(p+"attention.output.LayerNorm")...)
		ts = append(ts, linear(p+"intermediate.dense", F, H)...)
		ts = append(ts, linear(p+"output.dense", H, F)...)
		ts = append(ts, ln(p+"output.LayerNorm")...)
	}
	ts = append(ts, linear("classifier.dense", H, H)...)
	ts = append(ts, linear("classifier.out_proj", L, H)...)
	return corpusConfig("BAAI__bge-reranker-v2-m3"), ts
}

// robertaClassifierLoaded maps an XLM-RoBERTa classifier's tensor to the
// parameter vLLM's roberta.py (jsboige/vllm ffd91ee,
// RobertaForSequenceClassification: the roberta. prefix onto its BERT
// encoder, whose own load_weights stacks query, key and value into
// qkv_proj) loads it into: the
// encoder's floats at 2 B an element, the width the sizing serves them in;
// the classifier's at 4 B, as vLLM builds the head in float32
// (RobertaClassificationHead, model_config.head_dtype).
func robertaClassifierLoaded(x safetensors.Tensor) (string, uint64, bool) {
	n := uint64(1)
	for _, d := range x.Shape {
		n *= d
	}
	if strings.HasPrefix(x.Name, "classifier.") {
		return x.Name, 4 * n, true
	}
	name := strings.TrimPrefix(x.Name, "roberta.")
	for _, qkv := range []string{".self.query.", ".self.key.", ".self.value."} {
		name = strings.Replace(name, qkv, ".self.qkv_proj.", 1)
	}
	return name, 2 * n, true
}

// TestBgeRerankerHeader: the checkpoint's 393 tensors (the 3 tables and
// the LayerNorm's 2, 24 layers of 16, the head's 4) hold 567,755,777
// float32 parameters, the Hub's safetensors total for
// BAAI/bge-reranker-v2-m3 (a stored table of Hub API answers, index file
// id 71142266638): 2,271,023,108 B. The 393 are attested too: a stored
// reranker benchmark that asserts parameter_count 567755777 finds its
// parameters on the device as {"cuda:0": 393} (index file id
// 70336913444), and the Hub's total, holding no int64, says position_ids
// is not stored. By hand: the tables (250,002 + 8194 +
// 1) x 1024 = 264,393,728 and their LayerNorm 2048; a layer's q, k, v and
// output 4 x (1024^2 + 1024) = 4,198,400, the FFN 2 x 4096 x 1024 + 4096
// + 1024 = 8,393,728, two LayerNorms 4096: 12,596,224, x 24 =
// 302,309,376; the head's dense 1024^2 + 1024 and out_proj 1024 + 1:
// 1,050,625. As vLLM loads it the checkpoint is the family's weights from
// config parameter by parameter (TestBgeRerankerWeightsByHand sums them),
// beside what no checkpoint holds: the rows VocabParallelEmbedding pads
// the tables to (a multiple of 64: 46 of the vocabulary's, 62 of the
// positions', 63 of the token type's, x 1024 x 2 B) and the int64
// position_ids buffer of 8194 (roberta.py RobertaEmbedding).
func TestBgeRerankerHeader(t *testing.T) {
	_, ts := bgeRerankerHeader()
	checkHeaderNames(t, ts, 393)
	params := uint64(264_393_728 + 2048 + 24*12_596_224 + 1_050_625)
	if got := headerTotal(ts); got != 4*params || params != 567_755_777 {
		t.Errorf("header total %d B, by hand %d float32 parameters, the Hub's count is 567,755,777", got, params)
	}
	checkLoadedHeader(t, bgeRerankerHeader, robertaClassifierLoaded, map[string]uint64{
		"embeddings.word_embeddings.weight":       46 * 1024 * 2,
		"embeddings.position_embeddings.weight":   62 * 1024 * 2,
		"embeddings.token_type_embeddings.weight": 63 * 1024 * 2,
		"embeddings.position_ids":                 8194 * 8,
	})
}

// graniteMicroHeader is ibm-granite/granite-4.0-micro's checkpoint: a
// GraniteMoeHybridForCausalLM whose 40 layers are all attention, in
// transformers' GraniteMoeHybrid names (modeling_granitemoehybrid.py:
// self_attn.{q,k,v,o}_proj, the shared MLP's fused shared_mlp.input_linear
// (gate and up) and output_linear, input_layernorm and
// post_attention_layernorm; no experts, no Mamba mixer; the head tied, so
// not stored), with shapes from the corpus config: 2560 wide, 40 heads and
// 8 KV heads of 64, shared MLP 8192, 100,352 tokens, bf16.
func graniteMicroHeader() (string, []safetensors.Tensor) {
	const H, Q, KV, I, V = 2560, 2560, 512, 8192, 100352
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H)}
	for l := range 40 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", Q, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, Q),
			bf16(p+"shared_mlp.input_linear.weight", 2*I, H), bf16(p+"shared_mlp.output_linear.weight", H, I))
	}
	return corpusConfig("ibm-granite__granite-4.0-micro"), ts
}

// TestGraniteMicroHeader: the checkpoint's 322 tensors (40 layers of 8, the
// embedding and the final norm) hold 3,402,836,480 bf16 parameters, the
// Hub's safetensors total for ibm-granite/granite-4.0-micro (stored tables
// of Hub API answers, index file ids 71142266638 and 61762937035, the
// latter with config.architectures GraniteMoeHybridForCausalLM; a stored
// model registry pinning revision 56111ae135 with the same count, id
// 68688959620): 6,805,672,960 B. By hand: a layer's q and o 2 x 2560^2, k
// and v 2 x 512 x 2560, the shared MLP's input_linear 16,384 x 2560 and
// output_linear 2560 x 8192, two norms 2 x 2560: 78,648,320, x 40 =
// 3,145,932,800; the tied embedding 100,352 x 2560 = 256,901,120 (a
// multiple of 64: not padded) and the final norm 2560. Read by
// granitemoehybrid's rules they are what the config gives at one rank,
// beside the rotary table of 131,072 positions x 64 x 2 B (rope, not the
// H models' nope); the checkpoint and the config agree rank by rank.
func TestGraniteMicroHeader(t *testing.T) {
	_, ts := graniteMicroHeader()
	checkHeaderNames(t, ts, 322)
	params := uint64(40*78_648_320 + 256_901_120 + 2560)
	if got := headerTotal(ts); got != 2*params || params != 3_402_836_480 {
		t.Errorf("header total %d B, by hand %d bf16 parameters, the Hub's count is 3,402,836,480", got, params)
	}
	checkByHand(t, []byHandCase{{
		name: "granite-4.0-micro", fixture: graniteMicroHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*3_402_836_480 + 131072*64*2, ""}},
	}})
	checkHeaderRanks(t, graniteMicroHeader)
}

// jambaV01Header is ai21labs/Jamba-v0.1's checkpoint in transformers'
// Jamba names (modeling_jamba.py: per layer input_layernorm and
// pre_ff_layernorm; self_attn.{q,k,v,o}_proj on the attention layers,
// every 8th from layer 4; elsewhere the Mamba mixer mamba.{in_proj,
// conv1d, x_proj, dt_proj, A_log, D, out_proj} with its dt, B and C
// layernorms; feed_forward.{gate,up,down}_proj on even layers,
// feed_forward.router and 16 experts on odd ones; model.embed_tokens,
// model.final_layernorm, the untied lm_head): the embedding,
// input_layernorm, Mamba and dense MLP names as a stored copy of a Jamba
// index lists them (docs corpus,
// huggingface.co/neeleshg23/jamba-8-experts/blob/main/model.safetensors.index.json),
// pre_ff_layernorm, the router and experts as modeling_jamba.py names
// them, with shapes from the corpus config: 32 layers of 4096, 32 heads and 8 KV
// heads of 128, Mamba expand 2 (8192 channels), state 16, conv 4 with its
// bias, dt rank 256, experts of 14,336, 65,536 tokens, bf16.
func jambaV01Header() (string, []safetensors.Tensor) {
	const H, KV, I, E, M, N, R, V = 4096, 1024, 14336, 16, 8192, 16, 256, 65536
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.final_layernorm.weight", H), bf16("lm_head.weight", V, H)}
	mlp := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{bf16(p+"gate_proj.weight", I, H), bf16(p+"up_proj.weight", I, H), bf16(p+"down_proj.weight", H, I)}
	}
	for l := range 32 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, bf16(p+"input_layernorm.weight", H), bf16(p+"pre_ff_layernorm.weight", H))
		if l%8 == 4 {
			ts = append(ts, bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", KV, H),
				bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, H))
		} else {
			m := p + "mamba."
			ts = append(ts, bf16(m+"in_proj.weight", 2*M, H),
				bf16(m+"conv1d.weight", M, 1, 4), bf16(m+"conv1d.bias", M),
				bf16(m+"x_proj.weight", R+2*N, M), bf16(m+"dt_proj.weight", M, R), bf16(m+"dt_proj.bias", M),
				bf16(m+"A_log", M, N), bf16(m+"D", M), bf16(m+"out_proj.weight", H, M),
				bf16(m+"dt_layernorm.weight", R), bf16(m+"b_layernorm.weight", N), bf16(m+"c_layernorm.weight", N))
		}
		if l%2 == 0 {
			ts = append(ts, mlp(p+"feed_forward.")...)
			continue
		}
		ts = append(ts, bf16(p+"feed_forward.router.weight", E, H))
		for e := range E {
			ts = append(ts, mlp(fmt.Sprintf("%sfeed_forward.experts.%d.", p, e))...)
		}
	}
	return corpusConfig("ai21labs__Jamba-v0.1"), ts
}

// TestJambaV01Header: the checkpoint's 1,251 tensors (28 Mamba mixers of
// 12, 4 attentions of 4, 16 dense MLPs of 3, 16 MoE blocks of 49, 2 norms
// a layer, 3 outside them) sum to 103,140,646,656 B, the total_size of a
// Jamba-v0.1-shaped checkpoint's model.safetensors.index.json as a stored
// model report quotes it beside its config (32 layers, attention every 8
// from 4, 16 experts top-2 on odd layers, 4096/14,336, 65,536 tokens,
// 262,144 positions, bfloat16; index file id 54365071727). The report
// does not name that checkpoint, and its transformers 4.40.2 and chat,
// tool and document tokens make it an instruct model of Jamba-v0.1's
// architecture, not the base model; it gives no Mamba dimensions, so those
// are the corpus config's, tied to the figure by the sum to the byte. The
// base model's own published count is rounded: 51.57 B in its Open LLM
// Leaderboard requests at revision ce13f3fe. 51,570,323,328 parameters.
// By hand: a Mamba layer's in_proj 16,384 x 4096 =
// 67,108,864, conv1d 8192 x 4 and its bias 8192, x_proj 288 x 8192 =
// 2,359,296, dt_proj 8192 x 256 = 2,097,152 and its bias 8192, A_log 8192
// x 16 = 131,072, D 8192, out_proj 33,554,432, the dt, B and C norms 256
// + 16 + 16: 105,308,448, x 28 = 2,948,636,544; an attention 2 x 4096^2 +
// 2 x 1024 x 4096 = 41,943,040, x 4 = 167,772,160; a dense MLP 3 x 14,336 x
// 4096 = 176,160,768, x 16 = 2,818,572,288; a MoE block the router 16 x
// 4096 and 16 such experts: 2,818,637,824, x 16 = 45,098,205,184; two
// norms a layer 32 x 8192 = 262,144; the embedding and the untied head 2 x
// 65,536 x 4096 = 536,870,912 and the final norm 4096. Read by jamba's
// rules they are what the config gives at one rank, beside A in float32
// (jamba.py: 28 x 8192 x 16 more bytes than the bf16 A_log; 65,536 rows
// need no padding, and Jamba has no rotary table); the checkpoint and the
// config agree rank by rank, and with the experts split over 8 ranks.
func TestJambaV01Header(t *testing.T) {
	_, ts := jambaV01Header()
	checkHeaderNames(t, ts, 1251)
	params := uint64(28*105_308_448 + 4*41_943_040 + 16*176_160_768 + 16*2_818_637_824 + 32*8192 + 536_870_912 + 4096)
	if got := headerTotal(ts); got != 2*params || 2*params != 103_140_646_656 {
		t.Errorf("header total %d B, by hand %d bf16 parameters, the index's total_size is 103,140,646,656", got, params)
	}
	checkByHand(t, []byHandCase{{
		name: "Jamba-v0.1", fixture: jambaV01Header,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 103_140_646_656 + 28*8192*16*2, ""}},
	}})
	checkHeaderRanks(t, jambaV01Header)
	a, _ := attach(t, jambaV01Header)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// robertaBaseHeader is FacebookAI/roberta-base's model.safetensors: a
// RobertaForMaskedLM in transformers' names (modeling_roberta.py:
// roberta.embeddings.* with the persistent int64 position_ids,
// roberta.encoder.layer.N.* as BERT's, no pooler; lm_head.dense,
// lm_head.layer_norm and lm_head.bias, the decoder tied to the word
// embeddings and not stored), shapes from the corpus config: 12 layers of
// 768, FFN 3072, 50,265 tokens, 514 positions, 1 token type, float32.
func robertaBaseHeader() (string, []safetensors.Tensor) {
	const H, F, V, P, T = 768, 3072, 50265, 514, 1
	f32 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F32", name, shape...) }
	linear := func(p string, out, in uint64) []safetensors.Tensor {
		return []safetensors.Tensor{f32(p+".weight", out, in), f32(p+".bias", out)}
	}
	ln := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{f32(p+".weight", H), f32(p+".bias", H)}
	}
	r := "roberta."
	ts := []safetensors.Tensor{
		f32(r+"embeddings.word_embeddings.weight", V, H), f32(r+"embeddings.position_embeddings.weight", P, H),
		f32(r+"embeddings.token_type_embeddings.weight", T, H), typed("I64", r+"embeddings.position_ids", 1, P),
	}
	ts = append(ts, ln(r+"embeddings.LayerNorm")...)
	for l := range 12 {
		p := fmt.Sprintf("%sencoder.layer.%d.", r, l)
		for _, n := range []string{"query", "key", "value"} {
			ts = append(ts, linear(p+"attention.self."+n, H, H)...)
		}
		ts = append(ts, linear(p+"attention.output.dense", H, H)...)
		ts = append(ts, ln(p+"attention.output.LayerNorm")...)
		ts = append(ts, linear(p+"intermediate.dense", F, H)...)
		ts = append(ts, linear(p+"output.dense", H, F)...)
		ts = append(ts, ln(p+"output.LayerNorm")...)
	}
	ts = append(ts, linear("lm_head.dense", H, H)...)
	ts = append(ts, ln("lm_head.layer_norm")...)
	ts = append(ts, f32("lm_head.bias", V))
	return corpusConfig("FacebookAI__roberta-base"), ts
}

// robertaMLMLoaded maps a RoBERTa masked-LM checkpoint tensor to what
// vLLM's roberta.py (jsboige/vllm ffd91ee, RobertaEmbeddingModel) loads
// it into: the lm_head skipped (AutoWeightsLoader skip_prefixes
// "lm_head."), the roberta. prefix onto its BERT encoder, whose
// load_weights stacks query, key and value, as bertLoaded maps them.
func robertaMLMLoaded(x safetensors.Tensor) (string, uint64, bool) {
	if strings.HasPrefix(x.Name, "lm_head.") {
		return "", 0, false
	}
	x.Name = strings.TrimPrefix(x.Name, "roberta.")
	return bertLoaded(x)
}

// TestRobertaBaseHeader: the checkpoint's 203 tensors (3 tables,
// position_ids and the LayerNorm's 2; 12 layers of 16; the MLM head's 5)
// hold 124,697,433 float32 and 514 int64 elements, what huggingface.js's
// own test reads from roberta-base's safetensors header
// (computeNumOfParamsByDtype: { F32: 124697433, I64: 514 }; index file id
// 6746602004; the same figures in its README's table, id 59317385783):
// 498,793,844 B. By hand: the tables (50,265 + 514 + 1) x 768 =
// 38,999,040 and their LayerNorm 1536; 12 layers of 7,087,872 (BERT's:
// q, k, v and output 4 x (768^2 + 768), the FFN 2 x 3072 x 768 + 3072 +
// 768, two LayerNorms) = 85,054,464; the head's dense 768^2 + 768, its
// layer_norm 1536 and its bias 50,265: 642,393. vLLM serves it as
// RobertaEmbeddingModel and skips the MLM head: what it loads is the
// family's weights from config parameter by parameter, beside the rows
// VocabParallelEmbedding pads the tables to (39 of the vocabulary's, 62
// of the positions', 63 of the token type's, x 768 x 2 B).
func TestRobertaBaseHeader(t *testing.T) {
	_, ts := robertaBaseHeader()
	checkHeaderNames(t, ts, 203)
	params := uint64(38_999_040 + 1536 + 12*7_087_872 + 642_393)
	if got := headerTotal(ts); got != 4*params+514*8 || params != 124_697_433 {
		t.Errorf("header total %d B, by hand %d float32 parameters and 514 int64, the header holds 124,697,433 and 514", got, params)
	}
	checkLoadedHeader(t, robertaBaseHeader, robertaMLMLoaded, map[string]uint64{
		"embeddings.word_embeddings.weight":       39 * 768 * 2,
		"embeddings.position_embeddings.weight":   62 * 768 * 2,
		"embeddings.token_type_embeddings.weight": 63 * 768 * 2,
	})
}

// nomicEmbedHeader is nomic-ai/nomic-embed-text-v1.5's model.safetensors
// in its remote code's names (modeling_hf_nomic_bert.py, as vLLM's
// bert_with_rope.py NomicBertModel.hf_to_vllm_mapper reads them:
// embeddings.word_embeddings and token_type_embeddings, emb_ln;
// encoder.layers.N.attn.Wqkv and attn.out_proj, mlp.fc11, fc12 and fc2,
// norm1 and norm2; no biases but the LayerNorms', no position table: the
// positions are rotary), shapes from the corpus config: 12 layers of 768,
// 12 heads of 64, SwiGLU of 3072, 30,528 tokens, 2 token types, float32.
func nomicEmbedHeader() (string, []safetensors.Tensor) {
	const H, F, V, T = 768, 3072, 30528, 2
	f32 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F32", name, shape...) }
	ts := []safetensors.Tensor{
		f32("embeddings.word_embeddings.weight", V, H), f32("embeddings.token_type_embeddings.weight", T, H),
		f32("emb_ln.weight", H), f32("emb_ln.bias", H),
	}
	for l := range 12 {
		p := fmt.Sprintf("encoder.layers.%d.", l)
		ts = append(ts, f32(p+"attn.Wqkv.weight", 3*H, H), f32(p+"attn.out_proj.weight", H, H),
			f32(p+"mlp.fc11.weight", F, H), f32(p+"mlp.fc12.weight", F, H), f32(p+"mlp.fc2.weight", H, F),
			f32(p+"norm1.weight", H), f32(p+"norm1.bias", H), f32(p+"norm2.weight", H), f32(p+"norm2.bias", H))
	}
	// The config is kept in model/testdata, not corpus/models: SGLang
	// refuses the encoder families, and the SGLang contract suite over the
	// shipped models wants most of them sized (engine/sglang
	// contract_test.go).
	data, err := os.ReadFile("testdata/headers/nomic-ai__nomic-embed-text-v1.5.json")
	if err != nil {
		panic(err)
	}
	return string(data), ts
}

// nomicLoaded maps a Nomic BERT checkpoint tensor to the parameter vLLM's
// bert_with_rope.py (jsboige/vllm ffd91ee) loads it into:
// NomicBertModel.hf_to_vllm_mapper's renames (emb_ln, attn.Wqkv, norm1,
// mlp.fc11 as up_proj and fc12 as gate_proj, fc2, norm2), then
// BertWithRope.load_weights stacks gate and up into gate_up_proj (its
// hidden_act is silu). Floats take 2 B an element, the width the sizing
// serves them in.
func nomicLoaded(x safetensors.Tensor) (string, uint64, bool) {
	n := uint64(1)
	for _, d := range x.Shape {
		n *= d
	}
	name := strings.NewReplacer("emb_ln", "embeddings.LayerNorm", "attn.Wqkv", "attn.qkv_proj", "norm1", "attn_ln",
		"mlp.fc11", "mlp.gate_up_proj", "mlp.fc12", "mlp.gate_up_proj", "mlp.fc2", "mlp.down_proj", "norm2", "mlp_ln").Replace(x.Name)
	return name, 2 * n, true
}

// TestNomicEmbedHeader: the checkpoint's 112 tensors (2 tables and emb_ln's
// 2; 12 layers of 9) hold 136,731,648 float32 parameters, the Hub's
// safetensors total for nomic-ai/nomic-embed-text-v1.5 (a stored table of
// Hub API answers, index file id 71142266638): 546,926,592 B. By hand: the
// tables (30,528 + 2) x 768 = 23,447,040 and emb_ln 1536; a layer's Wqkv
// 2304 x 768 = 1,769,472, out_proj 768^2 = 589,824, fc11, fc12 and fc2 3
// x 3072 x 768 = 7,077,888, norm1 and norm2 3072: 9,440,256, x 12 =
// 113,283,072. As vLLM loads it the checkpoint is the family's weights
// from config parameter by parameter, beside what no checkpoint holds: the
// 62 rows VocabParallelEmbedding pads the 2 token types to (x 768 x 2 B;
// 30,528 is a multiple of 64) and the rotary cos/sin cache of the served
// 8192 positions x 64 x 2 B (TestBertWithRopeWeightsByHand's 274,607,104
// B at one rank).
func TestNomicEmbedHeader(t *testing.T) {
	_, ts := nomicEmbedHeader()
	checkHeaderNames(t, ts, 112)
	params := uint64(23_447_040 + 1536 + 12*9_440_256)
	if got := headerTotal(ts); got != 4*params || params != 136_731_648 {
		t.Errorf("header total %d B, by hand %d float32 parameters, the Hub's count is 136,731,648", got, params)
	}
	a := checkConfigOnlyHeader(t, nomicEmbedHeader)
	rotary := map[string]uint64{"embeddings.token_type_embeddings.weight": 62 * 768 * 2}
	for _, r := range a.Rotary {
		rotary[r.Name+".cos_sin_cache"] = 8192 * 64 * 2
	}
	if len(a.Rotary) != 1 {
		t.Errorf("%d rotary tables, want 1", len(a.Rotary))
	}
	checkLoadedHeader(t, nomicEmbedHeader, nomicLoaded, rotary)
	if got, want := sum(Weights(a, Whole(a, 1, 2, a.Quant))), uint64(2*params+62*768*2+8192*64*2); got != want || want != 274_607_104 {
		t.Errorf("TP1: weights from config %d B, by hand %d", got, want)
	}
}

// modernBertZeroshotHeader is MoritzLaurer/ModernBERT-large-zeroshot-v2.0's
// checkpoint: a ModernBertForSequenceClassification of ModernBERT-large in
// transformers' names (modeling_modernbert.py, as vLLM's modernbert.py
// loads them: model.embeddings.tok_embeddings and norm;
// model.layers.N.attn_norm (none on layer 0, whose is an Identity),
// attn.Wqkv, attn.Wo, mlp_norm, mlp.Wi, mlp.Wo; model.final_norm;
// head.dense and head.norm, no biases (norm_bias, classifier_bias false);
// classifier, biased), shapes from the corpus config: 28 layers of 1024,
// 16 heads of 64, gated MLP of 2624, 50,368 tokens, 2 labels, bf16.
func modernBertZeroshotHeader() (string, []safetensors.Tensor) {
	const H, I, V = 1024, 2624, 50368
	ts := []safetensors.Tensor{bf16("model.embeddings.tok_embeddings.weight", V, H), bf16("model.embeddings.norm.weight", H)}
	for l := range 28 {
		p := fmt.Sprintf("model.layers.%d.", l)
		if l > 0 {
			ts = append(ts, bf16(p+"attn_norm.weight", H))
		}
		ts = append(ts, bf16(p+"attn.Wqkv.weight", 3*H, H), bf16(p+"attn.Wo.weight", H, H), bf16(p+"mlp_norm.weight", H),
			bf16(p+"mlp.Wi.weight", 2*I, H), bf16(p+"mlp.Wo.weight", H, I))
	}
	ts = append(ts, bf16("model.final_norm.weight", H), bf16("head.dense.weight", H, H), bf16("head.norm.weight", H),
		bf16("classifier.weight", 2, H), bf16("classifier.bias", 2))
	return corpusConfig("MoritzLaurer__ModernBERT-large-zeroshot-v2.0"), ts
}

// modernBertClassifierLoaded maps a ModernBERT classifier's tensor to the
// parameter vLLM's modernbert.py (jsboige/vllm ffd91ee,
// ModernBertForSequenceClassification.load_weights) loads it into: model.*
// into its ModernBertModel (hf_to_vllm_mapper: layers. under
// encoder_layer.), head.* into pooling.*, classifier as it is; the
// encoder at 2 B an element, the pooler and classifier at 4, the float32
// head dtype of the pooling runner.
func modernBertClassifierLoaded(x safetensors.Tensor) (string, uint64, bool) {
	n := uint64(1)
	for _, d := range x.Shape {
		n *= d
	}
	switch {
	case strings.HasPrefix(x.Name, "head."):
		return "pooling." + strings.TrimPrefix(x.Name, "head."), 4 * n, true
	case strings.HasPrefix(x.Name, "classifier."):
		return x.Name, 4 * n, true
	}
	name := strings.TrimPrefix(x.Name, "model.")
	if strings.HasPrefix(name, "layers.") {
		name = "encoder_layer." + name
	}
	return name, 2 * n, true
}

// TestModernBertZeroshotHeader: the checkpoint's 174 tensors (the
// embeddings' 2; layer 0's 5 and 27 layers of 6; final_norm; the head's 2
// and the classifier's 2) hold 395,833,346 bf16 parameters, by hand: no
// published count of this checkpoint was found. The backbone is
// ModernBERT-large's, whose masked-LM checkpoint the Hub counts at
// 395,881,664 (a stored model registry pinning answerdotai/ModernBERT-large
// at 45bb4654, index file id 68688959620): 394,781,696 (tok_embeddings
// 50,368 x 1024, its norm, 28 layers of Wqkv 3072 x 1024, Wo 1024^2, Wi
// 5248 x 1024, mlp.Wo 1024 x 2624 and mlp_norm, 27 attn_norms, final_norm)
// and its head.dense 1024^2 and head.norm 1024 are the checkpoint's;
// decoder.bias 50,368 is not, the classifier 2 x 1024 + 2 is. As vLLM
// loads it the checkpoint is the family's weights from config parameter
// by parameter (TestModernBertLargeZeroshotWeightsByHand's 795,867,144 B
// at one rank), beside the two rotary cos/sin caches of 8192 positions x
// 64 x 2 B (50,368 rows are a multiple of 64: not padded).
func TestModernBertZeroshotHeader(t *testing.T) {
	_, ts := modernBertZeroshotHeader()
	checkHeaderNames(t, ts, 174)
	backbone := uint64(50368*1024 + 1024 + 28*(3072*1024+1024*1024+5248*1024+1024*2624+1024) + 27*1024 + 1024)
	params := backbone + 1024*1024 + 1024 + 2*1024 + 2
	if got := headerTotal(ts); got != 2*params || backbone+1024*1024+1024+50368 != 395_881_664 {
		t.Errorf("header total %d B, by hand %d bf16 parameters; backbone %d and ModernBERT-large's head should make its 395,881,664", got, params, backbone)
	}
	a := checkConfigOnlyHeader(t, modernBertZeroshotHeader)
	buffers := map[string]uint64{}
	for _, r := range a.Rotary {
		buffers[r.Name+".cos_sin_cache"] = 8192 * 64 * 2
	}
	if len(buffers) != 2 {
		t.Errorf("%d rotary caches, want the local and the global one", len(buffers))
	}
	checkLoadedHeader(t, modernBertZeroshotHeader, modernBertClassifierLoaded, buffers)
	if got, want := sum(Weights(a, Whole(a, 1, 2, a.Quant))), 2*(backbone+2*8192*64)+4*(1024*1024+1024+2*1024+2); got != want || want != 795_867_144 {
		t.Errorf("TP1: weights from config %d B, by hand %d", got, want)
	}
}

// arcticEmbedLHeader is Snowflake/snowflake-arctic-embed-l-v2.0's
// model.safetensors: an XLMRobertaModel saved in its bare names
// (modeling_xlm_roberta.py: embeddings.*, encoder.layer.N.* as BERT's,
// pooler.dense; position_ids not persistent, so not stored), shapes from
// its config (kept in model/testdata/headers, as nomic's): 24 layers of
// 1024, FFN 4096, 250,002 tokens, 8194 positions, 1 token type, float32:
// BGE-M3's shape.
func arcticEmbedLHeader() (string, []safetensors.Tensor) {
	const H, F, V, P, T = 1024, 4096, 250002, 8194, 1
	f32 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F32", name, shape...) }
	linear := func(p string, out, in uint64) []safetensors.Tensor {
		return []safetensors.Tensor{f32(p+".weight", out, in), f32(p+".bias", out)}
	}
	ln := func(p string) []safetensors.Tensor {
		return []safetensors.Tensor{f32(p+".weight", H), f32(p+".bias", H)}
	}
	ts := []safetensors.Tensor{
		f32("embeddings.word_embeddings.weight", V, H), f32("embeddings.position_embeddings.weight", P, H),
		f32("embeddings.token_type_embeddings.weight", T, H),
	}
	ts = append(ts, ln("embeddings.LayerNorm")...)
	for l := range 24 {
		p := fmt.Sprintf("encoder.layer.%d.", l)
		for _, n := range []string{"query", "key", "value"} {
			ts = append(ts, linear(p+"attention.self."+n, H, H)...)
		}
		ts = append(ts, linear(p+"attention.output.dense", H, H)...)
		ts = append(ts, ln(p+"attention.output.LayerNorm")...)
		ts = append(ts, linear(p+"intermediate.dense", F, H)...)
		ts = append(ts, linear(p+"output.dense", H, F)...)
		ts = append(ts, ln(p+"output.LayerNorm")...)
	}
	ts = append(ts, linear("pooler.dense", H, H)...)
	data, err := os.ReadFile("testdata/headers/Snowflake__snowflake-arctic-embed-l-v2.0.json")
	if err != nil {
		panic(err)
	}
	return string(data), ts
}

// TestArcticEmbedLHeader: the checkpoint's 391 tensors (the 3 tables and
// the LayerNorm's 2, 24 layers of 16, the pooler's 2) hold 567,754,752
// float32 parameters, the Hub's safetensors total for
// Snowflake/snowflake-arctic-embed-l-v2.0 (a stored table of Hub API
// answers, index file id 71142266638): 2,271,019,008 B. By hand: the
// tables (250,002 + 8194 + 1) x 1024 = 264,393,728 and their LayerNorm
// 2048; 24 layers of 12,596,224 (TestBgeRerankerHeader's) = 302,309,376;
// the pooler 1024^2 + 1024 = 1,049,600. vLLM serves XLMRobertaModel as
// roberta.py's RobertaEmbeddingModel (BertModel's load_weights: q, k and
// v stacked, the pooler skipped): what it loads is the family's weights
// from config parameter by parameter, beside the padded table rows (46,
// 62 and 63, x 1024 x 2 B) and the int64 position_ids buffer of 8194.
func TestArcticEmbedLHeader(t *testing.T) {
	_, ts := arcticEmbedLHeader()
	checkHeaderNames(t, ts, 391)
	params := uint64(264_393_728 + 2048 + 24*12_596_224 + 1_049_600)
	if got := headerTotal(ts); got != 4*params || params != 567_754_752 {
		t.Errorf("header total %d B, by hand %d float32 parameters, the Hub's count is 567,754,752", got, params)
	}
	checkLoadedHeader(t, arcticEmbedLHeader, bertLoaded, map[string]uint64{
		"embeddings.word_embeddings.weight":       46 * 1024 * 2,
		"embeddings.position_embeddings.weight":   62 * 1024 * 2,
		"embeddings.token_type_embeddings.weight": 63 * 1024 * 2,
		"embeddings.position_ids":                 8194 * 8,
	})
}
