package forkjoin_test

import (
	"fmt"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

func fib(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fib(w, n-1) },
		func(w *pool.Worker) int { return fib(w, n-2) })
	return a + b
}

func ExampleJoin() {
	p := pool.New()
	defer p.Close()
	fmt.Println(forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 25) }))
	// Output: 75025
}

func ExampleFork() {
	p := pool.New()
	defer p.Close()

	total := forkjoin.Invoke(p, func(w *pool.Worker) int {
		// Fork several pieces of work, then join them: the last one
		// forked first, which is where it sits on the worker's deque.
		var fs []*forkjoin.Future[int]
		for i := 1; i <= 4; i++ {
			fs = append(fs, forkjoin.Fork(w, func(w *pool.Worker) int { return fib(w, 5*i) }))
		}
		sum := 0
		for i := len(fs) - 1; i >= 0; i-- {
			sum += fs[i].Join(w)
		}
		return sum
	})
	fmt.Println(total)
	// Output: 7435
}

func ExampleInvoke() {
	p := pool.New()
	defer p.Close()

	// On a *pool.Pool, Invoke blocks until f has run on a worker; on a
	// *pool.Worker (inside a task) it runs f right there.
	n := forkjoin.Invoke(p, func(w *pool.Worker) int {
		return forkjoin.Invoke(w, func(*pool.Worker) int { return 42 })
	})
	fmt.Println(n)
	// Output: 42
}
