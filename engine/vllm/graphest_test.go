package vllm

import (
	"fmt"
	"testing"
)

// graphSample is what vLLM's profile_cudagraph_memory printed at DEBUG
// level for one row of corpus/observed/vllm.csv: each mode's first capture
// and its second (the per-graph figure), in MiB, as "Estimated PIECEWISE
// CUDA graph memory: A MiB first-capture + (51-1) × B MiB per-graph" and
// the same for FULL, then the total it logs at INFO. The rows are llm-d's
// v0.19.0 sweep on H100 80GB HBM3 (llm-d-incubation/llm-d-planner,
// accuracy/results/v0.19.0/logs/*.log at d3121e0, the rank-0 worker's
// lines, the row's source cell names the file).
type graphSample struct {
	row  string
	arch string // the shipped config sized for the row ("" where none is)
	tp   uint64
	// flash says the row ran FLASH_ATTN or FLASH_ATTN_MLA ("Using ...
	// attention backend" in the same log); row 142 (float32) ran
	// TRITON_ATTN.
	flash                                    bool
	pieceFirst, piecePer, fullFirst, fullPer uint64
	logged                                   float64 // GiB, as logged
}

// graphSamples are the rows the unmetGates entry of 0.19.0's graph
// estimate names, and their siblings.
var graphSamples = []graphSample{
	{"123", "codellama__CodeLlama-7b-hf", 1, true, 122, 6, 262, 6, 0.84},
	{"124", "deepseek-ai__DeepSeek-V2-Lite", 1, true, 106, 10, 522, 8, 1.39},
	{"125", "meta-llama__Llama-3.3-70B-Instruct", 2, true, 108, 20, 268, 12, 1.82},
	{"126", "meta-llama__Llama-3.3-70B-Instruct", 4, true, 98, 18, 142, 14, 1.70},
	{"135", "ibm-granite__granite-3.1-2b-instruct", 1, true, 100, 26, 134, 4, 1.60},
	{"138", "", 1, true, 100, 6, 134, 4, 0.62}, // granite-vision-3.3-2b
	{"142", "meta-llama__Llama-3.1-8B-Instruct", 1, false, 224, 6, 4, 6, 0.80},
	{"145", "meta-llama__Llama-3.1-8B-Instruct", 1, true, 138, 6, 260, 6, 0.84},
	{"147", "meta-llama__Llama-3.1-8B-Instruct", 1, true, 112, 1, 256, 4, 0.49}, // PP 4
	{"148", "meta-llama__Llama-3.1-8B-Instruct", 2, true, 96, 26, 132, 6, 1.69},
	{"149", "meta-llama__Llama-3.1-8B-Instruct", 4, true, 84, 6, 70, 4, 0.57},
	{"176", "meta-llama__Llama-3.3-70B-Instruct", 2, true, 122, 20, 268, 14, 1.92},
	{"178", "mistralai__Mistral-Small-3.1-24B-Instruct-2503", 1, true, 198, 8, 262, 8, 1.04},
	{"179", "mistralai__Mistral-Small-3.1-24B-Instruct-2503", 2, true, 100, 24, 136, 6, 1.60},
}

// TestGraphEstimateSamples pins what the logged CUDA-graph estimates of
// vLLM 0.19 are made of, the evidence behind unmetGates' "0.19.0"
// graph_estimate entry:
//
//   - the total is the larger first capture plus (51 - 1) times each mode's
//     second capture (vllm/v1/worker/gpu_model_runner.py
//     profile_cudagraph_memory, lines 5907-5933 and 5959-5961 at 50cd5674b,
//     main of 2026-04-03 near 0.19.0's cut; the same at d18bb7b, lines
//     6846-6874 and 6919-6924), which graphBytes follows (one first
//     capture, graphs - 1 further ones a mode);
//   - every figure is a difference of free device memory in whole 2 MiB
//     pages but the 1 MiB floor vLLM puts under a per-graph figure (row
//     147's PIECEWISE sample), so one page more or less in a single second
//     capture moves the estimate by 50 x 2 MiB = 0.1 GiB, the gate;
//   - the FULL first capture of a FlashAttention row holds FlashAttention
//     3's split-KV accumulators: vLLM caps the splits at 32 under FULL
//     graphs (flash_attn_max_num_splits_for_cuda_graph, vllm/config/
//     attention.py:46; flash_attn.py:537-538 and mla/flashattn_mla.py:
//     162-163 at d18bb7b) and "the intermediate buffers of size
//     [num_splits, num_heads, num_tokens, head_size]" (flash_attn.py:
//     629-632) are float32 (FlashAttention 3's out_accum; the figures
//     bear it out): 32 x 512 tokens x heads a rank x the value head size
//     x 4 B, the value head being MLA's kv_lora_rank; TRITON_ATTN (row
//     142) allocates none;
//   - rows 148, 135 and 179 (the 0.6-0.9 GiB misses) carry a PIECEWISE
//     per-graph sample 16-20 MiB above their siblings' (row 145: the same
//     model at TP 1; row 138: granite-vision-3.3-2b, whose language model
//     captures as row 135's does, the same 100 and 134 MiB first; row
//     178: the same checkpoint at TP 1), 20 MiB
//     being one segment of PyTorch's caching allocator for 1-10 MiB
//     requests (kLargeBuffer, c10/cuda/CUDACachingAllocator.cpp): times
//     50 it is 0.98 GiB. The graph pool vLLM then captures is 0.76, 0.84
//     and 1.03 GiB (their "CUDA graph pool memory ... (actual)"), where
//     membudget's graph term is 0.82, 0.93 and 0.97: the jump is in one
//     sample, not in the graphs.
func TestGraphEstimateSamples(t *testing.T) {
	if got := captureSizes(512); got != 51 {
		t.Fatalf("capture sizes up to 512: %d, want 51 (the logs' PIECEWISE=51, FULL=51)", got)
	}
	archs := shipped(t)
	const further = 51 - 1
	for _, s := range graphSamples {
		t.Run(s.row, func(t *testing.T) {
			// vLLM's arithmetic, in MiB: e.g. row 148, max(96, 132) + 50 x
			// 26 + 50 x 6 = 1732 MiB = 1.691 GiB, logged 1.69.
			total := max(s.pieceFirst, s.fullFirst) + further*(s.piecePer+s.fullPer)
			if got := fmt.Sprintf("%.2f", float64(total)/1024); got != fmt.Sprintf("%.2f", s.logged) {
				t.Errorf("max(%d, %d) + 50 x (%d + %d) = %d MiB = %s GiB, logged %.2f", s.pieceFirst, s.fullFirst, s.piecePer, s.fullPer, total, got, s.logged)
			}
			for _, f := range []uint64{s.pieceFirst, s.fullFirst, s.fullPer} {
				if f%2 != 0 {
					t.Errorf("%d MiB is no whole number of 2 MiB pages", f)
				}
			}
			if s.piecePer%2 != 0 && s.piecePer != 1 {
				t.Errorf("PIECEWISE per-graph %d MiB is neither whole pages nor the 1 MiB floor", s.piecePer)
			}
			if s.arch == "" {
				return
			}
			a := archs[s.arch]
			if a == nil {
				t.Fatalf("no shipped config %s", s.arch)
			}
			var accum uint64 // MiB
			if s.flash {
				head := a.HeadDim
				if a.MLA {
					head = a.KVLoraRank
				}
				// Row 145: 32 x 512 x 32 x 128 x 4 B = 256 MiB; row 124
				// (16 heads, kv_lora_rank 512): 512 MiB; row 149 (8 heads a
				// rank): 64 MiB.
				accum = 32 * 512 * (a.Heads / s.tp) * head * 4 >> 20
			}
			// What the FULL first capture holds beside the accumulators is
			// a graph's own few pages: 4-14 MiB on these rows.
			if s.fullFirst < accum || s.fullFirst-accum > 16 {
				t.Errorf("FULL first capture %d MiB, split-KV accumulators %d MiB: want 0-16 MiB beside them", s.fullFirst, accum)
			}
		})
	}
	// The jumps, against each row's sibling: rows 148 and 135 are 20 MiB
	// (one kLargeBuffer segment) above theirs, row 179 16 MiB; times 50,
	// 0.98 GiB (row 148 misses by 0.87, row 135 by 0.67) and 0.78 (row 179,
	// 0.63).
	per := map[string]uint64{}
	for _, s := range graphSamples {
		per[s.row] = s.piecePer
	}
	for _, c := range []struct {
		row, sibling string
		jump         uint64
	}{{"148", "145", 20}, {"135", "138", 20}, {"179", "178", 16}} {
		if got := per[c.row] - per[c.sibling]; got != c.jump {
			t.Errorf("row %s's PIECEWISE sample is %d MiB above row %s's, want %d", c.row, got, c.sibling, c.jump)
		}
	}
}
