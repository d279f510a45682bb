package fj_test

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// closingEntries are the entry points called on a *Pool from inside one of
// its own tasks while the pool closes. Each gets the calling task's worker
// and returns what it found wrong.
var closingEntries = []struct {
	name string
	call func(p *pool.Pool, w *pool.Worker) []string
}{
	{"Enter", func(p *pool.Pool, w *pool.Worker) []string {
		return closingSameWorker(w, pool.Enter(p), "pool.Enter(p)")
	}},
	{"PoolRun", func(p *pool.Pool, w *pool.Worker) []string {
		var got *pool.Worker
		n := 0
		p.Run(func(bw *pool.Worker) { got, n = bw, 42 })
		return append(closingSameWorker(w, got, "Run's function"), closingWant(n, 42, "Run's result")...)
	}},
	{"Region", func(p *pool.Pool, w *pool.Worker) []string {
		var got *pool.Worker
		pool.Region(p, "closing", func(bw *pool.Worker) { got = bw })
		return closingSameWorker(w, got, "Region's function")
	}},
	{"Invoke", func(p *pool.Pool, w *pool.Worker) []string {
		var got *pool.Worker
		v := forkjoin.Invoke(p, func(bw *pool.Worker) int {
			got = bw
			a, b := forkjoin.Join(bw,
				func(*pool.Worker) int { return 40 },
				func(*pool.Worker) int { return 2 })
			return a + b
		})
		return append(closingSameWorker(w, got, "Invoke's function"), closingWant(v, 42, "Invoke's result")...)
	}},
	{"Define", func(p *pool.Pool, w *pool.Worker) []string {
		var got *pool.Worker
		var ran atomic.Int64
		taskblock.Define(p, func(b *taskblock.Block) {
			got = b.Worker()
			for range 8 {
				b.Run(func(*pool.Worker) { ran.Add(1) })
			}
		})
		return append(closingSameWorker(w, got, "Define's body"), closingWant(int(ran.Load()), 8, "tasks run in the block")...)
	}},
	{"For", func(p *pool.Pool, w *pool.Worker) []string {
		const n = 1000
		var hits [n]atomic.Int32
		var first *pool.Worker // the worker of index 0, which the caller's worker runs first
		var otherPool atomic.Int64
		parallel.For(p, 0, n, func(bw *pool.Worker, i int) {
			if i == 0 {
				first = bw
			}
			if bw.Pool() != p {
				otherPool.Add(1)
			}
			hits[i].Add(1)
		})
		bad := closingSameWorker(w, first, "For's body at index 0")
		for i := range hits {
			if c := hits[i].Load(); c != 1 {
				bad = append(bad, fmt.Sprintf("For ran index %d %d times, want once", i, c))
				break
			}
		}
		return append(bad, closingWant(int(otherPool.Load()), 0, "For bodies on a worker of another pool")...)
	}},
	{"Sort", func(p *pool.Pool, w *pool.Worker) []string {
		// Large enough not to be sorted on the calling goroutine without
		// the pool (Sort's doc: up to a few thousand elements are).
		xs := make([]int, 1<<15)
		x := uint32(12345)
		for i := range xs {
			x = x*1664525 + 1013904223
			xs[i] = int(x >> 8)
		}
		wantXs := slices.Clone(xs)
		slices.Sort(wantXs)
		parallel.Sort(p, xs)
		if !slices.Equal(xs, wantXs) {
			return []string{"Sort did not sort the slice"}
		}
		return nil
	}},
	{"Reduce", func(p *pool.Pool, w *pool.Worker) []string {
		const n = 1000
		var first *pool.Worker
		var otherPool atomic.Int64
		sum := parallel.Reduce(p, 0, n, 0,
			func(bw *pool.Worker, lo, hi int) int {
				if lo == 0 {
					first = bw
				}
				if bw.Pool() != p {
					otherPool.Add(1)
				}
				s := 0
				for i := lo; i < hi; i++ {
					s += i
				}
				return s
			},
			func(a, b int) int { return a + b })
		bad := closingSameWorker(w, first, "Reduce's chunk at index 0")
		bad = append(bad, closingWant(sum, n*(n-1)/2, "Reduce's sum")...)
		return append(bad, closingWant(int(otherPool.Load()), 0, "Reduce chunks on a worker of another pool")...)
	}},
}

func closingSameWorker(caller, got *pool.Worker, what string) []string {
	if got != caller {
		id := -1
		if got != nil {
			id = got.ID()
		}
		return []string{fmt.Sprintf("%s ran on worker %p (ID %d), want the calling task's %p (ID %d)",
			what, got, id, caller, caller.ID())}
	}
	return nil
}

func closingWant(got, exp int, what string) []string {
	if got != exp {
		return []string{fmt.Sprintf("%s = %d, want %d", what, got, exp)}
	}
	return nil
}

// The design's Composability section: a call on a *Pool from inside one of its own
// tasks runs on the calling task's worker, and every entry point decides
// this the same way, in one place (pool.Enter), also while the pool closes.
// A task of p waits until Close has begun on another goroutine, then calls
// every entry point on p itself: each must run to completion, with the
// right result, on the task's own worker, and submit nothing (a submission
// from outside a closed pool panics; Stats.Submitted must not grow). Close
// waits for the task, and returns after it.
//
// The signal that Close has begun is p.Closed(): Close's first step, once
// its misuse checks passed, is the store that makes Closed report true
// (internal/sched's Pool.Close), so a task that has seen it runs while Close
// is under way; Close cannot have returned, since it waits for that task
// (asserted below). The task waits for it with runtime.Gosched, not a
// sleep; a hang fails at fjtest.Deadline.
//
// The entry points run in the task, where they must be called from (a
// subtest's goroutine is not a task of p), and their outcomes are reported
// in a subtest each once Close has returned. The pool has two workers, so
// the calling task's worker is not the only one.
func TestClosingEntryRunsOnCallersWorker(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))

	type outcome struct {
		panicked  any
		problems  []string
		submitted uint64 // Stats.Submitted's growth across the call
	}
	outcomes := make([]outcome, len(closingEntries))
	var sawClosing, closeReturnedEarly bool

	started := make(chan struct{})
	closeDone := make(chan struct{})
	runDone := make(chan any, 1)
	go func() {
		runDone <- fjtest.Catch(func() {
			p.Run(func(w *pool.Worker) {
				close(started)
				for !p.Closed() {
					runtime.Gosched()
				}
				sawClosing = true
				for i, e := range closingEntries {
					before := p.Stats().Submitted
					outcomes[i].panicked = fjtest.Catch(func() { outcomes[i].problems = e.call(p, w) })
					outcomes[i].submitted = p.Stats().Submitted - before
				}
				select {
				case <-closeDone:
					closeReturnedEarly = true
				default:
				}
			})
		})
	}()
	select {
	case <-started:
	case r := <-runDone:
		t.Fatalf("p.Run of the task returned before the task started: %v", r)
	}
	go func() {
		defer close(closeDone)
		p.Close()
	}()
	runPanic := <-runDone
	<-closeDone

	if runPanic != nil {
		t.Fatalf("the task's p.Run panicked: %v", runPanic)
	}
	if !sawClosing {
		t.Fatal("the task ended without seeing Close begin")
	}
	if closeReturnedEarly {
		t.Error("Close returned while a task of the pool was still running")
	}
	for i, e := range closingEntries {
		o := outcomes[i]
		t.Run(e.name, func(t *testing.T) {
			if o.panicked != nil {
				t.Fatalf("%s on p from a task of p while p closes panicked: %v", e.name, o.panicked)
			}
			for _, pr := range o.problems {
				t.Error(pr)
			}
			if o.submitted != 0 {
				t.Errorf("%s submitted %d calls to the pool, want none: it must run on the caller's worker", e.name, o.submitted)
			}
		})
	}
}
