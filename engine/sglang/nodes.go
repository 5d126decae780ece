package sglang

import (
	"fmt"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// Nodes is what SGLang's --nnodes and --enable-flashinfer-allreduce-fusion
// set: the nodes a server's ranks span, and FlashInfer's all-reduce fusion
// asked for by name (see arfusion.go).
type Nodes struct {
	// NNodes is --nnodes: the nodes the tp x pp ranks span; 0 takes
	// SGLang's default 1. --node-rank, which only says which of them a
	// process is, changes no GPU's memory.
	NNodes uint64
	// EnableARFusion is --enable-flashinfer-allreduce-fusion given.
	EnableARFusion bool
}

// nodesCites are, by profile, where server_args.py's check_server_args
// asserts that --nnodes divides tp x pp and that a multi-node server has
// no --dp-size above 1 without DP attention.
var nodesCites = map[string][2]string{
	"v0.4.9.post2":  {"server_args.py:1700-1702", "server_args.py:1712-1714"},
	"v0.5.6.post2":  {"server_args.py:4082-4084", "server_args.py:4093-4095"},
	"v0.5.6.post3":  {"server_args.py:4082-4084", "server_args.py:4093-4095"},
	"v0.5.7":        {"server_args.py:4536-4538", "server_args.py:4547-4549"},
	"v0.5.8":        {"server_args.py:4805-4807", "server_args.py:4816-4818"},
	"v0.5.8.post1":  {"server_args.py:4805-4807", "server_args.py:4816-4818"},
	"v0.5.9":        {"server_args.py:5132-5134", "server_args.py:5143-5145"},
	"v0.5.9.post1":  {"server_args.py:5132-5134", "server_args.py:5143-5145"},
	"v0.5.10":       {"server_args.py:6065-6067", "server_args.py:6076-6078"},
	"v0.5.10.post1": {"server_args.py:6065-6067", "server_args.py:6076-6078"},
	"v0.5.11":       {"server_args.py:6775-6777", "server_args.py:6791-6793"},
	"v0.5.12":       {"server_args.py:7231-7233", "server_args.py:7255-7257"},
	"v0.5.12.post1": {"server_args.py:7231-7233", "server_args.py:7255-7257"},
	"v0.5.13":       {"server_args.py:7404-7406", "server_args.py:7428-7430"},
	"v0.5.13.post1": {"server_args.py:7404-7406", "server_args.py:7428-7430"},
	"v0.5.14":       {"server_args.py:6632-6634", "server_args.py:6656-6658"},
	"v0.5.15":       {"server_args.py:6553-6555", "server_args.py:6577-6579"},
	"v0.5.15.post1": {"server_args.py:6553-6555", "server_args.py:6577-6579"},
	"v0.5.16":       {"server_args.py:7577-7579", "server_args.py:7601-7603"},
	"v0.5.17":       {"server_args.py:8702-8704", "server_args.py:8726-8728"},
	"v0.5.18":       {"server_args.py:9139-9141", "server_args.py:9168-9170"},
}

// resolveNodes applies --nnodes's default and SGLang's own checks of it.
// What a node count changes in a GPU's memory at the releases read: the
// release's rule turns FlashInfer's all-reduce fusion on only at one node
// (see [arFusionRules]); a tensor-parallel group across nodes makes no
// custom all-reduce (distributed/device_communicators/custom_all_reduce.py:
// 83-89 at v0.5.6.post2 and v0.5.7), which [DistInitBytes]' figure for
// the class's link stands for (the NVLink one measured with them, high by
// their few MiB; the PCIe ones without); the rest (each node's share of the ranks,
// entrypoints/engine.py:812-823; EPLB's per-node experts, refused with
// --enable-eplb) places ranks without changing what each holds.
//
// The default is not recorded in the sources: a single node is what every
// other line of the ledger already assumes.
func (r *Resolved) resolveNodes() error {
	if r.Nodes.NNodes == 0 {
		r.Nodes.NNodes = 1 // ServerArgs.nnodes = 1 (server_args.py:372 at v0.5.6.post2)
	}
	n := r.Nodes.NNodes
	if n > maxParallel {
		return settingErr("nnodes", n, "at most %d", maxParallel)
	}
	cite := nodesCites[r.Profile.Name]
	if cite[0] == "" {
		cite = [2]string{"check_server_args", "check_server_args"}
	}
	if world := r.TPSize * r.PPSize; world%n != 0 {
		return settingErr("nnodes", n, "%s asserts \"tp_size must be divisible by number of nodes\" (%s): tp-size x pp-size is %d", r.Profile.Describes, cite[0], world)
	}
	if n > 1 && r.DPSize > 1 {
		return settingErr("nnodes", n, "%s asserts \"multi-node data parallel is not supported unless dp attention!\" (%s) with --dp-size %d", r.Profile.Describes, cite[1], r.DPSize)
	}
	return nil
}

// checkExplicitARFusion refuses, by name, --enable-flashinfer-allreduce-fusion
// where membudget cannot say what it adds: a release whose rule and
// workspace it has not read, a node count above 1 (the releases read keep
// the fusion to one node, flashinfer#2006 in their comments, and its IPC
// workspace cannot span nodes), or an architecture and device other than
// those [explicitARFusion] sizes and the release's own rule turns it on
// for (where the flag changes nothing).
func (r *Resolved) checkExplicitARFusion(a *model.Arch, c budget.Class) error {
	if !r.Nodes.EnableARFusion {
		return nil
	}
	const flag = "enable-flashinfer-allreduce-fusion"
	if _, read := arFusionRules[r.Profile.Name]; !read {
		return settingErr(flag, "", "FlashInfer's all-reduce fusion (its workspace, %s a GPU here as v0.5.6.post2 makes it) is not modelled for %s, whose rule and FlashInfer membudget has not read; membudget refuses it rather than size a server it would get wrong",
			engine.GiB(explicitBytes(r, a)), r.Profile.Describes)
	}
	if r.TPSize < 2 {
		// A world size of 1 makes no workspace (flashinfer_comm_fusion.py:
		// 108-110), and layers/communicator.py:556-562 fuses only at
		// tp_size > 1.
		return nil
	}
	if r.Nodes.NNodes > 1 {
		return settingErr(flag, "", "with --nnodes %d: %s turns the fusion on only on one node (flashinfer#2006), and its IPC workspace across nodes is not modelled", r.Nodes.NNodes, r.Profile.Describes)
	}
	if rule := arFusionRules[r.Profile.Name].rule; !explicitARFusion(r.Profile.Name, a, c) && !autoARFusion(rule, a, r, c) {
		arch := "no architecture"
		if len(a.Architectures) > 0 {
			arch = a.Architectures[0]
		}
		return settingErr(flag, "", "not modelled for %s on %s under %s: membudget sizes its workspace only for the architectures the release turns it on for by itself, on SM90 or SM100 (layers/communicator.py:770-777), and has not read whether this model's layers take the fused path", arch, c.Device.Name, r.Profile.Describes)
	}
	return nil
}

// explicitARFusion reports whether the flag given makes the workspace
// membudget sizes: an architecture of the release's own rule (those models
// build their layers' LayerCommunicator, models/deepseek_v2.py, gpt_oss.py,
// glm4_moe.py, qwen3_moe.py) on an NVIDIA SM90 or SM100, where
// layers/communicator.py:770-777 (v0.5.6.post2; :784-791 at v0.5.7) calls
// forward_with_allreduce_fusion. Its other call (:384-392, the next
// layer's norm fused into a MoE layer's all-reduce) checks no SM, so
// elsewhere the flag is refused rather than sized at nothing.
func explicitARFusion(release string, a *model.Arch, c budget.Class) bool {
	si := c.Device.Silicon
	if si.Vendor != budget.NVIDIA || (si.Major != 9 && si.Major != 10) || len(a.Architectures) == 0 {
		return false
	}
	return slices.Contains(arFusionRules[release].archs, a.Architectures[0])
}

// explicitBytes is the workspace v0.5.6.post2 makes for r: none for one
// tensor-parallel rank.
func explicitBytes(r *Resolved, a *model.Arch) uint64 {
	if r.TPSize < 2 {
		return 0
	}
	return arFusionBytes(r.TPSize, a.Hidden, r.DtypeBytes)
}

// line is the launch line's --nnodes and
// --enable-flashinfer-allreduce-fusion, where they differ from SGLang's
// defaults.
func (n Nodes) line() string {
	s := ""
	if n.NNodes > 1 {
		s += fmt.Sprintf(" --nnodes %d", n.NNodes)
	}
	if n.EnableARFusion {
		s += " --enable-flashinfer-allreduce-fusion"
	}
	return s
}

// checkCustomARv2Multinode refuses, by name, a server over several nodes
// of GB200 or GB300 under a release that keeps the custom all-reduce v2
// there (see [Profile.CustomARv2Multinode]): its symmetric workspace across
// the NVLink fabric (custom_all_reduce_v2.py's multi-node group, graph
// inputs copied rather than registered) is not sized, where
// [customARv2SymmBytes] reads one node's.
func (r *Resolved) checkCustomARv2Multinode(c budget.Class) error {
	// server_args.py:7686-7691 turns the multi-node mode on only up to TP 8;
	// above it :7701-7708 turns v2 off, as v0.5.16 did for every multi-node
	// server.
	if !r.Profile.CustomARv2Multinode || r.Nodes.NNodes <= 1 || r.TPSize > 8 || c.Device.Silicon.Vendor != budget.NVIDIA || !mnnvlFabric(c.Device.Name) {
		return nil
	}
	return settingErr("nnodes", r.Nodes.NNodes, "%s keeps the custom all-reduce v2 on a server over several nodes of %s, an NVLink fabric device "+
		"(sgl-project/sglang PR #32541; server_args.py:7675-7708, utils/common.py:847-855), where earlier releases turned it off: its workspace "+
		"across nodes is not modelled", r.Profile.Describes, c.Device.Name)
}

// mnnvlFabric is v0.5.17's is_mnnvl_fabric_device (utils/common.py:
// 847-855): the device's name, upper-cased, holds GB200 or GB300.
func mnnvlFabric(name string) bool {
	n := strings.ToUpper(name)
	return strings.Contains(n, "GB200") || strings.Contains(n, "GB300")
}
