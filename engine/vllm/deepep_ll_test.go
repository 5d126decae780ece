package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model/hub"
)

// deepepLLQwen3 is DeepEP low-latency's buffers on a GPU of Qwen3-30B-A3B
// (hidden 2048, 128 experts) at vLLM's 256 tokens a rank, by hand from
// csrc/legacy/config.hpp:131-188: 16 scales; a dispatch message 16 +
// max(2 x 2048, 2048 + 16 x 4) = 4112 B, a combine message 16 x 4 + 2 x
// 2048 = 4160 B; 128 x 256 = 32768 slots. Send max(256 x 4112, 32768 x
// 4160) = 136314880 B, receive max(32768 x 4112, 32768 x 4160) =
// 136314880 B, signals 128 x 4 = 512 B (aligned to 128 already); twice
// each: 2 x (136314880 + 136314880 + 512) = 545260544 B, and the hint adds
// 128: 545260672 B. In 512 MiB heap chunks that is 2 chunks, 1073741824
// B, beside the NVLink buffer and workspace of deepepHTGPU, 1109393408 B:
// 2183135232 B.
const (
	deepepLLQwen3Hint = 545260672
	deepepLLQwen3GPU  = 2183135232
)

// TestDeepEPLLRDMAHintByHand pins get_low_latency_rdma_size_hint and the
// buffers charged for it.
func TestDeepEPLLRDMAHintByHand(t *testing.T) {
	cases := []struct {
		name                   string
		tokens, hidden, expert uint64
		hint, gpu              uint64
	}{
		{"Qwen3-30B-A3B", 256, 2048, 128, deepepLLQwen3Hint, deepepLLQwen3GPU},
		// DeepSeek-V3: hidden 7168, 256 experts. 56 scales; dispatch 16 +
		// 14336 = 14352 B, combine 224 + 14336 = 14560 B; 65536 slots:
		// send and receive 65536 x 14560 = 954204160 B each, signals 1024
		// B; 2 x 1908409344 = 3816818688 B, + 128 = 3816818816 B: 7.1
		// chunks of 536870912, so 8, 4294967296 B, + 1109393408.
		{"DeepSeek-V3", 256, 7168, 256, 3816818816, 4294967296 + deepepHTGPU},
		// Qwen3-30B-A3B with 16 redundant experts (144): 36864 slots x
		// 4160 = 153354240 B send and receive, signals 576 B aligned to
		// 640; 2 x (306708480 + 640) = 613418240, + 128 = 613418368 B: 2
		// chunks.
		{"Qwen3-30B-A3B, EPLB 16", 256, 2048, 144, 613418368, deepepLLQwen3GPU},
		// A total already aligned still gains 128 B: ((n + 128) / 128) x
		// 128, not a ceiling (config.hpp:187).
		{"1 token, 1 expert, hidden 2048", 1, 2048, 1, 2*(4160+4160+128) + 128, 536870912 + deepepHTGPU},
	}
	for _, tc := range cases {
		hint := deepepLLRDMAHint(tc.tokens, tc.hidden, tc.expert)
		if hint != tc.hint {
			t.Errorf("%s: hint %d B, want %d", tc.name, hint, tc.hint)
		}
		if got := deepepLLBytes(deepepBufferMiB, hint); got != tc.gpu {
			t.Errorf("%s: buffers %d B, want %d", tc.name, got, tc.gpu)
		}
	}
}

// TestResolveDeepEPLL: which deepep_low_latency serves are sized, at what
// batched tokens and sequences, and the refusals' exact words.
func TestResolveDeepEPLL(t *testing.T) {
	models := shipped(t)
	ll := func(tp, dp uint64) Serve {
		return Serve{TensorParallelSize: tp, DataParallelSize: dp, EnableExpertParallel: true, All2AllBackend: "deepep_low_latency", MaxModelLen: 4096}
	}
	withTokens := func(s Serve, tokens, seqs uint64) Serve {
		s.MaxNumBatchedTokens, s.MaxNumSeqs = tokens, seqs
		return s
	}
	// 4096 tokens, by the arithmetic of deepepLLQwen3Hint with 16 times
	// the tokens: send and receive 16 x 136314880 = 2181038080 B each,
	// signals 512 B: 2 x 4362076672 = 8724153344, + 128 = 8724153472 B,
	// 16.25 chunks of 512 MiB, so 17: 9126805504 B.
	const qwen4096 = 9126805504 + deepepHTGPU
	cases := []struct {
		name, model         string
		s                   Serve
		bytes, tokens, seqs uint64
		err                 string // the refusal's full text, "" when sized
	}{
		// vLLM's defaults: 256 tokens (use_batched_dp_moe), and the
		// sequences lowered from the H100-class 1024 to them.
		{"TP 1 x DP 2, defaults", "", ll(1, 2), deepepLLQwen3GPU, 256, 256, ""},
		{"TP 4 x DP 2", "", ll(4, 2), deepepLLQwen3GPU, 256, 256, ""},
		{"given tokens", "", withTokens(ll(1, 2), 4096, 64), qwen4096, 4096, 64, ""},
		// DP 1: no all-to-all manager and not a batched DP MoE serve: the
		// class's defaults and no buffer.
		{"DP 1", "", ll(2, 1), 0, 8192, 1024, ""},
		{"DeepSeek-V3, DP 8", "deepseek-ai__DeepSeek-V3", ll(1, 8), 4294967296 + deepepHTGPU, 256, 256, ""},
		{"across nodes", "", ll(8, 2), 0, 0, 0,
			"--all2all-backend: deepep_low_latency over 16 GPUs across nodes: DeepEP's RDMA buffer of 0.51 GiB a GPU over NVSHMEM's network transport and its queue pairs, set up by NVSHMEM's environment (vllm/distributed/device_communicators/all2all.py:305-327): not modelled for " + current.Describes + "; membudget sizes it within one node of at most 8 GPUs; membudget refuses it rather than size a serve vLLM would contradict"},
		// gpt-oss's 2880 is padded to DeepEP's 3072.
		{"a padded hidden size", "openai__gpt-oss-20b", ll(1, 2), 0, 0, 0,
			"--all2all-backend: deepep_low_latency with hidden size 2880: vLLM pads the MoE layers to DeepEP's next kernel size (vllm/model_executor/layers/fused_moe/prepare_finalize/deepep_ll.py:61-83), padded weights and activations membudget does not size: not modelled for " + current.Describes + "; membudget refuses it rather than size a serve vLLM would contradict"},
		// Nemotron-3-Super's routed experts run at moe_latent_size 1024
		// (nemotron_h.py:142-145, 206-210), and vLLM's DeepEP handle takes
		// the FusedMoE's hidden_dim (all2all_utils.py:180-186): 1024 is
		// padded to 2048, not its hidden_size 4096, which DeepEP compiles.
		{"a latent MoE's width", "nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-BF16", ll(1, 2), 0, 0, 0,
			"--all2all-backend: deepep_low_latency with hidden size 1024: vLLM pads the MoE layers to DeepEP's next kernel size (vllm/model_executor/layers/fused_moe/prepare_finalize/deepep_ll.py:61-83), padded weights and activations membudget does not size: not modelled for " + current.Describes + "; membudget refuses it rather than size a serve vLLM would contradict"},
		{"more sequences than the default tokens", "", withTokens(ll(1, 2), 0, 512), 0, 0, 0,
			"--max-num-seqs 512: above --max-num-batched-tokens 256 (vLLM's default here); pass --max-num-batched-tokens of at least 512"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model
			if m == "" {
				m = "Qwen__Qwen3-30B-A3B"
			}
			r, err := Resolve(tc.s, models[m], testClass(false), current)
			if tc.err != "" {
				var se *engine.SettingError
				if !errors.As(err, &se) {
					t.Fatalf("error %v, want a refusal", err)
				}
				if diff := cmp.Diff(tc.err, err.Error()); diff != "" {
					t.Errorf("refusal (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := [3]uint64{r.All2AllBytes, r.MaxNumBatchedTokens, r.MaxNumSeqs}
			if diff := cmp.Diff([3]uint64{tc.bytes, tc.tokens, tc.seqs}, got); diff != "" {
				t.Errorf("buffers, batched tokens, sequences (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeepEPLLNeverShrinksFootprint: DeepEP low-latency's buffers add
// exactly their bytes to the non-torch term of every GPU, shrink no term,
// and the compiler agrees with the reference.
func TestDeepEPLLNeverShrinksFootprint(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	rapid.Check(t, func(t *rapid.T) {
		c := testClass(rapid.Bool().Draw(t, "unified"))
		tp := rapid.SampledFrom([]uint64{1, 2, 4}).Draw(t, "tp")
		tokens := rapid.Uint64Range(256, 4096).Draw(t, "tokens")
		s := Serve{
			TensorParallelSize:   tp,
			DataParallelSize:     rapid.SampledFrom([]uint64{2, 8 / tp}).Draw(t, "dp"),
			EnableExpertParallel: true,
			MaxModelLen:          rapid.Uint64Range(256, 8192).Draw(t, "len"),
			MaxNumBatchedTokens:  tokens,
			MaxNumSeqs:           rapid.Uint64Range(1, 256).Draw(t, "seqs"),
		}
		plain, err := Compile(a, s, c, current)
		if err != nil {
			t.Skip(err)
		}
		s.All2AllBackend = "deepep_low_latency"
		p, e, _, _ := footprintsWith(t, "DeepEP LL", a, s, c, plain)
		want := deepepLLBytes(deepepBufferMiB, deepepLLRDMAHint(tokens, 2048, 128))
		if got := e.Terms[budget.TermNonTorch] - p.Terms[budget.TermNonTorch]; got != want {
			t.Fatalf("DeepEP LL adds %d B of non-torch memory, want %d", got, want)
		}
		if before, after := p.Total()-p.Slack, e.Total()-e.Slack; after < before {
			t.Fatalf("the footprint before slack shrinks with DeepEP LL: %d -> %d", before, after)
		}
	})
}

// TestDeepEPLLReport: the report names DeepEP low-latency's buffers on a
// line of their own, "all-to-all buffers", says what they hold, and the
// serve's JSON carries the buffers and the hint (deepepLLQwen3GPU and
// deepepLLQwen3Hint); the printed line carries the backend and the
// batched tokens vLLM defaults to, so that it reads back the same.
func TestDeepEPLLReport(t *testing.T) {
	a := shipped(t)["Qwen__Qwen3-30B-A3B"]
	s := Serve{DataParallelSize: 2, EnableExpertParallel: true, All2AllBackend: "deepep_low_latency", MaxModelLen: 4096}
	sz, err := Size(&hub.Loaded{Name: "Qwen/Qwen3-30B-A3B", Arch: a}, testClass(false), s, current)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{" --max-num-seqs 256 --max-num-batched-tokens 256 ", " --all2all-backend deepep_low_latency"} {
		if line := sz.Command(); !strings.Contains(line, want) {
			t.Errorf("line %q: want %q", line, want)
		}
	}
	// 2183135232 B is 2.03 GiB.
	want := []string{"all-to-all: DeepEP low-latency buffers of 2.03 GiB a GPU: its 1024 MiB NVLink buffer and 32 MiB workspace, and its RDMA buffer of 545260672 B (get_low_latency_rdma_size_hint(256 tokens a rank, hidden 2048, 2 EP ranks, 128 experts)) in NVSHMEM's heap, charged in whole 512 MiB chunks; allocated while the model loads and counted in the util budget; NVSHMEM's own state beside its heap is not sized"}
	if diff := cmp.Diff(want, sz.a2aSettings()); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&a2aJSON{Backend: "deepep_low_latency", BufferBytes: deepepLLQwen3GPU, RDMAHintBytes: deepepLLQwen3Hint}, sz.a2aJSON()); diff != "" {
		t.Errorf("serve.all2all (-want +got):\n%s", diff)
	}
	var line uint64
	for _, l := range sz.Section().Lines(sz.Plan().Evaluate(1, 4096)) {
		if l.Label == "all-to-all buffers" {
			line = l.Bytes
		}
	}
	if line != deepepLLQwen3GPU {
		t.Errorf("all-to-all buffers line %d B, want %d", line, deepepLLQwen3GPU)
	}
}

// TestExplainDropsDeepEPLLAcrossNodes: a log's deepep_low_latency serve
// across nodes is explained without the backend, warning in exactly these
// words; the log leaves the batched tokens unread, so the warning names no
// RDMA size it cannot know.
func TestExplainDropsDeepEPLLAcrossNodes(t *testing.T) {
	log := "INFO non-default args: {'model': 'm', 'tensor_parallel_size': 8, 'data_parallel_size': 2, 'enable_expert_parallel': True, 'all2all_backend': 'deepep_low_latency'}\n"
	ls, err := buildServe(logSource(t, log).Log, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ls.dropUnsizedA2A(shipped(t)["Qwen__Qwen3-30B-A3B"], bigClass, current)
	want := []string{"the log's serve uses the all-to-all backend deepep_low_latency, whose buffers membudget does not size for it (--all2all-backend: deepep_low_latency over 16 GPUs across nodes: DeepEP's RDMA buffer a GPU over NVSHMEM's network transport and its queue pairs, set up by NVSHMEM's environment (vllm/distributed/device_communicators/all2all.py:305-327)): its predictions leave them out"}
	if diff := cmp.Diff(want, ls.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if ls.Serve.All2AllBackend != "" {
		t.Errorf("backend %q kept, want it left out", ls.Serve.All2AllBackend)
	}
}
