package sglang

import (
	"membudget/engine"
	"membudget/model/explain"
	"membudget/model/logs"
)

var _ engine.LogReader = Engine{}

// Explain sizes an SGLang log's server from its server_args, each setting
// unless its flag was given, under --sglang-version's release or, since
// SGLang's startup lines state none, the default's (said in a note).
func (Engine) Explain(src *explain.Source, m explain.Model, c explain.ClassChoice, s engine.Serve) (*explain.Explanation, error) {
	f := s.(*flagServe)
	p, note, err := chooseProfile(f.version, f.given["sglang-version"])
	if err != nil {
		return nil, err
	}
	serve, err := buildServe(src.Log, f.s, f.given)
	if err != nil {
		return nil, err
	}
	return explainLog(explainInput{Source: src, Model: m, Class: c, Profile: p, ProfileNote: note, Serve: serve})
}

// Ranks is --tp-size when given, else the log's tp_size, else 1.
func (Engine) Ranks(l *logs.Log, s engine.Serve) uint64 {
	f := s.(*flagServe)
	if flagAliases.Given(f.given, "tp-size") {
		return f.s.TPSize
	}
	return engine.LoggedCount(l, "tp_size", 1)
}

var _ engine.Releaser = Engine{}

// DefaultRelease returns the rules a server gets without --sglang-version.
func (Engine) DefaultRelease() string {
	p, err := ProfileFor(DefaultName)
	if err != nil {
		return DefaultName
	}
	return p.Describes
}
