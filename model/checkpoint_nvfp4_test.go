package model

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/model/safetensors"
)

// nvfp4LlamaFixture is a one-layer Llama (hidden 64, 4 heads of 16, 2 KV
// heads, intermediate 48) stored as ModelOpt NVFP4 does: each linear's
// weight U8 [out, in/2], weight_scale F8_E4M3 [out, in/16], weight_scale_2
// F32 and, W4A4, input_scale F32; the head in bf16.
func nvfp4LlamaFixture(w4a4 bool) (string, []safetensors.Tensor) {
	algo := "W4A16_NVFP4"
	if w4a4 {
		algo = "NVFP4"
	}
	config := `{"model_type":"llama","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":48,` +
		`"num_hidden_layers":1,"vocab_size":256,"max_position_embeddings":128,"torch_dtype":"bfloat16",` +
		`"quantization_config":{"quant_method":"modelopt","quant_algo":"` + algo + `","group_size":16,"ignore":["lm_head"]}}`
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 256, 64)}
	linear := func(m string, out, in uint64) {
		ts = append(ts, typed("U8", m+".weight", out, in/2), typed("F8_E4M3", m+".weight_scale", out, in/16), typed("F32", m+".weight_scale_2"))
		if w4a4 {
			ts = append(ts, typed("F32", m+".input_scale"))
		}
	}
	p := "model.layers.0."
	ts = append(ts, bf16(p+"input_layernorm.weight", 64), bf16(p+"post_attention_layernorm.weight", 64))
	linear(p+"self_attn.q_proj", 64, 64)
	linear(p+"self_attn.k_proj", 32, 64)
	linear(p+"self_attn.v_proj", 32, 64)
	linear(p+"self_attn.o_proj", 64, 64)
	linear(p+"mlp.gate_proj", 48, 64)
	linear(p+"mlp.up_proj", 48, 64)
	linear(p+"mlp.down_proj", 64, 48)
	return config, append(ts, bf16("model.norm.weight", 64), bf16("lm_head.weight", 256, 64))
}

// TestNVFP4CheckpointPadding: a checkpoint's NVFP4 tensors padded as the
// Blackwell kernels pad them, over each fused parameter. By hand, per
// parameter (rank of TP 1):
//   - qkv_proj: scales [64+32+32 = 128, 4], whole tiles; weight [128, 32]:
//     nothing;
//   - o_proj: scales [64, 4] -> [128, 4]: +256; weight [64, 32]: nothing;
//   - gate_up_proj: scales [96, 4] -> [128, 4]: +128; weight [96, 32]:
//     nothing;
//   - down_proj: scales [64, 3] -> [128, 4]: +320; weight [64, 24], k 48
//     -> 64: [64, 32], +512.
//
// 1216 B in all, what the config-derived layout adds too; a W4A16
// checkpoint (no input_scale) runs on Marlin and gains nothing.
func TestNVFP4CheckpointPadding(t *testing.T) {
	blackwell := NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertSwizzle: true}
	byName := func(items []budget.Item) map[string]uint64 {
		m := map[string]uint64{}
		for _, it := range items {
			m[it.Name] += it.Bytes
		}
		return m
	}
	for _, w4a4 := range []bool{true, false} {
		t.Run(fmt.Sprintf("W4A4 %v", w4a4), func(t *testing.T) {
			config, ts := nvfp4LlamaFixture(w4a4)
			a, _ := attachTensors(t, config, ts)
			sh := Whole(a, 1, 2, a.Quant)
			if ok, why := UsesCheckpoint(a, sh); !ok {
				t.Fatalf("the checkpoint is not used: %s", why)
			}
			plain := byName(CheckpointWeights(a, sh))
			sh.NVFP4 = blackwell
			padded := byName(CheckpointWeights(a, sh))
			got := map[string]uint64{}
			for name, b := range padded {
				if d := b - plain[name]; d != 0 {
					got[name] = d
				}
			}
			p := "model.layers.0."
			want := map[string]uint64{p + "self_attn.o_proj.weight_scale": 256, p + "mlp.gate_up_proj.weight_scale": 128,
				p + "mlp.down_proj.weight_scale": 320, p + "mlp.down_proj.weight": 512}
			if !w4a4 {
				want = map[string]uint64{}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("padding by parameter (-want by hand +got):\n%s", diff)
			}
			// The config-derived layout pads the same parameters alike.
			total := func(k NVFP4Kernel) uint64 {
				s := Whole(a, 1, 2, a.Quant)
				s.NVFP4 = k
				var sum uint64
				for _, it := range Weights(a, s) {
					sum += it.Bytes
				}
				return sum
			}
			var wantTotal uint64
			for _, b := range want {
				wantTotal += b
			}
			if d := total(blackwell) - total(NVFP4Kernel{}); d != wantTotal {
				t.Errorf("config-derived padding %d B, want %d", d, wantTotal)
			}
		})
	}
}

// TestNVFP4CheckpointExpertPadding: a one-layer Qwen3-MoE (hidden 32, 2
// experts of intermediate 48) whose experts alone are ModelOpt NVFP4 W4A4,
// stored one tensor per expert. The CUTLASS MoE kernels swizzle each
// expert's scales over its fused w13: gate and up [48, 2] each make [96,
// 2] -> [128, 4], 512 B for 192: +320 an expert; w2 [32, 3] -> [128, 4],
// 512 for 96: +416 an expert. Two experts: +640 and +832, as the
// config-derived layout pads them.
func TestNVFP4CheckpointExpertPadding(t *testing.T) {
	a := nvfp4MoEFixture(t)
	p := "model.layers.0."
	sh := Whole(a, 1, 2, a.Quant)
	if ok, why := UsesCheckpoint(a, sh); !ok {
		t.Fatalf("the checkpoint is not used: %s", why)
	}
	sum := func(items []budget.Item) map[string]uint64 {
		m := map[string]uint64{}
		for _, it := range items {
			m[it.Name] += it.Bytes
		}
		return m
	}
	cutlass := NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertSwizzle: true, ExpertUngatedMultiple: 128}
	delta := func(items func(Sharding) []budget.Item) map[string]uint64 {
		plain := sum(items(sh))
		s := sh
		s.NVFP4 = cutlass
		got := map[string]uint64{}
		for name, b := range sum(items(s)) {
			if d := b - plain[name]; d != 0 {
				got[name] = d
			}
		}
		return got
	}
	want := map[string]uint64{p + "mlp.experts.w13_weight_scale": 640, p + "mlp.experts.w2_weight_scale": 832}
	if diff := cmp.Diff(want, delta(func(s Sharding) []budget.Item { return CheckpointWeights(a, s) })); diff != "" {
		t.Errorf("checkpoint (-want by hand +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, delta(func(s Sharding) []budget.Item { return Weights(a, s) })); diff != "" {
		t.Errorf("config-derived (-want by hand +got):\n%s", diff)
	}
}

// TestNVFP4CheckpointYieldsToExpertRounding: FlashInfer TRTLLM (10.x)
// rounds the experts' hidden size to 256 and, from #46880, the gated
// intermediate to 64, which the stored tensors do not show; where that
// changes a size the weights are derived from config.json instead. The
// Qwen3-MoE fixture of TestNVFP4CheckpointExpertPadding has hidden 32
// (-> 256) and intermediate 48 (-> 64); a kernel rounding nothing the
// fixture holds (hidden to 32, intermediate to 16) keeps the checkpoint.
func TestNVFP4CheckpointYieldsToExpertRounding(t *testing.T) {
	a := nvfp4MoEFixture(t)
	for _, tt := range []struct {
		name string
		k    NVFP4Kernel
		uses bool
	}{
		{"TRTLLM at main: hidden 32 -> 256", NVFP4Kernel{LinearSwizzle: true, ExpertHiddenMultiple: 256, ExpertGatedMultiple: 64, ExpertUngatedMultiple: 128}, false},
		{"intermediate 48 -> 64 alone", NVFP4Kernel{ExpertGatedMultiple: 64}, false},
		{"nothing resized", NVFP4Kernel{ExpertHiddenMultiple: 32, ExpertGatedMultiple: 16}, true},
		{"CUTLASS swizzle", NVFP4Kernel{ExpertSwizzle: true, ExpertUngatedMultiple: 128}, true},
	} {
		sh := Whole(a, 1, 2, a.Quant)
		sh.NVFP4 = tt.k
		if ok, why := UsesCheckpoint(a, sh); ok != tt.uses {
			t.Errorf("%s: uses the checkpoint %v (%s), want %v", tt.name, ok, why, tt.uses)
		}
	}
}

// nvfp4MoEFixture is a one-layer Qwen3-MoE (hidden 32, 2 experts of
// intermediate 48) whose experts alone are ModelOpt NVFP4 W4A4, stored one
// tensor per expert, attached as its checkpoint.
func nvfp4MoEFixture(t *testing.T) *Arch {
	t.Helper()
	config := `{"model_type":"qwen3_moe","hidden_size":32,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":16,` +
		`"intermediate_size":64,"num_experts":2,"num_experts_per_tok":1,"moe_intermediate_size":48,` +
		`"num_hidden_layers":1,"vocab_size":64,"max_position_embeddings":64,"torch_dtype":"bfloat16",` +
		`"quantization_config":{"quant_method":"modelopt","quant_algo":"MIXED_PRECISION","quantized_layers":{"model.layers.0.mlp.experts":{"quant_algo":"NVFP4","group_size":16}}}}`
	p := "model.layers.0."
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", 64, 32),
		bf16(p+"input_layernorm.weight", 32), bf16(p+"self_attn.q_proj.weight", 32, 32), bf16(p+"self_attn.k_proj.weight", 16, 32),
		bf16(p+"self_attn.v_proj.weight", 16, 32), bf16(p+"self_attn.o_proj.weight", 32, 32), bf16(p+"self_attn.q_norm.weight", 16),
		bf16(p+"self_attn.k_norm.weight", 16), bf16(p+"post_attention_layernorm.weight", 32), bf16(p+"mlp.gate.weight", 2, 32)}
	for e := range 2 {
		for _, m := range []struct {
			name    string
			out, in uint64
		}{{"gate_proj", 48, 32}, {"up_proj", 48, 32}, {"down_proj", 32, 48}} {
			q := fmt.Sprintf("%smlp.experts.%d.%s", p, e, m.name)
			ts = append(ts, typed("U8", q+".weight", m.out, m.in/2), typed("F8_E4M3", q+".weight_scale", m.out, m.in/16),
				typed("F32", q+".weight_scale_2"), typed("F32", q+".input_scale"))
		}
	}
	ts = append(ts, bf16("model.norm.weight", 32), bf16("lm_head.weight", 64, 32))
	a, _ := attachTensors(t, config, ts)
	return a
}

// TestNVFP4CheckpointYieldsToLatentRounding: where the experts run at a
// latent width (Nemotron-H's moe_latent_size, MoEHidden), the kernel rounds
// that width, not hidden_size, as the config-derived layout does
// (weights.moe). The fixture's hidden 32 is whole under a multiple of 32,
// a latent of 40 is not (-> 64), so the checkpoint must yield; a latent of
// 64 is whole and it keeps the checkpoint.
func TestNVFP4CheckpointYieldsToLatentRounding(t *testing.T) {
	for _, tt := range []struct {
		latent uint64
		uses   bool
	}{{40, false}, {64, true}} {
		a := nvfp4MoEFixture(t)
		a.MoELatent = tt.latent
		sh := Whole(a, 1, 2, a.Quant)
		sh.NVFP4 = NVFP4Kernel{ExpertHiddenMultiple: 32}
		if ok, why := UsesCheckpoint(a, sh); ok != tt.uses {
			t.Errorf("latent %d: uses the checkpoint %v (%s), want %v", tt.latent, ok, why, tt.uses)
		}
	}
}
