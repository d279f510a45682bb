//go:build linux

package parallel

import (
	"syscall"

	"github.com/forkjoin/fj/internal/sched"
)

// mapArena maps n bytes of fresh memory, zero, outside the Go heap, or
// returns nil: an arena (sort_key_scratch.md, K5), counted in
// sched.ScratchBytes until it is unmapped (K8).
func mapArena(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil
	}
	sched.ScratchBytes.Add(int64(len(b)))
	return b
}

// unmapArena unmaps b, which mapArena returned (K7, K8).
func unmapArena(b []byte) {
	if syscall.Munmap(b) == nil {
		sched.ScratchBytes.Add(-int64(len(b)))
	}
}
