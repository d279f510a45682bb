//go:build linux

package parallel

import (
	"sync/atomic"
	"syscall"
	"unsafe"
)

// madvPopulateWrite is Linux's MADV_POPULATE_WRITE (5.14 and later).
const madvPopulateWrite = 23

// noPopulate is set once the kernel has refused MADV_POPULATE_WRITE as
// unknown (EINVAL, before 5.14): later calls do not ask again.
var noPopulate atomic.Bool

// prefault maps the n bytes at p, whole pages (p and n are multiples of
// pageBytes), writable, as a write to every page would, in one system
// call instead of a fault per page; it reports false if the kernel did
// not, and the caller then writes to the pages itself (sort_key_scratch.md,
// K3).
func prefault(p unsafe.Pointer, n uintptr) bool {
	if noPopulate.Load() {
		return false
	}
	err := syscall.Madvise(unsafe.Slice((*byte)(p), n), madvPopulateWrite)
	if err == syscall.EINVAL {
		noPopulate.Store(true)
	}
	return err == nil
}
