package vllm

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/engine"
)

// conformanceClasses maps the table's device families to a shipped class of
// that silicon: the KV planner depends on the device only through the
// attention backend, which the compute capability picks.
var conformanceClasses = map[string]string{
	"sm90":  "h100-sxm-80g",
	"sm100": "b200",
}

// conformanceRow is one case of corpus/conformance/vllm-kv.csv: the inputs
// vLLM's planner was run on and what it made of them.
type conformanceRow struct {
	line int
	in   map[string]string
}

func readConformance(t *testing.T, path string) []conformanceRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var rows []conformanceRow
	for i, rec := range recs[1:] {
		m := map[string]string{}
		for j, h := range recs[0] {
			m[h] = rec[j]
		}
		rows = append(rows, conformanceRow{line: i + 2, in: m})
	}
	return rows
}

func (r conformanceRow) uint(t *testing.T, key string) uint64 {
	t.Helper()
	v, err := strconv.ParseUint(r.in[key], 10, 64)
	if err != nil {
		t.Fatalf("line %d: %s: %v", r.line, key, err)
	}
	return v
}

// conformanceResult is the table's output columns, as strings so that an
// empty column (a serve that does not start has no blocks) compares as it
// is written.
type conformanceResult struct {
	BlockSize, PageBytes, Groups, Blocks, LoggedTokens, Concurrency, Starts, EstimatedMaxModelLen string
}

// TestConformanceWithVLLMPlanner runs every case of the table computed by
// vLLM's own KV planner code (vllm/v1/core/kv_cache_utils.py at main,
// commit d18bb7b: get_kv_cache_configs, get_kv_cache_capacity,
// _estimate_max_model_len_from_groups) with --kv-cache-memory-bytes
// semantics, and requires exact agreement on every column.
func TestConformanceWithVLLMPlanner(t *testing.T) {
	archs := shipped(t)
	catalog := membudget.Kernels()
	checked, refusedAtConstruction := 0, 0
	for _, path := range []string{"../../corpus/conformance/vllm-kv.csv", "../../corpus/conformance/membudget-kv.csv"} {
		for _, row := range readConformance(t, path) {
			in := row.in
			name := fmt.Sprintf("%s:%d", path[strings.LastIndex(path, "/")+1:], row.line)
			a, ok := archs[strings.TrimSuffix(in["config"], ".json")]
			if !ok {
				t.Fatalf("%s: no shipped config %s", name, in["config"])
			}
			c, err := catalog.Load(conformanceClasses[in["device_family"]])
			if err != nil {
				t.Fatalf("%s: device family %q: %v", name, in["device_family"], err)
			}
			s := Serve{
				KVCacheMemoryBytes:  row.uint(t, "kv_cache_memory_bytes"),
				TensorParallelSize:  row.uint(t, "tensor_parallel_size"),
				KVCacheDtype:        in["kv_cache_dtype"],
				MaxModelLen:         row.uint(t, "max_model_len"),
				MaxNumBatchedTokens: row.uint(t, "max_num_batched_tokens"),
				// The planner was run on the configs as given: a
				// max_model_len above a config's limit was not refused.
				AllowLongMaxModelLen: true,
				AsyncScheduling:      engine.Off,
			}
			if in["async_scheduling"] == "true" {
				s.AsyncScheduling = engine.On
			}
			if pp, ok := in["pipeline_parallel_size"]; ok && pp != "" {
				s.PipelineParallelSize = row.uint(t, "pipeline_parallel_size")
			}
			if bs, ok := in["block_size"]; ok && bs != "" {
				s.BlockSize = row.uint(t, "block_size")
			}
			r, err := NewReference(a, s, c, current)
			if err != nil {
				// The table ran vLLM's planner alone; a TP that vLLM's
				// model construction refuses (QKVParallelLinear cannot divide
				// phi-4's 10 KV heads among 4 ranks) is refused here too, and
				// its planner columns are checked without that check.
				var se *engine.SettingError
				if !errors.As(err, &se) || !strings.Contains(se.Reason, "KV heads") {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if r, err = newReference(a, s, c, current, false); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				refusedAtConstruction++
			}
			plan := r.Plan()
			cp := r.Capacity()
			got := conformanceResult{
				BlockSize:   fmt.Sprint(r.Serve.BlockSize),
				PageBytes:   fmt.Sprint(plan.Stages[0].Pool.PageBytes),
				Starts:      strconv.FormatBool(cp.Starts),
				Groups:      groupNames(a, r.groups),
				Blocks:      fmt.Sprint(cp.Blocks),
				Concurrency: fmt.Sprintf("%.4f", cp.Concurrency),
			}
			got.LoggedTokens = fmt.Sprint(cp.LoggedTokens)
			if !cp.Starts {
				got.Groups, got.Blocks, got.LoggedTokens, got.Concurrency = "", "", "", ""
				got.EstimatedMaxModelLen = fmt.Sprint(cp.EstimatedMaxModelLen)
			}
			want := conformanceResult{
				BlockSize: in["vllm_block_size"], PageBytes: in["layer_page_bytes"], Groups: in["groups"], Blocks: in["num_blocks"],
				LoggedTokens: in["gpu_kv_cache_size_tokens"], Concurrency: in["max_concurrency"], Starts: in["starts"],
				EstimatedMaxModelLen: in["estimated_max_model_len"],
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: %s tp %s kv %s len %s mnbt %s async %s %s, %s bytes (-vllm +membudget):\n%s", name, in["config"], in["tensor_parallel_size"],
					in["kv_cache_dtype"], in["max_model_len"], in["max_num_batched_tokens"], in["async_scheduling"], in["device_family"], in["kv_cache_memory_bytes"], diff)
			}
			checked++
		}
	}
	if checked < 344 {
		t.Errorf("%d cases checked, want every row (at least 344)", checked)
	}
	t.Logf("%d cases agree with vLLM's planner on every column (%d of them refused by vLLM's model construction)", checked, refusedAtConstruction)
}
