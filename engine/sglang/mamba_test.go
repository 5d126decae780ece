package sglang

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/logs"
)

// mambaFigures are the figures of a hybrid serve the tests pin.
type mambaFigures struct {
	PerReq, Cell          uint64
	Ratio                 uint64
	MambaSize, Tokens     int64
	MaxNumReqs            uint64
	ConvBytes, SSMBytes   uint64
	MambaCharge, Padding  uint64
	ExtraBuffer, Requests bool
}

// mambaFiguresOf returns r's hybrid figures: the pool's sizing, the
// capacity's and the padding slot charged beside the budget.
func mambaFiguresOf(r *Reference) mambaFigures {
	c := r.Capacity()
	m := r.Serve.Mamba
	return mambaFigures{PerReq: m.PerReq(), Cell: c.CellBytes, Ratio: m.Ratio, MambaSize: c.MambaSize, Tokens: c.MaxTotalNumTokens,
		MaxNumReqs: c.MaxNumReqs, ConvBytes: c.MambaConvBytes, SSMBytes: c.MambaSSMBytes, MambaCharge: r.mambaBytes(),
		ExtraBuffer: m.ExtraBuffer, Requests: m.FromRequests, Padding: besideItem(r, "mamba_pool.padding_slot")}
}

// TestMambaQwen3NextA100 sizes Qwen3-Next-80B-A3B (bf16, config only) at
// TP 4 on an A100 80GB under v0.5.14, by hand.
//
// The delta net (config.json): 16 key heads, 32 value heads, head dims
// 128 and 128, conv kernel 4; 48 layers, every 4th full attention (12),
// 36 linear attention. At TP 4 (configs/mamba_utils.py:163-199): conv_dim
// = 32 x 128 + 2 x 16 x 128 = 8192, 2048 a rank x 3 taps x 2 bytes
// (bf16) = 12,288 B; the temporal state 32 / 4 = 8 heads x 128 x 128 x 4
// bytes (float32) = 524,288 B; a layer 536,576 B, x 36 = 19,316,736 B a
// slot. The KV cell is the 12 full layers only: 2 KV heads over 4 ranks
// is max(1, 0) = 1 head x (256 + 256) x 2 bytes x 12 = 12,288 B.
//
// The rest: F0 = 82,839,601,152 B and the load 40,011,563,008 B (both
// pinned elsewhere; F1 = 42,828,038,144 B), exact in float32 (the world
// group's all-reduce), msf 0.823: rest = 42828038144 / 2^30 -
// 82839601152 / 2^30 x 0.177 = 26.2310996 GiB. The Mamba pool:
// floor(26.2310996 x 0.9 / 1.9 x 2^30 / 19316736) = floor(13,341,518,876.9
// / 19,316,736) = 690 slots, 13,328,547,840 B; the KV rest 26.2310996 -
// 12.4131... = floor(... x 2^30) = 14,836,880,900 B, / 12,288 = 1,207,428
// tokens (page 1). The ratio is 3 + 2 (the radix cache's auto strategy
// takes extra_buffer with the overlap schedule): max_num_reqs =
// min(estimate max(min(int(1207428 / 262144 x 512) = 2358, 4096), 2048)
// = 2358, T // 2, 690 // 5 = 138) = 138. MambaPool holds 691 slots: conv
// 36 x 691 x 12,288 = 305,676,288 B ("0.28GB"), temporal 36 x 691 x
// 524,288 = 13,042,188,288 B ("12.15GB"), the padding slot 19,316,736 B
// beside the budget.
func TestMambaQwen3NextA100(t *testing.T) {
	next := shipped(t)["Qwen__Qwen3-Next-80B-A3B-Thinking"]
	a100 := class(t, "a100-80g")
	p := mustProfile("v0.5.14")
	r := ref(t, next, Serve{TPSize: 4}, a100, p)
	c := r.Capacity()
	if c.F0Bytes != 82839601152 || c.LoadedBytes != 40011563008 || c.MemFractionStatic != 0.823 {
		t.Fatalf("F0 %d, load %d, msf %v: the inputs of the figures below moved", c.F0Bytes, c.LoadedBytes, c.MemFractionStatic)
	}
	want := mambaFigures{PerReq: 19316736, Cell: 12288, Ratio: 5, MambaSize: 690, Tokens: 1207428, MaxNumReqs: 138,
		ConvBytes: 305676288, SSMBytes: 13042188288, MambaCharge: 690 * 19316736, Padding: 19316736, ExtraBuffer: true}
	if diff := cmp.Diff(want, mambaFiguresOf(r)); diff != "" {
		t.Errorf("Qwen3-Next TP 4 on A100 (-want +got):\n%s", diff)
	}
	if r.MaxRunningRequests() != 138 || !c.Starts {
		t.Errorf("max_running_requests %d, starts %v (%s); want 138, true", r.MaxRunningRequests(), c.Starts, c.Failure)
	}
	wantLog := "Mamba Cache is allocated. max_mamba_cache_size: 690, conv_state size: 0.28GB, ssm_state size: 12.15GB "
	if lines := c.LogLines(); len(lines) == 0 || lines[0] != wantLog {
		t.Errorf("log lines %q; want %q first", lines, wantLog)
	}
	// The budget holds the weights, the Mamba pool's charge and the KV
	// pool, and what the floors leave: 40,011,563,008 + 13,328,547,840 +
	// 1,207,428 x 12,288 = 68,176,986,112 of the budget 68,176,991,748.
	// A sequence of every pool token fills it: the ledger is the budget.
	if l := r.Evaluate(1, 1207428); l.Footprint.Ledger != r.Budget() || r.Budget() != 68176991748 {
		t.Errorf("the ledger at the pool's tokens is %d, the budget %d; want both 68176991748", l.Footprint.Ledger, r.Budget())
	}

	// The radix cache and overlap schedule set the ratio only; the pool's
	// slots stay 690 but under --max-running-requests with the radix cache
	// off (handle_max_mamba_cache :152-158).
	for _, tc := range []struct {
		name  string
		s     Serve
		ratio uint64
		reqs  uint64
		extra bool
	}{
		// no_buffer at page 1 (server_args.py:4386-4393): 690 // 3.
		{"--disable-overlap-schedule", Serve{TPSize: 4, DisableOverlapSchedule: true}, 3, 230, false},
		// extra_buffer for the paging, one ping-pong slot: 690 // 4.
		{"--disable-overlap-schedule --page-size 64", Serve{TPSize: 4, DisableOverlapSchedule: true, PageSize: 64}, 4, 172, true},
		// ratio 1: min(2358, T // 2, 690) = 690.
		{"--disable-radix-cache", Serve{TPSize: 4, DisableRadixCache: true}, 1, 690, false},
	} {
		got := mambaFiguresOf(ref(t, next, tc.s, a100, p))
		if got.Ratio != tc.ratio || got.MaxNumReqs != tc.reqs || got.ExtraBuffer != tc.extra || got.MambaSize != 690 {
			t.Errorf("%s: ratio %d, max_num_reqs %d, extra buffer %v, slots %d; want %d, %d, %v, 690", tc.name, got.Ratio, got.MaxNumReqs, got.ExtraBuffer, got.MambaSize, tc.ratio, tc.reqs, tc.extra)
		}
	}
	// --disable-radix-cache --max-running-requests 64: 64 slots; the KV
	// rest floor((26.2310996 - 64 x 19316736 / 2^30) x 2^30) =
	// 26,929,157,636 B, / 12,288 = 2,191,500 tokens; max_num_reqs
	// min(64, T // 2, 64 // 1) = 64.
	got := mambaFiguresOf(ref(t, next, Serve{TPSize: 4, DisableRadixCache: true, MaxRunningRequests: 64}, a100, p))
	want = mambaFigures{PerReq: 19316736, Cell: 12288, Ratio: 1, MambaSize: 64, Tokens: 2191500, MaxNumReqs: 64,
		ConvBytes: 36 * 65 * 12288, SSMBytes: 36 * 65 * 524288, MambaCharge: 64 * 19316736, Padding: 19316736, Requests: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("--disable-radix-cache --max-running-requests 64 (-want +got):\n%s", diff)
	}
}

// TestMambaQwen35H100 sizes Qwen3.5-27B (bf16, config only, its vision
// tower loaded) at TP 1 on an H100 under v0.5.14, by hand.
//
// text_config: 64 layers, every 4th full attention (16), 48 delta nets
// of 16 key heads, 48 value heads, head dims 128, conv kernel 4,
// mamba_ssm_dtype float32. The slot: conv_dim 48 x 128 + 2 x 16 x 128 =
// 10,240 x 3 taps x 2 bytes = 61,440 B, the temporal state 48 x 128 x 128
// x 4 = 3,145,728 B, a layer 3,207,168 B, x 48 = 153,944,064 B. The KV
// cell: 16 layers x 4 KV heads x (256 + 256) x 2 bytes = 65,536 B.
//
// F0 84,414,562,304 B, the load 54,995,714,048 B and msf 0.77125453125
// (the vision tower's factor) are pinned elsewhere: rest = 29,418,848,256
// / 2^30 - 84,414,562,304 / 2^30 x (1 - msf) = 9.41511209 GiB; the Mamba
// pool floor(9.41511209 x 0.9 / 1.9 x 2^30 / 153944064) = floor(
// 4,788,662,983.8 / 153,944,064) = 31 slots (4,772,265,984 B); the KV rest
// floor((9.41511209 - 31 x 153944064 / 2^30) x 2^30) = 5,337,133,648 B,
// / 65,536 = 81,438 tokens; max_num_reqs min(max(min(int(81438 / 262144 x
// 512) = 159, 4096), 2048), 81438 // 2, 31 // 5) = 6. MambaPool's 32
// slots: conv 48 x 32 x 61,440 = 94,371,840 B ("0.09GB"), temporal 48 x
// 32 x 3,145,728 = 4,831,838,208 B ("4.50GB").
func TestMambaQwen35H100(t *testing.T) {
	qwen := shipped(t)["Qwen__Qwen3.5-27B"]
	r := ref(t, qwen, Serve{}, class(t, "h100-sxm-80g"), mustProfile("v0.5.14"))
	c := r.Capacity()
	if c.F0Bytes != 84414562304 || c.LoadedBytes != 54995714048 || c.MemFractionStatic != 0.7712545312499999 {
		t.Fatalf("F0 %d, load %d, msf %v: the inputs of the figures below moved", c.F0Bytes, c.LoadedBytes, c.MemFractionStatic)
	}
	want := mambaFigures{PerReq: 153944064, Cell: 65536, Ratio: 5, MambaSize: 31, Tokens: 81438, MaxNumReqs: 6,
		ConvBytes: 94371840, SSMBytes: 4831838208, MambaCharge: 31 * 153944064, Padding: 153944064, ExtraBuffer: true}
	if diff := cmp.Diff(want, mambaFiguresOf(r)); diff != "" {
		t.Errorf("Qwen3.5-27B TP 1 on H100 (-want +got):\n%s", diff)
	}
	// The decode graphs stop at the 6 requests (the capture list is cut at
	// max_num_reqs): the linear-attention backend's graph metadata for
	// sizes 1 to 6 is five tensors of at most 8 int32 each, 512 B apiece,
	// 5 x 6 x 512, and two ranges of 7, 2 x 512: 16,384 B.
	graphMeta := besideItem(r, "gdn_graph_metadata")
	if r.largestGraph(0) != 6 || graphMeta != 16384 {
		t.Errorf("graph max bs %d, metadata %d B; want 6, 16384", r.largestGraph(0), graphMeta)
	}
	// At 256: four int32 tensors of i + 1 (512 B up to 128 entries, 1024 B
	// up to 256) for each of 256 sizes, 4 x (128 x 512 + 128 x 1024) =
	// 786,432 B; query_start_loc of i + 2: 127 x 512 + 128 x 1024 + 1 x
	// 1536 = 197,632 B; two ranges of 257 at 1536 B: 3,072 B. 987,136 B.
	if got := gdnGraphMetadata(256, false); got != 987136 {
		t.Errorf("graph metadata at 256: %d B; want 987136", got)
	}
	wantLog := "Mamba Cache is allocated. max_mamba_cache_size: 31, conv_state size: 0.09GB, ssm_state size: 4.50GB "
	if lines := c.LogLines(); len(lines) == 0 || lines[0] != wantLog || r.MaxRunningRequests() != 6 {
		t.Errorf("log lines %q, max_running_requests %d; want %q first, 6", lines, r.MaxRunningRequests(), wantLog)
	}
}

// TestMambaQwen35MoEH200 sizes Qwen3.5-35B-A3B (bf16, config only) at TP 1
// on an H200 under v0.5.14, by hand: 40 layers, 10 full attention, 30 delta
// nets of 16 key and 32 value heads of 128, conv kernel 4. The slot: conv
// (32 x 128 + 2 x 16 x 128) x 3 x 2 = 49,152 B, temporal 32 x 128 x 128 x
// 4 = 2,097,152 B, x 30 = 64,389,120 B; the KV cell 10 x 2 heads x 512 x 2
// = 20,480 B. F0 149,515,403,264 B, the load 70,493,667,328 B, msf
// 0.83783765625 (pinned elsewhere): rest 79,021,735,936 / 2^30 -
// 149,515,403,264 / 2^30 x 0.16216234375 = 51.0140953 GiB; floor(51.0140953
// x 0.9 / 1.9 x 2^30 / 64389120) = floor(402.96) = 402 slots; the KV rest
// 28,891,541,475 B / 20,480 = 1,410,719 tokens; max_num_reqs min(the
// estimate int(1410719 / 262144 x 512) = 2755, T // 2, 402 // 5 = 80) =
// 80.
func TestMambaQwen35MoEH200(t *testing.T) {
	r := ref(t, shipped(t)["Qwen__Qwen3.5-35B-A3B"], Serve{}, class(t, "h200"), mustProfile("v0.5.14"))
	c := r.Capacity()
	if c.F0Bytes != 149515403264 || c.LoadedBytes != 70493667328 || c.MemFractionStatic != 0.83783765625 {
		t.Fatalf("F0 %d, load %d, msf %v: the inputs of the figures below moved", c.F0Bytes, c.LoadedBytes, c.MemFractionStatic)
	}
	got := mambaFiguresOf(r)
	if got.PerReq != 64389120 || got.Cell != 20480 || got.MambaSize != 402 || got.Tokens != 1410719 || got.MaxNumReqs != 80 || r.MaxRunningRequests() != 80 {
		t.Errorf("Qwen3.5-35B-A3B on H200: %+v, max_running_requests %d; want slot 64389120, cell 20480, 402 slots, 1410719 tokens, 80 requests", got, r.MaxRunningRequests())
	}
}

// TestMambaReleases sizes the two serves of TestMambaQwen35H100 and
// TestMambaQwen3NextA100 under v0.5.15, v0.5.15.post1, v0.5.16 and
// v0.5.17, by hand. Their Mamba rules are v0.5.14's to v0.5.16
// (gdnReleases); what moves is around them, and v0.5.17's padding slot:
//
//   - Qwen3.5-27B at TP 1 on an H100: v0.5.15 turns its prefill graphs
//     off itself (the breakable runner's multimodal case), v0.5.16 keeps
//     them (refused in TestMambaRefusals) and sizes so with
//     --disable-piecewise-cuda-graph. At TP 1 no all-reduce workspace
//     changes, so F0, the load and msf stay v0.5.14's and so do the rest
//     (9.41511209 GiB), the 31 slots, the 81,438 tokens and the 6
//     requests. The graph metadata for the 6 decode sizes gains the int64
//     track buffer of 6 entries, 48 B rounded to 512: 16,384 + 512 =
//     16,896 B.
//   - Qwen3-Next-80B at TP 4 on an A100 (prefill graphs off by the flag,
//     which v0.5.15 on would capture for this text-only model): at v0.5.15
//     and .post1 v0.5.14's figures (690 slots, 1,207,428 tokens, 138
//     requests). At v0.5.16 the custom all-reduce v2's symmetric
//     workspace on SM80 at TP 4: 2 x 4 push buffers of 1 MiB and the
//     16 MiB pull buffer, 24 MiB, rounded up a step to 26, and the 4 MiB
//     table: 30 MiB, 6 above the estimate's 24, so F0 = 82,839,601,152 -
//     6,291,456 = 82,833,309,696 B and F1 = F0 - 40,011,563,008 =
//     42,821,746,688 B. rest = 42821746688 / 2^30 - 82833309696 / 2^30 x
//     0.177 = 39.880859375 - 77.14453125 x 0.177 (13.65458203) =
//     26.22627734 GiB; slots floor(26.22627734 x 0.9 / 1.9 x 2^30 /
//     19316736) = floor(690.54) = 690; the KV rest
//     floor((26.22627734 - 690 x 19316736 / 2^30) x 2^30) = 14,831,703,031 B,
//     / 12,288 = 1,207,007 tokens; max_num_reqs min(int(1207007 / 262144 x
//     512) = 2357, T // 2, 690 // 5 = 138) = 138. The 138 decode sizes'
//     metadata: 381,440 B (v0.5.14's) + 138 x 8 = 1,104 B rounded to 1,536:
//     382,976 B.
//   - v0.5.17 (gdnPaddingCharged), F0 and the rest v0.5.16's for both
//     serves (the profile's reserve, pool and workspace are v0.5.16's with
//     the prefill graphs off): the share is solved for the padding slot
//     too, floor((b - per) / per) = floor(b / per - 1), and the rest loses
//     size + 1 slots. Qwen3.5-27B: floor(31.106 - 1) = 30 slots, the rest
//     loses 31 x 153,944,064 = 4,772,265,984 B as at v0.5.16, so 81,438
//     tokens; 30 // 5 = 6 requests; MambaPool's 31 slots: conv 48 x 31 x
//     61,440 = 91,422,720 B, temporal 48 x 31 x 3,145,728 = 4,680,843,264 B;
//     no padding slot beside the charge; the same 6 graph sizes, 16,896 B.
//     Qwen3-Next: floor(690.54 - 1) = 689 slots, the rest loses 690 x
//     19,316,736 = 13,328,547,840 B as at v0.5.16, so 1,207,007 tokens;
//     689 // 5 = 137 requests; 690 slots: conv 36 x 690 x 12,288 =
//     305,233,920 B, temporal 36 x 690 x 524,288 = 13,023,313,920 B. The
//     137 decode sizes' metadata: four int32 tables of i + 1 per size, 512
//     B to 128 entries and 1,024 above: 128 x 2,048 + 9 x 4,096 = 299,008
//     B; query_start_loc of i + 2, 512 B to i + 1 = 127 and 1,024 above:
//     127 x 512 + 10 x 1,024 = 75,264 B; two ranges of 138 x 4 = 552 B,
//     2 x 1,024; the track buffer 137 x 8 = 1,096 B, 1,536: 377,856 B.
//   - v0.5.18 (gdnPaddingCharged too), F0, the load and msf v0.5.17's for
//     both (the profile's reserve and workspace are v0.5.17's with the
//     prefill graphs off). Qwen3-Next is a text model: no reservation, so
//     v0.5.17's figures (689 slots, 1,207,007 tokens, 137 requests,
//     377,856 B). Qwen3.5-27B is multimodal (Qwen3_5ForConditionalGeneration,
//     configs/model_config.py:1864): the 100 MiB reservation comes off the
//     rest before the split (kv_cache_configurator.py:1785-1791), 9.41511209
//   - 0.09765625 = 9.31745584 GiB; the share 9.31745584 x 0.9 / 1.9 x
//     2^30 = 4,738,993,594.3 B, / 153,944,064 = 30.78, floor(30.78 - 1) =
//     29 slots (v0.5.17: floor(31.106 - 1) = 30: the reservation's 0.9 /
//     1.9 x 100 MiB, 0.32 of a slot, crosses a slot's edge). The rest loses
//     30 slots, 4,618,321,920 B: floor(9.31745584 x 2^30) - 4,618,321,920 =
//     5,386,220,112 B, / 65,536 = 82,187 tokens, 749 more than v0.5.17's
//     81,438 (one slot less, 153,944,064 B, against the 104,857,600 B
//     reserved: 49,086,464 B, 749.0 cells); 29 // 5 = 5 requests, one fewer.
//     MambaPool's 30 slots: conv 48 x 30 x 61,440 = 88,473,600 B, temporal
//     48 x 30 x 3,145,728 = 4,529,848,320 B. The 5 decode sizes' metadata:
//     5 x (4 + 1) x 512 = 12,800 B, two ranges of 6, 1,024 B, the track
//     buffer 40 B at 512: 14,336 B.
func TestMambaReleases(t *testing.T) {
	models := shipped(t)
	qwen, next := models["Qwen__Qwen3.5-27B"], models["Qwen__Qwen3-Next-80B-A3B-Thinking"]
	h100, a100 := class(t, "h100-sxm-80g"), class(t, "a100-80g")
	for _, tc := range []struct {
		release, model string
		s              Serve
		f0             uint64
		want           mambaFigures
		graphMeta      uint64
	}{
		{"v0.5.15", "qwen3.5", Serve{}, 84414562304, mambaFigures{PerReq: 153944064, Cell: 65536, Ratio: 5, MambaSize: 31, Tokens: 81438, MaxNumReqs: 6,
			ConvBytes: 94371840, SSMBytes: 4831838208, MambaCharge: 31 * 153944064, Padding: 153944064, ExtraBuffer: true}, 16896},
		{"v0.5.15.post1", "qwen3.5", Serve{}, 84414562304, mambaFigures{PerReq: 153944064, Cell: 65536, Ratio: 5, MambaSize: 31, Tokens: 81438, MaxNumReqs: 6,
			ConvBytes: 94371840, SSMBytes: 4831838208, MambaCharge: 31 * 153944064, Padding: 153944064, ExtraBuffer: true}, 16896},
		{"v0.5.16", "qwen3.5", Serve{DisablePiecewiseCudaGraph: true}, 84414562304, mambaFigures{PerReq: 153944064, Cell: 65536, Ratio: 5, MambaSize: 31, Tokens: 81438, MaxNumReqs: 6,
			ConvBytes: 94371840, SSMBytes: 4831838208, MambaCharge: 31 * 153944064, Padding: 153944064, ExtraBuffer: true}, 16896},
		{"v0.5.15", "next", Serve{TPSize: 4, DisablePiecewiseCudaGraph: true}, 82839601152, mambaFigures{PerReq: 19316736, Cell: 12288, Ratio: 5, MambaSize: 690, Tokens: 1207428, MaxNumReqs: 138,
			ConvBytes: 305676288, SSMBytes: 13042188288, MambaCharge: 690 * 19316736, Padding: 19316736, ExtraBuffer: true}, 382976},
		{"v0.5.15.post1", "next", Serve{TPSize: 4, DisablePiecewiseCudaGraph: true}, 82839601152, mambaFigures{PerReq: 19316736, Cell: 12288, Ratio: 5, MambaSize: 690, Tokens: 1207428, MaxNumReqs: 138,
			ConvBytes: 305676288, SSMBytes: 13042188288, MambaCharge: 690 * 19316736, Padding: 19316736, ExtraBuffer: true}, 382976},
		{"v0.5.16", "next", Serve{TPSize: 4, DisablePiecewiseCudaGraph: true}, 82833309696, mambaFigures{PerReq: 19316736, Cell: 12288, Ratio: 5, MambaSize: 690, Tokens: 1207007, MaxNumReqs: 138,
			ConvBytes: 305676288, SSMBytes: 13042188288, MambaCharge: 690 * 19316736, Padding: 19316736, ExtraBuffer: true}, 382976},
		{"v0.5.17", "qwen3.5", Serve{DisablePiecewiseCudaGraph: true, MMFeatureTransport: "cpu"}, 84414562304, mambaFigures{PerReq: 153944064, Cell: 65536, Ratio: 5, MambaSize: 30, Tokens: 81438, MaxNumReqs: 6,
			ConvBytes: 91422720, SSMBytes: 4680843264, MambaCharge: 31 * 153944064, ExtraBuffer: true}, 16896},
		{"v0.5.17", "next", Serve{TPSize: 4, DisablePiecewiseCudaGraph: true}, 82833309696, mambaFigures{PerReq: 19316736, Cell: 12288, Ratio: 5, MambaSize: 689, Tokens: 1207007, MaxNumReqs: 137,
			ConvBytes: 305233920, SSMBytes: 13023313920, MambaCharge: 690 * 19316736, ExtraBuffer: true}, 377856},
		{"v0.5.18", "qwen3.5", Serve{DisablePiecewiseCudaGraph: true}, 84414562304, mambaFigures{PerReq: 153944064, Cell: 65536, Ratio: 5, MambaSize: 29, Tokens: 82187, MaxNumReqs: 5,
			ConvBytes: 88473600, SSMBytes: 4529848320, MambaCharge: 30 * 153944064, ExtraBuffer: true}, 14336},
		{"v0.5.18", "next", Serve{TPSize: 4, DisablePiecewiseCudaGraph: true}, 82833309696, mambaFigures{PerReq: 19316736, Cell: 12288, Ratio: 5, MambaSize: 689, Tokens: 1207007, MaxNumReqs: 137,
			ConvBytes: 305233920, SSMBytes: 13023313920, MambaCharge: 690 * 19316736, ExtraBuffer: true}, 377856},
	} {
		a, c := qwen, h100
		if tc.model == "next" {
			a, c = next, a100
		}
		r := ref(t, a, tc.s, c, mustProfile(tc.release))
		cp := r.Capacity()
		if cp.F0Bytes != tc.f0 || !cp.Starts {
			t.Errorf("%s %s: F0 %d, starts %v (%s); want %d, true", tc.release, tc.model, cp.F0Bytes, cp.Starts, cp.Failure, tc.f0)
		}
		if diff := cmp.Diff(tc.want, mambaFiguresOf(r)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.release, tc.model, diff)
		}
		graphMeta := besideItem(r, "gdn_graph_metadata")
		if graphMeta != tc.graphMeta || r.MaxRunningRequests() != tc.want.MaxNumReqs {
			t.Errorf("%s %s: graph metadata %d B, max_running_requests %d; want %d, %d", tc.release, tc.model, graphMeta, r.MaxRunningRequests(), tc.graphMeta, tc.want.MaxNumReqs)
		}
		// The reservation is Qwen3.5's at v0.5.18 alone, in the budget.
		wantMM := uint64(0)
		if tc.release == "v0.5.18" && tc.model == "qwen3.5" {
			wantMM = 100 << 20
		}
		if cp.MMReserveBytes != wantMM {
			t.Errorf("%s %s: multimodal reservation %d B; want %d", tc.release, tc.model, cp.MMReserveBytes, wantMM)
		}
	}
	// Qwen3.5-27B at v0.5.18 with --mem-fraction-static 0.658: rest =
	// 29,418,848,256 / 2^30 - 84,414,562,304 / 2^30 x 0.342 = 27.39868164 -
	// 26.88732227 = 0.51135938 GiB, less the 100 MiB reservation 0.41370313
	// GiB; the share 0.41370313 x 0.9 / 1.9 x 2^30 / 153,944,064 = 1.367
	// slots, floor(1.367 - 1) = 0: SGLang's error, naming the rest it split
	// (kv_cache_configurator.py:2116-2126), 0.41 GB, not 0.51.
	small := ref(t, qwen, Serve{DisablePiecewiseCudaGraph: true, MemFractionStatic: 0.658}, h100, mustProfile("v0.5.18")).Capacity()
	if wantF := "Not enough GPU memory for hybrid (mamba/linear-attention) state cache. Computed max_mamba_cache_size=0 (total_rest_memory=0.41 GB, mamba_cache_per_req=146.81 MB)."; small.Starts || small.Failure != wantF {
		t.Errorf("Qwen3.5-27B at msf 0.658 under v0.5.18: starts %v, failure %q; want %q", small.Starts, small.Failure, wantF)
	}
	// At 256 sizes the track buffer is 2,048 B: 987,136 + 2,048.
	if got := gdnGraphMetadata(256, true); got != 989184 {
		t.Errorf("graph metadata at 256 with the track buffer: %d B; want 989184", got)
	}
	if mustProfile("v0.5.14").GDNTrackIndicesBuf || !mustProfile("v0.5.15").GDNTrackIndicesBuf || !mustProfile("v0.5.16").GDNTrackIndicesBuf {
		t.Error("the track buffer's release: want it from v0.5.15 on")
	}
}

// TestMambaQwen3NextTP2: at TP 2 the slot doubles (conv 4096 x 3 x 2 =
// 24,576 B, temporal 16 x 128 x 128 x 4 = 1,048,576 B, x 36 = 38,633,472
// B, "36.84 MB"), and the bf16 weights (about 74.3 GiB a rank) leave a
// negative rest on an A100 80GB: handle_max_mamba_cache's slots are
// negative and SGLang stops there (:203-217). On an H100 v0.5.14 turns
// FlashInfer's all-reduce fusion on for Qwen3-Next at TP 2, which is not
// modelled at that release: refused by that flag's name.
func TestMambaQwen3NextTP2(t *testing.T) {
	next := shipped(t)["Qwen__Qwen3-Next-80B-A3B-Thinking"]
	p := mustProfile("v0.5.14")
	r := ref(t, next, Serve{TPSize: 2}, class(t, "a100-80g"), p)
	c := r.Capacity()
	if r.Serve.Mamba.PerReq() != 38633472 || c.Starts || !strings.HasPrefix(c.Failure, "Not enough GPU memory for hybrid (mamba/linear-attention) state cache.") || !strings.Contains(c.Failure, "mamba_cache_per_req=36.84 MB") {
		t.Errorf("TP 2 on A100: per slot %d, starts %v (%s); want 38633472, false, the hybrid state cache's error", r.Serve.Mamba.PerReq(), c.Starts, c.Failure)
	}
	_, err := NewReference(next, Serve{TPSize: 2}, class(t, "h100-sxm-80g"), p)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" {
		t.Errorf("TP 2 on H100: %v; want the all-reduce fusion refused", err)
	}
}

// TestMambaRefusals: what of a hybrid is not read stays refused, by name.
func TestMambaRefusals(t *testing.T) {
	models := shipped(t)
	next := models["Qwen__Qwen3-Next-80B-A3B-Thinking"]
	a100 := class(t, "a100-80g")
	for _, tc := range []struct {
		name, model, class, release string
		s                           Serve
		flag, says                  string
	}{
		{"another release", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.13.post1", Serve{TPSize: 4}, "model", "Mamba state pool"},
		// v0.5.15 on: the pool is sized, the prefill graphs SGLang captures
		// for the text-only Qwen3-Next are not (and v0.5.16's for Qwen3.5).
		{"v0.5.16", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.16", Serve{TPSize: 4}, "disable-piecewise-cuda-graph", "breakable CUDA graphs"},
		{"v0.5.15", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.15", Serve{TPSize: 4}, "disable-piecewise-cuda-graph", "breakable CUDA graphs"},
		{"Qwen3.5 at v0.5.16", "Qwen__Qwen3.5-27B", "h100-sxm-80g", "v0.5.16", Serve{}, "disable-piecewise-cuda-graph", "keeps this multimodal model's prefill CUDA graphs"},
		{"PP at v0.5.16", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.16", Serve{TPSize: 4, PPSize: 2, DisablePiecewiseCudaGraph: true}, "pp-size", "pipeline parallelism with a Mamba hybrid"},
		{"the releases named", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.13.post1", Serve{TPSize: 4}, "model", "v0.5.14, v0.5.15, v0.5.15.post1, v0.5.16, v0.5.17 and v0.5.18 only"},
		{"pipeline parallelism", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.14", Serve{TPSize: 4, PPSize: 2}, "pp-size", "pipeline parallelism with a Mamba hybrid"},
		{"DP attention", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.14", Serve{TPSize: 4, EnableDPAttention: true}, "enable-dp-attention", "not modelled: DP attention"},
		{"AMD", "Qwen__Qwen3-Next-80B-A3B-Thinking", "mi300x", "v0.5.14", Serve{TPSize: 1}, "model", "NVIDIA GPUs only"},
		{"SM100", "Qwen__Qwen3-Next-80B-A3B-Thinking", "b200", "v0.5.14", Serve{TPSize: 1}, "model", "SM10x"},
		{"Qwen3.5-MoE at another release", "Qwen__Qwen3.5-35B-A3B", "h200", "v0.5.13.post1", Serve{}, "model", "is not read"},
		{"Qwen3.5 at another release", "Qwen__Qwen3.5-27B", "h100-sxm-80g", "v0.5.13.post1", Serve{}, "model", "is not read"},
		// v0.5.17 sizes the pool (TestMambaReleases); what it keeps of
		// v0.5.16's refusals: the prefill graphs (its allowlists are
		// v0.5.16's), pipeline parallelism (#33666's per-stage share is
		// not read) and speculative decoding (the intermediates now cover
		// the capped requests + 1, kv_cache_configurator.py:1896-1912):
		// v0.5.17 sizes drafts (specReleases), so the serve, its graphs
		// off, meets the draft's refusal (Qwen3.5's MTP layer is not
		// DeepSeek-V3's), before the hybrid's own.
		{"Qwen3-Next at v0.5.17", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.17", Serve{TPSize: 4}, "disable-piecewise-cuda-graph", "breakable CUDA graphs"},
		{"Qwen3.5 at v0.5.17", "Qwen__Qwen3.5-27B", "h100-sxm-80g", "v0.5.17", Serve{}, "disable-piecewise-cuda-graph", "keeps this multimodal model's prefill CUDA graphs"},
		{"PP at v0.5.17", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.17", Serve{TPSize: 4, PPSize: 2, DisablePiecewiseCudaGraph: true}, "pp-size", "the largest stage's share"},
		{"speculative decoding at v0.5.17", "Qwen__Qwen3.5-27B", "h100-sxm-80g", "v0.5.17", Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN"}}, "speculative-algorithm", "the MTP draft of"},
		// v0.5.18 sizes the pool (TestMambaReleases) and keeps v0.5.17's
		// refusals: its breakable prefill graphs have no hybrid case and
		// keep Qwen3.5 on the multimodal allowlist (server_args.py:
		// 4666-4717, configs/model_config.py:1921-1928), PP's per-stage
		// share is v0.5.17's (kv_cache_configurator.py:1974-1993), and a
		// draft is refused whichever refusal meets it first (drafts at
		// v0.5.18 are read elsewhere, specReleases).
		{"Qwen3-Next at v0.5.18", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.18", Serve{TPSize: 4}, "disable-piecewise-cuda-graph", "breakable CUDA graphs"},
		{"Qwen3.5 at v0.5.18", "Qwen__Qwen3.5-27B", "h100-sxm-80g", "v0.5.18", Serve{}, "disable-piecewise-cuda-graph", "keeps this multimodal model's prefill CUDA graphs"},
		{"PP at v0.5.18", "Qwen__Qwen3-Next-80B-A3B-Thinking", "a100-80g", "v0.5.18", Serve{TPSize: 4, PPSize: 2, DisablePiecewiseCudaGraph: true}, "pp-size", "the largest stage's share"},
		{"speculative decoding at v0.5.18", "Qwen__Qwen3.5-27B", "h100-sxm-80g", "v0.5.18", Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN"}}, "speculative-algorithm", ""},
	} {
		_, err := NewReference(models[tc.model], tc.s, class(t, tc.class), mustProfile(tc.release))
		var se *engine.SettingError
		if !errors.As(err, &se) || tc.flag != "" && (se.Flag != tc.flag || !strings.Contains(se.Reason, tc.says)) {
			t.Errorf("%s: %v; want --%s refused saying %q", tc.name, err, tc.flag, tc.says)
		}
	}
	// A layer_types list off the full_attention_interval pattern, which
	// SGLang would not follow, is refused: layer 5 made full.
	odd := *next
	odd.Layers = slices.Clone(next.Layers)
	odd.Layers[5].Kind = model.FullAttention
	if gdnModelled(&odd, mustProfile("v0.5.14")) || !gdnModelled(next, mustProfile("v0.5.14")) {
		t.Error("the every-n-th full-attention check: a model off the pattern is taken, or Qwen3-Next is not")
	}
	// A release derived from v0.5.18 (as a next one's profile would be)
	// keeps its fields but not the reading: refused until it is compared,
	// the hybrids at --model and the Mamba flags by name.
	later := mustProfile("v0.5.18")
	later.Name = "v0.5.19"
	if gdnModelled(next, later) || gdnRead("Qwen3_5ForConditionalGeneration", later) {
		t.Error("a profile derived from v0.5.18 under another name is taken as read")
	}
	var se *engine.SettingError
	if _, err := NewReference(next, Serve{TPSize: 4, DisablePiecewiseCudaGraph: true}, a100, later); !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, "v0.5.17 and v0.5.18 only") {
		t.Errorf("Qwen3-Next under a profile derived from v0.5.18: %v; want --model refused naming the releases read", err)
	}
	if _, err := NewReference(models["meta-llama__Llama-3.1-8B-Instruct"], Serve{DisablePiecewiseCudaGraph: true, MaxMambaCacheSize: 100}, class(t, "h100-sxm-80g"), later); !errors.As(err, &se) || se.Flag != "max-mamba-cache-size" {
		t.Errorf("--max-mamba-cache-size under a profile derived from v0.5.18: %v; want it refused by name", err)
	}
	// A config without the delta net's shape is not the modelled hybrid.
	bare := *next
	bare.DeltaNet = nil
	if gdnModelled(&bare, mustProfile("v0.5.14")) {
		t.Error("a linear-attention model without its delta-net shape is taken as modelled")
	}
	if _, err := NewReference(&bare, Serve{TPSize: 4}, a100, mustProfile("v0.5.14")); err == nil {
		t.Error("a linear-attention model without its delta-net shape is sized")
	}
}

// TestMambaPlanEqualsReference: for the hybrid too, the compiled plan
// gives the reference's footprint anywhere, and more never needs less.
func TestMambaPlanEqualsReference(t *testing.T) {
	models := shipped(t)
	hybrids := []string{"Qwen__Qwen3-Next-80B-A3B-Thinking", "Qwen__Qwen3.5-27B", "Qwen__Qwen3.5-35B-A3B"}
	// Qwen3-Next's bf16 weights start at TP 4 or 8 on 80 GB (SM90 only with
	// the fusion forced off); the others check the failure paths too.
	classes := []string{"a100-80g", "a100-80g", "a100-80g", "h100-sxm-80g", "h200", "a100-40g"}
	rapid.Check(t, func(t *rapid.T) {
		p := mustProfile(rapid.SampledFrom(gdnReleases).Draw(t, "release"))
		s := Serve{
			TPSize:                 rapid.SampledFrom([]uint64{1, 2, 4, 4, 8}).Draw(t, "tp"),
			ContextLength:          rapid.Uint64Range(1, 262144).Draw(t, "context_length"),
			PageSize:               rapid.SampledFrom([]uint64{0, 1, 16, 64}).Draw(t, "page_size"),
			KVCacheDtype:           rapid.SampledFrom([]string{"", "fp8_e4m3"}).Draw(t, "kv_cache_dtype"),
			DisableCudaGraph:       rapid.Bool().Draw(t, "disable_cuda_graph"),
			DisableRadixCache:      rapid.Bool().Draw(t, "disable_radix_cache"),
			DisableOverlapSchedule: rapid.Bool().Draw(t, "disable_overlap_schedule"),
			MaxTotalTokens:         rapid.SampledFrom([]uint64{0, 0, 1000, 1 << 20}).Draw(t, "max_total_tokens"),
			// v0.5.15's breakable prefill graphs and v0.5.16's for Qwen3.5
			// are refused unless off.
			DisablePiecewiseCudaGraph: p.BreakablePrefill,
		}
		if rapid.Bool().Draw(t, "given_requests") {
			s.MaxRunningRequests = rapid.Uint64Range(1, 4096).Draw(t, "max_running_requests")
		}
		s.EnforceDisableARFusion = rapid.Bool().Draw(t, "enforce_disable_fusion")
		s.MambaFullMemoryRatio = rapid.SampledFrom([]float64{0, 0, 0.1, 0.9, 3}).Draw(t, "mamba_full_memory_ratio")
		s.MaxMambaCacheSize = rapid.SampledFrom([]uint64{0, 0, 1, 64, 2048}).Draw(t, "max_mamba_cache_size")
		s.MambaSSMDtype = rapid.SampledFrom([]string{"", "", "float32", "bfloat16", "float16"}).Draw(t, "mamba_ssm_dtype")
		s.MambaRadixCacheStrategy = rapid.SampledFrom([]string{"", "", "auto", "no_buffer", "extra_buffer", "extra_buffer_lazy"}).Draw(t, "mamba_radix_cache_strategy")
		if rapid.Bool().Draw(t, "given_msf") {
			s.MemFractionStatic = rapid.Float64Range(0.05, 0.97).Draw(t, "mem_fraction_static")
		}
		next := models[rapid.SampledFrom(hybrids).Draw(t, "model")]
		r, err := NewReference(next, s, class(t, rapid.SampledFrom(classes).Draw(t, "class")), p)
		if err != nil {
			t.Skipf("refused: %v", err)
		}
		if r.Serve.Mamba == nil {
			t.Fatal("Qwen3-Next sized without its Mamba pool")
		}
		plan := r.Plan()
		for range 4 {
			n := rapid.Uint64Range(0, r.maxRunning+2).Draw(t, "seqs")
			tok := rapid.Uint64Range(0, s.ContextLength+1).Draw(t, "tokens")
			if diff := cmp.Diff(r.Evaluate(n, tok).Footprint, plan.Evaluate(n, tok)); diff != "" {
				t.Fatalf("Plan != Reference at (%d, %d) (-reference +plan):\n%s", n, tok, diff)
			}
			a, b := plan.Evaluate(n, tok), plan.Evaluate(n+1, tok+1)
			if a.Ledger > b.Ledger || a.Outside() > b.Outside() {
				t.Fatalf("the footprint shrinks from (%d, %d) to (%d, %d)", n, tok, n+1, tok+1)
			}
		}
		if r.Capacity().Starts && r.maxRunning > uint64(max(r.mambaSize, 0))/r.Serve.Mamba.Ratio {
			t.Fatalf("max_running_requests %d above the Mamba slots %d over the ratio %d", r.maxRunning, r.mambaSize, r.Serve.Mamba.Ratio)
		}
	})
}

// TestMambaFlags: the Mamba flags on Qwen3.5-27B at TP 1 on an H100
// (rest 9.41511209 GiB, a slot 153,944,064 B: TestMambaQwen35H100), by
// hand, and their refusals.
func TestMambaFlags(t *testing.T) {
	models := shipped(t)
	qwen := models["Qwen__Qwen3.5-27B"]
	h100 := class(t, "h100-sxm-80g")
	p := mustProfile("v0.5.14")
	for _, tc := range []struct {
		name             string
		s                Serve
		perReq           uint64
		slots            int64
		ratio, reqs      uint64
		extra            bool
		flag, reasonPart string // a refusal
	}{
		// floor(9.41511209 x 0.5 / 1.5 x 2^30 / 153944064) = floor(21.9) = 21;
		// 21 // 5 = 4.
		{name: "--mamba-full-memory-ratio 0.5", s: Serve{MambaFullMemoryRatio: 0.5}, perReq: 153944064, slots: 21, ratio: 5, reqs: 4, extra: true},
		// The given slots, whatever the ratio (40 x 153,944,064 = 5.74 GiB
		// of the 9.42): 40 // 5 = 8.
		{name: "--max-mamba-cache-size 40", s: Serve{MaxMambaCacheSize: 40}, perReq: 153944064, slots: 40, ratio: 5, reqs: 8, extra: true},
		// A bf16 temporal state: 48 x (61,440 + 48 x 128 x 128 x 2) =
		// 78,446,592 B; floor(9.41511209 x 0.9 / 1.9 x 2^30 / 78446592) =
		// 61, 61 // 5 = 12.
		{name: "--mamba-ssm-dtype bfloat16", s: Serve{MambaSSMDtype: "bfloat16"}, perReq: 78446592, slots: 61, ratio: 5, reqs: 12, extra: true},
		// One ping-pong slot fewer with the overlap schedule: 31 // 4 = 7.
		{name: "--mamba-radix-cache-strategy extra_buffer_lazy", s: Serve{MambaRadixCacheStrategy: "extra_buffer_lazy"}, perReq: 153944064, slots: 31, ratio: 4, reqs: 7, extra: true},
		// no_buffer with the overlap schedule off: 31 // 3 = 10.
		{name: "--mamba-radix-cache-strategy no_buffer --disable-overlap-schedule", s: Serve{MambaRadixCacheStrategy: "no_buffer", DisableOverlapSchedule: true}, perReq: 153944064, slots: 31, ratio: 3, reqs: 10},
		{name: "no_buffer with the overlap schedule", s: Serve{MambaRadixCacheStrategy: "no_buffer"}, flag: "mamba-radix-cache-strategy", reasonPart: "--disable-overlap-schedule"},
		{name: "no_buffer at page 16", s: Serve{MambaRadixCacheStrategy: "no_buffer", DisableOverlapSchedule: true, PageSize: 16}, flag: "mamba-radix-cache-strategy", reasonPart: "--page-size 1"},
		{name: "extra_buffer_lazy without the overlap schedule", s: Serve{MambaRadixCacheStrategy: "extra_buffer_lazy", DisableOverlapSchedule: true}, flag: "mamba-radix-cache-strategy", reasonPart: "overlap schedule"},
	} {
		r, err := NewReference(qwen, tc.s, h100, p)
		if tc.flag != "" {
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != tc.flag || !strings.Contains(se.Reason, tc.reasonPart) {
				t.Errorf("%s: %v; want --%s refused saying %q", tc.name, err, tc.flag, tc.reasonPart)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		got := mambaFiguresOf(r)
		if got.PerReq != tc.perReq || got.MambaSize != tc.slots || got.Ratio != tc.ratio || got.MaxNumReqs != tc.reqs || got.ExtraBuffer != tc.extra {
			t.Errorf("%s: slot %d B, %d slots, ratio %d, max_num_reqs %d, extra buffer %v; want %d, %d, %d, %d, %v", tc.name, got.PerReq, got.MambaSize, got.Ratio, got.MaxNumReqs, got.ExtraBuffer, tc.perReq, tc.slots, tc.ratio, tc.reqs, tc.extra)
		}
		if !strings.Contains(Command("Qwen/Qwen3.5-27B", "", r.Serve), strings.SplitN(tc.name, " ", 2)[0]) {
			t.Errorf("%s: the launch line %q leaves it out", tc.name, Command("Qwen/Qwen3.5-27B", "", r.Serve))
		}
	}
	// Outside v0.5.14 the flags are refused by name, a dense model's too;
	// at v0.5.14 they leave a dense model's pool as it was.
	llama := models["meta-llama__Llama-3.1-8B-Instruct"]
	_, err := NewReference(llama, Serve{MaxMambaCacheSize: 10}, h100, mustProfile("v0.5.13.post1"))
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "max-mamba-cache-size" {
		t.Errorf("--max-mamba-cache-size under v0.5.13.post1: %v; want it refused by name", err)
	}
	// A library caller's ratio that is not above 0 (0 is not given):
	// refused by name, not read as the default 0.9: on the hybrid at
	// v0.5.14, on a dense model at v0.5.15 (where any ratio given is).
	for _, v := range []float64{-0.5, math.NaN(), math.Inf(1)} {
		if _, err := NewReference(qwen, Serve{MambaFullMemoryRatio: v}, h100, p); !errors.As(err, &se) || se.Flag != "mamba-full-memory-ratio" {
			t.Errorf("--mamba-full-memory-ratio %v under v0.5.14: %v; want it refused by name", v, err)
		}
		if _, err := NewReference(llama, Serve{MambaFullMemoryRatio: v, DisablePiecewiseCudaGraph: true}, h100, mustProfile("v0.5.15")); !errors.As(err, &se) || se.Flag != "mamba-full-memory-ratio" {
			t.Errorf("--mamba-full-memory-ratio %v under v0.5.15: %v; want it refused by name", v, err)
		}
	}
	plain := ref(t, llama, Serve{}, h100, p).Capacity()
	flagged := ref(t, llama, Serve{MaxMambaCacheSize: 10, MambaFullMemoryRatio: 3, MambaSSMDtype: "float16", MambaRadixCacheStrategy: "no_buffer", DisableRadixCache: true, DisableOverlapSchedule: true}, h100, p).Capacity()
	if diff := cmp.Diff(plain, flagged); diff != "" {
		t.Errorf("the Mamba flags move a dense model's pool (-without +with):\n%s", diff)
	}
}

// TestMambaFromLog: explain reads a hybrid's pool settings from
// server_args, their defaults (0.9, None, "auto") as not given, and a flag
// on membudget's command line overrides the log.
func TestMambaFromLog(t *testing.T) {
	set := func(key, value string, lit logs.Literal) logs.Setting {
		return logs.Setting{Key: key, Value: value, Literal: lit, Source: logs.SourceServerArgs}
	}
	defaults := &logs.Log{Settings: []logs.Setting{
		set("mamba_full_memory_ratio", "0.9", logs.LiteralNumber),
		set("max_mamba_cache_size", "None", logs.LiteralNone),
		set("mamba_ssm_dtype", "None", logs.LiteralNone),
		set("mamba_radix_cache_strategy", "auto", logs.LiteralString),
		set("disable_radix_cache", "False", logs.LiteralBool),
		set("disable_overlap_schedule", "False", logs.LiteralBool),
	}}
	ss, err := buildServe(defaults, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Serve{}, ss.Serve); diff != "" {
		t.Errorf("a log at the defaults (-want +got):\n%s", diff)
	}
	given := &logs.Log{Settings: []logs.Setting{
		set("mamba_full_memory_ratio", "0.5", logs.LiteralNumber),
		set("max_mamba_cache_size", "40", logs.LiteralNumber),
		set("mamba_ssm_dtype", "bfloat16", logs.LiteralString),
		set("mamba_radix_cache_strategy", "no_buffer", logs.LiteralString),
		set("disable_radix_cache", "True", logs.LiteralBool),
		set("disable_overlap_schedule", "True", logs.LiteralBool),
	}}
	ss, err = buildServe(given, Serve{MambaSSMDtype: "float16"}, map[string]bool{"mamba-ssm-dtype": true})
	if err != nil {
		t.Fatal(err)
	}
	want := Serve{MambaFullMemoryRatio: 0.5, MaxMambaCacheSize: 40, MambaSSMDtype: "float16", MambaRadixCacheStrategy: "no_buffer",
		DisableRadixCache: true, DisableOverlapSchedule: true}
	if diff := cmp.Diff(want, ss.Serve); diff != "" {
		t.Errorf("a log's settings, --mamba-ssm-dtype float16 given (-want +got):\n%s", diff)
	}
}

// TestMambaNoLinearLayer: a hybrid's config whose layers are all full
// attention (Qwen3.5-27B's, under v0.5.14 on an H100) is refused by name,
// not divided by its 0-byte Mamba slot.
func TestMambaNoLinearLayer(t *testing.T) {
	models := shipped(t)
	qwen := models["Qwen__Qwen3.5-27B"]
	h100 := class(t, "h100-sxm-80g")
	p := mustProfile("v0.5.14")

	// Every layer full attention (full_attention_interval 1): no
	// linear-attention layer, a slot of 0 B, which SGLang asserts against
	// (assert mamba_cache_per_req > 0, model_runner_kv_cache_mixin.py:169)
	// where membudget divided by it (+Inf slots, read as a negative int64).
	full := *qwen
	full.Layers = slices.Clone(qwen.Layers)
	for i := range full.Layers {
		full.Layers[i].Kind = model.FullAttention
	}
	var se *engine.SettingError
	if _, err := NewReference(&full, Serve{}, h100, p); !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, "no linear-attention layer") {
		t.Errorf("a hybrid config with no linear-attention layer: %v; want --model refused saying it has no linear-attention layer", err)
	}
}

// TestMambaRulesAtReadReleasesOnly: what membudget read of the Mamba pool
// (gdnReleases) and the fusion switch (fusionOffReleases) holds at no other
// release: under every other profile (any added later among them) the
// hybrids are refused at --model, each Mamba flag is refused by name on a
// dense model, and --enforce-disable-flashinfer-allreduce-fusion changes
// nothing.
func TestMambaRulesAtReadReleasesOnly(t *testing.T) {
	models := shipped(t)
	a100, h100 := class(t, "a100-80g"), class(t, "h100-sxm-80g")
	llama, qwen := models["meta-llama__Llama-3.1-8B-Instruct"], models["Qwen__Qwen3-30B-A3B"]
	flags := []mambaFlag{
		{"mamba-full-memory-ratio", Serve{MambaFullMemoryRatio: 0.5}},
		{"max-mamba-cache-size", Serve{MaxMambaCacheSize: 10}},
		{"mamba-ssm-dtype", Serve{MambaSSMDtype: "bfloat16"}},
		{"mamba-radix-cache-strategy", Serve{MambaRadixCacheStrategy: "extra_buffer"}},
	}
	for _, p := range profiles {
		if !slices.Contains(gdnReleases, p.Name) {
			mambaRefusedAt(t, p, models, a100, h100, llama, flags)
		}
		if slices.Contains(fusionOffReleases, p.Name) {
			continue
		}
		// Qwen3-30B-A3B at TP 2 on an H100, which v0.5.10 to v0.5.15.post1
		// turn the fusion on for by themselves (refused); the prefill
		// graphs off, which v0.5.15 would otherwise refuse first.
		s := Serve{TPSize: 2, DisablePiecewiseCudaGraph: p.PiecewiseByDefault || p.BreakablePrefill}
		plain, errPlain := NewReference(qwen, s, h100, p)
		s.EnforceDisableARFusion = true
		off, errOff := NewReference(qwen, s, h100, p)
		if fmt.Sprint(errPlain) != fmt.Sprint(errOff) {
			t.Errorf("Qwen3-30B-A3B TP 2 under %s: the fusion switch moves the answer from %v to %v", p.Name, errPlain, errOff)
		} else if errPlain == nil {
			if diff := cmp.Diff(plain.Capacity(), off.Capacity()); diff != "" {
				t.Errorf("Qwen3-30B-A3B TP 2 under %s: the fusion switch moves the pool (-without +with):\n%s", p.Name, diff)
			}
		}
	}
}

// mambaFlag is a Mamba flag and a serve that gives it.
type mambaFlag struct {
	flag string
	s    Serve
}

// mambaRefusedAt is TestMambaRulesAtReadReleasesOnly's check of a release
// outside gdnReleases: the hybrids refused at --model, each Mamba flag by
// name on a dense model.
func mambaRefusedAt(t *testing.T, p Profile, models map[string]*model.Arch, a100, h100 budget.Class, llama *model.Arch, flags []mambaFlag) {
	t.Helper()
	var se *engine.SettingError
	for _, name := range []string{"Qwen__Qwen3-Next-80B-A3B-Thinking", "Qwen__Qwen3.5-27B", "Qwen__Qwen3.5-35B-A3B"} {
		if _, err := NewReference(models[name], Serve{TPSize: 4}, a100, p); !errors.As(err, &se) || se.Flag != "model" {
			t.Errorf("%s under %s: %v; want --model refused", name, p.Name, err)
		}
	}
	for _, f := range flags {
		if _, err := NewReference(llama, f.s, h100, p); !errors.As(err, &se) || se.Flag != f.flag {
			t.Errorf("--%s under %s: %v; want it refused by name", f.flag, p.Name, err)
		}
	}
}

// TestNoKVRest: from v0.5.14 a rest not above 0, after a hybrid's Mamba
// pool, fails in _profile_available_bytes with its own message, not the
// pool configurator's (model_runner_kv_cache_mixin.py:102-117).
//
// Qwen3.5-27B at TP 1 on an H100 (TestMambaQwen35H100): rest 9.41511209
// GiB, a slot 153,944,064 B = 0.14337158203125 GiB. 66 slots given take
// 9.46252441 GiB, more than the rest: refused; 65 take 9.31915283, and
// the 0.0959593 GiB left holds tokens. The message's figures are the
// weights' alone: F1 = 84,414,562,304 - 54,995,714,048 = 29,418,848,256
// B, F1 / F0 = 0.3485044, 1 - it = 0.6514956 ("0.6515"), ceil(651.4956) /
// 1000 = 0.652.
func TestNoKVRest(t *testing.T) {
	models := shipped(t)
	qwen, llama := models["Qwen__Qwen3.5-27B"], models["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	p := mustProfile("v0.5.14")
	want := "Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.7712545312499999. Raise --mem-fraction-static above 0.652 (minimum viable = 1 - available/pre = 0.6515). If using speculative decoding, draft weights are now counted."
	if c := ref(t, qwen, Serve{MaxMambaCacheSize: 66}, h100, p).Capacity(); c.Starts || c.Failure != want {
		t.Errorf("66 Mamba slots: starts %v, failure %q; want %q", c.Starts, c.Failure, want)
	}
	if c := ref(t, qwen, Serve{MaxMambaCacheSize: 65}, h100, p).Capacity(); c.KVRestBytes <= 0 || strings.HasPrefix(c.Failure, "Loaded weights") {
		t.Errorf("65 Mamba slots: KV rest %d B, failure %q; want a rest above 0 and no such failure", c.KVRestBytes, c.Failure)
	}
	// A dense model at --mem-fraction-static 0.1, whose rest is below 0:
	// v0.5.14 fails before the pool, v0.5.13.post1 at the pool of no token.
	for rel, prefix := range map[string]string{"v0.5.14": "Loaded weights leave no GPU memory", "v0.5.13.post1": "Not enough memory. Please try"} {
		if c := ref(t, llama, Serve{MemFractionStatic: 0.1}, h100, mustProfile(rel)).Capacity(); c.Starts || !strings.HasPrefix(c.Failure, prefix) {
			t.Errorf("Llama 3.1 8B at msf 0.1 under %s: starts %v, failure %q; want it to start with %q", rel, c.Starts, c.Failure, prefix)
		}
	}
}

// TestMambaSplitPadding pins v0.5.17's padding slot in the split
// (gdnPaddingCharged) against v0.5.16's rule, on a slot of exactly 1 GiB
// (one layer, 2^28 float32 temporal elements) so the figures are whole.
// A rest of 20 GiB at ratio 0.9: the share 20 x 0.9 / 1.9 = 9.47 GiB,
// v0.5.16 floor(9.47) = 9 slots and 11 GiB left; v0.5.17 floor(9.47 - 1)
// = 8 slots and 20 - (8 + 1) = 11 GiB left. A given size of 5 leaves 15
// GiB, 14 at v0.5.17 (the padding slot is charged whichever way the size
// was set, kv_cache_configurator.py:1977-1982); 3 from the requests 17,
// 16. A rest of 0.5 GiB: share 0.237, v0.5.16 0 slots, v0.5.17
// floor(-0.763) = -1: SGLang's error either way.
func TestMambaSplitPadding(t *testing.T) {
	base := mambaPool{Layers: 1, ConvBytes: 2, SSMElems: 1 << 28, SSMBytes: 4, FullRatio: 0.9}
	type split struct {
		Size int64
		Left float64
	}
	for _, tc := range []struct {
		name      string
		given     uint64
		fromReqs  bool
		rest      float64
		old, v517 split
	}{
		{"the ratio's share", 0, false, 20, split{9, 11}, split{8, 11}},
		{"--max-mamba-cache-size 5", 5, false, 20, split{5, 15}, split{5, 14}},
		{"3 from --max-running-requests", 0, true, 20, split{3, 17}, split{3, 16}},
		{"a small rest", 0, false, 0.5, split{0, 0.5}, split{-1, 0.5}},
	} {
		for _, charged := range []bool{false, true} {
			m := base
			m.GivenSize, m.FromRequests, m.PaddingCharged = tc.given, tc.fromReqs, charged
			size, left := mambaSplit(&m, tc.rest, 3)
			want := tc.old
			if charged {
				want = tc.v517
			}
			if diff := cmp.Diff(want, split{size, left}); diff != "" {
				t.Errorf("%s, padding charged %v (-want +got):\n%s", tc.name, charged, diff)
			}
		}
	}
	if m := base; m.PerReq() != 1<<30 {
		t.Fatalf("the slot: %d B; want 2^30", m.PerReq())
	}
	if slices.Contains(gdnPaddingCharged, "v0.5.16") || !slices.Equal(gdnPaddingCharged, gdnReleases[len(gdnReleases)-2:]) || !slices.Equal(gdnPaddingCharged, []string{"v0.5.17", "v0.5.18"}) {
		t.Errorf("the padding slot's releases %v: want v0.5.17 and v0.5.18, the last two read (kv_cache_configurator.py:2100-2108, 2128-2136 at v0.5.18)", gdnPaddingCharged)
	}
}
