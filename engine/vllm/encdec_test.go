package vllm

import (
	"errors"
	"math"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
	"membudget/model/modelgen"
)

// whisperArch reads the shipped openai/whisper-large-v3 config.
func whisperArch(t *testing.T, file string) *model.Arch {
	t.Helper()
	data, err := os.ReadFile("../../corpus/models/" + file + ".json")
	if err != nil {
		t.Fatal(err)
	}
	return parse(t, string(data))
}

// TestWhisperResolve: vLLM's rules for an encoder-decoder serve on the 80
// GiB class: max_model_len max_target_positions 448, no chunked prefill
// (a batch of the device's default 8192, already above 448 and one
// encoder input of 1500), the generate runner.
func TestWhisperResolve(t *testing.T) {
	a := whisperArch(t, "openai__whisper-large-v3")
	r, err := Resolve(Serve{}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Runner                        string
		MaxLen, Batched, EncoderToken uint64
	}
	if diff := cmp.Diff(got{"", 448, 8192, 1500}, got{r.Runner, r.MaxModelLen, r.MaxNumBatchedTokens, r.EncoderTokens}); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWhisperRefusals: what vLLM refuses of a Whisper serve, and what
// membudget does not size, each naming its flag.
func TestWhisperRefusals(t *testing.T) {
	a := whisperArch(t, "openai__whisper-large-v3")
	for _, c := range []struct {
		name string
		s    Serve
		flag string
	}{
		{"pipeline parallel", Serve{PipelineParallelSize: 2}, "pipeline-parallel-size"},
		{"pooling runner", Serve{Runner: "pooling"}, "runner"},
		{"past the position table", Serve{MaxModelLen: 449, AllowLongMaxModelLen: true}, "max-model-len"},
		{"past the derived length", Serve{MaxModelLen: 449}, "max-model-len"},
		{"a batch below one encoder input", Serve{MaxNumBatchedTokens: 1024}, "max-num-batched-tokens"},
		{"a batch below max_model_len", Serve{MaxNumBatchedTokens: 256}, "max-num-batched-tokens"},
		{"quantized", Serve{Quantization: "fp8"}, "quantization"},
		{"lora", Serve{LoRA: LoRA{Enable: true}}, "enable-lora"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(c.s, a, testClass(false), current)
			wantRefusal(t, err, c.flag, "")
		})
	}
}

// TestWhisperEncoderHeadsDivide: a tensor-parallel degree that divides
// the decoder's heads but not the encoder's is refused (WhisperAttention
// asserts it for both).
func TestWhisperEncoderHeadsDivide(t *testing.T) {
	a := parse(t, `{"model_type":"whisper","architectures":["WhisperForConditionalGeneration"],"d_model":384,`+
		`"encoder_attention_heads":6,"decoder_attention_heads":4,"encoder_ffn_dim":1536,"decoder_ffn_dim":1536}`)
	_, err := Resolve(Serve{TensorParallelSize: 4}, a, testClass(false), current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" {
		t.Errorf("err %v, want a refusal naming --tensor-parallel-size", err)
	}
	if _, err := Resolve(Serve{TensorParallelSize: 2}, a, testClass(false), current); err != nil {
		t.Errorf("TP 2 divides both: %v", err)
	}
}

// TestWhisperKVCapacityByHand: the KV layout vLLM builds for
// whisper-large-v3: 32 self-attention layers (FullAttentionSpec) and 32
// cross-attention layers (CrossAttentionSpec) of 20 heads x 64, float16,
// blocks of 16: a page of 16 x 2 x 20 x 64 x 2 = 81,920 B each. Two specs
// of one page: two groups of 32 (the hybrid allocator), 32 tensors shared
// by both, a block 32 x 81,920 = 2,621,440 B. A request of 448 tokens
// keeps cdiv(448, 16) = 28 self-attention pages and, at startup, cdiv(8192
// = max_num_encoder_input_tokens, 16) = 512 cross-attention pages: 540.
// vLLM logs blocks / 540 as the concurrency and int(concurrency x 448) as
// the KV cache size; the tokens are blocks / 2 groups x 16.
func TestWhisperKVCapacityByHand(t *testing.T) {
	a := whisperArch(t, "openai__whisper-large-v3")
	ref, err := NewReference(a, Serve{}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	c := ref.Capacity()
	if c.BlockBytes != 2_621_440 || c.PagesPerSeq != 540 {
		t.Errorf("block %d B, %d pages a request; want 2,621,440 and 540", c.BlockBytes, c.PagesPerSeq)
	}
	if c.Blocks == 0 || !c.Starts {
		t.Fatalf("%d blocks, starts %v: want a serve that starts", c.Blocks, c.Starts)
	}
	if want := c.AvailableBytes / 2_621_440; c.Blocks != want {
		t.Errorf("%d blocks, want available / block = %d", c.Blocks, want)
	}
	if want := c.Blocks / 2 * 16; c.Tokens != want {
		t.Errorf("%d tokens, want blocks / 2 x 16 = %d", c.Tokens, want)
	}
	if want := uint64(math.Floor(float64(c.Blocks) / 540 * 448)); c.LoggedTokens != want {
		t.Errorf("logged %d tokens, want int(blocks / 540 x 448) = %d", c.LoggedTokens, want)
	}
	// One request of 448 tokens needs its 540 pages of every tensor.
	if c.NeededBytes != 540*2_621_440 {
		t.Errorf("needs %d B, want 540 x 2,621,440 = %d", c.NeededBytes, 540*2_621_440)
	}
	// A running request holds cdiv(1500, 16) = 94 cross pages: the
	// footprint of one sequence of 448 tokens is 28 + 94 = 122 pages of
	// every tensor, 122 x 2,621,440 = 319,815,680 B.
	if got := ref.Plan().Stages[0].Pool.Bytes(1, 448); got != 122*2_621_440 {
		t.Errorf("one running request: %d B, want 122 pages, %d", got, 122*2_621_440)
	}
	// --max-num-batched-tokens 2048: 128 cross pages, 156 a request.
	ref, err = NewReference(a, Serve{MaxNumBatchedTokens: 2048}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if got := ref.Capacity().PagesPerSeq; got != 156 {
		t.Errorf("at 2048 batched tokens: %d pages a request, want 28 + 128 = 156", got)
	}
}

// TestWhisperPeakByHand: whisper-large-v3 on one GPU of the 80 GiB class,
// float16, 8192 batched tokens, 1024 sequences. The decoder's forward
// pass: 2 x 1280 + max(2 x 1280 + 2 x 1280 = 5120, 3 x 5120 = 15,360) =
// 17,920 elements plus the 2 x 1280 hidden states beside it: 20,480 x 2 =
// 40,960 B a token; 8192 x 40,960 = 335,544,320 plus the residual 52 MiB =
// 390,070,272. The profile run's encoder pass: min(8192 / 1500 = 5, 1024)
// = 5 inputs of 1500 tokens, 7500 tokens; a token of the encoder holds 4 x
// 1280 + max(4 x 20 x 64, 2 x 5120) = 15,360 elements (the stem's 2 x 128
// + 4 x 1280 = 5376 is less), 30,720 B: 230,400,000, less than the
// decoder's pass, so nothing more; its outputs 7500 x 1280 x 2 =
// 19,200,000 stay through the decoder's. The sampler's 1024 rows of the
// 51904-wide padded vocabulary in float16 (106,299,392) and the 8192 x
// 1280 hidden states (20,971,520) stay below the forward pass: none.
// FULL_DECODE_ONLY graphs: decode sizes up to min(2 x 1024, 512) = 512,
// 51 of them; the first holds 324 MiB + 512 x 40,960 = 360,710,144, the 50
// others 32 layers x 153 KiB each: 250,675,200; 611,385,344 (a generation
// serve would capture PIECEWISE as well, 100 graphs after the first).
func TestWhisperPeakByHand(t *testing.T) {
	a := whisperArch(t, "openai__whisper-large-v3")
	r, err := Resolve(Serve{}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]uint64{}
	for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
		got[it.Name] = it.Bytes
	}
	want := map[string]uint64{
		"activation_peak":  390_070_272,
		"sampler_logits":   0,
		"encoder_pass":     0,
		"encoder_outputs":  19_200_000,
		"cuda_graph_pool":  611_385_344,
		"non_torch_growth": nonTorchV1From018,
		// The V2 runner's request state (v2state.go) at 1024 sequences,
		// 8192 batched tokens and Whisper's 51866-token vocabulary:
		// output_bin_counts 1024 x 51866 x 4 = 212,443,136;
		// prompt_bin_mask and grammar_bitmask 1024 x cdiv(51866, 32) =
		// 1621 x 4 = 6,639,616 each; the logit-bias rows 1024 x (3 x 1024 +
		// 128) x 4 = 13,107,200; bad words 1024 x (1024 + 129) x 4 =
		// 4,722,688; logprob ids 1024 x 128 x 4 = 524,288; logits_indices
		// 4096; the input buffers (8192 x 13 + 1025 x 4 + 2 x 4096) and
		// request state (1024 x 20): 139,268. The encoder-decoder model
		// state's encoder_seq_lens (1024 int32) is not charged.
		"v2_request_state": 244_219_908,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("peak items (-want +got):\n%s", diff)
	}
	// At --max-num-seqs 16: decode graphs up to 16 (1, 2, 4, 8, 16), the
	// first holding 324 MiB + 16 x 40,960 = 340,393,984, four more of 32 x
	// 156,672: 360,448,000. The default batch is capped at max_num_seqs x
	// max_model_len = 16 x 448 = 7168 tokens (arg_utils.py:2828-2834, PR
	// #28665, which names Whisper), which hold 7168 / 1500 = 4 encoder
	// inputs.
	r, err = Resolve(Serve{MaxNumSeqs: 16}, a, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if got := graphBytes(&r, stageOf(&r, 0), forwardBytesPerToken(a, 1, 2)); got != 360_448_000 {
		t.Errorf("graphs at 16 sequences: %d B, want 360,448,000", got)
	}
	if r.MaxNumBatchedTokens != 7168 {
		t.Errorf("batched tokens at 16 sequences: %d, want 16 x 448 = 7168", r.MaxNumBatchedTokens)
	}
	if got := encoderItems(a, &r); got != 4 {
		t.Errorf("profile inputs at 16 sequences: %d, want min(7168 / 1500, 16) = 4", got)
	}
	r.MaxNumSeqs = 2
	if got := encoderItems(a, &r); got != 2 {
		t.Errorf("profile inputs at 2 sequences: %d, want 2", got)
	}
}

// TestCrossPagesIgnoreTheLength: for any Whisper-shaped config, length and
// batch, a request counts cdiv(max_model_len, block) self-attention pages
// and cdiv(max_num_batched_tokens, block) cross-attention pages at startup
// (CrossAttentionSpec.max_memory_usage_bytes), the tokens are half the
// blocks' (two groups), and the blocks fill the available memory.
func TestCrossPagesIgnoreTheLength(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := modelgen.ConfigOf("whisper").Draw(t, "config")
		data, err := modelgen.JSON(c)
		if err != nil {
			t.Fatal(err)
		}
		a, err := model.ParseConfig("config.json", data)
		if err != nil {
			t.Fatal(err)
		}
		maxLen := rapid.Uint64Range(1, a.MaxPosition).Draw(t, "max_model_len")
		batch := rapid.Uint64Range(max(maxLen, a.Audio.SourcePositions), 16384).Draw(t, "max_num_batched_tokens")
		ref, err := NewReference(a, Serve{MaxModelLen: maxLen, MaxNumBatchedTokens: batch, MaxNumSeqs: 16}, testClass(false), current)
		if err != nil {
			t.Fatal(err)
		}
		block := ref.Serve.BlockSize
		capa := ref.Capacity()
		if want := budget.CeilDiv(maxLen, block) + budget.CeilDiv(batch, block); capa.PagesPerSeq != want {
			t.Fatalf("%d pages a request at %d tokens, batch %d, block %d; want %d", capa.PagesPerSeq, maxLen, batch, block, want)
		}
		if capa.Tokens != capa.Blocks/2*block {
			t.Fatalf("%d tokens, want blocks %d / 2 x %d", capa.Tokens, capa.Blocks, block)
		}
		if capa.BlockBytes == 0 || capa.Blocks != capa.AvailableBytes/capa.BlockBytes {
			t.Fatalf("%d blocks of %d B for %d B available", capa.Blocks, capa.BlockBytes, capa.AvailableBytes)
		}
	})
}
