package forkjoin_test

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

func TestFib(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	n := small(23, 16)
	want := fibSeq(n)
	variants := []struct {
		name string
		fib  func(w *pool.Worker, n int) int
	}{
		{"Join", fibJoin},
		{"Fork", fibFork},
		{"Invoke", fibInvoke},
	}
	for _, workers := range poolSizes {
		p := pool.New(pool.WithWorkers(workers))
		for _, v := range variants {
			for i := 0; i < 2; i++ {
				if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return v.fib(w, n) }); got != want {
					t.Errorf("workers=%d %s: fib(%d) = %d, want %d", workers, v.name, n, got, want)
				}
			}
		}
		// All three nested in one another, small n, many times.
		for i := 0; i < small(50, 10); i++ {
			got := forkjoin.Invoke(p, func(w *pool.Worker) [3]int {
				var r [3]int
				r[0], r[1] = forkjoin.Join(w,
					func(w *pool.Worker) int { return fibJoin(w, 12) },
					func(w *pool.Worker) int { return fibFork(w, 13) })
				r[2] = fibInvoke(w, 11)
				return r
			})
			if want := [3]int{fibSeq(12), fibSeq(13), fibSeq(11)}; got != want {
				t.Fatalf("workers=%d: mixed fibs = %v, want %v", workers, got, want)
			}
		}
		p.Close()
	}
}

func TestJoinDifferentTypes(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	for _, workers := range []int{1, 2} {
		p := pool.New(pool.WithWorkers(workers))
		type pair struct {
			s  string
			xs []int
		}
		got := forkjoin.Invoke(p, func(w *pool.Worker) pair {
			s, xs := forkjoin.Join(w,
				func(w *pool.Worker) string { return strconv.Itoa(fibJoin(w, 10)) },
				func(w *pool.Worker) []int {
					// Nested Join with two other types.
					m, e := forkjoin.Join(w,
						func(*pool.Worker) map[string]int { return map[string]int{"a": 1} },
						func(*pool.Worker) error { return fmt.Errorf("e%d", 7) })
					return []int{m["a"], len(e.Error())}
				})
			return pair{s, xs}
		})
		p.Close()
		want := pair{strconv.Itoa(fibSeq(10)), []int{1, 2}}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(pair{})); diff != "" {
			t.Errorf("workers=%d: (-want +got):\n%s", workers, diff)
		}
	}
}

// deep joins at every level of a left-leaning recursion: fa recurses, fb is
// tiny. Deeper than the deque (1024 by default), so forks overflow to the
// injector and their joins cannot take them back.
func deep(w *pool.Worker, d int) int {
	if d == 0 {
		return 0
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return deep(w, d-1) },
		func(*pool.Worker) int { return 1 })
	return a + b
}

// deepRight is the mirror image: fb recurses, so every level's fork is
// taken back (or stolen) and the recursion continues in it.
func deepRight(w *pool.Worker, d int) int {
	if d == 0 {
		return 0
	}
	a, b := forkjoin.Join(w,
		func(*pool.Worker) int { return 1 },
		func(w *pool.Worker) int { return deepRight(w, d-1) })
	return a + b
}

func TestJoinDeepRecursion(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	const depth = 10000
	for _, workers := range []int{1, 2, 8} {
		for _, capacity := range []int{1024, 16} {
			p := pool.New(pool.WithWorkers(workers), pool.WithDequeCapacity(capacity))
			for i := 0; i < small(5, 2); i++ {
				if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return deep(w, depth) }); got != depth {
					t.Errorf("workers=%d capacity=%d: left-leaning depth %d = %d", workers, capacity, depth, got)
				}
				if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return deepRight(w, depth) }); got != depth {
					t.Errorf("workers=%d capacity=%d: right-leaning depth %d = %d", workers, capacity, depth, got)
				}
			}
			p.Close()
			// With one worker nobody steals, so the deque must have filled
			// up; with more, thieves may have kept it from filling.
			if s := p.Stats(); workers == 1 && s.Total.Overflows == 0 {
				t.Errorf("workers=%d capacity=%d: no overflow in a recursion of depth %d\n%v", workers, capacity, depth, s)
			} else {
				t.Logf("workers=%d capacity=%d: %d overflows, %d steals", workers, capacity, s.Total.Overflows, s.Total.Steals)
			}
		}
	}
}

// Many outside goroutines Invoke on one pool at once.
func TestConcurrentInvokes(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range []int{1, 2, 8} {
		p := pool.New(pool.WithWorkers(workers))
		const goroutines = 32
		results := make([]int, goroutines)
		var wg sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := small(16, 11) + g%5
				for i := 0; i < 3; i++ {
					got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoin(w, n) })
					if got != fibSeq(n) {
						results[g] = -1
						return
					}
					results[g] += got
				}
			}()
		}
		wg.Wait()
		p.Close()
		want := make([]int, goroutines)
		for g := range want {
			want[g] = 3 * fibSeq(small(16, 11)+g%5)
		}
		if diff := cmp.Diff(want, results); diff != "" {
			t.Errorf("workers=%d: per-goroutine sums (-want +got):\n%s", workers, diff)
		}
	}
}

// A task of pool A uses pool B, which uses joins of its own.
func TestNestedPools(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, sizes := range [][2]int{{1, 1}, {2, 2}, {2, 1}, {1, 3}} {
		a := pool.New(pool.WithWorkers(sizes[0]), pool.WithName("A"))
		b := pool.New(pool.WithWorkers(sizes[1]), pool.WithName("B"))
		n := small(18, 12)
		got := forkjoin.Invoke(a, func(w *pool.Worker) [3]int {
			var r [3]int
			r[0], r[1] = forkjoin.Join(w,
				func(w *pool.Worker) int {
					// From a worker of A, B blocks this worker; B's task
					// gets a worker of B.
					return forkjoin.Invoke(b, func(wb *pool.Worker) int {
						if wb.Pool() != b {
							return -1
						}
						return fibJoin(wb, n)
					})
				},
				func(w *pool.Worker) int { return fibJoin(w, n-1) })
			r[2] = forkjoin.Invoke(b, func(wb *pool.Worker) int { return fibFork(wb, n-2) })
			return r
		})
		a.Close()
		b.Close()
		if want := [3]int{fibSeq(n), fibSeq(n - 1), fibSeq(n - 2)}; got != want {
			t.Errorf("pools of %d and %d workers: got %v, want %v", sizes[0], sizes[1], got, want)
		}
	}
}

// Invoke on a *pool.Worker runs f inline on that worker.
func TestInvokeOnWorkerRunsInline(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	same := forkjoin.Invoke(p, func(w *pool.Worker) bool {
		return forkjoin.Invoke(w, func(w2 *pool.Worker) bool { return w2 == w })
	})
	if !same {
		t.Error("Invoke(w, f) called f with another worker")
	}
	// A panic through an inline Invoke is still a *pool.PanicError.
	var r any
	p.Run(func(w *pool.Worker) {
		r = catch(func() { forkjoin.Invoke(w, func(*pool.Worker) int { panic("inline") }) })
	})
	if pe, ok := r.(*pool.PanicError); !ok || pe.Value != "inline" {
		t.Errorf("panic through Invoke on a worker: %#v, want a *pool.PanicError with Value \"inline\"", r)
	}
}

func TestMisuse(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	one := func(*pool.Worker) int { return 1 }

	check := func(what string, r any, words ...string) {
		t.Helper()
		msg := panicMessage(r)
		if msg == "" {
			t.Errorf("%s: panic %#v, want a message", what, r)
			return
		}
		for _, word := range words {
			if !strings.Contains(msg, word) {
				t.Errorf("%s: panic %q does not mention %q", what, msg, word)
			}
		}
	}

	check("Invoke(nil Runner)", catch(func() { forkjoin.Invoke(nil, one) }), "nil", "Runner")
	check("Invoke(p, nil)", catch(func() { forkjoin.Invoke[int](p, nil) }), "nil", "function")
	var np *pool.Pool
	check("Invoke(nil *Pool)", catch(func() { forkjoin.Invoke(np, one) }), "nil", "Pool")
	check("Fork(nil worker)", catch(func() { forkjoin.Fork(nil, one) }), "nil", "Worker")
	check("Join(nil worker)", catch(func() { forkjoin.Join(nil, one, one) }), "nil", "Worker")

	var rs [5]any
	p.Run(func(w *pool.Worker) {
		rs[0] = catch(func() { forkjoin.Fork[int](w, nil) })
		rs[1] = catch(func() { forkjoin.Join[int, int](w, nil, one) })
		rs[2] = catch(func() { forkjoin.Join[int, int](w, one, nil) })
		f := forkjoin.Fork(w, one)
		rs[3] = catch(func() { f.Join(nil) })
		f.Join(w)
		rs[4] = catch(func() { forkjoin.Invoke[int](w, nil) })
	})
	check("Fork(w, nil)", rs[0], "nil", "function")
	check("Join(w, nil, fb)", rs[1], "nil", "function")
	check("Join(w, fa, nil)", rs[2], "nil", "function")
	check("Future.Join(nil)", rs[3], "nil", "Worker")
	check("Invoke(w, nil)", rs[4], "nil", "function")

	// The pool is fine after all that.
	if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibJoin(w, 15) }); got != fibSeq(15) {
		t.Errorf("fib(15) after misuse = %d", got)
	}

	p.Close()
	ran := false
	r := catch(func() { forkjoin.Invoke(p, func(*pool.Worker) int { ran = true; return 1 }) })
	check("Invoke on a closed pool", r, "closed")
	if ran {
		t.Error("Invoke on a closed pool ran f")
	}
}
