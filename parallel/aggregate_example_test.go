package parallel_test

import (
	"cmp"
	"fmt"
	"math"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func ExampleMin() {
	p := pool.New()
	defer p.Close()

	temps := []float64{12.5, -3, 7, 21.25, -3.5}
	fmt.Println(parallel.Min(p, temps), parallel.Max(p, temps))
	// As with slices.Min, one NaN makes the result NaN.
	fmt.Println(parallel.Min(p, append(temps, math.NaN())))
	// Output:
	// -3.5 21.25
	// NaN
}

func ExampleMax() {
	p := pool.New()
	defer p.Close()

	fmt.Println(parallel.Max(p, []string{"fig", "quince", "apple"}))
	// Output: quince
}

func ExampleMinFunc() {
	p := pool.New()
	defer p.Close()

	type city struct {
		name string
		pop  int
	}
	cities := []city{{"Lyon", 520}, {"Nice", 340}, {"Metz", 120}, {"Brest", 140}, {"Vannes", 120}}
	byPop := func(a, b city) int { return cmp.Compare(a.pop, b.pop) }
	// The first of the smallest: Metz, not Vannes.
	fmt.Println(parallel.MinFunc(p, cities, byPop).name)
	// Output: Metz
}

func ExampleMaxFunc() {
	p := pool.New()
	defer p.Close()

	words := []string{"go", "fork", "join", "pool", "task"}
	byLen := func(a, b string) int { return cmp.Compare(len(a), len(b)) }
	// The first of the longest.
	fmt.Println(parallel.MaxFunc(p, words, byLen))
	// Output: fork
}

func ExampleSum() {
	p := pool.New()
	defer p.Close()

	xs := make([]int64, 1_000_000)
	for i := range xs {
		xs[i] = int64(i + 1)
	}
	fmt.Println(parallel.Sum(p, xs))
	fmt.Println(parallel.Sum(p, []complex128{1 + 2i, 3 - 1i}))
	// Output:
	// 500000500000
	// (4+1i)
}

func ExampleCountFunc() {
	p := pool.New()
	defer p.Close()

	xs := make([]int, 1000)
	for i := range xs {
		xs[i] = i
	}
	fmt.Println(parallel.CountFunc(p, xs, func(x int) bool { return x%7 == 0 }))
	// Output: 143
}
