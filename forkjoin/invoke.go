package forkjoin

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Invoke runs f on r and returns its result. Called with a *pool.Worker
// (inside a task), or with a *pool.Pool from inside one of that pool's own
// tasks, it calls f on the calling goroutine, on the caller's worker.
// Called with a *pool.Pool from any other goroutine, it submits f and
// blocks until f has returned; f then forks onto the worker it runs on. A
// panic in f is re-raised in the caller as a *pool.PanicError. Invoke on a
// closed pool from outside it panics (see pool.Enter).
//
// Invoke runs one function and returns its result; parallel.Do runs
// several functions for their effects.
func Invoke[T any](r pool.Runner, f func(w *pool.Worker) T) (res T) {
	if f == nil {
		panic("forkjoin: Invoke with a nil function")
	}
	return sched.Call(r, pool.Enter(r), f)
}
