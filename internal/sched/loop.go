package sched

import "runtime/trace"

// The holder loop: what the goroutine holding a worker does between tasks,
// through the states of holderState (types.go); search.go is its
// searching state and carrier.go its hand-offs.

// hold runs w's main loop on c, which holds w, until c gives w away for
// good or the pool has shut down.
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
		if t := w.pool.inj.pop(uint32(w.id) + uint32(w.tick)); t != nil {
			w.counts[countInjectorPops]++
			return t
		}
	}
	if w.handedOver {
		// stall.md, Y4: the first task after a hand-over is the
		// oldest, as a thief's is: the largest piece of the blocked
		// task's forks, and the one that reaches its other items
		// soonest (a loop's item that cancels the rest).
		w.handedOver = false
		w.publish()
		if t := w.dq.Stealer().Steal(); t != nil {
			return t
		}
	}
	if w.dq.Private() > 1 && w.publishDue() { // E2; a single one is popped now anyway
		w.publish()
	}
	return w.popOwn()
}

// popOwn pops the newest task of w's deque for its holder to run, or nil.
// A task that is not one of w's jobs (another worker's task, moved here
// by a batch) leaves its slot: the slot must not keep it, nor what it
// carries, once it has run (issue 33). w's own jobs stay, to be recycled
// (J4) by their joins, which clear them.
func (w *Worker) popOwn() *task {
	w.mustOwn()
	t := w.dq.Pop()
	if t != nil && t.forker != w {
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
	// Y6: the task may have blocked, and the stall watch handed w over
	// its head meanwhile. One load of the owner's line, per task.
	w.Regain(c.goid)
	w.taskDone()
}
