package taskblock_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// work is a little computation that keeps a task busy for a moment, so
// that a Define that returned early would find tasks still running.
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

// sink keeps the results of work alive.
var sink atomic.Int64

// Define returns only when every task run in the block has finished, the
// tasks run by the tasks included: 500 tasks that each run 3 more, 50
// times over, counted right after each Define and again after the pool
// has closed (a task that ran late would show there).
func TestDefineWaitsForTasksOfTasks(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const tasks, children = 500, 3
	const want = tasks * (1 + children)
	rounds := small(50, 10)
	for _, workers := range workerCounts {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		counts := make([]atomic.Int64, rounds)
		for r := range counts {
			ran := &counts[r]
			body := func(b *taskblock.Block) {
				for i := 0; i < tasks; i++ {
					b.Run(func(tw *pool.Worker) {
						for j := 0; j < children; j++ {
							b.RunFrom(tw, func(*pool.Worker) {
								sink.Add(int64(work(200)))
								ran.Add(1)
							})
						}
						sink.Add(int64(work(100)))
						ran.Add(1)
					})
				}
			}
			if r%2 == 0 {
				// From the pool: the calling goroutine blocks.
				taskblock.Define(p, body)
				if got := ran.Load(); got != want {
					t.Fatalf("%s: round %d: Define(pool) returned after %d of %d tasks", where, r, got, want)
				}
			} else {
				// From a worker: Define waits by running tasks.
				got := forkjoin.Invoke(p, func(w *pool.Worker) int64 {
					taskblock.Define(w, body)
					return ran.Load()
				})
				if got != want {
					t.Fatalf("%s: round %d: Define(worker) returned after %d of %d tasks", where, r, got, want)
				}
			}
		}
		p.Close()
		for r := range counts {
			if got := counts[r].Load(); got != want {
				t.Fatalf("%s: round %d: %d tasks ran in all, want %d", where, r, got, want)
			}
		}
	}
}

// runTree runs, as a task of b, a task that runs fanout more tasks, to the
// given depth, each counting itself once its children are scheduled.
func runTree(w *pool.Worker, b *taskblock.Block, depth, fanout int, ran *atomic.Int64) {
	b.RunFrom(w, func(w *pool.Worker) {
		if depth > 0 {
			for i := 0; i < fanout; i++ {
				runTree(w, b, depth-1, fanout, ran)
			}
		}
		sink.Add(int64(work(50)))
		ran.Add(1)
	})
}

// The same with tasks that run tasks recursively, to depth 3.
func TestDefineWaitsForRecursiveTasks(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const tasks, fanout, depth = 500, 3, 3
	const want = tasks * (1 + 3 + 9 + 27)
	rounds := small(50, 5)
	for _, workers := range workerCounts {
		p := pool.New(pool.WithWorkers(workers))
		counts := make([]atomic.Int64, rounds)
		for r := range counts {
			taskblock.Define(p, func(b *taskblock.Block) {
				for i := 0; i < tasks; i++ {
					runTree(b.Worker(), b, depth, fanout, &counts[r])
				}
			})
			if got := counts[r].Load(); got != want {
				t.Fatalf("workers=%d: round %d: Define returned after %d of %d tasks", workers, r, got, want)
			}
		}
		p.Close()
		for r := range counts {
			if got := counts[r].Load(); got != want {
				t.Fatalf("workers=%d: round %d: %d tasks ran in all, want %d", workers, r, got, want)
			}
		}
	}
}

// Wait is a join point: when it returns, the results of every task run so
// far (and of the tasks they ran) can be read, without further
// synchronisation (the race detector checks that part). Then the body runs
// more tasks, which read the first results, and waits again.
func TestWaitIsAJoinPoint(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	const n = 64
	for _, workers := range workerCounts {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(20, 5); round++ {
			var first, second [n]int
			var third [n]int
			var afterLastWait [n]int
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Wait() // nothing run yet: returns at once
				for i := 0; i < n; i++ {
					b.Run(func(tw *pool.Worker) {
						first[i] = 1000 + i
						// A task run by a task: Wait covers it too.
						b.RunFrom(tw, func(*pool.Worker) { third[i] = work(100) + i })
					})
				}
				b.Wait()
				for i := 0; i < n; i++ {
					if first[i] != 1000+i {
						t.Errorf("%s: after the first Wait, first[%d] = %d, want %d", where, i, first[i], 1000+i)
					}
					if want := work(100) + i; third[i] != want {
						t.Errorf("%s: after the first Wait, third[%d] = %d, want %d", where, i, third[i], want)
					}
				}
				// More tasks, which read the first results; another Wait.
				for i := 0; i < n; i++ {
					b.Run(func(*pool.Worker) { second[i] = first[i] + first[n-1-i] })
				}
				b.Wait()
				b.Wait() // twice in a row is fine
				for i := 0; i < n; i++ {
					if want := 2000 + n - 1; second[i] != want {
						t.Errorf("%s: after the second Wait, second[%d] = %d, want %d", where, i, second[i], want)
					}
				}
				// Tasks after the last Wait: Define waits for them.
				for i := 0; i < n; i++ {
					b.Run(func(*pool.Worker) { afterLastWait[i] = second[i] + i })
				}
			})
			for i := 0; i < n; i++ {
				if want := 2000 + n - 1 + i; afterLastWait[i] != want {
					t.Fatalf("%s: after Define, afterLastWait[%d] = %d, want %d", where, i, afterLastWait[i], want)
				}
			}
		}
		// Wait in nested blocks, whose bodies run on whichever worker
		// their task landed on.
		var got int
		taskblock.Define(p, func(b *taskblock.Block) { got = sumWait(b.Worker(), buildTree(small(12, 8))) })
		if want := sumSeq(buildTree(small(12, 8))); got != want {
			t.Fatalf("%s: tree walk with Wait = %d, want %d", where, got, want)
		}
		p.Close()
	}
}

// sumWait is the tree walk with a Wait in each body: the body itself reads
// the results of its tasks and combines them.
func sumWait(w *pool.Worker, n *treeNode) int {
	if n == nil {
		return 0
	}
	var sum int
	taskblock.Define(w, func(b *taskblock.Block) {
		var left, right int
		b.Run(func(w *pool.Worker) { left = sumWait(w, n.left) })
		b.Run(func(w *pool.Worker) { right = sumWait(w, n.right) })
		b.Wait()
		sum = n.value + left + right
	})
	return sum
}

// Run, Go and Wait on a block whose Define has returned panic, saying so.
func TestUseAfterDefineReturned(t *testing.T) {
	fjtest.Deadline(t, 10*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	var escaped, escapedErr, escapedNested *taskblock.Block
	taskblock.Define(p, func(b *taskblock.Block) {
		//fjvet:ignore escaping-block the test keeps the block to show that using it later panics
		escaped = b
		b.Run(func(*pool.Worker) {})
	})
	if err := taskblock.DefineErr(p, func(b *taskblock.Block) error {
		//fjvet:ignore escaping-block the test keeps the block to show that using it later panics
		escapedErr = b
		b.Go(func(*pool.Worker) error { return nil })
		return nil
	}); err != nil {
		t.Fatalf("DefineErr = %v, want nil", err)
	}
	var ran atomic.Bool
	noop := func(*pool.Worker) { ran.Store(true) }
	noopErr := func(*pool.Worker) error { ran.Store(true); return nil }

	check := func(what string, f func()) {
		t.Helper()
		msg := panicMessage(catch(f))
		if msg == "" {
			t.Errorf("%s: did not panic (or not with a string or error)", what)
			return
		}
		if !strings.Contains(msg, "returned") {
			t.Errorf("%s: panicked with %q, want a message saying Define has returned", what, msg)
		}
	}
	check("Run after Define returned", func() { escaped.Run(noop) })
	check("Wait after Define returned", func() { escaped.Wait() })
	check("Run after DefineErr returned", func() { escapedErr.Run(noop) })
	check("Go after DefineErr returned", func() { escapedErr.Go(noopErr) })
	check("Wait after DefineErr returned", func() { escapedErr.Wait() })

	// The same from inside another task, on a worker, and for a block
	// whose Define was nested in a task.
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		taskblock.Define(w, func(b *taskblock.Block) {
			b.Run(func(w *pool.Worker) {
				//fjvet:ignore escaping-block the test keeps the block to show that using it later panics
				taskblock.Define(w, func(b *taskblock.Block) { escapedNested = b })
			})
		})
		check("Run after a nested Define returned, from a task", func() { escapedNested.Run(noop) })
		check("Wait after a nested Define returned, from a task", func() { escapedNested.Wait() })
		check("Run after Define returned, from a task", func() { escaped.Run(noop) })
		return 0
	})
	// Canceled and Worker still answer.
	if escaped.Canceled() {
		t.Error("Canceled() = true for a block whose tasks all succeeded")
	}
	if escaped.Worker() == nil {
		t.Error("Worker() = nil after Define returned")
	}
	if ran.Load() {
		t.Error("a function passed to Run or Go after Define returned was called")
	}
	stillWorks(t, p, "after use of finished blocks")
}

// nil bodies, functions and Runners panic with a message that names the
// problem, and the pool stays usable.
func TestNilArguments(t *testing.T) {
	fjtest.Deadline(t, 10*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	body := func(*taskblock.Block) {}
	bodyErr := func(*taskblock.Block) error { return nil }

	check := func(what string, r any, want string) {
		t.Helper()
		msg := panicMessage(r)
		if msg == "" {
			t.Errorf("%s: recovered %#v, want a panic with a message", what, r)
			return
		}
		if !strings.Contains(msg, want) {
			t.Errorf("%s: panicked with %q, want it to mention %q", what, msg, want)
		}
	}
	check("Define(p, nil)", catch(func() { taskblock.Define(p, nil) }), "nil body")
	check("DefineErr(p, nil)", catch(func() { taskblock.DefineErr(p, nil) }), "nil body")
	check("Define(nil Runner)", catch(func() { taskblock.Define(nil, body) }), "nil")
	check("DefineErr(nil Runner)", catch(func() { taskblock.DefineErr(nil, bodyErr) }), "nil")
	check("Define(nil *pool.Worker)", catch(func() { taskblock.Define((*pool.Worker)(nil), body) }), "nil")
	check("DefineErr(nil *pool.Worker)", catch(func() { taskblock.DefineErr((*pool.Worker)(nil), bodyErr) }), "nil")
	check("Define(nil *pool.Pool)", catch(func() { taskblock.Define((*pool.Pool)(nil), body) }), "nil")

	// Run(nil) and Go(nil) in a body: the body panics, and Define raises
	// that panic as it does any other.
	r := catch(func() { taskblock.Define(p, func(b *taskblock.Block) { b.Run(nil) }) })
	ps := asPanics(t, "Run(nil)", r, 1)
	if ps != nil {
		check("Run(nil)", ps[0].Value, "nil function")
	}
	r = catch(func() {
		taskblock.DefineErr(p, func(b *taskblock.Block) error { b.Go(nil); return nil })
	})
	ps = asPanics(t, "Go(nil)", r, 1)
	if ps != nil {
		check("Go(nil)", ps[0].Value, "nil function")
	}
	// A nil function given to Run by a task.
	r = catch(func() {
		taskblock.Define(p, func(b *taskblock.Block) {
			b.Run(func(*pool.Worker) { b.Run(nil) })
		})
	})
	ps = asPanics(t, "Run(nil) in a task", r, 1)
	if ps != nil {
		check("Run(nil) in a task", ps[0].Value, "nil function")
	}
	stillWorks(t, p, "after nil arguments")

	// A closed pool.
	q := pool.New(pool.WithWorkers(1))
	q.Close()
	check("Define on a closed pool", catch(func() { taskblock.Define(q, body) }), "closed")
}

// Define works from a *pool.Pool (the body runs on one of its workers, the
// caller blocks) and from a *pool.Worker (the body runs right there, on
// the calling goroutine's worker).
func TestDefineFromPoolAndWorker(t *testing.T) {
	fjtest.Deadline(t, 10*time.Second)
	for _, workers := range workerCounts {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))

		var bodyWorker *pool.Worker
		var taskRan atomic.Bool
		taskblock.Define(p, func(b *taskblock.Block) {
			bodyWorker = b.Worker()
			b.Run(func(w *pool.Worker) {
				if w.Pool() != p {
					t.Errorf("%s: task runs on a worker of pool %p, want %p", where, w.Pool(), p)
				}
				taskRan.Store(true)
			})
		})
		if bodyWorker == nil {
			t.Fatalf("%s: Define(pool): b.Worker() = nil", where)
		}
		if bodyWorker.Pool() != p {
			t.Errorf("%s: Define(pool): b.Worker() belongs to pool %p, want %p", where, bodyWorker.Pool(), p)
		}
		if id := bodyWorker.ID(); id < 0 || id >= workers {
			t.Errorf("%s: Define(pool): b.Worker().ID() = %d, want 0..%d", where, id, workers-1)
		}
		if !taskRan.Load() {
			t.Errorf("%s: Define(pool) returned before its task ran", where)
		}

		forkjoin.Invoke(p, func(w *pool.Worker) int {
			inline := false
			taskblock.Define(w, func(b *taskblock.Block) {
				inline = true // a plain variable: the body ran on this goroutine
				if b.Worker() != w {
					t.Errorf("%s: Define(worker): b.Worker() = %p, want the calling worker %p", where, b.Worker(), w)
				}
				// A nested block in a task gets the task's worker.
				b.Run(func(tw *pool.Worker) {
					taskblock.Define(tw, func(nb *taskblock.Block) {
						if nb.Worker() != tw {
							t.Errorf("%s: nested Define: b.Worker() = %p, want the task's worker %p", where, nb.Worker(), tw)
						}
					})
				})
			})
			if !inline {
				t.Errorf("%s: Define(worker) returned without running the body", where)
			}
			err := taskblock.DefineErr(w, func(b *taskblock.Block) error {
				if b.Worker() != w {
					t.Errorf("%s: DefineErr(worker): b.Worker() = %p, want %p", where, b.Worker(), w)
				}
				return nil
			})
			if err != nil {
				t.Errorf("%s: DefineErr(worker) = %v, want nil", where, err)
			}
			return 0
		})

		// The Runner interface value, not the concrete type.
		var r pool.Runner = p
		n := 0
		taskblock.Define(r, func(*taskblock.Block) { n++ })
		if n != 1 {
			t.Errorf("%s: Define(Runner) ran the body %d times", where, n)
		}
		p.Close()
	}
}
