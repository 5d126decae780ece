package vllm

import (
	"fmt"
	"slices"

	"membudget/budget"
)

// Collectives is what tensor parallelism sets up on one rank for its
// all-reduces, as vLLM decides it from the class's interconnect and the
// serve: whether its custom all-reduce runs, and why not when it does not.
type Collectives struct {
	// Interconnect is the class's: how the node's GPUs reach each other.
	Interconnect budget.Interconnect
	// CustomAllReduce says vLLM's custom all-reduce is set up: its IPC
	// buffers are allocated on every rank.
	CustomAllReduce bool
	// Why says why the custom all-reduce is not set up; "" when it is or
	// when the serve runs on one GPU.
	Why string
	// NVSwitchSetup says NCCL's NVLink setup before the snapshot is charged
	// (see ncclSetupNVLinkV019): NVLink on Hopper or later, where NCCL's
	// NVLink SHARP and torch's multicast symmetric memory exist (NVLS needs
	// third-generation NVSwitch, NCCL's NCCL_NVLS_ENABLE documentation);
	// an Ampere or Volta NVLink board, or an NVLink-bridged pair of
	// GeForce cards, has neither.
	NVSwitchSetup bool
	// PCIeSetup is what NCCL's setup holds before the snapshot on each rank
	// of a Blackwell RTX card joined over PCIe (see ncclSetupPCIeP2P); 0
	// on every other link and silicon, where no log measures it.
	PCIeSetup uint64
}

// customARWorldSizes are the world sizes vLLM's custom all-reduce supports
// (CustomAllreduce._SUPPORTED_WORLD_SIZES,
// vllm/distributed/device_communicators/custom_all_reduce.py:57 at commit
// d18bb7b).
var customARWorldSizes = []uint64{2, 4, 6, 8, 16}

// resolveCollectives decides the serve's collectives as vLLM's
// CustomAllreduce.__init__ does (custom_all_reduce.py at commit d18bb7b):
// nothing at one rank (lines 128-130); refused at a world size it does not
// support (lines 132-140); refused on more than two GPUs that are not
// fully connected by NVLink (lines 179-185); refused where a peer fails the
// P2P test, which ROCm skips (lines 189-200). --disable-custom-all-reduce
// sets _ENABLE_CUSTOM_ALL_REDUCE false, so CudaCommunicator never builds it
// (vllm/distributed/device_communicators/cuda_communicator.py:57-60, 123).
// Tensor parallelism across nodes (a class with no peer) has no same-node
// group, and the custom all-reduce is disabled there without multi-node
// NVLink (custom_all_reduce.py:245-263).
func (r *Resolved) resolveCollectives(c budget.Class) error {
	link := c.Device.Interconnect
	// whose names the GPUs in a reason, written only where there is one:
	// every serve a plan tries is resolved.
	whose := func() string { return "class " + c.Name + "'s GPUs" }
	if r.Interconnect != "" {
		// --interconnect: the serve's GPUs are joined otherwise than the
		// class's usual ones.
		link, whose = r.Interconnect, func() string { return "the serve's GPUs (--interconnect)" }
	}
	r.Collectives = Collectives{Interconnect: link, NVSwitchSetup: link == budget.NVLink && c.Device.Silicon.AtLeast(9, 0), PCIeSetup: pcieSetupBytes(link, c.Device.Silicon)}
	tp := r.TensorParallelSize
	if tp <= 1 {
		return nil
	}
	if _, err := budget.ParseInterconnect(string(link)); err != nil {
		// A class built in code rather than read from a file may leave it
		// unset: the collectives' buffers would be guessed.
		return settingErr("tensor-parallel-size", tp, "class %s names no interconnect (%v): the collectives' buffers depend on it", c.Name, err)
	}
	switch {
	case r.DisableCustomAllReduce:
		r.Collectives.Why = "--disable-custom-all-reduce"
	case !slices.Contains(customARWorldSizes, tp):
		r.Collectives.Why = fmt.Sprintf("vLLM's custom all-reduce supports world sizes 2, 4, 6, 8 and 16, not %d (custom_all_reduce.py:132-140)", tp)
	case link == budget.NoPeer:
		r.Collectives.Why = fmt.Sprintf("%s are one a node: tensor parallelism crosses nodes, where vLLM's custom all-reduce is not set up (custom_all_reduce.py:245-263)", whose())
	case tp > 2 && !link.FullyConnected():
		r.Collectives.Why = fmt.Sprintf("%s are PCIe-only (%s): vLLM sets up its custom all-reduce on more than two only when NVLink joins them all (custom_all_reduce.py:179-185)", whose(), link)
	case !link.PeerAccess():
		r.Collectives.Why = fmt.Sprintf("%s have no peer-to-peer access (%s): vLLM's P2P test fails and it disables its custom all-reduce (custom_all_reduce.py:189-200)", whose(), link)
	default:
		r.Collectives.CustomAllReduce = true
	}
	return nil
}

// The custom all-reduce's buffers on each rank, from
// vllm/distributed/device_communicators/custom_all_reduce.py at commit
// d18bb7b: the metadata buffer, ops.meta_size() + max_size (lines
// 206-209; max_size is 8 MiB, line 74, lowered only beside a working
// symmetric-memory communicator, lines 151-163), the pre-registered IPC
// buffer of max(max_size, 2 MiB all-gather, 16 MiB reduce-scatter) (lines
// 215-220; before PR #50000, merged 2026-07-30, it was max_size alone), and
// the 8 MiB rank_data tensor (lines 228-230). meta_size is the C++ Signal
// struct (csrc/custom_all_reduce.cuh), a few KiB, within the rounding of
// every log.
const (
	customARMaxSize  = 8 << 20
	customARRankData = 8 << 20
	// customARReduceScatter is the reduce-scatter size the IPC buffer is
	// sized for from PR #50000 on.
	customARReduceScatter = 16 << 20
)

// customARFrom28 is the first release surely holding PR #50000 (merged
// 2026-07-30): 0.28.0, whose branch was cut from main after 2026-08-14.
// 0.26 and 0.27 may hold it too; the difference is 8 MiB.
var customARFrom28 = v0_28_0

// customAllReduceBytes is what vLLM's custom all-reduce allocates on each
// rank under profile p.
func customAllReduceBytes(p Profile) uint64 {
	buffer := uint64(customARMaxSize)
	if p.Release.AtLeast(customARFrom28) {
		buffer = customARReduceScatter
	}
	return customARMaxSize + buffer + customARRankData
}

// ncclSetupNVLinkV019 is what the device holds beyond the CUDA context at
// vLLM's startup snapshot under tensor parallelism over NVLink, less the
// custom all-reduce's buffers: the NCCL communicator's setup (NVLink SHARP
// buffers on NVSwitch, NCCL_NVLS_ENABLE on by default where the switch
// supports it; NCCL's environment documentation) and torch's
// symmetric-memory buffer (64 MiB at TP 2 on Hopper,
// vllm/distributed/device_communicators/all_reduce_utils.py
// SYMM_MEM_ALL_REDUCE_MAX_SIZES at commit d18bb7b). vLLM 0.19 initialises
// the distributed environment before it takes the snapshot
// (vllm/v1/worker/gpu_worker.py init_device), so none of it is charged to
// the util budget: it sits beside it. Rows 125 and 126 of
// corpus/observed/vllm.csv (0.19, H100 SXM, TP 2 and 4) start with 77.66
// and 77.64 GiB free of 79.19, where TP 1 starts with 78.68 (row 127):
// 1.02 and 1.04 GiB more, 1.03 on average, less the 24 MiB of the custom
// all-reduce.
const ncclSetupNVLinkV019 = 1031 << 20

// ncclSetupFrom is the first release whose pre-snapshot setup is charged:
// no log of an earlier one at TP 2 or more states its free memory at
// startup beside a TP 1 log of the same stack.
var ncclSetupFrom = v0_19_0

// What NCCL's setup holds on each rank before vLLM's startup snapshot when
// tensor parallelism joins Blackwell RTX cards (compute capability 12.x:
// RTX PRO 6000, RTX 5090) over PCIe, measured as the startup free memory
// of a TP log less that of a TP 1 log of the same card:
//   - with peer access: row 240 of corpus/observed/vllm.csv (0.27.1, 4x
//     RTX PRO 6000 Server Edition, TP 4, so no custom all-reduce) starts
//     with 94.05 of 95.01 GiB free, 0.96 GiB held, where one such card
//     holds 0.54 and 0.56 GiB at TP 1 (kernels/rtx-pro-6000, its
//     driver_fixed_bytes): 0.41 GiB, 420 MiB. SGLang's distributed init
//     holds 0.39 GB on four of them (sgl-project/sglang#40558, as
//     docs/sglang.md cites it).
//   - without it: row 196 (2x RTX 5090, TP 2; the consumed-memory line
//     dates it 0.26.1 or later) starts with 30.27 of 31.40 GiB free, 1.13
//     GiB held, where an exclusive RTX 5090 holds 0.51 GiB at TP 1
//     (kernels/rtx-5090): 0.62 GiB, 635 MiB.
//
// Each is one log against a TP 1 log of another box (its total differs in
// the second decimal), so within a few tens of MiB. The one Ampere row
// shows none to speak of (row 204, a 24 GB GeForce pair, club-3090's 2x
// RTX 3090 compose, at TP 2: 0.41 GiB held, about the card's context), and
// no log of an Ada, Hopper or earlier PCIe card at TP 2 or more states its
// startup free memory on a release that takes the snapshot after NCCL's
// setup, so nothing is charged there.
const (
	ncclSetupPCIeP2P = 420 << 20
	ncclSetupPCIeSHM = 635 << 20
)

// ncclSetupPCIeFrom is the first release whose workers set up NCCL before
// the startup snapshot: PR #25359 (merged 2025-09-23, "ensuring consistent
// NCCL memory accounting") moved init_worker_distributed_environment
// ahead of it (vllm/v1/worker/gpu_worker.py init_device). Before it the
// setup was measured in the profile run's non-torch growth (row 58:
// 0.10.2's L40S at TP 8 starts with as much free memory as TP 1).
var ncclSetupPCIeFrom = Version{0, 11, 0}

// pcieSetupBytes is NCCL's setup before the snapshot on a rank of silicon
// s joined to its peers by link, where a log measures it (see
// ncclSetupPCIeP2P), else 0.
func pcieSetupBytes(link budget.Interconnect, s budget.Silicon) uint64 {
	if s.Vendor != budget.NVIDIA || s.Major != 12 {
		return 0
	}
	switch link {
	case budget.PCIeP2P:
		return ncclSetupPCIeP2P
	case budget.PCIe:
		return ncclSetupPCIeSHM
	}
	return 0
}

// tpNonTorchPCIe is the non-torch growth tensor parallelism adds over PCIe
// (the classes pcie-p2p, pcie and none): NCCL's ring buffers, which it
// connects lazily at the first collective of the profile run. Over PCIe
// NCCL runs few channels, each holding NCCL_BUFFSIZE (4 MiB by default)
// and the smaller LL and LL128 buffers per peer, and without peer access
// it stages through host memory (NCCL_SHM, NCCL's environment
// documentation); no NVLink SHARP or symmetric-memory buffer exists. Row
// 58 of corpus/observed/vllm.csv (0.10.2, L40S, TP 8, so no custom
// all-reduce) logs 0.21 GiB of non-torch memory where one GPU's growth is
// nonTorchV1's 133 MiB: 82 MiB more. Its startup free memory (43.93 of
// 44.42 GiB) matches an L40S-class card at TP 1 (row 108, 43.82 of about
// 44.3): over PCIe no setup is held before the snapshot. No 0.19+ log
// over PCIe at TP 2 or more states its non-torch memory; the NVLink
// growth rose from 0.41 to 1.89 GiB between 0.11 and 0.19 with NCCL's
// NVLink paths, which PCIe does not take, so 0.10.2's figure is used for
// every release, and TestObserved reports rows 58 and 59 (0.24, L40S,
// TP 4) against it.
const tpNonTorchPCIe = 82 << 20

// tpNonTorch is the non-torch growth of the profile run that tensor
// parallelism adds on one rank: the peak model's calibrated NVLink growth
// where the GPUs are fully connected (NVLink, and XGMI, for which no log
// is in the table), NCCL's PCIe growth otherwise.
func (r *Resolved) tpNonTorch() uint64 {
	if r.TensorParallelSize <= 1 {
		return 0
	}
	if r.Collectives.Interconnect.FullyConnected() {
		return r.Profile.peaks.tpBytes
	}
	return tpNonTorchPCIe
}

// tpSetupBytes is what tensor parallelism holds on one rank before vLLM's
// startup snapshot, beside the util budget: the custom all-reduce's
// buffers where it runs, NCCL's setup over NVLink on Hopper or later from
// 0.19, and over PCIe on Blackwell RTX cards from 0.11 (V1).
func (r *Resolved) tpSetupBytes() uint64 {
	if r.TensorParallelSize <= 1 {
		return 0
	}
	var b uint64
	if r.Collectives.CustomAllReduce {
		b = customAllReduceBytes(r.Profile)
	}
	if r.Collectives.NVSwitchSetup && r.Profile.Release.AtLeast(ncclSetupFrom) && r.Profile.Era != V0 {
		b = budget.SatAdd(b, ncclSetupNVLinkV019)
	}
	if r.Profile.Era != V0 && r.Profile.Release.AtLeast(ncclSetupPCIeFrom) {
		b = budget.SatAdd(b, r.Collectives.PCIeSetup)
	}
	return b
}

// ncclSetupPipelineNVLinkV019 is what the pipeline group's NCCL
// communicator holds on each rank before vLLM's startup snapshot over
// NVLink on Hopper or later, from 0.19 as the TP group's: every group of
// more than one rank builds its own communicator and warms it up with an
// all-reduce (vllm/distributed/device_communicators/cuda_communicator.py
// CudaCommunicator.__init__, pynccl.py PyNcclCommunicator.__init__, at
// commit d18bb7b), in init_worker_distributed_environment, before the
// snapshot. Rows 146 and 147 of corpus/observed/vllm.csv (0.19, H100 SXM,
// Llama-3.1-8B at PP 2 and PP 4, TP 1) start with 1.43 and 1.48 GiB held
// of 79.19, where TP 1 holds 0.51 (row 127): 0.92 and 0.97 GiB more, 0.945
// on average. That is the TP group's 1031 MiB less the 64 MiB of torch's
// symmetric-memory buffer, which only a TP group builds
// (cuda_communicator.py: use_torch_symm_mem is False outside "tp").
const ncclSetupPipelineNVLinkV019 = 968 << 20

// ppSetupBytes is what the pipeline group's communicator holds on one rank
// before vLLM's startup snapshot: NCCL's setup over NVLink on Hopper or
// later from 0.19 (see ncclSetupPipelineNVLinkV019), over PCIe on
// Blackwell RTX cards from 0.11 as the TP group's (see ncclSetupPCIeP2P:
// no custom all-reduce or symmetric memory in either). A rank in both a TP
// and a pipeline group holds both communicators; no log measures the two
// together.
func (r *Resolved) ppSetupBytes() uint64 {
	if r.PipelineParallelSize <= 1 || r.Profile.Era == V0 {
		return 0
	}
	var b uint64
	if r.Collectives.NVSwitchSetup && r.Profile.Release.AtLeast(ncclSetupFrom) {
		b = ncclSetupPipelineNVLinkV019
	}
	if r.Profile.Release.AtLeast(ncclSetupPCIeFrom) {
		b = budget.SatAdd(b, r.Collectives.PCIeSetup)
	}
	return b
}

// setupBytes is what the collectives hold on one rank before vLLM's
// startup snapshot: the TP group's and the pipeline group's.
func (r *Resolved) setupBytes() uint64 {
	return budget.SatAdd(r.tpSetupBytes(), r.ppSetupBytes())
}

// driverTerms is the class's driver terms with what the collectives hold
// before vLLM's startup snapshot added to the fixed share: like the CUDA
// context, it is on the device when vLLM measures its free memory and
// outside the util budget (see [Resolved.tpSetupBytes] and
// [Resolved.ppSetupBytes]).
func (r *Resolved) driverTerms(c budget.Class) budget.DriverTerms {
	d := c.Memory
	d.DriverFixedBytes = budget.SatAdd(d.DriverFixedBytes, r.setupBytes())
	return d
}
