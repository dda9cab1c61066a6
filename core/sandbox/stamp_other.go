//go:build !linux

package sandbox

import "os"

// changeStamp: size and mtime alone elsewhere (the mounts that need the
// rest are Linux's).
func changeStamp(os.FileInfo) (ino uint64, ctime int64) { return 0, 0 }
