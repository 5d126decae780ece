package vllm

import (
	"errors"
	"os"
	"strings"
	"testing"

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
	_, err = Resolve(Serve{TensorParallelSize: 3}, a, bigClass, current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "tensor-parallel-size" || !strings.Contains(err.Error(), "16 attention heads") {
		t.Errorf("TP 3: got %v, want a refusal of --tensor-parallel-size naming the tower's 16 heads", err)
	}
	if _, err := Resolve(Serve{TensorParallelSize: 2}, a, bigClass, current); err != nil {
		t.Errorf("TP 2: %v", err)
	}
}

// TestPhi4MMProcessorKwargs: vLLM's docs launch Phi-4-multimodal with
// --mm-processor-kwargs '{"dynamic_hd": 16}', which is taken (the encoder
// cache it shapes is reported as not sized either way); a key the tower
// does not read is refused by name.
func TestPhi4MMProcessorKwargs(t *testing.T) {
	a := shipped(t)["microsoft__Phi-4-multimodal-instruct"]
	r, err := Resolve(Serve{MM: MM{ProcessorKwargs: `{"dynamic_hd": 16}`}}, a, bigClass, current)
	if err != nil {
		t.Fatalf("dynamic_hd: %v", err)
	}
	if r.Encoder.Sized || !strings.Contains(r.Encoder.Why, "processor files") {
		t.Errorf("encoder profile %+v, want it not sized, saying why", r.Encoder)
	}
	_, err = Resolve(Serve{MM: MM{ProcessorKwargs: `{"max_pixels": 1003520}`}}, a, bigClass, current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "mm-processor-kwargs" || !strings.Contains(err.Error(), "max_pixels") {
		t.Errorf("max_pixels: got %v, want a refusal of --mm-processor-kwargs naming the key", err)
	}
}
