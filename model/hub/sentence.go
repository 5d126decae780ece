package hub

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"

	"membudget/model"
)

// SentenceTransformers returns the pooling m's sentence-transformers files
// give, read as vLLM's get_pooling_config reads them
// (vllm/transformers_utils/config.py:816-887 at d18bb7b): modules.json
// beside config.json, and when it lists a Pooling module, that module's
// config.json (a missing one read as {}, as vLLM's `or {}` does). nil when
// there is no modules.json or it lists no Pooling module. The files are
// looked for where [Model.HFQuantConfig] looks for hf_quant_config.json (a
// shipped config.json has neither), each capped at MaxConfigBytes.
// Offline, a modules.json neither cached nor recorded missing is an error
// wrapping ErrOffline, and one the Hub could not be asked for wraps
// ErrUnreachable; the Pooling module's config.json is then read as {}, as
// vLLM reads it, and m's source says so.
func (m *Model) SentenceTransformers(ctx context.Context) (*model.SentenceTransformers, error) {
	if m.res == nil {
		return nil, errors.New("hub: SentenceTransformers of a Model that Resolve did not make")
	}
	if m.Source.Kind == SourceShipped {
		return nil, nil
	}
	data, p, found, err := m.besideFile(ctx, model.ModulesFile, MaxConfigBytes)
	if err != nil || !found {
		return nil, err
	}
	st, err := model.ParseModules(p, data)
	if err != nil || st == nil {
		return nil, err
	}
	// Not found, data is nil: read as {}. So is one offline or with the
	// Hub unreachable: vLLM's get_hf_file_to_dict answers None for it
	// then (repo_utils.py), which get_pooling_config reads as {}.
	data, _, _, err = m.besideFile(ctx, st.PoolingConfig, MaxConfigBytes)
	if err != nil && !readAsNone(m, st.PoolingConfig, err) {
		return nil, err
	}
	if err := st.ReadPoolingConfig(data); err != nil {
		return nil, err
	}
	return st, nil
}

// besideFile reads the file name (a slash path relative to config.json's
// directory) of a path, cache or Hub model, at most limit bytes: in the
// directory given for a path (none for a config under another name), else
// in the snapshot, fetched at its commit when it is neither there nor
// recorded missing. path is what messages name it by.
func (m *Model) besideFile(ctx context.Context, name string, limit int64) (data []byte, path string, found bool, err error) {
	r := m.res
	switch m.Source.Kind {
	case SourcePath:
		if m.quantDir == "" {
			return nil, "", false, nil
		}
		p := filepath.Join(m.quantDir, filepath.FromSlash(name))
		data, found, err := readRegular(p, limit)
		if err != nil || !found {
			return nil, "", false, err
		}
		return data, p, true, nil
	case SourceCache, SourceHub:
		snap := &snapshotLocation{r: r, c: r.repoCache(m.RepoID), commit: m.Commit}
		data, found, err := snap.file(ctx, name, limit)
		m.Warnings = append(m.Warnings, snap.warnings...)
		var he *HubError
		if errors.As(err, &he) && he.Status == http.StatusNotFound && he.Code == "" {
			// A 404 without the Hub's X-Error-Code (a mirror's): none,
			// but not recorded, since it does not say which part is missing.
			return nil, "", false, nil
		}
		if err != nil || !found {
			return nil, "", false, err
		}
		p := filepath.Join(snap.c.snapshot(m.Commit), filepath.FromSlash(name))
		if _, err := os.Lstat(p); err != nil {
			p = r.fileURL(m.RepoID, m.Commit, name) // fetched, not saved
		}
		return data, p, true, nil
	}
	return nil, "", false, fmt.Errorf("hub: no file beside config.json for a %q model", m.Source.Kind)
}
