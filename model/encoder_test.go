package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// TestBgeBaseWeightsByHand: BAAI/bge-base-en-v1.5 (corpus/models), BERT of
// 768 hidden, 12 layers of 12 heads x 64, 3072 intermediate, 30522 tokens,
// 512 positions and 2 token types, as vLLM's bert.py builds
// BertEmbeddingModel at float16 (the pooling runner's choice for a float32
// checkpoint) on one GPU and on two.
func TestBgeBaseWeightsByHand(t *testing.T) {
	data := corpusModel(t, "BAAI__bge-base-en-v1.5")
	a, err := ParseConfig("bge.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if a.Encoder == nil || a.Encoder.Head != HeadNone || a.Encoder.TokenTypes != 2 || a.Encoder.PositionOffset != 0 {
		t.Fatalf("encoder %+v: want BertModel's, no head, 2 token types, positions from 0", a.Encoder)
	}
	if a.PositionLimit() != 512 {
		t.Errorf("PositionLimit %d, want 512: BERT's positions start at 0", a.PositionLimit())
	}
	for i, l := range a.Layers {
		if l.Kind != EncoderOnly {
			t.Fatalf("layer %d is %v, want encoder_only", i, l.Kind)
		}
	}
	// TP 1, 2 bytes an element.
	// Embeddings: words roundup(30522, 64) = 30528 rows x 768 = 23,445,504;
	// positions 512 x 768 = 393,216; token types padded to 64 rows x 768 =
	// 49,152; the LayerNorm 2 x 768 = 1,536. 23,889,408 elements.
	// A layer: qkv 768 x 2304 = 1,769,472 + 2,304; attention.output.dense
	// 768 x 768 = 589,824 + 768; its LayerNorm 1,536; intermediate 768 x
	// 3072 = 2,359,296 + 3,072; output 3072 x 768 = 2,359,296 + 768; its
	// LayerNorm 1,536: 7,087,872, x 12 = 85,054,464.
	// (108,943,872 elements; less the 6 padded word rows and 62 padded
	// token-type rows, plus the pooler's 590,592 that vLLM skips, they are
	// the checkpoint's 109,482,240.)
	// Bytes: 108,943,872 x 2 = 217,887,744, plus position_ids 512 x 8 =
	// 4,096: 217,891,840.
	got := budget.ItemBytes(Weights(a, Whole(a, 1, 2, Quant{})))
	if want := uint64(217_891_840); got != want {
		t.Errorf("TP 1: %d B, want %d", got, want)
	}
	// TP 2: words 30528 / 2 = 15264 rows x 768 = 11,722,752; positions 256
	// x 768 = 196,608; token types 32 x 768 = 24,576; LayerNorm 1,536 (every
	// rank): 11,945,472. A layer: qkv 768 x 1152 = 884,736 + 1,152; dense
	// 384 x 768 = 294,912 + 768 (bias whole); LayerNorm 1,536; intermediate
	// 768 x 1536 = 1,179,648 + 1,536; output 1536 x 768 = 1,179,648 + 768;
	// LayerNorm 1,536: 3,546,240, x 12 = 42,554,880. 54,500,352 x 2 =
	// 109,000,704, plus position_ids 4,096: 109,004,800.
	got = budget.ItemBytes(Weights(a, Whole(a, 2, 2, Quant{})))
	if want := uint64(109_004_800); got != want {
		t.Errorf("TP 2: %d B, want %d", got, want)
	}
}

// TestEncoderHeadsByHand: each sequence-classification head vLLM builds
// is whole on every rank in float32 (the pooling runner's head dtype).
func TestEncoderHeadsByHand(t *testing.T) {
	const base = `"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":128,` +
		`"vocab_size":1000,"max_position_embeddings":66,"type_vocab_size":1,"torch_dtype":"float16"`
	for _, c := range []struct {
		name, config string
		head         EncoderHead
		// want is the head's bytes: weights and biases, 4 B each.
		want uint64
	}{
		// BertPooler.dense 64 x 64 + 64, classifier 64 x 3 + 3 (id2label
		// has 3): 4,160 + 195 = 4,355 elements.
		{"bert classifier", `{"model_type":"bert","architectures":["BertForSequenceClassification"],"id2label":{"0":"a","1":"b","2":"c"},` + base + `}`,
			HeadBertClassifier, 4355 * 4},
		// RobertaClassificationHead: dense 4,160 and out_proj 64 x 1 + 1 =
		// 65 (num_labels 1).
		{"roberta classifier", `{"model_type":"xlm-roberta","architectures":["XLMRobertaForSequenceClassification"],"num_labels":1,"pad_token_id":1,` + base + `}`,
			HeadRobertaClassifier, 4225 * 4},
		// BGE-M3: sparse_linear 64 + 1, colbert_linear 4,160.
		{"bge-m3", `{"model_type":"xlm-roberta","architectures":["BgeM3EmbeddingModel"],"pad_token_id":1,` + base + `}`,
			HeadBgeM3, 4225 * 4},
		{"roberta embedding", `{"model_type":"roberta","architectures":["RobertaModel"],"pad_token_id":1,` + base + `}`,
			HeadNone, 0},
		// classifier 64 x 5 + 5 = 325 (num_labels 5).
		{"bert token classifier", `{"model_type":"bert","architectures":["BertForTokenClassification"],"num_labels":5,` + base + `}`,
			HeadTokenClassifier, 325 * 4},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(c.config))
			if err != nil {
				t.Fatal(err)
			}
			if a.Encoder.Head != c.head {
				t.Fatalf("head %v, want %v", a.Encoder.Head, c.head)
			}
			items := Weights(a, Whole(a, 2, 2, Quant{}))
			var head uint64
			for _, it := range items {
				if !strings.HasPrefix(it.Name, "embeddings.") && !strings.HasPrefix(it.Name, "encoder.") {
					head += it.Bytes
				}
			}
			if head != c.want {
				t.Errorf("head %d B, want %d", head, c.want)
			}
		})
	}
}

// TestRobertaPositionLimit: RoBERTa's positions start after pad_token_id
// (roberta.py: position_ids + padding_idx + 1), so BGE-M3's 8194 rows with
// pad_token_id 1 hold 8192 tokens.
func TestRobertaPositionLimit(t *testing.T) {
	config := `{"model_type":"xlm-roberta","architectures":["XLMRobertaModel"],"hidden_size":1024,"num_hidden_layers":24,` +
		`"num_attention_heads":16,"intermediate_size":4096,"vocab_size":250002,"max_position_embeddings":8194,"type_vocab_size":1,` +
		`"pad_token_id":1,"torch_dtype":"float32"}`
	a, err := ParseConfig("bge-m3.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.PositionLimit(); got != 8192 {
		t.Errorf("PositionLimit %d, want 8194 - (1 + 1) = 8192", got)
	}
}

// TestEncoderRefusals: what vLLM's bert.py does not build, or membudget
// does not read, is refused naming the key.
func TestEncoderRefusals(t *testing.T) {
	const base = `"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":128,` +
		`"vocab_size":1000,"max_position_embeddings":64,"type_vocab_size":2`
	for _, c := range []struct{ name, config, key string }{
		{"relative positions", `{"model_type":"bert","architectures":["BertModel"],"position_embedding_type":"relative_key",` + base + `}`, "position_embedding_type"},
		{"masked LM head", `{"model_type":"bert","architectures":["BertForMaskedLM"],` + base + `}`, "architectures"},
		{"no architectures", `{"model_type":"bert",` + base + `}`, "architectures"},
		{"heads do not divide", `{"model_type":"bert","architectures":["BertModel"],"hidden_size":66,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":128,"vocab_size":1000,"max_position_embeddings":64,"type_vocab_size":2}`, "num_attention_heads"},
		{"quantized", `{"model_type":"bert","architectures":["BertModel"],"quantization_config":{"quant_method":"fp8"},` + base + `}`, "quantization_config"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseConfig("x.json", []byte(c.config))
			if err == nil {
				t.Fatal("parsed; want a refusal naming " + c.key)
			}
			if !strings.Contains(err.Error(), c.key+":") {
				t.Errorf("error %q does not name %s", err, c.key)
			}
		})
	}
}

// TestBertClassDefaults: a BERT config that leans on BertConfig reads its
// defaults, each listed as defaulted.
func TestBertClassDefaults(t *testing.T) {
	a, err := ParseConfig("x.json", []byte(`{"model_type":"bert","architectures":["BertModel"]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := []uint64{a.Hidden, a.NumLayers, a.Heads, a.HeadDim, a.Intermediate, a.Vocab, a.MaxPosition, a.Encoder.TokenTypes}
	want := []uint64{768, 12, 12, 64, 3072, 30522, 512, 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("BertConfig's defaults (-want +got):\n%s", diff)
	}
}

// TestBgeRerankerWeightsByHand: BAAI/bge-reranker-v2-m3 (corpus/models),
// XLMRobertaForSequenceClassification of 1024 hidden, 24 layers of 16
// heads x 64, 4096 intermediate, 250002 tokens, 8194 positions, one token
// type and one label, at float16 on one GPU.
func TestBgeRerankerWeightsByHand(t *testing.T) {
	data := corpusModel(t, "BAAI__bge-reranker-v2-m3")
	a, err := ParseConfig("reranker.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if a.Encoder.Head != HeadRobertaClassifier || a.Encoder.Labels != 1 || a.PositionLimit() != 8192 {
		t.Fatalf("head %v, %d labels, %d positions: want RobertaClassificationHead, 1, 8194 - 2", a.Encoder.Head, a.Encoder.Labels, a.PositionLimit())
	}
	// Embeddings: words roundup(250002, 64) = 250048 rows x 1024 =
	// 256,049,152; positions roundup(8194, 64) = 8256 x 1024 = 8,454,144;
	// the token type padded to 64 rows x 1024 = 65,536; the LayerNorm
	// 2,048: 264,570,880. A layer: qkv 1024 x 3072 + 3072, output 1024 x
	// 1024 + 1024, LayerNorm 2048, intermediate 1024 x 4096 + 4096, output
	// 4096 x 1024 + 1024, LayerNorm 2048: 12,596,224, x 24 = 302,309,376.
	// 566,880,256 x 2 B = 1,133,760,512, plus position_ids 8194 x 8 =
	// 65,552. The head in float32: dense 1024 x 1024 + 1024 and out_proj
	// 1024 x 1 + 1: 1,050,625 x 4 = 4,202,500. In all 1,138,028,564.
	// (567,930,881 elements less the 46 + 62 + 63 padded rows x 1024 =
	// 175,104 are the checkpoint's 567,755,777 parameters.)
	got := budget.ItemBytes(Weights(a, Whole(a, 1, 2, Quant{})))
	if want := uint64(1_138_028_564); got != want {
		t.Errorf("%d B, want %d", got, want)
	}
}
