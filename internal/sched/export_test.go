package sched

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

// WatchSearchers records, until stop is called, the most workers counted
// as searching or waiting at once, as seen each time one is added (U1,
// U2); most reports it. No pool may be running while it starts or stops.
func WatchSearchers() (most func() uint32, stop func()) {
	var m atomic.Uint32
	testHooks = &hooks{
		searchers: func(c uint64) {
			s := searchingOf(c) + waitingOf(c)
			for {
				old := m.Load()
				if s <= old || m.CompareAndSwap(old, s) {
					return
				}
			}
		},
	}
	return m.Load, func() { testHooks = nil }
}

// WatchSleeps counts, until stop is called, the times a worker parks (S3,
// after its re-check found nothing), and among them the times another
// worker of its pool held a private task then: a task that worker forked
// and has not published, which the sleeper could have run had it been
// published (the greedy property, job.go E1-E4). A private task seen then
// was forked before the sleeper went idle: forks made while a worker is
// idle (ctl != 0) are published at once (E1). The count reads other
// workers' deques racily (wsdeque.PeekPrivate), and counts only private
// tasks that stay so while their owner leaves its deque alone
// (stuckPrivate), not a fork caught between its push and its
// publication. No pool may be running while it starts or stops; it
// replaces other hooks.
func WatchSleeps() (parks, whilePrivate func() int64, stop func()) {
	var all, priv atomic.Int64
	testHooks = &hooks{
		beforePark: func(w *Worker) {
			all.Add(1)
			for _, v := range w.pool.workers {
				if v != w.remote() && stuckPrivate(v) {
					priv.Add(1)
					return
				}
			}
		},
	}
	return all.Load, priv.Load, func() { testHooks = nil }
}

// WatchSleepAttempts counts, until stop is called, the sleep attempts of
// every pool's workers: their announcements (S1), each followed by the
// re-check that runs the idle episode's one heavy barrier (S2a) or
// none. No pool may be running while it starts or stops; it replaces
// other hooks.
func WatchSleepAttempts() (attempts func() int64, stop func()) {
	var n atomic.Int64
	testHooks = &hooks{afterAnnounce: func(*Worker) { n.Add(1) }}
	return n.Load, func() { testHooks = nil }
}

// Run calls f on one of p's workers, as pool.Pool.Run does: on the
// caller's worker if it is a task of p, else queued and waited for (Do).
// For the scheduler's own tests.
func (p *Pool) Run(f func(w *Worker)) { Do(p, p.Caller(), f) }

// Pool makes p a runner of its own (Do), for the scheduler's tests.
func (p *Pool) Pool() *Pool { return p }

// stuckPrivate reports whether v holds private tasks that stay private
// while its owner does not touch its deque: a fork made a moment ago and
// about to be published by the same fork (E1) is not counted, a fork
// left private while its owner runs a leaf is. It reads v's deque
// racily, again after each of up to a thousand yields, during which a
// forking owner finishes its fork (or makes another, moving its bottom):
// with 64 workers on two cores, the owner may wait behind dozens of
// goroutines before it runs again, more than a few yields let through.
func stuckPrivate(v *remote) bool {
	st := &v.dq
	n, b := st.PeekPrivate(), st.PeekBottom()
	if n == 0 {
		return false
	}
	for range 1000 {
		runtime.Gosched()
		if st.PeekPrivate() != n || st.PeekBottom() != b {
			return false
		}
	}
	return true
}

// funcTask is a task that runs a function of the public worker type P.
type funcTask[P any] struct {
	task
	f func(w *P)
}

func (t *funcTask[P]) Run(w *Worker) { t.f(As[P](w)) }

// Submit queues f on p's injector from any goroutine, as Pool.Run does
// without waiting: for tests of the injector and of waits on events. f
// must not panic.
func Submit[P any](p *Pool, f func(w *P)) {
	t := &funcTask[P]{f: f}
	t.bind(t)
	p.submit(&t.task)
}

// Wait blocks the calling goroutine, which is not a worker, until e is set.
func Wait(p *Pool, e Event) { p.wait(e) }

// PublishIfDue publishes w's private forks if E2 says so (job.go), for tests that
// wait for a fork to be stolen without joining it.
func PublishIfDue(w *Worker) { w.publishIfDue() }

// Reset makes a set latch unset again (for the latch's own tests).
func (l *Latch) Reset() { l.rearm() }

// Counter is a countdown event for tests: set while its count is zero,
// reusable. It is the waiting protocol of Latch with a count, as Group's
// is, and lives here because only tests need it.
// Counter counts outstanding tasks: Add before a task is scheduled, Done
// when it has finished. It is set while its count is zero, and unlike a
// Latch it can be reused: Add after it reached zero unsets it again. The
// zero value is a set (idle) counter.
type Counter struct {
	n       atomic.Int64
	waiters atomic.Pointer[waiter]
}

// Add adds delta, which may be negative, to the count. It panics if the
// count goes below zero. Reaching zero wakes every goroutine sleeping on
// the counter.
func (c *Counter) Add(delta int64) {
	// Sequentially consistent RMW, paired with the waiter's register-then-
	// check order (see addWaiter): whoever brings the count to zero swaps
	// the waiter list after it, so a waiter that saw a non-zero count
	// before registering cannot be missed.
	v := c.n.Add(delta)
	if v < 0 {
		panic("pool: Counter below zero")
	}
	if v == 0 && c.waiters.Load() != nil {
		// Load first, swap only if someone registered: most counters
		// reach zero with nobody asleep on them, and the swap is an
		// expensive atomic. If the load sees no node, a waiter's push
		// comes later in the sequentially consistent order, and so does
		// its re-check of the count, which then reads zero.
		for n := c.waiters.Swap(nil); n != nil; n = n.next {
			n.signal()
		}
	}
}

// Done decrements the count by one.
func (c *Counter) Done() { c.Add(-1) }

// Count returns the current count.
func (c *Counter) Count() int64 { return c.n.Load() }

// IsSet reports whether the count is zero.
func (c *Counter) IsSet() bool { return c.n.Load() == 0 }

func (c *Counter) addWaiter(n *waiter) bool {
	// Register first; the caller then re-checks IsSet. If it still sees a
	// non-zero count, the Add that brings it to zero comes later in the
	// sequentially consistent order and its Swap returns a list holding n.
	for {
		old := c.waiters.Load()
		n.next = old
		if c.waiters.CompareAndSwap(old, n) {
			return true
		}
	}
}

// Current is current, for the external tests.
func Current() *Worker { return current() }

// MaxBlocking is maxBlocking, for the external tests.
func (p *Pool) MaxBlocking() int { return p.maxBlocking() }

// BlockingStats is what Snapshot reports of the blocking sections.
func (p *Pool) BlockingStats() (now, most uint64) { return p.blockingStats() }

// MarkHandOver is Y2 for w, whose holder is the calling goroutine, as the
// monitor makes it before it confirms the block: under w's hmu, the
// holder word becomes -g. A goroutine then takes it back after d, as
// Y3's refusal does (the holder was not blocked). A holder that checks
// its worker meanwhile must wait for that decision.
func MarkHandOver(w *Worker, d time.Duration) {
	g := goid()
	w.hmu.Lock()
	if !w.holder.CompareAndSwap(g, -g) {
		w.hmu.Unlock()
		panic("MarkHandOver: the caller does not hold the worker")
	}
	go func() {
		time.Sleep(d) // the length of the monitor's decision, not a synchronisation
		w.holder.CompareAndSwap(-g, g)
		w.hmu.Unlock()
	}()
}

// StallState describes p's stall watch and queues, for a failure's message.
func StallState(p *Pool) string {
	s := fmt.Sprintf("stallState=%d ctl=%#x (search %d sleep %d wait %d) inj=%d starts=%d spares=%d handovers=%d stalls=%d ticks=%d\n",
		p.stallState.Load(), p.ctl.Load(), searchingOf(p.ctl.Load()), sleepingOf(p.ctl.Load()), waitingOf(p.ctl.Load()),
		p.inj.len(), p.stall.starts.Load(), p.stall.spares.Load(), p.stall.handOvers.Load(), p.stall.stalls.Load(), p.stall.ticks.Load())
	for _, w := range p.workers {
		st := &w.dq
		s += fmt.Sprintf("  worker %d peek=%d len=%d private=%d bottom=%d holder=%d inProgress=%#x sleep=%d displaced=%d resumable=%d\n",
			w.id, st.Peek(), st.Len(), st.PeekPrivate(), st.PeekBottom(), w.holder.Load(), w.inProgress.Load(), w.sleepState.Load(),
			w.nDisplaced.Load(), w.nResumable.Load())
	}
	return s
}

// StallDisarmHooks installs hooks: beforeDisarm and afterDisarm
// around the monitor's W3 disarm, searchers at each searcher counted
// (U1, U2). stop removes them. No pool may be running while it starts or
// stops.
func StallDisarmHooks(beforeDisarm func(), afterDisarm func(bool), searchers func()) (stop func()) {
	testHooks = &hooks{
		searchers:    func(uint64) { searchers() },
		beforeDisarm: beforeDisarm,
		afterDisarm:  afterDisarm,
	}
	return func() { testHooks = nil }
}

// StallArmed reports whether p's stall monitor is armed (W2, W3).
func StallArmed(p *Pool) bool { return p.stallState.Load() == stallArmed }

// StallGiveBackHooks installs hooks on the sleep protocol's S1
// (afterAnnounce, with the worker's slot), U3 (beforeGiveBack) and S5
// (afterS5: the slot, and whether the worker took a searching unit).
// stop removes them. No pool may be running while it starts or stops.
func StallGiveBackHooks(afterAnnounce func(slot int), beforeGiveBack func(), afterS5 func(slot int, took bool)) (stop func()) {
	testHooks = &hooks{
		beforeGiveBack: beforeGiveBack,
		afterAnnounce:  func(w *Worker) { afterAnnounce(w.id) },
		afterS5:        func(w *Worker, took bool) { afterS5(w.id, took) },
	}
	return func() { testHooks = nil }
}
