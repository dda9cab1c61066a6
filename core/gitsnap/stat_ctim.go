//go:build linux || openbsd || dragonfly

package gitsnap

import (
	"os"
	"syscall"
)

// inodeCtime is fi's inode and change time (ns), which a rename over the
// file or a chmod changes when its size and mtime may not.
func inodeCtime(fi os.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino), int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec)
	}
	return 0, 0
}
