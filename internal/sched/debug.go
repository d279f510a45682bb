package sched

import "fmt"

// The debug checks catch a *Worker used on a goroutine that is not running
// its task: a worker captured by a closure that runs elsewhere (the body of
// a parallel loop using the enclosing task's worker instead of its own), or
// handed to a goroutine the user started. Such a call would push onto, or
// pop from, a deque that another goroutine owns, corrupting it. Telling
// goroutines apart costs a runtime.Stack call (microseconds), far more than
// a fork, so the checks exist only in builds with the fjdebug tag or the
// race detector (debug_on.go), and there a fork is checked once in
// checkEvery; joins that wait, and entry points, always are.

// checkEvery is how often a debug build checks a fork: misuse repeats (a
// captured worker is used on every iteration), so sampling finds it at a
// fraction of the cost.
const checkEvery = 8

// checkHolderSampled is checkHolder for every checkEvery-th call on w.
func (w *Worker) checkHolderSampled(op string) {
	w.debugTick++
	if w.debugTick%checkEvery == 1 {
		w.checkHolder(op)
	}
}

// CheckHolder panics, naming op, unless the calling goroutine holds w. It
// costs a runtime.Stack call: callers run it only when DebugChecks is on.
func (w *Worker) CheckHolder(op string) { w.checkHolder(op) }

// Goid returns the calling goroutine's id (microseconds: debug use only).
func Goid() int64 { return goid() }

// checkHolder panics unless the calling goroutine holds w.
func (w *Worker) checkHolder(op string) {
	if g := goid(); g != w.holder.Load() {
		panic(fmt.Sprintf("fj: %s with the *pool.Worker %d of pool %q on a goroutine that is not running its task "+
			"(goroutine %d; the worker is held by goroutine %d). A *pool.Worker belongs to the function it was "+
			"handed to: use the worker your own function received (for example the w of a loop body, not one "+
			"captured from an enclosing task), and never pass it to a goroutine you start.",
			op, w.id, w.pool.name, g, w.holder.Load()))
	}
}
