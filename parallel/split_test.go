package parallel_test

import (
	"slices"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// Lazy splitting (split.go) is counted here: the tasks a loop makes must
// depend on how often a worker turns idle, never on the size of the range
// or on how many loops are nested in it.

// nestedSums runs a For over rows whose body sums a row of 500 with a
// nested Reduce, on a fresh pool of the given workers, and returns the
// tasks the pool executed (exact: the pool is closed before the count).
func nestedSums(t *testing.T, workers, rows int) uint64 {
	t.Helper()
	p := pool.New(pool.WithWorkers(workers))
	row := make([]float64, 500)
	for i := range row {
		row[i] = float64(i)
	}
	sums := make([]float64, rows)
	parallel.For(p, 0, rows, func(w *pool.Worker, r int) {
		sums[r] = parallel.Reduce(w, 0, len(row), 0.0, func(_ *pool.Worker, lo, hi int) float64 {
			s := 0.0
			for _, x := range row[lo:hi] {
				s += x
			}
			return s
		}, func(a, b float64) float64 { return a + b })
	})
	p.Close()
	for r, s := range sums {
		if s != 500*499/2 {
			t.Fatalf("row %d: sum %v, want %v", r, s, 500*499/2)
		}
	}
	return p.Stats().Total.Executed
}

// On one worker nothing is ever idle: the call is one task, whatever the
// range and the nesting.
func TestLoopOnOneWorkerMakesNoTask(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, rows := range []int{1, 100, 10000} {
		if got := nestedSums(t, 1, rows); got != 1 {
			t.Errorf("%d rows on 1 worker: %d tasks executed, want 1 (the submitted call)", rows, got)
		}
	}
}

// On two workers a nested loop splits only while its enclosing loop has
// no step left to give away (Worker.LoopStep), and then only for a worker
// that wants work: the task count depends on how often a worker
// turns idle, not on the rows, and stays far below a task per row. Before
// the rule, an inner Reduce split a row of 500 for every idle moment, and
// the other worker stole quarter rows: a task or more per row. The median
// of several calls is bounded, not the worst: at the end of a call, a
// worker waiting for the other's last rows takes halves of rows for as
// long as the other's last step lasts, and how often depends on the
// machine (a call during which one worker's thread is descheduled again
// and again idles more; the race detector slows everything tenfold).
func TestNestedLoopSplitsTheOuterLoop(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	const rows = 2000
	medians := map[int]uint64{}
	for _, n := range []int{rows, 10 * rows} {
		var counts []uint64
		for range 15 {
			counts = append(counts, nestedSums(t, 2, n))
		}
		slices.Sort(counts)
		medians[n] = counts[len(counts)/2]
		if median := medians[n]; median > rows/4 {
			t.Errorf("%d rows on 2 workers: median %d tasks executed, want at most %d, one per 4 rows of the smaller loop (all: %v)",
				n, median, rows/4, counts)
		}
	}
	t.Logf("median tasks: %d for %d rows, %d for %d rows", medians[rows], rows, medians[10*rows], 10*rows)
}
