package parallel_test

// Edge cases every entry point must decide the same way: empty input,
// closed pools, calls that stop before they complete, and the first
// error or panic of a call.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// entryPoints returns one call of every entry point of the package on r,
// on empty (or, where empty input is an error, one-element) input, by
// name.
func entryPoints(r pool.Runner) map[string]func() {
	body := func(*pool.Worker, int) {}
	rng := func(*pool.Worker, int, int) {}
	errBody := func(*pool.Worker, int) error { return nil }
	errRng := func(*pool.Worker, int, int) error { return nil }
	chunk := func(*pool.Worker, int, int) int { return 0 }
	errChunk := func(*pool.Worker, int, int) (int, error) { return 0, nil }
	add := func(a, b int) int { return a + b }
	id := func(_ *pool.Worker, x int) int { return x }
	idErr := func(_ *pool.Worker, x int) (int, error) { return x, nil }
	yes := func(int) bool { return true }
	empty := func(func(int) bool) {}
	one := []int{1}
	return map[string]func(){
		"For":            func() { parallel.For(r, 0, 0, body) },
		"ForErr":         func() { _ = parallel.ForErr(r, 0, 0, errBody) },
		"ForRange":       func() { parallel.ForRange(r, 0, 0, rng) },
		"ForRangeErr":    func() { _ = parallel.ForRangeErr(r, 0, 0, errRng) },
		"Reduce":         func() { parallel.Reduce(r, 0, 0, 0, chunk, add) },
		"ReduceErr":      func() { _, _ = parallel.ReduceErr(r, 0, 0, 0, errChunk, add) },
		"Map":            func() { parallel.Map(r, []int(nil), id) },
		"MapErr":         func() { _, _ = parallel.MapErr(r, []int(nil), idErr) },
		"ForSeq":         func() { parallel.ForSeq(r, empty, body) },
		"ForSeqErr":      func() { _ = parallel.ForSeqErr(r, empty, errBody) },
		"MapSeq":         func() { parallel.MapSeq(r, empty, id) },
		"MapSeqErr":      func() { _, _ = parallel.MapSeqErr(r, empty, idErr) },
		"Do()":           func() { parallel.Do(r) },
		"Do(f)":          func() { parallel.Do(r, func(*pool.Worker) {}) },
		"Scan(0)":        func() { parallel.Scan(r, []int(nil), add) },
		"Scan(1)":        func() { parallel.Scan(r, []int{1}, add) },
		"Filter":         func() { parallel.Filter(r, []int(nil), yes) },
		"Sum":            func() { parallel.Sum(r, []int(nil)) },
		"Min":            func() { parallel.Min(r, one) },
		"Max":            func() { parallel.Max(r, one) },
		"MinFunc":        func() { parallel.MinFunc(r, one, cmp.Compare[int]) },
		"MaxFunc":        func() { parallel.MaxFunc(r, one, cmp.Compare[int]) },
		"CountFunc":      func() { parallel.CountFunc(r, []int(nil), yes) },
		"IndexFunc":      func() { parallel.IndexFunc(r, []int(nil), yes) },
		"ContainsFunc":   func() { parallel.ContainsFunc(r, []int(nil), yes) },
		"Sort(0)":        func() { parallel.Sort(r, []int(nil)) },
		"Sort(1)":        func() { parallel.Sort(r, one) },
		"SortFunc":       func() { parallel.SortFunc(r, one, cmp.Compare[int]) },
		"SortStableFunc": func() { parallel.SortStableFunc(r, one, cmp.Compare[int]) },
		"SortByKey":      func() { parallel.SortByKey(r, one, func(x int) int { return x }) },
	}
}

// entryPoints lists every function of the package that takes a Runner:
// a function added to the pinned API (testdata/api/parallel.txt) must be
// added there too, so that the tables over it test it.
func TestEntryPointsListEveryCall(t *testing.T) {
	api, err := os.ReadFile(filepath.Join("..", "testdata", "api", "parallel.txt"))
	if err != nil {
		t.Fatal(err)
	}
	notCalls := map[string]bool{ // options and their constructors
		"Context": true, "Deterministic": true, "Grain": true, "Stop": true, "WithContext": true,
	}
	listed := map[string]bool{}
	for name := range entryPoints(nil) {
		listed[strings.TrimRight(name, "()0123456789f")] = true
	}
	found := 0
	for _, line := range strings.Split(string(api), "\n") {
		name, ok := strings.CutPrefix(line, "func ")
		if !ok || notCalls[name] || name == "NewPerWorker" {
			continue
		}
		found++
		if !listed[name] {
			t.Errorf("parallel.%s is missing from entryPoints", name)
		}
	}
	if found < 20 {
		t.Fatalf("found only %d functions in the pinned API: the parse is broken", found)
	}
}

// Every entry point decides about its Runner first, whatever its input:
// a closed pool used from outside, a nil Runner and a nil *Pool panic
// even when there is nothing to do.
func TestEveryEntryPointChecksItsRunner(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	closed := pool.New(pool.WithWorkers(1))
	closed.Close()
	var nilPool *pool.Pool
	for _, tc := range []struct {
		r    pool.Runner
		what string
		want string
	}{
		{closed, "a closed pool", "closed pool"},
		{nil, "a nil Runner", "nil pool.Runner"},
		{nilPool, "a nil *Pool", "nil *Pool"},
	} {
		for name, call := range entryPoints(tc.r) {
			r := fjtest.Catch(call)
			if msg := fmt.Sprint(r); r == nil || !strings.Contains(msg, tc.want) {
				t.Errorf("%s on %s: panic %q, want one containing %q", name, tc.what, msg, tc.want)
			}
		}
	}
}

// With a context that is done before the call, the Err forms return its
// cause even when there is nothing to do: the call ran nothing because
// of ctx, as it would have on any input.
func TestErrFormsOnEmptyInputReportADoneContext(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	cause := errors.New("cancelled for the test")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	opt := parallel.Context(ctx)
	for name, call := range map[string]func() error{
		"ForErr": func() error { return parallel.ForErr(p, 5, 5, func(*pool.Worker, int) error { return nil }, opt) },
		"ForRangeErr": func() error {
			return parallel.ForRangeErr(p, 0, -1, func(*pool.Worker, int, int) error { return nil }, opt)
		},
		"MapErr": func() error {
			out, err := parallel.MapErr(p, []int{}, func(_ *pool.Worker, x int) (int, error) { return x, nil }, opt)
			if out != nil {
				t.Errorf("MapErr: result %v with an error, want nil", out)
			}
			return err
		},
		"ReduceErr": func() error {
			v, err := parallel.ReduceErr(p, 0, 0, 7, func(*pool.Worker, int, int) (int, error) { return 0, nil }, func(a, b int) int { return a + b }, opt)
			if v != 7 {
				t.Errorf("ReduceErr: %d, want the identity 7", v)
			}
			return err
		},
		"ForSeqErr": func() error {
			return parallel.ForSeqErr(p, func(func(int) bool) {}, func(*pool.Worker, int) error { return nil }, opt)
		},
		"MapSeqErr": func() error {
			out, err := parallel.MapSeqErr(p, func(func(int) bool) {}, func(_ *pool.Worker, x int) (int, error) { return x, nil }, opt)
			if out != nil {
				t.Errorf("MapSeqErr: result %v with an error, want nil", out)
			}
			return err
		},
	} {
		if err := call(); err != cause {
			t.Errorf("%s on empty input with a done context: %v, want its cause", name, err)
		}
	}
}

// MapErr records the error of f before anything else, so that the other
// workers stop before their next element: storing the result it is about
// to discard first (a first touch of fresh memory: a page fault, the
// zeroing of a huge page) let tens of thousands of elements start after
// the error. Whether the old order shows depends on what a first touch
// costs on the machine (with transparent huge pages it did, 30 to 51
// times in 300 runs); the test pins the rule: after the failing f has
// returned, another worker starts at most an element or two.
func TestMapErrStopsAtTheErrorBeforeStoring(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	boom := errors.New("boom")
	n := 1 << 20
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	// The failing element is the first of a fresh page (4 KiB or 2 MiB)
	// of the result, in the middle of the first of two pieces.
	fail := n / 4
	runs := fjtest.Stress(30, 100, 30) // 100 with FJ_LONG: 8 s on two cores
	lates := make([]int64, 0, runs)
	for run := 0; run < runs; run++ {
		debug.FreeOSMemory() // the result's memory is fresh every run
		var returned atomic.Bool
		var late atomic.Int64
		_, err := parallel.MapErr(p, s, func(w *pool.Worker, x int) (int64, error) {
			if returned.Load() {
				late.Add(1)
			}
			if x == fail {
				defer returned.Store(true)
				return 0, boom
			}
			return 1, nil
		}, parallel.Grain(n/2))
		if err != boom {
			t.Fatalf("MapErr: %v, want boom", err)
		}
		lates = append(lates, late.Load())
	}
	// Between f's return and the record of its error, another worker may
	// start an element or two; not the page's worth (512) that it runs
	// while a store takes a page fault. The median, not the worst run: a
	// run in which the machine deschedules the failing worker's thread
	// right after f returns lets the other run on whatever the order.
	slices.Sort(lates)
	if median := lates[len(lates)/2]; median > 8 {
		t.Errorf("in half of %d runs, %d or more elements started after f had returned its error (all runs: %v)", runs, median, lates)
	}
}

func TestSortByKeyCallsKeyOncePerElement(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for _, n := range []int{0, 1, 2, 3, 100} {
		s := make([]int, n)
		for i := range s {
			s[i] = n - i
		}
		var calls atomic.Int64
		parallel.SortByKey(p, s, func(x int) int { calls.Add(1); return x })
		if calls.Load() != int64(n) {
			t.Errorf("SortByKey of %d elements called key %d times, want %d", n, calls.Load(), n)
		}
		if !slices.IsSorted(s) {
			t.Errorf("SortByKey of %d elements: %v", n, s)
		}
	}
	// A panic in key on a single element is reported as on many.
	r := fjtest.Catch(func() { parallel.SortByKey(p, []int{1}, func(int) int { panic("key boom") }) })
	if pe, ok := r.(*pool.PanicError); !ok || pe.Value != "key boom" {
		t.Errorf("SortByKey of one element whose key panics: %v, want a *pool.PanicError of the panic", r)
	}
}

// A Filter that stops before it completes returns nil, never a slice
// holding zero values in place of elements it did not get to copy.
func TestFilterThatStopsReturnsNil(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	n := fjtest.Small(1<<18, 1<<15)
	s := make([]int, n)
	for i := range s {
		s[i] = i + 1 // no zero among the elements
	}
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for _, at := range []int{0, 1, n / 3, n - 1} {
			var flag parallel.StopFlag
			got := parallel.Filter(p, s, func(x int) bool {
				if x == at+1 {
					flag.Stop()
				}
				return true
			}, parallel.Stop(&flag))
			if got != nil {
				t.Errorf("workers=%d: Filter stopped at element %d returned %d elements, want nil", workers, at, len(got))
			}
			ctx, cancel := context.WithCancel(context.Background())
			got = parallel.Filter(p, s, func(x int) bool {
				if x == at+1 {
					cancel()
				}
				return true
			}, parallel.Context(ctx))
			cancel()
			if got != nil {
				t.Errorf("workers=%d: Filter whose context ended at element %d returned %d elements, want nil", workers, at, len(got))
			}
		}
		// A flag stopped in the second pass (by another call) gives nil too;
		// one that stays clear gives every element.
		var flag parallel.StopFlag
		if got := parallel.Filter(p, s, func(x int) bool { return x%2 == 0 }, parallel.Stop(&flag)); len(got) != n/2 || got[0] != 2 {
			t.Errorf("workers=%d: Filter with a clear flag returned %d elements, want %d", workers, len(got), n/2)
		}
		p.Close()
	}
}

// init of a PerWorker runs once per worker even when it parks (here in a
// blocking section) and the worker meanwhile runs other tasks that Get the
// same value: they wait for init instead of running it again, and no
// update is lost.
func TestPerWorkerInitRunsOncePerWorkerWhenItParks(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		const n = 100
		var inits, started atomic.Int64
		release := make(chan struct{})
		pw := parallel.NewPerWorker(p, func() int {
			if inits.Add(1) == 1 {
				// Park until every body has started: with the fix they
				// all wait in Get for this init (or, on another worker,
				// run an init of their own).
				pool.Blocking(func() { <-release })
			}
			return 0
		})
		// A task per body (Do halves its list down to single functions),
		// so that every body can start while the first init is parked.
		bodies := make([]func(*pool.Worker), n)
		for i := range bodies {
			bodies[i] = func(w *pool.Worker) {
				if started.Add(1) == n {
					close(release)
				}
				*pw.Get(w) += 1
			}
		}
		parallel.Do(p, bodies...)
		total := pw.Combine(0, func(a, b int) int { return a + b })
		if total != n {
			t.Errorf("workers=%d: %d increments survived of %d (init ran %d times)", workers, total, n, inits.Load())
		}
		if got := inits.Load(); got > int64(workers) {
			t.Errorf("workers=%d: init ran %d times, want at most once per worker", workers, got)
		}
		p.Close()
	}
}

// When the body panics and the sequence then panics too, on being told to
// stop, ForSeq raises the panic that came first, the body's, with the
// sequence's in its Later: neither is lost.
func TestForSeqKeepsEveryPanic(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		errBody, errSeq := errors.New("body boom"), errors.New("seq boom")
		var seq iter.Seq[int] = func(yield func(int) bool) {
			for i := 0; ; i++ {
				if !yield(i) {
					panic(errSeq)
				}
			}
		}
		r := fjtest.Catch(func() {
			parallel.ForSeq(p, seq, func(_ *pool.Worker, i int) {
				if i == 3 {
					panic(errBody)
				}
			}, parallel.Grain(1))
		})
		pe, ok := r.(*pool.PanicError)
		if !ok {
			t.Fatalf("workers=%d: recovered %T %v, want a *pool.PanicError", workers, r, r)
		}
		if pe.Value != errBody {
			t.Errorf("workers=%d: raised %v first, want the body's panic, which happened first", workers, pe.Value)
		}
		if !errors.Is(pe, errSeq) || !errors.Is(pe, errBody) {
			t.Errorf("workers=%d: %v: want both the body's and the sequence's panic reachable", workers, pe)
		}
		p.Close()
	}
}
