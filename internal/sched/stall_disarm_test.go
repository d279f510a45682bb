package sched_test

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
