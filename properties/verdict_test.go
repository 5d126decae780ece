package properties

import (
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/enginetest"
	"membudget/engine/vllm"
)

// propFitsMeansVLLMStarts is issue 20's "a verdict that is never wrong":
// for generated models of every family, shipped classes and drawn serves,
// whenever a command says "fits" (exit 0) — the report at (s, t), max-seqs
// at a length, max-len at a number of sequences, each on the serve the
// command prints, the queries' serve sized again at vLLM's estimated
// length when --max-model-len was left to vLLM and vLLM refuses the
// model's — then
//
//   - vLLM's startup checks pass for the serve the printed line gives,
//     taken from its itemised Reference rather than the compiled plan
//     (one request of max_model_len fits the KV cache, the Mamba state
//     blocks hold max_num_seqs), and the Reference fits the point too;
//   - the printed line, read back, gives the same verdict at that point.
func propFitsMeansVLLMStarts(t *rapid.T) {
	m, c := enginetest.Generated(t)
	args := enginetest.ParallelArgs(t, "tensor-parallel-size", "pipeline-parallel-size")
	args = append(args, "--vllm-version", rapid.SampledFrom([]string{"main", "0.25.0", "0.19.0", "0.14.0", "0.8.5:v0"}).Draw(t, "version"),
		"--kv-cache-dtype", rapid.SampledFrom([]string{"auto", "fp8"}).Draw(t, "kv"),
		"--gpu-memory-utilization", rapid.SampledFrom([]string{"0.5", "0.8", "0.92", "0.97"}).Draw(t, "util"))
	gaveLen := rapid.Bool().Draw(t, "gave_max_model_len")
	if gaveLen {
		args = append(args, "--max-model-len", strconv.FormatUint(rapid.Uint64Range(1, min(lengthOf(m.Arch), 1<<20)).Draw(t, "max_model_len"), 10))
	}
	if rapid.Bool().Draw(t, "eager") {
		args = append(args, "--enforce-eager")
	}
	if rapid.IntRange(0, 2).Draw(t, "pin_kv") == 0 {
		// A small KV cache, so that vLLM often refuses the model's longest
		// length and the queries' way out is taken (the V0 profile refuses
		// the flag: a setting error, the contract's).
		args = append(args, "--kv-cache-memory-bytes", strconv.FormatUint(rapid.Uint64Range(1<<16, 1<<30).Draw(t, "kv_bytes"), 10))
	}
	sz, err := enginetest.Size(vllm.Engine{}, m, c, args)
	if err != nil {
		return // refusals are the contract's (TestContractOnGeneratedModels)
	}
	if starts, _ := sz.Starts(); !starts && !gaveLen {
		if e, ok := sz.(engine.LongestStarter).LongestStart(); ok {
			// The refusal's claim, "--max-model-len e or less starts", on
			// the printed line with that length.
			line := strings.Replace(sz.Command(), " --max-model-len "+strconv.FormatUint(sz.Len().Value, 10)+" ", " --max-model-len "+strconv.FormatUint(e, 10)+" ", 1)
			again, err := enginetest.ReadBack(vllm.Engine{}, enginetest.Case{Model: m, Class: c, Args: args}, line)
			if err != nil {
				t.Fatalf("%v", err)
			}
			if ok, why := again.Starts(); !ok && !again.(*vllm.Sizing).Capacity().Starts {
				t.Fatalf("the refusal says --max-model-len %d starts, and the line at it does not: %s\n%s", e, why, line)
			}
			// The queries' way out (cmd/membudget querycmd.go startAt): the
			// serve as given at that length (max-len), or at the length
			// asked within it (max-seqs); when that still refuses the
			// length, they answer the first refusal.
			target := e
			if rapid.Bool().Draw(t, "length_asked") {
				target = rapid.Uint64Range(1, e).Draw(t, "asked")
			}
			adjusted := append(slices.Clone(args), "--max-model-len", strconv.FormatUint(target, 10))
			if again, err := enginetest.Size(vllm.Engine{}, m, c, adjusted); err == nil && again.(*vllm.Sizing).Capacity().Starts {
				sz, args = again, adjusted
				adjustedChecked.Add(1)
			}
		}
	}
	starts, _ := sz.Starts()
	plan, seqsCap, lenCap := sz.Plan(), sz.Seqs().Value, sz.Len().Value
	type point struct {
		what string
		s, t uint64
	}
	var fits []point
	// report: the default point (1 sequence of the longest length) and a
	// drawn one.
	s := rapid.Uint64Range(1, seqsCap).Draw(t, "seqs")
	tok := rapid.Uint64Range(1, lenCap).Draw(t, "tokens")
	for _, p := range []point{{"report", 1, lenCap}, {"report", s, tok}} {
		if starts && plan.Evaluate(p.s, p.t).Fits() {
			fits = append(fits, p)
		}
	}
	// max-seqs at tok, max-len at s: "fits" is exit 0.
	if ans, err := budget.MaxSequences(plan, tok, seqsCap); err != nil {
		t.Fatalf("max-seqs at %d: %v", tok, err)
	} else if starts && ans.Fits {
		fits = append(fits, point{"max-seqs", ans.Value, tok})
	}
	if ans, err := budget.MaxLength(plan, s, lenCap); err != nil {
		t.Fatalf("max-len at %d: %v", s, err)
	} else if starts && ans.Fits {
		fits = append(fits, point{"max-len", s, ans.Value})
	}
	if len(fits) == 0 {
		return
	}
	verdictsChecked.Add(int64(len(fits)))
	line := sz.Command()
	again, err := enginetest.ReadBack(vllm.Engine{}, enginetest.Case{Model: m, Class: c, Args: args}, line)
	if err != nil {
		t.Fatalf("%v", err)
	}
	if ok, why := again.Starts(); !ok {
		t.Fatalf("the printed line does not start: %s\n%s", why, line)
	}
	ref, err := again.(*vllm.Sizing).Reference()
	if err != nil {
		t.Fatalf("the printed line's reference: %v\n%s", err, line)
	}
	if why := ref.Capacity().Refusal(ref.Serve.MaxModelLen, ref.Serve.MaxNumSeqs); why != "" {
		t.Fatalf("vLLM refuses the printed line (reference): %s\n%s", why, line)
	}
	for _, p := range fits {
		if !again.Plan().Evaluate(p.s, p.t).Fits() {
			t.Fatalf("%s says %d x %d fits; the printed line read back says it does not\n%s", p.what, p.s, p.t, line)
		}
		if f := ref.Evaluate(p.s, p.t).Footprint; !f.Fits() {
			t.Fatalf("%s says %d x %d fits; the reference of the printed line says %s\n%s", p.what, p.s, p.t, f.Failed, line)
		}
	}
}

// verdictsChecked counts the "fits" the property checked, so that a
// generator that stops reaching them fails the test rather than passing
// it vacuously.
var verdictsChecked atomic.Int64

// adjustedChecked counts the serves sized again at a length vLLM starts.
var adjustedChecked atomic.Int64

func TestFitsMeansVLLMStarts(t *testing.T) {
	rapid.Check(t, propFitsMeansVLLMStarts)
	t.Logf("%d fits verdicts checked against the printed line; %d serves sized again at a length vLLM starts", verdictsChecked.Load(), adjustedChecked.Load())
	if verdictsChecked.Load() == 0 {
		t.Error("no draw gave a serve that fits: the property checks nothing")
	}
}
