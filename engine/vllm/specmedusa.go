package vllm

import (
	"archive/zip"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"membudget/budget"
	"membudget/engine"
	"membudget/internal/untrusted"
	"membudget/model"
)

// This file sizes --speculative-config's medusa: the Medusa heads vLLM
// builds beside the target (vllm/model_executor/models/medusa.py), read
// from the draft's config.json as MedusaConfig reads it (vllm/
// transformers_utils/configs/medusa.py) and checked against its
// checkpoint's tensor names. Every rule is vLLM main's at commit d18bb7b
// (2026-08-14):
//
//   - the proposer is MedusaProposer (vllm/v1/spec_decode/medusa.py), which
//     allocates no buffer (:23-38) and keeps no KV cache (the heads have no
//     attention layer); the V2 runner does not take the method, so vLLM
//     runs the serve on the V1 runner ("speculative method 'medusa'",
//     vllm/config/vllm.py:2397-2408), without async scheduling
//     (:1196-1207), like ngram;
//   - the heads load inside load_model's memory profiler, with the target
//     (gpu_model_runner.py:5429-5432), so they are in "Model loading
//     took" and charged as weights;
//   - the profile run never runs them: _dummy_run calls the drafter's
//     dummy_run for the EAGLE, draft-model and hidden-state proposers only
//     (gpu_model_runner.py:6263-6306), and no capture does either, so the
//     heads add nothing to the activation peak or the CUDA graphs; the
//     target's graphs are rounded to multiples of k+1 as for any method;
//   - each decode step's heads draw k x requests x vocabulary logits
//     outside the profile (medusa.py:108-137, MedusaProposer.propose),
//     which vLLM never measures: the report prints them, uncharged.

// Medusa is a Medusa draft's heads as vLLM builds them.
type Medusa struct {
	// Path is the draft's directory (or Hub id), as --speculative-config's
	// "model" gives it.
	Path string
	// Heads is the heads vLLM builds: num_speculative_tokens, which
	// SpeculativeConfig writes over the config's num_heads through
	// MedusaConfig.num_lookahead_tokens (speculative.py:1055-1060;
	// configs/medusa.py:61-67). ConfigHeads is the config's own (after the
	// rename, 5 where absent, configs/medusa.py:19).
	Heads, ConfigHeads uint64
	// Layers is num_hidden_layers, the residual blocks of a head (1 where
	// absent, configs/medusa.py:20): each an nn.Linear of Hidden x Hidden,
	// replicated on every rank (medusa.py:19-38).
	Layers uint64
	// Hidden is hidden_size (4096 where absent, configs/medusa.py:16).
	Hidden uint64
	// Vocab is the rows of each LM head: the target's vocabulary where vLLM
	// aligns it (speculative.py:923-932, from PR #41396), else the
	// config's vocab_size (32001 where absent, configs/medusa.py:17).
	Vocab uint64
	// Bias says each residual block's Linear has a bias (medusa_fc_bias,
	// medusa.py:28).
	Bias bool
	// SharedHead says the heads share one LM head (original_lm_head,
	// medusa.py:73-79), else each has its own (:80-90).
	SharedHead bool
	// OldFormat says the config has no model_type (FasterDecoding's
	// format): vLLM reads it as Medusa only because the method is named
	// (speculative.py:883-889).
	OldFormat bool
}

// errNoSafetensors says a draft's directory has no safetensors checkpoint
// whose headers membudget could read.
var errNoSafetensors = errors.New("no safetensors checkpoint")

// medusaDefaults are MedusaConfig's defaults (configs/medusa.py:14-24).
const (
	medusaDefaultHidden = 4096
	medusaDefaultVocab  = 32001
	medusaDefaultHeads  = 5
	medusaDefaultLayers = 1
)

// medusaOldFormatSince is the first release that reads an old-format
// Medusa config (no model_type) and aligns its vocabulary with the
// target's: PR #41396 (merged 2026-06-30, speculative.py:883-932 and
// medusa.py:139-157). 0.24.0 came out about 2026-07-01 from a branch
// whose cut is not known; 0.25.0 carries changes of 2026-07-09.
var medusaOldFormatSince = v0_25_0

// medusaRefused are config.json keys of a Medusa draft that change its
// tensors or their dtype and that membudget does not read.
var medusaRefused = []string{"quantization_config"}

// resolveMedusa reads the Medusa draft a medusa --speculative-config
// names and checks it against the target a and the serve, refusing by
// name what vLLM refuses and what membudget does not size.
func (r *Resolved) resolveMedusa(sc specConfig, a *model.Arch) (*Medusa, error) {
	p := r.Profile
	refuse := func(what string) error {
		return settingErr("speculative-config", "medusa", "%s: not modelled for %s; membudget refuses it rather than size a serve vLLM would contradict", what, p.Describes)
	}
	switch {
	case sc.model == "":
		// speculative.py:790-797.
		return nil, settingErr("speculative-config", "medusa", "vLLM refuses it: num_speculative_tokens was provided but without speculative model.")
	case sc.tokens == 0:
		// MedusaConfig has no n_predict (speculative.py:1062-1083).
		return nil, settingErr("speculative-config", "medusa", "vLLM refuses it: A speculative model was provided, but `num_speculative_tokens` was not provided")
	case sc.draftTP != 0 && sc.draftTP != max(r.TensorParallelSize, 1):
		// MedusaProposer.load_model builds the heads under the target's
		// parallel config (vllm/v1/spec_decode/medusa.py:60-67), not the
		// draft's.
		return nil, refuse(fmt.Sprintf("Medusa heads with draft_tensor_parallel_size %d (vLLM builds them over the target's %d ranks whatever it says)", sc.draftTP, max(r.TensorParallelSize, 1)))
	}
	m, err := loadMedusaOf(sc, a, p)
	if err != nil {
		// loadMedusaOf escapes what it quotes of the draft.
		return nil, settingErr("speculative-config", "medusa", "the draft %s", err.Error())
	}
	return &m, nil
}

// medusaCache keeps each local Medusa draft's reading for a target's
// shape, k and release rules: a plan's search resolves the serve many
// times, and a .pt checkpoint's directory and pickle are read once.
var medusaCache sync.Map // medusaKey -> medusaOrErr

// medusaKey is what a local draft's reading depends on: the directory,
// k, the target's vocabulary and width, and the profile (its release's
// rules, and its name in a refusal).
type medusaKey struct {
	dir, profile     string
	k, vocab, hidden uint64
}

type medusaOrErr struct {
	m   Medusa
	err error
}

// loadMedusaOf reads the Medusa draft sc names: from its directory (once
// per [medusaKey]), or as preloadHubDraft read it by its Hub id. Its
// errors quote the draft's names and files escaped (see [untrusted.Text]).
func loadMedusaOf(sc specConfig, a *model.Arch, p Profile) (Medusa, error) {
	if localDraft(sc.model) {
		key := medusaKey{dir: sc.model, profile: p.Describes, k: sc.tokens, vocab: a.Vocab, hidden: a.Hidden}
		if v, ok := medusaCache.Load(key); ok {
			r := v.(medusaOrErr)
			return r.m, r.err
		}
		m, err := readMedusaDir(sc, a, p)
		medusaCache.Store(key, medusaOrErr{m, err})
		return m, err
	}
	hd, err := hubDraftOf(a, sc)
	if err != nil {
		// Its text ends in specHubDraft, which hubDraftUnread looks for.
		return Medusa{}, fmt.Errorf("%s%s", untrusted.Text(sc.model), specHubDraft)
	}
	return readMedusaFrom(sc.model, hd.path, hd.config, func() (map[string][]uint64, error) { return hd.shapes, hd.shapesErr }, sc.tokens, a, p)
}

// readMedusaDir reads the Medusa draft of sc's local directory.
func readMedusaDir(sc specConfig, a *model.Arch, p Profile) (Medusa, error) {
	file := filepath.Join(sc.model, "config.json")
	data, err := readFileLimited(file, maxDraftConfig)
	if err != nil {
		return Medusa{}, errors.New(untrusted.Text(err.Error()))
	}
	return readMedusaFrom(sc.model, file, data, func() (map[string][]uint64, error) { return draftTensorShapes(sc.model) }, sc.tokens, a, p)
}

// orderedObject reads a JSON object's keys in their order (Python's dict
// keeps it; a later duplicate takes the first one's place) and values.
func orderedObject(data []byte) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("want a JSON object")
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	// transformers reads the file with json.loads (PretrainedConfig.
	// _dict_from_json_file, configuration_utils.py), which refuses
	// anything after the object but JSON's whitespace ("Extra data").
	if end := dec.InputOffset(); extraAfterJSON(dec) {
		return nil, nil, fmt.Errorf("text after the JSON object at byte %d, which transformers' json.loads refuses (Extra data)", end)
	}
	return keys, vals, nil
}

// medusaRenamed is the config's keys as MedusaConfig.from_pretrained
// leaves them (configs/medusa.py:49-54): in the file's order, a key
// holding "num" and "heads" is popped into num_heads, else one holding
// "num" and "layers" into num_hidden_layers, so the last such key read
// sets each (medusa_num_heads and medusa_num_layers in FasterDecoding's
// format; num_attention_heads too in a config copied from the base
// model's, which k then overrides).
func medusaRenamed(keys []string, vals map[string]json.RawMessage) map[string]json.RawMessage {
	out := maps.Clone(vals)
	for _, k := range keys {
		if !strings.Contains(k, "num") {
			continue
		}
		to := ""
		switch {
		case strings.Contains(k, "heads"):
			to = "num_heads"
		case strings.Contains(k, "layers"):
			to = "num_hidden_layers"
		default:
			continue
		}
		v := out[k]
		delete(out, k)
		out[to] = v
	}
	return out
}

// readMedusaFrom reads a Medusa draft from its config.json (data, read
// from file) for k speculative tokens on target a under profile p, and
// checks that its checkpoint holds every tensor vLLM builds; dir names
// the draft in messages.
func readMedusaFrom(dir, file string, data []byte, shapes func() (map[string][]uint64, error), k uint64, a *model.Arch, p Profile) (Medusa, error) {
	m := Medusa{Path: dir, Heads: k}
	dir, file = untrusted.Text(dir), untrusted.Text(file) // quoted in the errors
	keys, orig, err := orderedObject(data)
	if err != nil {
		return m, fmt.Errorf("%s: %s", file, untrusted.Text(err.Error()))
	}
	var modelType string
	if raw, ok := orig["model_type"]; ok {
		if err := json.Unmarshal(raw, &modelType); err != nil {
			return m, fmt.Errorf("%s: key \"model_type\" is %s; want a string", file, untrusted.Text(string(raw)))
		}
	}
	switch modelType {
	case "":
		m.OldFormat = true
		if p.Release.Less(medusaOldFormatSince) {
			return m, fmt.Errorf("%s: no model_type: vLLM reads such a Medusa config (FasterDecoding's format) from PR #41396 (2026-06-30), surely from %s; not modelled for %s", file, medusaOldFormatSince, p.Describes)
		}
	case "medusa":
	default:
		// The method's hf_overrides make it "medusa" (speculative.py:
		// 883-889) but keep the architectures and keys of another model's
		// config, which membudget does not size as heads.
		return m, fmt.Errorf("%s: model_type %s: membudget sizes a Medusa config (model_type \"medusa\", or none in FasterDecoding's format); not modelled", file, untrusted.Quote(modelType))
	}
	if raw, ok := orig["architectures"]; ok && string(raw) != "null" {
		var archs []string
		if err := json.Unmarshal(raw, &archs); err != nil || !slices.Equal(archs, []string{"MedusaModel"}) {
			// vLLM would build the named class as the draft
			// (registry.py:667 maps MedusaModel to the heads).
			return m, fmt.Errorf("%s: architectures %s: membudget sizes the Medusa heads (MedusaModel) only", file, untrusted.Text(string(raw)))
		}
	}
	for _, key := range medusaRefused {
		if raw, ok := orig[key]; ok && string(raw) != "null" {
			return m, fmt.Errorf("%s: key %q: not modelled for the Medusa heads; membudget refuses it rather than size a serve vLLM would contradict", file, key)
		}
	}
	cfg := medusaRenamed(keys, orig)
	count := func(key string, to *uint64, def uint64) error {
		*to = def
		raw, ok := cfg[key]
		if !ok {
			return nil
		}
		n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 32)
		if err != nil || n == 0 {
			return fmt.Errorf("%s: key %q (as MedusaConfig renames it) is %s; want a positive integer", file, key, untrusted.Text(string(raw)))
		}
		*to = n
		return nil
	}
	var truncated uint64
	if err := cmp.Or(count("hidden_size", &m.Hidden, medusaDefaultHidden), count("vocab_size", &m.Vocab, medusaDefaultVocab),
		count("num_heads", &m.ConfigHeads, medusaDefaultHeads), count("num_hidden_layers", &m.Layers, medusaDefaultLayers),
		count("truncated_vocab_size", &truncated, 0)); err != nil {
		return m, err
	}
	if truncated == 0 {
		truncated = m.Vocab // configs/medusa.py:32-34
	}
	for _, b := range []struct {
		key string
		to  *bool
	}{{"medusa_fc_bias", &m.Bias}, {"original_lm_head", &m.SharedHead}} {
		if raw, ok := cfg[b.key]; ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, b.to); err != nil {
				return m, fmt.Errorf("%s: key %q is %s; want a boolean", file, b.key, untrusted.Text(string(raw)))
			}
		}
	}
	if !p.Release.Less(medusaOldFormatSince) && m.Vocab != a.Vocab {
		// speculative.py:927-932: both become the target's.
		m.Vocab, truncated = a.Vocab, a.Vocab
	}
	if truncated != m.Vocab {
		return m, fmt.Errorf("%s: truncated_vocab_size %d of vocab_size %d: the heads' token_map (medusa.py:97-103, 169-186) is not modelled", file, truncated, m.Vocab)
	}
	if m.Hidden != a.Hidden {
		// The heads read the target's last hidden states
		// (gpu_model_runner.py:5193-5218).
		return m, fmt.Errorf("%s: hidden_size %d differs from the target's %d (MedusaConfig's default is 4096): not modelled", file, m.Hidden, a.Hidden)
	}
	tensors, err := shapes()
	if errors.Is(err, errNoSafetensors) && localDraft(m.Path) {
		tensors, err = medusaPtTensors(m.Path, &m)
	}
	switch {
	case errors.Is(err, errNoSafetensors) && !localDraft(m.Path):
		return m, fmt.Errorf("%s: no safetensors checkpoint on the Hub: membudget reads its tensor names to tell that it holds the %d head(s) vLLM builds, else vLLM stops loading it (a .pt or .bin checkpoint named by a Hub id is not fetched; a local copy of the directory's config.json and .pt is read); not modelled", dir, m.Heads)
	case errors.Is(err, errNoSafetensors):
		return m, fmt.Errorf("%s: no safetensors or .pt checkpoint: membudget reads its tensor names to tell that it holds the %d head(s) vLLM builds, else vLLM stops loading it (a .bin checkpoint is not read); not modelled", dir, m.Heads)
	case err != nil:
		return m, errors.New(untrusted.Text(err.Error()))
	}
	return m, m.checkCheckpoint(dir, tensors)
}

// medusaParamName is the parameter a checkpoint tensor loads into, as
// Medusa.load_weights names it (medusa.py:139-178): "medusa_heads."
// dropped, FasterDecoding's "{head}.{layer}.linear.weight" and
// "{head}.{N}.weight" renamed to blocks.{head}.layers.{layer}.weight and
// lm_heads.{head}.weight.
func medusaParamName(name string) string {
	name = strings.ReplaceAll(name, "medusa_heads.", "")
	parts := strings.Split(name, ".")
	digits := func(s string) bool {
		_, err := strconv.ParseUint(s, 10, 64)
		return err == nil && !strings.HasPrefix(s, "+")
	}
	if len(parts) < 3 || !digits(parts[0]) || !digits(parts[1]) {
		return name
	}
	rest := parts[2:]
	if i := slices.Index(rest, "linear"); i >= 0 {
		return "blocks." + parts[0] + ".layers." + parts[1] + "." + strings.Join(rest[i+1:], ".")
	}
	return "lm_heads." + parts[0] + "." + strings.Join(rest, ".")
}

// checkCheckpoint checks that the checkpoint's tensors fill every
// parameter vLLM builds for m, of its shape: vLLM's loader stops on a
// parameter left empty ("Following weights were not initialized from
// checkpoint", default_loader.py track_weights_loading, strict for an
// unquantized draft) and on a shape it cannot load. Tensors of heads
// beyond m.Heads are skipped, as load_weights skips a name it has no
// parameter for (medusa.py:172-178).
func (m *Medusa) checkCheckpoint(dir string, tensors map[string][]uint64) error {
	params := map[string][]uint64{}
	for name, shape := range tensors {
		n := medusaParamName(name)
		if m.SharedHead && n == "lm_heads.0.weight" {
			n = "lm_head.weight" // medusa.py:174-178
		}
		params[n] = shape
	}
	want := map[string][]uint64{}
	for h := range m.Heads {
		for l := range m.Layers {
			pre := fmt.Sprintf("blocks.%d.layers.%d.", h, l)
			want[pre+"weight"] = []uint64{m.Hidden, m.Hidden}
			if m.Bias {
				want[pre+"bias"] = []uint64{m.Hidden}
			}
		}
		if !m.SharedHead {
			want[fmt.Sprintf("lm_heads.%d.weight", h)] = []uint64{m.Vocab, m.Hidden}
		}
	}
	if m.SharedHead {
		want["lm_head.weight"] = []uint64{m.Vocab, m.Hidden}
	}
	var missing []string
	for _, name := range slices.Sorted(maps.Keys(want)) {
		got, ok := params[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case !slices.Equal(got, want[name]):
			return fmt.Errorf("%s: the checkpoint's %s is %v where vLLM builds %v: vLLM cannot load it", dir, name, got, want[name])
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: vLLM builds %d head(s) (num_speculative_tokens) and stops loading the checkpoint: Following weights were not initialized from checkpoint: %s", dir, m.Heads, strings.Join(missing, ", "))
	}
	return nil
}

// medusaTensors yields the bytes of each tensor of the Medusa heads on one
// GPU at tensor-parallel size tp and dtype bytes el (the target's dtype,
// speculative.py:909): per head, each residual block's nn.Linear of
// Hidden x Hidden (and its bias), replicated on every rank
// (medusa.py:19-38); then each head's ParallelLMHead of Vocab rows padded
// to 64 and divided among the ranks, or the one shared head
// (medusa.py:73-90; VocabParallelEmbedding's padding).
func medusaTensors(m *Medusa, tp, el uint64, yield func(uint64)) {
	mul := budget.SatMul
	for range m.Heads {
		for range m.Layers {
			yield(mul(mul(m.Hidden, m.Hidden), el))
			if m.Bias {
				yield(mul(m.Hidden, el))
			}
		}
	}
	heads := m.Heads
	if m.SharedHead {
		heads = 1
	}
	rows := budget.CeilDiv(budget.RoundUp(m.Vocab, vocabPadding), max(tp, 1))
	for range heads {
		yield(mul(mul(rows, m.Hidden), el))
	}
}

// medusaLogitsBytes is what each decode step's heads draw outside the
// profile run at max_num_seqs requests: every head's logits, requests x
// vocabulary in the model dtype (LogitsProcessor gathers the full
// vocabulary, medusa.py:108-137), kept together until their argmaxes are
// stacked (vllm/v1/spec_decode/medusa.py:50-58).
func medusaLogitsBytes(r *Resolved) uint64 {
	m := r.Spec.Medusa
	if m == nil {
		return 0
	}
	return budget.SatMul(budget.SatMul(budget.SatMul(m.Heads, r.MaxNumSeqs), m.Vocab), r.DtypeBytes)
}

// medusaSettings is the report's line of the Medusa heads.
func (sz *Sizing) medusaSettings() string {
	r := sz.Serve
	m := r.Spec.Medusa
	head := "its own LM head each"
	if m.SharedHead {
		head = "one shared LM head"
	}
	format := "a Medusa config"
	if m.OldFormat {
		format = "an old-format Medusa config (no model_type, read as MedusaConfig renames its keys)"
	}
	return fmt.Sprintf("Medusa heads %s (%s): %d head(s), one per speculative token (its config declares %d), of %d residual block(s) of %d x %d and %s of %d rows: %s of weights on the last stage; no draft KV, no proposer buffer; the profile run does not run the heads, and each decode step's logits, up to %s at max_num_seqs, are drawn outside it (not charged, as vLLM does not)",
		untrusted.Text(m.Path), format, m.Heads, m.ConfigHeads, m.Layers, m.Hidden, m.Hidden, head, m.Vocab,
		engine.GiB(sz.draftWeightItem(len(r.Stages)-1)), engine.GiB(medusaLogitsBytes(r)))
}

// maxPickle bounds the data.pkl of a .pt checkpoint that is read: a state
// dict's names and storage references, far below it.
const maxPickle = 16 << 20

// ptTensorNames reads the tensor names of a torch.save checkpoint (a zip
// of data.pkl and one data/<key> entry per storage) without running its
// pickle: every string the pickle holds, by walking its opcodes (an opcode
// this walker does not know is refused), and the byte size of every
// storage, which the caller matches against the shapes it expects.
func ptTensorNames(file string) (strs []string, storages []uint64, err error) {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a torch.save zip archive: %v", file, err)
	}
	defer zr.Close()
	var pkl *zip.File
	for _, f := range zr.File {
		dir, base := path.Split(f.Name)
		switch {
		case base == "data.pkl" && strings.Count(f.Name, "/") == 1:
			if pkl != nil {
				return nil, nil, fmt.Errorf("%s: two data.pkl entries", file)
			}
			pkl = f
		case strings.HasSuffix(dir, "/data/") && strings.Count(f.Name, "/") == 2:
			if _, err := strconv.ParseUint(base, 10, 64); err == nil {
				storages = append(storages, f.UncompressedSize64)
			}
		}
	}
	if pkl == nil || pkl.UncompressedSize64 > maxPickle {
		return nil, nil, fmt.Errorf("%s: no data.pkl of at most %d bytes", file, maxPickle)
	}
	rc, err := pkl.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", file, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxPickle+1))
	if err != nil || len(data) > maxPickle {
		return nil, nil, fmt.Errorf("%s: reading data.pkl: %v", file, err)
	}
	strs, err = pickleStrings(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: data.pkl: %v", file, err)
	}
	return strs, storages, nil
}

// pickleArg is the bytes of an opcode's fixed argument (Python's
// pickletools, protocols 0-5); -1 reads a newline-terminated line, -2 two
// of them.
var pickleArg = map[byte]int{
	0x80: 1, 0x95: 8, // PROTO, FRAME
	'q': 1, 'r': 4, 'h': 1, 'j': 4, // BINPUT, LONG_BINPUT, BINGET, LONG_BINGET
	'J': 4, 'K': 1, 'M': 2, 'G': 8, // BININT, BININT1, BININT2, BINFLOAT
	'c': -2, 'I': -1, 'L': -1, 'F': -1, 'p': -1, 'g': -1, // GLOBAL, INT, LONG, FLOAT, PUT, GET
	'}': 0, ')': 0, ']': 0, '(': 0, 't': 0, 0x85: 0, 0x86: 0, 0x87: 0, 0x88: 0, 0x89: 0, 'N': 0,
	'u': 0, 's': 0, 'a': 0, 'e': 0, 'R': 0, 'Q': 0, 'b': 0, 0x81: 0, 0x94: 0, 0x93: 0, 0x8f: 0,
	0x90: 0, 0x91: 0, '0': 0, '1': 0, '2': 0, 'l': 0, 'd': 0, 0x92: 0, // ... NEWOBJ_EX
}

// pickleStrings is every unicode string of a pickle, in order, read by
// walking its opcodes to STOP.
func pickleStrings(data []byte) ([]string, error) {
	var out []string
	take := func(i, n int) ([]byte, error) {
		if n < 0 || i+n > len(data) || i+n < i {
			return nil, fmt.Errorf("truncated at byte %d", i)
		}
		return data[i : i+n], nil
	}
	length := func(i, n int) (int, error) {
		b, err := take(i, n)
		if err != nil {
			return 0, err
		}
		var v uint64
		for j := n - 1; j >= 0; j-- {
			v = v<<8 | uint64(b[j])
		}
		if v > uint64(len(data)) {
			return 0, fmt.Errorf("a length of %d at byte %d", v, i)
		}
		return int(v), nil
	}
	for i := 0; i < len(data); {
		op := data[i]
		i++
		switch op {
		case '.': // STOP
			return out, nil
		case 'X', 0x8c, 0x8d, 'T', 'U', 'B', 'C', 0x8e, 0x8a, 0x8b: // BINUNICODE(8), SHORT_BINUNICODE, BINSTRING, SHORT_BINSTRING, BINBYTES(8), SHORT_BINBYTES, LONG1, LONG4
			w := map[byte]int{'X': 4, 0x8c: 1, 0x8d: 8, 'T': 4, 'U': 1, 'B': 4, 'C': 1, 0x8e: 8, 0x8a: 1, 0x8b: 4}[op]
			n, err := length(i, w)
			if err != nil {
				return nil, err
			}
			b, err := take(i+w, n)
			if err != nil {
				return nil, err
			}
			if op == 'X' || op == 0x8c || op == 0x8d {
				out = append(out, string(b))
			}
			i += w + n
		default:
			w, ok := pickleArg[op]
			if !ok {
				return nil, fmt.Errorf("opcode 0x%02x at byte %d, which membudget does not read", op, i-1)
			}
			for ; w < 0; w++ {
				end := bytes.IndexByte(data[i:], '\n')
				if end < 0 {
					return nil, fmt.Errorf("truncated at byte %d", i)
				}
				i += end + 1
			}
			if _, err := take(i, w); err != nil {
				return nil, err
			}
			i += w
		}
	}
	return nil, fmt.Errorf("no STOP")
}

// medusaPtTensors is the tensors of the draft's .pt checkpoints in dir
// (the files vLLM loads when the directory has no safetensors or .bin,
// default_loader.py:165-215), as the shapes m's parameters take: every
// tensor name of their pickles that loads into a head's parameter, given
// the shape vLLM builds for it, where the storages' byte sizes are
// exactly those shapes' in one dtype of 2 or 4 bytes (so that an LM head
// of another vocabulary, or a head of another width, is caught). Any
// other checkpoint is refused.
func medusaPtTensors(dir string, m *Medusa) (map[string][]uint64, error) {
	bins, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	files, _ := filepath.Glob(filepath.Join(dir, "*.pt"))
	if len(bins) > 0 || len(files) == 0 || len(files) > maxDraftShards {
		return nil, errNoSafetensors
	}
	shapeOf := func(n string) []uint64 {
		switch {
		case strings.HasPrefix(n, "blocks.") && strings.HasSuffix(n, ".weight"):
			return []uint64{m.Hidden, m.Hidden}
		case strings.HasPrefix(n, "blocks.") && strings.HasSuffix(n, ".bias"):
			return []uint64{m.Hidden}
		case strings.HasPrefix(n, "lm_heads.") && strings.HasSuffix(n, ".weight"), n == "lm_head.weight":
			return []uint64{m.Vocab, m.Hidden}
		}
		return nil
	}
	out := map[string][]uint64{}
	sizes := map[uint64]int{}
	var total int
	for _, f := range files {
		strs, storages, err := ptTensorNames(f)
		if err != nil {
			return nil, err
		}
		for _, s := range strs {
			if shape := shapeOf(medusaParamName(s)); shape != nil {
				out[s] = shape
			}
		}
		for _, n := range storages {
			sizes[n]++
		}
		total += len(storages)
	}
	for _, el := range []uint64{2, 4} {
		want := map[uint64]int{}
		for _, shape := range out {
			n := el
			for _, d := range shape {
				n = budget.SatMul(n, d)
			}
			want[n]++
		}
		if maps.Equal(want, sizes) {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%s: the .pt checkpoint's %d storages are not the %d head tensors its names give, at %d x %d (hidden) and %d x %d (vocabulary x hidden) in one dtype: not read", untrusted.Text(dir), total, len(out), m.Hidden, m.Hidden, m.Vocab, m.Hidden)
}
