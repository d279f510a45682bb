//go:build linux && amd64 && !fjnoprivate

package wsdeque

import "syscall"

// The heavy barrier of the asymmetric Dekker handshake (wsdeque.md, H1):
// membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) makes every thread of the
// process that is running at the time execute a full memory barrier
// before the call returns, and a thread that is not running passes
// through the kernel's context switch, a full barrier too. So after it
// returns, every store the owner made before its barrier point is visible
// to the caller, and every load the owner makes after that point sees
// what the caller stored before the call. It costs the caller about 2-3
// µs and each running thread an interrupt; the owner's fork and pop pay
// nothing for it.

const (
	sysMembarrier                         = 324 // SYS_membarrier on linux/amd64
	membarrierCmdPrivateExpedited         = 1 << 3
	membarrierCmdRegisterPrivateExpedited = 1 << 4
)

// registerBarrier registers the process for the expedited private
// membarrier and reports whether that worked (kernel 4.14 and later,
// unless a seccomp filter forbids it). Without it, private steals are off.
func registerBarrier() bool {
	_, _, e := syscall.Syscall(sysMembarrier, membarrierCmdRegisterPrivateExpedited, 0, 0)
	return e == 0
}

// heavyBarrier is H1. It reports false if the barrier failed, in which
// case the caller must not rely on it.
func heavyBarrier() bool {
	_, _, e := syscall.Syscall(sysMembarrier, membarrierCmdPrivateExpedited, 0, 0)
	return e == 0
}
