package hub

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
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

// suggest returns up to three shipped ids close to spec, closest first: by
// edit distance (case-insensitive, over the whole id, or over the name
// alone when spec has no namespace) within a quarter of spec's length (at
// least 2), or containing spec as a whole.
func suggest(spec string, ids []string) []string {
	key := shippedKey(strings.SplitN(spec, "@", 2)[0])
	if len(key) == 0 || len(key) > 4*maxRepoPart {
		return nil
	}
	limit := max(2, len([]rune(key))/4)
	type cand struct {
		id   string
		dist int
	}
	var found []cand
	for _, id := range ids {
		k := shippedKey(id)
		d := distance(key, k)
		if !strings.Contains(key, "__") {
			if _, name, ok := strings.Cut(k, "__"); ok {
				d = min(d, distance(key, name))
			}
		}
		if d <= limit || (len(key) >= 4 && strings.Contains(k, key)) {
			found = append(found, cand{displayID(id), d})
		}
	}
	slices.SortFunc(found, func(a, b cand) int { return cmp.Or(cmp.Compare(a.dist, b.dist), strings.Compare(a.id, b.id)) })
	var out []string
	for _, c := range found {
		if !slices.Contains(out, c.id) {
			out = append(out, c.id)
		}
		if len(out) == maxSuggestions {
			break
		}
	}
	return out
}

// distance is the optimal string alignment distance between a and b (the
// Levenshtein distance with a swap of two neighbours counted as one edit),
// over runes.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
