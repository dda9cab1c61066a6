//go:build !unix

package tools

import (
	"io"
	"os"
)

// readForGrep reads the regular file at abs into buf (reused between
// files). It returns nil for what grep skips: files that are missing, not
// regular, larger than limit, or binary (a NUL in the first 8 KiB).
func readForGrep(abs string, buf []byte, limit int64) ([]byte, []byte) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, buf
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() > limit {
		return nil, buf
	}
	size := int(st.Size())
	if cap(buf) < size {
		buf = make([]byte, size, size+size/4)
	}
	n, err := io.ReadFull(f, buf[:size])
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, buf
	}
	if isBinary(buf[:n]) {
		return nil, buf
	}
	return buf[:n], buf
}
