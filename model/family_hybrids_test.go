package model

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// The shapes of the configs corpus/models ships for the state-space
// families, entered by hand from the files (see TestShippedConfigsParse).
func init() {
	// mamba-2.8b-hf: 64 Mamba layers of 2560, no attention, no length key
	// (MaxPos 0), tied (PretrainedConfig's default), float32.
	shippedShapes["state-spaces__mamba-2.8b-hf"] = shape{ModelType: "mamba", Layers: 64, Hidden: 2560, Vocab: 50280, Tied: true,
		Mamba: 64, Dtype: "float32"}
}

// hybridShapes are config.json files of the Mamba hybrids and state-space
// families, written by hand from the numbers their published configs give
// (their real config.json files were not found; corpus/models/SOURCES.md
// says where each number was read).
var hybridShapes = map[string]string{
	// ibm-granite/granite-4.0-h-tiny: 1536 hidden, 40 layers of which
	// 5, 15, 25 and 35 attention (12 heads, 4 KV heads, no rotary), the
	// others Mamba2 (48 heads of 64, state 128, 1 group, conv 4, expand
	// 2), every layer 64 experts top-6 of 512 and a shared MLP of 1024,
	// vocabulary 100,352, 131,072 positions, tied, bfloat16.
	"granite-4.0-h-tiny": `{"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "hidden_size": 1536,
 "num_hidden_layers": 40, "num_attention_heads": 12, "num_key_value_heads": 4, "intermediate_size": 512,
 "shared_intermediate_size": 1024, "num_local_experts": 64, "num_experts_per_tok": 6, "vocab_size": 100352,
 "max_position_embeddings": 131072, "tie_word_embeddings": true, "position_embedding_type": "nope",
 "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2,
 "mamba_chunk_size": 256, "mamba_conv_bias": true, "mamba_proj_bias": false, "torch_dtype": "bfloat16",
 "embedding_multiplier": 12, "residual_multiplier": 0.22, "attention_multiplier": 0.0078125, "logits_scaling": 6,
 "layer_types": ["mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba"]}`,
	// ibm-granite/granite-4.0-h-1b: granite-4.0-h-tiny's layout without
	// experts, a shared MLP of 4096 on every layer.
	"granite-4.0-h-1b": `{"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "hidden_size": 1536,
 "num_hidden_layers": 40, "num_attention_heads": 12, "num_key_value_heads": 4, "intermediate_size": 4096,
 "shared_intermediate_size": 4096, "num_local_experts": 0, "num_experts_per_tok": 0, "vocab_size": 100352,
 "max_position_embeddings": 131072, "tie_word_embeddings": true, "position_embedding_type": "nope",
 "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2,
 "mamba_chunk_size": 256, "torch_dtype": "bfloat16",
 "layer_types": ["mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba"]}`,
	// tiiuae/Falcon-H1-0.5B-Instruct: 1024 hidden, 36 layers each of
	// attention (8 heads of 64, 2 KV heads) beside a Mamba2 mixer (24
	// heads of 64, state 128, 1 group, conv 4, no norm weight), MLP 2048,
	// vocabulary 32,784, 16,384 positions, untied, bfloat16.
	// mamba_d_ssm, which the copy this was read from leaves out, is 24 x
	// 64 = 1536, the only value FalconH1Config accepts beside those heads.
	"falcon-h1-0.5b": `{"architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1", "attention_bias": false,
 "attention_in_multiplier": 1.0, "attention_out_multiplier": 0.9375, "embedding_multiplier": 5.656854249492381, "head_dim": 64,
 "hidden_act": "silu", "hidden_size": 1024, "intermediate_size": 2048, "key_multiplier": 0.39062499999999994,
 "lm_head_multiplier": 0.0390625, "mamba_chunk_size": 128, "mamba_conv_bias": true, "mamba_d_conv": 4, "mamba_d_head": 64,
 "mamba_d_ssm": 1536, "mamba_d_state": 128, "mamba_expand": 2, "mamba_n_groups": 1, "mamba_n_heads": 24,
 "mamba_norm_before_gate": false, "mamba_proj_bias": false, "mamba_rms_norm": false, "mamba_use_mlp": true,
 "max_position_embeddings": 16384, "mlp_bias": false, "mlp_multipliers": [0.8838834764831844, 0.5859375],
 "num_attention_heads": 8, "num_hidden_layers": 36, "num_key_value_heads": 2, "projectors_bias": false, "rms_norm_eps": 1e-5,
 "rope_scaling": null, "rope_theta": 100000000000.0, "ssm_in_multiplier": 1.25,
 "ssm_multipliers": [0.3535533905932738, 0.25, 0.3535533905932738, 0.5, 0.3535533905932738],
 "ssm_out_multiplier": 0.23570226039551587, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32784}`,
	// ai21labs/Jamba-v0.1: 4096 hidden, 32 layers, attention every 8th
	// from layer 4 (32 heads, 8 KV heads), Mamba1 elsewhere (expand 2,
	// state 16, conv 4, dt rank 256), 16 experts top-2 of 14,336 on the
	// odd layers, vocabulary 65,536, 262,144 positions, untied, bfloat16.
	"jamba-v0.1": `{"architectures": ["JambaForCausalLM"], "model_type": "jamba", "hidden_size": 4096, "intermediate_size": 14336,
 "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "num_experts": 16, "num_experts_per_tok": 2,
 "expert_layer_period": 2, "expert_layer_offset": 1, "attn_layer_period": 8, "attn_layer_offset": 4, "mamba_d_state": 16,
 "mamba_d_conv": 4, "mamba_expand": 2, "mamba_dt_rank": 256, "mamba_conv_bias": true, "mamba_proj_bias": false,
 "vocab_size": 65536, "max_position_embeddings": 262144, "sliding_window": null, "tie_word_embeddings": false,
 "torch_dtype": "bfloat16", "use_mamba_kernels": true}`,
	// mistralai/Mamba-Codestral-7B-v0.1: 4096 hidden, 64 Mamba2 layers of
	// 128 heads of 64 in 8 groups, state 128, conv 4, expand 2,
	// vocabulary 32,768, untied, no length key, bfloat16.
	"mamba-codestral-7b": `{"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "hidden_size": 4096,
 "num_hidden_layers": 64, "num_heads": 128, "head_dim": 64, "n_groups": 8, "state_size": 128, "conv_kernel": 4, "expand": 2,
 "chunk_size": 256, "use_bias": false, "use_conv_bias": true, "vocab_size": 32768, "tie_word_embeddings": false,
 "torch_dtype": "bfloat16"}`,
	// tiiuae/falcon-mamba-7b: 4096 hidden, 64 Mamba1 layers of
	// intermediate_size 8192 (given beside expand 16), state 16, conv 4,
	// time_step_rank 256, vocabulary 65,024, untied, bfloat16.
	"falcon-mamba-7b": `{"architectures": ["FalconMambaForCausalLM"], "model_type": "falcon_mamba", "hidden_size": 4096,
 "num_hidden_layers": 64, "intermediate_size": 8192, "expand": 16, "state_size": 16, "conv_kernel": 4, "time_step_rank": 256,
 "use_bias": false, "use_conv_bias": true, "mixer_rms_eps": 1e-06, "vocab_size": 65024, "tie_word_embeddings": false,
 "torch_dtype": "bfloat16"}`,
}

// TestHybridWeightsByHand: the weights of each hybridShapes model, whole
// on one rank in bf16, counted by hand as vLLM's model file builds it.
func TestHybridWeightsByHand(t *testing.T) {
	tests := []struct {
		name, kinds string
		want        uint64
	}{
		// granite-4.0-h-tiny (granitemoehybrid.py). A Mamba layer
		// (MambaMixer2 of 2 x 1536 = 3072 channels): in_proj 1536 x (2 x
		// 3072 + 2 x 128 + 48) = 9,904,128; conv1d (3072 + 256) x 4 =
		// 13,312 and its bias 3328; D, dt_bias 48 each; the gated norm
		// 3072; out_proj 3072 x 1536 = 4,718,592: 14,642,528, and A 48 in
		// float32. An attention layer: qkv 1536 x (1536 + 2 x 512) =
		// 3,932,160, o_proj 2,359,296: 6,291,456. Every layer: the router
		// 64 x 1536 = 98,304, 64 experts of 3 x 512 x 1536 =
		// 150,994,944, the shared MLP 3 x 1024 x 1536 = 4,718,592, two
		// norms 3072: 155,814,912. 36 x 14,642,528 + 4 x 6,291,456 + 40 x
		// 155,814,912 = 6,784,893,312; the tied embedding 100,352 (a
		// multiple of 64) x 1536 = 154,140,672, norm 1536:
		// 6,939,035,520 bf16 parameters and 36 x 48 = 1728 float32 ones
		// (Granite-4.0-H-Tiny's 6.94B); no rotary (nope).
		{"granite-4.0-h-tiny", granitePattern("e"), 6939035520*2 + 1728*4},
		// granite-4.0-h-1b: the Mamba and attention layers as above; every
		// layer a shared MLP of 3 x 4096 x 1536 = 18,874,368 and two norms
		// 3072. 36 x 14,642,528 + 4 x 6,291,456 + 40 x 18,877,440 =
		// 1,307,394,432; embedding 154,140,672, norm 1536: 1,461,536,640
		// bf16 parameters and 1728 float32 ones (Granite-4.0-H-1B's 1.5B).
		{"granite-4.0-h-1b", granitePattern(""), 1461536640*2 + 1728*4},
		// Falcon-H1-0.5B (falcon_h1.py). A layer: attention qkv 1024 x
		// (512 + 2 x 128) = 786,432, o_proj 512 x 1024 = 524,288; the
		// Mamba2 mixer beside it: in_proj 1024 x (2 x 1536 + 2 x 128 + 24)
		// = 3,432,448, conv1d (1536 + 256) x 4 = 7168 and its bias 1792,
		// D and dt_bias 24 each, no norm weight (mamba_rms_norm false),
		// out_proj 1536 x 1024 = 1,572,864, and the mup_vector buffer of
		// the 3352 in_proj outputs; A 24 in float32; the MLP's gate_up
		// 1024 x 4096 = 4,194,304 and down 2,097,152; two norms 2048:
		// 12,621,896, x 36 = 454,388,256. The embedding and the untied
		// head 32,832 rows (32,784 padded to a multiple of 64) x 1024 =
		// 33,619,968 each, final_layernorm 1024, the rotary table 16,384 x
		// 64: 522,677,792 bf16 elements and 36 x 24 = 864 float32 ones.
		// Without the buffers and the padding rows, 521,410,240 + 864
		// parameters (Falcon-H1-0.5B's 0.52B).
		{"falcon-h1-0.5b", strings.Repeat("F", 36), 522677792*2 + 864*4},
		// Jamba-v0.1 (jamba.py). A Mamba layer (MambaMixer of 8192
		// channels, unquantized): in_proj 4096 x 16,384 = 67,108,864,
		// conv1d 8192 x 4 = 32,768 and its bias 8192, x_proj 8192 x (256 +
		// 32) = 2,359,296, dt_proj 256 x 8192 = 2,097,152 and its bias
		// 8192, D 8192, out_proj 33,554,432, the dt, B and C norms 256 +
		// 16 + 16: 105,177,376, and A 8192 x 16 = 131,072 in float32. An
		// attention layer: qkv 4096 x (4096 + 2 x 1024) = 25,165,824,
		// o_proj 16,777,216: 41,943,040. A dense MLP 3 x 4096 x 14,336 =
		// 176,160,768; a MoE one the router 16 x 4096 = 65,536 and 16
		// such experts 2,818,572,288. Two norms 8192 a layer. 28 Mamba
		// and 4 attention layers (4, 12, 20, 28, all even: dense), 16 MoE
		// (the odd ones) and 16 dense MLPs: 2,944,966,528 + 167,772,160 +
		// 2,818,572,288 + 45,098,205,184 + 262,144; the embedding and
		// head 65,536 x 4096 = 268,435,456 each, final_layernorm 4096:
		// 51,566,653,312 bf16 parameters and 28 x 131,072 = 3,670,016
		// float32 ones (Jamba's 51.6B); no rotary.
		{"jamba-v0.1", jambaPattern(), 51566653312*2 + 3670016*4},
		// Mamba-Codestral-7B (mamba2.py). A layer (MambaMixer2 of 8192
		// channels): in_proj 4096 x (2 x 8192 + 2 x 8 x 128 + 128) =
		// 76,021,760, conv1d (8192 + 2048) x 4 = 40,960 and its bias
		// 10,240, D and dt_bias 128 each, the gated norm 8192, out_proj
		// 33,554,432, the layer's norm 4096: 109,639,936, and A 128 in
		// float32. 64 layers: 7,016,955,904; the embeddings and untied
		// head 32,768 x 4096 = 134,217,728 each, norm_f 4096:
		// 7,285,395,456 bf16 parameters and 8192 float32 ones (Codestral
		// Mamba's 7.3B).
		{"mamba-codestral-7b", strings.Repeat("M", 64), 7285395456*2 + 8192*4},
		// falcon-mamba-7b (mamba.py as FalconMamba). A layer (MambaMixer of
		// 8192 channels, use_bias false): in_proj 4096 x 16,384 =
		// 67,108,864, conv1d 32,768 and its bias 8192, x_proj 8192 x 288 =
		// 2,359,296, dt_proj 2,097,152 and its bias 8192, D 8192, out_proj
		// 33,554,432, the weightless dt, B and C norms' ones 256 + 16 + 16,
		// the layer's norm 4096: 105,181,472, and A 131,072 in float32. 64
		// layers: 6,731,614,208; the embeddings and untied head 65,024 x
		// 4096 = 266,338,304 each, norm_f 4096: 7,264,294,912 bf16
		// elements and 8,388,608 float32 ones; without the ones,
		// 7,272,665,088 parameters (Falcon Mamba 7B's 7.27B).
		{"falcon-mamba-7b", strings.Repeat("M", 64), 7264294912*2 + 8388608*4},
	}
	for _, tt := range tests {
		a, err := ParseConfig(tt.name+".json", []byte(hybridShapes[tt.name]))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.kinds, kinds(a.Layers)); diff != "" {
			t.Errorf("%s layers (-want +got):\n%s", tt.name, diff)
		}
		if got := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))); got != tt.want {
			t.Errorf("%s: %d B, want %d (by hand)", tt.name, got, tt.want)
		}
	}
}

// jambaPattern is Jamba-v0.1's 32 layers as kinds writes them: attention
// at 4, 12, 20 and 28, MoE on the odd layers.
func jambaPattern() string {
	var b strings.Builder
	for i := range 32 {
		k := "M"
		if i%8 == 4 {
			k = "F"
		}
		if i%2 == 1 {
			k += "e"
		}
		b.WriteString(k)
	}
	return b.String()
}

// granitePattern is Granite 4.0-H's 40 layers as kinds writes them, the
// attention at layers 5, 15, 25 and 35, each layer's kind followed by moe.
func granitePattern(moe string) string {
	var b strings.Builder
	for i := range 40 {
		k := "M"
		if i%10 == 5 {
			k = "F"
		}
		b.WriteString(k + moe)
	}
	return b.String()
}

// graniteHybridFixture: Granite 4.0-H as its checkpoints name it
// (model.layers.N.mamba.*, block_sparse_moe, shared_mlp): hidden 64;
// layer 0 Mamba2 of expand 1 (64 channels) in 4 heads of 16, 1 group of
// state 16, conv 4 with its bias; layer 1 attention of 4 heads of 16, 2 KV
// heads, no rotary; every layer 2 experts of 32 stacked and a shared MLP
// of 32; vocabulary 128, tied.
func graniteHybridFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"granitemoehybrid","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,` +
		`"num_hidden_layers":2,"layer_types":["mamba","attention"],"mamba_n_heads":4,"mamba_d_state":16,"mamba_n_groups":1,` +
		`"mamba_d_conv":4,"mamba_expand":1,"num_local_experts":2,"num_experts_per_tok":1,"intermediate_size":32,` +
		`"shared_intermediate_size":32,"vocab_size":128,"max_position_embeddings":64,"tie_word_embeddings":true,` +
		`"position_embedding_type":"nope","torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64),
			bf16(p+"block_sparse_moe.router.layer.weight", 2, 64),
			bf16(p+"block_sparse_moe.input_linear.weight", 2, 64, 64), bf16(p+"block_sparse_moe.output_linear.weight", 2, 64, 32),
			bf16(p+"shared_mlp.input_linear.weight", 64, 64), bf16(p+"shared_mlp.output_linear.weight", 64, 32))
	}
	p := "model.layers.0.mamba."
	ts = append(ts,
		bf16(p+"in_proj.weight", 2*64+2*16+4, 64), bf16(p+"conv1d.weight", 64+2*16, 1, 4), bf16(p+"conv1d.bias", 64+2*16),
		typed("F32", p+"A_log", 4), bf16(p+"D", 4), bf16(p+"dt_bias", 4), bf16(p+"norm.weight", 64),
		bf16(p+"out_proj.weight", 64, 64))
	p = "model.layers.1.self_attn."
	ts = append(ts, bf16(p+"q_proj.weight", 64, 64), bf16(p+"k_proj.weight", 32, 64), bf16(p+"v_proj.weight", 32, 64),
		bf16(p+"o_proj.weight", 64, 64))
	return config, append(ts, bf16("model.norm.weight", 64))
}

// falconH1Fixture: Falcon-H1 as its checkpoints name it (model.layers.N.
// self_attn, mamba, feed_forward, input_layernorm, pre_ff_layernorm;
// model.final_layernorm): hidden 64, 1 layer of attention (4 heads of 16,
// 2 KV heads) beside a Mamba2 mixer of 64 channels in 4 heads of 16, 1
// group of state 16, conv 4 with its bias and the gated norm's weight
// (mamba_rms_norm), MLP 128, vocabulary 128, 64 positions, untied.
func falconH1Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"falcon_h1","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,` +
		`"num_hidden_layers":1,"intermediate_size":128,"mamba_d_ssm":64,"mamba_n_heads":4,"mamba_d_head":"auto","mamba_d_state":16,` +
		`"mamba_n_groups":1,"mamba_d_conv":4,"mamba_rms_norm":true,"vocab_size":128,"max_position_embeddings":64,` +
		`"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	p := "model.layers.0."
	return config, []safetensors.Tensor{
		bf16("model.embed_tokens.weight", 128, 64),
		bf16(p+"input_layernorm.weight", 64), bf16(p+"pre_ff_layernorm.weight", 64),
		bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.k_proj.weight", 32, 64),
		bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.o_proj.weight", 64, 64),
		bf16(p+"mamba.in_proj.weight", 2*64+2*16+4, 64), bf16(p+"mamba.conv1d.weight", 64+2*16, 1, 4), bf16(p+"mamba.conv1d.bias", 64+2*16),
		typed("F32", p+"mamba.A_log", 4), bf16(p+"mamba.D", 4), bf16(p+"mamba.dt_bias", 4), bf16(p+"mamba.norm.weight", 64),
		bf16(p+"mamba.out_proj.weight", 64, 64),
		bf16(p+"feed_forward.gate_proj.weight", 128, 64), bf16(p+"feed_forward.up_proj.weight", 128, 64),
		bf16(p+"feed_forward.down_proj.weight", 64, 128),
		bf16("model.final_layernorm.weight", 64), bf16("lm_head.weight", 128, 64),
	}
}

// jambaFixture: Jamba as ai21labs' checkpoints name it: hidden 64; layer 0
// a Mamba1 mixer of 64 channels (expand 1), state 8, conv 4 with its bias,
// dt rank 4, and a dense MLP of 32; layer 1 attention of 4 heads of 16, 2
// KV heads, and 2 experts of 32 with their router; vocabulary 128, untied.
func jambaFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"jamba","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"num_hidden_layers":2,` +
		`"attn_layer_period":2,"attn_layer_offset":1,"expert_layer_period":2,"expert_layer_offset":1,"num_experts":2,` +
		`"num_experts_per_tok":1,"intermediate_size":32,"mamba_expand":1,"mamba_d_state":8,"mamba_d_conv":4,"mamba_dt_rank":4,` +
		`"vocab_size":128,"max_position_embeddings":64,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 128, 64)}
	for l := range 2 {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, bf16(p+"input_layernorm.weight", 64), bf16(p+"pre_ff_layernorm.weight", 64))
	}
	p := "model.layers.0."
	ts = append(ts,
		bf16(p+"mamba.in_proj.weight", 128, 64), bf16(p+"mamba.conv1d.weight", 64, 1, 4), bf16(p+"mamba.conv1d.bias", 64),
		bf16(p+"mamba.x_proj.weight", 20, 64), bf16(p+"mamba.dt_proj.weight", 64, 4), bf16(p+"mamba.dt_proj.bias", 64),
		typed("F32", p+"mamba.A_log", 64, 8), bf16(p+"mamba.D", 64), bf16(p+"mamba.out_proj.weight", 64, 64),
		bf16(p+"mamba.dt_layernorm.weight", 4), bf16(p+"mamba.b_layernorm.weight", 8), bf16(p+"mamba.c_layernorm.weight", 8),
		bf16(p+"feed_forward.gate_proj.weight", 32, 64), bf16(p+"feed_forward.up_proj.weight", 32, 64),
		bf16(p+"feed_forward.down_proj.weight", 64, 32))
	p = "model.layers.1."
	ts = append(ts, bf16(p+"self_attn.q_proj.weight", 64, 64), bf16(p+"self_attn.k_proj.weight", 32, 64),
		bf16(p+"self_attn.v_proj.weight", 32, 64), bf16(p+"self_attn.o_proj.weight", 64, 64),
		bf16(p+"feed_forward.router.weight", 2, 64))
	for e := range 2 {
		q := fmt.Sprintf("%sfeed_forward.experts.%d.", p, e)
		ts = append(ts, bf16(q+"gate_proj.weight", 32, 64), bf16(q+"up_proj.weight", 32, 64), bf16(q+"down_proj.weight", 64, 32))
	}
	return config, append(ts, bf16("model.final_layernorm.weight", 64), bf16("lm_head.weight", 128, 64))
}

// TestMambaWeightsByHand: mamba-2.8b-hf, shipped, whole on one rank in
// bf16, counted by hand as mamba.py builds it. A layer (MambaMixer of 5120
// channels without its norms, use_bias false): in_proj 2560 x 10,240 =
// 26,214,400, conv1d 5120 x 4 = 20,480 and its bias 5120, x_proj 5120 x
// (160 + 32) = 983,040, dt_proj 160 x 5120 = 819,200 and its bias 5120, D
// 5120, out_proj 13,107,200, the layer's norm 2560: 41,162,240, and A 5120
// x 16 = 81,920 in float32. 64 layers: 2,634,383,360; the tied embeddings
// 50,304 rows (50,280 padded to 64) x 2560 = 128,778,240, norm_f 2560:
// 2,763,164,160 bf16 elements and 5,242,880 float32 ones; without the 24
// padding rows 2,768,345,600 parameters (mamba-2.8b's 2.8B). No rotary.
func TestMambaWeightsByHand(t *testing.T) {
	a := shippedArch(t, "state-spaces__mamba-2.8b-hf")
	if got, want := sumItems(Weights(a, Whole(a, 1, 2, a.Quant))), uint64(2763164160*2+5242880*4); got != want {
		t.Errorf("%d B, want %d (by hand)", got, want)
	}
	if diff := cmp.Diff(MambaShape{Version: 1, StateSize: 16, ConvKernel: 4, Intermediate: 5120, TimeStepRank: 160}, *a.Mamba); diff != "" {
		t.Errorf("shape (-want +got):\n%s", diff)
	}
	// No heads to name: the one-line summary says attention-free.
	if got, want := a.String(), "mamba: 64 layers, hidden 2560, attention-free, dense"; got != want {
		t.Errorf("String: %q, want %q", got, want)
	}
}

// mambaFixture: Mamba as state-spaces' -hf checkpoints name it
// (backbone.embeddings, backbone.layers.N.mixer and norm, backbone.norm_f):
// hidden 64, 1 layer of 128 channels (expand 2), state 8, conv 4 with its
// bias, time_step_rank 4, no in_proj or out_proj bias, vocabulary 128,
// untied.
func mambaFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"mamba","hidden_size":64,"num_hidden_layers":1,"expand":2,"state_size":8,"conv_kernel":4,` +
		`"time_step_rank":4,"use_bias":false,"use_conv_bias":true,"vocab_size":128,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	p := "backbone.layers.0."
	return config, []safetensors.Tensor{
		bf16("backbone.embeddings.weight", 128, 64), bf16(p+"norm.weight", 64),
		bf16(p+"mixer.in_proj.weight", 256, 64), bf16(p+"mixer.conv1d.weight", 128, 1, 4), bf16(p+"mixer.conv1d.bias", 128),
		bf16(p+"mixer.x_proj.weight", 20, 128), bf16(p+"mixer.dt_proj.weight", 128, 4), bf16(p+"mixer.dt_proj.bias", 128),
		typed("F32", p+"mixer.A_log", 128, 8), bf16(p+"mixer.D", 128), bf16(p+"mixer.out_proj.weight", 64, 128),
		bf16("backbone.norm_f.weight", 64), bf16("lm_head.weight", 128, 64),
	}
}

// mamba2Fixture: Mamba2 as its checkpoints name it (backbone.embeddings,
// backbone.layers.N.mixer and norm, backbone.norm_f): hidden 32, 1 layer
// of 64 channels in 4 heads of 16, 2 groups of state 8, conv 4 with its
// bias, vocabulary 64, untied.
func mamba2Fixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"mamba2","hidden_size":32,"num_hidden_layers":1,"expand":2,"num_heads":4,"head_dim":16,` +
		`"n_groups":2,"state_size":8,"conv_kernel":4,"vocab_size":64,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`
	p := "backbone.layers.0."
	return config, []safetensors.Tensor{
		bf16("backbone.embeddings.weight", 64, 32), bf16(p+"norm.weight", 32),
		bf16(p+"mixer.in_proj.weight", 2*64+2*2*8+4, 32), bf16(p+"mixer.conv1d.weight", 64+2*2*8, 1, 4), bf16(p+"mixer.conv1d.bias", 64+2*2*8),
		typed("F32", p+"mixer.A_log", 4), bf16(p+"mixer.D", 4), bf16(p+"mixer.dt_bias", 4), bf16(p+"mixer.norm.weight", 64),
		bf16(p+"mixer.out_proj.weight", 32, 64),
		bf16("backbone.norm_f.weight", 32), bf16("lm_head.weight", 64, 32),
	}
}

// falconMambaFixture: Falcon Mamba as tiiuae's checkpoint names it (Mamba's
// names, no norms in the mixer): hidden 64, 1 layer of 128 channels,
// state 8, conv 4 with its bias, time_step_rank 4, vocabulary 128, tied.
func falconMambaFixture() (string, []safetensors.Tensor) {
	config := `{"model_type":"falcon_mamba","hidden_size":64,"num_hidden_layers":1,"expand":2,"state_size":8,"conv_kernel":4,` +
		`"time_step_rank":4,"vocab_size":128,"torch_dtype":"bfloat16"}`
	p := "backbone.layers.0."
	return config, []safetensors.Tensor{
		bf16("backbone.embeddings.weight", 128, 64), bf16(p+"norm.weight", 64),
		bf16(p+"mixer.in_proj.weight", 256, 64), bf16(p+"mixer.conv1d.weight", 128, 1, 4), bf16(p+"mixer.conv1d.bias", 128),
		bf16(p+"mixer.x_proj.weight", 20, 128), bf16(p+"mixer.dt_proj.weight", 128, 4), bf16(p+"mixer.dt_proj.bias", 128),
		typed("F32", p+"mixer.A_log", 128, 8), bf16(p+"mixer.D", 128), bf16(p+"mixer.out_proj.weight", 64, 128),
		bf16("backbone.norm_f.weight", 64),
	}
}

// TestHybridCheckpointsByHand checks the weights one rank holds of the
// hybrid fixtures, from the checkpoint and from config.json, against sums
// by hand.
func TestHybridCheckpointsByHand(t *testing.T) {
	whole := func(tp uint64) func(a *Arch) Sharding { return tpRanks(tp, 0) }
	checkByHand(t, []byHandCase{
		{
			// TP1. Layer 0, Mamba2: in_proj 164 x 64 x 2 = 20,992, conv1d
			// 96 x 4 x 2 = 768 and its bias 192, A (float32) 16, D 8,
			// dt_bias 8, norm 128, out_proj 8192: 30,304. Layer 1: q 8192,
			// k and v 4096 each, o 8192: 24,576. Each layer: the router 2 x
			// 64 x 2 = 256, the experts' input_linear 2 x 64 x 64 x 2 =
			// 16,384 and output_linear 2 x 64 x 32 x 2 = 8192, the shared
			// MLP 64 x 64 x 2 = 8192 and 64 x 32 x 2 = 4096, two norms 256:
			// 37,376. The tied embedding 16,384, norm 128.
			// TP2: the group is repeated to 2 (32 more rows of B and C).
			// Layer 0: in_proj (164 + 32) / 2 = 98 rows 12,544, conv1d 64
			// rows 512 and bias 128, A 8, D 4, dt_bias 4, norm 64, out_proj
			// 64 x 32 x 2 = 4096: 17,360. Layer 1: q 2 heads 4096, k and v
			// one head 2048 each, o 4096: 12,288. Each layer: router 256,
			// experts 8192 + 4096, shared 4096 + 2048, norms 256: 18,944.
			// Embedding 64 rows 8192.
			name: "granitemoehybrid", fixture: graniteHybridFixture,
			ranks: []byHandRank{
				{"TP1", whole(1), 30304 + 24576 + 2*37376 + 16384 + 128, ""},
				{"TP2", whole(2), 17360 + 12288 + 2*18944 + 8192 + 128, ""},
			},
		},
		{
			// TP1. Attention: q 8192, k and v 4096 each, o 8192: 24,576.
			// The mixer: in_proj 164 x 64 x 2 = 20,992, conv1d 96 x 4 x 2 =
			// 768 and bias 192, A (float32) 16, D 8, dt_bias 8, norm 128,
			// out_proj 8192: 30,304; the mup_vector buffer 164 x 2 = 328.
			// The MLP: gate and up 128 x 64 x 2 = 16,384 each, down 16,384:
			// 49,152. Two norms 256. Embedding and head 16,384 each,
			// final_layernorm 128, rotary 64 x 16 x 2 = 2048.
			// TP2: attention q 2 heads 4096, k and v one head 2048 each, o
			// 64 x 32 x 2 = 4096: 12,288. The mixer with its group repeated
			// to 2: in_proj 98 rows 12,544, conv1d 64 rows 512 and bias 128,
			// A 8, D 4, dt_bias 4, norm 64, out_proj 4096: 17,360; mup 98
			// x 2 = 196. MLP 8192 x 3 = 24,576; norms 256. Embedding and
			// head 64 rows 8192 each.
			name: "falcon_h1", fixture: falconH1Fixture,
			ranks: []byHandRank{
				{"TP1", whole(1), 24576 + 30304 + 328 + 49152 + 256 + 16384 + 16384 + 128 + 2048, ""},
				{"TP2", whole(2), 12288 + 17360 + 196 + 24576 + 256 + 8192 + 8192 + 128 + 2048, ""},
			},
		},
		{
			// TP1. Layer 0's mixer: in_proj 128 x 64 x 2 = 16,384, conv1d
			// 64 x 4 x 2 = 512 and bias 128, x_proj 20 x 64 x 2 = 2560,
			// dt_proj 64 x 4 x 2 = 512 and bias 128, A (float32) 64 x 8 x
			// 4 = 2048, D 128, out_proj 8192, the three norms (4 + 8 + 8) x
			// 2 = 40: 30,632; its MLP 3 x 32 x 64 x 2 = 12,288. Layer 1:
			// attention 8192 + 4096 + 4096 + 8192 = 24,576; the router 2 x
			// 64 x 2 = 256 and 2 experts of 12,288: 24,832. Norms 2 x 256.
			// Embedding and head 16,384 each, final_layernorm 128.
			// TP2. The mixer: in_proj 64 rows 8192, conv1d 32 rows 256 and
			// bias 64, x_proj 20 x 32 x 2 = 1280, dt_proj 32 rows 256 and
			// bias 64, A 1024, D 64, out_proj 64 x 32 x 2 = 4096, norms 40
			// whole: 15,336; MLP 4096 + 2048. Attention q 4096, k and v
			// 2048 each, o 4096: 12,288; router 256 whole, experts halved
			// 12,288. Embedding and head 64 rows 8192 each.
			// PP2: Jamba builds the embedding, final_layernorm and head on
			// every stage (jamba.py:316-343, 428-432).
			name: "jamba", fixture: jambaFixture,
			ranks: []byHandRank{
				{"TP1", whole(1), 30632 + 12288 + 24576 + 24832 + 512 + 16384 + 128 + 16384, ""},
				{"TP2", whole(2), 15336 + 6144 + 12288 + 12544 + 512 + 8192 + 128 + 8192, ""},
				{"PP2 stage 0", ppStage(0, 2), 30632 + 12288 + 256 + 16384 + 128 + 16384, ""},
				{"PP2 stage 1", ppStage(1, 2), 24576 + 24832 + 256 + 16384 + 128 + 16384, ""},
			},
		},
		{
			// TP1: the embeddings 128 x 64 x 2 = 16,384, the layer's norm
			// 128; the mixer: in_proj 256 x 64 x 2 = 32,768, conv1d 128 x 4
			// x 2 = 1024 and bias 256, x_proj 20 x 128 x 2 = 5120, dt_proj
			// 128 x 4 x 2 = 1024 and bias 256, A (float32) 128 x 8 x 4 =
			// 4096, D 256, out_proj 64 x 128 x 2 = 16,384; norm_f 128, the
			// head 16,384.
			// TP2: embeddings and head 64 rows 8192 each, norms 128 each;
			// in_proj 128 rows 16,384, conv1d 64 rows 512 and bias 128,
			// x_proj 20 x 64 x 2 = 2560, dt_proj 64 rows 512 and bias 128,
			// A 2048, D 128, out_proj 64 x 64 x 2 = 8192.
			name: "mamba", fixture: mambaFixture,
			ranks: []byHandRank{
				{"TP1", whole(1), 16384 + 128 + 32768 + 1024 + 256 + 5120 + 1024 + 256 + 4096 + 256 + 16384 + 128 + 16384, ""},
				{"TP2", whole(2), 8192 + 128 + 16384 + 512 + 128 + 2560 + 512 + 128 + 2048 + 128 + 8192 + 128 + 8192, ""},
			},
		},
		{
			// TP1: embeddings and head 64 x 32 x 2 = 4096 each, norms 64
			// each; in_proj (128 + 32 + 4 = 164 rows) x 32 x 2 = 10,496,
			// conv1d 96 x 4 x 2 = 768 and bias 192, A (float32) 16, D 8,
			// dt_bias 8, norm 128, out_proj 32 x 64 x 2 = 4096.
			// TP2 (the 2 groups divide): embeddings and head 32 rows 2048
			// each; in_proj 82 rows 5248, conv1d 48 rows 384 and bias 96,
			// A 8, D 4, dt_bias 4, norm 64, out_proj 32 x 32 x 2 = 2048.
			name: "mamba2", fixture: mamba2Fixture,
			ranks: []byHandRank{
				{"TP1", whole(1), 4096 + 64 + 10496 + 768 + 192 + 16 + 8 + 8 + 128 + 4096 + 64 + 4096, ""},
				{"TP2", whole(2), 2048 + 64 + 5248 + 384 + 96 + 8 + 4 + 4 + 64 + 2048 + 64 + 2048, ""},
			},
		},
		{
			// mambaFixture's TP1 sum, tied (no head: 16,384 less), and the
			// weightless dt, B and C norms' ones built beside the checkpoint
			// (4 + 8 + 8) x 2 = 40.
			name: "falcon_mamba", fixture: falconMambaFixture,
			ranks: []byHandRank{
				{"TP1", whole(1), 16384 + 128 + 32768 + 1024 + 256 + 5120 + 1024 + 256 + 4096 + 256 + 16384 + 128 + 40, ""},
			},
		},
	})
}

// TestHybridConfigErrors: what vLLM cannot build from a hybrid's config is
// an error naming the key.
func TestHybridConfigErrors(t *testing.T) {
	const granite = `"model_type": "granitemoehybrid", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
 "mamba_n_heads": 4, "mamba_d_state": 16, "vocab_size": 128, "max_position_embeddings": 64`
	for _, tt := range []struct{ name, doc, want string }{
		{"granite without layer_types", `{` + granite + `}`, "x.json: layer_types: missing"},
		{"granite layer type", `{` + granite + `, "layer_types": ["mamba", "mlp"]}`, `x.json: layer_types: layer 1: "mlp" is not`},
		{"granite layer count", `{` + granite + `, "layer_types": ["mamba"]}`, "x.json: layer_types: has 1 entries for 2 layers"},
		{"granite no MLP", `{` + granite + `, "layer_types": ["mamba", "attention"], "num_local_experts": 0, "shared_intermediate_size": 0}`,
			"x.json: shared_intermediate_size: 0 with no experts"},
		{"granite heads", `{` + strings.Replace(granite, `"mamba_n_heads": 4`, `"mamba_n_heads": 3`, 1) + `, "layer_types": ["mamba", "attention"]}`,
			"x.json: mamba_n_heads: 3 does not divide mamba_expand x hidden_size 128"},
		{"granite head dim", `{` + granite + `, "layer_types": ["mamba", "attention"], "mamba_d_head": 16}`,
			"x.json: mamba_d_head: 16 x mamba_n_heads 4 is not mamba_expand x hidden_size 128"},
		{"granite rope type", `{` + granite + `, "layer_types": ["mamba", "attention"], "position_embedding_type": "alibi"}`,
			`x.json: position_embedding_type: "alibi"`},
		{"falcon activation", `{"model_type": "falcon_h1", "hidden_act": "gelu"}`, `x.json: hidden_act: "gelu": vLLM's FalconH1MLP raises`},
		{"falcon bias", `{"model_type": "falcon_h1", "projectors_bias": true}`, "x.json: projectors_bias: true: vLLM's FalconH1 builds"},
		{"falcon rotary", `{"model_type": "falcon_h1", "head_dim": 64, "attn_rotary_emb": 128}`, "x.json: attn_rotary_emb: 128: want a rotary size in [1, head_dim 64]"},
		{"mamba2 intermediate", `{"model_type": "mamba2", "hidden_size": 64, "num_heads": 2, "head_dim": 64, "n_groups": 1, "intermediate_size": 256}`,
			"x.json: intermediate_size: 256 is not expand x hidden_size 128"},
		{"mamba2 heads", `{"model_type": "mamba2", "hidden_size": 64, "num_heads": 4, "head_dim": 64, "n_groups": 1}`,
			"x.json: num_heads: 4 heads of head_dim 64 are not expand x hidden_size 128"},
		{"falcon heads", `{"model_type": "falcon_h1", "mamba_d_ssm": 1000, "mamba_n_heads": 24}`, "x.json: mamba_n_heads: 24 does not divide the Mamba channels 1000"},
	} {
		_, err := ParseConfig("x.json", []byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to hold %q", tt.name, err, tt.want)
		}
	}
}

// TestHybridDefaults: what a hybrid's config leaves out reads as its
// transformers class fills it.
func TestHybridDefaults(t *testing.T) {
	type got struct {
		Hidden, Heads, KVHeads, HeadDim, Vocab, MaxPos uint64
		Mamba                                          MambaShape
		Rotary                                         int
	}
	for _, tt := range []struct {
		name, doc string
		want      got
	}{
		// GraniteMoeHybridConfig: 4096 hidden, 32 heads (KV heads as
		// many), 4096 / 32 = 128 a head; Mamba 128 heads of 2 x 4096 / 128
		// = 64 ("auto"), state 256, 1 group, conv 4, chunk 256; 32,000
		// tokens, 2048 positions; position_embedding_type None: no rotary.
		// layers_block_type is layer_types.
		{"granitemoehybrid", `{"model_type": "granitemoehybrid", "num_hidden_layers": 2, "layers_block_type": ["mamba", "attention"]}`,
			got{4096, 32, 32, 128, 32000, 2048, MambaShape{Version: 2, NumHeads: 128, HeadDim: 64, StateSize: 256, NGroups: 1, ConvKernel: 4,
				Intermediate: 8192, ChunkSize: 256}, 0}},
		// "rope" gives the attention a rotary table of a whole head.
		{"granitemoehybrid rope", `{"model_type": "granitemoehybrid", "num_hidden_layers": 1, "layer_types": ["mamba"], "mamba_d_head": "auto",
 "position_embedding_type": "rope"}`,
			got{4096, 32, 32, 128, 32000, 2048, MambaShape{Version: 2, NumHeads: 128, HeadDim: 64, StateSize: 256, NGroups: 1, ConvKernel: 4,
				Intermediate: 8192, ChunkSize: 256}, 1}},
		// FalconH1Config: 4096 hidden, 32 heads, 8 KV heads of 128; the
		// mixer mamba_d_ssm 1024 in 128 heads of 8 ("auto"), state 256,
		// 1 group, conv 4; 128,000 tokens, 8192 positions; a whole-head
		// rotary table.
		{"falcon_h1", `{"model_type": "falcon_h1", "num_hidden_layers": 2}`,
			got{4096, 32, 8, 128, 128000, 8192, MambaShape{Version: 2, NumHeads: 128, HeadDim: 8, StateSize: 256, NGroups: 1, ConvKernel: 4,
				Intermediate: 1024, ChunkSize: 256}, 1}},
		// mamba_d_ssm null is mamba_expand x hidden_size: 2 x 4096 / 128
		// heads = 64 a head.
		{"falcon_h1 d_ssm null", `{"model_type": "falcon_h1", "num_hidden_layers": 2, "mamba_d_ssm": null}`,
			got{4096, 32, 8, 128, 128000, 8192, MambaShape{Version: 2, NumHeads: 128, HeadDim: 64, StateSize: 256, NGroups: 1, ConvKernel: 4,
				Intermediate: 8192, ChunkSize: 256}, 1}},
	} {
		a, err := ParseConfig("x.json", []byte(tt.doc))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		g := got{a.Hidden, a.Heads, a.KVHeads, a.HeadDim, a.Vocab, a.MaxPosition, *a.Mamba, len(a.Rotary)}
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}
