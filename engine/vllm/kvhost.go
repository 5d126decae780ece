package vllm

import (
	"fmt"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// This file sizes the host transfer buffer of a NIXL --kv-transfer-config
// with kv_buffer_device cpu. Every rule is vLLM main's at commit d18bb7b
// (2026-08-14).
//
// NixlConnectorWorker uses a host buffer when kv_buffer_device is cpu on
// a GPU (nixl/base_worker.py:386-389). register_kv_caches, which the GPU
// model runner calls once the KV cache tensors are allocated, then calls
// initialize_host_xfer_buffer (:1072-1073): for every entry of the
// runner's kv_caches, one host tensor of its shape and dtype
// (torch.empty(kv_shape, device="cpu"), :747-790, permuted but not
// resized for an NHD layout), and registers them whole with NIXL as DRAM
// (:1225-1227), which its RDMA backends pin: the pages are resident from
// startup, not as transfers touch them. With one KV cache group every attention
// layer has a tensor of its own, so the copy is the KV pool of the GPU,
// byte for byte: num_gpu_blocks x every tensor's page. It is host memory,
// allocated after vLLM's startup check and KV budget: on a discrete GPU
// it is beside the device, and on a unified device it comes out of the
// same pool beside the util budget, as the KV offload's region does
// (offload.go), the footprint's host term. The KV pool the budget leaves
// is what the copy takes, so a larger util costs twice on such a device.
//
// Where vLLM's kv_caches holds views (a hybrid model's groups share each
// tensor among one layer of each group; layers sharing another's KV) the
// copy is per view, not per tensor; DeepSeek-V4's packed slab is
// registered whole before the host buffer is made (:1040-1052); and
// Mamba state is a list of tensors per layer, not the one tensor the host
// buffer copies (:754-760): membudget refuses those by name.

// KVTransfer is what a serve's --kv-transfer-config holds that membudget
// sizes: its zero value is none, or a connector that holds no buffer of
// vLLM's.
type KVTransfer struct {
	// Connector is the config's kv_connector, "" without one.
	Connector string
	// HostBuffer says the connector keeps a host copy of the KV cache:
	// NIXL with kv_buffer_device cpu.
	HostBuffer bool
}

// kvHostRefusal says why membudget does not size a NIXL host buffer for
// a's KV cache, "" when it does (see the file comment).
func kvHostRefusal(a *model.Arch, r *Resolved) string {
	if a.DeepSeekV4 != nil {
		return "DeepSeek-V4's KV cache is one packed slab, which register_kv_caches registers whole and returns before it makes the host buffer (nixl/base_worker.py:1040-1052): what the cpu buffer device then holds or does is not read"
	}
	for _, l := range a.Layers {
		if l.SharesKV {
			return "a layer that shares another layer's KV cache is a view the host buffer copies again (nixl/base_worker.py:754-781)"
		}
	}
	if states, _ := r.layerCounts(a); states > 0 {
		return "Mamba state is a list of tensors per layer, not the one tensor the host buffer copies (nixl/base_worker.py:754-760)"
	}
	l, err := kvLayoutOf(layerSpecs(a, r), r.Profile.KVGroupRatio)
	if err != nil {
		return "" // the compiler refuses the layout itself
	}
	if l.packed || len(l.groups) > 1 {
		return "its KV cache groups share each KV tensor among one layer of each group, and the host buffer copies every layer's view (nixl/base_worker.py:754-781): a tensor once for each group"
	}
	return ""
}

// kvHostBytes is the host copy of the KV cache on one GPU of the stage
// that holds the most: blocks pages of every KV tensor of the stage.
func kvHostBytes(l kvLayout, shardings []model.Sharding, blocks uint64) uint64 {
	var most uint64
	for _, st := range shardings {
		var sum uint64
		for _, page := range l.tensorPages(st) {
			sum = budget.SatAdd(sum, budget.SatMul(blocks, page))
		}
		most = max(most, sum)
	}
	return most
}

// transferHost is the serve's KV transfer host buffer on a GPU once the
// KV cache holds blocks blocks, 0 without one.
func (r *Resolved) transferHost(l kvLayout, shardings []model.Sharding, blocks uint64) uint64 {
	if !r.Transfer.HostBuffer {
		return 0
	}
	return kvHostBytes(l, shardings, blocks)
}

// transferHost is the reference's KV transfer host buffer: its stages'
// allocated KV tensors, on the stage that holds the most.
func (ref *Reference) transferHost() uint64 {
	if !ref.Serve.Transfer.HostBuffer {
		return 0
	}
	var most uint64
	for i := range ref.stages {
		var sum uint64
		for _, it := range ref.KVAllocation(i) {
			sum = budget.SatAdd(sum, it.Bytes)
		}
		most = max(most, sum)
	}
	return most
}

// kvHostSettings is the line a report prints of the serve's KV transfer
// host buffer.
func (sz *Sizing) kvHostSettings() string {
	where := "host memory, not the GPU's"
	if sz.Class.Memory.Unified {
		where = "on this unified device, the GPU's memory: counted beside the util budget"
	}
	b := kvHostBytes(sz.check.groups, sz.check.shardings, sz.capacity.Blocks)
	return fmt.Sprintf("KV transfer: %s with kv_buffer_device cpu keeps a host copy of the KV cache: KV transfer host buffer of %s per GPU (%d blocks of every layer's KV tensor, allocated after the KV cache; %s); NIXL's agent and UCX's own buffers are the nixl package's, not sized",
		sz.Serve.Transfer.Connector, engine.GiB(b), sz.capacity.Blocks, where)
}

// kvTransferJSON is the serve's KV connector: the report's
// "serve"."kv_transfer".
type kvTransferJSON struct {
	Connector    string `json:"kv_connector"`
	BufferDevice string `json:"kv_buffer_device"`
	// HostBytes is the host copy of the KV cache on one GPU, 0 where the
	// connector keeps none.
	HostBytes uint64 `json:"host_bytes"`
}

// kvTransferJSON is the sizing's KV connector for the report, nil without
// one.
func (sz *Sizing) kvTransferJSON() *kvTransferJSON {
	t := sz.Serve.Transfer
	if t.Connector == "" {
		return nil
	}
	j := &kvTransferJSON{Connector: t.Connector, BufferDevice: "cuda"}
	if t.HostBuffer {
		j.BufferDevice = "cpu"
		j.HostBytes = kvHostBytes(sz.check.groups, sz.check.shardings, sz.capacity.Blocks)
	}
	return j
}
