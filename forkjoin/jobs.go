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
	j := sched.Reuse[funcJob[R]](s)
	if j == nil {
		j = new(funcJob[R])
		j.Init(j)
	}
	j.f = f
	s.Fork(&j.Task)
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

// rangeJob is a forked half of a JoinAll: the calls f(w, args[i]) for its
// args, whose results go to res.
type rangeJob[A, R any] struct {
	sched.Job
	f    func(*pool.Worker, A) R
	args []A
	res  []R
}

func (j *rangeJob[A, R]) Run(w *sched.Worker) {
	j.Complete(w, func() { joinAll(pw(w), j.f, j.args, j.res) })
}

// finish completes j after Join reported that it ran elsewhere (J3): the
// job is the joiner's alone again. It returns how the job ended, after
// resetting and recycling it. clear drops what the job holds.
func finish(s *sched.Worker, j *sched.Job, clear func()) *sched.Panic {
	p := j.Panic()
	clear()
	j.Reset()
	s.Recycle(&j.Task)
	return p
}

// abandon handles a forked job whose forker panicked before joining it:
// the job is dropped if it has not started (J1) and waited for otherwise
// (J3), so that no task of a join outlives it. It returns the error to
// raise: the first of p, the forker's panic, and the job's own, if it
// panicked too, with the other attached (sched.First).
func abandon(s *sched.Worker, j *sched.Job, p *sched.Panic, clear func()) error {
	if s.Join(j) {
		clear() // never run: drop it, and what it captured
		s.Recycle(&j.Task)
		return p.Err
	}
	return sched.First(p, finish(s, j, clear))
}
