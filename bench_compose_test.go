package fj_test

import (
	"testing"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// A library helper that sums a row with parallel.Reduce on pool.Default(),
// called from inside a parallel.For body on the Default pool: the call on
// the *Pool finds that its caller is a task of that pool (a goroutine id
// and a table lookup, nanoseconds) and runs on the caller's worker, as if
// the worker had been passed. The same loop passing w, and the nested
// loops sequentially, are the baselines (the design's target: within 1.2x
// of passing w; docs/performance.md has the figures).
const (
	helperRows = 2000
	helperCols = 500
)

func helperMatrix() [][]float64 {
	m := make([][]float64, helperRows)
	for i := range m {
		m[i] = make([]float64, helperCols)
		for j := range m[i] {
			m[i][j] = float64((i*31 + j*7) % 101)
		}
	}
	return m
}

func sumChunk(row []float64) func(*pool.Worker, int, int) float64 {
	return func(_ *pool.Worker, lo, hi int) float64 {
		s := 0.0
		for _, x := range row[lo:hi] {
			s += x
		}
		return s
	}
}

func add(a, b float64) float64 { return a + b }

// rowSum is the library helper: it knows nothing of its caller's worker.
func rowSum(row []float64) float64 {
	return parallel.Reduce(pool.Default(), 0, len(row), 0.0, sumChunk(row), add)
}

func BenchmarkOwnPoolHelper(b *testing.B) {
	m := helperMatrix()
	want := 0.0
	for _, row := range m {
		for _, x := range row {
			want += x
		}
	}
	sums := make([]float64, len(m))
	check := func(b *testing.B) {
		got := 0.0
		for _, s := range sums {
			got += s
		}
		if got != want {
			b.Fatalf("sum = %v, want %v", got, want)
		}
	}
	p := pool.Default()
	b.Run("impl=sequential", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for r, row := range m {
				s := 0.0
				for _, x := range row {
					s += x
				}
				sums[r] = s
			}
		}
		check(b)
	})
	b.Run("impl=pass-w", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			parallel.For(p, 0, len(m), func(w *pool.Worker, r int) {
				sums[r] = parallel.Reduce(w, 0, len(m[r]), 0.0, sumChunk(m[r]), add)
			})
		}
		check(b)
	})
	b.Run("impl=default", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			parallel.For(p, 0, len(m), func(_ *pool.Worker, r int) {
				sums[r] = rowSum(m[r])
			})
		}
		check(b)
	})
}
