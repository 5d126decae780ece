package vllm

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/torchalloc"
	"membudget/internal/untrusted"
	"membudget/model"
	"membudget/model/hub"
	"membudget/model/safetensors"
)

// This file sizes --speculative-config's EAGLE-3 drafts: the draft's
// weights, its attention layers as KV cache specs beside the target's, the
// lookahead slots the scheduler reserves. Every rule is vLLM main's at
// commit d18bb7b (2026-08-14): the draft is Eagle3LlamaForCausalLM
// (vllm/model_executor/models/llama_eagle3.py), loaded by the proposer's
// load_model (vllm/v1/spec_decode/llm_base_proposer.py:1338-1570), whose
// attention layers join the target's in get_kv_cache_spec
// (vllm/v1/worker/gpu_model_runner.py:7883-7920: it walks every Attention
// layer of the forward context, the drafter's included, which the drafter
// registers under layer indices after the target's, start_layer_id =
// the target's layer count, llama_eagle3.py:168, 291).

// Draft is an EAGLE-3 draft as membudget reads it from its directory: its
// config.json and the names and shapes of its checkpoint's tensors.
type Draft struct {
	// Method is "eagle3" (Eagle3LlamaForCausalLM) or "eagle" (EAGLE-1,
	// EagleLlamaForCausalLM, specdraft_eagle.go): the class vLLM builds.
	Method string
	// Path is the draft's local directory, as --speculative-config's
	// "model" gives it.
	Path string
	// Hidden, Heads, KVHeads, HeadDim, Intermediate and Layers are the
	// draft decoder's shape (config.json's hidden_size,
	// num_attention_heads, num_key_value_heads, head_dim or hidden_size /
	// num_attention_heads, intermediate_size, num_hidden_layers).
	Hidden, Heads, KVHeads, HeadDim, Intermediate, Layers uint64
	// Vocab is the draft's vocab_size (its embedding's rows) and
	// DraftVocab its draft_vocab_size (its LM head's rows and the d2t
	// map's entries; vocab_size where absent, llama_eagle3.py:278-281).
	Vocab, DraftVocab uint64
	// FCInput is the fc layer's input features: target_hidden_size (or
	// hidden_size) x the auxiliary hidden states (3 by default,
	// llama_eagle3.py:176-186); 0 without auxiliary hidden states.
	FCInput uint64
	// Windows is each draft layer's sliding window, 0 for full attention:
	// LlamaAttention makes a layer sliding where the config's layer_types
	// says "sliding_attention", at the config's sliding_window
	// (vllm/model_executor/models/llama.py:183-202, the draft's index
	// counted from its first layer, target_layer_count, llama_eagle3.py:
	// 287); nil where every layer is full attention.
	Windows []uint64
	// RotaryRows and RotaryDim are the draft's own rotary cos/sin table
	// where membudget knows vLLM builds one apart from the target's: a
	// gpt_oss-typed draft's (GptOssConfig's YaRN of factor 32 over 4096
	// original positions, in the model dtype, while gpt-oss's own table is
	// float32, so get_rope's cache never shares them; rotary_embedding/
	// __init__.py:33-84, 243-281), and a llama-typed draft's where its
	// rope key differs from the target's ([llamaDraftRotary]); 0 rows
	// where the draft shares the target's table.
	RotaryRows, RotaryDim uint64
	// MRoPE says the draft's config gives M-RoPE rope parameters (an
	// mrope_section): its proposer keeps 3 x (T+1) positions
	// (llm_base_proposer.py:172-191); membudget sizes it only where the
	// target's M-RoPE agrees (see [resolveDraft]).
	MRoPE bool
	// AttentionBias says qkv_proj has a bias and OBias that o_proj has
	// one: LlamaDecoderLayer gives o_proj a bias where attention_bias or
	// bias is true (vllm/model_executor/models/llama.py:265-269), and
	// Eagle3's layer rebuilds qkv_proj with attention_bias alone
	// (llama_eagle3.py:53-64); EAGLE-1 keeps the base layer's qkv_proj.
	AttentionBias, OBias bool
	// OwnEmbed and OwnHead say the checkpoint carries an embed_tokens or
	// lm_head tensor that vLLM keeps apart from the target's (see
	// [readDraft]); a draft model has both, its head tied to its
	// embedding where its config ties them.
	OwnEmbed, OwnHead bool
	// Model is a draft_model's architecture, read as a target's is
	// (specdraftmodel.go); nil for the EAGLE drafts.
	Model *model.Arch
	// V2 says the draft runs on the V2 model runner's speculator
	// (specv2.go), not the V1 proposer.
	V2 bool
}

// maxDraftConfig bounds the draft's config.json and index read.
const maxDraftConfig = 1 << 20

// maxDraftShards bounds the checkpoint files whose headers are read.
const maxDraftShards = 64

// eagle3Archs are the draft architectures membudget sizes: the EAGLE-3
// Llama draft, which vLLM builds as Eagle3LlamaForCausalLM
// (vllm/model_executor/models/registry.py maps both names to it).
var eagle3Archs = []string{"LlamaForCausalLMEagle3", "Eagle3LlamaForCausalLM"}

// eagle3Refused are the config.json keys of an EAGLE-3 draft that change
// its tensors or their dtype (llama_eagle3.py:140-216;
// get_draft_quant_config), or that the runner reads as its auxiliary
// layers (dflash_config's target_layer_ids, gpu_model_runner.py:5612-5621,
// where no eagle_aux_hidden_state_layer_ids is given): membudget reads the
// plain draft only, and false and null change nothing. The target's layers whose hidden states it
// reads (eagle_aux_hidden_state_layer_ids, at the top level or in
// eagle_config) are read by [readAuxLayers].
var eagle3Refused = []string{"quantization_config", "speculators_config", "fc_norm", "norm_before_fc", "mlp_bias", "num_aux_hidden_states", "target_hidden_size", "qkv_bias", "dflash_config"}

// eagleTargets are the target architectures an EAGLE-1 draft is sized on:
// vLLM classes that return the hidden states EAGLE reads (SupportsEagle)
// and whose embedding and LM head the draft shares, read for EAGLE-1
// (specdraft_eagle.go).
var eagleTargets = []string{"LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM", "Qwen3MoeForCausalLM"}

// eagle3Targets are the target architectures whose vLLM class returns the
// auxiliary hidden states EAGLE-3 reads (SupportsEagle3: llama.py,
// qwen2.py, qwen3.py, qwen3_moe.py, gpt_oss.py at d18bb7b) and whose
// layers membudget sizes; gpu_model_runner.py:5578 refuses a target
// without it. Each class had it before 0.14.0, the first release whose
// speculative decoding membudget sizes (specSince): GptOssForCausalLM
// since PR #25246 (2025-09-22). What each shares with the draft:
//   - GptOssForCausalLM (gpt_oss.py:291-362, 1170-1230): the default
//     auxiliary layers are SupportsEagle3's (2, L/2, L-3), interfaces.py:
//     1588-1600, the states new tensors (hidden + residual, EagleModelMixin,
//     :1499-1509) taken in GptOssModel.forward as in Llama's; its embedding
//     is model.embedding, which _maybe_share_embeddings takes where there is
//     no embed_tokens (llm_base_proposer.py:1436-1447), and its lm_head a
//     ParallelLMHead of vocab_size x hidden (untied), shared by the same
//     rule. Its layers alternate sliding-window (128) and full attention:
//     a full-attention draft layer of its KV shape (8 KV heads of 64) joins
//     the full layers' spec, so the groups are 18 sliding slots padded to
//     19 and 19 full for gpt-oss-120b (_get_kv_cache_groups_uniform_page_
//     size, kv_cache_utils.py:1106-1246: 19 < 1.5 x 18), and a sliding one
//     (a gpt_oss-typed draft config, [readDraftFrom]) joins the sliding
//     spec. HMA stays on: vLLM turns it off with an EAGLE draft only for
//     chunked local attention (vllm/config/vllm.py:1729-1739).
//   - Qwen2_5_VLForConditionalGeneration (qwen2_5_vl.py:1227-1380), since
//     PR #22872 (2025-09-27): its language model is a Qwen2ForCausalLM
//     (init_vllm_registered_model, :1371), so the default auxiliary layers
//     are (2, L/2, L-3) of its text layers (SupportsEagle3 asks
//     get_language_model()) and the draft shares that model's embed_tokens
//     and lm_head (load_model, llm_base_proposer.py:1370-1411). Its text
//     layers are full attention, so the draft's layer joins their group.
//     On the V1 runner the proposer keeps supports_mm_inputs off for a
//     draft without multimodal embeddings (Eagle3LlamaForCausalLM has
//     none, :1360-1368), so it allocates no buffer for them; its positions
//     are M-RoPE's 3 x (T+1) where the draft config has M-RoPE (:172-191:
//     the draft's setting since PR #32048 of 2026-01-21, the target's
//     before, so membudget sizes a draft whose M-RoPE is the target's
//     and refuses one whose differs). On the V2 runner its speculator
//     makes inputs_embeds for a multimodal target in load_model
//     (autoregressive/speculator.py:47-57), not modelled: refused there
//     ([eagle3V1Only]).
//   - Qwen3VLForConditionalGeneration (qwen3_vl.py:1643-1850), since PR
//     #29594 (2025-11-27), and Qwen3VLMoeForConditionalGeneration, its
//     subclass (qwen3_vl_moe.py:223), whose MoE language model returns the
//     auxiliary states since PR #32048 (2026-01-21, after 0.14.0rc0 of
//     2026-01-11: from 0.15.0, [eagle3Since]): as Qwen2.5-VL's, their
//     language model (Qwen3LLMModel, Qwen3MoeLLMModel) takes the states as
//     hidden + residual after each layer, its deepstack embeddings added
//     to the hidden states of the first layers before (qwen3_vl.py:
//     1664-1683, qwen3_vl_moe.py:122-143), and its layers are full
//     attention; the same M-RoPE rule.
var eagle3Targets = []string{"LlamaForCausalLM", "Qwen2ForCausalLM", "Qwen3ForCausalLM", "Qwen3MoeForCausalLM", "GptOssForCausalLM",
	"Qwen2_5_VLForConditionalGeneration", "Qwen3VLForConditionalGeneration", "Qwen3VLMoeForConditionalGeneration"}

// eagle3V2Multimodal is why a multimodal EAGLE-3 target is not sized on
// the V2 model runner.
const eagle3V2Multimodal = "a multimodal target on the V2 model runner, whose speculator makes an inputs_embeds buffer of max_num_batched_tokens x hidden for it in load_model (autoregressive/speculator.py:47-57), inside or outside the measured load not read"

// eagle3V1Only are the EAGLE-3 targets sized on the V1 model runner only,
// and why not on the V2 runner.
var eagle3V1Only = map[string]string{
	"Qwen2_5_VLForConditionalGeneration": eagle3V2Multimodal,
	"Qwen3VLForConditionalGeneration":    eagle3V2Multimodal,
	"Qwen3VLMoeForConditionalGeneration": eagle3V2Multimodal,
}

// eagle3Since is the first release whose class of a target returns the
// auxiliary states, where it is later than [specSince]: vLLM fails
// before (set_aux_hidden_state_layers needs EagleModelMixin's model).
var eagle3Since = map[string]struct {
	v  Version
	pr string
}{
	"Qwen3VLMoeForConditionalGeneration": {v0_15_0, "PR #32048 (2026-01-21), after 0.14.0rc0 of 2026-01-11"},
}

// eagle3Unread says why an EAGLE-3 draft is not sized on a target whose
// vLLM class has SupportsEagle3 at d18bb7b but whose rules membudget has
// not read, or read and found it does not model.
var eagle3Unread = map[string]string{
	"Gemma4ForConditionalGeneration":   eagle3Multimodal,
	"Mistral3ForConditionalGeneration": eagle3Multimodal,
	"LlavaForConditionalGeneration":    eagle3Multimodal,
	"PixtralForConditionalGeneration":  eagle3Multimodal,
	"KimiK25ForConditionalGeneration":  eagle3Multimodal,
	"Llama4ForConditionalGeneration":   "Llama 4's chunked local attention: with an EAGLE draft vLLM turns the hybrid KV cache manager off (vllm/config/vllm.py:1729-1739), so every layer's cache would be a full-attention one, and mllama4.py:808 chooses its own auxiliary layers; neither is modelled",
	"Llama4ForCausalLM":                "Llama 4's chunked local attention: with an EAGLE draft vLLM turns the hybrid KV cache manager off (vllm/config/vllm.py:1729-1739), so every layer's cache would be a full-attention one; not modelled",
	"DeepseekV2ForCausalLM":            eagle3MLA,
	"DeepseekV3ForCausalLM":            eagle3MLA,
	"Gemma4ForCausalLM":                "Gemma 4's sliding and global layers of two head sizes: which KV group the draft's full-attention layer joins, and at what page, was not read",
	"Qwen3NextForCausalLM":             eagle3Hybrid,
	"Qwen3_5ForCausalLM":               eagle3Hybrid,
	"Qwen3_5MoeForCausalLM":            eagle3Hybrid,
	"NemotronHForCausalLM":             eagle3Hybrid,
	"MiniMaxM2ForCausalLM":             "its auxiliary states and KV groups with a draft were not read",
}

// The reasons [eagle3Unread] gives.
const (
	eagle3Multimodal = "a multimodal target whose language model was not read with a draft (membudget sizes Qwen2.5-VL's and Qwen3-VL's on the V1 runner; the V2 speculator's inputs_embeds for a multimodal target, autoregressive/speculator.py:47-57, is not modelled)"
	eagle3MLA        = "an MLA target: the draft's full-attention layer is a KV spec of another page beside the latents', whose unified page and group were not read"
	eagle3Hybrid     = "a hybrid target of state (linear-attention or Mamba) layers: the draft's full-attention layer beside their padded state pages was not read"
)

// draftCache keeps each draft directory's reading: a plan's search
// resolves the serve many times.
var draftCache sync.Map // string -> draftOrErr

type draftOrErr struct {
	d   Draft
	err error
}

// loadDraft is readDraft, once per directory, method and target.
func loadDraft(dir, method string, a *model.Arch) (Draft, error) {
	// The reading depends on the target's vocabulary and width (what the
	// draft shares) and its layers (the auxiliary layer ids it may name).
	key := dir + "\x00" + method + "\x00" + strconv.FormatUint(a.Vocab, 10) + "\x00" + strconv.FormatUint(a.Hidden, 10) + "\x00" + strconv.Itoa(len(a.Layers))
	if v, ok := draftCache.Load(key); ok {
		r := v.(draftOrErr)
		return r.d, r.err
	}
	d, err := readDraft(dir, method, a)
	draftCache.Store(key, draftOrErr{d, err})
	return d, err
}

// readFileLimited reads file, refusing one larger than limit, or not a
// regular file (a FIFO would block the read: hub.ReadRegularFile).
func readFileLimited(file string, limit int64) ([]byte, error) {
	return hub.ReadRegularFile(file, limit)
}

// readDraft reads an EAGLE-3 draft's directory: its config.json, and its
// checkpoint's tensor names and shapes (model.safetensors, or the shards
// model.safetensors.index.json lists). The checkpoint decides what vLLM
// shares with the target (_maybe_share_embeddings and _maybe_share_lm_head,
// llm_base_proposer.py:1430-1570, from the has_own_embed_tokens and
// has_own_lm_head flags the loader sets from the tensor names,
// vllm/model_executor/models/utils.py:1016-1035): a draft without the
// tensor uses the target's, and one with it keeps its own where the shapes
// differ; where they are equal vLLM compares the values, which no header
// tells, and the draft is refused.
func readDraft(dir, method string, a *model.Arch) (Draft, error) {
	file := filepath.Join(dir, "config.json")
	data, err := readFileLimited(file, maxDraftConfig)
	if err != nil {
		return Draft{Path: dir, Method: method}, err
	}
	return readDraftFrom(dir, file, data, func() (map[string][]uint64, error) { return draftTensorShapes(dir) }, method, a)
}

// readDraftFrom reads a draft from its config.json (data, read from file)
// and, once the config is judged, its checkpoint's tensor shapes; dir
// names the draft in messages.
func readDraftFrom(dir, file string, data []byte, shapes func() (map[string][]uint64, error), method string, a *model.Arch) (Draft, error) {
	d := Draft{Path: dir, Method: method}
	var cfg map[string]json.RawMessage
	if err := json.Unmarshal(data, &cfg); err != nil || cfg == nil {
		return d, fmt.Errorf("%s: want a JSON object: %v", file, err)
	}
	var archs []string
	if raw, ok := cfg["architectures"]; ok {
		if err := json.Unmarshal(raw, &archs); err != nil {
			return d, fmt.Errorf("%s: key \"architectures\" is %s; want a list of strings", file, raw)
		}
	}
	archList, refused := eagle3Archs, eagle3Refused
	if method == "eagle" {
		archList, refused = eagleArchs, eagleRefused
	}
	if len(archs) == 0 || !slices.Contains(archList, archs[0]) {
		return d, fmt.Errorf("%s: architectures %q: membudget sizes the %s Llama draft (%s) only", file, archs, draftName(method), strings.Join(archList, ", "))
	}
	for _, k := range refused {
		if raw, ok := cfg[k]; ok && string(raw) != "false" && string(raw) != "null" {
			return d, fmt.Errorf("%s: key %q: not modelled for an %s draft; membudget refuses it rather than size a serve vLLM would contradict", file, k, draftName(method))
		}
	}
	gptOss, err := draftModelType(file, cfg, method)
	if err != nil {
		return d, err
	}
	if method == "eagle3" {
		if err := readAuxLayers(file, cfg, a); err != nil {
			return d, err
		}
	}
	count := func(key string, to *uint64, required bool) error {
		raw, ok := cfg[key]
		if !ok || string(raw) == "null" {
			if required {
				return fmt.Errorf("%s: no key %q", file, key)
			}
			return nil
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 32)
		if err != nil || n == 0 {
			return fmt.Errorf("%s: key %q is %s; want a positive integer", file, key, raw)
		}
		*to = n
		return nil
	}
	if err := cmp.Or(count("hidden_size", &d.Hidden, true), count("num_attention_heads", &d.Heads, true),
		count("num_key_value_heads", &d.KVHeads, false), count("head_dim", &d.HeadDim, false),
		count("intermediate_size", &d.Intermediate, true), count("num_hidden_layers", &d.Layers, true),
		count("vocab_size", &d.Vocab, true), count("draft_vocab_size", &d.DraftVocab, false)); err != nil {
		return d, err
	}
	if gptOss {
		// GptOssConfig's defaults (transformers configuration_gpt_oss.py):
		// num_key_value_heads 8 and head_dim 64, not LlamaConfig's.
		d.KVHeads = cmp.Or(d.KVHeads, 8)
		d.HeadDim = cmp.Or(d.HeadDim, 64)
	}
	if d.KVHeads == 0 {
		d.KVHeads = d.Heads // LlamaConfig's default (transformers configuration_llama.py)
	}
	if d.HeadDim == 0 {
		if d.Hidden%d.Heads != 0 {
			return d, fmt.Errorf("%s: hidden_size %d is not a multiple of num_attention_heads %d", file, d.Hidden, d.Heads)
		}
		d.HeadDim = d.Hidden / d.Heads // LlamaConfig's head_dim default
	}
	if d.DraftVocab == 0 {
		d.DraftVocab = d.Vocab
	}
	// GptOssConfig's attention_bias defaults to true, LlamaConfig's to
	// false; an explicit key decides either way.
	attnBias, bias := gptOss, false
	for _, b := range []struct {
		key string
		to  *bool
	}{{"attention_bias", &attnBias}, {"bias", &bias}} {
		if raw, ok := cfg[b.key]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, b.to); err != nil {
				return d, fmt.Errorf("%s: key %q is %s; want a boolean", file, b.key, raw)
			}
		}
	}
	d.AttentionBias, d.OBias = attnBias, attnBias || bias
	if method == "eagle" {
		d.AttentionBias = d.OBias
	}
	if d.Hidden != a.Hidden {
		// torch.cat of the embeddings and the hidden states needs one
		// width (llama_eagle3.py:103, 236-239).
		return d, fmt.Errorf("%s: hidden_size %d differs from the target's %d: not modelled", file, d.Hidden, a.Hidden)
	}
	var offset uint64
	if method == "eagle" {
		// EAGLE-1's model sets no target_layer_count: LlamaAttention reads
		// layer_types at the layer's own index, counted from the target's
		// layers (llama_eagle.py:89, 146; llama.py:187-198).
		offset = uint64(len(a.Layers))
	}
	if d.Windows, err = draftWindows(file, cfg, d.Layers, offset, gptOss); err != nil {
		return d, err
	}
	if gptOss {
		for _, k := range []string{"rope_scaling", "rope_parameters", "partial_rotary_factor"} {
			if raw, ok := cfg[k]; ok && string(raw) != "null" {
				return d, fmt.Errorf("%s: key %q in a gpt_oss-typed draft config: its rotary table was read for GptOssConfig's default rope only; not modelled", file, k)
			}
		}
		// GptOssConfig's rope_parameters: YaRN, factor 32, 4096 original
		// positions (configuration_gpt_oss.py); YaRN's table has
		// original x factor rows (yarn_scaling_rope.py:75-85) of the
		// head size.
		d.RotaryRows, d.RotaryDim = 4096*32, d.HeadDim
	} else if d.RotaryRows, d.RotaryDim, err = llamaDraftRotary(file, data, d.HeadDim, a); err != nil {
		return d, err
	}
	d.MRoPE = draftMRoPE(cfg)
	// The auxiliary hidden states: three of the target's width
	// (num_aux_hidden_states and target_hidden_size absent, refused
	// above, and three layer ids where a key names them, readAuxLayers);
	// EAGLE-1's fc takes the embedding and the target's last
	// hidden state (llama_eagle.py:95-103).
	d.FCInput = 3 * d.Hidden
	if method == "eagle" {
		d.FCInput = 2 * d.Hidden
	}
	tensors, err := shapes()
	if err != nil {
		return d, err
	}
	for name, shape := range tensors {
		switch {
		case strings.Contains(name, "embed_tokens"):
			if slices.Equal(shape, []uint64{a.Vocab, a.Hidden}) {
				return d, fmt.Errorf("%s: the checkpoint's %s has the target's shape: vLLM shares it only when its values equal the target's (llm_base_proposer.py:1450-1480), which membudget cannot read; not modelled", dir, name)
			}
			d.OwnEmbed = true
		case strings.Contains(name, "lm_head") && method == "eagle":
			// EagleLlamaForCausalLM builds no lm_head (it skips
			// LlamaForCausalLM.__init__, llama_eagle.py:131-153), so its
			// loader has nowhere to put one.
			return d, fmt.Errorf("%s: the checkpoint's %s: EagleLlamaForCausalLM has no lm_head to load it into (llama_eagle.py:131-184); not modelled", dir, name)
		case strings.Contains(name, "lm_head"):
			if slices.Equal(shape, []uint64{a.Vocab, a.Hidden}) {
				return d, fmt.Errorf("%s: the checkpoint's %s has the target's shape: vLLM shares it only when its values equal the target's (llm_base_proposer.py:1529-1560), which membudget cannot read; not modelled", dir, name)
			}
			d.OwnHead = true
		}
	}
	return d, nil
}

// draftModelType reads the draft config's model_type, which picks the
// transformers config class vLLM loads it as, and so the defaults of the
// keys it leaves out (EAGLEConfig copies every attribute of that class's
// to_dict, vllm/transformers_utils/configs/eagle.py:80-83): "llama" or
// none (LlamaConfig's, the keys membudget reads), or for an EAGLE-3 draft
// "gpt_oss" (GptOssConfig's: attention_bias true, 8 KV heads of 64,
// layer_types alternating from a sliding layer at sliding_window 128, as
// SpecForge's gpt-oss drafts are typed). It says whether the type is
// gpt_oss; any other type is refused by name.
func draftModelType(file string, cfg map[string]json.RawMessage, method string) (bool, error) {
	raw, ok := cfg["model_type"]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	var typ string
	if err := json.Unmarshal(raw, &typ); err != nil {
		return false, fmt.Errorf("%s: key \"model_type\" is %s; want a string", file, raw)
	}
	switch {
	case typ == "llama":
		return false, nil
	case typ == "gpt_oss" && method == "eagle3":
		return true, nil
	}
	return false, fmt.Errorf("%s: model_type %q: vLLM loads the draft's config as that type's transformers class, whose defaults membudget has not read (it reads llama, and gpt_oss for an EAGLE-3 draft); not modelled", file, typ)
}

// draftWindows is each draft layer's sliding window (see [Draft].Windows),
// nil where every layer is full attention: layer_types, or GptOssConfig's
// default for a gpt_oss-typed config ("sliding_attention" on even layers),
// with sliding_window (GptOssConfig's 128 where absent), read from entry
// offset on (an EAGLE-1 draft's layers are indexed past the target's).
// An empty list is none (vLLM's test is its truth, llama.py:184); a list
// shorter than offset plus the draft's layers fails vLLM's assert
// (llama.py:195-198), and a type other than the two, or a sliding layer
// of no window, is refused.
func draftWindows(file string, cfg map[string]json.RawMessage, layers, offset uint64, gptOss bool) ([]uint64, error) {
	var types []string
	if raw, ok := cfg["layer_types"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &types); err != nil {
			return nil, fmt.Errorf("%s: key \"layer_types\" is %s; want a list of strings", file, raw)
		}
		if len(types) == 0 {
			if gptOss {
				// GptOssConfig keeps an empty list as given; whether its
				// validation takes one was not read.
				return nil, fmt.Errorf("%s: layer_types is empty in a gpt_oss-typed draft config: GptOssConfig's reading of it was not read; not modelled", file)
			}
			// An empty list is falsy: llama.py:184 takes every layer as
			// full attention, with no assert.
			return nil, nil
		}
		if offset > 0 && uint64(len(types)) < offset+layers {
			return nil, fmt.Errorf("%s: layer_types has %d entries: an EAGLE draft's layer reads it at its own index, counted from the target's %d layers (llama_eagle.py:89 sets no target_layer_count), so vLLM asserts unless it has %d (llama.py:187-198)", file, len(types), offset, offset+layers)
		}
		types = types[min(offset, uint64(len(types))):]
		if uint64(len(types)) < layers {
			return nil, fmt.Errorf("%s: layer_types has %d entries for %d layers: vLLM asserts one a layer (llama.py:195-198)", file, len(types), layers)
		}
	} else if gptOss {
		for i := range layers {
			t := "full_attention"
			if i%2 == 0 {
				t = "sliding_attention"
			}
			types = append(types, t)
		}
	}
	if types == nil {
		return nil, nil
	}
	var window uint64
	if raw, ok := cfg["sliding_window"]; ok && string(raw) != "null" {
		n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 32)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%s: key \"sliding_window\" is %s; want a positive integer", file, raw)
		}
		window = n
	} else if !ok && gptOss {
		window = 128 // GptOssConfig's default; null is None, refused below
	}
	var out []uint64
	for i := range layers {
		switch types[i] {
		case "full_attention":
			out = append(out, 0)
		case "sliding_attention":
			if window == 0 {
				return nil, fmt.Errorf("%s: layer_types makes draft layer %d sliding with no sliding_window: not modelled", file, i)
			}
			out = append(out, window)
		default:
			return nil, fmt.Errorf("%s: layer_types[%d] is %q: membudget reads full_attention and sliding_attention draft layers only", file, i, types[i])
		}
	}
	if !slices.ContainsFunc(out, func(w uint64) bool { return w > 0 }) {
		return nil, nil
	}
	return out, nil
}

// llamaDraftRotary is a llama-typed draft's own rotary cos/sin table, rows
// x rotary dim, or 0 rows where vLLM hands it the target's: the draft's
// LlamaAttention asks get_rope for a table of its head size, its config's
// max_position_embeddings and rope parameters, in the model dtype
// (llama.py:234-245), and get_rope returns the one it built for the target
// only where that whole key is equal (rotary_embedding/__init__.py:33-84:
// head size, rotary dim, max position, is_neox_style, the rope parameters'
// items, dual_chunk_attention_config, dtype; is_neox_style is true for
// every target the drafts are sized on). Otherwise the draft builds its
// own, a cos_sin_cache buffer of max_position x rotary_dim cast to the
// model dtype (rotary_embedding/base.py:58-63, 94-104), four times the
// rows for M-RoPE (mrope.py:274-280). Where membudget cannot tell the keys
// equal (a config leaving rope_theta to its class's default, parameters
// written differently) it charges the table: an over-count of it at most.
func llamaDraftRotary(file string, data []byte, headDim uint64, a *model.Arch) (rows, dim uint64, err error) {
	t, key, err := model.DraftRotary(file, data, headDim)
	if err != nil {
		return 0, 0, err
	}
	target := llamaRopeKey(a) // a llama target is a LlamaConfig too
	i := slices.IndexFunc(a.Rotary, func(r model.RotaryTable) bool { return r.Name == "rotary_emb" })
	if i >= 0 && a.Rotary[i].Dtype == "" && !a.Rotary[i].Served && a.HeadDim == headDim &&
		a.Rotary[i].Dim == t.Dim && a.Rotary[i].Positions == t.Positions && key.SameTable(target) {
		return 0, 0, nil
	}
	return t.Positions, t.Dim, nil
}

// llamaRopeKey is a's [model.RopeKey] with LlamaConfig's rope_theta
// (model.LlamaRopeTheta) where a llama config gives none, as transformers
// fills it: the key get_rope sees for such a model.
func llamaRopeKey(a *model.Arch) model.RopeKey {
	k := a.RopeKey
	if k.Theta == 0 && a.ModelType == "llama" {
		k.Theta = model.LlamaRopeTheta
	}
	return k
}

// draftMRoPE says the draft config's rope parameters (rope_scaling, or
// rope_parameters as transformers 5 writes them) hold an mrope_section,
// which is what vLLM's uses_mrope reads as M-RoPE (vllm/transformers_utils/
// config.py:552-557 at d18bb7b, the same test since PR #29872 of
// 2025-12-02, before 0.14.0): a legacy "mrope" type without a section is
// not M-RoPE to vLLM (patch_legacy_rope_type renames it, :479-504).
func draftMRoPE(cfg map[string]json.RawMessage) bool {
	for _, k := range []string{"rope_scaling", "rope_parameters"} {
		var rs map[string]json.RawMessage
		if raw, ok := cfg[k]; ok && json.Unmarshal(raw, &rs) == nil && rs != nil {
			if _, ok := rs["mrope_section"]; ok {
				return true
			}
		}
	}
	return false
}

// targetMRoPE says target a's rotary embedding is M-RoPE.
func targetMRoPE(a *model.Arch) bool {
	return slices.ContainsFunc(a.RopeScalings, func(r model.RopeScaling) bool { return r.MRoPE })
}

// readAuxLayers reads the target layers an EAGLE-3 draft names for its
// auxiliary hidden states: eagle_aux_hidden_state_layer_ids at the top
// level, which the runner takes first, or in eagle_config
// (gpu_model_runner.py:5595-5627; the V2 runner's eagle3_utils.py:35-60),
// whose count is also the fc's inputs (llama_eagle3.py:176-186). The
// footprint does not depend on which layers, only that there are three
// new tensors alive through the target's last layers: ids 1 to L-1, each
// taken after layer id-1 (EagleModelMixin, interfaces.py:1499-1509; the
// target's forward calls it with i+1). Any other count, a repeat, id 0
// (the embedding itself, residual None) or an id past L-1 is refused by
// name. eagle_config may also say use_aux_hidden_state (true is the
// default, llama_eagle3.py:145-148); its other keys are refused.
func readAuxLayers(file string, cfg map[string]json.RawMessage, a *model.Arch) error {
	check := func(key string, raw json.RawMessage) error {
		if string(raw) == "null" {
			return nil
		}
		var ids []int64
		if err := json.Unmarshal(raw, &ids); err != nil {
			return fmt.Errorf("%s: key %q is %s; want a list of integers", file, key, raw)
		}
		if len(ids) == 0 {
			return nil // an empty list is vLLM's "not given" (gpu_model_runner.py:5626)
		}
		l := int64(len(a.Layers))
		for i, id := range ids {
			if len(ids) != eagle3AuxStates || id < 1 || id >= l || slices.Contains(ids[:i], id) {
				return fmt.Errorf("%s: key %q is %s: membudget sizes %d distinct target layers from 1 to %d (the target's %d layers' outputs before its last), the states alive through its last layers; not modelled", file, key, raw, eagle3AuxStates, l-1, l)
			}
		}
		return nil
	}
	if raw, ok := cfg["eagle_aux_hidden_state_layer_ids"]; ok {
		if err := check("eagle_aux_hidden_state_layer_ids", raw); err != nil {
			return err
		}
	}
	raw, ok := cfg["eagle_config"]
	if !ok || string(raw) == "null" {
		return nil
	}
	var ec map[string]json.RawMessage
	if err := json.Unmarshal(raw, &ec); err != nil {
		return fmt.Errorf("%s: key \"eagle_config\" is %s; want an object", file, raw)
	}
	for _, k := range slices.Sorted(maps.Keys(ec)) {
		switch v := ec[k]; {
		case k == "eagle_aux_hidden_state_layer_ids":
			if err := check("eagle_config."+k, v); err != nil {
				return err
			}
		case k == "use_aux_hidden_state" && string(v) == "true":
		default:
			return fmt.Errorf("%s: key \"eagle_config.%s\" is %s: not modelled for an EAGLE-3 draft; membudget refuses it rather than size a serve vLLM would contradict", file, k, v)
		}
	}
	return nil
}

// draftTensorShapes is the shape of every tensor of the draft's
// safetensors checkpoint, by name, read from the headers alone.
func draftTensorShapes(dir string) (map[string][]uint64, error) {
	files := []string{"model.safetensors"}
	index := filepath.Join(dir, "model.safetensors.index.json")
	if data, err := readFileLimited(index, maxDraftConfig); err == nil {
		var idx struct {
			WeightMap map[string]string `json:"weight_map"`
		}
		if err := json.Unmarshal(data, &idx); err != nil || len(idx.WeightMap) == 0 {
			return nil, fmt.Errorf("%s: want an object with a weight_map", index)
		}
		files = files[:0]
		for _, f := range idx.WeightMap {
			if filepath.Base(f) != f || !strings.HasSuffix(f, ".safetensors") {
				return nil, fmt.Errorf("%s: shard %q is not a safetensors file of the directory", index, f)
			}
			if !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
		if len(files) > maxDraftShards {
			return nil, fmt.Errorf("%s: more than %d shards", index, maxDraftShards)
		}
		slices.Sort(files)
	} else if !os.IsNotExist(err) {
		return nil, err
	}
	out := map[string][]uint64{}
	for _, name := range files {
		file := filepath.Join(dir, name)
		f, size, err := hub.OpenRegularFile(file)
		if err != nil {
			if os.IsNotExist(err) {
				return nil, fmt.Errorf("%s: %w: membudget reads its tensor names to tell what vLLM shares with the target (a pytorch_model.bin is not read)", dir, errNoSafetensors)
			}
			return nil, err
		}
		h, err := safetensors.ReadHeader(file, f, size)
		f.Close()
		if err != nil {
			return nil, err
		}
		for _, t := range h.Tensors {
			out[t.Name] = t.Shape
		}
	}
	return out, nil
}

// resolveDraft reads the draft of an eagle3 or eagle --speculative-config
// (from its directory, or as preloadHubDraft read it by its Hub id) and
// refuses, naming the flag, what vLLM refuses and what membudget does not
// size: a target whose classes membudget has not read for EAGLE drafts,
// pipeline parallelism, the V2 model runner where its speculator is not
// sized (specv2.go). The drafter's CUDA graphs on
// the V1 runner are sized (specgraphs.go), once the graphs are resolved.
func (r *Resolved) resolveDraft(sc specConfig, a *model.Arch) (*Draft, error) {
	p := r.Profile
	name := draftName(sc.method)
	if sc.model == "" {
		// SpeculativeConfig.__post_init__ (speculative.py:758-797).
		return nil, settingErr("speculative-config", sc.method, "vLLM refuses it: num_speculative_tokens was provided but without speculative model (an %s config needs the draft's \"model\")", sc.method)
	}
	if what := specDraftRefusal(r.SpeculativeConfig, p); what != "" {
		return nil, settingErr("speculative-config", sc.method, "%s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", what, p.Describes)
	}
	targets := eagle3Targets
	if sc.method == "eagle" {
		targets = eagleTargets
	}
	if !slices.Contains(targets, firstArch(a)) {
		why := ""
		if r, ok := eagle3Unread[firstArch(a)]; ok && sc.method == "eagle3" {
			why = "; " + r
		}
		return nil, settingErr("speculative-config", sc.method, "an %s draft on %s (%s%s; membudget sizes it on %s, whose vLLM classes return the auxiliary hidden states EAGLE-3 reads and whose embedding and LM head an EAGLE draft shares): not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", name, a.Source, firstArch(a), why, strings.Join(targets, ", "), p.Describes)
	}
	if since, ok := eagle3Since[firstArch(a)]; ok && sc.method == "eagle3" && p.Release.Less(since.v) {
		return nil, settingErr("speculative-config", sc.method, "vLLM fails on it: %s's language model returns EAGLE-3's auxiliary hidden states from %s, vLLM %s, not in %s", firstArch(a), since.pr, since.v, p.Describes)
	}
	if r.PipelineParallelSize > 1 {
		return nil, settingErr("pipeline-parallel-size", r.PipelineParallelSize, "an %s draft under pipeline parallelism (the drafter on the last stage, its own embedding, llm_base_proposer.py:1436-1520): not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", name, p.Describes)
	}
	v2 := p.V2Runner(a)
	if v2 {
		if why, ok := eagle3V1Only[firstArch(a)]; ok {
			return nil, settingErr("speculative-config", sc.method, "an %s draft on %s (%s): %s; not modelled for %s (sized on the V1 runner); membudget refuses it rather than size a serve vLLM would contradict", name, a.Source, firstArch(a), why, p.Describes)
		}
		if err := specV2Refusal(sc.method, p, a); err != nil {
			return nil, err
		}
	}
	d, err := loadDraftOf(sc, a)
	if err != nil {
		return nil, settingErr("speculative-config", sc.method, "the draft %s", untrusted.Text(err.Error()))
	}
	tp := max(r.TensorParallelSize, 1) // 0 before the serve's defaults (explain's dropUnsizedSpec): vLLM's 1
	if w := slices.Max(append([]uint64{0}, d.Windows...)); w > 0 && !targetSlides(a, w, d, tp) {
		// A sliding draft layer whose spec is none of the target's would
		// be a KV group of its own (and the drafter's layers must share
		// one group, llm_base_proposer.py kv_cache_gid).
		return nil, settingErr("speculative-config", sc.method, "the %s draft's sliding-window layer (window %d, %d KV heads of %d) matches no sliding layer of %s (%s): a KV group of its own, not modelled; membudget refuses it rather than size a serve vLLM would contradict", name, w, d.KVHeads, d.HeadDim, a.Source, firstArch(a))
	}
	if d.MRoPE != targetMRoPE(a) {
		// The V1 proposer sizes its positions by the draft's M-RoPE since
		// PR #32048 (2026-01-21), by the target's before: where they
		// differ, the buffer depends on a release boundary not read.
		return nil, settingErr("speculative-config", sc.method, "the %s draft's M-RoPE (%v) differs from %s's (%v): the proposer's positions follow the draft's from PR #32048 (2026-01-21) and the target's before, not modelled", name, d.MRoPE, a.Source, targetMRoPE(a))
	}
	if len(d.Windows) > 0 && strings.TrimSpace(r.KVCacheDtypeSkipLayers) != "" {
		// Whether the skip list reaches the draft's sliding layer (its
		// index is past the target's) was not read.
		return nil, settingErr("kv-cache-dtype-skip-layers", r.KVCacheDtypeSkipLayers, "with an %s draft's sliding-window layer: whether the draft's layer keeps the model's dtype was not read; not modelled", name)
	}
	if len(d.Windows) > 0 && slices.Contains(d.Windows, 0) {
		return nil, settingErr("speculative-config", sc.method, "the %s draft's layers are both sliding-window and full attention: KV groups the drafter's one attention group (llm_base_proposer.py kv_cache_gid) cannot hold, not modelled", name)
	}
	if d.Heads%tp != 0 || (d.KVHeads >= tp && d.KVHeads%tp != 0) || (d.KVHeads < tp && tp%d.KVHeads != 0) || d.Intermediate%tp != 0 {
		// QKVParallelLinear and MergedColumnParallelLinear divide them
		// (vllm/model_executor/layers/linear.py).
		return nil, settingErr("tensor-parallel-size", tp, "vLLM cannot shard the %s draft (%d heads, %d KV heads, intermediate %d) over %d ranks", name, d.Heads, d.KVHeads, d.Intermediate, tp)
	}
	d.V2 = v2
	return &d, nil
}

// draftTensors yields the bytes of each tensor of the draft on one GPU of
// the last stage at tensor-parallel size tp and dtype bytes el, as
// Eagle3LlamaForCausalLM builds them (llama_eagle3.py): per decoder layer,
// qkv_proj (2 x hidden inputs on layer 0, :46-57), o_proj, gate_up_proj
// and down_proj divided among the ranks, and three norms (input,
// post-attention, hidden_norm, :66); fc, replicated (:208-216); the final
// norm; the embedding and the LM head divided among the ranks where the
// draft keeps its own (padded to 64 rows, VocabParallelEmbedding); and
// draft_id_to_target_id, draft_vocab int64 (:304-307), replicated; its
// own rotary table where it has one ([Draft].RotaryRows). The
// draft is served in the target's dtype (speculative.py:909,
// dtype=self.target_model_config.dtype). An embedding vLLM shares is built
// and deleted while the model loads (llm_base_proposer.py:1513-1516): the
// caching allocator's cache holds it until vLLM empties it before the KV
// cache is allocated, so it is no steady term.
func draftTensors(d *Draft, tp, el uint64, yield func(uint64)) {
	switch d.Method {
	case "eagle":
		eagleTensors(d, tp, el, yield)
		return
	case "draft_model":
		draftModelTensors(d, tp, el, yield)
		return
	}
	kv := max(1, d.KVHeads/tp)
	heads := d.Heads / tp
	qkvOut := (heads + 2*kv) * d.HeadDim
	mul := budget.SatMul
	for j := range d.Layers {
		in := d.Hidden
		if j == 0 {
			in = 2 * d.Hidden
		}
		yield(mul(mul(in, qkvOut), el))
		if d.AttentionBias {
			yield(mul(qkvOut, el))
		}
		yield(mul(mul(heads*d.HeadDim, d.Hidden), el))
		if d.OBias {
			yield(mul(d.Hidden, el)) // RowParallelLinear's bias is whole on each rank
		}
		yield(mul(mul(2*(d.Intermediate/tp), d.Hidden), el))
		yield(mul(mul(d.Intermediate/tp, d.Hidden), el))
		for range 3 {
			yield(mul(d.Hidden, el))
		}
	}
	if d.FCInput > 0 {
		yield(mul(mul(d.FCInput, d.Hidden), el))
	}
	yield(mul(d.Hidden, el))
	if d.OwnEmbed {
		yield(mul(mul(budget.CeilDiv(budget.RoundUp(d.Vocab, vocabPadding), tp), d.Hidden), el))
	}
	if d.OwnHead {
		yield(mul(mul(budget.CeilDiv(budget.RoundUp(d.DraftVocab, vocabPadding), tp), d.Hidden), el))
	}
	yield(mul(d.DraftVocab, 8))
	if d.RotaryRows > 0 {
		yield(mul(mul(d.RotaryRows, d.RotaryDim), el)) // the cos/sin table, whole on each rank
	}
}

// eachDraftTensor yields the bytes of each tensor of the serve's draft
// (an EAGLE or draft model's, the MTP layers', or the Medusa heads') on a
// GPU of stage st: on the last stage only, where the drafter runs.
func eachDraftTensor(a *model.Arch, r *Resolved, st model.Sharding, yield func(uint64)) {
	if !st.Last {
		return
	}
	if d := r.Spec.Draft; d != nil {
		draftTensors(d, r.TensorParallelSize, r.DtypeBytes, yield)
	}
	if r.Spec.MTPLayers > 0 {
		mtpTensors(a, r, st, yield)
	}
	if m := r.Spec.Medusa; m != nil {
		medusaTensors(m, r.TensorParallelSize, r.DtypeBytes, yield)
	}
}

// draftWeightBytes is the draft's weights on a GPU of stage st.
func draftWeightBytes(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	var n uint64
	eachDraftTensor(a, r, st, func(b uint64) { n = budget.SatAdd(n, b) })
	return n
}

// eachProposerBuffer yields the bytes of each persistent buffer the
// drafter's proposer allocates on a GPU of stage st (the last, where it
// runs) when the runner is built, before the profile run measures its
// peak (vllm/v1/spec_decode/llm_base_proposer.py:142-262 at d18bb7b):
// with T = max_num_batched_tokens and B = max_num_seqs, input_ids T int32,
// positions T int64 (mrope_positions 3 x (T+1) int64 for an M-RoPE draft,
// :172-191), hidden_states and inputs_embeds T x the draft's
// hidden size in the model dtype, arange max(B+1, T) int32, the slot
// mapping T int64 and backup_next_token_ids B int32. EAGLE-3 and MTP need
// no extra input slots, so the rejected and masked token masks are not
// allocated (:224-237).
func eachProposerBuffer(a *model.Arch, r *Resolved, st model.Sharding, yield func(uint64)) {
	if !st.Last || onV2Speculator(r) { // the V2 speculator's are specV2Buffers
		return
	}
	var hidden uint64
	switch {
	case r.Spec.Draft != nil:
		hidden = r.Spec.Draft.Hidden
	case r.Spec.MTPLayers > 0:
		hidden = a.Hidden
	default:
		return
	}
	t, b := r.MaxNumBatchedTokens, r.MaxNumSeqs
	mul := budget.SatMul
	if d := r.Spec.Draft; d != nil && d.Method == "draft_model" {
		yield(draftModelMasks(r))
	}
	yield(mul(t, 4))
	if d := r.Spec.Draft; d != nil && d.MRoPE {
		// mrope_positions, 3 x (T+1) int64, in place of positions
		// (llm_base_proposer.py:172-191).
		yield(mul(mul(3, budget.SatAdd(t, 1)), 8))
	} else {
		yield(mul(t, 8))
	}
	yield(mul(mul(t, hidden), r.DtypeBytes))
	yield(mul(max(budget.SatAdd(b, 1), t), 4))
	yield(mul(mul(t, hidden), r.DtypeBytes))
	yield(mul(t, 8))
	yield(mul(b, 4))
}

// proposerBufferBytes is the proposer's persistent buffers on a GPU of
// stage st (see eachProposerBuffer).
func proposerBufferBytes(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	var n uint64
	eachProposerBuffer(a, r, st, func(b uint64) { n = budget.SatAdd(n, b) })
	return n
}

// addDraftPools adds the draft's tensors and its proposer's buffers to the
// stage's caching-allocator pools, whose slack they share.
func addDraftPools(p torchalloc.Pools, a *model.Arch, r *Resolved, st model.Sharding) torchalloc.Pools {
	eachDraftTensor(a, r, st, func(b uint64) { p = p.Add(b, 1) })
	eachProposerBuffer(a, r, st, func(b uint64) { p = p.Add(b, 1) })
	return p
}

// appendDraftItems appends the draft's weights and its proposer's buffers
// to a stage's items. The buffers are allocated when the runner is built,
// not while the model loads, so vLLM counts them in its profile's peak
// rather than in "Model loading took": they are charged with the
// activations.
func appendDraftItems(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding) []budget.Item {
	if n := draftWeightBytes(a, r, st); n > 0 {
		items = append(items, budget.Item{Name: "draft_weights", Term: budget.TermWeights, Bytes: n})
	}
	if n := proposerBufferBytes(a, r, st); n > 0 {
		items = append(items, budget.Item{Name: "draft_buffers", Term: budget.TermActivation, Bytes: n})
	}
	return items
}

// draftSpecs is the KV cache spec of each of the draft's attention layers,
// numbered after the target's first layers: full attention of the draft's
// KV heads on a rank and head size, in the serve's block size and KV
// dtype, as its Attention layers report them (kv_cache_interface.py:
// 259-375). Where they equal the target's the layers join its group (the
// same page, more layers); else they are layers of their own spec.
func draftSpecs(r *Resolved, specs []layerSpec, first int) []layerSpec {
	if r.Spec.MTPLayers > 0 {
		return mtpSpecs(r, specs, first)
	}
	d := r.Spec.Draft
	if d == nil {
		return nil
	}
	if d.Method == "draft_model" {
		return draftModelSpecs(r, first)
	}
	heads := max(1, d.KVHeads/r.TensorParallelSize)
	out := make([]layerSpec, 0, d.Layers)
	for j := range int(d.Layers) {
		s := layerSpec{layer: first + j, draft: true, kind: fullSpec, block: r.BlockSize, heads: heads, headDim: d.HeadDim,
			page: budget.SatMul(budget.SatMul(r.BlockSize, 2*heads*d.HeadDim), r.KVDtypeBytes)}
		if j < len(d.Windows) && d.Windows[j] > 0 {
			// A sliding draft layer is the SlidingWindowSpec of the
			// target's sliding layers of its window and shape (resolveDraft
			// refuses one that matches none): the same block and page, so
			// it joins their group.
			if i := slices.IndexFunc(specs, func(t layerSpec) bool {
				return t.kind == slidingSpec && !t.draft && !t.modelDtype && t.window == d.Windows[j] && t.heads == heads && t.headDim == d.HeadDim
			}); i >= 0 {
				s = specs[i]
				s.layer, s.draft = first+j, true
			}
		}
		out = append(out, s)
	}
	return out
}

// targetSlides says target a has a sliding-window layer of window w and
// the draft's KV shape at tensor-parallel size tp, whose spec a sliding
// draft layer shares.
func targetSlides(a *model.Arch, w uint64, d Draft, tp uint64) bool {
	if a.SlidingWindow != w {
		return false
	}
	for i, l := range a.Layers {
		if l.Kind != model.SlidingAttention {
			continue
		}
		if heads, dim := layerKVShape(a, i, tp); heads == max(1, d.KVHeads/tp) && dim == d.HeadDim {
			return true
		}
	}
	return false
}

// draftShape is what the draft's KV specs depend on beyond the serve's
// block and dtype, for the compiler's memo of layouts: the zero shape
// without a draft.
type draftShape struct {
	method                              string
	layers, kvHeads, headDim, mtpLayers uint64
	windows                             string // fmt.Sprint of Draft.Windows: "[]" where every draft layer is full attention, "" without a draft
}

// draftKey returns the serve's draftShape.
func draftKey(r *Resolved) draftShape {
	if d := r.Spec.Draft; d != nil {
		return draftShape{method: d.Method, layers: d.Layers, kvHeads: d.KVHeads, headDim: d.HeadDim, windows: fmt.Sprint(d.Windows)}
	}
	return draftShape{mtpLayers: r.Spec.MTPLayers}
}

// draftKVBytes is the draft layers' share of the KV cache on a GPU of
// the last stage: the blocks allocated times each draft layer's page.
func (sz *Sizing) draftKVBytes() uint64 {
	r := sz.Serve
	if r.Spec.Draft == nil && r.Spec.MTPLayers == 0 {
		return 0
	}
	var n uint64
	for _, s := range layerSpecs(sz.Model.Arch, r) {
		if s.draft {
			n = budget.SatAdd(n, s.page)
		}
	}
	return budget.SatMul(sz.capacity.Blocks, n)
}

// draftWeightItem is the draft's weights on a GPU of stage i.
func (sz *Sizing) draftWeightItem(i int) uint64 {
	r := sz.Serve
	if i >= len(r.Stages) {
		return 0
	}
	return draftWeightBytes(sz.Model.Arch, r, stageOf(r, i))
}

// splitDraft names the draft's weights in a footprint's lines: the
// weights line without them, then theirs (the sum is the weights term).
func (sz *Sizing) splitDraft(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	return splitOut(lines, budget.TermWeights, "draft weights", sz.draftWeightItem(fp.Stage))
}

// draftSettings is the report's line of the draft: what it holds and
// what the scheduler reserves for it.
func (sz *Sizing) draftSettings() string {
	r := sz.Serve
	if r.Spec.MTPLayers > 0 {
		return fmt.Sprintf("MTP: the model's %d MTP layer(s) loaded as the draft, %s of weights on the last stage (the target's embedding and LM head shared); their attention layer(s) add %s to the KV cache beside the target's %d; the scheduler reserves %d lookahead slot(s) a running request within its blocks, not counted by vLLM's startup check",
			r.Spec.MTPLayers, engine.GiB(sz.draftWeightItem(len(r.Stages)-1)), engine.GiB(sz.draftKVBytes()), len(sz.Model.Arch.Layers), r.Spec.Tokens)
	}
	d := r.Spec.Draft
	if d.Method == "draft_model" {
		return fmt.Sprintf("draft model %s: %d layer(s), %s of weights on the last stage at the target's tensor parallel size (its own embedding and LM head); its %d attention layer(s) add %s to the KV cache beside the target's %d; the scheduler reserves one more slot and %d lookahead slot(s) a running request within its blocks (scheduler.py num_lookahead_tokens), not counted by vLLM's startup check",
			untrusted.Text(d.Path), d.Layers, engine.GiB(sz.draftWeightItem(len(r.Stages)-1)), d.Layers, engine.GiB(sz.draftKVBytes()), len(sz.Model.Arch.Layers), r.Spec.Tokens)
	}
	shared := func(own bool) string {
		if own {
			return "its own"
		}
		return "the target's"
	}
	return fmt.Sprintf("%s draft %s: %d layer(s), %s of weights on the last stage (%s embedding, %s LM head); its %d attention layer(s) add %s to the KV cache beside the target's %d; the scheduler reserves %d lookahead slot(s) a running request within its blocks (scheduler.py num_lookahead_tokens), not counted by vLLM's startup check",
		draftName(d.Method), untrusted.Text(d.Path), d.Layers, engine.GiB(sz.draftWeightItem(len(r.Stages)-1)), shared(d.OwnEmbed), shared(d.OwnHead), d.Layers, engine.GiB(sz.draftKVBytes()), len(sz.Model.Arch.Layers), r.Spec.Tokens)
}

// specDraftRefusal is what refuses an eagle3, eagle, draft_model or mtp
// --speculative-config under profile p before any model is read: a
// release whose speculative decoding membudget has not read. "" when the
// object is no such config. (A draft named by its Hub id is read as
// --model is, specdrafthub.go.)
func specDraftRefusal(v string, p Profile) string {
	sc, err := parseSpecConfig(v)
	if err != nil {
		return ""
	}
	m := specMethod(sc)
	what := "an " + draftName(m) + " draft (its weights from its config.json and checkpoint, the target's embedding and LM head shared or not as its checkpoint says, its attention layers added to the KV cache groups, k lookahead KV slots a request)"
	if m == "draft_model" {
		what = draftModelWhat
	}
	switch {
	case m == "mtp" && (p.Era == V0 || p.Release.Less(specSince)):
		return "the model's own MTP layers as the draft (their weights, their attention layers added to the KV cache groups, k lookahead KV slots a request)"
	case m != "eagle3" && m != "eagle" && m != "draft_model":
		return ""
	case p.Era == V0 || p.Release.Less(specSince):
		return what
	}
	return ""
}

// specHubDraft is what a refusal of a draft named by a Hub id that was
// not read adds (see [preloadHubDraft]).
const specHubDraft = " from the Hugging Face Hub, not read: membudget reads a draft named by its Hub id as it reads --model, when it sizes the serve of a loaded model"

// DraftPath says a --speculative-config "model" names a local directory
// rather than a Hub id: it is written as a path (absolute, or from . or
// ~). The judgement reads nothing on disk, so that a flag refused before
// any path policy is applied tells nothing of the host's files.
func DraftPath(model string) bool {
	return filepath.IsAbs(model) || strings.HasPrefix(model, ".") || strings.HasPrefix(model, "~")
}

// SpecDraftModel is the draft directory or id a --speculative-config
// value names, "" when none: what a server's path policy checks before
// the draft is read.
func SpecDraftModel(v string) string {
	sc, err := parseSpecConfig(v)
	if err != nil {
		return ""
	}
	return sc.model
}
