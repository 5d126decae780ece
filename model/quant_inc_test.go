package model

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"
)

// The auto-round configs below use the keys AutoRound writes
// (intel/auto-round auto_round/export/export_to_autoround/export.py
// @c6e0e72, save_quantized_as_autoround: quant_method "auto-round",
// packing_format, block_name_to_quantize, extra_config with per-layer
// bits, data_type, group_size and sym, dynamic_config's regexes as
// extra_config keys; bits, group_size, sym, data_type, iters and
// autoround_version from its serialization dict).

// gptqInt4 is the one-layer tinyLlama's layer 0 under AutoGPTQ 4-bit,
// group 128, no act-order, at TP 1 (auto_gptq.py:326-453): qweight [k/8,
// n] int32, g_idx [k] int32, scales [k/128, n] bf16, qzeros [k/128, n/8]
// int32. qkv 256 x 512, o 256 x 256, gate_up 256 x 1024, down 512 x 256.
func gptqInt4() map[string]uint64 {
	return map[string]uint64{
		"self_attn.qkv_proj.qweight": 32 * 512 * 4, "self_attn.qkv_proj.g_idx": 256 * 4, "self_attn.qkv_proj.scales": 2 * 512 * 2, "self_attn.qkv_proj.qzeros": 2 * 64 * 4,
		"self_attn.o_proj.qweight": 32 * 256 * 4, "self_attn.o_proj.g_idx": 256 * 4, "self_attn.o_proj.scales": 2 * 256 * 2, "self_attn.o_proj.qzeros": 2 * 32 * 4,
		"mlp.gate_up_proj.qweight": 32 * 1024 * 4, "mlp.gate_up_proj.g_idx": 256 * 4, "mlp.gate_up_proj.scales": 2 * 1024 * 2, "mlp.gate_up_proj.qzeros": 2 * 128 * 4,
		"mlp.down_proj.qweight": 64 * 256 * 4, "mlp.down_proj.g_idx": 512 * 4, "mlp.down_proj.scales": 4 * 256 * 2, "mlp.down_proj.qzeros": 4 * 32 * 4,
		"input_layernorm.weight": 512, "post_attention_layernorm.weight": 512,
	}
}

// TestINCLinearLayouts checks layer 0 of the one-layer tinyLlama, byte for
// byte, under auto-round configs as vLLM's INC method builds them
// (inc/schemes/inc_wna16_linear.py:36-126 at main d18bb7b: AutoGPTQ's or
// AutoAWQ's tensors), against counts made by hand (bf16: 2 bytes a
// weight; norms 256 x 2 = 512 bytes each).
func TestINCLinearLayouts(t *testing.T) {
	with := func(m map[string]uint64, changes map[string]uint64, drop ...string) map[string]uint64 {
		for _, d := range drop {
			for k := range m {
				if strings.HasPrefix(k, d+".") {
					delete(m, k)
				}
			}
		}
		for k, v := range changes {
			m[k] = v
		}
		return m
	}
	tests := []struct {
		name, quant string
		want        map[string]uint64
	}{
		{
			// The default export of a symmetric 4-bit run: AutoGPTQ's
			// tensors on Marlin, act-order off (inc_wna16_linear.py:65-75).
			name:  "auto_gptq 4-bit group 128",
			quant: `{"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq", "bits": 4, "group_size": 128, "sym": true, "data_type": "int", "iters": 200, "autoround_version": "0.12.3"}`,
			want:  gptqInt4(),
		},
		{
			// auto_round:auto_awq, asymmetric: AutoAWQ's tensors
			// (auto_awq.py:439-518): qweight [k, n/8] int32, qzeros
			// [k/128, n/8] int32, scales [k/128, n] bf16. qkv: 256 x 64 x 4,
			// 2 x 64 x 4, 2 x 512 x 2; o: 256 x 32 x 4, 2 x 32 x 4, 2 x 256
			// x 2; gate_up: 256 x 128 x 4, 2 x 128 x 4, 2 x 1024 x 2; down:
			// 512 x 32 x 4, 4 x 32 x 4, 4 x 256 x 2.
			name:  "auto_awq 4-bit asymmetric",
			quant: `{"quant_method": "auto-round", "packing_format": "auto_round:auto_awq", "bits": 4, "group_size": 128, "sym": false, "data_type": "int"}`,
			want: map[string]uint64{
				"self_attn.qkv_proj.qweight": 256 * 64 * 4, "self_attn.qkv_proj.qzeros": 2 * 64 * 4, "self_attn.qkv_proj.scales": 2 * 512 * 2,
				"self_attn.o_proj.qweight": 256 * 32 * 4, "self_attn.o_proj.qzeros": 2 * 32 * 4, "self_attn.o_proj.scales": 2 * 256 * 2,
				"mlp.gate_up_proj.qweight": 256 * 128 * 4, "mlp.gate_up_proj.qzeros": 2 * 128 * 4, "mlp.gate_up_proj.scales": 2 * 1024 * 2,
				"mlp.down_proj.qweight": 512 * 32 * 4, "mlp.down_proj.qzeros": 4 * 32 * 4, "mlp.down_proj.scales": 4 * 256 * 2,
				"input_layernorm.weight": 512, "post_attention_layernorm.weight": 512,
			},
		},
		{
			// extra_config: q, k and v named at 16 bits leave the fused
			// qkv_proj bf16 (config_parser.py:174-194): 256 x 512 x 2. The
			// short key mlp.down_proj matches by suffix
			// (config_parser.py:145-151) and makes down_proj 8-bit, group
			// 64: qweight [512 x 8 / 32, 256] = 128 x 256 int32, g_idx 512
			// int32, scales [512/64, 256] = 8 x 256 bf16, qzeros [8, 256 x 8
			// / 32] = 8 x 64 int32.
			name: "extra_config by name and by suffix",
			quant: `{"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq", "bits": 4, "group_size": 128, "sym": true, "data_type": "int",
 "extra_config": {"model.layers.0.self_attn.q_proj": {"bits": 16, "data_type": "float"}, "model.layers.0.self_attn.k_proj": {"bits": 16, "data_type": "float"},
  "model.layers.0.self_attn.v_proj": {"bits": 16, "data_type": "float"}, "mlp.down_proj": {"bits": 8, "group_size": 64}}}`,
			want: with(gptqInt4(), map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 512 * 2,
				"mlp.down_proj.qweight":     128 * 256 * 4, "mlp.down_proj.g_idx": 512 * 4, "mlp.down_proj.scales": 8 * 256 * 2, "mlp.down_proj.qzeros": 8 * 64 * 4,
			}, "self_attn.qkv_proj", "mlp.down_proj"),
		},
		{
			// block_name_to_quantize names layer 1 only, so layer 0 is
			// outside it and stays bf16 (config_parser.py:153-158): qkv
			// 256 x 512 x 2, gate_up 256 x 1024 x 2, down 512 x 256 x 2.
			// The regex key sets 4 bits for o_proj; outside the blocks its
			// group defaults to -1 (config_parser.py:113-132): one scale
			// per output channel, qweight 32 x 256 x 4, g_idx 256 x 4,
			// scales 1 x 256 x 2, qzeros 1 x 32 x 4.
			name: "outside block_name_to_quantize, a regex brings one back",
			quant: `{"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq", "bits": 4, "group_size": 128, "sym": true, "data_type": "int",
 "block_name_to_quantize": "model.layers.1", "extra_config": {".*o_proj$": {"bits": 4}}}`,
			want: map[string]uint64{
				"self_attn.qkv_proj.weight": 256 * 512 * 2,
				"self_attn.o_proj.qweight":  32 * 256 * 4, "self_attn.o_proj.g_idx": 256 * 4, "self_attn.o_proj.scales": 1 * 256 * 2, "self_attn.o_proj.qzeros": 1 * 32 * 4,
				"mlp.gate_up_proj.weight": 256 * 1024 * 2, "mlp.down_proj.weight": 512 * 256 * 2,
				"input_layernorm.weight": 512, "post_attention_layernorm.weight": 512,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := parseWith(t, tinyLlama, tt.quant)
			got := layerItems(t, a, Whole(a, 1, 2, a.Quant), "model.layers.0.")
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want by hand +got):\n%s", diff)
			}
		})
	}
}

// TestINCHead: INC leaves the LM head unquantized unless extra_config
// gives it fewer than 16 bits or block_name_to_quantize names a prefix of
// it (config_parser.py:153-158, inc/inc.py:219-227).
// Head 1024 (1000 padded to 64) x 256; at 4 bits, group 128: qweight
// [256/8, 1024] int32, g_idx 256 int32, scales [2, 1024] bf16, qzeros [2,
// 1024/8] int32.
func TestINCHead(t *testing.T) {
	base := `{"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq", "bits": 4, "group_size": 128, "sym": true, "data_type": "int"`
	tests := []struct {
		name, quant string
		want        map[string]uint64
	}{
		{"default", base + `}`, map[string]uint64{"weight": 1024 * 256 * 2}},
		{"listed at 16 bits", base + `, "extra_config": {"lm_head": {"bits": 16, "data_type": "float"}}}`, map[string]uint64{"weight": 1024 * 256 * 2}},
		{"listed at 4 bits", base + `, "extra_config": {"lm_head": {"bits": 4, "group_size": 128, "sym": true}}}`,
			map[string]uint64{"qweight": 32 * 1024 * 4, "g_idx": 256 * 4, "scales": 2 * 1024 * 2, "qzeros": 2 * 128 * 4}},
		// An empty block list restricts nothing (INC tests its truth,
		// config_parser.py:154): the head stays out.
		{"empty block list", base + `, "block_name_to_quantize": []}`, map[string]uint64{"weight": 1024 * 256 * 2}},
		// An empty string splits into one empty name, a prefix of every
		// layer, the head's too (inc/inc.py:98-102).
		{"empty block name", base + `, "block_name_to_quantize": ""}`,
			map[string]uint64{"qweight": 32 * 1024 * 4, "g_idx": 256 * 4, "scales": 2 * 1024 * 2, "qzeros": 2 * 128 * 4}},
	}
	for _, tt := range tests {
		a := parseWith(t, tinyLlama, tt.quant)
		if diff := cmp.Diff(tt.want, layerItems(t, a, Whole(a, 1, 2, a.Quant), "lm_head.")); diff != "" {
			t.Errorf("%s (-want by hand +got):\n%s", tt.name, diff)
		}
	}
}

// TestINCWholeModel sums every tensor of the one-layer tinyLlama under the
// default auto_gptq export at TP 1: the embedding and the head 1024 x 256
// x 2 = 524288 each (1000 rows padded to 64), the final norm 512, the
// rotary cos/sin cache 128 positions x 64 x 2 = 16384, and layer 0: qkv
// 65536 + 1024 + 2048 + 512 = 69120, o 32768 + 1024 + 1024 + 256 = 35072,
// gate_up 131072 + 1024 + 4096 + 1024 = 137216, down 65536 + 2048 + 2048 +
// 512 = 70144, norms 1024: 312576. In all 524288 x 2 + 512 + 16384 +
// 312576 = 1378048.
func TestINCWholeModel(t *testing.T) {
	a := parseWith(t, tinyLlama, `{"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq", "bits": 4, "group_size": 128, "sym": true, "data_type": "int"}`)
	var total uint64
	for _, it := range Weights(a, Whole(a, 1, 2, a.Quant)) {
		total += it.Bytes
	}
	if total != 1378048 {
		t.Errorf("total %d bytes, want 1378048 by hand", total)
	}
	if a.Quant.Method != "inc" || a.Quant.Bits != 4 || a.Quant.GroupSize != 128 {
		t.Errorf("Quant = %+v, want inc, 4 bits, group 128", a.Quant)
	}
}

// qwen35AutoRound is Qwen3.5-27B's config with an auto-round
// quantization_config shaped like AutoRound's Qwen3.5 exports (4 bits,
// group 128, symmetric, auto_gptq packing; extra_config lists the head,
// and in_proj_a and in_proj_b of every delta-net layer (layers not
// 3 mod 4) at 16 bits, as the Qwen3.6-27B int4 AutoRound model cards say
// they keep them; the vision tower at 16 bits by a regex, which vLLM
// matches against its own module names: the mapper renames keys by prefix,
// which a regex key does not begin with, so `model\.visual\..*` would
// miss vLLM's visual.blocks...).
func qwen35AutoRound(t *testing.T) *Arch {
	t.Helper()
	raw, err := os.ReadFile("../corpus/models/Qwen__Qwen3.5-27B.json")
	if err != nil {
		t.Fatal(err)
	}
	entries := []string{`"lm_head": {"bits": 16, "data_type": "float"}`, `".*visual\\..*": {"bits": 16, "data_type": "float"}`}
	for i := range 64 {
		if i%4 != 3 {
			for _, p := range []string{"a", "b"} {
				entries = append(entries, fmt.Sprintf(`"model.language_model.layers.%d.linear_attn.in_proj_%s": {"bits": 16, "data_type": "float"}`, i, p))
			}
		}
	}
	q := `"quantization_config": {"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq", "bits": 4, "group_size": 128, "sym": true,
 "data_type": "int", "iters": 200, "autoround_version": "0.12.3", "extra_config": {` + strings.Join(entries, ", ") + `}}, `
	doc := strings.Replace(string(raw), `"architectures"`, q+`"architectures"`, 1)
	a, err := ParseConfig("qwen35-autoround.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestINCQwen35 checks a delta-net layer of Qwen3.5-27B at TP 2 (hidden
// 5120; 16 key heads and 48 value heads of 128): in_proj_qkvz has 2 x 16
// x 128 + 2 x 48 x 128 = 16384 outputs, 8192 a rank, 4-bit group 128:
// qweight [5120/8, 8192] int32, g_idx 5120 int32, scales [40, 8192] bf16,
// qzeros [40, 1024] int32. in_proj_ba (b and a at 16 bits) is bf16 and
// whole on every rank under INC on CUDA (qwen_gdn_linear_attn.py:543-559):
// 5120 x 96 x 2. out_proj is row-parallel, 6144/2 = 3072 inputs, 5120
// outputs: qweight [384, 5120], g_idx 3072, scales [24, 5120], qzeros [24,
// 640]. The vision tower's qkv stays bf16 by the regex key (1152 in,
// 3 x 1152 / 2 = 1728 out, biased).
func TestINCQwen35(t *testing.T) {
	a := qwen35AutoRound(t)
	got := map[string]uint64{}
	for _, it := range Weights(a, Whole(a, 2, 2, a.Quant)) {
		for _, p := range []string{"model.layers.0.linear_attn.in_proj_", "model.layers.0.linear_attn.out_proj", "visual.blocks.0.attn.qkv"} {
			if strings.HasPrefix(it.Name, p) {
				got[it.Name] = it.Bytes
			}
		}
	}
	want := map[string]uint64{
		"model.layers.0.linear_attn.in_proj_qkvz.qweight": 640 * 8192 * 4, "model.layers.0.linear_attn.in_proj_qkvz.g_idx": 5120 * 4,
		"model.layers.0.linear_attn.in_proj_qkvz.scales": 40 * 8192 * 2, "model.layers.0.linear_attn.in_proj_qkvz.qzeros": 40 * 1024 * 4,
		"model.layers.0.linear_attn.in_proj_ba.weight": 5120 * 96 * 2,
		"model.layers.0.linear_attn.out_proj.qweight":  384 * 5120 * 4, "model.layers.0.linear_attn.out_proj.g_idx": 3072 * 4,
		"model.layers.0.linear_attn.out_proj.scales": 24 * 5120 * 2, "model.layers.0.linear_attn.out_proj.qzeros": 24 * 640 * 4,
		"visual.blocks.0.attn.qkv.weight": 1152 * 1728 * 2, "visual.blocks.0.attn.qkv.bias": 1728 * 2,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want by hand +got):\n%s", diff)
	}
	q := a.Quant.compiled(a)
	if f := q.schemeFor("lm_head", headMod).Format; f != Unquantized {
		t.Errorf("lm_head format %v, want unquantized", f)
	}
}

// TestINCRefusals: what INC refuses, or membudget does not model, is
// refused by name with the key it lies in.
func TestINCRefusals(t *testing.T) {
	base := func(extra string) string {
		return `{"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": true` + extra + `}`
	}
	tests := []struct {
		name, doc, quant, key string
	}{
		{"mx_fp data", tinyLlama, base(`, "data_type": "mx_fp", "packing_format": "auto_round:llm_compressor"`), "quantization_config.data_type"},
		{"llm_compressor packing with int", tinyLlama, base(`, "packing_format": "auto_round:llm_compressor"`), "quantization_config.packing_format"},
		// An asymmetric export keeps AutoRound's own packing ("auto_round",
		// export.py: only a symmetric one becomes auto_round:auto_gptq).
		{"auto_round's own packing", tinyLlama, base(`, "packing_format": "auto_round"`), "quantization_config.packing_format"},
		{"asymmetric gptq", tinyLlama, `{"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": false}`, "quantization_config.sym"},
		{"3-bit gptq", tinyLlama, `{"quant_method": "auto-round", "bits": 3, "group_size": 128, "sym": true}`, "quantization_config.bits"},
		{"group 256 off Marlin", tinyLlama, `{"quant_method": "auto-round", "bits": 4, "group_size": 256, "sym": true}`, "quantization_config.group_size"},
		{"gptq backend without marlin", tinyLlama, base(`, "backend": "gptq"`), "quantization_config.backend"},
		{"gptq backend on awq tensors", tinyLlama, base(`, "packing_format": "auto_round:auto_awq", "backend": "gptq:marlin"`), "quantization_config.backend"},
		{"unknown backend", tinyLlama, base(`, "vllm_backend": "exllamav2"`), "quantization_config.vllm_backend"},
		{"missing sym", tinyLlama, `{"quant_method": "auto-round", "bits": 4, "group_size": 128}`, "quantization_config.sym"},
		{"fused shards apart", tinyLlama, base(`, "extra_config": {"model.layers.0.self_attn.q_proj": {"bits": 16}}`), "quantization_config.extra_config.model.layers.0.self_attn.q_proj"},
		// q_proj 8-bit by a regular expression, k_proj and v_proj the
		// default 4: INC raises for the fused qkv_proj.
		{"fused shards apart by a regex", tinyLlama, base(`, "extra_config": {".*q_proj$": {"bits": 8}}`), "quantization_config.extra_config"},
		{"extra entry off Marlin", tinyLlama, base(`, "extra_config": {"model.layers.0.mlp.down_proj": {"group_size": 256}}`), "quantization_config.extra_config.model.layers.0.mlp.down_proj"},
		{"regex Go does not read", tinyLlama, base(`, "extra_config": {".*(?<!mlp)\\.down_proj": {"bits": 16}}`), `quantization_config.extra_config..*(?<!mlp)\.down_proj`},
		{"dynamic", tinyLlama, base(`, "dynamic": {"-:.*down_proj.*": {}}`), "quantization_config.dynamic"},
		{"MoE experts", tinyMoE, base(``), "quantization_config.quant_method"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("tiny.json", []byte(strings.Replace(tt.doc, "QUANT", tt.quant, 1)))
			if err == nil {
				t.Fatal("parsed, want a refusal")
			}
			if !strings.Contains(err.Error(), tt.key+":") {
				t.Errorf("error %q does not name %s", err, tt.key)
			}
		})
	}
}

// TestINCFusedRefusalNamesTheSetting: q_proj given group 64 under a
// 4-bit, group-128 default sets the fused qkv_proj's shards apart by their
// group alone (q: 4 bits, group 64; k and v: the defaults, 4 bits, group
// 128; sym true at all three); the refusal names the group, which a
// message of bits alone ("4 bits and 4 bits") did not.
func TestINCFusedRefusalNamesTheSetting(t *testing.T) {
	quant := `{"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": true, "extra_config": {"model.layers.0.self_attn.q_proj": {"group_size": 64}}}`
	_, err := ParseConfig("tiny.json", []byte(strings.Replace(tinyLlama, "QUANT", quant, 1)))
	want := "(4 bits, group 64, sym true and 4 bits, group 128, sym true)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to hold %q", err, want)
	}
}

// TestINCRegexFusedAlike: a regular expression that gives every shard of
// the fused modules the same settings (".*_proj$" at 8 bits: q, k, v,
// gate, up, down and o alike) is read, and the fused qkv_proj is 8-bit:
// AutoGPTQ's qweight [256 x 8 / 32, 512] = 64 x 512 int32 = 131072 B. The
// refusal of shards set apart (TestINCRefusals) names the module and
// both settings.
func TestINCRegexFusedAlike(t *testing.T) {
	a := parseWith(t, tinyLlama, `{"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": true, "extra_config": {".*_proj$": {"bits": 8}}}`)
	if got := layerItems(t, a, Whole(a, 1, 2, a.Quant), "model.layers.0.")["self_attn.qkv_proj.qweight"]; got != 64*512*4 {
		t.Errorf("qkv_proj.qweight %d B, want 64 x 512 x 4 = 131072", got)
	}
	_, err := ParseConfig("tiny.json", []byte(strings.Replace(tinyLlama, "QUANT", `{"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": true, "extra_config": {".*q_proj$": {"bits": 8}}}`, 1)))
	want := "model.layers.0.self_attn.qkv_proj (model.layers.0.self_attn.q_proj: 8 bits, group 128, sym true; model.layers.0.self_attn.k_proj: 4 bits, group 128, sym true)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want it to hold %q", err, want)
	}
}

// TestINCConstants pins the values read from vLLM main d18bb7b:
// INCConfig.SUPPORTED_BITS (inc/inc.py:37), MARLIN_SUPPORTED_GROUP_SIZES
// (utils/marlin_utils.py:36) and the characters that make an extra_config
// key a regex (inc/config_parser.py:73).
func TestINCConstants(t *testing.T) {
	if diff := cmp.Diff([]uint64{2, 3, 4, 8}, incSupportedBits); diff != "" {
		t.Errorf("incSupportedBits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{-1, 32, 64, 128}, incMarlinGroups); diff != "" {
		t.Errorf("incMarlinGroups (-want +got):\n%s", diff)
	}
	if incSpecialChars != `*+?^$()[]{}|\` {
		t.Errorf("incSpecialChars = %q", incSpecialChars)
	}
	if QuantMethods["auto-round"] != "inc" {
		t.Errorf(`QuantMethods["auto-round"] = %q, want inc`, QuantMethods["auto-round"])
	}
}

// TestINCBitsMonotone: with extra_config setting each of tinyLlama's
// modules (q, k and v together, o, gate and up together, down) to 4, 8 or
// 16 bits, widening one module never makes the weights smaller, and no
// assignment weighs more than the unquantized model (a 4- or 8-bit
// layer's packed words, scales, zeros and g_idx stay below its bf16
// weight at these group sizes).
func TestINCBitsMonotone(t *testing.T) {
	plain := parseWith(t, strings.Replace(tinyLlama, `, "quantization_config": QUANT`, "", 1), "")
	var bf16 uint64
	for _, it := range Weights(plain, Whole(plain, 1, 2, plain.Quant)) {
		bf16 += it.Bytes
	}
	groups := [][]string{{"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"}, {"self_attn.o_proj"}, {"mlp.gate_proj", "mlp.up_proj"}, {"mlp.down_proj"}}
	total := func(t *rapid.T, bits []uint64, group uint64) uint64 {
		var entries []string
		for i, g := range groups {
			for _, m := range g {
				entries = append(entries, fmt.Sprintf(`"model.layers.0.%s": {"bits": %d}`, m, bits[i]))
			}
		}
		q := fmt.Sprintf(`{"quant_method": "auto-round", "packing_format": "auto_round:auto_gptq", "bits": 4, "group_size": %d, "sym": true, "extra_config": {%s}}`, group, strings.Join(entries, ", "))
		a, err := ParseConfig("tiny.json", []byte(strings.Replace(tinyLlama, "QUANT", q, 1)))
		if err != nil {
			t.Fatal(err)
		}
		var sum uint64
		for _, it := range Weights(a, Whole(a, 1, 2, a.Quant)) {
			sum += it.Bytes
		}
		return sum
	}
	rapid.Check(t, func(t *rapid.T) {
		widths := []uint64{4, 8, 16}
		bits := make([]uint64, len(groups))
		for i := range bits {
			bits[i] = rapid.SampledFrom(widths).Draw(t, fmt.Sprintf("bits%d", i))
		}
		group := rapid.SampledFrom([]uint64{32, 64, 128}).Draw(t, "group")
		before := total(t, bits, group)
		if before > bf16 {
			t.Fatalf("bits %v group %d: %d bytes, above the unquantized %d", bits, group, before, bf16)
		}
		i := rapid.IntRange(0, len(groups)-1).Draw(t, "widen")
		if bits[i] == 16 {
			return
		}
		wider := slices.Clone(bits)
		wider[i] *= 2
		if after := total(t, wider, group); after < before {
			t.Fatalf("widening %v from %d to %d bits: %d bytes, below %d", groups[i], bits[i], wider[i], after, before)
		}
	})
}
