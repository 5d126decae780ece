package model

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/model/safetensors"
)

// Checkpoint is a model's safetensors checkpoint as its headers describe
// it: the name, dtype and shape of every tensor, never the data.
type Checkpoint struct {
	// Name says which checkpoint it is in messages: "4 shards, 291 tensors".
	Name    string
	Tensors []safetensors.Tensor

	// placed is Tensors as an Arch's family rules read them, by the
	// fields of the Arch they depend on (classifyKey): computed once for
	// the Arch attached and for each copy of it that differs.
	mu     sync.Mutex
	placed map[string][]placed
}

// classifyKey is what the reading of a checkpoint depends on in a.
func classifyKey(a *Arch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s/%d/%v/%d/%d/%s/%v", a.ModelType, len(a.Layers), a.TiedEmbeddings, a.KVHeads, a.Heads, a.Quant.Method, a.Quant.DescAct)
	if a.Vision != nil {
		fmt.Fprintf(&b, "/v%d", a.Vision.Layers)
	}
	for i, l := range a.Layers {
		if l.KVHeads > 0 {
			fmt.Fprintf(&b, "/%d", l.KVHeads)
		}
		if l.SharesTopK {
			fmt.Fprintf(&b, "/s%d", i)
		}
	}
	return b.String()
}

// read returns the tensors as a's rules read them.
func (c *Checkpoint) read(a *Arch) ([]placed, CheckpointNotes, error) {
	key := classifyKey(a)
	c.mu.Lock()
	defer c.mu.Unlock()
	if ps, ok := c.placed[key]; ok {
		return ps, CheckpointNotes{}, nil
	}
	ps, notes, err := classify(a, c.Tensors)
	if err != nil {
		return nil, notes, err
	}
	if c.placed == nil {
		c.placed = map[string][]placed{}
	}
	c.placed[key] = ps
	return ps, notes, nil
}

// CheckpointNotes says what a family's rules made of a checkpoint.
type CheckpointNotes struct {
	// Counted is how many tensors some rank holds.
	Counted int
	// Skipped are the tensors vLLM does not load, by reason, in the order
	// the reasons first occur.
	Skipped []SkippedTensors
	// Unknown names the tensors that no rule of the family names, in
	// checkpoint order. Each is counted whole on every rank of its stage
	// (the first, outside the decoder layers), as a replicated tensor.
	Unknown []string
}

// SkippedTensors is how many tensors of a checkpoint vLLM does not load for
// one reason.
type SkippedTensors struct {
	Reason string
	Count  int
}

// ErrNoCheckpointRules is wrapped by AttachCheckpoint's error for a
// model_type whose checkpoint names the model does not know.
var ErrNoCheckpointRules = errors.New("no checkpoint rules for this model_type")

// AttachCheckpoint reads c's tensors by the rules of a's family and
// attaches c to a, so that RankWeights counts them. It fails, attaching
// nothing, when the family has no rules (ErrNoCheckpointRules) or when no
// tensor of c is named as the family names its tensors.
func AttachCheckpoint(a *Arch, c *Checkpoint) (CheckpointNotes, error) {
	if c == nil {
		return CheckpointNotes{}, errors.New("model: AttachCheckpoint of a nil checkpoint")
	}
	ps, notes, err := classify(a, c.Tensors)
	if err != nil {
		return notes, err
	}
	c.mu.Lock()
	c.placed = map[string][]placed{classifyKey(a): ps}
	c.mu.Unlock()
	a.Checkpoint = c
	return notes, nil
}

// CheckpointModelTypes lists the model_type values whose checkpoints the
// model reads, sorted.
func CheckpointModelTypes() []string {
	var names []string
	for k := range checkpointFamilies {
		if k == GenericModelType {
			continue
		}
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// UsesCheckpoint reports whether RankWeights counts a's attached
// checkpoint under sh; when it does not, why says so.
func UsesCheckpoint(a *Arch, sh Sharding) (ok bool, why string) {
	switch {
	case a.Checkpoint == nil:
		return false, "no checkpoint"
	case a.Pooler != nil:
		// Nor the pooling head that replaces it (score.*, v_head).
		return false, "the pooling runner builds " + a.Pooler.Kind.String() + " in place of the LM head, which the checkpoint's rules do not count"
	case sh.NoHead:
		// The rules count the checkpoint's lm_head, which the pooling
		// adapter does not build.
		return false, "the pooling runner builds no LM head, whose tensors the checkpoint's rules count"
	case sh.Quant.Method != a.Quant.Method:
		// vLLM quantizes (or refuses) when it loads: the stored tensors
		// are not what the GPU holds.
		return false, fmt.Sprintf("served %s, the checkpoint is %s: vLLM converts it when it loads", quantName(sh.Quant), quantName(a.Quant))
	case a.Quant.Method == "inc":
		// The checkpoint's rules name AutoGPTQ's tensors by the gptq
		// method (checkpoint.go's g_idx and act-order cases); AutoRound's
		// per-layer settings are the config-derived layout's.
		return false, "an AutoRound (inc) checkpoint's stored tensors are not read: its config's per-layer settings size it"
	}
	if _, ok := checkpointFamilyOf(a); !ok {
		return false, fmt.Sprintf("%v %q", ErrNoCheckpointRules, a.ModelType)
	}
	if nvfp4ExpertsRounded(a, sh) {
		// nvfp4Padding swizzles stored scales but does not resize the
		// stored experts: the config-derived layout does.
		return false, "the engine's NVFP4 MoE kernel pads the W4A4 experts' hidden or intermediate size beyond the stored tensors (NVFP4Kernel)"
	}
	return true, ""
}

// nvfp4ExpertsRounded reports W4A4 NVFP4 experts whose hidden or rank's
// intermediate size sh.NVFP4's rounding (FlashInfer TRTLLM's) changes.
func nvfp4ExpertsRounded(a *Arch, sh Sharding) bool {
	k := sh.NVFP4
	if k.ExpertHiddenMultiple <= 1 && k.ExpertGatedMultiple <= 1 && k.ExpertUngatedMultiple <= 1 {
		return false
	}
	rows, gated, ok := NVFP4ExpertRows(a, sh)
	if !ok {
		return false
	}
	inter := rows
	if gated {
		inter = rows / 2
	}
	// The experts' hidden size is the latent width where the model has one
	// (MoEHidden), as the config-derived layout rounds it.
	h, i := k.expertSizes(a.MoEHidden(), inter, gated)
	return h != a.MoEHidden() || i != inter
}

func quantName(q Quant) string {
	if q.Method == "" {
		return "unquantized"
	}
	return q.Method
}

// RankWeights lists every weight tensor and buffer one rank holds under
// sh: from the attached checkpoint's tensors when UsesCheckpoint says so,
// else derived from config.json by Weights.
func RankWeights(a *Arch, sh Sharding) []budget.Item {
	if ok, _ := UsesCheckpoint(a, sh); !ok {
		return Weights(a, sh)
	}
	return CheckpointWeights(a, sh)
}

// CheckpointWeights lists what one rank holds of a's attached checkpoint
// under sh, one item per vLLM parameter (the checkpoint's q_proj, k_proj
// and v_proj make one qkv_proj; every expert's gate_proj and up_proj one
// w13), with the buffers vLLM builds that no checkpoint holds (the rotary
// tables, Llama 4's weightless qk norms). Float tensors are counted in the
// served dtype (AWQ's and GPTQ's scales too) or in float32 where vLLM keeps
// them so, quantized tensors and fp32 scales as stored, GPTQ's act-order
// layout as vLLM loads it, MXFP4 experts rounded as the kernel asks
// (Sharding.MXFP4), W4A4 NVFP4 scales and weights padded as Sharding.NVFP4
// says (nvfp4Padding). It lists the buffers alone when no checkpoint is
// attached.
func CheckpointWeights(a *Arch, sh Sharding) []budget.Item {
	var ps []placed
	if c := a.Checkpoint; c != nil {
		ps, _, _ = c.read(a) // an error leaves no tensors: UsesCheckpoint has checked the family
	}
	var items []budget.Item
	at := map[string]int{}
	add := func(name string, bytes uint64) {
		if i, ok := at[name]; ok {
			items[i].Bytes = budget.SatAdd(items[i].Bytes, bytes)
			return
		}
		at[name] = len(items)
		items = append(items, budget.Item{Name: name, Term: budget.TermWeights, Bytes: bytes})
	}
	for i := range ps {
		p := &ps[i]
		on := p.onRank(a, sh)
		if on {
			add(p.item, p.bytes(a, sh))
		}
		// A tied head shares the embedding's tensor, unless the embedding
		// is on another stage: then the last stage loads its own copy of
		// it (vllm/model_executor/models/llama.py, LlamaForCausalLM).
		if p.rule.tiedHead && a.TiedEmbeddings && sh.Last && !on {
			add("lm_head.weight", p.bytes(a, sh))
		}
	}
	for _, pad := range nvfp4Padding(a, sh, ps) {
		add(pad.Name, pad.Bytes)
	}
	return append(items, configBuffers(a, sh)...)
}

// nvfp4Padding is what the engine's NVFP4 kernels (sh.NVFP4) add to the
// checkpoint's W4A4 NVFP4 tensors on a rank, by vLLM parameter: block
// scales swizzled into whole 128 x 4 tiles and CUTLASS's linear weights
// padded to 32 rows and inputs (see [NVFP4Kernel]), taken over the fused
// parameter (q, k and v together; an expert's gate and up together) as
// vLLM pads it after loading. A W4A4 module is one with an activation
// scale (ModelOpt's input_scale, compressed-tensors' input_global_scale);
// W4A16 ones run on Marlin and keep their bytes. The TRTLLM rounding of
// the experts' sizes is not applied here: where it resizes them the
// weights are derived from config.json ([UsesCheckpoint]). Experts stored
// stacked are not padded.
func nvfp4Padding(a *Arch, sh Sharding, ps []placed) []budget.Item {
	k := sh.NVFP4
	if k == (NVFP4Kernel{}) {
		return nil
	}
	present := map[string]bool{}
	for i := range ps {
		if ps[i].onRank(a, sh) {
			present[ps[i].item] = true
		}
	}
	type key struct {
		item   string
		expert int
	}
	type group struct {
		rows, cols, bytes uint64
		scale             bool
	}
	groups := map[key]*group{}
	var order []key
	for i := range ps {
		p := &ps[i]
		if p.rule.stacked != nil || len(p.t.Shape) != 2 || !p.onRank(a, sh) {
			continue
		}
		expert := p.expert >= 0
		scale := p.t.Dtype == "F8_E4M3" && strings.HasSuffix(p.item, "weight_scale") &&
			(expert && k.ExpertSwizzle || !expert && k.LinearSwizzle)
		weight := p.t.Dtype == "U8" && strings.HasSuffix(p.item, "weight") && !expert && k.LinearWeightPad
		if !scale && !weight {
			continue
		}
		base := strings.TrimSuffix(strings.TrimSuffix(p.item, "weight_scale"), "weight")
		if !present[base+"input_scale"] && !present[base+"input_global_scale"] {
			continue
		}
		shape, copies := p.rankShape(a, sh)
		if copies == 0 || len(shape) != 2 {
			continue
		}
		kk := key{p.item, p.expert}
		g, ok := groups[kk]
		if !ok {
			g = &group{scale: scale}
			groups[kk] = g
			order = append(order, kk)
		}
		g.rows = budget.SatAdd(g.rows, budget.SatMul(shape[0], copies))
		g.cols = shape[1]
		g.bytes = budget.SatAdd(g.bytes, p.shapeBytes(sh, shape, copies))
	}
	var out []budget.Item
	for _, kk := range order {
		g := groups[kk]
		padded := swizzled(g.rows, g.cols)
		if !g.scale {
			// [n, k/2] packed: n to 32 rows, k to 32 inputs.
			padded = budget.SatMul(budget.RoundUp(g.rows, 32), budget.RoundUp(budget.SatMul(g.cols, 2), 32)/2)
		}
		if padded > g.bytes {
			out = append(out, budget.Item{Name: kk.item, Term: budget.TermWeights, Bytes: padded - g.bytes})
		}
	}
	return out
}

// configBuffers are the items of Weights that no checkpoint holds, built
// when the model is: vLLM's rotary cos/sin tables, the ones tensors of the
// weightless RMSNorms (Llama 4's qk norm: llama4.py:213-221; Gemma 4's
// v_norm and router norm: gemma4.py:436, 279) and Gemma 4's router
// root_size buffer (gemma4.py:283-287), CLIP's position_ids buffer
// (clip.py:333-337), MoonViT's time_weight (kimi_k25_vit.py:145-151),
// Falcon-H1's mup_vector (falcon_h1.py:162-196), Falcon
// Mamba's weightless dt, B and C norms' ones (mamba.py:60-74), and the bias
// of a tied head, which
// vLLM builds and does not load (Arcee's lm_head_bias: arcee.py:311-320,
// 361). A buffer Weights gains must be named here too.
func configBuffers(a *Arch, sh Sharding) []budget.Item {
	var out []budget.Item
	for _, it := range Weights(a, sh) {
		if strings.HasPrefix(it.Name, "rotary_emb.") || hasAnySuffix(it.Name, ".qk_norm.weight", ".v_norm.weight", ".router.norm.weight", ".router.root_size", ".embeddings.position_ids", ".mup_vector", ".pos_emb.time_weight") ||
			it.Name == "lm_head.bias" && a.TiedEmbeddings ||
			a.tree.mamba1OnesNorms && hasAnySuffix(it.Name, ".dt_layernorm.weight", ".b_layernorm.weight", ".c_layernorm.weight") {
			out = append(out, it)
		}
	}
	return out
}

// hasAnySuffix reports whether s ends in one of suffixes.
func hasAnySuffix(s string, suffixes ...string) bool {
	return slices.ContainsFunc(suffixes, func(x string) bool { return strings.HasSuffix(s, x) })
}

// headRows says how a column split divides a tensor's output rows.
type headRows int

const (
	evenRows headRows = iota // divided evenly among the ranks
	// kvRows are KV heads: divided, or one per rank when there are fewer
	// heads than ranks (vLLM's QKVParallelLinear).
	kvRows
	// qkvRows are q, k and v heads fused in the checkpoint (Phi-3's
	// qkv_proj): q heads divided, KV heads as kvRows.
	qkvRows
	// mambaRows are a Mamba2 mixer's in_proj or conv1d rows: divided
	// after vLLM repeats n_groups up to the ranks when they do not divide
	// (vllm/model_executor/layers/mamba/mamba_mixer2.py:292-420,
	// mamba_v2_sharded_weight_loader), as Weights pads them.
	mambaRows
)

// expertKind says whether a tensor belongs to the routed experts, which
// expert parallelism divides whole.
type expertKind int

const (
	notExpert expertKind = iota
	// oneExpert is one expert's tensor, its index the module's "*".
	oneExpert
	// stackedExperts holds every expert along dimension 0 (Llama 4's,
	// gpt-oss's, Gemma 4's and Qwen3.5-MoE's checkpoints); its rule's
	// stacked says where the intermediate and hidden sizes are.
	stackedExperts
)

// stage says which pipeline stage holds a tensor outside the decoder
// layers.
type stage int

const (
	inLayer    stage = iota // the stage holding its decoder layer
	firstStage              // the embedding, vision towers, projectors
	lastStage               // the final norm and the LM head
	// visionTower is the first stage's vision tower and projector, which
	// the engine may not build (Sharding.TowersOff has ImageInput).
	visionTower
	// allStages is built on every stage: the families whose model does
	// not replace the embedding, final norm or head with PPMissingLayer
	// off their stage (gpt_oss.py, opt.py, phi.py, olmo3.py, ...).
	allStages
)

// moduleRule says how vLLM holds the tensors of one checkpoint module on a
// rank.
type moduleRule struct {
	// module is the checkpoint's module path, dot-separated, relative to
	// model.layers.N. in a family's layer rules and absolute in its top
	// rules; "*" stands for an index (an expert's, or a vision layer's).
	// A tensor matches the rule with the longest module that is a prefix
	// of its name; the rest of the name is the parameter (weight, bias,
	// qweight, weight_scale_inv, ...), whose layout paramDims gives.
	module string
	// vllm is the vLLM parameter the tensor loads into, in the same form,
	// when it is not module itself (see vllmName); a "*" in it is replaced
	// by the module's index, and an expert's index is dropped: q_proj,
	// k_proj and v_proj load into self_attn.qkv_proj, experts.*.gate_proj
	// into experts.w13.
	vllm string
	// paramPrefix is put before the parameter's name in the vLLM
	// parameter: FusedMoE names its experts' w13_weight, w2_qweight, ...
	paramPrefix string
	// fuseWith is the module (relative like module) vLLM fuses this one
	// after, when the checkpoint has it: the tensor then loads into
	// fusedVLLM as a follower (DeepSeek's kv_a_proj_with_mqa into
	// fused_qkv_a_proj beside q_a_proj).
	fuseWith, fusedVLLM string
	split               split
	heads               headRows
	// vocab pads the output rows to a multiple of 64 before dividing them
	// (VocabParallelEmbedding, ParallelLMHead).
	vocab  bool
	expert expertKind
	// follower is a later shard of a module vLLM fuses (k_proj, v_proj,
	// up_proj): its per-module parameters (a per-tensor scale, g_idx) are
	// the fused module's one, counted on the first shard.
	follower bool
	// fp32 is kept in float32 whatever the checkpoint stores
	// (e_score_correction_bias: vllm/model_executor/models/deepseek_v2.py).
	fp32 bool
	// fp32NoRouterGEMM is kept in float32 unless the device runs vLLM's
	// specialized router GEMMs (Sharding.RouterGEMM): GateLinear's
	// force_fp32_compute (layers/fused_moe/router/gate_linear.py:59-68).
	fp32NoRouterGEMM bool
	// bf16 is kept in bfloat16 whatever the model dtype (vLLM's XIELU
	// builds its parameters and buffers so: layers/activation.py:681-702).
	bf16 bool
	// dequant is loaded into the model dtype whatever the checkpoint
	// stores, its scales consumed at load (DeepSeek V3.2's fp8 indexer wk,
	// upcast into the unquantized wk_weights_proj: deepseek_v2.py:811-860).
	dequant bool
	// twiceWithout is a sibling module (relative like module) whose
	// absence makes vLLM load this tensor twice: Gemma 4's k_eq_v layers
	// have no v_proj and load k_proj into both the K and V slots of
	// qkv_proj (gemma4.py:1682-1691).
	twiceWithout string
	// wholeUnderPackedInt is replicated, not divided, when the checkpoint
	// is AWQ or GPTQ: Qwen3.5's in_proj_ba, whose Marlin kernel needs 64
	// outputs per rank (layers/mamba/gdn/qwen_gdn_linear_attn.py:519-559,
	// maybe_disable_tp, on CUDA).
	wholeUnderPackedInt bool
	// towerLayer marks a vision layer, its index the module's "*": vLLM
	// builds Arch.Vision.Layers of them and drops the rest (Pixtral's
	// layers past vision_feature_layer).
	towerLayer bool
	// dividedWhole is a tower module still divided among the TP ranks
	// where the tower is whole (Sharding.TowerWhole): Llama 4's projector,
	// a ColumnParallelLinear built without disable_tp (mllama4.py:172-179
	// at d18bb7b).
	dividedWhole bool
	// place is the stage of a top rule's tensors.
	place stage
	// tiedHead marks the embedding, which a tied model's last stage copies.
	tiedHead bool
	// stacked lays out a tensor holding every expert (expert
	// stackedExperts).
	stacked *stackedLayout

	parts []string
}

// vllmName is the vLLM parameter r's tensors load into: vllm, or the
// checkpoint's own module name.
func (r *moduleRule) vllmName() string {
	if r.vllm == "" {
		return r.module
	}
	return r.vllm
}

// stackedLayout is where a tensor of every expert keeps the experts'
// intermediate and hidden sizes: dimension 0 holds the experts, inter the
// intermediate (shards of it: 2 for gate and up), hidden the hidden size;
// a unit is how many features one index of its dimension stands for (32
// for MXFP4's blocks and scales, whose last dimension packs a block).
type stackedLayout struct {
	inter, hidden         int // -1 when the tensor has none
	interUnit, hiddenUnit uint64
	shards                uint64
	// bias is an expert bias, which the MXFP4 kernels may keep in float32
	// (Sharding.MXFP4.BiasFloat32).
	bias bool
}

// unknownRule holds a tensor no rule names: whole on every rank of its
// layer's stage, or of the first stage.
var unknownRule = &moduleRule{split: replicated, place: firstStage}

// dims is where a parameter keeps its output and input features.
type dims struct {
	out, in int // dimensions; -1 when there is none
	// flat is bitsandbytes' storage: out x in packed into dimension 0, so
	// any split divides dimension 0.
	flat bool
	// perModule is one per module (a per-tensor scale, g_idx): a fused
	// module keeps one.
	perModule bool
	// aux is a quantization's packed weight, fp32 scale, zero point or
	// index: counted as stored, never converted to the served dtype.
	aux bool
	// modelDtype is a tensor vLLM allocates in the model dtype whatever
	// the checkpoint stores it in: compressed-tensors' expert
	// weight_shape, which CompressedTensorsWNA16MoEMethod.create_weights
	// builds as torch.empty(num_experts, 2) under the model's default
	// dtype (compressed_tensors_moe_wna16.py:389-398 at d18bb7b), while
	// the published Kimi-K2.5 checkpoint stores each expert's as int32.
	modelDtype bool
}

var (
	outIn  = dims{out: 0, in: 1}
	inOut  = dims{out: 1, in: 0}
	scalar = dims{out: -1, in: -1, perModule: true, aux: true}
)

// paramDims is the layout of parameter param of a linear module, from the
// quantization formats that store it:
//
//   - weight, bias [out, in]; fp8 weight_scale_inv [out/bn, in/bk] and a
//     per-channel weight_scale [out, 1] (vllm/model_executor/layers/quantization/fp8.py);
//   - AWQ and GPTQ qweight, qzeros, scales [in..., out...] and g_idx [in]
//     (auto_awq.py, auto_gptq.py), scales in the model dtype;
//   - compressed-tensors weight_packed, weight_zero_point [out, ...];
//   - bitsandbytes 4-bit weight uint8 [out*in/2, 1] and its absmax, flat;
//   - per-tensor scales (one element), one per module.
func paramDims(param string, t *safetensors.Tensor) dims {
	elems := uint64(1)
	for _, d := range t.Shape {
		elems = budget.SatMul(elems, d)
	}
	switch {
	case param == "weight" && t.Dtype == "U8" && len(t.Shape) == 2 && t.Shape[1] == 1:
		return dims{out: 0, in: -1, flat: true, aux: true}
	case param == "weight", param == "weight_packed", param == "":
		return outIn
	case param == "bias", param == "SCB":
		return dims{out: 0, in: -1, aux: param == "SCB"}
	case param == "weight_scale_inv", param == "weight_zero_point":
		return dims{out: 0, in: 1, aux: true}
	case param == "weight_scale", param == "weight_scale_2", param == "input_scale",
		param == "input_global_scale", param == "weight_global_scale":
		if elems <= 1 {
			return scalar
		}
		// fp8's scales are float32 in vLLM whatever the checkpoint
		// stores; compressed-tensors WNA16's weight_scale [out, groups]
		// is in the model dtype, as AWQ's and GPTQ's scales are.
		return dims{out: 0, in: 1, aux: t.Dtype == "F32"}
	case param == "qweight", param == "qzeros":
		return dims{out: 1, in: 0, aux: true}
	case param == "scales":
		// AWQ and GPTQ scales [in/group, out] are created in the model
		// dtype (auto_awq.py, auto_gptq.py: params_dtype).
		return dims{out: 1, in: 0}
	case param == "g_idx", param == "weight_g_idx":
		return dims{out: -1, in: 0, perModule: true, aux: true}
	case param == "weight_shape":
		return scalar
	case param == "weight.absmax", param == "weight.nested_absmax":
		return dims{out: 0, in: -1, flat: true, aux: true}
	case strings.HasPrefix(param, "weight.quant_map"), strings.HasPrefix(param, "weight.nested_quant_map"),
		strings.HasPrefix(param, "weight.quant_state"):
		return dims{out: -1, in: -1, aux: true}
	}
	return outIn
}

// placed is one checkpoint tensor as its family's rules read it.
type placed struct {
	t      *safetensors.Tensor
	item   string // the vLLM parameter it loads into
	rule   *moduleRule
	dims   dims
	layer  int    // -1 outside the decoder layers
	expert int    // -1 when not one expert's
	kv     uint64 // the layer's KV heads
	// copies is how many tensors of its size vLLM keeps: 2 for a GPTQ
	// expert's g_idx under act-order, which gains its sort indices.
	copies uint64
	// whole keeps the input features whole on a row-parallel layer:
	// GPTQ's scales and zeros under act-order, repeated on every rank.
	whole bool
}

func (p *placed) onRank(a *Arch, sh Sharding) bool {
	if p.layer >= 0 {
		return p.layer >= sh.FirstLayer && p.layer < sh.EndLayer
	}
	switch p.rule.place {
	case firstStage:
		return sh.First
	case visionTower:
		return sh.First && sh.TowersOff&ImageInput == 0
	case lastStage:
		return sh.Last
	}
	return true
}

// bytes is what one rank holds of the tensor under sh.
func (p *placed) bytes(a *Arch, sh Sharding) uint64 {
	if p.rule.stacked != nil {
		return p.stackedBytes(a, sh)
	}
	shape, copies := p.rankShape(a, sh)
	if copies == 0 {
		return 0
	}
	return p.shapeBytes(sh, shape, copies)
}

// rankShape is the shape one rank holds of a tensor that is not stacked,
// and how many copies of it (0 when the rank holds none).
func (p *placed) rankShape(a *Arch, sh Sharding) ([]uint64, uint64) {
	r, d := p.rule, p.dims
	shape := slices.Clone(p.t.Shape)
	tp := max(sh.TP, 1)
	if sh.TowerWhole && r.place == visionTower && !r.dividedWhole {
		// --mm-encoder-tp-mode data: the tower whole on every rank.
		tp = 1
	}
	at := func(dim int) bool { return dim >= 0 && dim < len(shape) }
	whole := false
	// held is how many copies of the tensor rank 0 holds: one, or for an
	// expert's own tensor the physical experts that copy it.
	held := uint64(1)
	if sh.ExpertRanks > 1 {
		// Expert parallelism: each rank holds its share of the experts
		// whole; the first ranks one more when they do not divide (vLLM's
		// determine_expert_map): rank 0's share is counted.
		switch r.expert {
		case oneExpert:
			if a.Experts > 0 {
				held = rankZeroCopies(a.Experts, budget.CeilDiv(budget.SatAdd(a.Experts, sh.RedundantExperts), sh.ExpertRanks), uint64(p.expert))
				if held == 0 {
					return nil, 0
				}
			}
			whole = true
		case stackedExperts:
			if len(shape) > 0 {
				shape[0] = budget.CeilDiv(budget.SatAdd(shape[0], sh.RedundantExperts), sh.ExpertRanks)
			}
			whole = true
		}
	}
	if r.wholeUnderPackedInt && a.Quant.marlinPackedInt() {
		whole = true
	}
	switch {
	case whole:
	case r.vocab && !d.aux && at(d.out):
		shape[d.out] = budget.CeilDiv(budget.RoundUp(shape[d.out], vocabPadding), tp)
	case tp == 1 || r.split == replicated:
	case d.flat:
		shape[0] = budget.CeilDiv(shape[0], tp)
	case r.split == column && at(d.out):
		shape[d.out] = p.rows(a, shape[d.out], tp)
	case r.split == row && at(d.in) && !p.whole:
		shape[d.in] = budget.CeilDiv(shape[d.in], tp)
	}
	return shape, budget.SatMul(max(p.copies, 1), held)
}

// shapeBytes is what copies of shape take as the rank holds the tensor.
func (p *placed) shapeBytes(sh Sharding, shape []uint64, copies uint64) uint64 {
	r, d := p.rule, p.dims
	elems := copies
	for _, x := range shape {
		elems = budget.SatMul(elems, x)
	}
	switch bits, float := storedBits(p.t.Dtype); {
	case r.fp32, r.fp32NoRouterGEMM && !sh.RouterGEMM:
		return budget.SatMul(elems, 4)
	case r.bf16:
		return budget.SatMul(elems, 2)
	case (float || r.dequant) && !d.aux && sh.DtypeBytes > 0, d.modelDtype && sh.DtypeBytes > 0:
		return budget.SatMul(elems, sh.DtypeBytes)
	default:
		return budget.CeilDiv(budget.SatMul(elems, bits), 8)
	}
}

// stackedBytes is what one rank holds of a tensor of every expert: its
// share of the experts whole under expert parallelism, else every expert
// with its intermediate divided; the MXFP4 kernels round the intermediate
// and the hidden size up as Weights does (Sharding.MXFP4).
func (p *placed) stackedBytes(a *Arch, sh Sharding) uint64 {
	s := p.rule.stacked
	shape := slices.Clone(p.t.Shape)
	at := func(dim int) bool { return dim > 0 && dim < len(shape) }
	ep := sh.ExpertRanks > 1
	if ep && len(shape) > 0 {
		shape[0] = budget.CeilDiv(budget.SatAdd(shape[0], sh.RedundantExperts), sh.ExpertRanks)
	}
	var k MXFP4Kernel
	if a.Quant.Method == "mxfp4" {
		k = sh.MXFP4
	}
	if at(s.inter) {
		unit, shards := max(s.interUnit, 1), max(s.shards, 1)
		i := budget.SatMul(shape[s.inter], unit) / shards
		if !ep {
			i = budget.CeilDiv(i, max(sh.TP, 1))
		}
		shape[s.inter] = budget.SatMul(k.Intermediate(i), shards) / unit
	}
	if at(s.hidden) && k.HiddenMultiple > 1 {
		unit := max(s.hiddenUnit, 1)
		shape[s.hidden] = k.Hidden(budget.SatMul(shape[s.hidden], unit)) / unit
	}
	if (k.HopperLayout || k.KeepsScales) && !s.bias && at(s.inter) && at(s.hidden) && (s.inter == 1 || s.hidden == 1) {
		return kernelStackedBytes(k, *s, shape)
	}
	elems := uint64(1)
	for _, x := range shape {
		elems = budget.SatMul(elems, x)
	}
	switch bits, float := storedBits(p.t.Dtype); {
	case float && s.bias && k.BiasFloat32:
		return budget.SatMul(elems, 4)
	case float && sh.DtypeBytes > 0:
		return budget.SatMul(elems, sh.DtypeBytes)
	default:
		return budget.CeilDiv(budget.SatMul(elems, bits), 8)
	}
}

// kernelStackedBytes is what an MXFP4 tensor of every expert takes as
// kernel k lays it out (see [MXFP4Kernel.MatrixBytes]): dimension 1 holds
// each expert's output features, the other of inter and hidden its
// reduction features in units of a block; the blocks tensor has a fourth
// dimension (the 16 bytes of a block), the scales tensor none.
func kernelStackedBytes(k MXFP4Kernel, s stackedLayout, shape []uint64) uint64 {
	red, unit := s.hidden, s.hiddenUnit
	if s.hidden == 1 {
		red, unit = s.inter, s.interUnit
	}
	values, scales := k.MatrixBytes(shape[1], budget.SatMul(shape[red], max(unit, 1)))
	if len(shape) > 3 {
		return budget.SatMul(shape[0], values)
	}
	return budget.SatMul(shape[0], scales)
}

// rows is what one of tp ranks holds of n output rows.
func (p *placed) rows(a *Arch, n, tp uint64) uint64 {
	switch p.rule.heads {
	case kvRows:
		if p.kv == 0 {
			break
		}
		return budget.CeilDiv(budget.SatMul(n, max(1, p.kv/tp)), p.kv)
	case qkvRows:
		if den := a.Heads + 2*p.kv; den > 0 {
			return budget.CeilDiv(budget.SatMul(n, a.Heads/tp+2*max(1, p.kv/tp)), den)
		}
	case mambaRows:
		// B and C hold n_groups x ssm_state_size rows each; groups that
		// do not divide among the ranks are repeated up to them.
		if m := a.Mamba; m != nil && m.NGroups%tp != 0 {
			extra := budget.SatMul(2*(budget.RoundUp(m.NGroups, tp)-m.NGroups), m.StateSize)
			return budget.CeilDiv(budget.SatAdd(n, extra), tp)
		}
	}
	return budget.CeilDiv(n, tp)
}

// storedBits is a safetensors dtype's width and whether it is a float
// type vLLM loads into the served dtype.
func storedBits(dtype string) (bits uint64, float bool) {
	bits, _ = safetensors.DtypeBits(dtype)
	switch dtype {
	case "F16", "BF16", "F32", "F64":
		return bits, true
	}
	return bits, false
}

// The reasons vLLM does not load a checkpoint tensor
// (vllm/model_executor/models/utils.py AutoWeightsLoader, and each
// model's load_weights).
const (
	skipRotary   = "rotary inv_freq and cos/sin caches, which vLLM recomputes"
	skipTiedHead = "lm_head, tied to the embedding"
	skipMTP      = "multi-token-prediction layers beyond num_hidden_layers, loaded only for speculative decoding"
	skipFused    = "per-module scales and g_idx of a fused module's later shards, which vLLM keeps one of"
	skipGIdx     = "GPTQ experts' g_idx, which vLLM drops without act-order"
	skipDequant  = "scales of an fp8 tensor vLLM upcasts to the model dtype when it loads"
	// skipTowerLayer: mistral3.py:314-330 builds the layers up to
	// vision_feature_layer; pixtral.py:1466-1484 drops the checkpoint's
	// others.
	skipTowerLayer = "vision layers past vision_feature_layer, which vLLM does not build"
	skipMTPModule  = "multi-token-prediction modules (mtp.*), loaded only for speculative decoding"
	skipTowers     = "vision and audio towers, which a text-only model does not load"
	// skipVestigial: gemma4_mm.py:2154-2162 ignores Gemma 3n's embedding
	// tables left in Gemma 4 checkpoints.
	skipVestigial = "embed_vision.embedding and embed_audio.embedding, which Gemma 4 does not use"
	// skipSharedTopK: deepseek_v2.py:1566-1583 drops the indexer weights
	// of the layers that build no indexer (Layer.SharesTopK).
	skipSharedTopK = "indexer weights of layers that reuse an earlier layer's top-k (IndexCache), which build no indexer"
)

// rotaryUnused are the names AutoWeightsLoader skips in every model
// (ROTARY_EMBEDS_UNUSED_WEIGHTS, vllm/model_executor/models/utils.py).
var rotaryUnused = []string{"rotary_pos_emb.inv_freq", "rotary_emb.inv_freq", "rotary_emb.cos_cached", "rotary_emb.sin_cached"}

// classify reads every tensor by the rules of a's family.
func classify(a *Arch, tensors []safetensors.Tensor) ([]placed, CheckpointNotes, error) {
	var notes CheckpointNotes
	fam, ok := checkpointFamilyOf(a)
	if !ok {
		return nil, notes, fmt.Errorf("%w %q (known: %s)", ErrNoCheckpointRules, a.ModelType, strings.Join(CheckpointModelTypes(), ", "))
	}
	skipped := map[string]int{}
	skip := func(reason string) {
		if skipped[reason] == 0 {
			notes.Skipped = append(notes.Skipped, SkippedTensors{Reason: reason})
		}
		skipped[reason]++
	}
	// modules are the checkpoint's module paths (every proper prefix of a
	// name), for fuseWith.
	modules := map[string]bool{}
	for i := range tensors {
		name := fam.canonical(tensors[i].Name)
		for j := strings.LastIndexByte(name, '.'); j > 0; j = strings.LastIndexByte(name[:j], '.') {
			if modules[name[:j]] {
				break
			}
			modules[name[:j]] = true
		}
	}
	out := make([]placed, 0, len(tensors))
	for i := range tensors {
		t := &tensors[i]
		name := fam.canonical(t.Name)
		if reason := fam.skipped(a, name); reason != "" {
			skip(reason)
			continue
		}
		p := placed{t: t, layer: -1, expert: -1, kv: a.KVHeads}
		parts := strings.Split(name, ".")
		rules, prefix := fam.top, ""
		if n, ok := layerIndex(parts); ok {
			if n >= len(a.Layers) {
				skip(skipMTP)
				continue
			}
			p.layer = n
			if l := a.Layers[n]; l.KVHeads > 0 {
				p.kv = l.KVHeads
			}
			if a.Layers[n].SharesTopK && strings.Contains(name, ".indexer.") {
				skip(skipSharedTopK)
				continue
			}
			rules, prefix, parts = fam.layer, strings.Join(parts[:3], ".")+".", parts[3:]
		}
		rule, index, param := match(rules, parts)
		if rule == nil {
			p.rule, p.item, p.dims = unknownRule, name, outIn
			notes.Unknown = append(notes.Unknown, t.Name)
			out = append(out, p)
			continue
		}
		p.rule, p.dims = rule, paramDims(param, t)
		p.dims.modelDtype = param == "weight_shape" && rule.expert != notExpert
		vllmName, follower := rule.vllmName(), rule.follower
		if rule.fuseWith != "" && modules[prefix+rule.fuseWith] {
			vllmName, follower = rule.fusedVLLM, true
		}
		if follower && p.dims.perModule {
			skip(skipFused)
			continue
		}
		if rule.dequant && param != "weight" && param != "bias" && param != "" {
			skip(skipDequant)
			continue
		}
		if rule.towerLayer && a.Vision != nil && index >= 0 && uint64(index) >= a.Vision.Layers {
			skip(skipTowerLayer)
			continue
		}
		if rule.twiceWithout != "" && !modules[prefix+rule.twiceWithout] && !p.dims.perModule {
			p.copies = 2
		}
		if a.Quant.Method == "gptq" {
			// vllm/model_executor/layers/quantization/auto_gptq.py: under
			// act-order the scales and zeros of a row-parallel layer are
			// repeated on every rank (marlin_repeat_scales_on_all_ranks,
			// utils/marlin_utils.py:440-446); FusedMoE keeps an expert's
			// g_idx with its sort indices under act-order and drops it
			// otherwise (fused_moe/oracle/int_wna16.py:627-658).
			p.whole = a.Quant.DescAct && (param == "scales" || param == "qzeros")
			if param == "g_idx" && rule.expert != notExpert {
				if !a.Quant.DescAct {
					skip(skipGIdx)
					continue
				}
				p.copies = 2
			}
		}
		if index >= 0 {
			if rule.expert == oneExpert {
				p.expert = index
			} else {
				vllmName = strings.Replace(vllmName, "*", strconv.Itoa(index), 1)
			}
		}
		p.item = prefix + vllmName
		if param != "" {
			p.item += "." + rule.paramPrefix + param
		}
		out = append(out, p)
	}
	for i := range notes.Skipped {
		notes.Skipped[i].Count = skipped[notes.Skipped[i].Reason]
	}
	notes.Counted = len(out)
	// A generic decoder's tensors are named as its own family names them:
	// each counts whole on every rank, whatever its name.
	if len(tensors) > 0 && len(notes.Unknown) == len(out) && !a.Generic {
		return nil, notes, fmt.Errorf("none of the checkpoint's %d tensors is named as model_type %s names its tensors (the first: %q)", len(tensors), a.ModelType, tensors[0].Name)
	}
	return out, notes, nil
}

// layerIndex reads model.layers.N.<rest>; N must be written as Python
// writes an index.
func layerIndex(parts []string) (int, bool) {
	if len(parts) < 4 || parts[0] != "model" || parts[1] != "layers" {
		return 0, false
	}
	n, err := strconv.Atoi(parts[2])
	if err != nil || n < 0 || strconv.Itoa(n) != parts[2] {
		return 0, false
	}
	return n, true
}

// match finds the rule whose module is the longest prefix of parts; index
// is the module's "*" (-1 when none) and param the rest of the name.
func match(rules []*moduleRule, parts []string) (rule *moduleRule, index int, param string) {
	index = -1
	for _, r := range rules {
		if len(r.parts) > len(parts) || (rule != nil && len(r.parts) <= len(rule.parts)) {
			continue
		}
		idx, ok := -1, true
		for i, want := range r.parts {
			switch {
			case want == "*":
				n, err := strconv.Atoi(parts[i])
				if err != nil || n < 0 || strconv.Itoa(n) != parts[i] {
					ok = false
				}
				idx = n
			case want != parts[i]:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			rule, index = r, idx
		}
	}
	if rule == nil {
		return nil, -1, ""
	}
	return rule, index, strings.Join(parts[len(rule.parts):], ".")
}

// checkpointFamily is how one model_type's checkpoint names its tensors.
type checkpointFamily struct {
	// rename rewrites a name's prefix (from, to) to the form the rules use
	// (model.layers.N., model.embed_tokens, lm_head, vision_tower.), as
	// the model's hf_to_vllm_mapper does; the first that applies wins.
	rename [][2]string
	// skip drops the tensors under a prefix, with the reason: what vLLM
	// never loads beyond the rotary tables, a tied head and the layers
	// past num_hidden_layers, which every family skips.
	skip [][2]string
	// skipWithin drops the tensors whose name holds a substring, with the
	// reason: buffers an old checkpoint saved inside every layer, which
	// the model's load_weights skips by substring (GPT-NeoX's
	// attention.bias and attention.masked_bias: gpt_neox.py:264-267).
	skipWithin [][2]string
	// layer rules name the modules of a decoder layer; top rules the
	// others.
	layer, top []*moduleRule
}

func (f checkpointFamily) canonical(name string) string {
	for _, r := range f.rename {
		if rest, ok := strings.CutPrefix(name, r[0]); ok {
			return r[1] + rest
		}
	}
	return name
}

func (f checkpointFamily) skipped(a *Arch, name string) string {
	for _, s := range rotaryUnused {
		if strings.Contains(name, s) {
			return skipRotary
		}
	}
	if a.TiedEmbeddings && strings.HasPrefix(name, "lm_head.") {
		return skipTiedHead
	}
	for _, s := range f.skip {
		if strings.HasPrefix(name, s[0]) {
			return s[1]
		}
	}
	for _, s := range f.skipWithin {
		if strings.Contains(name, s[0]) {
			return s[1]
		}
	}
	return ""
}

// ckptFamily builds a family's rules from groups of rules, the decoder's top
// rules (embedding, final norm, head on the first and last stages)
// included after the family's own top rules, which a family that builds
// them elsewhere gives for the same modules (the first of two rules of the
// same module wins).
func ckptFamily(rename [][2]string, layer [][]moduleRule, top ...[]moduleRule) checkpointFamily {
	f := checkpointFamily{rename: rename}
	for _, g := range layer {
		for _, r := range g {
			r.parts = strings.Split(r.module, ".")
			f.layer = append(f.layer, &r)
		}
	}
	for _, g := range append(top, decoderTop) {
		for _, r := range g {
			r.parts = strings.Split(r.module, ".")
			f.top = append(f.top, &r)
		}
	}
	return f
}

// skipping returns f that also skips the tensors under each prefix (of
// the names after renaming), for its reason.
func (f checkpointFamily) skipping(prefixReasons ...[2]string) checkpointFamily {
	f.skip = append(slices.Clone(f.skip), prefixReasons...)
	return f
}

// rankZeroCopies is how many of rank 0's k physical experts are copies of
// routed expert e of n: vLLM places physical expert j on rank j / k and
// makes it a copy of expert j mod n (the routed experts, then the
// redundant ones round-robin: EplbState.build_initial_global_physical_
// to_logical_map, vllm/distributed/eplb/eplb_state.py:305-322 at main
// d18bb7b), so rank 0 holds experts 0..k-1 mod n.
func rankZeroCopies(n, k, e uint64) uint64 {
	if n == 0 || e >= n {
		return 0
	}
	c := k / n
	if e < k%n {
		c++
	}
	return c
}
