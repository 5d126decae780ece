package vllm

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
)

// medusaConfig is the shipped FasterDecoding/medusa-vicuna-7b-v1.3 config
// (corpus/models/drafts): the old format, medusa_num_heads 2 and
// medusa_num_layers 1, no model_type, hidden_size or vocab_size.
const medusaConfig = "../../corpus/models/drafts/FasterDecoding__medusa-vicuna-7b-v1.3.json"

// medusaTarget is the target the tests serve the heads on: Llama-2-7b,
// vicuna-7b-v1.3's base (hidden 4096, vocabulary 32000), served in bf16.
const medusaTarget = "meta-llama__Llama-2-7b-hf"

// oldMedusaCheckpoint is the tensors of FasterDecoding's checkpoint of n
// heads in its own names: per head "{h}.0.linear.weight" and ".bias" (a
// ResBlock's nn.Linear) and "{h}.1.weight" (the head's LM head of the
// base's 32000 rows). The published medusa_lm_head.pt holds five heads
// (its config says 2); the tests write its tensors as a safetensors
// header.
func oldMedusaCheckpoint(n int) []draftTensor {
	var out []draftTensor
	for h := range n {
		out = append(out,
			draftTensor{fmt.Sprintf("%d.0.linear.weight", h), "F16", []uint64{4096, 4096}},
			draftTensor{fmt.Sprintf("%d.0.linear.bias", h), "F16", []uint64{4096}},
			draftTensor{fmt.Sprintf("%d.1.weight", h), "F16", []uint64{32000, 4096}})
	}
	return out
}

// WriteMedusaDraft writes the shipped Medusa config with a five-head
// header-only checkpoint into a temporary directory, for the contract
// tests.
func WriteMedusaDraft(t testing.TB) string {
	return writeDraftDir(t, medusaConfig, oldMedusaCheckpoint(5))
}

// medusaSpec is a medusa --speculative-config of k tokens on the draft in
// dir.
func medusaSpec(dir string, k int) string {
	return fmt.Sprintf(`{"method": "medusa", "model": "%s", "num_speculative_tokens": %d}`, dir, k)
}

// medusaItems resolves s on the Medusa target under p on [bigClass] and
// returns the resolution with its draft items at the last stage.
func medusaItems(t testing.TB, s Serve, p Profile) (Resolved, map[string]uint64) {
	t.Helper()
	a := shipped(t)[medusaTarget]
	r, err := Resolve(s, a, bigClass, p)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]uint64{}
	for _, it := range peakItems(a, &r, stageOf(&r, len(r.Stages)-1)) {
		items[it.Name] = it.Bytes
	}
	return r, map[string]uint64{"draft_weights": items["draft_weights"], "draft_buffers": items["draft_buffers"]}
}

// TestReadMedusaOldFormat: the shipped config read as MedusaConfig reads
// it for k = 3: medusa_num_heads and medusa_num_layers renamed
// (configs/medusa.py:49-54), hidden_size 4096 and vocab_size 32001 by
// default (:16-17), the vocabulary then aligned with the target's 32000
// (speculative.py:927-932), and three heads built, one per speculative
// token, though the config declares two (:1055-1060).
func TestReadMedusaOldFormat(t *testing.T) {
	dir := WriteMedusaDraft(t)
	r, err := Resolve(Serve{MaxModelLen: 4096, SpeculativeConfig: medusaSpec(dir, 3)}, shipped(t)[medusaTarget], bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	want := &Medusa{Path: dir, Heads: 3, ConfigHeads: 2, Layers: 1, Hidden: 4096, Vocab: 32000, OldFormat: true}
	if diff := cmp.Diff(want, r.Spec.Medusa); diff != "" {
		t.Errorf("heads (-want +got):\n%s", diff)
	}
	// No drafter model, no MTP layers: the heads hold no KV cache.
	if r.Spec.Draft != nil || r.Spec.MTPLayers != 0 || r.Spec.Method != "medusa" || r.Spec.Tokens != 3 {
		t.Errorf("spec %+v, want medusa of 3 tokens and no other draft", r.Spec)
	}
	// vLLM turns async scheduling off for medusa (vllm.py:1196-1207) and
	// runs it on the V1 runner (:2397-2408).
	if r.Async || !r.Profile.v1Runner {
		t.Errorf("async %v, V1 runner %v: want off and on", r.Async, r.Profile.v1Runner)
	}
}

// TestMedusaWeightsByHand: the heads' tensors on a GPU of the last stage,
// bf16 (2 B an element), each by hand.
//
// TP 1, k = 3, the shipped config (no medusa_fc_bias, so the checkpoint's
// biases are skipped, medusa.py:28, 172-178): three Linear of 4096 x 4096
// x 2 = 33554432 B (100663296) and three LM heads of 32000 rows (a
// multiple of 64, no padding) x 4096 x 2 = 262144000 B (786432000):
// 887095296 B.
//
// TP 2: the Linear are replicated (plain nn.Linear), 100663296; each LM
// head is divided, 16000 x 4096 x 2 = 131072000, three 393216000:
// 493879296 B.
//
// The proposer allocates nothing (MedusaProposer.__init__, vllm/v1/
// spec_decode/medusa.py:23-38): no draft buffers.
func TestMedusaWeightsByHand(t *testing.T) {
	dir := WriteMedusaDraft(t)
	for _, tc := range []struct {
		tp, k, want uint64
	}{{1, 3, 887095296}, {2, 3, 493879296}, {1, 1, 33554432 + 262144000}, {1, 5, 5 * (33554432 + 262144000)}} {
		s := Serve{TensorParallelSize: tc.tp, MaxModelLen: 4096, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, SpeculativeConfig: medusaSpec(dir, int(tc.k))}
		_, got := medusaItems(t, s, current)
		want := map[string]uint64{"draft_weights": tc.want, "draft_buffers": 0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("TP %d, k %d (-want +got):\n%s", tc.tp, tc.k, diff)
		}
	}
	// The new format's keys, k = 3 at TP 1:
	//   - medusa_fc_bias adds a 4096 x 2 = 8192 B bias to each of the
	//     three Linear: 887095296 + 24576;
	//   - original_lm_head keeps one LM head for all (medusa.py:73-79),
	//     loaded from lm_heads.0.weight: 100663296 + 262144000;
	//   - two residual blocks a head add three Linear: 887095296 +
	//     100663296.
	newHeads := func(n, layers int, bias bool) []draftTensor {
		var out []draftTensor
		for h := range n {
			for l := range layers {
				out = append(out, draftTensor{fmt.Sprintf("blocks.%d.layers.%d.weight", h, l), "BF16", []uint64{4096, 4096}})
				if bias {
					out = append(out, draftTensor{fmt.Sprintf("blocks.%d.layers.%d.bias", h, l), "BF16", []uint64{4096}})
				}
			}
			out = append(out, draftTensor{fmt.Sprintf("lm_heads.%d.weight", h), "BF16", []uint64{32000, 4096}})
		}
		return out
	}
	cfg := func(extra string) string {
		return `{"model_type": "medusa", "architectures": ["MedusaModel"], "hidden_size": 4096, "vocab_size": 32000, "num_heads": 3, "num_hidden_layers": ` + extra + `}`
	}
	for _, tc := range []struct {
		name, config string
		tensors      []draftTensor
		want         uint64
	}{
		{"medusa_fc_bias", cfg(`1, "medusa_fc_bias": true`), newHeads(3, 1, true), 887095296 + 24576},
		{"original_lm_head", cfg(`1, "original_lm_head": true`), newHeads(3, 1, false), 100663296 + 262144000},
		{"two blocks a head", cfg(`2`), newHeads(3, 2, false), 887095296 + 100663296},
	} {
		s := Serve{MaxModelLen: 4096, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, SpeculativeConfig: medusaSpec(writeDraftDir(t, tc.config, tc.tensors), 3)}
		if _, got := medusaItems(t, s, current); got["draft_weights"] != tc.want {
			t.Errorf("%s: %d B, want %d", tc.name, got["draft_weights"], tc.want)
		}
	}
}

// TestMedusaAddsNoKV: the heads have no attention layer, so the KV layout
// is the target's alone, with or without them: one group of Llama-2-7b's
// 32 layers, a page of 16 x 2 x 32 x 128 x 2 = 262144 B.
func TestMedusaAddsNoKV(t *testing.T) {
	a := shipped(t)[medusaTarget]
	for _, spec := range []string{"", medusaSpec(WriteMedusaDraft(t), 3)} {
		r, err := Resolve(Serve{MaxModelLen: 4096, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, SpeculativeConfig: spec}, a, bigClass, current)
		if err != nil {
			t.Fatal(err)
		}
		layout, err := kvLayoutOf(layerSpecs(a, &r), r.Profile.KVGroupRatio)
		if err != nil {
			t.Fatal(err)
		}
		pool := layout.pool(&r, stageOf(&r, 0))
		got := kvShape{len(layout.groups), len(layout.groups[0].layers), layout.uniformType, pool.PageBytes, pool.Tensors}
		if diff := cmp.Diff(kvShape{1, 32, false, 262144, 32}, got); diff != "" {
			t.Errorf("spec %q: layout (-want +got):\n%s", spec, diff)
		}
	}
}

// TestMedusaRenamed: MedusaConfig.from_pretrained's rename in the file's
// order (configs/medusa.py:49-54): the last key holding "num" and
// "layers" sets num_hidden_layers, even over num_hidden_layers itself.
func TestMedusaRenamed(t *testing.T) {
	for _, tc := range []struct {
		config     string
		wantLayers string
	}{
		{`{"medusa_num_layers": 1, "num_hidden_layers": 32}`, "1"}, // medusa's value is written over num_hidden_layers, which then re-pops it
		{`{"num_hidden_layers": 32, "medusa_num_layers": 2}`, "2"},
		{`{"medusa_num_layers": 3}`, "3"},
	} {
		keys, vals, err := orderedObject([]byte(tc.config))
		if err != nil {
			t.Fatal(err)
		}
		got := medusaRenamed(keys, vals)
		if string(got["num_hidden_layers"]) != tc.wantLayers || len(got) != 1 {
			t.Errorf("%s: %v, want only num_hidden_layers %s", tc.config, got, tc.wantLayers)
		}
	}
}

// TestOrderedObjectRest: transformers reads a draft's config.json with
// json.loads, which refuses any text after the object but JSON's
// whitespace (space, tab, CR, LF): "Extra data".
func TestOrderedObjectRest(t *testing.T) {
	for _, tc := range []struct {
		config string
		err    bool
	}{
		{`{"num_heads": 3}`, false},
		{"{\"num_heads\": 3} \t\r\n", false},
		{`{"num_heads": 3} x`, true},
		{`{"num_heads": 3}{"num_heads": 4}`, true},
		{`{"num_heads": 3}}`, true},
	} {
		_, _, err := orderedObject([]byte(tc.config))
		if got := err != nil; got != tc.err {
			t.Errorf("%q: error %v, want one: %v", tc.config, err, tc.err)
		}
	}
}

// TestMedusaParamName: the checkpoint names load_weights maps
// (medusa.py:139-178).
func TestMedusaParamName(t *testing.T) {
	for in, want := range map[string]string{
		"0.0.linear.weight":                     "blocks.0.layers.0.weight",
		"4.1.linear.bias":                       "blocks.4.layers.1.bias",
		"2.1.weight":                            "lm_heads.2.weight",
		"medusa_heads.1.0.linear.weight":        "blocks.1.layers.0.weight",
		"medusa_heads.blocks.0.layers.0.weight": "blocks.0.layers.0.weight",
		"lm_heads.3.weight":                     "lm_heads.3.weight",
		"token_map":                             "token_map",
	} {
		if got := medusaParamName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// TestMedusaRefusals: what vLLM refuses, or membudget cannot place, is
// refused naming the flag, in these words.
func TestMedusaRefusals(t *testing.T) {
	a := shipped(t)[medusaTarget]
	dir := WriteMedusaDraft(t)
	const tail = ": not modelled for vLLM main at commit d18bb7b (2026-08-14); membudget refuses it rather than size a serve vLLM would contradict"
	ptOnly := writeDraftDir(t, medusaConfig, nil)
	wrongVocab := writeDraftDir(t, `{"model_type": "medusa", "hidden_size": 4096, "vocab_size": 32000, "num_heads": 2}`,
		[]draftTensor{{"blocks.0.layers.0.weight", "BF16", []uint64{4096, 4096}}, {"lm_heads.0.weight", "BF16", []uint64{32001, 4096}},
			{"blocks.1.layers.0.weight", "BF16", []uint64{4096, 4096}}, {"lm_heads.1.weight", "BF16", []uint64{32000, 4096}}})
	for _, tc := range []struct {
		name    string
		s       Serve
		p       Profile
		flag    string
		message string
	}{
		{"no model", Serve{SpeculativeConfig: `{"method": "medusa", "num_speculative_tokens": 3}`}, current, "speculative-config",
			`--speculative-config medusa: vLLM refuses it: num_speculative_tokens was provided but without speculative model.`},
		{"no tokens", Serve{SpeculativeConfig: `{"method": "medusa", "model": "` + dir + `"}`}, current, "speculative-config",
			"--speculative-config medusa: vLLM refuses it: A speculative model was provided, but `num_speculative_tokens` was not provided"},
		{"more heads than the checkpoint", Serve{SpeculativeConfig: medusaSpec(dir, 6)}, current, "speculative-config",
			"--speculative-config medusa: the draft " + dir + ": vLLM builds 6 head(s) (num_speculative_tokens) and stops loading the checkpoint: Following weights were not initialized from checkpoint: blocks.5.layers.0.weight, lm_heads.5.weight"},
		{"no checkpoint", Serve{SpeculativeConfig: medusaSpec(ptOnly, 3)}, current, "speculative-config",
			"--speculative-config medusa: the draft " + ptOnly + ": no safetensors or .pt checkpoint: membudget reads its tensor names to tell that it holds the 3 head(s) vLLM builds, else vLLM stops loading it (a .bin checkpoint is not read); not modelled"},
		{"an LM head of another vocabulary", Serve{SpeculativeConfig: medusaSpec(wrongVocab, 2)}, current, "speculative-config",
			"--speculative-config medusa: the draft " + wrongVocab + ": the checkpoint's lm_heads.0.weight is [32001 4096] where vLLM builds [32000 4096]: vLLM cannot load it"},
		{"the old format before 0.25.0", Serve{SpeculativeConfig: medusaSpec(dir, 3)}, mustProfile("0.24.0"), "speculative-config",
			"--speculative-config medusa: the draft " + dir + "/config.json: no model_type: vLLM reads such a Medusa config (FasterDecoding's format) from PR #41396 (2026-06-30), surely from 0.25.0; not modelled for vLLM 0.24.0"},
		{"draft TP", Serve{TensorParallelSize: 2, SpeculativeConfig: `{"method": "medusa", "model": "` + dir + `", "num_speculative_tokens": 3, "draft_tensor_parallel_size": 1}`}, current, "speculative-config",
			"--speculative-config medusa: Medusa heads with draft_tensor_parallel_size 1 (vLLM builds them over the target's 2 ranks whatever it says)" + tail},
		{"async scheduling", Serve{AsyncScheduling: engine.On, SpeculativeConfig: medusaSpec(dir, 3)}, current, "async-scheduling",
			`--async-scheduling: vLLM refuses it: Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark kind of speculative decoding (--speculative-config method "medusa")`},
	} {
		_, err := Resolve(Serve{MaxModelLen: 4096, MaxNumSeqs: tc.s.MaxNumSeqs, TensorParallelSize: tc.s.TensorParallelSize, AsyncScheduling: tc.s.AsyncScheduling, SpeculativeConfig: tc.s.SpeculativeConfig}, a, bigClass, tc.p)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != tc.flag {
			t.Errorf("%s: got %v, want a refusal of --%s", tc.name, err, tc.flag)
			continue
		}
		if diff := cmp.Diff(tc.message, err.Error()); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tc.name, diff)
		}
	}
	// The config's keys, each refused for what it would change.
	for _, tc := range []struct {
		config, says string
	}{
		{`{"model_type": "llama", "medusa_num_heads": 3}`, `model_type "llama": membudget sizes a Medusa config`},
		{`{"model_type": "medusa", "architectures": ["LlamaForCausalLM"]}`, `architectures ["LlamaForCausalLM"]: membudget sizes the Medusa heads (MedusaModel) only`},
		{`{"model_type": "medusa", "quantization_config": {"quant_method": "fp8"}}`, `key "quantization_config": not modelled for the Medusa heads`},
		{`{"model_type": "medusa", "vocab_size": 32000, "truncated_vocab_size": 8000}`, "truncated_vocab_size 8000 of vocab_size 32000: the heads' token_map"},
		{`{"model_type": "medusa", "hidden_size": 5120}`, "hidden_size 5120 differs from the target's 4096"},
		{`{"model_type": "medusa", "medusa_num_layers": 0}`, `key "num_hidden_layers" (as MedusaConfig renames it) is 0; want a positive integer`},
		// transformers' json.loads refuses what follows the object.
		{`{"model_type": "medusa"} {"model_type": "medusa"}`, "config.json: text after the JSON object at byte 24"},
	} {
		_, err := Resolve(Serve{MaxModelLen: 4096, SpeculativeConfig: medusaSpec(writeDraftDir(t, tc.config, oldMedusaCheckpoint(5)), 3)}, a, bigClass, current)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "speculative-config" || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v, want --speculative-config saying %q", tc.config, err, tc.says)
		}
	}
}

// TestMedusaNeverShrinksFootprint: adding the Medusa heads to a serve
// never shrinks a term of its footprint, and grows its weights by exactly
// the heads' bytes.
func TestMedusaNeverShrinksFootprint(t *testing.T) {
	a := shipped(t)[medusaTarget]
	dir := WriteMedusaDraft(t)
	rapid.Check(t, func(t *rapid.T) {
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 4096).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 256).Draw(t, "seqs"),
			MaxNumBatchedTokens: 8192,
			EnforceEager:        rapid.Bool().Draw(t, "eager"),
		}
		plain, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Skip(err)
		}
		// The target's serve with speculative decoding on, but no heads:
		// ngram of the same k (the rejection sampler, the graph sizes at
		// multiples of k+1, async off), so that the difference is the
		// heads'.
		k := rapid.IntRange(1, 5).Draw(t, "k")
		s.SpeculativeConfig = fmt.Sprintf(`{"method": "ngram", "num_speculative_tokens": %d}`, k)
		ngram, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Skip(err)
		}
		s.SpeculativeConfig = medusaSpec(dir, k)
		medusa, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Fatal(err)
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		p, n, m := plain.Evaluate(seqs, tokens), ngram.Evaluate(seqs, tokens), medusa.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if m.Terms[term] < n.Terms[term] {
				t.Fatalf("%s shrinks with the heads: %d -> %d", budget.Term(term), n.Terms[term], m.Terms[term])
			}
		}
		heads := uint64(k) * (33554432 + budget.CeilDiv(32000, s.TensorParallelSize)*4096*2)
		if got := m.Terms[budget.TermWeights] - n.Terms[budget.TermWeights]; got != heads {
			t.Fatalf("the weights grow by %d with %d heads at TP %d, want %d", got, k, s.TensorParallelSize, heads)
		}
		if m.Terms[budget.TermWeights] <= p.Terms[budget.TermWeights] || m.Ledger <= p.Ledger {
			t.Fatalf("the weights or the ledger do not grow with medusa: %d -> %d, %d -> %d", p.Terms[budget.TermWeights], m.Terms[budget.TermWeights], p.Ledger, m.Ledger)
		}
	})
}

// TestMedusaCompilerEqualsReference: with the Medusa heads the compiled
// plan is the reference's, field for field.
func TestMedusaCompilerEqualsReference(t *testing.T) {
	a := shipped(t)[medusaTarget]
	dir := WriteMedusaDraft(t)
	rapid.Check(t, func(t *rapid.T) {
		c := testClass(rapid.Bool().Draw(t, "unified"))
		s := Serve{
			TensorParallelSize: rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp"),
			MaxModelLen:        rapid.Uint64Range(256, 4096).Draw(t, "len"),
			MaxNumSeqs:         rapid.Uint64Range(1, 512).Draw(t, "seqs"),
			EnforceEager:       rapid.Bool().Draw(t, "eager"),
			SpeculativeConfig:  medusaSpec(dir, rapid.IntRange(1, 6).Draw(t, "k")),
		}
		ref, refErr := NewReference(a, s, c, current)
		_, plan, err := NewCompiler(a).Compile(s, c, current)
		if refErr != nil || err != nil {
			if refErr == nil || err == nil || refErr.Error() != err.Error() {
				t.Fatalf("reference error %v, compiler error %v", refErr, err)
			}
			return
		}
		if diff := cmp.Diff(ref.Plan(), plan); diff != "" {
			t.Fatalf("Compiler != Reference (-reference +compiler):\n%s", diff)
		}
	})
}

// TestBuildServeReadsMedusa: a logged medusa config whose heads' directory
// is here is sized as --speculative-config would be (one of a release
// that does not read the old format is left out with a warning), and the
// drafter's "Loading drafter model..." line is then no note of weights
// left out.
func TestBuildServeReadsMedusa(t *testing.T) {
	a := shipped(t)[medusaTarget]
	dir := WriteMedusaDraft(t)
	log := "INFO non-default args: {'model': 'm', 'max_model_len': 4096, 'speculative_config': {'method': 'medusa', 'model': '" + dir + "', 'num_speculative_tokens': 3}}\n"
	for _, tc := range []struct {
		p      Profile
		want   string
		warned bool
	}{
		{current, `{"method": "medusa", "model": "` + dir + `", "num_speculative_tokens": 3}`, false},
		{mustProfile("0.24.0"), "", true},
	} {
		ls, err := buildServe(logSource(t, log).Log, Serve{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ls.dropUnsizedSpec(a, bigClass, tc.p)
		if ls.Serve.SpeculativeConfig != tc.want || (len(ls.Warnings) > 0) != tc.warned {
			t.Errorf("%s: config %q, warnings %q; want %q, warned %v", tc.p.Name, ls.Serve.SpeculativeConfig, ls.Warnings, tc.want, tc.warned)
		}
	}
	r, err := Resolve(Serve{MaxModelLen: 4096, SpeculativeConfig: medusaSpec(dir, 3)}, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	if got := drafterNotes(logSource(t, drafterLog).Log, a, r); len(got) != 0 {
		t.Errorf("notes %q, want none: the heads are the drafter vLLM loads", got)
	}
}

// writePtCheckpoint writes dir/name, a torch.save zip of the tensors (F16
// or F32): data.pkl, a protocol-2 pickle of the state dict as torch writes
// one (each name, then _rebuild_tensor_v2 of its storage key and shape),
// and an archive/data/<key> entry per tensor whose central-directory size
// is the tensor's bytes, its data left out (only the directory is read).
func writePtCheckpoint(t testing.TB, dir, name string, tensors []draftTensor) {
	t.Helper()
	var p []byte
	str := func(s string) {
		p = append(p, 'X')
		p = binary.LittleEndian.AppendUint32(p, uint32(len(s)))
		p = append(p, s...)
	}
	num := func(n uint64) {
		p = append(p, 'J')
		p = binary.LittleEndian.AppendUint32(p, uint32(n))
	}
	p = append(p, 0x80, 2, '}', 'q', 0, '(')
	sizes := make([]uint64, len(tensors))
	for i, tn := range tensors {
		str(tn.name)
		p = append(p, "ctorch._utils\n_rebuild_tensor_v2\n(("...)
		str("storage")
		storage, width := "HalfStorage", uint64(2)
		if tn.dtype == "F32" {
			storage, width = "FloatStorage", 4
		}
		p = append(p, "ctorch\n"+storage+"\n"...)
		str(strconv.Itoa(i))
		str("cpu")
		numel := uint64(1)
		for _, d := range tn.shape {
			numel *= d
		}
		num(numel)
		p = append(p, 't', 'Q', 'K', 0, '(')
		for _, d := range tn.shape {
			num(d)
		}
		p = append(p, 't', '(')
		for range tn.shape {
			num(1)
		}
		p = append(p, 't', 0x89)
		p = append(p, "ccollections\nOrderedDict\n)R"...)
		p = append(p, 't', 'R')
		sizes[i] = numel * width
	}
	p = append(p, 'u', '.')
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "archive/data.pkl", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(p); err != nil {
		t.Fatal(err)
	}
	for i, n := range sizes {
		if _, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("archive/data/%d", i), Method: zip.Store, CompressedSize64: 0, UncompressedSize64: n}); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestMedusaPtCheckpoint: FasterDecoding's medusa_lm_head.pt, five heads
// in its own names, read from its pickle and its storages' sizes: at k = 3
// the serve sizes as with the safetensors copy (887095296 B of heads,
// TestMedusaWeightsByHand); at k = 6 vLLM stops loading it, in vLLM's
// words; a checkpoint whose LM heads have another vocabulary (32001 rows,
// one storage of a size no expected tensor has) is refused.
func TestMedusaPtCheckpoint(t *testing.T) {
	a := shipped(t)[medusaTarget]
	dir := writeDraftDir(t, medusaConfig, nil)
	writePtCheckpoint(t, dir, "medusa_lm_head.pt", oldMedusaCheckpoint(5))
	s := Serve{MaxModelLen: 4096, MaxNumSeqs: 256, MaxNumBatchedTokens: 8192, SpeculativeConfig: medusaSpec(dir, 3)}
	if _, got := medusaItems(t, s, current); got["draft_weights"] != 887095296 {
		t.Errorf("heads %d B, want 887095296", got["draft_weights"])
	}
	wrong := writeDraftDir(t, medusaConfig, nil)
	ck := oldMedusaCheckpoint(5)
	ck[2].shape = []uint64{32001, 4096}
	writePtCheckpoint(t, wrong, "medusa_lm_head.pt", ck)
	for _, tc := range []struct {
		name, spec, says string
	}{
		{"six heads", medusaSpec(dir, 6), "vLLM builds 6 head(s) (num_speculative_tokens) and stops loading the checkpoint: Following weights were not initialized from checkpoint: blocks.5.layers.0.weight, lm_heads.5.weight"},
		{"another vocabulary", medusaSpec(wrong, 3), "the .pt checkpoint's 15 storages are not the 15 head tensors its names give"},
	} {
		_, err := Resolve(Serve{MaxModelLen: 4096, SpeculativeConfig: tc.spec}, a, bigClass, current)
		var se *engine.SettingError
		if !errors.As(err, &se) || se.Flag != "speculative-config" || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: got %v, want --speculative-config saying %q", tc.name, err, tc.says)
		}
	}
}

// TestPickleStrings: the walker reads a pickle's strings and refuses an
// opcode it does not know or a length past the end.
func TestPickleStrings(t *testing.T) {
	got, err := pickleStrings([]byte("\x80\x02}q\x00(X\x03\x00\x00\x00abcK\x01\x8c\x02deu."))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"abc", "de"}, got); diff != "" {
		t.Errorf("strings (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"\x80\x02\xff.", "X\xff\xff\x00\x00ab.", "\x80\x02}"} {
		if _, err := pickleStrings([]byte(bad)); err == nil {
			t.Errorf("%q: read, want an error", bad)
		}
	}
}

// FuzzPickleStrings: any bytes as a .pt's data.pkl end in strings or an
// error, never a panic or a read past the end.
func FuzzPickleStrings(f *testing.F) {
	f.Add([]byte("\x80\x02}q\x00(X\x03\x00\x00\x00abcK\x01\x8c\x02deu."))
	f.Add([]byte("ctorch\nHalfStorage\n."))
	f.Add([]byte("\x8d\xff\xff\xff\xff\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		strs, err := pickleStrings(data)
		if err == nil {
			for _, s := range strs {
				if len(s) > len(data) {
					t.Fatalf("a string of %d bytes from %d", len(s), len(data))
				}
			}
		}
	})
}

// TestMedusaHeadsAgainstALog: the per-head bytes checked against a public
// log. vllm-project/vllm#6768 (vLLM 0.5.2, V0, zephyr-7b-beta with
// FasterDecoding/medusa-1.0-zephyr-7b-beta, fp16, TP 1) prints the heads'
// load as "Loading model weights took 4.4062 GB" beside the target's
// 13.4966. A head of hidden 4096 and vocabulary 32000 is 4096 x 4096 x 2
// + 32000 x 4096 x 2 = 295698432 B; sixteen are 4731174912 B = 4.40625
// GiB, printed 4.4062 (no other whole number of heads rounds to it: 15
// are 4.1309). The log shows neither k nor the config, so this checks
// the size of a head, not how many vLLM built.
func TestMedusaHeadsAgainstALog(t *testing.T) {
	m := Medusa{Heads: 16, Layers: 1, Hidden: 4096, Vocab: 32000}
	var n uint64
	medusaTensors(&m, 1, 2, func(b uint64) { n += b })
	if n != 4731174912 {
		t.Errorf("16 heads: %d B, want 4731174912", n)
	}
	if got := fmt.Sprintf("%.4f", float64(n)/(1<<30)); got != "4.4062" {
		t.Errorf("printed %s GiB, want the log's 4.4062", got)
	}
}
