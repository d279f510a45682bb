package parallel_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func ExampleSort() {
	p := pool.New()
	defer p.Close()

	// A million numbers: long enough to be sorted in parallel.
	rng := rand.New(rand.NewSource(1))
	xs := make([]float64, 1_000_000)
	for i := range xs {
		xs[i] = rng.NormFloat64()
	}
	xs[123] = math.NaN()
	xs[456] = math.Inf(-1)

	parallel.Sort(p, xs)

	// As with slices.Sort, NaNs come first.
	fmt.Println(xs[0], xs[1], slices.IsSorted(xs[1:]))
	// Output: NaN -Inf true
}

func ExampleSortFunc() {
	p := pool.New()
	defer p.Close()

	type city struct {
		name string
		pop  int // thousands
	}
	cities := []city{
		{"Lagos", 15388}, {"Tokyo", 37194}, {"Delhi", 32941},
		{"Cairo", 22183}, {"Mumbai", 21297}, {"Dhaka", 23210},
	}

	// Largest first. The comparator runs on several workers at once: it
	// must be a pure function of its arguments.
	parallel.SortFunc(p, cities, func(a, b city) int {
		return cmp.Compare(b.pop, a.pop)
	})
	for _, c := range cities[:3] {
		fmt.Println(c.name)
	}
	// Output:
	// Tokyo
	// Delhi
	// Dhaka
}

func ExampleSortStableFunc() {
	p := pool.New()
	defer p.Close()

	// Sort by length; words of the same length stay in input order.
	words := strings.Fields("fork join pool task steal deque work split merge sort")
	parallel.SortStableFunc(p, words, func(a, b string) int {
		return cmp.Compare(len(a), len(b))
	})
	fmt.Println(words)
	// Output: [fork join pool task work sort steal deque split merge]
}
