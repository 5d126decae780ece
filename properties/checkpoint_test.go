package properties

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine/vllm"
	"membudget/model"
	"membudget/model/modelgen"
	"membudget/model/safetensors"
)

// checkpointQuants are the quant_method values hfCheckpoint writes (fp8
// without static activation scales; MXFP4 for gpt-oss).
var checkpointQuants = map[string]bool{"fp8": true, "awq": true, "gptq": true, "mxfp4": true}

// notWritten are the model_types hfCheckpoint does not write, each with
// where its checkpoint is checked instead.
var notWritten = map[string]string{
	"granitemoehybrid": "graniteHybridFixture, model/family_hybrids_test.go",
	"falcon_h1":        "falconH1Fixture, model/family_hybrids_test.go",
	"jamba":            "jambaFixture, model/family_hybrids_test.go",
	"mamba":            "mambaFixture, model/family_hybrids_test.go",
	"mamba2":           "mamba2Fixture, model/family_hybrids_test.go",
	"falcon_mamba":     "falconMambaFixture, model/family_hybrids_test.go",
	// MiniCPM3's latent projections (q_a_proj, kv_a_proj_with_mqa, ...),
	// which hfCheckpoint does not name.
	"minicpm3": "TestMiniCPM3CheckpointByHand, model/family_minicpm3_test.go",
	// DBRX's flat stacked experts (ffn.experts.mlp.w1, v1, w2), which
	// hfCheckpoint does not name.
	"dbrx": "dbrxFixture, model/families_i23_text3_test.go",
	// Hunyuan MoE's router (mlp.gate.wg) and shared expert (shared_mlp),
	// which hfCheckpoint does not name.
	"hunyuan_v1_moe": "hunyuanMoEFixture, model/families_i23_text3_test.go",
	// TeleChat2's query, key_value and dense under transformer.h, which
	// hfCheckpoint does not name.
	"telechat": "teleChat2Fixture, model/family_telechat2_test.go",
	// DeciLM's blocks without attention or FFN, and FFNs of their own
	// widths, which hfCheckpoint does not write.
	"nemotron-nas": "nemotronNASFixture, model/family_nemotron_nas_test.go",
	// Apertus's ungated up_proj, XIELU's act_fn scalars and its
	// attention_layernorm and feedforward_layernorm, which hfCheckpoint
	// does not name.
	"apertus": "apertusFixture, model/family_apertus_test.go",
}

// genCheckpointConfig draws a config of every model_type modelgen draws
// (Llama's attention and MLP biases, DeepSeek's MTP layers and
// IndexCache's layers among them) whose quantization hfCheckpoint writes,
// but those notWritten.
func genCheckpointConfig() *rapid.Generator[map[string]any] {
	return modelgen.Config().Filter(func(c map[string]any) bool {
		if mt, _ := c["model_type"].(string); notWritten[mt] != "" {
			return false
		}
		if mt, _ := c["model_type"].(string); slices.Contains(model.ConfigOnlyModelTypes(), mt) {
			return false // the encoders' weights come from config.json alone
		}
		q, _ := c["quantization_config"].(map[string]any)
		if q == nil {
			q, _ = textConfig(c)["quantization_config"].(map[string]any)
		}
		return q == nil || checkpointQuants[q["quant_method"].(string)] && q["activation_scheme"] != "static"
	})
}

// textConfig is the language model's keys of a drawn config.
func textConfig(cfg map[string]any) map[string]any {
	if text, ok := cfg["text_config"].(map[string]any); ok {
		return text
	}
	return cfg
}

// vllmRefuses says why vLLM would not load a at tensor parallelism tp (with
// expert parallelism when ep), or "" when it loads: heads, KV heads and
// intermediate sizes must divide among the ranks (layers/linear.py divide,
// QKVParallelLinear), so must the delta net's and Mamba's heads and the
// towers' widths, packed int4 outputs of every shard by 8, and fp8 blocks
// of 128 must divide every shard of a fused module but the last
// (quantization/utils/fp8_utils.py validate_fp8_block_shape) and the
// inputs of a row-parallel one. Only loadable shardings are compared: for
// the others the two ways of counting need not agree, and vLLM never
// holds them.
func vllmRefuses(a *model.Arch, tp uint64, ep bool) string {
	if a.ModelType == "phi" && a.TiedEmbeddings {
		return "Phi's head has a bias: phi.py:280 asserts untied embeddings"
	}
	if a.Heads%tp != 0 {
		return "heads"
	}
	if !a.MLA && a.KVHeads%tp != 0 && tp%a.KVHeads != 0 {
		return "kv heads"
	}
	if !layerShapesDivide(a, tp) {
		return "per-layer KV heads, delta-net or Mamba heads"
	}
	dense, moe := layerMLPs(a)
	if dense && a.Intermediate%tp != 0 || moe && !ep && a.MoEIntermediate%tp != 0 || a.SharedIntermediate%tp != 0 {
		return "intermediate"
	}
	if v := a.Vision; v != nil && (v.Heads%tp != 0 || v.Hidden%tp != 0 || v.Intermediate%tp != 0 || v.OutHidden%tp != 0 ||
		v.ProjectorIn%tp != 0 || (v.Hidden*v.SpatialMerge*v.SpatialMerge)%tp != 0) {
		return "vision tower"
	}
	if m := a.Mamba; m != nil && m.NGroups%tp != 0 && (a.Quant.Method == "awq" || a.Quant.Method == "gptq" || a.Quant.BlockN > 0) {
		// mamba_mixer2.py:343-420: with n_groups repeated up to the ranks
		// only in_proj's weight gets the loader that repeats them; its
		// packed or block-scaled tensors would not load.
		return "quantized Mamba in_proj with n_groups repeated"
	}
	if a.Quant.Method == "awq" || a.Quant.Method == "gptq" {
		// auto_awq.py, auto_gptq.py: every shard's outputs pack eight to
		// an int32 (pack_factor), and GPTQ's inputs too.
		for _, n := range shardOutputs(a, tp, ep) {
			if n%8 != 0 {
				return "packed int4: a shard's outputs do not pack by 8"
			}
		}
	}
	if a.Quant.Method == "fp8" && a.Quant.BlockN > 0 {
		n := a.Quant.BlockN
		for _, out := range shardOutputs(a, tp, ep) {
			if out%n != 0 {
				return "fp8 blocks: a shard's outputs"
			}
		}
		kvr := model.KVHeadsPerRank(a, tp)
		switch {
		case !a.MLA && ((a.Heads/tp*a.HeadDim)%n != 0 || (kvr*a.HeadDim)%n != 0):
			return "fp8 blocks: q or k shard"
		case a.MLA && a.QLoraRank%n != 0:
			return "fp8 blocks: fused_qkv_a_proj's q_a shard"
		}
	}
	return ""
}

// layerMLPs reports whether some layer has a dense MLP (Gemma 4's MoE
// layers keep theirs beside the experts) and whether some has experts.
func layerMLPs(a *model.Arch) (dense, moe bool) {
	for _, l := range a.Layers {
		dense, moe = dense || !l.MoE || strings.HasPrefix(a.ModelType, "gemma4"), moe || l.MoE
	}
	return dense, moe
}

// shardOutputs lists, for the checks of quantized layouts, the outputs one
// rank holds of each quantized linear shard and each row-parallel layer's
// inputs beyond the attention's (which vllmRefuses checks by head).
func shardOutputs(a *model.Arch, tp uint64, ep bool) []uint64 {
	var out []uint64
	dense, moe := layerMLPs(a)
	if dense && a.Intermediate > 0 {
		out = append(out, a.Intermediate/tp)
	}
	if moe {
		if ep {
			out = append(out, a.MoEIntermediate)
		} else {
			out = append(out, a.MoEIntermediate/tp)
		}
		if a.SharedIntermediate > 0 {
			out = append(out, a.SharedIntermediate/tp)
		}
	}
	if (a.ModelType == "qwen3_moe" || strings.HasPrefix(a.ModelType, "qwen3_vl_moe")) && a.Quant.Method != "fp8" {
		out = append(out, a.Experts) // Qwen3-MoE's router is quantized (Qwen3-VL-MoE's too)
	}
	if d := a.DeltaNet; d != nil {
		out = append(out, d.NumKeyHeads*d.KeyHeadDim/tp, d.NumValueHeads*d.ValueHeadDim/tp, d.NumValueHeads/tp)
	}
	if m := a.Mamba; m != nil {
		groups := m.NGroups
		if groups%tp != 0 {
			groups = (groups + tp - 1) / tp * tp
		}
		out = append(out, m.Intermediate/tp, groups*m.StateSize/tp, m.NumHeads/tp)
	}
	if ix := a.Indexer; ix != nil {
		out = append(out, ix.NumHeads*ix.HeadDim, a.QLoraRank)
	}
	if v := a.Vision; v != nil && v.Kind != "siglip" && v.Kind != "llama4" {
		merged := v.Hidden * v.SpatialMerge * v.SpatialMerge
		out = append(out, v.Hidden/tp, v.Intermediate/tp, merged/tp, v.OutHidden/tp)
	}
	if a.MLA {
		out = append(out, a.Heads*(a.QKNopeHeadDim+a.QKRopeHeadDim)/tp, a.Heads*(a.QKNopeHeadDim+a.VHeadDim)/tp, a.Heads*a.VHeadDim/tp)
	}
	return out
}

// configDeviates names a known deviation of the config-derived weights
// from vLLM's for a under sh, which the checkpoint's count does not share,
// or "" when there is none. Each is a bug to fix in the config path
// (model/weights.go, model/families.go); the property leaves those
// shardings out until it is fixed:
//
//   - GPTQ without act-order: quant.go gives every GPTQ linear layer
//     act-order (ActOrder: method == "gptq"), so a row-parallel layer keeps
//     its scales and zeros over the whole input on every rank; vLLM repeats
//     them only under act-order or per-channel scales
//     (vllm/model_executor/layers/quantization/utils/marlin_utils.py:440-446,
//     marlin_repeat_scales_on_all_ranks) and divides them otherwise.
func configDeviates(a *model.Arch, sh model.Sharding) string {
	if a.Quant.Method == "gptq" && !a.Quant.DescAct && a.Quant.GroupSize > 0 && sh.TP > 1 {
		return "GPTQ row-parallel scales without act-order"
	}
	return ""
}

// ckptWriter writes the tensor names, dtypes and shapes of a's checkpoint
// as Hugging Face's transformers names them (each family's modeling file,
// the published checkpoints' model.safetensors.index.json) and its
// quantizers store them: fp8 weights with an fp32 per-tensor weight_scale
// or per-block weight_scale_inv; AWQ qweight [in, out/8], qzeros, scales;
// GPTQ qweight [in/8, out], qzeros, scales, g_idx; gpt-oss's MXFP4 experts
// as blocks and scales. Routers, embeddings, norms, convolutions, the
// head and the towers vLLM never quantizes stay in the model dtype, as the
// published quantized checkpoints keep them.
type ckptWriter struct {
	a    *model.Arch
	q    model.Quant
	dt   string
	text map[string]any // the language model's config keys
	ts   []safetensors.Tensor
}

func (w *ckptWriter) add(name, dtype string, shape ...uint64) {
	w.ts = append(w.ts, safetensors.Tensor{Name: name, Dtype: dtype, Shape: shape})
}

// linear writes a linear layer in x out, quantized when quantizable and
// the checkpoint's method quantizes linear layers (MXFP4 does not).
func (w *ckptWriter) linear(m string, in, out uint64, bias, quantizable bool) {
	q := w.q
	switch {
	case !quantizable || q.Method == "" || q.Method == "mxfp4":
		w.add(m+".weight", w.dt, out, in)
	case q.Method == "fp8" && q.BlockN > 0:
		w.add(m+".weight", "F8_E4M3", out, in)
		w.add(m+".weight_scale_inv", "F32", budget.CeilDiv(out, q.BlockN), budget.CeilDiv(in, q.BlockK))
	case q.Method == "fp8":
		w.add(m+".weight", "F8_E4M3", out, in)
		w.add(m+".weight_scale", "F32")
	case q.Method == "awq":
		w.add(m+".qweight", "I32", in, out/8)
		w.add(m+".qzeros", "I32", budget.CeilDiv(in, q.GroupSize), out/8)
		w.add(m+".scales", "F16", budget.CeilDiv(in, q.GroupSize), out)
	case q.Method == "gptq":
		w.add(m+".qweight", "I32", in/8, out)
		w.add(m+".qzeros", "I32", budget.CeilDiv(in, q.GroupSize), out/8)
		w.add(m+".scales", "F16", budget.CeilDiv(in, q.GroupSize), out)
		w.add(m+".g_idx", "I32", in)
	}
	if bias {
		w.add(m+".bias", w.dt, out)
	}
}

func (w *ckptWriter) norm(m string, size uint64) { w.add(m+".weight", w.dt, size) }

// layerNorm is an nn.LayerNorm: weight and bias.
func (w *ckptWriter) layerNorm(m string, size uint64) {
	w.add(m+".weight", w.dt, size)
	w.add(m+".bias", w.dt, size)
}

// mptNorm is MPT's LayerNorm: with its bias unless no_bias dropped it.
func (w *ckptWriter) mptNorm(m string, size uint64) {
	if w.a.AttnBias {
		w.layerNorm(m, size)
		return
	}
	w.norm(m, size)
}

// mlp writes a gated MLP of inter at p in the language model.
func (w *ckptWriter) mlp(p string, inter uint64, gate, up, down string, bias bool) {
	w.gatedMLP(p, w.a.Hidden, inter, gate, up, down, bias)
}

// gatedMLP writes a gated MLP from hidden to inter and back at p.
func (w *ckptWriter) gatedMLP(p string, hidden, inter uint64, gate, up, down string, bias bool) {
	w.linear(p+"."+gate, hidden, inter, bias, true)
	w.linear(p+"."+up, hidden, inter, bias, true)
	w.linear(p+"."+down, inter, hidden, bias, true)
}

// hfCheckpoint writes a's checkpoint; cfg is its config.json. newNames
// spells the multimodal wrappers' nested names as transformers 4.52 and
// later save them (model.language_model., model.visual.); rotary writes an
// old checkpoint's rotary inv_freq.
func hfCheckpoint(a *model.Arch, cfg map[string]any, newNames, rotary bool) []safetensors.Tensor {
	text := textConfig(cfg)
	w := &ckptWriter{a: a, q: a.Quant, dt: map[string]string{"bfloat16": "BF16", "float16": "F16", "float32": "F32"}[a.Dtype], text: text}
	lm, top := "model.", ""
	switch a.ModelType {
	case "gemma3", "mistral3", "llama4", "kimi_k25", "llava", "internvl_chat", "llava_onevision", "paligemma", "llava_next_video":
		lm, top = "language_model.model.", "language_model."
		if newNames && a.ModelType != "llama4" && a.ModelType != "kimi_k25" && a.ModelType != "internvl_chat" {
			lm, top = "model.language_model.", ""
		}
	case "qwen2_5_vl", "qwen2_vl":
		if newNames {
			lm = "model.language_model."
		}
	case "idefics3", "smolvlm":
		lm = "model.text_model." // Idefics3Model.text_model
	case "qwen3_vl", "qwen3_5", "qwen3_5_moe", "gemma4", "gemma4_text", "qwen3_vl_moe", "glm4v", "glm4v_moe":
		lm = "model.language_model."
	case "gpt_neox":
		lm, top = "gpt_neox.", "embed_out"
	case "exaone", "mpt", "gptj", "falcon":
		lm = "transformer."
	case "chatglm":
		lm = "transformer.encoder."
	case "bloom", "gpt2":
		lm = "" // bigscience's and openai-community's checkpoints, saved from the base model
		if newNames {
			lm = "transformer."
		}
	case "nemotron_h":
		lm = "backbone."
	case "opt":
		lm = "model.decoder."
		if newNames {
			lm = "decoder." // facebook/opt-125m's checkpoint, saved from OPTModel
		}
	}
	embed := lm + "embed_tokens.weight"
	switch a.ModelType {
	case "nemotron_h":
		embed = lm + "embeddings.weight"
	case "opt":
		embed = lm + "embed_tokens.weight"
	case "gpt_neox":
		embed = lm + "embed_in.weight"
	case "exaone", "mpt", "gptj", "gpt2":
		embed = lm + "wte.weight"
	case "falcon", "bloom":
		embed = lm + "word_embeddings.weight"
	case "chatglm":
		embed = "transformer.embedding.word_embeddings.weight"
	case "internlm2":
		embed = lm + "tok_embeddings.weight"
	}
	embedDim := a.Hidden
	if d, ok := text["word_embed_proj_dim"].(uint64); ok && a.ModelType == "opt" {
		embedDim = d
	}
	w.add(embed, w.dt, a.Vocab, embedDim)
	if a.ModelType == "bloom" {
		w.layerNorm(lm+"word_embeddings_layernorm", a.Hidden)
	}
	if a.ModelType == "gpt2" {
		w.add(lm+"wpe.weight", w.dt, a.MaxPosition, a.Hidden)
	}
	if a.ModelType == "opt" {
		w.add(lm+"embed_positions.weight", w.dt, a.MaxPosition+2, a.Hidden)
		if embedDim != a.Hidden {
			w.linear(lm+"project_in", embedDim, a.Hidden, false, true)
			w.linear(lm+"project_out", a.Hidden, embedDim, false, true)
		}
	}
	layers := uint64(len(a.Layers))
	extra := a.MTPLayers
	if a.ModelType == "qwen3_next" || strings.HasPrefix(a.ModelType, "qwen3_5") || a.ModelType == "nemotron_h" {
		extra = 0 // their MTP layers are mtp.*, written below
	}
	for i := range layers + extra {
		p := fmt.Sprintf("%slayers.%d.", lm, i)
		if a.ModelType == "exaone" || a.ModelType == "gptj" || a.ModelType == "falcon" || a.ModelType == "bloom" || a.ModelType == "gpt2" {
			p = fmt.Sprintf("%sh.%d.", lm, i)
		}
		if a.ModelType == "mpt" {
			p = fmt.Sprintf("%sblocks.%d.", lm, i)
		}
		if i >= layers {
			// DeepSeek's, GLM's and MiniMax's MTP layers: past
			// num_hidden_layers.
			w.norm(p+"enorm", a.Hidden)
			w.norm(p+"hnorm", a.Hidden)
			w.linear(p+"eh_proj", 2*a.Hidden, a.Hidden, false, true)
			w.norm(p+"shared_head.norm", a.Hidden)
			continue
		}
		w.layer(p, i, rotary)
	}
	switch a.ModelType {
	case "nemotron_h":
		w.norm(lm+"norm_f", a.Hidden)
	case "phi":
		w.layerNorm(lm+"final_layernorm", a.Hidden)
	case "phimoe", "stablelm", "stablelm_epoch", "orion", "nemotron", "jais2", "starcoder2":
		w.layerNorm(lm+"norm", a.Hidden)
	case "opt":
		w.layerNorm(lm+"final_layer_norm", a.Hidden)
	case "gpt_neox":
		w.layerNorm(lm+"final_layer_norm", a.Hidden)
	case "exaone":
		w.norm(lm+"ln_f", a.Hidden)
	case "mpt":
		w.mptNorm(lm+"norm_f", a.Hidden)
	case "gptj", "falcon", "bloom", "gpt2":
		w.layerNorm(lm+"ln_f", a.Hidden)
	case "chatglm":
		if post, ok := text["post_layer_norm"].(bool); !ok || post {
			w.norm(lm+"final_layernorm", a.Hidden)
		}
	default:
		w.norm(lm+"norm", a.Hidden)
	}
	switch {
	case a.TiedEmbeddings:
	case a.ModelType == "gpt_neox":
		w.add("embed_out.weight", w.dt, a.Vocab, embedDim)
	case a.ModelType == "internlm2":
		w.add("output.weight", w.dt, a.Vocab, embedDim)
	case a.ModelType == "chatglm":
		w.add("transformer.output_layer.weight", w.dt, a.Vocab, embedDim)
	default:
		w.add(top+"lm_head.weight", w.dt, a.Vocab, embedDim)
		if a.ModelType == "phi" || a.ModelType == "phimoe" || a.ModelType == "gptj" {
			w.add(top+"lm_head.bias", w.dt, a.Vocab)
		}
		if b, _ := text["lm_head_bias"].(bool); b && a.ModelType == "arcee" {
			w.add(top+"lm_head.bias", w.dt, a.Vocab)
		}
	}
	if a.MTPLayers > 0 && extra == 0 {
		// Qwen3-Next's, Qwen3.5's and Nemotron-H's MTP modules.
		w.norm("mtp.pre_fc_norm_embedding", a.Hidden)
		w.linear("mtp.fc", 2*a.Hidden, a.Hidden, false, true)
	}
	if v := a.Vision; v != nil {
		w.vision(v, newNames)
	}
	return w.ts
}

// layer writes decoder layer i at p.
func (w *ckptWriter) layer(p string, i uint64, rotary bool) {
	a := w.a
	l := a.Layers[i]
	hd, kv := a.HeadDim, a.KVHeads
	if l.HeadDim > 0 {
		hd = l.HeadDim
	}
	if l.KVHeads > 0 {
		kv = l.KVHeads
	}
	attn := "self_attn."
	if a.ModelType == "nemotron_h" {
		attn = "mixer."
	}
	switch {
	case l.Kind == model.NoMixer:
	case l.Kind == model.Mamba:
		w.mamba(p + "mixer.")
	case l.Kind == model.LinearAttention:
		w.deltaNet(p + "linear_attn.")
	case a.MLA:
		w.mla(p)
	case a.ModelType == "gpt_neox":
		// One query_key_value of every head's q, k and v (modeling_gpt_neox.py).
		w.linear(p+"attention.query_key_value", a.Hidden, 3*a.Heads*hd, a.AttnBias, true)
		w.linear(p+"attention.dense", a.Heads*hd, a.Hidden, a.OutBias, true)
	case a.ModelType == "falcon" || a.ModelType == "bloom" || a.ModelType == "chatglm":
		// One query_key_value of each KV group's q heads, k and v
		// (modeling_falcon.py, modeling_bloom.py), or of every q, then
		// every k and v (ChatGLM's modeling_chatglm.py).
		w.linear(p+"self_attention.query_key_value", a.Hidden, (a.Heads+2*kv)*hd, a.AttnBias, true)
		w.linear(p+"self_attention.dense", a.Heads*hd, a.Hidden, a.OutBias, true)
	case a.ModelType == "gpt2":
		// Conv1D weights are [in, out] (modeling_gpt2.py); the generator
		// draws no quantization for it.
		w.add(p+"attn.c_attn.weight", w.dt, a.Hidden, 3*a.Heads*hd)
		w.add(p+"attn.c_attn.bias", w.dt, 3*a.Heads*hd)
		w.add(p+"attn.c_proj.weight", w.dt, a.Heads*hd, a.Hidden)
		w.add(p+"attn.c_proj.bias", w.dt, a.Hidden)
	case a.ModelType == "gptj":
		for _, n := range []string{"q_proj", "k_proj", "v_proj", "out_proj"} {
			w.linear(p+"attn."+n, a.Hidden, a.Hidden, false, true)
		}
	case a.ModelType == "mpt":
		w.linear(p+"attn.Wqkv", a.Hidden, (a.Heads+2*kv)*hd, a.AttnBias, true)
		if a.QKNorm {
			w.mptNorm(p+"attn.q_ln", a.Hidden)
			w.mptNorm(p+"attn.k_ln", a.Hidden)
		}
		w.linear(p+"attn.out_proj", a.Heads*hd, a.Hidden, a.OutBias, true)
	case a.ModelType == "internlm2":
		// wqkv holds each KV group's q heads, k and v (modeling_internlm2.py).
		w.linear(p+"attention.wqkv", a.Hidden, (a.Heads+2*kv)*hd, false, true)
		w.linear(p+"attention.wo", a.Heads*hd, a.Hidden, false, true)
	case a.ModelType == "exaone":
		for _, n := range []string{"q_proj", "k_proj", "v_proj"} {
			out := kv * hd
			if n == "q_proj" {
				out = a.Heads * hd
			}
			w.linear(p+"attn.attention."+n, a.Hidden, out, a.AttnBias, true)
		}
		w.linear(p+"attn.attention.out_proj", a.Heads*hd, a.Hidden, a.OutBias, true)
	case a.FusedQKV:
		w.linear(p+"self_attn.qkv_proj", a.Hidden, (a.Heads+2*kv)*hd, a.AttnBias, true)
		w.linear(p+"self_attn.o_proj", a.Heads*hd, a.Hidden, false, true)
	default:
		q := a.Heads * hd
		if a.AttnOutputGate {
			q *= 2 // Qwen3-Next's q_proj holds the output gate too
		}
		w.linear(p+attn+"q_proj", a.Hidden, q, a.AttnBias, true)
		w.linear(p+attn+"k_proj", a.Hidden, kv*hd, a.AttnBias, true)
		// Gemma 4's global layers under attention_k_eq_v have no v_proj.
		if keqv, _ := w.text["attention_k_eq_v"].(bool); !(keqv && l.Kind == model.FullAttention && strings.HasPrefix(a.ModelType, "gemma4")) {
			w.linear(p+attn+"v_proj", a.Hidden, kv*hd, a.AttnBias, true)
		}
		out := "o_proj"
		switch a.ModelType {
		case "phi":
			out = "dense"
		case "opt":
			out = "out_proj"
		}
		// transformers LlamaAttention: o_proj's bias is attention_bias;
		// Qwen2's o_proj has none.
		w.linear(p+attn+out, a.Heads*hd, a.Hidden, a.OutBias, true)
		if a.ModelType == "gpt_oss" {
			w.add(p+"self_attn.sinks", w.dt, a.Heads)
		}
		if rotary {
			w.add(p+"self_attn.rotary_emb.inv_freq", "F32", a.RotaryDim/2)
		}
		switch {
		case a.ModelType == "olmo3", a.ModelType == "olmo2", a.ModelType == "minimax_m2", a.ModelType == "olmoe", a.ModelType == "flex_olmo":
			w.norm(p+"self_attn.q_norm", a.Heads*hd)
			w.norm(p+"self_attn.k_norm", kv*hd)
		case a.QKNorm && a.ModelType == "hunyuan_v1_dense":
			w.norm(p+"self_attn.query_layernorm", hd)
			w.norm(p+"self_attn.key_layernorm", hd)
		case a.QKNorm && strings.HasPrefix(a.ModelType, "cohere"):
			// Command R+'s q_norm [heads, head_dim] and k_norm [KV heads, head_dim].
			w.add(p+"self_attn.q_norm.weight", w.dt, a.Heads, hd)
			w.add(p+"self_attn.k_norm.weight", w.dt, kv, hd)
		case a.QKNorm:
			w.norm(p+"self_attn.q_norm", hd)
			w.norm(p+"self_attn.k_norm", hd)
		}
	}
	w.feedForward(p, l)
	switch a.ModelType {
	case "nemotron_h":
		w.norm(p+"norm", a.Hidden)
	case "phi":
		w.layerNorm(p+"input_layernorm", a.Hidden)
	case "phimoe", "stablelm", "stablelm_epoch", "orion", "nemotron", "jais2", "starcoder2":
		w.layerNorm(p+"input_layernorm", a.Hidden)
		w.layerNorm(p+"post_attention_layernorm", a.Hidden)
	case "opt":
		w.layerNorm(p+"self_attn_layer_norm", a.Hidden)
		w.layerNorm(p+"final_layer_norm", a.Hidden)
	case "olmo3", "olmo2", "exaone4", "flex_olmo":
		w.norm(p+"post_attention_layernorm", a.Hidden)
		w.norm(p+"post_feedforward_layernorm", a.Hidden)
	case "gpt_neox", "bloom":
		w.layerNorm(p+"input_layernorm", a.Hidden)
		w.layerNorm(p+"post_attention_layernorm", a.Hidden)
	case "gptj":
		w.layerNorm(p+"ln_1", a.Hidden)
	case "gpt2":
		w.layerNorm(p+"ln_1", a.Hidden)
		w.layerNorm(p+"ln_2", a.Hidden)
	case "falcon":
		// falcon.py:284-304: two norms are ln_attn and ln_mlp in parallel
		// attention, input_layernorm and post_attention_layernorm without.
		names := []string{"input_layernorm", "post_attention_layernorm"}
		if parallel, ok := w.text["parallel_attn"].(bool); (!ok || parallel) && a.NormsPerLayer == 2 {
			names = []string{"ln_attn", "ln_mlp"}
		}
		for _, n := range names[:a.NormsPerLayer] {
			w.layerNorm(p+n, a.Hidden)
		}
	case "mpt":
		w.mptNorm(p+"norm_1", a.Hidden)
		w.mptNorm(p+"norm_2", a.Hidden)
	case "internlm2":
		w.norm(p+"attention_norm", a.Hidden)
		w.norm(p+"ffn_norm", a.Hidden)
	case "exaone":
		w.norm(p+"ln_1", a.Hidden)
		w.norm(p+"ln_2", a.Hidden)
	case "glm4", "glm4v", "glm4v_text":
		for _, n := range []string{"input_layernorm", "post_attention_layernorm", "post_self_attn_layernorm", "post_mlp_layernorm"} {
			w.norm(p+n, a.Hidden)
		}
	case "hyperclovax":
		names := []string{"input_layernorm", "post_attention_layernorm", "post_norm1", "post_norm2"}
		for _, n := range names[:a.NormsPerLayer] {
			w.norm(p+n, a.Hidden)
		}
	default:
		names := []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm"}
		for _, n := range names[:a.NormsPerLayer] {
			w.norm(p+n, a.Hidden)
		}
	}
	if strings.HasPrefix(a.ModelType, "gemma4") {
		if l.MoE {
			for _, n := range []string{"post_feedforward_layernorm_1", "post_feedforward_layernorm_2", "pre_feedforward_layernorm_2"} {
				w.norm(p+n, a.Hidden)
			}
		}
		w.add(p+"layer_scalar", w.dt, 1)
	}
}

// feedForward writes layer l's MLP or MoE at p.
func (w *ckptWriter) feedForward(p string, l model.Layer) {
	a := w.a
	quantized := w.q.Method != "" && w.q.Method != "mxfp4"
	switch {
	case a.ModelType == "nemotron_h" && l.Kind != model.NoMixer:
	case a.ModelType == "nemotron_h" && l.MoE:
		w.add(p+"mixer.gate.weight", w.dt, a.Experts, a.Hidden)
		w.add(p+"mixer.gate.e_score_correction_bias", "F32", a.Experts)
		for e := range a.Experts {
			q := fmt.Sprintf("%smixer.experts.%d.", p, e)
			w.linear(q+"up_proj", a.Hidden, a.MoEIntermediate, false, true)
			w.linear(q+"down_proj", a.MoEIntermediate, a.Hidden, false, true)
		}
		if a.SharedIntermediate > 0 {
			w.linear(p+"mixer.shared_experts.up_proj", a.Hidden, a.SharedIntermediate, false, true)
			w.linear(p+"mixer.shared_experts.down_proj", a.SharedIntermediate, a.Hidden, false, true)
		}
	case a.ModelType == "nemotron_h":
		w.linear(p+"mixer.up_proj", a.Hidden, a.Intermediate, a.MLPBias, true)
		w.linear(p+"mixer.down_proj", a.Intermediate, a.Hidden, a.MLPBias, true)
	case a.ModelType == "phi":
		w.linear(p+"mlp.fc1", a.Hidden, a.Intermediate, true, true)
		w.linear(p+"mlp.fc2", a.Intermediate, a.Hidden, true, true)
	case a.ModelType == "starcoder2":
		w.linear(p+"mlp.c_fc", a.Hidden, a.Intermediate, a.MLPBias, true)
		w.linear(p+"mlp.c_proj", a.Intermediate, a.Hidden, a.MLPBias, true)
	case a.ModelType == "opt":
		w.linear(p+"fc1", a.Hidden, a.Intermediate, a.MLPBias, true)
		w.linear(p+"fc2", a.Intermediate, a.Hidden, a.MLPBias, true)
	case a.ModelType == "gpt_neox":
		w.linear(p+"mlp.dense_h_to_4h", a.Hidden, a.Intermediate, true, true)
		w.linear(p+"mlp.dense_4h_to_h", a.Intermediate, a.Hidden, true, true)
	case a.ModelType == "exaone":
		w.mlp(p+"mlp", a.Intermediate, "c_fc_0", "c_fc_1", "c_proj", a.MLPBias)
	case a.ModelType == "chatglm":
		w.linear(p+"mlp.dense_h_to_4h", a.Hidden, 2*a.Intermediate, a.MLPBias, true)
		w.linear(p+"mlp.dense_4h_to_h", a.Intermediate, a.Hidden, a.MLPBias, true)
	case a.ModelType == "gpt2":
		w.add(p+"mlp.c_fc.weight", w.dt, a.Hidden, a.Intermediate)
		w.add(p+"mlp.c_fc.bias", w.dt, a.Intermediate)
		w.add(p+"mlp.c_proj.weight", w.dt, a.Intermediate, a.Hidden)
		w.add(p+"mlp.c_proj.bias", w.dt, a.Hidden)
	case a.ModelType == "falcon" || a.ModelType == "bloom":
		w.linear(p+"mlp.dense_h_to_4h", a.Hidden, a.Intermediate, a.MLPBias, true)
		w.linear(p+"mlp.dense_4h_to_h", a.Intermediate, a.Hidden, a.MLPBias, true)
	case a.ModelType == "gptj":
		w.linear(p+"mlp.fc_in", a.Hidden, a.Intermediate, true, true)
		w.linear(p+"mlp.fc_out", a.Intermediate, a.Hidden, true, true)
	case a.ModelType == "mpt":
		w.linear(p+"ffn.up_proj", a.Hidden, a.Intermediate, a.MLPBias, true)
		w.linear(p+"ffn.down_proj", a.Intermediate, a.Hidden, a.MLPBias, true)
	case a.ModelType == "internlm2":
		w.mlp(p+"feed_forward", a.Intermediate, "w1", "w3", "w2", false)
	case a.ModelType == "arcee", a.ModelType == "nemotron", a.ModelType == "jais2":
		w.linear(p+"mlp.up_proj", a.Hidden, a.Intermediate, a.MLPBias, true)
		w.linear(p+"mlp.down_proj", a.Intermediate, a.Hidden, a.MLPBias, true)
	case strings.HasPrefix(a.ModelType, "granitemoe"):
		// ibm-granite's stacked experts and router.layer, and
		// GraniteMoeShared's shared_mlp (gate and up fused).
		w.add(p+"block_sparse_moe.router.layer.weight", w.dt, a.Experts, a.Hidden)
		w.add(p+"block_sparse_moe.input_linear.weight", w.dt, a.Experts, 2*a.MoEIntermediate, a.Hidden)
		w.add(p+"block_sparse_moe.output_linear.weight", w.dt, a.Experts, a.Hidden, a.MoEIntermediate)
		if a.SharedIntermediate > 0 {
			w.linear(p+"shared_mlp.input_linear", a.Hidden, 2*a.SharedIntermediate, false, true)
			w.linear(p+"shared_mlp.output_linear", a.SharedIntermediate, a.Hidden, false, true)
		}
	case a.ModelType == "gpt_oss":
		w.add(p+"mlp.router.weight", w.dt, a.Experts, a.Hidden)
		w.add(p+"mlp.router.bias", w.dt, a.Experts)
		e, h, i := a.Experts, a.Hidden, a.MoEIntermediate
		if w.q.Method == "mxfp4" {
			w.add(p+"mlp.experts.gate_up_proj_blocks", "U8", e, 2*i, h/32, 16)
			w.add(p+"mlp.experts.gate_up_proj_scales", "U8", e, 2*i, h/32)
			w.add(p+"mlp.experts.down_proj_blocks", "U8", e, h, i/32, 16)
			w.add(p+"mlp.experts.down_proj_scales", "U8", e, h, i/32)
		} else {
			w.add(p+"mlp.experts.gate_up_proj", w.dt, e, h, 2*i)
			w.add(p+"mlp.experts.down_proj", w.dt, e, i, h)
		}
		w.add(p+"mlp.experts.gate_up_proj_bias", w.dt, e, 2*i)
		w.add(p+"mlp.experts.down_proj_bias", w.dt, e, h)
	case strings.HasPrefix(a.ModelType, "llama4") && l.MoE:
		f := p + "feed_forward."
		w.add(f+"router.weight", w.dt, a.Experts, a.Hidden)
		if quantized {
			for e := range a.Experts {
				w.mlp(fmt.Sprintf("%sexperts.%d", f, e), a.MoEIntermediate, "gate_proj", "up_proj", "down_proj", false)
			}
		} else {
			w.add(f+"experts.gate_up_proj", w.dt, a.Experts, a.Hidden, 2*a.MoEIntermediate)
			w.add(f+"experts.down_proj", w.dt, a.Experts, a.MoEIntermediate, a.Hidden)
		}
		w.mlp(f+"shared_expert", a.SharedIntermediate, "gate_proj", "up_proj", "down_proj", false)
	case strings.HasPrefix(a.ModelType, "llama4"):
		w.mlp(p+"feed_forward", a.Intermediate, "gate_proj", "up_proj", "down_proj", false)
	case strings.HasPrefix(a.ModelType, "gemma4"):
		w.mlp(p+"mlp", a.Intermediate, "gate_proj", "up_proj", "down_proj", false)
		if !l.MoE {
			break
		}
		w.add(p+"router.proj.weight", w.dt, a.Experts, a.Hidden)
		w.add(p+"router.scale", w.dt, a.Hidden)
		w.add(p+"router.per_expert_scale", w.dt, a.Experts)
		if quantized {
			for e := range a.Experts {
				w.mlp(fmt.Sprintf("%sexperts.%d", p, e), a.MoEIntermediate, "gate_proj", "up_proj", "down_proj", false)
			}
		} else {
			w.add(p+"experts.gate_up_proj", w.dt, a.Experts, 2*a.MoEIntermediate, a.Hidden)
			w.add(p+"experts.down_proj", w.dt, a.Experts, a.Hidden, a.MoEIntermediate)
		}
	case l.MoE && (a.ModelType == "mixtral" || a.ModelType == "phimoe"):
		w.linear(p+"block_sparse_moe.gate", a.Hidden, a.Experts, false, false)
		for e := range a.Experts {
			w.mlp(fmt.Sprintf("%sblock_sparse_moe.experts.%d", p, e), a.MoEIntermediate, "w1", "w3", "w2", false)
		}
	case l.MoE && a.ModelType == "minimax_m2":
		w.add(p+"block_sparse_moe.gate.weight", w.dt, a.Experts, a.Hidden)
		if a.ScoreCorrectionBias {
			w.add(p+"block_sparse_moe.e_score_correction_bias", "F32", a.Experts)
		}
		for e := range a.Experts {
			w.mlp(fmt.Sprintf("%sblock_sparse_moe.experts.%d", p, e), a.MoEIntermediate, "w1", "w3", "w2", false)
		}
	case l.MoE:
		// Qwen3-MoE's router takes the quantization config
		// (qwen3_moe.py:167-173); the others' never do.
		w.linear(p+"mlp.gate", a.Hidden, a.Experts, false, a.ModelType == "qwen3_moe" || strings.HasPrefix(a.ModelType, "qwen3_vl_moe"))
		if a.ScoreCorrectionBias {
			w.add(p+"mlp.gate.e_score_correction_bias", "F32", a.Experts)
		}
		switch {
		case strings.HasPrefix(a.ModelType, "qwen3_5") && !quantized:
			// transformers 5 saves Qwen3.5-MoE's experts stacked.
			w.add(p+"mlp.experts.gate_up_proj", w.dt, a.Experts, 2*a.MoEIntermediate, a.Hidden)
			w.add(p+"mlp.experts.down_proj", w.dt, a.Experts, a.Hidden, a.MoEIntermediate)
		case strings.HasPrefix(a.ModelType, "qwen3_vl_moe") && !quantized:
			// Qwen3-VL-MoE's stacked experts, transposed.
			w.add(p+"mlp.experts.gate_up_proj", w.dt, a.Experts, a.Hidden, 2*a.MoEIntermediate)
			w.add(p+"mlp.experts.down_proj", w.dt, a.Experts, a.MoEIntermediate, a.Hidden)
		default:
			for e := range a.Experts {
				w.mlp(fmt.Sprintf("%smlp.experts.%d", p, e), a.MoEIntermediate, "gate_proj", "up_proj", "down_proj", false)
			}
		}
		// Qwen's MoE blocks (Qwen2-MoE, Qwen3-Next, Qwen3.5) name their
		// shared expert shared_expert and gate it, DeepSeek's and GLM's
		// shared_experts.
		qwenShared := a.DeltaNet != nil || a.ModelType == "qwen2_moe"
		if a.SharedIntermediate > 0 {
			shared := "shared_experts"
			if qwenShared {
				shared = "shared_expert"
			}
			w.mlp(p+"mlp."+shared, a.SharedIntermediate, "gate_proj", "up_proj", "down_proj", false)
		}
		if qwenShared {
			w.linear(p+"mlp.shared_expert_gate", a.Hidden, 1, false, false)
		}
	case a.FusedGateUp:
		w.linear(p+"mlp.gate_up_proj", a.Hidden, 2*a.Intermediate, a.MLPBias, true)
		w.linear(p+"mlp.down_proj", a.Intermediate, a.Hidden, a.MLPBias, true)
	default:
		w.mlp(p+"mlp", a.Intermediate, "gate_proj", "up_proj", "down_proj", a.MLPBias)
	}
}

// mla writes DeepSeek's attention at layer prefix p, and V3.2's indexer
// (its wk in fp8 blocks where the checkpoint is, as DeepSeek-V3.2-Exp
// stores it).
func (w *ckptWriter) mla(p string) {
	a := w.a
	if a.QLoraRank > 0 {
		w.linear(p+"self_attn.q_a_proj", a.Hidden, a.QLoraRank, false, true)
		w.norm(p+"self_attn.q_a_layernorm", a.QLoraRank)
		w.linear(p+"self_attn.q_b_proj", a.QLoraRank, a.Heads*(a.QKNopeHeadDim+a.QKRopeHeadDim), false, true)
	} else {
		w.linear(p+"self_attn.q_proj", a.Hidden, a.Heads*(a.QKNopeHeadDim+a.QKRopeHeadDim), false, true)
	}
	w.linear(p+"self_attn.kv_a_proj_with_mqa", a.Hidden, a.KVLoraRank+a.QKRopeHeadDim, false, true)
	w.norm(p+"self_attn.kv_a_layernorm", a.KVLoraRank)
	w.linear(p+"self_attn.kv_b_proj", a.KVLoraRank, a.Heads*(a.QKNopeHeadDim+a.VHeadDim), false, true)
	w.linear(p+"self_attn.o_proj", a.Heads*a.VHeadDim, a.Hidden, false, true)
	if ix := a.Indexer; ix != nil {
		x := p + "self_attn.indexer."
		w.linear(x+"wq_b", a.QLoraRank, ix.NumHeads*ix.HeadDim, false, true)
		w.linear(x+"wk", a.Hidden, ix.HeadDim, false, w.q.Method == "fp8" && w.q.BlockN > 0)
		w.add(x+"weights_proj.weight", w.dt, ix.NumHeads, a.Hidden)
		w.layerNorm(x+"k_norm", ix.HeadDim)
	}
}

// deltaNet writes a gated delta net at p: Qwen3-Next's fused in_proj_qkvz
// and in_proj_ba, Qwen3.5's split ones.
func (w *ckptWriter) deltaNet(p string) {
	a, d := w.a, w.a.DeltaNet
	key, value := d.NumKeyHeads*d.KeyHeadDim, d.NumValueHeads*d.ValueHeadDim
	if a.ModelType == "qwen3_next" {
		w.linear(p+"in_proj_qkvz", a.Hidden, 2*key+2*value, false, true)
		w.linear(p+"in_proj_ba", a.Hidden, 2*d.NumValueHeads, false, true)
	} else {
		w.linear(p+"in_proj_qkv", a.Hidden, 2*key+value, false, true)
		w.linear(p+"in_proj_z", a.Hidden, value, false, true)
		w.linear(p+"in_proj_b", a.Hidden, d.NumValueHeads, false, true)
		w.linear(p+"in_proj_a", a.Hidden, d.NumValueHeads, false, true)
	}
	w.add(p+"conv1d.weight", w.dt, 2*key+value, 1, d.ConvKernel)
	w.add(p+"dt_bias", w.dt, d.NumValueHeads)
	w.add(p+"A_log", "F32", d.NumValueHeads)
	w.norm(p+"norm", d.ValueHeadDim)
	w.linear(p+"out_proj", value, a.Hidden, false, true)
}

// mamba writes Nemotron-H's Mamba2 mixer at p.
func (w *ckptWriter) mamba(p string) {
	a, m := w.a, w.a.Mamba
	// transformers NemotronHConfig: use_bias false, use_conv_bias true.
	projBias, convBias := false, true
	if b, ok := w.text["use_bias"].(bool); ok {
		projBias = b
	}
	if b, ok := w.text["use_conv_bias"].(bool); ok {
		convBias = b
	}
	gs := m.NGroups * m.StateSize
	conv := m.Intermediate + 2*gs
	w.linear(p+"in_proj", a.Hidden, 2*m.Intermediate+2*gs+m.NumHeads, projBias, true)
	w.add(p+"conv1d.weight", w.dt, conv, 1, m.ConvKernel)
	if convBias {
		w.add(p+"conv1d.bias", w.dt, conv)
	}
	w.add(p+"A_log", "F32", m.NumHeads)
	w.add(p+"D", "F32", m.NumHeads)
	w.add(p+"dt_bias", w.dt, m.NumHeads)
	w.norm(p+"norm", m.Intermediate)
	w.linear(p+"out_proj", m.Intermediate, a.Hidden, projBias, true)
}

// clipLayers writes n CLIP or SigLIP encoder layers under vt as
// transformers names them: q_proj, k_proj, v_proj and out_proj of h x h,
// fc1 and fc2 through inter, all biased, attention quantized as qAttn and
// the MLP as qMLP; layer_norm1 and layer_norm2.
func (w *ckptWriter) clipLayers(vt string, n, h, inter uint64, qAttn, qMLP bool) {
	for i := range n {
		p := fmt.Sprintf("%sencoder.layers.%d.", vt, i)
		for _, m := range []string{"q_proj", "k_proj", "v_proj", "out_proj"} {
			w.linear(p+"self_attn."+m, h, h, true, qAttn)
		}
		w.linear(p+"mlp.fc1", h, inter, true, qMLP)
		w.linear(p+"mlp.fc2", inter, h, true, qMLP)
		w.layerNorm(p+"layer_norm1", h)
		w.layerNorm(p+"layer_norm2", h)
	}
}

// vision writes a's vision tower and projector: tower linears quantized
// where the family builds them with the quantization config (Qwen's and
// Pixtral's: qwen2_5_vl.py:1362-1367, qwen3_vl.py:1803-1809,
// mistral3.py:420-436), as Weights does.
func (w *ckptWriter) vision(v *model.VisionTower, newNames bool) {
	a := w.a
	h := v.Hidden
	merged := h * v.SpatialMerge * v.SpatialMerge
	switch v.Kind {
	case "siglip":
		vt, mp := "vision_tower.vision_model.", "multi_modal_projector."
		if newNames {
			vt, mp = "model."+vt, "model."+mp
		}
		w.add(vt+"embeddings.patch_embedding.weight", w.dt, h, 3, v.PatchSize, v.PatchSize)
		w.add(vt+"embeddings.patch_embedding.bias", w.dt, h)
		w.add(vt+"embeddings.position_embedding.weight", w.dt, (v.ImageSize/v.PatchSize)*(v.ImageSize/v.PatchSize), h)
		w.clipLayers(vt, v.Layers, h, v.Intermediate, false, false)
		w.layerNorm(vt+"post_layernorm", h)
		w.add(mp+"mm_input_projection_weight", w.dt, h, a.Hidden)
		w.add(mp+"mm_soft_emb_norm.weight", w.dt, h)
	case "qwen2_5_vl", "qwen2_vl":
		// Qwen2.5-VL's norms are RMSNorms and its MLP gated; Qwen2-VL's
		// are LayerNorms and fc1/fc2.
		vt := "visual."
		if newNames {
			vt = "model.visual."
		}
		norm := w.norm
		if v.Kind == "qwen2_vl" {
			norm = w.layerNorm
		}
		w.add(vt+"patch_embed.proj.weight", w.dt, h, v.Channels, v.TemporalPatch, v.PatchSize, v.PatchSize)
		for i := range v.Layers {
			p := fmt.Sprintf("%sblocks.%d.", vt, i)
			norm(p+"norm1", h)
			norm(p+"norm2", h)
			w.linear(p+"attn.qkv", h, 3*h, true, true)
			w.linear(p+"attn.proj", h, h, true, true)
			if v.Kind == "qwen2_vl" {
				w.linear(p+"mlp.fc1", h, v.Intermediate, true, true)
				w.linear(p+"mlp.fc2", v.Intermediate, h, true, true)
			} else {
				w.gatedMLP(p+"mlp", h, v.Intermediate, "gate_proj", "up_proj", "down_proj", true)
			}
		}
		norm(vt+"merger.ln_q", h)
		w.linear(vt+"merger.mlp.0", merged, merged, true, true)
		w.linear(vt+"merger.mlp.2", merged, v.OutHidden, true, true)
	case "qwen3_vl":
		vt := "model.visual."
		w.add(vt+"patch_embed.proj.weight", w.dt, h, v.Channels, v.TemporalPatch, v.PatchSize, v.PatchSize)
		w.add(vt+"patch_embed.proj.bias", w.dt, h)
		w.add(vt+"pos_embed.weight", w.dt, v.PositionEmbeddings, h)
		for i := range v.Layers {
			p := fmt.Sprintf("%sblocks.%d.", vt, i)
			w.layerNorm(p+"norm1", h)
			w.layerNorm(p+"norm2", h)
			w.linear(p+"attn.qkv", h, 3*h, true, true)
			w.linear(p+"attn.proj", h, h, true, true)
			w.linear(p+"mlp.linear_fc1", h, v.Intermediate, true, true)
			w.linear(p+"mlp.linear_fc2", v.Intermediate, h, true, true)
		}
		merger := func(p string, normWidth uint64) {
			w.layerNorm(p+"norm", normWidth)
			w.linear(p+"linear_fc1", merged, merged, true, true)
			w.linear(p+"linear_fc2", merged, v.OutHidden, true, true)
		}
		merger(vt+"merger.", h)
		for i := range v.Deepstack {
			merger(fmt.Sprintf("%sdeepstack_merger_list.%d.", vt, i), merged)
		}
	case "pixtral":
		vt, mp := "vision_tower.", "multi_modal_projector."
		if newNames {
			vt, mp = "model."+vt, "model."+mp
		}
		w.add(vt+"patch_conv.weight", w.dt, h, v.Channels, v.PatchSize, v.PatchSize)
		w.norm(vt+"ln_pre", h)
		for i := range v.Layers {
			p := fmt.Sprintf("%stransformer.layers.%d.", vt, i)
			w.norm(p+"attention_norm", h)
			w.norm(p+"ffn_norm", h)
			for _, m := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
				w.linear(p+"attention."+m, h, h, false, true)
			}
			w.gatedMLP(p+"feed_forward", h, v.Intermediate, "gate_proj", "up_proj", "down_proj", false)
		}
		w.norm(mp+"norm", h)
		w.linear(mp+"patch_merger.merging_layer", merged, h, false, false)
		w.linear(mp+"linear_1", h, v.OutHidden, v.ProjectorBias, true)
		w.linear(mp+"linear_2", v.OutHidden, v.OutHidden, v.ProjectorBias, true)
	case "clip", "llava_next_video":
		// LLaVA's checkpoint holds the whole tower and post_layernorm; vLLM
		// builds v.Layers of it and no post_layernorm. LLaVA-NeXT-Video's
		// projector is nn.Linear: never quantized.
		vt, mp, nl := "vision_tower.vision_model.", "multi_modal_projector.", "image_newline"
		if newNames {
			vt, mp, nl = "model."+vt, "model."+mp, "model."+nl
		}
		side := v.ImageSize / v.PatchSize
		w.add(vt+"embeddings.class_embedding", w.dt, h)
		w.add(vt+"embeddings.patch_embedding.weight", w.dt, h, v.Channels, v.PatchSize, v.PatchSize)
		w.add(vt+"embeddings.position_embedding.weight", w.dt, side*side+1, h)
		w.layerNorm(vt+"pre_layrnorm", h)
		w.clipLayers(vt, v.Layers+1, h, v.Intermediate, true, true)
		w.layerNorm(vt+"post_layernorm", h)
		if v.ImageNewline {
			w.add(nl, w.dt, v.OutHidden)
		}
		w.linear(mp+"linear_1", v.ProjectorIn, v.OutHidden, v.ProjectorBias, v.Kind == "clip")
		w.linear(mp+"linear_2", v.OutHidden, v.OutHidden, v.ProjectorBias, v.Kind == "clip")
	case "llava_siglip", "llava_onevision":
		// LLaVA's SigLIP checkpoint holds the whole tower, post_layernorm
		// and sometimes the pooling head; vLLM builds v.Layers and neither.
		// LLaVA-OneVision's projector is nn.Linear: never quantized.
		vt, mp, nl := "vision_tower.vision_model.", "multi_modal_projector.", "image_newline"
		if newNames {
			vt, mp, nl = "model."+vt, "model."+mp, "model."+nl
		}
		side := v.ImageSize / v.PatchSize
		w.add(vt+"embeddings.patch_embedding.weight", w.dt, h, v.Channels, v.PatchSize, v.PatchSize)
		w.add(vt+"embeddings.patch_embedding.bias", w.dt, h)
		w.add(vt+"embeddings.position_embedding.weight", w.dt, side*side, h)
		quantMLP := h%64 == 0 && v.Intermediate%64 == 0
		w.clipLayers(vt, v.Layers+1, h, v.Intermediate, true, quantMLP)
		w.layerNorm(vt+"post_layernorm", h)
		w.add(vt+"head.probe", w.dt, 1, 1, h)
		if v.ImageNewline {
			w.add(nl, w.dt, v.OutHidden)
		}
		w.linear(mp+"linear_1", v.ProjectorIn, v.OutHidden, v.ProjectorBias, v.Kind == "llava_siglip")
		w.linear(mp+"linear_2", v.OutHidden, v.OutHidden, v.ProjectorBias, v.Kind == "llava_siglip")
	case "paligemma":
		// PaliGemma's checkpoint holds the whole tower and post_layernorm,
		// which vLLM builds, and a one-layer nn.Linear projector.
		vt, mp := "vision_tower.vision_model.", "multi_modal_projector."
		if newNames {
			vt, mp = "model."+vt, "model."+mp
		}
		side := v.ImageSize / v.PatchSize
		w.add(vt+"embeddings.patch_embedding.weight", w.dt, h, v.Channels, v.PatchSize, v.PatchSize)
		w.add(vt+"embeddings.patch_embedding.bias", w.dt, h)
		w.add(vt+"embeddings.position_embedding.weight", w.dt, side*side, h)
		quantMLP := h%64 == 0 && v.Intermediate%64 == 0
		w.clipLayers(vt, v.Layers, h, v.Intermediate, true, quantMLP)
		w.layerNorm(vt+"post_layernorm", h)
		w.linear(mp+"linear", v.ProjectorIn, v.OutHidden, true, false)
	case "moonvit":
		// Kimi-K2.5's MoonViT and patch-merger projector as its
		// checkpoint names them (torchtitan's kimi_k2_7 adapter): the
		// tower unquantized under compressed-tensors, as vLLM builds it.
		vt := "vision_tower."
		q := a.Quant.Method != "compressed-tensors"
		w.add(vt+"patch_embed.proj.weight", w.dt, h, v.Channels, v.PatchSize, v.PatchSize)
		w.add(vt+"patch_embed.proj.bias", w.dt, h)
		w.add(vt+"patch_embed.pos_emb.weight", w.dt, v.PositionEmbeddings, h)
		for i := range v.Layers {
			p := fmt.Sprintf("%sencoder.blocks.%d.", vt, i)
			w.layerNorm(p+"norm0", h)
			w.layerNorm(p+"norm1", h)
			w.linear(p+"wqkv", h, 3*h, true, q)
			w.linear(p+"wo", h, h, true, q)
			w.linear(p+"mlp.fc0", h, v.Intermediate, true, q)
			w.linear(p+"mlp.fc1", v.Intermediate, h, true, q)
		}
		w.layerNorm(vt+"encoder.final_layernorm", h)
		w.layerNorm("mm_projector.pre_norm", h)
		w.linear("mm_projector.proj.0", v.ProjectorIn, v.ProjectorIn, true, q)
		w.linear("mm_projector.proj.2", v.ProjectorIn, v.OutHidden, true, q)
	case "glm4v":
		// GLM-4.1V's and GLM-4.5V's tower as transformers saves it
		// (modeling_glm4v.py): qkv fused, no linear bias, RMSNorms, a
		// biased Conv2d downsample, the merger's gated MLP.
		vt := "model.visual."
		side := v.ImageSize / v.PatchSize
		w.add(vt+"patch_embed.proj.weight", w.dt, h, v.Channels, v.TemporalPatch, v.PatchSize, v.PatchSize)
		w.add(vt+"patch_embed.proj.bias", w.dt, h)
		w.add(vt+"embeddings.position_embedding.weight", w.dt, side*side, h)
		for i := range v.Layers {
			p := fmt.Sprintf("%sblocks.%d.", vt, i)
			w.norm(p+"norm1", h)
			w.norm(p+"norm2", h)
			w.linear(p+"attn.qkv", h, 3*h, false, true)
			w.linear(p+"attn.proj", h, h, false, true)
			w.gatedMLP(p+"mlp", h, v.OutHidden, "gate_proj", "up_proj", "down_proj", false)
		}
		w.norm(vt+"post_conv_layernorm", h)
		w.add(vt+"downsample.weight", w.dt, v.OutHidden, h, v.SpatialMerge, v.SpatialMerge)
		w.add(vt+"downsample.bias", w.dt, v.OutHidden)
		w.norm(vt+"post_layernorm", h)
		w.linear(vt+"merger.proj", v.OutHidden, v.OutHidden, false, true)
		w.layerNorm(vt+"merger.post_projection_norm", v.OutHidden)
		w.gatedMLP(vt+"merger", v.OutHidden, v.Intermediate, "gate_proj", "up_proj", "down_proj", false)
	case "idefics3":
		// Idefics3's checkpoint holds the whole tower, which vLLM builds,
		// and the connector's one linear layer without bias.
		vt := "model.vision_model."
		side := v.ImageSize / v.PatchSize
		w.add(vt+"embeddings.patch_embedding.weight", w.dt, h, v.Channels, v.PatchSize, v.PatchSize)
		w.add(vt+"embeddings.patch_embedding.bias", w.dt, h)
		w.add(vt+"embeddings.position_embedding.weight", w.dt, side*side, h)
		w.clipLayers(vt, v.Layers, h, v.Intermediate, true, true)
		w.layerNorm(vt+"post_layernorm", h)
		w.linear("model.connector.modality_projection.proj", merged, v.OutHidden, false, true)
	case "llava_pixtral":
		vt, mp, nl := "vision_tower.", "multi_modal_projector.", "image_newline"
		if newNames {
			vt, mp, nl = "model."+vt, "model."+mp, "model."+nl
		}
		w.add(vt+"patch_conv.weight", w.dt, h, v.Channels, v.PatchSize, v.PatchSize)
		w.norm(vt+"ln_pre", h)
		for i := range v.Layers + 1 {
			p := fmt.Sprintf("%stransformer.layers.%d.", vt, i)
			w.norm(p+"attention_norm", h)
			w.norm(p+"ffn_norm", h)
			for _, m := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
				w.linear(p+"attention."+m, h, h, false, true)
			}
			w.gatedMLP(p+"feed_forward", h, v.Intermediate, "gate_proj", "up_proj", "down_proj", false)
		}
		if v.ImageNewline {
			w.add(nl, w.dt, v.OutHidden)
		}
		w.linear(mp+"linear_1", v.ProjectorIn, v.OutHidden, v.ProjectorBias, true)
		w.linear(mp+"linear_2", v.OutHidden, v.OutHidden, v.ProjectorBias, true)
	case "intern_vit":
		// InternVL's checkpoint holds the whole tower; vLLM builds
		// v.Layers of it.
		vt := "vision_model."
		side := v.ImageSize / v.PatchSize
		w.add(vt+"embeddings.class_embedding", w.dt, 1, 1, h)
		w.add(vt+"embeddings.patch_embedding.weight", w.dt, h, v.Channels, v.PatchSize, v.PatchSize)
		w.add(vt+"embeddings.patch_embedding.bias", w.dt, h)
		w.add(vt+"embeddings.position_embedding", w.dt, 1, side*side+1, h)
		for i := range v.Layers + 1 {
			p := fmt.Sprintf("%sencoder.layers.%d.", vt, i)
			w.linear(p+"attn.qkv", h, 3*h, v.ProjectorBias, true)
			w.linear(p+"attn.proj", h, h, true, true)
			w.linear(p+"mlp.fc1", h, v.Intermediate, true, true)
			w.linear(p+"mlp.fc2", v.Intermediate, h, true, true)
			w.layerNorm(p+"norm1", h)
			w.layerNorm(p+"norm2", h)
			w.add(p+"ls1", w.dt, h)
			w.add(p+"ls2", w.dt, h)
		}
		in := h * v.SpatialMerge * v.SpatialMerge
		w.layerNorm("mlp1.0", in)
		w.linear("mlp1.1", in, v.OutHidden, true, false)
		w.linear("mlp1.3", v.OutHidden, v.OutHidden, true, false)
	case "llama4":
		vt := "vision_model."
		side := v.ImageSize / v.PatchSize
		w.linear(vt+"patch_embedding.linear", v.Channels*v.PatchSize*v.PatchSize, h, false, false)
		w.add(vt+"class_embedding", w.dt, h)
		w.add(vt+"positional_embedding_vlm", w.dt, side*side+1, h)
		w.layerNorm(vt+"layernorm_pre", h)
		w.layerNorm(vt+"layernorm_post", h)
		for i := range v.Layers {
			p := fmt.Sprintf("%smodel.layers.%d.", vt, i)
			for _, m := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
				w.linear(p+"self_attn."+m, h, h, true, false)
			}
			w.linear(p+"mlp.fc1", h, v.Intermediate, true, false)
			w.linear(p+"mlp.fc2", v.Intermediate, h, true, false)
			w.layerNorm(p+"input_layernorm", h)
			w.layerNorm(p+"post_attention_layernorm", h)
		}
		w.linear(vt+"vision_adapter.mlp.fc1", v.Intermediate, v.ProjectorIn, v.ProjectorBias, false)
		w.linear(vt+"vision_adapter.mlp.fc2", v.ProjectorIn, v.ProjectorOut, v.ProjectorBias, false)
		w.linear("multi_modal_projector.linear_1", v.OutHidden, a.Hidden, false, false)
	}
}

func total(items []budget.Item) uint64 {
	var n uint64
	for _, it := range items {
		n += it.Bytes
	}
	return n
}

// byName maps each parameter to its bytes, to show where two lists differ
// (the two ways of counting may group a fused module's tensors under
// different names: the totals are what must agree).
func byName(items []budget.Item) map[string]uint64 {
	m := map[string]uint64{}
	for _, it := range items {
		m[it.Name] += it.Bytes
	}
	return m
}

// mxfp4Kernels are the MXFP4 MoE kernels a device may run gpt-oss's
// experts with (vllm.MXFP4Triton, ...): each rounds the experts' sizes,
// and Triton's of the releases before 0.24.0 keeps the checkpoint's scales
// beside its copy.
var mxfp4Kernels = []model.MXFP4Kernel{vllm.MXFP4Triton, vllm.MXFP4Marlin, vllm.MXFP4TRTLLM, vllm.MXFP4CUTLASS, vllm.MXFP4ROCmTriton,
	{IntermediateMultiple: 64, HiddenMultiple: 1, BiasFloat32: true, HopperLayout: true, KeepsScales: true}}

// propCheckpointEqualsConfig: a checkpoint shaped as its config.json says,
// named as Hugging Face names it, gives every rank the weights derived from
// config.json, to the byte, at TP 1, 2 and 4, on each stage of PP 1 and 2,
// with and without expert parallelism, in the checkpoint's dtype or
// another, on a device with or without the router GEMMs, with each MXFP4
// kernel.
func propCheckpointEqualsConfig(t *rapid.T) {
	cfg := genCheckpointConfig().Draw(t, "config")
	data, err := modelgen.JSON(cfg)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	a, err := model.ParseConfig("gen.json", data)
	if err != nil {
		t.Fatalf("a generated valid config does not parse: %v\n%s", err, data)
	}
	tensors := hfCheckpoint(a, cfg, rapid.Bool().Draw(t, "new_names"), rapid.Bool().Draw(t, "rotary_inv_freq"))
	notes, err := model.AttachCheckpoint(a, &model.Checkpoint{Name: "gen", Tensors: tensors})
	if err != nil || len(notes.Unknown) > 0 {
		t.Fatalf("the rules do not read the checkpoint of %s: %v, unknown %v", data, err, notes.Unknown)
	}
	dtypeBytes := rapid.SampledFrom([]uint64{2, 4}).Draw(t, "served_dtype_bytes")
	ep := a.Experts > 0 && rapid.Bool().Draw(t, "expert_parallel")
	var expertRanks uint64
	if ep {
		expertRanks = rapid.Uint64Range(2, 8).Draw(t, "expert_ranks")
	}
	routerGEMM := rapid.Bool().Draw(t, "router_gemm")
	var kernel model.MXFP4Kernel
	if a.Quant.Method == "mxfp4" {
		kernel = rapid.SampledFrom(mxfp4Kernels).Draw(t, "mxfp4_kernel")
	}
	cut := rapid.IntRange(1, max(1, len(a.Layers)-1)).Draw(t, "pp_cut")
	for _, tp := range []uint64{1, 2, 4} {
		if vllmRefuses(a, tp, ep) != "" {
			continue
		}
		stages := []model.Sharding{model.Whole(a, tp, dtypeBytes, a.Quant)}
		if len(a.Layers) >= 2 {
			first, last := stages[0], stages[0]
			first.EndLayer, first.Last = cut, false
			last.FirstLayer, last.First = cut, false
			stages = append(stages, first, last)
		}
		for i, sh := range stages {
			sh.ExpertRanks, sh.RouterGEMM, sh.MXFP4 = expertRanks, routerGEMM, kernel
			if configDeviates(a, sh) != "" {
				continue
			}
			if ok, why := model.UsesCheckpoint(a, sh); !ok {
				t.Fatalf("the checkpoint is not used: %s", why)
			}
			config, checkpoint := model.Weights(a, sh), model.RankWeights(a, sh)
			if total(config) != total(checkpoint) {
				t.Fatalf("TP %d, sharding %d %+v: checkpoint weights %d B != config weights %d B; by parameter (-config +checkpoint):\n%s\nconfig: %s",
					tp, i, sh, total(checkpoint), total(config), cmp.Diff(byName(config), byName(checkpoint)), data)
			}
		}
	}
}

func TestCheckpointEqualsConfig(t *testing.T) {
	rapid.Check(t, propCheckpointEqualsConfig)
}
