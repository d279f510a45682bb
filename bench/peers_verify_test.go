package bench

import (
	"cmp"
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
			"pargo":      sumPargo(xs),
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
		"pargo":     func(m *image) { m.pargo() },
	} {
		got := newImage(w, h)
		render(got)
		if !slices.Equal(got.pix, want.pix) {
			t.Errorf("Mandelbrot with %s differs from the loop's", name)
		}
	}
}

func TestSortPeers(t *testing.T) {
	setParallelism()
	p := pool.New()
	defer p.Close()
	// Sizes on both sides of every library's parallel threshold (sorty:
	// 1,200; pargo: 1,280; parsort: 5,000; twotwotwo/sorts: 10,000; fj:
	// 4,096), and few distinct values, which exercise the equal-element
	// paths.
	for _, n := range []int{0, 1, 2, 100, 3000, 100_003} {
		for _, distinct := range []int64{0, 7} {
			orig := randomInt64s(n)
			if distinct > 0 {
				for i := range orig {
					orig[i] %= distinct
				}
			}
			want := slices.Clone(orig)
			sortSlices(want)
			if !slices.IsSorted(want) {
				t.Fatal("slices.Sort did not sort")
			}
			for name, sort := range map[string]func([]int64){
				"fj":        sortFJ(p),
				"sorty":     sortSorty,
				"pargo":     sortPargo,
				"parsort":   sortParsort,
				"twotwotwo": sortTwotwotwo,
			} {
				got := slices.Clone(orig)
				sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s on %d int64 (values mod %d) differs from slices.Sort", name, n, distinct)
				}
			}
		}
	}
}

// TestRecordSortPeers checks every record sort against the sequential
// one: the stable sorts must give exactly slices.SortStableFunc's result
// even when many keys are equal; the unstable ones must give it when the
// keys are distinct, and a permutation sorted by key otherwise.
func TestRecordSortPeers(t *testing.T) {
	setParallelism()
	p := pool.New()
	defer p.Close()
	stable := map[string]func([]record){
		"fj SortStableFunc":       sortStableFJ(p),
		"pargo StableSort":        sortStablePargo,
		"parsort StructAscStable": sortStableParsort,
		"fj SortByKey":            sortByKeyFJ(p),
	}
	unstable := map[string]func([]record){
		"slices.SortFunc":   sortFuncSlices,
		"fj SortFunc":       sortFuncFJ(p),
		"sorty Sort":        sortFuncSorty,
		"pargo Sort":        sortFuncPargo,
		"parsort StructAsc": sortFuncParsort,
		"twotwotwo ByInt64": sortByKeyTwotwotwo,
	}
	for _, n := range []int{0, 1, 2, 100, 3000, 20_000, 100_003} {
		for _, distinct := range []int64{0, 5} {
			orig := randomRecords(n)
			if distinct > 0 {
				for i := range orig {
					orig[i].Key %= distinct
				}
			}
			want := slices.Clone(orig)
			sortStableSlices(want)
			for name, sort := range stable {
				got := slices.Clone(orig)
				sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s on %d records (keys mod %d) differs from slices.SortStableFunc", name, n, distinct)
				}
			}
			for name, sort := range unstable {
				got := slices.Clone(orig)
				sort(got)
				if distinct == 0 {
					if !slices.Equal(got, want) {
						t.Errorf("%s on %d records with distinct keys differs from slices.SortStableFunc", name, n)
					}
					continue
				}
				if !slices.IsSortedFunc(got, cmpRecord) {
					t.Errorf("%s on %d records (keys mod %d): not sorted by key", name, n, distinct)
				}
				// A permutation of the input: the same multiset, which the
				// A field (the record's index in orig) makes a set.
				slices.SortStableFunc(got, func(a, b record) int { return cmp.Compare(a.A, b.A) })
				if !slices.Equal(got, orig) {
					t.Errorf("%s on %d records (keys mod %d): not a permutation of the input", name, n, distinct)
				}
			}
		}
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

// randomRecords returns n records with random keys, the input of fj's
// root record-sort benchmarks; A is each record's index.
func randomRecords(n int) []record {
	rng := rand.New(rand.NewPCG(2, 2))
	s := make([]record, n)
	for i := range s {
		s[i] = record{Key: rng.Int64(), A: int64(i)}
	}
	return s
}
