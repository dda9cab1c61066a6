package sandbox

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// launcherCaps are the capabilities the launcher keeps across its exec in
// its own user namespace (ambient, as the host starts it): a user who is
// not root loses every capability at execve otherwise, and with them the
// protected paths' bind mounts and the PID namespaces. CAP_SYS_ADMIN
// mounts and makes PID namespaces; CAP_SETPCAP empties the bounding set.
// They reach nothing outside: capabilities in a user namespace count only
// for what it owns.
var launcherCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}

// dropCaps leaves this thread no capability but keep, and nothing a
// program it execs or starts could regain: the bounding set emptied, the
// ambient and inheritable sets cleared. A command then has no capability
// in the namespace, even as uid 0 there.
func dropCaps(keep ...uintptr) error {
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, unix.EINVAL) {
			break // the kernel knows no more capabilities
		}
		// Without CAP_SETPCAP (a user who is not root, outside a user
		// namespace) the set stays, but an exec gives such a user no
		// capability from it: no_new_privs ignores file capabilities.
		if err != nil && !(errors.Is(err, unix.EPERM) && unix.Geteuid() != 0) {
			return fmt.Errorf("drop capabilities: bounding set: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("drop capabilities: ambient set: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	var want [2]uint32
	for _, c := range keep {
		want[c/32] |= 1 << (c % 32)
	}
	for i := range data {
		data[i].Inheritable = 0
		data[i].Permitted &= want[i]
		data[i].Effective &= want[i]
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("drop capabilities: %w", err)
	}
	return nil
}
