package model

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// matchMode is how a quantization method matches its list of unquantized
// modules against a module's name (vllm/model_executor/layers/quantization/
// utils/quant_utils.py:602-674 is_layer_skipped, and each method's own).
type matchMode int

const (
	// exactMatch: the name itself is listed (fp8); a fused module when it
	// or its shards are; experts when their name is part of a listed entry
	// that names experts.
	exactMatch matchMode = iota
	// substringMatch: a listed entry is part of the name (AWQ).
	substringMatch
	// componentMatch: a listed entry is one dot-separated component of the
	// name, or a leading run of them (bitsandbytes,
	// quantization/bitsandbytes.py:178-192 at dedbf6be8).
	componentMatch
	// modeloptMatch: exact as fp8, or a substring, or an fnmatch wildcard
	// (modelopt.py:139-175 is_layer_excluded).
	modeloptMatch
	// ctMatch: a listed entry equals the name or is a "re:" regex matching
	// it from its start (compressed_tensors/utils.py:50-110).
	ctMatch
)

// matcher is a list of unquantized modules compiled once, when the config
// is read: exact names in a set, wildcards and regexes compiled, and a
// memo of the names already decided, so that sizing a model again costs a
// map lookup per module rather than a scan of the list.
type matcher struct {
	mode    matchMode
	entries []string            // as listed (after the family's renames)
	exact   map[string]struct{} // every entry, for exact lookups
	experts []string            // entries naming experts (exactMatch's rule for experts)
	globs   []string            // entries with fnmatch wildcards (modeloptMatch)
	res     []*regexp.Regexp    // "re:" entries (ctMatch)

	mu   sync.Mutex
	memo map[string]bool
}

func compileMatcher(entries []string, mode matchMode) *matcher {
	m := &matcher{mode: mode, entries: entries, exact: make(map[string]struct{}, len(entries))}
	for _, e := range entries {
		m.exact[e] = struct{}{}
		if strings.Contains(e, "experts") {
			m.experts = append(m.experts, e)
		}
		if mode == modeloptMatch && strings.ContainsAny(e, "*?[") {
			m.globs = append(m.globs, e)
		}
	}
	return m
}

// compileCTIgnore compiles compressed-tensors' ignore list; a "re:" entry
// Go's regexp cannot read is an error.
func compileCTIgnore(entries []string) (*matcher, error) {
	m := &matcher{mode: ctMatch, entries: entries, exact: map[string]struct{}{}}
	for _, e := range entries {
		if pattern, ok := strings.CutPrefix(e, "re:"); ok {
			re, err := regexp.Compile("^(?:" + pattern + ")")
			if err != nil {
				return nil, err
			}
			m.res = append(m.res, re)
			continue
		}
		m.exact[e] = struct{}{}
	}
	return m, nil
}

// skips reports whether module (with the checkpoint shards of a fused
// module) is left unquantized.
func (m *matcher) skips(module string, shards []string) bool {
	if m == nil || len(m.entries) == 0 {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.memo[module]; ok {
		return v
	}
	v := m.decide(module, shards)
	if m.memo == nil {
		m.memo = map[string]bool{}
	}
	m.memo[module] = v
	return v
}

func (m *matcher) decide(module string, shards []string) bool {
	if len(shards) > 0 {
		// A fused module is skipped when it is listed itself, or when its
		// shards are; vLLM refuses shards that disagree, and the first
		// shard stands for them here. ModelOpt's substring and wildcard
		// rules apply to the fused name only.
		if m.one(module, false) {
			return true
		}
		if m.mode == modeloptMatch {
			_, ok := m.exact[shards[0]]
			return ok
		}
		return m.one(shards[0], false)
	}
	return m.one(module, strings.Contains(module, "experts"))
}

// one matches a single name; experts applies fp8's rule for names under
// experts (quant_utils.py:667-671).
func (m *matcher) one(name string, experts bool) bool {
	if _, ok := m.exact[name]; ok {
		return true
	}
	switch m.mode {
	case exactMatch:
		if experts {
			for _, e := range m.experts {
				if strings.Contains(e, name) {
					return true
				}
			}
		}
	case substringMatch:
		for _, e := range m.entries {
			if strings.Contains(name, e) {
				return true
			}
		}
	case componentMatch:
		for _, e := range m.entries {
			if strings.HasPrefix(name, e+".") || strings.Contains("."+name+".", "."+e+".") {
				return true
			}
		}
	case modeloptMatch:
		if experts {
			for _, e := range m.experts {
				if strings.Contains(e, name) {
					return true
				}
			}
		}
		for _, e := range m.entries {
			if strings.Contains(name, e) || strings.HasPrefix(name, "language_model.") && strings.Contains(strings.TrimPrefix(name, "language_model."), e) {
				return true
			}
		}
		for _, g := range m.globs {
			if ok, _ := path.Match(g, name); ok {
				return true
			}
		}
	case ctMatch:
		for _, re := range m.res {
			if re.MatchString(name) {
				return true
			}
		}
	}
	return false
}

// skipsCT is compressed-tensors' should_ignore_layer: a fused module not
// listed itself is ignored when its shards are.
func (m *matcher) skipsCT(name string, shards []string) bool {
	if m == nil || len(m.entries) == 0 {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if v, ok := m.memo[name]; ok {
		return v
	}
	v := m.one(name, false)
	if _, listed := m.exact[name]; len(shards) > 0 && !listed {
		v = m.one(shards[0], false)
	}
	if m.memo == nil {
		m.memo = map[string]bool{}
	}
	m.memo[name] = v
	return v
}
