package pool_test

// Regression tests from the review of the carrier mechanism (commit
// d414686); each failed on the code as reviewed and is fixed since.
//
// TestCarrierReproCrossPoolInvoke is different: it demonstrates a
// documented limitation (a cycle between pools can deadlock when the first
// pool's workers are all blocked, see Pool.Run) and hangs until its
// deadline kills the test binary, so it runs only on request:
//
//	FJ_CARRIER_REPRO=hang go test -count=1 -run CarrierReproCrossPool -v ./pool

import (
	"bytes"
	"context"
	"os"
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

func csRepro(t *testing.T, mode string) {
	t.Helper()
	if v := os.Getenv("FJ_CARRIER_REPRO"); v == "" || (mode == "hang" && v != "hang") {
		t.Skipf("review reproducer; run with FJ_CARRIER_REPRO=%s", mode)
	}
}

// REPRO 1 (Worker.goexiting was per worker, but means "this goroutine").
// FIXED in d7c2638 (the flag is on the carrier).
//
// Capture tells the task that called runtime.Goexit (ErrGoexit) from tasks
// further down the same goroutine that the Goexit cut short
// (ErrAbortedByGoexit) with w.goexiting. With carriers, the unwinding
// goroutine can park (Join's deferred wait for a pending fb) while another
// carrier of the same worker runs tasks, and those see the flag:
//
//  1. One worker. The task T runs Join(fa, fb); fa forks u (unjoined), then
//     g, and joins g, which is at the bottom: g runs inline and calls
//     Goexit. Capture in g's job: goexiting = true, g gets ErrGoexit.
//  2. The unwinding reaches Join's deferred function: fb is pending and u
//     sits above it, so TakeBack fails and WaitFor parks carrier c1
//     mid-Goexit, handing the worker to a new carrier c2.
//  3. c2 runs u, which calls Goexit: Capture sees goexiting == true and
//     reports ErrAbortedByGoexit for u, the task that did call Goexit.
//     c2's run defer then resets goexiting = false and starts c3.
//  4. c3 runs fb, resumes c1, which unwinds on into T's wrapper: Capture
//     sees goexiting == false and reports ErrGoexit for T, which did not.
//
// Fix: make the flag per carrier (a goexiting field in carrier, read and
// set through w.cur in Capture; no reset needed, the carrier exits).
func TestCarrierReproGoexitAttribution(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1))
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

// REPRO 2 (profiler labels stuck to carriers). FIXED in d7c2638 (carriers
// set the worker's own labels when they start).
//
// A go statement copies the starting goroutine's pprof labels. handOff
// starts carriers from inside the parking task, so a task that parks inside
// pprof.Do gives its labels to the new carrier, which keeps them for every
// task it runs afterwards, and as a spare until Close: CPU profiles charge
// unrelated work to that request.
//
// Fix: carrier.run begins with pprof.SetGoroutineLabels(context.Background())
// (once per carrier goroutine; the Goexit restart and New benefit too).
func TestCarrierReproProfilerLabelsStick(t *testing.T) {
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

// REPRO 3 (parked carriers grew with the size of the computation, not its
// depth, once forks overflowed). FIXED in d7c2638 (the owner claims a
// spilled fork back from the injector); see REPRO 5 for what that leaves.
//
// carrier.md: "Their number is bounded by the number of joins waiting at
// once, at most the depth of the computation per worker." With a small
// deque, a Join's fb overflows to the injector; TakeBack then finds another
// task at the bottom (an ancestor's fb) and the join parks. The next carrier
// pops that older task, whose subtree overflows and parks in turn, while the
// fbs the parked carriers wait for sit in the FIFO injector, looked at only
// every 61 lookups or when the deque is empty. fib(20) (depth 20) on one
// worker, capacity 4: ~1000 goroutines at once; fib(26), capacity 1: ~24000
// (and 2x slower than the old helping join, which needed no goroutines).
//
// Fix (forkjoin, no pool change): when Spawn of a Join's fb (or of a
// Future, for its owner's Join) overflowed, let the joiner claim it back
// from the injector: a claimed flag on the job, CAS by the joiner's
// TakeBack path and by job.Run (only for jobs marked overflowed); the
// loser skips. Running an awaited task inline is safe (carrier.md). At
// least, correct the bound in carrier.md.
func TestCarrierReproOverflowParksGrowWithTreeSize(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	const n = 20 // depth of the computation
	p := pool.New(pool.WithWorkers(1), pool.WithDequeCapacity(4))
	defer p.Close()
	base := int64(runtime.NumGoroutine())
	var peak atomic.Int64
	var fib func(w *pool.Worker, n int) int
	fib = func(w *pool.Worker, n int) int {
		if n < 2 {
			if g := int64(runtime.NumGoroutine()); g > peak.Load() {
				peak.Store(g)
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
	if extra := peak.Load() - base; extra > 2*n+8 {
		t.Errorf("fib(%d) on one worker kept up to %d extra goroutines (parked carriers); want at most about the depth, %d",
			n, extra, n)
	}
}

// REPRO 4 (nested pools, a limitation documented on Pool.Run since d7c2638
// rather than a carrier bug; HANGS): an acyclic chain T (pool a) -> f (pool b) -> g (pool a) with
// one worker in a deadlocks, because T blocks a's only worker in Pool.Wait
// (Invoke on a *Pool) instead of parking. Pool.Run's doc warns about
// blocking a worker, but DESIGN.md asks that using a second pool from
// inside a task of the first works. With carriers this is fixable where
// the caller passes its worker: e.g. a forkjoin.InvokeOn(w, other, f) that
// submits to other and then parks w's carrier on the job's latch with
// WaitFor (which works across pools: the setter resumes the carrier on its
// own worker) instead of blocking in Pool.Wait.
func TestCarrierReproCrossPoolInvoke(t *testing.T) {
	csRepro(t, "hang")
	fjtest.Deadline(t, 5*time.Second)
	a := pool.New(pool.WithWorkers(1))
	b := pool.New(pool.WithWorkers(1))
	defer a.Close()
	defer b.Close()
	got := forkjoin.Invoke(a, func(*pool.Worker) int {
		return forkjoin.Invoke(b, func(*pool.Worker) int {
			return forkjoin.Invoke(a, func(*pool.Worker) int { return 42 })
		})
	})
	if got != 42 {
		t.Errorf("got %d, want 42", got)
	}
}

// REPRO 5 (d7c2638: forks claimed back from the injector stay queued there).
//
// TakeBack of a spilled task wins its claimed flag and runs it inline, but
// leaves the task in the injector bucket; the entry is dropped only when
// some worker pops it and loses the CAS in execute. On one worker nothing
// pops the injector while the computation runs inline (next runs only
// between main-loop tasks), so every overflowed fork of the computation
// stays queued, with its job (a Future's job holds its result), until the
// computation is over: fib(24) with a deque of 4 leaves ~75000 dead entries
// and ~5 MiB of live heap at the root's end (fib(26): ~195000, ~14 MiB).
// Meanwhile hasWork is true, so idle workers search instead of sleeping,
// and new outside submissions queue behind the dead entries.
//
// Fix: in TakeBack's spilled path, once the claimed CAS is won, also take
// t off its bucket if it is still the newest entry there (it went to bucket
// w.id, and joins take back their own spills in LIFO order, so it nearly
// always is), under the bucket lock. A 15-line injector.removeLast does it:
// no dead entries left, and fib(26) with a deque of 4 on one worker runs
// ~25% faster. Keep the CAS: removing the entry *instead of* claiming lets
// a second join of the same Future by its owner (another carrier, while the
// first join is parked inside the future's inline run) claim it again and
// run it twice; TestCarrierStressPrograms catches that variant at once.
// (Stats: count the removals with InjectorPops, or checkStats's balance,
// checked by TestOverflow, breaks.)
func TestCarrierReproSpilledForksStayQueued(t *testing.T) {
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
