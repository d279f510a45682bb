package forkjoin

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// job is a forked function and its outcome: the one allocation a fork
// costs (besides the caller's closure). Its Task is what sits in a deque.
type job[T any] struct {
	sched.Task
	f    func(*pool.Worker) T
	done sched.Latch
	err  *pool.PanicError
	res  T
}

// Run runs the job on whichever worker took it and records how it ended.
// It is called for jobs taken from a deque by any worker; a job
// its forker takes back is run inline without it (see Join).
func (j *job[T]) Run(w *sched.Worker) {
	defer func() {
		// Drop the closure: a deque slot may keep pointing at this job
		// until it is reused, and should not keep what f captured alive.
		j.f = nil
		j.done.Set()
	}()
	w.Try(&j.err, func() { j.res = j.f((*pool.Worker)(w)) })
}
