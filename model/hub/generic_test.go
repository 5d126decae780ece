package hub

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model"
	"membudget/model/safetensors"
)

// acmeConfig is a decoder of a model_type no family reads, with GPT-2's
// spellings of two standard keys (n_layer, n_positions): hidden 64, 4 heads
// of 16, 2 KV heads, intermediate 128, vocabulary 256, 2 layers.
const acmeConfig = `{"architectures":["AcmeForCausalLM"],"model_type":"acme","hidden_size":64,"num_attention_heads":4,` +
	`"num_key_value_heads":2,"intermediate_size":128,"n_layer":2,"vocab_size":256,"n_positions":512,"torch_dtype":"bfloat16"}`

// acmeShards are its checkpoint: Llama's names for layer 0, its own
// (acme.blocks.1.*) for layer 1, in one file.
func acmeShards() []shard {
	ts := append([]safetensors.Tensor{bf16("model.embed_tokens.weight", 256, 64)}, llamaLayer(0, 64, 64, 32, 128)...)
	ts = append(ts, bf16("acme.blocks.1.mixer.weight", 192, 64), bf16("acme.blocks.1.ffn.weight", 384, 64),
		bf16("model.norm.weight", 64), bf16("lm_head.weight", 256, 64))
	return []shard{{file: SingleFile, tensors: ts}}
}

// TestLoadGenericDecoder: an unknown model_type with the standard keys and
// a checkpoint is loaded as a generic decoder, from a local folder and from
// the Hub: its standard keys read (aliases included), its tensors attached,
// the ones Llama does not name listed in a warning, and the notice every
// answer starts with.
func TestLoadGenericDecoder(t *testing.T) {
	dir := t.TempDir()
	writeDir(t, dir, checkpointFiles(t, acmeConfig, acmeShards()...))
	h := newFakeHub(t)
	h.add("acme/tiny", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: checkpointFiles(t, acmeConfig, acmeShards()...)}})
	for _, tt := range []struct {
		name, spec string
		r          Resolver
	}{
		{"folder", dir, Resolver{Offline: true, CacheDir: t.TempDir()}},
		{"hub", "acme/tiny", h.resolver(t)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := tt.r.Load(context.Background(), tt.spec)
			if err != nil {
				t.Fatal(err)
			}
			a := l.Arch
			if !a.Generic || a.ModelType != "acme" || a.NumLayers != 2 || a.MaxPosition != 512 || a.KVHeads != 2 || a.HeadDim != 16 {
				t.Errorf("read %s generic=%v: %d layers, max %d, %d KV heads x %d", a.ModelType, a.Generic, a.NumLayers, a.MaxPosition, a.KVHeads, a.HeadDim)
			}
			if l.Checkpoint == nil || a.Checkpoint == nil || l.Checkpoint.TensorCount() != 14 {
				t.Fatalf("checkpoint %v not attached", l.Checkpoint)
			}
			if diff := cmp.Diff([]string{"acme.blocks.1.mixer.weight", "acme.blocks.1.ffn.weight"}, l.Notes.Unknown); diff != "" {
				t.Errorf("unknown tensors (-want +got):\n%s", diff)
			}
			want := "sized as a generic decoder: `acme` is not a family membudget knows; weights from the checkpoint, KV from the standard keys"
			if a.Notice() != want {
				t.Errorf("notice %q, want %q", a.Notice(), want)
			}
			if !strings.Contains(a.DefaultsLine(), "n_layer read as num_hidden_layers") || !strings.Contains(a.DefaultsLine(), "n_positions read as max_position_embeddings") {
				t.Errorf("defaults line %q does not name the aliases", a.DefaultsLine())
			}
			if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "2 checkpoint tensor(s) not named as Llama names them") {
				t.Errorf("warnings %q", l.Warnings)
			}
		})
	}
}

// TestGenericDecoderRefusals: without the standard keys, or without a
// checkpoint's headers, an unknown model_type stays a refusal that names
// what is missing (and still wraps ErrUnknownModelType).
func TestGenericDecoderRefusals(t *testing.T) {
	noHeaders := t.TempDir()
	writeDir(t, noHeaders, map[string]fakeFile{"config.json": smallFile([]byte(acmeConfig))})
	noKeys := t.TempDir()
	writeDir(t, noKeys, checkpointFiles(t, strings.Replace(acmeConfig, `"vocab_size":256,`, "", 1), acmeShards()...))
	encDec := t.TempDir()
	writeDir(t, encDec, checkpointFiles(t, strings.Replace(acmeConfig, `"model_type":"acme",`, `"model_type":"acme","is_encoder_decoder":true,`, 1), acmeShards()...))
	r := Resolver{Offline: true, CacheDir: t.TempDir()}
	for _, tt := range []struct{ name, dir, want string }{
		{"no headers", noHeaders, "not sized as a generic decoder either: its weights come only from its checkpoint's safetensors headers, and there are none (" +
			noHeaders + ": no " + IndexFile + " or " + SingleFile + ": no safetensors checkpoint)"},
		{"no vocab_size", noKeys, "not sized as a generic decoder either: not read as a generic decoder: " + filepath.Join(noKeys, "config.json") + ": vocab_size: missing (required)"},
		{"encoder-decoder", encDec, "is_encoder_decoder: true: an encoder-decoder is not a decoder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Load(context.Background(), tt.dir)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one holding %q", err, tt.want)
			}
			if !errors.Is(err, model.ErrUnknownModelType) || !strings.Contains(err.Error(), `model_type: "acme": unknown model_type`) {
				t.Errorf("error %v does not say the model_type is unknown", err)
			}
		})
	}
}
