package sched_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// Sections never hold ready work hostage (issue 24, blocking.go B1-B5):
// every shape that goroutines or errgroup complete, fj completes with its
// default options, in every build. Each shape is written as users write
// it, at a size past the cap that sections had by default before (256 on
// two workers: oldCap), and where a cap applies, past a small one too.

// oldCap is the cap on sections that pools had by default before issue
// 24 (64 per worker, at least 256); the shapes are sized past it.
const oldCap = 256

var errItem700 = errors.New("item 700 failed")

// The errgroup idiom: bodies that wait for the call's context in a
// section, and one item that fails. errgroup returns the error at once;
// so must the call, with every worker free to start the failing item.
func TestNoHostageErrgroupIdiom(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for round := 0; round < 3; round++ {
		opt, ctx := parallel.WithContext(context.Background())
		err := parallel.ForErr(p, 0, 1000, func(_ *pool.Worker, i int) error {
			if i == 700 {
				return errItem700
			}
			pool.Blocking(func() { <-ctx.Done() })
			return nil
		}, opt)
		if err != errItem700 {
			t.Fatalf("round %d: ForErr returned %v, want item 700's error", round, err)
		}
	}
	if s := p.Stats(); s.Blocking != 0 {
		t.Errorf("after the calls: Stats.Blocking = %d", s.Blocking)
	}
}

// The same with bodies that sleep on the context (a timer against the
// context's end), as bench/errgroup_test.go measures: the call returns
// the failing item's error; how soon it does is the benchmark's. The
// sleeps are an hour long, so that a call that waits for any of them to
// end (a section holding its worker while item 700 waits to start, as
// with the old cap) fails by the deadline.
func TestNoHostageErrgroupSleeps(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for round := 0; round < 3; round++ {
		opt, ctx := parallel.WithContext(context.Background())
		err := parallel.ForErr(p, 0, 1000, func(_ *pool.Worker, i int) error {
			var err error
			pool.Blocking(func() {
				tm := time.NewTimer(time.Hour)
				defer tm.Stop()
				if i == 700 {
					tm.Reset(time.Millisecond)
				}
				select {
				case <-tm.C:
					if i == 700 {
						err = errItem700
					}
				case <-ctx.Done():
					err = context.Cause(ctx)
				}
			})
			return err
		}, opt)
		if err != errItem700 {
			t.Fatalf("round %d: ForErr returned %v, want item 700's error", round, err)
		}
	}
}

// A barrier of more tasks than any cap: each task arrives, then waits in
// a section for all the others. With a cap (errgroup's SetLimit), the
// tasks past it wait for a slot without their workers, so every task
// still arrives, and the sections in f then leave one slot after another.
func TestNoHostageBarrier(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, c := range []struct{ workers, cap, tasks int }{
		{2, 0, oldCap + 100},
		{1, 0, oldCap + 100},
		{2, 3, 100},
		{1, 1, 50},
	} {
		opts := []pool.Option{pool.WithWorkers(c.workers)}
		if c.cap != 0 {
			opts = append(opts, pool.WithMaxBlocking(c.cap))
		}
		p := pool.New(opts...)
		var wg sync.WaitGroup
		wg.Add(c.tasks)
		passed := 0
		var mu sync.Mutex
		taskblock.Define(p, func(b *taskblock.Block) {
			for range c.tasks {
				b.Run(func(*pool.Worker) {
					wg.Done()
					pool.Blocking(wg.Wait)
					mu.Lock()
					passed++
					mu.Unlock()
				})
			}
		})
		if passed != c.tasks {
			t.Errorf("%+v: %d tasks passed the barrier", c, passed)
		}
		s := p.Stats()
		if c.cap != 0 && s.MostBlocking > uint64(c.cap) {
			t.Errorf("%+v: %d sections in f at once, past the cap", c, s.MostBlocking)
		}
		p.Close()
	}
}

// A hand-off chain longer than the old cap: task i receives from its
// predecessor in a section and passes the value on in another. The tasks
// start in whatever order the workers pick them (a task block's own
// worker takes its last fork first), so the chain completes only if every
// task can be waiting at once.
func TestNoHostageHandOffChain(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		const n = oldCap + 100
		ch := make([]chan int, n+1)
		for i := range ch {
			ch[i] = make(chan int)
		}
		got := make(chan int, 1)
		go func() { ch[0] <- 0; got <- <-ch[n] }()
		taskblock.Define(p, func(b *taskblock.Block) {
			for i := range n {
				b.Run(func(*pool.Worker) {
					var v int
					pool.Blocking(func() { v = <-ch[i] })
					pool.Blocking(func() { ch[i+1] <- v + 1 })
				})
			}
		})
		if v := <-got; v != n {
			t.Errorf("%d workers: the chain's end received %d, want %d", workers, v, n)
		}
		p.Close()
	}
}

// A chain that goes back and forth between two pools, deeper than their
// caps on sections: each call on the other pool waits in a section that
// is a join, and takes no slot (B3), so it completes like joins within
// one pool, as Pool.Run's doc says; with user sections at every level
// too, which do take slots and leave them before the next call.
func TestNoHostageCrossPoolChain(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	for _, workers := range []int{1, 2} {
		a := pool.New(pool.WithWorkers(workers), pool.WithMaxBlocking(1), pool.WithName("a"))
		b := pool.New(pool.WithWorkers(workers), pool.WithMaxBlocking(1), pool.WithName("b"))
		const depth = 20
		var chain func(i int) int
		chain = func(i int) int {
			if i == depth {
				return 0
			}
			next := a
			if i%2 == 0 {
				next = b
			}
			pool.Blocking(func() {}) // a user section: takes and leaves a slot
			return forkjoin.Invoke(next, func(*pool.Worker) int { return chain(i+1) + 1 })
		}
		if got := forkjoin.Invoke(a, func(*pool.Worker) int { return chain(0) }); got != depth {
			t.Errorf("%d workers: the chain returned %d, want %d", workers, got, depth)
		}
		// Two chains at once, so that both pools' workers are waiting.
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if got := forkjoin.Invoke(a, func(*pool.Worker) int { return chain(0) }); got != depth {
					t.Errorf("%d workers: a concurrent chain returned %d, want %d", workers, got, depth)
				}
			}()
		}
		wg.Wait()
		a.Close()
		b.Close()
	}
}

// With a cap of one, a task forks Y and then X while every worker is busy
// (so X is private to its worker: its deque exposes Y, job.go E1), then
// enters a section while the only slot is held by a section that waits
// for X; or it calls another pool, which waits in a section of its own.
// The waiting section gives its worker up (B2 before B3), and the worker
// it gave up runs X.
func TestNoHostageCappedSectionRunsOwnFork(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	other := pool.New(pool.WithWorkers(1), pool.WithName("other"))
	defer other.Close()
	for _, workers := range []int{1, 2} {
		for _, viaPool := range []bool{false, true} {
			p := pool.New(pool.WithWorkers(workers), pool.WithMaxBlocking(1))
			xRan := make(chan struct{})
			inSection := make(chan struct{})
			holder := make(chan struct{})
			// The slot's holder: in a section until X has run.
			go func() {
				defer close(holder)
				p.Run(func(*pool.Worker) {
					pool.Blocking(func() {
						close(inSection)
						<-xRan
					})
				})
			}()
			<-inSection
			// Keep the other workers busy (blocked without a section,
			// until the end), so that no worker is idle at the fork
			// and X stays private to the forker's worker.
			release := make(chan struct{})
			busy := make(chan struct{})
			var started sync.WaitGroup
			started.Add(workers - 1)
			for range workers - 1 {
				go func() {
					//fjvet:ignore blocking blocks without a section on purpose: the test is about what that costs
					p.Run(func(*pool.Worker) { started.Done(); <-release })
					busy <- struct{}{}
				}()
			}
			started.Wait()
			n := forkjoin.Invoke(p, func(w *pool.Worker) int {
				y := forkjoin.Fork(w, func(*pool.Worker) int { return 1 })
				x := forkjoin.Fork(w, func(*pool.Worker) int { close(xRan); return 1 })
				if viaPool {
					forkjoin.Invoke(other, func(*pool.Worker) int { return 0 })
				} else {
					pool.Blocking(func() {}) // waits for the slot
				}
				return x.Join(w) + y.Join(w)
			})
			close(release)
			for range workers - 1 {
				<-busy
			}
			<-holder
			if n != 2 {
				t.Errorf("%d workers, via pool %v: X and Y returned %d", workers, viaPool, n)
			}
			p.Close()
		}
	}
}
