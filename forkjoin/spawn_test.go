package forkjoin_test

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// Spawn and Task.Join compute what the sequential code computes, on any
// number of workers, whether the task is taken back or stolen, and with
// several tasks spawned and joined in any order.
func TestSpawn(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, workers := range poolSizes {
		p := pool.New(pool.WithWorkers(workers))
		for range small(20, 5) {
			if got, want := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibSpawn(w, 18) }), fibSeq(18); got != want {
				t.Fatalf("workers=%d: fib(18) with Spawn = %d, want %d", workers, got, want)
			}
			got := forkjoin.Invoke(p, func(w *pool.Worker) [2]int {
				var ts []forkjoin.Task[int]
				for i := range 8 {
					ts = append(ts, forkjoin.Spawn(w, func(w *pool.Worker) int { return fibSpawn(w, 10+i) }))
				}
				// Join in the order spawned: the first join finds the
				// youngest task at the bottom and puts it back (J2).
				first := 0
				for i, tk := range ts[:4] {
					if v := tk.Join(w); v != fibSeq(10+i) {
						first = -1
					} else if first >= 0 {
						first += v
					}
				}
				last := 0
				for i := 7; i >= 4; i-- {
					last += ts[i].Join(w)
				}
				return [2]int{first, last}
			})
			want := [2]int{fibSeq(10) + fibSeq(11) + fibSeq(12) + fibSeq(13), fibSeq(14) + fibSeq(15) + fibSeq(16) + fibSeq(17)}
			if got != want {
				t.Fatalf("workers=%d: 8 spawned tasks joined in two orders: %v, want %v", workers, got, want)
			}
		}
		p.Close()
	}
}

//go:noinline
func panicSpawned(*pool.Worker) int { panic("spawned") }

// A spawned task's panic comes out of its Join, whether it ran inline or
// on another worker.
func TestSpawnPanic(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	for _, workers := range poolSizes {
		p := pool.New(pool.WithWorkers(workers))
		for round := range small(50, 10) {
			r := fjtest.Catch(func() {
				forkjoin.Invoke(p, func(w *pool.Worker) int {
					tk := forkjoin.Spawn(w, panicSpawned)
					if round%2 == 1 {
						// Give another worker the time to steal it.
						for i := 0; i < 100; i++ {
							spin(w)
						}
					}
					return tk.Join(w)
				})
			})
			checkPanic(t, "Spawn", r, "spawned", "panicSpawned")
		}
		p.Close()
	}
}

// The misuses of a Task panic with messages that name them, before they
// touch any deque: a second Join, a Join from another worker, a zero Task,
// nil arguments.
func TestSpawnMisuse(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	msg := func(f func()) string { return fjtest.PanicMessage(fjtest.Catch(f)) }
	cases := map[string]struct {
		f    func(w *pool.Worker)
		want string
	}{
		"joined twice": {func(w *pool.Worker) {
			tk := forkjoin.Spawn(w, func(w *pool.Worker) int { return 1 })
			tk.Join(w)
			tk.Join(w)
		}, "joined twice"},
		"joined twice after reuse": {func(w *pool.Worker) {
			tk := forkjoin.Spawn(w, func(w *pool.Worker) int { return 1 })
			tk.Join(w)
			again := forkjoin.Spawn(w, func(w *pool.Worker) int { return 2 }) // likely the same job, recycled
			defer again.Join(w)
			tk.Join(w)
		}, "joined twice"},
		"zero Task": {func(w *pool.Worker) {
			var tk forkjoin.Task[int]
			tk.Join(w)
		}, "zero Task"},
		//fjvet:ignore unjoined-spawn the test checks a Spawn that is not joined
		"nil worker": {func(w *pool.Worker) { forkjoin.Spawn(nil, func(w *pool.Worker) int { return 1 }) }, "nil *pool.Worker"},
		//fjvet:ignore unjoined-spawn the test checks a Spawn that is not joined
		"nil function": {func(w *pool.Worker) { forkjoin.Spawn[int](w, nil) }, "nil function"},
		"nil worker at Join": {func(w *pool.Worker) {
			tk := forkjoin.Spawn(w, func(w *pool.Worker) int { return 1 })
			defer tk.Join(w)
			tk.Join(nil)
		}, "nil *pool.Worker"},
		"another worker": {func(w *pool.Worker) {
			tk := forkjoin.Spawn(w, func(w *pool.Worker) int { return 1 })
			defer tk.Join(w)
			// Join from a task on the other worker: JoinArgs's second
			// call, made to run there by waiting until it is stolen.
			var stolen atomic.Bool
			var m string
			me := w.ID()
			forkjoin.JoinArgs(w, func(v *pool.Worker, i int) int {
				if i == 0 {
					for !stolen.Load() {
						spin(v)
					}
					return 0
				}
				if v.ID() != me {
					m = msg(func() { tk.Join(v) })
				} else {
					m = "another worker" // ran inline: nothing to test this round
				}
				stolen.Store(true)
				return 0
			}, 0, 1)
			panic(m)
		}, "another worker"},
	}
	for name, c := range cases {
		got := msg(func() { p.Run(c.f) })
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: panic %q, want one naming %q", name, got, c.want)
		}
	}
}

// On one worker, where nobody steals, spawning and joining allocates
// nothing once warm but the caller's closure (none here: a function that
// captures nothing): the task objects are recycled as Join's are.
func TestSpawnAllocatesNothing(t *testing.T) {
	if fjtest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var rec func(w *pool.Worker) int
	leaf := func(w *pool.Worker) int { return 1 }
	depth := 0
	rec = func(w *pool.Worker) int {
		if depth == 12 {
			return 1
		}
		depth++
		tk := forkjoin.Spawn(w, leaf)
		n := rec(w) + tk.Join(w)
		depth--
		return n
	}
	var allocs float64
	p.Run(func(w *pool.Worker) {
		for range 4096 { // warm: see TestArgFormsAllocateNothing
			rec(w)
		}
		allocs = testing.AllocsPerRun(100, func() { rec(w) })
	})
	if allocs != 0 {
		t.Errorf("Spawn and Join allocated %v times per run of 12, want 0", allocs)
	}
}

// A Task that is never joined still runs.
func TestSpawnUnjoinedStillRuns(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	var ran atomic.Bool
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		//fjvet:ignore unjoined-spawn the test checks a Spawn that is not joined
		forkjoin.Spawn(w, func(w *pool.Worker) int { ran.Store(true); return 0 })
		return 0
	})
	p.Close() // lets queued work finish
	if !ran.Load() {
		t.Error("an unjoined spawned task did not run before Close returned")
	}
}
