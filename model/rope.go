package model

import (
	"bytes"
	"encoding/json"
	"errors"
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

// RopeKey is the part of vLLM's rotary-table cache key that a config
// gives: get_rope keys _ROPE_DICT by (head_size, rotary_dim, max_position,
// is_neox_style, the rope parameters' items, dual_chunk_attention_config's
// items, dtype) and builds a second table for any other key
// (vllm/model_executor/layers/rotary_embedding/__init__.py:33-84 at
// d18bb7b). The rope parameters' items are a tuple in the dict's order:
// transformers 5 appends rope_theta, a top-level partial_rotary_factor
// and rope_type (the legacy type, else "default") after the config's own
// keys (modeling_rope_utils.py, RotaryEmbeddingConfigMixin's
// convert_rope_params_to_dict and standardize_rope_params), and vLLM's
// patch_legacy_rope_type rewrites values in place (vllm/
// transformers_utils/config.py:479-549), so two configs whose rope text
// differs in a key or its order get two tables. membudget keeps the
// config's text and takes two keys as one table only where it is equal
// ([RopeKey.SameTable]); a difference the rewriting would erase (a number
// spelt 1e6 and 1000000) counts as a second table, an over-count of that
// table at most.
type RopeKey struct {
	// MaxPosition is max_position_embeddings as the config gives it
	// (get_rope's max_position for the Llama and Qwen decoders:
	// llama.py:241-245), before any max-length key lowers
	// [Arch.MaxPosition].
	MaxPosition uint64
	// Theta is rope_theta, at the top level or inside rope_parameters; 0
	// where the config gives none (the config class's default then
	// decides: [DraftRotary] fills LlamaConfig's, the others are not
	// read).
	Theta float64
	// Params is the key holding the rope parameters, "=", and the
	// object's compact JSON text ("rope_scaling={...}"); "" where the
	// config has neither rope_scaling nor rope_parameters.
	Params string
	// PartialRotary is a top-level partial_rotary_factor, which
	// transformers adds to the rope parameters (convert_rope_params_to_
	// dict); 0 where the config has none.
	PartialRotary float64
	// DualChunk says the config has a dual_chunk_attention_config,
	// which joins the key.
	DualChunk bool
}

// readRopeKey reads o's [RopeKey].
func readRopeKey(o jsonObject) RopeKey {
	k := RopeKey{MaxPosition: o.uintOr("max_position_embeddings", 0), DualChunk: o.has("dual_chunk_attention_config")}
	k.Theta, _ = o.number("rope_theta")
	k.PartialRotary, _ = o.number("partial_rotary_factor")
	for _, name := range []string{"rope_scaling", "rope_parameters"} {
		if !o.has(name) {
			continue
		}
		var buf bytes.Buffer
		if json.Compact(&buf, o.m[name]) == nil {
			k.Params = name + "=" + buf.String()
		}
		if rs, ok := o.object(name); ok && k.Theta == 0 {
			k.Theta, _ = rs.number("rope_theta")
		}
		break
	}
	return k
}

// SameTable reports whether get_rope would hand a model of key o the
// table it built for k, as far as the configs tell: both give rope_theta
// (a default the config class fills is not read), neither has a
// dual-chunk config (not modelled), and the rest is equal. The caller
// compares the head size, rotary dim and dtype.
func (k RopeKey) SameTable(o RopeKey) bool {
	return k.Theta != 0 && !k.DualChunk && k == o
}

// llamaMaxPosition is LlamaConfig's max_position_embeddings default
// (transformers configuration_llama.py: 2048).
const llamaMaxPosition = 2048

// LlamaRopeTheta is the rope_theta LlamaConfig takes where a config gives
// none: RotaryEmbeddingConfigMixin's default_theta, 10000.0 (transformers
// 5 modeling_rope_utils.py), appended to the rope parameters where a given
// one would be.
const LlamaRopeTheta = 10000

// DraftRotary reads a speculative draft's config.json (data, read from
// file) as LlamaConfig gives its rope: the decoder's rotary table over
// the draft's head size headDim, and its [RopeKey]; max_position_embeddings
// defaults to LlamaConfig's 2048 and rope_theta to [LlamaRopeTheta]. It fails where a rope
// key is one the model does not size.
func DraftRotary(file string, data []byte, headDim uint64) (RotaryTable, RopeKey, error) {
	var errs []error
	o, err := parseObject(file, data, &errs)
	if err != nil {
		return RotaryTable{}, RopeKey{}, err
	}
	var a Arch
	readRope(o, &a)
	dim := rotaryDim(o, &a, headDim)
	// LlamaConfig's default max_position_embeddings (transformers
	// configuration_llama.py) where the config leaves it out.
	maxPos := o.uintOr("max_position_embeddings", llamaMaxPosition)
	if maxPos == 0 {
		o.fail("max_position_embeddings", "0: the draft's rotary table has that many rows")
	}
	t := RotaryTable{Name: "rotary_emb", Positions: rotaryRows(a.RopeScaling, maxPos, o), Dim: dim}
	if len(a.RopeScalings) > 1 {
		// The key readRope read them from: rope_scaling where given.
		key := "rope_scaling"
		if !o.has(key) {
			key = "rope_parameters"
		}
		o.fail(key, "nested by layer type: a draft's per-layer-type rope is not read")
	}
	// Read before the errors are counted: a rope_theta that is not a
	// number is an error naming it, not LlamaConfig's default.
	key := readRopeKey(o)
	if len(errs) > 0 {
		return RotaryTable{}, RopeKey{}, errors.Join(errs...)
	}
	if key.Theta == 0 {
		key.Theta = LlamaRopeTheta
	}
	return t, key, nil
}
