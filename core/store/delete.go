package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Delete removes session id's files from dir: its snapshot, its journal
// and what an interrupted save left. It holds the session's lock while it
// does, so a session another process (or this one) has open is refused
// with ErrLocked, naming the holder. A session with neither snapshot nor
// journal is ErrNotFound, and nothing is created for it.
//
// Every path is built from the id, which must be a session id (a UUID),
// so nothing outside dir is named.
func Delete(dir, id string) error {
	p, err := path(dir, id)
	if err != nil {
		return err
	}
	jp := strings.TrimSuffix(p, ".json") + ".journal"
	if !present(p) && !present(jp) {
		return fmt.Errorf("session %s: %w in %s", id, ErrNotFound, dir)
	}
	l, err := Acquire(dir, id)
	if err != nil {
		return err
	}
	defer l.Release()
	// The snapshot first: without it the session is no longer listed, and
	// a journal left by a failure here is found by the next Delete.
	tmps, _ := filepath.Glob(filepath.Join(dir, "."+id+".*.tmp"))
	var errs []error
	for _, f := range append([]string{p, jp}, tmps...) {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("delete session %s: %w", id, err)
	}
	return nil
}

// present reports whether p names anything (a link too: it is removed,
// never followed).
func present(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
