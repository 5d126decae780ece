package model

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

// phi4MMHeader is microsoft/Phi-4-multimodal-instruct's checkpoint header,
// rebuilt in the names of its remote code (the published
// modeling_phi4mm.py and its speech and SigLIP modules, as vLLM's
// phi4mm.py, phi4mm_audio.py and idefics2_vision_model.py name the same
// modules, and transformers' convert_phi4_multimodal_weights_to_hf.py
// reads them: base_layer and lora_* beside every adapted linear,
// feed_forward_*.net.0.linear and net.2, self_attn.linear_q/k/v/out) with
// shapes from its config, all bf16. The language model is Phi-4-mini with
// the head tied (no lm_head); every layer's qkv_proj, o_proj, gate_up_proj
// and down_proj hold the base weight and the vision (rank 256) and speech
// (rank 320) LoRA adapters. The image encoder is SigLIP-so400m whole: 27
// layers, post_layernorm and the attention-pooling head. The audio encoder
// keeps its mean/invstd normalizer as persistent buffers.
func phi4MMHeader() (string, []safetensors.Tensor) {
	data, err := os.ReadFile("../corpus/models/microsoft__Phi-4-multimodal-instruct.json")
	if err != nil {
		panic(err)
	}
	const (
		H, V, Q, KV, I, L = 3072, 200064, 3072, 1024, 8192, 32
		D, FF, M, CH      = 1024, 1536, 80, 1024 // audio width, feed-forward, mel bins, subsampler channels
		VW, VI, VL, VP    = 1152, 4304, 27, 1024 // SigLIP width, MLP, layers, positions (448 / 14)^2
	)
	var ts []safetensors.Tensor
	add := func(name string, shape ...uint64) { ts = append(ts, bf16(name, shape...)) }
	add("model.embed_tokens.weight", V, H)
	add("model.norm.weight", H)
	for l := range L {
		p := fmt.Sprintf("model.layers.%d.", l)
		add(p+"input_layernorm.weight", H)
		add(p+"post_attention_layernorm.weight", H)
		for _, m := range []struct {
			name    string
			out, in uint64
		}{{"self_attn.qkv_proj", Q + 2*KV, H}, {"self_attn.o_proj", H, Q}, {"mlp.gate_up_proj", 2 * I, H}, {"mlp.down_proj", H, I}} {
			add(p+m.name+".base_layer.weight", m.out, m.in)
			for _, lora := range []struct {
				name string
				r    uint64
			}{{"vision", 256}, {"speech", 320}} {
				add(p+m.name+".lora_A."+lora.name+".weight", lora.r, m.in)
				add(p+m.name+".lora_B."+lora.name+".weight", m.out, lora.r)
			}
		}
	}
	v := "model.embed_tokens_extend.image_embed."
	add(v+"img_processor.embeddings.patch_embedding.weight", VW, 3, 14, 14)
	add(v+"img_processor.embeddings.patch_embedding.bias", VW)
	add(v+"img_processor.embeddings.position_embedding.weight", VP, VW)
	for l := range VL {
		p := fmt.Sprintf("%simg_processor.encoder.layers.%d.", v, l)
		for _, n := range []string{"q_proj", "k_proj", "v_proj", "out_proj"} {
			add(p+"self_attn."+n+".weight", VW, VW)
			add(p+"self_attn."+n+".bias", VW)
		}
		for _, n := range []string{"layer_norm1", "layer_norm2"} {
			add(p+n+".weight", VW)
			add(p+n+".bias", VW)
		}
		add(p+"mlp.fc1.weight", VI, VW)
		add(p+"mlp.fc1.bias", VI)
		add(p+"mlp.fc2.weight", VW, VI)
		add(p+"mlp.fc2.bias", VW)
	}
	add(v+"img_processor.post_layernorm.weight", VW)
	add(v+"img_processor.post_layernorm.bias", VW)
	h := v + "img_processor.head."
	add(h+"probe", 1, 1, VW)
	add(h+"attention.in_proj_weight", 3*VW, VW)
	add(h+"attention.in_proj_bias", 3*VW)
	add(h+"attention.out_proj.weight", VW, VW)
	add(h+"attention.out_proj.bias", VW)
	add(h+"layernorm.weight", VW)
	add(h+"layernorm.bias", VW)
	add(h+"mlp.fc1.weight", VI, VW)
	add(h+"mlp.fc1.bias", VI)
	add(h+"mlp.fc2.weight", VW, VI)
	add(h+"mlp.fc2.bias", VW)
	add(v+"glb_GN", 1, 1, VW)
	add(v+"sub_GN", 1, 1, 1, VW)
	add(v+"img_projection.0.weight", H, VW)
	add(v+"img_projection.0.bias", H)
	add(v+"img_projection.2.weight", H, H)
	add(v+"img_projection.2.bias", H)
	a := "model.embed_tokens_extend.audio_embed."
	e := a + "encoder."
	add(e+"encoder_embedding.global_mean", M)
	add(e+"encoder_embedding.global_invstd", M)
	// The NeMo subsampler: a 3 x 3 convolution from one channel, then
	// twice a depthwise 3 x 3 and a pointwise convolution (conv.0, 2, 3,
	// 5, 6; the others are activations), three halvings of the 80 mel
	// bins to 10, projected from 1024 x 10 to 1024.
	add(e+"embed.conv.0.weight", CH, 1, 3, 3)
	add(e+"embed.conv.0.bias", CH)
	for _, i := range []string{"2", "5"} {
		add(e+"embed.conv."+i+".weight", CH, 1, 3, 3)
		add(e+"embed.conv."+i+".bias", CH)
	}
	for _, i := range []string{"3", "6"} {
		add(e+"embed.conv."+i+".weight", CH, CH, 1, 1)
		add(e+"embed.conv."+i+".bias", CH)
	}
	add(e+"embed.out.weight", D, CH*10)
	add(e+"embed.out.bias", D)
	// The T5 relative bias: 2 x 500 buckets of 16 heads.
	add(e+"relative_attention_bias_layer.bias_values.weight", 1000, 16)
	for b := range 24 {
		p := fmt.Sprintf("%sencoders.%d.", e, b)
		for _, f := range []string{"feed_forward_in.", "feed_forward_out."} {
			add(p+f+"layer_norm.weight", D)
			add(p+f+"layer_norm.bias", D)
			add(p+f+"net.0.linear.weight", 2*FF, D)
			add(p+f+"net.0.linear.bias", 2*FF)
			add(p+f+"net.2.weight", D, FF)
			add(p+f+"net.2.bias", D)
		}
		for _, n := range []string{"linear_q", "linear_k", "linear_v", "linear_out"} {
			add(p+"self_attn."+n+".weight", D, D)
			add(p+"self_attn."+n+".bias", D)
		}
		add(p+"conv.layer_norm.weight", D)
		add(p+"conv.layer_norm.bias", D)
		add(p+"conv.ext_pw_conv_1d.weight", D, D, 1)
		add(p+"conv.ext_pw_conv_1d.bias", D)
		add(p+"conv.glu.ext_pw_conv_1d.weight", 2*D, D, 1)
		add(p+"conv.glu.ext_pw_conv_1d.bias", 2*D)
		add(p+"conv.glu.b1", 1, D, 1)
		add(p+"conv.glu.b2", 1, D, 1)
		add(p+"conv.dw_sep_conv_1d.dw_conv.weight", D, 1, 3)
		add(p+"conv.dw_sep_conv_1d.dw_conv.bias", D)
		add(p+"conv.dw_sep_conv_1d.pw_conv.weight", D, D, 1)
		add(p+"conv.dw_sep_conv_1d.pw_conv.bias", D)
		for _, n := range []string{"layer_norm_att", "layer_norm"} {
			add(p+n+".weight", D)
			add(p+n+".bias", D)
		}
	}
	for _, m := range []string{"speech", "vision"} {
		p := a + "audio_projection." + m + "."
		add(p+"0.weight", H, D)
		add(p+"0.bias", H)
		add(p+"2.weight", H, H)
		add(p+"2.bias", H)
	}
	return string(data), ts
}

// phi4MMLoaded maps a Phi-4-multimodal checkpoint tensor to the vLLM
// parameter it loads into (jsboige/vllm ffd91ee). phi4mm.py's
// hf_to_vllm_mapper (lines 1004-1014) strips "base_layer.", moves the
// image embedding to vision_encoder. and the audio embedding's encoder and
// projections under embed_tokens_extend.; its load_weights (1248-1250)
// skips every "lora" tensor. idefics2_vision_model.py's load_weights
// (464-483) skips the pooling head, post_layernorm (not required here)
// and the layers past the 26 the tower is built with (layer_idx -2), and
// stacks q, k and v into qkv_proj. ok is false for what vLLM skips.
func phi4MMLoaded(x safetensors.Tensor) (item string, bytes uint64, ok bool) {
	name := x.Name
	const img = "model.embed_tokens_extend.image_embed."
	const aud = "model.embed_tokens_extend.audio_embed."
	switch {
	case strings.Contains(name, ".lora_"):
		return "", 0, false
	case strings.HasPrefix(name, img+"img_processor.head."), strings.HasPrefix(name, img+"img_processor.post_layernorm."),
		strings.HasPrefix(name, img+"img_processor.encoder.layers.26."):
		return "", 0, false
	case strings.HasPrefix(name, img):
		name = "vision_encoder." + strings.TrimPrefix(name, img)
		for _, qkv := range []string{".q_proj.", ".k_proj.", ".v_proj."} {
			name = strings.Replace(name, qkv, ".qkv_proj.", 1)
		}
	case strings.HasPrefix(name, aud+"audio_projection.speech."):
		name = "embed_tokens_extend.audio_projection." + strings.TrimPrefix(name, aud+"audio_projection.speech.")
	case strings.HasPrefix(name, aud+"audio_projection.vision."):
		name = "embed_tokens_extend.audio_projection_for_vision." + strings.TrimPrefix(name, aud+"audio_projection.vision.")
	case strings.HasPrefix(name, aud):
		name = "embed_tokens_extend." + strings.TrimPrefix(name, aud)
	}
	return strings.Replace(name, "base_layer.", "", 1), headerBytes(x), true
}

// TestPhi4MMHeader: Phi-4-multimodal's checkpoint as vLLM loads it (the
// LoRA adapters, the SigLIP head, post_layernorm and last layer skipped)
// is the family's weights from config parameter by parameter, beside the
// buffers no checkpoint holds: the longrope cos/sin table, (4096 +
// 131,072) positions x 96 x 2 B; the audio encoder's sinusoid table, 5000
// x 1024 x 2 B; its dev_type scalar, 2 B. The checkpoint: 32 layers of 2
// norms and 4 adapted linears of 1 + 4 tensors, 2 outside them; SigLIP's 3
// embeddings, 27 layers of 16, 2 post-norm and 11 head tensors, the 2
// separators and 4 projection tensors; the conformer's 2 normalizer, 12
// subsampler and 1 bias-table tensors, 24 blocks of 36, the 2 x 4
// projection tensors: 706 + 454 + 887 = 2047 (no published count was
// found to hold it to).
func TestPhi4MMHeader(t *testing.T) {
	_, ts := phi4MMHeader()
	checkHeaderNames(t, ts, 2047)
	checkLoadedHeader(t, phi4MMHeader, phi4MMLoaded, map[string]uint64{
		"rotary_emb.rotary_emb.cos_sin_cache":    (4096 + 131072) * 96 * 2,
		"embed_tokens_extend.encoder.pos_emb.pe": 5000 * 1024 * 2,
		"embed_tokens_extend.encoder.dev_type":   2,
	})
}
