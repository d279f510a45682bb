package fj_test

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// BenchmarkPartlyBusy times the shapes of issue 23's table on 2 workers:
// the other worker is busy for 5 ms when the case forks, and each half
// (or item) keeps a worker busy for a fixed wall time, so that the ideal
// is known: two 100 ms halves take 105 ms (5 ms until the other worker is
// free, then both halves in parallel), eight 50 ms items 205 ms. Its
// ms/op is that time; ideal-ms is the ideal in the same run, and ratio
// their quotient (target <= 1.10). A scheduler that leaves a fork made
// while every worker is busy private until its forker forks again runs
// the halves one after the other: 200 ms. The halves spin on the clock
// rather than sleep, so that they hold their worker as CPU work does.
// internal/sched/greedy_test.go counts the same shapes' lost forks.
func BenchmarkPartlyBusy(b *testing.B) {
	const (
		busy = 5 * time.Millisecond
		half = 100 * time.Millisecond
		item = 50 * time.Millisecond
	)
	hold := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
		}
	}
	cases := []struct {
		name  string
		ideal time.Duration
		run   func(w *pool.Worker)
	}{
		{"Join", busy + half, func(w *pool.Worker) {
			forkjoin.Join(w,
				func(w *pool.Worker) int { hold(half); return 0 },
				func(w *pool.Worker) int { hold(half); return 0 })
		}},
		{"JoinArgs", busy + half, func(w *pool.Worker) {
			forkjoin.JoinArgs(w, func(w *pool.Worker, d time.Duration) int { hold(d); return 0 }, half, half)
		}},
		{"Fork+Join", busy + half, func(w *pool.Worker) {
			f := forkjoin.Fork(w, func(w *pool.Worker) int { hold(half); return 0 })
			hold(half)
			f.Join(w)
		}},
		{"Do", busy + half, func(w *pool.Worker) {
			parallel.Do(w, func(w *pool.Worker) { hold(half) }, func(w *pool.Worker) { hold(half) })
		}},
		{"For2x100ms", busy + half, func(w *pool.Worker) {
			parallel.For(w, 0, 2, func(w *pool.Worker, i int) { hold(half) })
		}},
		{"For8x50ms", busy + 4*item, func(w *pool.Worker) {
			parallel.For(w, 0, 8, func(w *pool.Worker, i int) { hold(item) })
		}},
		// Issue 30's rows: Cilk's spawn, spawn, compute, sync. The other
		// worker, free at 5 ms, takes the oldest spawn and then, at
		// 105 ms, the middle one, which is private: its forker is in
		// its leaf until 100 ms and then runs the newest.
		{"Spawn3+leaf", busy + 2*half, func(w *pool.Worker) {
			ts := [3]forkjoin.Task[int]{}
			for i := range ts {
				ts[i] = forkjoin.Spawn(w, func(w *pool.Worker) int { hold(half); return 0 })
			}
			hold(half)
			for _, t := range ts {
				t.Join(w)
			}
		}},
		{"Fork3+leaf", busy + 2*half, func(w *pool.Worker) {
			fs := [3]*forkjoin.Future[int]{}
			for i := range fs {
				fs[i] = forkjoin.Fork(w, func(w *pool.Worker) int { hold(half); return 0 })
			}
			hold(half)
			for _, f := range fs {
				f.Join(w)
			}
		}},
		// 10 ms and 100 ms spawned, then a 100 ms leaf: the other worker
		// runs the 10 ms task from 5 to 15 ms, then the private 100 ms
		// one, while the forker is in its leaf.
		{"Spawn10+100+leaf", busy + 10*time.Millisecond + half, func(w *pool.Worker) {
			a := forkjoin.Spawn(w, func(w *pool.Worker) int { hold(10 * time.Millisecond); return 0 })
			c := forkjoin.Spawn(w, func(w *pool.Worker) int { hold(half); return 0 })
			hold(half)
			a.Join(w)
			c.Join(w)
		}},
		// Unequal children, 40, 80 and 120 ms, then a 60 ms leaf: the
		// thief takes them oldest first (5-45, then the private 80 from
		// 45 to 125), the forker the newest after its leaf (60-180).
		{"Spawn40+80+120+leaf60", 180 * time.Millisecond, func(w *pool.Worker) {
			var ts [3]forkjoin.Task[int]
			for i, d := range []time.Duration{40, 80, 120} {
				ts[i] = forkjoin.Spawn(w, func(w *pool.Worker) int { hold(d * time.Millisecond); return 0 })
			}
			hold(60 * time.Millisecond)
			for _, t := range ts {
				t.Join(w)
			}
		}},
		// A task block whose body runs a leaf after its b.Run calls.
		{"Block3+leaf", busy + 2*half, func(w *pool.Worker) {
			taskblock.Define(w, func(b *taskblock.Block) {
				for range 3 {
					b.Run(func(w *pool.Worker) { hold(half) })
				}
				hold(half)
			})
		}},
		// A deeper tree: two spawned subtrees, each spawning two 50 ms
		// leaves and running a third, then a 50 ms leaf at the root:
		// 7 leaves of 50 ms, 350 ms of work on 2 workers after 5 ms.
		{"Tree2x3+leaf", busy + 4*item, func(w *pool.Worker) {
			sub := func(w *pool.Worker) int {
				l1 := forkjoin.Spawn(w, func(w *pool.Worker) int { hold(item); return 0 })
				l2 := forkjoin.Spawn(w, func(w *pool.Worker) int { hold(item); return 0 })
				hold(item)
				l1.Join(w)
				l2.Join(w)
				return 0
			}
			a := forkjoin.Spawn(w, sub)
			c := forkjoin.Spawn(w, sub)
			hold(item)
			a.Join(w)
			c.Join(w)
		}},
	}
	for _, c := range cases {
		b.Run("case="+c.name, func(b *testing.B) {
			p := pool.New(pool.WithWorkers(2))
			defer p.Close()
			var total time.Duration
			for range b.N {
				started := make(chan struct{})
				done := make(chan struct{})
				go func() {
					p.Run(func(w *pool.Worker) {
						close(started)
						hold(busy)
					})
					close(done)
				}()
				<-started
				t0 := time.Now()
				p.Run(c.run)
				total += time.Since(t0)
				<-done
			}
			ms := float64(total.Microseconds()) / 1e3 / float64(b.N)
			ideal := float64(c.ideal.Microseconds()) / 1e3
			b.ReportMetric(ms, "ms/op")
			b.ReportMetric(ideal, "ideal-ms")
			b.ReportMetric(ms/ideal, "ratio")
		})
	}
}

// BenchmarkGenerator is issue 30's generator: a task block whose body
// calls b.Run 1,000 times in a loop, each task holding its worker about
// 50 µs, on 2 workers; beside it, the same tasks as a goroutine each
// with a WaitGroup, in the same run. An idle worker takes half of what
// the generator queued at each steal (wsdeque.md, M1), so the tasks are
// spread in a few steals, not one per task: steals/op is the tasks
// taken from another deque, stealops/op the steals that took them.
func BenchmarkGenerator(b *testing.B) {
	const (
		n    = 1000
		each = 50 * time.Microsecond
	)
	hold := func(d time.Duration) {
		for end := time.Now().Add(d); time.Now().Before(end); {
		}
	}
	b.Run("impl=fj", func(b *testing.B) {
		p := pool.New(pool.WithWorkers(2))
		defer p.Close()
		before := p.Stats()
		b.ReportAllocs()
		for range b.N {
			taskblock.Define(p, func(blk *taskblock.Block) {
				for range n {
					blk.Run(func(w *pool.Worker) { hold(each) })
				}
			})
		}
		d := p.Stats().Sub(before)
		b.ReportMetric(float64(d.Total.Steals)/float64(b.N), "steals/op")
		b.ReportMetric(float64(d.Total.StealOps)/float64(b.N), "stealops/op")
		b.ReportMetric(float64(d.Total.Sleeps)/float64(b.N), "sleeps/op")
	})
	b.Run("impl=goroutines", func(b *testing.B) {
		prev := runtime.GOMAXPROCS(2)
		defer runtime.GOMAXPROCS(prev)
		b.ReportAllocs()
		for range b.N {
			var wg sync.WaitGroup
			for range n {
				wg.Add(1)
				go func() { defer wg.Done(); hold(each) }()
			}
			wg.Wait()
		}
	})
	// Phases, as BOTS sparselu runs them: one generator task calls, in
	// each of 50 phases, a task block whose body runs 36 tasks of about
	// 300 µs with b.Run and waits for them (its Define), then goes on to
	// the next phase. equal: every task holds its worker 300 µs; unequal:
	// 100 to 500 µs by the task's index, the same total. On 2 workers the
	// ideal is the phases' list schedules, summed (ideal-ms): 270 ms for
	// equal. Beside them, the same phases with a goroutine per task and
	// a WaitGroup per phase, on GOMAXPROCS 2. Where the time goes:
	// steals/op and stealops/op (tasks and steals), parks/op (the
	// generator waiting at a phase's end parks when its worker has nothing
	// left), sleeps/op.
	for _, shape := range []struct {
		name string
		each func(phase, i int) time.Duration
	}{
		{"equal", func(int, int) time.Duration { return 300 * time.Microsecond }},
		{"unequal", func(phase, i int) time.Duration {
			return time.Duration(100+((phase*7+i*13)%5)*100) * time.Microsecond
		}},
	} {
		const phases, tasks = 50, 36
		ideal := time.Duration(0)
		for ph := range phases {
			var load [2]time.Duration // list schedule of the phase's tasks, in order
			for i := range tasks {
				k := 0
				if load[1] < load[0] {
					k = 1
				}
				load[k] += shape.each(ph, i)
			}
			ideal += max(load[0], load[1])
		}
		idealMs := float64(ideal.Microseconds()) / 1e3
		b.Run("phases="+shape.name+"/impl=fj", func(b *testing.B) {
			p := pool.New(pool.WithWorkers(2))
			defer p.Close()
			before := p.Stats()
			b.ReportAllocs()
			for range b.N {
				p.Run(func(w *pool.Worker) {
					for ph := range phases {
						taskblock.Define(w, func(blk *taskblock.Block) {
							for i := range tasks {
								d := shape.each(ph, i)
								blk.Run(func(*pool.Worker) { hold(d) })
							}
						})
					}
				})
			}
			d := p.Stats().Sub(before)
			ms := float64(b.Elapsed().Microseconds()) / 1e3 / float64(b.N)
			b.ReportMetric(ms, "ms/op")
			b.ReportMetric(idealMs, "ideal-ms")
			b.ReportMetric(ms/idealMs, "ratio")
			b.ReportMetric(float64(d.Total.Steals)/float64(b.N), "steals/op")
			b.ReportMetric(float64(d.Total.StealOps)/float64(b.N), "stealops/op")
			b.ReportMetric(float64(d.Total.Parks)/float64(b.N), "parks/op")
			b.ReportMetric(float64(d.Total.Sleeps)/float64(b.N), "sleeps/op")
		})
		b.Run("phases="+shape.name+"/impl=goroutines", func(b *testing.B) {
			prev := runtime.GOMAXPROCS(2)
			defer runtime.GOMAXPROCS(prev)
			b.ReportAllocs()
			for range b.N {
				for ph := range phases {
					var wg sync.WaitGroup
					for i := range tasks {
						d := shape.each(ph, i)
						wg.Add(1)
						go func() { defer wg.Done(); hold(d) }()
					}
					wg.Wait()
				}
			}
			ms := float64(b.Elapsed().Microseconds()) / 1e3 / float64(b.N)
			b.ReportMetric(ms, "ms/op")
			b.ReportMetric(idealMs, "ideal-ms")
			b.ReportMetric(ms/idealMs, "ratio")
		})
	}
}
