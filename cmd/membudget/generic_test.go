package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// acmeConfig is the tiny Llama's shape (hidden 64, 4 heads of 16, 2 KV
// heads, intermediate 128, 2 layers, vocabulary 256, 128 positions, bf16)
// under a model_type no family reads, with GPT-2's spelling of the layers.
const acmeConfig = `{"architectures":["AcmeForCausalLM"],"model_type":"acme","hidden_size":64,"num_attention_heads":4,` +
	`"num_key_value_heads":2,"intermediate_size":128,"n_layer":2,"vocab_size":256,"max_position_embeddings":128,"torch_dtype":"bfloat16"}`

const acmeNotice = "sized as a generic decoder: `acme` is not a family membudget knows; weights from the checkpoint, KV from the standard keys"

// acmeDir is a model folder: acmeConfig and the tiny Llama's two shards
// (Llama's tensor names), or acmeConfig alone.
func acmeDir(t *testing.T, withCheckpoint bool) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string][]byte{"config.json": []byte(acmeConfig)}
	if withCheckpoint {
		for name, data := range tinyLlamaFiles(t) {
			if name != "config.json" {
				files[name] = data
			}
		}
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// noticedReport is report --json of a generic decoder: the notice first.
type noticedReport struct {
	Notice string `json:"notice"`
	reportJSON
}

// TestGenericDecoderEndToEnd: an unknown model_type with a checkpoint is
// sized through the CLI: the weights are its checkpoint's (the tiny
// Llama's, to the byte), the KV the standard keys' (2 K/V x 2 layers x 2
// KV heads x 16 x 2 B = 256 B a token, 4096 B a 16-token block), and every
// output's first line, text or JSON, is the notice.
func TestGenericDecoderEndToEnd(t *testing.T) {
	t.Parallel()
	dir := acmeDir(t, true)
	h := newFakeHub(t, "")
	files := tinyLlamaFiles(t)
	files["config.json"] = []byte(acmeConfig)
	h.repos["acme/generic"] = files
	hubApp := envApp(map[string]string{"HOME": t.TempDir(), "HF_ENDPOINT": h.srv.URL})
	for _, src := range []struct {
		name, spec string
		a          *app
	}{{"folder", dir, testApp()}, {"hub", "acme/generic", hubApp}} {
		t.Run(src.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := src.a.run(&stdout, &stderr, []string{"report", "--json", "--class", "h100-sxm-80g", "--model", src.spec})
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), "{\n  \"notice\": \""+strings.ReplaceAll(acmeNotice, "`", "`")) {
				t.Errorf("report --json does not open with the notice:\n%.200s", stdout.String())
			}
			var got noticedReport
			if err := jsonUnmarshal(stdout.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			w := got.Model.Weights
			if got.Notice != acmeNotice || got.Model.ModelType != "acme" || w.From != "checkpoint" || w.CheckpointBytes == nil || *w.CheckpointBytes != tinyLlamaTP1 {
				t.Errorf("notice %q, model_type %q, weights %+v; want the checkpoint's %d B", got.Notice, got.Model.ModelType, w, tinyLlamaTP1)
			}
			if got.KVCapacity.BlockBytes != 16*256 {
				t.Errorf("KV block %d B, want 16 tokens x 256 B", got.KVCapacity.BlockBytes)
			}
			if diff := cmp.Diff("n_layer read as num_hidden_layers (GPT2Config/FalconConfig attribute_map)", got.Model.Defaulted[0].String()); diff != "" {
				t.Errorf("alias (-want +got):\n%s", diff)
			}
		})
	}
	for _, args := range [][]string{
		{"explain", logsDir + "vllm-0.10-v1.log", "--class", "h100-sxm-80g", "--max-model-len", "128"},
		{"report"},
		{"max-seqs", "--length", "64"},
		{"max-len"},
		{"frontier"},
		{"frontier", "--format", "csv"},
		{"plan", "--length", "64", "--concurrency", "2", "--classes", "h100-sxm-80g"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			full := append(append([]string{}, args...), "--model", dir)
			if args[0] != "plan" && args[0] != "explain" {
				full = append(full, "--class", "h100-sxm-80g")
			}
			// explain compares a log of another model: its figures differ
			// (exit 1), its first line is still the notice.
			ok := func(code int) bool { return code == exitOK || args[0] == "explain" && code == exitNoFit }
			var stdout, stderr bytes.Buffer
			if code := testApp().run(&stdout, &stderr, full); !ok(code) {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			first, _, _ := strings.Cut(stdout.String(), "\n")
			want := acmeNotice
			if args[len(args)-1] == "csv" {
				want = "# " + acmeNotice
			}
			if first != want {
				t.Errorf("first line %q, want %q", first, want)
			}
			full = append(full, "--json")
			if args[len(args)-1] == "csv" {
				return
			}
			stdout.Reset()
			if code := testApp().run(&stdout, &stderr, full); !ok(code) {
				t.Fatalf("--json: exit %d: %s", code, stderr.String())
			}
			if !strings.HasPrefix(stdout.String(), "{\n  \"notice\": ") {
				t.Errorf("--json does not open with the notice:\n%.200s", stdout.String())
			}
		})
	}
}

// TestGenericDecoderRefused: --strict refuses a generic decoder in every
// sizing command, and without its checkpoint's headers it is refused
// whatever the flags, naming what is missing; both exit 2.
func TestGenericDecoderRefused(t *testing.T) {
	t.Parallel()
	dir, alone := acmeDir(t, true), acmeDir(t, false)
	strictErr := `--strict: --model ` + dir + `: model_type "acme" is not a family membudget knows; without --strict it is sized as a generic decoder (weights from the checkpoint, KV from the standard keys)`
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--strict", "--model", dir, "--class", "h100-sxm-80g"}, strictErr},
		{[]string{"max-seqs", "--strict", "--model", dir, "--class", "h100-sxm-80g"}, strictErr},
		{[]string{"max-len", "--strict", "--model", dir, "--class", "h100-sxm-80g", "--json"}, strictErr},
		{[]string{"frontier", "--strict", "--model", dir, "--class", "h100-sxm-80g"}, strictErr},
		{[]string{"plan", "--strict", "--model", dir, "--length", "64", "--concurrency", "1"}, strictErr},
		{[]string{"report", "--engine", "sglang", "--strict", "--model", dir, "--class", "h100-sxm-80g"}, strictErr},
		{[]string{"report", "--model", alone, "--class", "h100-sxm-80g"},
			`model_type: "acme": unknown model_type; known: `},
		{[]string{"report", "--model", alone, "--class", "h100-sxm-80g"},
			"; not sized as a generic decoder either: its weights come only from its checkpoint's safetensors headers, and there are none (" +
				alone + ": no model.safetensors.index.json or model.safetensors: no safetensors checkpoint)"},
	} {
		t.Run(strings.Join(tc.args[:2], " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := testApp().run(&stdout, &stderr, tc.args); code != exitBadArgs {
				t.Errorf("exit %d, want %d", code, exitBadArgs)
			}
			if !strings.Contains(stderr.String(), tc.want) || stdout.Len() != 0 {
				t.Errorf("stderr %q, want it to hold %q; stdout %q", stderr.String(), tc.want, stdout.String())
			}
		})
	}
}

// gemma34bWeights is google/gemma-3-4b-it's weights in bf16, by hand.
// Language model: embedding 262208 x 2560 (the head tied) = 671,252,480;
// per layer q 2560 x 2048 + k and v 2560 x 1024 each + o 2048 x 2560 =
// 15,728,640, the gated MLP 3 x 2560 x 10240 = 78,643,200, four norms of
// 2560 and q/k norms of 256: 94,382,592, x 34 = 3,209,008,128; final norm
// 2560. SigLIP tower (1152 wide, 27 layers, 64 x 64 patches of 14 x 14 x
// 3): patch embedding 677,376 + bias 1152, positions 4096 x 1152 =
// 4,718,592, per layer qkv 3,984,768 + out 1,328,256 + fc1 4,962,512 + fc2
// 4,959,360 + two LayerNorms 4608 = 15,239,504, x 27 = 411,466,608; post
// norm 2304; projector 1152 x 2560 + norm 1152. 4,300,079,472 parameters
// (the card's 4.3B) x 2 B = 8,600,158,944; plus the rotary tables: local
// 131072 x 256 x 2 B = 67,108,864, global (linear x8) 1,048,576 x 256 x 2
// B = 536,870,912.
const gemma34bWeights = 8_600_158_944 + 67_108_864 + 536_870_912

// TestReportNamesClassDefaults: gemma-3-4b-it's report says which keys
// Gemma3TextConfig and SiglipVisionConfig gave, in a line and in
// model.defaulted, and sizes it with them: the weights by hand
// (gemma34bWeights) and vLLM's KV block: 34 layers, each 6th global (5
// full, 29 sliding), grouped by 5 (the sliding ones padded to 30: 6 groups,
// the full ones 1), a block of 5 layers x 16 tokens x 2 (K, V) x 4 KV heads
// x 256 x 2 B = 327,680 B.
func TestReportNamesClassDefaults(t *testing.T) {
	t.Parallel()
	runGolden(t, []cliCase{{"report-gemma-3-4b-it", []string{"report", "--model", "google/gemma-3-4b-it", "--class", "h100-sxm-80g"}, exitOK}})
	var stdout, stderr bytes.Buffer
	if code := testApp().run(&stdout, &stderr, []string{"report", "--model", "google/gemma-3-4b-it", "--class", "h100-sxm-80g"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want := "        not in config.json, from the config class's defaults: text_config.vocab_size=262208, text_config.num_attention_heads=8, " +
		"text_config.num_key_value_heads=4, text_config.head_dim=256, text_config.max_position_embeddings=131072, text_config.tie_word_embeddings=true, " +
		"text_config.attention_bias=false, text_config.sliding_window_pattern=6 (transformers Gemma3TextConfig); vision_config.num_channels=3 (transformers SiglipVisionConfig)\n"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("report lacks the defaults line %q:\n%s", want, stdout.String())
	}
	got, _ := reportOf(t, testApp(), "--model", "google/gemma-3-4b-it")
	var keys []string
	for _, d := range got.Model.Defaulted {
		keys = append(keys, d.Key+"="+d.Value+" "+d.Class)
	}
	wantKeys := []string{"text_config.vocab_size=262208 Gemma3TextConfig", "text_config.num_attention_heads=8 Gemma3TextConfig",
		"text_config.num_key_value_heads=4 Gemma3TextConfig", "text_config.head_dim=256 Gemma3TextConfig",
		"text_config.max_position_embeddings=131072 Gemma3TextConfig", "text_config.tie_word_embeddings=true Gemma3TextConfig",
		"text_config.attention_bias=false Gemma3TextConfig", "text_config.sliding_window_pattern=6 Gemma3TextConfig",
		"vision_config.num_channels=3 SiglipVisionConfig"}
	if diff := cmp.Diff(wantKeys, keys); diff != "" {
		t.Errorf("model.defaulted (-want +got):\n%s", diff)
	}
	if got.Footprint.Weights != gemma34bWeights || got.KVCapacity.BlockBytes != 5*16*2*4*256*2 || got.KVCapacity.Groups != "SlidingWindowx6 FullAttentionx1" {
		t.Errorf("weights %d B, KV block %d B, groups %q; want %d, %d, 6 sliding + 1 full", got.Footprint.Weights, got.KVCapacity.BlockBytes,
			got.KVCapacity.Groups, gemma34bWeights, 5*16*2*4*256*2)
	}
	if got.Model.Defaulted[0].Source != "src/transformers/models/gemma3/configuration_gemma3.py@008f5c8c29be" {
		t.Errorf("source %q", got.Model.Defaulted[0].Source)
	}
}
