package mention

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/tools"
)

// tree100k builds (once per run) a workspace of 100,000 files: 1,000
// directories of 100 files each, three levels deep.
var (
	treeOnce sync.Once
	treeDir  string
	treeErr  error
)

func tree100k(b *testing.B) string {
	b.Helper()
	treeOnce.Do(func() {
		treeDir, treeErr = os.MkdirTemp("", "coder-mention-bench-")
		if treeErr != nil {
			return
		}
		for d := range 1000 {
			dir := filepath.Join(treeDir, fmt.Sprintf("pkg%02d", d/100), fmt.Sprintf("mod%02d", d/10%10), fmt.Sprintf("dir%d", d%10))
			if treeErr = os.MkdirAll(dir, 0o755); treeErr != nil {
				return
			}
			for f := range 100 {
				if treeErr = os.WriteFile(filepath.Join(dir, fmt.Sprintf("file_%03d_%d.go", f, d)), nil, 0o644); treeErr != nil {
					return
				}
			}
		}
		treeErr = os.WriteFile(filepath.Join(treeDir, "notes.txt"), []byte("n\n"), 0o644)
	})
	if treeErr != nil {
		b.Fatal(treeErr)
	}
	return treeDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if treeDir != "" {
		os.RemoveAll(treeDir)
	}
	os.Exit(code)
}

// BenchmarkCompleteWarm100k is one `@` completion on a 100,000-file
// workspace whose listing the host holds (it lists at session open): a
// fuzzy match over every path and directory, best 50 kept.
func BenchmarkCompleteWarm100k(b *testing.B) {
	ws, err := tools.NewWorkspace(tree100k(b))
	if err != nil {
		b.Fatal(err)
	}
	x := &Index{WS: ws}
	if got, _, _ := x.Match(context.Background(), "not", maxBench); len(got) == 0 || got[0] != "notes.txt" {
		b.Fatalf("first match %q", got)
	}
	queries := []string{"not", "pkg3mod4", "file_042", "d7f9"}
	b.ResetTimer()
	i := 0
	for b.Loop() {
		if _, ready, _ := x.Match(context.Background(), queries[i%len(queries)], maxBench); !ready {
			b.Fatal("not ready")
		}
		i++
	}
}

// BenchmarkCompleteCold100k is the first `@` completion with no listing
// yet: the tree listed (rg --files when on PATH), then matched.
func BenchmarkCompleteCold100k(b *testing.B) {
	ws, err := tools.NewWorkspace(tree100k(b))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		x := &Index{WS: ws}
		if got, _, _ := x.Match(context.Background(), "not", maxBench); len(got) == 0 {
			b.Fatal("no match")
		}
	}
}

const maxBench = 50
