package worktree

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/agent"
	"github.com/coder-nvim/coder-nvim/core/testrepo"
)

// benchStart measures Start on the repository at root: the worktree, the
// branch, the copy of tasks.copy files and the record; the task's
// Session is never opened (its queue is full).
func benchStart(b *testing.B, root string) {
	m, err := New(context.Background(), Options{Root: root, StateDir: filepath.Join(b.TempDir(), "state", "coder-nvim"), MaxParallel: 1, Copy: []string{".env"},
		Open: func(ctx context.Context, a OpenArgs) (*agent.Session, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	var total, plain time.Duration
	n := 0
	dir := b.TempDir()
	for b.Loop() {
		t0 := time.Now()
		if _, err := m.Start(context.Background(), StartArgs{Prompt: fmt.Sprintf("bench %d", n), Mode: "default"}); err != nil {
			b.Fatal(err)
		}
		total += time.Since(t0)
		// git's own share: the same worktree made by git alone.
		t1 := time.Now()
		git(b, root, "worktree", "add", "-q", "-b", fmt.Sprintf("plain-%d", n), filepath.Join(dir, fmt.Sprint(n)), "HEAD")
		plain += time.Since(t1)
		n++
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms/task")
	b.ReportMetric(float64(plain.Milliseconds())/float64(n), "git-ms/task")
}

func BenchmarkStartSmallRepo(b *testing.B) {
	root := newRepo(b)
	writeFile(b, filepath.Join(root, ".env"), "SECRET=1\n")
	benchStart(b, root)
}

func BenchmarkStartLargeRepo(b *testing.B) {
	root := b.TempDir()
	testrepo.Large(b, root, 20000)
	writeFile(b, filepath.Join(root, ".env"), "SECRET=1\n")
	benchStart(b, root)
}
