package model

import "fmt"

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
}

// Sliding reports whether the layer attends within a sliding window.
func (l Layer) Sliding() bool { return l.Kind == SlidingAttention }

// VisionTower is a multimodal model's vision encoder (SigLIP for Gemma 3),
// whose weights vLLM loads beside the language model.
type VisionTower struct {
	Hidden, Intermediate, Layers, Heads, PatchSize, ImageSize uint64
	TokensPerImage                                            uint64
}

// Arch is a model architecture as the footprint needs it, read from a
// config.json by ParseConfig.
type Arch struct {
	Source        string // the file it was read from, for messages
	ModelType     string
	Architectures []string
	Dtype         string // torch_dtype: bfloat16, float16, float32

	Hidden, NumLayers, Heads, KVHeads, HeadDim uint64
	Intermediate, Vocab, MaxPosition           uint64
	TiedEmbeddings                             bool
	AttnBias, MLPBias                          bool
	QKNorm                                     bool   // per-head q_norm and k_norm (Qwen3, Gemma 3)
	NormsPerLayer                              uint64 // RMSNorms per layer: 2, or 4 for Gemma
	FusedQKV, FusedGateUp                      bool   // Phi-3 checkpoint layout
	RotaryDim                                  uint64
	// RotaryPositions is the length of each rotary cos/sin table vLLM keeps
	// (one per distinct rope; Gemma 3 has a local and a global one).
	RotaryPositions []uint64

	// Sliding-window attention: the window, and which layers use it.
	SlidingWindow uint64
	Layers        []Layer

	// Mixture of experts.
	Experts, ExpertsPerToken, MoEIntermediate, SharedExperts uint64
	ScoreCorrectionBias                                      bool // DeepSeek-V3 noaux_tc

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
	// MTPLayers counts the multi-token-prediction layers the checkpoint
	// holds beyond NumLayers (num_nextn_predict_layers, mtp_num_hidden_layers);
	// engines load them only for speculative decoding.
	MTPLayers uint64
	// RopeScaling is the config's rope_scaling (nil when none), which
	// engines derive the longest allowed length from.
	RopeScaling *RopeScaling
	// MaxLenKeys holds every key of the config an engine may derive the
	// model's maximum length from (max_position_embeddings, n_positions,
	// max_seq_len, seq_length, model_max_length, max_target_positions,
	// max_sequence_length, max_seq_length, seq_len), as given.
	MaxLenKeys map[string]uint64

	Vision *VisionTower
	Quant  Quant // from quantization_config; Method "" when none

	layerTypes []string
}

// MambaShape is what a Mamba layer keeps per sequence, as the config gives
// it: Mamba2 (Version 2: NumHeads heads of HeadDim, StateSize states per
// head in NGroups groups) or Mamba1 (Version 1: Intermediate channels of
// StateSize states), and a causal convolution of ConvKernel taps over
// Intermediate channels.
type MambaShape struct {
	Version                               int
	NumHeads, HeadDim, StateSize, NGroups uint64
	ConvKernel, Intermediate, ChunkSize   uint64
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

// RopeScaling is a config's rope_scaling: its type (linear, dynamic, yarn,
// llama3, longrope, mrope, ...), its factor and the original maximum
// position it scales.
type RopeScaling struct {
	Type                string
	Factor              float64
	OriginalMaxPosition uint64
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

// check reports shapes that no model has: they would make the footprint
// meaningless rather than wrong.
func (a *Arch) check(o jsonObject) {
	positive := []struct {
		key string
		v   uint64
	}{
		{"hidden_size", a.Hidden}, {"num_hidden_layers", a.NumLayers}, {"num_attention_heads", a.Heads},
		{"num_key_value_heads", a.KVHeads}, {"intermediate_size", a.Intermediate}, {"vocab_size", a.Vocab},
		{"max_position_embeddings", a.MaxPosition}, {"head_dim", a.HeadDim},
	}
	for _, p := range positive {
		if p.v == 0 {
			o.fail(p.key, "must be above 0")
		}
	}
	// Bounds that keep every product of the ledger far from 2^64 while
	// admitting any real model (the largest published: hidden 16384+, vocab
	// 262k, 128 heads, 256 experts).
	limits := []struct {
		key      string
		v, limit uint64
	}{
		{"hidden_size", a.Hidden, 1 << 20}, {"num_attention_heads", a.Heads, 1 << 14},
		{"num_key_value_heads", a.KVHeads, 1 << 14}, {"head_dim", a.HeadDim, 1 << 14},
		{"intermediate_size", a.Intermediate, 1 << 22}, {"vocab_size", a.Vocab, 1 << 24},
		{"max_position_embeddings", a.MaxPosition, 1 << 26}, {"num_experts", a.Experts, 1 << 14},
		{"moe_intermediate_size", a.MoEIntermediate, 1 << 22}, {"kv_lora_rank", a.KVLoraRank, 1 << 16},
		{"q_lora_rank", a.QLoraRank, 1 << 16}, {"qk_nope_head_dim", a.QKNopeHeadDim, 1 << 14},
		{"qk_rope_head_dim", a.QKRopeHeadDim, 1 << 14}, {"v_head_dim", a.VHeadDim, 1 << 14},
		{"sliding_window", a.SlidingWindow, 1 << 26},
	}
	for _, l := range limits {
		if l.v > l.limit {
			o.fail(l.key, "%d is beyond any real model (at most %d)", l.v, l.limit)
		}
	}
	if a.KVHeads > 0 && a.Heads%a.KVHeads != 0 {
		o.fail("num_key_value_heads", "%d does not divide num_attention_heads %d", a.KVHeads, a.Heads)
	}
	if a.ExpertsPerToken > a.Experts {
		o.fail("num_experts_per_tok", "%d is more than the %d experts", a.ExpertsPerToken, a.Experts)
	}
	if a.SlidingLayers() > 0 && a.SlidingWindow == 0 {
		o.fail("sliding_window", "layers use a sliding window but it is 0")
	}
	if a.Vision != nil {
		v := a.Vision
		if v.Hidden == 0 || v.Layers == 0 || v.PatchSize == 0 || v.ImageSize < v.PatchSize || v.Hidden > 1<<16 || v.Intermediate > 1<<18 || v.Layers > 1<<10 || v.ImageSize > 1<<14 {
			o.fail("vision_config", "implausible vision tower %+v", *v)
		}
	}
}

// String names the architecture in one line.
func (a *Arch) String() string {
	kind := "dense"
	if a.Experts > 0 {
		kind = fmt.Sprintf("MoE %d experts top-%d", a.Experts, a.ExpertsPerToken)
	}
	attn := fmt.Sprintf("GQA %d/%d heads x %d", a.Heads, a.KVHeads, a.HeadDim)
	if a.MLA {
		attn = fmt.Sprintf("MLA latent %d+%d", a.KVLoraRank, a.QKRopeHeadDim)
	}
	return fmt.Sprintf("%s: %d layers, hidden %d, %s, %s", a.ModelType, a.NumLayers, a.Hidden, attn, kind)
}
