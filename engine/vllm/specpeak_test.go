package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// TestSpecV1PeakByHand: Llama-3.1-8B-Instruct with the shipped EAGLE-3
// draft (SpecForge's llama3-8B-eagle3 config: one layer, hidden 4096,
// 32/8 heads of 128, intermediate 14336, draft vocabulary 31960) or the
// shipped EAGLE-1 draft (the same layer shape), k = 3, on vLLM 0.19.0,
// which runs Llama on the V1 model runner; eager, N = 256 sequences, bf16,
// TP 1. With T batched tokens, h = T x 4096 x 2.
//
// The target's forward pass is (4 x 4096 + 3 x 14336) x 2 = 118784 B a
// token. The sampler (0.19 runs the Triton top-k/top-p, 14 B a logit in
// bf16: 2 + a float32 copy 4 + probabilities 4 + draws 4) holds h, 256 x
// 128256 x 14 = 459669504 B of logits, the Triton row buffer 132 x 128256
// x 4 = 67719168 and the dummy rejection sampler's 256 x 128256 x (2 x 2
// + 4) = 262668288: 790056960 + h.
//
// EAGLE-3's drafter a token: (5 x 4096 + max(2 x 32 x 128 + 2 x 8 x 128 +
// 4096, 3 x 14336)) x 2 = (20480 + 43008) x 2 = 126976 B; EAGLE-1's:
// (4 x 4096 + max(2 x 32 x 128 + 2 x 8 x 128, 3 x 14336)) x 2 = 118784 B.
//
// T = 8192, h = 67108864: the forward pass 8192 x 118784 = 973078528; the
// sampler 857165824, below it (sampler_logits 0). EAGLE-3: 1. the forward
// pass and the three auxiliary states, 973078528 + 3h = 1174405120; 2.
// the drafter, 4h + 8192 x 126976 = 268435456 + 1040187392 = 1308622848,
// the larger: it adds 1308622848 - 973078528 = 335544320 B (5h, 320 MiB).
// EAGLE-1: 1. 973078528; 2. the fc, 5h = 335544320; 3. the drafter, 2h +
// 8192 x 118784 = 1107296256: it adds 134217728 B (2h).
//
// T = 2048, h = 16777216: the forward pass 2048 x 118784 = 243269632; the
// sampler 806834176, which holds the peak (sampler_logits 806834176 -
// 243269632 = 563564544); EAGLE-3's points, 243269632 + 3h = 293601280
// and 4h + 2048 x 126976 = 67108864 + 260046848 = 327155712, stay under
// it: the drafter adds nothing.
//
// The proposer's buffers (TestDraftWeightsByHand's rule): at T = 8192,
// 32768 + 65536 + 2 x 67108864 + 32768 + 65536 + 1024 = 134415360 B; at
// T = 2048, input_ids 8192, positions 16384, hidden_states
// and inputs_embeds 2 x 16777216, arange max(257, 2048) x 4 = 8192, the
// slot mapping 16384, backup_next_token_ids 1024: 33604608 B.
func TestSpecV1PeakByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	p := mustProfile("0.19.0")
	eagle3, eagle := eagle3Spec(WriteEagle3Draft(t)), eagleSpec(WriteEagleDraft(t))
	for _, tc := range []struct {
		name    string
		spec    string
		batched uint64
		want    map[string]uint64
	}{
		{"EAGLE-3, 8192 tokens", eagle3, 8192, map[string]uint64{"activation_peak": 973078528 + profileResidualV1, "sampler_logits": 0, "draft_profile_run": 335544320, "draft_buffers": 134415360}},
		{"EAGLE-1, 8192 tokens", eagle, 8192, map[string]uint64{"activation_peak": 973078528 + profileResidualV1, "sampler_logits": 0, "draft_profile_run": 134217728, "draft_buffers": 134415360}},
		{"EAGLE-3, 2048 tokens", eagle3, 2048, map[string]uint64{"activation_peak": 243269632 + profileResidualV1, "sampler_logits": 563564544, "draft_profile_run": 0, "draft_buffers": 33604608}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: tc.batched, EnforceEager: true, SpeculativeConfig: tc.spec}
			r, err := Resolve(s, a, bigClass, p)
			if err != nil {
				t.Fatal(err)
			}
			if onV2Speculator(&r) {
				t.Fatal("the draft is on the V2 speculator under 0.19.0")
			}
			got := map[string]uint64{}
			for name := range tc.want {
				got[name] = 0 // a missing item reads 0
			}
			for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
				if _, ok := tc.want[it.Name]; ok {
					got[it.Name] += it.Bytes
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSpecV1PeakReport: the report names the drafter's part of the V1
// profile run: a "draft profile run" line split out of the activation
// line (the two sum to the term), the JSON's draft_profile_run_bytes, and
// the speculative-decoding lines (TestSpecV1PeakByHand: 335544320 B, 0.31
// GiB).
func TestSpecV1PeakReport(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(WriteEagle3Draft(t))}
	sz, err := Size(&hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}, bigClass, s, mustProfile("0.19.0"))
	if err != nil {
		t.Fatal(err)
	}
	fp := sz.Plan().Evaluate(1, 4096)
	var got []engine.FootprintLine
	var sum uint64
	for _, l := range sz.Section().Lines(fp) {
		if l.Label == termLabels[budget.TermActivation] || l.Label == specV2ProfileLabel {
			got = append(got, l)
			sum += l.Bytes
		}
	}
	want := []engine.FootprintLine{
		{Label: termLabels[budget.TermActivation], Bytes: fp.Terms[budget.TermActivation] - 335544320},
		{Label: specV2ProfileLabel, Bytes: 335544320},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("activation lines (-want +got):\n%s", diff)
	}
	if sum != fp.Terms[budget.TermActivation] {
		t.Errorf("the activation lines sum to %d, want the term %d", sum, fp.Terms[budget.TermActivation])
	}
	if j := sz.specJSON(); j == nil || j.DraftProfileBytes != 335544320 || j.V2BufferBytes != 0 {
		t.Errorf("the report's speculative JSON is %+v, want draft_profile_run_bytes 335544320 and no V2 buffers", j)
	}
	lines := strings.Join(sz.specSettings(), "\n")
	for _, w := range []string{"the V1 model runner", "beside the target's hidden states and 3 auxiliary ones, adds 0.31 GiB"} {
		if !strings.Contains(lines, w) {
			t.Errorf("the speculative-decoding lines %q do not say %q", lines, w)
		}
	}
}

// TestSpecV1PeakMoEWorkspace: on a stage of experts whose fused-MoE
// workspace vLLM's workspace manager keeps past the forward pass (0.14
// on), the drafter's point holds it too. Qwen3-235B-A22B (hidden 4096,
// 8 experts a token of moe_intermediate 1536) at TP 8 with the shipped
// EAGLE-3 draft, T = 8192, bf16, the target's forward pass taken as 0 so
// that the drafter's point is the larger: h = 8192 x 4096 x 2 = 67108864;
// the workspace, N = 2 x 1536 / 8 = 384 per rank, 8192 x 8 x (max(192,
// 4096) + max(384, 4096)) x 2 = 1073741824; the drafter a token at TP 8,
// (5 x 4096 + max(2 x 4 x 128 + 2 x 1 x 128 + 4096, 3 x 1792)) x 2 =
// (20480 + 5376) x 2 = 51712, 423624704 over the tokens: 4h + 1073741824
// + 423624704 = 1765801984. Llama-3.1-8B's dense stage holds no
// workspace: 4h + 8192 x 126976 = 1308622848.
func TestSpecV1PeakMoEWorkspace(t *testing.T) {
	models := shipped(t)
	dir := WriteEagle3Draft(t)
	for _, tc := range []struct {
		model string
		tp    uint64
		want  uint64
	}{
		{"Qwen__Qwen3-235B-A22B", 8, 1765801984},
		{"meta-llama__Llama-3.1-8B-Instruct", 1, 1308622848},
	} {
		a := models[tc.model]
		s := Serve{TensorParallelSize: tc.tp, MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}
		r, err := Resolve(s, a, bigClass, mustProfile("0.19.0"))
		if err != nil {
			t.Fatalf("%s: %v", tc.model, err)
		}
		if got := specV1ProfileBytes(a, &r, stageOf(&r, 0), 0); got != tc.want {
			t.Errorf("%s: the drafter's point is %d B, want %d", tc.model, got, tc.want)
		}
	}
}

// TestV1EagleProfilePeakIsLargestPoint: on the V1 runner, with an EAGLE-3
// or EAGLE draft, the profile run's torch peak items (the forward pass,
// the sampler, the drafter's part) sum to the largest of the points
// alive: never below the target's forward pass with EAGLE-3's auxiliary
// states, nor the drafter's pass beside what the target returned, nor
// the peak without the drafter's part; and equal to one of them.
func TestV1EagleProfilePeakIsLargestPoint(t *testing.T) {
	models := shipped(t)
	dirs := map[string]string{"eagle3": WriteEagle3Draft(t), "eagle": WriteEagleDraft(t)}
	names := []string{"meta-llama__Llama-3.1-8B-Instruct", "Qwen__Qwen3-8B"}
	profiles := []Profile{mustProfile("0.14.0"), mustProfile("0.19.0"), v1Llama, mustProfile("0.22.0")}
	rapid.Check(t, func(t *rapid.T) {
		a := models[rapid.SampledFrom(names).Draw(t, "model")]
		method := rapid.SampledFrom([]string{"eagle3", "eagle"}).Draw(t, "method")
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:         8192,
			MaxNumSeqs:          rapid.Uint64Range(1, 1024).Draw(t, "seqs"),
			MaxNumBatchedTokens: rapid.Uint64Range(8192, 65536).Draw(t, "batched"),
			EnforceEager:        rapid.Bool().Draw(t, "eager"),
			SpeculativeConfig:   `{"method": "` + method + `", "model": "` + dirs[method] + `", "num_speculative_tokens": ` + itoa(rapid.Uint64Range(1, 5).Draw(t, "k")) + `}`,
		}
		r, err := Resolve(s, a, bigClass, rapid.SampledFrom(profiles).Draw(t, "profile"))
		if err != nil {
			t.Skip(err)
		}
		if !onV1EagleDrafter(&r) {
			t.Skip("on the V2 speculator")
		}
		st := stageOf(&r, len(r.Stages)-1)
		var without, peak uint64
		for _, it := range peakItems(a, &r, st) {
			switch it.Name {
			case "activation_peak", "sampler_logits":
				without += it.Bytes
				peak += it.Bytes
			case "draft_profile_run":
				peak += it.Bytes
			}
		}
		el, tok := r.DtypeBytes, r.MaxNumBatchedTokens
		h := tok * a.Hidden * el
		res := r.Profile.peaks.residualBytes
		forward := tok*forwardBytesPerToken(a, r.TensorParallelSize, el) + res
		drafter := 2*h + tok*draftForwardBytesPerToken(r.Spec.Draft, r.TensorParallelSize, el) + res
		if method == "eagle3" {
			forward += eagle3AuxStates * h
			drafter += 2 * h
		}
		if peak < forward || peak < drafter || peak < without {
			t.Fatalf("the peak %d is below a point: forward %d, drafter %d, without the drafter %d", peak, forward, drafter, without)
		}
		if peak != forward && peak != drafter && peak != without && peak != 5*h+res {
			t.Fatalf("the peak %d is none of the points: forward %d, drafter %d, without the drafter %d, EAGLE-1's fc %d", peak, forward, drafter, without, 5*h+res)
		}
	})
}
