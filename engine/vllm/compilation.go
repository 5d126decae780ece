package vllm

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file sizes the compilation and CUDA-graph settings of a serve: -O
// (--optimization-level), --compilation-config's cudagraph_mode,
// cudagraph_capture_sizes, max_cudagraph_capture_size and mode, the
// --cudagraph-capture-sizes and --max-cudagraph-capture-size flags, and
// --num-gpu-blocks-override. Every rule is vLLM main's at commit d18bb7b
// (2026-08-14) unless it names a release.

// Compilation is a serve's compilation settings under vLLM's names. Its
// zero value is vLLM's default. It is kept comparable, as [Serve] is: the
// capture sizes are the list as given, separated by spaces.
type Compilation struct {
	// Level is -O / --optimization-level: "0" to "3", "" for vLLM's
	// default (O2 from PR #26847; before it -O was
	// --compilation-config's compilation level, whose default on V1 is 3).
	Level string
	// GraphMode is --compilation-config's cudagraph_mode, upper-case: NONE,
	// PIECEWISE, FULL, FULL_DECODE_ONLY or FULL_AND_PIECEWISE; "" takes the
	// level's.
	GraphMode string
	// Mode is --compilation-config's mode (the compilation mode, 0 to 3),
	// as its digit; "" takes the level's. OldLevelKey says it came as the
	// deprecated key "level" (or -O.level).
	Mode        string
	OldLevelKey bool
	// SizesKey is --compilation-config's cudagraph_capture_sizes and
	// SizesFlag --cudagraph-capture-sizes, each as given ("1 2 4"); vLLM
	// takes one or the other.
	SizesKey, SizesFlag string
	// MaxKey is --compilation-config's max_cudagraph_capture_size and
	// MaxFlag --max-cudagraph-capture-size; vLLM takes one or the other.
	MaxKey, MaxFlag uint64
}

// Given reports whether any setting of c was given.
func (c Compilation) Given() bool {
	return c.Level != "" || c.GraphMode != "" || c.Mode != "" || c.SizesKey != "" || c.SizesFlag != "" || c.MaxKey != 0 || c.MaxFlag != 0
}

// compilationSince is the first release whose compilation settings
// membudget sizes: -O is --optimization-level from PR #29557 (2025-11-28)
// with its levels' defaults (PR #26847, 2025-11-27), -O.level is gone
// (PR #29991, 2025-12-05), and _set_cudagraph_sizes is main's but for
// the two changes graphSizes dates (PRs #40734 and #49390): 0.14.0 is the
// first release surely after all three. Before it the settings are
// refused unless they are the release's default.
var compilationSince = v0_14_0

// batchedTokensCaptured is the first release that captures
// max_num_batched_tokens when it is off the default stride but within the
// largest size ("ensure max_num_tokens is captured", vllm/config/vllm.py:
// 1982-1988; PR #40734, merged 2026-04-29): 0.22.0 is the first surely
// after it (PR #39337 of 2026-05-14 dates it).
var batchedTokensCaptured = v0_22_0

// overrideSince is the first release whose --num-gpu-blocks-override
// membudget sizes: from PR #41069 (2026-04-28, in v0.20.2rc1 on main: see
// v0_20_2, which dates the logged KV cache size by the same PR) the
// startup check and --max-model-len auto plan against the override's
// blocks (vllm/v1/core/kv_cache_utils.py:2162-2182); before it the check
// read the profiled memory while the cache held the override's blocks.
var overrideSince = v0_20_2

// The CUDA-graph modes (vllm/config/compilation.py:53-63, CUDAGraphMode).
const (
	graphsNone             = "NONE"
	graphsPiecewise        = "PIECEWISE"
	graphsFull             = "FULL"
	graphsFullDecodeOnly   = "FULL_DECODE_ONLY"
	graphsFullAndPiecewise = "FULL_AND_PIECEWISE"
)

// graphModes are the names cudagraph_mode takes (CUDAGraphMode[value.upper()],
// vllm/config/compilation.py:866-871).
var graphModes = []string{graphsNone, graphsPiecewise, graphsFull, graphsFullDecodeOnly, graphsFullAndPiecewise}

// compileModes are CompilationMode's names by value
// (vllm/config/compilation.py:37-50); mode takes either.
var compileModes = []string{"NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE", "VLLM_COMPILE"}

// vllmCompile is CompilationMode.VLLM_COMPILE, the only mode that compiles
// piecewise.
const vllmCompile = "3"

// stockTorchCompile is CompilationMode.STOCK_TORCH_COMPILE, which the V2
// model runner does not support ([Resolved.resolveV2Features]).
const stockTorchCompile = "1"

// levelGraphModes is each -O level's cudagraph_mode (OPTIMIZATION_LEVEL_00
// to _03, vllm/config/vllm.py:234, 257, 280, 303); level 0 also sets the
// compilation mode to NONE (vllm/config/vllm.py:1378-1382).
var levelGraphModes = map[string]string{"0": graphsNone, "1": graphsPiecewise, "2": graphsFullAndPiecewise, "3": graphsFullAndPiecewise}

// neutralCompilationKeys are --compilation-config's keys that change no
// memory: where Inductor's artefacts and debug dumps go, their format,
// and the warm-up runs before a capture (vllm/config/compilation.py:
// 461-475, 643-647).
var neutralCompilationKeys = []string{"cache_dir", "compile_cache_save_format", "cudagraph_num_of_warmups", "debug_dump_path"}

// refusedCompilationKeys are --compilation-config's other keys, each with
// the memory it would change (vllm/config/compilation.py:447-717).
var refusedCompilationKeys = map[string]string{
	"backend":                                      "a compilation backend other than Inductor (which graphs can be split and captured)",
	"custom_ops":                                   "custom ops switched on or off (the forward pass's kernels and their activations)",
	"ir_enable_torch_wrap":                         "the IR ops' torch wrapping (the forward pass's kernels)",
	"splitting_ops":                                "the ops the graph splits at (which CUDA-graph modes can be captured)",
	"compile_mm_encoder":                           "the multimodal encoder compiled (its activations)",
	"cudagraph_mm_encoder":                         "the multimodal encoder's CUDA graphs",
	"compile_sizes":                                "Inductor kernels compiled for fixed sizes",
	"compile_ranges_endpoints":                     "Inductor kernels compiled for ranges of sizes",
	"inductor_compile_config":                      "Inductor's own settings (its kernels' workspaces)",
	"inductor_passes":                              "custom Inductor passes",
	"cudagraph_copy_inputs":                        "copies of the CUDA graphs' inputs",
	"cudagraph_specialize_lora":                    "the CUDA graphs captured with and without LoRA adapters",
	"use_inductor_graph_partition":                 "Inductor's graph partition (which graphs are captured)",
	"pass_config":                                  "fusion passes (sequence parallelism drops the capture sizes not a multiple of the TP size)",
	"dynamic_shapes_config":                        "dynamic shapes' guards",
	"fast_moe_cold_start":                          "the MoE layers' cold start",
	"encoder_cudagraph_token_budgets":              "the encoder's CUDA graphs",
	"encoder_cudagraph_max_vision_items_per_batch": "the encoder's CUDA graphs",
	"encoder_cudagraph_max_frames_per_batch":       "the encoder's CUDA graphs",
}

// compilationFlags are the flags registerCompilation registers: a request
// that names one registers them all.
var compilationFlags = []string{"compilation-config", "cc", "optimization-level", "cudagraph-capture-sizes", "max-cudagraph-capture-size"}

// compilationConfigFlag is --compilation-config (-cc): a JSON object whose
// keys are merged into the serve's, key by key, so that the dotted forms
// (-cc.cudagraph_mode=FULL, which Respell writes as objects) add up.
type compilationConfigFlag struct {
	c *Compilation
	// listed collects the keys that change no memory, listed as ignored.
	listed *[]string
}

func (f *compilationConfigFlag) String() string { return "" }

func (f *compilationConfigFlag) Set(s string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return fmt.Errorf("want a JSON object, as vLLM reads it: %v", err)
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		if slices.Contains(neutralCompilationKeys, k) {
			*f.listed = append(*f.listed, fmt.Sprintf("--compilation-config.%s %s", k, m[k]))
			continue
		}
		if err := f.c.setKey(k, m[k]); err != nil {
			return err
		}
	}
	return nil
}

// setKey sets one key of --compilation-config.
func (c *Compilation) setKey(k string, raw json.RawMessage) error {
	switch k {
	case "cudagraph_mode":
		mode, err := graphModeOf(raw)
		if err != nil {
			return fmt.Errorf("cudagraph_mode: %v", err)
		}
		c.GraphMode = mode
	case "mode", "level":
		mode, err := compileModeOf(raw)
		if err != nil {
			return fmt.Errorf("%s: %v", k, err)
		}
		c.Mode, c.OldLevelKey = mode, k == "level"
	case "cudagraph_capture_sizes":
		var sizes []int64
		if err := json.Unmarshal(raw, &sizes); err != nil {
			return fmt.Errorf("cudagraph_capture_sizes: want a list of integers: %v", err)
		}
		out, err := sizesString(sizes)
		if err != nil {
			return fmt.Errorf("cudagraph_capture_sizes: %v", err)
		}
		c.SizesKey = out
	case "max_cudagraph_capture_size":
		n, err := captureSizeOf(raw)
		if err != nil {
			return fmt.Errorf("max_cudagraph_capture_size: %v", err)
		}
		c.MaxKey = n
	default:
		if what, ok := refusedCompilationKeys[k]; ok {
			return &keyRefusal{key: k, what: what}
		}
		return fmt.Errorf("key %q is not a key of vLLM's CompilationConfig membudget knows (vllm/config/compilation.py)", k)
	}
	return nil
}

// keyRefusal is a key of --compilation-config membudget refuses, with
// what it would change.
type keyRefusal struct{ key, what string }

func (e *keyRefusal) Error() string {
	return fmt.Sprintf("key %q: %s: not modelled; membudget refuses it rather than size a serve vLLM would contradict", e.key, e.what)
}

// judgeCompilation judges the value of compilation flag name (one of
// compilationFlags) given as asGiven to release p's vLLM, as its flag
// would read it, so that a refusal names the flag, the key and the
// release.
func judgeCompilation(p Profile, name, asGiven, value string) error {
	if name != "compilation-config" {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		registerCompilation(fs, &Compilation{}, new([]string))
		if err := fs.Lookup(name).Value.Set(value); err != nil {
			return fmt.Errorf("%s: %v", asGiven, err)
		}
		return nil
	}
	if err := checkJSON(value); err != nil {
		return fmt.Errorf("%s: want JSON, as vLLM reads it: %v", asGiven, err)
	}
	err := (&compilationConfigFlag{c: &Compilation{}, listed: new([]string)}).Set(value)
	var kr *keyRefusal
	if errors.As(err, &kr) {
		return fmt.Errorf("%s: key %q: %s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", asGiven, kr.key, kr.what, p.Describes)
	}
	if err != nil {
		return fmt.Errorf("%s: %v", asGiven, err)
	}
	return nil
}

// graphModeOf reads cudagraph_mode: a name in any case, or CUDAGraphMode's
// value 0, 1 or 2 (NONE, PIECEWISE, FULL).
func graphModeOf(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		up := strings.ToUpper(strings.TrimSpace(s))
		if slices.Contains(graphModes, up) {
			return up, nil
		}
		return "", fmt.Errorf("%q is not one of %s", s, strings.Join(graphModes, ", "))
	}
	var n int
	if json.Unmarshal(raw, &n) == nil && n >= 0 && n <= 2 {
		return graphModes[n], nil
	}
	return "", fmt.Errorf("%s is not one of %s", raw, strings.Join(graphModes, ", "))
}

// compileModeOf reads mode: 0 to 3, or CompilationMode's name in any case
// (validate_mode_before, vllm/config/compilation.py:843-861).
func compileModeOf(raw json.RawMessage) (string, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if i := slices.Index(compileModes, strings.ToUpper(strings.TrimSpace(s))); i >= 0 {
			return strconv.Itoa(i), nil
		}
		return "", fmt.Errorf("%q is not one of %s", s, strings.Join(compileModes, ", "))
	}
	var n int
	if json.Unmarshal(raw, &n) == nil && n >= 0 && n <= 3 {
		return strconv.Itoa(n), nil
	}
	return "", fmt.Errorf("%s is not a compilation mode 0 to 3", raw)
}

// maxCaptureSetting bounds a capture size far above any batch vLLM takes
// (max_num_batched_tokens is at most maxBatchedTokens).
const maxCaptureSetting = maxBatchedTokens

// captureSizeOf reads one capture size: a positive integer.
func captureSizeOf(raw json.RawMessage) (uint64, error) {
	var n int64
	if err := json.Unmarshal(raw, &n); err != nil || n < 1 || n > maxCaptureSetting {
		return 0, fmt.Errorf("%s is not a batch size from 1 to %d", raw, maxCaptureSetting)
	}
	return uint64(n), nil
}

// sizesString is a list of capture sizes as membudget keeps it: each
// checked, in the order given, separated by spaces.
func sizesString(sizes []int64) (string, error) {
	if len(sizes) == 0 {
		// vllm/config/vllm.py:1960-1963: "cudagraph_capture_sizes should
		// contain at least one element when using cuda graph".
		return "", fmt.Errorf("vLLM stops at startup: the list must hold at least one size")
	}
	if len(sizes) > 4096 {
		return "", fmt.Errorf("%d sizes: membudget reads at most 4096", len(sizes))
	}
	parts := make([]string, len(sizes))
	for i, n := range sizes {
		if n < 1 || n > maxCaptureSetting {
			return "", fmt.Errorf("%d is not a batch size from 1 to %d", n, maxCaptureSetting)
		}
		parts[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(parts, " "), nil
}

// parseSizes reads a list sizesString wrote.
func parseSizes(s string) []uint64 {
	var out []uint64
	for _, f := range strings.Fields(s) {
		if n, err := strconv.ParseUint(f, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// sizesFlag is --cudagraph-capture-sizes: argparse's nargs="+" of ints,
// which Respell joins into one argument.
type sizesFlag struct{ v *string }

func (f sizesFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f sizesFlag) Set(s string) error {
	var sizes []int64
	for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' }) {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not an integer", p)
		}
		sizes = append(sizes, n)
	}
	out, err := sizesString(sizes)
	if err != nil {
		return err
	}
	*f.v = out
	return nil
}

// levelFlag is -O / --optimization-level: 0 to 3, or O0 to O3.
type levelFlag struct{ v *string }

func (f levelFlag) String() string {
	if f.v == nil {
		return ""
	}
	return *f.v
}

func (f levelFlag) Set(s string) error {
	v := strings.TrimPrefix(strings.ToUpper(strings.TrimSpace(s)), "O")
	if _, ok := levelGraphModes[v]; !ok {
		return fmt.Errorf("%q is not an optimization level 0, 1, 2 or 3", s)
	}
	*f.v = v
	return nil
}

// registerCompilation registers the compilation flags on fs.
func registerCompilation(fs *flag.FlagSet, c *Compilation, listed *[]string) {
	cc := &compilationConfigFlag{c, listed}
	fs.Var(cc, "compilation-config", "vLLM's --compilation-config (-cc), JSON: cudagraph_mode, cudagraph_capture_sizes, max_cudagraph_capture_size and mode are sized (vLLM 0.14.0 on); keys that change no memory are listed; others are refused by name")
	fs.Var(cc, "cc", "vLLM's -cc: --compilation-config")
	fs.Var(levelFlag{&c.Level}, "optimization-level", "vLLM's -O / --optimization-level 0-3: 0 captures no CUDA graphs, 1 PIECEWISE, 2 and 3 FULL_AND_PIECEWISE (default 2)")
	fs.Var(sizesFlag{&c.SizesFlag}, "cudagraph-capture-sizes", "vLLM's --cudagraph-capture-sizes N ...: the CUDA-graph batch sizes (default: 1, 2, 4, every 8 to 256, every 16 to the largest)")
	fs.Var(&sizeFlag{&c.MaxFlag, "max-cudagraph-capture-size"}, "max-cudagraph-capture-size", "vLLM's --max-cudagraph-capture-size: the largest CUDA-graph batch (default min(2 x max-num-seqs, 512; 1024 on data-centre Blackwell))")
}

// Graphs is the CUDA graphs a serve captures, as vLLM resolves them.
type Graphs struct {
	// Mode is the cudagraph_mode captured (NONE: no graphs).
	Mode string
	// Sizes is cudagraph_capture_sizes as vLLM resolves it, ascending.
	Sizes []uint64
	// MaxNumSeqs bounds the decode sizes of the FULL decode graphs.
	MaxNumSeqs uint64
	// FullAsBoth says a FULL mode is charged as FULL_AND_PIECEWISE (see
	// [Resolved.resolveGraphs]).
	FullAsBoth bool
	// OffForDeepEPHT says vLLM turned the graphs off for
	// deepep_high_throughput under data parallelism (see
	// [Resolved.deepepHTGraphsOff]): Mode is NONE, the mode asked is lost.
	OffForDeepEPHT bool
	// DecodeQuery is a decode step's tokens a request, 1 + k under
	// speculative decoding (specQueryLen; 0 reads as 1): the FULL decode
	// graphs are the sizes from it to it x MaxNumSeqs.
	DecodeQuery uint64
	// DecodeRounded says the FULL decode graphs are each size rounded up
	// to a multiple of DecodeQuery, the sizes themselves unrounded (the
	// mixed graphs keep them): the V2 model runner's way, where the V1
	// runner rounds the sizes (specSizes). See [Graphs.decodeGraphs].
	DecodeRounded bool
}

// counts is the graphs captured per size list: the sizes of the mixed
// batches (PIECEWISE or FULL) and the FULL decode graphs (see
// [Graphs.decodeGraphs]).
func (g Graphs) counts() (mixed, decode uint64) {
	mixed, decode, _ = g.captured()
	return mixed, decode
}

// captured is counts with the largest batch captured (0 for none): the
// last of the sizes when any mixed graph is captured (mixed is then all of
// them, and no decode graph is larger than the largest size), else the
// largest decode graph. The decode graphs are worked out only where the
// mode captures them, once: every stage of every compile asks
// (graphBytes).
func (g Graphs) captured() (mixed, decode, largest uint64) {
	all := uint64(len(g.Sizes))
	withDecode := false
	switch g.Mode {
	case graphsPiecewise:
		mixed = all
	case graphsFull:
		mixed, withDecode = all, g.FullAsBoth
	case graphsFullDecodeOnly:
		withDecode = true
	case graphsFullAndPiecewise:
		mixed, withDecode = all, true
	}
	if withDecode {
		decode, largest = g.decodeGraphs()
	}
	if mixed > 0 {
		largest = g.Sizes[mixed-1]
	}
	return mixed, decode, largest
}

// decodeGraphs is the FULL decode graphs a mode with a decode routine
// captures, and the tokens of the largest. On the V1 runner they are the
// sizes up to q x MaxNumSeqs, q = DecodeQuery (vllm/v1/cudagraph_dispatcher.py:
// 188-231): every size is q or more (a size is 1 or more, and specSizes
// rounds each to a multiple of q where DecodeQuery is set), so they are the
// ascending sizes' prefix. On the V2 runner (DecodeRounded) each size s
// gives a graph of round_up(s, q) tokens, kept when that is at most
// q x MaxNumSeqs and max_cudagraph_capture_size (the largest size), once
// each (CudaGraphManager._init_candidates, vllm/v1/worker/gpu/
// cudagraph_utils.py:173-283 at d18bb7b: its uniform-decode branch; the
// varlen branch serves adaptive verification and the per-batch-size query
// lengths dynamic speculative decoding, keys of --speculative-config
// membudget refuses). Without speculative decoding (q = 1) both are the
// sizes up to MaxNumSeqs.
func (g Graphs) decodeGraphs() (n, largest uint64) {
	if len(g.Sizes) == 0 {
		return 0, 0
	}
	q := max(g.DecodeQuery, 1)
	limit := budget.SatMul(q, g.MaxNumSeqs)
	if !g.DecodeRounded || q == 1 {
		k, found := slices.BinarySearch(g.Sizes, limit)
		if found {
			k++
		}
		if k == 0 {
			return 0, 0
		}
		return uint64(k), g.Sizes[k-1]
	}
	limit = min(limit, g.Sizes[len(g.Sizes)-1])
	for _, s := range g.Sizes {
		// round_up is monotone over the ascending sizes: the graphs are
		// the distinct values up to the first above the limit.
		t := budget.RoundUp(s, q)
		if t > limit {
			break
		}
		if t != largest {
			n, largest = n+1, t
		}
	}
	return n, largest
}

// Largest is the largest batch captured, 0 for none.
func (g Graphs) Largest() uint64 {
	_, _, largest := g.captured()
	return largest
}

// None says no graph is captured.
func (g Graphs) None() bool {
	mixed, decode := g.counts()
	return mixed+decode == 0
}

// FullDecode says decode batches run in FULL graphs (the mode's decode
// mode is FULL: vllm/config/compilation.py:65-67).
func (g Graphs) FullDecode() bool {
	return g.Mode == graphsFull || g.Mode == graphsFullDecodeOnly || g.Mode == graphsFullAndPiecewise
}

// String is the graphs as the ledger names them.
func (g Graphs) String() string {
	mixed, decode := g.counts()
	if mixed+decode == 0 {
		return graphsNone
	}
	mode := g.Mode
	if g.FullAsBoth {
		mode = "FULL, charged as FULL_AND_PIECEWISE"
	}
	var parts []string
	if mixed > 0 {
		parts = append(parts, fmt.Sprintf("%d sizes up to %d", mixed, g.Sizes[mixed-1]))
	}
	if decode > 0 {
		_, top := g.decodeGraphs()
		parts = append(parts, fmt.Sprintf("%d decode up to %d", decode, top))
	}
	return mode + ": " + strings.Join(parts, ", ")
}

// graphSizes is cudagraph_capture_sizes as vLLM's _set_cudagraph_sizes
// resolves it (vllm/config/vllm.py:1925-2038): the sizes given, without
// duplicates, those above max_num_batched_tokens dropped; else 1, 2, 4,
// every 8 below 256 and every 16 from 256, up to the largest size (given,
// or min(2 x max_num_seqs, the device's ceiling)) and max_num_batched_tokens
// (and from 0.22.0 max_num_batched_tokens itself when it is within them).
// A largest size given with sizes given must be their largest; given alone
// it is lowered to the largest size the list reaches ("Truncating
// max_cudagraph_capture_size").
func (r *Resolved) graphSizes(sizes []uint64, maxGiven uint64, flag string) ([]uint64, error) {
	tokens := r.MaxNumBatchedTokens
	largest := maxGiven
	if largest == 0 {
		largest = largestCapture(r)
	}
	largest = min(largest, tokens)
	var out []uint64
	if sizes != nil {
		for _, s := range sizes {
			if s <= tokens && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		slices.Sort(out)
		valid := uint64(0)
		if len(out) > 0 {
			valid = out[len(out)-1]
		}
		if maxGiven != 0 && maxGiven != valid {
			// vllm/config/vllm.py:2005-2014.
			return nil, settingErr(flag, maxGiven, "vLLM stops at startup: the largest capture size must be the largest of cudagraph_capture_sizes (%d, of those within --max-num-batched-tokens %d)", valid, tokens)
		}
		return out, nil
	}
	out = defaultSizes(largest)
	if r.Profile.Release.AtLeast(batchedTokensCaptured) && tokens <= largest && !slices.Contains(out, tokens) {
		out = append(out, tokens)
		slices.Sort(out)
	}
	return out, nil
}

// resolveGraphs resolves the serve's compilation settings into the graphs
// vLLM captures, refusing what vLLM refuses and, before compilationSince,
// any setting other than the release's default.
func (r *Resolved) resolveGraphs(a *model.Arch) error {
	c := r.Compilation
	p := r.Profile
	if c.SizesKey != "" && c.SizesFlag != "" {
		// vllm/engine/arg_utils.py:2470-2475.
		return settingErr("cudagraph-capture-sizes", c.SizesFlag, "vLLM stops at startup: cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive")
	}
	if c.MaxKey != 0 && c.MaxFlag != 0 {
		// vllm/engine/arg_utils.py:2477-2484.
		return settingErr("max-cudagraph-capture-size", c.MaxFlag, "vLLM stops at startup: max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are mutually exclusive")
	}
	if p.Release.Less(compilationSince) || p.Era == V0 {
		if err := r.defaultCompilationOnly(); err != nil {
			return err
		}
		r.Graphs = r.defaultGraphs()
		return nil
	}
	if c.OldLevelKey {
		return settingErr("compilation-config", "level", "not a key of %s's compilation config: vLLM 0.13 removed the deprecated \"level\" (PR #30396); -O.level went with PR #29991: use mode, or -O", p.Describes)
	}
	level := c.Level
	if level == "" {
		level = "2" // VllmConfig.optimization_level's default O2 (vllm/config/vllm.py:398)
	}
	mode := c.GraphMode
	if mode == "" {
		mode = levelGraphModes[level]
	}
	compile := c.Mode
	if compile == "" {
		// vllm/config/vllm.py:1378-1382.
		compile = vllmCompile
		if level == "0" {
			compile = "0"
		}
	}
	g := Graphs{Mode: mode, MaxNumSeqs: r.MaxNumSeqs}
	switch {
	case r.EnforceEager:
		// vllm/config/vllm.py:1283-1289, 1530-1536.
		g.Mode = graphsNone
	case (mode == graphsPiecewise || mode == graphsFullAndPiecewise) && compile != vllmCompile:
		// "Cudagraph mode ... is not compatible with compilation mode
		// ... Overriding to NONE." (vllm/config/vllm.py:1416-1427).
		g.Mode = graphsNone
	case r.Runner == runnerPooling && mode != graphsPiecewise && mode != graphsNone:
		// "Pooling models do not support full cudagraphs. Overriding
		// cudagraph_mode to PIECEWISE." (vllm/config/vllm.py:1477-1488).
		g.Mode = graphsPiecewise
	case r.EncoderTokens > 0 && mode != graphsNone && mode != graphsFullDecodeOnly:
		// "Encoder-decoder models do not support %s. Overriding
		// cudagraph_mode to FULL_DECODE_ONLY." (vllm/config/vllm.py:1489-1500).
		g.Mode = graphsFullDecodeOnly
	case mode == graphsFull:
		// FULL captures mixed batches in full graphs only under an
		// attention backend that supports them (AttentionCGSupport.ALWAYS:
		// FlashAttention 3, Triton, FlexAttention); the others fall back to
		// FULL_AND_PIECEWISE (vllm/config/compilation.py:1386-1411), which
		// captures more. membudget does not choose the backend: it charges
		// the larger.
		g.FullAsBoth = true
	}
	if g.Mode != graphsNone && compile == vllmCompile && r.deepepHTGraphsOff(a) {
		// Applied last in VllmConfig's post-init, after the overrides above
		// (set_splitting_ops_for_v1, vllm/config/vllm.py:1612-1621): any
		// mode they left becomes NONE.
		g.Mode, g.FullAsBoth, g.OffForDeepEPHT = graphsNone, false, true
	}
	if g.Mode == graphsNone {
		r.Graphs = g
		return nil
	}
	sizes := c.SizesKey
	if c.SizesFlag != "" {
		sizes = c.SizesFlag
	}
	maxGiven, maxFlag := c.MaxKey, "compilation-config"
	if c.MaxFlag != 0 {
		maxGiven, maxFlag = c.MaxFlag, "max-cudagraph-capture-size"
	}
	var given []uint64
	if sizes != "" {
		given = parseSizes(sizes)
	}
	out, err := r.graphSizes(given, maxGiven, maxFlag)
	if err != nil {
		return err
	}
	if q := specQueryLen(r); q > 1 && g.FullDecode() {
		// Only the V1 runner rounds the sizes, and only with FULL decode
		// graphs (vllm/config/compilation.py:1474-1489); the V2 runner
		// rounds each decode graph instead ("MRV2 handles cudagraph
		// capture sizing in cudagraph_utils.py", :1479 at d18bb7b).
		if r.onV2Runner(a) {
			g.DecodeRounded = true
		} else if out, err = specSizes(out, q); err != nil {
			return err
		}
		g.DecodeQuery = q
	}
	g.Sizes = out
	r.Graphs = g
	return nil
}

// defaultSizes is vLLM's default capture sizes up to largest: 1, 2, 4,
// every 8 below 256, every 16 from 256 (vllm/config/vllm.py:1966-1981).
// Up to maxDefaultSizes it is a prefix of one shared list, capped so that
// an append copies it: callers must not write its elements.
func defaultSizes(largest uint64) []uint64 {
	if largest <= maxDefaultSizes {
		all := defaultSizeList()
		n, _ := slices.BinarySearch(all, largest+1)
		return all[:n:n]
	}
	return appendDefaultSizes(nil, largest)
}

// maxDefaultSizes bounds the shared list defaultSizes cuts: the largest
// default capture (blackwellCaptureSize).
const maxDefaultSizes = blackwellCaptureSize

// defaultSizeList is the default sizes up to maxDefaultSizes, built once.
var defaultSizeList = sync.OnceValue(func() []uint64 {
	return appendDefaultSizes(nil, maxDefaultSizes)
})

// appendDefaultSizes appends the default sizes up to largest to out.
func appendDefaultSizes(out []uint64, largest uint64) []uint64 {
	for _, s := range []uint64{1, 2, 4} {
		if s <= largest {
			out = append(out, s)
		}
	}
	for s := uint64(8); s <= largest && s < 256; s += 8 {
		out = append(out, s)
	}
	for s := uint64(256); s <= largest; s += 16 {
		out = append(out, s)
	}
	return out
}

// defaultGraphs is the graphs of a release before compilationSince:
// FULL_AND_PIECEWISE over the default sizes up to largestCapture (the
// pooling runner PIECEWISE alone), none under --enforce-eager.
func (r *Resolved) defaultGraphs() Graphs {
	if r.EnforceEager {
		return Graphs{Mode: graphsNone}
	}
	mode := graphsFullAndPiecewise
	if r.Runner == runnerPooling {
		mode = graphsPiecewise
	}
	sizes := defaultSizes(largestCapture(r))
	return Graphs{Mode: mode, Sizes: sizes, MaxNumSeqs: r.MaxNumSeqs}
}

// defaultCompilationOnly refuses, for a release before compilationSince,
// any compilation setting but the release's default: -O2 where the
// release has --optimization-level, -O3 (the V1 compilation level) before.
func (r *Resolved) defaultCompilationOnly() error {
	c := r.Compilation
	p := r.Profile
	why := func(flag string, v any) error {
		return settingErr(flag, v, "%s: not modelled for %s (membudget sizes the compilation settings from vLLM %s, whose _set_cudagraph_sizes it has read); membudget refuses it rather than size a serve vLLM would contradict",
			whatGraphs, p.Describes, compilationSince)
	}
	def := "3"
	if fl := flagIndex()["optimization-level"]; fl.in(p) {
		def = "2"
	}
	switch {
	case c.Level != "" && (c.Level != def || p.Era == V0):
		// The V0 engine compiles nothing by default: any level changes it.
		return why("optimization-level", c.Level)
	case c.GraphMode != "":
		return why("compilation-config", "cudagraph_mode")
	case c.Mode != "" && !(c.Mode == vllmCompile && p.Era == V1):
		return why("compilation-config", "mode")
	case c.SizesKey != "":
		return why("compilation-config", "cudagraph_capture_sizes")
	case c.SizesFlag != "":
		return why("cudagraph-capture-sizes", c.SizesFlag)
	case c.MaxKey != 0:
		return why("compilation-config", "max_cudagraph_capture_size")
	case c.MaxFlag != 0:
		return why("max-cudagraph-capture-size", c.MaxFlag)
	}
	return nil
}

// blocksOverride is the KV cache of stage's blocks under
// --num-gpu-blocks-override: exactly that many blocks of blockBytes, what
// vLLM allocates and plans against (may_override_num_blocks and the
// adjusted memory, vllm/v1/core/kv_cache_utils.py:942-949, 2162-2182);
// false without it.
func (r *Resolved) blocksOverride(blockBytes uint64) (uint64, bool) {
	if r.NumGPUBlocksOverride == 0 {
		return 0, false
	}
	return budget.SatMul(r.NumGPUBlocksOverride, blockBytes), true
}

// maxBlocksOverride bounds --num-gpu-blocks-override far above any
// device's blocks while keeping blocks x page far from 2^64.
const maxBlocksOverride = 1 << 32

// resolveOverride checks --num-gpu-blocks-override against the release.
func (r *Resolved) resolveOverride() error {
	n := r.NumGPUBlocksOverride
	if n == 0 {
		return nil
	}
	p := r.Profile
	if p.Release.Less(overrideSince) || p.Era == V0 {
		return settingErr("num-gpu-blocks-override", n, "%s: not modelled for %s (membudget sizes it from vLLM %s, whose startup check plans against the override, PR #41069); membudget refuses it rather than size a serve vLLM would contradict",
			whatBlocks, p.Describes, overrideSince)
	}
	if n > maxBlocksOverride {
		return settingErr("num-gpu-blocks-override", n, "want a block count from 1 to %d", uint64(maxBlocksOverride))
	}
	return nil
}

// compilationJSON is the serve's compilation for the report, nil when
// nothing of it was given.
type compilationJSON struct {
	OptimizationLevel string   `json:"optimization_level,omitempty"`
	CUDAGraphMode     string   `json:"cudagraph_mode"`
	ChargedAs         string   `json:"charged_as,omitempty"`
	Mode              string   `json:"mode,omitempty"`
	CaptureSizes      []uint64 `json:"cudagraph_capture_sizes"`
	MaxCaptureSize    uint64   `json:"max_cudagraph_capture_size"`
}

// compilationJSON is the sizing's compilation for the report, nil when
// no compilation setting was given.
func (sz *Sizing) compilationJSON() *compilationJSON {
	r := sz.Serve
	if !r.Compilation.Given() {
		return nil
	}
	g := r.Graphs
	out := &compilationJSON{OptimizationLevel: r.Compilation.Level, CUDAGraphMode: g.Mode, Mode: r.Compilation.Mode,
		CaptureSizes: g.Sizes, MaxCaptureSize: g.Largest()}
	if out.CaptureSizes == nil {
		out.CaptureSizes = []uint64{}
	}
	if g.FullAsBoth {
		out.ChargedAs = graphsFullAndPiecewise
	}
	return out
}

// writeCompilationFlags writes the serve's compilation flags as given,
// each in the form given: -O, --cudagraph-capture-sizes,
// --max-cudagraph-capture-size, and the keys of --compilation-config as
// one JSON object.
func writeCompilationFlags(b *strings.Builder, c Compilation) {
	if c.Level != "" {
		b.WriteString(" -O" + c.Level)
	}
	if c.SizesFlag != "" {
		b.WriteString(" --cudagraph-capture-sizes " + c.SizesFlag)
	}
	if c.MaxFlag != 0 {
		b.WriteString(" --max-cudagraph-capture-size " + strconv.FormatUint(c.MaxFlag, 10))
	}
	var keys []string
	if c.GraphMode != "" {
		keys = append(keys, fmt.Sprintf(`"cudagraph_mode":%q`, c.GraphMode))
	}
	if c.Mode != "" {
		keys = append(keys, `"mode":`+c.Mode)
	}
	if c.SizesKey != "" {
		keys = append(keys, `"cudagraph_capture_sizes":[`+strings.ReplaceAll(c.SizesKey, " ", ",")+`]`)
	}
	if c.MaxKey != 0 {
		keys = append(keys, `"max_cudagraph_capture_size":`+strconv.FormatUint(c.MaxKey, 10))
	}
	if len(keys) > 0 {
		b.WriteString(" --compilation-config '{" + strings.Join(keys, ",") + "}'")
	}
}

// loggedModePattern and loggedSizesPattern find the resolved
// cudagraph_mode and cudagraph_capture_sizes in a logged compilation
// config, a Python dict ({'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE:
// (2, 1)>, 'cudagraph_capture_sizes': [1, 2, 4, 8], ...}) or JSON.
var (
	loggedModePattern  = regexp.MustCompile(`cudagraph_mode['"]?\s*[:=]\s*[<'"]?(?:CUDAGraphMode\.)?(FULL_AND_PIECEWISE|FULL_DECODE_ONLY|PIECEWISE|FULL|NONE)\b`)
	loggedSizesPattern = regexp.MustCompile(`cudagraph_capture_sizes['"]?\s*[:=]\s*\[([0-9,\s]*)\]`)
)

// applyLoggedCompilation sets c from a log's compilation_config: the
// resolved cudagraph_mode and capture sizes, which the serve captures
// again as given. Other keys are the release's resolution and are not
// read; a config that states neither is applied as nothing ("").
func applyLoggedCompilation(c *Compilation, value string) (string, error) {
	var read []string
	if m := loggedModePattern.FindStringSubmatch(value); m != nil {
		c.GraphMode = m[1]
		read = append(read, "cudagraph_mode="+m[1])
	}
	if m := loggedSizesPattern.FindStringSubmatch(value); m != nil {
		var sizes []int64
		for _, f := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ',' || r == ' ' }) {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return "", fmt.Errorf("has a capture size %q that is not an integer", f)
			}
			sizes = append(sizes, n)
		}
		if len(sizes) > 0 {
			out, err := sizesString(sizes)
			if err != nil {
				return "", fmt.Errorf("has cudagraph_capture_sizes: %v", err)
			}
			c.SizesKey = out
			read = append(read, fmt.Sprintf("%d capture sizes", len(sizes)))
		}
	}
	return strings.Join(read, ", "), nil
}

// labelGraphs names the graphs captured on the CUDA-graph line of a
// footprint when a compilation setting was given: the mode and the sizes.
func (sz *Sizing) labelGraphs(lines []engine.FootprintLine) []engine.FootprintLine {
	if !sz.Serve.Compilation.Given() {
		return lines
	}
	for i := range lines {
		if lines[i].Label == termLabels[budget.TermGraphPool] {
			lines[i].Label += " (" + sz.Serve.Graphs.String() + ")"
		}
	}
	return lines
}

// compilationRefusal says a setting error refuses the serve's compilation
// whatever its layout.
func compilationRefusal(se *engine.SettingError) bool {
	switch se.Flag {
	case "compilation-config", "optimization-level", "cudagraph-capture-sizes", "max-cudagraph-capture-size":
		return true
	}
	return false
}

// dropUnsizedCompilation keeps a log's compilation and block override
// where membudget sizes them under p; elsewhere it leaves them out of the
// serve (the release's default graphs and the profiled blocks) with a
// warning, as explain did before they were sized. Flags given are kept:
// Resolve refuses them by name.
func (ls *loggedServe) dropUnsizedCompilation(p Profile, given map[string]bool) {
	if c := &ls.Serve.Compilation; given["cudagraph-capture-sizes"] || given["max-cudagraph-capture-size"] {
		// The flags given stand for the log's sizes (vLLM takes one form).
		c.SizesKey, c.MaxKey = "", 0
	}
	if c := &ls.Serve.Compilation; c.SizesKey != "" && c.MaxKey != 0 && !given["max-cudagraph-capture-size"] {
		// A log states the resolved sizes: their largest is the largest
		// captured (a largest given is lowered to it, "Truncating").
		c.MaxKey = 0
		delete(ls.From, "max-cudagraph-capture-size")
	}
	if c := ls.Serve.Compilation; c.Given() && !given["compilation-config"] && (p.Release.Less(compilationSince) || p.Era == V0) {
		ls.Serve.Compilation = Compilation{}
		delete(ls.From, "compilation-config")
		if c.GraphMode != "" && c.GraphMode != graphsFullAndPiecewise && c.GraphMode != graphsPiecewise {
			// The default modes' sizes are the default list too, up to a
			// release's changes; another mode is a serve's own choice.
			ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's compilation_config captures %s, which membudget sizes from vLLM %s only: its predictions take the release's default CUDA graphs", c.GraphMode, compilationSince))
		}
	}
	if ls.Serve.NumGPUBlocksOverride > 0 && !given["num-gpu-blocks-override"] && (p.Release.Less(overrideSince) || p.Era == V0) {
		ls.Serve.NumGPUBlocksOverride = 0
		delete(ls.From, "num-gpu-blocks-override")
		ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's num_gpu_blocks_override is sized from vLLM %s only: its predictions take the blocks the budget leaves", overrideSince))
	}
}
