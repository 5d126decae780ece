package model

import "sort"

// Every model family registers the model_types it reads from its own file,
// family_<name>.go, in that file's init function: its config reader (with
// register, or registerMultimodal for a model whose language model is its
// text_config) and its checkpoint's rules, the vision towers it builds
// (registerVisionTower), and its transformers config class, whose defaults
// fill what a config omits (declareClass, defaults.go). Adding a family is
// adding one such file.

// family reads one model_type's keys into an Arch; it returns the object
// its language model was read from (the root, or text_config for a
// multimodal wrapper), where a quantization_config may also be.
type family func(o jsonObject, a *Arch) jsonObject

// families are the config readers by model_type. The family files' init
// functions fill it rather than its declaration: the readers of multimodal
// wrappers look their text model up in this map.
var families = map[string]family{}

// wrappers are the model_types whose language model is their
// text_config: none of them is a text model itself.
var wrappers = map[string]bool{}

// checkpointFamilies are the checkpoint layouts by model_type. A family
// registers an entry here for its checkpoint to be read: its layer
// modules, anything outside the decoder layers, the prefixes its
// checkpoint nests names under, and what vLLM skips.
var checkpointFamilies = map[string]checkpointFamily{}

// register adds model_type name: read reads its config.json and ckpt names
// its checkpoint's tensors. A model_type registered twice is a programming
// error.
func register(name string, read family, ckpt checkpointFamily) {
	if _, dup := families[name]; dup {
		panic("model: model_type " + name + " registered twice")
	}
	families[name] = read
	checkpointFamilies[name] = ckpt
}

// registerConfigOnly adds model_type name as register does, with no rules
// for its checkpoint: its weights are derived from config.json, and a
// checkpoint attached is reported as not counted (UsesCheckpoint).
func registerConfigOnly(name string, read family) {
	register(name, read, checkpointFamily{})
	delete(checkpointFamilies, name)
	configOnly[name] = true
}

// configOnly are the model_types registered without checkpoint rules.
var configOnly = map[string]bool{}

// ConfigOnlyModelTypes lists the model_types whose checkpoint is not read
// (registered without checkpoint rules): their weights are derived from
// config.json, sorted.
func ConfigOnlyModelTypes() []string {
	var out []string
	for k := range configOnly {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// registerMultimodal adds model_type name as register does, as a wrapper
// whose language model is its text_config (see wrappers).
func registerMultimodal(name string, read family, ckpt checkpointFamily) {
	register(name, read, ckpt)
	wrappers[name] = true
}

// visionTowers add the weights of a vision tower by VisionTower.Kind.
var visionTowers = map[string]func(w *weights, v *VisionTower){}

// registerVisionTower makes build add the weights of the towers of kind.
func registerVisionTower(kind string, build func(w *weights, v *VisionTower)) {
	if _, dup := visionTowers[kind]; dup {
		panic("model: vision tower " + kind + " registered twice")
	}
	visionTowers[kind] = build
}

// flat is a family whose config is its language model's.
func flat(read func(o jsonObject, a *Arch)) family {
	return func(o jsonObject, a *Arch) jsonObject {
		read(o, a)
		return o
	}
}

// wrapper is a multimodal model whose language model is text_config, of
// model_type textType unless text_config says another it knows, and whose
// vision tower vision reads (nil when the model does not count it).
func wrapper(textType string, vision func(o jsonObject, a *Arch)) family {
	return func(o jsonObject, a *Arch) jsonObject {
		text, ok := o.object("text_config")
		if !ok {
			o.fail("text_config", "missing (required for model_type %s)", a.ModelType)
			return o
		}
		inheritDtype(o, text)
		if v, ok := o.m["tie_word_embeddings"]; ok && !text.has("tie_word_embeddings") {
			text.m["tie_word_embeddings"] = v
		}
		tt := textType
		if named := text.str("model_type"); named != "" && named != textType {
			if _, known := families[named]; !known || wrappers[named] {
				text.fail("model_type", "%q is not a text model the model knows for %s (want %s)", named, a.ModelType, textType)
				return text
			}
			tt = named
		}
		if c, ok := classes[a.ModelType]; ok && c.Nested["text_config"] != "" {
			// The wrapper's class has filled text_config with its text
			// class's defaults (or a remote config has none to fill).
			families[tt](text, a)
		} else {
			readFamily(tt, text, a)
		}
		if vision != nil {
			vision(o, a)
		}
		return text
	}
}

// inheritDtype gives text the wrapper's dtype when it has none of its own.
func inheritDtype(o, text jsonObject) {
	if text.has("torch_dtype") || text.has("dtype") {
		return
	}
	for _, k := range []string{"torch_dtype", "dtype"} {
		if o.has(k) {
			text.m["torch_dtype"] = o.m[k]
			return
		}
	}
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
