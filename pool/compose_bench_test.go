package pool_test

import (
	"testing"

	"github.com/forkjoin/fj/pool"
)

// BenchmarkOwnPoolRun measures what finding out "is the caller a task of
// this pool?" costs on a call on a *Pool, the entry path of every fj call
// that is given a pool (DESIGN.md, "Composability"). Every variant runs an
// empty function on a worker; compare them in one run:
//
//   - worker: w.Run from inside a task, the baseline (no detection);
//   - pool-inside: p.Run from inside a task of p, detected and run inline;
//   - pool-inside-deep: the same 50 frames deeper (runtime.Stack, which
//     the detection reads, walks the whole stack);
//   - pool-outside-busy: p.Run from a goroutine outside p while a task of
//     p runs, so the detection runs, finds nothing, and the call goes
//     through the injector (the round trip dominates).
func BenchmarkOwnPoolRun(b *testing.B) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	nop := func(*pool.Worker) {}
	b.Run("impl=worker", func(b *testing.B) {
		b.ReportAllocs()
		p.Run(func(w *pool.Worker) {
			for i := 0; i < b.N; i++ {
				w.Run(nop)
			}
		})
	})
	b.Run("impl=pool-inside", func(b *testing.B) {
		b.ReportAllocs()
		p.Run(func(w *pool.Worker) {
			for i := 0; i < b.N; i++ {
				p.Run(nop)
			}
		})
	})
	b.Run("impl=pool-inside-deep", func(b *testing.B) {
		b.ReportAllocs()
		p.Run(func(w *pool.Worker) {
			deep(50, func() {
				for i := 0; i < b.N; i++ {
					p.Run(nop)
				}
			})
		})
	})
	b.Run("impl=pool-outside-busy", func(b *testing.B) {
		b.ReportAllocs()
		stop := make(chan struct{})
		running := make(chan struct{})
		go p.Run(func(*pool.Worker) {
			close(running)
			<-stop // keeps a task of p in progress, on one of its 2 workers
		})
		<-running
		for i := 0; i < b.N; i++ {
			p.Run(nop)
		}
		close(stop)
	})
}

//go:noinline
func deep(n int, f func()) {
	if n == 0 {
		f()
		return
	}
	deep(n-1, f)
}
