package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// ConfigError is a finding in a config.json: File names the file, Key the
// key (with its parent, text_config.hidden_size) where there is one.
type ConfigError struct {
	File   string
	Key    string
	Detail string
	Err    error // a sentinel such as ErrUnknownModelType, or nil
}

// Unwrap returns the sentinel the error carries, for errors.Is.
func (e *ConfigError) Unwrap() error { return e.Err }

// Error returns the file, the key and why it is refused.
func (e *ConfigError) Error() string {
	if e.Key == "" {
		return e.File + ": " + e.Detail
	}
	return e.File + ": " + e.Key + ": " + e.Detail
}

// ErrUnknownModelType is wrapped by the error for a model_type the model
// does not know; it never guesses.
var ErrUnknownModelType = errors.New("unknown model_type")

// jsonObject is one level of a config.json, with the key prefix that errors
// print ("text_config." for a nested text config).
type jsonObject struct {
	file   string
	prefix string
	m      map[string]json.RawMessage
	raw    json.RawMessage // the object's text, for the order of its keys
	errs   *[]error
}

// A finding already recorded is not recorded again: a key two readers
// read (max_position_embeddings, both a required size and one of vLLM's
// length keys) is reported once.
func (o jsonObject) fail(key, format string, args ...any) {
	e := &ConfigError{File: o.file, Key: o.prefix + key, Detail: fmt.Sprintf(format, args...)}
	for _, seen := range *o.errs {
		if ce, ok := seen.(*ConfigError); ok && *ce == *e {
			return
		}
	}
	*o.errs = append(*o.errs, e)
}

// has reports whether key is present and not null (config.json writes null
// for "none").
func (o jsonObject) has(key string) bool {
	v, ok := o.m[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// uint reads a required non-negative integer.
func (o jsonObject) uint(key string) uint64 {
	if !o.has(key) {
		o.fail(key, "missing (required)")
		return 0
	}
	return o.uintValue(key)
}

// uintOr reads an optional non-negative integer; def applies when the key is
// absent or null, which is what the family's transformers config class does.
func (o jsonObject) uintOr(key string, def uint64) uint64 {
	if !o.has(key) {
		return def
	}
	return o.uintValue(key)
}

func (o jsonObject) uintValue(key string) uint64 {
	raw := bytes.TrimSpace(o.m[key])
	n, err := strconv.ParseUint(string(raw), 10, 64)
	if err != nil {
		// 4096.0 is still an integer count.
		if f, ferr := strconv.ParseFloat(string(raw), 64); ferr == nil && f >= 0 && f == math.Trunc(f) && f < 1<<53 {
			return uint64(f)
		}
		o.fail(key, "must be a non-negative integer, got %s", short(raw))
		return 0
	}
	return n
}

// intOr reads an optional integer that may be negative (GPTQ's group_size
// -1); def applies when it is absent or null.
func (o jsonObject) intOr(key string, def int64) int64 {
	if !o.has(key) {
		return def
	}
	raw := bytes.TrimSpace(o.m[key])
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		o.fail(key, "must be an integer, got %s", short(raw))
		return 0
	}
	return n
}

// number reads an optional number; ok is false when the key is absent or
// null. A value that is not a finite number is an error naming the key.
func (o jsonObject) number(key string) (v float64, ok bool) {
	if !o.has(key) {
		return 0, false
	}
	if err := json.Unmarshal(o.m[key], &v); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		o.fail(key, "must be a finite number, got %s", short(o.m[key]))
		return 0, false
	}
	return v, true
}

func (o jsonObject) str(key string) string {
	if !o.has(key) {
		return ""
	}
	var s string
	if err := json.Unmarshal(o.m[key], &s); err != nil {
		o.fail(key, "must be a string, got %s", short(o.m[key]))
	}
	return s
}

// strOr is key's string, def when absent, as boolOr and uintOr are.
func (o jsonObject) strOr(key, def string) string {
	if !o.has(key) {
		return def
	}
	return o.str(key)
}

func (o jsonObject) boolOr(key string, def bool) bool {
	if !o.has(key) {
		return def
	}
	var b bool
	if err := json.Unmarshal(o.m[key], &b); err != nil {
		o.fail(key, "must be true or false, got %s", short(o.m[key]))
	}
	return b
}

func (o jsonObject) strings(key string) []string {
	if !o.has(key) {
		return nil
	}
	var s []string
	if err := json.Unmarshal(o.m[key], &s); err != nil {
		o.fail(key, "must be a list of strings, got %s", short(o.m[key]))
	}
	return s
}

func (o jsonObject) uints(key string) []uint64 {
	if !o.has(key) {
		return nil
	}
	var s []uint64
	if err := json.Unmarshal(o.m[key], &s); err != nil {
		o.fail(key, "must be a list of non-negative integers, got %s", short(o.m[key]))
	}
	return s
}

// object reads a nested object; ok is false when it is absent or null.
func (o jsonObject) object(key string) (jsonObject, bool) {
	if !o.has(key) {
		return jsonObject{}, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(o.m[key], &m); err != nil {
		o.fail(key, "must be an object, got %s", short(o.m[key]))
		return jsonObject{}, false
	}
	return jsonObject{file: o.file, prefix: o.prefix + key + ".", m: m, raw: o.m[key], errs: o.errs}, true
}

// element reads list key's entry i, raw, as an object named key[i].
func (o jsonObject) element(key string, i int, raw json.RawMessage) (jsonObject, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		o.fail(fmt.Sprintf("%s[%d]", key, i), "must be an object, got %s", short(raw))
		return jsonObject{}, false
	}
	return jsonObject{file: o.file, prefix: fmt.Sprintf("%s%s[%d].", o.prefix, key, i), m: m, raw: raw, errs: o.errs}, true
}

// keys lists the object's keys in the order the file gives them (which
// compressed-tensors' config groups and nested rope parameters depend on).
func (o jsonObject) keys() []string {
	var keys []string
	if o.raw != nil {
		dec := json.NewDecoder(bytes.NewReader(o.raw))
		if t, err := dec.Token(); err == nil && t == json.Delim('{') {
			for dec.More() {
				kt, err := dec.Token()
				k, ok := kt.(string)
				if err != nil || !ok {
					break
				}
				keys = append(keys, k)
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					break
				}
			}
		}
		if len(keys) == len(o.m) {
			return keys
		}
	}
	keys = keys[:0]
	for k := range o.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func short(raw []byte) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// Option changes how ParseConfig reads a config.
type Option func(*parseOptions)

type parseOptions struct {
	hfQuantFile string
	hfQuant     []byte
}

// WithHFQuantConfig gives ParseConfig the checkpoint's hf_quant_config.json
// (ModelOpt's: {"producer": ..., "quantization": {"quant_algo": ...}}),
// which vLLM reads only when config.json has no quantization_config
// (vllm/transformers_utils/config.py:755-766). file names it in errors.
func WithHFQuantConfig(file string, data []byte) Option {
	return func(p *parseOptions) { p.hfQuantFile, p.hfQuant = file, data }
}

// parseConfigFiles parses config.json (file, data) and the
// hf_quant_config.json an option gives, if any (nil when none), recording
// each finding in errs.
func parseConfigFiles(file string, data []byte, opts []Option, errs *[]error) (o jsonObject, hf *jsonObject, err error) {
	var po parseOptions
	for _, opt := range opts {
		opt(&po)
	}
	if o, err = parseObject(file, data, errs); err != nil {
		return o, nil, err
	}
	if po.hfQuant != nil {
		h, err := parseObject(po.hfQuantFile, po.hfQuant, errs)
		if err != nil {
			return o, nil, err
		}
		hf = &h
	}
	return o, hf, nil
}

// ParseConfig reads a Hugging Face config.json. file names it in errors.
// The keys it omits are what its transformers config class gives them
// (declareClass), each recorded in Arch.Defaulted. A model_type the model
// does not know is read as the family its architectures or auto_map name,
// with no class defaults (Arch.ReadAs says so), or else is an error wrapping
// ErrUnknownModelType (see [ParseGeneric]). A missing required key, a value
// of the wrong type or an inconsistent shape is an error naming the file and
// the key; all findings are joined.
func ParseConfig(file string, data []byte, opts ...Option) (*Arch, error) {
	var errs []error
	o, hf, err := parseConfigFiles(file, data, opts, &errs)
	if err != nil {
		return nil, err
	}
	mt := o.str("model_type")
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if mt == "" {
		return nil, &ConfigError{File: file, Key: "model_type", Detail: "missing (required)"}
	}
	a := &Arch{Source: file, ModelType: mt, Architectures: o.strings("architectures")}
	var text jsonObject
	if _, ok := families[mt]; ok {
		text = readFamily(mt, o, a)
	} else if fam, ok := vllmClassTypes[mt]; ok {
		// vLLM's own class reads it (Falcon's RWConfig for RefinedWeb):
		// its defaults are known, and the family's reader sizes it.
		a.ModelType = fam
		fillClass(mt, o, a)
		text = families[fam](o, a)
	} else if known, arch, ok := remoteArchitecture(o); ok {
		// vLLM picks the model by its architecture, not its model_type
		// (vllm/model_executor/models/registry.py). The remote config
		// class's defaults are not transformers': none is filled, and a key
		// the file omits stays an error naming it.
		a.ModelType = known
		a.ReadAs = fmt.Sprintf("model_type %q is not one membudget knows; read as %s, the family of %s that the config names (trust_remote_code: the remote config class's defaults are not known, so none is filled)", mt, known, arch)
		text = families[known](o, a)
	} else if why := refusedModelTypes[mt]; why != "" {
		return nil, &ConfigError{File: file, Key: "model_type", Detail: fmt.Sprintf("%q: %s", mt, why)}
	} else {
		return nil, &ConfigError{File: file, Key: "model_type", Err: ErrUnknownModelType,
			Detail: fmt.Sprintf("%q: %v; known: %s", mt, ErrUnknownModelType, strings.Join(ModelTypes(), ", "))}
	}
	readRemoteConfig(o, mt, a)
	readPoolingDecoder(o, a)
	a.LanguageModelOnly = o.boolOr("language_model_only", false)
	if a.Pooler == nil && o.has("head_dtype") {
		a.HeadDtype = o.str("head_dtype")
	}
	if len(errs) == 0 {
		a.Quant = readQuant(o, text, a, hf)
	}
	if len(errs) == 0 {
		a.check(text, o)
	}
	if len(errs) == 0 {
		if err := checkINCFused(a); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return a, nil
}

// parseObject decodes a JSON object as Python's json module writes it:
// NaN and Infinity parse, a duplicated key is refused.
func parseObject(file string, data []byte, errs *[]error) (jsonObject, error) {
	// Configs are written by Python's json module, which spells non-finite
	// floats NaN and Infinity.
	data = fromPythonJSON(data)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return jsonObject{}, &ConfigError{File: file, Detail: "not a JSON object: " + err.Error()}
	}
	if dup, err := duplicateKey(data); err != nil {
		return jsonObject{}, &ConfigError{File: file, Detail: "not a JSON object: " + err.Error()}
	} else if dup != "" {
		return jsonObject{}, &ConfigError{File: file, Key: dup, Detail: "appears twice; which value is meant is not known"}
	}
	return jsonObject{file: file, m: m, raw: data, errs: errs}, nil
}

// readDtype reads torch_dtype, or dtype as transformers 5 writes it.
func readDtype(o jsonObject) string {
	for _, k := range []string{"torch_dtype", "dtype"} {
		if o.has(k) {
			d := o.str(k)
			if _, ok := dtypeBytes[d]; !ok {
				o.fail(k, "unsupported dtype %q; want bfloat16, float16 or float32", d)
			}
			return d
		}
	}
	// transformers' PretrainedConfig leaves torch_dtype None: the weights'
	// own dtype applies, which vLLM reads as float32 and serves as float16
	// (vllm/config/model.py _get_and_verify_dtype).
	return "float32"
}

var dtypeBytes = map[string]uint64{"bfloat16": 2, "float16": 2, "float32": 4}

// DtypeBytes is the size of one element of a torch dtype name (bfloat16,
// float16, float32); ok is false for another name.
func DtypeBytes(name string) (n uint64, ok bool) {
	n, ok = dtypeBytes[name]
	return n, ok
}

// maxLenKeys are the keys vLLM derives a model's maximum length from
// (vllm/transformers_utils/model_arch_config_convertor.py:388-421).
var maxLenKeys = []string{"max_position_embeddings", "n_positions", "max_seq_len", "seq_length", "model_max_length",
	"max_target_positions", "max_sequence_length", "max_seq_length", "seq_len"}

// readMaxLenKeys reads every length key present. A length written as a
// float beyond 2^64 (tokenizers' 1e30 "unlimited") saturates; a negative or
// fractional one is an error naming the key.
func readMaxLenKeys(o jsonObject) map[string]uint64 {
	keys := map[string]uint64{}
	for _, k := range maxLenKeys {
		if !o.has(k) {
			continue
		}
		raw := bytes.TrimSpace(o.m[k])
		if n, err := strconv.ParseUint(string(raw), 10, 64); err == nil {
			keys[k] = n
			continue
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		switch {
		case err != nil && errors.Is(err, strconv.ErrRange) && f > 0:
			keys[k] = math.MaxUint64
		case err != nil || f < 0 || f != math.Trunc(f):
			o.fail(k, "must be a non-negative integer, got %s", short(raw))
		case f >= math.MaxUint64:
			keys[k] = math.MaxUint64
		default:
			keys[k] = uint64(f)
		}
	}
	return keys
}

// defaultMaxLen is the length vLLM gives a config without any length key
// (default_max_len, vllm/config/model.py _get_and_verify_max_len, with a
// warning; :2382-2388 at jsboige/vllm ffd91ee), as BLOOM's and RWConfig's
// are.
const defaultMaxLen = 2048

// lenWithoutMaxPosition sets MaxPosition for a config class that has no
// max_position_embeddings (BLOOM's, vLLM's RWConfig), after readCommon read
// the default its caller stood in for it: vLLM takes the least of the
// length keys present, defaultMaxLen when there is none.
func (a *Arch) lenWithoutMaxPosition() {
	delete(a.MaxLenKeys, "max_position_embeddings")
	a.MaxPosition = defaultMaxLen
	if len(a.MaxLenKeys) > 0 {
		a.MaxPosition = math.MaxUint64
		for _, n := range a.MaxLenKeys {
			a.MaxPosition = min(a.MaxPosition, n)
		}
	}
}

// readCommon reads the keys every decoder family shares.
func readCommon(o jsonObject, a *Arch) {
	a.Dtype = readDtype(o)
	a.Hidden = o.uint("hidden_size")
	a.NumLayers = o.uint("num_hidden_layers")
	a.Heads = o.uint("num_attention_heads")
	// transformers: num_key_value_heads None means multi-head attention.
	a.KVHeads = o.uintOr("num_key_value_heads", a.Heads)
	// Required where a layer has a dense MLP (Arch.check): every layer of
	// Qwen3.5-MoE is MoE, and its configs leave it out.
	a.Intermediate = o.uintOr("intermediate_size", 0)
	a.Vocab = o.uint("vocab_size")
	a.MaxPosition = o.uint("max_position_embeddings")
	a.MaxLenKeys = readMaxLenKeys(o)
	if o.has("head_dim") {
		if a.HeadDim = o.uintValue("head_dim"); a.HeadDim == 0 {
			// transformers would divide hidden_size instead; a config that
			// says 0 says something no model has.
			o.fail("head_dim", "must be above 0 (leave it out to derive it from hidden_size / num_attention_heads)")
		}
	} else {
		a.derivedHeadDim(o)
	}
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", false)
	a.NormsPerLayer = 2
	a.tree = llamaTree()
	readRope(o, a)
	a.RotaryDim = rotaryDim(o, a, a.HeadDim)
	a.layerTypes = o.strings("layer_types")
	a.Rotary = []RotaryTable{{Name: "rotary_emb", Positions: rotaryRows(a.RopeScaling, a.MaxPosition, o), Dim: a.RotaryDim}}
	a.RopeKey = readRopeKey(o)
}

// derivedHeadDim is hidden_size / num_attention_heads, which must divide.
func (a *Arch) derivedHeadDim(o jsonObject) {
	if a.Heads == 0 {
		return
	}
	if a.Hidden%a.Heads != 0 {
		o.fail("num_attention_heads", "%d does not divide hidden_size %d and there is no head_dim", a.Heads, a.Hidden)
	}
	a.HeadDim = a.Hidden / a.Heads
}

// sparseLayers marks the MoE layers as transformers' Qwen MoE families do:
// sparse unless listed in mlp_only_layers, and only every
// decoder_sparse_step-th layer.
func (a *Arch) sparseLayers(o jsonObject) {
	step := o.uintOr("decoder_sparse_step", 1)
	dense := o.uints("mlp_only_layers")
	for i := range a.Layers {
		a.Layers[i].MoE = !slices.Contains(dense, uint64(i)) && a.Experts > 0 && step > 0 && (uint64(i)+1)%step == 0
	}
}

func setDefault(o jsonObject, key string, v uint64) {
	if !o.has(key) {
		o.m[key] = json.RawMessage(strconv.FormatUint(v, 10))
	}
}

// layerKinds are the layer_types values the model reads, as transformers
// and vLLM spell them.
var layerKinds = map[string]LayerKind{
	"full_attention":    FullAttention,
	"sliding_attention": SlidingAttention,
	"chunked_attention": ChunkedAttention,
	"linear_attention":  LinearAttention,
	"mamba":             Mamba,
}

// periodicLayers gives a config without layer_types the layer types its
// transformers class derives (vLLM reads config.layer_types): every layer
// sliding but each period-th, when the config has a sliding window (a null
// one leaves every layer full, as vLLM reads a None window).
func (a *Arch) periodicLayers(o jsonObject, period uint64) {
	if a.layerTypes != nil || period == 0 || !o.has("sliding_window") || a.NumLayers > 1<<16 {
		return
	}
	a.layerTypes = make([]string, a.NumLayers)
	for i := range a.layerTypes {
		a.layerTypes[i] = "sliding_attention"
		if (uint64(i)+1)%period == 0 {
			a.layerTypes[i] = "full_attention"
		}
	}
}

// uniformLayers builds the layer list: every layer dense full attention, or
// every layer sliding when window > 0; layer_types, where the config has it,
// decides instead.
func (a *Arch) uniformLayers(o jsonObject, window uint64) {
	if a.NumLayers > 1<<16 {
		o.fail("num_hidden_layers", "%d is not a plausible layer count", a.NumLayers)
		return
	}
	a.Layers = make([]Layer, a.NumLayers)
	if a.layerTypes != nil {
		if uint64(len(a.layerTypes)) != a.NumLayers {
			o.fail("layer_types", "has %d entries for %d layers", len(a.layerTypes), a.NumLayers)
			return
		}
		for i, t := range a.layerTypes {
			k, ok := layerKinds[t]
			if !ok {
				o.fail("layer_types", "layer %d: unsupported type %q; want full_attention, sliding_attention, chunked_attention, linear_attention or mamba", i, t)
				continue
			}
			a.Layers[i].Kind = k
		}
		if slices.Contains(a.layerTypes, "sliding_attention") {
			a.SlidingWindow = o.uint("sliding_window")
		}
		if slices.Contains(a.layerTypes, "chunked_attention") {
			a.AttentionChunkSize = o.uint("attention_chunk_size")
		}
		if slices.Contains(a.layerTypes, "linear_attention") && a.DeltaNet == nil {
			a.DeltaNet = readDeltaNet(o)
		}
		if slices.Contains(a.layerTypes, "mamba") && a.Mamba == nil {
			o.fail("layer_types", "mamba layers are read from hybrid_override_pattern (nemotron_h), not layer_types, for model_type %s", a.ModelType)
		}
		return
	}
	if window > 0 {
		for i := range a.Layers {
			a.Layers[i].Kind = SlidingAttention
		}
		a.SlidingWindow = window
	}
}
