package model

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// gemma3nCorpus reads one of the rebuilt Gemma 3n configs of corpus/models.
func gemma3nCorpus(t *testing.T, name string) *Arch {
	t.Helper()
	data, err := os.ReadFile("../corpus/models/google__gemma-3n-" + name + "-it.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseConfig(name+".json", data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// gemma3nGroups sums one rank's weights by the module they belong to:
// the language model, the two towers and their embedders, and the
// per-layer embeddings buffer.
func gemma3nGroups(a *Arch, sh Sharding) map[string]uint64 {
	groups := map[string]uint64{}
	for _, it := range Weights(a, sh) {
		g := "text"
		for _, p := range []string{"vision_tower.", "audio_tower.", "embed_vision.", "embed_audio.", "per_layer_embeddings"} {
			if strings.HasPrefix(it.Name, p) {
				g = strings.TrimSuffix(p, ".")
			}
		}
		groups[g] += it.Bytes
	}
	return groups
}

// TestGemma3nWeightsByHand: Gemma 3n E4B and E2B as vLLM's gemma3n.py and
// gemma3n_mm.py build them, in bfloat16 on one rank, counted by hand; the
// parameters add up to keras-hub's published counts
// (keras_hub/src/models/gemma3n/gemma3n_presets.py@ccdd2c3935:
// gemma3n_e4b_it 7,850,135,376, gemma3n_e2b_it 5,439,595,456) less the
// 157,184 by which keras-hub's MobileNetV5 port outcounts timm's tower.
//
// The language model, hidden 2048, 8 heads and 2 KV heads of 256, AltUp 4,
// LAuReL rank 64, per-layer inputs 256 wide over 262,144 rows. Outside the
// layers: embed_tokens 262,400 x 2048 = 537,395,200; the per-layer
// embeddings 262,144 x L x 256; their projection 2048 x L x 256 and norm
// 256; three AltUp projections and three unembedding ones, 6 x 2048^2 =
// 25,165,824; the final norm 2048. No lm_head (the logits read the
// embedding). A layer: q and o 2 x 2048^2, k and v 2 x 2048 x 512:
// 10,485,760; q and k norms 512; the MLP 3 x 2048 x I; LAuReL 2 x 2048 x 64
// = 262,144 and its norm 2048; AltUp's correction 4 x 4, prediction 4 x 16,
// router 2048 x 4, router norm 2048, correct_output_scale 2048: 12,368; the
// per-layer gate and projection 2 x 2048 x 256 = 1,048,576; five norms
// 10,240: 25,168 + 11,796,480 + 3 x 2048 x I.
//
// E4B (L 35, I 16,384): a layer 112,484,944, x 35 = 3,936,973,040; outside
// them 537,395,200 + 2,348,810,240 + 18,350,080 + 256 + 25,165,824 + 2048
// = 2,929,723,648: 6,866,696,688. E2B (L 30, I 8192): a layer 62,153,296,
// x 30 = 1,864,598,880; outside them 537,395,200 + 2,013,265,920 +
// 15,728,640 + 256 + 25,165,824 + 2048 = 2,591,557,888: 4,456,156,768.
//
// The audio conformer (1536 wide, 12 blocks, 8 heads of 192, kernel 5):
// the subsampling convolutions 128 x 1 x 3 x 3 = 1152 and 32 x 128 x 9 =
// 36,864 with norms 128 and 32, the mel bins 128 -> (130 - 3) / 2 + 1 = 64
// -> 32, so an input projection of 32 x 32 = 1024 x 1536 = 1,572,864:
// 1,611,040. A block: two feed-forwards 2 x (2 x 1536 x 6144 + 2 x 1536) =
// 37,754,880; the attention's q, k, v, relative position and out
// projections 5 x 1536^2 = 11,796,480, per_dim_scale 192 and two norms
// 3072: 11,799,744; the light convolution 1536 x 3072 + 1536 x 5 + 1536^2
// + two norms = 7,088,640; its norm 1536: 56,644,800, x 12 = 679,737,600.
// 681,348,640 in all. embed_audio: 128 x 1536 + 2 x 1536 + 1536 x 2048 =
// 3,345,408. embed_vision: 128 x 2048 + 2 x 2048 + 2048^2 = 4,460,544.
// MobileNetV5: 294,126,912, timm's build (mobileNetV5Params; keras-hub's
// port counts 294,284,096). E4B: 6,866,696,688 + 681,348,640 + 294,126,912
// + 4,460,544 + 3,345,408 = 7,849,978,192; E2B 4,456,156,768 + 983,281,504
// = 5,439,438,272: keras-hub's counts less 157,184 each.
//
// In bytes, 2 a parameter, and what is not a parameter of 2 bytes:
// correct_output_scale in float32 (2 more bytes x 2048 a layer); per layer
// v_norm's ones (256 x 2) and the router's scalar (2); four scalars of the
// self-decoder (8); two rotary tables of 32,768 x 256 (33,554,432); the
// embedders' weightless norms (2048 x 2 each); and per audio block five
// gradient_clipping, two post_layer_scale and one q_scale scalars (16),
// the float32 softcap (4), the float32 timescales 768 x 4 = 3072 and the
// 12 x (12 + 12) boolean mask (288): 3380, x 12 = 40,560.
func TestGemma3nWeightsByHand(t *testing.T) {
	tests := []struct {
		name   string
		layers uint64
		want   map[string]uint64
	}{
		{"E4B", 35, map[string]uint64{
			"text":         2*6_866_696_688 + 35*(2*2048+512+2) + 8 + 33_554_432,
			"vision_tower": 2 * 294_126_912,
			"audio_tower":  2*681_348_640 + 40_560,
			"embed_vision": 2*4_460_544 + 4096,
			"embed_audio":  2*3_345_408 + 4096,
		}},
		{"E2B", 30, map[string]uint64{
			"text":         2*4_456_156_768 + 30*(2*2048+512+2) + 8 + 33_554_432,
			"vision_tower": 2 * 294_126_912,
			"audio_tower":  2*681_348_640 + 40_560,
			"embed_vision": 2*4_460_544 + 4096,
			"embed_audio":  2*3_345_408 + 4096,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := gemma3nCorpus(t, tt.name)
			if diff := cmp.Diff(tt.want, gemma3nGroups(a, Whole(a, 1, 2, a.Quant))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// The buffer vLLM allocates by max_num_batched_tokens: 8192 x
			// L x 256 x 2 B.
			sh := Whole(a, 1, 2, a.Quant)
			sh.BatchedTokens = 8192
			if got, want := gemma3nGroups(a, sh)["per_layer_embeddings"], 8192*tt.layers*256*2; got != want {
				t.Errorf("per_layer_embeddings at 8192 tokens: %d B, want %d", got, want)
			}
			// A modality the engine serves none of: neither its tower nor
			// its embedder.
			for _, off := range []struct {
				bit  Modalities
				gone []string
			}{{ImageInput, []string{"vision_tower", "embed_vision"}}, {AudioInput, []string{"audio_tower", "embed_audio"}}} {
				sh := Whole(a, 1, 2, a.Quant)
				sh.TowersOff = off.bit
				want := maps.Clone(tt.want)
				for _, g := range off.gone {
					delete(want, g)
				}
				if diff := cmp.Diff(want, gemma3nGroups(a, sh)); diff != "" {
					t.Errorf("towers off %b (-want +got):\n%s", off.bit, diff)
				}
			}
			if !a.SizedByBatchedTokens() {
				t.Error("SizedByBatchedTokens false for Gemma3nForConditionalGeneration")
			}
		})
	}
}

// TestGemma3nWeightsTP2: at tensor parallelism 2 the vocabulary-parallel
// tables and column-parallel projections halve, the replicated AltUp,
// per-layer gate and projection stay whole, and so do the towers; the
// embedders' projections are row-parallel. E4B, bfloat16.
func TestGemma3nWeightsTP2(t *testing.T) {
	a := gemma3nCorpus(t, "E4B")
	got := map[string]uint64{}
	for _, it := range Weights(a, Whole(a, 2, 2, a.Quant)) {
		got[it.Name] = it.Bytes
	}
	want := map[string]uint64{
		// 262,400 / 2 rows x 2048 x 2 B.
		"model.embed_tokens.weight": 131_200 * 2048 * 2,
		// 262,144 / 2 rows x 35 x 256 x 2 B.
		"model.embed_tokens_per_layer.weight": 131_072 * 8960 * 2,
		// Column-parallel: 8960 / 2 outputs of 2048.
		"model.per_layer_model_projection.weight": 4480 * 2048 * 2,
		// q 8 / 2 heads and k, v one of two heads each, of 256, x 2048.
		"model.layers.0.self_attn.qkv_proj.weight":     (4 + 2) * 256 * 2048 * 2,
		"model.layers.0.laurel.linear_left.weight":     32 * 2048 * 2,
		"model.layers.0.laurel.linear_right.weight":    2048 * 32 * 2,
		"model.layers.0.per_layer_input_gate.weight":   2048 * 256 * 2,
		"model.layers.0.altup.prediction_coefs.weight": 16 * 4 * 2,
		"model.layers.0.altup.correct_output_scale":    2048 * 4,
		"vision_tower.timm_model":                      294_126_912 * 2,
		// 1536 / 2 inputs x 2048.
		"embed_audio.embedding_projection.weight": 768 * 2048 * 2,
		// 128 rows (a multiple of 64) / 2 x 1536.
		"embed_audio.embedding.weight":                                   64 * 1536 * 2,
		"audio_tower.conformer.0.attention.attn.q_proj.weight":           1536 * 1536 * 2,
		"audio_tower.conformer.0.attention.attn.local_causal_valid_mask": 12 * 24,
	}
	sub := map[string]uint64{}
	for k := range want {
		sub[k] = got[k]
	}
	if diff := cmp.Diff(want, sub); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestGemma3nLayers: every 5th layer full, the rest sliding within 512;
// the last num_kv_shared_layers layers own no KV (gemma3n.py:347-379):
// E4B's 35 layers share from layer 20 on, E2B's 30 from layer 20 too.
// With fewer layers before them than the offset (two for a sliding layer,
// one for a full one) a layer keeps its own: five layers all shared
// leave every one its own cache; four shared leave layer 0 the first
// full layer's target (layer 4 shares, offset 1 reaches layer 0) and the
// sliding ones their own (offset 2 reaches -1).
func TestGemma3nLayers(t *testing.T) {
	layout := func(a *Arch) string {
		var b strings.Builder
		for _, l := range a.Layers {
			c := map[LayerKind]byte{SlidingAttention: 's', FullAttention: 'F'}[l.Kind]
			if l.SharesKV {
				c -= 'a' - 'A'
				if l.Kind == FullAttention {
					c = 'X'
				}
			}
			b.WriteByte(c)
		}
		return b.String()
	}
	small := func(shared int) *Arch {
		t.Helper()
		doc := `{"model_type": "gemma3n_text", "num_hidden_layers": 5, "intermediate_size": [64, 64, 64, 64, 64], "num_kv_shared_layers": ` +
			strconv.Itoa(shared) + `, "torch_dtype": "bfloat16"}`
		a, err := ParseConfig("small.json", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	tests := []struct {
		name string
		a    *Arch
		want string
	}{
		// s: sliding with its own KV, S: sliding sharing; F and X likewise.
		{"E4B", gemma3nCorpus(t, "E4B"), "ssssFssssFssssFssssF" + "SSSSXSSSSXSSSSX"},
		{"E2B", gemma3nCorpus(t, "E2B"), "ssssFssssFssssFssssF" + "SSSSXSSSSX"},
		{"5 of 5 shared", small(5), "ssssF"},
		{"4 of 5 shared", small(4), "ssssX"},
		{"3 of 5 shared", small(3), "ssSSX"},
	}
	for _, tt := range tests {
		if got := layout(tt.a); got != tt.want {
			t.Errorf("%s: layers %s, want %s", tt.name, got, tt.want)
		}
		if tt.a.SlidingWindow != 512 || !tt.a.NoPipeline || !tt.a.TiedEmbeddings {
			t.Errorf("%s: window %d, no pipeline %v, tied %v; want 512, true, true", tt.name, tt.a.SlidingWindow, tt.a.NoPipeline, tt.a.TiedEmbeddings)
		}
	}
}

// TestGemma3nDefaults: a config of Gemma3nConfig's keys alone is E4B
// (the classes' defaults, configuration_gemma3n.py): an empty text_config
// and no towers' configs weigh what the rebuilt E4B file weighs.
func TestGemma3nDefaults(t *testing.T) {
	a, err := ParseConfig("bare.json", []byte(`{"model_type": "gemma3n", "torch_dtype": "bfloat16", "text_config": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	e4b := gemma3nCorpus(t, "E4B")
	if diff := cmp.Diff(gemma3nGroups(e4b, Whole(e4b, 1, 2, e4b.Quant)), gemma3nGroups(a, Whole(a, 1, 2, a.Quant))); diff != "" {
		t.Errorf("defaults vs E4B (-E4B +defaults):\n%s", diff)
	}
}

// TestGemma3nRefusals: what vLLM would not build, or what membudget cannot
// size, is refused naming the key.
func TestGemma3nRefusals(t *testing.T) {
	base := func(edit func(root, text, vision, audio map[string]any)) []byte {
		root := map[string]any{"model_type": "gemma3n", "torch_dtype": "bfloat16"}
		text, vision, audio := map[string]any{}, map[string]any{}, map[string]any{}
		edit(root, text, vision, audio)
		root["text_config"], root["vision_config"], root["audio_config"] = text, vision, audio
		b, err := json.Marshal(root)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name, key string
		edit      func(root, text, vision, audio map[string]any)
	}{
		{"another activation", "text_config.hidden_activation", func(_, t, _, _ map[string]any) { t["hidden_activation"] = "silu" }},
		{"no corrected scale", "text_config.altup_correct_scale", func(_, t, _, _ map[string]any) { t["altup_correct_scale"] = false }},
		{"MLP widths short", "text_config.intermediate_size", func(_, t, _, _ map[string]any) { t["intermediate_size"] = []int{16384, 16384} }},
		{"chunked layers", "text_config.layer_types", func(_, t, _, _ map[string]any) {
			t["num_hidden_layers"], t["intermediate_size"], t["num_kv_shared_layers"] = 2, 64, 0
			t["layer_types"] = []string{"chunked_attention", "full_attention"}
			t["attention_chunk_size"] = 64
		}},
		{"too many shared", "text_config.num_kv_shared_layers", func(_, t, _, _ map[string]any) { t["num_kv_shared_layers"] = 36 }},
		{"another timm tower", "vision_config.architecture", func(_, _, v, _ map[string]any) { v["architecture"] = "mobilenetv4_conv_small" }},
		{"timm arguments", "vision_config.model_args", func(_, _, v, _ map[string]any) { v["model_args"] = map[string]any{"depth": 3} }},
		{"vision width", "vision_config.hidden_size", func(_, _, v, _ map[string]any) { v["hidden_size"] = 1024 }},
		{"three convolutions", "audio_config.sscp_conv_channel_size", func(_, _, _, a map[string]any) { a["sscp_conv_channel_size"] = []int{128, 32, 8} }},
		{"quantized", "quantization_config", func(r, _, _, _ map[string]any) {
			r["quantization_config"] = map[string]any{"quant_method": "fp8", "activation_scheme": "dynamic"}
		}},
		{"heads not dividing", "text_config.num_attention_heads", func(_, t, _, _ map[string]any) { t["num_attention_heads"] = 6 }},
		{"audio heads", "audio_config.hidden_size", func(_, _, _, a map[string]any) { a["conf_num_attention_heads"] = 7 }},
	}
	for _, tt := range tests {
		_, err := ParseConfig("bad.json", base(tt.edit))
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s: %v, want a ConfigError naming %s", tt.name, err, tt.key)
			continue
		}
		var keys []string
		for _, e := range unwrapAll(err) {
			if errors.As(e, &ce) {
				keys = append(keys, ce.Key)
			}
		}
		if !strings.Contains(strings.Join(keys, " "), tt.key) {
			t.Errorf("%s: keys %v (%v), want %s", tt.name, keys, err, tt.key)
		}
	}
}

// unwrapAll lists the errors a joined error holds.
func unwrapAll(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// TestGemma3nActivations: a token's live activations add the three other
// AltUp streams (3 x 2048) and the per-layer inputs (35 x 256) to a
// decoder's: 2 x 2048 + max(attention 2 x 8 x 256 + 2 x 2 x 256 = 5120,
// MLP 3 x 16,384 = 49,152) + 6144 + 8960 = 68,352 values, x 2 B = 136,704
// B on one rank of E4B.
func TestGemma3nActivations(t *testing.T) {
	if got := ActivationBytesPerToken(gemma3nCorpus(t, "E4B"), 1, 2); got != 136_704 {
		t.Errorf("E4B activations a token: %d B, want 136,704", got)
	}
}
