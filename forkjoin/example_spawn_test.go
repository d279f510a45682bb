package forkjoin_test

import (
	"fmt"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

// fibSpawn is Cilk's fib: spawn one call, compute the other, sync.
func fibSpawn(w *pool.Worker, n int) int {
	if n < 2 {
		return n
	}
	t := forkjoin.Spawn(w, func(w *pool.Worker) int { return fibSpawn(w, n-2) })
	a := fibSpawn(w, n-1)
	return a + t.Join(w)
}

func ExampleSpawn() {
	p := pool.New()
	defer p.Close()
	fmt.Println(forkjoin.Invoke(p, func(w *pool.Worker) int { return fibSpawn(w, 20) }))
	// Output: 6765
}

// A task spawns several, works, then joins each once, in any order.
func ExampleTask_Join() {
	p := pool.New()
	defer p.Close()
	sum := forkjoin.Invoke(p, func(w *pool.Worker) int {
		var ts []forkjoin.Task[int]
		for i := 1; i <= 4; i++ {
			ts = append(ts, forkjoin.Spawn(w, func(w *pool.Worker) int { return i * i }))
		}
		s := 0
		for _, t := range ts {
			s += t.Join(w)
		}
		return s
	})
	fmt.Println(sum)
	// Output: 30
}

func ExampleTask() {
	p := pool.New()
	defer p.Close()
	forkjoin.Invoke(p, func(w *pool.Worker) struct{} {
		t := forkjoin.Spawn(w, func(w *pool.Worker) string { return "spawned" })
		fmt.Println("computing")
		fmt.Println(t.Join(w))
		return struct{}{}
	})
	// Output:
	// computing
	// spawned
}
