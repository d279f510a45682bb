package parallel_test

import (
	"fmt"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func ExampleFilter() {
	p := pool.New()
	defer p.Close()

	xs := make([]int, 100_000)
	for i := range xs {
		xs[i] = i
	}
	squares := parallel.Filter(p, xs, func(x int) bool {
		r := 0
		for r*r < x {
			r++
		}
		return r*r == x
	})
	// In input order, whichever worker tested which element.
	fmt.Println(len(squares), squares[:8], squares[len(squares)-1])
	// Output: 317 [0 1 4 9 16 25 36 49] 99856
}
