package vllm

import (
	"errors"
	"flag"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"membudget/engine"
)

func offGiB(v float64) *float64 { return &v }

// TestResolveOffload pins the pinned host memory of one GPU's worker
// under --kv-offloading-size, by hand: cpu_bytes_to_use = size x 2^30 for
// the whole engine (vllm/config/vllm.py:963-971), split among its TP x PP
// workers, each populating its own slot of the shared region
// (shared_offload_region.py:140-160); and the refusals, by flag.
func TestResolveOffload(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	cases := []struct {
		name    string
		s       Serve
		profile Profile
		want    uint64
		err     string // the refused flag, "" when sized
	}{
		// 16 GiB over TP 2: 8 GiB = 8589934592 B a worker.
		{"16 GiB, TP 2", Serve{TensorParallelSize: 2, Offload: KVOffload{SizeGiB: offGiB(16)}}, current, 8 << 30, ""},
		// 10 GiB over TP 4 x PP 2 = 8 workers: 10737418240 / 8 = 1342177280.
		{"10 GiB, TP 4 x PP 2", Serve{TensorParallelSize: 4, PipelineParallelSize: 2, Offload: KVOffload{SizeGiB: offGiB(10)}}, current, 1342177280, ""},
		// 1.5 GiB on one GPU: 1.5 x 1073741824 = 1610612736.
		{"1.5 GiB, TP 1", Serve{Offload: KVOffload{SizeGiB: offGiB(1.5)}}, current, 1610612736, ""},
		// Data parallel engines each have their own region: DP does not
		// divide it.
		{"8 GiB, DP 2", Serve{DataParallelSize: 2, Offload: KVOffload{SizeGiB: offGiB(8)}}, current, 8 << 30, ""},
		{"0.28.0, native named", Serve{Offload: KVOffload{SizeGiB: offGiB(4), Backend: "native"}}, mustProfile("0.28.0"), 4 << 30, ""},
		// The backend alone activates nothing (vllm/config/cache.py:195-198).
		{"lmcache without a size", Serve{Offload: KVOffload{Backend: "lmcache"}}, current, 0, ""},
		{"no offload", Serve{}, current, 0, ""},
		{"before the shared region", Serve{Offload: KVOffload{SizeGiB: offGiB(4)}}, mustProfile("0.27.0"), 0, "kv-offloading-size"},
		{"lmcache", Serve{Offload: KVOffload{SizeGiB: offGiB(4), Backend: "lmcache"}}, current, 0, "kv-offloading-backend"},
		{"not a backend", Serve{Offload: KVOffload{SizeGiB: offGiB(4), Backend: "mooncake"}}, current, 0, "kv-offloading-backend"},
		{"size 0", Serve{Offload: KVOffload{SizeGiB: offGiB(0)}}, current, 0, "kv-offloading-size"},
		{"negative", Serve{Offload: KVOffload{SizeGiB: offGiB(-1)}}, current, 0, "kv-offloading-size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Resolve(tc.s, a, bigClass, tc.profile)
			var se *engine.SettingError
			switch {
			case tc.err != "":
				if !errors.As(err, &se) || se.Flag != tc.err {
					t.Fatalf("error %v, want a refusal of --%s", err, tc.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if r.OffloadHostBytes != tc.want {
				t.Errorf("host bytes a GPU %d, want %d", r.OffloadHostBytes, tc.want)
			}
		})
	}
}

// TestOffloadHostOnUnified: on a unified class the offload buffer is in
// the footprint's host memory, beside the util budget, so the total grows
// by exactly its bytes and the ledger does not move; on a discrete class
// it is host memory the footprint leaves out.
func TestOffloadHostOnUnified(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	plain := Serve{MaxModelLen: 8192, MaxNumSeqs: 64}
	off := plain
	off.Offload = KVOffload{SizeGiB: offGiB(6)}
	for _, unified := range []bool{false, true} {
		c := testClass(unified)
		p, err := Compile(a, plain, c, current)
		if err != nil {
			t.Fatal(err)
		}
		o, err := Compile(a, off, c, current)
		if err != nil {
			t.Fatal(err)
		}
		fp, fo := p.Evaluate(64, 8192), o.Evaluate(64, 8192)
		var want uint64
		if unified {
			want = 6 << 30
		}
		if got := fo.Host - fp.Host; got != want {
			t.Errorf("unified %v: host grows by %d, want %d", unified, got, want)
		}
		if fo.Ledger != fp.Ledger {
			t.Errorf("unified %v: the ledger moves with host memory: %d -> %d", unified, fp.Ledger, fo.Ledger)
		}
		if got := fo.Total() - fp.Total(); got != want {
			t.Errorf("unified %v: total grows by %d, want %d", unified, got, want)
		}
	}
}

// TestOffloadNeverShrinksFootprint: turning KV offloading on never
// shrinks a term, the ledger or the total, on either kind of class; and
// the compiled plan stays the reference's.
func TestOffloadNeverShrinksFootprint(t *testing.T) {
	models := shipped(t)
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B", "Qwen__Qwen3-30B-A3B"}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		c := testClass(rapid.Bool().Draw(t, "unified"))
		s := Serve{
			TensorParallelSize:   rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			PipelineParallelSize: rapid.SampledFrom([]uint64{1, 2}).Draw(t, "pp"),
			MaxModelLen:          rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 256).Draw(t, "seqs"),
		}
		plain, err := Compile(a, s, c, current)
		if err != nil {
			t.Skip(err)
		}
		s.Offload = KVOffload{SizeGiB: offGiB(rapid.Float64Range(0.5, 64).Draw(t, "gib"))}
		p, o, _, _ := footprintsWith(t, "offload", a, s, c, plain)
		if o.Ledger < p.Ledger || o.Total() < p.Total() {
			t.Fatalf("the footprint shrinks with offload: ledger %d -> %d, total %d -> %d", p.Ledger, o.Ledger, p.Total(), o.Total())
		}
	})
}

// TestOffloadCommand: the printed line carries the offload as given, and
// reads back to the same host memory.
func TestOffloadCommand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	r, err := Resolve(Serve{TensorParallelSize: 2, Offload: KVOffload{SizeGiB: offGiB(12.5)}}, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	line := Command("meta-llama/Llama-3.1-8B-Instruct", &r)
	if !strings.Contains(line, " --kv-offloading-size 12.5") || strings.Contains(line, "--kv-offloading-backend") {
		t.Errorf("line %q: want --kv-offloading-size 12.5 and the default backend left out", line)
	}
	var o KVOffload
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	registerOffload(fs, &o)
	if err := fs.Parse([]string{"--kv-offloading-size", "12.5"}); err != nil {
		t.Fatal(err)
	}
	back, err := Resolve(Serve{TensorParallelSize: 2, Offload: o}, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	// 12.5 GiB over 2 workers: 13421772800 / 2 = 6710886400.
	if back.OffloadHostBytes != r.OffloadHostBytes || r.OffloadHostBytes != 6710886400 {
		t.Errorf("read back %d B a GPU, sized %d, want 6710886400", back.OffloadHostBytes, r.OffloadHostBytes)
	}
}

// TestBuildServeReadsOffload: a log's kv_offloading_size fills the serve,
// and the OffloadingConnector it sets is no longer a warning of a
// connector left out.
func TestBuildServeReadsOffload(t *testing.T) {
	log := "INFO non-default args: {'model': 'm', 'kv_offloading_size': 24.0, 'kv_offloading_backend': 'native', 'kv_transfer_config': KVTransferConfig(kv_connector='OffloadingConnector', kv_role='kv_both')}\n"
	got, err := buildServe(logSource(t, log).Log, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Serve.Offload.SizeGiB == nil || *got.Serve.Offload.SizeGiB != 24 || got.Serve.Offload.Backend != "native" {
		t.Errorf("offload %+v, want 24 GiB native", got.Serve.Offload)
	}
	if len(got.Warnings) != 0 {
		t.Errorf("warnings %q, want none", got.Warnings)
	}
}

// TestSimpleOffloadEnv: VLLM_USE_SIMPLE_KV_OFFLOAD on is refused with a
// native offload (another connector), and passes without one or at 0.
func TestSimpleOffloadEnv(t *testing.T) {
	native := KVOffload{SizeGiB: offGiB(8)}
	cases := []struct {
		name, value string
		o           KVOffload
		refused     bool
	}{
		{"on, native", "1", native, true},
		{"on, native named", " 1 ", KVOffload{SizeGiB: offGiB(8), Backend: "native"}, true},
		// vLLM's int() takes underscores between digits and any length:
		// int("1_0") is 10 and int("1" + 20 zeros) is 10^20, both on.
		{"on, underscored", "1_0", native, true},
		{"on, past int64", "100000000000000000000", native, true},
		{"off", "0", native, false},
		{"off, signed", "-0", native, false},
		{"on, no offload", "1", KVOffload{}, false},
		{"on, lmcache", "1", KVOffload{SizeGiB: offGiB(8), Backend: "lmcache"}, false},
	}
	for _, tc := range cases {
		err := simpleOffloadEnv("VLLM_USE_SIMPLE_KV_OFFLOAD", tc.value, "VLLM_USE_SIMPLE_KV_OFFLOAD="+tc.value, tc.o, current)
		if (err != nil) != tc.refused {
			t.Errorf("%s: error %v, want refused %v", tc.name, err, tc.refused)
		}
	}
	if err := simpleOffloadEnv("VLLM_OTHER", "1", "VLLM_OTHER=1", native, current); err != nil {
		t.Errorf("another variable: %v", err)
	}
}

// TestTransferConnectorRefusal: --kv-transfer-config is refused naming its
// connector and what that connector holds; an OffloadingConnector's
// refusal gives the --kv-offloading-size that sizes it (20 GiB =
// 21474836480 B).
func TestTransferConnectorRefusal(t *testing.T) {
	cases := []struct {
		value, connector, says string
	}{
		{`{"kv_connector":"OffloadingConnector","kv_role":"kv_both","kv_connector_extra_config":{"cpu_bytes_to_use": 21474836480}}`, "OffloadingConnector", "--kv-offloading-size 20 instead"},
		{`{"kv_connector":"OffloadingConnector"}`, "OffloadingConnector", "--kv-offloading-size GiB instead"},
		{`{"kv_connector":"NixlConnector","kv_role":"kv_both"}`, "NixlConnector", "kv_buffer_device"},
		{`{"kv_connector":"NixlPushConnector"}`, "NixlPushConnector", "UCX"},
		{`{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}`, "LMCacheConnectorV1", "max_local_cpu_size"},
		{`{"kv_connector":"SomeOtherConnector"}`, "SomeOtherConnector", whatTransfer},
		{`{"kv_role":"kv_both"}`, "", ""},
		{`not json`, "", ""},
	}
	for _, tc := range cases {
		c, what := transferConnector(tc.value)
		if c != tc.connector || !strings.Contains(what, tc.says) {
			t.Errorf("%s: connector %q, %q; want %q saying %q", tc.value, c, what, tc.connector, tc.says)
		}
	}
	// The flag is read since kvtransfer.go: Judge passes it, and
	// resolveKVTransfer refuses the connectors it does not size, with the
	// texts above (TestResolveKVTransfer).
	f := &flagServe{}
	args := []string{"--kv-transfer-config", `{"kv_connector":"NixlConnector"}`}
	if err := f.Judge(args, 0); err != nil {
		t.Errorf("Judge: %v, want the flag read", err)
	}
}
