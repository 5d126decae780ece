package vllm

import (
	"fmt"
	"math"
	"strings"

	"membudget/model"
)

// maxLenKeys is the config keys vLLM derives a model's maximum length from,
// in the order it reads them: the smallest wins, the first of equals names
// it (vllm/transformers_utils/model_arch_config_convertor.py:388-421,
// derive_max_model_len_and_key).
var maxLenKeys = []string{
	"max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
	"max_target_positions", "max_sequence_length", "max_seq_length", "seq_len",
}

// maxLenDerivation is the longest max_model_len vLLM allows a model and the
// one it picks when none is given, with how it got them.
type maxLenDerivation struct {
	limit uint64 // the derived max_model_len: above it vLLM refuses without VLLM_ALLOW_LONG_MAX_MODEL_LEN
	def   uint64 // the default max_model_len
	key   string // the config key the limit comes from
	keyed uint64 // that key's value
	// how says how rope scaling changed the key's value ("" when it did not).
	how string
	// defHow says why the default differs from the limit ("" when it does not).
	defHow string
}

// deriveMaxLen is vLLM's derivation of a model's maximum length
// (vllm/config/model.py:2338-2475, _get_and_verify_max_len): the smallest of
// the length keys, replaced by model_max_length when the config has it;
// then rope scaling, unless the model type is Gemma 3's, whose length is
// already scaled: every type but llama3 and longrope multiplies by its
// factor, YaRN from original_max_position_embeddings; the default is the
// limit, except under LongRoPE, which defaults to its original length. A
// config without any key is taken as 2048 long, as vLLM does with a warning.
func deriveMaxLen(a *model.Arch) (maxLenDerivation, error) {
	keys := a.MaxLenKeys
	// A config read from a file has its keys, none for BLOOM's; an Arch
	// built by hand has nil, and its MaxPosition stands for them.
	if keys == nil && a.MaxPosition > 0 {
		keys = map[string]uint64{"max_position_embeddings": a.MaxPosition}
	}
	d := maxLenDerivation{limit: math.MaxUint64}
	for _, k := range maxLenKeys {
		if v, ok := keys[k]; ok && v < d.limit {
			d.limit, d.key = v, k
		}
	}
	if v, ok := keys["model_max_length"]; ok && v > 0 {
		// For Command-R and Cohere: model_max_length replaces the rest.
		d.limit, d.key = v, "model_max_length"
	}
	if d.key == "" {
		d.limit, d.key = defaultMaxLen, noLengthKey
	}
	d.keyed = d.limit
	rs := a.RopeScaling
	if rs != nil && !strings.Contains(a.ModelType, "gemma3") {
		factor := rs.Factor
		if math.IsNaN(factor) || math.IsInf(factor, 0) || factor < 0 {
			return d, settingErr("max-model-len", "", "the config's rope_scaling factor %v is not a scaling factor", factor)
		}
		if factor == 0 {
			factor = 1 // no factor, or null: vLLM takes 1.0
		}
		base := d.limit
		switch rs.Type {
		case "llama3", "longrope", "su":
			factor = 1
		case "yarn":
			// Only "yarn": deepseek_yarn, which DeepSeek-V4's config names
			// (DeepSeek-V3's says yarn; vLLM renames it in the model, after
			// this), multiplies the length key like the generic types, at
			// every release sized (vllm/config/model.py:2406-2423 at
			// d18bb7b; the rule unchanged since #1264, 2023).
			if rs.OriginalMaxPosition == 0 {
				return d, settingErr("max-model-len", "", "the config's rope_scaling of type yarn has no original_max_position_embeddings, which vLLM derives the maximum length from")
			}
			base = rs.OriginalMaxPosition
		}
		if limit := scaleLen(base, factor); limit != d.limit {
			// Said only where it moves the limit (gpt-oss's YaRN gives back
			// its max_position_embeddings).
			d.how = fmt.Sprintf("rope_scaling %s: %d x factor %v", rs.Type, base, factor)
			if rs.Type == "yarn" {
				d.how = fmt.Sprintf("rope_scaling yarn: original_max_position_embeddings %d x factor %v", base, factor)
			}
			d.limit = limit
		}
	}
	d.def = d.limit
	if rs != nil && (rs.Type == "longrope" || rs.Type == "su") && rs.OriginalMaxPosition > 0 {
		// LongRoPE defaults to its original length "to avoid performance
		// degradation for shorter sequences" (vllm/config/model.py:2428-2441).
		d.def = rs.OriginalMaxPosition
		d.defHow = fmt.Sprintf("LongRoPE's original_max_position_embeddings %d (vLLM's default under longrope; up to %d is allowed)", d.def, d.limit)
	}
	return d, nil
}

// scaleLen is int(n x factor) as Python computes it, saturating.
func scaleLen(n uint64, factor float64) uint64 {
	v := math.Floor(float64(n) * factor)
	if v >= math.MaxUint64 {
		return math.MaxUint64
	}
	return uint64(v)
}

// defaultMaxLen is the max_model_len vLLM assumes for a config with none of
// the length keys, with a warning (vllm/config/model.py:2382-2388 at
// d18bb7b); noLengthKey is the key a derivation then names.
const (
	defaultMaxLen = 2048
	noLengthKey   = "(none: vLLM assumes 2048)"
)

// explain names the limit as vLLM's error does: the key and its value, and
// the rope scaling that moved it.
func (d maxLenDerivation) explain() string {
	s := fmt.Sprintf("%s=%d in the model's config.json", d.key, d.keyed)
	if d.key == noLengthKey {
		s = fmt.Sprintf("the model's config.json has none of the length keys, and vLLM assumes %d (vllm/config/model.py:2382-2388 at d18bb7b)", d.keyed)
	}
	if d.how != "" {
		s += ", " + d.how
	}
	return s
}
