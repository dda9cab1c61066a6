//go:build !unix

package provider

// newBlock returns an empty buffer of capacity n. Without mmap it is on
// the heap.
func newBlock(n int) []byte { return make([]byte, 0, n) }

// freeBlock leaves the block to the garbage collector.
func freeBlock([]byte) {}
