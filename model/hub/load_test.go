package hub

import (
	"context"
	"errors"
	"testing"
)

// llamaConfig is a small Llama config.json, shipped under one id.
const llamaConfig = `{"model_type":"llama","hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,` +
	`"num_hidden_layers":2,"vocab_size":256,"max_position_embeddings":128,"torch_dtype":"bfloat16"}`

func shippedResolver(t *testing.T) Resolver {
	t.Helper()
	return Resolver{Offline: true, CacheDir: t.TempDir(), ShippedIDs: []string{"acme__tiny"},
		Shipped: func(id string) ([]byte, string, bool) {
			if id != "acme__tiny" {
				return nil, "", false
			}
			return []byte(llamaConfig), "corpus/models/acme__tiny.json", true
		}}
}

// TestLoad parses the shipped config, says why no checkpoint was read, and
// names the model as a launch line does; an unknown id names --model.
func TestLoad(t *testing.T) {
	l, err := shippedResolver(t).Load(context.Background(), "acme/tiny")
	if err != nil {
		t.Fatal(err)
	}
	if l.Name != "acme/tiny" || l.Arch.ModelType != "llama" || l.Checkpoint != nil || l.NoCheckpoint != "a shipped config.json has no checkpoint beside it" || l.Revision() != "" {
		t.Errorf("loaded %q %s, checkpoint %v (%q), revision %q", l.Name, l.Arch.ModelType, l.Checkpoint, l.NoCheckpoint, l.Revision())
	}
	_, err = shippedResolver(t).Load(context.Background(), "acme/none")
	var re *ResolveError
	if !errors.As(err, &re) || re.Spec != "acme/none" {
		t.Errorf("an unknown model: %v", err)
	}
}

// TestLoaderKeepsWhatItLoads: a keeping loader returns one Loaded per
// spec, whose memo every request shares; a fresh loader loads afresh.
func TestLoaderKeepsWhatItLoads(t *testing.T) {
	ctx := context.Background()
	keep := NewLoader(shippedResolver(t), true)
	a, err := keep.Load(ctx, "acme/tiny")
	if err != nil {
		t.Fatal(err)
	}
	b, err := keep.Load(ctx, "acme/tiny")
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("a keeping loader loaded one spec twice")
	}
	made := 0
	mk := func() any { made++; return made }
	if a.Memo("k", mk) != 1 || b.Memo("k", mk) != 1 || made != 1 {
		t.Errorf("the memo made its value %d times", made)
	}
	fresh := NewLoader(shippedResolver(t), false)
	c, _ := fresh.Load(ctx, "acme/tiny")
	d, _ := fresh.Load(ctx, "acme/tiny")
	if c == d {
		t.Error("a fresh loader kept a load")
	}
	if _, err := keep.Load(ctx, "acme/none"); err == nil {
		t.Error("an unknown model loaded")
	}
	// Kept: what a keeping loader holds, and nothing for a failure or a
	// fresh loader.
	if k, ok := keep.Kept("acme/tiny"); !ok || k != a {
		t.Errorf("Kept(acme/tiny) = %p, %v; want the model loaded, true", k, ok)
	}
	if _, ok := keep.Kept("acme/none"); ok {
		t.Error("a failed load is kept")
	}
	if _, ok := fresh.Kept("acme/tiny"); ok {
		t.Error("a fresh loader keeps a load")
	}
}
