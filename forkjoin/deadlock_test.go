package forkjoin_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// chain forks a leaf future f, then a child task that continues the chain
// and joins f, then joins its own parent's future pf before its child and
// its leaf. Every task thus joins a future forked by its parent, which sits
// below the task's own forks on the deque.
func chain(w *pool.Worker, d int, pf *forkjoin.Future[int]) int {
	f := forkjoin.Fork(w, func(*pool.Worker) int { return d })
	var c *forkjoin.Future[int]
	if d > 0 {
		c = forkjoin.Fork(w, func(w *pool.Worker) int { return chain(w, d-1, f) })
	}
	s := 0
	if pf != nil {
		s += pf.Join(w)
	}
	if c != nil {
		s += c.Join(w)
	}
	return s + f.Join(w)
}

func chainWant(depth int) int {
	s := 0
	for d := 0; d <= depth; d++ {
		s += d // own leaf
		if d < depth {
			s += d + 1 // the parent's leaf
		}
	}
	return s
}

// Deadlock freedom (1): deep chains of futures joined across generations.
func TestDeepFutureChain(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	depth := small(2000, 500)
	for _, workers := range []int{1, 2, 8} {
		p := pool.New(pool.WithWorkers(workers))
		for i := 0; i < 3; i++ {
			if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return chain(w, depth, nil) }); got != chainWant(depth) {
				t.Errorf("workers=%d: chain(%d) = %d, want %d", workers, depth, got, chainWant(depth))
			}
		}
		p.Close()
	}
}

// fibStolen is fibJoin that counts the Joins whose fb ran on another worker
// than the Join's, so that the Join had to wait for a thief.
func fibStolen(w *pool.Worker, n int, stolen *atomic.Int64) int {
	if n < 2 {
		return n
	}
	me := w.ID()
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibStolen(w, n-1, stolen) },
		func(w *pool.Worker) int {
			if w.ID() != me {
				stolen.Add(1)
			}
			return fibStolen(w, n-2, stolen)
		})
	return a + b
}

// Deadlock freedom (2): joins waiting for stolen children while new work
// keeps arriving from outside.
func TestJoinsUnderOutsideLoad(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(2))
	var stop atomic.Bool
	var wg sync.WaitGroup
	var outside, outsideBad atomic.Int64
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; !stop.Load(); k++ {
				n := 5 + (g+k)%8
				got := forkjoin.Invoke(p, func(w *pool.Worker) int {
					f := forkjoin.Fork(w, func(w *pool.Worker) int { return fibJoin(w, n) })
					return fibJoin(w, n) - f.Join(w)
				})
				if got != 0 {
					outsideBad.Add(1)
				}
				outside.Add(1)
			}
		}()
	}

	n := small(20, 14)
	var stolen atomic.Int64
	rounds := 0
	// Keep going until joins have waited for stolen children, and at least
	// a few rounds. Stealing comes after the injector in a worker's search,
	// and with GOMAXPROCS=1 a short computation may never be interrupted,
	// so steals are not certain: bound the rounds.
	const maxRounds = 500
	for rounds < 5 || (stolen.Load() == 0 && rounds < maxRounds) {
		rounds++
		got := forkjoin.Invoke(p, func(w *pool.Worker) int {
			a, b := forkjoin.Join(w,
				func(w *pool.Worker) int { return fibStolen(w, n, &stolen) },
				func(w *pool.Worker) int { return chain(w, 200, nil) })
			return a*1000000 + b
		})
		if want := fibSeq(n)*1000000 + chainWant(200); got != want {
			t.Fatalf("round %d: got %d, want %d", rounds, got, want)
		}
	}
	stop.Store(true)
	wg.Wait()
	p.Close()
	if b := outsideBad.Load(); b != 0 {
		t.Errorf("%d of %d outside Invokes computed wrong results", b, outside.Load())
	}
	// Whether these rounds saw steals depends on scheduling (idle workers
	// take outside work before they steal); the test below forces one.
	t.Logf("%d rounds, %d joins of stolen children, %d outside Invokes", rounds, stolen.Load(), outside.Load())
}

// Deadlock freedom (2b), deterministically: a Join whose fb is running on
// the other worker, and stays running there until outside work has been
// done, which only the joining worker is free to do while its task waits.
func TestJoinOnStolenChildWhileOutsideWorkArrives(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const outsideWant = 200
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var fbStarted atomic.Bool
	var outsideDone atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !fbStarted.Load() {
				runtime.Gosched()
			}
			for outsideDone.Load() < outsideWant {
				if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoin(w, 10) }); got != fibSeq(10) {
					t.Errorf("outside Invoke: fib(10) = %d", got)
				}
				outsideDone.Add(1)
			}
		}()
	}
	var joiner, thief int
	got := forkjoin.Invoke(p, func(w *pool.Worker) int {
		joiner = w.ID()
		a, b := forkjoin.Join(w,
			func(w *pool.Worker) int {
				// Keep this worker busy until fb has started: with no
				// outside work yet, only the idle worker can start it,
				// by stealing it.
				for !fbStarted.Load() {
					spin(w)
				}
				return 1
			},
			func(w *pool.Worker) int {
				thief = w.ID()
				fbStarted.Store(true)
				for outsideDone.Load() < outsideWant {
					runtime.Gosched()
				}
				return 2
			})
		return 10*a + b
	})
	wg.Wait()
	if got != 12 {
		t.Errorf("Join = %d, want 12", got)
	}
	if joiner == thief {
		t.Errorf("fb ran on the joining worker %d, want the other one", joiner)
	}
	if n := outsideDone.Load(); n < outsideWant {
		t.Errorf("%d outside Invokes done, want %d", n, outsideWant)
	}
}

// A future joined by its forker's sibling task (here: both sides of a Join
// join a future forked just before the Join) must not deadlock on one
// worker. With a deque of capacity 1 the future f overflows to the
// injector while the Join's fb, which joins f, sits on the deque. If the
// helping wait in fa's f.Join picks f from the injector first (it does so
// every injectorEvery lookups), f runs on this goroutine, and the helping
// wait of the Join inside f pops fb, which joins f: f is below fb on the
// same stack and can never finish. Each attempt advances the worker's
// lookup count by the same small number, so one of the first 61 attempts
// meets the periodic injector check at that moment.
func TestJoinOfFutureRunningBelowOnSameWorker(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(1), pool.WithDequeCapacity(1))
	defer p.Close()
	one := func(*pool.Worker) int { return 1 }
	for attempt := 0; attempt < 200; attempt++ {
		got := forkjoin.Invoke(p, func(w *pool.Worker) int {
			d := forkjoin.Fork(w, one) // fills the deque
			f := forkjoin.Fork(w, func(w *pool.Worker) int {
				a, b := forkjoin.Join(w, one, one) // fb overflows: this Join waits, helping
				return a + b
			}) // overflows to the injector
			d.Join(w) // empties the deque
			a, b := forkjoin.Join(w,
				func(w *pool.Worker) int { return f.Join(w) },
				func(w *pool.Worker) int { return f.Join(w) }) // fb stays on the deque
			return a + b
		})
		if got != 4 {
			t.Fatalf("attempt %d: got %d, want 4", attempt, got)
		}
	}
}
