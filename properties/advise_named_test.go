package properties

import (
	"slices"
	"strings"
	"testing"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
)

// TestAdviceFindsUtilAboveAFailedDriverSlice is issue 19's defect 11, the
// shrunk case of TestSuggestionsFitAndNothingFitsIsTrue at
// -rapid.checks=2000 -rapid.seed=2617901406419751003 (found on 079568e,
// fixed by 3a8c0ba): a one-layer fp8 Llama on a 338,914,808-byte device at
// util 0.953125 does not fit one token, the driver's slice failing at 0.96;
// the allocator's slack over the KV tensors falls as the util rises, so a
// higher util fits (the property found 0.99). The advice stopped at the
// first driver-slice failure and said nothing fits.
func TestAdviceFindsUtilAboveAFailedDriverSlice(t *testing.T) {
	t.Parallel()
	cfg := `{"attention_bias":false,"hidden_size":32,"intermediate_size":128,"max_position_embeddings":256,"model_type":"llama","num_attention_heads":1,"num_hidden_layers":1,"num_key_value_heads":1,"quantization_config":{"quant_method":"fp8"},"tie_word_embeddings":false,"torch_dtype":"bfloat16","vocab_size":256}`
	a, err := model.ParseConfig("llama.json", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	c := budget.Class{Name: "gen", Device: budget.Device{Name: "Generated GPU", Silicon: budget.Silicon{Vendor: budget.NVIDIA, Major: 9}, MemoryBytes: 0x14336df8, Interconnect: budget.NVLink},
		Memory: budget.DriverTerms{UtilCeiling: 1}}
	p, _ := vllm.ProfileFor("main")
	s := vllm.Serve{GPUMemoryUtilization: 0.953125, MaxModelLen: 1, MaxNumSeqs: 1, MaxNumBatchedTokens: 1, BlockSize: 16,
		TensorParallelSize: 1, PipelineParallelSize: 1, DataParallelSize: 1, KVCacheDtype: "auto", EnforceEager: true}
	fits := func(u float64) bool {
		trial := s
		trial.GPUMemoryUtilization = u
		_, plan, err := vllm.NewCompiler(a).Compile(trial, c, p)
		return err == nil && plan.Evaluate(1, 1).Fits()
	}
	if fits(0.953125) || fits(0.96) || !fits(0.99) {
		t.Fatalf("the case moved: fits at 0.953125 %v, 0.96 %v, 0.99 %v", fits(0.953125), fits(0.96), fits(0.99))
	}
	adv, err := vllm.Search{Arch: a, Class: c, Profile: p}.Advise(s, engine.Target{Seqs: 1, Tokens: 1})
	if err != nil {
		t.Fatal(err)
	}
	var flags []string
	for _, sug := range adv.Suggestions {
		flags = append(flags, sug.Flags)
	}
	if !slices.ContainsFunc(flags, func(f string) bool { return strings.Contains(f, "--gpu-memory-utilization 0.9") }) {
		t.Errorf("suggestions %q, want a --gpu-memory-utilization above 0.96 among them", flags)
	}
}
