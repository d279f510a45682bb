package sched_test

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// checkGoexit checks that r is a *pool.PanicError whose Value is want:
// pool.ErrGoexit for the task that called runtime.Goexit, or
// pool.ErrAbortedByGoexit for a task further down the same goroutine that
// the Goexit cut short. Either way errors.Is finds ErrGoexit.
func checkGoexit(t *testing.T, where string, r any, want error) {
	t.Helper()
	pe, ok := r.(*pool.PanicError)
	if !ok {
		t.Errorf("%s: recovered %#v, want a *pool.PanicError", where, r)
		return
	}
	if pe.Value != want {
		t.Errorf("%s: PanicError.Value = %#v, want %v", where, pe.Value, want)
	}
	if !errors.Is(pe, pool.ErrGoexit) {
		t.Errorf("%s: errors.Is(PanicError, ErrGoexit) = false", where)
	}
}

// A task that calls runtime.Goexit ends its worker's goroutine; the pool
// reports it to the waiter as a PanicError holding ErrGoexit and carries on
// with a fresh goroutine for that worker.
func TestGoexit(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers)) // futures joined inline
		for round := 0; round < 5; round++ {
			// Directly in a task run from outside.
			r := catch(func() { p.Run(func(*pool.Worker) { runtime.Goexit() }) })
			checkGoexit(t, "Pool.Run", r, pool.ErrGoexit)

			// In a forked future. With two workers the forker waits, without
			// helping, until the future is done, so the other worker has
			// stolen it and the Goexit ends the thief's goroutine; the
			// forker's Join gets the panic. With one worker the future runs
			// inline in Join, and the Goexit ends the joining task as well:
			// the panic reaches the caller of Run.
			var atJoin, atJoin2 any
			var joined atomic.Bool
			r = catch(func() {
				p.Run(func(w *pool.Worker) {
					f := forkjoin.Fork(w, func(*pool.Worker) int {
						runtime.Goexit()
						return 1
					})
					if workers > 1 {
						for !f.Done() {
							spin(w)
						}
					}
					atJoin = catch(func() { f.Join(w) })
					atJoin2 = catch(func() { f.Join(w) })
					joined.Store(true)
				})
			})
			if workers > 1 {
				if r != nil {
					t.Errorf("workers=%d: Run panicked with %v, want the future's Goexit reported at its Join only", workers, r)
				}
				checkGoexit(t, "Future.Join of a stolen future", atJoin, pool.ErrGoexit)
				checkGoexit(t, "second Future.Join", atJoin2, pool.ErrGoexit)
				if atJoin != atJoin2 {
					t.Errorf("two Joins of one future raised different values: %p and %p", atJoin, atJoin2)
				}
			} else {
				// The future reported ErrGoexit to nobody (its joiner was
				// unwound too); the task that ran it inline was aborted.
				checkGoexit(t, "Pool.Run of a task whose inline future called Goexit", r, pool.ErrAbortedByGoexit)
				if joined.Load() {
					t.Error("the task that joined a future inline carried on after the future's Goexit")
				}
			}

			// In Join's fb, stolen on two workers, inline on one.
			r = catch(func() {
				forkjoin.Invoke(p, func(w *pool.Worker) int {
					var started atomic.Bool
					a, b := forkjoin.Join(w,
						func(*pool.Worker) int {
							for workers > 1 && !started.Load() {
								spin(w)
							}
							return 1
						},
						func(*pool.Worker) int {
							started.Store(true)
							runtime.Goexit()
							return 2
						})
					return a + b
				})
			})
			// Stolen (2 workers): the thief's capture of fb reports
			// ErrGoexit and Join re-raises it. Inline (1 worker): fb has no
			// wrapper of its own, so the first capture, the task's, does.
			checkGoexit(t, "Invoke of a Join whose fb called Goexit", r, pool.ErrGoexit)

			// The pool still works, on all its workers.
			seen := make([]atomic.Bool, workers)
			for all := false; !all; {
				if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibIDs(w, 18, seen) }); got != fibSeq(18) {
					t.Fatalf("workers=%d: fib(18) after Goexit = %d, want %d", workers, got, fibSeq(18))
				}
				all = true
				for i := range seen {
					all = all && seen[i].Load()
				}
			}
		}
		p.Close() // must return: every worker, replaced or not, exits
		csCheckStats(t, "after Goexits", p.Stats(), workers)
	}
}
