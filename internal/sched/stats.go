package sched

import "sync/atomic"

// Counters are one worker's counters, indexed by the constants below.
// pool.WorkerStats documents them for users, as a struct with one field
// per counter, of the same type and in the same order (pool's layout
// test pins that), so that one is the other's memory: the counters are
// named there and only there.
type Counters [numCounters]uint64

// counters is the owner-only working copy of a worker's Counters. A worker
// counts in plain variables (an atomic add per task would cost more than a
// fork) and flushes them to a copy that Snapshot reads whenever it runs
// out of local work, before it sleeps, every 4096 tasks and when it exits
// ("publish" is for tasks only: making them visible to thieves).
type counters = Counters

// flushedCounters is what Snapshot reads: the counters but the gauge.
type flushedCounters [countParked]atomic.Uint64

// The counters, in pool.WorkerStats' order. The last, countParked, is a
// gauge, not a counter: the tasks of the worker parked in a wait right
// now (resumable ones included); the owner's working copy does not use
// it, Snapshot reads Worker.parked.
const (
	countExecuted = iota
	countSteals
	countFailedSteals
	countInjectorPops
	countOverflows
	countSleeps
	countWakeups
	countParks
	countStealOps
	countPrivateSteals
	countBarriers
	countParked
	numCounters
)

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

// snapshot returns w's flushed counters: any goroutine may ask.
func (w *remote) snapshot() Counters {
	var c Counters
	for i := range w.flushed {
		c[i] = w.flushed[i].Load()
	}
	c[countParked] = uint64(max(0, w.parked.Load()))
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
