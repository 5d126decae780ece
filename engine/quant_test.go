package engine

import (
	"errors"
	"testing"

	"membudget/model"
)

func TestQuantizationsResolve(t *testing.T) {
	q := Quantizations{
		Methods:  map[string]string{"fp8": "fp8", "awq": "awq", "awq_marlin": "awq", "gptq": "gptq"},
		Fold:     true,
		Unknown:  "want one of",
		Mismatch: ": the engine refuses it",
		Online: func(method string) (model.Quant, bool) {
			return model.Quant{Method: "fp8", Bits: 8}, method == "fp8"
		},
	}
	plain := &model.Arch{Source: "plain"}
	awq := &model.Arch{Source: "awq-ckpt", Quant: model.Quant{Method: "awq", Bits: 4}}
	cases := []struct {
		name   string
		q      Quantizations
		arch   *model.Arch
		flag   string
		method string // the quantization served, when not refused
		err    string // the refusal, whole
	}{
		{name: "no flag keeps the checkpoint's", q: q, arch: awq, method: "awq"},
		{name: "no flag on an unquantized checkpoint", q: q, arch: plain, method: ""},
		{name: "a name of the checkpoint's method", q: q, arch: awq, flag: "awq_marlin", method: "awq"},
		{name: "Fold reads any case", q: q, arch: awq, flag: "AWQ", method: "awq"},
		{name: "online fp8", q: q, arch: plain, flag: "fp8", method: "fp8"},
		{name: "another method than the checkpoint's", q: q, arch: awq, flag: "gptq",
			err: `--quantization "gptq": the checkpoint awq-ckpt is quantized with awq: the engine refuses it`},
		{name: "a method not applied online", q: q, arch: plain, flag: "gptq",
			err: `--quantization "gptq": needs a checkpoint quantized with gptq (its config.json has no quantization_config)`},
		{name: "a name not in the table, sorted names", q: q, arch: plain, flag: "int8",
			err: `--quantization "int8": want one of awq, awq_marlin, fp8, gptq`},
		{name: "without Fold the case counts", q: Quantizations{Methods: q.Methods, Unknown: "want one of"}, arch: awq, flag: "AWQ",
			err: `--quantization "AWQ": want one of awq, awq_marlin, fp8, gptq`},
		{name: "without Online nothing is applied", q: Quantizations{Methods: q.Methods}, arch: plain, flag: "fp8",
			err: `--quantization "fp8": needs a checkpoint quantized with fp8 (its config.json has no quantization_config)`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.q.Resolve(c.arch, c.flag)
			if c.err != "" {
				var se *SettingError
				if !errors.As(err, &se) || se.Flag != "quantization" || err.Error() != c.err {
					t.Fatalf("Resolve(%q) = %v; want the SettingError %q", c.flag, err, c.err)
				}
				return
			}
			if err != nil || got.Method != c.method {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", c.flag, got.Method, err, c.method)
			}
		})
	}
}
