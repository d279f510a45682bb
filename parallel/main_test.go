package parallel_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// noAsides turns off, for p, the asides of builds with debug checks (the
// stand-in workers that run some pieces on one-worker pools so that a
// captured worker is caught: internal/sched/aside.go), for a test that
// asserts the schedule, the goroutine or the allocations of a plain
// build. It returns p.
func noAsides(p *pool.Pool) *pool.Pool {
	sched.From[sched.Pool](p).SetAsides(false)
	return p
}
