package vllm

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"membudget/engine"
	"membudget/internal/shell"
)

// humanInt is vLLM's human-readable integer: a number with an optional
// suffix, lower case decimal (k = 10^3, m, g, t) and upper case binary
// (K = 2^10, M, G, T) (vllm/utils/argparse_utils.py:29-91).
var humanInt = regexp.MustCompile(`^(\d+(?:\.\d+)?)([kKmMgGtT])$`)

var humanMultipliers = map[byte]float64{'k': 1e3, 'm': 1e6, 'g': 1e9, 't': 1e12, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}

// ParseHumanInt reads an integer as vLLM's --max-model-len,
// --max-num-batched-tokens and --kv-cache-memory-bytes take it: 32768,
// 32k (32000), 32K (32768), 1.5k (1500, decimals truncate toward zero as
// vLLM's int(float) does), 1_000. A decimal with a binary suffix (1.5K) is
// refused, as vLLM refuses it.
func ParseHumanInt(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if m := humanInt.FindStringSubmatch(s); m != nil {
		mult := humanMultipliers[m[2][0]]
		if strings.Contains(m[1], ".") && m[2][0] >= 'A' && m[2][0] <= 'Z' {
			return 0, fmt.Errorf("decimals are not allowed with binary suffixes like %s; did you mean %s%s?", m[2], m[1], strings.ToLower(m[2]))
		}
		if strings.Contains(m[1], ".") {
			f, err := strconv.ParseFloat(m[1], 64)
			if err != nil || f*mult >= math.MaxInt64 {
				return 0, fmt.Errorf("%q is out of range", s)
			}
			return int64(f * mult), nil
		}
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || n > int64(math.MaxInt64/mult) {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return n * int64(mult), nil
	}
	// Python's int() takes an underscore between digits and a sign.
	if strings.Contains(s, "__") || strings.HasPrefix(s, "_") || strings.HasSuffix(s, "_") {
		return 0, errNotInt(s)
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return 0, errNotInt(s)
	}
	return n, nil
}

func errNotInt(s string) error {
	return fmt.Errorf("%q is not an integer (vLLM takes 32768, 32k = 32000 or 32K = 32768)", s)
}

// Command is the `vllm serve` command line that runs the resolved serve of
// model, every sizing setting explicit so that vLLM (of the profile's
// version) and membudget read it alike. Settings left at a value vLLM has
// no flag for are omitted (no quantization, no offload). A Serve.Revision
// is given as --revision, so that the line loads the checkpoint sized.
func Command(model string, r *Resolved) string {
	var b strings.Builder
	b.Grow(320)
	if r.AllowLongMaxModelLen && r.MaxModelLen > r.MaxLenLimit {
		b.WriteString("VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 ")
	}
	switch r.ModelRunnerV2 {
	case engine.On:
		b.WriteString(v2RunnerEnv + "=1 ")
	case engine.Off:
		b.WriteString(v2RunnerEnv + "=0 ")
	}
	if r.CompileCacheOff {
		b.WriteString(compileCacheEnv + "=1 ")
	}
	b.WriteString("vllm serve ")
	b.WriteString(shell.Quote(model))
	flag := func(name string) {
		b.WriteString(" --")
		b.WriteString(name)
	}
	str := func(name, v string) {
		flag(name)
		b.WriteByte(' ')
		b.WriteString(v)
	}
	num := func(name string, v uint64) {
		flag(name)
		b.WriteByte(' ')
		b.WriteString(strconv.FormatUint(v, 10))
	}
	float := func(name string, v float64) { str(name, strconv.FormatFloat(v, 'f', -1, 64)) }
	if r.Revision != "" {
		str("revision", shell.Quote(r.Revision))
	}
	float("gpu-memory-utilization", r.GPUMemoryUtilization)
	if r.KVCacheMemoryBytes > 0 {
		num("kv-cache-memory-bytes", r.KVCacheMemoryBytes)
	}
	num("max-model-len", r.MaxModelLen)
	num("max-num-seqs", r.MaxNumSeqs)
	num("max-num-batched-tokens", r.MaxNumBatchedTokens)
	if r.Serve.BlockSize > 0 {
		// A derived size is left to vLLM (see Resolved.BlockSize).
		num("block-size", r.Serve.BlockSize)
	}
	str("kv-cache-dtype", r.KVCacheDtype)
	if r.Serve.KVCacheDtypeSkipLayers != "" {
		// argparse's nargs "+": the entries as separate arguments.
		str("kv-cache-dtype-skip-layers", strings.Join(strings.Fields(r.Serve.KVCacheDtypeSkipLayers), " "))
	}
	str("dtype", r.Dtype)
	num("tensor-parallel-size", r.TensorParallelSize)
	if r.PipelineParallelSize > 1 {
		num("pipeline-parallel-size", r.PipelineParallelSize)
	}
	if r.DataParallelSize > 1 {
		num("data-parallel-size", r.DataParallelSize)
	}
	if r.EnableExpertParallel {
		flag("enable-expert-parallel")
	}
	if r.Quantization != "" {
		str("quantization", r.Quantization)
	}
	if r.EnforceEager {
		flag("enforce-eager")
	}
	if r.Runner == runnerPooling {
		str("runner", runnerPooling)
	}
	if r.Convert == "embed" || r.Convert == "classify" {
		str("convert", r.Convert)
	}
	if r.PoolerConfig != "" {
		str("pooler-config", shell.Quote(r.PoolerConfig))
	}
	if r.DisableCustomAllReduce {
		flag("disable-custom-all-reduce")
	}
	if r.TrustRemoteCode {
		flag("trust-remote-code")
	}
	// The pooling runner turns async scheduling off by default
	// (vllm/config/vllm.py:1184-1195).
	asyncDefault := r.Profile.AsyncByDefault && r.Runner != runnerPooling
	if asyncDefault && !r.Async {
		flag("no-async-scheduling")
	} else if !asyncDefault && r.Async {
		flag("async-scheduling")
	}
	if r.CPUOffloadGiB > 0 {
		float("cpu-offload-gb", r.CPUOffloadGiB)
	}
	// Chunked prefill as given: turned off it sets the batch (chunked.go),
	// and a release that forces it on takes the flag all the same.
	switch r.ChunkedPrefill {
	case engine.On:
		flag("enable-chunked-prefill")
	case engine.Off:
		if r.Profile.Release.Less(chunkedNegSpelled) {
			str("enable-chunked-prefill", "False")
		} else {
			flag("no-enable-chunked-prefill")
		}
	}
	writeLoRAFlags(&b, r.LoRA)
	writeCompilationFlags(&b, r.Compilation)
	if r.NumGPUBlocksOverride > 0 {
		num("num-gpu-blocks-override", r.NumGPUBlocksOverride)
	}
	writeOffloadFlags(&b, r.Offload)
	writeEPLBFlags(&b, r.EPLB)
	writeAll2AllFlags(&b, r.All2AllBackend)
	writeKVTransferFlags(&b, r.KVTransferConfig)
	writeMMFlags(&b, r.MM)
	writeSpecFlags(&b, r.SpeculativeConfig)
	if r.SwapSpaceGiB != nil {
		float("swap-space", *r.SwapSpaceGiB)
	}
	if r.MambaCacheMode != "" {
		// Prefix caching and the state dtypes size a model with state
		// layers: explicit, whatever the version's defaults.
		if r.PrefixCaching {
			flag("enable-prefix-caching")
		} else {
			flag("no-enable-prefix-caching")
		}
		if r.MambaCacheDtype != "auto" {
			str("mamba-cache-dtype", r.MambaCacheDtype)
		}
		if r.MambaSSMCacheDtype != "auto" {
			str("mamba-ssm-cache-dtype", r.MambaSSMCacheDtype)
		}
	}
	return b.String()
}
