package parallel_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// Run under -race: the accumulators are updated with no synchronisation,
// which is correct only if no two tasks ever use one worker's value at once.
func TestPerWorkerAccumulatesWithoutLocks(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		n := fjtest.Small(200_000, 20_000)
		var inits atomic.Int64
		type acc struct {
			sum, count int
		}
		pw := parallel.NewPerWorker(p, func() acc { inits.Add(1); return acc{} })
		parallel.For(p, 0, n, func(w *pool.Worker, i int) {
			a := pw.Get(w)
			a.sum += i
			a.count++
		}, parallel.Grain(100))
		// Nested calls: the inner bodies use the value of whatever
		// worker they run on, between nested calls.
		parallel.For(p, 0, 10, func(w *pool.Worker, i int) {
			pw.Get(w).count++
			parallel.For(w, 0, 100, func(w *pool.Worker, j int) { pw.Get(w).count++ })
		}, parallel.Grain(1))
		total := pw.Combine(acc{}, func(a, b acc) acc { return acc{a.sum + b.sum, a.count + b.count} })
		if total.sum != n*(n-1)/2 || total.count != n+10+1000 {
			t.Errorf("workers=%d: combined %+v, want sum %d count %d", workers, total, n*(n-1)/2, n+1010)
		}
		ids := map[int]bool{}
		for id, v := range pw.All() {
			if ids[id] || id < 0 || id >= workers || v.count == 0 {
				t.Errorf("workers=%d: All yielded id %d (%+v) twice, out of range or unused", workers, id, *v)
			}
			ids[id] = true
		}
		if int64(len(ids)) != inits.Load() || inits.Load() == 0 {
			t.Errorf("workers=%d: %d values created by init, All yields %d", workers, inits.Load(), len(ids))
		}
		// Early break out of All.
		for range pw.All() {
			break
		}
		p.Close()
	}
}

func TestPerWorkerMisuse(t *testing.T) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	q := pool.New(pool.WithWorkers(1))
	defer q.Close()
	pw := parallel.NewPerWorker[int](p, nil) // nil init: zero values
	r := fjtest.Catch(func() { q.Run(func(w *pool.Worker) { pw.Get(w) }) })
	if s := fmt.Sprint(r); !strings.Contains(s, "PerWorker.Get with worker 0 of another pool") {
		t.Errorf("Get with another pool's worker: panic %q", s)
	}
	if r := fjtest.Catch(func() { pw.Get(nil) }); !strings.Contains(fmt.Sprint(r), "nil *pool.Worker") {
		t.Errorf("Get(nil): panic %v", r)
	}
	if r := fjtest.Catch(func() { parallel.NewPerWorker[int](nil, nil) }); !strings.Contains(fmt.Sprint(r), "NewPerWorker with a nil pool.Runner") {
		t.Errorf("NewPerWorker(nil): panic %v", r)
	}
	if r := fjtest.Catch(func() { pw.Combine(0, nil) }); !strings.Contains(fmt.Sprint(r), "nil combine") {
		t.Errorf("Combine(nil): panic %v", r)
	}
	if got := pw.Combine(-1, func(a, b int) int { return a + b }); got != -1 {
		t.Errorf("Combine with no values = %d, want the identity", got)
	}
	p.Run(func(w *pool.Worker) { *pw.Get(w) = 5 })
	if got := pw.Combine(-1, func(a, b int) int { return a + b }); got != 5 {
		t.Errorf("Combine with one value = %d, want it, identity not combined", got)
	}
}

// Get checks that the calling goroutine holds w, as every call given a
// *pool.Worker does: with a worker handed to another goroutine, or kept
// after its task returned, it would hand out the value another task may
// be updating at that moment.
func TestPerWorkerGetChecksTheHolder(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	pw := parallel.NewPerWorker[int](p, nil)
	const want = "parallel.PerWorker.Get with the *pool.Worker"
	var kept *pool.Worker
	p.Run(func(w *pool.Worker) {
		*pw.Get(w) = 1 // the holder: allowed
		res := make(chan any, 1)
		//fjvet:ignore captured-worker the check under test: Get from another goroutine panics
		go func() { res <- fjtest.Catch(func() { *pw.Get(w) = 100 }) }() // the mistake
		//fjvet:ignore blocking waits for the goroutine the test started
		if r := <-res; !strings.Contains(fmt.Sprint(r), want) || !strings.Contains(fmt.Sprint(r), "not running its task") {
			t.Errorf("Get from a goroutine the task started: panic %v, want %q", r, want)
		}
		kept = w
	})
	if r := fjtest.Catch(func() { *pw.Get(kept) = 100 }); !strings.Contains(fmt.Sprint(r), want) {
		t.Errorf("Get with a worker kept after its task returned: panic %v, want %q", r, want)
	}
	if got := pw.Combine(0, func(a, b int) int { return a + b }); got != 1 {
		t.Errorf("values sum to %d after the refused Gets, want 1 (the holder's)", got)
	}
}
