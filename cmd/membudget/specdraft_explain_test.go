package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"membudget/model/safetensors"
)

// TestExplainReadsTheDrafter: explain sizes a logged EAGLE config whose
// draft directory is here (no warning of memory left out) and reads the
// drafter's startup lines back against it: the EAGLE-1 draft of
// corpus/models/drafts, a checkpoint without embed_tokens or lm_head,
// shares both of the target's, as the log's lines say. The log is written
// for the test, its lines as vLLM main d18bb7b prints them (no public log
// of an EAGLE serve with the sharing lines was found); its "Model loading
// took" is no measurement, and is not checked.
func TestExplainReadsTheDrafter(t *testing.T) {
	t.Parallel()
	f16 := func(name string, shape ...uint64) safetensors.Tensor {
		return safetensors.Tensor{Name: name, Dtype: "F16", Shape: shape}
	}
	dir := writeDraftDir(t, "../../corpus/models/drafts/SafeAILab__EAGLE__EAGLE-LLaMA3-Instruct-8B.json", []safetensors.Tensor{
		f16("fc.weight", 4096, 8192),
		f16("layers.0.self_attn.q_proj.weight", 4096, 4096), f16("layers.0.self_attn.k_proj.weight", 1024, 4096),
		f16("layers.0.self_attn.v_proj.weight", 1024, 4096), f16("layers.0.self_attn.o_proj.weight", 4096, 4096),
		f16("layers.0.mlp.gate_proj.weight", 14336, 4096), f16("layers.0.mlp.up_proj.weight", 14336, 4096),
		f16("layers.0.mlp.down_proj.weight", 4096, 14336), f16("layers.0.post_attention_layernorm.weight", 4096),
	})
	log := "INFO 09-10 17:25:00 [utils.py:233] non-default args: {'model': 'meta-llama/Llama-3.1-8B-Instruct', 'max_model_len': 8192, 'enforce_eager': True, " +
		"'speculative_config': {'method': 'eagle', 'model': '" + dir + "', 'num_speculative_tokens': 3}}\n" +
		"INFO 09-10 17:25:01 [core.py:93] Initializing a V1 LLM engine (v0.21.0) with config: model='meta-llama/Llama-3.1-8B-Instruct', dtype=torch.bfloat16, max_seq_len=8192, tensor_parallel_size=1, enforce_eager=True\n" +
		"INFO 09-10 17:25:50 [gpu_model_runner.py:5430] Loading drafter model...\n" +
		"INFO 09-10 17:25:51 [llm_base_proposer.py:1444] Detected EAGLE model without its own embed_tokens in the checkpoint. Sharing target model embedding weights with the draft model.\n" +
		"INFO 09-10 17:25:51 [llm_base_proposer.py:1535] Detected EAGLE model without its own lm_head in the checkpoint. Sharing target model lm_head weights with the draft model.\n" +
		"INFO 09-10 17:25:52 [gpu_model_runner.py:5503] Model loading took 15.45 GiB memory and 10.000000 seconds\n"
	logPath := filepath.Join(t.TempDir(), "eagle.log")
	if err := os.WriteFile(logPath, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(&out, &errb, []string{"explain", "--json", "--class", "h100-sxm-80g", logPath}); code == exitBadArgs {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var got explainJSON
	if err := jsonUnmarshal(out.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	for _, w := range got.Warnings {
		if strings.Contains(w, "speculative") {
			t.Errorf("a warning of the speculative config: %s", w)
		}
	}
	for _, want := range []string{
		"line 4: vLLM's draft shares the target's embed_tokens (the log: not in the checkpoint), as membudget read the draft's checkpoint",
		"line 5: vLLM's draft shares the target's lm_head (the log: not in the checkpoint), as membudget read the draft's checkpoint",
	} {
		if !slices.Contains(got.Notes, want) {
			t.Errorf("no note %q in %q", want, got.Notes)
		}
	}
}
