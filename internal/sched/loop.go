package sched

import "runtime/trace"

// The holder loop: what the goroutine holding a worker does between tasks,
// for every kind of slot, through the states of holderState (types.go).
// A spare's turns (stall.md, X2, X4, X5) are here too, since they are
// hold's running state for a spare; search.go is its searching state and
// carrier.go its hand-offs.

// hold runs w's main loop on c, which holds w, until c gives w away for
// good, the pool has shut down, or w, a spare, has retired. It is the one
// holder loop for every kind of slot (issue 33): a pool's worker, a spare
// (stall.md, X2-X5) go through the same
// states, and differ only in running, after the check for a resumable
// task: a worker runs its own deque's next task or goes to searching; a
// spare takes a turn of spareStep, which runs the next task it may take,
// retires (exiting) or waits for a parked task of its own; and a spare
// that exits frees its slot (X5).
func (w *Worker) hold(c *carrier) {
	st := running
	for {
		switch st {
		case running:
			// The safe point between tasks.
			if w.resumePending() {
				st = handingOff
				continue
			}
			if w.asSpare != nil {
				st = w.spareStep(c)
				continue
			}
			if t := w.local(); t != nil {
				w.runTask(c, t)
				continue
			}
			st = searching
		case searching:
			var t *task
			if t, st = w.search(); t != nil {
				w.runTask(c, t)
			}
		case handingOff:
			if !w.handBack(c) {
				return
			}
			st = running
		case exiting:
			w.unregister(c)
			w.flushCounters()
			w.dismissIdleCarriers()
			if w.asSpare != nil {
				w.spareExited() // X5
			}
			return
		}
	}
}

// injectorEvery is how often (in task lookups) a worker looks at the
// injector before its own deque, so that work submitted from outside
// cannot starve behind a worker that always has local work.
const injectorEvery = 61

// local returns the next task from w's own deque, except every
// injectorEvery lookups when the injector comes first, or nil. Between
// tasks, too, private tasks are published if another worker wants work
// (job.go, E2): a task that forked and returned without joining leaves
// them behind.
func (w *Worker) local() *task {
	w.tick++
	if w.tick%injectorEvery == 0 {
		if t := w.pool.inj.pop(uint32(w.id) + w.tick); t != nil {
			w.counts[countInjectorPops]++
			return t
		}
	}
	if w.dq.Private() > 1 && w.publishDue() { // E2; a single one is popped now anyway
		w.publish()
	}
	return w.popOwn()
}

// popOwn pops the newest task of w's deque for its holder to run, or nil.
// A task that is not one of w's recycled jobs (another worker's task,
// moved here by a batch, or a future) leaves its slot: the slot must not
// keep it, nor what it carries, once it has run (issue 33).
func (w *Worker) popOwn() *task {
	t := w.dq.Pop()
	if t != nil && (t.forker != w || t.oneShot) {
		w.dq.Forget(w.dq.Bottom(), t)
	}
	return t
}

// runTask runs a task of the main loop on c, which holds w, counted in
// w's tasks in progress.
func (w *Worker) runTask(c *carrier, t *task) {
	w.taskStart()
	w.checks = 0 // a new task: where the fork path samples, its first forks are checked (debug.go)
	w.loopNest = notNested
	if trace.IsEnabled() {
		w.executeTraced(t)
	} else {
		w.execute(t)
	}
	// H4: the task may have blocked, and the stall watch handed w over
	// its head meanwhile. One load of the owner's line, per task.
	if w.holder.Load() != c.goid {
		w.reclaimHere(c.goid)
	}
	w.taskDone()
}

// spareStep is one turn of a spare's holder (X2, X4, X5)
// in hold's running state, with nothing resumable: it
// runs the next task the spare may take and returns running; with none,
// it returns exiting when nothing of the spare's is in progress (X4, X5:
// out of work, or retiring with its queue handed back), or waits for a
// parked task of its to resume, or for the monitor to say work is queued,
// and returns running. A stand-in takes work from its own deque only,
// and neither retires nor hands its queue back: it exits once it has
// nothing in progress and nothing queued.
func (w *Worker) spareStep(c *carrier) holderState {
	free := w.inProgress.Load()&runningMask == 0
	if free && (w.asSpare.retire.Load() || w.principalRuns()) {
		w.spillSpare() // X4: its queued tasks to the injector, not run first
		if w.dq.Count() == 0 {
			return exiting
		}
	}
	idle := free && w.dq.Count() == 0
	if t := w.spareFind(); t != nil {
		w.runTask(c, t)
		return running
	}
	if idle {
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
		w.dq.Forget(w.dq.Bottom(), t) // it leaves this deque for good
		w.counts[countOverflows]++
		w.pool.inj.push(uint32(w.id), t)
	}
	w.pool.notify(w)
}

// spareFind is X2's order: the spare's own deque (and, periodically, the
// injector first), then the injector and the workers' deques, then the
// other spares'.
func (w *Worker) spareFind() *task {
	if t := w.local(); t != nil {
		return t
	}
	return w.findWork()
}

// spareExited is X5, after hold's exit of a spare: the slot is free
// again.
func (w *Worker) spareExited() {
	w.pool.stall.stealable.Add(-1)
	w.pool.stall.live.Add(-1)
	w.asSpare.live.Store(false) // last: X1 may start the spare again
}
