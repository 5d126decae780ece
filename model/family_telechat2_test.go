package model

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// teleChat2115B is TeleChat2-115B's config.json as Tele-AI/TeleChat2
// stores it (model/115B/config.json at f2864e8; testdata/unsupported,
// since its architectures name TelechatForCausalLM, which vLLM does not
// serve) with architectures as TeleChat2ForCausalLM when served is set:
// the rewrite Tele-AI's own vLLM recipe makes (TeleChat2 autoAWQ/
// quantize.py: "In order to use VLLM inference, we need to update
// config.json").
func teleChat2115B(t *testing.T, served bool) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/unsupported/Tele-AI__TeleChat2-115B.json")
	if err != nil {
		t.Fatal(err)
	}
	if served {
		data = []byte(strings.Replace(string(data), `"TelechatForCausalLM"`, `"TeleChat2ForCausalLM"`, 1))
	}
	return data
}

// TestTeleChat2ArchitectureRefused: the 115B config as stored names
// TelechatForCausalLM, which vLLM's registry at d18bb7b does not list:
// refused naming architectures, not sized as TeleChat2.
func TestTeleChat2ArchitectureRefused(t *testing.T) {
	_, err := ParseConfig("telechat.json", teleChat2115B(t, false))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "architectures" || !strings.Contains(ce.Detail, "TeleChat2ForCausalLM") {
		t.Fatalf("TelechatForCausalLM: %v, want a refusal of architectures naming TeleChat2ForCausalLM", err)
	}
}

// TestTeleChat2WeightsByHand: TeleChat2-115B under telechat2.py and
// llama.py, counted by hand. n_layer 96, n_head 64 of 8192 / 64 = 128,
// num_key_value_heads 8, ffn_hidden_size 40,960, vocabulary 131,072 (a
// multiple of 64: no padding), untied. A layer: query 8192 x 8192 =
// 67,108,864; key_value 2 x 8 x 128 x 8192 = 16,777,216; dense (o_proj)
// 67,108,864 and its bias 8192; gate and up 2 x 40,960 x 8192 =
// 671,088,640, down 335,544,320 and its bias 8192; two norms 16,384:
// 1,157,660,672, x 96 = 111,135,424,512. word_embeddings and lm_head 2 x
// 131,072 x 8192 = 2,147,483,648; ln_f 8192. 113,282,916,352 parameters,
// x 4 B = 453,131,665,408 B: the checkpoint's total_size in its
// model.safetensors.index.json (Tele-AI/TeleChat2 model/115B, float32),
// whose tensors are exactly these (dense.bias and down_proj.bias, no
// query, key_value, gate or up bias). The rotary table: 8192 rows (llama.py's
// default max_position_embeddings) x 128.
func TestTeleChat2WeightsByHand(t *testing.T) {
	a, err := ParseConfig("telechat.json", teleChat2115B(t, true))
	if err != nil {
		t.Fatal(err)
	}
	got := shape{ModelType: a.ModelType, Layers: a.NumLayers, Hidden: a.Hidden, Heads: a.Heads, KVHeads: a.KVHeads, HeadDim: a.HeadDim,
		Vocab: a.Vocab, MaxPos: a.MaxPosition, Tied: a.TiedEmbeddings, RotaryDim: a.RotaryDim, Dtype: a.Dtype}
	// No torch_dtype: float32, as PretrainedConfig leaves it.
	want := shape{ModelType: "telechat", Layers: 96, Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 131072, MaxPos: 8192,
		RotaryDim: 128, Dtype: "float32"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shape (-want +got):\n%s", diff)
	}
	if a.Intermediate != 40960 {
		t.Errorf("intermediate %d, want ffn_hidden_size 40960", a.Intermediate)
	}
	// vLLM derives the length from seq_length; the rotary default is no
	// length key of the config.
	if diff := cmp.Diff(map[string]uint64{"seq_length": 8192}, a.MaxLenKeys); diff != "" {
		t.Errorf("length keys (-want +got):\n%s", diff)
	}
	const params = 113282916352
	if got, want := sumItems(Weights(a, Whole(a, 1, 4, a.Quant))), uint64(453131665408+8192*128*4); got != want {
		t.Errorf("weights %d B, want %d (the checkpoint's total_size and the rotary table)", got, want)
	}
	if got, want := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))), uint64(params*2+8192*128*2); got != want {
		t.Errorf("weights in 16 bits %d B, want %d", got, want)
	}
}

// TestTeleChat2ClassDefaults: a config of nothing but its type and
// architecture is Telechat2Config's defaults: 30 layers of 32 heads
// (multi-head: num_key_value_heads None), 4096 wide, an FFN of 12,288,
// 160,256 tokens, tied (PretrainedConfig).
func TestTeleChat2ClassDefaults(t *testing.T) {
	a, err := ParseConfig("telechat.json", []byte(`{"model_type": "telechat", "architectures": ["TeleChat2ForCausalLM"], "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := shape{ModelType: a.ModelType, Layers: a.NumLayers, Hidden: a.Hidden, Heads: a.Heads, KVHeads: a.KVHeads, HeadDim: a.HeadDim,
		Vocab: a.Vocab, MaxPos: a.MaxPosition, Tied: a.TiedEmbeddings, RotaryDim: a.RotaryDim, Dtype: a.Dtype}
	want := shape{ModelType: "telechat", Layers: 30, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128, Vocab: 160256, MaxPos: 8192,
		Tied: true, RotaryDim: 128, Dtype: "bfloat16"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("shape (-want +got):\n%s", diff)
	}
	if a.Intermediate != 12288 {
		t.Errorf("intermediate %d, want 12288", a.Intermediate)
	}
}

// teleChat2Fixture: hidden 32, n_head 2 of 16 and one KV head, ffn 16, 2
// layers, vocabulary 64, seq_length 64 (no max_position_embeddings: the
// rotary table keeps llama.py's 8192 rows), untied; named as TeleChat2-115B's
// model.safetensors.index.json names them (Tele-AI/TeleChat2 model/115B
// at f2864e8): query, key_value (the KV head's k and v rows), dense and
// its bias, gate_proj, up_proj, down_proj and its bias.
func teleChat2Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"telechat","architectures":["TeleChat2ForCausalLM"],"hidden_size":32,"n_head":2,"num_key_value_heads":1,` +
		`"ffn_hidden_size":16,"n_layer":2,"vocab_size":64,"seq_length":64,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("transformer.word_embeddings.weight", 64, 32)}
	for l := range 2 {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 32), bf16(p+"post_attention_layernorm.weight", 32),
			bf16(p+"self_attention.query.weight", 32, 32), bf16(p+"self_attention.key_value.weight", 32, 32),
			bf16(p+"self_attention.dense.weight", 32, 32), bf16(p+"self_attention.dense.bias", 32),
			bf16(p+"mlp.gate_proj.weight", 16, 32), bf16(p+"mlp.up_proj.weight", 16, 32),
			bf16(p+"mlp.down_proj.weight", 32, 16), bf16(p+"mlp.down_proj.bias", 32))
	}
	return config, append(ts, bf16("transformer.ln_f.weight", 32), bf16("lm_head.weight", 64, 32))
}

// TestTeleChat2CheckpointByHand: the fixture read by TeleChat2's rules,
// against sums by hand; the config-derived weights agree.
func TestTeleChat2CheckpointByHand(t *testing.T) {
	checkByHand(t, []byHandCase{{
		// TP1, a layer: two norms 2 x 32 x 2 = 128; query 32 x 32 x 2 =
		// 2048; key_value 2048; dense 2048 and its bias 64; gate and up
		// 16 x 32 x 2 = 1024 each, down 1024 and its bias 64: 9472.
		// word_embeddings and lm_head 64 x 32 x 2 = 4096 each, ln_f 64,
		// rotary 8192 x 16 x 2 = 262,144.
		// TP2, a layer: norms 128; query one head 1024; the KV head
		// replicated, key_value whole 2048; dense 32 x 16 x 2 = 1024 and
		// its bias whole 64; gate and up 8 rows 512 each, down 32 x 8 x 2
		// = 512 and its bias whole 64: 5888. The embedding and head 32
		// rows 2048 each.
		// PP2: the embedding on stage 0; ln_f and lm_head on stage 1;
		// the rotary table on both.
		name: "telechat", fixture: teleChat2Fixture,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), 2*9472 + 2*4096 + 64 + 262144, ""},
			{"TP2", tpRanks(2, 0), 2*5888 + 2*2048 + 64 + 262144, ""},
			{"PP2 stage 0", ppStage(0, 2), 9472 + 4096 + 262144, ""},
			{"PP2 stage 1", ppStage(1, 2), 9472 + 64 + 4096 + 262144, ""},
		},
	}})
}
