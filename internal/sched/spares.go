package sched

import "sync/atomic"

// Spares (stall.md, X1-X6): the stand-in workers the stall monitor starts
// for holders blocked while work waits for them, their holder loop, and
// how they retire. stall.go decides when; this file is what a spare is
// and does.

// spareState is what makes a Worker a spare (X1-X5).
type spareState struct {
	// retire is set by the monitor (X4) and read by the spare's holder;
	// a stale read only delays the exit to the next task boundary.
	retire atomic.Bool
	// live is set by X1 and cleared by the exiting holder, last (X5):
	// sequentially consistent, so that the monitor that reads it false
	// also sees everything the spare did before (its deque drained).
	live atomic.Bool
	// principal is the slot of the holder the spare stands in for,
	// written by X1 before the go statement that starts the spare's
	// carrier, which orders it before the spare's reads (X4).
	principal int
	// aside marks a stand-in of debug builds (X7), which runs first and
	// then its own deque, and is not counted live; first is the task it
	// runs first. Both are written, like principal, before the go
	// statement that starts its carrier.
	aside bool
	first *task
}

// slotWorker returns the worker or live spare at slot h, or nil.
func (p *Pool) slotWorker(h int) *remote {
	w := p.slot(h)
	if w != nil && w.asSpare != nil && !w.asSpare.live.Load() {
		return nil
	}
	return w
}

// standInLive reports whether the spare at slot k is live.
func (p *Pool) standInLive(k int) bool {
	s := p.slot(k)
	return s != nil && s.asSpare.live.Load()
}

// retireStandIn is X4 for the spare standing in for slot h, whose holder
// is not blocked (any more): it retires at its next task boundary.
func (p *Pool) retireStandIn(v *stallView, h int) {
	k := v.standIn[h]
	if k < 0 {
		return
	}
	v.standIn[h] = -1
	s := p.slot(k)
	if s != nil && s.asSpare.live.Load() {
		s.asSpare.retire.Store(true)
		s.signal()
	}
}

// startStandIn is X1 for the holder of slot h: a spare in a free slot of
// h's worker, unless the bound is reached (counted instead).
func (p *Pool) startStandIn(v *stallView, h int) {
	m := &p.stall
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stopped {
		return
	}
	s := p.claimSpare(h%len(p.workers), h, false) // slot h's worker: a spare's slot is n+k, k ≡ its worker
	if s == nil {
		m.atLimit.Add(1)
		return
	}
	m.stealable.Add(1)
	m.started.Add(1)
	v.standIn[h] = s.index
	v.seen[s.index] = stallSeen{}
	p.startCarrier(s.newCarrier(), true)
}

// claimSpare is X1's (and X7's) choice of a slot, with stall.mu held: the
// first spare slot of worker root's that is not live, made if it is new,
// marked live and standing in for slot principal (aside: a stand-in of
// debug builds, X7); or nil if they are all live. The caller starts its
// carrier, after writing what it reads first.
func (p *Pool) claimSpare(root, principal int, aside bool) *remote {
	n := len(p.workers)
	for k := root; n+k < p.Slots(); k += n {
		s := p.slot(n + k)
		if s == nil {
			s = p.newSpare(k)
		}
		if s.asSpare.live.Load() {
			continue
		}
		s.asSpare.retire.Store(false)
		s.asSpare.principal = principal
		s.asSpare.aside = aside
		s.asSpare.live.Store(true)
		p.stall.live.Add(1)
		return s
	}
	return nil
}

// newSpare makes spare slot k (X1), at slot Workers()+k: it stands in
// for worker k mod Workers(), whose ID it reports, or for a spare of that
// worker's. The monitor calls it under stall.mu.
func (p *Pool) newSpare(k int) *remote {
	n := len(p.workers)
	s := p.newWorker(k%n, n+k, new(spareState), p.workers[0].dq.Cap()).remote()
	p.slots.all[n+k].Store(s)
	if made := int32(n + k + 1); made > p.slots.made.Load() {
		p.slots.made.Store(made) // after the entry (slots.go)
	}
	p.stall.made.Add(1)
	return s
}

// spareStep is one turn of a spare's holder (X2, X4, X5) or a
// stand-in's (X7) in hold's running state, with nothing resumable: it
// runs the next task the spare may take and returns running; with none,
// it returns exiting when nothing of the spare's is in progress (X4, X5:
// out of work, or retiring with its queue handed back), or waits for a
// parked task of its to resume, or for the monitor to say work is queued,
// and returns running. A stand-in takes work from its own deque only,
// and neither retires nor hands its queue back: it exits once it has
// nothing in progress and nothing queued.
func (w *Worker) spareStep(c *carrier) holderState {
	aside := debugChecks && w.asSpare.aside
	free := w.inProgress.Load()&runningMask == 0
	if !aside && free && (w.asSpare.retire.Load() || w.principalRuns()) {
		w.spillSpare() // X4: its queued tasks to the injector, not run first
		if w.dq.Count() == 0 {
			return exiting
		}
	}
	idle := free && w.dq.Count() == 0
	if t := w.spareFind(aside); t != nil {
		w.runTask(c, t)
		return running
	}
	if idle || aside && free {
		return exiting // X4: out of work
	}
	// X4: tasks in progress (parked, or in sections) and nothing to
	// run: wait for one to resume (C3 sends a token) or for the
	// monitor to say work is queued. A token sent since the checks
	// above is in the channel already. The sleep state tells the
	// monitor that this wait is fj's, not a task's (L3): stored
	// before the wait and after it, sequentially consistent, and
	// loaded by the monitor after the status word, so that a look
	// that finds the goroutine waiting and the state awake has at
	// worst caught the spare waking up, which the second look of L4
	// does not repeat.
	w.sleepState.Store(asleep)
	<-w.wake
	w.sleepState.Store(awake)
	return running
}

// principalRuns is X4's own look of a spare between tasks: whether the
// holder it stands in for is no longer blocked (L3). The monitor finds
// that too, but its tick waits for a free P, which a spare and a resumed
// task that both compute may not leave it until the runtime preempts one
// (10 ms); the spare's own look, at each task boundary, costs a few loads.
func (w *Worker) principalRuns() bool {
	l := gLook()
	if !l.ok {
		return false
	}
	p := w.pool
	pw := p.slotWorker(w.asSpare.principal)
	if pw == nil {
		return true // a spare that has exited
	}
	st, ok := p.lookHolder(l, pw, pw.inProgress.Load(), pw.holder.Load())
	return !ok || !st.blocked
}

// spillSpare is X4's hand-back: a retiring spare with no task in
// progress moves the tasks left in its deque (a batch it took from the
// injector, forks left unjoined) to the injector, where the workers take
// them, instead of running them all before it exits. It takes them as an
// overflow does (TakeOldest, then a Pop for the newest), by the deque's
// exclusive exits (X3), and publishes them (P2). Only w's holder calls it.
func (w *Worker) spillSpare() {
	if w.dq.Count() == 0 {
		return
	}
	if w.spill == nil {
		w.spill = make([]*task, max(1, w.dq.Cap()/2))
	}
	for {
		w.dq.Publish() // TakeOldest moves published tasks only
		k := w.dq.TakeOldest(w.spill)
		if k == 0 {
			break
		}
		// Counted as overflows: they reach the injector as an
		// overflow's do, and Stats keeps InjectorPops = Submitted +
		// Overflows.
		w.counts[countOverflows] += uint64(k)
		w.pool.inj.pushBatch(uint32(w.id), w.spill[:k])
		clear(w.spill[:k])
	}
	if t := w.dq.Pop(); t != nil {
		w.counts[countOverflows]++
		w.pool.inj.push(uint32(w.id), t)
	}
	w.pool.notify(w)
}

// spareFind is X2's order: the spare's own deque (and, periodically, the
// injector first), then the injector and the workers' deques, then the
// other spares'. A stand-in (aside) takes from its own deque only (X7).
func (w *Worker) spareFind(aside bool) *task {
	if aside {
		return w.popOwn()
	}
	if t := w.local(); t != nil {
		return t
	}
	return w.findWork()
}

// spareExited is X5, after hold's exit of a spare: the slot is free
// again.
func (w *Worker) spareExited() {
	if !w.asSpare.aside {
		w.pool.stall.stealable.Add(-1)
	}
	w.pool.stall.live.Add(-1)
	w.asSpare.live.Store(false) // last: X1 may start the spare again
}

// stealSpares tries every live spare's deque once, for steal.
func (w *Worker) stealSpares() *task {
	for s := range w.pool.madeSpares() {
		if s == w.remote() {
			continue
		}
		if t := s.dq.Stealer().Steal(); t != nil {
			w.counts[countSteals]++
			return t
		}
	}
	return nil
}
