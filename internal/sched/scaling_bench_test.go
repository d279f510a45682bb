package sched_test

import (
	"fmt"
	"testing"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// fibCut forks only at n >= cut (every level for cut 0) and runs sequential
// code below it.
func fibCut(w *pool.Worker, n, cut int) int {
	if n < 2 || n < cut {
		return fibSeq(n)
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibCut(w, n-1, cut) },
		func(w *pool.Worker) int { return fibCut(w, n-2, cut) })
	return a + b
}

// BenchmarkScaling runs fib(27) forked at every level and fib(35) cut off
// below 20 on pools of 2, 8 and 64 workers. On a machine with fewer cores
// than workers the larger pools are oversubscribed: they must not be much
// slower than the 2-worker pool, since what they add is searching and
// sleeping, whose cost the scheduler bounds per idle episode.
func BenchmarkScaling(b *testing.B) {
	cases := []struct {
		name   string
		n, cut int
	}{{"fib27", 27, 0}, {"fib35cut20", 35, 20}}
	for _, c := range cases {
		want := fibSeq(c.n)
		for _, workers := range []int{2, 8, 64} {
			b.Run(fmt.Sprintf("%s/workers=%d", c.name, workers), func(b *testing.B) {
				p := pool.New(pool.WithWorkers(workers))
				defer p.Close()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibCut(w, c.n, c.cut) }); got != want {
						b.Fatalf("fib(%d) = %d, want %d", c.n, got, want)
					}
				}
			})
		}
	}
}
