package sched

import "runtime/trace"

// The holder's state machine. A worker is run by one carrier goroutine at
// a time, its holder (carrier.go); this is the loop that holder runs, and
// every state a worker can be in is one of these, or one of the idle
// sub-states that search and sleep go through (sleep.md: searching,
// waiting, sleepy, asleep), which are counted in pool.ctl:
//
//	running     between tasks or running one. Its own deque first (the
//	            injector every injectorEvery lookups); a task found is run
//	            and the holder comes back here. With its deque empty it
//	            goes to searching.
//	searching   search (search.go) and sleep (sleep.go): passes over the
//	            other queues, waiting for news, sleepy, asleep. It comes
//	            back with a task (running), because a parked task of the
//	            worker's became resumable (handingOff), or because the pool
//	            shut down with nothing left (exiting).
//	handingOff  a safe point, no task on this goroutine's stack: the holder
//	            gives the worker to a resumable carrier and becomes an idle
//	            carrier (or exits, if there are enough); if it is handed the
//	            worker again later, it resumes in running.
//	exiting     flush the counters, dismiss the idle carriers, end the goroutine.
//
// A task that waits (WaitFor) leaves this loop from inside running: its
// carrier parks with the task on its stack and hands the worker to another
// carrier, which enters hold afresh (carrier.md).
type holderState uint8

const (
	running holderState = iota
	searching
	handingOff
	exiting
)

// hold runs w's main loop on c, which holds w, until c gives w away for
// good, the pool has shut down, or w, a spare, has retired. It is the one
// holder loop for every kind of slot (issue 33): a pool's worker, a spare
// (stall.md, X2-X5) and a debug build's stand-in (X7) go through the same
// states, and differ only in running, after the check for a resumable
// task: a worker runs its own deque's next task or goes to searching; a
// spare takes a turn of spareStep, which runs the next task it may take,
// retires (exiting) or waits for a parked task of its own; and a spare
// that exits frees its slot (X5).
func (w *Worker) hold(c *carrier) {
	if s := w.asSpare; s != nil && s.first != nil {
		// A stand-in's first task (X7), handed to it with the slot.
		t := s.first
		s.first = nil
		w.runTask(c, t)
	}
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

// resumePending reports whether a parked task of w's has become
// resumable, so that the holder must hand w back to it at its next safe
// point (C4, carrier.md). It is the one check every state makes: between tasks, in every
// search pass and while waiting for news, and in the sleep re-check (S2),
// after the announcement, which is what makes it safe against a holder
// going to sleep (see resume).
func (w *Worker) resumePending() bool { return w.nResumable.Load() != 0 }

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
	if debugChecks && w.asSpare != nil {
		w.checks = asideSpareTask // a spare's task goes aside by sample only, so that asides do not chain (aside.go)
	}
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
