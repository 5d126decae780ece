package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"membudget/engine"
	"membudget/engine/vllm"
	"membudget/internal/untrusted"
	"membudget/model/hub"
)

// pathPolicy is what local paths serve's requests may name: those under
// its --models-dir directories, none without one. A server must not be a
// way to read the files of its host.
type pathPolicy struct {
	// dirs are the --models-dir directories, absolute, their symbolic
	// links resolved.
	dirs []string
}

// newPathPolicy returns the policy of serve's --models-dir values; each
// must be a directory.
func newPathPolicy(dirs []string) (*pathPolicy, error) {
	p := &pathPolicy{}
	for _, d := range dirs {
		real, err := realPath(d)
		if err != nil {
			return nil, fmt.Errorf("--models-dir %s: %w", untrusted.Text(d), err)
		}
		p.dirs = append(p.dirs, real)
	}
	return p, nil
}

// realPath is path made absolute and clean, its symbolic links resolved.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(filepath.Clean(path))
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// allow returns nil when path, given as --flag, lies under one of the
// policy's directories once its symbolic links are resolved; else an
// error naming the flag and the serve flag that allows it.
func (p *pathPolicy) allow(flagName, path string) error {
	if len(p.dirs) == 0 {
		return fmt.Errorf("--%s %s: serve reads no local path unless it was started with --models-dir DIR, and was not (shipped and cached models and shipped classes need none)", flagName, untrusted.Text(path))
	}
	real, err := realPath(path)
	if err == nil {
		for _, d := range p.dirs {
			if rel, err := filepath.Rel(d, real); err == nil && filepath.IsLocal(rel) || real == d {
				return nil
			}
		}
	}
	// Whether the path exists is not said (a missing path has no links
	// to resolve, and is refused the same): a request learns nothing of
	// the host's files outside the directories.
	return fmt.Errorf("--%s %s: serve reads existing paths under its --models-dir directories only, and this is not one", flagName, untrusted.Text(path))
}

// checkModel refuses a --model that is a local path outside the policy's
// directories; a shipped model or a Hub id passes.
func (p *pathPolicy) checkModel(spec string) error {
	if !hub.IsPath(spec) {
		return nil
	}
	return p.allow("model", spec)
}

// checkAdapters refuses, in a request's arguments as the engine respells
// them (one --lora-modules=VALUE a flag), a LoRA adapter at a local path
// outside the policy's directories: parsing --lora-modules reads each
// adapter's adapter_config.json (vLLM's ReadAdapter), so it is checked
// before the flags are parsed. A Hub id passes.
func (p *pathPolicy) checkAdapters(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		v, ok := strings.CutPrefix(a, "--lora-modules=")
		if !ok {
			continue
		}
		for _, path := range vllm.AdapterPaths(v) {
			if hub.IsPath(path) {
				if err := p.allow("lora-modules", path); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// respell returns args as engine eng's server reads them (see
// [engine.Set.Respell]); for a request of serve's it first refuses a
// --config file (see [refuseConfigFile]), which respelling reads, and then
// an adapter outside --models-dir (see [pathPolicy.checkAdapters]), which
// parsing the flags reads.
func (a *app) respell(eng engine.Engine, args []string) ([]string, error) {
	if a.serving {
		if err := refuseConfigFile(args); err != nil {
			return nil, err
		}
	}
	args = a.engines.Respell(eng, args)
	if a.serving {
		if err := a.paths.checkAdapters(args); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// checkFlags refuses, in a request's parsed flags, a --kernels directory
// or a --speculative-config draft directory outside the policy's
// directories and any flag that writes a file
// (explain's --calibrate): a request of serve's writes nothing.
func (p *pathPolicy) checkFlags(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		if err != nil {
			return
		}
		switch f.Name {
		case "kernels":
			if v := f.Value.String(); v != "" {
				err = p.allow("kernels", v)
			}
		case "calibrate":
			err = errors.New("--calibrate: serve writes no file; run membudget explain --calibrate on the command line")
		case "speculative-config", "sc":
			// A draft is read from its directory (vLLM's specdraft.go)
			// where the value is a path or names one that is there; a Hub
			// id passes, read as --model is.
			if m := vllm.SpecDraftModel(f.Value.String()); m != "" && (vllm.DraftPath(m) || hub.IsPath(m)) {
				err = p.allow(f.Name, m)
			}
		}
	})
	return err
}
