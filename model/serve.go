package model

import (
	"fmt"
	"math"
	"strings"

	"membudget/budget"
)

// Serve is vLLM's serve settings, with its flag names; a zero field takes
// vLLM's default (see Resolve), and GPUMemoryUtilization 0 means vLLM's 0.9.
type Serve struct {
	GPUMemoryUtilization float64 // --gpu-memory-utilization
	MaxModelLen          uint64  // --max-model-len
	MaxNumSeqs           uint64  // --max-num-seqs
	MaxNumBatchedTokens  uint64  // --max-num-batched-tokens
	BlockSize            uint64  // --block-size
	KVCacheDtype         string  // --kv-cache-dtype: auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16, float16
	TensorParallelSize   uint64  // --tensor-parallel-size
	Dtype                string  // --dtype: auto, bfloat16, float16, float32
	Quantization         string  // --quantization: fp8, awq, gptq (and their _marlin names)
	EnforceEager         bool    // --enforce-eager
	// SwapSpaceGiB is --swap-space: the CPU KV blocks vLLM v0 pins in host
	// memory (v0 default 4 GiB, logged as "# CPU blocks"; v1 allocates none,
	// so 0 is the default here). On a unified device it shares the pool.
	SwapSpaceGiB float64
}

// Defaults, each with its source.
const (
	// vllm/config/cache.py CacheConfig.gpu_memory_utilization.
	defaultUtil = 0.9
	// vllm/platforms/cuda.py check_and_update_config: block_size 16 when
	// unset; FlashMLA forces 64 for MLA models.
	defaultBlockSize    = 16
	defaultMLABlockSize = 64
	// vllm/engine/arg_utils.py get_batch_defaults (API server): with at
	// least 70 GiB of device memory and not an A100, 8192 batched tokens and
	// 1024 sequences; otherwise 2048 and 256.
	bigDeviceBytes        = 70 << 30
	bigBatchedTokens      = 8192
	bigNumSeqs            = 1024
	smallBatchedTokens    = 2048
	smallNumSeqs          = 256
	defaultTensorParallel = 1
)

// Resolved is Serve with every default applied and checked against the
// architecture and the class.
type Resolved struct {
	Serve
	DtypeBytes   uint64
	KVDtypeBytes uint64
	Quant        Quant
	// Sources says where each defaulted setting came from, by flag name.
	Sources map[string]string
}

// Resolve applies vLLM's defaults for a on class c and checks the settings
// against each other, naming the flag in every error.
func Resolve(s Serve, a *Arch, c budget.Class) (Resolved, error) {
	r := Resolved{Serve: s, Sources: map[string]string{}}
	def := func(flag, why string) { r.Sources[flag] = why }
	if r.GPUMemoryUtilization == 0 {
		r.GPUMemoryUtilization = defaultUtil
		def("gpu-memory-utilization", "vLLM default 0.9 (vllm/config/cache.py)")
	}
	if math.IsNaN(r.GPUMemoryUtilization) || r.GPUMemoryUtilization < 0 {
		return Resolved{}, fmt.Errorf("--gpu-memory-utilization %v: must be in (0, 1]", r.GPUMemoryUtilization)
	}
	if r.TensorParallelSize == 0 {
		r.TensorParallelSize = defaultTensorParallel
		def("tensor-parallel-size", "vLLM default 1")
	}
	tp := r.TensorParallelSize
	if tp > 1024 {
		return Resolved{}, fmt.Errorf("--tensor-parallel-size %d: at most 1024", tp)
	}
	if a.Heads%tp != 0 {
		return Resolved{}, fmt.Errorf("--tensor-parallel-size %d: does not divide the %d attention heads of %s", tp, a.Heads, a.Source)
	}
	if !a.MLA && a.KVHeads%tp != 0 && tp%a.KVHeads != 0 {
		return Resolved{}, fmt.Errorf("--tensor-parallel-size %d: neither divides nor is a multiple of the %d KV heads of %s", tp, a.KVHeads, a.Source)
	}
	if r.MaxModelLen == 0 {
		r.MaxModelLen = a.MaxPosition
		def("max-model-len", "the model's max_position_embeddings")
	}
	if r.MaxModelLen > a.MaxPosition {
		// vLLM refuses a longer max_model_len unless
		// VLLM_ALLOW_LONG_MAX_MODEL_LEN is set (vllm/config/model.py).
		return Resolved{}, fmt.Errorf("--max-model-len %d: above the model's max_position_embeddings %d", r.MaxModelLen, a.MaxPosition)
	}
	big := c.Device.MemoryBytes >= bigDeviceBytes && !strings.Contains(strings.ToLower(c.Device.Name), "a100")
	if r.MaxNumBatchedTokens == 0 {
		r.MaxNumBatchedTokens = smallBatchedTokens
		if big {
			r.MaxNumBatchedTokens = bigBatchedTokens
		}
		def("max-num-batched-tokens", fmt.Sprintf("vLLM API-server default for %s (get_batch_defaults)", c.Device.Name))
	}
	if r.MaxNumSeqs == 0 {
		r.MaxNumSeqs = smallNumSeqs
		if big {
			r.MaxNumSeqs = bigNumSeqs
		}
		def("max-num-seqs", fmt.Sprintf("vLLM default for %s (get_batch_defaults)", c.Device.Name))
	}
	if r.MaxNumBatchedTokens < r.MaxNumSeqs {
		// vllm/config/scheduler.py: max_num_batched_tokens must be at least
		// max_num_seqs.
		return Resolved{}, fmt.Errorf("--max-num-batched-tokens %d: below --max-num-seqs %d", r.MaxNumBatchedTokens, r.MaxNumSeqs)
	}
	if r.MaxNumBatchedTokens > 1<<24 || r.MaxNumSeqs > 1<<20 {
		return Resolved{}, fmt.Errorf("--max-num-batched-tokens %d / --max-num-seqs %d: beyond any serve (at most %d / %d)", r.MaxNumBatchedTokens, r.MaxNumSeqs, 1<<24, 1<<20)
	}
	if r.BlockSize == 0 {
		r.BlockSize = defaultBlockSize
		if a.MLA {
			r.BlockSize = defaultMLABlockSize
		}
		def("block-size", "vllm/platforms/cuda.py: 16, or 64 for MLA (FlashMLA)")
	}
	switch r.BlockSize {
	case 1, 8, 16, 32, 64, 128, 256: // vllm/config/cache.py BlockSize
	default:
		return Resolved{}, fmt.Errorf("--block-size %d: want one of 1, 8, 16, 32, 64, 128, 256", r.BlockSize)
	}
	switch r.Dtype {
	case "", "auto":
		r.Dtype = a.Dtype
		if a.Dtype == "float32" {
			// vllm/config/model.py _get_and_verify_dtype: float32
			// checkpoints are served in float16 under "auto".
			r.Dtype = "float16"
		}
		def("dtype", "auto: the checkpoint's torch_dtype")
	case "bfloat16", "float16", "float32":
	case "half":
		r.Dtype = "float16"
	default:
		return Resolved{}, fmt.Errorf("--dtype %q: want auto, bfloat16, float16 or float32", r.Dtype)
	}
	r.DtypeBytes = dtypeBytes[r.Dtype]
	switch r.KVCacheDtype {
	case "", "auto":
		r.KVCacheDtype = "auto"
		r.KVDtypeBytes = r.DtypeBytes
	case "fp8", "fp8_e4m3", "fp8_e5m2":
		r.KVDtypeBytes = 1 // vllm/utils STR_DTYPE_TO_TORCH_DTYPE: uint8
	case "bfloat16", "float16":
		r.KVDtypeBytes = 2
	default:
		return Resolved{}, fmt.Errorf("--kv-cache-dtype %q: want auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16 or float16", r.KVCacheDtype)
	}
	q, err := resolveQuant(a, r.Quantization)
	if err != nil {
		return Resolved{}, fmt.Errorf("--%w", err)
	}
	r.Quant = q
	if q.Method == "awq" || q.Method == "gptq" {
		if q.GroupSize == 0 {
			return Resolved{}, fmt.Errorf("--quantization %s: the checkpoint gives no group size", q.Method)
		}
	}
	if v := r.SwapSpaceGiB; math.IsNaN(v) || v < 0 || v > 1<<20 {
		return Resolved{}, fmt.Errorf("--swap-space %v: want a size in GiB, 0 or more", v)
	}
	return r, nil
}

// HostBytes is what the serve keeps in host memory: the CPU swap space
// (vLLM: int(swap_space * GiB)).
func (r Resolved) HostBytes() uint64 {
	return uint64(r.SwapSpaceGiB * (1 << 30))
}
