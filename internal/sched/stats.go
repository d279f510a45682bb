package sched

import "sync/atomic"

// ScratchBytes is a gauge of the process, not of a pool: the bytes of
// parallel.SortByKey's scratch mapped outside the Go heap now
// (parallel/sort_key_scratch.md, K8). parallel keeps it; pool.Stats
// reports it.
var ScratchBytes atomic.Int64

// Plus returns c and o added counter by counter: the counters of two
// workers.
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
	// id.
	Workers []Counters
	// Submitted counts the tasks submitted from outside.
	Submitted uint64
	// Blocking and MostBlocking are the tasks inside a blocking
	// section's f now, and the most at once (blocking.go).
	Blocking, MostBlocking uint64
	// Spares is the number of tasks handed over now (stall.md, Y4),
	// waiting for their worker back, HandOvers the hand-overs since the
	// pool started and SparesStarted those that started a goroutine (to
	// an idle or new carrier, not a ready parked task), Stalls the blocks
	// confirmed, and SparesAtLimit the hand-overs refused at the bound
	// (Y1).
	Spares, SparesStarted, Stalls, SparesAtLimit, HandOvers uint64
}

// Snapshot returns the pool's counters and gauges.
func (p *Pool) Snapshot() Snapshot {
	s := Snapshot{Workers: make([]Counters, len(p.workers)), Submitted: p.submitted.Load()}
	for i, w := range p.workers {
		s.Workers[i] = w.snapshot()
	}
	s.Blocking, s.MostBlocking = p.blockingStats()
	for _, w := range p.workers {
		s.Spares += uint64(max(0, w.nDisplaced.Load()))
	}
	s.SparesStarted, s.Stalls = p.stall.spares.Load(), p.stall.stalls.Load()
	s.SparesAtLimit = p.stall.atLimit.Load()
	s.HandOvers = p.stall.handOvers.Load()
	return s
}

// blockingStats returns the number of tasks inside a section's f now and
// the most there have been at once since the pool started (Snapshot).
func (p *Pool) blockingStats() (now, most uint64) {
	return uint64(max(0, p.sections.in.Load())), uint64(p.sections.most.Load())
}
