package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// A mount isolate makes: over a temp dir, a read view or a hidden place.
type isoOp struct {
	path string
	kind byte // 't' the session's temp, 'v' read view, 'h' hidden
}

// isolate applies req's Isolation in this process's own mount namespace,
// before protect: the temp dirs become the session's own, the read views
// overlays in which no socket is reachable (a socket is found by its
// inode, and an overlay's are its own), the hidden places empty; then
// what must stay visible (the workspace, the writable roots, the allowed
// sockets) is bound back from where it was.
func isolate(req request) error {
	iso := req.Isolation
	if iso.Temp == "" && len(iso.ReadView) == 0 && len(iso.Hide) == 0 {
		return nil
	}
	if err := ownNamespaces(); err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	ops := isoOps(iso)
	opPaths := make([]string, len(ops))
	for i, op := range ops {
		opPaths[i] = op.path
	}
	explicit := resolveAll(append(slices.Clone(iso.Keep), req.UnixSockets...))
	var keeps []string
	// The writable roots are bound back whole; a pinned directory is not:
	// the guard pins the directories above a workspace that lies in the
	// temp dir, and binding one back would bring the host's temp (and
	// every socket in it) back into view. Pins under a writable root come
	// back with it, and protect makes them once the view stands.
	for _, k := range append(explicit, resolveAll(slices.Clone(req.Writable))...) {
		if !slices.Contains(opPaths, k) && slices.ContainsFunc(opPaths, func(o string) bool { return strictlyWithin(k, o) }) &&
			!slices.ContainsFunc(keeps, func(o string) bool { return k == o || strictlyWithin(k, o) }) {
			keeps = append(keeps, k)
		}
	}
	// Opened before anything hides them.
	fds := make([]int, len(keeps))
	for i, k := range keeps {
		fd, err := unix.Open(k, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("isolate: keep %s: %w", k, err)
		}
		defer unix.Close(fd)
		fds[i] = fd
	}
	tempFD := -1
	if iso.Temp != "" {
		fd, err := unix.Open(iso.Temp, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("isolate: the session's temp dir: %w", err)
		}
		defer unix.Close(fd)
		tempFD = fd
	}
	inKeep := func(p string) bool {
		return slices.ContainsFunc(keeps, func(k string) bool { return strictlyWithin(p, k) })
	}
	// An empty directory for the read views' overlays, in /dev/shm's
	// fresh tmpfs; a second one then covers it: an overlay whose layer
	// was removed lists its merged directories empty.
	var empty string
	apply := func(later bool) error {
		for _, op := range ops {
			if inKeep(op.path) != later || slices.Contains(explicit, op.path) {
				continue
			}
			viewed, err := applyOp(op, tempFD, &empty)
			if err != nil {
				return fmt.Errorf("isolate %s: %w", op.path, err)
			}
			if op.path == "/run" && !viewed {
				// No read view of /run: its sockets as they are now are
				// hidden one by one.
				for _, p := range runSockets() {
					if !slices.Contains(explicit, p) {
						if err := unix.Mount("/dev/null", p, "", unix.MS_BIND, ""); err != nil {
							return fmt.Errorf("isolate %s: %w", p, err)
						}
					}
				}
			}
		}
		return nil
	}
	if err := apply(false); err != nil {
		return err
	}
	for i, k := range keeps {
		if err := bindBack(fds[i], k); err != nil {
			return fmt.Errorf("isolate: keep %s: %w", k, err)
		}
	}
	if err := apply(true); err != nil {
		return err
	}
	if empty != "" {
		if err := unix.Mount("tmpfs", filepath.Dir(empty), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return fmt.Errorf("isolate %s: %w", filepath.Dir(empty), err)
		}
	}
	return nil
}

// isoOps are iso's mounts, existing paths with links resolved, parents
// first.
func isoOps(iso Isolation) []isoOp {
	var ops []isoOp
	add := func(kind byte, paths []string) {
		for _, p := range resolveAll(paths) {
			if !slices.ContainsFunc(ops, func(o isoOp) bool { return o.path == p }) {
				ops = append(ops, isoOp{p, kind})
			}
		}
	}
	add('t', iso.TempDirs)
	add('v', iso.ReadView)
	add('h', iso.Hide)
	slices.SortStableFunc(ops, func(a, b isoOp) int { return len(a.path) - len(b.path) })
	// /dev/shm's fresh tmpfs comes first: the read views' empty layer
	// is made in it.
	slices.SortStableFunc(ops, func(a, b isoOp) int {
		return boolInt(b.path == "/dev/shm") - boolInt(a.path == "/dev/shm")
	})
	return ops
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runSockets are the sockets under /run, three levels deep, but in the
// places hidden whole anyway.
func runSockets() []string {
	var out []string
	filepath.WalkDir("/run", func(p string, d fs.DirEntry, err error) error { //nolint:errcheck // best effort on top of the fixed places
		if err != nil {
			return nil
		}
		if d.IsDir() && (p == "/run/user" || strings.Count(p, "/") > 3) {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSocket != 0 {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// applyOp makes op's mount; viewed reports a read view made.
func applyOp(op isoOp, tempFD int, empty *string) (viewed bool, err error) {
	fi, err := os.Lstat(op.path)
	if err != nil {
		return false, nil // hidden by an earlier one
	}
	switch {
	case op.kind == 't':
		return false, unix.Mount(fmt.Sprintf("/proc/self/fd/%d", tempFD), op.path, "", unix.MS_BIND, "")
	case op.kind == 'v' && *empty != "" && !strings.ContainsAny(op.path, ":,\\"):
		err := unix.Mount("overlay", op.path, "overlay", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "lowerdir="+op.path+":"+*empty)
		if err == nil {
			return true, nil
		}
		// A kernel without overlays in user namespaces: empty instead,
		// but /run, which the system needs (the caller hides its
		// sockets one by one).
		if op.path == "/run" {
			return false, nil
		}
	case op.kind == 'v' && op.path == "/run":
		return false, nil
	case !fi.IsDir():
		return false, unix.Mount("/dev/null", op.path, "", unix.MS_BIND, "")
	}
	mode := "mode=0755"
	if op.path == "/dev/shm" {
		mode = "mode=1777"
	}
	if err := unix.Mount("tmpfs", op.path, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, mode); err != nil {
		return false, err
	}
	if op.path == "/dev/shm" {
		d := filepath.Join(op.path, ".coder-nvim-empty")
		if os.Mkdir(d, 0o500) == nil {
			*empty = d
		}
	}
	return false, nil
}

// bindBack binds what fd opened, before the mounts hid it, at path,
// making a mount point there when the mounts left none.
func bindBack(fd int, path string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFDIR {
			err = os.Mkdir(path, 0o755)
		} else {
			var f *os.File
			if f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				f.Close()
			}
		}
		if err != nil {
			return err
		}
	}
	return unix.Mount(fmt.Sprintf("/proc/self/fd/%d", fd), path, "", unix.MS_BIND|unix.MS_REC, "")
}

// resolveAll is paths that exist, absolute with links resolved.
func resolveAll(paths []string) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		if real, err := filepath.EvalSymlinks(p); err == nil && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// strictlyWithin reports whether p lies strictly inside dir.
func strictlyWithin(p, dir string) bool {
	return p != dir && strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
