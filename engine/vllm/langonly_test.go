package vllm

import (
	"flag"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/budget"
	"membudget/model"
)

// Hand counts of the towers --language-model-only leaves out (rank 0, TP1,
// bfloat16), beside those of towers_test.go.
const (
	// qwen35_27BTower is Qwen3.5-27B's vision tower (Qwen3-VL's,
	// qwen3_5.py:495-501; its config: depth 27, hidden 1152, 16 heads,
	// MLP 4304, patch 16, temporal patch 2, 2304 positions, out 5120, no
	// deepstack layer): the biased Conv3d patch embedding 1152 x 3 x 2 x
	// 16 x 16 + 1152 = 1,770,624; the position table 2304 x 1152 =
	// 2,654,208; 27 blocks of two LayerNorms 4 x 1152, qkv 1152 x 3456 +
	// 3456, proj 1152 x 1152 + 1152, fc1 1152 x 4304 + 4304 and fc2 4304 x
	// 1152 + 1152: 15,239,504 each, 411,466,608; the merger's LayerNorm
	// 2 x 1152, fc1 4608 x 4608 + 4608 and fc2 4608 x 5120 + 5120:
	// 44,838,656. 460,730,096 parameters; with the rotary table 8192 x
	// (1152 / 16) / 2 = 294,912, 461,025,008 x 2 B.
	qwen35_27BTower = 461_025_008 * 2
	// gemma3nE4BTowers is Gemma 3n E4B's two towers and embedders
	// (TestGemma3nTowersOff's counts): the vision side 2 x 294,126,912 +
	// 2 x 4,460,544 + 4096 B, the audio side 2 x 681,348,640 + 40,560 +
	// 2 x 3,345,408 + 4096 B.
	gemma3nE4BTowers = 2*294_126_912 + 2*4_460_544 + 4096 + 2*681_348_640 + 40_560 + 2*3_345_408 + 4096
)

// TestLanguageModelOnly: --language-model-only makes every modality's limit
// 0 whatever --limit-mm-per-prompt says (vllm/config/multimodal.py:492-493,
// since PR #34120), so every tower _mark_tower_model marks is left out,
// with its weights, and the profile runs no encoder and keeps no
// processor cache. Where --limit-mm-per-prompt '{"image": 0}' alone keeps
// a tower that video or audio also serves, the flag leaves it out too.
func TestLanguageModelOnly(t *testing.T) {
	t.Parallel()
	models := shipped(t)
	models["gemma-3n-E4B"] = gemma3nArch(t, "E4B")
	tests := []struct {
		name, model, spec, limits string
		maxLen                    uint64
		less                      uint64
		off                       model.Modalities
	}{
		{"qwen2.5-vl", "Qwen__Qwen2.5-VL-7B-Instruct", "main", "", 8192, qwen25VL7BTower, model.ImageInput},
		// The flag's first release (langOnlySince).
		{"qwen2.5-vl on 0.16.0", "Qwen__Qwen2.5-VL-7B-Instruct", "0.16.0", "", 8192, qwen25VL7BTower, model.ImageInput},
		// The flag overrides the limits given beside it.
		{"qwen2.5-vl with images 2", "Qwen__Qwen2.5-VL-7B-Instruct", "main", `{"image": 2, "video": 1}`, 8192, qwen25VL7BTower, model.ImageInput},
		{"qwen3.5-27b (row 302's architecture)", "Qwen__Qwen3.5-27B", "0.28.0", "", 16384, qwen35_27BTower, model.ImageInput},
		// Gemma 4's tower is marked for image and video: {"image": 0}
		// alone keeps it (TestTowersLeftOutAtLimitZero); the flag does not.
		{"gemma-4-31b", "google__gemma-4-31B-it", "main", "", 4096, gemma4_31BTower, model.ImageInput},
		{"gemma-3n-e4b: both towers", "gemma-3n-E4B", "main", "", 32768, gemma3nE4BTowers, model.ImageInput | model.AudioInput},
		{"llava-1.5", "llava-hf__llava-1.5-7b-hf", "main", "", 4096, llava15Tower, model.ImageInput},
		// Phi-4-multimodal's image encoder (image and video) and audio
		// encoder (audio) both leave.
		{"phi-4-multimodal: both encoders", "microsoft__Phi-4-multimodal-instruct", "main", "", 4096, someTower, model.ImageInput | model.AudioInput},
		// Kimi-K2.5's vision_chunk tower, marked from 0.16.0.
		{"kimi-k2.5 on 0.16.0", "moonshotai__Kimi-K2.5", "0.16.0", "", 8192, someTower, model.ImageInput},
	}
	for _, tt := range tests {
		a := models[tt.model]
		if a == nil {
			t.Fatalf("%s: no shipped model %s", tt.name, tt.model)
		}
		cp := NewCompiler(a)
		compile := func(lmo bool) (uint64, Resolved) {
			t.Helper()
			s := trusting(a, Serve{MaxModelLen: tt.maxLen, MM: MM{LimitPerPrompt: tt.limits, LanguageModelOnly: lmo}})
			r, plan, err := cp.Compile(s, bigClass, mustProfile(tt.spec))
			if err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			return plan.Stages[0].Fixed[budget.TermWeights], r
		}
		all, withTowers := compile(false)
		some, r := compile(true)
		if got := all - some; tt.less == someTower && got == 0 || tt.less != someTower && got != tt.less {
			t.Errorf("%s: weights %d B less, want %d", tt.name, got, tt.less)
		}
		if diff := cmp.Diff(tt.off, r.Stages[0].TowersOff); diff != "" {
			t.Errorf("%s: towers off (-want +got):\n%s", tt.name, diff)
		}
		if r.Encoder.Runs || r.Encoder.Sized || r.EncoderPass.Sized || r.MMHostBytes != 0 {
			t.Errorf("%s: encoder %+v, pass %+v, processor cache %d B: want no encoder profile and no processor cache", tt.name, r.Encoder, r.EncoderPass, r.MMHostBytes)
		}
		if !strings.HasPrefix(r.Encoder.Why, "--language-model-only: ") {
			t.Errorf("%s: encoder %q, want it to name --language-model-only", tt.name, r.Encoder.Why)
		}
		if line := r.towersLine(a); !strings.Contains(line, "--language-model-only sets every modality's limit to 0") {
			t.Errorf("%s: report line %q, want one naming --language-model-only", tt.name, line)
		}
		if withTowers.MMHostBytes == 0 && tt.limits == "" {
			t.Errorf("%s: no processor cache without the flag: the case checks nothing", tt.name)
		}
	}
}

// TestLanguageModelOnlyTextModel: vLLM builds no multimodal config for a
// text model, and the flag changes nothing (its get_limit_per_prompt is
// never asked): the same plan.
func TestLanguageModelOnlyTextModel(t *testing.T) {
	t.Parallel()
	a := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	cp := NewCompiler(a)
	_, plain, err := cp.Compile(Serve{MaxModelLen: 8192}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	r, lmo, err := cp.Compile(Serve{MaxModelLen: 8192, MM: MM{LanguageModelOnly: true}}, testClass(false), current)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plain, lmo); diff != "" {
		t.Errorf("a text model's plan moves with --language-model-only (-without +with):\n%s", diff)
	}
	if r.Encoder.Why != "a text model: the multimodal flags change nothing" {
		t.Errorf("encoder %q, want the text model's note", r.Encoder.Why)
	}
}

// TestLanguageModelOnlyBefore016: vLLM 0.15 has no --language-model-only
// (PR #34120 merged 2026-02-09, after 0.15.0's branch, which PR #33346 of
// 01-30 already missed: kimiTowersSince), so a library caller that sets it
// for 0.15 hears the refusal the command line gives, naming the flag,
// whatever the model (Kimi-K2.5's tower question of 0.15 is never asked).
func TestLanguageModelOnlyBefore016(t *testing.T) {
	t.Parallel()
	if langOnlySince != (Version{0, 16, 0}) {
		t.Errorf("langOnlySince %v, want 0.16.0 (PR #34120, after 0.15.0's branch)", langOnlySince)
	}
	models := shipped(t)
	for _, name := range []string{"moonshotai__Kimi-K2.5", "Qwen__Qwen2.5-VL-7B-Instruct"} {
		for _, spec := range []string{"0.15.0", "0.15.1"} {
			a := models[name]
			_, err := Resolve(trusting(a, Serve{MaxModelLen: 8192, MM: MM{LanguageModelOnly: true}}), a, testClass(false), mustProfile(spec))
			wantRefusal(t, err, "language-model-only", "not a flag of vLLM "+spec+": vLLM 0.16.0 added it")
		}
	}
}

// parseServeFlags parses args through the CLI's flag set for vLLM (the
// flags args name, as a command registers them) after judging each as a
// command does, and returns the serve they set.
func parseServeFlags(t *testing.T, args []string) (Serve, error) {
	t.Helper()
	args = Engine{}.Respell(args)
	f := &flagServe{}
	for i, a := range args {
		if strings.HasPrefix(a, "-") {
			if err := f.Judge(args, i); err != nil {
				return Serve{}, err
			}
		}
	}
	fs := flag.NewFlagSet("vllm", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var m string
	f.RegisterFor(fs, &m, args)
	if err := fs.Parse(args); err != nil {
		return Serve{}, err
	}
	return f.s, nil
}

// TestLanguageModelOnlyFlag: the flag and its --no- form through the CLI's
// parser, release by release: from 0.16.0 (PR #34120, 2026-02-09) it sets
// the serve's MM.LanguageModelOnly and the launch line carries it; before,
// it is not a flag of the release.
func TestLanguageModelOnlyFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		want    bool
		refused string
	}{
		{[]string{"--language-model-only"}, true, ""},
		{[]string{"--language_model_only"}, true, ""},
		{[]string{"--language-model-only", "--vllm-version", "0.16.0"}, true, ""},
		// PR #34120 (2026-02-09) came after 0.15.0's branch.
		{[]string{"--language-model-only", "--vllm-version", "0.15.1"}, false, "--language-model-only is not a flag of vLLM 0.15.1"},
		{[]string{"--no-language-model-only"}, false, ""},
		{[]string{"--language-model-only", "--no-language-model-only"}, false, ""},
		{[]string{"--language-model-only", "--vllm-version", "0.14.1"}, false, "--language-model-only is not a flag of vLLM 0.14.1"},
	}
	for _, tt := range tests {
		s, err := parseServeFlags(t, tt.args)
		switch {
		case tt.refused != "":
			if err == nil || !strings.Contains(err.Error(), tt.refused) {
				t.Errorf("%q: %v, want %q", tt.args, err, tt.refused)
			}
			continue
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if s.MM.LanguageModelOnly != tt.want {
			t.Errorf("%q: LanguageModelOnly %v, want %v", tt.args, s.MM.LanguageModelOnly, tt.want)
		}
	}
	var b strings.Builder
	writeMMFlags(&b, MM{LanguageModelOnly: true})
	if got := b.String(); got != " --language-model-only" {
		t.Errorf("launch line %q, want the flag", got)
	}
}

// TestLanguageModelOnlyOverridesLimits: a property over the shipped
// multimodal models and any --limit-mm-per-prompt of their modalities:
// with --language-model-only the plan is the one without the limits
// (the flag reads no limit), and its weights are at most those of the
// serve without the flag.
func TestLanguageModelOnlyOverridesLimits(t *testing.T) {
	models := shipped(t)
	var names []string
	for _, n := range slices.Sorted(maps.Keys(models)) {
		if a := models[n]; a.Vision != nil && len(modelTowers[a.Vision.Kind]) > 0 && a.Vision.Kind != "moonvit" {
			names = append(names, n)
		}
	}
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.SampledFrom(names).Draw(rt, "model")
		a := models[n]
		var parts []string
		for _, m := range []string{"image", "video", "audio"} {
			if rapid.Bool().Draw(rt, "name "+m) {
				parts = append(parts, `"`+m+`": `+rapid.SampledFrom([]string{"0", "1", "4"}).Draw(rt, m))
			}
		}
		limits := ""
		if len(parts) > 0 {
			limits = "{" + strings.Join(parts, ", ") + "}"
		}
		cp := NewCompiler(a)
		plan := func(mm MM) *budget.Plan {
			_, p, err := cp.Compile(trusting(a, Serve{MaxModelLen: 4096, MM: mm}), bigClass, current)
			if err != nil {
				rt.Fatalf("%s %+v: %v", n, mm, err)
			}
			return p
		}
		compilerIsReference(rt, a, trusting(a, Serve{MaxModelLen: 4096, MM: MM{LanguageModelOnly: true, LimitPerPrompt: limits}}), bigClass, current)
		bare := plan(MM{LanguageModelOnly: true})
		given := plan(MM{LanguageModelOnly: true, LimitPerPrompt: limits})
		if diff := cmp.Diff(bare, given); diff != "" {
			rt.Fatalf("%s: --language-model-only with %s plans otherwise (-without +with):\n%s", n, limits, diff)
		}
		full := plan(MM{LimitPerPrompt: limits})
		if w, wf := bare.Stages[0].Fixed[budget.TermWeights], full.Stages[0].Fixed[budget.TermWeights]; w > wf {
			rt.Fatalf("%s: %d B of weights with --language-model-only, more than the %d without", n, w, wf)
		}
	})
}

// TestBuildServeReadsLanguageModelOnly: a log's non-default args that set
// language_model_only fill the serve, as the flag does; without it the
// explanation does not list the flag.
func TestBuildServeReadsLanguageModelOnly(t *testing.T) {
	t.Parallel()
	log := "INFO non-default args: {'model': 'm', 'language_model_only': True, 'enforce_eager': True}\n"
	got, err := buildServe(logSource(t, log).Log, Serve{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(MM{LanguageModelOnly: true}, got.Serve.MM); diff != "" {
		t.Errorf("MM (-want +got):\n%s", diff)
	}
	if got.From["language-model-only"].Line != 1 {
		t.Errorf("language-model-only from %+v, want line 1", got.From["language-model-only"])
	}
}

// TestLanguageModelOnlyReport: the report says which towers are not built
// and why, carries the flag in its launch line and its JSON, and prints
// no encoder cache or processor cache for the serve.
func TestLanguageModelOnlyReport(t *testing.T) {
	t.Parallel()
	sz, err := sizeShippedAt(t, "Qwen__Qwen2.5-VL-7B-Instruct", "h100-sxm-80g", "main", Serve{MaxModelLen: 8192, MM: MM{LanguageModelOnly: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"towers not built: the vision tower and its projector (image, video at 0): --language-model-only sets every modality's limit to 0 (vllm/config/multimodal.py:492-493), and vLLM leaves out a tower whose every modality is limited to 0 (_mark_tower_model, interfaces.py:296-333): its weights are not charged",
		"encoder: --language-model-only: every modality's limit is 0: vLLM serves the model as text only",
	}
	if diff := cmp.Diff(want, sz.mmSettings()); diff != "" {
		t.Errorf("report lines (-want +got):\n%s", diff)
	}
	if j := sz.mmJSON(); !j.LanguageModelOnly || j.Profiled || j.ProcessorCacheBytes != 0 {
		t.Errorf("JSON %+v: want language_model_only, no encoder profile, no processor cache", *j)
	}
	if cmd := sz.Command(); !strings.Contains(cmd, " --language-model-only") {
		t.Errorf("launch line %q lacks the flag", cmd)
	}
}
