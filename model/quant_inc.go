package model

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// AutoRound checkpoints (quant_method "auto-round") are loaded by vLLM's
// INC method, "inc": INCConfig.override_quantization_method claims them
// (vllm/model_executor/layers/quantization/inc/inc.py:253-261 at main
// d18bb7b; one inc.py file from PR #31716, 2026-01-14, split into the inc/
// package by PR #40601, 2026-06-17, with the same rules). What is read here
// is the CUDA path of its integer (WNA16) scheme: every quantized linear
// layer is built by vLLM's own GPTQ or AWQ method, so its tensors are
// AutoGPTQ's or AutoAWQ's (inc/schemes/inc_wna16_linear.py:36-126), with
// GPTQ's act-order off (desc_act=False, line 69).

// incSpecialChars are the characters that make an extra_config key a
// regular expression rather than a layer name (inc/config_parser.py:73,
// 113).
const incSpecialChars = `*+?^$()[]{}|\`

// incSupportedBits are INCConfig.SUPPORTED_BITS (inc/inc.py:37).
var incSupportedBits = []uint64{2, 3, 4, 8}

// incMarlinGroups are MARLIN_SUPPORTED_GROUP_SIZES (quantization/utils/
// marlin_utils.py:36): GPTQ layers of another group size have no kernel
// under INC (inc_wna16_linear.py:50-82 raises NotImplementedError).
var incMarlinGroups = []int64{-1, 32, 64, 128}

// incEntry is one extra_config entry, in file order: the key as the
// family's tree names it, its regular expression where the key is one,
// and the bits, group_size and sym it sets (nil: not set).
type incEntry struct {
	key   string
	re    *regexp.Regexp
	bits  *uint64
	group *int64
	sym   *bool
}

// incLayer is the (bits, group_size, sym) INC resolves for one layer
// (INCLayerConfig, inc/config_parser.py:17-45).
type incLayer struct {
	bits  uint64
	group int64
	sym   bool
}

// String returns the settings as a refusal names them: "4 bits, group
// 128, sym true".
func (l incLayer) String() string {
	return fmt.Sprintf("%d bits, group %d, sym %v", l.bits, l.group, l.sym)
}

// incRules is an auto-round quantization_config as INC reads it.
type incRules struct {
	def incLayer
	// awq: the layers are AutoAWQ's (packing_format or backend names awq
	// and neither names gptq: is_gptq is tested first, inc_wna16_linear.py:
	// 37-40).
	awq bool
	// noMarlin: the backend names neither auto nor marlin, which leaves
	// GPTQ layers no kernel.
	noMarlin bool
	// blocks: block_name_to_quantize (or to_quant_block_names), as the tree
	// names them; nil quantizes every layer but the LM head.
	blocks []string
	extra  []incEntry
	// exact indexes extra by key.
	exact map[string]*incEntry
	// extraFile and extraKey name extra_config for a refusal found after
	// the config is read (see [checkINCFused]).
	extraFile, extraKey string
	// apart, set on checkINCFused's private copy alone, collects the
	// fused modules whose shards extra_config sets apart.
	apart *[]string
}

// readINC reads an auto-round quantization_config (INCConfig.from_config,
// inc/inc.py:186-203): bits, group_size and sym (required), packing_format
// (default auto_round:auto_gptq), block_name_to_quantize or
// to_quant_block_names (a comma-separated string or a list), extra_config
// (per-layer bits, group_size and sym, by name or regular expression),
// data_type (default int) and backend or vllm_backend (default auto). It
// refuses by name what it does not model: a data_type other than int
// (INC's MXFP4/MXFP8 schemes), the llm_compressor packing, a GPTQ layer
// Marlin does not take (INC raises then), AWQ of other than 4 bits, and
// MoE experts.
func readINC(qc jsonObject, a *Arch) Quant {
	bits := qc.uint("bits")
	group := qc.intOr("group_size", 0)
	if !qc.has("group_size") {
		qc.fail("group_size", "missing (required: INCConfig.from_config, inc/inc.py:190)")
	}
	if !qc.has("sym") {
		qc.fail("sym", "missing (required: INCConfig.from_config, inc/inc.py:191)")
	}
	sym := qc.boolOr("sym", true)
	if qc.has("bits") && !slices.Contains(incSupportedBits, bits) {
		qc.fail("bits", "%d is not one INC takes (2, 3, 4, 8: inc/inc.py:37)", bits)
		return Quant{}
	}
	if dt := qc.strOr("data_type", "int"); dt != "int" {
		qc.fail("data_type", "%q: INC's %s schemes (inc/schemes/inc_mxfp4_*.py, inc_mxfp8_*.py) are not modelled; only data_type int (its WNA16 scheme)", dt, dt)
		return Quant{}
	}
	packing := qc.strOr("packing_format", "auto_round:auto_gptq")
	switch packing {
	case "auto_round:auto_gptq", "auto_round:auto_awq":
	case "auto_round:llm_compressor":
		qc.fail("packing_format", "%q is INC's MXFP packing, which needs an mx_fp data_type (inc/inc.py:144-148) and is not modelled", packing)
		return Quant{}
	default:
		qc.fail("packing_format", "%q is not one INC takes: auto_round:auto_gptq, auto_round:auto_awq, auto_round:llm_compressor (inc/inc.py:39-43)", packing)
		return Quant{}
	}
	backendKey := "backend"
	if !qc.has("backend") && qc.has("vllm_backend") {
		backendKey = "vllm_backend"
	}
	backend := qc.strOr(backendKey, "auto")
	switch backend {
	case "auto", "gptq", "gptq:marlin", "awq", "awq:marlin", "marlin":
	default:
		qc.fail(backendKey, "%q is not one INC takes: auto, gptq, gptq:marlin, awq, awq:marlin, marlin (inc/inc.py:44-51)", backend)
		return Quant{}
	}
	isGPTQ := strings.Contains(packing, "gptq") || strings.Contains(backend, "gptq")
	isAWQ := strings.Contains(packing, "awq") || strings.Contains(backend, "awq")
	if isGPTQ && isAWQ {
		qc.fail(backendKey, "%q with packing_format %q: INC would build GPTQ layers (is_gptq is tested first, inc_wna16_linear.py:37-40) for AWQ-packed tensors; not modelled", backend, packing)
		return Quant{}
	}
	if a.Experts > 0 {
		qc.fail("quant_method", "auto-round: INC's MoE experts (AutoGPTQMoEMethod or AutoAWQMoEMethod on Marlin, else the MoeWNA16 fallback: inc/schemes/inc_wna16_scheme.py:91-196) are not modelled; only dense models")
		return Quant{}
	}
	if group == 0 || group < -1 || group > 1<<16 {
		qc.fail("group_size", "want a positive group size or -1, got %d", group)
		return Quant{}
	}
	if qc.has("dynamic") {
		qc.fail("dynamic", "INC does not read it (INCConfig.from_config, inc/inc.py:186-203): the layers it sets apart would be built quantized against tensors stored otherwise; not modelled")
		return Quant{}
	}
	// use_marlin needs backend auto or one naming marlin
	// (inc_wna16_linear.py:50-52).
	noMarlin := backend != "auto" && !strings.Contains(backend, "marlin")
	r := &incRules{def: incLayer{bits: bits, group: group, sym: sym}, awq: isAWQ, noMarlin: noMarlin, exact: map[string]*incEntry{}}
	if qc.has("block_name_to_quantize") || qc.has("to_quant_block_names") {
		key := "block_name_to_quantize"
		if !qc.has(key) {
			key = "to_quant_block_names"
		}
		var one string
		var blocks []string
		if err := json.Unmarshal(qc.m[key], &one); err == nil {
			blocks = strings.Split(one, ",") // inc/inc.py:98-102
		} else {
			blocks = qc.strings(key)
		}
		if len(blocks) > 0 {
			// An empty list restricts nothing: INC tests its truth
			// (config_parser.py:154). An empty string is one empty name,
			// a prefix of every layer (inc/inc.py:98-102).
			r.blocks = a.tree.mapNames(blocks)
		}
	}
	if ec, ok := qc.object("extra_config"); ok {
		r.extraFile, r.extraKey = ec.file, strings.TrimSuffix(ec.prefix, ".")
		for _, k := range ec.keys() {
			e, ok := ec.object(k)
			if !ok {
				// object refuses a value that is not an object; a null
				// one INC would read as no settings is refused too.
				if !ec.has(k) {
					ec.fail(k, "null: want an object of bits, group_size, sym")
				}
				continue
			}
			ent := incEntry{key: a.tree.mapName(k)}
			if strings.ContainsAny(k, incSpecialChars) {
				re, err := regexp.Compile(k)
				if err != nil {
					// Python's re would skip a key it cannot compile
					// (config_parser.py:133-134); Go's regexp reads
					// fewer forms, so a key it cannot read is refused
					// rather than skipped.
					ec.fail(k, "not a regular expression Go reads: %v", err)
					continue
				}
				ent.key, ent.re = k, re
			}
			if e.has("bits") {
				b := e.uintValue("bits")
				ent.bits = &b
			}
			if e.has("group_size") {
				g := e.intOr("group_size", 0)
				ent.group = &g
			}
			if e.has("sym") {
				s := e.boolOr("sym", true)
				ent.sym = &s
			}
			r.extra = append(r.extra, ent)
		}
		for i := range r.extra {
			if r.extra[i].re == nil {
				if _, dup := r.exact[r.extra[i].key]; !dup {
					r.exact[r.extra[i].key] = &r.extra[i]
				}
			}
		}
		for _, e := range r.extra {
			l := e.layer(r.def, true)
			if l.bits < 16 {
				if key, why := r.unsupported(l); key != "" {
					ec.fail(e.key, "%s %s", key, why)
				}
			}
		}
		r.checkFused(ec, a.tree.packed)
	}
	if key, why := r.unsupported(r.def); key != "" {
		if key == "backend" {
			key = backendKey
		}
		qc.fail(key, "%s", why)
		return Quant{}
	}
	q := Quant{Method: "inc", Bits: bits, GroupSize: uint64(max(group, 0))}
	q.rules = &quantRules{method: "inc", packed: a.tree.packed, inc: r}
	return q
}

// unsupported says why INC on CUDA has no modelled kernel for a layer of
// l, and the setting it lies in ("" when it has one): GPTQ needs Marlin
// (backend auto or a marlin one, 4 or 8 symmetric bits, a Marlin group
// size: inc_wna16_linear.py:45-82); AWQ of 4 bits with a positive group
// size is what AutoAWQ builds (its Marlin method or, off Marlin, its own:
// lines 84-126, the same tensors).
func (r *incRules) unsupported(l incLayer) (key, why string) {
	switch {
	case !slices.Contains(incSupportedBits, l.bits):
		return "bits", fmt.Sprintf("%d is not one INC takes (2, 3, 4, 8: inc/inc.py:37)", l.bits)
	case r.awq && l.bits != 4:
		return "bits", fmt.Sprintf("%d-bit AWQ layers are not modelled; INC's AWQ layers are AutoAWQ's 4-bit ones (inc_wna16_linear.py:84-126)", l.bits)
	case r.awq && l.group <= 0:
		return "group_size", fmt.Sprintf("%d: INC's AWQ layers are modelled with a positive group size only", l.group)
	case r.awq:
		return "", ""
	case r.noMarlin:
		return "backend", "a backend without marlin: INC builds GPTQ layers on Marlin only and raises NotImplementedError otherwise (inc_wna16_linear.py:50-82)"
	case l.bits != 4 && l.bits != 8:
		return "bits", fmt.Sprintf("%d: INC runs GPTQ layers on Marlin only, which takes 4 or 8 bits (inc_wna16_linear.py:46-49, 77-82 raises NotImplementedError otherwise)", l.bits)
	case !l.sym:
		return "sym", "false: INC runs GPTQ layers on Marlin only, which takes symmetric ones (inc_wna16_linear.py:46-49, 77-82 raises NotImplementedError otherwise)"
	case !slices.Contains(incMarlinGroups, l.group):
		return "group_size", fmt.Sprintf("%d is not one Marlin takes (-1, 32, 64, 128: marlin_utils.py:36); INC raises NotImplementedError for such a GPTQ layer (inc_wna16_linear.py:53-58, 77-82)", l.group)
	}
	return "", ""
}

// checkFused refuses, as INC does when it builds the layer, a fused module
// (qkv_proj, gate_up_proj, Qwen3.5's in_proj_ba) whose checkpoint shards
// extra_config gives different settings (config_parser.py:174-194: "requires
// consistent quant config"), where a shard is named exactly by a key. A
// shard a regular expression alone configures is not checked here.
func (r *incRules) checkFused(ec jsonObject, packed map[string][]string) {
	for _, e := range r.extra {
		if e.re != nil {
			continue
		}
		parent, last := splitLastDot(e.key)
		for _, shards := range packed {
			if !slices.Contains(shards, last) {
				continue
			}
			quantized := r.inBlocks(e.key)
			first := r.config(e.key, quantized)
			for _, s := range shards {
				if got := r.config(parent+s, quantized); got != first {
					ec.fail(e.key, "its fused module's shards %s have different settings (%s and %s): INC refuses the fused module (config_parser.py:188-194)", strings.Join(shards, ", "), first, got)
					return
				}
			}
		}
	}
}

// splitLastDot splits a module name at its last dot: "" and name for a
// name without one.
func splitLastDot(name string) (parent, last string) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", name
	}
	return name[:i+1], name[i+1:]
}

// layer is the settings e gives, the defaults filling what it does not set:
// the config's own where the layer is quantized, else 16 bits, group -1,
// symmetric (config_parser.py:94-111).
func (e incEntry) layer(def incLayer, quantized bool) incLayer {
	l := incLayer{bits: 16, group: -1, sym: true}
	if quantized {
		l = def
	}
	if e.bits != nil {
		l.bits = *e.bits
	}
	if e.group != nil {
		l.group = *e.group
	}
	if e.sym != nil {
		l.sym = *e.sym
	}
	return l
}

// inBlocks says whether module lies in block_name_to_quantize (every
// module does without it).
func (r *incRules) inBlocks(module string) bool {
	if r.blocks == nil {
		return true
	}
	return slices.ContainsFunc(r.blocks, func(b string) bool { return strings.HasPrefix(module, b) })
}

// entry is extra_config's entry for module: its own (by key), else the
// first regular expression that matches it (config_parser.py:75-92); ok
// is false when extra_config does not name module.
func (r *incRules) entry(module string) (e incEntry, ok bool) {
	if e, ok := r.exact[module]; ok {
		return *e, true
	}
	for _, e := range r.extra {
		if e.re != nil && e.re.MatchString(module) {
			return e, true
		}
	}
	return incEntry{}, false
}

// explicit says whether extra_config names module, by key or by a
// regular expression it matches (see entry).
func (r *incRules) explicit(module string) bool {
	_, ok := r.entry(module)
	return ok
}

// config is get_config (config_parser.py:94-140): module's own entry, else
// the first regular expression that matches it, else the defaults.
func (r *incRules) config(module string, quantized bool) incLayer {
	e, _ := r.entry(module)
	return e.layer(r.def, quantized)
}

// resolve is INC's settings for module of kind k (get_quant_method and
// _resolve_raw, inc/inc.py:216-235 and config_parser.py:142-196): an
// entry named exactly the module without bits below 16 leaves it
// unquantized; else its own entry, an entry its name ends with, the
// block list (the LM head only there), the fused module's shards where
// extra_config names one, a regular expression, the defaults.
func (r *incRules) resolve(module string, shards []string, k modKind) incLayer {
	unq := incLayer{bits: 16, group: -1, sym: true}
	if e, ok := r.exact[module]; ok {
		if e.bits == nil || *e.bits >= 16 {
			return unq
		}
		return e.layer(r.def, true)
	}
	for _, e := range r.extra {
		if strings.HasSuffix(module, "."+e.key) {
			return e.layer(r.def, true)
		}
	}
	quantized := k != headMod
	if r.blocks != nil {
		quantized = r.inBlocks(module)
	}
	if len(r.extra) > 0 && len(shards) > 0 && slices.ContainsFunc(shards, r.explicit) {
		// checkFused refused shards named by key with different settings,
		// and checkINCFused those regular expressions set apart, as INC
		// raises for them (config_parser.py:188-194); the widest is kept
		// for a caller that did not check.
		first := r.config(shards[0], quantized)
		best := first
		for _, s := range shards[1:] {
			c := r.config(s, quantized)
			if c != first && r.apart != nil {
				*r.apart = append(*r.apart, fmt.Sprintf("%s (%s: %s; %s: %s)", module, shards[0], first, s, c))
				break
			}
			if c.bits > best.bits {
				best = c
			}
		}
		return best
	}
	return r.config(module, quantized)
}

// incScheme is the scheme INC gives module of kind k: unquantized at 16
// bits or more, else AutoGPTQ's or AutoAWQ's packed layout.
func (r *quantRules) incScheme(module string, shards []string, k modKind) Scheme {
	l := r.inc.resolve(module, shards, k)
	if l.bits >= 16 {
		return Scheme{}
	}
	layout := "gptq"
	if r.inc.awq {
		layout = "awq"
	}
	return Scheme{Format: PackedInt, Bits: l.bits, GroupSize: uint64(max(l.group, 0)), ZeroPoints: true, layout: layout}
}

// checkINCFused refuses an auto-round config whose extra_config sets the
// shards of a fused module apart by regular expressions (q_proj at 8 bits
// by ".*q_proj$", k_proj and v_proj at the default 4), as INC raises
// "Fused module ... requires consistent quant config" when it builds the
// layer (config_parser.py:174-194 at vLLM main d18bb7b); shards named by
// key are refused as the config is read (checkFused). Which modules a
// regular expression reaches is known only from their names, so a's
// weights are laid out once, at one rank, on a private copy of the rules
// that records each fused module set apart. nil for other methods.
func checkINCFused(a *Arch) error {
	q := a.Quant
	if q.rules == nil || q.rules.inc == nil || !slices.ContainsFunc(q.rules.inc.extra, func(e incEntry) bool { return e.re != nil }) {
		return nil
	}
	inc := *q.rules.inc
	var apart []string
	inc.apart = &apart
	rules := *q.rules
	rules.inc = &inc
	q.rules = &rules
	Weights(a, Whole(a, 1, 2, q))
	if len(apart) == 0 {
		return nil
	}
	return &ConfigError{File: inc.extraFile, Key: inc.extraKey, Detail: fmt.Sprintf("its regular expressions give a fused module's shards different settings, which INC refuses (\"requires consistent quant config\", config_parser.py:188-194): %s", strings.Join(apart, ", "))}
}
