package parallel_test

import (
	"fmt"
	"math"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func ExampleSortByKey() {
	p := pool.New()
	defer p.Close()

	type order struct {
		id    string
		price float64
	}
	orders := []order{
		{"a", 9.5}, {"b", math.NaN()}, {"c", 3}, {"d", 9.5}, {"e", -1}, {"f", 3},
	}
	// By price; equal prices keep their order (c before f, a before d),
	// and a NaN comes first, as slices.SortStableFunc with cmp.Compare
	// would have it.
	parallel.SortByKey(p, orders, func(o order) float64 { return o.price })
	for _, o := range orders {
		fmt.Print(o.id, " ")
	}
	fmt.Println()
	// Output: b e c f a d
}
