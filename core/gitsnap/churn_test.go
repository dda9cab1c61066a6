package gitsnap

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Other programs write in the workspace while a snapshot runs: editors and
// other sessions write a temporary file and rename it over the target. A
// file gone between git's directory scan and its reading must not fail
// the snapshot, and the snapshot still holds every file that stays.
func TestSnapshotWhileFilesComeAndGo(t *testing.T) {
	ctx := context.Background()
	root := newRepo(t)
	writeFile(t, root, "kept.txt", "kept\n")
	commitAll(t, root)
	for i := range 200 {
		writeFile(t, root, fmt.Sprintf("dir/f%03d.txt", i), "x\n")
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := filepath.Join(root, "dir")
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				// As renameio and most editors save: a temporary file,
				// renamed over the target.
				tmp := filepath.Join(dir, fmt.Sprintf(".save%d-%d.tmp", w, n))
				if err := os.WriteFile(tmp, []byte("x\n"), 0o644); err != nil {
					t.Error(err)
					return
				}
				if err := os.Rename(tmp, filepath.Join(dir, fmt.Sprintf("f%03d.txt", n%200))); err != nil {
					t.Error(err)
					return
				}
				// Busy, yet not always saving: a snapshot that runs
				// again gets through.
				time.Sleep(100 * time.Microsecond)
			}
		}()
	}
	repo := NewRepo(root)
	for i := range 30 {
		id, err := repo.Snapshot(ctx, "churn", Options{})
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("snapshot %d: %v", i, err)
		}
		if out := gitT(t, root, "ls-tree", "-r", "--name-only", id); !strings.Contains(out, "kept.txt\n") || !strings.Contains(out, "dir/f199.txt\n") {
			t.Errorf("snapshot %d lacks files that stayed:\n%s", i, out)
		}
	}
	close(stop)
	wg.Wait()
}

// git speaks the user's language; what the snapshot reads of its messages
// must not depend on it. Under a German locale, git add's complaint that
// the session store is ignored is in German, and was taken for a failure.
func TestSnapshotUnderTranslatedGit(t *testing.T) {
	localedef, err := exec.LookPath("localedef")
	if err != nil {
		t.Skip("localedef not installed (Debian's libc-bin)")
	}
	if _, err := os.Stat("/usr/share/i18n/locales/de_DE"); err != nil {
		t.Skip("locale sources not installed (Debian's locales)")
	}
	locales := t.TempDir()
	if out, err := exec.Command(localedef, "-i", "de_DE", "-f", "UTF-8", filepath.Join(locales, "de_DE.UTF-8")).CombinedOutput(); err != nil {
		t.Skipf("localedef: %v\n%s", err, out)
	}
	t.Setenv("LOCPATH", locales)
	t.Setenv("LC_ALL", "de_DE.UTF-8")
	root := newRepo(t)
	if out, _ := exec.Command("git", "-C", root, "add", "--", "no-such-file").CombinedOutput(); !strings.Contains(string(out), "Pfadspezifikation") {
		t.Skipf("git does not speak German here: %s", out)
	}

	writeFile(t, root, ".gitignore", ".coder\n")
	writeFile(t, root, ".coder/sessions/s.jsonl", "session\n")
	writeFile(t, root, "a.txt", "a\n")
	commitAll(t, root)
	before, err := Snapshot(context.Background(), root, "x")
	if err != nil {
		t.Fatalf("snapshot under a German locale: %v", err)
	}
	writeFile(t, root, "a.txt", "changed\n")
	after, err := Snapshot(context.Background(), root, "x")
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := Undo(context.Background(), root, before, after); err != nil || len(rep.Restored) != 1 {
		t.Errorf("undo: %+v, %v", rep, err)
	}
	if got := tree(t, root)["a.txt"]; got != "file:644:a\n" {
		t.Errorf("a.txt = %q after undo", got)
	}
}
