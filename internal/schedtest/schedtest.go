// Package schedtest gives tests of the layers above the scheduler access to
// its primitives, from the public types. It is imported only from _test.go
// files.
package schedtest

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// W returns the scheduler's view of a worker, for tests that use the
// primitives under the public API (WaitFor, Spawn, ...).
func W(w *pool.Worker) *sched.Worker { return (*sched.Worker)(w) }

// P returns the scheduler's view of a pool (Submit, Wait, ...).
func P(p *pool.Pool) *sched.Pool { return (*sched.Pool)(p) }

// Task adapts a function to sched.Runnable for Submit and Spawn. f must not
// panic: a panic escaping Run kills the process.
type Task struct {
	sched.Task
	f func(w *pool.Worker)
}

// NewTask returns a task that runs f.
func NewTask(f func(w *pool.Worker)) *sched.Task {
	t := &Task{f: f}
	t.Task.Init(t)
	return &t.Task
}

// Run implements sched.Runnable.
func (t *Task) Run(w *sched.Worker) { t.f((*pool.Worker)(w)) }
