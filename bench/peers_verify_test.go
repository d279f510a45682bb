package bench

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/alitto/pond/v2"
	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// The checks CI runs: every implementation of every workload computes
// what the sequential code computes, on inputs small enough to take
// milliseconds. The benchmarks check their results too, on full sizes.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFibPeers(t *testing.T) {
	p := pool.New()
	defer p.Close()
	for _, c := range []struct{ n, cut int }{{0, 0}, {1, 0}, {2, 0}, {15, 0}, {18, 10}} {
		want := fibSeq(c.n)
		for name, got := range map[string]int{
			"goroutine": fibGoroutine(c.n, c.cut),
			"errgroup":  fibErrgroup(c.n, c.cut),
			"conc":      fibConc(c.n, c.cut),
			"fj": forkjoin.Invoke(p, func(w *pool.Worker) int {
				return fibFJ(w, c.n, c.cut)
			}),
		} {
			if got != want {
				t.Errorf("fib(%d) cut %d with %s = %d, want %d", c.n, c.cut, name, got, want)
			}
		}
	}
	if got := forks(27, 0); got != 317810 {
		t.Errorf("forks(27, 0) = %d, want 317810", got)
	}
}

func TestSumPeers(t *testing.T) {
	p := pool.New()
	defer p.Close()
	pp := pond.NewResultPool[float64](runtime.GOMAXPROCS(0))
	defer pp.StopAndWait()
	for _, n := range []int{0, 1, 7, 100_003} {
		xs := halves(n)
		want := sumRange(xs) // halves are exact: every order gives this sum
		for name, got := range map[string]float64{
			"fj":         sumFJ(p, xs),
			"goroutines": sumGoroutines(xs),
			"conc-iter":  sumConcIter(xs),
			"pond":       sumPond(pp, xs),
		} {
			if got != want {
				t.Errorf("sum of %d with %s = %v, want %v", n, name, got, want)
			}
		}
	}
}

func TestChunkBounds(t *testing.T) {
	for _, c := range []struct{ n, k int }{{0, 4}, {3, 8}, {10, 3}, {100, 1}} {
		b := chunkBounds(c.n, c.k)
		next := 0
		for _, r := range b {
			if r[0] != next || r[1] < r[0] {
				t.Fatalf("chunkBounds(%d, %d) = %v: not contiguous", c.n, c.k, b)
			}
			next = r[1]
		}
		if next != c.n {
			t.Fatalf("chunkBounds(%d, %d) = %v: does not end at n", c.n, c.k, b)
		}
	}
}

func TestMandelbrotPeers(t *testing.T) {
	p := pool.New()
	defer p.Close()
	pp := pond.NewPool(runtime.GOMAXPROCS(0))
	defer pp.StopAndWait()
	const w, h = 64, 48
	want := newImage(w, h)
	want.loop()
	for name, render := range map[string]func(m *image){
		"fj":        func(m *image) { m.fj(p) },
		"conc-iter": func(m *image) { m.concIter() },
		"pond":      func(m *image) { m.pond(pp) },
		"errgroup":  func(m *image) { m.errgroup() },
	} {
		got := newImage(w, h)
		render(got)
		if !slices.Equal(got.pix, want.pix) {
			t.Errorf("Mandelbrot with %s differs from the loop's", name)
		}
	}
}

func TestSortPeers(t *testing.T) {
	p := pool.New()
	defer p.Close()
	orig := randomInt64s(100_000)
	want := slices.Clone(orig)
	sortSlices(want)
	if !slices.IsSorted(want) {
		t.Fatal("slices.Sort did not sort")
	}
	got := slices.Clone(orig)
	sortFJ(p)(got)
	if !slices.Equal(got, want) {
		t.Error("parallel.Sort differs from slices.Sort")
	}
}

func TestBlockingPeers(t *testing.T) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for name, run := range map[string]func(tasks int, f func()){
		"fj-taskblock": func(tasks int, f func()) { blockTaskblock(p, tasks, f) },
		"fj-blocking":  func(tasks int, f func()) { blockSections(p, tasks, f) },
		"errgroup":     blockErrgroup,
		"conc":         blockConc,
	} {
		ran := make(chan struct{}, 8)
		run(8, func() { ran <- struct{}{} })
		if len(ran) != 8 {
			t.Errorf("%s ran %d tasks, want 8", name, len(ran))
		}
	}
}

// halves returns n multiples of 0.5 below 500: sums of them are exact in
// float64, so every split and order of addition gives the same result.
func halves(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i%1000) * 0.5
	}
	return xs
}

func randomInt64s(n int) []int64 {
	rng := rand.New(rand.NewPCG(1, 1))
	s := make([]int64, n)
	for i := range s {
		s[i] = rng.Int64()
	}
	return s
}
