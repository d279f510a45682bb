package pool_test

import (
	"errors"
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

// Each item asks a service for a value and waits for the answer in a
// section: the worker runs the other items meanwhile, and the value and
// the error come back as the call's results. The service here is a
// goroutine answering on a channel; a file, a database or an RPC client
// is used the same way.
func ExampleBlockingValue() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	type request struct {
		key   string
		reply chan int
	}
	requests := make(chan request)
	go func() { // the service: the length of each key, -1 for an empty one
		for r := range requests {
			if r.key == "" {
				r.reply <- -1
				continue
			}
			r.reply <- len(r.key)
		}
	}()
	defer close(requests)
	lookup := func(key string) (int, error) {
		r := request{key, make(chan int)}
		requests <- r
		if n := <-r.reply; n >= 0 {
			return n, nil
		}
		return 0, errors.New("empty key")
	}

	keys := []string{"fork", "join", "steal"}
	lengths := make([]int, len(keys))
	err := parallel.ForErr(p, 0, len(keys), func(_ *pool.Worker, i int) error {
		n, err := pool.BlockingValue(func() (int, error) { return lookup(keys[i]) })
		lengths[i] = n
		return err
	})
	fmt.Println(lengths, err)

	_, err = pool.BlockingValue(func() (int, error) { return lookup("") }) // outside a task: just the call
	fmt.Println(err)
	// Output:
	// [4 4 5] <nil>
	// empty key
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
