package membudget_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"membudget"
	"membudget/budget"
	"membudget/model/hub"
)

// outsideMain is a program of another module that sizes a shipped model
// through the library: the resolver, the classes, the engine seam and a
// verified query, as the README's "Use as a library" shows.
const outsideMain = `package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"membudget"
	"membudget/budget"
	"membudget/engines"
)

func main() {
	r, err := membudget.Resolver(os.Getenv)
	if err != nil {
		panic(err)
	}
	m, err := r.Load(context.Background(), "Qwen/Qwen3-8B")
	if err != nil {
		panic(err)
	}
	class, err := membudget.Kernels().Load("h100-sxm-80g")
	if err != nil {
		panic(err)
	}
	e, err := engines.Set().Lookup("vllm")
	if err != nil {
		panic(err)
	}
	s := e.NewServe()
	fs := flag.NewFlagSet("vllm", flag.ContinueOnError)
	var model string
	s.Register(fs, &model)
	if err := fs.Parse([]string{"--max-model-len", "16384"}); err != nil {
		panic(err)
	}
	if _, err := s.Parsed(map[string]bool{"max-model-len": true}); err != nil {
		panic(err)
	}
	sz, err := s.Size(m, class)
	if err != nil {
		panic(err)
	}
	starts, _ := sz.Starts()
	most, err := budget.MaxSequences(sz.Plan(), 16384, 0)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s starts: %v; %d sequences of 16384 tokens\n", e.Title(), starts, most.Value)
}
`

// TestOutsideModuleBuilds builds a module of its own that requires
// membudget through a replace directive to this checkout, as the README
// tells a user to, runs it, and checks its answer is the library's here.
func TestOutsideModuleBuilds(t *testing.T) {
	t.Parallel()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := os.Getwd() // the package's directory: the module root
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/sizer\n\ngo 1.26.0\n\nrequire membudget v0.0.0\n\nreplace membudget => " + root + "\n"
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(outsideMain)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// No network: the module cache already holds membudget's
	// dependencies (this test's own build needed them); -mod=mod lets go
	// add them to the outside go.mod as it would for a user.
	env := append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	start := time.Now()
	build := exec.Command(gobin, "build", "-o", "sizer", ".")
	build.Dir, build.Env = dir, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of the outside module: %v\n%s", err, out)
	}
	t.Logf("built in %v", time.Since(start))
	run := exec.Command(filepath.Join(dir, "sizer"))
	run.Env = append(os.Environ(), "HF_HUB_OFFLINE=1", "HF_HOME="+filepath.Join(dir, "hf"))
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the outside program: %v\n%s", err, out)
	}
	// The same serve sized here, through the same library.
	_, _, sz := sized("vllm", "Qwen/Qwen3-8B", "h100-sxm-80g", "--max-model-len", "16384")
	most, err := budget.MaxSequences(sz.Plan(), 16384, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := "vLLM starts: true; " + strconv.FormatUint(most.Value, 10) + " sequences of 16384 tokens\n"
	if diff := cmp.Diff(want, strings.ReplaceAll(string(out), "\r", "")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestResolverResolvesEachSource: the library's resolver answers a path, a
// shipped model and one in the Hugging Face cache its getenv names, as
// --model does, offline.
func TestResolverResolvesEachSource(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	config, _, ok := membudget.ModelConfig("Qwen__Qwen3-0.6B")
	if !ok {
		t.Fatal("Qwen__Qwen3-0.6B is not shipped")
	}
	// The cache's layout (huggingface_hub's file_download.py): a ref
	// naming a commit, and that commit's snapshot.
	repo := filepath.Join(cache, "models--acme--tiny")
	snap := filepath.Join(repo, "snapshots", commit)
	if err := os.MkdirAll(snap, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "refs", "main"), []byte(commit), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(snap, "config.json"), config, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, config, 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": cache, "HF_HOME": filepath.Join(cache, "home")}
	r, err := membudget.Resolver(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	for spec, want := range map[string]hub.SourceKind{path: hub.SourcePath, "Qwen/Qwen3-0.6B": hub.SourceShipped, "acme/tiny": hub.SourceCache} {
		m, err := r.Load(context.Background(), spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		// Each is the same config.json: Qwen3-0.6B's 28 layers.
		if m.Model.Source.Kind != want || len(m.Arch.Layers) != 28 {
			t.Errorf("%s: source %s, %d layers; want %s, 28", spec, m.Model.Source.Kind, len(m.Arch.Layers), want)
		}
	}
	// Offline, a model in neither the cache nor the module is an error
	// naming it, not a request.
	if _, err := r.Load(context.Background(), "acme/absent"); err == nil || !strings.Contains(err.Error(), "acme/absent") {
		t.Errorf("acme/absent: err = %v", err)
	}
}
