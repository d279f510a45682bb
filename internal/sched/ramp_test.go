package sched_test

import (
	"fmt"
	"math/bits"
	"runtime"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

func fib(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fib(w, n-1) },
		func(w *pool.Worker) int { return fib(w, n-2) })
	return a + b
}

// A burst of work on an idle pool records, for each worker's first
// wake-up, the length of the chain of wake-ups that led to it. On a machine
// with a core per worker that is the number of wake-up latencies in
// sequence before the worker runs, and S4's ramp keeps it O(log n). On
// this 2-core machine woken workers mostly wait for a CPU, and the few that
// run wake the rest one after another, so the chains measure the machine
// more than the policy: this test checks that every woken worker's chain
// is recorded and reports the longest; TestRampWakesLogarithmic checks the
// policy itself, by counting.
func TestWakeRampIsLogarithmic(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	for _, n := range []int{8, 16, 32, 64} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			p := pool.New(pool.WithWorkers(n))
			defer p.Close()
			// Let every worker park after its start-up search, so the
			// burst starts from an idle pool.
			for parked := false; !parked; runtime.Gosched() {
				parked = true
				for _, w := range p.Stats().Workers {
					if w.Sleeps <= w.Wakeups {
						parked = false
					}
				}
			}
			if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 24) }); got != 46368 {
				t.Fatalf("fib(24) = %d", got)
			}
			depth, woken := sched.MaxWakeDepth(sched.From[sched.Pool](p))
			t.Logf("n=%d: %d workers woken, longest chain of wake-ups %d (log2 n = %d)", n, woken, depth, bits.Len(uint(n-1)))
			if woken == 0 || depth == 0 || int(depth) > woken {
				t.Errorf("n=%d: %d workers woken with a longest chain of %d: the chains are not recorded", n, woken, depth)
			}
		})
	}
}

// Searchers (and searchers waiting for news) are capped at half the
// workers awake, at least one (sleep.md, U1), so at most n/2 at any time:
// bursts of small work from outside on pools of n workers must never have
// had more. A pool without the cap lets every idle worker search.
func TestSearchersCapped(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	for _, n := range []int{8, 16, 32, 64} {
		p := pool.New(pool.WithWorkers(n))
		for i := 0; i < 20; i++ {
			if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 12) }); got != 144 {
				t.Fatalf("fib(12) = %d", got)
			}
		}
		p.Close()
		most := sched.MaxSearchers(sched.From[sched.Pool](p))
		t.Logf("n=%d: at most %d searchers at once (limit %d)", n, most, n/2)
		if most == 0 || most > uint32(n/2) {
			t.Errorf("n=%d: %d searchers at once, want 1 to n/2 = %d", n, most, n/2)
		}
	}
}
