package model

import (
	"fmt"
	"slices"
)

// LayerKind is what a decoder layer's token mixer keeps of a sequence: the
// engine's KV cache spec follows from it.
type LayerKind int

// The token mixers of the families the model reads.
const (
	// FullAttention keeps every token's keys and values.
	FullAttention LayerKind = iota
	// SlidingAttention keeps the last SlidingWindow tokens'.
	SlidingAttention
	// ChunkedAttention attends within chunks of AttentionChunkSize tokens
	// (Llama 4's local layers).
	ChunkedAttention
	// LinearAttention keeps a fixed state per sequence, whatever its length
	// (gated delta net: Qwen3-Next, Qwen3.5; shapes in Arch.DeltaNet).
	LinearAttention
	// Mamba keeps a fixed SSM and convolution state per sequence
	// (Nemotron-H, Jamba; shapes in Arch.Mamba).
	Mamba
	// NoMixer is a layer with an MLP only: it keeps nothing per sequence.
	NoMixer
	// EncoderOnly is bidirectional attention over the whole sequence at
	// once (BERT's): it keeps nothing between steps, vLLM's
	// EncoderOnlyAttention having no KV cache spec (Arch.Encoder).
	EncoderOnly
)

// String names the kind as layer_types spells it.
func (k LayerKind) String() string {
	switch k {
	case FullAttention:
		return "full_attention"
	case SlidingAttention:
		return "sliding_attention"
	case ChunkedAttention:
		return "chunked_attention"
	case LinearAttention:
		return "linear_attention"
	case Mamba:
		return "mamba"
	case NoMixer:
		return "mlp_only"
	case EncoderOnly:
		return "encoder_only"
	}
	return "unknown"
}

// Layer is one decoder layer: its token mixer and its MLP (dense or mixture
// of experts), and where its attention's shape differs from the model's.
type Layer struct {
	Kind LayerKind
	MoE  bool
	// HeadDim and KVHeads are the layer's attention shape when it differs
	// from the model's (Gemma 4's global layers); 0 means the model's.
	HeadDim, KVHeads uint64
	// SharesKV says the layer reads another layer's KV cache and keeps none
	// of its own (vLLM: kv_sharing_target_layer_name).
	SharesKV bool
	// NoRoPE says the layer's attention applies no rotary embedding (Llama
	// 4's global layers, no_rope_layers).
	NoRoPE bool
	// SharesTopK says the layer builds no lightning indexer (Arch.Indexer)
	// and reuses the tokens an earlier layer's indexer selected: vLLM's
	// IndexCache, by index_topk_freq or index_topk_pattern
	// (vllm/model_executor/models/deepseek_v2.py:1084-1110).
	SharesTopK bool
	// MambaBeside says the layer runs a Mamba mixer (Arch.Mamba) beside its
	// attention on the same input, keeping a state as well as its KV
	// (Falcon-H1's parallel hybrid: vllm/model_executor/models/
	// falcon_h1.py:315-411).
	MambaBeside bool
	// CrossAttention says the layer also attends to an encoder's output
	// (Whisper's decoder: encoder_attn), whose keys and values it caches
	// for the request's encoder tokens whatever its own length: vLLM's
	// CrossAttentionSpec (vllm/v1/kv_cache_interface.py:809-818) beside
	// the layer's own self-attention spec (Arch.Audio).
	CrossAttention bool
	// Intermediate is the layer's dense MLP width when it differs from the
	// model's (DeciLM's per-block ffn_mult); 0 means Arch.Intermediate.
	Intermediate uint64
	// NoMLP says the layer has no MLP and no norm before it (DeciLM's
	// no-op FFN blocks: vllm/model_executor/models/nemotron_nas.py:166-190).
	NoMLP bool
	// CompressRatio is a DeepSeek-V4 layer's compression of its history
	// (Arch.DeepSeekV4): 1 keeps only the sliding window, 4 adds a
	// compressed latent every 4 tokens with the indexer, 128 one every 128
	// (compress_ratios; vllm/models/deepseek_v4/attention.py:212-215); 0
	// for any other model.
	CompressRatio uint64
}

// Sliding reports whether the layer attends within a sliding window.
func (l Layer) Sliding() bool { return l.Kind == SlidingAttention }

// VisionTower is a multimodal model's vision encoder and the projector
// that feeds the language model, whose weights vLLM loads beside it.
type VisionTower struct {
	// Kind names the tower's architecture: "siglip" (Gemma 3), "qwen2_5_vl",
	// "qwen3_vl" (also Qwen3.5's), "pixtral" (Mistral 3), "llama4", "clip",
	// "llava_siglip" and "llava_pixtral" (LLaVA's and LLaVA-NeXT's CLIP,
	// SigLIP or Pixtral towers with their MLP projector), "qwen2_vl",
	// "intern_vit" (InternVL's InternViT and mlp1), "llava_onevision"
	// (SigLIP with LLaVA-OneVision's unsplit projector), "llava_next_video"
	// (CLIP with LLaVA-NeXT-Video's unsplit projector), "paligemma"
	// (SigLIP with post_layernorm and one linear), "idefics3" (Idefics3's
	// and SmolVLM's tower and pixel-shuffle connector), "glm4v" (GLM-4.1V's
	// and GLM-4.5V's), "moonvit" (Kimi-K2.5's MoonViT and patch merger),
	// "phi4mm" (Phi-4-multimodal's SigLIP tower, projector and Conformer),
	// "gemma4" (Gemma 4's tower and embedder).
	Kind string
	// Hidden, Intermediate, Layers and Heads are the encoder's width, MLP
	// width, depth (the layers vLLM builds) and attention heads.
	Hidden, Intermediate, Layers, Heads uint64
	// PatchSize is the side of a square patch in pixels; ImageSize the
	// side of the largest image the position table covers (0 where the
	// tower takes any size).
	PatchSize, ImageSize uint64
	// Channels is the input channels (3), TemporalPatch the frames a Qwen
	// patch spans (1 for a 2D patch).
	Channels, TemporalPatch uint64
	// SpatialMerge is the side of the square of patches merged into one
	// token (1 when none), OutHidden the width of those tokens (the
	// language model's hidden size).
	SpatialMerge, OutHidden uint64
	// PositionEmbeddings is the rows of a learned position table (Qwen3-VL
	// num_position_embeddings; 0 when the positions are rotary or derived
	// from ImageSize).
	PositionEmbeddings uint64
	// PositionFrames is the rows of a tower's table of frame positions
	// (MoonViT's time_weight buffer, init_pos_emb_time); 0 when none.
	PositionFrames uint64
	// Deepstack is the layers whose features Qwen3-VL merges into the
	// language model's first layers (deepstack_visual_indexes), each with
	// its own merger.
	Deepstack uint64
	// ProjectorIn, ProjectorOut and ProjectorBias shape Llama 4's
	// pixel-shuffle MLP, LLaVA's projector input and Mistral 3's and
	// LLaVA's projector bias.
	ProjectorIn, ProjectorOut uint64
	ProjectorBias             bool
	// ImageNewline is LLaVA-NeXT's learned newline embedding, one vector
	// of OutHidden (llava_next.py:283-285).
	ImageNewline bool
	// TokensPerImage is the tokens one image becomes in the language model
	// where the config fixes it (Gemma 3's mm_tokens_per_image); 0 where
	// the processor decides it from the image's size.
	TokensPerImage uint64
	// Standardize is Gemma 4's learned std_bias and std_scale, one vector
	// of Hidden each (vision_config standardize).
	Standardize bool
	// BidirectionalVision says the language model attends both ways
	// within an image's or video's tokens: Gemma 4's text_config
	// use_bidirectional_attention "vision", which vLLM reads as
	// is_mm_prefix_lm (vllm/transformers_utils/model_arch_config_convertor.py:
	// 695-701 at d18bb7b). False for every other tower.
	BidirectionalVision bool
	// AudioConfig says the config carries an audio_config (a non-null
	// one): Gemma 4's E2B and E4B, whose audio items' tokens come from the
	// processor (audio_seq_length), which membudget does not read.
	AudioConfig bool
	// ConfigLayers and ConfigHidden are what transformers' vision config
	// object holds as num_hidden_layers and hidden_size, as written or by
	// its class's default: an engine may read them rather than the tower
	// built (SGLang's default mem_fraction_static does). 0 where the class
	// has no such attribute: Qwen's vision configs count their blocks in
	// depth, and Qwen2-VL's hidden_size is the language model's width.
	ConfigLayers, ConfigHidden uint64
	// Conformer is Phi-4-multimodal's audio encoder and projector, built
	// with its image tower (kind "phi4mm"); nil for every other tower.
	Conformer *Conformer
	// ImageProcessor and VideoProcessor are the checkpoint's
	// preprocessor_config.json and video_preprocessor_config.json as
	// [ParseProcessor] reads them: nil where the checkpoint has none or
	// they were not read (a config.json alone, a shipped model without
	// them). The loader attaches them ([AttachProcessors]).
	ImageProcessor, VideoProcessor *Processor
}

// RotaryTable is one cos/sin cache of vLLM's rotary embeddings: Positions
// rows of Dim values in the model dtype, or in Dtype where it is given
// ("float32" for gpt-oss, "complex64" for Llama 4's vision tower). Every
// layer with the same rope parameters shares one table (get_rope caches
// them).
type RotaryTable struct {
	Name           string
	Positions, Dim uint64
	Dtype          string
	// Served says vLLM sizes the table by the served max_model_len, not by
	// Positions (Nomic BERT's: vllm/model_executor/models/config.py:728-731
	// passes max_position=max_model_len); Sharding.RotaryRows gives it.
	Served bool
}

// Arch is a model architecture as the footprint needs it, read from a
// config.json by ParseConfig.
type Arch struct {
	Source        string // the file it was read from, for messages
	ModelType     string
	Architectures []string
	Dtype         string // torch_dtype: bfloat16, float16, float32
	// HeadDtype is the config's top-level head_dtype for a model without a
	// pooling head ([PoolerHead.HeadDtype] has a pooling model's): ""
	// when the config has none. vLLM reads it as the dtype of a generative
	// model's LM head from PR #48390 (vllm/config/model.py _get_head_dtype);
	// what the engine does with it is the engine's to say.
	HeadDtype string
	// Defaulted lists the keys the config omitted that its transformers
	// config class gave (and the keys read under an alias), in the order
	// they were filled; empty when the file gave every key it was read for.
	Defaulted []DefaultedKey
	// ReadAs says why a config of a model_type the model does not know was
	// read as ModelType: its architectures or auto_map name an architecture
	// of that family (a trust_remote_code model); "" otherwise.
	ReadAs string
	// Remote is set when transformers ships no class for the config's
	// model_type: the checkpoint's own code reads it, which the engines
	// run only when asked (trust_remote_code).
	Remote *RemoteConfig
	// Generic says the model_type is no family the model knows and the
	// config was read by ParseGeneric: KV from the standard keys, weights
	// only from the checkpoint attached (Notice says so).
	Generic bool

	// Audio is an encoder-decoder model's audio encoder (Whisper's); nil
	// for a decoder. Layers are then the decoder's.
	Audio *AudioEncoder

	Hidden, NumLayers, Heads, KVHeads, HeadDim uint64
	Intermediate, Vocab, MaxPosition           uint64
	TiedEmbeddings                             bool
	AttnBias, MLPBias                          bool
	QKNorm                                     bool   // per-head q_norm and k_norm (Qwen3, Gemma 3)
	NormsPerLayer                              uint64 // RMSNorms per layer: 2, or 4 for Gemma
	FusedQKV, FusedGateUp                      bool   // Phi-3 checkpoint layout
	// RotaryDim is the width of a head the rotary embedding turns:
	// head_dim, or int(head_dim x partial_rotary_factor), or rotary_dim
	// where the config gives it (MiniMax-M2).
	RotaryDim uint64
	// Rotary is every rotary cos/sin table vLLM keeps (Gemma 3 has a local
	// and a global one, DeepSeek V3.2 one more for its indexer, the Qwen VL
	// towers their own); empty for a model without rotary embeddings.
	Rotary []RotaryTable
	// RopeKey is the config's part of the key vLLM's get_rope caches the
	// decoder's rotary table under (see [RopeKey]): another model built in
	// the same process (a speculative draft) shares the table only where
	// it is equal.
	RopeKey RopeKey

	// Sliding-window attention: the window, and which layers use it.
	SlidingWindow uint64
	Layers        []Layer

	// Mixture of experts.
	Experts, ExpertsPerToken, MoEIntermediate, SharedExperts uint64
	ScoreCorrectionBias                                      bool // DeepSeek-V3 noaux_tc
	// SharedIntermediate is the intermediate size of the MoE layers'
	// shared-expert MLP, all shared experts together (0 when none).
	SharedIntermediate uint64
	// MoELatent is the width the routed experts work at when it is not the
	// hidden size (Nemotron-3-Super's moe_latent_size): the tokens are
	// projected down to it before the fused MoE and back up after it
	// (vllm/model_executor/models/nemotron_h.py:142-145, 185-204 at
	// d18bb7b); 0 when the experts work at the hidden size.
	MoELatent uint64
	// AttnOutputGate says the attention's query projection also computes a
	// gate on its output (Qwen3-Next, Qwen3.5: q rows doubled).
	AttnOutputGate bool
	// OutBias says o_proj has a bias (Llama's attention_bias, gpt-oss, OPT,
	// Phi).
	OutBias bool

	// Multi-head latent attention (DeepSeek V2/V3).
	MLA                                                 bool
	KVLoraRank, QLoraRank, QKNopeHeadDim, QKRopeHeadDim uint64
	VHeadDim                                            uint64

	// AttentionChunkSize is the chunk ChunkedAttention layers attend within
	// (Llama 4's attention_chunk_size).
	AttentionChunkSize uint64
	// Mamba and DeltaNet are the shapes of the Mamba and gated-delta-net
	// layers' per-sequence state (nil when the model has none).
	Mamba    *MambaShape
	DeltaNet *DeltaNetShape
	// StateDtype is the dtype the config asks for the recurrent (SSM or
	// delta-net) state: "" for the model's, "float32" where the config says
	// so (Qwen3.5's mamba_ssm_dtype, Nemotron-H's mamba_ssm_cache_dtype).
	StateDtype string
	// Indexer is DeepSeek V3.2's lightning indexer, which keeps a key per
	// token and layer beside the MLA latent (nil when none).
	Indexer *IndexerShape
	// DeepSeekV4 is DeepSeek-V4's compressed attention, indexer and
	// hyper-connection shape (nil for any other model).
	DeepSeekV4 *DeepSeekV4Shape
	// NoPipeline says vLLM's class for the model does not implement
	// SupportsPP, so that it refuses --pipeline-parallel-size above 1
	// (vllm/config/model.py:1387-1394): Mamba2.
	NoPipeline bool
	// NoExpertParallel, when not "", is why vLLM cannot load the model
	// with its experts divided among ranks (DBRX's own expert loader
	// ignores the expert map): the engine refuses expert parallelism over
	// more than one rank with this reason.
	NoExpertParallel string
	// TPWithinExperts, when not "", cites where the model's vLLM MoE block
	// raises "Tensor parallel size N is greater than the number of experts
	// E." as it builds a MoE layer (hunyuan_v1.py:378-382, qwen3_moe.py:
	// 151-155, ...): it compares the tensor-parallel world size itself
	// with Experts, so the engine refuses a tensor-parallel size above
	// Experts, with expert parallelism or without.
	TPWithinExperts string
	// MTPLayers counts the multi-token-prediction layers the checkpoint
	// holds beyond NumLayers (num_nextn_predict_layers, mtp_num_hidden_layers);
	// engines load them only for speculative decoding.
	MTPLayers uint64
	// RopeScaling is the config's rope_scaling (nil when none), which
	// engines derive the longest allowed length from.
	RopeScaling *RopeScaling
	// RopeScalings is every rope-scaling entry of the config in file order:
	// one for a flat rope_scaling or rope_parameters, one per layer type
	// when they are nested by layer type (Gemma 4), none when the config
	// has neither. RopeScaling is the single entry of a flat config.
	RopeScalings []RopeScaling
	// MaxLenKeys holds every key of the config an engine may derive the
	// model's maximum length from (max_position_embeddings, n_positions,
	// max_seq_len, seq_length, model_max_length, max_target_positions,
	// max_sequence_length, max_seq_length, seq_len), as given.
	MaxLenKeys map[string]uint64

	Vision *VisionTower
	// LanguageModelOnly is the config's own top-level language_model_only
	// key (false when absent): a checkpoint of a multimodal family that
	// declares itself text-only (sgl-project/sglang PR #22867). Which
	// engine reads it, and what it changes there, is the engine's.
	LanguageModelOnly bool
	// Encoder is an encoder-only model's embeddings and pooling head (nil
	// for a decoder): its layers are EncoderOnly.
	Encoder *EncoderShape
	// Pooler is a decoder-based pooling architecture's head (a reward
	// model's), built in place of the LM head; nil for any other model.
	Pooler *PoolerHead
	// SentenceTransformers is the pooling the checkpoint's
	// sentence-transformers files give (modules.json and its Pooling
	// module's config.json); nil when it has no Pooling module, or none
	// was read (a shipped config.json stands alone).
	SentenceTransformers *SentenceTransformers
	Quant                Quant // from quantization_config; Method "" when none
	// Checkpoint is the model's safetensors checkpoint, when its headers
	// were read (AttachCheckpoint sets it); RankWeights then counts its
	// tensors instead of the shapes config.json gives.
	Checkpoint *Checkpoint

	layerTypes []string
	// gemma3n is Gemma 3n's per-layer embeddings, AltUp, LAuReL, per-layer
	// MLP widths and towers (nil for any other model).
	gemma3n *gemma3nShape
	// tree is how the family's modules are laid out and named, which only
	// the weights need.
	tree tree
}

// MambaShape is what a Mamba layer keeps per sequence, as the config gives
// it: Mamba2 (Version 2: NumHeads heads of HeadDim, StateSize states per
// head in NGroups groups) or Mamba1 (Version 1: Intermediate channels of
// StateSize states, a time-step projection of rank TimeStepRank), and a
// causal convolution of ConvKernel taps over Intermediate channels.
type MambaShape struct {
	Version                               int
	NumHeads, HeadDim, StateSize, NGroups uint64
	ConvKernel, Intermediate, ChunkSize   uint64
	TimeStepRank                          uint64
}

// DeltaNetShape is what a gated-delta-net (linear attention) layer keeps
// per sequence: a NumValueHeads x ValueHeadDim x KeyHeadDim state and a
// causal convolution of ConvKernel taps over the keys, queries and values.
type DeltaNetShape struct {
	NumKeyHeads, NumValueHeads, KeyHeadDim, ValueHeadDim, ConvKernel uint64
}

// IndexerShape is DeepSeek V3.2's lightning indexer: NumHeads heads of
// HeadDim, selecting TopK tokens.
type IndexerShape struct {
	HeadDim, NumHeads, TopK uint64
}

// RopeScaling is a config's rope_scaling (or rope_parameters): its type,
// its factor and the original maximum position it scales.
type RopeScaling struct {
	// Type is rope_type, or the legacy type key, with vLLM's renaming of
	// the legacy su to longrope (vllm/transformers_utils/config.py
	// patch_legacy_rope_type): default, linear, dynamic, yarn, llama3,
	// longrope, mrope, proportional, ... An entry without a type is
	// "default".
	Type string
	// Factor is the scaling factor; 0 when the entry has none (null or
	// absent), which engines read as 1.
	Factor float64
	// OriginalMaxPosition is original_max_position_embeddings of the entry,
	// or of the config itself when the entry has none (Phi-3's longrope
	// keeps it beside rope_scaling); 0 when neither has it.
	OriginalMaxPosition uint64
	// MRoPE says the entry holds an mrope_section: Qwen's multimodal rope,
	// whose cos/sin table vLLM keeps four times over.
	MRoPE bool
	// LayerType is the layer type the entry belongs to when the config
	// nests them (full_attention, sliding_attention); "" for a flat one.
	LayerType string
}

// MoEHidden returns the width the fused MoE's routed experts work at: the
// [Arch.MoELatent] where the model projects the tokens down to one, else
// the hidden size. The experts' matrices, their activations and an expert
// all-to-all's tokens are that wide (vllm/model_executor/layers/fused_moe/
// runner/moe_runner.py:343-367 at d18bb7b applies the routed input
// transform before the experts run).
func (a *Arch) MoEHidden() uint64 {
	if a.MoELatent > 0 {
		return a.MoELatent
	}
	return a.Hidden
}

// SlidingLayers counts the layers that use the sliding window.
func (a *Arch) SlidingLayers() uint64 {
	var n uint64
	for _, l := range a.Layers {
		if l.Sliding() {
			n++
		}
	}
	return n
}

// QuantizationRefused returns why quantizing the model's weights (a
// checkpoint's quantization_config or an engine's online quantization) is
// not sized, or "" where it is. Only Gemma 3n refuses: which of its
// tensors vLLM's quantization methods take is not verified.
func (a *Arch) QuantizationRefused() string {
	if a.gemma3n != nil {
		return gemma3nUnquantized
	}
	return ""
}

// RouterFollowsDevice reports whether a's MoE router weight depends on
// [Sharding.RouterGEMM]: a router kept in float32 unless the device runs
// vLLM's router GEMMs (nemotron_h). For every other architecture the
// field changes no weight, so an engine can leave it unset.
func (a *Arch) RouterFollowsDevice() bool { return a.tree.routerDtype == routerFP32Fallback }

// SizedByBatchedTokens returns whether the model's weights include a
// buffer vLLM allocates by max_num_batched_tokens as it builds the model
// (Gemma3nForConditionalGeneration's per_layer_embeddings): the engine
// then sets [Sharding].BatchedTokens for it.
func (a *Arch) SizedByBatchedTokens() bool {
	return a.gemma3n != nil && a.gemma3n.multimodal
}

// Modalities is a set of a multimodal model's towers, each named by the
// input it serves: [Sharding].TowersOff names the towers an engine does
// not build.
type Modalities uint8

// The towers a model may have.
const (
	// ImageInput is the vision tower with its projector: images, and
	// video where the model takes it.
	ImageInput Modalities = 1 << iota
	// AudioInput is the audio tower.
	AudioInput
)

// attends reports whether some layer has attention: an attention-free
// model (Mamba's) has no heads, head size or position table to check.
func (a *Arch) attends() bool {
	return len(a.Layers) == 0 || slices.ContainsFunc(a.Layers, func(l Layer) bool { return l.Kind != Mamba && l.Kind != LinearAttention && l.Kind != NoMixer })
}

// needsDense reports whether some layer has a dense MLP, whose
// intermediate size the config must then give (every layer of Qwen3.5-MoE
// and Nemotron-H MoE-only patterns is MoE).
func (a *Arch) needsDense() bool {
	for _, l := range a.Layers {
		switch {
		case a.tree.mixerOnly:
			if l.Kind == NoMixer && !l.MoE {
				return true
			}
		case l.NoMLP:
		case !l.MoE || a.tree.moeBesideMLP:
			return true
		}
	}
	return false
}

// check reports shapes that no model has: they would make the footprint
// meaningless rather than wrong. o is the object the language model was
// read from, root the config's, whose key names the findings use.
func (a *Arch) check(o, root jsonObject) {
	interKey := "intermediate_size"
	if a.ModelType == "opt" {
		interKey = "ffn_dim"
	}
	positive := []struct {
		key string
		v   uint64
	}{
		{"hidden_size", a.Hidden}, {"num_hidden_layers", a.NumLayers}, {"vocab_size", a.Vocab},
	}
	if a.attends() {
		positive = append(positive, []struct {
			key string
			v   uint64
		}{{"num_attention_heads", a.Heads}, {"num_key_value_heads", a.KVHeads},
			{"max_position_embeddings", a.MaxPosition}, {"head_dim", a.HeadDim}}...)
	}
	if a.needsDense() && a.Intermediate == 0 && !o.has(interKey) {
		o.fail(interKey, "missing (required)")
	} else if a.needsDense() {
		positive = append(positive, struct {
			key string
			v   uint64
		}{interKey, a.Intermediate})
	}
	for _, p := range positive {
		if p.v == 0 {
			o.fail(p.key, "must be above 0")
		}
	}
	// Bounds that keep every product of the ledger far from 2^64 while
	// admitting any real model (the largest published: hidden 16384+, vocab
	// 262k, 128 heads, 512 experts).
	limits := []struct {
		key      string
		v, limit uint64
	}{
		{"hidden_size", a.Hidden, 1 << 20}, {"num_attention_heads", a.Heads, 1 << 14},
		{"num_key_value_heads", a.KVHeads, 1 << 14}, {"head_dim", a.HeadDim, 1 << 14},
		{interKey, a.Intermediate, 1 << 22}, {"vocab_size", a.Vocab, 1 << 24},
		{"max_position_embeddings", a.MaxPosition, 1 << 26}, {"num_experts", a.Experts, 1 << 14},
		{"moe_intermediate_size", a.MoEIntermediate, 1 << 22}, {"kv_lora_rank", a.KVLoraRank, 1 << 16},
		{"q_lora_rank", a.QLoraRank, 1 << 16}, {"qk_nope_head_dim", a.QKNopeHeadDim, 1 << 14},
		{"qk_rope_head_dim", a.QKRopeHeadDim, 1 << 14}, {"v_head_dim", a.VHeadDim, 1 << 14},
		{"sliding_window", a.SlidingWindow, 1 << 26}, {"attention_chunk_size", a.AttentionChunkSize, 1 << 26},
		{"shared_expert_intermediate_size", a.SharedIntermediate, 1 << 22}, {"num_nextn_predict_layers", a.MTPLayers, 1 << 10},
		{"moe_latent_size", a.MoELatent, 1 << 20},
	}
	for _, l := range limits {
		if l.v > l.limit {
			o.fail(l.key, "%d is beyond any real model (at most %d)", l.v, l.limit)
		}
	}
	if a.KVHeads > 0 && a.Heads%a.KVHeads != 0 {
		o.fail("num_key_value_heads", "%d does not divide num_attention_heads %d", a.KVHeads, a.Heads)
	}
	// A dense model's num_experts_per_tok (a class default, DeepseekV3Config's
	// 8) selects nothing.
	if a.Experts > 0 && a.ExpertsPerToken > a.Experts {
		o.fail("num_experts_per_tok", "%d is more than the %d experts", a.ExpertsPerToken, a.Experts)
	}
	if a.SlidingLayers() > 0 && a.SlidingWindow == 0 {
		o.fail("sliding_window", "layers use a sliding window but it is 0")
	}
	for _, l := range a.Layers {
		if l.Kind == ChunkedAttention && a.AttentionChunkSize == 0 {
			o.fail("attention_chunk_size", "layers attend in chunks but it is 0")
			break
		}
	}
	if a.DeltaNet != nil {
		d := a.DeltaNet
		if d.NumKeyHeads == 0 || d.NumValueHeads == 0 || d.KeyHeadDim == 0 || d.ValueHeadDim == 0 || d.ConvKernel == 0 {
			o.fail("linear_num_key_heads", "the gated delta net's heads, head dims and conv kernel must be above 0")
		}
	}
	for _, r := range a.Rotary {
		if r.Positions > 1<<30 || r.Dim > 1<<14 {
			o.fail("rope_scaling", "a rotary table of %d positions x %d is beyond any real model", r.Positions, r.Dim)
			break
		}
	}
	if a.Vision != nil {
		a.Vision.check(root)
	}
}

// String names the architecture in one line.
func (a *Arch) String() string {
	kind := "dense"
	if a.Experts > 0 {
		kind = fmt.Sprintf("MoE %d experts top-%d", a.Experts, a.ExpertsPerToken)
		if a.MoELatent > 0 {
			kind += fmt.Sprintf(" at latent %d", a.MoELatent)
		}
	}
	attn := fmt.Sprintf("GQA %d/%d heads x %d", a.Heads, a.KVHeads, a.HeadDim)
	if a.MLA {
		attn = fmt.Sprintf("MLA latent %d+%d", a.KVLoraRank, a.QKRopeHeadDim)
	}
	if !a.attends() {
		attn = "attention-free"
	}
	return fmt.Sprintf("%s: %d layers, hidden %d, %s, %s", a.ModelType, a.NumLayers, a.Hidden, attn, kind)
}
