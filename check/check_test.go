package check_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/check"
	"membudget/engine"
	"membudget/engine/sglang"
	"membudget/engine/vllm"
)

// options are what membudget check passes: the shipped engines' launch
// lines and the shipped classes.
func options(t testing.TB) check.Options {
	t.Helper()
	set, err := engine.NewSet(vllm.Engine{}, sglang.Engine{})
	if err != nil {
		t.Fatal(err)
	}
	classes, err := membudget.Kernels().LoadAll()
	if err != nil {
		t.Fatal(err)
	}
	return check.Options{IsLine: func(args []string) bool { return set.LineOf(args) != nil }, Classes: classes}
}

// TestReadPathFindsEachKind reads each manifest of testdata; every line
// number below was counted in the file by hand.
func TestReadPathFindsEachKind(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file string
		want []check.Server
	}{
		{"deployment.yaml", []check.Server{{
			File: "testdata/deployment.yaml", Line: 23, Where: "Deployment/llama-8b, container vllm",
			// The vllm-openai image's entrypoint is vllm serve: its args
			// follow it.
			Args:  []string{"vllm", "serve", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "32768", "--gpu-memory-utilization", "0.9"},
			Unset: []string{"HF_TOKEN"},
			GPU:   &check.Selection{Class: "h100-sxm-80g", From: "nodeSelector nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3", Line: 18},
			// nvidia.com/gpu: 1 on line 37.
			Requested: &check.Request{GPUs: 1, From: "nvidia.com/gpu limit", Line: 37, PerPod: 1},
		}}},
		{"inferenceservice.yaml", []check.Server{{
			File: "testdata/inferenceservice.yaml", Line: 14, Where: "InferenceService/qwen-32b, container kserve-container",
			// python3 -m vllm.entrypoints.openai.api_server becomes vllm
			// serve; $(MAX_LEN) is expanded from the container's env, which
			// is also the server's environment.
			Args:      []string{"MAX_LEN=40960", "vllm", "serve", "--model", "Qwen/Qwen3-32B", "--tensor-parallel-size", "2", "--max-model-len", "40960"},
			GPU:       &check.Selection{Class: "a100-80g", From: "nodeSelector cloud.google.com/gke-accelerator=nvidia-a100-80gb", Line: 10},
			Requested: &check.Request{GPUs: 2, From: "nvidia.com/gpu limit", Line: 21, PerPod: 2},
		}}},
		{"leaderworkerset.yaml", []check.Server{{
			// The script's text begins on line 21, the line after "- |";
			// the launch line is its second command, on line 22. The
			// worker's script launches no server.
			File: "testdata/leaderworkerset.yaml", Line: 22, Where: "LeaderWorkerSet/llama-70b, container vllm-leader",
			Args: []string{"vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--tensor-parallel-size", "8", "--pipeline-parallel-size", "2", "--max-model-len", "65536"},
			// p4de.24xlarge: 8 A100 80 GB a node.
			GPU: &check.Selection{Class: "a100-80g", From: "nodeSelector node.kubernetes.io/instance-type=p4de.24xlarge", Line: 14, PerNode: 8},
			// Size 2: the leader's 8 and one worker's 8.
			Requested: &check.Request{GPUs: 16, Line: 28, PerPod: 8,
				From: "nvidia.com/gpu limit 8 on the leader + 8 on each of 1 workers (LeaderWorkerSet size 2, worker's at line 41)"},
		}}},
		{"compose.yaml", []check.Server{
			{
				File: "testdata/compose.yaml", Line: 6, Where: "service vllm",
				// A string command split as a shell splits it, after the
				// image's vllm serve; the environment list first.
				Args:      []string{"VLLM_ALLOW_LONG_MAX_MODEL_LEN=0", "vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len", "40960", "--gpu-memory-utilization", "0.85"},
				Requested: &check.Request{GPUs: 1, From: "deploy.resources.reservations.devices count", Line: 14, PerPod: 1},
			},
			{
				File: "testdata/compose.yaml", Line: 19, Where: "service sglang",
				Args:      []string{"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--context-length", "40960", "--mem-fraction-static", "0.8"},
				Requested: &check.Request{GPUs: 1, From: "deploy.resources.reservations.devices device_ids", Line: 33, PerPod: 1},
			},
		}},
		{"serve.sh", []check.Server{{
			// $MODEL from the script's assignment; the exported variable
			// is the server's environment; exec is taken off.
			File: "testdata/serve.sh", Line: 7, Where: "shell script",
			Args: []string{"VLLM_ALLOW_LONG_MAX_MODEL_LEN=1", "vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "131072", "--max-num-seqs", "64", "--gpu-memory-utilization", "0.92"},
		}}},
		{"two-servers.yaml", []check.Server{
			{
				File: "testdata/two-servers.yaml", Line: 16, Where: "Deployment/small, container server",
				Args:      []string{"python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-4B", "--context-length", "32768"},
				GPU:       &check.Selection{Class: "l4", From: "nodeSelector karpenter.k8s.aws/instance-gpu-name=l4", Line: 12},
				Requested: &check.Request{GPUs: 1, From: "nvidia.com/gpu limit", Line: 19, PerPod: 1},
			},
			{
				File: "testdata/two-servers.yaml", Line: 43, Where: "StatefulSet/big, container server",
				Args:      []string{"vllm", "serve", "meta-llama/Llama-3.1-70B-Instruct", "--max-model-len", "8192"},
				GPU:       &check.Selection{Class: "l4", From: "nodeSelector karpenter.k8s.aws/instance-gpu-name=l4", Line: 39},
				Requested: &check.Request{GPUs: 1, From: "nvidia.com/gpu limit", Line: 46, PerPod: 1},
			},
		}},
		{"gpu-mismatch.yaml", []check.Server{{
			File: "testdata/gpu-mismatch.yaml", Line: 22, Where: "Job/mismatch, container vllm",
			Args: []string{"vllm", "serve", "Qwen/Qwen3-32B", "--tensor-parallel-size", "4", "--max-model-len", "32768"},
			// a3-highgpu-8g: 8 H100 80 GB a node.
			GPU:       &check.Selection{Class: "h100-sxm-80g", From: "node affinity node.kubernetes.io/instance-type=a3-highgpu-8g", Line: 18, PerNode: 8},
			Requested: &check.Request{GPUs: 2, From: "nvidia.com/gpu limit", Line: 26, PerPod: 2},
		}}},
	}
	o := options(t)
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			got, err := check.ReadPath(filepath.Join("testdata", tc.file), nil, o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadPathReadsADirectoryInOrder reads testdata whole: every server of
// the files above, by file then line.
func TestReadPathReadsADirectoryInOrder(t *testing.T) {
	t.Parallel()
	got, err := check.ReadPath("testdata", nil, options(t))
	if err != nil {
		t.Fatal(err)
	}
	var places []string
	for _, s := range got {
		places = append(places, s.File+":"+s.Where)
	}
	want := []string{
		"testdata/compose.yaml:service vllm", "testdata/compose.yaml:service sglang",
		"testdata/deployment.yaml:Deployment/llama-8b, container vllm",
		"testdata/gpu-mismatch.yaml:Job/mismatch, container vllm",
		"testdata/inferenceservice.yaml:InferenceService/qwen-32b, container kserve-container",
		"testdata/leaderworkerset.yaml:LeaderWorkerSet/llama-70b, container vllm-leader",
		"testdata/serve.sh:shell script",
		"testdata/two-servers.yaml:Deployment/small, container server", "testdata/two-servers.yaml:StatefulSet/big, container server",
	}
	if diff := cmp.Diff(want, places); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestReadNamesWhatItCannotRead: a launch line whose words the file does
// not hold, and a node selection that does not say which class, are the
// server's error, not a guess.
func TestReadNamesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, data, want string
	}{
		{"unset shell variable", "run.sh", "vllm serve $MODEL --max-model-len 4096\n",
			"the launch line uses $MODEL, which the file does not set: membudget reads launch lines as written"},
		{"command substitution", "run.sh", "vllm serve m --max-model-len $(cat len)\n",
			"the launch line uses a command substitution $(...), which the file does not set: membudget reads launch lines as written"},
		{"default expansion", "run.sh", "vllm serve ${MODEL:-m}\n",
			"the launch line uses ${MODEL...}, which the file does not set: membudget reads launch lines as written"},
		{"kubernetes reference to no env", "d.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    command: [vllm, serve, $(MODEL)]\n",
			"the launch line uses $(MODEL), which the file does not set: membudget reads launch lines as written"},
		{"two classes admitted", "d.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions:\n          - {key: cloud.google.com/gke-accelerator, operator: In, values: [nvidia-l4, nvidia-tesla-t4]}\n  containers:\n  - name: c\n    command: [vllm, serve, m]\n",
			"line 9: the node selection admits several GPU classes (l4, tesla-t4): membudget sizes one; pin one, or give --class"},
		{"ambiguous karpenter name", "d.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {karpenter.k8s.aws/instance-gpu-name: a100}\n  containers:\n  - name: c\n    command: [vllm, serve, m]\n",
			"line 4: karpenter.k8s.aws/instance-gpu-name=a100 does not say which class (memory differs by instance type): select by node.kubernetes.io/instance-type, or give --class"},
		{"unknown product", "d.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {nvidia.com/gpu.product: NVIDIA-Quantum-1}\n  containers:\n  - name: c\n    command: [vllm, serve, m]\n",
			"line 4: nvidia.com/gpu.product=NVIDIA-Quantum-1 names no device class's GPU (see 'membudget classes'; or give --class)"},
		{"two classes of one product", "d.yaml", "kind: Pod\nmetadata: {name: p}\nspec:\n  nodeSelector: {nvidia.com/gpu.product: NVIDIA-GeForce-RTX-4090}\n  containers:\n  - name: c\n    command: [vllm, serve, m]\n",
			"line 4: nvidia.com/gpu.product=NVIDIA-GeForce-RTX-4090 names the GPU of several classes (rtx-4090, rtx-4090-48g): give --class"},
	}
	o := options(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := check.Read(tc.file, []byte(tc.data), o)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("found %d servers, want 1: %+v", len(got), got)
			}
			if diff := cmp.Diff(tc.want, got[0].Err); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadSkipsWhatIsNoServer: containers that run something else, Helm
// values, a Service, and a script's other commands hold no server.
func TestReadSkipsWhatIsNoServer(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, file, data string }{
		{"a web server", "d.yaml", "kind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: nginx, image: nginx, args: [--port, '80']}\n"},
		{"helm values", "values.yaml", "model: meta-llama/Llama-3.1-8B-Instruct\nreplicas: 2\n"},
		{"a service", "s.yaml", "kind: Service\nmetadata: {name: s}\nspec: {ports: [{port: 80}]}\n"},
		{"echo of a launch line", "run.sh", "echo vllm serve m\npip install vllm\n# vllm serve m\n"},
		{"an empty file", "e.yaml", ""},
	}
	o := options(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := check.Read(tc.file, []byte(tc.data), o)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Errorf("found %+v, want none", got)
			}
		})
	}
}

// TestShellLaunchLines reads the words of launch lines as a shell splits
// them: quotes, escapes, continuations, separators, assignments.
func TestShellLaunchLines(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, script string
		line         int
		args         []string
	}{
		{"quotes and escapes", `vllm serve 'my model' "--served-model-name" a\ b`, 1,
			[]string{"vllm", "serve", "my model", "--served-model-name", "a b"}},
		{"continuations", "\n\nvllm \\\n  serve m \\\n  --max-model-len 8\n", 3,
			[]string{"vllm", "serve", "m", "--max-model-len", "8"}},
		{"after a separator", "cd /x && vllm serve m; echo done", 1, []string{"vllm", "serve", "m"}},
		{"in the background", "vllm serve m &\nwait\n", 1, []string{"vllm", "serve", "m"}},
		{"an inline assignment", "A=1 B=2 vllm serve m", 1, []string{"A=1", "B=2", "vllm", "serve", "m"}},
		{"braced variable in double quotes", "M=org/m\nexport X=1\nnohup vllm serve \"${M}\"", 3, []string{"X=1", "vllm", "serve", "org/m"}},
		{"single quotes keep a dollar", "vllm serve m --chat-template '$t'", 1, []string{"vllm", "serve", "m", "--chat-template", "$t"}},
		{"the older module", "python3 -m vllm.entrypoints.openai.api_server --model m", 1, []string{"vllm", "serve", "--model", "m"}},
		{"SGLang", "python -m sglang.launch_server --model-path m", 1, []string{"python", "-m", "sglang.launch_server", "--model-path", "m"}},
		{"after then", "if [ -n \"$X\" ]; then vllm serve m; fi", 1, []string{"vllm", "serve", "m"}},
	}
	o := options(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := check.Read("run.sh", []byte(tc.script), o)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 {
				t.Fatalf("found %d servers, want 1: %+v", len(got), got)
			}
			if got[0].Err != "" {
				t.Errorf("error %q", got[0].Err)
			}
			if got[0].Line != tc.line {
				t.Errorf("line %d, want %d", got[0].Line, tc.line)
			}
			if diff := cmp.Diff(tc.args, got[0].Args); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// hostile is YAML built to exhaust a reader that does not bound it.
func hostile() map[string][]byte {
	// Nine levels of nine aliases each: 9^9 = 387,420,489 leaves once
	// expanded, in under a kilobyte.
	var bomb bytes.Buffer
	bomb.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		bomb.WriteString("a" + itoa(i) + ": &a" + itoa(i) + " [")
		for j := range 9 {
			if j > 0 {
				bomb.WriteString(", ")
			}
			bomb.WriteString("*a" + itoa(i-1))
		}
		bomb.WriteString("]\n")
	}
	// 5,000 nested flow sequences: under yaml's own 10,000 but above
	// MaxDepth.
	deep := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	// 100,000 nested block mappings: far above both.
	var nested strings.Builder
	for i := range 3000 {
		nested.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	docs := strings.Repeat("---\na: 1\n", check.MaxDocuments+1)
	return map[string][]byte{"alias bomb": bomb.Bytes(), "deep flow": []byte(deep), "deep block": []byte(nested.String()), "many documents": []byte(docs),
		"not yaml": []byte("kind: [unclosed\n"), "tab indent": []byte("a:\n\tb: 1\n")}
}

// hostileWants is what each hostile file's error says.
var hostileWants = map[string]string{
	"alias bomb":     "more than 1000000 YAML nodes, aliases expanded",
	"deep flow":      "YAML nested deeper than 200 levels",
	"deep block":     "YAML nested deeper than 200 levels",
	"many documents": "hostile.yaml:2001: more than 1000 YAML documents", // the 1001st "---" is on line 2001
	"not yaml":       "not YAML: yaml: line 1",
	"tab indent":     "not YAML: yaml: line 2",
}

func itoa(i int) string { return string(rune('0' + i)) }

// TestHostileYAMLFailsFast: every hostile file is a *ReadError, answered in
// bounded time and memory.
func TestHostileYAMLFailsFast(t *testing.T) {
	// Not parallel: it measures memory.
	o := options(t)
	for name, data := range hostile() {
		t.Run(name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := check.Read("hostile.yaml", data, o)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			var re *check.ReadError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *check.ReadError", err)
			}
			if !strings.Contains(err.Error(), hostileWants[name]) {
				t.Errorf("err = %v, want it to say %q", err, hostileWants[name])
			}
			// A second on a loaded 2-core machine; the reads take
			// milliseconds.
			if took > 5*time.Second {
				t.Errorf("took %v", took)
			}
			// The node budget bounds the walk; 256 MiB is far above what
			// the parser allocates for these inputs and far below an
			// expansion of the bomb (387 million nodes).
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
				t.Errorf("allocated %d MiB", alloc>>20)
			}
		})
	}
}

// TestHugeFileIsNotRead: a 100 MB file is refused after MaxFileBytes+1
// bytes, without reading the rest.
func TestHugeFileIsNotRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "huge.yaml")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	// A sparse file: 100 MB long, nothing written.
	if err := f.Truncate(100 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = check.ReadPath(path, nil, options(t))
	want := path + ": larger than 8 MiB: not read"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	_, err = check.ReadPath("-", bytes.NewReader(make([]byte, check.MaxFileBytes+1)), options(t))
	if err == nil || err.Error() != "-: larger than 8 MiB: not read" {
		t.Errorf("stdin: err = %v", err)
	}
}

// TestReadOtherKinds: a KServe ServingRuntime, a CronJob, a List and an
// AMD GPU request are read as the kinds above are.
func TestReadOtherKinds(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data string
		want       []check.Server
	}{
		{"serving runtime", `apiVersion: serving.kserve.io/v1alpha1
kind: ServingRuntime
metadata:
  name: vllm-runtime
spec:
  nodeSelector:
    nvidia.com/gpu.product: NVIDIA-L40S
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.10.0
      args: ["--model=/mnt/models", "--port=8080"]
      resources:
        limits:
          nvidia.com/gpu: "1"
`, []check.Server{{File: "k.yaml", Line: 11, Where: "ServingRuntime/vllm-runtime, container kserve-container",
			Args:      []string{"vllm", "serve", "--model=/mnt/models", "--port=8080"},
			GPU:       &check.Selection{Class: "l40s", From: "nodeSelector nvidia.com/gpu.product=NVIDIA-L40S", Line: 7},
			Requested: &check.Request{GPUs: 1, From: "nvidia.com/gpu limit", Line: 14, PerPod: 1}}}},
		{"cronjob in a list, AMD", `apiVersion: v1
kind: List
items:
  - apiVersion: batch/v1
    kind: CronJob
    metadata:
      name: nightly
    spec:
      jobTemplate:
        spec:
          template:
            spec:
              nodeSelector:
                node.kubernetes.io/instance-type: Standard_ND96isr_MI300X_v5
              containers:
                - name: sglang
                  command: [python3, -m, sglang.launch_server, --model-path, m, --tp, "8"]
                  resources:
                    requests:
                      amd.com/gpu: 8
`, []check.Server{{File: "k.yaml", Line: 17, Where: "CronJob/nightly, container sglang",
			Args:      []string{"python3", "-m", "sglang.launch_server", "--model-path", "m", "--tp", "8"},
			GPU:       &check.Selection{Class: "mi300x", From: "nodeSelector node.kubernetes.io/instance-type=Standard_ND96isr_MI300X_v5", Line: 14, PerNode: 8},
			Requested: &check.Request{GPUs: 8, From: "amd.com/gpu request", Line: 20, PerPod: 8}}}},
		{"no GPU resource", "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    command: [vllm, serve, m]\n",
			[]check.Server{{File: "k.yaml", Line: 6, Where: "Pod/p, container c", Args: []string{"vllm", "serve", "m"},
				Requested: &check.Request{GPUs: 0, From: "no nvidia.com/gpu or amd.com/gpu resource", Line: 5}}}},
	}
	o := options(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := check.Read("k.yaml", []byte(tc.data), o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestInferenceServiceModelIsNamedSkipped: a predictor.model runs a
// ServingRuntime's container, which this file does not hold: it is named
// as skipped, not passed over in silence.
func TestInferenceServiceModelIsNamedSkipped(t *testing.T) {
	t.Parallel()
	o := options(t)
	var skipped []string
	o.Skipped = func(path, why string) { skipped = append(skipped, path+": "+why) }
	data := "apiVersion: serving.kserve.io/v1beta1\nkind: InferenceService\nmetadata: {name: m}\nspec:\n  predictor:\n    model:\n      modelFormat: {name: huggingface}\n"
	got, err := check.Read("isvc.yaml", []byte(data), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("found %+v, want none", got)
	}
	// model's mapping begins on line 7, under "model:" on line 6.
	want := []string{"isvc.yaml:7: InferenceService/m's predictor.model runs a KServe ServingRuntime's container, not read here: check the ServingRuntime's manifest"}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestComposeShellScripts: a compose service that runs a script under sh
// -c, given as a list (a block scalar's lines begin after its indicator)
// or as a string entrypoint with the script in command.
func TestComposeShellScripts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, data string
		line       int
	}{
		{"block scalar", "services:\n  s:\n    image: x\n    command:\n      - sh\n      - -c\n      - |\n        echo start\n        vllm serve m\n", 9},
		{"string entrypoint", "services:\n  s:\n    image: x\n    entrypoint: sh -c\n    command: [\"vllm serve m\", x]\n", 5},
	}
	o := options(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := check.Read("compose.yaml", []byte(tc.data), o)
			if err != nil {
				t.Fatal(err)
			}
			want := []check.Server{{File: "compose.yaml", Line: tc.line, Where: "service s", Args: []string{"vllm", "serve", "m"}}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestKubeletExpandsBeforeTheShell: $(NAME) in a script under sh -c is the
// kubelet's reference, expanded from env before the shell runs it.
func TestKubeletExpandsBeforeTheShell(t *testing.T) {
	t.Parallel()
	data := "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    command: [sh, -c]\n    args:\n      - vllm serve $(MODEL) --max-model-len 4096\n    env:\n      - {name: MODEL, value: org/m}\n"
	got, err := check.Read("p.yaml", []byte(data), options(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("found %d servers, want 1", len(got))
	}
	// The script is on line 8; env is the server's environment too.
	want := check.Server{File: "p.yaml", Line: 8, Where: "Pod/p, container c", Args: []string{"MODEL=org/m", "vllm", "serve", "org/m", "--max-model-len", "4096"},
		Requested: &check.Request{From: "no nvidia.com/gpu or amd.com/gpu resource", Line: 5}}
	if diff := cmp.Diff(want, got[0]); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
