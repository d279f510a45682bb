package sched

import "sync/atomic"

// Counters are one worker's counters; pool.WorkerStats documents them for
// users and has the same fields, so that one converts to the other.
type Counters struct {
	Executed     uint64
	Steals       uint64
	FailedSteals uint64
	InjectorPops uint64
	Overflows    uint64
	Sleeps       uint64
	Wakeups      uint64
	Parks        uint64
	// Parked is a gauge, not a counter: the tasks of the worker parked
	// in a wait right now (resumable ones included). The owner's working
	// copy does not use it; Snapshot reads Worker.parked.
	Parked uint64
}

// counters is the owner-only working copy of a worker's Counters. A worker
// counts in plain variables (an atomic add per task would cost more than a
// fork) and publishes them whenever it runs out of local work, before it
// sleeps, every 4096 tasks and when it exits.
type counters Counters

// publishedCounters is what Snapshot reads.
type publishedCounters struct {
	executed, steals, failedSteals, injectorPops, overflows, sleeps, wakeups, parks atomic.Uint64
}

// publish copies w's counters where Snapshot can read them. Owner only.
func (w *Worker) publish() {
	w.pub.executed.Store(w.counts.Executed)
	w.pub.steals.Store(w.counts.Steals)
	w.pub.failedSteals.Store(w.counts.FailedSteals)
	w.pub.injectorPops.Store(w.counts.InjectorPops)
	w.pub.overflows.Store(w.counts.Overflows)
	w.pub.sleeps.Store(w.counts.Sleeps)
	w.pub.wakeups.Store(w.counts.Wakeups)
	w.pub.parks.Store(w.counts.Parks)
}

// Snapshot is what Pool.Snapshot returns.
type Snapshot struct {
	// Workers holds every worker's published counters, indexed by worker
	// id, a spare's added to those of the worker it stands in for.
	Workers []Counters
	// Submitted counts the tasks submitted from outside.
	Submitted uint64
	// Blocking and MostBlocking are the tasks inside a blocking
	// section's f now, and the most at once (blocking.go).
	Blocking, MostBlocking uint64
	// Spares is the number of spares running now, SparesStarted the
	// spares started since the pool started, and Stalls the stalls
	// confirmed (stall.md).
	Spares, SparesStarted, Stalls uint64
}

// Snapshot returns the pool's counters and gauges.
func (p *Pool) Snapshot() Snapshot {
	s := Snapshot{Workers: make([]Counters, len(p.workers)), Submitted: p.submitted.Load()}
	for i, w := range p.workers {
		s.Workers[i] = w.snapshot()
	}
	for k := range p.stall.spares {
		if w := p.spareAt(k); w != nil {
			c, d := &s.Workers[k], w.snapshot()
			c.Executed += d.Executed
			c.Steals += d.Steals
			c.FailedSteals += d.FailedSteals
			c.InjectorPops += d.InjectorPops
			c.Overflows += d.Overflows
			c.Sleeps += d.Sleeps
			c.Wakeups += d.Wakeups
			c.Parks += d.Parks
			c.Parked += d.Parked
		}
	}
	s.Blocking, s.MostBlocking = p.blockingStats()
	s.Spares = uint64(max(0, p.stall.live.Load()))
	s.SparesStarted, s.Stalls = p.stall.started.Load(), p.stall.stalls.Load()
	return s
}

// snapshot returns w's published counters.
func (w *Worker) snapshot() Counters {
	return Counters{
		Executed:     w.pub.executed.Load(),
		Steals:       w.pub.steals.Load(),
		FailedSteals: w.pub.failedSteals.Load(),
		InjectorPops: w.pub.injectorPops.Load(),
		Overflows:    w.pub.overflows.Load(),
		Sleeps:       w.pub.sleeps.Load(),
		Wakeups:      w.pub.wakeups.Load(),
		Parks:        w.pub.parks.Load(),
		Parked:       uint64(max(0, w.parked.Load())),
	}
}
