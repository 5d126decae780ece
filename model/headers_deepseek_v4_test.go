package model

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model/safetensors"
)

// headerBytes is what a header tensor's data holds: its elements times
// its dtype's width.
func headerBytes(t safetensors.Tensor) uint64 {
	bits, ok := safetensors.DtypeBits(t.Dtype)
	if !ok {
		panic("fixture dtype " + t.Dtype)
	}
	n := bits
	for _, d := range t.Shape {
		n *= d
	}
	return n / 8
}

// headerTotal sums a fixture's tensors as headerBytes counts them: the
// total_size a checkpoint's model.safetensors.index.json publishes.
func headerTotal(ts []safetensors.Tensor) uint64 {
	var n uint64
	for _, t := range ts {
		n += headerBytes(t)
	}
	return n
}

// checkHeaderNames fails when a fixture names a tensor twice or holds
// other than want tensors.
func checkHeaderNames(t *testing.T, ts []safetensors.Tensor, want int) {
	t.Helper()
	seen := map[string]bool{}
	for _, x := range ts {
		if seen[x.Name] {
			t.Errorf("tensor %s twice", x.Name)
		}
		seen[x.Name] = true
	}
	if len(ts) != want {
		t.Errorf("%d tensors, want %d", len(ts), want)
	}
}

// checkConfigOnlyHeader checks what `--model <dir>` reads of a family
// registered without checkpoint rules when the directory holds the
// fixture's headers: the checkpoint is refused by name
// (ErrNoCheckpointRules, so model/hub warns "weights derived from
// config.json") and every rank's weights are the config's.
func checkConfigOnlyHeader(t *testing.T, fixture func() (string, []safetensors.Tensor)) *Arch {
	t.Helper()
	config, ts := fixture()
	a, err := ParseConfig("config.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AttachCheckpoint(a, &Checkpoint{Name: "fixture", Tensors: ts}); !errors.Is(err, ErrNoCheckpointRules) {
		t.Errorf("AttachCheckpoint: %v, want %v", err, ErrNoCheckpointRules)
	}
	sh := Whole(a, 1, 2, a.Quant)
	if diff := cmp.Diff(Weights(a, sh), RankWeights(a, sh)); diff != "" {
		t.Errorf("RankWeights is not the config's (-config +rank):\n%s", diff)
	}
	return a
}

// checkLoadedHeader checks the fixture's checkpoint as vLLM loads it
// against the family's weights from config, at one rank, name by name: each
// tensor's bytes go to the parameter loaded maps it to (ok false for what
// vLLM skips), beside buffers, what vLLM holds that no checkpoint does.
func checkLoadedHeader(t *testing.T, fixture func() (string, []safetensors.Tensor), loaded func(safetensors.Tensor) (string, uint64, bool), buffers map[string]uint64) {
	t.Helper()
	a := checkConfigOnlyHeader(t, fixture)
	_, ts := fixture()
	got := maps.Clone(buffers)
	for _, x := range ts {
		if item, n, ok := loaded(x); ok {
			got[item] += n
		}
	}
	want := map[string]uint64{}
	for _, it := range Weights(a, Whole(a, 1, 2, a.Quant)) {
		want[it.Name] += it.Bytes
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-config +checkpoint as vLLM loads it):\n%s", diff)
	}
}

// deepSeekV4FlashHeader is deepseek-ai/DeepSeek-V4-Flash's checkpoint as
// its published model.safetensors.index.json lists it, 69,187 tensors: the
// names as alibaba/rtp-llm's independent inventory oracle
// (rtp_llm/model_loader/test/dsv4_checkpoint_inventory.py, index file id
// 66622090063) derives them from the config and checks them one to one
// against the published weight_map, with the routed experts' dtypes and
// shapes it checks in every header (_validate_routed_fp4: I8 [I, H/2] and
// F8_E8M0 [I, H/32] for w1 and w3, [H, I/2] and [H, I/32] for w2) and the
// FP8 linears' (validate_quantized_headers: F8_E4M3 weights, F8_E8M0
// scales); the other shapes from the config as vLLM's deepseek_v4
// model.py, attention.py and compressor.py build them, the dtypes those
// the index's total_size leaves (TestDeepSeekV4FlashHeader). The config is
// corpus/models' rebuilt Flash file.
func deepSeekV4FlashHeader() (string, []safetensors.Tensor) {
	data, err := os.ReadFile("../corpus/models/deepseek-ai__DeepSeek-V4-Flash.json")
	if err != nil {
		panic(err)
	}
	const (
		H, V, E, I, QL, HD, NH, OG, OL, HC = 4096, 129280, 256, 2048, 1024, 512, 64, 8, 1024, 4
		IH, ID, topK                       = 64, 128, 6
		mix                                = (2 + HC) * HC
	)
	// An FP8 linear [out, in] and its E8M0 scale a 128 x 128 block.
	fp8 := func(m string, out, in uint64) []safetensors.Tensor {
		return []safetensors.Tensor{typed("F8_E4M3", m+".weight", out, in), typed("F8_E8M0", m+".scale", (out+127)/128, (in+127)/128)}
	}
	f32 := func(name string, shape ...uint64) safetensors.Tensor { return typed("F32", name, shape...) }
	// compressor of ratio r over heads of d: kv and gate [coff x d, H]
	// (coff 2 at ratio 4, overlapping windows), the norm, the absolute
	// position bias [r, coff x d] (compressor.py).
	compressor := func(p string, r, d uint64) []safetensors.Tensor {
		coff := uint64(1)
		if r == 4 {
			coff = 2
		}
		return []safetensors.Tensor{bf16(p+"wkv.weight", coff*d, H), bf16(p+"wgate.weight", coff*d, H), bf16(p+"norm.weight", d), f32(p+"ape", r, coff*d)}
	}
	layer := func(p string, ratio uint64, hash bool) []safetensors.Tensor {
		ts := []safetensors.Tensor{bf16(p+"attn_norm.weight", H), bf16(p+"attn.q_norm.weight", QL), bf16(p+"attn.kv_norm.weight", HD), f32(p+"attn.attn_sink", NH)}
		ts = append(ts, fp8(p+"attn.wq_a", QL, H)...)
		ts = append(ts, fp8(p+"attn.wq_b", NH*HD, QL)...)
		ts = append(ts, fp8(p+"attn.wkv", HD, H)...)
		ts = append(ts, fp8(p+"attn.wo_a", OG*OL, NH*HD/OG)...)
		ts = append(ts, fp8(p+"attn.wo_b", H, OG*OL)...)
		if ratio != 0 {
			ts = append(ts, compressor(p+"attn.compressor.", ratio, HD)...)
		}
		if ratio == 4 {
			ts = append(ts, fp8(p+"attn.indexer.wq_b", IH*ID, QL)...)
			ts = append(ts, bf16(p+"attn.indexer.weights_proj.weight", IH, H))
			ts = append(ts, compressor(p+"attn.indexer.compressor.", 4, ID)...)
		}
		for _, b := range []string{"attn", "ffn"} {
			ts = append(ts, f32(p+"hc_"+b+"_base", mix), f32(p+"hc_"+b+"_fn", mix, HC*H), f32(p+"hc_"+b+"_scale", 3))
		}
		ts = append(ts, bf16(p+"ffn_norm.weight", H), bf16(p+"ffn.gate.weight", E, H))
		if hash {
			ts = append(ts, typed("I64", p+"ffn.gate.tid2eid", V, topK))
		} else {
			ts = append(ts, f32(p+"ffn.gate.bias", E))
		}
		ts = append(ts, fp8(p+"ffn.shared_experts.w1", I, H)...)
		ts = append(ts, fp8(p+"ffn.shared_experts.w2", H, I)...)
		ts = append(ts, fp8(p+"ffn.shared_experts.w3", I, H)...)
		for e := range E {
			q := fmt.Sprintf("%sffn.experts.%d.", p, e)
			ts = append(ts,
				typed("I8", q+"w1.weight", I, H/2), typed("F8_E8M0", q+"w1.scale", I, H/32),
				typed("I8", q+"w2.weight", H, I/2), typed("F8_E8M0", q+"w2.scale", H, I/32),
				typed("I8", q+"w3.weight", I, H/2), typed("F8_E8M0", q+"w3.scale", I, H/32))
		}
		return ts
	}
	ts := []safetensors.Tensor{bf16("embed.weight", V, H), bf16("norm.weight", H), bf16("head.weight", V, H),
		f32("hc_head_base", HC), f32("hc_head_fn", HC, HC*H), f32("hc_head_scale", 1)}
	// compress_ratios: layers 0 and 1 uncompressed, then 4 and 128 by
	// turns from layer 2 (4) to layer 42 (4); the first num_hash_layers 3
	// hash-routed.
	for l := range 43 {
		ratio := uint64(0)
		switch {
		case l >= 2 && l%2 == 0:
			ratio = 4
		case l >= 2:
			ratio = 128
		}
		ts = append(ts, layer(fmt.Sprintf("layers.%d.", l), ratio, l < 3)...)
	}
	// The MTP layer: an uncompressed score-routed layer and its own
	// globals.
	ts = append(ts, layer("mtp.0.", 0, false)...)
	ts = append(ts, bf16("mtp.0.norm.weight", H), f32("mtp.0.hc_head_base", HC), f32("mtp.0.hc_head_fn", HC, HC*H), f32("mtp.0.hc_head_scale", 1),
		bf16("mtp.0.enorm.weight", H), bf16("mtp.0.hnorm.weight", H))
	ts = append(ts, fp8("mtp.0.e_proj", H, H)...)
	ts = append(ts, fp8("mtp.0.h_proj", H, H)...)
	return string(data), ts
}

// dsv4Renames are dsv4Loaded's renames, in order.
var dsv4Renames = func() []struct {
	re *regexp.Regexp
	to string
} {
	var out []struct {
		re *regexp.Regexp
		to string
	}
	for _, r := range [][2]string{
		{`^embed\.weight$`, "model.embed_tokens.weight"},
		{`^head\.weight$`, "lm_head.weight"},
		{`^(norm\.|hc_head)`, "model.$1"},
		{`^layers\.`, "model.layers."},
		{`\.experts\.\d+\.w[13]\.weight$`, ".experts.w13_weight"},
		{`\.experts\.\d+\.w[13]\.scale$`, ".experts.w13_weight_scale"},
		{`\.experts\.\d+\.w2\.weight$`, ".experts.w2_weight"},
		{`\.experts\.\d+\.w2\.scale$`, ".experts.w2_weight_scale"},
		{`\.scale$`, ".weight_scale_inv"},
		{`\.attn\.(wq_a|wkv)\.`, ".attn.fused_wqa_wkv."},
		{`\.compressor\.(wkv|wgate)\.`, ".compressor.fused_wkv_wgate."},
		{`\.shared_experts\.w[13]\.`, ".shared_experts.gate_up_proj."},
		{`\.shared_experts\.w2\.`, ".shared_experts.down_proj."},
		{`\.ffn\.gate\.bias$`, ".ffn.gate.e_score_correction_bias"},
	} {
		out = append(out, struct {
			re *regexp.Regexp
			to string
		}{regexp.MustCompile(r[0]), r[1]})
	}
	return out
}()

// dsv4Loaded maps a DeepSeek-V4 checkpoint tensor to the vLLM parameter
// it loads into (vllm/models/deepseek_v4/nvidia/model.py at jsboige/vllm
// ffd91ee: _make_deepseek_v4_weights_mapper, lines 1382-1415, renames;
// load_weights' stacked_params_mapping, 1217-1224, fuses wq_a with wkv,
// a compressor's wkv with wgate and the shared expert's w1 with w3; the
// routed experts' w1 and w3 stack into w13, w2 into w2), and the bytes it
// holds there in bf16: tid2eid is built int32 (model.py:582-594, int64
// only under mega MoE) from the checkpoint's int64. ok is false for what
// vLLM does not load: the MTP layer (AutoWeightsLoader skip_substrs
// ["mtp."], model.py:1540) without speculative decoding.
func dsv4Loaded(x safetensors.Tensor) (item string, bytes uint64, ok bool) {
	name, bytes := x.Name, headerBytes(x)
	if strings.HasPrefix(name, "mtp.") {
		return "", 0, false
	}
	if strings.HasSuffix(name, ".ffn.gate.tid2eid") {
		bytes /= 2
	}
	for _, r := range dsv4Renames {
		name = r.re.ReplaceAllString(name, r.to)
	}
	return name, bytes, true
}

// TestDeepSeekV4FlashHeader: DeepSeek-V4-Flash's published checkpoint
// listing, 69,187 tensors of which 1,575 are the MTP layer's, sums to its
// index's total_size, 159,609,485,896 B; loaded as vLLM loads it (the MTP
// layer skipped, tid2eid int32, the fused parameters summed) it is the
// family's weights from config parameter by parameter, to the byte, and
// beside them the two YaRN tables no checkpoint holds, each 65,536 x 16
// positions x 64 x 4 B (TestDeepSeekV4WeightsMatchCheckpoint's sum by
// hand). With only these headers beside config.json, deepseek_v4 has no
// checkpoint rules: `--model <dir>` reads the config's weights.
func TestDeepSeekV4FlashHeader(t *testing.T) {
	_, ts := deepSeekV4FlashHeader()
	checkHeaderNames(t, ts, 69187)
	mtp := 0
	for _, x := range ts {
		if strings.HasPrefix(x.Name, "mtp.0.") {
			mtp++
		}
	}
	if mtp != 1575 {
		t.Errorf("%d MTP tensors, the oracle counts 1575", mtp)
	}
	if got := headerTotal(ts); got != 159_609_485_896 {
		t.Errorf("header total %d B, the index's total_size is 159,609,485,896", got)
	}
	const table = 65536 * 16 * 64 * 4
	checkLoadedHeader(t, deepSeekV4FlashHeader, dsv4Loaded, map[string]uint64{
		"rotary_emb.rotary_emb.cos_sin_cache":          table,
		"rotary_emb.rotary_emb_compress.cos_sin_cache": table,
	})
}
