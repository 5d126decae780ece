package model

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

// mobileNetV5Header lists the tensors of timm's mobilenetv5_300m_enc, the
// vision tower of every Gemma 3n, under prefix, in bf16: its stem, the
// four stages of huggingface/pytorch-image-models
// timm/models/mobilenetv5.py's arch_def (_gen_mobilenet_v5 at aa4b585)
// and the multi-scale fusion adapter over the last two stages (640 + 1280
// channels into 2048). Blocks as timm's _efficientnet_blocks.py builds
// them: an edge residual's conv_exp, bn1, conv_pwl and bn2; a universal
// inverted residual's optional dw_start, pw_exp, optional dw_mid and
// pw_proj (each a conv and an RmsNorm2d "bn"), and its layer scale; a
// mobile attention's norm, query, key and value projections (key and
// value first down-sampled by a depthwise 3 x 3 and a norm where the
// stride is 2), output projection and layer scale. Mid channels are
// make_divisible(in x ratio, 8), exact for every ratio here.
func mobileNetV5Header(prefix string) []safetensors.Tensor {
	var ts []safetensors.Tensor
	add := func(name string, shape ...uint64) { ts = append(ts, bf16(prefix+name, shape...)) }
	convNorm := func(p string, in, out, k, groups uint64) {
		add(p+".conv.weight", out, in/groups, k, k)
		add(p+".bn.weight", out)
	}
	add("conv_stem.conv.weight", 64, 3, 3, 3)
	add("conv_stem.conv.bias", 64)
	add("conv_stem.bn.weight", 64)
	type block struct {
		kind               string // er, uir, mqa
		start, mid, out    uint64 // uir kernels (0: none); er kernel in start
		ratio10            uint64 // expansion ratio x 10
		heads, dim, stride uint64 // mqa
	}
	er := func(out uint64) block { return block{kind: "er", start: 3, out: out, ratio10: 40} }
	uir := func(start, mid, out, ratio10 uint64) block {
		return block{kind: "uir", start: start, mid: mid, out: out, ratio10: ratio10}
	}
	mqa := func(heads, dim, stride uint64) block {
		return block{kind: "mqa", heads: heads, dim: dim, stride: stride}
	}
	stages := [][]block{
		{er(128), er(128), er(128)},
		{uir(3, 5, 256, 60), uir(5, 0, 256, 40), uir(3, 0, 256, 40), uir(5, 0, 256, 40), uir(3, 0, 256, 40)},
		{uir(5, 5, 640, 60)},
		{uir(5, 5, 1280, 60)},
	}
	for range 7 {
		stages[2] = append(stages[2], uir(5, 0, 640, 40))
	}
	stages[2] = append(stages[2], uir(0, 0, 640, 10))
	for range 14 {
		stages[2] = append(stages[2], mqa(12, 64, 2), uir(0, 0, 640, 20))
	}
	for range 19 {
		stages[3] = append(stages[3], mqa(16, 96, 1), uir(0, 0, 1280, 20))
	}
	in := uint64(64)
	for s, stage := range stages {
		for b, k := range stage {
			p := fmt.Sprintf("blocks.%d.%d.", s, b)
			switch k.kind {
			case "er":
				mid := in * k.ratio10 / 10
				add(p+"conv_exp.weight", mid, in, k.start, k.start)
				add(p+"bn1.weight", mid)
				add(p+"conv_pwl.weight", k.out, mid, 1, 1)
				add(p+"bn2.weight", k.out)
				in = k.out
			case "uir":
				if k.start != 0 {
					convNorm(p+"dw_start", in, in, k.start, in)
				}
				mid := in * k.ratio10 / 10
				convNorm(p+"pw_exp", in, mid, 1, 1)
				if k.mid != 0 {
					convNorm(p+"dw_mid", mid, mid, k.mid, mid)
				}
				convNorm(p+"pw_proj", mid, k.out, 1, 1)
				add(p+"layer_scale.gamma", k.out)
				in = k.out
			case "mqa":
				add(p+"norm.weight", in)
				add(p+"attn.query.proj.weight", k.heads*k.dim, in, 1, 1)
				for _, kv := range []string{"key", "value"} {
					if k.stride > 1 {
						add(p+"attn."+kv+".down_conv.weight", in, 1, 3, 3)
						add(p+"attn."+kv+".norm.weight", in)
					}
					add(p+"attn."+kv+".proj.weight", k.dim, in, 1, 1)
				}
				add(p+"attn.output.proj.weight", in, k.heads*k.dim, 1, 1)
				add(p+"layer_scale.gamma", in)
			}
		}
	}
	convNorm("msfa.ffn.pw_exp", 1920, 3840, 1, 1)
	convNorm("msfa.ffn.pw_proj", 3840, 2048, 1, 1)
	add("msfa.norm.weight", 2048)
	return ts
}

// gemma3nHeader is a Gemma 3n checkpoint's header in transformers' names
// (modeling_gemma3n.py since v4.53: model.language_model, vision_tower,
// audio_tower, embed_vision, embed_audio; the head tied, so no lm_head),
// all bf16, for its corpus config: layers text layers with an MLP of
// inter. Saved are the parameters, not the buffers transformers registers
// non-persistent (the weightless v_norm and embedding_post_projection_norm,
// the AltUp router_input_scale, the audio attention's q_scale, softcap and
// local_causal_valid_mask, the relative position embedding's
// inv_timescales, the conformer's gradient_clipping and post_layer_scale,
// the embedding scales).
func gemma3nHeader(name string, layers, inter uint64) func() (string, []safetensors.Tensor) {
	return func() (string, []safetensors.Tensor) {
		data, err := os.ReadFile("../corpus/models/" + name + ".json")
		if err != nil {
			panic(err)
		}
		const (
			H, V, VL, P, KV, HD, NH, R = 2048, 262400, 262144, 256, 2, 256, 8, 64
			A, AF, AH                  = 1536, 6144, 8 // audio width, feed-forward, heads
		)
		var ts []safetensors.Tensor
		add := func(name string, shape ...uint64) { ts = append(ts, bf16(name, shape...)) }
		t := "model.language_model."
		add(t+"embed_tokens.weight", V, H)
		add(t+"embed_tokens_per_layer.weight", VL, layers*P)
		add(t+"per_layer_model_projection.weight", layers*P, H)
		add(t+"per_layer_projection_norm.weight", P)
		for i := range 3 {
			add(fmt.Sprintf("%saltup_projections.%d.weight", t, i), H, H)
			add(fmt.Sprintf("%saltup_unembed_projections.%d.weight", t, i), H, H)
		}
		add(t+"norm.weight", H)
		for l := range layers {
			p := fmt.Sprintf("%slayers.%d.", t, l)
			add(p+"self_attn.q_proj.weight", NH*HD, H)
			add(p+"self_attn.k_proj.weight", KV*HD, H)
			add(p+"self_attn.v_proj.weight", KV*HD, H)
			add(p+"self_attn.o_proj.weight", H, NH*HD)
			add(p+"self_attn.q_norm.weight", HD)
			add(p+"self_attn.k_norm.weight", HD)
			add(p+"mlp.gate_proj.weight", inter, H)
			add(p+"mlp.up_proj.weight", inter, H)
			add(p+"mlp.down_proj.weight", H, inter)
			add(p+"laurel.linear_left.weight", R, H)
			add(p+"laurel.linear_right.weight", H, R)
			add(p+"laurel.post_laurel_norm.weight", H)
			add(p+"altup.correction_coefs.weight", 4, 4)
			add(p+"altup.prediction_coefs.weight", 16, 4)
			add(p+"altup.modality_router.weight", 4, H)
			add(p+"altup.router_norm.weight", H)
			add(p+"altup.correct_output_scale", H)
			add(p+"per_layer_input_gate.weight", P, H)
			add(p+"per_layer_projection.weight", H, P)
			for _, n := range []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm", "post_per_layer_input_norm"} {
				add(p+n+".weight", H)
			}
		}
		ts = append(ts, mobileNetV5Header("model.vision_tower.timm_model.")...)
		a := "model.audio_tower."
		// The subsampler: two 3 x 3 convolutions of 128 and 32 channels
		// over the 128 mel bins (-> 64 -> 32), then 32 x 32 = 1024 inputs
		// projected to the conformer's 1536.
		add(a+"subsample_conv_projection.conv_0.conv.weight", 128, 1, 3, 3)
		add(a+"subsample_conv_projection.conv_0.norm.weight", 128)
		add(a+"subsample_conv_projection.conv_1.conv.weight", 32, 128, 3, 3)
		add(a+"subsample_conv_projection.conv_1.norm.weight", 32)
		add(a+"subsample_conv_projection.input_proj_linear.weight", A, 1024)
		for b := range 12 {
			p := fmt.Sprintf("%sconformer.%d.", a, b)
			for _, f := range []string{"ffw_layer_start.", "ffw_layer_end."} {
				add(p+f+"pre_layer_norm.weight", A)
				add(p+f+"ffw_layer_1.weight", AF, A)
				add(p+f+"ffw_layer_2.weight", A, AF)
				add(p+f+"post_layer_norm.weight", A)
			}
			add(p+"attention.pre_attn_norm.weight", A)
			add(p+"attention.attn.per_dim_scale", A/AH)
			add(p+"attention.attn.relative_position_embedding.pos_proj.weight", A, A)
			for _, q := range []string{"q_proj", "k_proj", "v_proj"} {
				add(p+"attention.attn."+q+".weight", A, A)
			}
			add(p+"attention.post.weight", A, A)
			add(p+"attention.post_norm.weight", A)
			add(p+"lconv1d.pre_layer_norm.weight", A)
			add(p+"lconv1d.linear_start.weight", 2*A, A)
			add(p+"lconv1d.depthwise_conv1d.weight", A, 1, 5)
			add(p+"lconv1d.conv_norm.weight", A)
			add(p+"lconv1d.linear_end.weight", A, A)
			add(p+"norm.weight", A)
		}
		// The embedders: 128 soft tokens of each tower's width, two norms
		// and the projection into the text's 2048.
		for _, e := range []struct {
			name  string
			width uint64
		}{{"embed_vision.", H}, {"embed_audio.", A}} {
			p := "model." + e.name
			add(p+"embedding.weight", 128, e.width)
			add(p+"hard_embedding_norm.weight", e.width)
			add(p+"soft_embedding_norm.weight", e.width)
			add(p+"embedding_projection.weight", H, e.width)
		}
		return string(data), ts
	}
}

// gemma3nLoaded maps a Gemma 3n checkpoint tensor to the vLLM parameter it
// loads into and the bytes it holds there in bf16: gemma3n_mm.py's
// hf_to_vllm_mapper (jsboige/vllm ffd91ee, lines 536-548) moves
// model.language_model. under the language model (named model. here, as
// the family names it), the towers and embedders to the top;
// packed_modules_mapping fuses q, k and v into qkv_proj and gate and up
// into gate_up_proj; the timm tower is one module (AutoModel.from_config,
// :561); gemma3n.py:120-121 makes correct_output_scale a float32
// parameter. vLLM skips none of them: ok is always true.
func gemma3nLoaded(x safetensors.Tensor) (string, uint64, bool) {
	name, n := x.Name, headerBytes(x)
	switch {
	case strings.HasPrefix(name, "model.vision_tower.timm_model."):
		return "vision_tower.timm_model", n, true
	case strings.HasPrefix(name, "model.language_model."):
		name = "model." + strings.TrimPrefix(name, "model.language_model.")
	default:
		name = strings.TrimPrefix(name, "model.")
	}
	for _, r := range [][2]string{
		{".q_proj.", ".qkv_proj."}, {".k_proj.", ".qkv_proj."}, {".v_proj.", ".qkv_proj."},
		{".gate_proj.", ".gate_up_proj."}, {".up_proj.", ".gate_up_proj."},
	} {
		if strings.HasPrefix(name, "model.layers.") {
			name = strings.Replace(name, r[0], r[1], 1)
		}
	}
	if strings.HasSuffix(name, ".altup.correct_output_scale") {
		n *= 2
	}
	return name, n, true
}

// gemma3nBuffers are what vLLM holds of Gemma 3n that no checkpoint does,
// in bytes, for layers text layers: four bf16 scalars of the text model
// (embed_scale, embed_scale_per_layer, per_layer_input_scale,
// per_layer_projection_scale); a layer's weightless v_norm (256 x 2) and
// AltUp router_input_scale (2); the two rotary tables, 32,768 positions x
// 256 x 2 B each; an audio block's five gradient_clipping and two
// post_layer_scale scalars, q_scale (2), the float32 softcap (4), the
// float32 inv_timescales 768 x 4 and the 12 x 24 boolean
// local_causal_valid_mask; each embedder's weightless
// embedding_post_projection_norm, 2048 x 2 B.
func gemma3nBuffers(layers int) map[string]uint64 {
	m := map[string]uint64{
		"model.embed_scale": 2, "model.embed_scale_per_layer": 2, "model.per_layer_input_scale": 2, "model.per_layer_projection_scale": 2,
		"rotary_emb.rotary_emb.cos_sin_cache": 32768 * 256 * 2, "rotary_emb.rotary_emb_local.cos_sin_cache": 32768 * 256 * 2,
		"embed_vision.embedding_post_projection_norm.weight": 4096, "embed_audio.embedding_post_projection_norm.weight": 4096,
	}
	for l := range layers {
		p := fmt.Sprintf("model.layers.%d.", l)
		m[p+"self_attn.v_norm.weight"] = 512
		m[p+"altup.router_input_scale"] = 2
	}
	for b := range 12 {
		p := fmt.Sprintf("audio_tower.conformer.%d.", b)
		for _, s := range []string{"ffw_layer_start.gradient_clipping", "ffw_layer_start.post_layer_scale", "ffw_layer_end.gradient_clipping",
			"ffw_layer_end.post_layer_scale", "attention.gradient_clipping", "lconv1d.gradient_clipping", "gradient_clipping", "attention.attn.q_scale"} {
			m[p+s] = 2
		}
		m[p+"attention.attn.softcap"] = 4
		m[p+"attention.attn.relative_position_embedding.inv_timescales"] = 768 * 4
		m[p+"attention.attn.local_causal_valid_mask"] = 12 * 24
	}
	return m
}

// TestGemma3nHeader: Gemma 3n's checkpoints, rebuilt in transformers'
// names, loaded as vLLM loads them and with the buffers no checkpoint
// holds, are the family's weights from config parameter by parameter. E2B's
// published index lists 1,556 tensors (a stored survey that read the
// index of google/gemma-3n-E2B-it in a local Hugging Face cache: index
// file id 62991370286): 30 layers of 24, 11 outside them, the audio tower's
// 5 + 12 x 22, the two embedders' 4 each and the vision tower's 548. The
// tower's bytes are compared whole, as vLLM builds it (one timm module).
func TestGemma3nHeader(t *testing.T) {
	tests := []struct {
		name    string
		layers  uint64
		inter   uint64
		tensors int
	}{
		{"google__gemma-3n-E2B-it", 30, 8192, 1556},
		{"google__gemma-3n-E4B-it", 35, 16384, 1556 + 5*24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fixture := gemma3nHeader(tt.name, tt.layers, tt.inter)
			_, ts := fixture()
			checkHeaderNames(t, ts, tt.tensors)
			checkLoadedHeader(t, fixture, gemma3nLoaded, gemma3nBuffers(int(tt.layers)))
		})
	}
}
