package sched

import "unsafe"

// The typed forms of the job type: the joins, futures and group tasks
// that forkjoin and taskblock offer users, wrapped there in one line
// each. Their job types are below; the functions that fork and join them
// (Join, JoinArgs, JoinSlice, Spawn and Spawned.Join, and a group task's
// fork) are generated into zjoin.go from the one skeleton in gen_joins.go,
// which states the steps below. They are generic in
// W, the public worker type (pool.Worker, which consists of a Worker
// alone: As converts at no cost), so that the functions users pass, which
// take a *pool.Worker, are called directly, with no adapter closure. Join
// and JoinArgs take the public worker itself, so that forkjoin's one-line
// wrappers around them cost the inliner little enough to be inlined into
// the user's code: a fork is then one call, not two.
//
// A join of two halves, in every form:
//
//	fork the second half (F1, E1), recycling the job found in the slot
//	    the fork fills if it is of the right type (J4);
//	defer the test that turns a panic or Goexit unwinding the join into
//	    the join's panic, after dropping or waiting for the forked half
//	    (unwound);
//	run the first half here;
//	take the second half back and run it here (J1, J2), or wait for it
//	    to finish elsewhere (J3) and read its outcome;
//	recycle the job (J4).

// funcJob is a forked closure: Join's fb.
type funcJob[W, R any] struct {
	job
	f   func(*W) R
	res R
}

func (j *funcJob[W, R]) Run(w *Worker) {
	j.complete(w, func() { j.res = j.f((*W)(unsafe.Pointer(w))) })
}

// argJob is a forked call f(w, arg): JoinArgs's second call. f is a plain
// function value and arg travels by value, so nothing is allocated.
type argJob[W, A, R any] struct {
	job
	f   func(*W, A) R
	arg A
	res R
}

func (j *argJob[W, A, R]) Run(w *Worker) {
	j.complete(w, func() { j.res = j.f((*W)(unsafe.Pointer(w)), j.arg) })
}

// sliceJob is a forked half of a JoinSlice: the calls f(w, args[i]), their
// results stored in out or folded with combine into res.
type sliceJob[W, A, R any] struct {
	job
	f       func(*W, A) R
	args    []A
	out     []R
	combine func(a, b R) R
	res     R
}

func (j *sliceJob[W, A, R]) Run(w *Worker) {
	j.complete(w, func() { j.res = JoinSlice(w, j.f, j.args, j.out, j.combine) })
}

// spawnJob is a forked closure that its forker joins exactly once, from
// the same worker (forkjoin.Spawn): Join's funcJob with the join apart
// from the fork, and so recycled as Join's is (J4). gen numbers its forks
// and joins: odd while forked, even once joined, so that a second join of
// one fork, which would find the job recycled or forked again, is caught.
// Only the worker that forked it reads or writes gen, f and owner between
// a fork and its join (a thief runs it, reading f; the fork's publication
// and the latch order that).
type spawnJob[W, T any] struct {
	job
	f     func(*W) T
	res   T
	owner *Worker
	gen   uint64
}

// Run lets go of f before it calls it: a Task dropped without a join
// keeps its job in the deque slot it was pushed to, and must not keep
// what f captured (issue 44).
func (j *spawnJob[W, T]) Run(w *Worker) {
	j.complete(w, func() {
		f := j.f
		j.f = nil
		j.res = f((*W)(unsafe.Pointer(w)))
	})
}

// Spawned is a fork of Spawn, to be joined once: forkjoin.Task.
type Spawned[W, T any] struct {
	j   *spawnJob[W, T]
	gen uint64
}

// Future is the job of a forkjoin.Future: a forked closure whose outcome
// stays readable, by any number of joins from any task, for as long as
// the Future is. It is not recycled: whoever holds it may join it again.
type Future[W, T any] struct {
	job
	f   func(*W) T
	res T
	// Its task's forker is the worker whose deque it was pushed on, and
	// its slot the slot it was pushed to.
}

// Run lets go of fn before it calls it: a Future dropped without a join,
// once stolen, stays in its forker's deque slot until the slot is reused,
// and must not keep what fn captured (issue 44).
func (f *Future[W, T]) Run(w *Worker) {
	f.complete(w, func() {
		fn := f.f
		f.f = nil
		f.res = fn((*W)(unsafe.Pointer(w)))
	})
}

// Fork makes f the future of fn and forks it onto w (F1, E1). f must be
// new: a Future's zero value, allocated by the caller (forkjoin.Fork
// embeds one in its own type, so that a fork allocates once).
func (f *Future[W, T]) Fork(w *Worker, fn func(*W) T) {
	if w.checkDue() {
		w.checkFork("forkjoin.Fork") // panics, naming the mistake (debug.go)
	}
	f.f, f.oneShot = fn, true
	f.bind(f)
	w.fork(&f.task)
	f.slot = w.dq.Slot(w.dq.Bottom() - 1) // unless it overflowed (spilled): then no slot holds it
	raceHandOff(w)                        // stall.md, Y6: the program's code runs next
}

// Join returns the future's result, running it here if its forker joins it
// while it is still at the bottom of the forker's deque (J1), and waiting
// for it otherwise (J3); it re-raises the future's panic.
func (f *Future[W, T]) Join(w *Worker) T {
	if w.checkDue() {
		w.checkFork("forkjoin.Future.Join") // panics, naming the mistake (debug.go)
	}
	if !f.done.IsSet() {
		if w != f.forker {
			w.WaitFor(&f.done)
		} else {
			if w.join(&f.job) {
				// Taken back: run it here. Its outcome is recorded and
				// the latch set, as if it had run elsewhere, for other
				// joins of the same future. Guard, not Capture: a Goexit
				// in it is the future's own, recorded for its other
				// joiners, and the task running this join reports that
				// it was aborted by it.
				fn := f.f
				f.f = nil
				w.Guard(func() { f.res = fn((*W)(unsafe.Pointer(w))) }, f.record)
			}
		}
	}
	if w == f.forker {
		f.forget(w) // also when it finished elsewhere before this join
	}
	raceHandOff(w) // stall.md, Y6: the program's code runs next
	if p := f.panic; p != nil {
		panic(p.Err)
	}
	return f.res
}

// forget makes the slot of f's forker's deque that f was pushed to let go
// of it, once f has left the deque for good (taken back or run
// elsewhere): a future is never recycled, and the slot must not keep it,
// and its result, reachable after its joiner has dropped it. Only the
// goroutine holding f's forker may call it.
func (f *Future[W, T]) forget(w *Worker) {
	if !f.spilled.Load() {
		w.dq.Forget(int64(f.slot), &f.task)
	}
}

// Done reports whether the future's task has finished.
func (f *Future[W, T]) Done() bool { return f.done.IsSet() }
