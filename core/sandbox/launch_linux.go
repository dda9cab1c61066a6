package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Main is the launcher, `coder-nvim sandbox-exec REQUEST -- PROGRAM ARGS…`:
// it confines itself as REQUEST says, then execs PROGRAM in its place. It
// never runs PROGRAM unconfined: a step that fails ends it with status 125
// and a message on stderr. `sandbox-exec --probe` reports, as JSON on
// stdout, which mechanisms work here; `--serve REQUEST` and
// `--probe-serve REQUEST` run it as a fork server (serve).
func Main(args []string) int {
	// Landlock, seccomp and no_new_privs are set on this thread only; the
	// exec below runs from it, and the new program keeps what it had.
	runtime.LockOSThread()
	if len(args) == 1 && args[0] == "--probe" {
		return probe()
	}
	if len(args) == 2 && (args[0] == "--serve" || args[0] == "--probe-serve") {
		return serve(args[1], args[0] == "--probe-serve")
	}
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: coder-nvim sandbox-exec REQUEST -- PROGRAM [ARG…]")
		return exitSetup
	}
	req, err := decodeRequest(args[0])
	if err == nil {
		err = launch(req, args[2:])
	}
	fmt.Fprintf(os.Stderr, "coder-nvim sandbox: %v; the command did not run\n", err)
	return exitSetup
}

// launch confines this thread and execs prog; it returns only on failure.
func launch(req request, prog []string) error {
	path, err := exec.LookPath(prog[0])
	if err != nil {
		return err
	}
	if err := confine(req); err != nil {
		return err
	}
	return syscall.Exec(path, prog, withEnv(os.Environ(), req.Env))
}

// confine applies req to this thread (and, for the mounts, this
// process's own namespace): what it then starts or becomes keeps it.
func confine(req request) error {
	if req.Use.Protect {
		if err := protect(req.Policy); err != nil {
			return err
		}
	}
	if err := setNoNewPrivs(); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if req.Use.Filesystem {
		if err := restrictWrites(req.Writable); err != nil {
			return err
		}
	}
	if req.Use.Network {
		// seccomp: the mounts always, the network unless allowed.
		if err := restrictSyscalls(!req.Network); err != nil {
			return err
		}
	}
	return nil
}

// protect keeps each protected path read-only, each pinned one in place
// and each reopened one writable, by bind mounts in this process's own
// mount namespace (the host started it in new user and mount
// namespaces), made outermost first (mounts.go). A path that does not
// exist has nothing to protect. A mount point cannot be renamed or
// removed, so no other directory takes a pinned one's place.
func protect(p Policy) error {
	if err := ownNamespaces(); err != nil {
		return err
	}
	// Nothing done here may reach the host's mounts.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("make mounts private: %w", err)
	}
	for _, m := range mountPlan(p) {
		real, err := filepath.EvalSymlinks(m.path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err == nil {
			err = bindMode(real, m.mode)
		}
		if err != nil {
			return fmt.Errorf("protect %s: %w", m.path, err)
		}
	}
	// A working directory taken before the mounts lies below them (a
	// pinned workspace): take it again through them.
	if wd, err := os.Getwd(); err == nil {
		if err := unix.Chdir(wd); err != nil {
			return fmt.Errorf("protect: chdir %s: %w", wd, err)
		}
	}
	return nil
}

// bindSelf bind-mounts p onto itself, read-only when readOnly. A remount
// in a user namespace must keep the flags the mount it copies has locked.
func bindSelf(p string, readOnly bool) error {
	if err := unix.Mount(p, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	if !readOnly {
		return nil
	}
	var st unix.Statfs_t
	if err := unix.Statfs(p, &st); err != nil {
		return err
	}
	flags := uint64(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range lockedFlags() {
		if uint64(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	return unix.Mount("", p, "", uintptr(flags), "")
}

// lockedFlags are the mount flags a remount must keep, as statfs reports
// them and as mount takes them.
func lockedFlags() []struct{ st, ms uint64 } {
	return []struct{ st, ms uint64 }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	}
}

// restrictWrites makes every write outside the writable roots fail
// (EACCES) with Landlock, at the best ABI the kernel has; reads and
// execution stay free. The common devices stay writable.
func restrictWrites(writable []string) error {
	abi, err := landlockABI()
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	dirRights := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
		unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR | unix.LANDLOCK_ACCESS_FS_MAKE_REG |
		unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
		unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	fileRights := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE)
	if abi >= 2 {
		dirRights |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		dirRights |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
		fileRights |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	if abi >= 5 {
		dirRights |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
		fileRights |= unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
	}
	// Only the filesystem field: a kernel older than the struct's later
	// fields takes the size given.
	attr := unix.LandlockRulesetAttr{Access_fs: dirRights}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), 8, 0)
	if errno != 0 {
		return fmt.Errorf("landlock ruleset: %w", errno)
	}
	fd := int(r)
	defer unix.Close(fd)
	add := func(p string, rights uint64) error {
		f, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("landlock %s: %w", p, err)
		}
		defer unix.Close(f)
		var st unix.Stat_t
		if err := unix.Fstat(f, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			rights &= fileRights
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(f)}
		if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH,
			uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
			return fmt.Errorf("landlock %s: %w", p, errno)
		}
		return nil
	}
	for _, p := range writable {
		if err := add(p, dirRights); err != nil {
			return err
		}
	}
	for _, dev := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/random", "/dev/urandom"} {
		if err := add(dev, fileRights); err != nil {
			return err
		}
	}
	// This thread only (no TSYNC): the exec that follows runs from it.
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock: %w", errno)
	}
	return nil
}

// landlockABI is the kernel's Landlock ABI version.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, errno
	}
	return int(v), nil
}

// probe prints the Support found, as JSON.
func probe() int {
	json.NewEncoder(os.Stdout).Encode(probeAll()) //nolint:errcheck // the host reads what it gets
	return 0
}

// probeAll tries each mechanism on throwaway objects. Protect is tried
// only when the host started it in namespaces of its own (it can mount
// there).
func probeAll() Support {
	var s Support
	if abi, err := landlockABI(); err == nil && abi >= 1 {
		s.Filesystem = true
		s.Mechanisms = append(s.Mechanisms, fmt.Sprintf("Landlock ABI %d", abi))
	} else {
		s.Missing = append(s.Missing, fmt.Sprintf("Landlock is not available (%v): writes outside the workspace are not refused by the kernel", err))
	}
	if seccompAvailable() && auditArch != 0 {
		s.Network = true
		s.Mechanisms = append(s.Mechanisms, "seccomp")
	} else {
		s.Missing = append(s.Missing, "seccomp is not available: network access is not refused by the kernel")
	}
	if err := probeMounts(); err == nil {
		s.Protect = true
		s.Mechanisms = append(s.Mechanisms, "user+mount namespace")
	} else {
		s.Missing = append(s.Missing, "read-only mounts in a user namespace failed ("+err.Error()+"): .git/config, .git/hooks and .coder are not protected by the kernel inside the workspace")
	}
	return s
}

// probeMounts makes a temporary directory read-only by a bind mount and
// checks that a write in it fails.
func probeMounts() error {
	if err := ownNamespaces(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "coder-nvim-probe-")
	if err != nil {
		return err
	}
	defer os.Remove(dir)
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return err
	}
	if err := bindSelf(dir, true); err != nil {
		return err
	}
	defer unix.Unmount(dir, unix.MNT_DETACH) //nolint:errcheck // the namespace ends with the probe
	f, err := os.Create(filepath.Join(dir, "x"))
	if err == nil {
		f.Close()
		os.Remove(f.Name())
		return errors.New("a write under a read-only mount succeeded")
	}
	return nil
}

// ownNamespaces refuses to mount anything unless this process is in user
// and mount namespaces of its own, as the host starts it: never in the
// system's (a launcher run by hand as root would otherwise change the
// machine's mounts).
func ownNamespaces() error {
	uidMap, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return fmt.Errorf("read uid_map: %w", err)
	}
	if f := strings.Fields(string(uidMap)); len(f) == 3 && f[0] == "0" && f[1] == "0" && f[2] == "4294967295" {
		return errors.New("not in a user namespace of its own")
	}
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return fmt.Errorf("read the mount namespace: %w", err)
	}
	if parent, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", os.Getppid())); err == nil && parent == self {
		return errors.New("not in a mount namespace of its own")
	}
	return nil
}
