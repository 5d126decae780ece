package model

import (
	"path"
	"strings"
)

// Quant is a weight quantization: fp8 (per tensor, or per block of BlockN x
// BlockK with an fp32 scale each), or AWQ/GPTQ int4 with a group size.
type Quant struct {
	Method         string // "", "fp8", "awq", "gptq"
	Bits           uint64 // 4 for awq/gptq, 8 for fp8
	GroupSize      uint64 // awq/gptq: input rows sharing one scale
	BlockN, BlockK uint64 // fp8: weight_block_size; 0 means one scale per tensor
	DescAct        bool   // gptq: g_idx is stored (act-order)
	NotConvert     []string
}

// skips reports whether module (model.layers.0.mlp.gate) is left in the
// model dtype by modules_to_not_convert: listed itself, under a listed
// prefix, or matched by a listed glob.
func (q Quant) skips(module string) bool {
	for _, m := range q.NotConvert {
		if m == module || strings.HasPrefix(module, m+".") {
			return true
		}
		if ok, _ := path.Match(m, module); ok && strings.ContainsAny(m, "*?[") {
			return true
		}
	}
	return false
}

// QuantMethods maps vLLM's --quantization names and quant_method values to
// the layout whose bytes the model counts (the marlin kernels repack the same
// bytes).
var QuantMethods = map[string]string{
	"fp8": "fp8", "awq": "awq", "awq_marlin": "awq", "gptq": "gptq", "gptq_marlin": "gptq",
}

func readQuant(o jsonObject) Quant {
	qc, ok := o.object("quantization_config")
	if !ok {
		return Quant{}
	}
	raw := qc.str("quant_method")
	method, known := QuantMethods[raw]
	if !known {
		qc.fail("quant_method", "%q is not supported; supported: fp8, awq, gptq", raw)
		return Quant{}
	}
	q := Quant{Method: method, NotConvert: qc.strings("modules_to_not_convert")}
	switch method {
	case "fp8":
		q.Bits = 8
		if b := qc.uints("weight_block_size"); b != nil {
			if len(b) != 2 || b[0] == 0 || b[1] == 0 {
				qc.fail("weight_block_size", "want two positive sizes, got %v", b)
				return Quant{}
			}
			q.BlockN, q.BlockK = b[0], b[1]
		}
	case "awq", "gptq":
		bitsKey, groupKey := "bits", "group_size"
		if method == "awq" && !qc.has("bits") {
			bitsKey, groupKey = "w_bit", "q_group_size" // AutoAWQ's older names
		}
		q.Bits = qc.uint(bitsKey)
		q.GroupSize = qc.uintOr(groupKey, 0)
		q.DescAct = qc.boolOr("desc_act", false)
		if q.Bits != 4 {
			qc.fail(bitsKey, "%d-bit %s is not supported; only 4-bit", q.Bits, method)
		}
		if q.GroupSize == 0 || q.GroupSize > 1<<16 {
			qc.fail(groupKey, "want a positive group size, got %d", q.GroupSize)
		}
	}
	return q
}
