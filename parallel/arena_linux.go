//go:build linux

package parallel

import "syscall"

// mapArena maps n bytes of fresh memory, zero, outside the Go heap, or
// returns nil: an arena (sort_key_scratch.md, K5).
func mapArena(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	return b
}

// unmapArena unmaps b (K7).
func unmapArena(b []byte) { _ = syscall.Munmap(b) }
