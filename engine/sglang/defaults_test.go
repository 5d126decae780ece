package sglang

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model"
)

// TestDefaultMemFractionStatic checks both releases' default msf on the
// devices of nvidia-smi's MiB. v0.5.6.post2 reserves 512 + 1.5 x
// max(chunked, 2048) + 2 x cuda_graph_max_bs + tp/8 x 1024 MiB, at least
// 10240 above 60 GiB; v0.4.9.post2 reserves by tier.
func TestDefaultMemFractionStatic(t *testing.T) {
	tests := []struct {
		name      string
		gpuMem    float64
		tp        uint64
		chunked   int64
		graphBS   uint64
		want056   float64
		want049   float64
		reasoning string
	}{
		{"H100 tp1", 81559, 1, 8192, 256, 0.835, 0.874,
			"056: 512 + 12288 + 512 + 128 = 13440; 68119/81559 = 0.83521. 049: (9.5 + 0.5) GiB = 10240; 71319/81559 = 0.87445"},
		{"H100 tp4", 81559, 4, 8192, 512, 0.824, 0.856,
			"056: 512 + 12288 + 1024 + 512 = 14336; 67223/81559 = 0.82422. 049: 11.5 GiB = 11776; 69783/81559 = 0.85561"},
		{"H100 tp8", 81559, 8, 8192, 512, 0.818, 0.831,
			"056: 14336 + 512 = 14848; 66711/81559 = 0.81795. 049: 13.5 GiB = 13824; 67735/81559 = 0.83050"},
		{"A100-80 tp1", 81920, 1, 8192, 256, 0.836, 0.875,
			"056: 68480/81920 = 0.83594. 049: 71680/81920 = 0.875"},
		{"H20 tp8", 97871, 8, 8192, 512, 0.848, 0.833,
			"056: 83023/97871 = 0.84829. 049: (12 + 4) GiB = 16384; 81487/97871 = 0.83260"},
		{"H200 tp1", 143771, 1, 8192, 256, 0.907, 0.911,
			"056: 130331/143771 = 0.90652. 049: 12.5 GiB = 12800; 130971/143771 = 0.91097"},
		{"H200 tp4", 143771, 4, 8192, 512, 0.900, 0.900,
			"056: 129435/143771 = 0.90029. 049: 14 GiB = 14336; 129435/143771 = 0.90029"},
		{"RTX 4090 tp1", 24564, 1, 2048, 24, 0.847, 0.879,
			"056: 512 + 3072 + 48 + 128 = 3760 (no floor below 60 GiB); 20804/24564 = 0.84693. 049: 2.9 GiB = 2969.6; 21594.4/24564 = 0.87911"},
		{"L40S tp8", 46068, 8, 4096, 160, 0.826, 0.700,
			"056: 512 + 6144 + 320 + 1024 = 8000; 38068/46068 = 0.82634. 049: the 90 GiB tier, 13.5 GiB = 13824; 32244/46068 = 0.69993"},
		{"B200 class tp1", 182633, 1, 16384, 512, 0.856, 0.821,
			"056: 512 + 24576 + 1024 + 128 = 26240; 156393/182633 = 0.85632. 049: 32 GiB = 32768; 149865/182633 = 0.82058"},
	}
	for _, tt := range tests {
		in := MSFInputs{GPUMemMiB: tt.gpuMem, TPSize: tt.tp, PPSize: 1, ChunkedPrefillSize: tt.chunked, MaxPrefillTokens: 16384, CudaGraphMaxBS: tt.graphBS}
		if got, _ := DefaultMemFractionStatic(current, in); got != tt.want056 {
			t.Errorf("%s v0.5.6.post2: msf %v, want %v (%s)", tt.name, got, tt.want056, tt.reasoning)
		}
		if got, _ := DefaultMemFractionStatic(r049, in); got != tt.want049 {
			t.Errorf("%s v0.4.9.post2: msf %v, want %v (%s)", tt.name, got, tt.want049, tt.reasoning)
		}
	}
	// Chunked prefill off: max_prefill_tokens (16384) sizes the activation
	// reserve: 512 + 24576 + 512 + 128 = 25728; 55831/81559 = 0.68455.
	off := MSFInputs{GPUMemMiB: 81559, TPSize: 1, PPSize: 1, ChunkedPrefillSize: -1, MaxPrefillTokens: 16384, CudaGraphMaxBS: 256}
	if got, reserved := DefaultMemFractionStatic(current, off); got != 0.685 || reserved != 25728 {
		t.Errorf("chunked prefill off: msf %v (reserved %v), want 0.685 (25728)", got, reserved)
	}
}

func TestPyRound3(t *testing.T) {
	// Python's round works on the exact binary value: 0.8345 is stored as
	// 0.83450000000000001954 (up), 0.1235 as 0.12349999999999999867 (down),
	// 1.0005 as 1.00049999999999994493 (down).
	for x, want := range map[float64]float64{0.8345: 0.835, 0.1235: 0.123, 1.0005: 1.0, 0.83521: 0.835, 0.0015: 0.002} {
		if got := pyRound3(x); got != want {
			t.Errorf("pyRound3(%v) = %v, want %v", x, got, want)
		}
	}
}

func TestCaptureSizes(t *testing.T) {
	tests := []struct {
		name          string
		p             Profile
		gpuMem        float64
		maxBS, pool   uint64
		count, larges uint64
		reasoning     string
	}{
		{"056 bs256", current, 81080, 256, 4096, 5 + 31, 256, "[1,2,4,8,12] and 16..256 by 8 (31 sizes)"},
		{"056 bs512", current, 81080, 512, 4096, 5 + 31 + 15 + 1, 512, "+ 272..496 by 16 (15) + 512"},
		{"056 bs160 pool 100", current, 46000, 160, 100, 5 + 11 + 1, 100, "sizes up to 96 (1,2,4,8,12,16..96: 16 sizes) and the pool's 100"},
		{"056 bs8", current, 15000, 8, 4096, 4, 8, "1, 2, 4, 8"},
		{"049 H100", r049, 81080, 0, 4096, 4 + 19, 160, "[1,2,4,8] + 16..160 by 8 (19)"},
		{"049 H200", r049, 143165, 0, 4096, 4 + 19 + 12, 256, "+ 168..256 by 8 (12 new)"},
		{"049 B200", r049, 182633, 0, 4096, 4 + 19 + 12 + 16, 512, "+ 272..512 by 16 (16 new)"},
		{"049 4090 tp4", r049, 24115, 80, 4096, 4 + 9, 80, "at most 80: 1,2,4,8,16..80 by 8"},
		{"049 bs200", r049, 81080, 200, 4096, 4 + 19 + 2, 192, "up to 160, then range(160, 201, 16): 176, 192"},
	}
	for _, tt := range tests {
		got := captureSizes(tt.p, tt.gpuMem, tt.maxBS, tt.pool)
		if uint64(len(got)) != tt.count || got[len(got)-1] != tt.larges {
			t.Errorf("%s: %d sizes up to %d, want %d up to %d (%s): %v", tt.name, len(got), got[len(got)-1], tt.count, tt.larges, tt.reasoning, got)
		}
	}
}

func TestDerivedContextLength(t *testing.T) {
	tests := []struct {
		name string
		a    model.Arch
		want uint64
	}{
		{"max_position_embeddings", model.Arch{MaxPosition: 40960}, 40960},
		{"linear rope x8 (Gemma 3's text config)", model.Arch{MaxPosition: 131072, RopeScaling: &model.RopeScaling{Type: "linear", Factor: 8}}, 1048576},
		{"llama3 rope: factor ignored", model.Arch{MaxPosition: 131072, RopeScaling: &model.RopeScaling{Type: "llama3", Factor: 8, OriginalMaxPosition: 8192}}, 131072},
		{"yarn with original_max_position_embeddings: factor ignored", model.Arch{MaxPosition: 163840, RopeScaling: &model.RopeScaling{Type: "yarn", Factor: 40, OriginalMaxPosition: 4096}}, 163840},
		{"yarn without it: scaled, truncated", model.Arch{MaxPosition: 32768, RopeScaling: &model.RopeScaling{Type: "yarn", Factor: 2.5}}, 81920},
		{"seq_length comes before max_position_embeddings", model.Arch{MaxPosition: 8192, MaxLenKeys: map[string]uint64{"seq_length": 4096, "max_position_embeddings": 8192}}, 4096},
		{"max_sequence_length first of all", model.Arch{MaxPosition: 8192, MaxLenKeys: map[string]uint64{"max_sequence_length": 2048, "seq_length": 4096}}, 2048},
		// An attention-free Mamba's config has no length key: get_context_length's 2048.
		{"no key at all", model.Arch{}, 2048},
	}
	for _, tt := range tests {
		if got := DerivedContextLength(&tt.a); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestRopeReserveRows(t *testing.T) {
	// reserve = align128(ctx + 256); a table of at most reserve-1 rows grows
	// to ((reserve - 1 + 128) // 128) * 128.
	for _, tt := range []struct{ rows, ctx, want uint64 }{
		{40960, 40960, 41216},    // reserve 41216; (41215 + 128) // 128 = 322 -> 41216
		{131072, 4096, 131072},   // reserve 4352: the table is longer already
		{131072, 131072, 131328}, // reserve 131328; 131327 >= 131072 -> 1026 x 128
		{4096, 1000, 4096},       // reserve 1280 (1256 rounded up)
		{1000, 1000, 1280},       // 1279 >= 1000 -> (1279 + 128) // 128 = 10 -> 1280
	} {
		if got := ropeReserveRows(tt.rows, tt.ctx); got != tt.want {
			t.Errorf("ropeReserveRows(%d, %d) = %d, want %d", tt.rows, tt.ctx, got, tt.want)
		}
	}
}

func TestPipelineStages(t *testing.T) {
	layers := func(st []model.Sharding) []int {
		var n []int
		for _, s := range st {
			n = append(n, s.EndLayer-s.FirstLayer)
		}
		return n
	}
	// 94 layers in 4 stages: 23 each and 2 left over.
	if diff := cmp.Diff([]int{23, 23, 24, 24}, layers(pipelineStages(94, 4, PPLastOneExtra))); diff != "" {
		t.Errorf("v0.5.6.post2 gives the last 2 stages one more (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{23, 23, 23, 25}, layers(pipelineStages(94, 4, PPLastTakesRest))); diff != "" {
		t.Errorf("v0.4.9.post2 gives the last stage the rest (-want +got):\n%s", diff)
	}
}

// TestDefaultMSFDraftInFraction: v0.5.14's default fraction reserves
// nothing for a draft (#28855; server_args.py:3276-3321 at v0.5.14 has no
// speculative term), where v0.5.13.post1 reserves 4 GiB after the floor.
// On an H100 (81080 MiB) at chunk 8192, graph batch 256, one rank and no
// piecewise term: 512 + 1.5 x 8192 + 2 x 256 + 1024 / 8 = 13440 MiB, above
// the 10 GiB floor; round((81080 - 13440) / 81080, 3) = round(0.83424) =
// 0.834 for v0.5.14, and with 4096 more, 17536, round(63544 / 81080, 3) =
// round(0.78372) = 0.784 for v0.5.13.post1.
func TestDefaultMSFDraftInFraction(t *testing.T) {
	in := MSFInputs{GPUMemMiB: 81080, TPSize: 1, PPSize: 1, ChunkedPrefillSize: 8192, CudaGraphMaxBS: 256, Speculative: true}
	for _, tt := range []struct {
		release  string
		msf      float64
		reserved float64
	}{
		{"v0.5.14", 0.834, 13440},
		{"v0.5.13.post1", 0.784, 17536},
	} {
		if msf, reserved := DefaultMemFractionStatic(mustProfile(tt.release), in); msf != tt.msf || reserved != tt.reserved {
			t.Errorf("%s: msf %v reserving %v MiB, want %v reserving %v", tt.release, msf, reserved, tt.msf, tt.reserved)
		}
	}
}
