package vllm

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// TestFlagTableIsConsistent: every name and alias of the table once; a
// modelled flag is one Register registers; only a refused flag says what
// it adds or has neutral values; a flag's release range is not empty.
func TestFlagTableIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	registered := registeredNames()
	for _, f := range flagTable {
		for _, n := range append([]string{f.name}, f.aliases...) {
			if seen[n] {
				t.Errorf("%s: named twice in the table", n)
			}
			seen[n] = true
		}
		switch {
		case f.kind == modelled && !registered[f.name] && f.name != "model" && f.name != "revision":
			t.Errorf("--%s: modelled, but Register does not register it", f.name)
		case f.kind == refused && f.what == "":
			t.Errorf("--%s: refused without what it adds", f.name)
		case f.kind == modelled && f.from != (Version{}) && f.what == "":
			t.Errorf("--%s: modelled from %s, without what it adds before", f.name, f.from)
		case f.kind != refused && f.from == (Version{}) && (f.what != "" || f.neutral != nil):
			t.Errorf("--%s: only a refused flag says what it adds", f.name)
		case f.until != (Version{}) && !f.since.Less(f.until):
			t.Errorf("--%s: since %s is not before until %s", f.name, f.since, f.until)
		case f.until != (Version{}) && f.removed == "", f.since != (Version{}) && f.added == "":
			t.Errorf("--%s: a release bound without its source", f.name)
		}
	}
	// Every flag Register registers is the table's or membudget's own.
	own := map[string]bool{"vllm-version": true, "allow-long-max-model-len": true, "interconnect": true, "compile-cache": true}
	for n := range registered {
		if _, _, ok := lookupFlag(n); !ok && !own[n] {
			t.Errorf("--%s: registered but not in the table", n)
		}
	}
}

// TestFlagsOfARelease: the release a flag has is read from the tags and
// the changes cited; main has the flags of main's arg_utils.py.
func TestFlagsOfARelease(t *testing.T) {
	profile := func(spec string) Profile {
		p, err := ProfileFor(spec)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		flag, release string
		want          bool
	}{
		// --swap-space: removed by PR #36216, in 0.18.0
		// (engine/vllm/version.go).
		{"swap-space", "0.17.0", true},
		{"swap-space", "0.18.0", false},
		// --engine-use-ray: in the tag v0.6.0, gone from v0.6.2.
		{"engine-use-ray", "0.6.0", true},
		{"engine-use-ray", "0.6.2", false},
		// --enable-lora: in every release profiled.
		{"enable-lora", "0.6.0", true},
		{"enable-lora", "main", true},
		// --attention-backend: added by PR #26315 (2025-12-05), after
		// 0.11.0's changes and before 0.14.0's.
		{"attention-backend", "0.10.2", false},
		{"attention-backend", "0.14.0", true},
	}
	for _, tc := range cases {
		f, _, ok := lookupFlag(tc.flag)
		if !ok {
			t.Fatalf("--%s: not in the table", tc.flag)
		}
		if got := f.in(profile(tc.release)); got != tc.want {
			t.Errorf("--%s in vLLM %s: %v, want %v", tc.flag, tc.release, got, tc.want)
		}
	}
}

// TestJudge: each kind of flag, and each form, as Judge answers it.
func TestJudge(t *testing.T) {
	const main = "vLLM main at commit d18bb7b (2026-08-14)"
	const tail = "; membudget refuses it rather than size a serve vLLM would contradict"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"modelled", []string{"--max-model-len", "8k"}, ""},
		{"the custom all-reduce off is modelled", []string{"--disable-custom-all-reduce"}, ""},
		{"membudget's own spelling", []string{"--allow-long-max-model-len"}, ""},
		{"memory-neutral", []string{"--max-logprobs", "40"}, ""},
		{"a refused switch turned off", []string{"--no-disable-custom-all-reduce"}, ""},
		// Both forms are sized per release (chunked.go).
		{"a modelled switch turned off", []string{"--no-enable-chunked-prefill"}, ""},
		{"the same, =false", []string{"--enable-chunked-prefill=false"}, ""},
		{"a refused switch =false", []string{"--disable-custom-all-reduce=false"}, ""},
		{"a refused flag at its default", []string{"--mm-encoder-tp-mode", "weights"}, ""},
		{"-O2 is main's default level", []string{"--optimization-level=2"}, ""},
		// Where compiled artifacts go changes no memory
		// (vllm/config/compilation.py:461-467 at main).
		{"a compilation config of neutral keys", []string{`--compilation-config={"cache_dir": "/c", "debug_dump_path": "/d"}`}, ""},
		// cudagraph_mode is sized from 0.14.0 (compilation.go), refused before.
		{"a neutral key beside a modelled one", []string{`-cc={"cache_dir": "/c", "cudagraph_mode": "FULL"}`}, ""},
		{"a neutral key beside one refused before 0.14.0", []string{"--vllm-version", "0.13.0", `-cc={"cache_dir": "/c", "cudagraph_mode": "FULL"}`}, "-cc: " + whatGraphs + ": not modelled for vLLM 0.13.0" + tail},
		{"a key refused by name", []string{`-cc={"pass_config": {"enable_sp": true}}`}, `-cc: key "pass_config": ` + refusedCompilationKeys["pass_config"] + ": not modelled for " + main + tail},
		{"a key of no compilation config", []string{`-cc={"cudagraph_size": 4}`}, `-cc: key "cudagraph_size" is not a key of vLLM's CompilationConfig membudget knows (vllm/config/compilation.py)`},
		{"a capture size refused", []string{"--cudagraph-capture-sizes=1 0"}, "--cudagraph-capture-sizes: 0 is not a batch size from 1 to 16777216"},
		{"a level refused", []string{"--optimization-level=4"}, `--optimization-level: "4" is not an optimization level 0, 1, 2 or 3`},
		{"-O0 sized from 0.14.0", []string{"--vllm-version", "0.14.0", "--optimization-level=0"}, ""},
		{"-O0 on 0.13.0, whose --optimization-level is not sized", []string{"--vllm-version", "0.13.0", "--optimization-level=0"},
			"--optimization-level: " + whatGraphs + ": not modelled for vLLM 0.13.0" + tail},
		// PR #41069 is in v0.20.2rc1 (version.go v0_20_2).
		{"the block override from 0.20.2", []string{"--vllm-version", "0.20.2", "--num-gpu-blocks-override", "100"}, ""},
		{"the block override before 0.20.2", []string{"--vllm-version", "0.20.1", "--num-gpu-blocks-override", "100"},
			"--num-gpu-blocks-override: " + whatBlocks + ": not modelled for vLLM 0.20.1" + tail},
		// Before --optimization-level, -O was --compilation-config's alias,
		// and V1 compiled at level 3.
		{"-O3 before --optimization-level, on V1", []string{"--vllm-version", "0.10.2", "--optimization-level=3"}, ""},
		{"-O0 before --optimization-level", []string{"--vllm-version", "0.10.2", "--optimization-level=0"},
			"-O0: " + whatGraphs + ": not modelled for vLLM 0.10.2" + tail},
		{"-O3 on the V0 engine", []string{"--vllm-version", "0.8.5:v0", "--optimization-level=3"},
			"-O3: " + whatGraphs + ": not modelled for vLLM 0.8.5 (V0 engine)" + tail},
		{"-O.level", []string{"--vllm-version", "0.10.2", "-O.level=3"}, "-O.level: " + whatGraphs + ": not modelled for vLLM 0.10.2" + tail},
		{"refused, with the release", []string{"--vllm-version", "0.19.0", "--enable-tower-connector-lora"},
			"--enable-tower-connector-lora: " + whatLora + ": not modelled for vLLM 0.19.0" + tail},
		// --enable-lora is sized (lora.go); Resolve refuses it before 0.17.0.
		{"LoRA is modelled", []string{"--vllm-version", "0.19.0", "--enable-lora", "--max-loras", "4", "--no-fully-sharded-loras"}, ""},
		{"a speculative method named", []string{`--speculative-config={"method": "mlp_speculator", "num_speculative_tokens": 3}`},
			`--speculative-config (method "mlp_speculator"): ` + specUnsized["mlp_speculator"] + ": not modelled for " + main + tail},
		// medusa is sized (specmedusa.go): its refusals come when the serve
		// is resolved, with the draft read.
		{"medusa sized", []string{`--speculative-config={"method": "medusa", "num_speculative_tokens": 3}`}, ""},
		// eagle is sized (specdraft_eagle.go), as eagle3.
		{"eagle sized", []string{`--speculative-config={"method": "eagle", "num_speculative_tokens": 3}`}, ""},
		// eagle3 is sized (specdraft.go): its refusals come when the serve
		// is resolved, with the model read.
		{"eagle3 sized", []string{`--speculative-config={"method": "eagle3", "num_speculative_tokens": 3}`}, ""},
		// mtp is sized for DeepSeek-V3 (specmtp.go): refused, where it is,
		// when the serve is resolved with the model read.
		{"an alias", []string{"-sc", `{"method":"mtp"}`}, ""},
		{"mtp before 0.14.0", []string{"--vllm-version", "0.10.2", "-sc", `{"method":"mtp"}`},
			`-sc (method "mtp"): the model's own MTP layers as the draft (their weights, their attention layers added to the KV cache groups, k lookahead KV slots a request): not modelled for vLLM 0.10.2` + tail},
		// specdecode.go sizes ngram and suffix; an MTP alias is mtp, a
		// model without a method a draft model (vllm/config/speculative.py:
		// 741-756).
		{"ngram is modelled", []string{"--speculative-config", `{"method": "ngram", "num_speculative_tokens": 3}`}, ""},
		{"before the flag", []string{"--vllm-version", "0.7.2", "--speculative-config", `{"method": "eagle3", "num_speculative_tokens": 3}`},
			"--speculative-config is not a flag of vLLM 0.7.2 (V0 engine) (vLLM 0.8.0 added it, #14434 (2025-03-22)): its nearest is --speculative-model"},
		{"an MTP alias", []string{"-sc", `{"method": "deepseek_mtp", "num_speculative_tokens": 1}`}, ""},
		// A draft model is sized (specdraftmodel.go), one named by its Hub
		// id read as --model is (specdrafthub.go).
		{"a draft model by its model alone", []string{"--speculative-config", `{"model": "meta-llama/Llama-3.2-1B", "num_speculative_tokens": 4}`}, ""},
		{"a key not read", []string{"--speculative-config", `{"method": "ngram", "num_speculative_tokens": 3, "enforce_eager": true}`},
			`--speculative-config (method "ngram"): speculative decoding with the key "enforce_eager" (membudget reads ` + strings.Join(specKeys, ", ") + "): not modelled for " + main + tail},
		{"a dotted key", []string{"--speculative-config.method", "ngram"},
			"--speculative-config.method: speculative decoding set key by key: not modelled for " + main + "; give --speculative-config one JSON object"},
		{"a dotted JSON flag", []string{"--vllm-version", "0.13.0", "--compilation-config.cudagraph_mode=FULL"}, "--compilation-config.cudagraph_mode: " + whatGraphs + ": not modelled for vLLM 0.13.0" + tail},
		{"JSON checked", []string{"--compilation-config", "{bad"}, `--compilation-config: want JSON, as vLLM reads it: "{bad": invalid character 'b' looking for beginning of object key string`},
		{"a flag of no release", []string{"--enable-lorra"}, "--enable-lorra is not a flag of " + main + ": its nearest is --enable-lora"},
		{"a flag removed", []string{"--vllm-version", "0.19.0", "--disable-log-requests"},
			"--disable-log-requests is not a flag of vLLM 0.19.0 (vLLM 0.18.0 removed it, #35723 (2026-03-02)): its nearest is --enable-log-requests"},
		{"a flag not yet added", []string{"--vllm-version", "0.10.2", "--kv-offloading-size", "4"},
			"--kv-offloading-size is not a flag of vLLM 0.10.2 (vLLM 0.11.0 added it, #27621 (2025-11-01)): its nearest is --cpu-offload-gb"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := judgeLine(tc.args); got != tc.want {
				t.Errorf("Judge(%q):\n got %q\nwant %q", tc.args, got, tc.want)
			}
		})
	}
}

func TestRespell(t *testing.T) {
	cases := []struct{ in, want []string }{
		{[]string{"-O3"}, []string{"--optimization-level=3"}},
		{[]string{"-O", "2", "--x"}, []string{"--optimization-level=2", "--x"}},
		{[]string{"-O=1"}, []string{"--optimization-level=1"}},
		{[]string{"--max_model_len", "8192"}, []string{"--max-model-len", "8192"}},
		// argparse's nargs="+": every word up to the next flag.
		{[]string{"--served-model-name", "a", "b", "--port", "1"}, []string{"--served-model-name=a b", "--port", "1"}},
		{[]string{"--cudagraph-capture-sizes", "1", "2", "4"}, []string{"--cudagraph-capture-sizes=1 2 4"}},
		// nargs="?": --hf-token alone, or with its value.
		{[]string{"--hf-token", "--port", "1"}, []string{"--hf-token=true", "--port", "1"}},
		{[]string{"--hf-token", "hf_x"}, []string{"--hf-token=hf_x"}},
		// A dotted JSON flag keeps its key; its name's underscores go only up
		// to the dot.
		{[]string{"--attention_config.use_fp4_indexer_cache", "True"}, []string{"--attention-config.use_fp4_indexer_cache=True"}},
		{[]string{"--max-model-len", "-1", "--", "--max_model_len"}, []string{"--max-model-len", "-1", "--", "--max_model_len"}},
		// A dotted key that changes no memory becomes the flag's object, for
		// the flag set to parse; one that does keeps its name for Judge.
		{[]string{"-cc.cache_dir", "/c", "--compilation-config.cudagraph_num_of_warmups=2"},
			[]string{`--compilation-config={"cache_dir":"/c"}`, `--compilation-config={"cudagraph_num_of_warmups":2}`}},
		// --compilation-config is modelled on main: its dotted forms become
		// the objects they set, which its flag merges key by key.
		{[]string{"--compilation-config.mode", "3"}, []string{`--compilation-config={"mode":3}`}},
		{[]string{"--vllm-version", "0.13.0", "--compilation-config.mode", "3"}, []string{"--vllm-version", "0.13.0", "--compilation-config.mode=3"}},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(tc.want, Engine{}.Respell(tc.in)); diff != "" {
			t.Errorf("Respell(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}

// TestReadLineForms: the API server's module with --model, and the
// flags that do not change memory listed as given once parsed.
func TestReadLineForms(t *testing.T) {
	s := Engine{}.NewServe().(*flagServe)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var model string
	s.Register(fs, &model)
	l, err := s.ReadLine([]string{"python3", "-u", "-m", "vllm.entrypoints.openai.api_server", "--model", "M", "--served-model-name", "a", "b", "--trust_remote_code", "-O2"})
	if err != nil {
		t.Fatal(err)
	}
	if l.Model != "M" || l.From != "--model M in the the vllm.entrypoints.openai.api_server line" && l.From != "--model M in the vllm.entrypoints.openai.api_server line" {
		t.Errorf("model %q from %q", l.Model, l.From)
	}
	if err := fs.Parse(l.Args); err != nil {
		t.Fatal(err)
	}
	// -O2 and --trust-remote-code are modelled (compilation.go,
	// remotecode.go): not listed.
	want := []string{"--served-model-name a b"}
	if diff := cmp.Diff(want, s.Listed); diff != "" {
		t.Errorf("listed as ignored (-want +got):\n%s", diff)
	}
}

func TestCheckEnv(t *testing.T) {
	cases := []struct {
		release, env, want string
	}{
		{"0.10.2", "VLLM_USE_V1=1", ""},
		{"0.10.2", "VLLM_USE_V1=0", "VLLM_USE_V1=0 in the launch line: the V0 engine, which vLLM 0.10.2 does not size: give --vllm-version 0.10.2:v0 (0.8 to 0.10) or a release before 0.8.0"},
		{"0.8.5:v0", "VLLM_USE_V1=1", "VLLM_USE_V1=1 in the launch line: the V1 engine, which vLLM 0.8.5 (V0 engine) does not size: give a --vllm-version without :v0 (0.8.0 or later)"},
		{"0.8.5:v0", "VLLM_USE_V1=0", ""},
		// Gone from vllm/envs.py by main: listed as ignored.
		{"main", "VLLM_USE_V1=0", ""},
		{"0.15.0", "VLLM_ATTENTION_BACKEND=FLASHINFER", "VLLM_ATTENTION_BACKEND=FLASHINFER in the launch line: " + whatAttn + ": not modelled for vLLM 0.15.0; membudget refuses it rather than size a serve vLLM would contradict"},
		{"0.17.0", "VLLM_ATTENTION_BACKEND=FLASHINFER", ""},
		{"0.15.0", "NCCL_DEBUG=INFO", ""},
		// It decides the runner before vLLM's oracle does (vllm/config/
		// vllm.py use_v2_model_runner): read, and sized by Resolve
		// (TestRunnerEnv); a value int() does not take stops vLLM.
		{"main", "VLLM_USE_V2_MODEL_RUNNER=0", ""},
		{"0.22.0", "VLLM_USE_V2_MODEL_RUNNER=1", ""},
		{"0.22.0", "VLLM_USE_V2_MODEL_RUNNER=true", "VLLM_USE_V2_MODEL_RUNNER=true: vLLM reads it as bool(int(value)) (vllm/envs.py) and stops at startup on a value int() does not take: give 0 (the V1 model runner) or 1 (the V2 model runner)"},
		{"0.11.0", "VLLM_USE_V2_MODEL_RUNNER=", "VLLM_USE_V2_MODEL_RUNNER=: vLLM reads it as bool(int(value)) (vllm/envs.py) and stops at startup on a value int() does not take: give 0 (the V1 model runner) or 1 (the V2 model runner)"},
		{"0.10.2", "VLLM_USE_V2_MODEL_RUNNER=true", ""}, // before PR #25266: not read
		{"0.8.5:v0", "VLLM_USE_V2_MODEL_RUNNER=1", ""},
	}
	for _, tc := range cases {
		p, err := ProfileFor(tc.release)
		if err != nil {
			t.Fatal(err)
		}
		s := &flagServe{}
		// As engine.ReadLaunch does: the variables vLLM reads are set,
		// the others ignored.
		if name, value, _ := strings.Cut(tc.env, "="); slices.Contains(s.Env(), name) {
			s.SetEnv(name, value, "the launch line")
		} else {
			s.Ignore([]string{tc.env}, nil)
		}
		got := ""
		err = s.checkEnv(p)
		if err != nil {
			got = err.Error()
		}
		// A refusal that names the variable says it is one.
		if se := (*engine.SettingError)(nil); errors.As(err, &se) && !se.Env {
			t.Errorf("checkEnv(%s, %s): %v names %s as a flag", tc.release, tc.env, err, se.Flag)
		}
		if got != tc.want {
			t.Errorf("checkEnv(%s, %s):\n got %q\nwant %q", tc.release, tc.env, got, tc.want)
		}
	}
}

// FuzzRespellIsIdempotent: Respell never panics, and what it returns it
// returns unchanged (a flag set parses its output, and the commands
// respell arguments more than once).
func FuzzRespellIsIdempotent(f *testing.F) {
	for _, seed := range []string{
		"-O3", "-O 2 --x", "--served-model-name a b --port 1", "--hf-token", "--cc.mode 3",
		"--attention_config.use_fp4_indexer_cache True", "-O", "-O.level=3", "--max-model-len -1 -- --a_b",
		"vllm serve M --lora-modules a=b c=d -tp 2",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		once := Engine{}.Respell(args)
		if diff := cmp.Diff(once, Engine{}.Respell(once)); diff != "" {
			t.Errorf("Respell(%q) changes on a second pass (-once +twice):\n%s", args, diff)
		}
	})
}

// TestRegisterForRegistersOnlyTheFlagsGiven: a command registers, beside
// the flags vLLM's serves are sized by, only the table's flags its
// arguments name (a request's cost), each in the form given.
func TestRegisterForRegistersOnlyTheFlagsGiven(t *testing.T) {
	s := &flagServe{}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var model string
	s.RegisterFor(fs, &model, []string{"--class", "x", "--host", "h", "--no-allow-credentials", "-sc", "{}", "--max-model-len", "8k"})
	// A flag of the table or a modelled one only in the form given, but
	// --max-model-len, which a command sets after sizing; a string flag
	// not given keeps its default.
	for name, want := range map[string]bool{"host": true, "no-allow-credentials": true, "sc": true, "max-model-len": true, "port": false, "allow-credentials": true, // a --no- form given registers the switch beside it
		"enable-lora": false, "speculative-config": false, "disable-custom-all-reduce": false, "no-disable-custom-all-reduce": false, "no-enforce-eager": false,
		"gpu-memory-utilization": false, "kv-cache-dtype": false} {
		if got := fs.Lookup(name) != nil; got != want {
			t.Errorf("--%s registered: %v, want %v", name, got, want)
		}
	}
	if s.version != "main" || s.s.KVCacheDtype != "auto" || s.s.Dtype != "auto" || s.s.MambaCacheDtype != "auto" {
		t.Errorf("defaults of the string flags not given: version %q, kv-cache-dtype %q, dtype %q, mamba-cache-dtype %q; want main and auto",
			s.version, s.s.KVCacheDtype, s.s.Dtype, s.s.MambaCacheDtype)
	}
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	s = &flagServe{}
	s.RegisterFor(fs, &model, []string{"--max-loras", "4", "--no-enforce-eager"})
	for _, name := range []string{"enable-lora", "lora-dtype", "no-enforce-eager"} {
		if fs.Lookup(name) == nil {
			t.Errorf("--%s not registered beside --max-loras and --no-enforce-eager", name)
		}
	}
}

func TestRespelledKeepsTheArgument(t *testing.T) {
	cases := []struct {
		a, dashes, key string
		hasValue       bool
		value, want    string
		same           bool // the argument itself comes back, not a copy
	}{
		{"--max-model-len", "--", "max-model-len", false, "", "--max-model-len", true},
		{"--max-model-len=4096", "--", "max-model-len", true, "4096", "--max-model-len=4096", true},
		{"-tp=2", "-", "tp", true, "2", "-tp=2", true},
		// Respelled: underscores made dashes, a value given apart joined.
		{"--max_model_len=4096", "--", "max-model-len", true, "4096", "--max-model-len=4096", false},
		{"--hf-token", "--", "hf-token", true, "true", "--hf-token=true", false},
		// A prefix of the spelling is not the spelling.
		{"--max-model-len=40", "--", "max-model-len", true, "4096", "--max-model-len=4096", false},
		{"--max-model-len", "--", "max-model-len", true, "", "--max-model-len=", false},
		{"--max-model-len=", "--", "max-model-len", false, "", "--max-model-len", false},
	}
	for _, c := range cases {
		got := respelled(c.a, c.dashes, c.key, c.hasValue, c.value)
		if got != c.want {
			t.Errorf("respelled(%q, %q, %q, %v, %q) = %q, want %q", c.a, c.dashes, c.key, c.hasValue, c.value, got, c.want)
		}
		if same := unsafe.StringData(got) == unsafe.StringData(c.a); same != c.same {
			t.Errorf("respelled(%q): the argument itself came back: %v, want %v", c.a, same, c.same)
		}
	}
}

// TestNegationsSetTheSwitchOff: every modelled switch's --no- form parses,
// and, given after the switch, turns it off as argparse's last word does.
func TestNegationsSetTheSwitchOff(t *testing.T) {
	for _, sw := range modelledSwitches() {
		s := &flagServe{}
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var model string
		s.Register(fs, &model)
		if err := fs.Parse([]string{"--" + sw[1]}); err != nil {
			t.Errorf("--%s: %v", sw[1], err)
		}
	}
	s := &flagServe{}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var model string
	s.Register(fs, &model)
	if err := fs.Parse([]string{"--enforce-eager", "--no-enforce-eager", "--disable-custom-all-reduce", "--no-disable-custom-all-reduce"}); err != nil {
		t.Fatal(err)
	}
	if s.s.EnforceEager || s.s.DisableCustomAllReduce {
		t.Errorf("after the --no- forms: enforce eager %v, custom all-reduce disabled %v; want both off", s.s.EnforceEager, s.s.DisableCustomAllReduce)
	}
}

// TestPyIntBool: bool(int(s)) as Python reads VLLM_USE_V2_MODEL_RUNNER.
func TestPyIntBool(t *testing.T) {
	type res struct{ On, OK bool }
	for _, tc := range []struct {
		in   string
		want res
	}{
		{"0", res{false, true}},
		{"1", res{true, true}},
		{" 1\n", res{true, true}}, // int() strips blanks
		{"+0", res{false, true}},
		{"-1", res{true, true}}, // bool(-1) is True
		{"00", res{false, true}},
		{"1_0", res{true, true}}, // int("1_0") is 10
		{"0_0", res{false, true}},
		{"", res{false, false}},
		{"true", res{false, false}},
		{"1.0", res{false, false}},
		{"_1", res{false, false}},
		{"1_", res{false, false}},
		{"1__0", res{false, false}},
		{"+", res{false, false}},
		{"0x1", res{false, false}},
	} {
		on, ok := pyIntBool(tc.in)
		if diff := cmp.Diff(tc.want, res{on, ok}); diff != "" {
			t.Errorf("pyIntBool(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
}
