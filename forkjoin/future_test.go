package forkjoin_test

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

func TestFutureJoinTwice(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range poolSizes {
		p := pool.New(pool.WithWorkers(workers))
		for i := 0; i < small(100, 20); i++ {
			type result struct {
				doneBefore, doneAfter bool
				a, b                  int
				sameSlice             bool
			}
			r := forkjoin.Invoke(p, func(w *pool.Worker) result {
				var r result
				f := forkjoin.Fork(w, func(w *pool.Worker) int { return fibJoin(w, 12) })
				r.doneBefore = f.Done()
				r.a = f.Join(w)
				r.doneAfter = f.Done()
				r.b = f.Join(w)
				s := forkjoin.Fork(w, func(*pool.Worker) []int { return make([]int, 3) })
				s1, s2 := s.Join(w), s.Join(w)
				r.sameSlice = &s1[0] == &s2[0]
				return r
			})
			if r.a != fibSeq(12) || r.b != r.a {
				t.Fatalf("workers=%d: two Joins returned %d and %d, want %d", workers, r.a, r.b, fibSeq(12))
			}
			if !r.doneAfter {
				t.Fatalf("workers=%d: Done() = false after Join", workers)
			}
			// With one worker, busy running the forker, nobody can have run
			// the future before it was joined.
			if workers == 1 && r.doneBefore {
				t.Fatal("1 worker: Done() = true before the future could have run")
			}
			if !r.sameSlice {
				t.Fatalf("workers=%d: two Joins of a []int future returned different slices", workers)
			}
		}
		p.Close()
	}
}

// A future may be joined by tasks other than its forker, on any worker, and
// by several of them.
func TestFutureJoinedByAnotherTask(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range poolSizes {
		p := pool.New(pool.WithWorkers(workers))
		for i := 0; i < small(100, 20); i++ {
			got := forkjoin.Invoke(p, func(w *pool.Worker) [3]int {
				f := forkjoin.Fork(w, func(w *pool.Worker) int { return fibJoin(w, 10) })
				// Both sides of a Join (the second possibly stolen) join f.
				a, b := forkjoin.Join(w,
					func(w *pool.Worker) int { return f.Join(w) },
					func(w *pool.Worker) int { return f.Join(w) + fibJoin(w, 5) })
				return [3]int{a, b, f.Join(w)}
			})
			if want := [3]int{fibSeq(10), fibSeq(10) + fibSeq(5), fibSeq(10)}; got != want {
				t.Fatalf("workers=%d: got %v, want %v", workers, got, want)
			}
		}
		p.Close()
	}
}

// On two workers: a future still queued on its forker's deque is joined by a
// task running on the other worker, while the forker spins without helping.
// The joiner has to steal the future to finish.
func TestFutureJoinedFromOtherWorkerWhileQueued(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for i := 0; i < small(200, 40); i++ {
		type out struct{ g, f, forker, joiner, runner int }
		got := forkjoin.Invoke(p, func(w *pool.Worker) out {
			var fp atomic.Pointer[forkjoin.Future[int]]
			var joiner, runner atomic.Int64
			// g is forked first, so it is the oldest task: the idle worker
			// steals it, and it waits for f to exist.
			g := forkjoin.Fork(w, func(w *pool.Worker) int {
				joiner.Store(int64(w.ID()))
				for fp.Load() == nil {
					runtime.Gosched()
				}
				return fp.Load().Join(w) + 1
			})
			f := forkjoin.Fork(w, func(w *pool.Worker) int {
				runner.Store(int64(w.ID()))
				return fibJoin(w, 12)
			})
			fp.Store(f)
			for !g.Done() {
				spin(w)
			}
			return out{g.Join(w), f.Join(w), w.ID(), int(joiner.Load()), int(runner.Load())}
		})
		want := out{fibSeq(12) + 1, fibSeq(12), got.forker, 1 - got.forker, 1 - got.forker}
		if got != want {
			t.Fatalf("round %d: got %+v, want %+v", i, got, want)
		}
	}
}

// Futures nobody joins still run: before Close returns, at the latest.
func TestUnjoinedFuturesRun(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range poolSizes {
		p := pool.New(pool.WithWorkers(workers))
		var ran atomic.Int64
		const top, nested = 300, 3
		for i := 0; i < 3; i++ {
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				for j := 0; j < top; j++ {
					forkjoin.Fork(w, func(w *pool.Worker) int {
						ran.Add(1)
						for k := 0; k < nested; k++ {
							forkjoin.Fork(w, func(*pool.Worker) int { ran.Add(1); return k })
						}
						return j
					})
				}
				// Unjoined forks made inside fa of a Join, under its fb.
				a, b := forkjoin.Join(w,
					func(w *pool.Worker) int {
						forkjoin.Fork(w, func(*pool.Worker) int { ran.Add(1); return 0 })
						return 1
					},
					func(w *pool.Worker) int { return 2 })
				return a + b
			})
		}
		p.Close()
		if got, want := ran.Load(), int64(3*(top*(1+nested)+1)); got != want {
			t.Errorf("workers=%d: %d unjoined futures ran before Close returned, want %d", workers, got, want)
		}
	}
}
