package sched

// Take-back and join (job.go, J1-J3): how a join gets its forked half
// back, runs it inline, or waits for it to finish elsewhere, and how a
// panic unwinding a join drops or waits for it.

// join completes j, which w forked, and reports whether the caller must
// run it inline now (J1: it was taken back, and nobody else will run it);
// otherwise j has run elsewhere and finished (J3): j.panic tells how. It
// must be called by the goroutine holding w.
func (w *Worker) join(j *job) (inline bool) {
	if w.takeBack(j) {
		w.counts[countExecuted]++
		return true
	}
	w.WaitFor(&j.done)
	return false
}

// takeBack is J1 and J2: it reports whether j, which w forked, was taken
// back, and the caller must run it inline now (and count it executed);
// if not, another worker took it, and the caller waits for j.done (J3).
// The common case, j private at the bottom of the deque, is takeBackFast,
// inlined into the caller:
//
//	if w.takeBackFast(j) || w.takeBack(j) {
//		w.counts[countExecuted]++
//		// run it inline
//	}
//
// Every build takes the same path: builds with debug checks check more,
// they never schedule differently.
func (w *Worker) takeBack(j *job) bool {
	return w.dq.PopPrivate(&j.task) || w.takeBackSlow(&j.task)
}

// takeBackFast pops j if it is the private task at the bottom of w's
// deque and not the last item there (D3): no fence, no call. It reports
// false, having changed nothing, otherwise.
func (w *Worker) takeBackFast(j *job) bool {
	w.mustOwn()
	return w.dq.PopPrivate(&j.task)
}

// takeBackSlow is takeBack for a task that is not the private bottom: a
// published one, one that overflowed to the injector (claimed instead,
// if nobody has started it), or one that is gone. A different task at the
// bottom is put back (J2).
func (w *Worker) takeBackSlow(t *task) bool {
	if t.spilled.Load() {
		// It overflowed to the injector: whoever claims it runs it.
		// Taking it back here keeps a full deque from turning every
		// join into a park.
		if t.claimed.CompareAndSwap(false, true) {
			// Ours. Drop its entry too if it is still the newest of
			// the bucket it was put in (it usually is: joins come
			// back in reverse order of forks); an older one is
			// skipped when popped.
			if w.pool.inj.removeLast(uint32(w.id), t) {
				w.counts[countInjectorPops]++
			}
			return true
		}
		return false
	}
	x := w.dq.Pop()
	if x == t {
		w.publishIfDue() // E2
		return true
	}
	if x != nil {
		w.putBack(x)
	}
	return false
}

// putBack returns a task that the owner popped but may not run (J2) to
// the bottom of the deque, published (it may have been). It cannot fail:
// the pop made room. (If the joined task overflowed, was stolen or was
// taken back already, this is whatever is at the bottom now, an older
// task included; it goes back untouched.)
func (w *Worker) putBack(x *task) {
	w.dq.Push(x)
	w.dq.Publish()
	w.pool.notify(w)
}

// takeBackUntil pops tasks from the bottom of w's deque and runs them
// inline until e is set, as long as keep reports true for them; it puts
// back the first task it would not run, and returns when the deque is
// empty. It is J1 for a set of awaited tasks, such as a task block's:
// keep must report true only for tasks whose completion e waits for, since
// only those are sure not to wait for the caller in turn (J2).
func (w *Worker) takeBackUntil(e Event, keep func(r runnable) bool) {
	g := w.Holder()
	for !e.IsSet() {
		x := w.dq.Pop()
		if x == nil {
			return
		}
		if !keep(x.r) {
			w.putBack(x)
			return
		}
		w.publishIfDue() // E2: the tasks left behind may be wanted elsewhere
		w.execute(x)
		w.Regain(g) // stall.md, Y6: the task may have blocked
	}
}

// joinState is where a join that forked a job stands, for unwound.
type joinState uint8

const (
	forked  joinState = iota // the job is forked and the join runs its own half
	joining                  // the job was taken back (and runs here) or has finished elsewhere
	joined                   // the join returned normally
)

// unwound is called by a join that forks j from the function it defers
// right after the fork:
//
//	state := forked
//	defer func() {
//		if state != joined {
//			w.unwound(&j.job, state, recover())
//		}
//	}()
//
// A join that returns normally sets state to joined first: on the fast
// path the deferred function is one test, no capture. Otherwise a panic or
// a runtime.Goexit is unwinding the join, r is what the deferred function
// recovered (recover works only there), and unwound captures it as Capture
// would. If j is still forked, it is dropped if nobody has started it, or
// waited for (no task of a join outlives it, J1-J3), and the error raised
// is the first of the two panics with the other attached (Combine). A nil r
// is either a Goexit or panic(nil) under GODEBUG=panicnil=1, which cannot
// be told apart here: it is raised as a panic either way; during a Goexit,
// the task's Guard recovers that and the Goexit, which no recover stops,
// goes on and is reported as such.
func (w *Worker) unwound(j *job, state joinState, r any) {
	p := recovered(r)
	if state == forked {
		if w.join(j) {
			// Taken back before it started: dropped. It is not
			// recycled: its fields still hold what was forked.
			panic(p.Err)
		}
		panic(Combine(p, j.panic))
	}
	panic(p.Err)
}

// stolen completes j after takeBack reported that another worker took it:
// it waits for j to finish there (J3), after which the job is the
// joiner's alone again, lets take read its result, and returns how the job
// ended, after resetting and recycling it (J4).
func (w *Worker) stolen(j *job, take func()) *Panic {
	w.WaitFor(&j.done)
	p := j.panic
	take()
	j.panic = nil
	j.done.rearm()
	w.recycle(&j.task)
	return p
}
