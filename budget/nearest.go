package budget

import (
	"slices"
	"strings"
)

// Nearest returns up to n of candidates closest to name, ignoring case,
// nearest first: the "did you mean" of an unknown name. A candidate
// qualifies when it is within a third of its length of name by edit
// distance, or holds name (or name it) whole, so that a typo is caught and
// an unrelated word is not. Candidates that begin with name come first (a
// user who typed "h100" means an H100 before an H200, one edit away), then
// by edit distance.
func Nearest(name string, candidates []string, n int) []string {
	type scored struct {
		s      string
		d      int
		prefix bool
	}
	lname := strings.ToLower(name)
	var near []scored
	for _, c := range candidates {
		lc := strings.ToLower(c)
		d := EditDistance(lname, lc)
		if d <= max(1, len(lc)/3) || (len(lname) >= 3 && (strings.Contains(lc, lname) || strings.Contains(lname, lc))) {
			near = append(near, scored{c, d, strings.HasPrefix(lc, lname)})
		}
	}
	slices.SortStableFunc(near, func(a, b scored) int {
		if a.prefix != b.prefix {
			if a.prefix {
				return -1
			}
			return 1
		}
		return a.d - b.d
	})
	out := make([]string, 0, min(n, len(near)))
	for _, s := range near[:min(n, len(near))] {
		out = append(out, s.s)
	}
	return out
}

// EditDistance returns the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours, in bytes.
func EditDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
