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

// checkHolderSampled is checkHolder for the first debugAlways forks and
// joins on w during each task its main loop runs (the carrier restarts
// the count), and after that for the 256th, 1024th, 4096th, ...: a misuse
// is caught before it touches the deque in all but very long tasks (and
// there, misuse repeats: a captured worker is used on every iteration of
// a loop), while deep recursion, where every check walks a long stack,
// pays for a logarithmic number of checks beyond the first few. The count
// is atomic, unlike the rest of w's owner-only state, because the calls it
// guards may come from the wrong goroutine: that is what it is for.
func (w *Worker) checkHolderSampled(op string) {
	t := w.debugTick.Add(1) - 1
	// Beyond debugAlways, t is a power of 4: a single bit at an even position.
	if t < debugAlways || (t&(t-1) == 0 && t&0x55555555 == t) {
		w.checkHolder(op)
	}
}

// debugAlways is how many forks and joins of a task are always checked.
const debugAlways = 64

// CheckHolder panics, naming op, unless the calling goroutine holds w. It
// costs a runtime.Stack call: callers run it only when DebugChecks is on.
func (w *Worker) CheckHolder(op string) { w.checkHolder(op) }

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
