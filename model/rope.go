package model

import (
	"slices"

	"membudget/budget"
)

// ropeTypes are the rope_type values whose cos/sin tables the model sizes
// (vllm/model_executor/layers/rotary_embedding/__init__.py get_rope).
var ropeTypes = []string{"default", "linear", "dynamic", "ntk", "yarn", "deepseek_yarn", "llama3", "longrope", "mrope", "proportional"}

// maxRopeFactor bounds a rope scaling factor: the largest published is 64
// (Kimi-K2.5's YaRN); a table of max_position x factor rows stays far from
// 2^64 bytes.
const maxRopeFactor = 1024

// readRope reads rope_scaling, or rope_parameters as transformers 5 writes
// it, into a.RopeScalings: one entry for a flat dict, one per layer type
// for a dict nested by layer type (Gemma 4). Legacy "type" is read as
// rope_type and su as longrope (vllm/transformers_utils/config.py:479-527
// patch_legacy_rope_type).
func readRope(o jsonObject, a *Arch) {
	key := "rope_scaling"
	rs, ok := o.object(key)
	if !ok {
		key = "rope_parameters"
		if rs, ok = o.object(key); !ok {
			return
		}
	}
	var nested []string
	for _, k := range rs.keys() {
		if _, isKind := layerKinds[k]; isKind {
			if _, isObj := rs.object(k); isObj {
				nested = append(nested, k)
			}
		}
	}
	if len(nested) == 0 {
		e, ok := readRopeEntry(o, rs, "")
		if ok {
			a.RopeScalings = []RopeScaling{e}
			a.RopeScaling = &a.RopeScalings[0]
		}
		return
	}
	for _, k := range nested {
		sub, _ := rs.object(k)
		if e, ok := readRopeEntry(o, sub, k); ok {
			a.RopeScalings = append(a.RopeScalings, e)
		}
	}
}

// readRopeEntry reads one rope dict; ok is false when it is in error.
func readRopeEntry(o, rs jsonObject, layerType string) (RopeScaling, bool) {
	e := RopeScaling{LayerType: layerType}
	typeKey := "rope_type"
	e.Type = rs.str(typeKey)
	if e.Type == "" {
		typeKey = "type"
		e.Type = rs.str(typeKey)
	}
	switch e.Type {
	case "":
		e.Type = "default"
	case "su":
		e.Type = "longrope"
	}
	if !slices.Contains(ropeTypes, e.Type) {
		rs.fail(typeKey, "%q is not a rope type the model sizes; want one of %v", e.Type, ropeTypes)
		return e, false
	}
	if f, ok := rs.number("factor"); ok {
		if !(f > 0 && f <= maxRopeFactor) {
			rs.fail("factor", "%v: want a scaling factor in (0, %d]", f, maxRopeFactor)
			return e, false
		}
		e.Factor = f
	}
	e.OriginalMaxPosition = rs.uintOr("original_max_position_embeddings", 0)
	if e.OriginalMaxPosition == 0 {
		// Phi-3's longrope keeps it beside rope_scaling.
		e.OriginalMaxPosition = o.uintOr("original_max_position_embeddings", 0)
	}
	if e.OriginalMaxPosition > 1<<26 {
		rs.fail("original_max_position_embeddings", "%d is beyond any real model (at most %d)", e.OriginalMaxPosition, 1<<26)
		return e, false
	}
	e.MRoPE = e.Type == "mrope" || rs.has("mrope_section")
	return e, true
}

// rotaryDim is the width of a head the rotary embedding turns:
// int(headDim x partial_rotary_factor), the factor given beside the rope
// parameters or inside them (Qwen3.5), or headDim
// (vllm/model_executor/layers/rotary_embedding/__init__.py:66-72).
func rotaryDim(o jsonObject, a *Arch, headDim uint64) uint64 {
	f, ok := o.number("partial_rotary_factor")
	key := "partial_rotary_factor"
	if !ok {
		for _, k := range []string{"rope_parameters", "rope_scaling"} {
			if rs, has := o.object(k); has {
				if f, ok = rs.number("partial_rotary_factor"); ok {
					key = k + ".partial_rotary_factor"
					break
				}
			}
		}
	}
	if !ok {
		return headDim
	}
	if !(f > 0 && f <= 1) {
		o.fail(key, "%v: want a fraction of head_dim in (0, 1]", f)
		return headDim
	}
	return uint64(float64(headDim) * f)
}

// rotaryRows is the rows of vLLM's cos/sin table for a rope entry over
// maxPosition positions (vllm/model_executor/layers/rotary_embedding/):
// linear scaling max_position x factor, YaRN original x factor
// (yarn_scaling_rope.py:75-85, deepseek_scaling_rope.py:109-119), LongRoPE
// its short and long caches, original + max_position
// (phi3_long_rope_scaled_rope.py:82-96), and max_position for the others
// (llama3 and dynamic NTK keep max_position rows); MRoPE keeps the table
// four times over (mrope.py:276-284).
func rotaryRows(rs *RopeScaling, maxPosition uint64, o jsonObject) uint64 {
	if rs == nil {
		return maxPosition
	}
	rows := maxPosition
	factor := rs.Factor
	if factor == 0 {
		factor = 1
	}
	switch rs.Type {
	case "linear":
		rows = uint64(float64(maxPosition) * factor)
	case "yarn", "deepseek_yarn":
		orig := rs.OriginalMaxPosition
		if orig == 0 {
			orig = maxPosition // transformers' default for YaRN
		}
		rows = uint64(float64(orig) * factor)
	case "longrope":
		if rs.OriginalMaxPosition == 0 {
			o.fail("rope_scaling.original_max_position_embeddings", "missing (required for longrope, whose short table it sizes)")
		}
		rows = budget.SatAdd(rs.OriginalMaxPosition, maxPosition)
	}
	if rs.MRoPE {
		rows = budget.SatMul(rows, 4)
	}
	return rows
}
