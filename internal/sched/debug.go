package sched

import "fmt"

// The misuse checks catch a *Worker used on a goroutine that does not
// hold it: a worker captured by a closure that runs elsewhere (the body of
// a parallel loop using the enclosing task's worker instead of its own),
// handed to a goroutine the user started, or kept after its task returned.
// Such a call would push onto, or pop from, a deque that another goroutine
// owns, corrupting it. The check is a goroutine id read and a load
// (identity.go): about 2 ns. Every entry point given a *Worker makes it
// every time (pool.Enter, RunFrom, Worker.Run). On the fork path (a fork
// and its join, 30 ns with a closure, 10 with JoinArgs) that would be too
// much, so builds without debug checks sample it (checkDue): the first
// forks and joins of each task are all checked, which is where a captured
// worker is first misused (a loop body's first fork), and then one in
// checkEvery. Builds with the fjdebug tag or the race detector
// (debug_on.go) check every fork and join.

// checkDue reports whether the fork path's misuse check is due (see
// above): always in builds with debug checks, and otherwise for the first
// checkAlways forks and joins of each task the main loop runs and every
// checkEvery-th one after that. The count is a plain field: a misuse from
// another goroutine races on it, which can only make a check come earlier
// or later (builds with the race detector check every time and never
// touch it).
func (w *Worker) checkDue() bool {
	if debugChecks {
		return true
	}
	w.checks++
	return w.checks <= checkAlways || w.checks%checkEvery == 0
}

const (
	checkAlways = 64
	checkEvery  = 1024
)

// mustHold panics, naming op, unless the calling goroutine holds w (one
// goroutine id read and a load: identity.go).
func (w *Worker) mustHold(op string) {
	if !w.held() {
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
	if w.pool.InSection() {
		panic(SectionMisuse(op, w.pool))
	}
	panic(fmt.Sprintf("fj: %s with the *pool.Worker %d of pool %q on a goroutine that is not running its task "+
		"(goroutine %d; the worker is held by goroutine %d). A *pool.Worker belongs to the function it was "+
		"handed to: use the worker your own function received (for example the w of a loop body, not one "+
		"captured from an enclosing task), never pass it to a goroutine you start, and do not use it "+
		"inside a blocking section or after that function returned.",
		op, w.id, w.pool.name, goid(), w.holder.Load()))
}

// SectionMisuse is the message of a check that failed because the calling
// goroutine is inside a blocking section of a task of p (identity.md, I6):
// op, a call that needs the task's worker, was made in f, while the
// goroutine holds none.
func SectionMisuse(op string, p *Pool) string {
	return fmt.Sprintf("fj: %s inside a blocking section (pool.Blocking) of a task of pool %q: while f runs, "+
		"the goroutine holds no worker (its worker runs other tasks), so it may neither fork, join nor wait "+
		"with the task's *pool.Worker, nor wait for its task block. Do it after pool.Blocking returns, when "+
		"the task has its worker back; inside f, a call on the *pool.Pool runs as from outside the pool.",
		op, p.name)
}
