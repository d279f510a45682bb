package schedtest

import (
	"runtime"
	"sync"

	"github.com/forkjoin/fj/internal/sched"
)

// PanicOrder makes the four leaves of a join tree or block (Leaf(0) to
// Leaf(3)), run on a pool of one worker, panic in a chosen order, each
// captured before the next panics: the fixture of the panic order tests
// of forkjoin and taskblock. Every leaf first waits in a blocking section
// until all four have started (its worker runs the others meanwhile, so a
// panic drops none of them); then leaf k's section waits for its turn,
// and once it has it, leaf k hands the turn on and panics with k (or calls
// runtime.Goexit). The next leaf's section returns at once, but its task
// resumes only when the one worker is free again: after leaf k's panic was
// captured, which happens where the panic unwinds, before its goroutine
// gives the worker up.
type PanicOrder struct {
	started sync.WaitGroup
	turn    [4]chan struct{}
	next    [4]int // the leaf whose turn follows, or -1
	goexit  int    // the leaf that calls runtime.Goexit, or -1
}

// NewPanicOrder returns the fixture whose leaves panic in order (a
// permutation of 0-3), leaf goexit calling runtime.Goexit instead (-1:
// none).
func NewPanicOrder(order []int, goexit int) *PanicOrder {
	o := &PanicOrder{goexit: goexit}
	o.started.Add(4)
	for k := range o.turn {
		o.turn[k] = make(chan struct{})
		o.next[k] = -1
	}
	for i := 0; i+1 < len(order); i++ {
		o.next[order[i]] = order[i+1]
	}
	go func() {
		o.started.Wait()
		close(o.turn[order[0]])
	}()
	return o
}

// Leaf is leaf k: it never returns.
func (o *PanicOrder) Leaf(k int) int {
	sched.Blocking(func() {
		o.started.Done()
		<-o.turn[k]
	})
	if n := o.next[k]; n >= 0 {
		close(o.turn[n])
	}
	if k == o.goexit {
		runtime.Goexit()
	}
	panic(k)
}
