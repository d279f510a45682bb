package fj_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// Benchmarks of the parallel loops against the plain sequential loop doing
// the same work, in the same run.

const (
	mandelW, mandelH = 1024, 1024
	mandelMaxIter    = 500
)

// mandelRow renders row y of the Mandelbrot set: rows through the set cost
// up to mandelMaxIter iterations per pixel, rows outside it a few, so the
// work per row is very uneven.
func mandelRow(y int, row []uint16) {
	ci := float64(y)/mandelH*2.4 - 1.2
	for x := range row {
		cr := float64(x)/mandelW*3.2 - 2.2
		zr, zi := 0.0, 0.0
		i := 0
		for ; i < mandelMaxIter && zr*zr+zi*zi <= 4; i++ {
			zr, zi = zr*zr-zi*zi+cr, 2*zr*zi+ci
		}
		row[x] = uint16(i)
	}
}

func checksum(img []uint16) (s uint64) {
	for _, v := range img {
		s += uint64(v)
	}
	return s
}

func BenchmarkMandelbrot(b *testing.B) {
	want := make([]uint16, mandelW*mandelH)
	for y := 0; y < mandelH; y++ {
		mandelRow(y, want[y*mandelW:(y+1)*mandelW])
	}
	sum := checksum(want)
	b.Run("impl=loop", func(b *testing.B) {
		img := make([]uint16, mandelW*mandelH)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for y := 0; y < mandelH; y++ {
				mandelRow(y, img[y*mandelW:(y+1)*mandelW])
			}
		}
		if checksum(img) != sum {
			b.Fatal("wrong image")
		}
	})
	b.Run("impl=fj-for", func(b *testing.B) {
		p := pool.New()
		defer p.Close()
		img := make([]uint16, mandelW*mandelH)
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			parallel.For(p, 0, mandelH, func(_ *pool.Worker, y int) {
				mandelRow(y, img[y*mandelW:(y+1)*mandelW])
			})
		}
		if checksum(img) != sum {
			b.Fatal("wrong image")
		}
	})
}

// sink defeats dead-code elimination of the sequential baselines.
var sink float64

func BenchmarkReduceSum50M(b *testing.B) {
	const n = 50_000_000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i%1000) * 0.5
	}
	chunk := func(_ *pool.Worker, lo, hi int) float64 {
		s := 0.0
		for _, x := range xs[lo:hi] {
			s += x
		}
		return s
	}
	add := func(a, b float64) float64 { return a + b }
	b.Run("impl=loop", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			s := 0.0
			for _, x := range xs {
				s += x
			}
			sink = s
		}
	})
	b.Run("impl=fj-reduce", func(b *testing.B) {
		p := pool.New()
		defer p.Close()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sink = parallel.Reduce(p, 0, n, 0.0, chunk, add)
		}
	})
}

// BenchmarkForTrivial10M: a body that does almost nothing per index, with
// the default (adaptive) grain. The baseline calls the same body in a plain
// loop; impl=inlined-loop is the hand-written loop with the body inlined,
// for reference.
func BenchmarkForTrivial10M(b *testing.B) {
	const n = 10_000_000
	xs := make([]float64, n)
	body := func(_ *pool.Worker, i int) { xs[i] = xs[i]*0.5 + 1 }
	b.Run("impl=loop", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for j := 0; j < n; j++ {
				body(nil, j)
			}
		}
	})
	b.Run("impl=inlined-loop", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for j := range xs {
				xs[j] = xs[j]*0.5 + 1
			}
		}
	})
	// What two goroutines make of the same loop with no fj: each calls the
	// body through the func value over half the range, as For's pieces
	// do. On the 2-vCPU machine of issue 32 this loop, like the inlined
	// one, stops scaling near the memory's bandwidth: it is the ceiling
	// of impl=fj-for-2w.
	b.Run("impl=goroutines-2", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			halves(n, func(lo, hi int) { callBody(body, lo, hi) })
		}
	})
	for _, workers := range []int{2} {
		b.Run(fmt.Sprintf("impl=fj-for-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				parallel.For(p, 0, n, body)
			}
		})
		// ForRange hands the body a piece: its inner loop is the
		// hand-inlined one. Target: at least 1.2x impl=inlined-loop.
		b.Run(fmt.Sprintf("impl=fj-forrange-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				parallel.ForRange(p, 0, n, func(_ *pool.Worker, lo, hi int) {
					for j := lo; j < hi; j++ {
						xs[j] = xs[j]*0.5 + 1
					}
				})
			}
		})
	}
}

// halves runs f over the two halves of [0, n) on two goroutines: the
// plain-Go parallel baseline of the loop benchmarks.
func halves(n int, f func(lo, hi int)) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		f(0, n/2)
	}()
	f(n/2, n)
	wg.Wait()
}

// callBody calls body for every index of [lo, hi) through the func value,
// as a loop's piece does; noinline so that the call stays indirect.
//
//go:noinline
func callBody(body func(*pool.Worker, int), lo, hi int) {
	for j := lo; j < hi; j++ {
		body(nil, j)
	}
}

// The sorts against their slices counterparts: 10M random int64, and 4M
// 32-byte records sorted by an int64 key. Each iteration sorts a fresh
// copy of the same input; the copy is not timed.

type record struct {
	Key     int64
	A, B, C int64
}

func cmpRecord(a, b record) int {
	switch {
	case a.Key < b.Key:
		return -1
	case a.Key > b.Key:
		return 1
	}
	return 0
}

func benchSorting[E any](b *testing.B, orig []E, sort func(s []E)) {
	s := make([]E, len(orig))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copy(s, orig)
		b.StartTimer()
		sort(s)
	}
}

func randomRecords(n int) []record {
	rng := rand.New(rand.NewPCG(2, 2))
	s := make([]record, n)
	for i := range s {
		s[i] = record{Key: rng.Int64(), A: int64(i)}
	}
	return s
}

func BenchmarkSortInt64_10M(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	orig := make([]int64, 10_000_000)
	for i := range orig {
		orig[i] = rng.Int64()
	}
	p := pool.New()
	defer p.Close()
	b.Run("impl=slices", func(b *testing.B) { benchSorting(b, orig, func(s []int64) { slices.Sort(s) }) })
	b.Run("impl=fj", func(b *testing.B) { benchSorting(b, orig, func(s []int64) { parallel.Sort(p, s) }) })
}

func BenchmarkSortFuncRecords4M(b *testing.B) {
	orig := randomRecords(4 << 20)
	p := pool.New()
	defer p.Close()
	b.Run("impl=slices", func(b *testing.B) {
		benchSorting(b, orig, func(s []record) { slices.SortFunc(s, cmpRecord) })
	})
	b.Run("impl=fj", func(b *testing.B) {
		benchSorting(b, orig, func(s []record) { parallel.SortFunc(p, s, cmpRecord) })
	})
}

func BenchmarkSortStableFuncRecords4M(b *testing.B) {
	orig := randomRecords(4 << 20)
	p := pool.New()
	defer p.Close()
	b.Run("impl=slices", func(b *testing.B) {
		benchSorting(b, orig, func(s []record) { slices.SortStableFunc(s, cmpRecord) })
	})
	b.Run("impl=fj", func(b *testing.B) {
		benchSorting(b, orig, func(s []record) { parallel.SortStableFunc(p, s, cmpRecord) })
	})
}

// Lazy splitting: a small loop nested in a loop that keeps every worker
// busy costs about what the plain loop costs.

// nestedRows is 2,000 rows of 500 float64: the nested benchmark's input.
var nestedRows = func() [][]float64 {
	rows := make([][]float64, 2000)
	for i := range rows {
		rows[i] = make([]float64, 500)
		for j := range rows[i] {
			rows[i][j] = float64((i*500+j)%1000) * 0.25
		}
	}
	return rows
}()

// sumRow is the sequential row sum, and the chunk of the nested Reduce.
func sumRow(row []float64) float64 {
	s := 0.0
	for _, x := range row {
		s += x
	}
	return s
}

func addFloat(a, b float64) float64 { return a + b }

// BenchmarkNestedReduce: a For over 2,000 rows whose body sums its row of
// 500 with parallel.Reduce, against the two plain nested loops. The outer
// loop keeps the workers busy, so the inner Reduce should cost about what
// its plain loop costs: targets, within 1.3x of impl=loop on 1 worker, and
// at least 1.8x faster than it on 2.
//
//	go test -run '^$' -bench 'NestedReduce|ReduceSmall|ForTrivial10M' -count 8 . | tee /tmp/lazy.txt
//	/root/go/bin/benchstat -col /impl /tmp/lazy.txt
func BenchmarkNestedReduce(b *testing.B) {
	rows := nestedRows
	sums := make([]float64, len(rows))
	b.Run("impl=loop", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for r, row := range rows {
				sums[r] = sumRow(row)
			}
		}
	})
	// The rows split between two goroutines with no fj: on the 2-vCPU
	// machine of issue 32 this runs 1.3 times faster than impl=loop when
	// timed on its own and 1.05 times when the two alternate
	// (NestedReducePaired), so it, not impl=loop, bounds impl=fj-2w.
	b.Run("impl=goroutines-2", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			halves(len(rows), func(lo, hi int) {
				for r := lo; r < hi; r++ {
					sums[r] = sumRow(rows[r])
				}
			})
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=fj-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				parallel.For(p, 0, len(rows), func(w *pool.Worker, r int) {
					row := rows[r]
					sums[r] = parallel.Reduce(w, 0, len(row), 0.0, func(_ *pool.Worker, lo, hi int) float64 {
						return sumRow(row[lo:hi])
					}, addFloat)
				})
			}
		})
	}
	// The same with parallel.Sum, the aggregate a user reaches for first:
	// nested in a step with steps left it runs in one step and allocates
	// nothing (the Reduce above allocates its chunk closure, which
	// captures the row, at the call).
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=fj-sum-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				parallel.For(p, 0, len(rows), func(w *pool.Worker, r int) {
					sums[r] = parallel.Sum(w, rows[r])
				})
			}
		})
	}
	for r, row := range rows {
		if sums[r] != sumRow(row) {
			b.Fatalf("row %d: %v, want %v", r, sums[r], sumRow(row))
		}
	}
}

// BenchmarkNestedReducePaired is NestedReduce with its forms timed back
// to back in every iteration, so that each sees the same load: on the
// shared 2-vCPU machine the plain loop alone ranged from 520 to 860 µs
// between runs, more than the differences issue 32 sets targets for. It
// reports each form's speed-up over the loop (loop/X, higher is faster):
// the targets are fj-1w at least 0.8 and fj-2w at least 1.6, and
// goroutines-2 is what two plain goroutines reach on the same machine.
func BenchmarkNestedReducePaired(b *testing.B) {
	rows := nestedRows
	sums := make([]float64, len(rows))
	p1 := pool.New(pool.WithWorkers(1))
	defer p1.Close()
	p2 := pool.New(pool.WithWorkers(2))
	defer p2.Close()
	nested := func(p *pool.Pool) {
		parallel.For(p, 0, len(rows), func(w *pool.Worker, r int) {
			row := rows[r]
			sums[r] = parallel.Reduce(w, 0, len(row), 0.0, func(_ *pool.Worker, lo, hi int) float64 {
				return sumRow(row[lo:hi])
			}, addFloat)
		})
	}
	sum := func(p *pool.Pool) {
		parallel.For(p, 0, len(rows), func(w *pool.Worker, r int) {
			sums[r] = parallel.Sum(w, rows[r])
		})
	}
	forms := []struct {
		name string
		f    func()
	}{
		{"loop", func() {
			for r, row := range rows {
				sums[r] = sumRow(row)
			}
		}},
		{"goroutines-2", func() {
			halves(len(rows), func(lo, hi int) {
				for r := lo; r < hi; r++ {
					sums[r] = sumRow(rows[r])
				}
			})
		}},
		{"fj-1w", func() { nested(p1) }},
		{"fj-2w", func() { nested(p2) }},
		{"fj-sum-1w", func() { sum(p1) }},
		{"fj-sum-2w", func() { sum(p2) }},
	}
	took := make([]time.Duration, len(forms))
	b.ResetTimer()
	for range b.N {
		for i, f := range forms {
			start := time.Now()
			f.f()
			took[i] += time.Since(start)
		}
	}
	b.StopTimer()
	for r, row := range rows {
		if sums[r] != sumRow(row) {
			b.Fatalf("row %d: %v, want %v", r, sums[r], sumRow(row))
		}
	}
	for i, f := range forms[1:] {
		b.ReportMetric(float64(took[0])/float64(took[i+1]), "loop/"+f.name)
	}
}

// smallXs is what BenchmarkReduceSmall sums: ten elements.
var smallXs = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}

func sumSmall(_ *pool.Worker, lo, hi int) float64 { return sumRow(smallXs[lo:hi]) }

// BenchmarkReduceSmall: a Reduce of 10 elements, as user code calls one
// per item, from inside a task, against the plain loop over the same ten.
// Target: within 3x of impl=loop, allocating nothing (the chunk and
// combine functions capture nothing: a capturing closure passed to a
// parallel call is allocated by the caller, as for any function value
// that may run on another goroutine).
func BenchmarkReduceSmall(b *testing.B) {
	b.Run("impl=loop", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sink = sumRow(smallXs)
		}
	})
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("impl=fj-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			// The other worker is kept busy, as when the calls come from
			// the items of an enclosing parallel loop, by a task that
			// spins until the loop below has ended. It starts first, so
			// that the loop runs on the other worker with this one busy
			// from its first call. Started at the same time, the two
			// could hang: a Reduce split for the worker still idle, that
			// worker stole its half, the Reduce parked, and the spinner
			// then started on the Reduce's worker, which the parked Reduce
			// needs back (about 1 run in 35 of a stress run; pool's
			// package documentation: a task that spins on work queued
			// behind it).
			var stop atomic.Bool
			done := make(chan struct{})
			if workers > 1 {
				spinning := make(chan struct{})
				go p.Run(func(w *pool.Worker) {
					defer close(done)
					close(spinning)
					for !stop.Load() {
						// spin: a worker busy with an enclosing loop's item
					}
				})
				<-spinning
			} else {
				close(done)
			}
			p.Run(func(w *pool.Worker) {
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					sink = parallel.Reduce(w, 0, len(smallXs), 0.0, sumSmall, addFloat)
				}
				b.StopTimer()
			})
			stop.Store(true)
			<-done
		})
	}
}
