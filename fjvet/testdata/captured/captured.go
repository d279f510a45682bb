// Package captured holds the captured-worker rule's findings: a
// *pool.Worker used in a function fj runs, other than that function's
// own worker.
package captured

import (
	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

func fib(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, fib, n-1, n-2)
	return a + b
}

// The first case: JoinArgs with the outer worker in a For body.
func joinArgsInFor(w *pool.Worker, out []int) {
	parallel.For(w, 0, len(out), func(_ *pool.Worker, i int) {
		a, b := forkjoin.JoinArgs(w, fib, i, i+1) // want `captured-worker: w is the \*pool.Worker of an enclosing task, used in a function run by parallel.For, which may run on another worker: use the worker it receives`
		out[i] = a + b
	})
}

// The second case: a nested Sort with the outer worker.
func sortRows(w *pool.Worker, rows [][]int) {
	parallel.For(w, 0, len(rows), func(inner *pool.Worker, i int) {
		parallel.Sort(w, rows[i]) // want `captured-worker: w is the \*pool.Worker of an enclosing task`
	})
}

// Every use in the body is fixed at once, and the parameters are named
// when none was.
func unnamed(w *pool.Worker, rows [][]int) {
	parallel.For(w, 0, len(rows), func(*pool.Worker, int) {
		parallel.Sort(w, rows[0]) // want `captured-worker: w is`
		parallel.Sort(w, rows[1])
	})
}

// Any depth: the worker of a task two functions out, in a Join half.
func deep(p *pool.Pool, rows [][]int) {
	p.Run(func(w *pool.Worker) {
		parallel.For(w, 0, len(rows), func(w2 *pool.Worker, i int) {
			forkjoin.Join(w2,
				func(*pool.Worker) int { parallel.Sort(w, rows[i]); return 0 },  // want `captured-worker: w is`
				func(*pool.Worker) int { parallel.Sort(w2, rows[i]); return 0 }) // want `captured-worker: w2 is .* forkjoin.Join`
		})
	})
}

// A closure called in the body uses the body's worker: the body is the
// function that must use its own.
func closureInBody(w *pool.Worker, xs [][]int) {
	parallel.For(w, 0, len(xs), func(_ *pool.Worker, i int) {
		sortIt := func() { parallel.Sort(w, xs[i]) } // want `captured-worker: w is`
		sortIt()
	})
}

// A task block's body, given a pool, uses the worker of the task around
// it: b.Worker() is the body's.
func blockBody(p *pool.Pool, w *pool.Worker, xs []int) {
	taskblock.Define(p, func(b *taskblock.Block) {
		parallel.Sort(w, xs) // want `captured-worker: w is .* taskblock.Define, .* b.Worker\(\)`
	})
}

// A task of a block.
func blockTask(w *pool.Worker, xs []int) {
	taskblock.Define(w, func(b *taskblock.Block) {
		b.Run(func(*pool.Worker) { parallel.Sort(w, xs) }) // want `captured-worker: w is .* taskblock.Block.Run`
	})
}

// A recursive closure with a worker of its own.
func recursive(w *pool.Worker, n int) int {
	var walk func(w2 *pool.Worker, n int) int
	walk = func(w2 *pool.Worker, n int) int {
		if n < 2 {
			return n
		}
		return fib(w, n) // want `captured-worker: w is .* a function that receives a worker of its own`
	}
	return walk(w, n)
}

// Inside a blocking section the task holds no worker.
func inSection(w *pool.Worker, xs []int) {
	pool.Blocking(func() {
		parallel.Sort(w, xs) // want `captured-worker: w, the task's \*pool.Worker, is used inside a blocking section \(pool.Blocking\)`
	})
}

// A goroutine holds no worker.
func inGoroutine(w *pool.Worker, xs []int) {
	done := make(chan bool)
	go func() {
		parallel.Sort(w, xs) // want `captured-worker: w, a \*pool.Worker, is used in a goroutine started with go`
		done <- true
	}()
	go sortOn(w, xs) // want `captured-worker: w, a \*pool.Worker, is handed to a goroutine`
	<-done           // want `blocking: a channel receive`
}

func sortOn(w *pool.Worker, xs []int) { parallel.Sort(w, xs) }

// A comparator runs on any worker, and has none of its own.
func inComparator(w *pool.Worker, xs, ys []int) {
	parallel.SortFunc(w, xs, func(a, b int) int {
		parallel.Sort(w, ys) // want `captured-worker: w is .* parallel.SortFunc, .* pass the data, not the worker`
		return a - b
	})
}

// A stall handler runs on a goroutine of the pool's own.
func inHandler(w *pool.Worker, xs []int) *pool.Pool {
	return pool.New(pool.WithStallHandler(func(pool.StallReport) {
		parallel.Sort(w, xs) // want `captured-worker: w, a \*pool.Worker, is used in a function that pool.WithStallHandler runs on a goroutine of the pool's own`
	}))
}

// A package-level worker is nobody's own.
var kept *pool.Worker

func global(p *pool.Pool) {
	p.Run(func(*pool.Worker) {
		fib(kept, 3) // want `captured-worker: kept is a package-level \*pool.Worker`
	})
}
