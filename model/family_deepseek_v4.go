package model

import (
	"fmt"

	"membudget/budget"
)

// DeepSeek-V4 (deepseek-ai/DeepSeek-V4-Flash, -Flash-0731, -Pro) as vLLM
// main d18bb7b builds it: vllm/models/deepseek_v4/ (the NVIDIA model in
// nvidia/model.py, the attention in attention.py, the compressor in
// compressor.py), its config class vllm/transformers_utils/configs/
// deepseek_v4.py and its checkpoint's weight mapper
// (_make_deepseek_v4_weights_mapper, nvidia/model.py:1379-1410).

func init() {
	// The checkpoint names every module its own way (layers.N.attn.wq_a,
	// layers.N.ffn.experts.E.w1.scale, mtp.0.e_proj), which vLLM's mapper
	// renames; the weights are derived from config.json, whose sizes are
	// pinned against the checkpoint's total_size by
	// TestDeepSeekV4WeightsMatchCheckpoint.
	registerConfigOnly("deepseek_v4", flat(readDeepSeekV4))
	declareClass("deepseek_v4", deepseekV4Class)
	// registry.py:96 at d18bb7b (vllm.models.deepseek_v4).
	registerArchitectures("deepseek_v4", "DeepseekV4ForCausalLM")
}

// deepseekV4Class is vLLM's DeepseekV4Config, which vLLM reads deepseek_v4
// configs with (vllm/transformers_utils/config.py:89 _CONFIG_REGISTRY;
// configs/deepseek_v4.py:11-23 at d18bb7b): it defaults only
// max_position_embeddings and rope_theta, every other key coming from the
// file.
var deepseekV4Class = configClass{
	Name:     "DeepseekV4Config",
	Source:   "vllm/transformers_utils/configs/deepseek_v4.py@d18bb7b",
	Defaults: []classDefault{{"max_position_embeddings", "1048576"}, {"rope_theta", "10000.0"}},
}

// DeepSeekV4Shape is DeepSeek-V4's attention and residual shape beyond the
// common keys: the query and output low-rank projections, the lightning
// indexer of its compress-ratio-4 layers, the hyper-connection streams,
// the hash-routed first layers and how its experts are stored.
type DeepSeekV4Shape struct {
	// QLoraRank is the query latent (q_lora_rank); ORank and OGroups the
	// grouped low-rank output projection (o_lora_rank, o_groups).
	QLoraRank, ORank, OGroups uint64
	// IndexHeads, IndexHeadDim and IndexTopK are the indexer's
	// (index_n_heads, index_head_dim, index_topk).
	IndexHeads, IndexHeadDim, IndexTopK uint64
	// HCMult is the hyper-connection streams (hc_mult).
	HCMult uint64
	// HashLayers is the first layers that route by a token-to-experts
	// table instead of a score (num_hash_layers).
	HashLayers uint64
	// ExpertFP4 says the routed experts are stored in MXFP4 with e8m0
	// scales and the FP8 linears' scales in e8m0 (expert_dtype "fp4");
	// false is expert_dtype "fp8": FP8 block experts, float32 scales
	// (vllm/models/deepseek_v4/quant_config.py:23-36, 80-84).
	ExpertFP4 bool
}

// readDeepSeekV4 reads a deepseek_v4 config.json: a 512-wide single-head
// latent attention over a sliding window on every layer, compressed 4x
// (with the indexer) or 128x on the layers compress_ratios names, MoE on
// every layer (the first num_hash_layers hash-routed), hc_mult residual
// streams, an MTP layer past num_hidden_layers.
func readDeepSeekV4(o jsonObject, a *Arch) {
	readCommon(o, a)
	v := &DeepSeekV4Shape{
		QLoraRank: o.uint("q_lora_rank"), ORank: o.uint("o_lora_rank"), OGroups: o.uint("o_groups"),
		IndexHeads: o.uint("index_n_heads"), IndexHeadDim: o.uint("index_head_dim"),
		IndexTopK: o.uint("index_topk"), HCMult: o.uint("hc_mult"), HashLayers: o.uintOr("num_hash_layers", 0),
	}
	a.DeepSeekV4 = v
	a.Experts = o.uint("n_routed_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	a.SharedExperts = o.uintOr("n_shared_experts", 0)
	a.SharedIntermediate = a.SharedExperts * a.MoEIntermediate
	a.ScoreCorrectionBias = o.str("topk_method") == "noaux_tc"
	a.MTPLayers = o.uintOr("num_nextn_predict_layers", 0)
	a.SlidingWindow = o.uint("sliding_window")
	// The rotated part of each 512-wide head.
	a.RotaryDim = o.uint("qk_rope_head_dim")
	switch d := o.str("expert_dtype"); d {
	case "", "fp4":
		// quant_config.py:56: a config without it is read as fp4.
		v.ExpertFP4 = true
	case "fp8":
	default:
		o.fail("expert_dtype", "%q: vLLM takes fp4 or fp8 (vllm/models/deepseek_v4/quant_config.py:20, 60-64)", d)
	}
	readDeepSeekV4Quant(o)
	if h := o.str("hidden_act"); h != "" && h != "silu" {
		o.fail("hidden_act", "%q: vLLM's DeepseekV4MLP takes only silu (nvidia/model.py:134-137)", h)
	}
	a.uniformLayers(o, 0)
	ratios := o.uints("compress_ratios")
	if uint64(len(ratios)) < a.NumLayers {
		o.fail("compress_ratios", "has %d entries for %d layers (vLLM reads compress_ratios[layer] for every layer, attention.py:212-215)", len(ratios), a.NumLayers)
		return
	}
	for i := range a.Layers {
		// attention.py:212-215: max(1, ratio); the compressor takes 4 or
		// 128 only (compressor.py:174).
		r := max(1, ratios[i])
		if r != 1 && r != 4 && r != 128 {
			o.fail("compress_ratios", "layer %d: ratio %d; vLLM's compressor takes 4 or 128 (compressor.py:174)", i, ratios[i])
		}
		a.Layers[i].CompressRatio = r
		a.Layers[i].MoE = true
	}
	for _, c := range []struct {
		key string
		v   uint64
	}{{"q_lora_rank", v.QLoraRank}, {"o_lora_rank", v.ORank}, {"o_groups", v.OGroups}, {"qk_rope_head_dim", a.RotaryDim},
		{"index_n_heads", v.IndexHeads}, {"index_head_dim", v.IndexHeadDim}, {"index_topk", v.IndexTopK}, {"hc_mult", v.HCMult},
		{"n_routed_experts", a.Experts}, {"moe_intermediate_size", a.MoEIntermediate}, {"num_experts_per_tok", a.ExpertsPerToken}} {
		if c.v == 0 || c.v > 1<<16 {
			o.fail(c.key, "%d: want a size in [1, %d]", c.v, 1<<16)
		}
	}
	if a.HeadDim != dsv4HeadDim {
		// The fp8_ds_mla page (448 NoPE + 128 RoPE + 8 scale bytes) and the
		// SWA backend's supported head size are 512 (kv_cache_interface.py:
		// 434-438; sparse_swa.py:125-127).
		o.fail("head_dim", "%d: vLLM's DeepSeek-V4 cache and SWA backend take 512", a.HeadDim)
	}
	if a.RotaryDim != 64 {
		// The fp8_ds_mla token holds 448 fp8 NoPE values and 64 bf16 RoPE
		// ones (kv_cache_interface.py:434-438; compressor.py:308-314).
		o.fail("qk_rope_head_dim", "%d: vLLM's DeepSeek-V4 cache token holds 448 NoPE and 64 RoPE values", a.RotaryDim)
	}
	if v.IndexHeadDim != 128 {
		// compressor.py:308-327: the fused quant-and-cache takes heads of
		// 512 (the latent) or 128 (the indexer) only.
		o.fail("index_head_dim", "%d: vLLM's DeepSeek-V4 compressor takes an indexer of 128", v.IndexHeadDim)
	}
	if a.MoEIntermediate%dsv4FP8Block != 0 {
		// nvidia/model.py:110-116 counts the shared expert's whole
		// 128-blocks (intermediate_size // 128).
		o.fail("moe_intermediate_size", "%d: not whole 128-blocks, which vLLM's DeepSeek-V4 shared expert counts", a.MoEIntermediate)
	}
	if a.RopeScaling == nil || a.RopeScaling.Type != "yarn" {
		o.fail("rope_scaling", "membudget sizes DeepSeek-V4's YaRN tables (DeepseekV4ScalingRotaryEmbedding, deepseek_scaling_rope.py:231-261); a config without YaRN scaling is not modelled")
	}
	if a.KVHeads != 1 {
		o.fail("num_key_value_heads", "%d: DeepSeek-V4 keeps one latent a token (num_kv_heads=1, attention.py:663-673)", a.KVHeads)
	}
	if v.OGroups > 0 && (a.Heads*a.HeadDim)%v.OGroups != 0 {
		o.fail("o_groups", "%d does not divide the %d heads' %d features", v.OGroups, a.Heads, a.Heads*a.HeadDim)
	}
	if a.SlidingWindow == 0 {
		o.fail("sliding_window", "must be above 0: every DeepSeek-V4 layer keeps a sliding-window cache (attention.py:321-328)")
	}
	// common/rope.py:6-33: two YaRN tables (is_deepseek_v4: float32,
	// deepseek_scaling_rope.py:243-261) of original_max_position x factor
	// rows and rope_dim columns, one at rope_theta for the uncompressed
	// layers and one at compress_rope_theta for the compressed ones; get_rope
	// caches one instance per theta.
	rows := a.MaxPosition
	if rs := a.RopeScaling; rs != nil && rs.OriginalMaxPosition > 0 && rs.Factor > 0 {
		rows = uint64(float64(rs.OriginalMaxPosition) * rs.Factor)
	}
	a.Rotary = []RotaryTable{{Name: "rotary_emb", Positions: rows, Dim: a.RotaryDim, Dtype: "float32"}}
	for _, l := range a.Layers {
		if l.CompressRatio > 1 {
			a.Rotary = append(a.Rotary, RotaryTable{Name: "rotary_emb_compress", Positions: rows, Dim: a.RotaryDim, Dtype: "float32"})
			break
		}
	}
}

// readDeepSeekV4Quant accepts the quantization DeepSeek-V4's own
// checkpoints carry, the one the weights are sized for: FP8 in 128 x 128
// blocks, which vLLM serves as deepseek_v4_fp8 (vllm/model_executor/
// models/config.py:317-341). Any other (RedHatAI's compressed-tensors
// NVFP4 of it, a bfloat16 export) is refused by name rather than sized
// as if it were that.
func readDeepSeekV4Quant(o jsonObject) {
	q, ok := o.object("quantization_config")
	if !ok {
		o.fail("quantization_config", "missing: membudget sizes DeepSeek-V4 as its published FP8 block checkpoints store it, and a checkpoint without quantization is not modelled")
		return
	}
	if m := q.str("quant_method"); m != "fp8" {
		o.fail("quantization_config", "quant_method %q: membudget sizes DeepSeek-V4 only in its published FP8 blocks (quant_method fp8, weight_block_size [128, 128]); vLLM's %q path is not modelled", m, m)
		return
	}
	if b := q.uints("weight_block_size"); len(b) != 2 || b[0] != dsv4FP8Block || b[1] != dsv4FP8Block {
		o.fail("quantization_config", "weight_block_size %v: membudget sizes DeepSeek-V4's FP8 linears in 128 x 128 blocks only", b)
	}
}

// dsv4HeadDim is DeepSeek-V4's latent width, the only one its caches take.
const dsv4HeadDim = 512

// dsv4FP8Block is the FP8 linears' block (weight_block_size [128, 128] in every
// DeepSeek-V4 checkpoint's quantization_config).
const dsv4FP8Block = 128

// deepseekV4Weights lists what one rank holds of a DeepSeek-V4 model as
// vLLM builds it on CUDA: FP8 block linears with their scales (e8m0 with
// fp4 experts, float32 with fp8 ones), MXFP4 experts as the checkpoint
// stores them, bfloat16 compressors, embedding and head, float32
// hyper-connection mixes, sinks and rotary tables.
func deepseekV4Weights(w *weights) []budget.Item {
	a, v, sh := w.a, w.a.DeepSeekV4, w.sh
	vocabRank := w.vocabRows(a.Vocab)
	hcDim := v.HCMult * a.Hidden
	if sh.First {
		w.add("model.embed_tokens.weight", bytesOf(budget.SatMul(vocabRank, a.Hidden), w.dt))
	}
	for i := max(sh.FirstLayer, 0); i < min(sh.EndLayer, len(a.Layers)); i++ {
		w.deepseekV4Layer(fmt.Sprintf("model.layers.%d.", i), i, a.Layers[i])
	}
	// nvidia/model.py:1061-1082: the head's mix, built on every stage.
	w.add("model.hc_head_fn", bytesOf(budget.SatMul(v.HCMult, hcDim), 4))
	w.add("model.hc_head_base", bytesOf(v.HCMult, 4))
	w.add("model.hc_head_scale", 4)
	if sh.Last {
		w.norm("model.norm", a.Hidden)
		if !sh.NoHead {
			// ParallelLMHead without a quant_config (nvidia/model.py:
			// 1466-1471).
			w.add("lm_head.weight", bytesOf(budget.SatMul(vocabRank, a.Hidden), w.dt))
		}
	}
	w.rotaryTables()
	return w.items
}

// fp8Linear adds an FP8 block linear of out x in on this rank with its
// block scales (fp8.py:330-351: BlockQuantScaleParameter of cdiv(out, 128)
// x cdiv(in, 128), float8_e8m0fnu where is_scale_e8m0).
func (w *weights) fp8Linear(module string, out, in uint64) {
	w.add(module+".weight", budget.SatMul(out, in))
	scale := uint64(4)
	if w.a.DeepSeekV4.ExpertFP4 {
		scale = 1
	}
	w.add(module+".weight_scale_inv", bytesOf(budget.SatMul(budget.CeilDiv(out, dsv4FP8Block), budget.CeilDiv(in, dsv4FP8Block)), scale))
}

// deepseekV4Layer adds decoder layer i at p (nvidia/model.py:815-897).
func (w *weights) deepseekV4Layer(p string, i int, l Layer) {
	a, v := w.a, w.a.DeepSeekV4
	w.norm(p+"attn_norm", a.Hidden)
	w.norm(p+"ffn_norm", a.Hidden)
	mix, hcDim := (2+v.HCMult)*v.HCMult, v.HCMult*a.Hidden
	for _, b := range []string{"attn", "ffn"} {
		w.add(p+"hc_"+b+"_fn", bytesOf(budget.SatMul(mix, hcDim), 4))
		w.add(p+"hc_"+b+"_base", bytesOf(mix, 4))
		w.add(p+"hc_"+b+"_scale", bytesOf(3, 4))
	}
	w.deepseekV4Attention(p+"attn", l)
	w.deepseekV4MoE(p+"ffn", uint64(i) < v.HashLayers)
}

// deepseekV4Attention adds a layer's attention (attention.py:181-351): the
// sink padded to FlashMLA's head count, the fused query and KV
// down-projection replicated, the query up-projection and the grouped
// output projection divided among ranks, the compressor on a compressed
// layer and the indexer on a 4x one.
func (w *weights) deepseekV4Attention(p string, l Layer) {
	a, v, tp := w.a, w.a.DeepSeekV4, w.tp
	// flashmla.py:78-85: the sink and the query buffers are padded to 64
	// heads a rank, or 128 above 64 (the FP8 decode kernel's h_q).
	padded := uint64(64)
	if a.Heads/tp > 64 {
		padded = 128
	}
	w.add(p+".attn_sink", bytesOf(padded, 4))
	w.fp8Linear(p+".fused_wqa_wkv", v.QLoraRank+a.HeadDim, a.Hidden)
	w.norm(p+".q_norm", v.QLoraRank)
	w.norm(p+".kv_norm", a.HeadDim)
	w.fp8Linear(p+".wq_b", budget.CeilDiv(a.Heads*a.HeadDim, tp), v.QLoraRank)
	w.fp8Linear(p+".wo_a", budget.CeilDiv(v.OGroups*v.ORank, tp), a.Heads*a.HeadDim/v.OGroups)
	w.fp8Linear(p+".wo_b", a.Hidden, budget.CeilDiv(v.OGroups*v.ORank, tp))
	if l.CompressRatio > 1 {
		w.deepseekV4Compressor(p+".compressor", l.CompressRatio, a.HeadDim)
	}
	if l.CompressRatio == 4 {
		// attention.py:750-808: wq_b quantized and whole, weights_proj
		// unquantized and whole, and the indexer's own compressor.
		w.fp8Linear(p+".indexer.wq_b", v.IndexHeads*v.IndexHeadDim, v.QLoraRank)
		w.add(p+".indexer.weights_proj.weight", bytesOf(budget.SatMul(v.IndexHeads, a.Hidden), w.dt))
		w.deepseekV4Compressor(p+".indexer.compressor", l.CompressRatio, v.IndexHeadDim)
	}
}

// deepseekV4Compressor adds a compressor of ratio r over heads of hd
// (compressor.py:252-293): its kv and gate projections fused, whole and
// unquantized, over coff = 2 overlapping windows at ratio 4 and 1
// otherwise; its norm; its float32 position table ape of r x coff x hd.
func (w *weights) deepseekV4Compressor(p string, r, hd uint64) {
	coff := uint64(1)
	if r == 4 {
		coff = 2
	}
	w.add(p+".fused_wkv_wgate.weight", bytesOf(budget.SatMul(2*coff*hd, w.a.Hidden), w.dt))
	w.norm(p+".norm", hd)
	w.add(p+".ape", bytesOf(budget.SatMul(r, coff*hd), 4))
}

// deepseekV4MoE adds a layer's MoE (nvidia/model.py:528-633): the router in
// the model dtype; its token-to-experts table on a hash-routed layer
// (int32) or its float32 score bias; the shared expert, its intermediate
// padded to whole 128-blocks on every rank (:110-116); the routed experts
// in MXFP4 (two values a byte, an e8m0 scale per 32) or FP8 blocks.
func (w *weights) deepseekV4MoE(p string, hash bool) {
	a, v, tp := w.a, w.a.DeepSeekV4, w.tp
	w.add(p+".gate.weight", bytesOf(budget.SatMul(a.Experts, a.Hidden), w.dt))
	switch {
	case hash:
		w.add(p+".gate.tid2eid", bytesOf(budget.SatMul(a.Vocab, a.ExpertsPerToken), 4))
	case a.ScoreCorrectionBias:
		w.add(p+".gate.e_score_correction_bias", bytesOf(a.Experts, 4))
	}
	if a.SharedIntermediate > 0 {
		inter := budget.SatMul(budget.CeilDiv(a.SharedIntermediate/dsv4FP8Block, tp), dsv4FP8Block)
		w.fp8Linear(p+".shared_experts.gate_up_proj", 2*inter, a.Hidden)
		w.fp8Linear(p+".shared_experts.down_proj", a.Hidden, inter)
	}
	experts, inter := w.expertShare()
	if v.ExpertFP4 {
		// FusedMoE under Mxfp4MoEMethod: w13 [E, 2I, H/2] and w2
		// [E, H, I/2] uint8, scales [E, 2I, H/32] and [E, H, I/32].
		w.add(p+".experts.w13_weight", bytesOf(experts, budget.SatMul(2*inter, a.Hidden/2)))
		w.add(p+".experts.w13_weight_scale", bytesOf(experts, budget.SatMul(2*inter, a.Hidden/32)))
		w.add(p+".experts.w2_weight", bytesOf(experts, budget.SatMul(a.Hidden, inter/2)))
		w.add(p+".experts.w2_weight_scale", bytesOf(experts, budget.SatMul(a.Hidden, inter/32)))
		return
	}
	// Fp8MoEMethod with blocks: fp8 values, float32 scales a 128 x 128
	// block of each expert.
	w.add(p+".experts.w13_weight", bytesOf(experts, budget.SatMul(2*inter, a.Hidden)))
	w.add(p+".experts.w13_weight_scale_inv", bytesOf(experts, bytesOf(budget.SatMul(2*budget.CeilDiv(inter, dsv4FP8Block), budget.CeilDiv(a.Hidden, dsv4FP8Block)), 4)))
	w.add(p+".experts.w2_weight", bytesOf(experts, budget.SatMul(a.Hidden, inter)))
	w.add(p+".experts.w2_weight_scale_inv", bytesOf(experts, bytesOf(budget.SatMul(budget.CeilDiv(a.Hidden, dsv4FP8Block), budget.CeilDiv(inter, dsv4FP8Block)), 4)))
}
