// Package schedtest gives tests of the layers above the scheduler access to
// its primitives from the public types (pool.Worker, pool.Pool), which
// consist of the scheduler's alone. It is imported only from _test.go
// files, and imports nothing public.
package schedtest

import "github.com/forkjoin/fj/internal/sched"

// W returns the scheduler's view of a worker (a *pool.Worker), for tests
// that use the primitives under the public API (WaitFor, Fork, ...).
func W[P any](w *P) *sched.Worker { return sched.From[sched.Worker](w) }

// P returns the scheduler's view of a pool (a *pool.Pool): Submit, Wait, ...
func P[P any](p *P) *sched.Pool { return sched.From[sched.Pool](p) }

// Task adapts a function to sched.Runnable for Submit and Fork. f must not
// panic: a panic escaping Run kills the process.
type Task[P any] struct {
	sched.Task
	f func(w *P)
}

// NewTask returns a task that runs f; P is the public worker type.
func NewTask[P any](f func(w *P)) *sched.Task {
	t := &Task[P]{f: f}
	t.Init(t)
	return &t.Task
}

// Run implements sched.Runnable.
func (t *Task[P]) Run(w *sched.Worker) { t.f(sched.As[P](w)) }
