package forkjoin

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Future is the pending result of a function started with Fork.
type Future[T any] struct {
	j sched.FutureState[pool.Worker, T] // its state: a pointer to the scheduler's job, and the outcome once joined
}

// Fork starts f(w) as a task on w's deque, where an idle worker may steal
// it, and returns its Future. It must be called from a task running on w,
// with w. Every Future should be joined: Join is where its result and its
// panic, if any, come out. An unjoined future still runs, but a panic in it
// is lost.
//
// A fork allocates nothing but the caller's closure where the Future does
// not outlive the function that forked it (the compiler keeps it in that
// function's frame; the task behind it is recycled, as Spawn's and Join's
// are). A Future that escapes, stored or passed to another task, costs one
// allocation more. Where the forked function is the same as the forker's,
// or there are many to fork and join at once, JoinArgs and JoinAll need
// no closure.
func Fork[T any](w *pool.Worker, f func(w *pool.Worker) T) *Future[T] {
	fu := new(Future[T])
	fu.j.Fork(w, f) // checks its arguments
	return fu
}

// Join returns the future's result, waiting for it if necessary, and must
// be called from a task running on w, with w. If the task has not started
// and sits at the bottom of w's own deque, Join runs it inline; otherwise
// the calling task parks, without blocking w, until the future's task has
// finished. If the task panicked, Join panics with the *pool.PanicError
// that carries the original value and stack.
//
// Join may be called any number of times, from any task of the same pool;
// every call returns the same result (or panics the same way).
func (f *Future[T]) Join(w *pool.Worker) T {
	if f == nil {
		panic("forkjoin: Join on a nil *Future")
	}
	if w == nil {
		panic("forkjoin: Join with a nil *pool.Worker")
	}
	return f.j.Join(w)
}

// Done reports whether the future's task has finished, without waiting.
func (f *Future[T]) Done() bool {
	if f == nil {
		panic("forkjoin: Done on a nil *Future")
	}
	return f.j.Done()
}
