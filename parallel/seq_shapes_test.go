package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The shapes of the Seq calls that used to hang or crash (issues 23 and
// 24): bodies that wait on the call's context, sequences that yield from
// a goroutine of their own, and channel worklists fed by the bodies.

// seqForms runs the four Seq calls over seq, the sequence 0..n-1, with
// body, given opts, and returns ForSeqErr's or MapSeqErr's error, or an error if
// MapSeq's or MapSeqErr's result is not in order (items whose function did not run, in
// a call that stopped, hold 0; their callers check what ran through
// body).
func seqForms(r pool.Runner, seq iter.Seq[int], body func(w *pool.Worker, i int) error, opts ...parallel.Option) map[string]func() error {
	return map[string]func() error{
		"ForSeq": func() error {
			parallel.ForSeq(r, seq, func(w *pool.Worker, i int) { _ = body(w, i) }, opts...)
			return nil
		},
		"ForSeqErr": func() error { return parallel.ForSeqErr(r, seq, body, opts...) },
		"MapSeqErr": func() error {
			out, err := parallel.MapSeqErr(r, seq, func(w *pool.Worker, i int) (int, error) { return i, body(w, i) }, opts...)
			if err != nil {
				if out != nil {
					return fmt.Errorf("MapSeqErr returned %d results with its error %w", len(out), err)
				}
				return err
			}
			for i, x := range out {
				if x != i && x != 0 {
					return fmt.Errorf("MapSeqErr: out[%d] = %d", i, x)
				}
			}
			return nil
		},
		"MapSeq": func() error {
			out := parallel.MapSeq(r, seq, func(w *pool.Worker, i int) int { _ = body(w, i); return i }, opts...)
			for i, x := range out {
				if x != i && x != 0 {
					return fmt.Errorf("MapSeq: out[%d] = %d", i, x)
				}
			}
			return nil
		},
	}
}

// Under WithContext the Seq calls run a task per item, as the option's
// doc says, and start every item, however many wait: each of n bodies
// waits (in a blocking section) until all n have started, a barrier that
// completes only if no item waits behind another in a batch, and none
// behind the puller's look-ahead (with default options: sections are not
// capped).
func TestSeqWithContextStartsEveryItem(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	const n = 200
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for _, form := range []string{"ForSeq", "ForSeqErr", "MapSeq", "MapSeqErr"} {
			for rep := range 5 {
				opt, _ := parallel.WithContext(context.Background())
				var started atomic.Int64
				all := make(chan struct{})
				seq, _ := counting(t, n)
				var ran atomic.Int64
				if err := seqForms(p, seq, func(_ *pool.Worker, i int) error {
					if started.Add(1) == n {
						close(all)
					}
					pool.Blocking(func() { <-all })
					ran.Add(1)
					return nil
				}, opt)[form](); err != nil {
					t.Errorf("workers=%d %s rep %d: %v", workers, form, rep, err)
				}
				if ran.Load() != n {
					t.Errorf("workers=%d %s rep %d: %d of %d bodies ran", workers, form, rep, ran.Load(), n)
				}
			}
		}
		p.Close()
	}
}

// errgroupShape is the errgroup idiom on a Seq call: every body waits on
// the bodies' context in a blocking section, and item k fails (ForSeqErr),
// or stops the call (ForSeq, MapSeq: a Stop, which ends the context too).
// The call must return, with item k's error for ForSeqErr, however far k
// lies beyond the puller's look-ahead.
func errgroupShape(t *testing.T, p *pool.Pool, form string, n, k int) {
	t.Helper()
	errK := fmt.Errorf("item %d failed", k)
	errForm := strings.HasSuffix(form, "Err")
	opt, ctx := parallel.WithContext(context.Background())
	var flag parallel.StopFlag
	seq, _ := counting(t, n)
	err := seqForms(p, seq, func(_ *pool.Worker, i int) error {
		if i == k {
			if errForm {
				return errK
			}
			flag.Stop()
			return nil
		}
		pool.Blocking(func() { <-ctx.Done() })
		return ctx.Err()
	}, opt, parallel.Stop(&flag))[form]()
	switch {
	case errForm && err != errK:
		t.Errorf("%s, n=%d, item %d fails: returned %v, want its error", form, n, k, err)
	case errForm && context.Cause(ctx) != errK:
		t.Errorf("%s, n=%d, item %d fails: the bodies' context ended with %v, want the error", form, n, k, context.Cause(ctx))
	case !errForm && (err != nil || !flag.Stopped()):
		t.Errorf("%s, n=%d, item %d stops: %v, stopped %v", form, n, k, err, flag.Stopped())
	}
}

// The errgroup shape of issue 24 on the Seq calls: before, the bodies
// waiting on ctx filled the puller's look-ahead (4 batches per worker)
// and the failing item beyond it never started: a hang.
func TestSeqWithContextErrgroupShape(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	const n = 200
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for _, form := range []string{"ForSeq", "ForSeqErr", "MapSeq", "MapSeqErr"} {
			for _, k := range []int{0, 1, 9, 17, 150, n - 1} {
				errgroupShape(t, p, form, n, k)
			}
		}
		p.Close()
	}
}

// The errgroup shape at the size: 1,000 items on 2 workers, item
// 700 failing, with default options: 1,000 bodies blocked at once, past
// the cap of 256 that sections had by default before issue 24 (a section
// past it held its worker, and this hung).
func TestSeqWithContextErrgroupShapeLarge(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for _, form := range []string{"ForSeq", "ForSeqErr", "MapSeq", "MapSeqErr"} {
		for rep := 0; rep < 5; rep++ {
			errgroupShape(t, p, form, 1000, 700)
		}
	}
}

// goroutineSeq returns the sequence 0..n-1 yielded from a goroutine of its
// own, sequentially, as a legal iter.Seq may: the sequence waits for that
// goroutine before it returns. With mixed, the first half is yielded
// from the goroutine that called the sequence, the rest from a new one.
func goroutineSeq(t *testing.T, n int, mixed bool) iter.Seq[int] {
	return func(yield func(int) bool) {
		var busy atomic.Bool
		emit := func(i int) bool {
			if !busy.CompareAndSwap(false, true) {
				t.Error("the sequence's yield ran on two goroutines at once")
			}
			defer busy.Store(false)
			return yield(i)
		}
		start := 0
		if mixed {
			for ; start < n/2; start++ {
				if !emit(start) {
					return
				}
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for i := start; i < n; i++ {
				if !emit(i) {
					return
				}
			}
		}()
		<-done
	}
}

// A sequence that yields from a goroutine of its own (or from its
// caller's goroutine inside a blocking section, which holds no worker)
// runs correctly: every item once, MapSeq in order, ForSeqErr's error
// returned. Before, the batch was forked with the puller's worker on the
// sequence's goroutine, and the misuse check crashed the process.
func TestForSeqYieldsFromAnotherGoroutine(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	sources := map[string]func(n int) iter.Seq[int]{
		"goroutine": func(n int) iter.Seq[int] { return goroutineSeq(t, n, false) },
		"mixed":     func(n int) iter.Seq[int] { return goroutineSeq(t, n, true) },
		"section": func(n int) iter.Seq[int] {
			seq, _ := counting(t, n)
			return func(yield func(int) bool) { pool.Blocking(func() { seq(yield) }) }
		},
	}
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for name, source := range sources {
			for _, n := range []int{0, 1, 100, fjtest.Small(20_000, 3_000)} {
				for _, g := range []parallel.Option{nil, parallel.Grain(1)} {
					for _, form := range []string{"ForSeq", "ForSeqErr", "MapSeq", "MapSeqErr"} {
						seen := make([]atomic.Int32, n)
						if err := seqForms(p, source(n), func(w *pool.Worker, i int) error {
							if w == nil || w.Pool() != p {
								t.Errorf("body got worker %v", w)
							}
							seen[i].Add(1)
							return nil
						}, g)[form](); err != nil {
							t.Fatalf("workers=%d %s n=%d %s: %v", workers, name, n, form, err)
						}
						for i := range seen {
							if v := seen[i].Load(); v != 1 {
								t.Fatalf("workers=%d %s n=%d %s: item %d ran %d times", workers, name, n, form, i, v)
							}
						}
					}
				}
			}
			// An error stops the sequence's goroutine (its yield
			// returns false) and is returned.
			seq := source(100_000)
			err := parallel.ForSeqErr(p, seq, func(_ *pool.Worker, i int) error {
				if i == 1000 {
					return errBoom
				}
				return nil
			})
			if err != errBoom {
				t.Errorf("workers=%d %s: ForSeqErr = %v, want boom", workers, name, err)
			}
			// Nested: the call runs on a task's worker.
			var total atomic.Int64
			p.Run(func(w *pool.Worker) {
				parallel.ForSeq(w, source(1000), func(_ *pool.Worker, i int) { total.Add(int64(i)) })
			})
			if total.Load() != 999*1000/2 {
				t.Errorf("workers=%d %s: nested ForSeq summed %d", workers, name, total.Load())
			}
		}
		p.Close()
	}
}

// A panic in a body stops a sequence that yields from its own goroutine
// and is raised in the caller, after the batches have ended.
func TestForSeqYieldsFromAnotherGoroutinePanics(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		var ran atomic.Int64
		r := fjtest.Catch(func() {
			parallel.ForSeq(p, goroutineSeq(t, 100_000, false), func(_ *pool.Worker, i int) {
				ran.Add(1)
				if i == 500 {
					panic(errBoom)
				}
			})
		})
		if pe, ok := r.(*pool.PanicError); !ok || !errors.Is(pe, errBoom) {
			t.Errorf("workers=%d: recovered %v, want the body's panic", workers, r)
		}
		after := ran.Load()
		parallel.For(p, 0, 1000, func(*pool.Worker, int) {})
		if ran.Load() != after {
			t.Errorf("workers=%d: bodies still ran after ForSeq returned", workers)
		}
		p.Close()
	}
}

// occupy keeps one worker of p busy for a few milliseconds of CPU, from
// the moment occupy returns: the pool is partly busy when the caller's
// parallel call starts. The returned channel is closed once that task
// has ended.
func occupy(p *pool.Pool) <-chan struct{} {
	started, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		p.Run(func(*pool.Worker) {
			close(started)
			for t0 := time.Now(); time.Since(t0) < 3*time.Millisecond; {
			}
		})
	}()
	<-started
	return ended
}

// worklist returns a sequence over a channel that the bodies feed, and
// the body: item x has the children children(x); the channel is closed
// when no item is pending (every item pulled has run and fed its
// children). seen counts the visits.
func worklist(root int, children func(x int) []int, seen []atomic.Int32) (iter.Seq[int], func(w *pool.Worker, x int)) {
	ch := make(chan int, len(seen))
	var pending atomic.Int64
	pending.Store(1)
	ch <- root
	seq := func(yield func(int) bool) {
		for x := range ch {
			if !yield(x) {
				return
			}
		}
	}
	body := func(_ *pool.Worker, x int) {
		seen[x].Add(1)
		for _, c := range children(x) {
			pending.Add(1)
			ch <- c
		}
		if pending.Add(-1) == 0 {
			close(ch)
		}
	}
	return seq, body
}

// A ForSeq over a channel worklist completes (issue 23) on 2 workers
// while the pool is partly busy: the puller forks a batch while the other
// worker is busy, then waits in the sequence's channel receive; the batch
// that feeds the channel must be published before that wait, or it stays
// private to the puller's worker while the other worker sleeps: a hang,
// every run, before. Two worklists: a hand-off chain (one item in flight
// at a time) and a tree walk (a binary tree, its nodes discovered by the
// bodies). On one worker the puller waiting in the channel receive holds
// the only worker (a wait without a blocking section); such a sequence
// needs two workers.
func TestForSeqChannelWorklist(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	const n = 2000
	shapes := map[string]func(x int) []int{
		"chain": func(x int) []int {
			if x+1 < n {
				return []int{x + 1}
			}
			return nil
		},
		"tree": func(x int) []int {
			var c []int
			for _, y := range []int{2*x + 1, 2*x + 2} {
				if y < n {
					c = append(c, y)
				}
			}
			return c
		},
	}
	for _, workers := range []int{2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for name, children := range shapes {
			// Grain(1) or WithContext (a task per item): with batches
			// that grow, the puller would wait in the channel for an
			// item that only an item of its unfilled batch can feed.
			for _, opt := range []string{"Grain(1)", "WithContext"} {
				for rep := range 10 {
					var opts []parallel.Option
					switch opt {
					case "Grain(1)":
						opts = append(opts, parallel.Grain(1))
					case "WithContext":
						o, _ := parallel.WithContext(context.Background())
						opts = append(opts, o)
					}
					seen := make([]atomic.Int32, n)
					seq, body := worklist(0, children, seen)
					var ended <-chan struct{}
					if rep%2 == 0 {
						ended = occupy(p) // every other run on a partly busy pool
					}
					parallel.ForSeq(p, seq, body, opts...)
					for x := range seen {
						if v := seen[x].Load(); v != 1 {
							t.Fatalf("workers=%d %s %s: item %d visited %d times", workers, name, opt, x, v)
						}
					}
					if ended != nil {
						<-ended
					}
				}
			}
		}
		p.Close()
	}
}

// A runtime.Goexit in the sequence, or in a body, reaches the caller as
// pool.ErrGoexit, after every batch pulled has ended (none runs behind
// the caller's back), on one worker and more.
func TestForSeqGoexit(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		var ran atomic.Int64
		cases := map[string]func(){
			"in the sequence": func() {
				parallel.ForSeq(p, func(yield func(int) bool) {
					for i := 0; ; i++ {
						if i == 1000 {
							runtime.Goexit()
						}
						if !yield(i) {
							return
						}
					}
				}, func(*pool.Worker, int) { ran.Add(1) })
			},
			"in a body": func() {
				seq, _ := counting(t, 100_000)
				parallel.ForSeq(p, seq, func(_ *pool.Worker, i int) {
					ran.Add(1)
					if i == 1000 {
						runtime.Goexit()
					}
				})
			},
		}
		for name, f := range cases {
			r := fjtest.Catch(f)
			if err, ok := r.(error); !ok || !errors.Is(err, pool.ErrGoexit) {
				t.Errorf("workers=%d, Goexit %s: recovered %v, want pool.ErrGoexit", workers, name, r)
			}
			after := ran.Load()
			parallel.For(p, 0, 1000, func(*pool.Worker, int) {})
			if ran.Load() != after {
				t.Errorf("workers=%d, Goexit %s: bodies still ran after ForSeq returned", workers, name)
			}
		}
		p.Close()
	}
}

// The channel worklist on one worker, with Grain(1) and no blocking
// section: the puller holds the only worker while it waits in the
// sequence's range over the channel, and the batch that would feed the
// channel is queued behind it. The pool's stall rescue (a spare worker,
// after the stall threshold, here 20 ms) runs it: the call completes, in
// every build, where it hung before (issue 23, issue 24 item 2).
func TestForSeqChannelWorklistOneWorker(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(1), pool.WithStallThreshold(20*time.Millisecond),
		pool.WithStallHandler(func(pool.StallReport) {}))
	defer p.Close()
	ch := make(chan int, 64)
	var pending sync.WaitGroup
	pending.Add(1)
	ch <- 0
	seq := iter.Seq[int](func(yield func(int) bool) {
		go func() { pending.Wait(); close(ch) }()
		for v := range ch {
			if !yield(v) {
				return
			}
		}
	})
	var seen atomic.Int64
	parallel.ForSeq(p, seq, func(w *pool.Worker, v int) {
		seen.Add(1)
		if v < 20 {
			pending.Add(2)
			ch <- 2*v + 1
			ch <- 2*v + 2
		}
		pending.Done()
	}, parallel.Grain(1))
	if got := seen.Load(); got != 41 {
		t.Errorf("the worklist ran %d items, want 41", got)
	}
}
