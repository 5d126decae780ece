package model

// MiMo-V2 (MiMoV2FlashForCausalLM and MiMoV2ForCausalLM, vllm/
// model_executor/models/mimo_v2.py at d18bb7b) is refused by name, not
// sized: its attention keeps keys and values of different head sizes
// (MiMo-V2-Flash: head_dim 192, v_head_dim 128 on full and sliding layers
// alike), which vLLM serves with its DiffKV attention backends
// (mimo_v2.py:296-333) and pages as block_size x KV heads x (head_size +
// head_size_v) (vllm/v1/kv_cache_interface.py:270-289, 366-372), while
// membudget's KV layout and weights keep one head size for keys and
// values; its full and sliding layers also differ in KV heads (4 and 8),
// rope theta and attention sinks. Read as a generic decoder it would be
// sized with 192-wide values and one KV head count on every layer, every
// layer full: an answer vLLM contradicts, so the model_types vLLM reads
// it under (model_arch_config_convertor.py:790-791) are refused instead.
const mimoV2Refusal = "MiMo-V2's keys and values of different head sizes (head_dim and v_head_dim: vLLM's DiffKV attention backends, mimo_v2.py:296-333, pages of block x KV heads x (head_size + head_size_v), kv_cache_interface.py:366-372) and its full and sliding layers of different KV heads are not modelled: membudget keeps one head size for keys and values"

func init() {
	refusedModules["mimo_v2"] = mimoV2Refusal
	refusedModelTypes["mimo_v2"] = mimoV2Refusal
	refusedModelTypes["mimo_v2_flash"] = mimoV2Refusal
}
