package model

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"slices"

	"membudget/budget"
)

// Phi-4-multimodal-instruct (model_type phi4mm, architectures
// Phi4MMForCausalLM), as vLLM main d18bb7b loads it
// (vllm/model_executor/models/phi4mm.py, phi4mm_audio.py, phi4mm_utils.py,
// idefics2_vision_model.py). Its config is the checkpoint's own
// (auto_map configuration_phi4mm.Phi4MMConfig, trust_remote_code), flat:
// the language model's keys at the top, the image tower's fixed by vLLM,
// the audio encoder's under audio_processor.config. Its checkpoint holds
// the vision and speech LoRA adapters beside the base weights
// (*.base_layer.weight, *.lora_A.vision.weight, ...): vLLM strips
// "base_layer." and skips every "lora" tensor (phi4mm.py:1004-1014,
// 1248-1250), so they are not charged; they are served as LoRA modules.
// Its weights are derived from config.json only (the checkpoint's rules
// are not written).
func init() {
	registerConfigOnly("phi4mm", readPhi4MM)
	registerVisionTower("phi4mm", (*weights).phi4mm)
	registerArchitectures("phi4mm", "Phi4MMForCausalLM")
}

// The SigLIP tower vLLM builds for Phi-4-multimodal whatever the config
// says: get_navit_vision_model's siglip-so400m-patch14-448 shape
// (phi4mm.py:91-114).
const (
	phi4mmVitHidden       = 1152
	phi4mmVitIntermediate = 4304
	phi4mmVitLayers       = 27
	phi4mmVitHeads        = 16
	phi4mmVitPatch        = 14
	phi4mmVitImage        = 448
	// phi4mmVitLayerIdx is Phi4MMImageEncoder's layer_idx when img_processor
	// is not a dict (phi4mm.py:133-138): the tower is built to its
	// second-to-last layer (get_navit_vision_model, :103-106).
	phi4mmVitLayerIdx = -2
)

// phi4mmPositions is AbsolutePositionalEncoding's max_len: the sinusoid
// table of 5000 positions the audio encoder builds in __init__
// (phi4mm_utils.py:772-800, extend_pe). It is a plain attribute, not a
// parameter or buffer, made under vLLM's default device and dtype as the
// model is built, so it lives on the GPU in the model dtype beside the
// weights and no checkpoint holds it.
const phi4mmPositions = 5000

// Conformer is Phi-4-multimodal's audio encoder and projector
// (AudioEmbedding, phi4mm_audio.py:1114-1215, over ConformerEncoder,
// :636-910): a NeMo depthwise-striding subsampler, Blocks conformer
// blocks and the speech and vision-speech projections, as
// audio_processor.config and embd_layer.audio_embd_layer give them.
type Conformer struct {
	// Dim is attention_dim, Heads attention_heads, Group
	// attention_group_size (the query heads a key head serves), FFN
	// linear_units and Blocks num_blocks.
	Dim, Heads, Group, FFN, Blocks uint64
	// Mels is input_size, the features a frame; NormSize is
	// encoder_embedding_config.input_size, the MeanVarianceNormLayer's.
	Mels, NormSize uint64
	// ConvChannels is nemo_conv_settings.conv_channels; Subsamplings the
	// stride-2 stages, log2 of time_reduction; SubsampledMels the mel
	// axis after them, the out projection's input per channel.
	ConvChannels, Subsamplings, SubsampledMels uint64
	// ExtPW and ExtPWKernel are the conv module's ext_pw_out_channel and
	// ext_pw_kernel_size, DWOut depthwise_seperable_out_channel, DWMult
	// depthwise_multiplier, Kernel kernel_size.
	ExtPW, ExtPWKernel, DWOut, DWMult, Kernel uint64
	// BiasInGLU is bias_in_glu: the GLU's linear bias and the pointwise
	// GLU's b1 and b2.
	BiasInGLU bool
	// BiasBuckets is the T5 relative bias table's rows: t5_bias_max_distance,
	// twice unless t5_bias_symmetric (phi4mm_utils.py:676-696).
	BiasBuckets uint64
	// Compression is embd_layer.audio_embd_layer.compression_rate: the
	// audio frames one token stands for, which vLLM's processor indexes
	// (phi4mm.py:794-814).
	Compression uint64
	// MLP says projection_cls is mlp: audio_projection and
	// audio_projection_for_vision, each two layers; else one linear
	// audio_projection. ProjectorIn is the projection's input width.
	MLP         bool
	ProjectorIn uint64
}

// readPhi4MM reads Phi4MMForCausalLM: the language model is LlamaModel of
// the root config (phi4mm.py:1060-1063), whose checkpoint fuses qkv_proj
// and gate_up_proj as Phi-3's does; the head is ParallelLMHead, tied when
// tie_word_embeddings (phi4mm.py:1065-1072). Every layer slides where
// sliding_window is set: without layer_types vLLM's cache config takes the
// model-level window (vllm/engine/arg_utils.py:1982-1988), which every
// Attention without its own takes (attention/attention.py:259-267). The
// image tower is SigLIP-so400m built to its 26th layer, the audio encoder
// the conformer of audio_processor. Phi4MMForCausalLM does not implement
// SupportsPP and asserts a single pipeline stage (phi4mm.py:990, 1036-1037).
func readPhi4MM(o jsonObject, a *Arch) jsonObject {
	readPhi3(o, a)
	a.NoPipeline = true
	built := phi4mmImageLayers(o)
	a.Vision = &VisionTower{
		Kind:         "phi4mm",
		Hidden:       phi4mmVitHidden,
		Intermediate: phi4mmVitIntermediate,
		Layers:       built,
		Heads:        phi4mmVitHeads,
		PatchSize:    phi4mmVitPatch,
		ImageSize:    phi4mmVitImage,
		Channels:     3,
		OutHidden:    a.Hidden,
		ProjectorIn:  phi4mmVitHidden,
	}
	a.Vision.Conformer = readConformer(o)
	return o
}

// phi4mmSiglipName is the one vision encoder name vLLM's processor looks
// up (SIGLIP_NAME, VISION_ENCODER_TO_PROCESSING_CONFIG, phi4mm.py:66-73).
const phi4mmSiglipName = "siglip-so400m-patch14-448"

// phi4mmImageLayers is the tower layers vLLM builds: 27 + layer_idx + 1
// (phi4mm.py:103-106) with layer_idx -2, since img_processor is not a
// dict (:133-138). The published config has no img_processor; its config
// class gives the attribute, None, as vLLM loads that checkpoint. vLLM's
// processor looks img_processor up by name, None reading as
// siglip-so400m-patch14-448 (:725-728, 750-753): any other value, a dict
// whose layer_idx the encoder would read among them, raises as the
// profile run processes its dummy image, and is refused by name.
func phi4mmImageLayers(o jsonObject) uint64 {
	if o.has("img_processor") {
		var name string
		if err := json.Unmarshal(o.m["img_processor"], &name); err != nil || name != phi4mmSiglipName {
			o.fail("img_processor", "%s: vLLM's Phi-4-multimodal processor takes null or %q only, which it looks up in VISION_ENCODER_TO_PROCESSING_CONFIG (phi4mm.py:66-73, 725-728, 750-753); any other value raises", short(o.m["img_processor"]), phi4mmSiglipName)
		}
	}
	return uint64(phi4mmVitLayers + phi4mmVitLayerIdx + 1)
}

// conformerKeys are ConformerEncoder's parameters (phi4mm_audio.py:804-841).
var conformerKeys = []string{
	"input_size", "chunk_size", "left_chunk", "num_lang", "attention_dim", "attention_heads", "linear_units",
	"num_blocks", "dropout_rate", "input_layer", "causal", "batch_norm", "cnn_out", "cnn_layer_norm",
	"ext_pw_out_channel", "ext_pw_kernel_size", "depthwise_seperable_out_channel", "depthwise_multiplier",
	"chunk_se", "kernel_size", "activation", "conv_activation", "conv_glu_type", "bias_in_glu",
	"linear_glu_in_convm", "attention_glu_type", "export", "extra_layer_output_idx",
	"extra_multi_layer_output_idxs", "activation_checkpointing", "relative_attention_bias_args",
	"time_reduction", "use_pt_scaled_dot_product_attention", "nemo_conv_settings", "conv2d_extra_padding",
	"replication_pad_for_subsample_embedding", "attention_group_size", "encoder_embedding_config",
}

// readConformer reads the audio encoder AudioEmbedding builds from
// audio_processor (name cascades) and embd_layer.audio_embd_layer, with
// ConformerEncoder's and NemoConvSubsampling's defaults for the keys the
// config leaves out (phi4mm_audio.py:327-420, 804-908, 1114-1215;
// phi4mm_utils.py:1008-1320). What vLLM builds another way than the
// published checkpoint (a Q-Former, a convolutional downsampler, batch
// norm, a GLU linear in the conv module) is refused by name.
func readConformer(o jsonObject) *Conformer {
	emb, ok := o.object("embd_layer")
	if !ok {
		o.fail("embd_layer", "missing (required: vLLM reads embd_layer.audio_embd_layer, phi4mm.py:1047-1058)")
		return nil
	}
	audio, ok := emb.object("audio_embd_layer")
	if !ok {
		emb.fail("audio_embd_layer", "missing or not an object: membudget sizes the audio embedding every published checkpoint configures (phi4mm.py:1047-1058)")
		return nil
	}
	proc, ok := o.object("audio_processor")
	if !ok {
		o.fail("audio_processor", "missing (required: AudioEmbedding builds its encoder from it, phi4mm_audio.py:1129-1140)")
		return nil
	}
	if name := proc.str("name"); name != "cascades" {
		proc.fail("name", "%q: vLLM's AudioEmbedding builds only the cascades conformer and raises NotImplementedError for any other (phi4mm_audio.py:1129-1140)", name)
		return nil
	}
	c, ok := proc.object("config")
	if !ok {
		proc.fail("config", "missing (required: the conformer's settings, phi4mm_audio.py:1134-1136)")
		return nil
	}
	for _, k := range []struct {
		key, why string
	}{
		{"use_qformer", "a WindowQformer after the encoder (phi4mm_audio.py:1150-1155)"},
		{"use_conv_downsample", "a NeMo convolutional downsampler after the encoder (phi4mm_audio.py:1157-1187)"},
	} {
		if audio.boolOr(k.key, false) {
			audio.fail(k.key, "true: %s, which membudget does not size", k.why)
		}
	}
	for _, k := range []struct {
		key, why string
	}{
		{"batch_norm", "a BatchNorm1d in every conv module (phi4mm_utils.py:392-393)"},
		{"linear_glu_in_convm", "a GLULinear in place of the pointwise GLU convolution (phi4mm_utils.py:445-451)"},
	} {
		if c.boolOr(k.key, false) {
			c.fail(k.key, "true: %s, which membudget does not size", k.why)
		}
	}
	for _, k := range c.keys() {
		if !slices.Contains(conformerKeys, k) {
			// AudioEmbedding passes the dict as keywords: vLLM raises
			// TypeError for any other (phi4mm_audio.py:1136).
			c.fail(k, "not a ConformerEncoder argument (phi4mm_audio.py:804-841): vLLM raises TypeError building the audio encoder")
		}
	}
	for _, k := range []string{"chunk_size", "left_chunk"} {
		if _, given := c.m[k]; !given {
			// Positional parameters without a default (phi4mm_audio.py:804-808).
			c.fail(k, "missing (required: ConformerEncoder has no default for it, phi4mm_audio.py:804-808)")
		}
	}
	if l := c.str("input_layer"); l != "" && l != "nemo_conv" {
		c.fail("input_layer", "%q: vLLM's conformer raises for any input layer but nemo_conv (phi4mm_audio.py:359-382)", l)
	}
	cv := &Conformer{
		// ConformerEncoder's defaults (phi4mm_audio.py:804-841).
		Dim:         c.uintOr("attention_dim", 256),
		Heads:       c.uintOr("attention_heads", 4),
		Group:       c.uintOr("attention_group_size", 1),
		FFN:         c.uintOr("linear_units", 2048),
		Blocks:      c.uintOr("num_blocks", 6),
		Mels:        c.uint("input_size"),
		ExtPW:       c.uintOr("ext_pw_out_channel", 0),
		ExtPWKernel: c.uintOr("ext_pw_kernel_size", 1),
		DWOut:       c.uintOr("depthwise_seperable_out_channel", 256),
		DWMult:      c.uintOr("depthwise_multiplier", 1),
		Kernel:      c.uintOr("kernel_size", 3),
		BiasInGLU:   c.boolOr("bias_in_glu", true),
	}
	if e, ok := c.object("encoder_embedding_config"); ok {
		cv.NormSize = e.uint("input_size")
	} else {
		// TransformerEncoderBase indexes it (phi4mm_audio.py:407-409).
		c.fail("encoder_embedding_config", "missing (required: the MeanVarianceNormLayer's input_size, phi4mm_audio.py:407-409)")
	}
	rel, ok := c.object("relative_attention_bias_args")
	if !ok || rel.str("type") != "t5" {
		// TransformerEncoderBase raises NotImplementedError unless the
		// bias is T5's (phi4mm_audio.py:389-405).
		c.fail("relative_attention_bias_args", "vLLM's conformer builds only the t5 relative attention bias (type \"t5\") and raises NotImplementedError otherwise (phi4mm_audio.py:389-405)")
		return nil
	}
	cv.BiasBuckets = rel.uintOr("t5_bias_max_distance", 1000)
	if !rel.boolOr("t5_bias_symmetric", false) {
		cv.BiasBuckets = budget.SatMul(cv.BiasBuckets, 2)
	}
	cv.ConvChannels, cv.Subsamplings, cv.SubsampledMels = nemoSubsampling(c, cv.Mels)
	switch p := audio.str("projection_cls"); p {
	case "mlp":
		cv.MLP = true
	case "", "linear":
		// AudioEmbedding's default is linear (phi4mm_audio.py:1188-1189).
	default:
		audio.fail("projection_cls", "%q: vLLM raises NotImplementedError for any projection but linear and mlp (phi4mm_audio.py:1188-1212)", p)
	}
	cv.Compression = audio.uint("compression_rate")
	if cv.Compression == 0 && len(*o.errs) == 0 {
		audio.fail("compression_rate", "0: vLLM's processor divides the audio frames by it (phi4mm.py:794-814)")
	}
	cv.ProjectorIn = cv.Dim
	if cv.MLP {
		// linear_downsample_rate is downsample_rate without a Q-Former or
		// conv downsampler (phi4mm_audio.py:1194-1196).
		cv.ProjectorIn = budget.SatMul(cv.Dim, audio.uintOr("downsample_rate", 1))
	}
	checkConformer(c, cv)
	return cv
}

// nemoSubsampling reads nemo_conv_settings and time_reduction: the
// dw_striding subsampler of NemoConvSubsampling with conv_channels (256 by
// default), log2(time_reduction) stride-2 stages, and the mel axis those
// stages leave, calc_length_int of input_size with the padding is_causal
// gives (phi4mm_audio.py:359-382; phi4mm_utils.py:1008-1140, 1310-1320,
// 1545-1566).
func nemoSubsampling(c jsonObject, mels uint64) (channels, stages, out uint64) {
	channels = 256
	causal := false
	if s, ok := c.object("nemo_conv_settings"); ok {
		for _, k := range s.keys() {
			switch k {
			case "conv_channels":
				channels = s.uint(k)
			case "is_causal":
				causal = s.boolOr(k, false)
			case "subsampling":
				if v := s.str(k); v != "dw_striding" {
					s.fail(k, "%q: membudget sizes the dw_striding subsampler only (phi4mm_utils.py:1077-1140)", v)
				}
			case "subsampling_conv_chunking_factor", "activation":
				// The forward's chunking and activation hold no weights.
			default:
				// NemoConvSubsampling takes no other keyword: vLLM raises
				// TypeError (phi4mm_utils.py:1035-1045).
				s.fail(k, "not a NemoConvSubsampling setting (phi4mm_utils.py:1035-1045)")
			}
		}
	}
	reduction := c.uintOr("time_reduction", 4)
	stages = uint64(bits.TrailingZeros64(reduction))
	if reduction < 2 || reduction > 64 || reduction&(reduction-1) != 0 {
		// _sampling_num is int(log2(time_reduction)) (phi4mm_utils.py:1053-1057);
		// membudget takes the powers of two the checkpoints use.
		c.fail("time_reduction", "%d: membudget sizes a power of two from 2 to 64 (the subsampler's stride-2 stages, phi4mm_utils.py:1053-1057)", reduction)
		return channels, 1, 1
	}
	// dw_striding: kernel 3, stride 2, padding 1 a side, or 2 left and 1
	// right when causal (phi4mm_utils.py:1079-1090).
	pad := uint64(2)
	if causal {
		pad = 3
	}
	out = mels
	for range stages {
		if out+pad < 3 {
			c.fail("input_size", "%d mel features vanish in the subsampler's %d stages", mels, stages)
			return channels, stages, 1
		}
		out = (out+pad-3)/2 + 1
	}
	return channels, stages, out
}

// checkConformer reports an audio encoder no model has, or one vLLM's
// modules refuse.
func checkConformer(c jsonObject, cv *Conformer) {
	switch {
	case cv.Dim == 0 || cv.Dim > 1<<16 || cv.Heads == 0 || cv.Dim%cv.Heads != 0:
		c.fail("attention_dim", "%d over %d heads: MultiHeadedAttention asserts the heads divide it (phi4mm_utils.py:1666-1670)", cv.Dim, cv.Heads)
	case cv.Group == 0 || cv.Heads%cv.Group != 0:
		c.fail("attention_group_size", "%d does not divide the %d heads (phi4mm_audio.py:870-872)", cv.Group, cv.Heads)
	case cv.FFN == 0 || cv.FFN > 1<<18 || cv.Blocks == 0 || cv.Blocks > 1<<10 || cv.Mels == 0 || cv.Mels > 1<<12 ||
		cv.NormSize > 1<<12 || cv.ConvChannels == 0 || cv.ConvChannels > 1<<14 || cv.ExtPW > 1<<16 || cv.ExtPWKernel == 0 ||
		cv.ExtPWKernel > 64 || cv.DWOut > 1<<16 || cv.DWMult == 0 || cv.DWMult > 16 || cv.Kernel == 0 || cv.Kernel > 64 ||
		cv.BiasBuckets > 1<<16 || cv.ProjectorIn > 1<<20 || cv.Compression > 1<<16:
		c.fail("attention_dim", "implausible audio encoder %+v", *cv)
	}
}

// phi4mm adds Phi-4-multimodal's image and audio encoders on the first
// stage. vLLM hands neither its quantization config: get_navit_vision_model
// builds the tower without one, and the audio encoder and every projection
// are plain torch modules, whole on every rank (phi4mm.py:91-114, 186-195;
// phi4mm_audio.py).
func (w *weights) phi4mm(v *VisionTower) {
	if w.sh.TowersOff&ImageInput == 0 {
		w.phi4mmImage(v)
	}
	if v.Conformer != nil && w.sh.TowersOff&AudioInput == 0 {
		w.conformer(v.Conformer, v.OutHidden)
	}
}

// phi4mmImage adds the image encoder (Phi4MMImageEncoder, phi4mm.py:117-200):
// the Idefics2 tower of the layers built without post_layernorm
// (require_post_norm=False; idefics2_vision_model.py:47-76, 123-402): a
// biased Conv2d patch embedding, (448/14)^2 = 1024 learned positions, each
// layer's qkv_proj and fc1 divided by columns and out_proj and fc2 by rows,
// all biased, two LayerNorms; then glb_GN and sub_GN, one row of the
// tower's width each, and img_projection's two biased nn.Linear, tower
// width to the text width and text to text.
func (w *weights) phi4mmImage(v *VisionTower) {
	w.idefics2Encoder("vision_encoder.img_processor.", v, false, false)
	h := v.Hidden
	w.add("vision_encoder.glb_GN", bytesOf(h, w.dt))
	w.add("vision_encoder.sub_GN", bytesOf(h, w.dt))
	w.towerLinear("vision_encoder.img_projection.0", v.ProjectorIn, v.OutHidden, replicated, true, false)
	w.towerLinear("vision_encoder.img_projection.2", v.OutHidden, v.OutHidden, replicated, true, false)
}

// conformer adds the audio encoder and its projections under
// embed_tokens_extend. (AudioEmbedding), every tensor whole and in the
// model dtype:
//
//   - encoder_embedding: MeanVarianceNormLayer's global_mean and
//     global_invstd (phi4mm_utils.py:834-846);
//   - embed: NemoConvSubsampling's dw_striding stack, a Conv2d(1, C, 3x3)
//     at conv.0, then per later stage a depthwise Conv2d(C, C, 3x3,
//     groups=C) and a pointwise Conv2d(C, C, 1) (conv.2 and conv.3, conv.5
//     and conv.6, ...), all biased, and out, a biased Linear of C x the
//     mel axis left to attention_dim (phi4mm_utils.py:1077-1140, 1310-1320);
//   - pos_emb.pe, the 5000-position sinusoid table (phi4mmPositions);
//   - relative_attention_bias_layer.bias_values, an Embedding of the T5
//     buckets x heads / group (phi4mm_utils.py:676-696);
//   - dev_type, a scalar buffer (phi4mm_audio.py:908);
//   - per block (ConformerEncoderLayer, phi4mm_audio.py:139-215):
//     feed_forward_in and feed_forward_out, each a LayerNorm, GLULinear's
//     Linear(d, 2 x ffn) and a Linear(ffn, d) (phi4mm_utils.py:521-605);
//     self_attn's linear_q (d to d), linear_k and linear_v (d to d /
//     group) and linear_out (d / group to d), all biased
//     (phi4mm_utils.py:1613-1690); the conv module (phi4mm_utils.py:
//     287-460): a LayerNorm, with ext_pw_out_channel E its
//     ext_pw_conv_1d Conv1d(d, E, k) and the GLU's Conv1d(d, 2E, k) with
//     b1 and b2 of E each, ln1 Linear(E, d) where E is not d, else
//     pw_conv_simplify_w and _b of 3 each; dw_sep_conv_1d's depthwise
//     Conv1d(d, d x m, kernel, groups=d) and pointwise Conv1d(d x m, D,
//     1) where D is not 0; ln2 Linear(D, d) where D is neither 0 nor d,
//     or Linear(d x m, d) where D is 0 and m is not 1; then
//     layer_norm_att and layer_norm;
//   - audio_projection and audio_projection_for_vision, each
//     Linear(in, H) and Linear(H, H) for projection_cls mlp, or one
//     audio_projection Linear(d, H) for linear (phi4mm_audio.py:1188-1212).
func (w *weights) conformer(c *Conformer, text uint64) {
	p := "embed_tokens_extend."
	e := p + "encoder."
	d, ch := c.Dim, c.ConvChannels
	w.add(e+"encoder_embedding.global_mean", bytesOf(c.NormSize, w.dt))
	w.add(e+"encoder_embedding.global_invstd", bytesOf(c.NormSize, w.dt))
	w.unquantized(e+"embed.conv.0", 9, ch, replicated, true)
	for s := range c.Subsamplings - 1 {
		w.unquantized(fmt.Sprintf("%sembed.conv.%d", e, 2+3*s), 9, ch, replicated, true)
		w.unquantized(fmt.Sprintf("%sembed.conv.%d", e, 3+3*s), ch, ch, replicated, true)
	}
	w.unquantized(e+"embed.out", budget.SatMul(ch, c.SubsampledMels), d, replicated, true)
	w.add(e+"pos_emb.pe", bytesOf(budget.SatMul(phi4mmPositions, d), w.dt))
	w.add(e+"relative_attention_bias_layer.bias_values.weight", bytesOf(budget.SatMul(c.BiasBuckets, c.Heads/c.Group), w.dt))
	w.add(e+"dev_type", bytesOf(1, w.dt))
	kv := d / c.Group
	for i := range c.Blocks {
		b := fmt.Sprintf("%sencoders.%d.", e, i)
		for _, ff := range []string{"feed_forward_in", "feed_forward_out"} {
			w.layerNorm(b+ff+".layer_norm", d)
			w.unquantized(b+ff+".net.0.linear", d, 2*c.FFN, replicated, c.BiasInGLU)
			w.unquantized(b+ff+".net.2", c.FFN, d, replicated, true)
		}
		w.unquantized(b+"self_attn.linear_q", d, d, replicated, true)
		w.unquantized(b+"self_attn.linear_k", d, kv, replicated, true)
		w.unquantized(b+"self_attn.linear_v", d, kv, replicated, true)
		w.unquantized(b+"self_attn.linear_out", kv, d, replicated, true)
		cm := b + "conv."
		w.layerNorm(cm+"layer_norm", d)
		if c.ExtPW != 0 {
			w.unquantized(cm+"ext_pw_conv_1d", d*c.ExtPWKernel, c.ExtPW, replicated, true)
			w.unquantized(cm+"glu.ext_pw_conv_1d", d*c.ExtPWKernel, 2*c.ExtPW, replicated, true)
			if c.BiasInGLU {
				w.add(cm+"glu.b1", bytesOf(c.ExtPW, w.dt))
				w.add(cm+"glu.b2", bytesOf(c.ExtPW, w.dt))
			}
			if c.ExtPW != d {
				w.unquantized(cm+"ln1", c.ExtPW, d, replicated, true)
			}
		} else {
			w.add(cm+"pw_conv_simplify_w", bytesOf(3, w.dt))
			w.add(cm+"pw_conv_simplify_b", bytesOf(3, w.dt))
		}
		w.unquantized(cm+"dw_sep_conv_1d.dw_conv", c.Kernel, d*c.DWMult, replicated, true)
		if c.DWOut != 0 {
			w.unquantized(cm+"dw_sep_conv_1d.pw_conv", d*c.DWMult, c.DWOut, replicated, true)
			if c.DWOut != d {
				w.unquantized(cm+"ln2", c.DWOut, d, replicated, true)
			}
		} else if c.DWMult != 1 {
			w.unquantized(cm+"ln2", d*c.DWMult, d, replicated, true)
		}
		w.layerNorm(b+"layer_norm_att", d)
		w.layerNorm(b+"layer_norm", d)
	}
	if !c.MLP {
		w.unquantized(p+"audio_projection", d, text, replicated, true)
		return
	}
	for _, proj := range []string{"audio_projection", "audio_projection_for_vision"} {
		w.unquantized(p+proj+".0", c.ProjectorIn, text, replicated, true)
		w.unquantized(p+proj+".2", text, text, replicated, true)
	}
}
