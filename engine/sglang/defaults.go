package sglang

import (
	"math"
	"slices"
	"strconv"

	"membudget/budget"
	"membudget/model"
)

const (
	mib = 1 << 20
	gib = 1 << 30
)

// GPUMemMiB is the device memory SGLang's defaults read, in MiB: nvidia-smi's
// (or rocm-smi's) memory.total, the smallest over the host's GPUs
// (v0.5.6.post2 python/sglang/srt/utils/common.py:1580-1611, 1699-1716).
// A class holds only memory_bytes, torch's total, which is below
// nvidia-smi's by the driver's reservation (H100 80GB HBM3: 81080 MiB
// against nvidia-smi's 81559), so this is floor(memory_bytes / MiB): a
// default msf about 0.001 lower than SGLang's on such a card.
func GPUMemMiB(c budget.Class) float64 {
	return float64(c.Device.MemoryBytes / mib)
}

// MSFInputs is what SGLang's default --mem-fraction-static depends on.
type MSFInputs struct {
	// GPUMemMiB is the device memory in MiB, as nvidia-smi prints it.
	GPUMemMiB float64
	// TPSize and PPSize are the tensor- and pipeline-parallel degrees.
	TPSize, PPSize uint64
	// ChunkedPrefillSize is the resolved --chunked-prefill-size; 0 or
	// less means chunked prefill is disabled.
	ChunkedPrefillSize int64
	// MaxPrefillTokens is --max-prefill-tokens.
	MaxPrefillTokens uint64
	// CudaGraphMaxBS is the resolved --cuda-graph-max-bs (v0.5.6.post2).
	CudaGraphMaxBS uint64
	// Speculative says EAGLE, EAGLE3 or NEXTN speculative decoding is on.
	Speculative bool
	// PiecewiseMiB is what the default reserves for piecewise CUDA graphs
	// (v0.5.10; see piecewise.go), before the 10 GiB floor.
	PiecewiseMiB float64
	// DecodeGraphsOff says --disable-cuda-graph was given, which turns
	// the decode graphs off before the default is derived: from v0.5.15
	// the default then reserves nothing for them (see
	// [Profile.ReserveDecodeGraphsOn]).
	DecodeGraphsOff bool
}

// DefaultMemFractionStatic is the --mem-fraction-static profile p's SGLang
// derives when the flag is not given, before any multimodal or attention
// backend adjustment, and the MiB it reserves for activations and CUDA
// graphs.
//
// v0.5.6.post2 (python/sglang/srt/server_args.py:848-890): 512 MiB, plus 1.5
// MiB per token of max(chunked_prefill_size, 2048) (of max_prefill_tokens
// when chunked prefill is off), plus 2 MiB per CUDA-graph batch, plus 128
// MiB per rank, at least 10 GiB on devices above 60 GiB; then 2 GiB more
// with EAGLE, EAGLE3 or NEXTN speculative decoding (:874-880). v0.5.10
// adds the piecewise CUDA graphs' reserve before the floor, and makes the
// draft's 4 GiB (server_args.py:1283-1322). v0.5.14 drops the draft's
// reserve (PR #28855), and v0.5.15 the 2 MiB per batch where the decode
// graphs are off (PR #29615, server_args.py:3625-3690).
//
// v0.4.9.post2 (server_args.py:294-321): (2.8 + ranks/10) GiB below 35 GiB,
// (9.5 + ranks/2) GiB below 90 GiB, (12 + ranks/2) GiB below 160 GiB, 32 GiB
// above.
//
// Both return round((gpu_mem - reserved) / gpu_mem, 3), rounded as Python's
// round does (to the nearest, ties to even, on the exact binary value).
func DefaultMemFractionStatic(p Profile, in MSFInputs) (msf, reservedMiB float64) {
	g := in.GPUMemMiB
	ranks := float64(in.TPSize * in.PPSize)
	switch p.MSF {
	case MSFReserve:
		reservedMiB = 512
		if in.ChunkedPrefillSize > 0 {
			reservedMiB += float64(max(in.ChunkedPrefillSize, 2048)) * 1.5
		} else {
			reservedMiB += float64(max(in.MaxPrefillTokens, 2048)) * 1.5
		}
		if !(p.ReserveDecodeGraphsOn && in.DecodeGraphsOff) {
			reservedMiB += float64(in.CudaGraphMaxBS * 2) // v0.5.15 server_args.py:3639-3643 only while they are on
		}
		reservedMiB += ranks / 8 * 1024
		reservedMiB += in.PiecewiseMiB // v0.5.10 server_args.py:1304-1311
		if g > 60*1024 {
			reservedMiB = max(reservedMiB, 10*1024)
		}
		if in.Speculative && !p.DraftInFraction {
			// From v0.5.14 none: the draft's weights count in the
			// fraction (see [Profile.DraftInFraction]).
			reservedMiB += specReserveMiB // after the floor (server_args.py:874-880)
			if p.SpecReserve4GiB {
				reservedMiB += specReserveMiB // 4 GiB in all (v0.5.10 server_args.py:1316-1322)
			}
		}
	default:
		switch {
		case g < 35*1024:
			reservedMiB = (2.8 + ranks/10) * 1024
		case g < 90*1024:
			reservedMiB = (9.5 + ranks/2) * 1024
		case g < 160*1024:
			reservedMiB = (12 + ranks/2) * 1024
		default:
			reservedMiB = 32 * 1024
		}
	}
	return pyRound3((g - reservedMiB) / g), reservedMiB
}

// pyRound3 is Python's round(x, 3): the nearest multiple of 0.001 to the
// exact binary value of x, ties to even. strconv formats the exact value
// with the same rounding.
func pyRound3(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	return v
}

// gpuTier is the device's row in SGLang's table of defaults by memory.
type gpuTier struct {
	chunked    int64
	graphSmall uint64 // cuda_graph_max_bs below TP4
	graphLarge uint64 // cuda_graph_max_bs at TP4 and above
}

// tierFor is v0.5.6.post2's defaults by device memory (server_args.py:
// 752-829): chunked_prefill_size and cuda_graph_max_bs. The NPU rows do not
// apply to the devices membudget classes.
func tierFor(gpuMemMiB float64) gpuTier {
	switch {
	case gpuMemMiB < 20*1024:
		return gpuTier{2048, 8, 8} // T4, 4080
	case gpuMemMiB < 35*1024:
		return gpuTier{2048, 24, 80} // A10, 4090, 5090
	case gpuMemMiB < 60*1024:
		return gpuTier{4096, 32, 160} // A100-40G, L40
	case gpuMemMiB < 160*1024:
		return gpuTier{8192, 256, 512} // H100, A100-80G, H20, H200
	}
	return gpuTier{16384, 512, 512} // B200, MI300
}

// defaultChunkedPrefill is the profile's --chunked-prefill-size default:
// v0.5.6.post2's tiers, or v0.4.9.post2's (server_args.py:333-343: 2048
// below 35 GiB, 8192 below 160 GiB, else 16384).
func defaultChunkedPrefill(p Profile, gpuMemMiB float64) int64 {
	if p.GraphTiers {
		return tierFor(gpuMemMiB).chunked
	}
	switch {
	case gpuMemMiB < 35*1024:
		return 2048
	case gpuMemMiB < 160*1024:
		return 8192
	}
	return 16384
}

// defaultCudaGraphMaxBS is the profile's --cuda-graph-max-bs default; 0
// means unset, which v0.4.9.post2 leaves above 35 GiB (server_args.py:
// 347-353: 8 below TP4, else 80, under 35 GiB).
func defaultCudaGraphMaxBS(p Profile, gpuMemMiB float64, tp uint64) uint64 {
	if p.GraphTiers {
		t := tierFor(gpuMemMiB)
		if tp < 4 {
			return t.graphSmall
		}
		return t.graphLarge
	}
	if gpuMemMiB < 35*1024 {
		if tp < 4 {
			return 8
		}
		return 80
	}
	return 0
}

// captureSizes is the decode batch sizes SGLang captures CUDA graphs for,
// given the resolved cuda_graph_max_bs (0: unset) and the req_to_token
// pool's size.
//
// v0.5.6.post2: [1, 2, 4, 8, 12] + range(16, 257, 8) + range(272, 512, 16)
// + range(512, max_bs+1, 32), at most max_bs (server_args.py:898-926), then
// the pool's size added when it is smaller than the largest, and every size
// above it dropped (model_executor/cuda_graph_runner.py:189-216).
//
// v0.4.9.post2 (cuda_graph_runner.py:138-180): [1, 2, 4, 8] + range(16,
// 161, 8), + range(160, 257, 8) above 90 GiB, + range(256, 513, 16) above
// 160000 MiB; the pool's size added when smaller; then at most max_bs,
// extended by range(largest, max_bs+1, 16) when below it; at most the pool.
func captureSizes(p Profile, gpuMemMiB float64, maxBS, pool uint64) []uint64 {
	var bs []uint64
	rng := func(from, to, step uint64) { // Python's range(from, to, step)
		for v := from; v < to; v += step {
			bs = append(bs, v)
		}
	}
	largest := func() uint64 {
		var m uint64
		for _, v := range bs {
			m = max(m, v)
		}
		return m
	}
	keep := func(limit uint64) {
		out := bs[:0]
		for _, v := range bs {
			if v <= limit {
				out = append(out, v)
			}
		}
		bs = out
	}
	if p.GraphTiers {
		bs = append(bs, 1, 2, 4, 8, 12)
		rng(16, 257, 8)
		rng(272, 512, 16)
		rng(512, maxBS+1, 32)
		keep(maxBS)
		if p.CaptureMaxBS && maxBS > 0 && !slices.Contains(bs, maxBS) {
			bs = append(bs, maxBS) // v0.5.10 server_args.py:1372-1373 (PR #21005)
		}
		if len(bs) > 0 && largest() > pool {
			bs = append(bs, pool)
		}
		keep(pool)
	} else {
		bs = append(bs, 1, 2, 4, 8)
		rng(16, 161, 8)
		if gpuMemMiB > 90*1024 {
			rng(160, 257, 8)
		}
		if gpuMemMiB > 160*1000 {
			rng(256, 513, 16)
		}
		if largest() > pool {
			bs = append(bs, pool)
		}
		if maxBS > 0 {
			keep(maxBS)
			if l := largest(); l < maxBS {
				rng(l, maxBS+1, 16)
			}
		}
		keep(pool)
	}
	return uniqueSorted(bs)
}

func uniqueSorted(v []uint64) []uint64 {
	seen := map[uint64]bool{}
	var out []uint64
	for _, x := range v {
		if !seen[x] && x > 0 {
			seen[x] = true
			out = append(out, x)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// graphBytesPerBatch is what membudget charges for the decode CUDA graphs
// per request of the largest captured batch: SGLang's own estimate of its
// graph buffers, 2 MiB per batch of cuda_graph_max_bs, which its default
// --mem-fraction-static reserves (v0.5.6.post2 server_args.py:856-857). No
// SGLang graph capture is in corpus/observed/vllm.csv to check it against.
const graphBytesPerBatch = 2 * mib

// DerivedContextLength is the context length SGLang derives from the
// model's config (utils/hf_transformers_utils.py:369-395 at v0.5.6.post2,
// hf_transformers_utils.py:178-204 at v0.4.9.post2, get_context_length):
// the first of max_sequence_length, seq_length, max_seq_len,
// model_max_length and max_position_embeddings the text config has, times
// rope_scaling's factor unless rope_scaling has
// original_max_position_embeddings or is llama3's, truncated.
//
// The Arch gives the keys in MaxLenKeys and the scaling in RopeScaling;
// where the config reader leaves them unset, max_position_embeddings
// unscaled is used.
func DerivedContextLength(a *model.Arch) uint64 {
	val := a.MaxPosition
	for _, k := range []string{"max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings"} {
		if v, ok := a.MaxLenKeys[k]; ok {
			val = v
			break
		}
	}
	if val == 0 && len(a.MaxLenKeys) == 0 {
		// get_context_length returns 2048 for a config without any of the
		// keys (an attention-free Mamba's; hf_transformers_utils.py at
		// v0.5.6.post2).
		return 2048
	}
	factor := 1.0
	if rs := a.RopeScaling; rs != nil && rs.Factor > 0 && rs.OriginalMaxPosition == 0 && rs.Type != "llama3" {
		factor = rs.Factor
	}
	return uint64(math.Trunc(factor * float64(val)))
}

// ropeReserveRows is how many rows a rotary table of rows rows holds after
// v0.5.6.post2's reserve_rope_cache_for_long_sequences
// (utils/common.py:3716-3753; constants environ.py:313-315; growth
// layers/rotary_embedding.py:176-186): reserve = align128(context_len +
// 256); a table of at most reserve-1 rows grows to
// ((reserve-1+128)//128)*128.
func ropeReserveRows(rows, contextLen uint64) uint64 {
	const margin, align = 256, 128
	reserve := budget.RoundUp(contextLen+margin, align)
	needed := reserve - 1
	if needed < rows {
		return rows
	}
	return (needed + align) / align * align
}
