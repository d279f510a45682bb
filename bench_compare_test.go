package fj_test

import (
	"testing"

	"github.com/sourcegraph/conc"
	"golang.org/x/sync/errgroup"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// How fj compares with the usual ways to fork in Go, on the same recursive
// function: a goroutine and a sync.WaitGroup, an errgroup.Group, and a
// conc.WaitGroup per fork. fibGoroutine and fibJoin are in bench_test.go.
//
// BenchmarkForkStyles/fine forks at every level (fib(27), 317,810 forks):
// the cost of a fork dominates. BenchmarkForkStyles/coarse forks only above
// n = 20 (fib(35), ~10,900 forks of ~20 µs each): the work dominates, and
// every style gets close to the core count.

func fibErrgroup(n, cut int) int {
	if n < cut || n < 2 {
		return fibSeq(n)
	}
	var g errgroup.Group
	var b int
	g.Go(func() error { b = fibErrgroup(n-2, cut); return nil })
	a := fibErrgroup(n-1, cut)
	_ = g.Wait()
	return a + b
}

func fibConc(n, cut int) int {
	if n < cut || n < 2 {
		return fibSeq(n)
	}
	var wg conc.WaitGroup
	var b int
	wg.Go(func() { b = fibConc(n-2, cut) })
	a := fibConc(n-1, cut)
	wg.Wait()
	return a + b
}

func fibGoroutineCut(n, cut int) int {
	if n < cut {
		return fibSeq(n)
	}
	if n < 2 {
		return n
	}
	return fibGoroutineCutFork(n, cut)
}

func fibGoroutineCutFork(n, cut int) int {
	done := make(chan int, 1)
	go func() { done <- fibGoroutineCut(n-2, cut) }()
	a := fibGoroutineCut(n-1, cut)
	return a + <-done
}

func BenchmarkForkStyles(b *testing.B) {
	for _, c := range []struct {
		name   string
		n, cut int
	}{{"fine", 27, 0}, {"coarse", 35, 20}} {
		want := fibSeq(c.n)
		check := func(b *testing.B, got int) {
			if got != want {
				b.Fatalf("fib(%d) = %d, want %d", c.n, got, want)
			}
		}
		b.Run(c.name+"/impl=sequential", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				check(b, fibSeq(c.n))
			}
		})
		b.Run(c.name+"/impl=goroutine", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if c.cut == 0 {
					check(b, fibGoroutine(c.n))
				} else {
					check(b, fibGoroutineCut(c.n, c.cut))
				}
			}
		})
		b.Run(c.name+"/impl=errgroup", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				check(b, fibErrgroup(c.n, c.cut))
			}
		})
		b.Run(c.name+"/impl=conc", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				check(b, fibConc(c.n, c.cut))
			}
		})
		b.Run(c.name+"/impl=fj", func(b *testing.B) {
			p := pool.New()
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				check(b, forkjoin.Invoke(p, func(w *pool.Worker) int {
					if c.cut == 0 {
						return fibJoin(w, c.n)
					}
					return fibCut(w, c.n, c.cut)
				}))
			}
		})
	}
}
