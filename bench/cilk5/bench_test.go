package cilk5

import (
	"runtime"
	"testing"

	"github.com/forkjoin/fj/pool"
)

// BenchmarkCilk5 times every program of the suite on DefaultSizes: its
// serial elision (impl=serial) and each of its fj variants on a pool of
// one worker and of two (impl=fj-1w, fj-2w; args-1w, join-2w, ... for
// the programs with several). Every run's result is checked, outside the
// timer, and so is the input's restoration before it. Variants that
// count their forks report allocs/fork.
//
// go test -count repeats each sub-benchmark in a row; cmd/cilk5 runs them
// in interleaved rounds instead, which is fairer on a busy machine:
//
//	go test -run='^$' -bench=Cilk5 -count=5 ./cilk5 | tee cilk5.txt
//	benchstat -col /impl cilk5.txt
func BenchmarkCilk5(b *testing.B) {
	pools := []*pool.Pool{pool.New(pool.WithWorkers(1)), pool.New(pool.WithWorkers(2))}
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for _, prog := range Suite(DefaultSizes()) {
		b.Run(prog.Name+"/impl=serial", func(b *testing.B) {
			benchRuns(b, prog, prog.Serial, 0)
		})
		for _, v := range prog.Variants {
			for _, p := range pools {
				b.Run(prog.Name+"/impl="+v.Impl(p.Workers()), func(b *testing.B) {
					forks := v.Forks
					if p.Workers() > 1 {
						forks = 0 // a search may take another path: uncounted
					}
					benchRuns(b, prog, func() { p.Run(v.Run) }, forks)
				})
			}
		}
	}
}

// benchRuns times b.N runs of f, each after prog.Setup and checked by
// prog.Check, and reports allocs/fork if forks > 0.
func benchRuns(b *testing.B, prog *Program, f func(), forks int64) {
	b.ReportAllocs()
	var before, after runtime.MemStats
	var mallocs uint64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		prog.Setup()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		f()
		b.StopTimer()
		runtime.ReadMemStats(&after)
		mallocs += after.Mallocs - before.Mallocs
		if err := prog.Check(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	if forks > 0 {
		b.ReportMetric(float64(mallocs)/float64(b.N)/float64(forks), "allocs/fork")
	}
}
