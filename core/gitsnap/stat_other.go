//go:build !(linux || openbsd || dragonfly || darwin || freebsd || netbsd)

package gitsnap

import "os"

// inodeCtime: no inode or change time here (Windows keeps neither in
// fi); a file's size and mtime alone tell its changes.
func inodeCtime(os.FileInfo) (ino uint64, ctime int64) { return 0, 0 }
