package hub

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"membudget/budget"
)

// DefaultRevision is the revision a model id without "@" means
// (huggingface_hub constants.py, DEFAULT_REVISION).
const DefaultRevision = "main"

// maxRepoPart is the longest repo name huggingface_hub accepts
// (utils/_validators.py, REPO_ID_REGEX: [\w\-.]{1,96}); the namespace is
// held to the same.
const maxRepoPart = 96

// maxRevision bounds a revision; git refs have no fixed limit, but a
// revision becomes a file name under refs/.
const maxRevision = 255

// isCommit reports whether s is a full commit hash, as huggingface_hub's
// REGEX_COMMIT_HASH (^[0-9a-f]{40}$) decides.
func isCommit(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckRepoID returns an error unless id is a model id that huggingface_hub's
// validate_repo_id accepts: "name" or "namespace/name", each part 1 to 96 of
// [A-Za-z0-9_.-], beginning and ending with a letter, digit or '_', no "--"
// or "..", and not ending in ".git".
func CheckRepoID(id string) error {
	parts := strings.Split(id, "/")
	if len(parts) > 2 {
		return fmt.Errorf("%q: a model id is name or namespace/name, with one slash at most", id)
	}
	word := func(c byte) bool {
		return c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
	}
	for _, p := range parts {
		if p == "" || len(p) > maxRepoPart {
			return fmt.Errorf("%q: each part of a model id has 1 to %d characters", id, maxRepoPart)
		}
		for i := 0; i < len(p); i++ {
			if c := p[i]; !word(c) && c != '-' && c != '.' {
				return fmt.Errorf("%q: a model id uses letters, digits, '-', '_' and '.' only", id)
			}
		}
		if !word(p[0]) || !word(p[len(p)-1]) {
			return fmt.Errorf("%q: a part of a model id cannot begin or end with '-' or '.'", id)
		}
	}
	if strings.Contains(id, "--") || strings.Contains(id, "..") {
		return fmt.Errorf("%q: a model id cannot contain \"--\" or \"..\"", id)
	}
	if strings.HasSuffix(id, ".git") {
		return fmt.Errorf("%q: a model id cannot end in \".git\"", id)
	}
	return nil
}

// CheckRevision returns an error unless rev is a usable git revision: a
// branch, tag or ref such as refs/pr/1 (git check-ref-format's rules: no
// "..", "@{", control characters, spaces or ~^:?*[\, no empty, "." or
// ".lock" component), or a commit hash. A revision names a file under
// refs/ in the cache, so these rules also keep it inside that directory.
func CheckRevision(rev string) error {
	switch {
	case rev == "":
		return errors.New("empty revision")
	case len(rev) > maxRevision:
		return fmt.Errorf("revision of %d bytes, more than %d", len(rev), maxRevision)
	case strings.ContainsFunc(rev, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune(`~^:?*[\`, r) }):
		return fmt.Errorf("revision %q: spaces, control characters and ~^:?*[\\ are not allowed", rev)
	case strings.Contains(rev, "..") || strings.Contains(rev, "@{") || rev == "@":
		return fmt.Errorf("revision %q: \"..\" and \"@{\" are not allowed", rev)
	case strings.HasSuffix(rev, "."):
		return fmt.Errorf("revision %q cannot end with '.'", rev)
	}
	for _, c := range strings.Split(rev, "/") {
		if c == "" || strings.HasPrefix(c, ".") || strings.HasSuffix(c, ".lock") {
			return fmt.Errorf("revision %q: empty components, ones that begin with '.' or end in \".lock\" are not allowed", rev)
		}
	}
	return nil
}

// splitSpec splits "org/name@revision" at the first '@' (a model id has
// none; a revision may). An "org__name" without a slash, the spelling of
// the shipped files, is read as "org/name".
func splitSpec(spec string) (repo, rev string, err error) {
	repo, rev, hasRev := strings.Cut(spec, "@")
	if !strings.Contains(repo, "/") {
		if org, name, ok := strings.Cut(repo, "__"); ok && CheckRepoID(org+"/"+name) == nil {
			repo = org + "/" + name
		}
	}
	if err := CheckRepoID(repo); err != nil {
		return "", "", err
	}
	if hasRev {
		if err := CheckRevision(rev); err != nil {
			return "", "", err
		}
	}
	return repo, rev, nil
}

// looksLikePath reports whether spec can only mean a file: it is absolute,
// starts with ".", "~" or a separator, has a backslash, or names a .json
// file. Such a spec is never looked up as a model id.
func looksLikePath(spec string) bool {
	return filepath.IsAbs(spec) || strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "~") ||
		strings.HasPrefix(spec, "/") || strings.Contains(spec, `\`) ||
		strings.HasSuffix(strings.ToLower(spec), ".json")
}

// IsPath reports whether [Resolver.Resolve] reads spec as a path:
// something is there, or spec can only name a file (absolute, starting
// with ".", "~" or a separator, or ending in .json). A path has no
// revisions.
func IsPath(spec string) bool {
	if _, err := os.Stat(spec); err == nil {
		return true
	}
	return looksLikePath(spec)
}

// repoFolder is the cache folder of a model (huggingface_hub
// file_download.py, repo_folder_name): models--org--name.
func repoFolder(repo string) string {
	return "models--" + strings.ReplaceAll(repo, "/", "--")
}

// shippedKey is the case-insensitive form a shipped id is matched by:
// "Meta-Llama/Llama-3.1-8B" and "meta-llama__llama-3.1-8b" are equal.
func shippedKey(id string) string {
	return strings.ToLower(strings.Replace(id, "/", "__", 1))
}

// displayID writes a shipped id the way a user types it for the Hub.
func displayID(id string) string {
	if strings.Contains(id, "/") {
		return id
	}
	return strings.Replace(id, "__", "/", 1)
}

// maxSuggestions is how many near misses a "did you mean" lists.
const maxSuggestions = 3

// suggest returns up to three shipped ids close to spec, closest first, as
// [budget.Nearest] judges closeness (the project's one "did you mean"),
// case-insensitively. A spec whose namespace is a shipped id's is compared
// with that id on the name alone, as is a spec with no namespace; any other
// is compared with the whole id. Same-namespace matches come first.
func suggest(spec string, ids []string) []string {
	key := shippedKey(strings.SplitN(spec, "@", 2)[0])
	if len(key) == 0 || len(key) > 4*maxRepoPart {
		return nil
	}
	org, name, namespaced := strings.Cut(key, "__")
	if !namespaced {
		name = key
	}
	// byName and byKey map the strings compared to the ids they stand for:
	// several namespaces may ship one name.
	byName, byKey := map[string][]string{}, map[string][]string{}
	var names, keys []string
	for _, id := range ids {
		k := shippedKey(id)
		idOrg, idName, ok := strings.Cut(k, "__")
		switch {
		case ok && (!namespaced || idOrg == org):
			if byName[idName] == nil {
				names = append(names, idName)
			}
			byName[idName] = append(byName[idName], displayID(id))
		default:
			if byKey[k] == nil {
				keys = append(keys, k)
			}
			byKey[k] = append(byKey[k], displayID(id))
		}
	}
	var out []string
	add := func(near []string, to map[string][]string) {
		for _, n := range near {
			for _, id := range to[n] {
				if !slices.Contains(out, id) && len(out) < maxSuggestions {
					out = append(out, id)
				}
			}
		}
	}
	add(budget.Nearest(name, names, maxSuggestions), byName)
	add(budget.Nearest(key, keys, maxSuggestions), byKey)
	return out
}
