package model

import (
	"encoding/json"
	"math"
	"strconv"

	"membudget/budget"
)

func init() {
	// NVIDIA's Llama-Nemotron checkpoints name their tensors as Llama's
	// (model.layers.N.self_attn.q_proj, mlp.gate_proj, input_layernorm,
	// ...), a no-op block's absent: DeciLMForCausalLM's hf_to_vllm_mapper
	// stacks them as Llama's (nemotron_nas.py:315-329).
	register("nemotron-nas", flat(readNemotronNAS), ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}))
	registerArchitectures("nemotron-nas", "DeciLMForCausalLM")
}

// readNemotronNAS reads Llama-Nemotron's DeciLM (model_type nemotron-nas,
// DeciLMForCausalLM, vllm/model_executor/models/nemotron_nas.py at
// d18bb7b): Llama's embedding, head and final norm (:240-271, 368-383),
// and layers that block_configs shape one by one (:123-190). A block's
// attention is LlamaAttention with num_attention_heads // n_heads_in_group
// KV heads and its input_layernorm, or, with attention.no_op, nothing at
// all (no KV cache: vllm/config/model.py:1566-1568 counts the layers that
// attend); its FFN is LlamaMLP of _ffn_mult_to_intermediate_size(ffn_mult,
// hidden_size) = int(2 x ffn_mult x hidden_size / 3) rounded up to a
// multiple of 256 (:60-70, 166-173) and its post_attention_layernorm, or,
// with ffn.no_op, nothing. ffn_mult is the block config's, rounded to 6
// places (the checkpoint's block_config.py FFNConfig.__post_init__).
// vLLM's KV cache reads the first attending block's KV heads
// (transformers_utils/model_arch_config_convertor.py:564-572).
//
// The config class is the checkpoint's remote DeciLMConfig, which
// membudget has not read: a key the file omits stays an error naming it.
// vLLM ignores a block's window_length and sink tokens: DeciLMAttention
// is LlamaAttention (:73-120), which slides only the layers the config's
// layer_types names sliding_attention (llama.py:183-202; NVIDIA's configs
// have none), and so does membudget. What vLLM cannot build is refused: a
// sub-block replace_with_linear (block_config.py nulls n_heads_in_group
// and ffn_mult, which nemotron_nas.py:150 and :169 then divide or
// multiply), fewer block_configs than layers (:133 indexes them by
// layer); blocks whose KV heads differ are refused too, membudget sizing
// one KV head count for every attending layer.
func readNemotronNAS(o jsonObject, a *Arch) {
	readCommon(o, a)
	// nemotron_nas.py:140-146: attention_bias (or bias) biases o_proj too,
	// and qkv_bias, where the config has it, the q, k and v projections.
	readLlamaAttentionBias(o, a)
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.uniformLayers(o, 0)
	a.tree.sublayerNorms = true
	if !o.has("block_configs") {
		o.fail("block_configs", "missing (required: DeciLM shapes every layer by its block config, nemotron_nas.py:133)")
		return
	}
	var blocks []json.RawMessage
	if err := json.Unmarshal(o.m["block_configs"], &blocks); err != nil {
		o.fail("block_configs", "must be a list of objects, got %s", short(o.m["block_configs"]))
		return
	}
	if len(a.Layers) == 0 {
		return
	}
	if len(blocks) < len(a.Layers) {
		o.fail("block_configs", "has %d entries for %d layers (vLLM reads block_configs[layer_idx], nemotron_nas.py:133)", len(blocks), len(a.Layers))
		return
	}
	a.Intermediate = 0
	var kvHeads uint64
	for i := range a.Layers {
		attn, ffn, ok := readDecilmBlock(o, i, blocks[i])
		if !ok {
			return
		}
		l := &a.Layers[i]
		if attn.boolOr("no_op", false) {
			l.Kind = NoMixer
		} else {
			kvHeads = decilmKVHeads(attn, a.Heads, kvHeads)
		}
		if ffn.boolOr("no_op", false) {
			l.NoMLP = true
			continue
		}
		l.Intermediate = decilmIntermediate(ffn, a.Hidden)
		a.Intermediate = max(a.Intermediate, l.Intermediate)
	}
	if kvHeads == 0 {
		// vLLM raises for a model with no attending block
		// (model_arch_config_convertor.py:564-581).
		o.fail("block_configs", "no block attends: vLLM cannot derive the KV heads (model_arch_config_convertor.py:564-581)")
		return
	}
	// Arch.Intermediate is the widest block's: the activation peak's.
	a.KVHeads = kvHeads
}

// readDecilmBlock reads block_configs[i]'s attention and ffn sub-blocks, and
// false where the block is refused: not an object, a sub-block missing
// (BlockConfig has no default for either) or replaced with a linear layer.
func readDecilmBlock(o jsonObject, i int, raw json.RawMessage) (attn, ffn jsonObject, ok bool) {
	b, ok := o.element("block_configs", i, raw)
	if !ok {
		return attn, ffn, false
	}
	attn, hasAttn := b.object("attention")
	ffn, hasFFN := b.object("ffn")
	if !hasAttn || !hasFFN {
		key := "attention"
		if hasAttn {
			key = "ffn"
		}
		b.fail(key, "missing (required: BlockConfig has no default for it)")
		return attn, ffn, false
	}
	if refusedLinear(attn) || refusedLinear(ffn) {
		return attn, ffn, false
	}
	return attn, ffn, true
}

// decilmKVHeads is the model's KV heads after an attending block's
// n_heads_in_group (num_attention_heads // n_heads_in_group,
// nemotron_nas.py:150): kvHeads, the attending blocks' before it, unless
// it is the first; a group that does not divide heads, or gives another
// count than the blocks before, is refused.
func decilmKVHeads(attn jsonObject, heads, kvHeads uint64) uint64 {
	group := attn.uint("n_heads_in_group")
	switch {
	case group == 0 && attn.has("n_heads_in_group"):
		attn.fail("n_heads_in_group", "must be above 0")
	case group == 0:
	case heads%group != 0:
		attn.fail("n_heads_in_group", "%d does not divide num_attention_heads %d", group, heads)
	case kvHeads == 0:
		return heads / group
	case heads/group != kvHeads:
		attn.fail("n_heads_in_group", "%d gives %d KV heads, another attending layer %d: membudget sizes one KV head count for every attending layer", group, heads/group, kvHeads)
	}
	return kvHeads
}

// refusedLinear refuses a sub-block replaced with a linear layer, which
// vLLM's DeciLM does not build: block_config.py nulls the sub-block's
// n_heads_in_group or ffn_mult, which nemotron_nas.py:150 divides by and
// :169-171 multiplies.
func refusedLinear(sub jsonObject) bool {
	if sub.boolOr("replace_with_linear", false) {
		sub.fail("replace_with_linear", "true: vLLM's DeciLM builds no linear replacement (nemotron_nas.py:148-187 read the heads group or ffn_mult it nulls)")
		return true
	}
	return false
}

// decilmIntermediate is a DeciLM FFN block's width (nemotron_nas.py:60-70):
// int(2 x ffn_mult x hidden / 3), in Python's float arithmetic and after
// FFNConfig's round(ffn_mult, 6), rounded up to a multiple of 256.
func decilmIntermediate(ffn jsonObject, hidden uint64) uint64 {
	m, ok := ffn.number("ffn_mult")
	if !ok {
		if !ffn.has("ffn_mult") {
			ffn.fail("ffn_mult", "missing (required for an FFN that is not a no-op: block_config.py asserts it)")
		}
		return 0
	}
	// Python's round(x, 6) is the correctly rounded decimal, as
	// FormatFloat's.
	m, _ = strconv.ParseFloat(strconv.FormatFloat(m, 'f', 6, 64), 64)
	n := 2 * m * float64(hidden) / 3
	if n < 1 || n > 1<<22 {
		ffn.fail("ffn_mult", "%v gives an FFN of %.0f for hidden_size %d, beyond any real model", m, n, hidden)
		return 0
	}
	return budget.RoundUp(uint64(math.Trunc(n)), 256)
}
