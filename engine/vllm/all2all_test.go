package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// deepepHTGPU is DeepEP's high-throughput buffers on one GPU within a
// node, by hand (all2all.go's header): the NVLink buffer of 1024 MiB =
// 1073741824 B plus 8 x 4 + 8 x 8 + 8 x 8 = 160 B of signals and
// pointer tables is 1073741984 B, 512 pages of 2 MiB and 160 B over, so
// 513 pages = 513 x 2097152 = 1075838976 B; with the 32 MiB workspace,
// 33554432 B: 1109393408 B.
const deepepHTGPU = 1109393408

// TestDeepEPHTBytesByHand pins the buffers' arithmetic.
func TestDeepEPHTBytesByHand(t *testing.T) {
	cases := []struct {
		mib, want uint64
	}{
		{1024, deepepHTGPU},
		// 2 MiB: 2097152 + 160 B takes 2 pages, 4194304 B, + 33554432.
		{2, 4194304 + 33554432},
	}
	for _, tc := range cases {
		if got := deepepHTBytes(tc.mib); got != tc.want {
			t.Errorf("deepepHTBytes(%d) = %d, want %d", tc.mib, got, tc.want)
		}
	}
}

// TestResolveAll2All: which serves hold DeepEP's buffers, which are
// refused by --all2all-backend, and the neutral backends.
func TestResolveAll2All(t *testing.T) {
	models := shipped(t)
	ep := func(tp, dp uint64, b string) Serve {
		return Serve{TensorParallelSize: tp, DataParallelSize: dp, EnableExpertParallel: true, All2AllBackend: b}
	}
	cases := []struct {
		name    string
		model   string
		s       Serve
		profile Profile
		bytes   uint64
		refused bool // refused naming all2all-backend
	}{
		{"DeepEP HT, TP 1 x DP 2", "", ep(1, 2, "deepep_high_throughput"), current, deepepHTGPU, false},
		// EP over TP 4 x DP 2 = 8 GPUs: DeepEP's limit of one node.
		{"DeepEP HT, TP 4 x DP 2", "", ep(4, 2, "deepep_high_throughput"), current, deepepHTGPU, false},
		{"DeepEP HT on 0.28.0", "", ep(1, 2, "deepep_high_throughput"), mustProfile("0.28.0"), deepepHTGPU, false},
		// 16 GPUs span nodes: the RDMA buffer in NVSHMEM's heap.
		{"DeepEP HT, TP 8 x DP 2", "", ep(8, 2, "deepep_high_throughput"), current, 0, true},
		// One DP rank: no all-to-all manager (use_all2all).
		{"DeepEP HT, DP 1", "", ep(2, 1, "deepep_high_throughput"), current, 0, false},
		// No expert parallelism: the naive DP path, no buffer.
		{"DeepEP HT without EP", "", Serve{DataParallelSize: 2, All2AllBackend: "deepep_high_throughput"}, current, 0, false},
		{"DeepEP HT, a dense model", "meta-llama__Llama-3.1-8B-Instruct", ep(1, 2, "deepep_high_throughput"), current, 0, false},
		// deepep_low_latency at vLLM's default 256 tokens a rank
		// (deepep_ll_test.go).
		{"DeepEP LL", "", ep(1, 2, "deepep_low_latency"), current, deepepLLQwen3GPU, false},
		{"DeepEP LL across nodes", "", ep(8, 2, "deepep_low_latency"), current, 0, true},
		{"DeepEP LL, DP 1", "", ep(2, 1, "deepep_low_latency"), current, 0, false},
		{"MoRI", "", ep(1, 2, "mori_high_throughput"), current, 0, true},
		{"FlashInfer", "", ep(1, 2, "flashinfer_nvlink_one_sided"), current, 0, true},
		// Removed backends fall back to allgather_reducescatter.
		{"pplx on main", "", ep(1, 2, "pplx"), current, 0, false},
		{"naive on main", "", ep(1, 2, "naive"), current, 0, false},
		{"allgather_reducescatter", "", ep(1, 2, "allgather_reducescatter"), current, 0, false},
		{"allgather_reducescatter on 0.20.0", "", ep(1, 2, "allgather_reducescatter"), mustProfile("0.20.0"), 0, false},
		{"DeepEP HT on 0.27.0", "", ep(1, 2, "deepep_high_throughput"), mustProfile("0.27.0"), 0, true},
		{"pplx on 0.27.0", "", ep(1, 2, "pplx"), mustProfile("0.27.0"), 0, true},
		{"not a backend", "", ep(1, 2, "nccl"), current, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model
			if m == "" {
				m = "Qwen__Qwen3-30B-A3B"
			}
			r, err := Resolve(tc.s, models[m], bigClass, tc.profile)
			if tc.refused {
				var se *engine.SettingError
				if !errors.As(err, &se) || se.Flag != "all2all-backend" {
					t.Fatalf("error %v, want a refusal of --all2all-backend", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.All2AllBytes != tc.bytes {
				t.Errorf("All2AllBytes %d, want %d", r.All2AllBytes, tc.bytes)
			}
		})
	}
}

// TestAll2AllNeverShrinksFootprint: DeepEP's buffers add exactly their
// bytes to the non-torch term of every GPU and shrink no term, and the
// compiler agrees with the reference. The serve without them captures no
// CUDA graph either: vLLM turns the graphs off for deepep_high_throughput
// at DP > 1 (TestDeepEPHTGraphsOff), which this compares like for like.
func TestAll2AllNeverShrinksFootprint(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	rapid.Check(t, func(t *rapid.T) {
		c := testClass(rapid.Bool().Draw(t, "unified"))
		tp := rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp")
		s := Serve{
			TensorParallelSize:   tp,
			DataParallelSize:     rapid.SampledFrom([]uint64{2, 8 / tp}).Draw(t, "dp"),
			EnableExpertParallel: true,
			MaxModelLen:          rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 256).Draw(t, "seqs"),
			Compilation:          Compilation{GraphMode: graphsNone},
		}
		plain, err := Compile(a, s, c, current)
		if err != nil {
			t.Skip(err)
		}
		s.All2AllBackend = "deepep_high_throughput"
		p, e, _, _ := footprintsWith(t, "DeepEP", a, s, c, plain)
		if got := e.Terms[budget.TermNonTorch] - p.Terms[budget.TermNonTorch]; got != deepepHTGPU {
			t.Fatalf("DeepEP adds %d B of non-torch memory, want %d", got, deepepHTGPU)
		}
		if before, after := p.Total()-p.Slack, e.Total()-e.Slack; after < before {
			t.Fatalf("the footprint before slack shrinks with DeepEP: %d -> %d", before, after)
		}
	})
}

// TestAll2AllCommand: the printed line carries --all2all-backend as given,
// and the report names the buffers.
func TestAll2AllCommand(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	s := Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: "deepep_high_throughput"}
	r, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	if line, want := Command("Qwen/Qwen3-30B-A3B", &r), " --all2all-backend deepep_high_throughput"; !strings.Contains(line, want) {
		t.Errorf("line %q: want %q", line, want)
	}
	sz := &Sizing{Serve: &r}
	got := sz.a2aSettings()
	// The buffers' line, then the graphs turned off at DP 2
	// (TestDeepEPHTGraphsOff).
	if len(got) != 2 || !strings.Contains(got[0], "DeepEP high-throughput buffers of 1.03 GiB") || !strings.HasPrefix(got[1], "CUDA graphs: none: ") {
		t.Errorf("settings %q: want DeepEP's buffers of 1.03 GiB (1109393408 B), then the graphs turned off", got)
	}
}

// TestA2AEnv: VLLM_DEEPEP_BUFFER_SIZE_MB other than 1024 is refused, in
// exactly these words, where membudget sizes DeepEP's buffers (either
// mode), and passes elsewhere.
func TestA2AEnv(t *testing.T) {
	refusal := func(value string) string {
		return "VLLM_DEEPEP_BUFFER_SIZE_MB=" + value + " in the launch line: DeepEP's NVLink buffer of that many MiB a GPU (vllm/distributed/device_communicators/all2all.py:220): not modelled for " + current.Describes + ", which sizes its default of 1024 MiB; membudget refuses it rather than size a serve vLLM would contradict"
	}
	cases := []struct {
		value, backend, release string
		want                    string // the refusal, "" when it passes
	}{
		{"2048", "deepep_high_throughput", "main", refusal("2048")},
		{"2048", "deepep_low_latency", "main", refusal("2048")},
		{"1024", "deepep_high_throughput", "main", ""},
		{" 1024", "deepep_low_latency", "main", ""},
		// Not a number: vLLM's int() stops; membudget refuses it first.
		{"x", "deepep_high_throughput", "main", refusal("x")},
		{"2048", "", "main", ""},
		{"2048", "mori_low_latency", "main", ""},         // the flag refuses MoRI
		{"2048", "deepep_high_throughput", "0.27.0", ""}, // the flag refuses it there
	}
	for _, tc := range cases {
		err := a2aEnv("VLLM_DEEPEP_BUFFER_SIZE_MB", tc.value, "VLLM_DEEPEP_BUFFER_SIZE_MB="+tc.value, tc.backend, mustProfile(tc.release))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q with %q on %s (-want +got):\n%s", tc.value, tc.backend, tc.release, diff)
		}
	}
}

// TestAll2AllLedgerLine: the report's footprint names the buffers on a
// line of their own under the non-torch growth, whose line then holds the
// rest: the lines sum to the ledger as without the split, and the
// non-torch line is what it is without DeepEP.
func TestAll2AllLedgerLine(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	s := Serve{DataParallelSize: 2, EnableExpertParallel: true, MaxModelLen: 4096}
	lines := func(s Serve) ([]engine.FootprintLine, budget.Footprint) {
		sz, err := Size(&hub.Loaded{Name: "Qwen/Qwen3-30B-A3B", Arch: a}, bigClass, s, current)
		if err != nil {
			t.Fatal(err)
		}
		fp := sz.Plan().Evaluate(1, 4096)
		return sz.Section().Lines(fp), fp
	}
	plain, _ := lines(s)
	s.All2AllBackend = "deepep_high_throughput"
	got, fp := lines(s)
	byLabel := func(ls []engine.FootprintLine) map[string]uint64 {
		m := map[string]uint64{}
		for _, l := range ls {
			m[l.Label] = l.Bytes
		}
		return m
	}
	p, g := byLabel(plain), byLabel(got)
	if g["all-to-all buffers"] != deepepHTGPU {
		t.Errorf("all-to-all buffers %d B, want %d", g["all-to-all buffers"], deepepHTGPU)
	}
	if g["non-torch growth"] != p["non-torch growth"] {
		t.Errorf("non-torch growth %d B with DeepEP, %d without: want the same", g["non-torch growth"], p["non-torch growth"])
	}
	var sum uint64
	for _, l := range got {
		if !l.Beside {
			sum += l.Bytes
		}
	}
	if sum != fp.Ledger {
		t.Errorf("the lines sum to %d B, the ledger is %d", sum, fp.Ledger)
	}
}

// TestExplainReadsAll2All: a log's all2all_backend fills the serve where
// membudget sizes it, and is left out with a warning elsewhere.
func TestExplainReadsAll2All(t *testing.T) {
	models := shipped(t)
	cases := []struct {
		name, backend, args, release string
		keep                         bool
	}{
		{"DeepEP HT sized", "deepep_high_throughput", "'data_parallel_size': 2, 'enable_expert_parallel': True", "main", true},
		{"DeepEP HT on 0.27.0", "deepep_high_throughput", "'data_parallel_size': 2, 'enable_expert_parallel': True", "0.27.0", false},
		{"DeepEP LL", "deepep_low_latency", "'data_parallel_size': 2, 'enable_expert_parallel': True", "main", true},
		{"DeepEP LL across nodes", "deepep_low_latency", "'tensor_parallel_size': 8, 'data_parallel_size': 2, 'enable_expert_parallel': True", "main", false},
		{"MoRI", "mori_low_latency", "'data_parallel_size': 2, 'enable_expert_parallel': True", "main", false},
		{"across nodes", "deepep_high_throughput", "'tensor_parallel_size': 8, 'data_parallel_size': 2, 'enable_expert_parallel': True", "main", false},
		// No buffer without EP: nothing to leave out.
		{"DeepEP LL without EP", "deepep_low_latency", "'data_parallel_size': 2", "main", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			log := "INFO non-default args: {'model': 'm', " + tc.args + ", 'all2all_backend': '" + tc.backend + "'}\n"
			ls, err := buildServe(logSource(t, log).Log, Serve{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ls.Serve.All2AllBackend != tc.backend {
				t.Fatalf("read %q, want %q", ls.Serve.All2AllBackend, tc.backend)
			}
			ls.dropUnsizedA2A(models["Qwen__Qwen3-30B-A3B"], bigClass, mustProfile(tc.release))
			if kept := ls.Serve.All2AllBackend != ""; kept != tc.keep || (len(ls.Warnings) == 0) != tc.keep {
				t.Errorf("kept %v, warnings %q; want kept %v", kept, ls.Warnings, tc.keep)
			}
		})
	}
}
