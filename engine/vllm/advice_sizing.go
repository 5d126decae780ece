package vllm

// A report's advice for a vLLM serve: the search (see [Search.Advise]),
// what lets vLLM start a serve it refuses, and the plan to run when no
// suggestion holds the target.

import (
	"fmt"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/shell"
)

// Advise searches what would make t fit and vLLM start (see [Search]):
// first what lets vLLM start a serve it refuses, then, when the footprint
// itself does not fit, every lever, keeping only the changes vLLM starts.
// When no suggestion holds t in full, the advice names the plan that
// searches further.
func (sz *Sizing) Advise(t engine.Target) (engine.Advice, error) {
	r := sz.Serve
	found, err := Search{Arch: sz.Model.Arch, Class: sz.Class, Profile: r.Profile, Compiler: compilerOf(sz.Model)}.Advise(r.Serve, t)
	if err != nil {
		return engine.Advice{}, err
	}
	adv := engine.Advice{Suggestions: sz.startFixes(t), Searched: found.Searched}
	for _, sg := range found.Suggestions {
		if why := sz.refusalOf(sg.Serve); why != "" {
			continue // it fits the footprint, and vLLM still refuses it
		}
		if slices.ContainsFunc(adv.Suggestions, func(have engine.Suggestion) bool { return have.Flags == sg.Flags }) {
			continue
		}
		numerics := ""
		if sg.Online {
			numerics = OnlineFP8Numerics
		}
		adv.Suggestions = append(adv.Suggestions, engine.Suggestion{Flags: sg.Flags, Why: sg.Why, GPUs: sg.GPUs, At: sg.At, Holds: sg.Holds, Numerics: numerics})
	}
	if len(adv.Suggestions) == 0 {
		if one := sz.plan.Evaluate(1, 1); !one.Fits() {
			adv.Notes = append(adv.Notes, fmt.Sprintf("one sequence of one token: the fixed part (weights %s, activation and sampler %s) leaves %s",
				engine.GiB(one.Terms[budget.TermWeights]), engine.GiB(one.Terms[budget.TermActivation]+one.Terms[budget.TermSampler]), sz.shortfall(one)))
		}
	}
	if !slices.ContainsFunc(adv.Suggestions, func(sg engine.Suggestion) bool { return sg.Holds }) {
		adv.Plan = sz.planCommand(t)
		adv.Notes = append(adv.Notes, fmt.Sprintf("membudget plan searches every class, tensor x pipeline x data ranks up to %d GPUs (tensor ranks within a node of %d), the checkpoint's weights (and online fp8 for an unquantized one), KV auto and fp8, at util %v or each class's ceiling, and ranks what holds %d sequence(s) of %d tokens:",
			planGPUs, engine.DefaultGPUsPerNode, r.Profile.DefaultUtil, t.Seqs, t.Tokens))
	}
	return adv, nil
}

// OnlineFP8Numerics is what an advice says of --quantization fp8 on an
// unquantized checkpoint.
const OnlineFP8Numerics = "--quantization fp8 has vLLM quantize the weights to fp8 as it loads them, which changes the model's numerics: check its quality before serving it"

// planGPUs is the GPUs the plan an advice prints searches up to: 4 nodes
// of 8, as the advice's own ranks reach (TP 8 x PP 4).
const planGPUs = 32

// planCommand is the `membudget plan` command that searches every class for
// t under the sizing's vLLM: the model at its revision, the release when
// not main, the long-length allowance when the serve has it.
func (sz *Sizing) planCommand(t engine.Target) string {
	m := sz.Model.Name
	if rev := sz.Model.Revision(); rev != "" {
		m += "@" + rev
	}
	parts := []string{"membudget plan --model", shell.Quote(m), fmt.Sprintf("--length %d --concurrency %d --max-gpus %d", t.Tokens, t.Seqs, planGPUs)}
	if p := sz.Serve.Profile; !p.Main {
		parts = append(parts, "--vllm-version", p.Name)
	}
	if sz.Serve.AllowLongMaxModelLen {
		parts = append(parts, "--allow-long-max-model-len")
	}
	return strings.Join(parts, " ")
}

// refusalOf is why vLLM refuses serve s of the sizing's model and class,
// "" when it starts it, or the setting error when it refuses a setting.
func (sz *Sizing) refusalOf(s Serve) string {
	return startRefusal(compilerOf(sz.Model), s, sz.Class, sz.Serve.Profile)
}

// startFixes are the changes that let vLLM start a serve it refuses, each
// checked on the serve recompiled with it (vLLM starts it, and the target
// fits): --max-model-len at vLLM's own estimate when the target's length
// is within it, and --max-num-seqs at the Mamba cache blocks (fewer
// sequences shrink the profile run, so the blocks do not fall).
func (sz *Sizing) startFixes(t engine.Target) []engine.Suggestion {
	r, c := sz.Serve, sz.capacity
	var fixes []engine.Suggestion
	try := func(s Serve, flags string, why func(Capacity) string) {
		k, plan, err := compilerOf(sz.Model).compile(s, sz.Class, r.Profile)
		if err != nil {
			return // a serve vLLM refuses: no suggestion
		}
		nc := k.capacity(plan)
		f := plan.Evaluate(t.Seqs, t.Tokens)
		if nc.Refusal(k.r.MaxModelLen, k.r.MaxNumSeqs) != "" || !f.Fits() {
			return
		}
		fixes = append(fixes, engine.Suggestion{Flags: flags, Why: why(nc), GPUs: sz.gpus(), At: f, Holds: true})
	}
	if !c.Starts && c.LongestStarting >= t.Tokens && c.LongestStarting > 0 {
		s := r.Serve
		s.MaxModelLen, s.AutoMaxModelLen = c.LongestStarting, false
		why := "vLLM's estimated maximum model length: the longest one request of which fits the KV cache"
		if c.LongestStarting < c.EstimatedMaxModelLen {
			why = "the longest one request of which fits every pipeline stage's KV cache (vLLM estimates the first failing stage's alone)"
		}
		try(s, fmt.Sprintf("--max-model-len %d", c.LongestStarting), func(Capacity) string { return why })
	}
	if c.SeqsOverStateBlocks && c.StateBlocks >= t.Seqs && c.StateBlocks > 0 {
		s := r.Serve
		s.MaxNumSeqs = c.StateBlocks
		try(s, fmt.Sprintf("--max-num-seqs %d", c.StateBlocks), func(nc Capacity) string {
			return fmt.Sprintf("the Mamba cache blocks: every running sequence holds one; vLLM then has %d", nc.StateBlocks)
		})
	}
	return fixes
}
