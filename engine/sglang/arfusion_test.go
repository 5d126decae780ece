package sglang

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
)

// TestARFusionBytes pins flashinfer 0.5.3's workspace, by hand: the IPC
// buffer tp x 2048 x hidden x 2, the flags tp x 256 x 4, three lamport
// buffers of tp x 2048 x hidden x elem (at most MAX_COMM_SIZE), each
// rounded up to 2 MiB.
func TestARFusionBytes(t *testing.T) {
	tests := []struct {
		name             string
		tp, hidden, elem uint64
		want             uint64
	}{
		// 8 x 2048 x 7168 x 2 = 234881024 (224 MiB, already aligned);
		// flags 8192 B -> 2 MiB; lamport 3 x 224 MiB = 704643072.
		{"DeepSeek-V3 at TP 8", 8, 7168, 2, 234881024 + 2097152 + 704643072},
		// 2 x 2048 x 2880 x 2 = 23592960 (22.5 MiB) -> 24 MiB 25165824;
		// lamport 3 x 23592960 = 70778880 (67.5 MiB) -> 68 MiB 71303168.
		{"gpt-oss at TP 2", 2, 2880, 2, 25165824 + 2097152 + 71303168},
		// float32: 8 x 2048 x 32768 x 4 = 2^31, above MAX_COMM_SIZE
		// 2^31 - 2 MiB = 2145386496, so lamport 3 x 2145386496; the IPC
		// buffer stays x 2: 2^30.
		{"lamport capped", 8, 32768, 4, 1073741824 + 2097152 + 6436159488},
	}
	for _, tt := range tests {
		if got := arFusionBytes(tt.tp, tt.hidden, tt.elem); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestARFusionInLedger: v0.5.6.post2 charges the workspace beside the pool
// exactly where it turns the fusion on by itself (DeepSeek-V3 on SM100,
// gpt-oss on Blackwell, both under tensor parallelism), and nowhere else.
func TestARFusionInLedger(t *testing.T) {
	archs := shipped(t)
	b200, h100, h20 := class(t, "b200"), class(t, "h100-sxm-80g"), class(t, "h20")
	// v0.5.7's rule, on v0.5.6.post2's profile otherwise: the rule is read
	// by release name.
	v057 := current
	v057.Name = "v0.5.7"
	v059 := mustProfile("v0.5.9")
	v058, v058post1 := mustProfile("v0.5.8"), mustProfile("v0.5.8.post1")
	tests := []struct {
		name  string
		model string
		s     Serve
		on    string
		want  uint64
		p     *Profile
	}{
		{"DeepSeek-V3 TP 8 on B200", "deepseek-ai__DeepSeek-V3", Serve{TPSize: 8, JITDeepGEMM: engine.Off}, "b200", 234881024 + 2097152 + 704643072, nil},
		{"DeepSeek-V3 TP 8 on H100: SM90", "deepseek-ai__DeepSeek-V3", Serve{TPSize: 8}, "h100", 0, nil},
		{"gpt-oss TP 2 on B200", "openai__gpt-oss-120b", Serve{TPSize: 2}, "b200", 25165824 + 2097152 + 71303168, nil},
		{"gpt-oss TP 1: no world to reduce over", "openai__gpt-oss-120b", Serve{TPSize: 1}, "b200", 0, nil},
		{"Llama TP 2 on B200: not its architecture", "meta-llama__Llama-3.1-8B-Instruct", Serve{TPSize: 2}, "b200", 0, nil},
		// v0.5.7 adds Qwen3-MoE on SM90: 2 x 2048 x 2048 x 2 = 16 MiB, 2
		// MiB of flags, 3 x 16 MiB of lamport.
		{"Qwen3-30B-A3B TP 2 on H100 under v0.5.7", "Qwen__Qwen3-30B-A3B", Serve{TPSize: 2}, "h100", 16777216 + 2097152 + 50331648, &v057},
		{"Qwen3-30B-A3B TP 2 on H100 under v0.5.6.post2", "Qwen__Qwen3-30B-A3B", Serve{TPSize: 2}, "h100", 0, nil},
		{"Qwen3-30B-A3B TP 2 on H20 under v0.5.7: excluded", "Qwen__Qwen3-30B-A3B", Serve{TPSize: 2}, "h20", 0, &v057},
		// v0.5.9 (server_args.py:1672-1697): SM90 and SM100, DeepSeek-V3
		// on the H100 too; GLM-4.7-Flash (hidden 2048) added: 2 x 2048 x
		// 2048 x 2 = 16 MiB, 2 MiB of flags, 3 x 16 MiB of lamport; SM12x
		// (is_sm100_supported is SM10x alone) and the H20 left out.
		{"DeepSeek-V3 TP 8 on H100 under v0.5.9", "deepseek-ai__DeepSeek-V3", Serve{TPSize: 8}, "h100", 234881024 + 2097152 + 704643072, &v059},
		{"DeepSeek-V3 TP 8 on B200 under v0.5.9", "deepseek-ai__DeepSeek-V3", Serve{TPSize: 8, JITDeepGEMM: engine.Off}, "b200", 234881024 + 2097152 + 704643072, &v059},
		{"GLM-4.7-Flash TP 2 on H100 under v0.5.9", "zai-org__GLM-4.7-Flash", Serve{TPSize: 2}, "h100", 16777216 + 2097152 + 50331648, &v059},
		{"Qwen3-30B-A3B TP 2 on RTX PRO 6000 under v0.5.7: is_blackwell_supported", "Qwen__Qwen3-30B-A3B", Serve{TPSize: 2, AttentionBackend: "flashinfer"}, "rtx-pro-6000", 16777216 + 2097152 + 50331648, &v057},
		{"Qwen3-30B-A3B TP 2 on RTX PRO 6000 under v0.5.9: SM12x not is_sm100_supported", "Qwen__Qwen3-30B-A3B", Serve{TPSize: 2}, "rtx-pro-6000", 0, &v059},
		{"Qwen3-30B-A3B TP 2 on H20 under v0.5.9: excluded", "Qwen__Qwen3-30B-A3B", Serve{TPSize: 2}, "h20", 0, &v059},
		{"Llama TP 2 on H100 under v0.5.9: not its architecture", "meta-llama__Llama-3.1-8B-Instruct", Serve{TPSize: 2}, "h100", 0, &v059},
		// v0.5.8 (server_args.py:1602-1626, FlashInfer 0.6.1, whose
		// comm/trtllm_ar.py is 0.6.3's): GLM-4.7-Flash (hidden 2048) at TP
		// 2 on the H100: 2 x 2048 x 2048 x 2 = 16 MiB, 2 x 256 x 4 B of
		// flags -> 2 MiB, 3 x 16 MiB of lamport; DeepSeek-V3 TP 8 as
		// v0.5.9 sizes it; SM12x (is_sm100_supported is SM10x alone at
		// the tag, utils/common.py:247-256) and the H20 left out.
		{"GLM-4.7-Flash TP 2 on H100 under v0.5.8", "zai-org__GLM-4.7-Flash", Serve{TPSize: 2}, "h100", 16777216 + 2097152 + 50331648, &v058},
		{"GLM-4.7-Flash TP 2 on H100 under v0.5.8.post1", "zai-org__GLM-4.7-Flash", Serve{TPSize: 2}, "h100", 16777216 + 2097152 + 50331648, &v058post1},
		{"DeepSeek-V3 TP 8 on H100 under v0.5.8", "deepseek-ai__DeepSeek-V3", Serve{TPSize: 8}, "h100", 234881024 + 2097152 + 704643072, &v058},
		{"Qwen3-30B-A3B TP 2 on RTX PRO 6000 under v0.5.8: SM12x not is_sm100_supported", "Qwen__Qwen3-30B-A3B", Serve{TPSize: 2, AttentionBackend: "flashinfer"}, "rtx-pro-6000", 0, &v058},
		{"Qwen3-30B-A3B TP 2 on H20 under v0.5.8: excluded", "Qwen__Qwen3-30B-A3B", Serve{TPSize: 2}, "h20", 0, &v058},
		{"Llama TP 2 on H100 under v0.5.8: not its architecture", "meta-llama__Llama-3.1-8B-Instruct", Serve{TPSize: 2}, "h100", 0, &v058},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := map[string]budget.Class{"b200": b200, "h100": h100, "h20": h20, "rtx-pro-6000": class(t, "rtx-pro-6000")}[tt.on]
			p := current
			if tt.p != nil {
				p = *tt.p
			}
			l := ref(t, archs[tt.model], tt.s, c, p).Evaluate(1, 1)
			var got uint64
			for _, it := range l.Items {
				if it.Name == "flashinfer_allreduce_fusion_workspace" {
					got += it.Bytes
				}
			}
			if got != tt.want {
				t.Errorf("workspace %d B, want %d", got, tt.want)
			}
		})
	}
}

// TestARFusionRefusedUnread: a release whose rule membudget has not read
// refuses the serve by name, with what the read release's workspace adds;
// v0.4.9.post2, which never turns it on, sizes it.
func TestARFusionRefusedUnread(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V3"]
	c := class(t, "b200")
	unread := current
	unread.Name, unread.Describes = "v0.5.10", "SGLang v0.5.10"
	r := Resolved{Serve: Serve{TPSize: 8}, Profile: unread, DtypeBytes: 2}
	// 941621248 B is 0.88 GiB.
	want := engine.SettingError{Flag: "enable-flashinfer-allreduce-fusion", Reason: "SGLang v0.5.10 may turn it on by itself for DeepseekV3ForCausalLM on " + c.Device.Name + ", adding FlashInfer's all-reduce fusion workspace (0.88 GiB a GPU as v0.5.6.post2 makes it): not modelled for SGLang v0.5.10; membudget refuses it rather than size a server it would get wrong"}
	var se *engine.SettingError
	if err := r.checkARFusion(a, c); !errors.As(err, &se) {
		t.Fatalf("got %v, want a refusal", err)
	} else if diff := cmp.Diff(want, *se); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, p := range []Profile{current, r049} {
		r.Profile = p
		if err := r.checkARFusion(a, c); err != nil {
			t.Errorf("%s: %v, want nil", p.Name, err)
		}
	}
	// The union of the rules read: Qwen3-MoE on SM90 too.
	r.Profile = unread
	if err := r.checkARFusion(shipped(t)["Qwen__Qwen3-30B-A3B"], class(t, "h100-sxm-80g")); !errors.As(err, &se) || se.Flag != "enable-flashinfer-allreduce-fusion" {
		t.Errorf("Qwen3-MoE on H100 under v0.5.10: %v, want a refusal", err)
	}
	// v0.5.8 and v0.5.8.post1 are read (FlashInfer 0.6.1): they size the
	// workspace for GLM-4.7-Flash rather than refuse it.
	glmLite := *shipped(t)["Qwen__Qwen3-30B-A3B"]
	glmLite.Architectures = []string{"Glm4MoeLiteForCausalLM"}
	for _, p := range []Profile{profile058, profile058post1} {
		r.Profile = p
		if err := r.checkARFusion(&glmLite, class(t, "h100-sxm-80g")); err != nil {
			t.Errorf("Glm4MoeLiteForCausalLM on an H100 under %s: %v, want nil (sized)", p.Name, err)
		}
	}
	if !strings.HasPrefix(r049.Name, "v0.4.") {
		t.Errorf("r049 is %s", r049.Name)
	}
}

// TestARFusionAnyCoversRules: arFusionAny, what a release not read is
// taken to possibly apply, turns the fusion on wherever a rule read does,
// for every architecture of every rule on every NVIDIA major from 7 to 12
// and on an H20 (which arFusionAny, unlike the rules from v0.5.7, keeps).
func TestARFusionAnyCoversRules(t *testing.T) {
	for name, rel := range arFusionRules {
		for _, arch := range rel.archs {
			for major := 7; major <= 12; major++ {
				si := budget.Silicon{Vendor: budget.NVIDIA, Major: major}
				for _, device := range []string{"NVIDIA H100 80GB HBM3", "NVIDIA H20"} {
					if rel.rule(arch, si, device) && !arFusionAny(arch, si, device) {
						t.Errorf("%s turns it on for %s on SM%d (%s); arFusionAny does not", name, arch, major, device)
					}
				}
			}
		}
	}
}

// TestARFusionUnreadFromV0510: v0.5.10 to v0.5.13.post1 turn the fusion on
// by themselves for Qwen3.5 (Qwen3_5ForConditionalGeneration, in each
// list: v0.5.10 server_args.py:2100, v0.5.11 :2344, v0.5.13 :2643) at TP
// above 1 on SM90 or SM10x, one node: taken there, as a release whose
// workspace is not read, not on an L40S (SM89), not at two nodes, and not
// under v0.5.9, whose rule (read) does not name it.
func TestARFusionUnreadFromV0510(t *testing.T) {
	qwen := shipped(t)["Qwen__Qwen3.5-27B"]
	h100, b200, l40s := class(t, "h100-sxm-80g"), class(t, "b200"), class(t, "l40s")
	for _, rel := range []string{"v0.5.10", "v0.5.10.post1", "v0.5.11", "v0.5.12", "v0.5.12.post1", "v0.5.13", "v0.5.13.post1"} {
		r := &Resolved{Serve: Serve{TPSize: 2, Nodes: Nodes{NNodes: 1}}, Profile: mustProfile(rel)}
		for _, tt := range []struct {
			c    budget.Class
			want bool
		}{{h100, true}, {b200, true}, {l40s, false}} {
			if got := autoARFusion(arFusionAnyFor(rel), qwen, r, tt.c); got != tt.want {
				t.Errorf("%s, Qwen3.5 TP 2 on %s: fusion on %v, want %v", rel, tt.c.Name, got, tt.want)
			}
		}
		r.Nodes.NNodes = 2
		if autoARFusion(arFusionAnyFor(rel), qwen, r, h100) {
			t.Errorf("%s, Qwen3.5 TP 2 over 2 H100 nodes: fusion on, want off (one node only)", rel)
		}
	}
	r := &Resolved{Serve: Serve{TPSize: 2, Nodes: Nodes{NNodes: 1}}, Profile: mustProfile("v0.5.9")}
	if arFusion059("Qwen3_5ForConditionalGeneration", h100.Device.Silicon, h100.Device.Name) || autoARFusion(arFusionAnyFor("v0.5.9"), qwen, r, h100) {
		t.Error("v0.5.9: Qwen3.5 takes the fusion, want not (its list, server_args.py:1683-1690, does not name it)")
	}
}
