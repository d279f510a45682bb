package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

var errBoom = errors.New("boom")

func TestErrFormsReturnNilWhenAllSucceed(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(3))
	defer p.Close()
	const n = 5000
	var ran atomic.Int64
	if err := parallel.ForErr(p, 0, n, func(_ *pool.Worker, i int) error { ran.Add(1); return nil }); err != nil || ran.Load() != n {
		t.Errorf("ForErr: err %v, ran %d of %d", err, ran.Load(), n)
	}
	ran.Store(0)
	if err := parallel.ForRangeErr(p, int64(0), n, func(_ *pool.Worker, lo, hi int64) error { ran.Add(hi - lo); return nil }); err != nil || ran.Load() != n {
		t.Errorf("ForRangeErr: err %v, ran %d of %d", err, ran.Load(), n)
	}
	in := make([]int, n)
	for i := range in {
		in[i] = i
	}
	out, err := parallel.MapErr(p, in, func(_ *pool.Worker, x int) (string, error) { return fmt.Sprint(x), nil })
	if err != nil || len(out) != n || out[n-1] != fmt.Sprint(n-1) || out[17] != "17" {
		t.Errorf("MapErr: err %v, len %d", err, len(out))
	}
	sum, err := parallel.ReduceErr(p, 0, n, 0, func(_ *pool.Worker, lo, hi int) (int, error) { return hi - lo, nil }, func(a, b int) int { return a + b })
	if err != nil || sum != n {
		t.Errorf("ReduceErr = %d, %v; want %d, nil", sum, err, n)
	}
	if err := parallel.ForErr(p, 5, 5, func(*pool.Worker, int) error { return errBoom }); err != nil {
		t.Errorf("ForErr on an empty range: %v", err)
	}
}

func TestErrFormsReturnTheError(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		const n = 3000
		for _, k := range []int{0, 1, n / 2, n - 1} {
			fail := func(i int) error {
				if i == k {
					return fmt.Errorf("item %d: %w", i, errBoom)
				}
				return nil
			}
			if err := parallel.ForErr(p, 0, n, func(_ *pool.Worker, i int) error { return fail(i) }); !errors.Is(err, errBoom) {
				t.Errorf("workers=%d k=%d: ForErr = %v", workers, k, err)
			}
			if err := parallel.ForRangeErr(p, 0, n, func(_ *pool.Worker, lo, hi int) error {
				if lo <= k && k < hi {
					return fail(k)
				}
				return nil
			}, parallel.Grain(10)); !errors.Is(err, errBoom) {
				t.Errorf("workers=%d k=%d: ForRangeErr = %v", workers, k, err)
			}
			in := make([]int, n)
			for i := range in {
				in[i] = i
			}
			if out, err := parallel.MapErr(p, in, func(_ *pool.Worker, x int) (int, error) { return x, fail(x) }); out != nil || !errors.Is(err, errBoom) {
				t.Errorf("workers=%d k=%d: MapErr = %d results, %v", workers, k, len(out), err)
			}
			for _, det := range []parallel.Option{nil, parallel.Deterministic()} {
				got, err := parallel.ReduceErr(p, 0, n, -1, func(_ *pool.Worker, lo, hi int) (int, error) {
					if lo <= k && k < hi {
						return 1000, fail(k)
					}
					return hi - lo, nil
				}, func(a, b int) int { return a + b }, parallel.Grain(16), det)
				if got != -1 || !errors.Is(err, errBoom) {
					t.Errorf("workers=%d k=%d: ReduceErr = %d, %v; want the identity and boom", workers, k, got, err)
				}
			}
		}
		p.Close()
	}
}

// The first error wins: with every item failing with its own error, the
// error returned is one of them, and the same for every form.
func TestErrFormsReturnOneOfTheErrors(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for run := 0; run < 20; run++ {
		err := parallel.ForErr(p, 0, 1000, func(_ *pool.Worker, i int) error { return fmt.Errorf("item %d", i) })
		if err == nil || !strings.HasPrefix(err.Error(), "item ") {
			t.Fatalf("ForErr = %v", err)
		}
	}
}

func TestErrFormsPanicWins(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	r := fjtest.Catch(func() {
		_ = parallel.ForErr(p, 0, 1000, func(_ *pool.Worker, i int) error {
			if i == 500 {
				panic(errBoom)
			}
			return nil
		})
	})
	if pe, ok := r.(*pool.PanicError); !ok || !errors.Is(pe, errBoom) {
		t.Errorf("ForErr with a panicking body: recovered %v, want a *pool.PanicError wrapping boom", r)
	}
}

// earlyExit runs fail-at-k over 10,000 items on 2 workers and returns how
// many items started after the failure: the counter's value when the item
// that fails has done so (cancel returned, or its error is about to be
// returned) is subtracted from the final count.
func earlyExit(t *testing.T, p *pool.Pool, k int, mode string) int64 {
	const n = 10_000
	var ran, snap atomic.Int64
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	body := func(_ *pool.Worker, i int) error {
		ran.Add(1)
		if i != k {
			return nil
		}
		if mode == "cancel" {
			cancel(errBoom)
			snap.Store(ran.Load())
			return nil
		}
		// When its error is about to be returned, as the doc above
		// says (c, the count when it started, counted the items the
		// other worker ran while this one was descheduled: 5,000 on a
		// loaded machine under -race).
		snap.Store(ran.Load())
		return errBoom
	}
	var err error
	switch mode {
	case "error":
		err = parallel.ForErr(p, 0, n, body)
	case "cancel":
		err = parallel.ForErr(p, 0, n, body, parallel.Context(ctx))
	case "cancel-For":
		mode = "cancel"
		parallel.For(p, 0, n, func(w *pool.Worker, i int) { _ = body(w, i) }, parallel.Context(ctx))
		err = context.Cause(ctx)
	}
	switch {
	case err == nil && mode == "cancel" && ran.Load() == n:
		// Every item ran, the failing one last: the call completed, and
		// reports no error whatever ctx did meanwhile (errgroup's rule).
	case !errors.Is(err, errBoom):
		t.Fatalf("%s at %d: err = %v (%d of %d items ran), want boom", mode, k, err, ran.Load(), n)
	}
	return ran.Load() - snap.Load()
}

// TestEarlyExitAfterErrorIsPrompt is the acceptance test for early exit:
// after an error (or a cancel) at item k of 10,000 on 2 workers, at most
// 1,250 items start afterwards: one piece's worth of the default split
// (10,000 / 8 pieces). In practice it is a few dozen at most: ForErr
// looks at the flag before every iteration, For at the flag and the
// context every 64 iterations, and ForErr at the context every 64. errgroup
// with a goroutine per item runs about 3,000 in the same setting.
//
// One run in five per item may exceed the bound: with "error", the flag is
// set by the failing body's goroutine once its error is returned, and a
// goroutine descheduled between the two (by the race detector or a busy
// host) lets the other worker go on meanwhile, which no loop can prevent
// (seen once in CI under -race: 1,444 after item 2500). A loop that did not
// stop early would exceed it in every run.
func TestEarlyExitAfterErrorIsPrompt(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	const bound = 1250
	for _, mode := range []string{"error", "cancel", "cancel-For"} {
		var worst, total int64
		runs := 0
		for _, k := range []int{0, 100, 2500, 5000, 7777, 9999} {
			var over []int64
			for rep := 0; rep < 5; rep++ {
				after := earlyExit(t, p, k, mode)
				if after > bound {
					over = append(over, after)
				}
				worst = max(worst, after)
				total += after
				runs++
			}
			if len(over) > 1 {
				t.Errorf("%s at item %d: %v items started afterwards in %d of 5 runs, want <= %d in 4 of them", mode, k, over, len(over), bound)
			}
		}
		t.Logf("%s: items started after the failure: worst %d, mean %.1f over %d runs", mode, worst, float64(total)/float64(runs), runs)
	}
}

func TestContextAlreadyDoneRunsNothing(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errBoom)
	var ran atomic.Int64
	body := func(*pool.Worker, int) error { ran.Add(1); return nil }
	if err := parallel.ForErr(p, 0, 100, body, parallel.Context(ctx)); err != errBoom {
		t.Errorf("ForErr on a done context = %v, want its cause", err)
	}
	parallel.For(p, 0, 100, func(w *pool.Worker, i int) { _ = body(w, i) }, parallel.Context(ctx))
	got := parallel.Reduce(p, 0, 100, 7, func(*pool.Worker, int, int) int { ran.Add(1); return 1 }, func(a, b int) int { return a + b }, parallel.Context(ctx))
	if got != 7 {
		t.Errorf("Reduce on a done context = %d, want the identity", got)
	}
	if _, err := parallel.ReduceErr(p, 0, 100, 0, func(*pool.Worker, int, int) (int, error) { ran.Add(1); return 1, nil }, func(a, b int) int { return a + b }, parallel.Context(ctx)); err != errBoom {
		t.Errorf("ReduceErr on a done context = %v", err)
	}
	if ran.Load() != 0 {
		t.Errorf("%d bodies ran on a done context", ran.Load())
	}
	// A context with no Done channel never ends: the call runs in full.
	if err := parallel.ForErr(p, 0, 100, body, parallel.Context(context.Background())); err != nil || ran.Load() != 100 {
		t.Errorf("ForErr with Background: %v, ran %d", err, ran.Load())
	}
}

func TestReduceWithContextCombinesOnlyWhatRan(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		for run := 0; run < 50; run++ {
			ctx, cancel := context.WithCancel(context.Background())
			got := parallel.Reduce(p, 0, 1000, nil, func(_ *pool.Worker, lo, hi int) *int {
				if lo >= 500 {
					cancel()
				}
				n := hi - lo
				return &n
			}, func(a, b *int) *int {
				s := *a + *b // a nil here is the bug of issue 8
				return &s
			}, parallel.Grain(10), parallel.Context(ctx))
			if got == nil || *got <= 0 || *got > 1000 {
				t.Fatalf("workers=%d: Reduce stopped by its context = %v", workers, got)
			}
			cancel()
		}
		p.Close()
	}
}

func TestStopFlag(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	// A body stops the call as a break: no error, fewer iterations.
	var f parallel.StopFlag
	var ran atomic.Int64
	err := parallel.ForErr(p, 0, 100_000, func(_ *pool.Worker, i int) error {
		ran.Add(1)
		if i == 10 {
			f.Stop()
		}
		return nil
	}, parallel.Stop(&f))
	if err != nil || !f.Stopped() || ran.Load() >= 100_000 {
		t.Errorf("stopped ForErr: err %v, stopped %v, ran %d", err, f.Stopped(), ran.Load())
	}

	// An error sets the flag, so a long body polling it sees the failure.
	var g parallel.StopFlag
	err = parallel.ForRangeErr(p, 0, 2, func(_ *pool.Worker, lo, hi int) error { return errBoom }, parallel.Stop(&g), parallel.Grain(1))
	if err != errBoom || !g.Stopped() {
		t.Errorf("ForRangeErr: err %v, flag stopped %v", err, g.Stopped())
	}

	// A flag already stopped runs nothing; one flag stops nested calls.
	parallel.For(p, 0, 10, func(*pool.Worker, int) { t.Error("body ran with a stopped flag") }, parallel.Stop(&g))
	var h parallel.StopFlag
	var inner atomic.Int64
	parallel.For(p, 0, 4, func(w *pool.Worker, i int) {
		parallel.For(w, 0, 100_000, func(_ *pool.Worker, j int) {
			if inner.Add(1) == 100 {
				h.Stop()
			}
		}, parallel.Stop(&h))
	}, parallel.Stop(&h), parallel.Grain(1))
	if inner.Load() >= 4*100_000 {
		t.Errorf("nested calls sharing a flag ran all %d inner iterations", inner.Load())
	}
}

func TestBadOptionsAndNilsPanicNamingThem(t *testing.T) {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	expect := func(name, want string, f func()) {
		t.Helper()
		r := fjtest.Catch(f)
		if s := fmt.Sprint(r); !strings.Contains(s, want) {
			t.Errorf("%s: panic %q, want one mentioning %q", name, s, want)
		}
	}
	//lint:ignore SA1012 a nil context is what is tested
	expect("Context", "parallel: Context(nil)", func() { parallel.Context(nil) })
	expect("Stop", "parallel: Stop(nil)", func() { parallel.Stop(nil) })
	expect("ForErr", "ForErr with a nil body", func() { _ = parallel.ForErr[int](p, 0, 1, nil) })
	expect("ForRangeErr", "ForRangeErr with a nil body", func() { _ = parallel.ForRangeErr[int](p, 0, 1, nil) })
	expect("MapErr", "MapErr with a nil function", func() { _, _ = parallel.MapErr[[]int, int, int](p, []int{1}, nil) })
	expect("ReduceErr", "ReduceErr with a nil chunk", func() {
		_, _ = parallel.ReduceErr[int, int](p, 0, 1, 0, nil, func(a, b int) int { return a })
	})
	expect("ReduceErr", "ReduceErr with a nil combine", func() {
		_, _ = parallel.ReduceErr(p, 0, 1, 0, func(*pool.Worker, int, int) (int, error) { return 0, nil }, nil)
	})
	expect("Do", "Do with a nil function", func() { parallel.Do(p, nil) })
}
