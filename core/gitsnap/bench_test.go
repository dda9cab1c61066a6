package gitsnap

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// benchFiles is the size of the synthetic tree of BenchmarkSnapshotTree:
// 20,000 files keeps `make bench` quick; CODER_BENCH_FILES=100000 measures
// a big repository by hand.
func benchFiles(b *testing.B) int {
	if v := os.Getenv("CODER_BENCH_FILES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			b.Fatalf("CODER_BENCH_FILES=%q: want a positive integer", v)
		}
		return n
	}
	return 20000
}

// BenchmarkSnapshotTree snapshots a committed tree of benchFiles files (100
// per directory) with one file changed and 1% untracked files, as a turn
// does before and after itself.
func BenchmarkSnapshotTree(b *testing.B) {
	n := benchFiles(b)
	root := newRepo(b)
	body := strings.Repeat("some line of code\n", 20)
	for i := range n {
		writeFile(b, root, fmt.Sprintf("d%04d/f%05d.go", i/100, i), body)
	}
	commitAll(b, root)
	for i := range n / 100 {
		writeFile(b, root, fmt.Sprintf("gen/u%05d.txt", i), body)
	}
	writeFile(b, root, "d0000/f00000.go", "changed\n")
	ctx := context.Background()
	opts := Options{MaxFileSize: 10 << 20}
	b.ReportMetric(float64(n), "files")
	for b.Loop() {
		if _, err := SnapshotWith(ctx, root, "bench", opts); err != nil {
			b.Fatal(err)
		}
	}
}
