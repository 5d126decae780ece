package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
)

var current, _ = vllm.ProfileFor("main")

func TestSizingCommands(t *testing.T) {
	t.Parallel()
	runGolden(t, sizingCases)
}

var sizingCases = []cliCase{
	{"report-llama8b-h100", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g", "--gpu-memory-utilization", "0.9"}, exitOK},
	// --compile-cache cold: the compile's scratch, the table copy
	// 128,256 x 4096 x 2 B = 1,050,673,152 B and the lookup's output 8192 x
	// 4096 x 2 B = 67,108,864 B, less the forward's peak 1,027,604,480 B:
	// 90,177,536 B more activation, 43 blocks of 2 MiB fewer than
	// report-llama8b-h100 (27,918 - 43 = 27,875; 446,000 tokens, the
	// figure that report's first-start line gives). Its kept-segment line:
	// the copy's segment, 501 x 2 MiB exactly, 501 blocks more: 27,374,
	// 437,984 tokens, as the warm report's clause says.
	{"report-llama8b-h100-cold-compile", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g", "--gpu-memory-utilization", "0.9", "--compile-cache", "cold"}, exitOK},
	{"report-llama8b-h100-cold-compile-json", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g", "--gpu-memory-utilization", "0.9", "--compile-cache", "cold", "--json"}, exitOK},
	// VLLM_DISABLE_COMPILE_CACHE=1 in the pasted line: every start is cold,
	// so the serve is report-llama8b-h100-cold-compile's (27,875
	// blocks, 446,000 tokens), the variable listed as read; beside
	// --compile-cache warm it is refused naming both.
	{"report-llama8b-h100-disable-compile-cache", []string{"report", "--class", "h100-sxm-80g", "VLLM_DISABLE_COMPILE_CACHE=1", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--gpu-memory-utilization", "0.9"}, exitOK},
	{"report-disable-compile-cache-warm", []string{"report", "--class", "h100-sxm-80g", "--compile-cache", "warm", "VLLM_DISABLE_COMPILE_CACHE=1", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"}, exitBadArgs},
	{"report-bad-compile-cache", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g", "--compile-cache", "tepid"}, exitBadArgs},
	{"report-llama8b-h100-json", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g", "--json"}, exitOK},
	{"report-llama8b-3090-too-long", []string{"report", "--model", "meta-llama__Llama-3.1-8B-Instruct", "--class", "rtx-3090"}, exitNoFit},
	// Issue 20: Llama-70B on one H100 is offered TP 2 with vLLM's
	// estimated length (21104), TP 2 with online fp8, TP 4 (the file keeps
	// its old name: it once said nothing fits).
	{"report-llama70b-h100-nothing", []string{"report", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--class", "h100-sxm-80g"}, exitNoFit},
	// Issue 20: DeepSeek-V3 on H100s is offered TP 8 x PP 2.
	{"report-deepseek-h100-tp8-pp2", []string{"report", "--model", "deepseek-ai/DeepSeek-V3", "--class", "h100-sxm-80g", "--max-model-len", "32768"}, exitNoFit},
	// Issue 20: Llama-8B on an RTX 4090 is offered online fp8 weights.
	// vLLM 0.20.0 charges its CUDA-graph estimate to the KV budget (V1
	// runner): Llama-3.1-8B on an RTX 4090 at 32,768 tokens starts with
	// 1.11 GiB above its startup check, under the 1.64 GiB the estimate
	// can move ((51 - 1) PIECEWISE + (35 - 1) FULL decode graphs x 20
	// MiB = 1,680 MiB): the report says so, the verdict stays "fits".
	// The same serve on 0.19.0 (graphs beside) has no such note.
	{"report-llama8b-4090-graph-margin", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--vllm-version", "0.20.0", "--max-model-len", "32768"}, exitOK},
	{"report-llama8b-4090-graph-margin-json", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--vllm-version", "0.20.0", "--max-model-len", "32768", "--json"}, exitOK},
	// vLLM turns CUDA graphs off for deepep_high_throughput at DP > 1
	// (vllm/config/compilation.py:1232-1248): DeepSeek-V2-Lite at DP 2 with
	// expert parallelism on 0.29.0, whose V2 runner would charge a 0.76 GiB
	// (818,327,552 B) graph estimate to the KV budget, has no graph pool and
	// keeps 0.28.0's KV cache: 117,332 blocks of 497,664 B (58,392,280,470
	// B of budget), not 115,688 (engine/vllm TestDeepEPHTGraphsOffByHand);
	// a line names the rule.
	{"report-dsv2lite-dp2-deepep-ht-no-graphs", []string{"report", "--model", "deepseek-ai/DeepSeek-V2-Lite", "--class", "h100-sxm-80g", "--vllm-version", "0.29.0", "--max-model-len", "8192", "--data-parallel-size", "2", "--enable-expert-parallel", "--all2all-backend", "deepep_high_throughput"}, exitOK},
	{"report-dsv2lite-dp2-deepep-ht-no-graphs-json", []string{"report", "--model", "deepseek-ai/DeepSeek-V2-Lite", "--class", "h100-sxm-80g", "--vllm-version", "0.29.0", "--max-model-len", "8192", "--data-parallel-size", "2", "--enable-expert-parallel", "--all2all-backend", "deepep_high_throughput", "--json"}, exitOK},
	{"report-llama8b-4090-0.19-no-graph-margin", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--vllm-version", "0.19.0", "--max-model-len", "32768"}, exitOK},
	{"report-llama8b-4090-quantization", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--max-model-len", "65536"}, exitNoFit},
	// Nothing in the space: the plan to run instead.
	{"report-deepseek-4090-plan", []string{"report", "--model", "deepseek-ai/DeepSeek-V3", "--class", "rtx-4090", "--max-model-len", "4096"}, exitNoFit},
	// Issue 13's case: said "nothing fits" while max-len at util 0.95
	// answered 23408 tokens.
	{"report-llama70b-tp2-h100-advice", []string{"report", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--class", "h100-sxm-80g", "--tensor-parallel-size", "2", "--max-model-len", "32768"}, exitNoFit},
	// Qwen3.5-27B is hybrid: at vLLM's default 1024 sequences it has fewer
	// Mamba cache blocks than sequences, and vLLM refuses to start.
	{"report-qwen35-state-blocks", []string{"report", "--model", "Qwen/Qwen3.5-27B", "--class", "h100-sxm-80g", "--max-model-len", "32768"}, exitNoFit},
	{"report-qwen35-state-blocks-fixed", []string{"report", "--model", "Qwen/Qwen3.5-27B", "--class", "h100-sxm-80g", "--max-model-len", "32768", "--max-num-seqs", "256", "--no-enable-prefix-caching"}, exitOK},
	{"report-util-suggestion", []string{"report", "--model", "Qwen/Qwen3-8B", "--class", "a100-40g", "--gpu-memory-utilization", "0.45", "--max-model-len", "16384"}, exitNoFit},
	// The 4 GiB of offloaded weights come out of the unified pool beside
	// the budget: at 0.78 (94.92 GiB) they and the 19.5 GiB the host holds
	// fit in 121.69 GiB; at 0.8 they would not.
	{"report-gb10-unified", []string{"report", "--model", "Qwen/Qwen3-32B-FP8", "--class", "gb10", "--gpu-memory-utilization", "0.78", "--cpu-offload-gb", "4"}, exitOK},
	{"report-deepseek-tp8-h200", []string{"report", "--model", "deepseek-ai/DeepSeek-V3", "--class", "h200", "--tensor-parallel-size", "8", "--max-model-len", "32768"}, exitOK},
	{"max-seqs-llama8b-h100", []string{"max-seqs", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g", "--length", "8192"}, exitOK},
	// Issue 20: a sliding-window model's max-seqs names vLLM's guarantee
	// and the steady state beside it.
	{"max-seqs-gemma3-steady", []string{"max-seqs", "--model", "google/gemma-3-27b-it", "--class", "h100-sxm-80g", "--length", "32768"}, exitOK},
	{"max-seqs-gemma3-steady-json", []string{"max-seqs", "--model", "google/gemma-3-27b-it", "--class", "h100-sxm-80g", "--length", "32768", "--json"}, exitOK},
	{"max-seqs-capped", []string{"max-seqs", "--model", "Qwen/Qwen3-0.6B", "--class", "h200", "--length", "1024"}, exitOK},
	{"max-seqs-nothing", []string{"max-seqs", "--model", "Qwen/Qwen3-235B-A22B", "--class", "h100-sxm-80g", "--tensor-parallel-size", "4", "--length", "4096"}, exitNoFit},
	{"max-len-gemma3-json", []string{"max-len", "--model", "google/gemma-3-27b-it", "--class", "mi300x", "--seqs", "32", "--json"}, exitOK},
	{"max-len-orin", []string{"max-len", "--model", "meta-llama/Llama-3.2-3B-Instruct", "--class", "jetson-agx-orin-64g", "--gpu-memory-utilization", "0.6", "--seqs", "4"}, exitOK},
	{"frontier-csv", []string{"frontier", "--model", "microsoft/phi-4", "--class", "l40s", "--format", "csv", "--max-model-len", "16384"}, exitOK},
	{"bad-model", []string{"report", "--model", "nope/nothing", "--class", "h100-sxm-80g"}, exitBadArgs},
	{"bad-class", []string{"report", "--model", "Qwen/Qwen3-8B", "--class", "A/B"}, exitBadArgs},
	{"bad-flag-value", []string{"report", "--model", "Qwen/Qwen3-8B", "--class", "l4", "--max-model-len", "-5"}, exitBadArgs},
	// An interconnect is spelled exactly, as a class file spells it.
	{"bad-interconnect", []string{"report", "--model", "Qwen/Qwen3-8B", "--class", "rtx-3090", "--tensor-parallel-size", "2", "--interconnect", "NVLink"}, exitBadArgs},
	// Two RTX 3090s joined by an NVLink bridge: the custom all-reduce runs,
	// and NCCL grows as over NVLink; no NVSwitch setup on Ampere.
	{"report-3090-pair-nvlink", []string{"report", "--model", "Qwen/Qwen3-8B", "--class", "rtx-3090", "--tensor-parallel-size", "2", "--interconnect", "nvlink", "--max-model-len", "8192"}, exitOK},
	{"bad-tp", []string{"max-seqs", "--model", "Qwen/Qwen3-8B", "--class", "l4", "--tensor-parallel-size", "3"}, exitBadArgs},
	{"bad-length", []string{"max-seqs", "--model", "Qwen/Qwen3-8B", "--class", "l4", "--length", "999999"}, exitBadArgs},
	{"bad-format", []string{"frontier", "--model", "Qwen/Qwen3-8B", "--class", "l4", "--format", "xml"}, exitBadArgs},
	{"frontier-json-and-csv", []string{"frontier", "--model", "Qwen/Qwen3-8B", "--class", "l4", "--json", "--format", "csv"}, exitBadArgs},
	{"frontier-empty", []string{"frontier", "--model", "Qwen/Qwen3-8B", "--class", "l4", "--max-model-len", "8"}, exitBadArgs},
	{"missing-model", []string{"max-len", "--class", "l4"}, exitBadArgs},
	// vLLM refuses to start these serves (one request of max_model_len
	// does not fit the KV cache), so nothing fits, whatever the footprint
	// of the sequences asked for; the report suggests vLLM's own estimate.
	{"report-llama70b-tp2-does-not-start", []string{"report", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--class", "h100-sxm-80g", "-tp", "2", "--seqs", "3", "--length", "8192"}, exitNoFit},
	// Issue 20: the queries answered beside a line vLLM refuses. With
	// --max-model-len left to vLLM they size at the length asked (max-seqs)
	// or at vLLM's own estimate (max-len), and say so; given, the answer
	// names the flag to change.
	{"max-seqs-llama8b-4090-does-not-start", []string{"max-seqs", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--length", "4096"}, exitOK},
	{"max-len-llama8b-4090-does-not-start", []string{"max-len", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--seqs", "2", "--json"}, exitOK},
	{"max-seqs-llama8b-4090-max-model-len-given", []string{"max-seqs", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--length", "4096", "--max-model-len", "131072"}, exitNoFit},
	{"max-seqs-length-0", []string{"max-seqs", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--length", "0"}, exitBadArgs},
	{"report-length-0", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090", "--length", "0"}, exitBadArgs},
	{"frontier-llama8b-4090-does-not-start", []string{"frontier", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "rtx-4090"}, exitNoFit},
	{"default-util-above-ceiling", []string{"report", "--model", "Qwen/Qwen3-8B", "--class", "gb10"}, exitNoFit},
	// Issue 20: above the class's util_ceiling both margins are positive;
	// the verdict names the ceiling, not "0.00 GiB over device memory".
	{"report-llama8b-h100-util-0.96", []string{"report", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g", "--gpu-memory-utilization", "0.96"}, exitNoFit},
}

// TestQueryAnswersAreChecked runs max-seqs and max-len on every shipped
// config and several classes as a user would, and checks each answer by
// evaluating it and the next value through the model's reference ledger —
// not the plan the command searched.
func TestQueryAnswersAreChecked(t *testing.T) {
	t.Parallel()
	classes := []string{"h100-sxm-80g", "l4", "gb10", "mi300x", "rtx-4090"}
	for _, name := range membudget.ModelNames() {
		data, path, _ := membudget.ModelConfig(name)
		a, err := model.ParseConfig(path, data, shippedQuant(name)...)
		if err != nil {
			t.Fatal(err)
		}
		if err := attachShippedProcessors(a, name); err != nil {
			t.Fatal(err)
		}
		for _, class := range classes {
			c, err := membudget.Kernels().Load(class)
			if err != nil {
				t.Fatal(err)
			}
			util := strconv.FormatFloat(min(0.8, c.Memory.UtilCeiling), 'f', -1, 64)
			// 2048: vLLM's length for a config without a length key
			// (mamba-2.8b-hf's).
			maxPos := a.MaxPosition
			if maxPos == 0 {
				maxPos = 2048
			}
			serve := vllm.Serve{GPUMemoryUtilization: min(0.8, c.Memory.UtilCeiling), MaxModelLen: min(maxPos, 32768)}
			ref, err := vllm.NewReference(a, serve, c, current)
			maxLen := strconv.FormatUint(serve.MaxModelLen, 10)
			// 2048 tokens, or the whole of a shorter model (gpt2-large's 1024).
			length := min(2048, serve.MaxModelLen)
			lengthArg := strconv.FormatUint(length, 10)
			var se *engine.SettingError
			if errors.As(err, &se) {
				// vLLM refuses the serve on this device (DeepSeek V3.2 has
				// no sparse-MLA backend below Hopper): the query says so,
				// naming the flag, exit 2.
				var stdout, stderr bytes.Buffer
				code := run(&stdout, &stderr, []string{"max-seqs", "--model", name, "--class", class, "--gpu-memory-utilization", util, "--max-model-len", maxLen, "--length", lengthArg})
				if code != exitBadArgs || !strings.Contains(stderr.String(), "--"+se.Flag) {
					t.Errorf("%s on %s: exit %d, stderr %q; want exit %d naming --%s", name, class, code, stderr.String(), exitBadArgs, se.Flag)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s on %s: %v", name, class, err)
			}
			// vLLM that refuses to start serves nothing, whatever the ledger.
			starts := ref.Capacity().Refusal(ref.Serve.MaxModelLen, ref.Serve.MaxNumSeqs) == ""
			// An encoder-only model (BERT: 512 positions) is asked within
			// its length, and its answers are capped by its batch of whole
			// sequences: max_num_batched_tokens / length, / 4 sequences.
			length = min(length, ref.Serve.MaxModelLen)
			lengthArg = strconv.FormatUint(length, 10)
			seqsCap, lenCap := ref.Serve.MaxNumSeqs, serve.MaxModelLen
			if a.Encoder != nil {
				seqsCap = min(seqsCap, ref.Serve.MaxNumBatchedTokens/length)
				lenCap = min(ref.Serve.MaxModelLen, ref.Serve.MaxNumBatchedTokens/4)
			}
			for _, q := range []struct {
				cmd, flag, value string
				eval             func(x uint64) bool
				cap              uint64
			}{
				{"max-seqs", "--length", lengthArg, func(x uint64) bool { return starts && ref.Evaluate(x, length).Footprint.Fits() }, seqsCap},
				{"max-len", "--seqs", "4", func(x uint64) bool { return starts && ref.Evaluate(4, x).Footprint.Fits() }, lenCap},
			} {
				var stdout, stderr bytes.Buffer
				code := run(&stdout, &stderr, []string{q.cmd, "--model", name, "--class", class, "--gpu-memory-utilization", util, "--max-model-len", maxLen, q.flag, q.value, "--json"})
				var got queryJSON
				if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
					t.Fatalf("%s %s on %s: exit %d, %v; stderr %s", q.cmd, name, class, code, err, stderr.String())
				}
				switch {
				case !got.Fits:
					if code != exitNoFit || q.eval(1) {
						t.Errorf("%s %s on %s: says nothing fits (exit %d) but 1 fits: %v", q.cmd, name, class, code, q.eval(1))
					}
				case got.Capped:
					if code != exitOK || got.Answer != q.cap || !q.eval(q.cap) {
						t.Errorf("%s %s on %s: capped answer %d, cap %d", q.cmd, name, class, got.Answer, q.cap)
					}
				default:
					if code != exitOK || !q.eval(got.Answer) || q.eval(got.Answer+1) {
						t.Errorf("%s %s on %s: answer %d: fits %v, next fits %v", q.cmd, name, class, got.Answer, q.eval(got.Answer), q.eval(got.Answer+1))
					}
				}
			}
		}
	}
}

func TestFrontierSVGAndCSV(t *testing.T) {
	t.Parallel()
	svg := filepath.Join(t.TempDir(), "f.svg")
	var stdout, stderr bytes.Buffer
	code := run(&stdout, &stderr, []string{"frontier", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "l4", "--gpu-memory-utilization", "0.95", "--max-model-len", "32768", "--format", "csv", "--svg", svg})
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	recs, err := csv.NewReader(&stdout).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if recs[0][0] != "length" || recs[1][0] != "16" || recs[len(recs)-1][0] != "32768" {
		t.Errorf("grid runs %s..%s, want block size 16 to max_model_len 32768", recs[1][0], recs[len(recs)-1][0])
	}
	prev := uint64(1 << 62)
	for _, r := range recs[1:] {
		n, _ := strconv.ParseUint(r[1], 10, 64)
		if n > prev {
			t.Errorf("max_seqs rises from %d to %d at length %s: the frontier must not", prev, n, r[0])
		}
		prev = n
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "tokens per sequence", "most sequences that fit", "--max-num-seqs 256", "<polyline", "</svg>"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// TestServeCommandRoundTrips: the `vllm serve` line a report prints, given
// back to membudget as it is, sizes the same serve: every resolved setting
// and the footprint agree.
func TestServeCommandRoundTrips(t *testing.T) {
	t.Parallel()
	cases := [][]string{
		{"--model", "meta-llama/Llama-3.1-8B-Instruct", "--class", "h100-sxm-80g"},
		{"--model", "google/gemma-3-27b-it", "--class", "mi300x", "--max-model-len", "32k", "--no-async-scheduling", "--kv-cache-dtype", "fp8"},
		{"--model", "deepseek-ai/DeepSeek-V3", "--class", "b200", "-tp", "8", "--max-model-len", "auto", "--enforce-eager"},
		{"--model", "Qwen/Qwen3-30B-A3B", "--class", "l40s", "-tp", "2", "-dp", "2", "-ep", "--kv-cache-memory-bytes", "8G", "--max-model-len", "16K"},
		{"--model", "meta-llama/Llama-3.1-70B-Instruct", "--class", "h200", "-pp", "3", "--cpu-offload-gb", "2.5", "--quantization", "fp8"},
		{"--model", "meta-llama/Llama-3.2-1B-Instruct", "--class", "l4", "--max-model-len", "200000", "--allow-long-max-model-len", "--block-size", "32"},
	}
	for _, args := range cases {
		first := reportServe(t, testApp(), append([]string{"report", "--json"}, args...))
		line := strings.Fields(first.Serve.Command)
		if len(line) > 0 && strings.HasPrefix(line[0], "VLLM_ALLOW_LONG_MAX_MODEL_LEN=") {
			line = append([]string{"--allow-long-max-model-len"}, line[1:]...)
		}
		class := args[slicesIndex(args, "--class")+1]
		again := reportServe(t, testApp(), append([]string{"report", "--json", "--class", class}, line...))
		first.Serve.Defaults, again.Serve.Defaults = nil, nil
		if diff := cmp.Diff(first, again); diff != "" {
			t.Errorf("%s: the printed line sizes another serve (-first +again):\n%s", first.Serve.Command, diff)
		}
	}
}

func reportServe(t *testing.T, a *app, args []string) reportJSON {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := a.run(&stdout, &stderr, args)
	var got reportJSON
	if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("membudget %s: exit %d, %v; stderr %s", strings.Join(args, " "), code, err, stderr.String())
	}
	return got
}

func slicesIndex(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

func TestPlanCommand(t *testing.T) {
	t.Parallel()
	runGolden(t, planCases)
}

var planCases = []cliCase{
	{"plan-70b", []string{"plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--length", "32768", "--concurrency", "16", "--classes", "h100-sxm-80g,H200", "--top", "4"}, exitOK},
	{"plan-70b-json", []string{"plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--length", "32768", "--concurrency", "16", "--classes", "h200", "--max-gpus", "2", "--top", "2", "--json"}, exitOK},
	{"plan-nothing", []string{"plan", "--model", "deepseek-ai/DeepSeek-V3", "--length", "4096", "--concurrency", "1", "--classes", "rtx-4090", "--max-gpus", "2"}, exitNoFit},
	{"plan-no-length", []string{"plan", "--model", "Qwen/Qwen3-8B", "--concurrency", "1"}, exitBadArgs},
	{"plan-bad-class", []string{"plan", "--model", "Qwen/Qwen3-8B", "--length", "8", "--concurrency", "1", "--classes", "h100,,l4"}, exitBadArgs},
	// Qwen3-0.6B's max_position_embeddings is 40960: a longer length is
	// refused on every device, unless allowed as vLLM's env var allows it
	// (then each command sets the variable).
	{"plan-beyond-the-model", []string{"plan", "--model", "Qwen/Qwen3-0.6B", "--length", "65536", "--concurrency", "1", "--classes", "l4"}, exitBadArgs},
	{"plan-allow-long", []string{"plan", "--model", "Qwen/Qwen3-0.6B", "--length", "65536", "--concurrency", "1", "--classes", "l4", "--allow-long-max-model-len", "--top", "1"}, exitOK},
	// LoRA kept fixed: every command carries it, its slots charged; on a
	// MoE model it is refused by name before any search.
	{"plan-lora", []string{"plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--length", "8192", "--concurrency", "64", "--classes", "l4,h100-sxm-80g", "--enable-lora", "--max-loras", "4", "--max-lora-rank", "64", "--top", "2"}, exitOK},
	// Speculative decoding kept fixed: every command carries the JSON; a
	// drafter's CUDA graphs under cudagraph_mode FULL (the attention
	// backend decides whether they are captured) are refused by name
	// before any search.
	{"plan-spec-ngram", []string{"plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--length", "8192", "--concurrency", "64", "--classes", "l4,h100-sxm-80g", "--speculative-config", `{"method": "ngram", "num_speculative_tokens": 3}`, "--top", "2"}, exitOK},
	{"plan-spec-mtp-refused", []string{"plan", "--model", "deepseek-ai/DeepSeek-V3", "--length", "8192", "--concurrency", "8", "--classes", "h200", "--speculative-config", `{"method": "mtp", "num_speculative_tokens": 1}`, "--compilation-config", `{"cudagraph_mode": "FULL"}`}, exitBadArgs},
	// --compilation-config's keys that change no memory: listed as
	// ignored, left out of every command.
	{"plan-compilation-ignored", []string{"plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--length", "8192", "--concurrency", "8", "--classes", "h100-sxm-80g", "--max-gpus", "1", "--top", "1", "--compilation-config", `{"cache_dir": "/c", "cudagraph_mode": "FULL_DECODE_ONLY"}`}, exitOK},
	// -O0 compiles nothing (mode NONE): no note of a first start's cold
	// torch.compile (engine/vllm/coldcompile.go).
	{"plan-O0", []string{"plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--length", "8192", "--concurrency", "8", "--classes", "h100-sxm-80g", "--max-gpus", "1", "--top", "1", "-O", "0"}, exitOK},
	// --compile-cache cold: each deployment 1 GiB a GPU short of the warm
	// one, 8,192 tokens of Llama-3.1-8B (128 KiB a token): one sequence
	// of 8,192 fewer (56 -> 55), 48.11 -> 47.11 GiB of headroom.
	{"plan-cold-compile", []string{"plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--length", "8192", "--concurrency", "8", "--classes", "h100-sxm-80g", "--max-gpus", "1", "--top", "1", "--compile-cache", "cold"}, exitOK},
	{"plan-lora-moe-refused", []string{"plan", "--model", "Qwen/Qwen3-30B-A3B", "--length", "8192", "--concurrency", "64", "--classes", "h100-sxm-80g", "--enable-lora"}, exitBadArgs},
	// DeepSeek-V3 on H100s: TP 8 x PP 2 on two nodes, first of the 16-GPU
	// rows (tensor ranks within a node before more pipeline stages).
	{"plan-deepseek-h100-tp8-pp2", []string{"plan", "--model", "deepseek-ai/DeepSeek-V3", "--length", "32768", "--concurrency", "8", "--classes", "h100-sxm-80g", "--max-gpus", "16", "--top", "3"}, exitOK},
	// One node of 8 bounds it: nothing.
	{"plan-deepseek-h100-one-node", []string{"plan", "--model", "deepseek-ai/DeepSeek-V3", "--length", "32768", "--concurrency", "8", "--classes", "h100-sxm-80g", "--max-gpus", "16", "--max-nodes", "1"}, exitNoFit},
	// Priced: two H100s at 2.49 (4.98 an hour) against one H200 at 3.79.
	{"plan-price", []string{"plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--length", "8192", "--concurrency", "4", "--classes", "h100-sxm-80g,h200", "--price", "h100-sxm-80g=2.49", "--price", "h200=3.79", "--top", "4"}, exitOK},
	{"plan-prefer-throughput", []string{"plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--length", "32768", "--concurrency", "16", "--classes", "h200", "--max-gpus", "4", "--prefer", "throughput", "--top", "4"}, exitOK},
	{"plan-pin-kv-cache", []string{"plan", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--length", "8192", "--concurrency", "8", "--classes", "l4", "--max-gpus", "1", "--pin-kv-cache", "--margin", "10"}, exitOK},
	{"plan-bad-prefer", []string{"plan", "--model", "Qwen/Qwen3-8B", "--length", "8", "--concurrency", "1", "--prefer", "cost"}, exitBadArgs},
	{"plan-bad-price", []string{"plan", "--model", "Qwen/Qwen3-8B", "--length", "8", "--concurrency", "1", "--price", "h100-sxm-80g"}, exitBadArgs},
	{"plan-price-not-searched", []string{"plan", "--model", "Qwen/Qwen3-8B", "--length", "8", "--concurrency", "1", "--classes", "l4", "--price", "h200=3"}, exitBadArgs},
	{"plan-bad-margin", []string{"plan", "--model", "Qwen/Qwen3-8B", "--length", "8", "--concurrency", "1", "--margin", "100"}, exitBadArgs},
}
