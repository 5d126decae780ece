package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSGLangFlagsByRelease: under each modelled SGLang release a flag of
// each kind is read as that release has it: a refused one exits 2 naming
// the flag and what it would add, one the release has not exits 2 as
// "not a flag of" it, and one that does not change memory, given on the
// command or in a pasted launch line, is answered and listed as ignored.
func TestSGLangFlagsByRelease(t *testing.T) {
	t.Parallel()
	m := []string{"report", "--engine", "sglang", "--model", "Qwen/Qwen3-8B", "--class", "h100-sxm-80g"}
	line := []string{"python", "-m", "sglang.launch_server"}
	for _, tc := range []struct {
		release string
		args    []string
		exit    int
		want    string
	}{
		{"v0.5.6.post2", []string{"--enable-lora"}, exitBadArgs, "--enable-lora: LoRA adapters (each adapter slot's A and B buffers per layer and module, up to --max-loras-per-batch, at --max-lora-rank): not modelled for SGLang v0.5.6.post2 (commit 5c8bd8b, 2025-12-11)"},
		{"v0.4.9.post2", []string{"--enable-lora"}, exitBadArgs, "--enable-lora is not a flag of SGLang v0.4.9.post2 (it came in v0.5.6.post2, server_args.py:2872 there): its nearest is --enable-eplb"},
		{"v0.4.9.post2", append(line, "--lora-paths", "a=x", "b=y"), exitBadArgs, "--lora-paths: LoRA adapters"},
		{"v0.5.6.post2", append(line, "--speculative-algorithm", "EAGLE3", "--speculative-num-steps", "3"), exitBadArgs, "--speculative-algorithm EAGLE3: the CUDA graphs of speculative decoding"},
		{"v0.5.6.post2", append(line, "--speculative-algorithm", "EAGLE3", "--disable-cuda-graph"), exitBadArgs, "--speculative-draft-model-path: missing: SGLang's EAGLE3 loads its draft from it"},
		{"v0.5.6.post2", append(line, "--speculative-token-map", "m.txt"), exitBadArgs, "--speculative-token-map: speculative decoding (its draft model's weights and KV pool, and the draft tokens in the request pools): not modelled for SGLang v0.5.6.post2"},
		{"v0.4.9.post2", append(line, "--speculative-algorithm", "EAGLE3", "--disable-cuda-graph"), exitBadArgs, "--speculative-algorithm EAGLE3: speculative decoding is modelled for SGLang v0.5.6.post2, v0.5.6.post3, v0.5.7, v0.5.8, v0.5.8.post1, v0.5.9, v0.5.10, v0.5.10.post1, v0.5.11, v0.5.12, v0.5.12.post1, v0.5.13, v0.5.13.post1, v0.5.14, v0.5.15, v0.5.15.post1, v0.5.16, v0.5.17, v0.5.18, whose rules were read; not for SGLang v0.4.9.post2"},
		{"v0.4.9.post2", []string{"--enable-hierarchical-cache"}, exitBadArgs, "--enable-hierarchical-cache: the hierarchical cache"},
		{"v0.5.6.post2", append(line, "--cuda-graph-bs", "1", "2", "4"), exitBadArgs, "--cuda-graph-bs: CUDA graphs of a capture list other than the default's"},
		{"v0.5.6.post2", []string{"--impl", "auto"}, exitBadArgs, "--impl is not a flag of SGLang v0.5.6.post2 (it is v0.4.9.post2's, server_args.py:773 there, and gone by v0.5.6.post2): its nearest is --model-impl"},
		{"v0.5.6.post2", []string{"--tp_size", "2"}, exitBadArgs, "--tp_size is not a flag of SGLang v0.5.6.post2 (its argparse reads dashes, not underscores): its nearest is --tp-size"},
		{"v0.4.9.post2", []string{"--mem-frac", "0.8"}, exitBadArgs, "--mem-frac: SGLang v0.4.9.post2 (commit eb118d8, 2025-07-11)'s argparse takes it for --mem-fraction-static"},
		// In a pasted line a single dash is none of SGLang's flags.
		{"v0.5.6.post2", append(line, "-tp", "2"), exitBadArgs, "-tp is not a flag of SGLang v0.5.6.post2 (its argparse reads two dashes): its nearest is --tp"},
		// In a pasted line argparse's abbreviation is the flag it
		// abbreviates, as SGLang reads it.
		{"v0.5.6.post2", append(line, "--mem-frac", "0.8"), exitOK, "python -m sglang.launch_server --model-path Qwen/Qwen3-8B --mem-fraction-static 0.8 "},
		{"v0.5.6.post2", append(line, "--host", "0.0.0.0", "--numa-node", "0", "1", "--cpu-offload-gb", "0", "--enable-metrics"), exitOK, "ignored --numa-node=0 1: it does not change memory"},
		{"v0.4.9.post2", []string{"--trust-remote-code", "--disaggregation-mode", "null", "--tp", "1"}, exitOK, "ignored --disaggregation-mode null: it does not change memory"},
	} {
		var stdout, stderr bytes.Buffer
		args := append(append(append([]string{}, m...), "--sglang-version", tc.release), tc.args...)
		code := run(&stdout, &stderr, args)
		out := stderr.String()
		if tc.exit == exitOK {
			out = stdout.String()
		}
		if code != tc.exit || !strings.Contains(out, tc.want) {
			t.Errorf("membudget %s: exit %d, stdout %q, stderr %q; want exit %d and %q", strings.Join(args, " "), code, stdout.String(), stderr.String(), tc.exit, tc.want)
		}
	}
}

// TestSGLangSpeculativeLine: a pasted launch line with an EAGLE-3 draft
// directory is sized: the draft's terms in the ledger by name, its pool's
// log line beside the target's, its flags in the printed launch line.
func TestSGLangSpeculativeLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's shape; Qwen3-8B's hidden size
	// is 4096 too.
	config := `{"architectures": ["LlamaForCausalLMEagle3"], "hidden_size": 4096, "intermediate_size": 14336,
		"max_position_embeddings": 2048, "model_type": "llama", "num_attention_heads": 32, "num_key_value_heads": 8,
		"num_hidden_layers": 1, "rms_norm_eps": 1e-05, "tie_word_embeddings": false, "torch_dtype": "float16",
		"vocab_size": 128256, "draft_vocab_size": 32000}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"report", "--engine", "sglang", "--model", "Qwen/Qwen3-8B", "--class", "h100-sxm-80g",
		"python", "-m", "sglang.launch_server", "--speculative-algorithm", "EAGLE3", "--speculative-draft-model", dir,
		"--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--disable-cuda-graph", "--dtype", "bfloat16"}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, args); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	out := stdout.String()
	for _, want := range []string{
		"--max-running-requests 48 ",
		"--speculative-algorithm EAGLE3 --speculative-draft-model-path " + dir + " --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
		"spec_draft.kv_cache", "spec_draft.fc", "kv_cache.spec_headroom",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "KV Cache is allocated. #tokens: "); n != 2 {
		t.Errorf("%d pool lines, want the target's and the draft's:\n%s", n, out)
	}
}
