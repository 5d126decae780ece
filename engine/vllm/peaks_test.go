package vllm

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model"
)

// mib is the rounding of the calibrated byte constants.
const mib = 1 << 20

// TestCalibratedConstants recomputes every calibrated constant of peaks.go
// from the figures of the rows it names (corpus/observed/vllm.csv, as the
// log prints them: GiB to two places) and checks the constant is that
// arithmetic, rounded as its comment says.
func TestCalibratedConstants(t *testing.T) {
	// Llama-3.1-8B: hidden 4096, vocabulary 128256 (a multiple of 64).
	// Qwen3-14B: hidden 5120; Qwen3-0.6B: hidden 1024; vocabulary 151936.
	// Every row runs vLLM's H100 defaults: 8192 batched tokens, 1024
	// sequences, bfloat16.
	const b, reqs = 8192, 1024
	// The 0.17+ sampler's peak without the residual: the hidden states kept
	// (b x hidden x 2), 14 B a logit (2 + 4 + 4 + 4) and the Triton buffer
	// (132 x vocab x 4).
	triton := func(hidden, vocab float64) float64 {
		return b*hidden*2 + reqs*vocab*14 + 132*vocab*4
	}
	res145 := 1.89*gib - triton(4096, 128256) // row 145 (0.19): 53.3 MiB
	res184 := 2.23*gib - triton(5120, 151936) // row 184 (0.17): 49.8 MiB
	residual := (res145 + res184) / 2
	// The sort sampler's scratch: what is left per logit of rows 64 and 65
	// (0.11) once the residual, the hidden states and the logits with their
	// float32 copy (2 + 4 B) are taken out.
	scratch := func(act, hidden, vocab float64) float64 {
		return (act*gib-residual-b*hidden*2)/(reqs*vocab) - 6
	}
	scratch64, scratch65 := scratch(4.76, 4096, 128256), scratch(5.56, 1024, 151936)
	// The graph estimate of rows 145 and 147 (0.19, Llama-3.1-8B at 32 and
	// 8 layers a stage, 100 graphs a layer) less the largest batch's
	// activations (512 tokens x (4 x 4096 + 3 x 14336) x 2 B).
	act512 := 512.0 * (4*4096 + 3*14336) * 2
	est145, est147 := 0.84*gib-act512, 0.49*gib-act512
	perLayerGraph := (est145 - est147) / (100 * (32 - 8))
	fixed := est147 - 100*8*perLayerGraph

	tests := []struct {
		name       string
		got        uint64
		want, unit float64
	}{
		{"sortScratchBytesPerLogit (rows 64, 65)", sortScratchBytesPerLogit, (scratch64 + scratch65) / 2, 1},
		{"profileResidualV1 (rows 145, 184)", profileResidualV1, residual, mib},
		{"nonTorchV1 (row 64: 0.13 GiB)", nonTorchV1, 0.13 * gib, mib},
		{"nonTorchV1From018 (row 185: 0.25 GiB)", nonTorchV1From018, 0.25 * gib, mib},
		{"nonTorchV1NotLast (row 146: 0.07 GiB)", nonTorchV1NotLast, 0.07 * gib, mib},
		{"tpNonTorchV1 (row 67: 0.54 - 0.13 GiB)", tpNonTorchV1, (0.54 - 0.13) * gib, mib},
		{"tpNonTorchV1From019 (rows 148, 126: (2.07 + 2.21) / 2 - 0.25 GiB)", tpNonTorchV1From019, ((2.07+2.21)/2 - 0.25) * gib, mib},
		{"nonTorchV0 (rows 25, 32, 40, 47: median of 0.01, 0.08, 0.10, 0.09 GiB)", nonTorchV0, (0.08 + 0.09) / 2 * gib, mib},
		{"graphBytesPerLayerGraph (rows 145, 147)", graphBytesPerLayerGraph, perLayerGraph, 1 << 10},
		{"graphFixed (rows 145, 147)", graphFixed, fixed, mib},
	}
	for _, tt := range tests {
		if want := uint64(math.Round(tt.want/tt.unit) * tt.unit); tt.got != want {
			t.Errorf("%s = %d, want %d (%.3f units of %v)", tt.name, tt.got, want, tt.want/tt.unit, tt.unit)
		}
	}
	// The residual of each row is within the log's rounding (0.005 GiB) of
	// the constant, and the scratch of each within 0.1 B: the fit's
	// residuals.
	for _, r := range []float64{res145, res184} {
		if math.Abs(r-profileResidualV1) > 0.005*gib {
			t.Errorf("a row's residual %.1f MiB is far from %d MiB", r/mib, profileResidualV1/mib)
		}
	}
	for _, s := range []float64{scratch64, scratch65} {
		if math.Abs(s-sortScratchBytesPerLogit) > 0.1 {
			t.Errorf("a row's sort scratch %.2f B is far from %d B", s, sortScratchBytesPerLogit)
		}
	}
}

// TestV0ResidualIsZero: the V0 rows whose peak is the forward pass leave
// nothing beyond it. Row 25 (Qwen2.5-1.5B, 0.7.2, T4, float16, 32768
// tokens, hidden 1536, intermediate 8960) logs 2.02 GiB; row 40
// (Qwen2.5-7B, 0.6.6, 8192 tokens, hidden 3584, intermediate 18944) 1.09.
func TestV0ResidualIsZero(t *testing.T) {
	for _, r := range []struct {
		tokens, hidden, inter, logged float64
	}{{32768, 1536, 8960, 2.02}, {8192, 3584, 18944, 1.09}} {
		forward := r.tokens * (4*r.hidden + 3*r.inter) * 2
		if left := r.logged*gib - forward; math.Abs(left-profileResidualV0) > 0.01*gib {
			t.Errorf("%v tokens: %.3f GiB left beyond the forward pass, want about %d", r.tokens, left/gib, profileResidualV0)
		}
	}
}

// TestSamplerBytesPerLogit: the logits in the model dtype, their float32
// copy unless they are float32, and the filter's own: 32 B of torch.sort,
// or the Triton kernel's probabilities and exponential draws (8 B).
func TestSamplerBytesPerLogit(t *testing.T) {
	tests := []struct {
		rule  samplerRule
		dtype uint64
		want  uint64
	}{
		{sortSampler, 2, 2 + 4 + 32},
		{sortSampler, 4, 4 + 32},
		{tritonSampler, 2, 2 + 4 + 8},
		{tritonSampler, 4, 4 + 8},
		{v2Sampler, 2, 2},
	}
	for _, tt := range tests {
		if got := samplerBytesPerLogit(tt.rule, tt.dtype); got != tt.want {
			t.Errorf("rule %d, %d-byte dtype: %d, want %d", tt.rule, tt.dtype, got, tt.want)
		}
	}
}

// TestSamplerLogitsSharded: from 0.29.0 the V2 runner's dummy sampler
// holds the full vocabulary of ceil(rows / TP) rows per rank (#50465);
// before, and on V1, every rank holds every row. Llama-3.1-8B's vocabulary
// 128256 is a multiple of 64, bfloat16 logits (2 B) on the V2 runner.
func TestSamplerLogitsSharded(t *testing.T) {
	const vocab = 128256
	tests := []struct {
		spec      string
		rule      samplerRule
		reqs, tp  uint64
		want      uint64
		reasoning string
	}{
		{"0.29.0", v2Sampler, 1024, 1, 1024 * vocab * 2, "TP 1: nothing to shard"},
		{"0.29.0", v2Sampler, 1024, 2, 512 * vocab * 2, "1024 rows over 2 ranks"},
		{"0.29.0", v2Sampler, 256, 3, 86 * vocab * 2, "ceil(256 / 3) = 86 rows"},
		{"0.29.0", tritonSampler, 1024, 4, 1024 * vocab * 14, "V1's sampler is not sharded"},
		{"0.28.0", v2Sampler, 1024, 4, 1024 * vocab * 2, "0.28.0 gathers every row"},
	}
	for _, tt := range tests {
		if got := samplerLogitsBytes(mustProfile(tt.spec), tt.rule, tt.reqs, vocab, tt.tp, 2); got != tt.want {
			t.Errorf("%s (%s): %d, want %d", tt.spec, tt.reasoning, got, tt.want)
		}
	}
}

// TestPeaksForVersions: each rule changes at the release whose pull request
// changed it.
func TestPeaksForVersions(t *testing.T) {
	v := func(minor int) Version { return Version{0, minor, 0} }
	v1 := peakModel{sampler: sortSampler, residualBytes: profileResidualV1, nonTorchBytes: nonTorchV1, nonTorchNotLastBytes: nonTorchV1,
		tpBytes: tpNonTorchV1, graphFixedBytes: graphFixed, graphBytesPerLayerGraph: graphBytesPerLayerGraph}
	at14, at17, at18, at19 := v1, v1, v1, v1
	at14.moeWorkspace = true
	at17.moeWorkspace, at17.sampler = true, tritonSampler
	at18 = at17
	at18.nonTorchBytes, at18.nonTorchNotLastBytes = nonTorchV1From018, nonTorchV1NotLast
	at19 = at18
	at19.tpBytes = tpNonTorchV1From019
	v0 := peakModel{sampler: sortSampler, residualBytes: profileResidualV0, nonTorchBytes: nonTorchV0, nonTorchNotLastBytes: nonTorchV0,
		tpBytes: tpNonTorchV1, graphFixedBytes: graphFixed, graphBytesPerLayerGraph: graphBytesPerLayerGraph}
	tests := []struct {
		name string
		v    Version
		era  Era
		want peakModel
	}{
		{"0.8.5 V0", Version{0, 8, 5}, V0, v0},
		{"0.11 V1", v(11), V1, v1},
		{"0.13", v(13), V1, v1},
		{"0.14: MoE workspace (#27532)", v(14), V1, at14},
		{"0.16", v(16), V1, at14},
		{"0.17: Triton sampler (#33538)", v(17), V1, at17},
		{"0.18: non-torch", v(18), V1, at18},
		{"0.19: TP non-torch", v(19), V1, at19},
		{"main", mainRelease, V1, at19},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, peaksFor(tt.v, tt.era), cmp.AllowUnexported(peakModel{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestProfilePeakOfLlama8B: the activation peak vLLM 0.19 logs for
// Llama-3.1-8B on H100 at its defaults (rows 139-151: 1.89 GiB) is the
// sampler's: 8192 x 4096 x 2 kept hidden states + 1024 x 128256 x 14 +
// 132 x 128256 x 4 (the Triton buffer: min(next_pow2(1024), the class's
// 132 SMs) rows) + 52 MiB = 2028032000 B (1.889 GiB), above the forward
// pass's 8192 x 118784 B + 52 MiB. The first of two pipeline stages (row
// 146, 16 layers) holds the forward pass alone.
func TestProfilePeakOfLlama8B(t *testing.T) {
	archs := shipped(t)
	a := archs["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := testClass(false)
	h100.Device.MemoryBytes = 85018542080
	p := mustProfile("0.19.0")
	for _, tt := range []struct {
		pp   uint64
		want uint64
	}{
		{1, 8192*4096*2 + 1024*128256*14 + 132*128256*4 + profileResidualV1},
		{2, 8192*118784 + profileResidualV1},
	} {
		r, err := NewReference(a, Serve{GPUMemoryUtilization: 0.95, MaxModelLen: 8192, PipelineParallelSize: tt.pp}, h100, p)
		if err != nil {
			t.Fatal(err)
		}
		pred := r.Predict()
		if pred.ActivationPeakBytes != tt.want {
			t.Errorf("PP %d: activation peak %d, want %d", tt.pp, pred.ActivationPeakBytes, tt.want)
		}
		if tt.pp == 2 && pred.NonTorchBytes != nonTorchV1NotLast {
			t.Errorf("PP 2: non-torch %d on the first stage, want %d", pred.NonTorchBytes, nonTorchV1NotLast)
		}
	}
}

// TestMoEWorkspace: DeepSeek-V2-Lite at 8192 tokens (top-6, moe
// intermediate 1408, hidden 2048) keeps 8192 x 6 x (max(1408, 2048) +
// max(2816, 2048)) x 2 B = 478150656 B in the workspace manager; row 124
// (0.19) logs 1.93 GiB, the sampler's 1.45 plus this and the residual.
func TestMoEWorkspace(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V2-Lite"]
	if got, want := moeWorkspaceBytes(a, model.Sharding{}, 1, 8192, 2), uint64(8192*6*(2048+2816)*2); got != want {
		t.Errorf("workspace %d, want %d", got, want)
	}
}

// TestMoEWorkspaceMarlinMXFP4: gpt-oss-20b (top-4, expert intermediate
// 2880, hidden 2880) at an L40's 2048 batched tokens (rows 322-323). Marlin
// pads the intermediate to 128 (2880 -> 23 x 128 = 2944) and the hidden
// size to 256 (2880 -> 12 x 256 = 3072), so its workspace is 2048 x 4 x
// (max(2944, 3072) + max(5888, 3072)) x 2 B = 2048 x 4 x 8960 x 2 =
// 146800640 B, both buffers multiples of the manager's 256-byte alignment
// (8192 x 3072 x 2 = 50331648, 8192 x 5888 x 2 = 96468992). Triton on
// Hopper pads the intermediate to 64 (2880 already is) and not the hidden
// size: 2048 x 4 x (2880 + 5760) x 2 = 141557760 B, as with no kernel.
func TestMoEWorkspaceMarlinMXFP4(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-20b"]
	tests := []struct {
		name string
		k    model.MXFP4Kernel
		want uint64
	}{
		{"Marlin", MXFP4Marlin, 2048 * 4 * 8960 * 2},
		{"Triton on Hopper", MXFP4Triton, 2048 * 4 * (2880 + 5760) * 2},
		{"no kernel", model.MXFP4Kernel{}, 2048 * 4 * (2880 + 5760) * 2},
	}
	for _, tt := range tests {
		st := model.Sharding{MXFP4: tt.k}
		if got := moeWorkspaceBytes(a, st, 1, 2048, 2); got != tt.want {
			t.Errorf("%s: workspace %d, want %d", tt.name, got, tt.want)
		}
	}
	// At TP 2 Marlin pads each rank's 1440 to 1536 (12 x 128):
	// 2048 x 4 x (max(1536, 3072) + max(3072, 3072)) x 2 = 100663296 B.
	st := model.Sharding{MXFP4: MXFP4Marlin}
	if got, want := moeWorkspaceBytes(a, st, 2, 2048, 2), uint64(2048*4*(3072+3072)*2); got != want {
		t.Errorf("TP 2: workspace %d, want %d", got, want)
	}
}

// TestGraphEstimateCounts: at 1024 sequences vLLM captures 51 sizes in each
// of its two modes (row 112: "PIECEWISE=51 (largest=512), FULL=51
// (largest=512)"), 100 graphs beyond the first of each; at 256 sequences
// the decode (FULL) sizes stop at 256: 51 + 35 - 2 = 84.
func TestGraphEstimateCounts(t *testing.T) {
	if got := captureSizes(512); got != 51 {
		t.Errorf("sizes up to 512: %d, want 51", got)
	}
	if got := captureSizes(256); got != 35 {
		t.Errorf("sizes up to 256: %d, want 35", got)
	}
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	r := ref(t, a, Serve{MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192}, testClass(false))
	st := r.Serve.Stages[0]
	// The largest capture's forward pass: (4 x 4096 + 3 x 14336) x 2 B.
	if got := forwardBytesPerToken(a, 1, 2); got != 118784 {
		t.Fatalf("Llama-3.1-8B's forward pass: %d B a token, want 118784", got)
	}
	want := uint64(graphFixed + 512*118784 + 100*32*graphBytesPerLayerGraph)
	if got := graphBytes(&r.Serve, st, 118784); got != want {
		t.Errorf("1024 sequences: %d, want %d", got, want)
	}
	// peakItems charges the same pool, once.
	pools := 0
	for _, it := range peakItems(a, &r.Serve, st) {
		if it.Term == budget.TermGraphPool {
			pools++
			if it.Bytes != want {
				t.Errorf("peakItems' graph pool: %d, want %d", it.Bytes, want)
			}
		}
	}
	if pools != 1 {
		t.Errorf("peakItems lists %d graph pools, want 1", pools)
	}
	r = ref(t, a, Serve{MaxNumSeqs: 256, MaxNumBatchedTokens: 8192}, testClass(false))
	want = uint64(graphFixed + 512*118784 + 84*32*graphBytesPerLayerGraph)
	if got := graphBytes(&r.Serve, r.Serve.Stages[0], 118784); got != want {
		t.Errorf("256 sequences: %d, want %d", got, want)
	}
}

// TestTritonBufferRows: the rows the Triton top-k/top-p sampler allocates,
// by hand for each batch and SM count.
func TestTritonBufferRows(t *testing.T) {
	// vLLM allocates min(next_pow2(min(num_sm, batch)), num_sm) rows
	// (topk_topp_triton.py:906-915 at d18bb7b); by hand for each case.
	tests := []struct {
		name            string
		batch, sm, want uint64
	}{
		{"rows 322-323: 16 sequences on an L40", 16, 142, 16},      // next_pow2(min(142, 16)) = 16 <= 142
		{"row 240: 32 sequences on an RTX PRO 6000", 32, 188, 32},  // 32 is a power of two, under 188
		{"rounded up below the SMs", 100, 132, 128},                // next_pow2(100) = 128 <= 132
		{"rounded up past the SMs, capped", 130, 132, 132},         // next_pow2(130) = 256 > 132: 132
		{"more sequences than SMs", 1024, 132, 132},                // min(132, 1024) = 132, next_pow2 256, capped: 132
		{"MI300X's compute units", 512, 304, 304},                  // next_pow2(min(304, 512) = 304) = 512 > 304: 304
		{"one sequence", 1, 108, 1},                                // next_pow2(1) = 1
		{"no sm_count: the bound next_pow2(batch)", 1000, 0, 1024}, // the rule never allocates more than next_pow2(batch)
		{"no sm_count, a power of two", 256, 0, 256},
	}
	for _, tt := range tests {
		if got := tritonBufferRows(tt.batch, tt.sm); got != tt.want {
			t.Errorf("%s: tritonBufferRows(%d, %d) = %d, want %d", tt.name, tt.batch, tt.sm, got, tt.want)
		}
	}
}

// TestTritonBufferRowsProperties: tritonBufferRows is vLLM's own form of
// the rows, written differently, and stays between the programs the
// kernel runs and the bound without an SM count.
func TestTritonBufferRowsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		batch := rapid.Uint64Range(1, 1<<20).Draw(t, "batch")
		sm := rapid.Uint64Range(1, 4096).Draw(t, "sm")
		got := tritonBufferRows(batch, sm)
		// vLLM's own form: min(next_pow2(min(sm, batch)), sm).
		if want := min(nextPow2(min(sm, batch)), sm); got != want {
			t.Fatalf("tritonBufferRows(%d, %d) = %d, vLLM's form %d", batch, sm, got, want)
		}
		// Enough rows for the kernel's programs, min(sm, batch), and never
		// more than the bound without an SM count.
		if got < min(sm, batch) || got > tritonBufferRows(batch, 0) {
			t.Fatalf("tritonBufferRows(%d, %d) = %d out of [%d, %d]", batch, sm, got, min(sm, batch), tritonBufferRows(batch, 0))
		}
	})
}
