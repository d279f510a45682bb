//go:build race || fjdebug

package fj_test

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/sched"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// capturedCases are programs whose bodies use the *pool.Worker captured
// from the enclosing task (w) instead of their own (inner): the misuse
// that a one-CPU machine hides, since on one worker nothing is stolen and
// the body's worker is the captured one.
var capturedCases = []struct {
	name string
	run  func(w *pool.Worker)
}{
	{"For", func(w *pool.Worker) {
		parallel.For(w, 0, 100, func(inner *pool.Worker, i int) {
			forkjoin.Join(w, one, one) // BUG: the enclosing w, not inner
		})
	}},
	{"ForErr", func(w *pool.Worker) {
		_ = parallel.ForErr(w, 0, 100, func(inner *pool.Worker, i int) error {
			forkjoin.Join(w, one, one)
			return nil
		})
	}},
	{"Map", func(w *pool.Worker) {
		parallel.Map(w, make([]int, 50), func(inner *pool.Worker, e int) int {
			a, b := forkjoin.Join(w, one, one)
			return a + b + e
		})
	}},
	{"Reduce", func(w *pool.Worker) {
		parallel.Reduce(w, 0, 1000, 0, func(inner *pool.Worker, lo, hi int) int {
			a, _ := forkjoin.Join(w, one, one)
			return a + hi - lo
		}, func(a, b int) int { return a + b })
	}},
	{"Join", func(w *pool.Worker) {
		forkjoin.Join(w, one, func(inner *pool.Worker) int {
			a, b := forkjoin.Join(w, one, one)
			return a + b
		})
	}},
	{"JoinArgs", func(w *pool.Worker) {
		forkjoin.JoinArgs(w, func(inner *pool.Worker, k int) int {
			if k == 1 {
				forkjoin.Fork(w, one).Join(w)
			}
			return k
		}, 0, 1)
	}},
	{"Fork", func(w *pool.Worker) {
		f := forkjoin.Fork(w, func(inner *pool.Worker) int {
			a, b := forkjoin.Join(w, one, one)
			return a + b
		})
		f.Join(w)
	}},
	{"Spawn", func(w *pool.Worker) {
		t := forkjoin.Spawn(w, func(inner *pool.Worker) int {
			a, b := forkjoin.Join(w, one, one)
			return a + b
		})
		t.Join(w)
	}},
	{"Join then For", func(w *pool.Worker) {
		forkjoin.Join(w, one, one) // a correct join first: its take-back is the task's first
		parallel.For(w, 0, 100, func(inner *pool.Worker, i int) {
			forkjoin.Join(w, one, one)
		})
	}},
	{"For then Join", func(w *pool.Worker) {
		parallel.For(w, 0, 100, func(inner *pool.Worker, i int) {
			forkjoin.Join(inner, one, one) // a correct loop first
		})
		forkjoin.Join(w, one, func(inner *pool.Worker) int {
			a, b := forkjoin.Join(w, one, one)
			return a + b
		})
	}},
	{"taskblock.Run", func(w *pool.Worker) {
		taskblock.Define(w, func(b *taskblock.Block) {
			b.Run(func(inner *pool.Worker) {
				forkjoin.Join(w, one, one)
			})
		})
	}},
}

func one(*pool.Worker) int { return 1 }

// A worker captured from an enclosing task is caught in every run at
// GOMAXPROCS=1 under -race and -tags fjdebug (issue 34, item 1): fj runs
// the first loop, second half or block task of each task on a stand-in
// worker, on another goroutine, so the body's worker is not the captured
// one and the captured one's check fails, with the misuse message.
func TestCapturedWorkerCaughtOnOneCPU(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	const runs = 20
	for _, c := range capturedCases {
		t.Run(c.name, func(t *testing.T) {
			for run := range runs {
				// Without options the pool has GOMAXPROCS workers: one,
				// as on a one-CPU machine.
				p := pool.New()
				if n := p.Workers(); n != 1 {
					t.Fatalf("pool.New() at GOMAXPROCS=1 has %d workers, want 1", n)
				}
				msg := capturedPanic(p, c.run)
				p.Close()
				if !strings.Contains(msg, "on a goroutine that is not running its task") ||
					!strings.Contains(msg, "captured from an enclosing task") {
					t.Fatalf("run %d of %d: the captured worker was not caught: Invoke returned %q", run+1, runs, msg)
				}
			}
		})
	}
}

// capturedPanic runs f in a task of p and returns the message of the panic
// Invoke re-raised, or "" if it returned normally.
func capturedPanic(p *pool.Pool, f func(w *pool.Worker)) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		f(w)
		return 0
	})
	return ""
}

// The stand-ins are invisible to the counters that a one-worker test
// checks: a program of loops, joins, futures and a task block, each
// correct (its bodies use their own worker), computes the same result
// and counts the same executed tasks with the stand-ins as without, and
// no steal, failed steal, overflow or spare. (Parks are not hidden: while
// a task waits for its stand-in, its worker runs the task's other forks,
// and the joins of those then wait for them, as after a steal.)
func TestAsidesInvisibleToStats(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	program := func(w *pool.Worker) int {
		sum := parallel.Reduce(w, 0, 1000, 0, func(w *pool.Worker, lo, hi int) int {
			a, b := forkjoin.Join(w, func(*pool.Worker) int { return lo }, func(*pool.Worker) int { return hi })
			return a + b
		}, func(a, b int) int { return a + b })
		parallel.For(w, 0, 100, func(w *pool.Worker, i int) {
			forkjoin.Fork(w, one).Join(w)
		})
		f := forkjoin.Fork(w, func(w *pool.Worker) int { return fibAside(w, 15) })
		taskblock.Define(w, func(b *taskblock.Block) {
			for range 10 {
				b.Run(func(w *pool.Worker) { fibAside(w, 10) })
			}
		})
		return sum + f.Join(w) + fibAside(w, 18)
	}
	run := func(asides bool) (int, pool.Stats) {
		p := pool.New(pool.WithWorkers(1))
		defer p.Close()
		sched.From[sched.Pool](p).SetAsides(asides)
		var res int
		for range 50 {
			res = forkjoin.Invoke(p, program)
		}
		return res, p.Stats()
	}
	want, plain := run(false)
	got, s := run(true)
	if got != want {
		t.Fatalf("with stand-ins the program returned %d, without %d", got, want)
	}
	tot := s.Total
	if tot.Executed != plain.Total.Executed || tot.Steals != 0 || tot.FailedSteals != 0 ||
		tot.Overflows != 0 || s.Spares != 0 || s.SparesStarted != 0 || s.Stalls != 0 {
		t.Errorf("with stand-ins: Executed %d (without: %d), Steals %d, FailedSteals %d, Overflows %d, "+
			"Spares %d, SparesStarted %d, Stalls %d; want the same Executed and zeros",
			tot.Executed, plain.Total.Executed, tot.Steals, tot.FailedSteals, tot.Overflows,
			s.Spares, s.SparesStarted, s.Stalls)
	}
	t.Logf("parks: %d with stand-ins, %d without", tot.Parks, plain.Total.Parks)
}

func fibAside(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibAside(w, n-1) },
		func(w *pool.Worker) int { return fibAside(w, n-2) })
	return a + b
}
