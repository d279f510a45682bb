package parallel_test

import (
	"fmt"
	"math/rand"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The tests of the slice algorithms (search, aggregates, Filter,
// SortByKey) compare each with its sequential slices counterpart on
// these sizes, options and pool sizes.

var algoSizes = []int{0, 1, 2, 3, 100, 4097, 100_000}

// algoBig is the one large size, tested with fewer combinations.
func algoBig() int { return fjtest.Small(1<<20, 1<<15) }

func algoOpts() []parallel.Option {
	return []parallel.Option{nil, parallel.Grain(1), parallel.Grain(64)}
}

// algoPools runs f on pools of 1, 2 and 8 workers.
func algoPools(t *testing.T, f func(t *testing.T, p *pool.Pool)) {
	t.Helper()
	for _, workers := range []int{1, 2, 8} {
		p := pool.New(pool.WithWorkers(workers))
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) { f(t, p) })
		p.Close()
	}
}

// algoCases calls f for every size and option, plus the large size with the
// default options.
func algoCases(f func(n int, opt parallel.Option, name string)) {
	for _, n := range algoSizes {
		for gi, opt := range algoOpts() {
			f(n, opt, fmt.Sprintf("n=%d/opt#%d", n, gi))
		}
	}
	f(algoBig(), nil, fmt.Sprintf("n=%d/default", algoBig()))
}

func randInts(rng *rand.Rand, n, mod int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = rng.Intn(mod)
	}
	return s
}

// catchPanicError runs f and returns the *pool.PanicError it panicked with;
// it fails the test if f returned or panicked with anything else.
func catchPanicError(t *testing.T, what string, f func()) *pool.PanicError {
	t.Helper()
	r := fjtest.Catch(f)
	pe, ok := r.(*pool.PanicError)
	if !ok {
		t.Fatalf("%s: recovered %T %v, want a *pool.PanicError", what, r, r)
	}
	return pe
}

// wantPanicMessage checks that f panics with a message containing every
// one of parts.
func wantPanicMessage(t *testing.T, what string, f func(), parts ...string) {
	t.Helper()
	r := fjtest.Catch(f)
	if r == nil {
		t.Errorf("%s: did not panic", what)
		return
	}
	msg := fjtest.PanicMessage(r)
	for _, part := range parts {
		if !strings.Contains(msg, part) {
			t.Errorf("%s: panic %q does not mention %q", what, msg, part)
		}
	}
}

func TestIndexFuncMatchesSlices(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		rng := rand.New(rand.NewSource(1))
		algoCases(func(n int, opt parallel.Option, name string) {
			// Values up to 4n: about a quarter of the targets hit, at
			// random places, several times.
			s := randInts(rng, n, 4*n+1)
			for k := 0; k < 6; k++ {
				target := rng.Intn(4*n + 1)
				if k == 0 && n > 0 {
					target = s[n-1] // a hit at the end, maybe earlier too
				}
				f := func(x int) bool { return x == target }
				got := parallel.IndexFunc(p, s, f, opt)
				if want := slices.IndexFunc(s, f); got != want {
					t.Fatalf("%s target %d: IndexFunc = %d, want %d", name, target, got, want)
				}
				gotC := parallel.ContainsFunc(p, s, f, opt)
				if want := slices.ContainsFunc(s, f); gotC != want {
					t.Fatalf("%s target %d: ContainsFunc = %v, want %v", name, target, gotC, want)
				}
			}
		})
	})
}

// Whatever the hits and wherever the workers are, the first one wins.
func TestIndexFuncFirstOfSeveralHits(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	n := fjtest.Small(100_000, 10_000)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		rng := rand.New(rand.NewSource(2))
		hit := make([]bool, n)
		for trial := 0; trial < 50; trial++ {
			clear(hit)
			first := n
			for k := 0; k < 1+trial%7; k++ {
				i := rng.Intn(n)
				if trial%5 == 0 {
					i = n - 1 - rng.Intn(300) // hits crowded at the end
				}
				hit[i] = true
				first = min(first, i)
			}
			for _, opt := range algoOpts() {
				var calls atomic.Int64
				got := parallel.IndexFunc(p, hit, func(b bool) bool { calls.Add(1); return b }, opt)
				if got != first {
					t.Fatalf("trial %d: IndexFunc = %d, want %d", trial, got, first)
				}
				if c := calls.Load(); c < int64(first+1) || c > int64(n) {
					t.Fatalf("trial %d: %d calls of f for a first hit at %d of %d", trial, c, first, n)
				}
			}
		}
	})
}

// On one worker the pieces run left to right, so nothing right of the
// first hit is tested at all; with more workers, pieces that started
// before the hit was found stop within a block. 10M elements with a hit
// near the start must not all be tested.
//
// A test right of the hit waits until the hit has been tested: otherwise
// the worker that holds the hit (one goroutine of 8 on a 2-core machine)
// may simply not run while the others test everything right of it, which
// no search can prevent. The wait spins with Gosched rather than block, so
// that the stall watch sees running holders and starts no stand-ins.
func TestSearchStopsEarly(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	n := fjtest.Small(10_000_000, 1<<18)
	s := make([]int32, n) // s[i] = i: f knows where it is
	for i := range s {
		s[i] = int32(i)
	}
	const hitAt = 1000
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		for _, opt := range algoOpts() {
			var calls atomic.Int64
			var seen atomic.Bool
			f := func(x int32) bool {
				calls.Add(1)
				if x == hitAt {
					seen.Store(true)
					return true
				}
				for x > hitAt && !seen.Load() {
					runtime.Gosched()
				}
				return false
			}
			if got := parallel.IndexFunc(p, s, f, opt); got != hitAt {
				t.Fatalf("IndexFunc = %d, want %d", got, hitAt)
			}
			c := calls.Load()
			if p.Workers() == 1 && c != hitAt+1 {
				t.Errorf("IndexFunc on one worker called f %d times, want %d", c, hitAt+1)
			}
			// A loose bound: once the hit is seen, each piece right of
			// it stops within a block.
			if c > int64(n/2) {
				t.Errorf("IndexFunc called f %d times for a hit at %d of %d", c, hitAt, n)
			}

			calls.Store(0)
			seen.Store(false)
			if !parallel.ContainsFunc(p, s, f, opt) {
				t.Fatalf("ContainsFunc = false, want true")
			}
			c = calls.Load()
			if p.Workers() == 1 && c != hitAt+1 {
				t.Errorf("ContainsFunc on one worker called f %d times, want %d", c, hitAt+1)
			}
			if c > int64(n/2) {
				t.Errorf("ContainsFunc called f %d times for a hit at %d of %d", c, hitAt, n)
			}
		}
	})
}

func TestSearchOnWorker(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	s := randInts(rand.New(rand.NewSource(3)), 10_000, 1000)
	want := slices.Index(s, 7)
	var got int
	var has bool
	p.Run(func(w *pool.Worker) {
		got = parallel.IndexFunc(w, s, func(x int) bool { return x == 7 })
		has = parallel.ContainsFunc(w, s, func(x int) bool { return x == 7 })
	})
	if got != want || has != (want >= 0) {
		t.Fatalf("on a worker: IndexFunc = %d, ContainsFunc = %v; want %d, %v", got, has, want, want >= 0)
	}
}

func TestSearchPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		s := make([]int, 10_000)
		s[5000] = 1
		f := func(x int) bool {
			if x == 1 {
				panic(errBoom)
			}
			return false
		}
		for _, opt := range algoOpts() {
			pe := catchPanicError(t, "IndexFunc", func() { parallel.IndexFunc(p, s, f, opt) })
			if pe.Value != errBoom {
				t.Errorf("IndexFunc: PanicError.Value = %v, want %v", pe.Value, errBoom)
			}
			pe = catchPanicError(t, "ContainsFunc", func() { parallel.ContainsFunc(p, s, f, opt) })
			if pe.Value != errBoom {
				t.Errorf("ContainsFunc: PanicError.Value = %v, want %v", pe.Value, errBoom)
			}
		}
	})
}

func TestSearchBadInput(t *testing.T) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	s := []int{1, 2, 3}
	wantPanicMessage(t, "IndexFunc nil f", func() { parallel.IndexFunc(p, s, nil) }, "IndexFunc", "nil")
	wantPanicMessage(t, "ContainsFunc nil f", func() { parallel.ContainsFunc(p, s, nil) }, "ContainsFunc", "nil")
	yes := func(int) bool { return true }
	wantPanicMessage(t, "IndexFunc nil runner", func() { parallel.IndexFunc(nil, s, yes) }, "nil pool.Runner")
	wantPanicMessage(t, "ContainsFunc nil runner", func() { parallel.ContainsFunc(nil, s[:0], yes) }, "nil pool.Runner")
	var w *pool.Worker
	wantPanicMessage(t, "IndexFunc nil worker", func() { parallel.IndexFunc(w, s, yes) }, "nil *pool.Worker")
}
