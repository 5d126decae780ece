package sglang

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine"
	"membudget/model/logs"
)

// TestMMFeatureCacheMiB pins SGLANG_MM_FEATURE_CACHE_MB's default: EnvInt(1
// * 1024) at environ.py:813 (v0.5.16), :969 (v0.5.17) and :1168 (v0.5.18).
func TestMMFeatureCacheMiB(t *testing.T) {
	if mmFeatureCacheMiB != 1024 {
		t.Errorf("mmFeatureCacheMiB = %d, want 1024", mmFeatureCacheMiB)
	}
}

// TestMMTransport: --mm-feature-transport resolved, release by release
// (_handle_multimodal_feature_transport and the field's Literal choices,
// server_args.py at each tag):
//   - cpu, the host transport, is sized at v0.5.16 to v0.5.18: it
//     allocates nothing on the GPU.
//   - cuda_ipc is refused everywhere naming its 1024 MiB pool on the base
//     GPU, and at v0.5.18, where mm_runtime_reservation_gb adds it to the
//     reservation (kv_cache_configurator.py:139-140), naming the KV budget
//     too; cuda_vmm is v0.5.18's, refused the same way, and before it a
//     value outside the choices ["cpu", "cuda_ipc"].
//   - A value outside the choices (argparse's are case-sensitive: CPU is
//     not cpu) is an error naming the flag and the choices; the flag
//     under v0.5.15.post1, which has it not, one naming the release it
//     came in.
//   - Unset: v0.5.17 picks cuda_ipc for a multimodal model on one node of
//     NVIDIA GPUs (server_args.py:7604-7616): refused naming the flag; on
//     two nodes, on ROCm (is_cuda() false) and for a text model (no
//     multimodal processor, tokenizer_manager.py:468) it is cpu or
//     allocates nothing, and passes; v0.5.16 and v0.5.18 pick cpu on one
//     node and pass.
func TestMMTransport(t *testing.T) {
	archs := shipped(t)
	vl, llama := archs["Qwen__Qwen2.5-VL-7B-Instruct"], archs["meta-llama__Llama-3.1-8B-Instruct"]
	h100, mi300x := class(t, "h100-sxm-80g"), class(t, "mi300x")
	for _, tt := range []struct {
		name, release, transport string
		text, amd                bool
		nnodes                   uint64
		want                     []string // "" sized; else the error's parts, the flag first
	}{
		{name: "cpu v0.5.16", release: "v0.5.16", transport: "cpu"},
		{name: "cpu v0.5.17", release: "v0.5.17", transport: "cpu"},
		{name: "cpu v0.5.18", release: "v0.5.18", transport: "cpu"},
		{name: "unset v0.5.16", release: "v0.5.16"},
		{name: "unset v0.5.18", release: "v0.5.18"},
		{name: "unset v0.5.17", release: "v0.5.17", want: []string{"--mm-feature-transport: unset, SGLang v0.5.17", "cuda_ipc on one node of NVIDIA GPUs (server_args.py:7604-7616)", "(1024 MiB, environ.py:969)", "--mm-feature-transport cpu"}},
		{name: "unset v0.5.17 two nodes", release: "v0.5.17", nnodes: 2},
		{name: "unset v0.5.17 text model", release: "v0.5.17", text: true},
		{name: "unset v0.5.17 ROCm", release: "v0.5.17", amd: true},
		{name: "cuda_ipc v0.5.16", release: "v0.5.16", transport: "cuda_ipc", want: []string{"--mm-feature-transport cuda_ipc: not modelled for SGLang v0.5.16", "(1024 MiB by default) on the base GPU", "server_args.py:6569-6641", "the host transport, cpu"}},
		{name: "cuda_ipc v0.5.17", release: "v0.5.17", transport: "cuda_ipc", want: []string{"--mm-feature-transport cuda_ipc: not modelled for SGLang v0.5.17", "server_args.py:7564-7674"}},
		{name: "cuda_ipc v0.5.18", release: "v0.5.18", transport: "cuda_ipc", want: []string{"--mm-feature-transport cuda_ipc: not modelled for SGLang v0.5.18", "server_args.py:7861-8028", "off the KV budget too (mem_cache/kv_cache_configurator.py:130-147)"}},
		{name: "cuda_vmm v0.5.18", release: "v0.5.18", transport: "cuda_vmm", want: []string{"--mm-feature-transport cuda_vmm: not modelled for SGLang v0.5.18", "off the KV budget too"}},
		{name: "cuda_vmm v0.5.17", release: "v0.5.17", transport: "cuda_vmm", want: []string{"--mm-feature-transport cuda_vmm: SGLang v0.5.17", "takes one of cpu, cuda_ipc (server_args.py:2742-2750); cuda_vmm came in v0.5.18"}},
		{name: "CPU v0.5.16", release: "v0.5.16", transport: "CPU", want: []string{"--mm-feature-transport CPU: SGLang v0.5.16", "takes one of cpu, cuda_ipc (server_args.py:2317-2321)"}},
		{name: "host v0.5.18", release: "v0.5.18", transport: "host", want: []string{"--mm-feature-transport host: SGLang v0.5.18", "takes one of cpu, cuda_ipc, cuda_vmm (server_args.py:2858-2868)"}},
		{name: "cpu v0.5.15.post1", release: "v0.5.15.post1", transport: "cpu", want: []string{"--mm-feature-transport cpu: SGLang v0.5.15.post1", "has no --mm-feature-transport: it came in v0.5.16"}},
	} {
		a, c := vl, h100
		if tt.text {
			a = llama
		}
		if tt.amd {
			c = mi300x
		}
		r := Resolved{Serve: Serve{MMFeatureTransport: tt.transport, Nodes: Nodes{NNodes: max(tt.nnodes, 1)}}, Profile: mustProfile(tt.release)}
		err := r.resolveMMTransport(a, c)
		if len(tt.want) == 0 {
			if err != nil {
				t.Errorf("%s: %v, want it sized", tt.name, err)
			}
			continue
		}
		checkTransportRefused(t, tt.name, err, tt.want)
	}
}

// checkTransportRefused wants err a setting error of
// --mm-feature-transport beginning want[0] and saying each of want[1:].
func checkTransportRefused(t *testing.T, name string, err error, want []string) {
	t.Helper()
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "mm-feature-transport" || !strings.HasPrefix(err.Error(), want[0]) {
		t.Errorf("%s: %v, want an error naming --mm-feature-transport, beginning %q", name, err, want[0])
		return
	}
	for _, part := range want[1:] {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("%s: %v, want it to say %q", name, err, part)
		}
	}
}

// TestMMTransportCPUSizedAsDefault: --mm-feature-transport cpu is the
// transport v0.5.16 and v0.5.18 resolve the unset flag to on one node
// (server_args.py:6602-6603 at v0.5.16, :7911-7912 at v0.5.18), so
// Qwen2.5-VL-7B on an H100 is sized the same with it as without: the same
// capacity, v0.5.18's reservation 100 MiB (SGLANG_VLM_CACHE_SIZE_MB alone,
// the feature cache's 1024 MiB only under cuda_ipc or cuda_vmm,
// kv_cache_configurator.py:139-140) and v0.5.16's none. At v0.5.17, whose
// unset flag is refused, cpu is sized as v0.5.16 sizes it: the pool
// rules are the same (profile0517's comment), the reservation none.
func TestMMTransportCPUSizedAsDefault(t *testing.T) {
	vl := shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		release string
		reserve uint64
	}{
		{"v0.5.16", 0},
		{"v0.5.18", 100 << 20},
	} {
		p := mustProfile(tt.release)
		unset := ref(t, vl, Serve{}, h100, p).Capacity()
		cpu := ref(t, vl, Serve{MMFeatureTransport: "cpu"}, h100, p).Capacity()
		if diff := cmp.Diff(unset, cpu); diff != "" {
			t.Errorf("%s: cpu sized otherwise than unset (-unset +cpu):\n%s", tt.release, diff)
		}
		if cpu.MMReserveBytes != tt.reserve {
			t.Errorf("%s: reservation %d B, want %d", tt.release, cpu.MMReserveBytes, tt.reserve)
		}
	}
	if c := ref(t, vl, Serve{MMFeatureTransport: "cpu"}, h100, mustProfile("v0.5.17")).Capacity(); c.MMReserveBytes != 0 || c.MaxTotalNumTokens <= 0 {
		t.Errorf("v0.5.17 with cpu: reservation %d B, %d tokens; want none, a pool", c.MMReserveBytes, c.MaxTotalNumTokens)
	}
}

// TestMMTransportJudged: the flag is modelled where the release has it
// (its values are judged when resolved, TestMMTransport) and not a flag
// of v0.5.15.post1, which names where it came in.
func TestMMTransportJudged(t *testing.T) {
	for _, p := range []string{"v0.5.16", "v0.5.17", "v0.5.18"} {
		checkJudged(t, p, []judgeCase{{[]string{"--mm-feature-transport", "cpu"}, ""}})
	}
	err := (&flagServe{}).Judge([]string{"--sglang-version", "v0.5.15.post1", "--mm-feature-transport", "cpu"}, 2)
	if err == nil || !strings.Contains(err.Error(), "--mm-feature-transport is not a flag of SGLang v0.5.15.post1") || !strings.Contains(err.Error(), "it came in v0.5.16, server_args.py:2317 there") {
		t.Errorf("v0.5.15.post1: %v", err)
	}
}

// TestMMTransportOverridesVMMDefault: given, the transport is what
// SGLang uses (the multi-node default is read only when it is unset,
// server_args.py:7894-7944 at v0.5.18), so Qwen3-VL-MoE over 4 GB200
// nodes with cpu is not refused naming --nnodes, and with cuda_vmm it is
// refused naming --mm-feature-transport.
func TestMMTransportOverridesVMMDefault(t *testing.T) {
	gb200 := class(t, "gb200")
	a := *shipped(t)["Qwen__Qwen3-VL-30B-A3B-Instruct"]
	for _, tt := range []struct {
		transport, wantFlag string
	}{
		{"", "nnodes"},
		{"cpu", ""},
		{"cuda_vmm", "mm-feature-transport"},
	} {
		r := Resolved{Serve: Serve{TPSize: 16, Nodes: Nodes{NNodes: 4}, MMFeatureTransport: tt.transport}, Profile: mustProfile("v0.5.18")}
		err := r.resolveMMTransport(&a, gb200)
		if err == nil {
			err = r.checkMMFeatureTransport(&a, gb200)
		}
		var se *engine.SettingError
		got := ""
		if errors.As(err, &se) {
			got = se.Flag
		} else if err != nil {
			got = err.Error()
		}
		if got != tt.wantFlag {
			t.Errorf("%q over 4 GB200 nodes: %v; want refused naming %q", tt.transport, err, tt.wantFlag)
		}
	}
}

// TestPlanTransport: a plan gives --mm-feature-transport cpu only where
// the release would pick cuda_ipc unset (v0.5.17, a multimodal model), so
// that its launch lines run the host transport it sizes; a text model's,
// and every server of v0.5.16 and v0.5.18 (cpu unset on one node), leave
// SGLang's default.
func TestPlanTransport(t *testing.T) {
	archs := shipped(t)
	vl, llama := archs["Qwen__Qwen2.5-VL-7B-Instruct"], archs["meta-llama__Llama-3.1-8B-Instruct"]
	for _, tt := range []struct {
		release string
		text    bool
		want    string
	}{
		{"v0.5.17", false, "cpu"},
		{"v0.5.17", true, ""},
		{"v0.5.16", false, ""},
		{"v0.5.18", false, ""},
		{"v0.5.15.post1", false, ""},
	} {
		a := vl
		if tt.text {
			a = llama
		}
		if got := planTransport(mustProfile(tt.release), a); got != tt.want {
			t.Errorf("%s, text %v: %q, want %q", tt.release, tt.text, got, tt.want)
		}
	}
}

// TestMMTransportFromLog: explain reads the transport server_args logs as
// resolved (cpu at v0.5.16 and v0.5.18 for a one-node server, cuda_ipc at
// v0.5.17 for a multimodal one), None as not given, and the flag on
// membudget's command line over the log's.
func TestMMTransportFromLog(t *testing.T) {
	set := func(value string, lit logs.Literal) *logs.Log {
		return &logs.Log{Settings: []logs.Setting{{Key: "mm_feature_transport", Value: value, Literal: lit, Source: logs.SourceServerArgs}}}
	}
	for _, tt := range []struct {
		name  string
		log   *logs.Log
		flags Serve
		given map[string]bool
		want  string
	}{
		{"cpu logged", set("cpu", logs.LiteralString), Serve{}, nil, "cpu"},
		{"cuda_ipc logged", set("cuda_ipc", logs.LiteralString), Serve{}, nil, "cuda_ipc"},
		{"None logged", set("None", logs.LiteralNone), Serve{}, nil, ""},
		{"cpu given over cuda_ipc", set("cuda_ipc", logs.LiteralString), Serve{MMFeatureTransport: "cpu"}, map[string]bool{"mm-feature-transport": true}, "cpu"},
	} {
		ss, err := buildServe(tt.log, tt.flags, tt.given)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if ss.Serve.MMFeatureTransport != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, ss.Serve.MMFeatureTransport, tt.want)
		}
	}
}

// TestPropertyMMTransportCPUNeutral: over drawn serves of Qwen2.5-VL-7B
// and Llama 3.1 8B on an H100 under v0.5.16 to v0.5.18, --mm-feature-transport
// cpu sizes exactly what the unset flag sizes wherever the unset flag is
// sized (the host transport allocates nothing on the GPU); the unset flag
// is refused only at v0.5.17 for the multimodal model, naming the flag.
func TestPropertyMMTransportCPUNeutral(t *testing.T) {
	archs := shipped(t)
	h100 := class(t, "h100-sxm-80g")
	rapid.Check(t, func(t *rapid.T) {
		name := rapid.SampledFrom([]string{"Qwen__Qwen2.5-VL-7B-Instruct", "meta-llama__Llama-3.1-8B-Instruct"}).Draw(t, "model")
		release := rapid.SampledFrom([]string{"v0.5.16", "v0.5.17", "v0.5.18"}).Draw(t, "release")
		s := Serve{
			DisablePiecewiseCudaGraph: true,
			TPSize:                    rapid.SampledFrom([]uint64{1, 2}).Draw(t, "tp"),
			MemFractionStatic:         rapid.SampledFrom([]float64{0, 0.8}).Draw(t, "msf"),
			ContextLength:             rapid.SampledFrom([]uint64{0, 4096}).Draw(t, "context"),
		}
		p := mustProfile(release)
		unset, errU := NewReference(archs[name], s, h100, p)
		s.MMFeatureTransport = "cpu"
		cpu, errC := NewReference(archs[name], s, h100, p)
		if errC != nil {
			t.Fatalf("%s %s %+v with cpu: %v", name, release, s, errC)
		}
		refusedUnset := release == "v0.5.17" && name == "Qwen__Qwen2.5-VL-7B-Instruct"
		var se *engine.SettingError
		switch {
		case refusedUnset && (!errors.As(errU, &se) || se.Flag != "mm-feature-transport"):
			t.Fatalf("%s %s unset: %v; want refused naming --mm-feature-transport", name, release, errU)
		case !refusedUnset && errU != nil:
			t.Fatalf("%s %s unset: %v", name, release, errU)
		case !refusedUnset:
			if diff := cmp.Diff(unset.Capacity(), cpu.Capacity()); diff != "" {
				t.Fatalf("%s %s %+v: cpu sized otherwise (-unset +cpu):\n%s", name, release, s, diff)
			}
		}
	})
}

// TestMMIPCEnv: SGLANG_USE_CUDA_IPC_TRANSPORT, SGLang's older switch of
// the CUDA IPC transport, where --mm-feature-transport is unset. From
// v0.5.16 it decides the transport before any default
// (_handle_multimodal_feature_transport: server_args.py:6594-6603 at
// v0.5.16, :7589-7596 at v0.5.17, :7886-7893 at v0.5.18): true is
// cuda_ipc, refused like the flag's whatever the model; false is cpu,
// sized, even at v0.5.17 whose unset default is cuda_ipc, and the
// resolved serve then carries cpu for its launch line. Before v0.5.16
// (v0.5.15 here) true builds the pool in the multimodal processor
// (base_processor.py:44, 261-277), so a multimodal model is refused and
// a text model, which has none, is sized. The flag given wins over it
// (server_args.py:7944-7953 at v0.5.18 only warns). v0.4.9.post2 has no
// such variable.
func TestMMIPCEnv(t *testing.T) {
	archs := shipped(t)
	vl, llama := archs["Qwen__Qwen2.5-VL-7B-Instruct"], archs["meta-llama__Llama-3.1-8B-Instruct"]
	h100 := class(t, "h100-sxm-80g")
	for _, tt := range []struct {
		name, release, transport string
		env                      engine.Switch
		text                     bool
		want                     []string // nil sized; else the error's parts, the flag first
		resolved                 string   // the transport the sized serve carries
	}{
		{name: "false v0.5.17", release: "v0.5.17", env: engine.Off, resolved: "cpu"},
		{name: "false v0.5.16", release: "v0.5.16", env: engine.Off, resolved: "cpu"},
		{name: "false v0.5.18", release: "v0.5.18", env: engine.Off, resolved: "cpu"},
		{name: "true v0.5.17", release: "v0.5.17", env: engine.On, want: []string{"--mm-feature-transport: unset, with SGLANG_USE_CUDA_IPC_TRANSPORT true", "server_args.py:7564-7674, which resolves the unset flag to cuda_ipc", "(1024 MiB by default)", "--mm-feature-transport cpu, the host transport, overrides it"}},
		{name: "true v0.5.18", release: "v0.5.18", env: engine.On, want: []string{"--mm-feature-transport: unset, with SGLANG_USE_CUDA_IPC_TRANSPORT true", "server_args.py:7861-8028"}},
		{name: "true v0.5.16 text model", release: "v0.5.16", env: engine.On, text: true, want: []string{"--mm-feature-transport: unset, with SGLANG_USE_CUDA_IPC_TRANSPORT true", "server_args.py:6569-6641"}},
		{name: "true v0.5.18, cpu given", release: "v0.5.18", env: engine.On, transport: "cpu", resolved: "cpu"},
		{name: "true v0.5.15", release: "v0.5.15", env: engine.On, want: []string{"--mm-feature-transport: unset, with SGLANG_USE_CUDA_IPC_TRANSPORT true", "base_processor.py, SGL_USE_CUDA_IPC", "unset it"}},
		{name: "true v0.5.15 text model", release: "v0.5.15", env: engine.On, text: true},
		{name: "false v0.5.15", release: "v0.5.15", env: engine.Off},
		{name: "true v0.4.9.post2", release: "v0.4.9.post2", env: engine.On},
	} {
		a := vl
		if tt.text {
			a = llama
		}
		r := Resolved{Serve: Serve{MMFeatureTransport: tt.transport, MMIPCEnv: tt.env, Nodes: Nodes{NNodes: 1}}, Profile: mustProfile(tt.release)}
		err := r.resolveMMTransport(a, h100)
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: %v, want it sized", tt.name, err)
			} else if r.MMFeatureTransport != tt.resolved {
				t.Errorf("%s: resolved %q, want %q", tt.name, r.MMFeatureTransport, tt.resolved)
			}
			continue
		}
		checkTransportRefused(t, tt.name, err, tt.want)
	}
}

// TestMMIPCEnvWords: the variable read as each release reads it, in any
// case: v0.5.7 on an EnvBool (yes and no words too; anything else warns
// and is False), v0.5.6.post2 get_bool_env_var (true or 1; anything else,
// yes included, false with a warning), v0.4.9.post2 not at all.
func TestMMIPCEnvWords(t *testing.T) {
	for _, tt := range []struct {
		release, value string
		want           engine.Switch
		warns          bool
	}{
		{"v0.5.18", "1", engine.On, false},
		{"v0.5.18", "YES", engine.On, false},
		{"v0.5.18", "n", engine.Off, false},
		{"v0.5.18", "sure", engine.Off, true},
		{"v0.5.7", "y", engine.On, false},
		{"v0.5.6.post2", "True", engine.On, false},
		{"v0.5.6.post2", "yes", engine.Off, true},
		{"v0.5.6.post2", "0", engine.Off, false},
		{"v0.4.9.post2", "1", engine.Default, false},
	} {
		var f flagServe
		f.SetEnv(MMIPCEnv, tt.value, "the environment")
		got, warn := f.mmIPCEnv(mustProfile(tt.release))
		if got != tt.want || (warn != "") != tt.warns {
			t.Errorf("%s=%q under %s: %v, warning %q; want %v, a warning %v", MMIPCEnv, tt.value, tt.release, got, warn, tt.want, tt.warns)
		}
	}
	var f flagServe
	if got, warn := f.mmIPCEnv(mustProfile("v0.5.18")); got != engine.Default || warn != "" {
		t.Errorf("unset: %v, %q; want the default and no warning", got, warn)
	}
}
