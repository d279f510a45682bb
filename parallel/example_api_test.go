package parallel_test

import (
	"context"
	"fmt"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// Options are values: a program can build one set for its loops and pass
// it to every call. A call ignores the options that do not apply to it
// (each option's documentation lists the calls it applies to).
func ExampleOption() {
	p := pool.New()
	defer p.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cheap iterations: at least 1000 per task, and stop when ctx ends.
	opts := []parallel.Option{parallel.Grain(1000), parallel.Context(ctx)}

	xs := make([]int, 100_000)
	parallel.For(p, 0, len(xs), func(_ *pool.Worker, i int) { xs[i] = i % 10 }, opts...)
	sum := parallel.Reduce(p, 0, len(xs), 0,
		func(_ *pool.Worker, lo, hi int) int {
			s := 0
			for _, x := range xs[lo:hi] {
				s += x
			}
			return s
		},
		func(a, b int) int { return a + b }, opts...)
	fmt.Println(sum, ctx.Err())
	// Output: 450000 <nil>
}

// Stop is a break that reaches every piece of a call, and of the calls
// nested in it that share the flag: here the first (and only) hit in a
// grid ends both loops. A break is not a failure, so ForErr returns nil.
func ExampleStopFlag_Stop() {
	p := pool.New()
	defer p.Close()

	const rows, cols = 100, 100
	target := [2]int{73, 41}
	var found parallel.StopFlag
	var at [2]int // written by the one body that finds the target
	err := parallel.ForErr(p, 0, rows, func(w *pool.Worker, r int) error {
		parallel.For(w, 0, cols, func(_ *pool.Worker, c int) {
			if r == target[0] && c == target[1] {
				at = [2]int{r, c}
				found.Stop()
			}
		}, parallel.Stop(&found))
		return nil
	}, parallel.Stop(&found))
	fmt.Println(err, found.Stopped(), at)
	// Output: <nil> true [73 41]
}

// For returns nothing, so a loop that may break early reports whether it
// did through its flag: Stopped after the call tells a complete run from
// an interrupted one. A flag cannot be cleared; each call gets its own.
func ExampleStopFlag_Stopped() {
	p := pool.New()
	defer p.Close()

	// validate checks every element in parallel and stops at the first
	// negative one.
	validate := func(xs []int) bool {
		var bad parallel.StopFlag
		parallel.For(p, 0, len(xs), func(_ *pool.Worker, i int) {
			if xs[i] < 0 {
				bad.Stop()
			}
		}, parallel.Stop(&bad))
		return !bad.Stopped()
	}
	fmt.Println(validate([]int{3, 1, 4, 1, 5}))
	fmt.Println(validate([]int{2, 7, -1, 8}))
	// Output:
	// true
	// false
}
