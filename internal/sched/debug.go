package sched

import "fmt"

// The debug checks catch a *Worker used on a goroutine that is not running
// its task: a worker captured by a closure that runs elsewhere (the body of
// a parallel loop using the enclosing task's worker instead of its own), or
// handed to a goroutine the user started. Such a call would push onto, or
// pop from, a deque that another goroutine owns, corrupting it. Telling
// goroutines apart costs a runtime.Stack call (microseconds, and more on a
// deep stack), far more than a fork, so the checks exist only in builds
// with the fjdebug tag or the race detector (debug_on.go). There, entry
// points are always checked, and forks and joins on the schedule of
// checkHolderSampled.

// mustHold panics, naming op, unless the calling goroutine holds w (one
// goroutine id read and a load: identity.go).
func (w *Worker) mustHold(op string) {
	if !w.Held() {
		w.notHeld(op)
	}
}

// Check panics, naming op, unless the calling goroutine holds w: the
// misuse check of the entry points given a *Worker.
func (w *Worker) Check(op string) { w.mustHold(op) }

// notHeld panics with the message for a *Worker used on a goroutine that
// does not hold it.
//
//go:noinline
func (w *Worker) notHeld(op string) {
	panic(fmt.Sprintf("fj: %s with the *pool.Worker %d of pool %q on a goroutine that is not running its task "+
		"(goroutine %d; the worker is held by goroutine %d). A *pool.Worker belongs to the function it was "+
		"handed to: use the worker your own function received (for example the w of a loop body, not one "+
		"captured from an enclosing task), never pass it to a goroutine you start, and do not use it "+
		"inside a blocking section or after that function returned.",
		op, w.id, w.pool.name, goid(), w.holder.Load()))
}
