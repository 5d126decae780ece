package vllm

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"weak"

	"membudget/engine"
	"membudget/internal/untrusted"
	"membudget/model"
	"membudget/model/hub"
)

// This file reads a --speculative-config draft named by a Hugging Face
// Hub id (or a shipped model's id) rather than a directory: as vLLM's
// ModelConfig(model=...) reads the draft (vllm/config/speculative.py:
// 893-920, revision from the config's "revision"), membudget reads it the
// way the serve's --model was read, with the same resolver (its Hugging
// Face cache, --hub endpoint and token, HF_HUB_OFFLINE; see
// hub.Model.ResolveBeside), when it sizes the serve of a loaded model.

// hubDraft is a draft read by its Hub id: an EAGLE draft's config.json and
// its checkpoint's tensor shapes (or why they were not read), or a draft
// model's architecture.
type hubDraft struct {
	path      string
	config    []byte
	shapes    map[string][]uint64
	shapesErr error
	arch      *model.Arch
}

// hubDrafts keeps the drafts read by Hub id for the resolutions of the
// loaded target model's serves after the first (a plan's search, the
// advice), by target and draft; an entry goes when its target is
// collected (a server's request with --hub loads its own model, and keeps
// nothing of it for the next request).
var hubDrafts sync.Map // hubDraftKey -> *hubDraft

// hubDraftKey names a draft read for a target: the target's architecture
// (the loaded model's, which its compiler resolves every serve on), the
// draft's id[@revision] and the method.
type hubDraftKey struct {
	target weak.Pointer[model.Arch]
	spec   string
}

// localDraft says a --speculative-config "model" names a local directory:
// written as a path, or one that is there (vLLM's ModelConfig, like
// from_pretrained, reads an existing directory before the Hub; so does
// hub.Resolver.Resolve).
func localDraft(spec string) bool {
	return DraftPath(spec) || hub.IsPath(spec)
}

// hubDraftKeyOf is the key of sc's draft for target a in hubDrafts.
func hubDraftKeyOf(a *model.Arch, sc specConfig) hubDraftKey {
	return hubDraftKey{target: weak.Make(a), spec: hubDraftSpec(sc) + "\x00" + specMethod(sc)}
}

// hubDraftSpec is the draft's id as hub.Resolver.Resolve takes it, with
// the config's revision.
func hubDraftSpec(sc specConfig) string {
	if sc.revision != "" {
		return sc.model + "@" + sc.revision
	}
	return sc.model
}

// preloadHubDraft reads the draft that s's --speculative-config names by a
// Hub id, with the resolver that read m, once the serve is resolved up to
// it (size calls it on [hubDraftUnread] and resolves again); a
// local draft, a method without one, or a config resolveSpec refuses reads
// nothing here. A draft that cannot be read is a refusal naming the flag.
// Errors are not kept: a Hub that answers later is read then.
func preloadHubDraft(m *hub.Loaded, s Serve) error {
	sc, err := parseSpecConfig(s.SpeculativeConfig)
	if s.SpeculativeConfig == "" || err != nil || sc.model == "" || localDraft(sc.model) {
		return nil
	}
	method := specMethod(sc)
	if method != "eagle" && method != "eagle3" && method != "draft_model" && method != "medusa" {
		return nil
	}
	if m == nil || m.Arch == nil {
		return nil
	}
	key := hubDraftKeyOf(m.Arch, sc)
	if _, ok := hubDrafts.Load(key); ok {
		return nil
	}
	spec, target := hubDraftSpec(sc), m.Model
	ctx := context.Background() // the resolver bounds the read by its Deadline
	d := &hubDraft{}
	if method == "draft_model" {
		l, err := target.LoadBeside(ctx, spec)
		if err != nil {
			return settingErr("speculative-config", method, "the draft %s", untrusted.Text(err.Error()))
		}
		d.path, d.arch = l.Model.Path, l.Arch
	} else {
		dm, err := target.ResolveBeside(ctx, spec)
		if err != nil {
			return settingErr("speculative-config", method, "the draft %s", untrusted.Text(err.Error()))
		}
		d.path, d.config = dm.Path, dm.Config
		ck, err := dm.Tensors(ctx)
		switch {
		case errors.Is(err, hub.ErrNoCheckpoint):
			d.shapesErr = fmt.Errorf("%s: %w: membudget reads its tensor names to tell what vLLM shares with the target (a pytorch_model.bin is not read)", spec, errNoSafetensors)
		case err != nil:
			return settingErr("speculative-config", method, "the draft %s: reading the checkpoint: %s", untrusted.Text(spec), untrusted.Text(err.Error()))
		default:
			d.shapes = map[string][]uint64{}
			for _, t := range ck.Tensors {
				d.shapes[t.Name] = t.Shape
			}
		}
	}
	if _, loaded := hubDrafts.LoadOrStore(key, d); !loaded {
		runtime.AddCleanup(m.Arch, func(k hubDraftKey) { hubDrafts.Delete(k) }, key)
	}
	return nil
}

// hubDraftUnread says err is the refusal of a draft named by a Hub id that
// preloadHubDraft has not read: the one refusal size answers by reading
// it and resolving the serve again.
func hubDraftUnread(err error) bool {
	var se *engine.SettingError
	return errors.As(err, &se) && se.Flag == "speculative-config" && strings.HasSuffix(se.Reason, specHubDraft)
}

// hubDraftOf is sc's draft as preloadHubDraft read it, or an error saying
// it was not read.
func hubDraftOf(a *model.Arch, sc specConfig) (*hubDraft, error) {
	v, ok := hubDrafts.Load(hubDraftKeyOf(a, sc))
	if !ok {
		return nil, fmt.Errorf("%s%s", sc.model, specHubDraft)
	}
	return v.(*hubDraft), nil
}

// loadDraftOf reads the EAGLE draft sc names: from its directory, or as
// preloadHubDraft read it by its Hub id.
func loadDraftOf(sc specConfig, a *model.Arch) (Draft, error) {
	if localDraft(sc.model) {
		return loadDraft(sc.model, sc.method, a)
	}
	hd, err := hubDraftOf(a, sc)
	if err != nil {
		return Draft{}, err
	}
	d, err := readDraftFrom(sc.model, hd.path, hd.config, func() (map[string][]uint64, error) { return hd.shapes, hd.shapesErr }, sc.method, a)
	return d, err
}

// loadDraftModelOf is the architecture of the draft model sc names: read
// from its directory, or as preloadHubDraft read it by its Hub id.
func loadDraftModelOf(sc specConfig, a *model.Arch) (*model.Arch, error) {
	if localDraft(sc.model) {
		return loadDraftModel(sc.model)
	}
	hd, err := hubDraftOf(a, sc)
	if err != nil {
		return nil, err
	}
	return hd.arch, nil
}
