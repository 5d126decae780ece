package sglang

import (
	"strings"
	"testing"

	"membudget/model/explain"
	"membudget/model/logs"
)

// TestExplainReadsPiecewiseCapture: explain sets the "Capture piecewise
// CUDA graph end" line (model_runner.py:2574-2576 at v0.5.10, its format
// string filled in) beside membudget's charge for the piecewise graphs:
// Llama 3.1 8B on one H100 at v0.5.10's defaults captures 58 sizes (the
// chunked prefill 8192; see TestPiecewiseSizes), charged at SGLang's
// reserve, 58 x 8 MiB = 464 MiB = 0.453 GiB; the line's 0.46 GB is
// within TolTerm's 0.1 GiB. Under v0.5.9.post1 membudget charges none
// (piecewise graphs off unless asked for), and says why.
func TestExplainReadsPiecewiseCapture(t *testing.T) {
	text := "[2026-04-06 10:12:02 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.50 GB, mem usage=14.99 GB.\n" +
		"[2026-04-06 10:12:44 TP0] Capture piecewise CUDA graph end. Time elapsed: 21.37 s. mem usage=0.46 GB. avail mem=9.81 GB.\n"
	l, err := logs.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	c := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		profile   string
		predicted bool
		bytes     uint64
	}{{"v0.5.10", true, 58 * 8 * mib}, {"v0.5.9.post1", false, 0}} {
		ex, err := explainLog(explainInput{
			Source:  &explain.Source{Name: "piecewise.log", Text: text, Log: l},
			Model:   explain.Model{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: llama},
			Class:   explain.ClassChoice{Class: c},
			Profile: mustProfile(tt.profile),
			Serve:   loggedServe{From: map[string]explain.SettingFrom{}},
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.profile, err)
		}
		var row *explain.Row
		for i := range ex.Figures {
			if ex.Figures[i].Figure == "piecewise_cuda_graphs" {
				row = &ex.Figures[i]
			}
		}
		switch {
		case row == nil:
			t.Errorf("%s: no piecewise_cuda_graphs row in %+v", tt.profile, ex.Figures)
		case row.LoggedText != "0.46 GB" || row.IsPredicted != tt.predicted:
			t.Errorf("%s: logged %q, predicted %v; want \"0.46 GB\", %v", tt.profile, row.LoggedText, row.IsPredicted, tt.predicted)
		case tt.predicted && (row.PredictedBytes == nil || *row.PredictedBytes != tt.bytes || !row.Within):
			t.Errorf("%s: predicted %v, within %v; want %d B within", tt.profile, row.PredictedBytes, row.Within, tt.bytes)
		case !tt.predicted && row.Note == "":
			t.Errorf("%s: no note saying why none is charged", tt.profile)
		}
	}
}
