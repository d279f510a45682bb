package forkjoin

import (
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// The typed jobs of this package: the scheduler's Job (internal/sched,
// job.go: fork, take back, wait, recycle, capture) plus what is forked.
// Each is recycled through its forker's deque (J4), so a recursion forks
// without allocating anything but what the caller allocates itself.

// sw and pw convert between the public worker and the scheduler's: the same
// memory (sched.As).
func sw(w *pool.Worker) *sched.Worker { return sched.From[sched.Worker](w) }
func pw(w *sched.Worker) *pool.Worker { return sched.As[pool.Worker](w) }

// funcJob is a forked closure: Join's fb.
type funcJob[R any] struct {
	sched.Job
	f   func(*pool.Worker) R
	res R
}

// Run runs the job on the worker that took it from a queue (R1).
func (j *funcJob[R]) Run(w *sched.Worker) {
	j.Complete(w, func() { j.res = j.f(pw(w)) })
}

// forkFunc forks f onto s as a recycled funcJob.
func forkFunc[R any](s *sched.Worker, f func(*pool.Worker) R) *funcJob[R] {
	var j *funcJob[R]
	if t := s.Spare(); t != nil {
		j, _ = t.Runnable().(*funcJob[R])
	}
	if j == nil {
		j = &funcJob[R]{f: f}
		j.Init(j)
		s.Fork(&j.Task)
	} else {
		j.f = f
		if !s.ReforkFast(&j.Task) { // J4
			s.Refork(&j.Task)
		}
	}
	return j
}

// argJob is a forked call f(w, arg): JoinArgs's second call. f is a plain
// function value and arg travels by value, so nothing is allocated.
type argJob[A, R any] struct {
	sched.Job
	f   func(*pool.Worker, A) R
	arg A
	res R
}

func (j *argJob[A, R]) Run(w *sched.Worker) {
	j.Complete(w, func() { j.res = j.f(pw(w), j.arg) })
}

// sliceJob is a forked half of a JoinAll or JoinReduce: the calls
// f(w, args[i]), their results stored in out (JoinAll) or folded with
// combine into res (JoinReduce).
type sliceJob[A, R any] struct {
	sched.Job
	f       func(*pool.Worker, A) R
	args    []A
	out     []R
	combine func(a, b R) R
	res     R
}

func (j *sliceJob[A, R]) Run(w *sched.Worker) {
	j.Complete(w, func() { j.res = joinSlice(pw(w), j.f, j.args, j.out, j.combine) })
}

// stolen completes j after TakeBack reported that another worker took it:
// it waits for j to finish there (J3), after which the job is the
// joiner's alone again, lets take read its result, and returns how the job
// ended, after resetting and recycling it (J4).
func stolen(s *sched.Worker, j *sched.Job, take func()) *sched.Panic {
	s.Await(j)
	p := j.Panic()
	take()
	j.Reset()
	s.Recycle(&j.Task)
	return p
}
