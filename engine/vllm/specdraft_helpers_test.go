package vllm

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"membudget/model"
)

// draftTensor is one tensor of a test draft's checkpoint.
type draftTensor struct {
	name, dtype string
	shape       []uint64
}

// eagle3Checkpoint is the tensors of an EAGLE-3 Llama draft as SpecForge
// saves it (midlayer.*, fc, norm, lm_head of draft_vocab rows, d2t and
// t2d; no embed_tokens: the draft uses the target's).
var eagle3Checkpoint = []draftTensor{
	{"d2t", "I64", []uint64{31960}},
	{"fc.weight", "F16", []uint64{4096, 12288}},
	{"lm_head.weight", "F16", []uint64{31960, 4096}},
	{"midlayer.hidden_norm.weight", "F16", []uint64{4096}},
	{"midlayer.input_layernorm.weight", "F16", []uint64{4096}},
	{"midlayer.mlp.down_proj.weight", "F16", []uint64{4096, 14336}},
	{"midlayer.mlp.gate_proj.weight", "F16", []uint64{14336, 4096}},
	{"midlayer.mlp.up_proj.weight", "F16", []uint64{14336, 4096}},
	{"midlayer.post_attention_layernorm.weight", "F16", []uint64{4096}},
	{"midlayer.self_attn.k_proj.weight", "F16", []uint64{1024, 8192}},
	{"midlayer.self_attn.o_proj.weight", "F16", []uint64{4096, 4096}},
	{"midlayer.self_attn.q_proj.weight", "F16", []uint64{4096, 8192}},
	{"midlayer.self_attn.v_proj.weight", "F16", []uint64{1024, 8192}},
	{"norm.weight", "F16", []uint64{4096}},
	{"t2d", "BOOL", []uint64{128256}},
}

// eagle3Config is the shipped EAGLE-3 draft config (corpus/models/drafts).
const eagle3Config = "../../corpus/models/drafts/sgl-project__SpecForge__llama3-8B-eagle3.json"

// writeDraftDir writes a draft directory: config (a file's path, or the
// JSON itself when it begins with '{') as config.json, and a
// model.safetensors of the tensors, its data a sparse hole of the right
// size (only the header is read).
func writeDraftDir(t testing.TB, config string, tensors []draftTensor) string {
	t.Helper()
	dir := t.TempDir()
	writeDraftAt(t, dir, config)
	if tensors == nil {
		return dir
	}
	writeCheckpoint(t, dir, tensors)
	return dir
}

// writeDraftAt writes config (a file's path, or the JSON itself when it
// begins with '{') as dir/config.json, making dir.
func writeDraftAt(t testing.TB, dir, config string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := []byte(config)
	if config == "" || config[0] != '{' {
		var err error
		if data, err = os.ReadFile(config); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeCheckpoint writes dir/model.safetensors of the tensors, its data a
// sparse hole of the right size (only the header is read).
func writeCheckpoint(t testing.TB, dir string, tensors []draftTensor) {
	t.Helper()
	width := map[string]uint64{"F16": 2, "BF16": 2, "F32": 4, "I64": 8, "BOOL": 1}
	head := map[string]any{}
	var off uint64
	for _, tn := range tensors {
		n := width[tn.dtype]
		for _, d := range tn.shape {
			n *= d
		}
		head[tn.name] = map[string]any{"dtype": tn.dtype, "shape": tn.shape, "data_offsets": []uint64{off, off + n}}
		off += n
	}
	hj, err := json.Marshal(head)
	if err != nil {
		t.Fatal(err)
	}
	for len(hj)%8 != 0 {
		hj = append(hj, ' ')
	}
	file := filepath.Join(dir, "model.safetensors")
	buf := binary.LittleEndian.AppendUint64(nil, uint64(len(hj)))
	if err := os.WriteFile(file, append(buf, hj...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, int64(8+len(hj))+int64(off)); err != nil {
		t.Fatal(err)
	}
}

// WriteEagle3Draft writes the shipped EAGLE-3 draft with its checkpoint's
// header into a temporary directory, for the contract tests.
func WriteEagle3Draft(t testing.TB) string {
	return writeDraftDir(t, eagle3Config, eagle3Checkpoint)
}

// draftItems resolves s for a on [bigClass] under vLLM v1 Llama's profile
// and returns the resolution with the bytes of its draft_weights and
// draft_buffers peak items at stage 0 (0 where an item is missing, so a
// lost item fails the caller's comparison).
func draftItems(t testing.TB, a *model.Arch, s Serve) (Resolved, map[string]uint64) {
	t.Helper()
	r, err := Resolve(s, a, bigClass, v1Llama)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]uint64{}
	for _, it := range peakItems(a, &r, stageOf(&r, 0)) {
		items[it.Name] = it.Bytes
	}
	return r, map[string]uint64{"draft_weights": items["draft_weights"], "draft_buffers": items["draft_buffers"]}
}

// kvShape is what a KV layout test pins: the groups, the layers of the
// first, whether they are one uniform type, the page and its tensors.
type kvShape struct {
	Groups, Layers int
	Uniform        bool
	Page, Tensors  uint64
}

// kvShapeOf resolves s for a on [bigClass] under vLLM v1 Llama's profile
// and returns the shape of its KV layout at stage 0.
func kvShapeOf(t testing.TB, a *model.Arch, s Serve) kvShape {
	t.Helper()
	r, err := Resolve(s, a, bigClass, v1Llama)
	if err != nil {
		t.Fatal(err)
	}
	layout, err := kvLayoutOf(layerSpecs(a, &r), r.Profile.KVGroupRatio)
	if err != nil {
		t.Fatal(err)
	}
	if len(layout.groups) == 0 {
		t.Fatal("no KV cache groups")
	}
	pool := layout.pool(&r, stageOf(&r, 0))
	return kvShape{len(layout.groups), len(layout.groups[0].layers), layout.uniformType, pool.PageBytes, pool.Tensors}
}

// draftBytesTP1 reads a draft of method from config and tensors for target
// a and returns its tensors' bytes on one rank in bf16 (2 B an element),
// as the by-hand weight tests count them.
func draftBytesTP1(t testing.TB, a *model.Arch, method, config string, tensors []draftTensor) uint64 {
	t.Helper()
	d, err := readDraft(writeDraftDir(t, config, tensors), method, a)
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	draftTensors(&d, 1, 2, func(b uint64) { n += b })
	return n
}
