package pool

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/forkjoin/fj/internal/sched"
)

// Stats is a snapshot of a pool's counters, per worker and in total.
//
// A worker counts in plain owner-only variables (an atomic add per task would
// cost more than a fork) and copies them out whenever it runs out of local
// work, before it sleeps, every 4096 tasks and when it exits. A snapshot
// taken while workers are busy may therefore lag behind by the work done
// since; once the pool is idle or closed it is exact.
type Stats struct {
	// Workers holds one entry per worker, indexed by Worker.ID.
	Workers []WorkerStats
	// Total is the sum over Workers.
	Total WorkerStats
	// Submitted counts the work handed to the pool from outside its
	// tasks: one per Pool.Run, and per forkjoin.Invoke, taskblock.Define
	// or parallel call given a *Pool. A call on a *Pool from inside one
	// of the pool's own tasks runs on that task's worker and is not
	// counted, nor is a call that finishes on the calling goroutine
	// without the pool (a short sort, for instance).
	Submitted uint64
	// Blocking is a gauge: the tasks inside a blocking section's f (see
	// Blocking) at the moment of the snapshot, current even while the
	// workers are busy. Each keeps a goroutine and its stack while its
	// worker runs other tasks. MostBlocking is the most there have been
	// at once since the pool started; when it equals the cap
	// (WithMaxBlocking), sections have had to wait for a slot, or came
	// close. Sub keeps the later snapshot's values of both.
	Blocking, MostBlocking uint64
	// Spares is a gauge: the tasks whose worker the pool handed to
	// another goroutine while they blocked without a section (see
	// StallReport) and that have not got it back yet. HandOvers counts
	// those hand-overs, and SparesStarted the ones among them that gave
	// the worker to a spare goroutine rather than to a parked task of the
	// worker's that was ready to resume (which only that worker can run:
	// a sync.Mutex held across a join, and a younger fork that locks it).
	// Stalls counts the blocks found (the first is reported), and
	// SparesAtLimit the hand-overs refused because the worker had
	// StallReport.SpareLimit tasks handed over already. Sub keeps the
	// later Spares and subtracts the others.
	Spares, SparesStarted, Stalls, SparesAtLimit, HandOvers uint64
	// ScratchBytes is a gauge of the process, not of the pool: the bytes
	// of parallel.SortByKey's scratch memory that lie outside the Go heap
	// at the moment of the snapshot, whichever pool or goroutine sorted.
	// They are in use by sorts running now, or kept for later sorts
	// (for at most a minute after two collections; see
	// parallel.SortByKey). Only the scratch of elements without
	// pointers, 1 MiB or more, on Linux, lies there; elsewhere it is 0.
	// The Go runtime counts none of these bytes: neither runtime/metrics
	// nor MemStats shows them, and the memory limit (GOMEMLIMIT) does not
	// see them; with a limit set, a sort gives the kept ones back as it
	// returns when they, with the heap grown to its goal, would pass it.
	// Sub keeps the later snapshot's value.
	ScratchBytes uint64
}

// WorkerStats are one worker's counters.
type WorkerStats struct {
	// Executed counts the tasks the worker ran, including forks it took
	// back from its own deque and ran inline.
	Executed uint64
	// Steals counts tasks taken from other workers' deques (StealOps
	// counts the steals, each of which may take several).
	Steals uint64
	// FailedSteals counts steal attempts that came back empty: the victim
	// had nothing, or another thief won the race.
	FailedSteals uint64
	// InjectorPops counts tasks taken from the injector (external
	// submissions and overflow).
	InjectorPops uint64
	// Overflows counts forks that found the worker's deque full and went
	// to the injector instead.
	Overflows uint64
	// Sleeps counts the times the worker parked because it found no work.
	Sleeps uint64
	// Wakeups counts the times it was woken from parking.
	Wakeups uint64
	// Parks counts the times a task on the worker had to wait for another
	// and parked, handing the worker to another goroutine (see the package
	// documentation, "Waiting"). A join parks when what it joins was stolen, or when
	// it joins out of order (other forks of its are in the way).
	Parks uint64
	// StealOps counts the steals that took tasks from another worker's
	// deque: a thief takes half of what a deque offers at once, so a
	// generator that queued n tasks is spread in O(log n) steals
	// (Steals/StealOps tasks per steal).
	StealOps uint64
	// PrivateSteals counts the tasks taken before their forker had
	// published them (a fork made while every worker was busy, left
	// behind when a thief took its forker's older ones): an idle worker
	// takes those too, paying a process-wide memory barrier, so ready
	// work never waits for its forker's current task to end. It is zero
	// where the platform has no such barrier (see the package
	// documentation, "Greedy").
	PrivateSteals uint64
	// Barriers counts the process-wide memory barriers the worker ran
	// (membarrier(2) on Linux), which interrupt every running thread of
	// the process, the busy workers' included: the private steals' and
	// the one an idle worker runs before it sleeps, so that it does not
	// sleep while a fork waits unpublished in a busy worker's deque. An
	// idle episode (running out of work, searching, sleeping) runs at
	// most one, and the number per fork of a busy worker does not grow
	// with the number of idle workers. It is zero where the platform has
	// no such barrier (see the package documentation, "Greedy").
	Barriers uint64
	// Parked is a gauge, not a counter: the number of the worker's tasks
	// parked in a wait at the moment of the snapshot, those whose wait is
	// over and that wait for the worker to come back to them included.
	// Each one keeps a goroutine and its stack. Unlike the counters, it
	// is current even while the worker is busy. Total.Parked is the
	// pool's total, and Sub keeps the later snapshot's value.
	Parked uint64
}

// Stats returns a snapshot of the pool's counters; see Stats for how
// current it is.
func (p *Pool) Stats() Stats {
	p.check("Stats")
	ss := p.sched().Snapshot()
	s := Stats{Submitted: ss.Submitted}
	s.Blocking, s.MostBlocking = ss.Blocking, ss.MostBlocking
	s.Spares, s.SparesStarted, s.Stalls, s.SparesAtLimit = ss.Spares, ss.SparesStarted, ss.Stalls, ss.SparesAtLimit
	s.HandOvers = ss.HandOvers
	s.ScratchBytes = uint64(max(0, sched.ScratchBytes.Load()))
	s.setWorkers(ss.Workers)
	return s
}

// setWorkers sets s.Workers and s.Total, their sum, from the workers'
// counters.
func (s *Stats) setWorkers(cs []sched.Counters) {
	s.Workers = make([]WorkerStats, len(cs))
	var total sched.Counters
	for i, c := range cs {
		s.Workers[i] = workerStats(c)
		total = total.Plus(c)
	}
	s.Total = workerStats(total)
}

// workerStats and counters convert between a worker's counters as the
// scheduler keeps them (an array indexed by counter) and WorkerStats,
// whose fields are the same counters in the same order: the same memory
// (layout_test.go pins it).
func workerStats(c sched.Counters) WorkerStats { return *(*WorkerStats)(unsafe.Pointer(&c)) }

func (w WorkerStats) counters() sched.Counters { return *(*sched.Counters)(unsafe.Pointer(&w)) }

// Sub returns the counters of s minus those of an earlier snapshot of the
// same pool: the activity in between. The gauges (Parked, Blocking,
// MostBlocking, Spares, ScratchBytes) are s's own.
func (s Stats) Sub(earlier Stats) Stats {
	d := Stats{Submitted: s.Submitted - earlier.Submitted}
	d.Blocking, d.MostBlocking = s.Blocking, s.MostBlocking
	d.Spares, d.ScratchBytes = s.Spares, s.ScratchBytes
	d.SparesStarted, d.Stalls = s.SparesStarted-earlier.SparesStarted, s.Stalls-earlier.Stalls
	d.SparesAtLimit = s.SparesAtLimit - earlier.SparesAtLimit
	d.HandOvers = s.HandOvers - earlier.HandOvers
	cs := make([]sched.Counters, len(s.Workers))
	for i := range s.Workers {
		cs[i] = s.Workers[i].counters()
		if i < len(earlier.Workers) {
			cs[i] = cs[i].Minus(earlier.Workers[i].counters()) // the gauge Parked: the later value
		}
	}
	d.setWorkers(cs)
	return d
}

// String formats the snapshot as a small table: one row per worker and a
// total, then the pool-wide figures.
func (s Stats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %12s %10s %9s %8s %12s %9s %9s %8s %8s %8s %8s %7s\n",
		"worker", "executed", "steals", "stealops", "private", "failed", "injector", "overflow", "sleeps", "wakeups", "parks", "barriers", "parked")
	row := func(name string, w WorkerStats) {
		fmt.Fprintf(&b, "%-7s %12d %10d %9d %8d %12d %9d %9d %8d %8d %8d %8d %7d\n", name,
			w.Executed, w.Steals, w.StealOps, w.PrivateSteals, w.FailedSteals, w.InjectorPops, w.Overflows, w.Sleeps, w.Wakeups, w.Parks, w.Barriers, w.Parked)
	}
	for i, w := range s.Workers {
		row(fmt.Sprint(i), w)
	}
	row("total", s.Total)
	fmt.Fprintf(&b, "in blocking sections: %d now, %d at most\n", s.Blocking, s.MostBlocking)
	fmt.Fprintf(&b, "stalls: %d; spare workers: %d now, %d started, %d refused at the limit; hand-overs: %d\n",
		s.Stalls, s.Spares, s.SparesStarted, s.SparesAtLimit, s.HandOvers)
	fmt.Fprintf(&b, "SortByKey scratch outside the Go heap (the process's): %d bytes\n", s.ScratchBytes)
	fmt.Fprintf(&b, "submitted from outside: %d\n", s.Submitted)
	return b.String()
}
