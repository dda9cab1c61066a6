package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	tests := []struct {
		name   string
		write  func(string, []byte, os.FileMode) error
		old    os.FileMode // 0: no file before
		perm   os.FileMode
		want   os.FileMode // on Unix, less the umask when masked
		masked bool
	}{
		{"new file", WriteFile, 0, 0o640, 0o640, true},
		{"existing file keeps its mode", WriteFile, 0o600, 0o644, 0o600, false},
		{"exact mode", WriteFileMode, 0o600, 0o640, 0o640, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(p)
			if tt.old != 0 {
				if err := os.WriteFile(p, []byte("old"), tt.old); err != nil {
					t.Fatal(err)
				}
				os.Chmod(p, tt.old)
			}
			if err := tt.write(p, []byte("new"), tt.perm); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(p)
			if err != nil || string(got) != "new" {
				t.Fatalf("content %q, %v", got, err)
			}
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if tt.masked {
				want &^= umask(t)
			}
			if runtime.GOOS != "windows" && fi.Mode().Perm() != want {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), want)
			}
			assertNoTemp(t, dir)
		})
	}
}

// TestCleanup: a pending file not committed leaves nothing, and the old
// content stands.
func TestCleanup(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.Cleanup()
	if got, _ := os.ReadFile(p); string(got) != "old" {
		t.Errorf("content %q after Cleanup, want the old one", got)
	}
	assertNoTemp(t, dir)
	if err := SyncDir(dir); err != nil {
		t.Errorf("SyncDir: %v", err)
	}
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "f" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
