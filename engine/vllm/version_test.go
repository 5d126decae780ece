package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in   string
		want Version
	}{
		{"0.19.0", Version{0, 19, 0}},
		{"0.19", Version{0, 19, 0}},
		{"v0.11.0", Version{0, 11, 0}},
		{"0.10.2+cu130", Version{0, 10, 2}},          // corpus/observed/vllm.csv row 104
		{"0.13.0rc2.dev98", Version{0, 13, 0}},       // a nightly leads to its release
		{"0.8.5.post1", Version{0, 8, 5}},            // row 28
		{"0.26.1rc0+glm53.flash", Version{0, 26, 1}}, // row 114
	}
	for _, tt := range tests {
		got, err := ParseVersion(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "1.0.0", "0.x", "0.19.0.0.0", "latest-ish", "0.19.0 "[:0]} {
		if _, err := ParseVersion(bad); err == nil {
			t.Errorf("ParseVersion(%q) accepted", bad)
		}
	}
}

// rules is the part of a profile that differs between versions, each
// compared with the release that changed it.
type rules struct {
	Era                           Era
	Util                          float64
	Rounding                      budget.Rounding
	Graphs                        GraphRule
	Async, AsyncPP, InFlight      bool
	LoggedFromConcurrency         bool
	Check                         CheckRule
	LargeTier, MLAByBackend, BF16 bool
	Swap, SwapAllocated, KVBytes  bool
	AutoLen                       bool
	V2Every, V2Graphs             bool
	Sharded                       bool
}

func rulesOf(p Profile) rules {
	return rules{p.Era, p.DefaultUtil, p.Rounding, p.Graphs, p.AsyncByDefault, p.AsyncWithPP, p.InFlightWindow,
		p.LoggedTokensFromConcurrency, p.Check, p.LargeBatchTier, p.MLABlockByBackend, p.Float32AsBF16,
		p.SwapSpaceFlag, p.SwapAllocated, p.KVCacheMemoryFlag, p.AutoMaxModelLen,
		p.V2EveryModel, p.V2GraphsCharged, p.ShardedSampling}
}

func TestProfileRulesByVersion(t *testing.T) {
	tests := []struct {
		spec string
		want rules
	}{
		// vLLM 0.7.3: the V0 engine's float budget, 4 GiB of CPU swap
		// blocks, float32 served in fp16, FlashMLA's 64.
		{"0.7.3", rules{Era: V0, Util: 0.9, Rounding: budget.Truncate, Graphs: GraphsBeside, Check: CheckLayers, Swap: true, SwapAllocated: true}},
		{"0.8.5:v0", rules{Era: V0, Util: 0.9, Rounding: budget.Truncate, Graphs: GraphsBeside, Check: CheckLayers, Swap: true, SwapAllocated: true}},
		// 0.10.2: --kv-cache-memory-bytes (#21489); fp32 served in bf16 (#18751).
		{"0.10.2", rules{Era: V1, Util: 0.9, Rounding: budget.Truncate, Graphs: GraphsBeside, Check: CheckLayers, BF16: true, Swap: true, KVBytes: true}},
		// 0.14.0: async scheduling (#27614), ceil (#29493), auto length and
		// the group-aware check (#29431).
		{"0.14.0", rules{Era: V1, Util: 0.9, Rounding: budget.Ceil, Graphs: GraphsBeside, Async: true, Check: CheckFirstGroup, BF16: true, Swap: true, KVBytes: true, AutoLen: true}},
		// 0.18.0: --swap-space gone (#36216), MLA block by backend (#35122).
		{"0.18.0", rules{Era: V1, Util: 0.9, Rounding: budget.Ceil, Graphs: GraphsBeside, Async: true, AsyncPP: true, Check: CheckFirstGroup, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		// 0.19.0: every group in the check (#36030); graphs printed, not charged.
		{"0.19.0", rules{Era: V1, Util: 0.9, Rounding: budget.Ceil, Graphs: GraphsBeside, Async: true, AsyncPP: true, Check: CheckGroups, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		// 0.20.0: graphs charged and util 0.92 (#38284).
		{"0.20.0", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, Check: CheckGroups, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		// 0.20.1: the physical form still; 0.20.2: GPU KV cache size from
		// concurrency (#41069, in v0.20.2rc1 on main), as 0.21.0.
		{"0.20.1", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, Check: CheckGroups, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		{"0.20.2", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, LoggedFromConcurrency: true, Check: CheckGroups, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		{"0.21.0", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, LoggedFromConcurrency: true, Check: CheckGroups, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		// 0.25.0: every batch in flight beside a sliding window (#47728).
		{"0.25.0", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, InFlight: true, LoggedFromConcurrency: true, Check: CheckGroups, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		// 0.27.1, the last release before main of 2026-08-14: no 160 GiB
		// tier, no MoE architecture on the V2 runner.
		{"0.27.1", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, InFlight: true, LoggedFromConcurrency: true, Check: CheckGroups, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		// main (0.28.0's branch): the 160 GiB tier (#51726) and the MoE
		// architectures listed for the V2 runner (vllm/config/vllm.py:72-84).
		{"main", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, InFlight: true, LoggedFromConcurrency: true, Check: CheckGroups, LargeTier: true, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		// 0.28.0: main's rules; #53306 is a 0.29.0 change.
		{"0.28.0", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, InFlight: true, LoggedFromConcurrency: true, Check: CheckGroups, LargeTier: true, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true}},
		// 0.29.0: the V2 runner for every model (#53183), its graphs charged
		// (#53306), batch-sharded sampling (#50465).
		{"0.29.0", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, InFlight: true, LoggedFromConcurrency: true, Check: CheckGroups, LargeTier: true, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true, V2Every: true, V2Graphs: true, Sharded: true}},
		{"0.29.1", rules{Era: V1, Util: 0.92, Rounding: budget.Ceil, Graphs: GraphsCharged, Async: true, AsyncPP: true, InFlight: true, LoggedFromConcurrency: true, Check: CheckGroups, LargeTier: true, MLAByBackend: true, BF16: true, KVBytes: true, AutoLen: true, V2Every: true, V2Graphs: true, Sharded: true}},
	}
	for _, tt := range tests {
		p, err := ProfileFor(tt.spec)
		if err != nil {
			t.Fatalf("%s: %v", tt.spec, err)
		}
		if diff := cmp.Diff(tt.want, rulesOf(p)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.spec, diff)
		}
	}
}

func TestProfileForNames(t *testing.T) {
	for spec, name := range map[string]string{"": CurrentName, "MAIN": CurrentName, "latest": CurrentName, "0.19": "0.19.0", "v0": "0.7.3:v0", "0.6.4": "0.6.4:v0", "0.9.2:v0": "0.9.2:v0",
		"0.28.0": "0.28.0", "v0.28.1": "0.28.1", "0.29.0": "0.29.0", "0.29.1+cu130": "0.29.1", "0.29.0rc1": "0.29.0"} {
		p, err := ProfileFor(spec)
		if err != nil || p.Name != name {
			t.Errorf("ProfileFor(%q) = %q, %v; want %q", spec, p.Name, err, name)
		}
	}
	// A release read from its own source carries no note; 0.28 and 0.29,
	// whose rules come from main's source and the pull requests, say so.
	for spec, note := range map[string]string{
		"main":   "",
		"0.27.1": "",
		"0.28.0": "vLLM 0.28.0 is sized with the rules of vLLM main at commit d18bb7b (2026-08-14), from which 0.28.0's branch was cut (released 2026-08-26 at commit 2cf0a69); the V2 runner's graph reservation (#53306) came in 0.29.0",
		"0.29.0": "vLLM 0.29.0 is sized with the rules of vLLM main at commit d18bb7b (2026-08-14) and the memory changes the v0.29.0 release notes name, read from their pull requests: the V2 model runner for every model (#53183), its CUDA graphs charged to the KV budget (#53306), batch-sharded sampling (#50465); its own source was not read",
	} {
		if p := mustProfile(spec); p.Note != note {
			t.Errorf("%s: note %q, want %q", spec, p.Note, note)
		}
	}
	bad := "want main, a release from 0.6.0 to 0.29.0 such as 0.19.0, a release with :v0 for the V0 engine (0.8.5:v0), or v0"
	for spec, reason := range map[string]string{
		"0.5.4":     bad,
		"nightly":   bad,
		"0.12.0:v0": "vLLM 0.11.0 removed the V0 engine (PR #25321)",
	} {
		_, err := ProfileFor(spec)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "vllm-version" || se.Reason != reason {
			t.Errorf("ProfileFor(%q) = %v; want a --vllm-version error %q", spec, err, reason)
		}
	}
}

// TestUnreadReleasesNamed: every release after 0.29 is refused by name, not
// sized with older rules, and the refusal says what of that release could
// not be read: 0.30's reason names the memory changes of its release notes
// (the YaRN length of #56446, the Fast Start daemon of #54921), 0.31's the
// date of its unread notes and the PRs of unknown release, 0.32's the V1
// runner's announced removal, 0.33's the move of KV cache planning, and a
// release after 0.33.0 (the newest on the package index, 2026-11) that
// none is known. Patch releases and suffixes share their minor's reason.
func TestUnreadReleasesNamed(t *testing.T) {
	const newest = "; the newest release membudget models is 0.29.0 (--vllm-version 0.29.0)"
	tests := []struct {
		spec, release string
		marks         []string
	}{
		{"0.30.0", "0.30.0", []string{"0.30.0's release notes (2026-09-22) only as a digest", "#56446", "--load-format ipc_cache, #54921", "nvfp4_fp8_ds_mla", "g_idx", "#53138"}},
		{"0.30.1", "0.30.1", []string{"#56446"}},
		{"0.30.0:v0", "0.30.0", []string{"#56446"}},
		{"0.31.0", "0.31.0", []string{"0.31.0's release notes (2026-10-05)", "#60023", "#60140", "#59160", "0.30.0's unread changes"}},
		{"0.32.0", "0.32.0", []string{"target for 0.32 the removal of the V1 model runner"}},
		{"0.33.0", "0.33.0", []string{"vllm.v1.core.kv_cache_planning", "is_draft"}},
		{"v0.33.1rc2", "0.33.1", []string{"kv_cache_planning"}},
		{"0.34.0", "0.34.0", []string{"no vLLM release after 0.33.0"}},
		{"0.60.2", "0.60.2", []string{"no vLLM release after 0.33.0"}},
	}
	for _, tt := range tests {
		_, err := ProfileFor(tt.spec)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "vllm-version" {
			t.Errorf("ProfileFor(%q) = %v; want a --vllm-version error", tt.spec, err)
			continue
		}
		prefix := "vLLM " + tt.release + "'s memory rules are not read: "
		if !strings.HasPrefix(se.Reason, prefix) || !strings.HasSuffix(se.Reason, newest) {
			t.Errorf("ProfileFor(%q): %q; want it to open %q and close %q", tt.spec, se.Reason, prefix, newest)
		}
		for _, m := range tt.marks {
			if !strings.Contains(se.Reason, m) {
				t.Errorf("ProfileFor(%q): %q does not name %q", tt.spec, se.Reason, m)
			}
		}
	}
	// Each minor release has its own reason: none borrows another's.
	seen := map[string]string{}
	for _, v := range []string{"0.30.0", "0.31.0", "0.32.0", "0.33.0", "0.34.0"} {
		_, err := ProfileFor(v)
		var se *engine.SettingError
		if !errors.As(err, &se) {
			t.Fatalf("ProfileFor(%q) = %v; want a --vllm-version error", v, err)
		}
		why := strings.TrimPrefix(se.Reason, "vLLM "+v+"'s memory rules are not read: ")
		if other, ok := seen[why]; ok {
			t.Errorf("%s and %s are refused for the same reason %q", other, v, why)
		}
		seen[why] = v
	}
}

// TestProfilesNewestFirst: the README's table and the properties draw
// main first, then the releases read after it.
func TestProfilesNewestFirst(t *testing.T) {
	var got []string
	for _, p := range Profiles() {
		got = append(got, p.Name)
	}
	want := []string{CurrentName, "0.29.0", "0.28.0", "0.21.0", "0.20.0", "0.19.0", "0.17.0", "0.14.0", "0.10.2", "0.8.5:v0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Profiles() (-want +got):\n%s", diff)
	}
}

// TestV2RunnerByVersion: which runner serves a generative model by default,
// by architecture, quantization and release, each row with the change of
// vllm/config/vllm.py that decides it (the history is v2oracle.go's). The
// V2 runner's CUDA-graph estimate is 0 until 0.29.0 charges it (#53306).
func TestV2RunnerByVersion(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		model, spec string
		want        bool
		why         string
	}{
		{"Qwen__Qwen3-8B", "0.21.0", false, "no oracle before #39337 (2026-05-14)"},
		{"Qwen__Qwen3-8B", "0.22.0", true, "#39337: Qwen3ForCausalLM listed, dense, unquantized"},
		{"meta-llama__Llama-3.1-8B-Instruct", "0.22.0", false, "LlamaForCausalLM not yet listed"},
		{"meta-llama__Llama-3.1-8B-Instruct", "0.23.0", true, "#43458 (06-02) lists LlamaForCausalLM"},
		{"mistralai__Mistral-7B-Instruct-v0.3", "0.22.0", false, "MistralForCausalLM not yet listed"},
		{"mistralai__Mistral-7B-Instruct-v0.3", "0.23.0", true, "#43458 lists MistralForCausalLM"},
		{"microsoft__phi-4", "0.23.0", false, "Phi3ForCausalLM never listed"},
		// The list names architectures, not model_type: IQuest-Coder is
		// read as the llama family, but IQuestCoderForCausalLM is not
		// LlamaForCausalLM.
		{"IQuestLab__IQuest-Coder-V1-40B-Base", "0.23.0", false, "IQuestCoderForCausalLM not listed"},
		{"IQuestLab__IQuest-Coder-V1-40B-Base", "0.24.0", false, "IQuestCoderForCausalLM not listed"},
		{"IQuestLab__IQuest-Coder-V1-40B-Base", "0.25.0", true, "#44443: dense"},
		{"microsoft__phi-4", "0.24.0", false, "0.24's oracle is the list alone (#42667 to #44443)"},
		{"microsoft__phi-4", "0.25.0", true, "#44443 (07-02): every non-MoE model"},
		// is_quantized: a quantization_config in config.json (Qwen3-32B-FP8,
		// the bitsandbytes CodeLlama) or hf_quant_config.json (nvidia's
		// Llama FP8) keeps a listed model on V1 until #44446 (06-18).
		{"Qwen__Qwen3-32B-FP8", "0.22.0", false, "is_quantized"},
		{"Qwen__Qwen3-32B-FP8", "0.23.0", false, "is_quantized"},
		{"Qwen__Qwen3-32B-FP8", "0.24.0", true, "#44446 drops is_quantized"},
		{"Qwen__Qwen3-32B", "0.22.0", true, "#39337"},
		{"nvidia__Llama-3.1-70B-Instruct-FP8", "0.23.0", false, "is_quantized from hf_quant_config.json"},
		{"nvidia__Llama-3.1-70B-Instruct-FP8", "0.24.0", true, "#44446"},
		{"seanses2-local__CodeLlama-7b-hf-bnb-8bit", "0.23.0", false, "is_quantized"},
		{"seanses2-local__CodeLlama-7b-hf-bnb-8bit", "0.24.0", true, "#44446"},
		// The MoE architectures on the list: from 0.24.0, whose branch
		// (cut between 06-18 and 06-30) carries #42667 (06-12) and #45461
		// (06-16); 0.23.0 was cut on 06-07, before #42667 ("we already cut
		// the commit on Sunday night", its review of 06-11).
		{"deepseek-ai__DeepSeek-V2-Lite", "0.23.0", false, "is_moe and not listed"},
		{"deepseek-ai__DeepSeek-V2-Lite", "0.24.0", true, "#42667 lists DeepseekV2ForCausalLM"},
		{"deepseek-ai__DeepSeek-V2.5", "0.24.0", true, "#42667"},
		{"deepseek-ai__DeepSeek-V2-Lite", "0.25.0", true, "listed, so not judged by is_moe (#44443)"},
		{"deepseek-ai__DeepSeek-V2-Lite", "0.27.1", true, "listed"},
		{"deepseek-ai__DeepSeek-V2-Lite", "0.28.0", true, "listed"},
		{"Qwen__Qwen1.5-MoE-A2.7B", "0.23.0", false, "is_moe and not listed"},
		{"Qwen__Qwen1.5-MoE-A2.7B", "0.24.0", true, "#42667 lists Qwen2MoeForCausalLM"},
		{"Qwen__Qwen1.5-MoE-A2.7B", "main", true, "listed at d18bb7b (vllm/config/vllm.py:72-84)"},
		{"ibm-granite__granite-3.0-3b-a800m-instruct", "0.23.0", false, "is_moe and not listed"},
		{"ibm-granite__granite-3.0-3b-a800m-instruct", "0.24.0", true, "#45461 (06-16) lists GraniteMoeForCausalLM"},
		{"deepseek-ai__DeepSeek-V4-Flash", "0.27.1", false, "is_moe and not listed before #51768"},
		{"deepseek-ai__DeepSeek-V4-Flash", "0.28.0", true, "#51768 (08-11, after 0.27.0rc1's cut of 08-07) lists DeepseekV4ForCausalLM"},
		{"Qwen__Qwen3-30B-A3B", "0.24.0", false, "Qwen3MoeForCausalLM never listed"},
		{"Qwen__Qwen3-30B-A3B", "main", false, "is_moe and not listed"},
		{"deepseek-ai__DeepSeek-V3", "main", false, "DeepseekV3ForCausalLM is not DeepseekV2ForCausalLM"},
		{"mistralai__Mixtral-8x7B-v0.1", "0.25.0", false, "is_moe and not listed"},
		// Dense but hybrid (gated-delta-net or Mamba layers): is_hybrid
		// keeps it on V1 (vllm/config/vllm.py:680-684).
		{"Qwen__Qwen3.5-27B", "0.25.0", false, "is_hybrid"},
		{"Qwen__Qwen3.5-27B", "main", false, "is_hybrid, not listed"},
		{"nvidia__Nemotron-H-56B-Base-8K", "main", false, "is_hybrid"},
		// 0.29.0: every model, mixture-of-experts and hybrid too (#53183).
		{"Qwen__Qwen3-30B-A3B", "0.29.0", true, "#53183"},
		{"deepseek-ai__DeepSeek-V3", "0.29.0", true, "#53183"},
		{"Qwen__Qwen3.5-27B", "0.29.0", true, "#53183"},
		{"nvidia__Nemotron-H-56B-Base-8K", "0.29.0", true, "#53183"},
		{"meta-llama__Llama-3.1-8B-Instruct", "0.29.0", true, "#53183"},
	}
	for _, tt := range tests {
		a, ok := archs[tt.model]
		if !ok {
			t.Fatalf("%s is not shipped", tt.model)
		}
		p := mustProfile(tt.spec)
		if got := p.V2Runner(a); got != tt.want {
			t.Errorf("%s on %s: V2 runner %v, want %v (%s)", tt.model, tt.spec, got, tt.want, tt.why)
		}
		wantGraphs := p.Graphs
		if tt.want && p.Release.Less(Version{0, 29, 0}) {
			wantGraphs = GraphsBeside
		}
		if got := p.GraphsFor(a); got != wantGraphs {
			t.Errorf("%s on %s: graphs %v, want %v", tt.model, tt.spec, got, wantGraphs)
		}
	}
}

// TestV2Architectures pins DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES release by
// release, each list read at the main commits the release's branch was cut
// near (v2oracle.go).
func TestV2Architectures(t *testing.T) {
	tests := []struct {
		v    Version
		want []string
	}{
		{Version{0, 21, 0}, nil},
		{Version{0, 22, 0}, []string{"Qwen3ForCausalLM"}}, // #39337 (ae4f59f0e)
		{Version{0, 23, 0}, []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"}}, // #43458 (da107a59e)
		// #42667 (78739c194) and #45461 (88a9cdd43).
		{Version{0, 24, 0}, []string{"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "LlamaForCausalLM", "MistralForCausalLM", "Qwen2MoeForCausalLM", "Qwen3ForCausalLM"}},
		// #44443 (a2f713002) drops the dense names; #47857 (08dfd6861).
		{Version{0, 25, 0}, []string{"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"}},
		// #48799 (6570c9800).
		{Version{0, 26, 1}, []string{"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM", "InklingForConditionalGeneration", "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"}},
		// #50000 (aeeb36b1f).
		{Version{0, 27, 1}, []string{"DeepseekV2ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM", "InklingForConditionalGeneration", "KimiK3ForConditionalGeneration", "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"}},
		// #51768 (87668ab69): main d18bb7b's vllm/config/vllm.py:72-84.
		{Version{0, 28, 0}, []string{"DeepseekV2ForCausalLM", "DeepseekV4ForCausalLM", "GraniteMoeForCausalLM", "InklingForCausalLM", "InklingForConditionalGeneration", "KimiK3ForConditionalGeneration", "LongcatFlashNgramForCausalLM", "Qwen2MoeForCausalLM"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, V2Architectures(tt.v)); diff != "" {
			t.Errorf("V2Architectures(%s) (-want +got):\n%s", tt.v, diff)
		}
	}
	if diff := cmp.Diff(V2Architectures(Version{0, 28, 0}), V2Architectures(mustProfile("main").Release)); diff != "" {
		t.Errorf("main's list is not 0.28.0's (-0.28.0 +main):\n%s", diff)
	}
}

// TestV0Defaults: the V0 engine batches the whole context up to 32768
// tokens (chunked prefill above), 256 sequences, and allocates 4 GiB of
// CPU swap blocks, which a unified device pays for.
func TestV0Defaults(t *testing.T) {
	archs := shipped(t)
	v0 := mustProfile("0.6.6")
	tests := []struct {
		model      string
		serve      Serve
		mnbt, seqs uint64
	}{
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{MaxModelLen: 20000}, 20000, 256},
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{MaxModelLen: 1024}, 2048, 256},
		{"meta-llama__Llama-3.1-8B-Instruct", Serve{MaxModelLen: 32769}, 2048, 256},
		{"google__gemma-2-9b-it", Serve{}, 8192, 256}, // a sliding window: no chunked prefill
	}
	for _, tt := range tests {
		r, err := Resolve(tt.serve, archs[tt.model], testClass(true), v0)
		if err != nil {
			t.Fatal(err)
		}
		if r.MaxNumBatchedTokens != tt.mnbt || r.MaxNumSeqs != tt.seqs || r.SwapGiB != 4 || r.Async {
			t.Errorf("%s %+v: batched %d, seqs %d, swap %v, async %v; want %d, %d, 4, false", tt.model, tt.serve, r.MaxNumBatchedTokens, r.MaxNumSeqs, r.SwapGiB, r.Async, tt.mnbt, tt.seqs)
		}
	}
	if _, err := Resolve(Serve{MaxModelLen: 8192, MaxNumBatchedTokens: 4096}, archs["meta-llama__Llama-3.1-8B-Instruct"], testClass(false), v0); err == nil {
		t.Error("V0 without chunked prefill accepted a batch smaller than the context")
	}
	zero := 0.0
	r := ref(t, archs["meta-llama__Llama-3.2-1B-Instruct"], Serve{MaxModelLen: 4096}, testClass(true))
	if got := r.Plan().Host; got != 0 {
		t.Errorf("main keeps no swap: host %d", got)
	}
	r, err := NewReference(archs["meta-llama__Llama-3.2-1B-Instruct"], Serve{MaxModelLen: 4096}, testClass(true), v0)
	if err != nil || r.Plan().Host != 4<<30 {
		t.Errorf("V0 on a unified device: host %d, %v; want 4 GiB", r.Plan().Host, err)
	}
	r, err = NewReference(archs["meta-llama__Llama-3.2-1B-Instruct"], Serve{MaxModelLen: 4096, SwapSpaceGiB: &zero}, testClass(true), v0)
	if err != nil || r.Plan().Host != 0 {
		t.Errorf("V0 with --swap-space 0: host %d, %v; want 0", r.Plan().Host, err)
	}
}

// TestSlidingWindowByVersion: gemma-3-27b's sliding layers (window 1024)
// keep window - 1 + one batch of 8192 tokens up to 0.24, every batch in
// flight from 0.25.0 (two under async scheduling), the window alone on V0.
func TestSlidingWindowByVersion(t *testing.T) {
	a := shipped(t)["google__gemma-3-27b-it"]
	tests := []struct {
		spec string
		want uint64
	}{
		{"0.24.0", 1024 - 1 + 8192},
		{"0.25.0", 1024 - 1 + 2*8192},
		{"main", 1024 - 1 + 2*8192},
		{"0.9.2:v0", 1024},
	}
	for _, tt := range tests {
		s := Serve{MaxModelLen: 8192, MaxNumBatchedTokens: 8192}
		r, err := Resolve(s, a, testClass(false), mustProfile(tt.spec))
		if err != nil {
			t.Fatal(err)
		}
		if got := slidingTokens(a.SlidingWindow, &r); got != tt.want {
			t.Errorf("%s: a sliding layer keeps %d tokens, want %d", tt.spec, got, tt.want)
		}
	}
}

// TestLoggedNewReleases: a log of 0.28 or 0.29 is sized under its own
// profile, whose note says how it was read; a log of 0.30 or later is
// refused naming 0.29.0 and asking for --vllm-version, never sized with
// older rules.
func TestLoggedNewReleases(t *testing.T) {
	for log, want := range map[string]string{
		"INFO vLLM API server version 0.28.0\nINFO Available KV cache memory: 1.00 GiB\n":        "0.28.0",
		"INFO Initializing a V1 LLM engine (v0.29.1) with config: model='m'\n":                   "0.29.1",
		"INFO vLLM API server version 0.29.0+cu130\nINFO Available KV cache memory: 1.00 GiB\n":  "0.29.0",
		"INFO Initializing a V1 LLM engine (v0.28.1rc1.dev12+g1234567) with config: model='m'\n": "0.28.1",
	} {
		got, err := chooseProfile(logSource(t, log).Log, "", false)
		if err != nil || got.Profile.Name != want || got.Profile.Note == "" {
			t.Errorf("%q: %s, note %q, %v; want %s with its note", log, got.Profile.Name, got.Profile.Note, err, want)
		}
	}
	for _, v := range []string{"0.30.0", "0.33.0"} {
		_, err := chooseProfile(logSource(t, "INFO vLLM API server version "+v+"\n").Log, "", false)
		if err == nil || !strings.Contains(err.Error(), "the newest release membudget models is 0.29.0") || !strings.Contains(err.Error(), "pass --vllm-version") {
			t.Errorf("a log of %s: %v; want a refusal naming 0.29.0", v, err)
		}
	}
}

// TestGraphChargeByRunner: Llama-3.1-8B runs on the V2 model runner from
// 0.25.0. At TP 1 nothing else differs between 0.28.0 and 0.29.0, so 0.29's
// available KV cache is 0.28's less exactly the CUDA-graph estimate, now
// charged (#53306). Qwen3-30B-A3B, a mixture of experts, ran on V1 in
// 0.28.0 (graphs charged already) and runs on V2 in 0.29.0 (#53183): its
// graph charge is the same, and what changes is the dummy sampler, V2's
// holding the logits alone (peaks.go v2Sampler) where V1's Triton sampler
// held 14 B a logit and its buffer, and the V2 runner's request state
// (v2state.go), which its V1 run did not hold, comes off the KV cache.
func TestGraphChargeByRunner(t *testing.T) {
	archs := shipped(t)
	type terms struct{ avail, graphs, sampler, state uint64 }
	of := func(model, spec string) terms {
		r, err := NewReference(archs[model], Serve{MaxModelLen: 8192}, testClass(false), mustProfile(spec))
		if err != nil {
			t.Fatalf("%s on %s: %v", model, spec, err)
		}
		got := terms{avail: r.AvailableKV(0)}
		for _, it := range r.stages[0].peaks {
			switch it.Term {
			case budget.TermGraphPool:
				got.graphs += it.Bytes
			case budget.TermSampler:
				got.sampler += it.Bytes
			}
			if it.Name == "v2_request_state" {
				got.state += it.Bytes
			}
		}
		return got
	}
	l28, l29 := of("meta-llama__Llama-3.1-8B-Instruct", "0.28.0"), of("meta-llama__Llama-3.1-8B-Instruct", "0.29.0")
	if l28.graphs == 0 || l28.graphs != l29.graphs || l28.sampler != l29.sampler || l28.state == 0 || l28.state != l29.state || l28.avail-l29.avail != l29.graphs {
		t.Errorf("Llama TP 1: 0.28.0 %+v, 0.29.0 %+v; want 0.29's available = 0.28's - the graphs", l28, l29)
	}
	q := archs["Qwen__Qwen3-30B-A3B"]
	if mustProfile("0.28.0").GraphsFor(q) != GraphsCharged || mustProfile("0.29.0").GraphsFor(q) != GraphsCharged {
		t.Error("Qwen3-30B-A3B: graphs not charged on both 0.28.0 (V1) and 0.29.0 (V2)")
	}
	q28, q29 := of("Qwen__Qwen3-30B-A3B", "0.28.0"), of("Qwen__Qwen3-30B-A3B", "0.29.0")
	if q28.graphs != q29.graphs || q29.sampler >= q28.sampler || q28.state != 0 || q29.state == 0 || q29.avail+q29.state-q28.avail != q28.sampler-q29.sampler {
		t.Errorf("Qwen3-30B-A3B: 0.28.0 %+v, 0.29.0 %+v; want the same graphs, and the sampler's difference less the V2 state in the available KV", q28, q29)
	}
}

// TestPropertyNoReleaseSizedWithAnothersRules: every release ProfileFor
// accepts is sized under its own number, and says how its rules were read
// exactly when they were not read from its own source (0.28 and later);
// every release from 0.30.0 is refused naming 0.29.0.
func TestPropertyNoReleaseSizedWithAnothersRules(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		v := Version{0, rapid.IntRange(6, 60).Draw(t, "minor"), rapid.IntRange(0, 12).Draw(t, "patch")}
		p, err := ProfileFor(v.String())
		if v.AtLeast(Version{0, 30, 0}) {
			var se *engine.SettingError
			if !errors.As(err, &se) || !strings.Contains(se.Reason, "the newest release membudget models is 0.29.0") {
				t.Fatalf("%s: %v, want a refusal naming 0.29.0", v, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if p.Release != v || p.Main {
			t.Fatalf("%s sized as %s (main %v)", v, p.Release, p.Main)
		}
		if (p.Note != "") != v.AtLeast(Version{0, 28, 0}) {
			t.Fatalf("%s: note %q", v, p.Note)
		}
	})
}

// TestBnBPluginByRelease: vLLM 0.28.0 moved bitsandbytes out of its tree
// (PR #43529), so a bitsandbytes serve of 0.28.0, 0.29.x and main names the
// plugin it needs; 0.27.1 and older load it themselves, and no other method
// needs a plugin.
func TestBnBPluginByRelease(t *testing.T) {
	cases := []struct {
		spec, method, want string
	}{
		{"0.27.1", "bitsandbytes", ""},
		{"0.19.0", "bitsandbytes", ""},
		{"0.28.0", "bitsandbytes", "vllm-bnb-plugin"},
		{"0.29.0", "bitsandbytes", "vllm-bnb-plugin"},
		{"main", "bitsandbytes", "vllm-bnb-plugin"},
		{"main", "fp8", ""},
		{"main", "", ""},
	}
	for _, c := range cases {
		r := Resolved{Profile: mustProfile(c.spec), Quant: model.Quant{Method: c.method}}
		if got := r.pluginName(); got != c.want {
			t.Errorf("%s, %q: plugin %q, want %q", c.spec, c.method, got, c.want)
		}
		if (r.plugin() != "") != (c.want != "") {
			t.Errorf("%s, %q: note %q beside plugin %q", c.spec, c.method, r.plugin(), c.want)
		}
	}
}

// TestPoolingRunnerStaysOnV1: the oracle asks runner_type == "generate"
// before any list (vllm/config/vllm.py _is_default_v2_model_runner_model,
// since #39337), so a pooling serve runs on the V1 runner up to main
// d18bb7b (PR #48290, pooling on V2, merged after it) and its CUDA-graph
// estimate comes off the budget as V1's does. (The pooling runner is sized
// at main alone.)
func TestPoolingRunnerStaysOnV1(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		model, spec string
		serve       Serve
		v2          bool
	}{
		// Qwen3ForCausalLM, on V2 generating, converted to an embedder.
		{"Qwen__Qwen3-8B", "main", Serve{Runner: "pooling", PoolerConfig: `{"seq_pooling_type": "LAST"}`}, false},
		// An encoder: dense, so on V2 were it generative.
		{"BAAI__bge-base-en-v1.5", "main", Serve{}, false},
		// The same Qwen3 generating: on V2.
		{"Qwen__Qwen3-8B", "main", Serve{}, true},
	}
	for _, tt := range tests {
		p := mustProfile(tt.spec)
		r, err := Resolve(tt.serve, archs[tt.model], testClass(false), p)
		if err != nil {
			t.Fatalf("%s on %s: %v", tt.model, tt.spec, err)
		}
		if got := r.onV2Runner(archs[tt.model]); got != tt.v2 {
			t.Errorf("%s on %s (runner %q): V2 runner %v, want %v", tt.model, tt.spec, r.Runner, got, tt.v2)
		}
		// Graphs are charged from 0.20.0 on V1 and on 0.29's V2 runner,
		// beside the budget on V2 before 0.29.
		wantBeside := budget.TermSet(0)
		if tt.v2 && !p.V2GraphsCharged {
			wantBeside = wantBeside.With(budget.TermGraphPool)
		}
		if got := besideTerms(&r, archs[tt.model]); got != wantBeside {
			t.Errorf("%s on %s: beside %v, want %v", tt.model, tt.spec, got, wantBeside)
		}
	}
}
