package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
)

// TestChunkedPrefillBatch pins the batched tokens each release resolves
// with chunked prefill given on, off or left to vLLM (chunked.go), on
// Llama-3.1-8B on an 80 GiB Hopper class that is no A100: V1's default
// there is 8192 batched tokens and 1024 sequences (get_batch_defaults),
// V0's 256 sequences.
func TestChunkedPrefillBatch(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	c := testClass(false)
	type got struct {
		Batched, Seqs uint64
		Off           bool
	}
	tests := []struct {
		name    string
		version string
		serve   Serve
		want    got
		errFlag string // the flag a refusal names, "" for none
		errHas  string
	}{
		// Main keeps --no-enable-chunked-prefill (PR #28665): the default
		// 8192 is raised to max_model_len 32768 (arg_utils.py:2804-2809).
		{"main, off", "main", Serve{MaxModelLen: 32768, ChunkedPrefill: engine.Off}, got{32768, 1024, true}, "", ""},
		{"main, default", "main", Serve{MaxModelLen: 32768}, got{8192, 1024, false}, "", ""},
		{"main, on", "main", Serve{MaxModelLen: 32768, ChunkedPrefill: engine.On}, got{8192, 1024, false}, "", ""},
		// max(4096, 8192): the device's default already holds a prompt.
		{"main, off, a short length", "main", Serve{MaxModelLen: 4096, ChunkedPrefill: engine.Off}, got{8192, 1024, true}, "", ""},
		// Given tokens are kept at or above max_model_len.
		{"main, off, tokens given to the length", "main", Serve{MaxModelLen: 32768, MaxNumBatchedTokens: 32768, ChunkedPrefill: engine.Off}, got{32768, 1024, true}, "", ""},
		{"main, off, tokens given above the length", "main", Serve{MaxModelLen: 32768, MaxNumBatchedTokens: 65536, ChunkedPrefill: engine.Off}, got{65536, 1024, true}, "", ""},
		// ... and refused below it (scheduler.py:249-261).
		{"main, off, tokens given below the length", "main", Serve{MaxModelLen: 32768, MaxNumBatchedTokens: 8192, ChunkedPrefill: engine.Off}, got{}, "max-num-batched-tokens", "vLLM refuses it: smaller than max_model_len 32768 under --no-enable-chunked-prefill"},
		// Below the length but chunked: accepted as before.
		{"main, on, tokens below the length", "main", Serve{MaxModelLen: 32768, MaxNumBatchedTokens: 8192}, got{8192, 1024, false}, "", ""},
		// A defaulted max_num_seqs is set after the raise: 1024 stays
		// below 32768 and is not lowered.
		{"main, off, sequences given", "main", Serve{MaxModelLen: 32768, MaxNumSeqs: 8, ChunkedPrefill: engine.Off}, got{32768, 8, true}, "", ""},
		// PR #28665 also caps a defaulted batch at max_num_seqs x
		// max_model_len (arg_utils.py:2828-2834): 4 x 1024 = 4096 < 8192;
		// 0.13.0 is before it surely holds the PR and keeps 8192.
		{"main, a batch capped by the sequences", "main", Serve{MaxModelLen: 1024, MaxNumSeqs: 4}, got{4096, 4, false}, "", ""},
		{"0.13.0, not capped", "0.13.0", Serve{MaxModelLen: 1024, MaxNumSeqs: 4}, got{8192, 4, false}, "", ""},
		// Off and capped: max(32768, 8192), then min(1 x 32768, 32768).
		{"main, off, one sequence", "main", Serve{MaxModelLen: 32768, MaxNumSeqs: 1, ChunkedPrefill: engine.Off}, got{32768, 1, true}, "", ""},
		{"main, off, auto length", "main", Serve{AutoMaxModelLen: true, ChunkedPrefill: engine.Off}, got{}, "no-enable-chunked-prefill", "with --max-model-len auto"},
		// 0.14.0 is the first release surely holding PR #28665.
		{"0.14.0, off", "0.14.0", Serve{MaxModelLen: 32768, ChunkedPrefill: engine.Off}, got{32768, 1024, true}, "", ""},
		// Up to 0.11.0 V1 forces chunked prefill on: nothing changes, and
		// tokens below the length are accepted (issue #20914's 0.9.2
		// line: 4096 tokens at max_model_len 16384).
		{"0.11.0, off", "0.11.0", Serve{MaxModelLen: 32768, ChunkedPrefill: engine.Off}, got{8192, 1024, false}, "", ""},
		{"0.9.2, off, issue 20914", "0.9.2", Serve{MaxModelLen: 16384, MaxNumBatchedTokens: 4096, ChunkedPrefill: engine.Off}, got{4096, 1024, false}, "", ""},
		// 0.11.1 to 0.13.x are in doubt: refused unless the tokens given
		// hold the length, the same batch either way.
		{"0.12.0, off", "0.12.0", Serve{MaxModelLen: 32768, ChunkedPrefill: engine.Off}, got{}, "no-enable-chunked-prefill", "vLLM 0.12.0 may force chunked prefill on"},
		{"0.13.0, off, tokens given to the length", "0.13.0", Serve{MaxModelLen: 32768, MaxNumBatchedTokens: 32768, ChunkedPrefill: engine.Off}, got{32768, 1024, false}, "", ""},
		// V0 (engine/arg_utils.py and config.py SchedulerConfig at
		// v0.7.2): chunked by default above 32768 tokens, batching 2048
		// (512 before 0.6.5); the flag sets it either way; unchunked, the
		// whole context max(max_model_len, 2048).
		{"V0, default at 32768", "0.7.3:v0", Serve{MaxModelLen: 32768}, got{32768, 256, true}, "", ""},
		{"V0, on at 32768", "0.7.3:v0", Serve{MaxModelLen: 32768, ChunkedPrefill: engine.On}, got{2048, 256, false}, "", ""},
		{"V0, default at 65536", "0.7.3:v0", Serve{MaxModelLen: 65536}, got{2048, 256, false}, "", ""},
		{"V0, off at 65536", "0.7.3:v0", Serve{MaxModelLen: 65536, ChunkedPrefill: engine.Off}, got{65536, 256, true}, "", ""},
		{"V0 0.6.4, on", "0.6.4", Serve{MaxModelLen: 4096, ChunkedPrefill: engine.On}, got{512, 256, false}, "", ""},
		{"V0, off, tokens below the length", "0.7.3:v0", Serve{MaxModelLen: 65536, MaxNumBatchedTokens: 2048, ChunkedPrefill: engine.Off}, got{}, "max-num-batched-tokens", "the V0 engine without chunked prefill needs a whole prompt"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Resolve(tt.serve, llama, c, mustProfile(tt.version))
			if tt.errFlag != "" {
				var se *engine.SettingError
				if !errors.As(err, &se) || se.Flag != tt.errFlag || !strings.Contains(se.Reason, tt.errHas) {
					t.Fatalf("got %v, want a refusal of --%s saying %q", err, tt.errFlag, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got{r.MaxNumBatchedTokens, r.MaxNumSeqs, r.ChunkedOff}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestChunkedPrefillOffPeak: the profile run's batch follows the raised
// tokens. Llama-3.1-8B on main at max_model_len 32768: the forward pass a
// token is the layer input, its residual, norm and attention output (4 x
// hidden 4096) and the MLP's gate, up and product (3 x intermediate
// 14336) in bf16, 2 x (16384 + 43008) = 118784 B, plus the V1 residual of
// 52 MiB (peaks.go). At the default 8192 tokens that is 973078528 +
// 54525952 = 1027604480 B; without chunking, at 32768 tokens, 3892314112 +
// 54525952 = 3946840064 B, 2.72 GiB more, which the KV cache loses. The
// sampler adds nothing either way: the V2 runner's 1024 rows of the
// 128256-token vocabulary in bf16 (262668288 B) and the hidden states
// (32768 x 4096 x 2 = 268435456 B) stay below the forward pass.
func TestChunkedPrefillOffPeak(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	tests := []struct {
		name                string
		serve               Serve
		activation, sampler uint64
	}{
		{"chunked", Serve{MaxModelLen: 32768}, 8192*118784 + 52<<20, 0},
		{"without chunking", Serve{MaxModelLen: 32768, ChunkedPrefill: engine.Off}, 32768*118784 + 52<<20, 0},
	}
	for _, tt := range tests {
		items := map[string]uint64{}
		for _, it := range ref(t, llama, tt.serve, testClass(false)).Evaluate(1, 1).Items {
			if it.Term == budget.TermActivation || it.Term == budget.TermSampler {
				items[it.Name] = it.Bytes
			}
		}
		want := map[string]uint64{"activation_peak": tt.activation, "sampler_logits": tt.sampler}
		if diff := cmp.Diff(want, items); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestChunkedPrefillOffHybrid: a model with state layers under prefix
// caching (on by default for hybrids at main) keeps its state in
// mamba_cache_mode align, which asserts chunked prefill
// (model_executor/models/config.py:621-624); without prefix caching
// (mode none) it is sized, the batch raised as for any model.
func TestChunkedPrefillOffHybrid(t *testing.T) {
	jamba := shipped(t)["ai21labs__Jamba-v0.1"]
	c := testClass(false)
	_, err := Resolve(Serve{MaxModelLen: 32768, TensorParallelSize: 2, ChunkedPrefill: engine.Off}, jamba, c, current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "no-enable-chunked-prefill" || !strings.Contains(se.Reason, "mamba_cache_mode align") {
		t.Errorf("prefix caching on: got %v, want the align mode's refusal", err)
	}
	r, err := Resolve(Serve{MaxModelLen: 32768, TensorParallelSize: 2, ChunkedPrefill: engine.Off, EnablePrefixCaching: engine.Off}, jamba, c, current)
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxNumBatchedTokens != 32768 || r.MambaCacheMode != "none" {
		t.Errorf("prefix caching off: %d batched tokens in mode %q, want 32768 in none", r.MaxNumBatchedTokens, r.MambaCacheMode)
	}
}

// TestChunkedPrefillCommand: the serve line carries the form given, so
// that vLLM launched with it resolves the same batch.
func TestChunkedPrefillCommand(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tt := range []struct {
		s       engine.Switch
		has     string
		hasNone bool
	}{
		{engine.Off, " --no-enable-chunked-prefill", false},
		{engine.On, " --enable-chunked-prefill", false},
		{engine.Default, "chunked-prefill", true},
	} {
		r, err := Resolve(Serve{MaxModelLen: 32768, ChunkedPrefill: tt.s}, llama, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		line := Command("meta-llama/Llama-3.1-8B-Instruct", &r)
		if strings.Contains(line, tt.has) == tt.hasNone {
			t.Errorf("switch %v: %q, want %q present %v", tt.s, line, tt.has, !tt.hasNone)
		}
	}
}

// TestChunkedPrefillOldSpelling: before PR #16533 (0.8.5) vLLM's
// --enable-chunked-prefill was a StoreBoolean of an optional value, and
// --no-enable-chunked-prefill no flag: the launch line turns it off as
// --enable-chunked-prefill False there (0.8.4 and 0.6.3 under V0, 0.7.3
// under V1), as --no-enable-chunked-prefill from 0.8.5; and that line
// read back (Respell) turns it off again.
func TestChunkedPrefillOldSpelling(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tt := range []struct {
		spec, want string
	}{
		{"0.6.3:v0", " --enable-chunked-prefill False"},
		{"0.7.3", " --enable-chunked-prefill False"},
		{"0.8.4:v0", " --enable-chunked-prefill False"},
		{"0.8.5:v0", " --no-enable-chunked-prefill"},
		{"main", " --no-enable-chunked-prefill"},
	} {
		r, err := Resolve(Serve{MaxModelLen: 4096, ChunkedPrefill: engine.Off}, llama, testClass(false), mustProfile(tt.spec))
		if err != nil {
			t.Fatal(err)
		}
		if line := Command("meta-llama/Llama-3.1-8B-Instruct", &r); !strings.HasSuffix(line, tt.want) {
			t.Errorf("%s: %q, want it to end %q", tt.spec, line, tt.want)
		}
	}
	for _, tt := range []struct{ in, want []string }{
		{[]string{"--vllm-version", "0.6.3:v0", "--enable-chunked-prefill", "False"}, []string{"--vllm-version", "0.6.3:v0", "--no-enable-chunked-prefill"}},
		{[]string{"--vllm-version", "0.8.4:v0", "--enable_chunked_prefill=true", "--port", "1"}, []string{"--vllm-version", "0.8.4:v0", "--enable-chunked-prefill", "--port", "1"}},
		// A value StoreBoolean refuses, or a release whose flag takes none:
		// left for the flag set to refuse, as vLLM does.
		{[]string{"--vllm-version", "0.6.3:v0", "--enable-chunked-prefill", "no"}, []string{"--vllm-version", "0.6.3:v0", "--enable-chunked-prefill", "no"}},
		{[]string{"--enable-chunked-prefill", "False"}, []string{"--enable-chunked-prefill", "False"}},
	} {
		if diff := cmp.Diff(tt.want, Engine{}.Respell(tt.in)); diff != "" {
			t.Errorf("Respell(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestBuildServeReadsChunkedPrefill: a log's enable_chunked_prefill sets
// the switch (False: Off, True: On) unless a flag was given; the engine
// config line states the resolved value (vllm/config/vllm.py:2269 at
// d18bb7b).
func TestBuildServeReadsChunkedPrefill(t *testing.T) {
	tests := []struct {
		name  string
		log   string
		flags Serve
		given map[string]bool
		want  engine.Switch
	}{
		{"off in the args", "INFO non-default args: {'model': 'm', 'enable_chunked_prefill': False}\n", Serve{}, nil, engine.Off},
		{"on in the engine config", "INFO Initializing a V1 LLM engine (v0.19.0) with config: model='m', enable_chunked_prefill=True, max_seq_len=8192\n", Serve{}, nil, engine.On},
		{"none stated", "INFO non-default args: {'model': 'm'}\n", Serve{}, nil, engine.Default},
		{"a flag over the log", "INFO non-default args: {'model': 'm', 'enable_chunked_prefill': False}\n", Serve{ChunkedPrefill: engine.On}, map[string]bool{"enable-chunked-prefill": true}, engine.On},
	}
	for _, tt := range tests {
		got, err := buildServe(logSource(t, tt.log).Log, tt.flags, tt.given)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got.Serve.ChunkedPrefill != tt.want {
			t.Errorf("%s: switch %v, want %v", tt.name, got.Serve.ChunkedPrefill, tt.want)
		}
	}
}

// TestPrefillLimits pins vLLM's refusals of the prefill limits, which
// change no memory: from 0.28.0 (PR #49244) a long_prefill_token_threshold
// above max_model_len whatever else is set (vllm/config/scheduler.py:
// 278-283); before it the same and chunked prefill off only under
// max_num_partial_prefills > 1. Llama-3.1-8B at max_model_len 8192.
func TestPrefillLimits(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	tests := []struct {
		name    string
		version string
		serve   Serve
		errFlag string
	}{
		{"main, above the length", "main", Serve{LongPrefillTokenThreshold: 8193}, "long-prefill-token-threshold"},
		{"main, at the length", "main", Serve{LongPrefillTokenThreshold: 8192}, ""},
		{"main, zero", "main", Serve{}, ""},
		{"main, auto length", "main", Serve{AutoMaxModelLen: true, LongPrefillTokenThreshold: 4096}, "long-prefill-token-threshold"},
		{"0.27.0, above the length alone", "0.27.0", Serve{LongPrefillTokenThreshold: 16384}, ""},
		{"0.27.0, above the length, partial prefills", "0.27.0", Serve{LongPrefillTokenThreshold: 16384, MaxNumPartialPrefills: 2}, "long-prefill-token-threshold"},
		{"0.27.0, partial prefills unchunked", "0.27.0", Serve{MaxNumPartialPrefills: 2, ChunkedPrefill: engine.Off}, "max-num-partial-prefills"},
		// 0.11.0 chunks whatever the flag: partial prefills pass.
		{"0.11.0, partial prefills, off", "0.11.0", Serve{MaxNumPartialPrefills: 2, ChunkedPrefill: engine.Off}, ""},
		// V0 at 8192 tokens prefills whole by default.
		{"V0, partial prefills by default", "0.7.3:v0", Serve{MaxNumPartialPrefills: 2}, "max-num-partial-prefills"},
		{"V0, partial prefills chunked", "0.7.3:v0", Serve{MaxNumPartialPrefills: 2, ChunkedPrefill: engine.On}, ""},
	}
	for _, tt := range tests {
		s := tt.serve
		if !s.AutoMaxModelLen {
			s.MaxModelLen = 8192
		}
		_, err := Resolve(s, llama, testClass(false), mustProfile(tt.version))
		var se *engine.SettingError
		switch {
		case tt.errFlag == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.errFlag != "" && (!errors.As(err, &se) || se.Flag != tt.errFlag):
			t.Errorf("%s: got %v, want a refusal of --%s", tt.name, err, tt.errFlag)
		}
	}
}

// TestLongestStartFollowsBatch: under --no-enable-chunked-prefill with the
// batched tokens left to vLLM, a shorter --max-model-len also shrinks the
// profile's batch (max_model_len tokens), so the longest length the serve
// as given starts is beyond vLLM's estimate at the refused length, which
// holds that length's batch fixed; the queries size again at
// LongestStart, and say it is the longest that starts. The contract, by
// the verdicts themselves: the serve as given starts at LongestStart and
// is refused one token longer. Llama-3.1-8B (14.99 GiB of bf16 weights) on
// one L4 leaves no KV memory at 131,072 tokens, whose profile batch is
// 131,072 tokens: nothing to estimate from, yet a shorter length starts;
// at -tp 2 vLLM's estimate at 131,072 (LongestStarting, on the printed
// line with its batch pinned) starts, and is not the longest.
func TestLongestStartFollowsBatch(t *testing.T) {
	for _, tp := range []uint64{1, 2} {
		s := Serve{TensorParallelSize: tp, ChunkedPrefill: engine.Off}
		sz := sizeShipped(t, "meta-llama__Llama-3.1-8B-Instruct", "l4", s)
		longest, ok := sz.LongestStart()
		if !ok || longest == 0 {
			t.Fatalf("-tp %d: no longest start (capacity %+v)", tp, sz.Capacity())
		}
		if tp == 2 && longest <= sz.Capacity().LongestStarting {
			t.Errorf("-tp 2: longest %d, not beyond the printed line's %d", longest, sz.Capacity().LongestStarting)
		}
		for _, l := range []struct {
			n      uint64
			starts bool
		}{{longest, true}, {longest + 1, false}} {
			at := s
			at.MaxModelLen = l.n
			got := sizeShipped(t, "meta-llama__Llama-3.1-8B-Instruct", "l4", at)
			if ok, why := got.Starts(); ok != l.starts {
				t.Errorf("-tp %d --max-model-len %d: starts %v (%s), want %v", tp, l.n, ok, why, l.starts)
			}
		}
	}
}
