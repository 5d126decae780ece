package vllm

// The advice: vLLM's serve settings searched for what would make a serve
// fit: more tensor ranks, more pipeline stages and both, an fp8 KV cache,
// online fp8 weights, a higher --gpu-memory-utilization within the class's
// ceiling, and on each of their combinations a shorter --max-model-len or
// fewer sequences. Every suggestion is checked by the same evaluator the
// report uses (it fits, a bound is the verified bound) and by vLLM's
// startup checks (it starts); a suggestion another beats on every count is
// dropped; a search that finds nothing says which space it covered.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/model"
)

// Suggestion is one change of the serve's settings that makes the target
// fit, or, for the bounds, the largest value that does.
type Suggestion struct {
	// Flags is the change as vLLM's flags: "--max-model-len 23408",
	// "--kv-cache-dtype fp8 --gpu-memory-utilization 0.95"; "" for the
	// serve as given, at the bound At holds.
	Flags string
	// Why says in a few words what the suggestion holds.
	Why string
	// Serve is the serve with the change.
	Serve Serve
	// At is the footprint the suggestion was checked at: it fits. Its
	// sequences and tokens are the target's, or the bound the suggestion
	// names.
	At budget.Footprint
	// GPUs is the devices the serve takes: tensor x pipeline x data ranks.
	GPUs uint64
	// Holds says the target is held in full: neither a shorter
	// --max-model-len nor fewer sequences than it asks.
	Holds bool
	// Online says the suggestion quantizes the weights as vLLM loads them
	// (--quantization fp8), which changes the model's numerics.
	Online bool
}

// Advice is the suggestions for a serve that does not fit, and the space
// the search covered.
type Advice struct {
	Suggestions []Suggestion
	// Searched names each lever the search tried, with its range.
	Searched []string
}

// Search compiles the serves of one model on one class under one profile,
// for the advice and the plan: membudget's vLLM rules, searched.
type Search struct {
	Arch    *model.Arch
	Class   budget.Class
	Profile Profile
	// Compiler compiles Arch's serves, keeping their weights from one to
	// the next; nil gives each search a compiler of its own.
	Compiler *Compiler
	// memo, when not nil, keeps the last serves compiled: a plan tries the
	// same few serves (each util, each raised --max-num-seqs) for every
	// data-parallel degree in a row.
	memo *memo
}

// memo is the last serves compiled, replaced in turn, and the first
// internal error a plan's queries met.
type memo struct {
	entries [4]compiled
	next    int
	err     error
}

// compiled is one serve's compilation, with what vLLM's startup check
// reads beside the plan.
type compiled struct {
	s    Serve
	ok   bool
	k    kvCheck
	plan *budget.Plan
	err  error
}

// ensureCompiler gives e a compiler of its own when it has none.
func (e *Search) ensureCompiler() {
	if e.Compiler == nil {
		e.Compiler = NewCompiler(e.Arch)
	}
}

// compile resolves and compiles s; a serve vLLM refuses is no candidate.
func (e *Search) compile(s Serve) (Resolved, *budget.Plan, error) {
	c := e.compiled(s)
	return c.k.r, c.plan, c.err
}

// compiled is s compiled, from the memo when it holds s; the result is
// the memo's until the next call.
func (e *Search) compiled(s Serve) *compiled {
	e.ensureCompiler()
	if e.memo == nil {
		c := &compiled{s: s, ok: true}
		c.k, c.plan, c.err = e.Compiler.compile(s, e.Class, e.Profile)
		return c
	}
	for i := range e.memo.entries {
		if c := &e.memo.entries[i]; c.ok && c.s == s {
			return c
		}
	}
	c := &e.memo.entries[e.memo.next]
	e.memo.next = (e.memo.next + 1) % len(e.memo.entries)
	c.s, c.ok = s, true
	c.k, c.plan, c.err = e.Compiler.compile(s, e.Class, e.Profile)
	return c
}

// refusal is why vLLM refuses to start s ("" when it starts it): see
// [startRefusal].
func (e *Search) refusal(s Serve) string {
	c := e.compiled(s)
	if c.err != nil {
		return c.err.Error()
	}
	return c.k.capacity(c.plan).Refusal(c.k.r.MaxModelLen, c.k.r.MaxNumSeqs)
}

// startRefusal is why vLLM refuses to start serve s on c under p ("" when
// it starts it): the setting error when it refuses a setting, else its
// startup checks of the compiled serve. The advice and the plan keep only
// what this passes, so that every line they print starts.
func startRefusal(cp *Compiler, s Serve, c budget.Class, p Profile) string {
	k, plan, err := cp.compile(s, c, p)
	if err != nil {
		return err.Error()
	}
	return k.capacity(plan).Refusal(k.r.MaxModelLen, k.r.MaxNumSeqs)
}

// Advise searches what would make t fit for the serve s, which does not:
// on the serve as it is and on each combination of more ranks, an fp8 KV
// cache and online fp8 weights (see [Search.bases]), the target in full
// (at the serve's util, else the lowest util up to the class's ceiling
// that holds it), else the longest --max-model-len and the most sequences
// that fit (at the serve's util and at the ceiling). A lever is tried only
// where vLLM takes it (an fp8 KV cache on a device that has a backend for
// it, tensor ranks that divide the model's heads), and a suggestion only
// kept when vLLM starts it and no other beats it on every count (see
// [dominates]). The suggestions come fewest GPUs first, those that hold
// the target in full before the bounds, the checkpoint's precision before
// online quantization.
func (e Search) Advise(s Serve, t engine.Target) (Advice, error) {
	e.ensureCompiler()
	r, _, err := e.compile(s)
	if err != nil {
		return Advice{}, err
	}
	var adv Advice
	ceiling := e.Class.Memory.UtilCeiling
	byUtil := r.KVCacheMemoryBytes == 0
	canRaise := byUtil && r.GPUMemoryUtilization < ceiling

	// A smaller --max-num-seqs shrinks what the profile run sizes for the
	// whole batch (the sampler's logits, the largest CUDA graph): the
	// largest step of the ladder that still takes the target.
	if seqs := seqsLadder(r.MaxNumSeqs, t.Seqs); len(seqs) > 0 {
		for _, m := range seqs {
			if sug, ok := e.check(r.Serve, t, variant{fmt.Sprintf("--max-num-seqs %d", m), func(s *Serve) { s.MaxNumSeqs = m }}); ok {
				sug.Why = fmt.Sprintf("a smaller batch: %s", sug.Why)
				adv.add(sug)
				break
			}
		}
		adv.Searched = append(adv.Searched, fmt.Sprintf("--max-num-seqs %d..%d as the batch's size", seqs[len(seqs)-1], seqs[0]))
	}

	bases, space := e.bases(r)
	adv.Searched = append(adv.Searched, fmt.Sprintf("--max-model-len 1..%d at %d sequence(s)", t.Tokens, t.Seqs),
		fmt.Sprintf("--max-num-seqs 1..%d at %d tokens", t.Seqs, t.Tokens))
	adv.Searched = append(adv.Searched, space...)
	if byUtil {
		adv.Searched = append(adv.Searched, fmt.Sprintf("--gpu-memory-utilization up to the class's ceiling %v", ceiling))
	}
	if len(space) > 0 {
		adv.Searched = append(adv.Searched, "each combination of those, in full and with the two bounds")
	}
	for _, b := range bases {
		// A serve whose --max-model-len is above the target's length and
		// that vLLM refuses to start (one request of it does not fit) is
		// tried at the target's length: what the target needs, and no
		// more.
		if trial := b.on(r.Serve); trial.MaxModelLen > t.Tokens && e.refusal(trial) != "" {
			b = b.then(variant{fmt.Sprintf("--max-model-len %d", t.Tokens), func(s *Serve) { *s = withLen(*s, t.Tokens) }})
		}
		if b.flags != "" {
			if sug, ok := e.check(r.Serve, t, b); ok {
				adv.add(sug)
				continue // the target in full: no bound, no util, says more
			}
		}
		if byUtil {
			if sug, ok := e.lowestUtil(r.Serve, t, b); ok {
				adv.add(sug)
			}
		}
		trial := b.on(r.Serve)
		if _, plan, err := e.compile(trial); err == nil {
			if sug, ok, err := e.boundLen(trial, plan, t); err != nil {
				return Advice{}, err
			} else if ok {
				sug.Flags = joinFlags(withoutFlag(b.flags, "--max-model-len"), sug.Flags)
				adv.add(sug)
			}
			if sug, ok, err := e.boundSeqs(trial, plan, t); err != nil {
				return Advice{}, err
			} else if ok {
				sug.Flags = joinFlags(b.flags, sug.Flags)
				adv.add(sug)
			}
		}
		// The length bound at the ceiling only for the serve as it is: on
		// every combination it would double the bounds for a util the
		// user can add to any of them.
		if canRaise && b.flags == "" {
			high := trial
			high.GPUMemoryUtilization = ceiling
			if _, plan, err := e.compile(high); err == nil {
				if sug, ok, err := e.boundLen(high, plan, t); err != nil {
					return Advice{}, err
				} else if ok {
					sug.Flags = joinFlags(b.flags, fmt.Sprintf("--gpu-memory-utilization %v", ceiling), sug.Flags)
					adv.add(sug)
				}
			}
		}
	}
	for i := range adv.Suggestions {
		sg := &adv.Suggestions[i]
		sg.Holds = sg.At.Tokens >= t.Tokens && sg.At.Seqs >= t.Seqs
		sg.Online = sg.Serve.Quantization != r.Quantization
	}
	adv.Suggestions = undominated(r, t, adv.Suggestions)
	slices.SortStableFunc(adv.Suggestions, func(a, b Suggestion) int {
		return cmp.Or(cmp.Compare(a.GPUs, b.GPUs), engine.BoolOrder(!a.Holds, !b.Holds), engine.BoolOrder(a.Online, b.Online),
			engine.BoolOrder(a.Serve.KVCacheDtype != r.KVCacheDtype, b.Serve.KVCacheDtype != r.KVCacheDtype),
			cmp.Compare(a.Serve.PipelineParallelSize, b.Serve.PipelineParallelSize),
			cmp.Compare(strings.Count(a.Flags, "--"), strings.Count(b.Flags, "--")))
	})
	return adv, nil
}

// withoutFlag is flags without the flag name and its value.
func withoutFlag(flags, name string) string {
	f := strings.Fields(flags)
	var out []string
	for i := 0; i < len(f); i++ {
		if f[i] == name {
			i++ // and its value
			continue
		}
		out = append(out, f[i])
	}
	return strings.Join(out, " ")
}

// joinFlags joins flag strings, skipping the empty.
func joinFlags(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " ")
}

// seqsLadder is the --max-num-seqs values to try below the serve's, largest
// first, none below the target's sequences: powers of two from 512 down.
func seqsLadder(current, target uint64) []uint64 {
	var out []uint64
	for m := uint64(512); m >= 1; m /= 2 {
		if m < current && m >= target {
			out = append(out, m)
		}
	}
	return out
}

func (adv *Advice) add(s Suggestion) {
	for _, have := range adv.Suggestions {
		if have.Flags == s.Flags {
			return
		}
	}
	adv.Suggestions = append(adv.Suggestions, s)
}

// merit is what a suggestion costs (the GPUs, and each lever it moves
// away from the serve) and what it holds of the target.
type merit struct {
	gpus, pp                 uint64
	online, kv, util, ladder bool
	seqs, tokens             uint64
}

func meritOf(r Resolved, t engine.Target, sg Suggestion) merit {
	s := sg.Serve
	return merit{gpus: sg.GPUs, pp: s.PipelineParallelSize, online: s.Quantization != r.Quantization, kv: s.KVCacheDtype != r.KVCacheDtype,
		util: s.GPUMemoryUtilization != r.GPUMemoryUtilization, ladder: s.MaxNumSeqs != r.MaxNumSeqs && s.MaxNumSeqs >= t.Seqs,
		seqs: min(sg.At.Seqs, t.Seqs), tokens: min(sg.At.Tokens, t.Tokens)}
}

// dominates reports whether a suggestion of merit q is at least as good
// as one of merit p on every count (no more GPUs, no more pipeline stages
// (tensor ranks within a node are the faster way to spread a model), no
// lever p does not move, as many sequences and tokens held) and better on
// one: then p says nothing a user would take. Equal on every count, both
// stay.
func (q merit) dominates(p merit) bool {
	le := func(a, b bool) bool { return !a || b }
	if q.gpus > p.gpus || q.pp > p.pp || !le(q.online, p.online) || !le(q.kv, p.kv) || !le(q.util, p.util) || !le(q.ladder, p.ladder) ||
		q.seqs < p.seqs || q.tokens < p.tokens {
		return false
	}
	return q != p
}

// undominated drops every suggestion another dominates: fp8 with four
// ranks when four ranks alone fit, a shorter length at 4 GPUs when 4 GPUs
// hold the target in full.
func undominated(r Resolved, t engine.Target, sugs []Suggestion) []Suggestion {
	merits := make([]merit, len(sugs))
	for i, sg := range sugs {
		merits[i] = meritOf(r, t, sg)
	}
	var out []Suggestion
	for i, sg := range sugs {
		beaten := false
		for j := range sugs {
			if i != j && merits[j].dominates(merits[i]) {
				beaten = true
				break
			}
		}
		if !beaten {
			out = append(out, sg)
		}
	}
	return out
}

// variant is one change of the serve: its flags and how it sets them.
type variant struct {
	flags string
	apply func(*Serve)
}

// on is s with v applied.
func (v variant) on(s Serve) Serve {
	if v.apply != nil {
		v.apply(&s)
	}
	return s
}

// then is v followed by w.
func (v variant) then(w variant) variant {
	flags := strings.TrimSpace(v.flags + " " + w.flags)
	return variant{flags, func(s *Serve) {
		if v.apply != nil {
			v.apply(s)
		}
		if w.apply != nil {
			w.apply(s)
		}
	}}
}

// Ranks and stages the advice tries: tensor ranks within a node of 8 (an
// HGX board: [engine.DefaultGPUsPerNode]), pipeline stages to 4, so up to
// 32 GPUs (DeepSeek-V3 on H100s takes TP 8 x PP 2).
var (
	adviceTP = []uint64{2, 4, 8}
	advicePP = []uint64{2, 4}
)

// bases is every combination of the structural levers on r: more tensor
// ranks, more pipeline stages, an fp8 KV cache (when r's is wider) and
// online fp8 weights (when the checkpoint is unquantized and no
// --quantization is given), the serve as it is first; and the space in
// words.
func (e *Search) bases(r Resolved) ([]variant, []string) {
	// above is the serve's own value, then each of more that exceeds it.
	above := func(own uint64, more []uint64, limit uint64) []uint64 {
		out := []uint64{own}
		for _, v := range more {
			if v > own && v <= limit {
				out = append(out, v)
			}
		}
		return out
	}
	tps := above(r.TensorParallelSize, adviceTP, math.MaxUint64)
	pps := above(r.PipelineParallelSize, advicePP, uint64(len(e.Arch.Layers)))
	ranks := []variant{{}}
	for _, tp := range tps {
		for _, pp := range pps {
			if tp == r.TensorParallelSize && pp == r.PipelineParallelSize {
				continue // the serve as it is, already first
			}
			var flags []string
			if tp != r.TensorParallelSize {
				flags = append(flags, fmt.Sprintf("--tensor-parallel-size %d", tp))
			}
			if pp != r.PipelineParallelSize {
				flags = append(flags, fmt.Sprintf("--pipeline-parallel-size %d", pp))
			}
			ranks = append(ranks, variant{strings.Join(flags, " "), func(s *Serve) { s.TensorParallelSize, s.PipelineParallelSize = tp, pp }})
		}
	}
	var space []string
	list := func(vs []uint64) string {
		var out []string
		for _, v := range vs {
			out = append(out, fmt.Sprint(v))
		}
		return strings.Join(out, ", ")
	}
	if len(tps) > 1 {
		space = append(space, "--tensor-parallel-size "+list(tps[1:]))
	}
	if len(pps) > 1 {
		space = append(space, "--pipeline-parallel-size "+list(pps[1:]))
	}
	levers := []variant{{}}
	if r.KVDtypeBytes > 1 {
		levers = append(levers, variant{"--kv-cache-dtype fp8", func(s *Serve) { s.KVCacheDtype = "fp8" }})
		space = append(space, "--kv-cache-dtype fp8")
	}
	if e.Arch.Quant.Method == "" && r.Quantization == "" {
		online := variant{"--quantization fp8", func(s *Serve) { s.Quantization = "fp8" }}
		n := len(levers)
		for _, l := range levers[:n] {
			levers = append(levers, l.then(online))
		}
		space = append(space, "--quantization fp8 (online: changes the model's numerics)")
	}
	var out []variant
	for _, rk := range ranks {
		for _, l := range levers {
			out = append(out, rk.then(l))
		}
	}
	return out, space
}

// check compiles the serve with v and evaluates the target; ok when it
// fits and vLLM starts it.
func (e *Search) check(s Serve, t engine.Target, v variant) (Suggestion, bool) {
	if v.apply != nil {
		v.apply(&s)
	}
	r, plan, err := e.compile(s)
	if err != nil {
		return Suggestion{}, false
	}
	if t.Tokens > r.MaxModelLen || t.Seqs > r.MaxNumSeqs {
		return Suggestion{}, false
	}
	f := plan.Evaluate(t.Seqs, t.Tokens)
	if !f.Fits() || e.refusal(s) != "" {
		return Suggestion{}, false
	}
	return Suggestion{Flags: v.flags, Serve: s, At: f, GPUs: gpus(r), Why: fmt.Sprintf("%d sequence(s) of %d tokens fit", t.Seqs, t.Tokens)}, true
}

// lowestUtil finds the smallest util, in hundredths, between the serve's
// and the class's ceiling at which the target fits with v applied,
// starting where the budget first covers the ledger.
func (e *Search) lowestUtil(s Serve, t engine.Target, v variant) (Suggestion, bool) {
	if v.apply != nil {
		v.apply(&s)
	}
	r, plan, err := e.compile(s)
	if err != nil || t.Tokens > r.MaxModelLen || t.Seqs > r.MaxNumSeqs {
		return Suggestion{}, false
	}
	current := r.GPUMemoryUtilization
	ceiling := e.Class.Memory.UtilCeiling
	f := plan.Evaluate(t.Seqs, t.Tokens)
	need := float64(f.Ledger) / float64(e.Class.Device.MemoryBytes)
	start := math.Ceil(max(need, math.Min(current, ceiling))*100) / 100
	if current <= ceiling && f.Fits() {
		return Suggestion{}, false // fits as it is: not a util change
	}
	for u := start; u <= ceiling+1e-9; u = math.Round(u*100+1) / 100 {
		if u == current {
			continue
		}
		trial := s
		trial.GPUMemoryUtilization = u
		r, plan, err := e.compile(trial)
		if err != nil {
			return Suggestion{}, false
		}
		// Every hundredth up to the ceiling: the driver's slice shrinks as
		// the util grows, but the allocator's slack over the KV tensors the
		// budget sizes moves in steps, so a util can fit between two that
		// do not.
		if f := plan.Evaluate(t.Seqs, t.Tokens); f.Fits() && e.refusal(trial) == "" {
			flags := strings.TrimSpace(v.flags + fmt.Sprintf(" --gpu-memory-utilization %v", u))
			return Suggestion{Flags: flags, Serve: trial, At: f, GPUs: gpus(r),
				Why: fmt.Sprintf("%d sequence(s) of %d tokens fit", t.Seqs, t.Tokens)}, true
		}
	}
	return Suggestion{}, false
}

// boundLen is the longest --max-model-len at which t.Seqs sequences fit,
// checked on the serve recompiled with it (it fits, and vLLM starts it): a version whose other terms
// follow max_model_len (the V0 engine batches the whole context) can move
// the bound, so the search runs again on the new serve until it holds.
func (e *Search) boundLen(s Serve, plan *budget.Plan, t engine.Target) (Suggestion, bool, error) {
	limit := t.Tokens
	for range 4 {
		ans, err := budget.MaxLength(plan, t.Seqs, limit)
		if err != nil {
			return Suggestion{}, false, err
		}
		if !ans.Fits || ans.Value >= s.MaxModelLen {
			return Suggestion{}, false, nil // nothing fits, or no shorter length
		}
		trial := withLen(s, ans.Value)
		r, again, err := e.compile(trial)
		if err != nil {
			return Suggestion{}, false, nil
		}
		if f := again.Evaluate(t.Seqs, ans.Value); f.Fits() {
			if e.refusal(trial) != "" {
				return Suggestion{}, false, nil // it fits, and vLLM refuses to start it
			}
			why := fmt.Sprintf("the longest that fits at %d sequence(s)", t.Seqs)
			if ans.Value == t.Tokens {
				why = fmt.Sprintf("%d sequence(s) of %d tokens fit, and vLLM starts at that length", t.Seqs, t.Tokens)
			}
			return Suggestion{Flags: fmt.Sprintf("--max-model-len %d", ans.Value), Serve: trial, Why: why, At: f, GPUs: gpus(r)}, true, nil
		}
		plan, limit = again, ans.Value
	}
	return Suggestion{}, false, nil
}

// boundSeqs is the most sequences of t.Tokens that fit, below t.Seqs,
// checked on the serve recompiled with it as --max-num-seqs: a smaller cap
// shrinks what the profile run sizes for the whole batch (the charged
// CUDA-graph estimate, the sampler), and the allocator's slack over the KV
// tensors the budget then sizes moves in steps, so the bound can move; the
// search runs again on the new serve until it holds.
//
// The same steps can make no smaller cap fit at all while the serve as
// given holds the bound: its larger profile run leaves a smaller KV cache,
// whose slack (or, on unified memory, whose request to the driver) is
// the one that fits. Then the bound is offered on the serve as given, its
// --max-num-seqs kept: vLLM starts it and admits no more sequences than
// the KV cache holds, so "nothing fits" would be false.
func (e *Search) boundSeqs(s Serve, plan *budget.Plan, t engine.Target) (Suggestion, bool, error) {
	first, err := budget.MaxSequences(plan, t.Tokens, t.Seqs)
	if err != nil {
		return Suggestion{}, false, err
	}
	if !first.Fits || first.Value >= t.Seqs {
		return Suggestion{}, false, nil
	}
	ans, limit := first, t.Seqs
	for range 4 {
		trial := withSeqs(s, ans.Value)
		r, again, err := e.compile(trial)
		if err != nil {
			break
		}
		if f := again.Evaluate(ans.Value, t.Tokens); f.Fits() {
			if e.refusal(trial) != "" {
				break
			}
			return Suggestion{Flags: fmt.Sprintf("--max-num-seqs %d", ans.Value), Serve: trial,
				Why: fmt.Sprintf("the most sequences of %d tokens that fit", t.Tokens), At: f, GPUs: gpus(r)}, true, nil
		}
		plan, limit = again, ans.Value
		if ans, err = budget.MaxSequences(plan, t.Tokens, limit); err != nil {
			return Suggestion{}, false, err
		}
		if !ans.Fits || ans.Value >= t.Seqs {
			break
		}
	}
	r, given, err := e.compile(s)
	if err != nil || e.refusal(s) != "" {
		return Suggestion{}, false, nil
	}
	f := given.Evaluate(first.Value, t.Tokens)
	if !f.Fits() {
		return Suggestion{}, false, nil
	}
	return Suggestion{Serve: s, At: f, GPUs: gpus(r),
		Why: fmt.Sprintf("at most %d sequence(s) of %d tokens at a time with --max-num-seqs kept at %d: a smaller cap leaves a larger KV cache that no longer fits", first.Value, t.Tokens, s.MaxNumSeqs)}, true, nil
}

func withLen(s Serve, l uint64) Serve {
	s.MaxModelLen, s.AutoMaxModelLen = l, false
	return s
}

func withSeqs(s Serve, n uint64) Serve {
	s.MaxNumSeqs = n
	return s
}

func gpus(r Resolved) uint64 {
	return r.TensorParallelSize * r.PipelineParallelSize * r.DataParallelSize
}
