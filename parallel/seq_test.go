package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// counting returns the sequence 0..n-1 and a counter of the items pulled
// from it. It fails the test if it is pulled from two goroutines at once
// or after yield returned false.
func counting(t *testing.T, n int) (iter.Seq[int], *atomic.Int64) {
	var pulled atomic.Int64
	var busy atomic.Bool
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !busy.CompareAndSwap(false, true) {
				t.Error("the sequence is pulled from two goroutines at once")
			}
			pulled.Add(1)
			busy.Store(false)
			if !yield(i) {
				return
			}
		}
	}, &pulled
}

func TestForSeqVisitsEveryItemOnce(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{1, 2, 3} {
		p := pool.New(pool.WithWorkers(workers))
		for _, n := range []int{0, 1, 2, 5, 1000, fjtest.Small(20_000, 5_000)} {
			for _, g := range []parallel.Option{nil, parallel.Grain(1), parallel.Grain(7), parallel.Grain(1 << 20)} {
				seq, pulled := counting(t, n)
				seen := make([]atomic.Int32, n)
				parallel.ForSeq(p, seq, func(w *pool.Worker, i int) {
					if w == nil || w.Pool() != p {
						t.Errorf("body got worker %v", w)
					}
					seen[i].Add(1)
				}, g)
				for i := range seen {
					if v := seen[i].Load(); v != 1 {
						t.Fatalf("workers=%d n=%d: item %d visited %d times", workers, n, i, v)
					}
				}
				if pulled.Load() != int64(n) {
					t.Fatalf("pulled %d of %d", pulled.Load(), n)
				}
				seq, _ = counting(t, n)
				out := parallel.MapSeq(p, seq, func(_ *pool.Worker, i int) string { return fmt.Sprint(i) }, g)
				if len(out) != n {
					t.Fatalf("MapSeq: %d results for %d items", len(out), n)
				}
				for i, s := range out {
					if s != fmt.Sprint(i) {
						t.Fatalf("MapSeq: out[%d] = %q", i, s)
					}
				}
				seq, _ = counting(t, n)
				if err := parallel.ForSeqErr(p, seq, func(*pool.Worker, int) error { return nil }, g); err != nil {
					t.Fatalf("ForSeqErr = %v", err)
				}
			}
		}
		p.Close()
	}
}

// TestForSeqErrStopsPulling: after a body error at item k, the puller
// never gets further beyond item k than the batches it may pull ahead (4
// per worker, of at most 128 items) plus the one it was filling: the batch
// holding k is among those it has pulled ahead, and it cannot pull more
// before joining that batch, whose error is recorded by then. That bound
// holds whatever the scheduling; the counts of items pulled and bodies
// started after the error (logged) are a handful in practice, but can be
// larger when the failing worker's goroutine is descheduled between the
// error and its record (as with more workers than GOMAXPROCS).
func TestForSeqErrStopsPulling(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const n = 10_000
	for _, workers := range []int{1, 2, 4} {
		p := pool.New(pool.WithWorkers(workers))
		ahead := int64((4*workers + 1) * 128)
		var worstAfter, worstAhead, worstRan int64
		for _, k := range []int{0, 1, 500, 5000} {
			for rep := 0; rep < 5; rep++ {
				seq, pulled := counting(t, n)
				var ran, snapRan, snapPulled atomic.Int64
				err := parallel.ForSeqErr(p, seq, func(_ *pool.Worker, i int) error {
					c := ran.Add(1)
					if i == k {
						snapPulled.Store(pulled.Load())
						snapRan.Store(c)
						return errBoom
					}
					return nil
				})
				if err != errBoom {
					t.Fatalf("workers=%d k=%d: ForSeqErr = %v", workers, k, err)
				}
				afterPull := pulled.Load() - snapPulled.Load()
				aheadPull := pulled.Load() - int64(k) - 1
				extraRan := ran.Load() - snapRan.Load()
				if aheadPull > ahead {
					t.Errorf("workers=%d k=%d: %d items pulled beyond item k, want <= %d", workers, k, aheadPull, ahead)
				}
				worstAfter, worstAhead, worstRan = max(worstAfter, afterPull), max(worstAhead, aheadPull), max(worstRan, extraRan)
			}
		}
		t.Logf("workers=%d: at worst %d items pulled after the error (%d beyond item k), %d bodies started after it", workers, worstAfter, worstAhead, worstRan)
		p.Close()
	}
}

func TestForSeqContextStopsPulling(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	seq, pulled := counting(t, 1_000_000)
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	err := parallel.ForSeqErr(p, seq, func(_ *pool.Worker, i int) error {
		if i == 100 {
			cancel(errBoom)
		}
		return nil
	}, parallel.Context(ctx))
	if err != errBoom || pulled.Load() > 100+(4*2+2)*128 {
		t.Errorf("ForSeqErr with a cancel at item 100: %v after %d items pulled", err, pulled.Load())
	}
	// Without an Err form: stops and returns; the caller checks ctx.
	seq, pulled = counting(t, 1_000_000)
	parallel.ForSeq(p, seq, func(*pool.Worker, int) {}, parallel.Context(ctx))
	if pulled.Load() != 0 {
		t.Errorf("ForSeq on a done context pulled %d items", pulled.Load())
	}
}

func TestForSeqPanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	type boomT struct{}
	seq, _ := counting(t, 10_000)
	var ran atomic.Int64
	r := fjtest.Catch(func() {
		parallel.ForSeq(p, seq, func(_ *pool.Worker, i int) {
			ran.Add(1)
			if i == 300 {
				panic(boomT{})
			}
		})
	})
	if pe, ok := r.(*pool.PanicError); !ok || pe.Value != (boomT{}) {
		t.Errorf("ForSeq with a panicking body: recovered %v", r)
	}
	if ran.Load() >= 10_000 {
		t.Errorf("all items ran despite the panic")
	}

	// A panic in the sequence itself, after some batches are out.
	var bodies atomic.Int64
	bad := func(yield func(int) bool) {
		for i := 0; ; i++ {
			if i == 1000 {
				panic(errBoom)
			}
			if !yield(i) {
				return
			}
		}
	}
	r = fjtest.Catch(func() { parallel.ForSeq(p, bad, func(*pool.Worker, int) { bodies.Add(1) }) })
	if pe, ok := r.(*pool.PanicError); !ok || !errors.Is(pe, errBoom) {
		t.Errorf("ForSeq with a panicking sequence: recovered %v", r)
	}
	r = fjtest.Catch(func() { _ = parallel.ForSeqErr(p, bad, func(*pool.Worker, int) error { return nil }) })
	if pe, ok := r.(*pool.PanicError); !ok || !errors.Is(pe, errBoom) {
		t.Errorf("ForSeqErr with a panicking sequence: recovered %v", r)
	}
	// The batches pulled before the panic have all ended (none left
	// running behind the caller's back): the count no longer moves.
	before := bodies.Load()
	parallel.For(p, 0, 1000, func(*pool.Worker, int) {})
	if bodies.Load() != before || before > 1000 {
		t.Errorf("bodies: %d, then %d", before, bodies.Load())
	}
}

func TestForSeqNested(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(3))
	defer p.Close()
	var total atomic.Int64
	parallel.For(p, 0, 20, func(w *pool.Worker, i int) {
		seq, _ := counting(t, 500)
		parallel.ForSeq(w, seq, func(_ *pool.Worker, x int) { total.Add(int64(x)) })
	})
	if want := int64(20 * 499 * 500 / 2); total.Load() != want {
		t.Errorf("nested ForSeq: total %d, want %d", total.Load(), want)
	}
	// Parallel calls inside a ForSeq body fork onto the body's worker,
	// and a PerWorker collects per-worker sums.
	seq, _ := counting(t, 200)
	sums := parallel.NewPerWorker[int64](p, nil)
	lens := parallel.MapSeq(p, seq, func(w *pool.Worker, x int) int {
		parallel.For(w, 0, x, func(w *pool.Worker, j int) { *sums.Get(w) += int64(j) })
		return x
	}, parallel.Grain(3))
	var want int64
	for x := range 200 {
		want += int64(x * (x - 1) / 2)
		if lens[x] != x {
			t.Fatalf("MapSeq with nested For: lens[%d] = %d", x, lens[x])
		}
	}
	if got := sums.Combine(0, func(a, b int64) int64 { return a + b }); got != want {
		t.Errorf("nested For in MapSeq: per-worker sums add up to %d, want %d", got, want)
	}
}

func TestSeqNilArgumentsPanic(t *testing.T) {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	seq, _ := counting(t, 1)
	for name, f := range map[string]func(){
		"ForSeq with a nil sequence":    func() { parallel.ForSeq[int](p, nil, func(*pool.Worker, int) {}) },
		"ForSeq with a nil body":        func() { parallel.ForSeq(p, seq, nil) },
		"ForSeqErr with a nil sequence": func() { _ = parallel.ForSeqErr[int](p, nil, func(*pool.Worker, int) error { return nil }) },
		"ForSeqErr with a nil body":     func() { _ = parallel.ForSeqErr(p, seq, nil) },
		"MapSeq with a nil sequence":    func() { parallel.MapSeq[int](p, nil, func(*pool.Worker, int) int { return 0 }) },
		"MapSeq with a nil function":    func() { parallel.MapSeq[int, int](p, seq, nil) },
		"MapSeqErr with a nil sequence": func() {
			_, _ = parallel.MapSeqErr[int](p, nil, func(*pool.Worker, int) (int, error) { return 0, nil })
		},
		"MapSeqErr with a nil function": func() { _, _ = parallel.MapSeqErr[int, int](p, seq, nil) },
	} {
		if r := fjtest.Catch(f); !strings.Contains(fmt.Sprint(r), name) {
			t.Errorf("panic %v, want one saying %q", r, name)
		}
	}
}
