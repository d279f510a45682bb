package taskblock_test

import (
	"errors"
	"fmt"
	"math"
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

var (
	errFirst = errors.New("first error")
	errLater = errors.New("later error")
	errBody  = errors.New("body error")
)

// DefineErr returns nil when the body and every task succeed, and waits for
// all of them, tasks of tasks included.
func TestDefineErrAllSucceed(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range workerCounts {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(20, 5); round++ {
			var ran atomic.Int64
			var canceled bool
			err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
				for i := 0; i < 100; i++ {
					b.Go(func(tw *pool.Worker) error {
						b.GoFrom(tw, func(*pool.Worker) error { ran.Add(1); return nil })
						b.RunFrom(tw, func(*pool.Worker) { ran.Add(1) }) // Run works in DefineErr blocks too
						ran.Add(1)
						return nil
					})
				}
				b.Wait()
				canceled = b.Canceled()
				return nil
			})
			if err != nil {
				t.Fatalf("workers=%d: DefineErr = %v, want nil", workers, err)
			}
			if canceled {
				t.Fatalf("workers=%d: Canceled() = true although nothing failed", workers)
			}
			if got := ran.Load(); got != 300 {
				t.Fatalf("workers=%d: DefineErr returned after %d of 300 tasks", workers, got)
			}
		}
		p.Close()
	}
}

// The first error cancels the block: Canceled reports it, Go and Run start
// nothing any more, tasks queued and not started are skipped, and
// DefineErr returns that error (and not the errors of tasks that fail
// later, nor the body's).
func TestDefineErrFirstErrorCancels(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const m = 100
	for _, workers := range workerCounts {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(20, 5); round++ {
			var ran atomic.Int64
			var canceledBefore, canceledAfter bool
			err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
				canceledBefore = b.Canceled()
				b.Go(func(*pool.Worker) error { return errFirst })
				b.Wait()
				canceledAfter = b.Canceled()
				for i := 0; i < m; i++ {
					b.Go(func(*pool.Worker) error { ran.Add(1); return errLater })
					b.Run(func(*pool.Worker) { ran.Add(1) })
				}
				return errBody // comes later than the task's error
			})
			if err != errFirst {
				t.Fatalf("%s: DefineErr = %v, want %v", where, err, errFirst)
			}
			if canceledBefore || !canceledAfter {
				t.Fatalf("%s: Canceled() = %v before the error and %v after, want false and true", where, canceledBefore, canceledAfter)
			}
			if got := ran.Load(); got != 0 {
				t.Fatalf("%s: %d tasks started after the block was canceled", where, got)
			}
		}

		// Tasks queued when the error happens are skipped. As in
		// TestPanicSkipsTasksNotStarted, nobody is free to run them before
		// the error: one worker takes the failing task first (LIFO); with
		// more, the other workers spin in tasks until the block is
		// canceled, one of which fails once the tasks are queued.
		for round := 0; round < small(20, 5); round++ {
			var spinning, ran atomic.Int64
			var queued atomic.Bool
			err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
				for i := 0; i < workers-1; i++ {
					b.Go(func(*pool.Worker) error {
						spinning.Add(1)
						for !b.Canceled() {
							if i == 0 && queued.Load() {
								return errFirst
							}
							runtime.Gosched()
						}
						return errLater // fails too, after the first
					})
				}
				for spinning.Load() < int64(workers-1) {
					spin(b.Worker())
				}
				for i := 0; i < m; i++ {
					b.Go(func(*pool.Worker) error { ran.Add(1); return nil })
				}
				if workers == 1 {
					b.Go(func(*pool.Worker) error { return errFirst })
				} else {
					queued.Store(true)
					for !b.Canceled() {
						runtime.Gosched()
					}
				}
				return nil
			})
			if err != errFirst {
				t.Fatalf("%s: DefineErr with queued tasks = %v, want %v", where, err, errFirst)
			}
			if got := ran.Load(); got != 0 {
				t.Fatalf("%s: %d of %d queued tasks ran after the error, want all skipped", where, got, m)
			}
		}
		stillWorks(t, p, where+", after errors")
		p.Close()
	}
}

// A long-running task that polls Canceled stops early when another task
// fails. The failing task waits until the long one has started, and the
// long one parks between its steps, so both run on any number of workers.
func TestDefineErrCanceledStopsLongTask(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	tree := buildTree(6)
	for _, workers := range workerCounts {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		var most int64
		for round := 0; round < small(20, 5); round++ {
			var longStarted sched.Latch
			var steps atomic.Int64
			var sawCancel atomic.Bool
			err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
				b.Go(func(w *pool.Worker) error {
					// Long: it would take hours without the cancellation
					// (and the test's deadline would catch that).
					for i := 0; i < math.MaxInt; i++ {
						if b.Canceled() {
							sawCancel.Store(true)
							return nil
						}
						steps.Add(1)
						longStarted.Set()
						if got, want := sumBlock(w, tree), sumSeq(tree); got != want {
							return fmt.Errorf("step %d: sum %d, want %d", i, got, want)
						}
						waitTurn(w, b)
					}
					return nil
				})
				b.Go(func(w *pool.Worker) error {
					schedtest.W(w).WaitFor(&longStarted)
					return errFirst
				})
				return nil
			})
			if err != errFirst {
				t.Fatalf("%s: DefineErr = %v, want %v", where, err, errFirst)
			}
			if !sawCancel.Load() {
				t.Fatalf("%s: the long task did not see the cancellation", where)
			}
			most = max(most, steps.Load())
		}
		t.Logf("%s: the long task stopped after at most %d steps", where, most)
		stillWorks(t, p, where+", after a canceled long task")
		p.Close()
	}
}

// waitTurn lets w run other tasks for a moment: unless b is canceled, it
// sends a task through the pool's injector and waits for it, parking, so
// that on a busy worker the tasks queued meanwhile get their turn.
func waitTurn(w *pool.Worker, b *taskblock.Block) {
	if b.Canceled() {
		return
	}
	var l sched.Latch
	go w.Pool().Run(func(*pool.Worker) { l.Set() }) // through the injector
	schedtest.W(w).WaitFor(&l)
}

// The body's error is returned when no task failed first; tasks still
// running then see the block canceled, and their later errors are
// ignored.
func TestDefineErrBodyError(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range workerCounts {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(20, 5); round++ {
			var ran atomic.Int64
			var running schedtest.Countdown
			running.Add(3)
			var sawCancel atomic.Int64
			err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
				for i := 0; i < 3; i++ {
					b.Go(func(w *pool.Worker) error {
						running.Done()
						for !b.Canceled() {
							waitTurn(w, b)
						}
						sawCancel.Add(1)
						return errLater
					})
				}
				schedtest.W(b.Worker()).WaitFor(running.Event()) // all three are running
				return errBody
			})
			if err != errBody {
				t.Fatalf("%s: DefineErr = %v, want the body's %v", where, err, errBody)
			}
			if got := sawCancel.Load(); got != 3 {
				t.Fatalf("%s: %d of 3 running tasks saw the cancellation", where, got)
			}
			// The body's error alone, with no task.
			err = taskblock.DefineErr(p, func(b *taskblock.Block) error {
				b.Go(func(*pool.Worker) error { ran.Add(1); return nil })
				return errBody
			})
			if err != errBody {
				t.Fatalf("%s: DefineErr = %v, want %v", where, err, errBody)
			}
			if ran.Load() > 1 {
				t.Fatalf("%s: a task ran twice", where)
			}
		}
		stillWorks(t, p, where+", after body errors")
		p.Close()
	}
}

// Panics take precedence over errors, whichever came first.
func TestDefineErrPanicsTakePrecedence(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range workerCounts {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(20, 5); round++ {
			// A task fails, then the body panics.
			var err error
			r := catch(func() {
				err = taskblock.DefineErr(p, func(b *taskblock.Block) error {
					b.Go(func(*pool.Worker) error { return errFirst })
					b.Wait()
					panicInBody("body panics after a task failed")
					return nil
				})
			})
			if ps := asPanics(t, where+": error then body panic", r, 1); ps != nil {
				if ps[0].Value != "body panics after a task failed" {
					t.Errorf("%s: panic value %#v", where, ps[0].Value)
				}
				if errors.Is(ps, errFirst) {
					t.Errorf("%s: the task's error is among the panics", where)
				}
			}
			if err != nil {
				t.Errorf("%s: DefineErr returned %v although it panicked", where, err)
			}

			// A task fails while another, already running, is about to
			// panic: the panic wins. The tasks wait for each other so
			// that both have started, on any number of workers.
			var panickerStarted, errorReturning sched.Latch
			r = catch(func() {
				_ = taskblock.DefineErr(p, func(b *taskblock.Block) error {
					b.Go(func(w *pool.Worker) error {
						schedtest.W(w).WaitFor(&panickerStarted)
						errorReturning.Set()
						return errFirst
					})
					b.Go(func(w *pool.Worker) error {
						panickerStarted.Set()
						schedtest.W(w).WaitFor(&errorReturning)
						panicInTask("task panics after another failed")
						return nil
					})
					return nil // an error here would cancel the tasks before they start
				})
			})
			if ps := asPanics(t, where+": error and task panic", r, 1); ps != nil {
				if ps[0].Value != "task panics after another failed" || !hasFrame(ps[0].Stack, "panicInTask") {
					t.Errorf("%s: panic %#v, stack:\n%s", where, ps[0].Value, ps[0].Stack)
				}
			}
		}
		stillWorks(t, p, where+", after panics with errors")
		p.Close()
	}
}

// Go is for DefineErr blocks: on a Define block it panics, saying so.
func TestGoOnDefineBlockPanics(t *testing.T) {
	fjtest.Deadline(t, 10*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var ran atomic.Bool
	r := catch(func() {
		taskblock.Define(p, func(b *taskblock.Block) {
			b.Go(func(*pool.Worker) error { ran.Store(true); return nil })
		})
	})
	if ps := asPanics(t, "Go on a Define block", r, 1); ps != nil {
		msg := panicMessage(ps[0].Value)
		if !strings.Contains(msg, "DefineErr") {
			t.Errorf("Go on a Define block panicked with %q, want a message pointing to DefineErr", msg)
		}
		if !hasFrame(ps[0].Stack, "TestGoOnDefineBlockPanics.func1.1") {
			t.Errorf("the stack does not show the body that called Go:\n%s", ps[0].Stack)
		}
	}
	// From a task, too.
	r = catch(func() {
		taskblock.Define(p, func(b *taskblock.Block) {
			b.Run(func(tw *pool.Worker) {
				b.GoFrom(tw, func(*pool.Worker) error { ran.Store(true); return nil })
			})
		})
	})
	if ps := asPanics(t, "Go on a Define block, from a task", r, 1); ps != nil {
		if msg := panicMessage(ps[0].Value); !strings.Contains(msg, "DefineErr") {
			t.Errorf("Go on a Define block, from a task, panicked with %q", msg)
		}
	}
	if ran.Load() {
		t.Error("the function given to Go on a Define block ran")
	}
	stillWorks(t, p, "after Go on a Define block")
}
