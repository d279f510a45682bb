package sched_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/wsdeque"
	"github.com/forkjoin/fj/pool"
)

// The scheduler's costs must grow no faster than the worker count
// (docs/how-it-works.md; the costs in sleep.md). The development machines have
// 2 cores, so these tests count instead of timing: what a pool of n workers
// does per idle episode is the same on 2 cores as on n, only slower.
//
// Each run submits bursts of small work from outside (fib(12), forked at
// every level), then lets the pool go idle until every worker has parked.
// An idle episode is a worker running out of work, searching and going to
// sleep; its failed steal attempts must stay within 4n per sleep (Go's
// scheduler makes 4 passes over the other Ps; Taskflow 2(n+1) attempts).
// A sleep cancelled by its re-check (S2) is not counted, so a worker that
// cancels and searches again and again without finding what cancelled it
// fails here: on a loaded machine (the README's go test ./..., or two
// processes spinning on the two cores) n=16 failed about one run in 400
// with ~600-1,000 attempts per sleep, all of one worker refused a
// searching unit whose re-pass lacked private steals (search.go; sleep.md,
// N1).
func TestScalingFailedStealsPerSleep(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	for _, n := range []int{8, 16, 32, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			s := idleEpisodes(t, n, 20)
			if s.Total.Sleeps == 0 {
				t.Fatalf("n=%d: no worker slept\n%v", n, s)
			}
			perSleep := float64(s.Total.FailedSteals) / float64(s.Total.Sleeps)
			t.Logf("n=%d: %d failed steals, %d sleeps, %d wake-ups: %.1f failed steals per sleep (limit %d)",
				n, s.Total.FailedSteals, s.Total.Sleeps, s.Total.Wakeups, perSleep, 4*n)
			if perSleep > float64(4*n) {
				t.Errorf("n=%d: %.1f failed steal attempts per sleep, want at most 4n = %d\n%v", n, perSleep, 4*n, s)
			}
		})
	}
}

// idleEpisodes runs bursts of fib(12) on a fresh pool of n workers from
// outside, waits until every worker has parked, and returns the pool's
// Stats.
func idleEpisodes(t *testing.T, n, bursts int) pool.Stats {
	t.Helper()
	p := pool.New(pool.WithWorkers(n))
	defer p.Close()
	for i := 0; i < bursts; i++ {
		if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoin(w, 12) }); got != fibSeq(12) {
			t.Fatalf("fib(12) = %d", got)
		}
	}
	waitParked(p)
	return p.Stats()
}

// Heavy barriers (membarrier, wsdeque.md H1) interrupt every running
// thread of the process, the busy workers' included, so their number is
// bounded by design (sleep.md, S2a): an idle worker runs at most one per
// sleep attempt (the re-check before it parks, whose tops the private
// steal that follows a cancelled sleep reuses, M2), and none while it
// searches. Counted at 2 to 64 workers in two shapes: bursts of work from
// outside that leave the whole pool idle after each (idleEpisodes), and
// one worker forking trivial futures while the others are idle, where
// each fork is published for them and wakes one when nobody searches
// (P2). Per thousand forks of the busy worker, the barriers must not grow
// with the idle workers: at most one searches at a time (U1's cap with
// one busy worker), and only one is woken at a time.
func TestScalingBarriers(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	if !wsdeque.PrivateSteals() {
		t.Skip("no heavy barrier on this platform")
	}
	const forks = 100000
	// The bound per 1000 forks: a few on this machine's cores; 20 leaves
	// room for faster wake-ups, and the race detector's forks are ten
	// times slower, with as many wake-ups per second.
	limit := 20.0
	if fjtest.RaceEnabled {
		limit *= 10
	}
	perK2 := -1.0 // at n = 2, where only one worker can be idle
	for _, n := range []int{2, 8, 16, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			attempts, stop := sched.WatchSleepAttempts()
			defer stop()
			s := idleEpisodes(t, n, 20).Total
			a := attempts()
			t.Logf("n=%d, bursts: %d barriers, %d sleep attempts, %d sleeps", n, s.Barriers, a, s.Sleeps)
			if int64(s.Barriers) > a {
				t.Errorf("n=%d, bursts from outside: %d heavy barriers in %d sleep attempts, want at most one each\n%v", n, s.Barriers, a, s)
			}

			p := pool.New(pool.WithWorkers(n))
			defer p.Close()
			waitParked(p)
			before, a0 := p.Stats(), attempts()
			leaf := func(*pool.Worker) int { return 1 }
			p.Run(func(w *pool.Worker) {
				for range forks {
					forkjoin.Fork(w, leaf).Join(w)
				}
			})
			waitParked(p)
			d, a := p.Stats().Sub(before).Total, attempts()-a0
			perK := float64(d.Barriers) * 1000 / forks
			t.Logf("n=%d, one busy worker: %d barriers in %d sleep attempts (%d sleeps): %.2f per 1000 forks", n, d.Barriers, a, d.Sleeps, perK)
			if int64(d.Barriers) > a {
				t.Errorf("n=%d, one busy worker: %d heavy barriers in %d sleep attempts, want at most one each\n%v", n, d.Barriers, a, d)
			}
			// A worker's sleep attempt follows a wake-up (or a cancelled
			// attempt), of which one is outstanding at a time, whatever
			// the idle workers: the count must not grow with them.
			if perK > limit {
				t.Errorf("n=%d, one busy worker: %.2f heavy barriers per 1000 forks, want at most %.0f\n%v", n, perK, limit, d)
			}
			if perK2 < 0 {
				perK2 = perK
			} else if perK > 3*perK2+3 {
				t.Errorf("n=%d, one busy worker: %.2f heavy barriers per 1000 forks, %.2f with 2 workers: it grows with the idle workers\n%v", n, perK, perK2, d)
			}
		})
	}
}
