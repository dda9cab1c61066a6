//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package store

import "os"

// tryLock has no OS lock to take on this platform: every open succeeds, as
// before sessions were locked.
func tryLock(*os.File) (bool, error) { return true, nil }
