package forkjoin

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Task is the pending result of a function started with Spawn: the Cilk
// idiom's spawn, whose sync is Join. Its forker joins it exactly once,
// from the task that spawned it.
type Task[T any] struct {
	s sched.Spawned[pool.Worker, T]
}

// Spawn starts f(w) as a task on w's deque, where an idle worker may steal
// it, and returns a Task that the calling task must join exactly once,
// with the same w, before it returns: spawn, compute, sync, as in Cilk.
// It must be called from a task running on w, with w.
//
// Spawn is Fork for the common case: its Task is a value, not a pointer,
// and the task object behind it is recycled once joined, as Join's are,
// so that recursive code that spawns and joins allocates nothing but its
// closure, and costs about what Join costs. Use Fork and Future instead
// when a result is read more than once, from another task, or not at all.
// Joining a Task twice, or from another worker, panics.
//
// Like Future, and unlike Join, a Task does not wait for itself: if the
// spawning task returns or panics without joining it, it still runs, but
// its result and its panic are lost.
func Spawn[T any](w *pool.Worker, f func(w *pool.Worker) T) Task[T] {
	return Task[T]{sched.Spawn(w, f)} // checks its arguments
}

// Join returns the task's result, and must be called exactly once, by the
// task that spawned it, with the same w. If the task has not started and
// sits at the bottom of w's deque, Join runs it inline; otherwise the
// calling task parks, without blocking w, until it has finished. If it
// panicked, Join panics with the *pool.PanicError that carries the
// original value and stack.
func (t Task[T]) Join(w *pool.Worker) T {
	return t.s.Join(w) // checks its arguments
}
