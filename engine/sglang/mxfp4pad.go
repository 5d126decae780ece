package sglang

import (
	"fmt"

	"membudget/budget"
	"membudget/model"
)

// gpt-oss's MXFP4 experts on Blackwell. For a gpt-oss checkpoint in MXFP4
// with --moe-runner-backend auto (membudget refuses any other), SGLang
// picks FlashInfer's MXFP4 MoE kernel wherever is_blackwell_supported()
// holds (v0.5.6.post2 server_args.py:1155-1163; v0.5.7 :1193-1203; v0.5.8
// and v0.5.8.post1 :1301-1311; v0.5.9 :1370-1375, no longer behind
// --enable-piecewise-cuda-graph, which membudget refuses anyway). Under it:
//   - FusedMoE rounds the hidden size up to 256 before it creates the
//     weights (layers/moe/fused_moe_triton/layer.py:197-205 at
//     v0.5.6.post2 and v0.5.6.post3, :210-218 at v0.5.7, :220-228 at v0.5.8
//     and v0.5.8.post1, :245-253 at v0.5.9), on every Blackwell;
//   - Mxfp4MoEMethod.create_weights rounds each rank's intermediate size
//     up to 256 and the hidden size again to 256 on SM10x
//     (is_sm100_supported(); layers/quantization/mxfp4.py:299-304 at
//     v0.5.6.post2 to v0.5.7, :285-290 at v0.5.8 and v0.5.8.post1, :327-332
//     at v0.5.9), and elsewhere to 32 only when OpenAI's triton_kernels is
//     importable (:309-315; :295-301; :349-355), which pyproject.toml does
//     not pin: gpt-oss-120b's and -20b's hidden 2880 becomes 3072, the
//     intermediate 2880 per rank 3072 at TP 1, 1536 at TP 2, 768 at TP 4
//     and 512 at TP 8;
//   - process_weights_after_loading converts the expert biases, created
//     in bfloat16 at the padded sizes, to float32 (mxfp4.py:452-453 at
//     v0.5.6.post2; :438-439 at v0.5.8; :488-489 at v0.5.9), shuffles the
//     weights and scales into tensors of the same shapes, and adds three
//     float32 tensors of one value per local expert to each layer,
//     gemm1_alpha, gemm1_beta and gemm1_clamp_limit (:395-406; :381-392;
//     :431-442). The tensors the shuffles replace are freed, and
//     get_available_gpu_memory empties the cache before SGLang measures
//     the load (utils/common.py:490-508 at v0.5.6.post2), so they are not
//     charged.
// The padding came with FlashInfer's MXFP4 kernel (sgl-project/sglang PR
// #8847, 2025-08-07), after v0.4.9.post2, which has no native gpt-oss.

// mxfp4FlashInferRead are the releases whose FlashInfer MXFP4 path above
// membudget has read at their tags, and what each adds to it.
var mxfp4FlashInferRead = map[string]mxfp4Release{
	"v0.5.6.post2": {}, "v0.5.6.post3": {}, "v0.5.7": {}, "v0.5.8": {}, "v0.5.8.post1": {},
	"v0.5.9": {permuteCache: true}, "v0.5.9.post1": {permuteCache: true},
}

// mxfp4Release is what a release adds to the FlashInfer MXFP4 path.
type mxfp4Release struct {
	// permuteCache says the shuffles' row permutations are kept on the
	// device, one int64 tensor of a matrix's rows per distinct key (its
	// shape, and whether it is a scale), shared by every layer (PR
	// #18858; v0.5.9 layers/quantization/mxfp4.py:68-105, 521-547; FlashInfer
	// 0.6.3's get_w2_permute_indices_with_cache, fused_moe/core.py:243-265,
	// builds them on the device with get_shuffle_matrix_a_row_indices,
	// utils.py:751-788, torch.long of the matrix's M rows). Off Blackwell
	// the release is not read: it pads for aiter on ROCm (:337-348) and
	// picks triton_kernels only without --quantization (server_args.py:
	// 1390-1397), and MXFP4 there is refused.
	permuteCache bool
}

// MXFP4 kernels' rounding, from the lines cited above.
const (
	// mxfp4FlashInferMultiple is round_up(..., 256) of the hidden size
	// (FusedMoE, every Blackwell) and of SM10x's intermediate size.
	mxfp4FlashInferMultiple = 256
	// mxfp4TritonBlock is mxfp4_block, the intermediate's multiple off
	// SM10x when triton_kernels is importable.
	mxfp4TritonBlock = 32
	// mxfp4ExpertScalars is the float32 tensors of one value per local
	// expert the FlashInfer path adds per layer.
	mxfp4ExpertScalars = 3
)

// blackwellSupported says SGLang's is_blackwell_supported() holds on si
// under p: SM10x and SM12x, and SM11x from v0.5.9 (utils/common.py:220-226
// at v0.5.7, :246-252 at v0.5.9). MXFP4's kernel, DeepGEMM's UE8M0 scales
// and the TensorRT-LLM MLA backend all turn on it.
func blackwellSupported(p Profile, si budget.Silicon) bool {
	return si.Vendor == budget.NVIDIA && (si.Major == 10 || si.Major == 12 || si.Major == 11 && p.BlackwellSM11)
}

// resolveMXFP4 sets, on every stage, how SGLang lays out gpt-oss's MXFP4
// experts on class c when it takes FlashInfer's MXFP4 MoE kernel, and
// refuses by name the serves where that layout is not known or SGLang
// does not load it: a release whose path is not read, and, off SM10x,
// every size FlashInfer's scale shuffle rejects or triton_kernels'
// presence would change (see [Resolved.mxfp4OffSM100]). Off Blackwell
// (Hopper and older, whose layouts triton_kernels' presence decides) it
// refuses them (see [Resolved.mxfp4OffBlackwell]).
func (r *Resolved) resolveMXFP4(a *model.Arch, c budget.Class) error {
	si := c.Device.Silicon
	if r.Quant.Method != "mxfp4" {
		return nil
	}
	rel, read := mxfp4FlashInferRead[r.Profile.Name]
	if !blackwellSupported(r.Profile, si) {
		if rel.permuteCache {
			return settingErr("model", a.Source, "%s changes MXFP4 off Blackwell as well as on it (PR #18858's device cache of the shuffles' permutation indices, layers/quantization/mxfp4.py:68-105; aiter's pad to 256 on ROCm, :337-348; triton_kernels only without --quantization, server_args.py:1390-1397), and off Blackwell membudget has not read it; membudget refuses it rather than size weights its SGLang lays out otherwise", r.Profile.Describes)
		}
		return r.mxfp4OffBlackwell(a, c)
	}
	if !read {
		return settingErr("model", a.Source, "%s loads gpt-oss's MXFP4 experts for FlashInfer's MoE kernel on %s (padded to 256), a path membudget has not read at this release; membudget refuses it rather than size weights its SGLang lays out otherwise", r.Profile.Describes, c.Device.Name)
	}
	k := model.MXFP4Kernel{HiddenMultiple: mxfp4FlashInferMultiple, BiasFloat32: true}
	perRank := a.MoEIntermediate / max(r.TPSize, 1)
	if si.Major == 10 {
		k.IntermediateMultiple = mxfp4FlashInferMultiple
	} else if err := r.mxfp4OffSM100(a, c, perRank); err != nil {
		return err
	}
	for i := range r.Stages {
		r.Stages[i].MXFP4 = k
	}
	return nil
}

// mxfp4OffSM100 refuses gpt-oss's MXFP4 experts on SM11x and SM12x, where
// create_weights leaves the intermediate per rank as it is, or rounds it
// up to 32 when triton_kernels imports (mxfp4.py:309-315 at v0.5.6.post2),
// and process_weights_after_loading still shuffles the scales for
// FlashInfer's kernel: shuffle_matrix_sf_a asserts that w2's scales, of
// intermediate/32 columns per expert, have a multiple of 4 columns, and
// w13's, of 2 x intermediate rows, a multiple of 128 rows (flashinfer
// utils.py:798-799 at 0.5.3, :803-804 at 0.6.1; get_shuffle_matrix_sf_a_
// row_indices, which shuffle_matrix_sf_a calls at fp4_quantization.py:
// 791 and :797). Where neither size passes, SGLang fails at load; where
// the two differ, which one SGLang takes depends on a package membudget
// cannot see. gpt-oss (intermediate 2880: 90 scale columns at TP 1, 45 at
// TP 2; 720 and 360 per rank at TP 4 and 8) is refused at every TP: the
// failure is sgl-project/sglang#13061 (gpt-oss on an RTX 5090, the
// traceback in load_model) and flashinfer#2122, whose fix (flashinfer PR
// #3163, 2026-04-24, dropping the K % 4 assertion for K = 90) no
// FlashInfer these releases pin has.
func (r *Resolved) mxfp4OffSM100(a *model.Arch, c budget.Class, perRank uint64) error {
	starts := func(i uint64) bool { return (i/mxfp4TritonBlock)%4 == 0 && (2*i)%128 == 0 }
	rounded := budget.RoundUp(perRank, mxfp4TritonBlock)
	switch {
	case !starts(perRank) && !starts(rounded):
		return settingErr("model", a.Source, "%s does not start gpt-oss's MXFP4 experts on %s: it takes FlashInfer's MoE kernel there but creates them unpadded (%d intermediate per rank, %d after triton_kernels' round to 32), and FlashInfer's shuffle_matrix_sf_a asserts that w2's scales have a multiple of 4 columns and w13's a multiple of 128 rows (%d and %d here; flashinfer utils.py get_shuffle_matrix_sf_a_row_indices; sgl-project/sglang#13061, flashinfer#2122)",
			r.Profile.Describes, c.Device.Name, perRank, rounded, perRank/mxfp4TritonBlock, 2*perRank)
	case perRank != rounded:
		return settingErr("tp-size", fmt.Sprint(r.TPSize), "gpt-oss's expert intermediate per rank, %d, is not a multiple of %d: on %s, %s rounds it up to %d only when OpenAI's triton_kernels is installed (layers/quantization/mxfp4.py create_weights), which membudget cannot see; membudget refuses it rather than guess the experts' size",
			perRank, mxfp4TritonBlock, c.Device.Name, r.Profile.Describes, mxfp4TritonBlock)
	}
	return nil
}

// mxfp4Items is what the FlashInfer MXFP4 path adds to stage st's load
// under r: gemm1_alpha, gemm1_beta and gemm1_clamp_limit of every MoE
// layer (float32, one value per local expert, each its own allocation),
// and, where the release caches them, the shuffles' permutation indices.
func mxfp4Items(a *model.Arch, r Resolved, st model.Sharding) []budget.Item {
	if st.MXFP4.HiddenMultiple == 0 {
		return nil
	}
	var items []budget.Item
	for i := st.FirstLayer; i < st.EndLayer; i++ {
		if !a.Layers[i].MoE {
			continue
		}
		for _, name := range [mxfp4ExpertScalars]string{"gemm1_alpha", "gemm1_beta", "gemm1_clamp_limit"} {
			items = append(items, budget.Item{Name: fmt.Sprintf("model.layers.%d.mlp.experts.%s", i, name), Term: budget.TermWeights, Bytes: budget.SatMul(a.Experts, 4)})
		}
	}
	if !mxfp4FlashInferRead[r.Profile.Name].permuteCache {
		return items
	}
	return append(items, mxfp4PermuteItems(a, r, st.MXFP4)...)
}

// mxfp4PermuteItems is the device cache of the shuffles' row
// permutations: one torch.long tensor per distinct key, the key a matrix's
// shape and whether it is a scale (num_elts_per_sf given). The six
// matrices of an expert (v0.5.9 mxfp4.py:521-547) are w13's weight [2I,
// H/2], scales [2I, H/32] and bias [2I, 1], and w2's [H, I/2], [H, I/32]
// and [H, 1], I and H padded; the biases share a key where 2I = H.
func mxfp4PermuteItems(a *model.Arch, r Resolved, k model.MXFP4Kernel) []budget.Item {
	i := k.Intermediate(a.MoEIntermediate / max(r.TPSize, 1))
	h := k.Hidden(a.Hidden)
	type key struct {
		rows, cols uint64
		scale      bool
	}
	mats := []struct {
		name string
		key  key
	}{
		{"w13_weight", key{2 * i, h / 2, false}}, {"w13_weight_scale", key{2 * i, h / mxfp4TritonBlock, true}}, {"w13_bias", key{2 * i, 1, false}},
		{"w2_weight", key{h, i / 2, false}}, {"w2_weight_scale", key{h, i / mxfp4TritonBlock, true}}, {"w2_bias", key{h, 1, false}},
	}
	seen := map[key]bool{}
	var items []budget.Item
	for _, m := range mats {
		if seen[m.key] {
			continue
		}
		seen[m.key] = true
		items = append(items, budget.Item{Name: "mxfp4_permute_indices." + m.name, Term: budget.TermWeights, Bytes: budget.SatMul(m.key.rows, 8)})
	}
	return items
}
