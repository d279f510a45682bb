package cilk5_test

import (
	"fmt"
	"slices"

	"github.com/forkjoin/fj/bench/cilk5"
	"github.com/forkjoin/fj/pool"
)

func ExampleFib() {
	fmt.Println(cilk5.Fib(20))
	// Output: 6765
}

func ExampleFibArgs() {
	p := pool.New()
	defer p.Close()
	p.Run(func(w *pool.Worker) { fmt.Println(cilk5.FibArgs(w, 20)) })
	// Output: 6765
}

func ExampleFibJoin() {
	p := pool.New()
	defer p.Close()
	p.Run(func(w *pool.Worker) { fmt.Println(cilk5.FibJoin(w, 20)) })
	// Output: 6765
}

func ExampleFibFork() {
	p := pool.New()
	defer p.Close()
	p.Run(func(w *pool.Worker) { fmt.Println(cilk5.FibFork(w, 20)) })
	// Output: 6765
}

// Take the items of weight 4 and 3: value 90 in 7 of the 10 units.
var items = []cilk5.Item{{Weight: 5, Value: 10}, {Weight: 4, Value: 40}, {Weight: 6, Value: 30}, {Weight: 3, Value: 50}}

func ExampleItem() {
	fmt.Println(cilk5.Knapsack(items, 10))
	// Output: 90
}

func ExampleKnapsack() {
	fmt.Println(cilk5.Knapsack(items, 10))
	fmt.Println(cilk5.Knapsack(items, 2)) // nothing fits
	// Output:
	// 90
	// 0
}

func ExampleKnapsackItems() {
	items, capacity := cilk5.KnapsackItems(20, 72)
	fmt.Println(len(items), capacity, cilk5.Knapsack(items, capacity))
	// Output: 20 13691 14791
}

func ExampleKnapsackArgs() {
	p := pool.New()
	defer p.Close()
	items, capacity := cilk5.KnapsackItems(20, 72)
	p.Run(func(w *pool.Worker) { fmt.Println(cilk5.KnapsackArgs(w, items, capacity)) })
	// Output: 14791
}

func ExampleKnapsackJoin() {
	p := pool.New()
	defer p.Close()
	items, capacity := cilk5.KnapsackItems(20, 72)
	p.Run(func(w *pool.Worker) { fmt.Println(cilk5.KnapsackJoin(w, items, capacity)) })
	// Output: 14791
}

func ExampleQueens() {
	fmt.Println(cilk5.Queens(8))
	// Output: 92
}

func ExampleQueensJoinReduce() {
	p := pool.New()
	defer p.Close()
	p.Run(func(w *pool.Worker) { fmt.Println(cilk5.QueensJoinReduce(w, 8)) })
	// Output: 92
}

func ExampleQueensFork() {
	p := pool.New()
	defer p.Close()
	p.Run(func(w *pool.Worker) { fmt.Println(cilk5.QueensFork(w, 8)) })
	// Output: 92
}

func ExampleCilksort() {
	xs := []int64{5, -1, 3, 3, 0}
	cilk5.Cilksort(xs, make([]int64, len(xs)))
	fmt.Println(xs)
	// Output: [-1 0 3 3 5]
}

func ExampleCilksortFJ() {
	p := pool.New()
	defer p.Close()
	xs := make([]int64, 100_000)
	for i := range xs {
		xs[i] = int64(len(xs) - i)
	}
	p.Run(func(w *pool.Worker) { cilk5.CilksortFJ(w, xs, make([]int64, len(xs))) })
	fmt.Println(slices.IsSorted(xs), xs[0], xs[len(xs)-1])
	// Output: true 1 100000
}

// identityTimes returns n×n matrices a = 2I and b with b[i][j] = i+j,
// and a zero c: c += a×b leaves 2b in c.
func identityTimes(n int) (c, a, b []float64) {
	c, a, b = make([]float64, n*n), make([]float64, n*n), make([]float64, n*n)
	for i := range n {
		a[i*n+i] = 2
		for j := range n {
			b[i*n+j] = float64(i + j)
		}
	}
	return c, a, b
}

func ExampleNoTempMul() {
	n := 2 * cilk5.MatMulBase
	c, a, b := identityTimes(n)
	cilk5.NoTempMul(c, a, b, n)
	fmt.Println(c[0*n+1], c[5*n+7], c[n*n-1])
	// Output: 2 24 252
}

func ExampleNoTempMulFJ() {
	p := pool.New()
	defer p.Close()
	n := 4 * cilk5.MatMulBase
	c, a, b := identityTimes(n)
	p.Run(func(w *pool.Worker) { cilk5.NoTempMulFJ(w, c, a, b, n) })
	fmt.Println(c[0*n+1], c[5*n+7], c[n*n-1])
	// Output: 2 24 508
}

func ExampleBlockedMul() {
	n := 2 * cilk5.MatMulBase
	c, a, b := identityTimes(n)
	cilk5.BlockedMul(c, a, b, n)
	fmt.Println(c[0*n+1], c[5*n+7], c[n*n-1])
	// Output: 2 24 252
}

func ExampleBlockedMulFJ() {
	p := pool.New()
	defer p.Close()
	n := 4 * cilk5.MatMulBase
	c, a, b := identityTimes(n)
	p.Run(func(w *pool.Worker) { cilk5.BlockedMulFJ(w, c, a, b, n) })
	fmt.Println(c[0*n+1], c[5*n+7], c[n*n-1])
	// Output: 2 24 508
}

func ExampleGrid() {
	g := cilk5.NewHeatGrid(3, 4)
	fmt.Println(g.Rows, g.Cols, g.T)
	// Output: 3 4 [1 1 1 1 0 0 0 0 0 0 0 0]
}

func ExampleNewHeatGrid() {
	g := cilk5.NewHeatGrid(3, 3)
	fmt.Println(g.T[:3], g.T[4]) // the hot top border, the cold centre
	// Output: [1 1 1] 0
}

func ExampleHeat() {
	g, scratch := cilk5.NewHeatGrid(3, 3), cilk5.NewHeatGrid(3, 3)
	// One step: the centre gets 0.2 of the difference with its hot
	// neighbour above.
	fmt.Printf("%.3f\n", cilk5.Heat(g, scratch, 1).T[4])
	// Output: 0.200
}

func ExampleHeatFJ() {
	p := pool.New()
	defer p.Close()
	g, scratch := cilk5.NewHeatGrid(100, 100), cilk5.NewHeatGrid(100, 100)
	var got cilk5.Grid
	p.Run(func(w *pool.Worker) { got = cilk5.HeatFJ(w, g, scratch, 10) })
	want := cilk5.Heat(cilk5.NewHeatGrid(100, 100), cilk5.NewHeatGrid(100, 100), 10)
	fmt.Println(slices.Equal(got.T, want.T))
	// Output: true
}

func ExamplePaperC1() {
	c1, ok := cilk5.PaperC1("fib")
	fmt.Println(c1, ok)
	// Output: 3.63 true
}

func ExampleSizes() {
	s := cilk5.QuickSizes()
	s.Fib = 20
	fmt.Println(cilk5.Suite(s)[0].Input)
	// Output: n=20
}

func ExampleDefaultSizes() {
	fmt.Println(cilk5.DefaultSizes().Fib)
	// Output: 35
}

func ExampleQuickSizes() {
	fmt.Println(cilk5.QuickSizes().Queens)
	// Output: 8
}

func ExampleVariant_Impl() {
	v := cilk5.Suite(cilk5.QuickSizes())[0].Variants[0]
	fmt.Println(v.Impl(1), v.Impl(2))
	// Output: args-1w args-2w
}

// A timing harness in a few lines: every program's serial elision and
// every variant on a pool, each run between Setup and Check.
func ExampleSuite() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for _, prog := range cilk5.Suite(cilk5.QuickSizes()) {
		prog.Setup()
		prog.Serial()
		if err := prog.Check(); err != nil {
			panic(err)
		}
		for _, v := range prog.Variants {
			prog.Setup()
			p.Run(v.Run)
			if err := prog.Check(); err != nil {
				panic(err)
			}
			fmt.Print(prog.Name, " ", v.Impl(p.Workers()), "; ")
		}
	}
	fmt.Println()
	// Output: fib args-2w; fib join-2w; fib fork-2w; fib spawn-2w; blockedmul fj-2w; notempmul fj-2w; queens joinreduce-2w; queens fork-2w; knapsack args-2w; knapsack join-2w; cilksort fj-2w; heat fj-2w;
}

func ExampleProgram() {
	prog := cilk5.Suite(cilk5.QuickSizes())[3]
	prog.Setup()
	fmt.Println(prog.Name, prog.Input, prog.PaperC1, prog.Check() != nil) // nothing ran yet
	prog.Serial()
	fmt.Println(prog.Check())
	// Output:
	// queens n=8 0.99 true
	// <nil>
}
