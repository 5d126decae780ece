package vllm

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model/hub"
)

// gptOssDraftConfig is SpecForge's EAGLE-3 draft config for gpt-oss-20b
// (corpus/models/drafts/SOURCES.md): LlamaForCausalLMEagle3 typed gpt_oss,
// auxiliary layers [1, 11, 21] in eagle_config.
const gptOssDraftConfig = "../../corpus/models/drafts/sgl-project__SpecForge__gpt-oss-20B-eagle3-dense.json"

// qwen25VLDraftConfig is SpecForge's EAGLE-3 draft config for
// Qwen2.5-VL-7B (llama-typed, M-RoPE rope_scaling).
const qwen25VLDraftConfig = "../../corpus/models/drafts/sgl-project__SpecForge__qwen2-5-vl-7B-eagle3.json"

// gptOssCheckpoint is the tensors of that draft as SpecForge saves an
// EAGLE-3 draft (see eagle3Checkpoint): hidden 2880, 64 heads and 8 KV
// heads of 64, intermediate 17280, draft vocabulary 32000 of 201088; no
// embed_tokens (the target's model.embedding is shared) and no biases
// (vLLM builds GptOssConfig's attention biases all the same).
var gptOssCheckpoint = []draftTensor{
	{"d2t", "I64", []uint64{32000}},
	{"fc.weight", "BF16", []uint64{2880, 8640}},
	{"lm_head.weight", "BF16", []uint64{32000, 2880}},
	{"midlayer.hidden_norm.weight", "BF16", []uint64{2880}},
	{"midlayer.input_layernorm.weight", "BF16", []uint64{2880}},
	{"midlayer.mlp.down_proj.weight", "BF16", []uint64{2880, 17280}},
	{"midlayer.mlp.gate_proj.weight", "BF16", []uint64{17280, 2880}},
	{"midlayer.mlp.up_proj.weight", "BF16", []uint64{17280, 2880}},
	{"midlayer.post_attention_layernorm.weight", "BF16", []uint64{2880}},
	{"midlayer.self_attn.k_proj.weight", "BF16", []uint64{512, 5760}},
	{"midlayer.self_attn.o_proj.weight", "BF16", []uint64{2880, 4096}},
	{"midlayer.self_attn.q_proj.weight", "BF16", []uint64{4096, 5760}},
	{"midlayer.self_attn.v_proj.weight", "BF16", []uint64{512, 5760}},
	{"norm.weight", "BF16", []uint64{2880}},
	{"t2d", "BOOL", []uint64{201088}},
}

// gptOssLlamaDraft is the same draft typed llama (LlamaConfig's defaults:
// no attention bias, every layer full attention), by hand, with the
// default auxiliary layers: no public config of such a gpt-oss draft is
// stored in the search index.
const gptOssLlamaDraft = `{"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "head_dim": 64, "hidden_size": 2880, "intermediate_size": 17280, "num_attention_heads": 64, "num_key_value_heads": 8, "num_hidden_layers": 1, "vocab_size": 201088, "draft_vocab_size": 32000}`

// TestReadGptOssDraft: the SpecForge gpt-oss draft as vLLM builds it:
// GptOssConfig's defaults give attention_bias true (qkv and o_proj
// biases) and layer_types ["sliding_attention"] for its one layer at
// sliding_window 128; fc 3 x 2880 (eagle_config's three layer ids);
// its own LM head of 32000 rows, the target's embedding.
func TestReadGptOssDraft(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-20b"]
	dir := writeDraftDir(t, gptOssDraftConfig, gptOssCheckpoint)
	got, err := readDraft(dir, "eagle3", a)
	if err != nil {
		t.Fatal(err)
	}
	want := Draft{Method: "eagle3", Path: dir, Hidden: 2880, Heads: 64, KVHeads: 8, HeadDim: 64, Intermediate: 17280, Layers: 1,
		Vocab: 201088, DraftVocab: 32000, FCInput: 8640, Windows: []uint64{128}, RotaryRows: 131072, RotaryDim: 64, AttentionBias: true, OBias: true, OwnHead: true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("draft (-want +got):\n%s", diff)
	}
	llama, err := readDraft(writeDraftDir(t, gptOssLlamaDraft, gptOssCheckpoint), "eagle3", a)
	if err != nil {
		t.Fatal(err)
	}
	if llama.Windows != nil || llama.AttentionBias || llama.OBias {
		t.Errorf("llama-typed: windows %v, biases %v %v; want full attention, no bias", llama.Windows, llama.AttentionBias, llama.OBias)
	}
}

// TestGptOssDraftWeightsByHand: the gpt-oss draft's tensors at TP 1 in
// bf16 (gpt-oss's dtype), H = 2880:
//
//	qkv_proj 2H = 5760 x (64 + 2 x 8) x 64 = 5760 x 5120 x 2 = 58982400
//	qkv bias 5120 x 2                                        =    10240
//	o_proj 4096 x 2880 x 2                                   = 23592960
//	o bias 2880 x 2                                          =     5760
//	gate_up 2 x 17280 x 2880 x 2                             = 199065600
//	down 17280 x 2880 x 2                                    = 99532800
//	three norms 3 x 2880 x 2                                 =    17280
//	fc 8640 x 2880 x 2                                       = 49766400
//	final norm                                               =     5760
//	lm_head 32000 rows (500 x 64) x 2880 x 2                 = 184320000
//	d2t 32000 x 8                                            =   256000
//	rotary table (GptOssConfig's YaRN) 4096 x 32 x 64 x 2    = 16777216
//
// 632,332,416 B; llama-typed, without the two biases and GptOssConfig's
// table, 615,539,200 B, and its own table as LlamaConfig gives it
// (max_position_embeddings left out: 2048 rows of its head_dim 64, bf16;
// gpt-oss's own table is float32, so get_rope's key differs) 2048 x 64 x 2
// = 262,144 B: 615,801,344 B.
// The V1 proposer's buffers at T = 8192, B = 256: input_ids 32768,
// positions 65536, hidden_states and inputs_embeds 8192 x 2880 x 2 =
// 47185920 each, arange 32768, slot mapping 65536, backup ids 1024:
// 94,568,448 B.
func TestGptOssDraftWeightsByHand(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-20b"]
	for _, tc := range []struct {
		name, config string
		want         uint64
	}{{"SpecForge", gptOssDraftConfig, 632332416}, {"llama-typed", gptOssLlamaDraft, 615539200 + 2048*64*2}} {
		if n := draftBytesTP1(t, a, "eagle3", tc.config, gptOssCheckpoint); n != tc.want {
			t.Errorf("%s: %d B, want %d", tc.name, n, tc.want)
		}
	}
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(writeDraftDir(t, gptOssDraftConfig, gptOssCheckpoint))}
	_, items := draftItems(t, a, s)
	if diff := cmp.Diff(map[string]uint64{"draft_weights": 632332416, "draft_buffers": 32768 + 65536 + 2*47185920 + 32768 + 65536 + 1024}, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
}

// TestGptOssDraftKV: gpt-oss-20b's 24 layers alternate sliding (window
// 128) and full attention, 8 KV heads of 64 each (a page of block x 2 x 8
// x 64 x 2 B = 16 x 2048 = 32768 B at the 16-token block of 0.21.0, where
// sliding layers keep the serve's block). The SpecForge draft's layer is
// sliding (GptOssConfig's layer_types): 13 sliding against 12 full, 13 <
// 1.5 x 12, so the groups are 13 slots each (the full group padded by
// one), and vLLM allocates one tensor a slot, shared by the groups'
// layers at that slot (get_kv_cache_config_from_groups, kv_cache_utils.py:
// 1327-1409): 13 tensors of 32768 B. A llama-typed draft's full layer
// makes it 12 sliding against 13 full: the same two groups of 13, the
// sliding one padded. gpt-oss-120b's 36 layers with the llama-typed draft:
// 18 sliding padded to 19 and 19 full, 19 tensors.
func TestGptOssDraftKV(t *testing.T) {
	models := shipped(t)
	for _, tc := range []struct {
		name, model, config string
		want                kvShape
		draftKind           specKind
	}{
		{"20b SpecForge", "openai__gpt-oss-20b", gptOssDraftConfig, kvShape{2, 13, false, 32768, 13}, slidingSpec},
		{"20b llama-typed", "openai__gpt-oss-20b", gptOssLlamaDraft, kvShape{2, 13, false, 32768, 13}, fullSpec},
		{"120b llama-typed", "openai__gpt-oss-120b", gptOssLlamaDraft, kvShape{2, 19, false, 32768, 19}, fullSpec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := models[tc.model]
			s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(writeDraftDir(t, tc.config, gptOssCheckpoint))}
			if diff := cmp.Diff(tc.want, kvShapeOf(t, a, s)); diff != "" {
				t.Errorf("layout (-want +got):\n%s", diff)
			}
			r, err := Resolve(s, a, bigClass, v1Llama)
			if err != nil {
				t.Fatal(err)
			}
			layout, err := kvLayoutOf(layerSpecs(a, &r), r.Profile.KVGroupRatio)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, g := range layout.groups {
				for _, l := range g.layers {
					if l.draft {
						found = true
						if g.spec.kind != tc.draftKind || l.layer != len(a.Layers) {
							t.Errorf("the draft's layer %d is in a %s group, want layer %d in a %s one", l.layer, g.spec.kind.name(), len(a.Layers), tc.draftKind.name())
						}
					}
				}
			}
			if !found {
				t.Error("no draft layer in the groups")
			}
			sz, err := Size(&hub.Loaded{Name: tc.model, Arch: a}, bigClass, s, v1Llama)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := sz.draftKVBytes(), sz.Capacity().Blocks*32768; got != want || got == 0 {
				t.Errorf("draft KV %d B, want %d (blocks x 32768)", got, want)
			}
		})
	}
}

// TestGptOssDraftProfiles: the gpt-oss draft is sized on the V1 runner
// from 0.14.0 and, eager, on the V2 runner's speculator where vLLM runs
// gpt-oss there (main, 0.28.0).
func TestGptOssDraftProfiles(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-120b"]
	dir := writeDraftDir(t, gptOssLlamaDraft, gptOssCheckpoint)
	for _, v := range []string{"0.14.0", "0.21.0", "0.28.0", "main"} {
		p := mustProfile(v)
		s := Serve{MaxModelLen: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}
		if _, err := Resolve(s, a, bigClass, p); err != nil {
			t.Errorf("%s: %v, want it sized", v, err)
		}
	}
}

// TestDraftEmptyLayerTypes: a llama-typed draft's empty layer_types is no
// list to vLLM (llama.py:184 tests its truth, so no layer slides and no
// assert fires): its one layer is full attention, as without the key.
func TestDraftEmptyLayerTypes(t *testing.T) {
	a := shipped(t)["openai__gpt-oss-20b"]
	d, err := readDraft(writeDraftDir(t, strings.Replace(gptOssLlamaDraft, `"model_type"`, `"layer_types": [], "model_type"`, 1), gptOssCheckpoint), "eagle3", a)
	if err != nil || d.Windows != nil {
		t.Errorf("empty layer_types: windows %v, %v; want full attention, read", d.Windows, err)
	}
}

// TestDraftMRoPEIsTheSection: vLLM reads M-RoPE as an mrope_section in the
// rope parameters (uses_mrope, vllm/transformers_utils/config.py:552-557):
// a legacy "mrope" type alone is not M-RoPE, so such a draft on Llama-3.1-8B
// (no M-RoPE) is sized with its T positions; with a section it is M-RoPE.
func TestDraftMRoPEIsTheSection(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	base := string(mustRead(t, eagle3Config))
	for _, tc := range []struct {
		rope string
		want bool
	}{
		{`{"type": "mrope"}`, false},
		{`{"rope_type": "default", "type": "mrope"}`, false},
		{`{"type": "mrope", "mrope_section": [16, 24, 24]}`, true},
		{`{"rope_type": "default", "mrope_section": [16, 24, 24]}`, true},
	} {
		d, err := readDraft(writeDraftDir(t, strings.Replace(base, `"vocab_size"`, `"rope_scaling": `+tc.rope+`, "vocab_size"`, 1), eagle3Checkpoint), "eagle3", a)
		if err != nil || d.MRoPE != tc.want {
			t.Errorf("rope_scaling %s: M-RoPE %v, %v; want %v", tc.rope, d.MRoPE, err, tc.want)
		}
	}
}

// TestEagle3TargetRefusals: what stays refused names why.
func TestEagle3TargetRefusals(t *testing.T) {
	models := shipped(t)
	gptOss := models["openai__gpt-oss-20b"]
	aux := func(ids string) string {
		return writeDraftDir(t, strings.Replace(gptOssLlamaDraft, `"model_type"`, `"eagle_aux_hidden_state_layer_ids": `+ids+`, "model_type"`, 1), gptOssCheckpoint)
	}
	ec := func(body string) string {
		return writeDraftDir(t, strings.Replace(gptOssLlamaDraft, `"model_type"`, `"eagle_config": `+body+`, "model_type"`, 1), gptOssCheckpoint)
	}
	cases := []struct {
		name, model, dir string
		s                Serve
		flag, says       string
	}{
		{"a multimodal target", "google__gemma-4-31B-it", writeDraftDir(t, qwen25VLDraftConfig, nil), Serve{}, "speculative-config", "a multimodal target"},
		{"Llama 4", "meta-llama__Llama-4-Scout-17B-16E-Instruct", writeDraftDir(t, qwen25VLDraftConfig, nil), Serve{}, "speculative-config", "turns the hybrid KV cache manager off"},
		{"an M-RoPE draft on a target without it", "meta-llama__Llama-3.1-8B-Instruct", writeDraftDir(t, strings.Replace(string(mustRead(t, eagle3Config)), `"vocab_size"`, `"rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}, "vocab_size"`, 1), eagle3Checkpoint), Serve{}, "speculative-config", "PR #32048"},
		{"a draft without M-RoPE on Qwen2.5-VL", "Qwen__Qwen2.5-VL-7B-Instruct", writeDraftDir(t, strings.Replace(string(mustRead(t, qwen25VLDraftConfig)), `"rope_scaling"`, `"unread_rope_scaling"`, 1), qwen25VLCheckpoint), Serve{}, "speculative-config", "differs from"},
		{"EAGLE-1 on gpt-oss", "openai__gpt-oss-20b", WriteEagleDraft(t), Serve{}, "speculative-config", "EAGLE draft on"},
		{"four auxiliary layers", "openai__gpt-oss-20b", aux("[1, 8, 15, 21]"), Serve{}, "speculative-config", `"eagle_aux_hidden_state_layer_ids"`},
		{"a repeated layer", "openai__gpt-oss-20b", aux("[1, 11, 11]"), Serve{}, "speculative-config", "distinct target layers from 1 to 23"},
		{"the last layer's output", "openai__gpt-oss-20b", aux("[1, 11, 24]"), Serve{}, "speculative-config", "distinct target layers"},
		{"the embedding", "openai__gpt-oss-20b", ec(`{"eagle_aux_hidden_state_layer_ids": [0, 11, 21]}`), Serve{}, "speculative-config", `"eagle_config.eagle_aux_hidden_state_layer_ids"`},
		{"no auxiliary states", "openai__gpt-oss-20b", ec(`{"use_aux_hidden_state": false}`), Serve{}, "speculative-config", `"eagle_config.use_aux_hidden_state"`},
		{"another eagle_config key", "openai__gpt-oss-20b", ec(`{"norm_before_fc": true}`), Serve{}, "speculative-config", `"eagle_config.norm_before_fc"`},
		{"another model_type", "openai__gpt-oss-20b", writeDraftDir(t, strings.Replace(gptOssLlamaDraft, `"llama"`, `"qwen3"`, 1), gptOssCheckpoint), Serve{}, "speculative-config", `model_type "qwen3"`},
		{"a sliding layer of another window", "openai__gpt-oss-20b", writeDraftDir(t, strings.Replace(gptOssLlamaDraft, `"model_type": "llama"`, `"model_type": "gpt_oss", "sliding_window": 4096`, 1), gptOssCheckpoint), Serve{}, "speculative-config", "matches no sliding layer"},
		{"a sliding layer on a full-attention target", "meta-llama__Llama-3.1-8B-Instruct", writeDraftDir(t, `{"architectures": ["LlamaForCausalLMEagle3"], "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 1, "vocab_size": 128256, "draft_vocab_size": 31960, "layer_types": ["sliding_attention"], "sliding_window": 4096}`, eagle3Checkpoint), Serve{}, "speculative-config", "matches no sliding layer"},
		{"a gpt_oss-typed draft's own rope", "openai__gpt-oss-20b", writeDraftDir(t, strings.Replace(gptOssLlamaDraft, `"model_type": "llama"`, `"model_type": "gpt_oss", "rope_scaling": {"rope_type": "yarn", "factor": 8}`, 1), gptOssCheckpoint), Serve{}, "speculative-config", `key "rope_scaling" in a gpt_oss-typed`},
		// Two draft layers, one type: vLLM's assert (llama.py:195-198)
		// fails at the second. (An empty list is no list to vLLM,
		// llama.py:184's truth test: TestDraftEmptyLayerTypes.)
		{"short layer_types", "openai__gpt-oss-20b", writeDraftDir(t, strings.Replace(strings.Replace(gptOssLlamaDraft, `"num_hidden_layers": 1`, `"num_hidden_layers": 2`, 1), `"model_type"`, `"layer_types": ["full_attention"], "model_type"`, 1), gptOssCheckpoint), Serve{}, "speculative-config", "vLLM asserts one a layer"},
		{"an empty layer_types, gpt_oss-typed", "openai__gpt-oss-20b", writeDraftDir(t, strings.Replace(gptOssLlamaDraft, `"model_type": "llama"`, `"layer_types": [], "model_type": "gpt_oss"`, 1), gptOssCheckpoint), Serve{}, "speculative-config", "layer_types is empty"},
		{"a sliding layer with skipped layers", "openai__gpt-oss-20b", writeDraftDir(t, gptOssDraftConfig, gptOssCheckpoint), Serve{KVCacheDtypeSkipLayers: "0"}, "kv-cache-dtype-skip-layers", "not read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.MaxModelLen, tc.s.EnforceEager = 8192, true
			method := "eagle3"
			if strings.HasPrefix(tc.name, "EAGLE-1") {
				method = "eagle"
			}
			tc.s.SpeculativeConfig = `{"method": "` + method + `", "model": "` + tc.dir + `", "num_speculative_tokens": 3}`
			_, err := Resolve(tc.s, models[tc.model], bigClass, v1Llama)
			wantRefusal(t, err, tc.flag, tc.says)
		})
	}
	// Three distinct layers from 1 to L-1, at the top level or in
	// eagle_config, with use_aux_hidden_state true, are sized.
	for _, dir := range []string{aux("[1, 11, 23]"), ec(`{"eagle_aux_hidden_state_layer_ids": [2, 12, 21], "use_aux_hidden_state": true}`), writeDraftDir(t, gptOssDraftConfig, gptOssCheckpoint)} {
		if _, err := Resolve(Serve{MaxModelLen: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}, gptOss, bigClass, v1Llama); err != nil {
			t.Errorf("%s: %v, want it sized", dir, err)
		}
	}
}

// qwen25VLCheckpoint is the tensors of SpecForge's Qwen2.5-VL-7B draft as
// SpecForge saves an EAGLE-3 draft: hidden 3584, 28 heads and 4 KV heads
// of 128, intermediate 18944, an lm_head of 32000 rows, no embed_tokens.
var qwen25VLCheckpoint = []draftTensor{
	{"d2t", "I64", []uint64{32000}},
	{"fc.weight", "BF16", []uint64{3584, 10752}},
	{"lm_head.weight", "BF16", []uint64{32000, 3584}},
	{"midlayer.hidden_norm.weight", "BF16", []uint64{3584}},
	{"midlayer.input_layernorm.weight", "BF16", []uint64{3584}},
	{"midlayer.mlp.down_proj.weight", "BF16", []uint64{3584, 18944}},
	{"midlayer.mlp.gate_proj.weight", "BF16", []uint64{18944, 3584}},
	{"midlayer.mlp.up_proj.weight", "BF16", []uint64{18944, 3584}},
	{"midlayer.post_attention_layernorm.weight", "BF16", []uint64{3584}},
	{"midlayer.self_attn.k_proj.weight", "BF16", []uint64{512, 7168}},
	{"midlayer.self_attn.o_proj.weight", "BF16", []uint64{3584, 3584}},
	{"midlayer.self_attn.q_proj.weight", "BF16", []uint64{3584, 7168}},
	{"midlayer.self_attn.v_proj.weight", "BF16", []uint64{512, 7168}},
	{"norm.weight", "BF16", []uint64{3584}},
	{"t2d", "BOOL", []uint64{152064}},
}

// mustRead is the file's bytes.
func mustRead(t testing.TB, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestQwen25VLDraftByHand: SpecForge's Qwen2.5-VL-7B draft on
// Qwen2.5-VL-7B-Instruct, on the V1 runner (0.21.0), TP 1, bf16, H =
// 3584:
//
//	qkv_proj 2H = 7168 x (28 + 2 x 4) x 128 = 7168 x 4608 x 2 = 66060288
//	o_proj 3584 x 3584 x 2                                   = 25690112
//	gate_up 2 x 18944 x 3584 x 2                             = 271581184
//	down 18944 x 3584 x 2                                    = 135790592
//	three norms 3 x 3584 x 2                                 =    21504
//	fc 10752 x 3584 x 2                                      = 77070336
//	final norm                                               =     7168
//	lm_head 32000 rows x 3584 x 2                            = 229376000
//	d2t 32000 x 8                                            =   256000
//
// 805,853,184 B (attention_bias false: no biases; the language model's
// embedding shared), and the draft's own rotary table: its rope_scaling
// {"type": "mrope", "mrope_section": [16, 24, 24]} is not the target's
// {"mrope_section": [16, 24, 24], "rope_type": "mrope"} (transformers
// keeps the legacy "type" key and appends rope_type after it, so the
// items get_rope keys its cache by differ), so the draft builds M-RoPE's
// table of 4 x 128000 rows (mrope.py:274-280) x 128 x 2 = 131,072,000 B:
// 936,925,184 B. The proposer's buffers at T = 8192, B = 256:
// input_ids 32768, mrope_positions 3 x 8193 x 8 = 196632 (the draft's
// rope_scaling has an mrope_section, as the target's), hidden_states and
// inputs_embeds 8192 x 3584 x 2 = 58720256 each, arange 32768, slot
// mapping 65536, backup ids 1024: 117,769,240 B. The KV cache: the 28
// text layers' 4 KV heads of 128 (a page of 16 x 2 x 4 x 128 x 2 =
// 32768 B) and the draft's, equal, one group of 29 layers and tensors.
// On the V2 runner (0.25.0 on) it is refused.
func TestQwen25VLDraftByHand(t *testing.T) {
	a := shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	dir := writeDraftDir(t, qwen25VLDraftConfig, qwen25VLCheckpoint)
	d, err := readDraft(dir, "eagle3", a)
	if err != nil {
		t.Fatal(err)
	}
	want := Draft{Method: "eagle3", Path: dir, Hidden: 3584, Heads: 28, KVHeads: 4, HeadDim: 128, Intermediate: 18944, Layers: 1,
		Vocab: 152064, DraftVocab: 32000, FCInput: 10752, RotaryRows: 4 * 128000, RotaryDim: 128, MRoPE: true, OwnHead: true}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("draft (-want +got):\n%s", diff)
	}
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}
	_, items := draftItems(t, a, s)
	if diff := cmp.Diff(map[string]uint64{"draft_weights": 805853184 + 4*128000*128*2, "draft_buffers": 32768 + 196632 + 2*58720256 + 32768 + 65536 + 1024}, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(kvShape{1, 29, false, 32768, 29}, kvShapeOf(t, a, s)); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
	sz, err := Size(&hub.Loaded{Name: "Qwen/Qwen2.5-VL-7B-Instruct", Arch: a}, bigClass, s, v1Llama)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sz.draftKVBytes(), sz.Capacity().Blocks*32768; got != want || got == 0 {
		t.Errorf("draft KV %d B, want %d (blocks x 32768)", got, want)
	}
	for _, v := range []string{"0.14.0", "0.24.0"} {
		if _, err := Resolve(s, a, bigClass, mustProfile(v)); err != nil {
			t.Errorf("%s (V1): %v, want it sized", v, err)
		}
	}
	for _, v := range []string{"0.25.0", "main"} {
		_, err := Resolve(s, a, bigClass, mustProfile(v))
		wantRefusal(t, err, "speculative-config", "inputs_embeds")
	}
}

// TestNewEagle3TargetsCompilerEqualsReference: with the gpt-oss drafts (a
// sliding and a full-attention draft layer, whose layouts the compiler
// memoizes apart) and the Qwen2.5-VL draft, the compiled plan is the
// reference's, field for field, from a fresh compiler and from one a
// model keeps across draws, whose memos see both gpt-oss drafts. (Their
// KV layouts come out alike on gpt-oss-20b, 12 + 1 and 12 layers in two
// groups either way: a layout key without the draft's windows is not
// caught here, only a plan that moves.)
func TestNewEagle3TargetsCompilerEqualsReference(t *testing.T) {
	models := shipped(t)
	shared := map[string]*Compiler{"openai__gpt-oss-20b": NewCompiler(models["openai__gpt-oss-20b"]), "Qwen__Qwen2.5-VL-7B-Instruct": NewCompiler(models["Qwen__Qwen2.5-VL-7B-Instruct"])}
	cases := []struct{ model, spec string }{
		{"openai__gpt-oss-20b", eagle3Spec(writeDraftDir(t, gptOssDraftConfig, gptOssCheckpoint))},
		{"openai__gpt-oss-20b", eagle3Spec(writeDraftDir(t, gptOssLlamaDraft, gptOssCheckpoint))},
		{"Qwen__Qwen2.5-VL-7B-Instruct", eagle3Spec(writeDraftDir(t, qwen25VLDraftConfig, qwen25VLCheckpoint))},
	}
	profiles := []Profile{v1Llama, mustProfile("0.14.0")}
	rapid.Check(t, func(t *rapid.T) {
		tc := rapid.SampledFrom(cases).Draw(t, "case")
		s := Serve{
			TensorParallelSize: rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:        rapid.Uint64Range(256, 16384).Draw(t, "len"),
			MaxNumSeqs:         rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			EnforceEager:       true,
			SpeculativeConfig:  tc.spec,
		}
		c, p := testClass(rapid.Bool().Draw(t, "unified")), rapid.SampledFrom(profiles).Draw(t, "profile")
		compilerIsReference(t, models[tc.model], s, c, p)
		sharedCompilerIsReference(t, shared[tc.model], models[tc.model], s, c, p)
	})
}

// TestNewEagle3TargetsNeverShrink: adding the gpt-oss or Qwen2.5-VL draft
// to its target's serve never shrinks a term, and grows the weights and
// the KV cache (the draft's layer joins a group, one slot more a block).
func TestNewEagle3TargetsNeverShrink(t *testing.T) {
	models := shipped(t)
	cases := []struct{ model, spec string }{
		{"openai__gpt-oss-20b", eagle3Spec(writeDraftDir(t, gptOssDraftConfig, gptOssCheckpoint))},
		{"openai__gpt-oss-120b", eagle3Spec(writeDraftDir(t, gptOssLlamaDraft, gptOssCheckpoint))},
		{"Qwen__Qwen2.5-VL-7B-Instruct", eagle3Spec(writeDraftDir(t, qwen25VLDraftConfig, qwen25VLCheckpoint))},
		{"Qwen__Qwen3-VL-30B-A3B-Instruct", eagle3Spec(writeDraftDir(t, qwen3VLMoeDraftConfig, qwen3VLMoeCheckpoint))},
	}
	profiles := []Profile{v1Llama, mustProfile("0.15.0")}
	rapid.Check(t, func(t *rapid.T) {
		tc := rapid.SampledFrom(cases).Draw(t, "case")
		a := models[tc.model]
		p := rapid.SampledFrom(profiles).Draw(t, "profile")
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			MaxNumBatchedTokens: 8192,
			EnforceEager:        true,
		}
		plain, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Skip(err)
		}
		s.SpeculativeConfig = tc.spec
		spec, err := Compile(a, s, bigClass, p)
		if err != nil {
			t.Fatalf("refused where the plain serve sizes: %v", err)
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		pf, sf := plain.Evaluate(seqs, tokens), spec.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if term == budget.TermActivation || term == budget.TermSampler {
				continue // compared together below
			}
			if sf.Terms[term] < pf.Terms[term] {
				t.Fatalf("%s shrinks with the draft: %d -> %d", budget.Term(term), pf.Terms[term], sf.Terms[term])
			}
		}
		// A multimodal serve's encoder pass item is what the encoder's
		// point adds above the decoder's run and sampler, so speculative
		// decoding's sampler moves bytes from the one term to the other
		// (ngram alike); the peak they sum to never shrinks, and grows by
		// the proposer's buffers at least, alive at every point.
		peak := func(f budget.Footprint) uint64 { return f.Terms[budget.TermActivation] + f.Terms[budget.TermSampler] }
		if peak(sf) < peak(pf)+32768 { // input_ids alone: 8192 x 4
			t.Fatalf("the profile peak %d -> %d: want it to grow by the proposer's buffers", peak(pf), peak(sf))
		}
		if sf.Terms[budget.TermWeights] <= pf.Terms[budget.TermWeights] || sf.Terms[budget.TermKVCache] <= pf.Terms[budget.TermKVCache] {
			t.Fatalf("weights %d -> %d, KV %d -> %d: want both to grow", pf.Terms[budget.TermWeights], sf.Terms[budget.TermWeights], pf.Terms[budget.TermKVCache], sf.Terms[budget.TermKVCache])
		}
	})
}

// TestDraftBuffersInEncoderPass: the proposer's buffers are made with the
// runner, before profile_run runs the encoder, so where the encoder's pass
// is the profile's peak (Qwen2.5-VL-7B at TP 2, 256 tokens, 92 sequences,
// 0.14.0: its point is above the decoder's run with the draft) the draft
// adds them to it: input_ids 32768, mrope_positions 3 x 8193 x 8 =
// 196632, hidden_states and inputs_embeds 8192 x 3584 x 2 = 58720256
// each, arange 32768, slot mapping 65536, backup ids 92 x 4 = 368:
// 117,768,584 B above the plain serve's peak.
func TestDraftBuffersInEncoderPass(t *testing.T) {
	a := shipped(t)["Qwen__Qwen2.5-VL-7B-Instruct"]
	s := Serve{TensorParallelSize: 2, MaxModelLen: 256, MaxNumSeqs: 92, MaxNumBatchedTokens: 8192, EnforceEager: true}
	peak := func(s Serve) (uint64, uint64) {
		r, err := Resolve(s, a, bigClass, mustProfile("0.14.0"))
		if err != nil {
			t.Fatal(err)
		}
		items := peakItems(a, &r, stageOf(&r, 0))
		var pass uint64
		for _, it := range items {
			if it.Name == "encoder_pass" {
				pass = it.Bytes
			}
		}
		return peakOf(items), pass
	}
	plain, plainPass := peak(s)
	s.SpeculativeConfig = eagle3Spec(writeDraftDir(t, qwen25VLDraftConfig, qwen25VLCheckpoint))
	got, pass := peak(s)
	if plainPass == 0 || pass == 0 {
		t.Fatalf("encoder pass items %d, %d: want the encoder's point the peak", plainPass, pass)
	}
	const buffers = 32768 + 196632 + 2*58720256 + 32768 + 65536 + 368
	if got != plain+buffers {
		t.Errorf("peak %d, want the plain serve's %d + %d", got, plain, buffers)
	}
}

// qwen3VLMoeDraftConfig is SpecForge's EAGLE-3 draft config for
// Qwen3-VL-30B-A3B (llama-typed, M-RoPE rope_scaling).
const qwen3VLMoeDraftConfig = "../../corpus/models/drafts/sgl-project__SpecForge__qwen3-vl-30b-a3b-eagle3.json"

// qwen3VLMoeCheckpoint is the tensors of that draft as SpecForge saves an
// EAGLE-3 draft: hidden 2048, 32 heads and 4 KV heads of 128,
// intermediate 6144, an lm_head of 32000 rows, no embed_tokens.
var qwen3VLMoeCheckpoint = []draftTensor{
	{"d2t", "I64", []uint64{32000}},
	{"fc.weight", "BF16", []uint64{2048, 6144}},
	{"lm_head.weight", "BF16", []uint64{32000, 2048}},
	{"midlayer.hidden_norm.weight", "BF16", []uint64{2048}},
	{"midlayer.input_layernorm.weight", "BF16", []uint64{2048}},
	{"midlayer.mlp.down_proj.weight", "BF16", []uint64{2048, 6144}},
	{"midlayer.mlp.gate_proj.weight", "BF16", []uint64{6144, 2048}},
	{"midlayer.mlp.up_proj.weight", "BF16", []uint64{6144, 2048}},
	{"midlayer.post_attention_layernorm.weight", "BF16", []uint64{2048}},
	{"midlayer.self_attn.k_proj.weight", "BF16", []uint64{512, 4096}},
	{"midlayer.self_attn.o_proj.weight", "BF16", []uint64{2048, 4096}},
	{"midlayer.self_attn.q_proj.weight", "BF16", []uint64{4096, 4096}},
	{"midlayer.self_attn.v_proj.weight", "BF16", []uint64{512, 4096}},
	{"norm.weight", "BF16", []uint64{2048}},
	{"t2d", "BOOL", []uint64{151936}},
}

// TestQwen3VLMoeDraftByHand: SpecForge's Qwen3-VL-30B-A3B draft on its
// target, on the V1 runner (every release membudget sizes up to 0.28 and
// main), TP 1, bf16, H = 2048:
//
//	qkv_proj 2H = 4096 x (32 + 2 x 4) x 128 = 4096 x 5120 x 2 = 41943040
//	o_proj 4096 x 2048 x 2                                   = 16777216
//	gate_up 2 x 6144 x 2048 x 2                              = 50331648
//	down 6144 x 2048 x 2                                     = 25165824
//	three norms 3 x 2048 x 2                                 =    12288
//	fc 6144 x 2048 x 2                                       = 25165824
//	final norm                                               =     4096
//	lm_head 32000 rows x 2048 x 2                            = 131072000
//	d2t 32000 x 8                                            =   256000
//
// 290,727,936 B, and the draft's own rotary table: its rope_scaling
// {"mrope_interleaved": true, "mrope_section": [24, 20, 20]} leaves out
// the "rope_type": "default" the target's gives before its rope_theta,
// so transformers appends rope_theta before rope_type for the draft and
// after it for the target, and the items get_rope keys by differ in
// order: 4 x 262144 rows x 128 x 2 = 268,435,456 B, 559,163,392 B in all.
// The proposer's buffers at T = 8192, B = 256: input_ids
// 32768, mrope_positions 196632, hidden_states and inputs_embeds 8192 x
// 2048 x 2 = 33554432 each, arange 32768, slot mapping 65536, backup ids
// 1024: 67,437,592 B. The KV cache: the 48 text layers' 4 KV heads of 128
// (32768 B a page) and the draft's, one group of 49. Before 0.15.0 the
// MoE language model returns no auxiliary states (PR #32048): refused.
func TestQwen3VLMoeDraftByHand(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-VL-30B-A3B-Instruct"]
	dir := writeDraftDir(t, qwen3VLMoeDraftConfig, qwen3VLMoeCheckpoint)
	s := Serve{MaxModelLen: 8192, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(dir)}
	_, items := draftItems(t, a, s)
	if diff := cmp.Diff(map[string]uint64{"draft_weights": 290727936 + 4*262144*128*2, "draft_buffers": 32768 + 196632 + 2*33554432 + 32768 + 65536 + 1024}, items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(kvShape{1, 49, false, 32768, 49}, kvShapeOf(t, a, s)); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
	for _, v := range []string{"0.15.0", "0.28.0", "main"} {
		if _, err := Resolve(s, a, bigClass, mustProfile(v)); err != nil {
			t.Errorf("%s: %v, want it sized", v, err)
		}
	}
	_, err := Resolve(s, a, bigClass, mustProfile("0.14.0"))
	wantRefusal(t, err, "speculative-config", "PR #32048")
}

// TestQwen3VLDenseDraft: Qwen3-VL-32B's class (Qwen3VLForConditionalGeneration)
// takes an EAGLE-3 draft on the V1 runner from 0.14.0 (PR #29594) and is
// refused on the V2 runner (dense models there from 0.25.0). The draft is
// by hand (hidden 5120, 8 KV heads of 128, M-RoPE as the target's): no
// public config of a Qwen3-VL-32B draft is stored in the search index.
func TestQwen3VLDenseDraft(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-VL-32B-Instruct"]
	cfg := `{"architectures": ["LlamaForCausalLMEagle3"], "model_type": "llama", "hidden_size": 5120, "intermediate_size": 25600, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 128, "num_hidden_layers": 1, "vocab_size": 151936, "draft_vocab_size": 32000, "rope_scaling": {"mrope_interleaved": true, "mrope_section": [24, 20, 20]}}`
	s := Serve{TensorParallelSize: 2, MaxModelLen: 8192, EnforceEager: true, SpeculativeConfig: eagle3Spec(writeDraftDir(t, cfg, []draftTensor{{"lm_head.weight", "BF16", []uint64{32000, 5120}}}))}
	for _, v := range []string{"0.14.0", "0.24.0"} {
		if _, err := Resolve(s, a, bigClass, mustProfile(v)); err != nil {
			t.Errorf("%s: %v, want it sized", v, err)
		}
	}
	_, err := Resolve(s, a, bigClass, mustProfile("0.25.0"))
	wantRefusal(t, err, "speculative-config", "inputs_embeds")
}
