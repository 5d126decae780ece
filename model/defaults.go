package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// A config.json holds what its author changed from the defaults of the
// model's transformers config class (a PretrainedConfig subclass); the rest
// is what the class gives, and vLLM, which loads the config through
// transformers, sizes the model with it. Each family declares its class in
// its own family_<name>.go (declareClass, from its init function): the
// defaults of the keys its reader reads, the attribute_map aliases, the
// classes of its sub-configs and the architecture names vLLM serves with
// it. ParseConfig fills the keys a file omits from them before the
// family's reader runs, and records each in Arch.Defaulted.

// configClass is one transformers config class as the model reads it.
type configClass struct {
	// Name is the class (Gemma3TextConfig); Source the transformers file
	// and the commit its defaults were read at.
	Name, Source string
	// Defaults are the class's defaults of the keys the family reads,
	// each a JSON value. A key whose default is None is not listed: the
	// reader derives it as the class does (head_dim, num_key_value_heads)
	// or it stays an error naming the key.
	Defaults []classDefault
	// Aliases are the class's attribute_map (and the older spellings its
	// __init__ accepts): a key the file spells From is read as To.
	Aliases []classAlias
	// Nested names the model_type of the class of each sub-config
	// (text_config, vision_config, audio_config): its defaults fill that
	// object unless the object names another model_type that has a class.
	Nested map[string]string
}

// classDefault is one key's default: Value is JSON text.
type classDefault struct{ Key, Value string }

// classAlias reads a key spelled From as To. When IfTrue is set, From is a
// boolean and only true sets To, to IfTrue (Falcon's multi_query: one KV
// head), unless the key Unless is true (Falcon's new_decoder_architecture,
// under which multi_query is ignored).
type classAlias struct{ From, To, IfTrue, Unless string }

// classes are the config classes by the model_type they read.
var classes = map[string]*configClass{}

// vllmClassTypes are the model_types no family is named for that vLLM
// reads with a config class of its own (vllm/transformers_utils/config.py
// _CONFIG_REGISTRY), each by the family that sizes it: the class is
// known, so its defaults fill what the file omits, as they do for a
// family's own model_type.
var vllmClassTypes = map[string]string{}

// declareVLLMClass makes c, a class vLLM ships, the config class of
// model_type name, whose configs the family of model_type family reads.
func declareVLLMClass(name, family string, c configClass) {
	declareClass(name, c)
	vllmClassTypes[name] = family
}

// declareClass makes c the config class of model_type name. A model_type
// declared twice, or an architecture claimed by two, is a programming error.
func declareClass(name string, c configClass) {
	if _, dup := classes[name]; dup {
		panic("model: config class of " + name + " declared twice")
	}
	for _, d := range c.Defaults {
		if !json.Valid([]byte(d.Value)) {
			panic("model: " + c.Name + "." + d.Key + " default is not JSON: " + d.Value)
		}
	}
	classes[name] = &c
}

// DefaultedKey is a key a config.json omitted that its transformers config
// class gave, or a key read under another name (an attribute_map alias).
type DefaultedKey struct {
	// Key is the key's path in the config (text_config.vocab_size).
	Key string `json:"key"`
	// Value is the JSON value it was given.
	Value string `json:"value"`
	// Class is the config class that gave it (Gemma3TextConfig), Source
	// the transformers file and commit it was read at.
	Class  string `json:"class"`
	Source string `json:"source"`
	// From is the key the file spells it as, for an alias; "" for a
	// default.
	From string `json:"from,omitempty"`
}

// String says what the key was given and by whom.
func (d DefaultedKey) String() string {
	if d.From != "" {
		return fmt.Sprintf("%s read as %s (%s attribute_map)", d.From, d.Key, d.Class)
	}
	return fmt.Sprintf("%s=%s", d.Key, d.Value)
}

// DefaultsLine is one line naming the keys the config classes gave, for a
// report: "" when none did.
func (a *Arch) DefaultsLine() string {
	if len(a.Defaulted) == 0 {
		return ""
	}
	var keys, aliases []string
	byClass := map[string][]string{}
	var order []string
	for _, d := range a.Defaulted {
		if d.From != "" {
			aliases = append(aliases, d.String())
			continue
		}
		if _, seen := byClass[d.Class]; !seen {
			order = append(order, d.Class)
		}
		byClass[d.Class] = append(byClass[d.Class], d.String())
	}
	for _, c := range order {
		keys = append(keys, strings.Join(byClass[c], ", ")+" (transformers "+c+")")
	}
	var parts []string
	if len(keys) > 0 {
		parts = append(parts, "not in config.json, from the config class's defaults: "+strings.Join(keys, "; "))
	}
	if len(aliases) > 0 {
		parts = append(parts, "aliases: "+strings.Join(aliases, ", "))
	}
	return strings.Join(parts, "; ")
}

// fillClass fills o's omitted keys from the class of model_type name (and
// its sub-configs' from theirs), reads its aliases, and records each key in
// a.Defaulted. A name without a class, or a config read as a family by its
// architecture (Arch.ReadAs), changes nothing. It returns the keys
// it added, as JSON members, for a caller that must write o back.
func fillClass(name string, o jsonObject, a *Arch) [][2]string {
	c, ok := classes[name]
	if !ok || a.ReadAs != "" {
		// A remote-code config's class is its own, not transformers'.
		return nil
	}
	var added [][2]string
	set := func(key string, v json.RawMessage, from string) {
		o.m[key] = v
		added = append(added, [2]string{key, string(v)})
		a.Defaulted = append(a.Defaulted, DefaultedKey{Key: o.prefix + key, Value: string(v), Class: c.Name, Source: c.Source, From: from})
	}
	for _, al := range c.Aliases {
		if !o.has(al.From) || o.has(al.To) {
			continue
		}
		if al.IfTrue == "" {
			set(al.To, o.m[al.From], o.prefix+al.From)
		} else if o.boolOr(al.From, false) && (al.Unless == "" || !o.boolOr(al.Unless, false)) {
			set(al.To, json.RawMessage(al.IfTrue), o.prefix+al.From)
		}
	}
	for _, d := range c.Defaults {
		// A key present as null is None in transformers, not the default;
		// one the rope parameters hold (partial_rotary_factor) is theirs.
		if _, present := o.m[d.Key]; !present && !ropeHolds(o, d.Key) {
			set(d.Key, json.RawMessage(d.Value), "")
		}
	}
	subs := make([]string, 0, len(c.Nested))
	for k := range c.Nested {
		subs = append(subs, k)
	}
	sort.Strings(subs)
	for _, key := range subs {
		sub, ok := o.object(key)
		if !ok {
			continue
		}
		subType := c.Nested[key]
		// A sub-config that names its own class is read by it (Mistral 3's
		// text_config of model_type mistral), unless it names the parent's:
		// Qwen3.5's early checkpoints wrote model_type qwen3_5 in their
		// vision_config, which transformers overrides (Qwen3_5Config).
		if named := sub.str("model_type"); named != "" && named != name {
			if _, known := classes[named]; known {
				subType = named
			}
		}
		if more := fillClass(subType, sub, a); len(more) > 0 {
			// object() decodes afresh on every call: the defaults go into
			// the object's text, after the file's own keys, whose order
			// is kept.
			o.m[key] = appendMembers(sub.raw, more)
		}
	}
	return added
}

// ropeHolds reports whether o's rope_parameters or rope_scaling give key:
// transformers 5 keeps partial_rotary_factor there, and its class default
// (set by __post_init__ for configs that predate it) yields to it.
func ropeHolds(o jsonObject, key string) bool {
	for _, k := range []string{"rope_parameters", "rope_scaling"} {
		var m map[string]json.RawMessage
		if o.has(k) && json.Unmarshal(o.m[k], &m) == nil {
			if _, ok := m[key]; ok {
				return true
			}
		}
	}
	return false
}

// appendMembers returns the JSON object raw with members added at its end.
func appendMembers(raw json.RawMessage, members [][2]string) json.RawMessage {
	body := bytes.TrimSpace(raw)
	body = bytes.TrimSuffix(body, []byte("}"))
	var b bytes.Buffer
	b.Write(body)
	empty := bytes.Equal(bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimSpace(body), []byte("{"))), nil)
	for i, m := range members {
		if i > 0 || !empty {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m[0])
		b.Write(k)
		b.WriteByte(':')
		b.WriteString(m[1])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// readFamily reads o as model_type name: its class's defaults first, then
// the family's reader.
func readFamily(name string, o jsonObject, a *Arch) jsonObject {
	fillClass(name, o, a)
	return families[name](o, a)
}

// remoteArchitecture returns the known model_type that vLLM would serve a
// config of an unknown model_type with: the first of its architectures, or
// of the classes its auto_map names, that a family sizes. ok is false
// when none is known.
func remoteArchitecture(o jsonObject) (modelType, arch string, ok bool) {
	var names []string
	names = append(names, o.strings("architectures")...)
	if am, has := o.object("auto_map"); has {
		for _, k := range am.keys() {
			var v string
			if json.Unmarshal(am.m[k], &v) != nil {
				continue // a list of [slow, fast] tokenizer classes
			}
			// "configuration_deepseek.DeepseekV3Config" or
			// "repo--modeling_x.XForCausalLM": the class is after the last dot.
			names = append(names, v[strings.LastIndex(v, ".")+1:])
		}
	}
	for _, n := range names {
		if mt, known := architectureType(n); known {
			return mt, n, true
		}
	}
	return "", "", false
}

// architectureType returns the model_type whose family reads a config
// naming architecture arch (see registerArchitectures): of the model_types
// that size it, the first with a config class, else the first.
func architectureType(arch string) (string, bool) {
	mts := architectures[arch]
	if len(mts) == 0 {
		return "", false
	}
	for _, mt := range mts {
		if _, ok := classes[mt]; ok {
			return mt, true
		}
	}
	return mts[0], true
}

// ConfigClasses lists the model_types with a declared config class, sorted.
func ConfigClasses() []string {
	var names []string
	for k := range classes {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// ClassDefaults returns the defaults the config class of modelType gives a
// config that omits them, by key, each as JSON text; nil when it declares
// none.
func ClassDefaults(modelType string) map[string]string {
	c, ok := classes[modelType]
	if !ok || len(c.Defaults) == 0 {
		return nil
	}
	out := make(map[string]string, len(c.Defaults))
	for _, d := range c.Defaults {
		out[d.Key] = d.Value
	}
	return out
}

// ClassSubConfig returns the model_type whose class reads modelType's
// sub-config key (text_config, vision_config); "" when none does.
func ClassSubConfig(modelType, key string) string {
	if c, ok := classes[modelType]; ok {
		return c.Nested[key]
	}
	return ""
}
