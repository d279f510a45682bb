package forkjoin_test

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

type boomError struct{ code int }

func (e *boomError) Error() string { return fmt.Sprintf("boom %d", e.code) }

var (
	errFuture = &boomError{1}
	errFA     = &boomError{2}
	errFB     = &boomError{3}
)

// The panicking functions are named so that the captured stack can be
// checked for them.

//go:noinline
func panicInFuture(*pool.Worker) int { panic(errFuture) }

//go:noinline
func panicInFA(v any) int { panic(v) }

//go:noinline
func panicInFB(v any) int { panic(v) }

//go:noinline
func panicInLeaf(n int) int { panic(fmt.Sprintf("leaf %d", n)) }

// checkPanic checks that r, a recovered value, is a *pool.PanicError for a
// panic with value want raised in the function named fn.
func checkPanic(t *testing.T, where string, r any, want any, fn string) *pool.PanicError {
	t.Helper()
	pe, ok := r.(*pool.PanicError)
	if !ok {
		t.Errorf("%s: recovered %#v (%T), want a *pool.PanicError", where, r, r)
		return nil
	}
	if pe.Value != want {
		t.Errorf("%s: PanicError.Value = %#v, want %#v", where, pe.Value, want)
	}
	if !bytes.Contains(pe.Stack, []byte("forkjoin_test."+fn+"(")) {
		t.Errorf("%s: PanicError.Stack does not show %s:\n%s", where, fn, pe.Stack)
	}
	if !strings.Contains(pe.Error(), fmt.Sprint(want)) {
		t.Errorf("%s: PanicError.Error() = %q, want it to show the value %v", where, pe.Error(), want)
	}
	if werr, ok := want.(*boomError); ok {
		var be *boomError
		if !errors.As(error(pe), &be) || be != werr {
			t.Errorf("%s: errors.As(PanicError, *boomError) = %v, %v; want true, %v", where, be != nil, be, werr)
		}
		if !errors.Is(pe, werr) {
			t.Errorf("%s: errors.Is(PanicError, %v) = false", where, werr)
		}
	}
	return pe
}

// stillWorks checks that p computes correctly after a panic.
func stillWorks(t *testing.T, p *pool.Pool, where string) {
	t.Helper()
	n := small(18, 12)
	if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoin(w, n) }); got != fibSeq(n) {
		t.Fatalf("%s: fib(%d) afterwards = %d, want %d", where, n, got, fibSeq(n))
	}
}

func TestPanicAtFutureJoin(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range poolSizes {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		for i := 0; i < small(20, 5); i++ {
			var r1, r2 any
			r := catch(func() {
				forkjoin.Invoke(p, func(w *pool.Worker) int {
					f := forkjoin.Fork(w, panicInFuture)
					fibJoin(w, 10) // give others a chance to steal f
					r1 = catch(func() { f.Join(w) })
					r2 = catch(func() { f.Join(w) })
					return 0
				})
			})
			if r != nil {
				t.Fatalf("%s: the panic escaped the task that recovered it: %v", where, r)
			}
			pe := checkPanic(t, where+": Future.Join", r1, errFuture, "panicInFuture")
			if r2 != any(pe) {
				t.Errorf("%s: second Join raised %#v, want the same *PanicError %p", where, r2, pe)
			}

			// Not recovered in the task: Invoke's caller gets the same
			// PanicError, with the stack of the origin.
			r = catch(func() {
				forkjoin.Invoke(p, func(w *pool.Worker) int { return forkjoin.Fork(w, panicInFuture).Join(w) })
			})
			checkPanic(t, where+": Invoke of a Future.Join", r, errFuture, "panicInFuture")
		}
		stillWorks(t, p, where)
		p.Close()
	}
}

func TestPanicInFA(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range poolSizes {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		// One record per Join: whether its fb had started (and ended) when
		// the Join's panic was recovered, and the live flag, checked again
		// after Close.
		type record struct {
			started, ended bool
			flag           *atomic.Bool
		}
		var records []record
		for i := 0; i < small(200, 30); i++ {
			var r any
			var rec record
			rec.flag = new(atomic.Bool)
			var ended atomic.Bool
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				r = catch(func() {
					forkjoin.Join(w,
						func(w *pool.Worker) int {
							fibJoin(w, 8) // time for a thief to take fb
							return panicInFA(errFA)
						},
						func(w *pool.Worker) int {
							rec.flag.Store(true)
							v := fibJoin(w, 8)
							ended.Store(true)
							return v
						})
				})
				rec.started, rec.ended = rec.flag.Load(), ended.Load()
				return 0
			})
			checkPanic(t, where+": Join with fa panicking", r, errFA, "panicInFA")
			// Join must not panic while fb is still running.
			if rec.started != rec.ended {
				t.Fatalf("%s: round %d: Join panicked while fb was running", where, i)
			}
			records = append(records, rec)
		}
		stillWorks(t, p, where)
		p.Close()
		ran := 0
		for i, rec := range records {
			// fb must not start after its Join has panicked.
			if !rec.started && rec.flag.Load() {
				t.Errorf("%s: round %d: fb started after its Join had panicked", where, i)
			}
			if rec.started {
				ran++
			}
		}
		// With one worker fb can only run when Join takes it back; after
		// fa's panic it is dropped instead.
		if workers == 1 && ran != 0 {
			t.Errorf("1 worker: fb ran in %d Joins although fa always panicked first", ran)
		}
		t.Logf("%s: fb ran (stolen) in %d of %d Joins whose fa panicked", where, ran, len(records))
	}
}

// fa panics while fb, stolen by the other worker, is still running: Join must
// wait for fb to finish before it panics.
func TestPanicInFAWaitsForStolenFB(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for i := 0; i < small(100, 20); i++ {
		var fbStarted, faPanicking, fbEnded atomic.Bool
		var ids [2]atomic.Int64
		var r any
		var endedAtRecover bool
		forkjoin.Invoke(p, func(w *pool.Worker) int {
			r = catch(func() {
				forkjoin.Join(w,
					func(w *pool.Worker) int {
						ids[0].Store(int64(w.ID()))
						// Spin without helping: fb starts only if stolen.
						for !fbStarted.Load() {
							spin(w)
						}
						faPanicking.Store(true)
						return panicInFA("fa")
					},
					func(w *pool.Worker) int {
						ids[1].Store(int64(w.ID()))
						fbStarted.Store(true)
						for !faPanicking.Load() {
							runtime.Gosched()
						}
						// Keep going well after fa's panic started.
						for k := 0; k < 100; k++ {
							runtime.Gosched()
						}
						v := fibJoin(w, small(18, 12))
						fbEnded.Store(true)
						return v
					})
			})
			endedAtRecover = fbEnded.Load()
			return 0
		})
		checkPanic(t, "fa panicking with fb stolen", r, "fa", "panicInFA")
		if !endedAtRecover {
			t.Fatalf("round %d: Join panicked before the stolen fb had finished", i)
		}
		if ids[0].Load() == ids[1].Load() {
			t.Fatalf("round %d: fa and fb ran on the same worker %d", i, ids[0].Load())
		}
	}
	stillWorks(t, p, "after fa panics with fb stolen")
}

func TestPanicInFB(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range poolSizes {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		for i := 0; i < small(100, 20); i++ {
			var faDone atomic.Bool
			var r any
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				r = catch(func() {
					forkjoin.Join(w,
						func(w *pool.Worker) int {
							v := fibJoin(w, 10)
							faDone.Store(true)
							return v
						},
						func(*pool.Worker) int { return panicInFB(errFB) })
				})
				return 0
			})
			checkPanic(t, where+": Join with fb panicking", r, errFB, "panicInFB")
			if !faDone.Load() {
				t.Fatalf("%s: Join panicked before fa had finished", where)
			}
		}
		stillWorks(t, p, where)
		p.Close()
	}
}

// fb panics on the worker that stole it: fa waits, without helping, until fb
// has started, so fb cannot run anywhere else.
func TestPanicInStolenFB(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for i := 0; i < small(100, 20); i++ {
		var fbStarted atomic.Bool
		var ids [2]atomic.Int64
		var r any
		forkjoin.Invoke(p, func(w *pool.Worker) int {
			r = catch(func() {
				forkjoin.Join(w,
					func(w *pool.Worker) int {
						ids[0].Store(int64(w.ID()))
						for !fbStarted.Load() {
							spin(w)
						}
						return 1
					},
					func(w *pool.Worker) int {
						ids[1].Store(int64(w.ID()))
						fbStarted.Store(true)
						return panicInFB("stolen fb")
					})
			})
			return 0
		})
		checkPanic(t, "stolen fb panicking", r, "stolen fb", "panicInFB")
		if ids[0].Load() == ids[1].Load() {
			t.Fatalf("round %d: fa and fb ran on the same worker %d", i, ids[0].Load())
		}
	}
	stillWorks(t, p, "after stolen fb panics")
}

// A panic deep in a tree of joins reaches the top unchanged: the same value
// and the stack of its origin, whichever worker it happened on.
func fibPanic(w *pool.Worker, n, bad int) int {
	if n == bad {
		return panicInLeaf(n)
	}
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibPanic(w, n-1, bad) },
		func(w *pool.Worker) int { return fibPanic(w, n-2, bad) })
	return a + b
}

func TestPanicThroughNestedJoins(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	n := small(20, 14)
	for _, workers := range poolSizes {
		where := fmt.Sprintf("workers=%d", workers)
		p := pool.New(pool.WithWorkers(workers))
		for _, bad := range []int{n - 1, n / 2, 2} {
			r := catch(func() {
				forkjoin.Invoke(p, func(w *pool.Worker) int { return fibPanic(w, n, bad) })
			})
			checkPanic(t, fmt.Sprintf("%s: panic at n=%d", where, bad), r, fmt.Sprintf("leaf %d", bad), "panicInLeaf")
		}
		// panic(nil) is a panic too.
		r := catch(func() {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				a, _ := forkjoin.Join(w,
					func(*pool.Worker) int { return 1 },
					func(*pool.Worker) int { panic(nil) })
				return a
			})
		})
		if pe, ok := r.(*pool.PanicError); !ok {
			t.Errorf("%s: panic(nil) in fb: recovered %#v, want a *pool.PanicError", where, r)
		} else if _, ok := pe.Value.(*runtime.PanicNilError); !ok {
			t.Errorf("%s: panic(nil) in fb: Value = %#v, want a *runtime.PanicNilError", where, pe.Value)
		}
		stillWorks(t, p, where)
		p.Close()
	}
}

// When both halves of a Join panic (fb stolen and running), the joiner
// raises one of them with the other in its Later: both are reachable with
// errors.As, whichever came first.
func TestJoinBothHalvesPanic(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for i := 0; i < small(50, 10); i++ {
		var fbStarted atomic.Bool
		r := catch(func() {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				a, b := forkjoin.Join(w,
					func(w *pool.Worker) int {
						for !fbStarted.Load() {
							spin(w)
						}
						return panicInFA(errFA)
					},
					func(w *pool.Worker) int {
						fbStarted.Store(true)
						return panicInFB(errFB)
					})
				return a + b
			})
		})
		pe, ok := r.(*pool.PanicError)
		if !ok {
			t.Fatalf("round %d: recovered %#v, want a *pool.PanicError", i, r)
		}
		if len(pe.Later) != 1 {
			t.Fatalf("round %d: %d later panics, want the other half's", i, len(pe.Later))
		}
		var be *boomError
		for _, want := range []*boomError{errFA, errFB} {
			if !errors.Is(pe, want) {
				t.Fatalf("round %d: %v is not reachable from the raised panic %v", i, want, pe)
			}
		}
		if !errors.As(error(pe), &be) {
			t.Fatalf("round %d: errors.As found no *boomError", i)
		}
	}
}
