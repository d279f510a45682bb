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

// runInline runs the job on its forker's goroutine, which took it back
// (Future.Join): like Run, but with one deferred call instead of Try's
// two frames, since the caller is itself inside a task whose capture sees
// whatever leaves here. As in Join, a nil recovered value (a Goexit, or a
// nil panic under GODEBUG=panicnil=1) is raised again as a *PanicError: a
// nil panic is thereby reported, and a Goexit resumes after the task's
// capture recovers it (a recover cannot stop a Goexit).
func (j *job[T]) runInline(w *sched.Worker) {
	returned := false
	defer func() {
		if returned {
			return
		}
		r := recover()
		j.err = sched.Recovered(r)
		j.f = nil
		j.done.Set()
		if r == nil {
			panic(j.err)
		}
	}()
	j.res = j.f((*pool.Worker)(w))
	returned = true
	j.f = nil
	j.done.Set()
}
