package model

import (
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
	// NVFP4 and mixed precision), "mxfp4" (gpt-oss's experts) or "inc"
	// (AutoRound's auto-round checkpoints, vLLM's INC method).
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

// w4a4NVFP4 reports an NVFP4 scheme with a static activation scale (W4A4),
// whose layout follows the engine's kernels ([Sharding].NVFP4).
func (s Scheme) w4a4NVFP4() bool { return s.Format == NVFP4 && s.StaticInput }

// compiled returns q with its rules, building them from the exported
// fields for a Quant made by hand (an engine's online fp8, a test's
// literal) rather than read from a config.
func (q Quant) compiled(a *Arch) Quant {
	if q.rules != nil || q.Method == "" {
		return q
	}
	packed := a.tree.packed
	if packed == nil {
		packed = llamaPacked
	}
	r := &quantRules{method: q.Method, packed: packed}
	switch q.Method {
	case "fp8":
		q.fp8Rules(r)
	case "awq", "gptq":
		q.wna16Rules(r)
	default:
		// The other methods exist only as read from a config.
		return q
	}
	q.rules = r
	return q
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
	// inc: an auto-round quantization_config as INC reads it.
	inc *incRules
	// packed is the family's fused modules and the checkpoint shards they
	// hold (vLLM's packed_modules_mapping).
	packed map[string][]string
}

// W4A4NVFP4 reports whether any layer of the checkpoint is NVFP4 with a
// static activation scale (W4A4), the only NVFP4 layers whose layout
// follows the engine's kernels ([Sharding].NVFP4; W4A16 layers run on
// Marlin everywhere): an engine sets the kernel for such a checkpoint
// alone, so that the weights of every other one stay shared across
// devices.
func (q Quant) W4A4NVFP4() bool {
	r := q.rules
	if r == nil {
		return false
	}
	if r.linear.w4a4NVFP4() || r.experts.w4a4NVFP4() {
		return true
	}
	for _, g := range r.ctGroups {
		if g.scheme.w4a4NVFP4() {
			return true
		}
	}
	for _, s := range r.mixed {
		if s.w4a4NVFP4() {
			return true
		}
	}
	return false
}

// marlinPackedInt reports an AWQ, GPTQ or INC (AutoRound) checkpoint, whose
// packed int weights vLLM runs with Marlin kernels on CUDA (INC's among the
// configs of qwen_gdn_linear_attn.py:543-559's maybe_disable_tp since PR
// #36329, 2026-05-21).
func (q Quant) marlinPackedInt() bool {
	return q.Method == "awq" || q.Method == "gptq" || q.Method == "inc"
}

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
		return r.gptqScheme(module, k)
	case "compressed-tensors":
		return r.ctScheme(module, shards, k)
	case "modelopt":
		return r.modeloptScheme(module, shards, k)
	case "inc":
		return r.incScheme(module, shards, k)
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
	"auto-round": "inc",
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
		return readMXFP4(qc, a)
	case "inc":
		return readINC(qc, a)
	}
	return Quant{}
}
