package bench

import (
	"sync"
	"testing"
	"time"

	concpool "github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// Blocking work in sections (pool.Blocking) against goroutines: the
// numbers of issue 15. BenchmarkBlocking (bench_test.go) has the eight
// sleeping tasks; this file has the mixed load and the producer and
// consumer, and the helpers of both. Run them with
//
//	go test -run '^$' -bench 'Blocking' -benchtime 5x -count 5 | benchstat -col /impl -
//
// Every iteration of the sleeping benchmarks takes tens of milliseconds
// or more: a small -benchtime suffices.

// blockSections is blockTaskblock with each task's call in a section: the
// worker runs the next task while the call blocks.
func blockSections(p *pool.Pool, tasks int, f func()) {
	taskblock.Define(p, func(b *taskblock.Block) {
		for i := 0; i < tasks; i++ {
			b.Run(func(*pool.Worker) { pool.Blocking(f) })
		}
	})
}

func blockConc(tasks int, f func()) {
	cp := concpool.New()
	for i := 0; i < tasks; i++ {
		cp.Go(f)
	}
	cp.Wait()
}

// cpuWork is a fixed amount of computation: spins rounds of a xorshift.
// A task's "1 ms of CPU" must be work, not a wall-clock wait: 1,000
// goroutines spinning until 1 ms has passed would overlap on two cores
// and finish in far less CPU than they claim.
func cpuWork(spins int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < spins; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

var (
	spinsPerMsOnce sync.Once
	spinsPerMs     int
	cpuSink        uint64
)

// spinsFor returns how many spins of cpuWork take d on this machine,
// alone on a goroutine: the best of a few timed runs, so that a run that
// another process slowed down does not shorten every task.
func spinsFor(d time.Duration) int {
	spinsPerMsOnce.Do(func() {
		const probe = 1 << 20
		best := time.Duration(1 << 62)
		for i := 0; i < 7; i++ {
			start := time.Now()
			cpuSink += cpuWork(probe)
			best = min(best, time.Since(start))
		}
		spinsPerMs = int(float64(probe) * float64(time.Millisecond) / float64(best))
	})
	return int(int64(spinsPerMs) * int64(d) / int64(time.Millisecond))
}

// BenchmarkBlockingMixed runs 1,000 tasks that each compute for 1 ms and
// then sleep for 1 ms (a request that parses, then waits on a backend),
// on two workers: fj with the sleep in a section; fj without one, where
// a sleeping task holds its worker; errgroup with SetLimit(1000), and
// conc's pool (no limit), where every task is a goroutine. Two cores
// bound the computing to 500 ms; the sleeps can hide behind it.
func BenchmarkBlockingMixed(b *testing.B) {
	const tasks = 1000
	spins := spinsFor(time.Millisecond)
	task := func(sleep func(func())) func() {
		return func() {
			x := cpuWork(spins)
			sleep(func() { time.Sleep(time.Millisecond) })
			if x == 1 {
				panic("unreachable: keeps the work")
			}
		}
	}
	plain := func(f func()) { f() }
	b.Run("impl=fj-blocking-2w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2))
		defer p.Close()
		f := task(pool.Blocking)
		for i := 0; i < b.N; i++ {
			blockTaskblock(p, tasks, f)
		}
	})
	b.Run("impl=fj-taskblock-2w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2))
		defer p.Close()
		f := task(plain)
		for i := 0; i < b.N; i++ {
			blockTaskblock(p, tasks, f)
		}
	})
	b.Run("impl=errgroup-limit1000", func(b *testing.B) {
		f := task(plain)
		for i := 0; i < b.N; i++ {
			var g errgroup.Group
			g.SetLimit(tasks)
			for j := 0; j < tasks; j++ {
				g.Go(func() error { f(); return nil })
			}
			_ = g.Wait()
		}
	})
	b.Run("impl=conc", func(b *testing.B) {
		f := task(plain)
		for i := 0; i < b.N; i++ {
			blockConc(tasks, f)
		}
	})
}

// BenchmarkBlockingPipe passes 10,000 values from a producer to a
// consumer over an unbuffered channel: fj runs the pair with parallel.Do
// on one worker, each channel operation in a section ("fj-blocking-1w"),
// and without sections ("fj-nosection-1w": the producer's first send
// holds the only worker, the consumer queued behind it, until the stall
// watch starts a spare that runs the consumer); the baseline is two
// goroutines. Reported per value.
func BenchmarkBlockingPipe(b *testing.B) {
	const n = 10_000
	b.Run("impl=fj-blocking-1w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(1))
		defer p.Close()
		for i := 0; i < b.N; i++ {
			if got := pipeFJ(p, n); got != n*(n-1)/2 {
				b.Fatalf("sum %d, want %d", got, n*(n-1)/2)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/value")
	})
	b.Run("impl=fj-nosection-1w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(1))
		defer p.Close()
		for i := 0; i < b.N; i++ {
			if got := pipeFJNoSection(p, n); got != n*(n-1)/2 {
				b.Fatalf("sum %d, want %d", got, n*(n-1)/2)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/value")
	})
	b.Run("impl=goroutines", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if got := pipeGoroutines(n); got != n*(n-1)/2 {
				b.Fatalf("sum %d, want %d", got, n*(n-1)/2)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/value")
	})
}

func pipeFJ(p *pool.Pool, n int) int {
	ch := make(chan int)
	sum := 0
	parallel.Do(p,
		func(*pool.Worker) {
			for i := 0; i < n; i++ {
				pool.Blocking(func() { ch <- i })
			}
			pool.Blocking(func() { close(ch) })
		},
		func(*pool.Worker) {
			for {
				var v int
				var ok bool
				pool.Blocking(func() { v, ok = <-ch })
				if !ok {
					return
				}
				sum += v
			}
		})
	return sum
}

// pipeFJNoSection is pipeFJ with every channel operation outside a
// section: what a program that forgot pool.Blocking gets.
func pipeFJNoSection(p *pool.Pool, n int) int {
	ch := make(chan int)
	sum := 0
	parallel.Do(p,
		func(*pool.Worker) {
			for i := 0; i < n; i++ {
				ch <- i //fjvet:ignore blocking the forgotten section this benchmark times
			}
			close(ch)
		},
		func(*pool.Worker) {
			for v := range ch { //fjvet:ignore blocking the forgotten section this benchmark times
				sum += v
			}
		})
	return sum
}

func pipeGoroutines(n int) int {
	ch := make(chan int)
	go func() {
		for i := 0; i < n; i++ {
			ch <- i
		}
		close(ch)
	}()
	sum := 0
	for v := range ch {
		sum += v
	}
	return sum
}

// The pipe of BenchmarkBlockingPipe completes on one worker, and the
// mixed load's tasks run in sections on every implementation.
func TestBlockingPipeAndMixed(t *testing.T) {
	timer := time.AfterFunc(time.Minute, func() { panic("TestBlockingPipeAndMixed: still running after a minute (deadlock?)") })
	defer timer.Stop()
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	if got := pipeFJ(p, 100); got != 4950 {
		t.Errorf("pipe on one worker: sum %d, want 4950", got)
	}
	if got := pipeGoroutines(100); got != 4950 {
		t.Errorf("pipe on goroutines: sum %d, want 4950", got)
	}
	if n := spinsFor(time.Millisecond); n <= 0 {
		t.Errorf("spinsFor(1ms) = %d", n)
	}
	var mu sync.Mutex
	in := 0
	blockSections(p, 20, func() { mu.Lock(); in++; mu.Unlock() })
	if in != 20 {
		t.Errorf("blockSections ran %d of 20 tasks", in)
	}
}

// BenchmarkForgottenSection measures what forgetting pool.Blocking costs
// (issue 24). "handoff": a task waits on a channel that a task queued
// behind it fills, on one worker: in a section ("fj-blocking-1w") the
// worker runs the filler at once; without one ("fj-nosection-1w") the
// task holds the only worker until the pool detects the stall (default
// threshold, 1 s) and a spare worker runs the filler. "sleeps": 8 tasks
// sleeping 300 ms on two workers, in sections, without sections, and
// without sections on a pool whose threshold is 100 ms, where spares run
// the queued sleeps meanwhile. Run it with -benchtime 3x.
func BenchmarkForgottenSection(b *testing.B) {
	handoff := func(p *pool.Pool, section bool) {
		ch := make(chan int)
		started, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			p.Run(func(*pool.Worker) {
				close(started)
				if section {
					pool.Blocking(func() { <-ch })
				} else {
					<-ch //fjvet:ignore blocking the forgotten section this benchmark measures
				}
			})
		}()
		<-started
		p.Run(func(*pool.Worker) { ch <- 1 }) //fjvet:ignore blocking the filler, in both variants
		<-done
	}
	quiet := pool.WithStallHandler(func(pool.StallReport) {})
	b.Run("shape=handoff/impl=fj-blocking-1w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(1))
		defer p.Close()
		for i := 0; i < b.N; i++ {
			handoff(p, true)
		}
	})
	b.Run("shape=handoff/impl=fj-nosection-1w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(1), quiet)
		defer p.Close()
		for i := 0; i < b.N; i++ {
			handoff(p, false)
		}
	})
	sleep := func() { time.Sleep(300 * time.Millisecond) }
	b.Run("shape=sleeps/impl=fj-blocking-2w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2))
		defer p.Close()
		for i := 0; i < b.N; i++ {
			blockSections(p, 8, sleep)
		}
	})
	b.Run("shape=sleeps/impl=fj-nosection-2w", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2), quiet)
		defer p.Close()
		for i := 0; i < b.N; i++ {
			blockTaskblock(p, 8, sleep)
		}
	})
	b.Run("shape=sleeps/impl=fj-nosection-2w-100ms", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2), pool.WithStallThreshold(100*time.Millisecond), quiet)
		defer p.Close()
		for i := 0; i < b.N; i++ {
			blockTaskblock(p, 8, sleep)
		}
	})
}
