package pool_test

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/forkjoin/fj/pool"
)

// A task that calls runtime.Goexit (as testing.T.FailNow does) cannot end
// its worker's goroutine on the caller's behalf: the caller of Run gets a
// *PanicError whose Value is ErrGoexit instead, and the pool carries on.
// A task cut short by another task's Goexit on the same worker goroutine
// reports ErrAbortedByGoexit, which wraps ErrGoexit: one errors.Is check
// covers both.
func ExamplePanicError_goexit() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	run := func(f func(w *pool.Worker)) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = r.(error)
			}
		}()
		p.Run(f)
		return nil
	}

	err := run(func(*pool.Worker) {
		runtime.Goexit()
		fmt.Println("not reached")
	})
	var pe *pool.PanicError
	fmt.Println(errors.As(err, &pe), pe.Value == pool.ErrGoexit, pe.Value == pool.ErrAbortedByGoexit)
	fmt.Println(errors.Is(err, pool.ErrGoexit))
	fmt.Println(pe.Value)
	fmt.Println(errors.Is(pool.ErrAbortedByGoexit, pool.ErrGoexit))

	// The worker carries on in a fresh goroutine.
	fmt.Println(run(func(*pool.Worker) {}))
	// Output:
	// true true false
	// true
	// task called runtime.Goexit
	// true
	// <nil>
}
