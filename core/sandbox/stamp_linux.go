package sandbox

import (
	"os"
	"syscall"
)

// changeStamp is fi's inode and change time (ns).
func changeStamp(fi os.FileInfo) (ino uint64, ctime int64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino, st.Ctim.Sec*1e9 + st.Ctim.Nsec
	}
	return 0, 0
}
