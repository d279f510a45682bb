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
// (Future.Join), and records how it ended as Run does: Try's two frames,
// written out for this job so that no closure is made per join. protect
// recovers a panic, any value; if control does not come back from it, a
// runtime.Goexit is unwinding, reported as Try reports it.
func (j *job[T]) runInline(w *sched.Worker) {
	returned := false
	defer func() {
		if !returned {
			j.err = w.GoexitError()
		}
		j.f = nil
		j.done.Set()
	}()
	j.err = j.protect(w)
	returned = true
}

// protect runs j.f and returns its panic, if any (see sched.Protect).
func (j *job[T]) protect(w *sched.Worker) (pe *pool.PanicError) {
	normal := false
	defer func() {
		if !normal {
			pe = sched.Recovered(recover())
		}
	}()
	j.res = j.f((*pool.Worker)(w))
	normal = true
	return nil
}
