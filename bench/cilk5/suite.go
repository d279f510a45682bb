package cilk5

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/forkjoin/fj/pool"
)

// A Program is one program of the suite on one input, ready to be timed:
// its serial elision and its fj variants, the input to restore before each
// run and the check of each run's result.
//
// A run is Setup (untimed), then Serial or one variant's Run (timed), then
// Check (untimed), which compares the run's result with one computed
// independently of every form of the program (a closed formula, dynamic
// programming, a table of known values, slices.Sort, a triple loop, plain
// loops).
type Program struct {
	// Name is the program's name in the paper's Figure 6.
	Name string
	// Input describes the input, e.g. "n=35".
	Input string
	// PaperC1 is Cilk-5's work overhead T1/TS for the program, from the
	// paper's Figure 6.
	PaperC1 float64
	// Setup restores the input (a sort sorts in place, a multiplication
	// accumulates) and clears the last result.
	Setup func()
	// Serial runs the serial elision.
	Serial func()
	// Variants are the program written with fj, one per way of forking.
	Variants []Variant
	// Check returns an error unless the last run computed the right
	// result.
	Check func() error
}

// A Variant is a program written with one of fj's ways of forking.
type Variant struct {
	// Name says how the variant forks: "args" (forkjoin.JoinArgs),
	// "join" (forkjoin.Join), "fork" (forkjoin.Fork and Future.Join),
	// "spawn" (forkjoin.Spawn and Task.Join),
	// "joinall" (forkjoin.JoinAll), or "fj" for a program with a single
	// variant.
	Name string
	// Forks is the number of tasks one run forks on one worker: one per
	// Join, JoinArgs or Fork, len(args)-1 per JoinAll, as many as the
	// serial elision's tree implies. It is 0 where the tasks are coarse
	// and the count means nothing (the programs that fork through
	// parallel.Do).
	Forks int64
	// Run runs the variant on w's pool; run it with (*pool.Pool).Run.
	Run func(w *pool.Worker)
}

// Impl returns the name of v run on a pool of the given number of
// workers, as benchmark names and tables show it: "fj-2w" for a program's
// single variant, "args-1w" for its JoinArgs variant on one worker.
func (v Variant) Impl(workers int) string {
	return fmt.Sprintf("%s-%dw", v.Name, workers)
}

// Sizes are the inputs of the suite's programs.
type Sizes struct {
	Fib           int    // fib(n)
	KnapsackItems int    // items of the knapsack instance (KnapsackItems)
	KnapsackSeed  uint64 // seed of the knapsack instance
	Queens        int    // board side
	Sort          int    // int64s cilksort sorts
	MatMul        int    // matrix side of notempmul and blockedmul
	Heat          int    // grid side of heat
	HeatSteps     int    // time steps of heat
}

// DefaultSizes are the sizes the benchmarks and cmd/cilk5 use by default:
// each program's serial elision takes 50 to 300 ms on a 2020s x86 core.
func DefaultSizes() Sizes {
	return Sizes{
		Fib:           35,
		KnapsackItems: 30,
		KnapsackSeed:  72, // 11.6M nodes with 30 items
		Queens:        11,
		Sort:          2 << 20,
		MatMul:        512,
		Heat:          1024,
		HeatSteps:     100,
	}
}

// QuickSizes are sizes for a quick check, about a hundred times smaller.
func QuickSizes() Sizes {
	return Sizes{
		Fib:           25,
		KnapsackItems: 24,
		KnapsackSeed:  72,
		Queens:        8,
		Sort:          64 << 10,
		MatMul:        128,
		Heat:          256,
		HeatSteps:     20,
	}
}

// paperC1 holds T1/TS of Cilk-5 from Figure 6 of Frigo, Leiserson and
// Randall, "The Implementation of the Cilk-5 Multithreaded Language",
// PLDI 1998, for the programs of the figure.
var paperC1 = map[string]float64{
	"fib":        3.63,
	"blockedmul": 1.05,
	"notempmul":  1.05,
	"strassen":   1.01,
	"queens":     0.99,
	"knapsack":   1.03,
	"lu":         1.02,
	"spacemul":   1.05,
	"cilksort":   1.21,
	"heat":       1.08,
}

// PaperC1 returns Cilk-5's work overhead T1/TS for the named program of
// the paper's Figure 6, and false if the figure has no such program.
func PaperC1(program string) (float64, bool) {
	c, ok := paperC1[program]
	return c, ok
}

// Suite returns the programs of the suite, with the given sizes, in the
// order of the paper's Figure 6: fib, blockedmul, notempmul, queens,
// knapsack, cilksort, heat. Building it computes every program's input
// and the results its runs are checked against.
func Suite(s Sizes) []*Program {
	return []*Program{
		fibProgram(s.Fib),
		blockedMulProgram(s.MatMul),
		noTempMulProgram(s.MatMul),
		queensProgram(s.Queens),
		knapsackProgram(s.KnapsackItems, s.KnapsackSeed),
		cilksortProgram(s.Sort),
		heatProgram(s.Heat, s.HeatSteps),
	}
}

// intResult is the state of a program whose result is one int.
type intResult struct {
	got, want int
	what      string
}

func (r *intResult) reset() { r.got = -1 }

func (r *intResult) check() error {
	if r.got != r.want {
		return fmt.Errorf("%s = %d, want %d", r.what, r.got, r.want)
	}
	return nil
}

func fibProgram(n int) *Program {
	r := &intResult{want: fibIter(n), what: fmt.Sprintf("fib(%d)", n)}
	forks := fibForks(n)
	return &Program{
		Name: "fib", Input: fmt.Sprintf("n=%d", n), PaperC1: paperC1["fib"],
		Setup:  r.reset,
		Serial: func() { r.got = Fib(n) },
		Variants: []Variant{
			{"args", forks, func(w *pool.Worker) { r.got = FibArgs(w, n) }},
			{"join", forks, func(w *pool.Worker) { r.got = FibJoin(w, n) }},
			{"fork", forks, func(w *pool.Worker) { r.got = FibFork(w, n) }},
			{"spawn", forks, func(w *pool.Worker) { r.got = FibSpawn(w, n) }},
		},
		Check: r.check,
	}
}

func knapsackProgram(n int, seed uint64) *Program {
	items, capacity := KnapsackItems(n, seed)
	r := &intResult{want: knapsackDP(items, capacity), what: fmt.Sprintf("knapsack of %d items", n)}
	forks := knapsackForks(items, capacity)
	return &Program{
		Name: "knapsack", Input: fmt.Sprintf("%d items, seed %d", n, seed), PaperC1: paperC1["knapsack"],
		Setup:  r.reset,
		Serial: func() { r.got = Knapsack(items, capacity) },
		Variants: []Variant{
			{"args", forks, func(w *pool.Worker) { r.got = KnapsackArgs(w, items, capacity) }},
			{"join", forks, func(w *pool.Worker) { r.got = KnapsackJoin(w, items, capacity) }},
		},
		Check: r.check,
	}
}

func queensProgram(n int) *Program {
	checkQueens(n)
	r := &intResult{want: queensSolutions[n], what: fmt.Sprintf("queens(%d)", n)}
	joinAll, fork := queensForks(n)
	return &Program{
		Name: "queens", Input: fmt.Sprintf("n=%d", n), PaperC1: paperC1["queens"],
		Setup:  r.reset,
		Serial: func() { r.got = Queens(n) },
		Variants: []Variant{
			{"joinreduce", joinAll, func(w *pool.Worker) { r.got = QueensJoinReduce(w, n) }},
			{"fork", fork, func(w *pool.Worker) { r.got = QueensFork(w, n) }},
		},
		Check: r.check,
	}
}

// randomInt64s returns n int64s from a generator with a fixed seed.
func randomInt64s(n int) []int64 {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = r.Int64()
	}
	return xs
}

func cilksortProgram(n int) *Program {
	input := randomInt64s(n)
	want := slices.Clone(input)
	slices.Sort(want)
	xs, tmp := make([]int64, n), make([]int64, n)
	return &Program{
		Name: "cilksort", Input: fmt.Sprintf("%d int64", n), PaperC1: paperC1["cilksort"],
		Setup:  func() { copy(xs, input) },
		Serial: func() { Cilksort(xs, tmp) },
		Variants: []Variant{
			{"fj", 0, func(w *pool.Worker) { CilksortFJ(w, xs, tmp) }},
		},
		Check: func() error {
			if i := firstDifference(xs, want); i >= 0 {
				return fmt.Errorf("cilksort of %d int64: element %d is %d, want %d", n, i, xs[i], want[i])
			}
			return nil
		},
	}
}

// firstDifference returns the first index where got and want differ, or
// -1 if they are equal.
func firstDifference[E comparable](got, want []E) int {
	for i := range want {
		if got[i] != want[i] {
			return i
		}
	}
	return -1
}

// randomMatrix returns an n×n matrix of small integers, from a generator
// with a fixed seed: every product and sum of a multiplication is exact,
// so every order of the additions gives the same bits.
func randomMatrix(n int, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	m := make([]float64, n*n)
	for i := range m {
		m[i] = float64(r.IntN(17) - 8)
	}
	return m
}

// mulProgram is a program that adds a×b to a zero c.
func mulProgram(name string, n int, serial func(c, a, b []float64, n int),
	fj func(w *pool.Worker, c, a, b []float64, n int)) *Program {
	a, b := randomMatrix(n, 1), randomMatrix(n, 2)
	want := make([]float64, n*n)
	mulNaive(want, a, b, n)
	c := make([]float64, n*n)
	return &Program{
		Name: name, Input: fmt.Sprintf("%d×%d", n, n), PaperC1: paperC1[name],
		Setup:  func() { clear(c) },
		Serial: func() { serial(c, a, b, n) },
		Variants: []Variant{
			{"fj", 0, func(w *pool.Worker) { fj(w, c, a, b, n) }},
		},
		Check: func() error {
			if i := firstDifference(c, want); i >= 0 {
				return fmt.Errorf("%s %d×%d: element (%d, %d) is %v, want %v", name, n, n, i/n, i%n, c[i], want[i])
			}
			return nil
		},
	}
}

func noTempMulProgram(n int) *Program {
	return mulProgram("notempmul", n, NoTempMul, NoTempMulFJ)
}

func blockedMulProgram(n int) *Program {
	return mulProgram("blockedmul", n, BlockedMul, BlockedMulFJ)
}

func heatProgram(n, steps int) *Program {
	initial := NewHeatGrid(n, n)
	want := heatLoop(initial, steps)
	g, scratch := NewHeatGrid(n, n), NewHeatGrid(n, n)
	var got Grid
	return &Program{
		Name: "heat", Input: fmt.Sprintf("%d×%d, %d steps", n, n, steps), PaperC1: paperC1["heat"],
		// Heat uses g as one of its two buffers.
		Setup:  func() { copy(g.T, initial.T); got = Grid{} },
		Serial: func() { got = Heat(g, scratch, steps) },
		Variants: []Variant{
			{"fj", 0, func(w *pool.Worker) { got = HeatFJ(w, g, scratch, steps) }},
		},
		Check: func() error {
			if got.T == nil {
				return fmt.Errorf("heat: no result")
			}
			if i := firstDifference(got.T, want); i >= 0 {
				return fmt.Errorf("heat %d×%d, %d steps: point (%d, %d) is %v, want %v", n, n, steps, i/n, i%n, got.T[i], want[i])
			}
			return nil
		},
	}
}
