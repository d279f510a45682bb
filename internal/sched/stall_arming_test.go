package sched_test

// The stall watch's arming (stall.md, W2, W3): interleavings, forced
// with test hooks, that once left private forks behind blocked holders
// with no monitor to see them.

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/wsdeque"
	"github.com/forkjoin/fj/pool"
)

//fjvet:file-ignore blocking the tests of the stall watch block without sections on purpose

// A sleeper that leaves its sleep (S5) while a waker's unit is counted
// (U2, before U3 gives it back) takes no searching unit of its own, so
// that once the waker gives its unit back ctl is 0 while that worker is
// idle. The interleaving, on 2 workers: A, on worker a, forks X while
// worker b has announced its sleep (S1) but not stored asleep: X is
// published (ctl != 0), and its P2 counts a unit to wake b (U2), finds
// nobody to claim and, before it gives the unit back (U3), b's re-check
// (S2) sees X and leaves its sleep without a unit (the cap counts the
// waker's). The unit given back leaves ctl at 0, and nobody arms the
// monitor. A forks Y: ctl is 0 and X is exposed, so Y stays private
// (E1). b takes X (its stopSearching sees no published work: it arms
// nothing) and X waits for Y; A waits for Y too. Both workers are
// blocked, Y is private, and no monitor runs: the shape of
// TestStallChainOfSpares's hang (and of TestStallAfterStealLeavesPrivateForks
// under random delays).
func TestStallGiveBackLeavesPrivateFork(t *testing.T) {
	if !sched.StallLookExact() || !wsdeque.PrivateSteals() {
		t.Skip("needs the exact look and private steals")
	}
	var aSlot atomic.Int32
	aSlot.Store(-1)
	var on atomic.Bool
	announced := make(chan struct{}) // b is between S1 and its store of asleep
	letSleep := make(chan struct{})
	inGiveBack := make(chan struct{}) // A's P2 is about to give its unit back
	letGiveBack := make(chan struct{})
	leftSleep := make(chan bool, 1) // b's S5, with whether it took a unit
	letSearch := make(chan struct{})
	var o1, o2, o3 sync.Once
	stop := sched.StallGiveBackHooks(func(slot int) {
		if on.Load() && int32(slot) != aSlot.Load() {
			o1.Do(func() { close(announced); <-letSleep })
		}
	}, func() {
		if on.Load() {
			o2.Do(func() { close(inGiveBack); <-letGiveBack })
		}
	}, func(slot int, took bool) {
		if on.Load() && int32(slot) != aSlot.Load() {
			o3.Do(func() { leftSleep <- took; <-letSearch })
		}
	})
	defer stop()
	var r reports
	p := stallPool(2, &r)

	var started atomic.Int32
	bEnd := make(chan struct{})
	ch := make(chan struct{})
	var closeCh sync.Once
	yRan := make(chan struct{})
	forked := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // B: keeps worker b busy until A holds the other
		defer wg.Done()
		p.Run(func(*pool.Worker) {
			started.Add(1)
			<-bEnd
		})
	}()
	go func() { // A
		defer wg.Done()
		p.Run(func(w *pool.Worker) {
			started.Add(1)
			for started.Load() < 2 {
			}
			aSlot.Store(int32(sched.From[sched.Worker](w).ID()))
			on.Store(true)
			close(bEnd) // b ends B, finds nothing and goes to sleep
			<-announced
			x := forkjoin.Fork(w, func(*pool.Worker) int { <-ch; return 1 }) // published; its P2 waits in U3
			y := forkjoin.Fork(w, func(*pool.Worker) int {                   // private behind x
				close(yRan)
				closeCh.Do(func() { close(ch) })
				return 2
			})
			close(forked)
			<-ch // without a section, touching nothing of w's
			y.Join(w)
			x.Join(w)
		})
	}()
	<-inGiveBack
	close(letSleep) // b stores asleep, re-checks (S2), sees x, leaves its sleep
	took := <-leftSleep
	close(letGiveBack) // ctl goes to 0; A forks y
	<-forked
	if took {
		t.Fatal("b took a searching unit in S5: the interleaving was not made")
	}
	close(letSearch) // b takes x
	select {
	case <-yRan:
	case <-time.After(30 * time.Second): // a deadline, not a timing: the monitor runs y within milliseconds
		t.Errorf("y never ran: both workers blocked, y private, no monitor:\n%s", sched.StallState(sched.From[sched.Pool](p)))
		closeCh.Do(func() { close(ch) })
	}
	wg.Wait()
	p.Close()
	stop()
}

// A fork left private behind a published one while the monitor disarms
// (W3): the monitor's tick finds nothing queued; before it stores
// "disarmed", task A forks X (published: its deque exposed nothing, E1;
// its P2 finds the monitor still armed, so it arms nothing) and Y
// (private behind X); task B ends, so its worker searches (ctl != 0); the
// monitor stores "disarmed", and its re-check, seeing a worker that wants
// work, exits (disarmStalls). The searcher takes X, and its
// stopSearching, finding no published work (Y is private), arms nothing.
// X and A both wait for Y without a section: nobody will ever publish Y,
// and no monitor runs to start a spare for it.
func TestStallDisarmLeavesPrivateFork(t *testing.T) {
	if !sched.StallLookExact() || !wsdeque.PrivateSteals() {
		t.Skip("needs the exact look and private steals")
	}
	inWindow := make(chan struct{})  // the monitor is in W3's window
	release := make(chan struct{})   // let the monitor disarm
	disarmed := make(chan bool, 1)   // what disarmStalls returned
	searching := make(chan struct{}) // B's worker is counted searching
	letSearch := make(chan struct{}) // let it search
	var windowOnce, disarmOnce, searchOnce sync.Once
	var holdMonitor, holdSearch atomic.Bool
	holdMonitor.Store(true)
	stop := sched.StallDisarmHooks(func() {
		if holdMonitor.Load() {
			windowOnce.Do(func() {
				close(inWindow)
				<-release
			})
		}
	}, func(again bool) {
		if holdMonitor.Load() {
			disarmOnce.Do(func() { disarmed <- again; holdMonitor.Store(false) })
		}
	}, func() {
		if holdSearch.Load() {
			searchOnce.Do(func() {
				close(searching)
				<-letSearch
			})
		}
	})
	defer stop()
	var r reports
	p := stallPool(2, &r) // after the hooks: no pool may run while they change
	sp := sched.From[sched.Pool](p)

	var started atomic.Int32
	var bEnd atomic.Bool // B computes (never blocks) until it is set
	ch := make(chan struct{})
	var closeCh sync.Once
	yRan := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { // B: busy until told to end
		defer wg.Done()
		p.Run(func(*pool.Worker) {
			started.Add(1)
			for started.Load() < 2 {
			}
			for !bEnd.Load() {
			}
		})
	}()
	go func() { // A
		defer wg.Done()
		p.Run(func(w *pool.Worker) {
			started.Add(1)
			for started.Load() < 2 {
			}
			// Arm the monitor: a fork published while both workers
			// are busy (ctl == 0), taken back at once, so that the
			// monitor's first tick finds nothing queued.
			z := forkjoin.Fork(w, func(*pool.Worker) int { return 0 })
			z.Join(w)
			<-inWindow
			x := forkjoin.Fork(w, func(*pool.Worker) int { <-ch; return 1 }) // published (E1), no arm
			y := forkjoin.Fork(w, func(*pool.Worker) int {                   // private behind x
				close(yRan)
				closeCh.Do(func() { close(ch) })
				return 2
			})
			holdSearch.Store(true)
			bEnd.Store(true) // B ends: its worker searches
			<-ch             // without a section, touching nothing of w's
			y.Join(w)
			x.Join(w)
		})
	}()
	<-searching // B's worker is counted searching: ctl != 0
	close(release)
	again := <-disarmed
	t.Logf("monitor's re-check returned %v; state armed=%v", again, sched.StallArmed(sp))
	close(letSearch) // it takes x; y stays private
	select {
	case <-yRan:
		t.Logf("y ran: the monitor stayed or was armed again")
	case <-time.After(30 * time.Second): // a deadline, not a timing: the monitor runs y within milliseconds
		t.Errorf("y never ran: both workers blocked, y private, no monitor:\n%s", sched.StallState(sp))
		closeCh.Do(func() { close(ch) }) // let the test end
	}
	wg.Wait()
	p.Close()
	stop()
}
