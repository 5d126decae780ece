package model

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// qwen3EmbeddingModules is Qwen/Qwen3-Embedding-0.6B's modules.json:
// the transformer, a Pooling module in 1_Pooling, a Normalize module.
const qwen3EmbeddingModules = `[
  {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
  {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
  {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}
]`

// qwen3EmbeddingPooling is its 1_Pooling/config.json: only
// pooling_mode_lasttoken (LAST) and include_prompt (INCLUDE, no pooling
// type) are true.
const qwen3EmbeddingPooling = `{"word_embedding_dimension": 1024, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": false,
 "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false, "pooling_mode_weightedmean_tokens": false,
 "pooling_mode_lasttoken": true, "include_prompt": true}`

// TestParseModules: a Pooling module makes the checkpoint a
// sentence-transformers pooling model and names its config; none makes it
// none (get_pooling_config returns None); what vLLM would raise on is an
// error naming the file.
func TestParseModules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, data string
		want       *SentenceTransformers
		err        string
	}{
		{"Qwen3-Embedding", qwen3EmbeddingModules,
			&SentenceTransformers{File: "m/modules.json", PoolingConfig: "1_Pooling/config.json", Normalize: true}, ""},
		{"no Normalize module", `[{"type": "sentence_transformers.models.Pooling", "path": "1_Pooling"}]`,
			&SentenceTransformers{File: "m/modules.json", PoolingConfig: "1_Pooling/config.json"}, ""},
		{"the first of two Pooling modules", `[{"type": "sentence_transformers.models.Pooling", "path": "a"}, {"type": "sentence_transformers.models.Pooling", "path": "b"}]`,
			&SentenceTransformers{File: "m/modules.json", PoolingConfig: "a/config.json"}, ""},
		{"no Pooling module: none", `[{"type": "sentence_transformers.models.Transformer", "path": ""}, {"type": "sentence_transformers.models.Normalize", "path": "2_Normalize"}]`, nil, ""},
		{"an empty list: none", `[]`, nil, ""},
		{"an object, not a list", `{"modules": []}`, nil, "want a JSON list"},
		{"a module without a type", `[{"path": "1_Pooling"}]`, nil, `module 0 has no "type"`},
		{"a Pooling module without a path", `[{"type": "sentence_transformers.models.Pooling"}]`, nil, `has no "path"`},
		{"an empty path", `[{"type": "sentence_transformers.models.Pooling", "path": ""}]`, nil, "empty"},
		{"a path out of the checkpoint", `[{"type": "sentence_transformers.models.Pooling", "path": "../x"}]`, nil, "not a clean relative path"},
		{"an absolute path", `[{"type": "sentence_transformers.models.Pooling", "path": "/etc"}]`, nil, "not a clean relative path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseModules("m/modules.json", []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "m/modules.json") {
					t.Fatalf("got %v, want an error naming m/modules.json and saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadPoolingConfig: the keys set true name the pooling types as
// vLLM's parse_pooling_type cuts them: pooling_mode_lasttoken is LAST,
// pooling_mode_mean_tokens MEAN, pooling_mode_mean_sqrt_len_tokens MEAN
// too (cut at its first "_"), pooling_mode_cls_token CLS; MAX,
// WEIGHTEDMEAN and INCLUDE are no type vLLM has; a missing file is {}.
func TestReadPoolingConfig(t *testing.T) {
	t.Parallel()
	type types struct{ Seq, Tok string }
	tests := []struct {
		name string
		data []byte
		want types
		err  bool
	}{
		{"Qwen3-Embedding: last token", []byte(qwen3EmbeddingPooling), types{"LAST", ""}, false},
		{"mean", []byte(`{"pooling_mode_mean_tokens": true, "pooling_mode_cls_token": false}`), types{"MEAN", ""}, false},
		{"mean_sqrt_len is MEAN", []byte(`{"pooling_mode_mean_sqrt_len_tokens": true}`), types{"MEAN", ""}, false},
		{"cls", []byte(`{"pooling_mode_cls_token": true}`), types{"CLS", ""}, false},
		{"max and weighted mean: none vLLM has", []byte(`{"pooling_mode_max_tokens": true, "pooling_mode_weightedmean_tokens": true}`), types{}, false},
		{"a later key overrides", []byte(`{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}`), types{"MEAN", ""}, false},
		{"a truthy value that is not true", []byte(`{"pooling_mode_cls_token": 1}`), types{}, false},
		{"no file: {}", nil, types{}, false},
		{"not an object", []byte(`[true]`), types{}, true},
		{"cut short", []byte(`{"pooling_mode_cls_token": true`), types{}, true},
		// json.load refuses text after the value ("Extra data") but for
		// JSON's whitespace: space, tab, CR and LF.
		{"trailing garbage", []byte(`{"pooling_mode_cls_token": true} x`), types{}, true},
		{"a second object", []byte(`{"pooling_mode_cls_token": true}{"pooling_mode_mean_tokens": true}`), types{}, true},
		{"a stray closing brace", []byte(`{"pooling_mode_cls_token": true}}`), types{}, true},
		{"trailing whitespace", []byte("{\"pooling_mode_cls_token\": true} \t\r\n"), types{"CLS", ""}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &SentenceTransformers{PoolingConfig: "1_Pooling/config.json"}
			err := st.ReadPoolingConfig(tt.data)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), "1_Pooling/config.json") {
					t.Fatalf("got %v, want an error naming 1_Pooling/config.json", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, types{st.SeqPoolingType, st.TokPoolingType}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseModules: no modules.json makes the parser panic, and a Pooling
// config it accepts names a path inside the checkpoint.
func FuzzParseModules(f *testing.F) {
	f.Add([]byte(qwen3EmbeddingModules))
	f.Add([]byte(`[{"type": "sentence_transformers.models.Pooling", "path": "../x"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := ParseModules("modules.json", data)
		if err != nil || st == nil {
			return
		}
		if strings.HasPrefix(st.PoolingConfig, "/") || slices.Contains(strings.Split(st.PoolingConfig, "/"), "..") {
			t.Fatalf("accepted %q", st.PoolingConfig)
		}
		_ = st.ReadPoolingConfig(data)
	})
}
