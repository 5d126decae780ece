package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"membudget"
	"membudget/budget"
	"membudget/model"
)

// serveFlags are the inputs every sizing command shares: the model, the
// class and vLLM's serve flags, under vLLM's names.
type serveFlags struct {
	model   string
	class   string
	kernels kernelsFlag
	util    utilFlag
	s       model.Serve
	json    bool
}

func (f *serveFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "a config.json `path` (or a directory holding one), or a shipped model: org/name or org__name")
	fs.StringVar(&f.class, "class", "", "device class (see 'membudget classes')")
	f.kernels.register(fs)
	fs.Var(&f.util, "gpu-memory-utilization", "vLLM's --gpu-memory-utilization, in (0, 1] (default 0.9, vLLM's)")
	fs.Uint64Var(&f.s.MaxModelLen, "max-model-len", 0, "vLLM's --max-model-len (default: the model's max_position_embeddings)")
	fs.Uint64Var(&f.s.MaxNumSeqs, "max-num-seqs", 0, "vLLM's --max-num-seqs (default: vLLM's for the device, 256 or 1024)")
	fs.Uint64Var(&f.s.MaxNumBatchedTokens, "max-num-batched-tokens", 0, "vLLM's --max-num-batched-tokens (default: vLLM's for the device, 2048 or 8192)")
	fs.Uint64Var(&f.s.BlockSize, "block-size", 0, "vLLM's --block-size (default 16; 64 for MLA)")
	fs.StringVar(&f.s.KVCacheDtype, "kv-cache-dtype", "auto", "vLLM's --kv-cache-dtype: auto, fp8, fp8_e4m3, fp8_e5m2, bfloat16, float16")
	fs.Uint64Var(&f.s.TensorParallelSize, "tensor-parallel-size", 1, "vLLM's --tensor-parallel-size")
	fs.StringVar(&f.s.Dtype, "dtype", "auto", "vLLM's --dtype: auto, bfloat16, float16, float32")
	fs.StringVar(&f.s.Quantization, "quantization", "", "vLLM's --quantization: fp8, awq, gptq (default: the checkpoint's)")
	fs.BoolVar(&f.s.EnforceEager, "enforce-eager", false, "vLLM's --enforce-eager: no CUDA graphs")
	fs.Float64Var(&f.s.SwapSpaceGiB, "swap-space", 0, "vLLM's --swap-space in GiB (host memory; counts on unified devices)")
	fs.BoolVar(&f.json, "json", false, "print JSON for scripts (schema in the README)")
}

// sizing is a loaded serve: the architecture, its reference and its plan.
type sizing struct {
	modelName string
	arch      *model.Arch
	class     budget.Class
	ref       *model.Reference
	plan      *budget.Plan
}

// load reads the model and the class and compiles the plan; every error
// names the flag, file or key.
func (f *serveFlags) load() (*sizing, error) {
	if f.model == "" {
		return nil, errors.New("--model is required: a config.json path or a shipped model (see README)")
	}
	if f.class == "" {
		return nil, errors.New("--class is required (see 'membudget classes')")
	}
	name, data, path, err := readModel(f.model)
	if err != nil {
		return nil, err
	}
	a, err := model.ParseConfig(path, data)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	c, err := f.kernels.catalog().Load(f.class)
	if err != nil {
		return nil, fmt.Errorf("--class: %w", err)
	}
	s := f.s
	if !f.util.set && c.Memory.UtilCeiling < 0.9 {
		return nil, fmt.Errorf("--gpu-memory-utilization: vLLM's default 0.9 is above class %s's util_ceiling %v; pass a util of at most %v", c.Name, c.Memory.UtilCeiling, c.Memory.UtilCeiling)
	}
	if f.util.set {
		if f.util.v <= 0 {
			return nil, fmt.Errorf("--gpu-memory-utilization %v: must be in (0, 1]", f.util.v)
		}
		s.GPUMemoryUtilization = f.util.v
	}
	ref, err := model.NewReference(a, s, c)
	if err != nil {
		return nil, err
	}
	return &sizing{modelName: name, arch: a, class: c, ref: ref, plan: ref.Plan()}, nil
}

// readModel finds --model: an existing file, a directory with config.json,
// or a shipped config by its Hugging Face id (org/name) or file name.
func readModel(arg string) (name string, data []byte, path string, err error) {
	if st, statErr := os.Stat(arg); statErr == nil {
		path = arg
		if st.IsDir() {
			path = filepath.Join(arg, "config.json")
		}
		data, err = os.ReadFile(path)
		if err != nil {
			return "", nil, "", fmt.Errorf("--model: %w", err)
		}
		return arg, data, path, nil
	}
	shipped := strings.ReplaceAll(arg, "/", "__")
	if data, path, ok := membudget.ModelConfig(shipped); ok {
		return strings.ReplaceAll(shipped, "__", "/"), data, path, nil
	}
	return "", nil, "", fmt.Errorf("--model %q: no such file and no shipped model of that name (shipped: %s)", arg, strings.Join(shippedModelIDs(), ", "))
}

func shippedModelIDs() []string {
	var ids []string
	for _, n := range membudget.ModelNames() {
		ids = append(ids, strings.ReplaceAll(n, "__", "/"))
	}
	return ids
}

// settingsLine renders the resolved serve as the vLLM flags it stands for.
func settingsLine(r model.Resolved) string {
	q := r.Quant.Method
	if q == "" {
		q = "none"
	}
	line := fmt.Sprintf("--gpu-memory-utilization %v --max-model-len %d --max-num-seqs %d --max-num-batched-tokens %d --block-size %d --kv-cache-dtype %s --tensor-parallel-size %d --dtype %s --quantization %s",
		r.GPUMemoryUtilization, r.MaxModelLen, r.MaxNumSeqs, r.MaxNumBatchedTokens, r.BlockSize, r.KVCacheDtype, r.TensorParallelSize, r.Dtype, q)
	if r.EnforceEager {
		line += " --enforce-eager"
	}
	if r.SwapSpaceGiB > 0 {
		line += fmt.Sprintf(" --swap-space %v", r.SwapSpaceGiB)
	}
	return line
}
