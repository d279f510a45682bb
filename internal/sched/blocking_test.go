package sched_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// section runs a blocking section from the task that holds w, on p, and
// checks what B1-B5 (blocking.go) promise: inside f the goroutine is the
// task's own but holds no worker (so a nested section just calls f, and
// a call on p behaves as from outside), the worker runs other work
// meanwhile (here, work that f submits and waits for: on one worker,
// without the hand-off, it could never run), and afterwards the task has
// its worker back. It returns what it found wrong, or "".
func section(p *pool.Pool, w *pool.Worker) string {
	sw := schedtest.W(w)
	g := sched.Goid()
	var problem string
	pool.Blocking(func() {
		switch {
		case sched.Goid() != g:
			problem = "f ran on another goroutine than the task"
		case sched.Current() != nil:
			problem = "inside the section the goroutine still holds a worker"
		case sched.Held(sw):
			problem = "inside the section the task's worker is still held by its goroutine"
		}
		// Nested: no worker to give up, so f is just called.
		pool.Blocking(func() {
			if sched.Goid() != g && problem == "" {
				problem = "a nested section ran f on another goroutine"
			}
		})
		// A call on the pool from here is a call from outside: it
		// queues its function and waits until some worker (this
		// task's own, on one worker) has run it.
		ran := false
		p.Run(func(*pool.Worker) { ran = true })
		if !ran && problem == "" {
			problem = "p.Run inside the section returned without running its function"
		}
	})
	if problem == "" && (!sched.Held(sw) || sched.Current() != sw) {
		problem = "after the section the task does not hold its worker"
	}
	return problem
}

// A section works from every kind of task: one run from outside, both
// halves of a Join, a forked future, tasks of a task block, loop bodies,
// and inside another section. On one worker every case depends on the
// hand-off: the work that f submits can only run on the worker the task
// gave up.
func TestBlockingFromEveryKindOfTask(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		check := func(kind string, problem string) {
			t.Helper()
			if problem != "" {
				t.Errorf("%d workers, %s: %s", workers, kind, problem)
			}
		}
		var problems [8]atomic.Pointer[string]
		note := func(i int, s string) {
			if s != "" {
				problems[i].Store(&s)
			}
		}
		p.Run(func(w *pool.Worker) { note(0, section(p, w)) })
		p.Run(func(w *pool.Worker) {
			forkjoin.Join(w,
				func(w *pool.Worker) int { note(1, section(p, w)); return 0 },
				func(w *pool.Worker) int { note(2, section(p, w)); return 0 })
		})
		p.Run(func(w *pool.Worker) {
			f := forkjoin.Fork(w, func(w *pool.Worker) int { note(3, section(p, w)); return 1 })
			note(3, section(p, w)) // the forker too, with its fork queued behind it
			f.Join(w)
		})
		taskblock.Define(p, func(b *taskblock.Block) {
			for range 4 {
				b.Run(func(w *pool.Worker) { note(4, section(p, w)) })
			}
			note(4, section(p, b.Worker()))
		})
		parallel.For(p, 0, 16, func(w *pool.Worker, i int) { note(5, section(p, w)) })
		p.Run(func(w *pool.Worker) {
			// A section inside a task that runs inside a section's f:
			// p.Run there is a call from outside, so its task is a
			// task of its own, with its own sections.
			pool.Blocking(func() {
				p.Run(func(w *pool.Worker) { note(6, section(p, w)) })
			})
		})
		p.Run(func(w *pool.Worker) {
			pool.Region(w, "r", func(w *pool.Worker) { note(7, section(p, w)) })
		})
		for i, kind := range []string{"task run from outside", "Join's first half", "Join's second half",
			"forked future and its forker", "task block", "loop body", "nested in a section", "region"} {
			if s := problems[i].Load(); s != nil {
				check(kind, *s)
			}
		}
		p.Close()
	}
}

// Outside every task a section is a plain call, on the caller's goroutine.
func TestBlockingOutsideATask(t *testing.T) {
	g := sched.Goid()
	ran := false
	pool.Blocking(func() { ran = sched.Goid() == g })
	if !ran {
		t.Error("Blocking outside a task did not call f on the calling goroutine")
	}
	if r := fjtest.Catch(func() { pool.Blocking(func() { panic("outside") }) }); r != "outside" {
		t.Errorf("a panic in f outside a task came back as %#v, want the value itself", r)
	}
	if r := fjtest.Catch(func() { pool.Blocking(nil) }); !strings.Contains(fjtest.PanicMessage(r), "nil function") {
		t.Errorf("Blocking(nil) panicked with %#v, want a message naming the nil function", r)
	}
}

// The producer and consumer of issue 15, forked on one worker: the
// consumer is a private fork of the producer's task, and without sections
// the producer's send holds the only worker forever. With each channel
// operation in a section, the worker runs the consumer meanwhile.
func TestBlockingProducerConsumer(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	const n = 1000
	ch := make(chan int)
	sum := 0
	parallel.Do(p,
		func(*pool.Worker) {
			for i := 1; i <= n; i++ {
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
	if sum != n*(n+1)/2 {
		t.Errorf("consumer summed %d, want %d", sum, n*(n+1)/2)
	}
}

// A panic in f reaches the task unchanged (the value, not a wrapper),
// after the task has its worker back: a task that recovers it goes on
// using its worker; one that does not reports it to its joiner as any
// panic, with the stack where it happened.
func TestBlockingPanic(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	type boom struct{ n int }
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		var got any
		held := false
		sum := 0
		p.Run(func(w *pool.Worker) {
			func() {
				defer func() { got = recover() }()
				pool.Blocking(func() { panic(boom{7}) })
			}()
			held = sched.Held(schedtest.W(w))
			a, b := forkjoin.Join(w, // the worker works after the panic
				func(*pool.Worker) int { return 1 },
				func(*pool.Worker) int { return 2 })
			sum = a + b
		})
		if got != (boom{7}) || !held || sum != 3 {
			t.Errorf("%d workers: recovered %#v in the task (want boom{7}), held %v, sum %d", workers, got, held, sum)
		}

		r := fjtest.Catch(func() {
			p.Run(func(w *pool.Worker) {
				forkjoin.Join(w,
					func(*pool.Worker) int { pool.Blocking(func() { panicInSection() }); return 0 },
					func(*pool.Worker) int { return 0 })
			})
		})
		var pe *pool.PanicError
		if err, ok := r.(error); !ok || !errors.As(err, &pe) {
			t.Fatalf("%d workers: the joiner got %#v, want a *pool.PanicError", workers, r)
		}
		if pe.Value != "in a section" || !strings.Contains(string(pe.Stack), "panicInSection") {
			t.Errorf("%d workers: PanicError value %#v, stack without panicInSection:\n%s", workers, pe.Value, pe.Stack)
		}
		p.Close()
	}
}

func panicInSection() { panic("in a section") }

// A runtime.Goexit in f goes on unwinding after the task has its worker
// back: the task is reported as having called Goexit, and the worker
// carries on (in a fresh goroutine, as after any Goexit in a task).
func TestBlockingGoexit(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		for range 3 {
			after := false
			r := fjtest.Catch(func() {
				p.Run(func(*pool.Worker) {
					pool.Blocking(runtime.Goexit)
					after = true
				})
			})
			pe, ok := r.(*pool.PanicError)
			if !ok || !errors.Is(pe, pool.ErrGoexit) || after {
				t.Errorf("%d workers: Goexit in a section: the joiner got %#v (after: %v), want ErrGoexit", workers, r, after)
			}
			if n := forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 12) }); n != 144 {
				t.Errorf("%d workers: fib(12) after a Goexit = %d", workers, n)
			}
		}
		p.Close()
	}
}

// Close waits for tasks blocked in sections: it returns once they have
// finished, and meanwhile a call on the pool from inside a section's f,
// which is a call from outside, panics as on any closed pool.
func TestBlockingClose(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	const tasks = 8
	p := pool.New(pool.WithWorkers(2))
	entered := make(chan struct{}, tasks)
	gate := make(chan struct{})
	var closedPanics, finished atomic.Int32
	submitted := make(chan struct{})
	go func() {
		defer close(submitted)
		taskblock.Define(p, func(b *taskblock.Block) {
			for range tasks {
				b.Run(func(*pool.Worker) {
					pool.Blocking(func() {
						entered <- struct{}{}
						<-gate
						if r := fjtest.Catch(func() { p.Run(func(*pool.Worker) {}) }); fjtest.PanicMessage(r) == sched.ClosedMessage {
							closedPanics.Add(1)
						}
					})
					finished.Add(1)
				})
			}
		})
	}()
	for range tasks {
		<-entered
	}
	if s := p.Stats(); s.Blocking != tasks {
		t.Errorf("Stats.Blocking = %d with %d tasks in sections", s.Blocking, tasks)
	}
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	for !p.Closed() {
		runtime.Gosched()
	}
	close(gate)
	<-closed
	<-submitted
	if finished.Load() != tasks || closedPanics.Load() != tasks {
		t.Errorf("after Close: %d of %d tasks finished, %d saw the closed pool's panic", finished.Load(), tasks, closedPanics.Load())
	}
	if s := p.Stats(); s.Blocking != 0 || s.MostBlocking != tasks {
		t.Errorf("after Close: Stats.Blocking = %d, MostBlocking = %d, want 0, %d", s.Blocking, s.MostBlocking, tasks)
	}
}

// Without a cap (the default) 10,000 sections are all in f at once, as
// 10,000 goroutines of errgroup would be; with a cap (WithMaxBlocking,
// errgroup's SetLimit) exactly the cap's worth get in while the gate is
// closed, and the others wait for a slot without holding a worker: the
// pool goes on running other work meanwhile (a fib submitted from outside
// completes; with the workers held by waiting sections it never would).
func TestBlockingCap(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, c := range []struct {
		workers, cap, tasks int
	}{
		{2, 0, small(10_000, 1_000)},
		{1, 3, 1_000},
		{2, 1, 100},
	} {
		opts := []pool.Option{pool.WithWorkers(c.workers)}
		want := c.tasks
		if c.cap != 0 {
			opts = append(opts, pool.WithMaxBlocking(c.cap))
			want = c.cap
		}
		p := pool.New(opts...)
		var inside, most, done atomic.Int64
		entered := make(chan struct{}, c.tasks)
		gate := make(chan struct{})
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			taskblock.Define(p, func(b *taskblock.Block) {
				for range c.tasks {
					b.Run(func(*pool.Worker) {
						pool.Blocking(func() {
							n := inside.Add(1)
							for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
							}
							entered <- struct{}{}
							<-gate
							inside.Add(-1)
						})
						done.Add(1)
					})
				}
			})
		}()
		for range want {
			<-entered
		}
		if s := p.Stats(); s.Blocking != uint64(want) {
			t.Errorf("%+v: Stats.Blocking = %d with the cap's %d sections in", c, s.Blocking, want)
		}
		if n := forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 15) }); n != 610 {
			t.Errorf("%+v: fib(15) while sections wait = %d", c, n)
		}
		close(gate)
		<-finished
		s := p.Stats()
		if most.Load() != int64(want) || s.MostBlocking != uint64(want) || done.Load() != int64(c.tasks) || s.Blocking != 0 {
			t.Errorf("%+v: most inside at once %d, Stats.MostBlocking %d (want the cap, %d); %d of %d tasks done; Blocking %d",
				c, most.Load(), s.MostBlocking, want, done.Load(), c.tasks, s.Blocking)
		}
		p.Close()
	}
}

// Sections are not parks: Stats counts them apart.
func TestBlockingStats(t *testing.T) {
	p := pool.New(pool.WithWorkers(1), pool.WithMaxBlocking(5))
	p.Run(func(*pool.Worker) {
		for range 10 {
			pool.Blocking(func() {})
		}
	})
	p.Close()
	s := p.Stats()
	if s.Total.Parks != 0 || s.Total.Parked != 0 || s.Blocking != 0 || s.MostBlocking != 1 {
		t.Errorf("after 10 sections one at a time: Parks %d, Parked %d, Blocking %d, MostBlocking %d; want 0, 0, 0, 1",
			s.Total.Parks, s.Total.Parked, s.Blocking, s.MostBlocking)
	}
	if !strings.Contains(s.String(), "in blocking sections: 0 now, 1 at most") {
		t.Errorf("Stats.String() lacks the sections line:\n%s", s)
	}
	later := s
	later.Blocking, later.MostBlocking = 2, 3
	if d := later.Sub(s); d.Blocking != 2 || d.MostBlocking != 3 {
		t.Errorf("Sub: Blocking %d, MostBlocking %d; want the later snapshot's 2, 3", d.Blocking, d.MostBlocking)
	}
	for _, n := range []int{0, -1} {
		if r := fjtest.Catch(func() { pool.WithMaxBlocking(n) }); !strings.Contains(fjtest.PanicMessage(r), fmt.Sprintf("WithMaxBlocking(%d)", n)) {
			t.Errorf("WithMaxBlocking(%d) panicked with %#v", n, r)
		}
	}
	if r := fjtest.Catch(func() { pool.New(func(c *pool.Config) { c.MaxBlocking = -1 }) }); !strings.Contains(fjtest.PanicMessage(r), "blocking sections") {
		t.Errorf("a Config with MaxBlocking -1 panicked with %#v", r)
	}
}

// Inside f the goroutine holds no worker: every call that needs the
// task's worker (the *Worker given to an entry point, a fork or join with
// it, Block.Run and Block.Wait of the body's block, Close of the pool)
// panics with the message that names the section (identity.md, I6),
// instead of touching a deque another carrier owns or waiting for
// itself; the task gets its worker back afterwards and goes on. In every
// build: the section's hand-off clears the holder, and the messages look
// the goroutine up in the worker's list of sections.
func TestBlockingSectionMisuse(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		other := pool.New(pool.WithWorkers(1))
		pw := parallel.NewPerWorker(p, func() int { return 0 })
		calls := []struct {
			name string
			call func(w *pool.Worker, b *taskblock.Block)
		}{
			{"parallel.For", func(w *pool.Worker, _ *taskblock.Block) { parallel.For(w, 0, 2, func(*pool.Worker, int) {}) }},
			{"forkjoin.Invoke", func(w *pool.Worker, _ *taskblock.Block) { forkjoin.Invoke(w, func(*pool.Worker) int { return 0 }) }},
			{"forkjoin.Join", func(w *pool.Worker, _ *taskblock.Block) {
				forkjoin.Join(w, func(*pool.Worker) int { return 0 }, func(*pool.Worker) int { return 0 })
			}},
			{"forkjoin.Fork", func(w *pool.Worker, _ *taskblock.Block) { forkjoin.Fork(w, func(*pool.Worker) int { return 0 }) }},
			//fjvet:ignore unjoined-spawn the check under test: Spawn with the worker in a section panics
			{"forkjoin.Spawn", func(w *pool.Worker, _ *taskblock.Block) { forkjoin.Spawn(w, func(*pool.Worker) int { return 0 }) }},
			{"parallel.PerWorker.Get", func(w *pool.Worker, _ *taskblock.Block) { pw.Get(w) }},
			{"taskblock.Define", func(w *pool.Worker, _ *taskblock.Block) { taskblock.Define(w, func(*taskblock.Block) {}) }},
			{"Worker.Run", func(w *pool.Worker, _ *taskblock.Block) { w.Run(func(*pool.Worker) {}) }},
			{"pool.Region", func(w *pool.Worker, _ *taskblock.Block) { pool.Region(w, "r", func(*pool.Worker) {}) }},
			{"Block.Run", func(_ *pool.Worker, b *taskblock.Block) { b.Run(func(*pool.Worker) {}) }},
			{"Block.Wait", func(_ *pool.Worker, b *taskblock.Block) { b.Wait() }},
			//fjvet:ignore close-inside the check under test: Close from a section of the pool's task panics
			{"Pool.Close", func(*pool.Worker, *taskblock.Block) { p.Close() }},
		}
		for _, c := range calls {
			var msg string
			held, ran := false, 0
			taskblock.Define(p, func(b *taskblock.Block) {
				w := b.Worker()
				b.Run(func(*pool.Worker) { ran++ })
				pool.Blocking(func() {
					//fjvet:ignore captured-worker the check under test: the worker used in a section panics
					msg = fjtest.PanicMessage(fjtest.Catch(func() { c.call(w, b) }))
					// Another pool is another pool: its Close from
					// here is no misuse, nor a call on it.
					forkjoin.Invoke(other, func(*pool.Worker) int { return 0 })
				})
				held = sched.Held(schedtest.W(w))
				b.Wait() // back on the worker: legal again
				b.Run(func(*pool.Worker) { ran++ })
			})
			if !strings.Contains(msg, "inside a blocking section (pool.Blocking)") || !strings.Contains(msg, `pool "fj"`) {
				t.Errorf("%d workers: %s inside a section: panic %q, want the message that names the section", workers, c.name, msg)
			}
			if !held || ran != 2 {
				t.Errorf("%d workers: %s: after the section the task holds its worker: %v; tasks of the block run: %d of 2",
					workers, c.name, held, ran)
			}
		}
		if p.Closed() {
			t.Errorf("%d workers: Close from inside a section closed the pool", workers)
		}
		p.Close()
		other.Close()
	}
}

// A task of one pool that calls another pool waits in a blocking section:
// a chain that goes back and forth between two pools of one worker each
// (a task of a waiting for b, whose task waits for a) completes, where a
// blocked worker of a would have deadlocked it.
func TestCrossPoolChainCompletes(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	a := pool.New(pool.WithWorkers(1))
	b := pool.New(pool.WithWorkers(1))
	defer a.Close()
	defer b.Close()
	for i := 0; i < small(100, 20); i++ {
		got := forkjoin.Invoke(a, func(*pool.Worker) int {
			return forkjoin.Invoke(b, func(*pool.Worker) int {
				return forkjoin.Invoke(a, func(*pool.Worker) int { return 42 }) + 1
			}) + 1
		})
		if got != 44 {
			t.Fatalf("round %d: got %d, want 44", i, got)
		}
	}
}
