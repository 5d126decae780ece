package vllm

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
	"membudget/model/logs"
)

// TestUnifiedGraphRows pins the GB10 figures unifiedGraphRows cites, read
// from the rows' quotes with the startup-log reader:
//   - row 201 logs "Estimated CUDA graph memory: -4.74 GiB total" over 51
//     PIECEWISE graphs alone: the estimate is the first sample plus 50 x
//     the second, the second at least 1 MiB (gpu_model_runner.py:6869-6874
//     at d18bb7b), so the first sample is at most -4.74 GiB + 0.005 (the
//     log's rounding) - 50 MiB (0.0488 GiB) = -4.784 GiB: at least 4.78
//     GiB more free after the capture than before;
//   - row 209 logs -0.90 GiB with max_cudagraph_capture_size 1 (at most
//     one graph a mode: no second sample is multiplied, the estimate is
//     the larger first sample);
//   - row 380 logs util 0.8000 "equivalent to 0.7924": vLLM prints
//     round(util - estimate / total, 4) (gpu_worker.py:569-575), so the
//     estimate is (0.8000 - 0.7924) x 121.69 GiB (GB10's total, the gb10
//     class) = 0.0076 x 121.69 = 0.9248 GiB, within 0.00005 x 121.69 =
//     0.006 GiB of the rounding: "0.92 GiB".
func TestUnifiedGraphRows(t *testing.T) {
	tables := readObservedTables(t)
	quotes := map[string]*logs.Log{}
	for _, r := range tables.Rows {
		switch id := r["id"]; id {
		case "201", "209", "380":
			l, err := logs.ParseQuote(r["quote"])
			if err != nil {
				t.Fatalf("row %s: %v", id, err)
			}
			quotes[id] = l
		}
	}
	const gib = 1 << 30
	got := map[string]float64{}
	for _, id := range []string{"201", "209"} {
		est, ok := quotes[id].First(logs.KindCUDAGraphEstimate)
		if !ok {
			t.Fatalf("row %s: no CUDA-graph estimate read from its quote", id)
		}
		b, _ := est.Bytes()
		got[id] = math.Round(float64(b)/gib*100) / 100
	}
	if diff := cmp.Diff(map[string]float64{"201": -4.74, "209": -0.90}, got); diff != "" {
		t.Errorf("logged estimates, GiB (-want +got):\n%s", diff)
	}
	// Row 201's first sample, by hand above: the logged estimate's upper
	// rounding less 50 graphs of 1 MiB.
	if first := ((got["201"]+0.005)*gib - 50<<20) / gib; first > -4.78 || first < -4.79 {
		t.Errorf("row 201's first capture at most %.3f GiB, want -4.784", first)
	}
	u, ok1 := quotes["380"].First(logs.KindUtilization)
	w, ok2 := quotes["380"].First(logs.KindUtilWithoutGraphs)
	if !ok1 || !ok2 {
		t.Fatalf("row 380: util %v, util without graphs %v: want both read", ok1, ok2)
	}
	total := float64(kernelClass(t, "gb10").Device.MemoryBytes) / gib // 121.69 GiB
	if e := (u.Float64() - w.Float64()) * total; math.Abs(e-0.9248) > 0.0005 {
		t.Errorf("row 380's estimate (%v - %v) x %.2f = %.4f GiB, want 0.9248", u.Float64(), w.Float64(), total, e)
	}
	for _, s := range []string{"-4.74 and -0.90 GiB", "0.92 GiB"} {
		if !strings.Contains(unifiedGraphRows, s) {
			t.Errorf("unifiedGraphRows lacks %q", s)
		}
	}
}

// TestUnifiedGraphNotes: the report's line and explain's note name the
// CUDA-graph estimate host-dependent on a unified class exactly where the
// estimate sizes the KV cache, and explain reads a negative logged
// estimate as the host's, added to the KV cache.
//
// Llama-3.1-8B at util 0.35, 4096 tokens, 16 sequences, on the 80 GiB test
// class: vLLM 0.20.0 runs it on the V1 runner and charges its estimate
// (PR #38284); 0.19.0 prints it beside the budget; main runs Llama on the
// V2 runner, whose estimate is 0 (gpu/model_runner.py:835-837);
// --enforce-eager captures nothing; --kv-cache-memory-bytes profiles
// nothing (gpu_worker.py:474-495).
func TestUnifiedGraphNotes(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	m := &hub.Loaded{Name: "meta-llama/Llama-3.1-8B-Instruct", Arch: a}
	base := Serve{GPUMemoryUtilization: 0.35, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 8192}
	negative, err := logs.ParseQuote("Estimated CUDA graph memory: -4.74 GiB total")
	if err != nil {
		t.Fatal(err)
	}
	positive, err := logs.ParseQuote("Estimated CUDA graph memory: 0.93 GiB total")
	if err != nil {
		t.Fatal(err)
	}
	est, _ := negative.First(logs.KindCUDAGraphEstimate)
	negBytes, ok := est.Bytes()
	if !ok || negBytes >= 0 {
		t.Fatalf("the negative estimate read as %d B (%v)", negBytes, ok)
	}
	type want struct {
		Report, HostNote, NegativeAdded, NegativeBeside bool
	}
	cases := []struct {
		name    string
		prof    string
		unified bool
		edit    func(*Serve)
		want    want
	}{
		{"0.20.0 unified", "0.20.0", true, func(*Serve) {}, want{true, true, true, false}},
		{"0.21.0 unified", "0.21.0", true, func(*Serve) {}, want{true, true, true, false}},
		{"0.20.0 discrete", "0.20.0", false, func(*Serve) {}, want{}},
		// Not charged: the logged negative estimate leaves the KV cache as is.
		{"0.19.0 unified", "0.19.0", true, func(*Serve) {}, want{NegativeBeside: true}},
		{"main unified (V2 runner)", "main", true, func(*Serve) {}, want{NegativeBeside: true}},
		{"0.20.0 unified --enforce-eager", "0.20.0", true, func(s *Serve) { s.EnforceEager = true }, want{NegativeBeside: true}},
		{"0.20.0 unified --kv-cache-memory-bytes", "0.20.0", true, func(s *Serve) { s.KVCacheMemoryBytes = 8 << 30 }, want{NegativeBeside: true}},
		{"0.29.0 unified (V2's reservation, read as V1's)", "0.29.0", true, func(*Serve) {}, want{true, true, true, false}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := mustProfile(tc.prof)
			s := base
			tc.edit(&s)
			sz, err := Size(m, testClass(tc.unified), s, p)
			if err != nil {
				t.Fatal(err)
			}
			if !sz.capacity.Starts {
				t.Fatalf("the serve does not start: %+v", sz.capacity)
			}
			fp := sz.plan.Evaluate(1, s.MaxModelLen)
			var w bytes.Buffer
			sz.writeUnifiedGraphs(&w, fp.Terms[budget.TermGraphPool])
			rf, err := NewReference(a, s, testClass(tc.unified), p)
			if err != nil {
				t.Fatal(err)
			}
			pred := rf.Predict()
			host := unifiedGraphNote(positive, pred, &rf.Serve, a)
			neg := unifiedGraphNote(negative, pred, &rf.Serve, a)
			got := want{
				Report:         strings.Contains(w.String(), "host-dependent graph estimate") && strings.Contains(w.String(), unifiedGraphRows),
				HostNote:       strings.HasPrefix(host, "host-dependent graph estimate"),
				NegativeAdded:  strings.Contains(neg, "less the non-KV memory plus 4.74 GiB"),
				NegativeBeside: strings.Contains(neg, "does not take the estimate off the KV cache"),
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nreport %q\nnote %q\nnegative %q", diff, w.String(), host, neg)
			}
			if !tc.unified && (host != "" || neg != "") {
				t.Errorf("discrete class: notes %q, %q: want none", host, neg)
			}
			// The term's share of the gap: 4.74 GiB vLLM added and the
			// estimate membudget charges.
			if got.NegativeAdded && !strings.Contains(neg, ": "+engine.GiB(budget.SatAdd(uint64(-negBytes), pred.GraphBytes))+" of the available KV memory's gap") {
				t.Errorf("note %q: want the gap's share, 4.74 GiB + the charged %d B", neg, pred.GraphBytes)
			}
			// The report's JSON field stands where its line does.
			if f := sz.unifiedGraphsField(fp); (len(f) == 1) != got.Report {
				t.Errorf("fields %+v: want graph_estimate_host_dependent: %v", f, got.Report)
			} else if got.Report && f[0].Value.(unifiedGraphsJSON).EstimateBytes != fp.Terms[budget.TermGraphPool] {
				t.Errorf("field %+v: want the charged estimate %d B", f[0].Value, fp.Terms[budget.TermGraphPool])
			}
			if v2 := strings.Contains(host, "PR #53306"); v2 != (tc.prof == "0.29.0") {
				t.Errorf("note %q: the V2 runner's reservation named: %v, want %v", host, v2, tc.prof == "0.29.0")
			}
			if got.Report && !strings.Contains(w.String(), "("+engine.GiB(fp.Terms[budget.TermGraphPool])+" charged") {
				t.Errorf("report %q does not state the charged estimate %d B", w.String(), fp.Terms[budget.TermGraphPool])
			}
		})
	}
}

// TestUnifiedGraphNoteProperty: for any logged estimate, of either sign,
// explain's note stands on a unified class alone; a negative estimate
// on a release that charges it states exactly what vLLM added, |estimate|,
// and its share of the gap, |estimate| + the estimate membudget charges;
// a positive or absent one is named host-dependent exactly where the
// estimate is charged (hostGraphEstimate).
func TestUnifiedGraphNoteProperty(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	profiles := []string{"0.19.0", "0.20.0", "0.21.0", "main", "0.29.0"}
	refs := map[string]*Reference{}
	for _, prof := range profiles {
		for _, unified := range []bool{false, true} {
			s := Serve{GPUMemoryUtilization: 0.35, MaxModelLen: 4096, MaxNumSeqs: 16, MaxNumBatchedTokens: 8192}
			rf, err := NewReference(a, s, testClass(unified), mustProfile(prof))
			if err != nil {
				t.Fatal(err)
			}
			refs[fmt.Sprint(prof, unified)] = rf
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		prof := rapid.SampledFrom(profiles).Draw(t, "profile")
		unified := rapid.Bool().Draw(t, "unified")
		rf := refs[fmt.Sprint(prof, unified)]
		cents := rapid.IntRange(-800, 800).Draw(t, "estimate (GiB/100)")
		quote := ""
		if rapid.Bool().Draw(t, "logged") {
			quote = fmt.Sprintf("Estimated CUDA graph memory: %.2f GiB total / ", float64(cents)/100)
		}
		l, err := logs.ParseQuote(quote + "Available KV cache memory: 20.00 GiB")
		if err != nil {
			t.Fatal(err)
		}
		p := rf.Predict()
		n := unifiedGraphNote(l, p, &rf.Serve, a)
		charged := hostGraphEstimate(&rf.Serve, a)
		est, logged := l.First(logs.KindCUDAGraphEstimate)
		b, _ := est.Bytes()
		switch {
		case !unified:
			if n != "" {
				t.Fatalf("discrete class: note %q", n)
			}
		case logged && b < 0 && charged:
			for _, s := range []string{"less the non-KV memory plus " + engine.GiB(uint64(-b)), engine.GiB(budget.SatAdd(uint64(-b), p.GraphBytes)) + " of the available KV memory's gap"} {
				if !strings.Contains(n, s) {
					t.Fatalf("note %q lacks %q", n, s)
				}
			}
		case logged && b < 0:
			if !strings.Contains(n, "does not take the estimate off the KV cache") {
				t.Fatalf("note %q: want the estimate beside the KV cache", n)
			}
		case charged:
			if !strings.HasPrefix(n, "host-dependent graph estimate") {
				t.Fatalf("note %q: want the term named host-dependent", n)
			}
		default:
			if n != "" {
				t.Fatalf("estimate not charged, none negative logged: note %q", n)
			}
		}
	})
}
