package parallel_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/forkjoin/fj/parallel"
	"github.com/forkjoin/fj/pool"
)

// fetch stands for a call that waits on ctx: it takes d, or returns early
// with the context's cause when ctx ends.
func fetch(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func ExampleWithContext() {
	p := pool.New(pool.WithWorkers(2))
	defer p.Close()

	// As with errgroup.WithContext: the first error cancels the bodies'
	// context, so the fetches still waiting return at once instead of
	// taking their hour; the call returns that first error.
	errNotFound := errors.New("item 3: not found")
	opt, ctx := parallel.WithContext(context.Background())
	start := time.Now()
	err := parallel.ForErr(p, 0, 100, func(_ *pool.Worker, i int) error {
		if i == 3 {
			return errNotFound
		}
		var err error
		pool.Blocking(func() { err = fetch(ctx, time.Hour) }) // the worker goes on meanwhile
		return err
	}, opt)
	fmt.Println(err, time.Since(start) < time.Hour)
	fmt.Println(context.Cause(ctx))
	// Output:
	// item 3: not found true
	// item 3: not found
}
