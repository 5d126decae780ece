package model

import (
	"strconv"

	"membudget/budget"
)

func init() {
	// No checkpoint rules: vLLM renames Whisper's tensors (q/k/v stacked
	// into qkv_proj, k/v into the cross-attention's kv_proj, fc1/fc2 under
	// mlp: whisper.py WhisperForConditionalGeneration.hf_to_vllm_mapper);
	// the weights are derived from config.json.
	registerConfigOnly("whisper", flat(readWhisper))
	registerArchitectures("whisper", "WhisperForConditionalGeneration")
	declareClass("whisper", whisperClass)
}

// AudioEncoder is an encoder-decoder model's audio encoder (Whisper's):
// what vLLM runs once a request over its whole input, whose output every
// decoder layer's cross-attention reads. Its layers keep no KV cache; the
// decoder's cross-attention caches the encoder's output as keys and values
// ([Layer].CrossAttention).
type AudioEncoder struct {
	// Layers, Heads and FFN are encoder_layers, encoder_attention_heads and
	// encoder_ffn_dim; the width is the model's Hidden (d_model).
	Layers, Heads, FFN uint64
	// MelBins is num_mel_bins, the first convolution's input channels.
	MelBins uint64
	// SourcePositions is max_source_positions: the encoder's output
	// tokens for one input (1500 for Whisper's 30-second window), the rows
	// of its position table, and the tokens a request's cross-attention
	// caches (whisper.py WhisperProcessingInfo.get_num_audio_tokens).
	SourcePositions uint64
}

// EncoderDecoder reports whether the model is an encoder-decoder one
// (Whisper): its decoder layers cross-attend to an encoder's output.
func (a *Arch) EncoderDecoder() bool { return a.Audio != nil }

// readWhisper reads Whisper (transformers WhisperConfig) as vLLM's
// whisper.py builds WhisperForConditionalGeneration at d18bb7b: the
// decoder is the model's layers (d_model wide, decoder_attention_heads
// heads of d_model / heads, decoder_ffn_dim, learned positions of
// max_target_positions, every layer a self-attention with a KV cache and a
// cross-attention over the encoder's output), the audio encoder its own
// shape (Arch.Audio). max_model_len derives from max_target_positions.
func readWhisper(o jsonObject, a *Arch) {
	a.Dtype = readDtype(o)
	a.Hidden = o.uint("d_model")
	a.NumLayers = o.uint("decoder_layers")
	a.Heads = o.uint("decoder_attention_heads")
	a.KVHeads = a.Heads
	a.Intermediate = o.uint("decoder_ffn_dim")
	a.Vocab = o.uint("vocab_size")
	a.MaxPosition = o.uint("max_target_positions")
	a.MaxLenKeys = readMaxLenKeys(o)
	a.NormsPerLayer = 3
	a.tree = llamaTree()
	au := &AudioEncoder{
		Layers:          o.uint("encoder_layers"),
		Heads:           o.uint("encoder_attention_heads"),
		FFN:             o.uint("encoder_ffn_dim"),
		MelBins:         o.uint("num_mel_bins"),
		SourcePositions: o.uint("max_source_positions"),
	}
	for _, k := range []struct {
		key string
		v   uint64
	}{{"d_model", a.Hidden}, {"decoder_layers", a.NumLayers}, {"decoder_attention_heads", a.Heads}, {"decoder_ffn_dim", a.Intermediate},
		{"max_target_positions", a.MaxPosition}, {"encoder_layers", au.Layers}, {"encoder_attention_heads", au.Heads},
		{"encoder_ffn_dim", au.FFN}, {"num_mel_bins", au.MelBins}, {"max_source_positions", au.SourcePositions}} {
		if k.v == 0 && o.has(k.key) {
			o.fail(k.key, "must be above 0")
		}
	}
	if a.Heads > 0 && a.Hidden%a.Heads != 0 {
		// whisper.py WhisperAttention raises "embed_dim must be divisible
		// by num_heads".
		o.fail("decoder_attention_heads", "%d does not divide d_model %d", a.Heads, a.Hidden)
	} else if a.Heads > 0 {
		a.HeadDim = a.Hidden / a.Heads
	}
	if au.Heads > 0 && a.Hidden%au.Heads != 0 {
		o.fail("encoder_attention_heads", "%d does not divide d_model %d", au.Heads, a.Hidden)
	}
	if au.MelBins > 1<<12 {
		o.fail("num_mel_bins", "%d is beyond any real model (at most %d)", au.MelBins, 1<<12)
	}
	if au.SourcePositions > 1<<16 {
		o.fail("max_source_positions", "%d is beyond any real model (at most %d)", au.SourcePositions, 1<<16)
	}
	if au.Layers > 1<<10 || au.FFN > 1<<22 || au.Heads > 1<<14 {
		o.fail("encoder_layers", "an encoder of %d layers, %d heads and %d FFN is beyond any real model", au.Layers, au.Heads, au.FFN)
	}
	if t := o.str("pos_embed"); t != "" && t != "sinusoidal" && t != "learned" {
		// whisper.py WhisperEncoder raises for any other.
		o.fail("pos_embed", "%q: vLLM's WhisperEncoder takes sinusoidal or learned only", t)
	}
	if o.has("quantization_config") {
		o.fail("quantization_config", "a quantized Whisper is not modelled")
	}
	// vLLM ties proj_out to embed_tokens whatever tie_word_embeddings says
	// (whisper.py:1044-1049) and skips the checkpoint's proj_out.
	a.TiedEmbeddings = true
	a.AttnBias, a.OutBias, a.MLPBias = true, true, true
	a.Audio = au
	a.Layers = make([]Layer, a.NumLayers)
	for i := range a.Layers {
		a.Layers[i] = Layer{Kind: FullAttention, CrossAttention: true, NoRoPE: true}
	}
}

// whisperWeights lists Whisper's weights on one rank as vLLM's whisper.py
// builds them at d18bb7b. The encoder (on the first stage; vLLM refuses
// pipeline parallelism for Whisper): conv1 (num_mel_bins -> d_model,
// kernel 3) and conv2 (d_model -> d_model, kernel 3), biased nn.Conv1d
// whole on every rank; the max_source_positions x d_model position table
// (nn.Embedding, whole); per layer the biased QKVParallelLinear qkv_proj
// (k's bias a zero vLLM adds: _create_fake_bias_for_k_proj), the biased
// RowParallelLinear out_proj, two LayerNorms, the biased fc1
// (ColumnParallelLinear) and fc2 (RowParallelLinear); its final
// LayerNorm. The decoder: embed_tokens (nn.Embedding: vocab_size rows,
// neither padded nor divided) and the max_target_positions position table;
// per layer the self-attention as the encoder's, the cross-attention's
// biased q_proj (ColumnParallelLinear), kv_proj (MergedColumnParallelLinear
// of 2 x d_model) and out_proj, three LayerNorms, fc1 and fc2; its final
// LayerNorm. proj_out is tied to embed_tokens: nothing more.
func whisperWeights(w *weights) []budget.Item {
	a, au := w.a, w.a.Audio
	d := a.Hidden
	dRank := budget.CeilDiv(d, w.tp)
	linear := func(name string, in, out uint64) {
		w.add(name+".weight", bytesOf(budget.SatMul(in, out), w.dt))
		w.add(name+".bias", bytesOf(out, w.dt))
	}
	// A column-parallel layer's output is divided; a row-parallel one's
	// input is, its bias whole (linear.py).
	row := func(name string, in uint64) {
		w.add(name+".weight", bytesOf(budget.SatMul(budget.CeilDiv(in, w.tp), d), w.dt))
		w.add(name+".bias", bytesOf(d, w.dt))
	}
	selfAttention := func(p string, heads uint64) {
		linear(p+"qkv_proj", d, budget.SatMul(3*budget.CeilDiv(heads, w.tp), d/max(heads, 1)))
		row(p+"out_proj", d)
	}
	mlp := func(p string, ffn uint64) {
		linear(p+"fc1", d, budget.CeilDiv(ffn, w.tp))
		row(p+"fc2", ffn)
	}
	if w.sh.First {
		e := "model.encoder."
		linear(e+"conv1", budget.SatMul(au.MelBins, 3), d)
		linear(e+"conv2", budget.SatMul(d, 3), d)
		w.add(e+"embed_positions.weight", bytesOf(budget.SatMul(au.SourcePositions, d), w.dt))
		for i := range au.Layers {
			p := e + "layers." + strconv.FormatUint(i, 10) + "."
			selfAttention(p+"self_attn.", au.Heads)
			w.layerNorm(p+"self_attn_layer_norm", d)
			mlp(p+"mlp.", au.FFN)
			w.layerNorm(p+"final_layer_norm", d)
		}
		w.layerNorm(e+"layer_norm", d)
		w.add("model.decoder.embed_tokens.weight", bytesOf(budget.SatMul(a.Vocab, d), w.dt))
		w.add("model.decoder.embed_positions.weight", bytesOf(budget.SatMul(a.MaxPosition, d), w.dt))
	}
	for i := max(w.sh.FirstLayer, 0); i < min(w.sh.EndLayer, len(a.Layers)); i++ {
		p := "model.decoder.layers." + strconv.Itoa(i) + "."
		selfAttention(p+"self_attn.", a.Heads)
		w.layerNorm(p+"self_attn_layer_norm", d)
		linear(p+"encoder_attn.q_proj", d, dRank)
		linear(p+"encoder_attn.kv_proj", d, budget.SatMul(2, dRank))
		row(p+"encoder_attn.out_proj", d)
		w.layerNorm(p+"encoder_attn_layer_norm", d)
		mlp(p+"mlp.", a.Intermediate)
		w.layerNorm(p+"final_layer_norm", d)
	}
	if w.sh.Last {
		w.layerNorm("model.decoder.layer_norm", d)
	}
	return w.items
}

// whisperClass is transformers WhisperConfig, read at
// huggingface/transformers@02ae6dd38d (configuration_whisper.py): its
// defaults and attribute_map (num_attention_heads and hidden_size are
// encoder_attention_heads and d_model).
var whisperClass = configClass{
	Name:   "WhisperConfig",
	Source: "src/transformers/models/whisper/configuration_whisper.py@02ae6dd38d",
	Defaults: []classDefault{
		{"vocab_size", "51865"}, {"num_mel_bins", "80"}, {"encoder_layers", "6"}, {"encoder_attention_heads", "4"},
		{"decoder_layers", "6"}, {"decoder_attention_heads", "4"}, {"decoder_ffn_dim", "1536"}, {"encoder_ffn_dim", "1536"},
		{"d_model", "256"}, {"max_source_positions", "1500"}, {"max_target_positions", "448"},
	},
	Aliases: []classAlias{{From: "num_attention_heads", To: "encoder_attention_heads"}, {From: "hidden_size", To: "d_model"}},
}
