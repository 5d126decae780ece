package main

import (
	"encoding/json"
)

// decodeFlat decodes line when it is a request in its common form: one
// JSON object of distinct keys whose values are strings, numbers, true,
// false or lists of strings, every string printable ASCII without an
// escape, and nothing after the object but white space. It returns what
// the json package decodes of such a line (numbers as [json.Number]) and
// true, or false for any other line, which the json package then decodes:
// this path only spares a sweep's requests the package's reflection, and
// never decides what a line means (FuzzDecodeRequest holds it to that).
func decodeFlat(line []byte) (map[string]any, bool) {
	p := flatParser{b: line}
	p.space()
	if !p.byte('{') {
		return nil, false
	}
	req := make(map[string]any, 8)
	p.space()
	if p.byte('}') {
		return p.end(req)
	}
	for {
		p.space()
		key, ok := p.str()
		if !ok {
			return nil, false
		}
		if _, dup := req[key]; dup {
			return nil, false // the strict decoder names it
		}
		p.space()
		if !p.byte(':') {
			return nil, false
		}
		p.space()
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		req[key] = v
		p.space()
		if p.byte('}') {
			return p.end(req)
		}
		if !p.byte(',') {
			return nil, false
		}
	}
}

// flatParser reads decodeFlat's subset of JSON from b at i.
type flatParser struct {
	b []byte
	i int
}

// space skips JSON's white space.
func (p *flatParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// byte takes c if it comes next.
func (p *flatParser) byte(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end returns req if nothing but white space follows the object.
func (p *flatParser) end(req map[string]any) (map[string]any, bool) {
	p.space()
	return req, p.i == len(p.b)
}

// str takes a string of printable ASCII without an escape.
func (p *flatParser) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			s := string(p.b[start:p.i])
			p.i++
			return s, true
		case c == '\\' || c < 0x20 || c > 0x7e:
			return "", false
		}
	}
	return "", false
}

// value takes a string, a number, true, false or a list of strings.
func (p *flatParser) value() (any, bool) {
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		return p.str()
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == '[':
		return p.list()
	}
	for _, lit := range [...]struct {
		text  string
		value bool
	}{{"true", true}, {"false", false}} {
		if len(p.b)-p.i >= len(lit.text) && string(p.b[p.i:p.i+len(lit.text)]) == lit.text {
			p.i += len(lit.text)
			return lit.value, true
		}
	}
	return nil, false
}

// list takes a list of strings, as the json package decodes it into an
// interface: []any.
func (p *flatParser) list() (any, bool) {
	p.i++ // '['
	items := []any{}
	p.space()
	if p.byte(']') {
		return items, true
	}
	for {
		p.space()
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		items = append(items, s)
		p.space()
		if p.byte(']') {
			return items, true
		}
		if !p.byte(',') {
			return nil, false
		}
	}
}

// number takes a number as JSON writes one (RFC 8259, section 6):
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, kept as its text.
func (p *flatParser) number() (any, bool) {
	start := p.i
	p.byte('-')
	switch {
	case p.byte('0'):
	case p.digits() == 0:
		return nil, false
	}
	if p.byte('.') && p.digits() == 0 {
		return nil, false
	}
	if p.byte('e') || p.byte('E') {
		if !p.byte('+') {
			p.byte('-')
		}
		if p.digits() == 0 {
			return nil, false
		}
	}
	return json.Number(p.b[start:p.i]), true
}

// digits takes a run of decimal digits and returns its length.
func (p *flatParser) digits() int {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i - start
}
