package properties

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/model"
)

// mathFloat64frombits decodes the corpus format's float64 bit patterns.
var mathFloat64frombits = math.Float64frombits

func checkClass(t *testing.T, doc string) {
	c, err := budget.ParseClass("fuzz", "fuzz/HARDWARE.toml", doc)
	if err != nil {
		return
	}
	m := c.Memory
	if m.DriverBudgetPerMille > 1000 || !(m.UtilCeiling > 0 && m.UtilCeiling <= 1) {
		t.Fatalf("accepted terms outside the seed's bounds: %+v", m)
	}
	b := c.CeilingBytes()
	if budget.SatAdd(b, m.Bytes(b, 0)) > c.Device.MemoryBytes {
		t.Fatalf("accepted a class that cannot run at its ceiling: %+v", c)
	}
	if c.Device.MemoryBytes < budget.MinMemoryBytes || c.Device.MemoryBytes > budget.MaxMemoryBytes {
		t.Fatalf("accepted a memory no device has: %d", c.Device.MemoryBytes)
	}
}

// FuzzParseClass: any HARDWARE.toml text parses to a class that keeps the
// seed's bounds and runs at its own ceiling, or is an error; seeded with
// every shipped class.
func FuzzParseClass(f *testing.F) {
	for _, data := range readAll(f, "../kernels/*/HARDWARE.toml") {
		f.Add(string(data))
	}
	addCorpus(f, "FuzzParseClass", checkClass)
	f.Fuzz(checkClass)
}

// readAll reads every file matching glob; none matching is a failure, so
// that a moved folder cannot silently drop the seeds.
func readAll(f *testing.F, glob string) [][]byte {
	f.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		f.Fatalf("%s: no files (%v)", glob, err)
	}
	var out [][]byte
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

var bigClass = budget.Class{Name: "big", Device: budget.Device{Name: "Big GPU", Silicon: budget.Silicon{Vendor: budget.NVIDIA, Major: 9}, MemoryBytes: 1 << 40, Interconnect: budget.NVLink},
	Memory: budget.DriverTerms{DriverFixedBytes: 1 << 29, DriverBudgetPerMille: 2, UtilCeiling: 1}}

func checkConfig(t *testing.T, data []byte) {
	a, err := model.ParseConfig("fuzz.json", data)
	if errors.Is(err, model.ErrUnknownModelType) {
		// A model_type with no family may be a generic decoder.
		a, err = model.ParseGeneric("fuzz.json", data)
	}
	if err != nil {
		return
	}
	ref, err := vllm.NewReference(a, vllm.Serve{MaxModelLen: min(a.MaxPosition, 1<<16)}, bigClass, current)
	if err != nil {
		return
	}
	plan := ref.Plan()
	for _, p := range [][2]uint64{{0, 0}, {1, 1}, {3, ref.Serve.MaxModelLen}} {
		if diff := cmp.Diff(ref.Evaluate(p[0], p[1]).Footprint, plan.Evaluate(p[0], p[1])); diff != "" {
			t.Fatalf("Plan != Reference at %v (-ref +plan):\n%s", p, diff)
		}
	}
}

// FuzzParseConfig: any bytes parse to an architecture (a family's or a
// generic decoder's) or an error; an
// architecture that compiles gives a Plan equal to its Reference. Seeded
// with every real config in corpus/models.
func FuzzParseConfig(f *testing.F) {
	for _, data := range readAll(f, "../corpus/models/*.json") {
		f.Add(data)
	}
	addCorpus(f, "FuzzParseConfig", checkConfig)
	f.Fuzz(checkConfig)
}

func fuzzArch(t *testing.T) (*model.Arch, budget.Class) {
	data, path, ok := membudget.ModelConfig("meta-llama__Llama-3.1-8B-Instruct")
	if !ok {
		t.Fatal("no shipped Llama-3.1-8B config")
	}
	a, err := model.ParseConfig(path, data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		t.Fatal(err)
	}
	return a, c
}

func checkServe(t *testing.T, util float64, maxLen, seqs, batched, block, tp, pp, kvBytes uint64, kvDtype, dtype, quant string, eager bool, offload float64) {
	a, c := fuzzArch(t)
	s := vllm.Serve{GPUMemoryUtilization: util, MaxModelLen: maxLen, MaxNumSeqs: seqs, MaxNumBatchedTokens: batched,
		BlockSize: block, TensorParallelSize: tp, PipelineParallelSize: pp, KVCacheMemoryBytes: kvBytes, KVCacheDtype: kvDtype,
		Dtype: dtype, Quantization: quant, EnforceEager: eager, CPUOffloadGiB: offload}
	ref, err := vllm.NewReference(a, s, c, current)
	if err != nil {
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag == "" {
			t.Fatalf("a refused serve's error names no flag: %v", err)
		}
		return
	}
	r := ref.Serve
	if r.GPUMemoryUtilization <= 0 || r.GPUMemoryUtilization > 1 || r.MaxModelLen > lengthOf(a) ||
		r.MaxNumBatchedTokens < r.MaxNumSeqs || r.BlockSize == 0 || r.BlockSize%16 != 0 || r.TensorParallelSize == 0 ||
		r.PipelineParallelSize == 0 || r.KVCacheMemoryBytes > c.Device.MemoryBytes {
		t.Fatalf("accepted an invalid serve: %+v", r)
	}
	plan := ref.Plan()
	for _, p := range [][2]uint64{{1, 1}, {r.MaxNumSeqs, r.MaxModelLen}} {
		if diff := cmp.Diff(ref.Evaluate(p[0], p[1]).Footprint, plan.Evaluate(p[0], p[1])); diff != "" {
			t.Fatalf("Plan != Reference at %v (-ref +plan):\n%s", p, diff)
		}
	}
}

// FuzzServe: any serve flags either are refused with an error or resolve to
// settings vLLM accepts, whose Plan equals the Reference.
func FuzzServe(f *testing.F) {
	addCorpus(f, "FuzzServe", checkServe)
	f.Fuzz(checkServe)
}

func checkQueries(t *testing.T, device, budgetBytes, fixed, weights, pageBytes, tensors, pageTokens, capTokens, extra, maxSeqs, maxLen, x uint64) {
	if tensors > 1<<16 || maxSeqs > 1<<20 || maxLen > 1<<24 || maxSeqs == 0 || maxLen == 0 {
		return // beyond any serve: keeps each run fast
	}
	p := &budget.Plan{Device: device, Driver: budget.DriverTerms{DriverFixedBytes: fixed, DriverBudgetPerMille: 2, UtilCeiling: 1},
		Stages: []budget.Stage{{
			Budget: budgetBytes,
			Fixed:  [budget.NumTerms]uint64{budget.TermWeights: weights},
			Pool:   budget.PagedPool{Tensors: tensors, PageBytes: pageBytes, Groups: []budget.PageGroup{{Count: 1, PageTokens: max(pageTokens, 1), CapTokens: max(capTokens, 1), ExtraPages: extra}}},
		}},
		MaxSeqs: maxSeqs, MaxLen: maxLen}
	for _, q := range []struct {
		ans  func() (budget.Answer, error)
		eval func(uint64) budget.Footprint
		cap  uint64
	}{
		{func() (budget.Answer, error) { return budget.MaxSequences(p, max(x%(maxLen+1), 1), 0) }, func(s uint64) budget.Footprint { return p.Evaluate(s, max(x%(maxLen+1), 1)) }, maxSeqs},
		{func() (budget.Answer, error) { return budget.MaxLength(p, max(x%(maxSeqs+1), 1), 0) }, func(l uint64) budget.Footprint { return p.Evaluate(max(x%(maxSeqs+1), 1), l) }, maxLen},
	} {
		// The arguments are in range, so every error is a failure: above
		// all a *budget.MonotonicityError, which a plan never gives.
		ans, err := q.ans()
		if err != nil {
			t.Fatalf("query failed: %v", err)
		}
		if !ans.Fits {
			if q.eval(1).Fits() {
				t.Fatalf("nothing fits, yet 1 does")
			}
			continue
		}
		if !q.eval(ans.Value).Fits() {
			t.Fatalf("answer %d does not fit", ans.Value)
		}
		if ans.Capped != (ans.Value == q.cap) || (!ans.Capped && q.eval(ans.Value+1).Fits()) {
			t.Fatalf("answer %d (capped %v, cap %d): the next value fits", ans.Value, ans.Capped, q.cap)
		}
	}
}

// FuzzQueries: on arbitrary plans, the verified queries answer only what
// they checked: the answer fits and the next value does not, or is the cap.
func FuzzQueries(f *testing.F) {
	addCorpus(f, "FuzzQueries", checkQueries)
	f.Fuzz(checkQueries)
}

// FuzzPlanEqualsReference runs the Plan == Reference property under the
// fuzzer's coverage guidance.
func FuzzPlanEqualsReference(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(propPlanEqualsReference))
}
