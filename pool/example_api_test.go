package pool_test

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// The examples below print only what does not depend on timing or on the
// number of CPUs: results, Submitted, and Executed on one-worker pools.
// Steal, sleep and park counts, and which worker ran what, vary from run to
// run.

// fib forks at every level; fib(n) makes joins(n) calls to Join.
func fib(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fib(w, n-1) },
		func(w *pool.Worker) int { return fib(w, n-2) })
	return a + b
}

// An Option is a function on Config, so a program can bundle its own
// settings into one option and pass it alongside the package's.
func ExampleConfig() {
	background := func(c *pool.Config) {
		c.Name = "background"
		c.Workers = 2
	}
	p := pool.New(background)
	defer p.Close()
	fmt.Println(p.Name(), p.Workers())
	// Output: background 2
}

// Options are plain values: collect them where the settings are known and
// hand them to New at once. Later options override earlier ones.
func ExampleOption() {
	limit := 3 // say, from a command-line flag; 0 would mean "one per CPU"
	opts := []pool.Option{pool.WithName("indexer")}
	if limit > 0 {
		opts = append(opts, pool.WithWorkers(limit))
	}
	p := pool.New(opts...)
	defer p.Close()
	fmt.Println(p.Name(), p.Workers())
	// Output: indexer 3
}

// Forks beyond a worker's deque capacity overflow to the shared injector,
// which works but is slower. A task that forks wide rather than deep (here
// 100 futures at once) wants a deque at least that large; the default,
// 1024, is plenty for recursive code, which keeps only O(depth) forks queued.
func ExampleWithDequeCapacity() {
	forkWide := func(p *pool.Pool) (sum int, overflowed bool) {
		sum = forkjoin.Invoke(p, func(w *pool.Worker) int {
			fs := make([]*forkjoin.Future[int], 100)
			for i := range fs {
				fs[i] = forkjoin.Fork(w, func(*pool.Worker) int { return i })
			}
			s := 0
			for i := len(fs) - 1; i >= 0; i-- {
				s += fs[i].Join(w)
			}
			return s
		})
		p.Close() // the counters are exact once the pool is closed
		return sum, p.Stats().Total.Overflows > 0
	}
	// One worker, so that no thief makes room in the deque meanwhile.
	fmt.Println(forkWide(pool.New(pool.WithWorkers(1), pool.WithDequeCapacity(4))))
	fmt.Println(forkWide(pool.New(pool.WithWorkers(1))))
	// Output:
	// 4950 true
	// 4950 false
}

// A name tells pools apart in CPU profiles (the fj.pool label) and
// execution traces, when a program runs more than one.
func ExampleWithName() {
	files := pool.New(pool.WithName("files"), pool.WithWorkers(2))
	defer files.Close()
	cpu := pool.New(pool.WithName("cpu"))
	defer cpu.Close()
	fmt.Println(files.Name(), cpu.Name())
	// Output: files cpu
}

// A fixed number of workers, independent of GOMAXPROCS, leaves the other
// CPUs to the rest of the program (or makes a test behave the same on every
// machine). A pool needs at least one worker.
func ExampleWithWorkers() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	fmt.Println(p.Workers())

	defer func() { fmt.Println("panic:", recover()) }()
	pool.WithWorkers(0)
	// Output:
	// 2
	// panic: pool: WithWorkers(0): a pool needs at least one worker
}

// A task that panics with an error: the *PanicError that reaches the caller
// unwraps to it, so errors.Is and errors.As work as if the error had been
// returned, and Stack tells where the panic happened.
func ExamplePanicError() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	defer func() {
		err, _ := recover().(error)
		var pe *pool.PanicError
		fmt.Println(errors.As(err, &pe), errors.Is(err, io.ErrUnexpectedEOF))
		fmt.Println(pe.Value)
		fmt.Println(len(pe.Stack) > 0)
	}()
	forkjoin.Invoke(p, func(w *pool.Worker) int {
		a, b := forkjoin.Join(w,
			func(*pool.Worker) int { return 1 },
			func(*pool.Worker) int { panic(fmt.Errorf("decoding block 7: %w", io.ErrUnexpectedEOF)) })
		return a + b
	})
	// Output:
	// true true
	// decoding block 7: unexpected EOF
	// true
}

// One pool serves a whole program: every method, and every fj call on it,
// is safe from any number of goroutines at once. Here three request
// handlers share it.
func ExamplePool() {
	p := pool.New()
	defer p.Close()

	results := make([]int, 3)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() { // a request handler
			defer wg.Done()
			results[i] = forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 20+i) })
		}()
	}
	wg.Wait()
	fmt.Println(results)
	// Output: [6765 10946 17711]
}

// Library code that wants parallelism without asking its callers for a pool
// uses pool.Default(). Called from a Default task (a parallel.For body on
// Default, say), such a helper does not block the worker it runs on: a call
// on a *Pool from inside one of its own tasks runs on the caller's worker,
// as if the worker had been passed.
//
// This example uses a pool from New as a stand-in for Default: Default's
// workers live as long as the process, and this package's tests check with
// goleak that no goroutine outlives them. In real code, replace the first
// two lines with def := pool.Default(), and never Close it (Close panics on
// Default).
func ExampleDefault() {
	def := pool.New(pool.WithWorkers(1)) // stand-in for pool.Default()
	defer def.Close()

	// A library helper that takes no pool: it sorts with the shared one.
	median := func(xs []int) int {
		s := slices.Clone(xs)
		parallel.Sort(def, s)
		return s[len(s)/2]
	}
	// rows[k] holds k*1e6 + 0 .. 10000, shuffled: large enough for
	// Sort to use the pool rather than sort inline.
	rows := make([][]int, 3)
	for k := range rows {
		for i := 0; i < 10001; i++ {
			rows[k] = append(rows[k], k*1e6+i*7919%10001)
		}
	}

	// From ordinary code, the helper blocks until its sort is done.
	fmt.Println(median(rows[0]))

	// From tasks of the same pool, it runs on each task's worker. With the
	// only worker busy running this loop, a helper that queued its sort and
	// waited for it would wait forever.
	medians := make([]int, len(rows))
	parallel.For(def, 0, len(rows), func(_ *pool.Worker, k int) {
		medians[k] = median(rows[k])
	})
	fmt.Println(medians)
	// Output:
	// 5000
	// [5000 1005000 2005000]
}

// Without options, a pool has one worker per CPU the Go scheduler uses.
func ExampleNew() {
	p := pool.New()
	defer p.Close()
	fmt.Println(p.Workers() == runtime.GOMAXPROCS(0), p.Name())
	// Output: true fj
}

// Close right after New, with defer: Close lets queued work finish and
// leaves no goroutine behind, and calling it again is harmless. Closing a
// pool from inside one of its own tasks would wait for that very task, so
// it panics instead, and so does using the pool once it is closed.
func ExamplePool_Close() {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()

	p.Run(func(*pool.Worker) {
		defer func() { fmt.Println("Close from a task panics:", recover() != nil) }()
		//fjvet:ignore close-inside the example shows that it panics
		p.Close()
	})

	p.Close()
	func() {
		defer func() { fmt.Println("Run after Close panics:", recover() != nil) }()
		p.Run(func(*pool.Worker) {})
	}()
	// Output:
	// Close from a task panics: true
	// Run after Close panics: true
}

// Closed lets code that is handed a pool check it before using it, since a
// closed pool panics on use.
func ExamplePool_Closed() {
	p := pool.New(pool.WithWorkers(1))
	fmt.Println(p.Closed())
	p.Close()
	fmt.Println(p.Closed())
	// Output:
	// false
	// true
}

// Name is what WithName set, "fj" by default: handy in log lines about a
// pool.
func ExamplePool_Name() {
	p := pool.New(pool.WithName("thumbnails"), pool.WithWorkers(2))
	defer p.Close()
	fmt.Printf("pool %q: %d workers\n", p.Name(), p.Workers())
	// Output: pool "thumbnails": 2 workers
}

// Pool is the method that makes a *Pool a Runner; code that takes a Runner
// calls it to find the pool behind either kind, e.g. to size its work.
func ExamplePool_Pool() {
	p := pool.New(pool.WithWorkers(3))
	defer p.Close()

	pieces := func(r pool.Runner) int { return 4 * r.Pool().Workers() }
	fmt.Println(pieces(p))
	p.Run(func(w *pool.Worker) { fmt.Println(pieces(w), w.Pool() == p.Pool()) })
	// Output:
	// 12
	// 12 true
}

// Workers sizes per-worker state: a worker runs one task at a time, so a
// task may update its worker's slot without locks, provided it does not
// join anything between reading and writing it (a parked task's worker
// runs other tasks meanwhile). parallel.PerWorker packages this pattern.
func ExamplePool_Workers() {
	p := pool.New()
	defer p.Close()

	counts := make([]int, p.Workers()) // indexed by Worker.ID
	parallel.For(p, 0, 1000, func(w *pool.Worker, i int) {
		if i%3 == 0 {
			counts[w.ID()]++
		}
	})
	total := 0
	for _, c := range counts {
		total += c
	}
	fmt.Println(total)
	// Output: 334
}

// A function that takes a Runner works both from ordinary code (with a
// *Pool: the call blocks) and from inside a task (with the task's
// *Worker: the work forks onto it). One implementation serves both.
func ExampleRunner() {
	sumSquares := func(r pool.Runner, xs []int) int {
		return parallel.Reduce(r, 0, len(xs), 0,
			func(_ *pool.Worker, lo, hi int) int {
				s := 0
				for _, x := range xs[lo:hi] {
					s += x * x
				}
				return s
			},
			func(a, b int) int { return a + b })
	}
	xs := []int{1, 2, 3, 4}

	p := pool.New()
	defer p.Close()
	fmt.Println(sumSquares(p, xs)) // from main
	p.Run(func(w *pool.Worker) {
		fmt.Println(sumSquares(w, xs)) // nested, on the task's worker
	})
	// Output:
	// 30
	// 30
}

// Submitted counts what came in from outside the pool; tasks forked by
// tasks count only where they are executed. On one worker, with nobody to
// steal and nothing parked, every fork of fib(10)'s 88 Joins is taken back
// and run inline: 89 tasks in all.
func ExampleStats() {
	p := pool.New(pool.WithWorkers(1))
	n := forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 10) })
	p.Close() // exact counters
	s := p.Stats()
	fmt.Println(n, s.Submitted, s.Total.Executed)
	// Output: 55 1 89
}

// String is for logs: a table with a row per worker, a total and the count
// of outside submissions. Only its first and last lines are printed here;
// the other counters depend on timing.
func ExampleStats_String() {
	p := pool.New(pool.WithWorkers(2))
	for range 3 {
		p.Run(func(*pool.Worker) {})
	}
	p.Close()
	lines := strings.Split(strings.TrimSpace(p.Stats().String()), "\n")
	fmt.Println(lines[0])
	fmt.Println(lines[len(lines)-1])
	// Output:
	// worker      executed     steals  stealops  private       failed  injector  overflow   sleeps  wakeups    parks barriers  parked
	// submitted from outside: 3
}

// Sub isolates the activity of one phase of a program between two
// snapshots. Submitted is counted when work comes in, so it is exact
// at once; the per-worker counters may lag until the workers are idle.
func ExampleStats_Sub() {
	p := pool.New()
	defer p.Close()

	p.Run(func(*pool.Worker) {}) // an earlier phase
	before := p.Stats()
	for i := 0; i < 5; i++ {
		forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 15) })
	}
	phase := p.Stats().Sub(before)
	fmt.Println(phase.Submitted, len(phase.Workers) == p.Workers())
	// Output: 5 true
}

// The *Worker a function receives is how it forks onto the worker it runs
// on. Pass it down, and inside a parallel loop use the worker the body
// receives: the outer one belongs to the task that started the loop.
func ExampleWorker() {
	p := pool.New()
	defer p.Close()

	out := make([]int, 4)
	p.Run(func(w *pool.Worker) {
		parallel.For(w, 0, len(out), func(w *pool.Worker, i int) { // this body's own w
			out[i] = fib(w, 10+i)
		})
	})
	fmt.Println(out)
	// Output: [55 89 144 233]
}

// ID numbers the workers 0 to Workers()-1, for indexing per-worker state.
// Which worker runs a task depends on timing, so only a one-worker pool
// prints a predictable ID.
func ExampleWorker_ID() {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	p.Run(func(w *pool.Worker) { fmt.Println(w.ID()) })

	q := pool.New(pool.WithWorkers(4))
	defer q.Close()
	inRange := true
	var mu sync.Mutex
	parallel.For(q, 0, 100, func(w *pool.Worker, _ int) {
		mu.Lock()
		inRange = inRange && 0 <= w.ID() && w.ID() < q.Workers()
		mu.Unlock()
	})
	fmt.Println(inRange)
	// Output:
	// 0
	// true
}

// Pool recovers the pool from a worker, so that deep code that was passed
// only the worker can read the pool's settings.
func ExampleWorker_Pool() {
	p := pool.New(pool.WithName("render"), pool.WithWorkers(2))
	defer p.Close()
	p.Run(func(w *pool.Worker) {
		fmt.Println(w.Pool() == p, w.Pool().Name(), w.Pool().Workers())
	})
	// Output: true render 2
}

// Run on a *Worker calls f right there, on the calling goroutine, and
// turns a panic into a *PanicError just as Run on a *Pool does, so code
// written against Runner handles both alike.
func ExampleWorker_Run() {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()

	p.Run(func(w *pool.Worker) {
		calls := 0 // no synchronization needed: same goroutine
		w.Run(func(*pool.Worker) { calls++ })
		fmt.Println("calls:", calls)

		defer func() {
			var pe *pool.PanicError
			if err, ok := recover().(error); ok && errors.As(err, &pe) {
				fmt.Println("panic:", pe.Value)
			}
		}()
		w.Run(func(*pool.Worker) { panic("bad input") })
	})
	// Output:
	// calls: 1
	// panic: bad input
}

// Executed is the counter to read for how much work a pool did: each task
// counts once, on the worker that ran it, so the total does not depend on
// who stole what (the steal, sleep and park counters do). Read it once the
// pool is idle or closed, when it is exact.
func ExampleWorkerStats() {
	p := pool.New(pool.WithWorkers(1))
	forkjoin.Invoke(p, func(w *pool.Worker) int { return fib(w, 12) })
	p.Close()

	s := p.Stats()
	var sum uint64
	for _, ws := range s.Workers {
		sum += ws.Executed
	}
	fmt.Println(s.Total.Executed, sum == s.Total.Executed)
	// Output: 233 true
}

// Enter is how an operation built on fj starts, as fj's own do: on the
// calling goroutine's worker when it has one (a task of the pool, or the
// worker passed in), otherwise by submitting to the pool and waiting.
func ExampleEnter() {
	sumTo := func(r pool.Runner, n int) int {
		if w := pool.Enter(r); w != nil {
			return n * (n + 1) / 2 // already on a worker: work (or fork) here
		}
		var s int
		r.Run(func(w *pool.Worker) { s = n * (n + 1) / 2 })
		return s
	}
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()
	fmt.Println(sumTo(p, 100)) // from outside: submitted
	p.Run(func(w *pool.Worker) {
		fmt.Println(sumTo(p, 10)) // from a task of p: runs right here
		fmt.Println(sumTo(w, 4))
	})
	// Output:
	// 5050
	// 55
	// 10
}

// A PanicError's message shows the original value first, then where it was
// raised.
func ExamplePanicError_Error() {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	defer func() {
		pe := recover().(*pool.PanicError)
		first, _, _ := strings.Cut(pe.Error(), "\n")
		fmt.Println(first)
	}()
	p.Run(func(*pool.Worker) { panic("disk full") })
	// Output: disk full
}

// Unwrap exposes the panic value, if it is an error, and the later panics
// of the same join: errors.Is and errors.As look into all of them.
func ExamplePanicError_Unwrap() {
	errA := errors.New("a failed")
	errB := errors.New("b failed")
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()
	defer func() {
		pe := recover().(*pool.PanicError)
		fmt.Println(errors.Is(pe, errA), errors.Is(pe, errB))
	}()
	p.Run(func(*pool.Worker) { panic(fmt.Errorf("wrapped: %w", errA)) })
	// Output: true false
}
