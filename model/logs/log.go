package logs

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"membudget/internal/untrusted"
)

// Engine is the serving engine a log comes from.
type Engine string

// The engines whose logs the reader knows; EngineUnknown when no line tells,
// or when lines of both engines appear.
const (
	EngineUnknown Engine = ""
	EngineVLLM    Engine = "vllm"
	EngineSGLang  Engine = "sglang"
)

// Era is the engine generation a log comes from, set only from unambiguous
// evidence (see [Log.EraEvidence]).
type Era string

// The eras: vLLM's V0 engine (removed in 0.11), its V1 engine (in the tree
// since 0.6.4, the default since 0.8), and SGLang. EraUnknown when nothing
// tells, or when the evidence disagrees.
const (
	EraUnknown Era = ""
	EraV0      Era = "V0"
	EraV1      Era = "V1"
	EraSGLang  Era = "sglang"
)

// GraphBudget says whether the CUDA-graph memory estimate was charged to the
// KV cache budget, as vLLM's own log line says.
type GraphBudget string

// GraphBudgetUnknown when no line says (or lines disagree); GraphBudgetCounted
// after "The current --gpu-memory-utilization=U is equivalent to ... without
// CUDA graph memory profiling"; GraphBudgetNotCounted after "In v0.19 (v0.21),
// CUDA graph memory profiling will be enabled by default" or "CUDA graph
// memory profiling is disabled" (vllm/v1/worker/gpu_worker.py,
// determine_available_memory, #30515, #38284).
const (
	GraphBudgetUnknown    GraphBudget = ""
	GraphBudgetCounted    GraphBudget = "counted"
	GraphBudgetNotCounted GraphBudget = "not-counted"
)

// Kind is the quantity a [Figure] measures.
type Kind string

// The kinds of figure. Memory kinds are in bytes; the others are counts or
// ratios. The doc comment of each names the log lines it is read from.
const (
	// KindWeights: "Loading model weights took", "Model loading took", V0's
	// "model weights take", V1's "weights memory:", "Actual usage is X GiB
	// for weight", XPU's "model load takes", SGLang's "Load weight end. ...
	// mem usage".
	KindWeights Kind = "weights"
	// KindNonTorch: V0's "non_torch_memory takes" and "non_torch_memory=",
	// V1's "non-torch forward increase memory:", "GiB for non-torch memory",
	// "non-torch forward-pass memory:", XPU's "non-torch mem is". Negative in
	// some V0 logs (unified memory).
	KindNonTorch Kind = "non_torch"
	// KindActivationPeak: V0's "PyTorch activation peak memory takes", V1's
	// "torch peak memory increase:" and "GiB for peak activation".
	KindActivationPeak Kind = "activation_peak"
	// KindActivationWithGraphs is the "GiB for peak activation" of the
	// "Actual usage is ... GiB for consumed memory (weights + non-torch)"
	// line (vLLM since #49208): the profile's transient peak plus the
	// CUDA-graph estimate vLLM charges (peak_activation_memory =
	// transient_peak_headroom + cudagraph_memory_estimate_applied,
	// vllm/v1/worker/gpu_worker.py at main d18bb7b), not the activation
	// peak alone.
	KindActivationWithGraphs Kind = "activation_with_graphs"
	// KindTorchPeak is the torch allocator's whole peak, weights included:
	// V0 0.6.4's "peak_torch_memory=", early V1's "Peak torch memory:", XPU's
	// "peak memory usage is".
	KindTorchPeak Kind = "torch_peak"
	// KindNonKVTotal: V1's "Total non KV cache memory:".
	KindNonKVTotal Kind = "non_kv_total"
	// KindConsumed is weights plus non-torch as one figure: "total consumed
	// (from mem_get_info):" and "GiB for consumed memory (weights +
	// non-torch)" (vLLM since #49208, July 2026).
	KindConsumed Kind = "consumed"
	// KindKVCacheMemory is the memory given to the KV cache: "Available KV
	// cache memory:", V0's "the rest of the memory reserved for KV Cache is",
	// "kv_cache_size=", "Current kv cache memory in use is", early V1's
	// "available KVCache memory:", the max-model-len error's "available KV
	// cache memory (Y GiB)", SGLang's "KV size:" (one pool, MLA models).
	KindKVCacheMemory Kind = "kv_cache_memory"
	// KindKCacheMemory and KindVCacheMemory are SGLang's "K size:" and "V
	// size:", each half of the pool for multi-head attention.
	KindKCacheMemory Kind = "k_cache_memory"
	KindVCacheMemory Kind = "v_cache_memory"
	// KindKVCacheNeeded: the max-model-len error's "(X GiB KV cache is
	// needed".
	KindKVCacheNeeded Kind = "kv_cache_needed"
	// KindKVCacheTokens: "GPU KV cache size: N tokens", the max-model-len
	// error's "maximum number of tokens that can be stored in KV cache (N)",
	// SGLang's "#tokens: N" and "max_total_num_tokens=N".
	KindKVCacheTokens Kind = "kv_cache_tokens"
	// KindGPUBlocks: "# GPU blocks: N" (and "# CUDA blocks", "# cuda
	// blocks": the device's name), "num_gpu_blocks is: N".
	KindGPUBlocks Kind = "gpu_blocks"
	// KindCPUBlocks: V0's "# CPU blocks: N" (swap space).
	KindCPUBlocks Kind = "cpu_blocks"
	// KindMaxModelLen: the length in "Maximum concurrency for L tokens per
	// request" and in the max-model-len errors ("max seq len (L)").
	KindMaxModelLen Kind = "max_model_len"
	// KindEstimatedMaxModelLen: "the estimated maximum model length is E".
	KindEstimatedMaxModelLen Kind = "estimated_max_model_len"
	// KindMaxConcurrency: "Maximum concurrency for L tokens per request: Rx".
	KindMaxConcurrency Kind = "max_concurrency"
	// KindEncoderBudget and KindEncoderItems: N and K of "Encoder cache
	// will be initialized with a budget of N tokens, and profiled with K
	// image items of the maximum feature size".
	KindEncoderBudget Kind = "encoder_cache_budget"
	KindEncoderItems  Kind = "encoder_profile_items"
	// KindCUDAGraphEstimate: "Estimated CUDA graph memory: X GiB total" and
	// the "(estimated)" figure of "CUDA graph pool memory".
	KindCUDAGraphEstimate Kind = "cuda_graph_estimate"
	// KindCUDAGraph is the memory graph capture took: "Graph capturing
	// finished in N secs, took X GiB", the "(actual)" figure of "CUDA graph
	// pool memory", "GiB for CUDAGraph memory", SGLang's "Capture cuda graph
	// end. ... mem usage=". Can be negative (a difference of free memory).
	KindCUDAGraph Kind = "cuda_graph"
	// KindDeviceTotal is the device's memory as the driver reports it:
	// "total_gpu_memory", "Free memory on device (F/T GiB)", "total GPU
	// memory:", a snapshot's "total_memory=".
	KindDeviceTotal Kind = "device_total"
	// KindDeviceFree is the free memory at startup: "Free memory on device
	// (F/T GiB)", "Initial free memory:", a snapshot's "free_memory=", XPU's
	// "free gpu memory is" before profiling, SGLang's "Load weight begin.
	// avail mem=".
	KindDeviceFree Kind = "device_free"
	// KindFreeAfterLoad: SGLang's "Load weight end. ... avail mem=".
	KindFreeAfterLoad Kind = "free_after_load"
	// KindFreeAfterProfile: "Free memory after profiling: X GiB (total)",
	// early V1's "free memory:", XPU's "free gpu memory is" after profiling.
	KindFreeAfterProfile Kind = "free_after_profile"
	// KindFreeAfterPool: SGLang's "Memory pool end. avail mem=".
	KindFreeAfterPool Kind = "free_after_pool"
	// KindFreeAfterGraphs: SGLang's "Capture cuda graph end. ... avail mem="
	// and "available_gpu_mem=".
	KindFreeAfterGraphs Kind = "free_after_graphs"
	// KindPiecewiseGraph is the memory SGLang's piecewise (prefill) CUDA
	// graphs took: "Capture piecewise CUDA graph end. ... mem usage=". Can
	// be negative (a difference of free memory).
	KindPiecewiseGraph Kind = "piecewise_cuda_graph"
	// KindFreeAfterPiecewise: "Capture piecewise CUDA graph end. ... avail
	// mem=", the free memory after the last capture of SGLang's startup.
	KindFreeAfterPiecewise Kind = "free_after_piecewise"
	// KindUtilization is --gpu-memory-utilization as a memory line restates
	// it (a fraction, not bytes).
	KindUtilization Kind = "gpu_memory_utilization"
	// KindUtilBudget is total x utilization, the memory vLLM requests: V0's
	// "= Y GiB", "Desired GPU memory utilization is (u, Y GiB)", "worker
	// requested memory:", "Requested memory: u (util), Y GiB".
	KindUtilBudget Kind = "util_budget"
	// KindUtilWithoutGraphs: "is equivalent to --gpu-memory-utilization=U
	// without CUDA graph memory profiling".
	KindUtilWithoutGraphs Kind = "util_without_graphs"
	// KindUtilSuggested: the utilization the CUDA-graph profiling lines
	// suggest ("increase --gpu-memory-utilization to U", "from X to U").
	KindUtilSuggested Kind = "util_suggested"
	// KindInitialUsage and KindPostProfileUsage: V0 0.6.4's
	// "initial_memory_usage=" and "memory_usage_post_profile=".
	KindInitialUsage     Kind = "initial_usage"
	KindPostProfileUsage Kind = "post_profile_usage"
	// KindSuggestedKVCacheMemory and KindSuggestedKVCacheMemoryDevice are the
	// byte counts of "Replace gpu_memory_utilization config with
	// `--kv-cache-memory=N`" to fit the requested memory and to fill the
	// device.
	KindSuggestedKVCacheMemory       Kind = "suggested_kv_cache_memory"
	KindSuggestedKVCacheMemoryDevice Kind = "suggested_kv_cache_memory_device"
)

// Unit is the unit a figure was logged in.
type Unit string

// The units. vLLM V0 and early V1 printed "GB" for bytes divided by 2^30
// (vllm/worker/model_runner.py, load_model: m.consumed_memory /
// float(2**30), until #15807 changed the word to GiB), and SGLang prints "GB"
// for bytes divided by 1<<30 (python/sglang/srt/mem_cache/memory_pool.py:
// GB = 1024 * 1024 * 1024; python/sglang/srt/utils.py,
// get_available_gpu_memory: free_gpu_memory / (1 << 30)); vLLM's XPU worker
// prints "MB" for bytes / 1024**2 (vllm/v1/worker/xpu_worker.py).
const (
	UnitGiB    Unit = "GiB"
	UnitMiB    Unit = "MiB"
	UnitGBGiB  Unit = "GB (GiB)"
	UnitMBMiB  Unit = "MB (MiB)"
	UnitBytes  Unit = "bytes"
	UnitTokens Unit = "tokens"
	UnitBlocks Unit = "blocks"
	UnitTimes  Unit = "x"
	UnitRatio  Unit = "fraction"
	UnitItems  Unit = "items"
)

// Bytes returns the bytes one unit stands for, and false for units that are
// not memory.
func (u Unit) Bytes() (int64, bool) {
	switch u {
	case UnitGiB, UnitGBGiB:
		return 1 << 30, true
	case UnitMiB, UnitMBMiB:
		return 1 << 20, true
	case UnitBytes:
		return 1, true
	}
	return 0, false
}

// Decimal is a number exactly as logged: Units / 10^Places ("51.38" is
// {5138, 2}).
type Decimal struct {
	Units  int64
	Places uint8
}

// maxPlaces bounds the decimal places a [Decimal] may hold so that 10^Places
// fits an int64.
const maxPlaces = 18

// String returns the decimal as it was logged, without thousands separators.
func (d Decimal) String() string {
	neg := d.Units < 0
	u := d.Units
	if neg {
		u = -u
	}
	s := strconv.FormatInt(u, 10)
	if d.Places > 0 {
		if len(s) <= int(d.Places) {
			s = strings.Repeat("0", int(d.Places)-len(s)+1) + s
		}
		s = s[:len(s)-int(d.Places)] + "." + s[len(s)-int(d.Places):]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Float64 returns the decimal's value, rounded to the nearest float64.
func (d Decimal) Float64() float64 {
	f, _ := strconv.ParseFloat(d.String(), 64)
	return f
}

// parseDecimal reads an optionally signed decimal with optional thousands
// commas ("-0.05", "1,234,567", "51.38"); ok is false for anything else or
// for more digits than an int64 holds.
func parseDecimal(s string) (Decimal, bool) {
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	intPart = strings.ReplaceAll(intPart, ",", "")
	if intPart == "" || (hasDot && frac == "") || len(frac) > maxPlaces {
		return Decimal{}, false
	}
	digits := intPart + frac
	if len(digits) > 18 { // 10^18 < 2^63: no overflow below 19 digits
		return Decimal{}, false
	}
	var u int64
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return Decimal{}, false
		}
		u = u*10 + int64(c-'0')
	}
	if neg {
		u = -u
	}
	return Decimal{Units: u, Places: uint8(len(frac))}, true
}

// Format names the log line a [Figure], [Setting] or piece of evidence was
// read from; formats.go lists each with the vLLM or SGLang source that
// prints it.
type Format string

// Figure is one number a log line states.
type Figure struct {
	Kind  Kind
	Value Decimal
	// RoundedTo is the decimal places the engine rounded the value to: the
	// true value is within half a unit of that place. It is at least
	// Value.Places, and at least 2 for memory figures and concurrency, which
	// every format prints with "%.2f" or more, or with format_gib's
	// round(x, 2) that prints "64.6" for 64.60 (vllm/utils/mem_utils.py).
	RoundedTo uint8
	Unit      Unit
	// Format is the log line the figure was read from.
	Format Format
	// Process is the logging process the line's prefix names ("VllmWorker
	// TP0", "Worker_TP2_EP2", "EngineCore_DP0", SGLang's "TP0" or "DP0 TP0
	// EP0"); empty when the line names none. Ranks log their own figures:
	// every rank's line is kept, in log order.
	Process string
	// Line is the 1-based line of the log (of the quote's part, for
	// [ParseQuote]).
	Line int
	// Text is the matched part of the line.
	Text string
}

// Bytes returns the figure in bytes, rounded to the nearest byte, and false
// when the figure is not memory or does not fit an int64.
func (f Figure) Bytes() (int64, bool) {
	per, ok := f.Unit.Bytes()
	if !ok {
		return 0, false
	}
	n := new(big.Int).Mul(big.NewInt(f.Value.Units), big.NewInt(per))
	r := new(big.Rat).SetFrac(n, pow10(f.Value.Places))
	// Round half away from zero.
	num, den := r.Num(), r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(den) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}

// Tolerance returns half a unit of the place the engine rounded to, in
// bytes, rounded up ("51.38 GiB" is within 0.005 GiB: 5368710 bytes), and 0
// for figures that are not memory.
func (f Figure) Tolerance() int64 {
	per, ok := f.Unit.Bytes()
	if !ok {
		return 0
	}
	// per / (2 * 10^RoundedTo), rounded up.
	den := new(big.Int).Mul(pow10(f.RoundedTo), big.NewInt(2))
	q, m := new(big.Int).QuoRem(big.NewInt(per), den, new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// Float64 returns the figure in its logged unit ("51.38 GiB" is 51.38).
func (f Figure) Float64() float64 { return f.Value.Float64() }

func pow10(n uint8) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// SettingSource is the kind of line a [Setting] was read from.
type SettingSource string

// The sources of settings.
const (
	// SourceNonDefaultArgs: vLLM's "non-default args: {...}", a Python dict
	// (vllm/entrypoints/serve/utils/api_utils.py, log_non_default_args;
	// since #17803, May 2025).
	SourceNonDefaultArgs SettingSource = "non-default args"
	// SourceEngineConfig: "Initializing a V1 LLM engine (vX) with config:
	// key=value, ..." and its V0 and older forms (vllm/v1/engine/core.py;
	// vllm/config/vllm.py, VllmConfig.__str__).
	SourceEngineConfig SettingSource = "engine config"
	// SourceServerArgs: SGLang's "server_args=ServerArgs(key=value, ...)".
	SourceServerArgs SettingSource = "server_args"
	// SourceSGLangLimits: SGLang's "max_total_num_tokens=N, ...,
	// context_len=N, ..." line.
	SourceSGLangLimits SettingSource = "sglang limits"
	// SourceStatement: a line that states one setting: "Chunked prefill is
	// enabled with max_num_batched_tokens=N." (vllm/config/scheduler.py),
	// "Using max model len N" (vllm/config/model.py), "Setting attention
	// block size to N tokens" (vllm/platforms/interface.py).
	SourceStatement SettingSource = "statement"
)

// Literal is the kind of Python literal a setting's value was.
type Literal string

// The literal kinds.
const (
	LiteralString Literal = "string"
	LiteralNumber Literal = "number"
	LiteralBool   Literal = "bool"
	LiteralNone   Literal = "none"
	// LiteralOther is any other value: a bare word (torch.bfloat16, auto),
	// a list, a dict, a call (SpeculativeConfig(...)), kept as logged.
	LiteralOther Literal = "other"
)

// Setting is one setting a log line states.
type Setting struct {
	// Key is the setting's name: as logged, except that the engine config's
	// max_seq_len is max_model_len (vllm/config/vllm.py, __str__:
	// max_seq_len={self.model_config.max_model_len}).
	Key string
	// LoggedKey is the name as the line spells it.
	LoggedKey string
	// Value is the value: a string's contents unquoted and unescaped,
	// anything else as logged.
	Value   string
	Literal Literal
	Source  SettingSource
	Line    int
}

// Int returns the setting as an integer, and false when it is not one.
func (s Setting) Int() (int64, bool) {
	if s.Literal != LiteralNumber {
		return 0, false
	}
	v, err := strconv.ParseInt(s.Value, 10, 64)
	return v, err == nil
}

// Float returns the setting as a number, and false when it is not one.
func (s Setting) Float() (float64, bool) {
	if s.Literal != LiteralNumber {
		return 0, false
	}
	v, err := strconv.ParseFloat(s.Value, 64)
	return v, err == nil
}

// Bool returns the setting as a Python bool, and false when it is not one.
func (s Setting) Bool() (value, ok bool) {
	if s.Literal != LiteralBool {
		return false, false
	}
	return s.Value == "True", true
}

// Log is what a startup log states: the engine, its version and era, the
// settings and every figure, each kept with its line; nothing is inferred
// that no line states.
type Log struct {
	Engine Engine
	// EngineVersion is the first version the log states, as logged without a
	// leading "v" ("0.11.0", "0.10.2+cu130"); empty when none.
	EngineVersion string
	// Versions are the distinct versions stated, in log order (more than one
	// when several runs were logged together).
	Versions []string
	Era      Era
	// EraEvidence are the formats that placed the log in an era, each at
	// its first line, V0's and V1's alike, so a reader can see why Era is
	// what it is (or why it is unknown).
	EraEvidence []Evidence
	// Settings are every setting stated, in log order; [Log.Setting] picks
	// one.
	Settings []Setting
	// Figures are every figure, in log order; repeated and contradictory
	// figures are all kept.
	Figures     []Figure
	GraphBudget GraphBudget
	// Lines is the number of lines read; LongLines of them were over the
	// line limit and skipped.
	Lines, LongLines int
	// DroppedFigures and DroppedSettings count what came after the caps of
	// [Limits] and was not kept as its own entry: a setting past the cap
	// whose key was kept updates that entry (its last statement wins, as
	// below the cap); DroppedNewSettings of them had a key never kept.
	DroppedFigures, DroppedSettings, DroppedNewSettings int
	// NotANumber counts the lines whose figure the engine printed as nan or
	// inf, which are not read; the first is at NotANumberLine, its figure
	// in NotANumberText.
	NotANumber, NotANumberLine int
	NotANumberText             string
}

// ReadNotes says what of the log the reader did not read or keep, for an
// explanation's notes: lines over the line limit, settings and figures
// past the caps, figures printed as nan or inf. Nothing is left out
// without a note.
func (l *Log) ReadNotes() []string {
	var out []string
	if l.LongLines > 0 {
		out = append(out, fmt.Sprintf("%d line(s) over the reader's limit were skipped", l.LongLines))
	}
	if l.DroppedSettings > 0 {
		out = append(out, fmt.Sprintf("%d setting statement(s) past the reader's cap of %d were not kept as their own: a setting already read took their value (its last statement still wins); %d of a setting not read before were left out",
			l.DroppedSettings, len(l.Settings), l.DroppedNewSettings))
	}
	if l.DroppedFigures > 0 {
		out = append(out, fmt.Sprintf("%d figure(s) past the reader's cap of %d were not kept: the figures taken are the first ones", l.DroppedFigures, len(l.Figures)))
	}
	if l.NotANumber > 0 {
		out = append(out, fmt.Sprintf("%d line(s) state a figure as nan or inf, which is not read (first at line %d: %s)", l.NotANumber, l.NotANumberLine, untrusted.Quote(l.NotANumberText)))
	}
	return out
}

// All returns the figures of a kind, in log order.
func (l *Log) All(k Kind) []Figure {
	var out []Figure
	for _, f := range l.Figures {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

// First returns the first figure of a kind in log order, and false when the
// log has none.
func (l *Log) First(k Kind) (Figure, bool) {
	for _, f := range l.Figures {
		if f.Kind == k {
			return f, true
		}
	}
	return Figure{}, false
}

// Setting returns the last statement of a setting in log order (the engine
// config, which states resolved values, comes after the arguments), and false
// when the log states none.
func (l *Log) Setting(key string) (Setting, bool) {
	for i := len(l.Settings) - 1; i >= 0; i-- {
		if l.Settings[i].Key == key {
			return l.Settings[i], true
		}
	}
	return Setting{}, false
}

// DeviceTotal returns the device memory the log states, in bytes (the first
// [KindDeviceTotal] figure), and false when none.
func (l *Log) DeviceTotal() (int64, bool) {
	f, ok := l.First(KindDeviceTotal)
	if !ok {
		return 0, false
	}
	return f.Bytes()
}
