//go:build !windows

package atomicfile

import (
	"os"
	"syscall"
	"testing"
)

// umask reads the process's umask (setting it back at once).
func umask(t *testing.T) os.FileMode {
	t.Helper()
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}
