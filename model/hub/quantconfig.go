package hub

import (
	"context"
	"encoding/json"
	"errors"
)

// QuantConfigFile is the file beside config.json in which ModelOpt
// checkpoints (modelopt 0.29 and before) keep their quantization, such as
// nvidia/Llama-3.1-70B-Instruct-FP8's; vLLM reads it only when config.json
// has no quantization_config (vllm/transformers_utils/config.py:755-766).
const QuantConfigFile = "hf_quant_config.json"

// MaxQuantConfigBytes caps an hf_quant_config.json. Most are a few KiB
// (the shipped ones, 218 B to 4 KiB); a MIXED_PRECISION one lists each
// quantized module once, fewer entries than an index's one per tensor, so
// an index's cap, MaxIndexBytes, bounds it too.
const MaxQuantConfigBytes = MaxIndexBytes

// HFQuantConfig returns the model's hf_quant_config.json and the path
// messages name it by (path is "" when found is false), looked for as vLLM looks for it
// (vllm/transformers_utils/config.py:755-766): only when config.json has
// no quantization_config, else found is false and nothing is read or
// fetched. It is
//
//   - for a path, the file in the directory given, or beside a file named
//     config.json (a config under another name stands alone: none), read
//     as the checkpoint is (links followed, a FIFO or a device refused,
//     the size capped at MaxQuantConfigBytes);
//   - for a shipped model, the one Resolver.ShippedQuantConfig returns;
//   - for a cache or Hub model, the file beside config.json in the
//     snapshot, fetched at the same commit when it is not there and not
//     recorded missing (.no_exist), and then saved in the cache as
//     config.json is. The Hub's 404 means none (recorded in .no_exist when
//     its X-Error-Code is EntryNotFound, as huggingface_hub records it);
//     any other failure is an error.
//
// Offline, a file neither cached nor recorded missing gives an error
// wrapping ErrOffline: vLLM then reads the model as having none
// (vllm/transformers_utils/repo_utils.py, list_repo_files answers [] under
// OfflineModeIsEnabled), which the caller may do too, saying so. What did
// not stop the reading (a file that could not be saved) is appended to
// m.Warnings.
func (m *Model) HFQuantConfig(ctx context.Context) (data []byte, path string, found bool, err error) {
	if m.res == nil {
		return nil, "", false, errors.New("hub: HFQuantConfig of a Model that Resolve did not make")
	}
	if declaresQuantization(m.Config) {
		return nil, "", false, nil
	}
	if m.Source.Kind == SourceShipped {
		r := m.res
		if r.ShippedQuantConfig == nil {
			return nil, "", false, nil
		}
		data, path, ok := r.ShippedQuantConfig(m.shippedID)
		if !ok {
			return nil, "", false, nil
		}
		return data, path, true, nil
	}
	return m.besideFile(ctx, QuantConfigFile, MaxQuantConfigBytes)
}

// declaresQuantization reports whether config.json has a quantization_config
// that is not null, as vLLM's config_dict.get("quantization_config") sees
// it; a config.json that is not a JSON object counts as one, so that
// nothing is read for it (its parser reports what is wrong).
func declaresQuantization(config []byte) bool {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(config, &top); err != nil {
		return true
	}
	qc, ok := top["quantization_config"]
	return ok && string(qc) != "null"
}
