package pool_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/internal/fjtest"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

//fjvet:file-ignore captured-worker,blocking these tests of the run-time misuse checks make the mistakes on purpose, and wait for the goroutines they start

// The misuse of a *pool.Worker on a goroutine that does not hold it is
// caught before it touches the worker, however many forks the worker made
// before (issue 25): a check sampled per worker let the classic mistakes
// below through once the worker was past its first forks, and two
// goroutines then pushed onto and popped from one deque (hangs and
// SIGSEGVs in plain builds). Each shape runs after the misused worker has
// made thousands of forks, with every fork-path call (misuseForms), and
// counts the calls the misuse completed: none may.

func fibArgs(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, fibArgs, n-1, n-2)
	return a + b
}

// warmForks is the fib whose forks every shape makes on the worker it
// then misuses: 4,180 forks, far past a per-worker sample's first 64.
const warmForks = 18

// misuseForm is one fork-path call, made with a worker the calling
// goroutine may not hold; op is how the panic names it.
type misuseForm struct {
	op   string
	call func(w *pool.Worker)
}

var misuseForms = []misuseForm{
	{"forkjoin.Join", func(w *pool.Worker) {
		forkjoin.Join(w, func(w *pool.Worker) int { return fibArgs(w, 6) }, func(w *pool.Worker) int { return fibArgs(w, 5) })
	}},
	{"forkjoin.JoinArgs", func(w *pool.Worker) { forkjoin.JoinArgs(w, fibArgs, 6, 5) }},
	{"forkjoin.JoinAll or JoinReduce", func(w *pool.Worker) { forkjoin.JoinAll(w, fibArgs, []int{6, 5, 4}) }},
	{"forkjoin.JoinAll or JoinReduce", func(w *pool.Worker) {
		forkjoin.JoinReduce(w, fibArgs, []int{6, 5, 4}, func(a, b int) int { return a + b })
	}},
	{"forkjoin.Fork", func(w *pool.Worker) { forkjoin.Fork(w, func(w *pool.Worker) int { return fibArgs(w, 6) }).Join(w) }},
}

// misuseOutcome is what one misuse did: the panic it raised, and how many
// misused calls returned before it (0 when caught at the first).
type misuseOutcome struct {
	r         any
	completed int64
}

// check reports what is wrong with o for a misuse of form f, or "".
func (o misuseOutcome) check(op string) string {
	msg := panicMessage(o.r)
	if i := strings.Index(msg, ". A *pool.Worker belongs"); i > 0 {
		msg = msg[:i] // the mistake, not the advice and the stack
	}
	switch {
	case o.r == nil:
		return fmt.Sprintf("%s: no panic after %d misused calls", op, o.completed)
	case !strings.Contains(msg, op+" with the *pool.Worker") || !strings.Contains(msg, "not running its task"):
		return fmt.Sprintf("%s: panic %q, want the misuse message naming %s", op, msg, op)
	case o.completed != 0:
		return fmt.Sprintf("%s: caught only after %d misused calls had returned", op, o.completed)
	}
	return ""
}

// misuseCalls makes form f's call with w, the mistake, 100 times, and
// counts those that returned.
func misuseCalls(f misuseForm, w *pool.Worker, completed *atomic.Int64) {
	for k := 0; k < 100; k++ {
		f.call(w)
		completed.Add(1)
	}
}

// misuseInLoopBody: a parallel.For body forks with the enclosing task's
// worker (outer) instead of its own (w), on another worker, while outer's
// own task forks on it. It reports legal=true when no item ran on
// another worker (then nothing was misused, and nothing may panic).
func misuseInLoopBody(p *pool.Pool, f misuseForm) (o misuseOutcome, legal bool) {
	var completed atomic.Int64
	var misused atomic.Bool
	o.r = catch(func() {
		forkjoin.Invoke(p, func(outer *pool.Worker) int {
			if fibArgs(outer, warmForks) != fibSeq(warmForks) {
				panic("fib on the outer worker went wrong")
			}
			const n = 8
			opt, ctx := parallel.WithContext(context.Background()) // a task per item
			var finished atomic.Int32
			parallel.For(outer, 0, n, func(w *pool.Worker, i int) {
				if i == 0 {
					// Item 0 runs on outer's worker and forks on it
					// while the other items run: a fork publishes them
					// once the other worker is idle, and Gosched lets
					// it run at GOMAXPROCS=1. It ends when the others
					// have, or when the call was canceled by a panic.
					for finished.Load() < n-1 && ctx.Err() == nil {
						if fibArgs(w, 8) != fibSeq(8) {
							panic("fib on the outer worker went wrong")
						}
						runtime.Gosched()
					}
					return
				}
				defer finished.Add(1)
				if w == outer {
					return // this item holds outer's worker: a legal use
				}
				misused.Store(true)
				misuseCalls(f, outer, &completed) // the mistake: outer, not w
			}, opt)
			return 0
		})
	})
	o.completed = completed.Load()
	return o, !misused.Load()
}

// misuseInGoroutine: a task hands its worker to a goroutine it starts,
// which forks with it while the task forks on.
func misuseInGoroutine(p *pool.Pool, f misuseForm) (o misuseOutcome) {
	var completed atomic.Int64
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		if fibArgs(w, warmForks) != fibSeq(warmForks) {
			panic("fib on the worker went wrong")
		}
		res := make(chan any, 1)
		go func() {
			res <- catch(func() { misuseCalls(f, w, &completed) }) // the mistake
		}()
		for k := 0; k < 20; k++ {
			if fibArgs(w, 12) != fibSeq(12) {
				panic("fib on the worker went wrong while a goroutine misused it")
			}
		}
		o.r = <-res // the goroutine needs nothing of the pool
		return 0
	})
	o.completed = completed.Load()
	return o
}

// misuseFutureJoin: a task forks a future, and a goroutine it starts
// joins it with the task's worker.
func misuseFutureJoin(p *pool.Pool) (o misuseOutcome) {
	var completed atomic.Int64
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		if fibArgs(w, warmForks) != fibSeq(warmForks) {
			panic("fib on the worker went wrong")
		}
		fu := forkjoin.Fork(w, func(w *pool.Worker) int { return fibArgs(w, 10) })
		res := make(chan any, 1)
		go func() {
			res <- catch(func() { fu.Join(w); completed.Add(1) }) // the mistake
		}()
		o.r = <-res
		if fu.Join(w) != fibSeq(10) { // the task's own join
			panic("the future's result went wrong")
		}
		return 0
	})
	o.completed = completed.Load()
	return o
}

// misuseFromOtherPool: a task of pool a calls pool b, and b's task forks
// with a's worker instead of its own.
func misuseFromOtherPool(a, b *pool.Pool, f misuseForm) (o misuseOutcome) {
	var completed atomic.Int64
	o.r = catch(func() {
		forkjoin.Invoke(a, func(wa *pool.Worker) int {
			if fibArgs(wa, warmForks) != fibSeq(warmForks) {
				panic("fib on a's worker went wrong")
			}
			return forkjoin.Invoke(b, func(wb *pool.Worker) int {
				misuseCalls(f, wa, &completed) // the mistake: wa, not wb
				return 0
			})
		})
	})
	o.completed = completed.Load()
	return o
}

// misuseRounds runs every shape with every form rounds times, and returns
// the number of misuses caught and of loop rounds where no item ran on
// another worker, and what went wrong.
func misuseRounds(rounds int) (caught, legal int, errs []string) {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	b := pool.New(pool.WithWorkers(2))
	defer b.Close()
	for round := 0; round < rounds; round++ {
		for _, f := range misuseForms {
			o, isLegal := misuseInLoopBody(p, f)
			switch {
			case isLegal && o.r != nil:
				errs = append(errs, fmt.Sprintf("loop body, no misuse: panic %v", o.r))
			case isLegal:
				legal++
			case o.check(f.op) != "":
				errs = append(errs, "loop body: "+o.check(f.op))
			default:
				caught++
			}
			for shape, o := range map[string]misuseOutcome{
				"goroutine":  misuseInGoroutine(p, f),
				"other pool": misuseFromOtherPool(p, b, f),
			} {
				if e := o.check(f.op); e != "" {
					errs = append(errs, shape+": "+e)
				} else {
					caught++
				}
			}
		}
		if e := misuseFutureJoin(p).check("forkjoin.Future.Join"); e != "" {
			errs = append(errs, "goroutine: "+e)
		} else {
			caught++
		}
		// The pools are intact: the misuses touched no deque.
		if got := forkjoin.Invoke(p, func(w *pool.Worker) int { return fibArgs(w, 20) }); got != fibSeq(20) {
			errs = append(errs, fmt.Sprintf("round %d: fib(20) after the misuses = %d", round, got))
		}
		if got := forkjoin.Invoke(b, func(w *pool.Worker) int { return fibArgs(w, 20) }); got != fibSeq(20) {
			errs = append(errs, fmt.Sprintf("round %d: fib(20) on b after the misuses = %d", round, got))
		}
	}
	return caught, legal, errs
}

// TestMisuseCaughtBeforeTheDeque runs misuseRounds in child processes at
// GOMAXPROCS=1 and 2, plain or debug as this binary was built, so that a
// crash or a hang of the misuse is seen as such. FJ_MISUSE_ROUNDS sets
// the rounds per child (default 3, 20 with FJ_LONG).
func TestMisuseCaughtBeforeTheDeque(t *testing.T) {
	if os.Getenv(childEnv) == "misuse" {
		fjtest.Deadline(t, 5*time.Minute)
		rounds, _ := strconv.Atoi(os.Getenv("FJ_MISUSE_ROUNDS"))
		caught, legal, errs := misuseRounds(max(1, rounds))
		for _, e := range errs {
			fmt.Println("FAIL:", e)
		}
		fmt.Printf("MISUSE caught=%d legal=%d failed=%d\n", caught, legal, len(errs))
		return
	}
	fjtest.Deadline(t, 5*time.Minute)
	rounds := "3"
	if fjtest.Long() {
		rounds = "20"
	}
	if r := os.Getenv("FJ_MISUSE_ROUNDS"); r != "" {
		rounds = r
	}
	for _, procs := range []string{"1", "2"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMisuseCaughtBeforeTheDeque$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childEnv+"=misuse", "GOMAXPROCS="+procs, "FJ_MISUSE_ROUNDS="+rounds)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "failed=0") {
			t.Fatalf("GOMAXPROCS=%s: child process: %v\n%s", procs, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, "MISUSE ") {
				t.Logf("GOMAXPROCS=%s: %s", procs, line)
			}
		}
	}
}
