package parallel_test

import (
	"cmp"
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// sameFloat reports whether a and b are the same value: both NaN, or equal
// with the same sign (so -0 and +0 differ).
func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b && math.Signbit(a) == math.Signbit(b)
}

// randFloats returns n floats, mostly small integers (so that sums are
// exact in any order), sprinkled with the special values if special.
func randFloats(rng *rand.Rand, n int, special bool) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = float64(rng.Intn(2001) - 1000)
		if special && rng.Intn(50) == 0 {
			s[i] = []float64{math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), math.NaN()}[rng.Intn(5)]
		}
	}
	return s
}

func TestMinMaxMatchSlices(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		rng := rand.New(rand.NewSource(4))
		algoCases(func(n int, opt parallel.Option, name string) {
			if n == 0 {
				return
			}
			is := randInts(rng, n, 1<<30)
			if got, want := parallel.Min(p, is, opt), slices.Min(is); got != want {
				t.Fatalf("%s: Min = %d, want %d", name, got, want)
			}
			if got, want := parallel.Max(p, is, opt), slices.Max(is); got != want {
				t.Fatalf("%s: Max = %d, want %d", name, got, want)
			}
			for _, special := range []bool{false, true} {
				fs := randFloats(rng, n, special)
				if got, want := parallel.Min(p, fs, opt), slices.Min(fs); !sameFloat(got, want) {
					t.Fatalf("%s: Min = %v, want %v", name, got, want)
				}
				if got, want := parallel.Max(p, fs, opt), slices.Max(fs); !sameFloat(got, want) {
					t.Fatalf("%s: Max = %v, want %v", name, got, want)
				}
			}
		})
		// One NaN anywhere makes both NaN; zeros of both signs.
		fs := make([]float64, 100_000)
		fs[77_777] = math.NaN()
		if got := parallel.Min(p, fs); !math.IsNaN(got) {
			t.Errorf("Min with a NaN = %v, want NaN", got)
		}
		if got := parallel.Max(p, fs); !math.IsNaN(got) {
			t.Errorf("Max with a NaN = %v, want NaN", got)
		}
		fs[77_777] = math.Copysign(0, -1)
		if got, want := parallel.Min(p, fs), slices.Min(fs); !sameFloat(got, want) {
			t.Errorf("Min of zeros = %v, want %v", got, want)
		}
		if got, want := parallel.Max(p, fs), slices.Max(fs); !sameFloat(got, want) {
			t.Errorf("Max of zeros = %v, want %v", got, want)
		}
		ss := []string{"pear", "apple", "fig", "quince", "apple"}
		if got := parallel.Min(p, ss, parallel.Grain(1)); got != "apple" {
			t.Errorf("Min of strings = %q", got)
		}
		if got := parallel.Max(p, ss, parallel.Grain(1)); got != "quince" {
			t.Errorf("Max of strings = %q", got)
		}
	})
}

type keyed struct{ key, idx int }

func TestMinFuncMaxFuncFirstOfTies(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	byKey := func(a, b keyed) int { return cmp.Compare(a.key, b.key) }
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		rng := rand.New(rand.NewSource(5))
		algoCases(func(n int, opt parallel.Option, name string) {
			if n == 0 {
				return
			}
			// Few distinct keys: the extremes occur many times, and only
			// the first occurrence is right.
			s := make([]keyed, n)
			for i := range s {
				s[i] = keyed{rng.Intn(10), i}
			}
			if got, want := parallel.MinFunc(p, s, byKey, opt), slices.MinFunc(s, byKey); got != want {
				t.Fatalf("%s: MinFunc = %v, want %v", name, got, want)
			}
			if got, want := parallel.MaxFunc(p, s, byKey, opt), slices.MaxFunc(s, byKey); got != want {
				t.Fatalf("%s: MaxFunc = %v, want %v", name, got, want)
			}
		})
	})
}

func TestSumCountMatchSequential(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		rng := rand.New(rand.NewSource(6))
		algoCases(func(n int, opt parallel.Option, name string) {
			is := randInts(rng, n, min(1<<40, math.MaxInt))
			want, wantOdd := 0, 0
			for _, x := range is {
				want += x
				if x%2 == 1 {
					wantOdd++
				}
			}
			if got := parallel.Sum(p, is, opt); got != want {
				t.Fatalf("%s: Sum = %d, want %d", name, got, want)
			}
			if got := parallel.CountFunc(p, is, func(x int) bool { return x%2 == 1 }, opt); got != wantOdd {
				t.Fatalf("%s: CountFunc = %d, want %d", name, got, wantOdd)
			}
			// Wrap-around is the same in any grouping.
			u8 := make([]uint8, n)
			var want8 uint8
			for i := range u8 {
				u8[i] = uint8(is[i])
				want8 += u8[i]
			}
			if got := parallel.Sum(p, u8, opt); got != want8 {
				t.Fatalf("%s: Sum of uint8 = %d, want %d", name, got, want8)
			}
			// Integer-valued floats sum exactly in any order.
			fs := randFloats(rng, n, false)
			var wantF float64
			cs := make([]complex128, n)
			var wantC complex128
			for i, x := range fs {
				wantF += x
				cs[i] = complex(x, -2*x)
				wantC += cs[i]
			}
			if got := parallel.Sum(p, fs, opt); got != wantF {
				t.Fatalf("%s: Sum of floats = %v, want %v", name, got, wantF)
			}
			if got := parallel.Sum(p, cs, opt); got != wantC {
				t.Fatalf("%s: Sum of complex = %v, want %v", name, got, wantC)
			}
		})
	})
}

func TestAggregatePanics(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	algoPools(t, func(t *testing.T, p *pool.Pool) {
		s := make([]keyed, 10_000)
		s[6000].key = 1
		cmpBoom := func(a, b keyed) int {
			if a.key == 1 || b.key == 1 {
				panic(errBoom)
			}
			return 0
		}
		for _, opt := range algoOpts() {
			for name, f := range map[string]func(){
				"MinFunc": func() { parallel.MinFunc(p, s, cmpBoom, opt) },
				"MaxFunc": func() { parallel.MaxFunc(p, s, cmpBoom, opt) },
				"CountFunc": func() {
					parallel.CountFunc(p, s, func(e keyed) bool { return cmpBoom(e, e) == 0 }, opt)
				},
			} {
				if pe := catchPanicError(t, name, f); pe.Value != errBoom {
					t.Errorf("%s: PanicError.Value = %v, want %v", name, pe.Value, errBoom)
				}
			}
		}
	})
}

func TestAggregateBadInput(t *testing.T) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var empty []int
	byVal := func(a, b int) int { return a - b }
	wantPanicMessage(t, "Min empty", func() { parallel.Min(p, empty) }, "Min", "empty")
	wantPanicMessage(t, "Max empty", func() { parallel.Max(p, empty) }, "Max", "empty")
	wantPanicMessage(t, "MinFunc empty", func() { parallel.MinFunc(p, empty, byVal) }, "MinFunc", "empty")
	wantPanicMessage(t, "MaxFunc empty", func() { parallel.MaxFunc(p, empty, byVal) }, "MaxFunc", "empty")
	s := []int{3, 1, 2}
	wantPanicMessage(t, "MinFunc nil", func() { parallel.MinFunc(p, s, nil) }, "MinFunc", "nil")
	wantPanicMessage(t, "MaxFunc nil", func() { parallel.MaxFunc(p, s, nil) }, "MaxFunc", "nil")
	wantPanicMessage(t, "CountFunc nil", func() { parallel.CountFunc(p, s, nil) }, "CountFunc", "nil")
	wantPanicMessage(t, "Sum nil runner", func() { parallel.Sum(nil, empty) }, "nil pool.Runner")
	wantPanicMessage(t, "Min nil runner", func() { parallel.Min(nil, s) }, "nil pool.Runner")
	wantPanicMessage(t, "CountFunc nil runner", func() {
		parallel.CountFunc(nil, s, func(int) bool { return true })
	}, "nil pool.Runner")
}

// The aggregates and Reduce nested in a step of a loop that has steps
// left run in one step (oneStep, split.go), and such a call allocates
// nothing: the Sum of a row called once per row of a For, with no
// closure escaping to the heap, costs what the plain loop costs (issue
// 32, item 5: 4,008 allocations a For of 2,000 rows before, 2 a row).
// On a pool of one worker every call is in that case; the count is the
// whole For's, per row.
func TestNestedAggregatesAllocateNothing(t *testing.T) {
	if fjtest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	rows := make([][]float64, 256)
	for i := range rows {
		rows[i] = make([]float64, 500)
		for j := range rows[i] {
			rows[i][j] = float64((i*31 + j*7) % 101)
		}
	}
	out := make([]float64, len(rows))
	positive := func(x float64) bool { return x > 0 }
	byValue := func(a, b float64) int { return cmp.Compare(a, b) }
	sumChunk := func(_ *pool.Worker, lo, hi int) float64 { return float64(hi - lo) } // captures nothing
	add := func(a, b float64) float64 { return a + b }
	calls := map[string]func(w *pool.Worker, row []float64) float64{
		"Sum":       func(w *pool.Worker, row []float64) float64 { return parallel.Sum(w, row) },
		"Min":       func(w *pool.Worker, row []float64) float64 { return parallel.Min(w, row) },
		"Max":       func(w *pool.Worker, row []float64) float64 { return parallel.Max(w, row) },
		"MinFunc":   func(w *pool.Worker, row []float64) float64 { return parallel.MinFunc(w, row, byValue) },
		"MaxFunc":   func(w *pool.Worker, row []float64) float64 { return parallel.MaxFunc(w, row, byValue) },
		"CountFunc": func(w *pool.Worker, row []float64) float64 { return float64(parallel.CountFunc(w, row, positive)) },
		"Reduce": func(w *pool.Worker, row []float64) float64 {
			return parallel.Reduce(w, 0, len(row), 0.0, sumChunk, add)
		},
	}
	want := map[string]func(row []float64) float64{
		"Sum": func(row []float64) float64 {
			s := 0.0
			for _, x := range row {
				s += x
			}
			return s
		},
		"Min":     func(row []float64) float64 { return slices.Min(row) },
		"Max":     func(row []float64) float64 { return slices.Max(row) },
		"MinFunc": func(row []float64) float64 { return slices.Min(row) },
		"MaxFunc": func(row []float64) float64 { return slices.Max(row) },
		"CountFunc": func(row []float64) float64 {
			return float64(len(row) - zeros(row))
		},
		"Reduce": func(row []float64) float64 { return float64(len(row)) },
	}
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	for name, call := range calls {
		allocs := testing.AllocsPerRun(10, func() {
			parallel.For(p, 0, len(rows), func(w *pool.Worker, r int) { out[r] = call(w, rows[r]) })
		})
		if per := allocs / float64(len(rows)); per > 0.1 {
			t.Errorf("%s nested in a For on one worker: %.2f allocations a call (%.0f a For of %d rows), want none", name, per, allocs, len(rows))
		}
		for r, row := range rows {
			if w := want[name](row); out[r] != w {
				t.Fatalf("%s of row %d = %v, want %v", name, r, out[r], w)
			}
		}
	}
}

// zeros counts the zeros of row (CountFunc's complement).
func zeros(row []float64) int {
	n := 0
	for _, x := range row {
		if x == 0 {
			n++
		}
	}
	return n
}
