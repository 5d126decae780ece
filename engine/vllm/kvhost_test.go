package vllm

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// nixlCPU is a NIXL --kv-transfer-config with the host transfer buffer.
const nixlCPU = `{"kv_connector":"NixlConnector","kv_role":"kv_both","kv_buffer_device":"cpu"}`

// TestKVHostBytesByHand pins the host transfer buffer of Llama-3.1-8B
// (32 layers, 8 KV heads of 128, bf16, blocks of 16 tokens) at 1000 blocks
// (--num-gpu-blocks-override): a layer's page is K and V, 2 x 16 x 8 x
// 128 x 2 B = 65536 B, a block 32 x 65536 = 2097152 B, so the host copy of
// the pool is 1000 x 2097152 = 2097152000 B. Under TP 2 each rank holds
// 4 KV heads: 32768 B a layer, 1048576 B a block, 1048576000 B. Under PP 2
// each stage holds 16 layers of 65536 B: 1048576 B a block, 1048576000 B
// on either stage. On a unified device the footprint's host term grows by
// exactly that; on a discrete one it stays 0 and the report carries it.
func TestKVHostBytesByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	cases := []struct {
		name   string
		tp, pp uint64
		want   uint64
	}{
		{"TP 1", 1, 1, 2097152000},
		{"TP 2", 2, 1, 1048576000},
		{"PP 2", 1, 2, 1048576000},
	}
	for _, tc := range cases {
		for _, unified := range []bool{false, true} {
			c := testClass(unified)
			s := Serve{TensorParallelSize: tc.tp, PipelineParallelSize: tc.pp, MaxModelLen: 4096, MaxNumSeqs: 16, NumGPUBlocksOverride: 1000}
			plain, err := Compile(a, s, c, current)
			if err != nil {
				t.Fatal(err)
			}
			s.KVTransferConfig = nixlCPU
			with, err := Compile(a, s, c, current)
			if err != nil {
				t.Fatal(err)
			}
			wantHost := uint64(0)
			if unified {
				wantHost = tc.want
			}
			if got := with.Host - plain.Host; got != wantHost {
				t.Errorf("%s, unified %v: host term grows by %d B, want %d", tc.name, unified, got, wantHost)
			}
			sz, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, c, s, current)
			if err != nil {
				t.Fatal(err)
			}
			want := &kvTransferJSON{Connector: "NixlConnector", BufferDevice: "cpu", HostBytes: tc.want}
			if diff := cmp.Diff(want, sz.kvTransferJSON()); diff != "" {
				t.Errorf("%s, unified %v: report's kv_transfer (-want +got):\n%s", tc.name, unified, diff)
			}
		}
	}
}

// TestKVHostNeverShrinksFootprint: the host transfer buffer leaves every
// ledger term as it is, grows a unified device's host term by the KV pool
// (the blocks the budget leaves, in whole blocks) and a discrete one's by
// nothing, never shrinks the footprint, and the compiler agrees with the
// reference.
func TestKVHostNeverShrinksFootprint(t *testing.T) {
	models := shipped(t)
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom([]string{"Qwen__Qwen3-30B-A3B", "meta-llama__Llama-3.1-8B-Instruct"}).Draw(t, "model")]
		unified := rapid.Bool().Draw(t, "unified")
		c := testClass(unified)
		s := Serve{
			TensorParallelSize:   rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			GPUMemoryUtilization: rapid.SampledFrom([]float64{0, 0.3, 0.5, 0.9}).Draw(t, "util"),
			MaxModelLen:          rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 256).Draw(t, "seqs"),
		}
		plain, err := Compile(a, s, c, current)
		if err != nil {
			t.Skip(err)
		}
		s.KVTransferConfig = nixlCPU
		p, n, _, _ := footprintsWith(t, "NIXL's host buffer", a, s, c, plain)
		if diff := cmp.Diff(p.Terms, n.Terms); diff != "" {
			t.Fatalf("the host buffer changes the ledger (-without +with):\n%s", diff)
		}
		// With one stage the pool is floor(what the budget leaves / a
		// block) blocks, each a block's bytes.
		block := plain.Stages[0].Pool.BlockBytes()
		want := uint64(0)
		if unified {
			want = plain.PoolBudget(0) / block * block
		}
		if got := n.Host - p.Host; got != want {
			t.Fatalf("host term grows by %d B, want the KV pool's %d", got, want)
		}
		if n.Total() < p.Total() {
			t.Fatalf("the footprint shrinks with the host buffer: %d -> %d", p.Total(), n.Total())
		}
	})
}

// TestKVHostReport: the printed line carries the config as given, the
// settings name the KV transfer host buffer with its bytes, and the
// serve's JSON carries it under "kv_transfer".
func TestKVHostReport(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 4096, NumGPUBlocksOverride: 1000, KVTransferConfig: nixlCPU}
	sz, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, testClass(false), s, current)
	if err != nil {
		t.Fatal(err)
	}
	if line, want := sz.Command(), ` --kv-transfer-config '`+nixlCPU+`'`; !strings.Contains(line, want) {
		t.Errorf("line %q: want %q", line, want)
	}
	// 2097152000 B (TestKVHostBytesByHand) is 1.95 GiB.
	want := []string{"KV transfer: NixlConnector with kv_buffer_device cpu keeps a host copy of the KV cache: KV transfer host buffer of 1.95 GiB per GPU (1000 blocks of every layer's KV tensor, allocated after the KV cache; host memory, not the GPU's); NIXL's agent and UCX's own buffers are the nixl package's, not sized"}
	if diff := cmp.Diff(want, sz.kvTransferSettings()); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	b, err := json.Marshal(sz.Section().Serve())
	if err != nil {
		t.Fatal(err)
	}
	if w := `"kv_transfer":{"kv_connector":"NixlConnector","kv_buffer_device":"cpu","host_bytes":2097152000}`; !strings.Contains(string(b), w) {
		t.Errorf("serve JSON %s: want %s", b, w)
	}
}

// TestPlanKeepsKVHost: plan keeps a NIXL host buffer on every deployment
// of a discrete class, each command carrying it, with the deployments and
// figures of the plan without it (the copy is host memory there).
func TestPlanKeepsKVHost(t *testing.T) {
	e := searchOn(t, "Qwen__Qwen3-0.6B", "l4")
	need := Need{Length: 4096, Concurrency: 8}
	sp := Space{Plan: engine.PlanSpace{Classes: []budget.Class{e.Class}}, Profile: e.Profile}
	plain, err := Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, sp, nil)
	if err != nil || len(plain) == 0 {
		t.Fatalf("plan without a connector: %d rows, %v", len(plain), err)
	}
	sp.KVTransferConfig = nixlCPU
	rows, err := Deployments(e.Arch, "Qwen/Qwen3-0.6B", need, sp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(plain) {
		t.Fatalf("%d deployments with the host buffer, %d without", len(rows), len(plain))
	}
	for i, d := range rows {
		if !strings.Contains(d.Command, ` --kv-transfer-config '`+nixlCPU+`'`) {
			t.Errorf("row %d: command %q lacks the connector", i, d.Command)
		}
		if d.KVCacheBytes != plain[i].KVCacheBytes || d.MostSeqs != plain[i].MostSeqs || d.At.Host != plain[i].At.Host {
			t.Errorf("row %d: KV %d B, %v seqs, host %d B with the host buffer; %d B, %v, %d B without", i, d.KVCacheBytes, d.MostSeqs, d.At.Host, plain[i].KVCacheBytes, plain[i].MostSeqs, plain[i].At.Host)
		}
	}
}
