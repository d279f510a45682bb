package taskblock_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

func TestMain(m *testing.M) {
	// Every pool a test creates must be closed, and Close must leave no
	// worker (or parked carrier) goroutine behind.
	goleak.VerifyTestMain(m)
}

// workerCounts are the pool sizes most tests run on: 4 is more than this
// machine's cores.
var workerCounts = []int{1, 2, 4}

// stillWorks checks that p computes a tree walk of nested blocks correctly,
// after whatever failure the test provoked.
func stillWorks(t *testing.T, p *pool.Pool, where string) {
	t.Helper()
	tree := buildTree(small(12, 8))
	var got int
	taskblock.Define(p, func(b *taskblock.Block) { got = sumBlock(b.Worker(), tree) })
	if want := sumSeq(tree); got != want {
		t.Fatalf("%s: tree walk afterwards = %d, want %d", where, got, want)
	}
}

// Shared with the other packages' tests.
var (
	catch        = fjtest.Catch
	panicMessage = fjtest.PanicMessage
	small        = fjtest.Small
)
