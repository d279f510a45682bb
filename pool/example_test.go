package pool_test

import (
	"errors"
	"fmt"

	"github.com/forkjoin/fj/forkjoin"
	"github.com/forkjoin/fj/pool"
)

func Example() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	// From ordinary code, a *Pool runs work and waits for it; inside, the
	// task's *Worker forks more.
	p.Run(func(w *pool.Worker) {
		a, b := forkjoin.Join(w,
			func(*pool.Worker) string { return "fork" },
			func(*pool.Worker) string { return "join" })
		fmt.Println(a, b, w.Pool().Workers())
	})
	// Output: fork join 2
}

func ExamplePool_Run_panic() {
	p := pool.New(pool.WithWorkers(1))
	defer p.Close()

	defer func() {
		// A panic in a task comes back to the caller as a *PanicError,
		// with the original value and the stack where it happened.
		var pe *pool.PanicError
		if err, ok := recover().(error); ok && errors.As(err, &pe) {
			fmt.Println("task panicked:", pe.Value)
		}
	}()
	p.Run(func(*pool.Worker) { panic("out of cheese") })
	// Output: task panicked: out of cheese
}

func ExamplePool_Stats() {
	p := pool.New(pool.WithWorkers(1))
	for i := 0; i < 3; i++ {
		p.Run(func(*pool.Worker) {})
	}
	p.Close() // counters are exact once the pool is closed
	s := p.Stats()
	fmt.Println("submitted:", s.Submitted, "executed:", s.Total.Executed)
	// Output: submitted: 3 executed: 3
}

func ExampleRegion() {
	p := pool.New()
	defer p.Close()

	// With an execution trace recording (runtime/trace, go test -trace),
	// everything forked inside shows up under "checksum".
	pool.Region(p, "checksum", func(w *pool.Worker) {
		a, b := forkjoin.Join(w,
			func(*pool.Worker) int { return 40 },
			func(*pool.Worker) int { return 2 })
		fmt.Println(a + b)
	})
	// Output: 42
}
