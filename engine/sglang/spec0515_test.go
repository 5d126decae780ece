package sglang

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpecByHand0515 sizes the EAGLE-3 Llama-3.1-8B serve on one H100 (and
// at TP 2) and the DeepSeek-V3 NEXTN serve at TP16 over two H100 nodes at
// v0.5.15, v0.5.15.post1 and v0.5.16, top-k 1, graphs off (--disable-cuda-graph
// turns the breakable prefill graphs off with the decode ones). The pool
// follows v0.5.14's rules (the draft in the load, the scaled cell); the
// fraction loses the decode graphs' term (Profile.ReserveDecodeGraphsOn);
// new beside the pool are the eager runners' inputs, the draft's as the
// target's, and at TP above 1 on one node the logits all-gather buffers of
// the target and of the draft, of max(48 x 4 draft tokens, 128) = 192 rows
// (triton_symm_mem_ag.py:421-440 at v0.5.15), none where the TP group
// spans nodes. v0.5.16 gives the same
// reserve and the same terms (its custom all-reduce v2 workspace moves
// the pool at TP above 1, which the test reads from the rest), and so does
// v0.5.17 (specReleases: its draft rules are v0.5.16's for these serves,
// and its target rules reach none of them: no --context-length, so
// #30206's cap changes nothing, and the prefill graphs are off), and so
// does v0.5.18 (specReleases; text models, no multimodal reservation, the
// reserve's terms v0.5.17's; TestSpec0518AgainstV0517).
func TestSpecByHand0515(t *testing.T) {
	archs := shipped(t)
	llama, dsv3 := archs["meta-llama__Llama-3.1-8B-Instruct"], archs["deepseek-ai__DeepSeek-V3"]
	h100 := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	eagle3 := Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4}
	for _, release := range []string{"v0.5.15", "v0.5.15.post1", "v0.5.16", "v0.5.17", "v0.5.18"} {
		for _, tc := range []struct {
			name          string
			s             Serve
			msf, reserved float64
			scaledCell    uint64
			// draftLoad is the draft's tensors by hand (0: not checked),
			// less an MTP layer's decoder (withDecoder adds the target's
			// layer 60).
			draftLoad   uint64
			withDecoder bool
			// gather and draftGather are the logits all-gather buffers.
			gather, draftGather uint64
			futureRow, reqRow   uint64
		}{
			{
				// 512 + 1.5 x 8192 + 1024 / 8 = 12928: no decode graph
				// term with the graphs off (server_args.py:3639-3643), no
				// draft term; round(68152 / 81080, 3) = round(0.84055) =
				// 0.841.
				name: "EAGLE3 Llama-3.1-8B", s: Serve{Dtype: "bfloat16", DisableCudaGraph: true, Spec: eagle3},
				msf: 0.841, reserved: 12928,
				// int(32 x 4096 x (1 + 1 / 32)) = 135168, as v0.5.14.
				scaledCell: 135168,
				// As v0.5.14's (TestSpecByHand0513And0514): fc, the
				// midlayer, four norms, lm_head 32000 x 4096 in bf16,
				// hot_token_id, the rotary table, the embedding until
				// shared and the chain's two constants of 256 x 3 int64.
				draftLoad: (3*4096*4096+48*128*8192+4096*4096+2*14336*4096+14336*4096+4*4096+32000*4096)*2 +
					32000*8 + 131328*128*4 + 128256*4096*2 + 2*256*3*8,
				// TP 1: no all-gather (triton_symm_mem_ag.py:525-527).
				futureRow: 4 + 8 + 8 + 8 + 4096*2, reqRow: 131072 + 4 + 4,
			},
			{
				// 512 + 12288 + 2 / 8 x 1024 = 13056; round(68024 /
				// 81080, 3) = round(0.83897) = 0.839.
				name: "EAGLE3 Llama-3.1-8B TP2", s: Serve{Dtype: "bfloat16", TPSize: 2, DisableCudaGraph: true, Spec: eagle3},
				msf: 0.839, reserved: 13056,
				// 16 layers' KV heads a rank: 32 x 4 x 128 x 2 x 2 =
				// 65536, x 33 / 32.
				scaledCell: 67584,
				// 192 rows x the target's 128256 (a multiple of 64) bf16;
				// the draft's own head of 32000 rows.
				gather: 192 * 128256 * 2, draftGather: 192 * 32000 * 2,
				futureRow: 4 + 8 + 8 + 8 + 4096*2, reqRow: 131072 + 4 + 4,
			},
			{
				// 512 + 12288 + 16 / 8 x 1024 = 14848; round(66232 /
				// 81080, 3) = round(0.81687) = 0.817.
				name: "NEXTN DeepSeek-V3", s: Serve{TPSize: 16, Nodes: Nodes{NNodes: 2}, DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN"}},
				msf: 0.817, reserved: 14848,
				// 62 x 1152, as v0.5.14.
				scaledCell: 62 * 1152,
				// eh_proj, three norms, the embedding and head of 8080
				// rows a rank until shared, the chain of 512 x 3 int64.
				draftLoad: (2*7168*7168+3*7168)*2 + 2*8080*7168*2 + 2*512*3*8, withDecoder: true,
				// No logits all-gather: TP 16 over two nodes of 8 GPUs
				// puts every TP group on both nodes, and the gatherers
				// are built disabled (triton_symm_mem_ag.py:478-487; see
				// [logitsAllGatherKept]). On one node each would be 192
				// rows x 129280 (a multiple of 64, 8080 a rank) bf16.
				gather: 0, draftGather: 0,
				futureRow: 4 + 8 + 8 + 8 + 7168*2, reqRow: 163840 + 4 + 4,
			},
		} {
			t.Run(release+" "+tc.name, func(t *testing.T) {
				p := mustProfile(release)
				a := llama
				if tc.s.Spec.Algorithm == "NEXTN" {
					a = dsv3
				}
				spec := ref(t, a, tc.s, h100, p)
				r := spec.Serve
				if r.MemFractionStatic != tc.msf || r.ReservedMiB != tc.reserved {
					t.Errorf("msf %v reserving %v MiB, want %v reserving %v", r.MemFractionStatic, r.ReservedMiB, tc.msf, tc.reserved)
				}
				d := r.Draft
				if !d.V2Only || !d.InFraction || d.Steps != 3 || d.TopK != 1 || d.DraftTokens != 4 || r.MaxRunningRequests != 48 {
					t.Errorf("draft %+v, %d requests; want the v2 worker in the fraction at (3, 1, 4), 48", *d, r.MaxRunningRequests)
				}
				got := spec.Capacity()
				if !got.Starts || got.CellBytes != tc.scaledCell {
					t.Fatalf("starts %v (%s), cell %d; want it to start at %d B a token", got.Starts, got.Failure, got.CellBytes, tc.scaledCell)
				}
				T := uint64(got.RestBytes) / tc.scaledCell
				if uint64(got.MaxTotalNumTokens) != T {
					t.Errorf("#tokens %d, want %d / %d = %d", got.MaxTotalNumTokens, got.RestBytes, tc.scaledCell, T)
				}
				if tc.draftLoad > 0 {
					plainServe := tc.s
					plainServe.Spec, plainServe.MemFractionStatic = Spec{}, tc.msf
					plain := ref(t, a, plainServe, h100, p)
					checkDraftLoad(t, spec, plain, tc.draftLoad, tc.withDecoder)
				}
				items := spec.EvaluateStage(0, 1, 1).Items
				// The eager runners' inputs: max(T, 8192, 48 x 4) tokens x
				// 48 B and 48 requests x 16 B each, the draft's over the
				// same pool (model_runner_kv_cache_mixin.py:1264-1267).
				eager := T*48 + 48*16
				for _, w := range []struct {
					name  string
					bytes uint64
				}{
					{"eager_input_buffers", eager},
					{"spec_draft.eager_input_buffers", eager},
					{"logits_all_gather", tc.gather},
					{"spec_draft.logits_all_gather", tc.draftGather},
					// 48 requests and the padding row.
					{"spec_future_map", 49 * tc.futureRow},
					{"req_to_token", 49 * tc.reqRow * 4},
				} {
					if g := itemBytes(items, w.name); g != w.bytes {
						t.Errorf("%s: %d B, want %d", w.name, g, w.bytes)
					}
				}
				plan := spec.Plan()
				for _, pt := range [][2]uint64{{0, 0}, {1, 1}, {48, 4096}, {48, T / 48}, {48, T/48 + 64}} {
					if diff := cmp.Diff(spec.Evaluate(pt[0], pt[1]).Footprint, plan.Evaluate(pt[0], pt[1])); diff != "" {
						t.Errorf("(%d, %d): Plan != Reference (-reference +plan):\n%s", pt[0], pt[1], diff)
					}
				}
			})
		}
	}
}

// TestSpecTokensPerRequest pins max(draft tokens, top-k, 1), the rows a
// request takes in the eager runners and the logits all-gather from
// v0.5.15 (triton_symm_mem_ag.py:434-436, eager_runner.py:69-89).
func TestSpecTokensPerRequest(t *testing.T) {
	for _, tc := range []struct {
		d    *specDraft
		want uint64
	}{
		{nil, 1}, // no draft: one token a request
		{&specDraft{TopK: 1, DraftTokens: 4}, 4},
		{&specDraft{TopK: 8, DraftTokens: 4}, 8}, // the wider of the two
		{&specDraft{}, 1},
	} {
		if got := tc.d.tokensPerRequest(); got != tc.want {
			t.Errorf("%+v: %d, want %d", tc.d, got, tc.want)
		}
	}
}

// TestSpecReqToTokenPages pins req_to_token's row on pages of 16 at top-k
// 1: context + 4 + 4 draft tokens through v0.5.15.post1 (mem_cache/
// common.py:252-265 at v0.5.15, the page reserve above top-k 1 alone), and
// from v0.5.16 context + max(4 + 4, 2 x max(3 x 1, 4) + 16 - 1) = context
// + 23 (mem_cache/allocation_sizing.py:46-63, PR #31681; the same file at
// v0.5.17).
func TestSpecReqToTokenPages(t *testing.T) {
	archs := shipped(t)
	llama := archs["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	for _, tc := range []struct {
		release     string
		page, steps uint64 // top-k 1: steps + 1 draft tokens
		row         uint64 // int32 entries a row
	}{
		{"v0.5.15", 16, 3, 131072 + 4 + 4},
		{"v0.5.15.post1", 16, 3, 131072 + 4 + 4},
		{"v0.5.16", 16, 3, 131072 + 23},
		{"v0.5.17", 16, 3, 131072 + 23}, // allocation_sizing.py unchanged
		{"v0.5.18", 16, 3, 131072 + 23}, // the same terms, read from the runtime context (allocation_sizing.py:50-66)
		// Pages of 1 take no page reserve (page_size > 1 gates it,
		// allocation_sizing.py:54): 4 + 8 draft tokens, where the
		// reserve would give 2 x 8 + 1 - 1 = 16 (at 4 draft tokens the
		// two agree, 8, and the case could not tell them apart).
		{"v0.5.16", 1, 7, 131072 + 4 + 8},
	} {
		s := Serve{Dtype: "bfloat16", DisableCudaGraph: true, PageSize: tc.page, AttentionBackend: "fa3",
			Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: tc.steps, EagleTopK: 1, NumDraftTokens: tc.steps + 1}}
		spec := ref(t, llama, s, h100, mustProfile(tc.release))
		// 48 requests and the padding row.
		if g, want := itemBytes(spec.EvaluateStage(0, 1, 1).Items, "req_to_token"), 49*tc.row*4; g != want {
			t.Errorf("%s pages of %d: req_to_token %d B, want 49 x %d x 4 = %d", tc.release, tc.page, g, tc.row, want)
		}
	}
	// The widening is of the reserve's arithmetic: 2 x max(steps x top-k,
	// draft tokens) + page - 1 - 4, the draft tokens at least.
	for _, tc := range []struct {
		d    specDraft
		want uint64
	}{
		{specDraft{Steps: 3, TopK: 1, DraftTokens: 4, ReqPage: 16}, 19},
		{specDraft{Steps: 3, TopK: 1, DraftTokens: 4, ReqPage: 2}, 5}, // 8 + 1 - 4
		{specDraft{Steps: 7, TopK: 1, DraftTokens: 8, ReqPage: 0}, 8}, // release or pages of 1
		{specDraft{Steps: 1, TopK: 1, DraftTokens: 2, ReqPage: 2}, 2}, // 4 + 1 - 4 = 1 < 2
	} {
		if got := tc.d.reqExtra(); got != tc.want {
			t.Errorf("%+v: %d, want %d", tc.d, got, tc.want)
		}
	}
}
