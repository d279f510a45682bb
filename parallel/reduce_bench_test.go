package parallel_test

import (
	"testing"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

var reduceSink float64

// BenchmarkReduceSum50M compares the adaptive split with Deterministic on
// the sum of 50M float64 (400 MB: memory-bound), on the default pool.
// Deterministic costs a task per 2048..4095 elements (about 16k tasks
// here) where the adaptive split makes a few per worker.
func BenchmarkReduceSum50M(b *testing.B) {
	const n = 50_000_000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i%1000) * 0.25
	}
	chunk := func(_ *pool.Worker, lo, hi int) float64 {
		s := 0.0
		for _, x := range xs[lo:hi] {
			s += x
		}
		return s
	}
	add := func(a, c float64) float64 { return a + c }
	p := pool.New()
	defer p.Close()
	for _, bc := range []struct {
		name string
		opts []parallel.Option
	}{
		{"mode=adaptive", nil},
		{"mode=deterministic", []parallel.Option{parallel.Deterministic()}},
		{"mode=deterministic-grain64k", []parallel.Option{parallel.Deterministic(), parallel.Grain(1 << 16)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(8 * n)
			for i := 0; i < b.N; i++ {
				reduceSink = parallel.Reduce(p, 0, n, 0.0, chunk, add, bc.opts...)
			}
		})
	}
}
