package forkjoin_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

func TestMain(m *testing.M) {
	// Every pool a test creates must be closed, and Close must leave no
	// worker goroutine behind.
	goleak.VerifyTestMain(m)
}

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fibJoin forks at every level with Join.
func fibJoin(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibJoin(w, n-1) },
		func(w *pool.Worker) int { return fibJoin(w, n-2) })
	return a + b
}

// fibFork forks at every level with Fork and Future.Join.
func fibFork(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	f := forkjoin.Fork(w, func(w *pool.Worker) int { return fibFork(w, n-2) })
	a := fibFork(w, n-1)
	return a + f.Join(w)
}

// fibInvoke nests an Invoke on the worker inside each side of every Join.
func fibInvoke(w *pool.Worker, n int) int {
	if n < 2 {
		return forkjoin.Invoke(w, func(*pool.Worker) int { return n })
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int {
			return forkjoin.Invoke(w, func(w *pool.Worker) int { return fibInvoke(w, n-1) })
		},
		func(w *pool.Worker) int {
			return forkjoin.Invoke(w, func(w *pool.Worker) int { return fibInvoke(w, n-2) })
		})
	return a + b
}

// poolSizes are the worker counts most tests run on: 8 is more than this
// machine's cores.
var poolSizes = []int{1, 2, 3, 8}

// Shared with the other packages' tests.
var (
	catch        = fjtest.Catch
	panicMessage = fjtest.PanicMessage
	small        = fjtest.Small
)
