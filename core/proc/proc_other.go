//go:build !linux

package proc

// awaitExit: the wait call blocks.
func awaitExit(int) {}
