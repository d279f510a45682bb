package sched_test

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

//fjvet:file-ignore blocking,lock-across-join the tests of hand-overs hold a lock across a join and block without sections on purpose

// What the younger fork of a hand-over shape does once its wait ends
// (stall.md, Y5), with the worker handed over meanwhile.
// stressLocks counts the waits that ended in Lock (a statement under it).
var stressLocks atomic.Int64

type afterWait int

const (
	afterNothing afterWait = iota // returns into the main loop's check (runTask)
	afterJoin                     // forks and joins (the fork path's check)
	afterSection                  // a blocking section (holderOf's check)
	afterNested                   // a parallel loop, through pool.Enter (Check)
	afterPanic                    // panics: the join re-raises it
	afterGoexit                   // runtime.Goexit: Guard's check, a successor carrier
	afterRecurse                  // the whole shape again, one level down
	afterKinds
)

var errStressBoom = errors.New("hand-over stress: boom")

// handOverShape is one hand-over, as TestHandOverThenUseTheWorker makes
// it: a task holds mus[k] across the join of a fork that a thief takes,
// parks, and its worker's next carrier runs a younger fork that blocks,
// without a section, on mus[k] (or, with wakeAtOnce, on a channel closed
// as soon as a hand-over is counted or the forker resumes, so that the
// wait ends while the worker changes hands). It returns what the younger
// fork computed, plus one, or panics as the younger fork did.
func handOverShape(w *pool.Worker, p *pool.Pool, mus []sync.Mutex, k int, what afterWait, wakeAtOnce bool, depth int) int {
	mu := &mus[k%len(mus)]
	stolen, started := make(chan struct{}), make(chan struct{})
	var resumed atomic.Bool
	wake := make(chan struct{})
	if wakeAtOnce {
		before := p.Stats().HandOvers
		go func() {
			<-started
			for p.Stats().HandOvers == before && !resumed.Load() {
				runtime.Gosched()
			}
			close(wake)
		}()
	}
	mu.Lock()
	locked := true
	defer func() {
		if locked {
			mu.Unlock()
		}
	}()
	other := forkjoin.Fork(w, func(*pool.Worker) int {
		close(stolen)
		<-started // waits, without a section, for the younger fork to start: handed over if it holds the worker (stall.md, Y4)
		return 1
	})
	younger := forkjoin.Fork(w, func(w *pool.Worker) int {
		close(started)
		if wakeAtOnce {
			stallReceive2(wake) // no section: blocks the worker's holder
		} else {
			mu.Lock() // no section: blocks the worker's holder
			stressLocks.Add(1)
			mu.Unlock()
		}
		switch what {
		case afterJoin:
			a, b := forkjoin.Join(w, func(w *pool.Worker) int { return fibJoin(w, 8) }, func(*pool.Worker) int { return 1 })
			return a + b - fibSeq(8)
		case afterSection:
			n := 0
			pool.Blocking(func() { n = 1 })
			return n
		case afterNested:
			return parallel.Sum(w, []int{0, 1, 2, 3, 4}) - 9
		case afterPanic:
			panic(errStressBoom)
		case afterGoexit:
			runtime.Goexit()
		case afterRecurse:
			if depth > 0 {
				return handOverShape(w, p, mus, k+1, afterJoin, !wakeAtOnce, depth-1) - 1
			}
		}
		return 1
	})
	stallReceive2(stolen)
	v := other.Join(w) // parks; resumed by a hand-over, or at a safe point
	resumed.Store(true)
	mu.Unlock()
	locked = false
	return v + younger.Join(w)
}

// checkShape checks what a shape ended with, given what its younger fork did.
func checkShape(what afterWait, n int, r any) error {
	switch what {
	case afterPanic:
		if err, ok := r.(error); !ok || !errors.Is(err, errStressBoom) {
			return fmt.Errorf("recovered %v, want the younger fork's panic", r)
		}
	case afterGoexit:
		var pe *pool.PanicError
		if err, ok := r.(error); !ok || !errors.As(err, &pe) || !errors.Is(err, pool.ErrGoexit) {
			return fmt.Errorf("recovered %v, want the report of a Goexit", r)
		}
	default:
		if r != nil || n != 2 {
			return fmt.Errorf("returned %d, panicked with %v; want 2", n, r)
		}
	}
	return nil
}

// TestHandOverStress provokes many hand-overs (stall.md, Y1-Y7) in varied
// shapes, on 1, 2 and 4 workers, several at once on one pool, each on
// one of a few mutexes: the younger fork, once its wait ends, forks and
// joins, enters a section, runs a nested loop, panics, calls Goexit,
// makes the shape again one level down, or just returns; its wait ends by
// the forker's unlock or at once as the worker changes hands. Every shape
// must end as it would without the hand-over, the pool close right
// after (with displaced carriers possibly still on their way back) and
// leave no goroutine, and hand-overs must have happened.
func TestHandOverStress(t *testing.T) {
	fjtest.Deadline(t, 120*time.Second)
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	rounds := fjtest.Stress(40, 300, 8)
	var handOvers, stalls uint64
	var failures atomic.Int32
	for round := range rounds {
		for _, workers := range []int{1, 2, 4} {
			var reps reports
			p := stallPool(workers, &reps)
			mus := make([]sync.Mutex, 3)
			// Several shapes at once: as many as workers, each from a
			// goroutine of its own (Invoke from outside).
			shapes, kinds := workers, int(afterKinds)
			var wg sync.WaitGroup
			for i := range shapes {
				what := afterWait((round*7 + i*3 + workers) % kinds)
				wakeAtOnce := (round+i)%3 == 0
				wg.Add(1)
				go func() {
					defer wg.Done()
					var r any
					n := func() (n int) {
						defer func() { r = recover() }()
						return forkjoin.Invoke(p, func(w *pool.Worker) int {
							return handOverShape(w, p, mus, i, what, wakeAtOnce, 1)
						})
					}()
					if err := checkShape(what, n, r); err != nil {
						if failures.Add(1) <= 5 {
							t.Errorf("%d workers, shape %d (wake at once %v): %v", workers, what, wakeAtOnce, err)
						}
					}
				}()
			}
			wg.Wait()
			st := p.Stats()
			if round%2 == 0 {
				// The pool still works, on every worker, then closes.
				xs := make([]int, 1000)
				for i := range xs {
					xs[i] = i
				}
				if got := parallel.Sum(p, xs); got != 999*1000/2 {
					t.Errorf("%d workers: a loop after the hand-overs returned %d", workers, got)
				}
			}
			p.Close() // right after: a displaced carrier may not be back yet
			handOvers += st.HandOvers
			stalls += st.Stalls
		}
	}
	t.Logf("%d rounds: %d hand-overs, %d stalls", rounds, handOvers, stalls)
	if handOvers == 0 {
		t.Errorf("no hand-over in %d rounds", rounds)
	}
}
