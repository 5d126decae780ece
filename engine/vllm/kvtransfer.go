package vllm

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"

	"membudget/internal/shell"
	"membudget/model"
)

// This file reads --kv-transfer-config: the KV connector of a
// disaggregated (prefill/decode) or KV-sharing serve. Every rule is vLLM
// main's at commit d18bb7b (2026-08-14).
//
// membudget sizes the NIXL connectors (NixlConnector, NixlPullConnector,
// NixlPushConnector: vllm/distributed/kv_transfer/kv_connector/
// factory.py:176-192) with kv_buffer_device cuda, their default on an
// NVIDIA GPU (KVTransferConfig.kv_buffer_device defaults to the
// platform's device type, vllm/config/kv_transfer.py:16-19, 33).
// NixlConnectorWorker then registers the KV cache tensors vLLM allocated
// with NIXL as VRAM (nixl/base_worker.py:405-420, 1070-1095) and
// allocates no tensor of its own: the only torch allocation under nixl/
// is the host transfer buffer of kv_buffer_device cpu (base_worker.py:
// 747-790), one host tensor the shape of every layer's KV cache, which
// kvhost.go sizes (the KV pool the budget leaves, on the host). The NIXL connectors implement SupportsHMA (nixl/connector.py:79),
// so vLLM keeps its hybrid KV cache manager (vllm/config/vllm.py:
// 1751-1774), and do not ask for piecewise CUDA graphs (the base's
// requires_piecewise_for_cudagraph, kv_connector/v1/base.py:630): the KV
// cache, the graphs and the profile are the serve's without the
// connector. What NIXL's agent and its UCX backend allocate for
// themselves is the nixl package's, outside vLLM's source: membudget
// names it and does not size it.
//
// Every other connector is refused by name with what it would add: its
// buffers are sized by its own package (LMCache, Mooncake, MoRI-IO,
// FlexKV, 3FS) or are host memory membudget has not read.

// kvTransferSince is the first release whose NIXL connectors membudget
// reads: main d18bb7b's, which 0.28.0 (cut from main after 2026-08-14)
// carries; the flag came in vLLM 0.6.5.
var kvTransferSince = v0_28_0

// nixlConnectors are the connectors membudget sizes (factory.py:176-192).
var nixlConnectors = []string{"NixlConnector", "NixlPullConnector", "NixlPushConnector"}

// kvRoles are KVRole's values (vllm/config/kv_transfer.py:10-12).
var kvRoles = []string{"kv_producer", "kv_consumer", "kv_both"}

// kvTransferConfig is KVTransferConfig's fields (vllm/config/
// kv_transfer.py:23-72), which forbids any other key (a @config
// dataclass, vllm/config/utils.py:68-69).
type kvTransferConfig struct {
	Connector         *string         `json:"kv_connector"`
	EngineID          *string         `json:"engine_id"`
	BufferDevice      *string         `json:"kv_buffer_device"`
	BufferSize        *float64        `json:"kv_buffer_size"`
	Role              *string         `json:"kv_role"`
	Rank              *int64          `json:"kv_rank"`
	ParallelSize      *int64          `json:"kv_parallel_size"`
	IP                *string         `json:"kv_ip"`
	Port              *int64          `json:"kv_port"`
	Extra             json.RawMessage `json:"kv_connector_extra_config"`
	ModulePath        *string         `json:"kv_connector_module_path"`
	PermuteLocalKV    *bool           `json:"enable_permute_local_kv"`
	LoadFailurePolicy *string         `json:"kv_load_failure_policy"`
}

// registerKVTransfer registers --kv-transfer-config into v.
func registerKVTransfer(fs *flag.FlagSet, v *string) {
	fs.StringVar(v, "kv-transfer-config", "", "vLLM's --kv-transfer-config, JSON: the NIXL connectors with kv_buffer_device cuda (no buffer vLLM allocates) or cpu (a host copy of the KV cache); other connectors refused by name")
}

// resolveKVTransfer checks --kv-transfer-config as vLLM does: a NIXL
// connector on the GPU adds no memory vLLM allocates; anything else is
// refused by name with what it would add.
func (r *Resolved) resolveKVTransfer(a *model.Arch) error {
	v := strings.TrimSpace(r.KVTransferConfig)
	if v == "" {
		return nil
	}
	refuse := func(what string) error {
		return settingErr("kv-transfer-config", "", "%s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", what, r.Profile.Describes)
	}
	var c kvTransferConfig
	dec := json.NewDecoder(bytes.NewReader([]byte(v)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return settingErr("kv-transfer-config", "", "want a JSON object of KVTransferConfig's keys (vllm/config/kv_transfer.py:23-72): %v", err)
	}
	// vLLM parses the flag with pydantic's TypeAdapter.validate_json
	// (vllm/engine/arg_utils.py:337-342 at main d18bb7b), which refuses
	// anything after the object but JSON's whitespace.
	if extraAfterJSON(dec) {
		return settingErr("kv-transfer-config", "", "want one JSON object")
	}
	if c.Connector == nil || *c.Connector == "" {
		// No connector: is_kv_transfer_instance is false and nothing is
		// built (kv_transfer.py:109-110).
		return nil
	}
	conn := *c.Connector
	if c.Role != nil && !slices.Contains(kvRoles, *c.Role) {
		return settingErr("kv-transfer-config", *c.Role, "kv_role: vLLM takes %s (vllm/config/kv_transfer.py:96-100)", strings.Join(kvRoles, ", "))
	}
	if c.Role == nil {
		return settingErr("kv-transfer-config", "", "vLLM stops at startup: Please specify kv_role when kv_connector is set (vllm/config/kv_transfer.py:102-106)")
	}
	if r.Profile.Release.Less(kvTransferSince) {
		_, what := transferConnector(v)
		return refuse(fmt.Sprintf("connector %q, %s (membudget reads the NIXL connectors of vLLM %s on)", conn, what, kvTransferSince))
	}
	if r.Offload.SizeGiB != nil {
		// vllm/config/vllm.py:959-981: the offload replaces kv_connector
		// and keeps the rest of the config, extra keys included.
		return refuse(fmt.Sprintf("connector %q with --kv-offloading-size: vLLM replaces the connector with the offload's and keeps this config's kv_connector_extra_config, which membudget does not read (vllm/config/vllm.py:959-981)", conn))
	}
	if c.ModulePath != nil && *c.ModulePath != "" {
		return refuse(fmt.Sprintf("connector %q loaded from kv_connector_module_path: an out-of-tree connector's buffers", conn))
	}
	if !slices.Contains(nixlConnectors, conn) {
		_, what := transferConnector(v)
		return refuse(fmt.Sprintf("connector %q, %s", conn, what))
	}
	dev := "cuda"
	if c.BufferDevice != nil {
		dev = *c.BufferDevice
	}
	switch dev {
	case "cuda":
	case "cpu":
		if why := kvHostRefusal(a, r); why != "" {
			return refuse(fmt.Sprintf("connector %q with kv_buffer_device cpu for this model: a host copy of every layer's KV cache (nixl/base_worker.py:747-790); %s", conn, why))
		}
	default:
		// _NIXL_SUPPORTED_DEVICE["cuda"] (nixl/utils.py:18-29).
		return settingErr("kv-transfer-config", dev, "kv_buffer_device: vLLM stops at startup: NIXL on cuda takes cuda or cpu (vllm/distributed/kv_transfer/kv_connector/v1/nixl/utils.py:18-22)")
	}
	r.Transfer = KVTransfer{Connector: conn, HostBuffer: dev == "cpu"}
	return nil
}

// writeKVTransferFlags writes --kv-transfer-config to a launch line, as
// given.
func writeKVTransferFlags(b *strings.Builder, v string) {
	if v == "" {
		return
	}
	b.WriteString(" --kv-transfer-config ")
	b.WriteString(shell.Quote(v))
}

// kvTransferSettings is the line a report prints of the serve's KV
// connector: the one resolveKVTransfer kept, none without one.
func (sz *Sizing) kvTransferSettings() []string {
	c := sz.Serve.Transfer.Connector
	if c == "" {
		return nil
	}
	if sz.Serve.Transfer.HostBuffer {
		return []string{sz.kvHostSettings()}
	}
	return []string{fmt.Sprintf("KV transfer: %s registers the KV cache vLLM allocated with NIXL (kv_buffer_device cuda) and allocates no buffer of its own in vLLM: the KV cache, graphs and profile are unchanged; NIXL's agent and UCX's own buffers are the nixl package's, not sized", c)}
}
