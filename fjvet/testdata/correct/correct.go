// Package correct is code fjvet must not report: every function here is
// correct use of fj.
package correct

import (
	"os"
	"sync"
	"time"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

func fib(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.Join(w,
		func(w *pool.Worker) int { return fib(w, n-1) },
		func(w *pool.Worker) int { return fib(w, n-2) })
	return a + b
}

// The worker a literal receives, passed on to a named function.
func own(p *pool.Pool, rows [][]int) {
	parallel.For(p, 0, len(rows), func(w *pool.Worker, i int) {
		parallel.Sort(w, rows[i])
		_ = fib(w, 10)
	})
}

// Functions fj runs on the calling goroutine with the worker given to
// it: that worker is theirs.
func inline(w *pool.Worker, xs []int) {
	forkjoin.Invoke(w, func(*pool.Worker) int { return fib(w, 3) })
	w.Run(func(*pool.Worker) { parallel.Sort(w, xs) })
	pool.Region(w, "sort", func(*pool.Worker) { parallel.Sort(w, xs) })
	taskblock.Define(w, func(b *taskblock.Block) {
		parallel.Sort(w, xs)
		b.Run(func(w *pool.Worker) { parallel.Sort(w, xs) })
	})
	forkjoin.Join(w,
		func(*pool.Worker) int { return fib(w, 3) }, // the first half runs on the caller
		func(w *pool.Worker) int { return fib(w, 3) })
}

// Comparing workers, and keeping one, use neither.
func identity(p *pool.Pool) (same bool, kept *pool.Worker) {
	p.Run(func(outer *pool.Worker) {
		parallel.For(outer, 0, 2, func(w *pool.Worker, i int) {
			if w == outer {
				same = true
			}
		})
		kept = outer
	})
	return same, kept
}

// A closure called in a task, with the task's worker.
func closure(w *pool.Worker, xs [][]int) {
	sortAll := func() {
		for _, x := range xs {
			parallel.Sort(w, x)
		}
	}
	sortAll()
}

// Blocking calls in sections.
func sections(w *pool.Worker, ch chan int, wg *sync.WaitGroup) error {
	var v int
	pool.Blocking(func() { v = <-ch })
	pool.Blocking(func() { ch <- v })
	pool.Blocking(wg.Wait)
	pool.Blocking(func() { time.Sleep(time.Millisecond) })
	_, err := pool.BlockingValue(func() ([]byte, error) { return os.ReadFile("x") })
	parallel.For(w, 0, 10, func(_ *pool.Worker, i int) {
		pool.Blocking(func() {
			for x := range ch {
				v += x
			}
		})
	})
	return err
}

// A select with a default does not block.
func poll(w *pool.Worker, ch chan int, done <-chan struct{}) int {
	select {
	case v := <-ch:
		return v
	case <-done:
		return 0
	default:
		return fib(w, 3)
	}
}

// Channels and sleeps in code that is not a task.
func notATask(p *pool.Pool, ch chan int) int {
	go func() { ch <- 1 }()
	time.Sleep(time.Millisecond)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		p.Run(func(w *pool.Worker) { _ = fib(w, 10) })
	}()
	wg.Wait()
	return <-ch
}

// A send on a buffered channel is how tasks hand results out.
func results(p *pool.Pool, n int) int {
	out := make(chan int, n)
	parallel.For(p, 0, n, func(w *pool.Worker, i int) {
		out <- fib(w, i)
	})
	close(out)
	sum := 0
	for v := range out {
		sum += v
	}
	return sum
}

// A short critical section, in a task.
func critical(w *pool.Worker, mu *sync.Mutex, m map[int]int, xs []int) {
	mu.Lock()
	m[len(xs)]++
	mu.Unlock()
	parallel.Sort(w, xs)
	mu.Lock()
	if len(xs) == 0 {
		mu.Unlock()
		return
	}
	m[0]++
	mu.Unlock()
	forkjoin.Invoke(w, func(w *pool.Worker) int { return fib(w, 3) })
}

// A block used in its body, by its tasks (N4411: b.Run from a task of the
// block), passed to a function and copied to a local.
func blocks(p *pool.Pool, n int) {
	taskblock.Define(p, func(b *taskblock.Block) {
		local := b
		var walk func(w *pool.Worker, i int)
		walk = func(w *pool.Worker, i int) {
			if i > 0 {
				b.Run(func(w *pool.Worker) { walk(w, i-1) })
			}
		}
		local.Run(func(w *pool.Worker) { walk(w, n) })
		start(b, n)
		b.Wait()
	})
}

func start(b *taskblock.Block, n int) {
	for i := 0; i < n; i++ {
		b.Run(func(*pool.Worker) {})
	}
}

// Close where the pool was created, and of another pool in a section.
func closing(other *pool.Pool) {
	p := pool.New()
	p.Run(func(w *pool.Worker) {
		pool.Blocking(other.Close)
	})
	p.Close()
}

// Spawned tasks joined, or handed on.
func spawns(w *pool.Worker) int {
	t := forkjoin.Spawn(w, func(w *pool.Worker) int { return fib(w, 10) })
	ts := []forkjoin.Task[int]{forkjoin.Spawn(w, func(w *pool.Worker) int { return 1 })}
	sum := t.Join(w)
	for _, t := range ts {
		sum += t.Join(w)
	}
	return sum
}
