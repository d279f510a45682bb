package parallel_test

import (
	"testing"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// FuzzReduce checks Reduce against a sequential left fold for a
// non-commutative operation (a polynomial hash, whose combine of two
// pieces is associative), over any range length and grain.
func FuzzReduce(f *testing.F) {
	f.Add([]byte("hello, world"), uint16(1), uint8(2))
	f.Add([]byte{}, uint16(0), uint8(1))
	f.Add(make([]byte, 5000), uint16(7), uint8(3))
	p := pool.New(pool.WithWorkers(3))
	f.Cleanup(p.Close)
	const base, mod = 257, 1_000_000_007
	type h struct{ v, pow uint64 } // hash of a piece and base^len
	combine := func(a, b h) h { return h{(a.v*b.pow + b.v) % mod, a.pow * b.pow % mod} }
	f.Fuzz(func(t *testing.T, data []byte, grain uint16, workers uint8) {
		want := h{0, 1}
		for _, c := range data {
			want = combine(want, h{uint64(c), base})
		}
		got := parallel.Reduce(p, 0, len(data), h{0, 1}, func(_ *pool.Worker, lo, hi int) h {
			acc := h{0, 1}
			for _, c := range data[lo:hi] {
				acc = combine(acc, h{uint64(c), base})
			}
			return acc
		}, combine, parallel.Grain(int(grain)))
		if got != want {
			t.Fatalf("len %d grain %d: Reduce = %v, sequential fold = %v", len(data), grain, got, want)
		}
	})
}
