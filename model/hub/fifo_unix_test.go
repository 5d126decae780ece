//go:build unix

package hub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// notHanging runs f and fails the test if it does not return promptly: an
// open of a FIFO without a writer would block forever.
func notHanging(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		t.Fatal("hung: a FIFO was opened")
		return nil
	}
}

// A FIFO, a device or a directory where a file is expected is refused
// without being opened.
func TestRefusesSpecialFiles(t *testing.T) {
	root := t.TempDir()
	fifo := func(p string) string {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return p
	}
	// A model folder whose config.json is a FIFO.
	fifoConfig := filepath.Join(root, "fifo-config")
	fifo(filepath.Join(fifoConfig, "config.json"))
	// A model folder whose model.safetensors is a FIFO.
	fifoShard := filepath.Join(root, "fifo-shard")
	writeDir(t, fifoShard, map[string]fakeFile{"config.json": smallFile([]byte(`{}`))})
	fifo(filepath.Join(fifoShard, SingleFile))
	// A model folder whose config.json is a directory.
	dirConfig := filepath.Join(root, "dir-config")
	if err := os.MkdirAll(filepath.Join(dirConfig, "config.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A cache whose config.json blob is a FIFO.
	cache := filepath.Join(root, "hub")
	dir := writeCache(t, cache, "org/model", commitA, []string{"main"}, map[string]fakeFile{"config.json": smallFile([]byte(`{}`))})
	blob := filepath.Join(dir, "blobs", smallFile([]byte(`{}`)).etag())
	os.Remove(blob)
	fifo(blob)

	tests := []struct {
		name    string
		spec    string
		tensors bool
		want    string
	}{
		{name: "a FIFO as --model", spec: fifo(filepath.Join(root, "pipe.json")), want: "is a named pipe (FIFO), not a file: refused"},
		{name: "a folder whose config.json is a FIFO", spec: fifoConfig, want: "config.json is a named pipe (FIFO), not a file: refused"},
		{name: "a shard that is a FIFO", spec: fifoShard, tensors: true, want: "model.safetensors is a named pipe (FIFO), not a file: refused"},
		{name: "a config.json that is a directory", spec: dirConfig, want: "config.json is a directory, not a file: refused"},
		{name: "a device", spec: "/dev/null", want: "/dev/null is a character device, not a file: refused"},
		{name: "a cached blob that is a FIFO", spec: "org/model", want: "is a named pipe (FIFO), not a file: refused"},
	}
	r := Resolver{CacheDir: cache, Offline: true}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.spec); tc.spec == "/dev/null" && err != nil {
				t.Skip("no /dev/null")
			}
			err := notHanging(t, func() error {
				m, err := r.Resolve(context.Background(), tc.spec)
				if err != nil || !tc.tensors {
					return err
				}
				_, err = m.Tensors(context.Background())
				return err
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestReadRegularFileRefusesAFIFO: the engines' readers of a file the user
// names (a draft's config.json, vLLM's --config) go through
// ReadRegularFile and OpenRegularFile, which refuse a FIFO without opening
// it, read a regular file, refuse one above the limit, and report a missing
// one as os.IsNotExist with the system's own words.
func TestReadRegularFileRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "config.json")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := notHanging(t, func() error { _, err := ReadRegularFile(pipe, 1<<20); return err }); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("ReadRegularFile(FIFO) = %v, want a refusal naming it not a file", err)
	}
	if err := notHanging(t, func() error { _, _, err := OpenRegularFile(pipe); return err }); err == nil || !strings.Contains(err.Error(), "not a file") {
		t.Errorf("OpenRegularFile(FIFO) = %v, want a refusal naming it not a file", err)
	}
	file := filepath.Join(dir, "flags.yaml")
	if err := os.WriteFile(file, []byte("max-model-len: 4096\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, err := ReadRegularFile(file, 1<<20); err != nil || string(data) != "max-model-len: 4096\n" {
		t.Errorf("ReadRegularFile(file) = %q, %v", data, err)
	}
	if _, err := ReadRegularFile(file, 4); err == nil {
		t.Error("ReadRegularFile above its limit: no error")
	}
	_, err := ReadRegularFile(filepath.Join(dir, "missing.json"), 1<<20)
	if !os.IsNotExist(err) || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("ReadRegularFile(missing) = %v, want the system's not-exist error", err)
	}
}

// TestRefusesAFIFOProcessorFile: a preprocessor_config.json that is a FIFO
// is refused without being opened, naming --model.
func TestRefusesAFIFOProcessorFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vl")
	writeDir(t, dir, map[string]fakeFile{"config.json": smallFile([]byte(qwen25VLConfig(t)))})
	if err := syscall.Mkfifo(filepath.Join(dir, "preprocessor_config.json"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	r := Resolver{CacheDir: t.TempDir(), Offline: true}
	err := notHanging(t, func() error {
		_, err := r.Load(context.Background(), dir)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "--model") || !strings.Contains(err.Error(), "preprocessor_config.json") {
		t.Errorf("error %v, want a refusal naming --model and preprocessor_config.json", err)
	}
}
