package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
)

// ModulesFile is the sentence-transformers file beside config.json that
// lists a checkpoint's modules; vLLM reads it to pick the pooling runner
// and its pooler (get_pooling_config, vllm/transformers_utils/config.py:
// 816-887 at d18bb7b).
const ModulesFile = "modules.json"

// The module types vLLM looks for in modules.json (config.py:844-862).
const (
	stPoolingType   = "sentence_transformers.models.Pooling"
	stNormalizeType = "sentence_transformers.models.Normalize"
)

// SentenceTransformers is what a checkpoint's sentence-transformers files
// say of its pooling, as vLLM's get_pooling_config reads them: a
// modules.json with a Pooling module, and that module's config.json.
type SentenceTransformers struct {
	// File names the modules.json read, for messages.
	File string
	// PoolingConfig is the Pooling module's config.json, relative to the
	// checkpoint (1_Pooling/config.json).
	PoolingConfig string
	// SeqPoolingType is the sequence pooling the Pooling module turns on
	// (CLS, LAST or MEAN) and TokPoolingType the token pooling (ALL or
	// STEP); "" when it turns none on (the model's default then holds).
	SeqPoolingType, TokPoolingType string
	// Normalize says modules.json lists a Normalize module (vLLM's
	// use_activation).
	Normalize bool
}

// ParseModules reads modules.json (data, named file in messages) as vLLM
// does: nil when it lists no Pooling module, for which get_pooling_config
// returns None; else the Pooling module's config.json path, the pooling
// types still to read (see [SentenceTransformers.ReadPoolingConfig]).
// vLLM indexes each entry's "type" and the Pooling entry's "path", so a
// file that is not a list of objects with them, where vLLM would raise, is
// an error; so is a path that could leave the checkpoint.
func ParseModules(file string, data []byte) (*SentenceTransformers, error) {
	var modules []map[string]json.RawMessage
	if err := json.Unmarshal(data, &modules); err != nil {
		return nil, fmt.Errorf("%s: want a JSON list of modules, each an object with a \"type\": %v", file, err)
	}
	st := &SentenceTransformers{File: file}
	pooling := -1
	for i, m := range modules {
		var typ string
		if err := json.Unmarshal(m["type"], &typ); err != nil {
			return nil, fmt.Errorf("%s: module %d has no \"type\" string (vLLM reads item[\"type\"] of every module)", file, i)
		}
		switch typ {
		case stPoolingType:
			if pooling < 0 {
				pooling = i // vLLM takes the first (next(...)).
			}
		case stNormalizeType:
			st.Normalize = true
		}
	}
	if pooling < 0 {
		return nil, nil
	}
	var dir string
	if err := json.Unmarshal(modules[pooling]["path"], &dir); err != nil {
		return nil, fmt.Errorf("%s: the Pooling module (module %d) has no \"path\" string (vLLM reads its config.json from it)", file, pooling)
	}
	if err := checkModuleDir(dir); err != nil {
		return nil, fmt.Errorf("%s: the Pooling module's path %q: %v", file, dir, err)
	}
	st.PoolingConfig = dir + "/config.json"
	return st, nil
}

// checkModuleDir refuses a module folder that is not a clean relative
// slash path inside the checkpoint: it is joined to the checkpoint's
// directory or a Hub URL.
func checkModuleDir(dir string) error {
	switch {
	case dir == "":
		return fmt.Errorf("empty (vLLM would read /config.json)")
	case strings.ContainsAny(dir, `\:`) || strings.ContainsFunc(dir, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return fmt.Errorf("a backslash, colon or control character is refused")
	case path.IsAbs(dir) || slices.Contains(strings.Split(dir, "/"), "..") || path.Clean(dir) != dir:
		return fmt.Errorf("not a clean relative path inside the checkpoint")
	}
	return nil
}

// ReadPoolingConfig reads the Pooling module's config.json (data; nil when
// the checkpoint has none, which vLLM reads as {}) into st's pooling types
// as get_pooling_config does (config.py:864-885): each key whose value is
// true names a type, "pooling_mode_" dropped, cut at its first "_",
// "lasttoken" read as LAST (parse_pooling_type, :890-901), upper-cased;
// one of CLS, LAST or MEAN is the sequence pooling, ALL or STEP the token
// pooling (vllm/config/pooler.py:16-20), any other skipped (MAX,
// WEIGHTEDMEAN). Keys are taken in the file's order, a later one
// overriding, as Python's dict keeps them.
func (st *SentenceTransformers) ReadPoolingConfig(data []byte) error {
	if data == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("%s: want a JSON object", st.PoolingConfig)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%s: %v", st.PoolingConfig, err)
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s: key %q: %v", st.PoolingConfig, key, err)
		}
		if strings.TrimSpace(string(v)) != "true" {
			continue
		}
		switch typ := poolingTypeOf(key); typ {
		case "CLS", "LAST", "MEAN":
			st.SeqPoolingType = typ
		case "ALL", "STEP":
			st.TokPoolingType = typ
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("%s: %v", st.PoolingConfig, err)
	}
	// get_hf_file_to_dict reads the file with json.load
	// (vllm/transformers_utils/repo_utils.py:395-396 at main d18bb7b),
	// which refuses anything after the object but JSON's whitespace
	// ("Extra data"): so does membudget, rather than size the serve vLLM
	// would not start.
	if end := dec.InputOffset(); len(bytes.TrimLeft(data[end:], " \t\r\n")) != 0 {
		return fmt.Errorf("%s: text after the JSON object at byte %d, which vLLM's json.load refuses (Extra data)", st.PoolingConfig, end)
	}
	return nil
}

// poolingTypeOf is vLLM's parse_pooling_type of a Pooling config key.
func poolingTypeOf(key string) string {
	key = strings.ReplaceAll(key, "pooling_mode_", "")
	key, _, _ = strings.Cut(key, "_")
	if strings.Contains(key, "lasttoken") {
		key = "last"
	}
	return strings.ToUpper(key)
}
