package sched_test

import (
	"fmt"
	"testing"

	"github.com/forkjoin/fj/pool"
)

// BenchmarkBlockingEmpty is the cost of a section whose f does not block
// (the hand-off and the hand-back: two goroutine switches), from a task,
// beside the same call without a section; and of Blocking outside every
// task, where it only finds that out (one open pool) and calls f.
//
//	go test ./internal/sched -run '^$' -bench BlockingEmpty -count 5
func BenchmarkBlockingEmpty(b *testing.B) {
	var x int
	f := func() { x++ }
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		b.Run(fmt.Sprintf("in=section/workers=%d", workers), func(b *testing.B) {
			p.Run(func(*pool.Worker) {
				for i := 0; i < b.N; i++ {
					pool.Blocking(f)
				}
			})
		})
		b.Run(fmt.Sprintf("in=plain-call/workers=%d", workers), func(b *testing.B) {
			p.Run(func(*pool.Worker) {
				for i := 0; i < b.N; i++ {
					f()
				}
			})
		})
		if workers == 1 {
			b.Run("in=outside-tasks", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					pool.Blocking(f)
				}
			})
		}
		p.Close()
	}
}
