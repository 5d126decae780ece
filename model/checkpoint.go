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
	for _, l := range a.Layers {
		if l.KVHeads > 0 {
			fmt.Fprintf(&b, "/%d", l.KVHeads)
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
func RankWeights(a *Arch, sh Sharding) []Item {
	if ok, _ := UsesCheckpoint(a, sh); !ok {
		return Weights(a, sh)
	}
	return CheckpointWeights(a, sh)
}

// CheckpointWeights lists what one rank holds of a's attached checkpoint
// under sh, one item per vLLM parameter (the checkpoint's q_proj, k_proj
// and v_proj make one qkv_proj; every expert's gate_proj and up_proj one
// w13), with the buffers vLLM builds that no checkpoint holds (the rotary
// tables). Float tensors are counted in the served dtype (AWQ's and GPTQ's
// scales too), quantized tensors and fp32 scales as stored, GPTQ's
// act-order layout as vLLM loads it. It lists the buffers alone when no
// checkpoint is attached.
func CheckpointWeights(a *Arch, sh Sharding) []Item {
	var ps []placed
	if c := a.Checkpoint; c != nil {
		ps, _, _ = c.read(a) // an error leaves no tensors: UsesCheckpoint has checked the family
	}
	var items []Item
	at := map[string]int{}
	add := func(name string, bytes uint64) {
		if i, ok := at[name]; ok {
			items[i].Bytes = budget.SatAdd(items[i].Bytes, bytes)
			return
		}
		at[name] = len(items)
		items = append(items, Item{Name: name, Term: budget.TermWeights, Bytes: bytes})
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

// configBuffers are the items of Weights that no checkpoint holds: vLLM's
// rotary cos/sin tables, built when the model is. A buffer Weights gains
// must be named here too.
func configBuffers(a *Arch, sh Sharding) []Item {
	var out []Item
	for _, it := range Weights(a, sh) {
		if strings.HasPrefix(it.Name, "rotary_emb.") {
			out = append(out, it)
		}
	}
	return out
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
)

// expertKind says whether a tensor belongs to the routed experts, which
// expert parallelism divides whole.
type expertKind int

const (
	notExpert expertKind = iota
	// oneExpert is one expert's tensor, its index the module's "*".
	oneExpert
	// stackedExperts holds every expert along dimension 0 (Llama 4's and
	// gpt-oss's checkpoints).
	stackedExperts
)

// stage says which pipeline stage holds a tensor outside the decoder
// layers.
type stage int

const (
	inLayer    stage = iota // the stage holding its decoder layer
	firstStage              // the embedding, vision towers, projectors
	lastStage               // the final norm and the LM head
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
	// vllm is the vLLM parameter the tensor loads into, in the same form;
	// a "*" in it is replaced by the module's index, and an expert's index
	// is dropped: q_proj, k_proj and v_proj load into self_attn.qkv_proj,
	// experts.*.gate_proj into experts.w13.
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
	// place is the stage of a top rule's tensors.
	place stage
	// tiedHead marks the embedding, which a tied model's last stage copies.
	tiedHead bool
	// decoder marks the embedding, final norm and head.
	decoder bool
	// dims overrides paramDims for tensors whose layout the parameter name
	// does not say (stacked experts).
	dims *dims

	parts []string
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
	// The families whose tree says so (gpt-oss, OPT, Qwen3-Next) build the
	// embedding, final norm and head on every stage.
	every := p.rule.decoder && a.tree.everyStage
	switch p.rule.place {
	case firstStage:
		return sh.First || every
	case lastStage:
		return sh.Last || every
	}
	return true
}

// bytes is what one rank holds of the tensor under sh.
func (p *placed) bytes(a *Arch, sh Sharding) uint64 {
	r, d := p.rule, p.dims
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
	case r.fp32:
		return budget.SatMul(elems, 4)
	case float && !d.aux && sh.DtypeBytes > 0:
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
		vllmName, follower := rule.vllm, rule.follower
		if rule.fuseWith != "" && modules[prefix+rule.fuseWith] {
			vllmName, follower = rule.fusedVLLM, true
		}
		if follower && p.dims.perModule {
			skip(skipFused)
			continue
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
// rules (embedding, final norm, head) included.
func ckptFamily(rename [][2]string, layer [][]moduleRule, top ...[]moduleRule) checkpointFamily {
	f := checkpointFamily{rename: rename}
	for _, g := range layer {
		for _, r := range g {
			r.parts = strings.Split(r.module, ".")
			f.layer = append(f.layer, &r)
		}
	}
	for _, g := range append([][]moduleRule{decoderTop}, top...) {
		for _, r := range g {
			r.parts = strings.Split(r.module, ".")
			f.top = append(f.top, &r)
		}
	}
	return f
}

// The module trees, as the transformers modeling files name them in a
// checkpoint and as vLLM shards them (vllm/model_executor/models/<family>.py
// and layers/linear.py at d18bb7b): column-parallel layers divide their
// output rows, row-parallel ones their input features (their bias is
// whole), replicated ones are whole on every rank.
var (
	decoderTop = []moduleRule{
		{module: "model.embed_tokens", vllm: "model.embed_tokens", split: column, vocab: true, place: firstStage, tiedHead: true, decoder: true},
		{module: "model.norm", vllm: "model.norm", place: lastStage, decoder: true},
		{module: "lm_head", vllm: "lm_head", split: column, vocab: true, place: lastStage, decoder: true},
	}
	// gqaAttention: QKVParallelLinear over q_proj, k_proj, v_proj, and a
	// row-parallel o_proj.
	gqaAttention = []moduleRule{
		{module: "self_attn.q_proj", vllm: "self_attn.qkv_proj", split: column},
		{module: "self_attn.k_proj", vllm: "self_attn.qkv_proj", split: column, heads: kvRows, follower: true},
		{module: "self_attn.v_proj", vllm: "self_attn.qkv_proj", split: column, heads: kvRows, follower: true},
		{module: "self_attn.o_proj", vllm: "self_attn.o_proj", split: row},
	}
	// fusedAttention: Phi-3's checkpoint stores q, k and v as one qkv_proj.
	fusedAttention = []moduleRule{
		{module: "self_attn.qkv_proj", vllm: "self_attn.qkv_proj", split: column, heads: qkvRows},
		{module: "self_attn.o_proj", vllm: "self_attn.o_proj", split: row},
	}
	qkNorms = []moduleRule{
		{module: "self_attn.q_norm", vllm: "self_attn.q_norm"},
		{module: "self_attn.k_norm", vllm: "self_attn.k_norm"},
	}
	// mlaAttention: DeepSeek's multi-head latent attention
	// (deepseek_v2.py DeepseekV2MLAAttention): the down-projections and
	// their norms whole, the up-projections column-parallel.
	// With a query latent, vLLM fuses q_a_proj and kv_a_proj_with_mqa into
	// one replicated fused_qkv_a_proj (deepseek_v2.py:901-916).
	mlaAttention = []moduleRule{
		{module: "self_attn.q_a_proj", vllm: "self_attn.fused_qkv_a_proj"},
		{module: "self_attn.q_a_layernorm", vllm: "self_attn.q_a_layernorm"},
		{module: "self_attn.q_b_proj", vllm: "self_attn.q_b_proj", split: column},
		{module: "self_attn.q_proj", vllm: "self_attn.q_proj", split: column},
		{module: "self_attn.kv_a_proj_with_mqa", vllm: "self_attn.kv_a_proj_with_mqa", fuseWith: "self_attn.q_a_proj", fusedVLLM: "self_attn.fused_qkv_a_proj"},
		{module: "self_attn.kv_a_layernorm", vllm: "self_attn.kv_a_layernorm"},
		{module: "self_attn.kv_b_proj", vllm: "self_attn.kv_b_proj", split: column},
		{module: "self_attn.o_proj", vllm: "self_attn.o_proj", split: row},
	}
	// gatedMLP: MergedColumnParallelLinear over gate_proj and up_proj, and
	// a row-parallel down_proj.
	gatedMLP = gatedMLPAt("mlp")
	// fusedMLP: Phi-3's checkpoint stores gate_up_proj fused.
	fusedMLP = []moduleRule{
		{module: "mlp.gate_up_proj", vllm: "mlp.gate_up_proj", split: column},
		{module: "mlp.down_proj", vllm: "mlp.down_proj", split: row},
	}
	twoNorms = []moduleRule{
		{module: "input_layernorm", vllm: "input_layernorm"},
		{module: "post_attention_layernorm", vllm: "post_attention_layernorm"},
	}
	// gemmaNorms: Gemma 2 and 3 norm before and after each block.
	gemmaNorms = []moduleRule{
		{module: "pre_feedforward_layernorm", vllm: "pre_feedforward_layernorm"},
		{module: "post_feedforward_layernorm", vllm: "post_feedforward_layernorm"},
	}
	// routedExperts: Qwen3-MoE's and DeepSeek's experts.
	routedExperts = expertsAt("mlp", "gate_proj", "up_proj", "down_proj")
	// mixtralExperts: Mixtral's checkpoint names the experts' projections
	// w1 (gate), w3 (up), w2 (down) (vllm/model_executor/models/mixtral.py).
	mixtralExperts = expertsAt("block_sparse_moe", "w1", "w3", "w2")
	// deepseekMoE: DeepSeek's routed experts, its fp32 routing bias
	// (noaux_tc) and its shared experts, a dense MLP sharded as one.
	deepseekMoE = slices.Concat([]moduleRule{
		{module: "mlp.gate.e_score_correction_bias", vllm: "mlp.gate.e_score_correction_bias", fp32: true},
	}, routedExperts, gatedMLPAt("mlp.shared_experts"))
	// siglipTower: Gemma 3's SigLIP vision tower and projector, on the
	// first stage (vllm/model_executor/models/siglip.py, gemma3_mm.py).
	siglipTower = []moduleRule{
		{module: "vision_tower.vision_model.embeddings.patch_embedding", vllm: "vision_tower.vision_model.embeddings.patch_embedding", place: firstStage},
		{module: "vision_tower.vision_model.embeddings.position_embedding", vllm: "vision_tower.vision_model.embeddings.position_embedding", place: firstStage},
		{module: "vision_tower.vision_model.encoder.layers.*.self_attn.q_proj", vllm: "vision_tower.vision_model.encoder.layers.*.self_attn.qkv_proj", split: column, place: firstStage},
		{module: "vision_tower.vision_model.encoder.layers.*.self_attn.k_proj", vllm: "vision_tower.vision_model.encoder.layers.*.self_attn.qkv_proj", split: column, follower: true, place: firstStage},
		{module: "vision_tower.vision_model.encoder.layers.*.self_attn.v_proj", vllm: "vision_tower.vision_model.encoder.layers.*.self_attn.qkv_proj", split: column, follower: true, place: firstStage},
		{module: "vision_tower.vision_model.encoder.layers.*.self_attn.out_proj", vllm: "vision_tower.vision_model.encoder.layers.*.self_attn.out_proj", split: row, place: firstStage},
		{module: "vision_tower.vision_model.encoder.layers.*.mlp.fc1", vllm: "vision_tower.vision_model.encoder.layers.*.mlp.fc1", split: column, place: firstStage},
		{module: "vision_tower.vision_model.encoder.layers.*.mlp.fc2", vllm: "vision_tower.vision_model.encoder.layers.*.mlp.fc2", split: row, place: firstStage},
		{module: "vision_tower.vision_model.encoder.layers.*.layer_norm1", vllm: "vision_tower.vision_model.encoder.layers.*.layer_norm1", place: firstStage},
		{module: "vision_tower.vision_model.encoder.layers.*.layer_norm2", vllm: "vision_tower.vision_model.encoder.layers.*.layer_norm2", place: firstStage},
		{module: "vision_tower.vision_model.post_layernorm", vllm: "vision_tower.vision_model.post_layernorm", place: firstStage},
		{module: "multi_modal_projector.mm_input_projection_weight", vllm: "multi_modal_projector.mm_input_projection_weight", place: firstStage},
		{module: "multi_modal_projector.mm_soft_emb_norm", vllm: "multi_modal_projector.mm_soft_emb_norm", place: firstStage},
	}
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
	e := p + ".experts"
	return []moduleRule{
		{module: p + ".gate", vllm: p + ".gate"},
		{module: e + ".*." + gate, vllm: e, paramPrefix: "w13_", split: column, expert: oneExpert},
		{module: e + ".*." + up, vllm: e, paramPrefix: "w13_", split: column, expert: oneExpert, follower: true},
		{module: e + ".*." + down, vllm: e, paramPrefix: "w2_", split: row, expert: oneExpert},
	}
}

// gatedMLPAt is a gated MLP at prefix p: gate_proj and up_proj fused into
// one column-parallel gate_up_proj, down_proj row-parallel.
func gatedMLPAt(p string) []moduleRule {
	return []moduleRule{
		{module: p + ".gate_proj", vllm: p + ".gate_up_proj", split: column},
		{module: p + ".up_proj", vllm: p + ".gate_up_proj", split: column, follower: true},
		{module: p + ".down_proj", vllm: p + ".down_proj", split: row},
	}
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
	"gemma3":      ckptFamily(gemma3Rename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms, gemmaNorms}, siglipTower),
	"gemma3_text": ckptFamily(gemma3Rename, [][]moduleRule{gqaAttention, qkNorms, gatedMLP, twoNorms, gemmaNorms}),
}
