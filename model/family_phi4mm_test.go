package model

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The shape of microsoft/Phi-4-multimodal-instruct, entered by hand from
// its config (see TestShippedConfigsParse): Phi-4-mini's language model,
// 32 layers of 24 heads and 8 KV heads of 3072 / 24 = 128, vocabulary
// 200,064, tied; partial_rotary_factor 0.75 turns 96 of a head's 128;
// longrope over 131,072 positions. The KV layout is vLLM's: without
// layer_types the model-level sliding_window 262,144 reaches every layer
// through the cache config (vllm/engine/arg_utils.py:1982-1988;
// attention/attention.py:259-267), so every layer is a SlidingWindowSpec
// of 2 x 8 x 128 values a token.
func init() {
	shippedShapes["microsoft__Phi-4-multimodal-instruct"] = shape{ModelType: "phi4mm", Layers: 32, Hidden: 3072, Heads: 24, KVHeads: 8,
		HeadDim: 128, Vocab: 200064, MaxPos: 131072, Tied: true, Sliding: 32, Window: 262144, RotaryDim: 96, Rope: "longrope",
		Vision: "phi4mm", Dtype: "bfloat16"}
}

// Phi-4-multimodal-instruct, counted by hand from phi4mm.py,
// phi4mm_audio.py, phi4mm_utils.py, idefics2_vision_model.py and llama.py
// at d18bb7b (d = 1024, ffn 1536, 16 heads, text width 3072).
//
// The text model (LlamaModel): a layer's qkv_proj 3072 x (3072 + 2 x
// 1024), o_proj 3072 x 3072, gate_up_proj 3072 x 2 x 8192, down_proj 8192
// x 3072, two norms 6144: 100,669,440; 32 of them; embed_tokens 200,064 (a
// multiple of 64) x 3072, the head tied; the norm 3072: 3,836,021,760.
//
// The image encoder: SigLIP-so400m's patch_embedding 1152 x 3 x 14 x 14 +
// 1152 and 1024 positions x 1152; 26 of its 27 layers (layer_idx -2), each
// qkv_proj 1152 x 3456 + 3456, out_proj 1152 x 1152 + 1152, fc1 1152 x
// 4304 + 4304, fc2 4304 x 1152 + 1152, two LayerNorms 4 x 1152:
// 15,239,504; glb_GN and sub_GN 1152 each; img_projection 1152 x 3072 +
// 3072 and 3072 x 3072 + 3072: 411,069,856.
//
// The audio encoder: a conformer block's two feed-forwards, each a
// LayerNorm 2048, GLULinear 1024 x 3072 + 3072 and 1536 x 1024 + 1024;
// linear_q, _k, _v and _out 4 x (1024 x 1024 + 1024); the conv module's
// LayerNorm 2048, ext_pw_conv_1d 1024 x 1024 + 1024, the GLU's conv 1024 x
// 2048 + 2048 with b1 and b2 1024 each, the depthwise conv 1024 x 3 +
// 1024 and the pointwise 1024 x 1024 + 1024 (no ln1, ln2: every width is
// 1024); layer_norm_att and layer_norm 4096: 17,858,560; 24 blocks. The
// subsampler (time_reduction 8: three stride-2 stages of 1024 channels):
// conv.0 1024 x 9 + 1024, twice a depthwise 1024 x 9 + 1024 and a
// pointwise 1024 x 1024 + 1024, out (1024 x 10 mels left of 80: 80 -> 40
// -> 20 -> 10) x 1024 + 1024; the T5 bias table 2 x 500 x 16; the
// mean/invstd 2 x 80; audio_projection and audio_projection_for_vision,
// each 1024 x 3072 + 3072 and 3072 x 3072 + 3072: 466,416,416.
//
// Beside the parameters vLLM keeps the audio encoder's sinusoid table,
// 5000 x 1024 in bfloat16, its dev_type scalar, and the longrope cos/sin
// table of (4096 + 131,072) positions x 96.
const (
	p4Layer      = 3072*5120 + 3072*3072 + 3072*16384 + 8192*3072 + 2*3072
	p4Text       = 32*p4Layer + 200064*3072 + 3072
	p4VitLayer   = 1152*3456 + 3456 + 1152*1152 + 1152 + 1152*4304 + 4304 + 4304*1152 + 1152 + 4*1152
	p4Image      = 1152*3*14*14 + 1152 + 1024*1152 + 26*p4VitLayer + 2*1152 + 1152*3072 + 3072 + 3072*3072 + 3072
	p4FF         = 2048 + 1024*3072 + 3072 + 1536*1024 + 1024
	p4Block      = 2*p4FF + 4*(1024*1024+1024) + 2048 + 1024*1024 + 1024 + 1024*2048 + 2048 + 2*1024 + 1024*3 + 1024 + 1024*1024 + 1024 + 4096
	p4Subsampler = 1024*9 + 1024 + 2*(1024*9+1024+1024*1024+1024) + 1024*10*1024 + 1024
	p4Audio      = 24*p4Block + p4Subsampler + 1000*16 + 2*80 + 2*(1024*3072+3072+3072*3072+3072)
	p4Buffers    = 5000*1024*2 + 2 + (4096+131072)*96*2
)

// TestPhi4MMByHand pins the sums above and checks Weights against them at
// TP1 and TP2 in bfloat16. At TP2 the text model's and the SigLIP tower's
// parallel layers are halved (column-parallel with their biases, the
// row-parallel ones' biases whole), the vocabulary rows too; the audio
// encoder and the projections are plain torch modules, whole on every
// rank.
func TestPhi4MMByHand(t *testing.T) {
	sums := []uint64{p4Layer, p4VitLayer, p4Block, p4Text, p4Image, p4Audio}
	if diff := cmp.Diff([]uint64{100669440, 15239504, 17858560, 3836021760, 411069856, 466416416}, sums); diff != "" {
		t.Fatalf("sums (-want +got):\n%s", diff)
	}
	a := loadPhi4MM(t)
	// TP2: a text layer's qkv 3072 x 2560, o 1536 x 3072, gate_up 3072 x
	// 8192, down 4096 x 3072, norms 6144: 50,337,792; 100,032 vocabulary
	// rows. A tower layer's qkv 1152 x 1728 + 1728, out_proj 576 x 1152 +
	// 1152, fc1 1152 x 2152 + 2152, fc2 2152 x 1152 + 1152, LayerNorms
	// 4608: 7,623,208.
	const (
		tp2Text  = 32*(3072*2560+1536*3072+3072*8192+4096*3072+6144) + 100032*3072 + 3072
		tp2Layer = 1152*1728 + 1728 + 576*1152 + 1152 + 1152*2152 + 2152 + 2152*1152 + 1152 + 4608
		tp2Image = 1152*3*14*14 + 1152 + 1024*1152 + 26*tp2Layer + 2*1152 + 1152*3072 + 3072 + 3072*3072 + 3072
	)
	tests := []struct {
		name string
		tp   uint64
		want uint64
	}{
		{"TP1", 1, (p4Text+p4Image+p4Audio)*2 + p4Buffers},
		{"TP2", 2, (tp2Text+tp2Image+p4Audio)*2 + p4Buffers},
	}
	for _, tt := range tests {
		items := Weights(a, Whole(a, tt.tp, 2, a.Quant))
		if got := sum(items); got != tt.want {
			t.Errorf("%s: %d B, by hand %d B", tt.name, got, tt.want)
		}
	}
	if got, want := sumItems(Weights(a, Whole(a, 1, 2, a.Quant)), "embed_tokens_extend."), uint64(p4Audio*2+5000*1024*2+2); got != want {
		t.Errorf("the audio encoder holds %d B, by hand %d B", got, want)
	}
	// The 9,463,208,322 B the report prints for one L4 is the TP1 sum.
	if want := uint64(9463208322); (p4Text+p4Image+p4Audio)*2+p4Buffers != want {
		t.Errorf("TP1 by hand %d B, want %d", (p4Text+p4Image+p4Audio)*2+p4Buffers, want)
	}
}

// TestPhi4MMPublishedCount: what the checkpoint holds beyond what vLLM
// loads, added to the loaded parameters, is the model card's 5.57B
// (huggingface.co/microsoft/Phi-4-multimodal-instruct, "5.6B"; the Hub's
// safetensors count 5.57B). Beyond the loaded 4,713,508,032: the tower's
// 27th layer and post_layernorm (not built for layer_idx -2,
// require_post_norm False), SigLIP's pooling head (probe 1152, in_proj
// 3 x 1152 x 1152 + 3456, out_proj 1152 x 1152 + 1152, LayerNorm 2304,
// MLP 2 x 1152 x 4304 + 4304 + 1152: 15,238,352, which vLLM does not build),
// and the LoRA adapters vLLM skips (every "lora" tensor): vision r 256
// and speech r 320 on each layer's qkv_proj (A r x 3072, B 5120 x r),
// o_proj (3072, 3072), gate_up_proj (3072, 16384) and down_proj (8192,
// 3072): r x 45,056 a layer.
func TestPhi4MMPublishedCount(t *testing.T) {
	const (
		loaded = p4Text + p4Image + p4Audio
		head   = 1152 + 3*1152*1152 + 3456 + 1152*1152 + 1152 + 2304 + 2*1152*4304 + 4304 + 1152
		lora   = 32 * (256 + 320) * (3*3072 + 8192 + 5120 + 3072 + 16384 + 3072)
		skip   = p4VitLayer + 2*1152 + head + lora
	)
	if loaded != 4713508032 || head != 15238352 {
		t.Fatalf("loaded %d, head %d", uint64(loaded), uint64(head))
	}
	if n := uint64(loaded + skip); n != 5574460384 || n < 5565000000 || n >= 5575000000 {
		t.Errorf("the checkpoint holds %d parameters by hand, want 5,574,460,384 (5.57B)", n)
	}
}

// loadPhi4MM reads the shipped config.
func loadPhi4MM(t *testing.T) *Arch {
	t.Helper()
	data, err := os.ReadFile("../corpus/models/microsoft__Phi-4-multimodal-instruct.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseConfig("phi4mm.json", data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPhi4MMReads: the shipped config reads as vLLM builds it, and what
// vLLM builds otherwise or refuses is refused by the key that asks for
// it. Each case edits the shipped file's text.
func TestPhi4MMReads(t *testing.T) {
	data, err := os.ReadFile("../corpus/models/microsoft__Phi-4-multimodal-instruct.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	a := loadPhi4MM(t)
	got := struct {
		Layers, Hidden, Heads, Image, ProjIn, Out uint64
		Conformer                                 Conformer
		NoPipeline                                bool
	}{a.Vision.Layers, a.Vision.Hidden, a.Vision.Heads, a.Vision.ImageSize, a.Vision.ProjectorIn, a.Vision.OutHidden, *a.Vision.Conformer, a.NoPipeline}
	want := got
	// SigLIP-so400m to layer 26 (27 - 2 + 1), its 1152 into the text 3072;
	// the conformer of the config: 80 mels, three stride-2 stages of 1024
	// channels leaving 10, T5 buckets 2 x 500.
	want.Layers, want.Hidden, want.Heads, want.Image, want.ProjIn, want.Out = 26, 1152, 16, 448, 1152, 3072
	want.Conformer = Conformer{Dim: 1024, Heads: 16, Group: 1, FFN: 1536, Blocks: 24, Mels: 80, NormSize: 80, ConvChannels: 1024,
		Subsamplings: 3, SubsampledMels: 10, ExtPW: 1024, ExtPWKernel: 1, DWOut: 1024, DWMult: 1, Kernel: 3, BiasInGLU: true,
		BiasBuckets: 1000, Compression: 8, MLP: true, ProjectorIn: 1024}
	want.NoPipeline = true
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shipped (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, from, to string
		layers         uint64 // the tower's layers when it reads
		err            string // a substring of the refusal
	}{
		{"the processor's name", `"bos_token_id"`, `"img_processor": "siglip-so400m-patch14-448", "bos_token_id"`, 26, ""},
		{"null", `"bos_token_id"`, `"img_processor": null, "bos_token_id"`, 26, ""},
		{"another name", `"bos_token_id"`, `"img_processor": "clip-vit-large", "bos_token_id"`, 0, "img_processor: \"clip-vit-large\": vLLM's Phi-4-multimodal processor takes null"},
		{"a dict", `"bos_token_id"`, `"img_processor": {"layer_idx": -1}, "bos_token_id"`, 0, "img_processor: {"},
		{"a Q-Former", `"use_qformer": false`, `"use_qformer": true`, 0, "embd_layer.audio_embd_layer.use_qformer: true"},
		{"a conv downsampler", `"use_conv_downsample": false`, `"use_conv_downsample": true`, 0, "use_conv_downsample: true"},
		{"batch norm", `"batch_norm": false`, `"batch_norm": true`, 0, "audio_processor.config.batch_norm: true"},
		{"another encoder", `"name": "cascades"`, `"name": "whisper"`, 0, "audio_processor.name"},
		{"another bias", `"type": "t5"`, `"type": "alibi"`, 0, "relative_attention_bias_args"},
		{"time reduction 6", `"time_reduction": 8`, `"time_reduction": 6`, 0, "time_reduction: 6"},
		{"no chunk_size", `"chunk_size": -1,`, ``, 0, "audio_processor.config.chunk_size: missing"},
		{"an unknown conformer key", `"kernel_size": 3,`, `"kernel_size": 3, "dropout": 0.1,`, 0, "audio_processor.config.dropout: not a ConformerEncoder argument"},
		{"an unknown subsampler key", `"conv_channels": 1024`, `"conv_channels": 1024, "subsampling_factor": 4`, 0, "nemo_conv_settings.subsampling_factor"},
		{"no compression rate", `"compression_rate": 8,`, ``, 0, "embd_layer.audio_embd_layer.compression_rate: missing"},
		{"compression rate 0", `"compression_rate": 8,`, `"compression_rate": 0,`, 0, "compression_rate: 0"},
		{"no audio processor", `"audio_processor"`, `"audio_processor_"`, 0, "audio_processor: missing"},
	}
	for _, tt := range tests {
		if !strings.Contains(doc, tt.from) {
			t.Fatalf("%s: the shipped config has no %s", tt.name, tt.from)
		}
		a, err := ParseConfig("phi4mm.json", []byte(strings.Replace(doc, tt.from, tt.to, 1)))
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.err == "" && a.Vision.Layers != tt.layers:
			t.Errorf("%s: %d tower layers, want %d", tt.name, a.Vision.Layers, tt.layers)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("%s: got %v, want an error with %q", tt.name, err, tt.err)
		}
	}
}

// TestConformerShapes: the conformer's optional layers appear exactly
// where ConvModule, DepthWiseSeparableConv1d and MultiHeadedAttention
// build them (phi4mm_utils.py:220-460, 1613-1690), each counted by hand
// for d = 64, ffn 96, 4 heads, one block, 80 mels, 32 channels, time
// reduction 4 (80 -> 40 -> 20 mels), T5 distance 10 (20 buckets), a
// linear projection to a text width of 128.
func TestConformerShapes(t *testing.T) {
	const (
		ff    = 2*64 + 64*192 + 192 + 96*64 + 64 // a feed-forward
		norms = 4*64 + 2*64                      // layer_norm_att, layer_norm, the conv's
		sub   = 32*9 + 32 + 32*9 + 32 + 32*32 + 32 + 32*20*64 + 64
		fixed = 2*80 + sub + 20*4 + 64*128 + 128
		dw    = 64*3 + 64 // the depthwise conv, multiplier 1
	)
	base := Conformer{Dim: 64, Heads: 4, Group: 1, FFN: 96, Blocks: 1, Mels: 80, NormSize: 80, ConvChannels: 32, Subsamplings: 2,
		SubsampledMels: 20, ExtPW: 64, ExtPWKernel: 1, DWOut: 64, DWMult: 1, Kernel: 3, BiasInGLU: true, BiasBuckets: 20, ProjectorIn: 64}
	tests := []struct {
		name string
		edit func(c *Conformer)
		want uint64 // parameters of the block and the encoder
	}{
		{"the published layout", func(*Conformer) {},
			2*ff + 4*(64*64+64) + 64*64 + 64 + 64*128 + 128 + 2*64 + dw + 64*64 + 64 + norms + fixed},
		// Two query heads a key head: linear_k and linear_v 64 x 32 + 32,
		// linear_out 32 x 64 + 64; the bias table 20 x 2.
		{"grouped keys", func(c *Conformer) { c.Group = 2 },
			2*ff + 64*64 + 64 + 2*(64*32+32) + 32*64 + 64 + 64*64 + 64 + 64*128 + 128 + 2*64 + dw + 64*64 + 64 + norms + fixed - 20*4 + 20*2},
		// ext_pw_out_channel 0: pw_conv_simplify_w and _b of 3 each.
		{"no pointwise GLU", func(c *Conformer) { c.ExtPW = 0 },
			2*ff + 4*(64*64+64) + 6 + dw + 64*64 + 64 + norms + fixed},
		// ext_pw_out_channel 32: the convs 64 -> 32 and 64 -> 64 with b1,
		// b2 of 32 and ln1 32 x 64 + 64.
		{"a narrower GLU", func(c *Conformer) { c.ExtPW = 32 },
			2*ff + 4*(64*64+64) + 64*32 + 32 + 64*64 + 64 + 2*32 + 32*64 + 64 + dw + 64*64 + 64 + norms + fixed},
		// depthwise_seperable_out_channel 0 with multiplier 2: the
		// depthwise conv 128 x 3 + 128, no pointwise, ln2 128 x 64 + 64.
		{"no pointwise conv", func(c *Conformer) { c.DWOut, c.DWMult = 0, 2 },
			2*ff + 4*(64*64+64) + 64*64 + 64 + 64*128 + 128 + 2*64 + 128*3 + 128 + 128*64 + 64 + norms + fixed},
		// depthwise_seperable_out_channel 48: pw_conv 64 x 48 + 48 and ln2
		// 48 x 64 + 64.
		{"a narrower pointwise conv", func(c *Conformer) { c.DWOut = 48 },
			2*ff + 4*(64*64+64) + 64*64 + 64 + 64*128 + 128 + 2*64 + dw + 64*48 + 48 + 48*64 + 64 + norms + fixed},
		// bias_in_glu false: no GLULinear bias (2 x 192) and no b1, b2.
		{"no GLU bias", func(c *Conformer) { c.BiasInGLU = false },
			2*ff - 2*192 + 4*(64*64+64) + 64*64 + 64 + 64*128 + 128 + dw + 64*64 + 64 + norms + fixed},
		// mlp: two projections of 64 x 128 + 128 and 128 x 128 + 128 in
		// place of the one linear.
		{"mlp projections", func(c *Conformer) { c.MLP = true },
			2*ff + 4*(64*64+64) + 64*64 + 64 + 64*128 + 128 + 2*64 + dw + 64*64 + 64 + norms + fixed - (64*128 + 128) + 2*(64*128+128+128*128+128)},
	}
	for _, tt := range tests {
		c := base
		tt.edit(&c)
		w := &weights{a: &Arch{}, dt: 2, tp: 1}
		w.conformer(&c, 128)
		// The sinusoid table and dev_type are buffers beside the
		// parameters.
		if got, want := sum(w.items), tt.want*2+5000*64*2+2; got != want {
			t.Errorf("%s: %d B, by hand %d B", tt.name, got, want)
		}
	}
}

// TestPhi3VRefusedByName: a Phi-3-vision config is refused naming the
// table vLLM keeps or drops by the checkpoint, not as an unknown
// model_type (which a checkpoint could turn into a generic decoder); the
// architectures table gives the same reason.
func TestPhi3VRefusedByName(t *testing.T) {
	_, err := ParseConfig("x.json", []byte(`{"model_type": "phi3_v", "architectures": ["Phi3VForCausalLM"], "hidden_size": 3072,
 "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 32064, "img_processor": {"image_dim_out": 1024}}`))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "model_type" || errors.Is(err, ErrUnknownModelType) || !strings.Contains(ce.Detail, "model.vision_embed_tokens.wte.weight") {
		t.Errorf("error %v; want a model_type refusal naming the second table", err)
	}
	if got := ArchitectureRefusal("phi3v"); got != phi3vRefusal {
		t.Errorf("the table's reason %q, want the parser's", got)
	}
}
