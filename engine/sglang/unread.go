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
	switch {
	case r.major == newestRead.major && r.minor == newestRead.minor && r.patch == newestRead.patch:
		why = unreadPost
	case !newestKnown.less(r):
		for _, u := range unreadReleases {
			if u.patch == r.patch {
				why = u.why
			}
		}
	}
	return fmt.Sprintf("SGLang %s's memory rules are not modelled: %s; the newest release membudget models is %s (--sglang-version %s)", r, why, newestRead, newestRead)
}

// unreadReleases says, for each SGLang release from v0.5.14 to v0.5.23 (a
// post release shares its release's entry), what of the memory rules it
// may have changed is not read; v0.5.11 to v0.5.13.post1 are modelled
// (see profile0511, profile0512, profile0513), and v0.5.13.post2 is
// refused as a fork's tag (see [unreadPost]).
//
// v0.5.11 to v0.5.13.post2 are tags of the git mirror of sgl-project/sglang
// at GitHub charlesHsuGG/sglang, which holds every tag from v0.5.6 on to
// v0.5.13.post2 (2026-06-16): they are read step by step against the
// release before (git diff of server_args.py, model_executor/, mem_cache/,
// configs/model_config.py, distributed/, speculative/, layers/, the sized
// families' models/ and the FlashInfer pin), each profile naming what moves
// memory and what stays unread, so a release is never sized with an
// earlier release's rules.
// v0.5.14 to v0.5.23 are in no mirror found: charlesHsuGG/sglang has the
// branch release/v0.5.14 but no later tag, and nokiaMS/sglang (main of
// 2026-08-11) has no tag after v0.5.13.post2; the sgl-project/sglang files
// of the search index are one version each, at commits tied to no release
// (server_args.py at 001067f already names DeepSeek-V4 and Kimi-K3), and
// none at the one tag commit found, v0.5.20's 94602c9. From v0.5.13 SGLang
// releases from branches (release/v0.5.13 ... release/v0.5.21) that take
// cherry-picks, so main at a release's date is not its tag either; what is
// known of v0.5.14 on is when each memory change reached main, from
// sgl-project/sglang's pull requests and third-party digests of its
// commits, and when each release was out, from the projects that pinned it
// (docs/sglang.md cites each).
//
// Of the changes membudget's issue 21 names: the disaggregation-aware
// reserve is PR #29615 (main 2026-07-05) and the Mamba pool per pipeline
// stage #33666 (main 2026-08-06), both after v0.5.13.post2; #28620 is "Add
// SM89 FP8 indexer fallback for DeepSeek V4 Flash" (merged 2026-06-17 to
// 21), not a draft pool, and the draft change found is #28855, the draft
// weights counted in --mem-fraction-static (main 2026-06-22);
// --max-total-tokens clamped to the profiled pool is v0.5.6.post2's and
// v0.5.7's rule already (model_runner.py:1716-1723 at v0.5.6.post2), which
// membudget applies.
var unreadReleases = []struct {
	patch int
	why   string
}{
	{14, "v0.5.14's tag is in no mirror found (charlesHsuGG/sglang has its branch release/v0.5.14, not its tag); that branch existed by 2026-06-25 (cherry-pick #29221), " +
		"and whether it has the draft model's weights counted in --mem-fraction-static (#28855, main 2026-06-22) is not known; " +
		"the disaggregation-aware reserve of --mem-fraction-static's default (#29615) reached main on 2026-07-05, after that branch existed"},
	{15, "v0.5.15 (and v0.5.15.post1) is in no mirror found; its branch release/v0.5.15 took cherry-picks on 2026-07-14 (#31083), " +
		"and whether it has #28855's draft weights (main 2026-06-22) and #29615's disaggregation-aware reserve (main 2026-07-05) is not known: " +
		"that reserve is readable in server_args.py at 001067f, a commit of no known date or release, beside a piecewise prefill graph term; " +
		"KV pool sizing after CUDA graph capture (SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, off by default, #30157, opened 2026-07-05) " +
		"and the pool's sizing moved into KVCacheConfigurator (#31162, #31163, opened 2026-07-14) are of unknown release"},
	{16, "v0.5.16 (out before 2026-08-20) is in no mirror found; v0.5.15's unread changes carry into it, " +
		"and the Mamba pool sized per pipeline stage, not per model (#33666), reached main on 2026-08-06, after v0.5.17's branch, and so its own, was cut"},
	{17, "v0.5.17 (the newest release on 2026-08-20) is in no mirror found; its branch release/v0.5.17 took the Mamba pool sized per pipeline stage, not per model " +
		"(#33666, cherry-picked by #34035 on 2026-08-07), whether before its tag is not known, and v0.5.16's unread changes carry into it"},
	{18, "v0.5.18 (out after 2026-08-20 and before 2026-09-07) is in no mirror found; whether its branch has #33666's Mamba pool per pipeline stage (main 2026-08-06) is not known, " +
		"and v0.5.17's unread changes carry into it"},
	{19, "v0.5.19 (the newest release on 2026-09-07) is in no mirror found; " +
		"the KV-canary workspace taken off the post-capture pool (#38596, opened 2026-09-09) came after it, and v0.5.18's unread changes carry into it"},
	{20, "v0.5.20 (tag 94602c9 on release/v0.5.20, committed 2026-09-18) is in no mirror found, and no file of SGLang's is stored at that commit; " +
		"whether it has #38596's KV-canary workspace (opened 2026-09-09) is not known, and v0.5.19's unread changes carry into it"},
	{21, "v0.5.21 (its branch release/v0.5.21 at e00930c, date unknown) is in no mirror found; v0.5.20's unread changes carry into it"},
	{22, "neither v0.5.22's tag nor its date is in any mirror found; v0.5.21's unread changes carry into it"},
	{23, "v0.5.23 (2026-10, the newest release on PyPI when membudget's profiles were written) is in no mirror found, nor its release notes; " +
		"v0.5.22's unread changes carry into it"},
}

// unreadLater is why a release after v0.5.23 is refused.
const unreadLater = "no SGLang release after v0.5.23 (2026-10, the newest known when membudget's profiles were written) is known to membudget"

// unreadPost is why a post release of the newest release modelled is
// refused: the mirror's v0.5.13.post2 (tag 403cc43, 2026-06-16) was tagged
// by the mirror's owner, "update rl important sampling method", on a fork
// branch that merges release/v0.5.13 into the owner's rl_important_sampling
// (its add_cli_args is v0.5.13's); whether sgl-project/sglang ever tagged a
// v0.5.13.post2, and with what, is not known, and no later post release is
// tagged.
const unreadPost = "v0.5.13.post2 is not an upstream release membudget knows: the mirror charlesHsuGG/sglang's tag v0.5.13.post2 (403cc43, 2026-06-16) is its owner's commit \"update rl important sampling method\" on a fork branch merging release/v0.5.13, and no other post release of v0.5.13 after .post1 is tagged"
