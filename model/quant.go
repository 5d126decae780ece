package model

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Quant is a checkpoint's weight quantization as vLLM loads it: the method
// (quant_method), the layout of its quantized linear layers and fused
// experts, and which modules it leaves in the model dtype.
type Quant struct {
	// Method is the layout family: "" (none), "fp8", "awq", "gptq",
	// "bitsandbytes", "compressed-tensors", "modelopt" (ModelOpt's FP8,
	// NVFP4 and mixed precision) or "mxfp4" (gpt-oss's experts).
	Method string
	// Bits is the weight width of the default scheme (4 for AWQ/GPTQ, NF4
	// and FP4, 8 for fp8 and LLM.int8).
	Bits uint64
	// GroupSize is AWQ/GPTQ's input rows sharing one scale.
	GroupSize uint64
	// BlockN and BlockK are fp8's weight_block_size; 0 means one scale per
	// tensor.
	BlockN, BlockK uint64
	// DescAct is GPTQ's act-order (g_idx permutes the input rows).
	DescAct bool
	// NotConvert is the list of modules the checkpoint leaves unquantized,
	// as its config spells it (modules_to_not_convert, ignored_layers,
	// ignore, exclude_modules, llm_int8_skip_modules).
	NotConvert []string
	// Algo is ModelOpt's quant_algo (FP8, NVFP4, W4A16_NVFP4,
	// FP8_PER_CHANNEL_PER_TOKEN, MIXED_PRECISION); "" for other methods.
	Algo string
	// KVCacheDtype is the KV cache dtype the checkpoint asks for when the
	// engine's is auto: "fp8_e4m3" for ModelOpt's kv_cache_quant_algo FP8
	// or an 8-bit float kv_cache_scheme; "" when it asks for none
	// (vllm/utils/torch_utils.py:427-509).
	KVCacheDtype string

	// rules is the compiled scheme and ignore-list matcher; nil for no
	// quantization or an online one (Online).
	rules *quantRules
}

// Format is how a quantized layer stores its weights on the GPU.
type Format int

// The weight formats of vLLM's quantization methods.
const (
	// Unquantized keeps the weight in the model dtype.
	Unquantized Format = iota
	// FP8 keeps one float8_e4m3fn per weight, with fp32 scales per tensor,
	// output channel or block.
	FP8
	// INT8 keeps one int8 per weight with fp32 scales (compressed-tensors
	// W8A8 int).
	INT8
	// PackedInt packs Bits-bit integers into int32 words with model-dtype
	// scales per group of input rows (AWQ, GPTQ, compressed-tensors
	// WNA16).
	PackedInt
	// NVFP4 packs two 4-bit floats per byte with one fp8 scale per 16
	// weights and fp32 global scales.
	NVFP4
	// MXFP4 packs two 4-bit floats per byte with one e8m0 scale per 32
	// weights (gpt-oss's experts).
	MXFP4
	// BnB4 is bitsandbytes' NF4/FP4: two weights per byte, one fp32 absmax
	// per 64 (double quantization is undone at load).
	BnB4
	// BnB8 is bitsandbytes' LLM.int8: one int8 per weight; its row scales
	// stay in host memory.
	BnB8
)

// ScaleKind is how FP8 and INT8 weights keep their scales.
type ScaleKind int

// The scale granularities.
const (
	PerTensor ScaleKind = iota
	PerChannel
	PerBlock
)

// Scheme is how one linear layer or one set of fused experts is stored.
type Scheme struct {
	Format Format
	// Scale, BlockN and BlockK: FP8 and INT8 scale granularity.
	Scale          ScaleKind
	BlockN, BlockK uint64
	// Bits, GroupSize (0: one scale per output channel), ZeroPoints and
	// ActOrder: PackedInt. Under act-order a row-parallel layer keeps every
	// group's scales (marlin_repeat_scales_on_all_ranks) and g_idx orders
	// the input rows.
	Bits, GroupSize      uint64
	ZeroPoints, ActOrder bool
	// StaticInput says activation scales are stored (FP8/INT8 static
	// activations; NVFP4 W4A4's activation global scales).
	StaticInput bool
	// layout names the tensors and packing: "fp8" (weight_scale_inv),
	// "awq", "gptq", "ct" (compressed-tensors), "modelopt".
	layout string
}

// modKind is what kind of module asks for its scheme.
type modKind int

const (
	linearMod  modKind = iota // a linear layer (LinearBase)
	headMod                   // the LM head (ParallelLMHead)
	expertsMod                // fused routed experts (FusedMoE)
)

// quantRules is a parsed quantization: its schemes and its compiled ignore
// and target matchers, built once when the config is read.
type quantRules struct {
	method string
	// linear and experts are the default schemes (compressed-tensors and
	// ModelOpt mixed precision choose per module instead).
	linear, experts Scheme
	ignore          *matcher
	// lmHead: AWQ/GPTQ's lm_head flag; ModelOpt quantizes the head unless
	// excluded.
	lmHead bool
	// quantizeOnly: GPTQ's modules_in_block_to_quantize (a module is
	// quantized when one of them is a substring of its name); nil: all.
	quantizeOnly []string
	// dynamicSkip: GPTQ's "-:" dynamic regexes.
	dynamicSkip []*regexp.Regexp
	// ctGroups: compressed-tensors' config groups in file order.
	ctGroups []ctGroup
	// mixed: ModelOpt mixed precision's quantized_layers, by module, and
	// their names sorted, for the lookups by prefix.
	mixed     map[string]Scheme
	mixedKeys []string
	// packed is the family's fused modules and the checkpoint shards they
	// hold (vLLM's packed_modules_mapping).
	packed map[string][]string
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

// marlinPackedInt reports an AWQ or GPTQ checkpoint, whose packed int
// weights vLLM runs with Marlin kernels on CUDA.
func (q Quant) marlinPackedInt() bool { return q.Method == "awq" || q.Method == "gptq" }

// LinearFormat returns the format vLLM stores the linear layer module in
// (its canonical name, such as model.layers.3.self_attn.kv_b_proj):
// [Unquantized] when the quantization leaves it in the model dtype.
func (q Quant) LinearFormat(module string) Format {
	return q.schemeFor(module, linearMod).Format
}

// schemeFor is the scheme vLLM gives module (its name in the canonical
// form, model.layers.N.self_attn.qkv_proj) of kind k.
func (q Quant) schemeFor(module string, k modKind) Scheme {
	r := q.rules
	if r == nil {
		return Scheme{}
	}
	shards := r.shards(module)
	switch r.method {
	case "fp8", "bitsandbytes", "awq":
		if k == headMod && !(r.method == "awq" && r.lmHead) {
			return Scheme{}
		}
		if k == expertsMod && r.method == "bitsandbytes" && r.experts.Format == BnB8 {
			return Scheme{} // refused at parse time; never reached
		}
		if r.ignore.skips(module, shards) {
			return Scheme{}
		}
		if k == expertsMod {
			return r.experts
		}
		return r.linear
	case "gptq":
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
	case "compressed-tensors":
		return r.ctScheme(module, shards, k)
	case "modelopt":
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
	case "mxfp4":
		if k == expertsMod {
			return r.experts
		}
	}
	return Scheme{}
}

// shards is the checkpoint modules a fused module holds (qkv_proj: q_proj,
// k_proj, v_proj), with the same parent; nil for a module vLLM does not
// fuse.
func (r *quantRules) shards(module string) []string {
	parent, proj := splitLast(module)
	names, ok := r.packed[proj]
	if !ok {
		return nil
	}
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = parent + n
	}
	return out
}

func splitLast(module string) (parent, last string) {
	i := strings.LastIndexByte(module, '.')
	return module[:i+1], module[i+1:]
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

// QuantMethods maps the checkpoints' quant_method values (config.json's
// quantization_config, hf_quant_config.json's) to the layout family whose
// bytes the model counts; the engines map their own --quantization names
// to the same families. The marlin names repack the same bytes, and the
// engines' override methods map awq to awq_marlin, gptq to gptq_marlin,
// mxfp4 to gpt_oss_mxfp4 and the modelopt names to one another.
var QuantMethods = map[string]string{
	"fp8": "fp8", "awq": "awq", "awq_marlin": "awq", "gptq": "gptq", "gptq_marlin": "gptq",
	"bitsandbytes": "bitsandbytes", "compressed-tensors": "compressed-tensors",
	"modelopt": "modelopt", "modelopt_fp4": "modelopt", "modelopt_mixed": "modelopt",
	"mxfp4": "mxfp4", "gpt_oss_mxfp4": "mxfp4",
}

// quantMethodNames lists the quant_method values readQuant takes, for
// errors.
func quantMethodNames() string {
	names := make([]string, 0, len(QuantMethods))
	for k := range QuantMethods {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Online is the quantization vLLM applies when it loads an unquantized
// checkpoint with --quantization fp8: fp8 weights with one fp32 scale per
// tensor, created on the meta device so that no model-dtype copy remains
// (vllm/model_executor/layers/quantization/online/fp8.py:114-225). It is an
// error for another method, which needs a checkpoint quantized that way.
func Online(method string) (Quant, error) {
	if method != "fp8" {
		return Quant{}, fmt.Errorf("model: online quantization %q: only fp8 is applied to an unquantized checkpoint", method)
	}
	fp8 := Scheme{Format: FP8, layout: "fp8"}
	return Quant{Method: "fp8", Bits: 8, rules: &quantRules{method: "fp8", linear: fp8, experts: fp8, ignore: &matcher{}}}, nil
}

// readQuant reads quantization_config (or, for a multimodal wrapper, its
// text config's, as vllm/model_executor/model_loader/weight_utils.py:240-290
// does), else the hf_quant_config.json given, for the family whose tree
// names the modules.
func readQuant(o, text jsonObject, a *Arch, hf *jsonObject) Quant {
	qc, ok := o.object("quantization_config")
	if !ok && text.m != nil {
		qc, ok = text.object("quantization_config")
	}
	if !ok && hf != nil {
		// hf_quant_config.json is read only when config.json has no
		// quantization_config (vllm/transformers_utils/config.py:755-766).
		inner, ok := hf.object("quantization")
		if !ok {
			hf.fail("quantization", "missing (required in hf_quant_config.json)")
			return Quant{}
		}
		return readModelOpt(inner, a, true)
	}
	if !ok {
		return Quant{}
	}
	raw := qc.str("quant_method")
	method, known := QuantMethods[raw]
	if !known {
		qc.fail("quant_method", "%q is not supported; supported: %s", raw, quantMethodNames())
		return Quant{}
	}
	switch method {
	case "fp8":
		return readFP8(qc, a)
	case "awq", "gptq":
		return readWNA16(qc, a, method)
	case "bitsandbytes":
		return readBnB(qc, a)
	case "compressed-tensors":
		return readCompressedTensors(qc, a)
	case "modelopt":
		return readModelOpt(qc, a, false)
	case "mxfp4":
		if a.ModelType != "gpt_oss" {
			// mxfp4.py:121-138: the MXFP4 method vLLM sizes here is gpt-oss's.
			qc.fail("quant_method", "mxfp4 is supported for model_type gpt_oss only, not %q", a.ModelType)
			return Quant{}
		}
		q := Quant{Method: "mxfp4", Bits: 4, NotConvert: qc.strings("modules_to_not_convert")}
		// mxfp4.py:83-105: every linear layer stays unquantized; only the
		// fused experts are MXFP4.
		q.rules = &quantRules{method: "mxfp4", experts: Scheme{Format: MXFP4, Bits: 4}, ignore: &matcher{}}
		return q
	}
	return Quant{}
}

func readFP8(qc jsonObject, a *Arch) Quant {
	q := Quant{Method: "fp8", Bits: 8}
	// fp8.py:156-174: ignored_layers, else modules_to_not_convert.
	q.NotConvert = qc.strings("ignored_layers")
	if len(q.NotConvert) == 0 {
		q.NotConvert = qc.strings("modules_to_not_convert")
	}
	s := Scheme{Format: FP8, layout: "fp8"}
	if b := qc.uints("weight_block_size"); b != nil {
		if len(b) != 2 || b[0] == 0 || b[1] == 0 || b[0] > 1<<16 || b[1] > 1<<16 {
			qc.fail("weight_block_size", "want two positive sizes, got %v", b)
			return Quant{}
		}
		q.BlockN, q.BlockK = b[0], b[1]
		s.Scale, s.BlockN, s.BlockK = PerBlock, b[0], b[1]
	}
	switch act := qc.str("activation_scheme"); act {
	case "", "dynamic":
	case "static":
		if s.Scale == PerBlock {
			// fp8.py:126-131.
			qc.fail("activation_scheme", "static activations with weight_block_size: vLLM's block-wise fp8 takes dynamic activations only")
			return Quant{}
		}
		s.StaticInput = true
	default:
		qc.fail("activation_scheme", "%q: want static or dynamic", act)
		return Quant{}
	}
	q.rules = &quantRules{method: "fp8", linear: s, experts: s, packed: a.tree.packed,
		ignore: compileMatcher(a.tree.mapNames(q.NotConvert), exactMatch)}
	return q
}

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

func readBnB(qc jsonObject, a *Arch) Quant {
	q := Quant{Method: "bitsandbytes", NotConvert: qc.strings("llm_int8_skip_modules")}
	four := qc.boolOr("load_in_4bit", false) || qc.boolOr("_load_in_4bit", false)
	eight := qc.boolOr("load_in_8bit", false) || qc.boolOr("_load_in_8bit", false)
	var s Scheme
	switch {
	case four && eight:
		qc.fail("load_in_4bit", "both load_in_4bit and load_in_8bit are set")
		return Quant{}
	case four:
		if t := qc.str("bnb_4bit_quant_type"); t != "" && t != "nf4" && t != "fp4" {
			qc.fail("bnb_4bit_quant_type", "%q: want nf4 or fp4", t)
			return Quant{}
		}
		q.Bits, s = 4, Scheme{Format: BnB4, Bits: 4}
	case eight:
		if a.Experts > 0 {
			// bitsandbytes.py:583-592 (at dedbf6be8) raises
			// NotImplementedError for 8-bit fused MoE.
			qc.fail("load_in_8bit", "8-bit bitsandbytes of a mixture of experts is refused by vLLM")
			return Quant{}
		}
		q.Bits, s = 8, Scheme{Format: BnB8, Bits: 8}
	default:
		qc.fail("load_in_4bit", "neither load_in_4bit nor load_in_8bit is set")
		return Quant{}
	}
	q.rules = &quantRules{method: "bitsandbytes", linear: s, experts: s, packed: a.tree.packed,
		ignore: compileMatcher(a.tree.mapNames(q.NotConvert), componentMatch)}
	return q
}

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
