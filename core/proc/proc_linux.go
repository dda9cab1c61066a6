package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// awaitExit returns once the child pid has exited (it stays a zombie
// until waited for), parked on the poller; at once when it cannot tell
// (no pidfd before Linux 5.3): the wait call then blocks as it would have.
func awaitExit(pid int) {
	// pid is a child not yet waited for: it cannot be another process.
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	// A pidfd polls readable once its process has exited.
	rc.Read(func(fd uintptr) bool { //nolint:errcheck // any failure: the wait call blocks instead
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		return err != nil && err != unix.EINTR || n > 0
	})
}
