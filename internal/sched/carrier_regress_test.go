package sched_test

// Properties of the carrier mechanism (carrier.md) that each took a
// specific interleaving to break; every test here runs in the normal suite.

import (
	"bytes"
	"context"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// A Goexit is attributed per goroutine, not per worker: the task that
// called it reports ErrGoexit and the tasks below it on the same goroutine
// report ErrAbortedByGoexit, even when the unwinding goroutine parks (a
// Join's fb still pending) and another carrier of the same worker runs a
// task that calls Goexit meanwhile. One worker: T joins fa and fb; fa forks
// u (left unjoined) and g, and joins g, which runs inline and calls
// Goexit; the unwinding parks in Join with u in the way; the next carrier
// runs u, which calls Goexit too (capture.go, Guard).
func TestGoexitAttributedPerGoroutine(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1)) // g runs inline
	defer p.Close()
	var u *forkjoin.Future[int]
	r := catch(func() {
		p.Run(func(w *pool.Worker) { // T
			forkjoin.Join(w,
				func(w *pool.Worker) int { // fa
					u = forkjoin.Fork(w, func(*pool.Worker) int { runtime.Goexit(); return 0 })
					g := forkjoin.Fork(w, func(*pool.Worker) int { runtime.Goexit(); return 0 })
					return g.Join(w)
				},
				func(*pool.Worker) int { return 1 }) // fb
		})
	})
	var ru any
	p.Run(func(w *pool.Worker) { ru = catch(func() { u.Join(w) }) })
	checkGoexit(t, "T, cut short by g's Goexit", r, pool.ErrAbortedByGoexit)
	checkGoexit(t, "u, which called Goexit", ru, pool.ErrGoexit)
}

// A carrier started from inside a task that parks within pprof.Do does not
// inherit that task's profiler labels: a go statement copies them, so a
// carrier sets its worker's own labels when it starts (carrier.go), and no
// idle carrier keeps the labels of a finished request.
func TestCarrierLabelsDoNotStick(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	p.Run(func(w *pool.Worker) {
		pprof.Do(context.Background(), pprof.Labels("request", "A"), func(context.Context) {
			a := forkjoin.Fork(w, func(*pool.Worker) int { return 1 })
			b := forkjoin.Fork(w, func(*pool.Worker) int { return 2 })
			_ = a.Join(w) + b.Join(w) // b is in a's way: the join parks
		})
	})
	// Request A is over; no carrier should still be labelled with it.
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Fatal(err)
	}
	for _, rec := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(rec, "(*carrier).run") && strings.Contains(rec, `"request":"A"`) {
			t.Errorf("an idle carrier goroutine keeps the labels of a finished task:\n%s", rec)
		}
	}
}

// Parked carriers stay bounded by the depth of the computation, not its
// size, when forks overflow a tiny deque to the injector: the joiner claims
// its own spilled fork back and runs it inline (job.go, J1) instead of
// parking behind an ancestor's fork while the fork it waits for sits in the
// injector.
func TestOverflowParksStayBoundedByDepth(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	const n = 20 // depth of the computation
	p := pool.New(pool.WithWorkers(1), pool.WithDequeCapacity(4))
	defer p.Close()
	const limit = 2*n + 8                 // parked carriers: about the depth
	base := int64(fjtest.NumGoroutine(0)) // exact
	var peak atomic.Int64
	var fib func(w *pool.Worker, n int) int
	fib = func(w *pool.Worker, n int) int {
		if n < 2 {
			// Once over the bound (an exact count), stop counting: the
			// test fails anyway, and every further count would stop
			// the world.
			if peak.Load() <= base+limit {
				if g := int64(fjtest.NumGoroutine(int(base) + limit)); g > peak.Load() {
					peak.Store(g)
				}
			}
			return n
		}
		a, b := forkjoin.Join(w,
			func(w *pool.Worker) int { return fib(w, n-1) },
			func(w *pool.Worker) int { return fib(w, n-2) })
		return a + b
	}
	if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, n) }); got != fibSeq(n) {
		t.Fatalf("fib(%d) = %d, want %d", n, got, fibSeq(n))
	}
	if extra := peak.Load() - base; extra > limit {
		t.Errorf("fib(%d) on one worker kept up to %d extra goroutines (parked carriers); want at most about the depth, %d\n%v",
			n, extra, n, p.Stats())
	}
}

// A spilled fork claimed back by its joiner leaves no dead entry in the
// injector (injector.removeLast): on one worker nothing else would pop
// them, and their jobs would stay live until the computation ends.
func TestSpilledForksLeaveNoDeadEntries(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	const n = 24
	p := pool.New(pool.WithWorkers(1), pool.WithDequeCapacity(4))
	defer p.Close()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	var grown int64
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		r := fibJoin(w, n)
		// Everything fib allocated is garbage now, unless something still
		// references it.
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		grown = int64(ms.HeapAlloc) - int64(before)
		return r
	})
	if grown > 1<<20 {
		t.Errorf("after fib(%d) on one worker with a deque of 4, %d KiB of its jobs are still live (dead injector entries)",
			n, grown>>10)
	}
}
