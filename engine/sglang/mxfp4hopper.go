package sglang

import (
	"membudget/budget"
	"membudget/model"
)

// gpt-oss's MXFP4 experts off Blackwell. Where is_blackwell_supported()
// does not hold, SGLang v0.5.6.post2 to v0.5.8.post1 loads them one of
// three ways, and which one depends on whether OpenAI's triton_kernels
// imports (is_triton_kernels_available, importlib.util.find_spec;
// utils/common.py:3448-3449 at v0.5.6.post2). triton_kernels is neither a
// dependency of the sglang wheel (python/pyproject.toml at each tag) nor
// installed by docker/Dockerfile, so a launch line cannot say:
//   - triton_kernels importable and --ep-size 1: server_args picks the
//     triton_kernel MoE runner (server_args.py:1166 at v0.5.6.post2 and
//     .post3, :1204 at v0.5.7); create_weights rounds each rank's
//     intermediate up to 32 (layers/quantization/mxfp4.py:309-315), and
//     process_weights_after_loading converts the biases to float32
//     (:552-553) and swizzles the weights and scales into the layouts
//     triton_kernels' make_default_matmul_mxfp4_w_layout and
//     _w_scale_layout choose for the device (_swizzle_mxfp4, :92-119),
//     deleting the checkpoint's weights but not its scales (:576-577): the
//     Hopper layouts pad per triton_kernels' release, which SGLang does not
//     pin either;
//   - triton_kernels importable with --ep-size above 1: the Triton runner,
//     the experts upcast to bfloat16 at load (upcast_from_mxfp, :578-590),
//     four times the checkpoint's values;
//   - triton_kernels absent: the same branch imports it
//     (triton_kernels.numerics_details.mxfp, :579) and the load fails.
// Below compute capability 8.0 SGLang refuses MXFP4 outright
// (Mxfp4Config.get_min_capability, :214-215). v0.5.8 and later refuse
// gpt-oss off SM100 earlier for its split pool, and v0.5.9's MXFP4 off
// Blackwell is refused in resolveMXFP4.

// mxfp4MinMajor is Mxfp4Config.get_min_capability()'s 80 (mxfp4.py:214-215
// at v0.5.6.post2, :200-201 at v0.5.8).
const mxfp4MinMajor = 8

// mxfp4OffBlackwell refuses, naming the model, gpt-oss's MXFP4 experts on
// class c when it is not Blackwell: SGLang either refuses them, or lays
// them out as a package membudget cannot see decides (see above).
func (r *Resolved) mxfp4OffBlackwell(a *model.Arch, c budget.Class) error {
	si := c.Device.Silicon
	switch {
	case si.Vendor != budget.NVIDIA:
		return settingErr("model", a.Source, "%s loads MXFP4 experts on %s through a path membudget has not read (aiter on ROCm, layers/quantization/mxfp4.py); membudget refuses it rather than size weights its SGLang lays out otherwise", r.Profile.Describes, c.Device.Name)
	case si.Major < mxfp4MinMajor:
		return settingErr("model", a.Source, "%s refuses MXFP4 on %s: Mxfp4Config needs compute capability 8.0 or later (get_min_capability, layers/quantization/mxfp4.py)", r.Profile.Describes, c.Device.Name)
	}
	return settingErr("model", a.Source, "%s lays gpt-oss's MXFP4 experts out on %s as OpenAI's triton_kernels decides, a package neither its wheel nor its image installs: with it and --ep-size 1 they are swizzled into triton_kernels' layouts (intermediate rounded to 32, float32 biases, the checkpoint's scales kept beside the swizzled copy), with it and --ep-size above 1 upcast to bfloat16, and without it the load fails importing triton_kernels (layers/quantization/mxfp4.py process_weights_after_loading; server_args.py's triton_kernel choice); membudget cannot see which, and refuses it rather than size the checkpoint's layout SGLang does not keep", r.Profile.Describes, c.Device.Name)
}
