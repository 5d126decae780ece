package vllm

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// mtp1 is DeepSeek-V3's MTP layer as the draft, k = 1.
const mtp1 = `{"method": "deepseek_mtp", "num_speculative_tokens": 1}`

// TestMTPWeightsByHand: DeepSeek-V3 (61 layers, hidden 7168,
// num_nextn_predict_layers 1) at TP 8 on main, eager. The MTP layer is a
// twin of layer 60 (MLA and 256 routed experts, FP8 as the checkpoint):
// its tensors are layer 60's on a rank, whatever they are; beside them
// eh_proj, 2 x 7168 x 7168 x 2 B = 205520896, and enorm, hnorm and
// shared_head.norm, 3 x 7168 x 2 B = 43008: 205563904 B more. The
// embedding and LM head are the target's.
func TestMTPWeightsByHand(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V3"]
	s := Serve{TensorParallelSize: 8, MaxModelLen: 8192, MaxNumSeqs: 64, EnforceEager: true, SpeculativeConfig: mtp1}
	r, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	if r.Spec.MTPLayers != 1 {
		t.Fatalf("MTP layers %d, want 1", r.Spec.MTPLayers)
	}
	st := stageOf(&r, 0)
	var layer60 uint64
	for _, it := range weightItems(a, st) {
		if strings.HasPrefix(it.Name, "model.layers.60.") {
			layer60 += it.Bytes
		}
	}
	if layer60 < 1<<30 {
		// 256 experts x 3 x 7168 x 2048 fp8 / 8 ranks = 1409286144 B alone.
		t.Fatalf("layer 60 holds %d B on a rank, want above 1 GiB", layer60)
	}
	if got, want := draftWeightBytes(a, &r, st), layer60+205563904; got != want {
		t.Errorf("MTP draft weights %d B, want layer 60's %d + 205563904 = %d", got, layer60, want)
	}
}

// TestMTPKV: the MTP layer's MLA spec is the target's, so it joins its
// group: 62 layers, 62 tensors of one page (the latent, 512 + 64, unsplit
// by TP), and the draft's share of the cache is blocks x that page.
func TestMTPKV(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V3"]
	s := Serve{TensorParallelSize: 8, MaxModelLen: 8192, MaxNumSeqs: 64, EnforceEager: true, SpeculativeConfig: mtp1}
	r, err := Resolve(s, a, bigClass, current)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvLayoutOf(layerSpecs(a, &r), r.Profile.KVGroupRatio)
	if err != nil {
		t.Fatal(err)
	}
	pool := layout.pool(&r, stageOf(&r, 0))
	type shape struct {
		Groups, Layers int
		Page, Tensors  uint64
	}
	page := r.BlockSize * 576 * r.KVDtypeBytes
	if diff := cmp.Diff(shape{1, 62, page, 62}, shape{len(layout.groups), len(layout.groups[0].layers), pool.PageBytes, pool.Tensors}); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
	sz, err := Size(&hub.Loaded{Name: "deepseek-ai/DeepSeek-V3", Arch: a}, bigClass, s, current)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sz.draftKVBytes(), sz.Capacity().Blocks*page; got != want || got == 0 {
		t.Errorf("MTP KV %d B, want %d", got, want)
	}
}

// TestMTPRefusals: each names --speculative-config.
func TestMTPRefusals(t *testing.T) {
	models := shipped(t)
	for _, tc := range []struct {
		name, model string
		s           Serve
		says        string
	}{
		{"a model without MTP layers", "meta-llama__Llama-3.1-8B-Instruct", Serve{EnforceEager: true, SpeculativeConfig: `{"method": "mtp", "num_speculative_tokens": 1}`}, "MTP layers of"},
		{"V3.2's indexer", "deepseek-ai__DeepSeek-V3.2", Serve{TensorParallelSize: 8, EnforceEager: true, SpeculativeConfig: mtp1}, "MTP layers of"},
		{"no tokens", "deepseek-ai__DeepSeek-V3", Serve{TensorParallelSize: 8, EnforceEager: true, SpeculativeConfig: `{"method": "mtp"}`}, "n_predict"},
		{"pipeline parallel", "deepseek-ai__DeepSeek-V3", Serve{TensorParallelSize: 8, PipelineParallelSize: 2, EnforceEager: true, SpeculativeConfig: mtp1}, "pipeline parallelism"},
		{"another checkpoint", "deepseek-ai__DeepSeek-V3", Serve{TensorParallelSize: 8, EnforceEager: true, SpeculativeConfig: `{"method": "mtp", "model": "x/y", "num_speculative_tokens": 1}`}, "another checkpoint"},
		{"Qwen3.5 before 0.20.1", "Qwen__Qwen3.6-35B-A3B", Serve{EnforceEager: true, SpeculativeConfig: `{"method": "mtp", "num_speculative_tokens": 2}`}, "from vLLM 0.20.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.MaxModelLen = 8192
			prof := current
			if strings.HasPrefix(tc.model, "Qwen__") {
				prof = mustProfile("0.20.0") // qwenMTPSince is 0.20.1
			}
			_, err := Resolve(tc.s, models[tc.model], bigClass, prof)
			se, ok := err.(*engine.SettingError)
			if !ok || se.Flag != "speculative-config" || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "not modelled for") {
				t.Errorf("got %v; want --speculative-config saying %q, not modelled", err, tc.says)
			}
		})
	}
}

// TestMTPNeverShrinksFootprint: loading DeepSeek-V3's MTP layer never
// shrinks a term, and grows the weights and the KV cache.
func TestMTPNeverShrinksFootprint(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V3"]
	rapid.Check(t, func(t *rapid.T) {
		s := Serve{
			TensorParallelSize:  rapid.SampledFrom([]uint64{8, 16}).Draw(t, "tp"),
			MaxModelLen:         rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumSeqs:          rapid.Uint64Range(1, 256).Draw(t, "seqs"),
			MaxNumBatchedTokens: 8192,
			EnforceEager:        true,
			AsyncScheduling:     engine.Off,
		}
		plain, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Skip(err)
		}
		s.SpeculativeConfig = `{"method": "mtp", "num_speculative_tokens": ` + itoa(rapid.Uint64Range(1, 4).Draw(t, "k")) + `}`
		spec, err := Compile(a, s, bigClass, current)
		if err != nil {
			t.Fatalf("mtp refused where the plain serve sizes: %v", err)
		}
		seqs, tokens := rapid.Uint64Range(1, s.MaxNumSeqs).Draw(t, "at seqs"), rapid.Uint64Range(1, s.MaxModelLen).Draw(t, "at tokens")
		pf, sf := plain.Evaluate(seqs, tokens), spec.Evaluate(seqs, tokens)
		for term := range budget.NumTerms {
			if sf.Terms[term] < pf.Terms[term] {
				t.Fatalf("%s shrinks with the MTP draft: %d -> %d", budget.Term(term), pf.Terms[term], sf.Terms[term])
			}
		}
		if sf.Terms[budget.TermWeights] <= pf.Terms[budget.TermWeights] || sf.Terms[budget.TermKVCache] <= pf.Terms[budget.TermKVCache] {
			t.Fatalf("weights %d -> %d, KV %d -> %d: want both to grow", pf.Terms[budget.TermWeights], sf.Terms[budget.TermWeights], pf.Terms[budget.TermKVCache], sf.Terms[budget.TermKVCache])
		}
	})
}

// TestMTPCompilerEqualsReference: with the MTP draft the compiled plan is
// the reference's.
func TestMTPCompilerEqualsReference(t *testing.T) {
	a := shipped(t)["deepseek-ai__DeepSeek-V3"]
	rapid.Check(t, func(t *rapid.T) {
		c := testClass(rapid.Bool().Draw(t, "unified"))
		s := Serve{
			TensorParallelSize: rapid.SampledFrom([]uint64{8, 16}).Draw(t, "tp"),
			MaxModelLen:        rapid.Uint64Range(256, 16384).Draw(t, "len"),
			MaxNumSeqs:         rapid.Uint64Range(1, 256).Draw(t, "seqs"),
			EnforceEager:       true,
			SpeculativeConfig:  mtp1,
		}
		compilerIsReference(t, a, s, c, current)
	})
}

// TestQwenMTPOnHybrid: Qwen3.6-35B-A3B (40 layers: 10 full attention, 30
// gated delta nets of 16 key and 32 value heads of 128, conv kernel 4,
// float32 SSM state) with its MTP layer as the draft, k = 2, TP 1, an fp8
// KV cache and prefix caching (align mode), on 0.22.1, against the same
// serve without the draft. By hand, as vLLM lays it out:
//   - the state page: conv (2 x 16 x 128 + 32 x 128 = 8192 channels) x
//     (4 - 1 + k) columns x 2 B + SSM 32 x 128 x 128 x 4 B = 81,920 +
//     2,097,152 = 2,179,072 B; without the draft 3 columns: 2,146,304 B;
//   - the attention block holding it at 2 KV heads x 256 x 2 x 1 B = 1024
//     B a token: 2128 tokens (2096 without);
//   - the state pages a sequence keeps: 2 in align mode + k = 4 (2);
//   - the MTP layer's attention joins the target's 10: 11 tensors, each a
//     page of every group (the 30 state layers in 3 groups of 11, 3 of
//     them padding; "Add 3 padding layers" in rows 201, 208, 209 of
//     corpus/observed/vllm.csv), none without the draft (10 tensors);
//   - a request of 262,144 tokens takes cdiv(262144, 2128) = 124
//     attention blocks and 3 x 4 state blocks: 136 (126 + 6 = 132);
//   - the draft's weights: model.QwenMTPWeights' 1,689,281,536 B
//     (model/mtp_qwen_test.go).
//
// Rows 201, 208 and 209 of corpus/observed/vllm.csv log the token counts
// these give exactly (TestObserved checks their blocks).
func TestQwenMTPOnHybrid(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3.6-35B-A3B"]
	type shape struct {
		StatePage, Block, StatePages, Tensors, PagesPerSeq, DraftWeights uint64
	}
	for _, tc := range []struct {
		name string
		spec string
		want shape
	}{
		{"MTP, k = 2", `{"method": "mtp", "num_speculative_tokens": 2}`, shape{2_179_072, 2128, 4, 11, 136, 1_689_281_536}},
		{"no draft", "", shape{2_146_304, 2096, 2, 10, 132, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Serve{MaxModelLen: 262144, MaxNumSeqs: 4, MaxNumBatchedTokens: 8192, KVCacheDtype: "fp8",
				EnablePrefixCaching: engine.On, EnforceEager: true, SpeculativeConfig: tc.spec}
			r, err := Resolve(s, a, bigClass, mustProfile("0.22.1"))
			if err != nil {
				t.Fatal(err)
			}
			layout, err := kvLayoutOf(layerSpecs(a, &r), r.Profile.KVGroupRatio)
			if err != nil {
				t.Fatal(err)
			}
			st := stageOf(&r, 0)
			pool := layout.pool(&r, st)
			got := shape{r.StatePageBytes, r.BlockSize, r.StatePages, pool.Tensors, pool.PagesPerSeq(262144), draftWeightBytes(a, &r, st)}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
