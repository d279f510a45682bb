package fj_test

import (
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// BenchmarkPartlyBusy times the shapes of issue 23's table on 2 workers:
// the other worker is busy for 5 ms when the case forks, and each half
// (or item) keeps a worker busy for a fixed wall time, so that the ideal
// is known: two 100 ms halves take 105 ms (5 ms until the other worker is
// free, then both halves in parallel), eight 50 ms items 205 ms. Its
// ms/op is that time; ideal-ms is the ideal in the same run, and ratio
// their quotient (target <= 1.10). A scheduler that leaves a fork made
// while every worker is busy private until its forker forks again runs
// the halves one after the other: 200 ms. The halves spin on the clock
// rather than sleep, so that they hold their worker as CPU work does.
// internal/sched/greedy_test.go counts the same shapes' lost forks.
func BenchmarkPartlyBusy(b *testing.B) {
	const (
		busy = 5 * time.Millisecond
		half = 100 * time.Millisecond
		item = 50 * time.Millisecond
	)
	hold := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
		}
	}
	cases := []struct {
		name  string
		ideal time.Duration
		run   func(w *pool.Worker)
	}{
		{"Join", busy + half, func(w *pool.Worker) {
			forkjoin.Join(w,
				func(w *pool.Worker) int { hold(half); return 0 },
				func(w *pool.Worker) int { hold(half); return 0 })
		}},
		{"JoinArgs", busy + half, func(w *pool.Worker) {
			forkjoin.JoinArgs(w, func(w *pool.Worker, d time.Duration) int { hold(d); return 0 }, half, half)
		}},
		{"Fork+Join", busy + half, func(w *pool.Worker) {
			f := forkjoin.Fork(w, func(w *pool.Worker) int { hold(half); return 0 })
			hold(half)
			f.Join(w)
		}},
		{"Do", busy + half, func(w *pool.Worker) {
			parallel.Do(w, func(w *pool.Worker) { hold(half) }, func(w *pool.Worker) { hold(half) })
		}},
		{"For2x100ms", busy + half, func(w *pool.Worker) {
			parallel.For(w, 0, 2, func(w *pool.Worker, i int) { hold(half) })
		}},
		{"For8x50ms", busy + 4*item, func(w *pool.Worker) {
			parallel.For(w, 0, 8, func(w *pool.Worker, i int) { hold(item) })
		}},
	}
	for _, c := range cases {
		b.Run("case="+c.name, func(b *testing.B) {
			p := pool.New(pool.WithWorkers(2))
			defer p.Close()
			var total time.Duration
			for range b.N {
				started := make(chan struct{})
				done := make(chan struct{})
				go func() {
					p.Run(func(w *pool.Worker) {
						close(started)
						hold(busy)
					})
					close(done)
				}()
				<-started
				t0 := time.Now()
				p.Run(c.run)
				total += time.Since(t0)
				<-done
			}
			ms := float64(total.Microseconds()) / 1e3 / float64(b.N)
			ideal := float64(c.ideal.Microseconds()) / 1e3
			b.ReportMetric(ms, "ms/op")
			b.ReportMetric(ideal, "ideal-ms")
			b.ReportMetric(ms/ideal, "ratio")
		})
	}
}
