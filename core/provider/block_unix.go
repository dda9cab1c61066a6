//go:build unix

package provider

import "syscall"

// newBlock returns an empty buffer of capacity n mapped outside the Go
// heap, or on the heap if the mapping fails. Its pages take memory only
// once written.
func newBlock(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, 0, n)
	}
	return b[:0]
}

// freeBlock returns a block from newBlock to the system; nothing may use
// it afterwards. Heap blocks are left to the garbage collector.
func freeBlock(b []byte) {
	syscall.Munmap(b[:cap(b)])
}
