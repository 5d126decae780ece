package check_test

import (
	"testing"

	"membudget/check"
)

// BenchmarkReadPath reads testdata's manifests, every kind, as check
// deploy/ reads a directory (before any sizing).
func BenchmarkReadPath(b *testing.B) {
	o := options(b)
	b.ReportAllocs()
	for b.Loop() {
		servers, err := check.ReadPath("testdata", nil, o)
		if err != nil || len(servers) != 9 {
			b.Fatalf("%d servers, %v", len(servers), err)
		}
	}
}

// BenchmarkAliasBomb is the time to refuse the alias bomb: the node
// budget's walk.
func BenchmarkAliasBomb(b *testing.B) {
	o := options(b)
	bomb := hostile()["alias bomb"]
	for b.Loop() {
		if _, err := check.Read("bomb.yaml", bomb, o); err == nil {
			b.Fatal("the bomb was read")
		}
	}
}
