//go:build unix

package check_test

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"membudget/check"
)

// TestFIFOIsRefusedUnopened: a FIFO named like a manifest, given or found
// in a directory, is refused without opening it, which would wait for a
// writer forever.
func TestFIFOIsRefusedUnopened(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "deploy.yaml")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	o := options(t)
	for _, p := range []string{path, dir} {
		done := make(chan error, 1)
		go func() {
			_, err := check.ReadPath(p, nil, o)
			done <- err
		}()
		select {
		case err := <-done:
			if want := path + ": not a regular file"; err == nil || err.Error() != want {
				t.Errorf("ReadPath(%s): err = %v, want %s", p, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadPath(%s) blocked on the FIFO", p)
		}
	}
}
