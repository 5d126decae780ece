package sglang

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/hub"
)

// TestUE8M0Refused: a block-fp8 checkpoint ([128, 128]: Qwen3-30B-A3B-FP8,
// DeepSeek-V3) on Blackwell is refused naming --model and the variable
// that turns DeepGEMM off, under every release from v0.5.6.post2; Hopper
// (DeepGEMM on, DEEPGEMM_SCALE_UE8M0 off: is_blackwell is SM10x and SM12x)
// and a checkpoint without block scales are not; SM11x only from v0.5.9
// (is_blackwell_supported); v0.4.9.post2 refused as not read; a block
// other than [128, 128] refused as SGLang's assertion.
func TestUE8M0Refused(t *testing.T) {
	archs := shipped(t)
	qwen, ds, llama := archs["Qwen__Qwen3-30B-A3B-FP8"], archs["deepseek-ai__DeepSeek-V3"], archs["meta-llama__Llama-3.1-8B-Instruct"]
	if qwen.Quant.BlockN != 128 || qwen.Quant.BlockK != 128 || ds.Quant.BlockN != 128 || ds.Quant.BlockK != 128 {
		t.Fatalf("weight_block_size: Qwen3 %d x %d, DeepSeek-V3 %d x %d; want 128 x 128 (their config.json)", qwen.Quant.BlockN, qwen.Quant.BlockK, ds.Quant.BlockN, ds.Quant.BlockK)
	}
	block64 := *qwen
	block64.Quant.BlockN, block64.Quant.BlockK = 64, 64
	const requant = "become packed UE8M0 int32 of align(N, 4) x align(ceil(K/128), 4) bytes"
	const off = "SGLANG_ENABLE_JIT_DEEPGEMM=0 in the environment turns DeepGEMM off"
	tests := []struct {
		name, on, p string
		model       string
		s           Serve
		has         []string // "" where it resolves
	}{
		{"Qwen3-30B-A3B-FP8 TP 1 on B200, v0.5.6.post2", "b200", "v0.5.6.post2", "qwen", Serve{}, []string{requant, off}},
		{"Qwen3-30B-A3B-FP8 TP 1 on B200, v0.5.6.post3", "b200", "v0.5.6.post3", "qwen", Serve{}, []string{requant, off}},
		{"Qwen3-30B-A3B-FP8 TP 2 on B200, v0.5.7", "b200", "v0.5.7", "qwen", Serve{TPSize: 2}, []string{requant, off}},
		{"DeepSeek-V3 TP 8 on B200, v0.5.8", "b200", "v0.5.8", "ds", Serve{TPSize: 8}, []string{requant, off}},
		{"DeepSeek-V3 TP 8 on B200, v0.5.8.post1", "b200", "v0.5.8.post1", "ds", Serve{TPSize: 8}, []string{requant, off}},
		{"DeepSeek-V3 TP 8 on B200, v0.5.9", "b200", "v0.5.9", "ds", Serve{TPSize: 8}, []string{requant, off}},
		{"DeepSeek-V3 TP 8 on B200, v0.5.9.post1", "b200", "v0.5.9.post1", "ds", Serve{TPSize: 8}, []string{requant, off}},
		{"Qwen3-30B-A3B-FP8 on RTX PRO 6000 (SM120), v0.5.7", "rtx-pro-6000", "v0.5.7", "qwen", Serve{AttentionBackend: "triton"}, []string{requant, off}},
		{"turned off: sized as before", "b200", "v0.5.7", "qwen", Serve{JITDeepGEMM: engine.Off}, nil},
		{"said on: refused", "b200", "v0.5.7", "qwen", Serve{JITDeepGEMM: engine.On}, []string{requant}},
		{"H100: no UE8M0", "h100-sxm-80g", "v0.5.7", "qwen", Serve{}, nil},
		{"no block scales", "b200", "v0.5.7", "llama", Serve{}, nil},
		{"block 64 x 64 asserts", "b200", "v0.5.7", "block64", Serve{}, []string{"weight_block_size [64, 64]", "asserts [128, 128]", off}},
		{"v0.4.9.post2 not read", "b200", "v0.4.9.post2", "qwen", Serve{JITDeepGEMM: engine.Off}, []string{"has not read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := map[string]*model.Arch{"qwen": qwen, "ds": ds, "llama": llama, "block64": &block64}[tt.model]
			s := tt.s
			s.TPSize = max(s.TPSize, 1)
			// The step itself, after the rest of Resolve's, so that no
			// other refusal stands in for it.
			r := Resolved{Serve: s, Profile: mustProfile(tt.p), Quant: a.Quant}
			err := r.checkUE8M0(a, class(t, tt.on))
			if tt.has == nil {
				if err != nil {
					t.Errorf("%v, want none", err)
				}
				return
			}
			var se *engine.SettingError
			if !errors.As(err, &se) || se.Flag != "model" {
				t.Fatalf("%v, want a refusal of --model", err)
			}
			for _, h := range tt.has {
				if !strings.Contains(se.Reason, h) {
					t.Errorf("%q lacks %q", se.Reason, h)
				}
			}
		})
	}
	// SM11x (Jetson Thor): v0.5.8's is_blackwell_supported leaves it out,
	// v0.5.9's takes it (utils/common.py:246-252 at v0.5.9).
	thor := class(t, "jetson-thor")
	for name, refused := range map[string]bool{"v0.5.8": false, "v0.5.9": true} {
		r := Resolved{Serve: Serve{TPSize: 1}, Profile: mustProfile(name), Quant: qwen.Quant}
		if err := r.checkUE8M0(qwen, thor); (err != nil) != refused {
			t.Errorf("%s on Jetson Thor: %v, want refused %v", name, err, refused)
		}
	}
	// Through Resolve: refused by default, sized with DeepGEMM off.
	b200 := class(t, "b200")
	if _, err := Resolve(Serve{}, qwen, b200, mustProfile("v0.5.7")); err == nil || !strings.Contains(err.Error(), off) {
		t.Errorf("Qwen3-30B-A3B-FP8 on B200: %v, want refused naming %q", err, off)
	}
	if _, err := Resolve(Serve{JITDeepGEMM: engine.Off}, qwen, b200, mustProfile("v0.5.7")); err != nil {
		t.Errorf("Qwen3-30B-A3B-FP8 on B200 with DeepGEMM off: %v", err)
	}
}

// TestUE8M0Off: with DeepGEMM off the scales are the checkpoint's float32
// [ceil(N/128), ceil(K/128)], as membudget sized them before. Qwen3-30B-
// A3B-FP8 layer 0 at TP 1: q_proj 32 heads x 128 = 4096 rows, k and v 4 x
// 128 = 512 each, merged 5120 rows: 40 x ceil(2048/128) = 40 x 16 = 640
// scales, 2560 B; o_proj 2048 x 4096: 16 x 32 = 512 scales, 2048 B.
// (UE8M0 would hold align(5120, 4) x align(16, 4) = 81920 B and 2048 x 32
// = 65536 B, 32 times as many: why it is refused and not sized silently.)
func TestUE8M0Off(t *testing.T) {
	qwen := shipped(t)["Qwen__Qwen3-30B-A3B-FP8"]
	r := ref(t, qwen, Serve{JITDeepGEMM: engine.Off}, class(t, "b200"), mustProfile("v0.5.7"))
	got := map[string]uint64{}
	for _, it := range r.stages[0].weights {
		if rest, ok := strings.CutPrefix(it.Name, "model.layers.0.self_attn."); ok && strings.HasSuffix(rest, "weight_scale_inv") {
			got[rest] += it.Bytes
		}
	}
	want := map[string]uint64{"qkv_proj.weight_scale_inv": 2560, "o_proj.weight_scale_inv": 2048}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layer 0's attention scales (-want +got):\n%s", diff)
	}
}

// TestJITDeepGEMMEnv: SGLANG_ENABLE_JIT_DEEPGEMM as EnvBool reads it
// (environ.py:98-105, 23-38 at v0.5.6.post2): any case of true, 1, yes, y
// and their false counterparts; anything else warns and keeps true. A
// serve that set it off carries it into the launch line.
func TestJITDeepGEMMEnv(t *testing.T) {
	p := mustProfile("v0.5.7")
	tests := []struct {
		value string
		want  engine.Switch
		warns bool
	}{
		{"0", engine.Off, false}, {"False", engine.Off, false}, {"n", engine.Off, false},
		{"1", engine.On, false}, {"YES", engine.On, false},
		{"off", engine.Default, true},
	}
	for _, tt := range tests {
		var f flagServe
		f.SetEnv(JITDeepGEMMEnv, tt.value, "the launch line")
		got, warn := f.jitDeepGEMM(p)
		if got != tt.want || (warn != "") != tt.warns {
			t.Errorf("%q: %v, warning %q; want %v, warns %v", tt.value, got, warn, tt.want, tt.warns)
		}
	}
	var f flagServe
	if got, warn := f.jitDeepGEMM(p); got != engine.Default || warn != "" {
		t.Errorf("unset: %v, %q; want the default, no warning", got, warn)
	}
	r, err := Resolve(Serve{JITDeepGEMM: engine.Off}, shipped(t)["Qwen__Qwen3-30B-A3B-FP8"], class(t, "b200"), p)
	if err != nil {
		t.Fatal(err)
	}
	if c := Command("Qwen/Qwen3-30B-A3B-FP8", "", r); !strings.HasPrefix(c, "SGLANG_ENABLE_JIT_DEEPGEMM=0 python -m sglang.launch_server") {
		t.Errorf("command %q, want it to start with SGLANG_ENABLE_JIT_DEEPGEMM=0", c)
	}
}

// TestUE8M0DroppedNote: the plan names the classes on which every server
// of a block-fp8 checkpoint was refused for DeepGEMM's UE8M0 scales, and
// the flag that plans them (B200, SM100, from v0.5.6.post2; the RTX PRO
// 6000, SM120, too); H100 (no UE8M0) and a checkpoint without block
// scales get no note, nor do servers planned with DeepGEMM off; under
// v0.4.9.post2 the note stays with DeepGEMM off, which that release does
// not read.
func TestUE8M0DroppedNote(t *testing.T) {
	archs := shipped(t)
	qwen, llama := archs["Qwen__Qwen3-30B-A3B-FP8"], archs["meta-llama__Llama-3.1-8B-Instruct"]
	classes := []budget.Class{class(t, "h100-sxm-80g"), class(t, "b200"), class(t, "rtx-pro-6000")}
	tests := []struct {
		name, p string
		a       *model.Arch
		jit     engine.Switch
		want    []string // what the one note holds; nil for none
	}{
		{"DeepGEMM on", "v0.5.7", qwen, engine.Default, []string{"not planned on b200, rtx-pro-6000:", "--disable-jit-deepgemm plans them with SGLANG_ENABLE_JIT_DEEPGEMM=0"}},
		{"DeepGEMM off", "v0.5.7", qwen, engine.Off, nil},
		{"no block scales", "v0.5.7", llama, engine.Default, nil},
		{"v0.4.9.post2, off", "v0.4.9.post2", qwen, engine.Off, []string{"not planned on b200, rtx-pro-6000:", "has not read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ue8m0Dropped(&hub.Loaded{Arch: tt.a}, classes, mustProfile(tt.p), tt.jit)
			if tt.want == nil {
				if got != nil {
					t.Errorf("got %q, want no note", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("got %q, want one note", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got[0], w) {
					t.Errorf("note %q lacks %q", got[0], w)
				}
			}
		})
	}
}
