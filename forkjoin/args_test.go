package forkjoin_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/pool"
)

func fibArgs(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, fibArgs, n-1, n-2)
	return a + b
}

// tnode is a tree for the n-ary forms.
type tnode struct {
	v    int
	kids []*tnode
}

func mkTree(depth, fan int, next *int) *tnode {
	*next++
	n := &tnode{v: *next}
	if depth > 0 {
		for i := 0; i < fan; i++ {
			n.kids = append(n.kids, mkTree(depth-1, fan-i%2, next))
		}
	}
	return n
}

func tsum(n *tnode) int {
	s := n.v
	for _, k := range n.kids {
		s += tsum(k)
	}
	return s
}

func tsumAll(w *pool.Worker, n *tnode) int {
	s := n.v
	for _, x := range forkjoin.JoinAll(w, tsumAll, n.kids) {
		s += x
	}
	return s
}

func tsumReduce(w *pool.Worker, n *tnode) int {
	return n.v + forkjoin.JoinReduce(w, tsumReduce, n.kids, func(a, b int) int { return a + b })
}

// The argument-carrying forms compute what the sequential code computes,
// on any number of workers, with every shape of argument list.
func TestArgForms(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	var next int
	tree := mkTree(small(7, 5), 4, &next)
	want := tsum(tree)
	for _, workers := range poolSizes {
		p := pool.New(pool.WithWorkers(workers))
		for round := 0; round < small(20, 5); round++ {
			if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibArgs(w, 20) }); got != fibSeq(20) {
				t.Fatalf("workers=%d: JoinArgs fib(20) = %d, want %d", workers, got, fibSeq(20))
			}
			if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return tsumAll(w, tree) }); got != want {
				t.Fatalf("workers=%d: JoinAll tree sum = %d, want %d", workers, got, want)
			}
			if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return tsumReduce(w, tree) }); got != want {
				t.Fatalf("workers=%d: JoinReduce tree sum = %d, want %d", workers, got, want)
			}
		}
		// Every length, and order: JoinAll's results and JoinReduce's
		// combine follow the order of args (a non-commutative combine).
		for n := 0; n <= 40; n++ {
			args := make([]int, n)
			for i := range args {
				args[i] = i
			}
			got := forkjoin.Invoke(p, func(w *pool.Worker) []int {
				return forkjoin.JoinAll(w, func(_ *pool.Worker, a int) int { return a * a }, args)
			})
			wantSq := make([]int, n)
			for i := range wantSq {
				wantSq[i] = i * i
			}
			if !slices.Equal(got, wantSq) {
				t.Fatalf("workers=%d: JoinAll of %d: %v, want %v", workers, n, got, wantSq)
			}
			s := forkjoin.Invoke(p, func(w *pool.Worker) string {
				return forkjoin.JoinReduce(w, func(_ *pool.Worker, a int) string { return fmt.Sprint(a, ",") }, args,
					func(a, b string) string { return a + b })
			})
			var sb strings.Builder
			for _, a := range args {
				fmt.Fprint(&sb, a, ",")
			}
			if s != sb.String() {
				t.Fatalf("workers=%d: JoinReduce of %d: %q, want %q", workers, n, s, sb.String())
			}
		}
		p.Close()
	}
}

// On one worker, where nobody steals, the argument-carrying forms allocate
// nothing per fork once warm: their jobs are recycled through the deque's
// slots. Warm means that every slot of the worker's deque has held a job:
// a fork published because its deque exposed nothing (E1) and taken back
// as the deque's last item moves the deque's indices on by one slot
// (wsdeque.md, D5a), so a recursion's forks meet slots that never held a
// job until the indices have gone round the ring once; after that, each
// slot keeps one recycled job, at most Cap() per worker and job type.
func TestArgFormsAllocateNothing(t *testing.T) {
	if fjtest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	var next int
	tree := mkTree(6, 4, &next)
	// Each form alone: a job is reused by the next fork of the same type
	// at the same depth, so forms that alternate at one depth allocate.
	for name, f := range map[string]func(w *pool.Worker){
		"JoinArgs":   func(w *pool.Worker) { fibArgs(w, 15) },
		"JoinReduce": func(w *pool.Worker) { tsumReduce(w, tree) },
	} {
		var allocs float64
		p.Run(func(w *pool.Worker) {
			for range 4096 { // warm up: see above
				f(w)
			}
			allocs = testing.AllocsPerRun(20, func() { f(w) })
		})
		if allocs != 0 {
			t.Errorf("%s allocated %v times per run on one worker, want 0", name, allocs)
		}
	}
}

var errArg = errors.New("arg failed")

// A panic in any call of a JoinAll or JoinReduce is raised once every call
// has finished or been dropped: the panic captured first, with the others
// in its Later, all reachable with errors.As.
func TestArgFormsPanics(t *testing.T) {
	fjtest.Deadline(t, 60*time.Second)
	for _, workers := range poolSizes {
		p := pool.New(pool.WithWorkers(workers))
		args := make([]int, 64)
		for i := range args {
			args[i] = i
		}
		var running atomic.Int64
		f := func(w *pool.Worker, a int) int {
			running.Add(1)
			defer running.Add(-1)
			if a%16 == 5 {
				panic(fmt.Errorf("call %d: %w", a, errArg))
			}
			return fibJoin(w, 8)
		}
		for _, form := range []string{"JoinAll", "JoinReduce", "JoinArgs"} {
			r := catch(func() {
				forkjoin.Invoke(p, func(w *pool.Worker) int {
					switch form {
					case "JoinAll":
						forkjoin.JoinAll(w, f, args)
					case "JoinReduce":
						forkjoin.JoinReduce(w, f, args, func(a, b int) int { return a + b })
					default:
						forkjoin.JoinArgs(w, f, 5, 21)
					}
					return 0
				})
			})
			pe, ok := r.(*pool.PanicError)
			if !ok {
				t.Fatalf("workers=%d %s: recovered %#v, want a *pool.PanicError", workers, form, r)
			}
			if !errors.Is(pe, errArg) {
				t.Errorf("workers=%d %s: %v does not wrap errArg", workers, form, pe)
			}
			if n := running.Load(); n != 0 {
				t.Errorf("workers=%d %s: %d calls still running when the panic was raised", workers, form, n)
			}
			// Every panic raised is reachable from the first (calls not
			// started when the first one came are dropped instead).
			for _, l := range pe.Later {
				if !errors.Is(l, errArg) {
					t.Errorf("workers=%d %s: a later panic %v is not one of the calls'", workers, form, l)
				}
			}
		}
		stillWorks(t, p, "after panics in the argument-carrying forms")
		p.Close()
	}
}

// Nil arguments panic with a message that names the call; empty inputs are
// no-ops with the documented results.
func TestArgFormsBadInput(t *testing.T) {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	sq := func(_ *pool.Worker, a int) int { return a * a }
	add := func(a, b int) int { return a + b }
	p.Run(func(w *pool.Worker) {
		for name, f := range map[string]func(){
			"JoinArgs nil worker":   func() { forkjoin.JoinArgs(nil, sq, 1, 2) },
			"JoinArgs nil f":        func() { forkjoin.JoinArgs[int, int](w, nil, 1, 2) },
			"JoinAll nil worker":    func() { forkjoin.JoinAll(nil, sq, []int{1}) },
			"JoinAll nil f":         func() { forkjoin.JoinAll[int, int](w, nil, []int{1}) },
			"JoinReduce nil f":      func() { forkjoin.JoinReduce[int, int](w, nil, []int{1}, add) },
			"JoinReduce nil worker": func() { forkjoin.JoinReduce(nil, sq, []int{1}, add) },
			"JoinReduce nil comb":   func() { forkjoin.JoinReduce(w, sq, []int{1}, nil) },
		} {
			msg := fjtest.PanicMessage(fjtest.Catch(f))
			if !strings.Contains(msg, "forkjoin: Join") || !strings.Contains(msg, "nil") {
				t.Errorf("%s: panic %q, want one naming the call and the nil", name, msg)
			}
		}
		if got := forkjoin.JoinAll(w, sq, nil); len(got) != 0 {
			t.Errorf("JoinAll of nothing = %v, want empty", got)
		}
		if got := forkjoin.JoinReduce(w, sq, nil, add); got != 0 {
			t.Errorf("JoinReduce of nothing = %v, want 0", got)
		}
	})
}

// A *Worker captured and used by another goroutine panics in JoinArgs as in
// Join, in every build.
func TestArgFormsForeignGoroutine(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	got := forkjoin.Invoke(p, func(w *pool.Worker) any {
		done := make(chan any)
		go func() {
			defer func() { done <- recover() }()
			//fjvet:ignore captured-worker the check under test: a worker on another goroutine or in a section panics
			forkjoin.JoinArgs(w, fibArgs, 3, 4)
		}()
		//fjvet:ignore blocking waits for the goroutine the test started
		return <-done
	})
	if msg := panicMessage(got); !strings.Contains(msg, "not running its task") {
		t.Fatalf("JoinArgs with a worker on a foreign goroutine: panic %q, want the check's message", msg)
	}
	runtime.GC()
}

// JoinArgs allocates nothing per call on one worker from the second call
// on, at depth 10 and 20 alike: the jobs a recursion's right spine moves
// past the deque's indices (wsdeque.md, D5a: each is taken back by the
// top) are kept for its deepest forks (Moved, reusableMoved), which would
// otherwise meet slots that never held a job, call after call, until the
// indices had gone round the ring (4 and 9 allocations a call before).
// Measured over 100 calls, from the process's malloc count, which other
// goroutines (the test runner, timers) may nudge: at most one in five calls.
func TestJoinArgsAllocatesNothingAfterFirstCall(t *testing.T) {
	if fjtest.RaceEnabled {
		t.Skip("the race detector allocates")
	}
	for _, n := range []int{10, 20} {
		p := pool.New(pool.WithWorkers(1))
		var m0, m1 runtime.MemStats
		p.Run(func(w *pool.Worker) {
			fibArgs(w, n) // the first call fills the slots it reaches
			runtime.ReadMemStats(&m0)
			for range 100 {
				fibArgs(w, n)
			}
			runtime.ReadMemStats(&m1)
		})
		p.Close()
		per := float64(m1.Mallocs-m0.Mallocs) / 100
		t.Logf("fib(%d): %.2f allocations per call after the first", n, per)
		if per > 0.2 {
			t.Errorf("fib(%d) with JoinArgs on one worker: %.2f allocations per call after the first, want 0", n, per)
		}
	}
}

// JoinAll and JoinReduce check their worker on every call, also when they
// fork nothing (no argument, or one, which f gets on the caller): a
// worker handed to a goroutine that does not hold it panics before f
// runs, whatever the length of the slice.
func TestJoinSliceShortMisuse(t *testing.T) {
	fjtest.Deadline(t, 30*time.Second)
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	var called atomic.Int32
	f := func(*pool.Worker, int) int { called.Add(1); return 1 }
	add := func(a, b int) int { return a + b }
	for _, args := range [][]int{nil, {}, {7}} {
		calls := map[string]func(w *pool.Worker){
			"JoinAll":    func(w *pool.Worker) { forkjoin.JoinAll(w, f, args) },
			"JoinReduce": func(w *pool.Worker) { forkjoin.JoinReduce(w, f, args, add) },
		}
		for name, call := range calls {
			var foreign, section any
			p.Run(func(w *pool.Worker) {
				res := make(chan any)
				//fjvet:ignore captured-worker the check under test: a worker on another goroutine or in a section panics
				go func() { res <- catch(func() { call(w) }) }() // the mistake: w on another goroutine
				//fjvet:ignore blocking waits for the goroutine the test started
				foreign = <-res
				//fjvet:ignore captured-worker the check under test: a worker on another goroutine or in a section panics
				pool.Blocking(func() { section = catch(func() { call(w) }) }) // and inside a section
				call(w)                                                       // the legal use
			})
			for _, c := range []struct {
				shape string
				r     any
				want  string
			}{
				{"a foreign goroutine", foreign, "forkjoin.JoinAll or JoinReduce with the *pool.Worker"},
				{"a blocking section", section, "forkjoin.JoinAll or JoinReduce inside a blocking section"},
			} {
				if msg := panicMessage(c.r); !strings.Contains(msg, c.want) {
					t.Errorf("%s of %d arguments in %s: panic %q, want one that says %q", name, len(args), c.shape, msg, c.want)
				}
			}
		}
	}
	// Only the legal calls ran f: once each for the one-argument slice.
	if got := called.Load(); got != 2 {
		t.Errorf("f ran %d times, want 2 (the legal calls of one argument)", got)
	}
}
