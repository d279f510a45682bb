package sched

// The sleep protocol. sleep.md next to this file explains the states, the
// protocol and why no wake-up is lost; the comments here point at its steps.

// The control word pool.ctl: sleeping workers in the high half, searching
// workers in the low half.
const (
	searchingOne = 1
	sleepingOne  = 1 << 32

	// Two's-complement deltas for ctl.Add.
	minusSearching      = ^uint64(0)               // searching - 1
	minusSleeping       = ^uint64(sleepingOne - 1) // sleeping - 1
	sleepingToSearching = searchingOne + minusSleeping
)

func searchingOf(c uint64) uint32 { return uint32(c) }
func sleepingOf(c uint64) uint32  { return uint32(c >> 32) }

// notify is called after work has been published (pushed on a deque or the
// injector, by a sequentially consistent store). If no worker is searching
// and some are asleep, it wakes one. This load of ctl is the publisher's
// half of the protocol (step P2 in sleep.md); it is the only cost of the
// protocol on the fork path when workers are busy.
func (p *Pool) notify() {
	// c != 0 with an empty low half: somebody sleeps, nobody searches.
	// (Written this way to stay within the inliner's budget: this runs
	// on every fork.)
	if c := p.ctl.Load(); c != 0 && uint32(c) == 0 {
		p.wakeOne()
	}
}

// wakeOne wakes the most recently parked worker, counting it as searching
// on its behalf, unless a worker is searching already (another publisher
// got here first) or nobody sleeps.
func (p *Pool) wakeOne() {
	p.mu.Lock()
	c := p.ctl.Load()
	if searchingOf(c) == 0 && len(p.idle) != 0 {
		w := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		w.idleIdx = -1
		// The woken worker is searching from now on, so further
		// publishers do not wake more workers until it has looked.
		p.ctl.Add(sleepingToSearching)
		w.signal()
	}
	p.mu.Unlock()
}

// signal gives w a wake-up token; see waiter.signal.
func (w *Worker) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// startSearching makes w a searching worker unless half the workers (at
// least one) are searching already.
func (w *Worker) startSearching() {
	if w.searching {
		return
	}
	p := w.pool
	for {
		c := p.ctl.Load()
		if searchingOf(c) >= p.maxSearching {
			return
		}
		if p.ctl.CompareAndSwap(c, c+searchingOne) {
			w.searching = true
			return
		}
	}
}

// stopSearching ends w's search. If w was the last searcher and workers are
// asleep, one is woken when work may remain: always when w found work
// (where there was one task there are often more), otherwise only if some
// queue is non-empty. Without this, work published while w was searching
// (whose publisher therefore woke nobody) could wait behind a worker that
// went back to its own business (step S4 in sleep.md).
func (w *Worker) stopSearching(found bool) {
	if !w.searching {
		return
	}
	w.searching = false
	p := w.pool
	c := p.ctl.Add(minusSearching)
	if searchingOf(c) == 0 && sleepingOf(c) != 0 && (found || p.hasWork()) {
		p.wakeOne()
	}
}

// sleep parks the worker's holder until it is woken: by a publisher
// (wakeOne), by a parked task of w's becoming resumable, or by Close. It
// returns early, without parking, if its re-check finds work, a resumable
// task, or the pool closed with nothing running. Either way the caller
// goes back to searching; w.searching tells whether a waker has already
// counted w as a searcher.
func (w *Worker) sleep() {
	p := w.pool

	// S1: announce. Joining the idle list and moving from "searching" to
	// "sleeping" in ctl is one sequentially consistent RMW, done under mu
	// so that the list and the count agree for wakeOne.
	p.mu.Lock()
	w.idleIdx = len(p.idle)
	p.idle = append(p.idle, w)
	delta := uint64(sleepingOne)
	if w.searching {
		w.searching = false
		delta -= searchingOne
	}
	p.ctl.Add(delta)
	p.mu.Unlock()

	// S2: re-check everything that could end the sleep. Every check is a
	// sequentially consistent load made after the announcement, so work
	// published before a publisher read ctl (and saw nobody to wake), or
	// a task made resumable before we announced, is seen here.
	if p.hasWork() || w.nResumable.Load() != 0 || (p.closed.Load() && p.active.Load() == 0) {
		w.cancelSleep()
		return
	}

	// S3: park. A token sent since S1 (by wakeOne, resume or Close) is
	// buffered in the channel, so this returns at once.
	w.c.Sleeps++
	w.publish()
	<-w.wake
	w.c.Wakeups++
	w.leaveIdle()
}

// cancelSleep undoes an announcement whose re-check found a reason to stay
// awake.
func (w *Worker) cancelSleep() {
	w.leaveIdle()
	// If a waker chose us between S1 and now, its token is still in the
	// channel; drop it rather than take a spurious wake-up later. (A token
	// from an event's setter may be dropped too: we are awake and about to
	// re-check that event anyway.)
	select {
	case <-w.wake:
	default:
	}
}

// leaveIdle takes w off the idle list if it is still there (woken by a
// resumed task, by Close or not at all). If it is not, wakeOne took it off and
// counted it as searching, and it is one now.
func (w *Worker) leaveIdle() {
	p := w.pool
	p.mu.Lock()
	if i := w.idleIdx; i >= 0 {
		last := p.idle[len(p.idle)-1]
		p.idle[i] = last
		last.idleIdx = i
		p.idle = p.idle[:len(p.idle)-1]
		w.idleIdx = -1
		p.ctl.Add(minusSleeping)
	} else {
		w.searching = true
	}
	p.mu.Unlock()
}

// hasWork reports whether any queue looks non-empty: the injector or any
// worker's deque. It is the re-check of step S2 (and the last look before
// a worker exits), so it must read every queue after the caller's own
// announcement; each read is a sequentially consistent load.
func (p *Pool) hasWork() bool {
	if p.inj.len() != 0 {
		return true
	}
	for _, v := range p.workers {
		if v.dq.Len() != 0 {
			return true
		}
	}
	return false
}

// quiescent reports, once Close has begun, whether a worker may exit: no
// task is running (one could still fork work for the others to steal), no
// external submission is in flight and no queue holds work.
func (p *Pool) quiescent() bool {
	return p.active.Load() == 0 && p.inflight.Load() == 0 && !p.hasWork()
}

// taskDone ends a main-loop task. The last one to end after Close has begun
// wakes every idle worker, so that they re-check whether they may exit: an
// idle worker that saw running work parks instead of exiting (S2), and this
// is the wake-up it waits for. If the decrement comes before Close's store
// of closed, Close's own wakeAll does the job.
func (p *Pool) taskDone() {
	if p.active.Add(-1) == 0 && p.closed.Load() {
		p.wakeAll()
	}
}

// wakeAll sends a token to every worker on the idle list. They stay on it
// (and counted as sleeping) until they run leaveIdle themselves.
func (p *Pool) wakeAll() {
	p.mu.Lock()
	for _, w := range p.idle {
		w.signal()
	}
	p.mu.Unlock()
}
