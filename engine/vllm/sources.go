package vllm

// Sources says where each defaulted setting of a resolved serve came from,
// by flag name without its dashes. It is a short list rather than a map:
// a serve has a dozen defaults, and Resolve, on the path of every compile
// and so of every query of a sweep, builds it once per serve.
type Sources []Source

// Source is one defaulted setting and where its value came from.
type Source struct{ Flag, Why string }

// Set records flag's source, replacing an earlier one.
func (s *Sources) Set(flag, why string) {
	for i := range *s {
		if (*s)[i].Flag == flag {
			(*s)[i].Why = why
			return
		}
	}
	*s = append(*s, Source{Flag: flag, Why: why})
}

// Get returns flag's source, and whether it was defaulted.
func (s Sources) Get(flag string) (string, bool) {
	for _, src := range s {
		if src.Flag == flag {
			return src.Why, true
		}
	}
	return "", false
}

// Map returns the sources by flag.
func (s Sources) Map() map[string]string {
	m := make(map[string]string, len(s))
	for _, src := range s {
		m[src.Flag] = src.Why
	}
	return m
}
