package sched_test

import (
	"reflect"
	"runtime"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/pool"
)

// Every pool a test creates must be closed, and Close must leave no
// carrier goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
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

// fibIDs is fibJoin that also records which workers ran a piece of it.
func fibIDs(w *pool.Worker, n int, seen []atomic.Bool) int {
	seen[w.ID()].Store(true)
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibIDs(w, n-1, seen) },
		func(w *pool.Worker) int { return fibIDs(w, n-2, seen) })
	return a + b
}

// spin is one turn of a wait that does not join (a test forcing a fork of
// w's task onto another worker): it publishes w's private forks if another
// worker wants work, then yields (job.go, E2).
func spin(w *pool.Worker) {
	sched.PublishIfDue(sched.From[sched.Worker](w))
	runtime.Gosched()
}

// Shared with the other packages' tests.
var (
	catch        = fjtest.Catch
	panicMessage = fjtest.PanicMessage
	small        = fjtest.Small
)

// sumWorkers adds up every counter, by reflection, so that a counter added
// to WorkerStats later is covered without touching the tests that use it.
func sumWorkers(ws []pool.WorkerStats) pool.WorkerStats {
	var s pool.WorkerStats
	sv := reflect.ValueOf(&s).Elem()
	for _, w := range ws {
		wv := reflect.ValueOf(w)
		for i := 0; i < sv.NumField(); i++ {
			sv.Field(i).SetUint(sv.Field(i).Uint() + wv.Field(i).Uint())
		}
	}
	return s
}
