package parallel_test

import (
	"fmt"
	"strings"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func ExampleIndexFunc() {
	p := pool.New()
	defer p.Close()

	lines := make([]string, 100_000)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i)
	}
	lines[70_000] = "ERROR: disk full"
	lines[90_000] = "ERROR: out of memory"
	isError := func(s string) bool { return strings.HasPrefix(s, "ERROR") }
	// The first error, whichever worker sees which one first.
	fmt.Println(parallel.IndexFunc(p, lines, isError))
	fmt.Println(parallel.IndexFunc(p, lines[:1000], isError))
	// Output:
	// 70000
	// -1
}

func ExampleContainsFunc() {
	p := pool.New()
	defer p.Close()

	xs := make([]int, 1_000_000)
	xs[123_456] = -1
	fmt.Println(parallel.ContainsFunc(p, xs, func(x int) bool { return x < 0 }))
	// Output: true
}
