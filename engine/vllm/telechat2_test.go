package vllm

import (
	"os"
	"strings"
	"testing"
)

// TestTeleChat2KVLayout: TeleChat2-115B (its config.json from
// Tele-AI/TeleChat2 model/115B at f2864e8, architectures as
// TeleChat2ForCausalLM, the rewrite Tele-AI's vLLM recipe makes) under
// telechat2.py: LlamaAttention on all 96 layers (llama.py, no window),
// FullAttentionSpec; num_key_value_heads 8 of 8192 / 64 = 128. The config
// gives no torch_dtype, so the weights' float32, which vLLM's auto dtype
// serves in 16 bits (vllm/config/model.py): 16 x 8 x 256 x 2 B = 65,536 B
// a page; at TP8 one head a rank, 8192 B.
func TestTeleChat2KVLayout(t *testing.T) {
	data, err := os.ReadFile("../../model/testdata/unsupported/Tele-AI__TeleChat2-115B.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(string(data), `"TelechatForCausalLM"`, `"TeleChat2ForCausalLM"`, 1)
	checkFullLayout(t, doc, 96, map[uint64]uint64{1: 65536, 8: 8192})
}
