package model

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// superConfig is Nemotron-3-Super's config.json (corpus/models; SOURCES.md
// says where it comes from): hidden 4096, 88 layers of which 40 Mamba2, 40
// latent MoE and 8 attention, 512 routed experts of 2688 working at the
// latent 1024, one shared expert of 5376, vocabulary 131072 untied.
func superConfig(t *testing.T) *Arch {
	t.Helper()
	const path = "../corpus/models/nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-BF16.json"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseConfig(path, raw)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return a
}

// TestNemotronSuperLatentMoEWeights: the weights of Nemotron-3-Super as
// vLLM builds them (nemotron_h.py at d18bb7b), in bf16, by hand.
//
// The parameters: embedding and head 131072 x 4096 = 536,870,912 each,
// norm_f and 88 block norms 4096 each (364,544). A Mamba2 layer (I = 128
// heads x 64 = 8192, 8 groups x 128 states = 1024): in_proj 4096 x (2 x
// 8192 + 2 x 1024 + 128) = 76,021,760, conv1d (8192 + 2048) x 4 + bias
// 10240 = 51,200, A, D, dt_bias 128 each, norm 8192, out_proj 8192 x 4096
// = 33,554,432: 109,635,968. An attention layer (32 heads, 2 KV heads of
// 128): qkv 4096 x 4608 + o 4096 x 4096 = 35,651,584. A latent MoE layer:
// router 4096 x 512 = 2,097,152, routing bias 512, fc1_latent_proj 4096 x
// 1024 and fc2_latent_proj 1024 x 4096 (4,194,304 each), 512 experts of
// up 2688 x 1024 and down 1024 x 2688 (2,818,572,288), shared up and down
// 5376 x 4096 each (44,040,192): 2,873,098,752. In all 1,073,741,824 +
// 364,544 + 40 x 109,635,968 + 8 x 35,651,584 + 40 x 2,873,098,752 =
// 120,668,707,840: the Hub's count for nvidia/NVIDIA-Nemotron-3-Super-
// 120B-A12B-BF16, 123,611,033,088 (its safetensors metadata, quoted with
// the MTP block's 2,942,324,736 bf16 and 512 float32 parameters in stored
// model-record tests, index file id 70181782850), less the MTP block.
//
// At TP1 every parameter takes 2 B but A (float32: 40 x 128 x 2 B more)
// and the routing bias (float32: 40 x 512 x 2 B more): 241,337,415,680 +
// 51,200 = 241,337,466,880 B where the router GEMMs run (Hopper,
// Blackwell: the router in bf16), and 40 x 4096 x 512 x 2 = 167,772,160 B
// more where they do not (the router in float32, gate_linear.py:59-68).
//
// At TP8: embedding and head 16384 rows x 4096 x 2 = 134,217,728 each,
// norms 89 x 8192 = 729,088. Mamba2 (8 groups divide 8 ranks): in_proj
// 2320 x 4096 x 2 = 19,005,440, conv1d 1280 x 4 x 2 = 10,240 + bias 2,560,
// A 16 x 4, D and dt_bias 16 x 2 each, norm 1024 x 2, out_proj 1024 x 4096
// x 2 = 8,388,608: 27,409,024. Attention (4 query heads, the 2 KV heads
// replicated to one a rank): qkv 768 x 4096 x 2 = 6,291,456, o 512 x 4096
// x 2 = 4,194,304: 10,485,760. Latent MoE: router 4,194,304 (bf16),
// routing bias 2,048, fc1 and fc2 replicated 8,388,608 each, experts 512 x
// (336 x 1024 + 1024 x 336) x 2 = 704,643,072, shared 672 x 4096 x 2 x 2 =
// 11,010,048: 736,626,688. In all 268,435,456 + 729,088 + 40 x 27,409,024
// + 8 x 10,485,760 + 40 x 736,626,688 = 30,914,479,104 B. Under expert
// parallelism over the 8 ranks each holds 64 experts whole, 64 x (2688 x
// 1024 x 2) x 2 = 704,643,072 B: the same bytes, since 512 / 8 experts of
// 2688 equal 512 experts of 2688 / 8.
func TestNemotronSuperLatentMoEWeights(t *testing.T) {
	a := superConfig(t)
	if a.MoELatent != 1024 || a.MoEHidden() != 1024 {
		t.Fatalf("moe_latent_size read as %d (MoEHidden %d), want 1024", a.MoELatent, a.MoEHidden())
	}
	type layer1 struct{ Fc1, Fc2, W13, W2, SharedUp, Router uint64 }
	tests := []struct {
		name       string
		tp, ep     uint64
		routerGEMM bool
		total      uint64
		moe        layer1
	}{
		{"TP1, router GEMMs", 1, 0, true, 241_337_466_880,
			// fc1 4096 x 1024 x 2; experts 512 x 2688 x 1024 x 2; shared
			// 5376 x 4096 x 2; router 4096 x 512 x 2.
			layer1{8_388_608, 8_388_608, 2_818_572_288, 2_818_572_288, 44_040_192, 4_194_304}},
		{"TP1, router in float32", 1, 0, false, 241_337_466_880 + 167_772_160,
			layer1{8_388_608, 8_388_608, 2_818_572_288, 2_818_572_288, 44_040_192, 8_388_608}},
		{"TP8, router GEMMs", 8, 0, true, 30_914_479_104,
			// fc1 and fc2 whole; experts 512 x 336 x 1024 x 2; shared
			// 672 x 4096 x 2.
			layer1{8_388_608, 8_388_608, 352_321_536, 352_321_536, 5_505_024, 4_194_304}},
		{"TP8, router in float32", 8, 0, false, 30_914_479_104 + 167_772_160,
			layer1{8_388_608, 8_388_608, 352_321_536, 352_321_536, 5_505_024, 8_388_608}},
		{"TP8 EP8, router GEMMs", 8, 8, true, 30_914_479_104,
			// 64 experts x 2688 x 1024 x 2.
			layer1{8_388_608, 8_388_608, 352_321_536, 352_321_536, 5_505_024, 4_194_304}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := Whole(a, tt.tp, 2, a.Quant)
			sh.RouterGEMM, sh.ExpertRanks = tt.routerGEMM, tt.ep
			items := Weights(a, sh)
			m := itemBytes(items)
			const p = "model.layers.1.mixer."
			got := layer1{m[p+"fc1_latent_proj.weight"], m[p+"fc2_latent_proj.weight"], m[p+"experts.w13_weight"],
				m[p+"experts.w2_weight"], m[p+"shared_experts.up_proj.weight"], m[p+"gate.weight"]}
			if diff := cmp.Diff(tt.moe, got); diff != "" {
				t.Errorf("layer 1 (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.total, sumItems(items)); diff != "" {
				t.Errorf("total (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNemotronSuperActivation: the fused MoE's caches are as wide as the
// experts, the latent 1024, not hidden_size 4096. At TP1: 22 experts x (3
// x 2688 + 1024) + 3 x 5376 = 216,064 elements, wider than attention's 2
// x 32 x 128 + 2 x 2 x 128 = 8,704; with the residual and hidden states
// (2 x 4096) 224,256 elements, 448,512 B in bf16.
func TestNemotronSuperActivation(t *testing.T) {
	a := superConfig(t)
	if diff := cmp.Diff(uint64(448_512), ActivationBytesPerToken(a, 1, 2)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestNemotronSuperNVFP4UngatedExperts: Nemotron-3-Super's relu2 experts
// (ungated: w13 is up alone) read as W4A4 ModelOpt NVFP4, at TP8: 512
// experts of intermediate 2688 / 8 = 336 a rank over the latent 1024. In
// the checkpoint's layout (Marlin) each expert holds w13 [336, 512] with
// scales [336, 64] and w2 [1024, 168] with scales [1024, 21]. vLLM's
// CUTLASS MoE kernels (12.x) pad an ungated intermediate to the scales'
// 128 rows, 336 -> 384 (flashinfer_fp4_moe.py:422-435): w13 [384, 512],
// scales [384, 64], w2 [1024, 192], scales [1024, 24], all whole 128 x 4
// tiles; TRTLLM (10.x, main) rounds an ungated intermediate to 128 too,
// the latent 1024 already a multiple of 256: the same bytes.
func TestNemotronSuperNVFP4UngatedExperts(t *testing.T) {
	const path = "../corpus/models/nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-BF16.json"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(string(raw), "{", `{"quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16}, `, 1)
	a, err := ParseConfig(path, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	type experts struct{ W13, W13Scale, W2, W2Scale uint64 }
	const e = 512
	tests := []struct {
		name string
		kern NVFP4Kernel
		want experts
	}{
		{"checkpoint layout", NVFP4Kernel{}, experts{e * 336 * 512, e * 336 * 64, e * 1024 * 168, e * 1024 * 21}},
		{"CUTLASS (12.x)", NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertSwizzle: true, ExpertUngatedMultiple: 128},
			experts{e * 384 * 512, e * 384 * 64, e * 1024 * 192, e * 1024 * 24}},
		{"TRTLLM (10.x, main)", NVFP4Kernel{LinearSwizzle: true, LinearWeightPad: true, ExpertHiddenMultiple: 256, ExpertGatedMultiple: 64, ExpertUngatedMultiple: 128},
			experts{e * 384 * 512, e * 384 * 64, e * 1024 * 192, e * 1024 * 24}},
	}
	for _, tt := range tests {
		sh := Whole(a, 8, 2, a.Quant)
		sh.NVFP4 = tt.kern
		m := itemBytes(Weights(a, sh))
		const p = "model.layers.1.mixer.experts."
		got := experts{m[p+"w13_weight"], m[p+"w13_weight_scale"], m[p+"w2_weight"], m[p+"w2_weight_scale"]}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want by hand +got):\n%s", tt.name, diff)
		}
	}
}
