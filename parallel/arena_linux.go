//go:build linux

package parallel

import "syscall"

// mapArena maps n bytes of fresh memory, zero, outside the Go heap, or
// returns nil.
func mapArena(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	return b
}

// unmapArena unmaps b.
func unmapArena(b []byte) { _ = syscall.Munmap(b) }
