package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// TestClassDefaults: a key the config leaves out is what the family's
// transformers class gives it, each value read by hand from the class named
// (the sources in the family files), and the Arch says which key came from
// where.
func TestClassDefaults(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		got  func(*Arch) any
		want any
		keys []string // Defaulted's keys, in order
	}{
		// LlamaConfig: vocab_size 32000; tie_word_embeddings false.
		{"llama vocab", `{"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
 "max_position_embeddings": 256, "tie_word_embeddings": false, "attention_bias": false, "mlp_bias": false}`,
			func(a *Arch) any { return a.Vocab }, uint64(32000), []string{"vocab_size"}},
		// Qwen2Config: num_key_value_heads 32 (not the heads), so 64 heads
		// share 32 KV heads.
		{"qwen2 kv heads", `{"model_type": "qwen2", "hidden_size": 4096, "num_hidden_layers": 2, "num_attention_heads": 64, "intermediate_size": 128,
 "vocab_size": 100, "max_position_embeddings": 256, "tie_word_embeddings": true, "use_sliding_window": false, "sliding_window": null, "max_window_layers": 2}`,
			func(a *Arch) any { return a.KVHeads }, uint64(32), []string{"num_key_value_heads"}},
		// Qwen3Config: head_dim 128 whatever hidden_size / heads (64 / 4).
		{"qwen3 head_dim", `{"model_type": "qwen3", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256, "tie_word_embeddings": true, "attention_bias": false}`,
			func(a *Arch) any { return a.HeadDim }, uint64(128), []string{"head_dim"}},
		// GemmaConfig: head_dim 256, not 3072 / 16 = 192.
		{"gemma head_dim", `{"model_type": "gemma", "hidden_size": 3072, "num_hidden_layers": 2, "num_attention_heads": 16, "num_key_value_heads": 16,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256, "tie_word_embeddings": true, "attention_bias": false}`,
			func(a *Arch) any { return a.HeadDim }, uint64(256), []string{"head_dim"}},
		// MistralConfig: sliding_window 4096 when the key is absent: every
		// layer slides.
		{"mistral window", `{"model_type": "mistral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256, "tie_word_embeddings": false}`,
			func(a *Arch) any { return [2]uint64{a.SlidingWindow, a.SlidingLayers()} }, [2]uint64{4096, 2}, []string{"sliding_window"}},
		// ... and null is None: no window.
		{"mistral window null", `{"model_type": "mistral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256, "tie_word_embeddings": false, "sliding_window": null}`,
			func(a *Arch) any { return a.SlidingLayers() }, uint64(0), nil},
		// MixtralConfig: 8 local experts, top 2.
		{"mixtral experts", `{"model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256, "tie_word_embeddings": false}`,
			func(a *Arch) any { return [2]uint64{a.Experts, a.ExpertsPerToken} }, [2]uint64{8, 2}, []string{"num_experts_per_tok", "num_local_experts"}},
		// PhiConfig: partial_rotary_factor 0.5 of head_dim 64 / 4 = 16: 8.
		{"phi rotary", `{"model_type": "phi", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128,
 "vocab_size": 100, "max_position_embeddings": 256, "tie_word_embeddings": false}`,
			func(a *Arch) any { return a.RotaryDim }, uint64(8), []string{"partial_rotary_factor"}},
		// DeepseekV3Config: first_k_dense_replace 3 of 4 layers: one MoE.
		{"deepseek_v3 first dense", `{"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 2, "num_key_value_heads": 2,
 "intermediate_size": 64, "kv_lora_rank": 32, "q_lora_rank": 16, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16,
 "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "n_shared_experts": 1, "vocab_size": 100,
 "max_position_embeddings": 64, "tie_word_embeddings": false, "attention_bias": false}`,
			func(a *Arch) any { return kinds(a.Layers) }, "FFFFe", []string{"first_k_dense_replace"}},
		// OPTConfig: ffn_dim 3072, 12 layers.
		{"opt ffn", `{"model_type": "opt", "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100, "max_position_embeddings": 64,
 "do_layer_norm_before": true}`,
			func(a *Arch) any { return [2]uint64{a.Intermediate, a.NumLayers} }, [2]uint64{3072, 12}, []string{"num_hidden_layers", "ffn_dim"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tt.got(a)); diff != "" {
				t.Errorf("value (-want +got):\n%s", diff)
			}
			var keys []string
			for _, d := range a.Defaulted {
				keys = append(keys, d.Key)
			}
			if diff := cmp.Diff(tt.keys, keys); diff != "" {
				t.Errorf("Defaulted (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGemma3TextConfigDefaults: google/gemma-3-4b-it's text_config leaves
// out its heads, KV heads, head_dim, vocabulary and length, which
// Gemma3TextConfig gives (8, 4, 256, 262208, 131072), and its vision_config
// its channels (SiglipVisionConfig's 3); the report names each.
func TestGemma3TextConfigDefaults(t *testing.T) {
	a := loadShipped(t)["google__gemma-3-4b-it"]
	want := []DefaultedKey{
		{Key: "text_config.vocab_size", Value: "262208", Class: "Gemma3TextConfig"},
		{Key: "text_config.num_attention_heads", Value: "8", Class: "Gemma3TextConfig"},
		{Key: "text_config.num_key_value_heads", Value: "4", Class: "Gemma3TextConfig"},
		{Key: "text_config.head_dim", Value: "256", Class: "Gemma3TextConfig"},
		{Key: "text_config.max_position_embeddings", Value: "131072", Class: "Gemma3TextConfig"},
		{Key: "text_config.tie_word_embeddings", Value: "true", Class: "Gemma3TextConfig"},
		{Key: "text_config.attention_bias", Value: "false", Class: "Gemma3TextConfig"},
		{Key: "text_config.sliding_window_pattern", Value: "6", Class: "Gemma3TextConfig"},
		{Key: "vision_config.num_channels", Value: "3", Class: "SiglipVisionConfig"},
	}
	got := a.Defaulted
	for i := range got {
		got[i].Source = "" // pinned by the family file, not here
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Defaulted (-want +got):\n%s", diff)
	}
	if a.Vision == nil || a.Vision.Channels != 3 {
		t.Errorf("vision tower %+v, want 3 channels", a.Vision)
	}
	line := a.DefaultsLine()
	for _, part := range []string{"text_config.num_attention_heads=8", "text_config.num_key_value_heads=4", "text_config.head_dim=256",
		"text_config.vocab_size=262208", "(transformers Gemma3TextConfig)", "vision_config.num_channels=3 (transformers SiglipVisionConfig)"} {
		if !strings.Contains(line, part) {
			t.Errorf("DefaultsLine %q lacks %q", line, part)
		}
	}
}

// TestClassAliases: a key spelled as the class's attribute_map spells it is
// read under the name the family reads, and the report says so.
func TestClassAliases(t *testing.T) {
	tests := []struct {
		name, doc string
		got       func(*Arch) uint64
		want      uint64
		alias     DefaultedKey
	}{
		// MixtralConfig attribute_map: num_experts -> num_local_experts.
		{"mixtral num_experts", `{"model_type": "mixtral", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256, "num_experts": 4, "num_experts_per_tok": 2}`,
			func(a *Arch) uint64 { return a.Experts }, 4,
			DefaultedKey{Key: "num_local_experts", Value: "4", Class: "MixtralConfig", From: "num_experts"}},
		// Qwen3MoeConfig attribute_map: num_local_experts -> num_experts.
		{"qwen3_moe num_local_experts", `{"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 4, "num_key_value_heads": 2,
 "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 256, "num_local_experts": 16, "num_experts_per_tok": 2, "moe_intermediate_size": 32}`,
			func(a *Arch) uint64 { return a.Experts }, 16,
			DefaultedKey{Key: "num_experts", Value: "16", Class: "Qwen3MoeConfig", From: "num_local_experts"}},
		// OPTConfig attribute_map: hidden_size is d_model.
		{"opt d_model", `{"model_type": "opt", "d_model": 256, "num_hidden_layers": 1, "num_attention_heads": 4, "ffn_dim": 512,
 "vocab_size": 100, "max_position_embeddings": 64}`,
			func(a *Arch) uint64 { return a.Hidden }, 256,
			DefaultedKey{Key: "hidden_size", Value: "256", Class: "OPTConfig", From: "d_model"}},
		// DeepseekV3Config attribute_map: num_local_experts -> n_routed_experts.
		{"deepseek_v3 num_local_experts", `{"model_type": "deepseek_v3", "hidden_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
 "intermediate_size": 64, "kv_lora_rank": 32, "q_lora_rank": 16, "qk_nope_head_dim": 16, "qk_rope_head_dim": 8, "v_head_dim": 16,
 "num_local_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 32, "first_k_dense_replace": 0, "vocab_size": 100, "max_position_embeddings": 64}`,
			func(a *Arch) uint64 { return a.Experts }, 4,
			DefaultedKey{Key: "n_routed_experts", Value: "4", Class: "DeepseekV3Config", From: "num_local_experts"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.got(a); got != tt.want {
				t.Errorf("read %d, want %d", got, tt.want)
			}
			var found *DefaultedKey
			for i, d := range a.Defaulted {
				if d.From != "" {
					found = &a.Defaulted[i]
				}
			}
			if found == nil {
				t.Fatalf("no alias in %+v", a.Defaulted)
			}
			found.Source = ""
			if diff := cmp.Diff(tt.alias, *found); diff != "" {
				t.Errorf("alias (-want +got):\n%s", diff)
			}
			if !strings.Contains(a.DefaultsLine(), tt.alias.From+" read as "+tt.alias.Key) {
				t.Errorf("DefaultsLine %q does not name the alias", a.DefaultsLine())
			}
		})
	}
}

// TestEveryClassDefaultFills: for every declared class and every default it
// lists, a config that gives the key the default's value and one that
// leaves it out read the same, and only the second records it. A config of
// all the class's defaults is the class's own model (transformers'
// Config()); the extras are what some families require beyond them.
func TestEveryClassDefaultFills(t *testing.T) {
	extras := map[string]map[string]any{
		// Glm4MoeConfig@008c726d has no head_dim (modeling reads
		// getattr(config, "head_dim", ...)); 4096 / 96 does not divide.
		"glm4_moe": {"n_routed_experts": 8, "head_dim": 128},
		// DeepseekV2Config's num_experts_per_tok is None with 64 experts.
		"deepseek_v2": {"num_experts_per_tok": 6},
		// Mistral3Config's own Pixtral defaults are not the model's
		// (PixtralVisionConfig has no class here): a small tower.
		"mistral3": {"text_config": map[string]any{}, "vision_config": map[string]any{"hidden_size": 64, "intermediate_size": 128,
			"num_hidden_layers": 2, "num_attention_heads": 4, "patch_size": 16, "image_size": 64}},
		// Gemma4TextConfig's own per-layer inputs (256) are refused.
		"gemma4_text": {"hidden_size_per_layer_input": 0},
		// NemotronHConfig counts its layers by its pattern.
		"nemotron_h": {"num_hidden_layers": 4, "hybrid_override_pattern": "M-*E"},
		"gemma3":     {"text_config": map[string]any{}},
		// LlavaConfig's own: Llama text and CLIPVisionConfig's ViT-B/32.
		"llava":            {"text_config": map[string]any{}, "vision_config": map[string]any{}},
		"llava_next":       {"text_config": map[string]any{}, "vision_config": map[string]any{}},
		"llava_next_video": {"text_config": map[string]any{}, "vision_config": map[string]any{}},
		// LlavaOnevisionConfig's own: Qwen2 text and SiglipVisionConfig's.
		"llava_onevision": {"text_config": map[string]any{}, "vision_config": map[string]any{}},
		// PaliGemmaConfig's own text model is 2048 wide, as its
		// projection_dim (GemmaConfig's default is 3072).
		"paligemma": {"text_config": map[string]any{"hidden_size": 2048}, "vision_config": map[string]any{}},
		// Idefics3Config's and SmolVLMConfig's own Llama text; their vision
		// configs' 224 px in 32 px patches (7 a side) would not fold by
		// scale_factor 2, which vLLM's pixel shuffle needs: 16 px patches.
		"idefics3":        {"text_config": map[string]any{}, "vision_config": map[string]any{"patch_size": 16}},
		"smolvlm":         {"text_config": map[string]any{}, "vision_config": map[string]any{"patch_size": 16}},
		"idefics3_vision": nil, // a sub-config only
		"smolvlm_vision":  nil, // a sub-config only
		// vLLM asserts MPT's ALiBi, which MptAttentionConfig's default lacks.
		"mpt":                 {"attn_config": map[string]any{"alibi": true}},
		"siglip_vision_model": nil, // a sub-config only
		// vLLM picks an encoder-only model's head by its architecture;
		// the RobertaConfig read gives no vocab_size.
		"bert":        {"architectures": []string{"BertModel"}},
		"roberta":     {"architectures": []string{"RobertaModel"}, "vocab_size": 50265},
		"xlm-roberta": {"architectures": []string{"XLMRobertaModel"}},
		"modernbert":  {"architectures": []string{"ModernBertModel"}},
		// NomicBertConfig over GPT2Config leaves n_inner None, rotates
		// nothing and has GPT-2's gelu_new, each of which vLLM refuses.
		"nomic_bert": {"architectures": []string{"NomicBertModel"}, "n_inner": 3072, "rotary_emb_fraction": 1.0, "activation_function": "swiglu"},
		"new":        {"architectures": []string{"GteNewModel"}},
		// vLLM's GraniteMoeHybridModel indexes layer_types, which
		// GraniteMoeHybridConfig leaves None.
		"granitemoehybrid": {"num_hidden_layers": 2, "layer_types": []string{"mamba", "attention"}},
		// Glm4vMoeTextConfig, as Glm4MoeConfig, gives 96 heads of a 4096
		// width and no head_dim: GLM-4.5V's config writes 128.
		"glm4v_moe_text": {"head_dim": 128},
		"glm4v_moe":      {"text_config": map[string]any{"head_dim": 128}, "vision_config": map[string]any{}},
		// DeepseekV4Config defaults only max_position_embeddings and
		// rope_theta: every other key comes from the file.
		"deepseek_v4": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 512,
			"vocab_size": 1000, "q_lora_rank": 32, "o_lora_rank": 32, "o_groups": 2, "qk_rope_head_dim": 64, "index_n_heads": 4,
			"index_head_dim": 128, "index_topk": 16, "hc_mult": 2, "n_routed_experts": 4, "num_experts_per_tok": 2,
			"moe_intermediate_size": 256, "sliding_window": 128, "compress_ratios": []int{4, 128},
			"quantization_config": map[string]any{"quant_method": "fp8", "weight_block_size": []int{128, 128}},
			"rope_scaling":        map[string]any{"type": "yarn", "factor": 4, "original_max_position_embeddings": 1024}},
	}
	for _, mt := range ConfigClasses() {
		c := classes[mt]
		if _, isFamily := families[mt]; !isFamily || len(c.Defaults) == 0 {
			continue
		}
		full := map[string]json.RawMessage{"model_type": json.RawMessage(fmt.Sprintf("%q", mt))}
		for _, d := range c.Defaults {
			full[d.Key] = json.RawMessage(d.Value)
		}
		for k, v := range extras[mt] {
			b, _ := json.Marshal(v)
			full[k] = b
		}
		for _, d := range c.Defaults {
			if _, overridden := extras[mt][d.Key]; overridden {
				continue // the extra is not the default: leaving it out is another model
			}
			t.Run(mt+"/"+d.Key, func(t *testing.T) {
				given, _ := json.Marshal(full)
				a, err := ParseConfig("x.json", given)
				if err != nil {
					t.Fatalf("the class's own config: %v", err)
				}
				omitted := map[string]json.RawMessage{}
				for k, v := range full {
					if k != d.Key {
						omitted[k] = v
					}
				}
				doc, _ := json.Marshal(omitted)
				b, err := ParseConfig("x.json", doc)
				if err != nil {
					t.Fatalf("without %s: %v", d.Key, err)
				}
				if diff := cmp.Diff(shapeOf(a), shapeOf(b)); diff != "" {
					t.Errorf("without %s (-given +omitted):\n%s", d.Key, diff)
				}
				for _, x := range a.Defaulted {
					if x.Key == d.Key {
						t.Errorf("%s given, yet recorded as defaulted", d.Key)
					}
				}
				var rec []DefaultedKey
				for _, x := range b.Defaulted {
					if x.Key == d.Key {
						rec = append(rec, x)
					}
				}
				if want := []DefaultedKey{{Key: d.Key, Value: d.Value, Class: c.Name, Source: c.Source}}; !cmp.Equal(want, rec) {
					t.Errorf("recorded %+v, want %+v", rec, want)
				}
			})
		}
	}
}

// TestRemoteCodeArchitecture: a model_type membudget does not know is read
// as the family whose architecture its architectures or auto_map name (vLLM
// picks the model by it), with no class defaults; one naming nothing known
// stays unknown.
func TestRemoteCodeArchitecture(t *testing.T) {
	body := `"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
 "vocab_size": 100, "max_position_embeddings": 256`
	tests := []struct{ name, doc, wantType, wantErr string }{
		{"architectures", `{"model_type": "acme", "architectures": ["Qwen3ForCausalLM"], ` + body + `}`, "qwen3", ""},
		{"auto_map", `{"model_type": "acme", "auto_map": {"AutoConfig": "configuration_acme.AcmeConfig",
 "AutoModelForCausalLM": "modeling_acme.LlamaForCausalLM"}, ` + body + `}`, "llama", ""},
		{"auto_map of another repo", `{"model_type": "acme", "auto_map": {"AutoModelForCausalLM": "org/repo--modeling_x.MistralForCausalLM"}, ` + body + `}`, "mistral", ""},
		// Gemma 3's reader fills its text_config itself: not for a remote config.
		{"a wrapper's architecture", `{"model_type": "acme", "architectures": ["Gemma3ForConditionalGeneration"], "text_config": {"head_dim": 16,
 "sliding_window": 8, "sliding_window_pattern": 2, ` + body + `}}`, "gemma3", ""},
		{"nothing known", `{"model_type": "acme", "architectures": ["AcmeForCausalLM"], ` + body + `}`, "",
			`x.json: model_type: "acme": unknown model_type`},
		// No class fills for a remote config: max_position_embeddings
		// missing stays an error.
		{"remote keys stay required", `{"model_type": "acme", "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
 "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100}`, "", "x.json: max_position_embeddings: missing (required)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(tt.doc))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one holding %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.ModelType != tt.wantType || !strings.Contains(a.ReadAs, `model_type "acme"`) || len(a.Defaulted) != 0 {
				t.Errorf("read as %s (%q), %d defaulted; want %s, none", a.ModelType, a.ReadAs, len(a.Defaulted), tt.wantType)
			}
		})
	}
}

// TestParseGeneric: an unknown model_type is read from the standard keys
// and their common spellings, every layer full attention whatever
// sliding_window says; Falcon's multi_query is one KV head.
func TestParseGeneric(t *testing.T) {
	doc := `{"model_type": "acme", "n_embd": 64, "n_layer": 3, "n_head": 4, "multi_query": true, "n_inner": 256,
 "vocab_size": 100, "n_positions": 128, "sliding_window": 16, "layer_types": ["sliding_attention", "full_attention", "sliding_attention"]}`
	a, err := ParseGeneric("x.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	// 64 / 4 heads = head_dim 16; one KV head; 3 full layers.
	got := [7]uint64{a.Hidden, a.NumLayers, a.Heads, a.KVHeads, a.HeadDim, a.Intermediate, a.SlidingLayers()}
	if diff := cmp.Diff([7]uint64{64, 3, 4, 1, 16, 256, 0}, got); diff != "" {
		t.Errorf("hidden, layers, heads, KV heads, head_dim, intermediate, sliding (-want +got):\n%s", diff)
	}
	if !a.Generic || kinds(a.Layers) != "FFF" {
		t.Errorf("generic %v, layers %s", a.Generic, kinds(a.Layers))
	}
	var from []string
	for _, d := range a.Defaulted {
		from = append(from, d.From+">"+d.Key)
	}
	want := []string{"n_embd>hidden_size", "n_layer>num_hidden_layers", "n_head>num_attention_heads", "multi_query>num_key_value_heads",
		"n_positions>max_position_embeddings", "n_inner>intermediate_size"}
	if diff := cmp.Diff(want, from); diff != "" {
		t.Errorf("aliases (-want +got):\n%s", diff)
	}
	// Under new_decoder_architecture multi_query is ignored: the heads are
	// the KV heads, 4.
	b, err := ParseGeneric("x.json", []byte(strings.Replace(doc, `"multi_query": true`, `"multi_query": true, "new_decoder_architecture": true`, 1)))
	if err != nil || b.KVHeads != 4 {
		t.Errorf("multi_query under new_decoder_architecture: %v KV heads, %v; want 4", b, err)
	}
	if _, err := ParseGeneric("x.json", []byte(`{"model_type": "acme", "hidden_size": 64}`)); !errors.Is(err, ErrNotADecoder) ||
		!strings.Contains(err.Error(), "x.json: num_hidden_layers: missing (required)") {
		t.Errorf("a config without the standard keys: %v", err)
	}
}

// TestFamiliesDeclareTheirClass: every model_type read on 2026-12-04 has
// its config class declared beside its reader (a family added since is
// logged until it declares one).
func TestFamiliesDeclareTheirClass(t *testing.T) {
	for _, mt := range []string{"deepseek_v2", "deepseek_v3", "deepseek_v32", "exaone4", "gemma", "gemma2", "gemma3", "gemma3_text",
		"gemma4", "gemma4_text", "glm4_moe", "glm_moe_dsa", "gpt_oss", "granite", "kimi_k2", "kimi_k25", "llama", "llama4",
		"llama4_text", "minimax_m2", "ministral3", "mistral", "mistral3", "mixtral", "nemotron_h", "olmo3", "opt", "phi",
		"phi3", "qwen2", "qwen2_5_vl", "qwen2_moe", "qwen3", "qwen3_5", "qwen3_5_moe", "qwen3_5_moe_text", "qwen3_5_text",
		"qwen3_moe", "qwen3_next", "qwen3_vl", "qwen3_vl_text"} {
		if _, ok := classes[mt]; !ok {
			t.Errorf("model_type %s declares no config class (declareClass in its family file)", mt)
		}
	}
	for _, mt := range ModelTypes() {
		if _, ok := classes[mt]; !ok {
			t.Logf("model_type %s declares no config class yet", mt)
		}
	}
}

// FuzzAppendMembers: appending members to any JSON object keeps it an
// object that holds its own keys, in their order, then the members.
func FuzzAppendMembers(f *testing.F) {
	f.Add([]byte(`{}`), "vocab_size", uint64(262208))
	f.Add([]byte(` { "a" : [1, {"b": null}] }  `), "head_dim", uint64(256))
	f.Add([]byte("{\n  \"hidden_size\": 2560\n}\n"), "text_config.x", uint64(0))
	f.Fuzz(func(t *testing.T, raw []byte, key string, v uint64) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return
		}
		if _, dup := m[key]; dup || !utf8.ValidString(key) {
			return // the keys appended are the classes' own, ASCII
		}
		if d, err := duplicateKey(raw); d != "" || err != nil {
			return
		}
		var errs []error
		before := jsonObject{m: m, raw: raw, errs: &errs}.keys()
		out := appendMembers(raw, [][2]string{{key, fmt.Sprint(v)}})
		var got map[string]json.RawMessage
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q + %q: %v: %s", raw, key, err, out)
		}
		var n uint64
		if json.Unmarshal(got[key], &n) != nil || n != v {
			t.Fatalf("%q holds %s, want %d", key, got[key], v)
		}
		after := jsonObject{m: got, raw: out, errs: &errs}.keys()
		if diff := cmp.Diff(append(before, key), after); diff != "" && len(before) == len(m) {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
	})
}
