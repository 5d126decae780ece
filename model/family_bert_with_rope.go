package model

import (
	"strconv"

	"membudget/budget"
)

func init() {
	// No checkpoint rules: vLLM renames each checkpoint's tensors its own
	// way (bert_with_rope.py hf_to_vllm_mapper of NomicBertModel,
	// GteNewModel and SnowflakeGteNewModel); the weights are derived from
	// config.json.
	registerConfigOnly("nomic_bert", flat(readNomicBert))
	registerConfigOnly("new", flat(readGteNew))
	registerConfigOnly("gte", flat(readGteNew))
	registerEncoderArchitectures("nomic_bert", nomicBertArchs)
	registerEncoderArchitectures("new", gteNewArchs)
	registerEncoderArchitectures("gte", snowflakeGteArchs)
	declareClass("nomic_bert", nomicBertClass)
	declareClass("new", gteNewClass)
}

// The architectures of vLLM's registry that bert_with_rope.py serves
// (vllm/model_executor/models/registry.py:232-233, 245 and the
// sequence-classification GteNewForSequenceClassification at d18bb7b), by
// the model_type of the remote-code config class vLLM asserts
// (vllm/model_executor/models/config.py:415-432 NewConfig, 686-732
// NomicBertConfig, 860-877 GteConfig). GteModel is SnowflakeGteNewModel.
// JinaRobertaModel (jina-embeddings-v3, an xlm-roberta config with LoRA
// weights merged at load) is not read.
var (
	nomicBertArchs = []encoderArch{{"NomicBertModel", HeadNone}}
	gteNewArchs    = []encoderArch{
		{"GteNewModel", HeadNone},
		{"GteNewForSequenceClassification", HeadBertClassifier},
	}
	snowflakeGteArchs = []encoderArch{{"GteModel", HeadNone}}
)

// gteNewAlias is why a model_type new config naming NewModel (the
// checkpoints' own class, Alibaba-NLP/gte-*-v1.5 and gte-multilingual-base)
// is refused: vLLM's registry has no NewModel, and its docs serve those
// checkpoints with an override (docs/models/pooling_models/embed.md at
// d18bb7b: "you should set --hf-overrides '{"architectures":
// ["GteNewModel"]}'"), a flag membudget does not take.
const gteNewAlias = "NewModel is not in vLLM's registry: vLLM serves it as GteNewModel under --hf-overrides '{\"architectures\": [\"GteNewModel\"]}' (docs/models/pooling_models/embed.md), which membudget does not take; write GteNewModel (or GteNewForSequenceClassification for NewForSequenceClassification) in config.json's architectures to size it as vLLM then builds it"

// readNomicBert reads a Nomic BERT (nomic-embed-text, CodeRankEmbed:
// model_type nomic_bert, NomicBertConfig, a GPT2Config) as vLLM's
// NomicBertModelConfig (vllm/model_executor/models/config.py:686-732)
// rewrites it for bert_with_rope.py: n_embd, n_layer, n_head and n_inner
// are its hidden_size, layers, heads and intermediate_size; swiglu is a
// gated SiLU MLP, gelu an ungated one; every linear layer's bias is
// qkv_proj_bias (vLLM asserts mlp_fc1_bias and mlp_fc2_bias equal it); the
// rotary base is rotary_emb_base and the rotated part of a head
// rotary_emb_fraction (vllm/transformers_utils/config.py
// patch_rope_parameters:537-541), whose cos/sin cache holds max_model_len
// rows (config.py:728-731: max_position is the served max_model_len).
func readNomicBert(o jsonObject, a *Arch) {
	// GPT2Config's attribute_map (configuration_gpt2.py) reads these
	// names as the standard ones; vLLM copies n_inner to intermediate_size.
	for _, k := range [][2]string{{"n_embd", "hidden_size"}, {"n_head", "num_attention_heads"}, {"n_layer", "num_hidden_layers"},
		{"n_positions", "max_position_embeddings"}, {"n_inner", "intermediate_size"}} {
		if o.has(k[0]) {
			o.m[k[1]] = o.m[k[0]]
		}
	}
	if !o.has("n_inner") && !o.has("intermediate_size") {
		o.fail("n_inner", "missing: vLLM's NomicBertModelConfig takes it as intermediate_size (config.py:709), and GPT2Config's None gives no width")
	}
	act := o.str("activation_function")
	if !o.has("activation_function") {
		// GPT2Config's default, which vLLM's assertion refuses.
		act = "gelu_new"
	}
	gated := false
	switch act {
	case "swiglu":
		gated = true
	case "gelu":
	default:
		o.fail("activation_function", "%q: vLLM's NomicBertModelConfig asserts swiglu or gelu (vllm/model_executor/models/config.py:692)", act)
	}
	bias := o.boolOr("qkv_proj_bias", true)
	if o.boolOr("mlp_fc1_bias", true) != bias || o.boolOr("mlp_fc2_bias", true) != bias {
		o.fail("mlp_fc1_bias", "mlp_fc1_bias, mlp_fc2_bias and qkv_proj_bias differ: vLLM's NomicBertModelConfig asserts them equal (config.py:702)")
	}
	if o.has("rotary_emb_scale_base") {
		o.fail("rotary_emb_scale_base", "set: vLLM's NomicBertModelConfig asserts it None (config.py:705)")
	}
	if o.boolOr("rotary_emb_interleaved", false) {
		o.fail("rotary_emb_interleaved", "true: vLLM's NomicBertModelConfig asserts it false (config.py:706)")
	}
	if n := o.uintOr("moe_every_n_layers", 0); n > 0 {
		o.fail("moe_every_n_layers", "%d: Nomic's MoE layers (nomic-embed-text-v2-moe: NomicMoE, bert_with_rope.py:232-342) run fused_experts over the pooling batch, whose workspace is not modelled", n)
	}
	for _, k := range []string{"rope_scaling", "rope_parameters"} {
		if r, ok := o.object(k); ok && len(r.keys()) > 0 {
			o.fail(k, "set: vLLM's NomicBertModelConfig passes it to get_rope beside max_trained_positions (config.py:723-726); only the default rope is sized")
		}
		delete(o.m, k)
	}
	readBertWithRope(o, a, nomicBertArchs)
	fraction, ok := o.number("rotary_emb_fraction")
	if !ok || fraction <= 0 || fraction > 1 {
		o.fail("rotary_emb_fraction", "%v: want above 0 and at most 1, the part of each head BertWithRope's rotary embedding turns (NomicBertConfig's default 0.0 turns none)", fraction)
		fraction = 1
	}
	a.RotaryDim = uint64(float64(a.HeadDim) * fraction)
	a.AttnBias, a.OutBias, a.MLPBias = bias, bias, bias
	e := a.Encoder
	e.GatedMLP, e.GateUpBias = gated, bias
	e.TokenTypes = o.uintOr("type_vocab_size", 2)
	a.Rotary = []RotaryTable{{Name: "rotary_emb", Positions: a.MaxPosition, Dim: a.RotaryDim, Served: true}}
	checkTokenTypes(o, e)
}

// readGteNew reads mGTE (Alibaba-NLP's NewConfig, model_type new) and
// Snowflake's Arctic-Embed 2.0 (GteConfig, model_type gte) as vLLM's
// GteNewModelConfig and SnowflakeGteNewModelConfig rewrite them
// (vllm/model_executor/models/config.py:415-432, 860-877): hidden_act gelu
// (asserted) becomes a GeGLU MLP, whose gate_up_proj GteNewModel builds
// without a bias (bert_with_rope.py:572-576); every other linear layer is
// biased (BertWithRope: getattr(config, "bias", True)); the rotary part is
// rotary_emb_dim of a head, else the whole head, its cos/sin cache
// max_position_embeddings rows whatever rope (an NTK-scaled rope keeps the
// rows: ntk_scaling_rope.py changes only the frequencies).
func readGteNew(o jsonObject, a *Arch) {
	archs := gteNewArchs
	if a.ModelType == "gte" {
		archs = snowflakeGteArchs
	}
	if len(a.Architectures) > 0 && (a.Architectures[0] == "NewModel" || a.Architectures[0] == "NewForSequenceClassification") {
		o.fail("architectures", "%s", gteNewAlias)
	}
	if act := o.str("hidden_act"); act != "gelu" {
		o.fail("hidden_act", "%q: vLLM's GteNewModelConfig asserts gelu (vllm/model_executor/models/config.py:421, 866)", act)
	}
	if t := o.str("layer_norm_type"); t != "" && t != "layer_norm" {
		o.fail("layer_norm_type", "%q: vLLM's BertWithRope builds nn.LayerNorm only (bert_with_rope.py:66, 395-396)", t)
	}
	if !o.boolOr("pack_qkv", true) {
		o.fail("pack_qkv", "false: vLLM loads the packed qkv_proj only (bert_with_rope.py GteNewModel.hf_to_vllm_mapper)")
	}
	ropeKey := "rope_scaling"
	rs, ok := o.object(ropeKey)
	if !ok {
		ropeKey = "rope_parameters"
		rs, ok = o.object(ropeKey)
	}
	if ok && len(rs.keys()) > 0 {
		t := rs.str("rope_type")
		if t == "" {
			t = rs.str("type")
		}
		if t != "" && t != "default" && t != "ntk" {
			// Linear, YaRN and the rest size their cos/sin cache by their
			// factor; no mGTE checkpoint uses them.
			o.fail(ropeKey, "rope type %q: mGTE is sized with the default or NTK rope only", t)
		}
	}
	delete(o.m, "rope_scaling")
	delete(o.m, "rope_parameters")
	readBertWithRope(o, a, archs)
	a.RotaryDim = o.uintOr("rotary_emb_dim", a.HeadDim)
	if a.RotaryDim == 0 || a.RotaryDim > a.HeadDim {
		o.fail("rotary_emb_dim", "%d: want 1 to head_dim %d", a.RotaryDim, a.HeadDim)
	}
	bias := o.boolOr("bias", true)
	a.AttnBias, a.OutBias, a.MLPBias = bias, bias, bias
	e := a.Encoder
	e.GatedMLP, e.GateUpBias = true, false
	e.TokenTypes = o.uintOr("type_vocab_size", 1)
	a.Rotary = []RotaryTable{{Name: "rotary_emb", Positions: a.MaxPosition, Dim: a.RotaryDim}}
	checkTokenTypes(o, e)
}

// checkTokenTypes bounds type_vocab_size as BERT's reader does.
func checkTokenTypes(o jsonObject, e *EncoderShape) {
	if e.TokenTypes > 1<<16 {
		o.fail("type_vocab_size", "%d is beyond any real model (at most %d)", e.TokenTypes, 1<<16)
	}
}

// readBertWithRope reads what the bert_with_rope.py models share: multi-head
// attention of hidden_size / num_attention_heads per head (every head a KV
// head, bert_with_rope.py:106-114), rotary positions, post-norm layers,
// the head of the config's first architecture among archs.
func readBertWithRope(o jsonObject, a *Arch, archs []encoderArch) {
	if t := o.str("position_embedding_type"); t != "" && t != "rope" && t != "rotary" {
		// bert_with_rope.py:51-54 raises for any other.
		o.fail("position_embedding_type", "%q: vLLM's BertWithRopeEmbedding takes rope or rotary only", t)
	}
	readCommon(o, a)
	a.KVHeads = a.Heads
	a.derivedHeadDim(o)
	a.RopeScaling, a.RopeScalings = nil, nil
	a.TiedEmbeddings = false // no decoder head is built: nothing is tied
	if o.has("quantization_config") {
		o.fail("quantization_config", "a quantized encoder-only model is not modelled")
	}
	e := &EncoderShape{Layout: LayoutBertWithRope, NormBias: true}
	e.Head = encoderHeadOf(o, a, archs)
	if e.Head == HeadBertClassifier {
		e.Labels = numLabels(o)
	}
	a.Encoder = e
	a.Layers = make([]Layer, a.NumLayers)
	for i := range a.Layers {
		a.Layers[i].Kind = EncoderOnly
	}
}

// bertWithRopeWeights lists a bert_with_rope.py model's weights on one rank
// as vLLM builds it at d18bb7b: the VocabParallelEmbedding word and (when
// type_vocab_size > 0) token-type tables, rows padded to 64, and the
// embeddings' LayerNorm; per layer the QKVParallelLinear qkv_proj, the
// RowParallelLinear out_proj, the MLP (a MergedColumnParallelLinear
// gate_up_proj of 2 x intermediate, or a ColumnParallelLinear up_proj of
// intermediate, and the RowParallelLinear down_proj), attn_ln and mlp_ln;
// the rotary cos/sin cache (one: get_rope caches it); then the head, whose
// nn.Linear layers are whole on every rank in the head dtype.
func bertWithRopeWeights(w *weights) []budget.Item {
	a, e := w.a, w.a.Encoder
	table := func(rows uint64) uint64 {
		return bytesOf(budget.SatMul(w.vocabRows(rows), a.Hidden), w.dt)
	}
	linear := func(name string, in, out uint64, bias bool, biasOut uint64) {
		w.add(name+".weight", bytesOf(budget.SatMul(in, out), w.dt))
		if bias {
			w.add(name+".bias", bytesOf(biasOut, w.dt))
		}
	}
	if w.sh.First {
		w.add("embeddings.word_embeddings.weight", table(a.Vocab))
		if e.TokenTypes > 0 {
			w.add("embeddings.token_type_embeddings.weight", table(e.TokenTypes))
		}
		w.layerNorm("embeddings.LayerNorm", a.Hidden)
	}
	headsRank := budget.CeilDiv(a.Heads, w.tp)
	inter := budget.CeilDiv(a.Intermediate, w.tp)
	hiddenRank := budget.CeilDiv(a.Hidden, w.tp)
	for i := max(w.sh.FirstLayer, 0); i < min(w.sh.EndLayer, len(a.Layers)); i++ {
		p := "encoder.layers." + strconv.Itoa(i) + "."
		qkv := budget.SatMul(3*headsRank, a.HeadDim)
		linear(p+"attn.qkv_proj", a.Hidden, qkv, a.AttnBias, qkv)
		// RowParallelLinear: its input divided, its bias whole (linear.py).
		linear(p+"attn.out_proj", hiddenRank, a.Hidden, a.OutBias, a.Hidden)
		if e.GatedMLP {
			linear(p+"mlp.gate_up_proj", a.Hidden, budget.SatMul(2, inter), e.GateUpBias, budget.SatMul(2, inter))
		} else {
			linear(p+"mlp.up_proj", a.Hidden, inter, a.MLPBias, inter)
		}
		linear(p+"mlp.down_proj", inter, a.Hidden, a.MLPBias, a.Hidden)
		w.layerNorm(p+"attn_ln", a.Hidden)
		w.layerNorm(p+"mlp_ln", a.Hidden)
	}
	for _, r := range a.Rotary {
		rows := r.Positions
		if r.Served && w.sh.RotaryRows > 0 {
			rows = w.sh.RotaryRows
		}
		// RotaryEmbedding's cos_sin_cache buffer, in the model dtype
		// (rotary_embedding/base.py: cache.to(dtype)).
		w.add(r.Name+".cos_sin_cache", bytesOf(budget.SatMul(rows, r.Dim), w.dt))
	}
	if !w.sh.Last {
		return w.items
	}
	if e.Head == HeadBertClassifier {
		// GteNewForSequenceClassification: GteNewModel's BertPooler dense
		// (bert.py:110-115, nn.Linear in the head dtype) and the
		// ReplicatedLinear classifier (bert_with_rope.py:691-699,
		// params_dtype head_dtype): float32 under the pooling runner.
		const headDtype = 4
		for _, l := range []struct {
			name     string
			in, outs uint64
		}{{"new.pooler.dense", a.Hidden, a.Hidden}, {"classifier", a.Hidden, e.Labels}} {
			w.add(l.name+".weight", bytesOf(budget.SatMul(l.in, l.outs), headDtype))
			w.add(l.name+".bias", bytesOf(l.outs, headDtype))
		}
	}
	return w.items
}

// nomicBertClass is NomicBertConfig, the remote code nomic_bert configs
// name (nomic-ai/nomic-bert-2048, configuration_hf_nomic_bert.py), over
// transformers GPT2Config (configuration_gpt2.py@01ae98ae24, whose
// vocab_size, n_positions, n_embd, n_layer and n_head defaults it keeps).
// Its rotary_emb_fraction default 0.0 is listed: a config that leaves it
// out turns no dimension and is refused (readNomicBert).
var nomicBertClass = configClass{
	Name:   "NomicBertConfig",
	Source: "huggingface.co/nomic-ai/nomic-bert-2048 configuration_hf_nomic_bert.py over transformers configuration_gpt2.py@01ae98ae24",
	Defaults: []classDefault{
		{"vocab_size", "50257"}, {"n_positions", "1024"}, {"n_embd", "768"}, {"n_layer", "12"}, {"n_head", "12"},
		{"rotary_emb_fraction", "0.0"}, {"qkv_proj_bias", "true"}, {"mlp_fc1_bias", "true"}, {"mlp_fc2_bias", "true"},
		{"rotary_emb_base", "1000"}, {"type_vocab_size", "2"}, {"max_trained_positions", "2048"},
	},
	Aliases: []classAlias{{From: "hidden_size", To: "n_embd"}, {From: "max_position_embeddings", To: "n_positions"},
		{From: "num_attention_heads", To: "n_head"}, {From: "num_hidden_layers", To: "n_layer"}},
}

// gteNewClass is NewConfig, the remote code model_type new configs name
// (Alibaba-NLP/new-impl, configuration.py): NEW-base's shape. Its
// pad_token_id is commented out, and hidden_act gelu is the one vLLM
// accepts.
var gteNewClass = configClass{
	Name:   "NewConfig",
	Source: "huggingface.co/Alibaba-NLP/new-impl configuration.py",
	Defaults: []classDefault{
		{"vocab_size", "30528"}, {"hidden_size", "768"}, {"num_hidden_layers", "12"}, {"num_attention_heads", "12"},
		{"intermediate_size", "3072"}, {"hidden_act", `"gelu"`}, {"max_position_embeddings", "2048"},
		{"type_vocab_size", "1"}, {"layer_norm_type", `"layer_norm"`}, {"position_embedding_type", `"rope"`},
		{"rope_theta", "10000.0"}, {"pack_qkv", "true"},
	},
}
