package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Processor files as published (the keys read; the others are left to
// the towers' rules).
const (
	// Qwen/Qwen2.5-VL-7B-Instruct's preprocessor_config.json: the
	// top-level min_pixels and max_pixels, no size.
	qwen25VLPreprocessor = `{"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "temporal_patch_size": 2, "merge_size": 2,
		"image_processor_type": "Qwen2VLImageProcessor", "processor_class": "Qwen2_5_VLProcessor"}`
	// The Qwen3.5 and Qwen3.6 checkpoints' preprocessor_config.json and
	// video_preprocessor_config.json: size alone.
	qwen36Preprocessor      = `{"image_processor_type": "Qwen2VLImageProcessorFast", "merge_size": 2, "patch_size": 16, "size": {"longest_edge": 16777216, "shortest_edge": 65536}, "temporal_patch_size": 2}`
	qwen36VideoPreprocessor = `{"fps": 2, "max_frames": 768, "merge_size": 2, "min_frames": 4, "patch_size": 16, "size": {"longest_edge": 25165824, "shortest_edge": 4096}, "temporal_patch_size": 2, "video_processor_type": "Qwen3VLVideoProcessor"}`
)

// TestParseProcessor: the keys a Qwen processor reads, as written; a file
// transformers could not read is an error naming it; a key in another
// form is kept in Invalid, for the rules that read it to refuse.
func TestParseProcessor(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, data string
		want       *Processor
		err        string
	}{
		{name: "qwen2.5-vl", data: qwen25VLPreprocessor,
			want: &Processor{File: "p.json", MinPixels: 3136, MaxPixels: 12845056, TemporalPatch: 2}},
		{name: "qwen3.6 image", data: qwen36Preprocessor,
			want: &Processor{File: "p.json", SizeGiven: true, ShortestEdge: 65536, LongestEdge: 16777216, TemporalPatch: 2}},
		{name: "qwen3.6 video", data: qwen36VideoPreprocessor,
			want: &Processor{File: "p.json", SizeGiven: true, ShortestEdge: 4096, LongestEdge: 25165824, TemporalPatch: 2}},
		// SigLIP's size is height and width: neither edge, no error.
		{name: "siglip's size", data: `{"size": {"height": 384, "width": 384}}`,
			want: &Processor{File: "p.json", SizeGiven: true}},
		{name: "null keys", data: `{"size": null, "max_pixels": null}`, want: &Processor{File: "p.json"}},
		{name: "not an object", data: `[1, 2]`, err: "p.json: not a JSON object"},
		{name: "not JSON", data: `{"size": `, err: "p.json: not a JSON object"},
		// Keys in another form are kept, not refused: CLIP's or an older
		// processor's size is read by its own tower's rules.
		{name: "size a number", data: `{"size": 224, "max_pixels": 1003520}`,
			want: &Processor{File: "p.json", MaxPixels: 1003520, Invalid: map[string]string{"size": "want an object such as {\"shortest_edge\": 3136, \"longest_edge\": 12845056}, got 224"}}},
		{name: "longest_edge a string", data: `{"size": {"longest_edge": "16777216", "shortest_edge": 65536}}`,
			want: &Processor{File: "p.json", SizeGiven: true, ShortestEdge: 65536, Invalid: map[string]string{"size.longest_edge": `want a positive integer, got "16777216"`}}},
		{name: "bad counts", data: `{"min_pixels": -3136, "max_pixels": 0, "temporal_patch_size": 1099511627777}`,
			want: &Processor{File: "p.json", Invalid: map[string]string{"min_pixels": "want a positive integer, got -3136", "max_pixels": "want a positive integer, got 0",
				"temporal_patch_size": "want a positive integer, got 1099511627777"}}},
		{name: "max_pixels a float", data: `{"max_pixels": 1.5e7}`,
			want: &Processor{File: "p.json", Invalid: map[string]string{"max_pixels": "want a positive integer, got 1.5e7"}}},
	} {
		got, err := ParseProcessor("p.json", []byte(c.data))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// TestQwenImagePixels: transformers' Qwen2-VL image processor's bounds
// from a file: size, else the class's default {56 x 56, 28 x 28 x 1280},
// each edge replaced by min_pixels or max_pixels where the file gives it;
// a size without both edges is refused, naming the file.
func TestQwenImagePixels(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, data string
		lo, hi     uint64
		err        string
	}{
		// Qwen2.5-VL: the top-level keys over the default size.
		{name: "qwen2.5-vl", data: qwen25VLPreprocessor, lo: 3136, hi: 12845056},
		// Qwen3.6: its size.
		{name: "qwen3.6", data: qwen36Preprocessor, lo: 65536, hi: 16777216},
		// Neither: the class's default, 3136 and 1003520.
		{name: "no size", data: `{"patch_size": 14}`, lo: 3136, hi: 1003520},
		// max_pixels over size.longest_edge; size's shortest_edge kept.
		{name: "max_pixels over size", data: `{"size": {"longest_edge": 16777216, "shortest_edge": 65536}, "max_pixels": 1003520}`, lo: 65536, hi: 1003520},
		// A size without longest_edge, filled by max_pixels: as
		// transformers fills it before its check.
		{name: "size filled by max_pixels", data: `{"size": {"shortest_edge": 3136}, "max_pixels": 1003520}`, lo: 3136, hi: 1003520},
		{name: "size without longest_edge", data: `{"size": {"shortest_edge": 3136}}`, err: "p.json: size: transformers' Qwen2-VL image processor refuses a size without both"},
		// A key the image processor reads, in a form it does not: named.
		{name: "size a number", data: `{"size": 224}`, err: "p.json: size: want an object"},
		{name: "max_pixels a string", data: `{"max_pixels": "12845056"}`, err: `p.json: max_pixels: want a positive integer, got "12845056"`},
		// temporal_patch_size is not the image bounds': not refused here.
		{name: "temporal_patch_size 0", data: `{"max_pixels": 1003520, "temporal_patch_size": 0}`, lo: 3136, hi: 1003520},
	} {
		p, err := ParseProcessor("p.json", []byte(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lo, hi, err := p.QwenImagePixels()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case lo != c.lo || hi != c.hi:
			t.Errorf("%s: pixels %d..%d, want %d..%d", c.name, lo, hi, c.lo, c.hi)
		}
	}
}

// TestQwenVideoPixels: Qwen3-VL's video processor's bounds and temporal
// patch: its size and temporal_patch_size, else the class's defaults
// {128 x 32 x 32, 32 x 32 x 768} and 2; min_pixels and max_pixels, which
// are not its keys, are refused by name.
func TestQwenVideoPixels(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, data   string
		lo, hi, temp uint64
		err          string
	}{
		{name: "qwen3.6", data: qwen36VideoPreprocessor, lo: 4096, hi: 25165824, temp: 2},
		// 131072 and 786432, temporal patch 2.
		{name: "defaults", data: `{}`, lo: 131072, hi: 786432, temp: 2},
		{name: "max_pixels", data: `{"max_pixels": 1003520}`, err: "p.json: min_pixels/max_pixels: not read"},
		{name: "size without shortest_edge", data: `{"size": {"longest_edge": 25165824}}`, err: "p.json: size: transformers' Qwen3-VL video processor refuses"},
		{name: "temporal_patch_size a float", data: `{"temporal_patch_size": 2.0}`, err: "p.json: temporal_patch_size: want a positive integer, got 2.0"},
		{name: "max_pixels malformed", data: `{"max_pixels": "x"}`, err: "p.json: min_pixels/max_pixels: not read"},
	} {
		p, err := ParseProcessor("p.json", []byte(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		lo, hi, temp, err := p.QwenVideoPixels()
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want one containing %q", c.name, err, c.err)
			}
		case err != nil:
			t.Errorf("%s: %v", c.name, err)
		case lo != c.lo || hi != c.hi || temp != c.temp:
			t.Errorf("%s: %d..%d pixels, temporal patch %d; want %d..%d, %d", c.name, lo, hi, temp, c.lo, c.hi, c.temp)
		}
	}
}

// TestAttachProcessors: a multimodal model takes its files; a text model
// none; a malformed file is the error.
func TestAttachProcessors(t *testing.T) {
	t.Parallel()
	vision := &Arch{Vision: &VisionTower{Kind: "qwen3_vl"}}
	if err := AttachProcessors(vision, "i.json", []byte(qwen36Preprocessor), "v.json", []byte(qwen36VideoPreprocessor)); err != nil {
		t.Fatal(err)
	}
	if p := vision.Vision.ImageProcessor; p == nil || p.File != "i.json" || p.LongestEdge != 16777216 {
		t.Errorf("image processor %+v", p)
	}
	if p := vision.Vision.VideoProcessor; p == nil || p.File != "v.json" || p.LongestEdge != 25165824 {
		t.Errorf("video processor %+v", p)
	}
	absent := &Arch{Vision: &VisionTower{Kind: "qwen2_5_vl"}}
	if err := AttachProcessors(absent, "", nil, "", nil); err != nil || absent.Vision.ImageProcessor != nil || absent.Vision.VideoProcessor != nil {
		t.Errorf("no files: %v, %+v", err, absent.Vision)
	}
	if err := AttachProcessors(&Arch{}, "i.json", []byte(`[`), "", nil); err != nil {
		t.Errorf("a text model read its processor file: %v", err)
	}
	bad := &Arch{Vision: &VisionTower{Kind: "qwen3_vl"}}
	if err := AttachProcessors(bad, "i.json", []byte(qwen36Preprocessor), "v.json", []byte(`{"size": [`)); err == nil || !strings.Contains(err.Error(), "v.json: not a JSON object") {
		t.Errorf("malformed video file: error %v, want one naming v.json", err)
	}
}
