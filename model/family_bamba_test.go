package model

import (
	"errors"
	"strings"
	"testing"
)

// TestBambaRefusedByName: a Bamba config is refused by its model_type,
// with the release vLLM last served it in, and never falls through to the
// generic decoder (whose error would wrap ErrUnknownModelType).
func TestBambaRefusedByName(t *testing.T) {
	// Bamba-9B's shape as BambaConfig names it: 32 layers, attention at
	// 9, 18 and 27, Mamba2 elsewhere.
	config := `{"model_type":"bamba","architectures":["BambaForCausalLM"],"hidden_size":4096,"num_hidden_layers":32,` +
		`"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,` +
		`"attn_layer_indices":[9,18,27],"mamba_n_heads":128,"mamba_d_head":64,"mamba_d_state":128,"mamba_n_groups":1}`
	_, err := ParseConfig("bamba.json", []byte(config))
	if err == nil {
		t.Fatal("Bamba was read; want a refusal by name")
	}
	if errors.Is(err, ErrUnknownModelType) {
		t.Errorf("Bamba is an unknown model_type (the generic decoder would size it): %v", err)
	}
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Key != "model_type" {
		t.Fatalf("error %v: want a ConfigError naming model_type", err)
	}
	for _, want := range []string{`"bamba"`, "until v0.23.0", "#45990"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
