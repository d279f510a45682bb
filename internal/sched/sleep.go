package sched

import (
	"runtime"

	"github.com/forkjoin/fj/internal/wsdeque"
)

// The sleep protocol. sleep.md next to this file explains the states, the
// protocol and why no wake-up is lost; the comments here point at its steps
// (P1, S1, ... and the rules U1-U4 of the searching count).

// The words of Worker.inProgress (W1): the tasks in progress in the low
// half, the tasks started in the high half.
const (
	runningMask = 1<<32 - 1
	startedOne  = 1 << 32
)

// The values of Worker.sleepState.
const (
	awake   = 0 // running, searching, or between S1 and S3's store
	asleep  = 1 // announced and re-checking or parked: a waker may claim it
	claimed = 2 // a waker claimed it and counted it as searching (U2)
)

// The control word pool.ctl, three counts of workers:
//
//	bits  0-19  searching: scanning the queues (rule U1 in sleep.md)
//	bits 20-39  sleeping: between their announcement (S1) and leaving the
//	            sleep (S5), each counted by itself
//	bits 40-59  waiting: searchers that found nothing and wait a moment
//	            for a publisher's news before they look again (N1)
//
// Each count is changed only by Adds and CASes that never take it below
// zero (see sleep.md, "Counts"), so a field never borrows from the next.
const (
	searchingOne  = 1
	sleepingOne   = 1 << 20
	waitingOne    = 1 << 40
	countMask     = 1<<20 - 1
	searchingMask = countMask

	minusSearching = ^uint64(0) // searching - 1, as a two's-complement delta
	minusSleeping  = ^uint64(sleepingOne - 1)

	searchingToWaiting = waitingOne - searchingOne
	waitingToSearching = ^uint64(searchingToWaiting - 1)
)

func searchingOf(c uint64) uint32 { return uint32(c) & countMask }
func sleepingOf(c uint64) uint32  { return uint32(c>>20) & countMask }
func waitingOf(c uint64) uint32   { return uint32(c>>40) & countMask }

// notify is called after work has been published (pushed on a deque or the
// injector, by a sequentially consistent store: step P1). This load of ctl
// is step P2; it is the only cost of the protocol on the fork path while
// some worker searches, or none is idle.
func (p *Pool) notify(from *Worker) {
	// Nobody searches, and somebody sleeps or waits for news. fork and
	// refork (fork.go) test ctl themselves before calling publish, so that
	// the common case costs no call on the fork path.
	if c := p.ctl.Load(); c != 0 && uint32(c)&searchingMask == 0 {
		p.notifySlow(from)
	} else if c == 0 && p.stallState.Load() == stallIdle {
		// Published while every worker is busy: arm the stall monitor
		// (stall.md, W2). This load follows P1 and the load of ctl.
		p.armStalls()
	}
}

// notifySlow is the rest of step P2. from is the publishing worker, or nil
// for a goroutine outside the pool.
func (p *Pool) notifySlow(from *Worker) {
	c := p.ctl.Load()
	switch {
	case searchingOf(c) != 0:
	case waitingOf(c) != 0:
		// P3: a waiting searcher will look again as soon as it sees the
		// news; no need to wake anybody.
		p.news.Add(1)
	case sleepingOf(c) != 0:
		p.wakeOne(true, from)
	}
}

// wakeOne wakes a sleeping worker and counts it as searching on its
// behalf, so that further publishers see a searcher and wake nobody. With
// onlyIfNone, it gives up as soon as it sees a searcher or a waiting one
// (a publisher's wake, P2; another publisher got there first). It reports
// whether it woke a worker. from is the worker on whose behalf it wakes
// (nil: a goroutine outside the pool), for the wake chain's length.
func (p *Pool) wakeOne(onlyIfNone bool, from *Worker) bool {
	for attempt := 0; ; attempt++ {
		if attempt > 1 {
			// U3a again: a counted sleeper has not stored asleep yet.
			// Let it run (with one CPU it cannot while we spin).
			runtime.Gosched()
		}
		if p.wakeOnce(onlyIfNone, from) {
			return true
		}
		// U3a: after giving our unit back, look again. A publisher whose
		// P2 saw that unit woke nobody, and its task may have been
		// published after our scan, to be re-checked (S2) by a sleeper
		// that stored asleep after the scan but before the publication,
		// and has parked. The give-back comes after any such P2, so these
		// loads see the task; a sleeper storing asleep after them
		// re-checks after the publication, as in the main argument.
		c := p.ctl.Load()
		if searchingOf(c) != 0 || waitingOf(c) != 0 || sleepingOf(c) == 0 || !p.hasWork() {
			return false
		}
		onlyIfNone = true
	}
}

// wakeOnce is one attempt of wakeOne: count a searcher, claim a sleeper
// for it, or give the unit back (U2, U3).
func (p *Pool) wakeOnce(onlyIfNone bool, from *Worker) bool {
	for {
		c := p.ctl.Load()
		if sleepingOf(c) == 0 || (onlyIfNone && (searchingOf(c) != 0 || waitingOf(c) != 0)) {
			return false
		}
		// U2: count the searcher first, then claim a sleeper for it.
		// The unit is ours until the claim hands it on.
		if p.ctl.CompareAndSwap(c, c+searchingOne) {
			if testHooks != nil && testHooks.searchers != nil {
				testHooks.searchers(c + searchingOne)
			}
			break
		}
	}
	if w := p.claimSleeper(); w != nil {
		w.signal()
		return true
	}
	// U3: nobody could be claimed: every worker counted as sleeping has
	// not stored asleep yet (it re-checks every queue after that store,
	// S2) or is leaving its sleep (S5, and then searches or sleeps
	// again). Give the unit back; wakeOne looks again (U3a).
	if testHooks != nil && testHooks.beforeGiveBack != nil {
		testHooks.beforeGiveBack()
	}
	// A unit given back may leave ctl at 0 while a worker is idle: a
	// sleeper leaving its sleep (S5) that saw this unit did not take one
	// of its own. Forks then stay private (E1) behind the published task
	// this waker woke for, which its P2 saw ctl != 0 for and armed no
	// monitor; a searcher that then takes it arms none either
	// (stopSearching sees no published work). So, as the last searcher
	// does (stopSearching), arm the stall monitor if ctl is 0 now and
	// published work is left (stall.md, W2).
	if c := p.ctl.Add(minusSearching); c == 0 && p.stallState.Load() == stallIdle && p.hasWork() {
		p.armStalls()
	}
	return false
}

// claimSleeper claims a worker that is asleep (sleepState asleep → claimed)
// and returns it, or returns nil if it finds none. The scan starts at a
// rotating position so that wakers spread over the sleepers; it costs a
// load per worker it passes, only on the wake path.
func (p *Pool) claimSleeper() *remote {
	ws := p.workers
	n := uint32(len(ws))
	start := p.wakeHint.Add(1)
	for i := uint32(0); i < n; i++ {
		w := ws[(start+i)%n]
		// Sequentially consistent load and CAS: a sleeper whose store of
		// asleep comes after this load re-checks every queue after it
		// (S2), so skipping it here loses nothing.
		if w.sleepState.Load() == asleep && w.sleepState.CompareAndSwap(asleep, claimed) {
			return w
		}
	}
	return nil
}

// startSearching makes w a searching worker (U1) unless searchers are
// already at least half the workers that are not asleep: as the Go
// runtime limits spinning Ms to half the busy Ps, searchers must not
// outnumber the workers that could be producing work for them. At least
// one worker may always search.
func (w *Worker) startSearching() {
	if w.searching {
		return
	}
	p := w.pool
	n := uint32(len(p.workers))
	for {
		c := p.ctl.Load()
		if s := searchingOf(c) + waitingOf(c); s != 0 && 2*s >= n-sleepingOf(c) {
			return
		}
		if p.ctl.CompareAndSwap(c, c+searchingOne) {
			w.searching = true
			if testHooks != nil && testHooks.searchers != nil {
				testHooks.searchers(c + searchingOne)
			}
			return
		}
	}
}

// stopSearching ends w's search (U4). If w found work, it wakes sleepers
// to search in its place, up to two while searchers are fewer than half
// the workers awake: where there was one task there are often more, and
// each worker woken this way wakes up to two more when it finds work, so
// that a burst of work wakes n workers in O(log n) wake-up latencies in
// sequence rather than n. If w found nothing (it stops to hand the worker
// to a resumed task), it wakes one only if it was the last searcher and
// some queue is non-empty. Either way, the last searcher to stop while
// work it may not have seen is queued hands on the duty to search (S4).
func (w *Worker) stopSearching(found bool) {
	if !w.searching {
		return
	}
	w.searching = false
	p := w.pool
	c := p.ctl.Add(minusSearching)
	if c == 0 && p.stallState.Load() == stallIdle && p.hasWork() {
		// The last worker to find work: every worker is busy now, with
		// work queued behind them. Arm the stall monitor (stall.md,
		// W2); these loads follow the add.
		p.armStalls()
	}
	if sleepingOf(c) == 0 {
		return
	}
	if !found {
		if searchingOf(c) == 0 && p.hasWork() {
			p.wakeOne(true, w)
		}
		return
	}
	for k := rampWakes(c, uint32(len(p.workers))); k > 0; k-- {
		if !p.wakeOne(false, w) {
			return
		}
	}
}

// rampWakes is how many sleepers a searcher that found work wakes (S4),
// given ctl after it stopped searching and the worker count n: up to two,
// while searchers and waiters stay fewer than half the workers awake, and
// always one if it was the last searcher and somebody sleeps.
func rampWakes(c uint64, n uint32) int {
	s, l := searchingOf(c)+waitingOf(c), sleepingOf(c)
	k := 0
	for k < 2 && l > 0 && (s == 0 || 2*s < n-l) {
		k++
		s++
		l--
	}
	return k
}

// sleep parks the worker's holder until it is woken: by a publisher
// (wakeOne), by a parked task of w's becoming resumable, or by Close. It
// returns early, without parking, if its re-check finds work, a resumable
// task, or the pool closed with nothing running; it reports whether it
// returned for that reason (and so should look for the work at once).
// Either way the caller goes back to searching; w.searching tells whether
// a waker has counted w as a searcher.
func (w *Worker) sleep() (cancelled bool) {
	p := w.pool

	// S1: announce. One sequentially consistent Add moves w from the
	// searching count (if it was counted) to the sleeping count; the
	// store of asleep after it makes w claimable by wakers.
	delta := uint64(sleepingOne)
	if w.searching {
		w.searching = false
		delta += minusSearching
	}
	p.ctl.Add(delta)
	if testHooks != nil && testHooks.afterAnnounce != nil {
		testHooks.afterAnnounce(w)
	}
	w.sleepState.Store(asleep)

	// S2: re-check everything that could end the sleep. Every check is a
	// sequentially consistent load made after the store of asleep, so
	// work published before a publisher read ctl or scanned the sleep
	// states (and found nobody to wake), or a task made resumable before
	// we announced, is seen here.
	if p.hasWork() || w.resumePending() || (p.closed.Load() && p.idleNow()) || p.privateWork(w) {
		w.leaveSleep(false)
		return true
	}

	// S3: park. A token sent since S1 (by a waker that claimed w, by
	// resume or by Close) is buffered in the channel, so this returns at
	// once.
	if testHooks != nil && testHooks.beforePark != nil {
		testHooks.beforePark(w)
	}
	w.counts[countSleeps]++
	w.flushCounters()
	<-w.wake
	w.counts[countWakeups]++
	w.leaveSleep(true)
	return false
}

// leaveSleep is step S5: w stops being asleep, after it woke (woken) or
// cancelled its sleep in S2. It takes itself off the sleeping count; if a
// waker claimed it meanwhile, it holds the waker's searching unit now.
func (w *Worker) leaveSleep(woken bool) {
	p := w.pool
	if w.sleepState.CompareAndSwap(asleep, awake) {
		// Nobody claimed us. A token in the channel now is stale (a
		// resume or Close token whose cause we are about to re-check
		// anyway): drop it rather than take a spurious wake-up later.
		if !woken {
			select {
			case <-w.wake:
			default:
			}
		}
	} else {
		// Claimed: the waker counted us as searching (U2) and sends a
		// token right after its claim. Take that token now if we have
		// not woken by it, so that it does not cut a later sleep short.
		// It always comes: the waker's send either fills the empty
		// channel or finds a token there already.
		w.sleepState.Store(awake)
		w.searching = true
		if !woken {
			w.fjWaits.Add(1) // stall.md, V3: a wait of fj's, awake
			<-w.wake
			w.fjWaits.Add(1)
		}
		p.ctl.Add(minusSleeping)
		return
	}
	// S5 for a worker nobody claimed: it leaves the sleeping count and,
	// in the same CAS, takes a searching unit as U1 would (if the cap
	// allows; if not, others search). The others may be a waker's unit
	// only (U2, given back at U3): ctl then goes to 0 while w is idle
	// until it counts itself again (U1), and wakeOnce's give-back arms
	// the stall monitor as a last searcher would (stall.md, W2;
	// TestStallGiveBackLeavesPrivateFork).
	n := uint32(len(p.workers))
	for {
		c := p.ctl.Load()
		nc := c + minusSleeping
		s := searchingOf(c) + waitingOf(c)
		take := s == 0 || 2*s < n-(sleepingOf(c)-1)
		if take {
			nc += searchingOne
		}
		if p.ctl.CompareAndSwap(c, nc) {
			if take {
				w.searching = true
				if testHooks != nil && testHooks.searchers != nil {
					testHooks.searchers(nc)
				}
			}
			if testHooks != nil && testHooks.afterS5 != nil {
				testHooks.afterS5(w, take)
			}
			return
		}
	}
}

// hasWork reports whether any queue looks non-empty: the injector or any
// worker's deque. It is the re-check of step S2 (and the last look before
// a worker exits), so it must read every queue after the caller's own
// announcement; each read is a sequentially consistent load.
func (p *Pool) hasWork() bool {
	if p.inj.len() != 0 {
		return true
	}
	for _, v := range p.workers {
		if v.dq.Len() != 0 {
			return true
		}
	}
	return false
}

// privateWork is step S2a: whether another worker holds a private task
// (a fork made while ctl was 0, never published). Its owner stored its
// bottom with a plain store and then loaded ctl (E1); we stored ctl (S1)
// and now run the heavy barrier before loading the bottoms: either the
// owner's load came after its barrier point and saw our announcement, so
// it publishes and notifies (E1, P1-P3), or its push is visible here and
// we cancel the sleep and take the task (M2). So no worker sleeps while a
// fork waits in a running worker's deque. The barrier is skipped when no
// worker runs a task (nobody can be forking) or where private steals do
// not exist (wsdeque.md, "Where there is no heavy barrier"). It is the
// only heavy barrier of an idle episode: the victims' tops are read
// before it (D8's first step) and kept for M2, whose claim of a task
// left behind needs no barrier of its own then (stealPrivate).
func (p *Pool) privateWork(self *Worker) bool {
	if !wsdeque.PrivateSteals() {
		return false
	}
	n := len(p.workers)
	if self.tops == nil {
		// The victims' tops for M2, then S2a's marks below.
		self.tops = make([]int64, 2*n)
	}
	tops, marks := self.tops[:n], self.tops[n:]
	c := p.ctl.Load()
	if int(searchingOf(c)+sleepingOf(c)+waitingOf(c)) >= n {
		for i := range tops { // every worker is idle: nobody forks
			tops[i] = -1
		}
		return false
	}
	for i, v := range p.workers {
		t, ok := v.dq.PrivateTop() // D8, step 1
		if !ok || v == self.remote() {
			t = -1
		}
		tops[i] = t
	}
	fenced := wsdeque.Barrier() // H1; D8, step 2
	self.counts[countBarriers]++
	if !fenced {
		for i := range tops {
			tops[i] = -1
		}
	}
	// A private task seen now may be a fork between its push and its
	// own publication (E1, which sees our announcement and publishes and
	// notifies): that one needs no sleeper awake, and a recursion forking
	// all the time would cancel every sleep. So look twice, a moment
	// apart, and cancel only for private tasks of a deque whose owner
	// published nothing meanwhile (S2a): a fork left behind, not one
	// being published.
	any := false
	for i, v := range p.workers {
		marks[i] = -1
		if v != self.remote() {
			if pub, ok := v.dq.PrivateMark(); ok {
				marks[i], any = pub, true
			}
		}
	}
	if !any {
		return false
	}
	for range privateSpins {
		left := false
		for i, v := range p.workers {
			if pub := marks[i]; pub >= 0 {
				if v.dq.StillPrivate(pub) {
					left = true
				} else {
					marks[i] = -1 // published, popped or stolen since
				}
			}
		}
		if !left {
			return false
		}
	}
	return true
}

// privateSpins is how many times S2a looks again before it calls a
// private task left behind: a microsecond or so, far longer than a fork
// takes from its push to its publication, far shorter than a sleep.
const privateSpins = 256

// idleNow reports whether no task of the pool is in progress: none running
// in any worker's main loop, and none parked. Each worker counts its own
// (inProgress), so no task writes a pool-global word; this sums them.
func (p *Pool) idleNow() bool {
	for _, w := range p.workers {
		if w.inProgress.Load()&runningMask != 0 {
			return false
		}
	}
	return true
}

// quiescent reports, once Close has begun, whether a worker may exit: no
// task is running (one could still fork work for the others to steal), no
// external submission is in flight and no queue holds work.
func (p *Pool) quiescent() bool {
	return p.idleNow() && p.inflight.Load() == 0 && !p.hasWork()
}

// taskStart and taskDone bracket a main-loop task on w (see inProgress).
// After Close has begun, the task whose end leaves no task in progress
// wakes every worker, so that they re-check whether they may exit: an idle
// worker that saw running work parks instead of exiting (S2), and this is
// the wake-up it waits for. Two tasks ending at once both see the other's
// decrement or one of them does: each decrements, then loads every count,
// all sequentially consistent. If the decrement comes before Close's store
// of closed, Close's own wakeAll does the job.
func (w *Worker) taskStart() { w.inProgress.Add(startedOne + 1) } // and W1's mark (stall.md)

func (w *Worker) taskDone() {
	w.inProgress.Add(-1)
	if p := w.pool; p.closed.Load() && p.idleNow() {
		p.wakeAll()
	}
}

// wakeAll sends a token to every worker that is asleep (or claimed), so
// that it wakes and re-checks. A worker it skips stored asleep after this
// load of its state, and re-checks closed and idleNow after that store
// (S2); the caller changed what those read before calling.
func (p *Pool) wakeAll() {
	for _, w := range p.workers {
		if w.sleepState.Load() != awake {
			w.signal()
		}
	}
}

// testHooks lets tests watch windows of the protocol: nil outside the
// tests that set it (export_test.go, sleep_u3_test.go), and consulted on
// the search, sleep and wake paths only, never on the fork path.
var testHooks *hooks

// hooks are the tests' view into the sleep protocol and the stall watch
// (export_test.go installs them). Every field may be nil.
type hooks struct {
	searchers      func(c uint64)             // a unit was added to searching (U1, U2); c is ctl right after
	beforeGiveBack func()                     // U3, before the unit is given back
	afterAnnounce  func(w *Worker)            // S1, between the announcement and the store of asleep
	beforePark     func(w *Worker)            // S3, after the re-check, before parking
	beforeDisarm   func()                     // W3, after a tick that found nothing queued, before disarmStalls
	afterDisarm    func(bool)                 // W3, after disarmStalls, with what it returned
	afterS5        func(w *Worker, took bool) // S5 unclaimed, after the CAS, with whether w took a searching unit
}
