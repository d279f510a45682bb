package pool_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// The tests in this file are the composability contract (README.md,
// "Semantics in short"; docs/how-it-works.md, "Finding the worker"): a
// call on a *Pool from inside one of its own tasks runs on the caller's
// worker, and misuse fails loudly instead of hanging.

var composeWorkers = []int{1, 2, 4}

// parallel.Sort(p, ...) inside parallel.For(p, ...): p, not the body's
// worker. Each body would block its worker in Pool.Run until p ran the
// sort, and with every worker so blocked nobody would. It must run inline.
func TestSortOnOwnPoolInsideFor(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, n := range composeWorkers {
		p := pool.New(pool.WithWorkers(n))
		rows := make([][]int, 64)
		for i := range rows {
			rows[i] = rand.Perm(5000 + i) // above the sorts' sequential cut-off
		}
		before := p.Stats()
		parallel.For(p, 0, len(rows), func(w *pool.Worker, i int) {
			parallel.Sort(p, rows[i])
		})
		for i, r := range rows {
			if !slices.IsSorted(r) || len(r) != 5000+i {
				t.Fatalf("workers=%d: row %d not sorted", n, i)
			}
		}
		// Only the For itself came from outside: the nested sorts ran on
		// the workers of the tasks that called them.
		if got := p.Stats().Sub(before).Submitted; got != 1 {
			t.Errorf("workers=%d: %d submissions from outside, want 1 (the For)", n, got)
		}
		p.Close()
	}
}

// Every entry point that takes a Runner, given the pool of the calling
// task, runs on the calling task's worker.
func TestEntryPointsOnOwnPoolRunInline(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, n := range composeWorkers {
		p := pool.New(pool.WithWorkers(n))
		check := func(name string, outer *pool.Worker, inner *pool.Worker) {
			t.Helper()
			if inner != outer {
				t.Errorf("workers=%d: %s on the own pool ran on worker %d, want the caller's %d",
					n, name, inner.ID(), outer.ID())
			}
		}
		forkjoin.Invoke(p, func(outer *pool.Worker) int {
			var got *pool.Worker
			p.Run(func(w *pool.Worker) { got = w })
			check("Pool.Run", outer, got)
			got = forkjoin.Invoke(p, func(w *pool.Worker) *pool.Worker { return w })
			check("forkjoin.Invoke", outer, got)
			taskblock.Define(p, func(b *taskblock.Block) { got = b.Worker() })
			check("taskblock.Define", outer, got)
			_ = taskblock.DefineErr(p, func(b *taskblock.Block) error { got = b.Worker(); return nil })
			check("taskblock.DefineErr", outer, got)
			pool.Region(p, "inline", func(w *pool.Worker) { got = w })
			check("pool.Region", outer, got)
			parallel.ForRange(p, 0, 1, func(w *pool.Worker, lo, hi int) { got = w })
			check("parallel.ForRange", outer, got)
			return 0
		})
		// Inside a Join closure too, stolen or not.
		forkjoin.Invoke(p, func(w *pool.Worker) int {
			forkjoin.Join(w,
				func(w *pool.Worker) int {
					check("Invoke in fa", w, forkjoin.Invoke(p, func(w *pool.Worker) *pool.Worker { return w }))
					return 0
				},
				func(w *pool.Worker) int {
					check("Invoke in fb", w, forkjoin.Invoke(p, func(w *pool.Worker) *pool.Worker { return w }))
					return 0
				})
			return 0
		})
		if s := p.Stats(); s.Submitted != 2 {
			t.Errorf("workers=%d: %d submissions from outside, want 2 (the two outer Invokes)", n, s.Submitted)
		}
		p.Close()
	}
}

// A panic inside an inline call on the own pool reaches its caller, inside
// the task, as it would from outside.
func TestOwnPoolRunRaisesPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	got := forkjoin.Invoke(p, func(w *pool.Worker) any {
		return catch(func() { p.Run(func(*pool.Worker) { panic("inner") }) })
	})
	pe, ok := got.(*pool.PanicError)
	if !ok || pe.Value != "inner" {
		t.Fatalf("inline Run panicked with %#v, want a *pool.PanicError with value \"inner\"", got)
	}
}

// A task of one pool that calls another pool blocks its worker until the
// other pool is done (documented): it works, and both pools stay usable.
func TestOtherPoolFromTask(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	a := pool.New(pool.WithWorkers(2), pool.WithName("a"))
	b := pool.New(pool.WithWorkers(2), pool.WithName("b"))
	defer a.Close()
	defer b.Close()
	got := forkjoin.Invoke(a, func(w *pool.Worker) int {
		return forkjoin.Invoke(b, func(w2 *pool.Worker) int {
			if w2.Pool() != b {
				t.Errorf("the call on b ran on pool %q", w2.Pool().Name())
			}
			return fibJoin(w2, 15)
		})
	})
	if got != fibSeq(15) {
		t.Fatalf("fib(15) through two pools = %d", got)
	}
	if s := b.Stats(); s.Submitted != 1 {
		t.Errorf("pool b: %d submissions, want 1 (a's task is outside b)", s.Submitted)
	}
}

// A library helper that uses pool.Default(), called from a task of the
// Default pool, runs inline. In a child process: Default lives as long as
// the process, which the leak check would report.
func TestDefaultFromDefaultTask(t *testing.T) {
	if os.Getenv(childEnv) == "default-nested" {
		sortHelper := func(xs []int) { parallel.Sort(pool.Default(), xs) } // a library's code
		d := pool.Default()
		rows := make([][]int, 4*d.Workers()+1)
		for i := range rows {
			rows[i] = rand.Perm(10000)
		}
		parallel.For(d, 0, len(rows), func(w *pool.Worker, i int) { sortHelper(rows[i]) })
		for i, r := range rows {
			if !slices.IsSorted(r) {
				fmt.Printf("FAIL: row %d not sorted\n", i)
				return
			}
		}
		fmt.Println("NESTED-DEFAULT-OK")
		return
	}
	fjtest.Deadline(t, 60*time.Second)
	for _, procs := range []string{"1", "2", "4"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDefaultFromDefaultTask$", "-test.count=1")
		cmd.Env = append(os.Environ(), childEnv+"=default-nested", "GOMAXPROCS="+procs)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "NESTED-DEFAULT-OK") {
			t.Fatalf("GOMAXPROCS=%s: child process: %v\n%s", procs, err, out)
		}
	}
}

// Close from inside one of the pool's own tasks would wait for itself: it
// panics, naming Close, and the pool still works and closes from outside.
func TestCloseFromOwnTaskPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, n := range composeWorkers {
		p := pool.New(pool.WithWorkers(n))
		r := catch(func() {
			//fjvet:ignore close-inside the test checks that it panics
			forkjoin.Invoke(p, func(w *pool.Worker) int { p.Close(); return 0 })
		})
		pe, ok := r.(*pool.PanicError)
		if !ok {
			t.Fatalf("workers=%d: Close in a task: recovered %#v, want a *pool.PanicError", n, r)
		}
		msg := fmt.Sprint(pe.Value)
		if !strings.Contains(msg, "Close") || !strings.Contains(msg, "from outside") {
			t.Errorf("workers=%d: message does not name Close and the fix: %q", n, msg)
		}
		if p.Closed() {
			t.Errorf("workers=%d: the refused Close closed the pool", n)
		}
		if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoin(w, 12) }); got != fibSeq(12) {
			t.Errorf("workers=%d: fib(12) after the refused Close = %d", n, got)
		}
		p.Close()
	}
}

// Every method of a nil *Pool panics with a message that says so.
func TestNilPoolMethodsPanic(t *testing.T) {
	var p *pool.Pool
	calls := map[string]func(){
		"Workers": func() { p.Workers() },
		"Name":    func() { p.Name() },
		"Pool":    func() { p.Pool() },
		"Close":   func() { p.Close() },
		"Closed":  func() { p.Closed() },
		"Run":     func() { p.Run(func(*pool.Worker) {}) },
		"Stats":   func() { p.Stats() },
		"Region":  func() { pool.Region(p, "r", func(*pool.Worker) {}) },
		"Invoke":  func() { forkjoin.Invoke(p, func(*pool.Worker) int { return 0 }) },
	}
	for name, f := range calls {
		msg := panicMessage(catch(f))
		if !strings.Contains(msg, "nil *Pool") {
			t.Errorf("%s on a nil *Pool: panic message %q, want one that says \"nil *Pool\"", name, msg)
		}
	}
}

// A *Worker used on a goroutine that is not running its task panics with
// a message that names the mistake, in every build: the check is a
// goroutine id read and a load.
func TestCheckWorkerOnForeignGoroutine(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	got := forkjoin.Invoke(p, func(w *pool.Worker) any {
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			for i := 0; i < 16; i++ {
				//fjvet:ignore captured-worker the check under test: a captured worker panics
				forkjoin.Join(w,
					func(*pool.Worker) int { return 1 },
					func(*pool.Worker) int { return 2 })
			}
		}()
		//fjvet:ignore blocking waits for the goroutine the test started
		return <-done
	})
	msg := panicMessage(got)
	if !strings.Contains(msg, "not running its task") || !strings.Contains(msg, "use the worker your own function received") {
		t.Fatalf("Join with a worker on a foreign goroutine: panic %q, want the debug check's message", msg)
	}
}

// The same mistake in its most common form: a parallel loop's body uses
// the enclosing task's worker, captured, instead of its own, and runs on
// another worker (forced: iteration 0 waits, without helping, until
// iteration 1 has started, which only a thief can do).
func TestCheckCapturedOuterWorker(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	r := catch(func() {
		forkjoin.Invoke(p, func(outer *pool.Worker) int {
			var started atomic.Bool
			// A task per item (WithContext splits eagerly): lazy
			// splitting would run both items in order on this worker
			// when the other is not idle at the start.
			opt, _ := parallel.WithContext(context.Background())
			parallel.For(outer, 0, 2, func(w *pool.Worker, i int) {
				if i == 0 {
					for !started.Load() {
						// Not helping: only a thief can start i == 1. A
						// fork publishes item 1, which may be private to
						// this worker (work-first), once the other is idle.
						forkjoin.Join(w, func(*pool.Worker) int { return 0 }, func(*pool.Worker) int { return 0 })
						//fjvet:ignore blocking waits for a thief without helping, on purpose
						time.Sleep(time.Millisecond)
					}
					return
				}
				started.Store(true)
				if w == outer {
					panic("iteration 1 ran on the outer worker: the test's premise failed")
				}
				for k := 0; k < 16; k++ {
					//fjvet:ignore captured-worker the check under test: a captured worker panics
					forkjoin.Join(outer, // the mistake: outer, not w
						func(*pool.Worker) int { return 1 },
						func(*pool.Worker) int { return 2 })
				}
			}, opt)
			return 0
		})
	})
	msg := panicMessage(r)
	if !strings.Contains(msg, "not running its task") {
		t.Fatalf("captured outer worker: panic %q, want the debug check's message", msg)
	}
}
