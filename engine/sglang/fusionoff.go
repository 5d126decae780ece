package sglang

// fusionOffRead says the serve turns FlashInfer's all-reduce fusion off
// where its release may turn it on by itself, in a release whose switch
// was read: v0.5.14 applies --enforce-disable-flashinfer-allreduce-fusion
// after every model-specific adjustment, setting
// flashinfer_allreduce_fusion_backend to None (server_args.py:4330-4336),
// and with no backend neither the workspaces before graph capture
// (model_executor/runner/base_runner.py:236-248) nor the fused all-reduce
// (layers/flashinfer_comm_fusion.py:660-672) allocate any. Under the
// releases before, whose switches were not read, the flag leaves
// [Resolved.checkARFusion]'s refusal standing.
func fusionOffRead(r *Resolved) bool {
	return r.EnforceDisableARFusion && r.Profile.Name == mambaRelease
}
