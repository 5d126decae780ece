package hub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"membudget/model"
)

// Qwen2.5-VL-7B-Instruct's config.json (shipped) and processor files as
// published: the image processor's top-level min_pixels and max_pixels;
// a Qwen3-VL-style video processor's size.
const (
	qwen25VLPreprocessor = `{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2}`
	qwen3VideoProcessor  = `{"size": {"longest_edge": 25165824, "shortest_edge": 4096}, "temporal_patch_size": 2}`
)

// qwen25VLConfig is the shipped Qwen2.5-VL-7B-Instruct config.json: a
// multimodal model, so that its processor files are read.
func qwen25VLConfig(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../corpus/models/Qwen__Qwen2.5-VL-7B-Instruct.json")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestProcessorsFromAPath: a model folder's preprocessor_config.json and
// video_preprocessor_config.json are attached to its vision tower; none
// is none; a text model reads none; a file that is not JSON is an error
// naming --model and the file.
func TestProcessorsFromAPath(t *testing.T) {
	vl := qwen25VLConfig(t)
	root := t.TempDir()
	write := func(dir, name, data string) { t.Helper(); writeUnder(t, root, dir, name, data) }
	write("vl", "config.json", vl)
	write("vl", model.PreprocessorFile, qwen25VLPreprocessor)
	write("vl", model.VideoPreprocessorFile, qwen3VideoProcessor)
	write("bare", "config.json", vl)
	// transformers 5.x's save: processor_config.json nests both, and takes
	// precedence over the single files.
	write("nested", "config.json", vl)
	write("nested", model.ProcessorFile, `{"image_processor": {"size": {"longest_edge": 1003520, "shortest_edge": 3136}}, "video_processor": {"size": {"longest_edge": 25165824, "shortest_edge": 4096}}}`)
	write("nested", model.PreprocessorFile, qwen25VLPreprocessor)
	write("nested-image", "config.json", vl)
	write("nested-image", model.ProcessorFile, `{"image_processor": {"max_pixels": 1003520}, "processor_class": "Qwen2_5_VLProcessor"}`)
	write("nested-image", model.PreprocessorFile, qwen25VLPreprocessor)
	write("bad-nested", "config.json", vl)
	write("bad-nested", model.ProcessorFile, `["image_processor"]`)
	write("text", "config.json", qwen3Config)
	write("text", model.PreprocessorFile, `[not read`)
	write("bad", "config.json", vl)
	write("bad", model.PreprocessorFile, `{"max_pixels": 12845056`)

	r := Resolver{CacheDir: t.TempDir(), Offline: true}
	load := func(dir string) (*Loaded, error) {
		return r.Load(context.Background(), filepath.Join(root, dir))
	}
	l, err := load("vl")
	if err != nil {
		t.Fatal(err)
	}
	want := &model.Processor{File: filepath.Join(root, "vl", model.PreprocessorFile), MinPixels: 3136, MaxPixels: 12845056, TemporalPatch: 2}
	if diff := cmp.Diff(want, l.Arch.Vision.ImageProcessor); diff != "" {
		t.Errorf("image processor (-want +got):\n%s", diff)
	}
	wantVideo := &model.Processor{File: filepath.Join(root, "vl", model.VideoPreprocessorFile), SizeGiven: true, ShortestEdge: 4096, LongestEdge: 25165824, TemporalPatch: 2}
	if diff := cmp.Diff(wantVideo, l.Arch.Vision.VideoProcessor); diff != "" {
		t.Errorf("video processor (-want +got):\n%s", diff)
	}
	if l, err := load("bare"); err != nil || l.Arch.Vision.ImageProcessor != nil || l.Arch.Vision.VideoProcessor != nil {
		t.Errorf("no processor files: %v, %+v", err, l)
	}
	l, err = load("nested")
	if err != nil {
		t.Fatal(err)
	}
	nested := filepath.Join(root, "nested", model.ProcessorFile)
	if diff := cmp.Diff(&model.Processor{File: nested + " (image_processor)", SizeGiven: true, ShortestEdge: 3136, LongestEdge: 1003520}, l.Arch.Vision.ImageProcessor); diff != "" {
		t.Errorf("nested image processor (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&model.Processor{File: nested + " (video_processor)", SizeGiven: true, ShortestEdge: 4096, LongestEdge: 25165824}, l.Arch.Vision.VideoProcessor); diff != "" {
		t.Errorf("nested video processor (-want +got):\n%s", diff)
	}
	// The nested image processor over preprocessor_config.json; the
	// video's, not nested, from preprocessor_config.json.
	l, err = load("nested-image")
	if err != nil {
		t.Fatal(err)
	}
	if p := l.Arch.Vision.ImageProcessor; p == nil || p.MaxPixels != 1003520 || !strings.HasSuffix(p.File, "(image_processor)") {
		t.Errorf("nested image processor %+v", p)
	}
	if p := l.Arch.Vision.VideoProcessor; p == nil || p.MaxPixels != 12845056 || p.File != filepath.Join(root, "nested-image", model.PreprocessorFile) {
		t.Errorf("video processor %+v, want preprocessor_config.json's", p)
	}
	if _, err := load("bad-nested"); err == nil || !strings.Contains(err.Error(), model.ProcessorFile+": not a JSON object") {
		t.Errorf("processor_config.json not an object: error %v", err)
	}
	if _, err := load("text"); err != nil {
		t.Errorf("a text model read its preprocessor_config.json: %v", err)
	}
	if _, err := load("bad"); err == nil || !strings.Contains(err.Error(), "--model") || !strings.Contains(err.Error(), model.PreprocessorFile+": not a JSON object") {
		t.Errorf("malformed file: error %v, want one naming --model and the file", err)
	}
}

// TestProcessorsFromTheHub: a Hub model's processor files are fetched at
// its commit and kept in the cache: offline they are read from it; a
// model without them is none, recorded missing; offline, a model whose
// files were never asked for reads as none and its source says so.
func TestProcessorsFromTheHub(t *testing.T) {
	vl := qwen25VLConfig(t)
	h := newFakeHub(t)
	h.add("Qwen/Qwen2.5-VL-7B-Instruct", &fakeRepo{refs: map[string]string{"main": commitA},
		files: map[string]map[string]fakeFile{commitA: {"config.json": smallFile([]byte(vl)),
			model.PreprocessorFile: smallFile([]byte(qwen25VLPreprocessor))}}})
	h.add("acme/bare-vl", &fakeRepo{refs: map[string]string{"main": commitB},
		files: map[string]map[string]fakeFile{commitB: {"config.json": smallFile([]byte(vl))}}})
	h.add("acme/bad-vl", &fakeRepo{refs: map[string]string{"main": commitB},
		files: map[string]map[string]fakeFile{commitB: {"config.json": smallFile([]byte(vl)),
			model.VideoPreprocessorFile: smallFile([]byte(`{"size": 25165824`))}}})
	online := h.resolver(t)
	offline := online
	offline.Offline = true
	ctx := context.Background()

	l, err := online.Load(ctx, "Qwen/Qwen2.5-VL-7B-Instruct")
	if err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(online.CacheDir, "models--Qwen--Qwen2.5-VL-7B-Instruct", "snapshots", commitA)
	want := &model.Processor{File: filepath.Join(snap, model.PreprocessorFile), MinPixels: 3136, MaxPixels: 12845056, TemporalPatch: 2}
	if diff := cmp.Diff(want, l.Arch.Vision.ImageProcessor); diff != "" {
		t.Errorf("online (-want +got):\n%s", diff)
	}
	// No video_preprocessor_config.json: transformers' video processor
	// falls back to preprocessor_config.json.
	if diff := cmp.Diff(want, l.Arch.Vision.VideoProcessor); diff != "" {
		t.Errorf("video processor (-want +got):\n%s", diff)
	}
	var asked []string
	for _, q := range h.hubRequests() {
		if strings.Contains(q.Path, "processor_config") {
			asked = append(asked, q.Path)
		}
	}
	wantAsked := []string{"/Qwen/Qwen2.5-VL-7B-Instruct/resolve/" + commitA + "/" + model.ProcessorFile,
		"/Qwen/Qwen2.5-VL-7B-Instruct/resolve/" + commitA + "/" + model.PreprocessorFile,
		"/Qwen/Qwen2.5-VL-7B-Instruct/resolve/" + commitA + "/" + model.VideoPreprocessorFile}
	if diff := cmp.Diff(wantAsked, asked); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}

	before := len(h.hubRequests())
	l, err = offline.Load(ctx, "Qwen/Qwen2.5-VL-7B-Instruct")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, l.Arch.Vision.ImageProcessor); diff != "" {
		t.Errorf("offline, from the cache (-want +got):\n%s", diff)
	}
	if n := len(h.hubRequests()) - before; n != 0 {
		t.Errorf("offline: %d Hub requests", n)
	}

	if l, err := online.Load(ctx, "acme/bare-vl"); err != nil || l.Arch.Vision.ImageProcessor != nil {
		t.Errorf("acme/bare-vl: %v, %+v; want no processor", err, l)
	}
	if _, err := online.Load(ctx, "acme/bad-vl"); err == nil || !strings.Contains(err.Error(), model.VideoPreprocessorFile+": not a JSON object") {
		t.Errorf("acme/bad-vl: error %v, want one naming %s", err, model.VideoPreprocessorFile)
	}

	// Offline, a model whose config.json is cached but whose processor
	// files were never asked for: none, and the source says so.
	fresh := h.resolver(t)
	fresh.CacheDir = offline.CacheDir
	if _, err := fresh.Resolve(ctx, "acme/plain-vl"); err == nil {
		t.Fatal("acme/plain-vl resolved from nowhere")
	}
	h.add("acme/plain-vl", &fakeRepo{refs: map[string]string{"main": commitB},
		files: map[string]map[string]fakeFile{commitB: {"config.json": smallFile([]byte(vl))}}})
	if _, err := fresh.Resolve(ctx, "acme/plain-vl"); err != nil {
		t.Fatal(err)
	}
	l, err = offline.Load(ctx, "acme/plain-vl")
	if err != nil {
		t.Fatal(err)
	}
	if l.Arch.Vision.ImageProcessor != nil || !strings.Contains(l.Model.Source.Description, "no "+model.PreprocessorFile+" in the cache (offline: read as none") {
		t.Errorf("offline without the files: %+v, source %q", l.Arch.Vision.ImageProcessor, l.Model.Source.Description)
	}
}
