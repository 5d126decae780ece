package sglang

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
)

// layerExperts is layer 0's expert tensors and scalars in stage 0's load.
func layerExperts(r *Reference) map[string]uint64 {
	got := map[string]uint64{}
	for _, it := range r.stages[0].weights {
		if rest, ok := strings.CutPrefix(it.Name, "model.layers.0.mlp.experts."); ok {
			got[rest] += it.Bytes
		}
	}
	return got
}

// TestMXFP4FlashInferPad pins gpt-oss's MXFP4 experts as SGLang creates
// them for FlashInfer's MoE kernel, layer 0, by hand. gpt-oss-120b and
// -20b: hidden 2880, expert intermediate 2880, 128 and 32 experts.
func TestMXFP4FlashInferPad(t *testing.T) {
	archs := shipped(t)
	tests := []struct {
		name  string
		model string
		s     Serve
		on    string
		p     string
		want  map[string]uint64
	}{
		// SM100, TP 1: i and h 2880 -> 3072 (round_up(., 256)). Per
		// expert: w13 2 x 3072 rows x 3072/2 B = 9437184, its e8m0 scales
		// 6144 x 3072/32 = 589824; w2 3072 x 3072/2 = 4718592, scales
		// 3072 x 96 = 294912; biases float32, 6144 x 4 and 3072 x 4. x 128
		// experts; alpha, beta and clamp 128 x 4 B.
		{"120b TP 1 on B200, v0.5.6.post2", "openai__gpt-oss-120b", Serve{}, "b200", "v0.5.6.post2", map[string]uint64{
			"w13_weight": 128 * 9437184, "w13_weight_scale": 128 * 589824, "w2_weight": 128 * 4718592, "w2_weight_scale": 128 * 294912,
			"w13_bias": 128 * 24576, "w2_bias": 128 * 12288, "gemm1_alpha": 512, "gemm1_beta": 512, "gemm1_clamp_limit": 512}},
		// TP 2: i per rank 1440 -> 1536, h 3072. w13 3072 x 1536 =
		// 4718592, scales 3072 x 96 = 294912; w2 3072 x 768 = 2359296,
		// scales 3072 x 48 = 147456; biases 3072 x 4 each.
		{"120b TP 2 on B200, v0.5.8", "openai__gpt-oss-120b", Serve{TPSize: 2}, "b200", "v0.5.8", map[string]uint64{
			"w13_weight": 128 * 4718592, "w13_weight_scale": 128 * 294912, "w2_weight": 128 * 2359296, "w2_weight_scale": 128 * 147456,
			"w13_bias": 128 * 12288, "w2_bias": 128 * 12288, "gemm1_alpha": 512, "gemm1_beta": 512, "gemm1_clamp_limit": 512}},
		// TP 8: i per rank 360 -> 512: w13 1024 x 1536 = 1572864, scales
		// 1024 x 96 = 98304; w2 3072 x 256 = 786432, scales 3072 x 16 =
		// 49152; biases 1024 x 4 and 3072 x 4.
		{"120b TP 8 on B200, v0.5.8.post1", "openai__gpt-oss-120b", Serve{TPSize: 8}, "b200", "v0.5.8.post1", map[string]uint64{
			"w13_weight": 128 * 1572864, "w13_weight_scale": 128 * 98304, "w2_weight": 128 * 786432, "w2_weight_scale": 128 * 49152,
			"w13_bias": 128 * 4096, "w2_bias": 128 * 12288, "gemm1_alpha": 512, "gemm1_beta": 512, "gemm1_clamp_limit": 512}},
		// 20b, 32 experts, as the 120b at TP 1; the scalars 32 x 4 B.
		{"20b TP 1 on B200, v0.5.7", "openai__gpt-oss-20b", Serve{}, "b200", "v0.5.7", map[string]uint64{
			"w13_weight": 32 * 9437184, "w13_weight_scale": 32 * 589824, "w2_weight": 32 * 4718592, "w2_weight_scale": 32 * 294912,
			"w13_bias": 32 * 24576, "w2_bias": 32 * 12288, "gemm1_alpha": 128, "gemm1_beta": 128, "gemm1_clamp_limit": 128}},
		// v0.5.9 (and .post1): the same experts, and the permutation
		// cache of PR #18858 beside them, counted once per stage, not per
		// layer (see TestMXFP4PermuteIndices).
		{"120b TP 1 on B200, v0.5.9.post1", "openai__gpt-oss-120b", Serve{}, "b200", "v0.5.9.post1", map[string]uint64{
			"w13_weight": 128 * 9437184, "w13_weight_scale": 128 * 589824, "w2_weight": 128 * 4718592, "w2_weight_scale": 128 * 294912,
			"w13_bias": 128 * 24576, "w2_bias": 128 * 12288, "gemm1_alpha": 512, "gemm1_beta": 512, "gemm1_clamp_limit": 512}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := layerExperts(ref(t, archs[tt.model], tt.s, class(t, tt.on), mustProfile(tt.p)))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("layer 0's experts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMXFP4FlashInferPadTotal: the pad adds, to gpt-oss-120b at TP 1 on a
// B200, 36 layers x 128 experts x (15077376 - 13236480) B (a padded expert
// of the test above less the checkpoint's: 5760 x 1440 + 5760 x 90 + 2880
// x 1440 + 2880 x 90 + 2 x (5760 + 2880) B of bfloat16 biases) and 36 x 3
// x 512 B of scalars: 8482904064 B, 7.9 GiB, to the load before the
// allocator's slack.
func TestMXFP4FlashInferPadTotal(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-120b"]
	r := ref(t, a, Serve{}, class(t, "b200"), mustProfile("v0.5.8"))
	var padded, plain uint64
	for _, it := range r.stages[0].weights {
		if it.Name != "weights.allocator_slack" {
			padded += it.Bytes
		}
	}
	st := r.stages[0].sharding
	st.MXFP4.IntermediateMultiple, st.MXFP4.HiddenMultiple, st.MXFP4.BiasFloat32 = 0, 0, false
	for _, it := range weightItems(a, r.Serve, st) {
		if it.Name != "weights.allocator_slack" {
			plain += it.Bytes
		}
	}
	if got, want := padded-plain, uint64(36*128*(15077376-13236480)+36*3*512); got != want {
		t.Errorf("padded - checkpoint layout: %d B, want %d", got, want)
	}
}

// TestMXFP4FlashInferRefused: off SM10x, gpt-oss is refused at every TP,
// as SGLang failing to load it or naming --tp-size where triton_kernels'
// presence decides; a release whose path is not read is refused naming the
// model; v0.5.9 refuses MXFP4 off Blackwell (its changes there not read).
func TestMXFP4FlashInferRefused(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-120b"]
	unread := mustProfile("v0.5.8.post1")
	unread.Name, unread.Describes = "v0.5.10", "SGLang v0.5.10"
	tests := []struct {
		name, on string
		s        Serve
		p        Profile
		flag     string
		has      string
	}{
		// SM12x: the experts unpadded but their scales shuffled for
		// FlashInfer, which asserts w2's intermediate/32 columns a
		// multiple of 4: 2880/32 = 90 at TP 1, 1440/32 = 45 at TP 2, and
		// at TP 4 720/32 = 22 and, rounded by triton_kernels, 736/32 = 23;
		// at TP 8 360 fails (11) and 384 passes (12, and 768 rows a
		// multiple of 128), so whether triton_kernels imports decides.
		{"TP 1 on RTX PRO 6000", "rtx-pro-6000", Serve{AttentionBackend: "triton"}, mustProfile("v0.5.7"), "model", "multiple of 4 columns and w13's a multiple of 128 rows (90 and 5760"},
		{"TP 2 on RTX PRO 6000", "rtx-pro-6000", Serve{TPSize: 2, AttentionBackend: "triton"}, mustProfile("v0.5.6.post2"), "model", "does not start"},
		{"TP 4 on RTX PRO 6000", "rtx-pro-6000", Serve{TPSize: 4, AttentionBackend: "triton"}, mustProfile("v0.5.7"), "model", "(720 intermediate per rank, 736 after"},
		{"TP 8 on RTX PRO 6000", "rtx-pro-6000", Serve{TPSize: 8, AttentionBackend: "triton"}, mustProfile("v0.5.7"), "tp-size", "360, is not a multiple of 32"},
		{"a release not read", "b200", Serve{}, unread, "model", "FlashInfer's MoE kernel"},
	}
	// Under v0.5.8 and later gpt-oss off SM100 is refused first for its
	// split pool (PR #17261), so v0.5.9's own refusals are checked on the
	// step itself: off Blackwell, and on SM12x (w2's 90 scale columns).
	for _, on := range []string{"h100-sxm-80g", "rtx-pro-6000"} {
		for _, name := range []string{"v0.5.9", "v0.5.9.post1"} {
			r := Resolved{Serve: Serve{TPSize: 1}, Profile: mustProfile(name), Quant: a.Quant, Stages: pipelineStages(len(a.Layers), 1, PPLastOneExtra)}
			want := map[string]string{"h100-sxm-80g": "#18858", "rtx-pro-6000": "does not start"}[on]
			var se *engine.SettingError
			if err := r.resolveMXFP4(a, class(t, on)); !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, want) {
				t.Errorf("%s on %s: %v, want a refusal of --model naming %q", name, on, err, want)
			}
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(tt.s, a, class(t, tt.on), tt.p)
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != tt.flag || !strings.Contains(se.Reason, tt.has) {
				t.Errorf("got %v, want a refusal of --%s naming %q", err, tt.flag, tt.has)
			}
		})
	}
}

// TestMXFP4PermuteIndices pins v0.5.9's device cache of the shuffles' row
// permutations, by hand: one int64 per row of each distinct matrix shape
// (w13's weight, scales and bias of 2I rows, w2's of H rows, H = 3072).
func TestMXFP4PermuteIndices(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-120b"]
	tests := []struct {
		name string
		tp   uint64
		want map[string]uint64
	}{
		// TP 1: I 3072, 2I 6144: three tensors of 6144 x 8 = 49152 B and
		// three of 3072 x 8 = 24576 B.
		{"TP 1", 1, map[string]uint64{"w13_weight": 49152, "w13_weight_scale": 49152, "w13_bias": 49152, "w2_weight": 24576, "w2_weight_scale": 24576, "w2_bias": 24576}},
		// TP 2: I 1536, 2I 3072 = H: w13's bias [3072, 1] and w2's share
		// a key, so five tensors of 3072 x 8 B.
		{"TP 2", 2, map[string]uint64{"w13_weight": 24576, "w13_weight_scale": 24576, "w13_bias": 24576, "w2_weight": 24576, "w2_weight_scale": 24576}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ref(t, a, Serve{TPSize: tt.tp}, class(t, "b200"), mustProfile("v0.5.9"))
			got := map[string]uint64{}
			for _, it := range r.stages[0].weights {
				if rest, ok := strings.CutPrefix(it.Name, "mxfp4_permute_indices."); ok {
					got[rest] += it.Bytes
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// v0.5.8 keeps none.
	for _, it := range ref(t, a, Serve{}, class(t, "b200"), mustProfile("v0.5.8")).stages[0].weights {
		if strings.HasPrefix(it.Name, "mxfp4_permute_indices.") {
			t.Errorf("v0.5.8: %s, want no permutation cache", it.Name)
		}
	}
}
