package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestLockOneWriter(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	id := uuid.NewString()
	a, err := Acquire(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	// flock belongs to the open file: a second open is refused even in
	// the same process, at once, naming the holder.
	_, err = Acquire(dir, id)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Fatalf("second Acquire: %v; want ErrLocked naming pid %d", err, os.Getpid())
	}
	// Other sessions are not affected.
	other, err := Acquire(dir, uuid.NewString())
	if err != nil {
		t.Fatalf("another session: %v", err)
	}
	other.Release()

	a.Release()
	a.Release() // twice is harmless
	if _, err := os.Stat(filepath.Join(dir, id+".lock")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after Release: %v", err)
	}
	b, err := Acquire(dir, id)
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	b.Release()
	if list, err := List(dir); err != nil || len(list) != 0 {
		t.Errorf("List = %v, %v; lock files are not sessions", list, err)
	}
}

func TestLockBadID(t *testing.T) {
	if _, err := Acquire(t.TempDir(), "../x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Acquire(../x) = %v", err)
	}
}
