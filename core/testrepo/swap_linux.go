//go:build linux

package testrepo

import (
	"os"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// Directory swaps as a process confined to the workspace can do them, to
// test that the host never writes through a link it did not see.

// Swapper stands in for a daemon a confined command left behind: it swaps
// the workspace directory dir with a symbolic link to target (renameat2
// RENAME_EXCHANGE) in a tight loop until stopped, leaving dir a directory.
type Swapper struct {
	stop chan struct{}
	done sync.WaitGroup
	dir  string
	link string
}

// StartSwapper starts it; the test's end stops it.
func StartSwapper(t testing.TB, dir, target string) *Swapper {
	t.Helper()
	s := &Swapper{stop: make(chan struct{}), dir: dir, link: dir + ".swap"}
	if err := os.Symlink(target, s.link); err != nil {
		t.Fatal(err)
	}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		swapped := false
		for {
			select {
			case <-s.stop:
				if swapped {
					unix.Renameat2(unix.AT_FDCWD, s.dir, unix.AT_FDCWD, s.link, unix.RENAME_EXCHANGE) //nolint:errcheck // best effort: the check below says
				}
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, s.dir, unix.AT_FDCWD, s.link, unix.RENAME_EXCHANGE); err == nil {
				swapped = !swapped
			}
		}
	}()
	t.Cleanup(s.Halt)
	return s
}

// Halt stops the swaps and waits for the loop to end.
func (s *Swapper) Halt() {
	select {
	case <-s.stop:
		return
	default:
	}
	close(s.stop)
	s.done.Wait()
}

// SwapOnOpen waits (inotify) for watched to be opened, then swaps dir
// with a link to target once; the function returned says whether it did.
func SwapOnOpen(t testing.TB, watched, dir, target string) func() bool {
	t.Helper()
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		t.Skipf("no inotify: %v", err)
	}
	if _, err := unix.InotifyAddWatch(fd, watched, unix.IN_OPEN); err != nil {
		unix.Close(fd)
		t.Skipf("inotify watch: %v", err)
	}
	link := dir + ".swap"
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	stop, done := make(chan struct{}), make(chan bool, 1)
	go func() {
		defer unix.Close(fd)
		buf := make([]byte, 4096)
		for {
			select {
			case <-stop:
				done <- false
				return
			default:
			}
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			if n, _ := unix.Poll(fds, 50); n <= 0 {
				continue
			}
			if n, _ := unix.Read(fd, buf); n > 0 {
				done <- unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE) == nil
				return
			}
		}
	}()
	var once sync.Once
	var swapped bool
	result := func() bool {
		once.Do(func() { close(stop); swapped = <-done })
		return swapped
	}
	t.Cleanup(func() { result() })
	return result
}
