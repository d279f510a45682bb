package cilk5

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/pool"
)

// Every parallel form of every program must compute what its serial
// elision computes, and both what an independent computation gives, on
// pools of 1, 2 and 4 workers (4 on two cores: more workers than cores,
// so that tasks are stolen and parked in every interleaving the
// scheduler allows).

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// deadline fails the test binary if the calling test is still running
// after d: it prints every goroutine's stack, so that a hang shows where
// each worker is stuck, and exits. A hung test cannot fail itself with
// t.Fatal from another goroutine. (fj's own internal/fjtest.Deadline
// cannot be imported from this module.)
func deadline(t testing.TB, d time.Duration) {
	t.Helper()
	if raceEnabled {
		d *= 10
	}
	name := t.Name()
	timer := time.AfterFunc(d, func() {
		buf := make([]byte, 1<<22)
		buf = buf[:runtime.Stack(buf, true)]
		fmt.Fprintf(os.Stderr, "\n--- FAIL: %s: still running after %v (deadlock?); all goroutines:\n\n%s\n", name, d, buf)
		os.Exit(2)
	})
	t.Cleanup(func() { timer.Stop() })
}

var workerCounts = []int{1, 2, 4}

// onPools calls f with a pool of each of workerCounts workers, closed
// when f returns.
func onPools(t *testing.T, f func(t *testing.T, p *pool.Pool)) {
	t.Helper()
	for _, n := range workerCounts {
		t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
			p := pool.New(pool.WithWorkers(n))
			defer p.Close()
			f(t, p)
		})
	}
}

// run runs f on p and returns its result.
func run[T any](p *pool.Pool, f func(w *pool.Worker) T) T {
	var r T
	p.Run(func(w *pool.Worker) { r = f(w) })
	return r
}

// mustPanic fails t unless f panics with a message containing want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		msg := fmt.Sprint(r)
		if e, ok := r.(error); ok {
			msg = e.Error()
		}
		if r == nil || !strings.Contains(msg, want) {
			t.Errorf("panic %q, want one containing %q", msg, want)
		}
	}()
	f()
}

func TestFib(t *testing.T) {
	deadline(t, time.Minute)
	onPools(t, func(t *testing.T, p *pool.Pool) {
		for _, n := range []int{0, 1, 2, 3, 10, 20} {
			want := fibIter(n)
			if got := Fib(n); got != want {
				t.Fatalf("Fib(%d) = %d, want %d", n, got, want)
			}
			for name, f := range map[string]func(*pool.Worker, int) int{
				"FibArgs": FibArgs, "FibJoin": FibJoin, "FibFork": FibFork,
			} {
				if got := run(p, func(w *pool.Worker) int { return f(w, n) }); got != want {
					t.Errorf("%s(%d) = %d, want %d", name, n, got, want)
				}
			}
		}
	})
	for n, want := range []int64{0, 0, 1, 2, 4, 7} {
		if got := fibForks(n); got != want {
			t.Errorf("fibForks(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestKnapsack(t *testing.T) {
	deadline(t, time.Minute)
	type instance struct {
		items    []Item
		capacity int
	}
	instances := []instance{
		{nil, 10},
		{[]Item{{5, 10}}, 4},
		{[]Item{{5, 10}}, 5},
		{[]Item{{5, 10}, {4, 40}, {6, 30}, {3, 50}}, 10},
		{[]Item{{1, 1}, {2, 2}}, 0},
		{[]Item{{1, 1}, {2, 2}}, -3},
		{[]Item{{3, 0}, {2, 0}}, 4},
	}
	for _, c := range []struct {
		n    int
		seed uint64
	}{{1, 1}, {8, 2}, {16, 3}, {20, 72}} {
		items, capacity := KnapsackItems(c.n, c.seed)
		instances = append(instances, instance{items, capacity})
	}
	onPools(t, func(t *testing.T, p *pool.Pool) {
		for _, in := range instances {
			want := knapsackDP(in.items, in.capacity)
			if got := Knapsack(in.items, in.capacity); got != want {
				t.Fatalf("Knapsack(%v, %d) = %d, want %d", in.items, in.capacity, got, want)
			}
			for name, f := range map[string]func(*pool.Worker, []Item, int) int{
				"KnapsackArgs": KnapsackArgs, "KnapsackJoin": KnapsackJoin,
			} {
				got := run(p, func(w *pool.Worker) int { return f(w, in.items, in.capacity) })
				if got != want {
					t.Errorf("%s(%v, %d) = %d, want %d", name, in.items, in.capacity, got, want)
				}
			}
		}
	})
	mustPanic(t, "weights must be positive", func() { Knapsack([]Item{{0, 1}}, 3) })
	mustPanic(t, "weights must be positive", func() { Knapsack([]Item{{1, -1}}, 3) })
}

// The bound must cut: otherwise the program is not branch and bound, and
// its cost per fork is not the paper's.
func TestKnapsackPrunes(t *testing.T) {
	items, capacity := KnapsackItems(20, 72)
	if got, full := knapsackForks(items, capacity), int64(1)<<20-1; got >= full/2 {
		t.Errorf("knapsack of 20 items forks %d times, the full tree %d: the bound hardly cuts", got, full)
	}
}

func TestQueens(t *testing.T) {
	deadline(t, time.Minute)
	onPools(t, func(t *testing.T, p *pool.Pool) {
		for n := range 9 {
			want := queensSolutions[n]
			if got := Queens(n); got != want {
				t.Fatalf("Queens(%d) = %d, want %d", n, got, want)
			}
			for name, f := range map[string]func(*pool.Worker, int) int{
				"QueensJoinReduce": QueensJoinReduce, "QueensFork": QueensFork,
			} {
				if got := run(p, func(w *pool.Worker) int { return f(w, n) }); got != want {
					t.Errorf("%s(%d) = %d, want %d", name, n, got, want)
				}
			}
		}
	})
	// On 4×4: 4 legal first queens, 6 second, 4 third, 2 fourth: 16
	// children, each a fork with Fork. JoinAll forks k-1 of a node's k
	// children: 3 at the root, 1 under each corner first queen, 0 below.
	if joinAll, fork := queensForks(4); joinAll != 5 || fork != 16 {
		t.Errorf("queensForks(4) = %d, %d; want 5, 16", joinAll, fork)
	}
	mustPanic(t, "n must be in [0, 16]", func() { Queens(-1) })
	mustPanic(t, "n must be in [0, 16]", func() { Queens(MaxQueens + 1) })
}

func TestCilksort(t *testing.T) {
	deadline(t, time.Minute)
	onPools(t, func(t *testing.T, p *pool.Pool) {
		for _, n := range []int{0, 1, 2, 100, sortGrain - 1, sortGrain, 3*sortGrain + 5, 100_000} {
			inputs := map[string][]int64{"random": randomInt64s(n)}
			few := make([]int64, n) // many duplicates
			for i := range few {
				few[i] = int64(i*7919) % 5
			}
			inputs["duplicates"] = few
			sorted := slices.Clone(inputs["random"])
			slices.Sort(sorted)
			inputs["sorted"] = sorted
			inputs["reversed"] = slices.Clone(sorted)
			slices.Reverse(inputs["reversed"])
			for kind, in := range inputs {
				want := slices.Clone(in)
				slices.Sort(want)
				xs := slices.Clone(in)
				Cilksort(xs, make([]int64, n+3)) // scratch may be longer
				if i := firstDifference(xs, want); i >= 0 {
					t.Fatalf("Cilksort of %d %s int64: element %d is %d, want %d", n, kind, i, xs[i], want[i])
				}
				xs = slices.Clone(in)
				p.Run(func(w *pool.Worker) { CilksortFJ(w, xs, make([]int64, n)) })
				if i := firstDifference(xs, want); i >= 0 {
					t.Errorf("CilksortFJ of %d %s int64: element %d is %d, want %d", n, kind, i, xs[i], want[i])
				}
			}
		}
	})
	mustPanic(t, "scratch space", func() { Cilksort(make([]int64, 5), make([]int64, 4)) })
}

func TestMatMul(t *testing.T) {
	deadline(t, time.Minute)
	forms := []struct {
		name   string
		serial func(c, a, b []float64, n int)
		fj     func(w *pool.Worker, c, a, b []float64, n int)
	}{
		{"NoTempMul", NoTempMul, NoTempMulFJ},
		{"BlockedMul", BlockedMul, BlockedMulFJ},
	}
	onPools(t, func(t *testing.T, p *pool.Pool) {
		for _, n := range []int{MatMulBase, 2 * MatMulBase, 4 * MatMulBase} {
			a, b := randomMatrix(n, 1), randomMatrix(n, 2)
			c0 := randomMatrix(n, 3) // c += a×b: c need not start at zero
			want := slices.Clone(c0)
			mulNaive(want, a, b, n)
			for _, f := range forms {
				c := slices.Clone(c0)
				f.serial(c, a, b, n)
				if i := firstDifference(c, want); i >= 0 {
					t.Fatalf("%s %d×%d: element %d is %v, want %v", f.name, n, n, i, c[i], want[i])
				}
				c = slices.Clone(c0)
				p.Run(func(w *pool.Worker) { f.fj(w, c, a, b, n) })
				if i := firstDifference(c, want); i >= 0 {
					t.Errorf("%sFJ %d×%d: element %d is %v, want %v", f.name, n, n, i, c[i], want[i])
				}
			}
		}
	})
	m := make([]float64, 48*48)
	mustPanic(t, "n must be 32 times a power of two", func() { NoTempMul(m, m, m, 48) })
	mustPanic(t, "n must be 32 times a power of two", func() { BlockedMul(m, m, m, 16) })
	mustPanic(t, "must hold n×n elements", func() { NoTempMul(m, m, m, 64) })
}

func TestHeat(t *testing.T) {
	deadline(t, time.Minute)
	onPools(t, func(t *testing.T, p *pool.Pool) {
		for _, c := range []struct{ rows, cols, steps int }{
			{3, 3, 1}, {20, 17, 0}, {20, 17, 1}, {20, 17, 4}, {3*HeatLeafRows + 7, 50, 9},
		} {
			initial := NewHeatGrid(c.rows, c.cols)
			want := heatLoop(initial, c.steps)
			for name, f := range map[string]func(g, scratch Grid) Grid{
				"Heat": func(g, s Grid) Grid { return Heat(g, s, c.steps) },
				"HeatFJ": func(g, s Grid) Grid {
					return run(p, func(w *pool.Worker) Grid { return HeatFJ(w, g, s, c.steps) })
				},
			} {
				g, scratch := NewHeatGrid(c.rows, c.cols), Grid{c.rows, c.cols, make([]float64, c.rows*c.cols)}
				got := f(g, scratch)
				if i := firstDifference(got.T, want); i >= 0 {
					t.Errorf("%s %d×%d, %d steps: point %d is %v, want %v", name, c.rows, c.cols, c.steps, i, got.T[i], want[i])
				}
				if wantBuf := []Grid{g, scratch}[c.steps%2]; &got.T[0] != &wantBuf.T[0] {
					t.Errorf("%s after %d steps returned the other buffer", name, c.steps)
				}
			}
		}
	})
	// The heat must actually spread: a test against a copy of the same
	// wrong code would pass too.
	if got := heatLoop(NewHeatGrid(3, 3), 1)[4]; got != heatAlpha {
		t.Errorf("centre of a 3×3 grid after one step = %v, want %v", got, heatAlpha)
	}
	mustPanic(t, "at least 3×3", func() { NewHeatGrid(2, 10) })
	mustPanic(t, "scratch grid of another size", func() { Heat(NewHeatGrid(4, 4), NewHeatGrid(4, 5), 1) })
}

// testSizes are small sizes for TestSuite.
var testSizes = Sizes{
	Fib: 15, KnapsackItems: 16, KnapsackSeed: 72, Queens: 6,
	Sort: 10_000, MatMul: 64, Heat: 40, HeatSteps: 3,
}

// The harness's programs check their runs, and the check can fail.
func TestSuite(t *testing.T) {
	deadline(t, time.Minute)
	progs := Suite(testSizes)
	var names []string
	for _, prog := range progs {
		names = append(names, prog.Name)
		if c, ok := PaperC1(prog.Name); !ok || c != prog.PaperC1 {
			t.Errorf("%s: PaperC1 = %v, %v; the program says %v", prog.Name, c, ok, prog.PaperC1)
		}
		prog.Setup()
		if err := prog.Check(); err == nil {
			t.Errorf("%s: Check passes before anything ran", prog.Name)
		}
		prog.Setup()
		prog.Serial()
		if err := prog.Check(); err != nil {
			t.Errorf("%s serial: %v", prog.Name, err)
		}
	}
	if want := []string{"fib", "blockedmul", "notempmul", "queens", "knapsack", "cilksort", "heat"}; !slices.Equal(names, want) {
		t.Errorf("Suite's programs are %v, want %v", names, want)
	}
	onPools(t, func(t *testing.T, p *pool.Pool) {
		for _, prog := range progs {
			for _, v := range prog.Variants {
				for range 2 { // the second run must find its input restored
					prog.Setup()
					p.Run(v.Run)
					if err := prog.Check(); err != nil {
						t.Errorf("%s %s: %v", prog.Name, v.Name, err)
					}
				}
			}
		}
	})
	if _, ok := PaperC1("no such program"); ok {
		t.Error("PaperC1 knows a program that is not in the paper")
	}
}
