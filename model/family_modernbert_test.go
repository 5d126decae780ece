package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/budget"
)

// The shape of the ModernBERT config corpus/models ships, entered by hand
// from the file (see TestShippedConfigsParse): 28 layers of 1024, 16
// heads of 64, every head a KV head, rotary over the whole head, no
// rope_scaling, bfloat16.
func init() {
	shippedShapes["MoritzLaurer__ModernBERT-large-zeroshot-v2.0"] = shape{ModelType: "modernbert", Layers: 28, Hidden: 1024, Heads: 16, KVHeads: 16,
		HeadDim: 64, Vocab: 50368, MaxPos: 8192, RotaryDim: 64, Dtype: "bfloat16"}
}

// TestModernBertLargeZeroshotWeightsByHand: MoritzLaurer/
// ModernBERT-large-zeroshot-v2.0 (corpus/models), a
// ModernBertForSequenceClassification of ModernBERT-large (1024 hidden, 28
// layers of 16 heads x 64, 2624 intermediate, 50368 tokens, 8192
// positions) with two labels, at bfloat16 on one GPU.
func TestModernBertLargeZeroshotWeightsByHand(t *testing.T) {
	data := corpusModel(t, "MoritzLaurer__ModernBERT-large-zeroshot-v2.0")
	a, err := ParseConfig("zeroshot.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if a.Encoder.Head != HeadModernBertClassifier || a.Encoder.Labels != 2 || a.PositionLimit() != 8192 || len(a.Rotary) != 2 {
		t.Fatalf("head %v, %d labels, %d positions, %d rotary tables: want ModernBertPooler and classifier, 2, 8192, 2",
			a.Encoder.Head, a.Encoder.Labels, a.PositionLimit(), len(a.Rotary))
	}
	// Elements: tok_embeddings 50368 x 1024 = 51,576,832; its norm 1,024.
	// A layer: Wqkv 1024 x 3072 = 3,145,728; attn.Wo 1,048,576; mlp_norm
	// 1,024; mlp.Wi 1024 x 5248 = 5,373,952; mlp.Wo 2624 x 1024 =
	// 2,686,976: 12,256,256, x 28 = 343,175,168; 27 attn_norms 27,648;
	// final_norm 1,024: 394,781,696 (ModernBERT-large; its masked-LM
	// checkpoint adds head.dense 1,048,576, head.norm 1,024 and
	// decoder.bias 50,368: 395,881,664, the model card's 395M). Two
	// cos/sin caches of 8192 x 64 = 1,048,576. 395,830,272 x 2 B =
	// 791,660,544. The head in float32: pooling.dense 1024 x 1024 =
	// 1,048,576 (no bias), pooling.norm 1,024, classifier 1024 x 2 + 2 =
	// 2,050: 1,051,650 x 4 = 4,206,600. In all 795,867,144.
	got := budget.ItemBytes(Weights(a, Whole(a, 1, 2, Quant{})))
	if want := uint64(795_867_144); got != want {
		t.Errorf("%d B, want %d", got, want)
	}
}

// modernBertBase is ModernBERT-base's numbers (answerdotai/ModernBERT-base,
// which transformers ModernBertConfig's defaults also are) served as
// ModernBertModel: 768 hidden, 22 layers of 12 heads x 64, 1152
// intermediate, 50368 tokens, 8192 positions, every third layer global
// (rope base 160000) and the others local (10000), no biases.
const modernBertBase = `{"model_type":"modernbert","architectures":["ModernBertModel"],"hidden_size":768,"intermediate_size":1152,` +
	`"num_hidden_layers":22,"num_attention_heads":12,"vocab_size":50368,"max_position_embeddings":8192,` +
	`"global_attn_every_n_layers":3,"global_rope_theta":160000.0,"local_rope_theta":10000.0,` +
	`"norm_bias":false,"attention_bias":false,"mlp_bias":false,"classifier_pooling":"mean","torch_dtype":"float32"}`

// TestModernBertBaseWeightsByHand: ModernBERT-base as vLLM's modernbert.py
// builds ModernBertModel at float16 on one GPU.
func TestModernBertBaseWeightsByHand(t *testing.T) {
	a, err := ParseConfig("modernbert.json", []byte(modernBertBase))
	if err != nil {
		t.Fatal(err)
	}
	e := a.Encoder
	if e == nil || e.Layout != LayoutModernBert || e.Head != HeadNone || !e.GatedMLP || e.SingleRank == "" {
		t.Fatalf("encoder %+v: want ModernBERT's layout, no head, a gated MLP, one rank only", e)
	}
	// Rotary positions: no offset, vLLM derives max_model_len from
	// max_position_embeddings.
	if got := a.PositionLimit(); got != 8192 {
		t.Errorf("PositionLimit %d, want 8192", got)
	}
	for i, l := range a.Layers {
		if l.Kind != EncoderOnly {
			t.Fatalf("layer %d is %v, want encoder_only", i, l.Kind)
		}
	}
	// Elements: tok_embeddings 50368 rows (787 x 64, no padding) x 768 =
	// 38,682,624; embeddings.norm 768 (no bias). A layer: Wqkv 768 x 2304
	// = 1,769,472; attn.Wo 768 x 768 = 589,824; mlp_norm 768; mlp.Wi 768 x
	// 2304 = 1,769,472; mlp.Wo 1152 x 768 = 884,736: 5,014,272, x 22 =
	// 110,313,984; the attn_norm of layers 1 to 21: 21 x 768 = 16,128;
	// final_norm 768. 149,014,272 parameters (the checkpoint's
	// ModernBertForMaskedLM adds its head.dense 589,824, head.norm 768 and
	// decoder.bias 50,368: 149,655,232, the model card's 149M). Then two
	// cos/sin caches (the global and the local rope differ) of 8192 x 64
	// = 1,048,576. 150,062,848 elements x 2 B = 300,125,696.
	got := budget.ItemBytes(Weights(a, Whole(a, 1, 2, Quant{})))
	if want := uint64(300_125_696); got != want {
		t.Errorf("%d B, want %d", got, want)
	}
}

// TestModernBertBiasesByHand: attention_bias, mlp_bias and norm_bias each
// add their biases; the first layer has no attn_norm.
func TestModernBertBiasesByHand(t *testing.T) {
	config := `{"model_type":"modernbert","architectures":["ModernBertModel"],"hidden_size":64,"intermediate_size":128,` +
		`"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":1000,"max_position_embeddings":16,"global_attn_every_n_layers":1,` +
		`"norm_bias":true,"attention_bias":true,"mlp_bias":true,"torch_dtype":"float16"}`
	a, err := ParseConfig("x.json", []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	// tok_embeddings roundup(1000, 64) = 1024 x 64 = 65,536; its norm 128.
	// Layer 0: Wqkv 64 x 192 + 192 = 12,480; attn.Wo 4,096 + 64 = 4,160;
	// mlp_norm 128; mlp.Wi 64 x 256 + 256 = 16,640; mlp.Wo 128 x 64 + 64 =
	// 8,256: 41,664. Layer 1 adds its attn_norm 128: 41,792. Every layer
	// global: one cos/sin cache of 16 x 16 = 256. final_norm 128. 149,504
	// elements x 2 B = 299,008.
	got := budget.ItemBytes(Weights(a, Whole(a, 1, 2, Quant{})))
	if want := uint64(299_008); got != want {
		t.Errorf("%d B, want %d", got, want)
	}
}

// TestModernBertHeadsByHand: ModernBertForSequenceClassification's pooler
// and classifier are in float32; ModernBertForTokenClassification's
// prediction head is in the model dtype and its classifier in float32.
func TestModernBertHeadsByHand(t *testing.T) {
	const base = `"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":128,` +
		`"vocab_size":1000,"max_position_embeddings":64,"torch_dtype":"float16"`
	for _, c := range []struct {
		name, config string
		head         EncoderHead
		want         uint64
	}{
		// pooling.dense 64 x 64 (classifier_bias false) = 4,096; pooling.norm
		// 64 (norm_bias false); classifier 64 x 3 + 3 = 195: 4,355 x 4 B.
		{"sequence classifier", `{"model_type":"modernbert","architectures":["ModernBertForSequenceClassification"],"id2label":{"0":"a","1":"b","2":"c"},` + base + `}`,
			HeadModernBertClassifier, 4355 * 4},
		// head.dense 64 x 64 + 64 = 4,160 and head.norm 128 at 2 B: 8,576;
		// classifier 64 x 5 + 5 = 325 at 4 B: 1,300. 9,876.
		{"token classifier", `{"model_type":"modernbert","architectures":["ModernBertForTokenClassification"],"num_labels":5,"classifier_bias":true,"norm_bias":true,` + base + `}`,
			HeadModernBertTokenClassifier, 8576 + 1300},
		{"embedding", `{"model_type":"modernbert","architectures":["ModernBertModel"],` + base + `}`, HeadNone, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(c.config))
			if err != nil {
				t.Fatal(err)
			}
			if a.Encoder.Head != c.head {
				t.Fatalf("head %v, want %v", a.Encoder.Head, c.head)
			}
			var head uint64
			for _, it := range Weights(a, Whole(a, 1, 2, Quant{})) {
				if strings.HasPrefix(it.Name, "pooling.") || strings.HasPrefix(it.Name, "head.") || strings.HasPrefix(it.Name, "classifier.") {
					head += it.Bytes
				}
			}
			if head != c.want {
				t.Errorf("head %d B, want %d", head, c.want)
			}
		})
	}
}

// TestModernBertRotaryTables: one cos/sin cache per distinct rope among
// the layers (get_rope caches an instance per rope).
func TestModernBertRotaryTables(t *testing.T) {
	const base = `"model_type":"modernbert","architectures":["ModernBertModel"],"hidden_size":64,"num_attention_heads":4,` +
		`"intermediate_size":128,"vocab_size":1000,"max_position_embeddings":32`
	for _, c := range []struct {
		name, keys string
		want       []string
	}{
		{"defaults: every third layer global, bases 160000 and 10000", `"num_hidden_layers":4`, []string{"rotary_emb_global", "rotary_emb_local"}},
		{"every layer global", `"num_hidden_layers":4,"global_attn_every_n_layers":1`, []string{"rotary_emb"}},
		{"one layer: layer 0 is global", `"num_hidden_layers":1`, []string{"rotary_emb"}},
		{"equal bases", `"num_hidden_layers":4,"global_rope_theta":10000,"local_rope_theta":10000`, []string{"rotary_emb"}},
		{"transformers 5: layer types, one kind", `"num_hidden_layers":2,"layer_types":["full_attention","full_attention"]`, []string{"rotary_emb"}},
		{"transformers 5: both kinds", `"num_hidden_layers":2,"layer_types":["full_attention","sliding_attention"],` +
			`"rope_parameters":{"full_attention":{"rope_type":"default","rope_theta":160000},"sliding_attention":{"rope_type":"default","rope_theta":10000}}`,
			[]string{"rotary_emb_global", "rotary_emb_local"}},
		{"transformers 5: both kinds, one base", `"num_hidden_layers":2,"layer_types":["full_attention","sliding_attention"],` +
			`"rope_parameters":{"full_attention":{"rope_theta":10000},"sliding_attention":{"rope_theta":10000}}`,
			[]string{"rotary_emb"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := ParseConfig("x.json", []byte(`{`+base+`,`+c.keys+`}`))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range a.Rotary {
				if r.Positions != 32 || r.Dim != 16 {
					t.Errorf("%s: %d x %d, want max_position_embeddings 32 x head_dim 16", r.Name, r.Positions, r.Dim)
				}
				got = append(got, r.Name)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("tables (-want +got):\n%s", diff)
			}
		})
	}
}

// TestModernBertRefusals: what vLLM does not serve, or what membudget
// cannot size exactly, is refused naming the key.
func TestModernBertRefusals(t *testing.T) {
	const base = `"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":128,"vocab_size":1000,"max_position_embeddings":64`
	for _, c := range []struct{ name, config, key string }{
		{"masked LM", `{"model_type":"modernbert","architectures":["ModernBertForMaskedLM"],` + base + `}`, "architectures"},
		{"rope scaling", `{"model_type":"modernbert","architectures":["ModernBertModel"],"rope_scaling":{"rope_type":"linear","factor":2},` + base + `}`, "rope_scaling"},
		{"null local base", `{"model_type":"modernbert","architectures":["ModernBertModel"],"local_rope_theta":null,` + base + `}`, "local_rope_theta"},
		{"classifier pooling", `{"model_type":"modernbert","architectures":["ModernBertModel"],"classifier_pooling":"max",` + base + `}`, "classifier_pooling"},
		{"no global layers", `{"model_type":"modernbert","architectures":["ModernBertModel"],"global_attn_every_n_layers":0,` + base + `}`, "global_attn_every_n_layers"},
		{"layer types count", `{"model_type":"modernbert","architectures":["ModernBertModel"],"layer_types":["full_attention"],` + base + `}`, "layer_types"},
		{"layer type", `{"model_type":"modernbert","architectures":["ModernBertModel"],"layer_types":["full_attention","chunked_attention"],` + base + `}`, "layer_types"},
		{"yarn rope", `{"model_type":"modernbert","architectures":["ModernBertModel"],"layer_types":["full_attention","full_attention"],` +
			`"rope_parameters":{"full_attention":{"rope_type":"yarn","factor":4}},` + base + `}`, "rope_parameters"},
		{"quantized", `{"model_type":"modernbert","architectures":["ModernBertModel"],"quantization_config":{"quant_method":"fp8"},` + base + `}`, "quantization_config"},
		{"heads do not divide", `{"model_type":"modernbert","architectures":["ModernBertModel"],"hidden_size":66,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":128,"vocab_size":1000,"max_position_embeddings":64}`, "num_attention_heads"},
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

// TestModernBertClassDefaults: a config that leans on ModernBertConfig
// reads ModernBERT-base's numbers.
func TestModernBertClassDefaults(t *testing.T) {
	a, err := ParseConfig("x.json", []byte(`{"model_type":"modernbert","architectures":["ModernBertModel"]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := []uint64{a.Hidden, a.NumLayers, a.Heads, a.HeadDim, a.Intermediate, a.Vocab, a.MaxPosition, uint64(len(a.Rotary))}
	want := []uint64{768, 22, 12, 64, 1152, 50368, 8192, 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ModernBertConfig's defaults (-want +got):\n%s", diff)
	}
	if a.AttnBias || a.MLPBias || a.Encoder.NormBias || a.Encoder.ClassifierBias {
		t.Errorf("biases %v %v %v %v, want none (ModernBertConfig's defaults)", a.AttnBias, a.MLPBias, a.Encoder.NormBias, a.Encoder.ClassifierBias)
	}
}
