package sglang

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget"
	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/logs"
)

// eagle3Llama8B is yuhuili/EAGLE3-LLaMA3.1-Instruct-8B's config.json (the
// Hub's, as published), the draft SGLang's docs pair with
// Llama-3.1-8B-Instruct.
const eagle3Llama8B = `{
  "architectures": ["LlamaForCausalLMEagle3"],
  "bos_token_id": 128000, "eos_token_id": 128001, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 2048, "model_type": "llama",
  "num_attention_heads": 32, "num_key_value_heads": 8, "num_hidden_layers": 1,
  "pad_token_id": 0, "rms_norm_eps": 1e-05, "tie_word_embeddings": false,
  "torch_dtype": "float16", "transformers_version": "4.28.1", "use_cache": true,
  "vocab_size": 128256, "draft_vocab_size": 32000
}`

// draftDir writes config as a draft directory's config.json.
func draftDir(t testing.TB, config string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// plainPoolTokens checks that spec, the serve s with a draft, keeps the
// target pool of s without one at the fraction msf the draft's serve took
// (the draft's pool is its own, beside the target's), and returns spec's
// token count.
func plainPoolTokens(t *testing.T, spec *Reference, a *model.Arch, s Serve, c budget.Class, p Profile, msf float64) uint64 {
	t.Helper()
	plainServe := s
	plainServe.Spec, plainServe.MemFractionStatic = Spec{}, msf
	got, want := spec.Capacity().MaxTotalNumTokens, ref(t, a, plainServe, c, p).Capacity().MaxTotalNumTokens
	if got != want {
		t.Errorf("#tokens %d, want the plain pool's %d", got, want)
	}
	return uint64(got)
}

// itemBytes is the bytes of the items named name in items.
func itemBytes(items []budget.Item, name string) uint64 {
	var n uint64
	for _, it := range items {
		if it.Name == name {
			n += it.Bytes
		}
	}
	return n
}

// prefixBytes is the bytes of the items whose names start with prefix in
// items (a layer's tensors, say).
func prefixBytes(items []budget.Item, prefix string) uint64 {
	var n uint64
	for _, it := range items {
		if strings.HasPrefix(it.Name, prefix) {
			n += it.Bytes
		}
	}
	return n
}

// checkDraftLoad checks that spec's load is plain's grown by the draft's
// tensors worked by hand (draft), with the target's layer 60 added where
// decoder is set (the MTP decoder layer, sized as the target's last layer:
// TestSpecNextNByHand), and by the allocator's slack over them; it returns
// that growth.
func checkDraftLoad(t *testing.T, spec, plain *Reference, draft uint64, decoder bool) uint64 {
	t.Helper()
	if decoder {
		draft += prefixBytes(spec.stages[0].weights, "model.layers.60.")
	}
	slack := itemBytes(spec.stages[0].weights, "weights.allocator_slack") - itemBytes(plain.stages[0].weights, "weights.allocator_slack")
	if g := spec.Capacity().LoadedBytes - plain.Capacity().LoadedBytes; g != draft+slack {
		t.Errorf("the load grew by %d B, want the draft's %d + slack %d", g, draft, slack)
	}
	return draft + slack
}

func TestSpecEagle3ByHand(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	c := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	s := Serve{Dtype: "bfloat16", DisableCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}}
	spec := ref(t, a, s, c, current)
	r := spec.Serve

	// The default fraction: 81080 MiB (floor of the class's bytes); 512 +
	// 1.5 x 8192 (chunked prefill) + 2 x 256 (cuda_graph_max_bs) + 1024 /
	// 8 (one rank) = 13440 MiB, above the 10 GiB floor; + 2048 for the
	// draft = 15488; round((81080 - 15488) / 81080, 3) = round(0.80898) =
	// 0.809.
	if r.MemFractionStatic != 0.809 || r.ReservedMiB != 15488 {
		t.Errorf("msf %v reserving %v MiB, want 0.809 reserving 15488", r.MemFractionStatic, r.ReservedMiB)
	}
	// LlamaForCausalLM: auto_choose_speculative_params' (5, 4, 8); 48
	// requests.
	if d := r.Draft; d.Steps != 5 || d.TopK != 4 || d.DraftTokens != 8 || r.MaxRunningRequests != 48 {
		t.Errorf("steps %d top-k %d draft tokens %d, max-running-requests %d; want 5 4 8, 48", d.Steps, d.TopK, d.DraftTokens, r.MaxRunningRequests)
	}

	// The same serve without the draft at the same fraction holds what
	// the rest holds; v0.5.6.post2 adds 48 x (5 x 4 + 8) + 100 = 1444
	// tokens of headroom.
	plain := ref(t, a, Serve{Dtype: "bfloat16", DisableCudaGraph: true, MemFractionStatic: 0.809}, c, current)
	base := plain.Capacity().MaxTotalNumTokens
	got := spec.Capacity()
	if got.MaxTotalNumTokens != base+1444 {
		t.Errorf("#tokens %d, want the plain pool's %d + 1444", got.MaxTotalNumTokens, base)
	}
	T := uint64(got.MaxTotalNumTokens)

	// The draft's pool: one layer of 8 KV heads x 128 x 2 (K and V) x 2
	// bytes = 4096 B a token, over T + 1 rows (the padding page).
	wantKV := (T + 1) * 4096
	// Its weights on the one rank, in bfloat16: fc 3 x 4096 x 4096;
	// qkv_proj (32 + 2 x 8) x 128 outputs of 2 x 4096 inputs; o_proj 4096
	// x 4096; gate_up 2 x 14336 x 4096; down 14336 x 4096; four norms of
	// 4096; lm_head 32000 rows (a multiple of 64) x 4096; hot_token_id
	// 32000 int64; the rotary table of 2048 positions grown to 131328
	// rows (align128(131072 + 256)) x 128 x 4 bytes; the embedding,
	// 128256 x 4096, until it is replaced by the target's.
	items := spec.EvaluateStage(0, 1, 1).Items
	for _, w := range []struct {
		name  string
		bytes uint64
	}{
		{"spec_draft.fc", 3 * 4096 * 4096 * 2},
		{"spec_draft.midlayer.self_attn.qkv_proj", 48 * 128 * 8192 * 2},
		{"spec_draft.midlayer.self_attn.o_proj", 4096 * 4096 * 2},
		{"spec_draft.midlayer.mlp.gate_up_proj", 2 * 14336 * 4096 * 2},
		{"spec_draft.midlayer.mlp.down_proj", 14336 * 4096 * 2},
		{"spec_draft.midlayer.hidden_norm", 4096 * 2},
		{"spec_draft.norm", 4096 * 2},
		{"spec_draft.lm_head", 32000 * 4096 * 2},
		{"spec_draft.hot_token_id", 32000 * 8},
		{"spec_draft.rotary_emb.0.cos_sin_cache", 131328 * 128 * 4},
		{"spec_draft.embed_tokens.until_shared", 128256 * 4096 * 2},
		{"spec_draft.kv_cache", wantKV},
		// 1444 tokens of the target's 32 layers x 4096 B.
		{"kv_cache.spec_headroom", 1444 * 32 * 4096},
		// 48 rows of 131072 + 4 + 8 int32.
		{"req_to_token", 48 * (131072 + 4 + 8) * 4},
	} {
		if g := itemBytes(items, w.name); g != w.bytes {
			t.Errorf("%s: %d B, want %d", w.name, g, w.bytes)
		}
	}
	line := fmt.Sprintf("KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB", T, float64(wantKV/2)/(1<<30), float64(wantKV/2)/(1<<30))
	if lines := got.LogLines(); len(lines) != 3 || lines[1] != line {
		t.Errorf("log lines %q, want the draft's %q second", lines, line)
	}
	if !strings.Contains(got.LogLines()[2], "max_running_requests=48,") {
		t.Errorf("scheduler line %q, want max_running_requests=48", got.LogLines()[2])
	}
}

func TestSpecNextNByHand(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V3"]
	c := class(t, "h200")
	spec := ref(t, a, Serve{TPSize: 8, DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN"}}, c, current)
	r := spec.Serve
	// 143165 MiB; 512 + 12288 + 2 x 512 (TP8's cuda_graph_max_bs) + 8 /
	// 8 x 1024 = 14848; + 2048 = 16896; round(126269 / 143165, 3) = 0.882.
	if r.MemFractionStatic != 0.882 {
		t.Errorf("msf %v, want 0.882", r.MemFractionStatic)
	}
	// DeepseekV3ForCausalLM: (3, 1, 4), and 4 = 3 + 1 at top-k 1.
	if d := r.Draft; d.Steps != 3 || d.TopK != 1 || d.DraftTokens != 4 || d.Kind != "mtp" || d.Layers != 1 {
		t.Errorf("draft %+v, want mtp of 1 layer, 3 steps, top-k 1, 4 draft tokens", *d)
	}
	plain := ref(t, a, Serve{TPSize: 8, DisableCudaGraph: true, MemFractionStatic: 0.882}, c, current)
	base := plain.Capacity().MaxTotalNumTokens
	got := spec.Capacity()
	// 48 x (3 x 1 + 4) + 100 = 436 tokens of headroom.
	if got.MaxTotalNumTokens != base+436 {
		t.Errorf("#tokens %d, want %d + 436", got.MaxTotalNumTokens, base)
	}
	T := uint64(got.MaxTotalNumTokens)
	items := spec.EvaluateStage(0, 1, 1).Items
	// The MTP layer's latent: (512 + 64) x 2 bytes over T + 1 rows; the
	// layer's tensors as the target's last layer (60) holds them; eh_proj
	// 2 x 7168 x 7168 x 2; the embedding and head, 129280 rows / 8 x 7168
	// x 2 each, until shared.
	layer60 := prefixBytes(spec.stages[0].weights, "model.layers.60.")
	decoder := prefixBytes(items, "spec_draft.decoder.")
	if decoder != layer60 || decoder == 0 {
		t.Errorf("the MTP decoder layer: %d B, want layer 60's %d", decoder, layer60)
	}
	for _, w := range []struct {
		name  string
		bytes uint64
	}{
		{"spec_draft.kv_cache", (T + 1) * 576 * 2},
		{"spec_draft.eh_proj", 2 * 7168 * 7168 * 2},
		{"spec_draft.embed_tokens.until_shared", 129280 / 8 * 7168 * 2},
		{"spec_draft.lm_head.until_shared", 129280 / 8 * 7168 * 2},
		{"kv_cache.spec_headroom", 436 * 61 * 576 * 2},
	} {
		if g := itemBytes(items, w.name); g != w.bytes {
			t.Errorf("%s: %d B, want %d", w.name, g, w.bytes)
		}
	}
	line := fmt.Sprintf("KV Cache is allocated. #tokens: %d, KV size: %.2f GB", T, float64((T+1)*1152)/(1<<30))
	if lines := got.LogLines(); len(lines) != 3 || lines[1] != line {
		t.Errorf("log lines %q, want the draft's %q second", lines, line)
	}
}

// TestSpecReleases pins what changed between the releases read: the
// headroom is gone from v0.5.7 (PR #15748), and from v0.5.8 a target
// auto_choose_speculative_params does not name gets (3, 1, 4).
func TestSpecReleases(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-8B"]
	c := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B) // Qwen3-8B's hidden size is 4096 too
	for _, tc := range []struct {
		release          string
		steps, topk, tok uint64
		headroom         int64
	}{
		// 48 x (5 x 4 + 8) + 100.
		{"v0.5.6.post2", 5, 4, 8, 1444},
		{"v0.5.6.post3", 5, 4, 8, 1444},
		{"v0.5.7", 5, 4, 8, 0},
		{"v0.5.8", 3, 1, 4, 0},
		{"v0.5.8.post1", 3, 1, 4, 0},
	} {
		p := mustProfile(tc.release)
		spec := ref(t, a, Serve{Dtype: "bfloat16", DisableCudaGraph: true, MemFractionStatic: 0.8, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}}, c, p)
		plain := ref(t, a, Serve{Dtype: "bfloat16", DisableCudaGraph: true, MemFractionStatic: 0.8}, c, p)
		d := spec.Serve.Draft
		if d.Steps != tc.steps || d.TopK != tc.topk || d.DraftTokens != tc.tok {
			t.Errorf("%s: (%d, %d, %d), want (%d, %d, %d)", tc.release, d.Steps, d.TopK, d.DraftTokens, tc.steps, tc.topk, tc.tok)
		}
		if g := spec.Capacity().MaxTotalNumTokens - plain.Capacity().MaxTotalNumTokens; g != tc.headroom {
			t.Errorf("%s: the pool grew by %d tokens, want %d", tc.release, g, tc.headroom)
		}
	}
}

func TestSpecRefusals(t *testing.T) {
	archs := shipped(t)
	llama, dsv3 := archs["meta-llama__Llama-3.1-8B-Instruct"], archs["deepseek-ai__DeepSeek-V3"]
	h100, b200 := class(t, "h100-sxm-80g"), class(t, "b200")
	dir := draftDir(t, eagle3Llama8B)
	biased := draftDir(t, strings.Replace(eagle3Llama8B, `"use_cache": true`, `"attention_bias": true`, 1))
	wide := draftDir(t, strings.Replace(eagle3Llama8B, `"hidden_size": 4096`, `"hidden_size": 5120`, 1))
	auxDir := draftDir(t, strings.Replace(eagle3Llama8B, `"use_cache": true`, `"num_aux_hidden_states": 4`, 1))
	normDir := draftDir(t, strings.Replace(eagle3Llama8B, `"use_cache": true`, `"fc_norm": true`, 1))
	kv4Dir := draftDir(t, strings.Replace(eagle3Llama8B, `"num_key_value_heads": 8`, `"num_key_value_heads": 4`, 1))
	eagle3 := func(s Serve) Serve {
		s.DisableCudaGraph, s.Spec.Algorithm = true, "EAGLE3"
		if s.Spec.DraftModelPath == "" {
			s.Spec.DraftModelPath = dir
		}
		return s
	}
	for _, tc := range []struct {
		name      string
		a         *model.Arch
		c         budget.Class
		p         Profile
		s         Serve
		flag      string
		substring string
	}{
		{"graphs on", llama, h100, current, Serve{Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}}, "speculative-algorithm", "pass --disable-cuda-graph"},
		{"standalone", llama, h100, current, Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "STANDALONE"}}, "speculative-algorithm", "standalone draft model"},
		{"ngram", llama, h100, current, Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "NGRAM"}}, "speculative-algorithm", "n-gram"},
		{"lower case", llama, h100, current, Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "eagle3"}}, "speculative-algorithm", "EAGLE, EAGLE3, NEXTN, STANDALONE and NGRAM"},
		{"an unread release", llama, h100, r049, eagle3(Serve{}), "speculative-algorithm", "not for SGLang v0.4.9.post2"},
		{"pipeline stages", llama, h100, current, eagle3(Serve{PPSize: 2}), "pp-size", "not compatible with speculative decoding"},
		{"online quantization", llama, h100, current, eagle3(Serve{Quantization: "fp8"}), "quantization", "quantizes the draft too"},
		{"steps without the algorithm", llama, h100, current, Serve{Spec: Spec{NumSteps: 3}}, "speculative-num-steps", "without --speculative-algorithm"},
		{"top-k without steps", llama, h100, current, eagle3(Serve{Spec: Spec{EagleTopK: 2}}), "speculative-eagle-topk", "without --speculative-num-steps"},
		{"steps without top-k", llama, h100, current, eagle3(Serve{Spec: Spec{NumSteps: 3}}), "speculative-eagle-topk", "while it is None"},
		{"top-k 4 without draft tokens", llama, h100, current, eagle3(Serve{Spec: Spec{NumSteps: 3, EagleTopK: 4}}), "speculative-num-draft-tokens", "missing with --speculative-eagle-topk 4"},
		{"top-k above 1 on pages of 16 with triton", llama, h100, current, eagle3(Serve{PageSize: 16, AttentionBackend: "triton"}), "speculative-eagle-topk", "unless --attention-backend is flashinfer or fa3"},
		{"top-k above 1 with trtllm_mha", llama, b200, current, eagle3(Serve{AttentionBackend: "trtllm_mha"}), "speculative-eagle-topk", "takes top-k 1"},
		{"the default backend on B200", llama, b200, current, eagle3(Serve{}), "attention-backend", "pass --attention-backend"},
		{"EAGLE-1", llama, h100, current, Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "EAGLE", DraftModelPath: dir}}, "speculative-algorithm", "EAGLE-1 draft"},
		{"NEXTN without MTP layers", llama, h100, current, Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN"}}, "speculative-algorithm", "membudget sizes DeepSeek-V3's"},
		{"NEXTN from another checkpoint", dsv3, class(t, "h200"), current, Serve{TPSize: 8, DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN", DraftModelPath: dir}}, "speculative-algorithm", "its own checkpoint"},
		{"EAGLE3 without a draft", llama, h100, current, Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3"}}, "speculative-draft-model-path", "missing"},
		{"EAGLE3 on DeepSeek-V3", dsv3, class(t, "h200"), current, eagle3(Serve{TPSize: 8}), "speculative-algorithm", "EAGLE-3 draft for DeepseekV3ForCausalLM"},
		{"a Hub id", llama, h100, current, eagle3(Serve{Spec: Spec{DraftModelPath: "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}}), "speculative-draft-model-path", "not a local directory"},
		{"a biased draft", llama, h100, current, eagle3(Serve{Spec: Spec{DraftModelPath: biased}}), "speculative-draft-model-path", `key "attention_bias"`},
		{"a wider draft", llama, h100, current, eagle3(Serve{Spec: Spec{DraftModelPath: wide}}), "speculative-draft-model-path", "hidden_size 5120 differs from the target's 4096"},
		// From v0.5.11 EAGLE runs the spec v2 worker unless a top-k above
		// 1 is given; SGLang's own top-k for Llama, 4, comes after that
		// test, on the v2 worker, sized at top-k 1 alone. The piecewise
		// graphs a draft keeps are refused until they are turned off.
		{"the spec v2 worker at top-k 4", llama, h100, mustProfile("v0.5.11"), eagle3(Serve{DisablePiecewiseCudaGraph: true}), "speculative-eagle-topk", "#21062"},
		{"the piecewise graphs under a draft", llama, h100, mustProfile("v0.5.11"), eagle3(Serve{Spec: Spec{NumSteps: 3, EagleTopK: 4, NumDraftTokens: 8}}), "disable-piecewise-cuda-graph", "pass --disable-piecewise-cuda-graph"},
		{"the piecewise graphs under a draft on v0.5.13", llama, h100, mustProfile("v0.5.13"), eagle3(Serve{Spec: Spec{NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4}}), "disable-piecewise-cuda-graph", "pass --disable-piecewise-cuda-graph"},
		// From v0.5.13 the v1 worker is gone (PR #25464): a top-k above 1,
		// given or SGLang's own, runs the v2 worker's tree, not read. On
		// pages of 16 v0.5.13 takes triton too (speculative_hook.py:
		// 373-386), so the refusal is that one, not SGLang's.
		{"SGLang's top-k 4 on v0.5.13", llama, h100, mustProfile("v0.5.13"), eagle3(Serve{DisablePiecewiseCudaGraph: true}), "speculative-eagle-topk", "SGLang's choice for LlamaForCausalLM is top-k 4"},
		{"top-k 4 given on v0.5.13.post1", llama, h100, mustProfile("v0.5.13.post1"), eagle3(Serve{DisablePiecewiseCudaGraph: true, Spec: Spec{NumSteps: 3, EagleTopK: 4, NumDraftTokens: 8}}), "speculative-eagle-topk", "#25464"},
		{"top-k 2 given on v0.5.14", llama, h100, mustProfile("v0.5.14"), eagle3(Serve{Spec: Spec{NumSteps: 3, EagleTopK: 2, NumDraftTokens: 6}}), "speculative-eagle-topk", "#25464"},
		{"top-k 2 on pages of 16 with triton on v0.5.13", llama, h100, mustProfile("v0.5.13"), eagle3(Serve{DisablePiecewiseCudaGraph: true, PageSize: 16, AttentionBackend: "triton", Spec: Spec{NumSteps: 3, EagleTopK: 2, NumDraftTokens: 6}}), "speculative-eagle-topk", "#25464"},
		// v0.5.14 scales the target's cell for the draft's pool, assuming
		// the draft's layer holds the target's bytes a token: a draft of 4
		// KV heads (2048 B a token, the target's 4096) is refused there,
		// and sized on v0.5.13 (TestSpecByHand0513And0514).
		{"a draft of another cell on v0.5.14", llama, h100, mustProfile("v0.5.14"), eagle3(Serve{Spec: Spec{DraftModelPath: kv4Dir, NumSteps: 3, EagleTopK: 1}}), "speculative-algorithm", "this draft's layer holds 2048 B a token, the target's 4096"},
		// v0.5.15 and v0.5.16 keep v0.5.14's rules (TestSpecByHand0515): a
		// top-k above 1 and a draft of another cell stay refused.
		{"top-k 2 given on v0.5.15", llama, h100, mustProfile("v0.5.15"), eagle3(Serve{Spec: Spec{NumSteps: 3, EagleTopK: 2, NumDraftTokens: 6}}), "speculative-eagle-topk", "#25464"},
		{"SGLang's top-k 4 on v0.5.15.post1", llama, h100, mustProfile("v0.5.15.post1"), eagle3(Serve{}), "speculative-eagle-topk", "SGLang's choice for LlamaForCausalLM is top-k 4"},
		{"a draft of another cell on v0.5.15", llama, h100, mustProfile("v0.5.15"), eagle3(Serve{Spec: Spec{DraftModelPath: kv4Dir, NumSteps: 3, EagleTopK: 1}}), "speculative-algorithm", "this draft's layer holds 2048 B a token, the target's 4096"},
		{"top-k 2 given on v0.5.16", llama, h100, mustProfile("v0.5.16"), eagle3(Serve{Spec: Spec{NumSteps: 3, EagleTopK: 2, NumDraftTokens: 6}}), "speculative-eagle-topk", "#25464"},
		// v0.5.17 keeps v0.5.16's rules (TestSpec0517AgainstV0516): the
		// same edges, and the CUDA graphs refused as everywhere.
		{"top-k 2 given on v0.5.17", llama, h100, mustProfile("v0.5.17"), eagle3(Serve{Spec: Spec{NumSteps: 3, EagleTopK: 2, NumDraftTokens: 6}}), "speculative-eagle-topk", "#25464"},
		{"SGLang's top-k 4 on v0.5.17", llama, h100, mustProfile("v0.5.17"), eagle3(Serve{}), "speculative-eagle-topk", "SGLang's choice for LlamaForCausalLM is top-k 4"},
		{"a draft of another cell on v0.5.17", llama, h100, mustProfile("v0.5.17"), eagle3(Serve{Spec: Spec{DraftModelPath: kv4Dir, NumSteps: 3, EagleTopK: 1}}), "speculative-algorithm", "this draft's layer holds 2048 B a token, the target's 4096"},
		{"NEXTN with graphs on v0.5.17", dsv3, h100, mustProfile("v0.5.17"), Serve{TPSize: 16, Nodes: Nodes{NNodes: 2}, Spec: Spec{Algorithm: "NEXTN"}}, "speculative-algorithm", "pass --disable-cuda-graph"},
		// And v0.5.18 v0.5.17's (TestSpec0518AgainstV0517).
		{"top-k 2 given on v0.5.18", llama, h100, mustProfile("v0.5.18"), eagle3(Serve{Spec: Spec{NumSteps: 3, EagleTopK: 2, NumDraftTokens: 6}}), "speculative-eagle-topk", "#25464"},
		{"SGLang's top-k 4 on v0.5.18", llama, h100, mustProfile("v0.5.18"), eagle3(Serve{}), "speculative-eagle-topk", "SGLang's choice for LlamaForCausalLM is top-k 4"},
		{"a draft of another cell on v0.5.18", llama, h100, mustProfile("v0.5.18"), eagle3(Serve{Spec: Spec{DraftModelPath: kv4Dir, NumSteps: 3, EagleTopK: 1}}), "speculative-algorithm", "this draft's layer holds 2048 B a token, the target's 4096"},
		{"NEXTN with graphs on v0.5.18", dsv3, h100, mustProfile("v0.5.18"), Serve{TPSize: 16, Nodes: Nodes{NNodes: 2}, Spec: Spec{Algorithm: "NEXTN"}}, "speculative-algorithm", "pass --disable-cuda-graph"},
		{"DFLASH on v0.5.18", llama, h100, mustProfile("v0.5.18"), Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "DFLASH"}}, "speculative-algorithm", "is not modelled"},
		// A release outside specReleases names the releases read.
		{"EAGLE3 on v0.5.9.post1", llama, h100, mustProfile("v0.5.9.post1"), eagle3(Serve{}), "speculative-algorithm", "v0.5.16, v0.5.17, v0.5.18, whose rules were read"},
		// DFLASH is a choice from v0.5.11, and any registered name from
		// v0.5.12; earlier it is not one.
		{"DFLASH on v0.5.11", llama, h100, mustProfile("v0.5.11"), Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "DFLASH"}}, "speculative-algorithm", "is not modelled"},
		{"DFLASH on v0.5.10", llama, h100, mustProfile("v0.5.10"), Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "DFLASH"}}, "speculative-algorithm", "SGLang's choices are"},
		{"a registered name on v0.5.12", llama, h100, mustProfile("v0.5.12"), Serve{DisableCudaGraph: true, Spec: Spec{Algorithm: "myspec"}}, "speculative-algorithm", "SpeculativeAlgorithm.register"},
		// v0.5.12's EAGLE-3 keys that change the draft's tensors.
		{"four auxiliary inputs", llama, h100, current, eagle3(Serve{Spec: Spec{DraftModelPath: auxDir}}), "speculative-draft-model-path", `"num_aux_hidden_states" is 4`},
		{"auxiliary norms", llama, h100, current, eagle3(Serve{Spec: Spec{DraftModelPath: normDir}}), "speculative-draft-model-path", `key "fc_norm"`},
		{"a fork's tag", llama, h100, mustProfile("v0.5.9.post1"), eagle3(Serve{}), "speculative-algorithm", "not for SGLang v0.5.9.post1"},
		// The target alone is refused on v0.5.10 (see arfusion.go).
		{"NEXTN DeepSeek-V3 on v0.5.10", dsv3, class(t, "h200"), mustProfile("v0.5.10"), Serve{TPSize: 8, DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN"}}, "enable-flashinfer-allreduce-fusion", "may turn it on by itself"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewReference(tc.a, tc.s, tc.c, tc.p)
			var se *engine.SettingError
			if !errors.As(err, &se) {
				t.Fatalf("err %v, want a *engine.SettingError", err)
			}
			if se.Flag != tc.flag || !strings.Contains(se.Error(), tc.substring) {
				t.Errorf("%v, want --%s saying %q", err, tc.flag, tc.substring)
			}
		})
	}
}

// TestSpecLaunchLineReadBack reads the printed launch line back and sizes
// it again: the same pool, the same draft.
func TestSpecLaunchLineReadBack(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	c := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	first := ref(t, a, Serve{Dtype: "bfloat16", DisableCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: 3, EagleTopK: 1}}, c, current)
	line := Command("meta-llama/Llama-3.1-8B-Instruct", "", first.Serve)
	want := " --speculative-algorithm EAGLE3 --speculative-draft-model-path " + dir + " --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
	if !strings.HasSuffix(line, want) {
		t.Fatalf("launch line %q, want it to end %q", line, want)
	}
	f := Engine{}.NewServe().(*flagServe)
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var modelPath string
	f.Register(fs, &modelPath)
	args := strings.Fields(line)[3:] // past python -m sglang.launch_server
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	again := ref(t, a, f.s, c, current)
	if diff := cmp.Diff(first.Capacity(), again.Capacity()); diff != "" {
		t.Errorf("read back (-first +again):\n%s", diff)
	}
	if diff := cmp.Diff(first.EvaluateStage(0, 4, 1000).Items, again.EvaluateStage(0, 4, 1000).Items); diff != "" {
		t.Errorf("read back items (-first +again):\n%s", diff)
	}
}

// TestPropertyDraftNeverGrowsTargetPool: adding an EAGLE-3 or MTP draft
// to a serve never grows the tokens the target's pool keeps for
// sequences (at the same given fraction, or at SGLang's default, which
// reserves 2 GiB more), and from v0.5.7 never grows the pool SGLang
// logs; what the GPU holds never shrinks; and the compiled plan is the
// reference's.
func TestPropertyDraftNeverGrowsTargetPool(t *testing.T) {
	archs := shipped(t)
	dir := draftDir(t, eagle3Llama8B)
	targets := []struct {
		a    *model.Arch
		spec Spec
		tps  []uint64
	}{
		{archs["meta-llama__Llama-3.1-8B-Instruct"], Spec{Algorithm: "EAGLE3", DraftModelPath: dir}, []uint64{1, 2, 4, 8}},
		{archs["Qwen__Qwen3-8B"], Spec{Algorithm: "EAGLE3", DraftModelPath: dir}, []uint64{1, 2, 4, 8}},
		{archs["deepseek-ai__DeepSeek-V3"], Spec{Algorithm: "NEXTN"}, []uint64{8}},
	}
	classes := []budget.Class{class(t, "h100-sxm-80g"), class(t, "h200"), class(t, "a100-80g"), class(t, "rtx-4090")}
	rapid.Check(t, func(t *rapid.T) {
		tg := rapid.SampledFrom(targets).Draw(t, "target")
		c := rapid.SampledFrom(classes).Draw(t, "class")
		p := mustProfile(rapid.SampledFrom(specReleases).Draw(t, "release"))
		// 48 requests, speculative decoding's default, in both: the
		// plain serve's derived req_to_token rows are not the draft's.
		s := Serve{DisableCudaGraph: true, Dtype: "bfloat16", MaxRunningRequests: 48, TPSize: rapid.SampledFrom(tg.tps).Draw(t, "tp")}
		// From v0.5.10 the piecewise graphs are on by default, and from
		// v0.5.11 a draft keeps them, which is refused: off in both serves.
		s.DisablePiecewiseCudaGraph = p.PiecewiseByDefault
		if rapid.Bool().Draw(t, "given fraction") {
			s.MemFractionStatic = float64(rapid.IntRange(50, 95).Draw(t, "msf")) / 100
		}
		sp := tg.spec
		// From v0.5.11 SGLang's own top-k for Llama, 4, lands on the spec
		// v2 worker, which is sized at top-k 1 alone: the counts are
		// given there (top-k 1 the v2 worker, above 1 the v1 worker).
		// From v0.5.13, which has no v1 worker, top-k 1 alone.
		if rapid.Bool().Draw(t, "given counts") || p.SpecV2 {
			sp.NumSteps = rapid.Uint64Range(1, 8).Draw(t, "steps")
			sp.EagleTopK = rapid.Uint64Range(1, 8).Draw(t, "topk")
			sp.NumDraftTokens = rapid.Uint64Range(2, 64).Draw(t, "draft tokens")
			if slices.Index(specReleases, p.Name) >= slices.Index(specReleases, specV2OnlyFrom) {
				sp.EagleTopK = 1
			}
		}
		// Pages above 1 too, at a given top-k of 1 (above 1 SGLang
		// refuses them but for flashinfer and fa3): from v0.5.16 they
		// widen req_to_token's rows by the decode's page reserve
		// (specReqPageReserveFrom).
		if sp.EagleTopK == 1 {
			s.PageSize = rapid.SampledFrom([]uint64{0, 16}).Draw(t, "page size")
		}
		plain, err := NewReference(tg.a, s, c, p)
		if err != nil {
			t.Skip(err) // the target alone does not load here
		}
		s.Spec = sp
		spec, err := NewReference(tg.a, s, c, p)
		if err != nil {
			t.Fatalf("the draft refused where the target is sized: %v", err)
		}
		if plain.Capacity().Starts && spec.stages[0].capacity > plain.stages[0].capacity {
			t.Fatalf("the sequences' share grew from %d to %d tokens", plain.stages[0].capacity, spec.stages[0].capacity)
		}
		// A pool SGLang fails on is no pool: from v0.5.14 the draft's
		// scaled cell divides a negative rest into fewer negative tokens.
		if plain.Capacity().Starts && !older(p, specHeadroomUntil) && spec.Capacity().MaxTotalNumTokens > plain.Capacity().MaxTotalNumTokens {
			t.Fatalf("%s: the pool grew from %d to %d tokens", p.Name, plain.Capacity().MaxTotalNumTokens, spec.Capacity().MaxTotalNumTokens)
		}
		if pf, sf := plain.EvaluateStage(0, 1, 1).Footprint, spec.EvaluateStage(0, 1, 1).Footprint; spec.Capacity().Starts && sf.Beside < pf.Beside {
			t.Fatalf("what stands beside the budget shrank from %d to %d", pf.Beside, sf.Beside)
		}
		// The compiled plan keeps the draft's terms where the reference
		// puts them (from v0.5.14 its share of the scaled cell in the pool).
		n, tok := rapid.Uint64Range(0, 64).Draw(t, "seqs"), rapid.Uint64Range(0, 1<<18).Draw(t, "tokens")
		if diff := cmp.Diff(spec.Evaluate(n, tok).Footprint, spec.Plan().Evaluate(n, tok)); diff != "" {
			t.Fatalf("(%d, %d): Plan != Reference (-reference +plan):\n%s", n, tok, diff)
		}
	})
}

// TestSpecItemGroups: the report sums the MTP draft's decoder layer into
// one line beside the budget, and none of it into the target's weights.
func TestSpecItemGroups(t *testing.T) {
	for _, tc := range []struct {
		it   budget.Item
		want string
	}{
		{budget.Item{Name: "spec_draft.decoder.self_attn.w_kc", Term: budget.TermNonTorch}, "spec_draft.decoder"},
		{budget.Item{Name: "spec_draft.decoder.mlp.experts.w13_weight", Term: budget.TermNonTorch}, "spec_draft.decoder"},
		{budget.Item{Name: "model.layers.60.self_attn.w_kc", Term: budget.TermWeights}, "weights.mla_w_kc_w_vc"},
		{budget.Item{Name: "spec_draft.kv_cache", Term: budget.TermNonTorch}, "spec_draft.kv_cache"},
		{budget.Item{Name: "spec_draft.rotary_emb.0.cos_sin_cache", Term: budget.TermNonTorch}, "spec_draft.rotary_emb.0.cos_sin_cache"},
		// From v0.5.14 in the load: one line apart from the target's
		// weights, the MTP decoder still its own.
		{budget.Item{Name: "spec_draft.fc", Term: budget.TermWeights}, "spec_draft.weights"},
		{budget.Item{Name: "spec_draft.topk1_parents", Term: budget.TermWeights}, "spec_draft.weights"},
		{budget.Item{Name: "spec_draft.decoder.mlp.experts.w13_weight", Term: budget.TermWeights}, "spec_draft.decoder"},
		{budget.Item{Name: "spec_draft.kv_cache", Term: budget.TermKVCache}, "spec_draft.kv_cache"},
	} {
		if got := itemGroup(tc.it); got != tc.want {
			t.Errorf("itemGroup(%s) = %s, want %s", tc.it.Name, got, tc.want)
		}
	}
}

// TestSpecLogRefused: explain refuses a log whose server_args name a
// speculative algorithm, rather than read the draft's pool as the
// target's; None is a serve without it.
func TestSpecLogRefused(t *testing.T) {
	for _, tc := range []struct {
		value   string
		literal logs.Literal
		refused bool
	}{
		{"EAGLE3", logs.LiteralString, true},
		{"EAGLE", logs.LiteralString, true},
		{"None", logs.LiteralNone, false},
	} {
		l := &logs.Log{Settings: []logs.Setting{
			{Key: "speculative_algorithm", LoggedKey: "speculative_algorithm", Value: tc.value, Literal: tc.literal, Source: logs.SourceServerArgs, Line: 3},
		}}
		_, err := buildServe(l, Serve{}, nil)
		if got := err != nil && strings.Contains(err.Error(), "speculative_algorithm="+tc.value+" (line 3): a speculative-decoding serve's log is not explained"); got != tc.refused {
			t.Errorf("speculative_algorithm=%s: %v, want refused %v", tc.value, err, tc.refused)
		}
	}
}

// TestSpecDraftKVDtype: the EAGLE-3 draft's cell follows --kv-cache-dtype
// when it is given, and the draft's own dtype under auto: 8 KV heads x
// 128 x 2 (K and V) x the element.
func TestSpecDraftKVDtype(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	c := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	for _, tc := range []struct {
		kv   string
		cell uint64
	}{{"auto", 8 * 128 * 2 * 2}, {"fp8_e4m3", 8 * 128 * 2 * 1}, {"fp8_e5m2", 8 * 128 * 2 * 1}, {"bf16", 8 * 128 * 2 * 2}} {
		r := ref(t, a, Serve{KVCacheDtype: tc.kv, DisableCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}}, c, current)
		if got := r.Serve.Draft.LayerCell; got != tc.cell {
			t.Errorf("--kv-cache-dtype %s: the draft's cell %d B, want %d", tc.kv, got, tc.cell)
		}
	}
}

// TestSpecByHand059And0510 sizes the EAGLE-3 Llama-3.1-8B serve and the
// DeepSeek-V3 NEXTN serve of TestSpecEagle3ByHand and TestSpecNextNByHand
// on the releases read after v0.5.8.post1: v0.5.9 (the v1 worker, 2 GiB
// reserved for the draft) and v0.5.10 and v0.5.10.post1 (the same worker,
// 4 GiB reserved; speculative decoding turns the piecewise graphs off, so
// the fraction has no piecewise term). Neither release grows the target's
// pool (the headroom went in v0.5.7): the pool is the plain serve's at the
// same fraction, and the draft's pool is that token count plus the
// padding row, one layer each. DeepSeek-V3 itself is refused from v0.5.10
// on every GPU it fits (the all-reduce fusion SGLang turns on there, see
// arfusion.go), draft or not, so its NEXTN case is sized on v0.5.9 alone;
// TestSpecRefusals pins that refusal.
func TestSpecByHand059And0510(t *testing.T) {
	archs := shipped(t)
	dir := draftDir(t, eagle3Llama8B)
	for _, tc := range []struct {
		name, release string
		a             *model.Arch
		class         string
		s             Serve
		msf, reserved float64
		steps, topk   uint64
		tokens        uint64
		draftCell     uint64 // the draft's KV bytes a token, its layers all
		reqRow        uint64 // one req_to_token row's int32 entries
		reasoning     string
	}{
		{"EAGLE3 Llama-3.1-8B", "v0.5.9", archs["meta-llama__Llama-3.1-8B-Instruct"], "h100-sxm-80g",
			Serve{Dtype: "bfloat16", DisableCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}},
			0.809, 15488, 5, 4, 8, 8 * 128 * 2 * 2, 131072 + 4 + 8,
			"81080 MiB: 512 + 1.5 x 8192 + 2 x 256 + 1024 / 8 = 13440, above the 10 GiB floor, + 2048 = 15488 " +
				"(server_args.py:1051-1057 at v0.5.9); round(65592 / 81080, 3) = round(0.80898) = 0.809. " +
				"LlamaForCausalLM: (5, 4, 8) (:5741). The draft: 8 KV heads x 128 x (K and V) x 2 bytes. " +
				"req_to_token: context 131072 + 4 + 8 draft tokens"},
		{"EAGLE3 Llama-3.1-8B", "v0.5.10", archs["meta-llama__Llama-3.1-8B-Instruct"], "h100-sxm-80g",
			Serve{Dtype: "bfloat16", DisableCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}},
			0.784, 17536, 5, 4, 8, 8 * 128 * 2 * 2, 131072 + 4 + 8,
			"13440 + 4096 = 17536 (server_args.py:1316-1322 at v0.5.10); round(63544 / 81080, 3) = " +
				"round(0.78372) = 0.784; the rest as v0.5.9"},
		{"EAGLE3 Llama-3.1-8B", "v0.5.10.post1", archs["meta-llama__Llama-3.1-8B-Instruct"], "h100-sxm-80g",
			Serve{Dtype: "bfloat16", DisableCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}},
			0.784, 17536, 5, 4, 8, 8 * 128 * 2 * 2, 131072 + 4 + 8, "v0.5.10's rules"},
		{"NEXTN DeepSeek-V3", "v0.5.9", archs["deepseek-ai__DeepSeek-V3"], "h200",
			Serve{TPSize: 8, DisableCudaGraph: true, Spec: Spec{Algorithm: "NEXTN"}},
			0.882, 16896, 3, 1, 4, (512 + 64) * 2, 163840 + 4 + 4,
			"143165 MiB: 512 + 12288 + 2 x 512 (TP8's cuda_graph_max_bs) + 8 / 8 x 1024 = 14848, + 2048 = " +
				"16896; round(126269 / 143165, 3) = round(0.88198) = 0.882. DeepseekV3ForCausalLM: (3, 1, 4). " +
				"The MTP layer's latent: 512 + 64 in bfloat16. req_to_token: context 163840 + 4 + 4"},
	} {
		t.Run(tc.name+" "+tc.release, func(t *testing.T) {
			p, c := mustProfile(tc.release), class(t, tc.class)
			spec := ref(t, tc.a, tc.s, c, p)
			r := spec.Serve
			if r.MemFractionStatic != tc.msf || r.ReservedMiB != tc.reserved {
				t.Errorf("msf %v reserving %v MiB, want %v reserving %v (%s)", r.MemFractionStatic, r.ReservedMiB, tc.msf, tc.reserved, tc.reasoning)
			}
			d := r.Draft
			if d.Steps != tc.steps || d.TopK != tc.topk || d.DraftTokens != tc.tokens || r.MaxRunningRequests != 48 || d.Headroom {
				t.Errorf("draft (%d, %d, %d) headroom %v, %d requests; want (%d, %d, %d), none, 48 (%s)", d.Steps, d.TopK, d.DraftTokens, d.Headroom, r.MaxRunningRequests, tc.steps, tc.topk, tc.tokens, tc.reasoning)
			}
			T := plainPoolTokens(t, spec, tc.a, tc.s, c, p, tc.msf)
			items := spec.EvaluateStage(0, 1, 1).Items
			for _, w := range []struct {
				name  string
				bytes uint64
			}{
				{"spec_draft.kv_cache", (T + 1) * tc.draftCell},
				{"kv_cache.spec_headroom", 0},
				// 48 rows: SGLang's 48 requests (v0.5.10's rows are
				// min(48, the estimate of at least 2048)), no padding row
				// before v0.5.11.
				{"req_to_token", 48 * tc.reqRow * 4},
			} {
				if g := itemBytes(items, w.name); g != w.bytes {
					t.Errorf("%s: %d B, want %d (%s)", w.name, g, w.bytes, tc.reasoning)
				}
			}
		})
	}
}

// TestSpecByHand0511 sizes the EAGLE-3 Llama-3.1-8B serve on the v1 worker
// of v0.5.11, v0.5.12 and v0.5.12.post1, which a --speculative-eagle-topk
// above 1 given selects (server_args.py:3460-3473 at v0.5.11), with the
// piecewise graphs off (a draft keeps them on from v0.5.11, which is
// refused).
func TestSpecByHand0511(t *testing.T) {
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	c := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	// v0.5.12 and v0.5.12.post1 keep v0.5.11's rules for this serve (the
	// reserve at server_args.py:1576-1582, the v1 worker at :3748-3761);
	// v0.5.12 upper-cases the algorithm (:3561-3562), so "eagle3" is
	// EAGLE3 there.
	for _, tc := range []struct{ release, algorithm string }{{"v0.5.11", "EAGLE3"}, {"v0.5.12", "eagle3"}, {"v0.5.12.post1", "EAGLE3"}} {
		t.Run(tc.release, func(t *testing.T) { specByHand0511(t, a, c, mustProfile(tc.release), dir, tc.algorithm) })
	}
}

func specByHand0511(t *testing.T, a *model.Arch, c budget.Class, p Profile, dir, algorithm string) {
	s := Serve{Dtype: "bfloat16", DisableCudaGraph: true, DisablePiecewiseCudaGraph: true,
		Spec: Spec{Algorithm: algorithm, DraftModelPath: dir, NumSteps: 3, EagleTopK: 4, NumDraftTokens: 8}}
	spec := ref(t, a, s, c, p)
	if got := spec.Serve.Spec.Algorithm; got != "EAGLE3" {
		t.Errorf("algorithm %q, want EAGLE3", got)
	}
	r := spec.Serve
	// 81080 MiB: 512 + 1.5 x 8192 + 2 x 256 + 1024 / 8 = 13440, no
	// piecewise term (off), + 4096 for the draft = 17536
	// (server_args.py:1468-1475 at v0.5.11); round(63544 / 81080, 3) =
	// round(0.78372) = 0.784.
	if r.MemFractionStatic != 0.784 || r.ReservedMiB != 17536 {
		t.Errorf("msf %v reserving %v MiB, want 0.784 reserving 17536", r.MemFractionStatic, r.ReservedMiB)
	}
	// The counts as given (top-k 4 keeps 8 draft tokens); 48 requests.
	if d := r.Draft; d.Steps != 3 || d.TopK != 4 || d.DraftTokens != 8 || d.Headroom || r.MaxRunningRequests != 48 {
		t.Errorf("draft %+v, %d requests; want (3, 4, 8) without headroom, 48", *d, r.MaxRunningRequests)
	}
	T := plainPoolTokens(t, spec, a, s, c, p, 0.784)
	items := spec.EvaluateStage(0, 1, 1).Items
	for _, w := range []struct {
		name  string
		bytes uint64
	}{
		// One layer of 8 KV heads x 128 x (K and V) x 2 bytes over T + 1
		// rows.
		{"spec_draft.kv_cache", (T + 1) * 4096},
		// 48 rows and v0.5.11's padding row, of 131072 + 4 + 8 int32.
		{"req_to_token", 49 * (131072 + 4 + 8) * 4},
		{"spec_draft.fc", 3 * 4096 * 4096 * 2},
		{"spec_draft.lm_head", 32000 * 4096 * 2},
	} {
		if g := itemBytes(items, w.name); g != w.bytes {
			t.Errorf("%s: %d B, want %d", w.name, g, w.bytes)
		}
	}
}

// TestSpecV2ByHand sizes an EAGLE-3 serve on the spec v2 worker of
// v0.5.11 and v0.5.12: Qwen3-8B (hidden 4096, the 8B Llama draft's) at
// SGLang's own counts, (3, 1, 4) for an architecture it does not name
// (server_args.py:7471 at v0.5.11), top-k 1 keeping the v2 worker
// (:3460-3473). Its terms are the v1 worker's (the same draft worker,
// speculative/eagle_worker_v2.py:91-186) and the future map.
func TestSpecV2ByHand(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-8B"]
	c := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	for _, release := range []string{"v0.5.11", "v0.5.12", "v0.5.12.post1"} {
		t.Run(release, func(t *testing.T) {
			p := mustProfile(release)
			s := Serve{Dtype: "bfloat16", DisableCudaGraph: true, DisablePiecewiseCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}}
			spec := ref(t, a, s, c, p)
			r := spec.Serve
			// 81080 MiB: 13440 (as Llama-3.1-8B's: chunk 8192, graph
			// batch 256, one rank, no piecewise term) + 4096 = 17536;
			// round(63544 / 81080, 3) = 0.784.
			if r.MemFractionStatic != 0.784 || r.ReservedMiB != 17536 {
				t.Errorf("msf %v reserving %v MiB, want 0.784 reserving 17536", r.MemFractionStatic, r.ReservedMiB)
			}
			if d := r.Draft; !d.V2 || d.Steps != 3 || d.TopK != 1 || d.DraftTokens != 4 || r.MaxRunningRequests != 48 {
				t.Errorf("draft %+v, %d requests; want the v2 worker at (3, 1, 4), 48", *d, r.MaxRunningRequests)
			}
			T := plainPoolTokens(t, spec, a, s, c, p, 0.784)
			items := spec.EvaluateStage(0, 1, 1).Items
			for _, w := range []struct {
				name  string
				bytes uint64
			}{
				// One layer of 8 KV heads x 128 x (K and V) x 2 bytes over
				// T + 1 rows.
				{"spec_draft.kv_cache", (T + 1) * 4096},
				// 48 requests x (5 + ceil(40960 / 8192) = 5) = 480 slots of
				// topk_p (1 float32), topk_index (1 int64), verified_id (8
				// charged), new_seq_lens (int64) and the draft's hidden
				// states (4096 x 2 bytes): 4 + 8 + 8 + 8 + 8192 = 8220 B.
				{"spec_future_map", 480 * 8220},
				// 48 rows and the padding row, of 40960 + 4 + 4 draft
				// tokens int32.
				{"req_to_token", 49 * (40960 + 4 + 4) * 4},
			} {
				if g := itemBytes(items, w.name); g != w.bytes {
					t.Errorf("%s: %d B, want %d", w.name, g, w.bytes)
				}
			}
		})
	}
	// The v1 worker (a top-k above 1 given) holds no future map.
	s := Serve{Dtype: "bfloat16", DisableCudaGraph: true, DisablePiecewiseCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: 3, EagleTopK: 2, NumDraftTokens: 6}}
	v1 := ref(t, a, s, c, mustProfile("v0.5.11"))
	if v1.Serve.Draft.V2 || itemBytes(v1.EvaluateStage(0, 1, 1).Items, "spec_future_map") != 0 {
		t.Errorf("top-k 2 on v0.5.11: %+v, want the v1 worker without a future map", *v1.Serve.Draft)
	}
}

// TestSpecDraftKVFromTarget: from v0.5.9 a target whose checkpoint asks
// for an fp8 KV cache under --kv-cache-dtype auto writes fp8_e4m3 back
// into server_args, and the EAGLE-3 draft's pool takes it (v0.5.9
// model_runner.py:1669-1687); v0.5.8.post1's draft keeps its own dtype.
// ModelOpt checkpoints are refused from v0.5.9 as a whole (their NVFP4
// padding and MoE processing are not read), so the rule is pinned on
// v0.5.9 with that refusal lifted: NVIDIA's Llama-3.1-70B FP8 (ModelOpt,
// kv_cache_quant_algo FP8) and the 8B draft widened to its 8192.
func TestSpecDraftKVFromTarget(t *testing.T) {
	name := "nvidia__Llama-3.1-70B-Instruct-FP8"
	data, path, _ := membudget.ModelConfig(name)
	hq, hqPath, ok := membudget.ModelQuantConfig(name)
	if !ok {
		t.Fatalf("%s ships no hf_quant_config.json", name)
	}
	// ModelOpt's quantization is in hf_quant_config.json.
	a, err := model.ParseConfig(path, data, model.WithHFQuantConfig(hqPath, hq))
	if err != nil {
		t.Fatal(err)
	}
	if a.Quant.Method != "modelopt" || a.Quant.KVCacheDtype != "fp8_e4m3" {
		t.Fatalf("quant %s kv %q; want modelopt asking fp8_e4m3", a.Quant.Method, a.Quant.KVCacheDtype)
	}
	dir := draftDir(t, strings.Replace(eagle3Llama8B, `"hidden_size": 4096`, `"hidden_size": 8192`, 1))
	v059 := mustProfile("v0.5.9")
	v059.UnreadQuant = nil
	for _, tc := range []struct {
		p    Profile
		cell uint64
	}{
		// 8 KV heads / TP 4 = 2, x a head of 8192 / 32 heads = 256, x
		// (K and V) x the element: 2 bytes in the draft's float16, 1 in
		// fp8.
		{mustProfile("v0.5.8.post1"), 2 * 256 * 2 * 2},
		{v059, 2 * 256 * 2 * 1},
	} {
		r := ref(t, a, Serve{TPSize: 4, DisableCudaGraph: true, AttentionBackend: "fa3", Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: dir}}, class(t, "h100-sxm-80g"), tc.p)
		if got := r.Serve.Draft.LayerCell; got != tc.cell {
			t.Errorf("%s: the draft's cell %d B, want %d", tc.p.Name, got, tc.cell)
		}
	}
	// v0.5.17 writes the choice back no more (model_runner.py:1198-1224;
	// specKVFromTargetUntil): the draft's runner keeps its float16 pool
	// beside the target's fp8 one, which the scaled cell of v0.5.14 on
	// cannot hold. With 64 heads of 128 (the target's head), the draft's
	// layer is the target's 2 KV heads a rank x 128 x 2 at v0.5.16, 1 byte
	// each: 512 B, the target's, sized; at v0.5.17 2 bytes each, 1024 B,
	// refused by name.
	same := draftDir(t, strings.NewReplacer(`"hidden_size": 4096`, `"hidden_size": 8192`, `"num_attention_heads": 32`, `"num_attention_heads": 64`).Replace(eagle3Llama8B))
	chain := Serve{TPSize: 4, DisableCudaGraph: true, AttentionBackend: "fa3", Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: same, NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4}}
	v0516, v0517 := mustProfile("v0.5.16"), mustProfile("v0.5.17")
	v0516.UnreadQuant, v0517.UnreadQuant = nil, nil
	if got := ref(t, a, chain, class(t, "h100-sxm-80g"), v0516).Serve.Draft.LayerCell; got != 2*128*2*1 {
		t.Errorf("v0.5.16: the draft's cell %d B, want 512", got)
	}
	_, err = NewReference(a, chain, class(t, "h100-sxm-80g"), v0517)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "speculative-algorithm" || !strings.Contains(se.Reason, "this draft's layer holds 1024 B a token, the target's 512") {
		t.Errorf("v0.5.17: %v; want --speculative-algorithm refused for the draft's 1024 B against the target's 512", err)
	}
	// v0.5.18 refuses it alike, naming the flag that puts the draft's
	// pool in one byte (specDraftKVDtypeFrom); with it the draft's layer
	// is the target's 512 B, sized.
	v0518 := mustProfile("v0.5.18")
	v0518.UnreadQuant = nil
	_, err = NewReference(a, chain, class(t, "h100-sxm-80g"), v0518)
	if !errors.As(err, &se) || se.Flag != "speculative-algorithm" || !strings.Contains(se.Reason, "the target's 512, which is not modelled; --speculative-draft-kv-cache-dtype fp8_e4m3 puts the draft's pool in one byte") {
		t.Errorf("v0.5.18: %v; want --speculative-algorithm refused naming --speculative-draft-kv-cache-dtype fp8_e4m3", err)
	}
	// The flag given as auto or bf16 keeps the draft's 16-bit layer,
	// 1024 B against 512: refused naming the flag given.
	for _, f := range []string{"auto", "bf16"} {
		given := chain
		given.Spec.DraftKVCacheDtype = f
		_, err = NewReference(a, given, class(t, "h100-sxm-80g"), v0518)
		if !errors.As(err, &se) || se.Flag != "speculative-draft-kv-cache-dtype" || !strings.Contains(se.Reason, "holds 1024 B a token a layer, the target's 512") {
			t.Errorf("v0.5.18 with --speculative-draft-kv-cache-dtype %s: %v; want the flag refused for 1024 B against 512", f, err)
		}
	}
	flagged := chain
	flagged.Spec.DraftKVCacheDtype = "fp8_e4m3"
	if got := ref(t, a, flagged, class(t, "h100-sxm-80g"), v0518).Serve.Draft.LayerCell; got != 2*128*2*1 {
		t.Errorf("v0.5.18 with --speculative-draft-kv-cache-dtype fp8_e4m3: the draft's cell %d B, want 512", got)
	}
}

// TestSpecByHand0513And0514 sizes the EAGLE-3 Llama-3.1-8B serve on an
// H100 and the DeepSeek-V3 NEXTN serve at TP16 over two H100 nodes (on one
// H200 node v0.5.13 and v0.5.14 may turn the all-reduce fusion on, refused;
// across nodes on SM90 they do not, arfusion.go) on the releases without
// the v1 worker, at top-k 1, the piecewise graphs off (v0.5.13 keeps them
// under --disable-cuda-graph, v0.5.14 does not: Profile.GraphPhases).
//
// v0.5.13 and v0.5.13.post1 keep v0.5.12.post1's order: the target's pool
// is the plain serve's at the same fraction, the draft's weights and pool
// beside it; new are the future map of one slot per req_to_token row
// (managers/overlap_utils.py:102-171) and the chain's constants
// (speculative/eagle_worker_v2.py:224-251). v0.5.14 loads the draft before
// the pool (PR #28855): no draft reserve in the fraction, the draft's
// tensors in the load, and the pool's tokens profiled at the target's cell
// scaled by (1 + 1 / target layers) (pool_configurator.py:129-145).
func TestSpecByHand0513And0514(t *testing.T) {
	archs := shipped(t)
	llama, dsv3 := archs["meta-llama__Llama-3.1-8B-Instruct"], archs["deepseek-ai__DeepSeek-V3"]
	h100 := class(t, "h100-sxm-80g")
	dir := draftDir(t, eagle3Llama8B)
	eagle3 := Spec{Algorithm: "EAGLE3", DraftModelPath: dir, NumSteps: 3, EagleTopK: 1, NumDraftTokens: 4}
	nextn := Spec{Algorithm: "NEXTN"}
	for _, tc := range []struct {
		name, release string
		a             *model.Arch
		s             Serve
		msf, reserved float64
		// targetCell and scaledCell are the pool's bytes a token without
		// and with the draft's; draftCell the draft's layer.
		targetCell, scaledCell, draftCell uint64
		// draftLoad is the draft's tensors by hand, less an MTP layer's
		// decoder (withDecoder adds the target's layer 60).
		draftLoad   uint64
		withDecoder bool
		chain       uint64 // each of the chain's two constants
		futureRow   uint64
		reqRow      uint64 // one req_to_token row's int32 entries
		hidden      uint64
		mla         bool
	}{
		{
			// 81080 MiB: 512 + 1.5 x 8192 + 2 x 256 + 1024 / 8 = 13440, no
			// piecewise term, + 4096 for the draft = 17536
			// (server_args.py:1626-1633 at v0.5.13); round(63544 / 81080,
			// 3) = round(0.78372) = 0.784.
			name: "EAGLE3 Llama-3.1-8B", release: "v0.5.13", a: llama,
			s:   Serve{Dtype: "bfloat16", DisableCudaGraph: true, DisablePiecewiseCudaGraph: true, Spec: eagle3},
			msf: 0.784, reserved: 17536,
			// 32 layers x 8 KV heads x 128 x (K and V) x 2 bytes; the
			// draft's one layer of the same.
			targetCell: 32 * 4096, scaledCell: 32 * 4096, draftCell: 4096,
			// max(cuda_graph_max_bs 256, 48 requests) rows x 3 steps x 8.
			chain: 256 * 3 * 8,
			// topk_p 1 x float32, topk_index 1 x int64, the output token
			// and new_seq_lens int64, the draft's hidden states 4096 x 2.
			futureRow: 4 + 8 + 8 + 8 + 4096*2,
			// 131072 + 4 + 4 draft tokens (3 steps + 1).
			reqRow: 131072 + 4 + 4, hidden: 4096,
		},
		{
			name: "EAGLE3 Llama-3.1-8B", release: "v0.5.13.post1", a: llama,
			s:   Serve{Dtype: "bfloat16", DisableCudaGraph: true, DisablePiecewiseCudaGraph: true, Spec: eagle3},
			msf: 0.784, reserved: 17536, targetCell: 32 * 4096, scaledCell: 32 * 4096, draftCell: 4096,
			chain: 256 * 3 * 8, futureRow: 4 + 8 + 8 + 8 + 4096*2, reqRow: 131072 + 4 + 4, hidden: 4096,
		},
		{
			// 13440 and no draft reserve (server_args.py:3276-3321 at
			// v0.5.14), no piecewise term (--disable-cuda-graph turns both
			// phases off); round(67640 / 81080, 3) = round(0.83424) = 0.834.
			name: "EAGLE3 Llama-3.1-8B", release: "v0.5.14", a: llama,
			s:   Serve{Dtype: "bfloat16", DisableCudaGraph: true, Spec: eagle3},
			msf: 0.834, reserved: 13440,
			// int(131072 x (1 + 1 / 32)) = 131072 x 33 / 32 = 135168.
			targetCell: 32 * 4096, scaledCell: 135168, draftCell: 4096,
			// fc 3 x 4096 x 4096, qkv_proj (32 + 2 x 8) x 128 x 2 x 4096,
			// o_proj 4096 x 4096, gate_up 2 x 14336 x 4096, down 14336 x
			// 4096, four norms of 4096, lm_head 32000 x 4096, all x 2
			// bytes; hot_token_id 32000 int64; the rotary table 131328 x
			// 128 float32 (TestSpecEagle3ByHand); the embedding 128256 x
			// 4096 x 2 until shared; the chain's two constants.
			draftLoad: (3*4096*4096+48*128*8192+4096*4096+2*14336*4096+14336*4096+4*4096+32000*4096)*2 +
				32000*8 + 131328*128*4 + 128256*4096*2 + 2*256*3*8,
			chain: 256 * 3 * 8, futureRow: 4 + 8 + 8 + 8 + 4096*2, reqRow: 131072 + 4 + 4, hidden: 4096,
		},
		{
			// 512 + 1.5 x 8192 + 2 x 512 (TP16's cuda_graph_max_bs) + 16 /
			// 8 x 1024 = 15872, + 4096 = 19968; round(61112 / 81080, 3) =
			// round(0.75372) = 0.754.
			name: "NEXTN DeepSeek-V3", release: "v0.5.13", a: dsv3,
			s:   Serve{TPSize: 16, Nodes: Nodes{NNodes: 2}, DisableCudaGraph: true, DisablePiecewiseCudaGraph: true, Spec: nextn},
			msf: 0.754, reserved: 19968,
			// 61 layers of one latent of 512 + 64 x 2 bytes; the MTP layer
			// the same.
			targetCell: 61 * 1152, scaledCell: 61 * 1152, draftCell: 1152,
			// max(512, 48) rows x 3 steps x 8.
			chain: 512 * 3 * 8, futureRow: 4 + 8 + 8 + 8 + 7168*2, reqRow: 163840 + 4 + 4, hidden: 7168, mla: true,
		},
		{
			// 15872, no draft reserve; round(65208 / 81080, 3) =
			// round(0.80424) = 0.804.
			name: "NEXTN DeepSeek-V3", release: "v0.5.14", a: dsv3,
			s:   Serve{TPSize: 16, Nodes: Nodes{NNodes: 2}, DisableCudaGraph: true, Spec: nextn},
			msf: 0.804, reserved: 15872,
			// int(70272 x (1 + 1 / 61)) = 71424 in Python's floats: 62 x
			// 1152, exact.
			targetCell: 61 * 1152, scaledCell: 62 * 1152, draftCell: 1152,
			// eh_proj 2 x 7168 x 7168, enorm, hnorm and shared_head.norm
			// 7168 each, x 2 bytes; the embedding and head until shared,
			// ceil(129280 / 16) = 8080 rows x 7168 x 2 each; the chain.
			draftLoad: (2*7168*7168+3*7168)*2 + 2*8080*7168*2 + 2*512*3*8, withDecoder: true,
			chain: 512 * 3 * 8, futureRow: 4 + 8 + 8 + 8 + 7168*2, reqRow: 163840 + 4 + 4, hidden: 7168, mla: true,
		},
	} {
		t.Run(tc.name+" "+tc.release, func(t *testing.T) {
			p := mustProfile(tc.release)
			spec := ref(t, tc.a, tc.s, h100, p)
			r := spec.Serve
			if r.MemFractionStatic != tc.msf || r.ReservedMiB != tc.reserved {
				t.Errorf("msf %v reserving %v MiB, want %v reserving %v", r.MemFractionStatic, r.ReservedMiB, tc.msf, tc.reserved)
			}
			d := r.Draft
			if !d.V2 || !d.V2Only || d.InFraction != p.DraftInFraction || d.Steps != 3 || d.TopK != 1 || d.DraftTokens != 4 || r.MaxRunningRequests != 48 {
				t.Errorf("draft %+v, %d requests; want the v2 worker at (3, 1, 4), 48", *d, r.MaxRunningRequests)
			}
			got := spec.Capacity()
			if !got.Starts || got.CellBytes != tc.scaledCell {
				t.Fatalf("starts %v (%s), cell %d; want it to start at %d B a token", got.Starts, got.Failure, got.CellBytes, tc.scaledCell)
			}
			plainServe := tc.s
			plainServe.Spec, plainServe.MemFractionStatic = Spec{}, tc.msf
			plain := ref(t, tc.a, plainServe, h100, p)
			var T uint64
			if !d.InFraction {
				T = plainPoolTokens(t, spec, tc.a, tc.s, h100, p, tc.msf)
			} else {
				// The load grows by the draft's tensors and the allocator's
				// slack over them; the rest, msf x F0 less the load, shrinks
				// by as much (to the float floor's byte), and the pool is
				// the rest in scaled cells.
				grew := checkDraftLoad(t, spec, plain, tc.draftLoad, tc.withDecoder)
				if diff := plain.Capacity().RestBytes - int64(grew) - got.RestBytes; diff < -1 || diff > 1 {
					t.Errorf("rest %d, want the plain rest %d less the draft's load %d", got.RestBytes, plain.Capacity().RestBytes, grew)
				}
				T = uint64(got.RestBytes) / tc.scaledCell
				if uint64(got.MaxTotalNumTokens) != T {
					t.Errorf("#tokens %d, want %d / %d = %d", got.MaxTotalNumTokens, got.RestBytes, tc.scaledCell, T)
				}
				// Fewer tokens than the plain pool's.
				if T >= uint64(plain.Capacity().MaxTotalNumTokens) {
					t.Errorf("#tokens %d, want fewer than the plain pool's %d", T, plain.Capacity().MaxTotalNumTokens)
				}
			}
			items := spec.EvaluateStage(0, 1, 1).Items
			want := []struct {
				name  string
				bytes uint64
			}{
				// 48 requests and the padding row.
				{"spec_future_map", 49 * tc.futureRow},
				{"req_to_token", 49 * tc.reqRow * 4},
				{"spec_draft.topk1_parents", tc.chain},
				{"spec_draft.topk1_score_indices", tc.chain},
			}
			if d.InFraction {
				want = append(want, []struct {
					name  string
					bytes uint64
				}{
					// One sequence of one token: one page of the draft's
					// share of the scaled cell, in the budget.
					{"spec_draft.kv_cache", tc.scaledCell - tc.targetCell},
					{"spec_draft.kv_cache.padding_rows", tc.draftCell},
					{"spec_draft.kv_cache.beyond_scaled_cell", 0},
					{"kv_cache.padding_rows", tc.targetCell},
				}...)
			} else {
				want = append(want, struct {
					name  string
					bytes uint64
				}{"spec_draft.kv_cache", (T + 1) * tc.draftCell})
			}
			for _, w := range want {
				if g := itemBytes(items, w.name); g != w.bytes {
					t.Errorf("%s: %d B, want %d", w.name, g, w.bytes)
				}
			}
			// Where the draft's tensors fall: the budget's load from v0.5.14,
			// beside it before.
			for _, it := range items {
				if strings.HasPrefix(it.Name, "spec_draft.topk1_") && (it.Term == budget.TermWeights) != d.InFraction {
					t.Errorf("%s under %v, want it in the load %v", it.Name, it.Term, d.InFraction)
				}
			}
			// The draft's pool line: T + 1 rows of its cell.
			kv := float64((T+1)*tc.draftCell) / (1 << 30)
			line := fmt.Sprintf("KV Cache is allocated. #tokens: %d, K size: %.2f GB, V size: %.2f GB", T, kv/2, kv/2)
			if tc.mla {
				line = fmt.Sprintf("KV Cache is allocated. #tokens: %d, KV size: %.2f GB", T, kv)
			}
			if lines := got.LogLines(); len(lines) != 3 || lines[1] != line {
				t.Errorf("log lines %q, want the draft's %q second", lines, line)
			}
			plan := spec.Plan()
			for _, pt := range [][2]uint64{{0, 0}, {1, 1}, {48, 4096}, {48, T / 48}, {48, T/48 + 64}} {
				if diff := cmp.Diff(spec.Evaluate(pt[0], pt[1]).Footprint, plan.Evaluate(pt[0], pt[1])); diff != "" {
					t.Errorf("(%d, %d): Plan != Reference (-reference +plan):\n%s", pt[0], pt[1], diff)
				}
			}
		})
	}
	// The draft of 4 KV heads v0.5.14 refuses (TestSpecRefusals) is sized
	// on v0.5.13: its own pool of 2048 B a token beside the target's.
	kv4 := draftDir(t, strings.Replace(eagle3Llama8B, `"num_key_value_heads": 8`, `"num_key_value_heads": 4`, 1))
	s := Serve{Dtype: "bfloat16", DisableCudaGraph: true, DisablePiecewiseCudaGraph: true, Spec: Spec{Algorithm: "EAGLE3", DraftModelPath: kv4, NumSteps: 3, EagleTopK: 1}}
	spec := ref(t, llama, s, h100, mustProfile("v0.5.13"))
	if g, T := itemBytes(spec.EvaluateStage(0, 1, 1).Items, "spec_draft.kv_cache"), uint64(spec.Capacity().MaxTotalNumTokens); g != (T+1)*2048 {
		t.Errorf("4 KV heads on v0.5.13: the draft's pool %d B, want (%d + 1) x 2048", g, T)
	}
}

// TestSpecScaledCell pins v0.5.14's scaled cell, int(cell x (1 + draft
// layers / target layers)) in Python's floats (pool_configurator.py:
// 142-145), and what the pool then holds beyond it.
func TestSpecScaledCell(t *testing.T) {
	for _, tc := range []struct {
		name                string
		cell                uint64
		layers, draftLayers int
		inFraction          bool
		want                uint64
	}{
		// 1 + 1/32 = 33/32 is exact in binary: 131072 x 33 / 32.
		{"Llama-3.1-8B", 32 * 4096, 32, 1, true, 33 * 4096},
		// 1/61 rounds up in binary (1 + 1/61 exceeds 62/61 by 5 / 2^58),
		// and the product rounds to 71424 = 62 x 1152 exactly.
		{"DeepSeek-V3", 61 * 1152, 61, 1, true, 62 * 1152},
		// 1/47 rounds down: 1 + 1/47 is below 48/47, and 192512 x it is
		// 196607.99999999997, which int() cuts to one byte less than 48
		// layers of 4096.
		{"47 layers of 4096", 47 * 4096, 47, 1, true, 48*4096 - 1},
		// Before v0.5.14 the cell is the target's.
		{"v0.5.13", 32 * 4096, 32, 1, false, 32 * 4096},
	} {
		d := &specDraft{Layers: uint64(tc.draftLayers), InFraction: tc.inFraction}
		if got := d.scaledCell(tc.cell, tc.layers); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	var none *specDraft
	if got := none.scaledCell(4096, 1); got != 4096 {
		t.Errorf("no draft: %d, want the cell 4096", got)
	}
}

// TestSpecChainItems pins the top-k 1 chain's constants of v0.5.13's
// EagleDraftWorker (speculative/eagle_worker_v2.py:224-251): int64 rows of
// max(cuda_graph_max_bs, max_running_requests, 1), parents of steps
// columns (none for one step), score indices of steps columns.
func TestSpecChainItems(t *testing.T) {
	for _, tc := range []struct {
		name             string
		d                *specDraft
		graphBS, running uint64
		parents, scores  uint64
		none             bool
	}{
		{"3 steps, 256 graph rows", &specDraft{V2Only: true, Steps: 3, TopK: 1}, 256, 48, 256 * 3 * 8, 256 * 3 * 8, false},
		{"more requests than graph rows", &specDraft{V2Only: true, Steps: 2, TopK: 1}, 8, 100, 100 * 2 * 8, 100 * 2 * 8, false},
		{"one step: no parents", &specDraft{V2Only: true, Steps: 1, TopK: 1}, 0, 0, 0, 1 * 1 * 8, false},
		{"top-k 2: none", &specDraft{V2Only: true, Steps: 3, TopK: 2}, 256, 48, 0, 0, true},
		{"v0.5.12.post1: none", &specDraft{V2: true, Steps: 3, TopK: 1}, 256, 48, 0, 0, true},
	} {
		items := tc.d.chainItems(tc.graphBS, tc.running)
		if tc.none {
			if items != nil {
				t.Errorf("%s: %v, want none", tc.name, items)
			}
			continue
		}
		if got := []uint64{itemBytes(items, "spec_draft.topk1_parents"), itemBytes(items, "spec_draft.topk1_score_indices")}; !slices.Equal(got, []uint64{tc.parents, tc.scores}) {
			t.Errorf("%s: %v, want [%d %d]", tc.name, got, tc.parents, tc.scores)
		}
	}
}
