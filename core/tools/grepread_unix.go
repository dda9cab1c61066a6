//go:build unix

package tools

import (
	"errors"
	"syscall"
)

// readForGrep reads the regular file at abs into buf (reused between
// files) with no more system calls than needed: open, fstat, read, close,
// none of the poller set-up os.Open does. It returns nil for what grep
// skips: files that are missing, not regular, larger than limit, or
// binary (a NUL in the first 8 KiB, checked before the rest is read).
// O_NONBLOCK keeps a FIFO that replaced a listed file from blocking.
func readForGrep(abs string, buf []byte, limit int64) ([]byte, []byte) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(abs, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, buf
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size > limit {
		return nil, buf
	}
	size := int(st.Size)
	if cap(buf) < size {
		buf = make([]byte, size, size+size/4)
	}
	data := buf[:size]
	n, sniff := 0, min(size, binarySniff)
	for n < size {
		want := size
		if n < sniff {
			want = sniff
		}
		m, err := syscall.Read(fd, data[n:want])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, buf
		}
		if m == 0 {
			break // the file shrank
		}
		if n < sniff && n+m >= sniff && isBinary(data[:n+m]) {
			return nil, buf
		}
		n += m
	}
	if n < sniff && isBinary(data[:n]) {
		return nil, buf
	}
	return data[:n], buf
}
