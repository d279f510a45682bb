package sched_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
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

//fjvet:file-ignore blocking,lock-across-join the tests of hand-overs hold a lock across a join and block without sections on purpose

// The hand-over's shapes beyond the plain one (TestStallMutexAcrossJoin):
// the displaced task uses its worker once its wait ends (a fork and a
// join, a blocking section, a nested pool call), panics, or exits with
// runtime.Goexit; each gets its worker back (stall.md, Y5) and ends as it would
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
		{"forked before it blocked", nil, nil},
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
				fjtest.Deadline(t, 60*time.Second)
				defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
				var reps reports
				p := stallPool(workers, &reps)
				var mu sync.Mutex
				stolen, started := make(chan struct{}), make(chan struct{})
				var r any
				n := func() (n int) {
					defer func() { r = recover() }()
					return forkjoin.Invoke(p, func(w *pool.Worker) int {
						mu.Lock()
						other := forkjoin.Fork(w, func(*pool.Worker) int {
							close(stolen)
							<-started // waits, without a section, for the younger fork to start: handed over if it holds the worker (stall.md, Y4)
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
				if st.HandOvers == 0 {
					t.Errorf("no hand-over")
				}
			})
		}
	}
}

// The younger private fork of issue 31 where thieves cannot take private
// tasks (no heavy barrier: wsdeque.md, "Where there is no heavy
// barrier"): the task waits, without a section, on a channel that its own
// private fork fills; no thief can reach that fork, so the monitor hands
// the worker over the blocked task's head to a carrier that runs its
// deque (stall.md, Y2-Y4), on one worker and on two, in every build.
func TestHandOverPrivateForkWithoutPrivateSteals(t *testing.T) {
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

// TestHandOverWakeAtOnce: the displaced holder's wait ends just as the
// monitor hands its worker over, before the task handed the worker has
// registered as its holder (the holder word still -g, stall.md Y2). The displaced
// goroutine then reclaims (Y5) under hmu; its table entry must go without
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
		go func() {
			// Wake the blocked holder as soon as the hand-over is
			// counted (Y4), before the monitor lets go of hmu. Without
			// a hand-over, the test hangs (this shape has one).
			for p.Stats().HandOvers == 0 {
				runtime.Gosched()
			}
			close(ch)
		}()
		n := forkjoin.Invoke(p, func(w *pool.Worker) int {
			other := forkjoin.Fork(w, func(*pool.Worker) int {
				close(stolen)
				<-started // waits, without a section, for the younger fork to start: handed over if it holds the worker (stall.md, Y4)
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
// worker back (stall.md, Y5) is a parked task made resumable, and only a hand-over
// gives it the worker while the worker's holder is blocked: it must arm
// the stall watch as a resume does (W2), or a watch that had gone idle
// meanwhile never looks again. Here the task handed the worker waits,
// without a section, for the displaced one.
func TestHandOverBackArmsTheWatch(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var reps reports
	p := stallPool(1, &reps)
	sp := sched.From[sched.Pool](p)
	var mu sync.Mutex
	locked := 0 // under mu
	stolen, started, back := make(chan struct{}), make(chan struct{}), make(chan struct{})
	n := forkjoin.Invoke(p, func(w *pool.Worker) int {
		mu.Lock()
		other := forkjoin.Fork(w, func(*pool.Worker) int {
			close(stolen)
			<-started // waits, without a section, for the younger fork to start: handed over if it holds the worker (stall.md, Y4)
			return 1
		})
		younger := forkjoin.Fork(w, func(w *pool.Worker) int {
			close(started)
			mu.Lock() // no section: blocks the worker's holder; handed over
			locked++
			mu.Unlock()
			a, b := forkjoin.Join(w, func(*pool.Worker) int { return 1 }, func(*pool.Worker) int { return 0 }) // Y5
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
	if st.HandOvers < 2 {
		t.Errorf("%d hand-overs, want at least 2", st.HandOvers)
	}
}

// The report beside many goroutines made before the pool (a server's
// connections): the pool's carriers come last in a goroutine dump, past
// the first 64 KiB. The report's one dump is sized for the goroutines
// alive (stall.md, W5), and has the blocked holder's frames: the fix it
// prints names the program's frame.
func TestStallReportBesideManyGoroutines(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	parked := fjtest.Stress(30000, 100000, 10000)
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
	if n != 2 || st.HandOvers == 0 {
		t.Errorf("the task returned %d; %d hand-overs (want 2, at least 1)", n, st.HandOvers)
	}
	rs := r.get()
	if len(rs) != 1 || len(rs[0].Tasks) == 0 {
		t.Fatalf("%d reports, want 1 with a task", len(rs))
	}
	if task := rs[0].Tasks[0]; task.Stack == "" || !strings.Contains(rs[0].String(), "Fix: wrap the blocking call in github.com/forkjoin/fj/internal/sched_test.") {
		t.Errorf("beside %d goroutines, the report has no stack for the blocked task (%s), or its fix names no frame of the program's:\n%s",
			parked, task.NoStack, rs[0].String())
	}
}

// A holder that wakes while the monitor decides (stall.md, Y2-Y3: its
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
