package vllm

import (
	"slices"
	"strings"

	"membudget/engine"
	"membudget/model"
)

// vLLM's V2 model-runner oracle, release by release. From PR #39337
// (ae4f59f0e, 2026-05-14) VllmConfig.use_v2_model_runner picks the V2
// runner by default for a model _is_default_v2_model_runner_model accepts
// and no feature _get_v2_model_runner_unsupported_features names
// (vllm/config/vllm.py). Every change to DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES
// and to the checks around it between #39337 and main d18bb7b, read commit
// by commit in the history of vllm/config/vllm.py, and the release whose
// branch first carries it (the cuts: 0.22.0 between 2026-05-22 and 06-02,
// 0.23.0 on 06-07, 0.24.0 between 06-18 and 06-30, 0.25.0 on 07-10/11,
// 0.26.0 between 07-17 and 07-20, 0.26.1 after 07-20, 0.27.0rc1 on 08-07,
// 0.28.0 after 08-14; docs/vllm.md "Which model runner serves a model"):
//
//	0.22.0  #39337 05-14  list {Qwen3ForCausalLM}; a listed model runs on V2
//	                      unless is_moe or is_quantized; has_inner_state
//	                      is an unsupported feature
//	0.23.0  #43458 06-02  + LlamaForCausalLM, MistralForCausalLM
//	0.24.0  #42667 06-12  + DeepseekV2ForCausalLM, Qwen2MoeForCausalLM, and
//	                      the list alone decides: a listed MoE runs on V2
//	        #45461 06-16  + GraniteMoeForCausalLM
//	        #44446 06-18  is_quantized no longer keeps a model on V1
//	0.25.0  #44443 07-02  every non-MoE model unless is_hybrid or
//	                      is_attention_free; the dense names leave the list
//	        #47857 07-10  + LongcatFlashNgramForCausalLM (at 0.25's cut)
//	0.26.0  #48799 07-15  + InklingForCausalLM, InklingForConditionalGeneration
//	0.27.0  #50000 07-30  + KimiK3ForConditionalGeneration; a listed hybrid
//	                      runs on V2
//	0.28.0  #51768 08-11  + DeepseekV4ForCausalLM
//	0.29.0  #53183        every model (V2EveryModel; its source not read)
//
// LongCat-Flash-Lite, Inkling and Kimi-K3 are not architectures membudget
// sizes, so the cut of #47857 matters to no serve it answers.
type v2ListChange struct {
	since Version
	add   []string
	drop  []string
}

// v2ListChanges is DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES's history, each
// change at the first release whose branch carries it (see above).
var v2ListChanges = []v2ListChange{
	{since: v0_22_0, add: []string{"Qwen3ForCausalLM"}},                                            // #39337, 2026-05-14
	{since: v0_23_0, add: []string{"LlamaForCausalLM", "MistralForCausalLM"}},                      // #43458, 2026-06-02
	{since: v0_24_0, add: []string{"DeepseekV2ForCausalLM", "Qwen2MoeForCausalLM"}},                // #42667, 2026-06-12
	{since: v0_24_0, add: []string{"GraniteMoeForCausalLM"}},                                       // #45461, 2026-06-16
	{since: v0_25_0, drop: []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen3ForCausalLM"}}, // #44443, 2026-07-02
	{since: v0_25_0, add: []string{"LongcatFlashNgramForCausalLM"}},                                // #47857, 2026-07-10
	{since: v0_26_0, add: []string{"InklingForCausalLM", "InklingForConditionalGeneration"}},       // #48799, 2026-07-15
	{since: v0_27_0, add: []string{"KimiK3ForConditionalGeneration"}},                              // #50000, 2026-07-30
	{since: v0_28_0, add: []string{"DeepseekV4ForCausalLM"}},                                       // #51768, 2026-08-11
}

// V2Architectures returns the architectures release v's vLLM names in
// DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES, sorted; nil before 0.22.0. From
// 0.29.0 the V2 runner serves every model and the list no longer decides
// ([Profile.V2EveryModel]).
func V2Architectures(v Version) []string {
	var out []string
	for arch := range v2ListSteps {
		if v2ListedArch(v, arch) {
			out = append(out, arch)
		}
	}
	slices.Sort(out)
	return out
}

// v2Listed says one of a's architectures is on release v's list. It
// walks the changes rather than build the list: every stage of a resolved
// serve asks, and Compile keeps its allocations bounded.
func v2Listed(v Version, a *model.Arch) bool {
	return slices.ContainsFunc(a.Architectures, func(arch string) bool { return v2ListedArch(v, arch) })
}

// v2ListedArch says arch is on release v's list: the last change up to v
// that names it added it.
func v2ListedArch(v Version, arch string) bool {
	listed := false
	for _, st := range v2ListSteps[arch] {
		if v.Less(st.since) {
			break
		}
		listed = st.listed
	}
	return listed
}

// v2ListStep is one change of an architecture's place on the V2 list: from
// release since it is listed or not.
type v2ListStep struct {
	since  Version
	listed bool
}

// v2ListSteps is [v2ListChanges] by architecture, in release order, so
// that a compile looks up its architectures rather than walk the whole
// history (a change that both adds and drops a name adds it).
var v2ListSteps = func() map[string][]v2ListStep {
	steps := map[string][]v2ListStep{}
	for _, c := range v2ListChanges {
		for _, arch := range c.drop {
			if !slices.Contains(c.add, arch) {
				steps[arch] = append(steps[arch], v2ListStep{c.since, false})
			}
		}
		for _, arch := range c.add {
			steps[arch] = append(steps[arch], v2ListStep{c.since, true})
		}
	}
	return steps
}()

// v2DefaultModel is _is_default_v2_model_runner_model as release v's
// branch has it, for a generative a whose state layers states counts
// (hybrid and attention-free models have them). The pooling runner is
// left to the caller ([Resolved.onV2Runner]).
func v2DefaultModel(v Version, a *model.Arch, states func() uint64) bool {
	// The list is looked up last, where the cheaper checks leave it to
	// decide: a compile asks this several times.
	listed := func() bool { return v2Listed(v, a) }
	moe := a.Experts > 0 // model_config.is_moe: get_num_experts() > 0
	switch {
	case v.Less(v0_24_0):
		// #39337 to #42667: listed, not is_moe, not is_quantized (a
		// quantization_config in config.json or hf_quant_config.json,
		// vllm/transformers_utils/config.py); has_inner_state is an
		// unsupported feature (to #42406, 06-30), and no listed
		// architecture has state layers.
		return !moe && a.Quant.Method == "" && listed() && states() == 0
	case v.Less(v0_25_0):
		// #42667 (06-12) to #44443 (07-02): the list alone, is_quantized
		// dropped by #44446 (06-18). has_inner_state is unsupported with
		// mamba_cache_mode align until #42406 (06-30, a 0.25.0 change in
		// its notes); no listed architecture has state layers.
		return listed() && states() == 0
	}
	if states() > 0 && !(v.AtLeast(v0_27_0) && listed()) {
		// #44443: is_hybrid and is_attention_free stay on V1; from #50000
		// (07-30) a listed hybrid runs on V2 (none that membudget sizes).
		return false
	}
	return !moe || listed()
}

// resolveRunnerEnv applies VLLM_USE_V2_MODEL_RUNNER (v2RunnerEnv), which
// VllmConfig.use_v2_model_runner reads before its oracle asks anything
// (vllm/config/vllm.py:611-615 at d18bb7b, since PR #39337; before it the
// variable alone chose, unset meaning 0, PR #25266). Set to 0 it runs the
// V1 model runner; set to 1 the V2 runner, for any model, and where a
// feature the oracle would fall back from is asked for, vLLM raises
// instead (_validate_v2_model_runner, vllm/config/vllm.py:1600-1601 and
// 2477-2486 at d18bb7b, since PR #38758 of 2026-04-03): those checks are
// resolveV2Features', resolveSpec's and refuseV2Undecided's. It runs
// before them.
//
// Refused by name, rather than sized on rules not read: 1 before 0.22.0
// (the V2 runner of those releases, experimental and the default for no
// model, is not read); 0 from 0.29.0 (the V1 runner of a release that runs
// every model on V2, PR #53183, whose source is not read); and, before
// 0.29.0, 1 for a model with state layers (vLLM refused it outright until
// PR #38831 of 2026-05-28 and under mamba_cache_mode align until PR #42406
// of 06-30; membudget sizes state layers on the V2 runner from 0.29.0
// alone) and for the pooling runner ([Resolved.refuseForcedV2Pooling]).
func (r *Resolved) resolveRunnerEnv(a *model.Arch) error {
	p := &r.Profile
	v := p.Release
	if r.ModelRunnerV2 == engine.Default || p.Era != V1 || v.Less(v2RunnerEnvSince) {
		return nil
	}
	if r.ModelRunnerV2 == engine.Off {
		switch {
		case v.Less(v0_22_0):
			// The V1 runner is the default: unset read as 0.
			return nil
		case p.V2EveryModel:
			return envErr(v2RunnerEnv, "0", "the V1 model runner: not modelled for %s, which runs every model on the V2 runner (PR #53183) and whose V1 runner membudget has not read; membudget refuses it rather than size a serve vLLM would contradict", p.Describes)
		}
		p.v1Runner = true
		return nil
	}
	switch {
	case v.Less(v0_22_0):
		return envErr(v2RunnerEnv, "1", "the V2 model runner of %s: experimental there (PR #25266) and the default for no model before 0.22.0's oracle (PR #39337), its memory (request state, CUDA graphs beside the budget, sampler) is read from 0.22.0 on; not modelled, and membudget refuses it rather than size a serve vLLM would contradict: unset it to size the V1 runner", p.Describes)
	case p.V2EveryModel:
		return nil
	}
	if states, _ := r.layerCounts(a); states > 0 {
		return envErr(v2RunnerEnv, "1", "%s has state layers (hybrid or attention-free): vLLM refused them on the V2 model runner until PR #38831 (2026-05-28, \"hybrid/mamba models\"), with mamba_cache_mode align until PR #42406 (06-30), and membudget sizes state layers on the V2 runner from 0.29.0 alone, where it runs every model; not modelled for %s, and membudget refuses it rather than size a serve vLLM would contradict: unset it to size the runner vLLM's oracle picks", a.Source, p.Describes)
	}
	p.v2Forced = true
	return nil
}

// refuseForcedV2Pooling refuses VLLM_USE_V2_MODEL_RUNNER=1 on the pooling
// runner before 0.29.0, once resolveRunner has decided it: the oracle
// keeps pooling models on V1 up to main d18bb7b ([Resolved.onV2Runner]),
// so membudget sizes the V2 runner's pooling (vllm/v1/worker/gpu/pool/)
// from 0.29.0 alone.
func (r *Resolved) refuseForcedV2Pooling() error {
	if !r.Profile.v2Forced || r.Runner != runnerPooling || r.Profile.V2EveryModel {
		return nil
	}
	return envErr(v2RunnerEnv, "1", "the pooling runner on the V2 model runner: not modelled for %s (vLLM's oracle keeps pooling models on V1 until PR #48290, after main d18bb7b, and membudget sizes the V2 runner's pooling from 0.29.0); membudget refuses it rather than size a serve vLLM would contradict: unset it", r.Profile.Describes)
}

// refuseV2Unsupported is vLLM's refusal of VLLM_USE_V2_MODEL_RUNNER=1 with
// a feature the V2 runner does not support, named as
// _get_v2_model_runner_unsupported_features names it (vllm/config/vllm.py;
// "VLLM_USE_V2_MODEL_RUNNER does not yet support: " before PR #43808 of
// 2026-05-28, "Model Runner V2 does not yet support: " after), by flag.
func refuseV2Unsupported(flag string, value any, feature string) error {
	return settingErr(flag, value, "vLLM refuses it with VLLM_USE_V2_MODEL_RUNNER=1: Model Runner V2 does not yet support: %s (vllm/config/vllm.py _validate_v2_model_runner; without the variable, or with 0, vLLM runs it on the V1 model runner)", feature)
}

// resolveV2Features applies the unsupported features of the V2 oracle
// (_get_v2_model_runner_unsupported_features, vllm/config/vllm.py) that
// memory-neutral flags decide: each sends a serve the oracle would put on
// V2 to the V1 runner, in the releases whose branch has the check, and
// under VLLM_USE_V2_MODEL_RUNNER=1 makes vLLM refuse it. It runs before
// resolveSpec, whose draft is built in the runner the oracle picks.
func (r *Resolved) resolveV2Features(a *model.Arch) error {
	p := &r.Profile
	if p.V2EveryModel || !r.onV2Runner(a) {
		return nil
	}
	v := p.Release
	if (r.LogprobsMode == "raw_logits" || r.LogprobsMode == "processed_logits") && v.Less(v0_26_0) {
		// #39337 to #47680 (41ea2dd44, merged 2026-07-18): a logits
		// logprobs mode is unsupported. 0.25.0 was cut on 07-10/11;
		// 0.26.0 (cut between 07-17 and 07-20) is refuseV2Undecided's.
		if p.v2Forced {
			return refuseV2Unsupported("logprobs-mode", r.LogprobsMode, "logprobs mode '"+r.LogprobsMode+"'")
		}
		p.v1Runner = true
	}
	if r.ExecutorBackend == "external_launcher" && r.PipelineParallelSize > 1 && v.AtLeast(v0_24_0) {
		// #45868 (14b438a98, merged 2026-06-16, before 0.24.0's cut):
		// "pipeline parallelism with external_launcher" is unsupported.
		if p.v2Forced {
			return refuseV2Unsupported("distributed-executor-backend", r.ExecutorBackend, "pipeline parallelism with external_launcher")
		}
		p.v1Runner = true
	}
	if r.Compilation.Mode == stockTorchCompile {
		// #39337 through d18bb7b (vllm/config/vllm.py:2377-2378): "stock
		// torch.compile" is unsupported.
		if p.v2Forced {
			return refuseV2Unsupported("compilation-config", "mode", "stock torch.compile")
		}
		p.v1Runner = true
	}
	return nil
}

// refuseV2Undecided refuses by name a feature check that came or went
// within a release's cut, naming the release to size instead, for a serve
// still on the V2 runner once resolveV2Features and the speculative method
// (ngram's and suffix's run on V1) have had their say.
func (r *Resolved) refuseV2Undecided(a *model.Arch) error {
	p := &r.Profile
	if p.V2EveryModel || !r.onV2Runner(a) {
		return nil
	}
	v := p.Release
	if r.Reasoning != "" && v.Less(v0_23_0) {
		// #39337 listed "reasoning budget enforcement" (a reasoning_config,
		// which --reasoning-parser makes, vllm/engine/arg_utils.py
		// _set_default_reasoning_config_args) as unsupported; #43808
		// (626fa9bba, merged 2026-05-28) made it a warning. 0.22.0's branch
		// was cut between 05-22 and 06-02 (tagged 05-29).
		name, value, _ := strings.Cut(strings.TrimPrefix(r.Reasoning, "--"), " ")
		if p.v2Forced {
			return settingErr(name, value, "on %s with VLLM_USE_V2_MODEL_RUNNER=1 vLLM 0.22 may refuse it (\"does not yet support: reasoning budget enforcement\"): PR #43808 (merged 2026-05-28) dropped that check, and whether 0.22's branch (cut between 2026-05-22 and 06-02) carries it is not read; size it with --vllm-version 0.23.0 or later", a.Source)
		}
		return settingErr(name, value, "on %s vLLM 0.22's oracle may keep it on the V1 model runner: PR #43808 (merged 2026-05-28) stopped a reasoning config from doing so, and whether 0.22's branch (cut between 2026-05-22 and 06-02) carries it is not read, so the runner, and with it the CUDA graphs' charge, is not known; size it with --vllm-version 0.23.0 or later", a.Source)
	}
	if (r.LogprobsMode == "raw_logits" || r.LogprobsMode == "processed_logits") && v.Less(v0_26_1) {
		// #47680 (merged 2026-07-18) falls inside 0.26.0's cut (between
		// 07-17 and 07-20; 0.26.1 after 07-20). Earlier releases are on V1
		// already (resolveV2Features).
		if p.v2Forced {
			return settingErr("logprobs-mode", r.LogprobsMode, "on %s with VLLM_USE_V2_MODEL_RUNNER=1 vLLM 0.26.0 may refuse it (\"does not yet support: logprobs mode\"): PR #47680 (merged 2026-07-18) dropped that check, and 0.26.0's branch was cut between 2026-07-17 and 07-20; size it with --vllm-version 0.26.1", a.Source)
		}
		return settingErr("logprobs-mode", r.LogprobsMode, "on %s vLLM 0.26.0's oracle may keep it on the V1 model runner: PR #47680 (merged 2026-07-18) stopped a logits logprobs mode from doing so, and 0.26.0's branch was cut between 2026-07-17 and 07-20, so the runner, and with it the CUDA graphs' charge, is not known; size it with --vllm-version 0.25.0 or 0.26.1", a.Source)
	}
	return nil
}
