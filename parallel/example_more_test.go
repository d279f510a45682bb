package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func ExampleFor_integerTypes() {
	p := pool.New()
	defer p.Close()

	// Any integer type, up to the limits of the type: every uint8 but 255.
	var hits [256]atomic.Int32
	parallel.For(p, uint8(0), math.MaxUint8, func(_ *pool.Worker, b uint8) {
		hits[b].Add(1)
	})
	// A uint64 range across 2^63, out of int's reach.
	n := parallel.Reduce(p, uint64(1<<63-3), 1<<63+3, 0,
		func(_ *pool.Worker, lo, hi uint64) int { return int(hi - lo) },
		func(a, b int) int { return a + b })
	fmt.Println(hits[0].Load(), hits[254].Load(), hits[255].Load(), n)
	// Output: 1 1 0 6
}

func ExampleForErr() {
	p := pool.New()
	defer p.Close()

	inputs := []string{"1", "2", "x", "4"}
	nums := make([]int, len(inputs))
	err := parallel.ForErr(p, 0, len(inputs), func(_ *pool.Worker, i int) error {
		v, err := strconv.Atoi(inputs[i])
		nums[i] = v
		return err
	})
	fmt.Println(err)
	// Output: strconv.Atoi: parsing "x": invalid syntax
}

func ExampleForRangeErr() {
	p := pool.New()
	defer p.Close()

	data := []byte("all lowercase, Except here")
	err := parallel.ForRangeErr(p, 0, len(data), func(_ *pool.Worker, lo, hi int) error {
		for i := lo; i < hi; i++ {
			if 'A' <= data[i] && data[i] <= 'Z' {
				return fmt.Errorf("upper case at %d", i)
			}
		}
		return nil
	})
	fmt.Println(err)
	// Output: upper case at 15
}

func ExampleMapErr() {
	p := pool.New()
	defer p.Close()

	nums, err := parallel.MapErr(p, []string{"3", "1", "4"}, func(_ *pool.Worker, s string) (int, error) {
		return strconv.Atoi(s)
	})
	fmt.Println(nums, err)
	// Output: [3 1 4] <nil>
}

func ExampleReduceErr() {
	p := pool.New()
	defer p.Close()

	xs := []float64{4, 9, -1, 16}
	sum, err := parallel.ReduceErr(p, 0, len(xs), 0.0,
		func(_ *pool.Worker, lo, hi int) (float64, error) {
			s := 0.0
			for i, x := range xs[lo:hi] {
				if x < 0 {
					return 0, fmt.Errorf("xs[%d] = %v: no square root", lo+i, x)
				}
				s += math.Sqrt(x)
			}
			return s, nil
		},
		func(a, b float64) float64 { return a + b })
	fmt.Println(sum, err)
	// Output: 0 xs[2] = -1: no square root
}

func ExampleContext() {
	p := pool.New()
	defer p.Close()

	// The cause of the cancellation is what the Err form returns.
	errQuota := errors.New("quota exceeded")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	var done atomic.Int64
	err := parallel.ForErr(p, 0, 1_000_000, func(_ *pool.Worker, i int) error {
		if done.Add(1) == 1000 {
			cancel(errQuota)
		}
		return nil
	}, parallel.Context(ctx))
	fmt.Println(err, done.Load() < 1_000_000)
	// Output: quota exceeded true
}

func ExampleStop() {
	p := pool.New()
	defer p.Close()

	// A long body polls the call's flag to give up early once another
	// piece has failed; Stopped is a single atomic load.
	var stop parallel.StopFlag
	err := parallel.ForRangeErr(p, 0, 8, func(_ *pool.Worker, lo, hi int) error {
		if lo == 0 {
			return errors.New("piece 0 failed")
		}
		for step := 0; step < 1_000_000; step++ {
			if stop.Stopped() {
				return nil // the call is failing anyway
			}
			// ... a long computation ...
		}
		return nil
	}, parallel.Stop(&stop), parallel.Grain(1))
	fmt.Println(err, stop.Stopped())
	// Output: piece 0 failed true
}

func ExampleStopFlag() {
	p := pool.New()
	defer p.Close()

	// Stop is a break: the first piece to find a multiple of 7919 stops
	// the loop, and the Err form reports no error.
	var found parallel.StopFlag
	var where atomic.Int64
	err := parallel.ForErr(p, 1, 1_000_000, func(_ *pool.Worker, i int) error {
		if i%7919 == 0 {
			where.Store(int64(i))
			found.Stop()
		}
		return nil
	}, parallel.Stop(&found))
	fmt.Println(err, found.Stopped(), where.Load()%7919 == 0)
	// Output: <nil> true true
}

func ExampleDeterministic() {
	xs := make([]float64, 100_000)
	for i := range xs {
		xs[i] = 1 / float64(i+1) * math.Pow(-1e6, float64(i%3))
	}
	sum := func(p *pool.Pool) float64 {
		return parallel.Reduce(p, 0, len(xs), 0.0,
			func(_ *pool.Worker, lo, hi int) float64 {
				s := 0.0
				for _, x := range xs[lo:hi] {
					s += x
				}
				return s
			},
			func(a, b float64) float64 { return a + b },
			parallel.Deterministic())
	}
	var sums []float64
	for _, workers := range []int{1, 2, 3, 8} {
		p := pool.New(pool.WithWorkers(workers))
		sums = append(sums, sum(p))
		p.Close()
	}
	// The same bits on every pool.
	fmt.Println(len(slices.Compact(sums)))
	// Output: 1
}

func ExampleForSeq() {
	p := pool.New()
	defer p.Close()

	// A sequence that cannot be indexed: the Collatz trajectory of 27,
	// generated step by step.
	collatz := func(yield func(int) bool) {
		for n := 27; n != 1; {
			if n%2 == 0 {
				n /= 2
			} else {
				n = 3*n + 1
			}
			if !yield(n) {
				return
			}
		}
	}
	var steps, peak atomic.Int64
	parallel.ForSeq(p, collatz, func(_ *pool.Worker, n int) {
		steps.Add(1)
		for old := peak.Load(); int64(n) > old && !peak.CompareAndSwap(old, int64(n)); old = peak.Load() {
		}
	})
	fmt.Println(steps.Load(), peak.Load())
	// Output: 111 9232
}

func ExampleForSeqErr() {
	p := pool.New()
	defer p.Close()

	err := parallel.ForSeqErr(p, slices.Values([]string{"10", "20", "thirty"}), func(_ *pool.Worker, s string) error {
		_, err := strconv.Atoi(s)
		return err
	})
	fmt.Println(err)
	// Output: strconv.Atoi: parsing "thirty": invalid syntax
}

func ExampleMapSeq() {
	p := pool.New()
	defer p.Close()

	upper := parallel.MapSeq(p, slices.Values([]string{"fork", "join", "steal"}), func(_ *pool.Worker, s string) string {
		return strings.ToUpper(s)
	})
	fmt.Println(upper)
	// Output: [FORK JOIN STEAL]
}

func ExampleMapSeqErr() {
	p := pool.New()
	defer p.Close()

	// Parse lines as they are read; the first bad one stops the reading.
	lines := slices.Values([]string{"12", "7", "x", "40"})
	ns, err := parallel.MapSeqErr(p, lines, func(_ *pool.Worker, s string) (int, error) {
		return strconv.Atoi(s)
	})
	fmt.Println(ns, err)
	ns, err = parallel.MapSeqErr(p, slices.Values([]string{"12", "7", "40"}), func(_ *pool.Worker, s string) (int, error) {
		return strconv.Atoi(s)
	})
	fmt.Println(ns, err)
	// Output:
	// [] strconv.Atoi: parsing "x": invalid syntax
	// [12 7 40] <nil>
}

func ExamplePerWorker() {
	p := pool.New()
	defer p.Close()

	// A histogram per worker, filled without locks, merged at the end.
	hist := parallel.NewPerWorker(p, func() *[10]int { return new([10]int) })
	parallel.For(p, 0, 1000, func(w *pool.Worker, i int) {
		(*hist.Get(w))[i%10]++
	})
	total := hist.Combine(new([10]int), func(a, b *[10]int) *[10]int {
		for i := range a {
			a[i] += b[i]
		}
		return a
	})
	fmt.Println(*total)
	// Output: [100 100 100 100 100 100 100 100 100 100]
}

func ExampleNewPerWorker() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	// A nil init gives each worker T's zero value.
	counts := parallel.NewPerWorker[int](p, nil)
	parallel.For(p, 0, 500, func(w *pool.Worker, _ int) { *counts.Get(w)++ })
	fmt.Println(counts.Combine(0, func(a, b int) int { return a + b }))
	// Output: 500
}

func ExamplePerWorker_Get() {
	p := pool.New()
	defer p.Close()

	// One reusable buffer per worker instead of one per iteration.
	bufs := parallel.NewPerWorker(p, func() []byte { return make([]byte, 0, 64) })
	lens := make([]int, 100)
	parallel.For(p, 0, 100, func(w *pool.Worker, i int) {
		b := bufs.Get(w)
		*b = strconv.AppendInt((*b)[:0], int64(i*i), 10)
		lens[i] = len(*b)
	})
	fmt.Println(lens[0], lens[9], lens[99])
	// Output: 1 2 4
}

func ExamplePerWorker_All() {
	p := pool.New()
	defer p.Close()

	seen := parallel.NewPerWorker(p, func() int { return 0 })
	parallel.For(p, 0, 1000, func(w *pool.Worker, _ int) { *seen.Get(w)++ })
	total := 0
	for id, n := range seen.All() {
		_ = id // the worker's ID
		total += *n
	}
	fmt.Println(total)
	// Output: 1000
}

func ExamplePerWorker_Combine() {
	p := pool.New()
	defer p.Close()

	// Per-worker maxima, folded into one.
	xs := []int{3, 41, 5, 9, 26, 5, 35, 8, 97, 9, 32}
	best := parallel.NewPerWorker(p, func() int { return math.MinInt })
	parallel.For(p, 0, len(xs), func(w *pool.Worker, i int) {
		if m := best.Get(w); xs[i] > *m {
			*m = xs[i]
		}
	})
	fmt.Println(best.Combine(math.MinInt, func(a, b int) int { return max(a, b) }))
	// Output: 97
}
