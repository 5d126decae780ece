package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

// writeEagle3Dir writes a local EAGLE-3 draft directory: the shipped
// config (corpus/models/drafts, SpecForge's llama3-8B-eagle3) and a
// model.safetensors of its tensors as SpecForge saves them, the data a
// sparse hole of the right size (only the header is read).
func writeEagle3Dir(t *testing.T) string {
	t.Helper()
	f16 := func(name string, shape ...uint64) safetensors.Tensor {
		return safetensors.Tensor{Name: name, Dtype: "F16", Shape: shape}
	}
	return writeDraftDir(t, "../../corpus/models/drafts/sgl-project__SpecForge__llama3-8B-eagle3.json", []safetensors.Tensor{
		{Name: "d2t", Dtype: "I64", Shape: []uint64{31960}},
		f16("fc.weight", 4096, 12288), f16("lm_head.weight", 31960, 4096),
		f16("midlayer.hidden_norm.weight", 4096), f16("midlayer.input_layernorm.weight", 4096),
		f16("midlayer.mlp.down_proj.weight", 4096, 14336), f16("midlayer.mlp.gate_proj.weight", 14336, 4096),
		f16("midlayer.mlp.up_proj.weight", 14336, 4096), f16("midlayer.post_attention_layernorm.weight", 4096),
		f16("midlayer.self_attn.k_proj.weight", 1024, 8192), f16("midlayer.self_attn.o_proj.weight", 4096, 4096),
		f16("midlayer.self_attn.q_proj.weight", 4096, 8192), f16("midlayer.self_attn.v_proj.weight", 1024, 8192),
		f16("norm.weight", 4096), {Name: "t2d", Dtype: "BOOL", Shape: []uint64{128256}},
	})
}

// writeDraftDir writes a local draft directory: the shipped config at
// configPath as config.json, and a model.safetensors of tensors whose data
// is a sparse hole of the right size (only the header is read).
func writeDraftDir(t *testing.T, configPath string, tensors []safetensors.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	cfg, err := os.ReadFile(configPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	head, data, err := safetensors.Encode(tensors, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "model.safetensors")
	if err := os.WriteFile(file, head, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, int64(len(head))+int64(data)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// eagle3Line is the production EAGLE-3 serve of Llama-3.1-8B with the
// draft in dir: three speculative tokens, 8,192 tokens of context.
func eagle3Line(dir string) []string {
	return []string{"vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192",
		"--speculative-config", `{"method":"eagle3","model":"` + dir + `","num_speculative_tokens":3}`}
}

// TestV2Eagle3LineWithGraphs: a production EAGLE-3 line with CUDA graphs
// (no --enforce-eager) on main, 0.28 and 0.27, which run Llama on the V2
// model runner, is answered: the ledger names the drafter's graphs beside
// the target's, and the speculative-decoding line says what each of the
// speculator's sets captures (on 0.27.0 one draft step a decode graph).
// 0.29, whose V2 graph reservation membudget has not read, stays refused
// by name.
func TestV2Eagle3LineWithGraphs(t *testing.T) {
	t.Parallel()
	line := eagle3Line(writeEagle3Dir(t))
	for _, version := range []string{"main", "0.28.0", "0.27.1", "0.27.0"} {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, append([]string{"report", "--class", "h100-sxm-80g", "--vllm-version", version}, line...))
		if code != exitOK && code != exitNoFit {
			t.Fatalf("%s: exit %d, want 0 or 1: %s", version, code, stderr.String())
		}
		out := stdout.String()
		for _, want := range []string{"draft CUDA graphs", "the V2 speculator's", "PIECEWISE prefill graphs", "FULL decode graphs", "beside the KV budget"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the report lacks %q:\n%s", version, want, out)
			}
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run(&stdout, &stderr, append([]string{"report", "--class", "h100-sxm-80g", "--vllm-version", "0.29.0"}, line...)); code != exitBadArgs || !strings.Contains(stderr.String(), "PR #53306") {
		t.Errorf("0.29.0: exit %d, stderr %q; want 2 and the refusal naming PR #53306", code, stderr.String())
	}
}

// TestV2Eagle3LineBefore027: the same line under 0.23.0 to 0.26.1, which
// run Llama on the V2 model runner with main's eager speculator, is
// answered with --enforce-eager (the buffers a line of the ledger from
// 0.26.1, and said to stand beside the budget before), and refused by
// name with its graphs, whose decode set records one draft step a graph
// as 0.27.0's does (before PR #46849) but whose capture predates PR
// #49364.
func TestV2Eagle3LineBefore027(t *testing.T) {
	t.Parallel()
	line := eagle3Line(writeEagle3Dir(t))
	for _, tc := range []struct{ version, says string }{
		{"0.23.0", "not charged before 0.26.1"},
		{"0.26.0", "not charged before 0.26.1"},
		{"0.26.1", "V2 speculator buffers"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(&stdout, &stderr, append([]string{"report", "--class", "h100-sxm-80g", "--vllm-version", tc.version}, append(line, "--enforce-eager")...))
		if code != exitOK && code != exitNoFit {
			t.Fatalf("%s eager: exit %d, want 0 or 1: %s", tc.version, code, stderr.String())
		}
		for _, want := range []string{"the V2 model runner's speculator", "draft profile run", tc.says} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s eager: the report lacks %q:\n%s", tc.version, want, stdout.String())
			}
		}
		stdout.Reset()
		stderr.Reset()
		code = run(&stdout, &stderr, append([]string{"report", "--class", "h100-sxm-80g", "--vllm-version", tc.version}, line...))
		if code != exitBadArgs || !strings.Contains(stderr.String(), "--speculative-config") || !strings.Contains(stderr.String(), "PR #49364") || !strings.Contains(stderr.String(), "pass --enforce-eager") {
			t.Errorf("%s with graphs: exit %d, stderr %q; want 2 and the refusal naming --speculative-config and PR #49364", tc.version, code, stderr.String())
		}
	}
}
