package parallel_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// illConditioned returns n float64s of wildly different magnitudes and
// signs: their sum depends on the order of the additions.
func illConditioned(n int) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = (r.Float64() - 0.5) * math.Pow(10, float64(r.IntN(32)-16))
	}
	return xs
}

func sumChunk(xs []float64) func(*pool.Worker, int, int) float64 {
	return func(_ *pool.Worker, lo, hi int) float64 {
		s := 0.0
		for _, x := range xs[lo:hi] {
			s += x
		}
		return s
	}
}

func add(a, b float64) float64 { return a + b }

// detTree is the documented deterministic tree, computed sequentially:
// halve while the piece holds at least 2*grain items, left half n/2.
func detTree(xs []float64, grain int) float64 {
	if len(xs) < 2*grain {
		return sumChunk(xs)(nil, 0, len(xs))
	}
	mid := len(xs) / 2
	return detTree(xs[:mid], grain) + detTree(xs[mid:], grain)
}

func TestDeterministicReduceIsBitIdentical(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	n := fjtest.Small(300_000, 50_000)
	xs := illConditioned(n)
	type variant struct {
		name  string
		grain int
		opts  []parallel.Option
	}
	variants := []variant{
		{"default grain", 2048, []parallel.Option{parallel.Deterministic()}},
		{"grain 100", 100, []parallel.Option{parallel.Deterministic(), parallel.Grain(100)}},
		{"grain 1", 1, []parallel.Option{parallel.Grain(1), parallel.Deterministic()}},
	}
	adaptive := map[uint64]bool{}
	for _, v := range variants {
		want := detTree(xs, v.grain)
		m := n
		if v.grain == 1 {
			m = 5000 // a task per element: keep it short
			want = detTree(xs[:m], 1)
		}
		for _, workers := range []int{1, 2, 3, 8} {
			p := pool.New(pool.WithWorkers(workers))
			for run := 0; run < 10; run++ {
				got := parallel.Reduce(p, 0, m, 0.0, sumChunk(xs), add, v.opts...)
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, workers=%d, run %d: %v, want %v (bit-identical)", v.name, workers, run, got, want)
				}
				got, err := parallel.ReduceErr(p, 0, m, 0.0, func(w *pool.Worker, lo, hi int) (float64, error) {
					return sumChunk(xs)(w, lo, hi), nil
				}, add, v.opts...)
				if err != nil || math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, ReduceErr, workers=%d, run %d: %v, %v, want %v", v.name, workers, run, got, err, want)
				}
				if v.grain == 2048 && run < 3 {
					adaptive[math.Float64bits(parallel.Reduce(p, 0, n, 0.0, sumChunk(xs), add))] = true
				}
			}
			p.Close()
		}
	}
	// The proof that the test proves something: on this data, the
	// adaptive split (whose tree depends on the workers) gives different
	// sums on different pools.
	if len(adaptive) < 2 {
		t.Errorf("the adaptive Reduce gave the same sum on every pool: the data does not show reassociation")
	}
	t.Logf("adaptive Reduce: %d distinct sums over pools of 1, 2, 3 and 8 workers", len(adaptive))
}

// Issue 8, item 5: after a chunk panics, combine must never see a value no
// chunk produced (here a nil pointer, which it dereferences), and the
// caller must see the original panic, not a secondary one.
func TestReducePanicNeverFeedsCombineAZero(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	type boomT struct{ at int }
	runs := fjtest.Small(300, 60)
	for _, workers := range []int{2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		var sawNil atomic.Int64
		combine := func(a, b *int) *int {
			if a == nil || b == nil {
				sawNil.Add(1)
			}
			s := *a + *b
			return &s
		}
		for run := 0; run < runs; run++ {
			k := run * 7919 % 1000
			chunk := func(_ *pool.Worker, lo, hi int) *int {
				if lo <= k && k < hi {
					panic(boomT{k})
				}
				n := hi - lo
				return &n
			}
			for _, det := range []parallel.Option{nil, parallel.Deterministic()} {
				r := fjtest.Catch(func() { parallel.Reduce(p, 0, 1000, nil, chunk, combine, parallel.Grain(8), det) })
				if pe, ok := r.(*pool.PanicError); !ok || pe.Value != (boomT{k}) {
					t.Fatalf("workers=%d run %d: Reduce panicked with %v, want the chunk's panic", workers, run, r)
				}
				// ReduceErr: a failing chunk stops the others the same way.
				_, err := parallel.ReduceErr(p, 0, 1000, nil, func(w *pool.Worker, lo, hi int) (*int, error) {
					if lo <= k && k < hi {
						return nil, errBoom
					}
					n := hi - lo
					return &n, nil
				}, combine, parallel.Grain(8), det)
				if !errors.Is(err, errBoom) {
					t.Fatalf("workers=%d run %d: ReduceErr = %v", workers, run, err)
				}
				r = fjtest.Catch(func() {
					_, _ = parallel.ReduceErr(p, 0, 1000, nil, func(w *pool.Worker, lo, hi int) (*int, error) { return chunk(w, lo, hi), nil }, combine, parallel.Grain(8), det)
				})
				if pe, ok := r.(*pool.PanicError); !ok || pe.Value != (boomT{k}) {
					t.Fatalf("workers=%d run %d: ReduceErr panicked with %v, want the chunk's panic", workers, run, r)
				}
			}
		}
		if n := sawNil.Load(); n != 0 {
			t.Errorf("workers=%d: combine saw a nil %d times", workers, n)
		}
		p.Close()
	}
}

func TestDeterministicReduceWithContextStops(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var ran atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := parallel.ReduceErr(p, 0, 1<<16, 0, func(_ *pool.Worker, lo, hi int) (int, error) {
		if ran.Add(1) == 3 {
			cancel()
		}
		return hi - lo, nil
	}, func(a, b int) int { return a + b }, parallel.Deterministic(), parallel.Grain(16), parallel.Context(ctx))
	if !errors.Is(err, context.Canceled) || ran.Load() >= 1<<12 {
		t.Errorf("ReduceErr with a cancelled context: %v after %d of %d chunks", err, ran.Load(), 1<<12)
	}
}
