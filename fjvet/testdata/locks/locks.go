// Package locks holds the lock-across-join findings: a mutex locked in a
// task and held across an fj call that waits.
package locks

import (
	"sync"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

func fib(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	a, b := forkjoin.JoinArgs(w, fib, n-1, n-2)
	return a + b
}

func acrossSort(w *pool.Worker, mu *sync.Mutex, xs []int) {
	mu.Lock() // want `lock-across-join: mu is locked across parallel.Sort at line \d+`
	parallel.Sort(w, xs)
	mu.Unlock()
}

type state struct {
	mu sync.Mutex
	n  int
}

// A deferred Unlock holds the lock to the end.
func deferred(w *pool.Worker, s *state) int {
	s.mu.Lock() // want `lock-across-join: s.mu is locked across forkjoin.Invoke`
	defer s.mu.Unlock()
	return forkjoin.Invoke(w, func(w *pool.Worker) int { return fib(w, s.n) })
}

// A Future joined while the lock is held.
func future(w *pool.Worker, mu *sync.RWMutex) int {
	f := forkjoin.Fork(w, func(w *pool.Worker) int { return fib(w, 10) })
	mu.RLock() // want `lock-across-join: mu is locked across forkjoin.Future.Join`
	v := f.Join(w)
	mu.RUnlock()
	return v
}

// A helper given the worker may fork and join.
func helper(w *pool.Worker, mu *sync.Mutex) int {
	mu.Lock() // want `lock-across-join: mu is locked across fib \(given the worker, it joins\)`
	v := fib(w, 20)
	mu.Unlock()
	return v
}

// A lock taken in a section is held after it.
func section(w *pool.Worker, mu *sync.Mutex) {
	pool.Blocking(mu.Lock) // want `lock-across-join: mu is locked across taskblock.Define`
	taskblock.Define(w, func(b *taskblock.Block) {})
	mu.Unlock()
}

// One branch unlocks and returns; the other carries the lock on.
func branch(w *pool.Worker, mu *sync.Mutex, ok bool) {
	mu.Lock() // want `lock-across-join: mu is locked across parallel.For`
	if ok {
		mu.Unlock()
		return
	}
	parallel.For(w, 0, 10, func(*pool.Worker, int) {})
	mu.Unlock()
}

// In a loop body.
func body(p *pool.Pool, mu *sync.Mutex, xs [][]int) {
	parallel.For(p, 0, len(xs), func(w *pool.Worker, i int) {
		mu.Lock() // want `lock-across-join: mu is locked across parallel.Sort`
		parallel.Sort(w, xs[i])
		mu.Unlock()
	})
}

// A helper given the worker that makes no fj call that waits.
func record(w *pool.Worker, counts []int) { counts[w.ID()]++ }

func recorded(w *pool.Worker, mu *sync.Mutex, counts []int) {
	mu.Lock()
	record(w, counts)
	mu.Unlock()
}
