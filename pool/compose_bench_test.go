package pool_test

import (
	"fmt"
	"testing"

	"github.com/forkjoin/fj/pool"
)

// BenchmarkOwnPoolRun measures what finding out "is the caller a task of
// this pool?" costs on a call on a *Pool, the entry path of every fj call
// that is given a pool (docs/how-it-works.md, "Finding the worker").
// Every variant runs an empty function on a worker; compare them in one
// run:
//
//   - worker: w.Run from inside a task, the baseline (no lookup);
//   - pool-depth=1, 25, 1000: p.Run from inside a task of p, that many
//     frames down: detected (a goroutine id and a table lookup,
//     internal/sched/identity.md) and run inline; the cost must not grow
//     with the depth;
//   - pool-outside-busy: p.Run from a goroutine outside p while a task of
//     p runs: the lookup finds nothing and the call goes through the
//     injector (the round trip dominates).
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
	for _, depth := range []int{1, 25, 1000} {
		b.Run(fmt.Sprintf("impl=pool-depth=%d", depth), func(b *testing.B) {
			b.ReportAllocs()
			p.Run(func(w *pool.Worker) {
				deep(depth, func() {
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						p.Run(nop)
					}
				})
			})
		})
	}
	b.Run("impl=pool-outside-busy", func(b *testing.B) {
		b.ReportAllocs()
		stop := make(chan struct{})
		running := make(chan struct{})
		go p.Run(func(*pool.Worker) {
			close(running)
			//fjvet:ignore blocking keeps a task of p in progress, on purpose
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
	if n <= 1 {
		f()
		return
	}
	deep(n-1, f)
}
