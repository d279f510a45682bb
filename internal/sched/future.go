package sched

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// A Future's fork and joins (future.md states the protocol, Q1-Q9, and
// why no join reads a job its forker has recycled). The fork is
// generated with the other forms (zjoin.go: FutureState.Fork, Q1); the
// joins are here, since their state word is the FutureState's own.

// Future is the job of a Fork: a forked closure whose outcome the
// joins of its Future read (Q7) until one of them copies it into the
// Future, and which its forker recycles (J4) once no join can read it any
// more (Q3).
type Future[W, T any] struct {
	job
	f   func(*W) T
	res T
}

// Run lets go of the closure before it calls it: a Future never joined,
// once run, stays in its forker's deque slot until the slot is reused,
// and must not keep what the closure captured (issue 44).
func (j *Future[W, T]) Run(w *Worker) {
	j.complete(w, func() {
		f := j.f
		j.f = nil
		j.res = f((*W)(unsafe.Pointer(w)))
	})
}

// FutureState is a forkjoin.Future: the value its caller holds, which
// may be joined any number of times from any task. Nothing of fj's points at it
// (Q1): when forkjoin.Fork is inlined into a caller that only joins it, it
// lives in the caller's frame and the fork allocates nothing but the
// caller's closure.
type FutureState[W, T any] struct {
	j     *Future[W, T] // set by Fork; read by joins only as Q3 allows
	owner *Worker       // the forking worker: the one that may take j back and recycle it
	// st is the state word (Q2): the phase (futInline, futDone) and, in
	// the pending phase, the joins that may read j (futRef each) and
	// whether one copies j's outcome here (futCopying).
	st atomic.Uint64
	// rv is the latch the joins that find the forker running j's
	// function inline wait on (Q6): made by the first of them, which
	// holds futInstalling meanwhile, and read by the others and the
	// forker once st has futWaiting. A plain field: an atomic pointer's
	// operations would make every Future escape to the heap.
	rv  *Latch
	p   *Panic // the outcome, once st has futDone
	res T
}

// The bits of FutureState.st (Q2). Zero is pending with no join reading j.
const (
	futInline     = 1 << iota // I: the forker took j back and runs its function inline; j is recycled (Q4)
	futDone                   // D: the outcome is in the Future (final)
	futCopying                // in P: a join copies j's outcome into the Future (Q7)
	futInstalling             // in I: a join makes rv (Q6)
	futWaiting                // in I: rv is made; joins wait on it (Q6)
	futRef                    // in P: one join that may read j, the unit of the count above the bits
)

// Join returns the future's result, or raises its panic, running its
// function here (Q4) if the forker joins it while it is still at the
// bottom of its deque and nobody else waits for it, and waiting for it
// otherwise (Q6, Q7). It must be called by the task running on pw.
func (fu *FutureState[W, T]) Join(pw *W) (r T) {
	w := (*Worker)(unsafe.Pointer(pw))
	if w.checkDue() {
		w.checkFork("forkjoin.Future.Join") // panics, naming the mistake (debug.go)
	}
	s := fu.st.Load()
	if s&futDone != 0 {
		w.Release()         // stall.md, Y6: the program's code runs next
		return fu.outcome() // Q2: final
	}
	j := fu.j
	if s&futInline != 0 || w != fu.owner || !(w.takeBackFast(&j.job) || w.takeBack(&j.job)) {
		r = fu.wait(w) // Q6, Q7
		w.Release()    // Y6
		return r
	}
	// J1: taken back; nobody else will run it.
	w.counts[countExecuted]++
	if !fu.st.CompareAndSwap(0, futInline) {
		r = fu.runShared(w) // Q7: joins hold refs to j
		w.Release()         // Y6
		return r
	}
	// Q4: no join can reach j any more (Q3): recycled before it runs
	// here, so that the first fork inside it reuses it (J4).
	f := j.f
	j.f = nil
	w.recycle(&j.task)
	g := w.Holder() // stall.md, Y6: the program's code runs next
	ran := false
	defer func() {
		if !ran {
			w.Regain(g) // Y6
			fu.unwound(w, recover())
		}
	}()
	r = f(pw)
	ran = true
	fu.res = r
	fu.publish() // Q5
	return r
}

// outcome returns the result held in the Future, or raises its panic:
// for a join that saw futDone (Q2).
func (fu *FutureState[W, T]) outcome() T {
	if p := fu.p; p != nil {
		panic(p.Err)
	}
	return fu.res
}

// publish is Q5: the outcome is in the Future; the joins waiting on rv
// are woken.
func (fu *FutureState[W, T]) publish() {
	if fu.st.Swap(futInline|futDone)&futWaiting != 0 {
		fu.rv.Set()
	}
}

// unwound records, for the Future's other joins, the panic or Goexit that
// is unwinding Q4's inline run (r is what the deferred function
// recovered), publishes it (Q5) and raises the panic again; a Goexit
// goes on unwinding, as Guard lets it.
func (fu *FutureState[W, T]) unwound(w *Worker, r any) {
	if r == nil && unwindingGoexit() {
		fu.p = w.goexitPanic() // w regained (stall.md, Y6)
		fu.publish()
		return
	}
	p := recovered(r)
	fu.p = p
	fu.publish()
	panic(p.Err)
}

// runShared is Q7 for the forker that took j back while other joins
// hold refs to it: it runs j's function here as a thief would (R1: the
// outcome recorded in j, its latch set), then reads it as they do.
//
//go:noinline
func (fu *FutureState[W, T]) runShared(w *Worker) T {
	// st is pending with refs: only the latch set below lets a join move
	// it to futDone, and only this join moves it to futInline.
	fu.st.Add(futRef)
	j := fu.j
	f := j.f
	// Guard, not Capture: a Goexit in it is the future's own, recorded
	// for its other joins, and the task running this join reports that
	// it was aborted by it.
	w.Guard(func() { j.res = f((*W)(unsafe.Pointer(w))) }, j.record)
	return fu.copyOut(w)
}

// wait is Q6 and Q7: the join of a Future whose job it cannot take back.
//
//go:noinline
func (fu *FutureState[W, T]) wait(w *Worker) T {
	if fu.j == nil {
		panic("forkjoin: Join of a zero Future: a Future comes from Fork")
	}
	for {
		s := fu.st.Load()
		switch {
		case s&futDone != 0:
			return fu.outcome()
		case s&futWaiting != 0:
			// Q6: the forker runs the function inline; rv is made.
			w.WaitFor(fu.rv)
			return fu.outcome()
		case s&futInstalling != 0:
			// Q6: another join is making rv: a few stores, unless its
			// goroutine was preempted in between, which a yield lets
			// run where it shares this P.
			runtime.Gosched()
			continue
		case s&futInline != 0:
			// Q6: the first join to wait makes rv.
			if !fu.st.CompareAndSwap(s, s|futInstalling) {
				continue
			}
			l := new(Latch)
			fu.rv = l
			if fu.st.CompareAndSwap(s|futInstalling, s|futWaiting) {
				w.WaitFor(l)
			} // else the forker has published (Q5): the outcome is here
			return fu.outcome()
		case fu.st.CompareAndSwap(s, s+futRef):
			// Q7: holding a ref, j is this future's until it is dropped.
			w.WaitFor(&fu.j.done) // J3
			return fu.copyOut(w)
		}
	}
}

// copyOut is the end of Q7, for a join that holds a ref to j and has
// seen j's latch set: it reads j's outcome, copies it into the Future if
// no join has (futCopying elects one), drops its ref and, if it was the
// last, releases j (Q8).
func (fu *FutureState[W, T]) copyOut(w *Worker) T {
	j := fu.j
	r, p := j.res, j.panic
	for {
		s := fu.st.Load()
		if s&(futDone|futCopying) != 0 {
			if n := fu.st.Add(^uint64(futRef - 1)); n < futRef {
				fu.release(w) // n has futDone: a copier keeps its ref until it sets it
			}
			break
		}
		if !fu.st.CompareAndSwap(s, s|futCopying) {
			continue
		}
		fu.res, fu.p = r, p
		for {
			s = fu.st.Load()
			n := (s&^futCopying | futDone) - futRef
			if fu.st.CompareAndSwap(s, n) {
				if n < futRef {
					fu.release(w)
				}
				break
			}
		}
		break
	}
	if p != nil {
		panic(p.Err)
	}
	return r
}

// release is Q8: st is futDone with no ref, so no join reads j any more,
// nor ever will (Q3). j lets go of what it carried; if the caller holds
// j's forker, j is recycled (J4), else it is left to its deque slot,
// never to be reused.
func (fu *FutureState[W, T]) release(w *Worker) {
	j := fu.j
	j.f, j.res, j.panic = nil, *new(T), nil
	if w == fu.owner {
		j.done.rearm()
		w.recycle(&j.task)
	}
}

// Done reports whether the future's task has finished (Q9).
func (fu *FutureState[W, T]) Done() bool {
	if fu.j == nil {
		panic("forkjoin: Done on a zero Future: a Future comes from Fork")
	}
	for {
		s := fu.st.Load()
		if s&futDone != 0 {
			return true
		}
		if s&futInline != 0 {
			return false
		}
		set := fu.j.done.IsSet()
		if fu.st.Load()&(futDone|futInline) == 0 {
			return set // still pending: j was not recycled in between (Q9)
		}
	}
}
