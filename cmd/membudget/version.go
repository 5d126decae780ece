package main

import (
	"fmt"
	"io"
	"runtime/debug"

	"membudget/engine"
)

// versionInfo is what `membudget version` prints: the module's version as
// the Go toolchain stamped it (runtime/debug.ReadBuildInfo: "(devel)" for
// a build from a work tree, the tag for `go install ...@v1.2.3`), the VCS
// revision when stamped, and the engine releases whose rules size a serve
// when no --vllm-version or --sglang-version is given.
type versionInfo struct {
	Module, Version, Revision, Go string
	Engines                       [][2]string
}

// readVersion reads the build's information, and says so when the binary
// carries none.
func readVersion(engines []engine.Engine) versionInfo {
	v := versionInfo{Module: "membudget", Version: "unknown (no build information)"}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v.Module, v.Version, v.Go = bi.Main.Path, bi.Main.Version, bi.GoVersion
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				v.Revision = s.Value
			}
		}
	}
	for _, e := range engines {
		if r, ok := e.(engine.Releaser); ok {
			v.Engines = append(v.Engines, [2]string{e.Name(), r.DefaultRelease()})
		}
	}
	return v
}

func (a *app) version(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("version", stderr)
	if status, ok := a.parseFlags(fs, args, false); !ok {
		return status
	}
	v := readVersion(a.engines.Engines())
	fmt.Fprintf(stdout, "%s %s", v.Module, v.Version)
	if v.Revision != "" {
		fmt.Fprintf(stdout, " (revision %s)", v.Revision)
	}
	if v.Go != "" {
		fmt.Fprintf(stdout, ", built with %s", v.Go)
	}
	fmt.Fprintln(stdout)
	for _, e := range v.Engines {
		fmt.Fprintf(stdout, "  %-7s default rules: %s\n", e[0], e[1])
	}
	return exitOK
}
