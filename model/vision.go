package model

import (
	"fmt"

	"membudget/budget"
)

// check reports a tower no model has.
func (v *VisionTower) check(o jsonObject) {
	bad := v.Hidden == 0 || v.Layers == 0 || v.PatchSize == 0 || v.Heads == 0 || v.Hidden%v.Heads != 0 ||
		v.Hidden > 1<<16 || v.Intermediate > 1<<18 || v.Layers > 1<<10 || v.PatchSize > 1<<10 || v.Channels > 16 ||
		v.TemporalPatch > 16 || v.SpatialMerge > 16 || v.OutHidden > 1<<20 || v.PositionEmbeddings > 1<<20 ||
		v.Deepstack > v.Layers || v.PositionFrames > 1<<10 || v.ProjectorIn > 1<<20 || v.ProjectorOut > 1<<20
	if (v.Kind == "siglip" || v.Kind == "pixtral" || v.Kind == "llama4" || v.Kind == "clip" || v.Kind == "llava_siglip" || v.Kind == "llava_pixtral" || v.Kind == "intern_vit" || v.Kind == "llava_onevision" || v.Kind == "paligemma" || v.Kind == "idefics3" || v.Kind == "llava_next_video" || v.Kind == "glm4v") && (v.ImageSize < v.PatchSize || v.ImageSize > 1<<14) {
		bad = true
	}
	if v.Kind == "mobilenetv5" {
		// Gemma 3n's timm tower has no layers, heads or patches of a ViT:
		// its width is all the config gives.
		bad = v.Hidden == 0 || v.Hidden > 1<<16
	}
	if bad {
		o.fail("vision_config", "implausible vision tower %+v", *v)
	}
}

// vision adds the vision tower and projector of a multimodal model on the
// first stage, as the family that registered its kind builds them
// (registerVisionTower). vLLM divides their attention and MLPs among the
// ranks as it does the language model's; which ones take the quantization
// config is the family's (Qwen's and Pixtral's do, qwen2_5_vl.py:1362-1367,
// qwen3_vl.py:1803-1809, mistral3.py:420-436; SigLIP's and Llama 4's do
// not).
//
// A tower the engine does not build (Sharding.TowersOff has ImageInput)
// is left out with its projector; Phi-4-multimodal's builder leaves out
// its image encoder and its audio encoder each by its own bit.
func (w *weights) vision(v *VisionTower) {
	if w.sh.TowersOff&ImageInput != 0 && v.Kind != "phi4mm" {
		return
	}
	if build, ok := visionTowers[v.Kind]; ok {
		if w.sh.TowerWhole {
			// Every linear layer of the tower whole: as at one rank.
			tp := w.tp
			w.tp = 1
			defer func() { w.tp = tp }()
		}
		build(w, v)
	}
}

// towerLinear adds a tower's linear layer, quantized when quantized is.
func (w *weights) towerLinear(module string, in, out uint64, s split, bias, quantized bool) {
	if quantized {
		w.linear(module, in, out, s, bias, linearMod)
		return
	}
	w.unquantized(module, in, out, s, bias)
}

// idefics2Encoder adds, under p, the embeddings and layers vLLM's
// Idefics2 and SigLIP towers build alike (idefics2_vision_model.py:47-76,
// 123-402; siglip.py:281-520): a biased Conv2d patch embedding, a learned
// table of (image/patch)^2 positions, then each layer's fused qkv_proj and
// fc1 divided by columns and out_proj and fc2 by rows, all biased, the
// attention quantized where quantAttn is and the MLP where quantMLP is,
// and two LayerNorms. It returns the positions.
func (w *weights) idefics2Encoder(p string, v *VisionTower, quantAttn, quantMLP bool) (positions uint64) {
	h := v.Hidden
	side := v.ImageSize / v.PatchSize
	positions = budget.SatMul(side, side)
	w.add(p+"embeddings.patch_embedding.weight", bytesOf(budget.SatMul(h*v.Channels, v.PatchSize*v.PatchSize), w.dt))
	w.add(p+"embeddings.patch_embedding.bias", bytesOf(h, w.dt))
	w.add(p+"embeddings.position_embedding.weight", bytesOf(budget.SatMul(positions, h), w.dt))
	w.clipLayers(p, v, quantAttn, quantMLP)
	return positions
}

// clipLayers adds, under p, the encoder layers vLLM's CLIP, SigLIP and
// Idefics2 towers build alike (clip.py, siglip.py,
// idefics2_vision_model.py): each layer's fused qkv_proj and fc1 divided
// by columns and out_proj and fc2 by rows, all biased, the attention
// quantized where quantAttn is and the MLP where quantMLP is, and two
// LayerNorms.
func (w *weights) clipLayers(p string, v *VisionTower, quantAttn, quantMLP bool) {
	h := v.Hidden
	for i := range v.Layers {
		lp := fmt.Sprintf("%sencoder.layers.%d.", p, i)
		w.towerLinear(lp+"self_attn.qkv_proj", h, 3*h, column, true, quantAttn)
		w.towerLinear(lp+"self_attn.out_proj", h, h, row, true, quantAttn)
		w.towerLinear(lp+"mlp.fc1", h, v.Intermediate, column, true, quantMLP)
		w.towerLinear(lp+"mlp.fc2", v.Intermediate, h, row, true, quantMLP)
		w.layerNorm(lp+"layer_norm1", h)
		w.layerNorm(lp+"layer_norm2", h)
	}
}

func (w *weights) layerNorm(name string, size uint64) {
	w.add(name+".weight", bytesOf(size, w.dt))
	w.add(name+".bias", bytesOf(size, w.dt))
}

// qwenVisionRope is the Qwen towers' rotary table: 8192 positions of half
// a head (qwen2_5_vl.py:669-674, qwen3_vl.py:615-620).
func (w *weights) qwenVisionRope(v *VisionTower) {
	hd := v.Hidden / v.Heads
	w.add("rotary_emb.visual.cos_sin_cache", bytesOf(budget.SatMul(8192, hd/2), w.dt))
}
