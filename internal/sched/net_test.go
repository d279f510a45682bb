package sched_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/wsdeque"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

//fjvet:file-ignore blocking the net's tests block without sections on purpose

// The net never lies (stall.md, V3-V5; issue 44): pure fork/join code, with
// no lock, channel, sleep or I/O of its own, gets no report and no
// hand-over, at any pool size and deque size, with a threshold of a
// millisecond, in every build. Small deques overflow to the injector,
// whose locks, and the workers' own, are then contended on every fork;
// 64 workers on two cores are preempted mid-fork, mid-join and mid-lock.
func TestNetNeverLies(t *testing.T) {
	fjtest.Deadline(t, 10*time.Minute)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	depth := fjtest.Stress(20, 24, 16)
	for _, workers := range []int{8, 16, 64} {
		for _, capacity := range []int{1, 4, 1024} {
			t.Run(fmt.Sprintf("workers=%d/capacity=%d", workers, capacity), func(t *testing.T) {
				var r reports
				p := pool.New(pool.WithWorkers(workers), pool.WithDequeCapacity(capacity),
					pool.WithStallThreshold(time.Millisecond), pool.WithStallHandler(r.handler))
				for round := range 2 {
					pureForkJoin(t, p, depth, uint64(round))
				}
				s := p.Stats()
				p.Close()
				if n := len(r.get()); n != 0 || s.Stalls != 0 || s.HandOvers != 0 {
					t.Errorf("%d reports, %d stalls, %d hand-overs in pure fork/join code; want none:\n%v", n, s.Stalls, s.HandOvers, r.get())
				}
			})
		}
	}
}

// pureForkJoin runs fib with every form of fork and join, a random tree
// with every form, a task block and the loops, and checks their results.
func pureForkJoin(t *testing.T, p *pool.Pool, depth int, seed uint64) {
	t.Helper()
	want := fibSeq(depth)
	got := forkjoin.Invoke(p, func(w *pool.Worker) []int {
		var fibArgs func(w *pool.Worker, n int) int
		fibArgs = func(w *pool.Worker, n int) int {
			if n < 2 {
				return n
			}
			a, b := forkjoin.JoinArgs(w, fibArgs, n-1, n-2)
			return a + b
		}
		var fibJoin func(w *pool.Worker, n int) int
		fibJoin = func(w *pool.Worker, n int) int {
			if n < 2 {
				return n
			}
			a, b := forkjoin.Join(w, func(w *pool.Worker) int { return fibJoin(w, n-1) }, func(w *pool.Worker) int { return fibJoin(w, n-2) })
			return a + b
		}
		var fibSpawn func(w *pool.Worker, n int) int
		fibSpawn = func(w *pool.Worker, n int) int {
			if n < 2 {
				return n
			}
			x := forkjoin.Spawn(w, func(w *pool.Worker) int { return fibSpawn(w, n-2) })
			return fibSpawn(w, n-1) + x.Join(w)
		}
		var fibFork func(w *pool.Worker, n int) int
		fibFork = func(w *pool.Worker, n int) int {
			if n < 2 {
				return n
			}
			x := forkjoin.Fork(w, func(w *pool.Worker) int { return fibFork(w, n-2) })
			return fibFork(w, n-1) + x.Join(w)
		}
		var fibBlock func(w *pool.Worker, n int) int
		fibBlock = func(w *pool.Worker, n int) int {
			if n < 2 {
				return n
			}
			var a, b int
			taskblock.Define(w, func(bl *taskblock.Block) {
				bl.Run(func(w *pool.Worker) { a = fibBlock(w, n-1) })
				b = fibBlock(bl.Worker(), n-2)
			})
			return a + b
		}
		return []int{fibArgs(w, depth), fibJoin(w, depth-2), fibSpawn(w, depth-2), fibFork(w, depth-4), fibBlock(w, depth-5),
			netTree(w, rand.New(rand.NewPCG(seed, 7)), 4, 12)}
	})
	wantAll := []int{want, fibSeq(depth - 2), fibSeq(depth - 2), fibSeq(depth - 4), fibSeq(depth - 5), got[5]}
	if !slices.Equal(got, wantAll) {
		t.Errorf("fib in every form: %v, want %v", got, wantAll)
	}
	xs := make([]int, 1<<16)
	for i := range xs {
		xs[i] = i
	}
	if s := parallel.Sum(p, xs); s != len(xs)*(len(xs)-1)/2 {
		t.Errorf("Sum = %d", s)
	}
	parallel.For(p, 0, 256, func(w *pool.Worker, i int) {
		if parallel.Sum(w, xs[:i]) != i*(i-1)/2 {
			t.Errorf("nested Sum")
		}
	})
	// A newcomer's directory hasher: a DefineErr of 20,000 b.Go, each
	// reading inside pool.BlockingValue, whose sections hand the
	// workers on, and whose forks overflow small deques to the
	// injector.
	var hashed atomic.Int64
	if err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
		for i := range 20000 {
			b.Go(func(*pool.Worker) error {
				n, err := pool.BlockingValue(func() (int, error) { return i & 7, nil })
				hashed.Add(int64(n))
				return err
			})
		}
		return nil
	}); err != nil || hashed.Load() != 20000/8*28 {
		t.Errorf("the hasher: %v, %d", err, hashed.Load())
	}
	ys := slices.Clone(xs)
	rand.New(rand.NewPCG(seed, 9)).Shuffle(len(ys), func(i, j int) { ys[i], ys[j] = ys[j], ys[i] })
	parallel.Sort(p, ys)
	if !slices.Equal(xs, ys) {
		t.Errorf("Sort")
	}
}

// netTree walks a random tree of fan-out up to width and depth up to
// depth with a random form per node, and returns its number of nodes.
func netTree(w *pool.Worker, rng *rand.Rand, width, depth int) int {
	if depth == 0 {
		return 1
	}
	n := rng.IntN(width + 1)
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = rng.Uint64()
	}
	child := func(w *pool.Worker, s uint64) int {
		return netTree(w, rand.New(rand.NewPCG(s, 1)), width, depth-1)
	}
	switch rng.IntN(5) {
	case 0:
		return 1 + forkjoin.JoinReduce(w, child, seeds, func(a, b int) int { return a + b })
	case 1:
		total := 1
		fs := make([]*forkjoin.Future[int], n)
		for i, s := range seeds {
			fs[i] = forkjoin.Fork(w, func(w *pool.Worker) int { return child(w, s) })
		}
		for i := n - 1; i >= 0; i-- {
			total += fs[i].Join(w)
		}
		return total
	case 2:
		var total atomic.Int64
		total.Add(1)
		taskblock.Define(w, func(b *taskblock.Block) {
			for _, s := range seeds {
				b.Run(func(w *pool.Worker) { total.Add(int64(child(w, s))) })
			}
		})
		return int(total.Load())
	case 3:
		return 1 + parallel.Reduce(w, 0, n, 0, func(w *pool.Worker, lo, hi int) int {
			s := 0
			for i := lo; i < hi; i++ {
				s += child(w, seeds[i])
			}
			return s
		}, func(a, b int) int { return a + b })
	}
	total := 1
	ts := make([]forkjoin.Task[int], n)
	for i, s := range seeds {
		ts[i] = forkjoin.Spawn(w, func(w *pool.Worker) int { return child(w, s) })
	}
	for i := n - 1; i >= 0; i-- {
		total += ts[i].Join(w)
	}
	return total
}

// Two CPU-bound tasks that share a sync.Mutex for microseconds, each
// waiting for it now and then, with work queued behind them: many short
// waits are not one long one (stall.md, V5). No report, no hand-over, at
// a threshold of a millisecond.
func TestNetShortWaitsAreNoBlock(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("no look on this platform (stall.md, Limits)")
	}
	fjtest.Deadline(t, 2*time.Minute)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var r reports
	p := pool.New(pool.WithWorkers(2), pool.WithStallThreshold(time.Millisecond), pool.WithStallHandler(r.handler))
	var mu sync.Mutex
	shared := 0
	run := time.Duration(fjtest.Stress(300, 2000, 200)) * time.Millisecond
	stop := time.Now().Add(run)
	var queued atomic.Int64
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		a, b := forkjoin.Join(w, func(w *pool.Worker) int {
			// Work queued behind the two tasks all the time: forks
			// that nobody takes (both workers are busy), joined
			// later, replaced as they are.
			n := 0
			for time.Now().Before(stop) {
				x := forkjoin.Fork(w, func(*pool.Worker) int { queued.Add(1); return 1 })
				for range 200 {
					mu.Lock()
					shared++
					for i := 0; i < 200; i++ { // a few microseconds under the lock
						shared += i & 1
					}
					mu.Unlock()
				}
				n += x.Join(w)
			}
			return n
		}, func(w *pool.Worker) int {
			n := 0
			for time.Now().Before(stop) {
				for range 200 {
					mu.Lock()
					shared++
					for i := 0; i < 200; i++ {
						shared += i & 1
					}
					mu.Unlock()
				}
				n++
			}
			return n
		})
		return a + b
	})
	s := p.Stats()
	p.Close()
	if n := len(r.get()); n != 0 || s.Stalls != 0 || s.HandOvers != 0 {
		t.Errorf("%d reports, %d stalls, %d hand-overs for two tasks sharing a lock; want none:\n%v", n, s.Stalls, s.HandOvers, r.get())
	}
}

// barrierShapes are the shapes the docs promise to complete without
// sections, within the bound of hand-overs (stall.md, Y1): n leaves,
// each of which arrives at a barrier of n and waits there, on a channel,
// for all the others, written in every form that forks them.
var barrierShapes = []struct {
	name string
	run  func(p *pool.Pool, n int, leaf func(w *pool.Worker, i int) int) int
}{
	{"JoinArgs tree", func(p *pool.Pool, n int, leaf func(*pool.Worker, int) int) int {
		var tree func(w *pool.Worker, r [2]int) int
		tree = func(w *pool.Worker, r [2]int) int {
			if r[1]-r[0] == 1 {
				return leaf(w, r[0])
			}
			mid := (r[0] + r[1]) / 2
			a, b := forkjoin.JoinArgs(w, tree, [2]int{r[0], mid}, [2]int{mid, r[1]})
			return a + b
		}
		return forkjoin.Invoke(p, func(w *pool.Worker) int { return tree(w, [2]int{0, n}) })
	}},
	{"JoinAll", func(p *pool.Pool, n int, leaf func(*pool.Worker, int) int) int {
		return forkjoin.Invoke(p, func(w *pool.Worker) int {
			out := forkjoin.JoinAll(w, leaf, seq(n))
			s := 0
			for _, v := range out {
				s += v
			}
			return s
		})
	}},
	{"Spawn loop", func(p *pool.Pool, n int, leaf func(*pool.Worker, int) int) int {
		return forkjoin.Invoke(p, func(w *pool.Worker) int {
			ts := make([]forkjoin.Task[int], n)
			for i := range n {
				ts[i] = forkjoin.Spawn(w, func(w *pool.Worker) int { return leaf(w, i) })
			}
			s := 0
			for i := n - 1; i >= 0; i-- {
				s += ts[i].Join(w)
			}
			return s
		})
	}},
	{"Fork loop", func(p *pool.Pool, n int, leaf func(*pool.Worker, int) int) int {
		return forkjoin.Invoke(p, func(w *pool.Worker) int {
			fs := make([]*forkjoin.Future[int], n)
			for i := range n {
				fs[i] = forkjoin.Fork(w, func(w *pool.Worker) int { return leaf(w, i) })
			}
			s := 0
			for _, f := range fs {
				s += f.Join(w)
			}
			return s
		})
	}},
	{"task block", func(p *pool.Pool, n int, leaf func(*pool.Worker, int) int) int {
		var s atomic.Int64
		taskblock.Define(p, func(b *taskblock.Block) {
			for i := range n {
				b.Run(func(w *pool.Worker) { s.Add(int64(leaf(w, i))) })
			}
		})
		return int(s.Load())
	}},
	{"ForErr WithContext", func(p *pool.Pool, n int, leaf func(*pool.Worker, int) int) int {
		var s atomic.Int64
		opt, _ := parallel.WithContext(context.Background())
		if err := parallel.ForErr(p, 0, n, func(w *pool.Worker, i int) error {
			s.Add(int64(leaf(w, i)))
			return nil
		}, opt); err != nil {
			panic(err)
		}
		return int(s.Load())
	}},
	{"For WithContext", func(p *pool.Pool, n int, leaf func(*pool.Worker, int) int) int {
		var s atomic.Int64
		opt, _ := parallel.WithContext(context.Background())
		parallel.For(p, 0, n, func(w *pool.Worker, i int) { s.Add(int64(leaf(w, i))) }, opt)
		return int(s.Load())
	}},
	{"Map WithContext", func(p *pool.Pool, n int, leaf func(*pool.Worker, int) int) int {
		opt, _ := parallel.WithContext(context.Background())
		out := parallel.Map(p, seq(n), leaf, opt)
		s := 0
		for _, v := range out {
			s += v
		}
		return s
	}},
}

func seq(n int) []int {
	xs := make([]int, n)
	for i := range xs {
		xs[i] = i
	}
	return xs
}

// The barrier shapes complete without sections, on one worker and on
// two, at sizes up to the bound of hand-overs, in every build (plain,
// -race, -tags fjdebug, -tags fjnoprivate): what the README promises
// for a forgotten section (issue 44).
func TestNetBarrierShapes(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("no look on this platform: a forgotten section may hang (stall.md, Limits)")
	}
	fjtest.Deadline(t, 10*time.Minute)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, shape := range barrierShapes {
		for _, c := range []struct{ workers, n int }{{1, 8}, {1, 10}, {2, 16}, {2, 32}, {1, 48}} {
			t.Run(fmt.Sprintf("%s/workers=%d/n=%d", shape.name, c.workers, c.n), func(t *testing.T) {
				var r reports
				p := pool.New(pool.WithWorkers(c.workers), pool.WithStallThreshold(stallThreshold), pool.WithStallHandler(r.handler))
				var wg sync.WaitGroup
				wg.Add(c.n)
				var passed atomic.Int64
				got := shape.run(p, c.n, func(_ *pool.Worker, i int) int {
					wg.Done()
					wg.Wait() // without a section
					passed.Add(1)
					return i
				})
				s := p.Stats()
				p.Close()
				if want := c.n * (c.n - 1) / 2; got != want || passed.Load() != int64(c.n) {
					t.Errorf("returned %d (want %d), %d passed the barrier", got, want, passed.Load())
				}
				if s.Spares != 0 {
					t.Errorf("%d tasks still handed over after the call", s.Spares)
				}
			})
		}
	}
}

// Every frame of fj's that calls the program's code re-checks, when that
// code returns after a wait that a hand-over covered, that its goroutine
// holds its worker again before it touches it (stall.md, Y6): each
// callback here blocks, without a section, on a channel that a task
// queued behind it on its only worker fills, so that only a hand-over
// runs that task; then the callback returns into its frame, which goes
// on forking and joining. Builds with debug checks make every owner-only
// operation check its caller (mustOwn): a frame without its re-check
// panics there, and under -race the race detector sees a frame without
// its release.
func TestHandOverEverywhere(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("no look on this platform (stall.md, Limits)")
	}
	fjtest.Deadline(t, 5*time.Minute)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	type frame struct {
		name string
		// run calls block from inside the frame under test, on w, and
		// returns what the frame computed (want).
		run  func(w *pool.Worker, block func()) int
		want int
	}
	one := func(*pool.Worker) int { return 1 }
	frames := []frame{
		{"Join first half", func(w *pool.Worker, block func()) int {
			a, b := forkjoin.Join(w, func(w *pool.Worker) int { block(); return forkjoin.Invoke(w, one) }, one)
			return a + b
		}, 2},
		{"Join second half", func(w *pool.Worker, block func()) int {
			a, b := forkjoin.Join(w, one, func(w *pool.Worker) int { block(); return 1 })
			return a + b
		}, 2},
		{"JoinArgs", func(w *pool.Worker, block func()) int {
			a, b := forkjoin.JoinArgs(w, func(w *pool.Worker, k int) int {
				if k == 0 {
					block()
				}
				return 1
			}, 0, 1)
			return a + b
		}, 2},
		{"JoinAll", func(w *pool.Worker, block func()) int {
			out := forkjoin.JoinAll(w, func(w *pool.Worker, k int) int {
				if k == 0 {
					block()
				}
				return 1
			}, []int{0, 1, 2, 3})
			return len(out)
		}, 4},
		{"Spawn", func(w *pool.Worker, block func()) int {
			x := forkjoin.Spawn(w, one)
			block()
			return x.Join(w) + 1
		}, 2},
		{"Fork joined after a block", func(w *pool.Worker, block func()) int {
			x := forkjoin.Fork(w, func(*pool.Worker) int { return 1 })
			block()
			return x.Join(w) + x.Join(w)
		}, 2},
		{"task block body", func(w *pool.Worker, block func()) int {
			var n atomic.Int64
			taskblock.Define(w, func(b *taskblock.Block) {
				b.Run(func(*pool.Worker) { n.Add(1) })
				block()
				b.Run(func(*pool.Worker) { n.Add(1) })
			})
			return int(n.Load())
		}, 2},
		{"task block task", func(w *pool.Worker, block func()) int {
			var n atomic.Int64
			taskblock.Define(w, func(b *taskblock.Block) {
				b.Run(func(*pool.Worker) { block(); n.Add(1) })
				b.Run(func(*pool.Worker) { n.Add(1) })
			})
			return int(n.Load())
		}, 2},
		{"For body", func(w *pool.Worker, block func()) int {
			var n atomic.Int64
			parallel.For(w, 0, 100, func(w *pool.Worker, i int) {
				if i == 0 {
					block()
				}
				n.Add(1)
			})
			return int(n.Load())
		}, 100},
		{"ForErr body", func(w *pool.Worker, block func()) int {
			var n atomic.Int64
			_ = parallel.ForErr(w, 0, 100, func(w *pool.Worker, i int) error {
				if i == 50 {
					block()
				}
				n.Add(1)
				return nil
			})
			return int(n.Load())
		}, 100},
		{"Reduce chunk", func(w *pool.Worker, block func()) int {
			return parallel.Reduce(w, 0, 1000, 0, func(w *pool.Worker, lo, hi int) int {
				if lo == 0 {
					block()
				}
				return hi - lo
			}, func(a, b int) int { return a + b })
		}, 1000},
		{"ForSeq iterator", func(w *pool.Worker, block func()) int {
			var n atomic.Int64
			parallel.ForSeq(w, func(yield func(int) bool) {
				for i := range 100 {
					if i == 10 {
						block()
					}
					if !yield(i) {
						return
					}
				}
			}, func(w *pool.Worker, i int) { n.Add(1) })
			return int(n.Load())
		}, 100},
		{"Region", func(w *pool.Worker, block func()) int {
			n := 0
			pool.Region(w, "fj-test", func(w *pool.Worker) {
				block()
				n = forkjoin.Invoke(w, one)
			})
			return n
		}, 1},
		{"PerWorker init", func(w *pool.Worker, block func()) int {
			pw := parallel.NewPerWorker(w, func() int { block(); return 1 })
			return *pw.Get(w)
		}, 1},
		{"Worker.Run", func(w *pool.Worker, block func()) int {
			n := 0
			w.Run(func(w *pool.Worker) { block(); n = forkjoin.Invoke(w, one) })
			return n
		}, 1},
		{"Invoke on its own pool", func(w *pool.Worker, block func()) int {
			return forkjoin.Invoke(w.Pool(), func(w *pool.Worker) int { block(); return 1 })
		}, 1},
		{"SortFunc comparator", func(w *pool.Worker, block func()) int {
			xs := seq(5000)
			slices.Reverse(xs)
			var once sync.Once
			parallel.SortFunc(w, xs, func(a, b int) int {
				once.Do(block)
				return a - b
			})
			if !slices.IsSorted(xs) {
				return -1
			}
			return len(xs)
		}, 5000},
	}
	for _, f := range frames {
		t.Run(f.name, func(t *testing.T) {
			for range fjtest.Stress(5, 20, 3) {
				var r reports
				p := pool.New(pool.WithWorkers(1), pool.WithStallThreshold(stallThreshold), pool.WithStallHandler(r.handler))
				ch := make(chan int)
				blocked := make(chan struct{})
				var once sync.Once
				block := func() {
					once.Do(func() {
						close(blocked)
						stallReceive(ch) // no section
					})
				}
				done := make(chan int)
				go func() { done <- forkjoin.Invoke(p, func(w *pool.Worker) int { return f.run(w, block) }) }()
				<-blocked
				p.Run(func(*pool.Worker) { ch <- 1 }) // queued behind the blocked one: only a hand-over runs it
				got := <-done
				s := p.Stats()
				p.Close()
				if got != f.want || s.HandOvers == 0 || s.Spares != 0 {
					t.Fatalf("returned %d (want %d); %d hand-overs (want some), %d tasks still handed over", got, f.want, s.HandOvers, s.Spares)
				}
			}
		})
	}
}

// Private forks of a blocked holder run where thieves cannot take them
// (no private steals: wsdeque.md, D8): the hand-over gives the worker,
// private forks and all, to another goroutine, which runs them as the
// deque's owner (stall.md, Y4). The one-worker Join whose first half
// waits, without a section, on a channel its own fork fills: issue 46
// found it hanging with private steals off.
func TestNetPrivateForkRuns(t *testing.T) {
	if !sched.StallLookExact() {
		t.Skip("no look on this platform (stall.md, Limits)")
	}
	fjtest.Deadline(t, time.Minute)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, private := range []bool{true, false} {
		if private && !wsdeque.PrivateSteals() {
			continue
		}
		was := wsdeque.SetPrivateSteals(private)
		var r reports
		p := pool.New(pool.WithWorkers(1), pool.WithStallThreshold(stallThreshold), pool.WithStallHandler(r.handler))
		n := forkjoin.Invoke(p, func(w *pool.Worker) int {
			ch := make(chan int)
			a, b := forkjoin.Join(w, func(*pool.Worker) int { return stallReceive(ch) }, func(*pool.Worker) int { ch <- 2; return 1 })
			return a + b
		})
		s := p.Stats()
		p.Close()
		wsdeque.SetPrivateSteals(was)
		if n != 3 || s.HandOvers == 0 || len(r.get()) != 1 {
			t.Errorf("private steals %v: returned %d (want 3), %d hand-overs, %d reports", private, n, s.HandOvers, len(r.get()))
		}
	}
}
