package forkjoin

import "github.com/forkjoin/fj/pool"

// Invoke runs f on r and returns its result. On a *pool.Worker (inside a
// task) it calls f on the calling goroutine. On a *pool.Pool it submits f
// from the calling goroutine, which need not be a worker, and blocks until
// f has returned; f then forks onto the worker it runs on. Called on a
// *pool.Pool from inside one of that pool's own tasks, it runs f on the
// caller's worker instead of blocking it (see pool.Pool.Run). A panic in f
// is re-raised in the caller as a *pool.PanicError. Invoke on a closed pool
// panics.
//
// Invoke runs one function and returns its result; parallel.Do runs
// several functions for their effects.
func Invoke[T any](r pool.Runner, f func(w *pool.Worker) T) T {
	if f == nil {
		panic("forkjoin: Invoke with a nil function")
	}
	var res T
	switch r := r.(type) {
	case *pool.Worker:
		if r == nil {
			panic("forkjoin: Invoke with a nil *pool.Worker")
		}
		// A static call, so the closure and res stay on the stack.
		r.Run(func(w *pool.Worker) { res = f(w) })
	case *pool.Pool:
		r.Run(func(w *pool.Worker) { res = f(w) })
	case nil:
		panic("forkjoin: Invoke with a nil Runner")
	default:
		r.Run(func(w *pool.Worker) { res = f(w) })
	}
	return res
}
