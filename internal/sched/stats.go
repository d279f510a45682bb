package sched

// Plus returns c and o added counter by counter: the counters of two
// workers, or of a worker and the spare that stood in for it.
func (c Counters) Plus(o Counters) Counters {
	for i, v := range o {
		c[i] += v
	}
	return c
}

// Minus returns the activity between an earlier snapshot o of the same
// worker and c: every counter subtracted, and the gauge c's own.
func (c Counters) Minus(o Counters) Counters {
	for i, v := range o[:countParked] {
		c[i] -= v
	}
	return c
}

// flushCounters copies w's counters where Snapshot can read them. Owner only.
func (w *Worker) flushCounters() {
	for i := range w.flushed {
		w.flushed[i].Store(w.counts[i])
	}
}

// Snapshot is what Pool.Snapshot returns.
type Snapshot struct {
	// Workers holds every worker's flushed counters, indexed by worker
	// id, a spare's added to those of the worker it stands in for.
	Workers []Counters
	// Submitted counts the tasks submitted from outside.
	Submitted uint64
	// Blocking and MostBlocking are the tasks inside a blocking
	// section's f now, and the most at once (blocking.go).
	Blocking, MostBlocking uint64
	// Spares is the number of spares running now, SparesStarted the
	// spares started since the pool started, Stalls the blocks that got
	// one, and SparesAtLimit the spares wanted over the bound (stall.md).
	// HandOvers counts the workers handed to a ready parked task over a
	// blocked holder's head (stall.md, H3).
	Spares, SparesStarted, Stalls, SparesAtLimit, HandOvers uint64
}

// Snapshot returns the pool's counters and gauges.
func (p *Pool) Snapshot() Snapshot {
	s := Snapshot{Workers: make([]Counters, len(p.workers)), Submitted: p.submitted.Load()}
	for i, w := range p.workers {
		s.Workers[i] = w.snapshot()
	}
	for w := range p.madeSpares() { // a spare's, added to its worker's
		s.Workers[w.id] = s.Workers[w.id].Plus(w.snapshot())
	}
	s.Blocking, s.MostBlocking = p.blockingStats()
	s.Spares = uint64(max(0, p.stall.stealable.Load()))
	s.SparesStarted, s.Stalls = p.stall.started.Load(), p.stall.stalls.Load()
	s.SparesAtLimit = p.stall.atLimit.Load()
	s.HandOvers = p.stall.handOvers.Load()
	return s
}

// blockingStats returns the number of tasks inside a section's f now and
// the most there have been at once since the pool started (Snapshot).
func (p *Pool) blockingStats() (now, most uint64) {
	return uint64(max(0, p.sections.in.Load())), uint64(p.sections.most.Load())
}
