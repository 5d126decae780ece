package model

import "testing"

// TestActivationBytesPerTokenTakesTheWidestLayer: the live activations a
// token are the residual's two copies and the wider of attention and the
// widest layer's MLP (gate, up and down: 3 x its width on a rank), in the
// model dtype. Worked by hand for a model of hidden 8192, 64 heads and 8
// KV heads of 128 at TP 4, bf16: attention 2 x 16 x 128 + 2 x 2 x 128 =
// 4,608.
func TestActivationBytesPerTokenTakesTheWidestLayer(t *testing.T) {
	t.Parallel()
	base := func(layers ...Layer) *Arch {
		return &Arch{Hidden: 8192, Heads: 64, KVHeads: 8, HeadDim: 128, Intermediate: 28672, Layers: layers}
	}
	cases := []struct {
		name string
		a    *Arch
		want uint64
	}{
		// 3 x 28672/4 = 21,504 > 4,608: (16,384 + 21,504) x 2 = 75,776.
		{"dense", base(Layer{}, Layer{}), 75776},
		// DeciLM: a layer of 43,008 (ffn_mult 5.25 of 8192) is the widest,
		// 3 x 10,752 = 32,256: (16,384 + 32,256) x 2 = 97,280; a no-op
		// FFN layer adds nothing.
		{"per-layer width", base(Layer{NoMLP: true}, Layer{Intermediate: 43008}, Layer{Intermediate: 8192}), 97280},
		// Every FFN a no-op: attention binds, (16,384 + 4,608) x 2 = 41,984.
		{"no MLP", base(Layer{NoMLP: true}), 41984},
	}
	for _, c := range cases {
		if got := ActivationBytesPerToken(c.a, 4, 2); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
