package store

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// lockOffset is where the lock's one byte lies: far past the pid the file
// holds, because Windows' locks are mandatory and a locked byte cannot be
// read, while a refused process reads the pid for its message.
const lockOffset = 1 << 62

// tryLock takes an exclusive LockFileEx lock on f without waiting. It
// belongs to the handle: the kernel drops it when the process dies.
func tryLock(f *os.File) (bool, error) {
	ol := &windows.Overlapped{Offset: lockOffset & 0xffffffff, OffsetHigh: lockOffset >> 32}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, err
}
