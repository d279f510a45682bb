package sched_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gid "github.com/petermattis/goid"
	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/wsdeque"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// blockedStack runs shape on a pool with the stall watch off; shape calls
// block (with its worker) where a task of the program blocks; the test
// takes that goroutine's stack from a dump while it blocks, then lets it
// go.
func blockedStack(t *testing.T, shape func(p *pool.Pool, block func())) string {
	t.Helper()
	p := pool.New(pool.WithWorkers(2), pool.WithStallThreshold(0))
	defer p.Close()
	id := make(chan int64, 1)
	release := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		shape(p, func() {
			id <- gid.Get()
			<-release
		})
	}()
	g := <-id
	var stack string
	for deadline := time.Now().Add(10 * time.Second); stack == "" && time.Now().Before(deadline); {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		for _, s := range strings.Split(string(buf), "\n\n") {
			if strings.HasPrefix(s, fmt.Sprintf("goroutine %d [chan receive", g)) {
				stack = s + "\n"
			}
		}
		if stack == "" {
			runtime.Gosched() // not parked yet
		}
	}
	close(release)
	<-done
	if stack == "" {
		t.Fatalf("goroutine %d never seen blocked", g)
	}
	return stack
}

// TestHandOverFrames checks H2's test of a blocked holder's stack on the
// stacks of real tasks: a hand-over is allowed where only a carrier's
// main loop and a task's wrappers are below the program's code, and
// refused wherever a frame of fj's would touch the worker again, after
// the program's code returns, without a check (stall.md, H2).
func TestHandOverFrames(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, c := range []struct {
		name  string
		ok    bool
		shape func(p *pool.Pool, block func())
	}{
		{"Invoke from outside", true, func(p *pool.Pool, block func()) {
			forkjoin.Invoke(p, func(*pool.Worker) int { block(); return 0 })
		}},
		{"Pool.Run from outside", true, func(p *pool.Pool, block func()) {
			p.Run(func(*pool.Worker) { block() })
		}},
		{"a Fork run by the main loop", true, func(p *pool.Pool, block func()) {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				f := forkjoin.Fork(w, func(*pool.Worker) int { block(); return 0 })
				pool.Blocking(func() { time.Sleep(time.Millisecond) }) // the fork runs on another carrier meanwhile
				return f.Join(w)
			})
		}},
		{"a Spawn run by the main loop", true, func(p *pool.Pool, block func()) {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				s := forkjoin.Spawn(w, func(*pool.Worker) int { block(); return 0 })
				pool.Blocking(func() { time.Sleep(time.Millisecond) })
				return s.Join(w)
			})
		}},
		{"a b.Go task run by the main loop", false, func(p *pool.Pool, block func()) {
			_ = taskblock.DefineErr(p, func(b *taskblock.Block) error {
				b.Go(func(*pool.Worker) error { block(); return nil })
				pool.Blocking(func() { time.Sleep(time.Millisecond) })
				return nil
			})
		}},
		{"the first half of a Join", false, func(p *pool.Pool, block func()) {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				a, b := forkjoin.Join(w, func(*pool.Worker) int { block(); return 1 }, func(*pool.Worker) int { return 1 })
				return a + b
			})
		}},
		{"a parallel.For body", false, func(p *pool.Pool, block func()) {
			var once sync.Once
			parallel.For(p, 0, 1, func(*pool.Worker, int) { once.Do(block) })
		}},
		{"a task block's body", false, func(p *pool.Pool, block func()) {
			taskblock.Define(p, func(*taskblock.Block) { block() })
		}},
		{"a Region", false, func(p *pool.Pool, block func()) {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				pool.Region(w, "r", func(*pool.Worker) { block() })
				return 0
			})
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := blockedStack(t, c.shape)
			if got := sched.HandOverFrames(st); got != c.ok {
				t.Errorf("HandOverFrames = %v, want %v, for\n%s", got, c.ok, st)
			}
		})
	}
	// fj's own waits: no frame of the program at all.
	for _, st := range []string{
		"goroutine 9 [chan receive]:\nruntime.gopark(0x0)\n\t/go/src/runtime/proc.go:1\nruntime.chanrecv1(0x0)\n\t/go/src/runtime/chan.go:1\n" +
			"github.com/forkjoin/fj/internal/sched.(*Worker).spareStep(0x0)\n\t/fj/internal/sched/spares.go:1\n" +
			"github.com/forkjoin/fj/internal/sched.(*carrier).run(0x0)\n\t/fj/internal/sched/carrier.go:1\n",
		"goroutine 9 [sync.Mutex.Lock]:\nsync.(*Mutex).Lock(0x0)\n\t/go/src/sync/mutex.go:1\n" +
			"github.com/forkjoin/fj/internal/sched.(*Worker).resume(0x0)\n\t/fj/internal/sched/carrier.go:1\n",
		"goroutine 9 [chan receive]:\n",
	} {
		if sched.HandOverFrames(st) {
			t.Errorf("HandOverFrames = true for\n%s", st)
		}
	}
}

// The hand-over's shapes beyond the plain one (TestStallMutexAcrossJoin):
// the displaced task uses its worker once its wait ends (a fork and a
// join, a blocking section, a nested pool call), panics, or exits with
// runtime.Goexit; each gets its worker back (H4) and ends as it would
// without the hand-over, on one worker and on two, plain and under -race.
func TestHandOverThenUseTheWorker(t *testing.T) {
	errBoom := errors.New("boom")
	for _, c := range []struct {
		name  string
		after func(w *pool.Worker) int // what the younger fork does once it has the lock
		check func(t *testing.T, n int, r any)
	}{
		{"fork and join", func(w *pool.Worker) int {
			a, b := forkjoin.Join(w, func(*pool.Worker) int { return 1 }, func(*pool.Worker) int { return 0 })
			return a + b
		}, nil},
		{"forked before it blocked", nil, nil}, // not under the race detector: H5
		{"section", func(w *pool.Worker) int {
			pool.Blocking(func() {})
			return 1
		}, nil},
		{"nested call", func(w *pool.Worker) int {
			return parallel.Sum(w, []int{0, 1, 2, 3}) - 5
		}, nil},
		{"panic", func(w *pool.Worker) int { panic(errBoom) }, func(t *testing.T, n int, r any) {
			if err, ok := r.(error); !ok || !errors.Is(err, errBoom) {
				t.Errorf("recovered %v, want the fork's panic", r)
			}
		}},
		{"Goexit", func(w *pool.Worker) int { runtime.Goexit(); return 0 }, func(t *testing.T, n int, r any) {
			if r == nil {
				t.Errorf("no panic from the join of a fork that called Goexit")
			}
		}},
	} {
		for _, workers := range []int{1, 2} {
			t.Run(fmt.Sprint(c.name, "/", workers), func(t *testing.T) {
				if c.after == nil && fjtest.RaceEnabled {
					t.Skip("the race detector: a task that called fj before it blocked is not handed over (stall.md, H5)")
				}
				fjtest.Deadline(t, 60*time.Second)
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				var reps reports
				p := stallPool(workers, &reps)
				var mu sync.Mutex
				stolen, started := make(chan struct{}), make(chan struct{})
				var released atomic.Bool
				go func() { <-started; released.Store(true) }()
				var r any
				n := func() (n int) {
					defer func() { r = recover() }()
					return forkjoin.Invoke(p, func(w *pool.Worker) int {
						mu.Lock()
						other := forkjoin.Fork(w, func(*pool.Worker) int {
							close(stolen)
							for !released.Load() {
								runtime.Gosched()
							}
							return 1
						})
						younger := forkjoin.Fork(w, func(w *pool.Worker) int {
							var early *forkjoin.Future[int]
							if c.after == nil {
								early = forkjoin.Fork(w, func(*pool.Worker) int { return 1 })
							}
							close(started)
							mu.Lock() // no section: blocks the worker's holder
							shared := c.name
							mu.Unlock()
							_ = shared
							if c.after == nil {
								return early.Join(w)
							}
							return c.after(w)
						})
						stallReceive2(stolen)
						v := other.Join(w)
						mu.Unlock()
						return v + younger.Join(w)
					})
				}()
				st := p.Stats()
				// The pool still works, on every worker.
				xs := make([]int, 1000)
				for i := range xs {
					xs[i] = i
				}
				if got := parallel.Sum(p, xs); got != 999*1000/2 {
					t.Errorf("a loop after the hand-over returned %d", got)
				}
				p.Close()
				if c.check != nil {
					c.check(t, n, r)
				} else if r != nil || n != 2 {
					t.Errorf("returned %d, panicked with %v; want 2", n, r)
				}
				if st.HandOvers != 1 {
					t.Errorf("%d hand-overs, want 1", st.HandOvers)
				}
			})
		}
	}
}

// The younger private fork of issue 31 where thieves cannot take private
// tasks (no heavy barrier: wsdeque.md, "Where there is no heavy
// barrier"): the task waits, without a section, on a channel that its own
// private fork fills; no spare can reach that fork, so the monitor hands
// the worker over the blocked task's head to a carrier that runs its
// deque (stall.md, H1-H3), on one worker and on two.
func TestHandOverPrivateForkWithoutPrivateSteals(t *testing.T) {
	if fjtest.RaceEnabled {
		t.Skip("the race detector: a task that forked before it blocked is not handed over (stall.md, H5)")
	}
	was := wsdeque.SetPrivateSteals(false)
	defer wsdeque.SetPrivateSteals(was)
	for _, workers := range []int{1, 2} {
		t.Run(fmt.Sprint(workers, "workers"), func(t *testing.T) {
			fjtest.Deadline(t, 60*time.Second)
			defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
			var r reports
			p := stallPool(workers, &r)
			n := forkjoin.Invoke(p, func(w *pool.Worker) int {
				var x *forkjoin.Future[int]
				if workers > 1 {
					stolen := make(chan struct{})
					x = forkjoin.Fork(w, func(*pool.Worker) int { close(stolen); return 1 })
					<-stolen // taken by the other worker, which then idles
				}
				a := forkjoin.Fork(w, func(*pool.Worker) int { return 1 })
				ch := make(chan int, 1)
				b := forkjoin.Fork(w, func(*pool.Worker) int { ch <- 1; return 1 })
				v := stallReceive(ch) + b.Join(w) + a.Join(w)
				if x != nil {
					v += x.Join(w)
				}
				return v
			})
			st := p.Stats()
			p.Close()
			// On two workers the other one, idle, usually has a and b
			// published and takes them (E1); on one, only the hand-over
			// runs b.
			if n != 2+workers || workers == 1 && (st.HandOvers == 0 || len(r.get()) != 1) {
				t.Errorf("the task returned %d (want %d); %d hand-overs, %d reports", n, 2+workers, st.HandOvers, len(r.get()))
			}
		})
	}
}

// H2's pacing: a loop whose bodies block without a section, inside the
// loop's frames (which no hand-over may cross), while parked tasks of
// their workers are ready (the loop's own joins), would have the monitor
// dump the goroutines at every block; paced, it dumps about once per
// threshold at most (tryHandOver), plus the report's one.
func TestHandOverAttemptsArePaced(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const threshold = 200 * time.Millisecond
	var r reports
	p := stallPool(2, &r, pool.WithStallThreshold(threshold))
	opt, _ := parallel.WithContext(context.Background())
	start := time.Now()
	err := parallel.ForErr(p, 0, 1000, func(w *pool.Worker, i int) error {
		time.Sleep(time.Duration(1+i%4) * time.Millisecond) // no section
		return nil
	}, opt)
	took := time.Since(start)
	_, _, _, dumps := sched.StallWatch(sched.From[sched.Pool](p))
	p.Close()
	// The report's dump; the backoff's doublings from 1 ms up to the
	// threshold (8); then one per threshold.
	if bound := 1 + 9 + int64(took/threshold); err != nil || dumps > bound {
		t.Errorf("ForErr returned %v; %d dumps in %v, want at most %d", err, dumps, took, bound)
	}
}

// TestHandOverWakeAtOnce: the displaced holder's wait ends just as the
// monitor hands its worker over, before the task handed the worker has
// registered as its holder (the holder word still -g, H1). The displaced
// goroutine then reclaims (H4) under hmu; its table entry must go without
// waiting for hmu a second time (identity.go, unregister), or the worker
// deadlocks: the displaced goroutine on itself, the new holder on hmu.
func TestHandOverWakeAtOnce(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	handOvers := 0
	for range fjtest.Stress(60, 400, 20) {
		var reps reports
		p := stallPool(1, &reps)
		stolen, started := make(chan struct{}), make(chan struct{})
		ch := make(chan struct{})
		var released atomic.Bool
		go func() { <-started; released.Store(true) }()
		go func() {
			// Wake the blocked holder as soon as the hand-over is
			// counted (H3), before the monitor lets go of hmu. Without
			// a hand-over, the test hangs (this shape has one).
			for p.Stats().HandOvers == 0 {
				runtime.Gosched()
			}
			close(ch)
		}()
		n := forkjoin.Invoke(p, func(w *pool.Worker) int {
			other := forkjoin.Fork(w, func(*pool.Worker) int {
				close(stolen)
				for !released.Load() {
					runtime.Gosched()
				}
				return 1
			})
			younger := forkjoin.Fork(w, func(w *pool.Worker) int {
				close(started)
				stallReceive2(ch) // no section: blocks the worker's holder
				a, b := forkjoin.Join(w, func(*pool.Worker) int { return 1 }, func(*pool.Worker) int { return 0 })
				return a + b
			})
			stallReceive2(stolen)
			return other.Join(w) + younger.Join(w)
		})
		st := p.Stats()
		p.Close()
		if n != 2 {
			t.Fatalf("returned %d, want 2", n)
		}
		handOvers += int(st.HandOvers)
	}
	if handOvers == 0 {
		t.Errorf("no hand-over in any run")
	}
}

// TestHandOverBackArmsTheWatch: a displaced holder that asks for its
// worker back (H4) is a parked task made resumable, and only a hand-over
// gives it the worker while the worker's holder is blocked: it must arm
// the stall watch as a resume does (W2), or a watch that had gone idle
// meanwhile never looks again. Here the task handed the worker waits,
// without a section, for the displaced one.
func TestHandOverBackArmsTheWatch(t *testing.T) {
	if fjtest.RaceEnabled {
		t.Skip("the race detector: the task handed the worker called fj before it blocks, so it is not handed over in turn (stall.md, H5)")
	}
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var reps reports
	p := stallPool(1, &reps)
	sp := sched.From[sched.Pool](p)
	var mu sync.Mutex
	locked := 0 // under mu
	stolen, started, back := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var released atomic.Bool
	go func() { <-started; released.Store(true) }()
	n := forkjoin.Invoke(p, func(w *pool.Worker) int {
		mu.Lock()
		other := forkjoin.Fork(w, func(*pool.Worker) int {
			close(stolen)
			for !released.Load() {
				runtime.Gosched()
			}
			return 1
		})
		younger := forkjoin.Fork(w, func(w *pool.Worker) int {
			close(started)
			mu.Lock() // no section: blocks the worker's holder; handed over
			locked++
			mu.Unlock()
			a, b := forkjoin.Join(w, func(*pool.Worker) int { return 1 }, func(*pool.Worker) int { return 0 }) // H4
			close(back)
			return a + b
		})
		stallReceive2(stolen)
		v := other.Join(w) // parks; resumes by the hand-over
		// Running (not blocked) until the watch has nothing left to
		// look at and goes idle (W3).
		for {
			if armed, _, _, _ := sched.StallWatch(sp); !armed {
				break
			}
			runtime.Gosched()
		}
		mu.Unlock()
		stallReceive2(back) // no section: only a second hand-over ends it
		return v + younger.Join(w)
	})
	st := p.Stats()
	p.Close()
	if n != 2 {
		t.Errorf("returned %d, want 2", n)
	}
	if st.HandOvers != 2 {
		t.Errorf("%d hand-overs, want 2", st.HandOvers)
	}
}

// deep recurses n frames deep, then calls f.
//
//go:noinline
func deep(n int, f func()) {
	if n == 0 {
		f()
		return
	}
	deep(n-1, f)
}

// TestHandOverFramesDeepStack: a stack of more than 100 frames is printed
// with its middle elided ("...N frames elided..."): a frame of fj's that
// touches the worker unchecked (a Join's, whose first half is still
// running) may be among them, below a Worker.Run deep inside the half.
// H2 must refuse what it cannot see, whatever the depths.
func TestHandOverFramesDeepStack(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for r := 36; r <= 50; r++ {
		st := blockedStack(t, func(p *pool.Pool, block func()) {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				a, b := forkjoin.Join(w, func(w *pool.Worker) int {
					deep(80, func() {
						w.Run(func(*pool.Worker) { deep(r, block) })
					})
					return 1
				}, func(*pool.Worker) int { return 1 })
				return a + b
			})
		})
		if sched.HandOverFrames(st) {
			t.Errorf("HandOverFrames = true at depth %d, with a Join below, for\n%s", r, st)
			return
		}
	}
}

// The mutex across a join beside many parked goroutines (a server's
// connections): the carriers are made after them, so their stacks come
// last in a goroutine dump, past the report's 64 KiB. The hand-over's
// dump grows until it holds the blocked holder (stall.md, H2); a dump of
// fixed size missed it, and the pool hung (.ci/run found it).
func TestHandOverBesideManyGoroutines(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const parked = 10000
	stop := make(chan struct{})
	var started sync.WaitGroup
	started.Add(parked)
	for range parked {
		go func() { started.Done(); <-stop }()
	}
	started.Wait()
	defer close(stop)
	var r reports
	p := stallPool(1, &r)
	n, st := mutexAcrossJoin(p)
	p.Close()
	if n != 2 || st.HandOvers != 1 {
		t.Errorf("the task returned %d; %d hand-overs (want 2, 1)", n, st.HandOvers)
	}
}

// A holder that wakes while the monitor looks at its stack (H1-H2: its
// holder word reads -g until the monitor decides) and then checks its
// worker waits for the decision, as every identity check does: a task
// block's body calling Wait then was taken for a body inside a blocking
// section and panicked, and its block's tasks were lost
// (TestCarrierStressPrograms, workers=2 capacity=1, about 1 run in 10 of
// the long stress runs).
func TestHandOverLookDoesNotFailBlockWait(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var ran atomic.Int32
	taskblock.Define(p, func(b *taskblock.Block) {
		b.Run(func(*pool.Worker) { ran.Add(1) })
		sched.MarkHandOver(sched.From[sched.Worker](b.Worker()), 20*time.Millisecond)
		b.Wait() // must wait for the monitor's decision, then take its task back
		if ran.Load() != 1 {
			t.Errorf("the block's task ran %d times before Wait returned, want 1", ran.Load())
		}
	})
}
