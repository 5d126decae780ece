package enginetest

import (
	"pgregory.net/rapid"

	"membudget"
	"membudget/budget"
	"membudget/model"
	"membudget/model/hub"
	"membudget/model/modelgen"
)

// Generated draws a model of any family modelgen draws, parsed as the
// commands parse a config.json (no checkpoint beside it), and a shipped
// class; the engine's test draws its flags.
func Generated(t *rapid.T) (*hub.Loaded, budget.Class) {
	cfg := modelgen.Config().Draw(t, "config")
	data, err := modelgen.JSON(cfg)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	a, err := model.ParseConfig("gen/config.json", data)
	if err != nil {
		t.Fatalf("a generated config does not parse: %v\n%s", err, data)
	}
	m := &hub.Loaded{Name: "gen/model", Model: &hub.Model{Spec: "gen/model", Config: data, Path: "gen/config.json",
		Source: hub.Source{Kind: hub.SourcePath, Description: "generated"}}, Arch: a, NoCheckpoint: "generated"}
	names, err := membudget.Kernels().Names()
	if err != nil {
		t.Fatal(err)
	}
	c, err := membudget.Kernels().Load(rapid.SampledFrom(names).Draw(t, "class"))
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

// ParallelArgs draws tensor-parallel and pipeline degrees among which some
// do not divide the model's heads or exceed its layers: the engine must
// refuse those with a setting error naming its flag.
func ParallelArgs(t *rapid.T, tpFlag, ppFlag string) []string {
	tp := rapid.SampledFrom([]string{"1", "1", "2", "3", "4", "8"}).Draw(t, "tp")
	pp := rapid.SampledFrom([]string{"1", "1", "1", "2", "4"}).Draw(t, "pp")
	return []string{"--" + tpFlag, tp, "--" + ppFlag, pp}
}
