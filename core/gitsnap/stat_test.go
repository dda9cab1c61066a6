package gitsnap

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestInodeCtime: a file replaced by a rename is told apart by its inode
// even when size and mtime match; where the platform has no inode (the
// portable path), both read as zero and statSig still works.
func TestInodeCtime(t *testing.T) {
	dir := t.TempDir()
	p, q := filepath.Join(dir, "config"), filepath.Join(dir, "new")
	for _, f := range []string{p, q} {
		if err := os.WriteFile(f, []byte("same"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	os.Chtimes(q, fi.ModTime(), fi.ModTime())
	before := statSig(p)
	if err := os.Rename(q, p); err != nil {
		t.Fatal(err)
	}
	after := statSig(p)
	if !before.exists || before.size != 4 || before.mtime != after.mtime {
		t.Fatalf("signatures %+v, %+v", before, after)
	}
	if runtime.GOOS == "windows" {
		if after.ino != 0 || after.ctime != 0 {
			t.Errorf("no inode on Windows, got %+v", after)
		}
		return
	}
	if before.ctime == 0 || after.ctime == 0 {
		t.Errorf("no change time: %+v, %+v", before, after)
	}
	if before == after {
		t.Errorf("a file replaced by a rename reads the same: %+v", after)
	}
}
