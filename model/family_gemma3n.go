package model

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"membudget/budget"
)

func init() {
	// No checkpoint rules: vLLM renames Gemma 3n's modules (the embedding,
	// the per-layer embeddings, their projection and norm and the AltUp
	// projections under self_decoder: gemma3n.py:789-804), so the weights
	// are derived from config.json.
	registerConfigOnly("gemma3n", readGemma3n)
	wrappers["gemma3n"] = true
	registerConfigOnly("gemma3n_text", flat(readGemma3nText))
	registerArchitectures("gemma3n", "Gemma3nForConditionalGeneration")
	registerArchitectures("gemma3n_text", "Gemma3nForCausalLM")
	declareClass("gemma3n", gemma3nClass)
	declareClass("gemma3n_text", gemma3nTextClass)
	declareClass("gemma3n_audio", gemma3nAudioClass)
	declareClass("gemma3n_vision", gemma3nVisionClass)
}

// gemma3nSource is the transformers file and commit Gemma 3n's config
// classes were read at.
const gemma3nSource = "src/transformers/models/gemma3n/configuration_gemma3n.py@018548097621"

// The transformers classes of Gemma 3n's configs. Their defaults are
// google/gemma-3n-E4B's ("gemma3n_text-E4B style configuration"). Of
// Gemma3nTextConfig, intermediate_size may be one int for every layer or a
// list with one per layer, and layer_types defaults to every 5th layer full
// (__post_init__, read by readGemma3nText).
var (
	gemma3nClass = configClass{
		Name:   "Gemma3nConfig",
		Source: gemma3nSource,
		Defaults: []classDefault{
			{"audio_soft_tokens_per_image", "188"}, {"vision_soft_tokens_per_image", "256"}, {"tie_word_embeddings", "true"},
		},
		Nested: map[string]string{"text_config": "gemma3n_text", "vision_config": "gemma3n_vision", "audio_config": "gemma3n_audio"},
	}
	gemma3nTextClass = configClass{
		Name:   "Gemma3nTextConfig",
		Source: gemma3nSource,
		Defaults: []classDefault{
			{"vocab_size", "262400"}, {"hidden_size", "2048"}, {"intermediate_size", "16384"},
			{"num_hidden_layers", "35"}, {"num_attention_heads", "8"}, {"num_key_value_heads", "2"},
			{"head_dim", "256"}, {"hidden_activation", `"gelu_pytorch_tanh"`}, {"max_position_embeddings", "32768"},
			{"tie_word_embeddings", "true"}, {"attention_bias", "false"}, {"sliding_window", "512"},
			{"vocab_size_per_layer_input", "262144"}, {"hidden_size_per_layer_input", "256"},
			{"altup_active_idx", "0"}, {"altup_correct_scale", "true"}, {"altup_num_inputs", "4"},
			{"num_kv_shared_layers", "15"}, {"laurel_rank", "64"},
		},
	}
	gemma3nAudioClass = configClass{
		Name:   "Gemma3nAudioConfig",
		Source: gemma3nSource,
		Defaults: []classDefault{
			{"vocab_size", "128"}, {"input_feat_size", "128"}, {"hidden_size", "1536"},
			{"conf_attention_chunk_size", "12"}, {"conf_attention_context_left", "13"}, {"conf_attention_context_right", "0"},
			{"conf_num_attention_heads", "8"}, {"conf_num_hidden_layers", "12"}, {"conf_conv_kernel_size", "5"},
			{"sscp_conv_channel_size", "[128, 32]"}, {"sscp_conv_kernel_size", "[[3, 3], [3, 3]]"},
			{"sscp_conv_stride_size", "[[2, 2], [2, 2]]"},
		},
	}
	gemma3nVisionClass = configClass{
		Name:     "Gemma3nVisionConfig",
		Source:   gemma3nSource,
		Defaults: []classDefault{{"architecture", `"mobilenetv5_300m_enc"`}, {"hidden_size", "2048"}, {"vocab_size", "128"}},
	}
)

// gemma3nShape is what Gemma 3n's language model and towers add to a
// decoder: only the weights read it.
type gemma3nShape struct {
	// intermediate is each layer's MLP width (intermediate_size, one per
	// layer: MatFormer slices may differ).
	intermediate []uint64
	// pleHidden and pleVocab are hidden_size_per_layer_input and
	// vocab_size_per_layer_input: the per-layer embeddings' width per layer
	// and rows.
	pleHidden, pleVocab uint64
	// altup is altup_num_inputs, the AltUp streams; laurel laurel_rank.
	altup, laurel uint64
	// multimodal says the model is Gemma3nForConditionalGeneration: the
	// towers, their embedders and the per-layer embeddings buffer.
	multimodal bool
	// visionHidden and visionVocab shape embed_vision; audio is the audio
	// tower.
	visionHidden, visionVocab uint64
	audio                     gemma3nAudio
}

// gemma3nAudio is Gemma 3n's audio encoder (transformers
// Gemma3nAudioEncoder, a USM conformer) as its config gives it.
type gemma3nAudio struct {
	hidden, layers, heads, kernel, vocab, featSize uint64
	// chunk and context are the local attention's query block and key
	// context (chunk + context_left - 1 + context_right).
	chunk, context uint64
	// channels, kernels and strides are the two subsampling convolutions'
	// (sscp_conv_channel_size, sscp_conv_kernel_size, sscp_conv_stride_size).
	channels      [2]uint64
	kernels, strd [2][2]uint64
}

// mobileNetV5Params is the parameters of timm's mobilenetv5_300m_enc, the
// one vision tower Gemma 3n's published checkpoints build (the
// architecture Gemma3nVisionConfig names): keras-hub's
// keras_hub/src/models/mobilenetv5/mobilenetv5_presets.py@b93373ada9
// (mobilenetv5_300m_enc_gemma3n, "params": 294_284_096). The tower is timm
// code that config.json does not describe (huggingface/pytorch-image-models
// timm/models/mobilenetv5.py@7452176180 _gen_mobilenet_v5: 84 blocks and
// the fusion adapter); its count is not derived from the config, and
// another architecture is refused by name. Its norms are RmsNorm2d
// (norm_layer, same file), which keeps no running statistics: its
// parameters are all it holds.
const mobileNetV5Params = 294_284_096

// mobileNetV5Channels is the channels mobilenetv5_300m_enc's multi-scale
// fusion adapter emits: the width gemma3n_mm.py:650-662 reshapes the
// tower's output to as vision_config.hidden_size.
const mobileNetV5Channels = 2048

// gemma3nTokensPerImage and gemma3nTokensPerAudio are the embeddings vLLM
// gives every image and audio clip whatever the config says
// (TOKENS_PER_IMAGE and TOKENS_PER_AUDIO, gemma3n_mm.py:69-71, 174-177).
const (
	gemma3nTokensPerImage = 256
	gemma3nTokensPerAudio = 188
)

// Gemma3nItemTokens returns the embeddings vLLM gives one image and one
// audio clip of Gemma 3n (gemma3n_mm.py:69-71, 174-177: fixed, whatever the
// config says).
func Gemma3nItemTokens() (image, audio uint64) {
	return gemma3nTokensPerImage, gemma3nTokensPerAudio
}

// readGemma3n reads Gemma3nForConditionalGeneration
// (vllm/model_executor/models/gemma3n_mm.py at d18bb7b, :550-588): the
// language model of text_config (readGemma3nText) in the wrapper's dtype
// where text_config has none, the MobileNetV5 tower of vision_config and
// the conformer of audio_config, each with its embedder. A text_config,
// vision_config or audio_config the file leaves out is its class's
// defaults (Gemma3nConfig.__post_init__ builds it), so both towers are
// always built.
func readGemma3n(o jsonObject, a *Arch) jsonObject {
	text := gemma3nSub(o, "text_config", "gemma3n_text", a)
	inheritDtype(o, text)
	if o.has("quantization_config") {
		o.fail("quantization_config", "a quantized Gemma 3n is not sized: %s", gemma3nUnquantized)
		return text
	}
	readGemma3nText(text, a)
	if len(*o.errs) > 0 {
		return text
	}
	g := a.gemma3n
	g.multimodal = true
	vision := gemma3nSub(o, "vision_config", "gemma3n_vision", a)
	if arch := vision.str("architecture"); arch != "mobilenetv5_300m_enc" {
		vision.fail("architecture", "%q: membudget knows the parameters of timm's mobilenetv5_300m_enc only (%d, keras-hub mobilenetv5_presets.py); another timm tower's are not in config.json", arch, mobileNetV5Params)
	}
	if vision.has("model_args") {
		vision.fail("model_args", "timm create_model arguments change the MobileNetV5 tower, whose parameters membudget then does not know")
	}
	g.visionHidden, g.visionVocab = vision.uint("hidden_size"), vision.uint("vocab_size")
	if g.visionHidden != mobileNetV5Channels && len(*o.errs) == 0 {
		vision.fail("hidden_size", "%d: mobilenetv5_300m_enc emits %d channels, which gemma3n_mm.py:650-662 reshapes by this width", g.visionHidden, mobileNetV5Channels)
	}
	au := gemma3nSub(o, "audio_config", "gemma3n_audio", a)
	g.audio = readGemma3nAudio(au)
	if g.visionVocab == 0 || g.visionVocab > 1<<20 {
		vision.fail("vocab_size", "%d: want 1 to %d hard vision tokens", g.visionVocab, 1<<20)
	}
	img, _ := Gemma3nItemTokens()
	a.Vision = &VisionTower{Kind: "mobilenetv5", Hidden: g.visionHidden, Channels: 3, OutHidden: a.Hidden,
		TokensPerImage: img, ConfigHidden: g.visionHidden}
	return text
}

// gemma3nSub returns sub-config key of o, filled from the class of
// subType; an absent one is the class's defaults alone.
func gemma3nSub(o jsonObject, key, subType string, a *Arch) jsonObject {
	if !o.has(key) {
		o.m[key] = json.RawMessage("{}")
		sub, _ := o.object(key)
		fillClass(subType, sub, a)
		return sub
	}
	sub, _ := o.object(key)
	return sub
}

// readGemma3nAudio reads audio_config as transformers' Gemma3nAudioEncoder
// builds it (modeling_gemma3n.py@00aa0f5dc1: Gemma3nAudioSubSampleConvProjection,
// Gemma3nAudioConformerBlock), refusing a shape it cannot build.
func readGemma3nAudio(o jsonObject) gemma3nAudio {
	au := gemma3nAudio{
		hidden: o.uint("hidden_size"), layers: o.uint("conf_num_hidden_layers"), heads: o.uint("conf_num_attention_heads"),
		kernel: o.uint("conf_conv_kernel_size"), vocab: o.uint("vocab_size"), featSize: o.uint("input_feat_size"),
		chunk: o.uint("conf_attention_chunk_size"),
	}
	left, right := o.uint("conf_attention_context_left"), o.uint("conf_attention_context_right")
	au.context = au.chunk + max(left, 1) - 1 + right
	ch := o.uints("sscp_conv_channel_size")
	var kernels, strides [][]uint64
	for _, k := range []struct {
		key string
		to  *[][]uint64
	}{{"sscp_conv_kernel_size", &kernels}, {"sscp_conv_stride_size", &strides}} {
		if err := json.Unmarshal(o.m[k.key], k.to); err != nil {
			o.fail(k.key, "must be two [time, frequency] pairs, got %s", short(o.m[k.key]))
		}
	}
	if len(*o.errs) > 0 {
		return au
	}
	// The subsampling projection builds exactly two convolutions
	// (modeling_gemma3n.py: "for i in range(2)").
	if len(ch) != 2 || len(kernels) != 2 || len(strides) != 2 || len(kernels[0]) != 2 || len(kernels[1]) != 2 || len(strides[0]) != 2 || len(strides[1]) != 2 {
		o.fail("sscp_conv_channel_size", "the subsampling projection builds two convolutions: want two channels, two kernel and two stride pairs")
		return au
	}
	for i := range 2 {
		au.channels[i] = ch[i]
		au.kernels[i] = [2]uint64{kernels[i][0], kernels[i][1]}
		au.strd[i] = [2]uint64{strides[i][0], strides[i][1]}
		if ch[i] == 0 || ch[i] > 1<<14 || kernels[i][1] == 0 || kernels[i][0] > 64 || kernels[i][1] > 64 || strides[i][1] == 0 || strides[i][1] > 64 {
			o.fail("sscp_conv_channel_size", "convolution %d: channels %d, kernel %v, stride %v is no subsampling projection", i, ch[i], kernels[i], strides[i])
		}
	}
	bad := au.hidden == 0 || au.hidden > 1<<16 || au.heads == 0 || au.hidden%au.heads != 0 || au.layers > 1<<10 ||
		au.kernel == 0 || au.kernel > 1<<10 || au.vocab == 0 || au.vocab > 1<<20 || au.featSize > 1<<16 || au.chunk == 0 || au.chunk > 1<<12 || left > 1<<12 || right > 1<<12
	if bad {
		o.fail("hidden_size", "implausible audio encoder: hidden %d, %d heads, %d layers, kernel %d, chunk %d", au.hidden, au.heads, au.layers, au.kernel, au.chunk)
	}
	if f := au.freqOut(); f == 0 && len(*o.errs) == 0 {
		o.fail("input_feat_size", "%d mel bins leave nothing after the subsampling convolutions", au.featSize)
	}
	return au
}

// freqOut is the frequency bins after the two subsampling convolutions,
// each padded by one bin on both sides (modeling_gemma3n.py
// Gemma3nAudioSubSampleConvProjection: pad_f_left = pad_f_right = 1).
func (au gemma3nAudio) freqOut() uint64 {
	f := au.featSize
	for i := range 2 {
		k, s := au.kernels[i][1], au.strd[i][1]
		if f+2 < k || s == 0 {
			return 0
		}
		f = (f+2-k)/s + 1
	}
	return f
}

// readGemma3nText reads Gemma 3n's language model as vLLM's gemma3n.py
// builds Gemma3nForCausalLM at d18bb7b: Gemma's four norms, per-head q and
// k norms and a weightless v norm; per-layer MLP widths; every 5th layer
// full unless layer_types says otherwise; the last num_kv_shared_layers
// layers read the KV of the last sliding (two before them) or full layer
// (one before them) and own none (:347-379); the head is always the
// embedding (compute_logits, :1107-1112); two rotary tables, the sliding
// layers' local one and the global one; no pipeline parallelism (the class
// does not implement SupportsPP). activation_sparsity_pattern changes the
// MLP's activation function only (GeluAndMulSparse), no tensor.
func readGemma3nText(o jsonObject, a *Arch) {
	layers := o.uint("num_hidden_layers")
	if layers > 1<<16 {
		o.fail("num_hidden_layers", "%d is not a plausible layer count", layers)
		return
	}
	inter := gemma3nIntermediates(o, layers)
	// readCommon reads one MLP width: the widest layer's, which the
	// activations are sized by.
	oc := o
	oc.m = maps.Clone(o.m)
	oc.m["intermediate_size"] = json.RawMessage(strconv.FormatUint(slices.Max(append([]uint64{0}, inter...)), 10))
	readCommon(oc, a)
	a.gemmaNorms()
	a.QKNorm = true
	// compute_logits reads the embedding whatever tie_word_embeddings says
	// (gemma3n.py:1107-1112): vLLM builds no lm_head.
	a.TiedEmbeddings = true
	a.AttnBias = o.boolOr("attention_bias", false)
	a.OutBias = a.AttnBias
	a.NoPipeline = true
	if act := o.str("hidden_activation"); act != "gelu_pytorch_tanh" {
		// gemma3n.py:252-257 raises ValueError for any other.
		o.fail("hidden_activation", "%q: vLLM's Gemma3nMLP takes gelu_pytorch_tanh only (gemma3n.py:252-257)", act)
	}
	if a.Heads > 0 && a.Hidden%a.Heads != 0 {
		// Gemma3nTextConfig.validate_architecture raises ValueError.
		o.fail("num_attention_heads", "%d does not divide hidden_size %d (transformers refuses the config)", a.Heads, a.Hidden)
	}
	if o.has("quantization_config") {
		o.fail("quantization_config", "a quantized Gemma 3n is not sized: %s", gemma3nUnquantized)
	}
	if !o.boolOr("altup_correct_scale", true) {
		o.fail("altup_correct_scale", "false: vLLM asserts it (gemma3n.py:437)")
	}
	g := &gemma3nShape{
		intermediate: inter,
		pleHidden:    o.uint("hidden_size_per_layer_input"),
		pleVocab:     o.uint("vocab_size_per_layer_input"),
		altup:        o.uint("altup_num_inputs"),
		laurel:       o.uint("laurel_rank"),
	}
	if g.pleHidden == 0 || g.pleHidden > 1<<14 || g.pleVocab == 0 || g.pleVocab > 1<<24 {
		o.fail("hidden_size_per_layer_input", "per-layer inputs of %d x %d rows: want 1 to %d wide and 1 to %d rows", g.pleHidden, g.pleVocab, 1<<14, 1<<24)
	}
	if active := o.uint("altup_active_idx"); g.altup == 0 || g.altup > 64 || active >= g.altup {
		o.fail("altup_num_inputs", "%d AltUp inputs (active %d): want 1 to 64, the active one among them", g.altup, active)
	}
	if g.laurel == 0 || g.laurel > 1<<16 {
		o.fail("laurel_rank", "%d: want 1 to %d", g.laurel, 1<<16)
	}
	if len(*o.errs) > 0 {
		return
	}
	a.gemma3n = g
	a.periodicLayers(o, 5)
	a.uniformLayers(o, 0)
	for i, l := range a.Layers {
		if l.Kind != FullAttention && l.Kind != SlidingAttention {
			o.fail("layer_types", "layer %d is %s: Gemma 3n's layers are sliding_attention or full_attention", i, l.Kind)
			return
		}
	}
	shared := o.uint("num_kv_shared_layers")
	if shared > a.NumLayers {
		o.fail("num_kv_shared_layers", "%d shared layers of %d", shared, a.NumLayers)
		return
	}
	first := a.NumLayers - shared
	for i := first; i < a.NumLayers; i++ {
		// gemma3n.py:355-358: a sliding layer reads layer first-2's cache,
		// a full one layer first-1's; with no such layer it keeps its own.
		offset := uint64(1)
		if a.Layers[i].Kind == SlidingAttention {
			offset = 2
		}
		a.Layers[i].SharesKV = first >= offset
	}
	a.tree.rename = gemma3nRename
	// One table per rope (gemma3n.py:336-345, 381-386): the sliding layers'
	// at rope_local_base_freq, unscaled, and the global one.
	global := a.Rotary
	a.Rotary = nil
	if a.SlidingLayers() > 0 {
		a.Rotary = append(a.Rotary, RotaryTable{Name: "rotary_emb_local", Positions: a.MaxPosition, Dim: a.HeadDim})
	}
	if a.SlidingLayers() < uint64(len(a.Layers)) {
		a.Rotary = append(a.Rotary, global...)
	}
}

// gemma3nIntermediates reads intermediate_size: one width for every layer,
// or a list of one per layer (Gemma3nTextConfig.__post_init__ refuses a
// list of another length).
func gemma3nIntermediates(o jsonObject, layers uint64) []uint64 {
	raw := o.m["intermediate_size"]
	var list []uint64
	if err := json.Unmarshal(raw, &list); err == nil {
		if uint64(len(list)) != layers {
			o.fail("intermediate_size", "has %d entries for %d layers (transformers raises ValueError)", len(list), layers)
			return nil
		}
	} else {
		n := o.uint("intermediate_size")
		list = slices.Repeat([]uint64{n}, int(layers))
	}
	for i, n := range list {
		if n == 0 || n > 1<<22 {
			o.fail("intermediate_size", "layer %d: %d is no MLP width (1 to %d)", i, n, 1<<22)
			return nil
		}
	}
	return list
}

// gemma3nRename: the checkpoint's language model and towers under model.
// (gemma3n_mm.py:536-548), for the quantization's module lists.
var gemma3nRename = [][2]string{
	{"model.language_model.", "model."}, {"model.vision_tower.", "vision_tower."}, {"model.audio_tower.", "audio_tower."},
	{"model.embed_vision.", "embed_vision."}, {"model.embed_audio.", "embed_audio."},
}

// gemma3nUnquantized is why a quantized Gemma 3n is not sized.
const gemma3nUnquantized = "which of AltUp's coefficient matrices, the per-layer embeddings and projections and the towers vLLM's quantization methods take is not verified"

// QuantizationRefused returns why quantizing the model's weights (a
// checkpoint's quantization_config or an engine's online quantization) is
// not sized, or "" where it is: Gemma 3n's.
func (a *Arch) QuantizationRefused() string {
	if a.gemma3n != nil {
		return gemma3nUnquantized
	}
	return ""
}

// Modalities is a set of a multimodal model's towers, each named by the
// input it serves.
type Modalities uint8

// The towers a model may have.
const (
	// ImageInput is the vision tower with its projector: images, and
	// video where the model takes it.
	ImageInput Modalities = 1 << iota
	// AudioInput is the audio tower.
	AudioInput
)

// SizedByBatchedTokens reports whether the model's weights include a
// buffer vLLM allocates by max_num_batched_tokens as it builds the model
// (Gemma 3n's per_layer_embeddings): the engine sets
// [Sharding].BatchedTokens for it.
func (a *Arch) SizedByBatchedTokens() bool {
	return a.gemma3n != nil && a.gemma3n.multimodal
}

// gemma3nWeights lists Gemma 3n's tensors on one rank (gemma3n.py,
// gemma3n_mm.py at d18bb7b). The model has one pipeline stage.
func gemma3nWeights(w *weights) []budget.Item {
	a, g, sh := w.a, w.a.gemma3n, w.sh
	h := a.Hidden
	perLayer := budget.SatMul(a.NumLayers, g.pleHidden)
	if sh.First {
		// Gemma3nSelfDecoder (:594-648): the embedding, the per-layer
		// embeddings of num_hidden_layers x hidden_size_per_layer_input
		// per token, their projection and norm, the AltUp projections,
		// and four scalar tensors built on the device.
		w.add("model.embed_tokens.weight", bytesOf(budget.SatMul(w.vocabRows(a.Vocab), h), w.dt))
		w.add("model.embed_tokens_per_layer.weight", bytesOf(budget.SatMul(w.vocabRows(g.pleVocab), perLayer), w.dt))
		w.linear("model.per_layer_model_projection", h, perLayer, column, false, linearMod)
		w.norm("model.per_layer_projection_norm", g.pleHidden)
		for i := uint64(1); i < g.altup; i++ {
			w.linear(fmt.Sprintf("model.altup_projections.%d", i-1), h, h, column, false, linearMod)
		}
		for _, s := range []string{"embed_scale", "embed_scale_per_layer", "per_layer_input_scale", "per_layer_projection_scale"} {
			w.add("model."+s, w.dt)
		}
	}
	for i := max(sh.FirstLayer, 0); i < min(sh.EndLayer, len(a.Layers)); i++ {
		w.gemma3nLayer(i)
	}
	if sh.Last {
		// Gemma3nTextModel (:814-866): the AltUp unembedding projections
		// and the final norm; the logits read the embedding.
		for i := uint64(1); i < g.altup; i++ {
			w.linear(fmt.Sprintf("model.altup_unembed_projections.%d", i-1), h, h, column, false, linearMod)
		}
		w.norm("model.norm", h)
	}
	w.rotaryTables()
	if g.multimodal && sh.First {
		w.gemma3nTowers()
	}
	return w.items
}

// gemma3nLayer adds decoder layer i (Gemma3nDecoderLayer, :426-520): the
// attention with its weightless v_norm, the layer's MLP width, LAuReL,
// AltUp (its coefficients, router and norm, the float32
// correct_output_scale, the router's scalar input scale), the per-layer
// input gate and projection, replicated, and five norms.
func (w *weights) gemma3nLayer(i int) {
	a, g := w.a, w.a.gemma3n
	h, n := a.Hidden, g.altup
	p := fmt.Sprintf("model.layers.%d.", i)
	w.attention(p+"self_attn", a.Layers[i])
	// :326-328: RMSNorm(has_weight=False) keeps a ones tensor of head_dim
	// in the model dtype (layernorm.py:61-63).
	w.add(p+"self_attn.v_norm.weight", bytesOf(a.HeadDim, w.dt))
	w.denseMLP(p+"mlp", g.intermediate[i])
	w.linear(p+"laurel.linear_left", h, g.laurel, column, false, linearMod)
	w.linear(p+"laurel.linear_right", g.laurel, h, row, false, linearMod)
	w.norm(p+"laurel.post_laurel_norm", h)
	w.linear(p+"altup.correction_coefs", n, n, replicated, false, linearMod)
	w.linear(p+"altup.prediction_coefs", n, budget.SatMul(n, n), replicated, false, linearMod)
	w.linear(p+"altup.modality_router", h, n, replicated, false, linearMod)
	w.norm(p+"altup.router_norm", h)
	// :117-122: correct_output_scale is a float32 parameter; the router's
	// input scale a scalar in the router's dtype.
	w.add(p+"altup.correct_output_scale", bytesOf(h, 4))
	w.add(p+"altup.router_input_scale", w.dt)
	w.linear(p+"per_layer_input_gate", h, g.pleHidden, replicated, false, linearMod)
	w.linear(p+"per_layer_projection", g.pleHidden, h, replicated, false, linearMod)
	for _, nm := range []string{"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm", "post_feedforward_layernorm", "post_per_layer_input_norm"} {
		w.norm(p+nm, h)
	}
}

// gemma3nTowers adds what Gemma3nForConditionalGeneration builds beside
// the language model (gemma3n_mm.py:560-588): the MobileNetV5 tower and
// the audio conformer, transformers modules built whole on every rank in
// the model dtype, unquantized; their embedders; and per_layer_embeddings,
// a buffer of max_num_batched_tokens x layers x hidden_size_per_layer_input
// allocated with the model (Sharding.BatchedTokens).
//
// A tower whose modality the engine serves none of (Sharding.TowersOff)
// is not built, nor is its embedder: each is built within
// _mark_tower_model for its modality (gemma3n_mm.py:560-570), which
// replaces it with StageMissingLayer when the modality's limit is 0
// (interfaces.py:296-333).
func (w *weights) gemma3nTowers() {
	a, g := w.a, w.a.gemma3n
	if w.sh.TowersOff&ImageInput == 0 {
		w.add("vision_tower.timm_model", bytesOf(mobileNetV5Params, w.dt))
		w.gemma3nEmbedder("embed_vision.", g.visionVocab, g.visionHidden)
	}
	if w.sh.TowersOff&AudioInput == 0 {
		w.gemma3nAudio()
		w.gemma3nEmbedder("embed_audio.", g.audio.vocab, g.audio.hidden)
	}
	if w.sh.BatchedTokens > 0 {
		w.add("per_layer_embeddings", bytesOf(budget.SatMul(w.sh.BatchedTokens, budget.SatMul(a.NumLayers, g.pleHidden)), w.dt))
	}
}

// gemma3nEmbedder adds a Gemma3nMultimodalEmbedder (gemma3n_mm.py:439-482):
// a vocabulary-parallel table of the tower's hard tokens, two norms of the
// tower's width, a row-parallel projection to the language model's width
// and a weightless norm's ones tensor, all without the quantization config.
func (w *weights) gemma3nEmbedder(p string, vocab, width uint64) {
	rows := w.vocabRows(vocab)
	w.add(p+"embedding.weight", bytesOf(budget.SatMul(rows, width), w.dt))
	w.norm(p+"hard_embedding_norm", width)
	w.norm(p+"soft_embedding_norm", width)
	w.unquantized(p+"embedding_projection", width, w.a.Hidden, row, false)
	w.add(p+"embedding_post_projection_norm.weight", bytesOf(w.a.Hidden, w.dt))
}

// gemma3nAudio adds transformers' Gemma3nAudioEncoder
// (modeling_gemma3n.py@00aa0f5dc1): two convolutions with their cumulative
// group norms and the input projection; per conformer block two
// feed-forwards (4x wide), the chunked local attention (q, k, v, the
// relative position projection, per_dim_scale, out and two norms), the
// light convolution (a gated linear, a depthwise kernel, a norm and a
// linear) and a norm. Its buffers are built on the device too: per block
// five gradient_clipping scalars and two post_layer_scale ones in the
// model dtype (torch.tensor of a float under vLLM's default dtype), the
// attention's q_scale likewise, its float32 softcap and relative
// timescales (hidden / 2) and its boolean chunk x context mask.
func (w *weights) gemma3nAudio() {
	au := w.a.gemma3n.audio
	p := "audio_tower."
	d := au.hidden
	in := uint64(1)
	for i := range 2 {
		c := fmt.Sprintf("%ssubsample_conv_projection.conv_%d.", p, i)
		w.add(c+"conv.weight", bytesOf(budget.SatMul(budget.SatMul(au.channels[i], in), au.kernels[i][0]*au.kernels[i][1]), w.dt))
		w.add(c+"norm.weight", bytesOf(au.channels[i], w.dt))
		in = au.channels[i]
	}
	w.unquantized(p+"subsample_conv_projection.input_proj_linear", budget.SatMul(au.channels[1], au.freqOut()), d, replicated, false)
	for i := range au.layers {
		b := fmt.Sprintf("%sconformer.%d.", p, i)
		for _, f := range []string{"ffw_layer_start.", "ffw_layer_end."} {
			w.add(b+f+"pre_layer_norm.weight", bytesOf(d, w.dt))
			w.unquantized(b+f+"ffw_layer_1", d, 4*d, replicated, false)
			w.unquantized(b+f+"ffw_layer_2", 4*d, d, replicated, false)
			w.add(b+f+"post_layer_norm.weight", bytesOf(d, w.dt))
			w.add(b+f+"gradient_clipping", w.dt)
			w.add(b+f+"post_layer_scale", w.dt)
		}
		at := b + "attention."
		w.add(at+"pre_attn_norm.weight", bytesOf(d, w.dt))
		w.unquantized(at+"attn.relative_position_embedding.pos_proj", d, d, replicated, false)
		w.add(at+"attn.relative_position_embedding.inv_timescales", bytesOf(d/2, 4))
		w.add(at+"attn.per_dim_scale", bytesOf(d/au.heads, w.dt))
		for _, m := range []string{"q_proj", "k_proj", "v_proj"} {
			w.unquantized(at+"attn."+m, d, d, replicated, false)
		}
		w.add(at+"attn.q_scale", w.dt)
		w.add(at+"attn.local_causal_valid_mask", budget.SatMul(au.chunk, au.context))
		w.add(at+"attn.softcap", 4)
		w.unquantized(at+"post", d, d, replicated, false)
		w.add(at+"post_norm.weight", bytesOf(d, w.dt))
		w.add(at+"gradient_clipping", w.dt)
		lc := b + "lconv1d."
		w.add(lc+"pre_layer_norm.weight", bytesOf(d, w.dt))
		w.unquantized(lc+"linear_start", d, 2*d, replicated, false)
		w.add(lc+"depthwise_conv1d.weight", bytesOf(budget.SatMul(d, au.kernel), w.dt))
		w.add(lc+"conv_norm.weight", bytesOf(d, w.dt))
		w.unquantized(lc+"linear_end", d, d, replicated, false)
		w.add(lc+"gradient_clipping", w.dt)
		w.add(b+"norm.weight", bytesOf(d, w.dt))
		w.add(b+"gradient_clipping", w.dt)
	}
}
