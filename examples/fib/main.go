// Command fib computes Fibonacci numbers the naive recursive way, forking at
// every level, to show what a fork costs: with a goroutine and a WaitGroup
// per fork, and with fj's forkjoin.Join on a work-stealing pool.
//
//	go run ./examples/fib [-n 27] [-workers N]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fibGo is the usual way to fork in Go: a goroutine per call.
func fibGo(n int) int {
	if n < 2 {
		return n
	}
	var wg sync.WaitGroup
	var b int
	wg.Add(1)
	go func() { defer wg.Done(); b = fibGo(n - 2) }()
	a := fibGo(n - 1)
	wg.Wait()
	return a + b
}

// fibFJ is the same recursion with fj: Join forks the second call onto the
// worker's deque, runs the first, and takes the second back unless an idle
// worker stole it.
func fibFJ(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fibFJ(w, n-1) },
		func(w *pool.Worker) int { return fibFJ(w, n-2) })
	return a + b
}

// best returns the fastest of a few runs of f, to damp a noisy machine.
func best(f func() int) (int, time.Duration) {
	var r int
	d := time.Duration(1 << 62)
	for i := 0; i < 3; i++ {
		start := time.Now()
		r = f()
		d = min(d, time.Since(start))
	}
	return r, d
}

func main() {
	n := flag.Int("n", 27, "compute fib(n)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "pool workers")
	flag.Parse()

	p := pool.New(pool.WithWorkers(*workers))
	defer p.Close()

	forks := fibSeq(*n+1) - 1 // every call with n >= 2 forks once
	want, seq := best(func() int { return fibSeq(*n) })
	got1, gor := best(func() int { return fibGo(*n) })
	got2, fj := best(func() int {
		return forkjoin.Invoke(p, func(w *pool.Worker) int { return fibFJ(w, *n) })
	})
	if got1 != want || got2 != want {
		fmt.Fprintf(os.Stderr, "wrong result: %d, %d, want %d\n", got1, got2, want)
		os.Exit(1)
	}

	fmt.Printf("fib(%d) = %d: %d forks, %d workers, GOMAXPROCS %d\n\n", *n, want, forks, p.Workers(), runtime.GOMAXPROCS(0))
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "version\ttime\tper fork\tvs goroutines\t")
	row := func(name string, d time.Duration) {
		fmt.Fprintf(tw, "%s\t%v\t%.1f ns\t%.1fx\t\n", name, d.Round(time.Microsecond),
			float64(d.Nanoseconds())/float64(forks), float64(gor)/float64(d))
	}
	row("sequential (no forks)", seq)
	row("goroutine + WaitGroup", gor)
	row("fj forkjoin.Join", fj)
	tw.Flush()
}
