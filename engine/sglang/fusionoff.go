package sglang

import "slices"

// fusionOffRead says the serve turns FlashInfer's all-reduce fusion off
// where its release may turn it on by itself, in a release whose switch
// was read (see [fusionOffReleases]). Under the other releases, those
// before v0.5.14, whose switches were not read, the flag leaves
// [Resolved.checkARFusion]'s refusal standing.
func fusionOffRead(r *Resolved) bool {
	return r.EnforceDisableARFusion && slices.Contains(fusionOffReleases, r.Profile.Name)
}

// fusionOffReleases are the releases whose
// --enforce-disable-flashinfer-allreduce-fusion was read. v0.5.14 applies it
// after every model-specific adjustment, setting
// flashinfer_allreduce_fusion_backend to None (server_args.py:4330-4336),
// and with no backend neither the workspaces before graph capture
// (model_executor/runner/base_runner.py:236-248) nor the fused all-reduce
// (layers/flashinfer_comm_fusion.py:660-672) allocate any. v0.5.15 (and
// .post1, whose change is one other line of server_args.py) runs the two
// as passes of arg_groups/overrides.py at the same slot, the auto-enable
// then the enforce-disable (server_args.py:4243-4244; overrides.py:
// 1375-1410), whose declarations materialize_declarations applies last
// writer wins (overrides.py:204-211, server_args.py:2814); the workspaces
// still wait on a backend (base_runner.py:242-243, flashinfer_comm_fusion.py:
// 624-671: ensure_workspace_initialized, the one path to the workspace
// manager's initialize, :685, :781-846), and so does the fused all-reduce
// (layers/communicator.py:166-177). v0.5.16 the same (server_args.py:
// 4814-4815, 3080; overrides.py:1537-1572; base_runner.py:247-248;
// flashinfer_comm_fusion.py:631-678, 692, 788-853; communicator.py:
// 164-178). v0.5.17 the same again: the auto-enable and then the
// enforce-disable pass at the tail of _handle_model_specific_adjustments
// (server_args.py:5557-5568; overrides.py:1885-1920), after the model's
// override declarations are stashed (:5089-5092) and after the
// deprecated --enable-flashinfer-allreduce-fusion is read as the auto
// backend (_handle_deprecated_args, :3486, 3950-3960, before :3530);
// materialize_declarations applies the stash last writer wins at the end
// of __post_init__ (overrides.py:219-228, server_args.py:3636-3638), and
// no later declaration sets a backend (overrides.py:1966-1976, the
// deterministic pass, only clears it). With no backend the workspaces
// before graph capture return at once (model_executor/runner/
// base_runner.py:253-269), ensure_workspace_initialized returns before
// the workspace manager's initialize, its one caller (layers/
// flashinfer_comm_fusion.py:666-743, the backend read at :710-713; the
// workspace created at :518 only), and the fused path is not taken
// (layers/communicator.py:165-179). v0.5.17's auto-enable list is
// v0.5.16's (see [arFusionList0514]).
//
// v0.5.18 (tag 71de97b) the same: the two passes at the tail of
// _handle_model_specific_adjustments, the auto-enable then the
// enforce-disable (server_args.py:5786-5787; overrides.py:1982-2004 and
// 2007-2017, the enforce-disable's body v0.5.17's line for line), after
// the override declarations are stashed (:5297-5300) and after the
// deprecated --enable-flashinfer-allreduce-fusion is read as the auto
// backend (_handle_deprecated_args, :3635, 4146-4156, before :3680); the
// stash applied last writer wins at the end of __post_init__
// (materialize_declarations, overrides.py:257-266; server_args.py:
// 3786-3788). Across python/sglang/srt the backend is written to a value
// only by the auto-enable and the deprecated alias; the deterministic
// pass (overrides.py:2065-2074, run at server_args.py:8204) only clears
// it. With no backend: the workspaces before graph capture return at once
// (model_executor/runner/base_runner.py:262-278, the check at :268);
// ensure_workspace_initialized returns before the workspace manager's
// initialize, its one caller (layers/flashinfer_comm_fusion.py:675-752,
// the backend read at :719-722; the workspace created at :520 only); the
// fused path is not taken (layers/communicator.py:165-179, :172). New at
// v0.5.18, the all-reduce-only FlashInfer path is switched on only with a
// backend (distributed/bootstrap.py:86, 187-193;
// set_flashinfer_allreduce_only, parallel_state.py:2128-2130): without
// one no group is tagged (_tag_groups_for_flashinfer_allreduce_only,
// :2133-2160, returning at :2151-2152), so
// GroupCoordinator._can_use_flashinfer_allreduce answers no (:948-950)
// and every all-reduce keeps its v0.5.17 path. v0.5.18's auto-enable list
// adds DeepseekV4ForCausalLM (see [arFusionList0518]).
var fusionOffReleases = []string{"v0.5.14", "v0.5.15", "v0.5.15.post1", "v0.5.16", "v0.5.17", "v0.5.18"}
