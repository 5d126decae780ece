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

// TestResolveKVTransfer: the NIXL connectors resolve to exactly the
// connector and host buffer they hold; every other connector, an older
// release, a model whose KV views the host buffer would copy more than
// once and a config vLLM stops at are refused naming
// --kv-transfer-config, in exactly the words below.
func TestResolveKVTransfer(t *testing.T) {
	models := shipped(t)
	eight := 8.0
	// refused is the refusal's full text: a connector membudget does not
	// size, for the profile's vLLM.
	refused := func(p Profile, what string) string {
		return "--kv-transfer-config: " + what + ": not modelled for " + p.Describes + "; membudget refuses it rather than size a serve vLLM would contradict"
	}
	hostCopy := `connector "NixlConnector" with kv_buffer_device cpu for this model: a host copy of every layer's KV cache (nixl/base_worker.py:747-790); `
	cases := []struct {
		name, model, cfg string
		profile          Profile
		offload          *float64
		want             KVTransfer // the resolved connector, when it resolves
		err              string     // the refusal's full text, "" when it resolves
	}{
		{"NIXL, kv_both", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, current, nil, KVTransfer{Connector: "NixlConnector"}, ""},
		{"NIXL pull, producer, cuda", "", `{"kv_connector": "NixlPullConnector", "kv_role": "kv_producer", "kv_buffer_device": "cuda"}`, current, nil, KVTransfer{Connector: "NixlPullConnector"}, ""},
		{"NIXL push, consumer", "", `{"kv_connector": "NixlPushConnector", "kv_role": "kv_consumer", "kv_connector_extra_config": {"backends": ["UCX"]}}`, current, nil, KVTransfer{Connector: "NixlPushConnector"}, ""},
		{"NIXL on 0.28.0", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, mustProfile("0.28.0"), nil, KVTransfer{Connector: "NixlConnector"}, ""},
		// No connector: nothing is built (kv_transfer.py:109-110).
		{"no connector", "", `{"kv_role": "kv_both"}`, current, nil, KVTransfer{}, ""},
		// One KV cache group, a tensor a layer: the host copy is sized.
		{"NIXL host buffer, MoE", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}`, current, nil, KVTransfer{Connector: "NixlConnector", HostBuffer: true}, ""},
		{"NIXL host buffer, Llama", "meta-llama__Llama-3.1-8B-Instruct", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}`, current, nil, KVTransfer{Connector: "NixlConnector", HostBuffer: true}, ""},
		// MLA's 3-D KV tensors skip the 4-D assertion (base_worker.py:759).
		{"NIXL host buffer, MLA", "deepseek-ai__DeepSeek-V3", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}`, current, nil, KVTransfer{Connector: "NixlConnector", HostBuffer: true}, ""},
		{"NIXL host buffer, sliding and full groups", "google__gemma-3-27b-it", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}`, current, nil, KVTransfer{},
			refused(current, hostCopy+"its KV cache groups share each KV tensor among one layer of each group, and the host buffer copies every layer's view (nixl/base_worker.py:754-781): a tensor once for each group")},
		{"NIXL host buffer, Mamba state", "Qwen__Qwen3-Next-80B-A3B-Thinking", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}`, current, nil, KVTransfer{},
			refused(current, hostCopy+"Mamba state is a list of tensors per layer, not the one tensor the host buffer copies (nixl/base_worker.py:754-760)")},
		{"NIXL host buffer, shared KV", "google__gemma-3n-E2B-it", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}`, current, nil, KVTransfer{},
			refused(current, hostCopy+"a layer that shares another layer's KV cache is a view the host buffer copies again (nixl/base_worker.py:754-781)")},
		{"NIXL host buffer, DeepSeek-V4", "deepseek-ai__DeepSeek-V4-Flash", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}`, current, nil, KVTransfer{},
			refused(current, hostCopy+"DeepSeek-V4's KV cache is one packed slab, which register_kv_caches registers whole and returns before it makes the host buffer (nixl/base_worker.py:1040-1052): what the cpu buffer device then holds or does is not read")},
		{"NIXL on 0.27.0", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, mustProfile("0.27.0"), nil, KVTransfer{},
			refused(mustProfile("0.27.0"), `connector "NixlConnector", `+transferConnectors["NixlConnector"]+" (membudget reads the NIXL connectors of vLLM 0.28.0 on)")},
		{"NIXL on xpu", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "xpu"}`, current, nil, KVTransfer{},
			"--kv-transfer-config xpu: kv_buffer_device: vLLM stops at startup: NIXL on cuda takes cuda or cpu (vllm/distributed/kv_transfer/kv_connector/v1/nixl/utils.py:18-22)"},
		{"no role", "", `{"kv_connector": "NixlConnector"}`, current, nil, KVTransfer{},
			"--kv-transfer-config: vLLM stops at startup: Please specify kv_role when kv_connector is set (vllm/config/kv_transfer.py:102-106)"},
		{"a bad role", "", `{"kv_connector": "NixlConnector", "kv_role": "both"}`, current, nil, KVTransfer{},
			"--kv-transfer-config both: kv_role: vLLM takes kv_producer, kv_consumer, kv_both (vllm/config/kv_transfer.py:96-100)"},
		{"an unknown key", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_size": 1}`, current, nil, KVTransfer{},
			`--kv-transfer-config: want a JSON object of KVTransferConfig's keys (vllm/config/kv_transfer.py:23-72): json: unknown field "kv_size"`},
		// pydantic's validate_json refuses what follows the object but
		// whitespace: a stray bracket too, which dec.More let through.
		{"a stray bracket after", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}]`, current, nil, KVTransfer{},
			"--kv-transfer-config: want one JSON object"},
		{"garbage after", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"} x`, current, nil, KVTransfer{},
			"--kv-transfer-config: want one JSON object"},
		{"whitespace after", "", "{\"kv_connector\": \"NixlConnector\", \"kv_role\": \"kv_both\"}\t\n", current, nil, KVTransfer{Connector: "NixlConnector"}, ""},
		{"LMCache", "", `{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}`, current, nil, KVTransfer{},
			refused(current, `connector "LMCacheConnectorV1", `+lmcacheWhat)},
		{"LMCache MP", "", `{"kv_connector": "LMCacheMPConnector", "kv_role": "kv_both"}`, current, nil, KVTransfer{},
			refused(current, `connector "LMCacheMPConnector", `+lmcacheMPWhat)},
		{"Mooncake", "", `{"kv_connector": "MooncakeConnector", "kv_role": "kv_producer"}`, current, nil, KVTransfer{},
			refused(current, `connector "MooncakeConnector", Mooncake's transfer engine buffers and its registration of the KV cache`)},
		{"Offloading", "", `{"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}`, current, nil, KVTransfer{},
			refused(current, `connector "OffloadingConnector", the OffloadingConnector's pinned host region of cpu_bytes_to_use, which membudget sizes given as --kv-offloading-size GiB instead (the same connector, vllm/config/vllm.py:963-971)`)},
		{"out of tree", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_connector_module_path": "my.mod"}`, current, nil, KVTransfer{},
			refused(current, `connector "NixlConnector" loaded from kv_connector_module_path: an out-of-tree connector's buffers`)},
		{"with the offload", "", `{"kv_connector": "NixlConnector", "kv_role": "kv_both"}`, current, &eight, KVTransfer{},
			refused(current, `connector "NixlConnector" with --kv-offloading-size: vLLM replaces the connector with the offload's and keeps this config's kv_connector_extra_config, which membudget does not read (vllm/config/vllm.py:959-981)`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model
			if m == "" {
				m = "Qwen__Qwen3-30B-A3B"
			}
			s := Serve{KVTransferConfig: tc.cfg, Offload: KVOffload{SizeGiB: tc.offload}, MaxModelLen: 4096}
			if models[m].DeepSeekV4 != nil {
				s.KVCacheDtype = "fp8" // the only cache vLLM's DeepSeek-V4 layout takes
			}
			r, err := Resolve(s, models[m], bigClass, tc.profile)
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, r.Transfer); diff != "" {
					t.Errorf("resolved connector (-want +got):\n%s", diff)
				}
				if r.KVTransferConfig != tc.cfg {
					t.Errorf("config %q, want it kept as given, %q", r.KVTransferConfig, tc.cfg)
				}
				return
			}
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != "kv-transfer-config" {
				t.Fatalf("error %v, want a refusal of --kv-transfer-config", err)
			}
			if diff := cmp.Diff(tc.err, err.Error()); diff != "" {
				t.Errorf("refusal (-want +got):\n%s", diff)
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
