package parallel_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

var sizes = []int{0, 1, 2, 7, 1000, 1 << 20}

func grains() []parallel.Option {
	return []parallel.Option{nil, parallel.Grain(1), parallel.Grain(3), parallel.Grain(64), parallel.Grain(1 << 30), parallel.Grain(0), parallel.Grain(-5)}
}

func workerCounts() []int { return []int{1, 2, 3} }

func bigSize(n int) int {
	if (fjtest.RaceEnabled || testing.Short()) && n > 1<<14 {
		return 1 << 14
	}
	return n
}

func TestForVisitsEveryIndexOnce(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range workerCounts() {
		p := pool.New(pool.WithWorkers(workers))
		for _, n := range sizes {
			n = bigSize(n)
			for gi, g := range grains() {
				for _, lo := range []int{0, -3, min(1<<40, math.MaxInt/2)} {
					seen := make([]atomic.Int32, n)
					parallel.For(p, lo, lo+n, func(w *pool.Worker, i int) {
						if w == nil || w.Pool() != p {
							t.Errorf("body got worker %v, not one of the pool's", w)
						}
						seen[i-lo].Add(1)
					}, g)
					for i := range seen {
						if v := seen[i].Load(); v != 1 {
							t.Fatalf("workers=%d n=%d grain#%d lo=%d: index %d visited %d times", workers, n, gi, lo, lo+i, v)
						}
					}
				}
			}
		}
		p.Close()
	}
}

func TestForRangeChunksCoverExactly(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range workerCounts() {
		p := pool.New(pool.WithWorkers(workers))
		for _, n := range sizes {
			n = bigSize(n)
			for gi, g := range grains() {
				seen := make([]atomic.Int32, n)
				var chunks, small atomic.Int64
				grain := 1
				switch gi {
				case 2:
					grain = 3
				case 3:
					grain = 64
				case 4:
					grain = 1 << 30
				}
				parallel.ForRange(p, 0, n, func(w *pool.Worker, lo, hi int) {
					if lo >= hi || lo < 0 || hi > n {
						t.Errorf("bad chunk [%d, %d) of [0, %d)", lo, hi, n)
						return
					}
					if hi-lo < grain && !(lo == 0 && hi == n) {
						small.Add(1)
					}
					chunks.Add(1)
					for i := lo; i < hi; i++ {
						seen[i].Add(1)
					}
				}, g)
				for i := range seen {
					if v := seen[i].Load(); v != 1 {
						t.Fatalf("workers=%d n=%d grain#%d: index %d covered %d times", workers, n, gi, i, v)
					}
				}
				if n == 0 && chunks.Load() != 0 {
					t.Errorf("empty range ran %d chunks", chunks.Load())
				}
				if s := small.Load(); s != 0 {
					t.Errorf("workers=%d n=%d grain %d: %d chunks below the grain", workers, n, grain, s)
				}
			}
		}
		p.Close()
	}
}

func TestForEmptyAndReversedRangesRunNothing(t *testing.T) {
	fjtest.Deadline(t, 10*time.Second)
	p := pool.New()
	defer p.Close()
	for _, r := range [][2]int{{0, 0}, {5, 5}, {5, 4}, {0, -10}, {math.MaxInt, math.MinInt}} {
		parallel.For(p, r[0], r[1], func(*pool.Worker, int) { t.Errorf("For(%d, %d) ran the body", r[0], r[1]) })
		parallel.ForRange(p, r[0], r[1], func(*pool.Worker, int, int) { t.Errorf("ForRange(%d, %d) ran the body", r[0], r[1]) })
		if got := parallel.Reduce(p, r[0], r[1], 42, func(*pool.Worker, int, int) int { return 1 }, func(a, b int) int { return a + b }); got != 42 {
			t.Errorf("Reduce(%d, %d) = %d, want the identity 42", r[0], r[1], got)
		}
	}
}

func TestForRangeNearIntLimits(t *testing.T) {
	fjtest.Deadline(t, 10*time.Second)
	p := pool.New()
	defer p.Close()
	var total atomic.Int64
	parallel.ForRange(p, math.MaxInt-1000, math.MaxInt, func(_ *pool.Worker, lo, hi int) {
		if lo < math.MaxInt-1000 || hi > math.MaxInt || lo >= hi {
			t.Errorf("bad chunk [%d, %d)", lo, hi)
		}
		total.Add(int64(hi - lo))
	})
	parallel.ForRange(p, math.MinInt, math.MinInt+1000, func(_ *pool.Worker, lo, hi int) { total.Add(int64(hi - lo)) })
	if total.Load() != 2000 {
		t.Errorf("covered %d indices, want 2000", total.Load())
	}
}

func TestReduceCombinesInIndexOrder(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range workerCounts() {
		p := pool.New(pool.WithWorkers(workers))
		for _, n := range sizes {
			n = bigSize(n)
			for gi, g := range grains() {
				// Concatenating "[lo,hi)" pieces is associative but
				// not commutative: any out-of-order combine shows.
				got := parallel.Reduce(p, 0, n, "", func(_ *pool.Worker, lo, hi int) string {
					return fmt.Sprintf("[%d,%d)", lo, hi)
				}, func(a, b string) string { return a + b }, g)
				if n == 0 {
					if got != "" {
						t.Errorf("empty: %q", got)
					}
					continue
				}
				// The pieces must chain: [0,a)[a,b)...[z,n).
				next := 0
				for _, piece := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(got, "["), ")"), ")[") {
					var lo, hi int
					if _, err := fmt.Sscanf(piece, "%d,%d", &lo, &hi); err != nil || lo != next || hi <= lo {
						t.Fatalf("workers=%d n=%d grain#%d: pieces out of order or broken at %q in %.200q", workers, n, gi, piece, got)
					}
					next = hi
				}
				if next != n {
					t.Fatalf("workers=%d n=%d: pieces end at %d", workers, n, next)
				}
			}
		}
		p.Close()
	}
}

func TestReduceSumMatchesSequential(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New()
	defer p.Close()
	n := bigSize(1 << 20)
	xs := make([]int64, n)
	var want int64
	for i := range xs {
		xs[i] = int64(i*7919%1000 - 500)
		want += xs[i]
	}
	got := parallel.Reduce(p, 0, n, int64(0), func(_ *pool.Worker, lo, hi int) int64 {
		var s int64
		for _, x := range xs[lo:hi] {
			s += x
		}
		return s
	}, func(a, b int64) int64 { return a + b })
	if got != want {
		t.Errorf("sum = %d, want %d", got, want)
	}
}

func TestScanMatchesSequentialPrefix(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{1, 2, 3, 8} {
		p := pool.New(pool.WithWorkers(workers))
		for _, n := range []int{0, 1, 2, 3, 7, 4095, 4096, 8193, 100000, 1 << 20} {
			n = bigSize(n)
			for _, g := range []parallel.Option{nil, parallel.Grain(1), parallel.Grain(10), parallel.Grain(1 << 20)} {
				xs := make([]int64, n)
				want := make([]int64, n)
				for i := range xs {
					xs[i] = int64(i%97 - 40)
					want[i] = xs[i]
					if i > 0 {
						want[i] += want[i-1]
					}
				}
				parallel.Scan(p, xs, func(a, b int64) int64 { return a + b }, g)
				for i := range xs {
					if xs[i] != want[i] {
						t.Fatalf("workers=%d n=%d: s[%d] = %d, want %d", workers, n, i, xs[i], want[i])
					}
				}
			}
		}
		p.Close()
	}
}

func TestScanNonCommutativeOp(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New(pool.WithWorkers(3))
	defer p.Close()
	// 2x2 matrix products are associative, not commutative.
	type mat [4]int64
	mul := func(a, b mat) mat {
		const m = 1_000_003
		return mat{(a[0]*b[0] + a[1]*b[2]) % m, (a[0]*b[1] + a[1]*b[3]) % m, (a[2]*b[0] + a[3]*b[2]) % m, (a[2]*b[1] + a[3]*b[3]) % m}
	}
	n := bigSize(50000)
	xs := make([]mat, n)
	want := make([]mat, n)
	for i := range xs {
		xs[i] = mat{int64(i % 5), 1, int64(i % 3), 2}
		want[i] = xs[i]
		if i > 0 {
			want[i] = mul(want[i-1], want[i])
		}
	}
	parallel.Scan(p, xs, mul, parallel.Grain(100))
	for i := range xs {
		if xs[i] != want[i] {
			t.Fatalf("s[%d] = %v, want %v", i, xs[i], want[i])
		}
	}
}

func TestMapKeepsOrder(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New()
	defer p.Close()
	for _, n := range sizes {
		n = bigSize(n)
		in := make([]int, n)
		for i := range in {
			in[i] = i
		}
		out := parallel.Map(p, in, func(_ *pool.Worker, x int) string { return fmt.Sprint(x * 2) })
		if len(out) != n {
			t.Fatalf("len = %d, want %d", len(out), n)
		}
		for i, s := range out {
			if s != fmt.Sprint(2*i) {
				t.Fatalf("out[%d] = %q", i, s)
			}
		}
	}
}

func TestDoRunsEveryFunction(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New()
	defer p.Close()
	for _, k := range []int{0, 1, 2, 3, 17, 200} {
		var ran []atomic.Int32 = make([]atomic.Int32, k)
		fs := make([]func(*pool.Worker), k)
		for i := range fs {
			fs[i] = func(*pool.Worker) { ran[i].Add(1) }
		}
		parallel.Do(p, fs...)
		for i := range ran {
			if ran[i].Load() != 1 {
				t.Fatalf("k=%d: function %d ran %d times", k, i, ran[i].Load())
			}
		}
	}
}

// Nested use: a For body that sorts and reduces with its own worker, and
// the same calls made from inside a task.
func TestNestedParallelCalls(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New()
	defer p.Close()
	const rows, cols = 64, 2000
	data := make([][]int, rows)
	for i := range data {
		data[i] = make([]int, cols)
		for j := range data[i] {
			data[i][j] = (i*31 + j*17) % 1009
		}
	}
	sums := make([]int, rows)
	parallel.For(p, 0, rows, func(w *pool.Worker, i int) {
		row := data[i]
		parallel.Sort(w, row)
		sums[i] = parallel.Reduce(w, 0, len(row), 0, func(_ *pool.Worker, lo, hi int) int {
			s := 0
			for _, x := range row[lo:hi] {
				s += x
			}
			return s
		}, func(a, b int) int { return a + b }, parallel.Grain(100))
	})
	for i, row := range data {
		want := 0
		for j, x := range row {
			want += x
			if j > 0 && row[j-1] > x {
				t.Fatalf("row %d not sorted", i)
			}
		}
		if sums[i] != want {
			t.Errorf("row %d: sum %d, want %d", i, sums[i], want)
		}
	}
	got := forkjoin.Invoke(p, func(w *pool.Worker) int {
		return parallel.Reduce(w, 0, 1000, 0, func(w *pool.Worker, lo, hi int) int {
			n := 0
			parallel.For(w, lo, hi, func(*pool.Worker, int) {}, parallel.Grain(7))
			parallel.Do(w, func(*pool.Worker) { n = hi - lo })
			return n
		}, func(a, b int) int { return a + b })
	})
	if got != 1000 {
		t.Errorf("nested Reduce from a task = %d, want 1000", got)
	}
}

func TestPanicsComeBackAndStopTheLoop(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	p := pool.New()
	defer p.Close()
	boom := errors.New("boom")
	catch := func(f func()) (pe *pool.PanicError) {
		defer func() {
			r := recover()
			if r == nil {
				return
			}
			var ok bool
			if pe, ok = r.(*pool.PanicError); !ok {
				t.Fatalf("recovered %T %v, want *pool.PanicError", r, r)
			}
		}()
		f()
		return nil
	}
	n := bigSize(1 << 20)
	var ran atomic.Int64
	pe := catch(func() {
		parallel.For(p, 0, n, func(_ *pool.Worker, i int) {
			ran.Add(1)
			if i == 5 {
				panic(boom)
			}
		}, parallel.Grain(1000))
	})
	if pe == nil || !errors.Is(pe, boom) {
		t.Fatalf("For: got %v, want a PanicError wrapping boom", pe)
	}
	if !strings.Contains(string(pe.Stack), "TestPanicsComeBackAndStopTheLoop") {
		t.Errorf("stack does not show where the panic happened:\n%s", pe.Stack)
	}
	if r := ran.Load(); r >= int64(n) {
		t.Errorf("all %d iterations ran despite the panic", r)
	}
	for name, f := range map[string]func(){
		"Reduce chunk": func() {
			parallel.Reduce(p, 0, 100, 0, func(*pool.Worker, int, int) int { panic(boom) }, func(a, b int) int { return a + b })
		},
		"Reduce combine": func() {
			// Deterministic cuts the range into pieces of the grain
			// whatever the number of workers; a lazy loop on a pool of one
			// runs as one piece and never combines (GOMAXPROCS=1).
			parallel.Reduce(p, 0, 100, 0, func(*pool.Worker, int, int) int { return 1 }, func(a, b int) int { panic(boom) }, parallel.Grain(1), parallel.Deterministic())
		},
		"Scan": func() { parallel.Scan(p, make([]int, 100000), func(a, b int) int { panic(boom) }) },
		"Map":  func() { parallel.Map(p, make([]int, 100), func(*pool.Worker, int) int { panic(boom) }) },
		"Do":   func() { parallel.Do(p, func(*pool.Worker) {}, func(*pool.Worker) { panic(boom) }) },
	} {
		if pe := catch(f); pe == nil || !errors.Is(pe, boom) {
			t.Errorf("%s: got %v, want a PanicError wrapping boom", name, pe)
		}
	}
	// The pool still works.
	if got := parallel.Reduce(p, 0, 10, 0, func(_ *pool.Worker, lo, hi int) int { return hi - lo }, func(a, b int) int { return a + b }); got != 10 {
		t.Errorf("after panics: Reduce = %d", got)
	}
}

func TestNilArgumentsPanicNamingThem(t *testing.T) {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	expect := func(name, want string, f func()) {
		t.Helper()
		defer func() {
			r := recover()
			if s := fmt.Sprint(r); !strings.Contains(s, want) {
				t.Errorf("%s: panic %q, want one mentioning %q", name, s, want)
			}
		}()
		f()
	}
	expect("For", "nil body", func() { parallel.For(p, 0, 1, nil) })
	expect("ForRange", "nil body", func() { parallel.ForRange(p, 0, 1, nil) })
	expect("Reduce", "nil chunk", func() { parallel.Reduce(p, 0, 1, 0, nil, func(a, b int) int { return a }) })
	expect("Reduce", "nil combine", func() { parallel.Reduce[int](p, 0, 1, 0, func(*pool.Worker, int, int) int { return 0 }, nil) })
	expect("Scan", "nil op", func() { parallel.Scan[[]int](p, []int{1, 2}, nil) })
	expect("Map", "nil function", func() { parallel.Map[[]int, int, int](p, []int{1}, nil) })
	expect("Do", "argument 1", func() { parallel.Do(p, func(*pool.Worker) {}, nil) })
	expect("For", "nil pool.Runner", func() { parallel.For(nil, 0, 1, func(*pool.Worker, int) {}) })
	var nilPool *pool.Pool
	expect("For", "nil *Pool", func() { parallel.For(nilPool, 0, 1, func(*pool.Worker, int) {}) })
}

func TestClosedPoolPanics(t *testing.T) {
	p := pool.New(pool.WithWorkers(1))
	p.Close()
	defer func() {
		if r := recover(); !strings.Contains(fmt.Sprint(r), "closed") {
			t.Errorf("For on a closed pool: panic %v, want one saying the pool is closed", r)
		}
	}()
	parallel.For(p, 0, 10, func(*pool.Worker, int) {})
}
