package model

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// The shapes of the configs corpus/models ships for the families of issue
// 23, entered by hand from the files (see TestShippedConfigsParse).
func init() {
	for name, s := range map[string]shape{
		// head_dim 128 given (16 x 128 = 2048, twice hidden_size); tied.
		"baidu__ERNIE-4.5-0.3B-PT": {ModelType: "ernie4_5", Layers: 18, Hidden: 1024, Heads: 16, KVHeads: 2, HeadDim: 128, Vocab: 103424,
			MaxPos: 131072, Tied: true, RotaryDim: 128, Dtype: "bfloat16"},
		// Multi-head, 4096 / 32 = 128 a head, a quarter of it rotary;
		// rope_scaling null.
		"EleutherAI__pythia-6.9b-deduped": {ModelType: "gpt_neox", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 32, HeadDim: 128,
			Vocab: 50432, MaxPos: 2048, RotaryDim: 32, Dtype: "float16"},
		// Every one of 48 layers MoE (decoder_sparse_step 1, no
		// mlp_only_layers); rope_type default with an mrope_section; the
		// Qwen3-VL tower.
		"Qwen__Qwen3-VL-30B-A3B-Instruct": {ModelType: "qwen3_vl_moe", Layers: 48, Hidden: 2048, Heads: 32, KVHeads: 4, HeadDim: 128,
			Vocab: 151936, MaxPos: 262144, MoELayers: 48, Experts: 128, TopK: 8, MoEInter: 768, RotaryDim: 128, Rope: "default",
			Vision: "qwen3_vl", Dtype: "bfloat16"},
		// MLA: latent 512 + 64; layer 0 dense (first_k_dense_replace 1),
		// 46 MoE layers of 64 experts top-4 of 1536 and one shared expert;
		// one MTP layer; rope_scaling null.
		"zai-org__GLM-4.7-Flash": {ModelType: "glm4_moe_lite", Layers: 47, Hidden: 2048, Heads: 20, KVHeads: 20, HeadDim: 256,
			Vocab: 154880, MaxPos: 202752, MoELayers: 46, Experts: 64, TopK: 4, MoEInter: 1536, SharedInter: 1536, MLA: true,
			KVLatent: 576, RotaryDim: 64, MTP: 1, Dtype: "bfloat16"},
		// num_layers read as num_hidden_layers (ExaoneConfig's
		// attribute_map); rope_scaling null.
		"LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct": {ModelType: "exaone", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Vocab: 102400, MaxPos: 4096, RotaryDim: 128, Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// corpusModel reads corpus/models/<name>.json, the config shipped for
// name, or fails the test.
func corpusModel(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("../corpus/models/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// mustCorpusModel is corpusModel for a checkpoint fixture, which has no
// test to fail: a shipped config missing is a broken checkout.
func mustCorpusModel(name string) []byte {
	data, err := os.ReadFile("../corpus/models/" + name + ".json")
	if err != nil {
		panic(err)
	}
	return data
}

// shippedArch parses corpus/models/<name>.json.
func shippedArch(t *testing.T, name string) *Arch {
	t.Helper()
	data := corpusModel(t, name)
	a, err := ParseConfig(name+".json", data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestNewFamilyWeightsByHand: the weights of one real checkpoint of each
// family of issue 23, whole on one rank in bf16, counted from its
// config.json by hand as vLLM's model file builds it.
func TestNewFamilyWeightsByHand(t *testing.T) {
	tests := []struct {
		name string
		want uint64
	}{
		// ERNIE-4.5-0.3B (ernie45.py: Llama's layers, no o_proj bias).
		// A layer: qkv 1024 x (16 + 2 + 2) x 128 = 2,621,440; o_proj
		// 2048 x 1024 = 2,097,152; gate_up 1024 x 2 x 3072 = 6,291,456;
		// down 3072 x 1024 = 3,145,728; two norms 2048: 14,157,824, x 18 =
		// 254,840,832. Embedding 103,424 (a multiple of 64) x 1024 =
		// 105,906,176, the head tied; final norm 1024. 360,748,032
		// parameters x 2 B, and the rotary table 131,072 x 128 x 2 B.
		{"baidu__ERNIE-4.5-0.3B-PT", 360748032*2 + 131072*128*2},
		// pythia-6.9b-deduped (gpt_neox.py). A layer: query_key_value
		// 4096 x 12,288 = 50,331,648 and its bias 12,288; dense 4096 x
		// 4096 = 16,777,216 and 4096; dense_h_to_4h 4096 x 16,384 =
		// 67,108,864 and 16,384; dense_4h_to_h 67,108,864 and 4096; two
		// LayerNorms of weight and bias 4 x 4096: 201,379,840, x 32 =
		// 6,444,154,880. embed_in and the untied embed_out 50,432 (a
		// multiple of 64) x 4096 = 206,569,472 each; final LayerNorm
		// 8192. 6,857,302,016 parameters (Pythia's published count) x 2 B
		// (float16), and the rotary table 2048 x 32 x 2 B.
		{"EleutherAI__pythia-6.9b-deduped", 6857302016*2 + 2048*32*2},
		// Qwen3-VL-30B-A3B-Instruct (qwen3_vl_moe.py). A text layer: q
		// 4096 x 2048 = 8,388,608, k and v 512 x 2048 = 1,048,576 each, o
		// 8,388,608; q_norm and k_norm 128 each; the router 128 x 2048 =
		// 262,144; 128 experts of gate and up 2048 x 1536 and down 768 x
		// 2048: 603,979,776; two norms 4096: 623,120,640, x 48 =
		// 29,909,790,720. Embedding and untied head 151,936 (a multiple
		// of 64) x 2048 = 311,164,928 each, norm 2048: 30,532,122,624.
		// The tower: patch_embed 1152 x 3 x 2 x 16 x 16 = 1,769,472 and
		// bias 1152; pos_embed 2304 x 1152 = 2,654,208; a block: two
		// LayerNorms 4608, qkv 3456 x 1152 = 3,981,312 and 3456, proj
		// 1,327,104 and 1152, fc1 and fc2 4304 x 1152 = 4,958,208 each and
		// 4304 + 1152: 15,239,504, x 27 = 411,466,608; the merger: norm
		// 2304, fc1 4608 x 4608 = 21,233,664 and 4608, fc2 2048 x 4608 =
		// 9,437,184 and 2048: 30,679,808; three deepstack mergers, normed
		// over 4608 (9216): 30,686,720 each. 538,631,408 in all.
		// 31,070,754,032 parameters, the total of the published
		// checkpoint's 882 tensors, x 2 B; the mrope cos/sin table 262,144
		// x 128 x 2 B kept four times, and the tower's 8192 x 1152/16/2 x
		// 2 B.
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", 31070754032*2 + 4*262144*128*2 + 8192*36*2},
		// GLM-4.7-Flash (glm4_moe_lite.py). A layer's MLA: q_a_proj 768 x
		// 2048 = 1,572,864, q_a_layernorm 768, q_b_proj 20 x (192 + 64)
		// x 768 = 3,932,160, kv_a_proj_with_mqa (512 + 64) x 2048 =
		// 1,179,648, kv_a_layernorm 512, kv_b_proj 20 x (192 + 256) x 512
		// = 4,587,520, o_proj 2048 x 5120 = 10,485,760: 21,759,232; two
		// norms 4096. Layer 0's MLP 3 x 10,240 x 2048 = 62,914,560. A MoE
		// layer: 64 experts of 3 x 1536 x 2048 = 603,979,776, the shared
		// expert 9,437,184, in bf16; the router 64 x 2048 = 131,072 and
		// its bias 64, in float32. 47 layers: 21,763,328 x 47 +
		// 62,914,560 + 46 x 613,416,960 = 29,309,003,392 parameters, of
		// which 46 x 131,136 = 6,032,256 in float32. Embedding and the
		// head 154,880 (a multiple of 64) x 2048 = 317,194,240 each, norm
		// 2048: 29,943,393,920 in all. Rotary 202,752 x 64 x 2 B.
		// EXAONE-3.0-7.8B (exaone.py). A layer: qkv 4096 x (32 + 8 + 8) x
		// 128 = 25,165,824; out_proj 16,777,216; gate_up 4096 x 2 x
		// 14,336 = 117,440,512; c_proj 58,720,256; ln_1 and ln_2 8192:
		// 218,112,000, x 32 = 6,979,584,000. wte and the untied head
		// 102,400 (a multiple of 64) x 4096 = 419,430,400 each; ln_f 4096.
		// 7,818,448,896 parameters x 2 B, and the rotary table 4096 x 128
		// x 2 B.
		{"LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct", 7818448896*2 + 4096*128*2},
		{"zai-org__GLM-4.7-Flash", (29943393920-6032256)*2 + 6032256*4 + 202752*64*2},
	}
	for _, tt := range tests {
		a := shippedArch(t, tt.name)
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// TestGlmForcesHalfRotary: glm.py sets partial_rotary_factor to 0.5
// whatever the config says; glm4.py keeps the config's and defaults to
// 0.5 (a head of 16: 8 rotary; a config factor of 1: 16 for glm4). glm has
// Llama's two norms, glm4 four.
func TestGlmForcesHalfRotary(t *testing.T) {
	const keys = `"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
 "intermediate_size": 128, "num_hidden_layers": 1, "vocab_size": 128, "max_position_embeddings": 64`
	type got struct{ Rotary, Norms uint64 }
	for _, tt := range []struct {
		doc  string
		want got
	}{
		{`{"model_type": "glm", ` + keys + `, "partial_rotary_factor": 1.0}`, got{8, 2}},
		{`{"model_type": "glm4", ` + keys + `}`, got{8, 4}},
		{`{"model_type": "glm4", ` + keys + `, "partial_rotary_factor": 1.0}`, got{16, 4}},
		{`{"model_type": "glm4", ` + keys + `, "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.25}}`, got{4, 4}},
	} {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got{a.RotaryDim, uint64(len(a.tree.norms))}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.doc, diff)
		}
	}
}

// publishedShapes are config.json files written by hand from the numbers a
// model card or a stored listing publishes, for the families whose real
// config.json was not found (see corpus/models/SOURCES.md).
var publishedShapes = map[string]string{
	// ByteDance-Seed/Seed-OSS-36B-Instruct: 5120 hidden, 64 layers, 80
	// heads and 8 KV heads of 128, MLP 27,648, vocabulary 155,136,
	// 524,288 positions, rope_theta 1e7, untied, bfloat16 (the model card;
	// a stored summary of the three Seed-OSS configs gives the same and
	// 36,151,104,512 parameters).
	"seed-oss-36b": `{"architectures": ["SeedOssForCausalLM"], "model_type": "seed_oss", "hidden_size": 5120, "num_hidden_layers": 64,
 "num_attention_heads": 80, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 27648, "vocab_size": 155136,
 "max_position_embeddings": 524288, "attention_bias": true, "attention_out_bias": false, "mlp_bias": false,
 "rope_theta": 10000000.0, "rope_scaling": {"rope_type": "default"}, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`,
	// allenai/OLMoE-1B-7B-0924: 2048 hidden, 16 layers, 16 heads (no
	// num_key_value_heads), 64 experts top-8 of 1024, vocabulary 50,304,
	// 4096 positions, untied, bfloat16 (the model card's configuration).
	"olmoe-1b-7b": `{"architectures": ["OlmoeForCausalLM"], "model_type": "olmoe", "hidden_size": 2048, "num_hidden_layers": 16,
 "num_attention_heads": 16, "intermediate_size": 1024, "num_experts": 64, "num_experts_per_tok": 8, "vocab_size": 50304,
 "max_position_embeddings": 4096, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`,
	// baidu/ERNIE-4.5-21B-A3B-PT by Ernie4_5_MoeConfig's defaults, which
	// transformers documents as that model's; vLLM's own reading of its
	// config (tests/config/base_model_arch_groundtruth.json at d18bb7b)
	// agrees on 2560 hidden, 28 layers, 20 heads of 128, 4 KV heads,
	// 103,424 tokens and 64 experts.
	"ernie-4.5-21b-a3b": `{"architectures": ["Ernie4_5_MoeForCausalLM"], "model_type": "ernie4_5_moe", "torch_dtype": "bfloat16"}`,
	// internlm/internlm2_5-7b-chat's shape (4096 hidden, 32 layers, 32
	// heads and 8 KV heads, MLP 14,336, vocabulary 92,544, 32,768
	// positions, untied; its rope scaling left out here).
	"internlm2.5-7b": `{"architectures": ["InternLM2ForCausalLM"], "model_type": "internlm2", "hidden_size": 4096, "num_hidden_layers": 32,
 "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 92544,
 "max_position_embeddings": 32768, "bias": false, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`,
	// mosaicml/mpt-7b's shape (d_model 4096, 32 heads, 32 layers,
	// expansion_ratio 4, vocabulary 50,432, max_seq_len 2048, no_bias,
	// ALiBi, bf16), as vLLM's reading of its config gives it
	// (tests/config/base_model_arch_groundtruth.json at d18bb7b: 32 layers,
	// 32 heads and KV heads of 128, 50,432 tokens).
	"mpt-7b": `{"architectures": ["MPTForCausalLM"], "model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32,
 "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50432, "no_bias": true,
 "attn_config": {"alibi": true, "alibi_bias_max": 8, "attn_impl": "torch", "clip_qkv": null, "prefix_lm": false, "qk_ln": false},
 "torch_dtype": "bfloat16"}`,
	// deepseek-ai/deepseek-moe-16b-base's shape (2048 hidden, 28 layers, 16
	// heads, MLP 10,944, 64 experts top-6 of 1408, 2 shared,
	// first_k_dense_replace 1, vocabulary 102,400, 4096 positions, untied).
	"deepseek-moe-16b": `{"architectures": ["DeepseekForCausalLM"], "model_type": "deepseek", "hidden_size": 2048,
 "num_hidden_layers": 28, "num_attention_heads": 16, "num_key_value_heads": 16, "intermediate_size": 10944,
 "moe_intermediate_size": 1408, "n_routed_experts": 64, "num_experts_per_tok": 6, "n_shared_experts": 2,
 "first_k_dense_replace": 1, "moe_layer_freq": 1, "vocab_size": 102400, "max_position_embeddings": 4096,
 "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`,
	// XiaomiMiMo/MiMo-7B-RL's shape (4096 hidden, 36 layers, 32 heads and 8
	// KV heads, MLP 11,008, vocabulary 151,680, 32,768 positions, one MTP
	// layer, untied), as vLLM's reading of the config gives its attention
	// (tests/config/base_model_arch_groundtruth.json at d18bb7b).
	"mimo-7b": `{"architectures": ["MiMoForCausalLM"], "model_type": "mimo", "hidden_size": 4096, "num_hidden_layers": 36,
 "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 11008, "vocab_size": 151680,
 "max_position_embeddings": 32768, "num_nextn_predict_layers": 1, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`,
	// EleutherAI/gpt-j-6b's shape (n_embd 4096, 16 heads, 28 layers,
	// rotary_dim 64, n_inner null, vocabulary 50,400, n_positions 2048,
	// untied, float16).
	"gpt-j-6b": `{"architectures": ["GPTJForCausalLM"], "model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_layer": 28,
 "rotary_dim": 64, "n_inner": null, "vocab_size": 50400, "n_positions": 2048, "tie_word_embeddings": false,
 "torch_dtype": "float16"}`,
}

// TestPublishedShapesByHand: the weights of publishedShapes, whole on one
// rank, counted by hand as vLLM's model files build them.
func TestPublishedShapesByHand(t *testing.T) {
	tests := []struct {
		name string
		want uint64
	}{
		// seed_oss.py. A layer: q/k/v 5120 x (80 + 8 + 8) x 128 =
		// 62,914,560 and their bias 12,288; o_proj 10,240 x 5120 =
		// 52,428,800; gate_up 5120 x 55,296 = 283,115,520; down 27,648 x
		// 5120 = 141,557,760; two norms 10,240: 540,039,168, x 64 =
		// 34,562,506,752. Embedding and head 155,136 (a multiple of 64) x
		// 5120 = 794,296,320 each; norm 5120. 36,151,104,512 parameters,
		// the published count, x 2 B; rotary 524,288 x 128 x 2 B.
		{"seed-oss-36b", 36151104512*2 + 524288*128*2},
		// olmoe.py. A layer: q/k/v 2048 x 3 x 2048 = 12,582,912, o_proj
		// 4,194,304, q_norm and k_norm 2048 each; the router 64 x 2048 =
		// 131,072; 64 experts of 3 x 1024 x 2048 = 402,653,184; two norms
		// 4096: 419,569,664, x 16 = 6,713,114,624. Embedding and head
		// 50,304 (a multiple of 64) x 2048 = 103,022,592 each; norm 2048.
		// 6,919,161,856 parameters (OLMoE-1B-7B's 6.9B) x 2 B; rotary 4096
		// x 128 x 2 B.
		{"olmoe-1b-7b", 6919161856*2 + 4096*128*2},
		// ernie45_moe.py. Attention: q/k/v 2560 x (20 + 4 + 4) x 128 =
		// 9,175,040, o_proj 6,553,600; two norms 5120. Layer 0 dense:
		// gate_up 2560 x 24,576 = 62,914,560, down 31,457,280: 110,105,600
		// in all. Layers 1-27 MoE: 64 experts of 3 x 1536 x 2560 =
		// 754,974,720, two shared of 3 x 3072 x 2560 = 23,592,960, with
		// the attention and norms 794,301,440 in bf16, and the router 64 x
		// 2560 and its bias 64 in float32 (163,904). The tied embedding
		// 103,424 x 2560 = 264,765,440, norm 2560: 21,821,012,480 bf16
		// parameters and 27 x 163,904 = 4,425,408 float32 ones (21.8B);
		// rotary 131,072 x 128 x 2 B.
		// internlm2.py. A layer: wqkv 4096 x (32 + 8 + 8) x 128 =
		// 25,165,824, wo 16,777,216, gate_up 4096 x 28,672 = 117,440,512,
		// w2 58,720,256, two norms 8192: 218,112,000, x 32 =
		// 6,979,584,000. tok_embeddings and output 92,544 (a multiple of
		// 64) x 4096 = 379,060,224 each; norm 4096. 7,737,708,544
		// parameters x 2 B; rotary 32,768 x 128 x 2 B.
		{"internlm2.5-7b", 7737708544*2 + 32768*128*2},
		// mpt.py. A block: Wqkv 4096 x 12,288 = 50,331,648, out_proj
		// 16,777,216, up_proj 4096 x 16,384 = 67,108,864, down_proj the
		// same, norm_1 and norm_2 without biases 8192: 201,334,784, x 32
		// = 6,442,713,088. wte (the head too) 50,432 x 4096 = 206,569,472,
		// norm_f 4096: 6,649,286,656 parameters x 2 B; ALiBi, no rotary
		// table.
		{"mpt-7b", 6649286656 * 2},
		// deepseek_v2.py's DeepseekAttention and MoE. Attention q/k/v and
		// o_proj 4 x 2048 x 2048 = 16,777,216; two norms 4096. Layer 0
		// dense: 3 x 10,944 x 2048 = 67,239,936. A MoE layer: the router
		// 64 x 2048 = 131,072, 64 experts of 3 x 1408 x 2048 =
		// 553,648,128, two shared of 3 x 2816 x 2048 = 17,301,504:
		// 587,862,016 with the attention and norms, x 27 =
		// 15,872,274,432. Embedding and head 102,400 x 2048 = 209,715,200
		// each, norm 2048: 16,375,728,128 parameters (16.4B) x 2 B;
		// rotary 4096 x 128 x 2 B.
		{"deepseek-moe-16b", 16375728128*2 + 4096*128*2},
		// mimo.py (Qwen2's layers). A layer: q/k/v 4096 x 6144 =
		// 25,165,824 and their bias 6144, o_proj 16,777,216, gate_up 4096
		// x 22,016 = 90,177,536, down 45,088,768, norms 8192: 177,223,680,
		// x 36 = 6,380,052,480. Embedding and head 151,680 x 4096 =
		// 621,281,280 each, norm 4096: 7,622,619,136 parameters x 2 B (the
		// MTP layer not loaded); rotary 32,768 x 128 x 2 B.
		{"mimo-7b", 7622619136*2 + 32768*128*2},
		// gpt_j.py. A layer: q/k/v 3 x 4096 x 4096 = 50,331,648, out_proj
		// 16,777,216, fc_in 4096 x 16,384 = 67,108,864 and its bias
		// 16,384, fc_out 67,108,864 and 4096, ln_1's weight and bias 8192:
		// 201,355,264, x 28 = 5,637,947,392. wte and lm_head padded to
		// 50,432 rows (50,400 is not a multiple of 64) x 4096 =
		// 206,569,472 each, lm_head's bias 50,432, ln_f 8192:
		// 6,051,144,960 elements x 2 B; rotary 2048 x 64 x 2 B.
		{"gpt-j-6b", 6051144960*2 + 2048*64*2},
		{"ernie-4.5-21b-a3b", 21821012480*2 + 4425408*4 + 131072*128*2},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(publishedShapes[tt.name]))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// TestArceeWeights: arcee.py's tree on a tiny config (hidden 64, 4 heads
// of 16, 2 KV heads, intermediate 128, 1 layer, vocabulary 128, 64
// positions, bf16, untied), by hand.
func TestArceeWeights(t *testing.T) {
	const keys = `"model_type": "arcee", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "num_hidden_layers": 1, "vocab_size": 128, "max_position_embeddings": 64, "torch_dtype": "bfloat16"`
	for _, tt := range []struct {
		extra string
		want  uint64
	}{
		// q/k/v 64 x 128 x 2 = 16,384, o_proj 8192, up_proj 64 x 128 x 2
		// = 16,384 (ungated: no gate), down_proj 16,384, two norms 256:
		// 57,600; embedding and head 128 x 64 x 2 = 16,384 each, norm
		// 128, rotary 64 x 16 x 2 = 2048.
		{``, 57600 + 2*16384 + 128 + 2048},
		// lm_head_bias: 128 x 2 more.
		{`, "lm_head_bias": true`, 57600 + 2*16384 + 256 + 128 + 2048},
		// bias: q/k/v's 128 x 2 and o_proj's 64 x 2; qkv_bias false then
		// drops q/k/v's (llama.py's reading, arcee.py:110-116).
		{`, "bias": true`, 57600 + 256 + 128 + 2*16384 + 128 + 2048},
		{`, "bias": true, "qkv_bias": false`, 57600 + 128 + 2*16384 + 128 + 2048},
	} {
		a, err := ParseConfig("x.json", []byte(`{`+keys+tt.extra+`}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.extra, got, tt.want)
		}
	}
}

// TestStableLMWeights: stablelm.py's tree on a tiny config (hidden 64, 4
// heads of 16, 2 KV heads, intermediate 128, 1 layer, vocabulary 128, 64
// positions, bf16, untied), by hand.
func TestStableLMWeights(t *testing.T) {
	const keys = `"model_type": "stablelm", "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "num_hidden_layers": 1, "vocab_size": 128, "max_position_embeddings": 64, "torch_dtype": "bfloat16"`
	for _, tt := range []struct {
		extra      string
		want, rdim uint64
	}{
		// q/k/v 64 x 128 x 2 = 16,384, o_proj 8192, gate_up 32,768, down
		// 16,384, two LayerNorms of weight and bias 512: 74,240; embedding
		// and head 16,384 each, the final LayerNorm 256; a quarter of a
		// head of 16 rotary: 64 x 4 x 2 = 512.
		{``, 74240 + 2*16384 + 256 + 512, 4},
		// use_qkv_bias: 128 x 2 more; partial_rotary_factor 0.5: 8 rotary.
		{`, "use_qkv_bias": true, "partial_rotary_factor": 0.5`, 74240 + 256 + 2*16384 + 256 + 1024, 8},
	} {
		a, err := ParseConfig("x.json", []byte(`{`+keys+tt.extra+`}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want || a.RotaryDim != tt.rdim {
			t.Errorf("%s: %d B, rotary %d; want %d, %d (by hand)", tt.extra, got, a.RotaryDim, tt.want, tt.rdim)
		}
	}
}

// TestOrionSolarWeights: orion.py's and solar.py's trees on a tiny config
// (hidden 64, 4 heads of 16, 2 KV heads, intermediate 128, 1 layer,
// vocabulary 128, 64 positions, bf16, untied), by hand: q/k/v 16,384,
// o_proj 8192, gate_up 32,768, down 16,384; embedding and head 16,384 each;
// rotary 64 x 16 x 2 = 2048.
func TestOrionSolarWeights(t *testing.T) {
	const keys = `"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
 "num_hidden_layers": 1, "vocab_size": 128, "max_position_embeddings": 64, "torch_dtype": "bfloat16"`
	for _, tt := range []struct {
		doc  string
		want uint64
	}{
		// Nemotron: q/k/v and o_proj 24,576, up_proj 64 x 128 x 2 = 16,384
		// and down_proj 16,384 (ungated), two LayerNorm1Ps of weight and
		// bias 512, the final one 256; half of a head of 16 rotary: 64 x
		// 8 x 2 = 1024.
		{`{"model_type": "nemotron", ` + keys + `}`, 24576 + 32768 + 512 + 2*16384 + 256 + 1024},
		// Hunyuan dense with use_qk_norm: Llama's 73,728 and two norms 256,
		// query_layernorm and key_layernorm 16 x 2 each; final norm 128.
		{`{"model_type": "hunyuan_v1_dense", "use_qk_norm": true, ` + keys + `}`, 73728 + 256 + 64 + 2*16384 + 128 + 2048},
		// Jais 2: q/k/v and o_proj 24,576, up_proj and down_proj 32,768
		// (ungated), two LayerNorms 512, the final one 256.
		{`{"model_type": "jais2", ` + keys + `}`, 24576 + 32768 + 512 + 2*16384 + 256 + 2048},
		// InternLM3 (llama.py): bias true and qkv_bias false bias o_proj
		// alone (64 x 2); two RMSNorms 256, the final one 128.
		{`{"model_type": "internlm3", "bias": true, "qkv_bias": false, ` + keys + `}`, 73728 + 128 + 256 + 2*16384 + 128 + 2048},
		// HyperCLOVA X with use_post_norm: Llama's 73,728, four norms 512,
		// the final one 128.
		{`{"model_type": "hyperclovax", "use_post_norm": true, "attention_multiplier": 0.0625, ` + keys + `}`, 73728 + 512 + 2*16384 + 128 + 2048},
		// Tele-FLM (llama.py): attention_bias biases q/k/v (128 x 2) and
		// o_proj (64 x 2); two norms 256, the final one 128.
		{`{"model_type": "teleflm", "attention_bias": true, "use_mup": true, "input_mult": 1.0, ` + keys + `}`, 73728 + 384 + 256 + 2*16384 + 128 + 2048},
		// Step 1: num_attention_groups 1 (q/k/v 64 x (4 + 1 + 1) x 16 x 2
		// = 12,288, o_proj 8192), the MLP 49,152, norms 256; tied by
		// default: the embedding 16,384 alone; final norm 128; ALiBi, no
		// rotary table.
		{`{"model_type": "step1", "num_attention_groups": 1, ` + strings.Replace(keys, `"num_key_value_heads": 2, `, "", 1) + `}`,
			12288 + 8192 + 49152 + 256 + 16384 + 128},
		// Orion: two LayerNorms of weight and bias 512, the final one 256.
		{`{"model_type": "orion", ` + keys + `}`, 73728 + 512 + 2*16384 + 256 + 2048},
		// Solar: two RMSNorms 256, the final one 128; bias: q/k/v's 128 x
		// 2 and o_proj's 64 x 2.
		{`{"model_type": "solar", ` + keys + `}`, 73728 + 256 + 2*16384 + 128 + 2048},
		{`{"model_type": "solar", "bias": true, ` + keys + `}`, 73728 + 256 + 384 + 2*16384 + 128 + 2048},
	} {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.doc, got, tt.want)
		}
	}
}

// TestLengthKeysAsTheClassesSetThem: GPTJConfig maps
// max_position_embeddings onto n_positions, so a config giving either has
// one length; MptConfig's max_seq_len is its own key, always set (2048 by
// default), beside any max_position_embeddings, and vLLM derives the
// length from every key present.
func TestLengthKeysAsTheClassesSetThem(t *testing.T) {
	for _, tt := range []struct {
		doc  string
		want map[string]uint64
	}{
		{`{"model_type": "gptj", "max_position_embeddings": 4096}`, map[string]uint64{"max_position_embeddings": 4096, "n_positions": 4096}},
		{`{"model_type": "gptj"}`, map[string]uint64{"max_position_embeddings": 2048, "n_positions": 2048}},
		{`{"model_type": "mpt", "attn_config": {"alibi": true}, "max_position_embeddings": 4096}`,
			map[string]uint64{"max_position_embeddings": 4096, "max_seq_len": 2048}},
		{`{"model_type": "mpt", "attn_config": {"alibi": true}, "max_seq_len": 8192}`,
			map[string]uint64{"max_position_embeddings": 8192, "max_seq_len": 8192}},
	} {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, a.MaxLenKeys); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.doc, diff)
		}
	}
}

// TestNewFamilyDefaults: a config that leaves out what the family's
// transformers configuration class fills reads as the class fills it; a
// key vLLM cannot honour is an error naming it.
func TestNewFamilyDefaults(t *testing.T) {
	type got struct {
		Layers, Hidden, Heads, KVHeads, HeadDim, Inter, Vocab, MaxPos uint64
		Tied                                                          bool
	}
	tests := []struct {
		name, doc string
		want      got
		kinds     string // the layers' kinds where the test names them
	}{
		// Ernie4_5Config (configuration_ernie4_5.py): every shape key of
		// the 0.3B model, head_dim 128 (not 1024 / 16 = 64), tied.
		{"ernie4_5 empty", `{"model_type": "ernie4_5"}`, got{18, 1024, 16, 2, 128, 3072, 103424, 131072, true}, ""},
		// head_dim null is hidden_size / heads (__post_init__).
		{"ernie4_5 head_dim null", `{"model_type": "ernie4_5", "head_dim": null, "tie_word_embeddings": false}`,
			got{18, 1024, 16, 2, 64, 3072, 103424, 131072, false}, ""},
		// Cohere2Config: Command R+'s shape, KV heads as many as heads,
		// tied; every 4th layer full, the others sliding (40 layers: 10
		// full).
		{"cohere2 empty", `{"model_type": "cohere2"}`, got{40, 8192, 64, 64, 128, 22528, 256000, 8192, true},
			strings.Repeat("SSSF", 10)},
		// sliding_window_pattern 2: every 2nd layer full.
		{"cohere2 pattern 2", `{"model_type": "cohere2", "num_hidden_layers": 4, "sliding_window_pattern": 2}`,
			got{4, 8192, 64, 64, 128, 22528, 256000, 8192, true}, "SFSF"},
		// Jais 2: an integer window slides every layer; a list slides
		// layer i by entry i % len, null entries full.
		{"jais2 window", `{"model_type": "jais2", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
 "intermediate_size": 128, "vocab_size": 128, "max_position_embeddings": 64, "interleaved_sliding_window": 32}`,
			got{4, 64, 4, 4, 16, 128, 128, 64, false}, "SSSS"},
		{"jais2 windows", `{"model_type": "jais2", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
 "intermediate_size": 128, "vocab_size": 128, "max_position_embeddings": 64, "interleaved_sliding_window": [32, 32, null]}`,
			got{4, 64, 4, 4, 16, 128, 128, 64, false}, "SSFS"},
		// layer_types as given; cohere (v1) never slides whatever it lists.
		{"cohere2 layer_types", `{"model_type": "cohere2", "num_hidden_layers": 2, "layer_types": ["full_attention", "sliding_attention"]}`,
			got{2, 8192, 64, 64, 128, 22528, 256000, 8192, true}, "FS"},
		// SeedOssConfig; q/k/v biased whatever attention_bias says.
		{"seed_oss empty", `{"model_type": "seed_oss", "attention_bias": false}`, got{64, 4096, 80, 8, 128, 27648, 155136, 524288, false}, ""},
		// A cache-wide sliding_window slides every layer, unless
		// use_sliding_window turns it off.
		{"seed_oss window", `{"model_type": "seed_oss", "num_hidden_layers": 2, "sliding_window": 4096}`,
			got{2, 4096, 80, 8, 128, 27648, 155136, 524288, false}, "SS"},
		{"seed_oss window off", `{"model_type": "seed_oss", "num_hidden_layers": 2, "sliding_window": 4096, "use_sliding_window": false}`,
			got{2, 4096, 80, 8, 128, 27648, 155136, 524288, false}, "FF"},
		{"cohere layer_types", `{"model_type": "cohere", "num_hidden_layers": 2, "layer_types": ["full_attention", "sliding_attention"], "sliding_window": 8}`,
			got{2, 8192, 64, 64, 128, 22528, 256000, 8192, true}, "FF"},
	}
	for _, tt := range tests {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.kinds != "" {
			if diff := cmp.Diff(tt.kinds, kinds(a.Layers)); diff != "" {
				t.Errorf("%s layers (-want +got):\n%s", tt.name, diff)
			}
		}
		g := got{uint64(len(a.Layers)), a.Hidden, a.Heads, a.KVHeads, a.HeadDim, a.Intermediate, a.Vocab, a.MaxPosition, a.TiedEmbeddings}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	errs := []struct{ name, doc, want string }{
		{"ernie4_5 use_bias", `{"model_type": "ernie4_5", "use_bias": true}`, "x.json: use_bias: true: vLLM's Ernie4_5ForCausalLM"},
		{"cohere untied", `{"model_type": "cohere", "tie_word_embeddings": false}`,
			"x.json: tie_word_embeddings: false: vLLM's CohereForCausalLM requires the head tied"},
		{"seed_oss out bias", `{"model_type": "seed_oss", "attention_out_bias": true}`, "x.json: attention_out_bias: true: vLLM's SeedOssForCausalLM"},
		{"ernie4_5_moe use_bias", `{"model_type": "ernie4_5_moe", "use_bias": true}`, "x.json: use_bias: true: the dense MLP would be biased"},
		{"internlm2 bias", `{"model_type": "internlm2", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
 "intermediate_size": 128, "vocab_size": 128, "max_position_embeddings": 64, "bias": true}`, "x.json: bias: true: vLLM's InternLM2ForCausalLM"},
		{"stablelm qk_layernorm", `{"model_type": "stablelm", "qk_layernorm": true}`, "x.json: qk_layernorm: true: vLLM's StablelmForCausalLM"},
		{"hunyuan cla", `{"model_type": "hunyuan_v1_dense", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
 "intermediate_size": 128, "vocab_size": 128, "max_position_embeddings": 64, "use_cla": true}`, "x.json: use_cla: true: cross-layer attention"},
		{"mpt without alibi", `{"model_type": "mpt", "attn_config": {"alibi": false}}`, "x.json: attn_config.alibi: false: vLLM's MPTForCausalLM asserts ALiBi"},
		{"flex_olmo quantized", `{"model_type": "flex_olmo", "quantization_config": {"quant_method": "fp8"}}`, "x.json: quantization_config: FlexOlmo builds its experts unquantized"},
		{"jais2 window null", `{"model_type": "jais2", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4,
 "intermediate_size": 128, "vocab_size": 128, "max_position_embeddings": 64, "interleaved_sliding_window": null}`,
			"x.json: interleaved_sliding_window: null: vLLM's Jais2Attention raises"},
		{"jais2 two windows", `{"model_type": "jais2", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
 "intermediate_size": 128, "vocab_size": 128, "max_position_embeddings": 64, "interleaved_sliding_window": [32, 64]}`,
			"x.json: interleaved_sliding_window: windows 32 and 64"},
		{"cohere2 pattern 0", `{"model_type": "cohere2", "sliding_window_pattern": 0}`, "x.json: sliding_window_pattern: must be above 0"},
	}
	for _, tt := range errs {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to hold %q", tt.name, err, tt.want)
		}
	}
}

// gptNeoXFixture: hidden 64, 4 heads of 16 (multi-head), intermediate
// 256, 2 layers, vocabulary 128, 64 positions, a quarter of a head rotary
// (4), untied; named as transformers' modeling_gpt_neox.py names them, with
// an old checkpoint's causal-mask buffers and rotary inv_freq (skipped).
func gptNeoXFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"gpt_neox","hidden_size":64,"num_attention_heads":4,"intermediate_size":256,"num_hidden_layers":2,` +
		`"vocab_size":128,"max_position_embeddings":64,"rotary_pct":0.25,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("gpt_neox.embed_in.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("gpt_neox.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64), bf16(p+"input_layernorm.bias", 64),
			bf16(p+"post_attention_layernorm.weight", 64), bf16(p+"post_attention_layernorm.bias", 64),
			typed("BOOL", p+"attention.bias", 1, 1, 64, 64), typed("F32", p+"attention.masked_bias"),
			typed("F32", p+"attention.rotary_emb.inv_freq", 2),
			bf16(p+"attention.query_key_value.weight", 192, 64), bf16(p+"attention.query_key_value.bias", 192),
			bf16(p+"attention.dense.weight", 64, 64), bf16(p+"attention.dense.bias", 64),
			bf16(p+"mlp.dense_h_to_4h.weight", 256, 64), bf16(p+"mlp.dense_h_to_4h.bias", 256),
			bf16(p+"mlp.dense_4h_to_h.weight", 64, 256), bf16(p+"mlp.dense_4h_to_h.bias", 64))
	}
	return config, append(ts, bf16("gpt_neox.final_layer_norm.weight", 64), bf16("gpt_neox.final_layer_norm.bias", 64),
		bf16("embed_out.weight", 128, 64))
}

// glm4Fixture: hidden 64, 4 heads of 16, 2 KV heads, q/k/v biases,
// intermediate 128 with gate_up_proj fused as GLM-4-0414 stores it, 1
// layer of four norms, vocabulary 128, 64 positions, untied.
func glm4Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"glm4","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,` +
		`"intermediate_size":128,"num_hidden_layers":1,"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	p := "model.layers.0."
	return config, []safetensors.Tensor{
		bf16("model.embed_tokens.weight", 128, 64),
		bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64),
		bf16(p+"post_self_attn_layernorm.weight", 64), bf16(p+"post_mlp_layernorm.weight", 64),
		bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.q_proj.bias", 64),
		bf16(p+"self_attn.k_proj.weight", 32, 64), bf16(p+"self_attn.k_proj.bias", 32),
		bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.v_proj.bias", 32),
		bf16(p+"self_attn.o_proj.weight", 64, 64),
		bf16(p+"mlp.gate_up_proj.weight", 256, 64), bf16(p+"mlp.down_proj.weight", 64, 128),
		bf16("model.norm.weight", 64), bf16("lm_head.weight", 128, 64),
	}
}

// olmoeFixture: hidden 32, 2 heads of 16 (multi-head), 2 layers of 4
// experts of 16, vocabulary 64, 64 positions, named as OLMoE-1B-7B's
// checkpoint names them.
func olmoeFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"olmoe","hidden_size":32,"num_attention_heads":2,"intermediate_size":16,"num_experts":4,` +
		`"num_experts_per_tok":2,"num_hidden_layers":2,"vocab_size":64,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 32), bf16(p+"post_attention_layernorm.weight", 32),
			bf16(p+"self_attn.q_proj.weight", 32, 32), bf16(p+"self_attn.k_proj.weight", 32, 32),
			bf16(p+"self_attn.v_proj.weight", 32, 32), bf16(p+"self_attn.o_proj.weight", 32, 32),
			bf16(p+"self_attn.q_norm.weight", 32), bf16(p+"self_attn.k_norm.weight", 32),
			bf16(p+"mlp.gate.weight", 4, 32))
		for e := range 4 {
			q := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(q+"gate_proj.weight", 16, 32), bf16(q+"up_proj.weight", 16, 32), bf16(q+"down_proj.weight", 32, 16))
		}
	}
	return config, append(ts, bf16("model.norm.weight", 32), bf16("lm_head.weight", 64, 32))
}

// graniteMoEFixture: hidden 32, 2 heads of 16 (multi-head), 2 layers of
// 4 experts of 16 stacked as ibm-granite's checkpoints stack them,
// vocabulary 64, 64 positions, tied (no lm_head).
func graniteMoEFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"granitemoe","hidden_size":32,"num_attention_heads":2,"intermediate_size":16,"num_local_experts":4,` +
		`"num_experts_per_tok":2,"num_hidden_layers":2,"vocab_size":64,"max_position_embeddings":64,"tie_word_embeddings":true,` +
		`"embedding_multiplier":12.0,"residual_multiplier":0.22,"attention_multiplier":0.015625,"logits_scaling":6.0,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 32), bf16(p+"post_attention_layernorm.weight", 32),
			bf16(p+"self_attn.q_proj.weight", 32, 32), bf16(p+"self_attn.k_proj.weight", 32, 32),
			bf16(p+"self_attn.v_proj.weight", 32, 32), bf16(p+"self_attn.o_proj.weight", 32, 32),
			bf16(p+"block_sparse_moe.router.layer.weight", 4, 32),
			bf16(p+"block_sparse_moe.input_linear.weight", 4, 32, 32), bf16(p+"block_sparse_moe.output_linear.weight", 4, 32, 16))
	}
	return config, append(ts, bf16("model.norm.weight", 32))
}

// ernie45MoEFixture: hidden 32, 2 heads of 16 and 2 KV heads, layer 0
// dense (intermediate 64), layer 1 MoE (moe_layer_start_index 1) of 4
// experts of 16 and one shared, vocabulary 64, 64 positions, tied (no
// lm_head), the routing bias stored as ERNIE stores it, and an MTP tensor.
func ernie45MoEFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"ernie4_5_moe","hidden_size":32,"num_attention_heads":2,"num_key_value_heads":2,"intermediate_size":64,` +
		`"moe_num_experts":4,"moe_k":2,"moe_intermediate_size":16,"moe_num_shared_experts":1,"num_hidden_layers":2,` +
		`"vocab_size":64,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32), bf16("model.norm.weight", 32), bf16("model.mtp_linear_proj.0.weight", 32, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 32), bf16(p+"post_attention_layernorm.weight", 32),
			bf16(p+"self_attn.q_proj.weight", 32, 32), bf16(p+"self_attn.k_proj.weight", 32, 32),
			bf16(p+"self_attn.v_proj.weight", 32, 32), bf16(p+"self_attn.o_proj.weight", 32, 32))
		if l == 0 {
			ts = append(ts, bf16(p+"mlp.gate_proj.weight", 64, 32), bf16(p+"mlp.up_proj.weight", 64, 32), bf16(p+"mlp.down_proj.weight", 32, 64))
			continue
		}
		ts = append(ts, bf16(p+"mlp.gate.weight", 4, 32), typed("F32", p+"mlp.moe_statics.e_score_correction_bias", 1, 4),
			bf16(p+"mlp.shared_experts.gate_proj.weight", 16, 32), bf16(p+"mlp.shared_experts.up_proj.weight", 16, 32),
			bf16(p+"mlp.shared_experts.down_proj.weight", 32, 16))
		for e := range 4 {
			q := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(q+"gate_proj.weight", 16, 32), bf16(q+"up_proj.weight", 16, 32), bf16(q+"down_proj.weight", 32, 16))
		}
	}
	return config, ts
}

// phiMoEFixture: hidden 32, 2 heads of 16 and 2 KV heads, 2 layers of 4
// experts of 16, vocabulary 64, 64 positions, named as Phi-3.5-MoE's
// checkpoint names them.
func phiMoEFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"phimoe","hidden_size":32,"num_attention_heads":2,"num_key_value_heads":2,"intermediate_size":16,` +
		`"num_local_experts":4,"num_experts_per_tok":2,"num_hidden_layers":2,"vocab_size":64,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 32), bf16(p+"input_layernorm.bias", 32),
			bf16(p+"post_attention_layernorm.weight", 32), bf16(p+"post_attention_layernorm.bias", 32),
			bf16(p+"self_attn.q_proj.weight", 32, 32), bf16(p+"self_attn.q_proj.bias", 32),
			bf16(p+"self_attn.k_proj.weight", 32, 32), bf16(p+"self_attn.k_proj.bias", 32),
			bf16(p+"self_attn.v_proj.weight", 32, 32), bf16(p+"self_attn.v_proj.bias", 32),
			bf16(p+"self_attn.o_proj.weight", 32, 32), bf16(p+"self_attn.o_proj.bias", 32),
			bf16(p+"block_sparse_moe.gate.weight", 4, 32))
		for e := range 4 {
			q := fmt.Sprintf("%sblock_sparse_moe.experts.%d.", p, e)
			ts = append(ts, bf16(q+"w1.weight", 16, 32), bf16(q+"w3.weight", 16, 32), bf16(q+"w2.weight", 32, 16))
		}
	}
	return config, append(ts, bf16("model.norm.weight", 32), bf16("model.norm.bias", 32), bf16("lm_head.weight", 64, 32), bf16("lm_head.bias", 64))
}

// internLM2Fixture: hidden 64, 4 heads of 16, 2 KV heads (wqkv of 2
// groups of 2 + 2 heads), intermediate 128, 2 layers, vocabulary 128, 64
// positions, untied, named as InternLM2's checkpoint names them.
func internLM2Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"internlm2","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"bias":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.tok_embeddings.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"attention_norm.weight", 64), bf16(p+"ffn_norm.weight", 64),
			bf16(p+"attention.wqkv.weight", 128, 64), bf16(p+"attention.wo.weight", 64, 64),
			bf16(p+"feed_forward.w1.weight", 128, 64), bf16(p+"feed_forward.w3.weight", 128, 64), bf16(p+"feed_forward.w2.weight", 64, 128))
	}
	return config, append(ts, bf16("model.norm.weight", 64), bf16("output.weight", 128, 64))
}

// graniteMoESharedFixture: graniteMoEFixture's model with a shared MLP of
// 24 on every layer.
func graniteMoESharedFixture() (string, []safetensors.Tensor) {
	config, ts := graniteMoEFixture()
	config = strings.Replace(config, `"model_type":"granitemoe"`, `"model_type":"granitemoeshared","shared_intermediate_size":24`, 1)
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, bf16(p+"shared_mlp.input_linear.weight", 48, 32), bf16(p+"shared_mlp.output_linear.weight", 32, 24))
	}
	return config, ts
}

// gptJFixture: n_embd 32, 2 heads of 16, 2 layers, rotary_dim 8, n_inner
// 64, vocabulary 64, 64 positions, named as EleutherAI/gpt-j-6b's
// checkpoint names them, with its causal-mask buffers.
func gptJFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"gptj","n_embd":32,"n_head":2,"n_layer":2,"rotary_dim":8,"n_inner":64,"vocab_size":64,` +
		`"n_positions":64,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("transformer.wte.weight", 64, 32)}
	for l := range 2 {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			bf16(p+"ln_1.weight", 32), bf16(p+"ln_1.bias", 32),
			typed("BOOL", p+"attn.bias", 1, 1, 64, 64), typed("F32", p+"attn.masked_bias"),
			bf16(p+"attn.q_proj.weight", 32, 32), bf16(p+"attn.k_proj.weight", 32, 32),
			bf16(p+"attn.v_proj.weight", 32, 32), bf16(p+"attn.out_proj.weight", 32, 32),
			bf16(p+"mlp.fc_in.weight", 64, 32), bf16(p+"mlp.fc_in.bias", 64),
			bf16(p+"mlp.fc_out.weight", 32, 64), bf16(p+"mlp.fc_out.bias", 32))
	}
	return config, append(ts, bf16("transformer.ln_f.weight", 32), bf16("transformer.ln_f.bias", 32),
		bf16("lm_head.weight", 64, 32), bf16("lm_head.bias", 64))
}

// flexOlmoFixture: olmoeFixture's model as FlexOlmo, post-norms in place
// of input_layernorm and post_attention_layernorm.
func flexOlmoFixture() (string, []safetensors.Tensor) {
	config, ts := olmoeFixture()
	config = strings.Replace(config, `"model_type":"olmoe"`, `"model_type":"flex_olmo"`, 1)
	for i := range ts {
		ts[i].Name = strings.Replace(ts[i].Name, "input_layernorm", "post_feedforward_layernorm", 1)
	}
	return config, ts
}

// cohereFixture: hidden 64, 4 heads of 16, 2 KV heads, intermediate 128,
// 2 layers, vocabulary 128, 64 positions, q and k norms, tied (the
// checkpoint has no lm_head), named as transformers' modeling_cohere.py.
func cohereFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"cohere","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
		`"num_hidden_layers":2,"vocab_size":128,"max_position_embeddings":64,"use_qk_norm":true,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 64),
			bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.k_proj.weight", 32, 64),
			bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.o_proj.weight", 64, 64),
			bf16(p+"self_attn.q_norm.weight", 4, 16), bf16(p+"self_attn.k_norm.weight", 2, 16),
			bf16(p+"mlp.gate_proj.weight", 128, 64), bf16(p+"mlp.up_proj.weight", 128, 64), bf16(p+"mlp.down_proj.weight", 64, 128))
	}
	return config, append(ts, bf16("model.norm.weight", 64))
}

// exaoneFixture: hidden 64, 4 heads of 16, 2 KV heads, intermediate 128,
// 2 layers (num_layers), vocabulary 128, 64 positions, untied, under
// EXAONE 3's names.
func exaoneFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"exaone","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
		`"num_layers":2,"vocab_size":128,"max_position_embeddings":64,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("transformer.wte.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			bf16(p+"ln_1.weight", 64), bf16(p+"ln_2.weight", 64),
			bf16(p+"attn.attention.q_proj.weight", 64, 64), bf16(p+"attn.attention.k_proj.weight", 32, 64),
			bf16(p+"attn.attention.v_proj.weight", 32, 64), bf16(p+"attn.attention.out_proj.weight", 64, 64),
			bf16(p+"mlp.c_fc_0.weight", 128, 64), bf16(p+"mlp.c_fc_1.weight", 128, 64), bf16(p+"mlp.c_proj.weight", 64, 128))
	}
	return config, append(ts, bf16("transformer.ln_f.weight", 64), bf16("lm_head.weight", 128, 64))
}

// TestNewFamilyCheckpointsByHand: each new family's checkpoint, named as
// its published checkpoints name their tensors, read by its rules, at TP1,
// TP2 and on each stage of PP2 in bf16, against sums by hand; the
// config-derived weights agree.
func TestNewFamilyCheckpointsByHand(t *testing.T) {
	checkByHand(t, []byHandCase{
		{
			// internlm2.py. TP1, a layer: wqkv 128 x 64 x 2 = 16,384, wo
			// 8192, w1 and w3 128 x 64 x 2 = 16,384 each, w2 16,384, norms
			// 256: 73,984. tok_embeddings and output 16,384 each, norm 128,
			// rotary 64 x 16 x 2 = 2048.
			// TP2: wqkv 2 + 1 + 1 heads of 16 = 64 rows 8192, wo 64 x 32 x
			// 2 = 4096, w1 and w3 64 rows 8192 each, w2 8192, norms 256:
			// 37,120; embeddings 64 rows 8192 each.
			// PP2: tok_embeddings, norm and output on both stages.
			name: "internlm2", fixture: internLM2Fixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*73984 + 2*16384 + 128 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*37120 + 2*8192 + 128 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 73984 + 2*16384 + 128 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 73984 + 2*16384 + 128 + 2048, ""},
			},
		},
		{
			// phimoe.py. TP1, a layer: q/k/v 32 x 96 x 2 = 6144 and biases
			// 192, o_proj 2048 and bias 64, the router 4 x 32 x 2 = 256, 4
			// experts of 3 x 16 x 32 x 2 (12,288), two LayerNorms of weight
			// and bias 256: 21,248. Embedding and head 64 x 32 x 2 = 4096
			// each, the head's bias 128, the final LayerNorm 128, rotary 64
			// x 16 x 2 = 2048.
			// TP2: q/k/v 48 rows 3072 and biases 96, o_proj 1024 and its
			// bias whole 64, the router 256, the experts halved 6144,
			// LayerNorms 256: 10,912; embedding and head 32 rows 2048 each,
			// the head's bias 64.
			// PP2: the embedding, final norm and head on both stages.
			name: "phimoe", fixture: phiMoEFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*21248 + 2*4096 + 128 + 128 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*10912 + 2*2048 + 64 + 128 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 21248 + 2*4096 + 128 + 128 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 21248 + 2*4096 + 128 + 128 + 2048, ""},
			},
		},
		{
			// ernie45_moe.py. TP1: layer 0, q, k and v 32 x 32 x 2 = 2048
			// each, o_proj 2048, gate, up and down 64 x 32 x 2 = 4096
			// each, norms 128: 20,608. Layer 1, the attention 8192, the
			// router 4 x 32 in float32 512 and its bias 16, 4 experts of 3
			// x 16 x 32 x 2 = 3072 (12,288), the shared expert 3072, norms
			// 128: 24,208. The tied embedding 64 x 32 x 2 = 4096, norm 64,
			// rotary 64 x 16 x 2 = 2048; the MTP tensor skipped.
			// TP2: layer 0, q/k/v 48 rows 3072, o_proj 1024, gate and up
			// 32 rows 2048 each, down 2048, norms 128: 10,368. Layer 1,
			// the attention 4096, router and bias whole 528, the experts'
			// and shared expert's intermediate halved 6144 + 1536, norms
			// 128: 12,432. The embedding 32 rows 2048.
			name: "ernie4_5_moe", fixture: ernie45MoEFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 20608 + 24208 + 4096 + 64 + 2048, ""},
				{"TP2", tpRanks(2, 0), 10368 + 12432 + 2048 + 64 + 2048, ""},
			},
		},
		{
			// granitemoe.py. TP1, a layer: q, k and v 32 x 96 x 2 = 6144,
			// o_proj 2048, the router 4 x 32 x 2 = 256, input_linear 4 x
			// 32 x 32 x 2 = 8192, output_linear 4 x 32 x 16 x 2 = 4096,
			// two norms 128: 20,864. The embedding (the tied head) 64 x 32
			// x 2 = 4096, norm 64, rotary 64 x 16 x 2 = 2048.
			// TP2: q/k/v 48 rows 3072, o_proj 1024, router 256, the
			// experts' intermediate halved 4096 + 2048, norms 128: 10,624;
			// the embedding 32 rows 2048.
			// PP2: the embedding and norm on both stages (the head is the
			// embedding there).
			name: "granitemoe", fixture: graniteMoEFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*20864 + 4096 + 64 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*10624 + 2048 + 64 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 20864 + 4096 + 64 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 20864 + 4096 + 64 + 2048, ""},
			},
		},
		{
			// granitemoeshared.py: granitemoe's sums above and, on every
			// layer, shared_mlp.input_linear (gate and up fused) 48 x 32 x
			// 2 = 3072 and output_linear 32 x 24 x 2 = 1536: 4608, a layer
			// 25,472. TP2: input_linear column-parallel 24 rows 1536,
			// output_linear row-parallel 32 x 12 x 2 = 768: 2304, a layer
			// 10,624 + 2304 = 12,928.
			name: "granitemoeshared", fixture: graniteMoESharedFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*25472 + 4096 + 64 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*12928 + 2048 + 64 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 25472 + 4096 + 64 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 25472 + 4096 + 64 + 2048, ""},
			},
		},
		{
			// gpt_j.py. TP1, a layer: ln_1 weight and bias 2 x 32 x 2 =
			// 128; q, k and v 32 x 32 x 2 = 2048 each, out_proj 2048
			// (unbiased); fc_in 64 x 32 x 2 = 4096 and bias 128, fc_out
			// 4096 and bias 64; the attn.bias and masked_bias buffers
			// skipped: 16,704. wte and lm_head 64 x 32 x 2 = 4096 each,
			// lm_head's bias 128, ln_f 128, rotary 64 positions x
			// rotary_dim 8 x 2 = 1024.
			// TP2: q, k and v one head of 16 rows 1024 each, out_proj 32
			// x 16 x 2 = 1024, fc_in 32 rows 2048 and bias 64, fc_out
			// 2048 and its bias whole 64, ln_1 128: 8448; wte and lm_head
			// 32 rows 2048 each, lm_head's bias 64.
			// PP2: wte, ln_f and the head on every stage (:200-209).
			name: "gptj", fixture: gptJFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*16704 + 2*4096 + 128 + 128 + 1024, ""},
				{"TP2", tpRanks(2, 0), 2*8448 + 2*2048 + 64 + 128 + 1024, ""},
				{"PP2 stage 0", ppStage(0, 2), 16704 + 2*4096 + 128 + 128 + 1024, ""},
				{"PP2 stage 1", ppStage(1, 2), 16704 + 2*4096 + 128 + 128 + 1024, ""},
			},
		},
		{
			// flex_olmo.py: olmoe's tensors with post_feedforward_layernorm
			// in place of input_layernorm, of the same 64 B, so olmoe's
			// sums below: a layer 20,992 at TP1 and 10,752 at TP2; the
			// embedding, norm and head on every stage.
			name: "flex_olmo", fixture: flexOlmoFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*20992 + 2*4096 + 64 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*10752 + 2*2048 + 64 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 20992 + 2*4096 + 64 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 20992 + 2*4096 + 64 + 2048, ""},
			},
		},
		{
			// olmoe.py. TP1, a layer: q, k and v 32 x 32 x 2 = 2048 each,
			// o_proj 2048, q_norm and k_norm 64 each, the router 4 x 32 x
			// 2 = 256, 4 experts of gate, up and down 16 x 32 x 2 = 1024
			// each (12,288), two norms 128: 20,992. Embedding and head 64
			// x 32 x 2 = 4096 each, norm 64, rotary 64 x 16 x 2 = 2048.
			// TP2: q, k and v one head of 16 each, 48 rows 3072; o_proj 32
			// x 16 x 2 = 1024; the norms whole 128; the router 256; the
			// experts' intermediate halved 6144; norms 128: 10,752;
			// embedding and head 32 rows 2048 each.
			// PP2: the embedding, norm and head on both stages.
			name: "olmoe", fixture: olmoeFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*20992 + 2*4096 + 64 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*10752 + 2*2048 + 64 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 20992 + 2*4096 + 64 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 20992 + 2*4096 + 64 + 2048, ""},
			},
		},
		{
			// glm4.py. TP1: q/k/v 64 x 128 x 2 = 16,384 and biases 256,
			// o_proj 8192, gate_up 256 x 64 x 2 = 32,768, down 16,384,
			// four norms 512: 74,496; embedding and head 16,384 each, norm
			// 128, rotary 64 positions x half of 16 x 2 = 1024.
			// TP2: q/k/v 2 + 1 + 1 heads of 16 = 64 rows 8192 and biases
			// 128, o_proj 64 x 32 x 2 = 4096, gate_up 128 rows 16,384, down
			// 8192, norms 512: 37,504; embedding and head 64 rows 8192 each.
			name: "glm4", fixture: glm4Fixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 74496 + 2*16384 + 128 + 1024, ""},
				{"TP2", tpRanks(2, 0), 37504 + 2*8192 + 128 + 1024, ""},
			},
		},
		{
			// commandr.py, use_qk_norm. TP1, a layer: q 64 x 64 x 2 =
			// 8192, k and v 32 x 64 x 2 = 4096 each, o 8192; gate, up and
			// down 128 x 64 x 2 = 16,384 each; one LayerNorm (weight only)
			// 128; q_norm 4 x 16 x 2 = 128, k_norm 2 x 16 x 2 = 64:
			// 74,048. The embedding, which is the head, 128 rows x 64 x 2
			// = 16,384; the final norm 128; rotary 64 x 16 x 2 = 2048.
			// TP2, a layer: q 2 heads 4096, k and v 1 KV head 2048 each,
			// o 64 x 32 x 2 = 4096, gate and up 64 rows 8192 each, down
			// 8192, norm 128, q_norm 2 heads 64, k_norm 1 head 32:
			// 37,088; the embedding 64 rows 8192.
			// PP2: the embedding and the final norm on every stage
			// (CohereModel has no PPMissingLayer).
			name: "cohere", fixture: cohereFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*74048 + 16384 + 128 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*37088 + 8192 + 128 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 74048 + 16384 + 128 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 74048 + 16384 + 128 + 2048, ""},
			},
		},
		{
			// TP1, a layer: q 64 x 64 x 2 = 8192, k and v 32 x 64 x 2 =
			// 4096 each, out_proj 8192, c_fc_0, c_fc_1 and c_proj 128 x 64
			// x 2 = 16,384 each, ln_1 and ln_2 256: 73,984. wte and head
			// 128 x 64 x 2 = 16,384 each, ln_f 128, rotary 64 x 16 x 2 =
			// 2048. TP2: q 2 heads 4096, k and v 1 KV head 2048 each,
			// out_proj 64 x 32 x 2 = 4096, c_fc_0 and c_fc_1 64 rows 8192
			// each, c_proj 8192, norms 256: 37,120; wte and head 64 rows
			// 8192 each. PP2: wte on the first stage, ln_f and the head
			// on the last.
			name: "exaone", fixture: exaoneFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*73984 + 2*16384 + 128 + 2048, ""},
				{"TP2", tpRanks(2, 0), 2*37120 + 2*8192 + 128 + 2048, ""},
				{"PP2 stage 0", ppStage(0, 2), 73984 + 16384 + 2048, ""},
				{"PP2 stage 1", ppStage(1, 2), 73984 + 128 + 16384 + 2048, ""},
			},
		},
		{
			// TP1, a layer: two LayerNorms 4 x 64 x 2 = 512;
			// query_key_value 192 x 64 x 2 = 24,576 and bias 384; dense
			// 8192 and 128; dense_h_to_4h 256 x 64 x 2 = 32,768 and 512;
			// dense_4h_to_h 32,768 and 128: 99,968. embed_in and embed_out
			// 128 x 64 x 2 = 16,384 each, final LayerNorm 256, rotary 64
			// positions x 4 x 2 = 512.
			// TP2: query_key_value 2 + 2 + 2 heads of 16 = 96 rows 12,288
			// and bias 192; dense 64 x 32 x 2 = 4096, its bias whole 128;
			// dense_h_to_4h 128 rows 16,384 and 256; dense_4h_to_h 16,384,
			// bias whole 128; LayerNorms 512: 50,368. Embeddings 64 rows
			// 8192 each.
			// PP2: gpt_neox.py builds embed_in, final_layer_norm and
			// embed_out on every stage.
			name: "gpt_neox", fixture: gptNeoXFixture,
			ranks: []byHandRank{
				{"TP1", tpRanks(1, 0), 2*99968 + 2*16384 + 256 + 512, ""},
				{"TP2", tpRanks(2, 0), 2*50368 + 2*8192 + 256 + 512, ""},
				{"PP2 stage 0", ppStage(0, 2), 99968 + 2*16384 + 256 + 512, ""},
				{"PP2 stage 1", ppStage(1, 2), 99968 + 2*16384 + 256 + 512, ""},
			},
		},
	})
}

// qwen3VL30BA3BHeader is Qwen/Qwen3-VL-30B-A3B-Instruct's safetensors
// header as its published listing gives it (882 tensors in 13 shards, all
// bf16; see corpus/models/SOURCES.md), with its config.json.
func qwen3VL30BA3BHeader() (string, []safetensors.Tensor) {
	data := mustCorpusModel("Qwen__Qwen3-VL-30B-A3B-Instruct")
	ts := []safetensors.Tensor{
		bf16("lm_head.weight", 151936, 2048),
		bf16("model.language_model.embed_tokens.weight", 151936, 2048),
		bf16("model.language_model.norm.weight", 2048),
	}
	for l := range 48 {
		p := fmt.Sprintf("model.language_model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 2048),
			bf16(p+"mlp.experts.down_proj", 128, 768, 2048),
			bf16(p+"mlp.experts.gate_up_proj", 128, 2048, 1536),
			bf16(p+"mlp.gate.weight", 128, 2048),
			bf16(p+"post_attention_layernorm.weight", 2048),
			bf16(p+"self_attn.k_norm.weight", 128),
			bf16(p+"self_attn.k_proj.weight", 512, 2048),
			bf16(p+"self_attn.o_proj.weight", 2048, 4096),
			bf16(p+"self_attn.q_norm.weight", 128),
			bf16(p+"self_attn.q_proj.weight", 4096, 2048),
			bf16(p+"self_attn.v_proj.weight", 512, 2048))
	}
	for b := range 27 {
		p := fmt.Sprintf("model.visual.blocks.%d.", b)
		ts = append(ts,
			bf16(p+"attn.proj.bias", 1152), bf16(p+"attn.proj.weight", 1152, 1152),
			bf16(p+"attn.qkv.bias", 3456), bf16(p+"attn.qkv.weight", 3456, 1152),
			bf16(p+"mlp.linear_fc1.bias", 4304), bf16(p+"mlp.linear_fc1.weight", 4304, 1152),
			bf16(p+"mlp.linear_fc2.bias", 1152), bf16(p+"mlp.linear_fc2.weight", 1152, 4304),
			bf16(p+"norm1.bias", 1152), bf16(p+"norm1.weight", 1152),
			bf16(p+"norm2.bias", 1152), bf16(p+"norm2.weight", 1152))
	}
	merger := func(p string, norm uint64) []safetensors.Tensor {
		return []safetensors.Tensor{
			bf16(p+"linear_fc1.bias", 4608), bf16(p+"linear_fc1.weight", 4608, 4608),
			bf16(p+"linear_fc2.bias", 2048), bf16(p+"linear_fc2.weight", 2048, 4608),
			bf16(p+"norm.bias", norm), bf16(p+"norm.weight", norm),
		}
	}
	for d := range 3 {
		ts = append(ts, merger(fmt.Sprintf("model.visual.deepstack_merger_list.%d.", d), 4608)...)
	}
	ts = append(ts, merger("model.visual.merger.", 1152)...)
	ts = append(ts, bf16("model.visual.patch_embed.proj.bias", 1152), bf16("model.visual.patch_embed.proj.weight", 1152, 3, 2, 16, 16),
		bf16("model.visual.pos_embed.weight", 2304, 1152))
	return string(data), ts
}

// TestQwen3VL30BA3BHeader: the published checkpoint's 882 tensors, read by
// qwen3_vl_moe's rules, are the 31,070,754,032 parameters its listing
// totals (x 2 B, with the buffers no checkpoint holds: the mrope table
// 4 x 262,144 x 128 x 2 B and the tower's 8192 x 36 x 2 B), as the config
// gives them; and under tensor and expert parallelism the checkpoint and
// the config agree rank by rank.
func TestQwen3VL30BA3BHeader(t *testing.T) {
	_, ts := qwen3VL30BA3BHeader()
	if len(ts) != 882 {
		t.Fatalf("%d tensors, the listing counts 882", len(ts))
	}
	checkByHand(t, []byHandCase{{
		name: "Qwen3-VL-30B-A3B-Instruct", fixture: qwen3VL30BA3BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 31070754032*2 + 4*262144*128*2 + 8192*36*2, ""}},
	}})
	a, _ := attach(t, qwen3VL30BA3BHeader)
	for _, sh := range []Sharding{Whole(a, 4, 2, a.Quant), {TP: 8, ExpertRanks: 8, EndLayer: 48, First: true, Last: true, DtypeBytes: 2}} {
		if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
			t.Errorf("TP%d EP%d: checkpoint %d B, config %d B", sh.TP, sh.ExpertRanks, c, w)
		}
	}
}

// glm47FlashHeader is zai-org/GLM-4.7-Flash's safetensors header as its
// published listing gives it (9,703 tensors in 48 shards, bf16 but the
// float32 routing biases; see corpus/models/SOURCES.md), its MTP layer 47
// included, with its config.json.
func glm47FlashHeader() (string, []safetensors.Tensor) {
	data := mustCorpusModel("zai-org__GLM-4.7-Flash")
	ts := []safetensors.Tensor{bf16("lm_head.weight", 154880, 2048), bf16("model.embed_tokens.weight", 154880, 2048), bf16("model.norm.weight", 2048)}
	for l := range 48 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", 2048), bf16(p+"post_attention_layernorm.weight", 2048),
			bf16(p+"self_attn.kv_a_layernorm.weight", 512), bf16(p+"self_attn.kv_a_proj_with_mqa.weight", 576, 2048),
			bf16(p+"self_attn.kv_b_proj.weight", 8960, 512), bf16(p+"self_attn.o_proj.weight", 2048, 5120),
			bf16(p+"self_attn.q_a_layernorm.weight", 768), bf16(p+"self_attn.q_a_proj.weight", 768, 2048),
			bf16(p+"self_attn.q_b_proj.weight", 5120, 768))
		if l == 0 {
			ts = append(ts, bf16(p+"mlp.down_proj.weight", 2048, 10240), bf16(p+"mlp.gate_proj.weight", 10240, 2048),
				bf16(p+"mlp.up_proj.weight", 10240, 2048))
			continue
		}
		for e := range 64 {
			q := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(q+"down_proj.weight", 2048, 1536), bf16(q+"gate_proj.weight", 1536, 2048), bf16(q+"up_proj.weight", 1536, 2048))
		}
		ts = append(ts, typed("F32", p+"mlp.gate.e_score_correction_bias", 64), bf16(p+"mlp.gate.weight", 64, 2048),
			bf16(p+"mlp.shared_experts.down_proj.weight", 2048, 1536), bf16(p+"mlp.shared_experts.gate_proj.weight", 1536, 2048),
			bf16(p+"mlp.shared_experts.up_proj.weight", 1536, 2048))
	}
	ts = append(ts, bf16("model.layers.47.eh_proj.weight", 2048, 4096), bf16("model.layers.47.embed_tokens.weight", 154880, 2048),
		bf16("model.layers.47.enorm.weight", 2048), bf16("model.layers.47.hnorm.weight", 2048),
		bf16("model.layers.47.shared_head.head.weight", 154880, 2048), bf16("model.layers.47.shared_head.norm.weight", 2048))
	return string(data), ts
}

// TestGLM47FlashHeader: the published checkpoint's 9,703 tensors (31,221,
// 488,576 parameters, its MTP layer's 1,278,094,656 among them), read by
// glm4_moe_lite's rules, are what the config gives: the MTP layer skipped,
// the routers and their biases in float32 (TestNewFamilyWeightsByHand's
// sum); under tensor and expert parallelism and on pipeline stages the
// checkpoint and the config agree rank by rank.
func TestGLM47FlashHeader(t *testing.T) {
	_, ts := glm47FlashHeader()
	if len(ts) != 9703 {
		t.Fatalf("%d tensors, the listing counts 9703", len(ts))
	}
	checkByHand(t, []byHandCase{{
		name: "GLM-4.7-Flash", fixture: glm47FlashHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), (29943393920-6032256)*2 + 6032256*4 + 202752*64*2, ""}},
	}})
	a, notes := attach(t, glm47FlashHeader)
	// The MTP layer 47: 7 attention tensors and 2 norms, 64 x 3
	// experts, the router and its bias, 3 shared-expert tensors, and the
	// 6 of MTP alone (eh_proj, embed_tokens, enorm, hnorm, shared_head's
	// head and norm): 212.
	if diff := cmp.Diff([]SkippedTensors{{Reason: skipMTP, Count: 212}}, notes.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	for _, sh := range []Sharding{Whole(a, 4, 2, a.Quant), {TP: 8, ExpertRanks: 8, EndLayer: 47, First: true, Last: true, DtypeBytes: 2},
		{TP: 2, FirstLayer: 24, EndLayer: 47, Last: true, DtypeBytes: 2}} {
		if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
			t.Errorf("TP%d EP%d layers [%d, %d): checkpoint %d B, config %d B", sh.TP, sh.ExpertRanks, sh.FirstLayer, sh.EndLayer, c, w)
		}
	}
}
