package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/uuid"
)

func TestDelete(t *testing.T) {
	tests := []struct {
		name string
		// setup returns the id to delete; dir is a sessions directory
		// holding a second session that must survive.
		setup   func(t *testing.T, dir string) string
		wantErr error
		// gone and kept are names in dir after the Delete.
		gone, kept func(id string) []string
	}{{
		name: "snapshot, journal and a temporary file",
		setup: func(t *testing.T, dir string) string {
			id := saved(t, dir)
			writeFile(t, filepath.Join(dir, id+".journal"), "{}\n")
			writeFile(t, filepath.Join(dir, "."+id+".json.123.tmp"), "half")
			return id
		},
		gone: func(id string) []string {
			return []string{id + ".json", id + ".journal", "." + id + ".json.123.tmp", id + ".lock"}
		},
	}, {
		name: "a journal alone",
		setup: func(t *testing.T, dir string) string {
			id := uuid.NewString()
			writeFile(t, filepath.Join(dir, id+".journal"), "{}\n")
			return id
		},
		gone: func(id string) []string { return []string{id + ".journal"} },
	}, {
		name: "held by a lock",
		setup: func(t *testing.T, dir string) string {
			id := saved(t, dir)
			l, err := Acquire(dir, id)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(l.Release)
			return id
		},
		wantErr: ErrLocked,
		kept:    func(id string) []string { return []string{id + ".json"} },
	}, {
		name:    "unknown",
		setup:   func(*testing.T, string) string { return uuid.NewString() },
		wantErr: ErrNotFound,
		gone:    func(id string) []string { return []string{id + ".lock"} },
	}, {
		name: "not a session id",
		setup: func(t *testing.T, dir string) string {
			writeFile(t, filepath.Join(dir, "..", "x.json"), "{}")
			return "../x"
		},
		wantErr: ErrNotFound,
		kept:    func(string) []string { return []string{"../x.json"} },
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sessions")
			other := saved(t, dir)
			id := tc.setup(t, dir)
			err := Delete(dir, id)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("Delete = %v, want %v", err, tc.wantErr)
			}
			var gone, kept []string
			if tc.gone != nil {
				gone = tc.gone(id)
			}
			if tc.kept != nil {
				kept = tc.kept(id)
			}
			for _, name := range gone {
				if _, err := os.Lstat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("%s is left: %v", name, err)
				}
			}
			for _, name := range append(kept, other+".json") {
				if _, err := os.Lstat(filepath.Join(dir, name)); err != nil {
					t.Errorf("%s is gone: %v", name, err)
				}
			}
		})
	}
}

// saved writes a snapshot of a new session in dir and returns its id.
func saved(t *testing.T, dir string) string {
	t.Helper()
	id := uuid.NewString()
	if err := Save(dir, &Snapshot{ID: id}); err != nil {
		t.Fatal(err)
	}
	return id
}

func writeFile(t *testing.T, p, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
