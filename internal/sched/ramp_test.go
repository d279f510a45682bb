package sched_test

import (
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

// Searchers (and searchers waiting for news) are capped at half the
// workers awake, at least one (sleep.md, U1), so at most n/2 at any time:
// bursts of small work from outside on pools of n workers must never have
// had more. A pool without the cap lets every idle worker search.
func TestSearchersCapped(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	for _, n := range []int{8, 16, 32, 64} {
		most, stop := sched.WatchSearchers()
		p := pool.New(pool.WithWorkers(n))
		// At least 20 bursts, and more until a searcher was seen: on a
		// loaded machine one worker may run a small burst alone before
		// any other wakes.
		for i := 0; i < 20 || (most() == 0 && i < 2000); i++ {
			if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 12) }); got != 144 {
				t.Fatalf("fib(12) = %d", got)
			}
		}
		p.Close()
		stop()
		m := most()
		t.Logf("n=%d: at most %d searchers at once (limit %d)", n, m, n/2)
		if m == 0 || m > uint32(n/2) {
			t.Errorf("n=%d: %d searchers at once, want 1 to n/2 = %d", n, m, n/2)
		}
	}
}
