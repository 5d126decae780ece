package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
)

// TestResolveKVTransfer: the NIXL connectors on the GPU resolve; every
// other connector, a host buffer, an older release and a config vLLM
// stops at are refused naming --kv-transfer-config, with what they add.
func TestResolveKVTransfer(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	eight := 8.0
	cases := []struct {
		name, cfg string
		profile   Profile
		offload   *float64
		want      string // a substring of the refusal, "" when it resolves
	}{
		{"NIXL, kv_both", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, current, nil, ""},
		{"NIXL pull, producer, cuda", `{"kv_connector": "NixlPullConnector", "kv_role": "kv_producer", "kv_buffer_device": "cuda"}`, current, nil, ""},
		{"NIXL push, consumer", `{"kv_connector": "NixlPushConnector", "kv_role": "kv_consumer", "kv_connector_extra_config": {"backends": ["UCX"]}}`, current, nil, ""},
		{"NIXL on 0.28.0", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, mustProfile("0.28.0"), nil, ""},
		{"no connector", `{"kv_role": "kv_both"}`, current, nil, ""},
		{"NIXL on 0.27.0", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, mustProfile("0.27.0"), nil, "registration of the KV cache"},
		{"NIXL host buffer", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}`, current, nil, "a host copy of every layer's KV cache"},
		{"NIXL on xpu", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "xpu"}`, current, nil, "NIXL on cuda takes cuda or cpu"},
		{"no role", `{"kv_connector": "NixlConnector"}`, current, nil, "Please specify kv_role"},
		{"a bad role", `{"kv_connector": "NixlConnector", "kv_role": "both"}`, current, nil, "kv_role: vLLM takes"},
		{"an unknown key", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_size": 1}`, current, nil, `unknown field "kv_size"`},
		{"LMCache", `{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}`, current, nil, "sized by the lmcache package"},
		{"Mooncake", `{"kv_connector": "MooncakeConnector", "kv_role": "kv_producer"}`, current, nil, "Mooncake's transfer engine"},
		{"Offloading", `{"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}`, current, nil, "--kv-offloading-size"},
		{"out of tree", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_connector_module_path": "my.mod"}`, current, nil, "out-of-tree"},
		{"with the offload", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, current, &eight, "replaces the connector"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := Serve{KVTransferConfig: tc.cfg, Offload: KVOffload{SizeGiB: tc.offload}}
			_, err := Resolve(s, a, bigClass, tc.profile)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != "kv-transfer-config" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want a refusal of --kv-transfer-config saying %q", err, tc.want)
			}
		})
	}
}

// TestKVTransferNeverShrinksFootprint: a NIXL connector on the GPU leaves
// every term as it is (vLLM allocates nothing for it) and never shrinks
// the footprint, and the compiler agrees with the reference.
func TestKVTransferNeverShrinksFootprint(t *testing.T) {
	models := shipped(t)
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom([]string{"Qwen__Qwen3-30B-A3B", "meta-llama__Llama-3.1-8B-Instruct"}).Draw(t, "model")]
		c := testClass(rapid.Bool().Draw(t, "unified"))
		s := Serve{
			TensorParallelSize: rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:        rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:         rapid.Uint64Range(1, 256).Draw(t, "seqs"),
		}
		plain, err := Compile(a, s, c, current)
		if err != nil {
			t.Skip(err)
		}
		s.KVTransferConfig = `{"kv_connector": "` + rapid.SampledFrom(nixlConnectors).Draw(t, "connector") + `", "kv_role": "` + rapid.SampledFrom(kvRoles).Draw(t, "role") + `"}`
		p, n, _, _ := footprintsWith(t, "NIXL", a, s, c, plain)
		if diff := cmp.Diff(p.Terms, n.Terms); diff != "" {
			t.Fatalf("NIXL on the GPU changes the terms (-without +with):\n%s", diff)
		}
	})
}

// TestKVTransferCommand: the printed line carries --kv-transfer-config as
// given, quoted for the shell, and the report says what it holds.
func TestKVTransferCommand(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	cfg := `{"kv_connector":"NixlConnector","kv_role":"kv_both"}`
	r, err := Resolve(Serve{KVTransferConfig: cfg}, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	if line, want := Command("Qwen/Qwen3-30B-A3B", &r), ` --kv-transfer-config '`+cfg+`'`; !strings.Contains(line, want) {
		t.Errorf("line %q: want %q", line, want)
	}
	got := (&Sizing{Serve: &r}).kvTransferSettings()
	if len(got) != 1 || !strings.HasPrefix(got[0], "KV transfer: NixlConnector registers the KV cache") {
		t.Errorf("settings %q: want the NIXL line", got)
	}
}

// TestPlanKeepsKVTransfer: plan keeps a NIXL --kv-transfer-config on every
// deployment, each command carrying it, with the deployments and their
// figures of the plan without it (it adds no memory); a connector
// membudget does not size fails the plan naming the flag.
func TestPlanKeepsKVTransfer(t *testing.T) {
	e := searchOn(t, "Qwen__Qwen3-0.6B", "l4")
	need := Need{Length: 4096, Concurrency: 8}
	sp := Space{Plan: engine.PlanSpace{Classes: []budget.Class{e.Class}}, Profile: e.Profile}
	plain, err := Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, sp, nil)
	if err != nil || len(plain) == 0 {
		t.Fatalf("plan without a connector: %d rows, %v", len(plain), err)
	}
	cfg := `{"kv_connector":"NixlConnector","kv_role":"kv_both"}`
	sp.KVTransferConfig = cfg
	rows, err := Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(plain) {
		t.Fatalf("%d deployments with NIXL, %d without", len(rows), len(plain))
	}
	for i, d := range rows {
		if !strings.Contains(d.Command, ` --kv-transfer-config '`+cfg+`'`) {
			t.Errorf("row %d: command %q lacks the connector", i, d.Command)
		}
		if d.KVCacheBytes != plain[i].KVCacheBytes || d.MostSeqs != plain[i].MostSeqs {
			t.Errorf("row %d: KV %d B, %v seqs with NIXL; %d B, %v without", i, d.KVCacheBytes, d.MostSeqs, plain[i].KVCacheBytes, plain[i].MostSeqs)
		}
	}
	sp.KVTransferConfig = `{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}`
	_, err = Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, sp, nil)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "kv-transfer-config" {
		t.Errorf("plan with LMCache: %v, want a refusal of --kv-transfer-config", err)
	}
}
