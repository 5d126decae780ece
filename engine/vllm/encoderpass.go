package vllm

import (
	"cmp"
	"fmt"
	"slices"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/explain"
)

// This file sizes the profile run's encoder pass: the dummy batch of the
// largest multimodal items (EncoderProfile's Items of TokensPerItem) through
// the vision tower, before the decoder's dummy run. Every rule is vLLM main's
// at d18bb7b (2026-08-14) unless it says otherwise.
//
// The order (vllm/v1/worker/gpu_model_runner.py profile_run:6542-6614): the
// runner builds one batch of the items (_get_mm_dummy_batch:5894-5922,
// group_and_batch_mm_kwargs batches equal items together), runs
// embed_multimodal on it (:6590-6592), keeps the outputs in encoder_cache
// (:6598-6599), then runs the decoder's dummy batch and sampler
// (:6602-6611) and clears the cache (:6614). The encoder's activations are
// freed before the decoder runs, so the torch peak is the larger of the
// pass's peak and the decoder's with the cache beside it: the ledger's
// "encoder pass" is what the pass's peak exceeds the latter by. The V2
// runner (vllm/v1/worker/gpu/model_runner.py profile_run:782-820, from
// 0.28.0, PR #47985) does the same on the first pipeline stage alone
// (mm/encoder_runner.py profile_encoder_cache:75-111, execute_mm_encoder:
// 113-124, one embed_multimodal call per batch of equal items);
// --skip-mm-profiling skips both (gpu_model_runner.py:6546-6550,
// gpu/model_runner.py:785).

// EncoderPass is the profile run's pass of the dummy items through the
// vision tower, as membudget sizes it on one GPU of a stage that runs it.
type EncoderPass struct {
	// Sized says PeakBytes is charged; Why says why not when the profile
	// runs the pass.
	Sized bool
	Why   string
	// Items is, under --mm-encoder-tp-mode data, the dummy items the GPU
	// encodes, its share ceil(Items / TP) (0 otherwise: all the
	// profile's). Patches is the patches it encodes (its items x the
	// patches an item); PixelBytes the pixels vLLM holds through the
	// pass; BlockBytes the widest block's live activations; PeakBytes
	// their sum with the rotary tables, the pass's torch peak beyond the
	// weights, or in data mode the pixels and GatherBytes where those are
	// the larger.
	Items, Patches, PixelBytes, BlockBytes, PeakBytes uint64
	// GatherBytes is, in data mode, what the data-parallel path holds
	// beside the pixels once the tower has run: the rank's outputs (and
	// a shorter rank's padded copy of them) and the all-gather's buffer
	// of every rank's.
	GatherBytes uint64
}

// encoderPassRule is how a tower kind's pass is sized.
type encoderPassRule struct {
	// patchesPerItem is the patches one item of t tokens runs through the
	// blocks.
	patchesPerItem func(v *model.VisionTower, t uint64) uint64
	// blockBytesPerPatch is the widest block's live activations a patch
	// on one rank at TP tp under release rel (see the rules below).
	blockBytesPerPatch func(v *model.VisionTower, rel Version, tp, d uint64) uint64
	// rotary says the blocks read per-patch rotary cos and sin tables.
	rotary bool
	// deviceNorm says the model normalizes the pixels on the device and
	// holds the normalized copy beside them through the pass.
	deviceNorm bool
}

// deviceNormSince is the first release whose Qwen2-VL and Qwen2.5-VL
// normalize the pixels on the device (FusedInputNorm, PR #50411, merged
// 2026-08-06, at main d18bb7b, from which 0.28.0's branch was cut).
var deviceNormSince = v0_28_0

// encoderPassRules are the tower kinds whose pass membudget sizes. The
// attention backends vLLM picks for them on CUDA (FlashAttention varlen, or
// SDPA's fused kernels; vllm/model_executor/layers/attention/
// mm_encoder_attention.py) hold no score matrix, so a block's peak is its
// live projections. The encoder is not compiled by default
// (compile_mm_encoder false, vllm/config/compilation.py:535) and a
// compiled serve turns custom ops off (custom_ops "none",
// vllm/config/vllm.py:1391-1398), so activations run their eager
// forward_native (vllm/model_executor/custom_op.py:185-194), whose
// temporaries count: SiluAndMul's silu beside its product
// (activation.py:134-137), QuickGELU's sigmoid (:628-630). An eager serve
// (custom ops on) runs fused kernels without them: the larger is charged.
var encoderPassRules = map[string]encoderPassRule{
	"qwen2_5_vl": {patchesPerItem: qwenPatches, blockBytesPerPatch: qwen25BlockBytes, rotary: true, deviceNorm: true},
	"qwen2_vl":   {patchesPerItem: qwenPatches, blockBytesPerPatch: qwen2BlockBytes, rotary: true, deviceNorm: true},
	// Qwen3-VL and Qwen3.5 do not normalize on the device.
	"qwen3_vl": {patchesPerItem: qwenPatches, blockBytesPerPatch: qwen3BlockBytes, rotary: true},
	// Gemma 3 passes the pixels to the tower as they are
	// (gemma3_mm.py:565-582), already in the model dtype.
	"siglip": {patchesPerItem: siglipPatches, blockBytesPerPatch: siglipBlockBytes},
	// PaliGemma's SigLIP, the same layers; its cast to the tower's dtype
	// (paligemma.py:351-359) finds the pixels already in it.
	"paligemma": {patchesPerItem: siglipPatches, blockBytesPerPatch: siglipBlockBytes},
}

// qwenPatches is Qwen's patches of an item of t merged tokens: each token is
// spatial_merge_size^2 patches (of temporal_patch_size frames).
func qwenPatches(v *model.VisionTower, t uint64) uint64 {
	m := max(v.SpatialMerge, 1)
	return budget.SatMul(t, m*m)
}

// siglipPatches is a SigLIP image's patches, (image_size / patch_size)^2,
// whatever tokens the projector pools them to (Gemma 3: 4096 patches of an
// 896-pixel image into 256 tokens).
func siglipPatches(v *model.VisionTower, _ uint64) uint64 {
	side := v.ImageSize / max(v.PatchSize, 1)
	return side * side
}

// qwen25BlockBytes is a Qwen2.5-VL block's live activations a patch at
// their widest (qwen2_5_vl.py:308-523), the larger of:
//   - the attention (Qwen2_5_VisionAttention.forward:399-468): the stream
//     and its norm1 output (H each, the caller holds both), qkv (3H/tp),
//     the contiguous q-k copy and its rotated copy (2H/tp each), the
//     context and its contiguous rearrangement (H/tp each, the first freed
//     when the second is made), and proj's output (H): 3H + 8H/tp;
//   - the MLP (Qwen2_5_VisionMLP.forward:339-343): the stream and the
//     attention's output, which norm2's fused add-norm overwrites in place
//     (vllm/model_executor/layers/layernorm.py:88,
//     ir.ops.fused_add_rms_norm.maybe_inplace), gate_up (2I/tp, still named
//     while down_proj runs), and SiluAndMul's silu and product (I/tp each):
//     2H + 4I/tp; at down_proj the product and its output (H): 3H + 3I/tp.
//     Before PR #36823 (merged 2026-05-01; 0.22.0 is the
//     first release surely after it) a compiled serve's RMSNorm ran
//     forward_native with custom ops off (vllm/config/vllm.py:1391-1398),
//     which adds and norms out of place: the sum and the normed input beside
//     the stream and the attention's output, 2H more. (An eager serve's
//     custom op worked in place then too; the larger is charged.)
func qwen25BlockBytes(v *model.VisionTower, rel Version, tp, d uint64) uint64 {
	h, i := v.Hidden, v.Intermediate
	attn := 3*h + 8*budget.CeilDiv(h, tp)
	mlp := max(2*h+4*budget.CeilDiv(i, tp), 3*h+3*budget.CeilDiv(i, tp))
	if rel.Less(fusedNormInPlaceSince) {
		mlp += 2 * h
	}
	return budget.SatMul(max(attn, mlp), d)
}

// fusedNormInPlaceSince is the first release whose RMSNorm with a residual
// adds and norms in place under torch.compile's defaults (PR #36823, vLLM
// IR's fused_add_rms_norm.maybe_inplace, merged 2026-05-01).
var fusedNormInPlaceSince = v0_22_0

// qwen2BlockBytes is a Qwen2-VL block's live activations a patch at their
// widest (qwen2_vl.py:243-443), the larger of:
//   - the attention (Qwen2VisionAttention.forward:354-391): as Qwen2.5-VL's,
//     3H + 8H/tp, and above TP 1 the all-gathered qkv (3H), which split_qkv's
//     views of q, k and v keep alive (:326-343);
//   - the MLP (Qwen2VisionMLP.forward:270-274, the block's
//     x + self.mlp(self.norm2(x)), :442): the stream and norm2's output
//     (H each; LayerNorm, out of place), fc1's output, QuickGELU's sigmoid
//     and its product (I/tp each): 2H + 3I/tp, or at fc2 3H + I/tp.
func qwen2BlockBytes(v *model.VisionTower, _ Version, tp, d uint64) uint64 {
	h, i := v.Hidden, v.Intermediate
	attn := 3*h + 8*budget.CeilDiv(h, tp)
	if tp > 1 {
		attn += 3 * h
	}
	mlp := max(2*h+3*budget.CeilDiv(i, tp), 3*h+budget.CeilDiv(i, tp))
	return budget.SatMul(max(attn, mlp), d)
}

// qwen3BlockBytes is what Qwen3-VL's (and Qwen3.5's) tower holds a patch
// at its widest (qwen3_vl.py:399-500, Qwen3_VisionTransformer.forward:
// 842-883, the position embeddings added at :860): the position embeddings its metadata keeps through the pass
// (H, fast_pos_embed_interpolate), and the larger of
//   - a block (Qwen3_VisionBlock.forward:479-498: Qwen2.5-VL's attention,
//     3H + 8H/tp; LayerNorms out of place and linear_fc2(act(linear_fc1(x)))
//     with GELU-tanh, one torch kernel (_ACTIVATION_REGISTRY, activation.py:
//     803-820): 2H + 2I/tp, or at fc2 3H + I/tp), with the deepstack
//     features already merged beside it (Deepstack x OutHidden /
//     merge^2: each deepstack layer's merger output, kept to the end);
//   - the final torch.cat of the merger's output and the deepstack
//     features (:880-882): both sides, 2 (1 + Deepstack) OutHidden /
//     merge^2.
func qwen3BlockBytes(v *model.VisionTower, _ Version, tp, d uint64) uint64 {
	h, i := v.Hidden, v.Intermediate
	m := max(v.SpatialMerge, 1)
	out := budget.CeilDiv(cmp.Or(v.OutHidden, h), m*m)
	attn := 3*h + 8*budget.CeilDiv(h, tp)
	mlp := max(2*h+2*budget.CeilDiv(i, tp), 3*h+budget.CeilDiv(i, tp))
	blocks := max(attn, mlp) + v.Deepstack*out
	cat := 2 * (1 + v.Deepstack) * out
	return budget.SatMul(h+max(blocks, cat), d)
}

// siglipBlockBytes is a SigLIP encoder layer's live activations a patch at
// their widest (siglip.py:467-516, SiglipEncoder.forward:550-563): the
// encoder holds its input embeddings in hidden_states_pool and the loop's
// input beside them (H each); the layer's attention adds the norm1 output
// (H), qkv (3H/tp), the attention's output (H/tp) and out_proj's (H),
// which `+= residual` keeps: 4H + 4H/tp; its MLP the residual and norm2's
// output (H each), fc1's output and its activation (I/tp each, fc1's freed
// once the activation is named; GELU-tanh is one torch kernel,
// activation.py:803-820): 4H + 2I/tp, or at fc2 4H + I/tp + H.
func siglipBlockBytes(v *model.VisionTower, _ Version, tp, d uint64) uint64 {
	h, i := v.Hidden, v.Intermediate
	attn := 4*h + 4*budget.CeilDiv(h, tp)
	mlp := max(4*h+2*budget.CeilDiv(i, tp), 5*h+budget.CeilDiv(i, tp))
	return budget.SatMul(max(attn, mlp), d)
}

// pixelBytesPerPatch is the pixels of a patch vLLM holds through the pass:
// channels x temporal_patch_size x patch_size^2 values in the model dtype
// (the processor's floating outputs are cast to it,
// vllm/multimodal/processing/context.py:245-247), kept in the dummy batch's
// kwargs until profile_run returns; where the model normalizes them on the
// device, the normalized copy too (qwen2_5_vl.py:1501-1510, input_norm's
// output, held while self.visual runs).
func pixelBytesPerPatch(v *model.VisionTower, rule encoderPassRule, rel Version, d uint64) uint64 {
	values := pixelValuesPerPatch(v)
	per := d
	if rule.deviceNorm && !rel.Less(deviceNormSince) {
		per += d
	}
	return budget.SatMul(values, per)
}

// pixelValuesPerPatch is a patch's pixel values: channels x
// temporal_patch_size x patch_size^2.
func pixelValuesPerPatch(v *model.VisionTower) uint64 {
	return budget.SatMul(max(v.Channels, 1)*max(v.TemporalPatch, 1), v.PatchSize*v.PatchSize)
}

// sizeEncoderPass sizes the pass of e's dummy batch through a's tower, or
// says why it is not sized.
//
// Under --mm-encoder-tp-mode data (encoderDataParallel) every rank holds
// the whole dummy batch's pixels and runs run_dp_sharded_mrope_vision_model
// (vllm/model_executor/models/vision.py:397-584 at d18bb7b):
// get_load_balance_assignment deals the K equal items to the least
// loaded rank in turn, so rank 0 encodes ceil(K / TP) of them, the most;
// it copies their pixels out (torch.cat, :470-477) and runs the whole tower
// on them (TP 1 in the blocks' widths). Once the tower returns, the rank
// holds its outputs, a rank of fewer items a padded copy of its own too
// (:521-540), and all_gather's buffer of TP x ceil(K / TP) items' rows
// (base_device_communicator.py:229-252), which the cached outputs are
// views of; at TP 1 all_gather returns its input (parallel_state.py:
// 691-695).
func sizeEncoderPass(a *model.Arch, r *Resolved, e EncoderProfile) EncoderPass {
	if !e.Runs {
		return EncoderPass{}
	}
	v := a.Vision
	rule, ok := encoderPassRules[v.Kind]
	switch {
	case !e.Sized:
		return EncoderPass{Why: "its dummy items are not sized: see the encoder cache"}
	case !ok:
		return EncoderPass{Why: fmt.Sprintf("the %s tower's blocks, attention backend and projector are not modelled", v.Kind)}
	case v.Hidden == 0 || v.PatchSize == 0:
		return EncoderPass{Why: fmt.Sprintf("the %s tower's config gives no width or patch size", v.Kind)}
	}
	ranks := max(r.TensorParallelSize, 1)
	tp, dp := ranks, encoderGathered(a, r.MM)
	d := r.DtypeBytes
	perItem := rule.patchesPerItem(v, e.TokensPerItem)
	p := EncoderPass{Sized: true}
	share := e.Items
	if dp {
		share, tp = budget.CeilDiv(e.Items, ranks), 1
		p.Items = share
	}
	p.Patches = budget.SatMul(share, perItem)
	p.PixelBytes = budget.SatMul(budget.SatMul(e.Items, perItem), pixelBytesPerPatch(v, rule, r.Profile.Release, d))
	if dp {
		// The rank's pixels copied out, in the model dtype.
		p.PixelBytes = budget.SatAdd(p.PixelBytes, budget.SatMul(p.Patches, budget.SatMul(pixelValuesPerPatch(v), d)))
	}
	p.BlockBytes = budget.SatMul(p.Patches, rule.blockBytesPerPatch(v, r.Profile.Release, tp, d))
	tower := p.BlockBytes
	if rule.rotary && v.Heads > 0 {
		// prepare_encoder_metadata's cos and sin, head_dim/2 values a patch
		// each, gathered from get_rope's cache in the model dtype
		// (qwen2_5_vl.py:912-990, qwen2_vl.py:609-646).
		tower = budget.SatAdd(tower, budget.SatMul(p.Patches, budget.SatMul(v.Hidden/v.Heads, d)))
	}
	p.PeakBytes = budget.SatAdd(p.PixelBytes, tower)
	if dp {
		// An item's outputs: its tokens x the projector's width (with
		// Qwen3-VL's deepstack features) in the model dtype.
		width := budget.SatMul(cmp.Or(v.OutHidden, a.Hidden), 1+v.Deepstack)
		item := budget.SatMul(e.TokensPerItem, budget.SatMul(width, d))
		own := budget.SatMul(share, item)
		p.GatherBytes = own
		if ranks > 1 {
			if e.Items%ranks != 0 {
				// A rank of ceil - 1 items holds its outputs and their
				// copy padded to ceil: 2 ceil - 1 items' rows, more than
				// rank 0's ceil once ceil is above 1 (its pixels fewer
				// by an item than rank 0's, charged).
				own = max(own, budget.SatMul(2*share-1, item))
			}
			p.GatherBytes = budget.SatAdd(own, budget.SatMul(budget.SatMul(share, ranks), item))
		}
		p.PeakBytes = max(p.PeakBytes, budget.SatAdd(p.PixelBytes, p.GatherBytes))
	}
	return p
}

// appendEncoderPass appends the encoder pass to a stage's items: what its
// peak, with the residual the decoder's peak also holds, exceeds the
// decoder's dummy run and sampler with the encoder cache beside them (every
// activation and sampler item of the stage): the torch peak is the larger
// of the two.
func appendEncoderPass(items []budget.Item, r *Resolved, st model.Sharding) []budget.Item {
	p := r.EncoderPass
	if !p.Sized || !st.First && !r.Encoder.EveryStage {
		return items
	}
	pass := budget.SatAdd(p.PeakBytes, r.Profile.peaks.residualBytes)
	for _, it := range items {
		if it.Name == "draft_buffers" {
			// A drafter's proposer makes its buffers when the runner is
			// built (specdraft.go eachProposerBuffer), before profile_run
			// runs the encoder: they are alive through its pass too.
			pass = budget.SatAdd(pass, it.Bytes)
		}
	}
	return append(items, budget.Item{Name: "encoder_pass", Term: budget.TermActivation, Bytes: budget.SatSub(pass, peakOf(items))})
}

// encoderPassBytes is what the encoder pass adds on stage i: 0 where the
// decoder's run is the larger; false where it is not charged there.
func (sz *Sizing) encoderPassBytes(i int) (uint64, bool) {
	return encoderPassOnStage(sz.Model.Arch, sz.Serve, i)
}

// encoderPassOnStage is the encoder pass item of stage i of r's serve of a.
func encoderPassOnStage(a *model.Arch, r *Resolved, i int) (uint64, bool) {
	if a == nil || !r.EncoderPass.Sized || i >= len(r.Stages) || i != 0 && !r.Encoder.EveryStage {
		return 0, false
	}
	for _, it := range peakItems(a, r, stageOf(r, i)) {
		if it.Name == "encoder_pass" {
			return it.Bytes, true
		}
	}
	return 0, false
}

// noteEncoderPass says on explain's activation line what of the predicted
// peak is the encoder pass.
func noteEncoderPass(preds map[string]explain.Predicted, ref *Reference) {
	b, ok := encoderPassOnStage(ref.Arch, &ref.Serve, 0)
	pr, has := preds["activation_peak"]
	if !ok || !has {
		return
	}
	note := fmt.Sprintf("the profile's encoder pass (%d patches, %s at its peak) is the larger and adds %s over the decoder's run with the encoder cache", ref.Serve.EncoderPass.Patches, engine.GiB(ref.Serve.EncoderPass.PeakBytes), engine.GiB(b))
	if b == 0 {
		note = fmt.Sprintf("the profile's encoder pass (%d patches, %s at its peak) stays under the decoder's run with the encoder cache", ref.Serve.EncoderPass.Patches, engine.GiB(ref.Serve.EncoderPass.PeakBytes))
	}
	pr.Note = explain.JoinNote(pr.Note, note)
	preds["activation_peak"] = pr
}

// splitEncoderPass names the encoder pass in a footprint's lines, after
// the activation peak (and the encoder cache).
func (sz *Sizing) splitEncoderPass(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	b, ok := sz.encoderPassBytes(fp.Stage)
	if !ok {
		return lines
	}
	for i, l := range lines {
		if l.Label == termLabels[budget.TermActivation] && !l.Beside {
			lines[i].Bytes = budget.SatSub(l.Bytes, b)
			at := i + 1
			if at < len(lines) && lines[at].Label == "encoder cache" {
				at++
			}
			return slices.Insert(lines, at, engine.FootprintLine{Label: "encoder pass", Bytes: b})
		}
	}
	return lines
}

// encoderPassLine is the report's line on the encoder pass.
func (sz *Sizing) encoderPassLine() string {
	p := sz.Serve.EncoderPass
	if !p.Sized {
		return "encoder pass: the profile run's pass of the dummy items through the vision tower is not charged (" + cmp.Or(p.Why, "not sized") + "): vLLM's KV cache comes out smaller by its activations, several GiB for a large item"
	}
	if encoderGathered(sz.Model.Arch, sz.Serve.MM) {
		return fmt.Sprintf("encoder pass: --mm-encoder-tp-mode data: each GPU encodes its share of the %d dummy items, at most %d, %d patches through the whole vision tower, and holds %s at its peak (pixels %s with its share's copy, the widest block %s, the all-gather of the outputs %s); the profile's torch peak is the larger of it and the decoder's run with the encoder cache",
			sz.Serve.Encoder.Items, p.Items, p.Patches, engine.GiB(p.PeakBytes), engine.GiB(p.PixelBytes), engine.GiB(p.BlockBytes), engine.GiB(p.GatherBytes))
	}
	return fmt.Sprintf("encoder pass: %d patches through the vision tower hold %s at their peak (pixels %s, the widest block %s); the profile's torch peak is the larger of it and the decoder's run with the encoder cache",
		p.Patches, engine.GiB(p.PeakBytes), engine.GiB(p.PixelBytes), engine.GiB(p.BlockBytes))
}
