package vllm

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"membudget"
	"membudget/engine"
	"membudget/model"
)

// expertsTPConfig is a config of the family with 4 routed experts, top-2:
// a shipped checkpoint's (corpus/models) with its expert count and top-k
// replaced, under text_config where the model nests one, or doc itself
// when name is "".
func expertsTPConfig(t *testing.T, name, doc string, set map[string]any) []byte {
	t.Helper()
	data := []byte(doc)
	if name != "" {
		var ok bool
		data, _, ok = membudget.ModelConfig(name)
		if !ok {
			t.Fatalf("%s is not shipped", name)
		}
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	o := root
	if tc, ok := root["text_config"].(map[string]any); ok {
		o = tc
	}
	for k, v := range set {
		o[k] = v
	}
	out, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExpertsTPRefusal: every family whose vLLM MoE block raises
// "Tensor parallel size N is greater than the number of experts E."
// (Arch.TPWithinExperts), given 4 experts: TP 8 > 4 is refused naming
// --tensor-parallel-size with vLLM's message and the raising file, with
// expert parallelism too (the block compares the TP world size, not the EP
// size); TP 4 = 4 experts passes the check (the condition is tp_size >
// num_experts) and is sized. Every TP drawn divides the heads, KV heads
// (or is a multiple of them) and the MLP widths of each config, so the
// refusal at 8 can only be this check.
func TestExpertsTPRefusal(t *testing.T) {
	four := map[string]any{"num_experts": 4, "num_experts_per_tok": 2}
	tests := []struct {
		family, name, doc string
		set               map[string]any
		cite              string
	}{
		// Hunyuan-A13B: 32 heads, 8 KV heads, 3072 wide experts and shared MLP.
		{"hunyuan_v1_moe", "tencent__Hunyuan-A13B-Instruct", "", map[string]any{"num_experts": 4, "moe_topk": 2}, "hunyuan_v1.py:378-382"},
		// MiniMax-M2.7: 48 heads, 8 KV heads, experts of 1536.
		{"minimax_m2", "MiniMaxAI__MiniMax-M2.7", "", map[string]any{"num_local_experts": 4, "num_experts_per_tok": 2}, "minimax_m2.py:80-84"},
		// Qwen1.5-MoE-A2.7B: 16 heads and KV heads, 1408 and 5632 wide.
		{"qwen2_moe", "Qwen__Qwen1.5-MoE-A2.7B", "", four, "qwen2_moe.py:131-135"},
		// Qwen3-30B-A3B: 32 heads, 4 KV heads (replicated at TP8), 768.
		{"qwen3_moe", "Qwen__Qwen3-30B-A3B", "", four, "qwen3_moe.py:151-155"},
		// Qwen3-VL-30B-A3B's text model: Qwen3MoeSparseMoeBlock too.
		{"qwen3_vl_moe", "Qwen__Qwen3-VL-30B-A3B-Instruct", "", four, "qwen3_moe.py:151-155"},
		// Qwen3-Next-80B-A3B: 16 heads, 2 KV heads, 512 wide.
		{"qwen3_next", "Qwen__Qwen3-Next-80B-A3B-Thinking", "", four, "qwen3_next.py:117-121"},
		// Qwen3.5-35B-A3B: Qwen3NextSparseMoeBlock on every layer.
		{"qwen3_5_moe", "Qwen__Qwen3.5-35B-A3B", "", four, "qwen3_next.py:117-121"},
		// ERNIE 4.5 MoE by hand (no MoE checkpoint is shipped): 16 heads,
		// 4 KV heads, dense 12288 and experts of 1536, MoE from layer 1.
		{"ernie4_5_moe", "", `{"model_type": "ernie4_5_moe", "architectures": ["Ernie4_5_MoeForCausalLM"], "hidden_size": 2048,
			"num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 4, "vocab_size": 1024, "torch_dtype": "bfloat16"}`,
			map[string]any{"moe_num_experts": 4, "moe_k": 2}, "ernie45_moe.py:147-151"},
	}
	for _, tt := range tests {
		t.Run(tt.family, func(t *testing.T) {
			a, err := model.ParseConfig(tt.family+".json", expertsTPConfig(t, tt.name, tt.doc, tt.set))
			if err != nil {
				t.Fatal(err)
			}
			if a.Experts != 4 || a.TPWithinExperts != tt.cite {
				t.Fatalf("read %d experts citing %q, want 4 citing %q", a.Experts, a.TPWithinExperts, tt.cite)
			}
			for _, ep := range []bool{false, true} {
				_, err := NewReference(a, trusting(a, Serve{TensorParallelSize: 8, EnableExpertParallel: ep, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}), testClass(false), current)
				var se *engine.SettingError
				want := `"Tensor parallel size 8 is greater than the number of experts 4."`
				if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" || !strings.Contains(se.Reason, want) || !strings.Contains(se.Reason, tt.cite) {
					t.Errorf("TP8 (expert parallel %v) over 4 experts: %v, want a refusal of --tensor-parallel-size quoting %s and citing %s", ep, err, want, tt.cite)
				}
				_, _, err = NewCompiler(a).Compile(trusting(a, Serve{TensorParallelSize: 8, EnableExpertParallel: ep, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}), testClass(false), current)
				if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" {
					t.Errorf("compiled TP8 (expert parallel %v) over 4 experts: %v, want the same refusal", ep, err)
				}
				if _, err := NewReference(a, trusting(a, Serve{TensorParallelSize: 4, EnableExpertParallel: ep, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}), testClass(false), current); err != nil {
					t.Errorf("TP4 (expert parallel %v) over 4 experts: %v, want it sized", ep, err)
				}
			}
		})
	}
}

// TestExpertsTPOnlyWhereVLLMRaises: Mixtral's vLLM block has no such
// check (mixtral.py builds FusedMoE whatever the TP size), so Mixtral
// with 4 experts at TP8 (32 heads, 8 KV heads, 14336 wide: all divide)
// is sized; and a Qwen2-MoE whose every layer is dense (mlp_only_layers)
// builds no Qwen2MoeSparseMoeBlock, so nothing raises.
func TestExpertsTPOnlyWhereVLLMRaises(t *testing.T) {
	tests := []struct {
		family, name string
		set          map[string]any
	}{
		{"mixtral", "mistralai__Mixtral-8x7B-v0.1", map[string]any{"num_local_experts": 4, "num_experts_per_tok": 2}},
		{"qwen2_moe", "Qwen__Qwen1.5-MoE-A2.7B", map[string]any{"num_experts": 4, "num_experts_per_tok": 2, "num_hidden_layers": 2, "mlp_only_layers": []int{0, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.family, func(t *testing.T) {
			a, err := model.ParseConfig(tt.family+".json", expertsTPConfig(t, tt.name, "", tt.set))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := NewReference(a, Serve{TensorParallelSize: 8, MaxModelLen: 2048, KVCacheMemoryBytes: gib40}, testClass(false), current); err != nil {
				t.Errorf("TP8 over 4 experts: %v, want it sized", err)
			}
		})
	}
}
