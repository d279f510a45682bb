package cilk5

import (
	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// Fib is the serial elision of the fib program: the n-th Fibonacci number
// by the doubly recursive definition. It is the same code as FibJoin,
// FibFork and FibArgs with the forks removed.
func Fib(n int) int {
	if n < 2 {
		return n
	}
	return Fib(n-1) + Fib(n-2)
}

// FibArgs is fib with a fork at every level, written with the
// argument-carrying forkjoin.JoinArgs: FibArgs itself is the task, and its
// two arguments travel by value, so nothing needs a closure.
func FibArgs(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, FibArgs, n-1, n-2)
	return a + b
}

// FibJoin is fib with a fork at every level, written with the closure
// form forkjoin.Join: fib(n-2) is forked, fib(n-1) runs at once.
func FibJoin(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return FibJoin(w, n-1) },
		func(w *pool.Worker) int { return FibJoin(w, n-2) })
	return a + b
}

// FibFork is fib with a fork at every level, written with
// forkjoin.Fork and Future.Join, as Cilk writes it: spawn fib(n-1), call
// fib(n-2), sync.
func FibFork(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	x := forkjoin.Fork(w, func(w *pool.Worker) int { return FibFork(w, n-1) })
	y := FibFork(w, n-2)
	return x.Join(w) + y
}

// FibSpawn is fib with a fork at every level, written with
// forkjoin.Spawn and Task.Join, Cilk's spawn and sync: spawn fib(n-1),
// call fib(n-2), sync. Unlike a Future, a Task is joined once by its
// forker, so the task object is recycled: only the closure allocates.
func FibSpawn(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	x := forkjoin.Spawn(w, func(w *pool.Worker) int { return FibSpawn(w, n-1) })
	y := FibSpawn(w, n-2)
	return x.Join(w) + y
}

// fibForks is the number of forks FibArgs, FibJoin, FibFork and FibSpawn make for
// n: one per call with n >= 2, which is Fib(n+1) - 1.
func fibForks(n int) int64 {
	return int64(fibIter(n+1) - 1)
}

// fibIter is Fib by iteration: an independent check of every form.
func fibIter(n int) int {
	a, b := 0, 1 // Fib(0), Fib(1)
	for range n {
		a, b = b, a+b
	}
	return a
}
