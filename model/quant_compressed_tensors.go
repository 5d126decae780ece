package model

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
)

// ctArgs is a compressed-tensors QuantizationArgs.
type ctArgs struct {
	NumBits        *uint64         `json:"num_bits"`
	Type           string          `json:"type"`
	Strategy       string          `json:"strategy"`
	GroupSize      *int64          `json:"group_size"`
	BlockStructure []uint64        `json:"block_structure"`
	Symmetric      *bool           `json:"symmetric"`
	Dynamic        json.RawMessage `json:"dynamic"`
	Actorder       json.RawMessage `json:"actorder"`
}

// ctGroup is one compressed-tensors config group.
type ctGroup struct {
	scheme  Scheme
	targets []target
}

// target is a compressed-tensors target: an exact module name, a "re:"
// regex (matched at the start, as Python's re.match), or a module class
// name.
type target struct {
	name string
	re   *regexp.Regexp
}

// readCompressedTensors reads a compressed-tensors quantization_config: its
// config groups in file order (less the attention groups, which are the KV
// cache's), its ignore list, and an 8-bit float kv_cache_scheme.
func readCompressedTensors(qc jsonObject, a *Arch) Quant {
	q := Quant{Method: "compressed-tensors", NotConvert: qc.strings("ignore")}
	format := qc.str("format")
	groups, ok := qc.object("config_groups")
	if !ok {
		qc.fail("config_groups", "missing (required for compressed-tensors)")
		return Quant{}
	}
	r := &quantRules{method: "compressed-tensors", packed: a.tree.packed}
	var err error
	if r.ignore, err = compileCTIgnore(a.tree.mapNames(q.NotConvert)); err != nil {
		qc.fail("ignore", "%v", err)
		return Quant{}
	}
	names := groups.keys()
	for _, name := range names {
		g, ok := groups.object(name)
		if !ok {
			continue
		}
		targets := g.strings("targets")
		if len(targets) == 1 && strings.HasSuffix(targets[0], "Attention") {
			continue // compressed_tensors.py from_config: attention groups are the KV cache's
		}
		gformat := g.str("format")
		if gformat == "" {
			gformat = format
		}
		s, ok := ctScheme(g, gformat)
		if !ok {
			continue
		}
		grp := ctGroup{scheme: s}
		for _, t := range a.tree.mapNames(targets) {
			if pattern, ok := strings.CutPrefix(t, "re:"); ok {
				re, err := regexp.Compile("^(?:" + pattern + ")")
				if err != nil {
					g.fail("targets", "%q is not a regular expression Go reads: %v", t, err)
					continue
				}
				grp.targets = append(grp.targets, target{name: t, re: re})
				continue
			}
			grp.targets = append(grp.targets, target{name: t})
		}
		r.ctGroups = append(r.ctGroups, grp)
		if q.Bits == 0 {
			q.Bits = s.Bits
			if s.Format == FP8 || s.Format == INT8 {
				q.Bits = 8
			}
		}
	}
	if kv, ok := qc.object("kv_cache_scheme"); ok && kv.str("type") == "float" && kv.uintOr("num_bits", 0) == 8 {
		q.KVCacheDtype = "fp8_e4m3"
	}
	q.rules = r
	return q
}

// ctScheme classifies one compressed-tensors group as vLLM's
// _get_scheme_from_parts does (compressed_tensors.py:722-883).
func ctScheme(g jsonObject, format string) (Scheme, bool) {
	var w, in ctArgs
	hasW := g.has("weights")
	if hasW {
		if err := json.Unmarshal(g.m["weights"], &w); err != nil {
			g.fail("weights", "must be an object, got %s", short(g.m["weights"]))
			return Scheme{}, false
		}
	} else {
		g.fail("weights", "missing (required in a config group)")
		return Scheme{}, false
	}
	hasIn := g.has("input_activations")
	if hasIn {
		if err := json.Unmarshal(g.m["input_activations"], &in); err != nil {
			g.fail("input_activations", "must be an object, got %s", short(g.m["input_activations"]))
			return Scheme{}, false
		}
	}
	bits := uint64(0)
	if w.NumBits != nil {
		bits = *w.NumBits
	}
	static := hasIn && string(in.Dynamic) == "false"
	var s Scheme
	switch {
	case w.Type == "float" && bits == 8:
		s = Scheme{Format: FP8, Bits: 8, StaticInput: static, layout: "ct"}
		switch w.Strategy {
		case "tensor":
			s.Scale = PerTensor
		case "channel":
			s.Scale = PerChannel
		case "block":
			if len(w.BlockStructure) != 2 || w.BlockStructure[0] == 0 || w.BlockStructure[1] == 0 {
				g.fail("weights.block_structure", "want two positive sizes for strategy block, got %v", w.BlockStructure)
				return Scheme{}, false
			}
			s.Scale, s.BlockN, s.BlockK = PerBlock, w.BlockStructure[0], w.BlockStructure[1]
		default:
			g.fail("weights.strategy", "%q is not supported for 8-bit float weights; tensor, channel or block", w.Strategy)
			return Scheme{}, false
		}
	case w.Type == "float" && bits == 4 && w.Strategy == "tensor_group":
		if w.GroupSize == nil || *w.GroupSize != 16 {
			g.fail("weights.group_size", "NVFP4 groups 16 weights per scale")
			return Scheme{}, false
		}
		s = Scheme{Format: NVFP4, Bits: 4, GroupSize: 16, StaticInput: hasIn, layout: "ct"}
	case w.Type == "int" && bits == 8 && hasIn && in.Type == "int" && in.NumBits != nil && *in.NumBits == 8:
		s = Scheme{Format: INT8, Bits: 8, StaticInput: static, layout: "ct"}
		switch w.Strategy {
		case "tensor":
			s.Scale = PerTensor
		case "channel":
			s.Scale = PerChannel
		default:
			g.fail("weights.strategy", "%q is not supported for W8A8 int8; tensor or channel", w.Strategy)
			return Scheme{}, false
		}
	case w.Type == "int" && (bits == 4 || bits == 8) && !hasIn:
		if format != "pack-quantized" && format != "" {
			g.fail("format", "%q: weight-only int%d needs pack-quantized", format, bits)
			return Scheme{}, false
		}
		s = Scheme{Format: PackedInt, Bits: bits, layout: "ct"}
		s.ZeroPoints = w.Symmetric != nil && !*w.Symmetric
		switch w.Strategy {
		case "channel":
		case "group":
			if w.GroupSize == nil || *w.GroupSize <= 0 || *w.GroupSize > 1<<16 {
				g.fail("weights.group_size", "want a positive group size for strategy group")
				return Scheme{}, false
			}
			s.GroupSize = uint64(*w.GroupSize)
			s.ActOrder = string(w.Actorder) == `"group"`
		default:
			g.fail("weights.strategy", "%q is not supported for weight-only int; channel or group", w.Strategy)
			return Scheme{}, false
		}
	default:
		g.fail("weights", "%s %d-bit weights (strategy %q) with input activations %v are not a scheme the model sizes: W8A8 fp8 or int8, W4A16/W8A16 int, NVFP4",
			w.Type, bits, w.Strategy, hasIn)
		return Scheme{}, false
	}
	return s, true
}

// ctScheme is compressed-tensors' get_scheme_dict
// (compressed_tensors.py:934-967, utils.py:50-193): an ignored module
// (exact or re:, a fused one when its shards are) is unquantized; else the
// first target that names it exactly or by regex, then its fused shards,
// then a substring of its class name; experts are looked up as their first
// expert's projections.
func (r *quantRules) ctScheme(module string, shards []string, k modKind) Scheme {
	names := []string{module}
	class := ""
	switch k {
	case expertsMod:
		names = []string{module + ".0.gate_proj", module + ".0.up_proj", module + ".0.down_proj"}
		class = "RoutedExperts"
	case headMod:
		class = "ParallelLMHead"
	default:
		class = "Linear"
	}
	var last Scheme
	for _, name := range names {
		if r.ignore.skipsCT(name, shards) {
			return Scheme{}
		}
		s, ok := r.ctTarget(name, shards, class)
		if !ok {
			return Scheme{}
		}
		last = s
	}
	return last
}

func (r *quantRules) ctTarget(name string, shards []string, class string) (Scheme, bool) {
	for _, g := range r.ctGroups {
		for _, t := range g.targets {
			if t.matches(name) {
				return g.scheme, true
			}
		}
	}
	if len(shards) > 0 {
		for _, g := range r.ctGroups {
			for _, t := range g.targets {
				if !slices.ContainsFunc(shards, func(s string) bool { return !t.matches(s) }) {
					return g.scheme, true
				}
			}
		}
	}
	// The class name: "Linear" is contained in every linear class vLLM
	// builds (QKVParallelLinear, RowParallelLinear, ...), and vLLM adds a
	// RoutedExperts target with Linear's scheme
	// (_add_fused_moe_to_target_scheme_map); ParallelLMHead contains
	// neither.
	for _, g := range r.ctGroups {
		for _, t := range g.targets {
			if t.re != nil {
				if t.re.MatchString(class) {
					return g.scheme, true
				}
				continue
			}
			if strings.Contains(strings.ToLower(class), strings.ToLower(t.name)) ||
				(class == "RoutedExperts" && t.name == "Linear") {
				return g.scheme, true
			}
		}
	}
	return Scheme{}, false
}

func (t target) matches(name string) bool {
	if t.re != nil {
		return t.re.MatchString(name)
	}
	return t.name == name
}
