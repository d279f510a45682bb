package parallel_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// optionCalls returns every call that takes options, on n elements of s,
// with opts: the rows of the package documentation's table.
func optionCalls(r pool.Runner, s []int, opts ...parallel.Option) map[string]func() {
	n := len(s)
	body := func(*pool.Worker, int) {}
	rng := func(*pool.Worker, int, int) {}
	chunk := func(_ *pool.Worker, lo, hi int) int { return hi - lo }
	add := func(a, b int) int { return a + b }
	yes := func(int) bool { return true }
	seq := slices.Values(s)
	return map[string]func(){
		"For":         func() { parallel.For(r, 0, n, body, opts...) },
		"ForErr":      func() { _ = parallel.ForErr(r, 0, n, func(*pool.Worker, int) error { return nil }, opts...) },
		"ForRange":    func() { parallel.ForRange(r, 0, n, rng, opts...) },
		"ForRangeErr": func() { _ = parallel.ForRangeErr(r, 0, n, func(*pool.Worker, int, int) error { return nil }, opts...) },
		"Reduce":      func() { parallel.Reduce(r, 0, n, 0, chunk, add, opts...) },
		"ReduceErr": func() {
			_, _ = parallel.ReduceErr(r, 0, n, 0, func(*pool.Worker, int, int) (int, error) { return 0, nil }, add, opts...)
		},
		"Map": func() { parallel.Map(r, s, func(_ *pool.Worker, x int) int { return x }, opts...) },
		"MapErr": func() {
			_, _ = parallel.MapErr(r, s, func(_ *pool.Worker, x int) (int, error) { return x, nil }, opts...)
		},
		"ForSeq":    func() { parallel.ForSeq(r, seq, body, opts...) },
		"ForSeqErr": func() { _ = parallel.ForSeqErr(r, seq, func(*pool.Worker, int) error { return nil }, opts...) },
		"MapSeq":    func() { parallel.MapSeq(r, seq, func(_ *pool.Worker, x int) int { return x }, opts...) },
		"MapSeqErr": func() {
			_, _ = parallel.MapSeqErr(r, seq, func(_ *pool.Worker, x int) (int, error) { return x, nil }, opts...)
		},
		"Scan":           func() { parallel.Scan(r, slices.Clone(s), add, opts...) },
		"Filter":         func() { parallel.Filter(r, s, yes, opts...) },
		"Sum":            func() { parallel.Sum(r, s, opts...) },
		"Min":            func() { parallel.Min(r, s, opts...) },
		"Max":            func() { parallel.Max(r, s, opts...) },
		"MinFunc":        func() { parallel.MinFunc(r, s, cmp.Compare[int], opts...) },
		"MaxFunc":        func() { parallel.MaxFunc(r, s, cmp.Compare[int], opts...) },
		"CountFunc":      func() { parallel.CountFunc(r, s, yes, opts...) },
		"IndexFunc":      func() { parallel.IndexFunc(r, s, yes, opts...) },
		"ContainsFunc":   func() { parallel.ContainsFunc(r, s, yes, opts...) },
		"Sort":           func() { parallel.Sort(r, slices.Clone(s), opts...) },
		"SortFunc":       func() { parallel.SortFunc(r, slices.Clone(s), cmp.Compare[int], opts...) },
		"SortStableFunc": func() { parallel.SortStableFunc(r, slices.Clone(s), cmp.Compare[int], opts...) },
		"SortByKey":      func() { parallel.SortByKey(r, slices.Clone(s), func(x int) int { return x }, opts...) },
	}
}

// takes says which calls take which option: the table in doc.go.
func takes(call, option string) bool {
	switch option {
	case "Context", "Stop", "WithContext":
		return true
	case "Grain":
		return !strings.HasPrefix(call, "Sort")
	case "Deterministic":
		switch call {
		case "Reduce", "ReduceErr", "Sum", "Min", "Max", "MinFunc", "MaxFunc", "CountFunc":
			return true
		}
	}
	return false
}

// Every call that takes options either honours an option or panics at the
// call, naming it: nothing is silently ignored.
func TestEveryCallHonoursOrRefusesEveryOption(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	s := []int{3, 1, 2}
	options := map[string]func() parallel.Option{
		"Grain":         func() parallel.Option { return parallel.Grain(2) },
		"Context":       func() parallel.Option { return parallel.Context(context.Background()) },
		"Stop":          func() parallel.Option { return parallel.Stop(new(parallel.StopFlag)) },
		"Deterministic": parallel.Deterministic,
		"WithContext": func() parallel.Option {
			o, _ := parallel.WithContext(context.Background())
			return o
		},
	}
	for option, mk := range options {
		for call := range optionCalls(p, s) {
			f := optionCalls(p, s, mk())[call]
			r := fjtest.Catch(f)
			msg := fmt.Sprint(r)
			if takes(call, option) {
				if r != nil {
					t.Errorf("%s with %s: panic %v, want it honoured", call, option, r)
				}
				continue
			}
			if r == nil || !strings.Contains(msg, call+" does not take the "+option+" option") {
				t.Errorf("%s with %s: panic %q, want one saying it does not take the option", call, option, msg)
			}
		}
	}
}

// A call given a stopped flag, or a done context, runs nothing: no body,
// key, comparator or op is called, and the Err forms report the context's
// cause (and nil for the flag: a Stop is a break).
func TestStoppedCallsRunNothing(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	n := 100_000
	s := rand.New(rand.NewSource(1)).Perm(n)
	cause := errors.New("done before the call")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	var flag parallel.StopFlag
	flag.Stop()
	for what, opt := range map[string]parallel.Option{"a done context": parallel.Context(ctx), "a stopped flag": parallel.Stop(&flag)} {
		var calls atomic.Int64
		count := func() { calls.Add(1) }
		c := slices.Clone(s)
		parallel.Sort(p, c, opt)
		parallel.SortFunc(p, c, func(a, b int) int { count(); return a - b }, opt)
		parallel.SortStableFunc(p, c, func(a, b int) int { count(); return a - b }, opt)
		parallel.SortByKey(p, c, func(x int) int { count(); return x }, opt)
		parallel.Scan(p, c, func(a, b int) int { count(); return a + b }, opt)
		if !slices.Equal(c, s) {
			t.Errorf("with %s: the sorts or Scan changed s", what)
		}
		if parallel.Filter(p, s, func(int) bool { count(); return true }, opt) != nil {
			t.Errorf("with %s: Filter returned elements", what)
		}
		parallel.CountFunc(p, s, func(int) bool { count(); return true }, opt)
		parallel.IndexFunc(p, s, func(int) bool { count(); return true }, opt)
		parallel.ContainsFunc(p, s, func(int) bool { count(); return true }, opt)
		if got := parallel.Sum(p, s, opt); got != 0 {
			t.Errorf("with %s: Sum = %d, want 0 (no element looked at)", what, got)
		}
		parallel.For(p, 0, n, func(*pool.Worker, int) { count() }, opt)
		err := parallel.ForErr(p, 0, n, func(*pool.Worker, int) error { count(); return nil }, opt)
		want := error(nil)
		if what == "a done context" {
			want = cause
		}
		if err != want {
			t.Errorf("with %s: ForErr returned %v, want %v", what, err, want)
		}
		if calls.Load() != 0 {
			t.Errorf("with %s: %d calls of the functions, want none", what, calls.Load())
		}
	}
}

// A sort stopped in the middle leaves a permutation of its input, and a
// Scan stopped in the middle leaves every element either as it was or
// at its final value.
func TestStoppedSortsAndScanLeaveValidStates(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	n := fjtest.Small(1<<19, 1<<17)
	if !fjtest.Long() {
		n = 1 << 17 // FJ_LONG (CI) sorts the larger slice
	}
	orig := rand.New(rand.NewSource(2)).Perm(n)
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for _, after := range []int64{1, 1000, int64(n), 10 * int64(n)} {
			// The flag is set after so many calls of the function: in
			// the middle of the sort, for most of these.
			for name, sort := range map[string]func(s []int, opt parallel.Option, tick func()){
				"Sort": func(s []int, opt parallel.Option, tick func()) {
					// Sort calls nothing of ours: stop it from outside.
					done := make(chan struct{})
					go func() { defer close(done); tick() }()
					parallel.Sort(p, s, opt)
					<-done
				},
				"SortFunc": func(s []int, opt parallel.Option, tick func()) {
					parallel.SortFunc(p, s, func(a, b int) int { tick(); return a - b }, opt)
				},
				"SortStableFunc": func(s []int, opt parallel.Option, tick func()) {
					parallel.SortStableFunc(p, s, func(a, b int) int { tick(); return a - b }, opt)
				},
				"SortByKey": func(s []int, opt parallel.Option, tick func()) {
					parallel.SortByKey(p, s, func(x int) int { tick(); return x }, opt)
				},
			} {
				for _, kind := range []string{"Stop", "Context"} {
					var flag parallel.StopFlag
					ctx, cancel := context.WithCancel(context.Background())
					opt := parallel.Stop(&flag)
					if kind == "Context" {
						opt = parallel.Context(ctx)
					}
					var calls atomic.Int64
					tick := func() {
						if calls.Add(1) == after {
							flag.Stop()
							cancel()
						}
					}
					if name == "Sort" {
						tick = func() {
							for calls.Add(1) < after/64 {
							}
							flag.Stop()
							cancel()
						}
					}
					s := slices.Clone(orig)
					sort(s, opt, tick)
					cancel()
					got := slices.Clone(s)
					slices.Sort(got)
					for i, x := range got {
						if x != i {
							t.Fatalf("workers=%d: %s stopped (%s) after %d calls: not a permutation of its input (%d at %d of the sorted result)", workers, name, kind, after, x, i)
						}
					}
				}
			}
			// Scan: each element is its original or its prefix sum.
			var flag parallel.StopFlag
			var calls atomic.Int64
			s := make([]int, n)
			for i := range s {
				s[i] = 1
			}
			parallel.Scan(p, s, func(a, b int) int {
				if calls.Add(1) == after {
					flag.Stop()
				}
				return a + b
			}, parallel.Stop(&flag))
			for i, x := range s {
				if x != 1 && x != i+1 {
					t.Fatalf("workers=%d: Scan stopped after %d calls: s[%d] = %d, want 1 or %d", workers, after, i, x, i+1)
				}
			}
		}
		p.Close()
	}
}

// With WithContext, the bodies' context ends at the first error, with
// that error as its cause, so a body blocked on it returns; the call
// returns the error. (On two workers or more: the loop splits because
// the other workers are idle, so the failing item runs beside the
// blocked one. On one worker, a loop runs its items in order.)
func TestWithContextCancelsBodiesAtTheFirstError(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, workers := range []int{2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		boom := errors.New("boom")
		for rep := 0; rep < 20; rep++ {
			opt, ctx := parallel.WithContext(context.Background())
			err := parallel.ForErr(p, 0, 2, func(_ *pool.Worker, i int) error {
				if i == 1 {
					return boom
				}
				// Blocks until the call cancels ctx: without the cancel
				// at the error, this never returns.
				var cause error
				pool.Blocking(func() { <-ctx.Done(); cause = context.Cause(ctx) })
				return cause
			}, opt)
			if err != boom {
				t.Errorf("workers=%d: ForErr returned %v, want boom", workers, err)
			}
			if context.Cause(ctx) != boom {
				t.Errorf("workers=%d: the bodies' context ended with %v, want boom", workers, context.Cause(ctx))
			}
		}
		p.Close()
	}
}

// WithContext's context ends when the call's flag is set (a Stop, a
// panic), when the parent ends, and when the call returns; a call in which
// every piece completed returns nil however the context ended.
func TestWithContextEndsWithTheCall(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	// Stop: a break; the bodies' context ends, the call returns nil.
	var flag parallel.StopFlag
	opt, ctx := parallel.WithContext(context.Background())
	err := parallel.ForErr(p, 0, 1000, func(_ *pool.Worker, i int) error {
		if i == 10 {
			flag.Stop()
			//fjvet:ignore blocking the context is done already: the receive does not wait
			<-ctx.Done() // ended by the Stop, not by the end of the call
		}
		return nil
	}, opt, parallel.Stop(&flag), parallel.Grain(1))
	if err != nil || ctx.Err() == nil {
		t.Errorf("Stop: ForErr returned %v and the bodies' context %v, want nil and cancelled", err, ctx.Err())
	}

	// A panic ends the context too, before the call returns.
	opt, ctx = parallel.WithContext(context.Background())
	r := fjtest.Catch(func() {
		parallel.For(p, 0, 100, func(_ *pool.Worker, i int) {
			if i == 0 {
				panic("boom")
			}
			if i == 99 {
				pool.Blocking(func() { <-ctx.Done() })
			}
		}, opt, parallel.Grain(1))
	})
	if _, ok := r.(*pool.PanicError); !ok {
		t.Errorf("panic: recovered %v, want a *pool.PanicError", r)
	}

	// The parent ends: the bodies see it; the call, cut short, reports it.
	parent, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("parent cancelled")
	opt, ctx = parallel.WithContext(parent)
	err = parallel.ForErr(p, 0, 1000, func(_ *pool.Worker, i int) error {
		if i == 0 {
			cancel(cause)
			//fjvet:ignore blocking the context is done already: the receive does not wait
			<-ctx.Done()
		}
		return nil
	}, opt, parallel.Grain(1))
	if err != cause {
		t.Errorf("parent cancelled: ForErr returned %v, want its cause", err)
	}

	// The parent ends after every piece completed: nil, as errgroup.
	parent, cancel = context.WithCancelCause(context.Background())
	opt, ctx = parallel.WithContext(parent)
	var left atomic.Int64
	left.Store(100)
	err = parallel.ForErr(p, 0, 100, func(_ *pool.Worker, i int) error {
		if left.Add(-1) == 0 {
			cancel(cause) // the last body: everything else is done
		}
		return nil
	}, opt)
	if err != nil {
		t.Errorf("parent cancelled by the last body: ForErr returned %v, want nil (every piece completed)", err)
	}

	// The call returns: the context ends, with no error.
	opt, ctx = parallel.WithContext(context.Background())
	parallel.For(p, 0, 10, func(*pool.Worker, int) {}, opt)
	if ctx.Err() == nil {
		t.Error("the bodies' context is still live after the call returned")
	}

	// One option, one call.
	opt, _ = parallel.WithContext(context.Background())
	parallel.For(p, 0, 10, func(*pool.Worker, int) {}, opt)
	if r := fjtest.Catch(func() { parallel.For(p, 0, 10, func(*pool.Worker, int) {}, opt) }); !strings.Contains(fmt.Sprint(r), "another call has used") {
		t.Errorf("second use of a WithContext option: panic %v, want one saying so", r)
	}
	opt, _ = parallel.WithContext(context.Background())
	if r := fjtest.Catch(func() {
		parallel.For(p, 0, 10, func(*pool.Worker, int) {}, parallel.Context(context.Background()), opt)
	}); !strings.Contains(fmt.Sprint(r), "two Context") {
		t.Errorf("Context and WithContext in one call: panic %v, want one saying so", r)
	}
	var nilCtx context.Context // the nil is the test
	if r := fjtest.Catch(func() { parallel.WithContext(nilCtx) }); !strings.Contains(fmt.Sprint(r), "WithContext(nil)") {
		t.Errorf("WithContext(nil): panic %v", r)
	}
}
