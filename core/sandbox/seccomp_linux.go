package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccomp_data's offsets: the syscall number, the audit arch, the first
// argument (its low half: the socket family fits in it).
const (
	offNR   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// x32Bit marks x32 system calls on amd64; refused, so that their
// numbering cannot dodge the filter.
const x32Bit = 0x40000000

// restrictSyscalls loads a seccomp filter that refuses (EPERM) changes
// to the mounts — the protected paths' read-only binds stay, even for a
// shell that is root in its user namespace on a kernel without Landlock —
// and, with denySockets, socket(2) for every family but Unix sockets and
// io_uring_setup, since io_uring can open sockets without socket(2). A few
// BPF instructions of our own: a library cost more at each command's start
// than the filter is long.
func restrictSyscalls(denySockets bool) error {
	eperm := uint32(unix.SECCOMP_RET_ERRNO | unix.EPERM)
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	ld := func(off uint32) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off}
	}
	jeq := func(k uint32, t, f uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: k, Jt: t, Jf: f}
	}
	ret := func(k uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: k} }
	prog := []unix.SockFilter{
		ld(offArch),
		jeq(auditArch, 1, 0),
		ret(eperm), // another ABI (i386 on amd64): refused
		ld(offNR),
		{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, K: x32Bit, Jt: 0, Jf: 1},
		ret(eperm),
	}
	denied := mountSyscalls()
	if denySockets {
		denied = append(denied, unix.SYS_IO_URING_SETUP)
	}
	for _, nr := range denied {
		prog = append(prog, jeq(uint32(nr), 0, 1), ret(eperm))
	}
	prog = append(prog, ttyIoctls(ld, jeq, ret(eperm))...)
	if denySockets {
		prog = append(prog, jeq(unix.SYS_SOCKET, 0, 3), ld(offArg0), jeq(unix.AF_UNIX, 1, 0), ret(eperm))
	}
	prog = append(prog, ret(allow))
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	// This thread only (no TSYNC): the exec that follows runs from it.
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}

// ttyIoctls refuse ioctl(2)'s TIOCSTI (a key pushed into a terminal's
// input, as if typed) and TIOCLINUX (the console's selection pasted):
// the command has no controlling terminal, but a terminal's descriptor
// could still reach it. The kernel reads the request as 32 bits: the
// argument's low half is all there is to match.
func ttyIoctls(ld func(uint32) unix.SockFilter, jeq func(uint32, uint8, uint8) unix.SockFilter, refuse unix.SockFilter) []unix.SockFilter {
	return []unix.SockFilter{
		jeq(unix.SYS_IOCTL, 0, 5),
		ld(offArg1),
		jeq(unix.TIOCSTI, 1, 0),
		jeq(unix.TIOCLINUX, 0, 1),
		refuse,
		ld(offNR), // the checks that follow read the number again
	}
}

// mountSyscalls change what is mounted where.
func mountSyscalls() []int {
	return []int{unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_MOVE_MOUNT,
		unix.SYS_OPEN_TREE, unix.SYS_FSOPEN, unix.SYS_FSMOUNT, unix.SYS_FSCONFIG, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR}
}

// seccompAvailable reports whether seccomp filters can be loaded.
func seccompAvailable() bool {
	// PR_GET_SECCOMP answers EINVAL where the kernel lacks seccomp.
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil
}

// setNoNewPrivs is what an unprivileged process must set before it may
// load a filter or a Landlock ruleset; it also keeps a setuid program
// from gaining privileges.
func setNoNewPrivs() error {
	return unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
}
