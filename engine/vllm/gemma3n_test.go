package vllm

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// gemma3nArch reads one of the rebuilt Gemma 3n configs of corpus/models.
func gemma3nArch(t *testing.T, name string) *model.Arch {
	t.Helper()
	data, err := os.ReadFile("../../corpus/models/google__gemma-3n-" + name + "-it.json")
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, string(data))
}

// TestGemma3nKVLayout: which layers own a KV cache spec, by hand, as
// vLLM's get_kv_cache_spec lists them (gpu_model_runner.py: an Attention
// with kv_sharing_target_layer_name has none). E4B: 35 layers, the last
// num_kv_shared_layers 15 (layers 20 to 34) read layer 18's (sliding, two
// before them) or layer 19's (full, one before) cache (gemma3n.py:347-379);
// of the 20 that own one, every 5th is full: 4, 9, 14, 19, and 16 slide
// within 512. E2B: 30 layers, 10 shared, the same 20 owners.
//
// A page is 16 tokens x 2 KV heads x 256 x 2 (K and V) x 2 B = 32,768 B
// on one rank (at TP2 one head a rank, 16,384 B). 4 full and 16 sliding
// layers of one page size: groups of 4, one full and four sliding
// (SlidingWindowx4 FullAttentionx1), a block 4 x 32,768 = 131,072 B: 40
// GiB is 327,680 blocks (at TP2 a block is 4 x 16,384 B: 655,360). A
// sequence of 32,768 tokens keeps 2048 full
// blocks and, in each sliding group, cdiv(511 + 2 x 8192, 16) + 1 = 1057
// (two batches of max_num_batched_tokens 8192 in flight under async
// scheduling): 2048 + 4 x 1057 = 6276.
func TestGemma3nKVLayout(t *testing.T) {
	type want struct {
		Owners string
		Names  string
		Pool   budget.PagedPool
		Blocks uint64
		Pages  uint64
	}
	groups := []budget.PageGroup{{Count: 4, PageTokens: 16, CapTokens: 511 + 16384, ExtraPages: 1}, {Count: 1, PageTokens: 16, CapTokens: budget.NoCap}}
	// s: a sliding spec, F: a full one, in layer order; every layer from
	// 20 on has none.
	owners := "ssssFssssFssssFssssF"
	tests := []struct {
		name string
		tp   uint64
		want want
	}{
		{"E4B", 1, want{owners, "SlidingWindowx4 FullAttentionx1", budget.PagedPool{Tensors: 4, PageBytes: 32768, Groups: groups}, 327680, 2048 + 4*1057}},
		{"E2B", 1, want{owners, "SlidingWindowx4 FullAttentionx1", budget.PagedPool{Tensors: 4, PageBytes: 32768, Groups: groups}, 327680, 2048 + 4*1057}},
		{"E4B", 2, want{owners, "SlidingWindowx4 FullAttentionx1", budget.PagedPool{Tensors: 4, PageBytes: 16384, Groups: groups}, 655360, 2048 + 4*1057}},
	}
	for _, tt := range tests {
		a := gemma3nArch(t, tt.name)
		s := Serve{TensorParallelSize: tt.tp, MaxModelLen: 32768, KVCacheMemoryBytes: gib40}
		r := ref(t, a, s, testClass(false))
		res, err := Resolve(s, a, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		var got want
		for i, sp := range layerSpecs(a, &res) {
			if sp.layer != len(got.Owners) {
				t.Errorf("%s: spec %d is layer %d, want layer %d", tt.name, i, sp.layer, len(got.Owners))
			}
			got.Owners += map[specKind]string{slidingSpec: "s", fullSpec: "F"}[sp.kind]
		}
		c := r.Capacity()
		got.Names, got.Pool, got.Blocks, got.Pages = groupNames(a, r.groups), r.Plan().Stages[0].Pool, c.Blocks, c.PagesPerSeq
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s TP%d (-want +got):\n%s", tt.name, tt.tp, diff)
		}
	}
}

// TestGemma3nBuffersAndItems: the per-layer embeddings buffer is charged
// with the weights at the serve's max_num_batched_tokens, 8192 x 35 x 256
// x 2 B = 146,800,640 B for E4B, half of it at 4096 (gemma3n_mm.py:
// 580-588), through one compiler; the text-only class builds none. The
// encoder cache profiles images, Gemma 3n's largest item: 256 tokens
// against the audio clip's 188 (gemma3n_mm.py:69-71), 8192 / 256 = 32 of
// them, 32 x 256 x 2048 x 2 B = 33,554,432 B.
func TestGemma3nBuffersAndItems(t *testing.T) {
	a := gemma3nArch(t, "E4B")
	cp := NewCompiler(a)
	weights := func(batched uint64) uint64 {
		t.Helper()
		_, plan, err := cp.Compile(Serve{MaxModelLen: 32768, MaxNumBatchedTokens: batched}, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		return plan.Stages[0].Fixed[budget.TermWeights]
	}
	if got, want := weights(8192)-weights(4096), uint64(4096*35*256*2); got != want {
		t.Errorf("weights at 8192 - at 4096 batched tokens: %d B, want %d", got, want)
	}
	r, err := Resolve(Serve{MaxModelLen: 32768}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Stages[0].BatchedTokens; got != r.MaxNumBatchedTokens || got != 8192 {
		t.Errorf("stage BatchedTokens %d, want max_num_batched_tokens 8192", got)
	}
	e := r.Encoder
	got := []any{e.Sized, e.Modality, e.TokensPerItem, e.Items, e.CacheBytes}
	if diff := cmp.Diff([]any{true, "image", uint64(256), uint64(32), uint64(32 * 256 * 2048 * 2)}, got); diff != "" {
		t.Errorf("encoder cache (-want +got):\n%s", diff)
	}
	text := parse(t, `{"model_type": "gemma3n_text", "torch_dtype": "bfloat16"}`)
	rt, err := Resolve(Serve{MaxModelLen: 32768}, text, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if rt.Stages[0].BatchedTokens != 0 {
		t.Errorf("gemma3n_text: stage BatchedTokens %d, want 0 (Gemma3nForCausalLM builds no buffer)", rt.Stages[0].BatchedTokens)
	}
}

// TestGemma3nRefusals: neither Gemma 3n class implements SupportsPP, so
// vLLM refuses --pipeline-parallel-size 2 (vllm/config/model.py); online
// quantization and LoRA (neither class is SupportsLoRA) are refused by
// name. Each refusal names its flag, its value and why: state.go's
// SupportsPP sentence with the config's file and architectures,
// gemma3n.go's sentence with model/'s reason, and lora.go's up to the
// list of the architectures it does size (which grows with them).
func TestGemma3nRefusals(t *testing.T) {
	const arch = "Gemma3nForConditionalGeneration"
	for _, tt := range []struct {
		serve Serve
		want  engine.SettingError
		upTo  string // where set, the reason is compared up to it
	}{
		{Serve{PipelineParallelSize: 2}, engine.SettingError{Flag: "pipeline-parallel-size", Value: "2",
			Reason: `vLLM raises "Pipeline parallelism is not supported for this model" for config.json ([` + arch + `] does not implement SupportsPP; vllm/config/model.py:1387-1394)`}, ""},
		{Serve{Quantization: "fp8"}, engine.SettingError{Flag: "quantization", Value: "fp8",
			Reason: "quantizing " + arch + " as vLLM loads it is not modelled: which of AltUp's coefficient matrices, the per-layer embeddings and projections and the towers vLLM's quantization methods take is not verified"}, ""},
		{Serve{LoRA: LoRA{Enable: true}}, engine.SettingError{Flag: "enable-lora",
			Reason: "LoRA adapter slots (each of --max-loras slots' A and B buffers per layer and module on every GPU, --max-cpu-loras adapters in host memory, and the profile run with dummy adapters): not modelled for config.json (" + arch + ")"},
			"; membudget sizes them for"},
	} {
		tt.serve.MaxModelLen = 4096
		_, err := Resolve(tt.serve, gemma3nArch(t, "E2B"), testClass(false), current)
		var se *engine.SettingError
		if !errors.As(err, &se) {
			t.Errorf("%+v: %v, want a refusal naming --%s", tt.serve, err, tt.want.Flag)
			continue
		}
		got := *se
		if tt.upTo != "" {
			got.Reason, _, _ = strings.Cut(got.Reason, tt.upTo)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%+v: refusal (-want +got):\n%s", tt.serve, diff)
		}
	}
}

// TestGemma3nTowersOff: a modality limited to 0 items builds neither its
// tower nor its embedder (gemma3n_mm.py:560-570, _mark_tower_model): E4B's
// MobileNetV5 2 x 294,126,912 B (timm's build) and embed_vision 2 x 4,460,544 + 4096 B
// (its weightless norm's ones) leave with images; the conformer 2 x
// 681,348,640 + 40,560 B (its buffers) and embed_audio 2 x 3,345,408 +
// 4096 B with audio. Before 0.15.0 (PR #32641) gemma3n_mm.py built both
// towers whatever the limits: 0.14.0 charges them.
func TestGemma3nTowersOff(t *testing.T) {
	a := gemma3nArch(t, "E4B")
	cp := NewCompiler(a)
	weights := func(limits string) uint64 {
		t.Helper()
		_, plan, err := cp.Compile(Serve{MaxModelLen: 32768, MM: MM{LimitPerPrompt: limits}}, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		return plan.Stages[0].Fixed[budget.TermWeights]
	}
	const vision, audio = 2*294_126_912 + 2*4_460_544 + 4096, 2*681_348_640 + 40_560 + 2*3_345_408 + 4096
	all := weights("")
	for _, tt := range []struct {
		limits string
		less   uint64
	}{
		{`{"image": 0}`, vision},
		{`{"audio": 0}`, audio},
		{`{"image": 0, "audio": 0}`, vision + audio},
		{`{"image": 2, "audio": 1}`, 0},
	} {
		if got := all - weights(tt.limits); got != tt.less {
			t.Errorf("%s: weights %d B less, want %d", tt.limits, got, tt.less)
		}
	}
	at014 := func(limits string) uint64 {
		t.Helper()
		_, plan, err := cp.Compile(Serve{MaxModelLen: 32768, MM: MM{LimitPerPrompt: limits}}, testClass(false), mustProfile("0.14.0"))
		if err != nil {
			t.Fatal(err)
		}
		return plan.Stages[0].Fixed[budget.TermWeights]
	}
	if got, want := at014(`{"image": 0, "audio": 0}`), at014(""); got != want {
		t.Errorf("0.14.0 with image and audio 0: weights %d B, want %d as with every tower", got, want)
	}
}
