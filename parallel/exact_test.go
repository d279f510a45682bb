package parallel_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
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

// WithContext exact (issue 24, item 3), and the stop flag on a panic
// (item 4): what the package doc and the options' docs promise, checked
// on the shapes where it used to break.

// Every call of the option table uses its options up before it returns,
// whatever its input: on an empty or one-element input a WithContext
// option is spent (a second call given it panics) and its context is
// cancelled when the call returns. (Scan on fewer than 2 elements and
// Filter on an empty slice used to return before reading them.) Min,
// Max, MinFunc and MaxFunc panic on an empty slice, before any work:
// a misuse, not a return; they are checked on one element only.
func TestEveryCallUsesItsOptionsOnAnyInput(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		for _, s := range [][]int{nil, {}, {7}} {
			for call := range optionCalls(p, s) {
				if len(s) == 0 && (strings.HasPrefix(call, "Min") || strings.HasPrefix(call, "Max")) {
					continue
				}
				opt, ctx := parallel.WithContext(context.Background())
				if r := fjtest.Catch(optionCalls(p, s, opt)[call]); r != nil {
					t.Errorf("workers=%d len=%d: %s panicked: %v", workers, len(s), call, r)
					continue
				}
				if ctx.Err() == nil {
					t.Errorf("workers=%d len=%d: %s returned with its bodies' context live", workers, len(s), call)
				}
				r := fjtest.Catch(optionCalls(p, s, opt)[call])
				if !strings.Contains(fmt.Sprint(r), "another call has used") {
					t.Errorf("workers=%d len=%d: %s given a WithContext option an earlier %s call had: panic %v, want one saying it was used",
						workers, len(s), call, call, r)
				}
			}
		}
		p.Close()
	}
}

// errForms are the Err forms over n items whose body for item i returns
// fail(i), given opts.
func errForms(r pool.Runner, n int, fail func(i int) error, opts ...parallel.Option) map[string]func() error {
	items := make([]int, n)
	for i := range items {
		items[i] = i
	}
	return map[string]func() error{
		"ForErr": func() error {
			return parallel.ForErr(r, 0, n, func(_ *pool.Worker, i int) error { return fail(i) }, opts...)
		},
		"ForRangeErr": func() error {
			return parallel.ForRangeErr(r, 0, n, func(_ *pool.Worker, lo, hi int) error {
				for i := lo; i < hi; i++ {
					if err := fail(i); err != nil {
						return err
					}
				}
				return nil
			}, opts...)
		},
		"MapErr": func() error {
			_, err := parallel.MapErr(r, items, func(_ *pool.Worker, i int) (int, error) { return i, fail(i) }, opts...)
			return err
		},
		"ReduceErr": func() error {
			_, err := parallel.ReduceErr(r, 0, n, 0, func(_ *pool.Worker, lo, hi int) (int, error) {
				for i := lo; i < hi; i++ {
					if err := fail(i); err != nil {
						return 0, err
					}
				}
				return hi - lo, nil
			}, func(a, b int) int { return a + b }, opts...)
			return err
		},
		"ForSeqErr": func() error {
			return parallel.ForSeqErr(r, slices.Values(items), func(_ *pool.Worker, i int) error { return fail(i) }, opts...)
		},
		"MapSeqErr": func() error {
			_, err := parallel.MapSeqErr(r, slices.Values(items), func(_ *pool.Worker, i int) (int, error) { return i, fail(i) }, opts...)
			return err
		},
	}
}

// Two bodies failing at once: the error the call returns is the bodies'
// context's cause, every round, as errgroup's is (the error is recorded
// and the context cancelled with it in one step). Before, the cancel came
// after the lock that recorded the first error, and the second failure's
// cancel could come first: 2 to 208 rounds in 10,000 differed.
func TestWithContextCauseIsTheReturnedError(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	rounds := fjtest.Stress(2_000, 10_000, 500) // 10,000 with FJ_LONG: 10 s on two cores
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for _, form := range []string{"ForErr", "ForRangeErr", "MapErr", "ReduceErr", "ForSeqErr", "MapSeqErr"} {
			differ := 0
			for round := range rounds {
				errs := [2]error{fmt.Errorf("item 0 of round %d", round), fmt.Errorf("item 1 of round %d", round)}
				opt, ctx := parallel.WithContext(context.Background())
				var arrived atomic.Int32
				err := errForms(p, 2, func(i int) error {
					// Make the two failures simultaneous where two
					// workers run them: wait a little for the other
					// body (a bounded wait; on one worker it never
					// comes, and the round is just sequential).
					arrived.Add(1)
					for k := 0; k < 100 && arrived.Load() < 2; k++ {
						runtime.Gosched()
					}
					return errs[i]
				}, opt, parallel.Grain(1))[form]()
				if err != errs[0] && err != errs[1] {
					t.Fatalf("workers=%d %s: returned %v, want one of the bodies' errors", workers, form, err)
				}
				if c := context.Cause(ctx); c != err {
					differ++
					if differ <= 3 {
						t.Errorf("workers=%d %s round %d: returned %q, but the bodies' context's cause is %q", workers, form, round, err, c)
					}
				}
			}
			if differ > 0 {
				t.Errorf("workers=%d %s: the cause differed from the returned error in %d of %d rounds", workers, form, differ, rounds)
			}
		}
		p.Close()
	}
}

// A parent cancelled with a cause while every body waits on the bodies'
// context, each body then returning ctx.Err() (context.Canceled, the
// usual "return ctx.Err()"): the parent ended first, so the call returns
// context.Cause(parent), and the bodies' context has that cause too.
// Before, a body that saw its context end before the call had seen the
// parent end recorded context.Canceled as the first error (5 to 7 rounds
// in 40).
func TestWithContextParentCauseWins(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	const n = 8
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for _, form := range []string{"ForErr", "MapErr", "ForSeqErr", "MapSeqErr"} {
			for round := range 40 {
				parent, cancel := context.WithCancelCause(context.Background())
				cause := fmt.Errorf("parent cancelled in round %d", round)
				opt, ctx := parallel.WithContext(parent)
				var entered atomic.Int64
				all := make(chan struct{})
				go func() {
					<-all // every body waits on ctx: end the parent now
					cancel(cause)
				}()
				err := errForms(p, n, func(int) error {
					pool.Blocking(func() {
						if entered.Add(1) == n {
							close(all)
						}
						<-ctx.Done()
					})
					return ctx.Err()
				}, opt, parallel.Grain(1))[form]()
				if err != cause {
					t.Errorf("workers=%d %s round %d: returned %v, want the parent's cause", workers, form, round, err)
				}
				if c := context.Cause(ctx); c != cause {
					t.Errorf("workers=%d %s round %d: the bodies' context's cause is %v, want the parent's", workers, form, round, c)
				}
			}
		}
		p.Close()
	}
}

// panicking returns the calls of the option table that can panic in a
// function of the caller's (a body, chunk, op, predicate, comparator or
// key) on s, each given opts, with that function panicking with boom at
// the element equal to at.
func panicking(r pool.Runner, s []int, at int, boom any, opts ...parallel.Option) map[string]func() {
	n := len(s)
	f := func(x int) {
		if x == at {
			panic(boom)
		}
	}
	yes := func(x int) bool { f(x); return true }
	no := func(x int) bool { f(x); return false }
	cmpP := func(a, b int) int { f(a); f(b); return cmp.Compare(a, b) }
	seq := slices.Values(s)
	return map[string]func(){
		"For": func() { parallel.For(r, 0, n, func(_ *pool.Worker, i int) { f(s[i]) }, opts...) },
		"ForErr": func() {
			_ = parallel.ForErr(r, 0, n, func(_ *pool.Worker, i int) error { f(s[i]); return nil }, opts...)
		},
		"ForRange": func() {
			parallel.ForRange(r, 0, n, func(_ *pool.Worker, lo, hi int) { slices.Values(s[lo:hi])(yes) }, opts...)
		},
		"ForRangeErr": func() {
			_ = parallel.ForRangeErr(r, 0, n, func(_ *pool.Worker, lo, hi int) error { slices.Values(s[lo:hi])(yes); return nil }, opts...)
		},
		"Reduce": func() {
			parallel.Reduce(r, 0, n, 0, func(_ *pool.Worker, lo, hi int) int { slices.Values(s[lo:hi])(yes); return 0 }, func(a, b int) int { return a + b }, opts...)
		},
		"ReduceErr": func() {
			_, _ = parallel.ReduceErr(r, 0, n, 0, func(_ *pool.Worker, lo, hi int) (int, error) { slices.Values(s[lo:hi])(yes); return 0, nil },
				func(a, b int) int { return a + b }, opts...)
		},
		"Map": func() { parallel.Map(r, s, func(_ *pool.Worker, x int) int { f(x); return x }, opts...) },
		"MapErr": func() {
			_, _ = parallel.MapErr(r, s, func(_ *pool.Worker, x int) (int, error) { f(x); return x, nil }, opts...)
		},
		"ForSeq": func() { parallel.ForSeq(r, seq, func(_ *pool.Worker, x int) { f(x) }, opts...) },
		"ForSeqErr": func() {
			_ = parallel.ForSeqErr(r, seq, func(_ *pool.Worker, x int) error { f(x); return nil }, opts...)
		},
		"MapSeq": func() { parallel.MapSeq(r, seq, func(_ *pool.Worker, x int) int { f(x); return x }, opts...) },
		"MapSeqErr": func() {
			_, _ = parallel.MapSeqErr(r, seq, func(_ *pool.Worker, x int) (int, error) { f(x); return x, nil }, opts...)
		},
		"Scan":           func() { parallel.Scan(r, slices.Clone(s), func(a, b int) int { f(a); f(b); return b }, opts...) },
		"Filter":         func() { parallel.Filter(r, s, yes, opts...) },
		"MinFunc":        func() { parallel.MinFunc(r, s, cmpP, opts...) },
		"MaxFunc":        func() { parallel.MaxFunc(r, s, cmpP, opts...) },
		"CountFunc":      func() { parallel.CountFunc(r, s, yes, opts...) },
		"IndexFunc":      func() { parallel.IndexFunc(r, s, no, opts...) },
		"ContainsFunc":   func() { parallel.ContainsFunc(r, s, no, opts...) },
		"SortFunc":       func() { parallel.SortFunc(r, slices.Clone(s), cmpP, opts...) },
		"SortStableFunc": func() { parallel.SortStableFunc(r, slices.Clone(s), cmpP, opts...) },
		"SortByKey":      func() { parallel.SortByKey(r, slices.Clone(s), func(x int) int { f(x); return x }, opts...) },
	}
}

// A panic sets the call's stop flag, in every call and every shape, as
// Stop's doc says ("Stopped reports whether the call is stopping: a body
// returned an error, panicked, ..."): also when the call runs as one
// piece, on one worker or over a range too small to split, where it used
// not to be set. The bodies' context of WithContext ends too.
func TestStopFlagSetByAPanicInEveryShape(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	type boomT struct{}
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for _, n := range []int{1, 3, 100, 20_000} {
			s := make([]int, n)
			for i := range s {
				s[i] = (i * 7919) % n
			}
			for _, at := range []int{0, n - 1} {
				for call := range panicking(p, s, at, boomT{}) {
					switch call {
					case "Scan", "MinFunc", "MaxFunc", "SortFunc", "SortStableFunc":
						if n == 1 {
							continue // one element: the function is never called
						}
					}
					for _, mode := range []string{"Stop", "Stop+WithContext", "Stop+Grain(1)"} {
						var flag parallel.StopFlag
						opts := []parallel.Option{parallel.Stop(&flag)}
						var ctx context.Context
						switch mode {
						case "Stop+WithContext":
							var opt parallel.Option
							opt, ctx = parallel.WithContext(context.Background())
							opts = append(opts, opt)
						case "Stop+Grain(1)":
							if strings.HasPrefix(call, "Sort") {
								continue
							}
							opts = append(opts, parallel.Grain(1))
						}
						r := fjtest.Catch(panicking(p, s, at, boomT{}, opts...)[call])
						if pe, ok := r.(*pool.PanicError); !ok || pe.Value != (boomT{}) {
							t.Errorf("workers=%d n=%d at=%d %s %s: recovered %v, want the body's panic", workers, n, at, call, mode, r)
							continue
						}
						if !flag.Stopped() {
							t.Errorf("workers=%d n=%d at=%d %s %s: the stop flag is not set after a panic", workers, n, at, call, mode)
						}
						if ctx != nil && ctx.Err() == nil {
							t.Errorf("workers=%d n=%d at=%d %s %s: the bodies' context is live after a panic", workers, n, at, call, mode)
						}
					}
				}
			}
		}
		p.Close()
	}
}

// A panic also sets a flag that other calls share, before the panicking
// call returns: a call sharing the flag, still running, stops.
func TestStopFlagSharedStopsOnAPanic(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var flag parallel.StopFlag
	errPanicked := errors.New("the other call panicked")
	err := parallel.ForErr(p, 0, 3, func(w *pool.Worker, i int) error {
		if i != 1 {
			return nil
		}
		// One piece, on one worker: the call that used not to set it.
		if r := fjtest.Catch(func() {
			parallel.For(w, 0, 10, func(*pool.Worker, int) { panic("boom") }, parallel.Stop(&flag))
		}); r == nil {
			return errors.New("no panic")
		}
		if flag.Stopped() {
			return errPanicked
		}
		return nil
	}, parallel.Stop(&flag), parallel.Grain(1))
	if err != errPanicked {
		t.Errorf("ForErr around a panicking call sharing its flag returned %v, want the flag seen set", err)
	}
}
