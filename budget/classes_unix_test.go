//go:build unix

package budget

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadRegularRefusesWhatIsNotAFile: a class file that is a directory,
// a FIFO or a device is refused without being read, and a file over the
// limit is refused naming the limit.
func TestReadRegularRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 100), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	fsys := os.DirFS(dir)
	tests := []struct {
		name, want string
		limit      int64
	}{
		{"big", "shown: 100 bytes, over the 99-byte limit for this kind of file", 99},
		{"sub", "shown: not a regular file (d---------); refusing to read it", 1 << 20},
		// A FIFO would block a reader forever.
		{"fifo", "shown: not a regular file (p---------); refusing to read it", 1 << 20},
		{"missing", "shown: no such file or directory", 1 << 20},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() { _, err := ReadRegular(fsys, tt.name, "shown", tt.limit); done <- err }()
		select {
		case err := <-done:
			if diff := cmp.Diff(tt.want, errString(err)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, diff)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: ReadRegular blocked", tt.name)
		}
	}
	if data, err := ReadRegular(fsys, "big", "shown", 100); err != nil || len(data) != 100 {
		t.Errorf("a file at the limit: %d bytes, %v", len(data), err)
	}
	if _, err := ReadRegular(os.DirFS("/dev"), "zero", "/dev/zero", 1<<20); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: %v, want refused", err)
	}
}
