package fj_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

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
	for _, workers := range []int{2} {
		b.Run(fmt.Sprintf("impl=fj-for-%dw", workers), func(b *testing.B) {
			p := pool.New(pool.WithWorkers(workers))
			defer p.Close()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				parallel.For(p, 0, n, body)
			}
		})
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
