package bench

import (
	"context"
	"errors"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The stall watch of issue 31 (internal/sched/stall.md), measured: what
// it costs a long CPU-bound run beside many goroutines, and how soon it
// rescues a task blocked without a section. Each benchmark runs its
// variants and their baseline in every iteration, interleaved, and
// reports them as metrics, so that a noisy machine slows both alike:
//
//	cd bench && go test -run '^$' -bench 'Stall' -benchtime 1x -count 3
//
// FJ_STALL_FIB sets the fib of the cost benchmark (default 42: about 3 s
// on 2 workers of the development machine, watch off).

// parkGoroutines starts n goroutines parked on a channel receive (a
// server's connections) and returns the function that ends them.
func parkGoroutines(n int) func() {
	ch := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(n)
	for range n {
		go func() { defer wg.Done(); <-ch }()
	}
	return func() { close(ch); wg.Wait() }
}

// stwOther reads the histogram of non-GC stop-the-world pauses.
func stwOther() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: "/sched/pauses/total/other:seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64Histogram()
}

// pausesOver returns the pauses of at least d between two readings of
// stwOther, and an upper bound of the longest.
func pausesOver(before, after *metrics.Float64Histogram, d time.Duration) (n uint64, longest time.Duration) {
	for i := range after.Counts {
		k := after.Counts[i] - before.Counts[i]
		if k == 0 {
			continue
		}
		hi := after.Buckets[i+1]
		if after.Buckets[i] >= d.Seconds() {
			n += k
		}
		if hi > longest.Seconds() && hi < 1e9 {
			longest = time.Duration(hi * 1e9)
		}
	}
	return n, longest
}

// stallSink keeps the CPU-bound tasks' results alive.
var stallSink atomic.Uint64

func fibJoinArgs(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, fibJoinArgs, n-1, n-2)
	return a + b
}

// BenchmarkStallWatchCost: a CPU-bound JoinArgs fib on 2 workers beside
// 100,000 parked goroutines, with the watch off, at the default
// threshold and at 10 ms. Issue 31's target: no non-GC stop-the-world
// pause over 1 ms, and at most 1.05 times the time with the watch off.
func BenchmarkStallWatchCost(b *testing.B) {
	n := 42
	if s := os.Getenv("FJ_STALL_FIB"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	release := parkGoroutines(100_000)
	defer release()
	variants := []struct {
		name string
		opt  pool.Option
	}{
		{"off", pool.WithStallThreshold(-1)},
		{"default", pool.WithName("fj")},
		{"10ms", pool.WithStallThreshold(10 * time.Millisecond)},
	}
	// Per variant: the total and the fastest wall time, and the process's
	// CPU time (the monitor's included), which another process on the
	// machine disturbs less than the wall time.
	total := make([]time.Duration, len(variants))
	fastest := make([]time.Duration, len(variants))
	cpu := make([]time.Duration, len(variants))
	var over uint64
	var longest time.Duration
	var reports atomic.Int64
	for i := 0; i < b.N; i++ {
		for j, v := range variants {
			p := pool.New(pool.WithWorkers(2), v.opt, pool.WithStallHandler(func(pool.StallReport) { reports.Add(1) }))
			h0 := stwOther()
			c0 := processCPU()
			start := time.Now()
			forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoinArgs(w, n) })
			d := time.Since(start)
			cpu[j] += processCPU() - c0
			total[j] += d
			if fastest[j] == 0 || d < fastest[j] {
				fastest[j] = d
			}
			k, l := pausesOver(h0, stwOther(), time.Millisecond)
			if s := p.Stats(); s.Stalls != 0 || s.HandOvers != 0 {
				b.Errorf("%s: %d stalls, %d hand-overs on a CPU-bound run", v.name, s.Stalls, s.HandOvers)
			}
			p.Close()
			if v.name != "off" {
				over += k
				longest = max(longest, l)
			}
		}
	}
	for j, v := range variants {
		b.ReportMetric(total[j].Seconds()/float64(b.N), v.name+"-s")
		if j > 0 {
			b.ReportMetric(float64(total[j])/float64(total[0]), v.name+"/off")
			b.ReportMetric(float64(fastest[j])/float64(fastest[0]), v.name+"/off-fastest")
			if cpu[0] > 0 {
				b.ReportMetric(float64(cpu[j])/float64(cpu[0]), v.name+"/off-cpu")
			}
		}
	}
	b.ReportMetric(float64(over), "pauses>1ms")
	b.ReportMetric(float64(longest.Microseconds())/1000, "longest-pause-ms")
	b.ReportMetric(float64(reports.Load()), "reports")
}

// BenchmarkStallPartial: the partial stall of issue 31. One worker runs a
// CPU-bound task until the other's task is done; that task receives from
// a channel without a section while the sender is forked behind it. The
// baseline wraps the receive in pool.Blocking. Target: within twice the
// report threshold (default and 10 ms), and reported.
func BenchmarkStallPartial(b *testing.B) {
	run := func(p *pool.Pool, section bool) time.Duration {
		stop, spinning, spun := make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(spun)
			p.Run(func(*pool.Worker) {
				close(spinning)
				for x := 0; ; x++ {
					if x%1024 == 0 {
						select {
						case <-stop:
							return
						default:
						}
					}
				}
			})
		}()
		<-spinning
		start := time.Now()
		forkjoin.Invoke(p, func(w *pool.Worker) int {
			ch := make(chan int)
			x := forkjoin.Fork(w, func(*pool.Worker) int { ch <- 1; return 1 }) //fjvet:ignore blocking the sender forked behind the receiver, in both variants
			var v int
			if section {
				pool.Blocking(func() { v = <-ch })
			} else {
				v = <-ch //fjvet:ignore blocking the forgotten section this benchmark measures
			}
			return v + x.Join(w)
		})
		d := time.Since(start)
		close(stop)
		<-spun
		return d
	}
	for _, thr := range []time.Duration{0, 10 * time.Millisecond} {
		name, opt := "threshold=default", pool.WithName("fj")
		if thr != 0 {
			name, opt = "threshold=10ms", pool.WithStallThreshold(thr)
		}
		b.Run(name, func(b *testing.B) {
			var sec, nosec time.Duration
			var reported, lines int
			for i := 0; i < b.N; i++ {
				p := pool.New(pool.WithWorkers(2), opt)
				sec += run(p, true)
				p.Close()
				var rep pool.StallReport
				got := false
				p = pool.New(pool.WithWorkers(2), opt,
					pool.WithStallHandler(func(r pool.StallReport) { rep, got = r, true }))
				nosec += run(p, false)
				p.Close()
				if got && len(rep.Tasks) > 0 && rep.Tasks[0].State == "chan receive" {
					reported++
					lines = max(lines, strings.Count(strings.TrimSpace(rep.String()), "\n")+1)
				}
			}
			b.ReportMetric(float64(sec.Microseconds())/1000/float64(b.N), "section-ms")
			b.ReportMetric(float64(nosec.Microseconds())/1000/float64(b.N), "nosection-ms")
			b.ReportMetric(float64(reported)/float64(b.N), "reported")
			b.ReportMetric(float64(lines), "report-lines")
		})
	}
}

// BenchmarkStallMutexAcrossJoin: the mutex across a join of issue 31. A
// task holds a sync.Mutex across the join of a fork that the other worker
// keeps busy until the task's younger fork, run on the task's worker
// while it waits, has called Lock() without a section; the join's other
// half then ends, and the parked task, which only its worker can resume,
// gets that worker back over the blocked fork's head (stall.md, Y1-Y7).
// The baseline locks in pool.Blocking. Target: within twice the report
// threshold (default and 10 ms), and reported.
func BenchmarkStallMutexAcrossJoin(b *testing.B) {
	run := func(p *pool.Pool, section bool) time.Duration {
		var mu sync.Mutex
		stolen, started := make(chan struct{}), make(chan struct{})
		start := time.Now()
		forkjoin.Invoke(p, func(w *pool.Worker) int {
			mu.Lock() //fjvet:ignore lock-across-join the mutex across a join this benchmark measures
			other := forkjoin.Fork(w, func(*pool.Worker) int {
				close(stolen)
				<-started //fjvet:ignore blocking waits, without a section, for the younger fork to start: handed over if it holds the worker (stall.md, Y4)
				return 1
			})
			younger := forkjoin.Fork(w, func(*pool.Worker) int {
				close(started)
				if section {
					pool.Blocking(mu.Lock)
				} else {
					mu.Lock()
				}
				mu.Unlock()
				return 1
			})
			pool.Blocking(func() { <-stolen })
			v := other.Join(w)
			mu.Unlock()
			return v + younger.Join(w)
		})
		return time.Since(start)
	}
	for _, thr := range []time.Duration{0, 10 * time.Millisecond} {
		name, opt := "threshold=default", pool.WithName("fj")
		if thr != 0 {
			name, opt = "threshold=10ms", pool.WithStallThreshold(thr)
		}
		b.Run(name, func(b *testing.B) {
			var sec, nosec time.Duration
			var reported, handOvers int
			for i := 0; i < b.N; i++ {
				p := pool.New(pool.WithWorkers(2), opt)
				sec += run(p, true)
				p.Close()
				got := false
				p = pool.New(pool.WithWorkers(2), opt, pool.WithStallHandler(func(pool.StallReport) { got = true }))
				nosec += run(p, false)
				handOvers += int(p.Stats().HandOvers)
				p.Close()
				if got {
					reported++
				}
			}
			b.ReportMetric(float64(sec.Microseconds())/1000/float64(b.N), "section-ms")
			b.ReportMetric(float64(nosec.Microseconds())/1000/float64(b.N), "nosection-ms")
			b.ReportMetric(float64(reported)/float64(b.N), "reported")
			b.ReportMetric(float64(handOvers)/float64(b.N), "handovers")
		})
	}
}

// BenchmarkStallHandBack: how long a task handed over (internal/sched's
// stall.md, Y4) waits for its worker back once its block has ended. A
// task receives without a section; its worker goes to another goroutine,
// which runs the sender and then takes queued work (2,000 tasks of 20
// µs); the task, once its receive has returned, forks and joins, which
// takes its worker back at the holder's next task boundary (Y5). Target:
// about one queued task's time, not the queue's.
func BenchmarkStallHandBack(b *testing.B) {
	p := pool.New(pool.WithWorkers(1), pool.WithStallThreshold(10*time.Millisecond),
		pool.WithStallHandler(func(pool.StallReport) {}))
	defer p.Close()
	var total, longest time.Duration
	for i := 0; i < b.N; i++ {
		ch := make(chan int)
		started, done := make(chan struct{}), make(chan struct{})
		var d time.Duration
		go func() {
			defer close(done)
			p.Run(func(w *pool.Worker) {
				close(started)
				<-ch //fjvet:ignore blocking the block whose hand-back this benchmark times
				end := time.Now()
				forkjoin.Join(w, func(*pool.Worker) int { return 0 }, func(*pool.Worker) int { return 0 })
				d = time.Since(end)
			})
		}()
		<-started
		var wg sync.WaitGroup
		//fjvet:ignore blocking the send that ends the block above
		go p.Run(func(*pool.Worker) { ch <- 1 })
		for range 2000 { // work the holder goes on taking meanwhile
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.Run(func(*pool.Worker) { stallSink.Add(cpuWork(spinsFor(20 * time.Microsecond))) })
			}()
		}
		<-done
		wg.Wait()
		total += d
		longest = max(longest, d)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "handback-ms")
	b.ReportMetric(float64(longest.Microseconds())/1000, "longest-handback-ms")
}

// The 200-item job of issue 31: a newcomer's port of an errgroup job to
// ForErr with WithContext, each item waiting 5 to 20 ms on the context
// (item 150 fails once its wait is over), without pool.Blocking. The
// baseline has the sections. Target: at most 5 times the sectioned time,
// reported once, in at most 40 lines.
func BenchmarkStallErrgroupPort(b *testing.B) {
	const items, failing = 200, 150
	wait := func(i int) time.Duration { return time.Duration(5+(i*7919)%16) * time.Millisecond }
	job := func(p *pool.Pool, section bool) error {
		opt, ctx := parallel.WithContext(context.Background())
		return parallel.ForErr(p, 0, items, func(_ *pool.Worker, i int) error {
			var err error
			body := func() {
				if err = sleepCtx(ctx, wait(i)); err == nil && i == failing {
					err = errItem
				}
			}
			if section {
				pool.Blocking(body)
			} else {
				body() //fjvet:ignore blocking the errgroup port without its sections, which this benchmark measures
			}
			return err
		}, opt)
	}
	var sec, nosec time.Duration
	reports, lines := 0, 0
	for i := 0; i < b.N; i++ {
		p := pool.New(pool.WithWorkers(2))
		start := time.Now()
		err := job(p, true)
		sec += time.Since(start)
		p.Close()
		if !errors.Is(err, errItem) {
			b.Fatalf("sections: %v", err)
		}
		var mu sync.Mutex
		p = pool.New(pool.WithWorkers(2), pool.WithStallHandler(func(r pool.StallReport) {
			mu.Lock()
			reports++
			lines = max(lines, strings.Count(strings.TrimSpace(r.String()), "\n")+1)
			mu.Unlock()
		}))
		start = time.Now()
		err = job(p, false)
		nosec += time.Since(start)
		p.Close()
		if !errors.Is(err, errItem) {
			b.Fatalf("no sections: %v", err)
		}
	}
	b.ReportMetric(float64(sec.Microseconds())/1000/float64(b.N), "section-ms")
	b.ReportMetric(float64(nosec.Microseconds())/1000/float64(b.N), "nosection-ms")
	b.ReportMetric(float64(nosec)/float64(sec), "nosection/section")
	b.ReportMetric(float64(reports)/float64(b.N), "reports")
	b.ReportMetric(float64(lines), "report-lines")
}

// BenchmarkStallNotOnCPU: CPU-bound tasks of 1 s (and 10 s with FJ_LONG),
// one per worker with work queued behind them, and a JoinArgs recursion
// as long, beside 100,000 parked goroutines: never reported, no hand-over.
func BenchmarkStallNotOnCPU(b *testing.B) {
	release := parkGoroutines(100_000)
	defer release()
	durations := []time.Duration{time.Second}
	if fjtest.Long() {
		durations = append(durations, 10*time.Second)
	}
	for i := 0; i < b.N; i++ {
		for _, d := range durations {
			var reports atomic.Int64
			p := pool.New(pool.WithWorkers(2), pool.WithStallHandler(func(pool.StallReport) { reports.Add(1) }))
			spins := spinsFor(d)
			var wg sync.WaitGroup
			for range 4 { // two run, two wait queued behind them
				wg.Add(1)
				go func() { defer wg.Done(); p.Run(func(*pool.Worker) { stallSink.Add(cpuWork(spins)) }) }()
			}
			wg.Wait()
			fn := 40 // about as long as d on 2 workers of the development machine
			if d > time.Second {
				fn = 45
			}
			forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoinArgs(w, fn) })
			s := p.Stats()
			p.Close()
			if reports.Load() != 0 || s.Stalls != 0 || s.HandOvers != 0 {
				b.Errorf("CPU-bound tasks of %v: %d reports, %d stalls, %d hand-overs", d, reports.Load(), s.Stalls, s.HandOvers)
			}
		}
	}
}
