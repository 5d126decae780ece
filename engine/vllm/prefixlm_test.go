package vllm

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/engine"
)

// class48 is a 48 GiB Hopper class: under 70 GiB, so vLLM's API-server
// default is 2048 batched tokens and 256 sequences (get_batch_defaults),
// the default PR #43051's floor lifts.
func class48() budget.Class {
	c := testClass(false)
	c.Name, c.Device.Name, c.Device.MemoryBytes = "test-48g", "Test 48GB", 48<<30
	return c
}

// TestPrefixLMFloor pins the batched tokens of a multimodal prefix-LM
// model (prefixlm.go). Gemma 4 31B's largest item is a video of 32 frames
// of 70 soft tokens plus 2 + 6 framing tokens, 32 x 78 = 2496 tokens
// (gemma4_mm.py:253-279 at d18bb7b); its images are 280 tokens and it has
// no audio_config. Gemma 3 is a prefix-LM model too, but its processor
// info does not override get_mm_max_tokens_per_item, so vLLM finds no
// floor and keeps 2048.
func TestPrefixLMFloor(t *testing.T) {
	models := shipped(t)
	gemma4, gemma3 := models["google__gemma-4-31B-it"], models["google__gemma-3-27b-it"]
	if gemma4 == nil || gemma3 == nil || gemma4.Vision == nil || !gemma4.Vision.BidirectionalVision || gemma4.Vision.AudioConfig {
		t.Fatal("the shipped Gemma 4 31B should read as a bidirectional-vision tower without audio_config")
	}
	small, big := class48(), testClass(false)
	type got struct{ Batched, Seqs uint64 }
	tests := []struct {
		name    string
		gemma3  bool
		version string
		class   budget.Class
		serve   Serve
		want    got
		errFlag string
		errHas  string
	}{
		// 2048 < 2496: raised; 256 sequences stay below it.
		{"main, 48 GiB", false, "main", small, Serve{MaxModelLen: 8192}, got{2496, 256}, "", ""},
		{"0.23.0, the first release surely with #43051", false, "0.23.0", small, Serve{MaxModelLen: 8192}, got{2496, 256}, "", ""},
		// 0.21.0 is before the PR was merged: the device's default.
		{"0.21.0, before it", false, "0.21.0", small, Serve{MaxModelLen: 8192}, got{2048, 256}, "", ""},
		// 0.22's branch may or may not hold it: refused by name.
		{"0.22.0, in doubt", false, "0.22.0", small, Serve{MaxModelLen: 8192}, got{}, "max-num-batched-tokens", "may raise its default 2048"},
		// ... unless the tokens are given, which vLLM keeps.
		{"0.22.0, tokens given", false, "0.22.0", small, Serve{MaxModelLen: 8192, MaxNumBatchedTokens: 2048}, got{2048, 256}, "", ""},
		{"main, tokens given", false, "main", small, Serve{MaxModelLen: 8192, MaxNumBatchedTokens: 2048}, got{2048, 256}, "", ""},
		// 8192 on an 80 GiB Hopper already holds 2496: unchanged.
		{"main, 80 GiB", false, "main", big, Serve{MaxModelLen: 8192}, got{8192, 1024}, "", ""},
		// Text only: is_mm_prefix_lm is cleared, no floor.
		{"main, every limit 0", false, "main", small, Serve{MaxModelLen: 8192, MM: MM{LimitPerPrompt: `{"image": 0, "video": 0}`}}, got{2048, 256}, "", ""},
		{"main, language model only", false, "main", small, Serve{MaxModelLen: 8192, MM: MM{LanguageModelOnly: true}}, got{2048, 256}, "", ""},
		// Images alone still take the video's floor: the method counts
		// 32 frames whatever the video's count.
		{"main, video 0", false, "main", small, Serve{MaxModelLen: 8192, MM: MM{LimitPerPrompt: `{"video": 0}`}}, got{2496, 256}, "", ""},
		// PR #28665's cap comes after the floor: min(1 x 2048, 2496).
		{"main, capped after the floor", false, "main", small, Serve{MaxModelLen: 2048, MaxNumSeqs: 1}, got{2048, 1}, "", ""},
		// Without chunked prefill: max(4096, 2048) = 4096 holds the item.
		{"main, unchunked 4096", false, "main", small, Serve{MaxModelLen: 4096, ChunkedPrefill: engine.Off}, got{4096, 256}, "", ""},
		// Gemma 3: no override, no floor.
		{"main, Gemma 3", true, "main", small, Serve{MaxModelLen: 8192}, got{2048, 256}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := gemma4
			if tt.gemma3 {
				a = gemma3
			}
			r, err := Resolve(tt.serve, a, tt.class, mustProfile(tt.version))
			if tt.errFlag != "" {
				var se *engine.SettingError
				if !errors.As(err, &se) || se.Flag != tt.errFlag || !strings.Contains(se.Reason, tt.errHas) {
					t.Fatalf("got %v, want a refusal of --%s saying %q", err, tt.errFlag, tt.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got{r.MaxNumBatchedTokens, r.MaxNumSeqs}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPrefixLMFloorPeak: the profile's batch follows the floor. Gemma 4
// 31B in bf16: a token's forward pass is the layer input, its residual,
// norm and attention output (4 x hidden 5376 = 21504) and the MLP's gate,
// up and product (3 x intermediate 21504 = 64512; the attention
// projections, at most 2 x 32 x 512 + 2 x 16 x 512 = 49152 on a global
// layer, are narrower), 2 x 86016 = 172032 B. The raise from 2048 to
// 2496 tokens adds 448 x 172032 = 77070336 B (73.5 MiB) to the peak,
// which the KV cache loses.
func TestPrefixLMFloorPeak(t *testing.T) {
	gemma4 := shipped(t)["google__gemma-4-31B-it"]
	peak := func(s Serve) uint64 {
		for _, it := range ref(t, gemma4, s, class48()).Evaluate(1, 1).Items {
			if it.Name == "activation_peak" {
				return it.Bytes
			}
		}
		t.Fatal("no activation_peak item")
		return 0
	}
	given := peak(Serve{MaxModelLen: 8192, MaxNumBatchedTokens: 2048})
	floored := peak(Serve{MaxModelLen: 8192})
	if diff := cmp.Diff(uint64(448*172032), floored-given); diff != "" {
		t.Errorf("the floor's added peak (-want +got):\n%s", diff)
	}
}

// TestPrefixLMFloorProperty: on main a defaulted batch of a multimodal
// Gemma 4 is at least its largest item, unless PR #28665's cap
// (max_num_seqs x max_model_len) is lower; a given batch is kept.
func TestPrefixLMFloorProperty(t *testing.T) {
	gemma4 := shipped(t)["google__gemma-4-31B-it"]
	c, p := class48(), mustProfile("main")
	rapid.Check(t, func(t *rapid.T) {
		s := Serve{MaxModelLen: rapid.Uint64Range(256, 16384).Draw(t, "len"), MaxNumSeqs: rapid.Uint64Range(1, 512).Draw(t, "seqs")}
		given := rapid.Bool().Draw(t, "given")
		if given {
			s.MaxNumBatchedTokens = rapid.Uint64Range(max(s.MaxNumSeqs, 256), 16384).Draw(t, "tokens")
		}
		r, err := Resolve(s, gemma4, c, p)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case given && r.MaxNumBatchedTokens != s.MaxNumBatchedTokens:
			t.Fatalf("given %d, resolved %d", s.MaxNumBatchedTokens, r.MaxNumBatchedTokens)
		case !given && r.MaxNumBatchedTokens < min(gemma4VideoItemTokens, s.MaxNumSeqs*s.MaxModelLen):
			t.Fatalf("defaulted batch %d below min(%d, %d x %d)", r.MaxNumBatchedTokens, gemma4VideoItemTokens, s.MaxNumSeqs, s.MaxModelLen)
		}
	})
}

// TestPrefixLMFloorAudio: a Gemma 4 with an audio_config raises the
// batch to its clip's audio_seq_length where that is the largest item,
// which membudget does not read: a defaulted batch is refused by name,
// a given one kept; text only, nothing is raised.
func TestPrefixLMFloorAudio(t *testing.T) {
	a := *shipped(t)["google__gemma-4-31B-it"]
	v := *a.Vision
	v.AudioConfig = true
	a.Vision = &v
	c, p := class48(), mustProfile("main")
	_, err := Resolve(Serve{MaxModelLen: 8192}, &a, c, p)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "max-num-batched-tokens" || !strings.Contains(se.Reason, "audio_seq_length") {
		t.Fatalf("got %v, want a refusal of --max-num-batched-tokens naming audio_seq_length", err)
	}
	for _, s := range []Serve{
		{MaxModelLen: 8192, MaxNumBatchedTokens: 2048},
		{MaxModelLen: 8192, MM: MM{LimitPerPrompt: `{"image": 0, "video": 0, "audio": 0}`}},
	} {
		r, err := Resolve(s, &a, c, p)
		if err != nil {
			t.Fatalf("%+v: %v", s.MM, err)
		}
		if r.MaxNumBatchedTokens != 2048 {
			t.Errorf("%+v: batched %d, want 2048", s.MM, r.MaxNumBatchedTokens)
		}
	}
}
