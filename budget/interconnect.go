package budget

import (
	"fmt"

	"membudget/internal/untrusted"
)

// Interconnect is how the GPUs of one node of a class reach each other: what
// decides which collectives an engine sets up under tensor parallelism, and
// so the memory they hold. A class file names it in [device] interconnect.
type Interconnect string

// The interconnects a class file may name. There is no default: a class
// that exists in two forms (H100 SXM and PCIe) is two classes.
const (
	// NVLink: every GPU of the node reaches every other over NVLink, through
	// NVSwitch or a full mesh (HGX and DGX boards, GB200 NVL72). vLLM's
	// custom all-reduce passes its topology check at every supported world
	// size.
	NVLink Interconnect = "nvlink"
	// XGMI: AMD Infinity Fabric between the node's GPUs; vLLM skips the P2P
	// test on ROCm and treats them as fully connected.
	XGMI Interconnect = "xgmi"
	// PCIeP2P: PCIe only, with peer-to-peer access working (data-centre PCIe
	// cards, workstation cards). vLLM's custom all-reduce runs at TP 2 only.
	PCIeP2P Interconnect = "pcie-p2p"
	// PCIe: PCIe only, without peer-to-peer access (consumer GeForce cards on
	// the stock driver): no custom all-reduce; NCCL goes through host memory.
	PCIe Interconnect = "pcie"
	// NoPeer: a single-GPU device (a Jetson module, one DGX Spark): no peer in
	// the node, so tensor parallelism spans nodes over the network.
	NoPeer Interconnect = "none"
)

// Interconnects lists the values a class file may name, in the order errors
// print them.
var Interconnects = []Interconnect{NVLink, XGMI, PCIeP2P, PCIe, NoPeer}

// FullyConnected reports whether every GPU of the node reaches every other
// directly (vLLM's is_fully_connected: NVLink on CUDA, XGMI on ROCm).
func (i Interconnect) FullyConnected() bool { return i == NVLink || i == XGMI }

// PeerAccess reports whether a GPU can map a peer's memory in the node
// (vLLM's _can_p2p; ROCm's XGMI always can).
func (i Interconnect) PeerAccess() bool { return i == NVLink || i == XGMI || i == PCIeP2P }

// ParseInterconnect reads a class file's interconnect: one of
// [Interconnects], spelled exactly.
func ParseInterconnect(s string) (Interconnect, error) {
	for _, i := range Interconnects {
		if string(i) == s {
			return i, nil
		}
	}
	return "", fmt.Errorf("want one of nvlink, xgmi, pcie-p2p, pcie or none, got %s", untrusted.Quote(s))
}
