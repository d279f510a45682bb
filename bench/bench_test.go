package bench

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/alitto/pond/v2"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// The peer benchmarks. Each workload is one benchmark with a
// sub-benchmark per implementation (impl=...), so that benchstat -col
// /impl prints one table per workload. measure.sh runs them in rounds,
// every implementation once per round, so that they take turns: go test
// -count would repeat each one in a row. The sizes are those of fj's root
// benchmarks. Every run's result is checked (outside the timer where the
// check is not cheap). Pools are made with as many workers as
// GOMAXPROCS, which -cpu sets.

// BenchmarkFork is fib computed by forking both recursive calls.
// fine: fib(27) forks at every level, 317,810 forks that do almost
// nothing: it measures the cost of a fork (reported as ns/fork).
// coarse: fib(35) forks only above n = 20, about 10,900 forks of ~20 µs
// of work each: the work dominates.
func BenchmarkFork(b *testing.B) {
	for _, c := range []struct {
		name   string
		n, cut int
	}{{"fine", 27, 0}, {"coarse", 35, 20}} {
		want, nforks := fibSeq(c.n), forks(c.n, c.cut)
		run := func(name string, fib func() int) {
			b.Run(c.name+"/impl="+name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if got := fib(); got != want {
						b.Fatalf("fib(%d) = %d, want %d", c.n, got, want)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nforks), "ns/fork")
			})
		}
		run("sequential", func() int { return fibSeq(c.n) })
		run("goroutine", func() int { return fibGoroutine(c.n, c.cut) })
		run("errgroup", func() int { return fibErrgroup(c.n, c.cut) })
		run("conc", func() int { return fibConc(c.n, c.cut) })
		p := pool.New()
		run("fj", func() int {
			return forkjoin.Invoke(p, func(w *pool.Worker) int { return fibFJ(w, c.n, c.cut) })
		})
		p.Close()
	}
}

// BenchmarkSort10M sorts 10M random int64; each iteration sorts a fresh
// copy of the same input (the copy is not timed), and every result is
// compared with slices.Sort's (not timed either).
func BenchmarkSort10M(b *testing.B) {
	orig := randomInt64s(10_000_000)
	want := slices.Clone(orig)
	slices.Sort(want)
	setParallelism()
	p := pool.New()
	defer p.Close()
	benchSort(b, "slices", orig, want, sortSlices)
	benchSort(b, "fj", orig, want, sortFJ(p))
	benchSort(b, "sorty", orig, want, sortSorty)
	benchSort(b, "pargo", orig, want, sortPargo)
	benchSort(b, "parsort", orig, want, sortParsort)
	benchSort(b, "twotwotwo", orig, want, sortTwotwotwo)
}

// The record sorts sort 4M 32-byte records by a random int64 key. The
// keys are distinct (checked), so the unstable sorts have one right
// answer too, the stable sort's.

// BenchmarkSortFunc4M is an unstable sort by a comparison.
func BenchmarkSortFunc4M(b *testing.B) {
	orig, want := recordInput(b)
	setParallelism()
	p := pool.New()
	defer p.Close()
	benchSort(b, "slices", orig, want, sortFuncSlices)
	benchSort(b, "fj", orig, want, sortFuncFJ(p))
	benchSort(b, "sorty", orig, want, sortFuncSorty)
	benchSort(b, "pargo", orig, want, sortFuncPargo)
	benchSort(b, "parsort", orig, want, sortFuncParsort)
}

// BenchmarkSortStableFunc4M is a stable sort by a comparison.
func BenchmarkSortStableFunc4M(b *testing.B) {
	orig, want := recordInput(b)
	setParallelism()
	p := pool.New()
	defer p.Close()
	benchSort(b, "slices", orig, want, sortStableSlices)
	benchSort(b, "fj", orig, want, sortStableFJ(p))
	benchSort(b, "pargo", orig, want, sortStablePargo)
	benchSort(b, "parsort", orig, want, sortStableParsort)
}

// BenchmarkSortByKey4M sorts the records by their key: fj's radix sort,
// the radix peer and fj's SortFunc, against slices.SortStableFunc.
func BenchmarkSortByKey4M(b *testing.B) {
	orig, want := recordInput(b)
	setParallelism()
	p := pool.New()
	defer p.Close()
	benchSort(b, "slices", orig, want, sortStableSlices)
	benchSort(b, "fj", orig, want, sortByKeyFJ(p))
	benchSort(b, "fj-SortFunc", orig, want, sortFuncFJ(p))
	benchSort(b, "twotwotwo", orig, want, sortByKeyTwotwotwo)
}

// recordInput returns the 4M records and the same sorted stably by key.
func recordInput(b *testing.B) (orig, want []record) {
	orig = randomRecords(4 << 20)
	want = slices.Clone(orig)
	slices.SortStableFunc(want, cmpRecord)
	for i := 1; i < len(want); i++ {
		if want[i].Key == want[i-1].Key {
			b.Fatalf("two records with key %d: an unstable sort would have two right answers", want[i].Key)
		}
	}
	return orig, want
}

// benchSort runs sort as the sub-benchmark impl=name: each iteration
// sorts a fresh copy of orig and compares the result with want, neither
// of which is timed. Besides the time it reports the CPU time the
// process used while sorting (cpu-ns/op, on Unix): the work, which on a
// machine that other jobs share varies much less than the time does.
func benchSort[E comparable](b *testing.B, name string, orig, want []E, sort func([]E)) {
	b.Run("impl="+name, func(b *testing.B) {
		s := make([]E, len(orig))
		var cpu time.Duration
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(s, orig)
			c0 := processCPU()
			b.StartTimer()
			sort(s)
			b.StopTimer()
			cpu += processCPU() - c0
			if !slices.Equal(s, want) {
				b.Fatalf("%s: the result differs from the sequential sort's", name)
			}
			b.StartTimer()
		}
		if cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	})
}

// BenchmarkReduce50M sums 50M float64. The values are multiples of 0.5,
// so every split and order of addition gives the same, exact sum.
func BenchmarkReduce50M(b *testing.B) {
	xs := halves(50_000_000)
	want := sumRange(xs)
	check := func(b *testing.B, got float64) {
		if got != want {
			b.Fatalf("sum = %v, want %v", got, want)
		}
	}
	b.Run("impl=loop", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			check(b, sumRange(xs))
		}
	})
	b.Run("impl=fj", func(b *testing.B) {
		p := pool.New()
		defer p.Close()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumFJ(p, xs))
		}
	})
	b.Run("impl=goroutines", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumGoroutines(xs))
		}
	})
	b.Run("impl=conc-iter", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumConcIter(xs))
		}
	})
	b.Run("impl=pargo", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumPargo(xs))
		}
	})
	b.Run("impl=pond", func(b *testing.B) {
		pp := pond.NewResultPool[float64](runtime.GOMAXPROCS(0))
		defer pp.StopAndWait()
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			check(b, sumPond(pp, xs))
		}
	})
}

// BenchmarkMandelbrot renders 1024 x 1024 pixels, one task per row.
func BenchmarkMandelbrot(b *testing.B) {
	const w, h = 1024, 1024
	ref := newImage(w, h)
	ref.loop()
	want := ref.checksum()
	run := func(name string, render func(m *image)) {
		b.Run("impl="+name, func(b *testing.B) {
			m := newImage(w, h)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				clear(m.pix)
				render(m)
				b.StopTimer()
				if m.checksum() != want {
					b.Fatal("wrong image")
				}
				b.StartTimer()
			}
		})
	}
	run("loop", (*image).loop)
	p := pool.New()
	run("fj", func(m *image) { m.fj(p) })
	p.Close()
	run("conc-iter", (*image).concIter)
	pp := pond.NewPool(runtime.GOMAXPROCS(0))
	run("pond", func(m *image) { m.pond(pp) })
	pp.StopAndWait()
	run("errgroup", (*image).errgroup)
	run("pargo", (*image).pargo)
}

// BenchmarkBlocking runs eight tasks that each sleep 100 ms, standing for
// blocking I/O, on a 2-worker pool and with errgroup. Not a contest: it
// shows what fj is not for. A task that blocks holds its worker, so the
// pool runs two sleeps at a time; goroutines all sleep at once. Run it
// with -benchtime 3x: every iteration takes at least 100 ms.
func BenchmarkBlocking(b *testing.B) {
	sleep := func() { time.Sleep(100 * time.Millisecond) }
	b.Run("impl=fj-taskblock-2w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2))
		defer p.Close()
		for i := 0; i < b.N; i++ {
			blockTaskblock(p, 8, sleep)
		}
	})
	b.Run("impl=errgroup", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			blockErrgroup(8, sleep)
		}
	})
}
