package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// The shapes of the Whisper configs corpus/models ships, entered by hand
// from the files (see TestShippedConfigsParse): the decoder's 32 (or 4)
// layers of 1280, 20 heads of 64, every head a KV head, 51866 tokens, 448
// target positions, no rotary embedding, proj_out tied to embed_tokens.
func init() {
	shippedShapes["openai__whisper-large-v3"] = shape{ModelType: "whisper", Layers: 32, Hidden: 1280, Heads: 20, KVHeads: 20,
		HeadDim: 64, Vocab: 51866, MaxPos: 448, Tied: true, Dtype: "float16"}
	shippedShapes["openai__whisper-large-v3-turbo"] = shape{ModelType: "whisper", Layers: 4, Hidden: 1280, Heads: 20, KVHeads: 20,
		HeadDim: 64, Vocab: 51866, MaxPos: 448, Tied: true, Dtype: "float32"}
}

// TestWhisperWeightsByHand: the shipped Whisper configs as vLLM's
// whisper.py builds them at d18bb7b, element by element.
//
// large-v3 (transformers' count): the encoder's conv1 128 x 3 x 1280 +
// 1280 = 492,800, conv2 1280 x 3 x 1280 + 1280 = 4,916,480, positions
// 1500 x 1280 = 1,920,000; a layer's attention q, k, v, o 4 x 1,638,400
// with biases on q, v, o 3,840 (6,557,440), two LayerNorms 5,120, fc1
// 6,553,600 + 5,120, fc2 6,553,600 + 1,280: 19,676,160, x 32 =
// 629,637,120; its LayerNorm 2,560: 636,968,960. The decoder's
// embed_tokens 51866 x 1280 = 66,388,480, positions 448 x 1280 = 573,440;
// a layer adds the cross-attention's 6,557,440 and a LayerNorm 2,560 to
// the encoder's: 26,236,160, x 32 = 839,557,120; its LayerNorm 2,560:
// 906,521,600. In all 1,543,490,560 (the card's 1.55B). vLLM adds a zero
// bias to every k_proj (_create_fake_bias_for_k_proj): 32 + 32 + 32
// attentions x 1280 = 122,880, so 1,543,613,440 elements built.
//
// large-v3-turbo: the same encoder and 4 decoder layers: 66,388,480 +
// 573,440 + 4 x 26,236,160 + 2,560 = 171,909,120, in all 808,878,080 (the
// card's 809M); k biases 40 x 1280 = 51,200: 808,929,280.
//
// turbo under TP 2 (10 heads a rank): whole are the convolutions, the
// position tables and embed_tokens (an nn.Embedding, not divided), the
// LayerNorms and the row-parallel biases. An encoder layer: qkv_proj 1280
// x 1920 + 1920 = 2,459,520, out_proj 640 x 1280 + 1280 = 820,480, fc1
// 1280 x 2560 + 2560 = 3,279,360, fc2 2560 x 1280 + 1280 = 3,278,080,
// LayerNorms 5,120: 9,842,560, x 32 = 314,961,920. A decoder layer: the
// same attention 3,280,000, q_proj 1280 x 640 + 640 = 819,840, kv_proj
// 1280 x 1280 + 1280 = 1,639,680, out_proj 820,480, fc1 and fc2
// 6,557,440, three LayerNorms 7,680: 13,125,120, x 4 = 52,500,480. With
// 492,800 + 4,916,480 + 1,920,000 + 2,560 + 66,388,480 + 573,440 + 2,560:
// 441,758,720.
func TestWhisperWeightsByHand(t *testing.T) {
	tests := []struct {
		file      string
		tp, bytes uint64
		want      uint64
	}{
		{"openai__whisper-large-v3", 1, 1, 1_543_613_440},
		{"openai__whisper-large-v3", 1, 2, 3_087_226_880},
		{"openai__whisper-large-v3-turbo", 1, 1, 808_929_280},
		{"openai__whisper-large-v3-turbo", 2, 1, 441_758_720},
	}
	for _, tt := range tests {
		data := corpusModel(t, tt.file)
		a, err := ParseConfig(tt.file+".json", data)
		if err != nil {
			t.Fatal(err)
		}
		if got := budget.ItemBytes(Weights(a, Whole(a, tt.tp, tt.bytes, Quant{}))); got != tt.want {
			t.Errorf("%s TP %d at %d B: %d B, want %d", tt.file, tt.tp, tt.bytes, got, tt.want)
		}
	}
}

// TestWhisperShape: the audio encoder, the cross-attending decoder layers
// and the length keys vLLM derives max_model_len from.
func TestWhisperShape(t *testing.T) {
	data := corpusModel(t, "openai__whisper-large-v3-turbo")
	a, err := ParseConfig("turbo.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&AudioEncoder{Layers: 32, Heads: 20, FFN: 5120, MelBins: 128, SourcePositions: 1500}, a.Audio); diff != "" {
		t.Errorf("audio encoder (-want +got):\n%s", diff)
	}
	for i, l := range a.Layers {
		if l.Kind != FullAttention || !l.CrossAttention {
			t.Errorf("layer %d: %v, cross-attention %v; want full attention with cross-attention", i, l.Kind, l.CrossAttention)
		}
	}
	if !a.EncoderDecoder() || a.Encoder != nil {
		t.Error("want an encoder-decoder model, not an encoder-only one")
	}
	if diff := cmp.Diff(map[string]uint64{"max_target_positions": 448}, a.MaxLenKeys); diff != "" {
		t.Errorf("length keys (-want +got):\n%s", diff)
	}
}

// TestWhisperClassDefaults: WhisperConfig's defaults fill a config that
// leaves keys out (whisper-base's numbers: 512 wide, 6 and 6 layers of 8
// heads, 2048 FFN, 80 mel bins, 51865 tokens give 72,593,920 parameters,
// its card's 74M with the k biases HF does not keep counted apart), and a
// bad key is refused naming it.
func TestWhisperClassDefaults(t *testing.T) {
	a, err := ParseConfig("x.json", []byte(`{"model_type":"whisper","architectures":["WhisperForConditionalGeneration"],"d_model":512,`+
		`"encoder_attention_heads":8,"decoder_attention_heads":8,"encoder_ffn_dim":2048,"decoder_ffn_dim":2048}`))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range a.Defaulted {
		keys = append(keys, d.Key)
	}
	want := []string{"vocab_size", "num_mel_bins", "encoder_layers", "decoder_layers", "max_source_positions", "max_target_positions"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("defaulted (-want +got):\n%s", diff)
	}
	// Encoder: conv1 80 x 3 x 512 + 512 = 123,392; conv2 512 x 3 x 512 +
	// 512 = 786,944; positions 1500 x 512 = 768,000; a layer: attention 4
	// x 262,144 + 4 x 512 (k's zero bias built) = 1,050,624, LayerNorms
	// 2,048, fc1 1,048,576 + 2,048, fc2 1,048,576 + 512: 3,152,384, x 6 =
	// 18,914,304; LayerNorm 1,024: 20,593,664. Decoder: embed_tokens 51865
	// x 512 = 26,554,880, positions 448 x 512 = 229,376; a layer 3,152,384
	// + cross-attention 1,050,624 + LayerNorm 1,024 = 4,204,032, x 6 =
	// 25,224,192; LayerNorm 1,024: 52,009,472. In all 72,603,136 built
	// (72,593,920 without the 18 zero k biases of 512).
	if got, want := budget.ItemBytes(Weights(a, Whole(a, 1, 1, Quant{}))), uint64(72_603_136); got != want {
		t.Errorf("%d elements, want %d", got, want)
	}
	for _, c := range []struct{ doc, key string }{
		{`{"model_type":"whisper","d_model":500,"decoder_attention_heads":8}`, "decoder_attention_heads"},
		{`{"model_type":"whisper","pos_embed":"rope"}`, "pos_embed"},
		{`{"model_type":"whisper","d_model":0}`, "d_model"},
	} {
		if _, err := ParseConfig("x.json", []byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.key) {
			t.Errorf("%s: error %v, want one naming %s", c.doc, err, c.key)
		}
	}
}
