package model

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// readWNA16 reads AWQ's and GPTQ's quantization_config (auto_awq.py,
// auto_gptq.py): the bits and group size, GPTQ's act-order, its
// modules_in_block_to_quantize and "-:" dynamic exclusions, AWQ's
// modules_to_not_convert.
func readWNA16(qc jsonObject, a *Arch, method string) Quant {
	bitsKey, groupKey := "bits", "group_size"
	if method == "awq" && !qc.has("bits") {
		bitsKey, groupKey = "w_bit", "q_group_size" // AutoAWQ's older names
	}
	q := Quant{Method: method, NotConvert: qc.strings("modules_to_not_convert")}
	q.Bits = qc.uint(bitsKey)
	q.DescAct = qc.boolOr("desc_act", false)
	group := qc.intOr(groupKey, 0)
	switch {
	case group == -1 && method == "gptq":
		q.GroupSize = 0   // one scale per output channel
		q.DescAct = false // auto_gptq.py:118-120: desc_act with group -1 is treated as false
	case group <= 0 || group > 1<<16:
		qc.fail(groupKey, "want a positive group size, got %d", group)
		return Quant{}
	default:
		q.GroupSize = uint64(group)
	}
	if method == "awq" && q.Bits != 4 {
		qc.fail(bitsKey, "%d-bit awq is not supported; only 4-bit (auto_awq.py TYPE_MAP)", q.Bits)
		return Quant{}
	}
	if method == "gptq" {
		if q.Bits != 4 && q.Bits != 8 {
			qc.fail(bitsKey, "%d-bit gptq is not supported; 4 or 8 (auto_gptq.py)", q.Bits)
			return Quant{}
		}
		if !qc.boolOr("sym", true) {
			qc.fail("sym", "asymmetric GPTQ is refused by vLLM (auto_gptq.py:101-104)")
			return Quant{}
		}
	}
	s := Scheme{Format: PackedInt, Bits: q.Bits, GroupSize: q.GroupSize, ZeroPoints: true, ActOrder: method == "gptq" && q.DescAct, layout: method}
	r := &quantRules{method: method, linear: s, experts: s, packed: a.tree.packed, lmHead: qc.boolOr("lm_head", false)}
	if method == "awq" {
		r.ignore = compileMatcher(a.tree.mapNames(q.NotConvert), substringMatch)
	} else {
		r.ignore = &matcher{}
		if qc.has("modules_in_block_to_quantize") {
			var blocks []string
			var nested [][]string
			if err := json.Unmarshal(qc.m["modules_in_block_to_quantize"], &nested); err == nil {
				for _, n := range nested {
					blocks = append(blocks, n...)
				}
			} else {
				blocks = qc.strings("modules_in_block_to_quantize")
			}
			r.quantizeOnly = blocks
		}
		if dyn, ok := qc.object("dynamic"); ok {
			keys := make([]string, 0, len(dyn.m))
			for k := range dyn.m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				pattern, skip := strings.CutPrefix(k, "-:")
				if !skip {
					dyn.fail(k, "per-module GPTQ overrides (+:) are not supported; only -: exclusions")
					continue
				}
				re, err := regexp.Compile("^(?:" + pattern + ")")
				if err != nil {
					dyn.fail(k, "not a regular expression Go reads: %v", err)
					continue
				}
				r.dynamicSkip = append(r.dynamicSkip, re)
			}
		}
	}
	q.rules = r
	return q
}

// gptqScheme is the scheme GPTQ gives module of kind k: the head only with
// lm_head, no module a "-:" dynamic regex names, and only the modules
// modules_in_block_to_quantize names where it is given.
func (r *quantRules) gptqScheme(module string, k modKind) Scheme {
	if k == headMod && !r.lmHead {
		return Scheme{}
	}
	for _, re := range r.dynamicSkip {
		if re.FindStringIndex(module) != nil {
			return Scheme{}
		}
	}
	if r.quantizeOnly != nil && !slices.ContainsFunc(r.quantizeOnly, func(s string) bool { return strings.Contains(module, s) }) {
		return Scheme{}
	}
	if k == expertsMod {
		return r.experts
	}
	return r.linear
}

// wna16Rules gives r the AWQ or GPTQ scheme of a Quant made by hand
// (compiled).
func (q Quant) wna16Rules(r *quantRules) {
	s := Scheme{Format: PackedInt, Bits: max(q.Bits, 4), GroupSize: q.GroupSize, ZeroPoints: true, ActOrder: q.Method == "gptq" && q.DescAct, layout: q.Method}
	r.linear, r.experts = s, s
	mode := substringMatch
	if q.Method == "gptq" {
		r.ignore = &matcher{}
	} else {
		r.ignore = compileMatcher(q.NotConvert, mode)
	}
}
