package sched_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
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
