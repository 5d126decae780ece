package vllm

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
)

// TestEPLBTermsByHand pins what EPLB adds to a GPU, by hand from vLLM's
// shapes (eplb.go's header).
//
// Qwen3-30B-A3B: 128 experts, 48 MoE layers, hidden 2048, expert
// intermediate 768, bf16. An expert of a layer: w13 2 x 768 x 2048 + w2
// 2048 x 768 = 4718592 parameters, 9437184 B. TP 4 with EP: 4 ranks; 32
// redundant experts make 160 physical, 40 a rank instead of 32: 8 more a
// layer, 8 x 48 x 9437184 = 3623878656 B. The expert buffer is one
// layer's 40: 377487360 B. The state, L 48, P 160, E 128, window 1000:
// 48x160x8 + 48x128x1024x8 + 48x128x8 + 48x160x4 + 1000x48x160x4 + 4 =
// 61440 + 50331648 + 49152 + 30720 + 30720000 + 4 = 81192964 B.
//
// DeepSeek-V3: 256 experts, 58 MoE layers (first_k_dense_replace 3 of
// 61), hidden 7168, expert intermediate 2048, fp8 with 128 x 128 block
// scales in float32. An expert of a layer: w13 4096 x 7168 B + 32 x 56
// scales x 4 B, w2 7168 x 2048 B + 56 x 16 x 4 B = 29360128 + 7168 +
// 14680064 + 3584 = 44050944 B. TP 8 with EP and 32 redundant: 288
// physical, 36 a rank instead of 32: 4 x 58 x 44050944 = 10219819008 B;
// the buffer 36 x 44050944 = 1585833984 B; the state, L 58, P 288, E 256:
// 133632 + 121634816 + 118784 + 66816 + 66816000 + 4 = 188770052 B.
func TestEPLBTermsByHand(t *testing.T) {
	models := shipped(t)
	cases := []struct {
		name, model              string
		s                        Serve
		redundant, buffer, state uint64
	}{
		{"Qwen3-30B-A3B, TP 4, 32 redundant", "Qwen__Qwen3-30B-A3B",
			Serve{TensorParallelSize: 4, EnableExpertParallel: true, EPLB: EPLB{Enable: true, Config: `{"num_redundant_experts": 32}`}},
			3623878656, 377487360, 81192964},
		// No redundant experts: the same 32 a rank, the state over P = E.
		// 48x128x8 + 50331648 + 49152 + 48x128x4 + 1000x48x128x4 + 4.
		{"Qwen3-30B-A3B, TP 4, none redundant", "Qwen__Qwen3-30B-A3B",
			Serve{TensorParallelSize: 4, EnableExpertParallel: true, EPLB: EPLB{Enable: true}},
			0, 32 * 9437184, 49152 + 50331648 + 49152 + 24576 + 24576000 + 4},
		// A window of 10 steps: 10 x 48 x 160 x 4 = 307200 B of window.
		{"Qwen3-30B-A3B, window 10", "Qwen__Qwen3-30B-A3B",
			Serve{TensorParallelSize: 4, EnableExpertParallel: true, EPLB: EPLB{Enable: true, Config: `{"num_redundant_experts": 32, "window_size": 10}`}},
			3623878656, 377487360, 61440 + 50331648 + 49152 + 30720 + 307200 + 4},
		{"DeepSeek-V3, TP 8, 32 redundant", "deepseek-ai__DeepSeek-V3",
			Serve{TensorParallelSize: 8, EnableExpertParallel: true, EPLB: EPLB{Enable: true, Config: `{"num_redundant_experts": 32}`}},
			10219819008, 1585833984, 188770052},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := models[tc.model]
			r, err := Resolve(tc.s, a, bigClass, current)
			if err != nil {
				t.Fatal(err)
			}
			st := r.Stages[0]
			red, buf := eplbExperts(a, &r, st, weighWeights(a))
			got := [3]uint64{red, buf, eplbStateBytes(a, &r, st)}
			if diff := cmp.Diff([3]uint64{tc.redundant, tc.buffer, tc.state}, got); diff != "" {
				t.Errorf("[redundant, buffer, state] (-want +got):\n%s", diff)
			}
		})
	}
}

// TestResolveEPLB: vLLM's refusals, each by flag, and the defaults.
func TestResolveEPLB(t *testing.T) {
	models := shipped(t)
	qwen := models["Qwen__Qwen3-30B-A3B"]
	on := func(cfg string) EPLB { return EPLB{Enable: true, Config: cfg} }
	cases := []struct {
		name    string
		model   string
		s       Serve
		profile Profile
		flag    string // the refused flag, "" when it resolves
	}{
		{"sized", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on(`{"num_redundant_experts": 2}`)}, current, ""},
		{"DP alone", "", Serve{DataParallelSize: 2, EnableExpertParallel: true, EPLB: on("")}, current, ""},
		{"0.28.0", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on("")}, mustProfile("0.28.0"), ""},
		{"0.27.0", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on("")}, mustProfile("0.27.0"), "enable-eplb"},
		{"no expert parallel", "", Serve{TensorParallelSize: 2, EPLB: on("")}, current, "enable-eplb"},
		{"one rank", "", Serve{EnableExpertParallel: true, EPLB: on("")}, current, "enable-eplb"},
		// (128 + 3) % 4 != 0: layer.py:255-262.
		{"uneven", "", Serve{TensorParallelSize: 4, EnableExpertParallel: true, EPLB: on(`{"num_redundant_experts": 3}`)}, current, "eplb-config"},
		{"redundant without EPLB", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: EPLB{Config: `{"num_redundant_experts": 2}`}}, current, "eplb-config"},
		{"an unknown key", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on(`{"redundant": 2}`)}, current, "eplb-config"},
		{"window 0", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on(`{"window_size": 0}`)}, current, "eplb-config"},
		// pydantic's validate_json refuses what follows the object but
		// whitespace: a stray brace too, which dec.More let through.
		{"a stray brace after", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on(`{"num_redundant_experts": 2}}`)}, current, "eplb-config"},
		{"a second object after", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on(`{"num_redundant_experts": 2} {}`)}, current, "eplb-config"},
		{"whitespace after", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on("{\"num_redundant_experts\": 2} \n")}, current, ""},
		{"nccl under async", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on(`{"communicator": "torch_nccl"}`)}, current, "eplb-config"},
		{"nccl without async", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on(`{"communicator": "torch_nccl", "use_async": false}`)}, current, ""},
		{"beyond MAX_EXPERT_REDUNDANCY", "", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on(`{"num_redundant_experts": 1024}`)}, current, "eplb-config"},
		{"an architecture not sized", "Qwen__Qwen1.5-MoE-A2.7B", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on("")}, current, "enable-eplb"},
		{"a dense model", "meta-llama__Llama-3.1-8B-Instruct", Serve{TensorParallelSize: 2, EnableExpertParallel: true, EPLB: on("")}, current, "enable-eplb"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := qwen
			if tc.model != "" {
				a = models[tc.model]
			}
			_, err := Resolve(tc.s, a, bigClass, tc.profile)
			var se *engine.SettingError
			switch {
			case tc.flag == "" && err != nil:
				t.Fatal(err)
			case tc.flag != "" && (!errors.As(err, &se) || se.Flag != tc.flag):
				t.Fatalf("error %v, want a refusal of --%s", err, tc.flag)
			}
		})
	}
}

// TestEPLBNeverShrinksFootprint: turning EPLB on, with any number of
// redundant experts vLLM takes, never shrinks a term, the ledger or the
// total; more redundant experts, the rest of the drawn serve kept, never
// shrink a term and grow the weights; and at each step the compiled plan
// stays the reference's.
func TestEPLBNeverShrinksFootprint(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	rapid.Check(t, func(t *rapid.T) {
		c := testClass(rapid.Bool().Draw(t, "unified"))
		tp := rapid.SampledFrom([]uint64{2, 4, 8}).Draw(t, "tp")
		s := Serve{
			TensorParallelSize:   tp,
			PipelineParallelSize: rapid.SampledFrom([]uint64{1, 2}).Draw(t, "pp"),
			EnableExpertParallel: true,
			MaxModelLen:          rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:           rapid.Uint64Range(1, 256).Draw(t, "seqs"),
		}
		plain, err := Compile(a, s, c, current)
		if err != nil {
			t.Skip(err)
		}
		// A multiple of the ranks, as vLLM requires of 128 + N.
		n := tp * rapid.Uint64Range(0, 8).Draw(t, "redundant per rank")
		// "" is the default communicator, which reserves its buffers in
		// the profile run; NIXL does not (eplb.go).
		comm := rapid.SampledFrom([]string{"", "nixl"}).Draw(t, "communicator")
		s.EPLB = EPLB{Enable: true, Config: eplbConfigOf(n, comm)}
		p, e, _, _ := footprintsWith(t, "EPLB", a, s, c, plain)
		if e.Ledger <= p.Ledger {
			t.Fatalf("the ledger does not grow with EPLB: %d -> %d", p.Ledger, e.Ledger)
		}
		if before, after := p.Total()-p.Slack, e.Total()-e.Slack; after < before {
			t.Fatalf("the footprint before slack shrinks with EPLB: %d -> %d", before, after)
		}
		// tp more redundant experts: one more a rank on every MoE layer,
		// the communicator as drawn.
		fewer, err := Compile(a, s, c, current)
		if err != nil {
			t.Fatal(err)
		}
		more := s
		more.EPLB.Config = eplbConfigOf(n+tp, comm)
		f, m, _, _ := footprintsWith(t, "more redundant experts", a, more, c, fewer)
		if m.Terms[budget.TermWeights] <= f.Terms[budget.TermWeights] {
			t.Fatalf("the weights do not grow with %d more redundant experts: %d -> %d", tp, f.Terms[budget.TermWeights], m.Terms[budget.TermWeights])
		}
	})
}

// eplbConfigOf is --eplb-config with n redundant experts and, unless
// comm is "", the communicator comm.
func eplbConfigOf(n uint64, comm string) string {
	if comm == "" {
		return `{"num_redundant_experts": ` + strconv.FormatUint(n, 10) + `}`
	}
	return `{"num_redundant_experts": ` + strconv.FormatUint(n, 10) + `, "communicator": "` + comm + `"}`
}

// TestEPLBCommand: the printed line carries the EPLB flags as given.
func TestEPLBCommand(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	s := Serve{TensorParallelSize: 4, EnableExpertParallel: true, EPLB: EPLB{Enable: true, Config: `{"num_redundant_experts": 32}`}}
	r, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	line := Command("Qwen/Qwen3-30B-A3B", &r)
	if want := ` --enable-expert-parallel`; !strings.Contains(line, want) {
		t.Errorf("line %q: want %q", line, want)
	}
	if want := ` --enable-eplb --eplb-config '{"num_redundant_experts": 32}'`; !strings.Contains(line, want) {
		t.Errorf("line %q: want %q", line, want)
	}
}

// TestBuildServeReadsEPLB: a log's enable_eplb and eplb_config, as a dict
// or as EPLBConfig's repr, fill the serve.
func TestBuildServeReadsEPLB(t *testing.T) {
	for _, cfg := range []string{
		`{'num_redundant_experts': 32}`,
		`EPLBConfig(window_size=1000, step_interval=3000, num_redundant_experts=32, log_balancedness=False)`,
	} {
		log := "INFO non-default args: {'model': 'm', 'enable_expert_parallel': True, 'enable_eplb': True, 'eplb_config': " + cfg + "}\n"
		got, err := buildServe(logSource(t, log).Log, Serve{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseEPLBConfig(got.Serve.EPLB.Config)
		if err != nil {
			t.Fatalf("%s: read back %q: %v", cfg, got.Serve.EPLB.Config, err)
		}
		if !got.Serve.EPLB.Enable || c.NumRedundantExperts == nil || *c.NumRedundantExperts != 32 {
			t.Errorf("%s: EPLB %+v, want enabled with 32 redundant experts", cfg, got.Serve.EPLB)
		}
	}
}

// TestDropUnsizedEPLB: a log's EPLB membudget does not size (an older
// release, an architecture it has not read) is left out with a warning.
func TestDropUnsizedEPLB(t *testing.T) {
	models := shipped(t)
	log := "INFO non-default args: {'model': 'm', 'enable_eplb': True}\n"
	cases := []struct {
		name, model, release string
		keep                 bool
	}{
		{"sized", "Qwen__Qwen3-30B-A3B", "main", true},
		{"an older release", "Qwen__Qwen3-30B-A3B", "0.26.0", false},
		{"another MoE", "Qwen__Qwen1.5-MoE-A2.7B", "main", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ls, err := buildServe(logSource(t, log).Log, Serve{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ls.dropUnsizedEPLB(models[tc.model], mustProfile(tc.release))
			if ls.Serve.EPLB.Enable != tc.keep || (len(ls.Warnings) == 0) == !tc.keep {
				t.Errorf("EPLB kept %v, warnings %q; want kept %v", ls.Serve.EPLB.Enable, ls.Warnings, tc.keep)
			}
		})
	}
}

// TestAll2AllEnv: VLLM_ALL2ALL_BACKEND naming DeepEP is refused in the
// releases that read it, and passes at its defaults or after 0.17.0
// (where vLLM no longer reads it).
func TestAll2AllEnv(t *testing.T) {
	cases := []struct {
		value, release string
		refused        bool
	}{
		{"deepep_high_throughput", "0.14.0", true},
		{"pplx", "0.10.0", true},
		{"naive", "0.10.0", false},
		{"allgather_reducescatter", "0.14.0", false},
		{"deepep_low_latency", "0.17.0", false},
		{"deepep_low_latency", "main", false},
	}
	for _, tc := range cases {
		err := all2allEnv("VLLM_ALL2ALL_BACKEND", tc.value, "VLLM_ALL2ALL_BACKEND="+tc.value, mustProfile(tc.release))
		if (err != nil) != tc.refused {
			t.Errorf("%s on %s: error %v, want refused %v", tc.value, tc.release, err, tc.refused)
		}
	}
}

// TestOffloadEPLBFlagRows: the rows moved from refused to modelled pass
// Judge in the releases that have them (the sizing then refuses, by name,
// a release before 0.28.0), are "not a flag" before, and a dotted key of
// --eplb-config is refused naming the flag.
func TestOffloadEPLBFlagRows(t *testing.T) {
	cases := []struct {
		args []string
		want string // a prefix of the error, "" for none
	}{
		{[]string{"--kv-offloading-size", "8"}, ""},
		{[]string{"--vllm-version", "0.26.0", "--kv-offloading-size", "8"}, ""},
		{[]string{"--vllm-version", "0.10.2", "--kv-offloading-size", "8"}, "--kv-offloading-size is not a flag of vLLM 0.10.2 (vLLM 0.11.0 added it"},
		{[]string{"--kv-offloading-backend", "native"}, ""},
		{[]string{"--enable-eplb"}, ""},
		{[]string{"--no-enable-eplb"}, ""},
		{[]string{"--eplb-config", `{"num_redundant_experts": 32}`}, ""},
		{[]string{"--vllm-version", "0.9.2", "--enable-eplb"}, "--enable-eplb is not a flag of vLLM 0.9.2 (vLLM 0.10.0 added it"},
		{[]string{"--eplb-config.num_redundant_experts", "32"}, "--eplb-config.num_redundant_experts: membudget reads --eplb-config as one JSON object"},
	}
	for _, tc := range cases {
		f := &flagServe{}
		i := len(tc.args) - 1
		if !strings.HasPrefix(tc.args[i], "--") {
			i--
		}
		err := f.Judge(tc.args, i)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("Judge(%q): %v, want none", tc.args, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("Judge(%q): %v, want %q...", tc.args, err, tc.want)
		}
	}
}
