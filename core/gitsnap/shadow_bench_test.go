package gitsnap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkShadowSnapshot is a snapshot of 20,000 files outside git
// (into the shadow repository) after one file changed: with the shadow's
// own index as stat cache only that file is hashed again.
func BenchmarkShadowSnapshot(b *testing.B) {
	root, base := b.TempDir(), b.TempDir()
	for i := range 20_000 {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d.go", i)), []byte(fmt.Sprintf("package p // %d\n", i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	g := NewShadowedRepo(root, base)
	if _, err := g.Snapshot(ctx, "first", Options{}); err != nil {
		b.Fatal(err)
	}
	k := 0
	for b.Loop() {
		k++
		if err := os.WriteFile(filepath.Join(root, "d000", "f00000.go"), []byte(fmt.Sprint("changed ", k)), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := g.Snapshot(ctx, "again", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
