package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"membudget"
	"membudget/model"
	"membudget/model/hub"
)

// modelEntryJSON is one model of `membudget models --json`.
type modelEntryJSON struct {
	// Model is the --model value that resolves to it.
	Model  string `json:"model"`
	Source string `json:"source"`
	// Commit and Refs are a cached snapshot's commit and the refs that
	// point at it.
	Commit    string   `json:"commit,omitempty"`
	Refs      []string `json:"refs,omitempty"`
	ModelType string   `json:"model_type"`
	// Sizable says whether membudget can size it; Reason says why not.
	Sizable bool   `json:"sizable"`
	Reason  string `json:"reason,omitempty"`
}

// modelsJSON is `membudget models --json`.
type modelsJSON struct {
	Cache  string           `json:"cache"`
	Models []modelEntryJSON `json:"models"`
}

func (a *app) models(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("models", stderr)
	asJSON := fs.Bool("json", false, "print JSON for scripts")
	if status, ok := a.parseFlags(fs, args, false); !ok {
		return status
	}
	r, err := a.resolver()
	if err != nil {
		return fail(stderr, "models", exitBadArgs, err)
	}
	out := modelsJSON{Cache: r.CacheDir, Models: []modelEntryJSON{}}
	shipped := map[string]bool{}
	for _, n := range membudget.ModelNames() {
		data, path, _ := membudget.ModelConfig(n)
		id := strings.Replace(n, "__", "/", 1)
		shipped[strings.ToLower(id)] = true
		var opts []model.Option
		if q, qpath, ok := membudget.ModelQuantConfig(n); ok {
			opts = append(opts, model.WithHFQuantConfig(qpath, q))
		}
		out.Models = append(out.Models, entryOf(modelEntryJSON{Model: id, Source: string(hub.SourceShipped)}, path, data, opts...))
	}
	// Every cached snapshot with a config.json, read offline: listing
	// never reaches the Hub.
	status := exitOK
	cached, err := hub.ListCached(r.CacheDir)
	if err != nil {
		status = fail(stderr, "models", exitBadArgs, fmt.Errorf("the Hugging Face cache %s: %w", r.CacheDir, err))
	}
	offline := r
	offline.Offline = true
	for _, c := range cached {
		for _, s := range c.Snapshots {
			if !s.HasConfig {
				continue
			}
			e := modelEntryJSON{Model: cachedSpec(c.RepoID, s, shipped), Source: string(hub.SourceCache), Commit: s.Commit, Refs: s.Refs}
			m, err := offline.Resolve(context.Background(), c.RepoID+"@"+s.Commit)
			var opts []model.Option
			if err == nil {
				opts, _, err = hub.QuantOptions(context.Background(), m)
			}
			if err != nil {
				e.Reason = err.Error()
				out.Models = append(out.Models, e)
				continue
			}
			out.Models = append(out.Models, entryOf(e, m.Path, m.Config, opts...))
		}
	}
	if *asJSON {
		if err := a.writeJSON(stdout, out); err != nil {
			return fail(stderr, "models", exitBadArgs, err)
		}
		return status
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MODEL\tSOURCE\tMODEL_TYPE\tSIZES")
	for _, e := range out.Models {
		sizes := "yes"
		if !e.Sizable {
			sizes = "no: " + e.Reason
		}
		source := e.Source
		if e.Commit != "" {
			source += " " + e.Commit[:7]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Model, source, orDash(e.ModelType), sizes)
	}
	if err := tw.Flush(); err != nil {
		return fail(stderr, "models", exitBadArgs, err)
	}
	fmt.Fprintf(stdout, "\n%d shipped; %d in the Hugging Face cache %s\n", len(shipped), len(out.Models)-len(shipped), tilde(r.CacheDir, r.Home))
	return status
}

// cachedSpec is the --model value that reaches a cached snapshot: org/name
// when refs/main points at it and no shipped model takes that id first,
// else org/name@ref, else org/name@commit.
func cachedSpec(repo string, s hub.CachedSnapshot, shipped map[string]bool) string {
	for _, ref := range s.Refs {
		if ref == hub.DefaultRevision && !shipped[strings.ToLower(repo)] {
			return repo
		}
	}
	if len(s.Refs) > 0 {
		return repo + "@" + s.Refs[0]
	}
	return repo + "@" + s.Commit
}

// entryOf fills e from a config.json (read with opts, its
// hf_quant_config.json): its model_type and whether it parses.
func entryOf(e modelEntryJSON, path string, data []byte, opts ...model.Option) modelEntryJSON {
	a, err := model.ParseConfig(path, data, opts...)
	if err == nil {
		e.ModelType, e.Sizable = a.ModelType, true
		return e
	}
	// A config the model package refuses may still name its type; one
	// encoding/json cannot read (Python's Infinity) is shown without it.
	var head struct {
		ModelType string `json:"model_type"`
	}
	_ = json.Unmarshal(data, &head)
	e.ModelType = head.ModelType
	e.Reason = strings.ReplaceAll(err.Error(), "\n", "; ")
	if errors.Is(err, model.ErrUnknownModelType) {
		e.Reason = fmt.Sprintf("model_type %q is not one membudget knows", head.ModelType)
		if _, gerr := model.ParseGeneric(path, data, opts...); gerr == nil {
			e.Reason += "; sized as a generic decoder where its checkpoint's safetensors headers can be read"
		}
	}
	return e
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// tilde shortens a path under home to ~/..., as hub's messages do.
func tilde(p, home string) string {
	if home != "" && home != "/" {
		if rest, ok := strings.CutPrefix(p, strings.TrimRight(home, "/")+"/"); ok {
			return "~/" + rest
		}
	}
	return p
}
