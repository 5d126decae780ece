package model

import (
	"fmt"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

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
	ln := func(p string) []safetensors.Tensor { return []safetensors.Tensor{f16(p+".weight", D), f16(p+".bias", D)} }
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
// file id 71142266638; the same count in stored identity checks, ids
// 69559635743, 69457224706): 3,086,981,120 B. By hand: an encoder layer's
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
