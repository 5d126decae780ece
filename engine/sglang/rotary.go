package sglang

import "membudget/model"

// rotaryTable is one rotary cos/sin table as SGLang keeps it: Rows rows of
// Dim values of ElemBytes each.
type rotaryTable struct {
	Rows, Dim, ElemBytes uint64
}

// rotaryTables is a's rotary tables as SGLang keeps them: in float32 on
// CUDA whatever the model dtype ("cache needs to be in FP32",
// layers/rotary_embedding.py:111-114 at v0.5.6.post2, :99-101 at
// v0.4.9.post2).
func rotaryTables(a *model.Arch) []rotaryTable {
	var out []rotaryTable
	for _, r := range a.Rotary {
		out = append(out, rotaryTable{Rows: r.Positions, Dim: r.Dim, ElemBytes: 4})
	}
	return out
}

// withoutRotary is a copy of a without its rotary tables, for the weights
// the model lists before SGLang's own tables are added.
func withoutRotary(a *model.Arch) *model.Arch {
	b := *a
	b.Rotary = nil
	return &b
}
