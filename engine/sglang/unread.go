package sglang

import "fmt"

// newestKnown is the newest SGLang release membudget knows to exist:
// v0.5.23 (2026-10, membudget issue 21).
var newestKnown = release{0, 5, 23, 0}

// unreadRelease is why release r, newer than the newest modelled, is refused: what of
// its memory rules is not read (see [unreadReleases]), then the newest
// release membudget models.
func unreadRelease(r release) string {
	why := unreadLater
	switch post := unknownPost(r); {
	case post != "":
		why = post
	case r.major == newestRead.major && r.minor == newestRead.minor && r.patch == newestRead.patch:
		why = unreadPost0518
	case !newestKnown.less(r):
		for _, u := range unreadReleases {
			if u.patch == r.patch {
				why = u.why
			}
		}
	}
	return fmt.Sprintf("SGLang %s's memory rules are not modelled: %s; the newest release membudget models is %s (--sglang-version %s)", r, why, newestRead, newestRead)
}

// unreadReleases says, for each SGLang release from v0.5.19 to v0.5.23 (a
// post release shares its release's entry), why its memory rules are not
// modelled; v0.5.11 to v0.5.18 are modelled (see profile0511,
// profile0512, profile0513, profile0514, profile0515, profile0516,
// profile0517, profile0518), v0.5.13.post2 is refused as a fork's tag (see
// [unreadPost]) and a post release of v0.5.14, of v0.5.15 after .post1, of
// v0.5.16, of v0.5.17 or of v0.5.18, as tagged nowhere (see [postGaps],
// [unreadPost0518]).
//
// v0.5.11 to v0.5.13.post2 are tags of the git mirror of sgl-project/sglang
// at GitHub charlesHsuGG/sglang, which holds every tag from v0.5.6 on to
// v0.5.13.post2 (2026-06-16): they are read step by step against the
// release before (git diff of server_args.py, model_executor/, mem_cache/,
// configs/model_config.py, distributed/, speculative/, layers/, the sized
// families' models/ and the FlashInfer pin), each profile naming what moves
// memory and what stays unread, so a release is never sized with an
// earlier release's rules.
//
// v0.5.14 to v0.5.18 are tags of two forks of sgl-project/sglang, GitHub
// bytedance-iaas/sglang and guqiong96/Lsglang (snapshots of 2026-08-22),
// annotated tags by SGLang's release managers ("Release v0.5.14", "Bump
// v0.5.18") that point to the same commits in both, each the last
// cherry-pick of its branch release/v0.5.N; both also hold v0.5.13 at
// 28b095c, the commit membudget reads it at (guqiong96's v0.5.13.post1 is
// 85fd900 too; bytedance-iaas kept the tag's first placing, 45ec483, one
// gateway commit before). v0.5.14 is read against v0.5.13.post1 and
// modelled (see profile0514), v0.5.15 and v0.5.15.post1 against v0.5.14
// (see profile0515), v0.5.16 against v0.5.15.post1 (see profile0516),
// v0.5.17 against v0.5.16 (see profile0517), v0.5.18 against v0.5.17
// (see profile0518).
// git log --grep of each pull request at each tag says which releases hold
// it.
//
// v0.5.19 to v0.5.23 are in no mirror found (the forks' tags stop at
// v0.5.18); what is known of them is when each memory change reached main,
// from sgl-project/sglang's pull requests and third-party digests of its
// commits, and when each release was out, from the projects that pinned
// it (docs/sglang.md cites each). SGLang releases from branches that take
// cherry-picks, so main at a release's date is not its tag.
//
// Of the changes membudget's issue 21 names: the disaggregation-aware
// reserve is PR #29615 (main 2026-07-05, first in v0.5.15) and the Mamba
// pool per pipeline stage #33666 (in v0.5.17 by its cherry-pick #34035,
// the tag's own commit, and in v0.5.18 from main); #28620 is "Add SM89 FP8
// indexer fallback for DeepSeek V4 Flash", not a draft pool, and the draft
// change found is #28855, the draft weights counted in
// --mem-fraction-static (main 2026-06-22, first in v0.5.14);
// --max-total-tokens clamped to the profiled pool is v0.5.6.post2's and
// v0.5.7's rule already (model_runner.py:1716-1723 at v0.5.6.post2), which
// membudget applies.
var unreadReleases = []struct {
	patch int
	why   string
}{
	{19, "v0.5.19 (the newest release on 2026-09-07) is in no mirror found (the forks holding v0.5.14 to v0.5.18 were copied on 2026-08-22); " +
		"the KV-canary workspace taken off the post-capture pool (#38596, opened 2026-09-09) came after it"},
	{20, "v0.5.20 (tag 94602c9 on release/v0.5.20, committed 2026-09-18) is in no mirror found, and no file of SGLang's is stored at that commit; " +
		"whether it has #38596's KV-canary workspace (opened 2026-09-09) is not known, and v0.5.19's unread changes carry into it"},
	{21, "v0.5.21 (its branch release/v0.5.21 at e00930c, date unknown) is in no mirror found; v0.5.20's unread changes carry into it"},
	{22, "neither v0.5.22's tag nor its date is in any mirror found; v0.5.21's unread changes carry into it"},
	{23, "v0.5.23 (2026-10, the newest release on PyPI when membudget's profiles were written) is in no mirror found, nor its release notes; " +
		"v0.5.22's unread changes carry into it"},
}

// unreadLater is why a release after v0.5.23 is refused.
const unreadLater = "no SGLang release after v0.5.23 (2026-10, the newest known when membudget's profiles were written) is known to membudget"

// unknownPost is why r, a post release no fork tags below the newest
// release modelled, is refused by name, "" for any other release: of
// v0.5.13 after .post1 (the mirror's fork tag v0.5.13.post2 among them,
// see [unreadPost]) and of each release of [postGaps] after its last post
// release tagged.
func unknownPost(r release) string {
	if r.major != 0 || r.minor != 5 {
		return ""
	}
	if r.patch == 13 && r.post > 1 {
		return unreadPost
	}
	for _, g := range postGaps {
		if g.patch == r.patch && r.post > g.lastPost {
			after := ""
			if g.lastPost > 0 {
				after = fmt.Sprintf(" after .post%d", g.lastPost)
			}
			return fmt.Sprintf("no post release of v0.5.%d%s is known to membudget: the forks bytedance-iaas/sglang and guqiong96/Lsglang, "+
				"which hold SGLang's tags from v0.5.13.post1 to v0.5.18, tag none between %s and %s", r.patch, after, g.last, g.next)
		}
	}
	return ""
}

// postGaps are the releases v0.5.patch below the newest modelled whose
// forks' tags (git tag in bytedance-iaas/sglang and guqiong96/Lsglang) go
// from the last post release tagged, .post lastPost (0 for the release
// itself), to the next release with no post release between: a later
// post release of one is refused by name (see [unknownPost]).
var postGaps = []struct {
	patch, lastPost int
	last, next      string // the tags either side, with their commits
}{
	{14, 0, "v0.5.14 (49e384c)", "v0.5.15 (f63458b)"},
	{15, 1, "v0.5.15.post1 (0b3bb0c)", "v0.5.16 (fdebc93)"},
	{16, 0, "v0.5.16 (fdebc93)", "v0.5.17 (2948168)"},
	{17, 0, "v0.5.17 (2948168)", "v0.5.18 (71de97b)"},
}

// unreadPost is why v0.5.13.post2 is refused: the mirror's v0.5.13.post2 (tag 403cc43, 2026-06-16) was tagged
// by the mirror's owner, "update rl important sampling method", on a fork
// branch that merges release/v0.5.13 into the owner's rl_important_sampling
// (its add_cli_args is v0.5.13's); the forks bytedance-iaas/sglang and
// guqiong96/Lsglang, whose tags run from v0.5.13.post1 to v0.5.18, hold no
// v0.5.13.post2, so no upstream v0.5.13.post2 is known.
const unreadPost = "v0.5.13.post2 is not an upstream release membudget knows: the mirror charlesHsuGG/sglang's tag v0.5.13.post2 (403cc43, 2026-06-16) is its owner's commit \"update rl important sampling method\" on a fork branch merging release/v0.5.13, and the forks bytedance-iaas/sglang and guqiong96/Lsglang, whose tags run from v0.5.13.post1 to v0.5.18, tag no post release of v0.5.13 after .post1"

// unreadPost0518 is why a post release of v0.5.18, the newest modelled,
// is refused: the forks' tags stop at v0.5.18 (71de97b; snapshots of
// 2026-08-22).
const unreadPost0518 = "no post release of v0.5.18 is known to membudget: the forks bytedance-iaas/sglang and guqiong96/Lsglang, which hold SGLang's tags from v0.5.13.post1 to v0.5.18, tag none after v0.5.18 (71de97b) in their copies of 2026-08-22"
