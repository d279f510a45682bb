package taskblock_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/internal/schedtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// taskError is a panic value that is an error, for errors.Is and As.
type taskError struct{ id int }

func (e *taskError) Error() string { return fmt.Sprintf("task error %d", e.id) }

// The panicking functions are named so that the captured stacks can be
// checked for them.

//go:noinline
func panicInTask(v any) { panic(v) }

//go:noinline
func panicInBody(v any) { panic(v) }

// asPanics checks that r, a recovered value, is a taskblock.Panics with n
// panics, each a *pool.PanicError with a stack, and that errors.As finds it.
func asPanics(t *testing.T, where string, r any, n int) taskblock.Panics {
	t.Helper()
	ps, ok := r.(taskblock.Panics)
	if !ok {
		t.Errorf("%s: recovered %#v (%T), want a taskblock.Panics", where, r, r)
		return nil
	}
	var as taskblock.Panics
	if !errors.As(error(ps), &as) || len(as) != len(ps) {
		t.Errorf("%s: errors.As(Panics, *Panics) did not find it", where)
	}
	if len(ps) != n {
		t.Errorf("%s: %d panics captured, want %d: %v", where, len(ps), n, ps)
		return nil
	}
	for i, pe := range ps {
		if pe.PanicError == nil {
			t.Errorf("%s: panic %d is nil", where, i)
			return nil
		}
		if len(pe.Stack) == 0 {
			t.Errorf("%s: panic %d (%v) has no stack", where, i, pe.Value)
		}
	}
	return ps
}

// hasFrame reports whether a captured stack shows a call of the named
// function of this package.
func hasFrame(stack []byte, fn string) bool {
	return bytes.Contains(stack, []byte("taskblock_test."+fn+"("))
}

// Several tasks panic, all of them after every one has started: Define
// re-panics once, with all their values and stacks, after all of them have
// finished. The tasks wait for each other on a schedtest.Countdown, which parks
// them instead of blocking their worker, so any number of them can be
// started at once on any number of workers (one included). In the second
// half of each round, the body is a participant and panics too.
func TestPanicsFromSeveralTasks(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const n = 5
	for _, workers := range workerCounts {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(20, 5); round++ {
			for _, bodyToo := range []bool{false, true} {
				where := fmt.Sprintf("workers=%d round %d bodyToo=%v", workers, round, bodyToo)
				errs := make([]*taskError, n)
				for i := range errs {
					errs[i] = &taskError{i}
				}
				var started schedtest.Countdown
				started.Add(n)
				if bodyToo {
					started.Add(1)
				}
				var finished [n]atomic.Bool
				var finishedAtRecover [n]bool
				r := catch(func() {
					defer func() {
						// Runs while Define's panic unwinds, before catch
						// recovers it.
						for i := range finished {
							finishedAtRecover[i] = finished[i].Load()
						}
					}()
					taskblock.Define(p, func(b *taskblock.Block) {
						for i := 0; i < n; i++ {
							b.Run(func(w *pool.Worker) {
								defer finished[i].Store(true)
								started.Done()
								schedtest.W(w).WaitFor(started.Event()) // every task (and the body) has started
								panicInTask(errs[i])
							})
						}
						if bodyToo {
							started.Done()
							schedtest.W(b.Worker()).WaitFor(started.Event())
							panicInBody("body")
						}
					})
				})
				want := n
				if bodyToo {
					want++
				}
				ps := asPanics(t, where, r, want)
				if ps == nil {
					continue
				}
				for i := range finishedAtRecover {
					if !finishedAtRecover[i] {
						t.Errorf("%s: Define panicked before task %d had finished", where, i)
					}
				}
				var got []int
				sawBody := false
				for _, pe := range ps {
					switch v := pe.Value.(type) {
					case *taskError:
						got = append(got, v.id)
						if !hasFrame(pe.Stack, "panicInTask") {
							t.Errorf("%s: the stack of %v does not show panicInTask:\n%s", where, v, pe.Stack)
						}
					case string:
						if v != "body" || sawBody {
							t.Errorf("%s: unexpected panic value %q", where, v)
						}
						sawBody = true
						if !hasFrame(pe.Stack, "panicInBody") {
							t.Errorf("%s: the stack of the body's panic does not show panicInBody:\n%s", where, pe.Stack)
						}
					default:
						t.Errorf("%s: unexpected panic value %#v", where, pe.Value)
					}
				}
				slices.Sort(got)
				if !slices.Equal(got, []int{0, 1, 2, 3, 4}) {
					t.Errorf("%s: task panics %v, want each of 0..4 once", where, got)
				}
				if bodyToo && !sawBody {
					t.Errorf("%s: the body's panic is missing", where)
				}
				// errors.Is and As see through to every value.
				for _, e := range errs {
					if !errors.Is(ps, e) {
						t.Errorf("%s: errors.Is(Panics, %v) = false", where, e)
					}
				}
				var te *taskError
				if !errors.As(ps, &te) {
					t.Errorf("%s: errors.As(Panics, *taskError) = false", where)
				}
				if errors.Is(ps, &taskError{0}) {
					t.Errorf("%s: errors.Is matched an error that never panicked", where)
				}
				msg := ps.Error()
				if !strings.Contains(msg, fmt.Sprintf("%d panics:", want)) {
					t.Errorf("%s: Error() does not give the count %d:\n%s", where, want, msg)
				}
				for _, e := range errs {
					if !strings.Contains(msg, e.Error()) {
						t.Errorf("%s: Error() does not show %q", where, e)
					}
				}
			}
		}
		stillWorks(t, p, fmt.Sprintf("workers=%d, after several panics", workers))
		p.Close()
	}
}

// The same with tasks that spin (without parking or helping) until all
// have started: with as many tasks as workers, each must run on its own
// worker, the body's included.
func TestPanicsFromTasksOnEveryWorker(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(50, 5); round++ {
			where := fmt.Sprintf("workers=%d round %d", workers, round)
			var started atomic.Int64
			finished := make([]atomic.Bool, workers)
			ids := make([]int, workers)
			var finishedAtRecover []bool
			r := catch(func() {
				defer func() {
					for i := range finished {
						finishedAtRecover = append(finishedAtRecover, finished[i].Load())
					}
				}()
				taskblock.Define(p, func(b *taskblock.Block) {
					for i := 0; i < workers; i++ {
						b.Run(func(w *pool.Worker) {
							defer finished[i].Store(true)
							ids[i] = w.ID()
							started.Add(1)
							for started.Load() < int64(workers) {
								spin(w)
							}
							panicInTask(i)
						})
					}
				})
			})
			ps := asPanics(t, where, r, workers)
			if ps == nil {
				continue
			}
			var got []int
			for _, pe := range ps {
				v, _ := pe.Value.(int)
				got = append(got, v)
				if !hasFrame(pe.Stack, "panicInTask") {
					t.Errorf("%s: the stack of panic %v does not show panicInTask:\n%s", where, pe.Value, pe.Stack)
				}
			}
			slices.Sort(got)
			for i, v := range got {
				if v != i {
					t.Fatalf("%s: panic values %v, want 0..%d once each", where, got, workers-1)
				}
			}
			for i, f := range finishedAtRecover {
				if !f {
					t.Errorf("%s: Define panicked before task %d had finished", where, i)
				}
			}
			slices.Sort(ids)
			if u := slices.Compact(slices.Clone(ids)); len(u) != workers {
				t.Errorf("%s: the tasks ran on workers %v, want one each", where, ids)
			}
		}
		stillWorks(t, p, fmt.Sprintf("workers=%d, after panics on every worker", workers))
		p.Close()
	}
}

// A panic in the body, after it started tasks that are still running: the
// tasks finish (they are not cut short), then Define re-panics with the
// body's panic alone.
func TestPanicInBodyWaitsForTasks(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const k = 4
	for _, workers := range workerCounts {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(20, 5); round++ {
			where := fmt.Sprintf("workers=%d round %d", workers, round)
			var started schedtest.Countdown
			started.Add(k)
			var bodyPanicking sched.Latch
			var finished [k]atomic.Bool
			var sums [k]int
			var finishedAtRecover [k]bool
			tree := buildTree(8)
			r := catch(func() {
				defer func() {
					for i := range finished {
						finishedAtRecover[i] = finished[i].Load()
					}
				}()
				taskblock.Define(p, func(b *taskblock.Block) {
					for i := 0; i < k; i++ {
						b.Run(func(w *pool.Worker) {
							started.Done()
							schedtest.W(w).WaitFor(&bodyPanicking)
							// Still running, and forking, after the
							// body's panic.
							sums[i] = sumBlock(w, tree)
							finished[i].Store(true)
						})
					}
					schedtest.W(b.Worker()).WaitFor(started.Event()) // all tasks are running
					bodyPanicking.Set()
					panicInBody("body after starting tasks")
				})
			})
			ps := asPanics(t, where, r, 1)
			if ps == nil {
				continue
			}
			if ps[0].Value != "body after starting tasks" {
				t.Errorf("%s: panic value %#v, want the body's", where, ps[0].Value)
			}
			if !hasFrame(ps[0].Stack, "panicInBody") {
				t.Errorf("%s: the stack does not show panicInBody:\n%s", where, ps[0].Stack)
			}
			if msg := ps.Error(); !strings.Contains(msg, "the body panicked: body after starting tasks") {
				t.Errorf("%s: Error() = %q", where, msg)
			}
			for i := range finishedAtRecover {
				if !finishedAtRecover[i] {
					t.Errorf("%s: Define panicked before task %d had finished", where, i)
				}
				if want := sumSeq(tree); sums[i] != want {
					t.Errorf("%s: task %d computed %d, want %d", where, i, sums[i], want)
				}
			}
		}
		stillWorks(t, p, fmt.Sprintf("workers=%d, after panics in bodies", workers))
		p.Close()
	}
}

// After a panic the block is canceled: tasks that are queued but have not
// started are skipped, and Run starts nothing. To make "not started"
// certain, nothing may be free to run the queued tasks before the panic:
// on one worker, the panicking task is run last, so the worker takes it
// first (its deque is LIFO); on more, every worker but the body's runs a
// task that spins until the block is canceled (one of them panics once the
// body has queued its tasks), and the body spins too, so no worker is free
// to take the queued tasks until the block is canceled. In the "body"
// variant the body panics itself right after queueing them.
func TestPanicSkipsTasksNotStarted(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const m = 100
	for _, workers := range workerCounts {
		p := pool.New(pool.WithWorkers(workers)) // one worker takes the tasks in order
		for _, who := range []string{"task", "body"} {
			for round := 0; round < small(20, 5); round++ {
				where := fmt.Sprintf("workers=%d %s panics, round %d", workers, who, round)
				var spinning atomic.Int64
				var queued atomic.Bool
				var ran, runAfterCancel atomic.Int64
				canceledAfterWait := true
				r := catch(func() {
					taskblock.Define(p, func(b *taskblock.Block) {
						// Occupy every other worker; the first of these
						// tasks is the one that panics.
						for i := 0; i < workers-1; i++ {
							b.Run(func(*pool.Worker) {
								spinning.Add(1)
								for !b.Canceled() {
									if i == 0 && who == "task" && queued.Load() {
										panicInTask("task")
									}
									runtime.Gosched()
								}
							})
						}
						for spinning.Load() < int64(workers-1) {
							spin(b.Worker())
						}
						// Nobody is free to run these.
						for i := 0; i < m; i++ {
							b.Run(func(*pool.Worker) { ran.Add(1) })
						}
						if who == "body" {
							panicInBody("body")
						}
						if workers == 1 {
							// Last in, first out: the worker runs it
							// before any of the m tasks.
							b.Run(func(*pool.Worker) { panicInTask("task") })
						} else {
							queued.Store(true)
							for !b.Canceled() {
								runtime.Gosched()
							}
						}
						b.Wait()
						canceledAfterWait = b.Canceled()
						// Canceled: Run starts nothing any more.
						for i := 0; i < m; i++ {
							b.Run(func(*pool.Worker) { runAfterCancel.Add(1) })
						}
					})
				})
				ps := asPanics(t, where, r, 1)
				if ps != nil && ps[0].Value != who {
					t.Errorf("%s: panic value %#v, want %q", where, ps[0].Value, who)
				}
				if got := ran.Load(); got != 0 {
					t.Errorf("%s: %d of %d queued tasks ran after the panic, want all %d skipped", where, got, m, m)
				}
				if !canceledAfterWait {
					t.Errorf("%s: Canceled() = false after a task panicked", where)
				}
				if got := runAfterCancel.Load(); got != 0 {
					t.Errorf("%s: %d tasks run after the cancellation ran", where, got)
				}
			}
		}
		stillWorks(t, p, fmt.Sprintf("workers=%d, after skipped tasks", workers))
		p.Close()
	}
}

// A panic deep inside nested blocks reaches the top: each block re-panics
// with Panics, the enclosing task captures it as the value of a
// *pool.PanicError, and errors.Is and As find the original value through
// every level. A *pool.PanicError raised by a Join inside a task keeps
// the stack of its origin.
func TestPanicThroughNestedBlocks(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	errLeaf := &taskError{42}
	for _, workers := range workerCounts {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		tree := buildTree(small(10, 7))

		r := catch(func() {
			taskblock.Define(p, func(b *taskblock.Block) { sumPanic(b.Worker(), tree, 3, errLeaf) })
		})
		ps := asPanics(t, where+": nested blocks", r, 1)
		if ps != nil {
			if !errors.Is(ps, errLeaf) {
				t.Errorf("%s: errors.Is(Panics, leaf error) = false through nested blocks: %v", where, ps)
			}
			var te *taskError
			if !errors.As(ps, &te) || te != errLeaf {
				t.Errorf("%s: errors.As(Panics, *taskError) = %v, want the leaf's", where, te)
			}
			// The leaf's own PanicError, with the leaf's stack, is in
			// there; the inner levels are Panics values.
			var inner taskblock.Panics
			if v, ok := ps[0].Value.(taskblock.Panics); !ok {
				t.Errorf("%s: the outer panic's value is %T, want the inner block's Panics", where, ps[0].Value)
			} else {
				inner = v
			}
			for len(inner) > 0 {
				if next, ok := inner[0].Value.(taskblock.Panics); ok {
					inner = next
					continue
				}
				if inner[0].Value != errLeaf || !hasFrame(inner[0].Stack, "panicInTask") {
					t.Errorf("%s: innermost panic %#v, stack:\n%s", where, inner[0].Value, inner[0].Stack)
				}
				break
			}
		}

		// A Join in a task raises a *pool.PanicError; the block keeps it
		// as is, with the stack of the Join's fb.
		r = catch(func() {
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Run(func(w *pool.Worker) {
					forkjoin.Join(w,
						func(w *pool.Worker) int { return sumBlock(w, buildTree(5)) },
						func(*pool.Worker) int { panicInTask(errLeaf); return 0 })
				})
			})
		})
		if ps := asPanics(t, where+": Join in a task", r, 1); ps != nil {
			if ps[0].Value != errLeaf || !hasFrame(ps[0].Stack, "panicInTask") {
				t.Errorf("%s: Join in a task: panic %#v with stack:\n%s", where, ps[0].Value, ps[0].Stack)
			}
		}

		// panic(nil) in a task is a panic too (a *runtime.PanicNilError).
		r = catch(func() {
			taskblock.Define(p, func(b *taskblock.Block) {
				b.Run(func(*pool.Worker) { panicInTask(nil) })
			})
		})
		if ps := asPanics(t, where+": panic(nil)", r, 1); ps != nil {
			var pne *runtime.PanicNilError
			if !errors.As(ps, &pne) {
				t.Errorf("%s: panic(nil) captured as %#v, want a *runtime.PanicNilError", where, ps[0].Value)
			}
		}

		// A panic in a block nested in the body of a DefineErr block.
		r = catch(func() {
			_ = taskblock.DefineErr(p, func(b *taskblock.Block) error {
				taskblock.Define(b.Worker(), func(nb *taskblock.Block) {
					nb.Run(func(*pool.Worker) { panicInTask(errLeaf) })
				})
				return nil
			})
		})
		if ps := asPanics(t, where+": nested in DefineErr", r, 1); ps != nil && !errors.Is(ps, errLeaf) {
			t.Errorf("%s: nested in DefineErr: errors.Is = false: %v", where, ps)
		}
		stillWorks(t, p, where+", after nested panics")
		p.Close()
	}
}

// sumPanic is the tree walk with a panic in one node: the leftmost one bad
// levels below the root.
func sumPanic(w *pool.Worker, n *treeNode, bad int, v any) int {
	if n == nil {
		return 0
	}
	if bad == 0 {
		panicInTask(v)
	}
	var left, right int
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(w *pool.Worker) { left = sumPanic(w, n.left, bad-1, v) })
		b.Run(func(w *pool.Worker) { right = sumPanic(w, n.right, -1, v) })
	})
	return n.value + left + right
}
