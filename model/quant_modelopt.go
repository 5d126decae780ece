package model

import (
	"slices"
	"strings"
)

// readModelOpt reads ModelOpt's quantization: config.json's
// quantization_config, or hf_quant_config.json's quantization when hfFile
// is set. quant_algo is FP8, FP8_PER_CHANNEL_PER_TOKEN, NVFP4, W4A16_NVFP4,
// or MIXED_PRECISION with one of those per entry of quantized_layers.
func readModelOpt(qc jsonObject, a *Arch, hfFile bool) Quant {
	q := Quant{Method: "modelopt"}
	q.Algo = strings.ToUpper(qc.str("quant_algo"))
	if q.Algo == "" {
		qc.fail("quant_algo", "missing (required for modelopt)")
		return Quant{}
	}
	// modelopt.py:276-312: exclude_modules in hf_quant_config.json, ignore
	// in config.json.
	if hfFile {
		q.NotConvert = qc.strings("exclude_modules")
		if qc.str("kv_cache_quant_algo") == "FP8" {
			q.KVCacheDtype = "fp8_e4m3"
		}
	} else {
		q.NotConvert = qc.strings("ignore")
		if kv, ok := qc.object("kv_cache_scheme"); ok && kv.str("type") == "float" && kv.uintOr("num_bits", 0) == 8 {
			q.KVCacheDtype = "fp8_e4m3"
		}
	}
	group := qc.uintOr("group_size", 16)
	algo := func(name string) (Scheme, bool) {
		switch strings.ToUpper(name) {
		case "FP8":
			return Scheme{Format: FP8, Scale: PerTensor, StaticInput: true, layout: "modelopt"}, true
		case "FP8_PER_CHANNEL_PER_TOKEN":
			return Scheme{Format: FP8, Scale: PerChannel, layout: "modelopt"}, true
		case "NVFP4":
			return Scheme{Format: NVFP4, Bits: 4, GroupSize: group, StaticInput: true, layout: "modelopt"}, true
		case "W4A16_NVFP4":
			return Scheme{Format: NVFP4, Bits: 4, GroupSize: group, layout: "modelopt"}, true
		}
		return Scheme{}, false
	}
	if group != 16 {
		qc.fail("group_size", "%d: NVFP4 groups 16 weights per scale", group)
		return Quant{}
	}
	// modelopt.py:218-237: "foo*" is read as foo and foo.*.
	var exclude []string
	for _, e := range q.NotConvert {
		if len(e) >= 2 && e[len(e)-1] == '*' && e[len(e)-2] != '.' {
			exclude = append(exclude, e[:len(e)-1], e[:len(e)-1]+".*")
			continue
		}
		exclude = append(exclude, e)
	}
	r := &quantRules{method: "modelopt", packed: a.tree.packed, lmHead: true,
		ignore: compileMatcher(a.tree.mapNames(exclude), modeloptMatch)}
	if q.Algo == "MIXED_PRECISION" {
		layers, ok := qc.object("quantized_layers")
		if !ok {
			qc.fail("quantized_layers", "missing (required for MIXED_PRECISION)")
			return Quant{}
		}
		r.mixed = map[string]Scheme{}
		for _, k := range layers.keys() {
			l, ok := layers.object(k)
			if !ok {
				continue
			}
			s, ok := algo(l.str("quant_algo"))
			if !ok {
				l.fail("quant_algo", "%q is not supported; FP8, FP8_PER_CHANNEL_PER_TOKEN, NVFP4 or W4A16_NVFP4", l.str("quant_algo"))
				continue
			}
			r.mixed[a.tree.mapName(k)] = s
			r.mixedKeys = append(r.mixedKeys, a.tree.mapName(k))
			// Bits is the narrowest weight of the mix: 4 with any NVFP4.
			if q.Bits == 0 || s.Format == NVFP4 {
				q.Bits = max(s.Bits, 4)
				if s.Format == FP8 {
					q.Bits = 8
				}
			}
		}
		slices.Sort(r.mixedKeys)
	} else {
		s, ok := algo(q.Algo)
		if !ok {
			qc.fail("quant_algo", "%q is not supported; FP8, FP8_PER_CHANNEL_PER_TOKEN, NVFP4, W4A16_NVFP4 or MIXED_PRECISION", q.Algo)
			return Quant{}
		}
		r.linear, r.experts = s, s
		q.Bits = 8
		if s.Format == NVFP4 {
			q.Bits, q.GroupSize = 4, group
		}
	}
	q.rules = r
	return q
}

// modeloptScheme is the scheme ModelOpt gives module (with the checkpoint
// shards of a fused module) of kind k.
func (r *quantRules) modeloptScheme(module string, shards []string, k modKind) Scheme {
	if r.ignore.skips(module, shards) {
		return Scheme{}
	}
	if k != expertsMod && (strings.Contains(module, "vision_tower") || strings.Contains(module, "vision_model") || strings.Contains(module, "vit_large_projector")) {
		// modelopt.py:195-200: always unquantized.
		return Scheme{}
	}
	if r.mixed != nil {
		return r.mixedScheme(module, shards, k)
	}
	if k == expertsMod {
		return r.experts
	}
	return r.linear
}

// mixedScheme is ModelOpt mixed precision's _resolve_quant_algo
// (modelopt.py:2277-2355): the module's own entry, its fused shards', the
// first entry under it, or for experts the first entry under their parent;
// a module without one is unquantized.
func (r *quantRules) mixedScheme(module string, shards []string, k modKind) Scheme {
	if s, ok := r.mixed[module]; ok {
		return s
	}
	for _, sh := range shards {
		if s, ok := r.mixed[sh]; ok {
			return s
		}
	}
	keys := r.mixedKeys
	if i, _ := slices.BinarySearch(keys, module+"."); i < len(keys) && strings.HasPrefix(keys[i], module+".") {
		return r.mixed[keys[i]]
	}
	if k == expertsMod {
		parent := strings.TrimSuffix(module, ".experts") + "."
		for _, key := range keys {
			if strings.HasPrefix(key, parent) {
				return r.mixed[key]
			}
		}
	}
	return Scheme{}
}
