package sglang

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"membudget"
	"membudget/model"
)

// observedSGLang is how each SGLang row of corpus/observed/vllm.csv is
// predicted: the shipped config and quantization that stand for its model,
// the class of its GPU, and the SGLang release of its date.
var observedSGLang = map[string]struct {
	config  string
	fp8     bool // the checkpoint is Qwen's block-fp8 recipe of the config
	class   string
	profile string
	note    string
}{
	// vllm-project/vllm#21348 (2025-07-22): between v0.4.9.post2
	// (2025-07-11) and v0.4.9.post3 (2025-07-22); the KV sizing of both is
	// the same.
	"4": {"Qwen__Qwen3-235B-A22B", true, "h100-sxm-80g", "v0.4.9.post2", "Qwen3-235B-A22B-FP8"},
}

// qwenFP8 is the checkpoint of Qwen's FP8 releases for a shipped config:
// the shipped config of the FP8 checkpoint where there is one
// (config-FP8), else the bf16 config with the quantization_config of
// Qwen's FP8 recipe as Qwen__Qwen3-30B-A3B-FP8.json has it (128x128 blocks;
// lm_head, the layer norms and the MoE routers left in bf16).
func qwenFP8(t *testing.T, config string) *model.Arch {
	t.Helper()
	if data, path, ok := membudget.ModelConfig(config + "-FP8"); ok {
		a, err := model.ParseConfig(path, data)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	data, path, ok := membudget.ModelConfig(config)
	if !ok {
		t.Fatalf("no shipped config %s", config)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	layers := int(m["num_hidden_layers"].(float64))
	skip := []string{"lm_head"}
	for i := range layers {
		for _, n := range []string{"input_layernorm", "mlp.gate", "post_attention_layernorm"} {
			skip = append(skip, fmt.Sprintf("model.layers.%d.%s", i, n))
		}
	}
	m["quantization_config"] = map[string]any{"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
		"weight_block_size": []int{128, 128}, "modules_to_not_convert": skip}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	a, err := model.ParseConfig(path+" (FP8)", data)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

var leadingNumber = regexp.MustCompile(`^[0-9][0-9,]*(\.[0-9]+)?`)

func number(field string) (float64, bool) {
	m := leadingNumber.FindString(strings.TrimSpace(field))
	if m == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m, ",", ""), 64)
	return v, err == nil
}

// The observed table's gate for the KV tokens predicted from the settings
// alone: what the model achieves on row 4 (+0.07 %), with little slack. It
// is not an independent check: the distributed-init estimate at TP4 was
// fitted to this row (see DistInitBytes).
const observedTokensGate = 0.001

// TestObserved predicts every SGLang row of corpus/observed/vllm.csv and
// prints the errors. Two checks per row: exact, that the logged token count
// and SGLang's cell give the logged K and V sizes (the cell, the GiB unit
// and the page_size padding rows); and the KV tokens from the settings
// alone, within the gate.
func TestObserved(t *testing.T) {
	f, err := os.Open("../../corpus/observed/vllm.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("corpus/observed/vllm.csv: %v", err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	rows := 0
	t.Logf("%-4s %-28s %-13s %-13s | %9s %9s %8s | %9s %9s | %s", "row", "model", "class", "sglang", "T pred", "T log", "err", "K pred", "K log", "notes")
	for _, rec := range recs[1:] {
		if rec[col["engine"]] != "sglang" {
			continue
		}
		id := rec[col["id"]]
		m, ok := observedSGLang[id]
		if !ok {
			t.Errorf("row %s: an SGLang row with no mapping in observedSGLang", id)
			continue
		}
		rows++
		a := shipped(t)[m.config]
		if m.fp8 {
			a = qwenFP8(t, m.config)
		}
		msf, _ := number(rec[col["gpu_mem_util"]])
		tp, _ := number(rec[col["tp"]])
		logged, _ := number(rec[col["kv_cache_tokens"]])
		kvGiB, _ := number(rec[col["kv_cache_gib"]])
		r := ref(t, a, Serve{MemFractionStatic: msf, TPSize: uint64(tp)}, class(t, m.class), mustProfile(m.profile))
		c := r.Capacity()

		// Exact: (#tokens + page_size) rows of every layer's K tensor.
		kLogged := float64((uint64(logged)+c.PageSize)*c.CellBytes/2) / gib
		kLine := fmt.Sprintf("%.2f", kLogged)
		if want := fmt.Sprintf("%.2f", kvGiB/2); kLine != want {
			t.Errorf("row %s: %d tokens of a %d-byte cell make K size %s GB; the log says %s", id, uint64(logged), c.CellBytes, kLine, want)
		}
		// From the settings alone.
		e := (float64(c.MaxTotalNumTokens) - logged) / logged
		kPred := fmt.Sprintf("%.2f", float64(c.KBytes)/gib)
		t.Logf("%-4s %-28.28s %-13s %-13s | %9d %9.0f %+7.3f%% | %9s %9s | %s (%s)", id, m.config, m.class, m.profile, c.MaxTotalNumTokens, logged, 100*e, kPred, kLine, m.note, a.Source)
		if math.Abs(e) > observedTokensGate {
			t.Errorf("row %s: %d tokens predicted, %.0f logged (%+.3f%%, over %.1f%%)", id, c.MaxTotalNumTokens, logged, 100*e, 100*observedTokensGate)
		}
	}
	if rows == 0 {
		t.Error("no SGLang row in corpus/observed/vllm.csv")
	}
}

// TestRow4ByHand walks row 4 (Qwen3-235B-A22B-FP8, 4x H100, msf 0.93) the
// way SGLang v0.4.9.post2 does, from the reference's own F0 and load, so
// that the arithmetic is checked apart from the estimates that feed it.
func TestRow4ByHand(t *testing.T) {
	r := ref(t, qwenFP8(t, "Qwen__Qwen3-235B-A22B"), Serve{MemFractionStatic: 0.93, TPSize: 4}, class(t, "h100-sxm-80g"), r049)
	c := r.Capacity()
	// F0: 85018542080 - 576 MiB (driver_fixed_bytes) - 1638 MiB (dist init
	// at TP4) = 82696994816 bytes.
	if c.F0Bytes != 85018542080-576*mib-1638*mib {
		t.Errorf("F0 %d, want %d", c.F0Bytes, 85018542080-576*mib-1638*mib)
	}
	// With 4 ranks F0 and F1 pass through float32 (an all-reduce MIN over a
	// float32 tensor), then rest = F1 - F0 x 0.07 in GiB, and T =
	// floor(rest x 2^30) // 48128.
	f0 := float64(float32(float64(c.F0Bytes)))
	f1 := float64(float32(float64(c.F0Bytes - c.LoadedBytes)))
	rest := f1/gib - f0/gib*(1-0.93)
	wantT := int64(math.Floor(rest*gib)) / 48128
	if c.CellBytes != 48128 || c.MaxTotalNumTokens != wantT {
		t.Errorf("cell %d, tokens %d; want 48128 and %d", c.CellBytes, c.MaxTotalNumTokens, wantT)
	}
	// max_num_reqs = min(max(int(T / 40960 x 512), 2048), 4096) = 4096 for
	// any T above 327680; max_running_requests = min(T // 2, 4096).
	if c.MaxNumReqs != 4096 || c.MaxRunningRequests != 4096 || c.MaxReqLen != 40959 {
		t.Errorf("max_num_reqs %d, max_running_requests %d, max_req_len %d; want 4096, 4096, 40959", c.MaxNumReqs, c.MaxRunningRequests, c.MaxReqLen)
	}
	// The pool's K tensors: (T + 1) rows x 1 head x 128 x 2 B x 94 layers.
	if c.KBytes != uint64(wantT+1)*128*2*94 || c.VBytes != c.KBytes {
		t.Errorf("K %d, V %d; want %d each", c.KBytes, c.VBytes, uint64(wantT+1)*128*2*94)
	}
	// The req_to_token table beside the pool: 4096 x (40960 + 4) x 4 B.
	for _, it := range r.stages[0].beside {
		if it.Name == "req_to_token" && it.Bytes != 4096*40964*4 {
			t.Errorf("req_to_token %d bytes, want %d", it.Bytes, 4096*40964*4)
		}
	}
}
