package parallel_test

import (
	"fmt"
	"strings"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

func ExampleFor() {
	p := pool.New()
	defer p.Close()

	squares := make([]int, 10)
	parallel.For(p, 0, len(squares), func(_ *pool.Worker, i int) {
		squares[i] = i * i
	})
	fmt.Println(squares)
	// Output: [0 1 4 9 16 25 36 49 64 81]
}

func ExampleForRange() {
	p := pool.New()
	defer p.Close()

	// A piece at a time: here, one strings.Builder per piece.
	words := strings.Fields("the quick brown fox jumps over the lazy dog")
	upper := make([]string, len(words))
	parallel.ForRange(p, 0, len(words), func(_ *pool.Worker, lo, hi int) {
		for i := lo; i < hi; i++ {
			upper[i] = strings.ToUpper(words[i])
		}
	})
	fmt.Println(strings.Join(upper, " "))
	// Output: THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG
}

func ExampleReduce() {
	p := pool.New()
	defer p.Close()

	xs := make([]float64, 1000)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	sum := parallel.Reduce(p, 0, len(xs), 0.0,
		func(_ *pool.Worker, lo, hi int) float64 {
			s := 0.0
			for _, x := range xs[lo:hi] {
				s += x
			}
			return s
		},
		func(a, b float64) float64 { return a + b })
	fmt.Println(sum)
	// Output: 500500
}

func ExampleReduce_nonCommutative() {
	p := pool.New()
	defer p.Close()

	// combine need not be commutative: pieces come back in index order.
	letters := "abcdefghijklmnopqrstuvwxyz"
	s := parallel.Reduce(p, 0, len(letters), "",
		func(_ *pool.Worker, lo, hi int) string { return letters[lo:hi] },
		func(a, b string) string { return a + b },
		parallel.Grain(3))
	fmt.Println(s)
	// Output: abcdefghijklmnopqrstuvwxyz
}

func ExampleScan() {
	p := pool.New()
	defer p.Close()

	counts := []int{3, 1, 4, 1, 5, 9, 2, 6}
	parallel.Scan(p, counts, func(a, b int) int { return a + b })
	fmt.Println(counts)
	// Output: [3 4 8 9 14 23 25 31]
}

func ExampleMap() {
	p := pool.New()
	defer p.Close()

	words := []string{"fork", "join", "steal"}
	lengths := parallel.Map(p, words, func(_ *pool.Worker, s string) int { return len(s) })
	fmt.Println(lengths)
	// Output: [4 4 5]
}

func ExampleDo() {
	p := pool.New()
	defer p.Close()

	var a, b int
	parallel.Do(p,
		func(*pool.Worker) { a = 6 * 7 },
		func(*pool.Worker) { b = 6 + 7 })
	fmt.Println(a, b)
	// Output: 42 13
}

func ExampleGrain() {
	p := pool.New()
	defer p.Close()

	// Never fewer than 250 iterations per piece: at most 4 pieces here.
	pieces := parallel.Reduce(p, 0, 1000, 0,
		func(*pool.Worker, int, int) int { return 1 },
		func(a, b int) int { return a + b },
		parallel.Grain(250))
	fmt.Println(pieces <= 4)
	// Output: true
}
