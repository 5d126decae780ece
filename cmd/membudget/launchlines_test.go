package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
	"membudget/engine/vllm"
)

// launchLine is one entry of testdata/launchlines.txt: a launch line as
// published, with its source and the vLLM release it was written for.
type launchLine struct {
	source, release string
	words           []string
}

// readLaunchLines reads testdata/launchlines.txt (its format is described
// at its top).
func readLaunchLines(t *testing.T) []launchLine {
	t.Helper()
	f, err := os.Open("testdata/launchlines.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []launchLine
	var cur launchLine
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "# source: "):
			cur = launchLine{source: strings.TrimPrefix(line, "# source: ")}
		case strings.HasPrefix(line, "# release: "):
			cur.release = strings.TrimPrefix(line, "# release: ")
		case strings.HasPrefix(line, "#"):
		default:
			words, err := shellWords(line)
			if err != nil || cur.source == "" {
				t.Fatalf("testdata/launchlines.txt: %q: want a line after its source (%v)", line, err)
			}
			cur.words = words
			out = append(out, cur)
			cur = launchLine{}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shellWords splits a line as a POSIX shell does for the quoting the file
// uses: words by spaces, '...' and "..." each one word's part.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, fmt.Errorf("unclosed %c", c)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

func TestShellWords(t *testing.T) {
	got, err := shellWords(`A=1 vllm serve M --sc '{"method": "eagle3"}' --x="a b"`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A=1", "vllm", "serve", "M", "--sc", `{"method": "eagle3"}`, "--x=a b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shellWords (-want +got):\n%s", diff)
	}
}

// refusedByName matches the refusals a production line may meet: a flag
// that changes memory in ways membudget does not model, refused naming
// what it would add; or a flag the profile's release does not have, which
// vLLM itself refuses ("not a flag of vLLM 0.19.0 (vLLM 0.18.0 removed
// it, ...)", or as the resolved serve says it: "--swap-space 4: vLLM
// 0.19.0 has no --swap-space: ...", "--speculative-config eagle3: the
// EAGLE-3 drafter's own CUDA graphs ...: not modelled ..."); the group is
// the flag.
var refusedByName = regexp.MustCompile(`^membudget report: (-{1,2}[a-zA-Z0-9_.-]+)(?: \((?:method|connector) "[A-Za-z0-9_]+"\)| [A-Za-z0-9_.]+)?(?:: .+: not modelled for vLLM .+; membudget refuses it rather than size a serve vLLM would contradict| is not a flag of vLLM .+: its nearest is --[a-z0-9-]+| \S+: vLLM .+ has no --[a-z0-9-]+: .+| \S+: vLLM .+ refuses it: .+)\n$`)

// draftOffline matches the error of a line whose --speculative-config
// names a draft by a Hub id that an offline run cannot read (the EAGLE
// drafts sized with CUDA graphs read it before any other refusal); the
// group is the draft's id.
var draftOffline = regexp.MustCompile(`^membudget report: --speculative-config [a-z0-9_]+: the draft --model "([^"]+)": no such file, no shipped model, not in the Hugging Face cache \(~/\.cache/huggingface/hub\), and offline \(HF_HUB_OFFLINE=1\)\n$`)

// refusedEnv matches the refusal of a line's environment assignment that
// names the engine era or the memory it would add; the group is the
// assignment.
var refusedEnv = regexp.MustCompile(`^membudget report: ([A-Z0-9_]+=\S*) in the launch line: (?:the V[01] engine, which vLLM .+ does not size: give .+|.+: not modelled for vLLM .+)\n$`)

// TestProductionLaunchLines reads every line of testdata/launchlines.txt,
// public launch lines each with its source, under every vLLM profile of
// the README's table (vllm.Profiles) and the release the line was written
// for: each is
// answered (exit 0, fits, or 1, does not), or refused by naming one of the
// line's own flags with the memory it would add, or as not a flag of the
// profile's release; never the flag package's raw error, and never a flag
// the line does not carry (an environment assignment of the line may be
// refused the same way).
func TestProductionLaunchLines(t *testing.T) {
	lines := readLaunchLines(t)
	if len(lines) < 30 {
		t.Fatalf("testdata/launchlines.txt holds %d lines, want at least 30", len(lines))
	}
	a := testApp()
	answered := map[string]int{}
	for _, l := range lines {
		if !strings.HasPrefix(l.source, "https://") {
			t.Errorf("%q: source %q is not a URL", strings.Join(l.words, " "), l.source)
		}
		var releases []string
		for _, p := range vllm.Profiles() {
			releases = append(releases, p.Name)
		}
		if l.release != "" {
			releases = append(releases, l.release)
		}
		flags := map[string]bool{}
		for _, w := range l.words {
			if strings.HasPrefix(w, "-") {
				flags[engine.FlagName(w)] = true
			}
		}
		if l.words[0] == "-O3" {
			flags["optimization-level"] = true
		}
		for _, r := range releases {
			args := append([]string{"report", "--class", "h100-sxm-80g", "--vllm-version", r}, l.words...)
			var stdout, stderr bytes.Buffer
			code := a.run(&stdout, &stderr, args)
			answered[fmt.Sprint(code)]++
			if code == 0 || code == 1 {
				continue
			}
			if m := refusedEnv.FindStringSubmatch(stderr.String()); m != nil && slices.Contains(l.words, m[1]) {
				continue
			}
			if m := draftOffline.FindStringSubmatch(stderr.String()); m != nil && strings.Contains(strings.Join(l.words, " "), `"`+m[1]+`"`) {
				// The line's draft, named by its Hub id, is an input the
				// test's offline cache does not hold, as --model would be.
				continue
			}
			m := refusedByName.FindStringSubmatch(stderr.String())
			if m == nil || !flags[engine.FlagName(m[1])] {
				t.Errorf("membudget %s\n(source %s): exit %d, want 0, 1 or a refusal naming one of the line's flags; stderr:\n%s", strings.Join(args, " "), l.source, code, stderr.String())
			}
		}
	}
	t.Logf("%d lines; exits %v", len(lines), answered)
}

// TestLaunchLineForms pins the layout of a report of production lines in
// each form (testdata/launchlines.txt holds their sources): the
// container's arguments, the API server's module with an environment
// prefix and flags that do not change memory, and a refusal by name.
func TestLaunchLineForms(t *testing.T) {
	runGolden(t, []cliCase{
		{"line-container-form", []string{"report", "--class", "h100-sxm-80g",
			"--model", "Qwen/Qwen2.5-7B-Instruct", "--max_model_len", "1024", "--api-key", "test_api_key", "--gpu_memory_utilization", "0.7"}, 0},
		{"line-api-server-env", []string{"report", "--class", "h100-sxm-80g",
			"CUDA_VISIBLE_DEVICES=0,1", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", "python3", "-m", "vllm.entrypoints.openai.api_server",
			"--model", "google/gemma-2-9b-it", "--gpu-memory-utilization", "0.9", "--tensor-parallel-size", "2",
			"--host", "0.0.0.0", "--port", "8000", "--served-model-name", "a", "b", "--max-logprobs", "40", "-O2"}, 0},
		// LoRA sized: the slots are a line of the footprint, the launch line
		// carries the LoRA flags and the adapters as given.
		{"line-lora", []string{"report", "--class", "h100-sxm-80g",
			"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--enable-lora", "--max-loras", "4", "--max-lora-rank", "64",
			"--lora-modules", "sql=testdata/adapter-r64", `{"name": "chat", "path": "org/chat-lora"}`}, 0},
		// An adapter of rank 64 above --max-lora-rank 16: vLLM stops at startup.
		{"line-lora-rank-above", []string{"report", "--class", "h100-sxm-80g",
			"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--enable-lora", "--lora-modules", "sql=testdata/adapter-r64"}, 2},
		// Before 0.14.0 LoRA is refused by name, with what it would add.
		{"line-lora-refused", []string{"report", "--class", "h100-sxm-80g", "--vllm-version", "0.13.0",
			"vllm", "serve", "meta-llama/Llama-2-7b-hf", "--enable-lora", "--max-loras", "4", "--max-lora-rank", "8"}, 2},
		// From 0.14.0 the same line is sized, with main's slot shapes.
		{"line-lora-0140", []string{"report", "--class", "h100-sxm-80g", "--vllm-version", "0.14.0",
			"vllm", "serve", "meta-llama/Llama-2-7b-hf", "--enable-lora", "--max-loras", "4", "--max-lora-rank", "8"}, 0},
		// ngram speculative decoding sized: the rejection sampler is a line
		// of the footprint, the launch line carries the JSON as given, async
		// scheduling is off; an EAGLE-3 draft by its Hub id under 0.29.0,
		// which runs Llama on the V2 model runner: its speculator, not read
		// at that release, is refused by name before the draft is read.
		{"line-spec-ngram", []string{"report", "--class", "h100-sxm-80g",
			"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192",
			"--speculative-config", `{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 4}`}, 0},
		{"line-spec-eagle3-refused", []string{"report", "--class", "h100-sxm-80g", "--vllm-version", "0.29.0",
			"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct",
			"--speculative-config", `{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}`}, 2},
		{"line-not-a-flag-of-release", []string{"report", "--class", "h100-sxm-80g", "--vllm-version", "0.19.0",
			"vllm", "serve", "Qwen/Qwen3-8B", "--disable-log-requests"}, 2},
		// vLLM's own --attention-backend (PR #26315), not SGLang's.
		{"line-attention-backend-vllms-own", []string{"report", "--class", "h100-sxm-80g",
			"vllm", "serve", "Qwen/Qwen3-8B", "--attention-backend", "FLASHINFER"}, 2},
		// A flag of vLLM that budget does not take: named as budget's.
		{"budget-vllm-flag-not-its-own", []string{"budget", "--class", "h100-sxm-80g", "--max-model-len", "8k"}, 2},
		{"line-config-file-unread", []string{"report", "--class", "h100-sxm-80g",
			"vllm", "serve", "Qwen/Qwen3-8B", "--config", "testdata/no-such-config.yaml"}, 2},
		// The vLLM recipe's Qwen2.5-VL line (launchlines.txt): the data-parallel
		// encoder sized, the tower replicated on the 4 GPUs (a line says what
		// it adds), each encoding its share of the items, the encoder cache
		// the all-gather's 4 items' rows; Gemma 3, which vLLM falls back to
		// weights for, said so.
		{"line-mm-encoder-data", []string{"report", "--class", "h100-sxm-80g",
			"CUDA_VISIBLE_DEVICES=0,1,2,3", "vllm", "serve", "Qwen/Qwen2.5-VL-7B-Instruct", "--host", "0.0.0.0", "--port", "8000",
			"--tensor-parallel-size", "4", "--mm-encoder-tp-mode", "data", "--limit-mm-per-prompt", `{"image":2,"video":0}`}, 0},
		{"line-mm-encoder-data-fallback", []string{"report", "--class", "h100-sxm-80g",
			"vllm", "serve", "google/gemma-3-27b-it", "--tensor-parallel-size", "2", "--mm-encoder-tp-mode", "data", "--max-model-len", "8192"}, 0},
	})
}
