package model

import (
	"membudget/budget"
)

// shardCount is the checkpoint modules a fused module holds, 1 for one
// vLLM does not fuse.
func (w *weights) shardCount(module string) uint64 {
	_, proj := splitLast(module)
	if n := len(w.t.packed[proj]); n > 0 {
		return uint64(n)
	}
	return 1
}

// matrix adds a linear layer's tensors on one rank, k inputs by n outputs
// (fullK inputs before a row split), in scheme s, as vLLM keeps them after
// loading:
//
//   - unquantized: weight [n, k] in the model dtype (linear.py:169-194);
//   - FP8 (fp8.py:294-416, compressed_tensors_w8a8_fp8.py:91-174,
//     modelopt.py:455-609): weight [n, k] of one byte; a per-tensor scale
//     reduced to one fp32, a per-channel one [n] fp32, or a block one
//     [ceil(n/bn), ceil(k/bk)] fp32 (fp8's weight_scale_inv); a static
//     activation scale, one fp32;
//   - INT8 (compressed_tensors_w8a8_int8.py:39-104): weight [n, k] int8,
//     scales [n] fp32 per channel or one fp32 per shard, a static input
//     scale;
//   - PackedInt, AWQ (auto_awq.py:439-526): qweight [k, n*bits/32] int32,
//     qzeros [G, n*bits/32] int32, scales [G, n] model dtype, G =
//     ceil(k/group);
//   - PackedInt, GPTQ (auto_gptq.py:326-453): qweight [k*bits/32, n]
//     int32, g_idx [k] int32 (always created), scales [G, n], qzeros [G,
//     n*bits/32] int32, G over the whole input on a row-parallel layer
//     with act-order (marlin_repeat_scales_on_all_ranks);
//   - PackedInt, compressed-tensors (compressed_tensors_wNa16.py:102-246):
//     weight_packed [n, k*bits/32] int32, weight_scale [n, G] model dtype
//     (G = 1 per channel), weight_zero_point [n*bits/32, G] int32 when
//     asymmetric, weight_g_idx [k] int32 with group act-order, weight_shape
//     int64[2];
//   - NVFP4 (modelopt.py:1109-1215, compressed_tensors_w4a4_nvfp4.py):
//     weight [n, k/2] uint8, weight_scale [n, k/16] fp8 (W4A4 padded as
//     Sharding.NVFP4 says: see [NVFP4Kernel]), and the
//     fp32 scalars left after loading: W4A4 input and weight global scales,
//     alpha and the input scale's inverse; W4A16 the weight global scale;
//   - BnB4 (bitsandbytes.py:247-277, bitsandbytes_loader.py:301-309 at
//     dedbf6be8): weight [n*k/2] uint8, and per shard an fp32 absmax per
//     64 weights (double quantization undone at load) and a 16-entry fp32
//     code;
//   - BnB8 (bitsandbytes.py:225-245): weight [n, k] int8; its SCB row
//     scales stay in host memory.
func (w *weights) matrix(module string, k, n, fullK, count uint64, s Scheme) {
	x := func(v uint64) uint64 { return budget.SatMul(v, count) }
	elems := budget.SatMul(k, n)
	switch s.Format {
	case Unquantized:
		w.add(module+".weight", x(bytesOf(elems, w.dt)))
	case FP8, INT8:
		w.add(module+".weight", x(elems))
		switch {
		case s.Scale == PerBlock:
			name := module + ".weight_scale"
			if s.layout == "fp8" {
				name = module + ".weight_scale_inv"
			}
			w.add(name, x(bytesOf(budget.SatMul(budget.CeilDiv(n, s.BlockN), budget.CeilDiv(k, s.BlockK)), 4)))
		case s.Scale == PerChannel:
			w.add(module+".weight_scale", x(bytesOf(n, 4)))
		case s.Format == INT8:
			w.add(module+".weight_scale", x(bytesOf(w.shardCount(module), 4)))
		default:
			w.add(module+".weight_scale", x(4))
		}
		if s.StaticInput {
			w.add(module+".input_scale", x(4))
		}
	case PackedInt:
		w.packedInt(module, k, n, fullK, count, s)
	case NVFP4:
		kern := w.nvfp4Kernel(s)
		wn, wk := n, k
		if kern.LinearWeightPad {
			wn, wk = budget.RoundUp(n, 32), budget.RoundUp(k, 32)
		}
		w.add(module+".weight", x(budget.SatMul(wn, budget.CeilDiv(wk, 2))))
		scales := budget.SatMul(n, budget.CeilDiv(k, 16))
		if kern.LinearSwizzle {
			scales = swizzled(n, budget.CeilDiv(k, 16))
		}
		w.add(module+".weight_scale", x(scales))
		scalars := uint64(1) // weight global scale
		if s.StaticInput {
			scalars = 4 // input and weight global scales, alpha, the input's inverse
		}
		w.add(module+".global_scales", x(scalars*4))
	case BnB4:
		w.add(module+".weight", x(budget.CeilDiv(elems, 2)))
		shards := w.shardCount(module)
		w.add(module+".weight.absmax", x(bytesOf(budget.CeilDiv(elems, 64), 4)))
		w.add(module+".weight.quant_map", x(bytesOf(16*shards, 4)))
	case BnB8:
		w.add(module+".weight", x(elems))
	case MXFP4:
		// vLLM keeps linear layers of an MXFP4 checkpoint unquantized.
		w.add(module+".weight", x(bytesOf(elems, w.dt)))
	}
}

// packedInt adds a PackedInt linear layer's tensors.
func (w *weights) packedInt(module string, k, n, fullK, count uint64, s Scheme) {
	x := func(v uint64) uint64 { return budget.SatMul(v, count) }
	bits := s.Bits
	groupsOf := func(rows uint64) uint64 {
		if s.GroupSize == 0 {
			return 1
		}
		return budget.CeilDiv(rows, s.GroupSize)
	}
	g := groupsOf(k)
	packedWords := func(v uint64) uint64 { return budget.CeilDiv(budget.SatMul(v, bits), 32) }
	switch s.layout {
	case "awq":
		w.add(module+".qweight", x(bytesOf(budget.SatMul(k, packedWords(n)), 4)))
		w.add(module+".qzeros", x(bytesOf(budget.SatMul(g, packedWords(n)), 4)))
		w.add(module+".scales", x(bytesOf(budget.SatMul(g, n), w.dt)))
	case "gptq":
		if s.ActOrder && s.GroupSize > 0 && fullK != k {
			g = groupsOf(fullK)
		}
		w.add(module+".qweight", x(bytesOf(budget.SatMul(packedWords(k), n), 4)))
		w.add(module+".g_idx", x(bytesOf(k, 4)))
		w.add(module+".scales", x(bytesOf(budget.SatMul(g, n), w.dt)))
		w.add(module+".qzeros", x(bytesOf(budget.SatMul(g, packedWords(n)), 4)))
	default: // compressed-tensors
		if s.ActOrder && fullK != k {
			g = groupsOf(fullK)
		}
		w.add(module+".weight_packed", x(bytesOf(budget.SatMul(n, packedWords(k)), 4)))
		w.add(module+".weight_scale", x(bytesOf(budget.SatMul(n, g), w.dt)))
		if s.ZeroPoints {
			w.add(module+".weight_zero_point", x(bytesOf(budget.SatMul(packedWords(n), g), 4)))
		}
		if s.ActOrder {
			w.add(module+".weight_g_idx", x(bytesOf(k, 4)))
		}
		w.add(module+".weight_shape", x(16))
	}
}

// experts adds fused experts at module: e experts of hidden size h and
// intermediate i on this rank, w13 (gate and up, or up alone for an
// ungated MLP) and w2 (down), as the MoE method of scheme s allocates them
// (vllm/model_executor/layers/fused_moe/ and each method's MoE class):
//
//   - unquantized: w13 [e, 2i, h], w2 [e, h, i] in the model dtype,
//     biases [e, 2i] and [e, h] where the model has them;
//   - FP8 (fp8.py:506-647, compressed_tensors_moe_w8a8_fp8.py,
//     modelopt.py:773-850): one byte per weight; per-tensor scales [e] fp32
//     each, per-channel [e, 2i] and [e, h] fp32, block [e,
//     shards*ceil(i/bn), ceil(h/bk)] and [e, ceil(h/bn), ceil(i/bk)] fp32;
//     static activation scales one fp32 each;
//   - INT8 (compressed_tensors_moe_w8a8_int8.py): one byte per weight,
//     per-channel fp32 scales;
//   - PackedInt: AWQ (auto_awq.py:569-672) qweight, qzeros, scales per
//     group of the input; GPTQ (auto_gptq.py:498-672) the same in GPTQ's
//     packing, with g_idx and sort indices [e, h] and [e, i] int32 under
//     act-order; compressed-tensors (compressed_tensors_moe_wna16.py)
//     weight_packed, weight_scale, zero points when asymmetric, g_idx and
//     sort indices under group act-order, and weight_shape [e, 2] in the
//     model dtype each;
//   - NVFP4 (modelopt.py:1409-1523): weights two to a byte, fp8 scales one
//     per 16, W4A4 ones padded and rounded as Sharding.NVFP4 says (see
//     [NVFP4Kernel]), and per expert the fp32 weight and input global
//     scales of w13 and w2;
//   - MXFP4 (mxfp4.py:192-283): i and h rounded as the kernel asks
//     (Sharding.MXFP4), weights two to a byte, e8m0 scales one per 32,
//     padded where the kernel swizzles them (MXFP4Kernel.MatrixBytes),
//     biases in float32 where the kernel converts them;
//   - BnB4 (bitsandbytes.py:514-581): weights two to a byte and fp32
//     absmax per 64.
func (w *weights) experts(module string, e, h, i uint64, s Scheme) {
	gateShards := w.gateShards()
	i13 := budget.SatMul(gateShards, i)
	each := func(v uint64) uint64 { return budget.SatMul(v, e) }
	hasBias := w.t.expertBias
	biasBytes := w.dt
	switch s.Format {
	case Unquantized:
		w.add(module+".w13_weight", each(bytesOf(budget.SatMul(i13, h), w.dt)))
		w.add(module+".w2_weight", each(bytesOf(budget.SatMul(h, i), w.dt)))
	case FP8, INT8:
		w.add(module+".w13_weight", each(budget.SatMul(i13, h)))
		w.add(module+".w2_weight", each(budget.SatMul(h, i)))
		switch {
		case s.Scale == PerBlock:
			name := "weight_scale"
			if s.layout == "fp8" {
				name = "weight_scale_inv"
			}
			w.add(module+".w13_"+name, each(bytesOf(budget.SatMul(gateShards*budget.CeilDiv(i, s.BlockN), budget.CeilDiv(h, s.BlockK)), 4)))
			w.add(module+".w2_"+name, each(bytesOf(budget.SatMul(budget.CeilDiv(h, s.BlockN), budget.CeilDiv(i, s.BlockK)), 4)))
		case s.Scale == PerChannel || s.Format == INT8:
			w.add(module+".w13_weight_scale", each(bytesOf(i13, 4)))
			w.add(module+".w2_weight_scale", each(bytesOf(h, 4)))
		default:
			w.add(module+".w13_weight_scale", each(4))
			w.add(module+".w2_weight_scale", each(4))
		}
		if s.StaticInput {
			w.add(module+".w13_input_scale", 4)
			w.add(module+".w2_input_scale", 4)
		}
	case PackedInt:
		w.packedExperts(module, e, h, i, i13, s)
	case NVFP4:
		kern := w.nvfp4Kernel(s)
		// The padding stays within the weights and scales: the biases of
		// an NVFP4 MoE are not read as padded.
		hp, ip := kern.expertSizes(h, i, !w.t.ungated)
		ip13 := budget.SatMul(gateShards, ip)
		w.add(module+".w13_weight", each(budget.SatMul(ip13, budget.CeilDiv(hp, 2))))
		w.add(module+".w2_weight", each(budget.SatMul(hp, budget.CeilDiv(ip, 2))))
		s13, s2 := budget.SatMul(ip13, budget.CeilDiv(hp, 16)), budget.SatMul(hp, budget.CeilDiv(ip, 16))
		if kern.ExpertSwizzle {
			s13, s2 = swizzled(ip13, budget.CeilDiv(hp, 16)), swizzled(hp, budget.CeilDiv(ip, 16))
		}
		w.add(module+".w13_weight_scale", each(s13))
		w.add(module+".w2_weight_scale", each(s2))
		w.add(module+".global_scales", each(4*4))
	case MXFP4:
		k := w.sh.MXFP4
		ir, hr := k.Intermediate(i), k.Hidden(h)
		i13 = budget.SatMul(gateShards, ir)
		// w13 maps the hidden size to the gate and up rows, w2 the
		// intermediate back to the hidden size.
		v13, s13 := k.MatrixBytes(i13, hr)
		v2, s2 := k.MatrixBytes(hr, ir)
		w.add(module+".w13_weight", each(v13))
		w.add(module+".w13_weight_scale", each(s13))
		w.add(module+".w2_weight", each(v2))
		w.add(module+".w2_weight_scale", each(s2))
		h = hr
		if k.BiasFloat32 {
			biasBytes = 4
		}
	case BnB4:
		w.add(module+".w13_weight", each(budget.CeilDiv(budget.SatMul(i13, h), 2)))
		w.add(module+".w2_weight", each(budget.CeilDiv(budget.SatMul(h, i), 2)))
		w.add(module+".w13_weight.absmax", each(bytesOf(budget.CeilDiv(budget.SatMul(i13, h), 64), 4)))
		w.add(module+".w2_weight.absmax", each(bytesOf(budget.CeilDiv(budget.SatMul(h, i), 64), 4)))
	default:
		w.add(module+".w13_weight", each(bytesOf(budget.SatMul(i13, h), w.dt)))
		w.add(module+".w2_weight", each(bytesOf(budget.SatMul(h, i), w.dt)))
	}
	if hasBias {
		i13b := i13
		w.add(module+".w13_bias", each(bytesOf(i13b, biasBytes)))
		w.add(module+".w2_bias", each(bytesOf(h, biasBytes)))
	}
}

// packedExperts adds PackedInt fused experts.
func (w *weights) packedExperts(module string, e, h, i, i13 uint64, s Scheme) {
	each := func(v uint64) uint64 { return budget.SatMul(v, e) }
	bits := s.Bits
	words := func(v uint64) uint64 { return budget.CeilDiv(budget.SatMul(v, bits), 32) }
	groups := func(rows uint64) uint64 {
		if s.GroupSize == 0 {
			return 1
		}
		return budget.CeilDiv(rows, s.GroupSize)
	}
	g13, g2 := groups(h), groups(i)
	if s.ActOrder && w.sh.ExpertRanks <= 1 && w.tp > 1 {
		// w2's scales cover the whole intermediate under act-order
		// (auto_gptq.py, compressed_tensors_moe_wna16.py:230-233).
		g2 = groups(w.a.MoEIntermediate)
	}
	switch s.layout {
	case "awq":
		w.add(module+".w13_qweight", each(bytesOf(budget.SatMul(h, words(i13)), 4)))
		w.add(module+".w2_qweight", each(bytesOf(budget.SatMul(i, words(h)), 4)))
		w.add(module+".w13_scales", each(bytesOf(budget.SatMul(g13, i13), w.dt)))
		w.add(module+".w2_scales", each(bytesOf(budget.SatMul(g2, h), w.dt)))
		w.add(module+".w13_qzeros", each(bytesOf(budget.SatMul(g13, words(i13)), 4)))
		w.add(module+".w2_qzeros", each(bytesOf(budget.SatMul(g2, words(h)), 4)))
	case "gptq":
		w.add(module+".w13_qweight", each(bytesOf(budget.SatMul(words(h), i13), 4)))
		w.add(module+".w2_qweight", each(bytesOf(budget.SatMul(words(i), h), 4)))
		w.add(module+".w13_scales", each(bytesOf(budget.SatMul(g13, i13), w.dt)))
		w.add(module+".w2_scales", each(bytesOf(budget.SatMul(g2, h), w.dt)))
		w.add(module+".w13_qzeros", each(bytesOf(budget.SatMul(g13, words(i13)), 4)))
		w.add(module+".w2_qzeros", each(bytesOf(budget.SatMul(g2, words(h)), 4)))
		if s.ActOrder {
			w.add(module+".g_idx", each(bytesOf(2*h+2*i, 4)))
		}
	default: // compressed-tensors
		w.add(module+".w13_weight_packed", each(bytesOf(budget.SatMul(words(h), i13), 4)))
		w.add(module+".w2_weight_packed", each(bytesOf(budget.SatMul(words(i), h), 4)))
		w.add(module+".w13_weight_scale", each(bytesOf(budget.SatMul(g13, i13), w.dt)))
		w.add(module+".w2_weight_scale", each(bytesOf(budget.SatMul(g2, h), w.dt)))
		if s.ZeroPoints {
			w.add(module+".w13_weight_zero_point", each(bytesOf(budget.SatMul(g13, words(i13)), 4)))
			w.add(module+".w2_weight_zero_point", each(bytesOf(budget.SatMul(g2, words(h)), 4)))
		}
		if s.ActOrder {
			w.add(module+".g_idx", each(bytesOf(2*h+2*i, 4)))
		}
		w.add(module+".weight_shape", each(bytesOf(4, w.dt)))
	}
}

// nvfp4Kernel is the layout the engine's NVFP4 kernels give a module of
// scheme s: sh.NVFP4 for W4A4, the checkpoint's for W4A16, which runs on
// Marlin on every device.
func (w *weights) nvfp4Kernel(s Scheme) NVFP4Kernel {
	if !s.w4a4NVFP4() {
		return NVFP4Kernel{}
	}
	return w.sh.NVFP4
}

// gateShards is how many intermediate-sized shards w13 holds per expert:
// gate and up (2), or up alone for ungated experts (nemotron_h.py: relu2
// experts, w13 = [e, i, h]).
func (w *weights) gateShards() uint64 {
	if w.t.ungated {
		return 1
	}
	return 2
}
