package pool_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// childEnv marks a test binary re-executed by a test that must touch
// pool.Default (whose workers live as long as the process and would make the
// leak check below fail). See TestDefaultPool.
const childEnv = "FJ_POOL_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(m.Run())
	}
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

// joins is the number of forkjoin.Join calls fibJoin(n) makes.
func joins(n int) int {
	if n < 2 {
		return 0
	}
	return 1 + joins(n-1) + joins(n-2)
}

func fibJoin(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibJoin(w, n-1) },
		func(w *pool.Worker) int { return fibJoin(w, n-2) })
	return a + b
}

// Shared with the other packages' tests.
var (
	catch        = fjtest.Catch
	panicMessage = fjtest.PanicMessage
	small        = fjtest.Small
)
