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
	errs   *[]error
}

func (o jsonObject) fail(key, format string, args ...any) {
	*o.errs = append(*o.errs, &ConfigError{File: o.file, Key: o.prefix + key, Detail: fmt.Sprintf(format, args...)})
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
	return jsonObject{file: o.file, prefix: o.prefix + key + ".", m: m, errs: o.errs}, true
}

func short(raw []byte) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:37] + "..."
	}
	return s
}

// family reads one model_type's keys into an Arch.
type family func(o jsonObject, a *Arch)

var families = map[string]family{
	"llama":       readLlama,
	"mistral":     readMistral,
	"qwen2":       readQwen2,
	"qwen3":       readQwen3,
	"phi3":        readPhi3,
	"mixtral":     readMixtral,
	"qwen3_moe":   readQwen3MoE,
	"deepseek_v2": readDeepSeek,
	"deepseek_v3": readDeepSeek,
	"gemma2":      readGemma2,
	"gemma3":      readGemma3,
	"gemma3_text": readGemma3Text,
}

// ModelTypes lists the model_type values the model knows, sorted.
func ModelTypes() []string {
	var names []string
	for k := range families {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// ParseConfig reads a Hugging Face config.json. file names it in errors. An
// unknown model_type, a missing required key, a value of the wrong type or an
// inconsistent shape is an error naming the file and the key; all findings
// are joined.
func ParseConfig(file string, data []byte) (*Arch, error) {
	// Configs are written by Python's json module, which spells non-finite
	// floats NaN and Infinity.
	data = fromPythonJSON(data)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &ConfigError{File: file, Detail: "not a JSON object: " + err.Error()}
	}
	if dup, err := duplicateKey(data); err != nil {
		return nil, &ConfigError{File: file, Detail: "not a JSON object: " + err.Error()}
	} else if dup != "" {
		return nil, &ConfigError{File: file, Key: dup, Detail: "appears twice; which value is meant is not known"}
	}
	var errs []error
	o := jsonObject{file: file, m: m, errs: &errs}
	mt := o.str("model_type")
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if mt == "" {
		return nil, &ConfigError{File: file, Key: "model_type", Detail: "missing (required)"}
	}
	read, ok := families[mt]
	if !ok {
		return nil, &ConfigError{File: file, Key: "model_type", Err: ErrUnknownModelType,
			Detail: fmt.Sprintf("%q: %v; known: %s", mt, ErrUnknownModelType, strings.Join(ModelTypes(), ", "))}
	}
	a := &Arch{Source: file, ModelType: mt, Architectures: o.strings("architectures")}
	read(o, a)
	a.Quant = readQuant(o)
	if len(errs) == 0 {
		a.check(o)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return a, nil
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

// readCommon reads the keys every decoder family shares.
func readCommon(o jsonObject, a *Arch) {
	a.Dtype = readDtype(o)
	a.Hidden = o.uint("hidden_size")
	a.NumLayers = o.uint("num_hidden_layers")
	a.Heads = o.uint("num_attention_heads")
	// transformers: num_key_value_heads None means multi-head attention.
	a.KVHeads = o.uintOr("num_key_value_heads", a.Heads)
	a.Intermediate = o.uint("intermediate_size")
	a.Vocab = o.uint("vocab_size")
	a.MaxPosition = o.uint("max_position_embeddings")
	if o.has("head_dim") {
		if a.HeadDim = o.uintValue("head_dim"); a.HeadDim == 0 {
			// transformers would divide hidden_size instead; a config that
			// says 0 says something no model has.
			o.fail("head_dim", "must be above 0 (leave it out to derive it from hidden_size / num_attention_heads)")
		}
	} else if a.Heads > 0 {
		if a.Hidden%a.Heads != 0 {
			o.fail("num_attention_heads", "%d does not divide hidden_size %d and there is no head_dim", a.Heads, a.Hidden)
		}
		a.HeadDim = a.Hidden / a.Heads
	}
	a.TiedEmbeddings = o.boolOr("tie_word_embeddings", false)
	a.NormsPerLayer = 2
	a.RotaryDim = a.HeadDim
	a.RotaryPositions = []uint64{rotaryPositions(o, a.MaxPosition)}
	a.layerTypes = o.strings("layer_types")
}

// rotaryPositions is the length of vLLM's cos/sin table: max_position, or
// max_position x factor under linear scaling (LinearScalingRotaryEmbedding's
// max_len); llama3 and YaRN tables keep max_position_embeddings rows.
func rotaryPositions(o jsonObject, maxPosition uint64) uint64 {
	rs, ok := o.object("rope_scaling")
	if !ok {
		return maxPosition
	}
	typ := rs.str("rope_type")
	if typ == "" {
		typ = rs.str("type")
	}
	if typ != "linear" {
		return maxPosition
	}
	var factor float64
	if err := json.Unmarshal(rs.m["factor"], &factor); err != nil || !(factor >= 1 && factor <= 1024) {
		rs.fail("factor", "want a number in [1, 1024] for linear rope scaling, got %s", short(rs.m["factor"]))
		return maxPosition
	}
	return uint64(float64(maxPosition) * factor)
}

func readLlama(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.MLPBias = o.boolOr("mlp_bias", false)
	a.uniformLayers(o, 0)
}

func readMistral(o jsonObject, a *Arch) {
	readCommon(o, a)
	// Mistral applies sliding_window to every layer (v0.1: 4096; later: null).
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
}

func readQwen2(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = true // Qwen2 always has q/k/v biases (transformers Qwen2Attention)
	var window uint64
	if o.boolOr("use_sliding_window", false) {
		window = o.uint("sliding_window")
	}
	a.uniformLayers(o, 0)
	if window > 0 && a.layerTypes == nil {
		// transformers Qwen2: layers from max_window_layers on use the window.
		from := o.uintOr("max_window_layers", a.NumLayers)
		for i := range a.Layers {
			if uint64(i) >= from {
				a.Layers[i].Kind = SlidingAttention
			}
		}
		a.SlidingWindow = window
	}
}

func readQwen3(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.AttnBias = o.boolOr("attention_bias", false)
	a.QKNorm = true
	a.uniformLayers(o, 0)
}

func readPhi3(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.FusedQKV, a.FusedGateUp = true, true
	if p := o.uintOr("partial_rotary_factor", 0); p != 0 {
		o.fail("partial_rotary_factor", "not supported")
	}
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
}

func readMixtral(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.Experts = o.uint("num_local_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = a.Intermediate
	a.uniformLayers(o, o.uintOr("sliding_window", 0))
	for i := range a.Layers {
		a.Layers[i].MoE = true
	}
}

func readQwen3MoE(o jsonObject, a *Arch) {
	readQwen3(o, a)
	a.Experts = o.uint("num_experts")
	a.ExpertsPerToken = o.uint("num_experts_per_tok")
	a.MoEIntermediate = o.uint("moe_intermediate_size")
	step := o.uintOr("decoder_sparse_step", 1)
	dense := o.uints("mlp_only_layers")
	for i := range a.Layers {
		// transformers Qwen3MoeDecoderLayer: sparse unless listed in
		// mlp_only_layers, and only every decoder_sparse_step-th layer.
		a.Layers[i].MoE = !slices.Contains(dense, uint64(i)) && a.Experts > 0 && step > 0 && (uint64(i)+1)%step == 0
	}
}

func readDeepSeek(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.MLA = true
	a.KVLoraRank = o.uint("kv_lora_rank")
	a.QLoraRank = o.uintOr("q_lora_rank", 0)
	a.QKNopeHeadDim = o.uint("qk_nope_head_dim")
	a.QKRopeHeadDim = o.uint("qk_rope_head_dim")
	a.VHeadDim = o.uint("v_head_dim")
	a.HeadDim = a.QKNopeHeadDim + a.QKRopeHeadDim
	a.RotaryDim = a.QKRopeHeadDim
	// DeepSeek's YaRN table has original_max_position_embeddings x factor
	// rows, which the configs set equal to max_position_embeddings.
	a.RotaryPositions = []uint64{a.MaxPosition}
	a.KVHeads = a.Heads // MLA: every head reads the one latent
	a.Experts = o.uintOr("n_routed_experts", 0)
	a.SharedExperts = o.uintOr("n_shared_experts", 0)
	a.MoEIntermediate = o.uintOr("moe_intermediate_size", 0)
	a.ExpertsPerToken = o.uintOr("num_experts_per_tok", 0)
	a.ScoreCorrectionBias = o.str("topk_method") == "noaux_tc"
	firstDense := o.uintOr("first_k_dense_replace", 0)
	freq := o.uintOr("moe_layer_freq", 1)
	a.uniformLayers(o, 0)
	for i := range a.Layers {
		// vLLM deepseek_v2.py DeepseekV2DecoderLayer: MoE when
		// n_routed_experts is set, layer >= first_k_dense_replace and
		// layer % moe_layer_freq == 0.
		a.Layers[i].MoE = a.Experts > 0 && uint64(i) >= firstDense && freq > 0 && uint64(i)%freq == 0
	}
	if a.Experts > 0 && (a.MoEIntermediate == 0 || a.ExpertsPerToken == 0) {
		o.fail("moe_intermediate_size", "n_routed_experts is set but moe_intermediate_size or num_experts_per_tok is missing")
	}
}

func readGemma2(o jsonObject, a *Arch) {
	readCommon(o, a)
	a.NormsPerLayer = 4
	a.TiedEmbeddings = true // Gemma ties embeddings (transformers Gemma2Config default)
	window := o.uint("sliding_window")
	a.uniformLayers(o, 0)
	if a.layerTypes == nil {
		for i := range a.Layers {
			if i%2 == 0 { // transformers Gemma2: even layers slide
				a.Layers[i].Kind = SlidingAttention
			}
		}
		a.SlidingWindow = window
	}
}

// Gemma 3 text defaults, for keys the published configs leave out:
// transformers Gemma3TextConfig (vocab_size 262208, max_position_embeddings
// 131072, sliding_window_pattern 6, rope_local_base_freq 10000).
const (
	gemma3DefaultVocab       = 262208
	gemma3DefaultMaxPosition = 131072
	gemma3DefaultPattern     = 6
)

func readGemma3(o jsonObject, a *Arch) {
	text, ok := o.object("text_config")
	if !ok {
		o.fail("text_config", "missing (required for model_type gemma3)")
		return
	}
	if d := readDtype(o); !text.has("torch_dtype") && !text.has("dtype") {
		text.m["torch_dtype"], _ = json.Marshal(d)
	}
	readGemma3Text(text, a)
	if v, ok := o.object("vision_config"); ok {
		a.Vision = &VisionTower{
			Hidden:       v.uint("hidden_size"),
			Intermediate: v.uint("intermediate_size"),
			Layers:       v.uint("num_hidden_layers"),
			Heads:        v.uint("num_attention_heads"),
			PatchSize:    v.uint("patch_size"),
			ImageSize:    v.uint("image_size"),
		}
		a.Vision.TokensPerImage = o.uintOr("mm_tokens_per_image", 256)
	}
}

func readGemma3Text(o jsonObject, a *Arch) {
	setDefault(o, "vocab_size", gemma3DefaultVocab)
	setDefault(o, "max_position_embeddings", gemma3DefaultMaxPosition)
	readCommon(o, a)
	a.NormsPerLayer = 4
	a.QKNorm = true
	a.TiedEmbeddings = true
	window := o.uint("sliding_window")
	pattern := o.uintOr("sliding_window_pattern", gemma3DefaultPattern)
	a.uniformLayers(o, 0)
	if a.layerTypes == nil && pattern > 0 {
		for i := range a.Layers {
			// transformers Gemma3: a layer slides unless (i+1) % pattern == 0.
			if (uint64(i)+1)%pattern != 0 {
				a.Layers[i].Kind = SlidingAttention
			}
		}
		a.SlidingWindow = window
	}
	// Gemma 3 keeps two rotary tables: the sliding layers' local rope
	// (rope_local_base_freq, unscaled) and the global layers' (scaled).
	a.RotaryPositions = append([]uint64{a.MaxPosition}, a.RotaryPositions...)
}

func setDefault(o jsonObject, key string, v uint64) {
	if !o.has(key) {
		o.m[key] = json.RawMessage(strconv.FormatUint(v, 10))
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
			switch t {
			case "full_attention":
			case "sliding_attention":
				a.Layers[i].Kind = SlidingAttention
			default:
				o.fail("layer_types", "layer %d: unsupported type %q", i, t)
			}
		}
		if slices.Contains(a.layerTypes, "sliding_attention") {
			a.SlidingWindow = o.uint("sliding_window")
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
