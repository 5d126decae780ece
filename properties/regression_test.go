package properties

import (
	"testing"

	"membudget/budget"
	"membudget/engine/vllm"
	"membudget/model"
)

// TestQueriesWhereSlackOnceShrank is the case rapid found (make prop,
// TestQueriesMatchBruteForce, 7010 checks) when the allocator's slack was
// computed over KV tensors sized for the sequences served: one sequence
// failed the driver's condition while seven fitted, because the KV tensors
// crossed into another segment class and the slack shrank; MaxSequences
// answered "nothing fits". The slack is now computed over the KV tensors vLLM
// really allocates, whose size does not depend on the sequences, and fits
// is monotone.
func TestQueriesWhereSlackOnceShrank(t *testing.T) {
	cfg := `{"first_k_dense_replace":44,"hidden_size":160,"intermediate_size":128,"kv_lora_rank":128,"max_position_embeddings":256,"model_type":"deepseek_v3","moe_intermediate_size":128,"n_routed_experts":2,"n_shared_experts":0,"num_attention_heads":2,"num_experts_per_tok":1,"num_hidden_layers":44,"num_key_value_heads":2,"q_lora_rank":1536,"qk_nope_head_dim":128,"qk_rope_head_dim":16,"quantization_config":{"quant_method":"fp8"},"tie_word_embeddings":false,"topk_method":"noaux_tc","torch_dtype":"bfloat16","v_head_dim":32,"vocab_size":256}`
	a, err := model.ParseConfig("rapid.json", []byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	s := vllm.Serve{GPUMemoryUtilization: 0.608154296875, MaxModelLen: 1, MaxNumSeqs: 15, MaxNumBatchedTokens: 15, BlockSize: 128, TensorParallelSize: 2, EnforceEager: true}
	c := budget.Class{Name: "gen", Device: budget.Device{Name: "Generated GPU", MemoryBytes: 0x3fa92f12, Interconnect: budget.NVLink},
		Memory: budget.DriverTerms{DriverFixedBytes: 0x18687adf, DriverBudgetPerMille: 13, UtilCeiling: 1}}
	ref, err := vllm.NewReference(a, s, c, current)
	if err != nil {
		t.Fatal(err)
	}
	plan := ref.Plan()
	want, ok, monotone := bruteLargest(1, 15, func(n uint64) bool { return plan.Evaluate(n, 1).Fits() })
	if !monotone {
		t.Fatal("fits is not monotone in the sequences")
	}
	ans, err := budget.MaxSequences(plan, 1, 0)
	if err != nil || ans.Fits != ok || ans.Value != want {
		t.Errorf("MaxSequences = %d (fits %v, err %v), brute force %d (fits %v)", ans.Value, ans.Fits, err, want, ok)
	}
}
