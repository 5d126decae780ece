package sglang

import "fmt"

// newestKnown is the newest SGLang release membudget knows to exist:
// v0.5.23 (2026-10, membudget issue 21).
var newestKnown = release{0, 5, 23, 0}

// unreadRelease is why release r, newer than v0.5.6.post2, is refused: what
// of its memory rules could not be read (see [unreadReleases]), then the
// newest release membudget models.
func unreadRelease(r release) string {
	why := unreadLater
	switch {
	case r.major == 0 && r.minor == 5 && r.patch == 6:
		why = unreadPost
	case !newestKnown.less(r):
		for _, u := range unreadReleases {
			if u.patch == r.patch {
				why = u.why
			}
		}
	}
	return fmt.Sprintf("SGLang %s's memory rules are not read: %s; the newest release membudget models is %s (--sglang-version %s)", r, why, DefaultName, DefaultName)
}

// unreadReleases says, for each SGLang release from v0.5.7 to v0.5.23 (a
// post release shares its release's entry), what could not be read of the
// memory rules it may have changed. No tag among them could be read: the
// copies of sgl-project/sglang at hand hold its files one version each, at
// commits tied to no release (server_args.py at 001067f already names
// DeepSeek-V4 and Kimi-K3), and none at the one tag commit found, v0.5.20's
// 94602c9. From v0.5.13 at the latest SGLang releases from branches
// (release/v0.5.13 ... release/v0.5.21) that take cherry-picks, so main at
// a release's date is not its tag either. What is known is when each
// memory change reached main, from sgl-project/sglang's pull requests and
// third-party digests of its commits, and when each release was out, from
// the projects that pinned it (docs/sglang.md cites each): a change is
// said to reach a release only where those dates prove it.
//
// Of the changes membudget's issue 21 names: the disaggregation-aware
// reserve is PR #29615 (main 2026-07-05) and the Mamba pool per pipeline
// stage #33666 (main 2026-08-06); #28620 is "Add SM89 FP8 indexer fallback
// for DeepSeek V4 Flash" (merged 2026-06-17 to 21), not a draft pool, and
// the draft change found is #28855, the draft weights counted in
// --mem-fraction-static (main 2026-06-22); --max-total-tokens clamped to
// the profiled pool is v0.5.6.post2's rule already (model_runner.py:
// 1716-1723), which membudget applies.
var unreadReleases = []struct {
	patch int
	why   string
}{
	{7, "v0.5.7 (on PyPI 2026-01-01) is the first release after v0.5.6.post2 and its tag could not be read; " +
		"the one memory change known to follow v0.5.6.post2's bump, trtllm_mha no longer the default attention on SM12x (#14842, opened 2025-12-10), " +
		"is of unknown release, and what else its three weeks changed in server_args.py, model_runner.py and mem_cache/ is not known"},
	{8, "v0.5.8 (out by 2026-01-29) could not be read, nor its release notes; v0.5.7's unread changes carry into it"},
	{9, "neither v0.5.9's tag nor its date could be read; " + mainByMarch},
	{10, "neither v0.5.10's tag nor its date (nor v0.5.10.post1's) could be read; " + mainByMarch},
	{11, "neither v0.5.11's tag nor its date could be read; " + mainByMarch},
	{12, "neither v0.5.12's tag nor its date (nor v0.5.12.post1's) could be read; " + mainByMarch},
	{13, "v0.5.13 (out by 2026-06-17) could not be read; piecewise CUDA graphs on by default (#16331) and Qwen3.5's full-attention layers on trtllm_mha on SM100 (#19030) " +
		"reached main on 2026-03-02, and whether its branch has them is not known; that branch, release/v0.5.13, existed by 2026-06-08 (cherry-pick #27756), " +
		"before the draft model's weights counted in --mem-fraction-static (#28855) reached main on 2026-06-22"},
	{14, "v0.5.14 could not be read; its branch release/v0.5.14 existed by 2026-06-25 (cherry-pick #29221), " +
		"and whether it has the draft model's weights counted in --mem-fraction-static (#28855, main 2026-06-22) is not known; " +
		"the disaggregation-aware reserve of --mem-fraction-static's default (#29615) reached main on 2026-07-05, after that branch existed"},
	{15, "v0.5.15 (and v0.5.15.post1) could not be read; its branch release/v0.5.15 took cherry-picks on 2026-07-14 (#31083), " +
		"and whether it has #28855's draft weights (main 2026-06-22) and #29615's disaggregation-aware reserve (main 2026-07-05) is not known: " +
		"that reserve is readable in server_args.py at 001067f, a commit of no known date or release, beside a piecewise prefill graph term v0.5.6.post2 lacks; " +
		"KV pool sizing after CUDA graph capture (SGLANG_ENABLE_POST_CAPTURE_KV_SIZING, off by default, #30157, opened 2026-07-05) " +
		"and the pool's sizing moved into KVCacheConfigurator (#31162, #31163, opened 2026-07-14) are of unknown release"},
	{16, "v0.5.16 (out before 2026-08-20) could not be read; v0.5.15's unread changes carry into it, " +
		"and the Mamba pool sized per pipeline stage, not per model (#33666), reached main on 2026-08-06, after v0.5.17's branch, and so its own, was cut"},
	{17, "v0.5.17 (the newest release on 2026-08-20) could not be read; its branch release/v0.5.17 took the Mamba pool sized per pipeline stage, not per model " +
		"(#33666, cherry-picked by #34035 on 2026-08-07), whether before its tag is not known, and v0.5.16's unread changes carry into it"},
	{18, "v0.5.18 (out after 2026-08-20 and before 2026-09-07) could not be read; whether its branch has #33666's Mamba pool per pipeline stage (main 2026-08-06) is not known, " +
		"and v0.5.17's unread changes carry into it"},
	{19, "v0.5.19 (the newest release on 2026-09-07) could not be read; " +
		"the KV-canary workspace taken off the post-capture pool (#38596, opened 2026-09-09) came after it, and v0.5.18's unread changes carry into it"},
	{20, "v0.5.20 (tag 94602c9 on release/v0.5.20, committed 2026-09-18) could not be read: no file of SGLang's is stored at that commit; " +
		"whether it has #38596's KV-canary workspace (opened 2026-09-09) is not known, and v0.5.19's unread changes carry into it"},
	{21, "v0.5.21 (its branch release/v0.5.21 at e00930c, date unknown) could not be read; v0.5.20's unread changes carry into it"},
	{22, "neither v0.5.22's tag nor its date could be read; v0.5.21's unread changes carry into it"},
	{23, "v0.5.23 (2026-10, the newest release known when membudget's profiles were written) could not be read, nor its release notes; " +
		"v0.5.22's unread changes carry into it"},
}

// mainByMarch is what is known of v0.5.9 to v0.5.12: which of them first
// has the changes that reached main in March 2026.
const mainByMarch = "piecewise CUDA graphs on by default (#16331) and Qwen3.5's full-attention layers on trtllm_mha on SM100 (#19030) reached main on 2026-03-02, " +
	"after v0.5.8 (out by 2026-01-29) and before v0.5.13 (out by 2026-06-17), and which release between first has them is not known"

// unreadLater is why a release after v0.5.23 is refused.
const unreadLater = "no SGLang release after v0.5.23 (2026-10, the newest known when membudget's profiles were written) is known to membudget"

// unreadPost is why a post release of v0.5.6 after .post2 is refused.
const unreadPost = "no release after v0.5.6.post2 in the 0.5.6 line is known to membudget"
