package model

// readBnB reads a bitsandbytes quantization_config: NF4 or FP4
// (load_in_4bit) or LLM.int8 (load_in_8bit), and llm_int8_skip_modules.
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
