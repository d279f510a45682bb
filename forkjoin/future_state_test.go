package forkjoin_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

// The tests of a Future's state protocol (internal/sched/future.md,
// Q1-Q9): what a fork allocates, joins at once from several tasks, a
// join after the forker recycled the job, and Done racing with it.

// fibCilk is fibFork forking fib(n-1), as Cilk writes it: fib(n+1)-1
// forks.
func fibCilk(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	f := forkjoin.Fork(w, func(w *pool.Worker) int { return fibCilk(w, n-1) })
	b := fibCilk(w, n-2)
	return f.Join(w) + b
}

// On one worker, where nobody steals, a Fork whose Future its caller only
// joins allocates the caller's closure and nothing else (Q1, Q4): the
// Future stays in the caller's frame, the job behind it is recycled. The
// closure here captures n and forks: 16 bytes, one allocation.
func TestForkAllocatesOnlyTheClosure(t *testing.T) {
	if fjtest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	const n = 16
	var allocs, bytes float64
	forks := fibSeq(n+1) - 1
	p.Run(func(w *pool.Worker) {
		for range 64 { // warm: the jobs of every depth are made once
			fibCilk(w, n)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 20
		for range runs {
			if got := fibCilk(w, n); got != fibSeq(n) {
				t.Errorf("fib(%d) = %d", n, got)
			}
		}
		runtime.ReadMemStats(&after)
		allocs = float64(after.Mallocs-before.Mallocs) / runs / float64(forks)
		bytes = float64(after.TotalAlloc-before.TotalAlloc) / runs / float64(forks)
	})
	t.Logf("%.3f allocations, %.1f bytes per fork", allocs, bytes)
	if allocs > 1.01 || bytes > 16.5 {
		t.Errorf("a fork allocated %.3f times and %.1f bytes, want 1 and 16: the caller's closure alone", allocs, bytes)
	}

	// A closure that captures nothing is not allocated: neither is
	// anything else.
	leaf := func(*pool.Worker) int { return 1 }
	p.Run(func(w *pool.Worker) {
		rec := func(w *pool.Worker) int {
			f := forkjoin.Fork(w, leaf)
			g := forkjoin.Fork(w, leaf)
			return g.Join(w) + f.Join(w) + f.Join(w)
		}
		for range 4096 {
			rec(w)
		}
		if a := testing.AllocsPerRun(100, func() { rec(w) }); a != 0 {
			t.Errorf("two Forks of a static function and three Joins allocated %v times, want 0", a)
		}
	})
}

// futureCase is one future of TestFutureConcurrentJoins: what it
// returns or panics with, and how often its function ran.
type futureCase struct {
	f      atomic.Pointer[forkjoin.Future[int]]
	runs   atomic.Int32
	panics bool
	want   int
	// raised is the first value a join of a panicking future raised:
	// every other join must raise the same one.
	raised atomic.Pointer[any]
}

// Several tasks join one future at once, from every worker, while its
// forker takes it back and runs it inline (Q4, the others waiting on rv:
// Q6), or after a join took a ref, so that the forker runs it as a thief
// would (Q7), or after another worker stole it (Q7); some ask Done first
// (Q9); some futures panic. Every future's function runs exactly once,
// every join returns its result or raises its one panic, and the pool
// goes on computing correctly with the recycled jobs (Q3, Q8).
func TestFutureConcurrentJoins(t *testing.T) {
	fjtest.Deadline(t, 2*time.Minute)
	rounds := fjtest.Stress(60, 600, 10)
	for _, workers := range []int{2, 3, 8} {
		p := pool.New(pool.WithWorkers(workers))
		for round := range rounds {
			const futures, joiners = 4, 6
			cases := make([]futureCase, futures)
			var joined atomic.Int64
			forkjoin.Invoke(p, func(w *pool.Worker) int {
				// The joiners first: older, they are the ones the other
				// workers steal, and each waits for the futures to exist.
				var js [joiners]*forkjoin.Future[int]
				for k := range js {
					js[k] = forkjoin.Fork(w, func(w *pool.Worker) int {
						for i := range cases {
							c := &cases[(i+k)%futures]
							// In a section: a joiner left on the
							// forker's worker while the forker is parked
							// must not hold that worker.
							pool.Blocking(func() {
								for c.f.Load() == nil {
									runtime.Gosched()
								}
							})
							f := c.f.Load()
							if k%3 == 0 {
								for j := 0; j < 3 && !f.Done(); j++ {
									spin(w)
								}
							}
							r := catch(func() {
								if got := f.Join(w); got != c.want {
									t.Errorf("round %d: future %d joined as %d, want %d", round, (i+k)%futures, got, c.want)
								}
							})
							checkRaised(t, c, r)
							joined.Add(1)
						}
						return k
					})
				}
				// The futures, each published as soon as it is forked
				// and joined by the forker at once (most are still at
				// the bottom of its deque: Q4, or Q7 if a joiner came
				// first), except every third, joined at the end.
				for i := range cases {
					c := &cases[i]
					c.panics = (round+i)%5 == 0
					c.want = fibSeq(10 + i)
					n := 10 + i
					f := forkjoin.Fork(w, func(w *pool.Worker) int {
						c.runs.Add(1)
						v := fibJoin(w, n)
						if c.panics {
							panic(fmt.Sprintf("future %d", i))
						}
						return v
					})
					c.f.Store(f)
					if i%3 != 2 {
						checkRaised(t, c, catch(func() { f.Join(w) }))
					}
				}
				for i := range cases {
					if i%3 == 2 {
						checkRaised(t, &cases[i], catch(func() { cases[i].f.Load().Join(w) }))
					}
				}
				// The futures' jobs are recycled and forked again below;
				// the joiners still joining must not see it.
				fibFork(w, 12)
				s := 0
				for k := range js {
					s += js[k].Join(w)
				}
				return s
			})
			for i := range cases {
				if r := cases[i].runs.Load(); r != 1 {
					t.Fatalf("workers=%d round %d: future %d ran %d times", workers, round, i, r)
				}
				if !cases[i].f.Load().Done() {
					t.Fatalf("workers=%d round %d: future %d not Done after its joins", workers, round, i)
				}
			}
			if got := joined.Load(); got != futures*joiners {
				t.Fatalf("workers=%d round %d: %d joins returned, want %d", workers, round, got, futures*joiners)
			}
		}
		stillWorks(t, p, fmt.Sprintf("workers=%d", workers))
		p.Close()
	}
}

// checkRaised checks what a join of c raised: nothing if c does not
// panic, else the same *pool.PanicError as every other join of c.
func checkRaised(t *testing.T, c *futureCase, r any) {
	t.Helper()
	if !c.panics {
		if r != nil {
			t.Errorf("a join of a future that returns raised %v", r)
		}
		return
	}
	if _, ok := r.(*pool.PanicError); !ok {
		t.Errorf("a join of a panicking future raised %#v, want a *pool.PanicError", r)
		return
	}
	if !c.raised.CompareAndSwap(nil, &r) {
		if first := *c.raised.Load(); first != r {
			t.Errorf("two joins of one future raised different values: %p and %p", first, r)
		}
	}
}

// A future joined from another worker after its forker's join recycled
// its job, and the job served other forks since: the outcome is the
// Future's (Q3, D), and Done says so.
func TestFutureJoinedAfterRecycle(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for i := 0; i < small(200, 40); i++ {
		got := forkjoin.Invoke(p, func(w *pool.Worker) [4]int {
			f := forkjoin.Fork(w, func(w *pool.Worker) int { return fibJoin(w, 8) + i })
			a := f.Join(w)
			fibFork(w, 14) // the job, recycled, is forked again and again
			// Joined by another task, likely on the other worker.
			b, c := forkjoin.Join(w,
				func(w *pool.Worker) int { return fibFork(w, 12) },
				func(w *pool.Worker) int {
					if !f.Done() {
						return -1
					}
					return f.Join(w)
				})
			return [4]int{a, b, c, f.Join(w)}
		})
		v := fibSeq(8) + i
		if want := [4]int{v, fibSeq(12), v, v}; got != want {
			t.Fatalf("round %d: got %v, want %v", i, got, want)
		}
	}
}

// Done, asked from another worker while the forker runs the future
// inline, joins it and recycles its job (Q9): never true before the
// function has returned, and true once a join has returned.
func TestFutureDoneRacesTheJoin(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	for i := 0; i < small(300, 50); i++ {
		var fp atomic.Pointer[forkjoin.Future[int]]
		var returned, joinedBack, stop atomic.Bool
		var early, late atomic.Int32
		forkjoin.Invoke(p, func(w *pool.Worker) int {
			watcher := forkjoin.Fork(w, func(w *pool.Worker) int {
				for !stop.Load() {
					f := fp.Load()
					if f == nil {
						runtime.Gosched()
						continue
					}
					jb := joinedBack.Load()
					ret := returned.Load()
					d := f.Done()
					if d && !returned.Load() {
						early.Add(1)
					}
					if jb && ret && !d {
						late.Add(1)
					}
					runtime.Gosched() // with one P, the forker runs meanwhile
				}
				return 0
			})
			f := forkjoin.Fork(w, func(w *pool.Worker) int {
				v := fibJoin(w, 10)
				returned.Store(true)
				return v
			})
			fp.Store(f)
			f.Join(w)
			joinedBack.Store(true)
			fibFork(w, 12) // reuses f's job
			for range 100 {
				spin(w)
			}
			stop.Store(true)
			return watcher.Join(w)
		})
		if e, l := early.Load(), late.Load(); e != 0 || l != 0 {
			t.Fatalf("round %d: Done was true %d times before the function returned, false %d times after its join", i, e, l)
		}
	}
}

// A zero Future is no Future: its Join and Done panic, saying so,
// instead of waiting forever.
func TestZeroFuturePanics(t *testing.T) {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var zero forkjoin.Future[int]
	p.Run(func(w *pool.Worker) {
		for _, tc := range []struct {
			name string
			f    func()
		}{
			{"Join", func() { zero.Join(w) }},
			{"Done", func() { zero.Done() }},
		} {
			if msg := panicMessage(catch(tc.f)); msg != "forkjoin: "+tc.name+map[string]string{"Join": " of a zero Future: a Future comes from Fork", "Done": " on a zero Future: a Future comes from Fork"}[tc.name] {
				t.Errorf("%s of a zero Future: panicked with %q", tc.name, msg)
			}
		}
	})
}

// Joins that come while the forker runs the future inline (Q4) wait on
// the Future's latch (Q6): the first makes it, the others find it; all
// are woken by the forker's publication (Q5) and return its result. The
// future's function waits until both joins have parked, or a second.
func TestFutureJoinsWhileInline(t *testing.T) {
	fjtest.Deadline(t, time.Minute)
	p := pool.New(pool.WithWorkers(3))
	defer p.Close()
	inline := 0
	for i := 0; i < small(40, 10); i++ {
		var fp atomic.Pointer[forkjoin.Future[int]]
		var ran atomic.Int32
		parkedBefore := p.Stats().Total.Parked
		got := forkjoin.Invoke(p, func(w *pool.Worker) [3]int {
			var js [2]*forkjoin.Future[int]
			for k := range js {
				js[k] = forkjoin.Fork(w, func(w *pool.Worker) int {
					pool.Blocking(func() {
						for fp.Load() == nil {
							runtime.Gosched()
						}
						time.Sleep(time.Millisecond) // let the forker take it back first (Q4)
					})
					return fp.Load().Join(w)
				})
			}
			f := forkjoin.Fork(w, func(w *pool.Worker) int {
				ran.Add(1)
				deadline := time.Now().Add(time.Second)
				for p.Stats().Total.Parked < parkedBefore+2 && time.Now().Before(deadline) {
					runtime.Gosched()
				}
				if p.Stats().Total.Parked >= parkedBefore+2 {
					inline++
				}
				return 42 + i
			})
			fp.Store(f)
			a := f.Join(w)
			return [3]int{a, js[0].Join(w), js[1].Join(w)}
		})
		if want := [3]int{42 + i, 42 + i, 42 + i}; got != want || ran.Load() != 1 {
			t.Fatalf("round %d: joins returned %v, want %v; the function ran %d times", i, got, want, ran.Load())
		}
	}
	t.Logf("%d rounds of %d with both joins parked during the inline run", inline, small(40, 10))
	if inline == 0 {
		t.Error("no round had both joins parked while the forker ran the future inline")
	}
}
