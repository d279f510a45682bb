package sched

import "unsafe"

// The typed forms of the job type: the joins, futures and group tasks
// that forkjoin and taskblock offer users, wrapped there in one line
// each. Their job types are below (a Future's, whose joins follow a
// protocol of their own, is in future.go); the functions that fork and
// join them (Join, JoinArgs, JoinSlice, Spawn and Spawned.Join, and the
// forks of a Future and of a group task) are generated into zjoin.go from the one skeleton in gen_joins.go,
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
