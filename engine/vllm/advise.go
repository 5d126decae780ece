package vllm

// The advice: vLLM's serve settings searched for what would make a serve
// fit: a shorter --max-model-len, fewer --max-num-seqs, an fp8 KV cache, a
// higher --gpu-memory-utilization within the class's ceiling, more tensor or
// pipeline ranks, and their combinations. Every suggestion is checked by the
// same evaluator the report uses (it fits, and a bound is the verified
// bound), and a search that finds nothing says which space it covered.

import (
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
	// "--kv-cache-dtype fp8 --gpu-memory-utilization 0.95".
	Flags string
	// Why says in a few words what the suggestion holds.
	Why string
	// Serve is the serve with the change.
	Serve Serve
	// At is the footprint the suggestion was checked at: it fits.
	At budget.Footprint
	// GPUs is the devices the serve takes: tensor x pipeline x data ranks.
	GPUs uint64
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

// Advise searches what would make t fit for the serve s, which does not: each
// lever alone, then the KV cache in fp8 with each of the others. A lever is
// tried only where vLLM takes it (an fp8 KV cache on a device that has a
// backend for it, tensor ranks that divide the model's heads).
func (e Search) Advise(s Serve, t engine.Target) (Advice, error) {
	e.ensureCompiler()
	r, plan, err := e.compile(s)
	if err != nil {
		return Advice{}, err
	}
	var adv Advice

	// The bounds at the serve's own settings: how long at t.Seqs, how many
	// at t.Tokens.
	if sug, ok, err := e.boundLen(r.Serve, plan, t); err != nil {
		return Advice{}, err
	} else if ok {
		adv.add(sug)
	}
	adv.Searched = append(adv.Searched, fmt.Sprintf("--max-model-len 1..%d at %d sequence(s)", t.Tokens, t.Seqs))
	if sug, ok, err := e.boundSeqs(r.Serve, plan, t); err != nil {
		return Advice{}, err
	} else if ok {
		adv.add(sug)
	}
	adv.Searched = append(adv.Searched, fmt.Sprintf("--max-num-seqs 1..%d at %d tokens", t.Seqs, t.Tokens))

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
	// The length bound again with the util at the class's ceiling.
	if ceiling := e.Class.Memory.UtilCeiling; r.KVCacheMemoryBytes == 0 && r.GPUMemoryUtilization < ceiling {
		trial := r.Serve
		trial.GPUMemoryUtilization = ceiling
		if _, plan, err := e.compile(trial); err == nil {
			if sug, ok, err := e.boundLen(trial, plan, t); err != nil {
				return Advice{}, err
			} else if ok && sug.Serve.MaxModelLen < t.Tokens && sug.Serve.MaxModelLen > adv.boundAt(t.Seqs) {
				// A bound below the target (at the target, the util alone
				// is the suggestion) and above the one at the serve's util.
				sug.Flags = fmt.Sprintf("--gpu-memory-utilization %v %s", ceiling, sug.Flags)
				adv.add(sug)
			}
			adv.Searched = append(adv.Searched, fmt.Sprintf("--max-model-len 1..%d at --gpu-memory-utilization %v", t.Tokens, ceiling))
		}
	}

	// Whole changes of the serve, each checked at the target.
	var variants []variant
	if r.KVDtypeBytes > 1 {
		variants = append(variants, variant{"--kv-cache-dtype fp8", func(s *Serve) { s.KVCacheDtype = "fp8" }})
		adv.Searched = append(adv.Searched, "--kv-cache-dtype fp8")
	}
	ranks := e.rankVariants(r)
	variants = append(variants, ranks...)
	if len(ranks) > 0 {
		adv.Searched = append(adv.Searched, rankSpace(ranks))
	}
	base := []variant{{}}
	if r.KVDtypeBytes > 1 {
		base = append(base, variant{"--kv-cache-dtype fp8", func(s *Serve) { s.KVCacheDtype = "fp8" }})
	}
	for _, v := range variants {
		if sug, ok := e.check(r.Serve, t, v); ok {
			adv.add(sug)
		}
	}
	// The util, alone and with each other lever: the budget grows with it,
	// the driver's slice shrinks, so the smallest util that fits is the one
	// to try, up to the class's ceiling.
	ceiling := e.Class.Memory.UtilCeiling
	if r.KVCacheMemoryBytes == 0 {
		adv.Searched = append(adv.Searched, fmt.Sprintf("--gpu-memory-utilization up to the class's ceiling %v", ceiling))
		for _, b := range base {
			for _, v := range append([]variant{{}}, ranks...) {
				combined := b.then(v)
				if sug, ok := e.lowestUtil(r.Serve, t, combined); ok {
					adv.add(sug)
				}
			}
		}
	}
	if r.KVDtypeBytes > 1 {
		for _, v := range ranks {
			if sug, ok := e.check(r.Serve, t, base[1].then(v)); ok {
				adv.add(sug)
			}
		}
		if len(ranks) > 0 {
			adv.Searched = append(adv.Searched, "--kv-cache-dtype fp8 with each of those")
		}
	}
	adv.Suggestions = minimal(adv.Suggestions)
	slices.SortStableFunc(adv.Suggestions, func(a, b Suggestion) int {
		if a.GPUs != b.GPUs {
			return int(a.GPUs) - int(b.GPUs)
		}
		return strings.Count(a.Flags, "--") - strings.Count(b.Flags, "--")
	})
	return adv, nil
}

// boundAt is the --max-model-len bound already suggested, 0 when none.
func (adv *Advice) boundAt(seqs uint64) uint64 {
	for _, s := range adv.Suggestions {
		if strings.HasPrefix(s.Flags, "--max-model-len ") {
			return s.Serve.MaxModelLen
		}
	}
	return 0
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

// minimal drops every suggestion that holds all the changes of another:
// fp8 with four ranks says nothing when four ranks alone fit.
func minimal(sugs []Suggestion) []Suggestion {
	var out []Suggestion
	for i, s := range sugs {
		redundant := false
		for j, o := range sugs {
			if i != j && len(o.Flags) < len(s.Flags) && containsAll(s.Flags, o.Flags) {
				redundant = true
				break
			}
		}
		if !redundant {
			out = append(out, s)
		}
	}
	return out
}

// containsAll reports whether every flag of sub (with its value) is in set.
func containsAll(set, sub string) bool {
	for _, part := range strings.Split(sub, "--")[1:] {
		if !strings.Contains(set, "--"+strings.TrimSpace(part)) {
			return false
		}
	}
	return true
}

// variant is one change of the serve: its flags and how it sets them.
type variant struct {
	flags string
	apply func(*Serve)
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

// rankVariants is more tensor ranks (each power of two up to 8 that the
// model's heads take) and more pipeline stages (2 and 4), one at a time.
func (e *Search) rankVariants(r Resolved) []variant {
	var out []variant
	for _, tp := range []uint64{2, 4, 8} {
		if tp <= r.TensorParallelSize {
			continue
		}
		out = append(out, variant{fmt.Sprintf("--tensor-parallel-size %d", tp), func(s *Serve) { s.TensorParallelSize = tp }})
	}
	for _, pp := range []uint64{2, 4} {
		if pp <= r.PipelineParallelSize || pp > uint64(len(e.Arch.Layers)) {
			continue
		}
		out = append(out, variant{fmt.Sprintf("--pipeline-parallel-size %d", pp), func(s *Serve) { s.PipelineParallelSize = pp }})
	}
	return out
}

func rankSpace(ranks []variant) string {
	var names []string
	for _, v := range ranks {
		names = append(names, v.flags)
	}
	return strings.Join(names, ", ")
}

// check compiles the serve with v and evaluates the target; ok when it
// fits.
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
	if !f.Fits() {
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
		if f := plan.Evaluate(t.Seqs, t.Tokens); f.Fits() {
			flags := strings.TrimSpace(v.flags + fmt.Sprintf(" --gpu-memory-utilization %v", u))
			return Suggestion{Flags: flags, Serve: trial, At: f, GPUs: gpus(r),
				Why: fmt.Sprintf("%d sequence(s) of %d tokens fit", t.Seqs, t.Tokens)}, true
		}
	}
	return Suggestion{}, false
}

// boundLen is the longest --max-model-len at which t.Seqs sequences fit,
// checked on the serve recompiled with it: a version whose other terms
// follow max_model_len (the V0 engine batches the whole context) can move
// the bound, so the search runs again on the new serve until it holds.
func (e *Search) boundLen(s Serve, plan *budget.Plan, t engine.Target) (Suggestion, bool, error) {
	limit := t.Tokens
	for range 4 {
		ans, err := budget.MaxLength(plan, t.Seqs, limit)
		if err != nil {
			return Suggestion{}, false, err
		}
		if !ans.Fits {
			return Suggestion{}, false, nil
		}
		trial := withLen(s, ans.Value)
		r, again, err := e.compile(trial)
		if err != nil {
			return Suggestion{}, false, nil
		}
		if f := again.Evaluate(t.Seqs, ans.Value); f.Fits() {
			return Suggestion{Flags: fmt.Sprintf("--max-model-len %d", ans.Value), Serve: trial,
				Why: fmt.Sprintf("the longest that fits at %d sequence(s)", t.Seqs), At: f, GPUs: gpus(r)}, true, nil
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
func (e *Search) boundSeqs(s Serve, plan *budget.Plan, t engine.Target) (Suggestion, bool, error) {
	limit := t.Seqs
	for range 4 {
		ans, err := budget.MaxSequences(plan, t.Tokens, limit)
		if err != nil {
			return Suggestion{}, false, err
		}
		if !ans.Fits || ans.Value >= t.Seqs {
			return Suggestion{}, false, nil
		}
		trial := withSeqs(s, ans.Value)
		r, again, err := e.compile(trial)
		if err != nil {
			return Suggestion{}, false, nil
		}
		if f := again.Evaluate(ans.Value, t.Tokens); f.Fits() {
			return Suggestion{Flags: fmt.Sprintf("--max-num-seqs %d", ans.Value), Serve: trial,
				Why: fmt.Sprintf("the most sequences of %d tokens that fit", t.Tokens), At: f, GPUs: gpus(r)}, true, nil
		}
		plan, limit = again, ans.Value
	}
	return Suggestion{}, false, nil
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
