package fj_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// fib(27) forks 317,810 times: the benchmarks below divide by that to
// report the cost per fork.
const fibN = 27

// benchSink keeps a benchmark's results alive, so that its work is not
// optimised away.
var benchSink int

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

func fibJoin(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibJoin(w, n-1) },
		func(w *pool.Worker) int { return fibJoin(w, n-2) })
	return a + b
}

// fibArgs is fibJoin with the argument-carrying join: no closure, no
// allocation per fork.
func fibArgs(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, fibArgs, n-1, n-2)
	return a + b
}

func fibFork(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	f := forkjoin.Fork(w, func(w *pool.Worker) int { return fibFork(w, n-2) })
	a := fibFork(w, n-1)
	return a + f.Join(w)
}

// fibSpawn is fibFork with the join-once form: the task object is
// recycled, only the closure allocates.
func fibSpawn(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	t := forkjoin.Spawn(w, func(w *pool.Worker) int { return fibSpawn(w, n-2) })
	a := fibSpawn(w, n-1)
	return a + t.Join(w)
}

func fibGoroutine(n int) int {
	if n < 2 {
		return n
	}
	var wg sync.WaitGroup
	var b int
	wg.Add(1)
	go func() { defer wg.Done(); b = fibGoroutine(n - 2) }()
	a := fibGoroutine(n - 1)
	wg.Wait()
	return a + b
}

// joins returns the number of joins fib(n) performs: one per inner node.
func joins(n int) int {
	if n < 2 {
		return 0
	}
	return 1 + joins(n-1) + joins(n-2)
}

func benchPool(b *testing.B, workers int, f func(w *pool.Worker, n int) int, n int, opts ...pool.Option) {
	p := pool.New(append([]pool.Option{pool.WithWorkers(workers)}, opts...)...)
	defer p.Close()
	want := fibSeq(n)
	b.ReportAllocs()
	gcs := gcCount()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return f(w, n) }); got != want {
			b.Fatalf("fib(%d) = %d, want %d", n, got, want)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(joins(n)), "ns/join")
	b.ReportMetric(float64(gcCount()-gcs)/float64(b.N), "gcs/op")
}

// gcCount returns the number of garbage collections completed so far.
func gcCount() uint32 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.NumGC
}

func BenchmarkFib27(b *testing.B) {
	b.Run("impl=sequential", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			fibSeq(fibN)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(joins(fibN)), "ns/join")
	})
	b.Run("impl=goroutine", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			fibGoroutine(fibN)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(joins(fibN)), "ns/join")
	})
	b.Run("impl=fj-args-1w", func(b *testing.B) { benchPool(b, 1, fibArgs, fibN) })
	b.Run("impl=fj-args-2w", func(b *testing.B) { benchPool(b, 2, fibArgs, fibN) })
	b.Run("impl=fj-join-1w", func(b *testing.B) { benchPool(b, 1, fibJoin, fibN) })
	b.Run("impl=fj-join-2w", func(b *testing.B) { benchPool(b, 2, fibJoin, fibN) })
	b.Run("impl=fj-spawn-1w", func(b *testing.B) { benchPool(b, 1, fibSpawn, fibN) })
	b.Run("impl=fj-spawn-2w", func(b *testing.B) { benchPool(b, 2, fibSpawn, fibN) })
	b.Run("impl=fj-fork-1w", func(b *testing.B) { benchPool(b, 1, fibFork, fibN) })
	b.Run("impl=fj-fork-2w", func(b *testing.B) { benchPool(b, 2, fibFork, fibN) })
}

// escape16 and escape32 return a fresh object of 16 or 32 bytes on the
// heap: what a call of BenchmarkAllocWall's recursions allocates.
//
//go:noinline
func escape16(n int) *[2]int { return &[2]int{n} }

//go:noinline
func escape32(n int) *[4]int { return &[4]int{n} }

// fibAlloc0, fibAlloc16 and fibAlloc32 are fibSeq with a call of escape16
// or escape32 in each call that recurses (fibAlloc0 calls neither, through
// the same shape): plain Go, no fj.
func fibAlloc0(n int) int {
	if n < 2 {
		return n
	}
	return fibAlloc0(n-1) + fibAlloc0(n-2)
}

func fibAlloc16(n int) int {
	if n < 2 {
		return n
	}
	o := escape16(n)
	return fibAlloc16(n-1) + fibAlloc16(n-2) + o[0] - n
}

func fibAlloc32(n int) int {
	if n < 2 {
		return n
	}
	o := escape32(n)
	return fibAlloc32(n-1) + fibAlloc32(n-2) + o[0] - n
}

// BenchmarkAllocWall is the wall that allocation puts in front of a
// fine-grained recursion on this machine, without fj: fib(26) twice per
// op, on one goroutine (one after the other) or on two (at once), when
// each call that recurses allocates nothing, 16 bytes (what a fork of
// fib with a closure allocates: the closure) or 32 bytes. Compare the
// goroutines=2 rows with the goroutines=1 rows of the same size in one
// run: the speedup that the collector leaves two cores, beside what fj's
// fibs reach on 2 workers against 1 (BenchmarkFib27). gcs/op counts the
// collections.
func BenchmarkAllocWall(b *testing.B) {
	const n = fibN - 1
	for _, f := range []struct {
		bytes int
		fib   func(int) int
	}{{0, fibAlloc0}, {16, fibAlloc16}, {32, fibAlloc32}} {
		for _, goroutines := range []int{1, 2} {
			b.Run(fmt.Sprintf("bytes=%d/goroutines=%d", f.bytes, goroutines), func(b *testing.B) {
				want := 2 * fibSeq(n)
				b.ReportAllocs()
				gcs := gcCount()
				b.ResetTimer()
				for range b.N {
					var got int
					if goroutines == 1 {
						got = f.fib(n) + f.fib(n)
					} else {
						var other int
						var wg sync.WaitGroup
						wg.Add(1)
						go func() { defer wg.Done(); other = f.fib(n) }()
						got = f.fib(n)
						wg.Wait()
						got += other
					}
					if got != want {
						b.Fatalf("2 fib(%d) = %d, want %d", n, got, want)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(gcCount()-gcs)/float64(b.N), "gcs/op")
			})
		}
	}
}

// BenchmarkForkJoinLeaf is the fixed cost of one fork and its join, alone:
// each form forks a function that returns at once and joins it, in a loop
// on one worker of the pool (on two, the other worker is idle and may take
// the fork), beside the two plain calls it replaces (form=calls), made
// through the same function value as the forms. It is the figure a
// change to the fork and join paths moves most; the recursions above show
// what it means for user code. Compare rows of one run only.
func BenchmarkForkJoinLeaf(b *testing.B) {
	leaf := func(*pool.Worker) int { return 1 }
	leafArg := func(_ *pool.Worker, x int) int { return x }
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		forms := []struct {
			name string
			op   func(w *pool.Worker, i int) int
		}{
			{"calls", func(w *pool.Worker, i int) int { return leaf(w) + leafArg(w, i) }},
			{"join", func(w *pool.Worker, _ int) int {
				x, y := forkjoin.Join(w, leaf, leaf)
				return x + y
			}},
			{"joinargs", func(w *pool.Worker, i int) int {
				x, y := forkjoin.JoinArgs(w, leafArg, i, i)
				return x + y
			}},
			{"spawn", func(w *pool.Worker, _ int) int {
				t := forkjoin.Spawn(w, leaf)
				return t.Join(w) + leaf(w)
			}},
			{"fork", func(w *pool.Worker, _ int) int {
				f := forkjoin.Fork(w, leaf)
				return f.Join(w) + leaf(w)
			}},
		}
		for _, f := range forms {
			b.Run(fmt.Sprintf("form=%s/workers=%d", f.name, workers), func(b *testing.B) {
				b.ReportAllocs()
				p.Run(func(w *pool.Worker) {
					s := 0
					b.ResetTimer()
					for i := range b.N {
						s += f.op(w, i)
					}
					benchSink = s
				})
			})
		}
		p.Close()
	}
}

// BenchmarkFib27Watch is what the stall watch costs a fine-grained
// recursion (issue 31: at most 1.05 times the watch off): fib(27) on 2
// workers with the watch on (the default) and off, side by side.
func BenchmarkFib27Watch(b *testing.B) {
	off := pool.WithStallThreshold(0)
	b.Run("impl=fj-args-2w/watch=on", func(b *testing.B) { benchPool(b, 2, fibArgs, fibN) })
	b.Run("impl=fj-args-2w/watch=off", func(b *testing.B) { benchPool(b, 2, fibArgs, fibN, off) })
	b.Run("impl=fj-join-2w/watch=on", func(b *testing.B) { benchPool(b, 2, fibJoin, fibN) })
	b.Run("impl=fj-join-2w/watch=off", func(b *testing.B) { benchPool(b, 2, fibJoin, fibN, off) })
}

// fibCut forks only above cut and runs sequential code below it: the usual
// shape of real divide-and-conquer code, where each task does enough work
// to amortise the fork.
func fibCut(w *pool.Worker, n, cut int) int {
	if n < cut {
		return fibSeq(n)
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibCut(w, n-1, cut) },
		func(w *pool.Worker) int { return fibCut(w, n-2, cut) })
	return a + b
}

func BenchmarkFib35Cut20(b *testing.B) {
	const n, cut = 35, 20
	want := fibSeq(n)
	b.Run("impl=sequential", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if fibSeq(n) != want {
				b.Fatal("wrong result")
			}
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=fj-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibCut(w, n, cut) }); got != want {
					b.Fatalf("fib(%d) = %d, want %d", n, got, want)
				}
			}
		})
	}
}
