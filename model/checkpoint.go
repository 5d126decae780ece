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
	case sh.Quant.Method != a.Quant.Method:
		// vLLM quantizes (or refuses) when it loads: the stored tensors
		// are not what the GPU holds.
		return false, fmt.Sprintf("served %s, the checkpoint is %s: vLLM converts it when it loads", quantName(sh.Quant), quantName(a.Quant))
	}
	if _, ok := checkpointFamilies[a.ModelType]; !ok {
		return false, fmt.Sprintf("%v %q", ErrNoCheckpointRules, a.ModelType)
	}
	return true, ""
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
// (Sharding.MXFP4). It lists the buffers alone when no checkpoint is
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
	return append(items, configBuffers(a, sh)...)
}

// configBuffers are the items of Weights that no checkpoint holds, built
// when the model is: vLLM's rotary cos/sin tables, the ones tensors of the
// weightless RMSNorms (Llama 4's qk norm: llama4.py:213-221; Gemma 4's
// v_norm and router norm: gemma4.py:436, 279) and Gemma 4's router
// root_size buffer (gemma4.py:283-287). A buffer Weights gains must be
// named here too.
func configBuffers(a *Arch, sh Sharding) []budget.Item {
	var out []budget.Item
	for _, it := range Weights(a, sh) {
		if strings.HasPrefix(it.Name, "rotary_emb.") || hasAnySuffix(it.Name, ".qk_norm.weight", ".v_norm.weight", ".router.norm.weight", ".router.root_size") {
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
	case lastStage:
		return sh.Last
	}
	return true
}

// bytes is what one rank holds of the tensor under sh.
func (p *placed) bytes(a *Arch, sh Sharding) uint64 {
	r, d := p.rule, p.dims
	if r.stacked != nil {
		return p.stackedBytes(a, sh)
	}
	shape := slices.Clone(p.t.Shape)
	tp := max(sh.TP, 1)
	at := func(dim int) bool { return dim >= 0 && dim < len(shape) }
	whole := false
	if sh.ExpertRanks > 1 {
		// Expert parallelism: each rank holds its share of the experts
		// whole; the first ranks one more when they do not divide (vLLM's
		// determine_expert_map): rank 0's share is counted.
		switch r.expert {
		case oneExpert:
			if a.Experts > 0 && uint64(p.expert) >= budget.CeilDiv(a.Experts, sh.ExpertRanks) {
				return 0
			}
			whole = true
		case stackedExperts:
			if len(shape) > 0 {
				shape[0] = budget.CeilDiv(shape[0], sh.ExpertRanks)
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
	elems := max(p.copies, 1)
	for _, x := range shape {
		elems = budget.SatMul(elems, x)
	}
	switch bits, float := storedBits(p.t.Dtype); {
	case r.fp32, r.fp32NoRouterGEMM && !sh.RouterGEMM:
		return budget.SatMul(elems, 4)
	case (float || r.dequant) && !d.aux && sh.DtypeBytes > 0:
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
		shape[0] = budget.CeilDiv(shape[0], sh.ExpertRanks)
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
		if k.IntermediateMultiple > 1 {
			i = budget.RoundUp(i, k.IntermediateMultiple)
		}
		shape[s.inter] = budget.SatMul(i, shards) / unit
	}
	if at(s.hidden) && k.HiddenMultiple > 1 {
		unit := max(s.hiddenUnit, 1)
		shape[s.hidden] = budget.RoundUp(budget.SatMul(shape[s.hidden], unit), k.HiddenMultiple) / unit
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
	fam, ok := checkpointFamilies[a.ModelType]
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
	if len(tensors) > 0 && len(notes.Unknown) == len(out) {
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

// The module trees, as the transformers modeling files name them in a
// checkpoint and as vLLM shards them (vllm/model_executor/models/<family>.py
// and layers/linear.py at d18bb7b): column-parallel layers divide their
// output rows, row-parallel ones their input features (their bias is
// whole), replicated ones are whole on every rank.
var (
	decoderTop = decoderTopOn(firstStage, lastStage, lastStage)
	// gqaAttention: QKVParallelLinear over q_proj, k_proj, v_proj, and a
	// row-parallel o_proj.
	gqaAttention = attentionAt("self_attn")
	// fusedAttention: Phi-3's checkpoint stores q, k and v as one qkv_proj.
	fusedAttention = []moduleRule{
		{module: "self_attn.qkv_proj", split: column, heads: qkvRows},
		{module: "self_attn.o_proj", split: row},
	}
	qkNorms = []moduleRule{
		{module: "self_attn.q_norm"},
		{module: "self_attn.k_norm"},
	}
	// mlaAttention: DeepSeek's multi-head latent attention
	// (deepseek_v2.py DeepseekV2MLAAttention): the down-projections and
	// their norms whole, the up-projections column-parallel.
	// With a query latent, vLLM fuses q_a_proj and kv_a_proj_with_mqa into
	// one replicated fused_qkv_a_proj (deepseek_v2.py:901-916).
	mlaAttention = []moduleRule{
		{module: "self_attn.q_a_proj", vllm: "self_attn.fused_qkv_a_proj"},
		{module: "self_attn.q_a_layernorm"},
		{module: "self_attn.q_b_proj", split: column},
		{module: "self_attn.q_proj", split: column},
		{module: "self_attn.kv_a_proj_with_mqa", fuseWith: "self_attn.q_a_proj", fusedVLLM: "self_attn.fused_qkv_a_proj"},
		{module: "self_attn.kv_a_layernorm"},
		{module: "self_attn.kv_b_proj", split: column},
		{module: "self_attn.o_proj", split: row},
	}
	// gatedMLP: MergedColumnParallelLinear over gate_proj and up_proj, and
	// a row-parallel down_proj.
	gatedMLP = gatedMLPAt("mlp")
	// fusedMLP: Phi-3's checkpoint stores gate_up_proj fused.
	fusedMLP = []moduleRule{
		{module: "mlp.gate_up_proj", split: column},
		{module: "mlp.down_proj", split: row},
	}
	twoNorms = []moduleRule{
		{module: "input_layernorm"},
		{module: "post_attention_layernorm"},
	}
	// gemmaNorms: Gemma 2 and 3 norm before and after each block.
	gemmaNorms = []moduleRule{
		{module: "pre_feedforward_layernorm"},
		{module: "post_feedforward_layernorm"},
	}
	// routedExperts: Qwen3-MoE's and DeepSeek's experts.
	routedExperts = expertsAt("mlp", "gate_proj", "up_proj", "down_proj")
	// mixtralExperts: Mixtral's checkpoint names the experts' projections
	// w1 (gate), w3 (up), w2 (down) (vllm/model_executor/models/mixtral.py).
	mixtralExperts = expertsAt("block_sparse_moe", "w1", "w3", "w2")
	// deepseekMoE: DeepSeek's routed experts, its fp32 routing bias
	// (noaux_tc) and its shared experts, a dense MLP sharded as one.
	deepseekMoE = slices.Concat([]moduleRule{
		{module: "mlp.gate.e_score_correction_bias", fp32: true},
	}, routedExperts, gatedMLPAt("mlp.shared_experts"))
	// siglipTower: Gemma 3's SigLIP vision tower and projector, on the
	// first stage (vllm/model_executor/models/siglip.py, gemma3_mm.py).
	siglipTower = onFirstStage(under("vision_tower.vision_model.", []moduleRule{
		{module: "embeddings.patch_embedding"},
		{module: "embeddings.position_embedding"},
		{module: "encoder.layers.*.self_attn.q_proj", vllm: "encoder.layers.*.self_attn.qkv_proj", split: column},
		{module: "encoder.layers.*.self_attn.k_proj", vllm: "encoder.layers.*.self_attn.qkv_proj", split: column, follower: true},
		{module: "encoder.layers.*.self_attn.v_proj", vllm: "encoder.layers.*.self_attn.qkv_proj", split: column, follower: true},
		{module: "encoder.layers.*.self_attn.out_proj", split: row},
		{module: "encoder.layers.*.mlp.fc1", split: column},
		{module: "encoder.layers.*.mlp.fc2", split: row},
		{module: "encoder.layers.*.layer_norm1"},
		{module: "encoder.layers.*.layer_norm2"},
		{module: "post_layernorm"},
	}), []moduleRule{
		{module: "multi_modal_projector.mm_input_projection_weight"},
		{module: "multi_modal_projector.mm_soft_emb_norm"},
	})
	// gemma3Rename: Gemma 3's checkpoints nest the language model under
	// language_model. (before transformers 4.52) or model.language_model.
	// (after); gemma3_mm.py's hf_to_vllm_mapper maps both.
	gemma3Rename = [][2]string{
		{"language_model.model.", "model."},
		{"language_model.lm_head.", "lm_head."},
		{"model.language_model.", "model."},
		{"model.vision_tower.", "vision_tower."},
		{"model.multi_modal_projector.", "multi_modal_projector."},
	}
)

// expertsAt is a MoE block at p whose checkpoint names each expert's
// projections gate, up and down: the router (gate) whole on every rank,
// and FusedMoE, which stacks every expert's gate and up into w13 and down
// into w2 (vllm/model_executor/layers/fused_moe/layer.py); tensor
// parallelism divides each expert's intermediate, expert parallelism the
// experts. The router is held as the checkpoint stores it: quantized only
// where the family quantizes it (Qwen3-MoE) and the checkpoint did.
func expertsAt(p, gate, up, down string) []moduleRule {
	return expertsRouted(p, "gate", gate, up, down, moduleRule{})
}

// gatedMLPAt is a gated MLP at prefix p: gate_proj and up_proj fused into
// one column-parallel gate_up_proj, down_proj row-parallel.
func gatedMLPAt(p string) []moduleRule {
	return []moduleRule{
		{module: p + ".gate_proj", vllm: p + ".gate_up_proj", split: column},
		{module: p + ".up_proj", vllm: p + ".gate_up_proj", split: column, follower: true},
		{module: p + ".down_proj", split: row},
	}
}

// attentionAt is QKVParallelLinear over p's q_proj, k_proj and v_proj, and
// p's row-parallel o_proj.
func attentionAt(p string) []moduleRule {
	return []moduleRule{
		{module: p + ".q_proj", vllm: p + ".qkv_proj", split: column},
		{module: p + ".k_proj", vllm: p + ".qkv_proj", split: column, heads: kvRows, follower: true},
		{module: p + ".v_proj", vllm: p + ".qkv_proj", split: column, heads: kvRows, follower: true},
		{module: p + ".o_proj", split: row},
	}
}

// decoderTopOn is the embedding, final norm and head on the given stages.
func decoderTopOn(embed, norm, head stage) []moduleRule {
	return []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: embed, tiedHead: true},
		{module: "model.norm", place: norm},
		{module: "lm_head", split: column, vocab: true, place: head},
	}
}

// under puts prefix p before the module and the vLLM name of every rule.
func under(p string, rules ...[]moduleRule) []moduleRule {
	var out []moduleRule
	for _, r := range slices.Concat(rules...) {
		r.module = p + r.module
		if r.vllm != "" {
			r.vllm = p + r.vllm
		}
		if r.fuseWith != "" {
			r.fuseWith, r.fusedVLLM = p+r.fuseWith, p+r.fusedVLLM
		}
		if r.twiceWithout != "" {
			r.twiceWithout = p + r.twiceWithout
		}
		out = append(out, r)
	}
	return out
}

// onFirstStage places top rules on the first stage, with the vision
// towers and projectors.
func onFirstStage(rules ...[]moduleRule) []moduleRule {
	out := slices.Concat(rules...)
	for i := range out {
		out[i].place = firstStage
	}
	return out
}

// inVLLM rewrites a prefix of the vLLM names of rules, as the family's
// hf_to_vllm_mapper does (gpt-oss's self_attn. is vLLM's attn.).
func inVLLM(from, to string, rules ...[]moduleRule) []moduleRule {
	out := slices.Concat(rules...)
	for i := range out {
		if rest, ok := strings.CutPrefix(out[i].vllmName(), from); ok {
			out[i].vllm = to + rest
		}
	}
	return out
}

// stackedAt is a tensor of every expert at module m loaded into vllm, its
// layout l.
func stackedAt(m, vllm string, l stackedLayout) moduleRule {
	return moduleRule{module: m, vllm: vllm, expert: stackedExperts, stacked: &l}
}

// The stacked expert layouts: gate and up [E, 2I, H] and down [E, H, I]
// as vLLM's FusedMoE keeps them (Gemma 4's and Qwen3.5-MoE's checkpoints);
// transposed, [E, H, 2I] and [E, I, H] (Llama 4's and bf16 gpt-oss's,
// which vLLM transposes when it loads: llama4.py:436-445, gpt_oss.py
// _load_weights_other).
var (
	gateUpOutIn = stackedLayout{inter: 1, hidden: 2, shards: 2}
	downOutIn   = stackedLayout{inter: 2, hidden: 1, shards: 1}
	gateUpInOut = stackedLayout{inter: 2, hidden: 1, shards: 2}
	downInOut   = stackedLayout{inter: 1, hidden: 2, shards: 1}
)

// expertsRouted is a MoE block at p whose router is router (its rule
// routerRule, module and name set here) and whose checkpoint names each
// expert's gate, up and down projections.
func expertsRouted(p, router, gate, up, down string, routerRule moduleRule) []moduleRule {
	routerRule.module = p + "." + router
	return append([]moduleRule{routerRule}, perExpert(p+".experts", gate, up, down)...)
}

// perExpert is FusedMoE at e loading each expert's gate and up into w13 and
// down into w2; up "" for an ungated expert (Nemotron-H's relu2: up_proj
// alone is w13).
func perExpert(e, gate, up, down string) []moduleRule {
	rules := []moduleRule{
		{module: e + ".*." + gate, vllm: e, paramPrefix: "w13_", split: column, expert: oneExpert},
		{module: e + ".*." + down, vllm: e, paramPrefix: "w2_", split: row, expert: oneExpert},
	}
	if up != "" {
		rules = append(rules, moduleRule{module: e + ".*." + up, vllm: e, paramPrefix: "w13_", split: column, expert: oneExpert, follower: true})
	}
	return rules
}

// The families added from vLLM main d18bb7b. Each names where its tensor
// names come from: a published checkpoint's model.safetensors.index.json, a
// converter that writes the checkpoint (transformers' convert_*.py,
// pytorch/torchtitan's state-dict adapters), or, where neither was found,
// transformers' modeling file for the family, whose module tree is the
// checkpoint's names, with the names vLLM's load_weights expects.
var (
	// phiLayer: microsoft/phi-2 (transformers models/phi/modeling_phi.py
	// PhiAttention, PhiMLP; vllm/model_executor/models/phi.py): biased
	// q/k/v, dense, fc1 and fc2, one LayerNorm.
	phiLayer = []moduleRule{
		gqaAttention[0], gqaAttention[1], gqaAttention[2],
		{module: "self_attn.dense", split: row},
		{module: "mlp.fc1", split: column},
		{module: "mlp.fc2", split: row},
		{module: "input_layernorm"},
	}
	// phiTop: phi.py builds the embedding, final norm and head (with its
	// bias) on every stage.
	phiTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.final_layernorm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
	// optLayer: facebook/opt-125m (transformers models/opt/modeling_opt.py
	// OPTDecoderLayer; opt.py): biased q/k/v and out_proj, an ungated
	// fc1/fc2 MLP, LayerNorms.
	optLayer = []moduleRule{
		gqaAttention[0], gqaAttention[1], gqaAttention[2],
		{module: "self_attn.out_proj", split: row},
		{module: "fc1", split: column},
		{module: "fc2", split: row},
		{module: "self_attn_layer_norm"},
		{module: "final_layer_norm"},
	}
	// optTop: opt.py builds the embeddings, projections, final norm and
	// head on every stage; the positions (max_position + 2 rows) and the
	// projections are replicated (opt.py:205-253).
	optTop = []moduleRule{
		{module: "model.decoder.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.decoder.embed_positions", place: allStages},
		{module: "model.decoder.project_in", place: allStages},
		{module: "model.decoder.project_out", place: allStages},
		{module: "model.decoder.final_layer_norm", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}
	// postNorms: OLMo 3's and EXAONE 4's norms after the attention and
	// after the MLP (olmo3.py:251-258, exaone4.py:255-260).
	postNorms = []moduleRule{
		{module: "post_attention_layernorm"},
		{module: "post_feedforward_layernorm"},
	}
	// everyStageTop: the embedding, final norm and head on every stage
	// (olmo3.py:285-300, 372; gpt_oss.py GptOssModel and
	// GptOssForCausalLM).
	everyStageTop = decoderTopOn(allStages, allStages, allStages)

	// shardedQKNorms: MiniMax-M2's q_norm and k_norm over the whole
	// projection, divided among the ranks, k_norm by KV head
	// (minimax_m2.py:215-233, MiniMaxText01RMSNormTP).
	shardedQKNorms = []moduleRule{
		{module: "self_attn.q_norm", split: column},
		{module: "self_attn.k_norm", split: column, heads: kvRows},
	}
	// minimaxMoE: MiniMaxAI/MiniMax-M2 (transformers models/minimax_m2/
	// modeling_minimax_m2.py MiniMaxM2SparseMoeBlock; minimax_m2.py:80-125):
	// a float32 router, the float32 routing bias beside it, experts w1,
	// w3, w2.
	minimaxMoE = append(expertsRouted("block_sparse_moe", "gate", "w1", "w3", "w2", moduleRule{fp32: true}),
		moduleRule{module: "block_sparse_moe.e_score_correction_bias", fp32: true})
	// glmMoE: zai-org/GLM-4.5 (transformers models/glm4_moe/
	// modeling_glm4_moe.py Glm4MoeMoE; glm4_moe.py:140-150): an nn.Linear
	// router in float32 and its float32 routing bias, routed and shared
	// experts.
	glmMoE = slices.Concat(expertsRouted("mlp", "gate", "gate_proj", "up_proj", "down_proj", moduleRule{fp32: true}),
		[]moduleRule{{module: "mlp.gate.e_score_correction_bias", fp32: true}},
		gatedMLPAt("mlp.shared_experts"))

	// dsaIndexer: DeepSeek V3.2's and GLM-5's lightning indexer
	// (deepseek_v2.py:640-690): wq_b replicated as stored; wk and
	// weights_proj fused into the unquantized wk_weights_proj (an fp8 wk
	// upcast when it loads); k_norm a float32 LayerNorm.
	dsaIndexer = []moduleRule{
		{module: "self_attn.indexer.wq_b"},
		{module: "self_attn.indexer.wk", vllm: "self_attn.indexer.wk_weights_proj", dequant: true},
		{module: "self_attn.indexer.weights_proj", vllm: "self_attn.indexer.wk_weights_proj", dequant: true, follower: true},
		{module: "self_attn.indexer.k_norm", fp32: true},
	}
	// kimiRename: moonshotai/Kimi-K2.5 nests the DeepSeek-V3 language
	// model under language_model. (kimi_k25.py:318-327 maps its legacy
	// language_model.layers. too).
	kimiRename = [][2]string{
		{"language_model.model.", "model."},
		{"language_model.layers.", "model.layers."},
		{"language_model.lm_head.", "lm_head."},
	}
	// moonViT: Kimi-K2.5's vision tower and projector
	// (kimi_k25_vit.py:382-450, 887-945; names as pytorch/torchtitan
	// torchtitan/models/kimi_k2_7/state_dict_adapter.py maps them): wqkv
	// and fc0 column-parallel, wo and fc1 row-parallel, the projector
	// replicated.
	moonViT = onFirstStage(under("vision_tower.", []moduleRule{
		{module: "patch_embed.proj"},
		{module: "patch_embed.pos_emb"},
		{module: "encoder.blocks.*.norm0"},
		{module: "encoder.blocks.*.norm1"},
		{module: "encoder.blocks.*.wqkv", split: column},
		{module: "encoder.blocks.*.wo", split: row},
		{module: "encoder.blocks.*.mlp.fc0", split: column},
		{module: "encoder.blocks.*.mlp.fc1", split: row},
		{module: "encoder.final_layernorm"},
	}), []moduleRule{
		{module: "mm_projector.pre_norm"},
		{module: "mm_projector.proj.0", vllm: "mm_projector.linear_1"},
		{module: "mm_projector.proj.2", vllm: "mm_projector.linear_2"},
	})

	// gptOssLayer: openai/gpt-oss-20b (names as pytorch/torchtitan
	// torchtitan/models/gpt_oss/state_dict_adapter.py lists them, MXFP4
	// and bf16): biased q/k/v/o with per-head sinks, a biased router, the
	// experts stacked, as MXFP4 blocks [E, 2I, H/32, 16] and scales [E,
	// 2I, H/32] (down [E, H, I/32, 16] and [E, H, I/32]) or as bf16
	// gate_up_proj [E, H, 2I] and down_proj [E, I, H], with their biases
	// [E, 2I] and [E, H] (gpt_oss.py:380-560, 990-1080).
	gptOssLayer = inVLLM("self_attn.", "attn.", gqaAttention, []moduleRule{
		{module: "self_attn.sinks", split: column},
		{module: "mlp.router"},
		stackedAt("mlp.experts.gate_up_proj_blocks", "mlp.experts.w13_weight", stackedLayout{inter: 1, hidden: 2, hiddenUnit: 32, shards: 2}),
		stackedAt("mlp.experts.gate_up_proj_scales", "mlp.experts.w13_weight_scale", stackedLayout{inter: 1, hidden: 2, hiddenUnit: 32, shards: 2}),
		stackedAt("mlp.experts.down_proj_blocks", "mlp.experts.w2_weight", stackedLayout{inter: 2, interUnit: 32, hidden: 1, shards: 1}),
		stackedAt("mlp.experts.down_proj_scales", "mlp.experts.w2_weight_scale", stackedLayout{inter: 2, interUnit: 32, hidden: 1, shards: 1}),
		stackedAt("mlp.experts.gate_up_proj_bias", "mlp.experts.w13_bias", stackedLayout{inter: 1, hidden: -1, shards: 2, bias: true}),
		stackedAt("mlp.experts.down_proj_bias", "mlp.experts.w2_bias", stackedLayout{inter: -1, hidden: 1, bias: true}),
		stackedAt("mlp.experts.gate_up_proj", "mlp.experts.w13_weight", gateUpInOut),
		stackedAt("mlp.experts.down_proj", "mlp.experts.w2_weight", downInOut),
	}, twoNorms)

	// llama4Layer: Llama 4 (names as huggingface/transformers
	// src/transformers/models/llama4/convert_llama4_weights_to_hf.py writes
	// them; llama4.py:86-166, 330-700): the router, the experts stacked
	// ([E, H, 2I] and [E, I, H]; one tensor per expert in the FP8
	// checkpoints), the shared expert, or a dense MLP.
	llama4Layer = slices.Concat(gqaAttention, twoNorms, gatedMLPAt("feed_forward"), gatedMLPAt("feed_forward.shared_expert"),
		expertsRouted("feed_forward", "router", "gate_proj", "up_proj", "down_proj", moduleRule{}),
		[]moduleRule{
			stackedAt("feed_forward.experts.gate_up_proj", "feed_forward.experts.w13_weight", gateUpInOut),
			stackedAt("feed_forward.experts.down_proj", "feed_forward.experts.w2_weight", downInOut),
		})
	// llama4Rename: the language model under language_model.
	llama4Rename = [][2]string{{"language_model.model.", "model."}, {"language_model.lm_head.", "lm_head."}}
	// llama4Vision: Llama 4's vision tower, pixel-shuffle adapter and
	// projector (the same converter; mllama4.py:95-552), unquantized: q, k
	// and v fused into one column-parallel qkv_proj.
	llama4Vision = onFirstStage([]moduleRule{
		{module: "vision_model.patch_embedding.linear", split: column},
		{module: "vision_model.class_embedding"},
		{module: "vision_model.positional_embedding_vlm"},
		{module: "vision_model.layernorm_pre"},
		{module: "vision_model.layernorm_post"},
		{module: "vision_model.vision_adapter.mlp.fc1", split: column},
		{module: "vision_model.vision_adapter.mlp.fc2", split: row},
		{module: "multi_modal_projector.linear_1", split: column},
	}, under("vision_model.model.layers.*.", []moduleRule{
		{module: "self_attn.q_proj", vllm: "self_attn.qkv_proj", split: column},
		{module: "self_attn.k_proj", vllm: "self_attn.qkv_proj", split: column, follower: true},
		{module: "self_attn.v_proj", vllm: "self_attn.qkv_proj", split: column, follower: true},
		{module: "self_attn.o_proj", split: row},
		{module: "mlp.fc1", split: column},
		{module: "mlp.fc2", split: row},
	}, twoNorms))

	// gatedDeltaNet: Qwen3-Next's linear attention (transformers models/
	// qwen3_next/modeling_qwen3_next.py Qwen3NextGatedDeltaNet;
	// layers/mamba/gdn/qwen_gdn_linear_attn.py:359-489): in_proj_qkvz and
	// in_proj_ba column-parallel, the causal conv1d, dt_bias and A_log
	// (float32) divided by head, the gated norm whole, out_proj
	// row-parallel.
	gatedDeltaNet = []moduleRule{
		{module: "linear_attn.in_proj_qkvz", split: column},
		{module: "linear_attn.in_proj_ba", split: column},
		{module: "linear_attn.conv1d", split: column},
		{module: "linear_attn.dt_bias", split: column},
		{module: "linear_attn.A_log", split: column, fp32: true},
		{module: "linear_attn.norm"},
		{module: "linear_attn.out_proj", split: row},
	}
	// qwen35DeltaNet: Qwen3.5's checkpoint splits in_proj_qkvz into
	// in_proj_qkv and in_proj_z and in_proj_ba into in_proj_b and
	// in_proj_a (qwen3_5.py:217-225; Qwen3.5-2B's names in
	// lawrence3699/Jev-Style-2B-Decision-v3 model.safetensors.index.json).
	qwen35DeltaNet = append([]moduleRule{
		{module: "linear_attn.in_proj_qkv", vllm: "linear_attn.in_proj_qkvz", split: column},
		{module: "linear_attn.in_proj_z", vllm: "linear_attn.in_proj_qkvz", split: column, follower: true},
		{module: "linear_attn.in_proj_b", vllm: "linear_attn.in_proj_ba", split: column, wholeUnderPackedInt: true},
		{module: "linear_attn.in_proj_a", vllm: "linear_attn.in_proj_ba", split: column, follower: true, wholeUnderPackedInt: true},
	}, gatedDeltaNet[2:]...)
	// qwenNextMoE: the router and shared-expert gate unquantized and whole,
	// the experts (one tensor per expert, as
	// bryce-hoehn/Qwen3.5-18B-REAP-A3B-Coding model.safetensors.index.json
	// names Qwen3.5-MoE's, or stacked [E, 2I, H] and [E, H, I] as
	// transformers 5 saves them: FusedMoE's fused mapping,
	// layers/fused_moe/routed_experts.py:877-960), the shared expert
	// (qwen3_next.py:100-190).
	qwenNextMoE = slices.Concat(routedExperts, gatedMLPAt("mlp.shared_expert"), []moduleRule{
		{module: "mlp.shared_expert_gate"},
		stackedAt("mlp.experts.gate_up_proj", "mlp.experts.w13_weight", gateUpOutIn),
		stackedAt("mlp.experts.down_proj", "mlp.experts.w2_weight", downOutIn),
	})
	// qwenVLRename: the Qwen VL and Qwen3.5 checkpoints nest the language
	// model under model.language_model. and the vision tower under
	// model.visual. (transformers 4.52 and later), or the language model
	// under language_model.model. (qwen3_5.py:311-313;
	// qwen3_vl.py:1762-1768; qwen2_5_vl.py:1246-1255).
	qwenVLRename = [][2]string{
		{"model.language_model.", "model."},
		{"model.visual.", "visual."},
		{"language_model.model.", "model."},
		{"language_model.lm_head.", "lm_head."},
	}
	// qwen25Vision: Qwen2.5-VL's vision tower (transformers models/
	// qwen2_5_vl/modeling_qwen2_5_vl.py; qwen2_5_vl.py:300-712): fused
	// qkv and gate/up column-parallel, proj and down row-parallel, the
	// merger's mlp.0 column- and mlp.2 row-parallel.
	qwen25Vision = onFirstStage([]moduleRule{
		{module: "visual.patch_embed.proj"},
		{module: "visual.merger.ln_q"},
		{module: "visual.merger.mlp.0", split: column},
		{module: "visual.merger.mlp.2", split: row},
	}, under("visual.blocks.*.", []moduleRule{
		{module: "norm1"},
		{module: "norm2"},
		{module: "attn.qkv", split: column},
		{module: "attn.proj", split: row},
	}, gatedMLPAt("mlp")))
	// qwen3Vision: Qwen3-VL's vision tower, which Qwen3.5 also uses
	// (transformers models/qwen3_vl/modeling_qwen3_vl.py; names as
	// pytorch/torchtitan torchtitan/models/qwen3_5/state_dict_adapter.py
	// maps them; qwen3_vl.py:370-670): a learned position table, an
	// ungated MLP, the merger and one deepstack merger per deepstack layer.
	qwen3Vision = onFirstStage([]moduleRule{
		{module: "visual.patch_embed.proj"},
		{module: "visual.pos_embed"},
	}, under("visual.blocks.*.", []moduleRule{
		{module: "norm1"},
		{module: "norm2"},
		{module: "attn.qkv", split: column},
		{module: "attn.proj", split: row},
		{module: "mlp.linear_fc1", split: column},
		{module: "mlp.linear_fc2", split: row},
	}), under("visual.merger.", qwen3Merger), under("visual.deepstack_merger_list.*.", qwen3Merger))
	qwen3Merger = []moduleRule{
		{module: "norm"},
		{module: "linear_fc1", split: column},
		{module: "linear_fc2", split: row},
	}
	// qwenTextOnly: a text-only load of a Qwen VL checkpoint skips its
	// tower.
	qwenTextOnly = [2]string{"visual.", skipTowers}
	mtpModules   = [2]string{"mtp.", skipMTPModule}

	// nemotronLayer: nvidia/NVIDIA-Nemotron-Nano-9B-v2 and
	// Nemotron-3-Nano (transformers models/nemotron_h/
	// modeling_nemotron_h.py; nemotron_h.py): one mixer per layer, Mamba2
	// (in_proj and conv1d column-parallel with n_groups repeated up to the
	// ranks, A from A_log in float32, D, dt_bias and the gated norm
	// divided, out_proj row-parallel), attention, a relu2 MLP or a MoE of
	// relu2 experts (up_proj alone) whose router is float32 unless the
	// device has the router GEMMs; one norm per layer.
	nemotronLayer = slices.Concat([]moduleRule{
		{module: "mixer.in_proj", split: column, heads: mambaRows},
		{module: "mixer.conv1d", split: column, heads: mambaRows},
		{module: "mixer.A_log", vllm: "mixer.A", split: column, fp32: true},
		{module: "mixer.D", split: column},
		{module: "mixer.dt_bias", split: column},
		{module: "mixer.norm", split: column},
		{module: "mixer.out_proj", split: row},
		{module: "mixer.up_proj", split: column},
		{module: "mixer.down_proj", split: row},
		{module: "mixer.gate.e_score_correction_bias", fp32: true},
		{module: "mixer.shared_experts.up_proj", split: column},
		{module: "mixer.shared_experts.down_proj", split: row},
		{module: "norm"},
	}, attentionAt("mixer"), expertsRouted("mixer", "gate", "up_proj", "", "down_proj", moduleRule{fp32NoRouterGEMM: true}))
	// nemotronRename: nemotron_h.py's hf_to_vllm_mapper (backbone. is
	// model., embeddings is embed_tokens).
	nemotronRename = [][2]string{{"backbone.embeddings.", "model.embed_tokens."}, {"backbone.", "model."}}
	// nemotronTop: nemotron_h.py builds the embedding, norm_f and head on
	// every stage.
	nemotronTop = []moduleRule{
		{module: "model.embed_tokens", split: column, vocab: true, place: allStages, tiedHead: true},
		{module: "model.norm_f", place: allStages},
		{module: "lm_head", split: column, vocab: true, place: allStages},
	}

	// pixtralVision: Mistral 3's Pixtral tower and projector in the
	// transformers layout (models/pixtral/modeling_pixtral.py,
	// models/mistral3/modeling_mistral3.py; pixtral.py:1147-1390,
	// mistral3.py:75-170): q, k and v fused column-parallel, gate and up
	// fused, o_proj and down row-parallel; vLLM builds the layers up to
	// vision_feature_layer only.
	pixtralVision = onFirstStage([]moduleRule{
		{module: "vision_tower.patch_conv"},
		{module: "vision_tower.ln_pre"},
		{module: "multi_modal_projector.norm"},
		{module: "multi_modal_projector.patch_merger.merging_layer"},
		{module: "multi_modal_projector.linear_1", split: column},
		{module: "multi_modal_projector.linear_2", split: row},
	}, towerLayers(under("vision_tower.transformer.layers.*.", []moduleRule{
		{module: "attention.q_proj", vllm: "attention.qkv_proj", split: column},
		{module: "attention.k_proj", vllm: "attention.qkv_proj", split: column, follower: true},
		{module: "attention.v_proj", vllm: "attention.qkv_proj", split: column, follower: true},
		{module: "attention.o_proj", split: row},
		{module: "attention_norm"},
		{module: "ffn_norm"},
	}, gatedMLPAt("feed_forward"))))
	// mistral3Rename: readPixtral's (mistral3.py's hf_to_vllm_mapper).
	mistral3Rename = [][2]string{
		{"model.language_model.", "model."}, {"language_model.model.", "model."},
		{"model.vision_tower.", "vision_tower."}, {"model.multi_modal_projector.", "multi_modal_projector."},
		{"language_model.lm_head.", "lm_head."},
	}

	// gemma4Layer: Gemma 4 (transformers models/gemma4/modeling_gemma4.py
	// Gemma4TextRouter, Gemma4TextExperts; the layout gemma4.py:1605-1700
	// reads; gemma4.py:225-700): attention whose global layers under
	// attention_k_eq_v have no v_proj (k_proj loads into K and V), q and k
	// norms, the dense MLP, with enable_moe_block a router (proj, scale,
	// per_expert_scale) and experts beside it, stacked [E, 2I, H] and [E,
	// H, I] or one tensor per expert (quantized), under experts. or, in
	// the first checkpoints, moe.; seven norms and the layer scalar, on
	// every layer.
	gemma4Layer = slices.Concat([]moduleRule{
		gqaAttention[0],
		{module: "self_attn.k_proj", vllm: "self_attn.qkv_proj", split: column, heads: kvRows, follower: true, twiceWithout: "self_attn.v_proj"},
		gqaAttention[2], gqaAttention[3],
		{module: "post_feedforward_layernorm_1"},
		{module: "post_feedforward_layernorm_2"},
		{module: "pre_feedforward_layernorm_2"},
		{module: "layer_scalar"},
		{module: "router.proj"},
		{module: "router.scale"},
		{module: "router.per_expert_scale", vllm: "moe.per_expert_scale"},
		{module: "moe.per_expert_scale"},
		stackedAt("experts.gate_up_proj", "moe.experts.w13_weight", gateUpOutIn),
		stackedAt("experts.down_proj", "moe.experts.w2_weight", downOutIn),
		stackedAt("moe.gate_up_proj", "moe.experts.w13_weight", gateUpOutIn),
		stackedAt("moe.down_proj", "moe.experts.w2_weight", downOutIn),
	}, qkNorms, gatedMLP, twoNorms, gemmaNorms,
		perExpert("experts", "gate_proj", "up_proj", "down_proj"), perExpert("moe.experts", "gate_proj", "up_proj", "down_proj"))
	// gemma4Rename: the language model and the towers under model.
	// (gemma4_mm.py:1016-1026).
	gemma4Rename = [][2]string{
		{"model.language_model.", "model."}, {"language_model.model.", "model."}, {"language_model.lm_head.", "lm_head."},
		{"model.vision_tower.", "vision_tower."}, {"model.embed_vision.", "embed_vision."},
		{"model.audio_tower.", "audio_tower."}, {"model.embed_audio.", "embed_audio."},
	}
	// gemma4Towers: the vision and audio towers, transformers modules vLLM
	// builds whole (AutoModel.from_config) with their replicated
	// embedders, on the first stage (gemma4_mm.py:1060-1100).
	gemma4Towers = onFirstStage([]moduleRule{
		{module: "vision_tower"},
		{module: "embed_vision"},
		{module: "audio_tower"},
		{module: "embed_audio"},
	})
	gemma4Vestigial = [][2]string{{"embed_vision.embedding.", skipVestigial}, {"embed_audio.embedding.", skipVestigial}}
	// The text-only loads of multimodal checkpoints skip the towers.
	llama4TextOnly  = [][2]string{{"vision_model.", skipTowers}, {"multi_modal_projector.", skipTowers}}
	pixtralTextOnly = [][2]string{{"vision_tower.", skipTowers}, {"multi_modal_projector.", skipTowers}}
	// optRename: opt.py's mapper puts decoder. under model.; the layers
	// are model.layers.N here, as every family's.
	optRename = [][2]string{{"model.decoder.layers.", "model.layers."}, {"decoder.layers.", "model.layers."}, {"decoder.", "model.decoder."}}
	// qwen35Top: Qwen3.5's embedding on every stage, norm and head on the
	// last.
	qwen35Top      = decoderTopOn(allStages, lastStage, lastStage)
	gemma4TextOnly = [][2]string{{"vision_tower.", skipTowers}, {"embed_vision.", skipTowers}, {"audio_tower.", skipTowers}, {"embed_audio.", skipTowers}}
)

// towerLayers marks rules as a vision tower's layers, whose index is the
// first "*".
func towerLayers(rules []moduleRule) []moduleRule {
	for i := range rules {
		rules[i].towerLayer = true
	}
	return rules
}

// checkpointFamilies are the checkpoint layouts by model_type. A family
// added to config.go needs an entry here for its checkpoint to be read:
// its layer modules, anything outside the decoder layers, the prefixes its
// checkpoint nests names under, and what vLLM skips.
var checkpointFamilies = map[string]checkpointFamily{
	"llama":       ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}),
	"mistral":     ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}),
	"qwen2":       ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}),
	"qwen3":       ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms}),
	"phi3":        ckptFamily(nil, [][]moduleRule{fusedAttention, fusedMLP, twoNorms}),
	"mixtral":     ckptFamily(nil, [][]moduleRule{gqaAttention, mixtralExperts, twoNorms}),
	"qwen3_moe":   ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, routedExperts, twoNorms}),
	"deepseek_v2": ckptFamily(nil, [][]moduleRule{mlaAttention, gatedMLP, deepseekMoE, twoNorms}),
	"deepseek_v3": ckptFamily(nil, [][]moduleRule{mlaAttention, gatedMLP, deepseekMoE, twoNorms}),
	"gemma2":      ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms, gemmaNorms}),
	// Gemma 1 and IBM Granite 3: Llama's names (transformers models/gemma/
	// modeling_gemma.py, models/granite/modeling_granite.py).
	"gemma":   ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}),
	"granite": ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}),
	// Qwen1.5-MoE and Qwen2-MoE: Qwen3-Next's MoE block (transformers
	// models/qwen2_moe/modeling_qwen2_moe.py Qwen2MoeSparseMoeBlock:
	// gate, experts.N, shared_expert, shared_expert_gate), a dense MLP on
	// mlp_only_layers.
	"qwen2_moe":   ckptFamily(nil, [][]moduleRule{gqaAttention, gatedMLP, qwenNextMoE, twoNorms}),
	"gemma3":      ckptFamily(gemma3Rename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms, gemmaNorms}, siglipTower),
	"gemma3_text": ckptFamily(gemma3Rename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms, gemmaNorms}),

	// deepseek-ai/DeepSeek-V3.2-Exp and zai-org/GLM-5: DeepSeek-V3's
	// layers and the indexer, named as deepseek_v2.py:1531-1600 loads it;
	// moonshotai/Kimi-K2-Instruct: DeepSeek-V3's (names as pytorch/
	// torchtitan torchtitan/models/deepseek_v3/state_dict_adapter.py maps
	// them); Kimi-K2.5 nests it beside MoonViT.
	"deepseek_v32": ckptFamily(nil, [][]moduleRule{mlaAttention, dsaIndexer, gatedMLP, deepseekMoE, twoNorms}),
	"glm_moe_dsa":  ckptFamily(nil, [][]moduleRule{mlaAttention, dsaIndexer, gatedMLP, deepseekMoE, twoNorms}),
	"kimi_k2":      ckptFamily(kimiRename, [][]moduleRule{mlaAttention, gatedMLP, deepseekMoE, twoNorms}),
	"kimi_k25":     ckptFamily(kimiRename, [][]moduleRule{mlaAttention, gatedMLP, deepseekMoE, twoNorms}, moonViT),

	"glm4_moe":   ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, glmMoE, twoNorms}),
	"minimax_m2": ckptFamily(nil, [][]moduleRule{gqaAttention, shardedQKNorms, minimaxMoE, twoNorms}),
	// OLMo 3's q_norm spans every head and k_norm every KV head, whole on
	// every rank (olmo3.py:113-117): qkNorms, whatever their width.
	"olmo3":   ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, postNorms}, everyStageTop),
	"exaone4": ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, postNorms}),
	"opt":     ckptFamily(optRename, [][]moduleRule{optLayer}, optTop),
	"phi":     ckptFamily(nil, [][]moduleRule{phiLayer}, phiTop),
	"gpt_oss": ckptFamily(nil, [][]moduleRule{gptOssLayer}, inVLLM("model.embed_tokens", "model.embedding", everyStageTop)),

	"llama4":      ckptFamily(llama4Rename, [][]moduleRule{llama4Layer}, llama4Vision),
	"llama4_text": ckptFamily(llama4Rename, [][]moduleRule{llama4Layer}).skipping(llama4TextOnly...),

	"ministral3": ckptFamily(mistral3Rename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}).skipping(pixtralTextOnly...),
	"mistral3":   ckptFamily(mistral3Rename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, pixtralVision),

	"qwen2_5_vl":    ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, gatedMLP, twoNorms}, qwen25Vision),
	"qwen3_vl":      ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms}, qwen3Vision),
	"qwen3_vl_text": ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms}).skipping(qwenTextOnly),

	// Qwen3-Next builds the embedding and head on every stage and the
	// final norm on the last (qwen3_next.py:603-625, 794); Qwen3.5 the
	// embedding on every stage and the norm and head on the last
	// (qwen3_5.py:244-266, 336-345).
	"qwen3_next":       ckptFamily(nil, [][]moduleRule{gqaAttention, qkNorms, gatedDeltaNet, gatedMLP, qwenNextMoE, twoNorms}, decoderTopOn(allStages, lastStage, allStages)).skipping(mtpModules),
	"qwen3_5":          ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, qwen35DeltaNet, gatedMLP, twoNorms}, qwen3Vision, qwen35Top).skipping(mtpModules),
	"qwen3_5_text":     ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, qwen35DeltaNet, gatedMLP, twoNorms}, qwen35Top).skipping(mtpModules, qwenTextOnly),
	"qwen3_5_moe":      ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, qwen35DeltaNet, qwenNextMoE, twoNorms}, qwen3Vision, qwen35Top).skipping(mtpModules),
	"qwen3_5_moe_text": ckptFamily(qwenVLRename, [][]moduleRule{gqaAttention, qkNorms, qwen35DeltaNet, qwenNextMoE, twoNorms}, qwen35Top).skipping(mtpModules, qwenTextOnly),

	"nemotron_h": ckptFamily(nemotronRename, [][]moduleRule{nemotronLayer}, nemotronTop).skipping(mtpModules),

	// Gemma 4 builds the embedding, final norm and head on every stage
	// (gemma4.py:960-1045, Gemma4ForCausalLM).
	"gemma4":      ckptFamily(gemma4Rename, [][]moduleRule{gemma4Layer}, gemma4Towers, everyStageTop).skipping(gemma4Vestigial...),
	"gemma4_text": ckptFamily(gemma4Rename, [][]moduleRule{gemma4Layer}, everyStageTop).skipping(gemma4TextOnly...),
}
