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

// Snapshot returns every worker's published counters, indexed by worker
// id, the number of tasks submitted from outside, and the tasks inside a
// blocking section's f now and the most there have been at once since
// the pool started (blocking.go).
func (p *Pool) Snapshot() (workers []Counters, submitted, blocking, mostBlocking uint64) {
	workers = make([]Counters, len(p.workers))
	for i, w := range p.workers {
		workers[i] = Counters{
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
	blocking, mostBlocking = p.blockingStats()
	return workers, p.submitted.Load(), blocking, mostBlocking
}
