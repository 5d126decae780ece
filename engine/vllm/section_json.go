package vllm

import "membudget/internal/jsonw"

// AppendJSON appends s as encoding/json writes it (see [jsonw.Appender]):
// every batch answer carries its serve. The features a serve rarely
// carries go through encoding/json.
func (s serveJSON) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"vllm_version":`...)
	b = jsonw.String(b, s.VLLMVersion)
	b = append(b, `,"vllm":`...)
	b = jsonw.String(b, s.VLLM)
	b = append(b, `,"gpu_memory_utilization":`...)
	if b, err = jsonw.Float(b, s.GPUMemoryUtilization); err != nil {
		return b, err
	}
	b = append(b, `,"kv_cache_memory_bytes":`...)
	b = jsonw.Uint(b, s.KVCacheMemoryBytes)
	b = append(b, `,"max_model_len":`...)
	b = jsonw.Uint(b, s.MaxModelLen)
	b = append(b, `,"max_num_seqs":`...)
	b = jsonw.Uint(b, s.MaxNumSeqs)
	b = append(b, `,"max_num_batched_tokens":`...)
	b = jsonw.Uint(b, s.MaxNumBatchedTokens)
	b = append(b, `,"block_size":`...)
	b = jsonw.Uint(b, s.BlockSize)
	b = append(b, `,"kv_cache_dtype":`...)
	b = jsonw.String(b, s.KVCacheDtype)
	if s.KVCacheDtypeSkipLayers != "" {
		b = append(b, `,"kv_cache_dtype_skip_layers":`...)
		b = jsonw.String(b, s.KVCacheDtypeSkipLayers)
	}
	b = append(b, `,"tensor_parallel_size":`...)
	b = jsonw.Uint(b, s.TensorParallelSize)
	b = append(b, `,"pipeline_parallel_size":`...)
	b = jsonw.Uint(b, s.PipelineParallelSize)
	b = append(b, `,"data_parallel_size":`...)
	b = jsonw.Uint(b, s.DataParallelSize)
	b = append(b, `,"enable_expert_parallel":`...)
	b = jsonw.Bool(b, s.EnableExpertParallel)
	b = append(b, `,"dtype":`...)
	b = jsonw.String(b, s.Dtype)
	b = append(b, `,"quantization":`...)
	b = jsonw.String(b, s.Quantization)
	b = append(b, `,"enforce_eager":`...)
	b = jsonw.Bool(b, s.EnforceEager)
	if s.CompileCache != "" {
		b = append(b, `,"compile_cache":`...)
		b = jsonw.String(b, s.CompileCache)
	}
	b = append(b, `,"async_scheduling":`...)
	b = jsonw.Bool(b, s.AsyncScheduling)
	if s.Runner != "" {
		b = append(b, `,"runner":`...)
		b = jsonw.String(b, s.Runner)
	}
	b = append(b, `,"cpu_offload_gib":`...)
	if b, err = jsonw.Float(b, s.CPUOffloadGiB); err != nil {
		return b, err
	}
	b = append(b, `,"swap_space_gib":`...)
	if b, err = jsonw.Float(b, s.SwapSpaceGiB); err != nil {
		return b, err
	}
	if b, err = appendFeature(b, `,"lora":`, s.LoRA, s.LoRA != nil); err != nil {
		return b, err
	}
	if b, err = appendFeature(b, `,"compilation":`, s.Compilation, s.Compilation != nil); err != nil {
		return b, err
	}
	if s.NumGPUBlocksOverride != 0 {
		b = append(b, `,"num_gpu_blocks_override":`...)
		b = jsonw.Uint(b, s.NumGPUBlocksOverride)
	}
	if b, err = appendFeature(b, `,"kv_offload":`, s.KVOffload, s.KVOffload != nil); err != nil {
		return b, err
	}
	if b, err = appendFeature(b, `,"eplb":`, s.EPLB, s.EPLB != nil); err != nil {
		return b, err
	}
	if b, err = appendFeature(b, `,"all2all":`, s.All2All, s.All2All != nil); err != nil {
		return b, err
	}
	if b, err = appendFeature(b, `,"kv_transfer":`, s.KVTransfer, s.KVTransfer != nil); err != nil {
		return b, err
	}
	if b, err = appendFeature(b, `,"multimodal":`, s.Multimodal, s.Multimodal != nil); err != nil {
		return b, err
	}
	if b, err = appendFeature(b, `,"speculative":`, s.Speculative, s.Speculative != nil); err != nil {
		return b, err
	}
	b = append(b, `,"defaults":`...)
	b = jsonw.StringMap(b, s.Defaults)
	if len(s.Ignored) > 0 {
		b = append(b, `,"ignored":`...)
		b = jsonw.Strings(b, s.Ignored)
	}
	if s.RequiresPlugin != "" {
		b = append(b, `,"requires_plugin":`...)
		b = jsonw.String(b, s.RequiresPlugin)
	}
	b = append(b, `,"command":`...)
	b = jsonw.String(b, s.Command)
	return append(b, '}'), nil
}

// appendFeature appends the key and v when set: a feature's object, which
// few serves carry, goes through encoding/json.
func appendFeature(b []byte, key string, v any, set bool) ([]byte, error) {
	if !set {
		return b, nil
	}
	return jsonw.Any(append(b, key...), v)
}
