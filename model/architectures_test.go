package model

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite docs/architectures.md from testdata/vllm-registry.txt (review the diff before committing)")

// registryEntry is one line of testdata/vllm-registry.txt.
type registryEntry struct {
	Arch, Module, Class, Section string
}

// readRegistry reads testdata/vllm-registry.txt: tab-separated
// architecture, module, class and section, after # comments.
func readRegistry(t testing.TB) []registryEntry {
	t.Helper()
	data, err := os.ReadFile("testdata/vllm-registry.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out []registryEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || slices.Contains(f, "") {
			t.Fatalf("testdata/vllm-registry.txt:%d: want 4 tab-separated fields, got %q", n, line)
		}
		out = append(out, registryEntry{f[0], f[1], f[2], f[3]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sectionTitles are the registry's sections in the table's order, with
// their titles; the pooling runner's sections (every one after
// multimodal) and the encoder-decoder part are refused whole.
var sectionTitles = []struct{ key, title string }{
	{"text-generation", "Text generation (_TEXT_GENERATION_MODELS)"},
	{"multimodal", "Multimodal generation (_MULTIMODAL_MODELS)"},
	{"multimodal/encoder-decoder", "Multimodal encoder-decoder (_MULTIMODAL_MODELS, [Encoder-decoder])"},
	{"embedding", "Embedding, pooling runner (_EMBEDDING_MODELS)"},
	{"embedding/multimodal", "Multimodal embedding, pooling runner (_EMBEDDING_MODELS, [Multimodal])"},
	{"late-interaction", "Late interaction, pooling runner (_LATE_INTERACTION_MODELS)"},
	{"late-interaction/multimodal", "Multimodal late interaction, pooling runner (_LATE_INTERACTION_MODELS, [Multimodal])"},
	{"reward", "Reward, pooling runner (_REWARD_MODELS)"},
	{"token-classification", "Token classification, pooling runner (_TOKEN_CLASSIFICATION_MODELS)"},
	{"sequence-classification", "Sequence classification, pooling runner (_SEQUENCE_CLASSIFICATION_MODELS)"},
	{"sequence-classification/multimodal", "Multimodal sequence classification, pooling runner (_SEQUENCE_CLASSIFICATION_MODELS, [Multimodal])"},
	{"transformers-backend", "Served through vLLM's Transformers backend (_TRANSFORMERS_SUPPORTED_MODELS)"},
	{"transformers-backend/multimodal", "Multimodal, served through vLLM's Transformers backend (_TRANSFORMERS_SUPPORTED_MODELS)"},
}

// coverage is what the model says of one registry entry: the model_types
// that size it, or why it is refused.
func coverage(e registryEntry) (modelTypes []string, refusal string) {
	if mts := Architectures()[e.Arch]; len(mts) > 0 && (isGeneration(e.Section) || isTransformersBackend(e.Section)) {
		// A family sizes the modules the Transformers backend builds from
		// transformers' own model as it sizes a native one.
		return mts, ""
	}
	if mts := Architectures()[e.Arch]; len(mts) > 0 && isPooling(e.Section) && (EncoderOnlyArchitecture(e.Arch) || PoolingDecoderArchitecture(e.Arch)) {
		// An encoder-only model, or a decoder whose pooling head
		// replaces its LM head (a reward model).
		return mts, ""
	}
	if mts := Architectures()[e.Arch]; len(mts) > 0 && e.Section == "embedding" && (strings.HasSuffix(e.Arch, "ForCausalLM") || EmbeddingBaseModel(e.Arch)) {
		// A causal LM the pooling runner adapts to an embedding model
		// (--runner pooling, --convert embed), whose family is read, or
		// one exported as a base model (Qwen2Model), which --runner auto
		// pools.
		return mts, ""
	}
	if mts := Architectures()[e.Arch]; len(mts) > 0 && e.Section == "embedding/multimodal" {
		// A multimodal generation model the pooling runner adapts the same
		// way, whose family is read (its encoder cache sized where vLLM
		// keeps chunked prefill: engine/vllm poolingChunks).
		return mts, ""
	}
	switch {
	case isTransformersBackend(e.Section):
		return nil, "vLLM serves it only through its Transformers backend (" + e.Class + "), which builds transformers' own modules for it: no family states that model's modules yet"
	case isPooling(e.Section) && PoolingRefusal(e.Arch) != "":
		return nil, "a pooling model (vLLM's pooling runner): " + PoolingRefusal(e.Arch)
	case isPooling(e.Section):
		return nil, "a pooling model (vLLM's pooling runner): not sized yet"
	case e.Section == "multimodal/encoder-decoder":
		// vllm/v1/kv_cache_interface.py:809-818 CrossAttentionSpec: a
		// request keeps cdiv(max_num_encoder_input_tokens, block_size)
		// cross-attention pages whatever its length, beside its decoder's
		// own; the encoder cache is the multimodal budget's.
		return nil, "encoder-decoder: the cross-attention KV (CrossAttentionSpec: cdiv(max_num_encoder_input_tokens, block_size) pages a request, whatever its length) and the encoder cache are not sized yet"
	case ArchitectureRefusal(e.Module) != "":
		return nil, ArchitectureRefusal(e.Module)
	}
	return nil, "no family reads its model_type yet"
}

// headerChecked maps an architecture to the checkpoints whose full-size
// header fixture ([HeaderFixtures]) names it: the config's first
// `architectures` entry, read by the family of its model_type. Such an
// architecture's weights are checked tensor by tensor against a real
// checkpoint's listing, not only derived from its config.
func headerChecked(t testing.TB) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for name, fixture := range HeaderFixtures {
		config, _ := fixture()
		var c struct {
			Architectures []string `json:"architectures"`
			ModelType     string   `json:"model_type"`
		}
		// Published Mamba2 configs hold Python's Infinity, which the
		// config reader takes (fromPythonJSON) and encoding/json does not.
		if err := json.Unmarshal(fromPythonJSON([]byte(config)), &c); err != nil {
			t.Fatalf("HeaderFixtures[%q]: config: %v", name, err)
		}
		if len(c.Architectures) == 0 || !readsArchitecture(c.Architectures[0], c.ModelType) {
			t.Fatalf("HeaderFixtures[%q]: architectures %q with model_type %q is not an architecture a family reads by that model_type", name, c.Architectures, c.ModelType)
		}
		out[c.Architectures[0]] = append(out[c.Architectures[0]], name)
	}
	for _, names := range out {
		slices.Sort(names)
	}
	return out
}

// readsArchitecture reports whether a config whose first architecture is
// arch and whose model_type is mt is read by a family that sizes arch: by
// its model_type, or, for a trust_remote_code model_type no family reads
// (Hunyuan-A13B's "hunyuan"), by the family remoteArchitecture picks for
// arch, as ParseConfig reads it.
func readsArchitecture(arch, mt string) bool {
	if slices.Contains(Architectures()[arch], mt) {
		return true
	}
	if _, known := families[mt]; known {
		return false
	}
	_, sized := architectureType(arch)
	return sized
}

// isGeneration reports whether a section is vLLM's text-generation or
// multimodal registry, whose architectures vLLM implements natively.
func isGeneration(section string) bool {
	s, _, _ := strings.Cut(section, "/")
	return s == "text-generation" || s == "multimodal"
}

func isTransformersBackend(section string) bool {
	s, _, _ := strings.Cut(section, "/")
	return s == "transformers-backend"
}

// isPooling reports whether a section is one of the pooling runner's.
func isPooling(section string) bool {
	return !isGeneration(section) && !isTransformersBackend(section)
}

// architecturesTable writes docs/architectures.md from the registry and
// what the model sizes.
func architecturesTable(t testing.TB, reg []registryEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`# Architectures: what membudget sizes of what vLLM serves

Generated by ` + "`go test ./model -run TestArchitecturesTable -update`" + ` from
` + "`model/testdata/vllm-registry.txt`" + ` (vLLM's model registry,
` + "`vllm/model_executor/models/registry.py`" + ` at main d18bb7b, 2026-08-14) and the families
the model package registers; ` + "`go test ./model`" + ` fails when this file is stale. Do not edit it
by hand.

An architecture is the ` + "`architectures`" + ` string of a config.json, by which vLLM picks its
implementation; membudget reads a config by its ` + "`model_type`" + `. An architecture is **sized**
when a config naming it with one of the listed model_types is read by a family that builds the
weights and the KV cache as vLLM's module does; any other model_type is refused with an error
naming it. A refused architecture says why.

`)
	bySection := map[string][]registryEntry{}
	for _, e := range reg {
		bySection[e.Section] = append(bySection[e.Section], e)
	}
	checked := headerChecked(t)
	b.WriteString("| section | sized | of them, weights checked against a full checkpoint header | of |\n|---|---:|---:|---:|\n")
	var sized, total, genSized, genTotal, genChecked, allChecked int
	for _, s := range sectionTitles {
		n, c := 0, 0
		for _, e := range bySection[s.key] {
			if mts, _ := coverage(e); len(mts) > 0 {
				n++
				if len(checked[e.Arch]) > 0 {
					c++
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", s.title, n, c, len(bySection[s.key]))
		sized, total, allChecked = sized+n, total+len(bySection[s.key]), allChecked+c
		if isGeneration(s.key) {
			genSized, genTotal, genChecked = genSized+n, genTotal+len(bySection[s.key]), genChecked+c
		}
	}
	fmt.Fprintf(&b, "| text generation and multimodal together | %d | %d | %d |\n", genSized, genChecked, genTotal)
	fmt.Fprintf(&b, "| every section | %d | %d | %d |\n", sized, allChecked, total)
	b.WriteString(`
An architecture's weights are **checked against a full checkpoint header** when a test holds the
safetensors header of a published checkpoint whose config names it: every tensor's name, dtype
and shape at full size, from the checkpoint's published listing or rebuilt in its names
(` + "`corpus/models/SOURCES.md`" + ` says which, and what published figure, the index's
` + "`total_size`" + `, its tensor count or the Hub's parameter count, holds it, or that none was
found); the family's weights read from that header equal its weights from config.json, rank by
rank, and equal them again when the header is written as a checkpoint directory and loaded as
` + "`--model <dir>`" + ` loads it. The other sized architectures are checked by hand from their
config and, most of them, against a reduced-size header in their checkpoints' names.
`)
	for _, s := range sectionTitles {
		fmt.Fprintf(&b, "\n## %s\n\n| architecture | vLLM module | model_type | sized, or why not |\n|---|---|---|---|\n", s.title)
		for _, e := range bySection[s.key] {
			mts, why := coverage(e)
			mt, status := "—", "refused: "+why
			if len(mts) > 0 {
				mt, status = "`"+strings.Join(mts, "`, `")+"`", "sized"
				if names := checked[e.Arch]; len(names) > 0 {
					status += "; weights checked against the full header of `" + strings.Join(names, "`, `") + "`"
				}
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", e.Arch, e.Module, mt, status)
		}
	}
	return b.Bytes()
}

// TestArchitecturesTable: docs/architectures.md is the table the registry
// and the model give now (-update rewrites it).
func TestArchitecturesTable(t *testing.T) {
	const file = "../docs/architectures.md"
	got := architecturesTable(t, readRegistry(t))
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./model -run TestArchitecturesTable -update)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s is stale; run go test ./model -run TestArchitecturesTable -update (-file +now):\n%s", file, diff)
	}
}

// TestArchitecturesAreVLLMs: every architecture a family claims is a
// generation architecture of vLLM's registry, every model_type it names is
// one the model reads, and every module refused as stateful is in the
// registry.
func TestArchitecturesAreVLLMs(t *testing.T) {
	reg := readRegistry(t)
	gen := map[string]bool{}
	modules := map[string]bool{}
	pooling := map[string]bool{}
	for _, e := range reg {
		if isGeneration(e.Section) {
			gen[e.Arch] = true
			modules[e.Module] = true
		}
		if isTransformersBackend(e.Section) {
			gen[e.Arch] = true
		}
		if isPooling(e.Section) {
			pooling[e.Arch] = true
		}
	}
	for arch, mts := range Architectures() {
		pools := EncoderOnlyArchitecture(arch) || PoolingDecoderArchitecture(arch) || EmbeddingBaseModel(arch)
		switch {
		case pools && !pooling[arch]:
			t.Errorf("%s (model_types %v) is not a pooling architecture of vLLM's registry", arch, mts)
		case !pools && !gen[arch]:
			t.Errorf("%s (model_types %v) is not a generation architecture of vLLM's registry", arch, mts)
		}
		for _, mt := range mts {
			if !slices.Contains(ModelTypes(), mt) {
				t.Errorf("%s: model_type %s is not one the model reads", arch, mt)
			}
		}
	}
	for m := range refusedModules {
		if !modules[m] {
			t.Errorf("refused module %s is not a generation module of vLLM's registry", m)
		}
	}
	// Every model_type the model reads sizes some architecture.
	claimed := map[string]bool{}
	for _, mts := range Architectures() {
		for _, mt := range mts {
			claimed[mt] = true
		}
	}
	for _, mt := range ModelTypes() {
		if !claimed[mt] {
			t.Errorf("model_type %s sizes no architecture (registerArchitectures)", mt)
		}
	}
}

// TestRegistryCounts: the registry file holds vLLM's sections as
// registry.py at d18bb7b has them: 130 text-generation and 118 multimodal
// architectures (3 of them encoder-decoder), 34 embedding (9 multimodal),
// 11 late-interaction (6 multimodal), 3 reward, 6 token-classification
// and 10 sequence-classification (2 multimodal) models, and 8 served
// through the Transformers backend (2 multimodal): counted with grep over
// each dict of the source, not from this file.
func TestRegistryCounts(t *testing.T) {
	want := map[string]int{
		"text-generation": 130, "multimodal": 115, "multimodal/encoder-decoder": 3,
		"embedding": 25, "embedding/multimodal": 9, "late-interaction": 5, "late-interaction/multimodal": 6,
		"reward": 3, "token-classification": 6, "sequence-classification": 8, "sequence-classification/multimodal": 2,
		"transformers-backend": 6, "transformers-backend/multimodal": 2,
	}
	got := map[string]int{}
	seen := map[string]bool{}
	for _, e := range readRegistry(t) {
		got[e.Section]++
		if seen[e.Arch+"/"+e.Section] {
			t.Errorf("%s listed twice in %s", e.Arch, e.Section)
		}
		seen[e.Arch+"/"+e.Section] = true
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registry sections (-want +got):\n%s", diff)
	}
}
