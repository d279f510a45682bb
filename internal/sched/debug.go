package sched

import (
	"fmt"

	gid "github.com/petermattis/goid"
)

// The misuse checks catch a *Worker used on a goroutine that does not
// hold it: a worker captured by a closure that runs elsewhere (the body of
// a parallel loop using the enclosing task's worker instead of its own),
// handed to a goroutine the user started, used from a task of another
// pool, or kept after its task returned. Such a call would push onto, or
// pop from, a deque that another goroutine owns, corrupting it: the check
// must come before the call touches the worker, every time. A sample
// (as fj took before: the first forks of each task, then one in 1024,
// counted on the worker) lets exactly the classic mistake through: a
// loop body forking with the enclosing task's worker, whose count is past
// its first forks, reaches the deque unchecked.
//
// The check is "does w.holder hold the calling goroutine's id?"
// (identity.go, I3): a load of w.holder, on the owner's line that the
// fork touches anyway, and the goroutine id, which
// github.com/petermattis/goid reads from the runtime's g through a
// three-instruction assembly stub. checkDue is that comparison, small
// enough to be inlined into every fork and join: about a nanosecond, in
// every build, on every call.
//
// Which calls check, always and in every build, before touching the
// worker: forkjoin.Join, JoinArgs, JoinAll, JoinReduce, Fork,
// Future.Join, Spawn and Task.Join (checkDue, then checkFork); every call given a *Worker as
// its Runner (pool.Enter: forkjoin.Invoke, taskblock.Define and
// DefineErr, pool.Region, every parallel call), pool.Worker.Run,
// taskblock's RunFrom and GoFrom, and parallel.PerWorker.Get (Check).
// taskblock's Run and Go take no worker: they find the caller's from its
// goroutine id (Caller) and panic when it holds none.
//
// The one exception is a platform where the fast id is not available or
// failed its start-up test (I1; goid reads it fast on 386, amd64, arm,
// arm64 and s390x with the gc compiler): there every id read parses
// runtime.Stack, microseconds, and checking every fork would make a fork
// a hundred times dearer. There, and only there, forks and joins sample
// the check as before (checkFork: the first checkAlways of each task the
// main loop runs, then one in checkEvery) unless the build has debug
// checks (the fjdebug tag or the race detector: debug_on.go); the other
// calls above still check every time.
//
// A check can only catch what the schedule shows it. On two workers a
// captured worker is caught when a piece is stolen: it runs on another
// goroutine, with another *Worker. On one worker (GOMAXPROCS=1, or
// pool.WithWorkers(1)) nothing is stolen: a loop runs its bodies on its
// caller's goroutine and worker, a join takes its second half back, and
// the captured worker is the body's own, so the check passes. Builds with
// debug checks (debugChecks: the race detector or the fjdebug tag) check
// more, never schedule differently, so that the race detector watches the
// schedule that ships; the fjvet analyzer finds a captured worker before
// the program runs.

// mustOwn panics unless the calling goroutine holds w, in builds with
// debug checks (plain builds compile it away): every owner-only operation
// that a frame of fj's reaches after the program's code returned asks it,
// so that a frame that forgot its re-check (stall.md, Y6) fails in the
// tests, under the race detector, instead of touching a worker that a
// hand-over gave to another goroutine.
func (w *Worker) mustOwn() {
	// The holder's id, or its negation while a hand-over decides (Y2),
	// during which the holder goes on until it waits.
	if debugChecks {
		if g, h := goid(), w.holder.Load(); h != g && h != -g {
			w.notOwner()
		}
	}
}

//go:noinline
func (w *Worker) notOwner() {
	panic(fmt.Sprintf("fj: internal error: goroutine %d touched worker %d of pool %q, which goroutine %d holds "+
		"(a frame of fj's without its re-check: stall.md, Y6)", goid(), w.id, w.pool.name, w.holder.Load()))
}

// checkDue reports whether the fork path must look closer: true when the
// calling goroutine does not hold w, and always where the fast id is
// unavailable (then checkFork decides). goidFast is tested first, so that
// gid.Get, which parses stacks on platforms without the fast id, is not
// called there. It is inlined into the forks and joins (an inline cost
// under the budget: one call, to goid's stub).
func (w *Worker) checkDue() bool {
	return !goidFast || gid.Get() != w.holder.Load()
}

// checkFork is the fork path's check once checkDue reported true: it
// panics, naming op, unless the calling goroutine holds w. Where the fast
// id is unavailable, it samples (see above) in builds without debug
// checks. The count is a plain field: a misuse from another goroutine
// races on it, which can only make a sampled check come earlier or later.
//
//go:noinline
func (w *Worker) checkFork(op string) {
	if !goidFast && !debugChecks {
		w.checks++
		if w.checks > checkAlways && w.checks%checkEvery != 0 {
			return
		}
	}
	w.mustHold(op)
}

const (
	checkAlways = 64
	checkEvery  = 1024
)

// mustHold panics, naming op, unless the calling goroutine holds w (one
// goroutine id read and a load: identity.go), or gets it back: a holder
// over whose blocked task the stall watch handed w on waits here until w
// is handed back (stall.md, Y5).
func (w *Worker) mustHold(op string) {
	if !w.held() {
		w.notHeld(op)
	}
}

// Check panics, naming op, unless the calling goroutine holds w: the
// misuse check of the calls given a *Worker other than forks and joins,
// made every time, in every build (the inlined comparison first, then the
// exact one, which also serves where the fast id is unavailable).
func (w *Worker) Check(op string) {
	if w.checkDue() {
		w.mustHold(op)
	}
}

// notHeld panics with the message for a *Worker used on a goroutine that
// does not hold it, unless that goroutine held it when the stall watch
// handed it on, and now gets it back (stall.md, Y5).
//
//go:noinline
func (w *Worker) notHeld(op string) {
	if w.reclaim(goid()) {
		return
	}
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
