package model

import (
	"errors"
	"fmt"
)

// A model_type membudget has no family for may still be a plain decoder:
// vLLM serves many such models through its Transformers backend. When its
// config has the standard decoder keys, ParseGeneric reads it as one: KV
// from those keys (every layer full attention), weights only from its
// checkpoint's headers (the caller attaches them; without them it must
// refuse), and every answer says so (Arch.Notice).

// GenericModelType is the checkpoint family a generic decoder's tensors are
// read by: Llama's names, and every other tensor whole on every rank.
const GenericModelType = "generic decoder"

// genericClass is no transformers class: it reads the spellings other
// classes' attribute_map give the standard keys, and fills nothing (the
// model's own class is not known).
var genericClass = configClass{
	Name: "GPT2Config/FalconConfig",
	// GPT2Config (n_embd, n_positions, n_head, n_layer, n_inner);
	// FalconConfig (n_layer, n_head, n_embed, n_head_kv, multi_query; its
	// later releases name the KV heads num_kv_heads and ignore multi_query
	// under new_decoder_architecture) and vLLM's RWConfig for the
	// RefinedWeb checkpoints (vllm/transformers_utils/configs/falcon.py at
	// vLLM main ffd91ee17a: n_head_kv); ExaoneConfig and GLMConfig
	// (num_layers).
	Source: "src/transformers/models/gpt2/configuration_gpt2.py@01ae98ae24, src/transformers/models/falcon/configuration_falcon.py@055855363e",
	Aliases: []classAlias{
		{From: "n_embd", To: "hidden_size"}, {From: "n_embed", To: "hidden_size"},
		{From: "n_layer", To: "num_hidden_layers"}, {From: "num_layers", To: "num_hidden_layers"},
		{From: "n_head", To: "num_attention_heads"},
		{From: "n_head_kv", To: "num_key_value_heads"}, {From: "num_kv_heads", To: "num_key_value_heads"},
		// Falcon and GPTBigCode: one KV head shared by every query head.
		{From: "multi_query", To: "num_key_value_heads", IfTrue: "1", Unless: "new_decoder_architecture"},
		{From: "n_positions", To: "max_position_embeddings"},
		{From: "n_inner", To: "intermediate_size"},
	},
}

func init() {
	classes[GenericModelType] = &genericClass
	checkpointFamilies[GenericModelType] = ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms})
}

// ErrNotADecoder is wrapped by ParseGeneric's error for a config that is
// not a plain decoder's.
var ErrNotADecoder = errors.New("not read as a generic decoder")

// ParseGeneric reads a config.json of a model_type the model has no family
// for as a generic decoder: the standard keys (hidden_size,
// num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim,
// intermediate_size, vocab_size, max_position_embeddings, and the spellings
// of genericClass), every layer full attention. An encoder-decoder, or a
// config that lacks a key, is an error naming it, which wraps
// ErrNotADecoder. The Arch has Generic set: its weights are meant to come
// from its checkpoint (AttachCheckpoint), which the caller must attach or
// refuse it.
func ParseGeneric(file string, data []byte, opts ...Option) (*Arch, error) {
	var errs []error
	o, hf, err := parseConfigFiles(file, data, opts, &errs)
	if err != nil {
		return nil, err
	}
	mt := o.str("model_type")
	if o.boolOr("is_encoder_decoder", false) {
		o.fail("is_encoder_decoder", "true: an encoder-decoder is not a decoder")
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrNotADecoder, errors.Join(errs...))
	}
	a := &Arch{Source: file, ModelType: mt, Generic: true, Architectures: o.strings("architectures")}
	fillClass(GenericModelType, o, a)
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.OutBias = a.AttnBias
	a.MLPBias = o.boolOr("mlp_bias", false)
	// Every layer attends in full, whatever layer_types or sliding_window
	// say: the sliding layers of a family not known are not known.
	a.layerTypes = nil
	a.uniformLayers(o, 0)
	readRemoteConfig(o, mt, a)
	if len(errs) == 0 {
		a.Quant = readQuant(o, o, a, hf)
	}
	if len(errs) == 0 {
		a.check(o, o)
	}
	if len(errs) == 0 {
		if err := checkINCFused(a); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrNotADecoder, errors.Join(errs...))
	}
	return a, nil
}

// Notice is what every answer about a must say first, "" when nothing: a
// generic decoder's sizing is from its checkpoint and the standard keys
// only.
func (a *Arch) Notice() string {
	if !a.Generic {
		return ""
	}
	return fmt.Sprintf("sized as a generic decoder: `%s` is not a family membudget knows; weights from the checkpoint, KV from the standard keys", a.ModelType)
}

// checkpointFamilyOf returns the rules a's checkpoint is read by.
func checkpointFamilyOf(a *Arch) (checkpointFamily, bool) {
	if a.Generic {
		return checkpointFamilies[GenericModelType], true
	}
	f, ok := checkpointFamilies[a.ModelType]
	return f, ok
}
