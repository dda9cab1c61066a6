package sandbox

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// mountMode is what a bind mount of a path onto itself keeps.
type mountMode int

const (
	mountPin      mountMode = iota // in place, as writable as it was
	mountReadOnly                  // read-only
	mountWritable                  // writable again inside a read-only one
)

type mountStep struct {
	path string
	mode mountMode
}

// mountPlan orders p's mounts outermost first, so that each is made on
// top of those that hold it (a reopened directory inside a read-only
// one, a read-only file inside a pinned directory); at one depth pins
// go first.
func mountPlan(p Policy) []mountStep {
	var steps []mountStep
	for mode, list := range [][]string{p.Pinned, p.Protected, p.Reopened} {
		for _, path := range list {
			steps = append(steps, mountStep{filepath.Clean(path), mountMode(mode)})
		}
	}
	slices.SortStableFunc(steps, func(a, b mountStep) int {
		return cmp.Or(cmp.Compare(depth(a.path), depth(b.path)), cmp.Compare(a.mode, b.mode))
	})
	return steps
}

func depth(p string) int { return strings.Count(p, string(filepath.Separator)) }

// bindMode bind-mounts p onto itself as mode says.
func bindMode(p string, mode mountMode) error {
	if mode != mountWritable {
		return bindSelf(p, mode == mountReadOnly)
	}
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil || st.Flags&unix.ST_RDONLY == 0 {
		return err
	}
	// The copy of a read-only mount is read-only: writable again, with
	// the flags a user namespace must keep. A file system that is
	// itself read-only stays so (the remount fails): nothing is opened.
	flags := uint64(unix.MS_BIND | unix.MS_REMOUNT)
	for _, f := range lockedFlags() {
		if uint64(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	unix.Mount("", p, "", uintptr(flags), "") //nolint:errcheck // see above
	return nil
}
