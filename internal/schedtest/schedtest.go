// Package schedtest gives tests of the layers above the scheduler access to
// its primitives from the public types (pool.Worker consists of a
// sched.Worker alone). It is imported only from _test.go files, and
// imports nothing public.
package schedtest

import (
	"sync/atomic"

	"github.com/forkjoin/fj/internal/sched"
)

// W returns the scheduler's view of a worker (a *pool.Worker), for tests
// that wait on the scheduler's events (WaitFor) or count its queue.
func W[P any](w *P) *sched.Worker { return sched.From[sched.Worker](w) }

// Countdown is an event for tests: set once Done has been called as many
// times as its count (Add). Tasks wait for it with W(w).WaitFor(c.Event()),
// parking without blocking their worker.
type Countdown struct {
	n atomic.Int64
	l sched.Latch
}

// Add adds n to the count; call it before the Done calls it counts.
func (c *Countdown) Add(n int64) { c.n.Add(n) }

// Done counts one down, and sets the event at zero.
func (c *Countdown) Done() {
	if c.n.Add(-1) == 0 {
		c.l.Set()
	}
}

// Load returns the count.
func (c *Countdown) Load() int64 { return c.n.Load() }

// Event returns the event that is set at zero.
func (c *Countdown) Event() sched.Event { return &c.l }
