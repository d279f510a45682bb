package sched

import "slices"

// The hand-over (stall.md, Y1-Y7): the worker of a holder blocked in the
// program's code while work waits for it goes to another carrier, which
// runs that work; the blocked task gets its worker back at its next use
// of it, once its wait has ended. stall.md states the steps and argues why
// two goroutines never touch the worker at once; the code cites them.

// maxDisplaced bounds the tasks of one worker handed over at once (Y1):
// each keeps a goroutine until its wait ends.
const maxDisplaced = 64

// handOver is Y2-Y4 for w, whose holder, goroutine g, the monitor found
// blocked (V5) while work waits for w (W4). It reports whether it handed
// w on, counted in Stats before w changes hands.
func (p *Pool) handOver(l *gLayout, w *remote, g int64) bool {
	w.hmu.Lock() // the monitor holds no worker: nothing to mark (V3)
	defer w.hmu.Unlock()
	// Y2: the holder's id negated, sequentially consistent, so that
	// every check and re-check the goroutine makes from here on fails
	// and waits for hmu (Y5). A holder that handed w on meanwhile (or
	// exits) changed the word first: the CAS fails.
	if !w.holder.CompareAndSwap(g, -g) {
		return false
	}
	// Y3: still waiting in the program's code, after the mark.
	c := w.cur // stored before g was (V2), which the CAS read
	if _, blocked := l.lookHolder(w, w.inProgress.Load(), g, -g); !blocked || c == nil || c.goid != g {
		// As it was, unless a carrier taking w over stored its own id
		// meanwhile (a Goexit's successor: carrier.go); the holder's own
		// unregister waits for this decision (Y2).
		w.holder.CompareAndSwap(-g, g)
		return false
	}
	raceAcquire(w) // Y6: the holder's writes, for the race detector too
	// Y4: the holder's carrier is displaced, with its task's owner
	// state, counted as parked, and w goes to the most recently resumed
	// task, as C4 would give it, or else to an idle carrier or a new one,
	// as C2's hand-off does. Between Y3 and the hand-off below, the
	// monitor is w's holder: the displaced one is blocked in the
	// program's code and waits for hmu before it touches w again (Y5),
	// and the next one waits for its turn.
	h := w.asHolder()
	c.displaced = true
	c.scope, c.loopNest = h.scope, h.loopNest
	h.handedOver = true // the next holder starts with the oldest task (local)
	w.displaced = append(w.displaced, c)
	w.nDisplaced.Add(1)
	w.parked.Add(1)
	p.stall.handOvers.Add(1)
	resumed := w.nResumable.Load() != 0
	next := w.nextCarrier()
	if !resumed {
		p.stall.spares.Add(1) // a goroutine started, or an idle one taken
	}
	if next == nil {
		p.startCarrier(w.newCarrier(), true) // under hmu: it takes w over without it
		return true
	}
	next.turn <- struct{}{} // one token per parking, never blocks (C2)
	return true
}

// reclaim is Y5: the calling goroutine g found that it does not hold w.
// If the monitor displaced its carrier (Y4), it queues it as resumable
// and waits until w is handed back, then holds w again with its task's
// owner state, and reports true; if a hand-over that had marked g (Y2)
// gave up, it reports true at once. Otherwise g does not hold w (a
// misuse), and it reports false. g holds no worker while it waits here:
// its waits are not a holder's (V3).
//
//go:noinline
func (w *Worker) reclaim(g int64) bool {
	w.hmu.Lock() // waits for a hand-over in progress to decide (Y2-Y4)
	if w.holder.Load() == g {
		w.hmu.Unlock()
		return true
	}
	i := slices.IndexFunc(w.displaced, func(c *carrier) bool { return c.goid == g })
	if i < 0 {
		w.hmu.Unlock()
		return false
	}
	c, last := w.displaced[i], len(w.displaced)-1
	w.displaced[i], w.displaced[last] = w.displaced[last], nil
	w.displaced = w.displaced[:last]
	w.nDisplaced.Add(-1)
	c.displaced = false
	// Its table entry stayed while it was displaced (so that its own
	// lookups come here); taking w back registers it anew (I3). Only
	// the entry goes: the holder word is the new holder's, or still -g
	// until it registers (Y2), and unregister would wait for hmu, which
	// this goroutine holds.
	w.dropEntry(c)
	w.remote().resumeLocked(c)
	w.unpark(c)
	w.scope, w.loopNest = c.scope, c.loopNest // kept by Y4
	c.scope = nil
	return true
}

// Regain is Y6's re-check, for a frame of fj's that called the program's
// code and is about to touch w again: g is the caller's goroutine id, as
// w.holder read when the frame last checked it (Holder). If the monitor
// handed w over meanwhile (Y4), it waits until w is handed back. One
// load and a compare, inlined.
func (w *Worker) Regain(g int64) {
	if w.holder.Load() != g {
		w.regain(g)
	}
}

// regain is Regain's slow path. g may be the caller's id negated: Holder
// read it while a hand-over decided (Y2).
//
//go:noinline
func (w *Worker) regain(g int64) {
	if g < 0 {
		g = -g
	}
	if !w.reclaim(g) {
		panic("fj: internal error: a task lost its worker")
	}
}

// Holder returns the id of the goroutine holding w: for a caller that
// holds w (it checked), the id to pass to Regain after it calls the
// program's code. It calls Release too: call it right before the
// program's code.
func (w *Worker) Holder() int64 {
	raceHandOff(w)
	// While a hand-over decides, the word is this goroutine's id
	// negated (Y2): Regain's slow path takes it for the id.
	return w.holder.Load()
}

// Release tells the race detector, in race builds, that the writes to w
// of the calling goroutine, its holder, come before whatever a holder
// that takes w over meanwhile does (Y6): for a frame of fj's that returns
// to the program's code after touching w. Other builds compile nothing.
func (w *Worker) Release() { raceHandOff(w) }
