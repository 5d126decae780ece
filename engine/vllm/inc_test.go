package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// incLlama is Llama-3.2-1B's shipped config with an auto-round
// quantization_config as AutoRound's symmetric 4-bit export writes it
// (intel/auto-round auto_round/export/export_to_autoround/export.py
// @c6e0e72).
func incLlama(t *testing.T) *model.Arch {
	t.Helper()
	data, path, ok := membudget.ModelConfig("meta-llama__Llama-3.2-1B-Instruct")
	if !ok {
		t.Fatal("no shipped Llama-3.2-1B config")
	}
	doc := strings.Replace(string(data), "{", `{"quantization_config": {"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq",
 "bits": 4, "group_size": 128, "sym": true, "data_type": "int"}, `, 1)
	a, err := model.ParseConfig(path, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestINCQuantization: vLLM serves an auto-round checkpoint with its INC
// method ("inc": inc/inc.py:253-261, config/model.py:1209-1290) whatever
// --quantization names, and cannot build its layers below compute capability 7.5, where Marlin
// has no kernel (utils/marlin_utils.py:65-66, inc_wna16_linear.py:45-82),
// though INCConfig itself asks for 6.0.
func TestINCQuantization(t *testing.T) {
	a := incLlama(t)
	c := testClass(false)
	// INC's override claims the checkpoint whatever the flag names
	// (inc/inc.py:253-261 reads no user_quant), so vLLM serves it as inc
	// under another method's name too, or a name it does not list.
	for _, flag := range []string{"", "inc", "gptq", "auto_round"} {
		r := ref(t, a, Serve{Quantization: flag, MaxModelLen: 4096}, c)
		if r.Serve.Quant.Method != "inc" {
			t.Errorf("--quantization %q: method %q, want inc", flag, r.Serve.Quant.Method)
		}
	}
	v100 := testClass(false)
	v100.Device.Name, v100.Device.Silicon = "Tesla V100-SXM2-32GB", budget.Silicon{Vendor: budget.NVIDIA, Major: 7}
	t4 := v100
	t4.Device.Name, t4.Device.Silicon = "Tesla T4", budget.Silicon{Vendor: budget.NVIDIA, Major: 7, Minor: 5}
	if _, err := NewReference(a, trusting(a, Serve{Dtype: "float16", MaxModelLen: 4096}), t4, current); err != nil {
		t.Errorf("on a T4 (7.5, Marlin's floor): %v, want an answer", err)
	}
	tests := []struct {
		name  string
		serve Serve
		class budget.Class
		want  engine.SettingError
	}{
		{"below Marlin", Serve{Dtype: "float16", MaxModelLen: 4096}, v100,
			engine.SettingError{Flag: "quantization", Value: "(the checkpoint's inc)", Reason: "vLLM fails when it loads the model on Tesla V100-SXM2-32GB (compute capability 70): INC builds the AutoRound layers on Marlin (or AutoAWQ's kernels for AWQ packing off Marlin), which need 75 (inc/schemes/inc_wna16_linear.py:45-126, utils/marlin_utils.py:65-66, auto_awq.py:225-231)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReference(a, trusting(a, tt.serve), tt.class, current)
			var se *engine.SettingError
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *engine.SettingError", err, err)
			}
			if diff := cmp.Diff(tt.want, *se); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if incMarlinLeast != 75 {
		t.Errorf("incMarlinLeast = %d, want 75 (marlin_utils.py:65)", incMarlinLeast)
	}
}

// TestINCBeforeConsolidation: releases before 0.15.0 loaded auto-round
// checkpoints with quantization/auto_round.py (PR #31716 replaced it on
// 2026-01-14), which is not read: they refuse the checkpoint by name.
func TestINCBeforeConsolidation(t *testing.T) {
	a := incLlama(t)
	for _, spec := range []string{"0.14.0", "0.11.0"} {
		_, err := NewReference(a, trusting(a, Serve{MaxModelLen: 4096}), testClass(false), mustProfile(spec))
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(se.Reason, "PR #31716") {
			t.Errorf("%s: error %v, want a refusal of --model naming PR #31716", spec, err)
		}
	}
	if _, err := NewReference(a, trusting(a, Serve{MaxModelLen: 4096}), testClass(false), mustProfile("0.15.0")); err != nil {
		t.Errorf("0.15.0: %v, want an answer", err)
	}
	if incRelease != (Version{0, 15, 0}) {
		t.Errorf("incRelease = %v, want 0.15.0", incRelease)
	}
}
