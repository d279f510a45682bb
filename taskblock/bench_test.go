package taskblock_test

import (
	"fmt"
	"testing"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// BenchmarkTreeWalk is the N4411 tree walk over a complete binary tree of
// depth 20 (about a million nodes, built once): sequential, a goroutine
// and a WaitGroup per node, a block per node (sumBlock), and a block per
// node above depth 10 only (sumBlockCut). It mirrors the root package's
// BenchmarkTreeWalk20, so that this package has its own numbers.
func BenchmarkTreeWalk(b *testing.B) {
	const depth, cut = 20, 10
	tree := tree20()
	want := sumSeq(tree)
	check := func(b *testing.B, got int) {
		if got != want {
			b.Fatalf("sum = %d, want %d", got, want)
		}
	}
	b.Run("impl=sequential", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumSeq(tree))
		}
	})
	b.Run("impl=goroutine", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumGoroutine(tree))
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=block/workers=%d", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var got int
				taskblock.Define(p, func(blk *taskblock.Block) { got = sumBlock(blk.Worker(), tree) })
				check(b, got)
			}
		})
	}
	b.Run("impl=block-cut/workers=2", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2))
		defer p.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			var got int
			taskblock.Define(p, func(blk *taskblock.Block) { got = sumBlockCut(blk.Worker(), tree, depth, cut) })
			check(b, got)
		}
	})
}

// BenchmarkChecks measures the two shapes whose debug builds (-tags fjdebug,
// -race) used to walk the stack on every Define, Run and Wait: a block per
// node of a 65,535-node tree, and Define nested 8,000 deep. Run it with and
// without -tags fjdebug: a debug build must stay within 2x of a plain one.
func BenchmarkChecks(b *testing.B) {
	tree := buildTree(16)
	want := sumSeq(tree)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	b.Run("impl=block-per-node-65535", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var got int
			taskblock.Define(p, func(blk *taskblock.Block) { got = sumBlock(blk.Worker(), tree) })
			if got != want {
				b.Fatalf("sum = %d, want %d", got, want)
			}
		}
	})
	b.Run("impl=nested-define-8000", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if got := nestDefine(p, 8000); got != 8000 {
				b.Fatalf("depth %d, want 8000", got)
			}
		}
	})
}

// nestDefine nests Define n deep, each body running one task that goes a
// level deeper, and returns the depth reached.
func nestDefine(r pool.Runner, n int) int {
	if n == 0 {
		return 0
	}
	d := 0
	taskblock.Define(r, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { d = 1 + nestDefine(w, n-1) })
	})
	return d
}

// BenchmarkBlockCost is issue 32's task block against the fork it should
// cost about as much as: an empty Define, and Define with one and two
// tasks, beside Spawn + Join of as many (an empty one: a call), on one
// worker, inside one task, as a block at every node of a recursion pays
// them. The target is at most twice the Spawn form.
func BenchmarkBlockCost(b *testing.B) {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var sink int
	task := func(*pool.Worker) { sink++ }
	taskInt := func(*pool.Worker) int { sink++; return 0 }
	for _, n := range []int{0, 1, 2} {
		b.Run(fmt.Sprintf("form=define/tasks=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			p.Run(func(w *pool.Worker) {
				b.ResetTimer()
				for range b.N {
					taskblock.Define(w, func(blk *taskblock.Block) {
						for range n {
							blk.Run(task)
						}
					})
				}
			})
		})
		b.Run(fmt.Sprintf("form=spawn/tasks=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			p.Run(func(w *pool.Worker) {
				var ts [2]forkjoin.Task[int]
				b.ResetTimer()
				for range b.N {
					for i := range n {
						ts[i] = forkjoin.Spawn(w, taskInt)
					}
					for i := n - 1; i >= 0; i-- { // newest first: each join takes its fork back
						ts[i].Join(w)
					}
					if n == 0 {
						taskInt(w)
					}
				}
			})
		})
	}
}
