package model

import "fmt"

// readFP8 reads an fp8 quantization_config
// (vllm/model_executor/layers/quantization/fp8.py): one scale per tensor or
// per weight_block_size block, dynamic or static activations, the modules
// it leaves unquantized.
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

// fp8Rules gives r the fp8 scheme of a Quant made by hand (compiled): one
// scale per tensor, or per block of BlockN x BlockK.
func (q Quant) fp8Rules(r *quantRules) {
	s := Scheme{Format: FP8, layout: "fp8"}
	if q.BlockN > 0 && q.BlockK > 0 {
		s.Scale, s.BlockN, s.BlockK = PerBlock, q.BlockN, q.BlockK
	}
	r.linear, r.experts = s, s
	r.ignore = compileMatcher(q.NotConvert, exactMatch)
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
