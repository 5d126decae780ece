package vllm

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/engine"
	"membudget/model"
)

// TestPhi4MMTowerHeads: Phi-4-multimodal's SigLIP tower has 16 heads,
// which vLLM divides among the tensor-parallel ranks with an assert
// (idefics2_vision_model.py:146-148). With every text head its own KV
// head (24 and 24) and an MLP of 8190, TP 3 divides the language model
// and not the tower:
// refused by --tensor-parallel-size; TP 2 divides both and is served.
func TestPhi4MMTowerHeads(t *testing.T) {
	a := phi4MMTextDividesBy3(t)
	_, err := Resolve(Serve{TensorParallelSize: 3, TrustRemoteCode: true}, a, bigClass, current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" || !strings.Contains(err.Error(), "16 attention heads") {
		t.Errorf("TP 3: got %v, want a refusal of --tensor-parallel-size naming the tower's 16 heads", err)
	}
	if _, err := Resolve(Serve{TensorParallelSize: 2, TrustRemoteCode: true}, a, bigClass, current); err != nil {
		t.Errorf("TP 2: %v", err)
	}
}

// phi4MMTextDividesBy3 is Phi-4-multimodal's shipped config with every
// text head its own KV head (24 and 24) and an MLP of 8190, a language
// model TP 3 divides where the 16-head SigLIP tower does not.
func phi4MMTextDividesBy3(t *testing.T) *model.Arch {
	t.Helper()
	data, err := os.ReadFile("../../corpus/models/microsoft__Phi-4-multimodal-instruct.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(string(data), `"num_key_value_heads": 8`, `"num_key_value_heads": 24`, 1)
	doc = strings.Replace(doc, `"intermediate_size": 8192`, `"intermediate_size": 8190`, 1)
	a, err := model.ParseConfig("phi4mm.json", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPhi4MMEncoderCache: vLLM's docs launch Phi-4-multimodal with
// --mm-processor-kwargs '{"dynamic_hd": 16}', which sizes the largest
// image: one 448 px crop wide and 16 tall, 272 x 16 + 273 = 4625 tokens,
// more than the longest audio's ceil(3011 / 8) = 377. With the docs'
// --max-model-len 5120, --max-num-seqs 2, --max-num-batched-tokens 12800
// and one image a prompt: budget max(12800, 4625) = 12800, items max(1,
// min(12800 / 4625 = 2, 2 x min(1, 5120 / 4625 = 1))) = 2, cached 2 x
// 4625 x 3072 x 2 B. Without dynamic_hd, or with images off (the audio's
// tokens follow the unread sampling rate), or where the audio may
// outnumber the image (compression_rate 1: 3011 tokens against 545 for
// one crop), the cache is not sized; a key the tower does not read is
// refused by name. Main runs the model on its V2 runner, whose first
// stage alone holds the cache (Phi-4-multimodal has one stage anyway).
func TestPhi4MMEncoderCache(t *testing.T) {
	data, err := os.ReadFile("../../corpus/models/microsoft__Phi-4-multimodal-instruct.json")
	if err != nil {
		t.Fatal(err)
	}
	parse := func(doc string) *model.Arch {
		a, err := model.ParseConfig("phi4mm.json", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	shipped := parse(string(data))
	every := parse(strings.Replace(string(data), `"compression_rate": 8`, `"compression_rate": 1`, 1))
	docs := func(mm MM) Serve {
		return Serve{MaxModelLen: 5120, MaxNumSeqs: 2, MaxNumBatchedTokens: 12800, MM: mm, TrustRemoteCode: true}
	}
	tests := []struct {
		name string
		a    *model.Arch
		mm   MM
		want EncoderProfile
	}{
		{"the docs' launch", shipped, MM{ProcessorKwargs: `{"dynamic_hd": 16}`, LimitPerPrompt: `{"image": 1}`},
			EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 4625, Budget: 12800, Items: 2, CacheBytes: 2 * 4625 * 3072 * 2}},
		{"no dynamic_hd", shipped, MM{}, EncoderProfile{Runs: true, Why: phi4mmUnsized}},
		{"audio alone", shipped, MM{ProcessorKwargs: `{"dynamic_hd": 16}`, LimitPerPrompt: `{"image": 0}`}, EncoderProfile{Runs: true, Why: phi4mmUnsized}},
		{"audio may outnumber", every, MM{ProcessorKwargs: `{"dynamic_hd": 1}`}, EncoderProfile{Runs: true, Why: phi4mmUnsized}},
		// 256 + 1 + 16 + 256 + 16 = 545 tokens; budget 12800; items
		// min(12800 / 545 = 23, 2 x min(999, 5120 / 545 = 9) = 18).
		{"images alone, one crop", every, MM{ProcessorKwargs: `{"dynamic_hd": 1}`, LimitPerPrompt: `{"audio": 0}`},
			EncoderProfile{Runs: true, Sized: true, Modality: "image", TokensPerItem: 545, Budget: 12800, Items: 18, CacheBytes: 18 * 545 * 3072 * 2}},
	}
	for _, tt := range tests {
		r, err := Resolve(docs(tt.mm), tt.a, bigClass, current)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, r.Encoder); diff != "" {
			t.Errorf("%s: encoder profile (-want +got):\n%s", tt.name, diff)
		}
	}
	_, err = Resolve(docs(MM{ProcessorKwargs: `{"max_pixels": 1003520}`}), shipped, bigClass, current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "mm-processor-kwargs" || !strings.Contains(err.Error(), "max_pixels") {
		t.Errorf("max_pixels: got %v, want a refusal of --mm-processor-kwargs naming the key", err)
	}
}
