package model

// readMXFP4 reads gpt-oss's MXFP4 quantization_config.
func readMXFP4(qc jsonObject, a *Arch) Quant {
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
