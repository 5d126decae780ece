package model

import (
	"strings"
	"testing"

	"membudget/budget"
)

// TestColBERTWeightsByHand: a ColBERT model is its encoder (BertModel,
// ModernBertModel) and colbert_linear, hidden x colbert_dim in float32,
// whole on every rank. No published HF_ColBERT or ColBERTModernBertModel
// config.json was found (corpus/models/SOURCES.md): the configs are
// bge-base-en-v1.5's and ModernBERT-base's with the architecture and a
// projection width set. bge-base: 217,891,840 B at TP1 and 109,004,800 B
// at TP2 (TestBgeBaseWeightsByHand) plus 768 x 128 x 4 = 393,216 B on
// each rank; answerai-colbert-small-v1's width, 96, as colbert_dim beside
// dim 128: colbert_dim first (colbert.py:121-125), 768 x 96 x 4 =
// 294,912 B. ModernBERT-base: 300,125,696 B
// (TestModernBertBaseWeightsByHand) plus 393,216 B.
func TestColBERTWeightsByHand(t *testing.T) {
	bge := strings.Replace(string(corpusModel(t, "BAAI__bge-base-en-v1.5")), `"BertModel"`, `"HF_ColBERT"`, 1)
	bge128 := strings.Replace(bge, "{", `{"dim": 128,`, 1)
	bge96 := strings.Replace(bge, "{", `{"dim": 128, "colbert_dim": 96,`, 1)
	modern := strings.Replace(modernBertBase, `"ModernBertModel"`, `"ColBERTModernBertModel"`, 1)
	modern = strings.Replace(modern, "{", `{"projection_dim": 128,`, 1)
	for _, c := range []struct {
		name   string
		config string
		tp     uint64
		want   uint64
	}{
		{"HF_ColBERT TP1", bge128, 1, 217_891_840 + 393_216},
		{"HF_ColBERT TP2", bge128, 2, 109_004_800 + 393_216},
		{"HF_ColBERT colbert_dim first", bge96, 1, 217_891_840 + 294_912},
		{"ColBERTModernBertModel", modern, 1, 300_125_696 + 393_216},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseConfig("config.json", []byte(c.config))
			if err != nil {
				t.Fatal(err)
			}
			if a.Encoder.Head != HeadColBERT || !a.Encoder.Head.TokenWise() || a.Layers[0].Kind != EncoderOnly {
				t.Fatalf("head %v token-wise %v, layer kind %v: want ColBERT's, token-wise, encoder-only (no KV)", a.Encoder.Head, a.Encoder.Head.TokenWise(), a.Layers[0].Kind)
			}
			if got := budget.ItemBytes(Weights(a, Whole(a, c.tp, 2, Quant{}))); got != c.want {
				t.Errorf("%d B, want %d", got, c.want)
			}
		})
	}
	// No width in the config: refused naming colbert_dim.
	_, err := ParseConfig("config.json", []byte(bge))
	if err == nil || !strings.Contains(err.Error(), "colbert_dim") || !strings.Contains(err.Error(), "1_Dense") {
		t.Errorf("got %v, want a refusal naming colbert_dim and where vLLM takes the width from otherwise", err)
	}
}
