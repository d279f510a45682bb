package forkjoin_test

import (
	"testing"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// A call on the caller's own worker allocates nothing, through the one
// dispatch (internal/sched/dispatch.go) as before it: Invoke on the
// worker or on its pool from inside a task, pool.Pool.Run and
// pool.Worker.Run.
func TestInvokeOnOwnWorkerDoesNotAllocate(t *testing.T) {
	if fjtest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	p.Run(func(w *pool.Worker) {
		for name, f := range map[string]func(){
			"Invoke(w)":  func() { forkjoin.Invoke(w, func(*pool.Worker) int { return 1 }) },
			"Invoke(p)":  func() { forkjoin.Invoke(p, func(*pool.Worker) int { return 1 }) },
			"Pool.Run":   func() { p.Run(func(*pool.Worker) {}) },
			"Worker.Run": func() { w.Run(func(*pool.Worker) {}) },
		} {
			if n := testing.AllocsPerRun(100, f); n != 0 {
				t.Errorf("%s from inside a task: %v allocations, want 0", name, n)
			}
		}
	})
}
