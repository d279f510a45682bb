package taskblock_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// blockPanicMessages returns the values of the panics Define raised.
func blockPanicMessages(r any) []string {
	var ps taskblock.Panics
	err, ok := r.(error)
	if !ok || !errors.As(err, &ps) {
		return []string{fmt.Sprintf("not taskblock.Panics: %#v", r)}
	}
	var msgs []string
	for _, p := range ps {
		msgs = append(msgs, fmt.Sprint(p.Value))
	}
	return msgs
}

// Wait from a task of its own block waits for itself: it panics, naming
// Wait, instead of hanging, on any number of workers.
func TestWaitFromOwnTaskPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, n := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(n))
		r := catch(func() {
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Run(func(*pool.Worker) { b.Wait() })
			})
		})
		msgs := blockPanicMessages(r)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "Wait called from a task of its own block") {
			t.Errorf("workers=%d: Wait from a task: %q", n, msgs)
		}
		// The same while the body itself waits (the task then runs
		// inline on the body's goroutine, or on another worker).
		r = catch(func() {
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Run(func(*pool.Worker) { b.Wait() })
				b.Wait()
			})
		})
		msgs = blockPanicMessages(r)
		if len(msgs) != 1 || !strings.Contains(msgs[0], "Wait") {
			t.Errorf("workers=%d: Wait from a task while the body waits: %q", n, msgs)
		}
		p.Close()
	}
}

// Run is the body's: a task that calls it gets a message that says to use
// RunFrom with its worker.
func TestRunFromTaskPanicsWithTheFix(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	r := catch(func() {
		taskblock.Define(p, func(b *taskblock.Block) {
			b.Run(func(*pool.Worker) { b.Run(func(*pool.Worker) {}) })
		})
	})
	msgs := blockPanicMessages(r)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "b.RunFrom(w, f)") {
		t.Errorf("Run from a task: %q, want the message to name b.RunFrom(w, f)", msgs)
	}
	r = catch(func() {
		_ = taskblock.DefineErr(p, func(b *taskblock.Block) error {
			b.Go(func(*pool.Worker) error { b.Go(func(*pool.Worker) error { return nil }); return nil })
			return nil
		})
	})
	msgs = blockPanicMessages(r)
	if len(msgs) != 1 || !strings.Contains(msgs[0], "b.GoFrom(w, f)") {
		t.Errorf("Go from a task: %q, want the message to name b.GoFrom(w, f)", msgs)
	}
}

// RunFrom with a worker of another pool, or a nil one, panics clearly.
func TestRunFromBadWorker(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	q := pool.New(pool.WithWorkers(1))
	defer p.Close()
	defer q.Close()
	var other *pool.Worker
	q.Run(func(w *pool.Worker) { other = w }) // kept only to be refused
	cases := map[string]func(b *taskblock.Block){
		"nil worker":   func(b *taskblock.Block) { b.RunFrom(nil, func(*pool.Worker) {}) },
		"other pool":   func(b *taskblock.Block) { b.RunFrom(other, func(*pool.Worker) {}) },
		"nil function": func(b *taskblock.Block) { b.RunFrom(b.Worker(), nil) },
	}
	for name, f := range cases {
		msg := panicMessage(catch(func() { taskblock.Define(p, f) }))
		if !strings.Contains(msg, "RunFrom") {
			t.Errorf("%s: panic %q, want one naming RunFrom", name, msg)
		}
	}
}

// Debug checks: Run from a goroutine the user started panics (in a
// non-debug build it would push onto a deque another goroutine owns).
func TestDebugCheckRunFromForeignGoroutine(t *testing.T) {
	if !sched.DebugChecks {
		t.Skip("the debug checks need -race or -tags fjdebug")
	}
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var got any
	taskblock.Define(p, func(b *taskblock.Block) {
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			b.Run(func(*pool.Worker) {})
		}()
		got = <-done
	})
	if msg := panicMessage(got); !strings.Contains(msg, "not running the block's body") {
		t.Fatalf("Run from a foreign goroutine: panic %q, want the debug check's message", msg)
	}
	// And a task that passes a worker it does not hold to RunFrom.
	taskblock.Define(p, func(b *taskblock.Block) {
		bodyW := b.Worker()
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			b.RunFrom(bodyW, func(*pool.Worker) {})
		}()
		got = <-done
	})
	if msg := panicMessage(got); !strings.Contains(msg, "not running its task") {
		t.Fatalf("RunFrom with a worker held by another goroutine: panic %q, want the debug check's message", msg)
	}
}

// A single block whose tasks run tasks recursively (a binary tree of 2^16
// tasks) runs depth first on one worker: nothing goes through the injector
// but the Define itself, and the worker's deque never holds more than
// O(depth) tasks (each level leaves at most one sibling queued).
func TestOneBlockRecursiveWalkIsDepthFirst(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const depth = 16
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var ran atomic.Int64
	var maxQueued atomic.Int64
	taskblock.Define(p, func(b *taskblock.Block) {
		var walk func(w *pool.Worker, d int)
		walk = func(w *pool.Worker, d int) {
			ran.Add(1)
			if q := int64(schedtest.W(w).Queued()); q > maxQueued.Load() {
				maxQueued.Store(q)
			}
			if d == 0 {
				return
			}
			b.RunFrom(w, func(w *pool.Worker) { walk(w, d-1) })
			b.RunFrom(w, func(w *pool.Worker) { walk(w, d-1) })
		}
		b.Run(func(w *pool.Worker) { walk(w, depth) })
	})
	if got, want := ran.Load(), int64(1)<<(depth+1)-1; got != want {
		t.Fatalf("%d tasks ran, want %d", got, want)
	}
	s := p.Stats()
	t.Logf("2^%d tasks in one block on 1 worker: injector pops %d, overflows %d, most tasks queued %d",
		depth+1, s.Total.InjectorPops, s.Total.Overflows, maxQueued.Load())
	if s.Total.InjectorPops != 1 || s.Total.Overflows != 0 || s.Submitted != 1 {
		t.Errorf("injector pops %d, overflows %d, submitted %d: want 1, 0, 1 (only the Define)",
			s.Total.InjectorPops, s.Total.Overflows, s.Submitted)
	}
	if m := maxQueued.Load(); m > depth+2 {
		t.Errorf("up to %d tasks queued, want at most depth+2 = %d", m, depth+2)
	}
}

// A Goexit in the body is reported as the body's, and as a Goexit.
func TestGoexitInBodyReportedAsSuch(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	r := catch(func() {
		taskblock.Define(p, func(b *taskblock.Block) { runtime.Goexit() })
	})
	var ps taskblock.Panics
	err, _ := r.(error)
	if !errors.As(err, &ps) || len(ps) != 1 || !ps[0].Body || !errors.Is(ps[0].PanicError, pool.ErrGoexit) {
		t.Fatalf("Goexit in the body: %v, want one Panic of the body wrapping pool.ErrGoexit", r)
	}
	if msg := ps.Error(); !strings.Contains(msg, "the body called runtime.Goexit") {
		t.Errorf("message %q does not say the body called runtime.Goexit", msg)
	}
}
