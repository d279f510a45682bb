package pool_test

import (
	"fmt"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
	"github.com/forkjoin/fj/taskblock"
)

// A producer and its consumer, run side by side on a pool of one worker
// (the default in a one-CPU container). Without sections the producer's
// first send would hold the only worker, and the consumer, queued behind
// it, would never run. In sections, each channel operation lets the worker
// run the other task while it waits.
func ExampleBlocking() {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()

	ch := make(chan int)
	sum := 0
	parallel.Do(p,
		func(*pool.Worker) {
			for i := 1; i <= 10; i++ {
				pool.Blocking(func() { ch <- i })
			}
			pool.Blocking(func() { close(ch) })
		},
		func(*pool.Worker) {
			for {
				var v int
				var ok bool
				pool.Blocking(func() { v, ok = <-ch })
				if !ok {
					return
				}
				sum += v
			}
		})
	fmt.Println(sum)
	// Output: 55
}

// With a cap of two, four tasks that block at once take turns: two are in
// their sections while the others wait for a slot. Stats shows the most
// there were at once.
func ExampleWithMaxBlocking() {
	p := pool.New(pool.WithWorkers(2), pool.WithMaxBlocking(2))
	defer p.Close()

	in, gate := make(chan int, 4), make(chan struct{})
	go func() {
		<-in
		<-in
		close(gate) // two sections are in: let them all through
	}()
	taskblock.Define(p, func(b *taskblock.Block) {
		for i := range 4 {
			b.Run(func(*pool.Worker) {
				pool.Blocking(func() {
					in <- i
					<-gate
				})
			})
		}
	})
	fmt.Println("most in sections at once:", p.Stats().MostBlocking)
	// Output: most in sections at once: 2
}
