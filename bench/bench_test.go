package bench

import (
	"runtime"
	"runtime/debug"
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
// GOMAXPROCS, which -cpu sets, and so inside the sub-benchmarks: go test
// runs a benchmark's body once, at the default GOMAXPROCS, and only its
// sub-benchmarks once per -cpu value.

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
		run := func(name string, fib func(p *pool.Pool) int) {
			b.Run(c.name+"/impl="+name, func(b *testing.B) {
				p := pool.New()
				defer p.Close()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if got := fib(p); got != want {
						b.Fatalf("fib(%d) = %d, want %d", c.n, got, want)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nforks), "ns/fork")
			})
		}
		run("sequential", func(*pool.Pool) int { return fibSeq(c.n) })
		run("goroutine", func(*pool.Pool) int { return fibGoroutine(c.n, c.cut) })
		run("errgroup", func(*pool.Pool) int { return fibErrgroup(c.n, c.cut) })
		run("conc", func(*pool.Pool) int { return fibConc(c.n, c.cut) })
		run("fj", func(p *pool.Pool) int {
			return forkjoin.Invoke(p, func(w *pool.Worker) int { return fibFJ(w, c.n, c.cut) })
		})
	}
}

// BenchmarkSort10M sorts 10M random int64; each iteration sorts a fresh
// copy of the same input (the copy is not timed), and every result is
// compared with slices.Sort's (not timed either).
func BenchmarkSort10M(b *testing.B) {
	orig := randomInt64s(10_000_000)
	want := slices.Clone(orig)
	slices.Sort(want)
	benchSort(b, "slices", orig, want, peer(sortSlices))
	benchSort(b, "fj", orig, want, sortFJ)
	benchSort(b, "sorty", orig, want, peer(sortSorty))
	benchSort(b, "pargo", orig, want, peer(sortPargo))
	benchSort(b, "parsort", orig, want, peer(sortParsort))
	benchSort(b, "twotwotwo", orig, want, peer(sortTwotwotwo))
}

// The record sorts sort 4M 32-byte records by a random int64 key. The
// keys are distinct (checked), so the unstable sorts have one right
// answer too, the stable sort's.

// BenchmarkSortFunc4M is an unstable sort by a comparison.
func BenchmarkSortFunc4M(b *testing.B) {
	orig, want := recordInput(b)
	benchSort(b, "slices", orig, want, peer(sortFuncSlices))
	benchSort(b, "fj", orig, want, sortFuncFJ)
	benchSort(b, "sorty", orig, want, peer(sortFuncSorty))
	benchSort(b, "pargo", orig, want, peer(sortFuncPargo))
	benchSort(b, "parsort", orig, want, peer(sortFuncParsort))
}

// BenchmarkSortStableFunc4M is a stable sort by a comparison.
func BenchmarkSortStableFunc4M(b *testing.B) {
	orig, want := recordInput(b)
	benchSort(b, "slices", orig, want, peer(sortStableSlices))
	benchSort(b, "fj", orig, want, sortStableFJ)
	benchSort(b, "pargo", orig, want, peer(sortStablePargo))
	benchSort(b, "parsort", orig, want, peer(sortStableParsort))
}

// BenchmarkSortByKey4M sorts the records by their key: fj's radix sort,
// the radix peer and fj's SortFunc, against slices.SortStableFunc.
func BenchmarkSortByKey4M(b *testing.B) {
	orig, want := recordInput(b)
	benchSort(b, "slices", orig, want, peer(sortStableSlices))
	benchSort(b, "fj", orig, want, sortByKeyFJ)
	benchSort(b, "fj-SortFunc", orig, want, sortFuncFJ)
	benchSort(b, "twotwotwo", orig, want, peer(sortByKeyTwotwotwo))
}

// BenchmarkSortByKey4MCold is BenchmarkSortByKey4M on cold memory, the
// state of a process that sorts for the first time, or for the first time
// in a while: before every timed sort, coldMemory collects the garbage
// three times (a cache emptied at the second collection, as a sync.Pool
// is, or SortByKey's scratch, is then gone) and returns every free page
// to the operating system, so that memory the sort allocates is faulted
// in afresh, and zeroed by the kernel, when it is first touched.
// faults/op (on Unix) shows it: a sort that allocates B bytes takes about
// B/4096 more faults (4 KiB pages) than it does warm. On Linux fj's
// SortByKey keeps the scratch of these records outside the Go heap, for
// a minute after the collector drops it (parallel/sort_key_scratch.md,
// K5-K7), so here it measures a program that sorted within the last
// minute, whatever it collected since; only its first iteration, and a
// process's first call, fault the scratch in. The slow sequential
// baseline is left out; BenchmarkSortByKey4M has it.
func BenchmarkSortByKey4MCold(b *testing.B) {
	orig, want := recordInput(b)
	benchSortMem(b, "fj", orig, want, sortByKeyFJ, true)
	benchSortMem(b, "fj-SortFunc", orig, want, sortFuncFJ, true)
	benchSortMem(b, "twotwotwo", orig, want, peer(sortByKeyTwotwotwo), true)
}

// BenchmarkSortByKey4MPaired measures the ratios of the SortByKey row on
// a machine whose load changes from second to second: every iteration
// sorts the same records with fj's SortByKey, the radix peer and fj's
// SortFunc, one right after the other, so that the three see the same
// load, and reports the ratios of their total times (twotwotwo/fj,
// SortFunc/fj: above 1, SortByKey is ahead) beside each one's time per
// sort. mem=warm sorts again and again, as BenchmarkSortByKey4M does;
// mem=cold makes the memory cold (coldMemory) before each sort, as
// BenchmarkSortByKey4MCold does.
func BenchmarkSortByKey4MPaired(b *testing.B) {
	orig, want := recordInput(b)
	for _, cold := range []bool{false, true} {
		name := "mem=warm"
		if cold {
			name = "mem=cold"
		}
		b.Run(name, func(b *testing.B) {
			setParallelism()
			p := pool.New()
			defer p.Close()
			sorts := []struct {
				name string
				sort func([]record)
				t    time.Duration
			}{
				{"fj", sortByKeyFJ(p), 0},
				{"twotwotwo", sortByKeyTwotwotwo, 0},
				{"SortFunc", sortFuncFJ(p), 0},
			}
			s := make([]record, len(orig))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range sorts {
					x := &sorts[j]
					b.StopTimer()
					copy(s, orig)
					if cold {
						coldMemory()
					}
					b.StartTimer()
					t0 := time.Now()
					x.sort(s)
					x.t += time.Since(t0)
					b.StopTimer()
					if !slices.Equal(s, want) {
						b.Fatalf("%s: the result differs from the sequential sort's", x.name)
					}
					b.StartTimer()
				}
			}
			for _, x := range sorts {
				b.ReportMetric(float64(x.t.Nanoseconds())/float64(b.N), x.name+"-ns/op")
			}
			b.ReportMetric(float64(sorts[1].t)/float64(sorts[0].t), "twotwotwo/fj")
			b.ReportMetric(float64(sorts[2].t)/float64(sorts[0].t), "SortFunc/fj")
		})
	}
}

// coldMemory drops what the garbage collector can drop, caches included,
// and hands the free memory back to the operating system (see
// BenchmarkSortByKey4MCold).
func coldMemory() {
	for range 3 {
		runtime.GC()
	}
	debug.FreeOSMemory()
}

// peer adapts a sort that needs no pool to benchSort.
func peer[E any](sort func([]E)) func(*pool.Pool) func([]E) {
	return func(*pool.Pool) func([]E) { return sort }
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

// benchSort runs a sort as the sub-benchmark impl=name: each iteration
// sorts a fresh copy of orig and compares the result with want, neither
// of which is timed. The sort is made by mk for a pool, and the peers'
// settings are set, in the sub-benchmark, at the GOMAXPROCS of the run.
// Besides the time it reports the CPU time the process used while
// sorting (cpu-ns/op, on Unix): the work, which on a machine that other
// jobs share varies much less than the time does; and the page faults
// taken while sorting (faults/op, on Unix): memory touched for the first
// time, or for the first time since it went back to the system.
func benchSort[E comparable](b *testing.B, name string, orig, want []E, mk func(p *pool.Pool) func([]E)) {
	benchSortMem(b, name, orig, want, mk, false)
}

// benchSortMem is benchSort, on cold memory (see coldMemory) if cold.
func benchSortMem[E comparable](b *testing.B, name string, orig, want []E, mk func(p *pool.Pool) func([]E), cold bool) {
	b.Run("impl="+name, func(b *testing.B) {
		setParallelism()
		p := pool.New()
		defer p.Close()
		sort := mk(p)
		s := make([]E, len(orig))
		var cpu time.Duration
		var faults int64
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			copy(s, orig)
			if cold {
				coldMemory()
			}
			c0, f0 := processCPU(), pageFaults()
			b.StartTimer()
			sort(s)
			b.StopTimer()
			cpu += processCPU() - c0
			faults += pageFaults() - f0
			if !slices.Equal(s, want) {
				b.Fatalf("%s: the result differs from the sequential sort's", name)
			}
			b.StartTimer()
		}
		if cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
		if faults > 0 {
			b.ReportMetric(float64(faults)/float64(b.N), "faults/op")
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
	run := func(name string, render func(m *image, p *pool.Pool, pp pond.Pool)) {
		b.Run("impl="+name, func(b *testing.B) {
			p := pool.New()
			defer p.Close()
			pp := pond.NewPool(runtime.GOMAXPROCS(0))
			defer pp.StopAndWait()
			m := newImage(w, h)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				clear(m.pix)
				render(m, p, pp)
				b.StopTimer()
				if m.checksum() != want {
					b.Fatal("wrong image")
				}
				b.StartTimer()
			}
		})
	}
	run("loop", func(m *image, _ *pool.Pool, _ pond.Pool) { m.loop() })
	run("fj", func(m *image, p *pool.Pool, _ pond.Pool) { m.fj(p) })
	run("conc-iter", func(m *image, _ *pool.Pool, _ pond.Pool) { m.concIter() })
	run("pond", func(m *image, _ *pool.Pool, pp pond.Pool) { m.pond(pp) })
	run("errgroup", func(m *image, _ *pool.Pool, _ pond.Pool) { m.errgroup() })
	run("pargo", func(m *image, _ *pool.Pool, _ pond.Pool) { m.pargo() })
}

// BenchmarkBlocking runs eight tasks that each sleep 100 ms, standing for
// blocking I/O, on a 2-worker pool, with errgroup and with conc. A task
// that blocks without a section holds its worker, so the pool runs two
// sleeps at a time; in a section (pool.Blocking) the worker goes on with
// the next task, and all eight sleep at once, as goroutines do. Run it
// with -benchtime 3x: every iteration takes at least 100 ms.
func BenchmarkBlocking(b *testing.B) {
	sleep := func() { time.Sleep(100 * time.Millisecond) }
	b.Run("impl=fj-blocking-2w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2))
		defer p.Close()
		for i := 0; i < b.N; i++ {
			blockSections(p, 8, sleep)
		}
	})
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
	b.Run("impl=conc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			blockConc(8, sleep)
		}
	})
}
