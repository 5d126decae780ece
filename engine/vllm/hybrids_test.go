package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// graniteTiny is ibm-granite/granite-4.0-h-tiny's shape (the published
// config's numbers, as model's tests enter them): 40 layers, attention
// at 5, 15, 25 and 35 (12 heads, 4 KV heads of 1536 / 12 = 128, no
// rotary), Mamba2 elsewhere (48 heads of 64, state 128, 1 group, conv 4,
// 3072 channels), 64 experts and a shared MLP on every layer.
const graniteTiny = `{"architectures": ["GraniteMoeHybridForCausalLM"], "model_type": "granitemoehybrid", "hidden_size": 1536,
 "num_hidden_layers": 40, "num_attention_heads": 12, "num_key_value_heads": 4, "intermediate_size": 512,
 "shared_intermediate_size": 1024, "num_local_experts": 64, "num_experts_per_tok": 6, "vocab_size": 100352,
 "max_position_embeddings": 131072, "tie_word_embeddings": true, "position_embedding_type": "nope",
 "mamba_n_heads": 48, "mamba_d_head": 64, "mamba_d_state": 128, "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2,
 "mamba_chunk_size": 256, "torch_dtype": "bfloat16",
 "layer_types": ["mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba",
  "mamba", "mamba", "mamba", "mamba", "mamba", "attention", "mamba", "mamba", "mamba", "mamba"]}`

// falconH1 is tiiuae/Falcon-H1-0.5B-Instruct's shape (as model's tests
// enter it): 36 layers, each attention of 8 heads and 2 KV heads of 64
// beside a Mamba2 mixer of 1536 channels in 24 heads of 64, state 128, 1
// group, conv 4.
const falconH1 = `{"architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1", "head_dim": 64, "hidden_size": 1024,
 "intermediate_size": 2048, "mamba_chunk_size": 128, "mamba_conv_bias": true, "mamba_d_conv": 4, "mamba_d_head": 64,
 "mamba_d_ssm": 1536, "mamba_d_state": 128, "mamba_expand": 2, "mamba_n_groups": 1, "mamba_n_heads": 24, "mamba_rms_norm": false,
 "max_position_embeddings": 16384, "num_attention_heads": 8, "num_hidden_layers": 36, "num_key_value_heads": 2,
 "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 32784}`

// jambaV01 is ai21labs/Jamba-v0.1's shape (as model's tests enter it).
const jambaV01 = `{"architectures": ["JambaForCausalLM"], "model_type": "jamba", "hidden_size": 4096, "intermediate_size": 14336,
 "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "num_experts": 16, "num_experts_per_tok": 2,
 "expert_layer_period": 2, "expert_layer_offset": 1, "attn_layer_period": 8, "attn_layer_offset": 4, "mamba_d_state": 16,
 "mamba_d_conv": 4, "mamba_expand": 2, "mamba_dt_rank": 256, "vocab_size": 65536, "max_position_embeddings": 262144,
 "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`

// TestHybridFamilyLayouts: the KV cache and state of the hybrid and
// state-space families as vLLM lays them out, worked by hand from the
// config and the family's vLLM model file at 131,072 tokens (or the
// config's fewer) and 40 GiB.
func TestHybridFamilyLayouts(t *testing.T) {
	type want struct {
		Block, StatePage, Padded, MambaBlock uint64
		Mode                                 string
		Pool                                 budget.PagedPool
		Names                                string
	}
	tests := []struct {
		name, config string
		serve        Serve
		want         want
	}{
		// granite-4.0-h-tiny at TP1: MambaMixer2's state
		// (granitemoehybrid.py:611-638, mamba2_state_shape) in the model's
		// bf16 (no hook: mamba2_state_dtype, :600-609): conv (4 - 1) x
		// (3072 + 2 x 128) x 2 B = 19,968; SSM 48 x 64 x 128 x 2 B =
		// 786,432; M = 806,400. An attention token is 4 x (128 + 128) x 2
		// B = 2048 B (Attention of 4 KV heads, :283-291): the block is 16 x
		// cdiv(M, 16 x 2048) = 16 x 25 = 400, the page 819,200 (M padded by
		// 12,800 B). 36 Mamba layers (layer 0 first), 4 attention: group
		// size 4, nine state groups, one full.
		{"granite-4.0-h-tiny", graniteTiny, Serve{}, want{400, 806400, 400 * 2048, 400, "align",
			budget.PagedPool{Tensors: 4, PageBytes: 400 * 2048, Groups: []budget.PageGroup{
				{Count: 9, PageTokens: 400, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 400, CapTokens: budget.NoCap}}},
			"Mambax9 FullAttentionx1"}},
		// At TP4 the group is repeated to 4 (extra_groups_for_head_shards):
		// conv 3 x (3072 + 2 x 4 x 128) / 4 x 2 B = 6144, SSM 12 x 64 x 128
		// x 2 B = 196,608, M = 202,752; one KV head a rank, 512 B a token:
		// 16 x cdiv(M, 8192) = 16 x 25 = 400 again, page 204,800.
		{"granite-4.0-h-tiny tp4", graniteTiny, Serve{TensorParallelSize: 4}, want{400, 202752, 400 * 512, 400, "align",
			budget.PagedPool{Tensors: 4, PageBytes: 400 * 512, Groups: []budget.PageGroup{
				{Count: 9, PageTokens: 400, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 400, CapTokens: budget.NoCap}}},
			"Mambax9 FullAttentionx1"}},
		// Falcon-H1-0.5B: each layer registers its attention, then its
		// mixer as a layer of its own (falcon_h1.py:337-357), so 36 of
		// each. The state (mamba2_state_shape in bf16, :528-571): conv 3
		// x (1536 + 2 x 128) x 2 B = 10,752, SSM 24 x 64 x 128 x 2 B =
		// 393,216, M = 403,968. A token is 2 x 128 x 2 B = 512 B: the
		// block 16 x cdiv(M, 8192) = 16 x 50 = 800, the page 409,600.
		// Attention comes first; 36 and 36 make one group of each.
		{"falcon-h1-0.5b", falconH1, Serve{}, want{800, 403968, 800 * 512, 800, "align",
			budget.PagedPool{Tensors: 36, PageBytes: 800 * 512, Groups: []budget.PageGroup{
				{Count: 1, PageTokens: 800, CapTokens: budget.NoCap}, {Count: 1, PageTokens: 800, CapTokens: 0, ExtraPages: 2}}},
			"FullAttentionx1 Mambax1"}},
		// Without prefix caching the state block stands for the whole
		// max_model_len (16,384 here: the config's length) and a sequence
		// keeps one.
		{"falcon-h1-0.5b none", falconH1, Serve{EnablePrefixCaching: engine.Off}, want{800, 403968, 800 * 512, 16384, "none",
			budget.PagedPool{Tensors: 36, PageBytes: 800 * 512, Groups: []budget.PageGroup{
				{Count: 1, PageTokens: 800, CapTokens: budget.NoCap}, {Count: 1, PageTokens: 16384, CapTokens: 0, ExtraPages: 1}}},
			"FullAttentionx1 Mambax1"}},
		// Jamba-v0.1 as its config reads: the Mamba1 state of
		// TestStateLayout's hand-built Jamba (mamba1_state_shape and
		// mamba1_state_dtype in bf16, jamba.py:462-485): conv 3 x 8192 x 2
		// B = 49,152, SSM 8192 x 16 x 2 B = 262,144, M = 311,296; a token
		// 8 x 256 x 2 = 4096 B: the block 16 x cdiv(M, 65,536) = 80. 28
		// Mamba layers, 4 attention: seven state groups of 4.
		{"jamba-v0.1", jambaV01, Serve{}, want{80, 311296, 80 * 4096, 80, "align",
			budget.PagedPool{Tensors: 4, PageBytes: 80 * 4096, Groups: []budget.PageGroup{
				{Count: 7, PageTokens: 80, CapTokens: 0, ExtraPages: 2}, {Count: 1, PageTokens: 80, CapTokens: budget.NoCap}}},
			"Mambax7 FullAttentionx1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := model.ParseConfig(tt.name+".json", []byte(tt.config))
			if err != nil {
				t.Fatal(err)
			}
			tt.serve.MaxModelLen, tt.serve.KVCacheMemoryBytes = min(a.MaxPosition, 131072), gib40
			r := ref(t, a, tt.serve, testClass(false))
			got := want{r.Serve.BlockSize, r.Serve.StatePageBytes, r.Serve.StatePagePadded, r.Serve.MambaBlockSize, r.Serve.MambaCacheMode,
				r.Plan().Stages[0].Pool, groupNames(a, r.groups)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestAttentionFreeMamba: mamba-2.8b-hf (shipped) as vLLM serves an
// attention-free model. Its 64 MambaMixer layers keep only state
// (mamba1_state_shape in the served bf16, mamba.py:222-246): conv 3 x 5120
// x 2 B = 30,720 and SSM 5120 x 16 x 2 B = 163,840 a layer, 194,560 B. No
// attention: no hybrid raise, prefix caching off by default
// (is_prefix_caching_supported is false for attention_free,
// vllm/config/model.py:2085-2090), so mode none and a state block stands
// for the whole max_model_len, 2048 for a config without a length key.
// One group of the 64 identical specs: a block is 64 x 194,560 =
// 12,451,840 B, 40 GiB of them 3449 (3449 x 12,451,840 = 42,946,396,160),
// one a sequence, enough for the 1024 sequences the startup check asks
// (vllm/config/compilation.py:1492-1513).
func TestAttentionFreeMamba(t *testing.T) {
	a := shipped(t)["state-spaces__mamba-2.8b-hf"]
	r := ref(t, a, Serve{KVCacheMemoryBytes: gib40}, testClass(false))
	c := r.Capacity()
	type got struct {
		Pool                             budget.PagedPool
		Names, Mode                      string
		MaxLen, MambaBlock, State        uint64
		Blocks, PagesPerSeq, StateBlocks uint64
		Over                             bool
	}
	want := got{budget.PagedPool{Tensors: 64, PageBytes: 194560, Groups: []budget.PageGroup{{Count: 1, PageTokens: 2048, CapTokens: 0, ExtraPages: 1}}},
		"Mambax1", "none", 2048, 2048, 194560, 3449, 1, 3449, false}
	g := got{r.Plan().Stages[0].Pool, groupNames(a, r.groups), r.Serve.MambaCacheMode, r.Serve.MaxModelLen, r.Serve.MambaBlockSize,
		r.Serve.StatePageBytes, c.Blocks, c.PagesPerSeq, c.StateBlocks, c.SeqsOverStateBlocks}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// mambaCodestral is mistralai/Mamba-Codestral-7B-v0.1's shape (as model's
// tests enter it): 64 Mamba2 layers of 128 heads of 64 in 8 groups, state
// 128, conv 4, no length key.
const mambaCodestral = `{"architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "hidden_size": 4096,
 "num_hidden_layers": 64, "num_heads": 128, "head_dim": 64, "n_groups": 8, "state_size": 128, "conv_kernel": 4, "expand": 2,
 "vocab_size": 32768, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`

// TestAttentionFreeMamba2: Mamba-Codestral-7B as vLLM serves it. A layer's
// state (mamba2_state_shape in bf16, mamba2.py:176-214): conv 3 x (8192 +
// 2 x 8 x 128) x 2 B = 61,440 and SSM 128 x 64 x 128 x 2 B = 2,097,152:
// 2,158,592 B; a block of the 64 layers 138,149,888 B, 40 GiB of them 310
// (310 x 138,149,888 = 42,826,465,280). Fewer than 1024 sequences: with
// CUDA graphs captured in full vLLM refuses to start ("max_num_seqs (1024)
// exceeds available Mamba cache blocks (310)", vllm/config/
// compilation.py:1492-1513); under --enforce-eager it starts. And
// Mamba2ForCausalLM has no SupportsPP: --pipeline-parallel-size 2 is
// refused (vllm/config/model.py:1387-1394).
func TestAttentionFreeMamba2(t *testing.T) {
	a, err := model.ParseConfig("mamba-codestral.json", []byte(mambaCodestral))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		State, Blocks, StateBlocks uint64
		Over                       bool
	}
	for _, tt := range []struct {
		eager bool
		want  got
	}{
		{false, got{2158592, 310, 310, true}},
		// No full graphs, no check: the state blocks are not counted.
		{true, got{2158592, 310, 0, false}},
	} {
		r := ref(t, a, Serve{KVCacheMemoryBytes: gib40, MaxNumSeqs: 1024, EnforceEager: tt.eager}, testClass(false))
		c := r.Capacity()
		if diff := cmp.Diff(tt.want, got{r.Serve.StatePageBytes, c.Blocks, c.StateBlocks, c.SeqsOverStateBlocks}); diff != "" {
			t.Errorf("eager %v (-want +got):\n%s", tt.eager, diff)
		}
	}
	_, err = NewReference(a, Serve{KVCacheMemoryBytes: gib40, PipelineParallelSize: 2}, testClass(false), current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "pipeline-parallel-size" || !strings.Contains(err.Error(), "SupportsPP") {
		t.Errorf("pp 2: %v, want a --pipeline-parallel-size refusal naming SupportsPP", err)
	}
}

// TestFalconMambaState: falcon-mamba-7b's state as vLLM sizes it with
// Mamba's model (mamba1_state_shape of intermediate_size 8192 in bf16,
// mamba.py:222-246): conv 3 x 8192 x 2 B = 49,152 and SSM 8192 x 16 x 2 B
// = 262,144, 311,296 B a layer; at TP2 half of each, 155,648.
func TestFalconMambaState(t *testing.T) {
	a, err := model.ParseConfig("falcon-mamba-7b.json", []byte(`{"architectures": ["FalconMambaForCausalLM"], "model_type": "falcon_mamba",
 "hidden_size": 4096, "num_hidden_layers": 64, "intermediate_size": 8192, "expand": 16, "state_size": 16, "conv_kernel": 4,
 "time_step_rank": 256, "vocab_size": 65024, "tie_word_embeddings": false, "torch_dtype": "bfloat16"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ tp, want uint64 }{{1, 311296}, {2, 155648}} {
		r := ref(t, a, Serve{KVCacheMemoryBytes: gib40, TensorParallelSize: tt.tp}, testClass(false))
		if r.Serve.StatePageBytes != tt.want {
			t.Errorf("TP%d: state page %d B, want %d", tt.tp, r.Serve.StatePageBytes, tt.want)
		}
	}
}
