package forkjoin

import "github.com/forkjoin/fj/pool"

// Invoke runs f on r and returns its result. On a *pool.Worker (inside a
// task) it calls f on the calling goroutine. On a *pool.Pool it submits f
// from the calling goroutine, which need not be a worker, and blocks until
// f has returned; f then forks onto the worker it runs on. A panic in f is
// re-raised in the caller as a *pool.PanicError. Invoke on a closed pool
// panics.
func Invoke[T any](r pool.Runner, f func(w *pool.Worker) T) T {
	if f == nil {
		panic("forkjoin: Invoke with a nil function")
	}
	var res T
	switch r := r.(type) {
	case *pool.Worker:
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
