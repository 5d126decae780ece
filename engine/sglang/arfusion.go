package sglang

import (
	"fmt"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// FlashInfer's all-reduce fusion (residual add and RMSNorm fused into the
// tensor-parallel all-reduce) is turned on by SGLang itself, without
// --enable-flashinfer-allreduce-fusion, for DeepSeek-V3's architectures on
// SM100 (v0.5.6.post2 server_args.py:1080-1087) and for gpt-oss on
// Blackwell, SM100 or SM120 (:1138-1145), when DP attention is off and
// --nnodes is 1 (v0.5.7 widened the rule: see [arFusionRules]). Its
// workspace is made at the first fused forward (layers/
// flashinfer_comm_fusion.py:98-124, 165-169, the CUDA-graph capture that
// follows the KV pool), so it stands beside the pool in what the fraction
// leaves, and only under tensor parallelism (a world size of 1 makes
// none, :108-110).

// arFusionRules is, by profile, the rule membudget has read: which
// architectures (architectures[0], server_args.py's model_arch) on which
// SM majors get the fusion. v0.5.6.post3 keeps v0.5.6.post2's rule and
// files; v0.5.7 turns it on for DeepSeek-V3, gpt-oss, GLM-4.5 MoE and
// Qwen3-MoE on SM90, SM100 and SM120 but not the H20 (v0.5.7
// server_args.py:1470-1493, with flashinfer 0.5.3 and the same
// flashinfer_comm_fusion.py); v0.5.8 adds GLM-4.7-Flash and leaves SM12x
// out (see [arFusion058]). A profile not here but of the 0.4 line
// (which never turns it on) refuses a serve [arFusionAny] matches.
var arFusionRules = map[string]arFusionRelease{
	"v0.5.6.post2": {arFusion056, arFusion056Archs},
	"v0.5.6.post3": {arFusion056, arFusion056Archs},
	"v0.5.7":       {arFusion057, arFusion057Archs},
	"v0.5.8":       {arFusion058, arFusion058Archs},
	"v0.5.8.post1": {arFusion058, arFusion058Archs},
	"v0.5.9":       {arFusion059, arFusion059Archs},
	"v0.5.9.post1": {arFusion059, arFusion059Archs},
}

// arFusionRelease is a read release's rule and its list of architectures,
// the ones the rule turns the fusion on for (and whose layers take the
// fused path when the flag is given, see [explicitARFusion]); one entry
// holds both so that no release has one without the other.
type arFusionRelease struct {
	rule  arFusionRule
	archs []string
}

// arFusionRule says whether a release turns the fusion on for an
// architecture on a device.
type arFusionRule func(arch string, si budget.Silicon, device string) bool

// arFusion056Archs, arFusion057Archs and arFusion059Archs are the
// architectures the rules name.
var (
	arFusion056Archs = []string{"DeepseekV3ForCausalLM", "MistralLarge3ForCausalLM", "PixtralForConditionalGeneration", "GptOssForCausalLM"}
	arFusion057Archs = []string{"DeepseekV3ForCausalLM", "GptOssForCausalLM", "Glm4MoeForCausalLM", "Qwen3MoeForCausalLM"}
	// v0.5.8 server_args.py:1610-1626 (the same lines at v0.5.8.post1):
	// GLM-4.7-Flash's Glm4MoeLiteForCausalLM added.
	arFusion058Archs = []string{"DeepseekV3ForCausalLM", "GptOssForCausalLM", "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM", "Qwen3MoeForCausalLM"}
	// v0.5.9 server_args.py:1683-1690 (Kimi-K2.5 by PR #17789).
	arFusion059Archs = []string{"DeepseekV3ForCausalLM", "GptOssForCausalLM", "Glm4MoeForCausalLM", "Glm4MoeLiteForCausalLM", "Qwen3MoeForCausalLM", "KimiK25ForConditionalGeneration"}
)

func arFusion056(arch string, si budget.Silicon, _ string) bool {
	switch {
	case slices.Contains(arFusion056Archs[:3], arch):
		return si.Major == 10 // is_sm100_supported (utils/common.py:244-249)
	case arch == "GptOssForCausalLM":
		return si.Major == 10 || si.Major == 12 // is_blackwell_supported (:228-231)
	}
	return false
}

func arFusion057(arch string, si budget.Silicon, device string) bool {
	return slices.Contains(arFusion057Archs, arch) &&
		(si.Major == 9 || si.Major == 10 || si.Major == 12) && !isH20(device)
}

// isH20 says device is an H20 (and not an H200), which v0.5.7 and later
// keep the fusion off (flashinfer#2204).
func isH20(device string) bool {
	return strings.Contains(device, "H20") && !strings.Contains(device, "H200")
}

// arFusionSM90SM100 is the rule of v0.5.8 and later, which differ only in
// archs: those architectures on SM9x or SM10x, not the H20.
func arFusionSM90SM100(archs []string) arFusionRule {
	return func(arch string, si budget.Silicon, device string) bool {
		return slices.Contains(archs, arch) && (si.Major == 9 || si.Major == 10) && !isH20(device)
	}
}

// arFusion058 is v0.5.8's and v0.5.8.post1's rule (server_args.py:
// 1602-1626 at both tags): its architectures on is_sm90_supported() or
// is_sm100_supported(), SM9x and SM10x (utils/common.py:247-256; SM12x not),
// not the H20 (flashinfer#2204), with DP attention off, one node and no MoE
// all-to-all backend. SGLang makes the workspace as v0.5.7 does
// (layers/flashinfer_comm_fusion.py:57-65 and 95-120, max_token_num 2048
// at :147, use_fp32_lamport for a float32 input at :184; layers/
// layernorm.py:286-291 passes neither), and FlashInfer 0.6.1, which
// python/pyproject.toml:31 pins at both tags, sizes it as 0.5.3 and 0.6.3
// do: its comm/trtllm_ar.py is 0.6.3's byte for byte (git diff v0.6.1
// v0.6.3 of flashinfer-ai/flashinfer is empty there; buffer, flags and
// lamport at :570-598, each rounded to 2 MiB, BarrierFlagCount and
// MAX_COMM_SIZE at :499-501, the symmetric-memory path only under
// use_symm_dev_mem, which SGLang does not pass). Its fused path runs for
// batches of at most 2048 tokens on SM90 or SM100
// (layers/communicator.py:89-99, 802-807), so the CUDA-graph capture
// after the pool makes the workspace.
var arFusion058 = arFusionSM90SM100(arFusion058Archs)

// arFusion059 is v0.5.9's rule (server_args.py:1672-1697): its
// architectures on is_sm90_supported() or is_sm100_supported(), SM9x and
// SM10x alone at this tag (utils/common.py:258-267; SM12x no longer), not
// the H20 (flashinfer#2204), with DP attention off, one node and no MoE
// all-to-all backend. The workspace it makes is v0.5.6.post2's: SGLang's
// flashinfer_comm_fusion.py creates it as before (max_token_num 2048,
// :95-118, 147; layers/layernorm.py:300-327 passes none), and FlashInfer
// 0.6.3 (pinned by pyproject.toml:31) sizes it as 0.5.3 does
// (comm/trtllm_ar.py:570-598, 645, with BarrierFlagCount and
// MAX_COMM_SIZE at :499-501; its new symmetric-memory path is taken only
// under use_symm_dev_mem, which SGLang does not pass).
var arFusion059 = arFusionSM90SM100(arFusion059Archs)

// arFusionAnyArchs is the union of the rules' architectures, sorted.
var arFusionAnyArchs = func() []string {
	var all []string
	for _, rel := range arFusionRules {
		all = append(all, rel.archs...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}()

// arFusionAny is the union of the rules read, H20 included, which a
// release not read is taken to possibly apply. GLM-4.7-Flash's
// Glm4MoeLiteForCausalLM is v0.5.8's addition to v0.5.7's list, on SM90
// and SM100 (v0.5.8 and v0.5.8.post1 server_args.py:1610-1626; utils/
// common.py:247-256), and a serve of it must not be sized without the
// workspace under a release whose workspace is not read.
func arFusionAny(arch string, si budget.Silicon, _ string) bool {
	return slices.Contains(arFusionAnyArchs, arch) &&
		(si.Major == 9 || si.Major == 10 || si.Major == 12)
}

// arFusionUnread is, by profile, the architectures a release membudget has
// not read the fusion's workspace of turns it on for by itself, as its
// rule reads at its tag, beside [arFusionAny]'s union: v0.5.14's list
// (server_args.py:4294-4328: its SM90 or SM10x, tp above 1, no DP
// attention, one node or SM10x, no MoE all-to-all backend) names
// Qwen3VLMoe, NemotronH and NemotronHPuzzle, and v0.5.13's list names
// DeepseekV32, GlmMoeDsa, MistralLarge3, Qwen3Next, Qwen3_5, Qwen3_5Moe
// and InternS2Preview (v0.5.13 server_args.py:2622-2655), none of which
// the read rules hold (see arFusionUnread0510 for v0.5.10 to
// v0.5.13.post1). A serve of one is refused as [arFusionAny]'s are.
var arFusionUnread = map[string][]string{
	"v0.5.10": arFusionUnread0510, "v0.5.10.post1": arFusionUnread0510, "v0.5.11": arFusionUnread0510, "v0.5.12": arFusionUnread0510,
	"v0.5.12.post1": arFusionUnread0510, "v0.5.13": arFusionUnread0510, "v0.5.13.post1": arFusionUnread0510,
	"v0.5.14": arFusionList0514, "v0.5.15": arFusionList0514, "v0.5.15.post1": arFusionList0514,
	"v0.5.16": arFusionList0514, "v0.5.17": arFusionList0514, "v0.5.18": arFusionList0518,
}

// arFusionList0514 is v0.5.14's list (server_args.py:4294-4328), which
// v0.5.15 keeps, with the same conditions, as the override registry's
// _FLASHINFER_ALLREDUCE_FUSION_ARCHS and its pass
// _flashinfer_allreduce_fusion_auto_enable (arg_groups/overrides.py:
// 1352-1396), run at the old slot (server_args.py:4243); v0.5.16's list
// and pass are v0.5.15's line for line, and v0.5.17's v0.5.16's
// (overrides.py:1863-1882, the pass at :1886-1908).
var arFusionList0514 = []string{"DeepseekV3ForCausalLM", "DeepseekV32ForCausalLM", "GptOssForCausalLM", "GlmMoeDsaForCausalLM", "Glm4MoeForCausalLM",
	"Glm4MoeLiteForCausalLM", "MistralLarge3ForCausalLM", "Qwen3MoeForCausalLM", "Qwen3VLMoeForConditionalGeneration",
	"Qwen3NextForCausalLM", "KimiK25ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration",
	"InternS2PreviewForConditionalGeneration", "Qwen3_5ForConditionalGeneration", "NemotronHForCausalLM", "NemotronHPuzzleForCausalLM"}

// arFusionList0518 is v0.5.18's list (arg_groups/overrides.py:1959-1979),
// v0.5.17's and DeepseekV4ForCausalLM (:1962), with v0.5.17's pass
// (:1982-2004, the same conditions).
var arFusionList0518 = slices.Concat(arFusionList0514, []string{"DeepseekV4ForCausalLM"})

// arFusionUnread0510 is the architectures v0.5.10 to v0.5.13.post1 turn
// the fusion on for by themselves beyond [arFusionAny]'s union, on SM90 or
// SM10x at one node: their lists (v0.5.10 server_args.py:2091-2112: Qwen3.5
// and Qwen3.5-MoE; v0.5.11 :2333-2355: DeepSeek-V3.2, GLM-5's
// GlmMoeDsaForCausalLM and Qwen3-Next too; v0.5.13 :2631-2653:
// InternS2Preview too), taken together. Every one is refused before the
// fusion today (a native model not read, DeepSeek's sparse indexer, the
// Mamba pool); listed so that a serve of one, once its model is read, is
// not sized without the workspace.
var arFusionUnread0510 = []string{"DeepseekV32ForCausalLM", "GlmMoeDsaForCausalLM", "InternS2PreviewForConditionalGeneration",
	"Qwen3NextForCausalLM", "Qwen3_5ForConditionalGeneration", "Qwen3_5MoeForConditionalGeneration"}

// arFusionAnyFor is [arFusionAny] with release's own list where
// [arFusionUnread] holds one: its architectures on SM9x or SM10x
// (is_sm90_supported() or is_sm100_supported()), the H20 included.
func arFusionAnyFor(release string) arFusionRule {
	extra := arFusionUnread[release]
	return func(arch string, si budget.Silicon, device string) bool {
		return arFusionAny(arch, si, device) || slices.Contains(extra, arch) && (si.Major == 9 || si.Major == 10)
	}
}

// arFusionMaxTokens is the max_token_num SGLang creates the workspace
// for: flashinfer_allreduce_residual_rmsnorm's default 2048
// (flashinfer_comm_fusion.py:126-134), which layernorm.py:255-282 does not
// pass.
const arFusionMaxTokens = 2048

// arFusionAlign is the alignment of each IPC buffer, 2 MiB
// (flashinfer 0.5.3, pinned by v0.5.6.post2's pyproject.toml:30,
// flashinfer/comm/trtllm_ar.py round_up(size, 1 << 21)).
const arFusionAlign = 1 << 21

// arFusionBarrierFlags is BarrierFlagCount (flashinfer 0.5.3,
// comm/trtllm_ar.py:498).
const arFusionBarrierFlags = 256

// arFusionMaxComm is MAX_COMM_SIZE, the lamport buffer's cap: INT32_MAX
// rounded down to 2 MiB (flashinfer 0.5.3, comm/trtllm_ar.py:500).
const arFusionMaxComm = (1<<31 - 1) &^ (arFusionAlign - 1)

// autoARFusion says the release of rule turns the fusion on by itself for
// the serve and it allocates a workspace: the rule's architecture and
// silicon, more than one tensor-parallel rank, one node (every rule read
// asks self.nnodes == 1: v0.5.6.post2 server_args.py:1083, 1141; v0.5.7
// :1489; v0.5.14 SM10x across nodes too). DP attention and a MoE all-to-all backend are not read here:
// membudget refuses both.
func autoARFusion(rule arFusionRule, a *model.Arch, r *Resolved, c budget.Class) bool {
	si := c.Device.Silicon
	if si.Vendor != budget.NVIDIA || r.TPSize < 2 || len(a.Architectures) == 0 {
		return false
	}
	if r.Nodes.NNodes > 1 && !(r.Profile.ARFusionMultiNodeSM100 && si.Major == 10) {
		// v0.5.14 turns it on across nodes on SM10x (see
		// [Profile.ARFusionMultiNodeSM100]).
		return false
	}
	return rule(a.Architectures[0], si, c.Device.Name)
}

// arFusionBytes is the workspace trtllm_create_ipc_workspace_for_all_reduce_fusion
// makes on each GPU (flashinfer 0.5.3, comm/trtllm_ar.py:504-570): three
// IPC buffers, each rounded up to 2 MiB: tp x T x hidden x 2 bytes, tp x
// 256 int32 barrier flags, and three lamport buffers of tp x T x hidden x
// the element (4 for a float32 model, else 2), capped at MAX_COMM_SIZE.
// Its 20-byte flag block (cudaMalloc(5 * 4)) is not counted. The peers'
// buffers it opens map their memory, not this GPU's.
func arFusionBytes(tp, hidden, elem uint64) uint64 {
	round := func(n uint64) uint64 { return budget.SatMul(budget.CeilDiv(n, arFusionAlign), arFusionAlign) }
	rows := budget.SatMul(budget.SatMul(tp, arFusionMaxTokens), hidden)
	buffer := round(budget.SatMul(rows, 2))
	flags := round(budget.SatMul(tp, arFusionBarrierFlags*4))
	lamport := round(budget.SatMul(min(budget.SatMul(rows, elem), arFusionMaxComm), 3))
	return budget.SatAdd(budget.SatAdd(buffer, flags), lamport)
}

// checkARFusion refuses, by name, a serve whose release may turn the
// fusion on by itself where membudget has not read that release's rule
// and workspace.
func (r *Resolved) checkARFusion(a *model.Arch, c budget.Class) error {
	if fusionOffRead(r) {
		return nil // fusionoff.go
	}
	if _, read := arFusionRules[r.Profile.Name]; read || strings.HasPrefix(r.Profile.Name, "v0.4.") || !autoARFusion(arFusionAnyFor(r.Profile.Name), a, r, c) {
		return nil
	}
	off := ""
	if slices.Contains(fusionOffReleases, r.Profile.Name) {
		off = " (--enforce-disable-flashinfer-allreduce-fusion turns it off, and is sized)"
	}
	return &engine.SettingError{Flag: "enable-flashinfer-allreduce-fusion", Value: "",
		Reason: fmt.Sprintf("%s may turn it on by itself for %s on %s, adding FlashInfer's all-reduce fusion workspace (%s a GPU as v0.5.6.post2 makes it): not modelled for %s; membudget refuses it rather than size a server it would get wrong%s",
			r.Profile.Describes, a.Architectures[0], c.Device.Name, engine.GiB(arFusionBytes(r.TPSize, a.Hidden, r.DtypeBytes)), r.Profile.Describes, off)}
}

// arFusionItem is the workspace's ledger item, where the serve has one:
// the release turns the fusion on by itself, or it was given by name where
// [Resolved.checkExplicitARFusion] let it pass.
func (ref *Reference) arFusionItem() []budget.Item {
	r := &ref.Serve
	rel, read := arFusionRules[r.Profile.Name]
	explicit := r.Nodes.EnableARFusion && r.TPSize > 1 && r.Nodes.NNodes <= 1 && explicitARFusion(r.Profile.Name, ref.Arch, ref.Class)
	if !read || !explicit && !autoARFusion(rel.rule, ref.Arch, r, ref.Class) {
		return nil
	}
	return []budget.Item{{Name: "flashinfer_allreduce_fusion_workspace", Term: budget.TermNonTorch, Bytes: arFusionBytes(r.TPSize, ref.Arch.Hidden, r.DtypeBytes)}}
}
