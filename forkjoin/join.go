package forkjoin

import (
	"unsafe"

	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Join runs fa and fb, potentially in parallel, and returns both results.
// It must be called from a task running on w, with w.
//
// fb is forked onto w's deque, where an idle worker may steal it, and fa
// runs right away on the calling goroutine. When fa returns, Join takes fb
// back if nobody stole it and runs it inline too, so on a busy pool a Join
// costs little more than two function calls and the allocation of the
// caller's closures. If fb was stolen, Join waits for it without blocking
// w: the calling task parks and w runs other tasks until fb has finished
// (see the pool package documentation, "Waiting").
//
// If fa or fb panics, Join waits until the other has finished (or drops fb
// if it has not started yet), then panics with a *pool.PanicError carrying
// the first panic's value and the stack where it happened; if both
// panicked, the one captured first is raised, with the other in its Later.
//
// When both halves are the same function on different arguments, JoinArgs
// does the same without closures, and allocates nothing.
func Join[A, B any](w *pool.Worker, fa func(w *pool.Worker) A, fb func(w *pool.Worker) B) (a A, b B) {
	return sched.Join(w, fa, fb) // checks its arguments

}

// sw converts a public worker to the scheduler's: the same memory
// (sched.As), written out so that the one-line forms above are inlined
// into their callers (a generic call would cost the inliner too much).
func sw(w *pool.Worker) *sched.Worker { return (*sched.Worker)(unsafe.Pointer(w)) }
