// Package check finds the inference servers a deployment launches, in the
// files a platform team keeps them in: Kubernetes manifests (Deployment,
// StatefulSet, DaemonSet, Job, CronJob, Pod, LeaderWorkerSet, KServe
// InferenceService and ServingRuntime; multi-document and Helm-rendered
// YAML), docker-compose files and shell scripts. For each it reads the
// launch line, the environment, the GPU class its node selectors or
// affinities name and the GPUs it requests, each with its file and line.
//
// The package reads; it does not size. Which words begin a launch line is
// asked of the caller ([Options.IsLine], e.g. an [engine.Set]'s LineOf), so
// that a new engine is found without a change here. The sizing is the
// command's (membudget check), over the engine seam.
//
// Reading is bounded: a file's size ([MaxFileBytes]), a YAML stream's
// documents ([MaxDocuments]) and the nodes walked, aliases followed
// ([MaxNodes]), so that a hostile file (aliases that expand exponentially,
// a huge file, deep nesting) is refused quickly rather than read.
package check

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"membudget/budget"
)

// The bounds of what Read and ReadPath take in. Real manifests are far
// below each: a Helm chart's rendered output for a whole serving stack is
// some hundred kilobytes and some tens of documents.
const (
	// MaxFileBytes is the most bytes of one file read.
	MaxFileBytes = 8 << 20
	// MaxDocuments is the most YAML documents of one file.
	MaxDocuments = 1000
	// MaxNodes is the most YAML nodes walked in one file, each alias
	// counted as often as it is followed: the bound that stops the
	// "billion laughs".
	MaxNodes = 1_000_000
	// MaxDepth is the deepest nesting of YAML walked; pod specs sit some
	// ten levels down.
	MaxDepth = 200
	// MaxFiles is the most files of a directory read.
	MaxFiles = 10000
)

// Server is one inference server found in a file: what its launch line,
// environment, node selection and resources say, each with its line.
type Server struct {
	// File is the file's name as given; Line the line of the launch
	// line's first word (1-based).
	File string `json:"file"`
	Line int    `json:"line"`
	// Where names the server in the file: "Deployment/llama, container
	// vllm", "service vllm", "line 12".
	Where string `json:"where"`
	// Args is the launch line as the engine reads it, NAME=value
	// assignments first (the environment the server is given), then the
	// engine's words and flags: normalised where the file gives it in
	// another form (the vllm-openai image's args, python -m
	// vllm.entrypoints.openai.api_server).
	Args []string `json:"args"`
	// Unset names the environment variables the server is given from
	// elsewhere (a Secret, a ConfigMap), whose values the file does not
	// hold.
	Unset []string `json:"unset_env,omitempty"`
	// GPU is the device class the file selects; nil when it selects
	// none.
	GPU *Selection `json:"gpu,omitempty"`
	// Requested is the GPUs the server's pods request, all pods of it
	// together; nil when the file says nothing of GPUs.
	Requested *Request `json:"requested,omitempty"`
	// Err is why the server cannot be read (a shell variable the file
	// does not set, an affinity that admits several GPUs); "" when it
	// can.
	Err string `json:"error,omitempty"`
}

// Selection is a GPU class the file selects, and how.
type Selection struct {
	// Class is the device class (a directory of kernels/).
	Class string `json:"class"`
	// From is the label and value that select it
	// ("nodeSelector nvidia.com/gpu.product=NVIDIA-H100-80GB-HBM3").
	From string `json:"from"`
	Line int    `json:"line"`
	// PerNode is the GPUs one node of the instance type holds; 0 when
	// the label does not say.
	PerNode uint64 `json:"per_node,omitempty"`
}

// Request is the GPUs a server's pods request.
type Request struct {
	GPUs uint64 `json:"gpus"`
	// From names the resource and where ("nvidia.com/gpu limit", "2 pods
	// of the LeaderWorkerSet x nvidia.com/gpu 4").
	From string `json:"from"`
	Line int    `json:"line"`
	// PerPod is the most GPUs one pod requests, which one node must hold.
	PerPod uint64 `json:"per_pod"`
}

// Options are what Read needs of its caller.
type Options struct {
	// IsLine reports whether args (NAME=value assignments first) begin
	// an inference server's launch line.
	IsLine func(args []string) bool
	// Classes are the device classes a GPU product label is matched
	// against, by device name.
	Classes []budget.Class
	// Skipped, when not nil, is told of each directory a walk skips
	// (a Helm chart), and why.
	Skipped func(path, why string)
}

// ReadError is a file that cannot be read, or is refused unread (over a
// bound, not YAML): the command's exit 2.
type ReadError struct {
	File string
	Line int
	Err  error
}

// Error names the file, and the line when known.
func (e *ReadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

// Unwrap returns the cause.
func (e *ReadError) Unwrap() error { return e.Err }

// ReadPath reads path: a file, or a directory whose YAML files (.yaml,
// .yml) and shell scripts (.sh, .bash) are read in lexical order, its
// subdirectories too (but hidden ones, and Helm charts, which are read
// once rendered: see [Options.Skipped]); "-" reads r. A file that cannot
// be read is a *ReadError.
func ReadPath(path string, stdin io.Reader, o Options) ([]Server, error) {
	if path == "-" {
		data, err := readBounded(stdin, "-")
		if err != nil {
			return nil, err
		}
		return Read("-", data, o)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, &ReadError{File: path, Err: err}
	}
	if !info.IsDir() {
		return readFile(path, o)
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			// A Helm chart's templates are Go templates, not YAML: what
			// they launch is known once rendered.
			if _, err := os.Stat(filepath.Join(p, "Chart.yaml")); err == nil {
				if o.Skipped != nil {
					o.Skipped(p, "a Helm chart: render it (helm template) and check the output")
				}
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(p) {
		case ".yaml", ".yml", ".sh", ".bash":
			if len(files) == MaxFiles {
				return fmt.Errorf("more than %d files to read", MaxFiles)
			}
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, &ReadError{File: path, Err: err}
	}
	var all []Server
	for _, f := range files {
		found, err := readFile(f, o)
		if err != nil {
			return nil, err
		}
		all = append(all, found...)
	}
	return all, nil
}

func readFile(path string, o Options) ([]Server, error) {
	// Stat before opening: opening a FIFO blocks until a writer comes.
	if info, err := os.Stat(path); err != nil {
		return nil, &ReadError{File: path, Err: err}
	} else if !info.Mode().IsRegular() {
		return nil, &ReadError{File: path, Err: errors.New("not a regular file")}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &ReadError{File: path, Err: err}
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, &ReadError{File: path, Err: err}
	}
	if !info.Mode().IsRegular() {
		return nil, &ReadError{File: path, Err: errors.New("not a regular file")}
	}
	data, err := readBounded(f, path)
	if err != nil {
		return nil, err
	}
	return Read(path, data, o)
}

// readBounded reads at most MaxFileBytes of r: one byte more is refused.
func readBounded(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, &ReadError{File: name, Err: err}
	}
	if len(data) > MaxFileBytes {
		return nil, &ReadError{File: name, Err: fmt.Errorf("larger than %d MiB: not read", MaxFileBytes>>20)}
	}
	return data, nil
}

// Read finds the servers in one file's data, named name in what it
// returns: a shell script when name ends .sh or .bash or data begins "#!",
// else YAML (Kubernetes manifests, docker-compose). Data that is neither
// is a *ReadError.
func Read(name string, data []byte, o Options) ([]Server, error) {
	if o.IsLine == nil {
		return nil, errors.New("check: Options.IsLine is nil")
	}
	if ext := filepath.Ext(name); ext == ".sh" || ext == ".bash" || bytes.HasPrefix(data, []byte("#!")) {
		return readScript(name, string(data), o), nil
	}
	return readYAML(name, data, o)
}

// sortServers orders servers by file, then line.
func sortServers(s []Server) {
	slices.SortStableFunc(s, func(a, b Server) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
}
