package taskblock_test

import (
	"runtime"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// spin is one turn of a wait that does not join (a test forcing a fork of
// w's task onto another worker): it publishes w's private forks if another
// worker wants work, then yields. A fork may stay private to its worker
// until its worker forks or finishes a task (internal/sched, job.go,
// E1-E2), so a task that waits without doing either must publish.
func spin(w *pool.Worker) {
	forkjoin.JoinArgs(w, nop, 0, 0) // a fork publishes if another worker wants work
	runtime.Gosched()
}

func nop(*pool.Worker, int) int { return 0 }
