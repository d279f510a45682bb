package sched

import (
	"runtime/pprof"
)

// maxIdleCarriers bounds the idle carriers a worker keeps for later hand-offs;
// beyond it, a carrier that gives its worker away exits.
const maxIdleCarriers = 2

// startCarrier starts a goroutine for c; holding says whether it starts
// as the worker's holder or as an idle carrier.
func (p *Pool) startCarrier(c *carrier, holding bool) {
	c.w.carrierGroup().Add(1)
	go c.run(holding)
}

// run is the body of a carrier goroutine.
func (c *carrier) run(holding bool) {
	w := c.w.asHolder() // c's goroutine: it holds w, or waits below to be handed it
	p := w.pool
	defer c.w.carrierGroup().Done()
	c.goid = goid()
	if gLook().ok {
		c.g = (*gHandle)(getg())
	}
	// A goroutine inherits its creator's profiler labels, and carriers are
	// often started from inside a task that is about to park: give this
	// one the worker's own labels, or profiles would charge everything it
	// runs to that task.
	pprof.SetGoroutineLabels(w.labels)
	if !holding && !c.awaitTurn() {
		return
	}
	w.takeOver(c)
	done := false
	defer func() {
		if !done {
			// A task called runtime.Goexit and its wrapper let the
			// unwinding through (it cannot be stopped); the task has been
			// reported as failed. This goroutine held the worker: carry
			// on in a fresh one, which takes over w. Everything this
			// goroutine did to w happens before the go statement.
			w.unregister(c)
			w.taskDone()
			p.startCarrier(w.remote().newCarrier(), true)
		}
	}()
	w.hold(c)
	done = true
}

// unpark is C4's end for c, the carrier of a parked task that a
// hand-off (C3, or a hand-over's reclaim, stall.md Y5) gives its worker back: it
// waits for its turn, holds w again and uncounts the park. The task's
// owner state is the caller's to restore.
func (w *Worker) unpark(c *carrier) {
	c.awaitTurn()
	w.setHolder(c)
	w.parked.Add(-1)
}

// takeOver makes c, which has just been handed the worker with nothing on
// its stack, the holder. The worker's owner-only state describes the task
// that was running when it was handed over (which has parked, and restores
// that state itself when it resumes): reset what belongs to that task.
func (w *Worker) takeOver(c *carrier) {
	w.setHolder(c)
	w.scope = nil
}

// setHolder records c as the carrier holding w: in the owner-only cur,
// and, for the goroutine-identity lookups, in w.holder and the pool's
// holders table (identity.go, I3). c's goroutine calls it.
func (w *Worker) setHolder(c *carrier) {
	w.cur = c
	w.holderG.Store(c.g) // before register's store of holder (stall.md, V2)
	w.register(c)
}

// awaitTurn parks c until it is handed its worker, and reports false if it
// was told to exit instead.
func (c *carrier) awaitTurn() bool {
	<-c.turn
	c.w.hmu.Lock()
	quit := c.quit
	c.w.hmu.Unlock()
	return !quit
}

// wake makes c, parked in WaitFor, resumable on its worker: the waiter
// node's setter has claimed it (see wait.go).
func (c *carrier) wake() { c.w.resume(c) }

// handOff (C2, carrier.md) gives w, held by c which is about to park, to
// the next carrier:
// a resumable one if any (possibly c itself, if its event was set in the
// meantime), else an idle one, else a new one. With section, c is entering a
// blocking section's f (blocking.go, B2) and is listed in w.sections in
// the same locked step (identity.md, I6).
func (w *Worker) handOff(c *carrier, section bool) {
	w.unregister(c) // before the next holder registers (identity.md, I3)
	w.hmu.Lock()
	if section {
		c.section = len(w.sections)
		w.sections = append(w.sections, c)
	}
	next := w.remote().nextCarrier()
	w.hmu.Unlock()
	if next == nil {
		w.pool.startCarrier(w.remote().newCarrier(), true)
		return
	}
	next.turn <- struct{}{}
}

// What a carrier that offered its worker to a resumable one does next.
type yieldOutcome int

const (
	kept     yieldOutcome = iota // nobody was resumable after all: still the holder
	wentIdle                     // gave the worker away; now an idle carrier, awaiting a turn
	exit                         // gave the worker away; enough idle carriers: exit
)

// yieldToResumable gives w, held by c at a safe point, to a resumable
// carrier, if there is one (C4, carrier.md).
func (w *Worker) yieldToResumable(c *carrier) yieldOutcome {
	w.hmu.Lock()
	next := w.remote().popResumable()
	if next == nil {
		// Only the holder pops the list, so after nResumable != 0 this
		// does not happen; handled anyway rather than assumed.
		w.hmu.Unlock()
		return kept
	}
	w.unregister(c) // before the next holder registers (identity.md, I3)
	out := exit
	if len(w.idle) < maxIdleCarriers {
		w.idle = append(w.idle, c)
		out = wentIdle
	}
	w.hmu.Unlock()
	next.turn <- struct{}{}
	return out
}

// handBack is a holder's safe point once a parked task of w's is
// resumable (C4): it gives w, held by c, to that task's carrier and, if c
// stays as an idle carrier, waits until it is handed w again. It reports whether c
// holds w on return; false: c must exit.
func (w *Worker) handBack(c *carrier) bool {
	switch w.yieldToResumable(c) {
	case wentIdle:
		if !c.awaitTurn() {
			return false
		}
		w.takeOver(c)
	case exit:
		return false
	}
	return true
}

// dismissIdleCarriers tells w's idle carriers to exit, at shutdown.
func (w *Worker) dismissIdleCarriers() {
	w.hmu.Lock()
	for _, s := range w.idle {
		s.quit = true
		s.turn <- struct{}{}
	}
	w.idle = nil
	w.hmu.Unlock()
}
