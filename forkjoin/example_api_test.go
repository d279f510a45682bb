package forkjoin_test

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// A Future lets a task start work, carry on with its own, and collect the
// result later: here, counting words in the second half of a text while
// the task counts the first half itself.
func ExampleFuture() {
	text := strings.Fields("the quick brown fox jumps over the lazy dog again and again")
	count := func(words []string, w string) int {
		n := 0
		for _, x := range words {
			if x == w {
				n++
			}
		}
		return n
	}

	p := pool.New()
	defer p.Close()
	n := forkjoin.Invoke(p, func(w *pool.Worker) int {
		half := len(text) / 2
		right := forkjoin.Fork(w, func(*pool.Worker) int {
			return count(text[half:], "again")
		})
		left := count(text[:half], "again") // meanwhile, on this worker
		return left + right.Join(w)
	})
	fmt.Println(n)
	// Output: 2
}

// Done asks without waiting, e.g. to skip a cheap fallback once the
// forked work is ready. On a one-worker pool a fork cannot run before
// its forker waits or returns, so this example's output does not depend
// on timing; on a larger pool, Done may turn true at any moment.
func ExampleFuture_Done() {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()

	p.Run(func(w *pool.Worker) {
		f := forkjoin.Fork(w, func(*pool.Worker) string { return "ready" })
		fmt.Println(f.Done())
		fmt.Println(f.Join(w), f.Done())
	})
	// Output:
	// false
	// ready true
}

// Join may be called any number of times, by any task of the pool: a
// future is a result computed once and shared. Here two tasks both need a
// lookup table that a third builds.
func ExampleFuture_Join() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	var builds atomic.Int32
	sum := forkjoin.Invoke(p, func(w *pool.Worker) int {
		squares := forkjoin.Fork(w, func(*pool.Worker) []int {
			builds.Add(1)
			t := make([]int, 10)
			for i := range t {
				t[i] = i * i
			}
			return t
		})
		x, y := forkjoin.Join(w,
			func(w *pool.Worker) int { return squares.Join(w)[3] },
			func(w *pool.Worker) int { return squares.Join(w)[4] })
		return x + y
	})
	fmt.Println(sum, builds.Load())
	// Output: 25 1
}
