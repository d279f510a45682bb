package taskblock_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

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
// cost about as much as: Define with 0, 1 and 2 tasks beside Spawn + Join
// of as many (with none, a call), from inside one task, as a block at
// every node of a recursion pays them, on one worker and on two (where the
// idle one may steal). Both forms get functions made once, outside the
// loop, so that what is measured is the scope and its forks, not the
// making of a closure. The target is at most twice the Spawn form.
func BenchmarkBlockCost(b *testing.B) {
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		var sink atomic.Int64 // the tasks may run on either worker
		task := func(*pool.Worker) { sink.Add(1) }
		taskInt := func(*pool.Worker) int { sink.Add(1); return 0 }
		for _, n := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("workers=%d/tasks=%d/form=define", workers, n), func(b *testing.B) {
				body := func(blk *taskblock.Block) {
					for range n {
						blk.Run(task)
					}
				}
				b.ReportAllocs()
				p.Run(func(w *pool.Worker) {
					b.ResetTimer()
					for range b.N {
						taskblock.Define(w, body)
					}
				})
			})
			b.Run(fmt.Sprintf("workers=%d/tasks=%d/form=spawn", workers, n), func(b *testing.B) {
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
		p.Close()
	}
}

// BenchmarkBlockRecursion is issue 32's recursion with a block per node:
// fib(30) with a sequential leaf below 12 (fibSeq(11) is a few hundred
// nanoseconds), written with a block per node running both calls, with
// Spawn + Join per node (the Cilk form: spawn one, call the other), and
// sequentially. c1 = T1/TS is the form's time on one worker over the
// sequential one's; the target is c1 <= 1.3 for the block where the Spawn
// form is <= 1.1.
func BenchmarkBlockRecursion(b *testing.B) {
	const n, cut = 30, 12
	want := fibSeq(n)
	check := func(b *testing.B, got int) {
		if got != want {
			b.Fatalf("fib(%d) = %d, want %d", n, got, want)
		}
	}
	b.Run("form=sequential", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			check(b, fibCut(n, cut))
		}
	})
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		b.Run(fmt.Sprintf("workers=%d/form=block", workers), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				check(b, forkjoin.Invoke(p, func(w *pool.Worker) int { return fibBlock(w, n, cut) }))
			}
		})
		b.Run(fmt.Sprintf("workers=%d/form=spawn", workers), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				check(b, forkjoin.Invoke(p, func(w *pool.Worker) int { return fibSpawn(w, n, cut) }))
			}
		})
		p.Close()
	}
}

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fibCut is the serial elision of fibBlock and fibSpawn.
func fibCut(n, cut int) int {
	if n < cut {
		return fibSeq(n)
	}
	return fibCut(n-1, cut) + fibCut(n-2, cut)
}

func fibBlock(w *pool.Worker, n, cut int) int {
	if n < cut {
		return fibSeq(n)
	}
	var x, y int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { x = fibBlock(w, n-1, cut) })
		b.Run(func(w *pool.Worker) { y = fibBlock(w, n-2, cut) })
	})
	return x + y
}

func fibSpawn(w *pool.Worker, n, cut int) int {
	if n < cut {
		return fibSeq(n)
	}
	t := forkjoin.Spawn(w, func(w *pool.Worker) int { return fibSpawn(w, n-2, cut) })
	x := fibSpawn(w, n-1, cut)
	return x + t.Join(w)
}

// BenchmarkBlockCostPaired is BlockCost with its baseline interleaved: each
// iteration times a round of Defines and a round of Spawn + Join of as
// many tasks back to back, so that both see the same load on a shared
// machine. It reports ns/define, ns/spawn and their ratio, the figure
// issue 32 sets at most 2 (ns/op is a round of each).
func BenchmarkBlockCostPaired(b *testing.B) {
	const round = 1000
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		var sink atomic.Int64
		task := func(*pool.Worker) { sink.Add(1) }
		taskInt := func(*pool.Worker) int { sink.Add(1); return 0 }
		for _, n := range []int{0, 1, 2} {
			b.Run(fmt.Sprintf("workers=%d/tasks=%d", workers, n), func(b *testing.B) {
				body := func(blk *taskblock.Block) {
					for range n {
						blk.Run(task)
					}
				}
				var define, spawn time.Duration
				p.Run(func(w *pool.Worker) {
					var ts [2]forkjoin.Task[int]
					b.ResetTimer()
					for range b.N {
						start := time.Now()
						for range round {
							taskblock.Define(w, body)
						}
						mid := time.Now()
						for range round {
							for i := range n {
								ts[i] = forkjoin.Spawn(w, taskInt)
							}
							for i := n - 1; i >= 0; i-- {
								ts[i].Join(w)
							}
							if n == 0 {
								taskInt(w)
							}
						}
						define += mid.Sub(start)
						spawn += time.Since(mid)
					}
				})
				ops := float64(b.N * round)
				b.ReportMetric(float64(define.Nanoseconds())/ops, "ns/define")
				b.ReportMetric(float64(spawn.Nanoseconds())/ops, "ns/spawn")
				b.ReportMetric(float64(define)/float64(spawn), "define/spawn")
			})
		}
		p.Close()
	}
}

// BenchmarkBlockRecursionPaired is BlockRecursion with the three forms
// timed back to back in every iteration, on 1 and 2 workers: it reports
// each form's time over the sequential one's, block/seq and spawn/seq,
// which on one worker are c1, issue 32's figures (at most 1.3 for the
// block where Spawn's is at most 1.1).
func BenchmarkBlockRecursionPaired(b *testing.B) {
	const n, cut = 30, 12
	want := fibSeq(n)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			var seq, block, spawn time.Duration
			var got [3]int
			b.ResetTimer()
			for range b.N {
				t0 := time.Now()
				got[0] = fibCut(n, cut)
				t1 := time.Now()
				got[1] = forkjoin.Invoke(p, func(w *pool.Worker) int { return fibBlock(w, n, cut) })
				t2 := time.Now()
				got[2] = forkjoin.Invoke(p, func(w *pool.Worker) int { return fibSpawn(w, n, cut) })
				spawn += time.Since(t2)
				seq += t1.Sub(t0)
				block += t2.Sub(t1)
				if got != [3]int{want, want, want} {
					b.Fatalf("fib(%d) = %v, want %d", n, got, want)
				}
			}
			b.ReportMetric(float64(block)/float64(seq), "block/seq")
			b.ReportMetric(float64(spawn)/float64(seq), "spawn/seq")
		})
	}
}
